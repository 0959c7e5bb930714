// SPDX-License-Identifier: GPL-2.0
/*
 * gen_emit.c - how generators say things: metadata rows, events with dense page ids,
 * and the small host model they describe a workload with (page cache and readahead per
 * file, faults per mapping, task scripts merged by time). See gen_priv.h.
 *
 * Readahead follows mm/readahead.c in shape: get_init_ra_size()/get_next_ra_size()
 * window sizes, a PG_readahead mark async_size pages before a window's end that starts
 * the next (async) window, and mmap read-around (do_sync_mmap_readahead(): a window of
 * ra_pages centred on the fault, async_size ra_pages/4). It differs where a window meets
 * cached pages: only the uncached run around the demanded index is read, so one window
 * is one READAHEAD event over consecutive new ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_priv.h"
#include "mr_util.h"

#define GEN_DEV ((8u << 20) | 3u) /* kernel dev_t of sda3: MKDEV(8, 3) */

int gen_fail(struct gen_ctx *c, int rc, const char *what)
{
	const struct mr_error *we = mr_writer_error(c->w);

	if (we && we->msg[0])
		return mr_error_set(c->err, rc, "%s: %s", c->name, we->msg);
	return mr_error_set(c->err, rc, "%s: writing %s failed: %s", c->name, what,
			    mr_strerror(rc));
}

int gen_nomem(struct gen_ctx *c, const char *what)
{
	return mr_error_set(c->err, MR_ENOMEM, "%s: out of memory for %s", c->name, what);
}

int gen_begin(struct gen_ctx *c, const char *name, const struct mr_gen_values *v,
	      struct mr_writer *w, struct mr_error *err, unsigned nodes)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->w = w;
	c->err = err;
	c->name = name;
	gen_rng_seed(&c->rng, v->seed);
	c->next_task = c->next_mm = c->next_file = c->next_vma = c->next_cgroup = 1;
	c->next_marker = 1;
	c->next_ino = 1000;
	rc = mr_writer_add_stream(w, "synthetic", name, -1, &c->stream);
	if (rc)
		return gen_fail(c, rc, "the stream row");
	rc = mr_writer_set_meta_u64(w, "nodes", nodes);
	if (rc)
		return gen_fail(c, rc, "meta 'nodes'");
	return 0;
}

/* ---- events ---- */

static int emit_marker_at(struct gen_ctx *c, uint64_t t, const char *text)
{
	struct mr_event ev = {
		.time = t, .page = MR_PAGE_NONE, .kind = MR_EV_MARKER,
	};
	uint32_t id = c->next_marker++;
	int rc;

	ev.arg = id;
	rc = mr_writer_add_marker(c->w, id, t, text);
	if (rc)
		return gen_fail(c, rc, "a marker row");
	rc = mr_writer_append(c->w, c->stream, &ev);
	if (rc)
		return gen_fail(c, rc, "a marker event");
	c->events++;
	return 0;
}

static int flush_markers(struct gen_ctx *c, uint64_t t)
{
	char text[128];
	int rc;

	while (c->mk_left && c->mk_next <= t) {
		snprintf(text, sizeof(text), "%s %u", c->mk_text, c->next_marker);
		rc = emit_marker_at(c, c->mk_next, text);
		if (rc)
			return rc;
		c->mk_left--;
		c->mk_next += c->mk_every;
	}
	return 0;
}

int gen_emit(struct gen_ctx *c, uint8_t kind, uint32_t page, uint32_t task, uint16_t cpu,
	     uint8_t flags, uint32_t size, uint64_t arg)
{
	struct mr_event ev = {
		.time = c->now, .arg = arg, .page = page, .task = task,
		.size = size, .cpu = cpu, .kind = kind, .flags = flags,
	};
	int rc;

	if (c->mk_left && c->mk_next <= c->now) {
		rc = flush_markers(c, c->now);
		if (rc)
			return rc;
	}
	rc = mr_writer_append(c->w, c->stream, &ev);
	if (rc)
		return gen_fail(c, rc, "an event");
	c->events++;
	return 0;
}

void gen_markers_every(struct gen_ctx *c, uint64_t first, uint64_t every, uint64_t count,
		       const char *text)
{
	c->mk_next = first;
	c->mk_every = every ? every : 1;
	c->mk_left = count;
	c->mk_text = text;
}

int gen_markers_until(struct gen_ctx *c, uint64_t t)
{
	int rc = flush_markers(c, t);

	if (!rc && t > c->now)
		c->now = t;
	return rc;
}

int gen_marker(struct gen_ctx *c, const char *text)
{
	int rc = flush_markers(c, c->now);

	return rc ? rc : emit_marker_at(c, c->now, text);
}

/* ---- rows ---- */

int gen_add_cgroup(struct gen_ctx *c, const char *path, uint64_t memory_max_pages, uint32_t *id)
{
	struct mr_cgroup cg = {
		.id = c->next_cgroup++, .path = path, .memory_max = memory_max_pages * MR_PAGE_SIZE,
	};
	int rc = mr_writer_add_cgroup(c->w, &cg);

	if (rc)
		return gen_fail(c, rc, "a cgroup row");
	*id = cg.id;
	return 0;
}

int gen_add_mm(struct gen_ctx *c, int32_t tgid, const char *comm, uint32_t *id)
{
	uint32_t mm = c->next_mm++;
	int rc = mr_writer_add_mm(c->w, mm, tgid, comm);

	if (rc)
		return gen_fail(c, rc, "an mm row");
	*id = mm;
	return 0;
}

int gen_add_task(struct gen_ctx *c, int32_t pid, int32_t tgid, uint32_t mm, uint32_t cgroup,
		 const char *comm, uint64_t start_ns, uint64_t end_ns, uint32_t *id)
{
	struct mr_task t = {
		.id = c->next_task++, .pid = pid, .tgid = tgid, .mm = mm, .cgroup = cgroup,
		.comm = comm, .start_ns = start_ns, .end_ns = end_ns,
	};
	int rc = mr_writer_add_task(c->w, &t);

	if (rc)
		return gen_fail(c, rc, "a task row");
	*id = t.id;
	return 0;
}

static int new_page(struct gen_ctx *c, struct mr_page *p)
{
	int rc;

	if (c->next_page == MR_PAGE_NONE)
		return mr_error_set(c->err, MR_ERANGE,
				    "%s: more than %u distinct pages: use smaller sizes or counts",
				    c->name, MR_PAGE_NONE - 1);
	p->id = c->next_page++;
	rc = mr_writer_add_page(c->w, p);
	if (rc)
		return gen_fail(c, rc, "a page row");
	return 0;
}

int gen_page_anon(struct gen_ctx *c, uint32_t mm, uint64_t vpage, uint32_t cgroup, int16_t node,
		  uint32_t *id)
{
	struct mr_page p = {
		.type = MR_PAGE_ANON, .node = node, .cgroup = cgroup, .mm = mm, .vpage = vpage,
	};
	int rc = new_page(c, &p);

	if (!rc)
		*id = p.id;
	return rc;
}

/* ---- page cache ---- */

int gen_file_open(struct gen_ctx *c, struct gen_file *f, const char *path, uint64_t npages,
		  uint32_t ra_pages, uint32_t cgroup)
{
	struct mr_file row;
	int rc;

	memset(f, 0, sizeof(*f));
	if (!npages)
		npages = 1;
	f->page = malloc(npages * sizeof(*f->page));
	if (!f->page)
		return gen_nomem(c, "a file's page cache");
	memset(f->page, 0xff, npages * sizeof(*f->page)); /* MR_PAGE_NONE */
	f->id = c->next_file++;
	f->npages = npages;
	f->ra_pages = ra_pages;
	f->cgroup = cgroup;
	f->ra_mark = UINT64_MAX;
	row = (struct mr_file){
		.id = f->id, .dev = GEN_DEV, .ino = c->next_ino++, .path = path,
		.size_pages = npages,
	};
	rc = mr_writer_add_file(c->w, &row);
	if (rc) {
		gen_file_release(f);
		return gen_fail(c, rc, "a file row");
	}
	return 0;
}

void gen_file_release(struct gen_file *f)
{
	if (!f)
		return;
	free(f->page);
	f->page = NULL;
}

/* Page rows for the uncached run [lo, hi): consecutive new ids. */
static int alloc_run(struct gen_ctx *c, struct gen_file *f, uint64_t lo, uint64_t hi)
{
	struct mr_page p = {
		.type = MR_PAGE_FILE, .exec = f->exec, .node = f->node, .cgroup = f->cgroup,
		.file = f->id,
	};
	int rc;

	for (uint64_t i = lo; i < hi; i++) {
		(void)MR_WARN_ON_ONCE(f->page[i] != MR_PAGE_NONE);
		p.index = i;
		rc = new_page(c, &p);
		if (rc)
			return rc;
		f->page[i] = p.id;
	}
	return 0;
}

/* PC_INSERT per folio over [lo, hi): the largest aligned order that fits, up to
 * f->max_order (as page_cache_ra_order() builds large folios). */
static int emit_inserts(struct gen_ctx *c, struct gen_file *f, uint64_t lo, uint64_t hi,
			uint8_t pcflags, uint32_t task, uint16_t cpu)
{
	uint64_t i = lo;
	int rc;

	while (i < hi) {
		unsigned order = 0;

		while (order < f->max_order && !(i & ((2ull << order) - 1)) &&
		       i + (2ull << order) <= hi)
			order++;
		rc = gen_emit(c, MR_EV_PC_INSERT, f->page[i], task, cpu,
			      (uint8_t)(order | pcflags), 0, 0);
		if (rc)
			return rc;
		i += 1ull << order;
	}
	return 0;
}

/* One event per run of consecutive ids in ids[0..n) (MR_PAGE_NONE entries skipped). */
static int emit_runs(struct gen_ctx *c, uint8_t kind, const uint32_t *ids, uint64_t n,
		     uint8_t flags, uint32_t task, uint16_t cpu)
{
	uint64_t i = 0;
	int rc;

	while (i < n) {
		uint64_t j = i + 1;

		if (ids[i] == MR_PAGE_NONE) {
			i++;
			continue;
		}
		while (j < n && ids[j] != MR_PAGE_NONE && ids[j] == ids[j - 1] + 1 &&
		       j - i < UINT32_MAX)
			j++;
		rc = gen_emit(c, kind, ids[i], task, cpu, flags, (uint32_t)(j - i), 0);
		if (rc)
			return rc;
		i = j;
	}
	return 0;
}

static uint32_t roundup_pow2(uint64_t x)
{
	uint32_t r = 1;

	while (r < x && r < (1u << 30))
		r <<= 1;
	return r;
}

/* mm/readahead.c:get_init_ra_size() */
static uint32_t init_ra_size(uint64_t req, uint32_t max)
{
	uint32_t size = roundup_pow2(req);

	if (size <= max / 32)
		size *= 4;
	else if (size <= max / 4)
		size *= 2;
	else
		size = max;
	return size ? size : 1;
}

/* mm/readahead.c:get_next_ra_size() */
static uint32_t next_ra_size(uint32_t cur, uint32_t max)
{
	if (!cur)
		return init_ra_size(1, max);
	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/*
 * A readahead window [start, start+size) with async_size, demanded at index `at`:
 * inserts the uncached run containing `at`, clamped to the window and the file, as one
 * READAHEAD and its PC_INSERTs; sets the PG_readahead mark when it falls in that run.
 * Nothing happens when `at` is cached or outside the window.
 */
static int ra_window(struct gen_ctx *c, struct gen_file *f, uint64_t start, uint64_t size,
		     uint64_t async, uint8_t raflags, uint64_t at, uint32_t task, uint16_t cpu)
{
	uint64_t end = start + size < f->npages ? start + size : f->npages;
	uint64_t lo = at, hi = at + 1, mark;
	int rc;

	if (at < start || at >= end || f->page[at] != MR_PAGE_NONE)
		return 0;
	while (lo > start && f->page[lo - 1] == MR_PAGE_NONE)
		lo--;
	while (hi < end && f->page[hi] == MR_PAGE_NONE)
		hi++;
	rc = alloc_run(c, f, lo, hi);
	if (rc)
		return rc;
	rc = gen_emit(c, MR_EV_READAHEAD, f->page[lo], task, cpu, raflags, (uint32_t)(hi - lo),
		      async < hi - lo ? async : hi - lo);
	if (rc)
		return rc;
	rc = emit_inserts(c, f, lo, hi, (raflags & MR_RA_IN_FAULT) ? MR_PC_IN_FAULT : 0, task,
			  cpu);
	if (rc)
		return rc;
	f->ra_next = start + size;
	f->ra_size = (uint32_t)size;
	mark = start + size - async;
	f->ra_mark = (async && async <= size && mark >= lo && mark < hi) ? mark : UINT64_MAX;
	return 0;
}

/* The async window a hit on the PG_readahead mark starts (page_cache_async_ra()). */
static int ra_async(struct gen_ctx *c, struct gen_file *f, uint8_t raflags, uint32_t task,
		    uint16_t cpu)
{
	uint32_t size = next_ra_size(f->ra_size, f->ra_pages);

	f->ra_mark = UINT64_MAX;
	return ra_window(c, f, f->ra_next, size, size, raflags | MR_RA_ASYNC, f->ra_next, task,
			 cpu);
}

/* Insert [lo, hi') for the uncached run starting at lo inside [lo, hi) without readahead. */
static int insert_plain(struct gen_ctx *c, struct gen_file *f, uint64_t lo, uint64_t hi,
			uint8_t pcflags, uint32_t task, uint16_t cpu, uint64_t *end)
{
	uint64_t e = lo;
	int rc;

	while (e < hi && f->page[e] == MR_PAGE_NONE)
		e++;
	rc = alloc_run(c, f, lo, e);
	if (!rc)
		rc = emit_inserts(c, f, lo, e, pcflags, task, cpu);
	*end = e;
	return rc;
}

int gen_file_read(struct gen_ctx *c, struct gen_file *f, uint64_t first, uint64_t n,
		  uint32_t task, uint16_t cpu)
{
	uint64_t end = first + n < f->npages ? first + n : f->npages;
	int rc;

	if (first >= end)
		return 0;
	for (uint64_t i = first; i < end; i++) {
		if (f->page[i] == MR_PAGE_NONE) {
			uint64_t req = end - i, size, async;

			if (!f->ra_pages) {
				uint64_t e;

				rc = insert_plain(c, f, i, end, 0, task, cpu, &e);
				if (rc)
					return rc;
				i = e - 1;
				continue;
			}
			if (f->ra_size && i == f->ra_next) { /* sequential: ramp up */
				size = next_ra_size(f->ra_size, f->ra_pages);
				async = size;
			} else {
				size = init_ra_size(req, f->ra_pages);
				async = size > req ? size - req : size;
			}
			rc = ra_window(c, f, i, size, async, 0, i, task, cpu);
			if (rc)
				return rc;
		}
		if (i == f->ra_mark) {
			rc = ra_async(c, f, 0, task, cpu);
			if (rc)
				return rc;
		}
	}
	return emit_runs(c, MR_EV_FD_ACCESS, f->page + first, end - first, MR_ACC_READ, task, cpu);
}

int gen_file_write(struct gen_ctx *c, struct gen_file *f, uint64_t first, uint64_t n,
		   uint32_t task, uint16_t cpu)
{
	uint64_t end = first + n < f->npages ? first + n : f->npages;
	int rc;

	if (first >= end)
		return 0;
	for (uint64_t i = first; i < end; i++) {
		if (f->page[i] == MR_PAGE_NONE) {
			uint64_t e;

			rc = insert_plain(c, f, i, end, 0, task, cpu, &e);
			if (rc)
				return rc;
			i = e - 1;
		}
	}
	return emit_runs(c, MR_EV_FD_ACCESS, f->page + first, end - first, MR_ACC_WRITE, task,
			 cpu);
}

/* ---- mappings ---- */

int gen_vma_init(struct gen_ctx *c, struct gen_vma *v, uint32_t mm, uint64_t start,
		 uint64_t npages, uint32_t flags, struct gen_file *file, uint64_t pgoff,
		 uint32_t cgroup, int16_t node)
{
	memset(v, 0, sizeof(*v));
	if (!npages)
		npages = 1;
	if (file) {
		v->mapped = calloc(npages, 1);
		if (!v->mapped)
			return gen_nomem(c, "a mapping");
		flags |= MR_VMA_FILE;
	} else {
		v->anon = malloc(npages * sizeof(*v->anon));
		if (!v->anon)
			return gen_nomem(c, "a mapping");
		memset(v->anon, 0xff, npages * sizeof(*v->anon));
	}
	v->id = c->next_vma++;
	v->mm = mm;
	v->flags = flags;
	v->cgroup = cgroup;
	v->node = node;
	v->start = start;
	v->npages = npages;
	v->file = file;
	v->pgoff = pgoff;
	return 0;
}

int gen_vma_row(struct gen_ctx *c, const struct gen_vma *v)
{
	struct mr_vma_row r = {
		.id = v->id, .mm = v->mm, .start = v->start,
		.end = v->start + (v->npages << GEN_PAGE_SHIFT), .flags = v->flags,
		.file = v->file ? v->file->id : 0, .pgoff = v->pgoff, .map_ns = v->map_ns,
		.unmap_ns = v->unmap_ns,
	};
	int rc = mr_writer_add_vma(c->w, &r);

	return rc ? gen_fail(c, rc, "a vma row") : 0;
}

void gen_vma_release(struct gen_vma *v)
{
	if (!v)
		return;
	free(v->anon);
	free(v->mapped);
	v->anon = NULL;
	v->mapped = NULL;
}

int gen_vma_map(struct gen_ctx *c, const struct gen_vma *v, uint32_t task, uint16_t cpu)
{
	return gen_emit(c, MR_EV_MAP, MR_PAGE_NONE, task, cpu, (uint8_t)v->flags, 0, v->id);
}

/* First touch of a file page in this mapping: fill the page cache if needed
 * (filemap_fault(): do_sync_mmap_readahead() on a miss, do_async_mmap_readahead() on
 * the PG_readahead mark), then FAULT. Returns the page id in *id. */
static int fault_file(struct gen_ctx *c, struct gen_vma *v, uint64_t idx, uint8_t fflags,
		      uint32_t task, uint16_t cpu, uint64_t addr)
{
	struct gen_file *f = v->file;
	uint32_t ra = f->ra_pages;
	int rc = 0;

	if (f->page[idx] == MR_PAGE_NONE) {
		fflags |= MR_FAULT_MAJOR;
		if (!ra || (v->flags & MR_VMA_RAND_READ)) {
			uint64_t e;

			rc = insert_plain(c, f, idx, idx + 1, MR_PC_IN_FAULT, task, cpu, &e);
		} else if (v->flags & MR_VMA_SEQ_READ) {
			rc = ra_window(c, f, idx, ra, ra / 4, MR_RA_IN_FAULT, idx, task, cpu);
		} else {
			uint64_t start = idx > ra / 2 ? idx - ra / 2 : 0;

			rc = ra_window(c, f, start, ra, ra / 4, MR_RA_IN_FAULT, idx, task, cpu);
		}
	} else if (idx == f->ra_mark && ra && !(v->flags & MR_VMA_RAND_READ)) {
		rc = ra_async(c, f, MR_RA_IN_FAULT, task, cpu);
	}
	if (rc)
		return rc;
	return gen_emit(c, MR_EV_FAULT, f->page[idx], task, cpu, fflags, 0, addr);
}

int gen_vma_touch(struct gen_ctx *c, struct gen_vma *v, uint64_t pg, uint8_t rwx, uint32_t task,
		  uint16_t cpu)
{
	uint8_t fflags = rwx & (MR_ACC_WRITE | MR_ACC_EXEC);
	uint64_t addr = v->start + (pg << GEN_PAGE_SHIFT);
	uint32_t id;
	int rc;

	if (pg >= v->npages) {
		(void)MR_WARN_ON_ONCE(1);
		return mr_error_set(c->err, MR_EINVAL, "%s: page %llu outside vma %u", c->name,
				    (unsigned long long)pg, v->id);
	}
	if (v->file) {
		uint64_t idx = v->pgoff + pg;

		if (v->mapped[pg])
			return gen_emit(c, MR_EV_ACCESS, v->file->page[idx], task, cpu,
					MR_ACC_FLAGS(rwx, MR_SRC_SYNTH), 0, 0);
		rc = fault_file(c, v, idx, fflags, task, cpu, addr);
		if (rc)
			return rc;
		v->mapped[pg] = 1;
		id = v->file->page[idx];
	} else {
		id = v->anon[pg];
		if (id != MR_PAGE_NONE)
			return gen_emit(c, MR_EV_ACCESS, id, task, cpu,
					MR_ACC_FLAGS(rwx, MR_SRC_SYNTH), 0, 0);
		rc = gen_page_anon(c, v->mm, (v->start >> GEN_PAGE_SHIFT) + pg, v->cgroup, v->node,
				   &id);
		if (rc)
			return rc;
		v->anon[pg] = id;
		/* A first read of anon memory would map the zero page; the synthetic
		 * workloads allocate what they touch, so the first touch writes. */
		rwx |= MR_ACC_WRITE;
		rc = gen_emit(c, MR_EV_FAULT, id, task, cpu, fflags | MR_ACC_WRITE, 0, addr);
		if (rc)
			return rc;
	}
	return gen_emit(c, MR_EV_ACCESS, id, task, cpu, MR_ACC_FLAGS(rwx, MR_SRC_FAULT), 0, 0);
}

int gen_vma_unmap(struct gen_ctx *c, struct gen_vma *v, uint32_t task, uint16_t cpu)
{
	int rc = gen_emit(c, MR_EV_UNMAP, MR_PAGE_NONE, task, cpu, 0, 0, v->id);

	if (rc || v->file)
		return rc;
	rc = emit_runs(c, MR_EV_FREE, v->anon, v->npages, 0, task, cpu);
	memset(v->anon, 0xff, v->npages * sizeof(*v->anon));
	return rc;
}

/* ---- task scripts ---- */

void gen_proc_reset(struct gen_ctx *c, struct gen_proc *p, int32_t pid, uint16_t cpu,
		    uint32_t cgroup, const char *comm, uint64_t t)
{
	for (uint32_t i = 0; i < p->nvmas; i++)
		gen_vma_release(&p->vmas[i]);
	p->nvmas = 0;
	p->nops = 0;
	p->pos = 0;
	p->task = c->next_task++;
	p->mm = c->next_mm++;
	p->pid = pid;
	p->cpu = cpu;
	p->cgroup = cgroup;
	p->comm = comm;
	p->t = t;
}

static struct gen_op *push_op(struct gen_ctx *c, struct gen_proc *p, uint8_t type)
{
	struct gen_op *op;

	if (p->nops == p->cap_ops) {
		size_t cap = p->cap_ops ? 2 * p->cap_ops : 1024;
		struct gen_op *ops = realloc(p->ops, cap * sizeof(*ops));

		if (!ops) {
			gen_nomem(c, "a task script");
			return NULL;
		}
		p->ops = ops;
		p->cap_ops = cap;
	}
	op = &p->ops[p->nops++];
	memset(op, 0, sizeof(*op));
	op->t = p->t;
	op->type = type;
	return op;
}

int gen_proc_vma(struct gen_ctx *c, struct gen_proc *p, uint64_t start, uint64_t npages,
		 uint32_t flags, struct gen_file *file, uint64_t pgoff, int16_t node, uint32_t *vi)
{
	struct gen_op *op;
	int rc;

	if (p->nvmas == p->cap_vmas) {
		uint32_t cap = p->cap_vmas ? 2 * p->cap_vmas : 16;
		struct gen_vma *vmas = realloc(p->vmas, cap * sizeof(*vmas));

		if (!vmas)
			return gen_nomem(c, "a task's mappings");
		p->vmas = vmas;
		p->cap_vmas = cap;
	}
	rc = gen_vma_init(c, &p->vmas[p->nvmas], p->mm, start, npages, flags, file, pgoff,
			  p->cgroup, node);
	if (rc)
		return rc;
	p->vmas[p->nvmas].map_ns = p->t;
	op = push_op(c, p, GOP_MAP);
	if (!op) {
		gen_vma_release(&p->vmas[p->nvmas]);
		return MR_ENOMEM;
	}
	op->u.vma = p->nvmas;
	*vi = p->nvmas++;
	return 0;
}

int gen_proc_touch(struct gen_ctx *c, struct gen_proc *p, uint32_t vi, uint64_t pg, uint8_t rwx)
{
	struct gen_op *op = push_op(c, p, GOP_TOUCH);

	if (!op)
		return MR_ENOMEM;
	op->u.vma = vi;
	op->idx = pg;
	op->rwx = rwx;
	return 0;
}

static int push_io(struct gen_ctx *c, struct gen_proc *p, uint8_t type, struct gen_file *f,
		   uint64_t first, uint32_t n)
{
	struct gen_op *op = push_op(c, p, type);

	if (!op)
		return MR_ENOMEM;
	op->u.file = f;
	op->idx = first;
	op->n = n;
	return 0;
}

int gen_proc_read(struct gen_ctx *c, struct gen_proc *p, struct gen_file *f, uint64_t first,
		  uint32_t n)
{
	return push_io(c, p, GOP_READ, f, first, n);
}

int gen_proc_write(struct gen_ctx *c, struct gen_proc *p, struct gen_file *f, uint64_t first,
		   uint32_t n)
{
	return push_io(c, p, GOP_WRITE, f, first, n);
}

int gen_proc_unmap(struct gen_ctx *c, struct gen_proc *p, uint32_t vi)
{
	struct gen_op *op;

	if (vi >= p->nvmas || p->vmas[vi].unmapped) {
		(void)MR_WARN_ON_ONCE(1);
		return mr_error_set(c->err, MR_EINVAL, "%s: bad unmap in a task script", c->name);
	}
	op = push_op(c, p, GOP_UNMAP);
	if (!op)
		return MR_ENOMEM;
	op->u.vma = vi;
	p->vmas[vi].unmapped = 1;
	p->vmas[vi].unmap_ns = p->t;
	return 0;
}

int gen_proc_exit(struct gen_ctx *c, struct gen_proc *p)
{
	int rc;

	for (uint32_t i = 0; i < p->nvmas; i++) {
		if (p->vmas[i].unmapped)
			continue;
		rc = gen_proc_unmap(c, p, i);
		if (rc)
			return rc;
	}
	return push_op(c, p, GOP_EXIT) ? 0 : MR_ENOMEM;
}

void gen_proc_release(struct gen_proc *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->nvmas; i++)
		gen_vma_release(&p->vmas[i]);
	free(p->vmas);
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

/* Rows for a freshly built script: mm, task (start/end from the script), VMAs. */
static int proc_rows(struct gen_ctx *c, struct gen_proc *p)
{
	struct mr_task t;
	int rc;

	if (!p->nops || p->ops[p->nops - 1].type != GOP_EXIT) {
		(void)MR_WARN_ON_ONCE(1);
		return mr_error_set(c->err, MR_EINVAL, "%s: a task script must end in exit",
				    c->name);
	}
	rc = mr_writer_add_mm(c->w, p->mm, p->pid, p->comm);
	if (rc)
		return gen_fail(c, rc, "an mm row");
	t = (struct mr_task){
		.id = p->task, .pid = p->pid, .tgid = p->pid, .mm = p->mm, .cgroup = p->cgroup,
		.comm = p->comm, .start_ns = p->ops[0].t, .end_ns = p->ops[p->nops - 1].t,
	};
	rc = mr_writer_add_task(c->w, &t);
	if (rc)
		return gen_fail(c, rc, "a task row");
	for (uint32_t i = 0; i < p->nvmas; i++) {
		rc = gen_vma_row(c, &p->vmas[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int proc_step(struct gen_ctx *c, struct gen_proc *p)
{
	const struct gen_op *op = &p->ops[p->pos++];

	c->now = op->t;
	switch (op->type) {
	case GOP_MAP:
		return gen_vma_map(c, &p->vmas[op->u.vma], p->task, p->cpu);
	case GOP_TOUCH:
		return gen_vma_touch(c, &p->vmas[op->u.vma], op->idx, op->rwx, p->task, p->cpu);
	case GOP_READ:
		return gen_file_read(c, op->u.file, op->idx, op->n, p->task, p->cpu);
	case GOP_WRITE:
		return gen_file_write(c, op->u.file, op->idx, op->n, p->task, p->cpu);
	case GOP_UNMAP:
		return gen_vma_unmap(c, &p->vmas[op->u.vma], p->task, p->cpu);
	case GOP_EXIT:
		return gen_emit(c, MR_EV_EXIT, MR_PAGE_NONE, p->task, p->cpu, 0, 0, 0);
	}
	return mr_error_set(c->err, MR_EINVAL, "%s: bad op in a task script", c->name);
}

int gen_run_procs(struct gen_ctx *c, uint32_t nslots, uint32_t ntasks, uint64_t gap_ns,
		  gen_build_fn build, void *arg)
{
	struct gen_proc *procs;
	uint8_t *live;
	uint32_t k = 0;
	int rc = 0;

	if (nslots > ntasks)
		nslots = ntasks;
	if (!nslots)
		return 0;
	procs = calloc(nslots, sizeof(*procs));
	live = calloc(nslots, 1);
	if (!procs || !live) {
		rc = gen_nomem(c, "task slots");
		goto out;
	}
	for (uint32_t s = 0; s < nslots; s++) {
		rc = build(arg, c, &procs[s], k++, s, c->now + s * gap_ns);
		if (!rc)
			rc = proc_rows(c, &procs[s]);
		if (rc)
			goto out;
		live[s] = 1;
	}
	for (;;) {
		uint32_t best = UINT32_MAX;
		uint64_t best_t = UINT64_MAX;
		struct gen_proc *p;

		for (uint32_t s = 0; s < nslots; s++) {
			if (live[s] && procs[s].ops[procs[s].pos].t < best_t) {
				best = s;
				best_t = procs[s].ops[procs[s].pos].t;
			}
		}
		if (best == UINT32_MAX)
			break;
		p = &procs[best];
		rc = proc_step(c, p);
		if (rc)
			goto out;
		if (p->pos < p->nops)
			continue;
		if (k == ntasks) {
			live[best] = 0;
			continue;
		}
		rc = build(arg, c, p, k++, best, p->ops[p->nops - 1].t + gap_ns);
		if (!rc)
			rc = proc_rows(c, p);
		if (rc)
			goto out;
	}
out:
	if (procs)
		for (uint32_t s = 0; s < nslots; s++)
			gen_proc_release(&procs[s]);
	free(procs);
	free(live);
	return rc;
}

int gen_single_anon(struct gen_ctx *c, const char *cg_path, uint64_t memory_max, int32_t pid,
		    const char *comm, uint64_t start, uint64_t pages, struct gen_vma *v,
		    uint32_t *task)
{
	uint32_t cg, mm;
	int rc = gen_add_cgroup(c, cg_path, memory_max, &cg);

	if (!rc)
		rc = gen_add_mm(c, pid, comm, &mm);
	if (!rc)
		rc = gen_add_task(c, pid, pid, mm, cg, comm, 0, 0, task);
	if (!rc)
		rc = gen_vma_init(c, v, mm, start, pages, MR_VMA_READ | MR_VMA_WRITE, NULL, 0, cg, 0);
	if (!rc)
		rc = gen_vma_row(c, v);
	if (!rc)
		rc = gen_vma_map(c, v, *task, 0);
	return rc;
}
