/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - private to policy/: the policies compiled into memreplay, in the order the
 * registry lists them. Each lives in its own file (lru.c, mglru.c, opt.c).
 */
#ifndef MR_POLICY_BUILTIN_H
#define MR_POLICY_BUILTIN_H

#include "mr_policy.h"

extern const struct mr_policy_ops mr_lru_ops;   /* lru.c: classic active/inactive LRU */
extern const struct mr_policy_ops mr_mglru_ops; /* mglru.c: Multi-Gen LRU model */
extern const struct mr_policy_ops mr_opt_ops;   /* opt.c: Belady's MIN */

/* opt.c: page's next use (UINT64_MAX = never) and 1 when it is in opt's queue
 * (where.c, mr_policy_where.h). */
int opt_folio_next_use(const struct mr_policy *p, uint32_t page, uint64_t *next_use);

#endif /* MR_POLICY_BUILTIN_H */
