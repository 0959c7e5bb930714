/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_results.h - the results database (docs/results-schema.md): written from plain run
 * results, read back for `compare`. Nothing here knows the engine: a run result is what
 * a replay produced (counters by name, model counters, time series, lru_gen snapshots,
 * script log, a few totals), the setup is what it was run on. The engine (mr_replay.h)
 * fills these; a test, an importer or another simulator can fill them as well.
 */
#ifndef MR_RESULTS_H
#define MR_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"

struct sqlite3;

#define MR_RESULTS_APP_ID 0x4d525253u /* "MRRS" */
#define MR_RESULTS_VERSION 1

/* ---- what one run produced ---- */

/* A final counter: /proc/vmstat names for the machine (memcg -1), memory.stat names per
 * cgroup, mr_* / host_* engine names (docs/results-schema.md). */
struct mr_result_counter {
	const char *name;	/* static, or owned by the producer */
	int64_t memcg;		/* the trace's cgroup id, or -1 for the whole machine */
	uint64_t value;
};

/* A policy's own figure (aging cost, walk stats); NaN is stored as NULL. */
struct mr_result_model_counter {
	char name[64];
	double value;
};

/* An lru_gen snapshot in the format of /sys/kernel/debug/lru_gen. */
struct mr_result_snapshot {
	uint64_t t;
	int full;
	const char *why;	/* "end", "script", "every" */
	char *text;
};

/* One command of a replay script, as it ran. */
struct mr_result_script_log {
	uint64_t t;
	uint32_t line;
	int rc;
	char cmd[128];
	char msg[160];
};

/* The figures `replay` prints per run, kept beside the counters so that no reader has
 * to look them up by name (the machine-wide values of the named counters). */
struct mr_run_totals {
	uint64_t pgfault, pgmajfault;
	uint64_t misses;		/* mr_misses: pages brought into memory */
	uint64_t refaults;		/* workingset_refault_anon + _file */
	uint64_t evictions;		/* mr_evictions */
	uint64_t pswpin, pswpout;
	uint64_t oom;			/* mr_oom */
	uint64_t usage_max;		/* mr_usage_max: peak pages charged, all memcgs */
	uint64_t reclaim_passes;	/* mr_reclaims + mr_direct_reclaims + mr_kswapd_runs */
};

/* A note about a run for people (table notes): its kind and one line of text. */
struct mr_result_note {
	const char *kind;	/* e.g. "toggle_idle" (docs/results-schema.md) */
	const char *message;
};

/* A segment of the trace (docs/results-schema.md, "segments"): the events
 * [ev_first, ev_end) in trace order, the first at t_first, the last at t_last. */
struct mr_result_segment {
	uint64_t ev_first, ev_end;
	uint64_t t_first, t_last;
};

/* One run: a policy over the trace. The arrays belong to the producer. */
struct mr_run_result {
	char spec[256];		/* canonical policy spec */
	char name[64];		/* policy name */
	uint64_t memory_pages;	/* this run's whole-trace size in pages (runs.memory_pages);
				 * 0 = the setup's memory_pages */
	uint32_t vary_seed;	/* --vary seed (runs.vary_seed), 0 = none */
	double vary_p;		/* its switch-in probability (runs.vary_p) */
	uint64_t events;
	struct mr_run_totals totals;
	const struct mr_result_counter *counters;
	size_t ncounters;
	const struct mr_result_model_counter *model;
	size_t nmodel;
	/* time series: ts_nsamples rows of ts_nnames values */
	const char *const *ts_names;
	size_t ts_nnames;
	const uint64_t *ts_t;
	const uint64_t *ts_val;
	size_t ts_nsamples;
	const struct mr_result_snapshot *snaps;
	size_t nsnaps;
	const struct mr_result_script_log *log;
	size_t nlog;
	double wall_s;		/* this run's share of worker time (timing table only) */
	/* notes of this run beyond the setup's (written after them, in this order) */
	const struct mr_result_note *notes;
	size_t nnotes;
	/* segments (none: nsegs 0): their bounds, and seg_val[s * seg_nnames + k], the
	 * machine-wide value of counter seg_names[k] at the end of segment s (cumulative,
	 * so non-decreasing in s; only counters that count events, never gauges). The
	 * table segment_counters keeps the increments. */
	const struct mr_result_segment *segs;
	size_t nsegs;
	const char *const *seg_names;
	size_t seg_nnames;
	const uint64_t *seg_val;
};

/* ---- what the runs were run on ---- */

struct mr_results_memcg {
	uint64_t cgroup;	/* the trace's cgroup id */
	const char *path;	/* may be NULL */
	uint64_t limit_pages;	/* 0 = unlimited */
};

struct mr_results_setup {
	/* the trace */
	const char *trace_path;
	const char *trace_id;		/* the store's identity (docs/results-schema.md) */
	uint64_t trace_events, trace_t_first, trace_t_last;
	uint32_t nodes;
	const struct mr_results_memcg *memcgs;
	uint32_t nr_memcgs;
	/* the replay's parameters */
	uint64_t memory_pages;		/* 0 = none; a run's own memory_pages goes first */
	const char *memory_spec;	/* --memory as given, or NULL */
	uint64_t swap_pages;		/* 0 = unlimited */
	int no_swap;			/* no swap (runs.swap_pages 0) */
	uint64_t wb_delay_ns, interval_ns, snapshot_every_ns;
	const char *script;		/* path or "(inline)", NULL = none */
	const char *script_sha256;
	const char *reclaim;		/* "memcg" or "node"; NULL = "memcg" */
	const char *shadow;		/* "keep", "kernel" or "none"; NULL = "keep" */
	uint32_t fault_around_pages;	/* 1 = off */
	int record_timing;		/* write the timing table (not deterministic) */
	int threads;
	/* notes[nruns]: one note per run (or NULL), of kind note_kinds[run] (NULL, or
	 * note_kinds NULL: note_kind, and NULL there: "note") */
	const char *const *notes;
	const char *const *note_kinds;
	const char *note_kind;
	/* coverage[nruns]: what the trace could see (notes of kind "coverage"), or NULL */
	const char *const *coverage;
	/* more tables (the engine's detail tables), written by this callback in the same
	 * transaction after every run; NULL = none */
	int (*write_extra)(void *arg, struct sqlite3 *db, struct mr_error *err);
	void *extra_arg;
	/* a sampled replay (docs/replay.md, "Sampled replay"): 1 in sample_den regions
	 * (0 = not sampled) with sample_seed; meta sample_den and sample_seed, and
	 * sample_note as a note of kind "sampled" on every run */
	uint32_t sample_den;
	uint64_t sample_seed;
	const char *sample_note;
	/* and, as counters of every run (machine-wide): the trace's references, sampled
	 * or not (mr_sample_trace_references), the sampled pages (mr_sample_pages) of the
	 * trace's (mr_sample_trace_pages): what mr_curve_row.miss_ratio divides by */
	uint64_t sample_trace_refs, sample_pages, sample_trace_pages;
	/* the sampled pages' references, counted as sample_trace_refs is, by the pass that
	 * chose them (mr_sample_references): a machine counts its references its own way
	 * (a host REFAULT is one for the pass, not for the machine), so its share of the
	 * trace's is taken from the pass, not from the machine's count */
	uint64_t sample_refs;
	/* pages sampled whole as one (meta sample_unit_pages; 0 = 1) */
	uint32_t sample_unit;
};

/*
 * Claim path for writing results: check that it may be replaced (absent or a results
 * database; MR_EINVAL for a symbolic link or any other file) and lock it against other
 * writers until mr_results_release() (PATH.lock, flock()ed; removed on release). A path
 * another writer holds: MR_EBUSY naming it, at once (no waiting). Claim before a long
 * replay so that a second replay to the same -o fails before it runs, not after.
 * Returns 0, MR_EINVAL, MR_EBUSY, MR_EPERM, MR_EIO, MR_ENOMEM.
 */
struct mr_results_claim;
#define MR_RESULTS_PATH_MAX 960 /* the longest path a claim takes (its lock and temporary
				 * files add to it) */
int mr_results_claim(const char *path, struct mr_results_claim **out, struct mr_error *err);
/* May path be replaced by a results file: absent, or a results database; never a link,
 * a FIFO or another file (what mr_results_claim() checks first). 0 or MR_EINVAL / MR_EIO
 * with a message. */
int mr_results_check_target(const char *path, struct mr_error *err);
void mr_results_release(struct mr_results_claim *c);	/* NULL: no-op */
const char *mr_results_claim_path(const struct mr_results_claim *c);
/*
 * Write the results database at the claimed path in one transaction: into a new file
 * beside it, renamed over it when complete, so that the path holds the old file or the
 * whole new one, never part of one. On failure the path is as it was. Byte-identical
 * output for identical input. Returns 0, MR_EINVAL, MR_EIO, MR_ENOSPC.
 */
int mr_results_write_claimed(const struct mr_results_claim *c,
			     const struct mr_results_setup *setup,
			     const struct mr_run_result *runs, size_t nruns, struct mr_error *err);
/* Claim, write, release: the same for a caller that holds no claim (MR_EBUSY too). */
int mr_results_write(const char *path, const struct mr_results_setup *setup,
		     const struct mr_run_result *runs, size_t nruns, struct mr_error *err);

/* ---- reading results: `memreplay compare` ---- */

struct mr_results;

int mr_results_open(const char *path, struct mr_results **out, struct mr_error *err);
void mr_results_close(struct mr_results *r);
/* The results database (read-only), for SQL queries. Owned by r. */
struct sqlite3 *mr_results_db(struct mr_results *r);

struct mr_compare_opts {
	const char *baseline;          /* run id, or policy spec (canonical or as a prefix);
					* NULL = the first run */
	const char *const *counters;   /* names to show; NULL = every counter that is
					* non-zero in some run, then model counters */
	size_t ncounters;
	const char *trace_id;          /* only the runs of this trace (runs.trace_id), as
					* if the file held those alone; NULL = every run */
};

struct mr_compare_row {
	char name[96];
	int model;       /* from model_counters */
	double *value;   /* [nruns] */
	uint8_t *present; /* [nruns] */
	/* the 95 % interval of run i's absolute delta (mr_compare_interval()); NULL
	 * without intervals */
	double *lo, *hi;  /* [nruns] */
	uint8_t *has_ci;  /* [nruns] */
};

/* A note about a run from the notes table (not the coverage ones, which every run has). */
struct mr_compare_note {
	size_t run;        /* index into the runs */
	char kind[32];
	char message[512];
};

#define MR_COMPARE_NONE SIZE_MAX

/*
 * Runs that differ in memory (a sweep, docs/replay.md) are compared within a size: each
 * run against the run of the baseline's spec at its own memory_pages (base[i]; the
 * chosen baseline itself at its size, and every run when all have one size). A run
 * with no such run has base[i] = MR_COMPARE_NONE and no deltas.
 */
struct mr_compare {
	size_t nruns;
	int64_t *run_id;   /* [nruns] */
	char (*spec)[256]; /* [nruns] */
	uint64_t *memory_pages; /* [nruns]: runs.memory_pages, 0 = NULL */
	size_t *base;      /* [nruns]: index of the run each is compared with */
	int by_memory;     /* the runs differ in memory_pages */
	/* A run is compared only with a run of the same trace and sampling (a merge of
	 * several traces or seeds, docs/sweep.md): runs.trace and the sampled note's rate and
	 * seed of each (0 = a full replay), runs.trace_id in trace_ids; cohort = the index of
	 * the first run of the same trace_id, rate, unit, seed and settings; by_cohort: the
	 * runs differ in those; many_traces: in trace_id. */
	int many_traces;
	char (*trace)[256];
	char (*trace_ids)[80];
	uint32_t *sample_den;
	uint64_t *sample_seed;
	uint32_t *sample_unit; /* pages a sampled unit holds, 0 = page by page */
	/* the run's other settings (swap, nodes, writeback delay, reclaim, shadows,
	 * fault-around, script): runs that differ in them are other cohorts */
	char (*settings)[160];
	int many_settings, many_units; /* the runs differ in those, in sampled units */
	uint64_t *vary_seed;  /* runs.vary_seed (replay --vary), 0 = none */
	size_t *cohort;
	int by_cohort;
	char trace_id[80]; /* runs.trace_id of the first run */
	size_t baseline;   /* index of the baseline run (as chosen) */
	size_t nrows;
	struct mr_compare_row *rows;
	struct mr_compare_note *notes; /* in run order */
	size_t nnotes;
	/* Intervals (docs/results-schema.md, "compare: intervals"): a paired circular
	 * block bootstrap over the runs' segments. intervals = 0 for a file without
	 * segments (written before them); else nsegs segments, blocks of block_len,
	 * resamples resamples from a fixed seed. */
	int intervals;
	size_t nsegs;
	unsigned block_len, resamples;
};

#define MR_COMPARE_RESAMPLES 1999 /* the 50th from each end is the 95 % bound */
#define MR_COMPARE_SEED 0x6d656d7265706c61ull /* "memrepla": output is byte-identical */

/* Side-by-side values; MR_ENOENT for an unknown baseline or counter (message lists the
 * valid ones). */
/* The traces a results file's runs replayed, in the order of their first run: n of
 * them, each its trace_id and the path its first run gives (mr_compare_opts.trace_id
 * takes one). *ids and *paths are the caller's to free. 0, or MR_EIO / MR_ENOMEM. */
int mr_results_traces(struct mr_results *r, char (**ids)[80], char (**paths)[256], size_t *n,
		      struct mr_error *err);
int mr_results_compare(struct mr_results *r, const struct mr_compare_opts *o,
		       struct mr_compare **out, struct mr_error *err);
void mr_compare_free(struct mr_compare *c);
/* Delta of run i against its baseline (base[i]) in row k: absolute and percent (NaN
 * when the baseline is 0 and the value is not). Returns 0, or -1 when either value is
 * absent or the run has no baseline. */
int mr_compare_delta(const struct mr_compare *c, size_t k, size_t i, double *abs, double *pct);
/* The 95 % interval of that delta: absolute bounds, and as percentages of the
 * baseline's value (NaN when it is 0). Returns 0, or -1 when there is none (no delta,
 * a model counter, a gauge, a file without segments, runs whose segments differ). */
int mr_compare_interval(const struct mr_compare *c, size_t k, size_t i, double *lo, double *hi,
			double *pct_lo, double *pct_hi);
/* Is that delta inside noise: its interval contains 0? 0 also when it has none. */
int mr_compare_noise(const struct mr_compare *c, size_t k, size_t i);

/* ---- across recordings: the spread of one delta over several results files ---- */

struct mr_spread {
	size_t n;                 /* values */
	double mean, sd;          /* sd: sample standard deviation (n - 1), NaN for n < 2 */
	double min, max;
	double t_lo, t_hi;        /* mean -+ t(0.975, n - 1) * sd / sqrt(n); NaN for n < 2 */
};

/* Mean, spread and t interval of x[n] (NaN entries skipped). */
void mr_spread_of(const double *x, size_t n, struct mr_spread *out);
/* ---- the curve: `memreplay curve`, the view curve (docs/results-schema.md) ---- */

/* One run: its miss ratio and what a curve over memory sizes shows beside it. */
struct mr_curve_row {
	int64_t run;
	/* Runs of one spec, trace (trace_id), settings and sampling rate are one group, one
	 * column of the curve: the seeds of a sampled rate (merged results files,
	 * docs/sweep.md) are combined there. Runs of one group and seed are one series.
	 * Each is named by the index of its first row. */
	size_t group, series;
	uint64_t vary_seed;      /* runs.vary_seed (replay --vary), 0 = none; the seeds of a
				  * spec are one group apart from its plain run */
	char trace[256];         /* runs.trace, as the replay was given it */
	char trace_id[80];       /* runs.trace_id */
	/* the run's other settings (swap, nodes, writeback delay, reclaim, shadow,
	 * fault-around, script, sampling unit): runs that differ in them are other groups */
	char settings[160];
	char policy[64];
	char spec[256];
	uint64_t memory_pages;   /* 0 = none (cgroup limits only) */
	uint64_t refs;           /* mr_references */
	uint64_t misses;         /* mr_misses */
	double miss_ratio;       /* misses / refs; NaN without mr_references (an older file);
				  * a sampled run: misses / (refs x (mr_sample_trace_references
				  * x mr_sample_pages / mr_sample_trace_pages) /
				  * mr_sample_references), the references its pages' share
				  * would have beyond its own counted as hits (docs/replay.md,
				  * "Sampled replay") */
	double miss_ratio_raw;   /* misses / refs, also for a sampled run */
	uint64_t first_touch;    /* mr_first_touch: the misses no memory size avoids */
	uint64_t refaults_anon, refaults_file; /* workingset_refault_anon / _file */
	uint64_t pswpin, pswpout;
	uint64_t evictions;      /* mr_evictions */
	uint64_t oom;            /* mr_oom: > 0 = the run went over its memory */
	uint32_t sample_den;     /* a sampled run: 1 in sample_den regions; 0 = full */
	uint64_t sample_seed;
	uint32_t sample_unit;    /* pages a sampled unit holds, 0 = page by page */
};

struct mr_curve {
	struct mr_curve_row *rows; /* by group (in the order of their first run), then
				    * memory ascending, then run */
	size_t n;
	size_t missing_refs;       /* rows from a file without mr_references */
	size_t ntraces;            /* distinct trace_ids */
	size_t max_seeds;          /* most series in one group (1: no seeds combined) */
};

/* The curve of a results file: one row per run. MR_ENOENT for a file without runs. */
int mr_results_curve(struct mr_results *r, struct mr_curve **out, struct mr_error *err);
void mr_curve_free(struct mr_curve *c); /* NULL: no-op */

/* ---- merging results: `memreplay merge` (merge.c, docs/sweep.md) ---- */

/*
 * Join the results files inputs[0..n) into one at out: their runs renumbered 1, 2, ...
 * in input order (within an input in the order of its ids), every table's rows carried
 * over with the new ids, runs.trace and every other column as they were. Each input must
 * open with mr_results_open() (a results file of this version: MR_ENOTSTORE,
 * MR_EVERSION, MR_ECORRUPT otherwise, naming it); rows naming no run are refused
 * (MR_ECORRUPT). out is claimed and written as mr_results_write() writes (replaces a
 * results file, refuses any other; temp + rename); an input that is out, or an input
 * given twice, is MR_EINVAL, and so is a run that is a run of an earlier input again
 * (every runs column but id and trace, its counters and notes: a copy, counted twice by
 * curve and compare) unless flags has MR_MERGE_KEEP_COPIES. The same inputs give a
 * byte-identical file. *nruns: the runs written. Returns 0 or a negative enum mr_err
 * with a message.
 */
#define MR_MERGE_KEEP_COPIES 1u
int mr_results_merge(const char *out, const char *const *inputs, size_t n, unsigned flags,
		     uint64_t *nruns, struct mr_error *err);
/* The same into a path the caller has claimed (mr_results_claim()) and still holds, as
 * `replay --sample-seed` holds its -o over all of its passes and their merge. */
int mr_results_merge_claimed(const struct mr_results_claim *claim, const char *const *inputs,
			     size_t n, unsigned flags, uint64_t *nruns, struct mr_error *err);

#endif /* MR_RESULTS_H */
