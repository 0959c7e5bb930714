/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_gen.h - deterministic synthetic workload generators.
 *
 * Each generator writes a trace through the ordinary store writer (mr_store.h), shaped
 * like a workload behind one of the seed patch threads. Parameters are typed and
 * bounded, declared in a table per generator and parsed here, so the CLI only passes
 * strings through. Same generator + parameters + seed -> byte-identical event chunks.
 */
#ifndef MR_GEN_H
#define MR_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"
#include "mr_store.h"

enum mr_gen_ptype {
	MR_GP_PAGES,  /* memory size: "256M", "1G", "65536" (pages) -> pages */
	MR_GP_COUNT,  /* count: "50M" -> 50,000,000 */
	MR_GP_DOUBLE, /* real number */
	MR_GP_DURATION, /* time: "100ms", "1.5s" (mr_parse_duration: a bare number is ns) -> ns */
};

struct mr_gen_param {
	const char *name;
	enum mr_gen_ptype type;
	double min, max; /* inclusive bounds, in pages for MR_GP_PAGES, ns for MR_GP_DURATION */
	const char *def; /* default, as the user would type it */
	const char *help;
};

#define MR_GEN_MAX_PARAMS 16

/* Parsed values, indexed like the generator's parameter table. */
struct mr_gen_values {
	union {
		uint64_t u; /* PAGES, COUNT, DURATION (ns) */
		double d;   /* DOUBLE */
	} v[MR_GEN_MAX_PARAMS];
	uint64_t seed;
};

struct mr_gen {
	const char *name;
	const char *help;   /* one line */
	const char *models; /* which workload/seed it is shaped like */
	const struct mr_gen_param *params;
	size_t nparams;
	/* Write the whole trace through w (metadata rows + events); do not finish w. */
	int (*run)(const struct mr_gen_values *vals, struct mr_writer *w, struct mr_error *err);
};

/* All generators, NULL-terminated. */
const struct mr_gen *const *mr_gen_list(void);
const struct mr_gen *mr_gen_find(const char *name);
/* Fill vals with each parameter's default. */
int mr_gen_defaults(const struct mr_gen *g, struct mr_gen_values *vals, struct mr_error *err);
/* Parse one "name" = "value"; unknown name or bad value -> MR_EINVAL, out of range ->
 * MR_ERANGE, each with a message naming the parameter. */
int mr_gen_set(const struct mr_gen *g, struct mr_gen_values *vals, const char *name,
	       const char *value, struct mr_error *err);
/*
 * Run the generator into a new store beside path and move it to path when finished, so
 * that path holds the old file or the whole new trace. An existing path is refused
 * (MR_EINVAL, naming --force) unless overwrite; a symbolic link at path always is. On
 * failure the partial file is removed and path is as it was.
 */
int mr_gen_create(const struct mr_gen *g, const struct mr_gen_values *vals, const char *path,
		  int overwrite, const struct mr_writer_opts *wopts, struct mr_error *err);
/* mr_gen_create() with overwrite: for a caller's own (temporary) files. */
int mr_gen_write(const struct mr_gen *g, const struct mr_gen_values *vals, const char *path,
		 const struct mr_writer_opts *wopts, struct mr_error *err);

#endif /* MR_GEN_H */
