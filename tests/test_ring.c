// SPDX-License-Identifier: GPL-2.0
/*
 * test_ring.c - unit tests of policy/ring.[ch], the ring of frame ids with holes that
 * lru's and mglru's lists are: a randomized model test against a plain array-backed
 * list (the seed is printed; MR_TEST_SEED replays one), and the edge cases: the empty
 * ring, one entry, a ring of holes, wraparound, compaction, growth up to and past the
 * reserve given to ring_init().
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mr_test.h"
#include "ring.h"

#define NR_IDS 4096u

/* Per-id state as a policy keeps it: the slot first, something after it. */
struct page {
	uint32_t slot;
	uint32_t canary;
};

static struct page pages[NR_IDS];

static struct ring_slots slots(void)
{
	return (struct ring_slots){ (uint8_t *)pages, sizeof(struct page) };
}

/* The reference: the list from tail (model[0]) to head. */
struct model {
	uint32_t ids[NR_IDS];
	uint32_t n;
	bool on[NR_IDS];
};

static void model_add_head(struct model *m, uint32_t id)
{
	m->ids[m->n++] = id;
	m->on[id] = true;
}

static void model_add_tail(struct model *m, uint32_t id)
{
	memmove(m->ids + 1, m->ids, m->n * sizeof(m->ids[0]));
	m->ids[0] = id;
	m->n++;
	m->on[id] = true;
}

static void model_del(struct model *m, uint32_t id)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (m->ids[i] == id) {
			memmove(m->ids + i, m->ids + i + 1, (m->n - i - 1) * sizeof(m->ids[0]));
			m->n--;
			m->on[id] = false;
			return;
		}
	CHECK(!"model_del: id not in the model");
}

/* The ring is the model: same live entries in the same order, both ends live, each
 * entry's slot pointing back at it, ring_check() silent; walked from the tail with
 * ring_at() and from the head with ring_below(). */
static void check_same(const struct ring *r, const struct model *m)
{
	uint32_t i = 0, k, id;

	CHECK_EQ_U64(ring_check(r, slots(), NR_IDS), 0);
	CHECK_EQ_U64(r->live, m->n);
	CHECK(r->n >= r->live && r->n <= r->cap);
	CHECK_EQ_U64(ring_tail(r), m->n ? m->ids[0] : MR_NONE);
	CHECK_EQ_U64(ring_head(r), m->n ? m->ids[m->n - 1] : MR_NONE);
	CHECK(r->n || !m->n);
	for (k = 0; k < r->n; k++) {
		id = ring_at(r, k);
		if (id == MR_NONE)
			continue;
		if (i >= m->n || id != m->ids[i]) {
			CHECK(!"ring differs from the model, walked from the tail");
			return;
		}
		CHECK_EQ_U64(ring_pos(r, pages[id].slot), k);
		i++;
	}
	CHECK_EQ_U64(i, m->n);
	/* from the head: ring_below() from one past the head, then from each entry's pos */
	i = m->n;
	for (id = ring_below(r, r->n); id != MR_NONE; id = ring_below(r, ring_pos(r, pages[id].slot))) {
		if (!i || id != m->ids[i - 1]) {
			CHECK(!"ring differs from the model, walked from the head");
			return;
		}
		i--;
	}
	CHECK_EQ_U64(i, 0);
	for (id = 0; id < NR_IDS; id++)
		if (pages[id].canary != ~id) {
			CHECK(!"a slot write hit the state after it");
			return;
		}
}

static void reset_pages(void)
{
	for (uint32_t id = 0; id < NR_IDS; id++)
		pages[id] = (struct page){ 0xdeadbeef, ~id };
}

/* Random adds at both ends and deletes, with phases that fill the ring up (growth) and
 * drain it (holes, compaction), against the model. */
static void run_model(uint64_t seed, uint32_t max_cap, uint32_t ops)
{
	static struct model m;
	struct ring r;
	uint64_t st = seed | 1;

	memset(&m, 0, sizeof(m));
	reset_pages();
	CHECK_EQ_U64(ring_init(&r, max_cap), 0);
	check_same(&r, &m);
	for (uint32_t op = 0; op < ops; op++) {
		/* fill bias swings every 2048 ops between mostly adding and mostly deleting */
		unsigned add_pct = (op / 2048) % 2 ? 30 : 70;
		uint64_t x = mr_test_rand(&st);
		uint32_t id = (uint32_t)((x >> 8) % NR_IDS);

		if ((x & 0xff) % 100 < add_pct && m.n < NR_IDS) {
			while (m.on[id])
				id = (id + 1) % NR_IDS;
			if (x & (1u << 30)) {
				ring_add_head(&r, slots(), id);
				model_add_head(&m, id);
			} else {
				ring_add_tail(&r, slots(), id);
				model_add_tail(&m, id);
			}
		} else if (m.n) {
			uint32_t victim = m.ids[(x >> 32) % m.n];

			if (x & (1u << 31)) {
				ring_del(&r, pages[victim].slot, victim);
			} else {
				/* a walk: clear a few by position, trim once */
				uint32_t k = ring_pos(&r, pages[victim].slot);

				ring_clear(&r, pages[victim].slot, victim);
				model_del(&m, victim);
				victim = ring_below(&r, k);
				if (victim != MR_NONE) {
					ring_clear(&r, pages[victim].slot, victim);
				}
				ring_trim(&r);
				if (victim == MR_NONE) {
					check_same(&r, &m);
					continue;
				}
			}
			model_del(&m, victim);
		}
		if (op % 7 == 0 || ops < 5000)
			check_same(&r, &m);
		if (mr_test_failures) {
			fprintf(stderr, "seed %llu max_cap %u: first failure at op %u\n",
				(unsigned long long)seed, max_cap, op);
			break;
		}
	}
	check_same(&r, &m);
	ring_fini(&r);
}

static void test_model_random(void)
{
	uint64_t seed = mr_test_seed();

	/* a reserve that holds everything, one that must grow past init's, and a small one */
	run_model(seed, ring_reserve(NR_IDS), 40000);
	run_model(seed + 1, RING_MIN_CAP, 40000);
	run_model(seed + 2, 256, 40000);
}

/* Fixed seeds, so that a regression shows on every run, not only on some seeds. */
static void test_model_fixed(void)
{
	for (uint64_t seed = 1; seed <= 8; seed++)
		run_model(seed * 0x9e3779b97f4a7c15ull, seed & 1 ? RING_MIN_CAP : 1024, 12000);
}

static void test_empty(void)
{
	struct ring r, z = { 0 };

	CHECK_EQ_U64(ring_init(&r, RING_MIN_CAP), 0);
	CHECK_EQ_U64(r.n, 0);
	CHECK_EQ_U64(r.live, 0);
	CHECK_EQ_U64(r.cap, RING_MIN_CAP);
	CHECK_EQ_U64(ring_tail(&r), MR_NONE);
	CHECK_EQ_U64(ring_head(&r), MR_NONE);
	CHECK_EQ_U64(ring_below(&r, 0), MR_NONE);
	ring_trim(&r);
	CHECK_EQ_U64(r.n, 0);
	CHECK_EQ_U64(ring_check(&r, slots(), NR_IDS), 0);
	ring_fini(&r);
	ring_fini(&r);
	ring_fini(NULL);
	ring_fini(&z);
	/* the reserve must be a power of two of at least RING_MIN_CAP */
	CHECK_EQ_U64(ring_init(&r, RING_MIN_CAP / 2), MR_EINVAL);
	CHECK_EQ_U64(ring_init(&r, RING_MIN_CAP * 3), MR_EINVAL);
	CHECK_EQ_U64(ring_reserve(0), RING_MIN_CAP);
	CHECK_EQ_U64(ring_reserve(31), RING_MIN_CAP);
	CHECK_EQ_U64(ring_reserve(32), 2 * RING_MIN_CAP);
	CHECK_EQ_U64(ring_reserve(1000), 2048);
}

static void test_single(void)
{
	static struct model m;
	struct ring r;

	memset(&m, 0, sizeof(m));
	reset_pages();
	CHECK_EQ_U64(ring_init(&r, RING_MIN_CAP), 0);
	for (int end = 0; end < 2; end++) {
		if (end)
			ring_add_tail(&r, slots(), 7);
		else
			ring_add_head(&r, slots(), 7);
		model_add_head(&m, 7);
		check_same(&r, &m);
		CHECK_EQ_U64(r.n, 1);
		CHECK_EQ_U64(ring_tail(&r), 7);
		CHECK_EQ_U64(ring_head(&r), 7);
		CHECK_EQ_U64(ring_below(&r, 1), 7);
		CHECK_EQ_U64(ring_below(&r, 0), MR_NONE);
		ring_del(&r, pages[7].slot, 7);
		model_del(&m, 7);
		check_same(&r, &m);
		CHECK_EQ_U64(r.n, 0);
	}
	ring_fini(&r);
}

/* Clearing every entry by position leaves a ring of holes until ring_trim() empties it;
 * a ring with holes inside keeps them, and its ends stay live. */
static void test_all_holes(void)
{
	static struct model m;
	struct ring r;
	uint32_t id;

	memset(&m, 0, sizeof(m));
	reset_pages();
	CHECK_EQ_U64(ring_init(&r, RING_MIN_CAP), 0);
	for (id = 0; id < 40; id++) {
		ring_add_head(&r, slots(), id);
		model_add_head(&m, id);
	}
	/* holes inside: every odd id but the head's neighbour stays */
	for (id = 1; id < 39; id += 2) {
		ring_del(&r, pages[id].slot, id);
		model_del(&m, id);
	}
	check_same(&r, &m);
	CHECK_EQ_U64(r.n, 40);
	for (uint32_t k = r.n; k--;) {
		id = ring_at(&r, k);
		if (id != MR_NONE) {
			ring_clear(&r, pages[id].slot, id);
			model_del(&m, id);
		}
	}
	CHECK_EQ_U64(r.live, 0);
	CHECK_EQ_U64(ring_below(&r, r.n), MR_NONE);
	ring_trim(&r);
	CHECK_EQ_U64(r.n, 0);
	check_same(&r, &m);
	ring_fini(&r);
}

/* Adds at the tail wrap below slot 0; a full ring with holes is compacted in place
 * (same cap), one half live or more is doubled; order and slots survive both. */
static void test_wrap_and_repack(void)
{
	static struct model m;
	struct ring r;
	uint32_t id;

	memset(&m, 0, sizeof(m));
	reset_pages();
	CHECK_EQ_U64(ring_init(&r, 4 * RING_MIN_CAP), 0);
	for (id = 0; id < 10; id++) {
		ring_add_head(&r, slots(), id);
		model_add_head(&m, id);
	}
	for (; id < 20; id++) {
		ring_add_tail(&r, slots(), id);
		model_add_tail(&m, id);
	}
	check_same(&r, &m);
	CHECK(r.lo + r.n > r.cap); /* wrapped */
	/* fill to cap, then punch holes so that fewer than half are live */
	for (; r.n < r.cap; id++) {
		ring_add_head(&r, slots(), id);
		model_add_head(&m, id);
	}
	for (uint32_t k = 1; k + 1 < r.n; k++) {
		uint32_t x = ring_at(&r, k);

		if (x != MR_NONE && k % 4) {
			ring_del(&r, pages[x].slot, x);
			model_del(&m, x);
		}
	}
	check_same(&r, &m);
	CHECK(r.live < r.cap / 2 && r.n == r.cap);
	ring_add_tail(&r, slots(), id);
	model_add_tail(&m, id++);
	CHECK_EQ_U64(r.cap, RING_MIN_CAP); /* compacted, not grown */
	CHECK_EQ_U64(r.n, r.live);
	check_same(&r, &m);
	/* fill again: now at least half is live, so it doubles, twice, up to the reserve */
	while (r.cap < 4 * RING_MIN_CAP || r.n < r.cap) {
		ring_add_head(&r, slots(), id);
		model_add_head(&m, id++);
	}
	check_same(&r, &m);
	CHECK_EQ_U64(r.cap, 4 * RING_MIN_CAP);
	CHECK_EQ_U64(r.max_cap, 4 * RING_MIN_CAP);
	/* past the reserve: the reserve itself doubles (realloc) */
	ring_add_tail(&r, slots(), id);
	model_add_tail(&m, id++);
	CHECK_EQ_U64(r.cap, 8 * RING_MIN_CAP);
	CHECK_EQ_U64(r.max_cap, 8 * RING_MIN_CAP);
	check_same(&r, &m);
	ring_fini(&r);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_empty),
	MR_CASE(test_single),
	MR_CASE(test_all_holes),
	MR_CASE(test_wrap_and_repack),
	MR_CASE(test_model_fixed),
	MR_CASE(test_model_random),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_ring", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
