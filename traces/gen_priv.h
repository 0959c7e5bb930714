/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gen_priv.h - what the generators share, private to traces/.
 *
 * gen.c       registry, parameter parsing, mr_gen_write, the PRNG and the Zipf sampler.
 * gen_emit.c  the emission context: metadata rows, events, dense page ids, and a small
 *             host model every generator describes its workload with:
 *               - a page cache per file (which indices are cached, readahead state),
 *               - mappings (which pages of a VMA are faulted in),
 *               - task scripts: a task's whole life is built up front as timed
 *                 operations, so its task and VMA rows carry their real start, end,
 *                 map and unmap times before any event refers to them; scripts of
 *                 concurrent tasks are then merged by time into the one stream.
 * gen_<name>.c one generator each.
 *
 * The host described is one with enough memory: nothing is evicted, so pages enter
 * the page cache once (PC_INSERT) and anon pages are faulted once per mapping. The
 * replay re-derives residency under its own policy and memory size.
 *
 * Page ids are dense in order of first appearance in the event stream, as the
 * recorder assigns them; a range event (FD_ACCESS, READAHEAD, FREE, PC_INSERT of a
 * large folio) always names consecutive ids, so ranges are split where ids are not.
 */
#ifndef MR_GEN_PRIV_H
#define MR_GEN_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "mr_gen.h"

#define GEN_PAGE_SHIFT 12
#define GEN_NS_PER_MS 1000000ull

/* ---- PRNG: xoshiro256** seeded through splitmix64 (never libc rand) ---- */

struct gen_rng {
	uint64_t s[4];
};

void gen_rng_seed(struct gen_rng *r, uint64_t seed);

static inline uint64_t gen_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t gen_rng_next(struct gen_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = gen_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = gen_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, 1), 53 bits. */
static inline double gen_rng_double(struct gen_rng *r)
{
	return (double)(gen_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), unbiased (Lemire's multiply-shift with rejection). n > 0. */
static inline uint64_t gen_rng_below(struct gen_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)gen_rng_next(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = -n % n;

		while (lo < t) {
			m = (unsigned __int128)gen_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* A probability as a 53-bit threshold: gen_rng_chance(r, gen_prob(p)) is true with
 * probability p, exactly 0 or 1 at the ends, with integer compares only. */
static inline uint64_t gen_prob(double p)
{
	if (p <= 0)
		return 0;
	if (p >= 1)
		return 1ull << 53;
	return (uint64_t)(p * 9007199254740992.0);
}

static inline int gen_rng_chance(struct gen_rng *r, uint64_t thr)
{
	return (gen_rng_next(r) >> 11) < thr;
}

/* ---- Zipf sampler ---- */

/*
 * Zipf over ranks 0..n-1 with P(rank k) proportional to 1/(k+1)^s, s in [0, 3],
 * s = 1 included. Rejection-inversion (Hoermann & Derflinger 1996): O(1) per sample,
 * no table, so it serves any n; s = 0 is plain uniform.
 */
struct gen_zipf {
	uint64_t n;
	double s;
	double hx1, hn, sq;
};

/* MR_EINVAL when n == 0 or s is outside [0, 3] (or NaN). */
int gen_zipf_init(struct gen_zipf *z, uint64_t n, double s);
uint64_t gen_zipf_next(const struct gen_zipf *z, struct gen_rng *r);

/* Fill perm[0..n) with a uniform random permutation of 0..n-1 (Fisher-Yates). */
void gen_shuffle_u32(uint32_t *perm, uint32_t n, struct gen_rng *r);

/* ---- emission context ---- */

struct gen_ctx {
	struct mr_writer *w;
	struct mr_error *err;
	const char *name; /* generator name, for messages */
	struct gen_rng rng;
	uint32_t stream;
	uint64_t now; /* time of the next event, ns since trace start */
	uint64_t events;
	uint32_t next_page; /* next dense page id */
	uint32_t next_task, next_mm, next_file, next_vma, next_cgroup, next_marker;
	uint64_t next_ino;
	/* periodic markers, emitted by gen_emit() as time passes them (0 = off) */
	uint64_t mk_every, mk_next, mk_left;
	const char *mk_text;
};

/*
 * Start a trace: seed the PRNG, add the one stream and the "nodes" meta row.
 * mr_gen_write() has already written generator, parameters, seed and page size.
 */
int gen_begin(struct gen_ctx *c, const char *name, const struct mr_gen_values *v,
	      struct mr_writer *w, struct mr_error *err, unsigned nodes);

/* Turn a failed mr_writer_* call into an error in c->err; returns rc. */
int gen_fail(struct gen_ctx *c, int rc, const char *what);

/* Allocation failure with a message; returns MR_ENOMEM. */
int gen_nomem(struct gen_ctx *c, const char *what);

/* Append one event at c->now (periodic markers due by then go first). */
int gen_emit(struct gen_ctx *c, uint8_t kind, uint32_t page, uint32_t task, uint16_t cpu,
	     uint8_t flags, uint32_t size, uint64_t arg);

/* Advance the clock by base ns plus a rare, small seeded jitter (regular deltas keep
 * the time column cheap; the jitter keeps seeds distinct and timing not perfectly flat). */
static inline void gen_tick(struct gen_ctx *c, uint64_t base)
{
	uint64_t x = gen_rng_next(&c->rng);

	c->now += base + ((x & 15) == 0 ? (x >> 60) : 0);
}

/* Markers every `every` ns from `first`, `count` of them; text gets " <n>" appended. */
void gen_markers_every(struct gen_ctx *c, uint64_t first, uint64_t every, uint64_t count,
		       const char *text);
/* Emit the periodic markers due up to and including time t (and set c->now = t). */
int gen_markers_until(struct gen_ctx *c, uint64_t t);
/* One MARKER event now with a markers row. */
int gen_marker(struct gen_ctx *c, const char *text);

/* Rows. Ids are assigned in call order from 1. */
int gen_add_cgroup(struct gen_ctx *c, const char *path, uint64_t memory_max_pages, uint32_t *id);
int gen_add_mm(struct gen_ctx *c, int32_t tgid, const char *comm, uint32_t *id);
int gen_add_task(struct gen_ctx *c, int32_t pid, int32_t tgid, uint32_t mm, uint32_t cgroup,
		 const char *comm, uint64_t start_ns, uint64_t end_ns, uint32_t *id);

/* A new page id and its row. */
int gen_page_anon(struct gen_ctx *c, uint32_t mm, uint64_t vpage, uint32_t cgroup, int16_t node,
		  uint32_t *id);

/* ---- page cache per file ---- */

struct gen_file {
	uint32_t id; /* files row */
	uint64_t npages;
	uint32_t *page;   /* dense page id per index; MR_PAGE_NONE = not cached */
	uint32_t ra_pages; /* readahead window limit (read_ahead_kb / 4); 0 = no readahead */
	uint32_t cgroup;   /* charged to */
	int16_t node;
	uint8_t exec;      /* only ever mapped VM_EXEC: page rows get exec = 1 */
	uint8_t max_order; /* largest page-cache folio order to insert */
	/* readahead state (file_ra_state + the PG_readahead folio) */
	uint64_t ra_next;  /* index after the last window */
	uint64_t ra_mark;  /* index carrying PG_readahead, UINT64_MAX = none */
	uint32_t ra_size;  /* last window size */
};

/* Add a files row (dev 8:3, a fresh inode) and allocate the cache array. */
int gen_file_open(struct gen_ctx *c, struct gen_file *f, const char *path, uint64_t npages,
		  uint32_t ra_pages, uint32_t cgroup);
void gen_file_release(struct gen_file *f);

/* read(2) of [first, first+n): sync readahead on a miss, async readahead at the
 * PG_readahead mark, PC_INSERT per folio, then FD_ACCESS(R) per run of consecutive ids. */
int gen_file_read(struct gen_ctx *c, struct gen_file *f, uint64_t first, uint64_t n,
		  uint32_t task, uint16_t cpu);
/* write(2) of [first, first+n): PC_INSERT for new pages, then FD_ACCESS(W). */
int gen_file_write(struct gen_ctx *c, struct gen_file *f, uint64_t first, uint64_t n,
		   uint32_t task, uint16_t cpu);

/* ---- mappings ---- */

struct gen_vma {
	uint32_t id; /* vmas row */
	uint32_t mm, flags, cgroup;
	int16_t node;
	uint64_t start; /* address */
	uint64_t npages;
	struct gen_file *file; /* NULL: anonymous */
	uint64_t pgoff;
	uint64_t map_ns, unmap_ns;
	uint8_t unmapped;
	uint32_t *anon;  /* anon: page id per page, MR_PAGE_NONE = not faulted */
	uint8_t *mapped; /* file: faulted in this mapping */
};

/* Set up a VMA (id assigned, arrays allocated; no row, no event yet). file may be NULL;
 * MR_VMA_FILE is added for file mappings. */
int gen_vma_init(struct gen_ctx *c, struct gen_vma *v, uint32_t mm, uint64_t start,
		 uint64_t npages, uint32_t flags, struct gen_file *file, uint64_t pgoff,
		 uint32_t cgroup, int16_t node);
/* The vmas row, with v->map_ns / v->unmap_ns as set. */
int gen_vma_row(struct gen_ctx *c, const struct gen_vma *v);
void gen_vma_release(struct gen_vma *v);

/* MAP event for v. */
int gen_vma_map(struct gen_ctx *c, const struct gen_vma *v, uint32_t task, uint16_t cpu);
/*
 * One process of one task in cgroup cg_path (memory.max in pages, 0 = none), mapping an
 * anonymous read-write region of pages at start, mapped at time 0 on CPU 0: the whole
 * setup of the single-region generators (loop, agetest, memwalk). *task gets the task.
 */
int gen_single_anon(struct gen_ctx *c, const char *cg_path, uint64_t memory_max, int32_t pid,
		    const char *comm, uint64_t start, uint64_t pages, struct gen_vma *v,
		    uint32_t *task);
/* Touch page pg of v with MR_ACC_* bits rwx. First touch in this mapping: for a file
 * page not cached, in-fault readahead (READAHEAD + PC_INSERT, IN_FAULT) then a major
 * FAULT; else a minor FAULT; then ACCESS(source FAULT). The first touch of an anon page
 * is a write fault (no zero-page mapping). Later touches: ACCESS(SYNTH). */
int gen_vma_touch(struct gen_ctx *c, struct gen_vma *v, uint64_t pg, uint8_t rwx, uint32_t task,
		  uint16_t cpu);
/* UNMAP event; for anon, FREE of its faulted pages (runs of consecutive ids). */
int gen_vma_unmap(struct gen_ctx *c, struct gen_vma *v, uint32_t task, uint16_t cpu);

/* ---- task scripts ---- */

enum gen_op_type { GOP_MAP, GOP_TOUCH, GOP_READ, GOP_WRITE, GOP_UNMAP, GOP_EXIT };

struct gen_op {
	uint64_t t;
	uint64_t idx; /* TOUCH: page in the VMA; READ/WRITE: first file page */
	union {
		uint32_t vma; /* MAP/TOUCH/UNMAP: index into the proc's VMAs */
		struct gen_file *file;
	} u;
	uint32_t n; /* READ/WRITE: pages */
	uint8_t type, rwx;
};

/* One task (one process with its own mm) and its script. */
struct gen_proc {
	uint32_t task, mm, cgroup;
	int32_t pid;
	uint16_t cpu;
	const char *comm;
	uint64_t t; /* builder's clock */
	struct gen_vma *vmas;
	uint32_t nvmas, cap_vmas;
	struct gen_op *ops;
	size_t nops, cap_ops, pos;
};

/* Start building a new script for a new task (task and mm ids assigned now) at time t;
 * releases the previous task's VMAs. pid is also the tgid; comm must outlive the run. */
void gen_proc_reset(struct gen_ctx *c, struct gen_proc *p, int32_t pid, uint16_t cpu,
		    uint32_t cgroup, const char *comm, uint64_t t);
/* Builder calls, each an op at p->t; the builder advances p->t itself. */
int gen_proc_vma(struct gen_ctx *c, struct gen_proc *p, uint64_t start, uint64_t npages,
		 uint32_t flags, struct gen_file *file, uint64_t pgoff, int16_t node,
		 uint32_t *vi);
int gen_proc_touch(struct gen_ctx *c, struct gen_proc *p, uint32_t vi, uint64_t pg, uint8_t rwx);
int gen_proc_read(struct gen_ctx *c, struct gen_proc *p, struct gen_file *f, uint64_t first,
		  uint32_t n);
int gen_proc_write(struct gen_ctx *c, struct gen_proc *p, struct gen_file *f, uint64_t first,
		   uint32_t n);
int gen_proc_unmap(struct gen_ctx *c, struct gen_proc *p, uint32_t vi);
/* Unmap every VMA still mapped, then EXIT. Ends the script. */
int gen_proc_exit(struct gen_ctx *c, struct gen_proc *p);
void gen_proc_release(struct gen_proc *p);

/*
 * Run ntasks scripts, at most nslots at a time: build(arg, c, p, k, slot, t) builds task k
 * into p starting at t; the scripts are merged by time (ties: lower slot first). A slot
 * starts its next task gap_ns after its previous task's EXIT.
 */
typedef int (*gen_build_fn)(void *arg, struct gen_ctx *c, struct gen_proc *p, uint32_t k,
			    uint32_t slot, uint64_t t);
int gen_run_procs(struct gen_ctx *c, uint32_t nslots, uint32_t ntasks, uint64_t gap_ns,
		  gen_build_fn build, void *arg);

/* ---- generators ---- */

extern const struct mr_gen mr_gen_zipf, mr_gen_seq, mr_gen_loop, mr_gen_agetest, mr_gen_numa,
	mr_gen_filerefault, mr_gen_kbuild, mr_gen_execbuild, mr_gen_memwalk;

/*
 * Writing a finished trace file (gen.c; the importers use them too): trace_out_check()
 * refuses a symbolic link, an existing file without overwrite and a non-regular file,
 * naming the fix; trace_out_install() moves the finished tmp to path, by rename() with
 * overwrite and by link() without (which fails if path appeared meanwhile), after
 * removing an older store's -wal and -shm at path. 0 or an MR_E* code with a message.
 */
struct mr_error;
int trace_out_check(const char *path, int overwrite, struct mr_error *err);
/* MR_EINVAL when path is the file input names (even through another name): writing it
 * would destroy what is being read, --force or not. */
int trace_out_not_input(const char *input, const char *path, struct mr_error *err);
int trace_out_install(const char *tmp, const char *path, int overwrite, struct mr_error *err);

#endif /* MR_GEN_PRIV_H */
