/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - private to policy/: the kernel's ways of counting an event, for policies
 * that want the same split between /proc/vmstat and memory.stat as the kernel.
 * mr_count() (mr_policy.h) is mod_lruvec_state(): both.
 */
#ifndef MR_POLICY_COUNTERS_H
#define MR_POLICY_COUNTERS_H

#include "mr_policy.h"

/* count_vm_events(): /proc/vmstat only (no memory.stat field for it). */
static inline void count_vm_events(struct mr_machine *m, unsigned item, uint64_t n)
{
	m->vmstat[item] += n;
}

/* count_memcg_events(): memory.stat of the lruvec's memcg only. */
static inline void count_memcg_events(struct mr_machine *m, uint32_t lruvec, unsigned item,
				      uint64_t n)
{
	m->lruvec_stat[(size_t)lruvec * MR_NR_VMSTAT + item] += n;
}

_Static_assert(MR_VM_PGSCAN_DIRECT - MR_VM_PGSCAN_KSWAPD ==
		       MR_VM_PGSTEAL_DIRECT - MR_VM_PGSTEAL_KSWAPD,
	       "reclaimer_offset() assumes the same kswapd/direct layout");
_Static_assert(MR_VM_PGSCAN_FILE == MR_VM_PGSCAN_ANON + 1 &&
		       MR_VM_PGSTEAL_FILE == MR_VM_PGSTEAL_ANON + 1 &&
		       MR_VM_WORKINGSET_REFAULT_FILE == MR_VM_WORKINGSET_REFAULT_ANON + 1 &&
		       MR_VM_WORKINGSET_ACTIVATE_FILE == MR_VM_WORKINGSET_ACTIVATE_ANON + 1 &&
		       MR_VM_WORKINGSET_RESTORE_FILE == MR_VM_WORKINGSET_RESTORE_ANON + 1,
	       "counters indexed by ITEM_ANON + file");

/* The kswapd/direct counter of base (MR_VM_PGSCAN_KSWAPD or MR_VM_PGSTEAL_KSWAPD)
 * for this reclaimer (reclaimer_offset()), and base's anon/file split. */
static inline unsigned reclaimer_item(const struct mr_scan_control *sc, unsigned base)
{
	return base + (sc->kswapd ? 0 : MR_VM_PGSCAN_DIRECT - MR_VM_PGSCAN_KSWAPD);
}

static inline unsigned reclaim_split_item(unsigned base, int file)
{
	return (base == MR_VM_PGSCAN_KSWAPD ? MR_VM_PGSCAN_ANON : MR_VM_PGSTEAL_ANON) +
	       (unsigned)file;
}

/*
 * [6.12] a reclaim event counted as `if (!cgroup_reclaim(sc)) __count_vm_events(item, n);
 * count_memcg_events(memcg, item, n)`: /proc/vmstat only outside cgroup reclaim,
 * memory.stat always (pgscan/pgsteal_{kswapd,direct}, pgrefill).
 */
static inline void count_reclaimer_events(struct mr_machine *m, uint32_t lruvec,
					  const struct mr_scan_control *sc, unsigned item,
					  uint64_t n)
{
	if (!sc->memcg_reclaim)
		count_vm_events(m, item, n);
	count_memcg_events(m, lruvec, item, n);
}

/*
 * [6.12] shrink_inactive_list()'s and MGLRU's accounting of pgscan/pgsteal: base is
 * MR_VM_PGSCAN_KSWAPD or MR_VM_PGSTEAL_KSWAPD. The kswapd/direct counter as above; the
 * anon/file split is vmstat only.
 */
static inline void count_reclaim_events(struct mr_machine *m, uint32_t lruvec,
					const struct mr_scan_control *sc, unsigned base,
					int file, uint64_t n)
{
	count_reclaimer_events(m, lruvec, sc, reclaimer_item(sc, base), n);
	count_vm_events(m, reclaim_split_item(base, file), n);
}

#endif /* MR_POLICY_COUNTERS_H */
