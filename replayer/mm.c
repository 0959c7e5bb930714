// SPDX-License-Identifier: GPL-2.0
/*
 * mm.c - the machine's address spaces (machine_int.h): the PTE table pool, PMD/PUD
 * directories per mm, VMAs live per mm (mm->mmap) and per file (i_mmap), the rmap_walk
 * and walk_mm machine ops, zap_pte_range-style unmapping, and installing PTEs.
 */
#include "machine_int.h"
#include "mr_util.h"

/* ---- page tables ---- */

static uint32_t table_alloc(struct rp_machine *mach, uint32_t mm, uint64_t key)
{
	struct mr_pte_table *pt;
	uint32_t i;

	if (mach->nfree) {
		i = mach->freelist[--mach->nfree];
	} else {
		if (mach->ntables == mach->nslabs * TPER) {
			if (mach->nslabs * TPER >= MAX_TABLES) {
				fail(mach, MR_ERANGE, "more than 8M page tables");
				return MR_NONE;
			}
			if (mach->nslabs == mach->capslabs) {
				uint32_t cap = mach->capslabs * 2 + 4;
				struct mr_pte_table **ns = realloc(mach->slabs, cap * sizeof(*ns));
				uint32_t *nm, *nv;
				uint64_t *nb, *na;

				if (!ns) {
					fail(mach, MR_ENOMEM, "out of memory for page tables");
					return MR_NONE;
				}
				mach->slabs = ns;
				nm = realloc(mach->tbl_mm, (size_t)cap * TPER * sizeof(*nm));
				if (nm)
					mach->tbl_mm = nm;
				na = realloc(mach->tbl_addr, (size_t)cap * TPER * sizeof(*na));
				if (na)
					mach->tbl_addr = na;
				nv = realloc(mach->tbl_vma, (size_t)cap * TPER * sizeof(*nv));
				if (nv)
					mach->tbl_vma = nv;
				nb = realloc(mach->pmdy, (size_t)cap * TPER / 64 * sizeof(*nb));
				if (nb) {
					memset(nb + (size_t)mach->capslabs * TPER / 64, 0,
					       (size_t)(cap - mach->capslabs) * TPER / 64 * sizeof(*nb));
					mach->pmdy = nb;
				}
				if (!nm || !nb || !na || !nv) {
					fail(mach, MR_ENOMEM, "out of memory for page tables");
					return MR_NONE;
				}
				mach->capslabs = cap;
			}
			mach->slabs[mach->nslabs] = malloc(TPER * sizeof(struct mr_pte_table));
			if (!mach->slabs[mach->nslabs]) {
				fail(mach, MR_ENOMEM, "out of memory for page tables");
				return MR_NONE;
			}
			mach->nslabs++;
			if (mach->nslabs > mach->initial_slabs)
				mach->c[C_TABLE_GROW]++;
		}
		i = mach->ntables++;
	}
	pt = tbl(mach, i);
	memset(pt->page, 0xff, sizeof(pt->page));
	memset(pt->bits, 0, sizeof(pt->bits));
	pt->addr = key << 21;
	pt->mm = mm;
	pt->nr_present = 0;
	pt->pmd_young = 0;
	pt->pad = 0;
	mach->tbl_mm[i] = mm;
	mach->tbl_addr[i] = key << 21;
	mach->tbl_vma[i] = MR_NONE;
	mach->pmdy[i >> 6] &= ~(1ull << (i & 63));
	if (++mach->live_tables > mach->c[C_TABLES_MAX])
		mach->c[C_TABLES_MAX] = mach->live_tables;
	return i;
}

void rp_table_free(struct rp_machine *mach, uint32_t i)
{
	if (mach->nfree == mach->capfree) {
		uint32_t cap = mach->capfree * 2 + 64;
		uint32_t *nf = realloc(mach->freelist, cap * sizeof(*nf));

		if (!nf) {
			fail(mach, MR_ENOMEM, "out of memory for the page table free list");
			return; /* leaked, not reused */
		}
		mach->freelist = nf;
		mach->capfree = cap;
	}
	mach->freelist[mach->nfree++] = i;
	mach->tbl_mm[i] = 0; /* free: no install or rmap hint may take it */
	mach->live_tables--;
}

uint32_t rp_table_get(struct rp_machine *mach, uint32_t mm, uint64_t key)
{
	struct rp_mmx *mx = &mach->mmx[mm];
	uint32_t pos = tkey_lower(mx, key), ti;

	if (pos < mx->ntbl && mx->tbl[pos].key == key)
		return mx->tbl[pos].table;
	if (mx->ntbl == mx->captbl) {
		uint32_t cap = mx->captbl * 2 + 4;
		struct rp_tkey *nt = realloc(mx->tbl, cap * sizeof(*nt));

		if (!nt) {
			fail(mach, MR_ENOMEM, "out of memory for page directories");
			return MR_NONE;
		}
		mx->tbl = nt;
		mx->captbl = cap;
		mach->c[C_TABLE_GROW]++;
	}
	ti = table_alloc(mach, mm, key);
	if (ti == MR_NONE)
		return MR_NONE;
	memmove(&mx->tbl[pos + 1], &mx->tbl[pos], (mx->ntbl - pos) * sizeof(*mx->tbl));
	mx->tbl[pos] = (struct rp_tkey){ .key = key, .table = ti };
	mx->ntbl++;
	return ti;
}

/* ---- VMAs ---- */

/* Live VMA of mm covering addr, or MR_NONE. */
uint32_t rp_vma_at(const struct rp_machine *mach, uint32_t mm, uint64_t addr)
{
	const struct rp_mmx *mx = &mach->mmx[mm];
	uint32_t lo = 0, hi = mx->nlive;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (mach->vmas[mx->live[mid]].v.start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && mach->vmas[mx->live[lo - 1]].v.end > addr)
		return mx->live[lo - 1];
	return MR_NONE;
}

/* rp_vma_at() for an address in live table ti of mm: the VMA found there last is
 * checked first (live VMAs of an mm do not overlap, so a live one covering addr is the
 * answer), else the search result is remembered. */
static uint32_t vma_at_table(struct rp_machine *mach, uint32_t ti, uint32_t mm, uint64_t addr)
{
	uint32_t vi = mach->tbl_vma[ti];

	if (vi != MR_NONE) {
		const struct mr_vma *v = &mach->vmas[vi].v;

		if (mach->vma_live[vi] && v->mm == mm && v->start <= addr && addr < v->end)
			return vi;
	}
	vi = rp_vma_at(mach, mm, addr);
	mach->tbl_vma[ti] = vi;
	return vi;
}

/* Does some live VMA of mm other than skip overlap [s, e)? */
/* The first of mx's live VMAs (sorted by start) that starts at addr or above. */
static uint32_t live_lower(const struct rp_machine *mach, const struct rp_mmx *mx, uint64_t addr)
{
	uint32_t lo = 0, hi = mx->nlive;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (mach->vmas[mx->live[mid]].v.start < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int vma_overlaps(const struct rp_machine *mach, uint32_t mm, uint64_t s, uint64_t e,
			uint32_t skip)
{
	const struct rp_mmx *mx = &mach->mmx[mm];
	uint32_t lo = live_lower(mach, mx, e); /* past the last that starts before e */

	while (lo--) {
		const struct mr_vma *v = &mach->vmas[mx->live[lo]].v;

		if (mx->live[lo] == skip)
			continue;
		return v->end > s; /* live VMAs do not overlap: only the last can reach s */
	}
	return 0;
}

/* Clear one present PTE (zap_pte_range for one entry, or try_to_unmap_one). explicit:
 * a munmap/exit, which hands the young and dirty bits of file pages to the folio. */
void rp_zap_pte(struct rp_machine *mach, const struct mr_vma *vma, struct mr_pte_table *pt,
		    unsigned s, int explicit)
{
	uint32_t frame = pt->page[s], page = rp_page(mach, frame);
	uint8_t bits = pt->bits[s];
	struct mr_folio *f = &mach->m.folios[frame];

	pt->page[s] = MR_NONE;
	pt->bits[s] = 0;
	pt->nr_present--;
	if (f->mapcount)
		f->mapcount--;
	mach->pg[page].flags &= ~E_HINT;
	if (ptype(mach, page) == RP_ANON)
		return;
	if (bits & MR_PTE_DIRTY) {
		f->flags |= MR_PG_DIRTY;
		if (ptype(mach, page) == RP_FILE)
			rp_file_dirtied(mach, page); /* zap_pte_range(): folio_mark_dirty() */
	}
	if (explicit && (bits & MR_PTE_YOUNG) && vma && mr_vma_has_recency(vma) &&
	    mach->ops->mark_accessed)
		mach->ops->mark_accessed(mach->pol, frame);
}

/* Are the eight slots from s (a multiple of 8) all not present? One test of 32 bytes:
 * a table a sampled machine unmaps holds a few pages among its 512 slots. */
static inline int none8(const struct mr_pte_table *pt, unsigned s)
{
	uint64_t w[4];

	memcpy(w, &pt->page[s], sizeof(w));
	return (w[0] & w[1] & w[2] & w[3]) == UINT64_MAX;
}

/* Zap the present PTEs of slots [first, last] of pt. */
static void zap_slots(struct rp_machine *mach, const struct mr_vma *vma, struct mr_pte_table *pt,
		      unsigned first, unsigned last, int explicit)
{
	for (unsigned s = first; s <= last && pt->nr_present;) {
		if (!(s & 7) && s + 7 <= last && none8(pt, s)) {
			s += 8;
			continue;
		}
		if (pt->page[s] != MR_NONE)
			rp_zap_pte(mach, vma, pt, s, explicit);
		s++;
	}
}

/* Zap the PTEs of [start, end) in mm and free the tables no live VMA covers any more
 * (the caller has already taken vma off the live list). */
static void zap_range(struct rp_machine *mach, const struct mr_vma *vma, int explicit)
{
	struct rp_mmx *mx = &mach->mmx[vma->mm];
	uint64_t k0 = vma->start >> 21, k1 = (vma->end - 1) >> 21;
	uint32_t pos = tkey_lower(mx, k0);

	while (pos < mx->ntbl && mx->tbl[pos].key <= k1) {
		uint64_t key = mx->tbl[pos].key;
		uint32_t ti = mx->tbl[pos].table;
		struct mr_pte_table *pt = tbl(mach, ti);
		unsigned first = key == k0 ? (unsigned)((vma->start >> 12) & 511) : 0;
		unsigned last = key == k1 ? (unsigned)(((vma->end - 1) >> 12) & 511) : 511;

		zap_slots(mach, vma, pt, first, last, explicit);
		if (!vma_overlaps(mach, vma->mm, key << 21, (key + 1) << 21, MR_NONE)) {
			/* free_pgtables(): nothing maps this region any more */
			zap_slots(mach, NULL, pt, 0, MR_PTRS_PER_TABLE - 1, 0);
			rp_table_free(mach, ti);
			memmove(&mx->tbl[pos], &mx->tbl[pos + 1], (mx->ntbl - pos - 1) * sizeof(*mx->tbl));
			mx->ntbl--;
			continue;
		}
		pos++;
	}
}

static void list_remove(uint32_t *v, uint32_t *n, uint32_t id)
{
	for (uint32_t i = 0; i < *n; i++) {
		if (v[i] == id) {
			memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
			(*n)--;
			return;
		}
	}
}

/* Take VMA vi off its mm's live list, found by its start (the list is sorted by it). */
static void live_remove(struct rp_machine *mach, struct rp_mmx *mx, uint32_t vi)
{
	uint32_t lo = live_lower(mach, mx, mach->vmas[vi].v.start);

	if (lo < mx->nlive && mx->live[lo] == vi) {
		memmove(&mx->live[lo], &mx->live[lo + 1], (mx->nlive - lo - 1) * sizeof(*mx->live));
		mx->nlive--;
	} else {
		MR_WARN_ON_ONCE(1);
		list_remove(mx->live, &mx->nlive, vi);
	}
}

/* Anon/shmem pages of mm with addresses in [start, end): anon_index range. */
void rp_anon_range(const struct rp_image *t, uint32_t mm, uint64_t start, uint64_t end,
		       uint64_t *lo_out, uint64_t *hi_out)
{
	uint64_t lo = t->mm_anon_off[mm], hi = t->mm_anon_off[mm + 1], k0 = start >> 12;
	uint64_t k1 = end >> 12, a, b;

	a = lo;
	b = hi;
	while (a < b) {
		uint64_t mid = (a + b) / 2;

		if (t->pages[t->anon_index[mid]].key < k0)
			a = mid + 1;
		else
			b = mid;
	}
	*lo_out = a;
	b = hi;
	while (a < b) {
		uint64_t mid = (a + b) / 2;

		if (t->pages[t->anon_index[mid]].key < k1)
			a = mid + 1;
		else
			b = mid;
	}
	*hi_out = a;
}

/* munmap(): explicit frees the anonymous memory of the range too; an implicit unmap
 * (another VMA mapped over it) only takes the PTEs away. */
void rp_vma_unmap(struct rp_machine *mach, uint32_t vi, int explicit)
{
	const struct mr_vma *v = &mach->vmas[vi].v;
	struct rp_mmx *mx = &mach->mmx[v->mm];

	if (!mach->vma_live[vi])
		return;
	live_remove(mach, mx, vi);
	if (v->file)
		list_remove(mach->imap[v->file].live, &mach->imap[v->file].n, vi);
	mach->vma_live[vi] = 0;
	zap_range(mach, v, explicit);
	if (explicit) {
		uint64_t lo, hi;

		rp_anon_range(mach->t, v->mm, v->start, v->end, &lo, &hi);
		for (uint64_t i = lo; i < hi; i++)
			rp_folio_free(mach, mach->t->anon_index[i]);
		mach->c[C_UNMAPS]++;
	}
}

void rp_vma_activate(struct rp_machine *mach, uint32_t vi)
{
	const struct mr_vma *nv = &mach->vmas[vi].v;
	uint32_t mm = nv->mm;
	struct rp_mmx *mx = &mach->mmx[mm];
	uint32_t lo;

	if (mach->vma_live[vi] || !mm)
		return;
	/* mmap over live mappings unmaps them first (MAP_FIXED). Live VMAs are sorted by
	 * start, non-empty and disjoint (rows have end > start, image.c): the first that
	 * may overlap is the one before the first starting at nv's start or above, if it
	 * reaches past that start, else that first one. */
	for (;;) {
		lo = live_lower(mach, mx, nv->start);
		if (lo && mach->vmas[mx->live[lo - 1]].v.end > nv->start)
			lo--;
		if (lo == mx->nlive || mach->vmas[mx->live[lo]].v.start >= nv->end)
			break;
		rp_vma_unmap(mach, mx->live[lo], 0);
	}
	lo = live_lower(mach, mx, nv->start);
	if (mx->nlive == mx->caplive) {
		MR_WARN_ON_ONCE(mx->nlive == mx->caplive);
		return;
	}
	memmove(&mx->live[lo + 1], &mx->live[lo], (mx->nlive - lo) * sizeof(*mx->live));
	mx->live[lo] = vi;
	mx->nlive++;
	if (nv->file) {
		struct rp_flist *fl = &mach->imap[nv->file];

		if (fl->n < fl->cap)
			fl->live[fl->n++] = vi;
	}
	mach->vma_live[vi] = 1;
	use_mm(mach, mm);
}

/* Among the VMAs idx[from..to) (or from..to themselves when idx is NULL) that cover the
 * page rp in mm, the one a trace without a MAP event most likely means at time now. */
static uint32_t pick_row(const struct rp_machine *mach, const uint32_t *idx, uint32_t from,
			 uint32_t to, uint32_t mm, const struct rp_page *rp)
{
	uint64_t now = mach->m.now_ns;
	uint32_t best = MR_NONE;
	int best_score = -1;
	uint64_t best_map = 0;

	for (uint32_t i = from; i < to; i++) {
		uint32_t vi = idx ? idx[i] : i;
		const struct rp_image_vma *r = &mach->t->vmas[vi];
		int score;

		if (r->v.mm != mm)
			continue;
		if (rp_page_type(rp) == RP_FILE) {
			if (r->v.file != rp->owner || rp->key < r->v.pgoff ||
			    rp->key - r->v.pgoff >= (r->v.end - r->v.start) >> 12)
				continue;
		} else if ((rp->key << 12) < r->v.start || (rp->key << 12) >= r->v.end) {
			continue;
		}
		if (r->derived || (r->map_ns <= now && (!r->unmap_ns || r->unmap_ns > now)))
			score = 2;
		else if (r->map_ns <= now)
			score = 1;
		else
			score = 0;
		if (score > best_score || (score == best_score && score == 1 && r->map_ns > best_map)) {
			best = vi;
			best_score = score;
			best_map = r->map_ns;
		}
	}
	return best;
}

/* The VMA of mm that maps file page rp (activating a row if none is live); MR_NONE
 * when the trace has none. *addr is the page's address in it. */
static uint32_t file_vma(struct rp_machine *mach, const struct rp_page *rp, uint32_t mm,
			 uint64_t *addr)
{
	const struct rp_image *t = mach->t;
	const struct rp_flist *fl = &mach->imap[rp->owner];
	uint32_t vi;

	for (uint32_t i = 0; i < fl->n; i++) {
		const struct mr_vma *v = &mach->vmas[fl->live[i]].v;

		if (v->mm == mm && rp->key >= v->pgoff && rp->key - v->pgoff < vma_pages(v)) {
			*addr = v->start + ((rp->key - v->pgoff) << 12);
			return fl->live[i];
		}
	}
	vi = pick_row(mach, t->file_vmas, t->file_vma_off[rp->owner],
		      t->file_vma_off[rp->owner + 1], mm, rp);
	if (vi != MR_NONE) {
		*addr = t->vmas[vi].v.start + ((rp->key - t->vmas[vi].v.pgoff) << 12);
		rp_vma_activate(mach, vi);
	}
	return vi;
}

/* The VMA that maps page in mm (activating a row if none is live); MR_NONE when the
 * trace has none. *addr is the page's address in it. */
uint32_t rp_vma_for_page(struct rp_machine *mach, uint32_t page, uint32_t mm, uint64_t *addr)
{
	const struct rp_image *t = mach->t;
	const struct rp_page *rp = &t->pages[page];
	uint32_t vi;

	if (!mm)
		return MR_NONE;
	if (rp_page_type(rp) != RP_FILE) {
		uint32_t ti = LOC_TABLE(mach->pg[page].pte);

		*addr = rp->key << 12;
		if (ti < mach->ntables && mach->tbl_mm[ti] == mm && mach->tbl_addr[ti] == (*addr & ~((1ull << 21) - 1)))
			vi = vma_at_table(mach, ti, mm, *addr); /* the table it was mapped in last */
		else
			vi = rp_vma_at(mach, mm, *addr);
		if (vi != MR_NONE)
			return vi;
		vi = pick_row(mach, NULL, t->mm_vma_off[mm], t->mm_vma_off[mm + 1], mm, rp);
		if (vi != MR_NONE)
			rp_vma_activate(mach, vi);
		return vi;
	}
	return file_vma(mach, rp, mm, addr);
}

/* ---- rmap ---- */

/* rmap_walk(): call fn for every PTE mapping the resident page in frame. */
static int rmap_walk(struct rp_machine *mach, uint32_t page, uint32_t frame,
		     int (*fn)(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			       unsigned slot),
		     void *arg)
{
	const struct mr_folio *f = &mach->m.folios[frame];
	const struct rp_page *rp;
	uint32_t want = f->mapcount, found = 0;

	if (!want)
		return 0;
	if (want == 1) {
		/* One mapping (every mapped anon folio): the hint names it (the folio's copy
		 * of rp_pg.pte, which reclaim has at hand). An anon hint is always current;
		 * a file folio's may name a zapped PTE of another mapping, and then its slot
		 * does not hold the frame. mm and address come from the per-table arrays,
		 * not the table's header. */
		uint32_t loc = f->pte, ti = LOC_TABLE(loc);
		unsigned s = LOC_SLOT(loc);
		int anon = f->type != RP_FILE;

		if (anon || tbl(mach, ti)->page[s] == frame) {
			uint32_t vi = vma_at_table(mach, ti, mach->tbl_mm[ti],
						   mach->tbl_addr[ti] + ((uint64_t)s << 12));

			(void)MR_WARN_ON_ONCE(anon && tbl(mach, ti)->page[s] != frame);
			if (vi != MR_NONE)
				return fn(arg, &mach->vmas[vi].v, pmd_sync(mach, ti), s);
		}
		(void)MR_WARN_ON_ONCE(anon);
		if (anon)
			return 0;
	}
	rp = &mach->t->pages[page];
	{
		const struct rp_flist *fl = &mach->imap[rp->owner];

		for (uint32_t i = 0; i < fl->n && found < want; i++) {
			const struct mr_vma *v = &mach->vmas[fl->live[i]].v;
			uint64_t addr;
			uint32_t ti;
			unsigned s;
			int r;

			if (rp->key < v->pgoff || rp->key - v->pgoff >= vma_pages(v))
				continue;
			addr = v->start + ((rp->key - v->pgoff) << 12);
			ti = table_find(mach, v->mm, addr >> 21);
			if (ti == MR_NONE)
				continue;
			s = (addr >> 12) & 511;
			if (tbl(mach, ti)->page[s] != frame)
				continue;
			found++;
			r = fn(arg, v, pmd_sync(mach, ti), s);
			if (r)
				return r;
		}
	}
	return 0;
}

/* mr_machine_ops.rmap_walk: the policy names the folio by its frame */
int rp_rmap_walk(struct mr_machine *m, uint32_t frame,
		 int (*fn)(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			   unsigned slot),
		 void *arg)
{
	struct rp_machine *mach = to_rp(m);

	return rmap_walk(mach, rp_page(mach, frame), frame, fn, arg);
}

/* mr_machine_ops.prefetch_folio: the lines the rmap walks and remove_mapping of a victim
 * will touch, from the folio's PTE hint alone (no walk: the folio is all this reads). A
 * file folio's hint may name another mapping or none; the lines are then merely wasted. */
void rp_prefetch_folio(struct mr_machine *m, uint32_t frame)
{
	struct rp_machine *mach = to_rp(m);
	const struct mr_folio *f = &m->folios[frame];
	uint32_t page = rp_page(mach, frame);
	uint32_t ti = LOC_TABLE(f->pte);

	mr_prefetchw(&mach->pg[page]);
	if (mach->detail)
		rp_detail_prefetch(mach->detail, page);
	if (f->type == RP_FILE)
		mr_prefetch(&mach->t->pages[page]); /* its row: the page cache's slot */
	if (f->mapcount && ti < mach->ntables) {
		struct mr_pte_table *pt = tbl(mach, ti);
		unsigned s = LOC_SLOT(f->pte);

		mr_prefetchw(&pt->page[s]);
		mr_prefetchw(&pt->bits[s]);
		mr_prefetchw(&pt->pmd_young);
		if (m->pte_window) {
			/* the look-around's window: up to pte_window * 64 / 2 PTEs each side,
			 * within the table (mglru_aging.c, lru_gen_look_around()) */
			unsigned w = m->pte_window * 32u, lo = s > w ? s - w : 0;
			unsigned hi = s + w < 512 ? s + w : 512;

			for (unsigned x = lo & ~15u; x < hi; x += 16)
				mr_prefetch(&pt->page[x]);
			mr_prefetch(&pt->bits[lo]);
			mr_prefetch(&pt->bits[hi - 1]);
		}
	}
}

static void walk_mm_vmas(struct rp_machine *mach, uint32_t mm, const struct mr_walk_ops *ops,
			 void *arg);

/* splitmix64: the variation's draws, one per walk */
static uint64_t vary_next(struct rp_machine *mach)
{
	return mr_splitmix64(&mach->vary_rng);
}

/*
 * walk_page_range() over the whole mm, VMA by VMA. With --vary, the task whose reclaim
 * walked is then switched back in with probability vary_p: lru_gen_use_mm() in
 * context_switch() sets the mm's bits that get_next_mm() cleared, so the next aging
 * walks it again. On kernel-lab's 6.12 guest MGLRU ages twice in a row inside one
 * reclaim, and the second aging walks exactly when the task was preempted and switched
 * back in between the two (docs/validation.md, "What picks the level"); when that
 * happens is not in a trace (its switch-ins cannot be placed against the kernel's
 * agings), so it is drawn, per seed, deterministically.
 */
void rp_walk_mm(struct mr_machine *m, uint32_t mm, const struct mr_walk_ops *ops, void *arg)
{
	struct rp_machine *mach = to_rp(m);

	if (!mm || mm >= m->nr_mms)
		return;
	walk_mm_vmas(mach, mm, ops, arg);
	if (mach->vary_seed && vary_next(mach) < mach->vary_thresh)
		use_mm(mach, mm);
}

static void walk_mm_vmas(struct rp_machine *mach, uint32_t mm, const struct mr_walk_ops *ops,
			 void *arg)
{
	struct rp_mmx *mx = &mach->mmx[mm];

	for (uint32_t i = 0; i < mx->nlive; i++) {
		const struct mr_vma *v = &mach->vmas[mx->live[i]].v;
		uint64_t k0 = v->start >> 21, k1 = (v->end - 1) >> 21;
		uint32_t pos = tkey_lower(mx, k0);

		if (ops->vma_entry && ops->vma_entry(arg, v))
			continue;
		while (pos < mx->ntbl && mx->tbl[pos].key <= k1) {
			uint64_t pud = mx->tbl[pos].key >> 9;

			if (ops->pud_entry && ops->pud_entry(arg, v, pud << 30)) {
				while (pos < mx->ntbl && mx->tbl[pos].key >> 9 == pud)
					pos++;
				continue;
			}
			for (; pos < mx->ntbl && mx->tbl[pos].key <= k1 && mx->tbl[pos].key >> 9 == pud;
			     pos++) {
				uint64_t key = mx->tbl[pos].key;
				unsigned first = key == k0 ? (unsigned)((v->start >> 12) & 511) : 0;
				unsigned last = key == k1 ? (unsigned)(((v->end - 1) >> 12) & 511) : 511;

				if (ops->pmd_entry &&
				    ops->pmd_entry(arg, v, pmd_sync(mach, mx->tbl[pos].table), first,
						   last) < 0)
					return;
			}
		}
	}
}

/* ---- unmapping and mapping one page ---- */

/* Unmap every PTE of page (try_to_unmap), dirty bits to PG_dirty. */
struct unmap_arg {
	struct rp_machine *mach;
	uint32_t frame; /* rmap_walk only calls back for PTEs holding it: no need to load one */
	uint32_t page;
};

static int unmap_one(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt, unsigned s)
{
	struct unmap_arg *ua = arg;
	struct mr_folio *f = &ua->mach->m.folios[ua->frame];

	(void)vma;
	MR_WARN_ON_ONCE(pt->page[s] != ua->frame);
	if (pt->bits[s] & MR_PTE_DIRTY)
		f->flags |= MR_PG_DIRTY;
	pt->page[s] = MR_NONE;
	pt->bits[s] = 0;
	pt->nr_present--;
	f->mapcount--;
	ua->mach->pg[ua->page].flags &= ~E_HINT;
	return 0;
}

void rp_unmap_all(struct rp_machine *mach, uint32_t page)
{
	uint32_t frame = rp_frame(mach, page);
	struct mr_folio *f = &mach->m.folios[frame];
	struct unmap_arg ua = { mach, frame, page };

	while (f->mapcount) {
		uint32_t before = f->mapcount;

		rmap_walk(mach, page, frame, unmap_one, &ua);
		if (f->mapcount == before) {
			/* a mapping rmap cannot find: a bug; do not loop */
			MR_WARN_ON_ONCE(1);
			f->mapcount = 0;
		}
	}
}

/*
 * do_fault_around() (mm/memory.c), run by a read fault on a file mapping before the page
 * is looked up: filemap_map_pages() (mm/filemap.c) maps every page of the window that is
 * in the page cache and not mapped at its address yet. The PTEs are young: x86 has no
 * arch_wants_old_prefaulted_pte(). Mapping is not an access (set_pte_range() leaves the
 * LRU alone), but reclaim's rmap and page-table walks find those young PTEs as if the
 * page had been read, and later reads of them do not fault, so a trace cannot show them.
 * The window is fault_around pages, aligned, clamped to the VMA and to the PTE table.
 * page (the faulting one) is left to the caller. Pages this fault itself reads in (its
 * in-fault readahead, which traces recorded before inserts were held until their fault
 * name before it) are locked and not uptodate when the kernel looks: skipped.
 * The kernel also skips a PG_readahead folio (the async readahead marker), which the
 * model does not keep: its fault, if any, is in the trace.
 */
static void fault_around_one(struct rp_machine *mach, uint32_t p, uint32_t mm, uint64_t a,
			     uint32_t *ti, struct mr_pte_table **pt)
{
	unsigned s = (unsigned)((a >> 12) & 511);

	if (!*pt) {
		*ti = rp_table_get(mach, mm, a >> 21);
		if (*ti == MR_NONE)
			return;
		*pt = tbl(mach, *ti);
	}
	if ((*pt)->page[s] != MR_NONE)
		return;
	rp_install_pte(mach, p, mm, a, 0);
	mach->c[C_FAULT_AROUND]++;
}

/* Is a bit of bits[] in [s0, s1) other than self's set? A word at a time: a window is
 * up to 512 slots, and every read fault of a mapped file (every unsampled one's, in a
 * sampled replay, sample.c) asks. */
static int fa_any_resident(const uint64_t *bits, uint64_t s0, uint64_t s1, uint64_t self)
{
	while (s0 < s1) {
		uint64_t w = s0 >> 6, lo = s0 & 63;
		uint64_t n = s1 - s0 < 64 - lo ? s1 - s0 : 64 - lo;
		uint64_t mask = (n == 64 ? ~0ull : ((1ull << n) - 1)) << lo;

		if (self >> 6 == w)
			mask &= ~(1ull << (self & 63));
		if (bits[w] & mask)
			return 1;
		s0 += n;
	}
	return 0;
}

/* Is every resident page of the direct-map slots [s0, s1) but self mapped in mm at its
 * address through v, by its PTE hint (a live PTE of the folio while E_HINT)? */
static int fa_window_mapped(const struct rp_machine *mach, const struct mr_vma *v, uint32_t mm,
			    uint64_t s0, uint64_t s1, uint32_t self)
{
	const struct rp_image *t = mach->t;

	for (uint64_t s = s0; s < s1; s++) {
		uint64_t a;
		const struct rp_pg *g;
		uint32_t p, ti;

		if (!(mach->fa_resident[s >> 6] & (1ull << (s & 63))) || (p = t->fmap[s]) == self)
			continue;
		g = &mach->pg[p];
		a = v->start + ((t->fmap_kmin[v->file] + s - t->fmap_base[v->file] - v->pgoff) << 12);
		ti = LOC_TABLE(g->pte);
		if (!(g->flags & E_HINT) || ti >= mach->ntables || mach->tbl_mm[ti] != mm ||
		    mach->tbl_addr[ti] != (a & ~((1ull << 21) - 1)) || LOC_SLOT(g->pte) != ((a >> 12) & 511))
			return 0;
	}
	return 1;
}

void rp_fault_around(struct rp_machine *mach, uint32_t vi, uint32_t mm, uint64_t addr, uint32_t page,
		     uint32_t task)
{
	/* in a trace that names a fault's inserts before it, the task's noted in-fault
	 * inserts are this fault's own when they hold its page; else an earlier fault's */
	uint32_t own = !mach->t->inserts_after_fault &&
		       (page == MR_NONE ? mach->ra_task == task && mach->ra_n : rp_ra_major(mach, page, task))
		       ? task : MR_NONE;
	const struct rp_image *t = mach->t;
	const struct mr_vma *v = &mach->vmas[vi].v;
	uint64_t nr = mach->fault_around, pte_off = (addr >> 12) & 511;
	uint64_t vma_off = (addr - v->start) >> 12, from, to, i0, i1, s0 = 0, s1 = 0;
	struct mr_pte_table *pt = NULL;
	uint32_t f = v->file, ti;

	if (nr <= 1 || !f || f >= t->nr_files)
		return;
	from = pte_off & ~(nr - 1);
	if (from < pte_off - (pte_off < vma_off ? pte_off : vma_off))
		from = pte_off - (pte_off < vma_off ? pte_off : vma_off);
	to = from + nr;
	if (to > 512)
		to = 512;
	if (to > pte_off + vma_pages(v) - vma_off)
		to = pte_off + vma_pages(v) - vma_off;
	/* the file indices of [from, to) */
	i0 = v->pgoff + vma_off - (pte_off - from);
	i1 = i0 + (to - from);
	/* nothing to do when no other page of a directly mapped file's window is in
	 * memory: its residency bits, before the table's line (a miss on a file read at
	 * random, and the faults of a sampled replay's unsampled pages, sample.c, are
	 * mostly such) */
	if (t->fmap_base[f] != UINT64_MAX) {
		/* the window's slots in the direct map: [s0, s1), empty when the window
		 * lies outside the file's mapped span */
		uint64_t kmin = t->fmap_kmin[f], kend = kmin + t->fmap_span[f];
		uint64_t k0 = i0 > kmin ? i0 : kmin, k1 = i1 < kend ? i1 : kend;
		uint64_t self = page == MR_NONE ? UINT64_MAX : fa_slot(t, page);

		s0 = t->fmap_base[f] + k0 - kmin;
		s1 = k1 > k0 ? s0 + (k1 - k0) : s0;
		if (!fa_any_resident(mach->fa_resident, s0, s1, self))
			return;
		/* nor when each of its resident pages is mapped at its own address in mm
		 * already, as its PTE hint tells without searching mm's tables (in a sampled
		 * replay, the window of an unsampled page's fault mostly holds one sampled
		 * page, which its own earlier fault mapped) */
		if (fa_window_mapped(mach, v, mm, s0, s1, page))
			return;
	}
	/* nothing to do when the window is mapped already: one look at the table */
	ti = table_find(mach, mm, addr >> 21);
	if (ti != MR_NONE) {
		uint64_t s = from;

		pt = tbl(mach, ti);
		while (s < to && (s == pte_off || pt->page[s] != MR_NONE))
			s++;
		if (s == to)
			return;
	}
	if (t->fmap_base[f] != UINT64_MAX) {
		for (uint64_t s = s0; s < s1; s++) {
			uint64_t k = t->fmap_kmin[f] + s - t->fmap_base[f];
			uint32_t p;

			if (!(mach->fa_resident[s >> 6] & (1ull << (s & 63))))
				continue;
			p = t->fmap[s];
			if (p != page && !rp_ra_major(mach, p, own))
				fault_around_one(mach, p, mm, v->start + ((k - v->pgoff) << 12), &ti, &pt);
		}
		return;
	}
	/* a file whose trace pages are sparse in it: search its keys */
	{
		uint32_t lo = rp_file_key_lower(t, f, i0), end = t->file_page_off[f + 1];

		for (; lo < end && t->file_key[lo] < i1; lo++) {
			uint32_t p = t->file_index[lo];

			if (p != page && rp_resident(mach, p) &&
			    !rp_ra_major(mach, p, own))
				fault_around_one(mach, p, mm,
						 v->start + ((t->file_key[lo] - v->pgoff) << 12), &ti, &pt);
		}
	}
}

/*
 * A sampled replay's read fault of an unsampled page, index key of file, through a
 * mapping of task's mm (sample.c, RP_EV_FAULT_AROUND): the fault-around of its window
 * over the sampled pages, as the full replay's fault would map them. Whether the full
 * replay would find that page mapped already (no fault) cannot be known here: a
 * recorded fault is taken as a fault. The VMA is found as rp_vma_for_page() finds it.
 * Noted in-fault inserts of the task are taken as this fault's own (the page itself
 * cannot be matched against them).
 */
void rp_fault_around_unsampled(struct rp_machine *mach, uint32_t task, uint32_t file, uint64_t key)
{
	struct rp_page rp = { .key = key, .owner = file, .info = RP_FILE | RP_PAGE_VALID };
	uint32_t mm = task_mm(mach, task), vi;
	uint64_t addr;

	if (!mm || !file || file >= mach->t->nr_files)
		return;
	vi = file_vma(mach, &rp, mm, &addr);
	if (vi != MR_NONE)
		rp_fault_around(mach, vi, mm, addr, MR_NONE, task);
}

/*
 * An unsampled anonymous page that copies a sampled file page is first named (sample.c,
 * RP_EV_COW_BREAK): the full replay installs the copy's PTE over whatever its address
 * maps (rp_install_pte()), the file page when it was mapped there; the sampled machine,
 * which has no copy, unmaps it.
 */
void rp_cow_break(struct rp_machine *mach, uint32_t mm, uint64_t vpn)
{
	uint32_t ti;
	struct mr_pte_table *pt;
	unsigned s = (unsigned)(vpn & 511);

	if (!mm || mm >= mach->t->nr_mms || (ti = table_find(mach, mm, vpn >> 9)) == MR_NONE)
		return;
	pt = tbl(mach, ti);
	if (pt->page[s] != MR_NONE) {
		rp_zap_pte(mach, NULL, pt, s, 0);
		mach->cow_unmaps++;
	}
}

/* Install page's PTE at addr in mm: young, dirty for a write. */
void rp_install_pte(struct rp_machine *mach, uint32_t page, uint32_t mm, uint64_t addr,
			int write)
{
	uint32_t frame = rp_frame(mach, page);
	struct mr_folio *f = &mach->m.folios[frame];
	struct rp_pg *g = &mach->pg[page];
	uint32_t ti = LOC_TABLE(g->pte);
	struct mr_pte_table *pt;
	unsigned s = (unsigned)((addr >> 12) & 511);
	uint8_t bits = (uint8_t)(MR_PTE_YOUNG | (write ? MR_PTE_DIRTY : 0));

	/* The table of the folio's last PTE is usually this one again (an anon page is
	 * always mapped at the same place): take it without the directory search when its
	 * mm and address match (a live table is unique per mm and 2 MiB region). */
	if (ti >= mach->ntables || mach->tbl_mm[ti] != mm || mach->tbl_addr[ti] != (addr & ~((1ull << 21) - 1)))
		ti = rp_table_get(mach, mm, addr >> 21);
	if (ti == MR_NONE)
		return;
	pt = tbl(mach, ti);
	if (pt->page[s] == frame) {
		pt->bits[s] |= bits;
	} else {
		if (pt->page[s] != MR_NONE)
			rp_zap_pte(mach, NULL, pt, s, 0); /* another page at this address: replaced */
		pt->page[s] = frame;
		pt->bits[s] = bits;
		pt->nr_present++;
		f->mapcount++;
	}
	pmd_mark(mach, ti);
	g->pte = f->pte = LOC(ti, s);
	g->flags |= E_HINT;
}
