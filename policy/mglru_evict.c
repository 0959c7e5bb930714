// SPDX-License-Identifier: GPL-2.0
/*
 * mglru_evict.c - the eviction of the Multi-Gen LRU model, as in mm/vmscan.c: the PID
 * controller (read_ctrl_pos .. get_type_to_scan), the rmap-path reference check
 * (lru_gen_set_refs), sort/isolate/scan/evict_folios, the reclaim loop
 * (try_to_shrink_lruvec, lru_gen_shrink_lruvec) and min_ttl (lru_gen_age_node).
 *
 * The [7.2] reclaim loop and isolate_folios() are known from a transliteration of the
 * source, not its C ("(T)", docs/mglru-model.md, "Version tags"); where that reading
 * leaves a choice, the choice is said at the function and in docs/mglru-model.md,
 * "Scenario notes".
 */
#include "counters.h"
#include "mglru.h"

/* ---- PID controller ---- */

/*
 * mm/vmscan.c:read_ctrl_pos() [6.14+]: refaulted and total (evicted + protected) of
 * tier, or of all tiers for tier = MAX_NR_TIERS, of the history slot of min_seq[type],
 * plus the moving averages of the generations evicted before.
 */
void read_ctrl_pos(struct mglru *mg, struct lruvec *lv, int type, int tier, int gain,
		   struct ctrl_pos *pos)
{
	int i;
	struct lru_gen_folio *lrugen = &lv->lrugen;
	unsigned hist = lru_hist_from_seq(mg, lrugen->min_seq[type]);
	int hi = tier < MAX_NR_TIERS - 1 ? tier : MAX_NR_TIERS - 1;

	pos->gain = gain;
	pos->refaulted = pos->total = 0;

	for (i = tier % MAX_NR_TIERS; i <= hi; i++) {
		if (mg->cl) {
			unsigned idx = (unsigned)(type * MAX_NR_TIERS + i);

			mglru_cl(mg, lv, CL_READ_CTRL_POS, LGF_AVG_REFAULTED, idx, false);
			mglru_cl(mg, lv, CL_READ_CTRL_POS, LGF_REFAULTED, idx, false);
			mglru_cl(mg, lv, CL_READ_CTRL_POS, LGF_AVG_TOTAL, idx, false);
			mglru_cl(mg, lv, CL_READ_CTRL_POS, LGF_PROTECTED, idx, false);
			mglru_cl(mg, lv, CL_READ_CTRL_POS, LGF_EVICTED, idx, false);
		}
		pos->refaulted += lrugen->avg_refaulted[type][i] + lrugen->refaulted[hist][type][i];
		pos->total += lrugen->avg_total[type][i] + lrugen->protected[hist][type][i] +
			      lrugen->evicted[hist][type][i];
	}
}

/*
 * mm/vmscan.c:reset_ctrl_pos(): carryover (min_seq[type] is about to advance) folds the
 * slot of min_seq into the moving averages with factor 1/2 and clears it when there is
 * only one slot; otherwise (inc_max_seq) clears the slot of max_seq + 1 when there are
 * several.
 */
void reset_ctrl_pos(struct mglru *mg, struct lruvec *lv, int type, bool carryover)
{
	int tier;
	struct lru_gen_folio *lrugen = &lv->lrugen;
	bool clear = carryover ? mg->nr_hist_gens == 1 : mg->nr_hist_gens > 1;
	uint64_t seq = carryover ? lrugen->min_seq[type] : lrugen->max_seq + 1;
	unsigned hist;

	if (!carryover && !clear)
		return;

	hist = lru_hist_from_seq(mg, seq);

	for (tier = 0; tier < MAX_NR_TIERS; tier++) {
		if (mg->cl) {
			unsigned idx = (unsigned)(type * MAX_NR_TIERS + tier);

			if (carryover) {
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_AVG_REFAULTED, idx, false);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_REFAULTED, idx, false);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_AVG_REFAULTED, idx, true);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_AVG_TOTAL, idx, false);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_PROTECTED, idx, false);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_EVICTED, idx, false);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_AVG_TOTAL, idx, true);
			}
			if (clear) {
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_REFAULTED, idx, true);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_EVICTED, idx, true);
				mglru_cl(mg, lv, CL_RESET_CTRL_POS, LGF_PROTECTED, idx, true);
			}
		}
		if (carryover) {
			uint64_t sum;

			sum = lrugen->avg_refaulted[type][tier] + lrugen->refaulted[hist][type][tier];
			lrugen->avg_refaulted[type][tier] = sum / 2;

			sum = lrugen->avg_total[type][tier] + lrugen->protected[hist][type][tier] +
			      lrugen->evicted[hist][type][tier];
			lrugen->avg_total[type][tier] = sum / 2;
		}

		if (clear) {
			lrugen->refaulted[hist][type][tier] = 0;
			lrugen->evicted[hist][type][tier] = 0;
			lrugen->protected[hist][type][tier] = 0;
		}
	}
}

/*
 * mm/vmscan.c:positive_ctrl_err(): true if the PV has a limited number of refaults or a
 * lower refaulted/total than the SP (in 128-bit arithmetic; the kernel's unsigned long
 * products do not overflow for realistic counts either).
 */
bool positive_ctrl_err(const struct ctrl_pos *sp, const struct ctrl_pos *pv)
{
	unsigned __int128 lhs, rhs;

	if (pv->refaulted < MIN_LRU_BATCH)
		return true;
	lhs = (unsigned __int128)pv->refaulted * (sp->total + MIN_LRU_BATCH) * (unsigned)sp->gain;
	rhs = (unsigned __int128)(sp->refaulted + 1) * pv->total * (unsigned)pv->gain;
	return lhs <= rhs;
}

/*
 * mm/vmscan.c:get_tier_idx() [6.14+]: the highest tier whose refault rate (gain 3) does
 * not exceed that of tier 0 (gain 2), minus one; folios above it are protected. With no
 * history every tier passes and it returns MAX_NR_TIERS - 1: nothing is protected.
 * [6.12] the same with gains 1:2.
 */
int get_tier_idx(struct mglru *mg, struct lruvec *lv, int type)
{
	/*
	 * To leave a margin for fluctuations, use a larger gain factor (2:3).
	 * This value is chosen because any other tier would have at least twice
	 * as many refaults as the first tier. [6.12] mm/vmscan.c:4472: 1:2, with
	 * the tier totals that include protected[tier - 1] (mm/vmscan.c:3099).
	 */
	int sp_gain = mg->caps.low_tier_gains ? 1 : 2, pv_gain = mg->caps.low_tier_gains ? 2 : 3;
	int tier;
	struct ctrl_pos sp, pv;

	read_ctrl_pos(mg, lv, type, 0, sp_gain, &sp);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		read_ctrl_pos(mg, lv, type, tier, pv_gain, &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}

	return tier - 1;
}

/*
 * mm/vmscan.c:get_type_to_scan() [6.14+]: all tiers of anon (gain swappiness) against
 * all tiers of file (gain 200 - swappiness); returns the type to scan first, and
 * *tier_idx = -1: get_tier_idx() gives the tier. caps.type_by_first_tier ([6.12]
 * mm/vmscan.c:4492): tier 0 against tier 0 picks the type; then the tiers of that type
 * against tier 0 of the other give *tier_idx.
 */
int get_type_to_scan(struct mglru *mg, struct lruvec *lv, int swappiness, int *tier_idx)
{
	int type, tier = mg->caps.type_by_first_tier ? 0 : MAX_NR_TIERS;
	int gain[ANON_AND_FILE] = { swappiness, MAX_SWAPPINESS - swappiness };
	struct ctrl_pos sp, pv;

	*tier_idx = -1;

	if (swappiness <= MIN_SWAPPINESS + 1)
		return LRU_GEN_FILE;

	if (swappiness >= MAX_SWAPPINESS)
		return LRU_GEN_ANON;
	/*
	 * Compare the sum of all tiers of anon with that of file to determine
	 * which type to scan. ([6.12] compares the first tiers.)
	 */
	read_ctrl_pos(mg, lv, LRU_GEN_ANON, tier, gain[LRU_GEN_ANON], &sp);
	read_ctrl_pos(mg, lv, LRU_GEN_FILE, tier, gain[LRU_GEN_FILE], &pv);
	type = positive_ctrl_err(&sp, &pv);
	if (!mg->caps.type_by_first_tier)
		return type;

	/*
	 * [6.12] Also need to compare other tiers of the selected type with the
	 * first tier of the other type to determine the last tier (of the
	 * selected type) to evict.
	 */
	read_ctrl_pos(mg, lv, !type, 0, gain[!type], &sp);
	for (tier = 1; tier < MAX_NR_TIERS; tier++) {
		read_ctrl_pos(mg, lv, type, tier, gain[type], &pv);
		if (!positive_ctrl_err(&sp, &pv))
			break;
	}

	*tier_idx = tier - 1;

	return type;
}

/*
 * mm/vmscan.c:get_swappiness(): 0 without may_swap, or with fewer than MIN_LRU_BATCH
 * free swap pages (the model has no demotion targets); else the vm.swappiness
 * parameter (the model's memcgs have no memory.swappiness of their own).
 */
int get_swappiness(struct mglru *mg, struct lruvec *lv, const struct mr_scan_control *sc)
{
	(void)lv;
	if (!sc->may_swap)
		return 0;
	if (mg->m->swap_free < MIN_LRU_BATCH)
		return 0;
	return mg->swappiness;
}

/* ---- the rmap path ---- */

/*
 * mm/vmscan.c:lru_gen_set_refs() [7.2] Mode A, for a mapped folio found young by
 * folio_referenced(): the first sighting sets PG_referenced (KEEP); a later one
 * promotes on the second access (refs > 1: PG_workingset, LRU_REFS_FLAGS cleared) or
 * else calls folio_mark_accessed(); either way ACTIVATE.
 * S003 (ra_placement B/C): every later sighting sets PG_workingset.
 * S004 (exec_promote): a first sighting of a file folio through a VM_EXEC mapping
 * (vm_flags: of the VMAs folio_referenced() found it young in, or the look-around VMA)
 * activates (v3); S004-alt also sets PG_workingset (LRU_REFS_FLAGS cleared, as on the
 * second sighting), so the re-add lands at max_seq.
 */
bool lru_gen_set_refs(struct mglru *mg, uint32_t page, uint32_t vm_flags)
{
	struct mr_folio *f = &mg->m->folios[page];

	/* see the comment on LRU_REFS_FLAGS */
	if (!folio_test(f, MR_PG_REFERENCED | MR_PG_WORKINGSET)) {
		folio_set_lru_refs_flags(mg, page, true, 0);
		/* Activate file-backed executable folios after first usage. */
		if (exec_promotes(mg, f, vm_flags)) {
			mg->stat.exec_first_activated++;
			mg->stat.acted_exec_promote++;
			if (mg->exec_promote == EXEC_PROMOTE_ALT) {
				folio_set_lru_refs_flags(mg, page, false, 0);
				f->flags |= MR_PG_WORKINGSET;
			}
			return true;
		}
		return false;
	}

	/* Promote on second access */
	if (mg->ra_placement != RA_PLACEMENT_A && folio_lru_refs(mg, page) <= 1)
		mg->stat.acted_ra_placement++; /* A: folio_mark_accessed() */
	if (mg->ra_placement != RA_PLACEMENT_A || folio_lru_refs(mg, page) > 1) {
		f->flags |= MR_PG_WORKINGSET;
		folio_set_lru_refs_flags(mg, page, false, 0);
	} else {
		folio_mark_accessed(mg, page);
	}
	return true;
}

/*
 * mm/vmscan.c:folio_check_references() with lru_gen [6.14+]: no young PTE -> RECLAIM
 * (PG_referenced from fd accesses does not matter here), else lru_gen_set_refs().
 * Differs: no VM_LOCKED VMAs and no rmap contention (never -1) in the model.
 */
enum folio_references lru_gen_folio_check_references(struct mr_policy *p, uint32_t page,
						     struct mr_scan_control *sc)
{
	uint32_t vm_flags;
	int referenced_ptes;

	(void)sc;
	referenced_ptes = mr_folio_referenced(p, page, &vm_flags, lru_gen_look_around);

	/* [6.12] mm/vmscan.c:865: no lru_gen branch, the classic rule after
	 * folio_referenced() (whose lru_gen_look_around() has run); isolate_folio()
	 * cleared PG_referenced, so only look-around of a neighbour can have set it, and
	 * shrink_folio_list() keeps such a folio first */
	if (mglru_of(p)->caps.classic_check_references)
		return mr_folio_check_references_classic(p, page, referenced_ptes, vm_flags);

	if (referenced_ptes == -1)
		return FOLIOREF_KEEP;

	if (!referenced_ptes)
		return FOLIOREF_RECLAIM;

	return lru_gen_set_refs(mglru_of(p), page, vm_flags) ? FOLIOREF_ACTIVATE : FOLIOREF_KEEP;
}

/* workingset_eviction() for shrink_folio_list() */
static uint64_t mglru_eviction_shadow(struct mr_policy *p, uint32_t page)
{
	return lru_gen_eviction(mglru_of(p), page);
}

/* free_pages_prepare() clears LRU_REFS_MASK with the other flags (PAGE_FLAGS_CHECK_AT_PREP,
 * include/linux/page-flags.h): a folio that comes back starts with no references, or
 * with those lru_gen_refault() gives it from its shadow, as after folio_del. */
static void mglru_folio_freed(struct mr_policy *p, uint32_t page)
{
	lgp(mglru_of(p), page)->refs = 0;
}

/*
 * The shrink_folio_list() hooks of this instance, set once by mglru_init() after the
 * kernel mode: caps.keep_mapped_referenced ([6.12] mm/vmscan.c:1109-1111) also keeps a
 * mapped PG_referenced folio before folio_check_references().
 */
void lru_gen_init_shrink_hooks(struct mglru *mg)
{
	mg->shrink_hooks = (struct mr_shrink_hooks){
		.check_references = lru_gen_folio_check_references,
		.eviction_shadow = mglru_eviction_shadow,
		.folio_freed = mglru_folio_freed,
		.keep_mapped_referenced = mg->caps.keep_mapped_referenced,
		.no_flusher_wakeup = mg->caps.no_flusher_wakeup,
	};
}

/* ---- the eviction ---- */

/*
 * mm/vmscan.c:sort_folio() [7.2], first match wins:
 *   unevictable        -> false (shrink_folio_list() activates it, evict_folios() culls
 *                         it); [6.12.95] culls it here
 *   promoted           -> to the head of the generation the walk gave it
 *   protected by tier  -> folio_inc_gen(), head of min_seq + 1; protected[] counts it
 *                         unless fully referenced (the workingset being promoted)
 *   ineligible zone    -> folio_inc_gen(), tail (never: one zone)
 *   [6.12.95] under writeback or dirty file -> folio_inc_gen() with PG_reclaim, head
 * [7.0]'s dirty/writeback rule is gone in [7.2] and in [6.12] (6.12.117):
 * shrink_folio_list() handles them. [6.12.95] is 6.12.117 before the 6.12.114
 * backports "mm/mglru: fix and remove redundant unevictable folio handling" and
 * "mm/mglru: use the common routine for dirty/writeback reactivation"; the lines cited
 * for it are Debian's 6.12.113 (docs/mglru-model.md, "kernel=6.12").
 */
static bool sort_folio(struct mglru *mg, struct lruvec *lv, uint32_t page,
		       const struct mr_scan_control *sc, int tier_idx)
{
	const struct mr_folio *f = &mg->m->folios[page];
	int gen = folio_lru_gen(mg, page);
	int type = folio_is_file_lru(f);
	int zone = folio_zonenum(f);
	int refs = folio_lru_refs(mg, page);
	bool workingset = folio_test(f, MR_PG_WORKINGSET);
	int tier = lru_tier_from_refs(mg, refs, workingset);
	struct lru_gen_folio *lrugen = &lv->lrugen;

	MR_WARN_ON_ONCE(gen < 0 || gen >= MAX_NR_GENS);

	/* unevictable: [7.2] and [6.12] (6.12.117 mm/vmscan.c:4325) let it through */
	if (!folio_evictable(f)) {
		bool success;

		if (!mg->caps.sort_culls_unevictable)
			return false;
		/*
		 * [6.12.95] 6.12.113 mm/vmscan.c:4327-4335: culled before isolation, so it
		 * counts as sorted (pgrefill), not scanned, and shrink_folio_list() never
		 * activates it. The kernel sets PG_unevictable first; the engine owns that
		 * flag, and lruvec_add_folio() tests folio_evictable() instead.
		 * UNEVICTABLE_PGCULLED is not a model counter (lru_add() does not count it
		 * either).
		 */
		success = lru_gen_del_folio(mg, lv, page, true);
		MR_WARN_ON_ONCE(!success);
		lruvec_add_folio(mg, lv, page);
		return true;
	}

	/* promoted */
	if (gen != (int)lru_gen_from_seq(lrugen->min_seq[type])) {
		/* list_move() */
		lru_gen_list_del(mg, lv, page);
		lru_gen_list_add(mg, lv, page, (unsigned)gen, false);
		mg->stat.sorted_promoted++;
		return true;
	}

	/* protected */
	if (tier > tier_idx || folio_lru_refs_full(mg, refs, workingset)) {
		/* [6.12] mm/vmscan.c:4336-4345: to the tail, and every one counted in
		 * 6.12's protected[tier - 1] (kept at [tier], see mglru.h); the S002
		 * cache-line model is of [7.2]'s accesses only */
		bool tail = mg->caps.sort_protects_to_tail;

		if (mg->cl && !tail) /* folio_inc_gen(): the sizes of both generations */
			mglru_cl(mg, lv, CL_SORT, LGF_NR_PAGES, lrugen_gen_idx((unsigned)gen, type),
				 true);
		gen = folio_inc_gen(mg, lv, page, false);
		if (mg->cl && !tail) {
			mglru_cl(mg, lv, CL_SORT, LGF_NR_PAGES, lrugen_gen_idx((unsigned)gen, type),
				 true);
			mglru_cl(mg, lv, CL_SORT, LGF_FOLIOS, lrugen_gen_idx((unsigned)gen, type),
				 true);
		}
		/* list_move(); [6.12] list_move_tail() */
		lru_gen_list_del(mg, lv, page);
		lru_gen_list_add(mg, lv, page, (unsigned)gen, tail);

		/* don't count the workingset being lazily promoted */
		if (tail || !folio_lru_refs_full(mg, refs, workingset)) {
			unsigned hist = lru_hist_from_seq(mg, lrugen->min_seq[type]);

			lrugen->protected[hist][type][tier] += 1;
			if (!tail)
				mglru_cl(mg, lv, CL_SORT, LGF_PROTECTED,
					 (unsigned)(type * MAX_NR_TIERS + tier), true);
		}
		mg->stat.sorted_protected++;
		return true;
	}

	/* ineligible */
	if (zone > sc->reclaim_idx) {
		gen = folio_inc_gen(mg, lv, page, false);
		lru_gen_list_del(mg, lv, page);
		lru_gen_list_add(mg, lv, page, (unsigned)gen, true);
		return true;
	}

	/*
	 * [6.12.95] waiting for writeback (6.12.113 mm/vmscan.c:4370-4376): not isolated
	 * but moved to the head of min_seq + 1 with PG_reclaim, so that
	 * folio_end_writeback() rotates it to the tail of the oldest generation once
	 * clean. 6.12.117 isolates it and shrink_folio_list() activates it (to max_seq)
	 * with PG_reclaim. The kernel also tests folio_test_locked(); the model has no
	 * folio lock. (The sc->nr.file_taken / unqueued_dirty counts before it came in
	 * 6.12.104, after 6.12.95, and feed only the flusher wake-up, the engine's.)
	 */
	if (mg->caps.sort_waits_writeback &&
	    (folio_test(f, MR_PG_WRITEBACK) ||
	     (type == LRU_GEN_FILE && folio_test(f, MR_PG_DIRTY)))) {
		gen = folio_inc_gen(mg, lv, page, true);
		lru_gen_list_del(mg, lv, page);
		lru_gen_list_add(mg, lv, page, (unsigned)gen, false); /* list_move() */
		return true;
	}

	return false;
}

/*
 * mm/vmscan.c:isolate_folio() [7.2]: take it off the LRU (PG_lru, gen field, list),
 * dropping the counter if PG_referenced is clear. [6.12] also refuses dirty swap-backed
 * or unswapped anon folios without __GFP_IO ([6.12.95]/[7.0]: any dirty folio), and
 * [6.12.95]/[7.0] cleared PG_reclaim; [7.2] does neither (shrink_folio_list() keeps
 * what it cannot write).
 */
static bool isolate_folio(struct mglru *mg, struct lruvec *lv, uint32_t page,
			  const struct mr_scan_control *sc)
{
	struct mr_folio *f = &mg->m->folios[page];
	bool success;

	/* [6.12] mm/vmscan.c:4362: swap constrained. [6.12.95] (6.12.113 vmscan.c:4386)
	 * refused every dirty folio; the 6.12.114 backports let dirty file folios through.
	 * That cannot show here: [6.12.95]'s sort_folio() keeps dirty file folios back. */
	if (mg->caps.isolate_swap_constrained && !sc->gfp_io &&
	    ((folio_test(f, MR_PG_DIRTY) &&
	      (!folio_is_file_lru(f) || mg->caps.isolate_refuses_dirty_file)) ||
	     (folio_test_anon(f) && !folio_test(f, MR_PG_SWAPCACHE))))
		return false;

	f->flags &= ~MR_PG_LRU;

	/* see the comment on LRU_REFS_FLAGS; [6.12] mm/vmscan.c:4376
	 * folio_clear_lru_refs() also clears PG_workingset (6.12's LRU_REFS_FLAGS) */
	if (!folio_test(f, MR_PG_REFERENCED))
		folio_clear_lru_refs(mg, page);

	/* [6.12] mm/vmscan.c:4379: for shrink_folio_list(); [6.12.95] (6.12.113
	 * vmscan.c:4406) also cleared PG_reclaim there, so one left from before (e.g.
	 * by sort_folio()'s writeback rule) never reached shrink_folio_list() or the
	 * PG_reclaim rule of evict_folios(); "mm/mglru: use the common routine for
	 * dirty/writeback reactivation" dropped the clearing */
	if (mg->caps.isolate_clears_referenced)
		f->flags &= ~MR_PG_REFERENCED;
	if (mg->caps.isolate_clears_reclaim)
		f->flags &= ~MR_PG_RECLAIM;

	success = lru_gen_del_folio(mg, lv, page, true);
	MR_WARN_ON_ONCE(!success);
	return true;
}

/*
 * How scan_folios() and evict_folios() count pgscan/pgsteal (base MR_VM_PGSCAN_KSWAPD or
 * MR_VM_PGSTEAL_KSWAPD) and pgrefill. [6.12] vm events, as shrink_inactive_list() counts
 * them (counters.h). [7.2] node stats since "mm: move pgscan, pgsteal, pgrefill to node
 * stats": mod_lruvec_state(), so /proc/vmstat and memory.stat, whoever reclaims.
 */
static void count_scan_steal(struct mglru *mg, const struct lruvec *lv,
			     const struct mr_scan_control *sc, unsigned base, int type, int64_t n)
{
	if (mg->caps.reclaim_vm_events) {
		count_reclaim_events(mg->m, lv->id, sc, base, type, (uint64_t)n);
		return;
	}
	mglru_count(mg, lv, reclaimer_item(sc, base), n);
	mglru_count(mg, lv, reclaim_split_item(base, type), n);
}

static void count_pgrefill(struct mglru *mg, const struct lruvec *lv,
			   const struct mr_scan_control *sc, int64_t n)
{
	if (mg->caps.reclaim_vm_events)
		count_reclaimer_events(mg->m, lv->id, sc, MR_VM_PGREFILL, (uint64_t)n);
	else
		mglru_count(mg, lv, MR_VM_PGREFILL, n);
}

/*
 * mm/vmscan.c:scan_folios(): from the tail of the oldest generation of type, sort or
 * isolate folios until MIN_LRU_BATCH are isolated or min(nr_to_scan, MAX_LRU_BATCH)
 * were looked at. Counts pgscan_* (isolated), pgrefill (sorted), pgscan_skip.
 * Returns the pages looked at ([7.2] reading, see isolate_folios()); 0 when the type
 * has only MIN_NR_GENS generations.
 */
static uint64_t scan_folios(struct mglru *mg, uint64_t nr_to_scan, struct lruvec *lv,
			    const struct mr_scan_control *sc, int type, int tier,
			    struct mr_folio_list *list)
{
	int i;
	unsigned gen;
	uint64_t sorted = 0, scanned = 0, isolated = 0;
	uint64_t remaining = nr_to_scan < MAX_LRU_BATCH ? nr_to_scan : MAX_LRU_BATCH;
	struct lru_gen_folio *lrugen = &lv->lrugen;

	/* [6.12] mm/vmscan.c:4399: evict_folios() has no nr_to_scan, the budget is
	 * MAX_LRU_BATCH */
	if (mg->caps.scan_max_batch)
		remaining = MAX_LRU_BATCH;

	MR_WARN_ON_ONCE(list->n);

	if (get_nr_gens(lv, type) == MIN_NR_GENS)
		return 0;

	gen = lru_gen_from_seq(lrugen->min_seq[type]);

	for (i = MAX_NR_ZONES; i > 0; i--) {
		uint64_t skipped_zone = 0;
		int zone = (sc->reclaim_idx + i) % MAX_NR_ZONES;
		struct ring *head = &lrugen->folios[gen][type][zone];

		for (uint32_t k = 1; k < LRU_GEN_AHEAD; k++)
			prefetchw_prev_lru_folio(mg, head, k);
		while (head->n) {
			uint32_t page = ring_tail(head); /* lru_to_folio() */
			const struct mr_folio *f = &mg->m->folios[page];

			prefetchw_prev_lru_folio(mg, head, LRU_GEN_AHEAD);

			MR_WARN_ON_ONCE(folio_test(f, MR_PG_UNEVICTABLE));
			MR_WARN_ON_ONCE(folio_test(f, MR_PG_ACTIVE));
			MR_WARN_ON_ONCE(folio_is_file_lru(f) != type);
			MR_WARN_ON_ONCE(folio_zonenum(f) != zone);

			scanned += 1;

			if (sort_folio(mg, lv, page, sc, tier)) {
				sorted += 1;
			} else if (isolate_folio(mg, lv, page, sc)) {
				list->pages[list->n++] = page; /* list_add(): isolation order */
				isolated += 1;
			} else {
				/* isolate_folio() fails only in [6.12] (swap constrained): the
				 * kernel moves it to a local list spliced back to the head;
				 * here straight to the head */
				lru_gen_list_del(mg, lv, page);
				lru_gen_list_add(mg, lv, page, gen, false);
				skipped_zone += 1;
			}

			if (!--remaining ||
			    (isolated > skipped_zone ? isolated : skipped_zone) >= MIN_LRU_BATCH)
				break;
		}

		if (skipped_zone) {
			/* __count_zid_vm_events(): /proc/vmstat only */
			count_vm_events(mg->m, MR_VM_PGSCAN_SKIP, skipped_zone);
		}

		if (!remaining || isolated >= MIN_LRU_BATCH)
			break;
	}

	count_scan_steal(mg, lv, sc, MR_VM_PGSCAN_KSWAPD, type, (int64_t)isolated);
	count_pgrefill(mg, lv, sc, (int64_t)sorted);
	/* [6.12] mm/vmscan.c:4469: 0 unless something was isolated or the budget ran out */
	if (mg->caps.scan_zero_unless_isolated)
		return isolated || !remaining ? scanned : 0;
	return scanned;
}

/*
 * mm/vmscan.c:isolate_folios() [7.2] (T): try_to_inc_min_seq() first, then the type
 * get_type_to_scan() picks, with the tier get_tier_idx() allows; stop at the first type
 * that scanned anything -- it isolated something, or it looked at folios and isolated
 * none, in which case [7.2] does not flip to the other type ([7.0] did, since its
 * scan_folios() returned 0 then). Only a type with nothing to look at (empty oldest
 * generation, or MIN_NR_GENS generations) passes to the other.
 * caps.min_seq_after_isolation: no try_to_inc_min_seq() here, only in evict_folios().
 * caps.type_by_first_tier ([6.12] mm/vmscan.c:4520): the obvious type first -- file
 * at swappiness 0 or 1 or without __GFP_IO, anon if its min_seq is older or at
 * MAX_SWAPPINESS -- else get_type_to_scan(), which also gives the tier of the first type.
 */
static uint64_t isolate_folios(struct mglru *mg, uint64_t nr_to_scan, struct lruvec *lv,
			       const struct mr_scan_control *sc, int swappiness,
			       int *type_scanned, struct mr_folio_list *list)
{
	int i;
	int type = -1, tier = -1;
	const uint64_t *min_seq = lv->lrugen.min_seq;

	if (!mg->caps.min_seq_after_isolation)
		try_to_inc_min_seq(mg, lv, swappiness);

	/*
	 * [6.12] Try to make the obvious choice first, and if anon and file are both
	 * available from the same generation, interpret swappiness 1 as file first and
	 * 200 as anon first.
	 */
	if (mg->caps.type_by_first_tier) {
		if (!swappiness)
			type = LRU_GEN_FILE;
		else if (min_seq[LRU_GEN_ANON] < min_seq[LRU_GEN_FILE])
			type = LRU_GEN_ANON;
		else if (swappiness == 1)
			type = LRU_GEN_FILE;
		else if (swappiness >= MAX_SWAPPINESS)
			type = LRU_GEN_ANON;
		else if (!sc->gfp_io)
			type = LRU_GEN_FILE;
	}
	if (type < 0)
		type = get_type_to_scan(mg, lv, swappiness, &tier);

	for (i = min_type(swappiness); i <= max_evictable_type(mg, swappiness); i++) {
		uint64_t scanned;

		if (tier < 0)
			tier = get_tier_idx(mg, lv, type);

		*type_scanned = type;

		scanned = scan_folios(mg, nr_to_scan, lv, sc, type, tier, list);
		if (scanned)
			return scanned;

		type = !type;
		tier = -1;
	}

	return 0;
}

/*
 * mm/vmscan.c:evict_folios(): isolate a batch, let shrink_folio_list() free what it can,
 * and put the rest back: folios that missed folio_rotate_reclaimable() (clean, unmapped,
 * not activated) get one retry; a rejected folio that would land in the oldest
 * generation again gets LRU_REFS_FLAGS cleared and PG_active set instead. Counts
 * pgsteal_*, and [7.2]'s pgrotate_* (isolated - reclaimed). Returns the pages scanned,
 * plus one if min_seq advanced; 0 if aging is now required.
 */
uint64_t evict_folios(struct mglru *mg, uint64_t nr_to_scan, struct lruvec *lv,
		      struct mr_scan_control *sc, int swappiness)
{
	int type = LRU_GEN_FILE;
	uint64_t scanned, reclaimed, reclaimed_total = 0, isolated;
	struct mr_folio_list list = { mg->list_pages, 0, MIN_LRU_BATCH };
	struct mr_folio_list clean = { mg->clean_pages, 0, MIN_LRU_BATCH };
	struct mr_reclaim_stat stat;
	bool skip_retry = false;
	struct lru_gen_folio *lrugen = &lv->lrugen;
	uint32_t j, kept;

	mg->stat.evict_calls++;

	scanned = isolate_folios(mg, nr_to_scan, lv, sc, swappiness, &type, &list);

	scanned += try_to_inc_min_seq(mg, lv, swappiness);

	/* [6.12] tests get_nr_gens(lruvec, !swappiness) == MIN_NR_GENS: the same, as
	 * its min_seq[!swappiness] is evictable_min_seq() (caps.min_seq_coupled) */
	if (evictable_min_seq(lrugen->min_seq, swappiness) + MIN_NR_GENS > lrugen->max_seq)
		scanned = 0;

	if (!list.n)
		return scanned;
	isolated = list.n;
retry:
	reclaimed = mr_shrink_folio_list(mg->p, &list, sc, &mg->shrink_hooks, &stat);
	sc->nr_reclaimed += reclaimed;
	reclaimed_total += reclaimed;

	/* list_for_each_entry_safe_reverse(): from the first isolated */
	clean.n = 0;
	for (j = 0, kept = 0; j < list.n; j++) {
		uint32_t page = list.pages[j];
		struct mr_folio *f = &mg->m->folios[page];

		/* [6.12.95] (6.12.113 mm/vmscan.c:4629-4633) puts it back here; [6.12]
		 * (6.12.117, 4605) and [7.2] leave it on the list for move_folios_to_lru(),
		 * which calls the same folio_putback_lru(): no difference in the model */
		if (!folio_evictable(f)) {
			folio_putback_lru(mg, page);
			continue;
		}

		/* [6.12] mm/vmscan.c:4609-4615: its flags stay for lru_gen_add_folio()
		 * (max_seq - 1); restore LRU_REFS_FLAGS cleared by isolate_folio() */
		if (mg->caps.reject_to_max_seq && folio_test(f, MR_PG_RECLAIM) &&
		    folio_test(f, MR_PG_DIRTY | MR_PG_WRITEBACK)) {
			if (folio_test(f, MR_PG_WORKINGSET))
				f->flags |= MR_PG_REFERENCED;
			list.pages[kept++] = page;
			continue;
		}

		/* retry folios that may have missed folio_rotate_reclaimable() ([6.12]:
		 * nor referenced ones) */
		if (!skip_retry && !folio_test(f, MR_PG_ACTIVE) && !f->mapcount &&
		    !folio_test(f, MR_PG_DIRTY | MR_PG_WRITEBACK) &&
		    !(mg->caps.reject_to_max_seq && folio_test(f, MR_PG_REFERENCED))) {
			clean.pages[clean.n++] = page;
			continue;
		}

		/* don't add rejected folios to the oldest generation ([6.12] 4617-4624:
		 * none of them, PG_active puts each in max_seq) */
		if (mg->caps.reject_to_max_seq ||
		    lru_gen_folio_seq(mg, lv, page, false) == lrugen->min_seq[type]) {
			folio_clear_lru_refs(mg, page);
			f->flags |= MR_PG_ACTIVE;
			mg->stat.rejected++;
			/* model invariant (S003 R1): the rule must not put it back there */
			if (lru_gen_folio_seq(mg, lv, page, false) == lrugen->min_seq[type])
				mg->stat.ra_rejected_min_seq++;
		}
		list.pages[kept++] = page;
	}
	list.n = kept;

	/* move_folios_to_lru(): from the first isolated, each to the head */
	for (j = 0; j < list.n; j++) {
		uint32_t page = list.pages[j];

		mg->m->folios[page].flags |= MR_PG_LRU;
		lruvec_add_folio(mg, lv, page);
	}
	list.n = 0;

	if (mg->walk_active && mg->walk.batched) {
		mg->walk.lruvec = lv;
		reset_batch_size(mg, &mg->walk);
	}

	count_scan_steal(mg, lv, sc, MR_VM_PGSTEAL_KSWAPD, type, (int64_t)reclaimed);

	if (clean.n) {
		for (j = 0; j < clean.n; j++)
			list.pages[j] = clean.pages[j];
		list.n = clean.n;
		skip_retry = true;
		goto retry;
	}

	/* [6.12] evict_folios() counts no pgrotate_* */
	if (!mg->caps.reclaim_vm_events)
		mglru_count(mg, lv, MR_VM_PGROTATE_ANON + type,
			    (int64_t)(isolated - reclaimed_total));
	return scanned;
}

/* ---- the reclaim loop ---- */

/* The pages of generation seq of type (nr_pages can be transiently negative). */
static uint64_t lru_gen_seq_size(const struct lru_gen_folio *lrugen, uint64_t seq, int type)
{
	uint64_t size = 0;
	int zone;

	for (zone = 0; zone < MAX_NR_ZONES; zone++) {
		int64_t n = lrugen->nr_pages[lru_gen_from_seq(seq)][type][zone];

		size += n > 0 ? (uint64_t)n : 0;
	}
	return size;
}

/* The evictable size: the pages of every generation of the types first..last. */
static uint64_t lruvec_evictable_size(const struct lruvec *lv, int first, int last)
{
	const struct lru_gen_folio *lrugen = &lv->lrugen;
	uint64_t total = 0;
	int type;

	for (type = first; type <= last; type++) {
		uint64_t seq;

		for (seq = lrugen->min_seq[type]; seq <= lrugen->max_seq; seq++)
			total += lru_gen_seq_size(lrugen, seq, type);
	}
	return total;
}

/*
 * mm/vmscan.c:should_run_aging() [7.2] (T): aging is required when evictable_min_seq
 * + MIN_NR_GENS > max_seq (eviction would report nothing), and chosen below
 * DEF_PRIORITY when only three generations are left. caps.aging_by_distribution ([6.12]
 * mm/vmscan.c:4661): with three generations it is chosen when max_seq holds more than
 * 1/MIN_NR_GENS of the evictable pages or max_seq - MIN_NR_GENS less than
 * 1/(MIN_NR_GENS + 2), at any priority (get_nr_to_scan() does not age at DEF_PRIORITY).
 * ([6.12] counts the generations from min_seq[!can_swap], which is evictable_min_seq()
 * there: caps.min_seq_coupled.)
 */
static bool should_run_aging(const struct mglru *mg, const struct lruvec *lv,
			     uint64_t max_seq, const struct mr_scan_control *sc, int swappiness)
{
	const struct lru_gen_folio *lrugen = &lv->lrugen;
	uint64_t seq = evictable_min_seq(lrugen->min_seq, swappiness);
	uint64_t old = 0, young = 0, total = 0;
	int type;

	/* have to run aging, since eviction is not possible anymore */
	if (seq + MIN_NR_GENS > max_seq)
		return true;

	/* the ideal number of generations is MIN_NR_GENS + 1 */
	if (seq + MIN_NR_GENS < max_seq)
		return false;

	/* better to run aging even though eviction is still possible */
	if (!mg->caps.aging_by_distribution)
		return sc->priority != DEF_PRIORITY;

	/*
	 * [6.12] It's also ideal to spread pages out evenly, i.e., 1/(MIN_NR_GENS+1)
	 * of the total number of pages for each generation. A reasonable range for
	 * this average portion is [1/MIN_NR_GENS, 1/(MIN_NR_GENS+2)]. The aging cares
	 * about the upper bound of hot pages, while the eviction cares about the lower
	 * bound of cold pages.
	 */
	for (type = min_type(swappiness); type <= max_evictable_type(mg, swappiness); type++) {
		for (seq = lrugen->min_seq[type]; seq <= max_seq; seq++) {
			uint64_t size = lru_gen_seq_size(lrugen, seq, type);

			total += size;
			if (seq == max_seq)
				young += size;
			else if (seq + MIN_NR_GENS == max_seq)
				old += size;
		}
	}

	return young * MIN_NR_GENS > total || old * (MIN_NR_GENS + 2) < total;
}

/*
 * mm/vmscan.c:get_nr_to_scan() [7.2] (T): the evictable size >> priority, computed once
 * per try_to_shrink_lruvec(). caps.nr_to_scan_per_batch ([6.12] mm/vmscan.c:4726): asked
 * before every evict_folios(), it does the aging: when should_run_aging() and below
 * DEF_PRIORITY, it ages and returns -1 if that made a new generation (stop, rotate the
 * memcg), else 0; at DEF_PRIORITY, 0 without cold folios. Out of scope
 * (docs/mglru-model.md): memory.min/low (apply_proportional_protection,
 * mem_cgroup_below_min) and offline memcgs.
 */
static int64_t get_nr_to_scan(struct mglru *mg, struct lruvec *lv,
			      const struct mr_scan_control *sc, int swappiness)
{
	uint64_t max_seq = lv->lrugen.max_seq;
	int priority = sc->priority < 0 ? 0 : sc->priority > 63 ? 63 : sc->priority;

	if (mg->caps.nr_to_scan_per_batch && should_run_aging(mg, lv, max_seq, sc, swappiness)) {
		/* stop scanning this lruvec as it's low on cold folios */
		if (sc->priority != DEF_PRIORITY)
			return try_to_inc_max_seq(mg, lv, max_seq, swappiness, false) ? -1 : 0;
		/* try to get away with not aging at the default priority */
		if (evictable_min_seq(lv->lrugen.min_seq, swappiness) + MIN_NR_GENS > max_seq)
			return 0;
	}

	return (int64_t)(lruvec_evictable_size(lv, min_type(swappiness),
					       max_evictable_type(mg, swappiness)) >> priority);
}

/* mm/vmscan.c:root_reclaim(): not memcg (limit or proactive memcg) reclaim */
static bool root_reclaim(const struct mr_scan_control *sc)
{
	return !sc->memcg_reclaim;
}

/*
 * mm/vmscan.c:should_abort_scan(): root reclaim stops once it reclaimed enough
 * (max(nr_to_reclaim, compact_gap(0) = 2)); memcg reclaim never aborts, for fairness;
 * kswapd (order 0) also stops as soon as every eligible zone is above its high
 * watermark plus MIN_LRU_BATCH - without this it would reclaim a whole nr_to_reclaim
 * (the high watermark) per balance_pgdat() step, several times what it needs.
 */
static bool should_abort_scan(struct mglru *mg, const struct mr_scan_control *sc)
{
	if (!root_reclaim(sc))
		return false;
	if (sc->nr_reclaimed >= (sc->nr_to_reclaim > 2 ? sc->nr_to_reclaim : 2))
		return true;
	if (!sc->kswapd)
		return false;
	/* one zone per node (docs/mglru-model.md, "Deliberate differences" 2); no watermarks
	 * (memcg-only machine): keep going */
	return mg->m->ops->node_watermark_ok &&
	       mg->m->ops->node_watermark_ok(mg->m, sc->node, MIN_LRU_BATCH) > 0;
}

/*
 * mm/vmscan.c:try_to_shrink_lruvec() [7.2] (T): nr_to_scan = evictable >> priority once;
 * then per step: age if should_run_aging() (root reclaim stops right after aging, to go
 * on to the next memcg; memcg reclaim goes on evicting), evict at most MIN_LRU_BATCH
 * pages' worth (evict_folios(min(nr_to_scan, MIN_LRU_BATCH))), until nr_to_scan is used
 * up, eviction makes no progress, or should_abort_scan(). caps.nr_to_scan_per_batch
 * ([6.12] mm/vmscan.c:4781): get_nr_to_scan() again before every step, which does the
 * aging and stops the loop then; the pages scanned end it when they reach its latest
 * answer. The flusher wake-up is the engine's business. Returns whether the kernel
 * would rotate this memcg (the memcg LRU is out of scope).
 */
static bool try_to_shrink_lruvec(struct mglru *mg, struct lruvec *lv,
				 struct mr_scan_control *sc)
{
	bool need_rotate = false;
	int swappiness = get_swappiness(mg, lv, sc);
	int64_t nr_to_scan = get_nr_to_scan(mg, lv, sc, swappiness);
	uint64_t scanned = 0;

	while (nr_to_scan > 0) {
		uint64_t delta;
		uint64_t max_seq = lv->lrugen.max_seq;
		/* [6.12] may have a new nr_to_scan below scanned: one more step */
		uint64_t left = (uint64_t)nr_to_scan > scanned ? (uint64_t)nr_to_scan - scanned : 0;

		if (!mg->caps.nr_to_scan_per_batch &&
		    should_run_aging(mg, lv, max_seq, sc, swappiness)) {
			if (try_to_inc_max_seq(mg, lv, max_seq, swappiness, false))
				need_rotate = true;
			if (root_reclaim(sc))
				break;
		}

		/* ([6.12]'s evict_folios() takes no budget: caps.scan_max_batch) */
		delta = evict_folios(mg, left < MIN_LRU_BATCH ? left : MIN_LRU_BATCH, lv, sc,
				     swappiness);
		if (!delta)
			break;

		scanned += delta;
		if (scanned >= (uint64_t)nr_to_scan)
			break;

		if (should_abort_scan(mg, sc))
			break;

		if (mg->caps.nr_to_scan_per_batch)
			nr_to_scan = get_nr_to_scan(mg, lv, sc, swappiness);
	}

	/* [6.12]: get_nr_to_scan() made a new generation */
	return need_rotate || nr_to_scan < 0;
}

/* mm/vmscan.c:lruvec_is_sizable() */
static bool lruvec_is_sizable(struct mglru *mg, struct lruvec *lv, const struct mr_scan_control *sc)
{
	int swappiness = get_swappiness(mg, lv, sc);
	int priority = sc->priority < 0 ? 0 : sc->priority;

	/* whether the size is big enough to be helpful (memcgs are online here) */
	return (lruvec_evictable_size(lv, min_type(swappiness), max_type(swappiness)) >>
		(priority > 63 ? 63 : priority)) != 0;
}

/* mm/vmscan.c:lruvec_is_reclaimable(): the evictable oldest generation is older than
 * min_ttl. */
static bool lruvec_is_reclaimable(struct mglru *mg, struct lruvec *lv,
				  const struct mr_scan_control *sc, uint64_t min_ttl)
{
	int swappiness = get_swappiness(mg, lv, sc);
	unsigned gen;
	uint64_t birth;

	if (!lruvec_is_sizable(mg, lv, sc))
		return false;

	gen = lru_gen_from_seq(evictable_min_seq(lv->lrugen.min_seq, swappiness));
	birth = lv->lrugen.timestamps[gen];

	/* time_is_before_jiffies(birth + min_ttl) */
	return mg->m->now_ns > birth + min_ttl;
}

/*
 * mm/vmscan.c:lru_gen_age_node() (kswapd, before shrinking the node): with min_ttl_ms
 * set, if no lruvec of the node has an evictable oldest generation older than min_ttl,
 * the kernel calls out_of_memory() to protect the working set of the last min_ttl.
 * Differs: the model cannot kill a task; it counts mglru_min_ttl_oom, and reclaim goes
 * on as it does in the kernel. (It does no aging, as in 6.12..7.2.)
 */
void lru_gen_age_node(struct mglru *mg, uint32_t node, struct mr_scan_control *sc)
{
	uint32_t memcg;

	if (!mg->min_ttl_ns)
		return;

	for (memcg = 0; memcg < mg->m->nr_memcgs; memcg++) {
		struct lruvec *lv = &mg->lruvecs[memcg * mg->m->nr_nodes + node];

		if (lruvec_is_reclaimable(mg, lv, sc, mg->min_ttl_ns))
			return;
	}
	mg->stat.min_ttl_oom++;
}

/*
 * mm/vmscan.c:lru_gen_shrink_lruvec() (and the shrink_one() part of lru_gen_shrink_node()
 * for root reclaim): reclaim from one lruvec with a walk context for kswapd and
 * proactive reclaim (set_mm_walk(pgdat or NULL, sc->proactive)); aging gives other
 * reclaimers one for the rest of the call. kswapd's lru_gen_age_node() runs first, at
 * the node's first memcg, as kswapd runs it once before shrinking the node.
 */
void lru_gen_shrink_lruvec(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc)
{
	struct mglru *mg = mglru_of(p);
	struct lruvec *lv;

	if (MR_WARN_ON_ONCE(lruvec >= mg->m->nr_lruvecs))
		return;
	lv = &mg->lruvecs[lruvec];

	/* S002: shrink_many() / shrink_one() found this lruvec on the RCU walk of the
	 * memcg bins: one read of list, gen and seg per reclaim invocation */
	if (mg->cl) {
		mglru_cl(mg, lv, CL_MEMCG_WALK, LGF_LIST, 0, false);
		mglru_cl(mg, lv, CL_MEMCG_WALK, LGF_GEN, 0, false);
		mglru_cl(mg, lv, CL_MEMCG_WALK, LGF_SEG, 0, false);
	}

	if (sc->kswapd && lv->memcg == 0)
		lru_gen_age_node(mg, lv->node, sc);

	/* set_mm_walk() */
	mg->walk_active = sc->kswapd || sc->proactive;

	try_to_shrink_lruvec(mg, lv, sc);

	/* clear_mm_walk() */
	MR_WARN_ON_ONCE(mg->walk.batched);
	mg->walk_active = false;
}
