// SPDX-License-Identifier: GPL-2.0
/*
 * detail.c - per-page counters and the detail tables (detail_pages, detail_files,
 * detail_cgroups, detail_vmas), and the history of traced pages (mr_detail.h,
 * rp_detail.h, docs/results-schema.md "Detail tables").
 *
 * The engine calls a hook where it counts one of the counters below (machine.c,
 * events.c), for the page it counts it for, so that every count lands on exactly one
 * page and the sums are the run's counters. Files and cgroups are fixed per page (the
 * page row's file and cgroup), so their rows are sums over pages when written. A VMA is
 * not: a file page is mapped through VMAs of several processes over time, so faults are
 * counted on the VMA the fault went through, and an eviction, and the refault that
 * undoes it, on the VMA the page was last faulted in through (none: a page only ever
 * reached by read()/write() or readahead).
 */
#include <sqlite3.h>

#include "machine_int.h"
#include "mr_policy_where.h"

int mr_detail_parse(const char *arg, unsigned *what, struct mr_error *err)
{
	static const struct {
		const char *name;
		unsigned bit;
	} words[] = {
		{ "files", MR_DETAIL_FILES }, { "cgroups", MR_DETAIL_CGROUPS },
		{ "vmas", MR_DETAIL_VMAS }, { "pages", MR_DETAIL_PAGES }, { "all", MR_DETAIL_ALL },
	};
	const char *p = arg;

	*what = 0;
	for (;;) {
		size_t len = strcspn(p, ","), k;

		for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
			if (strlen(words[k].name) == len && !strncmp(words[k].name, p, len))
				break;
		if (k == sizeof(words) / sizeof(words[0]))
			return mr_error_set(err, MR_EINVAL,
					    "--detail '%s': '%.*s' is no detail table; give files, cgroups, vmas, pages (comma-separated) or all",
					    arg, (int)(len > 40 ? 40 : len), p);
		*what |= words[k].bit;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* ---- setup ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void fill_state(struct rp_machine *mach, uint32_t page, struct mr_page_event *e)
{
	uint32_t fl = rp_pflags(mach, page);
	struct mr_folio_where w;

	memset(e, 0, sizeof(*e));
	if (rp_resident(mach, page)) {
		mr_policy_folio_where(mach->pol, rp_frame(mach, page), &w);
	} else {
		memset(&w, 0, sizeof(w)); /* as mr_policy_folio_where() says of a page out */
		w.gen = -1;
	}
	e->ev = mach->detail->cur_ev;
	e->t_ns = mach->m.now_ns;
	e->flags = fl & ((MR_PG_EXEC << 1) - 1); /* the MR_PG_* bits, not E_* */
	e->mapcount = (fl & MR_PG_RESIDENT) ? rp_folio(mach, page)->mapcount : 0;
	e->cause = UINT16_MAX;
	e->priority = -1;
	memcpy(e->list, w.list, sizeof(e->list));
	e->gen = w.gen;
	e->tier_refs = w.refs;
	e->seq = w.seq;
	e->min_seq = w.min_seq;
	e->max_seq = w.max_seq;
	e->next_use = w.next_use;
}

int rp_detail_create(struct rp_machine *mach, const struct rp_machine_opts *o,
		     struct mr_error *err)
{
	const struct rp_image *t = mach->t;
	uint32_t np = mach->m.nr_pages, pages[MR_TRACE_MAX_PAGES];
	struct rp_detail *d;
	size_t nt = o->ntrace_pages;

	if (nt > MR_TRACE_MAX_PAGES)
		return mr_error_set(err, MR_EINVAL, "%zu pages to trace: at most %d at a time", nt,
				    MR_TRACE_MAX_PAGES);
	for (size_t i = 0; i < nt; i++) {
		if (o->trace_pages[i] >= np)
			return mr_error_set(err, MR_EINVAL,
					    "page %u is not in %s: its page ids are 0..%u (the pages table's id)",
					    o->trace_pages[i], t->path, np ? np - 1 : 0);
		pages[i] = o->trace_pages[i];
	}
	qsort(pages, nt, sizeof(pages[0]), cmp_u32);
	d = calloc(1, sizeof(*d));
	if (!d)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	mach->detail = d;
	d->what = o->detail;
	d->nr_vmas = t->nr_vmas;
	d->pages = calloc(np ? np : 1, sizeof(*d->pages));
	d->vmas = calloc((size_t)t->nr_vmas + 1, sizeof(*d->vmas));
	d->tp = calloc(nt ? nt : 1, sizeof(*d->tp));
	if (!d->pages || !d->vmas || !d->tp)
		return mr_error_set(err, MR_ENOMEM, "out of memory for detail counters of %u pages", np);
	for (uint32_t i = 0; i < np; i++)
		d->pages[i].last_vma = t->nr_vmas;
	for (size_t i = 0; i < nt; i++) {
		struct rp_trace_page *tp;

		if (d->ntrace && d->tp[d->ntrace - 1].page == pages[i])
			continue; /* named twice */
		tp = &d->tp[d->ntrace++];
		tp->page = pages[i];
		tp->ev = calloc(MR_TRACE_MAX_EVENTS, sizeof(*tp->ev));
		if (!tp->ev)
			return mr_error_set(err, MR_ENOMEM, "out of memory for page histories");
		fill_state(mach, tp->page, &tp->last);
	}
	if (d->ntrace) {
		d->tmin = d->tp[0].page;
		d->tmax = d->tp[d->ntrace - 1].page;
		mach->trace = d;
	}
	return 0;
}

void rp_detail_destroy(struct rp_machine *mach)
{
	struct rp_detail *d = mach->detail;

	if (!d)
		return;
	for (uint32_t i = 0; d->tp && i < d->ntrace; i++)
		free(d->tp[i].ev);
	free(d->tp);
	free(d->pages);
	free(d->vmas);
	free(d);
	mach->detail = mach->trace = NULL;
}

/* ---- history ---- */

static struct rp_trace_page *traced(struct rp_detail *d, uint32_t page)
{
	uint32_t lo = 0, hi = d->ntrace;

	if (!d->ntrace || page < d->tmin || page > d->tmax)
		return NULL;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (d->tp[mid].page < page)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->ntrace && d->tp[lo].page == page ? &d->tp[lo] : NULL;
}

static void log_entry(struct rp_machine *mach, struct rp_trace_page *tp, uint32_t kind,
		      uint32_t how, const struct mr_page_event *state)
{
	struct rp_detail *d = mach->detail;
	struct mr_page_event e;

	if (state)
		e = *state;
	else
		fill_state(mach, tp->page, &e);
	e.kind = kind;
	e.how = how;
	e.refs = tp->refs;
	tp->refs = 0;
	if (kind == MR_PEV_EVICT && d->sc) {
		e.priority = d->sc->priority;
		e.nr_scanned = d->sc->nr_scanned;
		e.nr_reclaimed = d->sc->nr_reclaimed;
		e.nr_to_reclaim = d->sc->nr_to_reclaim;
	}
	tp->last = e;
	if (tp->n < MR_TRACE_MAX_EVENTS)
		tp->ev[tp->n++] = e;
	else
		tp->dropped++;
}

static int same_state(const struct mr_page_event *a, const struct mr_page_event *b)
{
	return a->flags == b->flags && a->mapcount == b->mapcount && a->gen == b->gen &&
	       a->tier_refs == b->tier_refs && a->seq == b->seq && a->min_seq == b->min_seq &&
	       a->max_seq == b->max_seq && a->next_use == b->next_use &&
	       !memcmp(a->list, b->list, sizeof(a->list));
}

void rp_trace_step(struct rp_machine *mach, const struct mr_event *e, uint64_t idx)
{
	struct rp_detail *d = mach->trace;
	uint32_t first;
	uint64_t n = rp_event_refs(e, mach->m.nr_pages, &first);
	/* A page's place and flags change only when the event names it, when reclaim,
	 * aging, a script command, writeback's end, a free or fault-around ran, or for an
	 * event of another kind (map, unmap, exit, marker): then every traced page is
	 * looked at, else only those the event names (and those a hook logged). */
	uint64_t sig = mach->c[C_RECLAIMS] + mach->c[C_KSWAPD_RUNS] + mach->c[C_DIRECT_RECLAIMS] +
		       mach->c[C_SCRIPT_CMDS] + mach->c[C_FAULT_AROUND] + mach->c[C_FREED] +
		       mach->c[C_WRITEBACKS] + mach->wb_head;
	int all = sig != d->sig || (e->kind != MR_EV_ACCESS && e->kind != MR_EV_FD_ACCESS &&
				    e->kind != MR_EV_READAHEAD && e->kind != MR_EV_PC_INSERT);

	d->sig = sig;
	for (uint32_t i = 0; i < d->ntrace; i++) {
		struct rp_trace_page *tp = &d->tp[i];
		struct mr_page_event s;
		int named = tp->page - first < n, logged = tp->n && tp->ev[tp->n - 1].ev == idx;

		if (!all && !named && !logged)
			continue;
		/* what happened during this event is this event's doing */
		for (size_t k = tp->n; k-- > 0 && tp->ev[k].ev == idx && tp->ev[k].cause == UINT16_MAX;)
			tp->ev[k].cause = (uint16_t)e->kind;
		fill_state(mach, tp->page, &s);
		/* counted after: an entry's refs are those of the events before its own */
		if (same_state(&s, &tp->last))
			goto next;
		if (tp->n && tp->ev[tp->n - 1].ev == idx && tp->ev[tp->n - 1].kind != MR_PEV_EVICT &&
		    tp->ev[tp->n - 1].kind != MR_PEV_FREE) {
			/* an insertion or move of this same event: say where the event left it */
			struct mr_page_event *last = &tp->ev[tp->n - 1];

			s.kind = last->kind;
			s.how = last->how;
			s.refs = last->refs;
			s.cause = last->cause;
			*last = s;
			tp->last = s;
			goto next;
		}
		s.cause = (uint16_t)e->kind;
		log_entry(mach, tp, MR_PEV_MOVE, 0, &s);
next:
		tp->refs += named;
	}
	d->cur_ev = idx + 1;
}

/* ---- the hooks ---- */

void rp_detail_fault(struct rp_machine *mach, uint32_t page, uint32_t vi, int major)
{
	struct rp_detail *d = mach->detail;

	struct rp_detail_page *dp = &d->pages[page];

	dp->c.faults++;
	dp->c.majfaults += major != 0;
	d->vmas[vi].faults++;
	d->vmas[vi].majfaults += major != 0;
	dp->last_vma = vi;
}

void rp_detail_insert(struct rp_machine *mach, uint32_t page, uint32_t est, unsigned ctx)
{
	struct rp_detail *d = mach->detail;
	struct mr_detail_counts *c = &d->pages[page].c;
	struct rp_trace_page *tp;

	c->misses++;
	if (est & E_EVICTED) {
		c->refaults++;
		d->vmas[d->pages[page].last_vma].refaults++;
	}
	if (est & E_SHADOW)
		c->shadow_refaults++;
	if (ptype(mach, page) != RP_FILE && (est & E_SWAP))
		c->pswpin++;
	tp = traced(d, page);
	if (tp)
		log_entry(mach, tp, MR_PEV_INSERT, ctx | ((est & E_EVICTED) ? MR_PEV_REFAULT : 0),
			  NULL);
}

void rp_detail_evict(struct rp_machine *mach, uint32_t page)
{
	struct rp_detail *d = mach->detail;
	struct rp_trace_page *tp;

	d->pages[page].c.evictions++;
	d->vmas[d->pages[page].last_vma].evictions++;
	tp = traced(d, page);
	if (tp) {
		unsigned kind = !d->sc ? MR_PRC_OTHER : d->sc->kswapd ? MR_PRC_KSWAPD :
				d->sc->memcg_reclaim ? MR_PRC_MEMCG : MR_PRC_DIRECT;

		log_entry(mach, tp, MR_PEV_EVICT, kind, NULL);
	}
}

void rp_detail_free(struct rp_machine *mach, uint32_t page)
{
	struct rp_trace_page *tp;

	mach->detail->pages[page].c.freed++;
	tp = traced(mach->detail, page);
	if (tp)
		log_entry(mach, tp, MR_PEV_FREE, 0, NULL);
}

void rp_detail_writeback(struct rp_machine *mach, uint32_t page)
{
	mach->detail->pages[page].c.writebacks++;
}

/* ---- reading ---- */

int mr_replay_page_counts(const struct mr_replay *r, size_t run, uint32_t page,
			  struct mr_detail_counts *c)
{
	struct rp_machine *mach = rp_replay_machine(r, run);

	memset(c, 0, sizeof(*c));
	if (!mach || !mach->detail || page >= mach->m.nr_pages)
		return MR_ENOENT;
	*c = mach->detail->pages[page].c;
	return 0;
}

uint32_t mr_replay_nr_pages(const struct mr_replay *r)
{
	return rp_replay_image(r)->nr_pages;
}

const struct mr_page_event *mr_replay_page_history(const struct mr_replay *r, size_t run,
						   uint32_t page, size_t *n, uint64_t *dropped)
{
	struct rp_machine *mach = rp_replay_machine(r, run);
	struct rp_trace_page *tp = mach && mach->detail ? traced(mach->detail, page) : NULL;

	*n = tp ? tp->n : 0;
	if (dropped)
		*dropped = tp ? tp->dropped : 0;
	return tp ? tp->ev : NULL;
}

/* ---- the tables ---- */

#define COUNT_COLS                                                                        \
	"faults INTEGER NOT NULL, majfaults INTEGER NOT NULL, misses INTEGER NOT NULL,"   \
	" refaults INTEGER NOT NULL, shadow_refaults INTEGER NOT NULL,"                   \
	" evictions INTEGER NOT NULL, freed INTEGER NOT NULL, pswpin INTEGER NOT NULL,"   \
	" writebacks INTEGER NOT NULL"

/* One per MR_DETAIL_* bit, in bit order. */
static const char *const detail_schema[4] = {
	"CREATE TABLE detail_files(run INTEGER NOT NULL, file INTEGER NOT NULL, "
	COUNT_COLS ", PRIMARY KEY(run, file)) WITHOUT ROWID;",
	"CREATE TABLE detail_cgroups(run INTEGER NOT NULL, cgroup INTEGER NOT NULL, "
	COUNT_COLS ", PRIMARY KEY(run, cgroup)) WITHOUT ROWID;",
	"CREATE TABLE detail_vmas(run INTEGER NOT NULL, vma INTEGER,"
	" derived INTEGER NOT NULL, faults INTEGER NOT NULL, majfaults INTEGER NOT NULL,"
	" evictions INTEGER NOT NULL, refaults INTEGER NOT NULL);"
	"CREATE INDEX detail_vmas_run ON detail_vmas(run, vma);",
	"CREATE TABLE detail_pages(run INTEGER NOT NULL, page INTEGER NOT NULL, "
	COUNT_COLS ", PRIMARY KEY(run, page)) WITHOUT ROWID;",
};

/* Sums over pages: 64-bit, whatever the per-page width. */
struct sums {
	uint64_t v[9];
};

static void add(struct sums *s, const struct mr_detail_counts *c)
{
	s->v[0] += c->faults;
	s->v[1] += c->majfaults;
	s->v[2] += c->misses;
	s->v[3] += c->refaults;
	s->v[4] += c->shadow_refaults;
	s->v[5] += c->evictions;
	s->v[6] += c->freed;
	s->v[7] += c->pswpin;
	s->v[8] += c->writebacks;
}

static int nonzero(const struct sums *s)
{
	for (int i = 0; i < 9; i++)
		if (s->v[i])
			return 1;
	return 0;
}

static int put_row(sqlite3 *db, sqlite3_stmt *st, int64_t run, int64_t key, const struct sums *s,
		   struct mr_error *err)
{
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, key);
	for (int i = 0; i < 9; i++)
		sqlite3_bind_int64(st, 3 + i, (sqlite3_int64)s->v[i]);
	if (sqlite3_step(st) != SQLITE_DONE) {
		int rc = mr_error_set(err, MR_EIO, "writing detail tables: %s", sqlite3_errmsg(db));

		sqlite3_reset(st);
		return rc;
	}
	sqlite3_reset(st);
	return 0;
}

static int write_machine(sqlite3 *db, sqlite3_stmt **st, const struct rp_machine *mach,
			 int64_t run, struct mr_error *err)
{
	const struct rp_detail *d = mach->detail;
	const struct rp_image *t = mach->t;
	uint32_t np = mach->m.nr_pages, nm = mach->m.nr_memcgs;
	struct sums *files = NULL, *cg = NULL;
	int rc = 0;

	if (d->what & MR_DETAIL_PAGES) {
		for (uint32_t p = 0; !rc && p < np; p++) {
			struct sums s = { { 0 } };

			add(&s, &d->pages[p].c);
			/* a sampled image's pages are renumbered: the trace's id is the key */
			if (nonzero(&s))
				rc = put_row(db, st[0], run, t->sample_ids ? t->sample_ids[p] : p, &s,
					     err);
		}
	}
	if (!rc && (d->what & (MR_DETAIL_FILES | MR_DETAIL_CGROUPS))) {
		files = calloc((size_t)t->nr_files + 1, sizeof(*files));
		cg = calloc((size_t)nm + 1, sizeof(*cg));
		if (!files || !cg)
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		for (uint32_t p = 0; !rc && p < np; p++) {
			const struct rp_page *rp = &t->pages[p];

			if (rp_page_type(rp) == RP_FILE && (rp->info & RP_PAGE_VALID) &&
			    rp->owner < t->nr_files)
				add(&files[rp->owner], &d->pages[p].c);
			add(&cg[rp->memcg < nm ? rp->memcg : 0], &d->pages[p].c);
		}
		for (uint32_t f = 0; !rc && (d->what & MR_DETAIL_FILES) && f < t->nr_files; f++)
			if (nonzero(&files[f]))
				rc = put_row(db, st[1], run, f, &files[f], err);
		for (uint32_t m = 0; !rc && (d->what & MR_DETAIL_CGROUPS) && m < nm; m++)
			if (nonzero(&cg[m]))
				rc = put_row(db, st[2], run, mach->m.memcg_id[m], &cg[m], err);
	}
	for (uint32_t v = 0; !rc && (d->what & MR_DETAIL_VMAS) && v <= d->nr_vmas; v++) {
		const struct mr_detail_counts *c = &d->vmas[v];

		if (!c->faults && !c->evictions && !c->refaults)
			continue;
		sqlite3_bind_int64(st[3], 1, run);
		if (v < d->nr_vmas)
			sqlite3_bind_int64(st[3], 2, t->vmas[v].v.id);
		else
			sqlite3_bind_null(st[3], 2);
		sqlite3_bind_int(st[3], 3, v < d->nr_vmas && t->vmas[v].derived);
		sqlite3_bind_int64(st[3], 4, c->faults);
		sqlite3_bind_int64(st[3], 5, c->majfaults);
		sqlite3_bind_int64(st[3], 6, c->evictions);
		sqlite3_bind_int64(st[3], 7, c->refaults);
		if (sqlite3_step(st[3]) != SQLITE_DONE)
			rc = mr_error_set(err, MR_EIO, "writing detail_vmas: %s", sqlite3_errmsg(db));
		sqlite3_reset(st[3]);
	}
	free(files);
	free(cg);
	return rc;
}

int rp_detail_write(sqlite3 *db, struct rp_machine *const *mach, size_t n, struct mr_error *err)
{
	/* st[] as write_machine() takes them: pages, files, cgroups, vmas */
	static const char *const ins[4] = {
		"INSERT INTO detail_pages VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
		"INSERT INTO detail_files VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
		"INSERT INTO detail_cgroups VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
		"INSERT INTO detail_vmas VALUES(?1,?2,?3,?4,?5,?6,?7)",
	};
	static const unsigned bit[4] = { MR_DETAIL_PAGES, MR_DETAIL_FILES, MR_DETAIL_CGROUPS,
					 MR_DETAIL_VMAS };
	sqlite3_stmt *st[4] = { 0 };
	unsigned what;
	int rc = 0;

	if (!n || !mach[0]->detail || !mach[0]->detail->what)
		return 0;
	what = mach[0]->detail->what;
	for (int i = 0; !rc && i < 4; i++)
		if ((what & (1u << i)) && sqlite3_exec(db, detail_schema[i], NULL, NULL, NULL) != SQLITE_OK)
			rc = mr_error_set(err, MR_EIO, "creating detail tables: %s", sqlite3_errmsg(db));
	for (int i = 0; !rc && i < 4; i++)
		if ((what & bit[i]) && sqlite3_prepare_v2(db, ins[i], -1, &st[i], NULL) != SQLITE_OK)
			rc = mr_error_set(err, MR_EIO, "detail tables: %s", sqlite3_errmsg(db));
	for (size_t i = 0; !rc && i < n; i++)
		if (mach[i]->detail)
			rc = write_machine(db, st, mach[i], (int64_t)i + 1, err);
	for (int i = 0; i < 4; i++)
		sqlite3_finalize(st[i]);
	return rc;
}
