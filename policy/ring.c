// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - growth, compaction and checks of the policies' list rings (ring.h); the
 * per-entry operations are inline in ring.h.
 */
#include "ring.h"

#include <stdlib.h>

/*
 * Move the live entries of r into a ring of new_cap slots, in order and without holes,
 * updating each one's slot. A ring of the same size is compacted in place (entries only
 * move towards the tail); a doubled one takes its entries in its upper half, which the
 * old ring never used, so reads and writes never overlap.
 */
static void ring_repack(struct ring *r, struct ring_slots s, uint32_t new_cap)
{
	uint32_t old_mask = r->cap - 1, new_mask = new_cap - 1;
	uint32_t base = new_cap == r->cap ? r->lo : r->cap, w = 0;

	for (uint32_t k = 0; k < r->n; k++) {
		uint32_t id = r->ids[(r->lo + k) & old_mask], dst;

		if (k + 8 < r->n) {
			uint32_t ahead = r->ids[(r->lo + k + 8) & old_mask];

			if (ahead != MR_NONE)
				mr_prefetchw(ring_slot_of(s, ahead));
		}
		if (id == MR_NONE)
			continue;
		dst = (base + w++) & new_mask;
		r->ids[dst] = id;
		*ring_slot_of(s, id) = dst;
	}
	r->cap = new_cap;
	r->lo = base & new_mask;
	r->n = w;
}

/*
 * A full ring: compact it, or double it when half of it is live. The reserve covers
 * what init expected; past it the reserve itself grows.
 */
void ring_repack_full(struct ring *r, struct ring_slots s)
{
	if (r->live >= r->cap / 2 && r->cap == r->max_cap && r->max_cap < (1u << 31)) {
		uint32_t *ids = realloc(r->ids, 2 * (size_t)r->max_cap * sizeof(*ids));

		/* tested apart: MR_WARN_ON_ONCE is 0 in release builds */
		if (ids) {
			r->ids = ids;
			r->max_cap *= 2;
		} else {
			MR_WARN_ON_ONCE(!ids); /* then it is only compacted */
		}
	}
	if (r->live >= r->cap / 2 && r->cap < r->max_cap)
		ring_repack(r, s, r->cap * 2);
	else
		ring_repack(r, s, r->cap);
}

uint32_t ring_reserve(uint64_t nr)
{
	uint64_t want = 2 * nr + 2;
	uint32_t c = RING_MIN_CAP;

	while (c < want && c < (1u << 31))
		c *= 2;
	return c;
}

int ring_init(struct ring *r, uint32_t max_cap)
{
	*r = (struct ring){ 0 };
	if (max_cap < RING_MIN_CAP || (max_cap & (max_cap - 1)))
		return MR_EINVAL;
	r->ids = calloc(max_cap, sizeof(*r->ids));
	if (!r->ids)
		return MR_ENOMEM;
	r->max_cap = max_cap;
	r->cap = RING_MIN_CAP;
	return 0;
}

void ring_fini(struct ring *r)
{
	if (!r)
		return;
	free(r->ids);
	*r = (struct ring){ 0 };
}

/* Counted and reported in every build: the checker was asked for (MR_CHECK_COUNT()). */
#define RING_CHECK(cond) MR_CHECK_COUNT(problems, cond)

unsigned ring_check(const struct ring *r, struct ring_slots s, uint32_t nr_ids)
{
	unsigned problems = 0;
	uint32_t live = 0;

	RING_CHECK(r->n <= r->cap && r->cap <= r->max_cap && r->cap &&
		   !(r->cap & (r->cap - 1)));
	if (problems)
		return problems;
	if (r->n) {
		RING_CHECK(ring_at(r, 0) != MR_NONE);
		RING_CHECK(ring_at(r, r->n - 1) != MR_NONE);
	}
	for (uint32_t k = 0; k < r->n; k++) {
		uint32_t id = ring_at(r, k);

		if (id == MR_NONE)
			continue;
		live++;
		RING_CHECK(id < nr_ids);
		if (id >= nr_ids)
			continue;
		RING_CHECK(*ring_slot_of(s, id) == ((r->lo + k) & (r->cap - 1)));
	}
	RING_CHECK(live == r->live);
	return problems;
}
