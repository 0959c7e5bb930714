// SPDX-License-Identifier: GPL-2.0
/*
 * sample.c - the sampled replay's filter (mr_replay.h, "Sampled replay"; docs/replay.md):
 * which pages are sampled, and the decoder's pass that keeps only their events, once for
 * all the machines of a replay.
 *
 * Pages are chosen by unit: one page by default, as SHARDS samples keys, or a run of up
 * to 512 (--sample-unit 2M: one PTE table's, so that fault-around, readahead windows,
 * mglru's look-around (lru_gen_look_around(), one PMD's PTEs) and its Bloom filter
 * entries (one per PMD) see their neighbours as in the full replay). Measured on the
 * shipped traces, single pages give the smaller error: a trace holds 16 to 500 times
 * more pages than regions, and a sample of a few dozen regions strays more than the
 * neighbours it loses cost (docs/replay.md, "Which pages").
 *
 * The pass reads the trace into a stage of RP_SAMPLE_STAGE events and copies the kept
 * ones into the caller's batch; a range event over sampled and unsampled pages becomes
 * one event per run of sampled pages (PC_INSERT/PC_DELETE one per page, order 0, since a
 * run need not be a folio's size). Where the batch fills in the middle of a range, the
 * rest of it waits in the stage for the next batch. The image holds only the sampled
 * pages, renumbered in order (image.c, sample_pages()), so page ids are renamed on the
 * way: a run of consecutive trace ids is one of image ids. One event of an unsampled page
 * is kept in another form: a read fault of a file page through a mapping becomes
 * RP_EV_FAULT_AROUND, since its fault-around maps the sampled pages of its window
 * (without it, a sampled page that the full replay maps by its neighbours' faults, as
 * most pages of a file read through a mapping are, was never mapped: on a sequential
 * mapped-file loop the sampled machines mapped 1/33 of what the full one did, times the
 * rate). And the first event of an unsampled anonymous page that copies a sampled file
 * page (a private file mapping's copy-on-write, image.c load_cow(), mark_cow_breaks()
 * below) becomes RP_EV_COW_BREAK: where the full replay maps the copy, the copy's PTE
 * replaces the file page's, so the sampled machines unmap the file page there (on
 * cow.db, left mapped and young, mglru kept it and aged the anonymous pages out: it
 * fitted 25-60 % later than in full). Nothing here allocates per event:
 * the stage is sized at init, the next-use buffers grow only when a batch needs more.
 */
#include <stdlib.h>
#include <string.h>

#include "mr_replay.h"
#include "rp_int.h"
#include "mr_policy.h" /* mr_prefetchw() */
#include "mr_util.h"


uint64_t mr_replay_sample_hash(uint64_t seed, unsigned kind, uint64_t owner, uint64_t region)
{
	return rp_sample_hash(seed, kind, owner, region);
}

uint64_t rp_sample_hash(uint64_t seed, unsigned kind, uint64_t owner, uint64_t region)
{
	uint64_t h = mr_mix64(seed + 0x9e3779b97f4a7c15ull);

	h = mr_mix64(h ^ ((uint64_t)kind << 56) ^ 0x736d706cull);
	h = mr_mix64(h ^ owner);
	return mr_mix64(h ^ region);
}

int mr_replay_parse_sample(const char *arg, uint32_t *den, struct mr_error *err)
{
	unsigned long long n = 0;
	const char *p = arg;

	/* one syntax, 1/N: a rate as a fraction of regions, never a bare number that could
	 * be read as a percentage or a count */
	if (p[0] == '1' && p[1] == '/') {
		p += 2;
		while (*p >= '0' && *p <= '9' && n <= MR_REPLAY_MAX_SAMPLE_DEN)
			n = n * 10 + (unsigned)(*p++ - '0');
		if (!*p && p > arg + 2 && n >= 1 && n <= MR_REPLAY_MAX_SAMPLE_DEN) {
			*den = (uint32_t)n;
			return 0;
		}
	}
	return mr_error_set(err, MR_EINVAL,
			    "--sample '%s': give the rate as 1/N, N a whole number from 1 to %d "
			    "(1/16 keeps one page in 16 of each rank of heat)",
			    arg, MR_REPLAY_MAX_SAMPLE_DEN);
}

int mr_replay_parse_sample_unit(const char *arg, uint32_t *pages, struct mr_error *err)
{
	uint64_t pg;
	struct mr_error perr = { 0 };

	/* what is sampled whole: a page up to one PTE table's 2 MiB */
	if (mr_parse_pages(arg, MR_PAGE_SIZE, 0, &pg, &perr) || !pg || pg > 512 || (pg & (pg - 1)) ||
	    !mr_size_whole_pages(arg, MR_PAGE_SIZE))
		return mr_error_set(err, MR_EINVAL,
				    "--sample-unit '%s': give a power of two from 4K (a page) to 2M "
				    "(one PTE table's pages), a size with its unit (K, M) or a count of "
				    "4 KiB pages (1 to 512)", arg);
	*pages = (uint32_t)pg;
	return 0;
}

int rp_sample_init(struct rp_sample *s, const struct rp_image *t, uint32_t den, uint64_t seed,
		   uint32_t fault_around, struct mr_error *err)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	s->fault_around = fault_around;
	s->den = den;
	s->seed = seed;
	if (!t->sample_keep)
		return mr_error_set(err, MR_EINVAL, "sampling 1/%u: the trace image was not loaded sampled", den);
	/* the image chose the pages (image.c, sample_pages()); events name trace ids */
	s->nr_pages = t->nr_pages_full;
	s->keep = t->sample_keep;
	s->fpage = t->sample_fpage;
	s->kept = t->sample_kept;
	s->valid = t->sample_valid;
	s->scale_num = s->kept;
	s->scale_den = s->valid ? s->valid : 1;
	if (t->sample_stat.live && t->sample_stat.live_kept) {
		s->scale_num = t->sample_stat.live_kept;
		s->scale_den = t->sample_stat.live;
	}
	s->keep_rank = malloc(((s->nr_pages + 63) / 64 + 1) * sizeof(uint32_t));
	s->seen = calloc(((size_t)t->nr_pages + 63) / 64 + 1, sizeof(uint64_t));
	s->stage = malloc(RP_SAMPLE_STAGE * sizeof(*s->stage));
	if (t->nr_sample_cow)
		s->cow_done = calloc(((size_t)t->nr_sample_cow + 63) / 64, sizeof(uint64_t));
	if (!s->keep_rank || !s->seen || !s->stage || (t->nr_sample_cow && !s->cow_done)) {
		rp_sample_free(s);
		return mr_error_set(err, MR_ENOMEM, "out of memory for the sampled pages");
	}
	/* the image numbers the sampled pages in order (image.c, sample_pages()), so a
	 * page's id is the count of sampled pages before it: the bitmap and these counts
	 * stay in the cache where a map of 4 bytes a trace page was a miss per event */
	rp_bits_rank_build(s->keep, (s->nr_pages + 63) / 64, s->keep_rank);
	return 0;
}

void rp_sample_free(struct rp_sample *s)
{
	free(s->keep_rank);
	free(s->seen);
	free(s->stage);
	free(s->stage_nu);
	free(s->cow_done);
	s->cow_done = NULL;
	s->keep = NULL;
	s->keep_rank = NULL;
	s->seen = NULL;
	s->stage = NULL;
	s->stage_nu = NULL;
}

static inline int kept(const struct rp_sample *s, uint32_t page)
{
	return (s->keep[page / 64] >> (page % 64)) & 1;
}

/* The image's id of a sampled page. */
static inline uint32_t rp_sample_id(const struct rp_sample *s, uint32_t page)
{
	return rp_bits_rank(s->keep, s->keep_rank, page);
}

/* The sample_cow entry of an unsampled trace page that copies a sampled file page, or
 * UINT32_MAX (image.c, sample_pages()). */
static inline uint32_t cow_copy(const struct rp_sample *s, uint32_t page)
{
	const struct rp_image *t = s->t;

	if (!t->sample_cow_bits || !(t->sample_cow_bits[page / 64] >> (page % 64) & 1))
		return UINT32_MAX;
	return rp_bits_rank(t->sample_cow_bits, t->sample_cow_rank, page);
}

/* Image pages [id, id + n) were named by an event passed on (a page enters memory only
 * through the events that name it: replayer/events.c). */
static inline void mark_seen(struct rp_sample *s, uint32_t id, uint64_t n)
{
	for (uint64_t i = 0; i < n && id + i < s->t->nr_pages; i++)
		s->seen[(id + i) / 64] |= 1ull << ((id + i) % 64);
}

static inline int seen(const struct rp_sample *s, uint32_t id)
{
	return id < s->t->nr_pages && ((s->seen[id / 64] >> (id % 64)) & 1);
}

/*
 * Could a fault at index key of file map a sampled page? Its window (mm.c,
 * rp_fault_around()) is fault_around pages aligned in the address space, so within
 * fault_around - 1 indices of key either way: is a sampled page of the file's mapped
 * pages (the image's direct map or sorted index) there, named by an event before this
 * one? Fault-around maps only pages in memory, and a page no event has named yet is in
 * no machine's memory. Most faults of a randomly read file have no such page at 1/16
 * (and the first touches of a generated trace come while most of it is untouched);
 * without this test each machine looked for itself.
 */
static int window_sampled(const struct rp_sample *s, uint32_t file, uint64_t key)
{
	const struct rp_image *t = s->t;
	uint64_t w = s->fault_around - 1, lo = key > w ? key - w : 0, hi = key + w;

	if (!w || file >= t->nr_files)
		return 0;
	if (t->fmap_base[file] != UINT64_MAX) {
		uint64_t kmin = t->fmap_kmin[file], kend = kmin + t->fmap_span[file];

		if (lo < kmin)
			lo = kmin;
		for (uint64_t k = lo; k <= hi && k < kend; k++) {
			uint32_t id = t->fmap[t->fmap_base[file] + k - kmin];

			if (id != UINT32_MAX && seen(s, id))
				return 1;
		}
		return 0;
	} else {
		for (uint32_t a = rp_file_key_lower(t, file, lo);
		     a < t->file_page_off[file + 1] && t->file_key[a] <= hi; a++)
			if (seen(s, t->file_index[a]))
				return 1;
		return 0;
	}
}

/* The pages of a per-page event (0 = not one: it passes). */
static uint64_t event_pages(const struct mr_event *e, uint32_t nr_pages)
{
	uint64_t n;

	if (e->page >= nr_pages)
		return 0; /* MR_PAGE_NONE or damage: the machines count it */
	switch (e->kind) {
	case MR_EV_ACCESS:
	case MR_EV_FAULT:
	case MR_EV_REFAULT:
	case MR_EV_SWAP_IN:
	case MR_EV_SWAP_OUT:
	case MR_EV_ACTIVATE:
		return 1;
	case MR_EV_FD_ACCESS:
	case MR_EV_READAHEAD:
	case MR_EV_FREE:
		n = e->size;
		break;
	case MR_EV_PC_INSERT:
	case MR_EV_PC_DELETE:
		n = 1ull << (e->flags & MR_PC_ORDER_MASK);
		break;
	default:
		return 0;
	}
	if (n > (uint64_t)nr_pages - e->page)
		n = (uint64_t)nr_pages - e->page;
	return n;
}

uint64_t rp_sample_expected_events(const struct rp_sample *s, const struct rp_image *t)
{
	static const int per_page[] = { MR_EV_ACCESS, MR_EV_FD_ACCESS, MR_EV_FAULT,
					MR_EV_PC_INSERT, MR_EV_PC_DELETE, MR_EV_READAHEAD,
					MR_EV_FREE, MR_EV_REFAULT, MR_EV_SWAP_IN,
					MR_EV_SWAP_OUT, MR_EV_ACTIVATE };
	uint64_t n = t->n_events, pp = 0;

	/* per-page events in the sampled pages' share, the others all */
	for (size_t i = 0; i < sizeof(per_page) / sizeof(per_page[0]); i++)
		pp += t->by_kind[per_page[i]];
	if (pp > n)
		pp = n;
	if (!s->valid)
		return n;
	return n - pp + (uint64_t)((double)pp * (double)s->kept / (double)s->valid + 0.5);
}

/* Next stage of input, with its next-use values. 0 at the end (s->n = 0). */
static int read_stage(struct rp_sample *s, struct rp_source *src, struct rp_nextuse *nu,
		      struct mr_error *err)
{
	int rc = rp_source_read(src, s->stage, RP_SAMPLE_STAGE, &s->n, err);

	s->pos = 0;
	s->part = 0;
	s->ref = 0;
	if (rc) {
		s->n = 0;
		return rc;
	}
	if (nu && s->n) {
		size_t refs = 0;

		for (size_t i = 0; i < s->n; i++) {
			uint32_t first;

			refs += rp_event_refs(&s->stage[i], s->nr_pages, &first);
		}
		if (refs > s->stage_nu_cap) {
			uint64_t *nn = realloc(s->stage_nu, refs * sizeof(*nn));

			if (!nn) {
				s->n = 0;
				return mr_error_set(err, MR_ENOMEM, "out of memory for next-use values");
			}
			s->stage_nu = nn;
			s->stage_nu_cap = refs;
		}
		rc = rp_nextuse_read(nu, s->stage_nu, refs, err);
		if (rc)
			s->n = 0;
	}
	return rc;
}

/* Room for n more next-use values in the output. */
static int out_nu_room(uint64_t **out_nu, size_t *cap, size_t used, size_t n, struct mr_error *err)
{
	if (used + n <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 4096;

	while (nc < used + n)
		nc *= 2;
	uint64_t *nn = realloc(*out_nu, nc * sizeof(*nn));

	if (!nn)
		return mr_error_set(err, MR_ENOMEM, "out of memory for next-use values");
	*out_nu = nn;
	*cap = nc;
	return 0;
}

/* The event's next-use values, as they are, after the nk already written. */
static int copy_refs(const struct rp_sample *s, uint64_t **out_nu, size_t *out_nu_cap,
		     size_t *nk, uint64_t refs, struct mr_error *err)
{
	int rc = out_nu_room(out_nu, out_nu_cap, *nk, refs, err);

	if (rc)
		return rc;
	memcpy(*out_nu + *nk, s->stage_nu + s->ref, refs * sizeof(uint64_t));
	*nk += refs;
	return 0;
}

int rp_sample_fill(struct rp_sample *s, struct rp_source *src, struct rp_nextuse *nu,
		   struct mr_event *out, size_t cap, size_t min_events, size_t ref_cap,
		   size_t *n, uint64_t **out_nu, size_t *out_nu_cap, struct mr_error *err)
{
	size_t k = 0, nk = 0; /* events and next-use values written */
	int rc;

	*n = 0;
	while (k < cap && !(nu && k >= min_events && nk >= ref_cap)) {
		const struct mr_event *e;
		uint64_t pages, refs;
		uint32_t first, c;

		if (s->pos == s->n) {
			if (s->done)
				break;
			rc = read_stage(s, src, nu, err);
			if (rc)
				return rc;
			if (!s->n) {
				s->done = 1;
				break;
			}
		}
		e = &s->stage[s->pos];
		pages = event_pages(e, s->nr_pages);
		refs = rp_event_refs(e, s->nr_pages, &first);
		if (!pages || (pages == 1 && kept(s, e->page))) {
			/* not per page, or a single sampled page: as it is (a range of one
			 * page too) */
			if (!pages || s->part == 0) {
				if (nu && refs &&
				    (rc = copy_refs(s, out_nu, out_nu_cap, &nk, refs, err)))
					return rc;
				out[k] = *e;
				if (pages) {
					out[k].page = rp_sample_id(s, e->page);
					mark_seen(s, out[k].page, 1);
				}
				k++;
			}
		} else if (pages == 1 && e->kind == MR_EV_ACCESS && s->fpage &&
			   !(e->flags & MR_ACC_WRITE) && MR_ACC_SRC(e->flags) == MR_SRC_FAULT &&
			   s->fpage[e->page].file &&
			   window_sampled(s, s->fpage[e->page].file, s->fpage[e->page].key)) {
			/* a read fault of an unsampled file page: its fault-around maps the
			 * sampled pages of its window (docs/replay.md, "Sampled replay"). A
			 * recorded fault, or a generator's first touch, is a fault in the full
			 * replay too; later accesses of a generated trace fault only when the
			 * page left that machine, which depends on its size (and taking each
			 * as one cost 11 % more time on the bench's Zipf trace for nothing).
			 * The tests in order of cost: the page's entry in fpage is a miss. */
			out[k] = (struct mr_event){ .time = e->time, .arg = s->fpage[e->page].key,
						    .page = MR_PAGE_NONE, .task = e->task,
						    .size = s->fpage[e->page].file, .cpu = e->cpu,
						    .kind = RP_EV_FAULT_AROUND };
			k++;
		} else if (pages == 1 && (c = cow_copy(s, e->page)) != UINT32_MAX &&
			   !(s->cow_done[c / 64] >> (c % 64) & 1)) {
			/* the first event of an unsampled copy of a sampled file page: where
			 * the full replay maps the copy, the file page is unmapped */
			const struct rp_sample_cowpg *cp = &s->t->sample_cow[c];

			s->cow_done[c / 64] |= 1ull << (c % 64);
			out[k] = (struct mr_event){ .time = e->time, .arg = cp->vpn,
						    .page = MR_PAGE_NONE, .task = e->task,
						    .size = cp->mm, .cpu = e->cpu,
						    .kind = RP_EV_COW_BREAK };
			k++;
		} else if (pages > 1) {
			/* a range: its runs of sampled pages, from where the last batch left it */
			int whole = 1, order = e->kind == MR_EV_PC_INSERT || e->kind == MR_EV_PC_DELETE;

			for (uint64_t i = 0; i < pages && whole; i++)
				whole = kept(s, e->page + (uint32_t)i);
			if (whole) {
				if (nu && refs &&
				    (rc = copy_refs(s, out_nu, out_nu_cap, &nk, refs, err)))
					return rc;
				out[k] = *e;
				out[k].page = rp_sample_id(s, e->page);
				mark_seen(s, out[k++].page, pages);
			} else {
				uint64_t i = s->part;

				while (i < pages && k < cap) {
					uint64_t j;

					while (i < pages && !kept(s, e->page + (uint32_t)i))
						i++;
					if (i == pages)
						break;
					for (j = i + 1; j < pages && !order && kept(s, e->page + (uint32_t)j); j++)
						;
					if (order)
						j = i + 1;
					out[k] = *e;
					out[k].page = rp_sample_id(s, e->page + (uint32_t)i);
					mark_seen(s, out[k].page, j - i);
					if (order)
						out[k].flags &= (uint8_t)~MR_PC_ORDER_MASK;
					else
						out[k].size = (uint32_t)(j - i);
					if (nu && refs) {
						rc = out_nu_room(out_nu, out_nu_cap, nk, j - i, err);
						if (rc)
							return rc;
						memcpy(*out_nu + nk, s->stage_nu + s->ref + i,
						       (j - i) * sizeof(uint64_t));
						nk += j - i;
					}
					k++;
					i = j;
				}
				if (i < pages) {
					/* the batch is full: the rest of this range goes in the next */
					s->part = i;
					break;
				}
			}
		}
		/* this event is done */
		s->part = 0;
		s->ref += refs;
		s->trace_refs += refs;
		s->pos++;
		s->consumed++;
	}
	*n = k;
	return 0;
}

/*
 * ---- Which regions (rp_sample_choose()) ----
 *
 * A plain 1-in-N hash over regions is a simple random sample of about R/N of a trace's
 * R regions, and when R is small and the regions' heat differs by orders of magnitude
 * (traces/default.db: 832 regions, most of a few pages, a handful holding most of the
 * references) the share of the references that the sample holds strays far from 1/N,
 * and the miss ratio with it. So the choice is stratified: one pass over the trace's
 * events counts each region's references (rp_event_refs(), what the miss ratio divides
 * by), the regions are ranked by references (then pages, then their hash), and of each
 * run of N consecutive ranks one is taken, at a place in the run the seed's hash picks
 * (a last run of m < N ranks gives one with chance m/N). Each stratum holds regions of
 * about the same heat, so the sample holds about 1/N of the references and of each
 * level of heat, whichever region of a stratum it takes. Regions stay whole.
 */
struct region {
	uint64_t refs;
	uint64_t hash;
	uint32_t pages;
	uint32_t first;  /* its pages: items[first .. first + pages) */
};

/*
 * The pages are grouped into regions by sorting (owner, region, page) keys
 * (mr_sort_key: hi = kind << 32 | the trace's file or mm id, lo = page key >> the unit's
 * shift, id = the page), and the regions ranked by sorting (rank_hi(), hash, region
 * number) keys: hottest first, ties by pages, then by hash (the seed's), then by place.
 */
#define RANK_PAGE_BITS 20
#define RANK_REFS_MAX ((1ull << (64 - RANK_PAGE_BITS)) - 1)
#define RANK_PAGES_MAX ((1ull << RANK_PAGE_BITS) - 1)

/* more references, then more pages, sort first (neither limit is reached by a trace:
 * 2^44 references, 2^20 rows of one region) */
static uint64_t rank_hi(uint64_t refs, uint64_t pages)
{
	refs = refs < RANK_REFS_MAX ? refs : RANK_REFS_MAX;
	pages = pages < RANK_PAGES_MAX ? pages : RANK_PAGES_MAX;
	return (RANK_REFS_MAX - refs) << RANK_PAGE_BITS | (RANK_PAGES_MAX - pages);
}

/*
 * The most pages live at once: a page is live from its first reference to its last, in
 * RP_SAMPLE_LIVE_BUCKETS slices of the trace's events; pages with keep[] 0 are left out
 * (keep NULL: every page).
 */
/* A page's references and the slices of its first and last, one 64-bit word (the
 * pre-pass touches one word a reference: 8 MiB for a million pages, not 16): references
 * in the top 40 bits (saturating: 2^40 of one page is beyond any trace), the first
 * slice in bits 12-23, the last in bits 0-11. */
typedef uint64_t page_refs;
/* the cached words' version (pagerefs.c): what a reference is (rp_int.h) in the low
 * byte, the word's layout above it (bump it when this layout or count_refs()'s slices
 * change what a word holds) */
#define PR_VERSION (RP_EVENT_REFS_VERSION | 1u << 8)
#define PR_SLICE_BITS 12
#define PR_REFS_SHIFT (2 * PR_SLICE_BITS)
#define PR_SLICE_MASK ((1u << PR_SLICE_BITS) - 1)
_Static_assert(RP_SAMPLE_LIVE_BUCKETS <= (1u << PR_SLICE_BITS), "a slice fits its field");

static inline uint64_t pr_refs(page_refs v)
{
	return v >> PR_REFS_SHIFT;
}

static inline uint32_t pr_first(page_refs v)
{
	return (uint32_t)(v >> PR_SLICE_BITS) & PR_SLICE_MASK;
}

static inline uint32_t pr_last(page_refs v)
{
	return (uint32_t)v & PR_SLICE_MASK;
}

/* one more reference in slice b */
static inline page_refs pr_add(page_refs v, uint32_t b)
{
	uint64_t refs = pr_refs(v);
	uint32_t first = refs ? pr_first(v) : b;

	if (refs < (1ull << (64 - PR_REFS_SHIFT)) - 1)
		refs++;
	return refs << PR_REFS_SHIFT | (uint64_t)first << PR_SLICE_BITS | b;
}

static uint64_t live_peak(const struct rp_image *t, const page_refs *pr,
			  const uint8_t *keep, int64_t *delta)
{
	int64_t cur = 0, peak = 0;

	memset(delta, 0, (RP_SAMPLE_LIVE_BUCKETS + 1) * sizeof(*delta));
	for (uint32_t i = 0; i < t->nr_pages; i++) {
		if (!pr_refs(pr[i]) || !(t->pages[i].info & RP_PAGE_VALID) || (keep && !keep[i]))
			continue;
		delta[pr_first(pr[i])]++;
		delta[pr_last(pr[i]) + 1]--;
	}
	for (uint32_t b = 0; b < RP_SAMPLE_LIVE_BUCKETS; b++) {
		cur += delta[b];
		if (cur > peak)
			peak = cur;
	}
	return (uint64_t)peak;
}

#define RP_SAMPLE_PREFETCH 32

/* References per trace page id, one pass over the events (no machine); pr zeroed. */
static int count_refs(const struct rp_image *t, page_refs *pr, struct mr_error *err)
{
	/* slice b holds the events at positions [b * span / B, (b + 1) * span / B): the
	 * next slice's first position, ceil((b + 1) * span / B), is kept, not divided out
	 * per event */
	uint64_t at = 0, span = t->n_events ? t->n_events : 1;
	uint64_t next = (span + RP_SAMPLE_LIVE_BUCKETS - 1) / RP_SAMPLE_LIVE_BUCKETS;
	uint32_t b = 0;
	struct rp_source *src = NULL;
	struct mr_event *ev = malloc(RP_SAMPLE_STAGE * sizeof(*ev));
	size_t n;
	int rc;

	if (!ev)
		return mr_error_set(err, MR_ENOMEM, "out of memory for the sampling pre-pass");
	rc = rp_source_open(t->path, &src, err);
	while (!rc) {
		rc = rp_source_read(src, ev, RP_SAMPLE_STAGE, &n, err);
		if (rc || !n)
			break;
		for (size_t i = 0; i < n; i++) {
			uint32_t first;
			uint64_t r = rp_event_refs(&ev[i], t->nr_pages, &first);

			/* events past the summary's count stay in the last slice */
			while (at >= next && b + 1 < RP_SAMPLE_LIVE_BUCKETS) {
				b++;
				next = ((uint64_t)(b + 1) * span + RP_SAMPLE_LIVE_BUCKETS - 1) /
				       RP_SAMPLE_LIVE_BUCKETS;
			}
			at++;
			/* the page of the event RP_SAMPLE_PREFETCH on: the words are random
			 * misses, independent of each other */
			if (i + RP_SAMPLE_PREFETCH < n && ev[i + RP_SAMPLE_PREFETCH].page < t->nr_pages)
				mr_prefetchw(&pr[ev[i + RP_SAMPLE_PREFETCH].page]);
			for (uint64_t j = 0; j < r; j++)
				pr[first + j] = pr_add(pr[first + j], b);
		}
	}
	rp_source_close(src);
	free(ev);
	return rc;
}

/* At most this many mappings of an mm are looked at for one page (the covering ones
 * first in order of start, each a binary search in the items): a bound on the work
 * however many private file mappings a trace's mm held over time. */
#define COW_ROWS_LOOKED 16

/* Is the file page index of file sampled? items: the pages sorted by unit. */
static int file_page_kept(const struct rp_image *t, const struct mr_sort_key *items,
			  uint32_t nitems, unsigned shift, const uint8_t *keep, uint32_t file,
			  uint64_t index)
{
	uint32_t lo = 0, hi = nitems;

	/* the file page's unit: the first item of (file, index >> shift) */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (items[mid].hi < file || (items[mid].hi == file && items[mid].lo < index >> shift))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nitems && items[lo].hi == file && items[lo].lo == index >> shift; lo++)
		if (t->pages[items[lo].id].key == index)
			return keep[items[lo].id];
	return 0;
}

/*
 * The unsampled anonymous pages that copy a sampled file page (cow_break, a bit per trace
 * page): where the full replay maps such a copy, its PTE replaces the file page's (the
 * copy-on-write fault), and the sampled machines, which never see the copy, must unmap
 * the file page there instead (RP_EV_COW_BREAK). cow: the private file mappings sorted
 * by (mm, start, ...); a page some of them covered at different times (an address range
 * reused after munmap) is marked if the file page of any of them is sampled, as
 * rp_cow_break() unmaps whatever its address maps. Each mapping's end_max (the largest
 * end of its mm's rows up to it) finds the first row covering a page by binary search.
 */
static void mark_cow_breaks(const struct rp_image *t, struct rp_sample_cow *cow,
			    uint32_t ncow, const struct mr_sort_key *items, uint32_t nitems,
			    unsigned shift, const uint8_t *keep, uint64_t *cow_break)
{
	for (uint32_t i = 0; i < ncow; i++)
		cow[i].end_max = i && cow[i - 1].mm == cow[i].mm && cow[i - 1].end_max > cow[i].end ?
				 cow[i - 1].end_max : cow[i].end;
	for (uint32_t i = 0; i < t->nr_pages; i++) {
		const struct rp_page *p = &t->pages[i];
		uint32_t lo = 0, hi = ncow, mm = p->owner;
		uint64_t vpn = p->key;

		if (keep[i] || !(p->info & RP_PAGE_VALID) || rp_page_type(p) != RP_ANON)
			continue;
		/* the first row of mm whose end_max passes vpn: every row of mm before it ends
		 * at or before vpn */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (cow[mid].mm < mm || (cow[mid].mm == mm && cow[mid].end_max <= vpn))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t n = 0; lo < ncow && n < COW_ROWS_LOOKED && cow[lo].mm == mm &&
				     cow[lo].start <= vpn; lo++, n++) {
			if (vpn < cow[lo].end &&
			    file_page_kept(t, items, nitems, shift, keep, cow[lo].file,
					   cow[lo].pgoff + (vpn - cow[lo].start))) {
				cow_break[i / 64] |= 1ull << (i % 64);
				break;
			}
		}
	}
}

int rp_sample_choose(struct rp_image *t, uint32_t den, uint64_t seed, uint32_t unit,
		     const char *cache_dir, struct rp_sample_cow *cow, uint32_t ncow,
		     uint8_t *keep, uint64_t *cow_break, struct mr_error *err)
{
	unsigned shift = 0;
	double t0;

	page_refs *pr = calloc((size_t)t->nr_pages + 1, sizeof(*pr));
	int64_t *delta = malloc((RP_SAMPLE_LIVE_BUCKETS + 1) * sizeof(*delta));
	struct mr_sort_key *items = malloc(((size_t)t->nr_pages + 1) * sizeof(*items));
	struct mr_sort_key *rank = NULL;
	struct region *reg = NULL;
	uint32_t nitems = 0, nreg = 0;
	int rc = 0;

	memset(&t->sample_stat, 0, sizeof(t->sample_stat));
	while (shift < 9 && (1u << (shift + 1)) <= unit)
		shift++;
	t->sample_stat.unit = 1u << shift;
	if (!pr || !items || !delta) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for the sampled pages");
		goto out;
	}
	/* the words depend on the trace alone: counted once per trace (pagerefs.c) */
	t0 = mr_clock_s();
	rc = rp_pagerefs_get(t, cache_dir, PR_VERSION, pr, count_refs, &t->sample_cache, err);
	t->sample_cache_s = mr_clock_s() - t0;
	if (rc)
		goto out;
	for (uint32_t i = 0; i < t->nr_pages; i++) {
		const struct rp_page *p = &t->pages[i];
		int file;

		keep[i] = 1; /* no row: passes, the machines count it as bad */
		if (!(p->info & RP_PAGE_VALID))
			continue;
		file = rp_page_type(p) == RP_FILE;
		items[nitems++] = (struct mr_sort_key){
			.hi = file ? p->owner :
			      (1ull << 32) | (p->owner < t->nr_mms ? t->mm_store_id[p->owner] : 0),
			.lo = p->key >> shift, .id = i };
	}
	reg = malloc(((size_t)nitems + 1) * sizeof(*reg));
	rank = malloc(((size_t)nitems + 1) * sizeof(*rank));
	if (!reg || !rank || mr_sort_keys(items, nitems)) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for the sampled regions");
		goto out;
	}
	for (uint32_t i = 0; i < nitems; i++) {
		if (!i || items[i].hi != items[i - 1].hi || items[i].lo != items[i - 1].lo) {
			uint64_t o = items[i].hi;

			reg[nreg] = (struct region){ .first = i,
				.hash = rp_sample_hash(seed, (unsigned)(o >> 32), o & 0xffffffffu,
						       items[i].lo) };
			nreg++;
		}
		reg[nreg - 1].pages++;
		reg[nreg - 1].refs += pr_refs(pr[items[i].id]);
		t->sample_stat.refs += pr_refs(pr[items[i].id]);
	}
	/* the regions are numbered in the order of their first item, so the number breaks
	 * the last ties by place */
	for (uint32_t i = 0; i < nreg; i++)
		rank[i] = (struct mr_sort_key){ .hi = rank_hi(reg[i].refs, reg[i].pages),
						.lo = reg[i].hash, .id = i };
	if (mr_sort_keys(rank, nreg)) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for the sampled regions");
		goto out;
	}
	t->sample_stat.regions = nreg;
	if (nreg)
		t->sample_stat.top_refs = reg[rank[0].id].refs;
	for (uint32_t b = 0; b < nreg; b += den) {
		uint32_t m = nreg - b < den ? nreg - b : den;
		/* which rank of this stratum: the seed's hash of the stratum's number, not the
		 * regions' own hashes, so that each rank is as likely */
		uint64_t pick = rp_sample_hash(seed, 2, den, b / den) % den;

		for (uint32_t k = 0; k < m; k++) {
			const struct region *r = &reg[rank[b + k].id];

			for (uint32_t j = 0; j < r->pages; j++)
				keep[items[r->first + j].id] = k == pick;
		}
		if (pick < m) {
			t->sample_stat.regions_kept++;
			t->sample_stat.refs_kept += reg[rank[b + pick].id].refs;
		}
	}
	if (ncow)
		mark_cow_breaks(t, cow, ncow, items, nitems, shift, keep, cow_break);
	t->sample_stat.live = live_peak(t, pr, NULL, delta);
	t->sample_stat.live_kept = live_peak(t, pr, keep, delta);
out:
	free(pr);
	free(delta);
	free(items);
	free(rank);
	free(reg);
	return rc;
}
