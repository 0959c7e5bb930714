// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - what each trace event does to the machine (the semantics of mr_replay.h),
 * and the work driven by trace time: time series samples, lru_gen snapshots, script
 * commands, writeback completion. rp_machine_run() is the per-event loop.
 */
#include "machine_int.h"

/* Did this task's current fault read page in (in-fault readahead since its last ACCESS)? */
static int ra_major(const struct rp_machine *x, uint32_t page, uint32_t task)
{
	if (x->ra_task != task)
		return 0;
	for (uint32_t i = 0; i < x->ra_n; i++)
		if (page - x->ra_first[i] < x->ra_len[i])
			return 1;
	return 0;
}

static void ra_note(struct rp_machine *x, uint32_t task, uint32_t first, uint32_t len)
{
	if (x->ra_task != task) {
		x->ra_task = task;
		x->ra_n = 0;
	}
	if (x->ra_n == RA_RANGES) {
		memmove(&x->ra_first[0], &x->ra_first[1], (RA_RANGES - 1) * sizeof(uint32_t));
		memmove(&x->ra_len[0], &x->ra_len[1], (RA_RANGES - 1) * sizeof(uint32_t));
		x->ra_n--;
	}
	x->ra_first[x->ra_n] = first;
	x->ra_len[x->ra_n] = len;
	x->ra_n++;
}

/* ---- events ---- */

/* An access with no mapping to go through: like an fd access. */
static void access_unmapped(struct rp_machine *x, uint32_t page, int write)
{
	struct mr_folio *f = &x->m.folios[page];

	x->c[C_UNMAPPED_ACCESS]++;
	if (!(f->flags & MR_PG_RESIDENT))
		rp_insert_page(x, page, 0, write);
	if (x->ops->mark_accessed)
		x->ops->mark_accessed(x->pol, page);
	if (write)
		f->flags |= MR_PG_DIRTY;
}

static void ev_access(struct rp_machine *x, const struct mr_event *ev, const uint64_t *nu)
{
	const struct rp_page *rp;
	struct mr_folio *f;
	uint32_t page = ev->page, mm, vi;
	int write = (ev->flags & MR_ACC_WRITE) != 0;
	uint8_t bits = (uint8_t)(MR_PTE_YOUNG | (write ? MR_PTE_DIRTY : 0));
	uint64_t addr = 0;

	x->c[C_ACCESSES]++;
	if (__builtin_expect(page >= x->m.nr_pages, 0)) {
		x->c[C_BAD]++;
		return;
	}
	f = &x->m.folios[page];
	if (__builtin_expect((f->flags & MR_PG_RESIDENT) && f->mapcount, 1)) {
		/* the usual case: the PTE the folio's hint names. An anon folio has one
		 * mapping, so the hint is it; a file folio's may be in another mm. */
		uint32_t ti = LOC_TABLE(f->pte);
		struct mr_pte_table *pt = tbl(x, ti);
		unsigned s = LOC_SLOT(f->pte);

		if (f->type != RP_FILE) {
			(void)MR_WARN_ON_ONCE(pt->page[s] != page);
			pt->bits[s] |= bits;
			pmd_mark(x, ti);
			goto done;
		}
		if (x->tbl_mm[ti] == task_mm(x, ev->task) &&
		    ((f->flags & E_HINT) || pt->page[s] == page)) {
			(void)MR_WARN_ON_ONCE(pt->page[s] != page);
			pt->bits[s] |= bits;
			pmd_mark(x, ti);
			goto done;
		}
	}
	rp = &x->t->pages[page];
	if (!(rp->info & RP_PAGE_VALID)) {
		x->c[C_BAD]++;
		return;
	}
	mm = rp_page_type(rp) == RP_FILE ? task_mm(x, ev->task) : rp->owner;
	vi = rp_vma_for_page(x, page, mm, &addr);
	if (vi == MR_NONE) {
		access_unmapped(x, page, write);
		goto done;
	}
	if (!(f->flags & MR_PG_RESIDENT)) {
		/* handle_mm_fault(): lru_gen_enter_fault() sets in_lru_fault by recency */
		unsigned ctx = mr_vma_has_recency(&x->vmas[vi].v) ? MR_ADD_IN_FAULT : 0;
		int major = rp_page_type(rp) == RP_FILE || (f->flags & E_SWAP);

		rp_insert_page(x, page, ctx, write);
		rp_install_pte(x, page, mm, addr, write);
		count(x, page, MR_VM_PGFAULT);
		if (major)
			count(x, page, MR_VM_PGMAJFAULT);
	} else {
		uint32_t ti = table_find(x, mm, addr >> 21);
		unsigned s = (unsigned)((addr >> 12) & 511);

		if (ti != MR_NONE && tbl(x, ti)->page[s] == page) {
			/* mapped here too (a shared file page): the hint pointed elsewhere */
			struct mr_pte_table *pt = tbl(x, ti);

			pt->bits[s] |= bits;
			pmd_mark(x, ti);
			f->pte = LOC(ti, s);
			f->flags |= E_HINT;
		} else {
			/* filemap_map_pages()/do_swap_page() on a resident folio: minor */
			rp_install_pte(x, page, mm, addr, write);
			count(x, page, MR_VM_PGFAULT);
			if (ra_major(x, page, ev->task))
				count(x, page, MR_VM_PGMAJFAULT);
		}
	}
done:
	if (x->ra_n && x->ra_task == ev->task)
		x->ra_n = 0;
	notify_access(x, page, nu);
}

static void ev_fd_access(struct rp_machine *x, const struct mr_event *ev, const uint64_t *nu)
{
	uint32_t first;
	uint64_t n = rp_event_refs(ev, x->m.nr_pages, &first);
	int write = (ev->flags & MR_ACC_WRITE) != 0;

	if (!n)
		x->c[C_BAD]++;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t page = first + (uint32_t)i;
		struct mr_folio *f = &x->m.folios[page];

		/* no page row, or an anonymous one (a missing row gives an anon folio) */
		if (f->type == RP_ANON) {
			x->c[C_BAD]++;
			continue;
		}
		x->c[C_FD_PAGES]++;
		if (!(f->flags & MR_PG_RESIDENT))
			rp_insert_page(x, page, 0, 0);
		/* filemap_read() / generic_perform_write(): folio_mark_accessed() */
		if (x->ops->mark_accessed)
			x->ops->mark_accessed(x->pol, page);
		if (write)
			f->flags |= MR_PG_DIRTY;
		notify_access(x, page, nu ? nu + i : NULL);
	}
}

/* READAHEAD window / PC_INSERT: fill the page cache, not accessed. */
static void ev_insert(struct rp_machine *x, const struct mr_event *ev, int in_fault,
		      const uint64_t *nu)
{
	uint32_t first, run = MR_NONE, runlen = 0;
	uint64_t n = rp_event_refs(ev, x->m.nr_pages, &first);
	unsigned ctx = MR_ADD_READAHEAD;

	if (!n) {
		x->c[C_BAD]++;
		return;
	}
	if (in_fault) {
		/* in_lru_fault only when the faulting VMA has recency */
		const struct rp_page *rp = &x->t->pages[first];
		uint32_t mm = task_mm(x, ev->task);

		if (rp_page_type(rp) == RP_FILE && mm) {
			const struct rp_flist *fl = &x->imap[rp->owner];

			for (uint32_t i = 0; i < fl->n; i++) {
				const struct mr_vma *v = &x->vmas[fl->live[i]].v;

				if (v->mm == mm && rp->key >= v->pgoff && rp->key - v->pgoff < vma_pages(v)) {
					if (!mr_vma_has_recency(v))
						in_fault = 0;
					break;
				}
			}
		}
		if (in_fault)
			ctx |= MR_ADD_IN_FAULT;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint32_t page = first + (uint32_t)i;

		if (!(x->t->pages[page].info & RP_PAGE_VALID) ||
		    rp_page_type(&x->t->pages[page]) == RP_ANON ||
		    (x->m.folios[page].flags & MR_PG_RESIDENT))
			continue;
		rp_insert_page(x, page, ctx, 0);
		x->c[C_RA_PAGES]++;
		notify_access(x, page, nu ? nu + i : NULL);
		if (in_fault) {
			if (run != MR_NONE && run + runlen == page) {
				runlen++;
			} else {
				if (run != MR_NONE)
					ra_note(x, ev->task, run, runlen);
				run = page;
				runlen = 1;
			}
		}
	}
	if (run != MR_NONE)
		ra_note(x, ev->task, run, runlen);
}

static void ev_free(struct rp_machine *x, const struct mr_event *ev)
{
	uint64_t n = ev->size;

	if (ev->page >= x->m.nr_pages) {
		x->c[C_BAD]++;
		return;
	}
	if (n > (uint64_t)x->m.nr_pages - ev->page)
		n = (uint64_t)x->m.nr_pages - ev->page;
	for (uint64_t i = 0; i < n; i++)
		rp_folio_free(x, ev->page + (uint32_t)i);
}

static void exit_mm(struct rp_machine *x, uint32_t mm)
{
	struct rp_mmx *mx = &x->mmx[mm];
	uint64_t lo = x->t->mm_anon_off[mm], hi = x->t->mm_anon_off[mm + 1];

	/* exit_mmap(): unmap every VMA, free what is left of the anonymous memory */
	while (mx->nlive)
		rp_vma_unmap(x, mx->live[0], 1);
	for (uint64_t i = lo; i < hi; i++)
		rp_folio_free(x, x->t->anon_index[i]);
	while (mx->ntbl) {
		/* tables outside any VMA (cannot happen) */
		struct mr_pte_table *pt = tbl(x, mx->tbl[mx->ntbl - 1].table);

		for (unsigned s = 0; s < MR_PTRS_PER_TABLE && pt->nr_present; s++)
			if (pt->page[s] != MR_NONE)
				rp_zap_pte(x, NULL, pt, s, 0);
		rp_table_free(x, mx->tbl[--mx->ntbl].table);
	}
	mx->dead = 1;
	x->m.mms[mm].alive = 0;
	x->m.mms[mm].lru_gen_bitmap = 0;
	x->c[C_MM_EXITS]++;
}

static void ev_exit(struct rp_machine *x, const struct mr_event *ev)
{
	uint32_t task = ev->task, mm;

	if (!task || task >= x->t->nr_tasks || x->task_exited[task])
		return;
	x->task_exited[task] = 1;
	mm = x->t->task_mm[task];
	if (!mm || x->mmx[mm].dead)
		return;
	if (x->mmx[mm].tasks_left)
		x->mmx[mm].tasks_left--;
	if (!x->mmx[mm].tasks_left)
		exit_mm(x, mm);
}

static void run_script_cmd(struct rp_machine *x, const struct rp_script_cmd *cmd, uint64_t t);

static void ev_marker(struct rp_machine *x, const struct mr_event *ev)
{
	x->c[C_MARKERS]++;
	if (!x->script)
		return;
	for (size_t i = x->script->n_timed; i < x->script->n; i++)
		if (x->script->cmds[i].marker == ev->arg)
			run_script_cmd(x, &x->script->cmds[i], ev->time);
}

static void step(struct rp_machine *x, const struct mr_event *ev, const uint64_t *nu)
{
	uint32_t vi;

	if (ev->task)
		use_mm(x, task_mm(x, ev->task));
	switch (ev->kind) {
	case MR_EV_ACCESS:
		ev_access(x, ev, nu);
		break;
	case MR_EV_FD_ACCESS:
		ev_fd_access(x, ev, nu);
		break;
	case MR_EV_READAHEAD:
		ev_insert(x, ev, (ev->flags & MR_RA_IN_FAULT) != 0, nu);
		break;
	case MR_EV_PC_INSERT:
		ev_insert(x, ev, (ev->flags & MR_PC_IN_FAULT) != 0, nu);
		break;
	case MR_EV_FREE:
		ev_free(x, ev);
		break;
	case MR_EV_MAP:
		vi = ev->arg <= UINT32_MAX ? rp_trace_vma_by_id(x->t, (uint32_t)ev->arg) : MR_NONE;
		if (vi == MR_NONE)
			x->c[C_BAD]++;
		else
			rp_vma_activate(x, vi);
		break;
	case MR_EV_UNMAP:
		vi = ev->arg <= UINT32_MAX ? rp_trace_vma_by_id(x->t, (uint32_t)ev->arg) : MR_NONE;
		if (vi == MR_NONE)
			x->c[C_BAD]++;
		else
			rp_vma_unmap(x, vi, 1);
		break;
	case MR_EV_EXIT:
		ev_exit(x, ev);
		break;
	case MR_EV_MARKER:
		ev_marker(x, ev);
		break;
	case MR_EV_FAULT:
		x->c[C_H_FAULT]++;
		if (ev->flags & MR_FAULT_MAJOR)
			x->c[C_H_MAJFAULT]++;
		break;
	case MR_EV_PC_DELETE:
		x->c[C_H_PC_DELETE]++;
		break;
	case MR_EV_REFAULT:
		/* the kernel's own labels (memcg tracepoint) apart from delete->insert key
		 * matches, which also count invalidations: users compare the two */
		if (ev->flags & MR_REFAULT_KERNEL) {
			/* KERNEL without FILE: an anon label (swap-in), see mr_event.h (3) */
			int file = (ev->flags & MR_REFAULT_FILE) != 0;

			x->c[C_H_WS_REFAULT]++;
			x->c[file ? C_H_WS_REFAULT_FILE : C_H_WS_REFAULT_ANON]++;
			if (ev->flags & MR_REFAULT_WORKINGSET) {
				x->c[C_H_WS_RESTORE]++;
				x->c[file ? C_H_WS_RESTORE_FILE : C_H_WS_RESTORE_ANON]++;
			}
			break;
		}
		x->c[C_H_REFAULT]++;
		if (ev->flags & MR_REFAULT_FILE)
			x->c[C_H_REFAULT_FILE]++;
		break;
	case MR_EV_SWAP_IN:
		x->c[C_H_SWAP_IN]++;
		break;
	case MR_EV_SWAP_OUT:
		x->c[C_H_SWAP_OUT]++;
		break;
	case MR_EV_ACTIVATE:
		if (ev->flags & MR_REFAULT_KERNEL) { /* WORKINGSET_ACTIVATE, see mr_event.h */
			x->c[C_H_WS_ACTIVATE]++;
			/* its page's type: the recorder puts it on the refaulted page */
			if (ev->page < x->m.nr_pages &&
			    (x->t->pages[ev->page].info & RP_PAGE_VALID))
				x->c[rp_page_type(&x->t->pages[ev->page]) == RP_FILE ?
				     C_H_WS_ACTIVATE_FILE : C_H_WS_ACTIVATE_ANON]++;
		} else {
			x->c[C_H_ACTIVATE]++;
		}
		break;
	case MR_EV_SCAN_END:
		x->c[C_H_SCANS]++;
		break;
	case MR_EV_LOST:
		x->c[C_H_LOST] += ev->arg;
		break;
	default:
		break;
	}
}

/* ---- time-driven work: samples, snapshots, script commands, writeback ---- */

static void record_sample(struct rp_machine *x, uint64_t t)
{
	uint64_t *row;
	size_t k = 0;

	if (x->ts_n == x->ts_cap)
		return;
	row = x->ts_val + x->ts_n * x->ts_nnames;
	x->ts_t[x->ts_n++] = t;
	for (unsigned i = 0; i < MR_NR_VMSTAT; i++)
		row[k++] = x->vmstat[i];
	for (size_t i = 0; i < TS_NENGINE; i++)
		row[k++] = x->c[rp_ts_engine[i]];
	if (x->m.nr_memcgs > 1)
		for (uint32_t i = 0; i < x->m.nr_memcgs; i++)
			row[k++] = x->memcg[i].usage;
}

static void take_snapshot(struct rp_machine *x, uint64_t t, int full, const char *why)
{
	struct mr_result_snapshot *s;
	size_t n;

	if (!x->ops->lru_gen_show)
		return;
	for (;;) {
		if (!x->showbuf || x->showcap < 4096) {
			char *nb = realloc(x->showbuf, 1 << 16);

			if (!nb)
				return;
			x->showbuf = nb;
			x->showcap = 1 << 16;
		}
		n = x->ops->lru_gen_show(x->pol, full, x->showbuf, x->showcap);
		if (n + 1 < x->showcap || x->showcap >= (64u << 20))
			break;
		{
			char *nb = realloc(x->showbuf, x->showcap * 2);

			if (!nb)
				return;
			x->showbuf = nb;
			x->showcap *= 2;
		}
	}
	if (n >= x->showcap)
		n = x->showcap - 1;
	if (x->nsnaps == x->capsnaps) {
		size_t cap = x->capsnaps ? 2 * x->capsnaps : 16;
		struct mr_result_snapshot *ns = realloc(x->snaps, cap * sizeof(*ns));

		if (!ns)
			return;
		x->snaps = ns;
		x->capsnaps = cap;
	}
	s = &x->snaps[x->nsnaps];
	s->text = malloc(n + 1);
	if (!s->text)
		return;
	memcpy(s->text, x->showbuf, n);
	s->text[n] = 0;
	s->t = t;
	s->full = full;
	s->why = why;
	x->nsnaps++;
}

static void run_script_cmd(struct rp_machine *x, const struct rp_script_cmd *cmd, uint64_t t)
{
	struct mr_error e = { 0 };
	struct mr_result_script_log *l;
	uint64_t saved = x->m.now_ns;
	int rc;

	x->m.now_ns = t;
	x->c[C_SCRIPT_CMDS]++;
	rc = x->ops->lru_gen_command ? x->ops->lru_gen_command(x->pol, cmd->text, &e) : MR_ENOTSUP;
	if (!x->wb_delay)
		rp_wb_complete_all(x); /* a debugfs eviction is a reclaim invocation too */
	if (rc)
		x->c[C_SCRIPT_ERRORS]++;
	if (x->nlog == x->caplog) {
		size_t cap = x->caplog ? 2 * x->caplog : 16;
		struct mr_result_script_log *nl = realloc(x->log, cap * sizeof(*nl));

		if (nl) {
			x->log = nl;
			x->caplog = cap;
		}
	}
	if (x->nlog < x->caplog) {
		l = &x->log[x->nlog++];
		memset(l, 0, sizeof(*l));
		l->t = t;
		l->line = cmd->line;
		l->rc = rc;
		snprintf(l->cmd, sizeof(l->cmd), "%s", cmd->text);
		snprintf(l->msg, sizeof(l->msg), "%.159s", rc ? (e.msg[0] ? e.msg : mr_strerror(rc)) : "");
	}
	take_snapshot(x, t, 0, "script");
	x->m.now_ns = saved;
}

void rp_set_next_due(struct rp_machine *x)
{
	uint64_t d = x->next_sample;

	if (x->snap_every && x->next_snap < d)
		d = x->next_snap;
	if (x->script && x->next_cmd < x->script->n_timed && x->script->cmds[x->next_cmd].time < d)
		d = x->script->cmds[x->next_cmd].time;
	if (x->wb_delay && x->wbb_head < x->wbb_tail && x->wbb[x->wbb_head % WB_BATCHES].due < d)
		d = x->wbb[x->wbb_head % WB_BATCHES].due;
	x->next_due = d;
}

/* Everything due at or before t, in time order (writeback, script, sample, snapshot). */
static void process_due(struct rp_machine *x, uint64_t t)
{
	for (;;) {
		uint64_t wb = UINT64_MAX, cmd = UINT64_MAX, d;

		if (x->wb_delay && x->wbb_head < x->wbb_tail)
			wb = x->wbb[x->wbb_head % WB_BATCHES].due;
		if (x->script && x->next_cmd < x->script->n_timed)
			cmd = x->script->cmds[x->next_cmd].time;
		d = wb;
		if (cmd < d)
			d = cmd;
		if (x->next_sample < d)
			d = x->next_sample;
		if (x->snap_every && x->next_snap < d)
			d = x->next_snap;
		if (d > t)
			break;
		x->m.now_ns = d;
		if (wb == d) {
			rp_wb_complete_until(x, d);
		} else if (cmd == d) {
			run_script_cmd(x, &x->script->cmds[x->next_cmd++], d);
		} else if (x->next_sample == d) {
			record_sample(x, d);
			x->next_sample = x->next_sample > UINT64_MAX - x->interval ? UINT64_MAX
							: x->next_sample + x->interval;
		} else {
			take_snapshot(x, d, 0, "every");
			x->next_snap = x->next_snap > UINT64_MAX - x->snap_every ? UINT64_MAX
							: x->next_snap + x->snap_every;
		}
	}
	rp_set_next_due(x);
}

#define PF_DIST 8 /* events ahead: folio at 2 * PF_DIST, its PTE or row at PF_DIST */

/*
 * Software pipelining over the batch. The folio of a later event first; then, for an
 * access or fd access a few events later, what it will need: the PTE's young bits on a
 * hit; on a miss the page row, the shadow, the policy's per-page state, and the PTE the
 * folio last had (an anon page comes back to the same one).
 */
static inline void prefetch_ahead(const struct rp_machine *x, const struct mr_event *ev,
				  size_t i, size_t n)
{
	const uint32_t nr_pages = x->m.nr_pages;
	const struct mr_event *e;
	const struct mr_folio *f;
	uint32_t page;

	if (i + 2 * PF_DIST < n && ev[i + 2 * PF_DIST].page < nr_pages)
		mr_prefetch(&x->m.folios[ev[i + 2 * PF_DIST].page]);
	if (i + PF_DIST >= n)
		return;
	e = &ev[i + PF_DIST];
	page = e->page;
	if ((e->kind != MR_EV_ACCESS && e->kind != MR_EV_FD_ACCESS) || page >= nr_pages)
		return;
	f = &x->m.folios[page];
	if (e->kind == MR_EV_ACCESS && f->mapcount && LOC_TABLE(f->pte) < x->ntables) {
		mr_prefetchw(&tbl(x, LOC_TABLE(f->pte))->bits[LOC_SLOT(f->pte)]);
		if (f->type == RP_FILE && !(f->flags & E_HINT)) /* the owner check reads page[] */
			mr_prefetch(&tbl(x, LOC_TABLE(f->pte))->page[LOC_SLOT(f->pte)]);
		if (x->ops->access && x->ops->page_priv_size)
			mr_prefetchw(mr_policy_page(x->pol, page));
		return;
	}
	if (x->ops->page_priv_size)
		mr_prefetchw(mr_policy_page(x->pol, page));
	if (f->flags & MR_PG_RESIDENT)
		return;
	mr_prefetch(&x->slot[page]);
	if (e->kind == MR_EV_ACCESS) {
		mr_prefetch(&x->t->pages[page]);
		if (LOC_TABLE(f->pte) < x->ntables) {
			mr_prefetchw(&tbl(x, LOC_TABLE(f->pte))->page[LOC_SLOT(f->pte)]);
			mr_prefetchw(&tbl(x, LOC_TABLE(f->pte))->bits[LOC_SLOT(f->pte)]);
		}
	}
}

int rp_machine_run(struct rp_machine *x, const struct mr_event *ev, size_t n, const uint64_t *nu)
{
	const uint32_t nr_pages = x->m.nr_pages;

	for (size_t i = 0; i < n; i++) {
		const struct mr_event *e = &ev[i];

		prefetch_ahead(x, ev, i, n);

		if (e->time >= x->next_due)
			process_due(x, e->time);
		x->m.now_ns = e->time;
		x->m.cpu = e->cpu;
		step(x, e, nu);
		if (nu) {
			uint32_t first;

			nu += rp_event_refs(e, nr_pages, &first);
		}
	}
	x->c[C_EVENTS] += n;
	if (n)
		x->last_time = ev[n - 1].time;
	return x->failed;
}

static void emit_model(void *arg, const char *name, double value)
{
	struct rp_machine *x = arg;

	if (x->nmodel == x->capmodel) {
		size_t cap = x->capmodel ? 2 * x->capmodel : 32;
		struct mr_result_model_counter *nm = realloc(x->model, cap * sizeof(*nm));

		if (!nm)
			return;
		x->model = nm;
		x->capmodel = cap;
	}
	snprintf(x->model[x->nmodel].name, sizeof(x->model[0].name), "%s", name);
	x->model[x->nmodel].value = value;
	x->nmodel++;
}

int rp_machine_finish(struct rp_machine *x)
{
	uint64_t end = x->t->t_last > x->last_time ? x->t->t_last : x->last_time;

	/* script commands after the last event run at their times, samples between them */
	if (x->script && x->script->n_timed && x->script->cmds[x->script->n_timed - 1].time > end)
		end = x->script->cmds[x->script->n_timed - 1].time;
	process_due(x, end);
	x->m.now_ns = end;
	if (!x->ts_n || x->ts_t[x->ts_n - 1] != end)
		record_sample(x, end);
	take_snapshot(x, end, 0, "end");
	take_snapshot(x, end, 1, "end");
	if (x->ops->model_counters)
		x->ops->model_counters(x->pol, emit_model, x);
	if (x->ops->check)
		x->c[C_CHECK] += x->ops->check(x->pol);
	return x->failed;
}

