/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_int.h - private to bench/: what the three benchmarks share (measure.c).
 *
 *   bench_store.c   `bench store`   (mr_store.h, mr_codec.h, mr_gen.h)
 *   bench_replay.c  `bench replay`  (mr_replay.h, mr_gen.h)
 *   bench_sample.c  `bench sample`  (mr_replay.h, mr_results.h, mr_gen.h)
 *   bench_record.c  `bench record`  (mr_recorder.h, mr_store.h, libperf)
 *   measure.c       progress notes, rates, the median of runs, cases run in a child
 *                   process with their own peak RSS, generator traces, temporary
 *                   directories, report text
 *
 * Wall times come from the one monotonic clock, mr_clock_s() (mr_util.h).
 */
#ifndef MR_BENCH_INT_H
#define MR_BENCH_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mr_bench.h"
#include "mr_util.h"

/* A progress line for the caller's note(arg, line); nothing when note is NULL. */
void bench_note(void (*note)(void *arg, const char *line), void *arg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* bench_note() for options o with note and note_arg members (every benchmark's). */
#define BENCH_NOTE(o, ...) bench_note((o)->note, (o)->note_arg, __VA_ARGS__)

/* count per second of seconds; 0 when no time was measured. */
static inline double bench_rate(double count, double seconds)
{
	return seconds > 0 ? count / seconds : 0;
}

/* The index of the median of v[0..n), the lower middle one for an even n (ties keep
 * their order); also the smallest and largest values. n from 1 to 64 (more: the first
 * 64 count). */
size_t bench_median(const double *v, size_t n, double *min, double *max);

/*
 * Run fn(arg, result, err) in a child process and wait for it, so that its peak RSS is
 * the child's own (getrusage of the child: *peak_rss, bytes). fn fills result (size
 * bytes, sent back through a pipe) and returns 0 or an enum mr_err with its message in
 * err. Returns what fn returned, with its message, or MR_EIO when the child could not be
 * run or died ("bench: the WHAT child ...").
 */
int bench_in_child(const char *what, int (*fn)(void *arg, void *result, struct mr_error *err),
		   void *arg, void *result, size_t size, uint64_t *peak_rss,
		   struct mr_error *err);

/* Write generator gen's trace to path: its defaults (seed 1), then params, name/value
 * pairs ending with NULL (NULL = none). */
int bench_gen(const char *gen, const char *const *params, const char *path,
	      struct mr_error *err);

/* A new directory PARENT/memreplay-bench-NAME.XXXXXX (parent NULL = /tmp) into dir. */
int bench_mkdtemp(const char *parent, const char *name, char *dir, size_t cap,
		  struct mr_error *err);
/* Remove dir and everything below it (what a benchmark left in its directory). */
void bench_rmtree(const char *dir);

/* Report text: an mr_strbuf over the caller's buffer, then the _format() return value
 * (mr_bench.h: the length, or MR_ENOSPC when it was cut short). */
int bench_report_end(const struct mr_strbuf *sb);
/* v printed with fmt into b, or "-" for a figure the row does not have. Returns b. */
const char *bench_fig(char *b, size_t cap, int have, const char *fmt, double v);

#endif /* MR_BENCH_INT_H */
