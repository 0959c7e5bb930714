/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_replay.h - the replay engine: one pass over a trace drives one simulated machine per
 * policy (mr_policy.h), and the results go to a SQLite results database
 * (mr_results.h, docs/results-schema.md).
 *
 * ---- The machine ----
 *
 * Per policy, a machine holds: a folio per page id (struct mr_folio), page tables per
 * address space (PTE tables of 512 entries with young/dirty bits, under PMD entries with
 * their non-leaf young bit, grouped by PUD for walk_mm), VMAs (live from their MAP event,
 * or from the first access that needs them when the trace has no MAP event for them),
 * the page cache (file pages resident), anonymous memory with swap (slots, pswpin),
 * memcgs with limits, NUMA nodes as recorded, shadow entries and counters.
 *
 *   memcgs   one per cgroup that pages are charged to (page rows' cgroup; 0 = the
 *            root). `memory_pages` limits the whole trace: with one memcg it is that
 *            memcg's limit; with several it is a parent's limit over all of them and
 *            reclaim visits the memcgs in turn (flat hierarchy). `limits` set
 *            per-cgroup limits. A charge over a limit reclaims first (below).
 *   nodes    max(meta "nodes", highest page node + 1); lruvec = memcg * nodes + node.
 *   mms      m->mms[i], i = dense mm index (1..; 0 is never alive); an mm is alive
 *            from its first activity until the EXIT of its last task; its memcg is that
 *            of its first task. walk_mm's and mr_pte_table's `mm` are this index.
 *   VMAs     the trace's vmas rows; anonymous pages no row covers get a derived VMA
 *            (per 2 MiB region of an mm: one read-write anonymous VMA spanning its
 *            uncovered pages, or one per run of consecutive uncovered pages when that
 *            span would overlap a row), mapped from the start. Activating a VMA unmaps
 *            any live VMA of the mm it overlaps (as mmap MAP_FIXED does).
 *   tables   a PTE table exists for an (mm, 2 MiB) region from the first PTE installed
 *            in it until no live VMA of the mm covers the region (free_pgtables);
 *            reclaim does not free tables.
 *
 * ---- Event semantics ----
 *
 * Every event with a task calls lru_gen_use_mm() for the task's mm (bitmap = all nodes).
 *
 * ACCESS (page, task, R/W/X):
 *   anon/shmem pages are mapped in their own mm (page row), file pages in the task's.
 *   - not resident: a page fault. Charge the memcg (reclaiming first if over its limit),
 *     make the folio resident (MR_PG_SWAPBACKED for anon/shmem, MR_PG_EXEC from the page
 *     row), install the PTE young (+dirty for a write), call policy->refault() if a
 *     shadow is stored, then policy->folio_add(MR_ADD_IN_FAULT iff the VMA has recency;
 *     | MR_ADD_REFAULT when refault ran; | MR_ADD_SWAPIN from swap). pgfault; pgmajfault
 *     when the page was swapped out (pswpin) or is a file page not in the page cache.
 *     A swapped-in page keeps its swap slot (PG_swapcache, clean) unless the access
 *     writes or swap is more than half full (then the slot is freed, PG_dirty).
 *   - resident, PTE present in that mm: set young (+dirty), and the PMD's young bit.
 *   - resident, not mapped in that mm (page-cache hit through mmap, a folio unmapped
 *     by reclaim but kept): install the PTE young, no LRU add; pgfault (minor), or
 *     pgmajfault when this task's in-fault READAHEAD/PC_INSERT brought the page in
 *     since its previous ACCESS (the fault that did the I/O).
 *   - no VMA to map through (file page without a vmas row in that mm, unknown task):
 *     counted as mr_access_unmapped and treated as an fd access (insert, mark_accessed).
 *   then, for a policy with an access hook, policy->access(page, next_use).
 * FD_ACCESS (first page, n pages, R/W): for each page: insert into the page cache if
 *   absent (charge, refault, folio_add without MR_ADD_IN_FAULT), then
 *   policy->mark_accessed() once per page per event; a write sets PG_dirty.
 *   (filemap_read()'s "same folio as the previous read" skip is not modelled.)
 * READAHEAD (first, n) / PC_INSERT (first, 2^order): insert the pages absent from the
 *   replay's page cache with MR_ADD_READAHEAD (| MR_ADD_IN_FAULT when the event has the
 *   in-fault flag and the task's VMA mapping the file has recency), not marked accessed.
 *   For a next-use policy, access() is also called for each page of the range, inserted
 *   or found resident, with the position of its next reference (a use or an insertion:
 *   both cost a miss when the page is absent; docs/replay.md, "What opt minimises").
 * FREE (first, n): the pages leave memory: policy->folio_del(), PTEs cleared, uncharged,
 *   swap slot and shadow dropped. pgfree.
 * UNMAP (vma): zap the VMA's PTEs as zap_pte_range() does: a young PTE of a file page
 *   in a VMA with recency -> policy->mark_accessed(); a dirty one -> PG_dirty; then
 *   every anon/shmem page of the mm in the VMA's range (resident or swapped) is freed
 *   as by FREE, and tables no other live VMA covers are freed.
 * MAP (vma): the VMA becomes live.
 * EXIT (task): when the last task of an mm (tasks table) exits, all its VMAs are
 *   unmapped, its remaining anon pages freed, and the mm leaves the mm list.
 * MARKER (id): runs the script commands bound to @id.
 * FAULT, PC_DELETE, REFAULT, SWAP_IN, SWAP_OUT, ACTIVATE, SCAN_*, LOST: host ground
 *   truth; they do not drive the replay and are counted (host_* counters).
 *
 * ---- Reclaim ----
 *
 * A charge over a limit runs try_to_free_mem_cgroup_pages(): nr_to_reclaim =
 * max(SWAP_CLUSTER_MAX, excess), priority DEF_PRIORITY down to 0, and at each priority
 * policy->shrink_lruvec() for the memcg's lruvec on each node (the allocating node
 * first; with a parent limit, each memcg in turn, starting one further each time),
 * until enough is freed (scan_control: may_swap = may_unmap = may_writepage = gfp_io =
 * memcg_reclaim = 1). Progress is retried up to 16 times (MAX_RECLAIM_RETRIES); when a
 * full pass frees nothing, mr_oom counts it and the charge exceeds the limit.
 *
 * ---- Node reclaim (opts.reclaim = MR_RECLAIM_NODE, `--reclaim node`) ----
 *
 * memory_pages is then the machine's memory, split evenly over its nodes (node i gets
 * memory_pages / nodes, plus one page for i < the remainder), instead of a limit: a page
 * lives on its page row's node (no fallback to another node). Per node, one zone, with
 * the kernel's boot-time watermarks (mr_replay_watermarks()). Allocation of a page on a
 * node (before the memcg charge, as the kernel allocates a folio and then charges it):
 *   - free > low: allocate (get_page_from_freelist at ALLOC_WMARK_LOW);
 *   - else wake the node's kswapd (wakeup_kswapd; not when it failed MAX_RECLAIM_RETRIES
 *     times in a row, until some reclaim on the node makes progress); free > min:
 *     allocate (ALLOC_WMARK_MIN);
 *   - else direct reclaim, try_to_free_pages(): nr_to_reclaim = SWAP_CLUSTER_MAX,
 *     priority DEF_PRIORITY..0, the node's memcgs from a cursor kept per node, stopping
 *     once enough is freed (sc.kswapd = 0, memcg_reclaim = 0: pgscan_direct), repeated
 *     until free > min; after MAX_RECLAIM_RETRIES rounds in a row without progress
 *     (should_reclaim_retry) mr_oom counts it and the page is allocated below min.
 * kswapd runs synchronously at a deterministic point: a node's kswapd woken at trace
 * time t runs (balance_pgdat) before the first allocation, on any node, of an event with
 * a trace time later than t. Allocations of the same instant (one multi-page event, or
 * events with equal times) therefore run before kswapd and can reach min: that is "kswapd
 * cannot keep up". A wakeup still pending at the end of the trace does not run.
 * balance_pgdat(): priority DEF_PRIORITY down to 1; each step stops when free > high
 * (pgdat_balanced), sets nr_to_reclaim = max(high, SWAP_CLUSTER_MAX)
 * (kswapd_shrink_node), shrinks every memcg of the node from the first (full walk;
 * sc.kswapd = 1: pgscan_kswapd; the policy's kswapd work, e.g. mglru's
 * lru_gen_age_node() and its min_ttl check, runs at the first memcg), and lowers the
 * priority when it scanned less than nr_to_reclaim or reclaimed nothing. A run that
 * reclaims nothing counts a kswapd failure (mr_kswapd_failed). As kswapd() does, it runs
 * again until the node is balanced or has failed MAX_RECLAIM_RETRIES times in a row. Per-memcg limits (`limits`) still apply:
 * a charge over one reclaims that memcg as above.
 *
 * The machine ops (mr_machine_ops):
 *   rmap_walk       anon: its one PTE; file: every live VMA of the file (i_mmap) whose
 *                   window covers the page, in any mm.
 *   walk_mm         live VMAs in address order; per VMA, pud_entry per PUD holding a
 *                   table, then pmd_entry per table with first..last inclusive.
 *   remove_mapping  unmaps every PTE (dirty bits to PG_dirty); a dirty or writeback
 *                   folio is kept (MR_REMOVE_BUSY); an anon folio without a swap slot
 *                   gets one or is kept (no swap); otherwise it is freed, the shadow
 *                   stored, the memcg uncharged. It counts no pswpout (pageout does).
 *   start_writeback clears PG_dirty, sets PG_writeback; ends after writeback_delay_ns of
 *                   trace time, or at the end of the reclaim invocation when 0. Ending:
 *                   a swap slot becomes valid; if PG_reclaim: clear it, policy->rotate()
 *                   (PG_writeback still set, as folio_end_writeback()); clear writeback.
 *   add_to_swap     a slot (MR_ENOSPC when --swap is full), PG_swapcache and, as the
 *                   kernel's add_to_swap(), PG_dirty.
 *
 * ---- Several memory sizes ----
 *
 * memory_sizes[nmemory] replays every policy at every size in the same pass: one
 * machine per (size, policy), each with its own whole-trace limit (or node memory),
 * all fed the same decoded batches (and the same next-use values, computed once).
 * Machines share nothing they write, so each run's results are exactly those of a
 * replay of that policy at that size alone. Runs are ordered size-major: run
 * s * npolicies + p (0-based) is policies[p] at memory_sizes[s], so with one size the
 * runs are the policies in order. Per-cgroup limits (`limits`) apply to every run.
 *
 * ---- Sampled replay (sample_den = N) ----
 *
 * A page is sampled when its unit is: one page by default, or sample_unit pages (a power
 * of two up to 512): a file page's unit is (file, index >> log2 unit), an anon or shmem
 * page's (mm, virtual page >> log2 unit); 512 is the 2 MiB a PTE table covers, so page
 * tables, fault-around, readahead windows and mglru's look-around and Bloom filters see
 * a region whole or not at all (docs/replay.md, "Why a page, and when a region", for why
 * a page is the default). Which units: a stratified sample (sample.c,
 * rp_sample_choose()): one pass over the events counts each unit's references, the
 * units are ranked by them (ties by pages, then mr_replay_sample_hash()), and of each
 * run of N ranks the one at the rank mr_replay_sample_hash(seed, 2, N, run) mod N is
 * kept. The decoder drops, once for all machines, every per-page event
 * (ACCESS, FD_ACCESS, READAHEAD, PC_INSERT, PC_DELETE, FREE, FAULT, REFAULT, SWAP_*,
 * ACTIVATE) of an unsampled page; a range over both kinds is cut to its sampled runs
 * (PC_INSERT/PC_DELETE then per page, order 0). Other events pass. Unsampled pages never
 * enter a machine, so UNMAP and EXIT touch only sampled ones. The trace image holds only
 * the sampled page rows, renumbered in order (image.c), so machines are sized for them
 * and the filter renames the page ids of what it passes. Every machine size
 * (memory, swap, cgroup limits) is round(size x the sampled share of the most pages
 * live at once, first reference to last), at least one page; the results keep
 * the sizes asked for (runs.memory_pages, memcgs.limit_pages) and the counters as the
 * sampled machines counted them, and say the rate and seed (meta sample_den and
 * sample_seed, sample_unit_pages, a note of kind "sampled" per run with what was kept of
 * units, pages, references and the live peak, and a warning below 64 sampled units).
 * Next-use times are the full trace's:
 * a page's references are all sampled or none, so their order is kept.
 *
 * ---- Determinism and threads ----
 *
 * One decoder (the calling thread) reads batches of events and worker threads each
 * advance a fixed subset of the machines over every batch. A machine's state depends
 * only on the events, so results are byte-identical for any thread count. Nothing on the
 * per-event path allocates: the machine is sized from the trace's tables first.
 *
 * Libraries never print: progress is a callback, errors an mr_error.
 */
#ifndef MR_REPLAY_H
#define MR_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"
#include "mr_results.h" /* the results database the engine writes, and compare */

struct mr_replay;

/* A per-cgroup memory limit (`--memory CGROUP_ID=SIZE`). */
struct mr_replay_limit {
	uint32_t cgroup; /* the trace's cgroup id (0 = pages without a cgroup) */
	uint64_t pages;
	/* or, when not NULL, the cgroup by its path: as the trace's cgroups table has it
	 * ("/mygroup"), or under the cgroup mount as `record --cgroup` takes it
	 * ("/sys/fs/cgroup/mygroup", v1: "/sys/fs/cgroup/memory/mygroup"); cgroup is
	 * then ignored */
	const char *cgroup_path;
};

/* Who reclaims when memory runs short (docs/replay.md). */
enum mr_replay_reclaim {
	MR_RECLAIM_MEMCG = 0, /* memory_pages is a cgroup limit: try_to_free_mem_cgroup_pages */
	MR_RECLAIM_NODE = 1,  /* memory_pages is the node memory: watermarks, kswapd, direct */
};

/* What becomes of shadow entries (workingset refault information) once stored
 * (`--shadow`, docs/replay.md "Shadow entries"). */
enum mr_replay_shadow {
	MR_SHADOW_KEEP = 0,   /* kept until the page comes back or is freed (default) */
	MR_SHADOW_KERNEL = 1, /* mm/workingset.c's shadow-node shrinker limit, per lruvec */
	MR_SHADOW_NONE = 2,   /* none stored: no refault is recognised */
};

/* Zone watermarks of a node, as the kernel sets them at boot. */
struct mr_watermarks {
	uint64_t min_free_kbytes; /* calculate_min_free_kbytes() over total_pages */
	uint64_t min, low, high;  /* pages: __setup_per_zone_wmarks() for the node's zone */
};

/* Watermarks of a node of node_pages pages on a machine of total_pages pages (4 KiB),
 * with the defaults watermark_scale_factor = 10 and no user min_free_kbytes. */
void mr_replay_watermarks(uint64_t node_pages, uint64_t total_pages, struct mr_watermarks *w);

struct mr_replay_progress {
	int phase;             /* 0 = next-use pass, 1 = replay */
	uint64_t events_done;
	uint64_t events_total; /* from the chunk rows */
	double elapsed_s;      /* since the phase began */
};

#define MR_REPLAY_THREADS_AUTO (-1)

/*
 * writeback_delay_ns for a synchronous swap device (SWP_SYNCHRONOUS_IO: zram, pmem):
 * the write completes inside pageout(), so shrink_folio_list() frees the folio in the
 * same pass instead of rotating it for a later one. Stored as -1 in runs.
 */
#define MR_WRITEBACK_SYNC UINT64_MAX

struct mr_replay_opts {
	const char *trace;                 /* trace store path */
	const char *const *policies;       /* policy specs, "name[:k=v,...]" */
	size_t npolicies;
	uint64_t memory_pages;             /* whole-trace limit (memcg reclaim) or node
					    * memory (node reclaim); 0 = none */
	const uint64_t *memory_sizes;      /* or several of them (pages, each > 0, none
					    * twice): every policy at each, in one pass
					    * ("Several memory sizes" above); NULL = the
					    * one memory_pages */
	size_t nmemory;
	int reclaim;                       /* enum mr_replay_reclaim */
	int shadow;                        /* enum mr_replay_shadow */
	uint32_t fault_around_pages;       /* pages a read fault of a file mapping maps
					    * around it (docs/replay.md, "Fault-around"),
					    * 1 = off, at most 512; 0 = the recorded host's
					    * fault_around_bytes, else the kernel's 64 KiB */
	/* Seeded variation of what a trace cannot carry (docs/replay.md, "--vary"): policy
	 * i's runs draw with seed policy_vary_seed[i] (0 = none; NULL = none for all): after
	 * each page-table walk the walked task is switched back in with probability vary_p. */
	const uint32_t *policy_vary_seed;
	double vary_p;
	const struct mr_replay_limit *limits; /* per-cgroup limits */
	size_t nlimits;
	const char *memory_spec;           /* --memory text(s) as given, for the runs table */
	uint64_t swap_pages;               /* pages of swap; 0 with swap_given = none */
	int swap_given;                    /* 0 and swap_pages 0: the recorded host's swap (meta
					    * swap.total_bytes, recorder/meta.c), else
					    * unlimited (docs/replay.md, "Defaults from the
					    * recorded host") */
	int writeback_given;               /* 0: writeback_delay_ns is the default, which is
					    * MR_WRITEBACK_SYNC when the host swapped to zram */
	int memory_from_trace;             /* no size given: the recorded cgroup's
					    * memory.max (meta cgroup.memory.max) */
	const char *script;                /* replay script path, or NULL */
	const char *script_text;           /* or the script itself (tests), when script is NULL */
	uint64_t interval_ns;              /* time series step; 0 = 1% of the trace duration */
	uint64_t snapshot_every_ns;        /* lru_gen snapshots; 0 = only at the end and scripts */
	uint64_t writeback_delay_ns;       /* 0 = writeback ends with the reclaim invocation;
					    * MR_WRITEBACK_SYNC = inside pageout() */
	int threads;                       /* worker threads; 0 = none (all on the caller's);
					    * MR_REPLAY_THREADS_AUTO = min(policies, CPUs) */
	const char *tmpdir;                /* next-use temporary files; NULL = /tmp */
	const char *nextuse_cache;         /* directory keeping next-use times (opt) and
					    * sampling's page counts per trace for later
					    * replays (docs/replay.md, "The cache
					    * directory"); NULL = none */
	int check;                         /* run policy->check after every reclaim */
	int record_timing;                 /* add the (non-deterministic) timing table */
	void (*progress)(void *arg, const struct mr_replay_progress *p);
	void *progress_arg;
	/* Sampled replay (docs/replay.md, "Sampled replay"): 0 = every page; N >= 1 = only
	 * 1 in N units (sample_unit pages) of each rank of heat, chosen with
	 * sample_seed, and every memory size, swap size and cgroup limit scaled to them
	 * for the machines ("Sampled replay" above). */
	uint32_t sample_den;
	uint64_t sample_seed;
	/* The unit sampled whole, in pages: a power of two from 1 to 512 (2 MiB, one PTE
	 * table); 0 = MR_REPLAY_SAMPLE_UNIT (docs/replay.md, "Which pages"). */
	uint32_t sample_unit;
	const char *output;                /* results path to claim at create (checked and
					    * locked until destroy, mr_results_claim()), so
					    * that a second replay to it fails before it
					    * runs; NULL = none */
	unsigned detail;                   /* MR_DETAIL_* tables (mr_detail.h); 0 = none */
	const uint32_t *trace_pages;       /* pages whose history every run keeps
					    * (mr_detail.h), at most MR_TRACE_MAX_PAGES */
	size_t ntrace_pages;
};

/* At most this many memory sizes in one replay, and (size, policy) runs. */
#define MR_REPLAY_MAX_SIZES 64
#define MR_REPLAY_MAX_RUNS 1024
/* The sparsest sampling: 1 in this many regions. */
#define MR_REPLAY_MAX_SAMPLE_DEN 65536
#define MR_REPLAY_SAMPLE_UNIT 1u /* pages: one page a unit (docs/replay.md, "Which pages") */

/*
 * Parse one `--memory` argument that is not a cgroup limit into sizes in pages,
 * appended to pages[*n] (cap entries in all; *n is updated): a size ("64M", a bare
 * number is pages), a comma-separated list ("32M,64M"), a range with a count of sizes in
 * equal ratios ("16M..1G:8"), with a factor ("16M..1G:x2") or with a linear step
 * ("16M..256M:+16M"), or lists of these. MR_EINVAL with a message quoting arg for bad
 * syntax, a cgroup limit inside a list, or a size given twice (also across calls);
 * MR_ERANGE beyond cap.
 */
int mr_replay_parse_memory(const char *arg, uint64_t *pages, size_t cap, size_t *n,
			   struct mr_error *err);
/* pages as the tables print a memory size: "64M", "1G", "1536K" (the largest binary
 * unit that divides it). Returns buf. */
char *mr_replay_format_memory(uint64_t pages, char *buf, size_t cap);

/*
 * Load the trace, parse every policy spec (unknown policy or parameter: the registry's
 * message), parse the script (policies without lru_gen_command: MR_EINVAL naming them)
 * and size one machine per (memory size, policy). Errors: the store's (unreadable, corrupt, version),
 * MR_EINVAL/MR_ERANGE for options, MR_ENOMEM.
 */
int mr_replay_create(const struct mr_replay_opts *o, struct mr_replay **out,
		     struct mr_error *err);
/* Replay the whole trace (once). Errors: a damaged trace (the reader's message). */
int mr_replay_run(struct mr_replay *r, struct mr_error *err);
void mr_replay_destroy(struct mr_replay *r);

size_t mr_replay_nruns(const struct mr_replay *r);

/*
 * After mr_replay_run(): the coverage warning of run (docs/replay.md, "Coverage":
 * "coverage too low ..." or "trace too coarse ..."), or NULL when what the trace could
 * not see does not move that run's results. One line, owned by r. The results database
 * keeps it in table notes (kind coverage_low or trace_too_coarse).
 */
const char *mr_replay_coarse_note(const struct mr_replay *r, size_t run);
/*
 * After mr_replay_run(): the run's other notes (table notes, in this order), such as
 * kind "toggle_idle": a policy parameter set away from its default that never changed
 * a decision ("inc_min_seq=v3 never acted: no aging pass ran at this size, ..."; the
 * policy's idle_params hook). Returns how many; *notes points into r.
 */
size_t mr_replay_notes(const struct mr_replay *r, size_t run, const struct mr_result_note **notes);
/* After mr_replay_run(): what the trace could see of run's touches, one line (notes kind
 * "coverage"), or NULL before the run. */
const char *mr_replay_coverage(const struct mr_replay *r, size_t run);

/*
 * After mr_replay_run(): one line about the next-use times (policies that need them,
 * like opt), e.g. "next-use times reused from PATH" or "... computed in 3.1 s and kept
 * in PATH (197 MiB) for later replays of this trace"; NULL when no policy needed them.
 * Owned by r. Not part of the results: they do not depend on the cache.
 */
const char *mr_replay_nextuse_note(const struct mr_replay *r);
/*
 * After mr_replay_run(): when script commands run long after the trace's end and the
 * time series (room for about the trace's span / interval samples) filled up before
 * the last of them, sampling stopped there; this says at which time and how to get
 * samples up to the end (a larger --interval). NULL otherwise. Owned by r.
 */
const char *mr_replay_series_note(const struct mr_replay *r);

/* "keep", "kernel" or "none": the runs table's shadow column and the CLI's word. */
const char *mr_replay_shadow_name(int shadow);
/* The fault-around window the runs use, in pages (1 = off), and where it came from:
 * "--fault-around", "the recorded host's fault_around_bytes" or "the kernel's default". */
uint32_t mr_replay_fault_around(const struct mr_replay *r, const char **from);
/* What the replay assumed from the recorded host or by default where no option said
 * (swap, writeback, memory), one line each: the i-th, or NULL past the last. */
const char *mr_replay_assumed(const struct mr_replay *r, size_t i);
/* 1 when the runs have no swap (--swap 0, or a host without swap). */
int mr_replay_no_swap(const struct mr_replay *r);

/* The sampling hash of a unit (mr_replay.h, "Sampled replay"): kind 0 for a file (owner
 * = the trace's file id), 1 for an address space (owner = the trace's mm id), region =
 * page index or virtual page >> log2(the unit's pages). splitmix64's finaliser over each. */
uint64_t mr_replay_sample_hash(uint64_t seed, unsigned kind, uint64_t owner, uint64_t region);
/* Parse a sampling rate "1/N" (N from 1 to MR_REPLAY_MAX_SAMPLE_DEN) into *den.
 * MR_EINVAL quoting arg and saying what to give. */
int mr_replay_parse_sample(const char *arg, uint32_t *den, struct mr_error *err);
/* Parse a sampling unit (a size, a power of two from 4K to 2M: --sample-unit) into
 * *pages. MR_EINVAL with a message naming the option's form otherwise. */
int mr_replay_parse_sample_unit(const char *arg, uint32_t *pages, struct mr_error *err);
/* After mr_replay_create(): the pages sampled, of those with page rows (all when not
 * sampling). */
uint64_t mr_replay_sampled_pages(const struct mr_replay *r, uint64_t *of);

/* A sampled replay: one line saying the rate, the seed, the regions, pages, references
 * and live peak kept, and a warning when few regions are (the results' note of kind
 * "sampled"); NULL when not sampled. Owned by r. */
const char *mr_replay_sample_note(const struct mr_replay *r);
/* A sampled replay: one line about the page counts the choice of pages ranks by (they
 * depend on the trace alone), as mr_replay_nextuse_note()'s: "sampling's page counts
 * reused from PATH", or computed and kept there, or not kept and why; NULL when not
 * sampled. Owned by r. Not part of the results: they do not depend on the cache. */
const char *mr_replay_sample_cache_note(const struct mr_replay *r);
/* A sampled replay: the seconds its creation spent getting those page counts (counted
 * in a pass over the trace, or read from the cache); 0 when not sampled. */
double mr_replay_sample_counts_s(const struct mr_replay *r);

/* Is a policy of that name registered (built in or from a plugin)? */
int mr_replay_policy_exists(const char *name);
/* Is spec ("name[:k=v,...]") a policy with valid parameters? 0, or the registry's error
 * (unknown policy or parameter, value out of range) naming what is valid. */
int mr_replay_check_policy(const char *spec, struct mr_error *err);

/* What `memreplay replay` prints per policy when done. */
struct mr_replay_summary {
	char spec[256];         /* canonical policy spec */
	uint64_t events;
	uint64_t pgfault, pgmajfault;
	uint64_t misses;        /* pages brought into memory (faults and page-cache fills) */
	uint64_t refaults;      /* workingset_refault_anon + _file */
	uint64_t evictions;     /* pages freed by reclaim */
	uint64_t pswpin, pswpout;
	uint64_t oom;
	uint64_t usage_max;     /* peak pages charged, all memcgs */
	uint64_t memory_pages;  /* the run's whole-trace size (0 = only cgroup limits) */
	double wall_s;          /* this machine's share of worker time */
};
int mr_replay_summary(const struct mr_replay *r, size_t run, struct mr_replay_summary *s);

/* A final counter of run (0-based) by name: vmstat names, mr_* / host_* engine names;
 * memcg = a cgroup id for memory.stat values, -1 for the whole machine. MR_ENOENT when
 * absent. */
int mr_replay_counter(const struct mr_replay *r, size_t run, const char *name, int64_t memcg,
		      uint64_t *value);

/* Write the results database (docs/results-schema.md), replacing path if it is a results
 * database or absent; refuses any other existing file or a symbolic link (MR_EINVAL), and
 * a path another writer holds (MR_EBUSY). path NULL or the claimed opts.output: written
 * under that claim; another path is claimed for the write (mr_results_write()). */
int mr_replay_write_results(const struct mr_replay *r, const char *path, struct mr_error *err);

#endif /* MR_REPLAY_H */
