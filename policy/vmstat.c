// SPDX-License-Identifier: GPL-2.0
/* vmstat.c - kernel names of the machine counters (MR_VMSTAT_LIST in mr_policy.h). */
#include "mr_policy.h"

static const char *const vmstat_names[MR_NR_VMSTAT] = {
#define MR_VMSTAT_NAME(id, name) [MR_VM_##id] = name,
	MR_VMSTAT_LIST(MR_VMSTAT_NAME)
#undef MR_VMSTAT_NAME
};

/* Kernel name of counter item ("workingset_refault_file"); NULL when out of range. */
const char *mr_vmstat_name(unsigned item)
{
	return item < MR_NR_VMSTAT ? vmstat_names[item] : NULL;
}
