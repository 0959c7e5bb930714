// SPDX-License-Identifier: GPL-2.0
/*
 * policy_machine.c - the small test machine of policy_machine.h.
 */
#include "policy_machine.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PM_PAGE_SIZE (1ull << MR_PAGE_SHIFT)
#define PM_PMD_SIZE (1ull << MR_PMD_SHIFT)
#define PM_PUD_SIZE (1ull << MR_PUD_SHIFT)

#define PM_TYPE_ANON MR_PAGE_ANON
#define PM_TYPE_FILE MR_PAGE_FILE
#define PM_TYPE_SHMEM MR_PAGE_SHMEM

/* Policy flags a freed page loses (the page allocator clears page flags). */
#define PM_FREE_CLEAR                                                                      \
	(MR_PG_LRU | MR_PG_ACTIVE | MR_PG_REFERENCED | MR_PG_WORKINGSET | MR_PG_RECLAIM |  \
	 MR_PG_DIRTY | MR_PG_WRITEBACK | MR_PG_SWAPCACHE | MR_PG_RESIDENT)

static struct pm_machine *pm_of(struct mr_machine *m)
{
	return (struct pm_machine *)m; /* m is the first member */
}

/* The VMA of mm containing addr, or NULL. */
static const struct mr_vma *find_vma(struct pm_machine *pm, uint32_t mm, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < pm->nr_vmas; i++) {
		const struct mr_vma *v = &pm->vmas[i];

		if (v->mm == mm && v->start <= addr && addr < v->end)
			return v;
	}
	return NULL;
}

static int pm_rmap_walk(struct mr_machine *m, uint32_t page,
			int (*fn)(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
				  unsigned slot),
			void *arg)
{
	struct pm_machine *pm = pm_of(m);
	uint32_t t;
	unsigned s;
	int rc;

	for (t = 0; t < pm->nr_tables; t++) {
		struct mr_pte_table *pt = &pm->tables[t];

		for (s = 0; s < MR_PTRS_PER_TABLE; s++) {
			const struct mr_vma *v;

			if (pt->page[s] != page)
				continue;
			v = find_vma(pm, pt->mm, pt->addr + s * PM_PAGE_SIZE);
			if (!v)
				continue;
			rc = fn(arg, v, pt, s);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* walk_page_range() over mm: VMA by VMA, present PUDs, then the PTE tables (present
 * PMD entries) the VMA covers, in address order. */
static void pm_walk_mm(struct mr_machine *m, uint32_t mm, const struct mr_walk_ops *ops,
		       void *arg)
{
	struct pm_machine *pm = pm_of(m);
	uint32_t i, t;

	for (i = 0; i < pm->nr_vmas; i++) {
		const struct mr_vma *v = &pm->vmas[i];
		uint64_t pud;

		if (v->mm != mm)
			continue;
		if (ops->vma_entry && ops->vma_entry(arg, v))
			continue;
		for (pud = v->start & ~(PM_PUD_SIZE - 1); pud < v->end; pud += PM_PUD_SIZE) {
			int present = 0;

			for (t = 0; t < pm->nr_tables; t++)
				if (pm->tables[t].mm == mm &&
				    (pm->tables[t].addr & ~(PM_PUD_SIZE - 1)) == pud)
					present = 1;
			if (!present)
				continue;
			if (ops->pud_entry && ops->pud_entry(arg, v, pud))
				continue;
			for (t = 0; t < pm->nr_tables; t++) {
				struct mr_pte_table *pt = &pm->tables[t];
				uint64_t lo, hi;

				if (pt->mm != mm || (pt->addr & ~(PM_PUD_SIZE - 1)) != pud)
					continue;
				if (pt->addr + PM_PMD_SIZE <= v->start || pt->addr >= v->end)
					continue;
				lo = v->start > pt->addr ? v->start : pt->addr;
				hi = v->end < pt->addr + PM_PMD_SIZE ? v->end : pt->addr + PM_PMD_SIZE;
				if (ops->pmd_entry(arg, v, pt, (unsigned)((lo - pt->addr) >> MR_PAGE_SHIFT),
						   (unsigned)((hi - 1 - pt->addr) >> MR_PAGE_SHIFT)) < 0)
					return;
			}
		}
	}
}

/* try_to_unmap()'s dirty-bit transfer: PTE dirty bits move to PG_dirty. */
static int transfer_dirty(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			  unsigned slot)
{
	struct mr_folio *f = arg;

	(void)vma;
	if (pt->bits[slot] & MR_PTE_DIRTY) {
		pt->bits[slot] &= (uint8_t)~MR_PTE_DIRTY;
		f->flags |= MR_PG_DIRTY;
	}
	return 0;
}

/* Clear every PTE mapping the page. */
static int unmap_one(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt, unsigned slot)
{
	struct mr_folio *f = arg;

	(void)vma;
	pt->page[slot] = MR_NONE;
	pt->bits[slot] = 0;
	pt->nr_present--;
	if (f->mapcount)
		f->mapcount--;
	return 0;
}

static int pm_remove_mapping(struct mr_machine *m, uint32_t page, uint64_t shadow)
{
	struct pm_machine *pm = pm_of(m);
	struct mr_folio *f = &m->folios[page];

	/* dirty bits first; a folio that turns out dirty stays, still mapped */
	m->ops->rmap_walk(m, page, transfer_dirty, f);
	if (f->flags & (MR_PG_DIRTY | MR_PG_WRITEBACK))
		return MR_REMOVE_BUSY;
	if (f->type == PM_TYPE_ANON && (f->flags & MR_PG_SWAPBACKED) &&
	    !(f->flags & MR_PG_SWAPCACHE))
		return MR_REMOVE_BUSY;
	m->ops->rmap_walk(m, page, unmap_one, f);
	pm->shadow[page] = shadow;
	f->flags &= ~PM_FREE_CLEAR;
	pm->nr_removed++;
	return MR_REMOVED;
}

static void pm_start_writeback(struct mr_machine *m, uint32_t page)
{
	struct mr_folio *f = &m->folios[page];

	f->flags &= ~MR_PG_DIRTY;
	f->flags |= MR_PG_WRITEBACK;
	pm_of(m)->nr_writeback++;
}

static int pm_add_to_swap(struct mr_machine *m, uint32_t page)
{
	if (!m->swap_free)
		return MR_ENOSPC;
	m->swap_free--;
	m->folios[page].flags |= MR_PG_SWAPCACHE;
	return 0;
}

struct pm_machine *pm_create(const struct pm_config *cfg)
{
	struct pm_machine *pm = calloc(1, sizeof(*pm));
	struct mr_machine *m;
	uint32_t i;

	if (!pm)
		return NULL;
	m = &pm->m;
	m->nr_pages = cfg->nr_pages;
	m->nr_mms = cfg->nr_mms ? cfg->nr_mms : 1;
	m->nr_nodes = cfg->nr_nodes ? cfg->nr_nodes : 1;
	m->nr_memcgs = cfg->nr_memcgs ? cfg->nr_memcgs : 1;
	m->nr_lruvecs = m->nr_nodes * m->nr_memcgs;
	m->swap_free = cfg->swap_free ? cfg->swap_free : 1u << 20;
	m->swap_total = m->swap_free;
	m->hw_young = 1;
	m->non_leaf_young = 1;
	pm->max_tables = cfg->max_tables ? cfg->max_tables : 16;
	pm->max_vmas = cfg->max_vmas ? cfg->max_vmas : 16;

	m->folios = calloc(m->nr_pages ? m->nr_pages : 1, sizeof(*m->folios));
	for (uint32_t fr = 0; m->folios && fr < m->nr_pages; fr++)
		m->folios[fr].page = fr;
	m->mms = calloc(m->nr_mms, sizeof(*m->mms));
	m->vmstat = calloc(MR_NR_VMSTAT, sizeof(uint64_t));
	m->lruvec_stat = calloc((size_t)m->nr_lruvecs * MR_NR_VMSTAT, sizeof(uint64_t));
	pm->tables = calloc(pm->max_tables, sizeof(*pm->tables));
	pm->vmas = calloc(pm->max_vmas, sizeof(*pm->vmas));
	pm->shadow = calloc(m->nr_pages ? m->nr_pages : 1, sizeof(uint64_t));
	if (!m->folios || !m->mms || !m->vmstat || !m->lruvec_stat || !pm->tables || !pm->vmas ||
	    !pm->shadow) {
		pm_destroy(pm);
		return NULL;
	}
	for (i = 0; i < m->nr_mms; i++) {
		m->mms[i].id = i;
		m->mms[i].alive = 1;
		m->mms[i].lru_gen_bitmap = ~0ull;
	}

	pm->ops.rmap_walk = pm_rmap_walk;
	pm->ops.walk_mm = pm_walk_mm;
	pm->ops.remove_mapping = pm_remove_mapping;
	pm->ops.start_writeback = pm_start_writeback;
	pm->ops.add_to_swap = pm_add_to_swap;
	m->ops = &pm->ops;
	return pm;
}

void pm_destroy(struct pm_machine *pm)
{
	if (!pm)
		return;
	free(pm->m.folios);
	free(pm->m.mms);
	free(pm->m.vmstat);
	free(pm->m.lruvec_stat);
	free(pm->tables);
	free(pm->vmas);
	free(pm->shadow);
	free(pm);
}

struct mr_folio *pm_folio(struct pm_machine *pm, uint32_t page, enum pm_kind kind,
			  uint32_t memcg, uint32_t node)
{
	struct mr_folio *f = &pm->m.folios[page];

	/* a new folio in the frame; the policy's state in its record stays (mr_policy.h) */
	memset(f, 0, offsetof(struct mr_folio, priv));
	f->page = page; /* frames are pages here */
	f->flags = MR_PG_RESIDENT;
	switch (kind) {
	case PM_FILE:
		f->type = PM_TYPE_FILE;
		break;
	case PM_ANON:
		f->type = PM_TYPE_ANON;
		f->flags |= MR_PG_SWAPBACKED;
		break;
	case PM_SHMEM:
		f->type = PM_TYPE_SHMEM;
		f->flags |= MR_PG_SWAPBACKED;
		break;
	}
	f->node = (uint16_t)node;
	f->lruvec = (uint16_t)(memcg * pm->m.nr_nodes + node);
	return f;
}

struct mr_vma *pm_add_vma(struct pm_machine *pm, uint32_t mm, uint64_t start, uint64_t end,
			  uint32_t flags, uint32_t file)
{
	uint32_t i, at;

	if (pm->nr_vmas == pm->max_vmas)
		return NULL;
	for (at = 0; at < pm->nr_vmas; at++)
		if (pm->vmas[at].mm > mm || (pm->vmas[at].mm == mm && pm->vmas[at].start > start))
			break;
	for (i = pm->nr_vmas; i > at; i--)
		pm->vmas[i] = pm->vmas[i - 1];
	pm->vmas[at] = (struct mr_vma){ .start = start, .end = end, .flags = flags, .file = file,
					.mm = mm, .id = pm->nr_vmas };
	pm->nr_vmas++;
	return &pm->vmas[at];
}

struct mr_pte_table *pm_table(struct pm_machine *pm, uint32_t mm, uint64_t addr, int create)
{
	uint64_t base = addr & ~(PM_PMD_SIZE - 1);
	uint32_t i, at;
	unsigned s;

	for (at = 0; at < pm->nr_tables; at++) {
		struct mr_pte_table *pt = &pm->tables[at];

		if (pt->mm == mm && pt->addr == base)
			return pt;
		if (pt->mm > mm || (pt->mm == mm && pt->addr > base))
			break;
	}
	if (!create || pm->nr_tables == pm->max_tables)
		return NULL;
	for (i = pm->nr_tables; i > at; i--)
		pm->tables[i] = pm->tables[i - 1];
	memset(&pm->tables[at], 0, sizeof(pm->tables[at]));
	for (s = 0; s < MR_PTRS_PER_TABLE; s++)
		pm->tables[at].page[s] = MR_NONE;
	pm->tables[at].addr = base;
	pm->tables[at].mm = mm;
	pm->nr_tables++;
	return &pm->tables[at];
}

int pm_map(struct pm_machine *pm, uint32_t mm, uint64_t addr, uint32_t page, uint8_t bits)
{
	struct mr_pte_table *pt = pm_table(pm, mm, addr, 1);
	unsigned s = (unsigned)((addr >> MR_PAGE_SHIFT) & (MR_PTRS_PER_TABLE - 1));

	if (!pt || pt->page[s] != MR_NONE)
		return MR_EINVAL;
	pt->page[s] = page;
	pt->bits[s] = bits;
	pt->nr_present++;
	if (bits & MR_PTE_YOUNG)
		pt->pmd_young = 1;
	pm->m.folios[page].mapcount++;
	return 0;
}

void pm_touch(struct pm_machine *pm, uint32_t mm, uint64_t addr, int write)
{
	struct mr_pte_table *pt = pm_table(pm, mm, addr, 0);
	unsigned s = (unsigned)((addr >> MR_PAGE_SHIFT) & (MR_PTRS_PER_TABLE - 1));

	if (!pt || pt->page[s] == MR_NONE)
		return;
	pt->bits[s] |= MR_PTE_YOUNG | (write ? MR_PTE_DIRTY : 0);
	pt->pmd_young = 1;
}

uint8_t pm_pte_bits(struct pm_machine *pm, uint32_t mm, uint64_t addr)
{
	struct mr_pte_table *pt = pm_table(pm, mm, addr, 0);
	unsigned s = (unsigned)((addr >> MR_PAGE_SHIFT) & (MR_PTRS_PER_TABLE - 1));

	return pt && pt->page[s] != MR_NONE ? pt->bits[s] : 0;
}

uint64_t pm_vmstat(struct pm_machine *pm, unsigned item)
{
	return pm->m.vmstat[item];
}

uint64_t pm_lruvec_stat(struct pm_machine *pm, uint32_t lruvec, unsigned item)
{
	return pm->m.lruvec_stat[(size_t)lruvec * MR_NR_VMSTAT + item];
}

/* ---- policy instances ---- */

struct mr_policy *pm_policy_new(struct pm_machine *pm, const struct mr_policy_ops *ops)
{
	struct mr_policy *p = NULL;

	mr_policy_create(ops, &pm->m, NULL, &p, NULL);
	return p;
}
