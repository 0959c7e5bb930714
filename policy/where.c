// SPDX-License-Identifier: GPL-2.0
/*
 * where.c - where a folio stands in a policy's order (mr_policy_where.h): its generation
 * under mglru, its list under the classic LRU and any policy that keeps PG_lru and
 * PG_active as the kernel's lists do. For `memreplay explain`: read-only.
 */
#include <string.h>

#include "builtin.h"
#include "mglru.h"
#include "mr_policy_where.h"

/* The list's name (short constants: no formatting on a path polled per event). */
static void set_list(struct mr_folio_where *w, const char *name)
{
	size_t n = strlen(name);

	memcpy(w->list, name, n < sizeof(w->list) ? n + 1 : sizeof(w->list));
	w->list[sizeof(w->list) - 1] = 0;
}

/* include/linux/mm_inline.h:folio_lru_list(), named as /proc/vmstat's nr_* lists. */
static void classic_list(const struct mr_folio *f, struct mr_folio_where *w)
{
	const char *name;

	if (!(f->flags & MR_PG_LRU))
		return;
	if (f->flags & (MR_PG_UNEVICTABLE | MR_PG_MLOCKED))
		name = "unevictable";
	else if (f->flags & MR_PG_ACTIVE)
		name = mr_folio_is_file_lru(f) ? "active_file" : "active_anon";
	else
		name = mr_folio_is_file_lru(f) ? "inactive_file" : "inactive_anon";
	set_list(w, name);
}

/* The folio's generation: the seq in [min_seq, max_seq] of its type whose
 * lru_gen_from_seq() is its gen (mm/vmscan.c keeps only gen in folio->flags). */
static void mglru_where(const struct mr_policy *p, uint32_t page, struct mr_folio_where *w)
{
	const struct mglru *mg = mglru_of(p);
	const struct mr_folio *f = &p->m->folios[page];
	const struct lruvec *lv = folio_lruvec(mg, page);
	int type = folio_is_file_lru(f), gen = folio_lru_gen(mg, page);

	w->max_seq = lv->lrugen.max_seq;
	w->min_seq = lv->lrugen.min_seq[type];
	if (gen < 0) {
		if (lgp(mg, page)->list == LRU_GEN_LIST_UNEVICTABLE)
			set_list(w, "unevictable");
		return;
	}
	set_list(w, "gen");
	w->gen = gen;
	w->refs = (uint32_t)folio_lru_refs(mg, page);
	for (uint64_t seq = w->max_seq + 1; seq-- > w->min_seq;) {
		if (lru_gen_from_seq(seq) == (unsigned)gen) {
			w->seq = seq;
			break;
		}
	}
}

int mr_policy_folio_where(const struct mr_policy *p, uint32_t page, struct mr_folio_where *w)
{
	memset(w, 0, sizeof(*w));
	w->gen = -1;
	if (page >= p->m->nr_pages)
		return MR_EINVAL;
	if (!(p->m->folios[page].flags & MR_PG_RESIDENT))
		return 0;
	if (p->ops == &mr_mglru_ops) {
		mglru_where(p, page, w);
	} else if (p->ops == &mr_opt_ops) {
		/* MIN keeps one queue ordered by next use, no lists */
		uint64_t nu;

		if (opt_folio_next_use(p, page, &nu)) {
			set_list(w, "queue");
			w->next_use = nu;
		}
	} else
		classic_list(&p->m->folios[page], w);
	return 0;
}
