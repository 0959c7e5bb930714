/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmscan.h - private to policy/: reclaim mechanics shared by the classic LRU and MGLRU,
 * as in mm/vmscan.c, where shrink_folio_list() and folio_referenced() serve both.
 * A policy supplies the decisions that differ (folio_check_references, the shadow that
 * workingset_eviction stores, look-around on the rmap path) through mr_shrink_hooks.
 */
#ifndef MR_POLICY_VMSCAN_H
#define MR_POLICY_VMSCAN_H

#include <stdbool.h>

#include "mr_policy.h"

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

/* An isolated folio list: page ids in caller-owned storage (no allocation). */
struct mr_folio_list {
	uint32_t *pages;
	uint32_t n, cap;
};

struct mr_shrink_hooks {
	/* folio_check_references(); the policy calls mr_folio_referenced() inside. */
	enum folio_references (*check_references)(struct mr_policy *p, uint32_t page,
						  struct mr_scan_control *sc);
	/* workingset_eviction(): the shadow to store for a folio about to be freed. */
	uint64_t (*eviction_shadow)(struct mr_policy *p, uint32_t page);
	/* [6.12] lru_gen: keep a mapped folio with PG_referenced (set by folio_update_gen()
	 * or look-around while it was isolated) before folio_check_references() */
	bool keep_mapped_referenced;
	/* reclaim wakes no flushers for the dirty file folios it leaves them ([6.12.95]
	 * lru_gen: queue_flusher is not called) */
	bool no_flusher_wakeup;
	/* The folio was freed (remove_mapping() took it): the per-page state the kernel
	 * keeps in folio->flags goes with it (free_pages_prepare()). May be NULL. */
	void (*folio_freed)(struct mr_policy *p, uint32_t page);
	/* the policy's isolation already asked the machine to prefetch each folio
	 * (prefetch_folio, lru's rings): shrink_folio_list() does not again */
	bool isolation_prefetches;
};

/* What shrink_folio_list saw (struct reclaim_stat). */
struct mr_reclaim_stat {
	uint64_t nr_dirty, nr_unqueued_dirty, nr_congested, nr_writeback, nr_immediate;
	uint64_t nr_pageout, nr_activate[2], nr_ref_keep, nr_unmap_fail, nr_lazyfree_fail;
};

/*
 * shrink_folio_list(): try to free every folio on list (isolated: !PG_lru). Freed folios
 * leave the list; the rest stay on it for the caller to put back, with PG_active set
 * for those to activate (activate_locked) and PG_reclaim where writeback was started.
 * Returns the number of pages reclaimed and counts pgactivate, pswpout, etc.
 */
uint64_t mr_shrink_folio_list(struct mr_policy *p, struct mr_folio_list *list,
			      struct mr_scan_control *sc, const struct mr_shrink_hooks *h,
			      struct mr_reclaim_stat *stat);

/*
 * folio_referenced(): walk the rmap of page, test-and-clear the young bit of every PTE
 * mapping it; returns how many were young, and the union of their VMA flags in
 * *vm_flags. For each young PTE, look_around (may be NULL) is called as the kernel calls
 * lru_gen_look_around() from folio_referenced_one(); it may scan neighbouring PTEs.
 */
int mr_folio_referenced(struct mr_policy *p, uint32_t page, uint32_t *vm_flags,
			void (*look_around)(struct mr_policy *p, const struct mr_vma *vma,
					    struct mr_pte_table *pt, unsigned slot));

/*
 * folio_check_references() without lru_gen (the classic LRU's, and 6.12 MGLRU's, which
 * has no lru_gen branch there), after folio_referenced() returned referenced_ptes and
 * vm_flags: PG_referenced is test-and-cleared; a young PTE sets PG_referenced and
 * activates if the folio was referenced or has several young PTEs, or is a file folio
 * mapped VM_EXEC, else KEEP; no young PTE: RECLAIM_CLEAN for a referenced file folio,
 * else RECLAIM. (-1, rmap contention, is KEEP; the model never returns it.)
 */
enum folio_references mr_folio_check_references_classic(struct mr_policy *p, uint32_t page,
							int referenced_ptes, uint32_t vm_flags);

#endif /* MR_POLICY_VMSCAN_H */
