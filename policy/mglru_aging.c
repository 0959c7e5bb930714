// SPDX-License-Identifier: GPL-2.0
/*
 * mglru_aging.c - the aging of the Multi-Gen LRU model, as in mm/vmscan.c: the PMD Bloom
 * filters, the mm list iteration, the page table walk (walk_mm and its callbacks), the
 * rmap/PT walk feedback (lru_gen_look_around), and the sequence number updates
 * (inc_min_seq, try_to_inc_min_seq, inc_max_seq, try_to_inc_max_seq).
 *
 * The kernel's walker drives itself through the page tables with get_next_vma(); the
 * engine instead calls back once per (VMA, present PUD) and (VMA, PTE table). The
 * callbacks below reproduce what the kernel visits: every PMD entry is visited once per
 * walk, by the first walked VMA that covers it, and walk_pte_range() finishes a PTE
 * table across the following VMAs that share it (see walk_pmd_range()).
 */
#include "mglru.h"

#include <string.h>

#define PAGE_SIZE (1ull << MR_PAGE_SHIFT)
#define PMD_SIZE (1ull << MR_PMD_SHIFT)
#define PMD_MASK (~(PMD_SIZE - 1))
#define PUD_SIZE (1ull << MR_PUD_SHIFT)

/* mm/vmscan.c:should_walk_mmu(): arch_has_hw_pte_young() && get_cap(LRU_GEN_MM_WALK) */
bool should_walk_mmu(const struct mglru *mg)
{
	return mg->m->hw_young && (mg->lru_gen_caps & (1u << LRU_GEN_MM_WALK));
}

/* mm/vmscan.c:should_clear_pmd_young() */
bool should_clear_pmd_young(const struct mglru *mg)
{
	return mg->m->non_leaf_young && (mg->lru_gen_caps & (1u << LRU_GEN_NONLEAF_YOUNG));
}

/* ---- Bloom filters ---- */

static unsigned filter_gen_from_seq(uint64_t seq)
{
	return (unsigned)(seq % NR_BLOOM_FILTERS);
}

/*
 * The item of a PMD entry: the kernel uses the address of the PMD entry (pmd + i) in
 * its page table page. The model's stand-in is stable per (mm, 2 MiB range) and spaced
 * like PMD entries (8 bytes apart within an mm's range):
 *   item = mm << 32 | (addr >> PMD_SHIFT) * sizeof(pmd_t)     (user addr < 2^47)
 * so the real hash sees a realistic address pattern. S001 adds a PUD key next to it.
 */
uint64_t pmd_item(uint32_t mm, uint64_t addr)
{
	return ((uint64_t)mm << 32) | ((addr >> MR_PMD_SHIFT) << 3);
}

/*
 * S001: the PUD key, mm ^ (addr & PUD_MASK) in the kernel (the mm_struct pointer). The
 * model's mm "pointer" is a kernel-like address per mm (mm_structs ~1 KiB apart).
 */
uint64_t pud_item(uint32_t mm, uint64_t addr)
{
	return (0xffff888000000000ull + ((uint64_t)mm << 10)) ^ (addr & ~((1ull << MR_PUD_SHIFT) - 1));
}

/* mm/vmscan.c:get_item_key(): k = 2 keys from hash_ptr(item, 30) (include/linux/hash.h). */
void get_item_key(uint64_t item, unsigned key[2])
{
	uint32_t hash = (uint32_t)((item * GOLDEN_RATIO_64) >> (64 - BLOOM_FILTER_SHIFT * 2));

	key[0] = hash & ((1u << BLOOM_FILTER_SHIFT) - 1);
	key[1] = hash >> BLOOM_FILTER_SHIFT;
}

static bool test_bit64(const uint64_t *map, unsigned bit)
{
	return (map[bit / 64] >> (bit % 64)) & 1;
}

/* The two bits of item in one filter; a filter not allocated yet says "maybe" to all. */
static bool bloom_test(const uint64_t *filter, uint64_t item)
{
	unsigned key[2];

	if (!filter)
		return true;
	get_item_key(item, key);
	return test_bit64(filter, key[0]) && test_bit64(filter, key[1]);
}

static void bloom_set(uint64_t *filter, uint64_t item)
{
	unsigned key[2];

	if (!filter)
		return;
	get_item_key(item, key);
	filter[key[0] / 64] |= 1ull << (key[0] % 64);
	filter[key[1] / 64] |= 1ull << (key[1] % 64);
}

/* mm/vmscan.c:test_bloom_filter() */
bool test_bloom_filter(const struct lru_gen_mm_state *mm_state, uint64_t seq, uint64_t item)
{
	return bloom_test(mm_state->filters[filter_gen_from_seq(seq)], item);
}

/* mm/vmscan.c:update_bloom_filter() */
void update_bloom_filter(struct lru_gen_mm_state *mm_state, uint64_t seq, uint64_t item)
{
	bloom_set(mm_state->filters[filter_gen_from_seq(seq)], item);
}

/* mm/vmscan.c:reset_bloom_filter(): clear it, allocating it the first time (from the
 * lruvec's preallocated arena: no allocation after init). */
void reset_bloom_filter(struct mglru *mg, struct lruvec *lv, uint64_t seq)
{
	unsigned gen = filter_gen_from_seq(seq);
	struct lru_gen_mm_state *mm_state = &lv->mm_state;

	if (!mm_state->filters[gen])
		mm_state->filters[gen] = mg->arena + lv->id * mg->per_lv + gen * BLOOM_FILTER_WORDS;
	memset(mm_state->filters[gen], 0, BLOOM_FILTER_WORDS * sizeof(uint64_t));

	/* S001: both levels */
	if (!mg->pud_filter)
		return;
	if (!mm_state->pud_filters[gen])
		mm_state->pud_filters[gen] = mg->arena + lv->id * mg->per_lv +
					     NR_BLOOM_FILTERS * BLOOM_FILTER_WORDS + mg->mm_words +
					     gen * BLOOM_FILTER_WORDS;
	memset(mm_state->pud_filters[gen], 0, BLOOM_FILTER_WORDS * sizeof(uint64_t));
}

/* S001: test_bloom_filter() / update_bloom_filter() of the PUD level */
bool test_bloom_filter_pud(const struct lru_gen_mm_state *mm_state, uint64_t seq, uint64_t item)
{
	return bloom_test(mm_state->pud_filters[filter_gen_from_seq(seq)], item);
}

void update_bloom_filter_pud(struct lru_gen_mm_state *mm_state, uint64_t seq, uint64_t item)
{
	bloom_set(mm_state->pud_filters[filter_gen_from_seq(seq)], item);
}

/* ---- mm_struct list ---- */

static bool mm_walked(const struct lru_gen_mm_state *mm_state, uint32_t mm)
{
	return test_bit64(mm_state->walked, mm);
}

/* The mm after pos in this lruvec's memcg's mm list (MM_LIST_FIFO: the first); or
 * MM_LIST_FIFO at the end of the list. */
static uint32_t next_mm(const struct mglru *mg, const struct lruvec *lv, uint32_t pos)
{
	uint32_t i;

	for (i = pos == MM_LIST_FIFO ? 0 : pos + 1; i < mg->m->nr_mms; i++)
		if (mg->m->mms[i].alive && mg->m->mms[i].memcg == lv->memcg)
			return i;
	return MM_LIST_FIFO;
}

/* mm/vmscan.c:get_next_mm(): skip an mm that has not run on this node since the last
 * walk (lru_gen_use_mm() sets the bits), unless force_scan. */
static uint32_t get_next_mm(struct mglru *mg, struct lru_gen_mm_walk *walk, uint32_t pos)
{
	struct mr_mm *mm = &mg->m->mms[pos];
	uint64_t key = 1ull << (walk->lruvec->node % 64);

	if (!walk->force_scan && !(mm->lru_gen_bitmap & key))
		return MR_NONE;
	mm->lru_gen_bitmap &= ~key;
	return mm->alive ? pos : MR_NONE;
}

/* mm/vmscan.c:reset_mm_stats() */
static void reset_mm_stats(struct mglru *mg, struct lru_gen_mm_walk *walk, bool last)
{
	struct lru_gen_mm_state *mm_state = &walk->lruvec->mm_state;
	unsigned hist = lru_hist_from_seq(mg, walk->seq);
	int i;

	for (i = 0; i < (int)mg->nr_mm_stats; i++) {
		mm_state->stats[hist][i] += walk->mm_stats[i];
		mg->stat.walk_stats[i] += walk->mm_stats[i];
	}
	memset(walk->mm_stats, 0, sizeof(walk->mm_stats));

	if (mg->nr_hist_gens > 1 && last) {
		hist = lru_hist_from_seq(mg, walk->seq + 1);
		for (i = 0; i < (int)mg->nr_mm_stats; i++)
			mm_state->stats[hist][i] = 0;
	}
}

/*
 * mm/vmscan.c:iterate_mm_list(): take the next mm of the iteration for walk->seq. The
 * walker that takes the first mm resets the Bloom filter for seq + 1; the one that
 * reaches the end bumps mm_state->seq and returns true (last). Reaching an mm added
 * since the last iteration turns force_scan on (the kernel's mm_state->tail).
 */
static bool iterate_mm_list(struct mglru *mg, struct lru_gen_mm_walk *walk, uint32_t *iter)
{
	bool first = false;
	bool last = false;
	uint32_t mm = MR_NONE;
	struct lruvec *lv = walk->lruvec;
	struct lru_gen_mm_state *mm_state = &lv->mm_state;

	MR_WARN_ON_ONCE(mm_state->seq + 1 < walk->seq);

	if (walk->seq <= mm_state->seq)
		goto done;

	if (mm_state->head == MM_LIST_FIFO)
		first = true;

	do {
		mm_state->head = next_mm(mg, lv, mm_state->head);
		if (mm_state->head == MM_LIST_FIFO) {
			mm_state->seq++;
			last = true;
			break;
		}

		/* force scan for those added after the last iteration */
		if (!mm_walked(mm_state, mm_state->head)) {
			mm_state->walked[mm_state->head / 64] |= 1ull << (mm_state->head % 64);
			walk->force_scan = true;
		}
	} while ((mm = get_next_mm(mg, walk, mm_state->head)) == MR_NONE);
done:
	if (*iter != MR_NONE || last)
		reset_mm_stats(mg, walk, last);

	if (mm != MR_NONE && first)
		reset_bloom_filter(mg, lv, walk->seq + 1);

	*iter = mm;
	return last;
}

/* mm/vmscan.c:iterate_mm_list_nowalk(): end the iteration without walking; the next
 * walk starts over and force-scans every mm (head = tail = NULL). */
static bool iterate_mm_list_nowalk(struct mglru *mg, struct lruvec *lv, uint64_t seq)
{
	struct lru_gen_mm_state *mm_state = &lv->mm_state;

	MR_WARN_ON_ONCE(mm_state->seq + 1 < seq);

	if (seq <= mm_state->seq)
		return false;

	mm_state->head = MM_LIST_FIFO;
	memset(mm_state->walked, 0, mg->mm_words * sizeof(uint64_t));
	mm_state->seq++;
	return true;
}

/* ---- the aging ---- */

/*
 * mm/vmscan.c:folio_update_gen() [6.14+], the aging path of a young PTE: the first
 * sighting only sets PG_referenced; a folio already referenced (or workingset) is
 * promoted to gen, with PG_workingset, by rewriting its gen field only (lazy sorting).
 * Returns the old generation, or -1 when not promoted.
 * S004 (exec_promote on): a file folio found young through a VM_EXEC mapping
 * (vm_flags) is promoted on the first sighting too.
 * caps.promote_first_sighting ([6.12] mm/vmscan.c:3157): every sighting promotes, with
 * LRU_REFS_MASK and LRU_REFS_FLAGS cleared and no PG_workingset set; a folio isolated
 * by lru_gen_del_folio() gets PG_referenced, for shrink_folio_list().
 */
int folio_update_gen(struct mglru *mg, uint32_t page, unsigned gen, uint32_t vm_flags)
{
	struct mr_folio *f = &mg->m->folios[page];
	struct lru_gen_page *pg = lgp(mg, page);
	int old_gen;

	MR_WARN_ON_ONCE(gen >= MAX_NR_GENS);

	/* see the comment on LRU_REFS_FLAGS */
	if (!mg->caps.promote_first_sighting &&
	    !folio_test(f, MR_PG_REFERENCED | MR_PG_WORKINGSET)) {
		/* Activate file-backed executable folios after first usage. */
		if (exec_promotes(mg, f, vm_flags)) {
			mg->stat.acted_exec_promote++;
			if (pg->gen)
				mg->stat.exec_first_promoted++;
			goto promote;
		}
		pg->refs = 0;
		f->flags |= MR_PG_REFERENCED;
		return -1;
	}

promote:
	/* lru_gen_del_folio() has isolated this page? */
	if (!pg->gen) {
		/* [6.12] for shrink_folio_list() */
		if (mg->caps.promote_first_sighting)
			f->flags |= MR_PG_REFERENCED;
		return -1;
	}

	old_gen = pg->gen - 1;
	pg->gen = (uint8_t)(gen + 1);
	folio_clear_lru_refs(mg, page);
	if (!mg->caps.promote_first_sighting)
		f->flags |= MR_PG_WORKINGSET;
	return old_gen;
}

/*
 * mm/vmscan.c:__folio_inc_gen() (S000): the flag half of folio_inc_gen(). A folio the
 * walk already promoted keeps its generation (*increased = false); otherwise it moves
 * from old_gen to old_gen + 1 with LRU_REFS_FLAGS cleared (PG_workingset stays) and
 * *increased = true. The caller adjusts the sizes.
 */
static int __folio_inc_gen(struct mglru *mg, uint32_t page, int old_gen, bool *increased)
{
	struct lru_gen_page *pg = lgp(mg, page);
	int new_gen = (int)pg->gen - 1;

	MR_WARN_ON_ONCE(!pg->gen);

	/* folio_update_gen() has promoted this page? */
	if (new_gen >= 0 && new_gen != old_gen) {
		*increased = false;
		return new_gen;
	}

	new_gen = (old_gen + 1) % MAX_NR_GENS;
	pg->gen = (uint8_t)(new_gen + 1);
	/* LRU_REFS_MASK | LRU_REFS_FLAGS, PG_workingset too in [6.12] (mm/vmscan.c:3197) */
	folio_clear_lru_refs(mg, page);
	*increased = true;
	return new_gen;
}

/*
 * mm/vmscan.c:folio_inc_gen() [7.2]: move a folio of the oldest generation to the next
 * one, clearing LRU_REFS_FLAGS (PG_workingset stays); a folio the walk already promoted
 * keeps its generation. reclaiming also sets PG_reclaim, in the same update, so only
 * when the generation changes ([6.12] mm/vmscan.c:3199-3201): its one user is
 * [6.12.95]'s "waiting for writeback" rule in sort_folio() ([7.0] had it too); [7.2]
 * and [6.12] (6.12.117) leave dirty folios to shrink_folio_list(). S000 splits it into
 * __folio_inc_gen() (flags only) and this wrapper, which adjusts the sizes; both give
 * the same results.
 */
int folio_inc_gen(struct mglru *mg, struct lruvec *lv, uint32_t page, bool reclaiming)
{
	struct mr_folio *f = &mg->m->folios[page];
	int old_gen = (int)lru_gen_from_seq(lv->lrugen.min_seq[folio_is_file_lru(f)]);
	bool increased;
	int new_gen = __folio_inc_gen(mg, page, old_gen, &increased);

	if (increased) {
		/* for folio_end_writeback() */
		if (reclaiming)
			f->flags |= MR_PG_RECLAIM;
		lru_gen_update_size(mg, lv, page, old_gen, new_gen);
	}
	return new_gen;
}

/* mm/vmscan.c:update_batch_size() */
static void update_batch_size(struct lru_gen_mm_walk *walk, const struct mr_folio *f,
			      int old_gen, int new_gen)
{
	int type = folio_is_file_lru(f);
	int zone = folio_zonenum(f);

	MR_WARN_ON_ONCE(old_gen >= MAX_NR_GENS);
	MR_WARN_ON_ONCE(new_gen >= MAX_NR_GENS);

	walk->batched++;
	walk->nr_pages[old_gen][type][zone] -= 1;
	walk->nr_pages[new_gen][type][zone] += 1;
}

/* mm/vmscan.c:reset_batch_size(): apply the batched deltas to walk->lruvec. */
void reset_batch_size(struct mglru *mg, struct lru_gen_mm_walk *walk)
{
	struct lruvec *lv = walk->lruvec;
	int gen, type, zone;

	walk->batched = 0;

	for (gen = 0; gen < MAX_NR_GENS; gen++) {
		for (type = 0; type < ANON_AND_FILE; type++) {
			for (zone = 0; zone < MAX_NR_ZONES; zone++) {
				int64_t delta = walk->nr_pages[gen][type][zone];
				unsigned item;

				if (!delta)
					continue;
				walk->nr_pages[gen][type][zone] = 0;
				lv->lrugen.nr_pages[gen][type][zone] += delta;
				if (type == LRU_GEN_FILE)
					item = lru_gen_is_active(lv, (unsigned)gen) ?
						       MR_VM_NR_ACTIVE_FILE : MR_VM_NR_INACTIVE_FILE;
				else
					item = lru_gen_is_active(lv, (unsigned)gen) ?
						       MR_VM_NR_ACTIVE_ANON : MR_VM_NR_INACTIVE_ANON;
				mglru_count(mg, lv, item, delta);
			}
		}
	}
}

/*
 * mm/vmscan.c:should_skip_vma(), the walk's test_walk: 1 to skip the VMA. Differs: the
 * model has no VM_LOCKED / VM_SPECIAL / hugetlb / gate / PROT_NONE VMAs, no unevictable
 * or DAX mappings, and cannot tell a shmem mapping from a file mapping (mr_vma has no
 * such flag): shmem is walked as file.
 */
static int should_skip_vma(void *arg, const struct mr_vma *vma)
{
	const struct mglru *mg = arg;
	const struct lru_gen_mm_walk *walk = &mg->walk;

	if (!mr_vma_has_recency(vma))
		return 1;
	if (!vma->file) /* vma_is_anonymous() */
		return !walk->swappiness;
	if (walk->swappiness > MAX_SWAPPINESS)
		return 1;
	return 0;
}

/* mm/vmscan.c:suitable_to_scan(): at least one young PTE per cache line of PTEs
 * (n = clamp(cache_line_size() / sizeof(pte_t), 2, 8) = 8 on x86_64). */
bool suitable_to_scan(int total, int young)
{
	int n = 64 / 8;

	return young * n >= total;
}

/*
 * suitable_to_scan() on this machine: in a replay sampled page by page a table's slots
 * hold 1 in pte_den of the trace's pages (mr_machine.pte_den), so without the factor
 * no table or look-around window would ever be dense enough to enter a Bloom filter,
 * and every walk after the first would skip all of them. Each young PTE found stands
 * for pte_den; sure ones (the look-around's victim, which is why it looks) count once.
 */
static bool suitable_to_scan_m(const struct mglru *mg, int total, int young, int sure)
{
	uint32_t den = mg->m->pte_den;

	if (den > 1 && young > sure)
		young = sure + (young - sure) * (int)den;
	return suitable_to_scan(total, young);
}

/*
 * mm/vmscan.c:walk_update_folio(): transfer the PTE dirty bit, then either promote
 * (aging walk or look-around with a walk context: folio_update_gen() batched) or, on
 * the rmap path without one, lru_gen_set_refs() and folio_activate().
 */
static void walk_update_folio(struct mglru *mg, struct lru_gen_mm_walk *walk, uint32_t page,
			      unsigned new_gen, bool dirty, uint32_t vm_flags)
{
	struct mr_folio *f;
	int old_gen;

	if (page == MR_NONE)
		return;
	f = &mg->m->folios[page];

	if (dirty && !folio_test(f, MR_PG_DIRTY) &&
	    !(folio_test_anon(f) && folio_test(f, MR_PG_SWAPBACKED) &&
	      !folio_test(f, MR_PG_SWAPCACHE)))
		f->flags |= MR_PG_DIRTY; /* folio_mark_dirty() */

	if (walk) {
		old_gen = folio_update_gen(mg, page, new_gen, vm_flags);
		if (old_gen >= 0 && old_gen != (int)new_gen) {
			update_batch_size(walk, f, old_gen, (int)new_gen);
			mg->stat.walk_promoted++;
		}
	} else if (mg->caps.promote_first_sighting) {
		/* [6.12] mm/vmscan.c:4152-4161 (look-around without a walk context):
		 * folio_clear_lru_refs() (4158) then folio_activate(). [6.12.95]
		 * folio_activate() alone: the clearing came with "mm/mglru: reset page lru
		 * tier bits when activating" (6.12.114), see lru_gen_add_folio(). */
		old_gen = folio_lru_gen(mg, page);
		if (old_gen < 0) {
			f->flags |= MR_PG_REFERENCED;
		} else if (old_gen != (int)new_gen) {
			if (mg->caps.activate_clears_refs)
				folio_clear_lru_refs(mg, page);
			folio_activate(mg, page);
		}
	} else if (lru_gen_set_refs(mg, page, vm_flags)) {
		old_gen = folio_lru_gen(mg, page);
		if (old_gen >= 0 && old_gen != (int)new_gen)
			folio_activate(mg, page);
	}
}

/*
 * mm/vmscan.c:walk_pte_range(), for the slots [first, last] of one VMA in a PTE table.
 * A PTE counts as young if present, young, on this node, its folio on a gen list of
 * this lruvec (get_pfn_folio), and its A bit test-and-cleared. Totals accumulate in the
 * walk until the table is finished (finish_pte_table).
 */
/* Is any of the eight PTEs from slot i (a multiple of 8) young? One load of their bits. */
static inline bool any_young8(const struct mr_pte_table *pt, unsigned i)
{
	uint64_t w;

	memcpy(&w, &pt->bits[i], sizeof(w));
	return (w & (0x0101010101010101ull * MR_PTE_YOUNG)) != 0;
}

static void walk_pte_range(struct mglru *mg, const struct mr_vma *vma, struct mr_pte_table *pt,
			   unsigned first, unsigned last)
{
	struct lru_gen_mm_walk *walk = &mg->walk;
	const struct lruvec *lv = walk->lruvec;
	unsigned gen = lru_gen_from_seq(lv->lrugen.max_seq);
	uint32_t last_folio = MR_NONE;
	bool dirty = false;
	unsigned i, end = last < MR_PTRS_PER_TABLE ? last + 1 : MR_PTRS_PER_TABLE;

	/* every entry of the range counts as scanned, present or not (the kernel's loop
	 * visits each); counted once here, so the loop's stores are the young ones */
	if (first < end) {
		walk->cur_total += (int)(end - first);
		walk->mm_stats[MM_LEAF_TOTAL] += end - first;
		mg->stat.aging_cost += end - first;
	}
	for (i = first; i < end; i++) {
		uint32_t page;
		const struct mr_folio *f;

		/* eight entries without a young bit at once: a table a sampled replay
		 * fills sparsely, or a cold one, is mostly such runs */
		if (!(i & 7) && i + 8 <= end && !any_young8(pt, i)) {
			i += 7;
			continue;
		}
		/* get_pte_pfn() */
		page = pt->page[i];
		if (!(pt->bits[i] & MR_PTE_YOUNG) || page == MR_NONE)
			continue;
		f = &mg->m->folios[page];
		if (f->node != lv->node)
			continue;
		/* get_pfn_folio() */
		if (folio_lru_gen(mg, page) < 0 || f->lruvec != lv->id)
			continue;
		walk->mm_stats[MM_LEAF_ASSOCIATED]++; /* S001; flushed only with pud_filter */
		/* ptep_clear_young_notify() */
		pt->bits[i] &= (uint8_t)~MR_PTE_YOUNG;

		if (last_folio != page) {
			walk_update_folio(mg, walk, last_folio, gen, dirty, vma->flags);
			last_folio = page;
			dirty = false;
		}
		if (pt->bits[i] & MR_PTE_DIRTY)
			dirty = true;

		walk->cur_young++;
		walk->mm_stats[MM_LEAF_YOUNG]++;
	}

	walk_update_folio(mg, walk, last_folio, gen, dirty, vma->flags);
}

/* The end of walk_pte_range() for the table in progress, and the rest of the
 * walk_pmd_range() step: carry a suitable table over to the next generation. */
static void finish_pte_table(struct mglru *mg)
{
	struct lru_gen_mm_walk *walk = &mg->walk;

	if (walk->cur_state == PTE_TABLE_SCANNING &&
	    suitable_to_scan_m(mg, walk->cur_total, walk->cur_young, 0)) {
		walk->cur_pud_marked = true; /* S001 (c) */
		walk->mm_stats[MM_NONLEAF_ADDED]++;
		/* carry over to the next generation */
		update_bloom_filter(&walk->lruvec->mm_state, walk->seq + 1,
				    pmd_item(walk->mm, walk->cur_pmd << MR_PMD_SHIFT));
	}
	walk->cur_state = PTE_TABLE_NONE;
}

/*
 * S001: the end of one PUD of walk_pud_range()'s loop: when walk_pmd_range() would have
 * returned true for it ((b) a young non-leaf PMD entry, (c) a suitable PTE table; the
 * model has no THPs for (a)), carry it over to the PUD filter of the next generation.
 */
static void pud_done(struct mglru *mg, struct lru_gen_mm_walk *walk)
{
	if (walk->cur_pud && !walk->cur_pud_skipped && walk->cur_pud_marked)
		update_bloom_filter_pud(&walk->lruvec->mm_state, walk->seq + 1,
					pud_item(walk->mm, (walk->cur_pud - 1) << MR_PUD_SHIFT));
	walk->cur_pud = 0;
	walk->cur_pud_marked = false;
	walk->cur_pud_skipped = false;
}

/*
 * S001: the engine calls pud_entry once per (VMA, PUD); a new PUD ends the previous one
 * (its last PTE table first) and is tested against the PUD filter of walk->seq unless
 * the walk is forced. Returns true to skip it (and the further VMAs in it).
 */
static bool pud_step(struct mglru *mg, struct lru_gen_mm_walk *walk, uint64_t addr)
{
	uint64_t pud = (addr >> MR_PUD_SHIFT) + 1;

	if (pud == walk->cur_pud)
		return walk->cur_pud_skipped;

	finish_pte_table(mg);
	pud_done(mg, walk);
	walk->cur_pud = pud;
	if (!walk->force_scan &&
	    !test_bloom_filter_pud(&walk->lruvec->mm_state, walk->seq, pud_item(walk->mm, addr))) {
		walk->cur_pud_skipped = true;
		walk->mm_stats[MM_PUD_EMPTY_SKIPPED]++;
		mg->stat.acted_pud_filter++;
		return true;
	}
	return false;
}

/*
 * mm/vmscan.c:walk_pud_range() for one present PUD entry of a VMA. Two parts of the
 * kernel's walk land here:
 *  - walk_pud_range() ends the walk_page_range() pass every MAX_LRU_BATCH promotions
 *    and walk_mm() applies the batch before going on: the batch is applied here, at the
 *    next PUD.
 *  - walk_pmd_range() counts each PMD entry that is not present (no PTE table) as one
 *    leaf (MM_LEAF_TOTAL). The engine calls back only for present ones, so every PMD
 *    entry of the VMA's range in this PUD not visited yet is counted here, and
 *    walk_pmd_range() takes back the present ones.
 * S001 (pud_filter=1): an unforced walk skips a PUD the PUD-level filter of this
 * generation does not hold (MM_PUD_EMPTY_SKIPPED); see pud_step().
 */
static int walk_pud_range(void *arg, const struct mr_vma *vma, uint64_t addr)
{
	struct mglru *mg = arg;
	struct lru_gen_mm_walk *walk = &mg->walk;
	uint64_t start = vma->start > addr ? vma->start : addr;
	uint64_t end = vma->end < addr + PUD_SIZE ? vma->end : addr + PUD_SIZE;
	uint64_t lo, hi;

	if (mg->pud_filter && pud_step(mg, walk, addr))
		return 1;

	if (walk->batched >= MAX_LRU_BATCH)
		reset_batch_size(mg, walk);

	if (end <= start)
		return 0;
	lo = start >> MR_PMD_SHIFT;
	hi = (end - 1) >> MR_PMD_SHIFT;
	if (lo < walk->last_pmd)
		lo = walk->last_pmd;
	if (hi >= lo) {
		walk->mm_stats[MM_LEAF_TOTAL] += hi - lo + 1;
		mg->stat.aging_cost += hi - lo + 1;
		walk->last_pmd = hi + 1;
	}
	return 0;
}

/*
 * mm/vmscan.c:walk_pmd_range() for one present PMD entry (a PTE table) of a VMA.
 *
 * A table the kernel visits once may come back here for each further VMA that shares
 * it: the kernel's walk_pte_range() goes on into those VMAs (get_next_vma() within the
 * PMD) when it scans the table, and its walk_pmd_range() resumes at the next PMD
 * boundary after a VMA either way. So a repeat call continues the table in the state
 * its first call left it in (scanning, or skipped).
 *
 * For a new table: with the non-leaf A bit capability and no force_scan, a PMD entry
 * that is not young is skipped and a young one has its A bit cleared; then an unforced
 * walk skips a table the Bloom filter of this generation does not hold; otherwise it is
 * found (MM_NONLEAF_FOUND) and scanned, and carried over to the next generation's
 * filter when suitable_to_scan() (finish_pte_table). There are no THPs in the model.
 */
static int walk_pmd_range(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			  unsigned first, unsigned last)
{
	struct mglru *mg = arg;
	struct lru_gen_mm_walk *walk = &mg->walk;
	uint64_t pmd = pt->addr >> MR_PMD_SHIFT;

	if (walk->cur_state != PTE_TABLE_NONE && pmd == walk->cur_pmd) {
		if (walk->cur_state == PTE_TABLE_SCANNING)
			walk_pte_range(mg, vma, pt, first, last);
		return 0;
	}

	finish_pte_table(mg);
	walk->cur_pmd = pmd;
	/* counted as a non-present leaf by walk_pud_range() */
	if (!MR_WARN_ON_ONCE(!walk->mm_stats[MM_LEAF_TOTAL]))
		walk->mm_stats[MM_LEAF_TOTAL]--;

	if (!walk->force_scan && should_clear_pmd_young(mg)) {
		if (!pt->pmd_young) {
			walk->cur_state = PTE_TABLE_SKIPPED;
			mg->stat.walk_pmd_old++;
			return 0;
		}
		/* walk_pmd_range_locked(): pmdp_test_and_clear_young() */
		pt->pmd_young = 0;
		walk->cur_pud_marked = true; /* S001 (b) */
	}

	if (!walk->force_scan &&
	    !test_bloom_filter(&walk->lruvec->mm_state, walk->seq, pmd_item(walk->mm, pt->addr))) {
		walk->cur_state = PTE_TABLE_SKIPPED;
		mg->stat.walk_bloom_miss++;
		return 0;
	}

	walk->mm_stats[MM_NONLEAF_FOUND]++;
	walk->cur_state = PTE_TABLE_SCANNING;
	walk->cur_total = 0;
	walk->cur_young = 0;
	walk_pte_range(mg, vma, pt, first, last);
	return 0;
}

static const struct mr_walk_ops mglru_walk_ops = {
	.pud_entry = walk_pud_range,
	.pmd_entry = walk_pmd_range,
	.vma_entry = should_skip_vma,
};

/*
 * mm/vmscan.c:walk_mm(). Differs: mmap_read_trylock() always succeeds and no other
 * walker can change max_seq meanwhile; the -EAGAIN restarts are only the batch flushes
 * of walk_pud_range().
 */
static void walk_mm(struct mglru *mg, uint32_t mm, struct lru_gen_mm_walk *walk)
{
	mg->stat.walk_mms++;
	walk->mm = mm;
	walk->last_pmd = 0;
	walk->cur_state = PTE_TABLE_NONE;
	walk->cur_pud = 0;

	mg->m->ops->walk_mm(mg->m, mm, &mglru_walk_ops, mg);
	finish_pte_table(mg);

	if (mg->pud_filter) {
		uint64_t *st = walk->mm_stats;

		pud_done(mg, walk);
		/* S001: walks that found leaves but none of this lruvec's */
		if (st[MM_LEAF_TOTAL]) {
			st[MM_WALK_TOTAL]++;
			if (!st[MM_LEAF_ASSOCIATED]) {
				st[MM_WALK_EMPTY]++;
				st[MM_LEAF_EMPTY_WALKS] += st[MM_LEAF_TOTAL];
			}
		}
	}

	if (walk->batched)
		reset_batch_size(mg, walk);
}

/* ---- rmap/PT walk feedback ---- */

/*
 * mm/vmscan.c:lru_gen_look_around(), called by folio_referenced() for a young PTE of a
 * folio being reclaimed, after it cleared that PTE's A bit: scan up to MIN_LRU_BATCH
 * PTEs around it within the PMD and the VMA, update the young folios of the same
 * lruvec (walk_update_folio), and feed the PMD entry to the Bloom filter of max_seq if
 * the scan was cache-line efficient. Differs: no PTL contention and no VM_SPECIAL VMAs.
 * S001 (pud_filter=1): also feeds the PUD key.
 */
void lru_gen_look_around(struct mr_policy *p, const struct mr_vma *vma,
			 struct mr_pte_table *pt, unsigned slot)
{
	struct mglru *mg = mglru_of(p);
	uint32_t target = pt->page[slot];
	struct lruvec *lv;
	struct lru_gen_mm_walk *walk;
	uint64_t addr, start, end, max_seq;
	uint32_t last = MR_NONE;
	bool dirty = false;
	unsigned gen;
	int i, young = 1, ncand = 0;
	uint8_t cand[MIN_LRU_BATCH]; /* offsets from start of the PTEs young at the start */

	if (MR_WARN_ON_ONCE(target == MR_NONE))
		return;
	lv = folio_lruvec(mg, target);
	max_seq = lv->lrugen.max_seq;
	gen = lru_gen_from_seq(max_seq);

	/* avoid taking the LRU lock under the PTL when possible */
	walk = mg->walk_active ? &mg->walk : NULL;

	addr = pt->addr + (uint64_t)slot * PAGE_SIZE;
	start = (addr & PMD_MASK) > vma->start ? (addr & PMD_MASK) : vma->start;
	end = ((addr | ~PMD_MASK) < vma->end - 1 ? (addr | ~PMD_MASK) : vma->end - 1) + 1;

	if (end - start == PAGE_SIZE)
		return;

	if (end - start > MIN_LRU_BATCH * PAGE_SIZE) {
		if (addr - start < MIN_LRU_BATCH * PAGE_SIZE / 2)
			end = start + MIN_LRU_BATCH * PAGE_SIZE;
		else if (end - addr < MIN_LRU_BATCH * PAGE_SIZE / 2)
			start = end - MIN_LRU_BATCH * PAGE_SIZE;
		else {
			start = addr - MIN_LRU_BATCH * PAGE_SIZE / 2;
			end = addr + MIN_LRU_BATCH * PAGE_SIZE / 2;
		}
	}

	mg->stat.look_around++;
	/*
	 * The young PTEs first, with their folios' and per-page states' cache lines
	 * requested, then the kernel's loop over just those: the lines of up to
	 * MIN_LRU_BATCH random folios load in parallel instead of one after another.
	 * Nothing the loop does changes another PTE's page or young bit, so visiting only
	 * the PTEs young now is the kernel's visit.
	 */
	i = (int)((end - start) >> MR_PAGE_SHIFT);
	{
		unsigned s0 = (unsigned)((start - pt->addr) >> MR_PAGE_SHIFT);

		for (int k = 0; k < i; k++) {
			uint32_t page;

			/* eight PTEs without a young bit at once (a sampled replay's tables
			 * hold 1/16 of the pages) */
			if (!((s0 + k) & 7) && k + 8 <= i && !any_young8(pt, s0 + (unsigned)k)) {
				k += 7;
				continue;
			}
			page = pt->page[s0 + k];
			if (!(pt->bits[s0 + k] & MR_PTE_YOUNG) || page == MR_NONE)
				continue;
			__builtin_prefetch(&mg->m->folios[page], 0);
			__builtin_prefetch(lgp(mg, page), 1);
			cand[ncand++] = (uint8_t)k;
		}
	}
	for (int c = 0; c < ncand; c++) {
		unsigned s = (unsigned)((start - pt->addr) >> MR_PAGE_SHIFT) + cand[c];
		uint32_t page = pt->page[s];
		const struct mr_folio *f;

		/* get_pte_pfn() */
		if (page == MR_NONE || !(pt->bits[s] & MR_PTE_YOUNG))
			continue;
		f = &mg->m->folios[page];
		if (f->node != lv->node)
			continue;
		/* get_pfn_folio(); [6.12] (mm/vmscan.c:3369) does not require the folio to
		 * be on a gen list: an isolated one (the rest of the reclaim batch) gets
		 * PG_referenced, which shrink_folio_list() keeps */
		if ((!mg->caps.promote_first_sighting && folio_lru_gen(mg, page) < 0) ||
		    f->lruvec != lv->id)
			continue;
		/* ptep_clear_young_notify() */
		pt->bits[s] &= (uint8_t)~MR_PTE_YOUNG;

		if (last != page) {
			walk_update_folio(mg, walk, last, gen, dirty, vma->flags);
			last = page;
			dirty = false;
		}
		if (pt->bits[s] & MR_PTE_DIRTY)
			dirty = true;
		young++;
	}

	walk_update_folio(mg, walk, last, gen, dirty, vma->flags);
	mg->stat.look_around_young += (uint64_t)(young - 1);

	/* feedback from rmap walkers to page table walkers */
	if (suitable_to_scan_m(mg, i, young, 1)) {
		update_bloom_filter(&lv->mm_state, max_seq, pmd_item(pt->mm, pt->addr));
		if (mg->pud_filter) /* S001 */
			update_bloom_filter_pud(&lv->mm_state, max_seq, pud_item(pt->mm, pt->addr));
		mg->stat.look_around_bloom++;
	}
}

/* ---- generations ---- */

/*
 * Move the run of folios from the head of list src up to and including last to the tail
 * of list dst (list_cut_position() + list_splice_tail()): one list operation in the
 * kernel. On rings the run is moved entry by entry, head first, each becoming the new
 * tail of dst, so it keeps its order below what dst held; the model also rewrites each
 * moved folio's list field.
 */
static void lru_gen_splice_head_to_tail(struct mglru *mg, struct ring *src, struct ring *dst,
					unsigned dst_gen, uint32_t last)
{
	struct ring_slots slots = lru_gen_slots(mg);
	uint32_t end = ring_pos(src, lgp(mg, last)->slot);

	MR_WARN_ON_ONCE(src == dst || ring_at(src, end) != last);
	for (uint32_t k = src->n; k-- > end;) {
		uint32_t page = ring_at(src, k);

		if (page == MR_NONE)
			continue;
		ring_clear(src, (src->lo + k) & (src->cap - 1), page);
		lgp(mg, page)->list = (uint8_t)(dst_gen + 1);
		ring_add_tail(dst, slots, page);
	}
	ring_trim(src); /* the run was the head end: src->n falls to end */
	mg->stat.inc_min_seq_list_ops++;
}

/*
 * S000 (seed 000, v3) folio loop of mm/vmscan.c:inc_min_seq() (docs/seeds.md, "S000"):
 * walk the oldest list from the head; runs of non-promoted folios stay in place and are
 * spliced, in order, onto the tail of old_gen + 1 whenever a promoted folio interrupts
 * them (which goes to the head of its own generation) and at the end; nr_pages moves
 * once per zone; protected counts only the non-promoted. Returns false after
 * MAX_LRU_BATCH folios (restart).
 */
static bool inc_min_seq_v3(struct mglru *mg, struct lruvec *lv, int type, unsigned hist,
			   unsigned old_gen)
{
	struct lru_gen_folio *lrugen = &lv->lrugen;
	unsigned new_gen = (old_gen + 1) % MAX_NR_GENS;
	int remaining = MAX_LRU_BATCH;
	int zone;

	for (zone = 0; zone < MAX_NR_ZONES; zone++) {
		struct ring *head = &lrugen->folios[old_gen][type][zone];
		struct ring *target = &lrugen->folios[new_gen][type][zone];
		uint32_t pos = ring_head(head), batch_end = MR_NONE;
		int64_t delta = 0;

		for (uint32_t k = head->n; k > 0 && k <= LRU_GEN_AHEAD; k--)
			prefetchw_prev_lru_folio(mg, head, k - 1);
		while (pos != MR_NONE) {
			uint32_t page = pos;
			const struct mr_folio *f = &mg->m->folios[page];
			int refs = folio_lru_refs(mg, page);
			bool workingset = folio_test(f, MR_PG_WORKINGSET);
			bool increased;
			int gen;
			/* the walk goes toward the tail; what it does to page and the run above
			 * it leaves the folio below where it is (its slot may change, when a
			 * move to the head of this list compacts the ring) */
			uint32_t k = ring_pos(head, lgp(mg, page)->slot);

			pos = ring_below(head, k);
			if (k >= LRU_GEN_AHEAD)
				prefetchw_prev_lru_folio(mg, head, k - LRU_GEN_AHEAD);

			MR_WARN_ON_ONCE(folio_test(f, MR_PG_UNEVICTABLE));
			MR_WARN_ON_ONCE(folio_test(f, MR_PG_ACTIVE));
			MR_WARN_ON_ONCE(folio_is_file_lru(f) != type);
			MR_WARN_ON_ONCE(folio_zonenum(f) != zone);

			gen = __folio_inc_gen(mg, page, (int)old_gen, &increased);
			mg->stat.inc_min_seq_moved++;
			mg->stat.acted_inc_min_seq++;
			mg->stat.aging_cost++;
			if (increased) {
				delta += 1; /* folio_nr_pages() */
				batch_end = page;
				/* don't count the workingset being lazily promoted */
				if (!folio_lru_refs_full(mg, refs, workingset)) {
					int tier = lru_tier_from_refs(mg, refs, workingset);

					lrugen->protected[hist][type][tier] += 1;
					mglru_cl(mg, lv, CL_SORT, LGF_PROTECTED,
						 (unsigned)(type * MAX_NR_TIERS + tier), true);
				}
			} else {
				if (batch_end != MR_NONE)
					lru_gen_splice_head_to_tail(mg, head, target, new_gen,
								    batch_end);
				batch_end = MR_NONE;
				/* list_move(): the head of the generation it was promoted to */
				lru_gen_list_del(mg, lv, page);
				lru_gen_list_add(mg, lv, page, (unsigned)gen, false);
				mg->stat.inc_min_seq_list_ops++;
			}
			if (!--remaining)
				break;
		}
		if (batch_end != MR_NONE)
			lru_gen_splice_head_to_tail(mg, head, target, new_gen, batch_end);
		if (delta) {
			/* both generations are inactive: no active/inactive change */
			lrugen->nr_pages[old_gen][type][zone] -= delta;
			lrugen->nr_pages[new_gen][type][zone] += delta;
			mg->stat.inc_min_seq_size_updates++;
			if (mg->cl) {
				mglru_cl(mg, lv, CL_SORT, LGF_NR_PAGES,
					 lrugen_gen_idx(old_gen, type), true);
				mglru_cl(mg, lv, CL_SORT, LGF_NR_PAGES,
					 lrugen_gen_idx(new_gen, type), true);
			}
		}
		if (!remaining)
			return false;
	}
	return true;
}

/*
 * mm/vmscan.c:inc_min_seq() [7.2] baseline: retire the oldest generation of a type with
 * MAX_NR_GENS generations. Folios go from the tail of the oldest list to the tail of
 * their new generation (min_seq + 1, or the one the walk promoted them to), so the
 * moved block ends up reversed, and every folio not fully referenced counts as
 * protected, promoted or not. After MAX_LRU_BATCH folios it returns false and
 * inc_max_seq() restarts it. A type that is not evictable (anon at swappiness 0, file
 * at 201) only has its min_seq advanced.
 * With inc_min_seq=v3 (S000) inc_min_seq_v3() does the folio loop instead.
 */
bool inc_min_seq(struct mglru *mg, struct lruvec *lv, int type, int swappiness)
{
	int zone;
	int remaining = MAX_LRU_BATCH;
	struct lru_gen_folio *lrugen = &lv->lrugen;
	unsigned hist = lru_hist_from_seq(mg, lrugen->min_seq[type]);
	unsigned old_gen = lru_gen_from_seq(lrugen->min_seq[type]);

	/* For file type, skip the check if swappiness is anon only ([6.12] has no
	 * swappiness 'max': file is always moved, mm/vmscan.c:3738) */
	if (type && swappiness == SWAPPINESS_ANON_ONLY && !mg->caps.file_always_evictable)
		goto skip;

	/* For anon type, skip the check if swappiness is zero (file only) */
	if (!type && !swappiness)
		goto skip;

	if (mg->inc_min_seq_mode == INC_MIN_SEQ_V3) {
		if (!inc_min_seq_v3(mg, lv, type, hist, old_gen))
			return false;
		goto done;
	}

	/* prevent cold/hot inversion if the type is evictable */
	for (zone = 0; zone < MAX_NR_ZONES; zone++) {
		struct ring *head = &lrugen->folios[old_gen][type][zone];

		for (uint32_t k = 1; k < LRU_GEN_AHEAD; k++)
			prefetchw_prev_lru_folio(mg, head, k);
		while (head->n) {
			uint32_t page = ring_tail(head);
			const struct mr_folio *f = &mg->m->folios[page];
			int refs = folio_lru_refs(mg, page);
			bool workingset = folio_test(f, MR_PG_WORKINGSET);
			int new_gen;

			prefetchw_prev_lru_folio(mg, head, LRU_GEN_AHEAD);

			MR_WARN_ON_ONCE(folio_test(f, MR_PG_UNEVICTABLE));
			MR_WARN_ON_ONCE(folio_test(f, MR_PG_ACTIVE));
			MR_WARN_ON_ONCE(folio_is_file_lru(f) != type);
			MR_WARN_ON_ONCE(folio_zonenum(f) != zone);

			if (folio_lru_gen(mg, page) == (int)old_gen) {
				mg->stat.inc_min_seq_size_updates++;
				if (mg->cl) {
					unsigned to = (old_gen + 1) % MAX_NR_GENS;

					mglru_cl(mg, lv, CL_SORT, LGF_NR_PAGES,
						 lrugen_gen_idx(old_gen, type), true);
					mglru_cl(mg, lv, CL_SORT, LGF_NR_PAGES,
						 lrugen_gen_idx(to, type), true);
				}
			}
			new_gen = folio_inc_gen(mg, lv, page, false);
			/* list_move_tail() */
			lru_gen_list_del(mg, lv, page);
			lru_gen_list_add(mg, lv, page, (unsigned)new_gen, true);
			mg->stat.inc_min_seq_moved++;
			mg->stat.inc_min_seq_list_ops++;
			mg->stat.aging_cost++;

			/* don't count the workingset being lazily promoted; [6.12]
			 * (mm/vmscan.c:3759) counts nothing here */
			if (!mg->caps.inc_min_seq_uncounted &&
			    !folio_lru_refs_full(mg, refs, workingset)) {
				int tier = lru_tier_from_refs(mg, refs, workingset);

				lrugen->protected[hist][type][tier] += 1;
				mglru_cl(mg, lv, CL_SORT, LGF_PROTECTED,
					 (unsigned)(type * MAX_NR_TIERS + tier), true);
			}

			if (!--remaining)
				return false;
		}
	}
done:
	reset_ctrl_pos(mg, lv, type, true);
	lrugen->min_seq[type]++;
	mglru_cl(mg, lv, CL_AGING, LGF_MIN_SEQ, (unsigned)type, true);
	return true;
skip:
	/* the oldest generation stays where it is and becomes max_seq + 1 */
	for (zone = 0; zone < MAX_NR_ZONES; zone++) {
		if (lrugen->folios[old_gen][type][zone].n) {
			lv->inverted[type] = true;
			mg->stat.inc_min_seq_inversions++;
			break;
		}
	}
	goto done;
}

/*
 * The "find the oldest populated generation" loop both versions of
 * try_to_inc_min_seq() open with: min_seq of type moved past empty generations,
 * keeping MIN_NR_GENS.
 */
static uint64_t oldest_populated_seq(const struct lru_gen_folio *lrugen, int type)
{
	uint64_t seq = lrugen->min_seq[type];

	while (seq + MIN_NR_GENS <= lrugen->max_seq) {
		unsigned gen = lru_gen_from_seq(seq);

		for (int zone = 0; zone < MAX_NR_ZONES; zone++)
			if (lrugen->folios[gen][type][zone].n)
				return seq;
		seq++;
	}
	return seq;
}

/* ... and the update both close with: the new min_seq, with its PID positions reset. */
static void set_min_seq(struct mglru *mg, struct lruvec *lv, int type, uint64_t seq)
{
	reset_ctrl_pos(mg, lv, type, true);
	lv->lrugen.min_seq[type] = seq;
	mglru_cl(mg, lv, CL_AGING, LGF_MIN_SEQ, (unsigned)type, true);
}

/*
 * mm/vmscan.c:try_to_inc_min_seq() [7.0]/[7.2]: advance min_seq of each evictable type
 * past empty generations (keeping MIN_NR_GENS), then, when both types are evictable,
 * keep neither more than one generation ahead of max_seq - MIN_NR_GENS while the other
 * is behind it. caps.min_seq_coupled ([6.12] mm/vmscan.c:3774): with can_swap, anon
 * may not pass file, and file not fall behind anon, instead. Returns true if some
 * min_seq advanced.
 */
bool try_to_inc_min_seq(struct mglru *mg, struct lruvec *lv, int swappiness)
{
	int type;
	bool success = false;
	bool seq_inc_flag = false;
	struct lru_gen_folio *lrugen = &lv->lrugen;
	uint64_t min_seq[ANON_AND_FILE] = { lrugen->min_seq[LRU_GEN_ANON],
					    lrugen->min_seq[LRU_GEN_FILE] };

	/* find the oldest populated generation */
	for (type = min_type(swappiness); type <= max_evictable_type(mg, swappiness); type++) {
		min_seq[type] = oldest_populated_seq(lrugen, type);
		if (min_seq[type] != lrugen->min_seq[type])
			seq_inc_flag = true;
	}

	/* If neither min_seq can advance, skip the checks below. ([6.12] has no such
	 * test; with anon never past file, its rule below changes nothing then.) */
	if (!seq_inc_flag)
		return success;

	/* see the comment on lru_gen_folio */
	if (mg->caps.min_seq_coupled) {
		if (swappiness) {
			min_seq[LRU_GEN_ANON] = min_seq[LRU_GEN_ANON] < min_seq[LRU_GEN_FILE] ?
						min_seq[LRU_GEN_ANON] : min_seq[LRU_GEN_FILE];
			min_seq[LRU_GEN_FILE] =
				min_seq[LRU_GEN_ANON] > lrugen->min_seq[LRU_GEN_FILE] ?
				min_seq[LRU_GEN_ANON] : lrugen->min_seq[LRU_GEN_FILE];
		}
	} else if (swappiness && swappiness <= MAX_SWAPPINESS) {
		uint64_t seq = lrugen->max_seq - MIN_NR_GENS;

		if (min_seq[LRU_GEN_ANON] > seq && min_seq[LRU_GEN_FILE] < seq)
			min_seq[LRU_GEN_ANON] = seq;
		else if (min_seq[LRU_GEN_FILE] > seq && min_seq[LRU_GEN_ANON] < seq)
			min_seq[LRU_GEN_FILE] = seq;
	}

	/* ([6.12] skips an unchanged one: its rule never moves a min_seq back) */
	for (type = min_type(swappiness); type <= max_evictable_type(mg, swappiness); type++) {
		if (min_seq[type] <= lrugen->min_seq[type])
			continue;
		set_min_seq(mg, lv, type, min_seq[type]);
		success = true;
	}

	return success;
}

/*
 * mm/vmscan.c:inc_max_seq(): make a new generation. Types with MAX_NR_GENS generations
 * first retire their oldest (inc_min_seq, restarted until done); the active/inactive
 * sizes follow max_seq - 1 becoming inactive (and max_seq + 1 possibly holding a
 * non-evictable type's old folios); the PID history slot of max_seq + 1 is reset.
 */
bool inc_max_seq(struct mglru *mg, struct lruvec *lv, uint64_t seq, int swappiness)
{
	unsigned prev, next;
	int i, type, zone;
	struct lru_gen_folio *lrugen = &lv->lrugen;

restart:
	if (seq < lrugen->max_seq)
		return false;

	/* success = seq == lrugen->max_seq */
	if (MR_WARN_ON_ONCE(seq != lrugen->max_seq))
		return false;

	/* [6.12] mm/vmscan.c:3833 goes from file to anon */
	for (i = 0; i < ANON_AND_FILE; i++) {
		type = mg->caps.inc_max_seq_file_first ? ANON_AND_FILE - 1 - i : i;
		if (get_nr_gens(lv, type) != MAX_NR_GENS)
			continue;

		if (inc_min_seq(mg, lv, type, swappiness))
			continue;

		mg->stat.inc_min_seq_restarts++;
		goto restart;
	}

	/*
	 * Update the active/inactive LRU sizes for compatibility. Both sides of
	 * the current max_seq need to be covered, since max_seq+1 can overlap
	 * with min_seq[LRU_GEN_ANON] if swapping is constrained. And if they do
	 * overlap, cold/hot inversion happens.
	 */
	prev = lru_gen_from_seq(lrugen->max_seq - 1);
	next = lru_gen_from_seq(lrugen->max_seq + 1);

	for (type = 0; type < ANON_AND_FILE; type++) {
		for (zone = 0; zone < MAX_NR_ZONES; zone++) {
			int64_t delta = lrugen->nr_pages[prev][type][zone] -
					lrugen->nr_pages[next][type][zone];

			if (!delta)
				continue;
			mglru_count(mg, lv, type ? MR_VM_NR_INACTIVE_FILE : MR_VM_NR_INACTIVE_ANON,
				    delta);
			mglru_count(mg, lv, type ? MR_VM_NR_ACTIVE_FILE : MR_VM_NR_ACTIVE_ANON,
				    -delta);
		}
	}

	for (type = 0; type < ANON_AND_FILE; type++)
		reset_ctrl_pos(mg, lv, type, false);

	lrugen->timestamps[next] = mg->m->now_ns;
	lrugen->max_seq++;
	if (mg->cl) {
		mglru_cl(mg, lv, CL_AGING, LGF_TIMESTAMPS, next, true);
		mglru_cl(mg, lv, CL_AGING, LGF_MAX_SEQ, 0, true);
	}
	mg->stat.aging_passes++;
	return true;
}

/*
 * mm/vmscan.c:try_to_inc_max_seq(): age once for seq (the max_seq the caller saw). With
 * the mm walk (hardware A bit and cap 0x2) every mm of the memcg's list is walked
 * (iterate_mm_list / walk_mm), else the iteration just ends (iterate_mm_list_nowalk);
 * the walker that ends the iteration makes the new generation. Returns false if the
 * iteration for seq had already ended (another "walker"; here: a stale seq).
 * Like set_mm_walk(NULL, true), it leaves a walk context for the rest of the reclaim.
 */
bool try_to_inc_max_seq(struct mglru *mg, struct lruvec *lv, uint64_t seq, int swappiness,
			bool force_scan)
{
	bool success;
	uint32_t mm = MR_NONE;
	struct lru_gen_mm_walk *walk = &mg->walk;

	MR_WARN_ON_ONCE(seq > lv->lrugen.max_seq);
	mg->stat.aging_tries++;

	/* see the comment in iterate_mm_list() */
	if (seq <= lv->mm_state.seq)
		return false;

	/*
	 * If the hardware doesn't automatically set the accessed bit, fallback
	 * to lru_gen_look_around(), which only clears the accessed bit in a
	 * handful of PTEs.
	 */
	if (!should_walk_mmu(mg)) {
		mg->stat.aging_nowalk++;
		success = iterate_mm_list_nowalk(mg, lv, seq);
		goto done;
	}

	/* set_mm_walk(NULL, true) */
	if (walk->batched && walk->lruvec)
		reset_batch_size(mg, walk);
	mg->walk_active = true;
	walk->lruvec = lv;
	walk->seq = seq;
	walk->swappiness = swappiness;
	walk->force_scan = force_scan;

	do {
		success = iterate_mm_list(mg, walk, &mm);
		if (mm != MR_NONE)
			walk_mm(mg, mm, walk);
	} while (mm != MR_NONE);
done:
	if (success) {
		success = inc_max_seq(mg, lv, seq, swappiness);
		MR_WARN_ON_ONCE(!success);
	}
	return success;
}
