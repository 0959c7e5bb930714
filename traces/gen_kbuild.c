// SPDX-License-Identifier: GPL-2.0
/*
 * gen_kbuild.c - seed 003's kernel build in a memory cgroup ("make -jN" under
 * memory.max).
 *
 * `tasks` compiler processes run `jobs` at a time, each on its own CPU slot. Each one:
 *   - execs cc1: maps the shared compiler binary VM_EXEC and executes its text (Zipf
 *     over scattered text pages: ACCESS with MR_ACC_EXEC, faulting on first touch);
 *   - reads its source file once and `headers_per_task` headers picked by Zipf (the
 *     popular headers are shared and hot), each either through mmap - faults with
 *     read-around readahead inside the fault (READAHEAD / PC_INSERT with IN_FAULT) -
 *     or through read() with sync and async readahead (FD_ACCESS);
 *   - grows an anonymous heap as it parses (write faults), then works over it;
 *   - writes its object file (PC_INSERT of new pages, FD_ACCESS write);
 *   - exits: UNMAP of every VMA, FREE of its heap, EXIT.
 * The in-fault readahead of the headers is what seed 003's placement modes differ on.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen_priv.h"

enum { P_JOBS, P_TASKS, P_MAX, P_HEADERS, P_HPT, P_HSKEW, P_TEXT, P_HEAP, P_MMAP, P_NR };

static const struct mr_gen_param kbuild_params[P_NR] = {
	[P_JOBS] = { "jobs", MR_GP_COUNT, 1, 256, "8", "compiler processes at a time (make -j)" },
	[P_TASKS] = { "tasks", MR_GP_COUNT, 1, 100000, "200", "compiler processes in total" },
	[P_MAX] = { "memory_max", MR_GP_PAGES, 0, 268435456, "256M",
		    "the build cgroup's memory.max (0 = none)" },
	[P_HEADERS] = { "headers", MR_GP_COUNT, 1, 1000000, "2000", "distinct header files" },
	[P_HPT] = { "headers_per_task", MR_GP_COUNT, 0, 100000, "150",
		    "header picks per compile (Zipf; repeats are included once)" },
	[P_HSKEW] = { "header_skew", MR_GP_DOUBLE, 0, 3, "1.0", "Zipf exponent of header picks" },
	[P_TEXT] = { "text_size", MR_GP_PAGES, 16, 1048576, "24M", "compiler text (cc1)" },
	[P_HEAP] = { "heap", MR_GP_PAGES, 1, 1048576, "4M", "anonymous heap per compile" },
	[P_MMAP] = { "mmap_ratio", MR_GP_DOUBLE, 0, 1, "0.3",
		     "share of source/header reads made through mmap" },
};

#define KB_RA_PAGES 32 /* read_ahead_kb = 128 */
#define KB_READ_PAGES 8 /* 32 KiB read() calls */
#define KB_HEAP_BURST 16
#define KB_TEXT_BASE 0x555555554000ull
#define KB_HEAP_BASE 0x555556000000ull
#define KB_MMAP_BASE 0x7f0000000000ull

struct kbuild {
	const struct mr_gen_values *v;
	uint32_t cg;
	uint64_t mmthr;
	struct gen_file cc1;
	struct gen_file *hdr; /* headers, hottest first */
	struct gen_file *src, *obj; /* per task */
	uint32_t *hseen; /* hseen[h] == task + 1: header already read by this task */
	uint32_t *tperm; /* text rank -> text page */
	struct gen_zipf hz, tz;
};

static const char *const kb_dirs[] = {
	"fs", "fs/ext4", "fs/btrfs", "mm", "kernel", "kernel/sched", "net/core", "net/ipv4",
	"drivers/net/ethernet", "drivers/gpu/drm", "drivers/block", "block", "lib",
	"arch/x86/kernel", "sound/core", "crypto", "security",
};
static const char *const kb_hdirs[] = {
	"include/linux", "include/net", "include/uapi/linux", "arch/x86/include/asm",
	"include/asm-generic", "include/trace/events",
};
static const char *const kb_words[] = {
	"inode", "page", "alloc", "core", "map", "buf", "sock", "irq", "time", "file",
	"dir", "lock", "queue", "ring", "io", "mem", "task", "super", "xattr", "acl",
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A unique, plausible path: <root>/<dir>/<word>[_<word>][<n>]<ext>. */
static void kb_path(char *buf, size_t cap, const char *root, const char *const *dirs,
		    size_t ndirs, uint64_t k, const char *ext)
{
	const size_t nw = NELEM(kb_words);
	const char *d = dirs[k % ndirs], *w1 = kb_words[(k / ndirs) % nw];
	uint64_t rest = k / ndirs / nw;

	if (!rest)
		snprintf(buf, cap, "%s/%s/%s%s", root, d, w1, ext);
	else if (rest <= nw)
		snprintf(buf, cap, "%s/%s/%s_%s%s", root, d, w1, kb_words[rest - 1], ext);
	else
		snprintf(buf, cap, "%s/%s/%s_%s%llu%s", root, d, w1, kb_words[rest % nw],
			 (unsigned long long)(rest / nw), ext);
}

/* Log-uniform file size in [1, max] pages. */
static uint64_t kb_size(struct gen_rng *r, double max)
{
	double x = exp(gen_rng_double(r) * log(max));

	return x < 1 ? 1 : (uint64_t)x;
}

static int kb_text(struct kbuild *kb, struct gen_ctx *c, struct gen_proc *p, uint32_t vi,
		   unsigned n)
{
	int rc;

	for (unsigned i = 0; i < n; i++) {
		uint64_t pg = kb->tperm[gen_zipf_next(&kb->tz, &c->rng)];

		rc = gen_proc_touch(c, p, vi, pg, MR_ACC_EXEC);
		if (rc)
			return rc;
		p->t += 3000;
	}
	return 0;
}

/*
 * Fault in heap pages [*grown, upto rounded up to a burst) the way an allocator hands out a fresh arena:
 * bursts of KB_HEAP_BURST pages at one instant. Concurrent compilers then do not
 * interleave page by page, so a task's heap has runs of consecutive page ids and its
 * FREE at exit stays a few range events.
 */
static int kb_heap_grow(struct gen_ctx *c, struct gen_proc *p, uint32_t vh, uint64_t *grown,
			uint64_t upto)
{
	int rc;

	upto = (upto + KB_HEAP_BURST - 1) / KB_HEAP_BURST * KB_HEAP_BURST;
	if (upto > p->vmas[vh].npages)
		upto = p->vmas[vh].npages;
	while (*grown < upto) {
		uint64_t e = *grown + KB_HEAP_BURST < upto ? *grown + KB_HEAP_BURST : upto;

		for (; *grown < e; ++*grown) {
			rc = gen_proc_touch(c, p, vh, *grown, MR_ACC_WRITE);
			if (rc)
				return rc;
		}
		p->t += 4000;
	}
	return 0;
}

/* Read all of f: through a private read-only mapping, or through read() calls. */
static int kb_read_file(struct kbuild *kb, struct gen_ctx *c, struct gen_proc *p,
			struct gen_file *f, uint64_t *addr)
{
	uint32_t vi;
	int rc;

	if (gen_rng_chance(&c->rng, kb->mmthr)) {
		rc = gen_proc_vma(c, p, *addr, f->npages, MR_VMA_READ, f, 0, 0, &vi);
		if (rc)
			return rc;
		*addr += (f->npages + 16) << GEN_PAGE_SHIFT;
		p->t += 4000;
		for (uint64_t pg = 0; pg < f->npages; pg++) {
			rc = gen_proc_touch(c, p, vi, pg, MR_ACC_READ);
			if (rc)
				return rc;
			p->t += 1500;
		}
		rc = gen_proc_unmap(c, p, vi);
		p->t += 3000;
		return rc;
	}
	p->t += 2000; /* open */
	for (uint64_t off = 0; off < f->npages; off += KB_READ_PAGES) {
		uint64_t n = f->npages - off < KB_READ_PAGES ? f->npages - off : KB_READ_PAGES;

		rc = gen_proc_read(c, p, f, off, (uint32_t)n);
		if (rc)
			return rc;
		p->t += 5000;
	}
	return 0;
}

static int kb_build(void *arg, struct gen_ctx *c, struct gen_proc *p, uint32_t k, uint32_t slot,
		    uint64_t t)
{
	struct kbuild *kb = arg;
	const struct mr_gen_values *v = kb->v;
	uint64_t heap = v->v[P_HEAP].u, hpt = v->v[P_HPT].u, grown = 0, addr = KB_MMAP_BASE;
	uint64_t step = heap / (hpt + 1) ? heap / (hpt + 1) : 1;
	uint64_t src_pages;
	uint32_t vt, vh;
	char path[160];
	int rc;

	gen_proc_reset(c, p, (int32_t)(10000 + k), (uint16_t)slot, kb->cg, "cc1", t);

	/* this compile's source and object files */
	src_pages = kb_size(&c->rng, 48);
	kb_path(path, sizeof(path), "/src/kernel", kb_dirs, NELEM(kb_dirs), k, ".c");
	rc = gen_file_open(c, &kb->src[k], path, src_pages, KB_RA_PAGES, kb->cg);
	if (rc)
		return rc;
	kb_path(path, sizeof(path), "/src/kernel", kb_dirs, NELEM(kb_dirs), k, ".o");
	rc = gen_file_open(c, &kb->obj[k], path, src_pages / 2 + 1, KB_RA_PAGES, kb->cg);
	if (rc)
		return rc;

	/* exec */
	rc = gen_proc_vma(c, p, KB_TEXT_BASE, kb->cc1.npages, MR_VMA_READ | MR_VMA_EXEC,
			  &kb->cc1, 0, 0, &vt);
	if (!rc)
		rc = gen_proc_vma(c, p, KB_HEAP_BASE, heap, MR_VMA_READ | MR_VMA_WRITE, NULL, 0, 0,
				  &vh);
	if (rc)
		return rc;
	p->t += 200000;
	rc = kb_text(kb, c, p, vt, 64);
	if (!rc)
		rc = kb_read_file(kb, c, p, &kb->src[k], &addr);
	if (rc)
		return rc;

	/* preprocess and parse: headers, heap growth, compiler text */
	for (uint64_t j = 0; j < hpt; j++) {
		uint64_t h = gen_zipf_next(&kb->hz, &c->rng);

		if (kb->hseen[h] != k + 1) {
			kb->hseen[h] = k + 1;
			rc = kb_read_file(kb, c, p, &kb->hdr[h], &addr);
			if (rc)
				return rc;
		}
		rc = kb_heap_grow(c, p, vh, &grown, (j + 1) * step);
		if (!rc)
			rc = kb_text(kb, c, p, vt, 4);
		if (rc)
			return rc;
	}
	rc = kb_heap_grow(c, p, vh, &grown, heap);
	if (rc)
		return rc;

	/* optimise and emit: work over the heap */
	for (uint64_t i = 0; i < heap; i++) {
		uint64_t x = gen_rng_next(&c->rng);

		rc = gen_proc_touch(c, p, vh, x % heap, (x >> 63) ? MR_ACC_WRITE : MR_ACC_READ);
		if (!rc && !(i & 7))
			rc = kb_text(kb, c, p, vt, 1);
		if (rc)
			return rc;
		p->t += 2000;
	}

	/* write the object */
	for (uint64_t off = 0; off < kb->obj[k].npages; off += KB_READ_PAGES) {
		uint64_t rest = kb->obj[k].npages - off;

		rc = gen_proc_write(c, p, &kb->obj[k], off,
				    (uint32_t)(rest < KB_READ_PAGES ? rest : KB_READ_PAGES));
		if (rc)
			return rc;
		p->t += 5000;
	}
	p->t += 10000;
	return gen_proc_exit(c, p);
}

static int kbuild_run(const struct mr_gen_values *v, struct mr_writer *w, struct mr_error *err)
{
	uint64_t ntasks = v->v[P_TASKS].u, nh = v->v[P_HEADERS].u, text = v->v[P_TEXT].u;
	struct kbuild kb = { .v = v, .mmthr = gen_prob(v->v[P_MMAP].d) };
	char path[160];
	struct gen_ctx c;
	int rc;

	rc = gen_begin(&c, "kbuild", v, w, err, 1);
	if (rc)
		return rc;
	kb.hdr = calloc(nh, sizeof(*kb.hdr));
	kb.src = calloc(ntasks, sizeof(*kb.src));
	kb.obj = calloc(ntasks, sizeof(*kb.obj));
	kb.hseen = calloc(nh, sizeof(*kb.hseen));
	kb.tperm = malloc(text * sizeof(*kb.tperm));
	if (!kb.hdr || !kb.src || !kb.obj || !kb.hseen || !kb.tperm) {
		rc = gen_nomem(&c, "the build's files");
		goto out;
	}
	if (gen_zipf_init(&kb.hz, nh, v->v[P_HSKEW].d) || gen_zipf_init(&kb.tz, text, 1.0)) {
		rc = mr_error_set(err, MR_EINVAL, "kbuild: bad header_skew %g", v->v[P_HSKEW].d);
		goto out;
	}
	gen_shuffle_u32(kb.tperm, (uint32_t)text, &c.rng);

	rc = gen_add_cgroup(&c, "/kbuild.slice", v->v[P_MAX].u, &kb.cg);
	if (!rc)
		rc = gen_file_open(&c, &kb.cc1, "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", text,
				   KB_RA_PAGES, kb.cg);
	if (rc)
		goto out;
	kb.cc1.exec = 1;
	for (uint64_t h = 0; h < nh; h++) {
		kb_path(path, sizeof(path), "/src/kernel", kb_hdirs, NELEM(kb_hdirs), h, ".h");
		rc = gen_file_open(&c, &kb.hdr[h], path, kb_size(&c.rng, 16), KB_RA_PAGES, kb.cg);
		if (rc)
			goto out;
	}
	rc = gen_run_procs(&c, (uint32_t)v->v[P_JOBS].u, (uint32_t)ntasks, 1000000, kb_build, &kb);
out:
	gen_file_release(&kb.cc1);
	for (uint64_t h = 0; kb.hdr && h < nh; h++)
		gen_file_release(&kb.hdr[h]);
	for (uint64_t k = 0; kb.src && kb.obj && k < ntasks; k++) {
		gen_file_release(&kb.src[k]);
		gen_file_release(&kb.obj[k]);
	}
	free(kb.hdr);
	free(kb.src);
	free(kb.obj);
	free(kb.hseen);
	free(kb.tperm);
	return rc;
}

const struct mr_gen mr_gen_kbuild = {
	.name = "kbuild",
	.help = "a kernel build in a memory cgroup: short-lived compilers, shared headers",
	.models = "seed 003: in-fault readahead placement (kernel build under memory.max)",
	.params = kbuild_params,
	.nparams = P_NR,
	.run = kbuild_run,
};
