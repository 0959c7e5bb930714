/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rp_int.h - private to replayer/: the trace image every machine reads, and the pieces
 * the engine's files share.
 *
 * Files of the engine (each keeps to the headers it names, so the store and the policy
 * interface stay apart):
 *
 *   image.c     (mr_store.h)  open a trace, load its tables into a struct rp_image,
 *                             derive missing anonymous VMAs, size the page tables
 *   source.c    (mr_store.h)  the event source: a reader behind neutral calls
 *   nextuse.c   (no store)    the backward next-use pass for policies with an access hook
 *   cache.c     (rp_cache.h)  the cache directory both keep their per-trace files in
 *   sample.c, pagerefs.c      the sampled replay's filter and choice of pages, and the
 *                             choice's per-trace page counts in the cache directory
 *   machine.c, mm.c, events.c (mr_policy.h, via machine_int.h) the simulated machine:
 *               memory and reclaim, address spaces, event semantics
 *   replay.c    (mr_policy.h) policies, threads, batches, script, results assembly
 *   results.c   (sqlite3)     the results database (mr_results.h): write, read, compare
 *   script.c    (mr_util.h)   the lru_gen replay script parser
 *   sha256.c    (none)        trace identity
 *
 * Nothing here is a public interface; see mr_replay.h.
 */
#ifndef MR_RP_INT_H
#define MR_RP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"
#include "mr_event.h"
#include "mr_util.h" /* mr_big_alloc */
#include "mr_policy.h" /* struct mr_vma */
#include "rp_cache.h" /* struct rp_cache_info */

/* Page types as storage's enum mr_page_type (kept numerically identical). */
#define RP_ANON 0
#define RP_FILE 1
#define RP_SHMEM 2
#define RP_PAGE_TYPE_MASK 0x03u
#define RP_PAGE_EXEC 0x04u  /* page row exec = 1 */
#define RP_PAGE_VALID 0x08u /* a page row exists for this id */

/*
 * The latest time (ns) a trace event, a chunk row or a script command may carry. The
 * engine's "nothing pending" is UINT64_MAX (machine.c's next_sample, next_snap when
 * saturated); keeping real times at or below 2^63 - 1 (what SQLite's INTEGER holds, and
 * 292 years) means no real time can equal it, so process_due() always ends. Anything
 * later is refused as damage, never clamped.
 */
#define RP_TIME_MAX ((uint64_t)INT64_MAX)

/* One page row, as the machines need it: 16 bytes, shared read-only. */
struct rp_page {
	uint64_t key;   /* anon/shmem: virtual page number; file: page index in the file */
	uint32_t owner; /* anon/shmem: mm index (0 = none); file: file id */
	uint16_t memcg; /* memcg index */
	uint8_t node;
	uint8_t info;   /* RP_PAGE_* */
};

static inline unsigned rp_page_type(const struct rp_page *p)
{
	return p->info & RP_PAGE_TYPE_MASK;
}

/*
 * The VMAs, one name per role: struct mr_vma_row is a row of a trace's vmas table
 * (mr_store.h); struct rp_image_vma is one VMA of the loaded image, a row or one derived
 * for anonymous pages no row covers, around the struct mr_vma policies see (mr_policy.h,
 * the kernel's vm_area_struct): one array in the image that every machine of a pass
 * reads, each machine with its own byte of whether each is mapped now (machine_int.h,
 * vma_live); struct rec_vma is the recorder's, while it records.
 */
struct rp_image_vma {
	/* start and end in bytes, pgoff in pages, the vmas row id (derived VMAs get ids
	 * above every row's), mm index, file id (0 = anonymous), MR_VMA_* flags */
	struct mr_vma v;
	uint64_t map_ns, unmap_ns;
	uint8_t derived;
};

struct rp_memcg_row {
	uint32_t cgroup; /* trace cgroup id (0 = pages without a cgroup: the root) */
	uint64_t memory_max; /* its cgroups row's memory_max in bytes, 0 = unknown or none */
	char path[120];
};

/*
 * The trace image: loaded once, read by every machine. Indices:
 *   mm index  1..nr_mms-1 (0 = none); mm_store_id[i] is the trace's id
 *   file id   the trace's id, arrays sized nr_files = max id + 1
 *   task id   the trace's id, arrays sized nr_tasks = max id + 1
 *   vma index position in vmas[], sorted by (mm, start, id)
 */
struct rp_image {
	char path[1024];
	char identity[80];     /* "sha256:<hex>" over chunk rows and table counts */
	uint64_t n_events, n_chunks;
	uint64_t t_first, t_last;
	uint64_t by_kind[MR_EV_NR_KINDS];
	uint32_t nodes;
	int inserts_after_fault; /* a fault's in-fault inserts follow it in the events */
	uint64_t fault_around_bytes; /* the recorded host's, 0 = not recorded */
	/* the recorded host's swap (meta swap.*), and the recorded cgroup's memory.max
	 * (meta cgroup.memory.max): the replay's defaults (replay.c, host_defaults()) */
	int host_swap_known;         /* swap.total_bytes is in the trace */
	uint64_t host_swap_bytes;
	char host_swap_kind[16];     /* "zram", "disk", "mixed", "none", or "" */
	uint64_t host_memcg_max;     /* bytes; 0 = not recorded, UINT64_MAX = "max" */

	struct rp_page *pages;
	uint32_t nr_pages;
	/* A sampled image (rp_image_load_sampled()): only the sampled pages, renumbered in
	 * order, so that every machine is sized for them. nr_pages_full is the trace's
	 * page rows (= nr_pages when not sampled), sample_keep a bit per trace page id, set
	 * for the sampled ones and those without a row (NULL when not sampled): a sampled
	 * page's image id is the count of set bits before it; sample_kept of sample_valid
	 * page rows. */
	uint32_t nr_pages_full;
	uint64_t *sample_keep;
	/* [nr_pages] or NULL (not sampled): each image page's trace page id, for what is
	 * written keyed by page (the detail tables join the trace's pages table) */
	uint32_t *sample_ids;
	/* [nr_pages_full] or NULL: the file and index of each unsampled file page (file 0
	 * for the others), for the fault-around of its faults (sample.c) */
	struct rp_sample_fpage {
		uint64_t key;
		uint32_t file;
	} __attribute__((packed)) *sample_fpage;
	/* The unsampled anonymous pages that copy a sampled file page, whose first event
	 * unmaps that file page there (sample.c, RP_EV_COW_BREAK): sample_cow_bits a bit
	 * per trace page id (NULL: none), sample_cow_rank[w] the bits set in the words
	 * before word w, and sample_cow[rank] the page's mm and virtual page, one entry a
	 * set bit (not one per trace page: a trace may hold millions). */
	uint64_t *sample_cow_bits;
	uint32_t *sample_cow_rank;
	struct rp_sample_cowpg {
		uint64_t vpn;
		uint32_t mm;
	} __attribute__((packed)) *sample_cow;
	uint32_t nr_sample_cow;

	uint64_t sample_kept, sample_valid;
	struct rp_sample_stat {
		uint64_t regions, regions_kept; /* units with page rows, sampled */
		uint32_t unit;                  /* pages a unit (a power of two, <= 512) */
		uint64_t refs, refs_kept;       /* their references (rp_event_refs()) */
		uint64_t top_refs;              /* the hottest region's */
		uint64_t live, live_kept;       /* most pages live at once, all and sampled */
	} sample_stat;
	/* where the choice's page counts came from (pagerefs.c), and the seconds they took
	 * to count or read, for the replay's note */
	struct rp_cache_info sample_cache;
	double sample_cache_s;
	uint64_t nr_anon, nr_file, nr_shmem;

	struct rp_image_vma *vmas; /* read by every machine of a pass (a copy per machine
				    * of a pass of 48 cost 48 bytes a VMA each, and a cache
				    * miss per MAP, UNMAP and exit) */
	uint32_t nr_vmas, nr_derived;
	uint32_t *vma_by_id;   /* vma indices sorted by id (MAP/UNMAP lookup) */
	uint32_t *vma_of_id;   /* [nr_vma_ids]: vma index by id (UINT32_MAX none), or NULL
				* where the ids are too sparse (rp_image_vma_by_id()) */
	uint32_t nr_vma_ids;

	uint32_t nr_mms;
	uint32_t *mm_store_id; /* [nr_mms] */
	uint32_t *mm_vma_off;  /* [nr_mms + 1]: this mm's vmas are vmas[off[i]..off[i+1]) */
	uint32_t *mm_tasks;    /* [nr_mms] tasks of the mm in the tasks table */
	uint32_t *mm_tables;   /* [nr_mms] upper bound on PTE tables the mm can hold at once */
	uint32_t *mm_anon_off; /* [nr_mms + 1]: anon_index range of the mm */
	uint16_t *mm_memcg;    /* [nr_mms] memcg of its first task (else of its first page) */

	uint32_t nr_files;     /* max file id + 1 */
	uint32_t *file_vma_off; /* [nr_files + 1] into file_vmas */
	uint32_t *file_vmas;   /* vma indices grouped by file */
	uint32_t *file_index;  /* pages of mapped files sorted by (file, index) */
	uint64_t *file_key;    /* [nr_file_index] their indices in the file */
	uint32_t *file_page_off; /* [nr_files + 1] into file_index */
	/* direct map of a file whose pages are dense in it: its page of index k is
	 * fmap[fmap_base[f] + k - fmap_kmin[f]] for k - fmap_kmin[f] < fmap_span[f]
	 * (UINT32_MAX = a hole); fmap_base[f] = UINT64_MAX for other files */
	uint64_t *fmap_base, *fmap_kmin, *fmap_span;
	uint32_t *fmap;
	uint64_t nr_fmap;
	uint32_t nr_file_index;

	uint32_t nr_tasks;     /* max task id + 1 */
	uint32_t *task_mm;     /* [nr_tasks] mm index, 0 = none */

	uint32_t *anon_index;  /* anon and shmem page ids sorted by (mm, vpage) */
	uint64_t nr_anon_index;

	struct rp_memcg_row *memcgs;
	uint32_t nr_memcgs;
	/* cgroups rows with a memory.max and no page charged to them (a trace recorded
	 * before pages were charged to their cgroups), and the first of them: named when
	 * a replay looks for a limit and finds none */
	uint32_t nr_unpaged_limited;
	struct rp_memcg_row unpaged;

	uint64_t pool_tables;  /* initial PTE table pool (peak live tables, bounded) */
};

/* image.c */
int rp_image_load(const char *path, struct rp_image **out, struct mr_error *err);
/* The same with only the pages of the units (unit pages; 0 = MR_REPLAY_SAMPLE_UNIT)
 * sampled 1 in den with seed (mr_replay.h, "Sampled replay"); den 0 = every page.
 * cache_dir (NULL or "" = none) keeps the choice's page counts per trace (pagerefs.c). */
int rp_image_load_sampled(const char *path, uint32_t den, uint64_t seed, uint32_t unit,
			  const char *cache_dir, struct rp_image **out,
			  struct mr_error *err);
void rp_image_free(struct rp_image *t);
/* memcg index of a trace cgroup id; -1 when no page is charged to it. */
int rp_image_memcg_index(const struct rp_image *t, uint32_t cgroup);
/* vma index by row id, or UINT32_MAX. */
uint32_t rp_image_vma_by_id(const struct rp_image *t, uint32_t id);

/* source.c: events of a trace in time order, through the store's reader. */
struct rp_source;
int rp_source_open(const char *path, struct rp_source **out, struct mr_error *err);
/* Up to cap events; *n = 0 at the end (returns 0). Negative on a damaged store. */
int rp_source_read(struct rp_source *s, struct mr_event *ev, size_t cap, size_t *n,
		   struct mr_error *err);
void rp_source_close(struct rp_source *s);

/*
 * References: the positions a next-use policy is told about. Each ACCESS is one
 * (an access), each page of an FD_ACCESS is one (an access), each page of a READAHEAD or
 * PC_INSERT range is one (an insertion, not a use). Both the next-use pass and the
 * machines count them with this function, so positions agree.
 */
/* Bump whenever rp_event_refs() changes what a reference is (2: insertions are
 * references too): the cache files of values counted with it (nextuse.c, pagerefs.c)
 * carry it in their versions, so that none counted otherwise is used. */
#define RP_EVENT_REFS_VERSION 2u
static inline uint64_t rp_event_refs(const struct mr_event *ev, uint32_t nr_pages,
				     uint32_t *first)
{
	uint64_t n;

	*first = ev->page;
	switch (ev->kind) {
	case MR_EV_ACCESS:
		return ev->page < nr_pages ? 1 : 0;
	case MR_EV_FD_ACCESS:
	case MR_EV_READAHEAD:
		n = ev->size;
		break;
	case MR_EV_PC_INSERT:
		n = 1ull << (ev->flags & MR_PC_ORDER_MASK);
		break;
	default:
		return 0;
	}
	if (ev->page >= nr_pages)
		return 0;
	if (n > (uint64_t)nr_pages - ev->page)
		n = (uint64_t)nr_pages - ev->page;
	return n;
}

static inline int rp_event_is_use(const struct mr_event *ev)
{
	return ev->kind == MR_EV_ACCESS || ev->kind == MR_EV_FD_ACCESS;
}

/*
 * nextuse.c: the backward pass, and its cache. With cache_dir (NULL or "" = none), the
 * values are kept there per trace identity and reused; else they go to an unlinked
 * temporary file in tmpdir.
 */
struct rp_nextuse;
int rp_nextuse_build(const char *trace_path, uint32_t nr_pages, const char *identity,
		     const char *cache_dir, const char *tmpdir, struct rp_nextuse **out,
		     struct mr_error *err);
/* Read the next n next-use values (forward, in reference order). */
int rp_nextuse_read(struct rp_nextuse *nu, uint64_t *out, size_t n, struct mr_error *err);
/* After the replay: every value was read (else the trace changed). */
int rp_nextuse_finish(const struct rp_nextuse *nu, struct mr_error *err);
const struct rp_cache_info *rp_nextuse_info(const struct rp_nextuse *nu);
/* Tests: references per block (0 = the default, 2^20), to cover many blocks cheaply. */
void rp_nextuse_set_block(uint32_t refs);
void rp_nextuse_close(struct rp_nextuse *nu);

/*
 * sample.c: the sampled replay's filter (mr_replay.h, "Sampled replay"). The decoder
 * reads through it instead of rp_source_read(); one for all the machines.
 */
#define RP_SAMPLE_STAGE 16384 /* events decoded at a time */
#define RP_SAMPLE_LIVE_BUCKETS 4096 /* slices of the trace for the live-pages peak */
#define RP_SAMPLE_FEW_REGIONS 64    /* fewer sampled regions: the note warns */
#define RP_SAMPLE_SMALL_MACHINE 512 /* sampled machines of fewer pages: the note warns
				     * (16 of the kernel's 32-page reclaim batches) */
/*
 * An event of the sampled pass alone (sample.c -> events.c): a read fault of an
 * unsampled file page through a mapping, kept for its fault-around. arg = the page's
 * index in its file, size = the file, page = MR_PAGE_NONE; no reference. Outside
 * enum mr_event_kind, so no trace holds one.
 */
#define RP_EV_FAULT_AROUND 0xf0u
/*
 * The first event of an unsampled anonymous page that copies a sampled file page
 * (a private file mapping's copy-on-write): in the full replay the copy's PTE replaces
 * the file page's at its address, so the sampled machines unmap the file page there.
 * arg = the virtual page, size = the mm index, page = MR_PAGE_NONE; no reference.
 */
#define RP_EV_COW_BREAK 0xf1u

struct rp_sample {
	uint32_t den;          /* 1 in den regions */
	uint64_t seed;
	uint32_t nr_pages;
	const uint64_t *keep;  /* rp_image.sample_keep */
	uint32_t *keep_rank;   /* [word of keep] bits set in the words before it: a sampled
				* page's image id is its rank (rp_sample_id()) */
	uint64_t *seen;        /* bit per image page: named by an event passed on so far */
	const struct rp_sample_fpage *fpage; /* rp_image.sample_fpage */
	uint64_t *cow_done;    /* bit per rp_image.sample_cow entry: its RP_EV_COW_BREAK was
				* made */
	const struct rp_image *t;
	uint32_t fault_around; /* the machines' window, pages (1 = off) */
	uint64_t kept, valid;  /* sampled pages, of the page rows */
	uint64_t scale_num, scale_den; /* sizes scale by num / den: the live-pages peak's
					* share when known, else kept / valid */
	struct mr_event *stage; /* [RP_SAMPLE_STAGE] decoded, not yet filtered */
	size_t n, pos;         /* events in the stage, the next one */
	uint64_t part;         /* pages of stage[pos] already passed on (a cut range) */
	size_t ref;            /* next-use index of stage[pos] in stage_nu */
	uint64_t *stage_nu;    /* the stage's next-use values */
	size_t stage_nu_cap;
	uint64_t consumed;     /* input events done, for progress */
	uint64_t trace_refs;   /* references of every input event (rp_event_refs), for
				* the sampled miss ratio (docs/replay.md) */
	int done;
};
/* The first of file f's sparse index entries (file_key) at or above key. */
static inline uint32_t rp_file_key_lower(const struct rp_image *t, uint32_t f, uint64_t key)
{
	uint32_t lo = t->file_page_off[f], hi = t->file_page_off[f + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->file_key[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A bitmap's ranks: rank[w] = the bits set in words [0, w), for words + 1 entries, so
 * that the rank of a set bit (the bits set before it) is one count and a popcount. The
 * sampled image numbers its pages and its copy-on-write copies this way (sample.c).
 */
static inline void rp_bits_rank_build(const uint64_t *bits, uint32_t words, uint32_t *rank)
{
	uint32_t sum = 0;

	for (uint32_t w = 0; w < words; w++) {
		rank[w] = sum;
		sum += (uint32_t)__builtin_popcountll(bits[w]);
	}
	rank[words] = sum;
}

static inline uint32_t rp_bits_rank(const uint64_t *bits, const uint32_t *rank, uint32_t i)
{
	return rank[i / 64] + (uint32_t)__builtin_popcountll(bits[i / 64] & ((1ull << (i % 64)) - 1));
}

/* mr_replay_sample_hash() (image.c chooses the pages with it) */
uint64_t rp_sample_hash(uint64_t seed, unsigned kind, uint64_t owner, uint64_t region);
/* A private file mapping (image.c, sample_pages()): an anonymous page inside one is a
 * copy-on-write copy of the file's page at its offset (sample.c, mark_cow_breaks()). */
struct rp_sample_cow {
	uint64_t start, end; /* virtual pages [start, end) */
	uint64_t pgoff;      /* the file's page at start */
	uint64_t end_max;    /* the largest end of this mm's rows up to this one (sample.c) */
	uint32_t mm;         /* mm index */
	uint32_t file;
};
/* Which pages a sampled image keeps (image.c, sample_pages(); "Which regions" in
 * sample.c): keep[trace page id] = 1 or 0, for t->nr_pages ids, t->sample_stat and
 * t->sample_cache set. Reads t->path's events once, unless cache_dir (NULL or "" = none)
 * holds this trace's page counts (t->identity's; pagerefs.c), and keeps them there if
 * not. cow (ncow, sorted by mm and start): the private file mappings, where anonymous
 * pages are copy-on-write copies of file pages; cow_break (zeroed, a bit per trace page)
 * gets the unsampled copies of sampled file pages. Negative on a damaged store or out of
 * memory; a cache never fails it. */
int rp_sample_choose(struct rp_image *t, uint32_t den, uint64_t seed, uint32_t unit,
		     const char *cache_dir, struct rp_sample_cow *cow, uint32_t ncow,
		     uint8_t *keep, uint64_t *cow_break, struct mr_error *err);

/*
 * pagerefs.c: the sampling choice's per-page words (sample.c, count_refs()), which
 * depend on the trace alone, kept per trace identity in the cache directory
 * (rp_cache.h). words[t->nr_pages] from the cached file when cache_dir has a valid,
 * trusted one; else from count(t, words, err), then kept there (a directory that cannot
 * be written: not kept). version is the caller's, to bump whenever what a word means
 * changes. info says which (t->sample_cache's). Returns count's error, else 0.
 */
int rp_pagerefs_get(const struct rp_image *t, const char *cache_dir, uint32_t version,
		    uint64_t *words,
		    int (*count)(const struct rp_image *t, uint64_t *words, struct mr_error *err),
		    struct rp_cache_info *info, struct mr_error *err);
int rp_sample_init(struct rp_sample *s, const struct rp_image *t, uint32_t den, uint64_t seed,
		   uint32_t fault_around, struct mr_error *err);
void rp_sample_free(struct rp_sample *s);
/* Up to cap sampled events into out (*n = 0 at the end), with their next-use values in
 * *out_nu (grown as needed) when nu is given; with nu, no event is begun once min_events
 * are out and ref_cap values are (the values' array stays near ref_cap when events name
 * many pages). Negative on a damaged store. */
int rp_sample_fill(struct rp_sample *s, struct rp_source *src, struct rp_nextuse *nu,
		   struct mr_event *out, size_t cap, size_t min_events, size_t ref_cap,
		   size_t *n, uint64_t **out_nu, size_t *out_nu_cap, struct mr_error *err);
/* The events a machine will see: per-page events in the sampled share, others all. */
uint64_t rp_sample_expected_events(const struct rp_sample *s, const struct rp_image *t);

/* script.c */
struct rp_script_cmd {
	uint64_t time;   /* when at_marker is 0 */
	uint64_t marker; /* marker id when at_marker */
	uint8_t at_marker;
	uint32_t line;
	char text[128];  /* the debugfs command as written */
};
struct rp_script {
	struct rp_script_cmd *cmds; /* time commands sorted by time (stable), then marker ones */
	size_t n, n_timed;
};
/* Parse a NUL-terminated script; name (a path or "(inline)") prefixes the messages.
 * MR_EINVAL / MR_ERANGE name the line and what is wrong. */
int rp_script_parse_text(const char *text, const char *name, struct rp_script *s,
			 struct mr_error *err);
/* The same over len bytes of a file's contents: refuses a NUL byte (MR_EINVAL, naming
 * its offset) instead of ignoring what follows it. */
int rp_script_parse(const char *text, size_t len, const char *name, struct rp_script *s,
		    struct mr_error *err);
void rp_script_free(struct rp_script *s);

/* sha256.c */
struct rp_sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t nbuf;
};
void rp_sha256_init(struct rp_sha256 *c);
void rp_sha256_update(struct rp_sha256 *c, const void *data, size_t n);
void rp_sha256_final(struct rp_sha256 *c, uint8_t out[32]);

#endif /* MR_RP_INT_H */
