// SPDX-License-Identifier: GPL-2.0
/*
 * test_mglru.c - unit tests of the mglru model ([7.2], Mode A): the deterministic
 * scenarios of docs/mglru-model.md, "Scenarios" (baseline halves), insertion rules, the
 * PID controller, shadow recency, the Bloom filters, the debugfs interface, and the
 * invariant checker after every scenario. Each scenario builds a tiny machine
 * (tests/policy_machine.h), sets up lists with mglru_place_folio(), runs the kernel
 * paths, and checks the lists (head to tail), flags and counters.
 *
 * Page ids are named after the scenario's folios (A = 0, B = 1, ...) in each scenario.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mglru.h"
#include "mr_test.h"
#include "policy_machine.h"

#define FILE_T LRU_GEN_FILE
#define ANON_T LRU_GEN_ANON
#define PG (1ull << MR_PAGE_SHIFT)
#define VA 0x400000ull /* a 2 MiB aligned address: PTE table slot = page offset */

/*
 * Set-up and inspection of the model's state, for the scenarios: test code, not part of
 * the model. They reach the model's internals through policy/mglru.h.
 */

/* Put an off-list folio on the list of generation seq of its lruvec, at the head (or
 * the tail), as lru_gen_add_folio() would with that placement; sets PG_lru. */
static int mglru_place_folio(struct mr_policy *p, uint32_t page, uint64_t seq, bool tail)
{
	struct mglru *mg = mglru_of(p);
	struct mr_folio *f = &mg->m->folios[page];
	struct lruvec *lv;
	int type;
	unsigned gen;

	if (page >= mg->m->nr_pages || folio_test(f, MR_PG_LRU) || !folio_evictable(f))
		return MR_EINVAL;
	lv = folio_lruvec(mg, page);
	type = folio_is_file_lru(f);
	if (seq < lv->lrugen.min_seq[type] || seq > lv->lrugen.max_seq)
		return MR_ERANGE;
	gen = lru_gen_from_seq(seq);
	lgp(mg, page)->gen = (uint8_t)(gen + 1);
	f->flags &= ~MR_PG_ACTIVE;
	f->flags |= MR_PG_LRU;
	lru_gen_update_size(mg, lv, page, -1, (int)gen);
	lru_gen_list_add(mg, lv, page, gen, tail);
	return 0;
}

/* Set max_seq / min_seq of an lruvec whose lists are all empty (MR_EINVAL otherwise). */
static int mglru_set_seqs(struct mr_policy *p, uint32_t lruvec, uint64_t max_seq,
			  uint64_t min_anon, uint64_t min_file)
{
	struct mglru *mg = mglru_of(p);
	struct lruvec *lv;
	int gen, type;

	if (lruvec >= mg->m->nr_lruvecs)
		return MR_EINVAL;
	lv = &mg->lruvecs[lruvec];
	for (gen = 0; gen < MAX_NR_GENS; gen++)
		for (type = 0; type < ANON_AND_FILE; type++)
			if (lv->lrugen.folios[gen][type][0].n ||
			    lv->lrugen.nr_pages[gen][type][0])
				return MR_EINVAL;
	if (min_anon > max_seq || min_file > max_seq || max_seq - min_anon + 1 < MIN_NR_GENS ||
	    max_seq - min_anon + 1 > MAX_NR_GENS || max_seq - min_file + 1 < MIN_NR_GENS ||
	    max_seq - min_file + 1 > MAX_NR_GENS)
		return MR_ERANGE;
	lv->lrugen.max_seq = max_seq;
	lv->lrugen.min_seq[LRU_GEN_ANON] = min_anon;
	lv->lrugen.min_seq[LRU_GEN_FILE] = min_file;
	lv->mm_state.seq = max_seq - 1;
	return 0;
}

/* Copy the page ids of list folios[gen][type][0] of an lruvec, head to tail, into out
 * (up to cap); returns the list length. */
static unsigned mglru_list_pages(struct mr_policy *p, uint32_t lruvec, unsigned gen,
				 int type, uint32_t *out, unsigned cap)
{
	struct mglru *mg = mglru_of(p);
	const struct ring *l;
	unsigned n = 0;

	if (lruvec >= mg->m->nr_lruvecs || gen >= MAX_NR_GENS || type < 0 || type > 1)
		return 0;
	l = &mg->lruvecs[lruvec].lrugen.folios[gen][type][0];
	for (uint32_t k = l->n; k-- > 0;) { /* the ring from its head end */
		uint32_t page = ring_at(l, k);

		if (page == MR_NONE)
			continue;
		if (n < cap)
			out[n] = page;
		n++;
	}
	return n;
}

/* The lruvec state (read and, for PID tests, write). */
static struct lruvec *mglru_lruvec(struct mr_policy *p, uint32_t lruvec)
{
	struct mglru *mg = mglru_of(p);

	return lruvec < mg->m->nr_lruvecs ? &mg->lruvecs[lruvec] : NULL;
}

/* The LRU_REFS_MASK counter of a folio. */
static unsigned mglru_folio_refs(struct mr_policy *p, uint32_t page)
{
	return lgp(mglru_of(p), page)->refs;
}

/* Lazily promote an on-list folio to gen(max_seq) as folio_update_gen() does for a
 * folio with PG_referenced, applying the size change at once. */
static int mglru_promote_folio(struct mr_policy *p, uint32_t page)
{
	struct mglru *mg = mglru_of(p);
	struct lruvec *lv = folio_lruvec(mg, page);
	unsigned new_gen = lru_gen_from_seq(lv->lrugen.max_seq);
	int old_gen;

	if (folio_lru_gen(mg, page) < 0)
		return MR_EINVAL;
	mg->m->folios[page].flags |= MR_PG_REFERENCED;
	old_gen = folio_update_gen(mg, page, new_gen, 0);
	if (old_gen >= 0 && old_gen != (int)new_gen)
		lru_gen_update_size(mg, lv, page, old_gen, (int)new_gen);
	return 0;
}

/* One evict_folios() call on an lruvec as proactive reclaim does it (the body of the
 * debugfs '-' loop: may swap/unmap/write, __GFP_IO, a walk context); returns what
 * evict_folios() returns. */
static uint64_t mglru_evict_once(struct mr_policy *p, uint32_t lruvec, uint64_t nr_to_scan,
				 int swappiness)
{
	struct mglru *mg = mglru_of(p);
	struct mr_scan_control sc = { .may_writepage = 1, .may_unmap = 1, .may_swap = 1,
				      .reclaim_idx = MAX_NR_ZONES - 1, .gfp_io = 1,
				      .proactive = 1 };
	uint64_t scanned;

	if (lruvec >= mg->m->nr_lruvecs)
		return 0;
	sc.memcg = mg->lruvecs[lruvec].memcg;
	sc.node = mg->lruvecs[lruvec].node;
	sc.memcg_reclaim = sc.memcg != 0;
	mg->walk_active = true; /* set_mm_walk(NULL, true) */
	scanned = evict_folios(mg, nr_to_scan, &mg->lruvecs[lruvec], &sc, swappiness);
	mg->walk_active = false;
	return scanned;
}

struct env {
	struct pm_machine *pm;
	struct mr_policy *p;
	struct mglru *mg;
	struct lruvec *lv; /* lruvec 0 */
};

static void env_open(struct env *e, uint32_t nr_pages, uint32_t nr_nodes)
{
	memset(e, 0, sizeof(*e));
	e->pm = pm_create(&(struct pm_config){ .nr_pages = nr_pages, .nr_nodes = nr_nodes });
	CHECK(e->pm != NULL);
	e->p = pm_policy_new(e->pm, &mr_mglru_ops);
	CHECK(e->p != NULL);
}

static void env_init(struct env *e)
{
	struct mr_error err = { 0 };
	int rc = mr_policy_start(e->p, &err);

	if (rc)
		fprintf(stderr, "init: %s\n", err.msg);
	CHECK_EQ_U64(rc, 0);
	e->mg = mglru_of(e->p);
	e->lv = mglru_lruvec(e->p, 0);
}

static void env_start(struct env *e, uint32_t nr_pages)
{
	env_open(e, nr_pages, 1);
	env_init(e);
}

/*
 * With CONFIG_LRU_GEN_STATS (NR_HIST_GENS = 4). The protected[] counts inc_min_seq() makes
 * are never visible after the aging: its own reset_ctrl_pos(carryover) folds them into
 * avg_total[] (avg = (avg + protected + evicted) / 2) and, with one history slot, clears
 * the slot; with four, inc_max_seq()'s reset of the slot of max_seq + 1 clears it, which
 * is the same slot (the old min_seq = max_seq - 3). The tests read avg_total[].
 */
static void env_start_stats(struct env *e, uint32_t nr_pages)
{
	env_open(e, nr_pages, 1);
	CHECK_EQ_U64(mr_policy_set_param(e->p, "lru_gen_stats", 1), 0);
	env_init(e);
}

/* Start with one seed toggle set (mr_policy_set_param() by name). */
static void env_start_set(struct env *e, uint32_t nr_pages, const char *name, int64_t v)
{
	env_open(e, nr_pages, 1);
	CHECK_EQ_U64(mr_policy_set_param(e->p, name, v), 0);
	env_init(e);
}

/* The invariant checker runs after every scenario. */
static void env_close(struct env *e)
{
	CHECK_EQ_U64(e->p->ops->check(e->p), 0);
	mr_policy_destroy(e->p);
	pm_destroy(e->pm);
}

static struct mr_folio *folio(struct env *e, uint32_t page)
{
	return &e->pm->m.folios[page];
}

/* A resident file (or anon) folio placed at seq, at the tail of its list. */
static void place(struct env *e, uint32_t page, enum pm_kind kind, uint64_t seq)
{
	pm_folio(e->pm, page, kind, 0, 0);
	CHECK_EQ_U64(mglru_place_folio(e->p, page, seq, true), 0);
}

static void check_list_at(struct env *e, uint32_t lruvec, unsigned gen, int type,
			  const uint32_t *want, unsigned n, int line)
{
	uint32_t got[64];
	unsigned len = mglru_list_pages(e->p, lruvec, gen, type, got, 64), i;
	int ok = len == n;

	for (i = 0; ok && i < n; i++)
		ok = got[i] == want[i];
	mr_test_checks++;
	if (!ok) {
		mr_test_failures++;
		fprintf(stderr, "%s:%d: list gen %u type %d is [", __FILE__, line, gen, type);
		for (i = 0; i < len && i < 64; i++)
			fprintf(stderr, "%s%u", i ? " " : "", got[i]);
		fprintf(stderr, "], want [");
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s%u", i ? " " : "", want[i]);
		fprintf(stderr, "]\n");
	}
}

#define CHECK_LIST(e, gen, type, ...)                                                        \
	check_list_at(e, 0, gen, type, (const uint32_t[]){ __VA_ARGS__ },                    \
		      sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t), __LINE__)
#define CHECK_EMPTY(e, gen, type) check_list_at(e, 0, gen, type, NULL, 0, __LINE__)

static uint64_t stat0(struct env *e, unsigned item)
{
	return pm_lruvec_stat(e->pm, 0, item);
}

static int cmd(struct env *e, const char *s)
{
	struct mr_error err = { 0 };
	int rc = e->p->ops->lru_gen_command(e->p, s, &err);

	if (rc)
		fprintf(stderr, "  (lru_gen '%s': %s)\n", s, err.msg);
	return rc;
}

/* Age lruvec 0 once from its current max_seq: "+ 0 0 <max_seq> <swp> <force>". */
static int age(struct env *e, int swp, int force)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "+ 0 0 %llu %d %d", (unsigned long long)e->lv->lrugen.max_seq,
		 swp, force);
	return cmd(e, buf);
}

/* One evict_folios() call on lruvec 0, as proactive reclaim (with a walk context). */
static uint64_t evict_once(struct env *e, uint64_t nr, int swp)
{
	return mglru_evict_once(e->p, 0, nr, swp);
}

/* The mm's tasks ran on every node since the last walk (lru_gen_use_mm()): an unforced
 * walk takes it. */
static void mm_ran(struct env *e)
{
	e->pm->m.mms[0].lru_gen_bitmap = ~0ull;
}

static bool has(struct env *e, uint32_t page, uint32_t flag)
{
	return (folio(e, page)->flags & flag) != 0;
}

/* ---- insertion: lru_gen_folio_seq() rules 1-5 ---- */

static void test_insertion_rules(void)
{
	struct env e;
	struct mr_folio *f;

	env_start(&e, 8);
	/* fresh lruvec: max_seq 3, min_seq {0, 0}: 4 generations */
	CHECK_EQ_U64(e.lv->lrugen.max_seq, 3);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[ANON_T], 0);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 0);
	CHECK_EQ_U64(e.lv->mm_state.seq, 2);

	f = pm_folio(e.pm, 0, PM_FILE, 0, 0);
	/* rule 1: active -> d = 2 - ws */
	f->flags |= MR_PG_ACTIVE;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 2);
	f->flags |= MR_PG_WORKINGSET;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 3);
	/* rule 1 precedes rule 2 */
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, true), 3);
	/* rule 2: reclaiming -> d = 4, even with ws */
	f->flags &= ~MR_PG_ACTIVE;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, true), 0);
	/* rule 5: 4 - (ws || referenced) [Mode A] */
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 1);
	f->flags &= ~MR_PG_WORKINGSET;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 0);
	f->flags |= MR_PG_REFERENCED;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 1);
	f->flags &= ~MR_PG_REFERENCED;
	/* rule 4: reclaim && (dirty || writeback) -> d = 2 */
	f->flags |= MR_PG_RECLAIM | MR_PG_DIRTY;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 2);
	f->flags &= ~MR_PG_DIRTY;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 0); /* clean: rule 5 */
	f->flags |= MR_PG_WRITEBACK;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 2);
	f->flags |= MR_PG_ACTIVE; /* rule 1 precedes rule 4 (R2) */
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 2);
	f->flags &= ~(MR_PG_ACTIVE | MR_PG_RECLAIM | MR_PG_WRITEBACK);

	/* rule 3: anon not in swapcache -> d = 2; in swapcache -> rule 5 */
	f = pm_folio(e.pm, 1, PM_ANON, 0, 0);
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 1, false), 2);
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 1, true), 0); /* rule 2 first */
	f->flags |= MR_PG_SWAPCACHE;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 1, false), 0);
	f->flags |= MR_PG_REFERENCED;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 1, false), 1);
	/* shmem is swap-backed: anon LRU, rule 3 too */
	pm_folio(e.pm, 2, PM_SHMEM, 0, 0);
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 2, false), 2);

	/* lru_gen_add_folio(): placement, PG_active cleared, head vs tail, sizes */
	f = pm_folio(e.pm, 3, PM_FILE, 0, 0);
	f->flags |= MR_PG_ACTIVE;
	folio_putback_lru(e.mg, 3); /* not in a fault: active -> max_seq - 1 */
	CHECK_EQ_U64(folio_lru_gen(e.mg, 3), 2);
	CHECK(!has(&e, 3, MR_PG_ACTIVE));
	CHECK(has(&e, 3, MR_PG_LRU));
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
	pm_folio(e.pm, 4, PM_FILE, 0, 0);
	e.p->ops->folio_add(e.p, 4, 0); /* plain page cache: the oldest generation */
	CHECK_EQ_U64(folio_lru_gen(e.mg, 4), 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), 1);
	pm_folio(e.pm, 5, PM_FILE, 0, 0);
	e.p->ops->folio_add(e.p, 5, 0);
	CHECK_LIST(&e, 0, FILE_T, 5, 4); /* head adds */
	lruvec_del_folio(e.mg, e.lv, 4);
	folio(&e, 4)->flags &= ~MR_PG_ACTIVE;
	lruvec_add_folio_tail(e.mg, e.lv, 4); /* reclaiming: tail of the oldest */
	CHECK_LIST(&e, 0, FILE_T, 5, 4);
	pm_folio(e.pm, 6, PM_FILE, 0, 0);
	lruvec_add_folio_tail(e.mg, e.lv, 6); /* a new folio added reclaiming: the tail */
	folio(&e, 6)->flags |= MR_PG_LRU;
	CHECK_LIST(&e, 0, FILE_T, 5, 4, 6);

	/* clamping to min_seq: with 3 generations the oldest is min_seq */
	env_close(&e);
	env_start(&e, 2);
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 3, 1, 1), 0);
	pm_folio(e.pm, 0, PM_FILE, 0, 0);
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, true), 1);
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 1);
	folio(&e, 0)->flags |= MR_PG_REFERENCED;
	CHECK_EQ_U64(lru_gen_folio_seq(e.mg, e.lv, 0, false), 1);
	/* unevictable: the unevictable list, not a gen list */
	pm_folio(e.pm, 1, PM_FILE, 0, 0)->flags |= MR_PG_UNEVICTABLE;
	e.p->ops->folio_add(e.p, 1, MR_ADD_IN_FAULT);
	CHECK_EQ_U64(folio_lru_gen(e.mg, 1), (uint64_t)-1);
	CHECK(!has(&e, 1, MR_PG_REFERENCED)); /* lru_gen_inc_refs() ignores it */
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_UNEVICTABLE), 1);
	e.p->ops->folio_del(e.p, 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_UNEVICTABLE), 0);
	env_close(&e);
}

/* ---- PID controller ---- */

static void test_pid(void)
{
	struct ctrl_pos sp, pv;
	struct env e;
	struct lru_gen_folio *g;
	int tier_idx; /* get_type_to_scan() gives one only with caps.type_by_first_tier */

	/* pv.refaulted < MIN_LRU_BATCH: positive whatever the rates */
	sp = (struct ctrl_pos){ .refaulted = 10, .total = 1000, .gain = 2 };
	pv = (struct ctrl_pos){ .refaulted = 63, .total = 100, .gain = 3 };
	CHECK(positive_ctrl_err(&sp, &pv));
	/* 100 * (1000 + 64) * 2 = 212800 > (10 + 1) * 100 * 3 = 3300 */
	pv = (struct ctrl_pos){ .refaulted = 100, .total = 100, .gain = 3 };
	CHECK(!positive_ctrl_err(&sp, &pv));
	/* 64 * 1064 * 2 = 136192 <= 101 * 1000 * 3 = 303000 */
	sp = (struct ctrl_pos){ .refaulted = 100, .total = 1000, .gain = 2 };
	pv = (struct ctrl_pos){ .refaulted = 64, .total = 1000, .gain = 3 };
	CHECK(positive_ctrl_err(&sp, &pv));
	/* equality is positive: 64 * (0 + 64) * 1 = 4096 = (63 + 1) * 64 * 1 */
	sp = (struct ctrl_pos){ .refaulted = 63, .total = 0, .gain = 1 };
	pv = (struct ctrl_pos){ .refaulted = 64, .total = 64, .gain = 1 };
	CHECK(positive_ctrl_err(&sp, &pv));
	sp.refaulted = 62; /* 4032 < 4096 */
	CHECK(!positive_ctrl_err(&sp, &pv));
	/* beyond 64 bits: 2^40 * (2^40 + 64) * 200 > (2^40 + 1) * 2^40 * 200 */
	sp = (struct ctrl_pos){ .refaulted = 1ull << 40, .total = 1ull << 40, .gain = 200 };
	pv = (struct ctrl_pos){ .refaulted = 1ull << 40, .total = 1ull << 40, .gain = 200 };
	CHECK(!positive_ctrl_err(&sp, &pv));
	pv.total = (1ull << 40) + (1ull << 20); /* rhs grows by 2^20 * (2^40 + 1) * 200 */
	CHECK(positive_ctrl_err(&sp, &pv));

	env_start(&e, 1);
	g = &e.lv->lrugen;
	/* fresh state: no tier is protected */
	CHECK_EQ_U64(get_tier_idx(e.mg, e.lv, FILE_T), 3);
	CHECK_EQ_U64(get_tier_idx(e.mg, e.lv, ANON_T), 3);
	CHECK_EQ_U64(get_type_to_scan(e.mg, e.lv, 60, &tier_idx), FILE_T);
	CHECK_EQ_U64(get_type_to_scan(e.mg, e.lv, 1, &tier_idx), FILE_T);
	CHECK_EQ_U64(get_type_to_scan(e.mg, e.lv, 0, &tier_idx), FILE_T);
	CHECK_EQ_U64(get_type_to_scan(e.mg, e.lv, 200, &tier_idx), ANON_T);
	CHECK_EQ_U64(get_type_to_scan(e.mg, e.lv, 201, &tier_idx), ANON_T);

	/* tier 0 of file: 10 refaults in 1000; tier 1: 100 in 100 -> protect from tier 1 */
	g->evicted[0][FILE_T][0] = 1000;
	g->refaulted[0][FILE_T][0] = 10;
	g->evicted[0][FILE_T][1] = 100;
	g->refaulted[0][FILE_T][1] = 100;
	CHECK_EQ_U64(get_tier_idx(e.mg, e.lv, FILE_T), 0);
	/* tier 1 fine (64 in 10000: 64 * 1064 * 2 <= 11 * 10000 * 3), tier 2 bad */
	g->evicted[0][FILE_T][1] = 10000;
	g->refaulted[0][FILE_T][1] = 64;
	g->protected[0][FILE_T][2] = 80;
	g->refaulted[0][FILE_T][2] = 80;
	CHECK_EQ_U64(get_tier_idx(e.mg, e.lv, FILE_T), 1);
	/* read_ctrl_pos(): averages + this slot; all tiers for MAX_NR_TIERS */
	g->avg_total[FILE_T][3] = 7;
	g->avg_refaulted[FILE_T][3] = 5;
	read_ctrl_pos(e.mg, e.lv, FILE_T, MAX_NR_TIERS, 9, &pv);
	CHECK_EQ_U64(pv.total, 1000 + 10000 + 80 + 7);
	CHECK_EQ_U64(pv.refaulted, 10 + 64 + 80 + 5);
	CHECK_EQ_U64(pv.gain, 9);
	read_ctrl_pos(e.mg, e.lv, FILE_T, 2, 3, &pv);
	CHECK_EQ_U64(pv.total, 80);
	CHECK_EQ_U64(pv.refaulted, 80);
	/* anon has many refaults per total, file few: at swappiness 60 scan file */
	g->evicted[0][ANON_T][0] = 100;
	g->refaulted[0][ANON_T][0] = 90;
	CHECK_EQ_U64(get_type_to_scan(e.mg, e.lv, 60, &tier_idx), FILE_T);
	/* ... and the other way around: scan anon */
	g->refaulted[0][ANON_T][0] = 0;
	g->refaulted[0][FILE_T][0] = 1000;
	CHECK_EQ_U64(get_type_to_scan(e.mg, e.lv, 60, &tier_idx), ANON_T);

	/* reset_ctrl_pos(carryover) with one history slot: averages halve, slot clears */
	reset_ctrl_pos(e.mg, e.lv, FILE_T, true);
	CHECK_EQ_U64(g->avg_refaulted[FILE_T][0], (0 + 1000) / 2);
	CHECK_EQ_U64(g->avg_total[FILE_T][0], (0 + 0 + 1000) / 2);
	CHECK_EQ_U64(g->avg_total[FILE_T][2], (0 + 80 + 0) / 2);
	CHECK_EQ_U64(g->avg_refaulted[FILE_T][3], 5 / 2);
	CHECK_EQ_U64(g->evicted[0][FILE_T][0], 0);
	CHECK_EQ_U64(g->refaulted[0][FILE_T][1], 0);
	CHECK_EQ_U64(g->protected[0][FILE_T][2], 0);
	/* reset_ctrl_pos(!carryover) with one slot: nothing */
	g->evicted[0][FILE_T][0] = 3;
	reset_ctrl_pos(e.mg, e.lv, FILE_T, false);
	CHECK_EQ_U64(g->evicted[0][FILE_T][0], 3);
	g->evicted[0][FILE_T][0] = 0;
	env_close(&e);

	/* with CONFIG_LRU_GEN_STATS: !carryover clears the slot of max_seq + 1 */
	env_open(&e, 1, 1);
	mr_policy_set_param(e.p, "lru_gen_stats", 1);
	env_init(&e);
	g = &e.lv->lrugen;
	g->evicted[0][FILE_T][0] = 3; /* slot (3 + 1) % 4 = 0 */
	g->evicted[1][FILE_T][0] = 4;
	reset_ctrl_pos(e.mg, e.lv, FILE_T, false);
	CHECK_EQ_U64(g->evicted[0][FILE_T][0], 0);
	CHECK_EQ_U64(g->evicted[1][FILE_T][0], 4);
	/* carryover of min_seq 0's slot keeps it with several slots */
	g->evicted[0][FILE_T][1] = 8;
	reset_ctrl_pos(e.mg, e.lv, FILE_T, true);
	CHECK_EQ_U64(g->avg_total[FILE_T][1], 4);
	CHECK_EQ_U64(g->evicted[0][FILE_T][1], 8);
	g->evicted[1][FILE_T][0] = 0;
	g->evicted[0][FILE_T][1] = 0;
	env_close(&e);
}

/* ---- shadows and recency ---- */

static void test_shadow(void)
{
	struct env e;
	struct lruvec *lv;
	uint64_t token, shadow;
	uint32_t memcg, node;
	bool ws;

	/* pack/unpack round trip; a shadow is an xarray value (bit 0 set) */
	shadow = pack_shadow(5, 3, (7ull << LRU_REFS_WIDTH) | 2, true);
	CHECK_EQ_U64(shadow & 1, 1);
	unpack_shadow(shadow, &memcg, &node, &token, &ws);
	CHECK_EQ_U64(memcg, 5);
	CHECK_EQ_U64(node, 3);
	CHECK_EQ_U64(token, (7ull << LRU_REFS_WIDTH) | 2);
	CHECK(ws);

	env_start(&e, 2);
	/* |max_seq - seq| = 3 is recent, 4 is not; abs_diff works both ways */
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 13, 10, 10), 0);
	shadow = pack_shadow(0, 0, 10ull << LRU_REFS_WIDTH, false);
	CHECK(lru_gen_test_recent(e.mg, shadow, FILE_T, &lv, &token, &ws));
	CHECK(lv == e.lv);
	shadow = pack_shadow(0, 0, 9ull << LRU_REFS_WIDTH, false);
	CHECK(!lru_gen_test_recent(e.mg, shadow, FILE_T, &lv, &token, &ws));
	shadow = pack_shadow(0, 0, 16ull << LRU_REFS_WIDTH, false);
	CHECK(lru_gen_test_recent(e.mg, shadow, FILE_T, &lv, &token, &ws));
	shadow = pack_shadow(0, 0, 17ull << LRU_REFS_WIDTH, false);
	CHECK(!lru_gen_test_recent(e.mg, shadow, FILE_T, &lv, &token, &ws));
	/* the comparison is in the bits the token keeps (EVICTION_MASK >> 2: 34 bits) */
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, (1ull << 34) + 13, (1ull << 34) + 10,
				    (1ull << 34) + 10), 0);
	shadow = pack_shadow(0, 0, ((1ull << 34) + 10) << LRU_REFS_WIDTH, false);
	CHECK(lru_gen_test_recent(e.mg, shadow, FILE_T, &lv, &token, &ws));
	CHECK_EQ_U64(token >> LRU_REFS_WIDTH, 10);
	/* another machine's lruvec */
	shadow = pack_shadow(1, 0, 10ull << LRU_REFS_WIDTH, false);
	CHECK(!lru_gen_test_recent(e.mg, shadow, FILE_T, &lv, &token, &ws));
	CHECK(lv == NULL);

	/* the token: min_seq << 2 | max(refs - 1, 0); evicted[] counts the tier */
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 13, 10, 10), 0);
	pm_folio(e.pm, 0, PM_FILE, 0, 0);
	folio_set_lru_refs_flags(e.mg, 0, true, 2); /* refs 3: tier 2 */
	shadow = lru_gen_eviction(e.mg, 0);
	unpack_shadow(shadow, &memcg, &node, &token, &ws);
	CHECK_EQ_U64(token, (10ull << LRU_REFS_WIDTH) | 2);
	CHECK(!ws);
	CHECK_EQ_U64(e.lv->lrugen.evicted[0][FILE_T][2], 1);
	folio(&e, 0)->flags &= ~MR_PG_REFERENCED;
	folio(&e, 0)->flags |= MR_PG_WORKINGSET;
	shadow = lru_gen_eviction(e.mg, 0);
	unpack_shadow(shadow, &memcg, &node, &token, &ws);
	CHECK_EQ_U64(token, 10ull << LRU_REFS_WIDTH);
	CHECK(ws);
	CHECK_EQ_U64(e.lv->lrugen.evicted[0][FILE_T][3], 1);
	e.lv->lrugen.evicted[0][FILE_T][2] = e.lv->lrugen.evicted[0][FILE_T][3] = 0;
	folio_set_lru_refs_flags(e.mg, 0, false, 0);
	env_close(&e);
}

/* ---- Bloom filters ---- */

static void test_bloom(void)
{
	struct env e;
	struct lru_gen_mm_state *ms;
	uint64_t item = pmd_item(1, VA);
	unsigned key[2];

	/* hash_ptr(item, 30) = item * 0x61C8864680B583EB >> 34: low and high 15 bits */
	CHECK_EQ_U64(item, 0x100000010ull);
	get_item_key(item, key);
	CHECK_EQ_U64(key[0], 31252);
	CHECK_EQ_U64(key[1], 20126);
	get_item_key(0xffff888012345678ull, key);
	CHECK_EQ_U64(key[0], 21883);
	CHECK_EQ_U64(key[1], 22962);
	get_item_key(pmd_item(0, VA), key);
	CHECK_EQ_U64(key[0], 6426);
	CHECK_EQ_U64(key[1], 3652);

	/* suitable_to_scan(): young * 8 >= total */
	CHECK(!suitable_to_scan(512, 10));
	CHECK(suitable_to_scan(512, 64));
	CHECK(suitable_to_scan(64, 8));
	CHECK(!suitable_to_scan(64, 7));
	CHECK(!suitable_to_scan(8, 0));

	env_start(&e, 1);
	ms = &e.lv->mm_state;
	/* an unallocated filter says yes to everything */
	CHECK(test_bloom_filter(ms, 4, item));
	CHECK(test_bloom_filter(ms, 5, item));
	update_bloom_filter(ms, 4, item); /* no filter: dropped */
	reset_bloom_filter(e.mg, e.lv, 4);
	CHECK(!test_bloom_filter(ms, 4, item));
	CHECK(!test_bloom_filter(ms, 6, item)); /* same filter: seq % 2 */
	CHECK(test_bloom_filter(ms, 5, item));  /* the other one is still unallocated */
	update_bloom_filter(ms, 4, item);
	CHECK(test_bloom_filter(ms, 4, item));
	get_item_key(item, key);
	CHECK((ms->filters[0][key[0] / 64] >> (key[0] % 64)) & 1);
	CHECK((ms->filters[0][key[1] / 64] >> (key[1] % 64)) & 1);
	CHECK(!test_bloom_filter(ms, 4, pmd_item(1, VA + (2ull << 20))));
	/* reset clears */
	reset_bloom_filter(e.mg, e.lv, 6);
	CHECK(!test_bloom_filter(ms, 4, item));
	env_close(&e);
}

/* ---- scenarios 1-3: baseline inc_min_seq() ---- */

/* Scenario 1's start: file gen 0 = [A, B, C] (pages 0..2), gen 1 = [X] (page 3), and an
 * avg_total[file][0] of 1 to see protected[] folded into. */
static void scenario_1_setup(struct env *e)
{
	enum { A, B, C, X };

	place(e, A, PM_FILE, 0);
	place(e, B, PM_FILE, 0);
	place(e, C, PM_FILE, 0);
	place(e, X, PM_FILE, 1);
	e->lv->lrugen.avg_total[FILE_T][0] = 1;
}

/* Scenario 2's start: gen 0 = [A, P, C] (pages 0..2) with P's gen field promoted to gen 3
 * (workingset), gen 3 = [Y] (page 3). */
static void scenario_2_setup(struct env *e)
{
	enum { A, P, C, Y };

	place(e, A, PM_FILE, 0);
	place(e, P, PM_FILE, 0);
	place(e, C, PM_FILE, 0);
	place(e, Y, PM_FILE, 3);
	CHECK_EQ_U64(mglru_promote_folio(e->p, P), 0); /* gen bits -> gen3, ws */
}

static void test_scenario_1(int stats)
{
	struct env e;
	enum { A, B, C, X };

	if (stats)
		env_start_stats(&e, 4);
	else
		env_start(&e, 4);
	scenario_1_setup(&e);
	CHECK_LIST(&e, 0, FILE_T, A, B, C);
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	/* reversed: eviction order A, B, C, X */
	CHECK_LIST(&e, 1, FILE_T, X, C, B, A);
	CHECK_EMPTY(&e, 0, FILE_T);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[0][FILE_T][0], 0);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[1][FILE_T][0], 4);
	/* protected[file][0] += 3, folded: (avg 1 + 3) / 2 */
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][0], 2);
	CHECK_EQ_U64(e.lv->lrugen.protected[0][FILE_T][0], 0);
	CHECK_EQ_U64(e.lv->lrugen.protected[stats ? 1 : 0][FILE_T][0], 0);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	CHECK_EQ_U64(e.lv->lrugen.max_seq, 4);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), 4);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 0);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_moved, 3);
	env_close(&e);
}

static void test_scenario_2(void)
{
	struct env e;
	enum { A, P, C, Y };

	env_start(&e, 4);
	scenario_2_setup(&e);
	CHECK_EQ_U64(folio_lru_gen(e.mg, P), 3);
	CHECK(has(&e, P, MR_PG_WORKINGSET));
	CHECK_LIST(&e, 0, FILE_T, A, P, C); /* lazily: still on gen0's list */
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[3][FILE_T][0], 2);
	e.lv->lrugen.avg_total[FILE_T][0] = 1;
	e.lv->lrugen.avg_total[FILE_T][3] = 1;
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	CHECK_LIST(&e, 3, FILE_T, Y, P);
	CHECK_LIST(&e, 1, FILE_T, C, A);
	/* protected[3] += 1 (P, promoted, counted too) and protected[0] += 2, folded */
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][3], (1 + 1) / 2);
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][0], (1 + 2) / 2);
	/* P counted once */
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[3][FILE_T][0], 2);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[1][FILE_T][0], 2);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[0][FILE_T][0], 0);
	env_close(&e);
}

static void test_scenario_3(void)
{
	enum { N = 5000 };
	struct env e;
	uint32_t *got = calloc(N, sizeof(*got));
	unsigned i, n, bad = 0;

	env_start(&e, N);
	for (i = 0; i < N; i++) /* F1 (page 0) at the head ... F5000 (page 4999) at the tail */
		place(&e, i, PM_FILE, 0);
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_restarts, 1); /* one restart after 4096 */
	n = mglru_list_pages(e.p, 0, 1, FILE_T, got, N);
	CHECK_EQ_U64(n, N);
	/* F5000 ... F905, then F904 ... F1: fully reversed */
	for (i = 0; i < n && i < N; i++)
		bad += got[i] != N - 1 - i;
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][0], N / 2); /* counted across the restart */
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	free(got);
	env_close(&e);
}

/* ---- S000 (inc_min_seq=v3): scenarios 1-3, the seed halves ---- */

static void test_s000_scenario_1(int stats)
{
	struct env e;
	enum { A, B, C, X };

	env_open(&e, 4, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "inc_min_seq", INC_MIN_SEQ_V3), 0);
	if (stats)
		CHECK_EQ_U64(mr_policy_set_param(e.p, "lru_gen_stats", 1), 0);
	env_init(&e);
	scenario_1_setup(&e);
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	/* order kept: eviction order C, B, A, X */
	CHECK_LIST(&e, 1, FILE_T, X, A, B, C);
	CHECK_EMPTY(&e, 0, FILE_T);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[0][FILE_T][0], 0);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[1][FILE_T][0], 4);
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][0], 2); /* protected += 3, folded */
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), 4);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 0);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_moved, 3);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_list_ops, 1);     /* one splice */
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_size_updates, 1); /* one batch */
	env_close(&e);
}

static void test_s000_scenario_2(void)
{
	struct env e;
	enum { A, P, C, Y };

	env_start_set(&e, 4, "inc_min_seq", INC_MIN_SEQ_V3);
	scenario_2_setup(&e);
	e.lv->lrugen.avg_total[FILE_T][0] = 1;
	e.lv->lrugen.avg_total[FILE_T][3] = 1;
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	CHECK_LIST(&e, 3, FILE_T, P, Y); /* promoted: head of its generation */
	CHECK_LIST(&e, 1, FILE_T, A, C);
	/* protected[3] += 0 (P not counted), protected[0] += 2, folded */
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][3], 1 / 2);
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][0], (1 + 2) / 2);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[3][FILE_T][0], 2); /* P counted once */
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[1][FILE_T][0], 2);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[0][FILE_T][0], 0);
	/* A spliced, P moved, C spliced; two batches of sizes? no: one per zone */
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_list_ops, 3);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_size_updates, 1);
	env_close(&e);
}

static void test_s000_scenario_3(void)
{
	enum { N = 5000 };
	struct env e;
	uint32_t *got = calloc(N, sizeof(*got));
	unsigned i, n, bad = 0;

	env_start_set(&e, N, "inc_min_seq", INC_MIN_SEQ_V3);
	for (i = 0; i < N; i++)
		place(&e, i, PM_FILE, 0);
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_restarts, 1);
	n = mglru_list_pages(e.p, 0, 1, FILE_T, got, N);
	CHECK_EQ_U64(n, N);
	for (i = 0; i < n && i < N; i++) /* F1 ... F5000, in order, across the restart */
		bad += got[i] != i;
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(e.lv->lrugen.avg_total[FILE_T][0], N / 2);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[1][FILE_T][0], N);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_list_ops, 2);     /* a splice per batch */
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_size_updates, 2);
	free(got);
	env_close(&e);
}

/* S000 baseline counts: one list op per folio, one size update per non-promoted one */
static void test_s000_base_costs(void)
{
	struct env e;
	enum { A, P, C, Y };

	env_start(&e, 4);
	scenario_2_setup(&e);
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_list_ops, 3);
	CHECK_EQ_U64(e.mg->stat.inc_min_seq_size_updates, 2);
	env_close(&e);
}

/* ---- scenarios 4-6: in-fault placement, Mode A ---- */

static void fault_setup(struct env *e, uint32_t vma_flags)
{
	CHECK(pm_add_vma(e->pm, 0, VA, VA + 4 * PG, vma_flags, 1) != NULL);
}

/* Scenario 4's fault: F (page 0) mapped young at VA and added in the fault, and the
 * readahead R1..R3 (pages 1..3) added in the same fault, unmapped. */
static void fault_with_readahead(struct env *e)
{
	uint32_t i;

	fault_setup(e, MR_VMA_READ | MR_VMA_FILE);
	pm_folio(e->pm, 0, PM_FILE, 0, 0);
	CHECK_EQ_U64(pm_map(e->pm, 0, VA, 0, MR_PTE_YOUNG), 0);
	e->p->ops->folio_add(e->p, 0, MR_ADD_IN_FAULT);
	for (i = 1; i <= 3; i++) {
		pm_folio(e->pm, i, PM_FILE, 0, 0);
		e->p->ops->folio_add(e->p, i, MR_ADD_IN_FAULT | MR_ADD_READAHEAD);
	}
}

static void test_scenario_4_5(void)
{
	struct env e;
	enum { F, R1, R2, R3 };
	uint32_t i;

	env_start(&e, 4);
	fault_with_readahead(&e);
	/* 4: Mode A: all at max_seq - 2 with PG_referenced */
	for (i = F; i <= R3; i++) {
		CHECK_EQ_U64(folio_lru_gen(e.mg, i), 1);
		CHECK(has(&e, i, MR_PG_REFERENCED));
		CHECK(!has(&e, i, MR_PG_WORKINGSET | MR_PG_ACTIVE));
		CHECK_EQ_U64(mglru_folio_refs(e.p, i), 0);
	}
	CHECK_LIST(&e, 1, FILE_T, R3, R2, R1, F);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), 4);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 0);

	/* 5: one aging pass: F's own young bit promotes it to max_seq with ws */
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(folio_lru_gen(e.mg, F), 3); /* max_seq 3 then; now max_seq - 1 */
	CHECK(has(&e, F, MR_PG_WORKINGSET));
	CHECK(!has(&e, F, MR_PG_REFERENCED));
	CHECK(!(pm_pte_bits(e.pm, 0, VA) & MR_PTE_YOUNG));
	for (i = R1; i <= R3; i++) { /* not mapped: untouched */
		CHECK_EQ_U64(folio_lru_gen(e.mg, i), 1);
		CHECK(has(&e, i, MR_PG_REFERENCED));
	}
	CHECK_LIST(&e, 1, FILE_T, R3, R2, R1, F); /* lazy: F still on gen1's list */
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[3][FILE_T][0], 1);
	CHECK_EQ_U64(e.lv->lrugen.nr_pages[1][FILE_T][0], 3);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
	/* TYFA: 4 PTE slots of the VMA, 1 young, the table found and carried over */
	CHECK_EQ_U64(e.lv->mm_state.stats[0][MM_LEAF_TOTAL], 4);
	CHECK_EQ_U64(e.lv->mm_state.stats[0][MM_LEAF_YOUNG], 1);
	CHECK_EQ_U64(e.lv->mm_state.stats[0][MM_NONLEAF_FOUND], 1);
	CHECK_EQ_U64(e.lv->mm_state.stats[0][MM_NONLEAF_ADDED], 1);
	CHECK_EQ_U64(e.mg->stat.walk_promoted, 1);
	env_close(&e);
}

static void test_scenario_6(void)
{
	struct env e;
	int k;

	env_start(&e, 1);
	pm_folio(e.pm, 0, PM_FILE, 0, 0);
	e.p->ops->folio_add(e.p, 0, MR_ADD_IN_FAULT);
	CHECK_EQ_U64(folio_lru_refs(e.mg, 0), 1); /* Mode A: PG_referenced from the fault */
	CHECK_EQ_U64(lru_tier_from_refs(e.mg, folio_lru_refs(e.mg, 0), false), 0);
	for (k = 1; k <= 4; k++) {
		e.p->ops->mark_accessed(e.p, 0);
		if (k == 1) /* tier A = 1 */
			CHECK_EQ_U64(lru_tier_from_refs(e.mg, folio_lru_refs(e.mg, 0),
							has(&e, 0, MR_PG_WORKINGSET)), 1);
		if (k == 3) { /* counter full, not yet workingset */
			CHECK_EQ_U64(folio_lru_refs(e.mg, 0), 4);
			CHECK(!has(&e, 0, MR_PG_WORKINGSET));
		}
	}
	/* fully referenced at k = 4: refs + ws = BIT(LRU_REFS_WIDTH) + 1 */
	CHECK_EQ_U64(folio_lru_refs(e.mg, 0) + has(&e, 0, MR_PG_WORKINGSET), 5);
	CHECK_EQ_U64(folio_lru_gen(e.mg, 0), 1); /* fd accesses never move a folio */
	env_close(&e);
}

/* ---- scenarios 7-11: the S003 review regressions, Mode A side ---- */

/* A file folio mapped young in a one-page file VMA at VA + slot pages. */
static void mapped_file(struct env *e, uint32_t page, unsigned slot, uint32_t vma_flags,
			uint64_t seq)
{
	CHECK(pm_add_vma(e->pm, 0, VA + slot * PG, VA + (slot + 1) * PG, vma_flags, 1) != NULL);
	place(e, page, PM_FILE, seq);
	CHECK_EQ_U64(pm_map(e->pm, 0, VA + slot * PG, page, MR_PTE_YOUNG), 0);
}

static void test_scenario_7(void)
{
	struct env e;
	enum { M };

	env_start(&e, 1);
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 3, 1, 1), 0); /* 3 gens */
	mapped_file(&e, M, 0, MR_VMA_READ | MR_VMA_FILE, 1);
	CHECK_EQ_U64(cmd(&e, "- 0 0 1 0"), 0);
	/* KEEP, then the rejected rule: PG_referenced cleared, active; re-added at seq 2 */
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), 2);
	CHECK(!has(&e, M, MR_PG_REFERENCED | MR_PG_ACTIVE | MR_PG_WORKINGSET));
	CHECK(has(&e, M, MR_PG_LRU | MR_PG_RESIDENT));
	CHECK_EQ_U64(e.mg->stat.rejected, 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSCAN_DIRECT), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSCAN_FILE), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGROTATE_FILE), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 2);
	env_close(&e);
}

static void test_scenario_8(void)
{
	struct env e;
	enum { M, Z };

	/* pass 1: 4 gens, M in min_seq with a young PTE, first sighting */
	env_start(&e, 2);
	place(&e, Z, PM_FILE, 0);
	mapped_file(&e, M, 0, MR_VMA_READ | MR_VMA_FILE, 0);
	CHECK_LIST(&e, 0, FILE_T, Z, M);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), 1); /* max_seq - 2: seq 1 != min_seq 0 */
	CHECK(has(&e, M, MR_PG_REFERENCED));     /* kept */
	CHECK(!has(&e, M, MR_PG_ACTIVE | MR_PG_WORKINGSET));
	CHECK_EQ_U64(e.mg->stat.rejected, 0);
	CHECK_LIST(&e, 0, FILE_T, Z);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	env_close(&e);

	/* the next rmap sighting: folio_mark_accessed() (refs 2), ACTIVATE, max_seq - 1 */
	env_start(&e, 2);
	place(&e, Z, PM_FILE, 0);
	mapped_file(&e, M, 0, MR_VMA_READ | MR_VMA_FILE, 0);
	folio(&e, M)->flags |= MR_PG_REFERENCED;
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), 2);
	CHECK(has(&e, M, MR_PG_REFERENCED));
	CHECK_EQ_U64(folio_lru_refs(e.mg, M), 2);
	CHECK(!has(&e, M, MR_PG_WORKINGSET | MR_PG_ACTIVE));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
	/* a third sighting: refs > 1 -> PG_workingset, refs flags cleared, max_seq */
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 3, 0, 0), MR_EINVAL); /* lists not empty */
	lruvec_del_folio(e.mg, e.lv, M);
	folio(&e, M)->flags &= ~(MR_PG_LRU | MR_PG_ACTIVE);
	CHECK_EQ_U64(mglru_place_folio(e.p, M, 0, true), 0);
	pm_touch(e.pm, 0, VA, 0);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), 3);
	CHECK(has(&e, M, MR_PG_WORKINGSET));
	CHECK(!has(&e, M, MR_PG_REFERENCED));
	CHECK_EQ_U64(mglru_folio_refs(e.p, M), 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 2);
	env_close(&e);
}

/*
 * kernel=6.12: scenario 8 with 6.12's folio_check_references() (mm/vmscan.c:865, no
 * lru_gen branch) and rejected rule (mm/vmscan.c:4618): the young mapped folio is KEPT
 * with PG_referenced, then re-added PG_active to max_seq with LRU_REFS_FLAGS cleared;
 * nothing counts pgactivate. ([7.2]: seq 1 with PG_referenced, scenario 8.)
 */
static void test_kernel_612_check_references(void)
{
	struct env e;
	enum { M, Z };

	env_start_set(&e, 2, "kernel", KERNEL_6_12);
	place(&e, Z, PM_FILE, 0);
	mapped_file(&e, M, 0, MR_VMA_READ | MR_VMA_FILE, 0);
	folio(&e, M)->flags |= MR_PG_REFERENCED; /* isolate_folio() clears it in 6.12 */
	/* 6.12's scan_folios() has no nr_to_scan budget (MAX_LRU_BATCH, vmscan.c:4399):
	 * Z is isolated (and reclaimed) too, min_seq passes the emptied gens 0 and 1, and
	 * with MIN_NR_GENS left evict_folios() returns 0 (vmscan.c:4589) */
	CHECK_EQ_U64(evict_once(&e, 1, 0), 0);
	CHECK(!has(&e, Z, MR_PG_RESIDENT));
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), 3); /* max_seq */
	CHECK(!has(&e, M, MR_PG_REFERENCED | MR_PG_WORKINGSET | MR_PG_ACTIVE));
	CHECK_EQ_U64(e.mg->stat.rejected, 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	env_close(&e);
}

/*
 * kernel=6.12: shrink_folio_list()'s keep_locked for a mapped PG_referenced folio
 * (6.12 mm/vmscan.c:1109-1111). A and B share a VMA and are isolated in one batch; B
 * (the tail, checked first) is young, and its look-around clears A's A bit and, A being
 * off its gen list, sets PG_referenced on it (folio_update_gen(), vmscan.c:3168). A is
 * then kept before folio_check_references(); without that check A has no young PTE and
 * PG_referenced, so the classic rule returns RECLAIM_CLEAN and A is reclaimed.
 */
static void test_kernel_612_keep_locked(void)
{
	struct env e;
	enum { A, B };

	env_start_set(&e, 2, "kernel", KERNEL_6_12);
	CHECK(pm_add_vma(e.pm, 0, VA, VA + 2 * PG, MR_VMA_READ | MR_VMA_FILE, 1) != NULL);
	place(&e, A, PM_FILE, 0);
	place(&e, B, PM_FILE, 0);
	CHECK_EQ_U64(pm_map(e.pm, 0, VA, A, MR_PTE_YOUNG), 0);
	CHECK_EQ_U64(pm_map(e.pm, 0, VA + PG, B, MR_PTE_YOUNG), 0);
	/* both isolated, gens 0 and 1 empty: min_seq 2, MIN_NR_GENS left -> 0 (4589) */
	CHECK_EQ_U64(evict_once(&e, 64, 0), 0);
	CHECK_EQ_U64(pm_vmstat(e.pm, MR_VM_PGSCAN_FILE), 2); /* [6.12] /proc/vmstat only */
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), 0);
	CHECK(has(&e, A, MR_PG_RESIDENT | MR_PG_LRU));
	CHECK(has(&e, B, MR_PG_RESIDENT | MR_PG_LRU));
	/* both rejected: mapped -> LRU_REFS_FLAGS cleared, PG_active -> max_seq */
	CHECK_EQ_U64(e.mg->stat.rejected, 2);
	CHECK_EQ_U64(folio_lru_gen(e.mg, A), 3);
	CHECK_EQ_U64(folio_lru_gen(e.mg, B), 3);
	CHECK(!has(&e, A, MR_PG_REFERENCED | MR_PG_WORKINGSET | MR_PG_ACTIVE));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	env_close(&e);
}

/*
 * kernel=6.12 tiers in sort_folio() (6.12 mm/vmscan.c:4336-4345) and
 * lru_gen_eviction() (mm/workingset.c:241-254): refs = counter + PG_workingset; a
 * folio with refs 4 is protected even at the fresh tier_idx 3, goes to the *tail* of
 * min_seq + 1 with LRU_REFS_MASK | LRU_REFS_FLAGS cleared, and is counted in 6.12's
 * protected[tier - 1] (the model's [tier], tier 3). [7.2] would count nothing (fully
 * referenced) and put it at the head. An unreferenced folio is evicted in tier 0 with
 * a shadow without the workingset bit.
 */
static void test_kernel_612_tiers(void)
{
	struct env e;
	enum { F, W, Z };

	env_open(&e, 3, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "kernel", KERNEL_6_12), 0);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "lru_gen_stats", 1), 0); /* keep protected[] */
	env_init(&e);
	CHECK_EQ_U64(e.mg->nr_hist_gens, 4);
	place(&e, W, PM_FILE, 1);
	place(&e, F, PM_FILE, 0);
	place(&e, Z, PM_FILE, 0); /* tail: scanned first */
	folio(&e, F)->flags |= MR_PG_REFERENCED | MR_PG_WORKINGSET;
	lgp(e.mg, F)->refs = LRU_REFS_MAX;
	CHECK_EQ_U64(folio_lru_refs(e.mg, F), 4);
	CHECK_EQ_U64(lru_tier_from_refs(e.mg, 4, false), 3);
	CHECK_EQ_U64(lru_tier_from_refs(e.mg, 3, false), 2);
	CHECK_EQ_U64(lru_tier_from_refs(e.mg, 1, false), 1);
	CHECK_EQ_U64(lru_tier_from_refs(e.mg, 0, false), 0);

	evict_once(&e, 64, 0);
	CHECK_EQ_U64(folio_lru_gen(e.mg, F), 1);
	CHECK_LIST(&e, 1, FILE_T, W, F);
	CHECK(!has(&e, F, MR_PG_REFERENCED | MR_PG_WORKINGSET));
	CHECK_EQ_U64(mglru_folio_refs(e.p, F), 0);
	CHECK_EQ_U64(e.lv->lrugen.protected[0][FILE_T][3], 1);
	CHECK_EQ_U64(e.lv->lrugen.protected[0][FILE_T][0], 0);
	CHECK_EQ_U64(e.mg->stat.sorted_protected, 1);
	/* Z: tier 0, counted at the min_seq (1) of when it is freed (docs/mglru-model.md,
	 * "Scenario notes" 7) */
	CHECK(!has(&e, Z, MR_PG_RESIDENT));
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	CHECK_EQ_U64(e.lv->lrugen.evicted[1][FILE_T][0], 1);
	env_close(&e);
}

/*
 * free_pages_prepare() clears LRU_REFS_MASK with the folio's other flags: a folio reclaim
 * frees keeps no reference count for its next time in memory (which, without a recent
 * shadow, starts at 0 as a new folio does). Z, at the tail, has a count of 1 and
 * PG_referenced, unmapped: folio_check_references() says RECLAIM_CLEAN.
 */
static void test_evicted_refs_cleared(void)
{
	struct env e;
	enum { W, Z };

	env_open(&e, 2, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "kernel", KERNEL_6_12), 0);
	env_init(&e);
	place(&e, W, PM_FILE, 1);
	place(&e, Z, PM_FILE, 0);
	folio(&e, Z)->flags |= MR_PG_REFERENCED; /* isolate_folio() keeps the count */
	lgp(e.mg, Z)->refs = 1;
	evict_once(&e, 64, 0);
	CHECK(!has(&e, Z, MR_PG_RESIDENT));
	CHECK_EQ_U64(mglru_folio_refs(e.p, Z), 0);
	env_close(&e);
}

/*
 * A refault restored in a fault (refs 3 + PG_workingset, workingset.c:320) put at
 * max_seq by folio_add_lru()'s PG_active: kernel=6.12.95 (the kernel-lab kernel, before
 * "mm/mglru: reset page lru tier bits when activating") keeps the counter, so it is tier
 * 3 and sort_folio() protects it at any tier_idx (refs == 4, vmscan.c:4336); kernel=6.12
 * (6.12.117, mm_inline.h:263-272) clears the counter and keeps PG_workingset: tier 1.
 */
static void test_kernel_612_active_add_keeps_refs(void)
{
	for (int k = 0; k < 2; k++) {
		struct env e;
		enum { F, Z };

		env_start_set(&e, 2, "kernel", k ? KERNEL_6_12 : KERNEL_6_12_95);
		place(&e, Z, PM_ANON, 0);
		pm_folio(e.pm, F, PM_ANON, 0, 0);
		folio(&e, F)->flags &= ~MR_PG_LRU;
		folio(&e, F)->flags |= MR_PG_WORKINGSET;
		lgp(e.mg, F)->refs = LRU_REFS_MAX;
		folio_add_lru(e.mg, F, MR_ADD_IN_FAULT);
		CHECK_EQ_U64(folio_lru_gen(e.mg, F), lru_gen_from_seq(e.lv->lrugen.max_seq));
		CHECK(!has(&e, F, MR_PG_ACTIVE));
		CHECK(has(&e, F, MR_PG_WORKINGSET));
		CHECK_EQ_U64(mglru_folio_refs(e.p, F), k ? 0 : LRU_REFS_MAX);
		CHECK_EQ_U64(lru_tier_from_refs(e.mg, folio_lru_refs(e.mg, F),
						has(&e, F, MR_PG_WORKINGSET)), k ? 1 : 3);
		env_close(&e);
	}
}

/* kernel=6.12 folio_inc_refs() (6.12 mm/swap.c:414): PG_referenced, then PG_workingset,
 * then the counter to 3 ([7.2]: PG_referenced, counter 1..3, then PG_workingset). */
static void test_kernel_612_inc_refs(void)
{
	struct env e;
	int i;
	enum { F };

	env_start_set(&e, 1, "kernel", KERNEL_6_12);
	place(&e, F, PM_FILE, 0);
	folio_mark_accessed(e.mg, F);
	CHECK(has(&e, F, MR_PG_REFERENCED) && !has(&e, F, MR_PG_WORKINGSET));
	CHECK_EQ_U64(mglru_folio_refs(e.p, F), 0);
	folio_mark_accessed(e.mg, F);
	CHECK(has(&e, F, MR_PG_REFERENCED | MR_PG_WORKINGSET));
	CHECK(has(&e, F, MR_PG_WORKINGSET));
	CHECK_EQ_U64(mglru_folio_refs(e.p, F), 0);
	CHECK_EQ_U64(folio_lru_refs(e.mg, F), 1);
	for (i = 1; i <= 4; i++) {
		folio_mark_accessed(e.mg, F);
		CHECK_EQ_U64(mglru_folio_refs(e.p, F), i < 3 ? i : 3);
	}
	CHECK_EQ_U64(folio_lru_refs(e.mg, F), 4);
	env_close(&e);
}

/*
 * kernel=6.12.95 sort_folio() culls an unevictable folio before isolation (6.12.113
 * mm/vmscan.c:4327-4335): F (mlocked, on a gen list, the tail) goes to the unevictable
 * list as sorted (pgrefill), and only Z is scanned. kernel=6.12 (6.12.117, after "mm/mglru:
 * fix and remove redundant unevictable folio handling", vmscan.c:4325) isolates F too,
 * and evict_folios() culls it after shrink_folio_list(): pgscan 2, pgrefill 0.
 */
static void test_kernel_61295_unevictable_culled(void)
{
	for (int k = 0; k < 2; k++) {
		struct env e;
		enum { Z, F };

		env_start_set(&e, 2, "kernel", k ? KERNEL_6_12 : KERNEL_6_12_95);
		place(&e, Z, PM_FILE, 0);
		place(&e, F, PM_FILE, 0);
		/* folio_evictable() false while still on a gen list */
		folio(&e, F)->flags |= MR_PG_MLOCKED;
		CHECK_LIST(&e, 0, FILE_T, Z, F);
		evict_once(&e, 64, 0);
		CHECK(!has(&e, Z, MR_PG_RESIDENT));
		CHECK_EQ_U64(folio_lru_gen(e.mg, F), (uint64_t)-1);
		CHECK_EQ_U64(lgp(e.mg, F)->list, LRU_GEN_LIST_UNEVICTABLE);
		CHECK(has(&e, F, MR_PG_LRU));
		CHECK(!has(&e, F, MR_PG_ACTIVE));
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_UNEVICTABLE), 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), 0);
		CHECK_EQ_U64(stat0(&e, MR_VM_PGREFILL), k ? 0 : 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_PGSCAN_DIRECT), k ? 2 : 1);
		CHECK_EQ_U64(pm_vmstat(e.pm, MR_VM_PGSCAN_FILE), k ? 2 : 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), 1);
		env_close(&e);
	}
}

/*
 * kernel=6.12.95 sort_folio()'s "waiting for writeback" (6.12.113 mm/vmscan.c:4370-4376):
 * W (under writeback) and D (dirty file) are not isolated but folio_inc_gen(reclaiming)
 * moves each to the head of min_seq + 1 with PG_reclaim and LRU_REFS_FLAGS cleared
 * (vmscan.c:3199-3201); only Z is scanned. When W's writeback ends,
 * folio_rotate_reclaimable() moves it to the tail of the oldest generation. kernel=6.12
 * (6.12.117, after "mm/mglru: use the common routine for dirty/writeback
 * reactivation") isolates all three, and shrink_folio_list() activates W and D with
 * PG_reclaim: evict_folios() keeps their flags (vmscan.c:4608) and they go to max_seq.
 */
static void test_kernel_61295_writeback_sorted(void)
{
	for (int k = 0; k < 2; k++) {
		struct env e;
		enum { X, D, W, Z };

		env_start_set(&e, 4, "kernel", k ? KERNEL_6_12 : KERNEL_6_12_95);
		place(&e, X, PM_FILE, 1);
		place(&e, D, PM_FILE, 0);
		place(&e, W, PM_FILE, 0);
		place(&e, Z, PM_FILE, 0);
		folio(&e, D)->flags |= MR_PG_DIRTY | MR_PG_REFERENCED;
		lgp(e.mg, D)->refs = 1;
		folio(&e, W)->flags |= MR_PG_WRITEBACK;
		CHECK_LIST(&e, 0, FILE_T, D, W, Z);
		evict_once(&e, 64, 0);
		CHECK(!has(&e, Z, MR_PG_RESIDENT));
		CHECK(has(&e, D, MR_PG_RECLAIM) && has(&e, D, MR_PG_LRU));
		CHECK(has(&e, W, MR_PG_RECLAIM) && has(&e, W, MR_PG_LRU));
		CHECK(!has(&e, D, MR_PG_REFERENCED | MR_PG_ACTIVE));
		CHECK_EQ_U64(mglru_folio_refs(e.p, D), 0);
		CHECK_EQ_U64(stat0(&e, MR_VM_PGREFILL), k ? 0 : 2);
		CHECK_EQ_U64(stat0(&e, MR_VM_PGSCAN_DIRECT), k ? 3 : 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), k ? 2 : 0);
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_VMSCAN_IMMEDIATE), k ? 1 : 0);
		CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
		if (k) {
			CHECK_LIST(&e, 3, FILE_T, D, W); /* max_seq, D put back last */
			CHECK_LIST(&e, 1, FILE_T, X);
		} else {
			CHECK_LIST(&e, 1, FILE_T, D, W, X);
			CHECK_EMPTY(&e, 3, FILE_T);
			/* folio_end_writeback(): PG_reclaim -> the tail of min_seq */
			folio(&e, W)->flags &= ~MR_PG_WRITEBACK;
			if (has(&e, W, MR_PG_RECLAIM))
				e.p->ops->rotate(e.p, W);
			CHECK(!has(&e, W, MR_PG_RECLAIM));
			CHECK_LIST(&e, 1, FILE_T, D, X, W);
		}
		env_close(&e);
	}
}

/*
 * kernel=6.12.95 isolate_folio() clears PG_reclaim "for shrink_folio_list()" (6.12.113
 * mm/vmscan.c:4406). A: a dirty anon folio in the swap cache with a young PTE and a
 * PG_reclaim left from before; shrink_folio_list() keeps it (KEEP, PG_referenced).
 * 6.12.95: no PG_reclaim, so evict_folios()'s rejected rule clears its flags and sets
 * PG_active: max_seq. kernel=6.12 (6.12.117, the clearing dropped by "mm/mglru: use the
 * common routine for dirty/writeback reactivation") keeps PG_reclaim: the PG_reclaim
 * rule (vmscan.c:4608) leaves it as it is, and lru_gen_add_folio() puts a PG_reclaim
 * dirty folio in max_seq - 1 (mm_inline.h:254-257).
 */
static void test_kernel_61295_isolate_clears_reclaim(void)
{
	for (int k = 0; k < 2; k++) {
		struct env e;
		enum { A };

		env_start_set(&e, 1, "kernel", k ? KERNEL_6_12 : KERNEL_6_12_95);
		CHECK(pm_add_vma(e.pm, 0, VA, VA + PG, MR_VMA_READ | MR_VMA_WRITE, 0) != NULL);
		place(&e, A, PM_ANON, 0);
		CHECK_EQ_U64(pm_map(e.pm, 0, VA, A, MR_PTE_YOUNG), 0);
		folio(&e, A)->flags |= MR_PG_SWAPCACHE | MR_PG_DIRTY | MR_PG_RECLAIM;
		evict_once(&e, 64, 200);
		CHECK(has(&e, A, MR_PG_LRU) && has(&e, A, MR_PG_DIRTY));
		CHECK_EQ_U64(folio_lru_gen(e.mg, A), k ? 2 : 3);
		CHECK_EQ_U64(has(&e, A, MR_PG_RECLAIM), k);
		CHECK_EQ_U64(has(&e, A, MR_PG_REFERENCED), k);
		CHECK_EQ_U64(e.mg->stat.rejected, k ? 0 : 1);
		env_close(&e);
	}
}

static void test_scenario_9(void)
{
	struct env e;
	enum { D, Z };

	env_start(&e, 2);
	place(&e, Z, PM_FILE, 0);
	place(&e, D, PM_FILE, 0);
	folio(&e, D)->flags |= MR_PG_DIRTY;
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	/* [7.2] shrink path: PG_reclaim, activate; rule 1 before rule 4: max_seq - 1 */
	CHECK(has(&e, D, MR_PG_RECLAIM));
	CHECK(has(&e, D, MR_PG_DIRTY | MR_PG_LRU));
	CHECK_EQ_U64(folio_lru_gen(e.mg, D), 2);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_VMSCAN_IMMEDIATE), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), 0);
	/* the flusher writes it; writeback ends on a PG_reclaim folio: tail of the oldest */
	folio(&e, D)->flags &= ~MR_PG_DIRTY;
	e.p->ops->rotate(e.p, D);
	CHECK(!has(&e, D, MR_PG_RECLAIM));
	CHECK_EQ_U64(folio_lru_gen(e.mg, D), 0);
	CHECK_LIST(&e, 0, FILE_T, Z, D);
	CHECK_EQ_U64(pm_vmstat(e.pm, MR_VM_PGROTATED), 1); /* no memory.stat field */
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 0);
	env_close(&e);
}

static void test_scenario_10(void)
{
	struct env e;
	enum { G, H };

	env_start(&e, 2);
	place(&e, G, PM_FILE, 2); /* max_seq - 1: active */
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
	CHECK(folio_isolate_lru(e.mg, G)); /* migration: off the LRU with PG_active */
	CHECK(has(&e, G, MR_PG_ACTIVE));
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 0);
	folio_putback_lru(e.mg, G);
	CHECK_EQ_U64(folio_lru_gen(e.mg, G), 2); /* Mode A: max_seq - 1 */
	CHECK(!has(&e, G, MR_PG_ACTIVE));
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), 0);
	/* an inactive one gets no PG_active and goes back by rule 5 */
	place(&e, H, PM_FILE, 1);
	CHECK(folio_isolate_lru(e.mg, H));
	CHECK(!has(&e, H, MR_PG_ACTIVE));
	folio_putback_lru(e.mg, H);
	CHECK_EQ_U64(folio_lru_gen(e.mg, H), 0);
	env_close(&e);
}

static void test_scenario_11(void)
{
	int ws;

	for (ws = 0; ws <= 1; ws++) {
		struct env e;
		enum { W, Z };
		uint64_t shadow;

		env_start(&e, 2);
		place(&e, Z, PM_FILE, 0);
		place(&e, W, PM_FILE, 0);
		if (ws)
			folio(&e, W)->flags |= MR_PG_WORKINGSET;
		CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
		CHECK(!has(&e, W, MR_PG_RESIDENT));
		CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_FILE), 1);
		CHECK_EQ_U64(e.lv->lrugen.evicted[0][FILE_T][ws ? 3 : 0], 1);
		shadow = e.pm->shadow[W];
		CHECK(shadow != 0);

		/* the refault, in a fault: workingset_refault() then folio_add_lru() */
		pm_folio(e.pm, W, PM_FILE, 0, 0);
		e.p->ops->refault(e.p, W, shadow, MR_ADD_IN_FAULT);
		e.p->ops->folio_add(e.p, W, MR_ADD_IN_FAULT);
		CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_REFAULT_FILE), 1);
		CHECK_EQ_U64(e.lv->lrugen.refaulted[0][FILE_T][ws ? 3 : 0], 1);
		if (!ws) {
			/* Mode A: no activation counted; max_seq - 2 with PG_referenced */
			CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_ACTIVATE_FILE), 0);
			CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_RESTORE_FILE), 0);
			CHECK_EQ_U64(folio_lru_gen(e.mg, W), 1);
			CHECK(has(&e, W, MR_PG_REFERENCED));
			CHECK(!has(&e, W, MR_PG_WORKINGSET));
		} else {
			CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_ACTIVATE_FILE), 1);
			CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_RESTORE_FILE), 1);
			CHECK_EQ_U64(folio_lru_gen(e.mg, W), 3); /* max_seq */
			CHECK(has(&e, W, MR_PG_WORKINGSET));
			CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
		}
		CHECK_EQ_U64(pm_vmstat(e.pm, MR_VM_WORKINGSET_REFAULT_FILE), 1);
		env_close(&e);
	}
}

/* ---- scenarios 12-13: mapped exec, baseline side ---- */

static void test_scenario_12(void)
{
	struct env e;
	enum { X };

	env_start(&e, 1);
	mapped_file(&e, X, 0, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE, 1);
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	/* baseline walk: PG_referenced only, no promotion */
	CHECK(has(&e, X, MR_PG_REFERENCED));
	CHECK(!has(&e, X, MR_PG_WORKINGSET));
	CHECK_EQ_U64(folio_lru_gen(e.mg, X), 1);
	CHECK(!(pm_pte_bits(e.pm, 0, VA) & MR_PTE_YOUNG));
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	/* evict X's generation, no further accesses: no young PTE -> RECLAIM */
	CHECK_EQ_U64(cmd(&e, "- 0 0 1 0"), 0);
	CHECK(!has(&e, X, MR_PG_RESIDENT));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), 1);
	CHECK_EQ_U64(e.pm->nr_removed, 1);
	env_close(&e);
}

/* Scenario 13's control: an anon folio A (page 2) mapped young through a VM_EXEC VMA at
 * VA + 8 pages, behind B (page 3) in min_seq, evicted anon-only: kept, and re-added at
 * max_seq - 1 (rule 3) with PG_referenced, whatever the S003/S004 modes. */
static void anon_exec_control(struct env *e)
{
	enum { A = 2, B = 3 };

	CHECK(pm_add_vma(e->pm, 0, VA + 8 * PG, VA + 9 * PG, MR_VMA_READ | MR_VMA_EXEC, 0));
	place(e, B, PM_ANON, 0);
	place(e, A, PM_ANON, 0);
	CHECK_EQ_U64(pm_map(e->pm, 0, VA + 8 * PG, A, MR_PTE_YOUNG), 0);
	CHECK_EQ_U64(evict_once(e, 1, 200), 1);
	CHECK_EQ_U64(folio_lru_gen(e->mg, A), 2);
	CHECK(has(e, A, MR_PG_REFERENCED));
}

static void test_scenario_13(void)
{
	struct env e;
	enum { X, Z, A, B };

	env_open(&e, 4, 1);
	mr_policy_set_param(e.p, "enabled", 5); /* no mm walk */
	env_init(&e);
	place(&e, Z, PM_FILE, 0);
	mapped_file(&e, X, 0, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE, 0);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	/* baseline: KEEP, re-added at max_seq - 2 with PG_referenced */
	CHECK_EQ_U64(folio_lru_gen(e.mg, X), 1);
	CHECK(has(&e, X, MR_PG_REFERENCED));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);

	/* control: an anon VM_EXEC folio: KEEP, re-added at max_seq - 1 (rule 3) */
	anon_exec_control(&e);
	CHECK(!has(&e, A, MR_PG_SWAPCACHE)); /* the reference check comes first */
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSCAN_ANON), 1);
	/* aging with the mm walk off: no walk, the iteration just ends */
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	CHECK_EQ_U64(e.mg->stat.aging_nowalk, 1);
	CHECK_EQ_U64(e.mg->stat.walk_mms, 0);
	env_close(&e);
}

/* ---- S003 (ra_placement=B|C): scenarios 4-11, the B and C halves ---- */

/* Scenario 7 with company: 3 generations (file min_seq 1), Z (page 1) keeping gen 1
 * populated and the mapped young file folio M (page 0) in it. */
static void scenario_7_setup(struct env *e)
{
	enum { M, Z };

	CHECK_EQ_U64(mglru_set_seqs(e->p, 0, 3, 1, 1), 0); /* 3 gens */
	place(e, Z, PM_FILE, 1);
	mapped_file(e, M, 0, MR_VMA_READ | MR_VMA_FILE, 1);
}

/* Take a re-added folio off its list again, put it at seq and touch its PTE (at VA): the
 * state of "touch it and evict again". */
static void replace_and_touch(struct env *e, uint32_t page, uint64_t seq)
{
	lruvec_del_folio(e->mg, e->lv, page);
	folio(e, page)->flags &= ~MR_PG_LRU;
	CHECK_EQ_U64(mglru_place_folio(e->p, page, seq, true), 0);
	pm_touch(e->pm, 0, VA, 0);
}

static void test_s003_scenario_4_5(int mode)
{
	struct env e;
	enum { F, R1, R2, R3 };
	unsigned want = mode == RA_PLACEMENT_B ? 1 : 2; /* max_seq - 2 / max_seq - 1 */
	uint32_t i;

	env_start_set(&e, 4, "ra_placement", mode);
	fault_with_readahead(&e);
	/* 4: B: max_seq - 2 without PG_referenced; C: max_seq - 1, active */
	for (i = F; i <= R3; i++) {
		CHECK_EQ_U64(folio_lru_gen(e.mg, i), want);
		CHECK(!has(&e, i, MR_PG_REFERENCED | MR_PG_WORKINGSET | MR_PG_ACTIVE));
	}
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), mode == RA_PLACEMENT_C ? 4 : 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), mode == RA_PLACEMENT_B ? 4 : 0);
	CHECK_EQ_U64(e.mg->stat.ra_active_inactive, 0); /* in-fault adds are exempt */

	/* 5: one aging pass: F only gets PG_referenced */
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK(has(&e, F, MR_PG_REFERENCED));
	CHECK(!has(&e, F, MR_PG_WORKINGSET));
	CHECK_EQ_U64(folio_lru_gen(e.mg, F), want);
	CHECK(!(pm_pte_bits(e.pm, 0, VA) & MR_PTE_YOUNG));
	CHECK_EQ_U64(e.mg->stat.walk_promoted, 0);
	env_close(&e);
}

static void test_s003_scenario_6(int mode)
{
	struct env e;
	int k;

	env_start_set(&e, 1, "ra_placement", mode);
	pm_folio(e.pm, 0, PM_FILE, 0, 0);
	e.p->ops->folio_add(e.p, 0, MR_ADD_IN_FAULT);
	CHECK_EQ_U64(folio_lru_refs(e.mg, 0), 0);
	for (k = 1; k <= 5; k++) {
		e.p->ops->mark_accessed(e.p, 0);
		if (k == 1) /* tier B/C = 0 */
			CHECK_EQ_U64(lru_tier_from_refs(e.mg, folio_lru_refs(e.mg, 0), false), 0);
		if (k == 4) /* not yet fully referenced */
			CHECK(folio_lru_refs(e.mg, 0) + has(&e, 0, MR_PG_WORKINGSET) < 5);
	}
	CHECK_EQ_U64(folio_lru_refs(e.mg, 0) + has(&e, 0, MR_PG_WORKINGSET), 5); /* k = 5 */
	env_close(&e);
}

static void test_s003_scenario_7(int mode)
{
	struct env e;
	enum { M, Z };
	unsigned want = mode == RA_PLACEMENT_B ? 1 : 2;

	/* Z keeps gen(min_seq) populated, so min_seq stays 1 after M is isolated (alone,
	 * try_to_inc_min_seq() would advance min_seq to 2 and every mode would clamp there) */
	env_start_set(&e, 2, "ra_placement", mode);
	scenario_7_setup(&e);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	/* KEEP, then the rejected rule: PG_referenced cleared, active set */
	CHECK_EQ_U64(e.mg->stat.rejected, 1);
	CHECK(!has(&e, M, MR_PG_REFERENCED | MR_PG_ACTIVE | MR_PG_WORKINGSET));
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), want);
	CHECK_EQ_U64(e.mg->stat.ra_rejected_min_seq, mode == RA_PLACEMENT_B);
	CHECK_EQ_U64(e.mg->stat.ra_active_inactive, mode == RA_PLACEMENT_B);
	if (mode == RA_PLACEMENT_B) {
		/* touch and evict M again: KEEP at min_seq again, never workingset */
		replace_and_touch(&e, M, 1);
		CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
		CHECK_EQ_U64(folio_lru_gen(e.mg, M), 1);
		CHECK(!has(&e, M, MR_PG_WORKINGSET));
		CHECK_EQ_U64(e.mg->stat.rejected, 2);
		CHECK_EQ_U64(e.mg->stat.ra_rejected_min_seq, 2);
	}
	env_close(&e);
}

/* Mode A, same setup: seq 2 (and the existing scenario 7 test: alone, min_seq moves) */
static void test_s003_scenario_7a(void)
{
	struct env e;
	enum { M, Z };

	env_start(&e, 2);
	scenario_7_setup(&e);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), 2);
	CHECK_EQ_U64(e.mg->stat.rejected, 1);
	CHECK_EQ_U64(e.mg->stat.ra_rejected_min_seq, 0);
	env_close(&e);
}

static void test_s003_scenario_8(int mode)
{
	struct env e;
	enum { M, Z };
	unsigned want = mode == RA_PLACEMENT_B ? 1 : 2;

	env_start_set(&e, 2, "ra_placement", mode);
	place(&e, Z, PM_FILE, 0);
	mapped_file(&e, M, 0, MR_VMA_READ | MR_VMA_FILE, 0);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	/* pass 1: rule 5 gives min_seq, so rejected: PG_referenced lost */
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), want);
	CHECK(!has(&e, M, MR_PG_REFERENCED | MR_PG_ACTIVE | MR_PG_WORKINGSET));
	CHECK_EQ_U64(e.mg->stat.rejected, 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	/* the next rmap sighting is a first sighting again: KEEP */
	replace_and_touch(&e, M, 0);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(folio_lru_gen(e.mg, M), want);
	CHECK(!has(&e, M, MR_PG_WORKINGSET));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	env_close(&e);
}

static void test_s003_scenario_9(int mode)
{
	struct env e;
	enum { D, Z };

	env_start_set(&e, 2, "ra_placement", mode);
	place(&e, Z, PM_FILE, 0);
	place(&e, D, PM_FILE, 0);
	folio(&e, D)->flags |= MR_PG_DIRTY;
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK(has(&e, D, MR_PG_RECLAIM));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 1);
	if (mode == RA_PLACEMENT_B) { /* rule 1 before rule 4: max_seq - 2 */
		CHECK_EQ_U64(folio_lru_gen(e.mg, D), 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 0);
		CHECK_EQ_U64(e.mg->stat.ra_active_inactive, 1);
	} else {
		CHECK_EQ_U64(folio_lru_gen(e.mg, D), 2);
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
		CHECK_EQ_U64(e.mg->stat.ra_active_inactive, 0);
	}
	env_close(&e);

	/* with 3 generations, B puts it back at min_seq */
	if (mode == RA_PLACEMENT_B) {
		env_start_set(&e, 2, "ra_placement", mode);
		CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 3, 1, 1), 0);
		place(&e, Z, PM_FILE, 1);
		place(&e, D, PM_FILE, 1);
		folio(&e, D)->flags |= MR_PG_DIRTY;
		CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
		CHECK_EQ_U64(folio_lru_gen(e.mg, D), 1);
		CHECK_EQ_U64(e.mg->stat.ra_active_inactive, 1);
		env_close(&e);
	}
}

static void test_s003_scenario_10(int mode)
{
	struct env e;
	enum { G };

	env_start_set(&e, 1, "ra_placement", mode);
	place(&e, G, PM_FILE, 2);
	CHECK(folio_isolate_lru(e.mg, G));
	folio_putback_lru(e.mg, G);
	if (mode == RA_PLACEMENT_B) { /* demoted: active -> inactive */
		CHECK_EQ_U64(folio_lru_gen(e.mg, G), 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 0);
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_FILE), 1);
		CHECK_EQ_U64(e.mg->stat.ra_active_inactive, 1);
	} else {
		CHECK_EQ_U64(folio_lru_gen(e.mg, G), 2);
		CHECK_EQ_U64(stat0(&e, MR_VM_NR_ACTIVE_FILE), 1);
		CHECK_EQ_U64(e.mg->stat.ra_active_inactive, 0);
	}
	env_close(&e);
}

static void test_s003_scenario_11(int mode)
{
	int ws;

	for (ws = 0; ws <= 1; ws++) {
		struct env e;
		enum { W, Z };
		uint64_t shadow;

		env_start_set(&e, 2, "ra_placement", mode);
		place(&e, Z, PM_FILE, 0);
		place(&e, W, PM_FILE, 0);
		if (ws)
			folio(&e, W)->flags |= MR_PG_WORKINGSET;
		CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
		shadow = e.pm->shadow[W];
		pm_folio(e.pm, W, PM_FILE, 0, 0);
		e.p->ops->refault(e.p, W, shadow, MR_ADD_IN_FAULT);
		e.p->ops->folio_add(e.p, W, MR_ADD_IN_FAULT);
		CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_REFAULT_FILE), 1);
		CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_ACTIVATE_FILE), 1);
		if (!ws) {
			CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_RESTORE_FILE), 0);
			CHECK_EQ_U64(folio_lru_gen(e.mg, W), mode == RA_PLACEMENT_B ? 1 : 2);
			CHECK_EQ_U64(e.mg->stat.ra_activate_inactive, mode == RA_PLACEMENT_B);
		} else {
			CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_RESTORE_FILE), 1);
			CHECK_EQ_U64(folio_lru_gen(e.mg, W), 3);
			CHECK_EQ_U64(e.mg->stat.ra_activate_inactive, 0);
		}
		env_close(&e);
	}
}

/* S003: rule 5 in B/C ignores PG_referenced outside a fault (the Mode A side effect) */
static void test_s003_rule5(int mode)
{
	struct env e;

	env_start_set(&e, 1, "ra_placement", mode);
	pm_folio(e.pm, 0, PM_FILE, 0, 0);
	folio(&e, 0)->flags |= MR_PG_REFERENCED; /* read() before the lru_add drain */
	e.p->ops->folio_add(e.p, 0, 0);
	CHECK_EQ_U64(folio_lru_gen(e.mg, 0), mode == RA_PLACEMENT_A ? 1 : 0);
	env_close(&e);
}

/* ---- S004 (exec_promote=1|alt): scenarios 12-13, the seed halves ---- */

static void test_s004_scenario_12(int exec, int anon)
{
	struct env e;
	enum { X, Z };

	env_start_set(&e, 2, "exec_promote", exec);
	if (anon) {
		CHECK(pm_add_vma(e.pm, 0, VA, VA + PG, MR_VMA_READ | MR_VMA_EXEC, 0) != NULL);
		place(&e, X, PM_ANON, 1);
		CHECK_EQ_U64(pm_map(e.pm, 0, VA, X, MR_PTE_YOUNG), 0);
	} else {
		mapped_file(&e, X, 0, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE, 1);
	}
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	if (anon || exec == EXEC_PROMOTE_OFF) {
		/* PG_referenced only */
		CHECK(has(&e, X, MR_PG_REFERENCED));
		CHECK(!has(&e, X, MR_PG_WORKINGSET));
		CHECK_EQ_U64(folio_lru_gen(e.mg, X), 1);
		CHECK_EQ_U64(e.mg->stat.exec_first_promoted, 0);
	} else {
		/* promoted to max_seq (3 at the walk) with PG_workingset */
		CHECK(!has(&e, X, MR_PG_REFERENCED));
		CHECK(has(&e, X, MR_PG_WORKINGSET));
		CHECK_EQ_U64(folio_lru_gen(e.mg, X), 3);
		CHECK_EQ_U64(e.mg->stat.exec_first_promoted, 1);
	}
	if (!anon) {
		/* evict X's old generation, no further accesses */
		CHECK_EQ_U64(cmd(&e, "- 0 0 1 0"), 0);
		CHECK_EQ_U64(has(&e, X, MR_PG_RESIDENT), exec != EXEC_PROMOTE_OFF);
	}
	env_close(&e);
}

/* The Mode-A caveat: a freshly faulted exec folio already has PG_referenced, so the
 * baseline promotes it on the first walk too; S004 makes no difference there. */
static void test_s004_mode_a_caveat(int exec)
{
	struct env e;
	enum { X };

	env_start_set(&e, 1, "exec_promote", exec);
	fault_setup(&e, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE);
	pm_folio(e.pm, X, PM_FILE, 0, 0);
	CHECK_EQ_U64(pm_map(e.pm, 0, VA, X, MR_PTE_YOUNG), 0);
	e.p->ops->folio_add(e.p, X, MR_ADD_IN_FAULT);
	CHECK(has(&e, X, MR_PG_REFERENCED));
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(folio_lru_gen(e.mg, X), 3);
	CHECK(has(&e, X, MR_PG_WORKINGSET));
	CHECK_EQ_U64(e.mg->stat.exec_first_promoted, 0);
	env_close(&e);
}

static void test_s004_scenario_13(int exec, int mode)
{
	struct env e;
	enum { X, Z, A, B };
	unsigned want;

	env_open(&e, 4, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "enabled", 5), 0); /* no mm walk */
	CHECK_EQ_U64(mr_policy_set_param(e.p, "exec_promote", exec), 0);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "ra_placement", mode), 0);
	env_init(&e);
	place(&e, Z, PM_FILE, 0);
	mapped_file(&e, X, 0, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE, 0);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	if (exec == EXEC_PROMOTE_OFF) {
		/* KEEP: A -> max_seq - 2 (referenced kept); B -> rejected, max_seq - 2;
		 * C -> rejected, max_seq - 1 */
		want = mode == RA_PLACEMENT_C ? 2 : 1;
		CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
		CHECK(!has(&e, X, MR_PG_WORKINGSET));
	} else if (exec == EXEC_PROMOTE_V3) {
		/* ACTIVATE: max_seq - 1 (A/C), max_seq - 2 (B) */
		want = mode == RA_PLACEMENT_B ? 1 : 2;
		CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 1);
		CHECK(has(&e, X, MR_PG_REFERENCED));
		CHECK(!has(&e, X, MR_PG_WORKINGSET));
		CHECK_EQ_U64(e.mg->stat.exec_first_activated, 1);
	} else {
		/* S004-alt: max_seq with PG_workingset */
		want = 3;
		CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 1);
		CHECK(has(&e, X, MR_PG_WORKINGSET));
	}
	CHECK_EQ_U64(folio_lru_gen(e.mg, X), want);

	/* control: an anon VM_EXEC folio: KEEP, max_seq - 1 (rule 3), in every mode */
	anon_exec_control(&e);
	CHECK(!has(&e, A, MR_PG_WORKINGSET));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), exec != EXEC_PROMOTE_OFF);
	env_close(&e);
}

/* Any combination parses and runs: all toggles on together. */
static void test_seed_params(void)
{
	struct env e;
	const struct mr_param_desc *d = mr_mglru_ops.params;
	size_t i;
	int found = 0;

	for (i = 0; i < mr_mglru_ops.nparams; i++)
		found += !strcmp(d[i].name, "inc_min_seq") || !strcmp(d[i].name, "ra_placement") ||
			 !strcmp(d[i].name, "exec_promote");
	CHECK_EQ_U64(found, 3);
	env_open(&e, 1, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "ra_placement", 3), MR_ERANGE);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "exec_promote", 3), MR_ERANGE);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "inc_min_seq", 2), MR_ERANGE);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "inc_min_seq", INC_MIN_SEQ_V3), 0);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "ra_placement", RA_PLACEMENT_B), 0);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "exec_promote", EXEC_PROMOTE_ALT), 0);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "probes", 1), 0);
	env_init(&e);
	CHECK(e.mg->last_seen != NULL);
	env_close(&e);
}

/* probes=1: eviction inversions by last observed access; no decision changes */
static void test_probes(void)
{
	struct env e;
	enum { A, B, C, Z };
	uint32_t i;

	env_start_set(&e, 4, "probes", 1);
	place(&e, Z, PM_FILE, 1); /* keeps the lruvec at 4 generations' worth of state */
	for (i = A; i <= C; i++) {
		e.pm->m.now_ns = 1 + i;
		pm_folio(e.pm, i, PM_FILE, 0, 0);
		e.p->ops->folio_add(e.p, i, 0); /* rule 5: the oldest generation, head */
	}
	CHECK_LIST(&e, 0, FILE_T, C, B, A);
	e.pm->m.now_ns = 10;
	e.p->ops->mark_accessed(e.p, A); /* A is now the hottest, still tier 0 */
	CHECK(evict_once(&e, 3, 0) >= 3); /* + 1 when min_seq advanced */
	CHECK(!has(&e, A, MR_PG_RESIDENT) && !has(&e, B, MR_PG_RESIDENT));
	CHECK(!has(&e, C, MR_PG_RESIDENT));
	/* A (10) then B (2): an inversion; B (2) then C (3): in order */
	CHECK_EQ_U64(e.mg->stat.evict_pairs, 2);
	CHECK_EQ_U64(e.mg->stat.evict_inversions, 1);
	env_close(&e);
}

/* ---- S001 (pud_filter=1): scenarios 14-16 ---- */

static void test_s001_scenario_14(void)
{
	enum { N = 512 };
	struct env e;
	struct lru_gen_mm_state *ms;
	uint32_t i;
	unsigned young;

	env_start_set(&e, N, "pud_filter", 1);
	ms = &e.lv->mm_state;
	CHECK(pm_add_vma(e.pm, 0, VA, VA + N * PG, MR_VMA_READ | MR_VMA_FILE, 1) != NULL);
	for (i = 0; i < N; i++) {
		place(&e, i, PM_FILE, 1);
		CHECK_EQ_U64(pm_map(e.pm, 0, VA + i * PG, i, i < 10 ? MR_PTE_YOUNG : 0), 0);
	}
	/* walk 1 (forced: first iteration): not suitable, neither level carried over */
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_ADDED], 0);
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_ASSOCIATED], 10);
	CHECK(!test_bloom_filter_pud(ms, 4, pud_item(0, VA)));

	/* touch all; walk 2 (unforced): the whole PUD is skipped, the table not visited */
	for (i = 0; i < N; i++)
		pm_touch(e.pm, 0, VA + i * PG, 0);
	mm_ran(&e);
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_PUD_EMPTY_SKIPPED], 1);
	CHECK_EQ_U64(e.mg->stat.walk_bloom_miss, 0);
	CHECK_EQ_U64(e.mg->stat.walk_promoted, 0);
	for (young = 0, i = 0; i < N; i++)
		young += !!(pm_pte_bits(e.pm, 0, VA + i * PG) & MR_PTE_YOUNG);
	CHECK_EQ_U64(young, N);
	CHECK_EQ_U64(pm_table(e.pm, 0, VA, 0)->pmd_young, 1); /* not even the PMD visited */

	/* an rmap hit re-marks the PMD and the PUD at max_seq; walk 3 scans the table */
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(e.mg->stat.look_around_bloom, 1);
	CHECK(test_bloom_filter_pud(ms, e.lv->lrugen.max_seq, pud_item(0, VA)));
	mm_ran(&e);
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_PUD_EMPTY_SKIPPED], 1);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_FOUND], 2);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_ADDED], 1);
	/* a forced walk bypasses both levels */
	CHECK_EQ_U64(age(&e, 60, 1), 0);
	CHECK_EQ_U64(ms->stats[0][MM_PUD_EMPTY_SKIPPED], 1);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_FOUND], 3);
	env_close(&e);
}

/* 15: non-leaf young off (cap 0x3): a PUD with nothing suitable is skipped next time */
static void test_s001_scenario_15(void)
{
	enum { N = 512 };
	uint64_t leaf_total[2];
	int pud;

	for (pud = 0; pud <= 1; pud++) {
		struct env e;
		uint32_t i;

		env_open(&e, N, 1);
		CHECK_EQ_U64(mr_policy_set_param(e.p, "enabled", 3), 0);
		CHECK_EQ_U64(mr_policy_set_param(e.p, "pud_filter", pud), 0);
		env_init(&e);
		/* 16 MiB: one PTE table present, 7 PMD entries empty (leaves) */
		CHECK(pm_add_vma(e.pm, 0, VA, VA + 8 * N * PG, MR_VMA_READ | MR_VMA_FILE, 1) !=
		      NULL);
		for (i = 0; i < N; i++) {
			place(&e, i, PM_FILE, 1);
			CHECK_EQ_U64(pm_map(e.pm, 0, VA + i * PG, i, i < 10 ? MR_PTE_YOUNG : 0), 0);
		}
		CHECK_EQ_U64(age(&e, 60, 0), 0); /* walk k */
		mm_ran(&e);
		CHECK_EQ_U64(age(&e, 60, 0), 0); /* walk k + 1, unforced */
		if (pud) {
			CHECK_EQ_U64(e.lv->mm_state.stats[0][MM_PUD_EMPTY_SKIPPED], 1);
			CHECK_EQ_U64(e.mg->stat.walk_bloom_miss, 0);
		} else {
			CHECK_EQ_U64(e.mg->stat.walk_bloom_miss, 1); /* iterated, PMD-skipped */
		}
		leaf_total[pud] = e.mg->stat.walk_stats[MM_LEAF_TOTAL];
		env_close(&e);
	}
	CHECK(leaf_total[1] < leaf_total[0]);
}

static void test_s001_scenario_16(void)
{
	enum { N = 8 };
	struct env e;
	struct lruvec *lv1;
	char *buf = malloc(16384);
	uint32_t i;

	env_open(&e, N, 2);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "pud_filter", 1), 0);
	env_init(&e);
	lv1 = mglru_lruvec(e.p, 1);
	CHECK(pm_add_vma(e.pm, 0, VA, VA + N * PG, MR_VMA_READ | MR_VMA_FILE, 1) != NULL);
	for (i = 0; i < N; i++) {
		place(&e, i, PM_FILE, 0);
		CHECK_EQ_U64(pm_map(e.pm, 0, VA + i * PG, i, MR_PTE_YOUNG), 0);
	}
	CHECK_EQ_U64(cmd(&e, "+ 0 1 3"), 0); /* force-age node 1 */
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_LEAF_TOTAL], N);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_LEAF_ASSOCIATED], 0);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_WALK_TOTAL], 1);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_WALK_EMPTY], 1);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_LEAF_EMPTY_WALKS], N);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_PUD_EMPTY_SKIPPED], 0);
	e.p->ops->lru_gen_show(e.p, 1, buf, 16384);
	CHECK(strstr(buf, "          0A          0L          1W          1E          8E"
			  "          0S\n") != NULL);
	/* node 0: its own leaves are associated, not an empty walk */
	CHECK_EQ_U64(cmd(&e, "+ 0 0 3"), 0);
	CHECK_EQ_U64(e.lv->mm_state.stats[0][MM_LEAF_ASSOCIATED], N);
	CHECK_EQ_U64(e.lv->mm_state.stats[0][MM_WALK_EMPTY], 0);
	free(buf);
	env_close(&e);
}

/* ---- scenario 14 on a sampled machine (mr_machine.pte_den) ---- */

/*
 * A replay sampled 1 in 16 page by page holds one page in 16 slots: a table's 512 slots
 * hold 32 pages, nyoung of them young. Each young PTE found stands for 16
 * (suitable_to_scan(): one young PTE per cache line of 8 PTEs carries a table over).
 */
static void sampled_table(struct env *e, uint32_t den, unsigned nyoung)
{
	env_start(e, 32);
	e->pm->m.pte_den = den;
	CHECK(pm_add_vma(e->pm, 0, VA, VA + 512 * PG, MR_VMA_READ | MR_VMA_FILE, 1) != NULL);
	for (uint32_t i = 0; i < 32; i++) {
		place(e, i, PM_FILE, 1);
		CHECK_EQ_U64(pm_map(e->pm, 0, VA + 16 * i * PG, i, i < nyoung ? MR_PTE_YOUNG : 0), 0);
	}
}

static void test_scenario_14_sampled(void)
{
	struct env e;
	struct lru_gen_mm_state *ms;
	uint64_t item = pmd_item(0, VA);

	/* the walk: 4 young of 32 stand for 64 of 512, carried over */
	sampled_table(&e, 16, 4);
	ms = &e.lv->mm_state;
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_TOTAL], 512);
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_YOUNG], 4);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_ADDED], 1);
	CHECK(test_bloom_filter(ms, 4, item));
	env_close(&e);
	/* 3 stand for 48: not */
	sampled_table(&e, 16, 3);
	ms = &e.lv->mm_state;
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_ADDED], 0);
	CHECK(!test_bloom_filter(ms, 4, item));
	env_close(&e);
	/* a machine that is not sampled: 4 of 512 are 4 */
	sampled_table(&e, 1, 4);
	ms = &e.lv->mm_state;
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_ADDED], 0);
	env_close(&e);

	/* the look-around: a window of 64 slots holds 4 pages; its target is young for
	 * sure (that is why it looks) and counts once, a young neighbour counts 16 */
	for (unsigned nb = 0; nb <= 1; nb++) {
		sampled_table(&e, 16, 0);
		ms = &e.lv->mm_state;
		CHECK_EQ_U64(age(&e, 60, 0), 0); /* walk 1: nothing young, nothing carried */
		CHECK(!test_bloom_filter(ms, 4, item));
		/* the target: the oldest list's tail, page 31 (slot 496); its window is
		 * the table's last 64 slots, pages 28-31 */
		pm_touch(e.pm, 0, VA + 496 * PG, 0);
		if (nb)
			pm_touch(e.pm, 0, VA + 480 * PG, 0); /* page 30 */
		CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
		CHECK_EQ_U64(folio_lru_gen(e.mg, 31) != 1, 1); /* kept: young */
		CHECK_EQ_U64(e.mg->stat.look_around, 1);
		CHECK_EQ_U64(e.mg->stat.look_around_young, nb);
		CHECK_EQ_U64(e.mg->stat.look_around_bloom, nb);
		CHECK(test_bloom_filter(ms, 4, item) == (nb == 1));
		env_close(&e);
	}
}

/* ---- scenario 14: the PMD Bloom filter ---- */

static void test_scenario_14(void)
{
	enum { N = 512 };
	struct env e;
	struct lru_gen_mm_state *ms;
	uint64_t item = pmd_item(0, VA);
	uint32_t i;
	unsigned young;

	env_start(&e, N);
	ms = &e.lv->mm_state;
	CHECK(pm_add_vma(e.pm, 0, VA, VA + N * PG, MR_VMA_READ | MR_VMA_FILE, 1) != NULL);
	for (i = 0; i < N; i++) {
		place(&e, i, PM_FILE, 1);
		CHECK_EQ_U64(pm_map(e.pm, 0, VA + i * PG, i, i < 10 ? MR_PTE_YOUNG : 0), 0);
	}

	/* walk 1 (the first iteration: forced; filter unallocated): 10 young of 512 */
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_TOTAL], 512);
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_YOUNG], 10);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_FOUND], 1);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_ADDED], 0); /* 80 < 512: not carried over */
	CHECK(!test_bloom_filter(ms, 4, item));
	CHECK(has(&e, 0, MR_PG_REFERENCED));
	CHECK(!has(&e, 10, MR_PG_REFERENCED));

	/* touch all 512; walk 2 (unforced): the table is skipped */
	for (i = 0; i < N; i++)
		pm_touch(e.pm, 0, VA + i * PG, 0);
	mm_ran(&e);
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_FOUND], 1); /* unchanged */
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_TOTAL], 512);
	CHECK_EQ_U64(e.mg->stat.walk_bloom_miss, 1);
	CHECK_EQ_U64(e.mg->stat.walk_promoted, 0); /* no promotion */
	for (young = 0, i = 0; i < N; i++)         /* A bits stay set */
		young += !!(pm_pte_bits(e.pm, 0, VA + i * PG) & MR_PTE_YOUNG);
	CHECK_EQ_U64(young, N);
	CHECK_EQ_U64(pm_table(e.pm, 0, VA, 0)->pmd_young, 0); /* the non-leaf A bit cleared */
	CHECK_EQ_U64(e.lv->lrugen.max_seq, 5);

	/* the aging moved them to seq 2 (reversed) and folio_inc_gen() cleared the
	 * PG_referenced walk 1 gave pages 0..9 */
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 2);
	CHECK(!has(&e, 1, MR_PG_REFERENCED));
	/* an rmap hit in the table: 64 of 64 young in the window re-marks it */
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	CHECK_EQ_U64(e.mg->stat.look_around, 1);
	CHECK_EQ_U64(e.mg->stat.look_around_young, 63);
	CHECK_EQ_U64(e.mg->stat.look_around_bloom, 1);
	CHECK(test_bloom_filter(ms, 5, item));
	CHECK_EQ_U64(folio_lru_gen(e.mg, 1), 2); /* first sighting: referenced only */
	CHECK(has(&e, 1, MR_PG_REFERENCED));
	CHECK(!has(&e, 1, MR_PG_WORKINGSET));
	CHECK_EQ_U64(folio_lru_gen(e.mg, 0), 3); /* the target: KEEP, max_seq - 2 */
	CHECK(has(&e, 0, MR_PG_REFERENCED));
	CHECK_EQ_U64(stat0(&e, MR_VM_PGACTIVATE), 0);
	CHECK(!(pm_pte_bits(e.pm, 0, VA + 63 * PG) & MR_PTE_YOUNG));
	CHECK(pm_pte_bits(e.pm, 0, VA + 64 * PG) & MR_PTE_YOUNG); /* outside the window */

	/* walk 3 scans it (after a new access sets the non-leaf A bit walk 2 cleared) */
	pm_touch(e.pm, 0, VA + 100 * PG, 0);
	mm_ran(&e);
	CHECK_EQ_U64(age(&e, 60, 0), 0);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_FOUND], 2);
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_TOTAL], 1024);
	CHECK_EQ_U64(ms->stats[0][MM_LEAF_YOUNG], 10 + 448);
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_ADDED], 1);
	CHECK(!(pm_pte_bits(e.pm, 0, VA + 300 * PG) & MR_PTE_YOUNG));
	/* the walk promoted the 63 the look-around had marked: none of them was young
	 * again; and the 448 first sightings lost PG_referenced in inc_min_seq() */
	CHECK_EQ_U64(e.mg->stat.walk_promoted, 0);
	CHECK(!has(&e, 300, MR_PG_REFERENCED));

	/* a forced walk always scans: the non-leaf A bit is clear now */
	CHECK_EQ_U64(pm_table(e.pm, 0, VA, 0)->pmd_young, 0);
	mm_ran(&e);
	CHECK_EQ_U64(age(&e, 60, 0), 0); /* unforced: skipped (PMD entry not young) */
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_FOUND], 2);
	CHECK_EQ_U64(e.mg->stat.walk_pmd_old, 1);
	CHECK_EQ_U64(cmd(&e, "+ 0 0 7"), 0); /* force_scan defaults on */
	CHECK_EQ_U64(ms->stats[0][MM_NONLEAF_FOUND], 3);
	CHECK_EQ_U64(e.lv->lrugen.max_seq, 8);
	env_close(&e);
}

/* ---- scenario 16: an empty walk (baseline counters) ---- */

static void test_scenario_16(void)
{
	enum { N = 8 };
	struct env e;
	struct lruvec *lv1;
	char *buf = malloc(8192);
	uint32_t i;

	env_open(&e, N, 2);
	env_init(&e);
	lv1 = mglru_lruvec(e.p, 1);
	CHECK(pm_add_vma(e.pm, 0, VA, VA + N * PG, MR_VMA_READ | MR_VMA_FILE, 1) != NULL);
	for (i = 0; i < N; i++) {
		place(&e, i, PM_FILE, 0); /* node 0 */
		CHECK_EQ_U64(pm_map(e.pm, 0, VA + i * PG, i, MR_PTE_YOUNG), 0);
	}
	CHECK_EQ_U64(cmd(&e, "+ 0 1 3"), 0); /* force-age node 1 */
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_LEAF_TOTAL], N);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_LEAF_YOUNG], 0);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_NONLEAF_FOUND], 1);
	CHECK_EQ_U64(lv1->mm_state.stats[0][MM_NONLEAF_ADDED], 0);
	CHECK_EQ_U64(lv1->lrugen.max_seq, 4);
	CHECK_EQ_U64(e.lv->lrugen.max_seq, 3);
	CHECK(pm_pte_bits(e.pm, 0, VA) & MR_PTE_YOUNG); /* node 0's bits untouched */
	e.p->ops->lru_gen_show(e.p, 1, buf, 8192);
	CHECK(strstr(buf, " node     1\n") != NULL);
	CHECK(strstr(buf, "                               8T          0Y          1F"
			  "          0A\n") != NULL);
	free(buf);
	env_close(&e);
}

/*
 * Who sees scan_folios()' and evict_folios()' counters. [6.12] (both 6.12 modes)
 * pgscan_direct, pgsteal_direct and pgrefill reach memory.stat always and /proc/vmstat
 * only outside cgroup reclaim (!cgroup_reclaim); pgscan/pgsteal_{anon,file} only
 * /proc/vmstat. [7.2] node stats: both, whoever reclaims.
 */
static void test_reclaim_counters_by_kernel(void)
{
	enum { N = 16, V = N - 1 };
	static const unsigned reclaimer[] = { MR_VM_PGSCAN_DIRECT, MR_VM_PGSTEAL_DIRECT,
					      MR_VM_PGREFILL };
	static const unsigned split[] = { MR_VM_PGSCAN_FILE, MR_VM_PGSTEAL_FILE };
	static const int kernels[] = { KERNEL_7_2, KERNEL_6_12, KERNEL_6_12_95 };

	for (int k = 0; k < 3; k++) {
		for (int memcg_reclaim = 0; memcg_reclaim < 2; memcg_reclaim++) {
			struct mr_scan_control sc = { .nr_to_reclaim = 1, .may_writepage = 1,
						      .may_unmap = 1, .may_swap = 1, .gfp_io = 1,
						      .memcg_reclaim = (uint8_t)memcg_reclaim,
						      .priority = 0 };
			int k612 = kernels[k] != KERNEL_7_2;
			struct env e;
			uint32_t i;

			env_start_set(&e, N, "kernel", kernels[k]);
			for (i = 0; i < N; i++)
				place(&e, i, PM_FILE, 0);
			for (i = 0; i < 5; i++)
				e.p->ops->mark_accessed(e.p, V); /* tier 3: sorted, not isolated */
			e.p->ops->shrink_lruvec(e.p, 0, &sc);
			CHECK(sc.nr_reclaimed > 0);
			CHECK(has(&e, V, MR_PG_RESIDENT));
			for (i = 0; i < 3; i++) {
				CHECK(stat0(&e, reclaimer[i]) > 0);
				CHECK_EQ_U64(pm_vmstat(e.pm, reclaimer[i]),
					     (k612 && memcg_reclaim ? 0 : stat0(&e, reclaimer[i])));
			}
			CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), sc.nr_reclaimed);
			for (i = 0; i < 2; i++) {
				CHECK_EQ_U64(pm_vmstat(e.pm, split[i]), stat0(&e, reclaimer[i]));
				CHECK_EQ_U64(stat0(&e, split[i]), (k612 ? 0 : pm_vmstat(e.pm, split[i])));
			}
			env_close(&e);
		}
	}
}

/* ---- scenario 17: tiers ---- */

static void test_scenario_17(void)
{
	struct env e;
	enum { U, V };
	int k;

	env_start(&e, 2);
	place(&e, U, PM_FILE, 0);
	place(&e, V, PM_FILE, 0);
	for (k = 0; k < 5; k++)
		e.p->ops->mark_accessed(e.p, V);
	CHECK_EQ_U64(folio_lru_refs(e.mg, V) + has(&e, V, MR_PG_WORKINGSET), 5);
	CHECK_EQ_U64(evict_once(&e, 64, 0), 2 + 1); /* 2 scanned, min_seq advanced */
	CHECK(!has(&e, U, MR_PG_RESIDENT)); /* reclaimed */
	CHECK_EQ_U64(folio_lru_gen(e.mg, V), 1); /* head of min + 1, refs cleared, ws kept */
	CHECK(!has(&e, V, MR_PG_REFERENCED));
	CHECK_EQ_U64(mglru_folio_refs(e.p, V), 0);
	CHECK(has(&e, V, MR_PG_WORKINGSET));
	CHECK_EQ_U64(e.lv->lrugen.protected[0][FILE_T][3], 0); /* not counted */
	CHECK_EQ_U64(stat0(&e, MR_VM_PGREFILL), 1);
	CHECK_EQ_U64(e.mg->stat.sorted_protected, 1);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 1);
	/* the next visit: tier 3, tier_idx 3 -> isolated */
	CHECK_EQ_U64(get_tier_idx(e.mg, e.lv, FILE_T), 3);
	evict_once(&e, 64, 0);
	CHECK(!has(&e, V, MR_PG_RESIDENT));
	CHECK_EQ_U64(e.lv->lrugen.evicted[0][FILE_T][3], 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), 2);
	env_close(&e);
}

/* ---- scenario 18: the [6.14+] recency window ---- */

static void test_scenario_18(void)
{
	struct env e;
	enum { E, Z };
	uint64_t shadow;

	env_start(&e, 2);
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 13, 10, 10), 0);
	place(&e, Z, PM_FILE, 10); /* keeps min_seq at 10 while E is isolated */
	place(&e, E, PM_FILE, 10);
	CHECK_EQ_U64(evict_once(&e, 1, 0), 1);
	shadow = e.pm->shadow[E];
	CHECK(shadow != 0);
	CHECK_EQ_U64(e.lv->lrugen.evicted[0][FILE_T][0], 1);
	e.p->ops->folio_del(e.p, Z);

	/* at max_seq 14: |14 - 10| = 4, not recent: only the refault counted */
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 14, 12, 12), 0);
	pm_folio(e.pm, E, PM_FILE, 0, 0);
	e.p->ops->refault(e.p, E, shadow, 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_REFAULT_FILE), 1);
	CHECK_EQ_U64(e.lv->lrugen.refaulted[0][FILE_T][0], 0);

	/* at max_seq 13: recent */
	CHECK_EQ_U64(mglru_set_seqs(e.p, 0, 13, 11, 11), 0);
	e.p->ops->refault(e.p, E, shadow, 0);
	CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_REFAULT_FILE), 2);
	CHECK_EQ_U64(e.lv->lrugen.refaulted[0][FILE_T][0], 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_WORKINGSET_ACTIVATE_FILE), 0);
	e.p->ops->folio_add(e.p, E, 0);
	env_close(&e);
}

/* ---- other paths ---- */

static void test_folio_del_and_anon_only(void)
{
	struct env e;
	enum { A, B, F };

	env_start(&e, 3);
	place(&e, A, PM_ANON, 0);
	place(&e, B, PM_ANON, 0);
	place(&e, F, PM_FILE, 0);
	e.p->ops->folio_del(e.p, B);
	CHECK(!has(&e, B, MR_PG_LRU));
	CHECK_LIST(&e, 0, ANON_T, A);
	CHECK_EQ_U64(stat0(&e, MR_VM_NR_INACTIVE_ANON), 1);
	/* swappiness 201 (anon only): file is not evicted; anon goes to swap: pageout()
	 * starts writeback and the folio comes back with PG_reclaim; min_seq[anon] moved
	 * past the emptied generations, so the rejected rule sends it to max_seq - 1 */
	CHECK_EQ_U64(cmd(&e, "- 0 0 0 max"), 0);
	CHECK(has(&e, A, MR_PG_LRU | MR_PG_RECLAIM | MR_PG_WRITEBACK | MR_PG_SWAPCACHE));
	CHECK_EQ_U64(folio_lru_gen(e.mg, A), 2);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[ANON_T], 2);
	CHECK_EQ_U64(e.mg->stat.rejected, 1);
	CHECK_EQ_U64(stat0(&e, MR_VM_PSWPOUT), 1);
	CHECK_LIST(&e, 0, FILE_T, F);
	CHECK_EQ_U64(e.lv->lrugen.min_seq[FILE_T], 0);
	/* writeback ends: rotated to the tail of the oldest generation */
	folio(&e, A)->flags &= ~MR_PG_WRITEBACK;
	e.p->ops->rotate(e.p, A);
	CHECK_EQ_U64(folio_lru_gen(e.mg, A), 2);
	CHECK(!has(&e, A, MR_PG_RECLAIM));
	CHECK_EQ_U64(pm_vmstat(e.pm, MR_VM_PGROTATED), 1); /* no memory.stat field */
	env_close(&e);
}

/* lru_gen_shrink_lruvec(): root reclaim stops at nr_to_reclaim, memcg reclaim scans
 * nr_to_scan = evictable >> priority; kswapd's min_ttl check first */
static void test_shrink_lruvec_and_min_ttl(void)
{
	enum { N = 100 };
	struct env e;
	struct mr_scan_control sc = { .nr_to_reclaim = 32, .may_writepage = 1, .may_unmap = 1,
				      .may_swap = 1, .gfp_io = 1, .kswapd = 1, .priority = 0 };
	uint32_t i, resident;

	env_open(&e, N, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "min_ttl_ms", 1000), 0);
	env_init(&e);
	for (i = 0; i < N; i++)
		place(&e, i, PM_FILE, 0);
	e.pm->m.now_ns = 500000000ull; /* the oldest generation is 0.5 s old */
	e.p->ops->shrink_lruvec(e.p, 0, &sc);
	CHECK_EQ_U64(e.mg->stat.min_ttl_oom, 1); /* younger than min_ttl: kswapd would OOM */
	CHECK_EQ_U64(sc.nr_reclaimed, MIN_LRU_BATCH); /* one evict_folios() batch, then abort */
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSCAN_KSWAPD), MIN_LRU_BATCH);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_KSWAPD), MIN_LRU_BATCH);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_FILE), MIN_LRU_BATCH);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSCAN_DIRECT), 0);
	CHECK(!e.mg->walk_active);

	e.pm->m.now_ns = 2000000000ull;
	sc = (struct mr_scan_control){ .nr_to_reclaim = 1, .may_writepage = 1, .may_unmap = 1,
				       .may_swap = 1, .gfp_io = 1, .memcg_reclaim = 1,
				       .priority = 0 };
	e.p->ops->shrink_lruvec(e.p, 0, &sc); /* memcg reclaim: not aborted */
	CHECK_EQ_U64(sc.nr_reclaimed, N - MIN_LRU_BATCH);
	CHECK_EQ_U64(stat0(&e, MR_VM_PGSTEAL_DIRECT), N - MIN_LRU_BATCH);
	for (resident = 0, i = 0; i < N; i++)
		resident += has(&e, i, MR_PG_RESIDENT);
	CHECK_EQ_U64(resident, 0);
	sc.kswapd = 1;
	sc.memcg_reclaim = 0;
	/* nothing left: an lruvec that is not sizable is not reclaimable: counted again */
	e.p->ops->shrink_lruvec(e.p, 0, &sc);
	CHECK_EQ_U64(e.mg->stat.min_ttl_oom, 2);
	env_close(&e);
}

static void test_debugfs(void)
{
	struct env e;
	char buf[4096];
	size_t n;
	const char *want;

	env_start(&e, 4);
	place(&e, 0, PM_FILE, 0);
	place(&e, 1, PM_FILE, 0);
	place(&e, 2, PM_ANON, 2);
	e.pm->m.now_ns = 5000000000ull; /* 5 s after the generations were made */
	n = e.p->ops->lru_gen_show(e.p, 0, buf, sizeof(buf));
	want = "memcg 0 /\n"
	       " node     0\n"
	       "          0       5000          0           2 \n"
	       "          1       5000          0           0 \n"
	       "          2       5000          1           0 \n"
	       "          3       5000          0           0 \n";
	CHECK_EQ_U64(n, strlen(want));
	CHECK(!strcmp(buf, want));
	if (strcmp(buf, want))
		fprintf(stderr, "got:\n%s", buf);
	/* truncated: snprintf-like */
	CHECK_EQ_U64(e.p->ops->lru_gen_show(e.p, 0, buf, 8), strlen(want));
	CHECK_EQ_U64(strlen(buf), 7);

	e.lv->lrugen.evicted[0][FILE_T][1] = 7;
	e.lv->lrugen.avg_total[ANON_T][2] = 9;
	n = e.p->ops->lru_gen_show(e.p, 1, buf, sizeof(buf));
	want = "memcg 0 /\n"
	       " node     0\n"
	       "          0       5000          0           2 \n"
	       "                     0          0r          0e          0p          0r          0e          0p\n"
	       "                     1          0r          0e          0p          0r          7e          0p\n"
	       "                     2          0r          0e          0p          0r          0e          0p\n"
	       "                     3          0r          0e          0p          0r          0e          0p\n"
	       "                                0x          0x          0x          0x\n"
	       "          1       5000          0           0 \n"
	       "                     0          0x          0x          0x          0x          0x          0x\n"
	       "                     1          0x          0x          0x          0x          0x          0x\n"
	       "                     2          0x          0x          0x          0x          0x          0x\n"
	       "                     3          0x          0x          0x          0x          0x          0x\n"
	       "                                0x          0x          0x          0x\n"
	       "          2       5000          1           0 \n"
	       "                     0          0x          0x          0x          0x          0x          0x\n"
	       "                     1          0x          0x          0x          0x          0x          0x\n"
	       "                     2          0x          0x          0x          0x          0x          0x\n"
	       "                     3          0x          0x          0x          0x          0x          0x\n"
	       "                                0x          0x          0x          0x\n"
	       "          3       5000          0           0 \n"
	       "                     0          0R          0T          0x          0R          0T          0x\n"
	       "                     1          0R          0T          0x          0R          0T          0x\n"
	       "                     2          0R          9T          0x          0R          0T          0x\n"
	       "                     3          0R          0T          0x          0R          0T          0x\n"
	       "                                0T          0Y          0F          0A\n";
	CHECK_EQ_U64(n, strlen(want));
	CHECK(!strcmp(buf, want));
	if (strcmp(buf, want))
		fprintf(stderr, "got:\n%s", buf);
	e.lv->lrugen.evicted[0][FILE_T][1] = 0;
	e.lv->lrugen.avg_total[ANON_T][2] = 0;

	/* write commands: errors */
	CHECK_EQ_U64(cmd(&e, "+ 0 0 4"), MR_EINVAL);     /* beyond max_seq */
	CHECK_EQ_U64(cmd(&e, "- 0 0 2"), MR_EINVAL);     /* min_gen + 2 > max_seq */
	CHECK_EQ_U64(cmd(&e, "+ 0 1 3"), MR_EINVAL);     /* no node 1 */
	CHECK_EQ_U64(cmd(&e, "+ 1 0 3"), MR_EINVAL);     /* no memcg 1 */
	CHECK_EQ_U64(cmd(&e, "+ 0 0 3 202"), MR_EINVAL); /* swappiness */
	CHECK_EQ_U64(cmd(&e, "+ 0 0 3 abc"), MR_EINVAL);
	CHECK_EQ_U64(cmd(&e, "+ 0 0"), MR_EINVAL);
	CHECK_EQ_U64(cmd(&e, "+ 0 0 -3"), MR_EINVAL);
	CHECK_EQ_U64(cmd(&e, "+ 0 0 3 60 1 junk"), MR_EINVAL);
	CHECK_EQ_U64(cmd(&e, "* 0 0 3"), MR_EINVAL);
	CHECK_EQ_U64(e.lv->lrugen.max_seq, 3);
	/* a stale max_gen still ages once; several commands; empty ones skipped */
	CHECK_EQ_U64(cmd(&e, "+ 0 0 1 60 1;;\n + 0 0 4 60 0, "), 0);
	CHECK_EQ_U64(e.lv->lrugen.max_seq, 5);
	/* EEXIST: the iteration for this max_seq has ended already */
	e.lv->mm_state.seq = e.lv->lrugen.max_seq;
	CHECK_EQ_U64(cmd(&e, "+ 0 0 5"), MR_EBUSY);
	e.lv->mm_state.seq = e.lv->lrugen.max_seq - 1;
	/* '-' evicts the file folios up to min_gen */
	CHECK_EQ_U64(cmd(&e, "- 0 0 3 0 0x10"), MR_EINVAL); /* opt is decimal only */
	CHECK_EQ_U64(cmd(&e, "- 0 0 3 0x0"), 0);
	CHECK(!has(&e, 0, MR_PG_RESIDENT));
	CHECK(!has(&e, 1, MR_PG_RESIDENT));
	CHECK(has(&e, 2, MR_PG_LRU));
	env_close(&e);
}

static void test_checker_catches(void)
{
	struct env e;

	env_start(&e, 2);
	place(&e, 0, PM_FILE, 0);
	fprintf(stderr, "  (the next two reports are expected)\n");
	e.lv->lrugen.nr_pages[0][FILE_T][0]++;
	CHECK(e.p->ops->check(e.p) > 0);
	e.lv->lrugen.nr_pages[0][FILE_T][0]--;
	pm_folio(e.pm, 1, PM_FILE, 0, 0)->flags |= MR_PG_LRU; /* PG_lru but on no list */
	CHECK(e.p->ops->check(e.p) > 0);
	folio(&e, 1)->flags &= ~MR_PG_LRU;
	env_close(&e);
}

static void emit_count(void *arg, const char *name, double value)
{
	(void)name;
	(void)value;
	++*(int *)arg;
}

static void test_params_and_counters(void)
{
	struct env e;
	struct mr_error err = { 0 };
	int n = 0;

	CHECK_EQ_U64(mr_mglru_ops.page_priv_size, 8);
	env_open(&e, 1, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "swappiness", 202), MR_ERANGE);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "enabled", 6), 0);
	CHECK_EQ_U64(mr_policy_start(e.p, &err), MR_EINVAL); /* no core cap */
	CHECK(strstr(err.msg, "lru") != NULL);
	mr_policy_destroy(e.p);
	pm_destroy(e.pm);

	env_start(&e, 1);
	e.p->ops->model_counters(e.p, emit_count, &n);
	CHECK(n >= 20);
	env_close(&e);
}

/* ---- random operations, the invariant checker after each ---- */

struct stress {
	struct env e;
	uint64_t rng;
	uint64_t addr[1024];
	uint32_t mm[1024];
	enum pm_kind kind[1024];
	uint32_t memcg[1024];
};

static uint64_t rnd(struct stress *st, uint64_t n)
{
	return mr_test_rand(&st->rng) % n;
}

/* Fault page in: resident, mapped young (dirty on write), refault, folio_add_lru(). */
static void stress_fault(struct stress *st, uint32_t page, int write)
{
	struct env *e = &st->e;
	uint64_t shadow = e->pm->shadow[page];

	pm_folio(e->pm, page, st->kind[page], st->memcg[page], 0);
	e->pm->shadow[page] = 0;
	CHECK_EQ_U64(pm_map(e->pm, st->mm[page], st->addr[page], page,
			    MR_PTE_YOUNG | (write ? MR_PTE_DIRTY : 0)), 0);
	if (shadow)
		e->p->ops->refault(e->p, page, shadow, MR_ADD_IN_FAULT);
	e->p->ops->folio_add(e->p, page, MR_ADD_IN_FAULT);
}

static void stress_free(struct stress *st, uint32_t page)
{
	struct env *e = &st->e;
	struct mr_pte_table *pt = pm_table(e->pm, st->mm[page], st->addr[page], 0);
	unsigned slot = (unsigned)((st->addr[page] >> MR_PAGE_SHIFT) & (MR_PTRS_PER_TABLE - 1));

	e->p->ops->folio_del(e->p, page);
	if (pt && pt->page[slot] == page) {
		pt->page[slot] = MR_NONE;
		pt->bits[slot] = 0;
		pt->nr_present--;
	}
	e->pm->m.folios[page].flags = 0;
	e->pm->m.folios[page].mapcount = 0;
	e->pm->shadow[page] = 0;
}

/* A seed toggle and its value; a list of them ends with a NULL name. */
struct toggle {
	const char *name;
	int64_t value;
};

/* FNV-1a over bytes, for the S002 identity check */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

/* model counters except the S002 cache model's own (mglru_cl_*) */
static void emit_hash(void *arg, const char *name, double value)
{
	uint64_t *h = arg;

	if (!strncmp(name, "mglru_cl_", 9))
		return;
	*h = fnv(*h, name, strlen(name));
	*h = fnv(*h, &value, sizeof(value));
}

/*
 * toggles: NULL for the baseline, else set before init. seed: the random sequence.
 * Each step runs on CPU step % 5 (m->cpu; the rng sequence does not depend on it).
 * Returns a hash of every decision-visible result: vmstat, model counters (but the
 * cache model's), lru_gen full output, per-page state and folio flags. cl_out, if not
 * NULL, gets a copy of the S002 cache-model totals (its lines pointer is dangling).
 */
static uint64_t test_stress_seeded(const struct toggle *toggles, uint64_t seed,
				   struct mglru_cl *cl_out)
{
	enum { N = 1024, STEPS = 20000 };
	struct stress *st = calloc(1, sizeof(*st));
	struct env *e = &st->e;
	uint32_t i, bad = 0, step;
	uint64_t h = 0xcbf29ce484222325ull;
	static char show[65536];
	char buf[96];

	st->rng = seed;
	memset(e, 0, sizeof(*e));
	e->pm = pm_create(&(struct pm_config){ .nr_pages = N, .nr_mms = 2, .nr_memcgs = 2,
					       .max_tables = 8, .swap_free = 300 });
	e->p = pm_policy_new(e->pm, &mr_mglru_ops);
	CHECK_EQ_U64(mr_policy_set_param(e->p, "swappiness", 100), 0);
	for (; toggles && toggles->name; toggles++)
		CHECK_EQ_U64(mr_policy_set_param(e->p, toggles->name, toggles->value), 0);
	env_init(e);
	e->pm->m.mms[1].memcg = 1;
	/* mm 0 (memcg 0): file 0..511 (exec), anon 512..767; mm 1 (memcg 1): file 768..1023 */
	pm_add_vma(e->pm, 0, VA, VA + 512 * PG, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE, 1);
	pm_add_vma(e->pm, 0, VA + (1ull << 30), VA + (1ull << 30) + 256 * PG,
		   MR_VMA_READ | MR_VMA_WRITE, 0);
	pm_add_vma(e->pm, 1, VA, VA + 200 * PG, MR_VMA_READ | MR_VMA_WRITE | MR_VMA_FILE, 2);
	pm_add_vma(e->pm, 1, VA + 200 * PG, VA + 256 * PG,
		   MR_VMA_READ | MR_VMA_FILE | MR_VMA_SEQ_READ, 2);
	for (i = 0; i < N; i++) {
		st->mm[i] = i < 768 ? 0 : 1;
		st->memcg[i] = i < 768 ? 0 : 1;
		st->kind[i] = i >= 512 && i < 768 ? PM_ANON : PM_FILE;
		st->addr[i] = i < 512   ? VA + i * PG
			      : i < 768 ? VA + (1ull << 30) + (i - 512) * PG
					: VA + (i - 768) * PG;
	}

	for (step = 0; step < STEPS; step++) {
		uint64_t op = rnd(st, 100);
		uint32_t page = (uint32_t)(rnd(st, 2) ? rnd(st, 64) * rnd(st, 16) : rnd(st, N)) % N;
		struct mr_folio *f = &e->pm->m.folios[page];

		e->pm->m.now_ns += 1000000;
		e->pm->m.cpu = step % 5;
		if (op < 45) { /* a page-table access */
			if (f->flags & MR_PG_RESIDENT)
				pm_touch(e->pm, st->mm[page], st->addr[page], rnd(st, 8) == 0);
			else
				stress_fault(st, page, rnd(st, 8) == 0);
		} else if (op < 55) { /* read() / write() of a cached file page */
			if ((f->flags & MR_PG_RESIDENT) && st->kind[page] == PM_FILE)
				e->p->ops->mark_accessed(e->p, page);
		} else if (op < 60) { /* munmap / truncate */
			if (f->flags & MR_PG_RESIDENT)
				stress_free(st, page);
		} else if (op < 66) { /* the flusher writes a dirty file page; writeback ends */
			if ((f->flags & MR_PG_RESIDENT) && st->kind[page] == PM_FILE &&
			    (f->flags & MR_PG_DIRTY) && !(f->flags & MR_PG_WRITEBACK)) {
				f->flags &= ~MR_PG_DIRTY;
				f->flags |= MR_PG_WRITEBACK;
			}
			for (i = 0; i < N; i++) {
				struct mr_folio *g = &e->pm->m.folios[i];

				if ((g->flags & MR_PG_WRITEBACK) && rnd(st, 4) == 0) {
					g->flags &= ~MR_PG_WRITEBACK;
					if (g->flags & MR_PG_RECLAIM)
						e->p->ops->rotate(e->p, i);
				}
			}
		} else if (op < 85) { /* reclaim */
			struct mr_scan_control sc = {
				.nr_to_reclaim = 32, .may_writepage = 1, .may_unmap = 1,
				.may_swap = rnd(st, 4) != 0, .gfp_io = rnd(st, 8) != 0,
				.kswapd = rnd(st, 2), .priority = (int)rnd(st, 13),
			};
			uint32_t lruvec = (uint32_t)rnd(st, 2);

			sc.memcg_reclaim = !sc.kswapd && lruvec;
			e->p->ops->shrink_lruvec(e->p, lruvec, &sc);
		} else if (op < 92) { /* debugfs aging */
			uint32_t memcg = (uint32_t)rnd(st, 2);
			static const char *const swp[] = { "", " 0", " 60", " 200", " max" };

			snprintf(buf, sizeof(buf), "+ %u 0 %llu%s%s", memcg,
				 (unsigned long long)mglru_lruvec(e->p, memcg)->lrugen.max_seq,
				 swp[rnd(st, 5)], rnd(st, 2) ? " 0" : "");
			if (!strcmp(buf + strlen(buf) - 2, " 0") && strstr(buf, "  0"))
				continue;
			e->p->ops->lru_gen_command(e->p, buf, NULL);
		} else if (op < 96) { /* debugfs eviction */
			uint32_t memcg = (uint32_t)rnd(st, 2);
			struct lruvec *lv = mglru_lruvec(e->p, memcg);

			snprintf(buf, sizeof(buf), "- %u 0 %llu %d %llu", memcg,
				 (unsigned long long)(lv->lrugen.max_seq - 2), (int)rnd(st, 201),
				 (unsigned long long)rnd(st, 100));
			e->p->ops->lru_gen_command(e->p, buf, NULL);
		} else { /* the tasks ran */
			e->pm->m.mms[0].lru_gen_bitmap = ~0ull;
			e->pm->m.mms[1].lru_gen_bitmap = ~0ull;
		}
		if (e->p->ops->check(e->p)) {
			if (!bad)
				fprintf(stderr, "stress: invariants broken at step %u (op %llu)\n",
					step, (unsigned long long)op);
			bad++;
			break;
		}
	}
	CHECK_EQ_U64(bad, 0);
	printf("stress: %u steps, %llu generations, %llu evicted, %llu refaults, %llu look-arounds, "
	       "%llu rejected, %llu inversions\n", step,
	       (unsigned long long)e->mg->stat.aging_passes,
	       (unsigned long long)(pm_vmstat(e->pm, MR_VM_PGSTEAL_KSWAPD) +
				    pm_vmstat(e->pm, MR_VM_PGSTEAL_DIRECT)),
	       (unsigned long long)(pm_vmstat(e->pm, MR_VM_WORKINGSET_REFAULT_FILE) +
				    pm_vmstat(e->pm, MR_VM_WORKINGSET_REFAULT_ANON)),
	       (unsigned long long)e->mg->stat.look_around,
	       (unsigned long long)e->mg->stat.rejected,
	       (unsigned long long)e->mg->stat.inc_min_seq_inversions);
	CHECK(e->mg->stat.aging_passes > 0);
	CHECK(pm_vmstat(e->pm, MR_VM_PGSTEAL_KSWAPD) + pm_vmstat(e->pm, MR_VM_PGSTEAL_DIRECT) > 0);
	CHECK(pm_vmstat(e->pm, MR_VM_WORKINGSET_REFAULT_FILE) > 0);

	for (i = 0; i < MR_NR_VMSTAT; i++) {
		uint64_t v = pm_vmstat(e->pm, i);

		h = fnv(h, &v, sizeof(v));
	}
	e->p->ops->model_counters(e->p, emit_hash, &h);
	h = fnv(h, show, e->p->ops->lru_gen_show(e->p, 1, show, sizeof(show)));
	h = fnv(h, e->mg->pages, N * sizeof(*e->mg->pages));
	for (i = 0; i < N; i++)
		h = fnv(h, &e->pm->m.folios[i].flags, sizeof(e->pm->m.folios[i].flags));
	if (cl_out) {
		CHECK(e->mg->cl != NULL);
		if (e->mg->cl)
			*cl_out = *e->mg->cl;
	}
	env_close(e);
	free(st);
	return h;
}

static void test_stress(const struct toggle *toggles)
{
	test_stress_seeded(toggles, mr_test_seed(), NULL);
}

/* ---- S002: stats_layout (docs/seeds.md, "S002") ---- */

/* Does element idx of field f share a line with enabled/gen/seg in this layout? */
static bool shares_enabled(int layout, unsigned base, unsigned f, unsigned idx)
{
	return lrugen_line(layout, base, f, idx) == lrugen_line(layout, base, LGF_ENABLED, 0);
}

static void test_s002_layout(void)
{
	const int B = STATS_LAYOUT_BEFORE, A = STATS_LAYOUT_AFTER;
	unsigned base, i, n;

	/* the offsets of docs/seeds.md, "S002 layout" */
	CHECK_EQ_U64(lrugen_size(B), 1360);
	CHECK_EQ_U64(lrugen_size(A), 1408);
	for (i = 0; i < 2; i++) {
		CHECK_EQ_U64(lrugen_field_offset((int)i, LGF_MAX_SEQ, 0), 0);
		CHECK_EQ_U64(lrugen_field_offset((int)i, LGF_MIN_SEQ, 1), 16);
		CHECK_EQ_U64(lrugen_field_offset((int)i, LGF_TIMESTAMPS, 3), 48);
	}
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_ENABLED, 0), 1336);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_GEN, 0), 1337);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_SEG, 0), 1338);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_LIST, 0), 1344);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_FOLIOS, 0), 56);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_FOLIOS, 39) + 16, 696);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_NR_PAGES, 0), 696);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_NR_PAGES, 39) + 8, 1016);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_AVG_REFAULTED, 0), 1016);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_AVG_TOTAL, 0), 1080);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_PROTECTED, 0), 1144);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_EVICTED, 0), 1208);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_EVICTED, MAX_NR_TIERS), 1240);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_REFAULTED, 0), 1272);
	CHECK_EQ_U64(lrugen_field_offset(B, LGF_REFAULTED, MAX_NR_TIERS), 1304);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_ENABLED, 0), 56);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_GEN, 0), 57);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_SEG, 0), 58);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_LIST, 0), 64);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_FOLIOS, 0), 80);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_FOLIOS, 39) + 16, 720);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_NR_PAGES, 39) + 8, 1040);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_AVG_REFAULTED, 0), 1040);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_AVG_TOTAL, 0), 1104);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_PROTECTED, 0), 1168);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_EVICTED, 0), 1280);
	CHECK_EQ_U64(lrugen_field_offset(A, LGF_REFAULTED, 0), 1344);
	/* the model's one zone is ZONE_NORMAL (2) of MAX_NR_ZONES = 5 */
	CHECK_EQ_U64(lrugen_gen_idx(0, ANON_T), 2);
	CHECK_EQ_U64(lrugen_gen_idx(1, FILE_T), 17);

	/* which counters share the line of enabled/gen/seg before the patch */
	for (base = 0; base < 64; base += 8) {
		unsigned ev = 0, rf = 0, rf_file3 = 0;

		for (i = 0; i < 2 * MAX_NR_TIERS; i++) {
			ev += shares_enabled(B, base, LGF_EVICTED, i);
			rf += shares_enabled(B, base, LGF_REFAULTED, i);
		}
		rf_file3 = shares_enabled(B, base, LGF_REFAULTED, 2 * MAX_NR_TIERS - 1);
		if (base == 0) { /* refaulted[anon][1..3] and all of refaulted[file] */
			CHECK_EQ_U64(ev, 0);
			CHECK_EQ_U64(rf, 7);
			CHECK(!shares_enabled(B, base, LGF_REFAULTED, 0));
			CHECK(!shares_enabled(B, base, LGF_LIST, 0)); /* list is on the next line */
		} else if (base == 8) { /* 6.12: none */
			CHECK_EQ_U64(ev + rf, 0);
			CHECK(shares_enabled(B, base, LGF_LIST, 0));
		} else if (base == 16) { /* only refaulted[file][3], with list too */
			CHECK_EQ_U64(ev, 0);
			CHECK_EQ_U64(rf, 1);
			CHECK_EQ_U64(rf_file3, 1);
			CHECK(shares_enabled(B, base, LGF_LIST, 0));
		}
	}
	/* after: 64-aligned; no counter near enabled; evicted and refaulted on lines of
	 * their own; list shares with folios[0][anon][zones 0..2] (derived note) */
	for (base = 0; base < 64; base++) {
		CHECK_EQ_U64(lrugen_eff_base(A, base), 0);
		for (i = 0; i < 2 * MAX_NR_TIERS; i++) {
			CHECK(!shares_enabled(A, base, LGF_EVICTED, i));
			CHECK(!shares_enabled(A, base, LGF_REFAULTED, i));
			CHECK_EQ_U64(lrugen_line(A, base, LGF_EVICTED, i), 20);
			CHECK_EQ_U64(lrugen_line(A, base, LGF_REFAULTED, i), 21);
		}
	}
	CHECK_EQ_U64(lrugen_line(A, 0, LGF_PROTECTED, 2 * MAX_NR_TIERS - 1), 19);
	for (n = 0, i = 0; i < 40; i++)
		n += lrugen_line(A, 0, LGF_FOLIOS, i) == lrugen_line(A, 0, LGF_LIST, 0);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(lrugen_line(A, 0, LGF_FOLIOS, 3), 2);
}

/* A hand-made two-CPU sequence on one lruvec's lines, with known transfers. */
static uint64_t s002_two_cpu(int layout, unsigned base, struct mglru_cl *cl)
{
	static struct cl_line lines[CL_MAX_LINES];
	const unsigned file3 = 2 * MAX_NR_TIERS - 1;
	unsigned i;

	memset(cl, 0, sizeof(*cl));
	for (i = 0; i < CL_MAX_LINES; i++)
		lines[i] = (struct cl_line){ 0, -1 };
	cl->layout = layout;
	cl->base = lrugen_eff_base(layout, base);
	cl->lines = lines;
	/* CPU 0 adds (reads enabled), CPU 1 refaults (atomic W refaulted[file][3]), twice */
	mglru_cl_access_cpu(cl, 0, CL_ADD, LGF_ENABLED, 0, false, 0);      /* cold */
	mglru_cl_access_cpu(cl, 0, CL_REFAULT, LGF_REFAULTED, file3, true, 1);
	mglru_cl_access_cpu(cl, 0, CL_ADD, LGF_ENABLED, 0, false, 0);
	mglru_cl_access_cpu(cl, 0, CL_REFAULT, LGF_REFAULTED, file3, true, 1);
	mglru_cl_access_cpu(cl, 0, CL_REFAULT, LGF_REFAULTED, file3, true, 1); /* M hit */
	mglru_cl_access_cpu(cl, 0, CL_ADD, LGF_MAX_SEQ, 0, false, 0);      /* cold */
	/* CPU 64 is CPU 0 folded: reads its own shared copy of line 0 */
	mglru_cl_access_cpu(cl, 0, CL_ADD, LGF_MAX_SEQ, 0, false, 64);
	/* CPU 1 advances max_seq: invalidates CPU 0's copy; CPU 0 reads it back */
	mglru_cl_access_cpu(cl, 0, CL_AGING, LGF_MAX_SEQ, 0, true, 1);
	mglru_cl_access_cpu(cl, 0, CL_ADD, LGF_MIN_SEQ, 0, false, 0);
	return cl->transfers;
}

static void test_s002_two_cpu(void)
{
	struct mglru_cl cl;

	/* base 16, before: refaulted[file][3] shares the line of enabled */
	CHECK_EQ_U64(s002_two_cpu(STATS_LAYOUT_BEFORE, 16, &cl), 5);
	CHECK_EQ_U64(cl.reads, 5);
	CHECK_EQ_U64(cl.writes, 4);
	CHECK_EQ_U64(cl.invalidations, 3);
	CHECK_EQ_U64(cl.path_transfers[CL_REFAULT], 2);
	CHECK_EQ_U64(cl.path_transfers[CL_ADD], 2);
	CHECK_EQ_U64(cl.path_transfers[CL_AGING], 1);
	CHECK_EQ_U64(cl.line_transfers[21], 3);
	/* base 0 likewise (all of refaulted[file]); base 8 and after: only line 0
	 * (max_seq written by CPU 1, then read by CPU 0 through min_seq) */
	CHECK_EQ_U64(s002_two_cpu(STATS_LAYOUT_BEFORE, 0, &cl), 5);
	CHECK_EQ_U64(s002_two_cpu(STATS_LAYOUT_BEFORE, 8, &cl), 2);
	CHECK_EQ_U64(cl.path_transfers[CL_REFAULT], 0);
	CHECK_EQ_U64(s002_two_cpu(STATS_LAYOUT_AFTER, 16, &cl), 2);
	CHECK_EQ_U64(cl.invalidations, 1);
	CHECK_EQ_U64(cl.line_transfers[0], 2);
	CHECK_EQ_U64(cl.path_transfers[CL_ADD], 1);
	CHECK_EQ_U64(cl.path_transfers[CL_AGING], 1);
}

/* Parameters, and a policy-level two-CPU sequence through the hooks. */
static void test_s002_params(void)
{
	struct env e;
	uint64_t shadow;
	int n = 0;

	env_start(&e, 4);
	CHECK(e.mg->cl == NULL); /* off by default: no counters, no state */
	e.p->ops->model_counters(e.p, emit_count, &n);
	env_close(&e);

	env_open(&e, 4, 1);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "lrugen_base", 64), MR_ERANGE);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "stats_layout", STATS_LAYOUT_BEFORE), 0);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "lrugen_base", 0), 0);
	CHECK_EQ_U64(mr_policy_set_param(e.p, "cacheline_model", 1), 0);
	env_init(&e);
	CHECK(e.mg->cl != NULL);
	{
		int m = 0;

		e.p->ops->model_counters(e.p, emit_count, &m);
		CHECK_EQ_U64(m, n + 14);
	}
	/* CPU 0 faults page 0 in; CPU 1 evicts it (evicted[], a different line) and
	 * CPU 1 refaults it: refaulted[file] shares the line of enabled at base 0 */
	e.pm->m.cpu = 0;
	pm_folio(e.pm, 0, PM_FILE, 0, 0);
	e.p->ops->folio_add(e.p, 0, MR_ADD_IN_FAULT);
	CHECK_EQ_U64(e.mg->cl->transfers, 0);
	e.pm->m.cpu = 1;
	folio(&e, 0)->flags &= ~MR_PG_LRU;
	lruvec_del_folio(e.mg, e.lv, 0);
	shadow = lru_gen_eviction(e.mg, 0);
	CHECK_EQ_U64(e.mg->cl->path_transfers[CL_EVICTION], 0);
	/* min_seq and max_seq: CPU 0 holds line 0 shared, reads do not transfer */
	e.p->ops->refault(e.p, 0, shadow, MR_ADD_IN_FAULT);
	CHECK_EQ_U64(e.mg->cl->path_transfers[CL_REFAULT], 1); /* CPU 0 had enabled */
	e.p->ops->folio_add(e.p, 0, MR_ADD_IN_FAULT);
	e.pm->m.cpu = 0;
	lruvec_del_folio(e.mg, e.lv, 0);
	folio(&e, 0)->flags &= ~MR_PG_LRU;
	e.p->ops->folio_add(e.p, 0, MR_ADD_IN_FAULT);
	/* CPU 0 reads enabled back from CPU 1's modified line */
	CHECK(e.mg->cl->transfers >= 2);
	CHECK(e.mg->cl->path_transfers[CL_ADD] >= 1);
	env_close(&e);
}

/* S002 changes no decision: the same random run, model off, before and after. */
static void test_s002_identical(void)
{
	uint64_t seed = mr_test_seed(), h0, h1, h2, h3;
	struct mglru_cl before, after;

	h0 = test_stress_seeded(NULL, seed, NULL);
	h1 = test_stress_seeded((const struct toggle[]){ { "cacheline_model", 1 },
							 { "lrugen_base", 0 },
							 { NULL, 0 } },
				seed, &before);
	h2 = test_stress_seeded((const struct toggle[]){ { "cacheline_model", 1 },
							 { "stats_layout", STATS_LAYOUT_AFTER },
							 { NULL, 0 } },
				seed, &after);
	h3 = test_stress_seeded((const struct toggle[]){ { "stats_layout", STATS_LAYOUT_AFTER },
							 { "inc_min_seq", INC_MIN_SEQ_V3 },
							 { "cacheline_model", 1 },
							 { NULL, 0 } },
				seed, NULL);
	CHECK_EQ_U64(h1, h0);
	CHECK_EQ_U64(h2, h0);
	CHECK(h3 != 0);
	/* same accesses; the transfers differ by layout (this run switches CPU every
	 * step and is not refault-bound: no direction is asserted here) */
	CHECK_EQ_U64(before.reads, after.reads);
	CHECK_EQ_U64(before.writes, after.writes);
	CHECK(before.transfers > 0 && after.transfers > 0);
	printf("s002 stress: %llu reads, %llu writes, transfers before(base 0) %llu after %llu\n",
	       (unsigned long long)before.reads, (unsigned long long)before.writes,
	       (unsigned long long)before.transfers, (unsigned long long)after.transfers);
}

/* ---- the case table: one CTest case each (mglru.CASE), `test_mglru CASE` runs one ---- */

static void test_s004_scenario_12_file(int exec)
{
	test_s004_scenario_12(exec, 0);
}

static void test_s004_scenario_12_anon(int exec)
{
	test_s004_scenario_12(exec, 1);
}

/* arg = exec_promote * 3 + ra_placement */
static void test_s004_scenario_13_arg(int arg)
{
	test_s004_scenario_13(arg / 3, arg % 3);
}

/* The toggle sets of the stress cases, by index. */
static const struct toggle *const stress_sets[] = {
	NULL,
	(const struct toggle[]){ { "kernel", KERNEL_6_12 }, { NULL, 0 } },
	(const struct toggle[]){ { "kernel", KERNEL_6_12_95 }, { NULL, 0 } },
	(const struct toggle[]){ { "inc_min_seq", INC_MIN_SEQ_V3 }, { NULL, 0 } },
	(const struct toggle[]){ { "inc_min_seq", INC_MIN_SEQ_V3 },
				 { "ra_placement", RA_PLACEMENT_B },
				 { "exec_promote", EXEC_PROMOTE_V3 },
				 { NULL, 0 } },
	(const struct toggle[]){ { "pud_filter", 1 }, { "probes", 1 }, { NULL, 0 } },
	(const struct toggle[]){ { "ra_placement", RA_PLACEMENT_C },
				 { "exec_promote", EXEC_PROMOTE_ALT },
				 { NULL, 0 } },
};

static void test_stress_set(int set)
{
	test_stress(stress_sets[set]);
}

#define S13(exec, mode) (EXEC_PROMOTE_##exec * 3 + RA_PLACEMENT_##mode)

static const struct mr_test_case cases[] = {
	MR_CASE(test_insertion_rules),
	MR_CASE(test_pid),
	MR_CASE(test_shadow),
	MR_CASE(test_bloom),
	MR_CASE_ARG("scenario_1", test_scenario_1, 0),
	MR_CASE_ARG("scenario_1.stats", test_scenario_1, 1),
	MR_CASE(test_scenario_2),
	MR_CASE(test_scenario_3),
	MR_CASE_ARG("s000_scenario_1", test_s000_scenario_1, 0),
	MR_CASE_ARG("s000_scenario_1.stats", test_s000_scenario_1, 1),
	MR_CASE(test_s000_scenario_2),
	MR_CASE(test_s000_scenario_3),
	MR_CASE(test_s000_base_costs),
	MR_CASE(test_scenario_4_5),
	MR_CASE(test_scenario_6),
	MR_CASE(test_scenario_7),
	MR_CASE(test_scenario_8),
	MR_CASE(test_kernel_612_keep_locked),
	MR_CASE(test_reclaim_counters_by_kernel),
	MR_CASE(test_kernel_612_tiers),
	MR_CASE(test_evicted_refs_cleared),
	MR_CASE(test_kernel_612_active_add_keeps_refs),
	MR_CASE(test_kernel_612_inc_refs),
	MR_CASE(test_kernel_612_check_references),
	MR_CASE(test_kernel_61295_unevictable_culled),
	MR_CASE(test_kernel_61295_writeback_sorted),
	MR_CASE(test_kernel_61295_isolate_clears_reclaim),
	MR_CASE(test_scenario_9),
	MR_CASE(test_scenario_10),
	MR_CASE(test_scenario_11),
	MR_CASE(test_scenario_12),
	MR_CASE(test_scenario_13),
	MR_CASE_ARG("s003_scenario_4_5.B", test_s003_scenario_4_5, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_scenario_4_5.C", test_s003_scenario_4_5, RA_PLACEMENT_C),
	MR_CASE_ARG("s003_scenario_6.B", test_s003_scenario_6, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_scenario_6.C", test_s003_scenario_6, RA_PLACEMENT_C),
	MR_CASE_ARG("s003_scenario_7.B", test_s003_scenario_7, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_scenario_7.C", test_s003_scenario_7, RA_PLACEMENT_C),
	MR_CASE_ARG("s003_scenario_8.B", test_s003_scenario_8, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_scenario_8.C", test_s003_scenario_8, RA_PLACEMENT_C),
	MR_CASE_ARG("s003_scenario_9.B", test_s003_scenario_9, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_scenario_9.C", test_s003_scenario_9, RA_PLACEMENT_C),
	MR_CASE_ARG("s003_scenario_10.B", test_s003_scenario_10, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_scenario_10.C", test_s003_scenario_10, RA_PLACEMENT_C),
	MR_CASE_ARG("s003_scenario_11.B", test_s003_scenario_11, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_scenario_11.C", test_s003_scenario_11, RA_PLACEMENT_C),
	MR_CASE(test_s003_scenario_7a),
	MR_CASE_ARG("s003_rule5.A", test_s003_rule5, RA_PLACEMENT_A),
	MR_CASE_ARG("s003_rule5.B", test_s003_rule5, RA_PLACEMENT_B),
	MR_CASE_ARG("s003_rule5.C", test_s003_rule5, RA_PLACEMENT_C),
	MR_CASE_ARG("s004_scenario_12.0", test_s004_scenario_12_file, EXEC_PROMOTE_OFF),
	MR_CASE_ARG("s004_scenario_12.0.anon", test_s004_scenario_12_anon, EXEC_PROMOTE_OFF),
	MR_CASE_ARG("s004_mode_a_caveat.0", test_s004_mode_a_caveat, EXEC_PROMOTE_OFF),
	MR_CASE_ARG("s004_scenario_13.0.A", test_s004_scenario_13_arg, S13(OFF, A)),
	MR_CASE_ARG("s004_scenario_13.0.B", test_s004_scenario_13_arg, S13(OFF, B)),
	MR_CASE_ARG("s004_scenario_13.0.C", test_s004_scenario_13_arg, S13(OFF, C)),
	MR_CASE_ARG("s004_scenario_12.1", test_s004_scenario_12_file, EXEC_PROMOTE_V3),
	MR_CASE_ARG("s004_scenario_12.1.anon", test_s004_scenario_12_anon, EXEC_PROMOTE_V3),
	MR_CASE_ARG("s004_mode_a_caveat.1", test_s004_mode_a_caveat, EXEC_PROMOTE_V3),
	MR_CASE_ARG("s004_scenario_13.1.A", test_s004_scenario_13_arg, S13(V3, A)),
	MR_CASE_ARG("s004_scenario_13.1.B", test_s004_scenario_13_arg, S13(V3, B)),
	MR_CASE_ARG("s004_scenario_13.1.C", test_s004_scenario_13_arg, S13(V3, C)),
	MR_CASE_ARG("s004_scenario_12.alt", test_s004_scenario_12_file, EXEC_PROMOTE_ALT),
	MR_CASE_ARG("s004_scenario_12.alt.anon", test_s004_scenario_12_anon, EXEC_PROMOTE_ALT),
	MR_CASE_ARG("s004_mode_a_caveat.alt", test_s004_mode_a_caveat, EXEC_PROMOTE_ALT),
	MR_CASE_ARG("s004_scenario_13.alt.A", test_s004_scenario_13_arg, S13(ALT, A)),
	MR_CASE_ARG("s004_scenario_13.alt.B", test_s004_scenario_13_arg, S13(ALT, B)),
	MR_CASE_ARG("s004_scenario_13.alt.C", test_s004_scenario_13_arg, S13(ALT, C)),
	MR_CASE(test_seed_params),
	MR_CASE(test_probes),
	MR_CASE(test_s001_scenario_14),
	MR_CASE(test_s001_scenario_15),
	MR_CASE(test_s001_scenario_16),
	MR_CASE(test_scenario_14),
	MR_CASE(test_scenario_14_sampled),
	MR_CASE(test_scenario_16),
	MR_CASE(test_scenario_17),
	MR_CASE(test_scenario_18),
	MR_CASE(test_folio_del_and_anon_only),
	MR_CASE(test_shrink_lruvec_and_min_ttl),
	MR_CASE(test_debugfs),
	MR_CASE(test_checker_catches),
	MR_CASE(test_params_and_counters),
	MR_CASE(test_s002_layout),
	MR_CASE(test_s002_two_cpu),
	MR_CASE(test_s002_params),
	MR_CASE(test_s002_identical),
	MR_CASE_ARG("stress.kernel_7_2", test_stress_set, 0),
	MR_CASE_ARG("stress.kernel_6_12", test_stress_set, 1),
	MR_CASE_ARG("stress.kernel_6_12_95", test_stress_set, 2),
	MR_CASE_ARG("stress.inc_min_seq_v3", test_stress_set, 3),
	MR_CASE_ARG("stress.v3_ra_b_exec_1", test_stress_set, 4),
	MR_CASE_ARG("stress.pud_filter_probes", test_stress_set, 5),
	MR_CASE_ARG("stress.ra_c_exec_alt", test_stress_set, 6),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_mglru", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
