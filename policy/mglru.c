// SPDX-License-Identifier: GPL-2.0
/*
 * mglru.c - the Multi-Gen LRU model ([7.2], Mode A; see mglru.h for the file map):
 * the ops table and parameters, the generation lists, insertion (include/linux/
 * mm_inline.h), fd accesses and activation (mm/swap.c), refault detection
 * (mm/workingset.c), model counters and the invariant checker.
 *
 * Every function that follows a kernel function names it; "differs:" marks where the
 * model deliberately does something else (docs/mglru-model.md collects them).
 */
#include "counters.h"
#include "mglru.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- parameters ---- */

static const char *const inc_min_seq_names[] = { "base", "v3" };
static const char *const ra_placement_names[] = { "A", "B", "C" };
static const char *const exec_promote_names[] = { "0", "1", "alt" };
static const char *const stats_layout_names[] = { "before", "after" };

/* kernel=: the names and behaviour bits of the modes, from their rows (mglru.h) */
#define KERNEL_NAME(id, name, ...) name,
static const char *const kernel_names[] = { MGLRU_KERNELS(KERNEL_NAME) };
#undef KERNEL_NAME
#define KERNEL_CAPS(id, name, ...) [KERNEL_##id] = { __VA_ARGS__ },
static const struct mglru_caps kernel_caps[] = { MGLRU_KERNELS(KERNEL_CAPS) };
#undef KERNEL_CAPS

static const struct mr_param_desc mglru_param_table[] = {
	{ "swappiness", MR_PARAM_INT, MIN_SWAPPINESS, SWAPPINESS_ANON_ONLY, 60, NULL,
	  offsetof(struct mglru_params, swappiness),
	  "vm.swappiness seen by reclaim; 0 = file only, 201 = anon only (debugfs 'max')" },
	{ "min_ttl_ms", MR_PARAM_INT, 0, UINT32_MAX, 0, NULL,
	  offsetof(struct mglru_params, min_ttl_ms),
	  "/sys/kernel/mm/lru_gen/min_ttl_ms: kswapd counts an OOM when every generation "
	  "it could evict is younger (0 = off)" },
	{ "enabled", MR_PARAM_INT, 0, 7, 7, NULL, offsetof(struct mglru_params, enabled),
	  "/sys/kernel/mm/lru_gen/enabled caps: 0x1 core (required), 0x2 mm walk, "
	  "0x4 non-leaf PMD young" },
	{ "lru_gen_stats", MR_PARAM_BOOL, 0, 1, 0, NULL,
	  offsetof(struct mglru_params, lru_gen_stats),
	  "CONFIG_LRU_GEN_STATS: keep 4 generations of PID and mm-walk history "
	  "(NR_HIST_GENS = 4) instead of 1" },
	{ "inc_min_seq", MR_PARAM_ENUM, INC_MIN_SEQ_BASE, INC_MIN_SEQ_V3, INC_MIN_SEQ_BASE,
	  inc_min_seq_names, offsetof(struct mglru_params, inc_min_seq),
	  "S000: inc_min_seq() as in [7.2] (base: tail first, reversed, one folio at a time) "
	  "or as in the seed's v3 (order kept, batched splices and sizes, promoted folios to "
	  "the head of their generation and not counted as protected)" },
	{ "ra_placement", MR_PARAM_ENUM, RA_PLACEMENT_A, RA_PLACEMENT_C, RA_PLACEMENT_A,
	  ra_placement_names, offsetof(struct mglru_params, ra_placement),
	  "S003: in-fault placement; A = [7.2] (6cbdd9726fb5), B = the S003 fix, "
	  "C = the plain revert ([6.14..7.1])" },
	{ "exec_promote", MR_PARAM_ENUM, EXEC_PROMOTE_OFF, EXEC_PROMOTE_ALT, EXEC_PROMOTE_OFF,
	  exec_promote_names, offsetof(struct mglru_params, exec_promote),
	  "S004: mapped VM_EXEC file folios: 0 = baseline, 1 = v3 (aging promotes and rmap "
	  "activates them on first sighting), alt = rmap also sets PG_workingset" },
	{ "probes", MR_PARAM_BOOL, 0, 1, 0, NULL,
	  offsetof(struct mglru_params, probes),
	  "model instrumentation (no decision changes): count evictions of a folio last seen "
	  "accessed later than the next folio evicted from its lruvec and type, and "
	  "refaults of file folios with a VM_EXEC mapping" },
	{ "pud_filter", MR_PARAM_BOOL, 0, 1, 0, NULL, offsetof(struct mglru_params, pud_filter),
	  "S001: a second Bloom filter level keyed by (mm, PUD) lets unforced walks skip "
	  "1 GiB ranges where nothing was young for this lruvec; adds the LWEES walk stats "
	  "(TYFALWEES in lru_gen full output)" },
	{ "stats_layout", MR_PARAM_ENUM, STATS_LAYOUT_BEFORE, STATS_LAYOUT_AFTER,
	  STATS_LAYOUT_BEFORE, stats_layout_names, offsetof(struct mglru_params, stats_layout),
	  "S002: byte layout of struct lru_gen_folio for the cache-line model (no decision "
	  "changes): before = [7.2] (evicted/refaulted next to enabled/gen/seg/list), after = "
	  "the seed (enabled/gen/seg/list after timestamps, stats in their own 64-aligned "
	  "lines, 1360 -> 1408 bytes)" },
	{ "lrugen_base", MR_PARAM_INT, 0, 63, 8, NULL, offsetof(struct mglru_params, lrugen_base),
	  "S002: offset of lrugen modulo 64 in the before layout (8 = 6.12: lruvec 64-aligned, "
	  "lrugen at +136); the after layout is 64-aligned (0)" },
	{ "cacheline_model", MR_PARAM_BOOL, 0, 1, 0, NULL,
	  offsetof(struct mglru_params, cacheline_model),
	  "S002: count reads, writes and cross-CPU transfers of the lines of struct "
	  "lru_gen_folio on the hot paths (MESI-like, per CPU of the trace event, CPUs mod 64); "
	  "model counters mglru_cl_*" },
	{ "kernel", MR_PARAM_ENUM, KERNEL_7_2, NR_KERNELS - 1, KERNEL_7_2, kernel_names,
	  offsetof(struct mglru_params, kernel),
	  "kernel version modelled: 7.2 (the seed tree) or 6.12 (Debian linux-source-6.12: "
	  "mapped PG_referenced folios kept by shrink_folio_list(), the classic "
	  "folio_check_references(), promotion on first sighting, 6.12 insertion, rejected "
	  "folios to max_seq, exact-min_seq recency, 6.12 tiers and folio_inc_refs(), the "
	  "6.12 PID controller and isolate_folios(), inc_min_seq()/try_to_inc_min_seq(), "
	  "should_run_aging() and the shrink loop; see docs/mglru-model.md) or 6.12.95 "
	  "(the kernel kernel-lab boots: 6.12 before the mm/mglru backports of "
	  "6.12.114, so activated folios keep their tier, sort_folio() culls unevictable "
	  "folios and moves dirty file and writeback folios to min_seq + 1 with "
	  "PG_reclaim, and isolate_folio() clears PG_reclaim)" },
};

/* ---- lists (include/linux/list.h over page ids, on rings: ring.h) ---- */

/* list_add() / list_add_tail() onto folios[gen][type][zone] of lv. */
void lru_gen_list_add(struct mglru *mg, struct lruvec *lv, uint32_t page, unsigned gen,
		      bool tail)
{
	const struct mr_folio *f = &mg->m->folios[page];
	struct ring *l = &lv->lrugen.folios[gen][folio_is_file_lru(f)][folio_zonenum(f)];
	struct lru_gen_page *pg = lgp(mg, page);

	MR_WARN_ON_ONCE(pg->list);
	pg->list = (uint8_t)(gen + 1);
	if (tail)
		ring_add_tail(l, lru_gen_slots(mg), page);
	else
		ring_add_head(l, lru_gen_slots(mg), page);
}

/* list_del() from whichever gen list the folio is linked on. */
void lru_gen_list_del(struct mglru *mg, struct lruvec *lv, uint32_t page)
{
	const struct mr_folio *f = &mg->m->folios[page];
	struct lru_gen_page *pg = lgp(mg, page);

	if (MR_WARN_ON_ONCE(!pg->list || pg->list > MAX_NR_GENS))
		return;
	ring_del(&lv->lrugen.folios[pg->list - 1][folio_is_file_lru(f)][folio_zonenum(f)],
		 pg->slot, page);
	pg->list = 0;
}

/* ---- include/linux/mm_inline.h ---- */

static unsigned nr_lru_item(int type, bool active)
{
	if (type == LRU_GEN_FILE)
		return active ? MR_VM_NR_ACTIVE_FILE : MR_VM_NR_INACTIVE_FILE;
	return active ? MR_VM_NR_ACTIVE_ANON : MR_VM_NR_INACTIVE_ANON;
}

/* include/linux/mm_inline.h:lru_gen_update_size(): nr_pages and the active/inactive ABI. */
void lru_gen_update_size(struct mglru *mg, struct lruvec *lv, uint32_t page, int old_gen,
			 int new_gen)
{
	const struct mr_folio *f = &mg->m->folios[page];
	int type = folio_is_file_lru(f);
	int zone = folio_zonenum(f);
	int64_t delta = 1; /* folio_nr_pages(): order-0 */
	struct lru_gen_folio *lrugen = &lv->lrugen;

	MR_WARN_ON_ONCE(old_gen != -1 && old_gen >= MAX_NR_GENS);
	MR_WARN_ON_ONCE(new_gen != -1 && new_gen >= MAX_NR_GENS);
	MR_WARN_ON_ONCE(old_gen == -1 && new_gen == -1);

	if (old_gen >= 0)
		lrugen->nr_pages[old_gen][type][zone] -= delta;
	if (new_gen >= 0)
		lrugen->nr_pages[new_gen][type][zone] += delta;

	/* addition */
	if (old_gen < 0) {
		mglru_count(mg, lv, nr_lru_item(type, lru_gen_is_active(lv, (unsigned)new_gen)),
			    delta);
		return;
	}
	/* deletion */
	if (new_gen < 0) {
		mglru_count(mg, lv, nr_lru_item(type, lru_gen_is_active(lv, (unsigned)old_gen)),
			    -delta);
		return;
	}
	/* promotion */
	if (!lru_gen_is_active(lv, (unsigned)old_gen) && lru_gen_is_active(lv, (unsigned)new_gen)) {
		mglru_count(mg, lv, nr_lru_item(type, false), -delta);
		mglru_count(mg, lv, nr_lru_item(type, true), delta);
	}
	/* demotion requires isolation, e.g., lru_deactivate_fn() */
	MR_WARN_ON_ONCE(lru_gen_is_active(lv, (unsigned)old_gen) &&
			!lru_gen_is_active(lv, (unsigned)new_gen));
}

/*
 * include/linux/mm_inline.h:lru_gen_folio_seq() [7.2] Mode A: the distance d from
 * max_seq (1 = max_seq ... 4 = the oldest generation), first match wins:
 *   1. PG_active (set while isolated)      d = 2 - PG_workingset
 *   2. reclaiming (lruvec_add_folio_tail)  d = 4
 *   3. anon not in swapcache, or
 *   4. PG_reclaim && (dirty || writeback)  d = 2
 *   5. otherwise                           d = 4 - (PG_workingset || PG_referenced)
 * S003 (ra_placement): mode B adds (file ? !PG_workingset : 0) in rule 1 and drops
 * PG_referenced from rule 5; mode C drops it from rule 5 only.
 */
uint64_t lru_gen_folio_seq(struct mglru *mg, const struct lruvec *lv, uint32_t page,
			   bool reclaiming)
{
	const struct mr_folio *f = &mg->m->folios[page];
	int type = folio_is_file_lru(f);
	const struct lru_gen_folio *lrugen = &lv->lrugen;
	bool ws = folio_test(f, MR_PG_WORKINGSET);
	uint64_t gen, seq;

	if (mg->caps.add_from_min_seq) {
		/* [6.12] include/linux/mm_inline.h:252-261 (inside lru_gen_add_folio()) */
		if (folio_test(f, MR_PG_ACTIVE))
			return lrugen->max_seq;
		if ((!type && !folio_test(f, MR_PG_SWAPCACHE)) ||
		    (folio_test(f, MR_PG_RECLAIM) && folio_test(f, MR_PG_DIRTY | MR_PG_WRITEBACK)))
			return lrugen->max_seq - 1;
		if (reclaiming || lrugen->min_seq[type] + MIN_NR_GENS >= lrugen->max_seq)
			return lrugen->min_seq[type];
		return lrugen->min_seq[type] + 1;
	}

	if (folio_test(f, MR_PG_ACTIVE)) {
		gen = MIN_NR_GENS - ws + (mg->ra_placement == RA_PLACEMENT_B && type && !ws);
		if (mg->ra_placement == RA_PLACEMENT_B && type && !ws)
			mg->stat.acted_ra_placement++;
	} else if (reclaiming) {
		gen = MAX_NR_GENS;
	} else if ((!folio_is_file_lru(f) && !folio_test(f, MR_PG_SWAPCACHE)) ||
		   (folio_test(f, MR_PG_RECLAIM) &&
		    folio_test(f, MR_PG_DIRTY | MR_PG_WRITEBACK))) {
		gen = MIN_NR_GENS;
	} else {
		gen = MAX_NR_GENS - (ws || (mg->ra_placement == RA_PLACEMENT_A &&
					    folio_test(f, MR_PG_REFERENCED)));
		if (mg->ra_placement != RA_PLACEMENT_A && !ws && folio_test(f, MR_PG_REFERENCED))
			mg->stat.acted_ra_placement++;
	}

	seq = lrugen->max_seq - gen + 1;
	return seq > lrugen->min_seq[type] ? seq : lrugen->min_seq[type];
}

/*
 * include/linux/mm_inline.h:lru_gen_add_folio(). Differs: the kernel tests only
 * PG_unevictable here (lru_add() has turned !folio_evictable() into PG_unevictable
 * before); the engine owns those flags, so folio_evictable() is tested instead.
 */
bool lru_gen_add_folio(struct mglru *mg, struct lruvec *lv, uint32_t page, bool reclaiming)
{
	struct mr_folio *f = &mg->m->folios[page];
	uint64_t seq;
	unsigned gen;

	MR_WARN_ON_ONCE(folio_lru_gen(mg, page) != -1);

	if (!folio_evictable(f))
		return false;
	mglru_cl(mg, lv, CL_ADD, LGF_ENABLED, 0, false);
	if (!lv->lrugen.enabled)
		return false;

	seq = lru_gen_folio_seq(mg, lv, page, reclaiming);
	gen = lru_gen_from_seq(seq);
	if (mg->cl) {
		int type = folio_is_file_lru(f);

		mglru_cl(mg, lv, CL_ADD, LGF_MAX_SEQ, 0, false);
		mglru_cl(mg, lv, CL_ADD, LGF_MIN_SEQ, (unsigned)type, false);
		mglru_cl(mg, lv, CL_ADD, LGF_FOLIOS, lrugen_gen_idx(gen, type), true);
		mglru_cl(mg, lv, CL_ADD, LGF_NR_PAGES, lrugen_gen_idx(gen, type), true);
	}
	/* model invariant (S003 R2/R3): PG_active from reclaim, migration or
	 * folio_activate() should mean an active generation (in-fault adds are exempt:
	 * mode B places those at max_seq - 2 by design) */
	if (folio_test(f, MR_PG_ACTIVE) && !mg->in_lru_fault && !lru_gen_is_active(lv, gen))
		mg->stat.ra_active_inactive++;
	/* see the comment on MIN_NR_GENS about PG_active */
	lgp(mg, page)->gen = (uint8_t)(gen + 1);
	/* [6.12] mm_inline.h:263-272 (6.12.117): an active folio also loses LRU_REFS_MASK
	 * and PG_referenced (PG_workingset stays, for PSI): "mm/mglru: reset page lru tier
	 * bits when activating", in 6.12.y from 6.12.114 on. [6.12.95] clears only
	 * LRU_GEN_MASK | BIT(PG_active), so a refault restored in a fault (refs 3 +
	 * PG_workingset) stays tier 3 on the list. */
	if (mg->caps.activate_clears_refs && folio_test(f, MR_PG_ACTIVE))
		folio_set_lru_refs_flags(mg, page, false, 0);
	f->flags &= ~MR_PG_ACTIVE;

	lru_gen_update_size(mg, lv, page, -1, (int)gen);
	/* for folio_rotate_reclaimable() */
	lru_gen_list_add(mg, lv, page, gen, reclaiming);
	return true;
}

/* include/linux/mm_inline.h:lru_gen_del_folio() */
bool lru_gen_del_folio(struct mglru *mg, struct lruvec *lv, uint32_t page, bool reclaiming)
{
	struct mr_folio *f = &mg->m->folios[page];
	int gen = folio_lru_gen(mg, page);

	if (gen < 0)
		return false;

	MR_WARN_ON_ONCE(folio_test(f, MR_PG_ACTIVE));
	MR_WARN_ON_ONCE(folio_test(f, MR_PG_UNEVICTABLE));

	/* for folio_migrate_flags() */
	if (!reclaiming && lru_gen_is_active(lv, (unsigned)gen))
		f->flags |= MR_PG_ACTIVE;
	lgp(mg, page)->gen = 0;

	lru_gen_update_size(mg, lv, page, gen, -1);
	lru_gen_list_del(mg, lv, page);
	return true;
}

/* The unevictable list of include/linux/mm_inline.h:lruvec_add_folio(). */
static void add_unevictable(struct mglru *mg, struct lruvec *lv, uint32_t page)
{
	lgp(mg, page)->list = LRU_GEN_LIST_UNEVICTABLE;
	mglru_count(mg, lv, MR_VM_NR_UNEVICTABLE, 1);
}

/* include/linux/mm_inline.h:lruvec_add_folio() */
void lruvec_add_folio(struct mglru *mg, struct lruvec *lv, uint32_t page)
{
	if (lru_gen_add_folio(mg, lv, page, false))
		return;
	add_unevictable(mg, lv, page);
}

/* include/linux/mm_inline.h:lruvec_add_folio_tail() */
void lruvec_add_folio_tail(struct mglru *mg, struct lruvec *lv, uint32_t page)
{
	if (lru_gen_add_folio(mg, lv, page, true))
		return;
	add_unevictable(mg, lv, page);
}

/* include/linux/mm_inline.h:lruvec_del_folio() */
void lruvec_del_folio(struct mglru *mg, struct lruvec *lv, uint32_t page)
{
	if (lru_gen_del_folio(mg, lv, page, false))
		return;
	if (lgp(mg, page)->list == LRU_GEN_LIST_UNEVICTABLE) {
		lgp(mg, page)->list = 0;
		mglru_count(mg, lv, MR_VM_NR_UNEVICTABLE, -1);
	}
}

/* set_mask_bits(&folio->flags, LRU_REFS_FLAGS, ...): PG_referenced and the counter. */
void folio_set_lru_refs_flags(struct mglru *mg, uint32_t page, bool referenced, unsigned refs)
{
	struct mr_folio *f = &mg->m->folios[page];

	if (referenced)
		f->flags |= MR_PG_REFERENCED;
	else
		f->flags &= ~MR_PG_REFERENCED;
	lgp(mg, page)->refs = (uint8_t)refs;
}

/* ---- mm/swap.c ---- */

/*
 * mm/swap.c:lru_gen_inc_refs() [6.14+]: successive fd accesses set PG_referenced
 * (clearing the counter), then count 1..3, then set PG_workingset.
 */
void lru_gen_inc_refs(struct mglru *mg, uint32_t page)
{
	struct mr_folio *f = &mg->m->folios[page];
	struct lru_gen_page *pg = lgp(mg, page);

	if (folio_test(f, MR_PG_UNEVICTABLE))
		return;

	mglru_seen(mg, page);
	if (mg->caps.inc_refs_counter_last) {
		/* [6.12] mm/swap.c:414 folio_inc_refs(): PG_referenced, then
		 * PG_workingset, then the counter up to LRU_REFS_MASK */
		if (!folio_test(f, MR_PG_REFERENCED))
			f->flags |= MR_PG_REFERENCED;
		else if (!folio_test(f, MR_PG_WORKINGSET))
			f->flags |= MR_PG_WORKINGSET;
		else if (pg->refs < LRU_REFS_MAX)
			pg->refs++;
		return;
	}
	/* see the comment on LRU_REFS_FLAGS */
	if (!folio_test(f, MR_PG_REFERENCED)) {
		f->flags |= MR_PG_REFERENCED;
		pg->refs = 0;
		return;
	}

	if (pg->refs == LRU_REFS_MAX) {
		f->flags |= MR_PG_WORKINGSET;
		return;
	}
	pg->refs++;
}

/* mm/swap.c:folio_mark_accessed(): with lru_gen only lru_gen_inc_refs(); it never moves
 * a folio. ([6.18+] skips dropbehind folios, which the model has none of.) */
void folio_mark_accessed(struct mglru *mg, uint32_t page)
{
	lru_gen_inc_refs(mg, page);
}

/*
 * mm/swap.c:folio_activate() + lru_activate(). Differs: applied at once, where the
 * kernel queues the folio in a per-CPU batch (taking it off the LRU until the drain).
 */
void folio_activate(struct mglru *mg, uint32_t page)
{
	struct mr_folio *f = &mg->m->folios[page];
	struct lruvec *lv = folio_lruvec(mg, page);

	if (folio_test(f, MR_PG_ACTIVE | MR_PG_UNEVICTABLE) || !folio_test(f, MR_PG_LRU))
		return;

	lruvec_del_folio(mg, lv, page);
	f->flags |= MR_PG_ACTIVE;
	lruvec_add_folio(mg, lv, page);
	mglru_count(mg, lv, MR_VM_PGACTIVATE, 1);
}

/*
 * mm/swap.c:folio_add_lru() + lru_add(), [7.2] Mode A (6cbdd9726fb5): a folio added in a
 * fault of a VMA with recency (lru_gen_in_fault()) gets PG_active when it is workingset
 * (a refault), else folio_mark_accessed() unless already PG_referenced.
 * S003 (ra_placement): modes B and C set PG_active for every in-fault folio.
 * Differs: lru_add() runs at once (the engine adds at the end of the triggering event;
 * docs/mglru-model.md, "Deliberate differences" 3), and PF_MEMALLOC tasks do not exist.
 */
void folio_add_lru(struct mglru *mg, uint32_t page, unsigned ctx)
{
	struct mr_folio *f = &mg->m->folios[page];

	if (MR_WARN_ON_ONCE(folio_test(f, MR_PG_LRU)))
		return;

	if (folio_test(f, MR_PG_EXEC) && folio_is_file_lru(f))
		mg->stat.exec_file_adds++;
	if (!folio_test(f, MR_PG_UNEVICTABLE) && (ctx & MR_ADD_IN_FAULT)) {
		mg->stat.in_fault_adds++;
		if (mg->ra_placement != RA_PLACEMENT_A && !folio_test(f, MR_PG_WORKINGSET) &&
		    !mg->caps.fault_activates)
			mg->stat.acted_ra_placement++; /* A: folio_mark_accessed() or nothing */
		/* [6.12] mm/swap.c:510: every in-fault folio gets PG_active */
		if (folio_test(f, MR_PG_WORKINGSET) || mg->ra_placement != RA_PLACEMENT_A ||
		    mg->caps.fault_activates)
			f->flags |= MR_PG_ACTIVE;
		else if (!folio_test(f, MR_PG_REFERENCED))
			folio_mark_accessed(mg, page);
	}

	/* lru_add() */
	if (!folio_evictable(f))
		f->flags &= ~MR_PG_ACTIVE;
	f->flags |= MR_PG_LRU;
	mg->in_lru_fault = (ctx & MR_ADD_IN_FAULT) != 0;
	lruvec_add_folio(mg, folio_lruvec(mg, page), page);
	mg->in_lru_fault = false;
}

/* mm/vmscan.c:folio_putback_lru(): back through folio_add_lru(), outside a fault. */
void folio_putback_lru(struct mglru *mg, uint32_t page)
{
	folio_add_lru(mg, page, 0);
}

/*
 * mm/vmscan.c:folio_isolate_lru() (migration, compaction): off the LRU with PG_active
 * set when it was in an active generation. The engine has no migration event, so only
 * the tests call it (scenario 10, S003 R3: the put-back of an isolated active folio); it
 * stays in the model because it is the kernel's path, beside folio_putback_lru().
 */
bool folio_isolate_lru(struct mglru *mg, uint32_t page)
{
	struct mr_folio *f = &mg->m->folios[page];

	if (!folio_test(f, MR_PG_LRU))
		return false;
	f->flags &= ~MR_PG_LRU;
	lruvec_del_folio(mg, folio_lruvec(mg, page), page);
	return true;
}

/*
 * mm/swap.c:folio_rotate_reclaimable() + lru_move_tail(): writeback ended on a
 * PG_reclaim folio (folio_end_writeback() clears PG_reclaim first): move it to the tail
 * of the oldest generation. A folio off the LRU (isolated) is left to evict_folios()'s
 * retry.
 */
static void folio_rotate_reclaimable(struct mglru *mg, uint32_t page)
{
	struct mr_folio *f = &mg->m->folios[page];
	struct lruvec *lv = folio_lruvec(mg, page);

	f->flags &= ~MR_PG_RECLAIM;
	if (folio_test(f, MR_PG_DIRTY | MR_PG_UNEVICTABLE) || !folio_test(f, MR_PG_LRU))
		return;

	lruvec_del_folio(mg, lv, page);
	f->flags &= ~MR_PG_ACTIVE;
	lruvec_add_folio_tail(mg, lv, page);
	count_vm_events(mg->m, MR_VM_PGROTATED, 1); /* __count_vm_events(): no memory.stat field */
}

/* ---- mm/workingset.c ---- */

/*
 * The shadow entry layout of mm/workingset.c:pack_shadow() on x86_64 with
 * CONFIG_NODES_SHIFT=10 and MEM_CGROUP_ID_SHIFT=16, as an xarray value entry
 * (bit 0 set, so a shadow is never 0):
 *
 *   63                           28 27      12 11      2   1   0
 *  +-------------------------------+----------+---------+---+---+
 *  | eviction (token), 36 bits     | memcg id | node id | W | 1 |
 *  +-------------------------------+----------+---------+---+---+
 *
 * Differs: [7.2] packs anon (swap) shadows with a narrower EVICTION_MASK_ANON; one mask
 * is used for both here (token seqs are 34 bits either way for any practical trace).
 */
#define WORKINGSET_SHIFT 1
#define NODES_SHIFT 10
#define MEM_CGROUP_ID_SHIFT 16
#define BITS_PER_XA_VALUE 63
#define EVICTION_SHIFT ((64 - BITS_PER_XA_VALUE) + WORKINGSET_SHIFT + NODES_SHIFT + \
			MEM_CGROUP_ID_SHIFT)
#define EVICTION_MASK (~0ull >> EVICTION_SHIFT)

/* mm/workingset.c:pack_shadow() */
uint64_t pack_shadow(uint32_t memcg_id, uint32_t node, uint64_t eviction, bool workingset)
{
	eviction &= EVICTION_MASK;
	eviction = (eviction << MEM_CGROUP_ID_SHIFT) | (memcg_id & ((1u << MEM_CGROUP_ID_SHIFT) - 1));
	eviction = (eviction << NODES_SHIFT) | (node & ((1u << NODES_SHIFT) - 1));
	eviction = (eviction << WORKINGSET_SHIFT) | workingset;
	return (eviction << 1) | 1; /* xa_mk_value() */
}

/* mm/workingset.c:unpack_shadow() */
void unpack_shadow(uint64_t shadow, uint32_t *memcg_id, uint32_t *node, uint64_t *eviction,
		   bool *workingset)
{
	uint64_t entry = shadow >> 1; /* xa_to_value() */

	*workingset = entry & ((1u << WORKINGSET_SHIFT) - 1);
	entry >>= WORKINGSET_SHIFT;
	*node = (uint32_t)(entry & ((1u << NODES_SHIFT) - 1));
	entry >>= NODES_SHIFT;
	*memcg_id = (uint32_t)(entry & ((1u << MEM_CGROUP_ID_SHIFT) - 1));
	entry >>= MEM_CGROUP_ID_SHIFT;
	*eviction = entry;
}

/*
 * mm/workingset.c:lru_gen_eviction() [6.14+]: the token is min_seq of the folio's type
 * and refs - 1; evicted[] of the current min_seq's history slot counts the tier.
 */
uint64_t lru_gen_eviction(struct mglru *mg, uint32_t page)
{
	const struct mr_folio *f = &mg->m->folios[page];
	int type = folio_is_file_lru(f);
	int refs = folio_lru_refs(mg, page);
	bool workingset = folio_test(f, MR_PG_WORKINGSET);
	int tier = lru_tier_from_refs(mg, refs, workingset);
	struct lruvec *lv = folio_lruvec(mg, page);
	struct lru_gen_folio *lrugen = &lv->lrugen;
	uint64_t min_seq = lrugen->min_seq[type];
	uint64_t token = (min_seq << LRU_REFS_WIDTH) | (uint64_t)(refs > 1 ? refs - 1 : 0);
	unsigned hist = lru_hist_from_seq(mg, min_seq);

	lrugen->evicted[hist][type][tier] += 1;
	if (mg->cl) {
		mglru_cl(mg, lv, CL_EVICTION, LGF_MIN_SEQ, (unsigned)type, false);
		mglru_cl(mg, lv, CL_EVICTION, LGF_EVICTED,
			 (unsigned)(type * MAX_NR_TIERS + tier), true);
	}
	if (mg->last_seen) {
		uint64_t *prev = &mg->last_evicted[lv->id * ANON_AND_FILE + type];

		if (*prev != UINT64_MAX) {
			mg->stat.evict_pairs++;
			mg->stat.evict_inversions += *prev > mg->last_seen[page];
		}
		*prev = mg->last_seen[page];
	}
	/* [6.12] mm/workingset.c:256: the shadow's bit is refs != 0, with 6.12's refs =
	 * counter + PG_workingset (folio_lru_refs(), mm_inline.h:144) */
	if (mg->caps.tier_refs_workingset)
		workingset = refs != 0;
	return pack_shadow(lv->memcg, lv->node, token, workingset);
}

static struct lruvec *shadow_lruvec(struct mglru *mg, uint32_t memcg_id, uint32_t node)
{
	if (memcg_id >= mg->m->nr_memcgs || node >= mg->m->nr_nodes)
		return NULL;
	return &mg->lruvecs[memcg_id * mg->m->nr_nodes + node];
}

/*
 * mm/workingset.c:lru_gen_test_recent() [6.14+]: recent iff the folio was evicted at
 * most MAX_NR_GENS - 1 generations before the current max_seq (compared in the bits
 * the token keeps). caps.recent_at_min_seq ([6.12] mm/workingset.c:263): recent iff it
 * was evicted at the current min_seq of its type. *lvp is NULL when the shadow names
 * no lruvec of this machine.
 */
bool lru_gen_test_recent(struct mglru *mg, uint64_t shadow, int type, struct lruvec **lvp,
			 uint64_t *token, bool *workingset)
{
	uint32_t memcg_id, node;
	uint64_t max_seq, seq;

	unpack_shadow(shadow, &memcg_id, &node, token, workingset);
	*lvp = shadow_lruvec(mg, memcg_id, node);
	if (!*lvp)
		return false;

	/* (the S002 cache-line model is of [7.2]'s read, in every mode) */
	mglru_cl(mg, *lvp, CL_REFAULT, LGF_MAX_SEQ, 0, false);
	seq = *token >> LRU_REFS_WIDTH;
	if (mg->caps.recent_at_min_seq)
		return seq == ((*lvp)->lrugen.min_seq[type] & (EVICTION_MASK >> LRU_REFS_WIDTH));
	max_seq = (*lvp)->lrugen.max_seq & (EVICTION_MASK >> LRU_REFS_WIDTH);
	return (max_seq > seq ? max_seq - seq : seq - max_seq) < MAX_NR_GENS;
}

/*
 * mm/workingset.c:lru_gen_refault() [7.2] Mode A: a refault in the folio's own lruvec
 * counts workingset_refault; a recent one counts refaulted[] of the current min_seq's
 * history slot and restores PG_workingset (counting activate only in a fault, where
 * folio_add_lru() will set PG_active) or else the counter.
 * S003 (ra_placement): modes B/C count workingset_activate for every recent in-fault
 * refault, workingset or not (model counter ra_activate_inactive: such a folio whose
 * placement by rule 1 is an inactive generation, R4).
 */
void lru_gen_refault(struct mglru *mg, uint32_t page, uint64_t shadow, unsigned ctx)
{
	struct mr_folio *f = &mg->m->folios[page];
	int type = folio_is_file_lru(f);
	bool recent, workingset;
	struct lruvec *lv;
	uint64_t token;
	unsigned hist;
	int refs, tier;

	if (!(shadow & 1)) /* not a shadow entry */
		return;

	recent = lru_gen_test_recent(mg, shadow, type, &lv, &token, &workingset);
	if (lv != folio_lruvec(mg, page))
		return;

	mglru_count(mg, lv, MR_VM_WORKINGSET_REFAULT_ANON + type, 1);
	if (mg->last_seen && type && folio_test(f, MR_PG_EXEC))
		mg->stat.refault_exec_file++;

	if (!recent)
		return;

	hist = lru_hist_from_seq(mg, lv->lrugen.min_seq[type]);
	/* the token keeps refs - 1; [6.12] (mm/workingset.c:302) the counter, to which
	 * the shadow's bit adds PG_workingset back (caps.tier_refs_workingset) */
	refs = (int)(token & LRU_REFS_MAX) + (mg->caps.tier_refs_workingset ? workingset : 1);
	tier = lru_tier_from_refs(mg, refs, workingset);
	lv->lrugen.refaulted[hist][type][tier] += 1;

	if (mg->caps.refault_stalls) {
		/* [6.12] mm/workingset.c:305-318: activate always counted; "count the
		 * following two cases as stalls" (in a fault: hotter pages pushed out hot
		 * ones; refs >= 3: sort_folio() would have protected it): PG_workingset
		 * and a full counter. (No S002 cache-line model on this path.) */
		mglru_count(mg, lv, MR_VM_WORKINGSET_ACTIVATE_ANON + type, 1);
		if ((ctx & MR_ADD_IN_FAULT) || refs >= (int)LRU_REFS_MAX) {
			lgp(mg, page)->refs = LRU_REFS_MAX;
			f->flags |= MR_PG_WORKINGSET;
			mglru_count(mg, lv, MR_VM_WORKINGSET_RESTORE_ANON + type, 1);
		}
		return;
	}
	if (mg->cl) {
		mglru_cl(mg, lv, CL_REFAULT, LGF_MIN_SEQ, (unsigned)type, false);
		mglru_cl(mg, lv, CL_REFAULT, LGF_REFAULTED,
			 (unsigned)(type * MAX_NR_TIERS + tier), true);
	}

	if (mg->ra_placement != RA_PLACEMENT_A && (ctx & MR_ADD_IN_FAULT)) {
		/* folio_add_lru() will set PG_active: rule 1 gives d = 2 - ws (+ 1 in B) */
		mglru_count(mg, lv, MR_VM_WORKINGSET_ACTIVATE_ANON + type, 1);
		if (!workingset)
			mg->stat.acted_ra_placement++; /* A counts it for workingset only */
		if (mg->ra_placement == RA_PLACEMENT_B && type && !workingset)
			mg->stat.ra_activate_inactive++;
	}

	if (workingset) {
		/* see folio_add_lru(), where PG_active is set for workingset folios */
		if (mg->ra_placement == RA_PLACEMENT_A && (ctx & MR_ADD_IN_FAULT))
			mglru_count(mg, lv, MR_VM_WORKINGSET_ACTIVATE_ANON + type, 1);
		f->flags |= MR_PG_WORKINGSET;
		mglru_count(mg, lv, MR_VM_WORKINGSET_RESTORE_ANON + type, 1);
	} else {
		/* without PG_referenced the counter is ignored by folio_lru_refs() */
		lgp(mg, page)->refs = (uint8_t)(refs - 1);
	}
}

/* ---- policy hooks ---- */

static void mglru_fini(struct mr_policy *p);

static int mglru_init(struct mr_policy *p, struct mr_error *err)
{
	struct mglru *mg = mglru_of(p);
	struct mr_machine *m = p->m;
	const struct mglru_params *prm = p->params;
	uint64_t *pages_of;
	size_t per_lv, i;

	memset(mg, 0, sizeof(*mg));
	mg->p = p;
	mg->m = m;
	m->pte_window = 1; /* look-around reads MIN_LRU_BATCH PTEs around a victim's */
	mg->pages = p->pages;
	mg->page_stride = p->page_stride;

	if (!(prm->enabled & (1 << LRU_GEN_CORE)))
		return mr_error_set(err, MR_EINVAL,
				    "mglru: enabled=%lld lacks the core cap 0x1; for the classic "
				    "active/inactive LRU use the policy 'lru'",
				    (long long)prm->enabled);
	if (!m->nr_nodes || !m->nr_memcgs || m->nr_lruvecs != m->nr_nodes * m->nr_memcgs)
		return mr_error_set(err, MR_EINVAL,
				    "mglru: the machine needs nr_lruvecs = nr_memcgs x nr_nodes "
				    "(has %u lruvecs, %u memcgs, %u nodes)",
				    m->nr_lruvecs, m->nr_memcgs, m->nr_nodes);
	if (m->nr_memcgs > (1u << MEM_CGROUP_ID_SHIFT) || m->nr_nodes > (1u << NODES_SHIFT))
		return mr_error_set(err, MR_ERANGE,
				    "mglru: shadow entries hold %u memcgs and %u nodes at most "
				    "(the machine has %u and %u)",
				    1u << MEM_CGROUP_ID_SHIFT, 1u << NODES_SHIFT, m->nr_memcgs,
				    m->nr_nodes);

	mg->swappiness = (int)prm->swappiness;
	mg->min_ttl_ns = (uint64_t)prm->min_ttl_ms * 1000000u;
	mg->lru_gen_caps = (unsigned)prm->enabled;
	mg->nr_hist_gens = prm->lru_gen_stats ? MAX_NR_HIST_GENS : 1;
	mg->inc_min_seq_mode = (int)prm->inc_min_seq;
	mg->ra_placement = (int)prm->ra_placement;
	mg->exec_promote = (int)prm->exec_promote;
	mg->pud_filter = prm->pud_filter != 0;
	mg->caps = kernel_caps[prm->kernel];
	/* S000 patches [7.2]'s inc_min_seq(); a kernel whose inc_min_seq() counts nothing
	 * has its own loop, which the toggle leaves alone */
	if (mg->caps.inc_min_seq_uncounted)
		mg->inc_min_seq_mode = INC_MIN_SEQ_BASE;
	lru_gen_init_shrink_hooks(mg);
	mg->nr_mm_stats = mg->pud_filter ? NR_MM_STATS_S001 : NR_MM_STATS;
	if (prm->probes) {
		mg->last_seen = calloc(m->nr_pages ? m->nr_pages : 1, sizeof(uint64_t));
		mg->last_evicted = malloc((size_t)m->nr_lruvecs * ANON_AND_FILE * sizeof(uint64_t));
		if (!mg->last_seen || !mg->last_evicted) {
			free(mg->last_seen);
			free(mg->last_evicted);
			mg->last_seen = mg->last_evicted = NULL;
			return mr_error_set(err, MR_ENOMEM, "mglru: out of memory for the probe");
		}
		for (i = 0; i < (size_t)m->nr_lruvecs * ANON_AND_FILE; i++)
			mg->last_evicted[i] = UINT64_MAX;
	}
	if (prm->cacheline_model &&
	    mglru_cl_init(mg, (int)prm->stats_layout, (unsigned)prm->lrugen_base)) {
		free(mg->last_seen);
		free(mg->last_evicted);
		mg->last_seen = mg->last_evicted = NULL;
		return mr_error_set(err, MR_ENOMEM, "mglru: out of memory for the cache-line model");
	}

	mg->mm_words = (m->nr_mms + 63) / 64;
	/* per lruvec: PMD filters, walked[], then (S001) PUD filters */
	per_lv = (size_t)NR_BLOOM_FILTERS * BLOOM_FILTER_WORDS * (mg->pud_filter ? 2 : 1) +
		 mg->mm_words;
	mg->per_lv = per_lv;
	mg->lruvecs = calloc(m->nr_lruvecs, sizeof(*mg->lruvecs));
	mg->arena = calloc((size_t)m->nr_lruvecs * per_lv, sizeof(uint64_t));
	if (!mg->lruvecs || !mg->arena) {
		mglru_cl_fini(mg);
		free(mg->lruvecs);
		free(mg->arena);
		mg->lruvecs = NULL;
		mg->arena = NULL;
		return mr_error_set(err, MR_ENOMEM, "mglru: out of memory for %u lruvecs",
				    m->nr_lruvecs);
	}

	/* Rings: the largest a list of the lruvec can need, reserved untouched (ring.h). */
	pages_of = calloc(m->nr_lruvecs, sizeof(*pages_of));
	if (!pages_of)
		goto nomem;
	mr_lruvec_pages(m, pages_of);
	/* mm/vmscan.c:lru_gen_init_lruvec() */
	for (i = 0; i < m->nr_lruvecs; i++) {
		struct lruvec *lv = &mg->lruvecs[i];
		struct lru_gen_folio *lrugen = &lv->lrugen;
		int gen, type, zone;

		lv->id = (uint32_t)i;
		lv->memcg = (uint32_t)i / m->nr_nodes;
		lv->node = (uint32_t)i % m->nr_nodes;
		lrugen->max_seq = MIN_NR_GENS + 1;
		lrugen->enabled = true;
		for (gen = 0; gen < MAX_NR_GENS; gen++)
			lrugen->timestamps[gen] = m->now_ns;
		for (gen = 0; gen < MAX_NR_GENS; gen++)
			for (type = 0; type < ANON_AND_FILE; type++)
				for (zone = 0; zone < MAX_NR_ZONES; zone++)
					if (ring_init(&lrugen->folios[gen][type][zone],
						      ring_reserve(pages_of[i])))
						goto nomem;
		lv->mm_state.seq = MIN_NR_GENS;
		lv->mm_state.head = MM_LIST_FIFO;
		lv->mm_state.walked = mg->arena + i * per_lv + NR_BLOOM_FILTERS * BLOOM_FILTER_WORDS;
	}
	free(pages_of);
	return 0;
nomem:
	free(pages_of);
	mglru_fini(p);
	return mr_error_set(err, MR_ENOMEM, "mglru: out of memory for the lists of %u lruvecs",
			    m->nr_lruvecs);
}

static void mglru_fini(struct mr_policy *p)
{
	struct mglru *mg = mglru_of(p);

	for (uint32_t i = 0; mg->lruvecs && i < mg->m->nr_lruvecs; i++)
		for (int gen = 0; gen < MAX_NR_GENS; gen++)
			for (int type = 0; type < ANON_AND_FILE; type++)
				for (int zone = 0; zone < MAX_NR_ZONES; zone++)
					ring_fini(&mg->lruvecs[i].lrugen.folios[gen][type][zone]);
	free(mg->lruvecs);
	free(mg->arena);
	free(mg->last_seen);
	free(mg->last_evicted);
	mg->lruvecs = NULL;
	mg->arena = NULL;
	mg->last_seen = mg->last_evicted = NULL;
	mglru_cl_fini(mg);
}

static void mglru_folio_add(struct mr_policy *p, uint32_t page, unsigned ctx)
{
	mglru_seen(mglru_of(p), page); /* probes: a fault or an insertion */
	folio_add_lru(mglru_of(p), page, ctx);
}

static void mglru_mark_accessed(struct mr_policy *p, uint32_t page)
{
	folio_mark_accessed(mglru_of(p), page);
}

/*
 * A folio leaves memory without reclaim (munmap, truncate, exit): off its list, and the
 * page flags the kernel clears when freeing it (PAGE_FLAGS_CHECK_AT_PREP).
 */
static void mglru_folio_del(struct mr_policy *p, uint32_t page)
{
	struct mglru *mg = mglru_of(p);
	struct mr_folio *f = &mg->m->folios[page];

	if (folio_test(f, MR_PG_LRU)) {
		f->flags &= ~MR_PG_LRU;
		lruvec_del_folio(mg, folio_lruvec(mg, page), page);
	}
	f->flags &= ~(MR_PG_ACTIVE | MR_PG_REFERENCED | MR_PG_WORKINGSET | MR_PG_RECLAIM);
	lgp(mg, page)->refs = 0;
}

static void mglru_refault(struct mr_policy *p, uint32_t page, uint64_t shadow, unsigned ctx)
{
	lru_gen_refault(mglru_of(p), page, shadow, ctx);
}

static void mglru_rotate(struct mr_policy *p, uint32_t page)
{
	folio_rotate_reclaimable(mglru_of(p), page);
}

static const char *const mm_stat_names[NR_MM_STATS_S001] = {
	"mglru_walk_leaf_total", "mglru_walk_leaf_young", "mglru_walk_nonleaf_found",
	"mglru_walk_nonleaf_added",
	/* S001 (pud_filter=1 only) */
	"mglru_walk_leaf_associated", "mglru_walk_total", "mglru_walk_empty",
	"mglru_walk_leaf_empty_walks", "mglru_walk_pud_empty_skipped",
};

static void mglru_model_counters(struct mr_policy *p,
				 void (*emit)(void *arg, const char *name, double value), void *arg)
{
	const struct mglru *mg = mglru_of(p);
	const struct mglru_counters *s = &mg->stat;
	int i;

	emit(arg, "mglru_aging_tries", (double)s->aging_tries);
	emit(arg, "mglru_aging_passes", (double)s->aging_passes);
	emit(arg, "mglru_aging_nowalk", (double)s->aging_nowalk);
	emit(arg, "mglru_walk_mms", (double)s->walk_mms);
	for (i = 0; i < (int)mg->nr_mm_stats; i++)
		emit(arg, mm_stat_names[i], (double)s->walk_stats[i]);
	emit(arg, "mglru_walk_pmd_old", (double)s->walk_pmd_old);
	emit(arg, "mglru_walk_bloom_miss", (double)s->walk_bloom_miss);
	emit(arg, "mglru_walk_promoted", (double)s->walk_promoted);
	emit(arg, "mglru_inc_min_seq_moved", (double)s->inc_min_seq_moved);
	emit(arg, "mglru_inc_min_seq_restarts", (double)s->inc_min_seq_restarts);
	emit(arg, "mglru_inc_min_seq_inversions", (double)s->inc_min_seq_inversions);
	emit(arg, "mglru_aging_cost", (double)s->aging_cost);
	emit(arg, "mglru_aging_cost_per_pass",
	     s->aging_passes ? (double)s->aging_cost / (double)s->aging_passes : 0.0);
	emit(arg, "mglru_look_around", (double)s->look_around);
	emit(arg, "mglru_look_around_young", (double)s->look_around_young);
	emit(arg, "mglru_look_around_bloom", (double)s->look_around_bloom);
	emit(arg, "mglru_evict_calls", (double)s->evict_calls);
	emit(arg, "mglru_sorted_promoted", (double)s->sorted_promoted);
	emit(arg, "mglru_sorted_protected", (double)s->sorted_protected);
	emit(arg, "mglru_rejected", (double)s->rejected);
	emit(arg, "mglru_min_ttl_oom", (double)s->min_ttl_oom);
	emit(arg, "mglru_inc_min_seq_list_ops", (double)s->inc_min_seq_list_ops);
	emit(arg, "mglru_inc_min_seq_size_updates", (double)s->inc_min_seq_size_updates);
	emit(arg, "mglru_ra_active_inactive", (double)s->ra_active_inactive);
	emit(arg, "mglru_ra_rejected_min_seq", (double)s->ra_rejected_min_seq);
	emit(arg, "mglru_ra_activate_inactive", (double)s->ra_activate_inactive);
	emit(arg, "mglru_evict_stalls", (double)s->evict_stalls);
	emit(arg, "mglru_evict_inversions", (double)s->evict_inversions);
	emit(arg, "mglru_evict_pairs", (double)s->evict_pairs);
	emit(arg, "mglru_refault_exec_file", (double)s->refault_exec_file);
	emit(arg, "mglru_exec_first_promoted", (double)s->exec_first_promoted);
	emit(arg, "mglru_exec_first_activated", (double)s->exec_first_activated);
	mglru_cl_counters(mg, emit, arg); /* S002, cacheline_model=1 only */
	/* how often each seed toggle that is on acted (mglru_idle_params()) */
	if (((const struct mglru_params *)p->params)->inc_min_seq != INC_MIN_SEQ_BASE)
		emit(arg, "mglru_toggle_acted_inc_min_seq", (double)s->acted_inc_min_seq);
	if (mg->pud_filter)
		emit(arg, "mglru_toggle_acted_pud_filter", (double)s->acted_pud_filter);
	if (mg->ra_placement != RA_PLACEMENT_A)
		emit(arg, "mglru_toggle_acted_ra_placement", (double)s->acted_ra_placement);
	if (mg->exec_promote != EXEC_PROMOTE_OFF)
		emit(arg, "mglru_toggle_acted_exec_promote", (double)s->acted_exec_promote);
}

/*
 * The seed toggles that are on but never acted (their acted_* counter is 0, so every
 * decision was the default's and the run reclaims as without them), each with why its
 * code path never ran, from the counters the run kept.
 */
static void mglru_idle_params(struct mr_policy *p,
			      void (*idle)(void *arg, const char *param, const char *why), void *arg)
{
	const struct mglru *mg = mglru_of(p);
	const struct mglru_params *prm = p->params;
	const struct mglru_counters *s = &mg->stat;
	char why[200];

	if (prm->inc_min_seq != INC_MIN_SEQ_BASE && !s->acted_inc_min_seq) {
		if (mg->inc_min_seq_mode == INC_MIN_SEQ_BASE)
			snprintf(why, sizeof(why), "kernel=%s has its own inc_min_seq(), which S000 does not patch",
				 kernel_names[prm->kernel]);
		else if (!s->aging_passes)
			snprintf(why, sizeof(why), "no aging pass ran at this size");
		else
			snprintf(why, sizeof(why), "inc_min_seq() moved no folio in %llu aging passes (the oldest generation was empty whenever it was retired)",
				 (unsigned long long)s->aging_passes);
		idle(arg, "inc_min_seq=v3", why);
	}
	if (prm->pud_filter && !s->acted_pud_filter) {
		if (!s->aging_passes)
			snprintf(why, sizeof(why), "no aging pass ran at this size");
		else if (!s->walk_mms)
			snprintf(why, sizeof(why), "no page-table walk ran (%llu aging passes, none walked)",
				 (unsigned long long)s->aging_passes);
		else
			snprintf(why, sizeof(why), "the PUD-level filter skipped no PUD in %llu page-table walks",
				 (unsigned long long)s->walk_mms);
		idle(arg, "pud_filter=1", why);
	}
	if (prm->ra_placement != RA_PLACEMENT_A && !s->acted_ra_placement) {
		if (mg->caps.fault_activates && mg->caps.add_from_min_seq && mg->caps.refault_stalls &&
		    mg->caps.classic_check_references)
			snprintf(why, sizeof(why), "kernel=%s has none of the code S003 changes",
				 kernel_names[prm->kernel]);
		else if (!s->in_fault_adds)
			snprintf(why, sizeof(why), "no folio was added in a page fault");
		else
			snprintf(why, sizeof(why), "no placement, refault or rmap sighting differed from mode A (%llu folios added in a fault, all workingset)",
				 (unsigned long long)s->in_fault_adds);
		idle(arg, prm->ra_placement == RA_PLACEMENT_B ? "ra_placement=B" : "ra_placement=C", why);
	}
	if (prm->exec_promote != EXEC_PROMOTE_OFF && !s->acted_exec_promote) {
		if (mg->caps.promote_first_sighting && mg->caps.classic_check_references)
			snprintf(why, sizeof(why), "kernel=%s promotes every folio found young on its first sighting already",
				 kernel_names[prm->kernel]);
		else if (!s->exec_file_adds)
			snprintf(why, sizeof(why), "the trace has no file page with a VM_EXEC mapping");
		else if (!s->aging_passes && !s->evict_calls)
			snprintf(why, sizeof(why), "no aging pass and no reclaim ran at this size");
		else
			snprintf(why, sizeof(why), "no exec-mapped file folio was found young on its first sighting (%llu aging passes, %llu evict_folios() calls)",
				 (unsigned long long)s->aging_passes, (unsigned long long)s->evict_calls);
		idle(arg, prm->exec_promote == EXEC_PROMOTE_ALT ? "exec_promote=alt" : "exec_promote=1", why);
	}
	/* S002 changes no decision; without the cache-line model it changes nothing */
	if (!prm->cacheline_model && prm->stats_layout != STATS_LAYOUT_BEFORE)
		idle(arg, "stats_layout=after", "the cache-line model is off (cacheline_model=0: add cacheline_model=1 for the layout's cache-line counters), and the layout changes no decision");
	else if (!prm->cacheline_model && prm->lrugen_base != 8) {
		char param[32];

		snprintf(param, sizeof(param), "lrugen_base=%lld", (long long)prm->lrugen_base);
		idle(arg, param, "the cache-line model is off (cacheline_model=0: add cacheline_model=1 for its cache-line counters), and the offset changes no decision");
	}
}

/* ---- invariant checker ---- */

/* Is gen (0..3) the generation of some seq in [min_seq[type], max_seq]? */
static bool gen_in_range(const struct lruvec *lv, int type, unsigned gen)
{
	uint64_t d = (gen + MAX_NR_GENS - lv->lrugen.min_seq[type] % MAX_NR_GENS) % MAX_NR_GENS;

	return (int64_t)d < get_nr_gens(lv, type);
}

#define CHECK_LRU(cond) MR_CHECK_COUNT(problems, cond)

/*
 * The invariants of the lists and their accounting, checked from scratch: every folio
 * with PG_lru is on exactly one list (a gen list of its lruvec and type, or the
 * unevictable list); links are consistent; non-empty lists belong to generations in
 * [min_seq, max_seq]; nr_pages[gen] counts the folios whose gen field is gen; the
 * active/inactive and unevictable sizes agree; with caps.min_seq_coupled, anon's min_seq
 * is not past file's. Run between events (the walk batch must be flushed). Returns the
 * number of problems, each reported to stderr.
 *
 * Gen fields and non-empty lists lie in [min_seq, max_seq] -- except, in the kernel as
 * here, after inc_min_seq() advanced a type past a non-empty oldest generation without
 * moving it (anon at swappiness 0, file at 201; lruvec->inverted): a folio the walk
 * lazily promoted and left on that list keeps a gen field that try_to_inc_min_seq() can
 * pass later, and sort_folio() / inc_min_seq() then move it to the list of a generation
 * outside the range, which counts again when max_seq wraps around to it (the "cold/hot
 * inversion" of inc_max_seq()). Those range checks are off for such a type.
 */
unsigned mglru_check(struct mr_policy *p)
{
	struct mglru *mg = mglru_of(p);
	struct mr_machine *m = mg->m;
	unsigned problems = 0;
	uint32_t i, page;

	CHECK_LRU(mg->walk.batched == 0);

	for (i = 0; i < m->nr_lruvecs; i++) {
		struct lruvec *lv = &mg->lruvecs[i];
		struct lru_gen_folio *lrugen = &lv->lrugen;
		int64_t counted[MAX_NR_GENS][ANON_AND_FILE] = { { 0 } };
		int64_t active[ANON_AND_FILE] = { 0 }, inactive[ANON_AND_FILE] = { 0 };
		unsigned gen;
		int type;

		for (type = 0; type < ANON_AND_FILE; type++) {
			CHECK_LRU(get_nr_gens(lv, type) >= MIN_NR_GENS &&
				  get_nr_gens(lv, type) <= MAX_NR_GENS);
		}
		CHECK_LRU(lv->mm_state.seq + 1 >= lrugen->max_seq);
		/* [6.12] seq_is_valid(): anon never passes file, which makes its
		 * min_seq[!can_swap] evictable_min_seq() (caps.min_seq_coupled) */
		if (mg->caps.min_seq_coupled)
			CHECK_LRU(lrugen->min_seq[LRU_GEN_ANON] <= lrugen->min_seq[LRU_GEN_FILE]);

		for (gen = 0; gen < MAX_NR_GENS; gen++) {
			for (type = 0; type < ANON_AND_FILE; type++) {
				const struct ring *l = &lrugen->folios[gen][type][0];
				/* ends live, slots pointing back, ids in range */
				unsigned bad = ring_check(l, lru_gen_slots(mg), m->nr_pages);

				problems += bad;
				if (l->n && !lv->inverted[type])
					CHECK_LRU(gen_in_range(lv, type, gen));
				for (uint32_t k = l->n; !bad && k-- > 0;) { /* head to tail */
					struct lru_gen_page *pg;
					const struct mr_folio *f;

					page = ring_at(l, k);
					if (page == MR_NONE)
						continue;
					pg = lgp(mg, page);
					f = &m->folios[page];
					CHECK_LRU(pg->list == gen + 1);
					CHECK_LRU(pg->pad == 0); /* on one list only */
					pg->pad = 1;
					CHECK_LRU(f->lruvec == lv->id);
					CHECK_LRU(folio_is_file_lru(f) == type);
					CHECK_LRU(folio_test(f, MR_PG_LRU));
					CHECK_LRU(!folio_test(f, MR_PG_ACTIVE));
					CHECK_LRU(pg->gen >= 1 && pg->gen <= MAX_NR_GENS);
					if (pg->gen >= 1 && pg->gen <= MAX_NR_GENS) {
						if (!lv->inverted[type])
							CHECK_LRU(gen_in_range(lv, type, pg->gen - 1u));
						counted[pg->gen - 1][type]++;
					}
					CHECK_LRU(pg->refs <= LRU_REFS_MAX);
				}
			}
		}
		for (gen = 0; gen < MAX_NR_GENS; gen++) {
			for (type = 0; type < ANON_AND_FILE; type++) {
				CHECK_LRU(lrugen->nr_pages[gen][type][0] == counted[gen][type]);
				if (lru_gen_is_active(lv, gen))
					active[type] += lrugen->nr_pages[gen][type][0];
				else
					inactive[type] += lrugen->nr_pages[gen][type][0];
			}
		}
		{
			const uint64_t *st = &m->lruvec_stat[(size_t)lv->id * MR_NR_VMSTAT];

			CHECK_LRU((int64_t)st[MR_VM_NR_ACTIVE_ANON] == active[LRU_GEN_ANON]);
			CHECK_LRU((int64_t)st[MR_VM_NR_INACTIVE_ANON] == inactive[LRU_GEN_ANON]);
			CHECK_LRU((int64_t)st[MR_VM_NR_ACTIVE_FILE] == active[LRU_GEN_FILE]);
			CHECK_LRU((int64_t)st[MR_VM_NR_INACTIVE_FILE] == inactive[LRU_GEN_FILE]);
		}
	}

	{
		/* the checker is not on the per-event path: it may allocate */
		uint64_t *unevictable = calloc(m->nr_lruvecs, sizeof(uint64_t));

		for (page = 0; page < m->nr_pages; page++) {
			struct lru_gen_page *pg = lgp(mg, page);
			const struct mr_folio *f = &m->folios[page];
			bool on_gen_list = pg->pad;

			if (on_gen_list) /* a frame never used is not written: it stays unbacked */
				pg->pad = 0;
			if (pg->list == LRU_GEN_LIST_UNEVICTABLE) {
				CHECK_LRU(folio_test(f, MR_PG_LRU));
				CHECK_LRU(pg->gen == 0);
				if (unevictable && f->lruvec < m->nr_lruvecs)
					unevictable[f->lruvec]++;
				continue;
			}
			if (folio_test(f, MR_PG_LRU))
				CHECK_LRU(on_gen_list);
			else
				CHECK_LRU(!on_gen_list && pg->gen == 0 && pg->list == 0);
		}
		for (i = 0; unevictable && i < m->nr_lruvecs; i++)
			CHECK_LRU(m->lruvec_stat[(size_t)i * MR_NR_VMSTAT + MR_VM_NR_UNEVICTABLE] ==
				  unevictable[i]);
		free(unevictable);
	}
	return problems;
}

static unsigned mglru_check_hook(struct mr_policy *p)
{
	return mglru_check(p);
}

/* ---- the ops table ---- */

const struct mr_policy_ops mr_mglru_ops = {
	.abi = MR_POLICY_ABI,
	.name = "mglru",
	.help = "Multi-Gen LRU as in the [7.2] kernel (docs/mglru-model.md, Mode A): generations, "
		"tiers, aging page-table walk with PMD Bloom filters, look-around, "
		"PID-controlled eviction, refault shadows",
	.params = mglru_param_table,
	.nparams = ARRAY_SIZE(mglru_param_table),
	.params_size = sizeof(struct mglru_params),
	.priv_size = sizeof(struct mglru),
	.page_priv_size = sizeof(struct lru_gen_page),
	.init = mglru_init,
	.fini = mglru_fini,
	.folio_add = mglru_folio_add,
	.mark_accessed = mglru_mark_accessed,
	.folio_del = mglru_folio_del,
	.refault = mglru_refault,
	.rotate = mglru_rotate,
	.shrink_lruvec = lru_gen_shrink_lruvec,
	.lru_gen_command = lru_gen_command,
	.lru_gen_show = lru_gen_show,
	.model_counters = mglru_model_counters,
	.check = mglru_check_hook,
	.idle_params = mglru_idle_params,
};

_Static_assert(sizeof(struct lru_gen_page) == 8, "per-page state must stay 8 bytes");
_Static_assert(offsetof(struct lru_gen_page, slot) == 0, "ring_slots: the slot comes first");
