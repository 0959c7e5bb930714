// SPDX-License-Identifier: GPL-2.0
/*
 * machine.c - the simulated machine's memory (machine_int.h): memcg charge and the
 * try_to_free_mem_cgroup_pages loop, swap slots, writeback and its completion, pages
 * entering memory (faults, page-cache fills, refaults with their shadows) and leaving it
 * (remove_mapping, free); node reclaim (watermarks, kswapd, direct reclaim) when the
 * replay asks for it; the run's results; create and destroy. mr_replay.h documents the
 * semantics; each step names the kernel function it follows.
 */
#include "machine_int.h"
#include "mr_replay.h"

const char *const rp_ctr_names[NR_CTR] = {
#define RP_CTR_NAME(id, name) name,
	RP_CTR_LIST(RP_CTR_NAME)
#undef RP_CTR_NAME
};

/* Time series columns after the vmstat items. */
const unsigned rp_ts_engine[TS_NENGINE] = { C_RESIDENT, C_SWAP_USED, C_MISSES, C_REFAULTS,
				      C_EVICTIONS, C_OOM };

/* ---- memcg charge, swap, writeback ---- */

static void uncharge(struct rp_machine *mach, uint32_t page)
{
	struct rp_memcg *c = &mach->memcg[rp_folio(mach, page)->lruvec / mach->m.nr_nodes];

	if (c->usage)
		c->usage--;
	if (mach->total_usage)
		mach->total_usage--;
	if (mach->node) {
		struct rp_node *n = &mach->node[rp_folio(mach, page)->node];

		if (n->used)
			n->used--;
	}
}

/* In memory or not: the flags are the folio's or what its rp_pg keeps. */
static void swap_release(struct rp_machine *mach, uint32_t page)
{
	uint32_t *fl = rp_resident(mach, page) ? &rp_folio(mach, page)->flags : &mach->pg[page].flags;

	if (!(*fl & E_SWAP))
		return;
	*fl &= ~(E_SWAP | E_SWAPVALID | MR_PG_SWAPCACHE);
	mach->swap_used--;
	mach->m.swap_free++;
	mach->c[C_SWAP_USED] = mach->swap_used;
}

/* add_to_swap(): a slot, PG_swapcache, and PG_dirty so that pageout writes it. */
static int add_to_swap(struct mr_machine *m, uint32_t frame)
{
	struct rp_machine *mach = to_rp(m);
	struct mr_folio *f = &m->folios[frame];

	if (!(f->flags & MR_PG_SWAPBACKED) || !(f->flags & MR_PG_RESIDENT))
		return MR_EINVAL;
	if (f->flags & MR_PG_SWAPCACHE)
		return 0;
	if (mach->swap_total != UNLIMITED && mach->swap_used >= mach->swap_total)
		return MR_ENOSPC;
	mach->swap_used++;
	m->swap_free--;
	if (mach->swap_used > mach->c[C_SWAP_MAX])
		mach->c[C_SWAP_MAX] = mach->swap_used;
	mach->c[C_SWAP_USED] = mach->swap_used;
	f->flags = (f->flags | E_SWAP | MR_PG_SWAPCACHE | MR_PG_DIRTY) & ~E_SWAPVALID;
	return 0;
}

/* folio_end_writeback() */
static void end_writeback(struct rp_machine *mach, uint32_t page)
{
	struct mr_folio *f;

	if (!rp_resident(mach, page))
		return; /* freed meanwhile */
	f = rp_folio(mach, page);
	if (!(f->flags & MR_PG_WRITEBACK))
		return; /* freed meanwhile */
	if ((f->flags & MR_PG_SWAPBACKED) && (f->flags & E_SWAP))
		f->flags |= E_SWAPVALID;
	if (f->flags & MR_PG_RECLAIM) {
		f->flags &= ~MR_PG_RECLAIM;
		mach->c[C_WB_ROTATE]++;
		if (mach->ops->rotate)
			mach->ops->rotate(mach->pol, rp_frame(mach, page)); /* folio_rotate_reclaimable() */
	}
	f->flags &= ~MR_PG_WRITEBACK;
}

static void wb_complete_one(struct rp_machine *mach)
{
	uint32_t page = mach->wb_ring[mach->wb_head % mach->wb_cap];

	mach->wb_head++;
	end_writeback(mach, page);
}

void rp_wb_complete_until(struct rp_machine *mach, uint64_t t)
{
	while (mach->wbb_head < mach->wbb_tail && mach->wbb[mach->wbb_head % WB_BATCHES].due <= t) {
		uint64_t end = mach->wbb[mach->wbb_head % WB_BATCHES].end;

		while (mach->wb_head < end && mach->wb_head < mach->wb_tail)
			wb_complete_one(mach);
		mach->wbb_head++;
	}
}

void rp_wb_complete_all(struct rp_machine *mach)
{
	while (mach->wb_head < mach->wb_tail)
		wb_complete_one(mach);
	mach->wbb_head = mach->wbb_tail;
}

/*
 * The writeback ring and the flusher's queue are FIFOs over absolute positions
 * [head, tail), entry i at a[i % cap]. Their capacity doubles within a reservation
 * allocated untouched (a power of two times the first capacity, so it is reached by
 * doubling): the entries in flight are usually a few reclaim batches or the dirty
 * folios of the moment, and a ring that wrapped through a slot per page of the trace
 * would touch all of its reservation on a long replay. Entry i moves from i % cap to
 * i % (2 cap), which is i % cap or that plus cap: the moves go into the half not used
 * before, so they do not overlap. Returns 0, moving nothing, at the reservation's end.
 */
static int fifo_grow(void *a, size_t size, uint64_t head, uint64_t tail, uint64_t *cap, uint64_t max)
{
	uint64_t c = *cap;

	if (c >= max)
		return 0;
	for (uint64_t i = head; i < tail; i++)
		if (i % (2 * c) != i % c)
			memcpy((char *)a + i % (2 * c) * size, (char *)a + i % c * size, size);
	*cap = 2 * c;
	return 1;
}

/* the first capacity of the FIFOs and their reservation for at most n entries */
static void fifo_size(uint64_t n, uint64_t *cap, uint64_t *max)
{
	*cap = 4096;
#ifdef MR_DEBUG_CHECKS
	*cap = 1; /* debug and sanitizer builds grow them from one entry: the goldens they
		   * replay then check fifo_grow() on every burst */
#endif
	for (*max = *cap; *max < n;)
		*max *= 2;
}

static void start_writeback(struct mr_machine *m, uint32_t frame)
{
	struct rp_machine *mach = to_rp(m);
	struct mr_folio *f = &m->folios[frame];
	uint32_t page = rp_page(mach, frame);
	uint64_t due = mach->wb_delay ? m->now_ns + mach->wb_delay : 0;
	struct wb_batch *b;

	if (f->flags & MR_PG_WRITEBACK)
		return;
	DETAIL(mach, rp_detail_writeback(mach, page));
	if (mach->wb_delay == MR_WRITEBACK_SYNC) {
		/* swap_writepage_bdev_sync(): folio_end_writeback() before pageout() returns;
		 * the folio is isolated, so PG_reclaim rotates nothing (pageout clears it), and
		 * its slot holds it now (end_writeback()) */
		f->flags &= ~MR_PG_DIRTY;
		if ((f->flags & MR_PG_SWAPBACKED) && (f->flags & E_SWAP))
			f->flags |= E_SWAPVALID;
		mach->c[C_WRITEBACKS]++;
		return;
	}
	f->flags &= ~MR_PG_DIRTY;
	f->flags |= MR_PG_WRITEBACK;
	mach->c[C_WRITEBACKS]++;
	if (mach->wb_tail - mach->wb_head == mach->wb_cap &&
	    !fifo_grow(mach->wb_ring, sizeof(*mach->wb_ring), mach->wb_head, mach->wb_tail, &mach->wb_cap,
		       mach->wb_max))
		wb_complete_one(mach); /* ring full (stale entries): end the oldest now */
	mach->wb_ring[mach->wb_tail % mach->wb_cap] = page;
	mach->wb_tail++;
	b = mach->wbb_tail > mach->wbb_head ? &mach->wbb[(mach->wbb_tail - 1) % WB_BATCHES] : NULL;
	if (b && (b->due == due || mach->wbb_tail - mach->wbb_head == WB_BATCHES)) {
		if (due > b->due)
			b->due = due;
		b->end = mach->wb_tail;
	} else {
		mach->wbb[mach->wbb_tail % WB_BATCHES] = (struct wb_batch){ .due = due, .end = mach->wb_tail };
		mach->wbb_tail++;
	}
	if (mach->wb_delay && due < mach->next_due)
		mach->next_due = due;
}

/*
 * The flusher threads (fs/fs-writeback.c, mm/page-writeback.c), as three causes of
 * writeback of dirty file folios, in the order they were dirtied (the kernel writes
 * inodes in the order they were dirtied and each inode's pages in index order):
 *   - background: a write that takes its memcg's dirty file folios over
 *     dirty_background_ratio (10 %) of its dirtyable memory (its file folios plus its
 *     headroom under memory.max: mem_cgroup_wb_stats(), domain_dirty_limits()) writes
 *     back until they are under it again (wb_over_bg_thresh());
 *   - periodic: every dirty_writeback_centisecs (5 s) the folios dirtied more than
 *     dirty_expire_centisecs (30 s) ago (wb_check_old_data_flush());
 *   - reclaim's wake-up: a reclaim invocation that met a dirty file folio it left to the
 *     flushers (queue_flusher) writes back every queued folio when it ends
 *     (wakeup_flusher_threads(WB_REASON_VMSCAN)).
 * A written folio starts writeback as pageout() would; it ends after the writeback delay
 * (with the next reclaim invocation by default, at once for `sync`) and, if reclaim had
 * marked it PG_reclaim, rotates it to the tail. docs/replay.md, "Dirty file folios".
 */
#define DIRTY_BACKGROUND_PCT 10
#define DIRTY_EXPIRE_MS 30000
#define DIRTY_WRITEBACK_NS 5000000000ull

static uint32_t ms_of(uint64_t ns)
{
	uint64_t ms = ns / 1000000;

	return ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

static void flusher_write(struct rp_machine *mach, uint32_t page)
{
	struct mr_folio *f = rp_folio(mach, page);

	mach->c[C_FLUSHER_WRITEBACKS]++;
	if (mach->wb_delay == MR_WRITEBACK_SYNC || (!mach->wb_delay && !mach->in_reclaim &&
						    !(f->flags & MR_PG_RECLAIM))) {
		/* the write ends before the flusher's next folio: clean (rotated if reclaim
		 * marked it); with the default delay a write outside reclaim that nothing
		 * waits for ends at once too */
		f->flags = (f->flags & ~MR_PG_DIRTY) | MR_PG_WRITEBACK;
		DETAIL(mach, rp_detail_writeback(mach, page));
		mach->c[C_WRITEBACKS]++;
		end_writeback(mach, page);
	} else {
		start_writeback(&mach->m, rp_frame(mach, page));
	}
}

/* Take the oldest entry off the queue; returns whether it was a live dirty folio,
 * written back now (a folio under writeback, isolated or clean meanwhile is dropped). */
static int flusher_pop(struct rp_machine *mach)
{
	uint32_t page = mach->flushq[mach->flushq_head++ % mach->flushq_cap].page;
	struct mr_folio *f;

	if (!rp_resident(mach, page))
		return 0; /* stale: freed since (a page out of memory has no E_FLUSHQ) */
	f = rp_folio(mach, page);
	if (!(f->flags & E_FLUSHQ))
		return 0; /* stale: freed (and maybe queued again) since */
	f->flags &= ~E_FLUSHQ;
	mach->memcg[f->lruvec / mach->m.nr_nodes].dirty--;
	if ((f->flags & (MR_PG_RESIDENT | MR_PG_DIRTY | MR_PG_WRITEBACK | MR_PG_LRU)) !=
	    (MR_PG_RESIDENT | MR_PG_DIRTY | MR_PG_LRU))
		return 0;
	flusher_write(mach, page);
	return 1;
}

static void flusher_all(struct rp_machine *mach)
{
	while (mach->flushq_head < mach->flushq_tail)
		flusher_pop(mach);
}

/* A file folio became dirty (or reclaim found it dirty): queue it once, counted in its
 * memcg's dirty folios. */
static void flusher_queue(struct rp_machine *mach, uint32_t page)
{
	struct mr_folio *f = rp_folio(mach, page);

	if (f->flags & E_FLUSHQ)
		return;
	if (mach->flushq_tail - mach->flushq_head == mach->flushq_cap &&
	    !fifo_grow(mach->flushq, sizeof(*mach->flushq), mach->flushq_head, mach->flushq_tail,
		       &mach->flushq_cap, mach->flushq_max))
		flusher_all(mach); /* full of stale entries: write everything now */
	f->flags |= E_FLUSHQ;
	mach->memcg[f->lruvec / mach->m.nr_nodes].dirty++;
	mach->flushq[mach->flushq_tail++ % mach->flushq_cap] =
		(struct rp_flushq_ent){ .page = page, .ms = ms_of(mach->m.now_ns) };
}

/* mr_machine_ops.queue_flusher: reclaim met a dirty file folio it leaves to the flushers */
static void queue_flusher(struct mr_machine *m, uint32_t frame)
{
	struct rp_machine *mach = to_rp(m);

	flusher_queue(mach, rp_page(mach, frame));
	mach->flush_wake = 1;
}

/* Dirtyable memory of memcg i in pages: its file folios and its headroom (the parent
 * limit's when it has none); 0 when nothing limits it (no writeback is needed for room). */
static uint64_t dirtyable(const struct rp_machine *mach, uint32_t i)
{
	const struct rp_memcg *c = &mach->memcg[i];
	uint64_t file = 0, limit = c->limit, usage = c->usage;

	if (limit == UNLIMITED && mach->hier) {
		limit = mach->global_limit;
		usage = mach->total_usage;
		for (uint32_t k = 0; k < mach->m.nr_lruvecs; k++) {
			const uint64_t *st = &mach->m.lruvec_stat[(size_t)k * MR_NR_VMSTAT];

			file += st[MR_VM_NR_ACTIVE_FILE] + st[MR_VM_NR_INACTIVE_FILE];
		}
	} else {
		for (uint32_t nd = 0; nd < mach->m.nr_nodes; nd++) {
			const uint64_t *st = &mach->m.lruvec_stat[((size_t)i * mach->m.nr_nodes + nd) *
								   MR_NR_VMSTAT];

			file += st[MR_VM_NR_ACTIVE_FILE] + st[MR_VM_NR_INACTIVE_FILE];
		}
	}
	if (limit == UNLIMITED)
		return 0;
	return file + (limit > usage ? limit - usage : 0);
}

/* After a write dirtied a file folio: background writeback while over the threshold. */
void rp_file_dirtied(struct rp_machine *mach, uint32_t page)
{
	struct mr_folio *f = rp_folio(mach, page);
	uint32_t mi = f->lruvec / mach->m.nr_nodes;
	uint64_t avail;

	if (f->flags & E_FLUSHQ)
		return;
	flusher_queue(mach, page);
	avail = dirtyable(mach, mi);
	if (!avail || mach->memcg[mi].dirty * 100 <= avail * DIRTY_BACKGROUND_PCT)
		return;
	while (mach->flushq_head < mach->flushq_tail &&
	       mach->memcg[mi].dirty * 100 > avail * DIRTY_BACKGROUND_PCT)
		mach->c[C_FLUSHER_BACKGROUND] += (uint64_t)flusher_pop(mach);
}

/* The periodic writeback, at trace time now: called from the event loop. */
void rp_flusher_periodic(struct rp_machine *mach, uint64_t now)
{
	uint32_t old = ms_of(now) > DIRTY_EXPIRE_MS ? ms_of(now) - DIRTY_EXPIRE_MS : 0;

	mach->next_kupdate = now + DIRTY_WRITEBACK_NS;
	while (mach->flushq_head < mach->flushq_tail &&
	       mach->flushq[mach->flushq_head % mach->flushq_cap].ms <= old && old)
		mach->c[C_FLUSHER_PERIODIC] += (uint64_t)flusher_pop(mach);
}

/* ---- frames ---- */

/* A frame for page, which enters memory: the last one freed (its lines are the ones
 * reclaim touched last), else the next never used. Its folio is set up by the caller. */
static uint32_t frame_take(struct rp_machine *mach, uint32_t page)
{
	uint32_t fr = mach->nfree_frames ? mach->free_frames[--mach->nfree_frames]
					 : mach->frames_used++;

	mach->m.folios[fr].page = page;
	return fr;
}

/* page leaves memory (unmapped by now): its rp_pg keeps the E_OUT flags of the folio and
 * shadow, and the frame goes back to the stack. The folio is left as it is, flags
 * cleared of MR_PG_RESIDENT, until the frame is taken again: a policy may look at it
 * after remove_mapping() in the same reclaim, as the kernel's caller still holds it. */
static void frame_leave(struct rp_machine *mach, uint32_t page, const struct mr_folio *f,
			uint64_t shadow)
{
	struct rp_pg *g = &mach->pg[page];
	uint32_t fr = g->frame;

	g->shadow = shadow;
	g->flags = (g->flags & (PG_TYPE_MASK | E_UNSEEN)) | (f->flags & E_OUT);
	mach->free_frames[mach->nfree_frames++] = fr;
}

/* ---- leaving memory ---- */

static void resident_dec(struct rp_machine *mach, uint32_t page)
{
	mach->c[C_RESIDENT]--;
	if (ptype(mach, page) == RP_FILE) {
		mach->c[C_RESIDENT_FILE]--;
		fa_resident_set(mach, page, 0);
	} else {
		mach->c[C_RESIDENT_ANON]--;
	}
}

/* A folio leaves memory outside reclaim (FREE, munmap, exit): no shadow. */
void rp_folio_free(struct rp_machine *mach, uint32_t page)
{
	struct rp_pg *g = &mach->pg[page];
	struct mr_folio *f;

	if (mach->shadow)
		rp_shadow_page_gone(mach, page, rp_resident(mach, page),
				    !!(rp_pflags(mach, page) & E_SHADOW));
	if (!rp_resident(mach, page)) {
		swap_release(mach, page);
		g->flags &= E_KEEP | PG_TYPE_MASK;
		g->shadow = 0;
		return;
	}
	f = rp_folio(mach, page);
	if (mach->ops->folio_del)
		mach->ops->folio_del(mach->pol, g->frame);
	rp_unmap_all(mach, page);
	uncharge(mach, page);
	resident_dec(mach, page);
	count(mach, page, MR_VM_PGFREE);
	mach->c[C_FREED]++;
	DETAIL(mach, rp_detail_free(mach, page));
	swap_release(mach, page);
	if (f->flags & E_FLUSHQ) /* its queue entry goes stale */
		mach->memcg[f->lruvec / mach->m.nr_nodes].dirty--;
	f->flags &= E_KEEP;
	f->mapcount = 0;
	frame_leave(mach, page, f, 0);
	g->flags &= ~E_UNSEEN;
}

/* __remove_mapping() after try_to_unmap(): see mr_replay.h. */
static int remove_mapping(struct mr_machine *m, uint32_t frame, uint64_t shadow)
{
	struct rp_machine *mach = to_rp(m);
	struct mr_folio *f = &m->folios[frame];
	uint32_t page = rp_page(mach, frame);
	int anon = (f->flags & MR_PG_SWAPBACKED) != 0;

	if (!(f->flags & MR_PG_RESIDENT)) {
		MR_WARN_ON_ONCE(!(f->flags & MR_PG_RESIDENT));
		return MR_REMOVE_BUSY;
	}
	MR_WARN_ON_ONCE(f->flags & MR_PG_LRU);
	if (anon && !(f->flags & MR_PG_SWAPCACHE) && add_to_swap(m, frame))
		return MR_REMOVE_BUSY;
	rp_unmap_all(mach, page);
	if ((f->flags & MR_PG_DIRTY) && ptype(mach, page) == RP_FILE)
		queue_flusher(m, frame); /* dirty through a PTE: the flushers write it */
	if (f->flags & (MR_PG_DIRTY | MR_PG_WRITEBACK))
		return MR_REMOVE_BUSY;
	if (anon && !(f->flags & E_SWAPVALID)) {
		mach->c[C_SWAP_UNWRITTEN]++; /* freed without ever being written: a policy bug */
		f->flags |= E_SWAPVALID;
	}
	uncharge(mach, page);
	resident_dec(mach, page);
	if (f->flags & E_FLUSHQ) /* clean by now; its queue entry goes stale */
		mach->memcg[f->lruvec / mach->m.nr_nodes].dirty--;
	f->flags = (f->flags & (E_KEEP | E_SWAP | E_SWAPVALID)) | E_EVICTED |
		   (rp_shadow_store(mach, page) ? E_SHADOW : 0);
	f->mapcount = 0;
	mach->c[C_EVICTIONS]++;
	mach->c[anon ? C_EVICT_ANON : C_EVICT_FILE]++;
	DETAIL(mach, rp_detail_evict(mach, page));
	frame_leave(mach, page, f, (f->flags & E_SHADOW) ? shadow : 0);
	return MR_REMOVED;
}

/* ---- reclaim ---- */

static void shrink_one(struct rp_machine *mach, uint32_t memcg, uint32_t node,
		       struct mr_scan_control *sc)
{
	sc->memcg = memcg;
	sc->node = node;
	DETAIL(mach, mach->detail->sc = sc);
	mach->ops->shrink_lruvec(mach->pol, memcg * mach->m.nr_nodes + node, sc);
	DETAIL(mach, mach->detail->sc = NULL);
}

/* After a reclaim invocation: writeback that ends with it, the invariant check. */
static void reclaim_done(struct rp_machine *mach)
{
	mach->in_reclaim = 0;
	rp_shadow_shrink(mach); /* shrink_slab() runs in every reclaim */
	if (mach->flush_wake) {
		mach->flush_wake = 0;
		mach->c[C_FLUSHER_WAKEUPS]++;
		flusher_all(mach);
	}
	if (!mach->wb_delay)
		rp_wb_complete_all(mach); /* writeback ends with the reclaim invocation */
	if (mach->check && mach->ops->check &&
	    (mach->check == 1 || mach->c[C_RECLAIMS] <= 1024 || !(mach->c[C_RECLAIMS] & 63)))
		mach->c[C_CHECK] += mach->ops->check(mach->pol);
}

/*
 * try_to_free_mem_cgroup_pages() -> do_try_to_free_pages(): priorities DEF_PRIORITY..0,
 * each node from the allocating one, each memcg of the target (all of them for the
 * parent limit, target = MR_NONE). Returns pages freed.
 */
static uint64_t try_to_free(struct rp_machine *mach, uint32_t target, uint32_t node, uint64_t nr,
			    uint64_t needed)
{
	struct mr_scan_control sc = {
		.nr_to_reclaim = nr, .may_swap = 1, .may_writepage = 1, .may_unmap = 1,
		.gfp_io = 1, .memcg_reclaim = 1, .nr_needed = needed,
	};
	uint64_t before = mach->c[C_EVICTIONS];
	uint32_t nodes = mach->m.nr_nodes, memcgs = mach->m.nr_memcgs;

	mach->c[C_RECLAIMS]++;
	mach->in_reclaim = 1;
	for (int prio = MR_DEF_PRIORITY; prio >= 0; prio--) {
		sc.priority = prio;
		sc.nr_scanned = 0;
		for (uint32_t k = 0; k < nodes; k++) {
			uint32_t nd = (node + k) % nodes;

			if (target != MR_NONE) {
				shrink_one(mach, target, nd, &sc);
			} else {
				for (uint32_t j = 0; j < memcgs; j++) {
					shrink_one(mach, (mach->rr + j) % memcgs, nd, &sc);
					if (sc.nr_reclaimed >= nr || mach->c[C_EVICTIONS] - before >= nr)
						break;
				}
			}
			if (sc.nr_reclaimed >= nr || mach->c[C_EVICTIONS] - before >= nr)
				goto out;
		}
	}
out:
	if (target == MR_NONE)
		mach->rr = (mach->rr + 1) % memcgs;
	reclaim_done(mach);
	return mach->c[C_EVICTIONS] - before;
}

/* ---- node reclaim: watermarks, kswapd, direct reclaim (mr_replay.h) ---- */

/* include/linux/math.h:mult_frac(): v * n / d without overflowing v * n. */
static uint64_t mult_frac(uint64_t v, uint64_t n, uint64_t d)
{
	return (v / d) * n + ((v % d) * n) / d;
}

void mr_replay_watermarks(uint64_t node_pages, uint64_t total_pages, struct mr_watermarks *w)
{
	uint64_t kbytes, pages_min, tmp;

	memset(w, 0, sizeof(*w));
	if (!total_pages || node_pages > total_pages)
		total_pages = node_pages;
	if (!total_pages)
		return;
	/* mm/page_alloc.c:calculate_min_free_kbytes(): sqrt(lowmem_kbytes * 16), clamped
	 * to [128, 262144]; lowmem = every page here (nr_free_buffer_pages() at boot) */
	kbytes = total_pages * 4;
	w->min_free_kbytes = mr_int_sqrt(kbytes * 16);
	if (w->min_free_kbytes < 128)
		w->min_free_kbytes = 128;
	if (w->min_free_kbytes > 262144)
		w->min_free_kbytes = 262144;
	/* mm/page_alloc.c:__setup_per_zone_wmarks(): the node's zone gets its share of
	 * pages_min; low and high are each a further max(min / 4, managed *
	 * watermark_scale_factor / 10000) above, with watermark_scale_factor = 10 */
	pages_min = w->min_free_kbytes >> (12 - 10);
	w->min = pages_min * node_pages / total_pages;
	tmp = mult_frac(node_pages, 10, 10000);
	if (tmp < (w->min >> 2))
		tmp = w->min >> 2;
	w->low = w->min + tmp;
	w->high = w->low + tmp;
}

int rp_machine_set_node_reclaim(struct rp_machine *mach, uint64_t node_pages, struct mr_error *err)
{
	uint32_t nn = mach->m.nr_nodes;

	free(mach->node);
	mach->node = calloc(nn, sizeof(*mach->node));
	if (!mach->node)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nn; i++) {
		struct rp_node *n = &mach->node[i];
		struct mr_watermarks w;

		n->managed = node_pages / nn + (i < node_pages % nn ? 1 : 0);
		mr_replay_watermarks(n->managed, node_pages, &w);
		n->wmark_min = w.min;
		n->wmark_low = w.low;
		n->wmark_high = w.high;
		mach->c[C_NODE_PAGES] += n->managed;
		mach->c[C_WMARK_MIN] += w.min;
		mach->c[C_WMARK_LOW] += w.low;
		mach->c[C_WMARK_HIGH] += w.high;
	}
	return 0;
}

static uint64_t node_free(const struct rp_node *n)
{
	return n->managed > n->used ? n->managed - n->used : 0;
}

static int node_watermark_ok(struct mr_machine *m, uint32_t nd, uint64_t extra)
{
	struct rp_machine *mach = to_rp(m);

	if (!mach->node || nd >= m->nr_nodes)
		return -1;
	return node_free(&mach->node[nd]) > mach->node[nd].wmark_high + extra;
}

/*
 * mm/vmscan.c:balance_pgdat() for order 0, without boosting: see mr_replay.h. Each step
 * is kswapd_age_node() + kswapd_shrink_node(); the policy runs its kswapd work itself
 * (sc.kswapd, at the node's first memcg). Like lru_gen_shrink_node() for kswapd,
 * sc.nr_reclaimed counts one step, so that should_abort_scan() compares a step's
 * progress with its nr_to_reclaim.
 */
static void balance_pgdat(struct rp_machine *mach, uint32_t nd)
{
	struct rp_node *n = &mach->node[nd];
	struct mr_scan_control sc = {
		.may_swap = 1, .may_writepage = 1, .may_unmap = 1, .gfp_io = 1, .kswapd = 1,
	};
	uint64_t total = 0;
	int prio = MR_DEF_PRIORITY;

	n->kswapd_pending = 0;
	mach->c[C_KSWAPD_RUNS]++;
	mach->in_reclaim = 1;
	do {
		uint64_t before = mach->c[C_EVICTIONS], got;

		if (node_free(n) > n->wmark_high)
			goto out; /* pgdat_balanced() */
		sc.priority = prio;
		sc.nr_scanned = 0;
		sc.nr_reclaimed = 0;
		/* kswapd_shrink_node(): max(high_wmark_pages, SWAP_CLUSTER_MAX) per zone */
		sc.nr_to_reclaim = n->wmark_high > MR_SWAP_CLUSTER_MAX ? n->wmark_high
								 : MR_SWAP_CLUSTER_MAX;
		/* shrink_node_memcgs(): kswapd always walks every memcg, from the root */
		for (uint32_t mc = 0; mc < mach->m.nr_memcgs; mc++)
			shrink_one(mach, mc, nd, &sc);
		got = mach->c[C_EVICTIONS] - before;
		total += got;
		if (got)
			n->kswapd_failures = 0;
		/* raise the priority if scanning was too little or nothing was reclaimed */
		if ((sc.nr_scanned > got ? sc.nr_scanned : got) < sc.nr_to_reclaim || !got)
			prio--;
	} while (prio >= 1);
	if (!total) {
		n->kswapd_failures++;
		mach->c[C_KSWAPD_FAILED]++;
	}
out:
	reclaim_done(mach);
}

/* Run every woken kswapd whose wakeup is older than the current trace time, as kswapd()
 * does: until the node is balanced or kswapd is hopeless. */
static void run_kswapd(struct rp_machine *mach)
{
	int still = 0;

	for (uint32_t nd = 0; nd < mach->m.nr_nodes; nd++) {
		struct rp_node *n = &mach->node[nd];

		if (!n->kswapd_pending)
			continue;
		if (n->wake_ns >= mach->m.now_ns) {
			still = 1;
			continue;
		}
		/* kswapd(): balance_pgdat() again until balanced, or hopeless
		 * (prepare_kswapd_sleep) */
		do
			balance_pgdat(mach, nd);
		while (node_free(n) <= n->wmark_high && n->kswapd_failures < MAX_RECLAIM_RETRIES);
	}
	mach->kswapd_pending = still;
}

/* mm/vmscan.c:wakeup_kswapd(): not when hopeless (kswapd_failures) or balanced. */
static void wakeup_kswapd(struct rp_machine *mach, uint32_t nd)
{
	struct rp_node *n = &mach->node[nd];

	if (n->kswapd_pending || n->kswapd_failures >= MAX_RECLAIM_RETRIES ||
	    node_free(n) > n->wmark_high)
		return;
	n->kswapd_pending = 1;
	n->wake_ns = mach->m.now_ns;
	mach->kswapd_pending = 1;
	mach->c[C_KSWAPD_WAKEUPS]++;
}

/*
 * mm/vmscan.c:try_to_free_pages() -> do_try_to_free_pages() for one node: 32 pages,
 * priority DEF_PRIORITY..0, shrink_node_memcgs() with a partial walk that resumes where
 * the last one stopped. Returns pages freed.
 */
static uint64_t try_to_free_pages(struct rp_machine *mach, uint32_t nd)
{
	struct rp_node *n = &mach->node[nd];
	struct mr_scan_control sc = {
		.nr_to_reclaim = MR_SWAP_CLUSTER_MAX, .may_swap = 1, .may_writepage = 1,
		.may_unmap = 1, .gfp_io = 1,
	};
	uint64_t before = mach->c[C_EVICTIONS];
	uint32_t memcgs = mach->m.nr_memcgs;

	mach->c[C_DIRECT_RECLAIMS]++;
	mach->in_reclaim = 1;
	for (int prio = MR_DEF_PRIORITY; prio >= 0; prio--) {
		sc.priority = prio;
		sc.nr_scanned = 0;
		for (uint32_t j = 0; j < memcgs; j++) {
			uint32_t mc = n->rr;

			n->rr = (n->rr + 1) % memcgs;
			shrink_one(mach, mc, nd, &sc);
			if (sc.nr_reclaimed >= sc.nr_to_reclaim)
				break; /* partial walk: bail once the goal is reached */
		}
		if (sc.nr_reclaimed >= sc.nr_to_reclaim ||
		    mach->c[C_EVICTIONS] - before >= sc.nr_to_reclaim)
			break;
	}
	reclaim_done(mach);
	if (mach->c[C_EVICTIONS] != before)
		n->kswapd_failures = 0;
	return mach->c[C_EVICTIONS] - before;
}

/*
 * The page allocator for one order-0 page on node nd (__alloc_pages): the fast path at
 * the low watermark, then kswapd's wakeup, the min watermark, and direct reclaim with
 * retries (__alloc_pages_slowpath, should_reclaim_retry); see mr_replay.h.
 */
static void alloc_page_node(struct rp_machine *mach, uint32_t nd)
{
	struct rp_node *n = &mach->node[nd];

	if (mach->kswapd_pending)
		run_kswapd(mach); /* the kswapds woken before this instant have run by now */
	if (node_free(n) > n->wmark_low)
		goto got;
	wakeup_kswapd(mach, nd);
	/* should_reclaim_retry(): retry while reclaim makes progress; OOM after
	 * MAX_RECLAIM_RETRIES rounds in a row without any (nothing freed, no I/O started) */
	for (int no_progress = 0; node_free(n) <= n->wmark_min;) {
		uint64_t wb = mach->c[C_WRITEBACKS];

		if (try_to_free_pages(mach, nd) || mach->c[C_WRITEBACKS] != wb) {
			no_progress = 0;
		} else if (++no_progress > MAX_RECLAIM_RETRIES) {
			/* out of memory: the page is allocated below min (no task is killed) */
			mach->c[C_OOM]++;
			n->oom++;
			break;
		}
	}
got:
	n->used++;
}

/*
 * The batch slack of a sampled machine (docs/replay.md, "Sampled replay", "What cannot
 * be exact"): a charge over the limit reclaims a batch (SWAP_CLUSTER_MAX for the
 * kernel's policies, what the charge needs for opt), so the memcg holds about half a
 * batch less than its limit on average. The full machine's batch is 1/N of its memory's
 * share where the sampled machine's same batch is N times that share, so the sampled
 * one would hold (b / 2)(1 - 1/N) pages less than its scaled limit: it may hold that
 * much more, b the mean batch the policy's reclaims have freed so far in this run (what
 * each freed, at most two SWAP_CLUSTER_MAX chunks: charge()). Nothing in a full replay.
 */
static uint64_t batch_slack(const struct rp_machine *mach)
{
	uint64_t n = mach->sample_den;

	if (n <= 1 || !mach->charge_reclaims)
		return 0;
	return mach->charge_freed / mach->charge_reclaims * (n - 1) / (2 * n);
}

/* try_charge_memcg() for one page of memcg mi on node. */
static void charge(struct rp_machine *mach, uint32_t mi, uint32_t node)
{
	struct rp_memcg *c = &mach->memcg[mi];

	for (int retries = 0;; retries++) {
		uint64_t slack = batch_slack(mach);
		int self = c->limit != UNLIMITED && c->usage + 1 > c->limit + slack;
		int parent = mach->hier && mach->total_usage + 1 > mach->global_limit + slack;
		uint64_t excess, got, wb;

		if (!self && !parent)
			break;
		excess = self ? c->usage + 1 - c->limit - slack
			      : mach->total_usage + 1 - mach->global_limit - slack;
		wb = mach->c[C_WRITEBACKS];
		got = try_to_free(mach, self ? mi : MR_NONE, node,
				  excess > MR_SWAP_CLUSTER_MAX ? excess : MR_SWAP_CLUSTER_MAX, excess);
		/* the batch part of what it freed: the kernel's reclaim stops after the
		 * SWAP_CLUSTER_MAX chunk that reaches its target, one of each list at most;
		 * more than two chunks is reclaim of a share of memory (mglru evicting from
		 * a small machine's generation), which scales with the machine already */
		mach->charge_reclaims++;
		mach->charge_freed += got < 2 * MR_SWAP_CLUSTER_MAX ? got : 2 * MR_SWAP_CLUSTER_MAX;
		/* no progress at all (nothing freed, no I/O started that could free
		 * something next time), or MAX_RECLAIM_RETRIES used up: OOM */
		if ((!got && mach->c[C_WRITEBACKS] == wb) || retries + 1 >= MAX_RECLAIM_RETRIES) {
			/* out of memory: the charge goes over the limit */
			mach->c[C_OOM]++;
			if (self)
				c->oom++;
			else
				mach->global_oom++;
			break;
		}
	}
	c->usage++;
	mach->total_usage++;
	if (c->usage > c->usage_max)
		c->usage_max = c->usage;
	if (mach->total_usage > mach->c[C_USAGE_MAX])
		mach->c[C_USAGE_MAX] = mach->total_usage;
}

/* ---- entering memory ---- */

static int swap_full(const struct rp_machine *mach)
{
	return mach->swap_total != UNLIMITED && mach->swap_used * 2 > mach->swap_total;
}

/*
 * Bring page into memory: charge (maybe reclaim), make the folio resident, refault with
 * the stored shadow, folio_add. Anon pages with a swap slot are swapped in.
 */
void rp_insert_page(struct rp_machine *mach, uint32_t page, unsigned ctx, int write)
{
	const struct rp_page *rp = &mach->t->pages[page];
	struct rp_pg *g = &mach->pg[page];
	unsigned type = ptype(mach, page);
	uint16_t lruvec = (uint16_t)(rp->memcg * mach->m.nr_nodes + rp->node);
	struct mr_folio *f;
	uint32_t est, fr;
	uint64_t shadow;

	if (mach->node)
		alloc_page_node(mach, rp->node); /* the folio is allocated, then charged */
	charge(mach, lruvec / mach->m.nr_nodes, rp->node);
	est = g->flags & ~PG_TYPE_MASK;
	shadow = g->shadow; /* the frame takes its place */
	if (mach->shadow)
		rp_shadow_page_in(mach, page, !!(est & E_SHADOW));
	/* the frame after the charge: its reclaim may have freed the one taken */
	fr = frame_take(mach, page);
	f = &mach->m.folios[fr];
	/* the policy's state in the record stays as the frame's last folio left it */
	f->flags = MR_PG_RESIDENT | (type != RP_FILE ? MR_PG_SWAPBACKED : 0) |
		   (est & (MR_PG_EXEC | E_SWAP | E_SWAPVALID));
	f->mapcount = 0;
	f->type = (uint8_t)type;
	f->zone = 0;
	f->lruvec = lruvec;
	f->node = rp->node;
	f->pte = g->pte;
	g->frame = fr;
	g->flags = (g->flags & PG_TYPE_MASK) | MR_PG_RESIDENT;
	mach->c[C_RESIDENT]++;
	mach->c[type == RP_FILE ? C_RESIDENT_FILE : C_RESIDENT_ANON]++;
	if (type == RP_FILE)
		fa_resident_set(mach, page, 1);
	mach->c[C_MISSES]++;
	mach->c[(est & E_EVICTED) ? C_REFAULTS : C_FIRST]++;
	if ((est & (E_EVICTED | E_UNSEEN)) == (E_EVICTED | E_UNSEEN))
		mach->c[C_UNSEEN_REFAULTS]++;
	if (type != RP_FILE && (est & E_SWAP)) {
		/* do_swap_page(): read from the slot, keep it unless should_try_to_free_swap().
		 * A SWP_SYNCHRONOUS_IO device (zram: the sync writeback mode) reads into a
		 * new folio outside the swap cache and frees the entry (swap_free_nr()), so
		 * the next eviction writes the folio again (add_to_swap() dirties it). */
		ctx |= MR_ADD_SWAPIN;
		count(mach, page, MR_VM_PSWPIN);
		f->flags |= MR_PG_SWAPCACHE;
		if (write || swap_full(mach) || mach->wb_delay == MR_WRITEBACK_SYNC) {
			swap_release(mach, page);
			f->flags |= MR_PG_DIRTY;
		}
	}
	if (est & E_SHADOW) {
		ctx |= MR_ADD_REFAULT;
		mach->c[C_SHADOW_REFAULTS]++;
		if (mach->ops->refault)
			mach->ops->refault(mach->pol, fr, shadow, ctx);
	}
	mach->ops->folio_add(mach->pol, fr, ctx);
	DETAIL(mach, rp_detail_insert(mach, page, est, ctx));
}

/* ---- results ---- */

/* Does segment counter i (vmstat items, then engine counters) count events? Gauges and
 * peaks do not: their differences between boundaries are not amounts a segment adds. */
static int seg_counts(unsigned i)
{
	if (i < MR_NR_VMSTAT)
		return i < MR_VM_NR_ACTIVE_ANON; /* nr_active_anon .. nr_unevictable: gauges */
	switch (i - MR_NR_VMSTAT) {
	case C_TABLES_MAX: case C_USAGE_MAX: case C_SWAP_MAX: case C_RESIDENT:
	case C_RESIDENT_ANON: case C_RESIDENT_FILE: case C_SWAP_USED: case C_NODE_PAGES:
	case C_WMARK_MIN: case C_WMARK_LOW: case C_WMARK_HIGH:
		return 0;
	default:
		return 1;
	}
}

/* The segments of a finished run: the counted counters at each boundary. */
static int seg_result(struct rp_machine *mach, struct mr_run_result *r, struct mr_error *err)
{
	size_t n = 0;

	if (!mach->nsegs || mach->seg_done != mach->nsegs)
		return 0; /* not finished: no segments rather than partial ones */
	free(mach->seg_names);
	free(mach->seg_out);
	mach->seg_names = calloc(NR_SEG_CTR, sizeof(*mach->seg_names));
	mach->seg_out = calloc((size_t)mach->nsegs * NR_SEG_CTR, sizeof(uint64_t));
	if (!mach->seg_names || !mach->seg_out)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	for (unsigned i = 0; i < NR_SEG_CTR; i++) {
		if (!seg_counts(i))
			continue;
		mach->seg_names[n++] = i < MR_NR_VMSTAT ? mr_vmstat_name(i) : rp_ctr_names[i - MR_NR_VMSTAT];
	}
	mach->nseg_names = n;
	for (uint32_t s = 0; s < mach->nsegs; s++) {
		const uint64_t *cum = mach->seg_cum + (size_t)s * NR_SEG_CTR;
		uint64_t *out = mach->seg_out + (size_t)s * n;

		for (unsigned i = 0, k = 0; i < NR_SEG_CTR; i++)
			if (seg_counts(i))
				out[k++] = cum[i];
	}
	r->segs = mach->seg;
	r->nsegs = mach->nsegs;
	r->seg_names = mach->seg_names;
	r->seg_nnames = n;
	r->seg_val = mach->seg_out;
	return 0;
}

int rp_machine_result(struct rp_machine *mach, struct mr_run_result *r, struct mr_error *err)
{
	uint32_t nm = mach->m.nr_memcgs, nn = mach->m.nr_nodes;
	size_t k = 0, cap = MR_NR_VMSTAT + NR_CTR + 2 + (size_t)nm * (MR_NR_VMSTAT + 4);

	memset(r, 0, sizeof(*r));
	free(mach->counters);
	mach->counters = calloc(cap, sizeof(*mach->counters));
	if (!mach->counters)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	for (unsigned i = 0; i < MR_NR_VMSTAT; i++)
		mach->counters[k++] = (struct mr_result_counter){ mr_vmstat_name(i), -1, mach->vmstat[i] };
	for (unsigned i = 0; i < NR_CTR; i++)
		mach->counters[k++] = (struct mr_result_counter){ rp_ctr_names[i], -1, mach->c[i] };
	/* a sampled run: the pages its memcgs could go over their limits at the end */
	if (mach->sample_den > 1) {
		mach->counters[k++] = (struct mr_result_counter){ "mr_sample_batch_slack", -1,
								  batch_slack(mach) };
		/* and the sampled file pages it unmapped for unsampled copies (mm.c,
		 * rp_cow_break()) */
		mach->counters[k++] = (struct mr_result_counter){ "mr_sample_cow_unmaps", -1,
								  mach->cow_unmaps };
	}
	for (uint32_t mc = 0; mc < nm; mc++) {
		int64_t id = mach->m.memcg_id[mc];

		for (unsigned i = 0; i < MR_NR_VMSTAT; i++) {
			uint64_t v = 0;

			for (uint32_t nd = 0; nd < nn; nd++)
				v += mach->lruvec_stat[((size_t)mc * nn + nd) * MR_NR_VMSTAT + i];
			mach->counters[k++] = (struct mr_result_counter){ mr_vmstat_name(i), id, v };
		}
		mach->counters[k++] = (struct mr_result_counter){ "mr_usage", id, mach->memcg[mc].usage };
		mach->counters[k++] = (struct mr_result_counter){ "mr_usage_max", id, mach->memcg[mc].usage_max };
		mach->counters[k++] = (struct mr_result_counter){
			"mr_limit", id, mach->memcg[mc].limit == UNLIMITED ? 0 : mach->memcg[mc].limit };
		mach->counters[k++] = (struct mr_result_counter){ "mr_oom", id, mach->memcg[mc].oom };
	}
	r->counters = mach->counters;
	r->ncounters = k;
	r->totals = (struct mr_run_totals){
		.pgfault = mach->vmstat[MR_VM_PGFAULT],
		.pgmajfault = mach->vmstat[MR_VM_PGMAJFAULT],
		.misses = mach->c[C_MISSES],
		.refaults = mach->vmstat[MR_VM_WORKINGSET_REFAULT_ANON] +
			    mach->vmstat[MR_VM_WORKINGSET_REFAULT_FILE],
		.evictions = mach->c[C_EVICTIONS],
		.pswpin = mach->vmstat[MR_VM_PSWPIN],
		.pswpout = mach->vmstat[MR_VM_PSWPOUT],
		.oom = mach->c[C_OOM],
		.usage_max = mach->c[C_USAGE_MAX],
		.reclaim_passes = mach->c[C_RECLAIMS] + mach->c[C_DIRECT_RECLAIMS] +
				  mach->c[C_KSWAPD_RUNS],
	};
	snprintf(r->spec, sizeof(r->spec), "%s", mach->canon);
	snprintf(r->name, sizeof(r->name), "%s", mach->ops->name);
	r->events = mach->c[C_EVENTS];
	r->model = mach->model;
	r->nmodel = mach->nmodel;
	r->ts_names = mach->ts_names;
	r->ts_nnames = mach->ts_nnames;
	r->ts_t = mach->ts_t;
	r->ts_val = mach->ts_val;
	r->ts_nsamples = mach->ts_n;
	r->snaps = mach->snaps;
	r->nsnaps = mach->nsnaps;
	r->log = mach->log;
	r->nlog = mach->nlog;
	r->wall_s = mach->wall_s;
	r->notes = mach->notes;
	r->nnotes = mach->nnotes;
	return seg_result(mach, r, err);
}

const struct mr_error *rp_machine_error(const struct rp_machine *mach)
{
	return &mach->err;
}

uint64_t rp_machine_series_cut(const struct rp_machine *mach)
{
	return mach->ts_cut;
}

void rp_machine_add_time(struct rp_machine *mach, double s)
{
	mach->wall_s += s;
}

int rp_machine_wants_nextuse(const struct rp_machine *mach)
{
	return mach->ops->access != NULL;
}

/* ---- lifecycle ---- */

void rp_machine_destroy(struct rp_machine *mach)
{
	if (!mach)
		return;
	mr_policy_destroy(mach->pol);
	rp_detail_destroy(mach);
	rp_shadow_destroy(mach);
	mr_big_free(mach->m.folios, (size_t)mach->m.nr_pages * sizeof(struct mr_folio));
	free(mach->m.mms);
	free(mach->lruvec_stat);
	mr_big_free(mach->pg, (size_t)mach->m.nr_pages * sizeof(struct rp_pg));
	mr_big_free(mach->free_frames, (size_t)mach->m.nr_pages * sizeof(uint32_t));
	free(mach->fa_resident);
	free(mach->vma_live);
	if (mach->mmx)
		for (uint32_t i = 0; i < mach->t->nr_mms; i++)
			free(mach->mmx[i].tbl);
	free(mach->mmx);
	free(mach->imap);
	free(mach->arena);
	free(mach->task_exited);
	for (uint32_t i = mach->initial_slabs; i < mach->nslabs; i++)
		free(mach->slabs[i]);
	mr_big_free(mach->slab_block, (size_t)mach->initial_slabs * TPER * sizeof(struct mr_pte_table));
	free(mach->slabs);
	free(mach->tbl_mm);
	free(mach->tbl_addr);
	free(mach->tbl_vma);
	free(mach->pmdy);
	free(mach->freelist);
	free(mach->memcg);
	free(mach->lruvec_pages);
	free(mach->node);
	free(mach->wb_ring);
	free(mach->flushq);
	free(mach->ts_names);
	free(mach->ts_memcg_names);
	free(mach->ts_t);
	free(mach->ts_val);
	for (size_t i = 0; i < mach->nsnaps; i++)
		free(mach->snaps[i].text);
	free(mach->snaps);
	free(mach->log);
	free(mach->showbuf);
	free(mach->model);
	free(mach->counters);
	free(mach->seg);
	free(mach->seg_cum);
	free(mach->seg_names);
	free(mach->seg_out);
	free(mach);
}

int rp_machine_create(const struct rp_image *t, const struct rp_machine_opts *o,
		      struct rp_machine **out, struct mr_error *err)
{
	const struct mr_policy_ops *ops = o->ops;
	struct rp_machine *mach;
	uint32_t np = t->nr_pages, nn = t->nodes, nm = t->nr_memcgs;
	uint64_t arena_n = 0, span, seg_events;
	uint32_t *ap;
	int rc;

	*out = NULL;
	if (!ops->folio_add || !ops->shrink_lruvec)
		return mr_error_set(err, MR_EINVAL, "policy %s lacks folio_add or shrink_lruvec", ops->name);
	mach = calloc(1, sizeof(*mach));
	if (!mach)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	mach->t = t;
	mach->ops = ops;
	snprintf(mach->canon, sizeof(mach->canon), "%s", o->canon);
	mach->mops = (struct mr_machine_ops){
		.rmap_walk = rp_rmap_walk, .walk_mm = rp_walk_mm, .remove_mapping = remove_mapping,
		.start_writeback = start_writeback, .add_to_swap = add_to_swap,
		.node_watermark_ok = node_watermark_ok, .prefetch_folio = rp_prefetch_folio,
		.queue_flusher = queue_flusher,
	};
	mach->m.ops = &mach->mops;
	mach->m.nr_pages = np;
	mach->m.nr_mms = t->nr_mms;
	mach->m.nr_nodes = nn;
	mach->m.nr_memcgs = nm;
	mach->m.nr_lruvecs = nn * nm;
	mach->m.vmstat = mach->vmstat;
	mach->m.non_leaf_young = 1;
	mach->m.hw_young = 1;
	mach->m.pte_den = o->pte_den ? o->pte_den : 1;
	mach->sample_den = o->sample_den;
	mach->m.memcg_id = o->memcg_ids;
	mach->m.memcg_path = o->memcg_paths;
	mach->all_nodes = nn >= 64 ? UINT64_MAX : (1ull << nn) - 1;
	mach->swap_total = o->no_swap ? 0 : o->swap_pages ? o->swap_pages : UNLIMITED;
	mach->m.swap_free = o->no_swap ? 0 : o->swap_pages ? o->swap_pages : (UINT64_C(1) << 62);
	mach->m.swap_total = mach->m.swap_free;
	mach->wb_delay = o->wb_delay_ns;
	mach->check = o->check;
	mach->shadow_mode = o->shadow;
	/* fault_around_bytes defaults to 64 KiB (mm/memory.c) */
	mach->fault_around = o->fault_around_pages ? o->fault_around_pages : 16;
	mach->prefetch = t->nr_pages > RP_PREFETCH_PAGES;
	mach->vary_seed = o->vary_seed;
	mach->vary_rng = 0x9e3779b97f4a7c15ull * (o->vary_seed + 1);
	mach->vary_thresh = o->vary_p >= 1 ? UINT64_MAX : (uint64_t)(o->vary_p * 18446744073709551616.0);
#ifdef MR_DEBUG_CHECKS
	/* Debug and sanitizer builds check the policy's invariants after reclaims too:
	 * each of the first 1024, then every 64th (opt reclaims once per miss, and a check
	 * walks every folio), and always at the end; --check asks for every one. */
	if (!mach->check)
		mach->check = 2;
#endif
	mach->script = o->script && o->script->n ? o->script : NULL;

	/* Frame arrays are sized for every page resident at once (no limit, or a charge
	 * over its limit at OOM); mr_big_alloc() maps them lazily, so only the frames a
	 * replay uses are ever backed by memory. */
	mach->m.folios = mr_big_alloc((size_t)np * sizeof(struct mr_folio));
	mach->free_frames = mr_big_alloc((size_t)np * sizeof(uint32_t));
	mach->m.mms = calloc(t->nr_mms, sizeof(struct mr_mm));
	mach->lruvec_stat = calloc((size_t)nn * nm * MR_NR_VMSTAT, sizeof(uint64_t));
	mach->pg = mr_big_alloc((size_t)np * sizeof(struct rp_pg));
	mach->fa_resident = calloc((size_t)(t->nr_fmap / 64 + 1), sizeof(uint64_t));
	mach->vmas = t->vmas;
	mach->vma_live = calloc(t->nr_vmas ? t->nr_vmas : 1, sizeof(*mach->vma_live));
	mach->mmx = calloc(t->nr_mms, sizeof(*mach->mmx));
	mach->imap = calloc(t->nr_files ? t->nr_files : 1, sizeof(*mach->imap));
	mach->task_exited = calloc(t->nr_tasks ? t->nr_tasks : 1, 1);
	mach->memcg = calloc(nm, sizeof(*mach->memcg));
	mach->lruvec_pages = calloc((size_t)nn * nm, sizeof(uint32_t));
	if (mach->lruvec_pages) {
		/* a page's lruvec is its memcg's on the node it is allocated from, which
		 * may fall back from its own: each node's lruvec may hold all the memcg's */
		for (uint32_t i = 0; i < np; i++)
			if (t->pages[i].memcg < nm)
				mach->lruvec_pages[(size_t)t->pages[i].memcg * nn]++;
		for (uint32_t mi = 0; mi < nm; mi++)
			for (uint32_t nd = 1; nd < nn; nd++)
				mach->lruvec_pages[(size_t)mi * nn + nd] = mach->lruvec_pages[(size_t)mi * nn];
		mach->m.lruvec_pages = mach->lruvec_pages;
	}
	/* a page is under writeback once at a time, plus stale entries of freed ones */
	fifo_size((uint64_t)np + 64, &mach->wb_cap, &mach->wb_max);
	mach->wb_ring = malloc(mach->wb_max * sizeof(*mach->wb_ring));
	/* each file folio at most once while live, plus stale entries of freed ones */
	fifo_size(2 * (uint64_t)t->nr_file + 64, &mach->flushq_cap, &mach->flushq_max);
	mach->flushq = malloc(mach->flushq_max * sizeof(*mach->flushq));
	mach->next_kupdate = DIRTY_WRITEBACK_NS;
	arena_n = 2 * (uint64_t)t->nr_vmas + 1;
	mach->arena = malloc(arena_n * sizeof(uint32_t));
	if (!mach->m.folios || !mach->m.mms || !mach->lruvec_stat || !mach->pg || !mach->vma_live ||
	    !mach->free_frames || !mach->lruvec_pages ||
	    !mach->fa_resident ||
	    !mach->mmx || !mach->imap || !mach->task_exited || !mach->memcg || !mach->wb_ring || !mach->arena ||
	    !mach->flushq) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory sizing the machine for %s (%u pages)",
				  o->canon, np);
		goto fail;
	}
	mach->m.lruvec_stat = mach->lruvec_stat;
	rc = rp_shadow_create(mach, err);
	if (rc)
		goto fail;

	/* pages: the static part of each page row (the folio's lruvec and node are taken
	 * from the row when the page enters memory) */
	for (uint32_t i = 0; i < np; i++) {
		const struct rp_page *rp = &t->pages[i];

		mach->pg[i].flags = (rp_page_type(rp) << PG_TYPE_SHIFT) |
				    (rp_page_type(rp) != RP_FILE ? MR_PG_SWAPBACKED : 0) |
				    ((rp->info & RP_PAGE_EXEC) ? MR_PG_EXEC : 0);
	}
	/* mm and file lists (the VMAs themselves are the image's) */
	ap = mach->arena;
	for (uint32_t mm = 0; mm < t->nr_mms; mm++) {
		struct rp_mmx *mx = &mach->mmx[mm];

		mx->live = ap;
		mx->caplive = t->mm_vma_off[mm + 1] - t->mm_vma_off[mm];
		ap += mx->caplive;
		mx->captbl = t->mm_tables[mm];
		if (mx->captbl) {
			mx->tbl = malloc(mx->captbl * sizeof(*mx->tbl));
			if (!mx->tbl) {
				rc = mr_error_set(err, MR_ENOMEM, "out of memory for page directories");
				goto fail;
			}
		}
		mx->tasks_left = t->mm_tasks[mm];
		mach->m.mms[mm].id = t->mm_store_id[mm];
		mach->m.mms[mm].memcg = t->mm_memcg[mm];
	}
	for (uint32_t f = 0; f < t->nr_files; f++) {
		mach->imap[f].live = ap;
		mach->imap[f].cap = t->file_vma_off[f + 1] - t->file_vma_off[f];
		ap += mach->imap[f].cap;
	}
	/* table pool */
	mach->initial_slabs = (uint32_t)((t->pool_tables + TPER - 1) / TPER);
	if (mach->initial_slabs > MAX_TABLES / TPER)
		mach->initial_slabs = MAX_TABLES / TPER;
	mach->capslabs = mach->initial_slabs + 4;
	mach->slabs = calloc(mach->capslabs, sizeof(*mach->slabs));
	mach->tbl_mm = calloc((size_t)mach->capslabs * TPER, sizeof(*mach->tbl_mm));
	mach->tbl_addr = calloc((size_t)mach->capslabs * TPER, sizeof(*mach->tbl_addr));
	mach->tbl_vma = malloc((size_t)mach->capslabs * TPER * sizeof(*mach->tbl_vma));
	mach->pmdy = calloc((size_t)mach->capslabs * TPER / 64, sizeof(*mach->pmdy));
	mach->capfree = mach->initial_slabs * TPER;
	mach->freelist = malloc((mach->capfree ? mach->capfree : 1) * sizeof(uint32_t));
	if (!mach->slabs || !mach->freelist || !mach->tbl_mm || !mach->tbl_addr || !mach->tbl_vma || !mach->pmdy) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for page tables");
		goto fail;
	}
	/* the initial pool in one block, huge-page backed past its first 2 MiB: PTEs are
	 * touched at random, and tables are taken from the start of the pool, so a machine
	 * that needs few of them (a sampled one: 48 on a small trace) zeroes only those */
	mach->slab_block = mr_big_alloc_pool((size_t)mach->initial_slabs * TPER * sizeof(struct mr_pte_table));
	if (!mach->slab_block) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for %llu page tables",
				  (unsigned long long)t->pool_tables);
		goto fail;
	}
	for (; mach->nslabs < mach->initial_slabs; mach->nslabs++)
		mach->slabs[mach->nslabs] = mach->slab_block + (size_t)mach->nslabs * TPER;
	/* memcgs */
	for (uint32_t i = 0; i < nm; i++)
		mach->memcg[i].limit = o->memcg_limit && o->memcg_limit[i] ? o->memcg_limit[i] : UNLIMITED;
	if (o->global_limit) {
		if (nm == 1) {
			if (mach->memcg[0].limit == UNLIMITED || o->global_limit < mach->memcg[0].limit)
				mach->memcg[0].limit = o->global_limit;
		} else {
			mach->hier = 1;
			mach->global_limit = o->global_limit;
		}
	}
	/* time series */
	span = t->t_last > t->t_first ? t->t_last - t->t_first : 0;
	mach->interval = o->interval_ns ? o->interval_ns : 1;
	mach->ts_cap = span / mach->interval + 3;
	mach->ts_nnames = MR_NR_VMSTAT + TS_NENGINE + (nm > 1 ? nm : 0);
	mach->ts_names = calloc(mach->ts_nnames, sizeof(char *));
	mach->ts_memcg_names = calloc(nm, sizeof(*mach->ts_memcg_names));
	mach->ts_t = malloc(mach->ts_cap * sizeof(uint64_t));
	mach->ts_val = malloc(mach->ts_cap * mach->ts_nnames * sizeof(uint64_t));
	if (!mach->ts_names || !mach->ts_memcg_names || !mach->ts_t || !mach->ts_val) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for the time series (%llu samples)",
				  (unsigned long long)mach->ts_cap);
		goto fail;
	}
	{
		size_t k = 0;

		for (unsigned i = 0; i < MR_NR_VMSTAT; i++)
			mach->ts_names[k++] = mr_vmstat_name(i);
		for (size_t i = 0; i < TS_NENGINE; i++)
			mach->ts_names[k++] = rp_ctr_names[rp_ts_engine[i]];
		if (nm > 1) {
			for (uint32_t i = 0; i < nm; i++) {
				snprintf(mach->ts_memcg_names[i], sizeof(mach->ts_memcg_names[i]),
					 "memcg_usage:%u", o->memcg_ids[i]);
				mach->ts_names[k++] = mach->ts_memcg_names[i];
			}
		}
	}
	mach->next_sample = t->t_first + mach->interval;
	if (mach->next_sample < t->t_first)
		mach->next_sample = UINT64_MAX;
	/* segments: sized here, so that the event path only copies counters at a boundary */
	seg_events = o->seg_events ? o->seg_events : t->n_events;
	mach->nsegs = seg_events < RP_SEGMENTS ? (uint32_t)seg_events : RP_SEGMENTS;
	if (mach->nsegs) {
		mach->seg = calloc(mach->nsegs, sizeof(*mach->seg));
		mach->seg_cum = calloc((size_t)mach->nsegs * NR_SEG_CTR, sizeof(uint64_t));
		if (!mach->seg || !mach->seg_cum) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory for the run's segments");
			goto fail;
		}
		for (uint32_t k = 0; k < mach->nsegs; k++) {
			mach->seg[k].ev_first = seg_events * k / mach->nsegs;
			mach->seg[k].ev_end = seg_events * (k + 1) / mach->nsegs;
		}
	}
	mach->seg_next = mach->nsegs > 1 ? mach->seg[0].ev_end : UINT64_MAX;
	mach->snap_every = o->snapshot_every_ns;
	mach->next_snap = mach->snap_every ? t->t_first + mach->snap_every : UINT64_MAX;
	rp_set_next_due(mach);

	/* the policy */
	rc = mr_policy_create(ops, &mach->m, o->canon, &mach->pol, err);
	if (rc)
		goto fail;
	mr_policy_set_params(mach->pol, o->params);
	rc = mr_policy_start(mach->pol, err);
	if (!rc && (o->detail || o->ntrace_pages))
		rc = rp_detail_create(mach, o, err);
	if (rc)
		goto fail;
	*out = mach;
	return 0;
fail:
	rp_machine_destroy(mach);
	return rc;
}

