// SPDX-License-Identifier: GPL-2.0
/*
 * opt.c - `opt`: Belady's MIN over the same simulated machine. When reclaim needs pages,
 * it evicts the resident folios whose next access lies farthest in the future (never
 * used again first). With demand paging and one eviction per fault, MIN evicts as few
 * pages as any policy can for that memory size: opt is the lower bound the other
 * policies are compared with.
 *
 * Where the knowledge comes from: the engine computes, once per trace, the position of
 * the next access to each page, and calls ops->access(p, page, next_use) for every
 * access to a resident page (UINT64_MAX = never again). A fault first adds the folio
 * (ops->folio_add) and the engine then calls access for the faulting access, so a newly
 * added folio is keyed "never" only until that call. The engine also calls access for
 * pages it inserts by readahead, with their next use; a folio added with no access call
 * at all stays keyed "never" and is among the first victims.
 *
 * Data structure: one max-heap per lruvec, ordered by (next use, then lower page id
 * first), as a pairing heap whose links live in per-page state: no allocation after
 * init, any number of lruvecs, O(1) insert and key increase (the usual case: each access
 * moves a page's next use later), O(log n) amortised removal of the maximum or of any
 * folio.
 *
 * Eviction goes through shrink_folio_list (vmscan.c) without reference checks and with
 * shadow 0, so the mechanics are the kernel's: clean folios are freed at once; anon
 * folios get swap and are written back (pageout, pswpout) and freed by a later reclaim
 * after writeback ends; dirty file folios are marked PG_reclaim for the flushers. A
 * folio that cannot be freed now is set aside for the rest of the call and then goes
 * back into the heap, so the next-farthest folio is tried instead.
 *
 * Costs MIN ignores, so opt is a lower bound on evictions only:
 *  - eviction cost: clean and dirty pages, anon (swap I/O) and file (refetch) count the
 *    same; it minimises the number of evictions, not I/O or refault latency;
 *  - write-back delay: a dirty victim is not free until written back, and the folios
 *    evicted meanwhile are not what MIN with instant writes would choose;
 *  - batching: the engine reclaims nr_to_reclaim pages at a time (opt frees exactly
 *    what the scan control still asks for); MIN proper evicts one page per fault;
 *  - prefetch: readahead placement and its value are not optimised;
 *  - CPU: scanning, aging and rmap costs do not exist here; nor do per-memcg limits
 *    other than reclaiming from the lruvec asked for.
 * pgactivate counts from shrink_folio_list (writeback, dirty file) are mechanics of
 * the shared code, not promotions: opt has no active list.
 */
#include "mr_policy.h"
#include "counters.h"
#include "vmscan.h"

#include <stdlib.h>
#include <string.h>

enum opt_state { OPT_NONE = 0, OPT_HEAP = 1, OPT_UNEVICTABLE = 2 };

/* Per page: pairing-heap links. prev is the parent for a first child, else the left
 * sibling. */
struct opt_page {
	uint64_t next_use;
	uint32_t child, sibling, prev;
	uint8_t state; /* enum opt_state; zeroed = not on the policy's lists */
	uint8_t pad[3];
};

struct opt_lruvec {
	uint32_t root;
	uint64_t nr; /* folios in the heap */
};

struct opt_priv {
	struct opt_lruvec *lruvecs; /* [m->nr_lruvecs] */
	uint32_t nr_lruvecs;
	uint32_t *aside;            /* [m->nr_pages]: folios kept by one shrink call */
	uint32_t hold[MR_SWAP_CLUSTER_MAX];
};

static struct opt_priv *opt_priv(struct mr_policy *p)
{
	return p->priv;
}

static struct opt_page *node(struct mr_policy *p, uint32_t page)
{
	return mr_policy_page(p, page);
}

static int folio_evictable(const struct mr_folio *f)
{
	return !(f->flags & (MR_PG_UNEVICTABLE | MR_PG_MLOCKED));
}

/* Gauges: opt has no active list, so resident evictable folios count as inactive. */
static void update_size(struct mr_policy *p, const struct mr_folio *f, int unevictable,
			int64_t delta)
{
	unsigned item = unevictable ? MR_VM_NR_UNEVICTABLE :
			mr_folio_is_file_lru(f) ? MR_VM_NR_INACTIVE_FILE : MR_VM_NR_INACTIVE_ANON;

	mr_count(p->m, f->lruvec, item, (uint64_t)delta);
}

/* ---- pairing heap ---- */

/* a ranks above b: used farther in the future; ties go to the lower page id. */
static int greater(struct mr_policy *p, uint32_t a, uint32_t b)
{
	uint64_t ka = node(p, a)->next_use, kb = node(p, b)->next_use;

	return ka > kb || (ka == kb && a < b);
}

/* Meld two heap roots; the result is a root (no parent, no siblings). */
static uint32_t link(struct mr_policy *p, uint32_t a, uint32_t b)
{
	struct opt_page *na, *nb;
	uint32_t t;

	if (a == MR_NONE || b == MR_NONE) {
		t = a == MR_NONE ? b : a;
		if (t != MR_NONE)
			node(p, t)->prev = node(p, t)->sibling = MR_NONE;
		return t;
	}
	if (greater(p, b, a)) {
		t = a;
		a = b;
		b = t;
	}
	na = node(p, a);
	nb = node(p, b);
	nb->sibling = na->child;
	if (na->child != MR_NONE)
		node(p, na->child)->prev = b;
	nb->prev = a;
	na->child = b;
	na->prev = na->sibling = MR_NONE;
	return a;
}

/* Two-pass pairing of a sibling list: pair left to right, meld the pairs right to left. */
static uint32_t merge_pairs(struct mr_policy *p, uint32_t first)
{
	uint32_t acc = MR_NONE, root = MR_NONE, a = first;

	while (a != MR_NONE) {
		uint32_t b = node(p, a)->sibling;
		uint32_t next = b != MR_NONE ? node(p, b)->sibling : MR_NONE;
		uint32_t r = link(p, a, b);

		node(p, r)->sibling = acc; /* push: acc ends with the last pair first */
		acc = r;
		a = next;
	}
	while (acc != MR_NONE) {
		uint32_t next = node(p, acc)->sibling;

		root = link(p, root, acc);
		acc = next;
	}
	return root;
}

/* Detach a non-root node (with its subtree) from its parent's child list. */
static void cut(struct mr_policy *p, uint32_t x)
{
	struct opt_page *nx = node(p, x);
	struct opt_page *np = node(p, nx->prev);

	if (np->child == x)
		np->child = nx->sibling;
	else
		np->sibling = nx->sibling;
	if (nx->sibling != MR_NONE)
		node(p, nx->sibling)->prev = nx->prev;
	nx->prev = nx->sibling = MR_NONE;
}

static void heap_insert(struct mr_policy *p, struct opt_lruvec *lv, uint32_t x)
{
	struct opt_page *nx = node(p, x);

	nx->child = nx->sibling = nx->prev = MR_NONE;
	nx->state = OPT_HEAP;
	lv->root = link(p, lv->root, x);
	lv->nr++;
}

static void heap_remove(struct mr_policy *p, struct opt_lruvec *lv, uint32_t x)
{
	struct opt_page *nx = node(p, x);
	uint32_t sub;

	if (lv->root != x)
		cut(p, x);
	sub = merge_pairs(p, nx->child);
	lv->root = lv->root == x ? sub : link(p, lv->root, sub);
	nx->child = nx->sibling = nx->prev = MR_NONE;
	nx->state = OPT_NONE;
	lv->nr--;
}

/* New key: an increase cuts the subtree and melds it with the root (its children rank
 * no higher than the old key); a decrease removes and reinserts. */
static void heap_update(struct mr_policy *p, struct opt_lruvec *lv, uint32_t x, uint64_t key)
{
	struct opt_page *nx = node(p, x);

	if (key >= nx->next_use) {
		nx->next_use = key;
		if (lv->root != x) {
			cut(p, x);
			lv->root = link(p, lv->root, x);
		}
		return;
	}
	heap_remove(p, lv, x);
	nx->next_use = key;
	heap_insert(p, lv, x);
}

/* ---- policy hooks ---- */

static struct opt_lruvec *lruvec_of(struct mr_policy *p, const struct mr_folio *f)
{
	return &opt_priv(p)->lruvecs[f->lruvec];
}

/* Put a folio (new or set aside) on the policy's lists: the heap, or the unevictable
 * count. Its key is kept. */
static void opt_putback(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];

	f->flags &= ~MR_PG_ACTIVE;
	f->flags |= MR_PG_LRU;
	if (!folio_evictable(f)) {
		node(p, page)->state = OPT_UNEVICTABLE;
		update_size(p, f, 1, 1);
		return;
	}
	heap_insert(p, lruvec_of(p, f), page);
	update_size(p, f, 0, 1);
}

static void opt_folio_add(struct mr_policy *p, uint32_t page, unsigned ctx)
{
	(void)ctx;
	if (node(p, page)->state != OPT_NONE) {
		MR_WARN_ON_ONCE(node(p, page)->state != OPT_NONE);
		return;
	}
	node(p, page)->next_use = UINT64_MAX; /* until the engine's access() for it */
	opt_putback(p, page);
}

static void opt_access(struct mr_policy *p, uint32_t page, uint64_t next_use)
{
	struct opt_page *np = node(p, page);

	if (np->state == OPT_HEAP)
		heap_update(p, lruvec_of(p, &p->m->folios[page]), page, next_use);
	else
		np->next_use = next_use;
}

/* folio_mark_accessed(): opt already saw the access through access(). */
static void opt_mark_accessed(struct mr_policy *p, uint32_t page)
{
	(void)p;
	(void)page;
}

static void opt_folio_del(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];
	struct opt_page *np = node(p, page);

	if (np->state == OPT_HEAP) {
		heap_remove(p, lruvec_of(p, f), page);
		update_size(p, f, 0, -1);
	} else if (np->state == OPT_UNEVICTABLE) {
		np->state = OPT_NONE;
		update_size(p, f, 1, -1);
	}
	f->flags &= ~(MR_PG_LRU | MR_PG_ACTIVE | MR_PG_REFERENCED | MR_PG_WORKINGSET |
		      MR_PG_RECLAIM);
}

/* workingset_refault(): only the refault itself is counted; opt's shadows carry nothing. */
static void opt_refault(struct mr_policy *p, uint32_t page, uint64_t shadow, unsigned ctx)
{
	const struct mr_folio *f = &p->m->folios[page];

	(void)shadow;
	(void)ctx;
	mr_count(p->m, f->lruvec, mr_folio_is_file_lru(f) ? MR_VM_WORKINGSET_REFAULT_FILE :
			  MR_VM_WORKINGSET_REFAULT_ANON, 1);
}

/* folio_end_writeback() clears PG_reclaim; the folio is already back in the heap with
 * its key, so the next reclaim that reaches it frees it. */
static void opt_rotate(struct mr_policy *p, uint32_t page)
{
	p->m->folios[page].flags &= ~MR_PG_RECLAIM;
}

/*
 * Reclaim what the scan control still asks for (nr_to_reclaim - nr_reclaimed) from one
 * lruvec, farthest next use first, through shrink_folio_list.
 */
static void opt_shrink_lruvec(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc)
{
	struct opt_priv *pr = opt_priv(p);
	struct opt_lruvec *lv;
	uint64_t need, reclaimed = 0;
	uint32_t nr_aside = 0, i;

	if (lruvec >= pr->nr_lruvecs) {
		MR_WARN_ON_ONCE(lruvec >= pr->nr_lruvecs);
		return;
	}
	lv = &pr->lruvecs[lruvec];
	need = sc->nr_to_reclaim > sc->nr_reclaimed ? sc->nr_to_reclaim - sc->nr_reclaimed : 0;

	while (reclaimed < need && lv->root != MR_NONE) {
		struct mr_folio_list list = { pr->hold, 0, MR_SWAP_CLUSTER_MAX };
		uint64_t taken[2] = { 0, 0 }, kept[2] = { 0, 0 };
		uint64_t want = need - reclaimed;

		/* isolate the farthest folios */
		while (list.n < list.cap && list.n < want && lv->root != MR_NONE) {
			uint32_t page = lv->root;
			struct mr_folio *f = &p->m->folios[page];

			heap_remove(p, lv, page);
			update_size(p, f, 0, -1);
			f->flags &= ~MR_PG_LRU;
			taken[mr_folio_is_file_lru(f)]++;
			list.pages[list.n++] = page;
		}
		count_reclaim_events(p->m, lruvec, sc, MR_VM_PGSCAN_KSWAPD, 0, taken[0]);
		count_reclaim_events(p->m, lruvec, sc, MR_VM_PGSCAN_KSWAPD, 1, taken[1]);

		reclaimed += mr_shrink_folio_list(p, &list, sc, NULL, NULL);

		for (i = 0; i < list.n; i++) {
			kept[mr_folio_is_file_lru(&p->m->folios[list.pages[i]])]++;
			pr->aside[nr_aside++] = list.pages[i];
		}
		count_reclaim_events(p->m, lruvec, sc, MR_VM_PGSTEAL_KSWAPD, 0, taken[0] - kept[0]);
		count_reclaim_events(p->m, lruvec, sc, MR_VM_PGSTEAL_KSWAPD, 1, taken[1] - kept[1]);
	}
	for (i = 0; i < nr_aside; i++)
		opt_putback(p, pr->aside[i]);
	sc->nr_reclaimed += reclaimed;
}

/* ---- lifecycle, checks ---- */

static int opt_init(struct mr_policy *p, struct mr_error *err)
{
	struct opt_priv *pr = opt_priv(p);
	uint32_t i;

	pr->nr_lruvecs = p->m->nr_lruvecs;
	pr->lruvecs = calloc(pr->nr_lruvecs ? pr->nr_lruvecs : 1, sizeof(*pr->lruvecs));
	pr->aside = calloc(p->m->nr_pages ? p->m->nr_pages : 1, sizeof(*pr->aside));
	if (!pr->lruvecs || !pr->aside) {
		free(pr->lruvecs);
		free(pr->aside);
		pr->lruvecs = NULL;
		pr->aside = NULL;
		return mr_error_set(err, MR_ENOMEM, "opt: no memory for %u pages", p->m->nr_pages);
	}
	for (i = 0; i < pr->nr_lruvecs; i++)
		pr->lruvecs[i].root = MR_NONE;
	return 0;
}

static void opt_fini(struct mr_policy *p)
{
	struct opt_priv *pr = opt_priv(p);

	free(pr->lruvecs);
	free(pr->aside);
	pr->lruvecs = NULL;
	pr->aside = NULL;
}

/* Heap order, links and sizes (a depth-first walk using the aside array as stack). */
static unsigned opt_check(struct mr_policy *p)
{
	struct opt_priv *pr = opt_priv(p);
	unsigned problems = 0;
	uint32_t i;

#define BAD(cond) ((cond) ? (MR_WARN_ON_ONCE(cond), problems++, 1) : 0)
	for (i = 0; i < pr->nr_lruvecs; i++) {
		const struct opt_lruvec *lv = &pr->lruvecs[i];
		uint32_t top = 0;
		uint64_t n = 0;

		if (lv->root == MR_NONE) {
			BAD(lv->nr != 0);
			continue;
		}
		BAD(node(p, lv->root)->prev != MR_NONE || node(p, lv->root)->sibling != MR_NONE);
		pr->aside[top++] = lv->root;
		while (top && n <= p->m->nr_pages) {
			uint32_t x = pr->aside[--top], c, prev = x;

			n++;
			BAD(node(p, x)->state != OPT_HEAP);
			BAD(p->m->folios[x].lruvec != i);
			for (c = node(p, x)->child; c != MR_NONE; c = node(p, c)->sibling) {
				BAD(node(p, c)->prev != prev);
				BAD(greater(p, c, x));
				if (top < p->m->nr_pages)
					pr->aside[top++] = c;
				prev = c;
			}
		}
		BAD(n != lv->nr);
	}
#undef BAD
	return problems;
}

const struct mr_policy_ops mr_opt_ops = {
	.name = "opt",
	.help = "Belady's MIN: evicts the folio used farthest in the future; the lower bound "
		"on evictions for a memory size (needs the trace's next-use times)",
	.priv_size = sizeof(struct opt_priv),
	.page_priv_size = sizeof(struct opt_page),
	.init = opt_init,
	.fini = opt_fini,
	.folio_add = opt_folio_add,
	.mark_accessed = opt_mark_accessed,
	.folio_del = opt_folio_del,
	.refault = opt_refault,
	.rotate = opt_rotate,
	.shrink_lruvec = opt_shrink_lruvec,
	.access = opt_access,
	.check = opt_check,
};
