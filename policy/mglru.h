/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mglru.h - private to policy/ (and tests/test_mglru.c): the state of the Multi-Gen LRU
 * model and the functions of mglru*.c, named as in the kernel so that the model can be
 * read beside mm/vmscan.c, mm/workingset.c, mm/swap.c and include/linux/mm_inline.h.
 *
 * The model is the [7.2] tree (the tree the seed patches apply to; docs/mglru-model.md,
 * "Version tags"), in-fault placement Mode A (6cbdd9726fb5). docs/mglru-model.md says
 * what is modelled, where it differs from the kernel and why, and lists the kernel
 * function each function here follows ("Function reference").
 *
 * Files:
 *   mglru.c          ops table, parameters, lists, insertion (lru_gen_add_folio), fd
 *                    accesses (lru_gen_inc_refs), refault detection (workingset.c),
 *                    model counters, invariant checker
 *   mglru_aging.c    Bloom filters, mm list, page table walk, look-around,
 *                    inc_min_seq / inc_max_seq
 *   mglru_evict.c    PID controller, sort/isolate/scan/evict, reclaim loop, min_ttl
 *   mglru_debugfs.c  /sys/kernel/debug/lru_gen read format and write commands
 *   mglru_cacheline.c  S002: struct lru_gen_folio layout and cache-line model
 *
 * Kernel objects and their model:
 *   struct folio        struct mr_folio (engine) + struct lru_gen_page (ours, per page)
 *   struct lruvec       struct lruvec below, one per (memcg, node), m->nr_lruvecs of them
 *   struct list_head    struct ring (ring.h): page ids from tail to head with holes, each
 *                       folio's slot in lru_gen_page; list_add = ring_add_head()
 *   mm_walk / reclaim_state->mm_walk   struct lru_gen_mm_walk, one per machine
 *   jiffies             m->now_ns (trace time, ns); timestamps are in ns
 *
 * Seed toggles (struct mglru_params, docs/seeds.md); the defaults are [7.2]:
 *   S000  inc_min_seq=base|v3        -> inc_min_seq(), inc_min_seq_v3(), __folio_inc_gen()
 *   S003  ra_placement=A|B|C         -> folio_add_lru(), lru_gen_folio_seq(),
 *                                       lru_gen_set_refs(), lru_gen_refault()
 *   S004  exec_promote=0|1|alt       -> folio_update_gen(), lru_gen_set_refs()
 *   S001  pud_filter=1               -> walk_pud_range() (pud_step, pud_done), the
 *                                       bloom helpers, lru_gen_look_around(), walk_mm()
 *   S002  stats_layout=before|after, lrugen_base, cacheline_model=1 -> mglru_cacheline.c
 *                                       (no behaviour: a cache-line model of struct
 *                                       lru_gen_folio fed by mglru_cl() on the hot paths)
 *
 * kernel=7.2|6.12|6.12.95 is a row of MGLRU_KERNELS: the behaviour bits (struct
 * mglru_caps, mg->caps) that the functions read where an older kernel differs.
 */
#ifndef MR_POLICY_MGLRU_H
#define MR_POLICY_MGLRU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mr_policy.h"
#include "ring.h"
#include "vmscan.h"

/* ---- constants (include/linux/mmzone.h, mm/vmscan.c) ---- */

#define MIN_NR_GENS 2
#define MAX_NR_GENS 4
#define MAX_NR_TIERS 4
#define LRU_REFS_WIDTH 2 /* MAX_NR_TIERS - 2 */
#define LRU_REFS_MAX ((1u << LRU_REFS_WIDTH) - 1) /* LRU_REFS_MASK, as a counter */
/* one zone per node (docs/mglru-model.md, "Deliberate differences" 2) */
#define MAX_NR_ZONES 1
#define ANON_AND_FILE 2
#define LRU_GEN_ANON 0
#define LRU_GEN_FILE 1
#define MAX_NR_HIST_GENS 4 /* NR_HIST_GENS with CONFIG_LRU_GEN_STATS */
#define MIN_LRU_BATCH 64   /* BITS_PER_LONG */
#define MAX_LRU_BATCH (MIN_LRU_BATCH * 64)
#define MIN_SWAPPINESS 0
#define MAX_SWAPPINESS 200
#define SWAPPINESS_ANON_ONLY 201
#define DEF_PRIORITY MR_DEF_PRIORITY

/* lru_gen_caps (the bits of /sys/kernel/mm/lru_gen/enabled) */
enum {
	LRU_GEN_CORE,
	LRU_GEN_MM_WALK,
	LRU_GEN_NONLEAF_YOUNG,
	NR_LRU_GEN_CAPS
};

/* mm_state->stats[] and walk->mm_stats[]: the TYFA columns of lru_gen_full */
enum {
	MM_LEAF_TOTAL,    /* total leaf entries */
	MM_LEAF_YOUNG,    /* young leaf entries */
	MM_NONLEAF_FOUND, /* non-leaf entries found in Bloom filters */
	MM_NONLEAF_ADDED, /* non-leaf entries added to Bloom filters */
	NR_MM_STATS,
	/* S001 (pud_filter=1 only): the LWEES columns */
	MM_LEAF_ASSOCIATED = NR_MM_STATS, /* leaves whose folio passes get_pfn_folio() */
	MM_WALK_TOTAL,        /* walks (mms) with LEAF_TOTAL > 0 */
	MM_WALK_EMPTY,        /* such walks with LEAF_ASSOCIATED == 0 */
	MM_LEAF_EMPTY_WALKS,  /* LEAF_TOTAL of the empty walks */
	MM_PUD_EMPTY_SKIPPED, /* PUDs skipped by the PUD-level filter */
	NR_MM_STATS_S001
};

#define BLOOM_FILTER_SHIFT 15
#define NR_BLOOM_FILTERS 2
#define BLOOM_FILTER_WORDS ((1u << BLOOM_FILTER_SHIFT) / 64)
#define GOLDEN_RATIO_64 0x61C8864680B583EBull /* include/linux/hash.h */

/* Not on a gen list: lru_gen_page.list for folios on the unevictable list. */
#define LRU_GEN_LIST_UNEVICTABLE 0xffu

/* ---- per-page state (page_priv_size = 8 bytes) ---- */

/*
 * What the kernel keeps in folio->flags (LRU_GEN_MASK, LRU_REFS_MASK) and folio->lru.
 * PG_referenced / PG_workingset / PG_active / PG_reclaim / PG_lru are in mr_folio.flags.
 *
 * gen and list differ while a folio is lazily promoted: folio_update_gen() rewrites gen
 * and the folio stays on its old list until sort_folio() or inc_min_seq() moves it. The
 * kernel's circular lists need no head to unlink; ours do, so list says which one.
 */
struct lru_gen_page {
	uint32_t slot; /* in the ring of the list it is on (ring.h: first, for ring_slots) */
	uint8_t gen;   /* LRU_GEN_MASK: gen + 1 while on a gen list, 0 otherwise */
	uint8_t list;  /* gen + 1 of the list it is linked on; 0 = none;
			* LRU_GEN_LIST_UNEVICTABLE = the unevictable list */
	uint8_t refs;  /* LRU_REFS_MASK: fd access counter, 0..LRU_REFS_MAX */
	uint8_t pad;
};

/* ---- per-lruvec state ---- */

/*
 * include/linux/mmzone.h:struct lru_gen_folio. Counters are unsigned long in the kernel
 * (atomic_long_t for evicted/refaulted); nr_pages is long and can be transiently negative.
 * The list_heads folios[][][] are rings of page ids (ring.h): the same lists, read from
 * the tail without chasing links (the head is ring_head(), the tail ring_tail(); a list
 * is empty when n is 0).
 * S002 models the kernel's byte layout of this struct in mglru_cacheline.c (a cache-line
 * model); the model's own layout is irrelevant to behaviour.
 */
struct lru_gen_folio {
	uint64_t max_seq;
	uint64_t min_seq[ANON_AND_FILE];
	uint64_t timestamps[MAX_NR_GENS]; /* ns of trace time ("jiffies") */
	struct ring folios[MAX_NR_GENS][ANON_AND_FILE][MAX_NR_ZONES];
	int64_t nr_pages[MAX_NR_GENS][ANON_AND_FILE][MAX_NR_ZONES];
	uint64_t avg_refaulted[ANON_AND_FILE][MAX_NR_TIERS];
	uint64_t avg_total[ANON_AND_FILE][MAX_NR_TIERS];
	/* kernel=6.12: 6.12's protected[hist][type][tier - 1] is kept at [tier] (tier >= 1),
	 * and [0] stays 0, so read_ctrl_pos() / reset_ctrl_pos() serve both versions */
	uint64_t protected[MAX_NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	uint64_t evicted[MAX_NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	uint64_t refaulted[MAX_NR_HIST_GENS][ANON_AND_FILE][MAX_NR_TIERS];
	bool enabled;
};

/* A cursor position in the mm list that is not an mm (list_head of mm_list->fifo). */
#define MM_LIST_FIFO UINT32_MAX

/*
 * include/linux/mmzone.h:struct lru_gen_mm_state. The mm list of a memcg is the alive
 * mms of m->mms[] with that memcg, in index (creation) order. head is the index of the
 * mm the current iteration is at (MM_LIST_FIFO between iterations). The kernel's tail
 * ("where the last iteration ended before") marks mms added since; here walked[] marks
 * the mms an iteration has passed, and an mm not marked is one added since: reaching it
 * turns on force_scan for the rest of that walk, as reaching tail does.
 */
struct lru_gen_mm_state {
	uint64_t seq;
	uint32_t head;
	uint64_t *walked; /* bitmap over m->mms[] */
	uint64_t stats[MAX_NR_HIST_GENS][NR_MM_STATS_S001];
	uint64_t *filters[NR_BLOOM_FILTERS]; /* NULL until reset_bloom_filter() */
	uint64_t *pud_filters[NR_BLOOM_FILTERS]; /* S001: the PUD level, same rules */
};

struct lruvec {
	struct lru_gen_folio lrugen;
	struct lru_gen_mm_state mm_state;
	uint32_t id; /* memcg * nr_nodes + node */
	uint32_t memcg;
	uint32_t node;
	/* model only: inc_min_seq() advanced this type past a non-empty oldest generation
	 * without moving it (swappiness 0 / 201): gen fields may now name generations
	 * outside [min_seq, max_seq] (see mglru_check()) */
	bool inverted[ANON_AND_FILE];
};

/* ---- the walk (struct lru_gen_mm_walk), one per machine ---- */

/* What the current PTE table is doing in the walk (see walk_pmd_range). */
enum walk_pte_state { PTE_TABLE_NONE, PTE_TABLE_SCANNING, PTE_TABLE_SKIPPED };

struct lru_gen_mm_walk {
	struct lruvec *lruvec;
	uint64_t seq;
	int swappiness;
	bool force_scan;
	/* batched nr_pages deltas (update_batch_size / reset_batch_size) */
	int64_t nr_pages[MAX_NR_GENS][ANON_AND_FILE][MAX_NR_ZONES];
	uint64_t mm_stats[NR_MM_STATS_S001];
	int batched;
	/* S001: the PUD (addr >> 30) + 1 the walk is in (0 = none), whether it is being
	 * skipped, and whether walk_pmd_range() would return true for it */
	uint64_t cur_pud;
	bool cur_pud_skipped;
	bool cur_pud_marked;
	/* model state of walk_mm(): the engine calls back per (VMA, PUD) and (VMA, table) */
	uint32_t mm;
	uint64_t last_pmd;            /* highest PMD number (addr >> 21) visited, + 1 */
	uint64_t cur_pmd;             /* PMD number of the table in cur_state */
	enum walk_pte_state cur_state;
	int cur_total, cur_young;     /* walk_pte_range()'s total and young so far */
};

/* ---- parameters ---- */

/* Typed, bounded parameters (mglru_param_table in mglru.c). int64_t as the framework wants. */
struct mglru_params {
	int64_t swappiness;    /* vm.swappiness for reclaim, 0..201 */
	int64_t min_ttl_ms;    /* /sys/kernel/mm/lru_gen/min_ttl_ms */
	int64_t enabled;       /* /sys/kernel/mm/lru_gen/enabled caps */
	int64_t lru_gen_stats; /* CONFIG_LRU_GEN_STATS: NR_HIST_GENS = 4 */
	/* seed toggles (docs/seeds.md); the default of each is the [7.2] baseline */
	int64_t inc_min_seq;   /* S000: INC_MIN_SEQ_BASE / INC_MIN_SEQ_V3 */
	int64_t ra_placement;  /* S003: RA_PLACEMENT_A / _B / _C */
	int64_t exec_promote;  /* S004: EXEC_PROMOTE_OFF / _V3 / _ALT */
	/* model instrumentation: count cold/hot eviction inversions (docs/seeds.md) */
	int64_t probes;
	int64_t pud_filter;    /* S001: PUD-level Bloom filter and the LWEES stats */
	int64_t stats_layout;  /* S002: STATS_LAYOUT_BEFORE / _AFTER (cache model only) */
	int64_t lrugen_base;   /* S002: offset of lrugen modulo 64 (before layout) */
	int64_t cacheline_model; /* S002: run the cache-line model (off: no cost) */
	int64_t kernel;        /* KERNEL_*: the kernel version modelled */
};

/* S000: inc_min_seq() order (docs/seeds.md, "S000") */
enum { INC_MIN_SEQ_BASE, INC_MIN_SEQ_V3 };
/* S003: in-fault placement (docs/seeds.md, "S003 placement table"): A = [7.2]
 * 6cbdd9726fb5, B = the S003 fix, C = the plain revert ([6.14 ... 7.1]) */
enum { RA_PLACEMENT_A, RA_PLACEMENT_B, RA_PLACEMENT_C };
/* S004: mapped-exec file folios activated on first sighting (v3), or also given
 * PG_workingset by lru_gen_set_refs() (S004-alt) */
enum { EXEC_PROMOTE_OFF, EXEC_PROMOTE_V3, EXEC_PROMOTE_ALT };
/* S002: struct lru_gen_folio before / after "move lrugen atomic stats off the
 * read-mostly lines" (docs/seeds.md, "S002 layout") */
enum { STATS_LAYOUT_BEFORE, STATS_LAYOUT_AFTER };
/* ---- kernel=: the behaviour bits of the kernel modes ---- */

/*
 * What an older kernel does where it differs from the [7.2] tree the model follows, one
 * bit per behaviour. The functions that differ read the bit (mg->caps), as mm/vmscan.c
 * reads lru_gen_caps, instead of testing a kernel version; all clear is [7.2], and
 * MGLRU_KERNELS below says which bits each kernel= mode sets. Each bit names the kernel
 * function that has the behaviour and the change that took it out: a mainline commit,
 * or, for what only [6.12.95] has, the 6.12.114 backport. [6.12] is Debian's
 * linux-source-6.12 (6.12.117); [6.12.95] is 6.12.y before the 6.12.114 backports (its
 * lines are cited from 6.12.113). docs/mglru-model.md, "Behaviour bits", has the table.
 */
struct mglru_caps {
	/* in-fault placement before 6cbdd9726fb5 ([7.2] Mode A) */
	bool fault_activates;           /* mm/swap.c:folio_add_lru(): every folio added in a
					 * fault gets PG_active, not only a workingset one */

	/* "mm/mglru: rework workingset protection" (4d5d14a01e2c, v6.14) took out: */
	bool add_from_min_seq;          /* include/linux/mm_inline.h:lru_gen_add_folio():
					 * active -> max_seq; unswapped anon or PG_reclaim and
					 * dirty/writeback -> max_seq - 1; reclaiming or at most
					 * MIN_NR_GENS + 1 generations -> min_seq; else
					 * min_seq + 1 (not lru_gen_folio_seq()'s distances) */
	bool inc_refs_counter_last;     /* mm/swap.c:folio_inc_refs(): fd accesses set
					 * PG_referenced, then PG_workingset, then count
					 * LRU_REFS_MASK up (not the counter first) */
	bool tier_refs_workingset;      /* include/linux/mm_inline.h:folio_lru_refs() and
					 * lru_tier_from_refs(): refs = LRU_REFS_MASK +
					 * PG_workingset, tier order_base_2(refs + 1), every
					 * access counted at refs 4; mm/workingset.c:
					 * lru_gen_eviction() stores refs != 0 as the shadow's
					 * workingset bit, which lru_gen_refault() adds back */
	bool refs_flags_workingset;     /* include/linux/mmzone.h:LRU_REFS_FLAGS has
					 * PG_workingset: folio_inc_gen(), folio_update_gen(),
					 * isolate_folio() and evict_folios() clear it with
					 * PG_referenced */
	bool promote_first_sighting;    /* mm/vmscan.c:folio_update_gen(): the first young
					 * PTE promotes, and lru_gen_look_around() without a walk
					 * activates; get_pfn_folio() takes folios off the lists
					 * too: an isolated one gets PG_referenced "for
					 * shrink_folio_list()" */
	bool keep_mapped_referenced;    /* mm/vmscan.c:shrink_folio_list() keeps a mapped
					 * folio with PG_referenced ("folio_update_gen() tried
					 * to promote this page?") */
	bool classic_check_references;  /* mm/vmscan.c:folio_check_references(): no lru_gen
					 * branch (lru_gen_set_refs()): the classic rule */
	bool isolate_clears_referenced; /* mm/vmscan.c:isolate_folio() clears PG_referenced
					 * "for shrink_folio_list()" */
	bool sort_protects_to_tail;     /* mm/vmscan.c:sort_folio(): a protected folio goes
					 * to the tail of min_seq + 1 and counts in protected[]
					 * even with every access counted (not to the head,
					 * without counting the workingset being promoted) */
	bool reject_to_max_seq;         /* mm/vmscan.c:evict_folios(): a PG_reclaim folio
					 * still dirty or under writeback keeps its flags
					 * (PG_referenced back from PG_workingset); every other
					 * one not retried is put back PG_active with
					 * LRU_REFS_FLAGS cleared (not only one that would land
					 * in min_seq again), and PG_referenced ones are not
					 * retried */
	bool refault_stalls;            /* mm/workingset.c:lru_gen_refault(): a recent
					 * refault always counts workingset_activate, and "the
					 * following two cases" (in a fault, refs >= 3) get
					 * PG_workingset and a full LRU_REFS_MASK */

	/* "mm/mglru: rework refault detection" (b1a71694fb00, v6.14) took out: */
	bool recent_at_min_seq;         /* mm/workingset.c:lru_gen_test_recent(): recent iff
					 * evicted at the current min_seq of its type (not
					 * within MAX_NR_GENS of max_seq) */

	/* "mm/mglru: rework type selection" (37a260870f2c, v6.14) took out: */
	bool type_by_first_tier;        /* mm/vmscan.c:isolate_folios() makes "the obvious
					 * choice first", else get_type_to_scan() compares tier
					 * 0 of anon and file and also gives the tier index (not
					 * all tiers, and get_tier_idx() for every type) */
	bool low_tier_gains;            /* mm/vmscan.c:get_tier_idx(): gains 1:2, not 2:3 */

	/* "mm/mglru: rework aging feedback" (798c0330c2ca, v6.14) took out: */
	bool min_seq_coupled;           /* mm/vmscan.c:try_to_inc_min_seq(): anon min_seq
					 * may not pass file's, nor file fall behind anon's; so
					 * min_seq[!swappiness] is evictable_min_seq() */
	bool aging_by_distribution;     /* mm/vmscan.c:should_run_aging(): with MIN_NR_GENS
					 * + 1 generations, age when max_seq holds more than
					 * 1/MIN_NR_GENS of the pages or max_seq - MIN_NR_GENS
					 * less than 1/(MIN_NR_GENS + 2) (not when below
					 * DEF_PRIORITY) */
	bool inc_max_seq_file_first;    /* mm/vmscan.c:inc_max_seq() retires file, then anon */
	bool inc_min_seq_uncounted;     /* mm/vmscan.c:inc_min_seq() counts nothing in
					 * protected[]; S000 (inc_min_seq=v3), a patch to
					 * [7.2]'s, does not apply */

	/* "mm: use SWAPPINESS_ANON_ONLY in MGLRU" (v6.15) took out: */
	bool file_always_evictable;     /* no swappiness 'max': inc_min_seq(),
					 * try_to_inc_min_seq(), isolate_folios() and
					 * should_run_aging() evict file at any swappiness
					 * (201 is 200) */

	/* [7.2]'s eviction loop took out (after [7.0]; the changes are not identified): */
	bool min_seq_after_isolation;   /* mm/vmscan.c:isolate_folios() runs no
					 * try_to_inc_min_seq() before choosing a type; only
					 * evict_folios() does, after isolating */
	bool scan_max_batch;            /* mm/vmscan.c:scan_folios(): evict_folios() passes
					 * no nr_to_scan, every call may look at MAX_LRU_BATCH
					 * folios */
	bool scan_zero_unless_isolated; /* mm/vmscan.c:scan_folios() returns 0 unless it
					 * isolated something or used up its budget, and
					 * isolate_folios() tries the other type ([7.0] too) */
	bool nr_to_scan_per_batch;      /* mm/vmscan.c:try_to_shrink_lruvec(): get_nr_to_scan()
					 * before each evict_folios(); it ages (below
					 * DEF_PRIORITY), which ends the lruvec, and has nothing
					 * to scan without cold folios ([7.0] too) */
	bool isolate_swap_constrained;  /* mm/vmscan.c:isolate_folio(): without __GFP_IO,
					 * refuse unswapped anon and dirty swap-backed folios
					 * ([7.2] leaves them to shrink_folio_list()) */

	/* "mm: move pgscan, pgsteal, pgrefill to node stats" ([7.2]) took out: */
	bool reclaim_vm_events;         /* mm/vmscan.c:scan_folios(), evict_folios(): pgscan,
					 * pgsteal and pgrefill are vm events, counted as
					 * shrink_inactive_list() counts them; no pgrotate_* */

	/* 6.12.114 backports to 6.12.y (see [6.12.95]): */
	bool activate_clears_refs;      /* "mm/mglru: reset page lru tier bits when
					 * activating" (6.12.117 has it, [7.2] not since
					 * 4d5d14a01e2c): lru_gen_add_folio() clears
					 * LRU_REFS_MASK and PG_referenced of a PG_active folio,
					 * and lru_gen_look_around() calls folio_clear_lru_refs()
					 * before folio_activate() */
	bool sort_culls_unevictable;    /* mm/vmscan.c:sort_folio() moves an unevictable
					 * folio to its list (until "mm/mglru: fix and remove
					 * redundant unevictable folio handling") */
	bool sort_waits_writeback;      /* mm/vmscan.c:sort_folio()'s "waiting for
					 * writeback": a folio under writeback or a dirty file
					 * one to the head of min_seq + 1 with PG_reclaim (until
					 * "mm/mglru: use the common routine for dirty/writeback
					 * reactivation") */
	bool isolate_clears_reclaim;    /* mm/vmscan.c:isolate_folio() clears PG_reclaim
					 * "for shrink_folio_list()" (until the same backport) */
	bool isolate_refuses_dirty_file; /* mm/vmscan.c:isolate_folio(): the swap constrained
					  * refusal is of every dirty folio (narrowed to
					  * swap-backed ones in 6.12.114) */
	bool no_flusher_wakeup;         /* mm/vmscan.c:evict_folios() wakes no flushers for
					 * the dirty file folios it met ("mm/vmscan: wake up
					 * flushers conditionally to avoid cgroup OOM" came in
					 * 6.12.104) */
};

/* The bits every modelled 6.12.y has. */
#define LRU_GEN_CAPS_6_12                                                                \
	.fault_activates = true, .add_from_min_seq = true, .inc_refs_counter_last = true,  \
	.tier_refs_workingset = true, .refs_flags_workingset = true,                       \
	.promote_first_sighting = true, .keep_mapped_referenced = true,                    \
	.classic_check_references = true, .isolate_clears_referenced = true,               \
	.sort_protects_to_tail = true, .reject_to_max_seq = true, .refault_stalls = true,  \
	.recent_at_min_seq = true, .type_by_first_tier = true, .low_tier_gains = true,     \
	.min_seq_coupled = true, .aging_by_distribution = true,                            \
	.inc_max_seq_file_first = true, .inc_min_seq_uncounted = true,                     \
	.file_always_evictable = true, .min_seq_after_isolation = true,                    \
	.scan_max_batch = true, .scan_zero_unless_isolated = true,                         \
	.nr_to_scan_per_batch = true, .isolate_swap_constrained = true,                    \
	.reclaim_vm_events = true

/*
 * kernel=: the modes, one row each: X(id, name, bits...) gives the parameter value
 * KERNEL_<id>, its name, and the struct mglru_caps the mode runs with. A new mode is a
 * new row.
 */
#define MGLRU_KERNELS(X)                                                                 \
	/* the seed tree the model follows */                                            \
	X(7_2, "7.2", 0)                                                                   \
	/* Debian's linux-source-6.12, 6.12.117 */                                         \
	X(6_12, "6.12", LRU_GEN_CAPS_6_12, .activate_clears_refs = true)                   \
	/* the kernel kernel-lab boots: 6.12.y before the 6.12.114 backports */            \
	X(6_12_95, "6.12.95", LRU_GEN_CAPS_6_12, .sort_culls_unevictable = true,           \
	  .sort_waits_writeback = true, .isolate_clears_reclaim = true,                    \
	  .isolate_refuses_dirty_file = true, .no_flusher_wakeup = true)

#define KERNEL_ENUM(id, name, ...) KERNEL_##id,
enum { MGLRU_KERNELS(KERNEL_ENUM) NR_KERNELS };
#undef KERNEL_ENUM

/* ---- S002 cache-line model (mglru_cacheline.c) ---- */

/* fields of the kernel's struct lru_gen_folio */
enum {
	LGF_MAX_SEQ, LGF_MIN_SEQ, LGF_TIMESTAMPS, LGF_ENABLED, LGF_GEN, LGF_SEG, LGF_LIST,
	LGF_FOLIOS, LGF_NR_PAGES, LGF_AVG_REFAULTED, LGF_AVG_TOTAL, LGF_PROTECTED,
	LGF_EVICTED, LGF_REFAULTED, NR_LGF
};
/* the hot paths of docs/seeds.md, "S002 hot paths", for the per-path transfer counters */
enum {
	CL_ADD, CL_EVICTION, CL_REFAULT, CL_MEMCG_WALK, CL_READ_CTRL_POS, CL_RESET_CTRL_POS,
	CL_SORT, CL_AGING, NR_CL_PATHS
};
#define CL_LINE 64
#define CL_MAX_CPUS 64  /* m->cpu is folded modulo this */
#define CL_MAX_LINES 24 /* (63 + 1408 - 1) / 64 + 1 = 23 */

struct cl_line {
	uint64_t sharers; /* CPUs holding the line */
	int8_t owner;     /* the CPU holding it modified, -1 = none */
};

struct mglru_cl {
	int layout;       /* STATS_LAYOUT_* */
	unsigned base;    /* lrugen offset modulo 64 in effect */
	unsigned enabled_line;
	struct cl_line *lines; /* [nr_lruvecs][CL_MAX_LINES] */
	uint64_t reads, writes, transfers, invalidations;
	uint64_t path_transfers[NR_CL_PATHS];
	uint64_t line_transfers[CL_MAX_LINES]; /* summed over lruvecs */
};

unsigned lrugen_field_offset(int layout, unsigned f, unsigned idx);
unsigned lrugen_size(int layout);
unsigned lrugen_gen_idx(unsigned gen, int type);
unsigned lrugen_eff_base(int layout, unsigned base);
unsigned lrugen_line(int layout, unsigned base, unsigned f, unsigned idx);

/* ---- model counters (model_counters hook) ---- */

struct mglru_counters {
	uint64_t aging_tries;      /* try_to_inc_max_seq() calls */
	uint64_t aging_passes;     /* inc_max_seq() successes: generations made */
	uint64_t aging_nowalk;     /* aging via iterate_mm_list_nowalk() */
	uint64_t walk_mms;         /* walk_mm() calls */
	uint64_t walk_stats[NR_MM_STATS_S001]; /* TYFA(LWEES), summed over all lruvecs */
	uint64_t walk_pmd_old;     /* PTE tables skipped: non-leaf PMD entry not young */
	uint64_t walk_bloom_miss;  /* PTE tables skipped by the Bloom filter */
	uint64_t walk_promoted;    /* folios promoted by the walk (folio_update_gen) */
	uint64_t inc_min_seq_moved;    /* folios moved by inc_min_seq() */
	uint64_t inc_min_seq_restarts; /* inc_max_seq() restarts (MAX_LRU_BATCH reached) */
	uint64_t inc_min_seq_inversions; /* oldest generations left in place (swp 0 / 201) */
	uint64_t aging_cost;       /* work units of aging, see docs/mglru-model.md */
	uint64_t look_around;      /* lru_gen_look_around() window scans */
	uint64_t look_around_young;    /* young neighbours found */
	uint64_t look_around_bloom;    /* PMD entries fed back to the Bloom filter */
	uint64_t evict_calls;      /* evict_folios() calls */
	uint64_t sorted_promoted;  /* sort_folio(): promoted */
	uint64_t sorted_protected; /* sort_folio(): protected by tier */
	uint64_t rejected;         /* evict_folios(): "don't add rejected folios to the oldest" */
	uint64_t min_ttl_oom;      /* lru_gen_age_node() would call out_of_memory() */
	/* S000 (all zero with inc_min_seq=base except where noted) */
	uint64_t inc_min_seq_list_ops;     /* list operations of inc_min_seq(): one per
					    * folio moved (base), one per promoted folio
					    * plus one per batch splice (v3); both modes */
	uint64_t inc_min_seq_size_updates; /* nr_pages updates of inc_min_seq(): one per
					    * non-promoted folio (base), one per zone
					    * batch (v3); both modes */
	/* S003 invariant counters: placements the S003 review flags as regressions */
	uint64_t ra_active_inactive;   /* PG_active folio added outside a fault to an
					* inactive generation (R2/R3: rule 1 gave d = 3) */
	uint64_t ra_rejected_min_seq;  /* rejected folio re-added at min_seq again (R1) */
	uint64_t ra_activate_inactive; /* workingset_activate counted for a folio that
					* lands in an inactive generation (R4) */
	uint64_t evict_stalls;         /* debugfs '-' gave up: EVICT_STALL_PASSES passes
					* without progress (a livelock in the kernel) */
	/* probes=1: evictions of a folio whose last observed access is more
	 * recent than that of the next folio evicted from the same lruvec and type */
	uint64_t evict_inversions;
	uint64_t evict_pairs;          /* such consecutive pairs looked at */
	uint64_t refault_exec_file;    /* probes=1: workingset_refault_file of folios with
					* a VM_EXEC mapping (PG_exec of the trace) */
	/* S004 */
	uint64_t exec_first_promoted;  /* folio_update_gen(): exec folio promoted on
					* first sighting */
	uint64_t exec_first_activated; /* lru_gen_set_refs(): exec folio activated on
					* first sighting */
	/*
	 * Seed toggles that acted: each counts the times the toggle, set away from its
	 * default, took a branch whose outcome differs from the default's. 0 means every
	 * decision was the default's, so the run reclaims as without the toggle
	 * (mglru_idle_params(): a toggle_idle note).
	 */
	uint64_t acted_inc_min_seq;    /* S000: folios inc_min_seq_v3() went over */
	uint64_t acted_pud_filter;     /* S001: PUDs the PUD-level filter skipped */
	uint64_t acted_ra_placement;   /* S003: placements, refault activations and
					* rmap sightings where B or C differ from A */
	uint64_t acted_exec_promote;   /* S004: exec folios promoted or activated on
					* their first sighting */
	/* what the notes give as the reason a toggle never acted */
	uint64_t in_fault_adds;        /* folio_add_lru() in a fault */
	uint64_t exec_file_adds;       /* ... of file folios with a VM_EXEC mapping */
};

/* ---- the policy instance (p->priv) ---- */

struct mglru {
	struct mr_policy *p;
	struct mr_machine *m;
	uint8_t *pages;             /* p->pages: frame i's struct lru_gen_page at */
	size_t page_stride;         /* pages + i * page_stride (lgp()) */
	struct lruvec *lruvecs;     /* [m->nr_lruvecs] */
	uint64_t *arena;            /* Bloom filters and walked[] bitmaps of all lruvecs */
	uint32_t mm_words;          /* words of each walked[] bitmap */
	size_t per_lv;              /* arena words per lruvec */
	/* parameters, as the kernel sees them */
	int swappiness;
	uint64_t min_ttl_ns;
	unsigned lru_gen_caps; /* the bits of /sys/kernel/mm/lru_gen/enabled */
	unsigned nr_hist_gens;
	int inc_min_seq_mode;  /* INC_MIN_SEQ_* */
	int ra_placement;      /* RA_PLACEMENT_* */
	int exec_promote;      /* EXEC_PROMOTE_* */
	bool pud_filter;       /* S001 */
	struct mglru_caps caps; /* the kernel= mode's behaviour bits */
	struct mr_shrink_hooks shrink_hooks; /* for shrink_folio_list(), from caps */
	struct mglru_cl *cl;   /* S002: NULL unless cacheline_model=1 */
	unsigned nr_mm_stats;  /* NR_MM_STATS, or NR_MM_STATS_S001 with pud_filter */
	/* probes: per page, trace ns of its last observed access (insertion, fd
	 * access, young PTE consumed); per lruvec and type, that of the last eviction;
	 * NULL when the probe is off */
	uint64_t *last_seen;
	uint64_t *last_evicted; /* [nr_lruvecs][ANON_AND_FILE], UINT64_MAX = none yet */
	/* current->in_lru_fault while folio_add_lru() adds an in-fault folio (for the
	 * S003 invariant counter ra_active_inactive, which exempts those) */
	bool in_lru_fault;
	/* current->reclaim_state->mm_walk: set while reclaim has a walk context */
	bool walk_active;
	struct lru_gen_mm_walk walk;
	/* isolation lists of evict_folios() (at most MIN_LRU_BATCH folios each) */
	uint32_t list_pages[MIN_LRU_BATCH];
	uint32_t clean_pages[MIN_LRU_BATCH];
	struct mglru_counters stat;
};

/* Frame page's generation state: in its struct mr_folio's record (mr_policy.h). */
static inline struct lru_gen_page *lgp(const struct mglru *mg, uint32_t page)
{
	return (struct lru_gen_page *)(void *)(mg->pages + (size_t)page * mg->page_stride);
}

extern const struct mr_policy_ops mr_mglru_ops;

/* ---- small helpers (include/linux/mm_inline.h) ---- */

static inline struct mglru *mglru_of(const struct mr_policy *p)
{
	return (struct mglru *)p->priv;
}

static inline unsigned lru_gen_from_seq(uint64_t seq)
{
	return (unsigned)(seq % MAX_NR_GENS);
}

static inline unsigned lru_hist_from_seq(const struct mglru *mg, uint64_t seq)
{
	return (unsigned)(seq % mg->nr_hist_gens);
}

static inline int folio_is_file_lru(const struct mr_folio *f)
{
	return mr_folio_is_file_lru(f);
}

static inline bool folio_test(const struct mr_folio *f, uint32_t flag)
{
	return (f->flags & flag) != 0;
}

/* folio_test_anon(): anon proper; shmem is swap-backed but not anon. */
static inline bool folio_test_anon(const struct mr_folio *f)
{
	return f->type == MR_PAGE_ANON;
}

/* folio_zonenum(): one zone per node in the model (mr_folio.zone is always 0). */
static inline int folio_zonenum(const struct mr_folio *f)
{
	(void)f;
	return 0;
}

/* folio_evictable(): not PG_unevictable / PG_mlocked (mapping_unevictable is folded in). */
static inline bool folio_evictable(const struct mr_folio *f)
{
	return !(f->flags & (MR_PG_UNEVICTABLE | MR_PG_MLOCKED));
}

/* folio_lru_gen(): the generation of a folio on a gen list, -1 otherwise. */
static inline int folio_lru_gen(const struct mglru *mg, uint32_t page)
{
	return (int)lgp(mg, page)->gen - 1;
}

/*
 * folio_lru_refs() [6.14+]: 0 without PG_referenced, else counter + 1 (1..4).
 * caps.tier_refs_workingset ([6.12] include/linux/mm_inline.h:144): the accesses beyond
 * PG_referenced, i.e. the LRU_REFS_MASK counter + PG_workingset (0..4), set by
 * folio_inc_refs() (mm/swap.c:414) in the order PG_referenced, PG_workingset, counter.
 */
static inline int folio_lru_refs(const struct mglru *mg, uint32_t page)
{
	const struct mr_folio *f = &mg->m->folios[page];

	if (mg->caps.tier_refs_workingset)
		return lgp(mg, page)->refs + folio_test(f, MR_PG_WORKINGSET);
	if (!folio_test(f, MR_PG_REFERENCED))
		return 0;
	return lgp(mg, page)->refs + 1;
}

/* order_base_2() for 0..4 */
static inline int order_base_2(int n)
{
	int r = 0;

	while ((1 << r) < n)
		r++;
	return r;
}

/*
 * lru_tier_from_refs() [6.14+]: PG_workingset -> the top tier, else log2 of refs.
 * caps.tier_refs_workingset ([6.12] include/linux/mm_inline.h:136, where refs counts
 * PG_workingset): order_base_2(refs + 1), so refs 0 -> tier 0, 1 -> 1, 2..3 -> 2, 4 -> 3.
 */
static inline int lru_tier_from_refs(const struct mglru *mg, int refs, bool workingset)
{
	if (mg->caps.tier_refs_workingset)
		return order_base_2(refs + 1);
	return workingset ? MAX_NR_TIERS - 1 : order_base_2(refs);
}

/*
 * Every access counted: the test of sort_folio() and inc_min_seq(), refs + workingset ==
 * BIT(LRU_REFS_WIDTH) + 1; [6.12] refs == BIT(LRU_REFS_WIDTH) (caps.tier_refs_workingset).
 */
static inline bool folio_lru_refs_full(const struct mglru *mg, int refs, bool workingset)
{
	if (mg->caps.tier_refs_workingset)
		return refs == 1 << LRU_REFS_WIDTH;
	return refs + workingset == (1 << LRU_REFS_WIDTH) + 1;
}

/*
 * set_mask_bits(&folio->flags, LRU_REFS_MASK | LRU_REFS_FLAGS, 0): the counter and
 * PG_referenced, and PG_workingset where LRU_REFS_FLAGS has it ([6.12]
 * folio_clear_lru_refs(), caps.refs_flags_workingset).
 */
static inline void folio_clear_lru_refs(struct mglru *mg, uint32_t page)
{
	struct mr_folio *f = &mg->m->folios[page];

	lgp(mg, page)->refs = 0;
	f->flags &= ~MR_PG_REFERENCED;
	if (mg->caps.refs_flags_workingset)
		f->flags &= ~MR_PG_WORKINGSET;
}

static inline struct lruvec *folio_lruvec(const struct mglru *mg, uint32_t page)
{
	return &mg->lruvecs[mg->m->folios[page].lruvec];
}

/* lru_gen_is_active(): max_seq and max_seq - 1 are the "active" generations. */
static inline bool lru_gen_is_active(const struct lruvec *lv, unsigned gen)
{
	uint64_t max_seq = lv->lrugen.max_seq;

	return gen == lru_gen_from_seq(max_seq) || gen == lru_gen_from_seq(max_seq - 1);
}

static inline int get_nr_gens(const struct lruvec *lv, int type)
{
	return (int)(lv->lrugen.max_seq - lv->lrugen.min_seq[type] + 1);
}

/* min_type() / max_type() / evictable_min_seq() of mm/vmscan.c */
static inline int min_type(int swappiness)
{
	return !swappiness;
}

static inline int max_type(int swappiness)
{
	return swappiness < SWAPPINESS_ANON_ONLY;
}

/* max_type() where [6.12] loops "for (type = !can_swap; type < ANON_AND_FILE; ...)":
 * caps.file_always_evictable, no swappiness 'max', so file at any swappiness. */
static inline int max_evictable_type(const struct mglru *mg, int swappiness)
{
	return mg->caps.file_always_evictable ? LRU_GEN_FILE : max_type(swappiness);
}

static inline uint64_t evictable_min_seq(const uint64_t *min_seq, int swappiness)
{
	uint64_t a = min_seq[min_type(swappiness)], b = min_seq[max_type(swappiness)];

	return a < b ? a : b;
}

/* The slot of each folio in its list's ring: the first field of its lru_gen_page. */
static inline struct ring_slots lru_gen_slots(const struct mglru *mg)
{
	return (struct ring_slots){ mg->pages, mg->page_stride };
}

/* How far ahead of the folio they are at the tail walks start loading folios: 8, 16,
 * 32 and 64 measured (a 10M-event Zipf trace at 400M), 16 the fastest; a hint for
 * shrink_folio_list() as lru's isolation gives (the machine's prefetch_folio) gained
 * nothing measurable here, most folios at the tail being sorted, not isolated. */
#define LRU_GEN_AHEAD 16

/*
 * mm/vmscan.c:prefetchw_prev_lru_folio(), at a distance: the folio k entries from the
 * tail of the list (toward the head), scanned k folios from now, is a cache miss on both
 * per-page arrays and on its page id; start loading them now. In a ring its id is known
 * without waiting for the folios in between (one scanned folio's work is shorter than a
 * miss). Only a hint: the walk itself follows the list as it is when it gets there.
 */
static inline void prefetchw_prev_lru_folio(const struct mglru *mg, const struct ring *r,
					    uint32_t k)
{
	uint32_t page;

	if (k >= r->n)
		return;
	page = ring_at(r, k);
	if (page != MR_NONE) {
		mr_prefetchw(&mg->m->folios[page]); /* with its page and generation state */
		if (mg->page_stride != sizeof(struct mr_folio))
			mr_prefetchw(lgp(mg, page));
	}
}

static inline bool exec_promotes(const struct mglru *mg, const struct mr_folio *f,
				 uint32_t vm_flags)
{
	return mg->exec_promote != EXEC_PROMOTE_OFF && (vm_flags & MR_VMA_EXEC) &&
	       folio_is_file_lru(f);
}

/* probes: the model observed an access to page now. */
static inline void mglru_seen(struct mglru *mg, uint32_t page)
{
	if (mg->last_seen)
		mg->last_seen[page] = mg->m->now_ns;
}

/* S002 (mglru_cacheline.c) */
int mglru_cl_init(struct mglru *mg, int layout, unsigned base);
void mglru_cl_fini(struct mglru *mg);
void mglru_cl_access(struct mglru *mg, const struct lruvec *lv, unsigned path, unsigned f,
		     unsigned idx, bool write);
void mglru_cl_access_cpu(struct mglru_cl *cl, uint32_t lruvec, unsigned path, unsigned f,
			 unsigned idx, bool write, unsigned cpu);
void mglru_cl_counters(const struct mglru *mg,
		       void (*emit)(void *arg, const char *name, double value), void *arg);

/* S002: the hot path path reads (or writes) element idx of lrugen field f of lv on the
 * current CPU. One predictable branch when the cache-line model is off. */
static inline void mglru_cl(struct mglru *mg, const struct lruvec *lv, unsigned path,
			    unsigned f, unsigned idx, bool write)
{
	if (__builtin_expect(mg->cl != NULL, 0))
		mglru_cl_access(mg, lv, path, f, idx, write);
}

/* Count a vmstat / memory.stat item for this lruvec (deltas may be negative). */
static inline void mglru_count(struct mglru *mg, const struct lruvec *lv, unsigned item,
			       int64_t delta)
{
	mr_count(mg->m, lv->id, item, (uint64_t)delta);
}

/* ---- mglru.c: lists, insertion, fd accesses, refaults ---- */

void lru_gen_list_add(struct mglru *mg, struct lruvec *lv, uint32_t page, unsigned gen,
		      bool tail);
void lru_gen_list_del(struct mglru *mg, struct lruvec *lv, uint32_t page);
void lru_gen_update_size(struct mglru *mg, struct lruvec *lv, uint32_t page, int old_gen,
			 int new_gen);
uint64_t lru_gen_folio_seq(struct mglru *mg, const struct lruvec *lv, uint32_t page,
			   bool reclaiming);
bool lru_gen_add_folio(struct mglru *mg, struct lruvec *lv, uint32_t page, bool reclaiming);
bool lru_gen_del_folio(struct mglru *mg, struct lruvec *lv, uint32_t page, bool reclaiming);
void lruvec_add_folio(struct mglru *mg, struct lruvec *lv, uint32_t page);
void lruvec_add_folio_tail(struct mglru *mg, struct lruvec *lv, uint32_t page);
void lruvec_del_folio(struct mglru *mg, struct lruvec *lv, uint32_t page);
void lru_gen_inc_refs(struct mglru *mg, uint32_t page);
void folio_mark_accessed(struct mglru *mg, uint32_t page);
void folio_activate(struct mglru *mg, uint32_t page);
void folio_add_lru(struct mglru *mg, uint32_t page, unsigned ctx);
void folio_putback_lru(struct mglru *mg, uint32_t page);
bool folio_isolate_lru(struct mglru *mg, uint32_t page);
void folio_set_lru_refs_flags(struct mglru *mg, uint32_t page, bool referenced, unsigned refs);

/* workingset.c */
uint64_t lru_gen_eviction(struct mglru *mg, uint32_t page);
bool lru_gen_test_recent(struct mglru *mg, uint64_t shadow, int type, struct lruvec **lvp,
			 uint64_t *token, bool *workingset);
void lru_gen_refault(struct mglru *mg, uint32_t page, uint64_t shadow, unsigned ctx);
uint64_t pack_shadow(uint32_t memcg_id, uint32_t node, uint64_t eviction, bool workingset);
void unpack_shadow(uint64_t shadow, uint32_t *memcg_id, uint32_t *node, uint64_t *eviction,
		   bool *workingset);

unsigned mglru_check(struct mr_policy *p);

/* ---- mglru_aging.c ---- */

void get_item_key(uint64_t item, unsigned key[2]);
bool test_bloom_filter(const struct lru_gen_mm_state *mm_state, uint64_t seq, uint64_t item);
void update_bloom_filter(struct lru_gen_mm_state *mm_state, uint64_t seq, uint64_t item);
void reset_bloom_filter(struct mglru *mg, struct lruvec *lv, uint64_t seq);
uint64_t pmd_item(uint32_t mm, uint64_t addr);
uint64_t pud_item(uint32_t mm, uint64_t addr);
bool test_bloom_filter_pud(const struct lru_gen_mm_state *mm_state, uint64_t seq,
			   uint64_t item);
void update_bloom_filter_pud(struct lru_gen_mm_state *mm_state, uint64_t seq, uint64_t item);
bool suitable_to_scan(int total, int young);
int folio_update_gen(struct mglru *mg, uint32_t page, unsigned gen, uint32_t vm_flags);
int folio_inc_gen(struct mglru *mg, struct lruvec *lv, uint32_t page, bool reclaiming);
void reset_batch_size(struct mglru *mg, struct lru_gen_mm_walk *walk);
void lru_gen_look_around(struct mr_policy *p, const struct mr_vma *vma,
			 struct mr_pte_table *pt, unsigned slot);
bool inc_min_seq(struct mglru *mg, struct lruvec *lv, int type, int swappiness);
bool try_to_inc_min_seq(struct mglru *mg, struct lruvec *lv, int swappiness);
bool inc_max_seq(struct mglru *mg, struct lruvec *lv, uint64_t seq, int swappiness);
bool try_to_inc_max_seq(struct mglru *mg, struct lruvec *lv, uint64_t seq, int swappiness,
			bool force_scan);
bool should_walk_mmu(const struct mglru *mg);
bool should_clear_pmd_young(const struct mglru *mg);

/* ---- mglru_evict.c ---- */

struct ctrl_pos {
	uint64_t refaulted;
	uint64_t total;
	int gain;
};

void read_ctrl_pos(struct mglru *mg, struct lruvec *lv, int type, int tier, int gain,
		   struct ctrl_pos *pos);
void reset_ctrl_pos(struct mglru *mg, struct lruvec *lv, int type, bool carryover);
bool positive_ctrl_err(const struct ctrl_pos *sp, const struct ctrl_pos *pv);
int get_tier_idx(struct mglru *mg, struct lruvec *lv, int type);
int get_type_to_scan(struct mglru *mg, struct lruvec *lv, int swappiness, int *tier_idx);
int get_swappiness(struct mglru *mg, struct lruvec *lv, const struct mr_scan_control *sc);
bool lru_gen_set_refs(struct mglru *mg, uint32_t page, uint32_t vm_flags);
enum folio_references lru_gen_folio_check_references(struct mr_policy *p, uint32_t page,
						     struct mr_scan_control *sc);
uint64_t evict_folios(struct mglru *mg, uint64_t nr_to_scan, struct lruvec *lv,
		      struct mr_scan_control *sc, int swappiness);
void lru_gen_age_node(struct mglru *mg, uint32_t node, struct mr_scan_control *sc);
void lru_gen_shrink_lruvec(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc);
void lru_gen_init_shrink_hooks(struct mglru *mg);

/* ---- mglru_debugfs.c ---- */

size_t lru_gen_show(struct mr_policy *p, int full, char *buf, size_t cap);
int lru_gen_command(struct mr_policy *p, const char *cmd, struct mr_error *err);

#endif /* MR_POLICY_MGLRU_H */
