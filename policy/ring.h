/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - a list of frame ids as a ring with holes, for the policies' LRU lists.
 *
 * The kernel links folios into doubly linked lists (include/linux/list.h); walked from
 * the tail, such a list is a chain of dependent loads into cold folios, one per folio
 * reclaim looks at. A ring keeps a list as a deque of frame ids in an array instead:
 * ring_add_head() appends at the head end (list_add), ring_add_tail() prepends at the
 * tail end (list_add_tail), ring_del() leaves a hole (MR_NONE) (list_del). The live
 * entries, read from the tail, are exactly the list, so every walk visits the same
 * folios in the same order; but the next folios of a walk are known in advance and can
 * be prefetched. Holes at either end are trimmed at once, so both ends are always live
 * entries (n == 0 is the empty list). When a ring is full it is compacted (holes
 * squeezed out) or, when at least half of it is live, doubled; either way each moved
 * entry's slot is rewritten (amortised O(1) per insertion).
 *
 * Each entry remembers its slot: a uint32_t at the start of its per-page state, which
 * the caller names by the base and stride of that state (struct ring_slots), so a
 * policy keeps its own per-page layout. A ring reserves its largest size at init as
 * zeroed memory it has not touched yet (calloc), so nothing is allocated on the
 * per-event path and only what is used is resident; a ring that outgrows its reserve
 * (a machine that assigns lruvecs after init) grows it with realloc.
 */
#ifndef MR_POLICY_RING_H
#define MR_POLICY_RING_H

#include "mr_policy.h"

#include <stddef.h>
#include <stdint.h>

#define RING_MIN_CAP 64u

struct ring {
	uint32_t *ids;    /* [max_cap] reserved; [cap] in use */
	uint32_t cap;     /* power of two; 0 for a ring never initialised */
	uint32_t max_cap;
	uint32_t lo;      /* slot of the tail */
	uint32_t n;       /* slots in use from lo (live entries and holes) */
	uint32_t live;    /* live entries */
};

/* Where each entry's slot is kept: the uint32_t at base + id * stride. */
struct ring_slots {
	uint8_t *base;
	size_t stride;
};

static inline uint32_t *ring_slot_of(struct ring_slots s, uint32_t id)
{
	return (uint32_t *)(void *)(s.base + (size_t)id * s.stride);
}

/* The k-th slot from the tail (k < n): an id or MR_NONE (a hole). */
static inline uint32_t ring_at(const struct ring *r, uint32_t k)
{
	return r->ids[(r->lo + k) & (r->cap - 1)];
}

/* Its position from the tail of the entry in slot. */
static inline uint32_t ring_pos(const struct ring *r, uint32_t slot)
{
	return (slot - r->lo) & (r->cap - 1);
}

static inline uint32_t ring_tail(const struct ring *r)
{
	return r->n ? ring_at(r, 0) : MR_NONE;
}

static inline uint32_t ring_head(const struct ring *r)
{
	return r->n ? ring_at(r, r->n - 1) : MR_NONE;
}

/* The nearest live entry on the tail side of position k, or MR_NONE. */
static inline uint32_t ring_below(const struct ring *r, uint32_t k)
{
	while (k--) {
		uint32_t id = ring_at(r, k);

		if (id != MR_NONE)
			return id;
	}
	return MR_NONE;
}

void ring_repack_full(struct ring *r, struct ring_slots s);

/* Room for one more entry: a full ring is compacted or doubled (ring.c). */
static inline void ring_make_room(struct ring *r, struct ring_slots s)
{
	if (__builtin_expect(r->n == r->cap, 0))
		ring_repack_full(r, s);
}

/* list_add(): id at the head end. */
static inline void ring_add_head(struct ring *r, struct ring_slots s, uint32_t id)
{
	uint32_t slot;

	ring_make_room(r, s);
	slot = (r->lo + r->n) & (r->cap - 1);
	r->ids[slot] = id;
	*ring_slot_of(s, id) = slot;
	r->n++;
	r->live++;
}

/* list_add_tail(): id at the tail end. */
static inline void ring_add_tail(struct ring *r, struct ring_slots s, uint32_t id)
{
	ring_make_room(r, s);
	r->lo = (r->lo - 1) & (r->cap - 1);
	r->ids[r->lo] = id;
	*ring_slot_of(s, id) = r->lo;
	r->n++;
	r->live++;
}

/* Drop holes at both ends, so that both ends are live entries. */
static inline void ring_trim(struct ring *r)
{
	uint32_t mask = r->cap - 1;

	while (r->n && r->ids[r->lo] == MR_NONE) {
		r->lo = (r->lo + 1) & mask;
		r->n--;
	}
	while (r->n && r->ids[(r->lo + r->n - 1) & mask] == MR_NONE)
		r->n--;
}

/* Take id (in slot) out, leaving a hole; ring_del() also trims the ends. A walk that
 * deletes several entries by position calls ring_clear() for each and ring_trim() once. */
static inline void ring_clear(struct ring *r, uint32_t slot, uint32_t id)
{
	MR_WARN_ON_ONCE(slot >= r->cap || r->ids[slot] != id);
	r->ids[slot] = MR_NONE;
	r->live--;
}

static inline void ring_del(struct ring *r, uint32_t slot, uint32_t id)
{
	ring_clear(r, slot, id);
	ring_trim(r);
}

/* The reserve a ring of a list that can hold up to nr entries needs: twice that
 * (a compacted ring half live doubles), rounded up to a power of two. */
uint32_t ring_reserve(uint64_t nr);

/* RING_MIN_CAP slots in use, max_cap (a power of two >= RING_MIN_CAP) reserved.
 * Returns 0 or MR_ENOMEM; ring_fini() frees what init allocated (NULL-safe). */
int ring_init(struct ring *r, uint32_t max_cap);
void ring_fini(struct ring *r);

/* Problems in r: size fields, holes at the ends, entries whose slot does not point
 * back, a live count that is not the number of ids (each reported by MR_WARN_ON_ONCE).
 * For the policies' checkers. */
unsigned ring_check(const struct ring *r, struct ring_slots s, uint32_t nr_ids);

#endif /* MR_POLICY_RING_H */
