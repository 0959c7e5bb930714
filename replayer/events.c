// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - what each trace event does to the machine (the semantics of mr_replay.h),
 * and the work driven by trace time: time series samples, lru_gen snapshots, script
 * commands, writeback completion. rp_machine_run() is the per-event loop.
 */
#include "machine_int.h"

static void ra_note(struct rp_machine *mach, uint32_t task, uint32_t first, uint32_t len)
{
	if (mach->ra_task != task) {
		mach->ra_task = task;
		mach->ra_n = 0;
	}
	if (mach->ra_n == RA_RANGES) {
		memmove(&mach->ra_first[0], &mach->ra_first[1], (RA_RANGES - 1) * sizeof(uint32_t));
		memmove(&mach->ra_len[0], &mach->ra_len[1], (RA_RANGES - 1) * sizeof(uint32_t));
		mach->ra_n--;
	}
	mach->ra_first[mach->ra_n] = first;
	mach->ra_len[mach->ra_n] = len;
	mach->ra_n++;
}

/* ---- events ---- */

/* An access with no mapping to go through: like an fd access. */
static void access_unmapped(struct rp_machine *mach, uint32_t page, int write)
{
	struct mr_folio *f;

	mach->c[C_UNMAPPED_ACCESS]++;
	if (!rp_resident(mach, page))
		rp_insert_page(mach, page, 0, write);
	f = rp_folio(mach, page);
	if (mach->ops->mark_accessed)
		mach->ops->mark_accessed(mach->pol, rp_frame(mach, page));
	if (write) {
		f->flags |= MR_PG_DIRTY;
		if (ptype(mach, page) == RP_FILE)
			rp_file_dirtied(mach, page);
	}
}

static void ev_access(struct rp_machine *mach, const struct mr_event *ev, const uint64_t *nu)
{
	const struct rp_page *rp;
	struct mr_folio *f;
	struct rp_pg *g;
	uint32_t page = ev->page, mm, vi, frame;
	int write = (ev->flags & MR_ACC_WRITE) != 0;
	uint8_t bits = (uint8_t)(MR_PTE_YOUNG | (write ? MR_PTE_DIRTY : 0));
	uint64_t addr = 0;
	uint32_t unseen = 0;

	mach->c[C_ACCESSES]++;
	if (__builtin_expect(page >= mach->m.nr_pages, 0)) {
		mach->c[C_BAD]++;
		return;
	}
	g = &mach->pg[page];
	frame = (g->flags & MR_PG_RESIDENT) ? g->frame : MR_NONE;
	if (__builtin_expect(frame != MR_NONE, 1)) {
		/* the usual case: the PTE the page's hint names, with no look at the folio.
		 * An anon page has one mapping, so the hint is it (E_HINT while mapped); a
		 * file page's may be in another mm, or be a zapped PTE (no E_HINT) that maps
		 * it again: only a PTE that maps it holds its frame. */
		uint32_t ti = LOC_TABLE(g->pte);
		unsigned s = LOC_SLOT(g->pte);
		int file = (g->flags & PG_TYPE_MASK) == (RP_FILE << PG_TYPE_SHIFT);

		if ((g->flags & E_HINT) ? !file || mach->tbl_mm[ti] == task_mm(mach, ev->task)
					: file && ti < mach->ntables &&
					  mach->tbl_mm[ti] == task_mm(mach, ev->task) &&
					  tbl(mach, ti)->page[s] == frame) {
			struct mr_pte_table *pt = tbl(mach, ti);

			(void)MR_WARN_ON_ONCE(pt->page[s] != frame);
			pt->bits[s] |= bits;
			pmd_mark(mach, ti);
			goto done;
		}
	}
	f = frame != MR_NONE ? &mach->m.folios[frame] : NULL;
	rp = &mach->t->pages[page];
	if (!(rp->info & RP_PAGE_VALID)) {
		mach->c[C_BAD]++;
		return;
	}
	mm = rp_page_type(rp) == RP_FILE ? task_mm(mach, ev->task) : rp->owner;
	vi = rp_vma_for_page(mach, page, mm, &addr);
	if (vi == MR_NONE) {
		access_unmapped(mach, page, write);
		goto done;
	}
	if (!f) {
		/* handle_mm_fault(): lru_gen_enter_fault() sets in_lru_fault by recency */
		unsigned ctx = mr_vma_has_recency(&mach->vmas[vi].v) ? MR_ADD_IN_FAULT : 0;
		int major = rp_page_type(rp) == RP_FILE || (mach->pg[page].flags & E_SWAP);

		/* do_read_fault(): the window first, then ->fault() reads the page */
		if (!write && rp_page_type(rp) == RP_FILE)
			rp_fault_around(mach, vi, mm, addr, page, ev->task);
		rp_insert_page(mach, page, ctx, write);
		rp_install_pte(mach, page, mm, addr, write);
		count(mach, page, MR_VM_PGFAULT);
		/* a recorded read fault: the trace shows the next touch only if it faults */
		if (!write && ctx && MR_ACC_SRC(ev->flags) == MR_SRC_FAULT)
			unseen = E_UNSEEN;
		if (major)
			count(mach, page, MR_VM_PGMAJFAULT);
		DETAIL(mach, rp_detail_fault(mach, page, vi, major));
	} else {
		uint32_t ti = table_find(mach, mm, addr >> 21);
		unsigned s = (unsigned)((addr >> 12) & 511);

		if (ti != MR_NONE && tbl(mach, ti)->page[s] == frame) {
			/* mapped here too (a shared file page): the hint pointed elsewhere */
			struct mr_pte_table *pt = tbl(mach, ti);

			pt->bits[s] |= bits;
			pmd_mark(mach, ti);
			g->pte = f->pte = LOC(ti, s);
			g->flags |= E_HINT;
		} else {
			/* filemap_map_pages()/do_swap_page() on a resident folio: minor */
			if (!write && rp_page_type(rp) == RP_FILE)
				rp_fault_around(mach, vi, mm, addr, page, ev->task);
			rp_install_pte(mach, page, mm, addr, write);
			count(mach, page, MR_VM_PGFAULT);
			if (rp_ra_major(mach, page, ev->task)) {
				count(mach, page, MR_VM_PGMAJFAULT);
				DETAIL(mach, rp_detail_fault(mach, page, vi, 1));
			} else {
				DETAIL(mach, rp_detail_fault(mach, page, vi, 0));
			}
		}
	}
done:
	/* a reference: it would have missed had the page been absent (mr_references) */
	mach->c[C_REFS]++;
	g->flags = (g->flags & ~E_UNSEEN) | unseen;
	if (mach->ra_n && mach->ra_task == ev->task)
		mach->ra_n = 0;
	notify_access(mach, page, nu);
}

static void ev_fd_access(struct rp_machine *mach, const struct mr_event *ev, const uint64_t *nu)
{
	uint32_t first;
	uint64_t n = rp_event_refs(ev, mach->m.nr_pages, &first);
	int write = (ev->flags & MR_ACC_WRITE) != 0;
	int dirtied = MR_ACC_SRC(ev->flags) == MR_SRC_DIRTY;

	if (!n)
		mach->c[C_BAD]++;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t page = first + (uint32_t)i;
		struct mr_folio *f;

		/* no page row, or an anonymous one (a missing row gives an anon folio) */
		if (ptype(mach, page) == RP_ANON) {
			mach->c[C_BAD]++;
			continue;
		}
		/* the recorder's writeback_dirty_folio: the folio turned dirty in a write()
		 * or a write fault, which marks nothing accessed; only a folio this machine
		 * no longer holds is brought in, as the write would have */
		if (dirtied && rp_resident(mach, page)) {
			f = rp_folio(mach, page);
			mach->c[C_FILE_DIRTIED]++;
			if (!(f->flags & MR_PG_DIRTY) && write) {
				f->flags |= MR_PG_DIRTY;
				if (ptype(mach, page) == RP_FILE)
					rp_file_dirtied(mach, page);
			}
			continue;
		}
		mach->c[C_FD_PAGES]++;
		mach->c[C_REFS]++;
		if (!rp_resident(mach, page))
			rp_insert_page(mach, page, 0, 0);
		f = rp_folio(mach, page);
		mach->pg[page].flags &= ~E_UNSEEN;
		/* filemap_read() / generic_perform_write(): folio_mark_accessed() */
		if (mach->ops->mark_accessed)
			mach->ops->mark_accessed(mach->pol, rp_frame(mach, page));
		if (write) {
			f->flags |= MR_PG_DIRTY;
			if (ptype(mach, page) == RP_FILE)
				rp_file_dirtied(mach, page); /* balance_dirty_pages() */
		}
		notify_access(mach, page, nu ? nu + i : NULL);
	}
}

/* READAHEAD window / PC_INSERT: fill the page cache, not accessed. */
static void ev_insert(struct rp_machine *mach, const struct mr_event *ev, int in_fault,
		      const uint64_t *nu)
{
	uint32_t first, run = MR_NONE, runlen = 0;
	uint64_t n = rp_event_refs(ev, mach->m.nr_pages, &first);
	unsigned ctx = MR_ADD_READAHEAD;

	if (!n) {
		mach->c[C_BAD]++;
		return;
	}
	if (in_fault) {
		/* in_lru_fault only when the faulting VMA has recency */
		const struct rp_page *rp = &mach->t->pages[first];
		uint32_t mm = task_mm(mach, ev->task);

		if (rp_page_type(rp) == RP_FILE && mm) {
			const struct rp_flist *fl = &mach->imap[rp->owner];

			for (uint32_t i = 0; i < fl->n; i++) {
				const struct mr_vma *v = &mach->vmas[fl->live[i]].v;

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

		if (!(mach->t->pages[page].info & RP_PAGE_VALID) ||
		    rp_page_type(&mach->t->pages[page]) == RP_ANON)
			continue;
		mach->c[C_REFS]++; /* an insertion: a miss when the page is absent */
		if (rp_resident(mach, page)) {
			/* no miss, but the page's next reference moves on (nextuse.c) */
			notify_access(mach, page, nu ? nu + i : NULL);
			continue;
		}
		rp_insert_page(mach, page, ctx, 0);
		mach->c[C_RA_PAGES]++;
		/* mapped around the fault later (filemap_map_pages()) without a fault of
		 * its own: its reads may never show in the trace */
		if ((ctx & MR_ADD_IN_FAULT) && ev->kind == MR_EV_PC_INSERT)
			mach->pg[page].flags |= E_UNSEEN;
		notify_access(mach, page, nu ? nu + i : NULL);
		if (in_fault) {
			if (run != MR_NONE && run + runlen == page) {
				runlen++;
			} else {
				if (run != MR_NONE)
					ra_note(mach, ev->task, run, runlen);
				run = page;
				runlen = 1;
			}
		}
	}
	if (run != MR_NONE)
		ra_note(mach, ev->task, run, runlen);
}

static void ev_free(struct rp_machine *mach, const struct mr_event *ev)
{
	uint64_t n = ev->size;

	if (ev->page >= mach->m.nr_pages) {
		mach->c[C_BAD]++;
		return;
	}
	if (n > (uint64_t)mach->m.nr_pages - ev->page)
		n = (uint64_t)mach->m.nr_pages - ev->page;
	for (uint64_t i = 0; i < n; i++)
		rp_folio_free(mach, ev->page + (uint32_t)i);
}

static void exit_mm(struct rp_machine *mach, uint32_t mm)
{
	struct rp_mmx *mx = &mach->mmx[mm];
	uint64_t lo = mach->t->mm_anon_off[mm], hi = mach->t->mm_anon_off[mm + 1];

	/* exit_mmap(): unmap every VMA, free what is left of the anonymous memory */
	while (mx->nlive)
		rp_vma_unmap(mach, mx->live[0], 1);
	for (uint64_t i = lo; i < hi; i++)
		rp_folio_free(mach, mach->t->anon_index[i]);
	while (mx->ntbl) {
		/* tables outside any VMA (cannot happen) */
		struct mr_pte_table *pt = tbl(mach, mx->tbl[mx->ntbl - 1].table);

		for (unsigned s = 0; s < MR_PTRS_PER_TABLE && pt->nr_present; s++)
			if (pt->page[s] != MR_NONE)
				rp_zap_pte(mach, NULL, pt, s, 0);
		rp_table_free(mach, mx->tbl[--mx->ntbl].table);
	}
	mx->dead = 1;
	mach->m.mms[mm].alive = 0;
	mach->m.mms[mm].lru_gen_bitmap = 0;
	mach->c[C_MM_EXITS]++;
}

static void ev_exit(struct rp_machine *mach, const struct mr_event *ev)
{
	uint32_t task = ev->task, mm;

	if (!task || task >= mach->t->nr_tasks || mach->task_exited[task])
		return;
	mach->task_exited[task] = 1;
	mm = mach->t->task_mm[task];
	if (!mm || mach->mmx[mm].dead)
		return;
	if (mach->mmx[mm].tasks_left)
		mach->mmx[mm].tasks_left--;
	if (!mach->mmx[mm].tasks_left)
		exit_mm(mach, mm);
}

static void run_script_cmd(struct rp_machine *mach, const struct rp_script_cmd *cmd, uint64_t t);

static void ev_marker(struct rp_machine *mach, const struct mr_event *ev)
{
	mach->c[C_MARKERS]++;
	if (!mach->script)
		return;
	for (size_t i = mach->script->n_timed; i < mach->script->n; i++)
		if (mach->script->cmds[i].marker == ev->arg)
			run_script_cmd(mach, &mach->script->cmds[i], ev->time);
}

static void step(struct rp_machine *mach, const struct mr_event *ev, const uint64_t *nu)
{
	uint32_t vi;

	/* lru_gen_use_mm(): at each switch-in where the trace has them, else (older
	 * traces) at every event of a task */
	if (ev->task && !mach->t->by_kind[MR_EV_SWITCH])
		use_mm(mach, task_mm(mach, ev->task));
	switch (ev->kind) {
	case MR_EV_ACCESS:
		ev_access(mach, ev, nu);
		break;
	case MR_EV_FD_ACCESS:
		ev_fd_access(mach, ev, nu);
		break;
	case MR_EV_READAHEAD:
		ev_insert(mach, ev, (ev->flags & MR_RA_IN_FAULT) != 0, nu);
		break;
	case MR_EV_PC_INSERT:
		ev_insert(mach, ev, (ev->flags & MR_PC_IN_FAULT) != 0, nu);
		break;
	case MR_EV_FREE:
		ev_free(mach, ev);
		break;
	case MR_EV_MAP:
		vi = ev->arg <= UINT32_MAX ? rp_image_vma_by_id(mach->t, (uint32_t)ev->arg) : MR_NONE;
		if (vi == MR_NONE)
			mach->c[C_BAD]++;
		else
			rp_vma_activate(mach, vi);
		break;
	case MR_EV_UNMAP:
		vi = ev->arg <= UINT32_MAX ? rp_image_vma_by_id(mach->t, (uint32_t)ev->arg) : MR_NONE;
		if (vi == MR_NONE)
			mach->c[C_BAD]++;
		else
			rp_vma_unmap(mach, vi, 1);
		break;
	case MR_EV_EXIT:
		ev_exit(mach, ev);
		break;
	case MR_EV_SWITCH:
		if (ev->task)
			use_mm(mach, task_mm(mach, ev->task));
		break;
	case MR_EV_MARKER:
		ev_marker(mach, ev);
		break;
	case MR_EV_FAULT:
		mach->c[C_H_FAULT]++;
		if (ev->flags & MR_FAULT_MAJOR)
			mach->c[C_H_MAJFAULT]++;
		break;
	case MR_EV_PC_DELETE:
		mach->c[C_H_PC_DELETE]++;
		break;
	case MR_EV_REFAULT:
		/* the kernel's own labels (memcg tracepoint) apart from delete->insert key
		 * matches, which also count invalidations: users compare the two */
		if (ev->flags & MR_REFAULT_KERNEL) {
			/* KERNEL without FILE: an anon label (swap-in), see mr_event.h (3) */
			int file = (ev->flags & MR_REFAULT_FILE) != 0;

			mach->c[C_H_WS_REFAULT]++;
			mach->c[file ? C_H_WS_REFAULT_FILE : C_H_WS_REFAULT_ANON]++;
			if (ev->flags & MR_REFAULT_WORKINGSET) {
				mach->c[C_H_WS_RESTORE]++;
				mach->c[file ? C_H_WS_RESTORE_FILE : C_H_WS_RESTORE_ANON]++;
			}
			break;
		}
		mach->c[C_H_REFAULT]++;
		if (ev->flags & MR_REFAULT_FILE)
			mach->c[C_H_REFAULT_FILE]++;
		break;
	case MR_EV_SWAP_IN:
		mach->c[C_H_SWAP_IN]++;
		break;
	case MR_EV_SWAP_OUT:
		mach->c[C_H_SWAP_OUT]++;
		break;
	case MR_EV_ACTIVATE:
		if (ev->flags & MR_REFAULT_KERNEL) { /* WORKINGSET_ACTIVATE, see mr_event.h */
			mach->c[C_H_WS_ACTIVATE]++;
			/* its page's type: the recorder puts it on the refaulted page */
			if (ev->page < mach->m.nr_pages &&
			    (mach->t->pages[ev->page].info & RP_PAGE_VALID))
				mach->c[rp_page_type(&mach->t->pages[ev->page]) == RP_FILE ?
				     C_H_WS_ACTIVATE_FILE : C_H_WS_ACTIVATE_ANON]++;
		} else {
			mach->c[C_H_ACTIVATE]++;
		}
		break;
	case MR_EV_SCAN_END:
		mach->c[C_H_SCANS]++;
		break;
	case MR_EV_LOST:
		mach->c[C_H_LOST] += ev->arg;
		break;
	case RP_EV_FAULT_AROUND:
		rp_fault_around_unsampled(mach, ev->task, ev->size, ev->arg);
		if (mach->ra_n && mach->ra_task == ev->task)
			mach->ra_n = 0;
		break;
	case RP_EV_COW_BREAK:
		rp_cow_break(mach, ev->size, ev->arg);
		break;
	default:
		break;
	}
}

/* ---- time-driven work: samples, snapshots, script commands, writeback ---- */

static void record_sample(struct rp_machine *mach, uint64_t t)
{
	uint64_t *row;
	size_t k = 0;

	if (mach->ts_n == mach->ts_cap)
		return;
	row = mach->ts_val + mach->ts_n * mach->ts_nnames;
	mach->ts_t[mach->ts_n++] = t;
	for (unsigned i = 0; i < MR_NR_VMSTAT; i++)
		row[k++] = mach->vmstat[i];
	for (size_t i = 0; i < TS_NENGINE; i++)
		row[k++] = mach->c[rp_ts_engine[i]];
	if (mach->m.nr_memcgs > 1)
		for (uint32_t i = 0; i < mach->m.nr_memcgs; i++)
			row[k++] = mach->memcg[i].usage;
}

static void take_snapshot(struct rp_machine *mach, uint64_t t, int full, const char *why)
{
	struct mr_result_snapshot *s;
	size_t n;

	if (!mach->ops->lru_gen_show)
		return;
	for (;;) {
		if (!mach->showbuf || mach->showcap < 4096) {
			char *nb = realloc(mach->showbuf, 1 << 16);

			if (!nb)
				return;
			mach->showbuf = nb;
			mach->showcap = 1 << 16;
		}
		n = mach->ops->lru_gen_show(mach->pol, full, mach->showbuf, mach->showcap);
		if (n + 1 < mach->showcap || mach->showcap >= (64u << 20))
			break;
		{
			char *nb = realloc(mach->showbuf, mach->showcap * 2);

			if (!nb)
				return;
			mach->showbuf = nb;
			mach->showcap *= 2;
		}
	}
	if (n >= mach->showcap)
		n = mach->showcap - 1;
	if (mach->nsnaps == mach->capsnaps) {
		size_t cap = mach->capsnaps ? 2 * mach->capsnaps : 16;
		struct mr_result_snapshot *ns = realloc(mach->snaps, cap * sizeof(*ns));

		if (!ns)
			return;
		mach->snaps = ns;
		mach->capsnaps = cap;
	}
	s = &mach->snaps[mach->nsnaps];
	s->text = malloc(n + 1);
	if (!s->text)
		return;
	memcpy(s->text, mach->showbuf, n);
	s->text[n] = 0;
	s->t = t;
	s->full = full;
	s->why = why;
	mach->nsnaps++;
}

static void run_script_cmd(struct rp_machine *mach, const struct rp_script_cmd *cmd, uint64_t t)
{
	struct mr_error e = { 0 };
	struct mr_result_script_log *l;
	uint64_t saved = mach->m.now_ns;
	int rc;

	mach->m.now_ns = t;
	mach->c[C_SCRIPT_CMDS]++;
	rc = mach->ops->lru_gen_command ? mach->ops->lru_gen_command(mach->pol, cmd->text, &e) : MR_ENOTSUP;
	if (!mach->wb_delay)
		rp_wb_complete_all(mach); /* a debugfs eviction is a reclaim invocation too */
	if (rc)
		mach->c[C_SCRIPT_ERRORS]++;
	if (mach->nlog == mach->caplog) {
		size_t cap = mach->caplog ? 2 * mach->caplog : 16;
		struct mr_result_script_log *nl = realloc(mach->log, cap * sizeof(*nl));

		if (nl) {
			mach->log = nl;
			mach->caplog = cap;
		}
	}
	if (mach->nlog < mach->caplog) {
		l = &mach->log[mach->nlog++];
		memset(l, 0, sizeof(*l));
		l->t = t;
		l->line = cmd->line;
		l->rc = rc;
		snprintf(l->cmd, sizeof(l->cmd), "%s", cmd->text);
		snprintf(l->msg, sizeof(l->msg), "%.159s", rc ? (e.msg[0] ? e.msg : mr_strerror(rc)) : "");
	}
	take_snapshot(mach, t, 0, "script");
	mach->m.now_ns = saved;
}

void rp_set_next_due(struct rp_machine *mach)
{
	uint64_t d = mach->next_sample;

	if (mach->snap_every && mach->next_snap < d)
		d = mach->next_snap;
	if (mach->script && mach->next_cmd < mach->script->n_timed && mach->script->cmds[mach->next_cmd].time < d)
		d = mach->script->cmds[mach->next_cmd].time;
	if (mach->wb_delay && mach->wbb_head < mach->wbb_tail && mach->wbb[mach->wbb_head % WB_BATCHES].due < d)
		d = mach->wbb[mach->wbb_head % WB_BATCHES].due;
	if (mach->flushq_tail > mach->flushq_head && mach->next_kupdate < d)
		d = mach->next_kupdate;
	mach->next_due = d;
}

/* Everything due at or before t, in time order (writeback, script, sample, snapshot). */
static void process_due(struct rp_machine *mach, uint64_t t)
{
	for (;;) {
		uint64_t wb = UINT64_MAX, cmd = UINT64_MAX, kup = UINT64_MAX, d;

		if (mach->wb_delay && mach->wbb_head < mach->wbb_tail)
			wb = mach->wbb[mach->wbb_head % WB_BATCHES].due;
		if (mach->script && mach->next_cmd < mach->script->n_timed)
			cmd = mach->script->cmds[mach->next_cmd].time;
		if (mach->flushq_tail > mach->flushq_head)
			kup = mach->next_kupdate;
		d = wb;
		if (cmd < d)
			d = cmd;
		if (kup < d)
			d = kup;
		if (mach->next_sample < d)
			d = mach->next_sample;
		if (mach->snap_every && mach->next_snap < d)
			d = mach->next_snap;
		if (d > t)
			break;
		mach->m.now_ns = d;
		if (wb == d) {
			rp_wb_complete_until(mach, d);
		} else if (cmd == d) {
			run_script_cmd(mach, &mach->script->cmds[mach->next_cmd++], d);
		} else if (kup == d) {
			rp_flusher_periodic(mach, d);
		} else if (mach->next_sample == d) {
			record_sample(mach, d);
			mach->next_sample = mach->next_sample > UINT64_MAX - mach->interval ? UINT64_MAX
							: mach->next_sample + mach->interval;
			/* The series has room for the trace's span (and a few more); a script
			 * command far after the end would otherwise keep this loop taking
			 * samples with nowhere to put them, one turn per interval. Stop, and
			 * say where (rp_machine_series_cut()). */
			if (mach->ts_n == mach->ts_cap && mach->next_sample != UINT64_MAX) {
				mach->ts_cut = mach->next_sample;
				mach->next_sample = UINT64_MAX;
			}
		} else {
			take_snapshot(mach, d, 0, "every");
			mach->next_snap = mach->next_snap > UINT64_MAX - mach->snap_every ? UINT64_MAX
							: mach->next_snap + mach->snap_every;
		}
	}
	rp_set_next_due(mach);
}

#define PF_DIST 12 /* events ahead: rp_pg at 2 * PF_DIST, its PTE, folio or row at PF_DIST */

/*
 * Software pipelining over the batch. The page's rp_pg of a later event first; then, for
 * an access or fd access a few events later, what it will need: on a hit of a mapped
 * page its PTE's young bits (and nothing else: the folio is not read), plus the folio
 * and the policy's per-frame state where a hook will read them (an fd access's
 * folio_mark_accessed(), opt's access()); on a miss the page row and the PTE the page
 * last had (an anon page comes back to the same one).
 */
static inline void prefetch_ahead(const struct rp_machine *mach, const struct mr_event *ev,
				  size_t i, size_t n)
{
	const uint32_t nr_pages = mach->m.nr_pages;
	const struct mr_event *e;
	const struct rp_pg *g;
	uint32_t page, ti;

	if (i + 2 * PF_DIST < n && ev[i + 2 * PF_DIST].page < nr_pages)
		mr_prefetch(&mach->pg[ev[i + 2 * PF_DIST].page]);
	if (i + PF_DIST >= n)
		return;
	e = &ev[i + PF_DIST];
	page = e->page;
	if ((e->kind != MR_EV_ACCESS && e->kind != MR_EV_FD_ACCESS) || page >= nr_pages)
		return;
	g = &mach->pg[page];
	ti = LOC_TABLE(g->pte);
	if (g->flags & MR_PG_RESIDENT) {
		if (e->kind == MR_EV_ACCESS && ti < mach->ntables) {
			mr_prefetchw(&tbl(mach, ti)->bits[LOC_SLOT(g->pte)]);
			if (!(g->flags & E_HINT)) /* the owner check reads page[] */
				mr_prefetch(&tbl(mach, ti)->page[LOC_SLOT(g->pte)]);
		}
		if (e->kind == MR_EV_FD_ACCESS || mach->ops->access) {
			mr_prefetchw(&mach->m.folios[g->frame]);
			if (mach->ops->page_priv_size)
				mr_prefetchw(mr_policy_page(mach->pol, g->frame));
		}
		return;
	}
	if (mach->detail) /* a miss is coming: its detail counters too */
		rp_detail_prefetch(mach->detail, page);
	mr_prefetch(&mach->t->pages[page]); /* the fault's (or the read's insertion's) row */
	if (e->kind == MR_EV_ACCESS && ti < mach->ntables) {
		mr_prefetchw(&tbl(mach, ti)->page[LOC_SLOT(g->pte)]);
		mr_prefetchw(&tbl(mach, ti)->bits[LOC_SLOT(g->pte)]);
	}
}

/*
 * A later stage for a fault of a mapped file page PF_DIST / 2 events ahead, once its row
 * (prefetched above) is in cache: the page-cache slots and residency bits fault-around
 * will read for its window (mm.c, rp_fault_around(): the fault_around pages around it,
 * within 2 * fault_around - 1 slots of its own). Without it each file fault waited on
 * the fmap line of its window (13 % of `lru` at 10 % on the bench's Zipf trace).
 */
static inline void prefetch_window(const struct rp_machine *mach, const struct mr_event *e)
{
	const struct rp_image *t = mach->t;
	uint64_t s, lo, hi, w = mach->fault_around - 1;

	if (!w)
		return;
	if (e->kind == RP_EV_FAULT_AROUND) /* an unsampled page's fault (sample.c) */
		s = fmap_slot(t, e->size, e->arg);
	else if (e->kind == MR_EV_ACCESS && e->page < mach->m.nr_pages &&
		 !(mach->pg[e->page].flags & MR_PG_RESIDENT))
		s = fa_slot(t, e->page);
	else
		return;
	if (s == UINT64_MAX)
		return;
	lo = s > w ? s - w : 0;
	hi = s + w < t->nr_fmap ? s + w : t->nr_fmap;
	mr_prefetch(&mach->fa_resident[lo >> 6]);
	if (hi >> 6 != lo >> 6)
		mr_prefetch(&mach->fa_resident[hi >> 6]);
	for (uint64_t x = lo & ~(uint64_t)15; x <= hi; x += 16)
		mr_prefetch(&t->fmap[x]);
}

/*
 * Close the open segment (docs/results-schema.md, "segments"): copy the counters and
 * the time of its last event. The next one starts with the event at t_next.
 */
static void seg_close(struct rp_machine *mach, uint64_t events, uint64_t t_last, uint64_t t_next)
{
	uint64_t *cum = mach->seg_cum + (size_t)mach->seg_done * NR_SEG_CTR;

	memcpy(cum, mach->vmstat, sizeof(mach->vmstat));
	memcpy(cum + MR_NR_VMSTAT, mach->c, sizeof(mach->c));
	/* the event count is added once per batch (rp_machine_run()); at a boundary inside
	 * one it is the events before the boundary, not before the batch */
	cum[MR_NR_VMSTAT + C_EVENTS] = events;
	mach->seg[mach->seg_done].t_last = t_last;
	if (++mach->seg_done < mach->nsegs)
		mach->seg[mach->seg_done].t_first = t_next;
	/* the last one is closed by rp_machine_finish(), after the end's work */
	mach->seg_next = mach->seg_done + 1 < mach->nsegs ? mach->seg[mach->seg_done].ev_end
							  : UINT64_MAX;
}

int rp_machine_run(struct rp_machine *mach, const struct mr_event *ev, size_t n, const uint64_t *nu)
{
	const uint32_t nr_pages = mach->m.nr_pages;
	const uint64_t done = mach->c[C_EVENTS]; /* events before this batch */

	if (n && !done && mach->nsegs)
		mach->seg[0].t_first = ev[0].time;
	/* The batch is cut at segment boundaries, so that the loop over events has no
	 * test of its own for them: the counters are copied between two stretches. */
	for (size_t i = 0; i < n;) {
		size_t stop = n;

		if (mach->seg_next <= done + i) {
			seg_close(mach, done + i, i ? ev[i - 1].time : mach->last_time, ev[i].time);
			continue;
		}
		if (mach->seg_next - (done + i) < n - i)
			stop = i + (size_t)(mach->seg_next - (done + i));
		for (; i < stop; i++) {
			const struct mr_event *e = &ev[i];

			if (mach->prefetch) {
				prefetch_ahead(mach, ev, i, n);
				if (i + PF_DIST / 2 < n)
					prefetch_window(mach, &ev[i + PF_DIST / 2]);
			}

			if (e->time >= mach->next_due)
				process_due(mach, e->time);
			mach->m.now_ns = e->time;
			mach->m.cpu = e->cpu;
			step(mach, e, nu);
			if (__builtin_expect(mach->trace != NULL, 0))
				rp_trace_step(mach, e, done + i);
			if (nu) {
				uint32_t first;

				nu += rp_event_refs(e, nr_pages, &first);
			}
		}
	}
	mach->c[C_EVENTS] += n;
	if (n)
		mach->last_time = ev[n - 1].time;
	return mach->failed;
}

static void emit_model(void *arg, const char *name, double value)
{
	struct rp_machine *mach = arg;

	if (mach->nmodel == mach->capmodel) {
		size_t cap = mach->capmodel ? 2 * mach->capmodel : 32;
		struct mr_result_model_counter *nm = realloc(mach->model, cap * sizeof(*nm));

		if (!nm)
			return;
		mach->model = nm;
		mach->capmodel = cap;
	}
	snprintf(mach->model[mach->nmodel].name, sizeof(mach->model[0].name), "%s", name);
	mach->model[mach->nmodel].value = value;
	mach->nmodel++;
}

/* A parameter whose code path never ran: a toggle_idle note (docs/results-schema.md). */
static void note_idle(void *arg, const char *param, const char *why)
{
	struct rp_machine *mach = arg;
	size_t k = mach->nnotes;

	if (k == RP_MAX_NOTES)
		return;
	snprintf(mach->note_text[k], sizeof(mach->note_text[k]),
		 "%.64s never acted: %.200s, so this run reclaims as without it", param, why);
	mach->notes[k] = (struct mr_result_note){ "toggle_idle", mach->note_text[k] };
	mach->nnotes++;
}

int rp_machine_finish(struct rp_machine *mach)
{
	uint64_t end = mach->t->t_last > mach->last_time ? mach->t->t_last : mach->last_time;

	/* script commands after the last event run at their times, samples between them */
	if (mach->script && mach->script->n_timed && mach->script->cmds[mach->script->n_timed - 1].time > end)
		end = mach->script->cmds[mach->script->n_timed - 1].time;
	process_due(mach, end);
	if (mach->ts_cut > end)
		mach->ts_cut = 0; /* the sample it stopped at would not have come */
	mach->m.now_ns = end;
	if (!mach->ts_n || mach->ts_t[mach->ts_n - 1] != end) {
		if (mach->ts_n == mach->ts_cap && !mach->ts_cut)
			mach->ts_cut = end;
		record_sample(mach, end);
	}
	take_snapshot(mach, end, 0, "end");
	take_snapshot(mach, end, 1, "end");
	if (mach->ops->model_counters)
		mach->ops->model_counters(mach->pol, emit_model, mach);
	if (mach->ops->idle_params)
		mach->ops->idle_params(mach->pol, note_idle, mach);
	if (mach->ops->check)
		mach->c[C_CHECK] += mach->ops->check(mach->pol);
	/* the last segment ends with the run: what the end does (writeback, commands after
	 * the last event, the final check) is its part. A trace that gave fewer events than
	 * its chunks said keeps the segments it filled. */
	if (mach->nsegs && mach->seg_done < mach->nsegs) {
		if (mach->c[C_EVENTS] < mach->seg[mach->seg_done].ev_first + 1)
			mach->nsegs = mach->seg_done; /* the open one has no event */
		else
			mach->nsegs = mach->seg_done + 1;
		if (mach->nsegs) {
			mach->seg[mach->nsegs - 1].ev_end = mach->c[C_EVENTS];
			mach->seg_done = mach->nsegs - 1;
			seg_close(mach, mach->c[C_EVENTS], mach->last_time, 0);
		}
	}
	return mach->failed;
}

