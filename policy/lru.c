// SPDX-License-Identifier: GPL-2.0
/*
 * lru.c - `lru`: the classic active/inactive page LRU, the pre-MGLRU baseline. It follows
 * mm/vmscan.c, mm/swap.c and mm/workingset.c of 6.12 with lru_gen disabled:
 *
 *   four evictable lists per lruvec (inactive/active x anon/file) plus the unevictable
 *   "list" (a count, as in the kernel); folios enter at the head (lru_add) and reclaim
 *   takes them from the tail;
 *   folio_mark_accessed: inactive,unreferenced -> referenced -> active;
 *   shrink_lruvec -> get_scan_count -> shrink_list -> shrink_active_list (deactivation,
 *   referenced VM_EXEC file folios get another trip) / shrink_inactive_list ->
 *   isolate_lru_folios -> shrink_folio_list (vmscan.c) with the classic
 *   folio_check_references;
 *   workingset refault distance: workingset_eviction packs the lruvec's nonresident_age
 *   into the shadow; workingset_refault activates when the distance is at most the
 *   workingset size, counting workingset_{refault,activate,restore}_{anon,file}.
 *
 * Deliberate simplifications (all scan-balance inputs the machine does not have):
 *  - prepare_scan_control: file_is_tiny (needs free pages and zone watermarks) is never
 *    set; memory.low/min protection, offline-memcg scraping, demotion and the
 *    force_deactivate retry of do_try_to_free_pages are not modelled.
 *  - snapshot_refaults() runs at the end of a reclaim invocation in the kernel. Here an
 *    invocation is a run of shrink_lruvec calls on one lruvec with falling priority: a
 *    call at the same or a higher priority than the previous one starts a new invocation
 *    and takes the snapshot left by the end of the previous call.
 *  - anon_cost/file_cost (lru_note_cost) are kept per lruvec without the walk up the
 *    memcg hierarchy: memcgs are flat in this model.
 *  - can_age_anon_pages() asks whether there is swap at all (total_swap_pages), and
 *    can_reclaim_anon_pages() and workingset_test_recent() whether some is free, both
 *    machine-wide: memcgs have no swap limit of their own here.
 *  - The lru_add and lru_activate per-CPU batches are not modelled: folios go onto the
 *    lists when the engine adds them. folio_mark_accessed on a folio not yet on an LRU
 *    marks it active, as __lru_cache_activate_folio does for one still in the batch.
 *  - too_many_isolated throttling, writeback throttling and flusher wakeups: no effect
 *    on a single-threaded machine with synchronous reclaim.
 */
#include "mr_policy.h"
#include "counters.h"
#include "ring.h"
#include "vmscan.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum lru_list {
	LRU_INACTIVE_ANON = 0,
	LRU_ACTIVE_ANON = 1,
	LRU_INACTIVE_FILE = 2,
	LRU_ACTIVE_FILE = 3,
	LRU_UNEVICTABLE = 4,
	NR_LRU_LISTS
};
#define LRU_ACTIVE 1
#define LRU_FILE 2
#define NR_EVICTABLE_LRUS 4

#define DEACTIVATE_ANON 1u
#define DEACTIVATE_FILE 2u

/* Shadow entry layout (workingset.c:pack_shadow, re-cut for a 64-bit opaque value):
 *   bit 0       1 (a value entry: never 0, like xa_mk_value)
 *   bit 1       PG_workingset at eviction
 *   bits 2..17  lruvec of the eviction (memcg * nr_nodes + node)
 *   bits 18..63 nonresident_age at eviction (EVICTION_BITS; bucket_order 0)
 */
#define SHADOW_WORKINGSET_SHIFT 1
#define SHADOW_LRUVEC_SHIFT 2
#define SHADOW_LRUVEC_BITS 16
#define EVICTION_SHIFT (SHADOW_LRUVEC_SHIFT + SHADOW_LRUVEC_BITS)
#define EVICTION_BITS (64 - EVICTION_SHIFT)
#define EVICTION_MASK ((UINT64_C(1) << EVICTION_BITS) - 1)

/*
 * The lists. Each is a ring of page ids with holes (ring.h): lruvec_add_folio() appends
 * at the head end, lruvec_add_folio_tail() prepends at the tail end, lruvec_del_folio()
 * leaves a hole; the live entries, read from the tail, are exactly the kernel's list, and
 * the next folios to isolate are known in advance and are prefetched. A ring reserves
 * its largest size (twice its lruvec's pages, rounded up to a power of two) at init.
 */

/* Per page: where it is. on = lru + 1, 0 when on no list (zeroed = not on LRU). */
struct lru_page {
	uint32_t slot; /* index in its list's ring; first, for struct ring_slots */
	uint8_t on;
	uint8_t pad[3];
};

struct lru_head {
	struct ring ring; /* cap 0 for the unevictable list (counted, not listed) */
	uint64_t nr;      /* pages on the list (lruvec_lru_size) */
};

struct lru_lruvec {
	struct lru_head lists[NR_LRU_LISTS];
	uint64_t nonresident_age;  /* workingset.c: evictions + activations */
	uint64_t anon_cost, file_cost; /* lru_note_cost() */
	uint64_t refaults[2];      /* snapshot_refaults(): WORKINGSET_ACTIVATE_{ANON,FILE} */
	uint64_t refaults_end[2];  /* the same at the end of the last shrink_lruvec */
	int last_priority;
};

struct lru_params {
	int64_t swappiness;
};

struct lru_priv {
	struct lru_lruvec *lruvecs; /* [m->nr_lruvecs], allocated by init */
	uint32_t nr_lruvecs;
	uint32_t hold[MR_SWAP_CLUSTER_MAX]; /* isolated folios (l_hold / folio_list) */
};

/* scan_control fields prepare_scan_control() fills for one shrink_lruvec. */
struct lru_sc {
	struct mr_scan_control *sc;
	uint64_t anon_cost, file_cost;
	uint8_t may_deactivate;
	uint8_t cache_trim_mode;
	uint8_t skipped_deactivate;
};

/*
 * MR_WARN_ON_ONCE for conditions the code also acts on, or counts in check(): evaluated
 * in every build (MR_WARN_ON_ONCE alone is 0 in release builds), reported in checking
 * builds.
 */
#define WARN_IF(cond)                                                                   \
	({                                                                              \
		int warn_c_ = !!(cond);                                                 \
		if (warn_c_)                                                            \
			MR_WARN_ON_ONCE(cond);                                          \
		warn_c_;                                                                \
	})

static const unsigned lru_size_item[NR_LRU_LISTS] = {
	[LRU_INACTIVE_ANON] = MR_VM_NR_INACTIVE_ANON, [LRU_ACTIVE_ANON] = MR_VM_NR_ACTIVE_ANON,
	[LRU_INACTIVE_FILE] = MR_VM_NR_INACTIVE_FILE, [LRU_ACTIVE_FILE] = MR_VM_NR_ACTIVE_FILE,
	[LRU_UNEVICTABLE] = MR_VM_NR_UNEVICTABLE,
};

static struct lru_priv *lru_priv(struct mr_policy *p)
{
	return p->priv;
}

static struct lru_page *lru_page(struct mr_policy *p, uint32_t page)
{
	return mr_policy_page(p, page);
}

static struct lru_lruvec *lruvec_of(struct mr_policy *p, uint32_t lruvec)
{
	return &lru_priv(p)->lruvecs[lruvec];
}

static int swappiness_of(struct mr_policy *p)
{
	return (int)((const struct lru_params *)p->params)->swappiness;
}

/*
 * mm/vmscan.c:can_age_anon_pages(): aging anon is worth it if there is swap, full or not
 * (total_swap_pages > 0; no demotion here). A full swap still gets its anon aged, so that
 * the inactive list is ready when swap frees up.
 */
static int can_age_anon_pages(const struct mr_policy *p)
{
	return p->m->swap_total > 0;
}

static int is_file_lru(unsigned lru)
{
	return lru == LRU_INACTIVE_FILE || lru == LRU_ACTIVE_FILE;
}

static int is_active_lru(unsigned lru)
{
	return lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE;
}

/* mm/internal.h:folio_evictable(): not in an unevictable mapping and not mlocked. */
static int folio_evictable(const struct mr_folio *f)
{
	return !(f->flags & (MR_PG_UNEVICTABLE | MR_PG_MLOCKED));
}

/* include/linux/mm_inline.h:folio_lru_list() */
static unsigned folio_lru_list(const struct mr_folio *f)
{
	unsigned lru;

	if (!folio_evictable(f))
		return LRU_UNEVICTABLE;
	lru = mr_folio_is_file_lru(f) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;
	if (f->flags & MR_PG_ACTIVE)
		lru += LRU_ACTIVE;
	return lru;
}

/* ---- counters ---- */

static uint64_t lruvec_page_state(struct mr_machine *m, uint32_t lruvec, unsigned item)
{
	return m->lruvec_stat[(size_t)lruvec * MR_NR_VMSTAT + item];
}

/* mm_inline.h:update_lru_size(): list size and the nr_{in,}active_* gauges (the
 * counters are u64; a decrement is added modulo 2^64). */
static void update_lru_size(struct mr_policy *p, uint32_t lruvec, unsigned lru, int64_t delta)
{
	lruvec_of(p, lruvec)->lists[lru].nr += (uint64_t)delta;
	mr_count(p->m, lruvec, lru_size_item[lru], (uint64_t)delta);
}

/* ---- lists (include/linux/list.h semantics on rings, see struct lru_head) ---- */

/* Each ring entry's slot is the first field of its struct lru_page. */
static struct ring_slots lru_slots(struct mr_policy *p)
{
	return (struct ring_slots){ p->pages, p->page_stride };
}

/* Isolation looks ahead along the list: the folios and list entries of the next
 * ISOLATE_AHEAD entries, and for the next ISOLATE_AHEAD / 2 what shrink_folio_list() will
 * touch: the machine's prefetch_folio hint (PTE, PMD entry, shadow slot, from the folio
 * alone), or on a machine without it a walk of the rmap with a callback that only
 * prefetches (the walk changes nothing a policy can see). The hint is much cheaper than
 * the walk (measured: lru @10% of the bench replay trace, ~10% less CPU time). */
#define ISOLATE_AHEAD 16

static int prefetch_pte(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			unsigned slot)
{
	(void)arg;
	(void)vma;
	mr_prefetchw(&pt->bits[slot]);
	mr_prefetchw(&pt->page[slot]);
	return 0;
}

/* Start loading the folio and list entry of the k-th entry from the tail. */
static void prefetch_entry(struct mr_policy *p, const struct ring *h, uint32_t k)
{
	uint32_t page = ring_at(h, k);

	if (page != MR_NONE) {
		mr_prefetchw(&p->m->folios[page]); /* with its page and list slot */
		if (p->page_stride != sizeof(struct mr_folio))
			mr_prefetchw(lru_page(p, page));
	}
}

/* ... and its PTEs, once its folio is there. */
static void prefetch_entry_ptes(struct mr_policy *p, const struct ring *h, uint32_t k)
{
	uint32_t page = ring_at(h, k);

	if (page == MR_NONE)
		return;
	if (p->m->ops->prefetch_folio)
		p->m->ops->prefetch_folio(p->m, page);
	else if (p->m->folios[page].mapcount)
		p->m->ops->rmap_walk(p->m, page, prefetch_pte, NULL);
}

static void lruvec_del_folio(struct mr_policy *p, uint32_t page);

static void lruvec_add_folio(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];
	struct lru_page *lp = lru_page(p, page);
	unsigned lru = folio_lru_list(f);
	struct lru_head *h = &lruvec_of(p, f->lruvec)->lists[lru];

	if (WARN_IF(lp->on))
		lruvec_del_folio(p, page);
	lp->on = (uint8_t)(lru + 1);
	if (lru != LRU_UNEVICTABLE) /* the unevictable list is counted, not listed */
		ring_add_head(&h->ring, lru_slots(p), page);
	update_lru_size(p, f->lruvec, lru, 1);
}

static void lruvec_add_folio_tail(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];
	struct lru_page *lp = lru_page(p, page);
	unsigned lru = folio_lru_list(f);
	struct lru_head *h = &lruvec_of(p, f->lruvec)->lists[lru];

	MR_WARN_ON_ONCE(lp->on || lru == LRU_UNEVICTABLE);
	lp->on = (uint8_t)(lru + 1);
	if (lru != LRU_UNEVICTABLE)
		ring_add_tail(&h->ring, lru_slots(p), page);
	update_lru_size(p, f->lruvec, lru, 1);
}

/* Unlinks from whatever list the page is on (which may differ from what its flags say
 * now, e.g. mlocked since it was added). */
static void lruvec_del_folio(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];
	struct lru_page *lp = lru_page(p, page);
	unsigned lru;
	struct lru_head *h;

	if (WARN_IF(!lp->on))
		return;
	lru = lp->on - 1u;
	h = &lruvec_of(p, f->lruvec)->lists[lru];
	if (lru != LRU_UNEVICTABLE)
		ring_del(&h->ring, lp->slot, page);
	lp->on = 0;
	update_lru_size(p, f->lruvec, lru, -1);
}

/* list_move(folio, head of its list): rotation during isolation */
static void list_rotate_to_head(struct mr_policy *p, uint32_t page)
{
	lruvec_del_folio(p, page);
	lruvec_add_folio(p, page);
}

/* ---- mm/workingset.c ---- */

/* workingset_age_nonresident(): no parent walk, memcgs are flat here */
static void workingset_age_nonresident(struct mr_policy *p, uint32_t lruvec, uint64_t nr)
{
	lruvec_of(p, lruvec)->nonresident_age += nr;
}

static uint64_t pack_shadow(uint32_t lruvec, uint64_t eviction, int workingset)
{
	return 1u | ((uint64_t)!!workingset << SHADOW_WORKINGSET_SHIFT) |
	       ((uint64_t)lruvec << SHADOW_LRUVEC_SHIFT) |
	       ((eviction & EVICTION_MASK) << EVICTION_SHIFT);
}

static void unpack_shadow(uint64_t shadow, uint32_t *lruvec, uint64_t *eviction, int *workingset)
{
	*workingset = (int)((shadow >> SHADOW_WORKINGSET_SHIFT) & 1);
	*lruvec = (uint32_t)((shadow >> SHADOW_LRUVEC_SHIFT) & ((1u << SHADOW_LRUVEC_BITS) - 1));
	*eviction = shadow >> EVICTION_SHIFT;
}

/* workingset_eviction(): the shadow hook of shrink_folio_list */
static uint64_t lru_eviction_shadow(struct mr_policy *p, uint32_t page)
{
	const struct mr_folio *f = &p->m->folios[page];
	uint64_t eviction = lruvec_of(p, f->lruvec)->nonresident_age;

	MR_WARN_ON_ONCE(f->flags & MR_PG_LRU);
	workingset_age_nonresident(p, f->lruvec, 1);
	return pack_shadow(f->lruvec, eviction, !!(f->flags & MR_PG_WORKINGSET));
}

/*
 * workingset_test_recent(): the refault distance is the number of evictions and
 * activations in the eviction lruvec since this folio was evicted; it is recent when that
 * is at most the workingset size: active file, plus inactive file for an anon refault,
 * plus active anon and (for a file refault) inactive anon when swap is available.
 */
static int workingset_test_recent(struct mr_policy *p, uint64_t shadow, int file,
				  int *workingset)
{
	struct lru_priv *pr = lru_priv(p);
	uint32_t lv;
	uint64_t eviction, refault, refault_distance, workingset_size;
	const struct lru_lruvec *l;

	unpack_shadow(shadow, &lv, &eviction, workingset);
	if (WARN_IF(!(shadow & 1) || lv >= pr->nr_lruvecs)) {
		*workingset = 0;
		return 0;
	}
	l = &pr->lruvecs[lv];
	refault = l->nonresident_age;
	refault_distance = (refault - eviction) & EVICTION_MASK;

	workingset_size = l->lists[LRU_ACTIVE_FILE].nr;
	if (!file)
		workingset_size += l->lists[LRU_INACTIVE_FILE].nr;
	if (p->m->swap_free > 0) {
		workingset_size += l->lists[LRU_ACTIVE_ANON].nr;
		if (file)
			workingset_size += l->lists[LRU_INACTIVE_ANON].nr;
	}
	return refault_distance <= workingset_size;
}

/* mm/swap.c:lru_note_cost() */
static void lru_note_cost(struct mr_policy *p, uint32_t lruvec, int file, uint64_t nr_io,
			  uint64_t nr_rotated)
{
	struct lru_lruvec *l = lruvec_of(p, lruvec);
	uint64_t cost = nr_io * MR_SWAP_CLUSTER_MAX + nr_rotated;
	uint64_t lrusize;

	if (file)
		l->file_cost += cost;
	else
		l->anon_cost += cost;
	/* Decay previous events */
	lrusize = l->lists[LRU_INACTIVE_ANON].nr + l->lists[LRU_ACTIVE_ANON].nr +
		  l->lists[LRU_INACTIVE_FILE].nr + l->lists[LRU_ACTIVE_FILE].nr;
	if (l->file_cost + l->anon_cost > lrusize / 4) {
		l->file_cost /= 2;
		l->anon_cost /= 2;
	}
}

/* workingset_refault(): called before folio_add for a folio that had a shadow. */
static void lru_refault(struct mr_policy *p, uint32_t page, uint64_t shadow, unsigned ctx)
{
	struct mr_folio *f = &p->m->folios[page];
	int file = mr_folio_is_file_lru(f);
	int workingset;

	(void)ctx;
	mr_count(p->m, f->lruvec, MR_VM_WORKINGSET_REFAULT_ANON + file, 1);
	if (!workingset_test_recent(p, shadow, file, &workingset))
		return;
	f->flags |= MR_PG_ACTIVE;
	workingset_age_nonresident(p, f->lruvec, 1);
	mr_count(p->m, f->lruvec, MR_VM_WORKINGSET_ACTIVATE_ANON + file, 1);
	/* Folio was active prior to eviction */
	if (workingset) {
		f->flags |= MR_PG_WORKINGSET;
		lru_note_cost(p, f->lruvec, file, 1, 0); /* lru_note_cost_refault() */
		mr_count(p->m, f->lruvec, MR_VM_WORKINGSET_RESTORE_ANON + file, 1);
	}
}

/* ---- mm/swap.c ---- */

/* lru_add(): the putback of every folio, new or isolated. */
static void lru_add(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];

	MR_WARN_ON_ONCE(f->flags & MR_PG_LRU);
	if (!folio_evictable(f))
		f->flags &= ~MR_PG_ACTIVE; /* culled to the unevictable list */
	lruvec_add_folio(p, page);
	f->flags |= MR_PG_LRU;
}

/* folio_add_lru(): PG_active comes only from workingset_refault() or an earlier
 * folio_mark_accessed() (__lru_cache_activate_folio); ctx plays no part without lru_gen. */
static void lru_folio_add(struct mr_policy *p, uint32_t page, unsigned ctx)
{
	(void)ctx;
	lru_add(p, page);
}

/* lru_activate() via folio_activate() */
static void folio_activate(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];

	if ((f->flags & MR_PG_ACTIVE) || !folio_evictable(f) || !(f->flags & MR_PG_LRU))
		return;
	lruvec_del_folio(p, page);
	f->flags |= MR_PG_ACTIVE;
	lruvec_add_folio(p, page);
	mr_count(p->m, f->lruvec, MR_VM_PGACTIVATE, 1);
}

/*
 * folio_mark_accessed():
 *   inactive,unreferenced -> inactive,referenced
 *   inactive,referenced   -> active,unreferenced
 *   active,unreferenced   -> active,referenced
 */
static void lru_mark_accessed(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];

	if (!(f->flags & MR_PG_REFERENCED)) {
		f->flags |= MR_PG_REFERENCED;
	} else if (!folio_evictable(f)) {
		/* the unevictable list is never rotated: nothing to do */
	} else if (!(f->flags & MR_PG_ACTIVE)) {
		if (f->flags & MR_PG_LRU)
			folio_activate(p, page);
		else
			f->flags |= MR_PG_ACTIVE; /* __lru_cache_activate_folio() */
		f->flags &= ~MR_PG_REFERENCED;
		workingset_age_nonresident(p, f->lruvec, 1); /* workingset_activation() */
	}
}

/* The folio leaves memory without reclaim (__page_cache_release / free). */
static void lru_folio_del(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];

	if (lru_page(p, page)->on)
		lruvec_del_folio(p, page);
	f->flags &= ~(MR_PG_LRU | MR_PG_ACTIVE | MR_PG_REFERENCED | MR_PG_WORKINGSET |
		      MR_PG_RECLAIM);
}

/* folio_end_writeback() clears PG_reclaim and calls folio_rotate_reclaimable():
 * lru_move_tail() to the inactive tail if it is still reclaimable. */
static void lru_rotate(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];

	f->flags &= ~MR_PG_RECLAIM;
	if ((f->flags & MR_PG_DIRTY) || !folio_evictable(f) || !(f->flags & MR_PG_LRU))
		return;
	lruvec_del_folio(p, page);
	f->flags &= ~MR_PG_ACTIVE;
	lruvec_add_folio_tail(p, page);
	count_vm_events(p->m, MR_VM_PGROTATED, 1);
}

/* ---- mm/vmscan.c ---- */

/* folio_check_references(), the classic rule (mm/vmscan.c, as in 6.12 and before). */
static enum folio_references lru_check_references(struct mr_policy *p, uint32_t page,
						 struct mr_scan_control *sc)
{
	uint32_t vm_flags;
	int referenced_ptes;

	(void)sc;
	referenced_ptes = mr_folio_referenced(p, page, &vm_flags, NULL);
	return mr_folio_check_references_classic(p, page, referenced_ptes, vm_flags);
}

static const struct mr_shrink_hooks lru_hooks = {
	.check_references = lru_check_references,
	.eviction_shadow = lru_eviction_shadow,
	.isolation_prefetches = true, /* isolate_lru_folios(), ISOLATE_AHEAD */
};

/*
 * inactive_is_low(): the target inactive:active ratio grows with the square root of
 * the list sizes in GB (1 below 1 GB, 3 at 1 GB, 10 at 10 GB).
 */
static int inactive_is_low(struct mr_policy *p, uint32_t lruvec, unsigned inactive_lru)
{
	const struct lru_lruvec *l = lruvec_of(p, lruvec);
	uint64_t inactive = l->lists[inactive_lru].nr;
	uint64_t active = l->lists[inactive_lru + LRU_ACTIVE].nr;
	uint64_t gb = (inactive + active) >> (30 - MR_PAGE_SHIFT);
	uint64_t inactive_ratio = gb ? mr_int_sqrt(10 * gb) : 1;

	return inactive * inactive_ratio < active;
}

/*
 * isolate_lru_folios(): take up to nr_to_scan folios from the tail of lru into dst
 * (isolation order), clearing PG_lru. Mapped folios are rotated to the head when the
 * caller may not unmap. Returns the number taken; *nr_scanned counts what was looked at.
 */
static uint32_t isolate_lru_folios(struct mr_policy *p, uint64_t nr_to_scan, uint32_t lruvec,
				   uint32_t *dst, uint64_t *nr_scanned,
				   const struct mr_scan_control *sc, unsigned lru)
{
	struct ring *src = &lruvec_of(p, lruvec)->lists[lru].ring;
	uint64_t scan = 0;
	uint32_t nr_taken = 0;

	for (uint32_t k = 0; k < ISOLATE_AHEAD && k < src->n; k++)
		prefetch_entry(p, src, k);
	/* every folio is in zone 0 <= reclaim_idx: nothing is skipped */
	while (scan < nr_to_scan && src->n) {
		uint32_t page = ring_at(src, 0);
		struct mr_folio *f = &p->m->folios[page];

		if (ISOLATE_AHEAD < src->n)
			prefetch_entry(p, src, ISOLATE_AHEAD);
		if (ISOLATE_AHEAD / 2 < src->n)
			prefetch_entry_ptes(p, src, ISOLATE_AHEAD / 2);
		scan++;
		if (!(f->flags & MR_PG_LRU) || (!sc->may_unmap && f->mapcount)) {
			list_rotate_to_head(p, page);
			continue;
		}
		lruvec_del_folio(p, page); /* update_lru_sizes() */
		f->flags &= ~MR_PG_LRU;
		dst[nr_taken++] = page;
	}
	*nr_scanned = scan;
	return nr_taken;
}

/* move_folios_to_lru(): put isolated folios back, in order, each at the head of its
 * list; folios coming back active age the nonresident clock. Returns pages moved. */
static uint64_t move_folios_to_lru(struct mr_policy *p, const uint32_t *pages, uint32_t n)
{
	uint64_t nr_moved = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct mr_folio *f = &p->m->folios[pages[i]];

		lru_add(p, pages[i]);
		if (!folio_evictable(f))
			continue; /* folio_putback_lru() */
		nr_moved++;
		if (f->flags & MR_PG_ACTIVE)
			workingset_age_nonresident(p, f->lruvec, 1);
	}
	return nr_moved;
}

/* shrink_inactive_list() */
static uint64_t shrink_inactive_list(struct mr_policy *p, uint64_t nr_to_scan, uint32_t lruvec,
				     struct lru_sc *s, unsigned lru)
{
	struct lru_priv *pr = lru_priv(p);
	struct mr_scan_control *sc = s->sc;
	struct mr_reclaim_stat stat;
	struct mr_folio_list list;
	uint64_t nr_scanned, nr_reclaimed;
	int file = is_file_lru(lru);

	list.pages = pr->hold;
	list.cap = MR_SWAP_CLUSTER_MAX;
	list.n = isolate_lru_folios(p, nr_to_scan, lruvec, pr->hold, &nr_scanned, sc, lru);

	count_reclaim_events(p->m, lruvec, sc, MR_VM_PGSCAN_KSWAPD, file, nr_scanned);

	if (list.n == 0)
		return 0;

	nr_reclaimed = mr_shrink_folio_list(p, &list, sc, &lru_hooks, &stat);
	move_folios_to_lru(p, list.pages, list.n);

	count_reclaim_events(p->m, lruvec, sc, MR_VM_PGSTEAL_KSWAPD, file, nr_reclaimed);

	lru_note_cost(p, lruvec, file, stat.nr_pageout, nr_scanned - nr_reclaimed);
	return nr_reclaimed;
}

/*
 * shrink_active_list(): deactivate folios from the tail of an active list. Referenced
 * file folios mapped executable get one more trip around the active list; everything
 * else goes to the inactive head with PG_workingset set. The kernel collects l_active
 * and l_inactive and puts them back afterwards; putting each back at once is the same,
 * because nothing in between looks at the lists.
 */
static void shrink_active_list(struct mr_policy *p, uint64_t nr_to_scan, uint32_t lruvec,
			       struct lru_sc *s, unsigned lru)
{
	struct lru_priv *pr = lru_priv(p);
	struct mr_scan_control *sc = s->sc;
	uint64_t nr_scanned, nr_rotated = 0, nr_deactivate = 0;
	uint32_t nr_taken, i;
	int file = is_file_lru(lru);

	nr_taken = isolate_lru_folios(p, nr_to_scan, lruvec, pr->hold, &nr_scanned, sc, lru);
	count_reclaimer_events(p->m, lruvec, sc, MR_VM_PGREFILL, nr_scanned);

	for (i = 0; i < nr_taken; i++) {
		uint32_t page = pr->hold[i];
		struct mr_folio *f = &p->m->folios[page];
		uint32_t vm_flags;

		if (!folio_evictable(f)) {
			lru_add(p, page); /* folio_putback_lru() */
			continue;
		}
		/* Referenced or rmap lock contention: rotate */
		if (mr_folio_referenced(p, page, &vm_flags, NULL) != 0) {
			if ((vm_flags & MR_VMA_EXEC) && mr_folio_is_file_lru(f)) {
				nr_rotated++;
				move_folios_to_lru(p, &page, 1); /* l_active */
				continue;
			}
		}
		f->flags &= ~MR_PG_ACTIVE; /* we are de-activating */
		f->flags |= MR_PG_WORKINGSET;
		nr_deactivate += move_folios_to_lru(p, &page, 1); /* l_inactive */
	}
	mr_count(p->m, lruvec, MR_VM_PGDEACTIVATE, nr_deactivate);
	if (nr_rotated)
		lru_note_cost(p, lruvec, file, 0, nr_rotated);
}

/* shrink_list() */
static uint64_t shrink_list(struct mr_policy *p, unsigned lru, uint64_t nr_to_scan,
			    uint32_t lruvec, struct lru_sc *s)
{
	if (is_active_lru(lru)) {
		if (s->may_deactivate & (1u << is_file_lru(lru)))
			shrink_active_list(p, nr_to_scan, lruvec, s, lru);
		else
			s->skipped_deactivate = 1;
		return 0;
	}
	return shrink_inactive_list(p, nr_to_scan, lruvec, s, lru);
}

/* prepare_scan_control(): scan balance inputs, for the lruvec being reclaimed. */
static void prepare_scan_control(struct mr_policy *p, uint32_t lruvec, struct lru_sc *s)
{
	struct lru_lruvec *l = lruvec_of(p, lruvec);
	struct mr_scan_control *sc = s->sc;
	uint64_t refaults, file;

	/* snapshot_refaults() of the previous invocation (see the file comment) */
	if (sc->priority >= l->last_priority) {
		l->refaults[0] = l->refaults_end[0];
		l->refaults[1] = l->refaults_end[1];
	}
	l->last_priority = sc->priority;

	/* Determine the scan balance between anon and file LRUs. */
	s->anon_cost = l->anon_cost;
	s->file_cost = l->file_cost;

	/*
	 * When refaults are being observed, a new workingset is being established:
	 * deactivate to get rid of stale active pages quickly.
	 */
	refaults = lruvec_page_state(p->m, lruvec, MR_VM_WORKINGSET_ACTIVATE_ANON);
	if (refaults != l->refaults[0] || inactive_is_low(p, lruvec, LRU_INACTIVE_ANON))
		s->may_deactivate |= DEACTIVATE_ANON;
	refaults = lruvec_page_state(p->m, lruvec, MR_VM_WORKINGSET_ACTIVATE_FILE);
	if (refaults != l->refaults[1] || inactive_is_low(p, lruvec, LRU_INACTIVE_FILE))
		s->may_deactivate |= DEACTIVATE_FILE;

	/* Plenty of inactive page cache that is not thrashing: reclaim that first. */
	file = l->lists[LRU_INACTIVE_FILE].nr;
	s->cache_trim_mode = (file >> sc->priority) && !(s->may_deactivate & DEACTIVATE_FILE);
}

enum scan_balance { SCAN_EQUAL, SCAN_FRACT, SCAN_ANON, SCAN_FILE };

/*
 * get_scan_count(): how many folios of each evictable list to scan. nr[lru] =
 * (size >> priority), split between anon and file in proportion to swappiness and the
 * inverse of each type's recent reclaim cost (refaults and rotations, lru_note_cost);
 * SCAN_FILE without swap or in cache trim mode, SCAN_EQUAL at priority 0.
 */
static void get_scan_count(struct mr_policy *p, uint32_t lruvec, struct lru_sc *s,
			   uint64_t nr[NR_EVICTABLE_LRUS])
{
	const struct lru_lruvec *l = lruvec_of(p, lruvec);
	struct mr_scan_control *sc = s->sc;
	uint64_t swappiness = (uint64_t)swappiness_of(p);
	uint64_t fraction[2] = { 0, 0 }, denominator = 1;
	enum scan_balance scan_balance;
	unsigned lru;

	if (!sc->may_swap || p->m->swap_free == 0) {
		/* If we have no swap space, do not bother scanning anon folios. */
		scan_balance = SCAN_FILE;
	} else if (sc->memcg_reclaim && !swappiness) {
		scan_balance = SCAN_FILE;
	} else if (!sc->priority && swappiness) {
		/* close to OOM: scan both equally */
		scan_balance = SCAN_EQUAL;
	} else if (s->cache_trim_mode) {
		/* file_is_tiny -> SCAN_ANON is not modelled (see the file comment) */
		scan_balance = SCAN_FILE;
	} else {
		uint64_t total_cost, anon_cost, file_cost, ap, fp;

		scan_balance = SCAN_FRACT;
		total_cost = s->anon_cost + s->file_cost;
		anon_cost = total_cost + s->anon_cost;
		file_cost = total_cost + s->file_cost;
		total_cost = anon_cost + file_cost;

		ap = swappiness * (total_cost + 1);
		ap /= anon_cost + 1;
		fp = (200 - swappiness) * (total_cost + 1);
		fp /= file_cost + 1;

		fraction[0] = ap;
		fraction[1] = fp;
		denominator = ap + fp;
	}

	for (lru = 0; lru < NR_EVICTABLE_LRUS; lru++) {
		int file = is_file_lru(lru);
		uint64_t scan = l->lists[lru].nr >> sc->priority;

		switch (scan_balance) {
		case SCAN_EQUAL:
			break;
		case SCAN_FRACT:
			scan = (uint64_t)((unsigned __int128)scan * fraction[file] / denominator);
			break;
		case SCAN_FILE:
		case SCAN_ANON:
			if ((scan_balance == SCAN_FILE) != file)
				scan = 0;
			break;
		}
		nr[lru] = scan;
	}
}

/*
 * mm/vmscan.c:kswapd_age_node() with lru_gen off: before each kswapd_shrink_node() of
 * balance_pgdat(), when the node's whole anon LRU (the root lruvec, whose counts are
 * hierarchical) has too few inactive pages, deactivate SWAP_CLUSTER_MAX from the tail of
 * every memcg's active anon list. This is how kswapd keeps the inactive anon list from
 * running dry when anon is not being scanned (file-only reclaim), so that a later anon
 * scan finds aged pages. Flat memcgs: the root lruvec's counts are the sums over them.
 */
static void kswapd_age_node(struct mr_policy *p, uint32_t node, struct mr_scan_control *sc)
{
	struct lru_priv *pr = lru_priv(p);
	uint32_t nodes = p->m->nr_nodes ? p->m->nr_nodes : 1;
	uint64_t inactive = 0, active = 0, gb, ratio;
	struct lru_sc s = { .sc = sc };

	if (!can_age_anon_pages(p))
		return;
	for (uint32_t lv = node; lv < pr->nr_lruvecs; lv += nodes) {
		inactive += pr->lruvecs[lv].lists[LRU_INACTIVE_ANON].nr;
		active += pr->lruvecs[lv].lists[LRU_ACTIVE_ANON].nr;
	}
	/* inactive_is_low() on the sums */
	gb = (inactive + active) >> (30 - MR_PAGE_SHIFT);
	ratio = gb ? mr_int_sqrt(10 * gb) : 1;
	if (inactive * ratio >= active)
		return;
	for (uint32_t lv = node; lv < pr->nr_lruvecs; lv += nodes)
		shrink_active_list(p, MR_SWAP_CLUSTER_MAX, lv, &s, LRU_ACTIVE_ANON);
}

/* shrink_lruvec() */
static void lru_shrink_lruvec(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc)
{
	struct lru_lruvec *l = lruvec_of(p, lruvec);
	struct lru_sc s = { .sc = sc };
	uint64_t nr[NR_EVICTABLE_LRUS], targets[NR_EVICTABLE_LRUS];
	uint64_t nr_reclaimed = 0, nr_to_reclaim = sc->nr_to_reclaim;
	int proportional_reclaim;
	unsigned lru;

	if (WARN_IF(lruvec >= lru_priv(p)->nr_lruvecs))
		return;
	/* balance_pgdat() runs kswapd_age_node() once per step, before shrinking the
	 * node's memcgs: the machine calls kswapd's step from the first memcg */
	if (sc->kswapd && lruvec < (p->m->nr_nodes ? p->m->nr_nodes : 1))
		kswapd_age_node(p, lruvec, sc);
	prepare_scan_control(p, lruvec, &s);
	get_scan_count(p, lruvec, &s, nr);
	/* Record the original scan target for proportional adjustments later */
	memcpy(targets, nr, sizeof(nr));

	/*
	 * Global direct reclaim at DEF_PRIORITY does not stop at nr_to_reclaim: it does a
	 * batch of work at once.
	 */
	proportional_reclaim = !sc->memcg_reclaim && !sc->kswapd &&
			       sc->priority == MR_DEF_PRIORITY;

	while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
		uint64_t nr_anon, nr_file, percentage, nr_scanned;

		for (lru = 0; lru < NR_EVICTABLE_LRUS; lru++) {
			if (nr[lru]) {
				uint64_t nr_to_scan = nr[lru] < MR_SWAP_CLUSTER_MAX ?
							      nr[lru] : MR_SWAP_CLUSTER_MAX;

				nr[lru] -= nr_to_scan;
				nr_reclaimed += shrink_list(p, lru, nr_to_scan, lruvec, &s);
			}
		}
		if (nr_reclaimed < nr_to_reclaim || proportional_reclaim)
			continue;

		/*
		 * For kswapd and memcg, reclaim at least the number of pages requested,
		 * then scan anon and file in proportion to what get_scan_count() asked:
		 * stop the smaller and trim the other to the same completed share.
		 */
		nr_file = nr[LRU_INACTIVE_FILE] + nr[LRU_ACTIVE_FILE];
		nr_anon = nr[LRU_INACTIVE_ANON] + nr[LRU_ACTIVE_ANON];
		if (!nr_file || !nr_anon)
			break;
		if (nr_file > nr_anon) {
			uint64_t scan_target = targets[LRU_INACTIVE_ANON] +
					       targets[LRU_ACTIVE_ANON] + 1;
			lru = LRU_INACTIVE_ANON;
			percentage = nr_anon * 100 / scan_target;
		} else {
			uint64_t scan_target = targets[LRU_INACTIVE_FILE] +
					       targets[LRU_ACTIVE_FILE] + 1;
			lru = LRU_INACTIVE_FILE;
			percentage = nr_file * 100 / scan_target;
		}
		/* Stop scanning the smaller of the LRU */
		nr[lru] = 0;
		nr[lru + LRU_ACTIVE] = 0;
		/* Recalculate the other LRU scan count from its original target */
		lru = lru == LRU_INACTIVE_FILE ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE;
		nr_scanned = targets[lru] - nr[lru];
		nr[lru] = targets[lru] * (100 - percentage) / 100;
		nr[lru] -= nr[lru] < nr_scanned ? nr[lru] : nr_scanned;
		lru += LRU_ACTIVE;
		nr_scanned = targets[lru] - nr[lru];
		nr[lru] = targets[lru] * (100 - percentage) / 100;
		nr[lru] -= nr[lru] < nr_scanned ? nr[lru] : nr_scanned;
	}
	sc->nr_reclaimed += nr_reclaimed;

	/*
	 * Even if we did not try to evict anon pages at all, we want to rebalance the anon
	 * lru active/inactive ratio.
	 */
	if (can_age_anon_pages(p) && inactive_is_low(p, lruvec, LRU_INACTIVE_ANON))
		shrink_active_list(p, MR_SWAP_CLUSTER_MAX, lruvec, &s, LRU_ACTIVE_ANON);

	l->refaults_end[0] = lruvec_page_state(p->m, lruvec, MR_VM_WORKINGSET_ACTIVATE_ANON);
	l->refaults_end[1] = lruvec_page_state(p->m, lruvec, MR_VM_WORKINGSET_ACTIVATE_FILE);
}

/* ---- lifecycle, checks ---- */

static void lru_fini(struct mr_policy *p);

static int lru_init(struct mr_policy *p, struct mr_error *err)
{
	struct lru_priv *pr = lru_priv(p);
	struct mr_machine *m = p->m;
	uint64_t *pages_of = NULL;
	uint32_t i, j;

	if (m->nr_lruvecs > (1u << SHADOW_LRUVEC_BITS))
		return mr_error_set(err, MR_ERANGE, "lru: %u lruvecs exceed the %u a shadow "
				    "entry can name", m->nr_lruvecs, 1u << SHADOW_LRUVEC_BITS);
	if (m->nr_pages >= (1u << 30))
		return mr_error_set(err, MR_ERANGE, "lru: %u pages; at most 2^30 are modelled",
				    m->nr_pages);
	pr->nr_lruvecs = m->nr_lruvecs;
	pr->lruvecs = calloc(pr->nr_lruvecs ? pr->nr_lruvecs : 1, sizeof(*pr->lruvecs));
	pages_of = calloc(pr->nr_lruvecs ? pr->nr_lruvecs : 1, sizeof(*pages_of));
	if (!pr->lruvecs || !pages_of)
		goto nomem;
	mr_lruvec_pages(m, pages_of);
	/* Rings: the largest a list of the lruvec can need, reserved untouched (calloc of
	 * fresh pages), RING_MIN_CAP slots in use at first. */
	for (i = 0; i < pr->nr_lruvecs; i++) {
		for (j = 0; j < NR_EVICTABLE_LRUS; j++) {
			if (ring_init(&pr->lruvecs[i].lists[j].ring, ring_reserve(pages_of[i])))
				goto nomem;
		}
		pr->lruvecs[i].last_priority = -1;
	}
	free(pages_of);
	return 0;
nomem:
	free(pages_of);
	lru_fini(p);
	return mr_error_set(err, MR_ENOMEM, "lru: no memory for %u lruvecs", m->nr_lruvecs);
}

static void lru_fini(struct mr_policy *p)
{
	struct lru_priv *pr = lru_priv(p);

	for (uint32_t i = 0; pr->lruvecs && i < pr->nr_lruvecs; i++)
		for (unsigned j = 0; j < NR_LRU_LISTS; j++)
			ring_fini(&pr->lruvecs[i].lists[j].ring);
	free(pr->lruvecs);
	pr->lruvecs = NULL;
}

/* Rings are well formed (live ends, slots pointing back), sizes match, flags match the
 * list each folio is on. */
static unsigned lru_check(struct mr_policy *p)
{
	struct lru_priv *pr = lru_priv(p);
	struct mr_machine *m = p->m;
	unsigned problems = 0;
	uint64_t on_lists = 0, flagged = 0;
	uint32_t i, page;

	for (i = 0; i < pr->nr_lruvecs; i++) {
		unsigned lru;

		for (lru = 0; lru < NR_EVICTABLE_LRUS; lru++) {
			const struct ring *h = &pr->lruvecs[i].lists[lru].ring;
			uint64_t n = 0;
			unsigned bad = ring_check(h, lru_slots(p), m->nr_pages);

			problems += bad;
			for (uint32_t k = 0; !bad && k < h->n; k++) {
				const struct mr_folio *f;
				const struct lru_page *lp;

				page = ring_at(h, k);
				if (page == MR_NONE)
					continue;
				f = &m->folios[page];
				lp = lru_page(p, page);
				problems += WARN_IF(lp->on != lru + 1);
				problems += WARN_IF(f->lruvec != i);
				problems += WARN_IF(!(f->flags & MR_PG_LRU));
				problems += WARN_IF(!!(f->flags & MR_PG_ACTIVE) !=
							    is_active_lru(lru));
				problems += WARN_IF(mr_folio_is_file_lru(f) !=
							    is_file_lru(lru));
				n++;
			}
			problems += WARN_IF(!bad && n != pr->lruvecs[i].lists[lru].nr);
			on_lists += n;
		}
		on_lists += pr->lruvecs[i].lists[LRU_UNEVICTABLE].nr;
	}
	for (page = 0; page < m->nr_pages; page++) {
		if (lru_page(p, page)->on) {
			flagged++;
			problems += WARN_IF(!(m->folios[page].flags & MR_PG_RESIDENT));
		}
	}
	problems += WARN_IF(on_lists != flagged);
	return problems;
}

static void lru_model_counters(struct mr_policy *p,
			       void (*emit)(void *arg, const char *name, double value), void *arg)
{
	struct lru_priv *pr = lru_priv(p);
	uint64_t age = 0, anon = 0, file = 0;
	uint32_t i;

	for (i = 0; i < pr->nr_lruvecs; i++) {
		age += pr->lruvecs[i].nonresident_age;
		anon += pr->lruvecs[i].anon_cost;
		file += pr->lruvecs[i].file_cost;
	}
	emit(arg, "lru_nonresident_age", (double)age);
	emit(arg, "lru_anon_cost", (double)anon);
	emit(arg, "lru_file_cost", (double)file);
}

static const struct mr_param_desc lru_params[] = {
	{
		.name = "swappiness",
		.type = MR_PARAM_INT,
		.min = 0,
		.max = 200,
		.def = 60,
		.offset = offsetof(struct lru_params, swappiness),
		.help = "vm.swappiness: relative cost of swapping anon versus refetching file "
			"pages in get_scan_count (0 = file only while file remains)",
	},
};

const struct mr_policy_ops mr_lru_ops = {
	.abi = MR_POLICY_ABI,
	.name = "lru",
	.help = "classic active/inactive LRU with workingset refault detection "
		"(6.12 with lru_gen disabled)",
	.params = lru_params,
	.nparams = sizeof(lru_params) / sizeof(lru_params[0]),
	.params_size = sizeof(struct lru_params),
	.priv_size = sizeof(struct lru_priv),
	.page_priv_size = sizeof(struct lru_page),
	.init = lru_init,
	.fini = lru_fini,
	.folio_add = lru_folio_add,
	.mark_accessed = lru_mark_accessed,
	.folio_del = lru_folio_del,
	.refault = lru_refault,
	.rotate = lru_rotate,
	.shrink_lruvec = lru_shrink_lruvec,
	.model_counters = lru_model_counters,
	.check = lru_check,
};
