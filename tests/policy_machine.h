/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy_machine.h - a small, real struct mr_machine for policy unit tests: folios, PTE
 * tables, VMAs and mms owned by the test, and an mr_machine_ops whose rmap_walk /
 * walk_mm / remove_mapping / start_writeback / add_to_swap work on those tables. Plus a
 * policy instance built the way the framework builds one (params from the table's
 * defaults, zeroed priv and per-page state), without the registry.
 *
 * Not a replay engine: nothing happens unless the test calls it. Accesses set PTE
 * young/dirty bits and the non-leaf PMD young bit (pm_touch); faults map pages
 * (pm_map); the policy hooks are called by the test (p->ops->folio_add etc.).
 *
 * Usage:
 *   struct pm_machine *pm = pm_create(&(struct pm_config){ .nr_pages = 64 });
 *   pm_add_vma(pm, 0, 0x400000, 0x400000 + 16 * 4096, MR_VMA_READ | MR_VMA_FILE, 1);
 *   pm_folio(pm, 3, PM_FILE, 0, 0);            // resident file folio, memcg 0, node 0
 *   pm_map(pm, 0, 0x400000 + 3 * 4096, 3, MR_PTE_YOUNG);
 *   struct mr_policy *p = pm_policy_new(pm, &mr_mglru_ops);
 *   mr_policy_set_param(p, "swappiness", 100);
 *   mr_policy_start(p, &err);
 *   p->ops->folio_add(p, 3, MR_ADD_IN_FAULT);
 *   ...
 *   mr_policy_destroy(p);
 *   pm_destroy(pm);
 *
 * The rmap and page-table walks scan every table (tests are tiny); remove_mapping()
 * unmaps, refuses dirty or unswapped anon folios (MR_REMOVE_BUSY), records the shadow
 * in pm->shadow[page] and clears the page's flags as freeing does; start_writeback()
 * moves PG_dirty to PG_writeback (ending it is the test's job: clear PG_writeback and
 * call p->ops->rotate); add_to_swap() takes a slot from m.swap_free.
 */
#ifndef MR_TESTS_POLICY_MACHINE_H
#define MR_TESTS_POLICY_MACHINE_H

#include <stdint.h>

#include "mr_policy.h"

struct pm_config {
	uint32_t nr_pages;   /* folios (page ids 0..nr_pages-1) */
	uint32_t nr_mms;     /* default 1 */
	uint32_t nr_nodes;   /* default 1 */
	uint32_t nr_memcgs;  /* default 1 */
	uint32_t max_tables; /* PTE tables, default 16 */
	uint32_t max_vmas;   /* default 16 */
	uint64_t swap_free;  /* free swap pages, default 1 << 20 */
};

struct pm_machine {
	struct mr_machine m;
	struct mr_machine_ops ops;
	struct mr_pte_table *tables; /* sorted by (mm, addr) */
	uint32_t nr_tables, max_tables;
	struct mr_vma *vmas;         /* sorted by (mm, start) */
	uint32_t nr_vmas, max_vmas;
	uint64_t *shadow;            /* [nr_pages]: the shadow stored when a folio was freed */
	uint32_t nr_removed;         /* folios freed by remove_mapping */
	uint32_t nr_writeback;       /* writebacks started */
};

/* Kinds of folio for pm_folio(). */
enum pm_kind {
	PM_FILE,   /* page cache: file LRU */
	PM_ANON,   /* anon, swap-backed */
	PM_SHMEM,  /* shmem: swap-backed, not anon */
};

/* A machine with every mm alive in memcg 0 and lru_gen_bitmap set; NULL on ENOMEM. */
struct pm_machine *pm_create(const struct pm_config *cfg);
void pm_destroy(struct pm_machine *pm);

/* Make page resident as kind, charged to (memcg, node); flags cleared except the
 * engine's (RESIDENT, SWAPBACKED). Returns the folio. */
struct mr_folio *pm_folio(struct pm_machine *pm, uint32_t page, enum pm_kind kind,
			  uint32_t memcg, uint32_t node);

/* Add a VMA [start, end) to mm; file = 0 for anonymous. NULL when full. */
struct mr_vma *pm_add_vma(struct pm_machine *pm, uint32_t mm, uint64_t start, uint64_t end,
			  uint32_t flags, uint32_t file);

/* The PTE table of mm covering addr, created if create (NULL when full or absent). */
struct mr_pte_table *pm_table(struct pm_machine *pm, uint32_t mm, uint64_t addr, int create);

/* Map page at addr of mm with PTE bits (MR_PTE_YOUNG / MR_PTE_DIRTY); mapcount++.
 * Sets pmd_young when the PTE is young (a fault walks the page table). */
int pm_map(struct pm_machine *pm, uint32_t mm, uint64_t addr, uint32_t page, uint8_t bits);

/* A page-table access at addr of mm: PTE young (and dirty if write), PMD young. */
void pm_touch(struct pm_machine *pm, uint32_t mm, uint64_t addr, int write);

/* PTE bits at addr of mm (0 when not mapped). */
uint8_t pm_pte_bits(struct pm_machine *pm, uint32_t mm, uint64_t addr);

/* Counter of the whole machine, and of one lruvec. */
uint64_t pm_vmstat(struct pm_machine *pm, unsigned item);
uint64_t pm_lruvec_stat(struct pm_machine *pm, uint32_t lruvec, unsigned item);

/* mr_policy_create() on pm's machine, for tests that set parameters one by one
 * (mr_policy_set_param) before mr_policy_start(); mr_policy_destroy() frees it. NULL on
 * ENOMEM. */
struct mr_policy *pm_policy_new(struct pm_machine *pm, const struct mr_policy_ops *ops);

#endif /* MR_TESTS_POLICY_MACHINE_H */
