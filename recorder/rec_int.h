/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rec_int.h - the recorder's private state and what its files share:
 *
 *   record.c     mr_record_run(): a recording as its list of steps, the main loop
 *   perf.c       the perf events through libperf: the evlist, opening it (and again
 *                without what fails with the rest), kernel-side filters, the rings
 *                drained merged by time, loss counts
 *   decode.c     perf records to trace events: faults, hardware samples, tracepoints
 *                (with the refault and swap-in pairing), the side band
 *   cgroup.c     --cgroup: its hierarchy, kernel or user-space scope, which tasks are in
 *   sources.c    the --sources names (mr_record_parse_sources()) and each source's state
 *   meta.c       the trace's metadata rows
 *   ids.c        dense ids for tasks, mms, files, pages; VMAs per mm
 *   tp.c         the tracepoints read; tracefs (the host's, or mounted privately) and
 *                the tracepoints' formats
 *   young.c      clear_refs scans, NUMA nodes
 *   hwsample.c   hardware sampling events: libpfm4 or sysfs encoding, which open here
 *   btf.c        enum values from the kernel's BTF
 *   probe.c      mr_recorder_probe(): what this host can record (uses tp.c's tracefs)
 *   overlap.c    setup work run beside the recorder's thread (the fixed cost)
 *
 * libperf_compat.h holds what perf.c and probe.c need from libperf beyond its headers.
 */
#ifndef MR_REC_INT_H
#define MR_REC_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "mr_recorder.h"
#include "mr_util.h" /* mr_clock_ns(): CLOCK_MONOTONIC, the perf events' clock */
#include "mr_store.h"

/* Open-addressing map from a 128-bit key to a u32 value (grows at 1/2 load). */
struct rec_htab {
	struct rec_hent { uint64_t k1, k2; uint32_t val; uint32_t used; } *e;
	size_t cap, n;
};
/* Returns the slot for (k1, k2); *found says whether it holds the key. NULL on ENOMEM. */
struct rec_hent *rec_htab_slot(struct rec_htab *h, uint64_t k1, uint64_t k2, int *found);
void rec_htab_free(struct rec_htab *h);

/*
 * Page ids by key: (type, owner, key) -> dense id, in blocks of PMAP_BLOCK ids for
 * consecutive keys (a fault run touches consecutive virtual pages, readahead consecutive
 * file indexes), found through a hash of (type, owner, key / PMAP_BLOCK) with the last
 * block used cached: a sequential run costs one hash lookup per block, not per page.
 */
#define PMAP_SHIFT 4
#define PMAP_BLOCK (1u << PMAP_SHIFT)
struct rec_pmap {
	struct rec_htab ix;			/* block key -> index into blk */
	uint32_t (*blk)[PMAP_BLOCK];		/* ids, MR_PAGE_NONE where none yet */
	uint32_t nblk, blk_cap;
	uint64_t last_k1, last_kb;		/* the cached block: last_blk, if last_ok */
	uint32_t last_blk;
	int last_ok;
};

struct rec_vma {
	uint64_t start, end, pgoff;
	uint32_t id, file, flags;
};

struct rec_mm {
	struct rec_vma *v; /* sorted by start, disjoint */
	uint32_t n, cap;
	int32_t tgid;
	int alive;
	uint32_t anon_head; /* first of this mm's anon pages (rec.page_next), MR_PAGE_NONE */
	uint32_t nanon;	    /* anon pages on that list */
	uint32_t ntasks;    /* tasks using it that have not exited */
	int young_cleared;  /* clear_refs written for it once: its young bits mean something */
	uint32_t cgroup;    /* memory cgroup of its latest task: what its faults charge */
	uint32_t fork_parent; /* the mm it was forked from (0: exec or first seen) */
	uint32_t fork_cow;    /* rec.ncow at that fork: the parent's earlier COWs are its own */
};

struct rec_task {
	int32_t pid, tgid;
	uint32_t mm, cgroup;
	uint64_t start_ns, end_ns;
	char comm[16];
	/* the last exceptions:page_fault_user of this task not yet paired with its fault
	 * sample (pf_err bit 0: pending) */
	uint64_t pf_addr;
	uint32_t pf_err;
	/* WORKINGSET_*_ANON labels of this task's swap-in, waiting for the major fault
	 * sample that ends it (decode.c:on_memcg(), claim_swapin()) */
	uint32_t sw_labels;	/* WORKINGSET_REFAULT_ANON labels since then */
	uint32_t sw_pages;	/* their pages */
	uint32_t sw_nr;		/* pages of the last one */
	uint8_t sw_flags;	/* its REFAULT flags: KERNEL, + WORKINGSET with RESTORE_ANON */
	uint8_t sw_activate;	/* ACTIVATE_ANON came with it */
	uint32_t npend;		/* its page-cache inserts waiting in rec.held[] */
};

/* Per ring (CPU): what the kernel's refault labels attach to. */
struct rec_ring_state {
	/* the last PC_INSERT on this CPU */
	uint32_t ins_task, ins_file, ins_nr;
	uint64_t ins_index;
	int ins_valid;
	/* a WORKINGSET_REFAULT_* label waiting for its ACTIVATE / RESTORE items */
	uint32_t rf_task, rf_file, rf_nr, rf_flags;
	uint64_t rf_index, rf_time;
	uint16_t rf_cpu;
	int rf_activate, rf_pending;
};

/* enum node_stat_item members the refault labels use (resolved from BTF). */
enum rec_ws {
	RWS_REFAULT_ANON, RWS_REFAULT_FILE, RWS_ACTIVATE_ANON, RWS_ACTIVATE_FILE,
	RWS_RESTORE_ANON, RWS_RESTORE_FILE, RWS_NR
};

/* A tracepoint field as read from its tracefs format file. */
struct tp_field {
	int off, size; /* -1 = absent */
};

enum rec_tp {
	RTP_ADD, RTP_DELETE, RTP_GET_PAGES, RTP_RA_SYNC, RTP_RA_ASYNC,
	RTP_MEMCG,	/* memcg:mod_memcg_lruvec_state, filtered to the WORKINGSET_* items */
	RTP_MUNMAP,	/* syscalls:sys_enter_munmap */
	RTP_EXIT_MMAP,	/* mmap:exit_mmap */
	RTP_PF_USER,	/* exceptions:page_fault_user, filtered to write/exec faults */
	RTP_MADVISE,	/* syscalls:sys_enter_madvise */
	RTP_DIRTY,	/* writeback:writeback_dirty_folio: a page-cache folio turned dirty */
	RTP_CG_ATTACH,	/* cgroup:cgroup_attach_task: a task moved to another cgroup */
	RTP_NR
};

/* Fields a tracepoint needs (tp_info.have, rec_tp_load's need). */
enum {
	TPF_PFN = 1u << 0, TPF_INO = 1u << 1, TPF_INDEX = 1u << 2, TPF_DEV = 1u << 3,
	TPF_ORDER = 1u << 4, TPF_LAST_INDEX = 1u << 5, TPF_SIZE = 1u << 6,
	TPF_ASYNC_SIZE = 1u << 7, TPF_ITEM = 1u << 8, TPF_VAL = 1u << 9, TPF_ADDR = 1u << 10,
	TPF_LEN = 1u << 11, TPF_ADDRESS = 1u << 12, TPF_ERROR_CODE = 1u << 13,
	TPF_START = 1u << 14, TPF_LEN_IN = 1u << 15, TPF_BEHAVIOR = 1u << 16,
	TPF_BDI = 1u << 17, TPF_DST_ROOT = 1u << 18, TPF_PID = 1u << 19, TPF_DST_PATH = 1u << 20,
};

struct tp_info {
	int present;
	unsigned have; /* TPF_* found in the format */
	uint64_t id;
	struct tp_field pfn, ino, index, dev, order, last_index, size, async_size;
	struct tp_field item, val, addr, len, address, error_code, start, len_in, behavior;
	struct tp_field bdi; /* writeback_dirty_folio's name[32]: the bdi, "MAJOR:MINOR" */
	struct tp_field dst_root, pid, dst_path; /* cgroup_attach_task's (dst_path: __data_loc) */
	char layout[256]; /* "name@off:size,..." for the metadata */
};

/*
 * The tracepoints the recorder reads, by enum rec_tp (tp.c; it says from which task's
 * context each one fires).
 */
struct rec_tp_name {
	const char *sys, *name;
	unsigned int source;	/* the MR_RSRC_* bit that wants it */
	unsigned int need;	/* TPF_* fields it must have */
	int cpu_wide;		/* under --cgroup, stays CPU-wide even when the kernel can
				 * scope the other events to the cgroup */
};
extern const struct rec_tp_name rec_tp_names[RTP_NR];
/* The enum node_stat_item names of enum rec_ws, in its order (tp.c). */
extern const char *const rec_ws_names[RWS_NR];

/* What an event id (PERF_SAMPLE_IDENTIFIER) belongs to: RK_TP_BASE + enum rec_tp, then
 * RK_HW_BASE + index into rec_hw.ev[]. */
enum rec_kind { RK_FAULT_MIN, RK_FAULT_MAJ, RK_TP_BASE, RK_HW_BASE = RK_TP_BASE + RTP_NR };

/*
 * Hardware data-address sampling (hwsample.c). One rec_hw_event per name asked for
 * (--hw-event, or the vendor's default list): how it was encoded, whether it opened, and
 * what its samples gave. The perf_event_attr fields are kept as plain values so that this
 * header does not depend on which <linux/perf_event.h> a includer sees.
 */
#define REC_HW_MAX MR_RECORD_HW_MAX
struct rec_hw_event {
	char name[MR_RECORD_HW_NAME];	/* as asked for */
	char how[160];		/* what it was encoded to (libpfm4's string, or sysfs PMU) */
	uint32_t type;		/* perf_event_attr.type */
	uint64_t config, config1, config2;
	uint64_t period;	/* sample_period used */
	uint8_t precise_ip;
	uint8_t exclude_user, exclude_kernel, exclude_hv, exclude_host, exclude_guest;
	uint8_t rwx;		/* MR_ACC_WRITE / MR_ACC_READ when the name says stores /
				 * loads, else 0 (then the sample's data_src, else READ) */
	int opened;		/* opened on its own (rec_hw_setup) and kept */
	int err;		/* errno of the failed open; 0 when encoding failed or none */
	char why[MR_RECORD_HW_WHY];	/* why not opened ("ENOENT (...): hint", or libpfm4's
				 * error), "" when opened */
	/* counted by the ring reader */
	uint64_t samples, accesses, no_addr, kernel_addr, lost;
};

struct rec_hw {
	struct rec_hw_event ev[REC_HW_MAX];
	int n;			/* names asked for */
	int nopen;		/* of them opened */
	char vendor[16];	/* from /proc/cpuinfo, for the default list */
	int defaults;		/* the names are the vendor's defaults */
};

/* Records copied out of one ring, waiting to be merged by time with the other rings. */
struct rec_pending {
	unsigned char *data;
	size_t len, cap, head;
};

/* Page-cache inserts and readahead of a task held back until its next event tells
 * whether they were part of a fault (decode.c). */
/* A fault's readahead window is read_ahead_kb at most (4 MiB here: 1024 order-0
 * folios); room for a few of them. */
#define REC_HELD_MAX 4096
struct rec_pend {
	struct mr_event ev;
	int ring;
};

struct rec {
	const struct mr_record_opts *o;
	/* user-mode events only (exclude_kernel): what perf_event_paranoid 2 lets an
	 * unprivileged user sample of its own tasks; set when the full open is refused */
	int user_only;
	/* ring data pages per CPU when they had to fit perf_event_mlock_kb (0: the
	 * option's or the default) */
	uint32_t ring_fit;
	struct mr_store *store;
	struct mr_writer *w;
	struct mr_error *err;
	struct mr_record_stats *st;
	uint64_t t0;	/* CLOCK_MONOTONIC ns at the start */
	long psize;
	int pshift;
	uint64_t anon_key; /* anonymisation key, random per recording */

	struct rec_htab task_ix, mm_ix, file_ix;
	/* private file pages written (COW): (mm, virtual page) -> index into cow[], the
	 * file page it was copied from; indices grow with time (ids.c, cow_page()) */
	struct rec_htab cow_ix;
	uint32_t *cow; uint32_t ncow, cow_cap;
	struct rec_pmap page_map;
	struct rec_task *tasks; uint32_t ntasks, tasks_cap; /* [0] unused */
	struct rec_mm *mms; uint32_t nmms, mms_cap;         /* [0] unused */
	uint32_t nfiles, nvmas;
	struct mr_page *pages; uint8_t *pflags; uint32_t npages, pages_cap;
	uint32_t side_cap; /* entries of pflags[] and anon_link[] */
	struct rec_anon_link { uint64_t vpage; uint32_t next; } *anon_link;
				/* [pages_cap]: raw vpage and next anon page of the same mm
				 * (list from rec_mm.anon_head), for munmap and exit_mmap */
	uint32_t folio_orders; /* bit per folio order seen */
	char **cg_paths; uint32_t ncg;	/* memory cgroups seen; id = index + 1 */
	int memcg_root;			/* memory controller's hierarchy id, -2 = not read yet */
	uint64_t cg_moves;		/* cgroup_attach_task moves followed */
	uint64_t dirty_events;		/* writeback_dirty_folio records kept (on_dirty()) */
	uint64_t dirty_unmatched;	/* ... of a bdi not named MAJOR:MINOR: not kept */

	struct tp_info tp[RTP_NR];
	struct rec_ring_state *rs;	/* [nrings] */
	struct rec_hw hw;		/* hardware sampling events (--sources hwsample) */
	int hw_on;			/* rec_perf_open() adds the hw events that opened alone */
	int64_t ws_item[RWS_NR];	/* enum node_stat_item values, -1 = unknown */
	int refault_on, pf_user_on;
	/* counters kept in the metadata */
	uint64_t rf_labels, rf_unpaired, rf_pages, rf_anon_pages, pf_paired, munmaps, exit_mmaps,
		 madvise_flags, madvise_dontneed, madvise_ignored, switch_ins,
		 mm_ends;
	/* anon label pages by what became of them (they sum to rf_anon_pages) */
	uint64_t rf_anon_attached, rf_anon_readahead, rf_anon_unattached;

	/* streams: one per ring, then young */
	uint32_t *ring_stream; uint64_t *ring_last; int nrings;
	struct rec_pending *pend;	/* [nrings] */
	/*
	 * --cgroup: events kept only for tasks in this cgroup (or below). cg_kernel: the
	 * streams that fire in the tasks' own context are scoped by the kernel
	 * (PERF_FLAG_PID_CGROUP on cg_fd, see cgroup.c:rec_cgroup_set()); the others, and all
	 * of them when the kernel cannot filter this hierarchy, are CPU-wide and filtered
	 * here per task (scope_ix).
	 */
	char cg_want[512];	/* path inside its hierarchy, "" = no filter */
	int cg_v1;		/* cg_want is in a v1 hierarchy (cg_field), else v2 */
	char cg_field[128];	/* v1: the hierarchy's controllers as /proc/PID/cgroup
				 * names them ("memory", "cpu,cpuacct", "name=x") */
	int cg_kernel;		/* filter in the kernel (perf_event controller here) */
	int cg_fd;		/* the cgroup directory while opening, else -1 */
	char cg_how[704];	/* which filter and why, for stderr and the metadata */
	struct rec_htab scope_ix; /* tid -> 1 in scope, 2 not */
	uint32_t young_stream; uint64_t young_last;
	uint64_t young_seq, young_partial, young_skipped;
	int young_on;
	int young_soft_dirty; /* MR_YOUNG_SOFT_DIRTY: clear_refs "4" only, no scan */
	struct rec_pend *held; /* [REC_HELD_MAX] */
	uint32_t nheld;
	uint64_t pend_in_fault, pend_flushed; /* inserts emitted after a fault / alone */
	const char *young_src;
	uint64_t numa_cursor;
	int write_failed;

	/* What the setup steps of mr_record_run() found (record.c), for the sources' states
	 * (sources.c): whether the tracepoints are open, and why a part is off ("" none). */
	int with_tp;
	int tp_why[RTP_NR];	/* errno of each tracepoint's rec_tp_load(), 0 */
	char tracefs_why[sizeof(((struct mr_record_stats *)0)->tracefs)]; /* tracefs not
				 * readable, or the tracepoint events denied */
	char refault_why[160];	/* the kernel refault labels cannot be had */
	char filter_why[160];	/* a tracepoint filter refused or missing */
	char hw_why[MR_RECORD_HW_WHY];	/* rec_hw_setup()'s reason */
	char hw_open_why[256];	/* the hardware events open alone only */
};

/* page flags (pflags[]) */
#define PF_CACHED 0x01u	/* in the host page cache per the tracepoints */
#define PF_DELETED 0x02u	/* deleted from it since (a later insert is a refault) */
#define PF_ANON_MAPPED 0x04u	/* anon page faulted in and not freed since (munmap/exit) */
#define PF_PENDING 0x08u	/* its insert waits in rec.held[] (decode.c: pend_push()) */
/* bits 4..7 of the first page of an inserted folio: its order (on_dirty() names the folio
 * by its first page) */
#define PF_ORDER_SHIFT 4
#define PF_ORDER_MASK 0xf0u


/*
 * The perf events (perf.c). Every evsel samples SAMPLE_TYPE (the hardware events
 * HW_SAMPLE_TYPE); the decoders read the fixed part at these offsets. The PERF_SAMPLE_*
 * names need libperf's <linux/perf_event.h> where they are used.
 */
#define DEFAULT_RING_PAGES 2048 /* 8 MiB per CPU: 2 MiB lost ~7% of a 1 GiB touch here */
/* The ring data pages of a recording: a fitted size, the option's or the default. */
#define REC_RING_PAGES(r) ((r)->ring_fit ? (r)->ring_fit : (r)->o->ring_pages ? \
			   (r)->o->ring_pages : DEFAULT_RING_PAGES)
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU)
/* id, ip, pid/tid, time, addr, cpu/res */
#define SAMPLE_FIXED (6 * 8)
/* hardware events: the same, then data_src (its mem_op says load or store) */
#define HW_SAMPLE_TYPE (SAMPLE_TYPE | PERF_SAMPLE_DATA_SRC)
#define HW_SAMPLE_FIXED (SAMPLE_FIXED + 8)
/* sample_id_all trailer: pid/tid, time, cpu/res, identifier */
#define SIDE_TRAILER (4 * 8)
#define MAX_RANGE (1u << 16) /* pages per FD_ACCESS/READAHEAD event expanded at most */
/* x86 page fault error code (arch/x86/include/asm/trap_pf.h) */
#define X86_PF_WRITE 0x02u
#define X86_PF_INSTR 0x10u

/* A sample id (PERF_SAMPLE_IDENTIFIER) and the evsel kind it belongs to. */
struct idmap {
	uint64_t id;
	int kind; /* enum rec_kind; RK_TP_BASE + rec_tp */
};

/*
 * Rings before the events (perf.c): for a command, one CPU-wide dummy event per CPU whose
 * rings are mapped on a job thread while the kernel's grace period for the first
 * task-bound event runs; the task-bound events are then redirected into them. ok: mapped
 * and still to be used; pidfd: the command's, polled beside the rings (a CPU-wide event
 * signals no exit).
 */
struct pollfd;
struct rec_rings {
	struct perf_evlist *evlist;
	struct perf_evsel *evsel;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	int pages, psize; /* data pages of each ring, the page size */
	int ok;           /* mapped, not yet given up */
	int used;         /* the events are redirected into them (rec_perf_open()) */
	int pidfd;
	struct pollfd *pfd; /* the rings' fds, then the pidfd: what the loop polls */
	int npfd;
	int why;          /* -errno of the step that failed, for the notes */
	const char *why_step; /* that step */
};

/* A recording's perf events: its maps, the evlist, each evsel's kind, the ids. */
struct perf_state {
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct perf_evlist *evlist;
	struct rec_rings rings; /* rings.used: the events write there, else their own */
	struct perf_evsel *evsel[2 + RTP_NR + REC_HW_MAX];
	int kind[2 + RTP_NR + REC_HW_MAX];
	int nevsel;
	struct idmap *ids;
	int nids;
};

/* CLOCK_MONOTONIC ns t as trace time: since the start of the recording. */
static inline uint64_t rel_time(const struct rec *r, uint64_t t)
{
	return t > r->t0 ? t - r->t0 : 0;
}

/* perf.c */
struct perf_event_attr;
union perf_event;
/* The attr every evsel starts from: each event a sample with its id and the loss count,
 * disabled (until enabled, or exec), inherited for a command or pids, CLOCK_MONOTONIC. */
void rec_perf_base_attr(struct perf_event_attr *a, const struct rec *r);
/* Build the evlist for the sources asked for (tracepoints when with_tp) and open and map
 * it: 0, or -errno with *step naming the call that failed. */
int rec_perf_open(struct rec *r, struct perf_state *ps, int with_tp, const char **step);
/* After rec_perf_open() failed with *feature on: the same without it, see perf.c. */
int rec_perf_open_without(struct rec *r, struct perf_state *ps, int with_tp,
			  const char **step, int *feature);
/* Fill ps->ids (id -> evsel kind): 0 or -ENOMEM. */
int rec_perf_read_ids(struct perf_state *ps);
/* The enum rec_kind of a sample's id; -1 when unknown. */
int rec_perf_kind(const struct perf_state *ps, uint64_t id);
/* Kernel-side tracepoint filters; non-zero when the required memcg one failed (why). */
int rec_perf_apply_filters(struct rec *r, struct perf_state *ps, char *why, size_t cap);
/* Read every ring and decode what is old enough, merged by time (final: everything).
 * ids: MAX_RANGE page ids of scratch. Returns 0 or the first decoder / writer error. */
int rec_perf_drain(struct rec *r, struct perf_state *ps, uint32_t *ids, int final);
/* The rings of rings->pages on CPU-wide dummy events, on a job thread (rec_job): always
 * returns 0, rings->ok says whether they are there. */
int rec_rings_open(void *rings);
/* Held around opening fds that are not O_CLOEXEC on a job thread and around forking the
 * command (record.c, spawn()), so that its exec never inherits them. */
extern pthread_mutex_t rec_fork_lock;
void rec_rings_close(struct rec_rings *rings);
/* Wait up to ms for the rings (and the command's exit, where a pidfd is polled). */
void rec_perf_poll(struct perf_state *ps, int ms);
/* Samples lost (PERF_FORMAT_LOST) on one ring, and of one evsel on every ring. */
uint64_t rec_perf_ring_lost(struct perf_state *ps, int ring);
uint64_t rec_perf_evsel_lost(struct perf_state *ps, int e);

/* cgroup.c: --cgroup PATH. Where the filter runs (r->cg_kernel, cg_fd, cg_how): 0, or
 * MR_EINVAL when PATH is no directory of a mounted cgroup hierarchy (err says why). */
int rec_cgroup_set(struct rec *r, const char *path, struct mr_error *err);
/* Is tid in the cgroup (always 1 without --cgroup)? A forked child gets its parent's
 * answer. A record of stream t (enum rec_tp, -1 for faults and side band) from tid: in
 * scope by construction when the kernel scopes that stream, else rec_in_scope(). */
int rec_in_scope(struct rec *r, int32_t tid);
void rec_scope_inherit(struct rec *r, int32_t parent, int32_t child);
int rec_stream_in_scope(struct rec *r, int t, int32_t tid);

/* decode.c: one record of ring, in time order; ids as for rec_perf_drain(). */
int rec_process(struct rec *r, struct perf_state *ps, int ring, const union perf_event *e,
		uint32_t *ids);
/* Emit the kernel refault label waiting on ring, if any. */
int rec_flush_refault(struct rec *r, int ring);
int rec_pend_flush_all(struct rec *r);
/* sources.c: whether the kernel tracks soft-dirty bits (CONFIG_MEM_SOFT_DIRTY) */
int rec_soft_dirty_works(long psize);
/* Count the anon refault labels task collected and no major fault claimed; drop them. */
void rec_drop_swapin(struct rec *r, uint32_t task);

/* sources.c: the state of every source (r->st->src), from what the setup found; turns
 * the optional decoders on (refault_on, pf_user_on, young_on). */
void rec_sources_state(struct rec *r);

/* meta.c: the metadata known once the events are open and the sources' states are set
 * (rec_meta_start()), and the counters and source states at the end (rec_meta_end()). */
void rec_meta_start(struct rec *r);
void rec_meta_end(struct rec *r, struct perf_state *ps);
/* The number on the first line of a file: 0, or -errno (-EIO when empty). */
int rec_read_int_file(const char *path, long *v);

/* overlap.c: fn(arg) on a thread of its own (inline when pthread_create fails);
 * rec_job_wait() joins it and returns fn's result (0 for a job never started). */
struct rec_job {
	pthread_t th;
	int started, threaded;
	int (*fn)(void *);
	void *arg;
	int rc;
};
void rec_job_start(struct rec_job *j, int (*fn)(void *), void *arg);
int rec_job_wait(struct rec_job *j);
/* A job: open the dummy event that turns the kernel's perf scheduler hooks on ahead of
 * the recorder's events; arg is an int * for its fd (-1 when it did not open). */
int rec_sched_key_open(void *arg);

/* ids.c */
uint32_t rec_task_get(struct rec *r, int32_t pid, int32_t tid, uint64_t t);
void rec_task_put(struct rec *r, uint32_t id);
uint32_t rec_mm_new(struct rec *r, int32_t tgid, uint32_t copy_from);
/*
 * The page of user address addr in mm (VMA v, NULL when unknown): a page of the VMA's
 * file, else an anon page of mm (marked mapped: munmap / exit_mmap free it). In a private
 * file mapping an address that was copied on write is the anon page (ids.c, cow_page());
 * copy says the address is a copy now (a write fault in a writable private mapping,
 * pagemap without PM_FILE). A page of an executable VMA is marked exec. Faults, young
 * scans and hardware samples resolve alike.
 */
uint32_t rec_addr_page(struct rec *r, uint32_t mm, const struct rec_vma *v, uint64_t addr,
		       int copy);
/* Move task to mm (exec); the old mm's ntasks drops. Returns the old mm. */
void rec_task_cgroup_update(struct rec *r, uint32_t task);
int rec_task_cgroup_moved(struct rec *r, int32_t tid, int root, const char *path);
uint32_t rec_task_set_mm(struct rec *r, uint32_t task, uint32_t mm);
uint32_t rec_file_get(struct rec *r, uint64_t dev, uint64_t ino, const char *path);
/* Lookups that create nothing: the file's id (0 when unknown), the page's id
 * (MR_PAGE_NONE when unknown). */
uint32_t rec_file_find(const struct rec *r, uint64_t dev, uint64_t ino);
uint32_t rec_page_find(struct rec *r, int type, uint32_t owner, uint64_t key);
/* Dense page id, created on first use; MR_PAGE_NONE on ENOMEM. */
/* cg: the memory cgroup (dense id, 0 unknown) a page first seen now is charged to */
uint32_t rec_page_get(struct rec *r, int type, uint32_t owner, uint64_t key, uint32_t cg);
/* Add a VMA to mm (replacing overlapped ones, which get UNMAP events on stream). */
int rec_vma_add(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, uint64_t pgoff,
		uint32_t file, uint32_t flags, uint64_t t, uint32_t stream, uint64_t *last,
		uint32_t task);
const struct rec_vma *rec_vma_find(const struct rec_mm *m, uint64_t addr);
/*
 * munmap(start, end) in mm: VMAs inside go (UNMAP), VMAs that straddle an end are split as
 * the kernel does (the pieces left get new ids and MAP events before the UNMAP of the old
 * one), and the faulted anon pages of the range get FREE events (runs of consecutive page
 * ids; scratch holds cap page ids). exit_mmap: whole = 1 frees every anon page of mm.
 */
int rec_vma_advise(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, uint32_t set,
		   uint32_t clear, uint64_t t, uint32_t stream, uint64_t *last, uint32_t task);
int rec_anon_free(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, uint64_t t,
		  uint32_t stream, uint64_t *last, uint32_t task, uint16_t cpu,
		  uint32_t *scratch, uint32_t cap);
int rec_vma_remove(struct rec *r, uint32_t mm, uint64_t start, uint64_t end, int whole,
		   uint64_t t, uint32_t stream, uint64_t *last, uint32_t task, uint16_t cpu,
		   uint32_t *scratch, uint32_t cap);
uint64_t rec_hash(const struct rec *r, uint64_t v);
int rec_emit(struct rec *r, uint32_t stream, uint64_t *last, struct mr_event *ev);
void rec_ids_free(struct rec *r);
/* Read /proc/PID/maps into mm's VMAs (MAP events at t). */
int rec_maps_snapshot(struct rec *r, int32_t pid, uint32_t mm, uint64_t t, uint32_t stream,
		      uint64_t *last);

/*
 * tp.c: where tracefs is. rec_tracefs_enter() finds the host's (/sys/kernel/tracing, then
 * /sys/kernel/debug/tracing) or, when none is mounted, mounts one at /sys/kernel/tracing
 * in a private mount namespace of the calling thread (root only). Returns 0 with path
 * set, or -errno with how saying why and the fix. how also says, on success, which it
 * was (for the summary and the "tracefs" meta). rec_tracefs_leave() must follow, on the
 * same thread, before anything is spawned: it returns the thread to the host's mount
 * namespace (and its root and cwd); -errno if that failed.
 */
struct rec_tracefs {
	char path[64];		/* "" when none */
	char found[64];		/* a tracefs mounted there, even one whose events/ cannot
				 * be read (then path is "") */
	char how[224];
	int mounted;		/* we mounted it (privately) */
	int moved;		/* this thread is in the private namespace */
	int err;		/* errno of the failure, 0 */
	int host_ns, root_fd, cwd_fd; /* while mounted: the host's mount namespace, root
				       * and cwd to go back to; -1 */
};
int rec_tracefs_enter(struct rec_tracefs *t);
int rec_tracefs_leave(struct rec_tracefs *t);

/* tp.c: id and layout of sys:name; -EPROTO when a field of need (TPF_*) is missing. */
int rec_tp_load(struct tp_info *tp, const char *tracefs, const char *sys, const char *name,
		unsigned need);
uint64_t rec_tp_get(const void *raw, uint32_t rawlen, const struct tp_field *f);

/* btf.c: values of the enumerators names[0..n) of enum enum_name, from a BTF blob or
 * file. vals[i] = -1 for a name not found. Returns 0, MR_ENOENT (some name missing) or
 * MR_EINVAL / MR_EIO (unreadable BTF); why always says what failed ("" on success). */
int rec_btf_enum_values(const void *buf, size_t len, const char *enum_name,
			const char *const *names, int n, int64_t *vals, char *why, size_t cap);
int rec_btf_enum_file(const char *path, const char *enum_name, const char *const *names,
		      int n, int64_t *vals, char *why, size_t cap);

/* young.c */
int rec_young_scan(struct rec *r, uint64_t t);
void rec_numa_sample(struct rec *r);
/* hwsample.c */
/* Default period of hardware events (--hw-period 0). */
#define REC_HW_DEFAULT_PERIOD 100003
/*
 * Encode names (comma list of libpfm4 event names or "ibs_op"; NULL = the vendor's
 * default list) with period (0 = REC_HW_DEFAULT_PERIOD) and open each one alone on the
 * calling thread with *base's sample layout (not inherited), closing it again, to learn
 * which open here. Fills *hw (zeroed first). Returns the number that opened (0..n), or
 * MR_EINVAL for more than REC_HW_MAX names or a name longer than 63 bytes (why says).
 * Never prints; nothing stays open.
 */
int rec_hw_setup(struct rec_hw *hw, const char *names, uint64_t period,
		 const struct perf_event_attr *base, char *why, size_t cap);
/* Copy e's encoding (type, config*, exclude bits, precise_ip, period) into *a. */
void rec_hw_attr(const struct rec_hw_event *e, struct perf_event_attr *a);
/* One line for the summary and metadata: what opened and what failed with which errno
 * (or "" when nothing was asked for). */
void rec_hw_describe(const struct rec_hw *hw, char *buf, size_t cap);
/* Access bits of one sample of e from its PERF_SAMPLE_DATA_SRC value. */
uint8_t rec_hw_rwx(const struct rec_hw_event *e, uint64_t data_src);

#endif /* MR_REC_INT_H */
