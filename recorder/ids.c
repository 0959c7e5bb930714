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

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Keyed hash for --anonymize: a keyed mix, not reversible without the key. */
uint64_t rec_hash(const struct rec *r, uint64_t v)
{
	return mix64(mix64(v ^ r->anon_key) + r->anon_key);
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
		j = mix64(o->k1 * 31 + o->k2) & (ncap - 1);
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
	j = mix64(k1 * 31 + k2) & (h->cap - 1);
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

/* Memory cgroup of tid (v1 memory controller, else v2): dense id, row with its limit. */
static uint32_t task_cgroup(struct rec *r, int32_t tid)
{
	char path[4200], line[4096], *cg = NULL, **np;
	struct mr_cgroup row;
	unsigned long long lim = 0;
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
	read_comm(tid, tk->comm, sizeof(tk->comm));
	tk->cgroup = task_cgroup(r, tid);
	put_task(r, id);
	r->st->tasks++;
	return id;
}

/* Update a task's row (comm, mm, end) after a change. */
void rec_task_put(struct rec *r, uint32_t id);
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

uint32_t rec_page_get(struct rec *r, int type, uint32_t owner, uint64_t key)
{
	struct rec_hent *h;
	struct mr_page *p;
	uint32_t id;
	int found;

	h = rec_htab_slot(&r->page_ix, ((uint64_t)type << 32) | owner, key, &found);
	if (!h)
		return MR_PAGE_NONE;
	if (found)
		return h->val;
	id = r->npages;
	if (grow((void **)&r->pages, &r->pages_cap, (size_t)id + 1, sizeof(*r->pages))) {
		h->used = 0;
		r->page_ix.n--;
		return MR_PAGE_NONE;
	}
	{
		uint8_t *nf = realloc(r->pflags, r->pages_cap);

		if (!nf) {
			h->used = 0;
			r->page_ix.n--;
			return MR_PAGE_NONE;
		}
		r->pflags = nf;
		r->pflags[id] = 0;
	}
	h->val = id;
	r->npages = id + 1;
	p = &r->pages[id];
	*p = (struct mr_page){ .id = id, .type = (uint8_t)type, .node = -1 };
	if (type == MR_PAGE_FILE) {
		p->file = owner;
		p->index = key;
	} else {
		p->mm = owner;
		p->vpage = r->o->anonymize ? rec_hash(r, key) >> 12 : key;
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

int rec_vma_add(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, uint64_t pgoff,
		uint32_t file, uint32_t flags, uint64_t t, uint32_t stream, uint64_t *last,
		uint32_t task)
{
	struct rec_mm *m = &r->mms[mm];
	struct mr_vma_row row;
	struct mr_event ev;
	uint32_t i, j, pos;

	/* Drop the VMAs the new one overlaps (the kernel replaced or split them; a split's
	 * remainder is kept whole rather than tracked exactly). */
	for (i = 0, j = 0; i < m->n; i++) {
		if (m->v[i].start < end && start < m->v[i].end) {
			ev = (struct mr_event){ .time = t, .kind = MR_EV_UNMAP, .page = MR_PAGE_NONE,
						.task = task, .arg = m->v[i].id };
			if (rec_emit(r, stream, last, &ev))
				return r->write_failed;
			continue;
		}
		m->v[j++] = m->v[i];
	}
	m->n = j;
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
	m->v[pos] = (struct rec_vma){ .start = start, .end = end, .pgoff = pgoff,
				      .id = ++r->nvmas, .file = file, .flags = flags };
	m->n++;
	r->st->vmas++;
	row = (struct mr_vma_row){ .id = r->nvmas, .mm = mm, .start = start, .end = end,
				   .flags = flags, .file = file, .pgoff = pgoff, .map_ns = t };
	if (r->o->anonymize) {
		row.start = rec_hash(r, start);
		row.end = row.start + (end - start);
	}
	mr_writer_add_vma(r->w, &row);
	ev = (struct mr_event){ .time = t, .kind = MR_EV_MAP, .page = MR_PAGE_NONE, .task = task,
				.arg = r->nvmas, .flags = (uint8_t)flags };
	return rec_emit(r, stream, last, &ev);
}

int rec_maps_snapshot(struct rec *r, int32_t pid, uint32_t mm, uint64_t t, uint32_t stream,
		      uint64_t *last)
{
	char path[64], line[4096], perms[8], name[4096];
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint32_t flags = 0, file = 0;
		int n;

		name[0] = '\0';
		n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &off, &maj, &min, &ino, name);
		if (n < 7)
			continue;
		if (perms[0] == 'r')
			flags |= MR_VMA_READ;
		if (perms[1] == 'w')
			flags |= MR_VMA_WRITE;
		if (perms[2] == 'x')
			flags |= MR_VMA_EXEC;
		if (perms[3] == 's')
			flags |= MR_VMA_SHARED;
		if (ino) {
			char *p = name;

			while (*p == ' ')
				p++;
			flags |= MR_VMA_FILE;
			file = rec_file_get(r, ((uint64_t)maj << 32) | min, ino, p);
		}
		rc = rec_vma_add(r, mm, start, end, off >> r->pshift, file, flags, t, stream, last,
				 0);
		if (rc)
			break;
	}
	fclose(f);
	return rc;
}

void rec_ids_free(struct rec *r)
{
	rec_htab_free(&r->task_ix);
	rec_htab_free(&r->mm_ix);
	rec_htab_free(&r->file_ix);
	rec_htab_free(&r->page_ix);
	for (uint32_t i = 0; i < r->nmms; i++)
		free(r->mms[i].v);
	free(r->mms);
	free(r->tasks);
	free(r->pages);
	free(r->pflags);
	for (uint32_t i = 0; i < r->ncg; i++)
		free(r->cg_paths[i]);
	free(r->cg_paths);
}
