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

static void uncharge(struct rp_machine *x, uint32_t page)
{
	struct rp_memcg *c = &x->memcg[x->m.folios[page].lruvec / x->m.nr_nodes];

	if (c->usage)
		c->usage--;
	if (x->total_usage)
		x->total_usage--;
	if (x->node) {
		struct rp_node *n = &x->node[x->m.folios[page].node];

		if (n->used)
			n->used--;
	}
}

static void swap_release(struct rp_machine *x, uint32_t page)
{
	if (!(x->m.folios[page].flags & E_SWAP))
		return;
	x->m.folios[page].flags &= ~(E_SWAP | E_SWAPVALID | MR_PG_SWAPCACHE);
	x->swap_used--;
	x->m.swap_free++;
	x->c[C_SWAP_USED] = x->swap_used;
}

/* add_to_swap(): a slot, PG_swapcache, and PG_dirty so that pageout writes it. */
static int add_to_swap(struct mr_machine *m, uint32_t page)
{
	struct rp_machine *x = to_rp(m);
	struct mr_folio *f = &m->folios[page];

	if (!(f->flags & MR_PG_SWAPBACKED) || !(f->flags & MR_PG_RESIDENT))
		return MR_EINVAL;
	if (f->flags & MR_PG_SWAPCACHE)
		return 0;
	if (x->swap_total != UNLIMITED && x->swap_used >= x->swap_total)
		return MR_ENOSPC;
	x->swap_used++;
	m->swap_free--;
	if (x->swap_used > x->c[C_SWAP_MAX])
		x->c[C_SWAP_MAX] = x->swap_used;
	x->c[C_SWAP_USED] = x->swap_used;
	f->flags = (f->flags | E_SWAP | MR_PG_SWAPCACHE | MR_PG_DIRTY) & ~E_SWAPVALID;
	return 0;
}

/* folio_end_writeback() */
static void end_writeback(struct rp_machine *x, uint32_t page)
{
	struct mr_folio *f = &x->m.folios[page];

	if (!(f->flags & MR_PG_WRITEBACK))
		return; /* freed meanwhile */
	if ((f->flags & MR_PG_SWAPBACKED) && (f->flags & E_SWAP))
		f->flags |= E_SWAPVALID;
	if (f->flags & MR_PG_RECLAIM) {
		f->flags &= ~MR_PG_RECLAIM;
		x->c[C_WB_ROTATE]++;
		if (x->ops->rotate)
			x->ops->rotate(x->pol, page); /* folio_rotate_reclaimable() */
	}
	f->flags &= ~MR_PG_WRITEBACK;
}

static void wb_complete_one(struct rp_machine *x)
{
	uint32_t page = x->wb_ring[x->wb_head % x->wb_cap];

	x->wb_head++;
	end_writeback(x, page);
}

void rp_wb_complete_until(struct rp_machine *x, uint64_t t)
{
	while (x->wbb_head < x->wbb_tail && x->wbb[x->wbb_head % WB_BATCHES].due <= t) {
		uint64_t end = x->wbb[x->wbb_head % WB_BATCHES].end;

		while (x->wb_head < end && x->wb_head < x->wb_tail)
			wb_complete_one(x);
		x->wbb_head++;
	}
}

void rp_wb_complete_all(struct rp_machine *x)
{
	while (x->wb_head < x->wb_tail)
		wb_complete_one(x);
	x->wbb_head = x->wbb_tail;
}

static void start_writeback(struct mr_machine *m, uint32_t page)
{
	struct rp_machine *x = to_rp(m);
	struct mr_folio *f = &m->folios[page];
	uint64_t due = x->wb_delay ? m->now_ns + x->wb_delay : 0;
	struct wb_batch *b;

	if (f->flags & MR_PG_WRITEBACK)
		return;
	if (x->wb_delay == MR_WRITEBACK_SYNC) {
		/* swap_writepage_bdev_sync(): folio_end_writeback() before pageout() returns;
		 * the folio is isolated, so PG_reclaim rotates nothing (pageout clears it) */
		f->flags &= ~MR_PG_DIRTY;
		x->c[C_WRITEBACKS]++;
		return;
	}
	f->flags &= ~MR_PG_DIRTY;
	f->flags |= MR_PG_WRITEBACK;
	x->c[C_WRITEBACKS]++;
	if (x->wb_tail - x->wb_head == x->wb_cap)
		wb_complete_one(x); /* ring full (stale entries): end the oldest now */
	x->wb_ring[x->wb_tail % x->wb_cap] = page;
	x->wb_tail++;
	b = x->wbb_tail > x->wbb_head ? &x->wbb[(x->wbb_tail - 1) % WB_BATCHES] : NULL;
	if (b && (b->due == due || x->wbb_tail - x->wbb_head == WB_BATCHES)) {
		if (due > b->due)
			b->due = due;
		b->end = x->wb_tail;
	} else {
		x->wbb[x->wbb_tail % WB_BATCHES] = (struct wb_batch){ .due = due, .end = x->wb_tail };
		x->wbb_tail++;
	}
	if (x->wb_delay && due < x->next_due)
		x->next_due = due;
}

/* ---- leaving memory ---- */

static void resident_dec(struct rp_machine *x, uint32_t page)
{
	x->c[C_RESIDENT]--;
	if (ptype(x, page) == RP_FILE)
		x->c[C_RESIDENT_FILE]--;
	else
		x->c[C_RESIDENT_ANON]--;
}

/* A folio leaves memory outside reclaim (FREE, munmap, exit): no shadow. */
void rp_folio_free(struct rp_machine *x, uint32_t page)
{
	struct mr_folio *f = &x->m.folios[page];

	if (f->flags & MR_PG_RESIDENT) {
		if (x->ops->folio_del)
			x->ops->folio_del(x->pol, page);
		rp_unmap_all(x, page);
		uncharge(x, page);
		resident_dec(x, page);
		count(x, page, MR_VM_PGFREE);
		x->c[C_FREED]++;
	}
	swap_release(x, page);
	f->flags &= E_KEEP;
	f->mapcount = 0;
	x->slot[page] = 0;
}

/* __remove_mapping() after try_to_unmap(): see mr_replay.h. */
static int remove_mapping(struct mr_machine *m, uint32_t page, uint64_t shadow)
{
	struct rp_machine *x = to_rp(m);
	struct mr_folio *f = &m->folios[page];
	int anon = (f->flags & MR_PG_SWAPBACKED) != 0;

	if (!(f->flags & MR_PG_RESIDENT)) {
		MR_WARN_ON_ONCE(!(f->flags & MR_PG_RESIDENT));
		return MR_REMOVE_BUSY;
	}
	MR_WARN_ON_ONCE(f->flags & MR_PG_LRU);
	if (anon && !(f->flags & MR_PG_SWAPCACHE) && add_to_swap(m, page))
		return MR_REMOVE_BUSY;
	rp_unmap_all(x, page);
	if (f->flags & (MR_PG_DIRTY | MR_PG_WRITEBACK))
		return MR_REMOVE_BUSY;
	if (anon && !(f->flags & E_SWAPVALID)) {
		x->c[C_SWAP_UNWRITTEN]++; /* freed without ever being written: a policy bug */
		f->flags |= E_SWAPVALID;
	}
	uncharge(x, page);
	resident_dec(x, page);
	f->flags = (f->flags & (E_KEEP | E_SWAP | E_SWAPVALID)) | E_SHADOW | E_EVICTED;
	f->mapcount = 0;
	x->slot[page] = shadow;
	x->c[C_EVICTIONS]++;
	x->c[anon ? C_EVICT_ANON : C_EVICT_FILE]++;
	return MR_REMOVED;
}

/* ---- reclaim ---- */

static void shrink_one(struct rp_machine *x, uint32_t memcg, uint32_t node,
		       struct mr_scan_control *sc)
{
	sc->memcg = memcg;
	sc->node = node;
	x->ops->shrink_lruvec(x->pol, memcg * x->m.nr_nodes + node, sc);
}

/* After a reclaim invocation: writeback that ends with it, the invariant check. */
static void reclaim_done(struct rp_machine *x)
{
	x->in_reclaim = 0;
	if (!x->wb_delay)
		rp_wb_complete_all(x); /* writeback ends with the reclaim invocation */
	if (x->check && x->ops->check)
		x->c[C_CHECK] += x->ops->check(x->pol);
}

/*
 * try_to_free_mem_cgroup_pages() -> do_try_to_free_pages(): priorities DEF_PRIORITY..0,
 * each node from the allocating one, each memcg of the target (all of them for the
 * parent limit, target = MR_NONE). Returns pages freed.
 */
static uint64_t try_to_free(struct rp_machine *x, uint32_t target, uint32_t node, uint64_t nr)
{
	struct mr_scan_control sc = {
		.nr_to_reclaim = nr, .may_swap = 1, .may_writepage = 1, .may_unmap = 1,
		.gfp_io = 1, .memcg_reclaim = 1,
	};
	uint64_t before = x->c[C_EVICTIONS];
	uint32_t nodes = x->m.nr_nodes, memcgs = x->m.nr_memcgs;

	x->c[C_RECLAIMS]++;
	x->in_reclaim = 1;
	for (int prio = MR_DEF_PRIORITY; prio >= 0; prio--) {
		sc.priority = prio;
		sc.nr_scanned = 0;
		for (uint32_t k = 0; k < nodes; k++) {
			uint32_t nd = (node + k) % nodes;

			if (target != MR_NONE) {
				shrink_one(x, target, nd, &sc);
			} else {
				for (uint32_t j = 0; j < memcgs; j++) {
					shrink_one(x, (x->rr + j) % memcgs, nd, &sc);
					if (sc.nr_reclaimed >= nr || x->c[C_EVICTIONS] - before >= nr)
						break;
				}
			}
			if (sc.nr_reclaimed >= nr || x->c[C_EVICTIONS] - before >= nr)
				goto out;
		}
	}
out:
	if (target == MR_NONE)
		x->rr = (x->rr + 1) % memcgs;
	reclaim_done(x);
	return x->c[C_EVICTIONS] - before;
}

/* ---- node reclaim: watermarks, kswapd, direct reclaim (mr_replay.h) ---- */

/* include/linux/math.h:mult_frac(): x * n / d without overflowing x * n. */
static uint64_t mult_frac(uint64_t x, uint64_t n, uint64_t d)
{
	return (x / d) * n + ((x % d) * n) / d;
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

int rp_machine_set_node_reclaim(struct rp_machine *x, uint64_t node_pages, struct mr_error *err)
{
	uint32_t nn = x->m.nr_nodes;

	free(x->node);
	x->node = calloc(nn, sizeof(*x->node));
	if (!x->node)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nn; i++) {
		struct rp_node *n = &x->node[i];
		struct mr_watermarks w;

		n->managed = node_pages / nn + (i < node_pages % nn ? 1 : 0);
		mr_replay_watermarks(n->managed, node_pages, &w);
		n->wmark_min = w.min;
		n->wmark_low = w.low;
		n->wmark_high = w.high;
		x->c[C_NODE_PAGES] += n->managed;
		x->c[C_WMARK_MIN] += w.min;
		x->c[C_WMARK_LOW] += w.low;
		x->c[C_WMARK_HIGH] += w.high;
	}
	return 0;
}

static uint64_t node_free(const struct rp_node *n)
{
	return n->managed > n->used ? n->managed - n->used : 0;
}

static int node_watermark_ok(struct mr_machine *m, uint32_t nd, uint64_t extra)
{
	struct rp_machine *x = to_rp(m);

	if (!x->node || nd >= m->nr_nodes)
		return -1;
	return node_free(&x->node[nd]) > x->node[nd].wmark_high + extra;
}

/*
 * mm/vmscan.c:balance_pgdat() for order 0, without boosting: see mr_replay.h. Each step
 * is kswapd_age_node() + kswapd_shrink_node(); the policy runs its kswapd work itself
 * (sc.kswapd, at the node's first memcg). Like lru_gen_shrink_node() for kswapd,
 * sc.nr_reclaimed counts one step, so that should_abort_scan() compares a step's
 * progress with its nr_to_reclaim.
 */
static void balance_pgdat(struct rp_machine *x, uint32_t nd)
{
	struct rp_node *n = &x->node[nd];
	struct mr_scan_control sc = {
		.may_swap = 1, .may_writepage = 1, .may_unmap = 1, .gfp_io = 1, .kswapd = 1,
	};
	uint64_t total = 0;
	int prio = MR_DEF_PRIORITY;

	n->kswapd_pending = 0;
	x->c[C_KSWAPD_RUNS]++;
	x->in_reclaim = 1;
	do {
		uint64_t before = x->c[C_EVICTIONS], got;

		if (node_free(n) > n->wmark_high)
			goto out; /* pgdat_balanced() */
		sc.priority = prio;
		sc.nr_scanned = 0;
		sc.nr_reclaimed = 0;
		/* kswapd_shrink_node(): max(high_wmark_pages, SWAP_CLUSTER_MAX) per zone */
		sc.nr_to_reclaim = n->wmark_high > MR_SWAP_CLUSTER_MAX ? n->wmark_high
								 : MR_SWAP_CLUSTER_MAX;
		/* shrink_node_memcgs(): kswapd always walks every memcg, from the root */
		for (uint32_t mc = 0; mc < x->m.nr_memcgs; mc++)
			shrink_one(x, mc, nd, &sc);
		got = x->c[C_EVICTIONS] - before;
		total += got;
		if (got)
			n->kswapd_failures = 0;
		/* raise the priority if scanning was too little or nothing was reclaimed */
		if ((sc.nr_scanned > got ? sc.nr_scanned : got) < sc.nr_to_reclaim || !got)
			prio--;
	} while (prio >= 1);
	if (!total) {
		n->kswapd_failures++;
		x->c[C_KSWAPD_FAILED]++;
	}
out:
	reclaim_done(x);
}

/* Run every woken kswapd whose wakeup is older than the current trace time, as kswapd()
 * does: until the node is balanced or kswapd is hopeless. */
static void run_kswapd(struct rp_machine *x)
{
	int still = 0;

	for (uint32_t nd = 0; nd < x->m.nr_nodes; nd++) {
		struct rp_node *n = &x->node[nd];

		if (!n->kswapd_pending)
			continue;
		if (n->wake_ns >= x->m.now_ns) {
			still = 1;
			continue;
		}
		/* kswapd(): balance_pgdat() again until balanced, or hopeless
		 * (prepare_kswapd_sleep) */
		do
			balance_pgdat(x, nd);
		while (node_free(n) <= n->wmark_high && n->kswapd_failures < MAX_RECLAIM_RETRIES);
	}
	x->kswapd_pending = still;
}

/* mm/vmscan.c:wakeup_kswapd(): not when hopeless (kswapd_failures) or balanced. */
static void wakeup_kswapd(struct rp_machine *x, uint32_t nd)
{
	struct rp_node *n = &x->node[nd];

	if (n->kswapd_pending || n->kswapd_failures >= MAX_RECLAIM_RETRIES ||
	    node_free(n) > n->wmark_high)
		return;
	n->kswapd_pending = 1;
	n->wake_ns = x->m.now_ns;
	x->kswapd_pending = 1;
	x->c[C_KSWAPD_WAKEUPS]++;
}

/*
 * mm/vmscan.c:try_to_free_pages() -> do_try_to_free_pages() for one node: 32 pages,
 * priority DEF_PRIORITY..0, shrink_node_memcgs() with a partial walk that resumes where
 * the last one stopped. Returns pages freed.
 */
static uint64_t try_to_free_pages(struct rp_machine *x, uint32_t nd)
{
	struct rp_node *n = &x->node[nd];
	struct mr_scan_control sc = {
		.nr_to_reclaim = MR_SWAP_CLUSTER_MAX, .may_swap = 1, .may_writepage = 1,
		.may_unmap = 1, .gfp_io = 1,
	};
	uint64_t before = x->c[C_EVICTIONS];
	uint32_t memcgs = x->m.nr_memcgs;

	x->c[C_DIRECT_RECLAIMS]++;
	x->in_reclaim = 1;
	for (int prio = MR_DEF_PRIORITY; prio >= 0; prio--) {
		sc.priority = prio;
		sc.nr_scanned = 0;
		for (uint32_t j = 0; j < memcgs; j++) {
			uint32_t mc = n->rr;

			n->rr = (n->rr + 1) % memcgs;
			shrink_one(x, mc, nd, &sc);
			if (sc.nr_reclaimed >= sc.nr_to_reclaim)
				break; /* partial walk: bail once the goal is reached */
		}
		if (sc.nr_reclaimed >= sc.nr_to_reclaim ||
		    x->c[C_EVICTIONS] - before >= sc.nr_to_reclaim)
			break;
	}
	reclaim_done(x);
	if (x->c[C_EVICTIONS] != before)
		n->kswapd_failures = 0;
	return x->c[C_EVICTIONS] - before;
}

/*
 * The page allocator for one order-0 page on node nd (__alloc_pages): the fast path at
 * the low watermark, then kswapd's wakeup, the min watermark, and direct reclaim with
 * retries (__alloc_pages_slowpath, should_reclaim_retry); see mr_replay.h.
 */
static void alloc_page_node(struct rp_machine *x, uint32_t nd)
{
	struct rp_node *n = &x->node[nd];

	if (x->kswapd_pending)
		run_kswapd(x); /* the kswapds woken before this instant have run by now */
	if (node_free(n) > n->wmark_low)
		goto got;
	wakeup_kswapd(x, nd);
	/* should_reclaim_retry(): retry while reclaim makes progress; OOM after
	 * MAX_RECLAIM_RETRIES rounds in a row without any (nothing freed, no I/O started) */
	for (int no_progress = 0; node_free(n) <= n->wmark_min;) {
		uint64_t wb = x->c[C_WRITEBACKS];

		if (try_to_free_pages(x, nd) || x->c[C_WRITEBACKS] != wb) {
			no_progress = 0;
		} else if (++no_progress > MAX_RECLAIM_RETRIES) {
			/* out of memory: the page is allocated below min (no task is killed) */
			x->c[C_OOM]++;
			n->oom++;
			break;
		}
	}
got:
	n->used++;
}

/* try_charge_memcg() for one page of memcg mi on node. */
static void charge(struct rp_machine *x, uint32_t mi, uint32_t node)
{
	struct rp_memcg *c = &x->memcg[mi];

	for (int retries = 0;; retries++) {
		int self = c->limit != UNLIMITED && c->usage + 1 > c->limit;
		int parent = x->hier && x->total_usage + 1 > x->global_limit;
		uint64_t excess, got, wb;

		if (!self && !parent)
			break;
		excess = self ? c->usage + 1 - c->limit : x->total_usage + 1 - x->global_limit;
		wb = x->c[C_WRITEBACKS];
		got = try_to_free(x, self ? mi : MR_NONE, node,
				  excess > MR_SWAP_CLUSTER_MAX ? excess : MR_SWAP_CLUSTER_MAX);
		/* no progress at all (nothing freed, no I/O started that could free
		 * something next time), or MAX_RECLAIM_RETRIES used up: OOM */
		if ((!got && x->c[C_WRITEBACKS] == wb) || retries + 1 >= MAX_RECLAIM_RETRIES) {
			/* out of memory: the charge goes over the limit */
			x->c[C_OOM]++;
			if (self)
				c->oom++;
			else
				x->global_oom++;
			break;
		}
	}
	c->usage++;
	x->total_usage++;
	if (c->usage > c->usage_max)
		c->usage_max = c->usage;
	if (x->total_usage > x->c[C_USAGE_MAX])
		x->c[C_USAGE_MAX] = x->total_usage;
}

/* ---- entering memory ---- */

static int swap_full(const struct rp_machine *x)
{
	return x->swap_total != UNLIMITED && x->swap_used * 2 > x->swap_total;
}

/*
 * Bring page into memory: charge (maybe reclaim), make the folio resident, refault with
 * the stored shadow, folio_add. Anon pages with a swap slot are swapped in.
 */
void rp_insert_page(struct rp_machine *x, uint32_t page, unsigned ctx, int write)
{
	struct mr_folio *f = &x->m.folios[page];
	unsigned type = f->type;
	uint32_t est;

	if (x->node)
		alloc_page_node(x, f->node); /* the folio is allocated, then charged */
	charge(x, f->lruvec / x->m.nr_nodes, f->node);
	est = f->flags;
	f->flags = MR_PG_RESIDENT | (type != RP_FILE ? MR_PG_SWAPBACKED : 0) |
		   (f->flags & (MR_PG_EXEC | E_SWAP | E_SWAPVALID));
	f->mapcount = 0;
	x->c[C_RESIDENT]++;
	x->c[type == RP_FILE ? C_RESIDENT_FILE : C_RESIDENT_ANON]++;
	x->c[C_MISSES]++;
	x->c[(est & E_EVICTED) ? C_REFAULTS : C_FIRST]++;
	if (type != RP_FILE && (est & E_SWAP)) {
		/* do_swap_page(): read from the slot, keep it unless should_try_to_free_swap() */
		ctx |= MR_ADD_SWAPIN;
		count(x, page, MR_VM_PSWPIN);
		f->flags |= MR_PG_SWAPCACHE;
		if (write || swap_full(x)) {
			swap_release(x, page);
			f->flags |= MR_PG_DIRTY;
		}
	}
	if (est & E_SHADOW) {
		uint64_t shadow = x->slot[page];

		ctx |= MR_ADD_REFAULT;
		x->slot[page] = 0;
		x->c[C_SHADOW_REFAULTS]++;
		if (x->ops->refault)
			x->ops->refault(x->pol, page, shadow, ctx);
	}
	x->ops->folio_add(x->pol, page, ctx);
}

/* ---- results ---- */

int rp_machine_result(struct rp_machine *x, struct mr_run_result *r, struct mr_error *err)
{
	uint32_t nm = x->m.nr_memcgs, nn = x->m.nr_nodes;
	size_t k = 0, cap = MR_NR_VMSTAT + NR_CTR + (size_t)nm * (MR_NR_VMSTAT + 4);

	memset(r, 0, sizeof(*r));
	free(x->counters);
	x->counters = calloc(cap, sizeof(*x->counters));
	if (!x->counters)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	for (unsigned i = 0; i < MR_NR_VMSTAT; i++)
		x->counters[k++] = (struct mr_result_counter){ mr_vmstat_name(i), -1, x->vmstat[i] };
	for (unsigned i = 0; i < NR_CTR; i++)
		x->counters[k++] = (struct mr_result_counter){ rp_ctr_names[i], -1, x->c[i] };
	for (uint32_t mc = 0; mc < nm; mc++) {
		int64_t id = x->m.memcg_id[mc];

		for (unsigned i = 0; i < MR_NR_VMSTAT; i++) {
			uint64_t v = 0;

			for (uint32_t nd = 0; nd < nn; nd++)
				v += x->lruvec_stat[((size_t)mc * nn + nd) * MR_NR_VMSTAT + i];
			x->counters[k++] = (struct mr_result_counter){ mr_vmstat_name(i), id, v };
		}
		x->counters[k++] = (struct mr_result_counter){ "mr_usage", id, x->memcg[mc].usage };
		x->counters[k++] = (struct mr_result_counter){ "mr_usage_max", id, x->memcg[mc].usage_max };
		x->counters[k++] = (struct mr_result_counter){
			"mr_limit", id, x->memcg[mc].limit == UNLIMITED ? 0 : x->memcg[mc].limit };
		x->counters[k++] = (struct mr_result_counter){ "mr_oom", id, x->memcg[mc].oom };
	}
	r->counters = x->counters;
	r->ncounters = k;
	r->totals = (struct mr_run_totals){
		.pgfault = x->vmstat[MR_VM_PGFAULT],
		.pgmajfault = x->vmstat[MR_VM_PGMAJFAULT],
		.misses = x->c[C_MISSES],
		.refaults = x->vmstat[MR_VM_WORKINGSET_REFAULT_ANON] +
			    x->vmstat[MR_VM_WORKINGSET_REFAULT_FILE],
		.evictions = x->c[C_EVICTIONS],
		.pswpin = x->vmstat[MR_VM_PSWPIN],
		.pswpout = x->vmstat[MR_VM_PSWPOUT],
		.oom = x->c[C_OOM],
		.usage_max = x->c[C_USAGE_MAX],
		.reclaim_passes = x->c[C_RECLAIMS] + x->c[C_DIRECT_RECLAIMS] +
				  x->c[C_KSWAPD_RUNS],
	};
	snprintf(r->spec, sizeof(r->spec), "%s", x->canon);
	snprintf(r->name, sizeof(r->name), "%s", x->ops->name);
	r->events = x->c[C_EVENTS];
	r->model = x->model;
	r->nmodel = x->nmodel;
	r->ts_names = x->ts_names;
	r->ts_nnames = x->ts_nnames;
	r->ts_t = x->ts_t;
	r->ts_val = x->ts_val;
	r->ts_nsamples = x->ts_n;
	r->snaps = x->snaps;
	r->nsnaps = x->nsnaps;
	r->log = x->log;
	r->nlog = x->nlog;
	r->wall_s = x->wall_s;
	return 0;
}

const struct mr_error *rp_machine_error(const struct rp_machine *x)
{
	return &x->err;
}

void rp_machine_add_time(struct rp_machine *x, double s)
{
	x->wall_s += s;
}

int rp_machine_wants_nextuse(const struct rp_machine *x)
{
	return x->ops->access != NULL;
}

/* ---- lifecycle ---- */

void rp_machine_destroy(struct rp_machine *x)
{
	if (!x)
		return;
	mr_policy_destroy(x->pol);
	mr_big_free(x->m.folios, (size_t)x->m.nr_pages * sizeof(struct mr_folio));
	free(x->m.mms);
	free(x->lruvec_stat);
	mr_big_free(x->slot, (size_t)x->m.nr_pages * sizeof(uint64_t));
	free(x->vmas);
	if (x->mmx)
		for (uint32_t i = 0; i < x->t->nr_mms; i++)
			free(x->mmx[i].tbl);
	free(x->mmx);
	free(x->imap);
	free(x->arena);
	free(x->task_exited);
	for (uint32_t i = x->initial_slabs; i < x->nslabs; i++)
		free(x->slabs[i]);
	mr_big_free(x->slab_block, (size_t)x->initial_slabs * TPER * sizeof(struct mr_pte_table));
	free(x->slabs);
	free(x->tbl_mm);
	free(x->tbl_addr);
	free(x->tbl_vma);
	free(x->pmdy);
	free(x->freelist);
	free(x->memcg);
	free(x->node);
	free(x->wb_ring);
	free(x->ts_names);
	free(x->ts_memcg_names);
	free(x->ts_t);
	free(x->ts_val);
	for (size_t i = 0; i < x->nsnaps; i++)
		free(x->snaps[i].text);
	free(x->snaps);
	free(x->log);
	free(x->showbuf);
	free(x->model);
	free(x->counters);
	free(x);
}

int rp_machine_create(const struct rp_trace *t, const struct rp_machine_opts *o,
		      struct rp_machine **out, struct mr_error *err)
{
	const struct mr_policy_ops *ops = o->ops;
	struct rp_machine *x;
	uint32_t np = t->nr_pages, nn = t->nodes, nm = t->nr_memcgs;
	uint64_t arena_n = 0, span;
	uint32_t *ap;
	int rc;

	*out = NULL;
	if (!ops->folio_add || !ops->shrink_lruvec)
		return mr_error_set(err, MR_EINVAL, "policy %s lacks folio_add or shrink_lruvec", ops->name);
	x = calloc(1, sizeof(*x));
	if (!x)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	x->t = t;
	x->ops = ops;
	snprintf(x->canon, sizeof(x->canon), "%s", o->canon);
	x->mops = (struct mr_machine_ops){
		.rmap_walk = rp_rmap_walk, .walk_mm = rp_walk_mm, .remove_mapping = remove_mapping,
		.start_writeback = start_writeback, .add_to_swap = add_to_swap,
		.node_watermark_ok = node_watermark_ok, .prefetch_folio = rp_prefetch_folio,
	};
	x->m.ops = &x->mops;
	x->m.nr_pages = np;
	x->m.nr_mms = t->nr_mms;
	x->m.nr_nodes = nn;
	x->m.nr_memcgs = nm;
	x->m.nr_lruvecs = nn * nm;
	x->m.vmstat = x->vmstat;
	x->m.non_leaf_young = 1;
	x->m.hw_young = 1;
	x->m.memcg_id = o->memcg_ids;
	x->m.memcg_path = o->memcg_paths;
	x->all_nodes = nn >= 64 ? UINT64_MAX : (1ull << nn) - 1;
	x->swap_total = o->swap_pages ? o->swap_pages : UNLIMITED;
	x->m.swap_free = o->swap_pages ? o->swap_pages : (UINT64_C(1) << 62);
	x->m.swap_total = x->m.swap_free;
	x->wb_delay = o->wb_delay_ns;
	x->check = o->check;
#ifdef MR_DEBUG_CHECKS
	/* Debug and sanitizer builds check the policy's invariants after every reclaim. */
	x->check = 1;
#endif
	x->script = o->script && o->script->n ? o->script : NULL;

	x->m.folios = mr_big_alloc((size_t)np * sizeof(struct mr_folio));
	x->m.mms = calloc(t->nr_mms, sizeof(struct mr_mm));
	x->lruvec_stat = calloc((size_t)nn * nm * MR_NR_VMSTAT, sizeof(uint64_t));
	x->slot = mr_big_alloc((size_t)np * sizeof(uint64_t));
	x->vmas = calloc(t->nr_vmas ? t->nr_vmas : 1, sizeof(*x->vmas));
	x->mmx = calloc(t->nr_mms, sizeof(*x->mmx));
	x->imap = calloc(t->nr_files ? t->nr_files : 1, sizeof(*x->imap));
	x->task_exited = calloc(t->nr_tasks ? t->nr_tasks : 1, 1);
	x->memcg = calloc(nm, sizeof(*x->memcg));
	x->wb_cap = (uint64_t)np + 64;
	x->wb_ring = malloc(x->wb_cap * sizeof(uint32_t));
	arena_n = 2 * (uint64_t)t->nr_vmas + 1;
	x->arena = malloc(arena_n * sizeof(uint32_t));
	if (!x->m.folios || !x->m.mms || !x->lruvec_stat || !x->slot || !x->vmas ||
	    !x->mmx || !x->imap || !x->task_exited || !x->memcg || !x->wb_ring || !x->arena) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory sizing the machine for %s (%u pages)",
				  o->canon, np);
		goto fail;
	}
	x->m.lruvec_stat = x->lruvec_stat;

	/* folios: the static part of each page row */
	for (uint32_t i = 0; i < np; i++) {
		const struct rp_page *rp = &t->pages[i];
		struct mr_folio *f = &x->m.folios[i];

		f->type = (uint8_t)rp_page_type(rp);
		f->node = rp->node;
		f->lruvec = (uint16_t)(rp->memcg * nn + rp->node);
		f->flags = (rp_page_type(rp) != RP_FILE ? MR_PG_SWAPBACKED : 0) |
			   ((rp->info & RP_PAGE_EXEC) ? MR_PG_EXEC : 0);
	}
	/* VMAs, mm and file lists */
	for (uint32_t i = 0; i < t->nr_vmas; i++) {
		const struct rp_vma_row *r = &t->vmas[i];

		x->vmas[i].v = (struct mr_vma){ .start = r->start, .end = r->end, .flags = r->flags,
						.file = r->file, .pgoff = r->pgoff, .mm = r->mm,
						.id = r->id };
	}
	ap = x->arena;
	for (uint32_t mm = 0; mm < t->nr_mms; mm++) {
		struct rp_mmx *mx = &x->mmx[mm];

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
		x->m.mms[mm].id = t->mm_store_id[mm];
		x->m.mms[mm].memcg = t->mm_memcg[mm];
	}
	for (uint32_t f = 0; f < t->nr_files; f++) {
		x->imap[f].live = ap;
		x->imap[f].cap = t->file_vma_off[f + 1] - t->file_vma_off[f];
		ap += x->imap[f].cap;
	}
	/* table pool */
	x->initial_slabs = (uint32_t)((t->pool_tables + TPER - 1) / TPER);
	if (x->initial_slabs > MAX_TABLES / TPER)
		x->initial_slabs = MAX_TABLES / TPER;
	x->capslabs = x->initial_slabs + 4;
	x->slabs = calloc(x->capslabs, sizeof(*x->slabs));
	x->tbl_mm = calloc((size_t)x->capslabs * TPER, sizeof(*x->tbl_mm));
	x->tbl_addr = calloc((size_t)x->capslabs * TPER, sizeof(*x->tbl_addr));
	x->tbl_vma = malloc((size_t)x->capslabs * TPER * sizeof(*x->tbl_vma));
	x->pmdy = calloc((size_t)x->capslabs * TPER / 64, sizeof(*x->pmdy));
	x->capfree = x->initial_slabs * TPER;
	x->freelist = malloc((x->capfree ? x->capfree : 1) * sizeof(uint32_t));
	if (!x->slabs || !x->freelist || !x->tbl_mm || !x->tbl_addr || !x->tbl_vma || !x->pmdy) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for page tables");
		goto fail;
	}
	/* the initial pool in one huge-page backed block: PTEs are touched at random */
	x->slab_block = mr_big_alloc((size_t)x->initial_slabs * TPER * sizeof(struct mr_pte_table));
	if (!x->slab_block) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for %llu page tables",
				  (unsigned long long)t->pool_tables);
		goto fail;
	}
	for (; x->nslabs < x->initial_slabs; x->nslabs++)
		x->slabs[x->nslabs] = x->slab_block + (size_t)x->nslabs * TPER;
	/* memcgs */
	for (uint32_t i = 0; i < nm; i++)
		x->memcg[i].limit = o->memcg_limit && o->memcg_limit[i] ? o->memcg_limit[i] : UNLIMITED;
	if (o->global_limit) {
		if (nm == 1) {
			if (x->memcg[0].limit == UNLIMITED || o->global_limit < x->memcg[0].limit)
				x->memcg[0].limit = o->global_limit;
		} else {
			x->hier = 1;
			x->global_limit = o->global_limit;
		}
	}
	/* time series */
	span = t->t_last > t->t_first ? t->t_last - t->t_first : 0;
	x->interval = o->interval_ns ? o->interval_ns : 1;
	x->ts_cap = span / x->interval + 3;
	x->ts_nnames = MR_NR_VMSTAT + TS_NENGINE + (nm > 1 ? nm : 0);
	x->ts_names = calloc(x->ts_nnames, sizeof(char *));
	x->ts_memcg_names = calloc(nm, sizeof(*x->ts_memcg_names));
	x->ts_t = malloc(x->ts_cap * sizeof(uint64_t));
	x->ts_val = malloc(x->ts_cap * x->ts_nnames * sizeof(uint64_t));
	if (!x->ts_names || !x->ts_memcg_names || !x->ts_t || !x->ts_val) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for the time series (%llu samples)",
				  (unsigned long long)x->ts_cap);
		goto fail;
	}
	{
		size_t k = 0;

		for (unsigned i = 0; i < MR_NR_VMSTAT; i++)
			x->ts_names[k++] = mr_vmstat_name(i);
		for (size_t i = 0; i < TS_NENGINE; i++)
			x->ts_names[k++] = rp_ctr_names[rp_ts_engine[i]];
		if (nm > 1) {
			for (uint32_t i = 0; i < nm; i++) {
				snprintf(x->ts_memcg_names[i], sizeof(x->ts_memcg_names[i]),
					 "memcg_usage:%u", o->memcg_ids[i]);
				x->ts_names[k++] = x->ts_memcg_names[i];
			}
		}
	}
	x->next_sample = t->t_first + x->interval;
	if (x->next_sample < t->t_first)
		x->next_sample = UINT64_MAX;
	x->snap_every = o->snapshot_every_ns;
	x->next_snap = x->snap_every ? t->t_first + x->snap_every : UINT64_MAX;
	rp_set_next_due(x);

	/* the policy */
	rc = mr_policy_create(ops, &x->m, o->canon, &x->pol, err);
	if (rc)
		goto fail;
	mr_policy_set_params(x->pol, o->params);
	rc = mr_policy_start(x->pol, err);
	if (rc)
		goto fail;
	*out = x;
	return 0;
fail:
	rp_machine_destroy(x);
	return rc;
}

