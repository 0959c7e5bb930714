// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c - perf records to trace events: page faults and hardware samples (ACCESS on
 * the page of the address, FAULT), the tracepoints (page-cache inserts, deletions and
 * reads, readahead, munmap, exit_mmap, the W / X bits of faults, the kernel's refault
 * labels paired with the insert or swap-in they belong to) and the side band (MMAP2,
 * COMM, FORK, EXIT: VMAs, exec, tasks). rec_process() takes one record of a ring in time
 * order (perf.c merges the rings); the events go to that ring's stream.
 */
/* libperf's tree header first: its struct perf_event_attr is the size libperf copies. */
#include <linux/perf_event.h>
#include <perf/event.h>

#include <stdio.h>
#include <string.h>

#include "rec_int.h"

#define PFE_PENDING 0x80000000u /* rec_task.pf_err: a page_fault_user waits for its fault */

/*
 * A page-cache deletion by a task outside the cgroup (kswapd, another cgroup's direct
 * reclaim, kdamond, a truncation): the cgroup's when the trace knows a page of the
 * folio (faulted, inserted or read by its tasks during the recording).
 */
static int delete_is_ours(struct rec *r, uint64_t dev, uint64_t ino, uint64_t index,
			  uint64_t n)
{
	uint32_t file = rec_file_find(r, dev, ino);

	for (uint64_t i = 0; file && i < n; i++)
		if (rec_page_find(r, MR_PAGE_FILE, file, index + i) != MR_PAGE_NONE)
			return 1;
	return 0;
}

/*
 * The WORKINGSET_*_ANON labels a task collected (on_memcg()) that no major fault of it
 * claims: counted in the metadata only. Called when the task's next sample says its
 * labels were not those of a swap-in fault (a minor fault, a page-cache insert or read,
 * munmap, a fault entry, exec, exit) and at the end of the recording.
 */
void rec_drop_swapin(struct rec *r, uint32_t task)
{
	struct rec_task *tk = &r->tasks[task];

	r->rf_anon_unattached += tk->sw_pages;
	tk->sw_labels = 0;
	tk->sw_pages = 0;
}

/*
 * A major fault of a task that collected anon refault labels since its last sample: the
 * swap-in of that fault labelled them (mm/memory.c:do_swap_page() calls
 * workingset_refault() before mm_account_fault() samples PERF_COUNT_SW_PAGE_FAULTS_MAJ;
 * a swap-in that waited for its read ends as a retried fault, which is major too).
 * One label: the folio of the faulting page, REFAULT (KERNEL, + WORKINGSET when
 * RESTORE_ANON came with it) then ACTIVATE (KERNEL) for each of its pages, at the
 * fault's time, task and CPU (ev: the fault's ACCESS). An order-0 label sits on the
 * fault's page; a large folio (mTHP swap-in, SWP_SYNCHRONOUS_IO devices) on the
 * naturally aligned virtual range around it when that is private anon memory inside the
 * VMA (do_swap_page() maps it there), else it is counted only. Several labels: swap
 * readahead read neighbours too (swap_vma_readahead() / swap_cluster_readahead(), in
 * address or swap-slot order) and which label is the faulting page's is unknown, so
 * all are counted only.
 */
static int claim_swapin(struct rec *r, int ring, const struct mr_event *ev, uint32_t mm,
			const struct rec_vma *v, uint64_t addr)
{
	struct rec_task *tk = &r->tasks[ev->task];
	uint32_t nr = tk->sw_nr, page = ev->page;
	uint64_t base = 0;
	int rc = 0;

	if (tk->sw_labels > 1) {
		r->rf_anon_readahead += tk->sw_pages;
		goto out;
	}
	if (nr > 1) {
		base = (addr >> r->pshift) & ~((uint64_t)nr - 1);
		if ((nr & (nr - 1)) || !v || v->file || (v->flags & MR_VMA_SHARED) ||
		    (base << r->pshift) < v->start || ((base + nr) << r->pshift) > v->end) {
			r->rf_anon_unattached += tk->sw_pages;
			goto out;
		}
	} else if (page == MR_PAGE_NONE) {
		r->rf_anon_unattached += tk->sw_pages;
		goto out;
	}
	for (int pass = 0; pass < 1 + tk->sw_activate && !rc; pass++)
		for (uint32_t i = 0; i < nr && !rc; i++) {
			struct mr_event e = {
				.time = ev->time, .task = ev->task, .cpu = ev->cpu,
				.kind = pass ? MR_EV_ACTIVATE : MR_EV_REFAULT,
				.flags = pass ? MR_REFAULT_KERNEL : tk->sw_flags,
				.page = nr > 1 ? rec_page_get(r, MR_PAGE_ANON, mm, base + i,
								      mm ? r->mms[mm].cgroup : 0) : page,
			};

			if (e.page == MR_PAGE_NONE) {
				r->rf_anon_unattached += !pass;
				continue;
			}
			if (nr > 1)
				r->pflags[e.page] |= PF_ANON_MAPPED;
			r->rf_anon_attached += !pass;
			rc = rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &e);
		}
out:
	tk->sw_labels = 0;
	tk->sw_pages = 0;
	return rc;
}

/*
 * Inserts in a fault. A file fault that misses the page cache reads the page (and its
 * readahead window) in: mm/filemap.c:filemap_fault() -> do_sync_mmap_readahead() ->
 * filemap_add_folio() fires mm_filemap_add_to_page_cache (and the readahead tracepoints)
 * inside the fault, and the fault sample comes when handle_mm_fault() ends
 * (mm_account_fault()). Emitted in that order, a replay sees the page resident before
 * the fault and counts a minor fault (pgmajfault 95 against the kernel's 131,072 on a
 * file mmap walk), and it inserts the window as plain readahead, while the kernel adds
 * those folios inside the fault (lru_gen_enter_fault(): active when the VMA has
 * recency). So a task's PC_INSERT and READAHEAD events wait here until its next event:
 * when that is a fault sample, the fault (FAULT, ACCESS) is emitted first and the held
 * events after it, at its time, flagged MR_PC_IN_FAULT / MR_RA_IN_FAULT: the replay
 * decides from its own state whether the fault was major and inserts the rest as the
 * kernel did. Any other event of the task (a read's mm_filemap_get_pages, a fault
 * entry, munmap, exit...) first emits them as they were. A deletion of a held page, a
 * full pool (REC_HELD_MAX) and the end of the recording also emit them as they were.
 */
/* PF_PENDING on (held) or off for the pages of a held PC_INSERT (its folio) or READAHEAD */
static void held_mark(struct rec *r, const struct mr_event *ev, int held)
{
	uint64_t n = ev->kind == MR_EV_PC_INSERT ? 1ull << (ev->flags & MR_PC_ORDER_MASK) : ev->size;

	for (uint64_t k = 0; k < n && ev->page + k < r->npages; k++) {
		if (held)
			r->pflags[ev->page + k] |= PF_PENDING;
		else
			r->pflags[ev->page + k] &= (uint8_t)~PF_PENDING;
	}
}

/* Emit task's held events (task 0: everyone's): after its fault on fault_ring at
 * t_fault, or (fault_ring < 0) each on its own ring as it came. */
static int pend_flush(struct rec *r, uint32_t task, int fault_ring, uint64_t t_fault)
{
	uint32_t keep = 0;
	int rc = 0;

	for (uint32_t i = 0; i < r->nheld; i++) {
		struct rec_pend *q = &r->held[i];

		if (task && q->ev.task != task) {
			r->held[keep++] = *q;
			continue;
		}
		held_mark(r, &q->ev, 0);
		if (q->ev.task && q->ev.task < r->ntasks)
			r->tasks[q->ev.task].npend = 0;
		if (rc)
			continue;
		if (fault_ring >= 0) {
			q->ev.time = t_fault;
			q->ev.flags |= q->ev.kind == MR_EV_PC_INSERT ? MR_PC_IN_FAULT : MR_RA_IN_FAULT;
			r->pend_in_fault++;
			rc = rec_emit(r, r->ring_stream[fault_ring], &r->ring_last[fault_ring], &q->ev);
		} else {
			r->pend_flushed++;
			rc = rec_emit(r, r->ring_stream[q->ring], &r->ring_last[q->ring], &q->ev);
		}
	}
	r->nheld = keep;
	return rc;
}

int rec_pend_flush_all(struct rec *r)
{
	return r->nheld ? pend_flush(r, 0, -1, 0) : 0;
}

static int pend_push(struct rec *r, int ring, const struct mr_event *ev)
{
	int rc;

	if (r->nheld == REC_HELD_MAX && (rc = pend_flush(r, 0, -1, 0)))
		return rc;
	r->held[r->nheld].ev = *ev;
	r->held[r->nheld++].ring = ring;
	r->tasks[ev->task].npend++;
	held_mark(r, ev, 1);
	return 0;
}

/* A task's own event other than an insert: what it held goes out first, as it came. */
static int pend_before(struct rec *r, uint32_t task)
{
	return task && task < r->ntasks && r->tasks[task].npend ? pend_flush(r, task, -1, 0) : 0;
}

/* A task's own event that is neither a fault nor part of one (munmap, exec, exit...):
 * its swap-in labels will find no fault (rec_drop_swapin()) and its held inserts were
 * not a fault's (pend_flush()). */
static int task_moved_on(struct rec *r, uint32_t task)
{
	if (task && r->tasks[task].sw_labels)
		rec_drop_swapin(r, task);
	return pend_before(r, task);
}

static int on_fault(struct rec *r, int ring, const unsigned char *p, int major)
{
	uint64_t ip, time, addr;
	uint32_t pid, tid, cpu, task, mm, page;
	const struct rec_vma *v;
	uint8_t rwx = MR_ACC_READ, fflags = major ? MR_FAULT_MAJOR : 0;
	struct mr_event ev;
	int rc;

	memcpy(&ip, p + 8, 8);
	memcpy(&pid, p + 16, 4);
	memcpy(&tid, p + 20, 4);
	memcpy(&time, p + 24, 8);
	memcpy(&addr, p + 32, 8);
	memcpy(&cpu, p + 40, 4);
	if (!rec_stream_in_scope(r, -1, (int32_t)tid))
		return 0;
	task = rec_task_get(r, (int32_t)pid, (int32_t)tid, rel_time(r, time));
	mm = task ? r->tasks[task].mm : 0;
	v = mm ? rec_vma_find(&r->mms[mm], addr) : NULL;
	if (r->pf_user_on) {
		/* exceptions:page_fault_user came first for a write or instruction fetch
		 * (filtered in the kernel); none pending for this address: a read */
		struct rec_task *tk = task ? &r->tasks[task] : NULL;

		if (tk && (tk->pf_err & PFE_PENDING) &&
		    (tk->pf_addr >> r->pshift) == (addr >> r->pshift)) {
			r->pf_paired++;
			if (tk->pf_err & X86_PF_INSTR) {
				rwx = MR_ACC_EXEC;
				fflags |= MR_ACC_EXEC;
			} else if (tk->pf_err & X86_PF_WRITE) {
				rwx = MR_ACC_WRITE;
				fflags |= MR_ACC_WRITE;
			}
		}
		if (tk)
			tk->pf_err = 0;
	} else if ((ip >> r->pshift) == (addr >> r->pshift)) {
		rwx = MR_ACC_EXEC;
		fflags |= MR_ACC_EXEC;
	}
	/* a write fault in a writable private file mapping copies the page (COW) */
	page = rec_addr_page(r, mm, v, addr, rwx == MR_ACC_WRITE && v && (v->flags & MR_VMA_WRITE));
	ev = (struct mr_event){ .time = rel_time(r, time), .kind = MR_EV_FAULT, .page = page,
				.task = task, .cpu = (uint16_t)cpu, .flags = fflags,
				.arg = r->o->anonymize ? rec_hash(r, addr) : addr };
	rc = rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
	if (rc)
		return rc;
	ev.kind = MR_EV_ACCESS;
	ev.arg = 0;
	ev.flags = MR_ACC_FLAGS(rwx, MR_SRC_FAULT);
	rc = rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
	/* the inserts this fault made come after it (see pend_flush()) */
	if (!rc && task && r->tasks[task].npend)
		rc = pend_flush(r, task, ring, ev.time);
	if (rc || !task || !r->tasks[task].sw_labels)
		return rc;
	if (!major) {
		rec_drop_swapin(r, task);
		return 0;
	}
	return claim_swapin(r, ring, &ev, mm, v, addr);
}

/*
 * A hardware sample (hwsample.c event i): an ACCESS with source hwsample on the page of
 * its data address, R / W / X from its data_src (else from the event's name). Samples
 * without a data address (an IBS op that was no load or store, an event that has none)
 * or with a kernel one (IBS cannot exclude the kernel) are counted and dropped.
 */
static int on_hwsample(struct rec *r, int ring, int i, const unsigned char *p, uint32_t len)
{
	struct rec_hw_event *he = &r->hw.ev[i];
	uint64_t time, addr, data_src;
	uint32_t pid, tid, cpu, task, mm, page;
	struct mr_event ev;

	if (len < HW_SAMPLE_FIXED)
		return 0;
	memcpy(&pid, p + 16, 4);
	memcpy(&tid, p + 20, 4);
	memcpy(&time, p + 24, 8);
	memcpy(&addr, p + 32, 8);
	memcpy(&cpu, p + 40, 4);
	memcpy(&data_src, p + SAMPLE_FIXED, 8);
	if (!rec_stream_in_scope(r, -1, (int32_t)tid))
		return 0;
	he->samples++;
	if (addr < (uint64_t)r->psize) { /* 0: none (and page 0 is never mapped) */
		he->no_addr++;
		return 0;
	}
	if ((int64_t)addr < 0) { /* x86-64, arm64: the kernel is the upper half */
		he->kernel_addr++;
		return 0;
	}
	task = rec_task_get(r, (int32_t)pid, (int32_t)tid, rel_time(r, time));
	mm = task ? r->tasks[task].mm : 0;
	page = rec_addr_page(r, mm, mm ? rec_vma_find(&r->mms[mm], addr) : NULL, addr, 0);
	he->accesses++;
	ev = (struct mr_event){ .time = rel_time(r, time), .kind = MR_EV_ACCESS, .page = page,
				.task = task, .cpu = (uint16_t)cpu,
				.flags = MR_ACC_FLAGS(rec_hw_rwx(he, data_src), MR_SRC_HWSAMPLE) };
	return rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
}

/*
 * Pages [index, index + n) of file, created in order so new ranges get consecutive ids;
 * new ones are charged to task's memcg, as filemap_add_folio() charges the current
 * task's (mm/filemap.c, mem_cgroup_charge() with no mm).
 */
static void file_pages(struct rec *r, uint32_t task, uint32_t file, uint64_t index, uint32_t n,
		       uint32_t *ids)
{
	uint32_t cg = task ? r->tasks[task].cgroup : 0;

	for (uint32_t i = 0; i < n; i++)
		ids[i] = rec_page_get(r, MR_PAGE_FILE, file, index + i, cg);
}

/*
 * Emit kind over pages ids[0..n): one event per run of consecutive page ids (the event
 * model names a range by its first page). PC_* carry the folio order only when the whole
 * folio is one run; otherwise each page is its own order-0 event.
 */
static int emit_range(struct rec *r, int ring, struct mr_event *tmpl, const uint32_t *ids,
		      uint32_t n, int order)
{
	int pc = tmpl->kind == MR_EV_PC_INSERT || tmpl->kind == MR_EV_PC_DELETE;
	/* a task's inserts and readahead wait for its next event (pend_flush()) */
	int hold = tmpl->task && (tmpl->kind == MR_EV_PC_INSERT || tmpl->kind == MR_EV_READAHEAD);
	uint32_t i = 0;
	int rc;

	if (pc) {
		int whole = n == (1u << order);

		for (uint32_t k = 1; whole && k < n; k++)
			whole = ids[k] == ids[0] + k;
		for (i = 0; i < n; i += whole ? n : 1) {
			struct mr_event ev = *tmpl;

			ev.page = ids[i];
			ev.flags = (uint8_t)((tmpl->flags & ~MR_PC_ORDER_MASK) |
					     (whole ? (unsigned)order : 0));
			rc = hold ? pend_push(r, ring, &ev)
				  : rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
			if (rc)
				return rc;
		}
		return 0;
	}
	while (i < n) {
		uint32_t j = i + 1;
		struct mr_event ev = *tmpl;

		while (j < n && ids[j] == ids[i] + (j - i))
			j++;
		ev.page = ids[i];
		ev.size = j - i;
		rc = hold ? pend_push(r, ring, &ev)
			  : rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
		if (rc)
			return rc;
		i = j;
	}
	return 0;
}

/*
 * Emit the kernel refault label waiting on ring: REFAULT (KERNEL | FILE, + WORKINGSET when
 * WORKINGSET_RESTORE_FILE came with it) for each page of the folio, then, when
 * WORKINGSET_ACTIVATE_FILE came with it, ACTIVATE (flags KERNEL) for each page.
 */
int rec_flush_refault(struct rec *r, int ring)
{
	struct rec_ring_state *q = &r->rs[ring];
	int rc = 0;

	if (!q->rf_pending)
		return 0;
	q->rf_pending = 0;
	for (int pass = 0; pass < 1 + q->rf_activate && !rc; pass++)
		for (uint32_t i = 0; i < q->rf_nr && !rc; i++) {
			struct mr_event ev = {
				.time = q->rf_time, .task = q->rf_task, .cpu = q->rf_cpu,
				.kind = pass ? MR_EV_ACTIVATE : MR_EV_REFAULT,
				.flags = (uint8_t)(pass ? MR_REFAULT_KERNEL : q->rf_flags),
				.page = rec_page_get(r, MR_PAGE_FILE, q->rf_file, q->rf_index + i,
						     q->rf_task ? r->tasks[q->rf_task].cgroup : 0),
			};

			if (ev.page == MR_PAGE_NONE)
				continue;
			r->rf_pages += !pass;
			rc = rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
		}
	return rc;
}

/*
 * memcg:mod_memcg_lruvec_state, WORKINGSET_* items only (kernel filter). mm/workingset.c:
 * workingset_refault() adds REFAULT_<type>, then ACTIVATE_<type> when the refault distance
 * says recent, then RESTORE_<type> when the folio was in the workingset before eviction,
 * each with nr = folio pages. A file label comes right after filemap_add_folio()
 * inserted the folio on this CPU in this task and attaches to the last PC_INSERT of this
 * ring when its task and size agree. An anon label (swap-in: the swap cache, or the
 * SWP_SYNCHRONOUS_IO path of do_swap_page(); shmem too, whose folios are not on the file
 * LRU) comes before the fault sample that ends the swap-in, possibly on another CPU (the
 * task sleeps on the read): it waits in the task until claim_swapin() or rec_drop_swapin().
 */
static int on_memcg(struct rec *r, int ring, uint32_t task, uint64_t time, uint16_t cpu,
		    const unsigned char *raw, uint32_t rawlen)
{
	const struct tp_info *tp = &r->tp[RTP_MEMCG];
	struct rec_ring_state *q = &r->rs[ring];
	int64_t item = (int32_t)rec_tp_get(raw, rawlen, &tp->item);
	int32_t val = (int32_t)rec_tp_get(raw, rawlen, &tp->val);
	struct rec_task *tk = &r->tasks[task];
	int k, rc;

	for (k = 0; k < RWS_NR && r->ws_item[k] != item; k++)
		;
	if (k == RWS_NR || val <= 0)
		return 0;
	r->rf_labels++;
	switch (k) {
	case RWS_REFAULT_FILE:
		if ((rc = rec_flush_refault(r, ring)))
			return rc;
		if (!q->ins_valid || q->ins_task != task || q->ins_nr != (uint32_t)val) {
			r->rf_unpaired++;
			return 0;
		}
		q->ins_valid = 0;
		q->rf_pending = 1;
		q->rf_task = task;
		q->rf_file = q->ins_file;
		q->rf_index = q->ins_index;
		q->rf_nr = (uint32_t)val;
		q->rf_time = time;
		q->rf_cpu = cpu;
		q->rf_flags = MR_REFAULT_KERNEL | MR_REFAULT_FILE;
		q->rf_activate = 0;
		return 0;
	case RWS_ACTIVATE_FILE:
	case RWS_RESTORE_FILE:
		if (!q->rf_pending || q->rf_task != task || q->rf_nr != (uint32_t)val) {
			r->rf_unpaired++;
			return 0;
		}
		if (k == RWS_ACTIVATE_FILE)
			q->rf_activate = 1;
		else
			q->rf_flags |= MR_REFAULT_WORKINGSET;
		return 0;
	case RWS_REFAULT_ANON:
		r->rf_anon_pages += (uint64_t)val;
		tk->sw_labels++;
		tk->sw_pages += (uint32_t)val;
		tk->sw_nr = (uint32_t)val;
		tk->sw_flags = MR_REFAULT_KERNEL;
		tk->sw_activate = 0;
		return rec_flush_refault(r, ring);
	case RWS_ACTIVATE_ANON:
	case RWS_RESTORE_ANON:
		if (!tk->sw_labels || tk->sw_nr != (uint32_t)val)
			r->rf_unpaired++;
		else if (k == RWS_ACTIVATE_ANON)
			tk->sw_activate = 1;
		else
			tk->sw_flags |= MR_REFAULT_WORKINGSET;
		return rec_flush_refault(r, ring);
	default:
		return rec_flush_refault(r, ring);
	}
}

/* include/uapi/asm-generic/mman-common.h */
#define ADV_NORMAL 0
#define ADV_RANDOM 1
#define ADV_SEQUENTIAL 2
#define ADV_DONTNEED 4

/*
 * madvise(2) on entry. The advice that changes what reclaim reads becomes VMA flags, as
 * mm/madvise.c:madvise_update_vma() sets them on the VMAs of the range (split at its
 * ends): MADV_RANDOM sets VM_RAND_READ, MADV_SEQUENTIAL VM_SEQ_READ (each clears the
 * other), MADV_NORMAL clears both; vma_has_recency() then tells reclaim to ignore the
 * young bits of those VMAs, and readahead changes with them. MADV_DONTNEED zaps the
 * range: its anonymous pages are freed (FREE), as munmap's are, and the VMAs stay. The
 * rest (MADV_FREE, MADV_COLD, MADV_PAGEOUT, ...) is counted in madvise.ignored. A call
 * the kernel refuses (unaligned start, a length that wraps) changes nothing here either;
 * one that later fails with ENOMEM on a gap still applies to the mapped parts, as the
 * kernel's does.
 */
static int on_madvise(struct rec *r, int ring, uint32_t task, uint32_t mm, uint64_t time,
		      uint16_t cpu, const unsigned char *raw, uint32_t rawlen, uint32_t *ids)
{
	const struct tp_info *tp = &r->tp[RTP_MADVISE];
	uint64_t start = rec_tp_get(raw, rawlen, &tp->start);
	uint64_t len = rec_tp_get(raw, rawlen, &tp->len_in);
	int64_t adv = (int32_t)rec_tp_get(raw, rawlen, &tp->behavior);
	uint64_t end = start + ((len + (uint64_t)r->psize - 1) & ~(uint64_t)(r->psize - 1));
	uint32_t set = 0, clear = 0;

	if (!mm || !len || (start & (uint64_t)(r->psize - 1)) || end <= start)
		return 0;
	switch (adv) {
	case ADV_NORMAL:
		clear = MR_VMA_RAND_READ | MR_VMA_SEQ_READ;
		break;
	case ADV_RANDOM:
		set = MR_VMA_RAND_READ;
		clear = MR_VMA_SEQ_READ;
		break;
	case ADV_SEQUENTIAL:
		set = MR_VMA_SEQ_READ;
		clear = MR_VMA_RAND_READ;
		break;
	case ADV_DONTNEED:
		r->madvise_dontneed++;
		return rec_anon_free(r, mm, start, end, time, r->ring_stream[ring],
				     &r->ring_last[ring], task, cpu, ids, MAX_RANGE);
	default:
		r->madvise_ignored++;
		return 0;
	}
	r->madvise_flags++;
	return rec_vma_advise(r, mm, start, end, set, clear, time, r->ring_stream[ring],
			      &r->ring_last[ring], task);
}

/* munmap, exit_mmap, madvise and page_fault_user samples (raw already bounds-checked). */
static int on_mm_tracepoint(struct rec *r, int ring, int t, uint32_t task, uint64_t time,
			    uint16_t cpu, const unsigned char *raw, uint32_t rawlen,
			    uint32_t *ids)
{
	const struct tp_info *tp = &r->tp[t];
	uint32_t mm = task ? r->tasks[task].mm : 0;
	uint64_t addr, len, end;

	switch (t) {
	case RTP_PF_USER:
		if (!task)
			return 0;
		r->tasks[task].pf_addr = rec_tp_get(raw, rawlen, &tp->address);
		r->tasks[task].pf_err = (uint32_t)rec_tp_get(raw, rawlen, &tp->error_code) |
					PFE_PENDING;
		return 0;
	case RTP_MUNMAP:
		addr = rec_tp_get(raw, rawlen, &tp->addr);
		len = rec_tp_get(raw, rawlen, &tp->len);
		/* what mm/vma.c:do_vmi_munmap() rejects with EINVAL changes nothing */
		if (!mm || !len || (addr & (uint64_t)(r->psize - 1)))
			return 0;
		end = addr + ((len + (uint64_t)r->psize - 1) & ~(uint64_t)(r->psize - 1));
		if (end <= addr)
			return 0;
		r->munmaps++;
		return rec_vma_remove(r, mm, addr, end, 0, time, r->ring_stream[ring],
				      &r->ring_last[ring], task, cpu, ids, MAX_RANGE);
	case RTP_MADVISE:
		return on_madvise(r, ring, task, mm, time, cpu, raw, rawlen, ids);
	case RTP_EXIT_MMAP:
		/* the last user of the mm drops it (exit, or exec replacing it) in its own
		 * context, before its EXIT / COMM(exec) record: the task's mm here */
		if (!mm || !r->mms[mm].alive)
			return 0;
		r->exit_mmaps++;
		return rec_vma_remove(r, mm, 0, 0, 1, time, r->ring_stream[ring],
				      &r->ring_last[ring], task, cpu, ids, MAX_RANGE);
	default:
		return 0;
	}
}

/*
 * writeback:writeback_dirty_folio: a page-cache folio turned dirty in task's write() or
 * write fault (mm/page-writeback.c: folio_account_dirtied()). Its file is named by the
 * bdi ("MAJOR:MINOR" of the file system's device, the trace's dev) and the inode; a bdi
 * named otherwise (a file system without a block device) cannot be matched to the
 * trace's files and is counted only. Emitted as FD_ACCESS (write) with source
 * MR_SRC_DIRTY, which the replay takes as PG_dirty, not as an access: write() marks no
 * folio accessed (__filemap_get_folio() with FGP_WRITEBEGIN, no FGP_ACCESSED).
 */
static int on_dirty(struct rec *r, int ring, uint32_t task, uint64_t t, uint16_t cpu,
		    const unsigned char *raw, uint32_t rawlen, uint32_t *ids)
{
	const struct tp_info *tp = &r->tp[RTP_DIRTY];
	char name[65];
	unsigned maj, min;
	uint64_t ino, index, dev;
	uint32_t file, page, n = 1;
	struct mr_event ev;
	int rc;

	if (tp->bdi.off < 0 || (uint64_t)tp->bdi.off + (uint64_t)tp->bdi.size > rawlen)
		return 0;
	memcpy(name, raw + tp->bdi.off, (size_t)tp->bdi.size);
	name[tp->bdi.size] = '\0';
	if (sscanf(name, "%u:%u", &maj, &min) != 2) {
		r->dirty_unmatched++;
		return 0;
	}
	ino = rec_tp_get(raw, rawlen, &tp->ino);
	index = rec_tp_get(raw, rawlen, &tp->index);
	dev = ((uint64_t)maj << 32) | min;
	file = rec_file_get(r, dev, ino, NULL);
	if (!file)
		return 0;
	/* a large folio is named by its first page: its pages, as its insert had them */
	page = rec_page_find(r, MR_PAGE_FILE, file, index);
	if (page != MR_PAGE_NONE)
		n = 1u << ((r->pflags[page] & PF_ORDER_MASK) >> PF_ORDER_SHIFT);
	if (n > MAX_RANGE)
		n = MAX_RANGE;
	file_pages(r, task, file, index, n, ids);
	/* its insert (held until the task's next event) goes first */
	if ((rc = pend_before(r, task)))
		return rc;
	ev = (struct mr_event){ .time = t, .kind = MR_EV_FD_ACCESS, .task = task, .cpu = cpu,
				.flags = MR_ACC_FLAGS(MR_ACC_WRITE, MR_SRC_DIRTY) };
	r->dirty_events++;
	return emit_range(r, ring, &ev, ids, n, 0);
}

/*
 * cgroup:cgroup_attach_task (kernel/cgroup/cgroup.c: cgroup_migrate_execute()), fired in
 * the writer of cgroup.procs for each task it moves: a recorded task's pages are charged
 * to its new memory cgroup from here on (rec_task_cgroup_moved()). Without it a move is
 * seen only at the task's next exec, by /proc (rec_task_cgroup_update()). dst_path is a
 * __data_loc string: offset in the low 16 bits, length (with its NUL) in the high.
 */
static int on_cg_attach(struct rec *r, const unsigned char *raw, uint32_t rawlen)
{
	const struct tp_info *tp = &r->tp[RTP_CG_ATTACH];
	uint32_t loc = (uint32_t)rec_tp_get(raw, rawlen, &tp->dst_path);
	uint32_t off = loc & 0xffffu, len = loc >> 16;
	char path[4096];

	if (tp->dst_path.size != 4 || !len || len >= sizeof(path) || (uint64_t)off + len > rawlen)
		return 0;
	memcpy(path, raw + off, len);
	path[len] = '\0';
	if (rec_task_cgroup_moved(r, (int32_t)rec_tp_get(raw, rawlen, &tp->pid),
				  (int)(int32_t)rec_tp_get(raw, rawlen, &tp->dst_root), path))
		r->cg_moves++;
	return 0;
}

static int on_tracepoint(struct rec *r, int ring, int t, const unsigned char *p, uint32_t len,
			 uint32_t *ids)
{
	const struct tp_info *tp = &r->tp[t];
	uint64_t time, ino, index, dev, n = 1;
	uint32_t pid, tid, cpu, rawlen, file, task;
	const unsigned char *raw;
	struct mr_event ev = { .kind = MR_EV_PC_INSERT };
	int order = 0, rc, ours;

	if (len < SAMPLE_FIXED + 4)
		return 0;
	memcpy(&pid, p + 16, 4);
	memcpy(&tid, p + 20, 4);
	memcpy(&time, p + 24, 8);
	memcpy(&cpu, p + 40, 4);
	memcpy(&rawlen, p + SAMPLE_FIXED, 4);
	if (SAMPLE_FIXED + 4 + (uint64_t)rawlen > len)
		return 0;
	raw = p + SAMPLE_FIXED + 4;
	if (r->cg_kernel && rec_tp_names[t].cpu_wide)
		r->st->cpu_wide_records++;
	if (t == RTP_CG_ATTACH)
		return on_cg_attach(r, raw, rawlen);
	ours = rec_stream_in_scope(r, t, (int32_t)tid);
	if (!ours && t != RTP_DELETE)
		return 0;
	if (t == RTP_DIRTY) {
		task = (pid || tid) ? rec_task_get(r, (int32_t)pid, (int32_t)tid,
						   rel_time(r, time)) : 0;
		return on_dirty(r, ring, task, rel_time(r, time), (uint16_t)cpu, raw, rawlen, ids);
	}
	if (t >= RTP_MEMCG) {
		task = (pid || tid) ? rec_task_get(r, (int32_t)pid, (int32_t)tid,
						   rel_time(r, time)) : 0;
		if (t == RTP_MEMCG)
			return task ? on_memcg(r, ring, task, rel_time(r, time), (uint16_t)cpu,
					       raw, rawlen) : 0;
		if ((rc = task_moved_on(r, task)))
			return rc;
		return on_mm_tracepoint(r, ring, t, task, rel_time(r, time), (uint16_t)cpu, raw,
					rawlen, ids);
	}
	ino = rec_tp_get(raw, rawlen, &tp->ino);
	index = rec_tp_get(raw, rawlen, &tp->index);
	dev = rec_tp_get(raw, rawlen, &tp->dev);
	/* kernel dev_t (MAJOR << 20 | MINOR) -> (major << 32 | minor), as in the maps */
	dev = ((dev >> 20) << 32) | (dev & 0xfffff);
	if (!ours) {
		/* a deletion by a task outside --cgroup (see tp.c: rec_tp_names[]); no task */
		order = (int)rec_tp_get(raw, rawlen, &tp->order);
		if (!delete_is_ours(r, dev, ino, index, 1ull << (order > 12 ? 12 : order)))
			return 0;
	}
	file = rec_file_get(r, dev, ino, NULL);
	task = ours && (pid || tid) ? rec_task_get(r, (int32_t)pid, (int32_t)tid,
						   rel_time(r, time)) : 0;
	ev.time = rel_time(r, time);
	ev.task = task;
	ev.cpu = (uint16_t)cpu;
	/* a task's insert or read ends any swap-in labels it had (deletions do not: the
	 * direct reclaim of a charge during swap readahead deletes between labels) */
	if (task && t != RTP_DELETE && r->tasks[task].sw_labels)
		rec_drop_swapin(r, task);
	if (t == RTP_GET_PAGES && (rc = pend_before(r, task)))
		return rc;

	switch (t) {
	case RTP_ADD:
	case RTP_DELETE:
		order = (int)rec_tp_get(raw, rawlen, &tp->order);
		if (order > 12)
			order = 12;
		r->folio_orders |= 1u << order;
		n = 1ull << order;
		ev.kind = t == RTP_ADD ? MR_EV_PC_INSERT : MR_EV_PC_DELETE;
		break;
	case RTP_GET_PAGES:
		n = rec_tp_get(raw, rawlen, &tp->last_index);
		n = n >= index ? n - index + 1 : 1;
		ev.kind = MR_EV_FD_ACCESS;
		ev.flags = MR_ACC_READ;
		break;
	default: /* readahead */
		n = rec_tp_get(raw, rawlen, &tp->size);
		ev.kind = MR_EV_READAHEAD;
		ev.arg = rec_tp_get(raw, rawlen, &tp->async_size);
		ev.flags = t == RTP_RA_ASYNC ? MR_RA_ASYNC : 0;
		break;
	}
	if (!n)
		return 0;
	if (n > MAX_RANGE)
		n = MAX_RANGE;
	file_pages(r, task, file, index, (uint32_t)n, ids);
	if (ev.kind == MR_EV_PC_INSERT) {
		struct rec_ring_state *q = &r->rs[ring];

		if (ids[0] != MR_PAGE_NONE) /* for on_dirty(): the folio's size */
			r->pflags[ids[0]] = (uint8_t)((r->pflags[ids[0]] & ~PF_ORDER_MASK) |
						      ((unsigned)order << PF_ORDER_SHIFT));

		/* what a WORKINGSET_REFAULT_FILE label that follows belongs to */
		q->ins_valid = 1;
		q->ins_task = task;
		q->ins_file = file;
		q->ins_index = index;
		q->ins_nr = (uint32_t)n;
		/* delete then add of the same (dev, ino, index): a refault candidate */
		for (uint32_t i = 0; i < n; i++) {
			if (ids[i] == MR_PAGE_NONE)
				continue;
			if (r->pflags[ids[i]] & PF_DELETED) {
				struct mr_event rf = { .time = ev.time, .kind = MR_EV_REFAULT,
						       .page = ids[i], .task = task, .cpu = ev.cpu,
						       .flags = MR_REFAULT_FILE };

				if ((rc = rec_emit(r, r->ring_stream[ring], &r->ring_last[ring],
						   &rf)))
					return rc;
			}
			r->pflags[ids[i]] = (uint8_t)(PF_CACHED |
						      (r->pflags[ids[i]] & (PF_PENDING | PF_ORDER_MASK)));
		}
	} else if (ev.kind == MR_EV_PC_DELETE) {
		for (uint32_t i = 0; i < n; i++) {
			if (ids[i] == MR_PAGE_NONE)
				continue;
			/* its insert is held: out first, the deletion follows it */
			if ((r->pflags[ids[i]] & PF_PENDING) && (rc = rec_pend_flush_all(r)))
				return rc;
			r->pflags[ids[i]] = PF_DELETED;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] == MR_PAGE_NONE)
			return 0; /* out of memory for ids: drop the event */
	return emit_range(r, ring, &ev, ids, (uint32_t)n, order);
}

static uint64_t side_time(const struct rec *r, const union perf_event *e)
{
	uint64_t t;

	if (e->header.size < sizeof(e->header) + SIDE_TRAILER)
		return 0;
	memcpy(&t, (const char *)e + e->header.size - 24, 8);
	return rel_time(r, t);
}

static uint32_t ring_stream_task(struct rec *r, uint32_t pid, uint32_t tid, uint64_t t)
{
	return rec_task_get(r, (int32_t)pid, (int32_t)tid, t);
}

/*
 * The end of an address space the recorder saw no exit_mmap for (its tracepoint is off,
 * or, as on 6.18, a task's own perf events are gone before exit_mm() drops the mm):
 * UNMAP of every VMA and FREE of its faulted anon pages, as mm/mmap.c:exit_mmap() does.
 * Only where every task of the mm is known (a command, or -p with all its threads):
 * with -a or --cgroup, a thread not seen yet would make the count reach 0 early, and
 * exit_mmap is seen there (CPU-wide events).
 */
static int mm_last_put(struct rec *r, int ring, uint32_t mm, uint32_t task, uint64_t t,
		       uint32_t *ids)
{
	struct rec_mm *m = &r->mms[mm];

	if (!mm || !m->alive || m->ntasks ||
	    (r->o->target != MR_TARGET_COMMAND && r->o->target != MR_TARGET_PIDS))
		return 0;
	r->mm_ends++;
	return rec_vma_remove(r, mm, 0, 0, 1, t, r->ring_stream[ring], &r->ring_last[ring],
			      task, 0, ids, MAX_RANGE);
}

static int on_side(struct rec *r, int ring, const union perf_event *e, uint32_t *ids)
{
	uint64_t t = side_time(r, e);
	uint32_t task, mm;
	struct mr_event ev;
	int rc;

	switch (e->header.type) {
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		uint32_t pid, tid, cpu;

		/* switch-in only: the task (sample_id trailer) now runs on this CPU */
		if ((e->header.misc & PERF_RECORD_MISC_SWITCH_OUT) ||
		    e->header.size < sizeof(e->header) + SIDE_TRAILER)
			return 0;
		memcpy(&pid, (const char *)e + e->header.size - 32, 4);
		memcpy(&tid, (const char *)e + e->header.size - 28, 4);
		memcpy(&cpu, (const char *)e + e->header.size - 16, 4);
		if (!rec_stream_in_scope(r, -1, (int32_t)tid))
			return 0;
		task = ring_stream_task(r, pid, tid, t);
		if (!task)
			return 0;
		r->switch_ins++;
		ev = (struct mr_event){ .time = t, .kind = MR_EV_SWITCH, .page = MR_PAGE_NONE,
					.task = task, .cpu = (uint16_t)cpu };
		return rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
	}
	case PERF_RECORD_MMAP2: {
		const struct perf_record_mmap2 *m = &e->mmap2;
		uint32_t flags = 0, file = 0;

		if (e->header.size < sizeof(*m) - sizeof(m->filename) + SIDE_TRAILER ||
		    !rec_stream_in_scope(r, -1, (int32_t)m->tid))
			return 0;
		task = ring_stream_task(r, m->pid, m->tid, t);
		mm = task ? r->tasks[task].mm : 0;
		if (!mm)
			return 0;
		if (m->prot & 1) /* PROT_READ */
			flags |= MR_VMA_READ;
		if (m->prot & 2)
			flags |= MR_VMA_WRITE;
		if (m->prot & 4)
			flags |= MR_VMA_EXEC;
		if (m->flags & 1) /* MAP_SHARED */
			flags |= MR_VMA_SHARED;
		if (m->ino && !(e->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			char path[4096];
			size_t maxlen = e->header.size - (sizeof(*m) - sizeof(m->filename));

			snprintf(path, sizeof(path), "%.*s", (int)(maxlen < sizeof(path) ?
						      maxlen : sizeof(path) - 1), m->filename);
			flags |= MR_VMA_FILE;
			file = rec_file_get(r, ((uint64_t)m->maj << 32) | m->min, m->ino, path);
		}
		return rec_vma_add(r, mm, m->start, m->start + m->len, m->pgoff >> r->pshift,
				   file, flags, t, r->ring_stream[ring], &r->ring_last[ring], task);
	}
	case PERF_RECORD_COMM:
		if (!rec_stream_in_scope(r, -1, (int32_t)e->comm.tid))
			return 0;
		task = ring_stream_task(r, e->comm.pid, e->comm.tid, t);
		if (!task)
			return 0;
		if ((rc = task_moved_on(r, task)))
			return rc;
		if (e->header.misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* exec: a new address space for the process */
			uint32_t nm = rec_mm_new(r, e->comm.pid, 0);

			/* `sh -c 'echo $$ > CG/cgroup.procs; exec CMD'` moved it after it was
			 * first seen: its pages from here on are charged where it is now */
			rec_task_cgroup_update(r, task);
			if (nm) {
				uint32_t old = rec_task_set_mm(r, task, nm);

				if ((rc = mm_last_put(r, ring, old, task, t, ids)))
					return rc;
			}
		}
		snprintf(r->tasks[task].comm, sizeof(r->tasks[task].comm), "%s", e->comm.comm);
		rec_task_put(r, task);
		return 0;
	case PERF_RECORD_FORK: {
		uint32_t parent;

		if (!r->cg_kernel)
			rec_scope_inherit(r, (int32_t)e->fork.ptid, (int32_t)e->fork.tid);
		if (!rec_stream_in_scope(r, -1, (int32_t)e->fork.tid))
			return 0;
		parent = ring_stream_task(r, e->fork.ppid, e->fork.ptid, t);

		if (e->fork.pid != e->fork.ppid && e->fork.pid == e->fork.tid) {
			/* a new process: its mm starts as a copy of the parent's */
			struct rec_hent *h;
			int found;
			uint32_t nm = rec_mm_new(r, (int32_t)e->fork.pid,
						 parent ? r->tasks[parent].mm : 0);

			h = rec_htab_slot(&r->mm_ix, e->fork.pid, 0, &found);
			if (h)
				h->val = nm;
		}
		task = ring_stream_task(r, e->fork.pid, e->fork.tid, t);
		if (task && parent) {
			memcpy(r->tasks[task].comm, r->tasks[parent].comm, sizeof(r->tasks[task].comm));
			r->tasks[task].cgroup = r->tasks[parent].cgroup;
			rec_task_put(r, task);
		}
		return 0;
	}
	case PERF_RECORD_EXIT:
		if (!rec_stream_in_scope(r, -1, (int32_t)e->fork.tid))
			return 0;
		task = ring_stream_task(r, e->fork.pid, e->fork.tid, t);
		if (!task)
			return 0;
		if ((rc = task_moved_on(r, task)))
			return rc;
		if (!r->tasks[task].end_ns) {
			mm = r->tasks[task].mm;
			if (mm && r->mms[mm].ntasks)
				r->mms[mm].ntasks--;
			if ((rc = mm_last_put(r, ring, mm, task, t, ids)))
				return rc;
		}
		r->tasks[task].end_ns = t ? t : 1;
		rec_task_put(r, task);
		ev = (struct mr_event){ .time = t, .kind = MR_EV_EXIT, .page = MR_PAGE_NONE,
					.task = task };
		return rec_emit(r, r->ring_stream[ring], &r->ring_last[ring], &ev);
	default:
		return 0;
	}
}

int rec_process(struct rec *r, struct perf_state *ps, int ring, const union perf_event *e,
		   uint32_t *ids)
{
	if (e->header.type == PERF_RECORD_SAMPLE &&
	    e->header.size >= sizeof(e->header) + SAMPLE_FIXED) {
		const unsigned char *p = (const unsigned char *)e + sizeof(e->header);
		uint64_t id;
		int k;

		memcpy(&id, p, 8);
		k = rec_perf_kind(ps, id);
		if (k != RK_TP_BASE + RTP_MEMCG && r->rs[ring].rf_pending) {
			int rc = rec_flush_refault(r, ring);

			if (rc)
				return rc;
		}
		if (k == RK_FAULT_MIN || k == RK_FAULT_MAJ)
			return on_fault(r, ring, p, k == RK_FAULT_MAJ);
		if (k >= RK_HW_BASE)
			return on_hwsample(r, ring, k - RK_HW_BASE, p,
					   e->header.size - sizeof(e->header));
		if (k >= RK_TP_BASE)
			return on_tracepoint(r, ring, k - RK_TP_BASE, p,
					     e->header.size - sizeof(e->header), ids);
		return 0;
	}
	if (r->rs[ring].rf_pending) {
		int rc = rec_flush_refault(r, ring);

		if (rc)
			return rc;
	}
	return on_side(r, ring, e, ids);
}
