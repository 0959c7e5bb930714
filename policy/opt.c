// SPDX-License-Identifier: GPL-2.0
/*
 * opt.c - `opt`: Belady's MIN over the same simulated machine. When reclaim needs pages,
 * it evicts the resident folios whose next reference lies farthest in the future (never
 * referenced again first). What it minimises is mr_misses, the pages brought into
 * memory: by a fault, by an fd access, or by a recorded page-cache insertion
 * (READAHEAD, PC_INSERT), which the replay makes whenever the page is not resident
 * then, as the host did. So a reference is a use or an insertion, and both cost a miss
 * exactly when the page is absent: the trace is an ordinary paging request sequence,
 * on which MIN is optimal (docs/replay.md, "What opt minimises"). Ranking by the next
 * *use* alone, as before, evicted the readahead pages nobody used first, and paid a
 * miss for each that the recorded readahead inserted again (70 % more misses than lru
 * on a strided mmap read through overlapping read-around windows).
 *
 * Where the knowledge comes from: the engine computes, once per trace, the position of
 * the next reference to each page (replayer/nextuse.c), and calls ops->access(p, page,
 * next) at every reference whose page is resident afterwards (UINT64_MAX = never
 * again): an access, a page inserted, and a page an insertion found resident. A fault
 * first adds the folio (ops->folio_add) and the engine then calls access for the
 * faulting access, so a newly added folio is keyed "never" only until that call; a
 * folio added with no access call at all stays keyed "never" and is among the first
 * victims. Each page of a large folio (PC_INSERT of order > 0) is its own folio here
 * and its own reference, for every policy alike.
 *
 * Data structure: per lruvec, a max-priority queue over (next use, then lower frame
 * first) with lazy deletion, shaped for the access pattern: every access moves a page's
 * next use later, and reclaim takes the farthest. A key change just appends an entry
 * (key, page) and leaves the old one behind; an entry is valid while its page is in the
 * queue with that key. Entries of keys below a threshold sit unordered in buckets by key
 * range (key >> shift; the range doubles, merging neighbours, when a key does not fit);
 * the buckets above it form an open region kept as a binary heap. Folios keyed "never"
 * all rank first, lowest trace page id first, so they have their own min-heap of (page
 * id, frame): at the end of a trace that is nearly every resident folio, at 8 bytes each. Taking
 * the maximum pops the never-heap, then the heap, skipping invalid entries; when the
 * heap is empty the highest non-empty bucket is opened into it. Buckets the trace
 * position has passed (known from the old keys of accessed pages: a page's key is the
 * position of its next use) hold almost only invalid entries and are purged. So an
 * access costs one write to its page's state and one append, instead of pointer surgery
 * in a heap whose nodes are all over memory. Per page: 8 bytes (key and state). Bucket
 * entries (8 bytes: the low 32 bits of the key, and the page) live in fixed blocks from
 * a pool sized at init (twice the pages, compacted when it runs low); heap entries (16
 * bytes, whole keys) and never-entries (4 bytes) in each lruvec's arrays (reserved at
 * init, touched as used): no allocation after init.
 * A folio_add() leaves the folio keyed "never" without an entry until its access() or
 * the next reclaim, so the usual add-then-access pair costs one entry.
 *
 * Eviction goes through shrink_folio_list (vmscan.c) without reference checks and with
 * shadow 0, so the mechanics are the kernel's: clean folios are freed at once; anon
 * folios get swap and are written back (pageout, pswpout) and freed by a later reclaim
 * after writeback ends; dirty file folios are marked PG_reclaim for the flushers. A
 * folio that cannot be freed now is set aside for the rest of the call and then goes
 * back into the heap, so the next-farthest folio is tried instead.
 *
 * How much it frees: what the charge needs in memcg reclaim (nr_needed), nr_to_reclaim
 * less what is freed in direct reclaim; for kswapd only until the node is balanced, where
 * balance_pgdat() stops every policy (kswapd_done()): freeing the whole nr_to_reclaim
 * of a step, the high watermark, left opt with less memory than lru and cost it 50 %
 * more misses with node reclaim.
 *
 * What opt does not model, or where it is not the optimum (it bounds misses only):
 *  - eviction cost: clean and dirty pages, anon (swap I/O) and file (refetch) count the
 *    same; it minimises the number of misses, not I/O or refault latency;
 *  - write-back delay: a dirty victim is not free until written back, and the folios
 *    evicted meanwhile are not what MIN with instant writes would choose;
 *  - batching: in memcg reclaim opt frees what the charge needs (one page per miss, as
 *    MIN proper), not the SWAP_CLUSTER_MAX batch the kernel's policies reclaim: a batch
 *    as large as the memcg evicted the pages of the readahead window being inserted and
 *    lost to mglru at 24 pages; direct reclaim (node mode) still frees nr_to_reclaim.
 *    Nor can opt evict the page being charged (it is added after its charge's reclaim,
 *    as in the kernel), only pages of earlier references, those of the same readahead
 *    window included;
 *  - prefetch: the recorded insertions are taken as given, as every policy takes them;
 *    opt does not choose what to read ahead, and minimises all misses, insertions
 *    included, not the demand faults alone;
 *  - frees: a page freed (FREE, munmap, exit) before its next reference is ranked by
 *    that reference all the same;
 *  - CPU: scanning, aging and rmap costs do not exist here; nor do per-memcg limits
 *    other than reclaiming from the lruvec asked for.
 * pgactivate counts from shrink_folio_list (writeback, dirty file) are mechanics of
 * the shared code, not promotions: opt has no active list.
 */
#include "mr_policy.h"
#include "builtin.h"
#include "counters.h"
#include "vmscan.h"

#include <stdlib.h>
#include <string.h>

enum opt_state { OPT_NONE = 0, OPT_HEAP = 1, OPT_UNEVICTABLE = 2 };
#define OPT_STATE_MASK 0x0fu
#define OPT_PENDING 0x10u /* in the queue, its entry not pushed yet (just added) */
#define OPT_MARK 0x20u    /* scratch for check() and compaction */

#define OPT_KEY_BITS 56
#define OPT_NEVER ((UINT64_C(1) << OPT_KEY_BITS) - 1) /* "never used again" as a key */

/* Per page: the key (next use) in the low 56 bits, state and flags above. Zeroed =
 * OPT_NONE: not on the policy's lists. */
struct opt_page {
	uint64_t v;
};

/* A heap entry: valid while page is in the queue (OPT_HEAP) with this key. */
struct opt_ent {
	uint64_t key;
	uint32_t page;
	uint32_t pad;
};

/* A bucket entry: the low 32 bits of the key (its bucket holds the rest when the trace
 * has fewer than 2^32 references; see bent_valid for longer ones). */
struct opt_bent {
	uint32_t lo;
	uint32_t page;
};

#ifndef OPT_BLK
#define OPT_BLK 63 /* entries per block */
#endif

/* A bucket's entries, in a chain of blocks from the pool (linked by index). */
struct opt_block {
	uint32_t next;
	uint32_t n;
	struct opt_bent e[OPT_BLK];
};

struct opt_bucket {
	uint32_t head, tail; /* block indices, MR_NONE when empty */
};

struct opt_lruvec {
	uint64_t nr;           /* folios in the queue */
	struct opt_ent *heap;  /* the open region: a binary max-heap, [heap_cap] reserved */
	uint32_t heap_n, heap_cap;
	uint64_t *never;       /* folios keyed "never": a min-heap of (trace page id << 32 |
				* frame), [never_cap]; see never_valid() */
	uint32_t never_n, never_cap;
	struct opt_bucket *bk; /* [nb]: finite keys by key >> shift */
	uint32_t nb;           /* buckets, a power of two */
	uint32_t shift;
	uint32_t open;         /* buckets >= open are in the heap (nb: none) */
	uint32_t purged;       /* buckets below it hold no entries the trace has passed */
	uint64_t stale;        /* entries of bucket `purged` made invalid since its last trim */
	uint64_t trim_at;      /* stale count that trims it (buckets_trim) */
	uint32_t split_at;     /* heap size that makes heap_split() close its lower part */
};

#define OPT_PENDING_MAX 64
#define OPT_TRIM_MIN 4096   /* invalid entries in the current bucket that start a trim */
#define OPT_NB_MAX 1024     /* finite buckets per lruvec, at most */
#ifndef OPT_HEAP_SPLIT /* (tests build with small values) */
#define OPT_HEAP_SPLIT 4096 /* open region size (entries) that starts a split */
#endif

struct opt_priv {
	struct opt_lruvec *lruvecs; /* [m->nr_lruvecs] */
	uint32_t nr_lruvecs;
	uint32_t *aside;            /* [m->nr_pages]: folios kept by one shrink call */
	uint32_t hold[MR_SWAP_CLUSTER_MAX];
	struct opt_block *pool;     /* [pool_cap] */
	uint32_t pool_cap, pool_fresh; /* blocks handed out at least once */
	uint32_t free_head;         /* free list through next */
	uint64_t now;               /* trace position known to be reached (see access) */
	uint32_t pending[OPT_PENDING_MAX]; /* folios added without an entry yet */
	uint32_t nr_pending;
	uint32_t hist[OPT_NB_MAX];         /* heap_split() scratch */
};

static struct opt_priv *opt_priv(struct mr_policy *p)
{
	return p->priv;
}

static struct opt_page *node(struct mr_policy *p, uint32_t page)
{
	return mr_policy_page(p, page);
}

static uint64_t node_key(const struct opt_page *n)
{
	return n->v & OPT_NEVER;
}

static unsigned node_state(const struct opt_page *n)
{
	return (unsigned)(n->v >> OPT_KEY_BITS) & OPT_STATE_MASK;
}

static unsigned node_flags(const struct opt_page *n)
{
	return (unsigned)(n->v >> OPT_KEY_BITS);
}

static void node_set(struct opt_page *n, uint64_t key, unsigned flags)
{
	n->v = key | (uint64_t)flags << OPT_KEY_BITS;
}

/* The engine's next use (UINT64_MAX = never) as a key. */
static uint64_t key_of(uint64_t next_use)
{
	return next_use < OPT_NEVER ? next_use : OPT_NEVER;
}

/* For mr_policy_folio_where() (where.c): page's next use as the queue keys it, and
 * whether it is in the queue (0: on no list). */
int opt_folio_next_use(const struct mr_policy *p, uint32_t page, uint64_t *next_use)
{
	const struct opt_page *n = mr_policy_page(p, page);

	*next_use = node_key(n) == OPT_NEVER ? UINT64_MAX : node_key(n);
	return node_state(n) == OPT_HEAP;
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

static int ent_valid(struct mr_policy *p, const struct opt_ent *e)
{
	const struct opt_page *n = node(p, e->page);

	return node_state(n) == OPT_HEAP && node_key(n) == e->key;
}

/*
 * A bucket entry of bucket b is valid while its page is in the queue with a finite key
 * of that bucket whose low 32 bits it holds. Below 2^32 references that is the key
 * itself; beyond, two keys of one bucket may share their low bits, and the entry then
 * stands for the page's current key: a duplicate at worst, which the queue tolerates,
 * as bucket_open() takes keys from the pages.
 */
static int bent_valid(struct mr_policy *p, const struct opt_lruvec *lv, uint32_t b,
		      const struct opt_bent *e)
{
	const struct opt_page *n = node(p, e->page);
	uint64_t key = node_key(n);

	return node_state(n) == OPT_HEAP && (uint32_t)key == e->lo && key != OPT_NEVER &&
	       (key >> lv->shift) == b;
}

/* The bucket of a finite key; the caller has widened the buckets for it (queue_push). */
static uint32_t bucket_of(const struct opt_lruvec *lv, uint64_t key)
{
	return (uint32_t)(key >> lv->shift);
}

/* ---- the open region: a binary max-heap of entries ---- */

/* a ranks above b: used farther in the future; ties go to the lower page id. */
static int ent_greater(const struct opt_ent *a, const struct opt_ent *b)
{
	return a->key > b->key || (a->key == b->key && a->page < b->page);
}

static void heap_sift_down(struct opt_ent *h, uint32_t n, uint32_t i)
{
	struct opt_ent x = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ent_greater(&h[c + 1], &h[c]))
			c++;
		if (!ent_greater(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void heap_sift_up(struct opt_ent *h, uint32_t i)
{
	struct opt_ent x = h[i];

	while (i) {
		uint32_t up = (i - 1) / 2;

		if (!ent_greater(&x, &h[up]))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = x;
}

static void heap_make(struct opt_ent *h, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		heap_sift_down(h, n, i);
}

static void bucket_append(struct mr_policy *p, struct opt_bucket *b, uint64_t key,
			  uint32_t page);

/*
 * The open region got large (keys reached it faster than reclaim took them): drop its
 * invalid entries and duplicates, keep open only the highest buckets holding about a
 * quarter of OPT_HEAP_SPLIT entries (at least one bucket), and put the rest back into
 * their buckets. Linear in the heap; the next split waits until it has doubled. While
 * a bucket is being opened (compact_only), the open boundary must stay: only drop.
 */
static void heap_split(struct mr_policy *p, struct opt_lruvec *lv, int compact_only)
{
	struct opt_priv *pr = opt_priv(p);
	const uint64_t mark = (uint64_t)OPT_MARK << OPT_KEY_BITS;
	uint32_t *cnt = pr->hist, w = 0, b, keep = OPT_HEAP_SPLIT / 4, k;
	uint64_t acc = 0;

	memset(cnt, 0, lv->nb * sizeof(*cnt));
	for (uint32_t i = 0; i < lv->heap_n; i++) {
		struct opt_page *n;

		if (i + 8 < lv->heap_n)
			mr_prefetch(node(p, lv->heap[i + 8].page));
		n = node(p, lv->heap[i].page);
		if (!ent_valid(p, &lv->heap[i]) || (n->v & mark))
			continue;
		n->v |= mark;
		cnt[bucket_of(lv, lv->heap[i].key)]++;
		lv->heap[w++] = lv->heap[i];
	}
	for (uint32_t i = 0; i < w; i++)
		node(p, lv->heap[i].page)->v &= ~mark;
	lv->heap_n = w;
	/* the highest buckets with about `keep` entries stay open */
	for (b = lv->nb; b > lv->open && (acc < keep || !acc);) {
		b--;
		acc += cnt[b];
	}
	if (b > lv->open && !compact_only) {
		lv->open = b;
		for (k = 0, w = 0; k < lv->heap_n; k++) {
			uint32_t eb = bucket_of(lv, lv->heap[k].key);

			if (eb >= b)
				lv->heap[w++] = lv->heap[k];
			else
				bucket_append(p, &lv->bk[eb], lv->heap[k].key, lv->heap[k].page);
		}
		lv->heap_n = w;
	}
	heap_make(lv->heap, lv->heap_n);
	lv->split_at = lv->heap_n * 2 > OPT_HEAP_SPLIT ? lv->heap_n * 2 : OPT_HEAP_SPLIT;
}

/*
 * Room for one more heap entry. A split leaves at most one entry per folio of the
 * lruvec, at most half of the reserve init computed from the folios' lruvecs; a
 * machine that assigns lruvecs only after init (a test harness) may need more: then the
 * heap grows. Returns 0 when there is room.
 */
static int heap_room(struct mr_policy *p, struct opt_lruvec *lv, int compact_only)
{
	struct opt_ent *nh;

	if (lv->heap_n < lv->heap_cap)
		return 0;
	heap_split(p, lv, compact_only);
	if (lv->heap_n < lv->heap_cap)
		return 0;
	nh = realloc(lv->heap, 2 * (size_t)lv->heap_cap * sizeof(*nh));
	if (MR_WARN_ON_ONCE(!nh))
		return -1;
	lv->heap = nh;
	lv->heap_cap *= 2;
	return 0;
}

static void heap_push(struct mr_policy *p, struct opt_lruvec *lv, uint64_t key, uint32_t page)
{
	if (heap_room(p, lv, 0))
		return;
	lv->heap[lv->heap_n] = (struct opt_ent){ .key = key, .page = page };
	heap_sift_up(lv->heap, lv->heap_n++);
	if (lv->heap_n >= lv->split_at)
		heap_split(p, lv, 0);
}

/* ---- buckets ---- */

static struct opt_block *blk(struct opt_priv *pr, uint32_t i)
{
	return &pr->pool[i];
}

static void block_put(struct opt_priv *pr, uint32_t i)
{
	blk(pr, i)->next = pr->free_head;
	pr->free_head = i;
}

static void compact_all(struct mr_policy *p);

static uint32_t block_get(struct mr_policy *p)
{
	struct opt_priv *pr = opt_priv(p);
	uint32_t i;

	if (pr->free_head == MR_NONE && pr->pool_fresh == pr->pool_cap)
		compact_all(p); /* the pool holds at most one valid entry per page afterwards */
	if (pr->free_head == MR_NONE && pr->pool_fresh == pr->pool_cap) {
		/* Only when lruvecs were assigned after init (a test harness) or pages
		 * hold many duplicate entries: grow. */
		struct opt_block *np = realloc(pr->pool, 2 * (size_t)pr->pool_cap * sizeof(*np));

		if (MR_WARN_ON_ONCE(!np))
			return MR_NONE;
		pr->pool = np;
		pr->pool_cap *= 2;
	}
	if (pr->free_head != MR_NONE) {
		i = pr->free_head;
		pr->free_head = blk(pr, i)->next;
	} else {
		i = pr->pool_fresh++;
	}
	blk(pr, i)->next = MR_NONE;
	blk(pr, i)->n = 0;
	return i;
}

static void bucket_append(struct mr_policy *p, struct opt_bucket *b, uint64_t key,
			  uint32_t page)
{
	struct opt_priv *pr = opt_priv(p);
	uint32_t t = b->tail;

	if (t == MR_NONE || blk(pr, t)->n == OPT_BLK) {
		uint32_t nb = block_get(p); /* may compact b itself */

		if (nb == MR_NONE)
			return;
		t = b->tail;
		if (t != MR_NONE && blk(pr, t)->n < OPT_BLK) {
			block_put(pr, nb);
		} else {
			if (t == MR_NONE)
				b->head = nb;
			else
				blk(pr, t)->next = nb;
			b->tail = t = nb;
		}
	}
	blk(pr, t)->e[blk(pr, t)->n++] = (struct opt_bent){ .lo = (uint32_t)key, .page = page };
}

/* Keep only the valid entries of bucket bi (and, with dedup, one per page), in order;
 * blocks emptied go back to the pool. Entries are read ahead so that the page states
 * they name load in parallel. Returns the entries kept. */
static uint64_t bucket_filter(struct mr_policy *p, struct opt_lruvec *lv, uint32_t bi,
			      int dedup)
{
	struct opt_priv *pr = opt_priv(p);
	struct opt_bucket *b = &lv->bk[bi];
	uint32_t rb = b->head, wb = b->head, wn = 0;
	uint64_t kept = 0;

	while (rb != MR_NONE) {
		struct opt_block *r = blk(pr, rb);
		uint32_t next = r->next;

		for (uint32_t i = 0; i < r->n; i++) {
			struct opt_bent *e = &r->e[i];
			struct opt_page *n;

			if (i + 8 < r->n)
				mr_prefetch(node(p, r->e[i + 8].page));
			if (!bent_valid(p, lv, bi, e))
				continue;
			n = node(p, e->page);
			if (dedup) {
				if (node_flags(n) & OPT_MARK)
					continue;
				n->v |= (uint64_t)OPT_MARK << OPT_KEY_BITS;
			}
			if (wn == OPT_BLK) {
				blk(pr, wb)->n = OPT_BLK; /* (a merged bucket has part-filled blocks) */
				wb = blk(pr, wb)->next; /* never passes rb: reads stay ahead */
				wn = 0;
			}
			blk(pr, wb)->e[wn++] = *e;
			kept++;
		}
		rb = next;
	}
	if (wb == MR_NONE)
		return 0;
	/* free the blocks after the last written one */
	rb = blk(pr, wb)->next;
	while (rb != MR_NONE) {
		uint32_t next = blk(pr, rb)->next;

		block_put(pr, rb);
		rb = next;
	}
	blk(pr, wb)->next = MR_NONE;
	blk(pr, wb)->n = wn;
	if (!wn && wb == b->head) {
		block_put(pr, wb);
		b->head = b->tail = MR_NONE;
	} else {
		b->tail = wb;
	}
	return kept;
}

/* Clear the marks bucket_filter(dedup) set on the entries of b. */
static void bucket_unmark(struct mr_policy *p, const struct opt_bucket *b)
{
	struct opt_priv *pr = opt_priv(p);

	for (uint32_t i = b->head; i != MR_NONE; i = blk(pr, i)->next)
		for (uint32_t k = 0; k < blk(pr, i)->n; k++)
			node(p, blk(pr, i)->e[k].page)->v &= ~((uint64_t)OPT_MARK << OPT_KEY_BITS);
}

/* Move the valid entries of bucket b into the heap (the bucket becomes open). */
static void bucket_open(struct mr_policy *p, struct opt_lruvec *lv, uint32_t b)
{
	struct opt_priv *pr = opt_priv(p);
	struct opt_bucket *bk = &lv->bk[b];
	uint32_t i = bk->head, was = lv->heap_n;

	while (i != MR_NONE) {
		struct opt_block *r = blk(pr, i);
		uint32_t next = r->next;

		for (uint32_t k = 0; k < r->n; k++) {
			if (k + 8 < r->n)
				mr_prefetch(node(p, r->e[k + 8].page));
			if (!bent_valid(p, lv, b, &r->e[k]))
				continue;
			if (lv->heap_n == lv->heap_cap) {
				heap_make(lv->heap, lv->heap_n);
				if (heap_room(p, lv, 1))
					continue;
				was = lv->heap_n;
			}
			lv->heap[lv->heap_n++] = (struct opt_ent){
				.key = node_key(node(p, r->e[k].page)), .page = r->e[k].page };
		}
		block_put(pr, i);
		i = next;
	}
	bk->head = bk->tail = MR_NONE;
	if (!was)
		heap_make(lv->heap, lv->heap_n);
	else
		for (uint32_t k = was; k < lv->heap_n; k++)
			heap_sift_up(lv->heap, k);
	if (lv->split_at < lv->heap_n * 2)
		lv->split_at = lv->heap_n * 2; /* one bucket cannot be split */
}

/* Every bucket's key range doubles: bucket i takes the entries of 2i and 2i + 1. */
static void buckets_widen(struct mr_policy *p, struct opt_lruvec *lv)
{
	struct opt_priv *pr = opt_priv(p);

	if (lv->open < lv->nb && (lv->open & 1))
		bucket_open(p, lv, --lv->open); /* keep the open boundary on a pair */
	for (uint32_t i = 0; i < lv->nb / 2; i++) {
		struct opt_bucket a = lv->bk[2 * i], b = lv->bk[2 * i + 1];

		if (a.head == MR_NONE) {
			a = b;
		} else if (b.head != MR_NONE) {
			blk(pr, a.tail)->next = b.head;
			a.tail = b.tail;
		}
		lv->bk[i] = a;
	}
	for (uint32_t i = lv->nb / 2; i < lv->nb; i++)
		lv->bk[i].head = lv->bk[i].tail = MR_NONE;
	lv->shift++;
	if (lv->open < lv->nb)
		lv->open /= 2;
	if (lv->purged < lv->nb)
		lv->purged /= 2;
}

/* Purge the buckets the trace position has passed: their keys are in the past, so
 * their entries are invalid but for folios whose use the engine did not report. */
static void buckets_purge(struct mr_policy *p, struct opt_lruvec *lv)
{
	uint64_t upto = opt_priv(p)->now >> lv->shift;

	if (upto > lv->open)
		upto = lv->open;
	if (upto > lv->nb)
		upto = lv->nb;
	for (; lv->purged < upto; lv->purged++)
		if (lv->bk[lv->purged].head != MR_NONE)
			bucket_filter(p, lv, lv->purged, 0);
	lv->stale = 0;
}

/*
 * The bucket the trace position is in collects an invalid entry per access of a folio
 * keyed in it, as many as the accesses its key range spans, which grows with the trace
 * (the range is the trace length over nb). Drop them when they outnumber both the
 * entries kept by the last trim and an eighth of the folios: at most two checks per
 * such access, and a bound on them that does not depend on the trace length.
 */
static void buckets_trim(struct mr_policy *p, struct opt_lruvec *lv)
{
	uint64_t kept = bucket_filter(p, lv, lv->purged, 0);

	lv->stale = 0;
	lv->trim_at = kept > lv->nr / 8 ? kept : lv->nr / 8;
	if (lv->trim_at < OPT_TRIM_MIN)
		lv->trim_at = OPT_TRIM_MIN;
}

/*
 * ---- "never": folios not used again, taken lowest page id first ----
 *
 * Which of them goes first changes no miss, but it changes what else reclaim does
 * (writeback of a dirty one, anon or file), so the order is the trace's page ids, not
 * the frames the pages happen to be in: an entry is the page id and its frame, valid
 * while that frame holds that page, in the queue, keyed "never". A page that left and
 * came back in another frame has a new entry; the old one is dropped when met.
 */

static uint32_t folio_id(const struct mr_machine *m, uint32_t page)
{
	return mr_frame_page(m, page);
}

static uint64_t never_ent(const struct mr_machine *m, uint32_t page)
{
	return (uint64_t)folio_id(m, page) << 32 | page;
}

static int never_valid_page(struct mr_policy *p, uint32_t page)
{
	const struct opt_page *n = node(p, page);

	return node_state(n) == OPT_HEAP && node_key(n) == OPT_NEVER;
}

static int never_valid(struct mr_policy *p, uint64_t ent)
{
	uint32_t page = (uint32_t)ent;

	return folio_id(p->m, page) == (uint32_t)(ent >> 32) && never_valid_page(p, page);
}

static void never_sift_down(uint64_t *h, uint32_t n, uint32_t i)
{
	uint64_t x = h[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (h[c] >= x)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/*
 * Room for one more "never" entry: drop the invalid entries and duplicates; when more
 * than half stay, grow (only when lruvecs were assigned after init, or after many
 * re-adds). Returns 0 when there is room.
 */
static int never_room(struct mr_policy *p, struct opt_lruvec *lv)
{
	const uint64_t mark = (uint64_t)OPT_MARK << OPT_KEY_BITS;
	uint32_t w = 0;
	uint64_t *nh;

	for (uint32_t i = 0; i < lv->never_n; i++) {
		struct opt_page *n = node(p, (uint32_t)lv->never[i]);

		if (!never_valid(p, lv->never[i]) || (n->v & mark))
			continue;
		n->v |= mark;
		lv->never[w++] = lv->never[i];
	}
	for (uint32_t i = 0; i < w; i++)
		node(p, (uint32_t)lv->never[i])->v &= ~mark;
	lv->never_n = w;
	for (uint32_t i = w / 2; i-- > 0;)
		never_sift_down(lv->never, w, i);
	if (w <= lv->never_cap / 2)
		return 0;
	nh = realloc(lv->never, 2 * (size_t)lv->never_cap * sizeof(*nh));
	if (MR_WARN_ON_ONCE(!nh))
		return w < lv->never_cap ? 0 : -1;
	lv->never = nh;
	lv->never_cap *= 2;
	return 0;
}

static void never_push(struct mr_policy *p, struct opt_lruvec *lv, uint32_t page)
{
	uint64_t *h = lv->never, ent = never_ent(p->m, page);
	uint32_t i;

	if (lv->never_n == lv->never_cap) {
		if (never_room(p, lv))
			return;
		h = lv->never;
	}
	for (i = lv->never_n++; i && h[(i - 1) / 2] > ent; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = ent;
}

/* The valid "never" folio of lv with the lowest page id, taken out; MR_NONE if none. */
static uint32_t never_pop(struct mr_policy *p, struct opt_lruvec *lv)
{
	while (lv->never_n) {
		uint64_t ent = lv->never[0];

		lv->never[0] = lv->never[--lv->never_n];
		never_sift_down(lv->never, lv->never_n, 0);
		if (never_valid(p, ent))
			return (uint32_t)ent;
	}
	return MR_NONE;
}

/* Enter (key, page) for a folio in the queue. */
static void queue_push(struct mr_policy *p, struct opt_lruvec *lv, uint64_t key, uint32_t page)
{
	uint32_t b;

	if (key == OPT_NEVER) {
		never_push(p, lv, page);
		return;
	}
	while ((key >> lv->shift) >= lv->nb)
		buckets_widen(p, lv);
	b = bucket_of(lv, key);
	if (b >= lv->open && lv->heap_n == lv->heap_cap && heap_room(p, lv, 0))
		return; /* out of memory (warned) */
	if (b >= lv->open) /* (making room may have moved the boundary) */
		heap_push(p, lv, key, page);
	else
		bucket_append(p, &lv->bk[b], key, page);
}

/* Pool ran out: drop invalid entries and duplicates everywhere. */
static void compact_all(struct mr_policy *p)
{
	struct opt_priv *pr = opt_priv(p);

	for (uint32_t l = 0; l < pr->nr_lruvecs; l++) {
		struct opt_lruvec *lv = &pr->lruvecs[l];

		for (uint32_t b = 0; b < lv->open; b++)
			if (lv->bk[b].head != MR_NONE)
				bucket_filter(p, lv, b, 1);
		for (uint32_t b = 0; b < lv->open; b++)
			bucket_unmark(p, &lv->bk[b]);
	}
}

static struct opt_lruvec *lruvec_of(struct mr_policy *p, const struct mr_folio *f)
{
	return &opt_priv(p)->lruvecs[f->lruvec];
}

/* Push the entries of the folios added since the last access or reclaim. */
static void flush_pending(struct mr_policy *p)
{
	struct opt_priv *pr = opt_priv(p);

	for (uint32_t i = 0; i < pr->nr_pending; i++) {
		uint32_t page = pr->pending[i];
		struct opt_page *n = node(p, page);

		if (!(node_flags(n) & OPT_PENDING))
			continue; /* accessed (entry pushed) or removed since */
		n->v &= ~((uint64_t)OPT_PENDING << OPT_KEY_BITS);
		if (node_state(n) == OPT_HEAP)
			queue_push(p, lruvec_of(p, &p->m->folios[page]), node_key(n), page);
	}
	pr->nr_pending = 0;
}

/* The folio of lruvec lv with the farthest next use, taken out of the queue. */
static uint32_t queue_pop(struct mr_policy *p, struct opt_lruvec *lv)
{
	uint32_t page = never_pop(p, lv);

	if (page != MR_NONE) {
		node_set(node(p, page), OPT_NEVER, OPT_NONE);
		lv->nr--;
		return page;
	}
	for (;;) {
		while (lv->heap_n) {
			struct opt_ent top = lv->heap[0];

			lv->heap[0] = lv->heap[--lv->heap_n];
			heap_sift_down(lv->heap, lv->heap_n, 0);
			if (ent_valid(p, &top)) {
				node_set(node(p, top.page), node_key(node(p, top.page)), OPT_NONE);
				lv->nr--;
				return top.page;
			}
		}
		/* The heap is empty: every valid entry is in a bucket. Close the open region
		 * again (its buckets are empty: their keys went to the heap) and open the
		 * highest bucket holding entries. */
		lv->open = lv->nb;
		while (lv->open > 0 && lv->bk[lv->open - 1].head == MR_NONE)
			lv->open--;
		if (!lv->open)
			return MR_NONE;
		bucket_open(p, lv, --lv->open);
	}
}

/* ---- policy hooks ---- */

/* Put a folio (new or set aside) on the policy's lists: the queue, or the unevictable
 * count. Its key is kept. */
static void opt_putback(struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &p->m->folios[page];
	struct opt_page *n = node(p, page);

	f->flags &= ~MR_PG_ACTIVE;
	f->flags |= MR_PG_LRU;
	if (!folio_evictable(f)) {
		node_set(n, node_key(n), OPT_UNEVICTABLE);
		update_size(p, f, 1, 1);
		return;
	}
	node_set(n, node_key(n), OPT_HEAP);
	lruvec_of(p, f)->nr++;
	queue_push(p, lruvec_of(p, f), node_key(n), page);
	update_size(p, f, 0, 1);
}

static void opt_folio_add(struct mr_policy *p, uint32_t page, unsigned ctx)
{
	struct opt_priv *pr = opt_priv(p);
	struct mr_folio *f = &p->m->folios[page];
	struct opt_page *n = node(p, page);

	(void)ctx;
	if (node_state(n) != OPT_NONE) {
		MR_WARN_ON_ONCE(node_state(n) != OPT_NONE);
		return;
	}
	/* keyed "never" until the engine's access() for it */
	f->flags &= ~MR_PG_ACTIVE;
	f->flags |= MR_PG_LRU;
	if (!folio_evictable(f)) {
		node_set(n, OPT_NEVER, OPT_UNEVICTABLE);
		update_size(p, f, 1, 1);
		return;
	}
	if (pr->nr_pending == OPT_PENDING_MAX)
		flush_pending(p);
	node_set(n, OPT_NEVER, OPT_HEAP | OPT_PENDING);
	pr->pending[pr->nr_pending++] = page;
	lruvec_of(p, f)->nr++;
	update_size(p, f, 0, 1);
}

static void opt_access(struct mr_policy *p, uint32_t page, uint64_t next_use)
{
	struct opt_page *n = node(p, page);
	uint64_t key = key_of(next_use), old = node_key(n);
	unsigned fl = node_flags(n);
	struct opt_lruvec *lv;

	if ((fl & OPT_STATE_MASK) != OPT_HEAP) {
		node_set(n, key, fl);
		return;
	}
	lv = lruvec_of(p, &p->m->folios[page]);
	/* a finite old key is the position of this use: the trace got there */
	if (old != OPT_NEVER && old > opt_priv(p)->now) {
		opt_priv(p)->now = old;
		if ((old >> lv->shift) > lv->purged)
			buckets_purge(p, lv);
	}
	node_set(n, key, OPT_HEAP);
	if (key != old || (fl & OPT_PENDING))
		queue_push(p, lv, key, page);
	/* its entry of the old key, if in the current bucket, is now invalid */
	if (old != OPT_NEVER && key != old && (old >> lv->shift) == lv->purged &&
	    lv->purged < lv->open && ++lv->stale >= lv->trim_at)
		buckets_trim(p, lv);
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
	struct opt_page *n = node(p, page);

	if (node_state(n) == OPT_HEAP) {
		lruvec_of(p, f)->nr--;
		update_size(p, f, 0, -1);
	} else if (node_state(n) == OPT_UNEVICTABLE) {
		update_size(p, f, 1, -1);
	}
	node_set(n, node_key(n), OPT_NONE); /* its entries are invalid from now on */
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

/* folio_end_writeback() clears PG_reclaim; the folio is already back in the queue with
 * its key, so the next reclaim that reaches it frees it. */
static void opt_rotate(struct mr_policy *p, uint32_t page)
{
	p->m->folios[page].flags &= ~MR_PG_RECLAIM;
}

/*
 * kswapd's goal is reached: balance_pgdat() stops at the node's high watermark
 * (pgdat_balanced()) whatever nr_to_reclaim says, and the kernel's policies stop there
 * too (lru between steps; mglru's should_abort_scan()). Freeing more would leave opt
 * with less memory than they have.
 */
static int kswapd_done(struct mr_policy *p, const struct mr_scan_control *sc)
{
	const struct mr_machine_ops *ops = p->m->ops;

	return sc->kswapd && ops->node_watermark_ok &&
	       ops->node_watermark_ok(p->m, sc->node, 0) > 0;
}

/*
 * Reclaim what the scan control still asks for from one lruvec, farthest next use first,
 * through shrink_folio_list: in memcg reclaim what the charge needs (nr_needed), in
 * direct reclaim nr_to_reclaim, less what is freed already; for kswapd, one folio at a
 * time and only until the node is balanced (kswapd_done()).
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
	need = sc->nr_to_reclaim;
	if (sc->nr_needed && sc->nr_needed < need)
		need = sc->nr_needed;	/* MIN: what the miss needs, not the batch */
	need = need > sc->nr_reclaimed ? need - sc->nr_reclaimed : 0;
	if (!need)
		return;
	flush_pending(p);

	while (reclaimed < need && lv->nr && !kswapd_done(p, sc)) {
		struct mr_folio_list list = { pr->hold, 0, MR_SWAP_CLUSTER_MAX };
		uint64_t taken[2] = { 0, 0 }, kept[2] = { 0, 0 };
		uint64_t want = sc->kswapd ? 1 : need - reclaimed;

		/* isolate the farthest folios */
		while (list.n < list.cap && list.n < want && lv->nr) {
			uint32_t page = queue_pop(p, lv);
			struct mr_folio *f;

			if (MR_WARN_ON_ONCE(page == MR_NONE)) {
				lv->nr = 0; /* the count disagrees with the entries: a bug */
				break;
			}
			f = &p->m->folios[page];
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

static void opt_fini(struct mr_policy *p)
{
	struct opt_priv *pr = opt_priv(p);

	for (uint32_t i = 0; pr->lruvecs && i < pr->nr_lruvecs; i++) {
		free(pr->lruvecs[i].heap);
		free(pr->lruvecs[i].never);
		free(pr->lruvecs[i].bk);
	}
	free(pr->lruvecs);
	free(pr->aside);
	free(pr->pool);
	pr->lruvecs = NULL;
	pr->aside = NULL;
	pr->pool = NULL;
}

static int opt_init(struct mr_policy *p, struct mr_error *err)
{
	struct opt_priv *pr = opt_priv(p);
	struct mr_machine *m = p->m;
	uint64_t *pages_of = NULL, blocks;
	uint32_t i;

	pr->nr_lruvecs = m->nr_lruvecs;
	pr->free_head = MR_NONE;
	pr->lruvecs = calloc(pr->nr_lruvecs ? pr->nr_lruvecs : 1, sizeof(*pr->lruvecs));
	pr->aside = calloc(m->nr_pages ? m->nr_pages : 1, sizeof(*pr->aside));
	pages_of = calloc(pr->nr_lruvecs ? pr->nr_lruvecs : 1, sizeof(*pages_of));
	if (!pr->lruvecs || !pr->aside || !pages_of)
		goto nomem;
	for (i = 0; i < m->nr_pages; i++)
		if (m->folios[i].lruvec < pr->nr_lruvecs)
			pages_of[m->folios[i].lruvec]++;
	/* Pool: two entries per page, plus a partly filled block per bucket. The heap of
	 * each lruvec: two entries per page of it. Both reserved untouched (calloc of
	 * fresh pages), used as needed. */
	blocks = (2 * (uint64_t)m->nr_pages + OPT_BLK - 1) / OPT_BLK + 16;
	for (i = 0; i < pr->nr_lruvecs; i++) {
		struct opt_lruvec *lv = &pr->lruvecs[i];
		uint32_t nb = 16;

		while (nb < OPT_NB_MAX && nb < pages_of[i] / 64)
			nb *= 2;
		lv->nb = nb;
		lv->open = nb;
		lv->split_at = OPT_HEAP_SPLIT;
		lv->trim_at = OPT_TRIM_MIN;
		lv->heap_cap = (uint32_t)(2 * pages_of[i] + 64);
		lv->heap = calloc(lv->heap_cap, sizeof(*lv->heap));
		lv->never_cap = (uint32_t)(2 * pages_of[i] + 64);
		lv->never = calloc(lv->never_cap, sizeof(*lv->never));
		lv->bk = malloc(nb * sizeof(*lv->bk));
		if (!lv->heap || !lv->never || !lv->bk)
			goto nomem;
		for (uint32_t b = 0; b < nb; b++)
			lv->bk[b].head = lv->bk[b].tail = MR_NONE;
		blocks += nb;
	}
	if (blocks > UINT32_MAX - 1)
		blocks = UINT32_MAX - 1;
	pr->pool_cap = (uint32_t)blocks;
	pr->pool = calloc(pr->pool_cap, sizeof(*pr->pool));
	if (!pr->pool)
		goto nomem;
	free(pages_of);
	return 0;
nomem:
	free(pages_of);
	opt_fini(p);
	return mr_error_set(err, MR_ENOMEM, "opt: no memory for %u pages", m->nr_pages);
}

/*
 * Every folio in the queue has a valid entry where its key belongs (the never-heap; a
 * bucket below the open region, by key range; or the heap), or is pending; the heaps
 * are ordered; counts match. Marks pages through OPT_MARK and clears them again.
 */
static unsigned opt_check(struct mr_policy *p)
{
	struct opt_priv *pr = opt_priv(p);
	struct mr_machine *m = p->m;
	unsigned problems = 0;
	const uint64_t mark = (uint64_t)OPT_MARK << OPT_KEY_BITS;
	uint32_t i, page;

#define BAD(cond) ((cond) ? (MR_WARN_ON_ONCE(cond), problems++, 1) : 0)
	for (i = 0; i < pr->nr_lruvecs; i++) {
		struct opt_lruvec *lv = &pr->lruvecs[i];
		uint64_t nr = 0;

		BAD(lv->heap_n > lv->heap_cap || lv->open > lv->nb || lv->purged > lv->nb);
		BAD(lv->never_n > lv->never_cap);
		for (uint32_t k = 1; k < lv->never_n; k++)
			BAD(lv->never[k] < lv->never[(k - 1) / 2]);
		for (uint32_t k = 0; k < lv->never_n; k++) {
			uint32_t pg = (uint32_t)lv->never[k];

			if (BAD(pg >= m->nr_pages))
				continue;
			if (never_valid(p, lv->never[k])) {
				BAD(m->folios[pg].lruvec != i);
				node(p, pg)->v |= mark;
			}
		}
		for (uint32_t k = 1; k < lv->heap_n; k++)
			BAD(ent_greater(&lv->heap[k], &lv->heap[(k - 1) / 2]));
		for (uint32_t k = 0; k < lv->heap_n; k++) {
			const struct opt_ent *e = &lv->heap[k];

			if (BAD(e->page >= m->nr_pages))
				continue;
			if (ent_valid(p, e)) {
				BAD(m->folios[e->page].lruvec != i);
				BAD(e->key == OPT_NEVER || bucket_of(lv, e->key) < lv->open);
				node(p, e->page)->v |= mark;
			}
		}
		for (uint32_t b = 0; b < lv->nb; b++) {
			uint64_t n = 0;

			BAD(b >= lv->open && lv->bk[b].head != MR_NONE);
			for (uint32_t k = lv->bk[b].head; k != MR_NONE && n <= pr->pool_cap;
			     k = blk(pr, k)->next, n++) {
				const struct opt_block *bl = blk(pr, k);

				BAD(k >= pr->pool_fresh || bl->n > OPT_BLK);
				BAD(bl->next == MR_NONE && k != lv->bk[b].tail);
				for (uint32_t e = 0; e < bl->n && e < OPT_BLK; e++) {
					if (BAD(bl->e[e].page >= m->nr_pages))
						continue;
					if (!bent_valid(p, lv, b, &bl->e[e]))
						continue;
					BAD(m->folios[bl->e[e].page].lruvec != i);
					node(p, bl->e[e].page)->v |= mark;
				}
			}
		}
		for (page = 0; page < m->nr_pages; page++) {
			struct opt_page *n = node(p, page);

			if (m->folios[page].lruvec != i || node_state(n) != OPT_HEAP)
				continue;
			nr++;
			BAD(!(node_flags(n) & (OPT_MARK | OPT_PENDING)));
		}
		BAD(nr != lv->nr);
	}
	for (page = 0; page < m->nr_pages; page++) {
		node(p, page)->v &= ~mark;
		if (node_state(node(p, page)) != OPT_NONE)
			BAD(!(m->folios[page].flags & MR_PG_RESIDENT));
	}
#undef BAD
	return problems;
}

const struct mr_policy_ops mr_opt_ops = {
	.abi = MR_POLICY_ABI,
	.name = "opt",
	.help = "Belady's MIN: evicts the folio referenced farthest in the future (a use or a "
		"recorded page-cache insertion); the lower bound on misses for a memory size "
		"(needs the trace's next-use times)",
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
