/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_vm.h - the memory vocabulary that traces, the engine and the policies share: what
 * type a page is and which flags a VMA carries. A trace stores them (mr_event.h: the
 * pages table's type, a MAP event's flags), the engine keeps them in its folios and VMAs,
 * and a policy reads them (mr_policy.h) without depending on the trace store.
 */
#ifndef MR_VM_H
#define MR_VM_H

/* Page types (pages.type): anon/shmem keyed by (mm, vpage), file by (file, index). */
enum mr_page_type { MR_PAGE_ANON = 0, MR_PAGE_FILE = 1, MR_PAGE_SHMEM = 2, MR_PAGE_NR_TYPES };

/* VMA flags as the kernel names them (a MAP event's flags, struct mr_vma.flags) */
#define MR_VMA_READ 0x01u
#define MR_VMA_WRITE 0x02u
#define MR_VMA_EXEC 0x04u /* VM_EXEC */
#define MR_VMA_SHARED 0x08u
#define MR_VMA_FILE 0x10u
#define MR_VMA_SEQ_READ 0x20u  /* MADV_SEQUENTIAL: no recency (vma_has_recency) */
#define MR_VMA_RAND_READ 0x40u /* MADV_RANDOM */

#endif /* MR_VM_H */
