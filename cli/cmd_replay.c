// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_replay.c - `memreplay replay`: turn argv into mr_replay_opts, run the replay,
 * write the results database, print one line per policy (a table, CSV or JSON). A
 * progress line goes to stderr when stderr is a terminal; a "trace too coarse" warning
 * goes to stderr once.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mr_policy.h"
#include "mr_detail.h"
#include "mr_replay.h"
#include "mr_util.h"

#define MAX_POLICIES 64
#define MAX_VARY 32
/* --vary-p's default: on kernel-lab's 6.12 guest, 5 of 12 back-to-back agings inside one
 * reclaim walked again because the task was switched back in between (docs/validation.md,
 * "What picks the level"); a walk is followed by a switch-in with about that odds. */
#define DEFAULT_VARY_P 0.4
#define MAX_LIMITS 256
#define MAX_PLUGINS 16

struct progress {
	int on;
	double last;
	int phase;
};

static void on_progress(void *arg, const struct mr_replay_progress *p)
{
	struct progress *pr = arg;
	double now = mr_clock_s();

	if (!pr->on)
		return;
	if (p->phase == 0) {
		fprintf(stderr, "\rreplay: computing next-use times for opt (one pass over the trace)%s",
			p->events_done ? " done\n" : "...");
		pr->phase = 0;
		return;
	}
	if (now - pr->last < 0.25 && p->events_done < p->events_total)
		return;
	pr->last = now;
	pr->phase = 1;
	{
		double rate = p->elapsed_s > 0 ? (double)p->events_done / p->elapsed_s : 0;
		double pct = p->events_total ? 100.0 * (double)p->events_done / (double)p->events_total : 0;
		double eta = rate > 0 && p->events_total > p->events_done
				     ? (double)(p->events_total - p->events_done) / rate : 0;

		fprintf(stderr, "\rreplay: %.1fM/%.1fM events (%5.1f%%)  %.1fM ev/s  ETA %.0fs   ",
			(double)p->events_done / 1e6, (double)p->events_total / 1e6, pct, rate / 1e6, eta);
	}
}

static int list_policies(void)
{
	size_t n;
	const struct mr_policy_ops *const *list = mr_policy_list(&n);
	char *buf = malloc(1 << 16);

	if (!buf)
		return 1;
	for (size_t i = 0; i < n; i++) {
		mr_policy_describe(list[i], buf, 1 << 16);
		fputs(buf, stdout);
		if (i + 1 < n)
			fputc('\n', stdout);
	}
	free(buf);
	return 0;
}

/*
 * The default next-use cache directory: $MEMREPLAY_CACHE ("off" = none), else
 * $XDG_CACHE_HOME/memreplay, else $HOME/.cache/memreplay; NULL when none applies or the
 * path does not fit (then the values are computed without a cache).
 */
static const char *default_cache_dir(char *buf, size_t cap)
{
	const char *env = getenv("MEMREPLAY_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	int n;

	if (env && *env) {
		if (!strcmp(env, "off"))
			return NULL;
		n = snprintf(buf, cap, "%s", env);
	} else if (xdg && *xdg == '/') {
		n = snprintf(buf, cap, "%s/memreplay", xdg);
	} else if (home && *home == '/') {
		n = snprintf(buf, cap, "%s/.cache/memreplay", home);
	} else {
		return NULL;
	}
	return n > 0 && (size_t)n < cap ? buf : NULL;
}

/*
 * The runs' notes beyond coverage (toggle_idle: a seed toggle whose code never ran), one
 * stderr line each naming the run, at most 12 (the rest are in the notes table and
 * `compare`).
 */
static void print_notes(const struct mr_replay *r, const char *const *policies, size_t npol,
			size_t nsizes)
{
	size_t shown = 0, more = 0;
	char mem[32];

	for (size_t i = 0; i < mr_replay_nruns(r); i++) {
		const struct mr_result_note *n;
		size_t k = mr_replay_notes(r, i, &n);
		struct mr_replay_summary s;

		if (!k || mr_replay_summary(r, i, &s))
			continue;
		for (size_t j = 0; j < k; j++) {
			if (shown == 12) {
				more++;
				continue;
			}
			fprintf(stderr, "memreplay replay: note: run %zu (%s%s%s): %s\n", i + 1,
				policies[i % npol], nsizes > 1 ? " at " : "",
				nsizes > 1 ? mr_replay_format_memory(s.memory_pages, mem, sizeof(mem)) : "",
				n[j].message);
			shown++;
		}
	}
	if (more)
		fprintf(stderr, "memreplay replay: note: and %zu more (the notes table; `memreplay "
			"compare` shows each beside its run)\n", more);
}

/* One stderr line when what the trace could not see moves some run (docs/replay.md). */
static void warn_coarse(const struct mr_replay *r)
{
	const char *first = NULL;
	size_t more = 0;

	for (size_t i = 0; i < mr_replay_nruns(r); i++) {
		const char *n = mr_replay_coarse_note(r, i);

		if (n && !first)
			first = n;
		else if (n)
			more++;
	}
	if (first && more)
		fprintf(stderr, "memreplay replay: warning: %s (and %zu more runs; see the notes "
			"table)\n", first, more);
	else if (first)
		fprintf(stderr, "memreplay replay: warning: %s\n", first);
}

/* Where a pass is among several seeds' (replay --sample-seed LIST), for one table, CSV or
 * JSON document over all of them; NULL for a single pass. */
struct seed_pass {
	size_t k, n;     /* this pass, of n */
	uint64_t seed;   /* its seed */
	size_t printed;  /* JSON: runs printed by the passes so far */
	int opened;      /* JSON: the document is open (seeds_json_close() ends it) */
	double t0;       /* the first pass's start */
};

/* The end of replay's JSON document: the runs list closed, the results file (NULL:
 * none written) and, with timing, the whole time. */
static void json_tail(const char *out, int timing, double wall)
{
	printf("\n]");
	if (out) {
		printf(", \"results\": ");
		cli_json_string(out);
	}
	if (timing)
		printf(", \"wall_s\": %.6f", wall);
	printf("}\n");
}

/* The per-run lines. Runs are size-major (every policy at the first size, then at the
 * next): the table shows each policy as the user wrote it, with a memory column when
 * there are several sizes (the canonical spec with every parameter, and the memory in
 * pages, are in csv/json, the results and `compare`). Without timing, nothing printed
 * depends on the wall clock. */
static void print_runs(const struct mr_replay *r, const char *const *policies, size_t npol,
		       size_t nsizes, const char *format, int timing, double wall, const char *out,
		       struct seed_pass *sp)
{
	size_t n = mr_replay_nruns(r), w = 6;
	struct mr_replay_summary s;
	char mem[32], what[96];

	if (!strcmp(format, "csv")) {
		if (!sp || !sp->k)
			printf("policy,spec,events,pgfault,pgmajfault,misses,refaults,evictions,pswpin,"
			       "pswpout,oom,usage_max,memory_pages%s%s\n", timing ? ",mevps" : "",
			       sp ? ",sample_seed" : "");
		for (size_t i = 0; i < n; i++) {
			if (mr_replay_summary(r, i, &s))
				continue;
			cli_csv_field(policies[i % npol]);
			putchar(',');
			cli_csv_field(s.spec);
			printf(",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu", (unsigned long long)s.events,
			       (unsigned long long)s.pgfault, (unsigned long long)s.pgmajfault,
			       (unsigned long long)s.misses, (unsigned long long)s.refaults,
			       (unsigned long long)s.evictions, (unsigned long long)s.pswpin,
			       (unsigned long long)s.pswpout, (unsigned long long)s.oom,
			       (unsigned long long)s.usage_max, (unsigned long long)s.memory_pages);
			if (timing)
				printf(",%.3f", s.wall_s > 0 ? (double)s.events / s.wall_s / 1e6 : 0.0);
			if (sp)
				printf(",%llu", (unsigned long long)sp->seed);
			printf("\n");
		}
		return;
	}
	if (!strcmp(format, "json")) {
		if (!sp || !sp->opened)
			printf("{\"runs\": [");
		if (sp)
			sp->opened = 1;
		for (size_t i = 0; i < n; i++) {
			const char *note = mr_replay_coarse_note(r, i);

			if (mr_replay_summary(r, i, &s))
				continue;
			printf("%s\n  {\"policy\": ", i || (sp && sp->printed) ? "," : "");
			cli_json_string(policies[i % npol]);
			printf(", \"spec\": ");
			cli_json_string(s.spec);
			if (s.memory_pages)
				printf(", \"memory_pages\": %llu", (unsigned long long)s.memory_pages);
			else
				printf(", \"memory_pages\": null");
			printf(", \"events\": %llu, \"pgfault\": %llu, \"pgmajfault\": %llu, "
			       "\"misses\": %llu, \"refaults\": %llu, \"evictions\": %llu, "
			       "\"pswpin\": %llu, \"pswpout\": %llu, \"oom\": %llu, \"usage_max\": %llu",
			       (unsigned long long)s.events, (unsigned long long)s.pgfault,
			       (unsigned long long)s.pgmajfault, (unsigned long long)s.misses,
			       (unsigned long long)s.refaults, (unsigned long long)s.evictions,
			       (unsigned long long)s.pswpin, (unsigned long long)s.pswpout,
			       (unsigned long long)s.oom, (unsigned long long)s.usage_max);
			printf(", \"note\": ");
			if (note)
				cli_json_string(note);
			else
				printf("null");
			if (timing)
				printf(", \"wall_s\": %.6f", s.wall_s);
			if (sp)
				printf(", \"sample_seed\": %llu", (unsigned long long)sp->seed);
			printf("}");
		}
		if (sp) { /* the command ends the document once the seeds are merged */
			sp->printed += n;
			return;
		}
		json_tail(out, timing, wall);
		return;
	}
	for (size_t i = 0; i < npol; i++)
		if (strlen(policies[i]) > w)
			w = strlen(policies[i]);
	if (w > 48)
		w = 48;
	if (sp)
		printf("%ssampled, seed %llu (%zu of %zu):\n", sp->k ? "\n" : "",
		       (unsigned long long)sp->seed, sp->k + 1, sp->n);
	printf("%-*s", (int)w, "policy");
	if (nsizes > 1)
		printf(" %8s", "memory");
	printf(" %12s %11s %11s %11s %11s %11s %10s %10s %6s", "events", "pgfault", "pgmajfault",
	       "misses", "refaults", "evictions", "pswpin", "pswpout", "oom");
	printf(timing ? " %8s\n" : "\n", "M ev/s");
	for (size_t i = 0; i < n; i++) {
		if (mr_replay_summary(r, i, &s))
			continue;
		printf("%-*.*s", (int)w, (int)w, policies[i % npol]);
		if (nsizes > 1)
			printf(" %8s", mr_replay_format_memory(s.memory_pages, mem, sizeof(mem)));
		printf(" %12llu %11llu %11llu %11llu %11llu %11llu %10llu %10llu %6llu",
		       (unsigned long long)s.events,
		       (unsigned long long)s.pgfault, (unsigned long long)s.pgmajfault,
		       (unsigned long long)s.misses, (unsigned long long)s.refaults,
		       (unsigned long long)s.evictions, (unsigned long long)s.pswpin,
		       (unsigned long long)s.pswpout, (unsigned long long)s.oom);
		if (timing)
			printf(" %8.1f", s.wall_s > 0 ? (double)s.events / s.wall_s / 1e6 : 0.0);
		printf("\n");
	}
	if (nsizes > 1)
		snprintf(what, sizeof(what), "%zu polic%s at %zu memory sizes (%zu runs)", npol,
			 npol == 1 ? "y" : "ies", nsizes, n);
	else
		snprintf(what, sizeof(what), "%zu polic%s", n, n == 1 ? "y" : "ies");
	if (sp) /* the results are in out once every pass is merged (said then) */
		out = NULL;
	if (timing)
		printf("%s in one pass over the trace in %.2f s (M ev/s: each machine's own "
		       "time)%s%s\n", what, wall, out ? "; results in " : "", out ? out : "");
	else
		printf("%s in one pass over the trace%s%s\n", what, out ? "; results in " : "",
		       out ? out : "");
}

/* The JSON document of several seeds' passes, ended after their merge: "results" only
 * when it is written (out NULL else), so that a failed pass or merge still leaves a
 * document that parses. */
static void seeds_json_close(const struct seed_pass *sp, const char *format, int timing,
			     const char *out)
{
	if (!strcmp(format, "json") && sp->opened)
		json_tail(out, timing, mr_clock_s() - sp->t0);
}

/* Without swap, anon pages over the limit cannot go: what became of each run that had
 * to charge past it (mr_oom), said even with -q since its counters are not a fit. */
static void warn_no_swap(const struct mr_replay *r)
{
	size_t over = 0, first = 0;
	uint64_t pages = 0;

	for (size_t i = 0; i < mr_replay_nruns(r); i++) {
		struct mr_replay_summary s;

		if (mr_replay_summary(r, i, &s) || !s.oom)
			continue;
		if (!over++)
			first = i;
		pages += s.oom;
	}
	if (over) {
		struct mr_replay_summary s;

		mr_replay_summary(r, first, &s);
		fprintf(stderr, "memreplay replay: warning: no swap: reclaim could not free enough "
			"in %zu of %zu runs (anonymous pages cannot leave), which charged %llu pages "
			"past their limit in all (mr_oom; first: %s); their counters are not those of "
			"a machine that fits the limit\n", over, mr_replay_nruns(r),
			(unsigned long long)pages, s.spec);
	}
}

static void seeds_written(size_t k, const char *path);
static void seeds_block(sigset_t *was);

/* What one replay prints beside its runs, the same for every seed of --sample-seed A..B */
struct one_args {
	const char *const *policies;
	size_t npol, nsizes;
	const char *format;
	int quiet, timing;
	struct progress *pr;
	struct seed_pass *sp; /* NULL: a single pass */
};

/* Create, run, write the results to write_to (NULL: none) and print; out is the results
 * file the user named (printed). Returns the command's exit status. */
static int replay_one(struct mr_replay_opts *o, const char *write_to, const char *out,
		      const struct one_args *a)
{
	double t0 = mr_clock_s();
	struct mr_replay *r = NULL;
	struct mr_error err = { 0 };
	int rc = mr_replay_create(o, &r, &err);

	if (!rc)
		rc = mr_replay_run(r, &err);
	if (a->pr->on)
		fputc('\n', stderr);
	if (!rc && write_to) {
		sigset_t was;

		/* one of several seeds' passes: a signal waits until its file is in place
		 * (the handler knows the written ones, not a write's temporary file and lock;
		 * the pass's threads have ended) */
		if (a->sp)
			seeds_block(&was);
		rc = mr_replay_write_results(r, write_to, &err);
		if (a->sp) {
			if (!rc) /* written: now this command's to remove, before a signal */
				seeds_written(a->sp->k, write_to);
			pthread_sigmask(SIG_SETMASK, &was, NULL);
		}
	}
	if (rc) {
		mr_replay_destroy(r);
		return cli_fail("replay", &err);
	}
	if (mr_replay_series_note(r))
		fprintf(stderr, "memreplay replay: warning: %s\n", mr_replay_series_note(r));
	warn_coarse(r);
	if (!a->quiet && mr_replay_nruns(r) && mr_replay_coverage(r, 0))
		/* the trace's part is the same for every run; the unseen refaults are the
		 * first run's (each run's are in the notes table) */
		fprintf(stderr, "memreplay replay: coverage: %s\n", mr_replay_coverage(r, 0));
	if (!a->quiet)
		fprintf(stderr, "memreplay replay: assumed: shadow entries %s (--shadow %s)\n",
			o->shadow == MR_SHADOW_KERNEL ? "reclaimed past mm/workingset.c's shadow-node limit" :
			o->shadow == MR_SHADOW_NONE ? "never kept (no refault is recognised)" :
			"kept until their page comes back", mr_replay_shadow_name(o->shadow));
	if (!a->quiet) {
		const char *from;
		uint32_t fa = mr_replay_fault_around(r, &from);

		int asked = !strcmp(from, "--fault-around");

		if (fa > 1)
			fprintf(stderr, "memreplay replay: assumed: fault-around maps %u KiB around each "
				"read fault of a file mapping (%s%s)\n", fa * 4, from,
				asked ? "" : "; --fault-around sets it");
		else
			fprintf(stderr, "memreplay replay: assumed: no fault-around (%s)\n", from);
	}
	for (size_t i = 0; !a->quiet && mr_replay_assumed(r, i); i++)
		fprintf(stderr, "memreplay replay: assumed: %s\n", mr_replay_assumed(r, i));
	if (mr_replay_no_swap(r))
		warn_no_swap(r);
	if (mr_replay_sample_note(r))
		/* even with -q: these are not a full replay's counters */
		fprintf(stderr, "memreplay replay: %s\n", mr_replay_sample_note(r));
	if (!a->quiet && mr_replay_sample_cache_note(r))
		fprintf(stderr, "memreplay replay: %s\n", mr_replay_sample_cache_note(r));
	if (!a->quiet && mr_replay_nextuse_note(r))
		fprintf(stderr, "memreplay replay: %s\n", mr_replay_nextuse_note(r));
	if (!a->quiet)
		print_notes(r, a->policies, a->npol, a->nsizes);
	print_runs(r, a->policies, a->npol, a->nsizes, a->format, a->timing, mr_clock_s() - t0, out,
		   a->sp);
	mr_replay_destroy(r);
	return 0;
}

#define MAX_SEEDS 64

/* What an interrupted several-seed replay leaves behind otherwise: the partial files of
 * its passes so far (each a whole results file) and the lock of its claim on -o. Only
 * unlink() and raise() here, which are async-signal-safe. */
static char seed_files[MAX_SEEDS + 1][1100];
static volatile sig_atomic_t seed_nfiles;
/* SIGPIPE: stdout piped to a reader that quit (| head) */
#define SEED_SIGNALS SIGINT, SIGTERM, SIGHUP, SIGPIPE

/* Pass k's partial file is written (with the signals blocked): the handler's to remove. */
static void seeds_written(size_t k, const char *path)
{
	snprintf(seed_files[k + 1], sizeof(seed_files[0]), "%s", path);
	seed_nfiles = (sig_atomic_t)(k + 2);
}

static void seeds_block(sigset_t *was)
{
	static const int sigs[] = { SEED_SIGNALS };
	sigset_t block;

	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&block, sigs[i]);
	pthread_sigmask(SIG_BLOCK, &block, was);
}

static void seeds_on_signal(int sig)
{
	for (sig_atomic_t i = 0; i < seed_nfiles; i++)
		unlink(seed_files[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A signal ignored when the replay started (nohup's SIGHUP, a background job's SIGINT)
 * stays ignored. */
static void seeds_signals(int on)
{
	static const int sigs[] = { SEED_SIGNALS };
	static int caught[sizeof(sigs) / sizeof(sigs[0])];
	struct sigaction sa = { .sa_handler = on ? seeds_on_signal : SIG_DFL }, old;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (on) {
			caught[i] = !sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN;
			if (caught[i])
				sigaction(sigs[i], &sa, NULL);
		} else if (caught[i]) {
			sigaction(sigs[i], &sa, NULL);
		}
	}
}

/* --sample-seed S, a list 0,1,2 or a range 0..3 (or both: 0..3,9), decimal: NULL, or
 * what is wrong with it (in why[]). */
static const char *parse_seeds(const char *arg, uint64_t *seeds, size_t *n, char *why, size_t cap)
{
	const char *p = arg;
	char *end;

	*n = 0;
	for (;;) {
		uint64_t a, b;

		if (!isdigit((unsigned char)*p))
			return *p ? "not a number where a seed should be" : "a seed missing";
		errno = 0;
		a = b = strtoull(p, &end, 10);
		if (errno)
			return "a seed above 2^64 - 1";
		if (end[0] == '.' && end[1] == '.') {
			p = end + 2;
			if (!isdigit((unsigned char)*p))
				return "a range without its last seed";
			b = strtoull(p, &end, 10);
			if (errno)
				return "a seed above 2^64 - 1";
			if (b < a) {
				snprintf(why, cap, "the range %llu..%llu runs downwards",
					 (unsigned long long)a, (unsigned long long)b);
				return why;
			}
			if (b - a >= MAX_SEEDS)
				return "more seeds than 64";
		}
		for (uint64_t v = a;; v++) {
			for (size_t i = 0; i < *n; i++)
				if (seeds[i] == v) { /* the same runs twice */
					snprintf(why, cap, "seed %llu given twice", (unsigned long long)v);
					return why;
				}
			if (*n == MAX_SEEDS)
				return "more seeds than 64";
			seeds[(*n)++] = v;
			if (v == b)
				break;
		}
		if (!*end)
			return NULL;
		if (*end != ',')
			return "not a number where a seed should be";
		p = end + 1;
	}
}

int cmd_replay(int argc, char **argv)
{
	enum { O_MEMORY = 256, O_SWAP, O_SCRIPT, O_INTERVAL, O_SNAP, O_WBDELAY,
	       O_THREADS, O_TMPDIR, O_NUCACHE, O_CHECK, O_TIMING, O_PLUGIN, O_LIST, O_VARIANTS,
	       O_RECLAIM, O_CSV, O_JSON, O_NOTIMING, O_SHADOW, O_FAULT_AROUND, O_VARY, O_VARY_P,
	       O_DETAIL, O_SAMPLE, O_SAMPLE_SEED, O_SAMPLE_UNIT };
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'P' },
		{ "variants", required_argument, NULL, O_VARIANTS },
		{ "memory", required_argument, NULL, O_MEMORY },
		{ "reclaim", required_argument, NULL, O_RECLAIM },
		{ "shadow", required_argument, NULL, O_SHADOW },
		{ "fault-around", required_argument, NULL, O_FAULT_AROUND },
		{ "vary", required_argument, NULL, O_VARY },
		{ "vary-p", required_argument, NULL, O_VARY_P },
		{ "sample", required_argument, NULL, O_SAMPLE },
		{ "sample-seed", required_argument, NULL, O_SAMPLE_SEED },
		{ "sample-unit", required_argument, NULL, O_SAMPLE_UNIT },
		{ "format", required_argument, NULL, 'f' },
		{ "csv", no_argument, NULL, O_CSV },
		{ "json", no_argument, NULL, O_JSON },
		{ "no-timing", no_argument, NULL, O_NOTIMING },
		{ "swap", required_argument, NULL, O_SWAP },
		{ "output", required_argument, NULL, 'o' },
		{ "script", required_argument, NULL, O_SCRIPT },
		{ "interval", required_argument, NULL, O_INTERVAL },
		{ "snapshot-every", required_argument, NULL, O_SNAP },
		{ "writeback-delay", required_argument, NULL, O_WBDELAY },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "tmpdir", required_argument, NULL, O_TMPDIR },
		{ "nextuse-cache", required_argument, NULL, O_NUCACHE },
		{ "check", no_argument, NULL, O_CHECK },
		{ "record-timing", no_argument, NULL, O_TIMING },
		{ "plugin", required_argument, NULL, O_PLUGIN },
		{ "list-policies", no_argument, NULL, O_LIST },
		{ "detail", required_argument, NULL, O_DETAIL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policies[MAX_POLICIES], *plugins[MAX_PLUGINS];
	const char *vpol[MAX_POLICIES];
	char vlabel[MAX_POLICIES][300];
	uint32_t vseed[MAX_POLICIES];
	unsigned nvary = 0;
	int vary_p_set = 0, sample_seed_set = 0, sample_unit_set = 0;
	uint64_t seeds[MAX_SEEDS] = { 0 };
	size_t nseeds = 1;
	struct mr_replay_limit limits[MAX_LIMITS];
	uint64_t sizes[MR_REPLAY_MAX_SIZES];
	size_t npol = 0, nlim = 0, nplug = 0, nsizes = 0;
	struct mr_replay_opts o = { .threads = MR_REPLAY_THREADS_AUTO };
	struct progress pr = { 0 };
	struct mr_error err = { 0 };
	char memspec[512] = "";
	const char *out = NULL, *format = "table", *nu_cache = NULL;
	char nu_buf[1024];
	int list = 0, quiet = 0, timing = 1, c, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "P:f:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			if (npol == MAX_POLICIES)
				return cli_usage_error("replay", "at most %d policies in one pass", MAX_POLICIES);
			policies[npol++] = optarg;
			break;
		case O_VARIANTS: {
			const char *const *specs;
			size_t ns;

			if (mr_policy_preset(optarg, &specs, &ns, &err))
				return cli_bad_option("replay", &err);
			if (npol + ns > MAX_POLICIES)
				return cli_usage_error("replay", "at most %d policies in one pass", MAX_POLICIES);
			for (size_t k = 0; k < ns; k++)
				policies[npol++] = specs[k];
			break;
		}
		case O_MEMORY: {
			const char *eq = strchr(optarg, '=');
			size_t l = strlen(memspec);

			snprintf(memspec + l, sizeof(memspec) - l, "%s%s", l ? "," : "", optarg);
			if (eq && !strchr(optarg, ',')) {
				char *end;
				unsigned long id = strtoul(optarg, &end, 10);

				if (nlim == MAX_LIMITS)
					return cli_usage_error("replay", "too many --memory limits");
				limits[nlim].cgroup_path = NULL;
				if (optarg[0] == '/') {
					/* a path: the replay finds its id in the trace. The
					 * argv string ends at the '=' from here on (memspec
					 * has the whole text already). */
					optarg[eq - optarg] = 0;
					limits[nlim].cgroup_path = optarg;
					id = 0;
				} else if (end != eq || end == optarg || id > UINT32_MAX) {
					return cli_usage_error("replay", "--memory '%s': expected SIZE or CGROUP=SIZE, CGROUP a cgroup id or a path starting with /",
							       optarg);
				}
				for (size_t k = 0; k < nlim && !limits[nlim].cgroup_path; k++)
					if (!limits[k].cgroup_path && limits[k].cgroup == id)
						return cli_usage_error("replay", "--memory %lu=...: a limit of cgroup %lu is given twice; give it once",
								       id, id);
				limits[nlim].cgroup = (uint32_t)id;
				if (mr_parse_pages(eq + 1, MR_PAGE_SIZE, 0, &limits[nlim].pages, &err))
					return cli_bad_option("replay", &err);
				nlim++;
			} else if (mr_replay_parse_memory(optarg, sizes, MR_REPLAY_MAX_SIZES, &nsizes,
							  &err)) {
				/* a list of sizes: every policy replays at each (repeating
				 * --memory adds to the list) */
				return cli_bad_option("replay", &err);
			}
			break;
		}
		case O_RECLAIM:
			if (!strcmp(optarg, "memcg"))
				o.reclaim = MR_RECLAIM_MEMCG;
			else if (!strcmp(optarg, "node"))
				o.reclaim = MR_RECLAIM_NODE;
			else
				return cli_usage_error("replay", "--reclaim '%s': use memcg or node", optarg);
			break;
		case O_VARY: {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > MAX_VARY)
				return cli_usage_error("replay", "--vary %s: give the number of seeds, 1 to %d",
						       optarg, MAX_VARY);
			nvary = (unsigned)v;
			break;
		}
		case O_VARY_P: {
			char *end;

			o.vary_p = strtod(optarg, &end);
			if (*end || end == optarg || !(o.vary_p > 0 && o.vary_p <= 1))
				return cli_usage_error("replay", "--vary-p %s: give a probability in (0, 1]",
						       optarg);
			vary_p_set = 1;
			break;
		}
		case O_SAMPLE:
			if (mr_replay_parse_sample(optarg, &o.sample_den, &err))
				return cli_bad_option("replay", &err);
			break;
		case O_SAMPLE_SEED: {
			char why[96];
			const char *bad = parse_seeds(optarg, seeds, &nseeds, why, sizeof(why));

			if (bad)
				return cli_usage_error("replay", "--sample-seed '%s': %s; give a whole number "
						       "from 0 to 2^64 - 1 (decimal), a list 0,1,2 or a range "
						       "0..3 (at most %d seeds)", optarg, bad, MAX_SEEDS);
			o.sample_seed = seeds[0];
			sample_seed_set = 1;
			break;
		}
		case O_SAMPLE_UNIT:
			if (mr_replay_parse_sample_unit(optarg, &o.sample_unit, &err))
				return cli_bad_option("replay", &err);
			sample_unit_set = 1;
			break;
		case O_FAULT_AROUND: {
			uint64_t pg;
			struct mr_error perr = { 0 };

			/* fault_around_bytes: a power of two of pages, 4K (one page) = off */
			if (!strcmp(optarg, "off")) {
				o.fault_around_pages = 1;
				break;
			}
			if (mr_parse_pages(optarg, MR_PAGE_SIZE, 0, &pg, &perr) || pg > 512 ||
			    (pg & (pg - 1)) || !mr_size_whole_pages(optarg, MR_PAGE_SIZE))
				return cli_usage_error("replay", "--fault-around '%s': give a power of two "
						       "from 4K (off) to 2M, as fault_around_bytes "
						       "takes, or off", optarg);
			o.fault_around_pages = (uint32_t)pg;
			break;
		}
		case O_SHADOW:
			if (!strcmp(optarg, "keep"))
				o.shadow = MR_SHADOW_KEEP;
			else if (!strcmp(optarg, "kernel"))
				o.shadow = MR_SHADOW_KERNEL;
			else if (!strcmp(optarg, "none"))
				o.shadow = MR_SHADOW_NONE;
			else
				return cli_usage_error("replay", "--shadow '%s': use keep, kernel or none",
						       optarg);
			break;
		case 'f':
			if (strcmp(optarg, "table") && strcmp(optarg, "csv") && strcmp(optarg, "json"))
				return cli_usage_error("replay", "--format '%s': use table, csv or json",
						       optarg);
			format = optarg;
			break;
		case O_CSV:
			format = "csv";
			break;
		case O_JSON:
			format = "json";
			break;
		case O_NOTIMING:
			timing = 0;
			break;
		case O_SWAP:
			/* 0 is no swap (anon pages stay), as swapoff -a on the host */
			if (mr_parse_pages(optarg, MR_PAGE_SIZE, 1, &o.swap_pages, &err))
				return cli_usage_error("replay", "--swap: %s", err.msg);
			o.swap_given = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case O_SCRIPT:
			o.script = optarg;
			break;
		case O_INTERVAL:
			if (cli_parse_duration("replay", "--interval", optarg, 0, &o.interval_ns))
				return 2;
			break;
		case O_SNAP:
			if (cli_parse_duration("replay", "--snapshot-every", optarg, 0,
					       &o.snapshot_every_ns))
				return 2;
			break;
		case O_WBDELAY:
			o.writeback_given = 1;
			if (!strcmp(optarg, "sync"))
				o.writeback_delay_ns = MR_WRITEBACK_SYNC;
			else if (cli_parse_duration("replay", "--writeback-delay", optarg, 0,
						    &o.writeback_delay_ns))
				return 2;
			break;
		case O_THREADS: {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (!strcmp(optarg, "auto")) {
				o.threads = MR_REPLAY_THREADS_AUTO;
				break;
			}
			if (*end || end == optarg || n < 0 || n > 1024)
				return cli_usage_error("replay", "--threads '%s': expected 0..1024 or auto", optarg);
			o.threads = (int)n;
			break;
		}
		case O_TMPDIR:
			o.tmpdir = optarg;
			break;
		case O_NUCACHE:
			if (!*optarg)
				return cli_usage_error("replay", "--nextuse-cache '': give a directory, or off");
			nu_cache = optarg;
			break;
		case O_CHECK:
			o.check = 1;
			break;
		case O_TIMING:
			o.record_timing = 1;
			break;
		case O_PLUGIN:
			if (nplug == MAX_PLUGINS)
				return cli_usage_error("replay", "too many plugins");
			plugins[nplug++] = optarg;
			break;
		case O_LIST:
			list = 1;
			break;
		case O_DETAIL:
			if (mr_detail_parse(optarg, &o.detail, &err))
				return cli_usage_error("replay", "%s", err.msg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			return cli_help("replay");
		default:
			return cli_usage_error("replay", "bad option (see `memreplay replay --help`)");
		}
	}
	for (size_t i = 0; i < nplug; i++)
		if (mr_policy_load_plugin(plugins[i], &err))
			return cli_fail("replay", &err);
	if (list)
		return list_policies();
	if (optind + 1 != argc)
		return cli_usage_error("replay", optind >= argc ? "name a trace" : "one trace at a time");
	if (!npol)
		return cli_usage_error("replay", "name at least one --policy (see --list-policies)");
	/* a policy or parameter that does not exist is a wrong command line, found before
	 * the trace is read (the replay would refuse it after) */
	for (size_t i = 0; i < npol; i++)
		if (mr_policy_check_spec(policies[i], &err))
			return cli_bad_option("replay", &err);
	if (o.detail && !out)
		return cli_usage_error("replay", "--detail adds tables to the results database: give -o RESULTS.db");
	if (o.reclaim == MR_RECLAIM_NODE && !nsizes)
		return cli_usage_error("replay", "--reclaim node: give the node memory with --memory SIZE");
	if (npol * nsizes > MR_REPLAY_MAX_RUNS)
		return cli_usage_error("replay", "%zu policies at %zu memory sizes are %zu runs: at most %d in one pass",
				       npol, nsizes, npol * nsizes, MR_REPLAY_MAX_RUNS);

	if (sample_seed_set && !o.sample_den)
		return cli_usage_error("replay", "--sample-seed without --sample 1/N: give the rate");
	/* the passes' files are merged, and merge carries the results' tables, not the
	 * detail ones: they would be lost without a word */
	if (nseeds > 1 && o.detail)
		return cli_usage_error("replay", "--detail with %zu sampling seeds: the detail tables "
				       "do not survive the seeds' merge; replay one --sample-seed at a "
				       "time with --detail", nseeds);
	if (sample_unit_set && !o.sample_den)
		return cli_usage_error("replay", "--sample-unit without --sample 1/N: give the rate");
	if (vary_p_set && !nvary)
		return cli_usage_error("replay", "--vary-p without --vary N: give the number of seeds");
	if (nvary) {
		/* each policy as given (seed 0: the trace's own switch-ins), then with seeds
		 * 1..N; labelled "SPEC ~SEED" in the table */
		size_t n = 0;

		if (npol * (nvary + 1) > MAX_POLICIES || npol * (nvary + 1) * (nsizes ? nsizes : 1) >
							      MR_REPLAY_MAX_RUNS)
			return cli_usage_error("replay", "--vary %u makes %zu runs of %zu policies: at "
					       "most %d policies x seeds and %d runs", nvary,
					       npol * (nvary + 1) * (nsizes ? nsizes : 1), npol,
					       MAX_POLICIES, MR_REPLAY_MAX_RUNS);
		for (size_t i = 0; i < npol; i++)
			for (unsigned k = 0; k <= nvary; k++) {
				vpol[n] = policies[i];
				vseed[n] = k;
				if (k)
					snprintf(vlabel[n], sizeof(vlabel[n]), "%s ~%u", policies[i], k);
				else
					snprintf(vlabel[n], sizeof(vlabel[n]), "%s", policies[i]);
				n++;
			}
		for (size_t i = 0; i < n; i++)
			policies[i] = vlabel[i];
		npol = n;
		o.policy_vary_seed = vseed;
		if (!vary_p_set)
			o.vary_p = DEFAULT_VARY_P;
	}
	o.trace = argv[optind];
	o.policies = nvary ? vpol : policies;
	o.npolicies = npol;
	o.memory_sizes = nsizes ? sizes : NULL;
	o.nmemory = nsizes;
	o.limits = limits;
	o.nlimits = nlim;
	o.memory_spec = memspec;
	o.memory_from_trace = !nsizes && !nlim; /* the recorded cgroup's memory.max */
	o.output = out;
	if (!o.tmpdir)
		o.tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (!nu_cache)
		nu_cache = default_cache_dir(nu_buf, sizeof(nu_buf));
	o.nextuse_cache = nu_cache && strcmp(nu_cache, "off") ? nu_cache : NULL;
	pr.on = !quiet && isatty(STDERR_FILENO);
	o.progress = on_progress;
	o.progress_arg = &pr;

	{
		struct one_args a = { .policies = policies, .npol = npol, .nsizes = nsizes,
				      .format = format, .quiet = quiet, .timing = timing, .pr = &pr };
		char tmp[MAX_SEEDS][1100];
		const char *in[MAX_SEEDS];
		uint64_t nruns = 0;

		struct seed_pass sp = { .n = nseeds, .t0 = mr_clock_s() };
		struct mr_results_claim *claim = NULL;
		size_t written = 0; /* passes whose partial file this command wrote */

		if (nseeds == 1)
			return replay_one(&o, out, out, &a);
		/* several seeds: a pass each (each samples its own pages), their results
		 * merged into out as `memreplay merge` would (docs/replay.md, "Sampled replay").
		 * Each pass writes OUT.seed-S.partial beside out; out is claimed first and held
		 * until the merge is in place, so a second replay to it stops before it runs
		 * or touches a partial file, and nothing but this command's own passes write
		 * those files meanwhile. */
		for (size_t k = 0; k < nseeds; k++) {
			const char *base;

			if (!out)
				continue;
			if ((size_t)snprintf(tmp[k], sizeof(tmp[k]), "%s.seed-%llu.partial", out,
					     (unsigned long long)seeds[k]) >= sizeof(tmp[k]) ||
			    strlen(tmp[k]) > MR_RESULTS_PATH_MAX)
				return cli_usage_error("replay", "-o '%.60s...': too long a path for its "
						       "seeds' partial files (PATH.seed-S.partial, at most "
						       "%d bytes)", out, MR_RESULTS_PATH_MAX);
			base = strrchr(tmp[k], '/') ? strrchr(tmp[k], '/') + 1 : tmp[k];
			if (strlen(base) > 255)
				return cli_usage_error("replay", "-o '%.60s...': a name too long for its "
						       "seeds' partial files (%s, over 255 bytes): give a "
						       "shorter name", out, "NAME.seed-S.partial");
			in[k] = tmp[k];
		}
		if (out) {
			rc = mr_results_claim(out, &claim, &err);
			if (rc)
				return cli_fail("replay", &err);
			/* out held: a partial file there now is one a killed replay left, a
			 * results file, replaced; anything else is not this command's */
			for (size_t k = 0; k < nseeds; k++) {
				if (!mr_results_check_target(tmp[k], &err))
					continue;
				fprintf(stderr, "memreplay replay: %s exists and is not a partial "
					"results file of an earlier --sample-seed replay: move it away "
					"or give another -o\n", tmp[k]);
				mr_results_release(claim);
				return 1;
			}
			o.output = NULL; /* held here, not by each pass */
			/* interrupted: the lock and the passes' files so far go too */
			snprintf(seed_files[0], sizeof(seed_files[0]), "%s.lock", out);
			seed_nfiles = 1;
			seeds_signals(1);
		}
		a.sp = &sp;
		for (size_t k = 0; k < nseeds && !rc; k++) {
			o.sample_seed = seeds[k];
			sp.k = k;
			sp.seed = seeds[k];
			rc = replay_one(&o, out ? tmp[k] : NULL, out, &a);
			if (!rc)
				written = k + 1;
		}
		if (!rc && out) {
			sigset_t was;

			/* the merge's temporary file and lock are not in seed_files: a signal
			 * waits until it is in place */
			seeds_block(&was);
			rc = mr_results_merge_claimed(claim, in, nseeds, 0, &nruns, &err);
			pthread_sigmask(SIG_SETMASK, &was, NULL);
			if (rc)
				rc = cli_fail("replay", &err);
		}
		seeds_json_close(&sp, format, timing, !rc ? out : NULL);
		/* only the partial files this command's passes wrote: the claim kept any
		 * other replay of out from making its own */
		for (size_t k = 0; out && k < written; k++)
			unlink(tmp[k]);
		if (out)
			seeds_signals(0);
		mr_results_release(claim);
		if (!rc && out)
			fprintf(stderr, "memreplay replay: %zu seeds, %llu runs, in %s: `memreplay curve "
				"%s` gives each policy's mean and range over the seeds\n", nseeds,
				(unsigned long long)nruns, out, out);
		return rc;
	}
}
