// SPDX-License-Identifier: GPL-2.0
/*
 * vmscan.c - reclaim mechanics shared by the classic LRU and MGLRU (see vmscan.h):
 * shrink_folio_list() and folio_referenced(), following mm/vmscan.c and mm/rmap.c of the
 * [7.2] tree the mglru model follows (docs/mglru-model.md), whose code here is the same
 * for both LRUs.
 *
 * The machine gives us fewer, coarser primitives than the kernel has; where a kernel
 * step maps onto them differently it is said at the step. In short:
 *
 *  - try_to_unmap() is part of mr_machine_ops.remove_mapping. The only part of it that
 *    matters before the folio is freed is the transfer of PTE dirty bits to PG_dirty
 *    (try_to_unmap_one -> folio_mark_dirty), which decides between pageout and free; we
 *    do that transfer here (transfer_pte_dirty). Consequence: a folio that goes back to
 *    the LRU because it is dirty stays mapped here, where the kernel would have unmapped
 *    it; its next access sets the young bit instead of taking a minor fault.
 *  - add_to_swap() marks the folio dirty, as the kernel's does, so every swap-out goes
 *    through pageout(): start_writeback, pswpout counted here, PG_reclaim set, and the
 *    folio is kept until writeback ends and the policy's rotate() moves it to the tail.
 *    The engine's remove_mapping therefore frees a clean swap-cache folio without I/O and
 *    must not count pswpout itself.
 *  - The eviction shadow (workingset_eviction) is computed just before remove_mapping.
 *    Every reason remove_mapping can refuse a folio is checked first, so a refusal is a
 *    bug (MR_WARN_ON_ONCE): the hook has side effects (nonresident age, evicted[]).
 *  - Not modelled: demotion, large folios and splitting, DMA pins, buffer heads, legacy
 *    memcg writeback waits (case 3), kswapd's PGDAT_WRITEBACK/PGDAT_DIRTY node flags,
 *    freeing swap space of activated folios (mem_cgroup_swap_full), rmap lock
 *    contention (folio_referenced never returns -1) and per-memcg rmap filtering.
 *
 * List convention: list->pages[] is in the order the kernel would take folios off
 * folio_list with lru_to_folio(), i.e. isolation order (the first folio isolated from
 * the LRU tail is pages[0]). Survivors keep that order, which is also the order
 * move_folios_to_lru() would put them back in.
 */
#include "vmscan.h"

/* folio_test_anon(): anon pages (shmem is swap-backed but belongs to a mapping). */
static int folio_is_anon(const struct mr_folio *f)
{
	return f->type == MR_PAGE_ANON;
}

static int folio_test(const struct mr_folio *f, uint32_t flag)
{
	return (f->flags & flag) != 0;
}

/* mm/vmscan.c:folio_check_dirty_writeback(): anon and lazyfree folios are not handled by
 * flushers, so they never count as dirty or under writeback for the reclaim stats. */
static void folio_check_dirty_writeback(const struct mr_folio *f, int *dirty, int *writeback)
{
	if (!mr_folio_is_file_lru(f) || (folio_is_anon(f) && !folio_test(f, MR_PG_SWAPBACKED))) {
		*dirty = 0;
		*writeback = 0;
		return;
	}
	*dirty = folio_test(f, MR_PG_DIRTY);
	*writeback = folio_test(f, MR_PG_WRITEBACK);
}

/* The dirty-bit half of mm/rmap.c:try_to_unmap_one(): each dirty PTE mapping the folio
 * is made clean and the folio dirty. Returns non-zero if some PTE was dirty. */
static int transfer_one(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			unsigned slot)
{
	int *found = arg;

	(void)vma;
	if (pt->bits[slot] & MR_PTE_DIRTY) {
		pt->bits[slot] &= (uint8_t)~MR_PTE_DIRTY;
		*found = 1;
	}
	return 0;
}

static int transfer_pte_dirty(struct mr_machine *m, uint32_t page)
{
	int found = 0;

	m->ops->rmap_walk(m, page, transfer_one, &found);
	if (found)
		m->folios[page].flags |= MR_PG_DIRTY;
	return found;
}

/* The outcome of mm/vmscan.c:pageout() for the folio. */
enum pageout_result {
	PAGE_KEEP,     /* writeback could not be started */
	PAGE_ACTIVATE, /* no swap space for shmem (shmem_writepage redirties) */
	PAGE_SUCCESS,  /* writeback started (or completed synchronously) */
};

/*
 * mm/vmscan.c:pageout(), only ever reached here for swap-backed folios (dirty file
 * folios are activated for the flushers in [7.2]). shmem_writepage() allocates the swap
 * slot at this point; anon folios got theirs from add_to_swap(). The folio is marked
 * PG_reclaim before the write so that folio_end_writeback() rotates it.
 */
static enum pageout_result pageout(struct mr_policy *p, uint32_t page)
{
	struct mr_machine *m = p->m;
	struct mr_folio *f = &m->folios[page];

	if (!folio_test(f, MR_PG_SWAPCACHE)) {
		/* shmem_writepage(): folio_alloc_swap() + add_to_swap_cache() */
		if (m->ops->add_to_swap(m, page))
			return PAGE_ACTIVATE;
	}
	/* folio_clear_dirty_for_io() + folio_set_reclaim() + ->writepage (swap_writepage) */
	f->flags |= MR_PG_RECLAIM;
	m->ops->start_writeback(m, page);
	/* swap_writepage() -> count_swpout_vm_event() */
	mr_count(m, f->lruvec, MR_VM_PSWPOUT, 1);
	/* a synchronous write (the engine completed it at once): PG_reclaim is pointless */
	if (!folio_test(f, MR_PG_WRITEBACK))
		f->flags &= ~MR_PG_RECLAIM;
	return PAGE_SUCCESS;
}

#define SHRINK_AHEAD 4 /* folios ahead whose PTEs and pages shrink_folio_list() requests */

uint64_t mr_shrink_folio_list(struct mr_policy *p, struct mr_folio_list *list,
			      struct mr_scan_control *sc, const struct mr_shrink_hooks *h,
			      struct mr_reclaim_stat *stat)
{
	struct mr_machine *m = p->m;
	struct mr_reclaim_stat local;
	uint64_t nr_reclaimed = 0;
	uint32_t i, kept = 0;
	int ahead = m->ops->prefetch_folio && !(h && h->isolation_prefetches);

	if (!stat)
		stat = &local;
	*stat = (struct mr_reclaim_stat){ 0 };

	/* The machine's hint for what the rmap walk and remove_mapping() will touch (PTE,
	 * PMD entry, the page's slot), a few folios ahead: the isolated folios are in the
	 * cache by now, their PTEs and pages are not, and each folio's work here is shorter
	 * than one miss. Changes nothing a policy can see. */
	if (ahead)
		for (i = 0; i < list->n && i < SHRINK_AHEAD; i++)
			m->ops->prefetch_folio(m, list->pages[i]);
	for (i = 0; i < list->n; i++) {
		uint32_t page = list->pages[i];
		struct mr_folio *f = &m->folios[page];
		enum folio_references references = FOLIOREF_RECLAIM;
		int dirty, writeback, rc;
		uint64_t shadow;

		if (ahead && i + SHRINK_AHEAD < list->n)
			m->ops->prefetch_folio(m, list->pages[i + SHRINK_AHEAD]);

		/* VM_BUG_ON_FOLIO(folio_test_active(folio)): isolated folios are inactive */
		MR_WARN_ON_ONCE(f->flags & (MR_PG_LRU | MR_PG_ACTIVE));
		MR_WARN_ON_ONCE(!(f->flags & MR_PG_RESIDENT));

		/* Account the number of base pages */
		sc->nr_scanned += 1;

		/* !folio_evictable(): putback_lru_page() culls it to the unevictable list */
		if (folio_test(f, MR_PG_UNEVICTABLE | MR_PG_MLOCKED))
			goto activate_locked;

		if (!sc->may_unmap && f->mapcount)
			goto keep;

		/*
		 * [6.12] mm/vmscan.c:1109: "folio_update_gen() tried to promote this page?"
		 * With lru_gen, a mapped folio that the aging walk or look-around marked
		 * PG_referenced while it was isolated is kept (no folio_referenced(), no
		 * PGACTIVATE). [6.14+] dropped this check (h->keep_mapped_referenced off).
		 */
		if (h && h->keep_mapped_referenced && f->mapcount &&
		    folio_test(f, MR_PG_REFERENCED))
			goto keep;

		/*
		 * The number of dirty pages determines if a node is marked
		 * reclaim_congested (stats only in this model).
		 */
		folio_check_dirty_writeback(f, &dirty, &writeback);
		if (dirty || writeback)
			stat->nr_dirty += 1;
		if (dirty && !writeback)
			stat->nr_unqueued_dirty += 1;
		if (writeback && folio_test(f, MR_PG_RECLAIM))
			stat->nr_congested += 1;

		/*
		 * Writeback at the tail: case 2 of the kernel's comment (global or cgroup v2
		 * reclaim): mark the folio for immediate reclaim and activate it to get it out
		 * of the way. Case 1 (kswapd, PG_reclaim, PGDAT_WRITEBACK) ends the same way
		 * with nr_immediate instead; case 3 (legacy memcg waits) is not modelled.
		 */
		if (folio_test(f, MR_PG_WRITEBACK)) {
			f->flags |= MR_PG_RECLAIM;
			stat->nr_writeback += 1;
			goto activate_locked;
		}

		/* folio_check_references(), the policy's rule (classic or lru_gen) */
		if (h && h->check_references)
			references = h->check_references(p, page, sc);

		switch (references) {
		case FOLIOREF_ACTIVATE:
			goto activate_locked;
		case FOLIOREF_KEEP:
			stat->nr_ref_keep += 1;
			goto keep;
		case FOLIOREF_RECLAIM:
		case FOLIOREF_RECLAIM_CLEAN:
			break; /* try to reclaim the folio below */
		}

		/*
		 * Anonymous process memory has backing store? Try to allocate it some swap
		 * space here. add_to_swap() also dirties the folio: it must be written.
		 * Lazyfree folios (anon, !swapbacked) can be freed directly.
		 */
		if (folio_is_anon(f) && folio_test(f, MR_PG_SWAPBACKED) &&
		    !folio_test(f, MR_PG_SWAPCACHE)) {
			if (!sc->gfp_io)
				goto keep;
			if (m->ops->add_to_swap(m, page))
				goto activate_locked;
			f->flags |= MR_PG_DIRTY;
		}

		/*
		 * The folio is mapped: try_to_unmap(). Unmapping itself happens in
		 * remove_mapping; here only its dirty-bit transfer, which decides what
		 * follows. A dirty lazyfree folio was written again after MADV_FREE:
		 * try_to_unmap_one() makes it swap-backed again and fails.
		 */
		if (f->mapcount) {
			int was_dirty = transfer_pte_dirty(m, page) || folio_test(f, MR_PG_DIRTY);

			if (folio_is_anon(f) && !folio_test(f, MR_PG_SWAPBACKED) && was_dirty) {
				f->flags |= MR_PG_SWAPBACKED;
				stat->nr_unmap_fail += 1;
				stat->nr_lazyfree_fail += 1;
				goto activate_locked;
			}
		}

		if (folio_test(f, MR_PG_DIRTY) &&
		    !(folio_is_anon(f) && !folio_test(f, MR_PG_SWAPBACKED))) {
			/*
			 * [7.2] Only the flushers write file folios: every dirty file
			 * folio is marked for immediate reclaim when written back and
			 * activated ([6.12] let kswapd write it when PG_reclaim and
			 * PGDAT_DIRTY were set; the classic LRU shares this code).
			 */
			if (mr_folio_is_file_lru(f)) {
				mr_count(m, f->lruvec, MR_VM_NR_VMSCAN_IMMEDIATE, 1);
				f->flags |= MR_PG_RECLAIM;
				if (m->ops->queue_flusher && !(h && h->no_flusher_wakeup))
					m->ops->queue_flusher(m, page);
				goto activate_locked;
			}

			if (references == FOLIOREF_RECLAIM_CLEAN)
				goto keep;
			/* may_enter_fs(): swap I/O needs __GFP_IO */
			if (!sc->gfp_io)
				goto keep;
			if (!sc->may_writepage)
				goto keep;

			switch (pageout(p, page)) {
			case PAGE_KEEP:
				goto keep;
			case PAGE_ACTIVATE:
				goto activate_locked;
			case PAGE_SUCCESS:
				stat->nr_pageout += 1;
				if (folio_test(f, MR_PG_WRITEBACK | MR_PG_DIRTY))
					goto keep;
				break; /* a synchronous write: try to free it below */
			}
		}

		/*
		 * Clean: __remove_mapping() stores the shadow from workingset_eviction()
		 * (lazyfree folios are freed without one) and frees the folio, after
		 * try_to_unmap() in this engine.
		 */
		if (folio_is_anon(f) && !folio_test(f, MR_PG_SWAPBACKED))
			shadow = 0;
		else
			shadow = h && h->eviction_shadow ? h->eviction_shadow(p, page) : 0;
		rc = m->ops->remove_mapping(m, page, shadow);
		if (rc != MR_REMOVED) {
			/* every refusal was ruled out above; treat it as try_to_unmap failing */
			MR_WARN_ON_ONCE(rc != MR_REMOVED);
			if (f->mapcount) {
				stat->nr_unmap_fail += 1;
				goto activate_locked;
			}
			goto keep;
		}
		/* free_pages_prepare(): reclaim's flags do not outlive the folio */
		f->flags &= ~(MR_PG_ACTIVE | MR_PG_REFERENCED | MR_PG_WORKINGSET | MR_PG_RECLAIM);
		if (h && h->folio_freed)
			h->folio_freed(p, page);
		nr_reclaimed += 1;
		continue;

activate_locked:
		/* Not a candidate for swapping: the kernel may free swap space here when swap
		 * is half full (mem_cgroup_swap_full); the engine keeps the slot. */
		if (!folio_test(f, MR_PG_MLOCKED)) {
			f->flags |= MR_PG_ACTIVE;
			stat->nr_activate[mr_folio_is_file_lru(f)] += 1;
			/* count_memcg_folio_events() here, count_vm_events() at the end */
			mr_count(m, f->lruvec, MR_VM_PGACTIVATE, 1);
		}
keep:
		list->pages[kept++] = page;
	}
	list->n = kept;
	return nr_reclaimed;
}

/* mm/rmap.c:folio_referenced() state (struct folio_referenced_arg). */
struct referenced_arg {
	struct mr_policy *p;
	void (*look_around)(struct mr_policy *p, const struct mr_vma *vma,
			    struct mr_pte_table *pt, unsigned slot);
	int referenced;
	uint32_t vm_flags;
};

/*
 * mm/rmap.c:folio_referenced_one() for one PTE. invalid_folio_referenced_vma() skips
 * mappings without recency (MADV_SEQUENTIAL / MADV_RANDOM) and leaves their young bits
 * alone. With lru_gen the kernel lets lru_gen_look_around() test-and-clear the target
 * PTE; here the target is tested and cleared first and look_around is called only when
 * it was young, to scan the neighbours.
 */
static int referenced_one(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			  unsigned slot)
{
	struct referenced_arg *ra = arg;

	if (!mr_vma_has_recency(vma))
		return 0;
	/* ptep_clear_flush_young_notify() */
	if (!(pt->bits[slot] & MR_PTE_YOUNG))
		return 0;
	pt->bits[slot] &= (uint8_t)~MR_PTE_YOUNG;
	if (ra->look_around)
		ra->look_around(ra->p, vma, pt, slot);
	ra->referenced++;
	ra->vm_flags |= vma->flags;
	return 0;
}

int mr_folio_referenced(struct mr_policy *p, uint32_t page, uint32_t *vm_flags,
			void (*look_around)(struct mr_policy *p, const struct mr_vma *vma,
					    struct mr_pte_table *pt, unsigned slot))
{
	struct mr_machine *m = p->m;
	struct referenced_arg ra = { .p = p, .look_around = look_around };

	*vm_flags = 0;
	if (!m->folios[page].mapcount)
		return 0;
	m->ops->rmap_walk(m, page, referenced_one, &ra);
	*vm_flags = ra.vm_flags;
	return ra.referenced;
}

enum folio_references mr_folio_check_references_classic(struct mr_policy *p, uint32_t page,
							int referenced_ptes, uint32_t vm_flags)
{
	struct mr_folio *f = &p->m->folios[page];
	bool referenced_folio = (f->flags & MR_PG_REFERENCED) != 0;

	f->flags &= ~MR_PG_REFERENCED; /* folio_test_clear_referenced() */

	if (referenced_ptes == -1)
		return FOLIOREF_KEEP;

	if (referenced_ptes) {
		/*
		 * All mapped folios start out with page table references from the
		 * instantiating fault, so look twice: mark it and spare it for another
		 * trip around the inactive list.
		 */
		f->flags |= MR_PG_REFERENCED;
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		/* Activate file-backed executable folios after first usage. */
		if ((vm_flags & MR_VMA_EXEC) && mr_folio_is_file_lru(f))
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	/* Reclaim if clean, defer dirty folios to writeback */
	if (referenced_folio && mr_folio_is_file_lru(f))
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}
