/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_policy.h - the reclaim policy interface, and the simulated machine a policy sees.
 *
 * The engine (replayer/) owns the machine: folios (one per page frame, order 0), page
 * tables with PTE young/dirty bits, VMAs, page cache and swap membership, memcg charges,
 * shadow entries and counters. A policy owns ordering and victim choice: it is told when
 * a folio is added to an LRU, accessed through a syscall (folio_mark_accessed), freed, or
 * refaults, and it is asked to reclaim. Policies consume young bits themselves, through
 * the machine's page tables (aging walks) and rmap (folio_referenced), exactly where the
 * kernel does, and they evict through mr_machine_ops, which performs the mechanics
 * (unmap, page-cache removal or swap-out, shadow storage, uncharge).
 *
 * Names follow the kernel (mm/vmscan.c, mm/workingset.c, include/linux/mm_inline.h) so
 * each policy can be read beside the kernel source.
 *
 * Threading: one policy instance per machine; each machine is single-threaded. The engine
 * may run machines of different policies on different threads, so policies keep no
 * global mutable state.
 *
 * Depends on nothing but mr_err.h and mr_vm.h (the shared vocabulary of base/).
 */
#ifndef MR_POLICY_H
#define MR_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"
#include "mr_vm.h"

#define MR_PAGE_SHIFT 12
#define MR_PTRS_PER_TABLE 512u /* PTEs per PTE table, PMDs per PMD table (x86_64) */
#define MR_PMD_SHIFT 21
#define MR_PUD_SHIFT 30
#define MR_NONE UINT32_MAX

/* ---- helpers shared by the engine and the policies ---- */

/*
 * Software prefetch of per-page state ahead of use. GCC drops __builtin_prefetch in
 * some loops as dead code (-ftree-dce); a volatile asm cannot be dropped.
 */
#if defined(__x86_64__) || defined(__i386__)
#define mr_prefetch(p) __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)(p)))
#define mr_prefetchw(p) __asm__ volatile("prefetchw %0" : : "m"(*(const char *)(p)))
#else
#define mr_prefetch(p) __builtin_prefetch(p)
#define mr_prefetchw(p) __builtin_prefetch(p, 1)
#endif

/* lib/math/int_sqrt.c:int_sqrt(): floor of the square root. */
static inline uint64_t mr_int_sqrt(uint64_t x)
{
	uint64_t r = 0, bit = UINT64_C(1) << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* ---- folios ---- */

/* Folio flags, as the kernel's PG_* (plus engine state). Policies own the reclaim flags
 * (LRU/ACTIVE/REFERENCED/WORKINGSET/RECLAIM); the engine owns the rest, and bits 24..31
 * are engine-private state (policies never assign flags wholesale). */
enum mr_pg {
	MR_PG_LRU = 1u << 0,	     /* on a policy's list (cleared while isolated) */
	MR_PG_ACTIVE = 1u << 1,	     /* classic LRU active list; MGLRU: only while a folio is
				      * isolated (lru_gen_del_folio() sets it for an active gen) */
	MR_PG_REFERENCED = 1u << 2,
	MR_PG_WORKINGSET = 1u << 3,
	MR_PG_RECLAIM = 1u << 4,     /* PG_reclaim: rotate to the tail when writeback ends */
	MR_PG_DIRTY = 1u << 5,
	MR_PG_WRITEBACK = 1u << 6,
	MR_PG_SWAPBACKED = 1u << 7,  /* anon and shmem: !folio_is_file_lru() */
	MR_PG_SWAPCACHE = 1u << 8,
	MR_PG_UNEVICTABLE = 1u << 9,
	MR_PG_MLOCKED = 1u << 10,
	MR_PG_RESIDENT = 1u << 11,   /* engine: in memory (page cache, anon, or swap cache) */
	MR_PG_EXEC = 1u << 12,       /* engine: some mapping of it is VM_EXEC (trace page row) */
};

/*
 * One per page frame (struct mr_machine.folios), the simulated frame's record: the
 * folio, the trace's page in it and the policy's per-frame state, 32 bytes, so that
 * what reclaim reads of a victim (its flags, its page, its list slot) is one cache
 * line, as the kernel's struct folio holds its flags, mapping, index and LRU links
 * together.
 */
#define MR_FOLIO_PRIV 12 /* bytes of policy state kept in the record (page_priv_size) */

struct mr_folio {
	uint32_t flags;    /* enum mr_pg */
	uint16_t mapcount; /* PTEs mapping it (folio_mapped() iff > 0) */
	uint8_t type;      /* MR_PAGE_ANON / MR_PAGE_FILE / MR_PAGE_SHMEM (mr_vm.h) */
	uint8_t zone;      /* always 0: one zone per node (docs/mglru-model.md) */
	uint16_t lruvec;   /* index of the (memcg, node) lruvec it is charged to */
	uint16_t node;
	uint32_t pte;      /* engine: where a PTE mapping it lives (rmap hint); not for policies */
	/* the policy's per-frame state when page_priv_size fits, 8-byte aligned as a
	 * struct of its own would be: reach it through mr_policy_page() only */
	_Alignas(8) uint8_t priv[MR_FOLIO_PRIV];
	uint32_t page;     /* engine: the trace's page in this frame while in use (what the
			    * kernel's folio->mapping and ->index say, as one number); read
			    * it with mr_frame_page() */
};

/* folio_is_file_lru(): file LRU iff not swap-backed. LRU_GEN_ANON = 0, LRU_GEN_FILE = 1. */
static inline int mr_folio_is_file_lru(const struct mr_folio *f)
{
	return !(f->flags & MR_PG_SWAPBACKED);
}

/* ---- page tables and address spaces ---- */

#define MR_PTE_YOUNG 0x01u /* hardware accessed bit */
#define MR_PTE_DIRTY 0x02u

/* One PTE table: 512 PTEs mapping 2 MiB. The PMD entry pointing at it has its own
 * (non-leaf) accessed bit, pmd_young, set by the hardware walker on any access below. */
struct mr_pte_table {
	uint32_t page[MR_PTRS_PER_TABLE]; /* the frame mapped (a pfn), MR_NONE when not present */
	uint8_t bits[MR_PTRS_PER_TABLE];  /* MR_PTE_* */
	uint64_t addr;                    /* virtual address of entry 0 (2 MiB aligned) */
	uint32_t mm;
	uint16_t nr_present;
	uint8_t pmd_young;
	uint8_t pad;
};

/* VMA flags are the trace's MR_VMA_* (mr_vm.h): MR_VMA_EXEC is VM_EXEC, etc. */
struct mr_vma {
	uint64_t start, end; /* [start, end) */
	uint32_t flags;
	uint32_t file;  /* 0 = anonymous */
	uint64_t pgoff; /* file offset of start, in pages */
	uint32_t mm;
	uint32_t id;
};

/* vma_has_recency(): not MADV_SEQUENTIAL / MADV_RANDOM. */
static inline int mr_vma_has_recency(const struct mr_vma *v)
{
	return !(v->flags & (MR_VMA_SEQ_READ | MR_VMA_RAND_READ));
}

/* An address space, as the policy sees it for iterate_mm_list / walk_mm. */
struct mr_mm {
	uint32_t id;
	uint32_t memcg;
	uint64_t lru_gen_bitmap; /* node bits set when one of its tasks ran (lru_gen_use_mm) */
	uint8_t alive;           /* has tasks; dead mms are off the mm list */
};

/* ---- counters ---- */

/* /proc/vmstat and memory.stat names; each machine keeps one array of these. */
#define MR_VMSTAT_LIST(X)                                                                 \
	X(PGFAULT, "pgfault") X(PGMAJFAULT, "pgmajfault")                                 \
	X(PGSCAN_KSWAPD, "pgscan_kswapd") X(PGSCAN_DIRECT, "pgscan_direct")               \
	X(PGSCAN_KHUGEPAGED, "pgscan_khugepaged") X(PGSCAN_ANON, "pgscan_anon")           \
	X(PGSCAN_FILE, "pgscan_file") X(PGSTEAL_KSWAPD, "pgsteal_kswapd")                 \
	X(PGSTEAL_DIRECT, "pgsteal_direct") X(PGSTEAL_KHUGEPAGED, "pgsteal_khugepaged")   \
	X(PGSTEAL_ANON, "pgsteal_anon") X(PGSTEAL_FILE, "pgsteal_file")                   \
	X(PGREFILL, "pgrefill") X(PGACTIVATE, "pgactivate") X(PGDEACTIVATE, "pgdeactivate") \
	X(PGROTATED, "pgrotated") X(PGROTATE_ANON, "pgrotate_anon")                       \
	X(PGROTATE_FILE, "pgrotate_file") X(PSWPIN, "pswpin") X(PSWPOUT, "pswpout")       \
	X(WORKINGSET_REFAULT_ANON, "workingset_refault_anon")                            \
	X(WORKINGSET_REFAULT_FILE, "workingset_refault_file")                            \
	X(WORKINGSET_ACTIVATE_ANON, "workingset_activate_anon")                          \
	X(WORKINGSET_ACTIVATE_FILE, "workingset_activate_file")                          \
	X(WORKINGSET_RESTORE_ANON, "workingset_restore_anon")                            \
	X(WORKINGSET_RESTORE_FILE, "workingset_restore_file")                            \
	X(WORKINGSET_NODERECLAIM, "workingset_nodereclaim")                              \
	X(NR_VMSCAN_IMMEDIATE, "nr_vmscan_immediate_reclaim")                            \
	X(PGSCAN_SKIP, "pgscan_skip") X(PGFREE, "pgfree")                                 \
	X(NR_ACTIVE_ANON, "nr_active_anon") X(NR_INACTIVE_ANON, "nr_inactive_anon")       \
	X(NR_ACTIVE_FILE, "nr_active_file") X(NR_INACTIVE_FILE, "nr_inactive_file")       \
	X(NR_UNEVICTABLE, "nr_unevictable")

enum mr_vmstat_item {
#define MR_VMSTAT_ENUM(id, name) MR_VM_##id,
	MR_VMSTAT_LIST(MR_VMSTAT_ENUM)
#undef MR_VMSTAT_ENUM
	MR_NR_VMSTAT
};

/* Kernel name of a counter ("workingset_refault_file"). */
const char *mr_vmstat_name(unsigned item);

/* ---- the machine, as policies see it ---- */

struct mr_machine;

/* scan_control, reduced to what reclaim decisions read (mm/vmscan.c). */
struct mr_scan_control {
	uint64_t nr_to_reclaim;
	uint64_t nr_reclaimed;
	uint64_t nr_scanned;
	int priority;          /* DEF_PRIORITY (12) down to 0 */
	uint32_t memcg;        /* target memcg (memcg reclaim) */
	uint32_t node;
	uint8_t reclaim_idx;   /* highest zone; always 0 here */
	uint8_t may_swap;
	uint8_t may_writepage;
	uint8_t may_unmap;
	uint8_t gfp_io;        /* __GFP_IO */
	uint8_t proactive;     /* memory.reclaim / debugfs */
	uint8_t kswapd;        /* 0: direct/memcg reclaim (counters go to *_direct) */
	uint8_t memcg_reclaim; /* cgroup_reclaim(sc) */
	/* What the caller needs freed to go on (a charge's excess over its limit), 0 = not
	 * known. The kernel's policies reclaim nr_to_reclaim; opt frees only this, as MIN
	 * evicts what a miss needs: a batch of SWAP_CLUSTER_MAX in a memcg not much larger
	 * would evict pages it is about to use. Appended: plugins built before read the
	 * fields above at the same offsets. */
	uint64_t nr_needed;
};

#define MR_DEF_PRIORITY 12
#define MR_SWAP_CLUSTER_MAX 32

/* Callbacks for mr_machine_ops.walk_mm. Return non-zero from pud_entry/pmd_entry to
 * skip that subtree (pud) or to stop the walk (pmd returns <0), see walk_mm. */
struct mr_walk_ops {
	/* Per present PUD entry covering [addr, addr + 1 GiB) within vma; return 1 to skip it. */
	int (*pud_entry)(void *arg, const struct mr_vma *vma, uint64_t addr);
	/* Per present PMD entry (one PTE table) within vma; first/last are the PTE slots the
	 * vma covers in it, both inclusive (first <= last). Return <0 to stop the walk. */
	int (*pmd_entry)(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
			 unsigned first, unsigned last);
	/* Per VMA before its tables; return 1 to skip (should_skip_vma). May be NULL. */
	int (*vma_entry)(void *arg, const struct mr_vma *vma);
};

/* Why remove_mapping could not free a folio. */
enum mr_remove_result {
	MR_REMOVED = 0,     /* freed; shadow stored */
	MR_REMOVE_BUSY = 1, /* mapped and may_unmap is off, or no swap space left */
};

struct mr_machine_ops {
	/* rmap: call fn for every PTE mapping page (and its VMA); stop when fn returns
	 * non-zero and return that value. */
	int (*rmap_walk)(struct mr_machine *m, uint32_t page,
			 int (*fn)(void *arg, const struct mr_vma *vma, struct mr_pte_table *pt,
				   unsigned slot),
			 void *arg);
	/* Walk an mm's page tables in address order, VMA by VMA (walk_page_range). */
	void (*walk_mm)(struct mr_machine *m, uint32_t mm, const struct mr_walk_ops *ops,
			void *arg);
	/* Free a clean, isolated folio: unmap every PTE (try_to_unmap), drop it from the page
	 * cache or, for anon, from the swap cache (its data is already in its swap slot:
	 * pswpout is counted by pageout in shrink_folio_list, not here); store shadow for
	 * the next refault; uncharge. Dirty bits of the PTEs are transferred first; a folio
	 * that turns out dirty is not freed (returns MR_REMOVE_BUSY with PG_dirty set). */
	int (*remove_mapping)(struct mr_machine *m, uint32_t page, uint64_t shadow);
	/* Start writeback of a dirty isolated folio (pageout): clears PG_dirty, sets
	 * PG_writeback; the engine ends it after the writeback delay and then calls the
	 * policy's folio_rotate_reclaimable when PG_reclaim is set. */
	void (*start_writeback)(struct mr_machine *m, uint32_t page);
	/* Swap slot for an anon folio (add_to_swap): sets PG_swapcache and PG_dirty (the
	 * slot is not written yet); 0 or MR_ENOSPC. */
	int (*add_to_swap)(struct mr_machine *m, uint32_t page);
	/* zone_watermark_ok(zone, 0, high_wmark_pages + extra, ...) for the node's one zone:
	 * 1 when its free pages are above the high watermark plus extra, 0 when not, -1 when
	 * the machine has no watermarks (memcg reclaim only). May be NULL (= -1). */
	int (*node_watermark_ok)(struct mr_machine *m, uint32_t node, uint64_t extra);
	/* A hint, ahead of reclaiming page: start loading what rmap_walk, remove_mapping and
	 * the shadow store will touch for it (its PTE, the PMD entry, the shadow slot), so
	 * that a batch of victims is fetched in parallel. Changes nothing a policy can see.
	 * May be NULL (older engines). */
	void (*prefetch_folio)(struct mr_machine *m, uint32_t page);
	/* A dirty file folio reclaim met and left to the flushers (pageout() writes no file
	 * folio: shrink_folio_list() marks it PG_reclaim and activates it): queue it for the
	 * flusher the engine runs when the reclaim invocation ends, as reclaim's
	 * wakeup_flusher_threads(WB_REASON_VMSCAN) does (docs/replay.md, "Dirty file
	 * folios"). May be NULL (older engines). */
	void (*queue_flusher)(struct mr_machine *m, uint32_t page);
};

struct mr_machine {
	const struct mr_machine_ops *ops;
	/* [nr_pages]: one folio per page frame, as the kernel's struct folio exists per
	 * frame. The `page` every callback and machine op takes, and every PTE holds
	 * (mr_pte_table.page), is a frame (an index in here), like a pfn; a page of the
	 * trace gets a frame when it enters memory and gives it back when it leaves, so a
	 * policy's per-page state (page_priv_size) is per frame too, and is as the frame's
	 * previous folio left it when the frame is given out again (folio_add() sets up
	 * what it needs). nr_pages is an upper bound: only the frames in use are touched. */
	struct mr_folio *folios;
	uint32_t nr_pages;
	struct mr_mm *mms;       /* [nr_mms]: mm list of the single node/memcg model */
	uint32_t nr_mms;
	uint32_t nr_nodes;
	uint32_t nr_memcgs;
	uint32_t nr_lruvecs;     /* nr_memcgs * nr_nodes; lruvec = memcg * nr_nodes + node */
	uint64_t now_ns;         /* trace time of the event being replayed (jiffies source) */
	uint32_t cpu;            /* CPU of the event being replayed (the trace's cpu field);
				  * policies fold ids >= their own per-CPU bound */
	uint64_t *vmstat;        /* [MR_NR_VMSTAT], whole machine */
	uint64_t *lruvec_stat;   /* [nr_lruvecs][MR_NR_VMSTAT], memory.stat per lruvec */
	uint64_t swap_free;      /* free swap pages */
	uint8_t non_leaf_young;  /* arch_has_hw_nonleaf_pmd_young (x86: 1) */
	uint8_t hw_young;        /* arch_has_hw_pte_young (x86: 1) */
	/* Per memcg index: the trace's cgroup id (0 = pages without a cgroup, the root) and
	 * path, for the lru_gen read format ("memcg <id> <path>") and debugfs commands,
	 * which name memcgs by these ids. */
	const uint32_t *memcg_id;       /* [nr_memcgs] */
	const char *const *memcg_path;  /* [nr_memcgs] */
	/* Swap pages in all, free or not (total_swap_pages; 0 = no swap): whether anon is
	 * worth aging at all (can_age_anon_pages), where swap_free is whether it can be
	 * reclaimed now. */
	uint64_t swap_total;
	/* [nr_lruvecs]: the most folios each lruvec can hold at once (the trace's pages of
	 * its memcg), for sizing its lists without reading every frame; NULL: count the
	 * frames' folios instead (machines whose folios are set up before the policy) */
	const uint32_t *lruvec_pages;
	/* Set by a policy whose reclaim looks around a victim's young PTE (MGLRU's
	 * lru_gen_look_around(): MIN_LRU_BATCH PTEs): the machine's prefetch_folio hint then
	 * asks for that window's PTE lines too. A hint; nothing changes. */
	uint8_t pte_window;
	/* 1 in pte_den of the PTE slots around a page can hold a page in this machine: a
	 * replay sampled page by page (--sample 1/N, docs/replay.md) has N; else 1 (0,
	 * from a machine that does not set it, means 1 too). A policy that judges how
	 * densely a PTE table or window is young (MGLRU's suitable_to_scan()) counts its
	 * young PTEs pte_den times, so that a table holding 1/N of the trace's pages can
	 * be as dense as the full replay's. */
	uint32_t pte_den;
};

/* Per lruvec, the most folios its lists can hold: m->lruvec_pages, or the folios of the
 * frames as they are now. */
static inline void mr_lruvec_pages(const struct mr_machine *m, uint64_t *out)
{
	for (uint32_t i = 0; i < m->nr_lruvecs; i++)
		out[i] = m->lruvec_pages ? m->lruvec_pages[i] : 0;
	if (m->lruvec_pages)
		return;
	for (uint32_t i = 0; i < m->nr_pages; i++)
		if (m->folios[i].lruvec < m->nr_lruvecs)
			out[m->folios[i].lruvec]++;
}

/* The trace's page id of the folio in frame (in use), for policies and tests that name
 * pages across their frames. */
static inline uint32_t mr_frame_page(const struct mr_machine *m, uint32_t frame)
{
	return m->folios[frame].page;
}

static inline void mr_count(struct mr_machine *m, uint32_t lruvec, unsigned item, uint64_t n)
{
	m->vmstat[item] += n;
	m->lruvec_stat[(size_t)lruvec * MR_NR_VMSTAT + item] += n;
}

/* ---- parameters ---- */

enum mr_param_type { MR_PARAM_BOOL, MR_PARAM_INT, MR_PARAM_ENUM };

/* One typed, bounded parameter, stored as an int64 at offset in the policy's params. */
struct mr_param_desc {
	const char *name;
	enum mr_param_type type;
	int64_t min, max, def;
	const char *const *enum_names; /* MR_PARAM_ENUM: names of values min..max */
	size_t offset;                 /* of the int64_t in the params struct */
	const char *help;
};

/* ---- policies ---- */

struct mr_policy;

/* Context of a folio_add: where the folio comes from (kernel call sites differ). */
#define MR_ADD_IN_FAULT 0x1u   /* current->in_lru_fault: added during a page fault */
#define MR_ADD_REFAULT 0x2u    /* workingset_refault() ran for it just before */
#define MR_ADD_READAHEAD 0x4u  /* readahead page not (yet) accessed */
#define MR_ADD_SWAPIN 0x8u

/*
 * The plugin ABI: the layout of struct mr_policy_ops, struct mr_policy, struct mr_machine
 * and what they point to, and the exported functions of policy/plugin-api.sym. Raised on
 * any change a plugin built before would misread; mr_policy_register() refuses ops whose
 * abi differs (MR_EVERSION), so a stale plugin is named instead of crashing a replay.
 */
#define MR_POLICY_ABI 5u /* 2: idle_params; 3: a page is a frame; 4: frame records of 32
			  * bytes with the page and the policy state, mr_policy.page_stride;
			  * 5: mr_machine.pte_den */

struct mr_policy_ops {
	uint32_t abi;          /* MR_POLICY_ABI this table was compiled against; first, so
				* that every layout has it at the same place */
	const char *name;
	const char *help;
	const struct mr_param_desc *params;
	size_t nparams;
	size_t params_size;    /* bytes of the parsed params struct (int64_t fields) */
	size_t priv_size;      /* bytes of per-instance state, zeroed by the framework */
	size_t page_priv_size; /* bytes of per-page state, zeroed; see mr_policy_page() */

	/* Called once; the machine is sized (nr_pages, mms, lruvecs) but empty. */
	int (*init)(struct mr_policy *p, struct mr_error *err);
	void (*fini)(struct mr_policy *p);

	/* folio_add_lru / lruvec_add_folio: a resident folio goes onto the LRU. */
	void (*folio_add)(struct mr_policy *p, uint32_t page, unsigned ctx);
	/* folio_mark_accessed (read()/write() path, zap_pte_range of a young file PTE). */
	void (*mark_accessed)(struct mr_policy *p, uint32_t page);
	/* A folio leaves memory without reclaim (munmap of anon, truncate, exit). */
	void (*folio_del)(struct mr_policy *p, uint32_t page);
	/* workingset_refault(): the folio is being brought back and had this shadow. Called
	 * before folio_add. ctx as for folio_add. */
	void (*refault)(struct mr_policy *p, uint32_t page, uint64_t shadow, unsigned ctx);
	/* folio_rotate_reclaimable(): writeback ended on a PG_reclaim folio. */
	void (*rotate)(struct mr_policy *p, uint32_t page);
	/* Reclaim from one lruvec under sc (shrink_lruvec / lru_gen_shrink_lruvec). */
	void (*shrink_lruvec)(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc);
	/* Optional: every access the trace saw to a resident page, with the trace position of
	 * the next access to the same page (UINT64_MAX = never), for policies that see every
	 * access (opt). The engine computes next-use once per trace. */
	void (*access)(struct mr_policy *p, uint32_t page, uint64_t next_use);
	/* Optional: lru_gen debugfs write (one command, e.g. "+ 0 0 7 60 1"). */
	int (*lru_gen_command)(struct mr_policy *p, const char *cmd, struct mr_error *err);
	/* Optional: lru_gen debugfs read format into buf; returns bytes written. */
	size_t (*lru_gen_show)(struct mr_policy *p, int full, char *buf, size_t cap);
	/* Optional: model counters beyond vmstat: call emit per (name, value). */
	void (*model_counters)(struct mr_policy *p,
			       void (*emit)(void *arg, const char *name, double value), void *arg);
	/* Optional: invariant check (page accounting, list membership); returns problems found
	 * (each reported through MR_WARN_ON_ONCE). Run by checking builds and tests. */
	unsigned (*check)(struct mr_policy *p);
	/* Optional, once after the run: for each parameter set away from its default whose
	 * code path never changed a decision (so the run reclaims as with the default),
	 * call idle(arg, param, why): param as in a spec ("inc_min_seq=v3"), why one
	 * clause ("no aging pass ran at this size"). The engine keeps them as notes of
	 * kind toggle_idle (docs/results-schema.md). */
	void (*idle_params)(struct mr_policy *p,
			    void (*idle)(void *arg, const char *param, const char *why), void *arg);
};

struct mr_policy {
	const struct mr_policy_ops *ops;
	struct mr_machine *m;
	void *params;    /* params_size bytes, parsed */
	void *priv;      /* priv_size bytes */
	/* per-frame state: frame i's at pages + i * page_stride; inside its struct
	 * mr_folio (priv, page_stride = 32) when page_priv_size <= MR_FOLIO_PRIV, else an
	 * array of its own (page_stride = page_priv_size) */
	uint8_t *pages;
	size_t page_stride;
	char spec[256];  /* "mglru:swappiness=100" as given, canonicalised */
};

static inline void *mr_policy_page(const struct mr_policy *p, uint32_t page)
{
	return p->pages + (size_t)page * p->page_stride;
}

/* ---- instances (policy/instance.c) ---- */

/*
 * An instance of ops over machine m, in three steps so that a caller may set parameters
 * in between: mr_policy_create() allocates its parameters (the table's defaults), its
 * private state and its per-page state for m->nr_pages pages (zeroed; mapped on its own,
 * huge pages where THP allows), and names it spec (canonical; NULL = ops->name);
 * mr_policy_set_params() / mr_policy_set_param() change parameters; mr_policy_start()
 * runs ops->init. mr_policy_destroy() runs ops->fini when init succeeded and frees all;
 * NULL is a no-op. Returns 0; MR_ENOMEM (message names spec); set_param: MR_EINVAL for an
 * unknown name, MR_ERANGE out of its range, MR_EBUSY after start; start: init's error
 * (the instance is then only to be destroyed).
 */
int mr_policy_create(const struct mr_policy_ops *ops, struct mr_machine *m, const char *spec,
		     struct mr_policy **out, struct mr_error *err);
/* Copy a parsed params struct (mr_policy_parse(), ops->params_size bytes) in. */
void mr_policy_set_params(struct mr_policy *p, const void *params);
int mr_policy_set_param(struct mr_policy *p, const char *name, int64_t value);
int mr_policy_start(struct mr_policy *p, struct mr_error *err);
void mr_policy_destroy(struct mr_policy *p);

/* ---- registry and parameter parsing (policy/registry.c) ---- */

/* Built-in policies and those registered by plugins, in registration order. */
const struct mr_policy_ops *const *mr_policy_list(size_t *n);
const struct mr_policy_ops *mr_policy_find(const char *name);
/* Register a policy (plugins call this from their mr_plugin_init). MR_EINVAL on a
 * duplicate name or an invalid parameter table. */
int mr_policy_register(const struct mr_policy_ops *ops, struct mr_error *err);
/* Load a plugin shared object and run its `int mr_plugin_init(struct mr_error *)`. */
int mr_policy_load_plugin(const char *path, struct mr_error *err);

/*
 * Parse "name[:k=v[,k=v...]]": find the policy, fill params (caller buffer of
 * ops->params_size bytes) with defaults then the given values, and write the canonical
 * spec (every parameter, in table order) into canon. Unknown policy or parameter, bad
 * value or out of range -> MR_EINVAL/MR_ERANGE with a message listing what is valid.
 */
int mr_policy_parse(const char *spec, const struct mr_policy_ops **ops, void *params,
		    size_t params_cap, char *canon, size_t canon_cap, struct mr_error *err);
/* Does spec parse (mr_policy_parse() into a buffer of its own)? 0, or its error. */
int mr_policy_check_spec(const char *spec, struct mr_error *err);

/*
 * spec with only the parameters that differ from their defaults, in table order, for
 * tables meant for people: "mglru:ra_placement=B" for a canonical spec that lists every
 * parameter, "lru" for lru at its defaults. A spec that does not parse (the policy of a
 * plugin that is not loaded) is copied as it is. Like snprintf: writes at most cap bytes,
 * terminated when cap > 0, and returns the length the whole text needs.
 */
size_t mr_policy_short_spec(const char *spec, char *out, size_t cap);

/* Named preset of policy specs (`--variants seeds`: mglru baseline and each seed toggle;
 * `classic`: lru, mglru, opt). MR_EINVAL naming the known presets otherwise. */
int mr_policy_preset(const char *name, const char *const **specs, size_t *n,
		     struct mr_error *err);

/* Help text for `--list-policies`: every policy, its parameters, types, ranges, defaults. */
size_t mr_policy_describe(const struct mr_policy_ops *ops, char *buf, size_t cap);

/* Value of parameter i of a parsed params struct. */
static inline int64_t mr_param_get(const struct mr_policy_ops *ops, const void *params, size_t i)
{
	int64_t v;
	const unsigned char *b = (const unsigned char *)params + ops->params[i].offset;

	__builtin_memcpy(&v, b, sizeof(v));
	return v;
}

/* Set parameter i of a params struct to v (not range-checked: the caller has). */
static inline void mr_param_set(const struct mr_policy_ops *ops, void *params, size_t i,
				int64_t v)
{
	__builtin_memcpy((unsigned char *)params + ops->params[i].offset, &v, sizeof(v));
}

#endif /* MR_POLICY_H */
