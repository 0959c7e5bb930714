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

#endif /* MR_POLICY_BUILTIN_H */
