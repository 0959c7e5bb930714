// SPDX-License-Identifier: GPL-2.0
/*
 * image.c - load a trace's tables into the image every machine reads (struct rp_image):
 * pages as 16-byte rows, VMAs sorted by (mm, start), tasks, memcgs, and the sizes the
 * machines allocate up front (PTE tables per mm, the table pool).
 *
 * Derived VMAs. Generators and recorders may omit the vmas row of some anonymous
 * memory. Every anonymous (or shmem) page that no vmas row of its mm covers gets a
 * derived VMA so that page tables always exist: per 2 MiB region of an mm, one VMA
 * spanning the first to the last such page, read+write, anonymous, mapped from the start
 * of the trace; when that span would overlap a vmas row, one VMA per run of
 * consecutive uncovered pages instead. Derived VMAs have ids above every row's and
 * `derived = 1`.
 *
 * Table sizing. A PTE table exists for an (mm, 2 MiB region) while a live VMA of the mm
 * covers the region and a page was mapped there. Per VMA we count the regions that hold
 * at least one page it could map (anon: pages of the mm in its range; file: pages of the
 * file in its pgoff window); an mm's bound is the sum over its VMAs, and the pool is
 * the peak of that sum over the VMAs' [map_ns, unmap_ns) lifetimes (0 = whole trace).
 * The pool may still grow at run time for traces whose events disagree with their rows.
 */
#define _GNU_SOURCE /* qsort_r */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_store.h"
#include "mr_replay.h"
#include "rp_int.h"

#define RP_MAX_DENSE_ID (1u << 26) /* task/file ids index arrays directly */

struct load {
	struct rp_image *t;
	struct mr_store *s;
	struct mr_error *err;
	struct rp_sha256 sha;
	uint32_t *mm_ids; /* sorted store mm ids; index = position + 1 */
	uint32_t nmm_ids;
	uint32_t *cg_ids; /* page cgroup ids: first-seen order in the pass, then sorted */
	uint32_t ncg, capcg, cg_last;
	uint32_t max_file;
	uint32_t *mm_first_cg; /* [nr_mms] cgroup id + 1 of the mm's first task, 0 = none */
	struct rp_image_vma *vma_rows; /* load_vmas()'s rows read for the sample, kept for
					* the image's VMAs (NULL: read them then) */
	uint32_t nvma_rows;
	uint32_t sample_den;   /* rp_image_load_sampled(): 1 in den regions, 0 = all */
	uint64_t sample_seed;
	uint32_t sample_unit;  /* pages a unit */
	const char *cache_dir; /* for the sampling choice's page counts, NULL = none */
	int rc;
};

static int sqlerr(struct load *l, const char *what)
{
	sqlite3 *db = mr_store_db(l->s);

	return mr_error_set(l->err, MR_EIO, "%s: %s: %s", l->t->path, what, sqlite3_errmsg(db));
}

static int prepare(struct load *l, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(mr_store_db(l->s), sql, -1, st, NULL) != SQLITE_OK)
		return sqlerr(l, "reading the trace tables");
	return 0;
}

static void hash_u64(struct load *l, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	rp_sha256_update(&l->sha, b, 8);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t *find_u32(const uint32_t *v, uint32_t n, uint32_t key)
{
	return bsearch(&key, v, n, sizeof(*v), cmp_u32);
}

static uint32_t mm_index(const struct load *l, uint32_t id)
{
	uint32_t *p;

	if (!id)
		return 0;
	p = find_u32(l->mm_ids, l->nmm_ids, id);
	return p ? (uint32_t)(p - l->mm_ids) + 1 : 0;
}

/* A sorted distinct list of non-zero ids from one query. */
static int id_list(struct load *l, const char *sql, uint32_t **out, uint32_t *n, int keep_zero)
{
	sqlite3_stmt *st;
	uint32_t *v = NULL, cap = 0, k = 0;
	int rc = prepare(l, sql, &st);

	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id < 0 || id > UINT32_MAX - 1 || (!id && !keep_zero))
			continue;
		if (k == cap) {
			uint32_t *nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				sqlite3_finalize(st);
				return mr_error_set(l->err, MR_ENOMEM, "out of memory loading ids");
			}
			v = nv;
		}
		v[k++] = (uint32_t)id;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return sqlerr(l, "reading ids");
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_u32);
	{
		uint32_t j = 0;

		for (uint32_t i = 0; i < k; i++)
			if (!j || v[j - 1] != v[i])
				v[j++] = v[i];
		k = j;
	}
	*out = v;
	*n = k;
	return 0;
}

static int max_id(struct load *l, const char *sql, uint64_t *out)
{
	sqlite3_stmt *st;
	int rc = prepare(l, sql, &st);

	if (rc)
		return rc;
	*out = 0;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		*out = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/* ---- identity: chunk rows ---- */

static int hash_chunks(struct load *l)
{
	sqlite3_stmt *st;
	int rc = prepare(l, "SELECT id, stream, t_first, t_last, n_events, crc, payload_bytes,"
			    " length(data) FROM chunks ORDER BY id", &st);

	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int i = 0; i < 8; i++)
			hash_u64(l, (uint64_t)sqlite3_column_int64(st, i));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sqlerr(l, "reading chunk rows");
}

/*
 * The event reader keeps state per stream id up to the largest one a chunk row names (a
 * prepared statement and a chunk buffer each), so one row with stream 1048575 made a
 * four-event replay take 13 s and 3.5 GB. Stream ids index the streams table: refuse a
 * chunk whose stream is beyond both the streams table's rows and the distinct streams
 * of the chunks (or negative: never read), so what a replay holds per stream follows
 * what the trace has.
 */
static int check_streams(struct load *l)
{
	sqlite3_stmt *st;
	int64_t max_stream = -1, min_stream = 0, distinct = 0, rows = 0;
	int rc = prepare(l, "SELECT coalesce(max(stream), -1), count(DISTINCT stream),"
			    " (SELECT count(*) FROM streams), coalesce(min(stream), 0) FROM chunks", &st);

	if (rc)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		max_stream = sqlite3_column_int64(st, 0);
		distinct = sqlite3_column_int64(st, 1);
		rows = sqlite3_column_int64(st, 2);
		min_stream = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return sqlerr(l, "reading chunk streams");
	if (min_stream < 0)
		max_stream = min_stream; /* never read at all: as damaged */
	if (min_stream < 0 || max_stream >= (rows > distinct ? rows : distinct))
		return mr_error_set(l->err, MR_ECORRUPT,
				    "%s: a chunk row names stream %lld, but the trace has %lld stream%s (streams table) and its chunks %lld: stream ids must be below that; the chunk table is damaged, record or generate the trace again",
				    l->t->path, (long long)max_stream, (long long)rows, rows == 1 ? "" : "s",
				    (long long)distinct);
	return 0;
}

/* ---- pages ---- */

/* Index of cgroup id in the list of cgroups pages are charged to (first-seen order). */
static int add_cgroup(struct load *l, uint32_t id, uint32_t *idx)
{
	if (l->ncg && l->cg_ids[l->cg_last] == id) {
		*idx = l->cg_last;
		return 0;
	}
	for (uint32_t i = 0; i < l->ncg; i++) {
		if (l->cg_ids[i] == id) {
			*idx = l->cg_last = i;
			return 0;
		}
	}
	if (l->ncg == 4096)
		return mr_error_set(l->err, MR_ERANGE, "%s: pages are charged to more than 4096 cgroups; at most 4096 are modelled",
				    l->t->path);
	if (l->ncg == l->capcg) {
		uint32_t cap = l->capcg ? 2 * l->capcg : 16;
		uint32_t *n = realloc(l->cg_ids, cap * sizeof(*n));

		if (!n)
			return mr_error_set(l->err, MR_ENOMEM, "out of memory");
		l->cg_ids = n;
		l->capcg = cap;
	}
	l->cg_ids[l->ncg] = id;
	*idx = l->cg_last = l->ncg++;
	return 0;
}

/* One page row; owner and memcg are remapped to indices after the pass. */
static int page_row(const struct mr_page *p, void *arg)
{
	struct load *l = arg;
	struct rp_image *t = l->t;
	struct rp_page *rp;
	unsigned node = p->node < 0 ? 0 : (unsigned)p->node;
	uint32_t cg;
	int rc;

	if (p->id >= t->nr_pages)
		return mr_error_set(l->err, MR_ECORRUPT,
				    "%s: page id %u, but the pages table has %u rows: page ids must be dense (0 to %u); the trace is damaged, record or generate it again",
				    t->path, p->id, t->nr_pages, t->nr_pages ? t->nr_pages - 1 : 0);
	if (node > 255)
		return mr_error_set(l->err, MR_ECORRUPT, "%s: page %u is on node %u (at most 256 nodes are modelled)",
				    t->path, p->id, node);
	if (node + 1 > t->nodes)
		t->nodes = node + 1;
	rc = add_cgroup(l, p->cgroup, &cg);
	if (rc)
		return rc;
	rp = &t->pages[p->id];
	rp->info = (uint8_t)(p->type | (p->exec ? RP_PAGE_EXEC : 0) | RP_PAGE_VALID);
	rp->node = (uint8_t)node;
	rp->memcg = (uint16_t)cg;
	if (p->type == MR_PAGE_FILE) {
		rp->owner = p->file;
		rp->key = p->index;
		t->nr_file++;
		if (p->file > l->max_file)
			l->max_file = p->file;
	} else {
		rp->owner = p->mm;
		rp->key = p->vpage;
		if (p->type == MR_PAGE_SHMEM)
			t->nr_shmem++;
		else
			t->nr_anon++;
	}
	return 0;
}

static int cmp_by_key(const void *a, const void *b, void *arg)
{
	const uint32_t *key = arg;
	uint32_t x = key[*(const uint32_t *)a], y = key[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* A file page's file is a row of files (as a VMA's is: store_check.c), not an id the
 * image would index arrays with and name nothing. */
static int check_page_files(struct load *l)
{
	struct rp_image *t = l->t;
	uint64_t *row = calloc(t->nr_files / 64 + 1, sizeof(uint64_t));
	sqlite3_stmt *st = NULL;
	int rc;

	if (!row)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	rc = prepare(l, "SELECT id FROM files", &st);
	if (rc) {
		free(row);
		return rc;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id >= 0 && (uint64_t)id < t->nr_files)
			row[id / 64] |= 1ull << (id % 64);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(row);
		return sqlerr(l, "reading files");
	}
	rc = 0;
	for (uint32_t i = 0; !rc && i < t->nr_pages; i++) {
		const struct rp_page *p = &t->pages[i];

		if ((p->info & RP_PAGE_VALID) && rp_page_type(p) == RP_FILE &&
		    !(row[p->owner / 64] & (1ull << (p->owner % 64))))
			rc = mr_error_set(l->err, MR_ECORRUPT, "%s: pages row %u, column file: %u is "
					  "not the id of a row of files; the trace is damaged or was "
					  "not written by memreplay: record or generate it again",
					  t->path, i, p->owner);
	}
	free(row);
	return rc;
}

/* ---- VMAs ---- */

static int cmp_vma(const void *a, const void *b)
{
	const struct rp_image_vma *x = a, *y = b;

	if (x->v.mm != y->v.mm)
		return x->v.mm < y->v.mm ? -1 : 1;
	if (x->v.start != y->v.start)
		return x->v.start < y->v.start ? -1 : 1;
	return x->v.id < y->v.id ? -1 : x->v.id > y->v.id;
}

static int cmp_vma_id(const void *a, const void *b, void *arg)
{
	const struct rp_image *t = arg;
	uint32_t x = t->vmas[*(const uint32_t *)a].v.id;
	uint32_t y = t->vmas[*(const uint32_t *)b].v.id;

	return x < y ? -1 : x > y;
}

static int load_vmas(struct load *l, struct rp_image_vma **out, uint32_t *n)
{
	struct rp_image *t = l->t;
	sqlite3_stmt *st;
	struct rp_image_vma *v = NULL;
	uint32_t cap = 0, k = 0;
	int rc = prepare(l, "SELECT id, coalesce(mm,0), coalesce(start,0), coalesce(\"end\",0),"
			    " coalesce(flags,0), coalesce(file,0), coalesce(pgoff,0),"
			    " coalesce(map_ns,0), coalesce(unmap_ns,0) FROM vmas ORDER BY id", &st);

	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rp_image_vma r = { 0 };
		int64_t id = sqlite3_column_int64(st, 0);
		uint64_t file = (uint64_t)sqlite3_column_int64(st, 5);

		r.v.id = (uint32_t)id;
		r.v.mm = mm_index(l, (uint32_t)sqlite3_column_int64(st, 1));
		r.v.start = (uint64_t)sqlite3_column_int64(st, 2) & ~4095ull;
		r.v.end = ((uint64_t)sqlite3_column_int64(st, 3) + 4095) & ~4095ull;
		r.v.flags = (uint32_t)sqlite3_column_int64(st, 4);
		r.v.pgoff = (uint64_t)sqlite3_column_int64(st, 6);
		r.map_ns = (uint64_t)sqlite3_column_int64(st, 7);
		r.unmap_ns = (uint64_t)sqlite3_column_int64(st, 8);
		/* mr_store_open() refused any row that breaks these (store_check.c): a row
		 * passed over here would leave its pages to derived VMAs and its MAP events
		 * to nothing, without a word */
		if (id <= 0 || id > INT32_MAX || !r.v.mm || r.v.end <= r.v.start || file >= t->nr_files) {
			free(v);
			sqlite3_finalize(st);
			return mr_error_set(l->err, MR_ECORRUPT, "%s: vmas row %lld changed while the trace was open",
					    t->path, (long long)id);
		}
		r.v.file = (uint32_t)file;
		if (!r.v.file)
			r.v.flags &= ~(uint32_t)MR_VMA_FILE;
		if (k == cap) {
			struct rp_image_vma *nv;

			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				sqlite3_finalize(st);
				return mr_error_set(l->err, MR_ENOMEM, "out of memory loading vmas");
			}
			v = nv;
		}
		v[k++] = r;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return sqlerr(l, "reading vmas");
	}
	*out = v;
	*n = k;
	return 0;
}

/* Within an mm's rows [lo, hi) (sorted by start, pmax = prefix maximum of end): does a
 * row cover addr / overlap [s, e)? */
static int rows_cover(const struct rp_image_vma *v, const uint64_t *pmax, uint32_t lo, uint32_t hi,
		      uint64_t s, uint64_t e)
{
	uint32_t x = lo, y = hi;

	while (x < y) { /* first row with start >= e */
		uint32_t mid = (x + y) / 2;

		if (v[mid].v.start < e)
			x = mid + 1;
		else
			y = mid;
	}
	return x > lo && pmax[x - 1] > s;
}

static int push_vma(struct load *l, struct rp_image_vma **vp, uint32_t *np, uint32_t *capp,
		    const struct rp_image_vma *r)
{
	if (*np == *capp) {
		uint32_t cap = *capp ? 2 * *capp : 256;
		struct rp_image_vma *nv = realloc(*vp, cap * sizeof(**vp));

		if (!nv)
			return mr_error_set(l->err, MR_ENOMEM, "out of memory deriving vmas");
		*vp = nv;
		*capp = cap;
	}
	(*vp)[(*np)++] = *r;
	return 0;
}

/* Anonymous VMAs for uncovered anon/shmem pages (see the file comment). */
static int derive_vmas(struct load *l, struct rp_image_vma **vp, uint32_t *np, uint32_t *capp)
{
	struct rp_image *t = l->t;
	const uint32_t *ix = t->anon_index;
	uint32_t rows = *np, next_id = 1;
	uint64_t *pmax = malloc((rows ? rows : 1) * sizeof(*pmax));
	uint32_t mlo = 0, mhi = 0;
	uint64_t a = 0;
	int rc = 0;

	if (!pmax)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory deriving vmas");
	for (uint32_t k = 0; k < rows; k++) {
		const struct rp_image_vma *v = *vp;

		if (v[k].v.id >= next_id)
			next_id = v[k].v.id + 1;
		pmax[k] = (k && v[k - 1].v.mm == v[k].v.mm && pmax[k - 1] > v[k].v.end) ? pmax[k - 1]
										: v[k].v.end;
	}
	while (a < t->nr_anon_index) {
		uint32_t mm = t->pages[ix[a]].owner;
		uint64_t region = t->pages[ix[a]].key >> 9, b = a, first = UINT64_MAX, last = 0;
		const struct rp_image_vma *v = *vp;
		struct rp_image_vma r = { .v.mm = mm, .v.flags = MR_VMA_READ | MR_VMA_WRITE, .derived = 1 };

		while (mlo < rows && v[mlo].v.mm < mm)
			mlo++;
		if (mhi < mlo)
			mhi = mlo;
		while (mhi < rows && v[mhi].v.mm <= mm)
			mhi++;
		while (b < t->nr_anon_index && t->pages[ix[b]].owner == mm &&
		       t->pages[ix[b]].key >> 9 == region)
			b++;
		/* uncovered pages of this region */
		for (uint64_t c = a; c < b; c++) {
			uint64_t k = t->pages[ix[c]].key;

			if (rows_cover(v, pmax, mlo, mhi, k << 12, (k + 1) << 12))
				continue;
			if (first == UINT64_MAX)
				first = c;
			last = c;
		}
		if (first == UINT64_MAX) {
			a = b;
			continue;
		}
		r.v.start = t->pages[ix[first]].key << 12;
		r.v.end = (t->pages[ix[last]].key + 1) << 12;
		if (!rows_cover(v, pmax, mlo, mhi, r.v.start, r.v.end)) {
			r.v.id = next_id++;
			rc = push_vma(l, vp, np, capp, &r);
			if (rc)
				break;
			t->nr_derived++;
			a = b;
			continue;
		}
		/* one VMA per run of consecutive uncovered pages */
		for (uint64_t c = first; c <= last && !rc;) {
			uint64_t k = t->pages[ix[c]].key, e = k + 1, d = c + 1;

			if (rows_cover(*vp, pmax, mlo, mhi, k << 12, (k + 1) << 12)) {
				c++;
				continue;
			}
			while (d <= last && t->pages[ix[d]].key <= e &&
			       !rows_cover(*vp, pmax, mlo, mhi, t->pages[ix[d]].key << 12,
					   (t->pages[ix[d]].key + 1) << 12)) {
				e = t->pages[ix[d]].key + 1;
				d++;
			}
			r.v.start = k << 12;
			r.v.end = e << 12;
			r.v.id = next_id++;
			rc = push_vma(l, vp, np, capp, &r);
			if (!rc)
				t->nr_derived++;
			c = d;
		}
		if (rc)
			break;
		a = b;
	}
	free(pmax);
	return rc;
}

/* Sort ids[0..n) by their page rows' (owner, key, id), through a packed copy so that
 * the sort reads sequential memory instead of the page rows at random (a radix sort:
 * qsort() took a tenth of a million-page trace's load). */
static int sort_pages(const struct rp_page *pages, uint32_t *ids, uint64_t n)
{
	struct mr_sort_key *e;
	int rc;

	if (n < 2)
		return 0;
	e = malloc(n * sizeof(*e));
	if (!e)
		return MR_ENOMEM;
	for (uint64_t i = 0; i < n; i++)
		e[i] = (struct mr_sort_key){ .hi = pages[ids[i]].owner, .lo = pages[ids[i]].key,
					     .id = ids[i] };
	rc = mr_sort_keys(e, n);
	for (uint64_t i = 0; !rc && i < n; i++)
		ids[i] = e[i].id;
	free(e);
	return rc;
}

/* The pages of mapped files by (file, index), for fault-around (replayer/mm.c): a read
 * fault maps the resident neighbours of the faulting page, found here by index. Files no
 * VMA maps (read() only) are left out. */
static int index_mapped_files(struct load *l)
{
	struct rp_image *t = l->t;

	t->nr_file_index = 0;
	t->file_page_off = calloc((size_t)t->nr_files + 1, sizeof(uint32_t));
	t->file_index = malloc(((size_t)t->nr_file + 1) * sizeof(uint32_t));
	if (!t->file_page_off || !t->file_index)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < t->nr_pages; i++) {
		const struct rp_page *p = &t->pages[i];

		if ((p->info & RP_PAGE_VALID) && rp_page_type(p) == RP_FILE && p->owner < t->nr_files &&
		    t->file_vma_off[p->owner + 1] > t->file_vma_off[p->owner] &&
		    t->nr_file_index < t->nr_file)
			t->file_index[t->nr_file_index++] = i;
	}
	if (sort_pages(t->pages, t->file_index, t->nr_file_index))
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint64_t i = 0, f = 0; f <= t->nr_files; f++) {
		while (i < t->nr_file_index && t->pages[t->file_index[i]].owner < f)
			i++;
		t->file_page_off[f] = (uint32_t)i;
	}
	/* The keys side by side (the search of a sparse file), and for a file whose pages
	 * are dense in it (span <= 4 x pages + 64) a direct map from index to page: a
	 * fault's window is then one run of slots, and a machine keeps their residency as
	 * bits side by side, as the page cache's xarray holds them. A sampled image holds
	 * 1 in den of a file's pages, so dense there is span <= 4 x den x pages + 64: the
	 * map costs what the full image's would, and the faults of unsampled pages
	 * (sample.c) look up their windows in it instead of searching (on a randomly read
	 * mapped file the search was half a sampled pass). */
	t->file_key = malloc(((size_t)t->nr_file_index + 1) * sizeof(uint64_t));
	t->fmap_base = malloc(((size_t)t->nr_files + 1) * sizeof(uint64_t));
	t->fmap_kmin = calloc((size_t)t->nr_files + 1, sizeof(uint64_t));
	t->fmap_span = calloc((size_t)t->nr_files + 1, sizeof(uint64_t));
	if (!t->file_key || !t->fmap_base || !t->fmap_kmin || !t->fmap_span)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	t->nr_fmap = 0;
	for (uint32_t i = 0; i < t->nr_file_index; i++)
		t->file_key[i] = t->pages[t->file_index[i]].key;
	for (uint32_t f = 0; f < t->nr_files; f++) {
		uint32_t a = t->file_page_off[f], b = t->file_page_off[f + 1];
		uint64_t span = a < b ? t->file_key[b - 1] - t->file_key[a] + 1 : 0;

		t->fmap_base[f] = UINT64_MAX;
		if (a == b || span > 4 * (uint64_t)(l->sample_den ? l->sample_den : 1) * (b - a) + 64)
			continue;
		t->fmap_base[f] = t->nr_fmap;
		t->fmap_kmin[f] = t->file_key[a];
		t->fmap_span[f] = span;
		t->nr_fmap += span;
	}
	t->fmap = malloc((t->nr_fmap + 1) * sizeof(uint32_t));
	if (!t->fmap)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	memset(t->fmap, 0xff, (t->nr_fmap + 1) * sizeof(uint32_t));
	for (uint32_t f = 0; f < t->nr_files; f++)
		for (uint32_t i = t->file_page_off[f]; t->fmap_base[f] != UINT64_MAX &&
		     i < t->file_page_off[f + 1]; i++)
			t->fmap[t->fmap_base[f] + t->file_key[i] - t->fmap_kmin[f]] = t->file_index[i];
	return 0;
}

/*
 * Once the page tables are sized, the index of a file whose pages fmap maps directly is
 * not read again: keep file_index and file_key for the sparse files alone, the ones
 * fault-around searches (mm.c). A dense mapped file's page then costs its fmap slot (4
 * bytes) instead of 16 (docs/replay.md, "Speed": memory per page).
 */
static void compact_file_index(struct load *l)
{
	struct rp_image *t = l->t;
	uint32_t n = 0;

	for (uint32_t f = 0; f < t->nr_files; f++) {
		uint32_t a = t->file_page_off[f], b = t->file_page_off[f + 1];

		t->file_page_off[f] = n;
		if (t->fmap_base[f] != UINT64_MAX)
			continue;
		for (uint32_t i = a; i < b; i++, n++) {
			t->file_index[n] = t->file_index[i];
			t->file_key[n] = t->file_key[i];
		}
	}
	t->file_page_off[t->nr_files] = n;
	if (n < t->nr_file_index) {
		uint32_t *fi = realloc(t->file_index, ((size_t)n + 1) * sizeof(*fi));
		uint64_t *fk;

		if (fi)
			t->file_index = fi;
		fk = realloc(t->file_key, ((size_t)n + 1) * sizeof(*fk));
		if (fk)
			t->file_key = fk;
		t->nr_file_index = n;
	}
}

/* ---- table sizing ---- */

struct sweep_ev {
	uint64_t t;
	int64_t d;
};

static int cmp_sweep(const void *a, const void *b)
{
	const struct sweep_ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d < y->d ? -1 : x->d > y->d; /* releases first */
}

/* Regions of v holding at least one page it could map. */
static uint64_t vma_regions(const struct rp_image *t, const struct rp_image_vma *v,
			    const uint32_t *fidx, uint64_t nfidx)
{
	uint64_t count = 0, last = UINT64_MAX;

	if (!v->v.file) {
		uint64_t lo = t->mm_anon_off[v->v.mm], hi = t->mm_anon_off[v->v.mm + 1];
		uint64_t k0 = v->v.start >> 12, k1 = v->v.end >> 12;

		while (lo < hi) {
			uint64_t mid = (lo + hi) / 2;

			if (t->pages[t->anon_index[mid]].key < k0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < t->mm_anon_off[v->v.mm + 1]; lo++) {
			uint64_t k = t->pages[t->anon_index[lo]].key;

			if (k >= k1)
				break;
			if (k >> 9 != last) {
				last = k >> 9;
				count++;
			}
		}
	} else {
		uint64_t lo = 0, hi = nfidx, i0 = v->v.pgoff, i1 = v->v.pgoff + ((v->v.end - v->v.start) >> 12);

		while (lo < hi) {
			uint64_t mid = (lo + hi) / 2;
			const struct rp_page *p = &t->pages[fidx[mid]];

			if (p->owner < v->v.file || (p->owner == v->v.file && p->key < i0))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nfidx; lo++) {
			const struct rp_page *p = &t->pages[fidx[lo]];
			uint64_t r;

			if (p->owner != v->v.file || p->key >= i1)
				break;
			r = ((v->v.start >> 12) + (p->key - v->v.pgoff)) >> 9;
			if (r != last) {
				last = r;
				count++;
			}
		}
	}
	return count;
}

static int size_tables(struct load *l)
{
	struct rp_image *t = l->t;
	uint64_t total = 0, peak = 0, cur = 0;
	struct sweep_ev *sw = NULL;
	uint64_t *reg = NULL;
	size_t nsw = 0;
	int rc = 0;

	reg = malloc((t->nr_vmas ? t->nr_vmas : 1) * sizeof(*reg));
	sw = malloc((t->nr_vmas ? 2 * (size_t)t->nr_vmas : 1) * sizeof(*sw));
	if (!reg || !sw) {
		rc = mr_error_set(l->err, MR_ENOMEM, "out of memory sizing page tables");
		goto out;
	}
	for (uint32_t k = 0; k < t->nr_vmas; k++) {
		struct rp_image_vma *v = &t->vmas[k];
		uint64_t r = vma_regions(t, v, t->file_index, t->nr_file_index);

		reg[k] = r;
		total += r;
		if (t->mm_tables[v->v.mm] + r > UINT32_MAX / 2)
			t->mm_tables[v->v.mm] = UINT32_MAX / 2;
		else
			t->mm_tables[v->v.mm] += (uint32_t)r;
		if (!r)
			continue;
		sw[nsw++] = (struct sweep_ev){ v->derived ? 0 : v->map_ns, (int64_t)r };
		if (!v->derived && v->unmap_ns > v->map_ns)
			sw[nsw++] = (struct sweep_ev){ v->unmap_ns, -(int64_t)r };
	}
	if (nsw)
		qsort(sw, nsw, sizeof(*sw), cmp_sweep);
	for (size_t i = 0; i < nsw; i++) {
		cur += (uint64_t)sw[i].d;
		if (cur > peak)
			peak = cur;
	}
	t->pool_tables = peak < total ? peak : total;
	if (!t->pool_tables)
		t->pool_tables = 1;
out:
	free(reg);
	free(sw);
	return rc;
}

/* ---- main ---- */

/*
 * The trace identity (rp_image.identity): the chunk rows (hash_chunks()), then the table
 * sizes, the identity of what a replay reads. All of them the full trace's, and set
 * before a sampled image drops pages: a sampled image is still this trace, and the
 * sampling choice's cache file is named by it (pagerefs.c). vma_rows: the vmas table's
 * rows (load_vmas() takes every one or fails), the image's VMAs less the derived ones.
 */
static void set_identity(struct load *l, uint64_t vma_rows)
{
	struct rp_image *t = l->t;
	uint8_t d[32];

	hash_u64(l, t->nr_pages_full);
	hash_u64(l, t->nr_anon);
	hash_u64(l, t->nr_file);
	hash_u64(l, t->nr_shmem);
	hash_u64(l, vma_rows);
	hash_u64(l, t->nr_tasks);
	hash_u64(l, t->nr_mms);
	hash_u64(l, t->nr_files);
	hash_u64(l, t->nr_memcgs);
	rp_sha256_final(&l->sha, d);
	memcpy(t->identity, "sha256:", 7);
	for (int i = 0; i < 32; i++)
		snprintf(t->identity + 7 + 2 * i, 3, "%02x", d[i]);
}

/*
 * A sampled image (mr_replay.h, "Sampled replay"): keep the page rows of the sampled
 * regions (and those without a row, which the machines count as bad), renumbered in
 * order, before anything is indexed by page id. Order is kept, so a run of consecutive
 * sampled trace ids stays one of consecutive image ids (sample.c cuts ranges into such
 * runs). sample.c chooses the regions (rp_sample_choose()).
 */
static int cmp_cow(const void *a, const void *b)
{
	const struct rp_sample_cow *x = a, *y = b;

	if (x->mm != y->mm)
		return x->mm < y->mm ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->pgoff < y->pgoff ? -1 : x->pgoff > y->pgoff;
}

/* The private file mappings, by (mm, start): where anonymous pages are copy-on-write
 * copies of file pages (sample.c, mark_cow_breaks()). From the vmas rows, which are
 * kept for the image's VMAs (l->vma_rows). */
static int load_cow(struct load *l, struct rp_sample_cow **out, uint32_t *n)
{
	struct rp_image_vma *v = NULL;
	struct rp_sample_cow *c;
	uint32_t nv = 0, k = 0;
	int rc = load_vmas(l, &v, &nv);

	*out = NULL;
	*n = 0;
	if (rc)
		return rc;
	c = malloc((nv ? nv : 1) * sizeof(*c));
	if (!c) {
		free(v);
		return mr_error_set(l->err, MR_ENOMEM, "out of memory loading vmas");
	}
	for (uint32_t i = 0; i < nv; i++)
		if (v[i].v.file && !(v[i].v.flags & MR_VMA_SHARED))
			c[k++] = (struct rp_sample_cow){ .start = v[i].v.start >> 12,
							 .end = v[i].v.end >> 12,
							 .pgoff = v[i].v.pgoff, .mm = v[i].v.mm,
							 .file = v[i].v.file };
	l->vma_rows = v;
	l->nvma_rows = nv;
	if (k)
		qsort(c, k, sizeof(*c), cmp_cow);
	*out = c;
	*n = k;
	return 0;
}

static int sample_pages(struct load *l)
{
	struct rp_image *t = l->t;
	uint8_t *keep = malloc((size_t)t->nr_pages + 1);
	struct rp_sample_cow *cow = NULL;
	uint64_t *cow_break = calloc(((size_t)t->nr_pages + 63) / 64 + 1, sizeof(uint64_t));
	uint32_t k = 0, ncow = 0, ncow_pages = 0, words;
	int rc;

	t->sample_keep = calloc(((size_t)t->nr_pages + 63) / 64 + 1, sizeof(uint64_t));
	if (!t->sample_keep || !keep || !cow_break) {
		free(keep);
		free(cow_break);
		return mr_error_set(l->err, MR_ENOMEM, "out of memory for the sampled pages");
	}
	/* sample.c chooses the regions */
	rc = load_cow(l, &cow, &ncow);
	if (!rc)
		rc = rp_sample_choose(t, l->sample_den, l->sample_seed, l->sample_unit, l->cache_dir,
				      cow, ncow, keep, cow_break, l->err);
	free(cow);
	if (rc) {
		free(keep);
		free(cow_break);
		return rc;
	}
	/* the copies to unmap for, by trace id: the bitmap, a rank per word, an entry each
	 * (filled below, before the rows are renumbered over) */
	words = (uint32_t)(((uint64_t)t->nr_pages + 63) / 64);
	for (uint32_t w = 0; w < words; w++)
		ncow_pages += (uint32_t)__builtin_popcountll(cow_break[w]);
	if (ncow_pages) {
		t->sample_cow_rank = malloc(((size_t)words + 1) * sizeof(uint32_t));
		t->sample_cow = malloc((size_t)ncow_pages * sizeof(*t->sample_cow));
		if (!t->sample_cow_rank || !t->sample_cow) {
			free(keep);
			free(cow_break);
			return mr_error_set(l->err, MR_ENOMEM, "out of memory for the sampled pages");
		}
		rp_bits_rank_build(cow_break, words, t->sample_cow_rank);
		t->sample_cow_bits = cow_break;
	} else {
		free(cow_break);
	}
	for (uint32_t i = 0; i < t->nr_pages; i++)
		k += keep[i];
	t->sample_ids = malloc(((size_t)k + 1) * sizeof(*t->sample_ids));
	if (!t->sample_ids) {
		free(keep);
		return mr_error_set(l->err, MR_ENOMEM, "out of memory for the sampled pages");
	}
	k = 0;
	for (uint32_t i = 0; i < t->nr_pages; i++) {
		const struct rp_page *p = &t->pages[i];

		if (!keep[i] && (p->info & RP_PAGE_VALID) && rp_page_type(p) == RP_FILE && p->owner) {
			if (!t->sample_fpage) {
				t->sample_fpage = calloc((size_t)t->nr_pages, sizeof(*t->sample_fpage));
				if (!t->sample_fpage) {
					free(keep);
					return mr_error_set(l->err, MR_ENOMEM,
							    "out of memory for the sampled pages");
				}
			}
			t->sample_fpage[i].key = p->key;
			t->sample_fpage[i].file = p->owner;
		}
		if (t->sample_cow_bits && (t->sample_cow_bits[i / 64] >> (i % 64) & 1))
			t->sample_cow[t->nr_sample_cow++] = (struct rp_sample_cowpg){
				.vpn = p->key, .mm = p->owner };
		if (p->info & RP_PAGE_VALID) {
			t->sample_valid++;
			t->sample_kept += keep[i];
		}
		if (keep[i]) {
			t->sample_keep[i / 64] |= 1ull << (i % 64);
			t->sample_ids[k] = i;
			t->pages[k++] = *p;
		}
	}
	t->nr_pages = k;
	free(keep);
	return 0;
}

static int load_all(struct load *l)
{
	struct rp_image *t = l->t;
	struct mr_store_summary sum;
	char buf[64];
	uint64_t mx, vma_rows;
	sqlite3_stmt *st;
	uint32_t *tmp = NULL, ntmp = 0, capv = 0;
	struct rp_image_vma *v = NULL;
	uint32_t nv = 0;
	uint8_t *has_row;
	int rc;

	rc = mr_store_summarize_chunks(l->s, &sum, l->err);
	if (rc)
		return rc;
	if (sum.n_chunks && (sum.t_first > RP_TIME_MAX || sum.t_last > RP_TIME_MAX))
		return mr_error_set(l->err, MR_ECORRUPT,
				    "%s: a chunk row's time range ends at %llu ns, beyond 2^63 - 1 ns (292 years): the chunk table is damaged; record or generate the trace again",
				    t->path,
				    (unsigned long long)(sum.t_last > RP_TIME_MAX ? sum.t_last : sum.t_first));
	t->n_events = sum.n_events;
	t->n_chunks = sum.n_chunks;
	t->t_first = sum.t_first;
	t->t_last = sum.t_last;
	memcpy(t->by_kind, sum.by_kind, sizeof(t->by_kind));
	t->nodes = 1;
	if (!mr_store_meta_get(l->s, "nodes", buf, sizeof(buf), NULL)) {
		long n = strtol(buf, NULL, 10);

		if (n >= 1 && n <= 256)
			t->nodes = (uint32_t)n;
	}
	/* a recorder that holds page-cache inserts until their fault says so (docs/record.md,
	 * "Inserts in a fault come after the fault"); older traces and the generators name
	 * a fault's own inserts before it */
	t->inserts_after_fault = !mr_store_meta_get(l->s, "pagecache.inserts_held", buf, sizeof(buf), NULL);
	if (!mr_store_meta_get(l->s, "fault_around_bytes", buf, sizeof(buf), NULL))
		t->fault_around_bytes = strtoull(buf, NULL, 10); /* not a number: 0, the default */
	/* the recorder's swap.* and cgroup.memory.* rows (recorder/meta.c); a value that is
	 * not a number is as if not recorded */
	if (!mr_store_meta_get(l->s, "swap.total_bytes", buf, sizeof(buf), NULL) &&
	    buf[0] >= '0' && buf[0] <= '9') {
		t->host_swap_known = 1;
		t->host_swap_bytes = strtoull(buf, NULL, 10);
	}
	if (!mr_store_meta_get(l->s, "swap.kind", buf, sizeof(buf), NULL))
		snprintf(t->host_swap_kind, sizeof(t->host_swap_kind), "%.15s", buf);
	if (!mr_store_meta_get(l->s, "cgroup.memory.max", buf, sizeof(buf), NULL)) {
		if (!strcmp(buf, "max"))
			t->host_memcg_max = UINT64_MAX;
		else if (buf[0] >= '0' && buf[0] <= '9')
			t->host_memcg_max = strtoull(buf, NULL, 10);
	}
	rc = check_streams(l);
	if (rc)
		return rc;
	rp_sha256_init(&l->sha);
	rp_sha256_update(&l->sha, "memreplay trace identity v1", 27);
	rc = hash_chunks(l);
	if (rc)
		return rc;

	/*
	 * pages, in one pass: owners and cgroups as the store names them, remapped below.
	 * Every per-page array of every machine is sized from this count, so it is the
	 * number of rows, never the largest id: one row with id 10^9 would otherwise cost
	 * each machine tens of gigabytes. Ids are dense (0 .. rows - 1); page_row() refuses
	 * any id at or beyond the count.
	 */
	rc = max_id(l, "SELECT count(*) FROM pages", &mx);
	if (rc)
		return rc;
	if (mx >= MR_PAGE_NONE)
		return mr_error_set(l->err, MR_ECORRUPT, "%s: more than 2^32 - 1 page rows", t->path);
	t->nr_pages = (uint32_t)mx;
	t->pages = mr_big_alloc((size_t)t->nr_pages * sizeof(*t->pages));
	if (!t->pages)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory for %u page rows", t->nr_pages);
	rc = mr_store_pages_foreach(l->s, page_row, l, l->err);
	if (rc)
		return rc;

	/* memcgs: the cgroups pages are charged to, in id order */
	if (!l->ncg) {
		rc = add_cgroup(l, 0, &ntmp);
		if (rc)
			return rc;
	}
	{
		uint32_t *order = malloc(l->ncg * sizeof(uint32_t));
		uint16_t *remap = malloc(l->ncg * sizeof(uint16_t));

		if (!order || !remap) {
			free(order);
			free(remap);
			return mr_error_set(l->err, MR_ENOMEM, "out of memory");
		}
		for (uint32_t i = 0; i < l->ncg; i++)
			order[i] = i;
		qsort_r(order, l->ncg, sizeof(uint32_t), cmp_by_key, l->cg_ids);
		for (uint32_t i = 0; i < l->ncg; i++)
			remap[order[i]] = (uint16_t)i;
		for (uint32_t i = 0; i < t->nr_pages; i++)
			t->pages[i].memcg = remap[t->pages[i].memcg];
		for (uint32_t i = 0; i < l->ncg; i++)
			order[i] = l->cg_ids[order[i]];
		memcpy(l->cg_ids, order, l->ncg * sizeof(uint32_t));
		free(order);
		free(remap);
	}
	t->nr_memcgs = l->ncg;
	t->memcgs = calloc(t->nr_memcgs, sizeof(*t->memcgs));
	if (!t->memcgs)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < l->ncg; i++) {
		t->memcgs[i].cgroup = l->cg_ids[i];
		snprintf(t->memcgs[i].path, sizeof(t->memcgs[i].path), "%s", l->cg_ids[i] ? "?" : "/");
	}
	/* which memcgs the cgroups table has a row of */
	has_row = calloc(t->nr_memcgs, 1);
	if (!has_row)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	rc = prepare(l, "SELECT id, coalesce(path,''), coalesce(memory_max,0) FROM cgroups ORDER BY id",
		     &st);
	if (rc) {
		free(has_row);
		return rc;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint32_t *p = find_u32(l->cg_ids, l->ncg, (uint32_t)sqlite3_column_int64(st, 0));
		const unsigned char *path = sqlite3_column_text(st, 1);
		int64_t max = sqlite3_column_int64(st, 2);

		if (p)
			has_row[p - l->cg_ids] = 1;
		if (p && path && *path)
			snprintf(t->memcgs[p - l->cg_ids].path, sizeof(t->memcgs[0].path), "%s",
				 (const char *)path);
		if (p && max > 0)
			t->memcgs[p - l->cg_ids].memory_max = (uint64_t)max;
		if (!p && max >= 4096 && !t->nr_unpaged_limited++) {
			t->unpaged.cgroup = (uint32_t)sqlite3_column_int64(st, 0);
			t->unpaged.memory_max = (uint64_t)max;
			snprintf(t->unpaged.path, sizeof(t->unpaged.path), "%s",
				 path ? (const char *)path : "");
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(has_row);
		return sqlerr(l, "reading cgroups");
	}
	/* a page charged to a cgroup the trace has no row of (as tasks and vmas name only
	 * rows of theirs): refused, not modelled as a memcg of unknown path */
	for (uint32_t i = 0; i < t->nr_memcgs; i++) {
		if (t->memcgs[i].cgroup && !has_row[i]) {
			uint32_t page = 0;

			while (page < t->nr_pages && t->pages[page].memcg != i)
				page++;
			free(has_row);
			return mr_error_set(l->err, MR_ECORRUPT, "%s: pages row %u, column cgroup: %u "
					    "is neither 0 (none) nor the id of a row of cgroups; the "
					    "trace is damaged or was not written by memreplay: record "
					    "or generate it again", t->path, page, t->memcgs[i].cgroup);
		}
	}
	free(has_row);
	if (t->nodes * t->nr_memcgs > 65535)
		return mr_error_set(l->err, MR_ERANGE, "%s: %u nodes x %u memcgs is too many lruvecs",
				    t->path, t->nodes, t->nr_memcgs);

	/* mms: every id named anywhere (pages' owners are still store ids here) */
	rc = id_list(l, "SELECT id FROM mms UNION SELECT mm FROM tasks UNION SELECT mm FROM vmas",
		     &l->mm_ids, &l->nmm_ids, 0);
	if (rc)
		return rc;
	{
		uint32_t *extra = NULL, nextra = 0, cap = 0, last = 0;

		for (uint32_t i = 0; i < t->nr_pages; i++) {
			const struct rp_page *p = &t->pages[i];
			uint32_t *ne;

			if (!(p->info & RP_PAGE_VALID) || rp_page_type(p) == RP_FILE || !p->owner ||
			    p->owner == last || find_u32(l->mm_ids, l->nmm_ids, p->owner))
				continue;
			last = p->owner;
			if (nextra == cap) {
				cap = cap ? 2 * cap : 64;
				ne = realloc(extra, cap * sizeof(*ne));
				if (!ne) {
					free(extra);
					return mr_error_set(l->err, MR_ENOMEM, "out of memory");
				}
				extra = ne;
			}
			extra[nextra++] = p->owner;
		}
		if (nextra) {
			uint32_t *all = realloc(l->mm_ids, (l->nmm_ids + nextra) * sizeof(uint32_t)), j = 0;

			if (!all) {
				free(extra);
				return mr_error_set(l->err, MR_ENOMEM, "out of memory");
			}
			memcpy(all + l->nmm_ids, extra, nextra * sizeof(uint32_t));
			qsort(all, l->nmm_ids + nextra, sizeof(uint32_t), cmp_u32);
			for (uint32_t i = 0; i < l->nmm_ids + nextra; i++)
				if (!j || all[j - 1] != all[i])
					all[j++] = all[i];
			l->mm_ids = all;
			l->nmm_ids = j;
		}
		free(extra);
	}
	for (uint32_t i = 0; i < t->nr_pages; i++) {
		struct rp_page *p = &t->pages[i];

		if ((p->info & RP_PAGE_VALID) && rp_page_type(p) != RP_FILE)
			p->owner = mm_index(l, p->owner);
	}
	t->nr_mms = l->nmm_ids + 1;
	t->mm_store_id = calloc(t->nr_mms, sizeof(uint32_t));
	t->mm_tasks = calloc(t->nr_mms, sizeof(uint32_t));
	t->mm_tables = calloc(t->nr_mms, sizeof(uint32_t));
	t->mm_vma_off = calloc(t->nr_mms + 1, sizeof(uint32_t));
	t->mm_anon_off = calloc(t->nr_mms + 1, sizeof(uint32_t));
	t->mm_memcg = calloc(t->nr_mms, sizeof(uint16_t));
	l->mm_first_cg = calloc(t->nr_mms, sizeof(uint32_t));
	if (!t->mm_store_id || !t->mm_tasks || !t->mm_tables || !t->mm_vma_off || !t->mm_anon_off ||
	    !t->mm_memcg || !l->mm_first_cg)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < l->nmm_ids; i++)
		t->mm_store_id[i + 1] = l->mm_ids[i];

	/* tasks */
	rc = max_id(l, "SELECT max(id) FROM tasks", &mx);
	if (rc)
		return rc;
	if (mx >= RP_MAX_DENSE_ID)
		return mr_error_set(l->err, MR_ECORRUPT, "%s: task id %llu is too large (task ids must be dense)",
				    t->path, (unsigned long long)mx);
	t->nr_tasks = (uint32_t)mx + 1;
	t->task_mm = calloc(t->nr_tasks, sizeof(uint32_t));
	if (!t->task_mm)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	rc = prepare(l, "SELECT id, coalesce(mm,0), coalesce(cgroup,0) FROM tasks ORDER BY id", &st);
	if (rc)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		uint32_t mm = mm_index(l, (uint32_t)sqlite3_column_int64(st, 1));

		if (id <= 0 || (uint64_t)id >= t->nr_tasks) { /* checked on open (store_check.c) */
			sqlite3_finalize(st);
			return mr_error_set(l->err, MR_ECORRUPT, "%s: tasks row %lld changed while the trace was open",
					    t->path, (long long)id);
		}
		t->task_mm[id] = mm;
		if (mm && ++t->mm_tasks[mm] == 1)
			l->mm_first_cg[mm] = (uint32_t)sqlite3_column_int64(st, 2) + 1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlerr(l, "reading tasks");

	/* files: ids index arrays (pages' largest is known from the pass) */
	rc = max_id(l, "SELECT max(m) FROM (SELECT max(id) AS m FROM files UNION ALL"
		       " SELECT max(file) FROM vmas)", &mx);
	if (rc)
		return rc;
	if (l->max_file > mx)
		mx = l->max_file;
	if (mx >= RP_MAX_DENSE_ID)
		return mr_error_set(l->err, MR_ECORRUPT, "%s: file id %llu is too large (file ids must be dense)",
				    t->path, (unsigned long long)mx);
	t->nr_files = (uint32_t)mx + 1;
	rc = check_page_files(l);
	if (rc)
		return rc;

	/* every table size the identity holds is known: the identity, then the sample */
	t->nr_pages_full = t->nr_pages;
	rc = max_id(l, "SELECT count(*) FROM vmas", &vma_rows);
	if (rc)
		return rc;
	set_identity(l, vma_rows);
	if (l->sample_den) {
		rc = sample_pages(l);
		if (rc)
			return rc;
	}

	/* anon index by (mm, vpage) */
	t->nr_anon_index = 0;
	t->anon_index = malloc(((size_t)t->nr_anon + t->nr_shmem + 1) * sizeof(uint32_t));
	if (!t->anon_index)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < t->nr_pages; i++) {
		const struct rp_page *p = &t->pages[i];

		if ((p->info & RP_PAGE_VALID) && rp_page_type(p) != RP_FILE && p->owner)
			t->anon_index[t->nr_anon_index++] = i;
	}
	if (sort_pages(t->pages, t->anon_index, t->nr_anon_index))
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint64_t i = 0, mm = 0; mm <= t->nr_mms; mm++) {
		while (i < t->nr_anon_index && t->pages[t->anon_index[i]].owner < mm)
			i++;
		t->mm_anon_off[mm] = (uint32_t)i;
	}
	/* an mm belongs to the memcg of its first task, else of its first page */
	for (uint32_t mm = 1; mm < t->nr_mms; mm++) {
		uint32_t *cg = l->mm_first_cg[mm] ? find_u32(l->cg_ids, l->ncg, l->mm_first_cg[mm] - 1)
						  : NULL;

		if (cg)
			t->mm_memcg[mm] = (uint16_t)(cg - l->cg_ids);
		else if (t->mm_anon_off[mm] < t->mm_anon_off[mm + 1])
			t->mm_memcg[mm] = t->pages[t->anon_index[t->mm_anon_off[mm]]].memcg;
	}

	/* vmas: rows, then derived */
	if (l->vma_rows) { /* read for the sample already */
		rc = 0;
		v = l->vma_rows;
		nv = l->nvma_rows;
		l->vma_rows = NULL;
	} else {
		rc = load_vmas(l, &v, &nv);
	}
	if (rc)
		return rc;
	if (nv != vma_rows) { /* the rows the identity counted */
		free(v);
		return mr_error_set(l->err, MR_ECORRUPT, "%s: the vmas table changed while the trace was open",
				    t->path);
	}
	capv = nv;
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_vma);
	rc = derive_vmas(l, &v, &nv, &capv);
	if (rc) {
		free(v);
		return rc;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), cmp_vma);
	t->vmas = v;
	t->nr_vmas = nv;
	for (uint32_t k = 0, mm = 0; mm <= t->nr_mms; mm++) {
		while (k < nv && v[k].v.mm < mm)
			k++;
		t->mm_vma_off[mm] = k;
	}
	t->vma_by_id = malloc((nv ? nv : 1) * sizeof(uint32_t));
	t->file_vma_off = calloc((size_t)t->nr_files + 1, sizeof(uint32_t));
	t->file_vmas = malloc((nv ? nv : 1) * sizeof(uint32_t));
	if (!t->vma_by_id || !t->file_vma_off || !t->file_vmas)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint32_t k = 0; k < nv; k++)
		t->vma_by_id[k] = k;
	if (nv)
		qsort_r(t->vma_by_id, nv, sizeof(uint32_t), cmp_vma_id, t);
	/* MAP and UNMAP events name a VMA by id, and every machine of a pass looks each one
	 * up: a direct map when the ids are dense, as the recorder's and the generators'
	 * are (1..n, derived ones after), where the binary search was a chain of misses
	 * (4 % of a 48-machine sampled pass over traces/default.db, 8146 VMAs) */
	if (nv && t->vmas[t->vma_by_id[nv - 1]].v.id <= 4 * (uint64_t)nv + 1024) {
		t->nr_vma_ids = t->vmas[t->vma_by_id[nv - 1]].v.id + 1;
		t->vma_of_id = malloc((size_t)t->nr_vma_ids * sizeof(uint32_t));
		if (!t->vma_of_id)
			return mr_error_set(l->err, MR_ENOMEM, "out of memory");
		memset(t->vma_of_id, 0xff, (size_t)t->nr_vma_ids * sizeof(uint32_t));
		/* the first of equal ids by the sort, as the binary search may find any */
		for (uint32_t k = nv; k-- > 0;)
			t->vma_of_id[t->vmas[t->vma_by_id[k]].v.id] = t->vma_by_id[k];
	}
	for (uint32_t k = 0; k < nv; k++)
		if (v[k].v.file)
			t->file_vma_off[v[k].v.file + 1]++;
	for (uint32_t f = 0; f < t->nr_files; f++)
		t->file_vma_off[f + 1] += t->file_vma_off[f];
	tmp = calloc(t->nr_files ? t->nr_files : 1, sizeof(uint32_t));
	if (!tmp)
		return mr_error_set(l->err, MR_ENOMEM, "out of memory");
	for (uint32_t k = 0; k < nv; k++)
		if (v[k].v.file)
			t->file_vmas[t->file_vma_off[v[k].v.file] + tmp[v[k].v.file]++] = k;
	free(tmp);
	(void)ntmp;
	rc = index_mapped_files(l);
	if (rc)
		return rc;

	rc = size_tables(l);
	if (rc)
		return rc;
	compact_file_index(l);
	return 0;
}

int rp_image_load(const char *path, struct rp_image **out, struct mr_error *err)
{
	return rp_image_load_sampled(path, 0, 0, 0, NULL, out, err);
}

int rp_image_load_sampled(const char *path, uint32_t den, uint64_t seed, uint32_t unit,
			  const char *cache_dir, struct rp_image **out, struct mr_error *err)
{
	struct load l = { .err = err, .sample_den = den, .sample_seed = seed,
			  .sample_unit = unit ? unit : MR_REPLAY_SAMPLE_UNIT,
			  .cache_dir = cache_dir };
	struct rp_image *t;
	int rc;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	snprintf(t->path, sizeof(t->path), "%s", path);
	l.t = t;
	rc = mr_store_open(path, MR_STORE_RDONLY, &l.s, err);
	if (!rc)
		rc = load_all(&l);
	mr_store_close(l.s);
	free(l.mm_ids);
	free(l.cg_ids);
	free(l.mm_first_cg);
	free(l.vma_rows);
	if (rc) {
		rp_image_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void rp_image_free(struct rp_image *t)
{
	if (!t)
		return;
	/* as allocated: a sampled image keeps fewer rows in the same block */
	mr_big_free(t->pages, (size_t)(t->nr_pages_full ? t->nr_pages_full : t->nr_pages) *
				      sizeof(*t->pages));
	free(t->sample_keep);
	free(t->sample_ids);
	free(t->sample_fpage);
	free(t->sample_cow);
	free(t->sample_cow_bits);
	free(t->sample_cow_rank);
	free(t->vmas);
	free(t->vma_by_id);
	free(t->vma_of_id);
	free(t->mm_store_id);
	free(t->mm_vma_off);
	free(t->mm_tasks);
	free(t->mm_tables);
	free(t->mm_anon_off);
	free(t->mm_memcg);
	free(t->file_vma_off);
	free(t->file_vmas);
	free(t->file_page_off);
	free(t->file_index);
	free(t->file_key);
	free(t->fmap_base);
	free(t->fmap_kmin);
	free(t->fmap_span);
	free(t->fmap);
	free(t->task_mm);
	free(t->anon_index);
	free(t->memcgs);
	free(t);
}

int rp_image_memcg_index(const struct rp_image *t, uint32_t cgroup)
{
	for (uint32_t i = 0; i < t->nr_memcgs; i++)
		if (t->memcgs[i].cgroup == cgroup)
			return (int)i;
	return -1;
}

uint32_t rp_image_vma_by_id(const struct rp_image *t, uint32_t id)
{
	uint32_t lo = 0, hi = t->nr_vmas;

	if (t->vma_of_id)
		return id < t->nr_vma_ids ? t->vma_of_id[id] : UINT32_MAX;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		uint32_t x = t->vmas[t->vma_by_id[mid]].v.id;

		if (x == id)
			return t->vma_by_id[mid];
		if (x < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}
