// SPDX-License-Identifier: GPL-2.0
/*
 * shadow.c - what happens to shadow entries (the workingset refault information a
 * folio's eviction leaves in its mapping) after they are stored: the replay's
 * assumption `--shadow keep|kernel|none` (docs/replay.md, "Shadow entries").
 *
 *   keep    every shadow stays until its page comes back or is freed (the replay's
 *           behaviour before this option; the default);
 *   none    no shadow is stored: no refault is recognised as one (workingset_refault()
 *           never runs), as if the shrinker below had always just run;
 *   kernel  shadows live in xarray nodes of 64 slots, and nodes that hold only shadows
 *           are reclaimed, oldest first, once there are more of them than
 *           count_shadow_nodes() allows for their lruvec.
 *
 * The kernel's rule (mm/workingset.c, 6.12): workingset_update_node() puts an xa_node
 * on the shadow_nodes list_lru (per memcg and node) when every entry it holds is a
 * shadow (node->count == node->nr_values) and takes it off when a page comes back.
 * count_shadow_nodes() lets the shrinker free nodes beyond
 *
 *     max_nodes = pages >> (XA_CHUNK_SHIFT - 3)    (XA_CHUNK_SHIFT = 6: pages / 8)
 *
 * where pages are the lruvec's LRU pages (plus its slab pages, which the replay does
 * not have) for memcg-aware shrinking, a worst-case density of 1/8 of the node's 64
 * slots per page. shadow_lru_isolate() frees a whole node, every shadow in it, and
 * counts WORKINGSET_NODERECLAIM. The shrinker runs from shrink_slab() in every reclaim
 * of the memcg (shrink_node_memcgs(), and MGLRU's shrink_one()), so the model enforces
 * the limit after each reclaim invocation, on every lruvec. What it does not model:
 * do_shrink_slab()'s gradual scan (about 2 * freeable >> priority objects a call, the
 * rest deferred), which frees fewer nodes per reclaim than the limit allows; and
 * reclaim caused by memory pressure outside the replayed cgroups, which on a host
 * shrinks the same lists at times the trace does not show (the 2.1 M / 98 k / 357 k
 * workingset_refault_file of three identical runs).
 *
 * Nodes: a file page's node is (file, index >> 6), as the page cache's xarray holds
 * it. An anon page's shadow lives in the swap cache at its swap slot; the replay has
 * no slot numbers, so its node is (mm, virtual page >> 6), the slots a cluster of
 * consecutive swap-outs of one region would get. Built once at machine creation;
 * nothing here allocates afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include "machine_int.h"

#define SH_XA_SLOTS_SHIFT 6 /* XA_CHUNK_SHIFT */
#define SH_OFF UINT32_MAX   /* not on a list */

struct sh_node {
	uint32_t prev, next;   /* on its lruvec's list (prev = SH_OFF when off) */
	uint32_t lruvec;
	uint16_t values;       /* shadows in it (node->nr_values) */
	uint16_t present;      /* resident pages in it (node->count - nr_values) */
};

struct sh_list {
	uint32_t head, tail;   /* oldest first (list_lru_add() appends) */
	uint64_t n;
};

struct rp_shadow {
	uint32_t *node_of;     /* [nr_pages]: a page's node, SH_OFF for none */
	uint32_t *start;       /* [nr_nodes + 1]: the node's pages in pages[] */
	uint32_t *pages;       /* [nr_pages], grouped by node */
	struct sh_node *nodes;
	uint32_t nr_nodes;
	struct sh_list *lists; /* [nr_lruvecs] */
};

static const struct rp_image *sort_img; /* by_node()'s image (qsort has no argument) */

/* A page's node key: (type, owner) and the index >> 6 within it. */
static int node_cmp(const struct rp_page *x, const struct rp_page *y)
{
	uint64_t hx = (uint64_t)rp_page_type(x) << 32 | x->owner;
	uint64_t hy = (uint64_t)rp_page_type(y) << 32 | y->owner;
	uint64_t kx = x->key >> SH_XA_SLOTS_SHIFT, ky = y->key >> SH_XA_SLOTS_SHIFT;

	if (hx != hy)
		return hx < hy ? -1 : 1;
	return kx < ky ? -1 : kx > ky;
}

static int by_node(const void *a, const void *b)
{
	uint32_t pa = *(const uint32_t *)a, pb = *(const uint32_t *)b;
	int c = node_cmp(&sort_img->pages[pa], &sort_img->pages[pb]);

	return c ? c : (pa < pb ? -1 : pa > pb);
}

int rp_shadow_create(struct rp_machine *mach, struct mr_error *err)
{
	const struct rp_image *t = mach->t;
	uint32_t np = mach->m.nr_pages, n = 0, k = 0;
	struct rp_shadow *s;

	if (mach->shadow_mode != RP_SHADOW_KERNEL)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return mr_error_set(err, MR_ENOMEM, "out of memory for shadow nodes");
	mach->shadow = s;
	s->node_of = malloc(((size_t)np + 1) * sizeof(*s->node_of));
	s->pages = malloc(((size_t)np + 1) * sizeof(*s->pages));
	s->start = malloc(((size_t)np + 2) * sizeof(*s->start));
	s->nodes = calloc((size_t)np + 1, sizeof(*s->nodes));
	s->lists = calloc(mach->m.nr_lruvecs ? mach->m.nr_lruvecs : 1, sizeof(*s->lists));
	if (!s->node_of || !s->pages || !s->start || !s->nodes || !s->lists)
		return mr_error_set(err, MR_ENOMEM, "out of memory for shadow nodes (%u pages)", np);
	for (uint32_t i = 0; i < np; i++) {
		s->node_of[i] = SH_OFF;
		if (t->pages[i].info & RP_PAGE_VALID)
			s->pages[k++] = i;
	}
	sort_img = t; /* machines are created one at a time (replay.c) */
	qsort(s->pages, k, sizeof(*s->pages), by_node);
	for (uint32_t i = 0; i < k; i++) {
		if (!i || node_cmp(&t->pages[s->pages[i - 1]], &t->pages[s->pages[i]]))
			s->start[n++] = i;
		s->node_of[s->pages[i]] = n - 1;
	}
	s->start[n] = k;
	s->nr_nodes = n;
	for (uint32_t i = 0; i < n; i++)
		s->nodes[i].prev = SH_OFF;
	for (uint32_t l = 0; l < mach->m.nr_lruvecs; l++)
		s->lists[l].head = s->lists[l].tail = SH_OFF;
	return 0;
}

void rp_shadow_destroy(struct rp_machine *mach)
{
	struct rp_shadow *s = mach->shadow;

	if (!s)
		return;
	free(s->node_of);
	free(s->pages);
	free(s->start);
	free(s->nodes);
	free(s->lists);
	free(s);
	mach->shadow = NULL;
}

static void list_del(struct rp_shadow *s, uint32_t i)
{
	struct sh_node *x = &s->nodes[i];
	struct sh_list *l = &s->lists[x->lruvec];

	if (x->prev == SH_OFF)
		return;
	if (x->prev != SH_OFF - 1)
		s->nodes[x->prev].next = x->next;
	else
		l->head = x->next;
	if (x->next != SH_OFF)
		s->nodes[x->next].prev = x->prev;
	else
		l->tail = x->prev == SH_OFF - 1 ? SH_OFF : x->prev;
	x->prev = SH_OFF;
	l->n--;
}

/* list_lru_add() at the tail; prev = SH_OFF - 1 marks the head. */
static void list_add(struct rp_shadow *s, uint32_t i, uint32_t lruvec)
{
	struct sh_node *x = &s->nodes[i];
	struct sh_list *l = &s->lists[lruvec];

	if (x->prev != SH_OFF)
		return;
	x->lruvec = lruvec;
	x->next = SH_OFF;
	x->prev = l->tail == SH_OFF ? SH_OFF - 1 : l->tail;
	if (l->tail != SH_OFF)
		s->nodes[l->tail].next = i;
	else
		l->head = i;
	l->tail = i;
	l->n++;
}

/* workingset_update_node(): on the list exactly while it holds shadows and no page. */
static void update_node(struct rp_shadow *s, uint32_t i, uint32_t lruvec)
{
	struct sh_node *x = &s->nodes[i];

	if (x->values && !x->present)
		list_add(s, i, lruvec);
	else
		list_del(s, i);
}

int rp_shadow_store(struct rp_machine *mach, uint32_t page)
{
	struct rp_shadow *s = mach->shadow;
	uint32_t i;

	if (mach->shadow_mode == RP_SHADOW_NONE)
		return 0;
	if (!s || (i = s->node_of[page]) == SH_OFF)
		return 1;
	/* the folio's entry becomes a value entry: present - 1, values + 1 */
	if (s->nodes[i].present)
		s->nodes[i].present--;
	s->nodes[i].values++;
	update_node(s, i, page_lruvec(mach, page));
	return 1;
}

void rp_shadow_page_in(struct rp_machine *mach, uint32_t page, int had_shadow)
{
	struct rp_shadow *s = mach->shadow;
	uint32_t i;

	if (!s || (i = s->node_of[page]) == SH_OFF)
		return;
	if (had_shadow && s->nodes[i].values)
		s->nodes[i].values--;
	s->nodes[i].present++;
	update_node(s, i, page_lruvec(mach, page));
}

void rp_shadow_page_gone(struct rp_machine *mach, uint32_t page, int was_resident,
			 int had_shadow)
{
	struct rp_shadow *s = mach->shadow;
	uint32_t i;

	if (!s || (i = s->node_of[page]) == SH_OFF)
		return;
	if (was_resident && s->nodes[i].present)
		s->nodes[i].present--;
	if (had_shadow && s->nodes[i].values)
		s->nodes[i].values--;
	update_node(s, i, page_lruvec(mach, page));
}

/*
 * The shadow shrinker after a reclaim invocation: on every lruvec, free the oldest
 * shadow-only nodes beyond count_shadow_nodes()'s max_nodes (shadow_lru_isolate():
 * every shadow of the node goes, WORKINGSET_NODERECLAIM counts the node).
 */
void rp_shadow_shrink(struct rp_machine *mach)
{
	struct rp_shadow *s = mach->shadow;

	if (!s)
		return;
	for (uint32_t l = 0; l < mach->m.nr_lruvecs; l++) {
		const uint64_t *st = &mach->m.lruvec_stat[(size_t)l * MR_NR_VMSTAT];
		uint64_t pages = st[MR_VM_NR_ACTIVE_ANON] + st[MR_VM_NR_INACTIVE_ANON] +
				 st[MR_VM_NR_ACTIVE_FILE] + st[MR_VM_NR_INACTIVE_FILE] +
				 st[MR_VM_NR_UNEVICTABLE];
		uint64_t max_nodes = pages >> (SH_XA_SLOTS_SHIFT - 3);

		while (s->lists[l].n > max_nodes) {
			uint32_t i = s->lists[l].head;

			list_del(s, i);
			for (uint32_t k = s->start[i]; k < s->start[i + 1]; k++) {
				uint32_t page = s->pages[k];
				struct rp_pg *g = &mach->pg[page];

				if ((g->flags & (E_SHADOW | MR_PG_RESIDENT)) == E_SHADOW) {
					g->flags &= ~E_SHADOW;
					g->shadow = 0;
				}
			}
			s->nodes[i].values = 0;
			mr_count(&mach->m, l, MR_VM_WORKINGSET_NODERECLAIM, 1);
		}
	}
}
