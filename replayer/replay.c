// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - one pass over a trace driving one machine per policy: option checks, policy
 * parsing, the next-use pass when a policy wants it, and the decode/replay pipeline.
 *
 * Pipeline: the caller's thread decodes batches of events (sized below) into a ring of
 * RP_NBATCH buffers (with the next-use values of their references, read in lockstep);
 * each worker thread owns a fixed subset of the machines (machine i -> worker i mod N)
 * and advances them over every batch in order. A buffer is reused once every worker is
 * done with it. A machine sees exactly the same events in the same order whatever the
 * thread count, so results do not depend on it. threads = 0 runs everything on the
 * caller's thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mr_replay.h"
#include "mr_util.h"
#include "rp_machine.h"
#include "rp_detail.h"

/*
 * Events per batch: RP_BATCH where each thread runs one machine, RP_BATCH_MAX (8 MiB of
 * events) where a thread runs several, never more than the trace has. A thread runs each
 * of its machines over the whole batch in turn, and each switch to the next machine finds
 * the core's caches holding the last one's state and the decoder's. One machine runs
 * best on short batches (they stay in L2: lru at 10 % of the 50M Zipf trace on one
 * thread took 1.04 times as long with 262144 events a batch); several run best on long
 * ones (the three policies in full on one thread 0.92-0.93 of the time with 262144 as
 * with 16384, 48 sampled machines 0.83-0.87; docs/replay.md, "Sampled replay").
 */
#define RP_BATCH 16384
#define RP_BATCH_MAX 262144
#define RP_NBATCH 4
#define RP_MAX_SAMPLES 1000000

struct mr_replay {
	struct rp_image *t;
	struct rp_script script;
	int has_script;
	char script_name[1024];
	char script_sha[80];
	char trace_path[1024];
	char tmpdir[1024];
	char nu_cache[1024];      /* "" = no cache directory (next-use times, page counts) */
	char nu_note[2000];       /* mr_replay_nextuse_note() */
	char sample_cache_note[2000]; /* mr_replay_sample_cache_note() */
	char series_note[400];    /* mr_replay_series_note() */
	char memory_spec[512];
	uint64_t memory_pages, swap_pages, wb_delay, interval, snap_every;
	uint64_t *run_memory;     /* [nruns]: each run's whole-trace size (0 = none) */
	uint32_t *run_vary;       /* [nruns]: each run's --vary seed (0 = none) */
	double vary_p;
	size_t nsizes;            /* memory sizes: runs = nsizes x policies, size-major */
	int threads, record_timing, reclaim, shadow;
	uint32_t fault_around;    /* pages, 1 = off */
	const char *fault_around_from;
	int no_swap;              /* the runs have no swap */
	char assumed[3][256];     /* what host_defaults() took, for mr_replay_assumed() */
	size_t nassumed;
	uint64_t host_memory;     /* the recorded cgroup's memory.max in pages, when used */
	int host_cgroup_limits;   /* no --memory: each memcg at its cgroups row's memory_max */
	/* what the decoder saw, for the coverage notes (docs/replay.md, "Coverage") */
	uint64_t acc_src[8];      /* ACCESS events by source (MR_ACC_SRC) */
	uint64_t fd_access;       /* FD_ACCESS events (read()/write() of the page cache) */
	uint64_t scans;           /* SCAN_END events */
	uint64_t scan_first, scan_last; /* times of the first and last SCAN_END */
	char (*notes)[512];       /* [nruns]: a warning, "" = none */
	const char **note_kind;   /* [nruns]: its notes.kind */
	char (*coverage)[512];    /* [nruns]: what the trace could see (notes kind coverage) */
	void (*progress)(void *arg, const struct mr_replay_progress *p);
	void *progress_arg;
	uint64_t *memcg_limit;
	uint32_t *memcg_ids;
	const char **memcg_paths;
	size_t nruns;
	struct rp_machine **mach;
	struct mr_run_result *res;
	int ran;
	int threads_used;
	struct mr_results_claim *claim; /* opts.output, held until destroy */
	unsigned detail;          /* MR_DETAIL_* tables to write (detail.c) */
	/* a sampled replay (mr_replay.h, "Sampled replay"): the machines' cgroup limits
	 * (memcg_limit) are the asked ones (memcg_limit_asked) scaled */
	int sampled;
	struct rp_sample sample;
	uint64_t *memcg_limit_asked;
	char sample_note[1600];
};

struct rp_machine *rp_replay_machine(const struct mr_replay *r, size_t run)
{
	return run < r->nruns ? r->mach[run] : NULL;
}

const struct rp_image *rp_replay_image(const struct mr_replay *r)
{
	return r->t;
}

/* results' write_extra: the detail tables (detail.c) */
static int write_detail(void *arg, struct sqlite3 *db, struct mr_error *err)
{
	const struct mr_replay *r = arg;

	return rp_detail_write(db, r->mach, r->nruns, err);
}

size_t mr_replay_nruns(const struct mr_replay *r)
{
	return r->nruns;
}

int mr_replay_policy_exists(const char *name)
{
	return mr_policy_find(name) != NULL;
}

void mr_replay_destroy(struct mr_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->mach && i < r->nruns; i++)
		rp_machine_destroy(r->mach[i]);
	free(r->mach);
	free(r->res);
	free(r->notes);
	free(r->note_kind);
	free(r->coverage);
	free(r->memcg_limit);
	free(r->memcg_limit_asked);
	rp_sample_free(&r->sample);
	free(r->memcg_ids);
	free(r->memcg_paths);
	free(r->run_memory);
	free(r->run_vary);
	rp_script_free(&r->script);
	rp_image_free(r->t);
	mr_results_release(r->claim);
	free(r);
}

static void hash_hex(const void *data, size_t n, char *out)
{
	struct rp_sha256 c;
	uint8_t d[32];

	rp_sha256_init(&c);
	rp_sha256_update(&c, data, n);
	rp_sha256_final(&c, d);
	memcpy(out, "sha256:", 7);
	for (int i = 0; i < 32; i++)
		snprintf(out + 7 + 2 * i, 3, "%02x", d[i]);
}

static int load_script(struct mr_replay *r, const struct mr_replay_opts *o, struct mr_error *err)
{
	char *text = NULL;
	size_t n = 0;
	int rc;

	if (o->script) {
		struct stat sb;
		size_t cap = 0;
		FILE *f;

		/* a FIFO would block the open (and the replay) until a writer came */
		if (!stat(o->script, &sb) && !S_ISREG(sb.st_mode))
			return mr_error_set(err, MR_EINVAL, "cannot read script %s: not a regular file",
					    o->script);
		f = fopen(o->script, "r");
		if (!f)
			return mr_error_set(err, MR_ENOENT, "cannot open script %s", o->script);
		for (;;) {
			size_t got;

			if (cap - n < 4096) {
				char *nt = realloc(text, cap ? 2 * cap : 8192);

				if (!nt || cap > (64u << 20)) {
					free(nt ? nt : text);
					fclose(f);
					return mr_error_set(err, MR_EINVAL, "script %s: too large or out of memory",
							    o->script);
				}
				text = nt;
				cap = cap ? 2 * cap : 8192;
			}
			got = fread(text + n, 1, cap - n - 1, f);
			n += got;
			if (!got)
				break;
		}
		if (ferror(f)) {
			/* a directory opens but does not read: not an empty script */
			rc = mr_error_set(err, MR_EIO, "cannot read script %s: %s", o->script,
					  strerror(errno));
			fclose(f);
			free(text);
			return rc;
		}
		fclose(f);
		text[n] = 0;
		snprintf(r->script_name, sizeof(r->script_name), "%s", o->script);
	} else {
		text = strdup(o->script_text);
		if (!text)
			return mr_error_set(err, MR_ENOMEM, "out of memory");
		n = strlen(text);
		snprintf(r->script_name, sizeof(r->script_name), "(inline)");
	}
	hash_hex(text, n, r->script_sha);
	rc = rp_script_parse(text, n, r->script_name, &r->script, err);
	free(text);
	if (!rc)
		r->has_script = 1;
	return rc;
}

/*
 * Snapshots (--snapshot-every) go on at their interval until the last timed script
 * command when it comes after the trace (rp_machine_finish()), each one kept, so a
 * command far beyond the end would take millions of them. Refuse that as
 * --snapshot-every is refused over the trace itself. (Samples stop when their series
 * is full instead: rp_machine_series_cut(), mr_replay_series_note().)
 */
static int check_script_span(const struct mr_replay *r, struct mr_error *err)
{
	const struct rp_script_cmd *last;
	uint64_t span;

	if (!r->has_script || !r->script.n_timed || !r->snap_every)
		return 0;
	last = &r->script.cmds[r->script.n_timed - 1];
	if (last->time <= r->t->t_last)
		return 0;
	span = last->time - (r->t->t_first < last->time ? r->t->t_first : last->time);
	if (span / r->snap_every > RP_MAX_SAMPLES)
		return mr_error_set(err, MR_ERANGE,
				    "%s:%u: a command at %llu ns, %llu ns after the trace ends: snapshots every %llu ns (--snapshot-every) go on until then, %llu of them; at most %u are kept: give a larger --snapshot-every or an earlier time",
				    r->script_name, last->line, (unsigned long long)last->time,
				    (unsigned long long)(last->time - r->t->t_last),
				    (unsigned long long)r->snap_every,
				    (unsigned long long)(span / r->snap_every), RP_MAX_SAMPLES);
	return 0;
}

/* Parse one spec: the registry's message for unknown names and parameters. */
static int parse_policy(const char *spec, const struct mr_policy_ops **ops, void **params,
			char *canon, size_t canon_cap, struct mr_error *err)
{
	char name[128];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct mr_policy_ops *found;
	int rc;

	*params = NULL;
	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), spec);
	found = mr_policy_find(name);
	if (!found)
		return mr_policy_parse(spec, ops, NULL, 0, canon, canon_cap, err);
	*params = calloc(1, found->params_size ? found->params_size : 1);
	if (!*params)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	rc = mr_policy_parse(spec, ops, *params, found->params_size ? found->params_size : 1, canon,
			     canon_cap, err);
	if (rc) {
		free(*params);
		*params = NULL;
	}
	return rc;
}

int mr_replay_check_policy(const char *spec, struct mr_error *err)
{
	const struct mr_policy_ops *ops;
	void *params;
	char canon[1024];
	int rc = parse_policy(spec, &ops, &params, canon, sizeof(canon), err);

	free(params);
	return rc;
}

/*
 * The whole-trace sizes of the replay: memory_sizes[nmemory], or the one memory_pages
 * (0 = only cgroup limits). Each > 0, none twice, and (sizes x policies) runs at most
 * MR_REPLAY_MAX_RUNS.
 */
static int check_sizes(const struct mr_replay_opts *o, struct mr_error *err)
{
	if (!o->nmemory)
		return 0;
	if (!o->memory_sizes)
		return mr_error_set(err, MR_EINVAL, "%zu memory sizes but no list of them", o->nmemory);
	if (o->memory_pages && (o->nmemory != 1 || o->memory_sizes[0] != o->memory_pages))
		return mr_error_set(err, MR_EINVAL,
				    "give the memory as memory_pages or as memory_sizes, not both");
	if (o->nmemory > MR_REPLAY_MAX_SIZES)
		return mr_error_set(err, MR_ERANGE, "%zu memory sizes: at most %d in one replay",
				    o->nmemory, MR_REPLAY_MAX_SIZES);
	if (o->npolicies * o->nmemory > MR_REPLAY_MAX_RUNS)
		return mr_error_set(err, MR_ERANGE,
				    "%zu policies at %zu memory sizes are %zu runs: at most %d in one replay; give fewer sizes or policies",
				    o->npolicies, o->nmemory, o->npolicies * o->nmemory,
				    MR_REPLAY_MAX_RUNS);
	for (size_t i = 0; i < o->nmemory; i++) {
		char a[32];

		if (!o->memory_sizes[i])
			return mr_error_set(err, MR_EINVAL, "memory size %zu of the list is 0 pages", i + 1);
		for (size_t j = 0; j < i; j++)
			if (o->memory_sizes[j] == o->memory_sizes[i])
				return mr_error_set(err, MR_EINVAL,
						    "memory size %s (%llu pages) is given twice; give each size once",
						    mr_replay_format_memory(o->memory_sizes[i], a, sizeof(a)),
						    (unsigned long long)o->memory_sizes[i]);
	}
	return 0;
}

/*
 * The fault-around window in pages: as asked, else the recorded host's
 * /sys/kernel/debug/fault_around_bytes (meta fault_around_bytes), else the kernel's
 * default of 64 KiB. mm/memory.c's fault_around_bytes_set(): rounded down to a power of
 * two, at least one page (no fault-around), at most a page table.
 */
static uint32_t fault_around_pages(uint32_t asked, uint64_t host_bytes, const char **from)
{
	uint64_t pages;

	if (asked) {
		*from = "--fault-around";
		return asked;
	}
	if (!host_bytes || host_bytes > 512 * 4096ull) {
		*from = "the kernel's default";
		return 16;
	}
	*from = "the recorded host's fault_around_bytes";
	pages = host_bytes >> 12;
	while (pages & (pages - 1))
		pages &= pages - 1;
	return pages ? (uint32_t)pages : 1;
}

/*
 * Defaults from the recorded host (docs/replay.md, "Defaults from the recorded host"),
 * for what no option set: swap is the host's total (/proc/swaps at record time; none
 * there = no swap), else unlimited; writeback ends inside pageout when every swap device
 * was zram (swap_writepage_bdev_sync(): SWP_SYNCHRONOUS_IO); the memory size is the
 * recorded cgroup's memory.max. Each choice is said in r->assumed[].
 */
static int host_defaults(struct mr_replay *r, const struct mr_replay_opts *o, struct mr_error *err)
{
	const struct rp_image *t = r->t;
	char mem[32];

	if (o->swap_given || o->swap_pages) {
		r->no_swap = !o->swap_pages;
		r->swap_pages = o->swap_pages;
		snprintf(r->assumed[r->nassumed++], sizeof(r->assumed[0]), "%s%s (--swap)",
			 r->no_swap ? "no swap: anonymous pages cannot be reclaimed" : "swap of ",
			 r->no_swap ? "" : mr_replay_format_memory(r->swap_pages, mem, sizeof(mem)));
	} else if (t->host_swap_known) {
		r->swap_pages = t->host_swap_bytes / 4096;
		r->no_swap = !r->swap_pages;
		if (r->no_swap)
			snprintf(r->assumed[r->nassumed++], sizeof(r->assumed[0]),
				 "no swap, as the recorded host had none: anonymous pages cannot be "
				 "reclaimed (--swap SIZE gives some)");
		else
			snprintf(r->assumed[r->nassumed++], sizeof(r->assumed[0]),
				 "swap of %s, %s, as the recorded host had (--swap sets it)",
				 mr_replay_format_memory(r->swap_pages, mem, sizeof(mem)),
				 t->host_swap_kind[0] ? t->host_swap_kind : "of unknown kind");
	} else {
		snprintf(r->assumed[r->nassumed++], sizeof(r->assumed[0]),
			 "unlimited swap: the trace does not record the host's (--swap sets it)");
	}
	if (!o->writeback_given && !o->writeback_delay_ns && !r->no_swap && !o->swap_given &&
	    !o->swap_pages && !strcmp(t->host_swap_kind, "zram")) {
		r->wb_delay = MR_WRITEBACK_SYNC;
		snprintf(r->assumed[r->nassumed++], sizeof(r->assumed[0]),
			 "swap writeback ends inside pageout, as on the recorded host's zram "
			 "(--writeback-delay sets it)");
	}
	if (o->memory_from_trace) {
		uint32_t limited = 0;

		for (uint32_t i = 0; i < t->nr_memcgs; i++)
			limited += t->memcgs[i].memory_max >= 4096;
		if ((!t->host_memcg_max || t->host_memcg_max == UINT64_MAX ||
		     t->host_memcg_max < 4096) && limited) {
			/* no --cgroup recording's limit, but pages charged to cgroups that had
			 * one when the recorder first saw them (a command that moved itself into
			 * a limited cgroup, a recording of the whole host): each keeps its own,
			 * the rest of the machine is unlimited */
			char *a = r->assumed[r->nassumed++];
			size_t len;

			r->host_cgroup_limits = 1;
			len = (size_t)snprintf(a, sizeof(r->assumed[0]), "memory.max as recorded for");
			for (uint32_t i = 0; i < t->nr_memcgs && len < sizeof(r->assumed[0]); i++)
				if (t->memcgs[i].memory_max >= 4096)
					len += (size_t)snprintf(a + len, sizeof(r->assumed[0]) - len,
								" %s %s", t->memcgs[i].path,
								mr_replay_format_memory(t->memcgs[i].memory_max / 4096,
											mem, sizeof(mem)));
			if (len < sizeof(r->assumed[0]))
				snprintf(a + len, sizeof(r->assumed[0]) - len,
					 "; the rest unlimited (--memory SIZE or CGROUP=SIZE sets it)");
			return 0;
		}
		if ((!t->host_memcg_max || t->host_memcg_max == UINT64_MAX ||
		     t->host_memcg_max < 4096) && t->nr_unpaged_limited)
			return mr_error_set(err, MR_EINVAL,
					    "no memory size given, and no page of %s is charged to a cgroup "
					    "with a memory.max: its cgroups table has %s (id %u, memory.max "
					    "%s), but no page is charged to it (a trace recorded before "
					    "memreplay charged pages to their cgroups); give --memory %s to "
					    "replay the whole trace at that limit, or another SIZE",
					    t->path, t->unpaged.path, t->unpaged.cgroup,
					    mr_replay_format_memory(t->unpaged.memory_max / 4096, mem, sizeof(mem)),
					    mem);
		if (!t->host_memcg_max || t->host_memcg_max == UINT64_MAX || t->host_memcg_max < 4096)
			return mr_error_set(err, MR_EINVAL,
					    "no memory size given, and %s records no cgroup memory.max to "
					    "default to (%s): give --memory SIZE (e.g. 512M) or CGROUP_ID=SIZE",
					    t->path, t->host_memcg_max == UINT64_MAX ? "its cgroup had "
					    "memory.max = max" : "recorded without --cgroup, or before "
					    "memreplay kept it");
		r->host_memory = t->host_memcg_max / 4096;
		snprintf(r->assumed[r->nassumed++], sizeof(r->assumed[0]),
			 "memory %s, the recorded cgroup's memory.max (--memory sets it)",
			 mr_replay_format_memory(r->host_memory, mem, sizeof(mem)));
	}
	return 0;
}

const char *mr_replay_assumed(const struct mr_replay *r, size_t i)
{
	return i < r->nassumed ? r->assumed[i] : NULL;
}

int mr_replay_no_swap(const struct mr_replay *r)
{
	return r->no_swap;
}

/*
 * The index of the trace's memcg with the given path, as its cgroups table names it
 * (relative to the hierarchy's root), or -1. A path under the cgroup mount, as
 * `record --cgroup` takes it, names the same cgroup: /sys/fs/cgroup is taken off, and
 * for the v1 memory hierarchy (/sys/fs/cgroup/memory/...) its directory too. Only that
 * one: under v2, /sys/fs/cgroup/a/b is /a/b, never /b.
 */
static int memcg_by_path(const struct rp_image *t, const char *path)
{
	static const char mount[] = "/sys/fs/cgroup";
	const char *tries[3] = { path, NULL, NULL };
	size_t len;

	if (!strncmp(path, mount, sizeof(mount) - 1) &&
	    (path[sizeof(mount) - 1] == '/' || !path[sizeof(mount) - 1])) {
		tries[1] = path[sizeof(mount) - 1] ? path + sizeof(mount) - 1 : "/";
		if (!strncmp(tries[1], "/memory/", 8))
			tries[2] = tries[1] + 7;
	}
	for (int k = 0; k < 3 && tries[k]; k++) {
		len = strlen(tries[k]);
		while (len > 1 && tries[k][len - 1] == '/')
			len--; /* a trailing slash names the same directory */
		for (uint32_t i = 0; i < t->nr_memcgs; i++)
			if (strlen(t->memcgs[i].path) == len && !strncmp(t->memcgs[i].path, tries[k], len))
				return (int)i;
	}
	return -1;
}

/*
 * A size of the sampled machines: pages times the sampled share of the most pages live
 * at once (rp_sample.scale_num / scale_den, sample.c; docs/replay.md, "Sampled replay",
 * "What scales", for why not 1/den nor the share of pages), rounded, at least one page.
 */
static uint64_t sample_scale(uint64_t pages, const struct rp_sample *s)
{
	unsigned __int128 v = ((unsigned __int128)pages * s->scale_num + s->scale_den / 2) / s->scale_den;

	return v ? (v > UINT64_MAX ? UINT64_MAX : (uint64_t)v) : 1;
}

/*
 * A machine of a few hundred pages reclaims the kernel's 32-page batches, a larger share
 * of it than the full machine does (docs/replay.md, "What cannot be exact"); the batch
 * slack (machine.c) makes up for the pages they leave free on average, not for how far
 * each swings: the sampled note names the sizes whose machines are that small.
 */
static void note_small_machines(struct mr_replay *r, const uint64_t *sizes, size_t nsizes)
{
	size_t len = strlen(r->sample_note), nsmall = 0;
	uint64_t top = 0;
	char b[32];

	for (size_t i = 0; i < nsizes; i++)
		if (sizes[i] && sample_scale(sizes[i], &r->sample) < RP_SAMPLE_SMALL_MACHINE) {
			nsmall++;
			if (sizes[i] > top)
				top = sizes[i];
		}
	if (nsmall && len < sizeof(r->sample_note))
		snprintf(r->sample_note + len, sizeof(r->sample_note) - len,
			 "; warning: at %s and below (%zu of the %zu sizes) a sampled machine holds "
			 "fewer than %d pages, and the kernel's %d-page reclaim batches are a larger "
			 "share of it than of the full machine (it may hold their mean half more, "
			 "not their swings), so its miss ratio may be a point or more off there; "
			 "sample less (a smaller N) for those sizes",
			 mr_replay_format_memory(top, b, sizeof(b)), nsmall, nsizes,
			 RP_SAMPLE_SMALL_MACHINE, MR_SWAP_CLUSTER_MAX);
}

/* One line about a per-trace cache file (rp_cache.h): what (e.g. "next-use times") was
 * reused from it, or computed in secs and kept there, or not kept and why. */
static void cache_note(const struct mr_replay *r, char *buf, size_t cap, const char *what,
		       const struct rp_cache_info *in, double secs)
{
	switch (in->cache) {
	case RP_CACHE_HIT:
		snprintf(buf, cap, "%s reused from %s", what, in->path);
		break;
	case RP_CACHE_BUILT:
	case RP_CACHE_REBUILT:
		snprintf(buf, cap,
			 "%s computed in %.1f s and kept in %s (%.1f MiB) for later replays of this trace%s%s",
			 what, secs, in->path, (double)in->bytes / 1048576.0,
			 in->cache != RP_CACHE_REBUILT ? "" : *in->why ? "; " : "; the file there before was another build's or damaged",
			 in->cache == RP_CACHE_REBUILT ? in->why : "");
		break;
	default:
		if (*r->nu_cache)
			snprintf(buf, cap, "%s computed in %.1f s, not kept (%s)", what, secs, in->why);
		else
			snprintf(buf, cap, "%s computed in %.1f s", what, secs);
	}
}

/*
 * Sampling (mr_replay.h, "Sampled replay"): choose the pages, scale the cgroup limits
 * and check that the whole-trace sizes stay apart once scaled (two sizes that become one
 * would be the same run twice).
 */
static int sample_setup(struct mr_replay *r, const struct mr_replay_opts *o,
			const uint64_t *sizes, size_t nsizes, struct mr_error *err)
{
	uint32_t den = o->sample_den;
	int rc;

	rc = rp_sample_init(&r->sample, r->t, den, o->sample_seed, r->fault_around, err);
	if (rc)
		return rc;
	r->sampled = 1;
	cache_note(r, r->sample_cache_note, sizeof(r->sample_cache_note), "sampling's page counts",
		   &r->t->sample_cache, r->t->sample_cache_s);
	if (!r->sample.kept)
		return mr_error_set(err, MR_EINVAL,
				    "sampling 1/%u with seed %llu keeps none of the %llu pages of %s: sample more (a smaller N) or give another --sample-seed",
				    den, (unsigned long long)o->sample_seed,
				    (unsigned long long)r->sample.valid, r->t->path);
	r->memcg_limit_asked = calloc(r->t->nr_memcgs ? r->t->nr_memcgs : 1, sizeof(uint64_t));
	if (!r->memcg_limit_asked)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < r->t->nr_memcgs; i++) {
		r->memcg_limit_asked[i] = r->memcg_limit[i];
		if (r->memcg_limit[i])
			r->memcg_limit[i] = sample_scale(r->memcg_limit[i], &r->sample);
	}
	for (size_t i = 0; i < nsizes; i++)
		for (size_t j = 0; j < i; j++)
			if (sizes[i] && sample_scale(sizes[i], &r->sample) == sample_scale(sizes[j], &r->sample)) {
				char a[32], b[32];

				return mr_error_set(err, MR_EINVAL,
						    "sampling 1/%u: memory sizes %s and %s both scale to %llu pages; give sizes further apart or sample less (a larger rate)",
						    den, mr_replay_format_memory(sizes[j], a, sizeof(a)),
						    mr_replay_format_memory(sizes[i], b, sizeof(b)),
						    (unsigned long long)sample_scale(sizes[i], &r->sample));
			}
	{
		const struct rp_sample_stat *st = &r->t->sample_stat;
		const char *what = st->unit > 1 ? "units" : "pages";
		char unit[48] = "", units[64] = "";
		int len;

		/* a unit of several pages: its size and how many units, then the pages */
		if (st->unit > 1) {
			snprintf(unit, sizeof(unit), " of %u pages (%u KiB)", st->unit, st->unit * 4);
			snprintf(units, sizeof(units), "%llu of %llu units, ",
				 (unsigned long long)st->regions_kept, (unsigned long long)st->regions);
		}
		len = snprintf(r->sample_note, sizeof(r->sample_note),
			       "sampled 1/%u (seed %llu): 1 in %u %s%s of each rank of heat, "
			       "%s%llu of %llu pages (1/%.2f), %llu of %llu "
			       "references (1/%.2f), %llu of %llu pages live at once at most (1/%.2f), "
			       "on a machine with every size times that last share (a memcg may go over "
			       "it by 1 - 1/%u of half its mean reclaim batch: the batch slack); "
			       "counters are the sampled machine's, not scaled",
			       den, (unsigned long long)o->sample_seed, den, what, unit, units,
			       (unsigned long long)r->sample.kept, (unsigned long long)r->sample.valid,
			       (double)r->sample.valid / (double)r->sample.kept,
			       (unsigned long long)st->refs_kept, (unsigned long long)st->refs,
			       st->refs_kept ? (double)st->refs / (double)st->refs_kept : 0.0,
			       (unsigned long long)r->sample.scale_num,
			       (unsigned long long)r->sample.scale_den,
			       (double)r->sample.scale_den / (double)r->sample.scale_num, den);
		/* a sample of few units strays however they are chosen (docs/replay.md,
		 * "What cannot be exact"): say so with the numbers */
		if (den > 1 && st->regions_kept < RP_SAMPLE_FEW_REGIONS && len > 0 &&
		    (size_t)len < sizeof(r->sample_note)) {
			uint64_t n = st->regions / RP_SAMPLE_FEW_REGIONS;

			snprintf(r->sample_note + len, sizeof(r->sample_note) - (size_t)len,
				 "; warning: only %llu %s sampled (fewer than %d), so the miss "
				 "ratio may be points off at small sizes; %s",
				 (unsigned long long)st->regions_kept, what, RP_SAMPLE_FEW_REGIONS,
				 n >= 2 ? (st->unit > 1 ? "sample more (a smaller N or --sample-unit)"
							: "sample more (a smaller N)") :
				 "the trace has too few to sample: replay it in full");
		}
		if (den > 1)
			note_small_machines(r, sizes, nsizes);
	}
	return 0;
}

const char *mr_replay_sample_note(const struct mr_replay *r)
{
	return r->sampled ? r->sample_note : NULL;
}

const char *mr_replay_sample_cache_note(const struct mr_replay *r)
{
	return r->sampled ? r->sample_cache_note : NULL;
}

double mr_replay_sample_counts_s(const struct mr_replay *r)
{
	return r->sampled ? r->t->sample_cache_s : 0;
}

uint64_t mr_replay_sampled_pages(const struct mr_replay *r, uint64_t *of)
{
	if (!r->sampled) {
		uint64_t n = 0;

		for (uint32_t p = 0; p < r->t->nr_pages; p++)
			n += (r->t->pages[p].info & RP_PAGE_VALID) != 0;
		*of = n;
		return n;
	}
	*of = r->sample.valid;
	return r->sample.kept;
}

int mr_replay_create(const struct mr_replay_opts *o, struct mr_replay **out, struct mr_error *err)
{
	const uint64_t *sizes = o->nmemory ? o->memory_sizes : &o->memory_pages;
	size_t nsizes = o->nmemory ? o->nmemory : 1;
	struct mr_replay *r;
	uint64_t span;
	int rc;

	*out = NULL;
	if (!o->trace)
		return mr_error_set(err, MR_EINVAL, "no trace given");
	if (!o->npolicies)
		return mr_error_set(err, MR_EINVAL, "no policy given (e.g. --policy lru --policy mglru)");
	rc = check_sizes(o, err);
	if (rc)
		return rc;
	if (!sizes[0] && !o->nlimits && !o->memory_from_trace)
		return mr_error_set(err, MR_EINVAL,
				    "no memory size given: --memory SIZE (e.g. 512M) limits the whole trace, --memory CGROUP=SIZE one cgroup (CGROUP an id or a path)");
	r = calloc(1, sizeof(*r));
	if (!r)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	snprintf(r->trace_path, sizeof(r->trace_path), "%s", o->trace);
	snprintf(r->tmpdir, sizeof(r->tmpdir), "%s", o->tmpdir ? o->tmpdir : "/tmp");
	if (o->nextuse_cache && strlen(o->nextuse_cache) >= sizeof(r->nu_cache) - 100) {
		free(r);
		return mr_error_set(err, MR_EINVAL, "next-use cache directory '%.60s...' is too long (at most %zu bytes): give a shorter --nextuse-cache",
				    o->nextuse_cache, sizeof(r->nu_cache) - 101);
	}
	snprintf(r->nu_cache, sizeof(r->nu_cache), "%s", o->nextuse_cache ? o->nextuse_cache : "");
	snprintf(r->memory_spec, sizeof(r->memory_spec), "%s", o->memory_spec ? o->memory_spec : "");
	if (o->reclaim != MR_RECLAIM_MEMCG && o->reclaim != MR_RECLAIM_NODE) {
		free(r);
		return mr_error_set(err, MR_EINVAL, "reclaim mode %d: use memcg or node", o->reclaim);
	}
	if (o->reclaim == MR_RECLAIM_NODE && !sizes[0]) {
		free(r);
		return mr_error_set(err, MR_EINVAL,
				    "node reclaim needs the node memory: --memory SIZE (per-cgroup limits may come with it)");
	}
	r->reclaim = o->reclaim;
	if (o->shadow != MR_SHADOW_KEEP && o->shadow != MR_SHADOW_KERNEL &&
	    o->shadow != MR_SHADOW_NONE) {
		free(r);
		return mr_error_set(err, MR_EINVAL, "shadow mode %d: use keep, kernel or none",
				    o->shadow);
	}
	r->shadow = o->shadow;
	if (o->policy_vary_seed && !(o->vary_p > 0 && o->vary_p <= 1)) {
		free(r);
		return mr_error_set(err, MR_EINVAL, "--vary-p %g is no probability: give one in (0, 1]",
				    o->vary_p);
	}
	if (o->fault_around_pages > 512) {
		free(r);
		return mr_error_set(err, MR_EINVAL, "fault-around of %u pages: at most 512 (2 MiB, "
				    "one page table)", o->fault_around_pages);
	}
	r->memory_pages = sizes[0];
	r->nsizes = nsizes;
	r->swap_pages = o->swap_pages;
	r->wb_delay = o->writeback_delay_ns;
	r->snap_every = o->snapshot_every_ns;
	r->threads = o->threads;
	r->record_timing = o->record_timing;
	r->progress = o->progress;
	r->progress_arg = o->progress_arg;
	r->detail = o->detail;
	if (o->output) {
		/* first: a replay whose results could not be written should not run */
		rc = mr_results_claim(o->output, &r->claim, err);
		if (rc)
			goto fail;
	}

	if (o->sample_den > MR_REPLAY_MAX_SAMPLE_DEN) {
		rc = mr_error_set(err, MR_ERANGE, "sampling 1/%u: at most 1/%u (give a larger rate)",
				  o->sample_den, MR_REPLAY_MAX_SAMPLE_DEN);
		goto fail;
	}
	/* a sampled replay's image holds only the sampled pages (sample.c) */
	if (o->sample_unit && (o->sample_unit > 512 || (o->sample_unit & (o->sample_unit - 1)))) {
		rc = mr_error_set(err, MR_EINVAL, "sampling unit of %u pages: give a power of two "
				  "from 1 page (4K) to 512 (2M)", o->sample_unit);
		goto fail;
	}
	rc = rp_image_load_sampled(o->trace, o->sample_den, o->sample_seed, o->sample_unit,
				   r->nu_cache, &r->t, err);
	if (rc)
		goto fail;
	r->vary_p = o->vary_p;
	r->fault_around = fault_around_pages(o->fault_around_pages, r->t->fault_around_bytes,
					     &r->fault_around_from);
	rc = host_defaults(r, o, err);
	if (rc)
		goto fail;
	if (o->memory_from_trace && !sizes[0] && !o->nlimits) {
		sizes = &r->host_memory;
		nsizes = 1;
		r->memory_pages = r->host_memory;
	}

	/* memcgs: ids, paths, limits */
	r->memcg_limit = calloc(r->t->nr_memcgs, sizeof(uint64_t));
	r->memcg_ids = calloc(r->t->nr_memcgs, sizeof(uint32_t));
	r->memcg_paths = calloc(r->t->nr_memcgs, sizeof(char *));
	if (!r->memcg_limit || !r->memcg_ids || !r->memcg_paths) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < r->t->nr_memcgs; i++) {
		r->memcg_ids[i] = r->t->memcgs[i].cgroup;
		r->memcg_paths[i] = r->t->memcgs[i].path;
	}
	for (uint32_t i = 0; r->host_cgroup_limits && i < r->t->nr_memcgs; i++)
		r->memcg_limit[i] = r->t->memcgs[i].memory_max / 4096;
	for (size_t i = 0; i < o->nlimits; i++) {
		const char *path = o->limits[i].cgroup_path;
		int mi = path ? memcg_by_path(r->t, path) :
				rp_image_memcg_index(r->t, o->limits[i].cgroup);

		if (mi < 0 && path) {
			char list[400] = "";

			for (uint32_t k = 0; k < r->t->nr_memcgs; k++) {
				size_t l = strlen(list);

				snprintf(list + l, sizeof(list) - l, "%s%s (%u)", k ? ", " : "",
					 r->t->memcgs[k].path, r->t->memcgs[k].cgroup);
			}
			if (r->t->nr_unpaged_limited && !strcmp(path, r->t->unpaged.path))
				rc = mr_error_set(err, MR_EINVAL, "--memory %s=...: %s has a cgroup %s "
						  "(id %u), but no page is charged to it (a trace recorded "
						  "before memreplay charged pages to their cgroups; cgroups "
						  "with pages: %s): give --memory SIZE to limit the whole trace",
						  path, o->trace, path, r->t->unpaged.cgroup, list);
			else
				rc = mr_error_set(err, MR_EINVAL, "--memory %s=...: no cgroup of %s with pages charged to it has the path %s (cgroups with pages: %s); give a path or an id of those",
						  path, o->trace, path, list);
			goto fail;
		}
		if (mi < 0) {
			char list[400] = "";

			for (uint32_t k = 0; k < r->t->nr_memcgs; k++) {
				size_t l = strlen(list);

				snprintf(list + l, sizeof(list) - l, "%s%u (%s)", k ? ", " : "",
					 r->t->memcgs[k].cgroup, r->t->memcgs[k].path);
			}
			rc = mr_error_set(err, MR_EINVAL, "--memory %u=...: no page of %s is charged to cgroup %u (cgroups with pages: %s)",
					  o->limits[i].cgroup, o->trace, o->limits[i].cgroup, list);
			goto fail;
		}
		if (r->memcg_limit[mi]) {
			rc = mr_error_set(err, MR_EINVAL, "--memory: cgroup %u (%s) is given a limit twice%s; give it once",
					  r->t->memcgs[mi].cgroup, r->t->memcgs[mi].path,
					  path ? " (by id and by path, or by two paths)" : "");
			goto fail;
		}
		r->memcg_limit[mi] = o->limits[i].pages;
	}

	if (o->sample_den) {
		rc = sample_setup(r, o, sizes, nsizes, err);
		if (rc)
			goto fail;
	}

	if (r->wb_delay != MR_WRITEBACK_SYNC && r->wb_delay > RP_TIME_MAX) {
		rc = mr_error_set(err, MR_ERANGE, "--writeback-delay %llu ns is beyond 2^63 - 1 ns (292 years): give a shorter delay",
				  (unsigned long long)r->wb_delay);
		goto fail;
	}
	if (o->script || o->script_text) {
		rc = load_script(r, o, err);
		if (rc)
			goto fail;
	}

	/* time series step */
	span = r->t->t_last > r->t->t_first ? r->t->t_last - r->t->t_first : 0;
	r->interval = o->interval_ns ? o->interval_ns : span / 100;
	if (!r->interval)
		r->interval = 1;
	if (span / r->interval > RP_MAX_SAMPLES) {
		rc = mr_error_set(err, MR_ERANGE, "--interval %llu ns gives %llu samples over the trace's %llu ns; at most %u are kept: use a larger interval",
				  (unsigned long long)r->interval, (unsigned long long)(span / r->interval),
				  (unsigned long long)span, RP_MAX_SAMPLES);
		goto fail;
	}
	if (r->snap_every && span / r->snap_every > RP_MAX_SAMPLES) {
		rc = mr_error_set(err, MR_ERANGE, "--snapshot-every %llu ns is too small for a trace of %llu ns",
				  (unsigned long long)r->snap_every, (unsigned long long)span);
		goto fail;
	}
	rc = check_script_span(r, err);
	if (rc)
		goto fail;

	{
		size_t n = o->npolicies * nsizes;

		r->mach = calloc(n, sizeof(*r->mach));
		r->res = calloc(n, sizeof(*r->res));
		r->notes = calloc(n, sizeof(*r->notes));
		r->note_kind = calloc(n, sizeof(*r->note_kind));
		r->coverage = calloc(n, sizeof(*r->coverage));
		r->run_memory = calloc(n, sizeof(*r->run_memory));
		r->run_vary = calloc(n, sizeof(*r->run_vary));
	}
	if (!r->mach || !r->res || !r->notes || !r->note_kind || !r->coverage || !r->run_memory ||
	    !r->run_vary) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto fail;
	}
	/* size-major: run s * npolicies + i is policy i at size s (mr_replay.h) */
	for (size_t k = 0; k < o->npolicies * nsizes; k++) {
		size_t i = k % o->npolicies;
		uint64_t mem = sizes[k / o->npolicies];
		const struct mr_policy_ops *ops = NULL;
		struct rp_machine_opts mo = { 0 };
		char canon[256];
		void *params = NULL;

		rc = parse_policy(o->policies[i], &ops, &params, canon, sizeof(canon), err);
		if (rc)
			goto fail;
		if (r->has_script && r->script.n && !ops->lru_gen_command) {
			free(params);
			rc = mr_error_set(err, MR_EINVAL,
					  "policy '%s' takes no lru_gen commands, so --script cannot drive it; replay it without the script or drop it",
					  canon);
			goto fail;
		}
		mo.ops = ops;
		mo.params = params;
		mo.canon = canon;
		mo.memcg_limit = r->memcg_limit;
		if (r->sampled) {
			mem = mem ? sample_scale(mem, &r->sample) : 0;
			mo.sample_den = r->sample.den;
			mo.seg_events = rp_sample_expected_events(&r->sample, r->t);
			/* page by page (units below a look-around window), 1 in den of the
			 * PTE slots around a page can hold one here */
			if (r->t->sample_stat.unit < 64)
				mo.pte_den = r->sample.den;
		}
		mo.global_limit = r->reclaim == MR_RECLAIM_NODE ? 0 : mem;
		mo.swap_pages = r->sampled && r->swap_pages ? sample_scale(r->swap_pages, &r->sample)
							    : r->swap_pages;
		mo.no_swap = r->no_swap;
		mo.wb_delay_ns = r->wb_delay;
		mo.interval_ns = r->interval;
		mo.snapshot_every_ns = r->snap_every;
		mo.script = r->has_script ? &r->script : NULL;
		mo.check = o->check;
		mo.shadow = r->shadow; /* enum rp_shadow_mode has mr_replay_shadow's values */
		mo.fault_around_pages = r->fault_around;
		mo.vary_seed = o->policy_vary_seed ? o->policy_vary_seed[i] : 0;
		mo.vary_p = o->vary_p;
		mo.memcg_ids = r->memcg_ids;
		mo.memcg_paths = r->memcg_paths;
		mo.detail = o->detail;
		mo.trace_pages = o->trace_pages;
		mo.ntrace_pages = o->ntrace_pages;
		rc = rp_machine_create(r->t, &mo, &r->mach[k], err);
		free(params);
		if (rc)
			goto fail;
		r->run_memory[k] = sizes[k / o->npolicies]; /* as asked, also when sampled */
		r->run_vary[k] = mo.vary_seed;
		r->nruns++;
		if (r->reclaim == MR_RECLAIM_NODE) {
			rc = rp_machine_set_node_reclaim(r->mach[k], mem, err);
			if (rc)
				goto fail;
		}
	}
	*out = r;
	return 0;
fail:
	mr_replay_destroy(r);
	return rc;
}

/* ---- the pipeline ---- */

struct batch {
	struct mr_event *ev;
	size_t n;
	uint64_t *nu;
	size_t nu_cap;
	int pending;
};

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t filled, freed;
	struct batch b[RP_NBATCH];
	uint64_t published;
};

struct worker {
	struct pipe *p;
	struct rp_machine **m;
	size_t nm;
	pthread_t th;
};

static void run_batch(struct rp_machine **m, size_t nm, const struct batch *b)
{
	for (size_t i = 0; i < nm; i++) {
		double t0 = mr_clock_s();

		rp_machine_run(m[i], b->ev, b->n, rp_machine_wants_nextuse(m[i]) ? b->nu : NULL);
		rp_machine_add_time(m[i], mr_clock_s() - t0);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pipe *p = w->p;

	for (uint64_t seq = 0;; seq++) {
		struct batch *b = &p->b[seq % RP_NBATCH];
		int end;

		pthread_mutex_lock(&p->mu);
		while (p->published <= seq)
			pthread_cond_wait(&p->filled, &p->mu);
		pthread_mutex_unlock(&p->mu);
		end = b->n == 0;
		if (!end)
			run_batch(w->m, w->nm, b);
		pthread_mutex_lock(&p->mu);
		if (--b->pending == 0)
			pthread_cond_broadcast(&p->freed);
		pthread_mutex_unlock(&p->mu);
		if (end)
			break;
	}
	return NULL;
}

/* The batch's size in events for nw worker threads (0: all on the caller's thread). */
static size_t batch_events(const struct mr_replay *r, size_t nw)
{
	size_t per_thread = nw ? (r->nruns + nw - 1) / nw : r->nruns;
	size_t n = per_thread > 1 ? RP_BATCH_MAX : RP_BATCH;

	if (n > r->t->n_events) /* a small trace: one batch */
		n = r->t->n_events > 0 ? (size_t)r->t->n_events : 1;
	return n;
}

/* Decode the next batch into b (n = 0 at the end), with next-use values. */
static int fill_batch(struct mr_replay *r, struct rp_source *src, struct rp_nextuse *nu,
		      struct batch *b, size_t cap, struct mr_error *err)
{
	uint32_t nr_pages = r->t->nr_pages;
	/* a long batch also stops at about four next-use values an event (after RP_BATCH
	 * events at least): a batch's values are an array of their own, and events that
	 * name many pages (a read() of 256) would make it 8 bytes times that per event */
	size_t ref_cap = cap > RP_BATCH ? 4 * cap : SIZE_MAX, refs = 0;
	int rc;

	if (r->sampled) {
		/* the sampled events, with their next-use values (sample.c) */
		rc = rp_sample_fill(&r->sample, src, nu, b->ev, cap, RP_BATCH, ref_cap, &b->n,
				    &b->nu, &b->nu_cap, err);
		if (rc) {
			b->n = 0;
			return rc;
		}
		nu = NULL;
	} else {
		size_t got;

		/* RP_BATCH events at a time, while the values stay under ref_cap */
		b->n = 0;
		do {
			size_t want = cap - b->n < RP_BATCH ? cap - b->n : RP_BATCH;

			rc = rp_source_read(src, b->ev + b->n, want, &got, err);
			if (rc)
				break;
			for (size_t i = b->n; nu && i < b->n + got; i++) {
				uint32_t first;

				refs += rp_event_refs(&b->ev[i], nr_pages, &first);
			}
			b->n += got;
			if (got < want) /* the end of the trace */
				break;
		} while (b->n < cap && refs < ref_cap);
	}
	if (rc) {
		b->n = 0;
		return rc;
	}
	/* one pass over a batch still in cache: a time past RP_TIME_MAX would reach the
	 * machines' "nothing pending" value (rp_int.h) */
	for (size_t i = 0; i < b->n; i++) {
		if (b->ev[i].time > RP_TIME_MAX) {
			rc = mr_error_set(err, MR_ECORRUPT,
					  "an event (kind %u, page %u) is at %llu ns, beyond 2^63 - 1 ns (292 years): the trace's chunks are damaged; record or generate it again",
					  b->ev[i].kind, b->ev[i].page, (unsigned long long)b->ev[i].time);
			b->n = 0;
			return rc;
		}
	}
	if (nu && b->n) { /* refs: the batch's next-use values, counted as it was read */
		if (refs > b->nu_cap) {
			uint64_t *nn = realloc(b->nu, refs * sizeof(*nn));

			if (!nn) {
				b->n = 0;
				return mr_error_set(err, MR_ENOMEM, "out of memory for next-use values");
			}
			b->nu = nn;
			b->nu_cap = refs;
		}
		rc = rp_nextuse_read(nu, b->nu, refs, err);
		if (rc)
			b->n = 0;
	}
	return rc;
}

static void coverage_check(struct mr_replay *r, size_t i);

/* What the coverage notes need from the events (on the decoding thread). */
static void note_sources(struct mr_replay *r, const struct batch *b)
{
	/* NB banks of counters, summed at the end: one counter incremented in memory by
	 * every event is a chain of dependent read-modify-writes (3.6 % of a replay with no
	 * reclaim on one thread, most of this loop's time); four chains overlap. */
	enum { NB = 4, NSRC = (MR_ACC_SRC_MASK >> MR_ACC_SRC_SHIFT) + 1 };
	uint64_t acc[NB][NSRC] = { { 0 } }, fd[NB] = { 0 };
	const struct mr_event *ev = b->ev;
	const size_t n = b->n;

	for (size_t i = 0; i < n; i++) {
		const struct mr_event *e = &ev[i];

		/* no branch on the two kinds most events are: their mix mispredicts */
		acc[i % NB][MR_ACC_SRC(e->flags)] += e->kind == MR_EV_ACCESS;
		fd[i % NB] += e->kind == MR_EV_FD_ACCESS;
		if (__builtin_expect(e->kind == MR_EV_SCAN_END, 0) && e->flags != MR_SCAN_SOFT_DIRTY) {
			if (!r->scans++)
				r->scan_first = e->time;
			r->scan_last = e->time;
		}
	}
	_Static_assert(NSRC == sizeof(r->acc_src) / sizeof(r->acc_src[0]), "a counter per source");
	for (int k = 0; k < NB; k++) {
		for (size_t s = 0; s < NSRC; s++)
			r->acc_src[s] += acc[k][s];
		r->fd_access += fd[k];
	}
}

static void report(struct mr_replay *r, int phase, uint64_t done, double t0)
{
	struct mr_replay_progress pr = {
		.phase = phase, .events_done = done, .events_total = r->t->n_events,
		.elapsed_s = mr_clock_s() - t0,
	};

	if (r->progress)
		r->progress(r->progress_arg, &pr);
}

const char *mr_replay_nextuse_note(const struct mr_replay *r)
{
	return *r->nu_note ? r->nu_note : NULL;
}

const char *mr_replay_series_note(const struct mr_replay *r)
{
	return *r->series_note ? r->series_note : NULL;
}

int mr_replay_run(struct mr_replay *r, struct mr_error *err)
{
	struct rp_nextuse *nu = NULL;
	struct rp_source *src = NULL;
	struct pipe p;
	struct worker *w = NULL;
	size_t nw = 0, cap;
	uint64_t done = 0;
	int want_nu = 0, rc = 0, rc_dec = 0;
	struct mr_error derr = { 0 };
	double t0;

	if (r->ran)
		return mr_error_set(err, MR_EINVAL, "this replay has already run");
	r->ran = 1;
	for (size_t i = 0; i < r->nruns; i++)
		want_nu |= rp_machine_wants_nextuse(r->mach[i]);
	if (want_nu) {
		t0 = mr_clock_s();
		report(r, 0, 0, t0);
		rc = rp_nextuse_build(r->trace_path, r->t->nr_pages_full, r->t->identity, r->nu_cache,
				      r->tmpdir, &nu, err);
		if (rc)
			return rc;
		report(r, 0, r->t->n_events, t0);
		cache_note(r, r->nu_note, sizeof(r->nu_note), "next-use times", rp_nextuse_info(nu),
			   mr_clock_s() - t0);
	}
	rc = rp_source_open(r->trace_path, &src, err);
	if (rc)
		goto out;

	if (r->threads == MR_REPLAY_THREADS_AUTO) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		nw = cpus > 0 ? (size_t)cpus : 1;
		if (nw > r->nruns)
			nw = r->nruns;
	} else {
		nw = r->threads > 0 ? (size_t)r->threads : 0;
		if (nw > r->nruns)
			nw = r->nruns;
	}
	r->threads_used = (int)nw;
	cap = batch_events(r, nw);
	memset(&p, 0, sizeof(p));
	for (int i = 0; i < (nw ? RP_NBATCH : 1); i++) { /* one thread fills and runs one */
		p.b[i].ev = malloc(cap * sizeof(struct mr_event));
		if (!p.b[i].ev) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory for event batches");
			goto out_free;
		}
	}
	t0 = mr_clock_s();

	if (!nw) {
		/* everything on this thread */
		for (;;) {
			rc_dec = fill_batch(r, src, nu, &p.b[0], cap, &derr);
			if (rc_dec || !p.b[0].n)
				break;
			note_sources(r, &p.b[0]);
			run_batch(r->mach, r->nruns, &p.b[0]);
			done = r->sampled ? r->sample.consumed : done + p.b[0].n;
			report(r, 1, done, t0);
		}
	} else {
		struct rp_machine **order = calloc(r->nruns, sizeof(*order));

		w = calloc(nw, sizeof(*w));
		if (!w || !order) {
			free(order);
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out_free;
		}
		pthread_mutex_init(&p.mu, NULL);
		pthread_cond_init(&p.filled, NULL);
		pthread_cond_init(&p.freed, NULL);
		/* machine i -> worker i % nw, contiguous per worker */
		{
			size_t k = 0;

			for (size_t j = 0; j < nw; j++) {
				w[j].p = &p;
				w[j].m = order + k;
				for (size_t i = j; i < r->nruns; i += nw)
					order[k++] = r->mach[i];
				w[j].nm = (size_t)(order + k - w[j].m);
			}
		}
		for (size_t j = 0; j < nw; j++) {
			if (pthread_create(&w[j].th, NULL, worker_main, &w[j])) {
				/* fall back: no more threads; run the rest inline is not possible
				 * mid-way, so stop the started ones with an end batch */
				nw = j;
				rc = mr_error_set(err, MR_ENOMEM, "cannot start worker threads");
				break;
			}
		}
		for (uint64_t seq = 0;; seq++) {
			struct batch *b = &p.b[seq % RP_NBATCH];

			pthread_mutex_lock(&p.mu);
			while (b->pending)
				pthread_cond_wait(&p.freed, &p.mu);
			pthread_mutex_unlock(&p.mu);
			if (rc || rc_dec)
				b->n = 0;
			else
				rc_dec = fill_batch(r, src, nu, b, cap, &derr);
			if (b->n)
				note_sources(r, b);
			pthread_mutex_lock(&p.mu);
			b->pending = (int)nw;
			p.published = seq + 1;
			pthread_cond_broadcast(&p.filled);
			pthread_mutex_unlock(&p.mu);
			if (!b->n)
				break;
			done = r->sampled ? r->sample.consumed : done + b->n;
			report(r, 1, done, t0);
		}
		for (size_t j = 0; j < nw; j++)
			pthread_join(w[j].th, NULL);
		pthread_mutex_destroy(&p.mu);
		pthread_cond_destroy(&p.filled);
		pthread_cond_destroy(&p.freed);
		free(order);
	}
	if (!rc && rc_dec) {
		*err = derr;
		rc = rc_dec;
	}
	if (!rc && nu)
		rc = rp_nextuse_finish(nu, err);
	for (size_t i = 0; !rc && i < r->nruns; i++) {
		if (rp_machine_finish(r->mach[i])) {
			*err = *rp_machine_error(r->mach[i]);
			rc = err->code ? err->code : MR_EIO;
		}
	}
	for (size_t i = 0; !rc && i < r->nruns; i++) {
		rc = rp_machine_result(r->mach[i], &r->res[i], err);
		r->res[i].memory_pages = r->run_memory[i];
		r->res[i].vary_seed = r->run_vary[i];
		r->res[i].vary_p = r->run_vary[i] ? r->vary_p : 0;
	}
	/* every machine samples on the same clock: the first one's cut is every one's */
	if (!rc && r->nruns && rp_machine_series_cut(r->mach[0]) && r->has_script &&
	    r->script.n_timed)
		snprintf(r->series_note, sizeof(r->series_note),
			 "the time series stops at %llu ns: the script's last command is at %llu ns, %llu ns after the trace ends, and samples every %llu ns up to it are more than the series keeps (about the trace's span / --interval); give a larger --interval to sample up to it",
			 (unsigned long long)rp_machine_series_cut(r->mach[0]),
			 (unsigned long long)r->script.cmds[r->script.n_timed - 1].time,
			 (unsigned long long)(r->script.cmds[r->script.n_timed - 1].time - r->t->t_last),
			 (unsigned long long)r->interval);
	for (size_t i = 0; !rc && i < r->nruns; i++)
		coverage_check(r, i);
out_free:
	free(w);
	for (int i = 0; i < RP_NBATCH; i++) {
		free(p.b[i].ev);
		free(p.b[i].nu);
	}
out:
	rp_source_close(src);
	rp_nextuse_close(nu);
	return rc;
}

/* ---- results ---- */

/*
 * Coverage (docs/replay.md, "Coverage"): what the trace could see of the touches, and a
 * warning only where what it could not see moves this run's results.
 *
 * A trace sees every first touch and refault of a page (a fault; minus lost samples) and
 * every read()/write() of the page cache (FD_ACCESS). Touches of pages already resident
 * and mapped it sees only through a source that reports them: soft-dirty write faults
 * (writes, once per interval), young-bit scans (reads and writes, per VMA, per scan),
 * hardware samples (sampled), or a generator (everything). Reads of resident mapped
 * pages have no source in a default recording. Whether that matters is measured per run:
 * mr_unseen_refaults counts refaults of pages that came in by a read fault (or its
 * readahead) through a mapping with recency and showed no touch until reclaim took them,
 * exactly the pages whose resident reads, had there been any, the kernel would have seen
 * and the replay did not. Warnings:
 *   coverage_low      no read source, at least 1000 refaults, and 5 % or more of them
 *                     unseen; names what to record;
 *   trace_too_coarse  every access from young-bit scans or faults, and the scans further
 *                     apart (span / scans, or (last - first) / (scans - 1)) than the run's
 *                     reclaim passes (span / passes): pages look idle between scans.
 */
static void coverage_check(struct mr_replay *r, size_t i)
{
	const struct mr_run_result *res = &r->res[i];
	uint64_t span = r->t->t_last > r->t->t_first ? r->t->t_last - r->t->t_first : 0;
	uint64_t passes = res->totals.reclaim_passes;
	uint64_t young = r->acc_src[MR_SRC_YOUNG], hw = r->acc_src[MR_SRC_HWSAMPLE];
	uint64_t synth = r->acc_src[MR_SRC_SYNTH], fault = r->acc_src[MR_SRC_FAULT];
	uint64_t refaults = 0, unseen = 0, all = 0, scan_ns, pass_ns;
	int reads_seen = young || hw || synth;
	char reads[128], who[128], mem[32];

	for (size_t k = 0; k < 8; k++)
		all += r->acc_src[k];
	/* with several sizes, the run is a policy at a size */
	if (r->nsizes > 1)
		snprintf(who, sizeof(who), "%s at %s", res->name,
			 mr_replay_format_memory(r->run_memory[i], mem, sizeof(mem)));
	else
		snprintf(who, sizeof(who), "%s", res->name);
	(void)mr_replay_counter(r, i, "mr_refaults", -1, &refaults);
	(void)mr_replay_counter(r, i, "mr_unseen_refaults", -1, &unseen);
	r->notes[i][0] = 0;
	r->note_kind[i] = NULL;
	if (synth)
		snprintf(reads, sizeof(reads), "generated: every touch");
	else if (young || hw)
		snprintf(reads, sizeof(reads), "resident pages seen through %s%s%s",
			 young ? "young-bit scans" : "", young && hw ? " and " : "",
			 hw ? "hardware samples" : "");
	else
		snprintf(reads, sizeof(reads), "reads of resident mapped pages not recorded");
	snprintf(r->coverage[i], sizeof(r->coverage[i]),
		 "%llu accesses (%llu faults and write faults, %llu young-bit, %llu hardware "
		 "samples, %llu generated) and %llu read()/write() events; %s; %llu of %llu "
		 "refaults (%.1f %%) of pages whose resident reads the trace could not show",
		 (unsigned long long)all, (unsigned long long)fault, (unsigned long long)young,
		 (unsigned long long)hw, (unsigned long long)synth,
		 (unsigned long long)r->fd_access, reads, (unsigned long long)unseen,
		 (unsigned long long)refaults, refaults ? 100.0 * (double)unseen / (double)refaults : 0.0);
	if (!reads_seen && refaults >= 1000 && unseen * 20 >= refaults) {
		r->note_kind[i] = "coverage_low";
		snprintf(r->notes[i], sizeof(r->notes[i]),
			 "coverage too low for %s: %llu of its %llu refaults (%.0f %%) are of pages "
			 "read through a mapping whose reads while resident the trace cannot show, "
			 "so it may evict pages the kernel kept; record resident reads with "
			 "--young-scan clear_refs (it clears the young bits the host's reclaim "
			 "reads) or hwsample on a machine with a PMU", who,
			 (unsigned long long)unseen, (unsigned long long)refaults,
			 100.0 * (double)unseen / (double)refaults);
		return;
	}
	if (passes < 2 || !span)
		return;
	pass_ns = span / passes;
	scan_ns = r->scans >= 2 && r->scan_last > r->scan_first
			  ? (r->scan_last - r->scan_first) / (r->scans - 1)
			  : r->scans ? span / r->scans : span;
	if (young && young + fault == all && scan_ns > pass_ns) {
		r->note_kind[i] = "trace_too_coarse";
		snprintf(r->notes[i], sizeof(r->notes[i]),
			 "trace too coarse for %s: resident pages are seen only by young-bit scans "
			 "every %.3f ms, but reclaim ran every %.3f ms (%llu passes); pages look "
			 "idle between scans", who, (double)scan_ns / 1e6,
			 (double)pass_ns / 1e6, (unsigned long long)passes);
	}
}

size_t mr_replay_notes(const struct mr_replay *r, size_t run, const struct mr_result_note **notes)
{
	*notes = NULL;
	if (!r->ran || run >= r->nruns || !r->res[run].counters)
		return 0;
	*notes = r->res[run].notes;
	return r->res[run].nnotes;
}

const char *mr_replay_coverage(const struct mr_replay *r, size_t run)
{
	if (!r->coverage || run >= r->nruns || !r->coverage[run][0])
		return NULL;
	return r->coverage[run];
}

const char *mr_replay_coarse_note(const struct mr_replay *r, size_t run)
{
	if (!r->notes || run >= r->nruns || !r->notes[run][0])
		return NULL;
	return r->notes[run];
}

int mr_replay_counter(const struct mr_replay *r, size_t run, const char *name, int64_t memcg,
		      uint64_t *value)
{
	const struct mr_run_result *res;

	if (run >= r->nruns || !r->res[run].counters)
		return MR_ENOENT;
	res = &r->res[run];
	for (size_t i = 0; i < res->ncounters; i++) {
		if ((memcg < 0 ? res->counters[i].memcg < 0 : res->counters[i].memcg == memcg) &&
		    !strcmp(res->counters[i].name, name)) {
			*value = res->counters[i].value;
			return 0;
		}
	}
	return MR_ENOENT;
}

int mr_replay_summary(const struct mr_replay *r, size_t run, struct mr_replay_summary *s)
{
	const struct mr_run_result *res;

	if (run >= r->nruns || !r->res[run].counters)
		return MR_ENOENT;
	res = &r->res[run];
	memset(s, 0, sizeof(*s));
	snprintf(s->spec, sizeof(s->spec), "%s", res->spec);
	s->events = res->events;
	s->pgfault = res->totals.pgfault;
	s->pgmajfault = res->totals.pgmajfault;
	s->misses = res->totals.misses;
	s->refaults = res->totals.refaults;
	s->evictions = res->totals.evictions;
	s->pswpin = res->totals.pswpin;
	s->pswpout = res->totals.pswpout;
	s->oom = res->totals.oom;
	s->usage_max = res->totals.usage_max;
	s->memory_pages = r->run_memory[run];
	s->wall_s = res->wall_s;
	return 0;
}

int mr_replay_write_results(const struct mr_replay *r, const char *path, struct mr_error *err)
{
	struct mr_results_setup in = {
		.trace_path = r->t->path,
		.trace_id = r->t->identity,
		.trace_events = r->t->n_events,
		.trace_t_first = r->t->t_first,
		.trace_t_last = r->t->t_last,
		.nodes = r->t->nodes,
		.nr_memcgs = r->t->nr_memcgs,
		.memory_pages = r->memory_pages,
		.memory_spec = r->memory_spec[0] ? r->memory_spec : NULL,
		.swap_pages = r->swap_pages,
		.no_swap = r->no_swap,
		.wb_delay_ns = r->wb_delay,
		.interval_ns = r->interval,
		.snapshot_every_ns = r->snap_every,
		.script = r->has_script ? r->script_name : NULL,
		.script_sha256 = r->has_script ? r->script_sha : NULL,
		.reclaim = r->reclaim == MR_RECLAIM_NODE ? "node" : "memcg",
		.shadow = mr_replay_shadow_name(r->shadow),
		.fault_around_pages = r->fault_around,
		.record_timing = r->record_timing,
		.threads = r->threads_used,
		.sample_den = r->sampled ? r->sample.den : 0,
		.sample_seed = r->sampled ? r->sample.seed : 0,
		.sample_note = r->sampled ? r->sample_note : NULL,
		.sample_trace_refs = r->sampled ? r->sample.trace_refs : 0,
		.sample_pages = r->sampled ? r->sample.kept : 0,
		.sample_trace_pages = r->sampled ? r->sample.valid : 0,
		.sample_refs = r->sampled ? r->t->sample_stat.refs_kept : 0,
		.sample_unit = r->sampled ? r->t->sample_stat.unit : 0,
	};
	struct mr_results_memcg *memcgs;
	const char **notes, **cov;
	int rc;

	if (!r->ran || !r->nruns || !r->res[0].counters)
		return mr_error_set(err, MR_EINVAL, "nothing to write: the replay has not run");
	notes = calloc(r->nruns, sizeof(*notes));
	cov = calloc(r->nruns, sizeof(*cov));
	memcgs = calloc(r->t->nr_memcgs ? r->t->nr_memcgs : 1, sizeof(*memcgs));
	if (!notes || !cov || !memcgs) {
		free(notes);
		free(cov);
		free(memcgs);
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < r->nruns; i++) {
		notes[i] = mr_replay_coarse_note(r, i);
		cov[i] = mr_replay_coverage(r, i);
	}
	in.note_kinds = r->note_kind;
	in.coverage = cov;
	for (uint32_t i = 0; i < r->t->nr_memcgs; i++)
		memcgs[i] = (struct mr_results_memcg){
			.cgroup = r->t->memcgs[i].cgroup,
			.path = r->t->memcgs[i].path,
			.limit_pages = r->memcg_limit_asked ? r->memcg_limit_asked[i] :
				       r->memcg_limit ? r->memcg_limit[i] : 0,
		};
	in.notes = notes;
	in.memcgs = memcgs;
	if (r->detail) {
		in.write_extra = write_detail;
		in.extra_arg = (void *)r;
	}
	if (r->claim && (!path || !strcmp(path, mr_results_claim_path(r->claim))))
		rc = mr_results_write_claimed(r->claim, &in, r->res, r->nruns, err);
	else if (path)
		rc = mr_results_write(path, &in, r->res, r->nruns, err);
	else
		rc = mr_error_set(err, MR_EINVAL, "no results path given");
	free(notes);
	free(cov);
	free(memcgs);
	return rc;
}

uint32_t mr_replay_fault_around(const struct mr_replay *r, const char **from)
{
	if (from)
		*from = r->fault_around_from;
	return r->fault_around;
}

const char *mr_replay_shadow_name(int shadow)
{
	switch (shadow) {
	case MR_SHADOW_KERNEL:
		return "kernel";
	case MR_SHADOW_NONE:
		return "none";
	default:
		return "keep";
	}
}
