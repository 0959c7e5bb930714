/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_event.h - the event model: what a trace says about memory.
 *
 * A trace is a time-ordered stream of fixed-size events. Every event has a time (ns
 * since the start of the trace, CLOCK_MONOTONIC based for recordings) and a kind; the
 * other fields apply per kind as listed below. Unused fields are zero (page: MR_PAGE_NONE)
 * so that the column encoder turns them into runs that cost nothing.
 *
 *  kind              page        size              arg                 flags
 *  ----------------  ----------  ----------------  ------------------  ------------------------
 *  ACCESS            page        -                 -                   R/W/X | source
 *  FD_ACCESS         first page  nr pages          -                   R/W
 *  FAULT             page        -                 virtual address     MAJOR, W, X (1)
 *  PC_INSERT         first page  -                 -                   folio order | IN_FAULT
 *  PC_DELETE         first page  -                 -                   folio order
 *  READAHEAD         first page  nr pages          async size (pages)  SYNC/ASYNC | IN_FAULT
 *  MAP               -           -                 vma id              VMA flags (R/W/X/...) (2)
 *  UNMAP             -           -                 vma id              -   (2)
 *  FREE              first page  nr pages          -                   -   (2)
 *  REFAULT           page        -                 -                   FILE, WORKINGSET, KERNEL (3)
 *  SWAP_IN/SWAP_OUT  page        -                 -                   -
 *  ACTIVATE          page        -                 -                   -   (host mm_lru_activate);
 *                                                                      KERNEL (3)
 *  SCAN_BEGIN/END    -           pages seen young  scan sequence no.   young-bit backend
 *  LOST              -           stream id         events lost         -
 *  MARKER            -           -                 marker id           -
 *  EXIT              -           -                 -                   -   (task exits)
 *
 * (1) Recordings: W / X from exceptions:page_fault_user's x86 error code (bit 1 write,
 *     bit 4 instruction fetch) paired with the fault; neither = a read. Without that
 *     tracepoint W is never set and X means "IP on the faulting page" (a guess).
 * (2) Recordings: munmap (syscalls:sys_enter_munmap) splits VMAs as the kernel does: the
 *     pieces left get new ids and MAP events, then the cut VMA its UNMAP, then FREE runs
 *     (consecutive page ids) for the anon pages faulted in the range. A mapping placed
 *     over others (MAP_FIXED, a merge, mprotect) MAPs before the UNMAPs of what it
 *     replaced, so a replay keeps those pages. The end of an address space (exit_mmap,
 *     or the last task's EXIT, or an exec) gives UNMAP of every VMA and FREE of its pages.
 * (3) REFAULT without KERNEL: a delete then insert of the same file page (a superset of
 *     refaults: fadvise/drop_caches invalidations match too). With KERNEL: the kernel's
 *     own label (memcg:mod_memcg_lruvec_state WORKINGSET_REFAULT_*, item values from
 *     BTF), one event per page of the folio. With FILE: attached to the PC_INSERT just
 *     before it. Without FILE: an anon refault (swap-in), on the page of the task's
 *     major FAULT that followed the label, at that fault's time; swap-readahead batches
 *     the trace cannot place are only counted in the metadata (docs/record.md).
 *     WORKINGSET when WORKINGSET_RESTORE_* came with it (the folio was in the
 *     workingset when evicted). WORKINGSET_ACTIVATE_* (a refault recent enough to
 *     activate) becomes ACTIVATE events with flag KERNEL (0x04, the REFAULT flag's
 *     value) right after the REFAULTs; ACTIVATE without KERNEL is the host's
 *     mm_lru_activate. Both kinds of REFAULT are in a trace: select on flags & 4.
 *
 * task is the dense task id (tasks table) or 0 when unknown; cpu the CPU that saw it.
 * Host-observed REFAULT, SWAP_IN, SWAP_OUT, ACTIVATE and PC_DELETE are ground truth kept for validation and
 * SQL; a replay re-derives residency under its own policy and memory size.
 */
#ifndef MR_EVENT_H
#define MR_EVENT_H

#include <stdint.h>

#include "mr_vm.h" /* page types (pages.type) and the VMA flags of MAP events */

#define MR_PAGE_NONE UINT32_MAX

enum mr_event_kind {
	MR_EV_ACCESS = 0,
	MR_EV_FD_ACCESS,
	MR_EV_FAULT,
	MR_EV_PC_INSERT,
	MR_EV_PC_DELETE,
	MR_EV_READAHEAD,
	MR_EV_MAP,
	MR_EV_UNMAP,
	MR_EV_FREE,
	MR_EV_REFAULT,
	MR_EV_SWAP_IN,
	MR_EV_SWAP_OUT,
	MR_EV_ACTIVATE,
	MR_EV_SCAN_BEGIN,
	MR_EV_SCAN_END,
	MR_EV_LOST,
	MR_EV_MARKER,
	MR_EV_EXIT,
	MR_EV_SWITCH,	/* task switched in on cpu (PERF_RECORD_SWITCH): its mm ran */
	MR_EV_NR_KINDS
};

/* ACCESS / FAULT / FD_ACCESS flags */
#define MR_ACC_READ 0x01u
#define MR_ACC_WRITE 0x02u
#define MR_ACC_EXEC 0x04u
/* ACCESS source, bits 4..6 */
#define MR_ACC_SRC_SHIFT 4
#define MR_ACC_SRC_MASK (0x7u << MR_ACC_SRC_SHIFT)
enum mr_access_source {
	MR_SRC_SYNTH = 0, /* generator */
	MR_SRC_FAULT = 1, /* perf software page fault (first touch) */
	MR_SRC_HWSAMPLE = 2, /* PEBS / IBS data-address sample */
	MR_SRC_YOUNG = 3, /* young-bit scan hit (page_idle, DAMON, clear_refs) */
	MR_SRC_DIRTY = 4, /* FD_ACCESS (write): the page turned dirty (writeback_dirty_folio),
			   * not an access: a write() to a cached page or a write fault */
	MR_SRC_NR
};
#define MR_ACC_FLAGS(rwx, src) ((uint8_t)((rwx) | ((unsigned)(src) << MR_ACC_SRC_SHIFT)))
#define MR_ACC_SRC(flags) (((flags) & MR_ACC_SRC_MASK) >> MR_ACC_SRC_SHIFT)

/* FAULT flags (with MR_ACC_WRITE / MR_ACC_EXEC) */
#define MR_FAULT_MAJOR 0x08u

/* PC_INSERT / PC_DELETE: low 4 bits are the folio order */
#define MR_PC_ORDER_MASK 0x0fu
#define MR_PC_IN_FAULT 0x10u

/* READAHEAD flags */
#define MR_RA_ASYNC 0x01u /* async (PG_readahead marker hit); else sync */
#define MR_RA_IN_FAULT 0x02u

/* MAP flags: the VMA flags MR_VMA_* of mr_vm.h */

/* SCAN_BEGIN / SCAN_END flags: the recorder's scanner. CLEAR_REFS scans emit ACCESS
 * (source young) events; a SOFT_DIRTY interval emits none (its writes come as faults). */
#define MR_SCAN_CLEAR_REFS 3u
#define MR_SCAN_SOFT_DIRTY 5u

/* REFAULT flags */
#define MR_REFAULT_FILE 0x01u
#define MR_REFAULT_WORKINGSET 0x02u
#define MR_REFAULT_KERNEL 0x04u /* kernel's own label (memcg tracepoint), else key match */

/* One decoded event. 32 bytes, no padding; the per-event path copies these by value. */
struct mr_event {
	uint64_t time; /* ns since trace start */
	uint64_t arg;  /* per-kind argument (see table) */
	uint32_t page; /* dense page id or MR_PAGE_NONE */
	uint32_t task; /* dense task id, 0 = unknown */
	uint32_t size; /* per-kind count (see table) */
	uint16_t cpu;
	uint8_t kind;  /* enum mr_event_kind */
	uint8_t flags; /* per-kind flags */
};

_Static_assert(sizeof(struct mr_event) == 32, "mr_event must stay 32 bytes");

/* "access", "fd_access", ... ; NULL for an unknown kind. */
const char *mr_event_kind_name(unsigned kind);

#endif /* MR_EVENT_H */
