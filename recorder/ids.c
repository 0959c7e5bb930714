// SPDX-License-Identifier: GPL-2.0
/*
 * ids.c - dense ids for what the recorder sees: tasks (by tid), address spaces (one per
 * process image: a fork copies the parent's VMAs, an exec starts a new one), files (by
 * dev, ino), pages (anon by (mm, vpage), file by (file, index)), and the VMAs of each mm
 * kept sorted so a fault address resolves to anon or file+index.
 *
 * Rows go to the writer when an id is created, so every chunk committed after an event
 * has the rows it references. Tables grow by doubling: memory is proportional to the
 * number of distinct pages/tasks, never to the number of events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_int.h"
#include "mr_util.h"


/* Keyed hash for --anonymize: a keyed mix, not reversible without the key. */
uint64_t rec_hash(const struct rec *r, uint64_t v)
{
	return mr_mix64(mr_mix64(v ^ r->anon_key) + r->anon_key);
}

static int htab_grow(struct rec_htab *h)
{
	size_t ncap = h->cap ? h->cap * 2 : 1024;
	struct rec_hent *ne = calloc(ncap, sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		struct rec_hent *o = &h->e[i];
		size_t j;

		if (!o->used)
			continue;
		j = mr_mix64(o->k1 * 31 + o->k2) & (ncap - 1);
		while (ne[j].used)
			j = (j + 1) & (ncap - 1);
		ne[j] = *o;
	}
	free(h->e);
	h->e = ne;
	h->cap = ncap;
	return 0;
}

struct rec_hent *rec_htab_slot(struct rec_htab *h, uint64_t k1, uint64_t k2, int *found)
{
	size_t j;

	if ((h->n + 1) * 2 > h->cap && htab_grow(h))
		return NULL;
	j = mr_mix64(k1 * 31 + k2) & (h->cap - 1);
	while (h->e[j].used) {
		if (h->e[j].k1 == k1 && h->e[j].k2 == k2) {
			*found = 1;
			return &h->e[j];
		}
		j = (j + 1) & (h->cap - 1);
	}
	*found = 0;
	h->e[j].k1 = k1;
	h->e[j].k2 = k2;
	h->e[j].used = 1;
	h->n++;
	return &h->e[j];
}

/* Lookup only: the value of (k1, k2), or MR_PAGE_NONE when absent. */
static uint32_t htab_find(const struct rec_htab *h, uint64_t k1, uint64_t k2)
{
	size_t j;

	if (!h->cap)
		return MR_PAGE_NONE;
	j = mr_mix64(k1 * 31 + k2) & (h->cap - 1);
	while (h->e[j].used) {
		if (h->e[j].k1 == k1 && h->e[j].k2 == k2)
			return h->e[j].val;
		j = (j + 1) & (h->cap - 1);
	}
	return MR_PAGE_NONE;
}

void rec_htab_free(struct rec_htab *h)
{
	free(h->e);
	memset(h, 0, sizeof(*h));
}

static int grow(void **p, uint32_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	memset((char *)np + *cap * elem, 0, (ncap - *cap) * elem);
	*p = np;
	*cap = (uint32_t)ncap;
	return 0;
}

/* Write events through here: clamps time to the stream's last (rings are per CPU and
 * time-ordered, but a record can carry a time a few ns behind its predecessor). */
int rec_emit(struct rec *r, uint32_t stream, uint64_t *last, struct mr_event *ev)
{
	int rc;

	if (ev->time < *last)
		ev->time = *last;
	*last = ev->time;
	rc = mr_writer_append(r->w, stream, ev);
	if (rc < 0) {
		r->write_failed = rc;
		return rc;
	}
	if (ev->kind < MR_EV_NR_KINDS)
		r->st->by_kind[ev->kind]++;
	r->st->events++;
	return 0;
}

static void read_comm(int32_t tid, char *buf, size_t cap)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)cap, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/*
 * Has tid begun to exit (or is it gone)? An exiting task leaves its cgroups in
 * do_exit() -> cgroup_exit() before exit_notify() makes it a zombie, and from then on
 * /proc/TID/cgroup shows the root of every hierarchy, not the cgroup it ran in
 * (kernel/cgroup/cgroup.c, kernel/exit.c). Read after the cgroup file: a task not yet
 * exiting here was not exiting when that file was read. PF_EXITING is flags bit 0x4
 * (include/linux/sched.h), the 9th field of /proc/TID/stat (proc(5)).
 */
static int task_exiting(int32_t tid)
{
	char path[64], line[1024];
	unsigned long flags = 0;
	const char *st;
	char state = 0;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	f = fopen(path, "re");
	if (!f)
		return 1;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	st = ok ? strrchr(line, ')') : NULL;
	if (!st || sscanf(st + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return 1;
	return state == 'Z' || state == 'X' || (flags & 0x4);
}

static uint32_t cgroup_id(struct rec *r, char *cg);

/* Memory cgroup of tid (v1 memory controller, else v2): dense id, row with its limit. */
static uint32_t task_cgroup(struct rec *r, int32_t tid)
{
	char path[4200], line[4096], *cg = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *m = strstr(line, ":memory:");

		line[strcspn(line, "\n")] = '\0';
		if (m) {
			free(cg);
			cg = strdup(m + 8);
			break;
		}
		if (!strncmp(line, "0::", 3) && !cg)
			cg = strdup(line + 3);
	}
	fclose(f);
	if (!cg)
		return 0;
	if (task_exiting(tid)) {
		free(cg);
		return 0;
	}
	return cgroup_id(r, cg);
}

/* Dense id of the memory cgroup at path (relative to its hierarchy's root), a row with
 * its limit for a new one; takes cg (malloc'd). 0 on ENOMEM. */
static uint32_t cgroup_id(struct rec *r, char *cg)
{
	char path[4200], line[4096], **np;
	struct mr_cgroup row;
	unsigned long long lim = 0;
	FILE *f;

	for (uint32_t i = 0; i < r->ncg; i++)
		if (!strcmp(r->cg_paths[i], cg)) {
			free(cg);
			return i + 1;
		}
	np = realloc(r->cg_paths, (r->ncg + 1) * sizeof(*np));
	if (!np) {
		free(cg);
		return 0;
	}
	r->cg_paths = np;
	r->cg_paths[r->ncg++] = cg;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", cg);
	f = fopen(path, "re");
	if (!f) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/unified%s/memory.max", cg);
		f = fopen(path, "re");
	}
	if (f) {
		if (fscanf(f, "%llu", &lim) != 1 || lim >= (1ull << 62))
			lim = 0; /* "max" or the v1 unlimited value */
		fclose(f);
	}
	row = (struct mr_cgroup){ .id = r->ncg, .path = cg, .memory_max = lim };
	if (r->o->anonymize) {
		snprintf(line, sizeof(line), "cgroup-%08llx",
			 (unsigned long long)(rec_hash(r, r->ncg) & 0xffffffffu));
		row.path = line;
	}
	mr_writer_add_cgroup(r->w, &row);
	return r->ncg;
}

static void put_task(struct rec *r, uint32_t id)
{
	struct rec_task *t = &r->tasks[id];
	char name[32];
	struct mr_task row = {
		.id = id, .pid = t->pid, .tgid = t->tgid, .mm = t->mm, .cgroup = t->cgroup,
		.comm = t->comm, .start_ns = t->start_ns, .end_ns = t->end_ns,
	};

	if (r->o->anonymize) {
		snprintf(name, sizeof(name), "task-%08llx",
			 (unsigned long long)(rec_hash(r, (uint64_t)t->tgid) & 0xffffffffu));
		row.comm = name;
	}
	mr_writer_add_task(r->w, &row);
}

/*
 * Copy-on-write of a private file mapping (MAP_PRIVATE): the first write to one of its
 * pages replaces the file page with an anonymous copy at the same address (mm/memory.c:
 * do_cow_fault() when absent, wp_page_copy() from do_wp_page() when mapped read-only),
 * and from then on the address is anonymous memory: swapped, never written back to the
 * file. cow_page() says whether mm's virtual page vpn is such a copy of file_page (the
 * mm's own write, or its fork parent's before the fork); cow_add() records one.
 */
static int cow_page(const struct rec *r, uint32_t mm, uint64_t vpn, uint32_t file_page)
{
	uint32_t limit = UINT32_MAX;

	/* The nearest entry on the fork chain decides. An entry the parent made after the
	 * fork (index >= the child's fork_cow) means the page was still the file's at the
	 * fork, so the child has the file page; an entry of another file page is a mapping
	 * since replaced at that address. */
	for (uint32_t m = mm; m && m < r->nmms; limit = r->mms[m].fork_cow, m = r->mms[m].fork_parent) {
		uint32_t i = htab_find(&r->cow_ix, m, vpn);

		if (i == MR_PAGE_NONE)
			continue;
		return i < limit && i < r->ncow && r->cow[i] == file_page;
	}
	return 0;
}

static int cow_add(struct rec *r, uint32_t mm, uint64_t vpn, uint32_t file_page)
{
	struct rec_hent *h;
	int found;

	if (grow((void **)&r->cow, &r->cow_cap, (size_t)r->ncow + 1, sizeof(*r->cow)))
		return MR_ENOMEM;
	h = rec_htab_slot(&r->cow_ix, mm, vpn, &found);
	if (!h)
		return MR_ENOMEM;
	/* a new index even when the key is there (the same address mapped again and
	 * written): the fork chain compares indices with fork_cow */
	h->val = r->ncow;
	r->cow[r->ncow++] = file_page;
	return 0;
}

static void mark_exec(struct rec *r, uint32_t page)
{
	if (page != MR_PAGE_NONE && !r->pages[page].exec) {
		r->pages[page].exec = 1;
		mr_writer_add_page(r->w, &r->pages[page]);
	}
}

static inline int vma_private_file(const struct rec_vma *v)
{
	return v->file && (v->flags & (MR_VMA_FILE | MR_VMA_SHARED)) == MR_VMA_FILE;
}

uint32_t rec_addr_page(struct rec *r, uint32_t mm, const struct rec_vma *v, uint64_t addr,
		       int copy)
{
	/* a fault charges the memcg of the mm's owner (mm/memcontrol.c:
	 * get_mem_cgroup_from_mm()), which is what the mm's latest task is in */
	uint32_t cg = mm ? r->mms[mm].cgroup : 0;
	uint64_t vpn = addr >> r->pshift;
	uint32_t page;

	if (v && v->file && !(v->flags & MR_VMA_SHARED && !(v->flags & MR_VMA_FILE))) {
		page = rec_page_get(r, MR_PAGE_FILE, v->file,
				    v->pgoff + ((addr - v->start) >> r->pshift), cg);
		/* a private copy is anonymous from its first write on */
		if (!vma_private_file(v) || page == MR_PAGE_NONE ||
		    !(cow_page(r, mm, vpn, page) || (copy && !cow_add(r, mm, vpn, page))))
			goto done;
	}
	page = rec_page_get(r, MR_PAGE_ANON, mm, vpn, cg);
	if (page != MR_PAGE_NONE)
		r->pflags[page] |= PF_ANON_MAPPED;
done:
	if (v && (v->flags & MR_VMA_EXEC))
		mark_exec(r, page);
	return page;
}

uint32_t rec_mm_new(struct rec *r, int32_t tgid, uint32_t copy_from)
{
	struct rec_mm *m;
	uint32_t id = r->nmms ? r->nmms : 1;
	char comm[16];
	int found;
	struct rec_hent *h;

	if (grow((void **)&r->mms, &r->mms_cap, (size_t)id + 1, sizeof(*r->mms)))
		return 0;
	r->nmms = id + 1;
	m = &r->mms[id];
	m->tgid = tgid;
	m->alive = 1;
	m->anon_head = MR_PAGE_NONE;
	m->nanon = 0;
	m->cgroup = 0;
	m->fork_parent = copy_from < id ? copy_from : 0;
	m->fork_cow = r->ncow;
	if (copy_from && copy_from < id && r->mms[copy_from].n) {
		const struct rec_mm *src = &r->mms[copy_from];

		m->v = malloc(src->n * sizeof(*m->v));
		if (m->v) {
			memcpy(m->v, src->v, src->n * sizeof(*m->v));
			m->n = m->cap = src->n;
		}
	}
	h = rec_htab_slot(&r->mm_ix, (uint64_t)(uint32_t)tgid, 0, &found);
	if (h)
		h->val = id;
	read_comm(tgid, comm, sizeof(comm));
	if (r->o->anonymize)
		snprintf(comm, sizeof(comm), "mm-%08llx",
			 (unsigned long long)(rec_hash(r, (uint64_t)tgid) & 0xffffffffu));
	mr_writer_add_mm(r->w, id, tgid, comm);
	/* A forked mm's inherited VMAs are rows of their own. */
	for (uint32_t i = 0; i < m->n; i++) {
		struct mr_vma_row row;

		m->v[i].id = ++r->nvmas;
		row = (struct mr_vma_row){ .id = m->v[i].id, .mm = id, .start = m->v[i].start,
					   .end = m->v[i].end, .flags = m->v[i].flags,
					   .file = m->v[i].file, .pgoff = m->v[i].pgoff };
		if (r->o->anonymize) {
			row.start = rec_hash(r, row.start);
			row.end = row.start + (m->v[i].end - m->v[i].start);
		}
		mr_writer_add_vma(r->w, &row);
	}
	return id;
}

static uint32_t mm_of(struct rec *r, int32_t tgid)
{
	struct rec_hent *h;
	int found;

	h = rec_htab_slot(&r->mm_ix, (uint64_t)(uint32_t)tgid, 0, &found);
	if (h && found)
		return h->val;
	if (h) { /* undo the empty insert: rec_mm_new fills it */
		h->used = 0;
		r->mm_ix.n--;
	}
	return rec_mm_new(r, tgid, 0);
}

uint32_t rec_task_get(struct rec *r, int32_t pid, int32_t tid, uint64_t t)
{
	struct rec_hent *h;
	struct rec_task *tk;
	uint32_t id;
	int found;

	h = rec_htab_slot(&r->task_ix, (uint64_t)(uint32_t)tid, 0, &found);
	if (!h)
		return 0;
	if (found)
		return h->val;
	id = r->ntasks ? r->ntasks : 1;
	if (grow((void **)&r->tasks, &r->tasks_cap, (size_t)id + 1, sizeof(*r->tasks))) {
		h->used = 0;
		r->task_ix.n--;
		return 0;
	}
	h->val = id;
	r->ntasks = id + 1;
	tk = &r->tasks[id];
	tk->pid = tid;
	tk->tgid = pid;
	tk->start_ns = t;
	tk->mm = mm_of(r, pid);
	if (tk->mm)
		r->mms[tk->mm].ntasks++;
	read_comm(tid, tk->comm, sizeof(tk->comm));
	tk->cgroup = task_cgroup(r, tid);
	if (tk->mm)
		r->mms[tk->mm].cgroup = tk->cgroup;
	put_task(r, id);
	r->st->tasks++;
	return id;
}

/*
 * cgroup:cgroup_attach_task moved the task tid to path in hierarchy root: when that is the
 * memory controller's hierarchy (the v1 one /proc/cgroups names for memory, else the
 * unified one, id 0) and the recorder knows the task, its cgroup is path from here on,
 * and its mm's when it leads the process (mm->owner, mm/memcontrol.c). 1 when followed.
 */
int rec_task_cgroup_moved(struct rec *r, int32_t tid, int root, const char *path)
{
	uint32_t id = htab_find(&r->task_ix, (uint64_t)(uint32_t)tid, 0), cg;
	struct rec_task *tk;
	char *dup;

	if (r->memcg_root == -2) {
		FILE *f = fopen("/proc/cgroups", "re");
		char line[256], name[64];
		int hier, n, en;

		r->memcg_root = 0;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "%63s %d %d %d", name, &hier, &n, &en) == 4 &&
			    !strcmp(name, "memory") && en)
				r->memcg_root = hier;
		if (f)
			fclose(f);
	}
	if (root != r->memcg_root || id == MR_PAGE_NONE || !id || id >= r->ntasks)
		return 0;
	if (!(dup = strdup(path)) || !(cg = cgroup_id(r, dup)))
		return 0;
	tk = &r->tasks[id];
	tk->cgroup = cg;
	if (tk->mm && tk->pid == tk->tgid)
		r->mms[tk->mm].cgroup = cg;
	put_task(r, id);
	return 1;
}

/* Read task's memory cgroup again (exec); its row is written by the caller. */
void rec_task_cgroup_update(struct rec *r, uint32_t task)
{
	struct rec_task *tk = &r->tasks[task];
	uint32_t cg = task_cgroup(r, tk->pid);

	if (cg)
		tk->cgroup = cg;
	if (tk->mm)
		r->mms[tk->mm].cgroup = tk->cgroup;
}

uint32_t rec_task_set_mm(struct rec *r, uint32_t task, uint32_t mm)
{
	uint32_t old = r->tasks[task].mm;

	if (old && r->mms[old].ntasks)
		r->mms[old].ntasks--;
	r->tasks[task].mm = mm;
	if (mm) {
		r->mms[mm].ntasks++;
		r->mms[mm].cgroup = r->tasks[task].cgroup;
	}
	return old;
}

/* Update a task's row (comm, mm, end) after a change. */
void rec_task_put(struct rec *r, uint32_t id)
{
	if (id && id < r->ntasks)
		put_task(r, id);
}

uint32_t rec_file_get(struct rec *r, uint64_t dev, uint64_t ino, const char *path)
{
	struct rec_hent *h;
	struct mr_file row;
	char anon[40];
	int found;

	h = rec_htab_slot(&r->file_ix, dev, ino, &found);
	if (!h)
		return 0;
	if (found)
		return h->val;
	h->val = ++r->nfiles;
	row = (struct mr_file){ .id = h->val, .dev = dev, .ino = ino, .path = path };
	if (r->o->anonymize && path) {
		snprintf(anon, sizeof(anon), "file-%016llx",
			 (unsigned long long)rec_hash(r, dev * 1000003 + ino));
		row.path = anon;
	}
	mr_writer_add_file(r->w, &row);
	r->st->files++;
	return h->val;
}

/*
 * The block of pmap holding (k1, key): created (every id MR_PAGE_NONE) when create,
 * else NULL when there is none. NULL on ENOMEM. The pointer is good until the next call.
 */
static uint32_t *pmap_block(struct rec_pmap *pm, uint64_t k1, uint64_t key, int create)
{
	uint64_t kb = key >> PMAP_SHIFT;
	struct rec_hent *h;
	uint32_t b;
	int found;

	if (pm->last_ok && pm->last_k1 == k1 && pm->last_kb == kb)
		return pm->blk[pm->last_blk];
	if (!create) {
		b = htab_find(&pm->ix, k1, kb);
		if (b == MR_PAGE_NONE)
			return NULL;
	} else {
		h = rec_htab_slot(&pm->ix, k1, kb, &found);
		if (!h)
			return NULL;
		if (found) {
			b = h->val;
		} else {
			if (grow((void **)&pm->blk, &pm->blk_cap, (size_t)pm->nblk + 1,
				 sizeof(*pm->blk))) {
				h->used = 0;
				pm->ix.n--;
				return NULL;
			}
			b = h->val = pm->nblk++;
			memset(pm->blk[b], 0xff, sizeof(pm->blk[b]));
		}
	}
	pm->last_k1 = k1;
	pm->last_kb = kb;
	pm->last_blk = b;
	pm->last_ok = 1;
	return pm->blk[b];
}

/* The id of (k1, key), MR_PAGE_NONE when it has none. */
static uint32_t pmap_find(struct rec_pmap *pm, uint64_t k1, uint64_t key)
{
	const uint32_t *blk = pmap_block(pm, k1, key, 0);

	return blk ? blk[key & (PMAP_BLOCK - 1)] : MR_PAGE_NONE;
}

static void pmap_free(struct rec_pmap *pm)
{
	rec_htab_free(&pm->ix);
	free(pm->blk);
	memset(pm, 0, sizeof(*pm));
}

uint32_t rec_file_find(const struct rec *r, uint64_t dev, uint64_t ino)
{
	uint32_t v = htab_find(&r->file_ix, dev, ino);

	return v == MR_PAGE_NONE ? 0 : v;
}

uint32_t rec_page_find(struct rec *r, int type, uint32_t owner, uint64_t key)
{
	return pmap_find(&r->page_map, ((uint64_t)type << 32) | owner, key);
}

uint32_t rec_page_get(struct rec *r, int type, uint32_t owner, uint64_t key, uint32_t cg)
{
	uint32_t *slot = pmap_block(&r->page_map, ((uint64_t)type << 32) | owner, key, 1);
	struct mr_page *p;
	uint32_t id;

	if (!slot)
		return MR_PAGE_NONE;
	slot += key & (PMAP_BLOCK - 1);
	if (*slot != MR_PAGE_NONE)
		return *slot;
	/* every failure below leaves *slot empty: the page gets no id */
	id = r->npages;
	if (grow((void **)&r->pages, &r->pages_cap, (size_t)id + 1, sizeof(*r->pages)))
		return MR_PAGE_NONE;
	/* the per-page side arrays follow pages[] when it grows (geometrically), not on
	 * every page: a copy per new page made recording quadratic in pages */
	if (r->side_cap < r->pages_cap) {
		uint8_t *nf = realloc(r->pflags, r->pages_cap);
		struct rec_anon_link *nl = nf ? realloc(r->anon_link, r->pages_cap *
							sizeof(*nl)) : NULL;

		if (nf)
			r->pflags = nf;
		if (nl)
			r->anon_link = nl;
		if (!nf || !nl)
			return MR_PAGE_NONE;
		r->side_cap = r->pages_cap;
	}
	r->pflags[id] = 0;
	r->anon_link[id] = (struct rec_anon_link){ .vpage = key, .next = MR_PAGE_NONE };
	*slot = id;
	r->npages = id + 1;
	p = &r->pages[id];
	*p = (struct mr_page){ .id = id, .type = (uint8_t)type, .node = -1, .cgroup = cg };
	if (type == MR_PAGE_FILE) {
		p->file = owner;
		p->index = key;
	} else {
		p->mm = owner;
		p->vpage = r->o->anonymize ? rec_hash(r, key) >> 12 : key;
		if (type == MR_PAGE_ANON && owner && owner < r->nmms) {
			r->anon_link[id].next = r->mms[owner].anon_head;
			r->mms[owner].anon_head = id;
			r->mms[owner].nanon++;
		}
	}
	mr_writer_add_page(r->w, p);
	r->st->pages++;
	return id;
}

const struct rec_vma *rec_vma_find(const struct rec_mm *m, uint64_t addr)
{
	uint32_t lo = 0, hi = m->n;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (m->v[mid].end <= addr)
			lo = mid + 1;
		else if (m->v[mid].start > addr)
			hi = mid;
		else
			return &m->v[mid];
	}
	return NULL;
}

/* A new VMA row (and id) for [start, end) of mm; MAP event at t. */
static int vma_row(struct rec *r, uint32_t mm, struct rec_vma *v, uint64_t t, uint32_t stream,
		   uint64_t *last, uint32_t task)
{
	struct mr_vma_row row;
	struct mr_event ev;

	v->id = ++r->nvmas;
	r->st->vmas++;
	row = (struct mr_vma_row){ .id = v->id, .mm = mm, .start = v->start, .end = v->end,
				   .flags = v->flags, .file = v->file, .pgoff = v->pgoff,
				   .map_ns = t };
	if (r->o->anonymize) {
		row.start = rec_hash(r, v->start);
		row.end = row.start + (v->end - v->start);
	}
	mr_writer_add_vma(r->w, &row);
	ev = (struct mr_event){ .time = t, .kind = MR_EV_MAP, .page = MR_PAGE_NONE, .task = task,
				.arg = v->id, .flags = (uint8_t)v->flags };
	return rec_emit(r, stream, last, &ev);
}

/*
 * Take [start, end) out of mm's VMAs as mm/vma.c does for munmap and for a mapping placed
 * over others: VMAs inside go, a VMA that straddles start or end keeps its outside part as
 * a new VMA (new id, pgoff advanced for the right piece). Events, all at t: MAP of each
 * piece, MAP of nv (the mapping placed over the range, NULL for munmap; its id is set
 * here), then UNMAP of each VMA that was cut or removed. The MAPs come first so that a
 * replay sees the old VMA replaced (rp_vma_activate: an implicit unmap that keeps the
 * pages: a split, a merge with a neighbour, an mprotect) and its UNMAP is then a no-op;
 * only a VMA that munmap removes gets a real UNMAP (explicit: its anon pages go).
 */
static int vma_cut(struct rec *r, uint32_t mm, uint64_t start, uint64_t end,
		   struct rec_vma *nv, uint64_t t, uint32_t stream, uint64_t *last,
		   uint32_t task)
{
	struct rec_mm *m = &r->mms[mm];
	struct rec_vma piece[2];
	struct mr_event ev;
	uint32_t lo, hi, np = 0;
	int rc;

	for (lo = 0; lo < m->n && m->v[lo].end <= start; lo++)
		;
	for (hi = lo; hi < m->n && m->v[hi].start < end; hi++)
		;
	if (lo == hi)
		return nv ? vma_row(r, mm, nv, t, stream, last, task) : 0;
	if (m->v[lo].start < start) {
		piece[np] = m->v[lo];
		piece[np++].end = start;
	}
	if (m->v[hi - 1].end > end) {
		piece[np] = m->v[hi - 1];
		piece[np].start = end;
		piece[np++].pgoff += (end - m->v[hi - 1].start) >> r->pshift;
	}
	for (uint32_t k = 0; k < np; k++)
		if ((rc = vma_row(r, mm, &piece[k], t, stream, last, task)))
			return rc;
	if (nv && (rc = vma_row(r, mm, nv, t, stream, last, task)))
		return rc;
	for (uint32_t i = lo; i < hi; i++) {
		ev = (struct mr_event){ .time = t, .kind = MR_EV_UNMAP, .page = MR_PAGE_NONE,
					.task = task, .arg = m->v[i].id };
		if ((rc = rec_emit(r, stream, last, &ev)))
			return rc;
	}
	/* [lo, hi) becomes the pieces: hi - lo >= 1 entries out, np <= 2 in */
	if (m->n - (hi - lo) + np > m->cap) {
		uint32_t ncap = m->cap * 2;
		struct rec_vma *grown = realloc(m->v, ncap * sizeof(*grown));

		if (!grown)
			return MR_ENOMEM;
		m->v = grown;
		m->cap = ncap;
	}
	memmove(&m->v[lo + np], &m->v[hi], (m->n - hi) * sizeof(*m->v));
	memcpy(&m->v[lo], piece, np * sizeof(*piece));
	m->n = m->n - (hi - lo) + np;
	return 0;
}

int rec_vma_add(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, uint64_t pgoff,
		uint32_t file, uint32_t flags, uint64_t t, uint32_t stream, uint64_t *last,
		uint32_t task)
{
	struct rec_mm *m = &r->mms[mm];
	struct rec_vma v = { .start = start, .end = end, .pgoff = pgoff, .file = file,
			     .flags = flags };
	uint32_t pos;
	int rc;

	/* the kernel replaced, merged or split what the new one overlaps (MAP_FIXED, a
	 * merge with a neighbour, mprotect) */
	if ((rc = vma_cut(r, mm, start, end, &v, t, stream, last, task)))
		return rc;
	if (m->n + 1 > m->cap) {
		uint32_t ncap = m->cap ? m->cap * 2 : 16;
		struct rec_vma *nv = realloc(m->v, ncap * sizeof(*nv));

		if (!nv)
			return MR_ENOMEM;
		m->v = nv;
		m->cap = ncap;
	}
	for (pos = 0; pos < m->n && m->v[pos].start < start; pos++)
		;
	memmove(&m->v[pos + 1], &m->v[pos], (m->n - pos) * sizeof(*m->v));
	m->v[pos] = v;
	m->n++;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sort page ids ascending. The anon list of an mm runs from its newest page to its
 * oldest, so a whole-mm free collects them in descending order: reversed in O(n)
 * instead of qsort; already ascending is left as it is.
 */
static void sort_ids(uint32_t *ids, uint32_t n)
{
	uint32_t i;

	for (i = 1; i < n && ids[i] < ids[i - 1]; i++)
		;
	if (i == n) {
		for (uint32_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
			uint32_t t = ids[a];

			ids[a] = ids[b];
			ids[b] = t;
		}
		return;
	}
	for (i = 1; i < n && ids[i] > ids[i - 1]; i++)
		;
	if (i < n)
		qsort(ids, n, sizeof(*ids), cmp_u32);
}

/* FREE events for ids[0..n) (sorted here): one per run of consecutive page ids. */
static int emit_free(struct rec *r, uint32_t *ids, uint32_t n, uint64_t t, uint32_t stream,
		     uint64_t *last, uint32_t task, uint16_t cpu)
{
	uint32_t i = 0;
	int rc;

	sort_ids(ids, n);
	while (i < n) {
		uint32_t j = i + 1;
		struct mr_event ev;

		while (j < n && ids[j] == ids[i] + (j - i))
			j++;
		ev = (struct mr_event){ .time = t, .kind = MR_EV_FREE, .page = ids[i],
					.size = j - i, .task = task, .cpu = cpu };
		if ((rc = rec_emit(r, stream, last, &ev)))
			return rc;
		i = j;
	}
	return 0;
}

/*
 * FREE events for the mapped anonymous pages of mm in [start, end) (whole: all of them),
 * which stop being mapped here: munmap, exit, MADV_DONTNEED.
 */
static int anon_free(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, int whole,
		     uint64_t t, uint32_t stream, uint64_t *last, uint32_t task, uint16_t cpu,
		     uint32_t *scratch, uint32_t cap)
{
	struct rec_mm *m = &r->mms[mm];
	uint64_t v0 = start >> r->pshift;
	uint64_t v1 = whole ? UINT64_MAX : ((end - 1) >> r->pshift) + 1;
	uint32_t n = 0;
	int rc;

	if (!whole && v1 - v0 <= m->nanon) {
		/* a small range: look its pages up */
		for (uint64_t vp = v0; vp < v1; vp++) {
			uint32_t id = pmap_find(&r->page_map,
						((uint64_t)MR_PAGE_ANON << 32) | mm, vp);

			if (id == MR_PAGE_NONE || !(r->pflags[id] & PF_ANON_MAPPED))
				continue;
			r->pflags[id] &= (uint8_t)~PF_ANON_MAPPED;
			scratch[n++] = id;
			if (n == cap) {
				if ((rc = emit_free(r, scratch, n, t, stream, last, task, cpu)))
					return rc;
				n = 0;
			}
		}
	} else {
		/* a large range: walk the mm's pages */
		for (uint32_t id = m->anon_head; id != MR_PAGE_NONE; id = r->anon_link[id].next) {
			uint64_t vp = r->anon_link[id].vpage;

			if (vp < v0 || vp >= v1 || !(r->pflags[id] & PF_ANON_MAPPED))
				continue;
			r->pflags[id] &= (uint8_t)~PF_ANON_MAPPED;
			scratch[n++] = id;
			if (n == cap) {
				if ((rc = emit_free(r, scratch, n, t, stream, last, task, cpu)))
					return rc;
				n = 0;
			}
		}
	}
	return n ? emit_free(r, scratch, n, t, stream, last, task, cpu) : 0;
}

int rec_anon_free(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, uint64_t t,
		  uint32_t stream, uint64_t *last, uint32_t task, uint16_t cpu,
		  uint32_t *scratch, uint32_t cap)
{
	if (!mm || mm >= r->nmms || end <= start)
		return 0;
	return anon_free(r, mm, start, end, 0, t, stream, last, task, cpu, scratch, cap);
}

/*
 * New flags on the VMAs of [start, end): (flags & ~clear) | set. Each VMA whose flags
 * change is added again over its part of the range (rec_vma_add: the old one is cut, its
 * outside parts keep their flags), as mm/madvise.c:madvise_update_vma() splits it.
 */
int rec_vma_advise(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, uint32_t set,
		   uint32_t clear, uint64_t t, uint32_t stream, uint64_t *last, uint32_t task)
{
	struct rec_mm *m;
	uint64_t at = start;
	int rc;

	if (!mm || mm >= r->nmms)
		return 0;
	m = &r->mms[mm];
	while (at < end) {
		struct rec_vma x;
		uint32_t i = 0, nf;
		uint64_t a, b;

		while (i < m->n && m->v[i].end <= at)
			i++;
		if (i == m->n || m->v[i].start >= end)
			break;
		x = m->v[i];
		a = x.start > at ? x.start : at;
		b = x.end < end ? x.end : end;
		at = b;
		nf = (x.flags & ~clear) | set;
		if (nf == x.flags)
			continue;
		if ((rc = rec_vma_add(r, mm, a, b, x.pgoff + ((a - x.start) >> r->pshift),
				      x.file, nf, t, stream, last, task)))
			return rc;
	}
	return 0;
}

int rec_vma_remove(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, int whole,
		   uint64_t t, uint32_t stream, uint64_t *last, uint32_t task, uint16_t cpu,
		   uint32_t *scratch, uint32_t cap)
{
	int rc;

	if (!mm || mm >= r->nmms)
		return 0;
	if (whole) {
		start = 0;
		end = UINT64_MAX;
	}
	if ((rc = vma_cut(r, mm, start, end, NULL, t, stream, last, task)))
		return rc;
	rc = anon_free(r, mm, start, end, whole, t, stream, last, task, cpu, scratch, cap);
	if (whole)
		r->mms[mm].alive = 0;
	return rc;
}

/* The flags reclaim reads that are not in the permissions: VmFlags of smaps
 * (fs/proc/task_mmu.c, show_smap_vma_flags()): "rr" VM_RAND_READ, "sr" VM_SEQ_READ, set by
 * an madvise() made before the recording began, which the madvise tracepoint cannot see. */
static uint32_t vmflags_parse(const char *s)
{
	uint32_t flags = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (s[0] && s[1] && (s[2] == ' ' || s[2] == '\n' || !s[2])) {
			if (s[0] == 'r' && s[1] == 'r')
				flags |= MR_VMA_RAND_READ;
			else if (s[0] == 's' && s[1] == 'r')
				flags |= MR_VMA_SEQ_READ;
		}
		while (*s && *s != ' ' && *s != '\n')
			s++;
	}
	return flags;
}

struct maps_vma {
	unsigned long long start, end, off;
	uint32_t flags, file;
	int open;
};

static int maps_vma_flush(struct rec *r, struct maps_vma *v, uint32_t mm, uint64_t t,
			  uint32_t stream, uint64_t *last)
{
	if (!v->open)
		return 0;
	v->open = 0;
	return rec_vma_add(r, mm, v->start, v->end, v->off >> r->pshift, v->file, v->flags, t,
			   stream, last, 0);
}

/* The VMAs of a process that exists already, from /proc/PID/smaps: the maps line of each
 * VMA, then its VmFlags (the madvise state). A kernel without smaps (no CONFIG_PROC_PAGE_MONITOR)
 * falls back to /proc/PID/maps, without that state. */
int rec_maps_snapshot(struct rec *r, int32_t pid, uint32_t mm, uint64_t t, uint32_t stream,
		      uint64_t *last)
{
	char path[64], line[4096], perms[8], name[4096];
	unsigned long long start, end, off, ino;
	struct maps_vma v = { 0 };
	unsigned int maj, min;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "re");
	if (!f) {
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
		f = fopen(path, "re");
	}
	if (!f)
		return -errno;
	while (!rc && fgets(line, sizeof(line), f)) {
		int n;

		if (!strncmp(line, "VmFlags:", 8)) {
			if (v.open)
				v.flags |= vmflags_parse(line + 8);
			rc = maps_vma_flush(r, &v, mm, t, stream, last);
			continue;
		}
		name[0] = '\0';
		n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &off, &maj, &min, &ino, name);
		if (n < 7)
			continue;	/* a "Key: value" line of smaps */
		if ((rc = maps_vma_flush(r, &v, mm, t, stream, last)))
			break;
		v = (struct maps_vma){ .start = start, .end = end, .off = off, .open = 1 };
		if (perms[0] == 'r')
			v.flags |= MR_VMA_READ;
		if (perms[1] == 'w')
			v.flags |= MR_VMA_WRITE;
		if (perms[2] == 'x')
			v.flags |= MR_VMA_EXEC;
		if (perms[3] == 's')
			v.flags |= MR_VMA_SHARED;
		if (ino) {
			char *p = name;

			while (*p == ' ')
				p++;
			v.flags |= MR_VMA_FILE;
			v.file = rec_file_get(r, ((uint64_t)maj << 32) | min, ino, p);
		}
	}
	if (!rc)
		rc = maps_vma_flush(r, &v, mm, t, stream, last);
	fclose(f);
	return rc;
}

void rec_ids_free(struct rec *r)
{
	rec_htab_free(&r->task_ix);
	rec_htab_free(&r->mm_ix);
	rec_htab_free(&r->file_ix);
	rec_htab_free(&r->cow_ix);
	free(r->cow);
	r->cow = NULL;
	pmap_free(&r->page_map);
	for (uint32_t i = 0; i < r->nmms; i++)
		free(r->mms[i].v);
	free(r->mms);
	free(r->tasks);
	free(r->pages);
	free(r->pflags);
	free(r->anon_link);
	for (uint32_t i = 0; i < r->ncg; i++)
		free(r->cg_paths[i]);
	free(r->cg_paths);
}
