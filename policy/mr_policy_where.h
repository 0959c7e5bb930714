/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_policy_where.h - where a folio stands in a policy's order, for people reading a
 * page's history (`memreplay explain`, docs/replay.md "Why was this page evicted").
 *
 * This is not part of the plugin API (mr_policy.h, MR_POLICY_ABI): it reads the built-in
 * policies' own state (mglru's generations) and, for any other policy, only the folio
 * flags every policy keeps (PG_lru, PG_active: the classic lists), so adding it changed
 * no layout a plugin sees. Read-only: it changes nothing a policy decides on.
 */
#ifndef MR_POLICY_WHERE_H
#define MR_POLICY_WHERE_H

#include <stdint.h>

#include "mr_policy.h"

/* Where a folio is. Zeroed fields are "does not apply"; two calls on an unchanged
 * folio give byte-identical structs, so a caller can memcmp() them to see a move. */
struct mr_folio_where {
	char list[24];      /* "gen" (mglru), "queue" (opt), "active_file", "inactive_anon", ...,
			     * "unevictable", "" when on no list (isolated, not resident) */
	int32_t gen;        /* mglru: the generation index (seq % MAX_NR_GENS), else -1 */
	uint32_t refs;      /* mglru: folio_lru_refs() (its tier's reference count) */
	uint64_t seq;       /* mglru: the sequence number of its generation */
	uint64_t min_seq;   /* mglru: the lruvec's min_seq of the folio's type */
	uint64_t max_seq;   /* mglru: the lruvec's max_seq (an aging raises it) */
	uint64_t next_use;  /* opt ("queue"): the reference position of its next use,
			     * UINT64_MAX = never; 0 otherwise */
};

/* Fill *w for page under p. Returns 0; MR_EINVAL for a page beyond the machine's. */
int mr_policy_folio_where(const struct mr_policy *p, uint32_t page, struct mr_folio_where *w);

#endif /* MR_POLICY_WHERE_H */
