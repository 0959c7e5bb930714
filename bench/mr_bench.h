/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_bench.h - `memreplay bench`: the project's own speed, measured. Figures, not
 * assertions (DESIGN: speed is measured by benchmarks, never asserted by timed tests).
 *
 *   store   encode and decode generator traces: bytes/event, write and decode rates,
 *           writer memory (bench_store.c)
 *   replay  replay speed and memory per policy, one pass against many, and the memory
 *           bound under them (bench_replay.c)
 *   sample  a sampled replay's curve against the full one: error and time
 *           (bench_sample.c)
 *   record  what recording costs the recorded programs, against raw perf and the perf
 *           tool (bench_record.c; root)
 *
 * Used by the CLI only: the libraries it measures (storage, traces, replayer, recorder)
 * know nothing of it. Like every library it never prints, exits or reads the
 * environment: a benchmark fills rows of figures, and a _format() function turns them
 * into the report the CLI prints.
 *
 * Reports: mr_bench_*_format() write into buf (capacity cap, NUL-terminated when cap > 0)
 * and return the length without the NUL, MR_ENOSPC when it did not fit (buf then holds
 * a truncated report), or MR_EINVAL.
 */
#ifndef MR_BENCH_H
#define MR_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"

/* A buffer of this size holds any report below of up to 64 rows. */
#define MR_BENCH_REPORT_MAX 32768

/* ---- `memreplay bench store` (bench_store.c) ---- */

struct mr_bench_store_opts {
	const char *dir;  /* where the temporary stores go */
	uint64_t events;  /* accesses for the zipf case (default 50M) */
	uint64_t pages;   /* distinct pages for the zipf case (default 1M) */
	int keep;         /* keep the stores */
};

struct mr_bench_store_case {
	char name[48];
	uint64_t events, chunks;
	double write_s;         /* generate + encode + commit */
	double bytes_per_event; /* chunk blob bytes */
	double payload_per_event; /* column-encoded bytes before LZ4 */
	double decode_mevps;    /* pure mr_chunk_decode, one core, M events/s */
	double read_mevps;      /* mr_reader from the SQLite file, M events/s */
	uint64_t writer_buffer_bytes; /* writer's own buffers */
	uint64_t write_peak_rss; /* peak RSS of the process that generated + wrote */
	uint64_t file_bytes;
};

/* Run the cases; fills up to cap entries of out and sets *n. */
int mr_bench_store(const struct mr_bench_store_opts *o, struct mr_bench_store_case *out,
		   size_t cap, size_t *n, struct mr_error *err);
/* The report of rows c[0..n): the table and what its columns mean. */
int mr_bench_store_format(const struct mr_bench_store_case *c, size_t n, char *buf,
			  size_t cap);

/* ---- `memreplay bench replay` (bench_replay.c) ---- */

struct mr_bench_replay_opts {
	const char *dir;         /* temporary trace and files; NULL = /tmp */
	uint64_t events;         /* accesses (default 50M) */
	uint64_t pages;          /* distinct pages (default 1M) */
	const char *const *policies; /* NULL = lru, mglru, opt */
	size_t npolicies;
	int keep;                /* keep the trace */
	void (*note)(void *arg, const char *line); /* progress lines, may be NULL */
	void *note_arg;
};

struct mr_bench_replay_case {
	char name[96];          /* "lru @10%", "6 in one pass @50%", ... */
	uint64_t events;
	double seconds;         /* replay phase (mr_replay_run), wall */
	double mevps;           /* M events/s over the replay phase (decode included) */
	double machine_mevps;   /* M events/s of the machines alone (summed worker time) */
	double load_s;          /* mr_replay_create: trace tables, sizing, machines */
	uint64_t peak_rss;      /* bytes, of the process that ran the case (a child) */
	uint64_t floor_rss;     /* peak RSS of the same case on a 4096-page trace: the part
				 * that does not grow with pages (program, SQLite, decode) */
	double bytes_per_page;  /* (peak RSS - floor) / distinct pages */
	double ratio;           /* one-pass cases: (load + replay) / the same summed over
				 * the single runs */
	uint64_t misses;        /* pages brought in (single-policy cases), 0 otherwise */
	uint64_t memory_pages;  /* the memory size replayed, pages */
	double machine_s;       /* the machines' own time (summed worker time) */
};

int mr_bench_replay(const struct mr_bench_replay_opts *o, struct mr_bench_replay_case *out,
		    size_t cap, size_t *n, struct mr_error *err);

/*
 * What a random cache-line load costs on this machine, over a buffer allocated as the
 * replay's per-page arrays are (mapped on its own, huge pages where THP allows): the
 * bound under the replay figures, whose machines touch tens of MiB at random.
 */
struct mr_bench_memory {
	uint64_t bytes;        /* buffer size (64 MiB: past any L3 here) */
	double dependent_ns;   /* per load whose address the previous load gave (a list walk) */
	double independent_ns; /* per load when the addresses are known ahead (overlapped) */
};

/* 0 with out filled, or MR_ENOMEM (the 64 MiB could not be mapped) with out zeroed. */
int mr_bench_memory(struct mr_bench_memory *out, struct mr_error *err);

/* The report: the memory probe's figures, then the table of rows c[0..n) and what its
 * columns mean. */
int mr_bench_replay_format(const struct mr_bench_memory *mem,
			   const struct mr_bench_replay_case *c, size_t n, char *buf, size_t cap);

/* ---- `memreplay bench sample` (bench_sample.c) ---- */

struct mr_bench_sample_opts {
	const char *dir;             /* temporary traces and results; NULL = /tmp */
	uint64_t events;             /* Zipf accesses (default 50M) */
	uint64_t pages;              /* Zipf distinct pages (default 1M) */
	int no_zipf;                 /* only the given traces */
	const char *const *traces;   /* more traces to measure */
	size_t ntraces;
	uint32_t den;                /* sampling 1/den (default 16) */
	uint32_t seeds;              /* sampled with seeds 0 .. seeds - 1 (default 1) */
	uint32_t unit;               /* --sample-unit in pages (0 = the replay's default) */
	int keep;
	void (*note)(void *arg, const char *line);
	void *note_arg;
};

/* One (trace, policy) row: its curve of 16 sizes sampled against in full. */
struct mr_bench_sample_case {
	char trace[96];
	char policy[16];
	uint64_t pages, events;
	uint32_t den;
	uint32_t unit;          /* pages a unit of the sample */
	uint32_t seeds;         /* seeds 0 .. seeds - 1, each a sampled pass */
	size_t nsizes;          /* sizes compared */
	double mae_pp, max_pp;  /* |sampled - full| miss ratio, percentage points: the mean
				 * over sizes and seeds, the largest at any size and seed */
	double worst_seed_pp;   /* the largest of the seeds' means over the sizes */
	double mae_raw_pp;      /* the mean with the sampled machine's raw ratio */
	double mean_mae_pp;     /* the mean over the sizes of |the seeds' mean - full|: what
				 * averaging the seeds leaves (bias), where mae_pp also has
				 * each seed's spread */
	double full_s;          /* the 48 runs in full, one pass, one thread */
	double full1_s;         /* the 3 policies in full at one size */
	double sampled_s;       /* the 48 runs sampled, one pass, one thread (mean of seeds),
				 * the page counts read from the cache */
	double counts_s;        /* the sampling's pass counting the trace's page references,
				 * which a first sampled replay of a trace makes (cached after) */
};

int mr_bench_sample(const struct mr_bench_sample_opts *o, struct mr_bench_sample_case *out,
		    size_t cap, size_t *n, struct mr_error *err);
int mr_bench_sample_format(const struct mr_bench_sample_case *c, size_t n, char *buf,
			   size_t cap);

/* ---- `memreplay bench record` (bench_record.c) ---- */

/* The targets, for the CLI's footer. */
#define MR_BENCH_RECORD_MAX_OVERHEAD 0.02	/* realistic workload: wall +2 % at most */
#define MR_BENCH_RECORD_MAX_FIXED_MS 20.0	/* record -- /bin/true over /bin/true alone */
#define MR_BENCH_RECORD_MAX_BYTES_PER_EVENT 1.0	/* stored chunk bytes per fault-stream event */

enum mr_bench_record_mode {
	MR_BENCH_ALONE = 0,	/* the workload, nothing else */
	MR_BENCH_RAW_PERF,	/* the recorder's fault events, rings drained and counted only */
	MR_BENCH_RECORD,	/* mr_record_run() with default settings */
	MR_BENCH_PERF_TOOL,	/* the perf tool: perf record -e page-faults -c 1 -d -o FILE
				 * -- workload (what a user would run instead) */
};

struct mr_bench_record_opts {
	const char *dir;	/* parent of the temporary directory; NULL = /tmp */
	const char *workload;	/* the fault-bound program (traces/wl_faultbench), required
				 * unless no_faults */
	const char *src;	/* source tree: the build case compiles its base, storage
				 * and traces/gen C files; required unless no_build */
	uint64_t pages;		/* pages the fault-bound case touches; 0 = 262144 (1 GiB) */
	int runs;		/* runs per mode, the median is reported; 0 = 3 */
	int no_faults, no_build;
	int no_fixed;		/* leave out the fixed-cost case (record -- /bin/true) */
	int sort;		/* add the sort case: sort -S 40M of a 192 MB file (generated)
				 * in a 100 MiB memory cgroup made for it; about 10-30 s a run */
	const char *perf;	/* the perf tool for the MR_BENCH_PERF_TOOL baseline (fault-
				 * bound case); NULL = not run. Not found or failing: the
				 * row says why (runs = 0) and the rest goes on */
	int keep;		/* keep the temporary directory (stores, logs, build script) */
	const volatile int *stop; /* polled; non-zero stops, kills the children, MR_EIO */
	void (*note)(void *arg, const char *line); /* progress lines, may be NULL */
	void *note_arg;
};

/* One (workload, mode) row: the run with the median workload wall time, except where
 * noted. Times in seconds. */
#define MR_BENCH_RECORD_NPHASES 8 /* = mr_recorder.h's MR_RECORD_NPHASES */

struct mr_bench_record_case {
	char name[48];		/* "faults 1 GiB", "build 22 files" */
	enum mr_bench_record_mode mode;
	int runs;
	double wall_s;		/* workload wall: exec to exit (pidfd), median */
	double wall_min_s, wall_max_s; /* over the runs */
	double work_cpu_s;	/* workload CPU (user + sys of it and its children) */
	double rec_cpu_s;	/* recorder's or drainer's own CPU; 0 alone */
	double session_s;	/* recorder wall, setup to last write (record only) */
	double call_s;		/* the whole mr_record_run() call (record only), the median
				 * of its own over the runs */
	double overhead;	/* (wall - alone wall) / alone wall, medians; 0 alone */
	double cpu_overhead;	/* (work CPU + rec CPU - alone work CPU) / alone work CPU */
	uint64_t events;	/* events stored (record) or fault samples read (raw perf) */
	uint64_t faults;	/* FAULT events / fault samples */
	double events_per_s;	/* events / wall */
	double rec_us_per_event;/* recorder CPU per event, microseconds */
	uint64_t lost;		/* the largest loss of any run (PERF_FORMAT_LOST) */
	double chunk_bytes_per_event;	/* stored (LZ4) chunk bytes / events */
	double payload_bytes_per_event;	/* chunks.payload_bytes (columns before LZ4) / events */
	double file_bytes_per_event;	/* whole store file / events */
	/* perf tool: chunk and payload = perf.data's data section (its records), file =
	 * perf.data, per fault sample */
	char why[200];		/* runs = 0: why this mode was skipped; else "" */
	/* record: the median wall time of each step of mr_record_run() over the runs, each
	 * on its own (mr_recorder.h: enum mr_record_phase, mr_record_phase_name()) */
	double phase_s[MR_BENCH_RECORD_NPHASES];
};

/*
 * Measure the recorder's cost (see bench_record.c): for the fault-bound program and for
 * a build, each mode opts->runs times, interleaved. Fills out[0..*n) (cap rows at most;
 * 8 suffice). Every run happens in child processes in their own process group, killed
 * on failure or *opts->stop. Never prints.
 * Returns 0; MR_EPERM when not root (message names perf_event_paranoid and the fix);
 * MR_EINVAL for missing paths; MR_EIO when a child or workload fails or on stop.
 */
int mr_bench_record(const struct mr_bench_record_opts *opts, struct mr_bench_record_case *out,
		    size_t cap, size_t *n, struct mr_error *err);

/* The report of rows c[0..n) (see "Reports" above): the table, what the columns mean,
 * and the targets, the fault-bound one against both baselines (the ring drainer and the
 * perf tool) when they ran. */
int mr_bench_record_format(const struct mr_bench_record_case *c, size_t n, char *buf,
			   size_t cap);

#endif /* MR_BENCH_H */
