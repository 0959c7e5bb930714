/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_recorder.h - the recorder's public interface: what this host can record
 * (mr_recorder_probe) and the recording itself (mr_record_run, at the end of this file).
 *
 * mr_recorder_probe() checks, for real and without changing anything on the host, each
 * source the recorder may use (perf software page faults through libperf, tracefs
 * tracepoints, page_idle, DAMON, a hardware PMU through libpfm4) and the host facts a
 * replay depends on (kernel, page size, THP, MGLRU, NUMA, cgroups). mr_probe_format()
 * turns the result into a report in which every "no" says why and how to fix it.
 *
 * Neither function prints, exits or reads the environment. The probe installs a libperf
 * print callback (libperf_init) that swallows libperf's messages: libperf keeps that
 * callback in a global, so the recorder owns it for the whole process.
 */
#ifndef MR_RECORDER_H
#define MR_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "mr_err.h"
#include "mr_event.h"

/* The tracepoints the recorder reads, in this order in struct mr_probe.tracepoints[]. */
enum mr_probe_tp {
	MR_TP_FILEMAP_ADD,	/* filemap:mm_filemap_add_to_page_cache: page-cache insert */
	MR_TP_FILEMAP_DELETE,	/* filemap:mm_filemap_delete_from_page_cache: eviction */
	MR_TP_FILEMAP_GET_PAGES,/* filemap:mm_filemap_get_pages: read() lookups */
	MR_TP_RA_SYNC,		/* readahead:page_cache_sync_ra */
	MR_TP_RA_ASYNC,		/* readahead:page_cache_async_ra */
	MR_TP_LRU_ACTIVATE,	/* pagemap:mm_lru_activate: promotion to the active list */
	MR_TP_MEMCG_LRUVEC,	/* memcg:mod_memcg_lruvec_state: exact refault labels */
	MR_TP_COUNT
};

/* Tri-state answers: the probe could not always find out (e.g. tracefs unreadable). */
enum mr_probe_answer {
	MR_PROBE_UNKNOWN = -1,
	MR_PROBE_NO = 0,
	MR_PROBE_YES = 1,
};

/* cgroup layout of /sys/fs/cgroup. */
enum mr_cgroup_mode {
	MR_CGROUP_NONE = 0,	/* nothing mounted at /sys/fs/cgroup */
	MR_CGROUP_V1,		/* v1 controllers only */
	MR_CGROUP_HYBRID,	/* v1 controllers plus v2 at /sys/fs/cgroup/unified */
	MR_CGROUP_V2,		/* unified: v2 mounted at /sys/fs/cgroup */
};

/*
 * Everything mr_recorder_probe() found. Strings are NUL-terminated ("" = not known);
 * an *_errno field is the errno of the step that failed (0 = none failed).
 */
struct mr_probe {
	/* Host. */
	char kernel_release[65];	/* uname -r */
	char machine[65];		/* uname -m */
	long page_size;			/* sysconf(_SC_PAGESIZE) */
	char thp_enabled[16];		/* bracketed word of .../transparent_hugepage/enabled,
					 * "" if the file is missing */
	int mglru_present;		/* /sys/kernel/mm/lru_gen/enabled exists */
	unsigned int mglru_enabled;	/* its value: 0 = off, bits = enabled caps */

	/* Privilege. */
	unsigned int euid;
	uint64_t cap_eff;		/* CapEff from /proc/self/status */
	int cap_perfmon;		/* CAP_PERFMON (38) effective */
	int cap_sys_admin;		/* CAP_SYS_ADMIN (21) effective */
	int perf_paranoid;		/* /proc/sys/kernel/perf_event_paranoid; -1 = anyone
					 * may sample anything, 2 = unprivileged users only
					 * their own user-mode code, 3 (Debian) = nothing */
	int perf_paranoid_errno;	/* why it could not be read (ENOENT: no perf events);
					 * perf_paranoid is meaningless then */

	/*
	 * Software page faults (PERF_COUNT_SW_PAGE_FAULTS, sample_period 1, IP|TID|TIME|
	 * ADDR|CPU, inherit) on the calling thread, one ring per online CPU, through libperf.
	 */
	int sw_fault_ok;		/* opened and mmapped on every CPU */
	int sw_fault_user_only;		/* only with exclude_kernel=1 (paranoid >= 2) */
	int sw_fault_sampled;		/* a sample with the touched address came back */
	int sw_fault_ncpus;		/* CPUs (= rings) used */
	const char *sw_fault_step;	/* static name of the libperf call that failed */
	int sw_fault_errno;

	/* tracefs and the tracepoints we read. */
	char tracefs_path[64];		/* mounted tracefs, "" if none found */
	int tracefs_readable;		/* its events/ directory can be listed */
	int tracefs_errno;		/* why not readable */
	int tracefs_private;		/* none mounted on the host; read (as record does)
					 * through a private mount (tracefs_path "") */
	enum mr_probe_answer tracepoints[MR_TP_COUNT];

	/* Young-bit sources. */
	int page_idle;			/* /sys/kernel/mm/page_idle/bitmap exists */
	int soft_dirty;			/* a written page shows soft-dirty in pagemap */
	int damon_sysfs;		/* /sys/kernel/mm/damon/admin exists */

	/* Hardware PMU through libpfm4. */
	int pfm_rc;			/* pfm_initialize() result (PFM_SUCCESS = 0) */
	char pfm_pmu[64];		/* default core PMU detected, "" if none */
	char hw_event[64];		/* libpfm event string tried ("cycles") */
	int hw_event_ok;		/* it encoded and perf_event_open() succeeded */
	int hw_event_pfm_rc;		/* encoding result (PFM_SUCCESS = 0) */
	int hw_event_errno;		/* perf_event_open() errno (ENOENT: no PMU) */

	/* NUMA and cgroups. */
	int numa_available;		/* numa_available() >= 0 */
	int numa_nodes;			/* numa_max_node() + 1; 1 without NUMA */
	enum mr_cgroup_mode cgroup_mode;
	int cgroup_v1_memory;		/* v1 memory controller at /sys/fs/cgroup/memory */
	char cgroup_v2_path[32];	/* v2 mount point, "" if none */
	int cgroup_v2_memory;		/* "memory" listed in its cgroup.controllers */
};

/* Tracepoint "system:name" of an enum mr_probe_tp; NULL when out of range. */
const char *mr_probe_tracepoint_name(int tp);

/*
 * Probe this host and fill *out (zeroed first). Opens and closes perf events on the
 * calling thread and maps one anonymous page; changes nothing else. A source that does
 * not work is a fact in *out, not an error.
 * Returns 0, or MR_EINVAL when out is NULL (message in err, which may be NULL).
 */
int mr_recorder_probe(struct mr_probe *out, struct mr_error *err);

/* A buffer of this size always holds the whole report. */
#define MR_PROBE_REPORT_MAX 8192

/*
 * Write a human-readable multi-line report of *p into buf (capacity cap, always
 * NUL-terminated when cap > 0). Returns the report's length without the NUL, or
 * MR_ENOSPC when it did not fit (buf then holds a truncated report), or MR_EINVAL.
 */
int mr_probe_format(const struct mr_probe *p, char *buf, size_t cap);


/* ---- recording: mr_record_run() ---- */

/* What is recorded; bits of mr_record_opts.sources. */
enum mr_record_source {
	MR_RSRC_FAULTS = 1u << 0,	/* software page faults (FAULT + ACCESS) */
	MR_RSRC_MMAP = 1u << 1,		/* MMAP2/COMM/FORK/EXIT records + /proc maps snapshot */
	MR_RSRC_PAGECACHE = 1u << 2,	/* filemap tracepoints (PC_INSERT/DELETE, FD_ACCESS) */
	MR_RSRC_READAHEAD = 1u << 3,	/* readahead tracepoints */
	MR_RSRC_YOUNG = 1u << 4,	/* young-bit scans */
	MR_RSRC_HWSAMPLE = 1u << 5,	/* hardware data-address sampling (libpfm4 / IBS):
					 * ACCESS events with source MR_SRC_HWSAMPLE */
	MR_RSRC_NUMA = 1u << 6,		/* NUMA node of sampled pages (move_pages) */
	/*
	 * W and X bits of faults from exceptions:page_fault_user. In the default set: without
	 * it every fault is a read, so a replay writes no swapped-in page back (pswpout was
	 * 0.43-0.61 of the kernel's on anon walks, docs/validation.md), and the soft-dirty
	 * write tracking (MR_YOUNG_SOFT_DIRTY) has no W bit to give. It adds one ring record
	 * per write fault (filtered in the kernel to writes and instruction fetches).
	 */
	MR_RSRC_FAULT_RW = 1u << 7,
	/*
	 * The kernel's own refault labels (memcg:mod_memcg_lruvec_state, WORKINGSET_*
	 * items). Not in the default set: the tracepoint fires on every LRU statistics
	 * update (about 4 per anonymous fault) and perf builds each record before the
	 * filter drops it, some 1.2 us of kernel time per fault, which on a fault-bound
	 * program costs more than everything else the recorder adds. Key-matched refaults
	 * come with the page-cache source; `--sources default,refault` adds the labels.
	 */
	MR_RSRC_REFAULT = 1u << 8,
	MR_RSRC_DEFAULT = 0xff,
	MR_RSRC_ALL = 0x1ff,
};

/*
 * The sources by name (sources.c, one table): "faults", "mmap", "pagecache",
 * "readahead", "young", "hwsample", "numa", "fault_rw", "refault" for the bits above,
 * in that order, then the sets "default" (MR_RSRC_DEFAULT) and "all" (MR_RSRC_ALL).
 * struct mr_record_stats.src names its states with these (and "munmap", "cgroup").
 */
/* Static name of one MR_RSRC_* bit or set; NULL for any other value. */
const char *mr_record_source_name(unsigned int bit);
/* Every name, comma-separated in table order, into buf (capacity cap; NUL-terminated when
 * cap > 0). Returns the length of the whole list, like snprintf: less than
 * MR_RECORD_SOURCE_NAMES_MAX. */
#define MR_RECORD_SOURCE_NAMES_MAX 128
size_t mr_record_source_names(char *buf, size_t cap);
/*
 * Parse a --sources list: comma-separated names, read left to right, NAME adds its bits
 * and -NAME takes them away ("default,-refault"). Returns 0 with *out set (never 0), or
 * MR_EINVAL for an unknown name or a list that leaves no source (err says which; *out
 * is then not meaningful). Lists longer than 255 bytes are read up to there.
 */
int mr_record_parse_sources(const char *list, unsigned int *out, struct mr_error *err);

enum mr_young_mode {
	MR_YOUNG_AUTO = 0,	/* soft_dirty (off with -a) */
	MR_YOUNG_PAGE_IDLE,
	MR_YOUNG_DAMON,
	MR_YOUNG_CLEAR_REFS,	/* clear_refs "1" + "4" and smaps: reads too, perturbs reclaim */
	MR_YOUNG_OFF,
	/* clear_refs "4" only: writes to resident pages come back as write-protect faults
	 * (recorder/young.c); the young bits reclaim reads are left alone */
	MR_YOUNG_SOFT_DIRTY,
};

enum mr_record_target {
	MR_TARGET_COMMAND = 0,	/* fork + exec argv, follow it and its children */
	MR_TARGET_PIDS,		/* existing processes (all their threads, later children) */
	MR_TARGET_CGROUP,	/* tasks of a cgroup directory (any mounted v1 hierarchy or
				 * v2) and below, on every CPU. In the hierarchy of the
				 * perf_event controller the kernel filters the streams that
				 * fire in the tasks' own context (PERF_FLAG_PID_CGROUP);
				 * page-cache deletions, and every stream in another
				 * hierarchy (v1 memory), are filtered per task in user
				 * space. Source "cgroup" and meta cgroup.filter say which */
	MR_TARGET_SYSTEM,	/* every CPU, every task (-a) */
};

struct mr_record_opts {
	const char *output;		/* store path, created (overwritten if overwrite) */
	int overwrite;
	enum mr_record_target target;
	char *const *argv;		/* MR_TARGET_COMMAND: NULL-terminated */
	const int *pids;		/* MR_TARGET_PIDS */
	int n_pids;
	const char *cgroup;		/* MR_TARGET_CGROUP */
	uint64_t duration_ns;		/* 0 = until stopped / command exits */
	unsigned int sources;		/* MR_RSRC_* bits; 0 = MR_RSRC_DEFAULT */
	enum mr_young_mode young;
	uint64_t young_interval_ns;	/* 0 = 1 s */
	uint32_t ring_pages;		/* per-CPU ring data pages (power of two); 0 = 2048 (8 MiB) */
	int anonymize;			/* keyed hashes for addresses, paths, task names */
	/*
	 * MR_RSRC_HWSAMPLE: comma list of libpfm4 event names ("MEM_INST_RETIRED.ALL_LOADS",
	 * "perf::PERF_COUNT_SW_PAGE_FAULTS", libpfm4 modifiers allowed) or "ibs_op", at most
	 * 8; NULL = this CPU vendor's list (Intel: MEM_INST_RETIRED.ALL_LOADS and .ALL_STORES
	 * with PEBS; AMD: ibs_op). Events that do not open are left out, and when none opens
	 * the source is off with the errno of each (stats src "hwsample", metadata).
	 */
	const char *hw_events;
	uint64_t hw_period;		/* one sample every hw_period events; 0 = 100003 (a
					 * ":period=N" modifier of a name stands then) */
	const volatile int *stop;	/* polled; non-zero stops the recording (signal flag) */
	/* Called once after the events are enabled (and before exec for a command);
	 * may be NULL. cmd_pid is the command's pid or 0. */
	void (*on_start)(void *ctx, int cmd_pid);
	void *ctx;
};

/*
 * Reasons are never cut: a cut reason loses its fix. The longest is hwsample's when no
 * event opens: each of up to MR_RECORD_HW_MAX event names (MR_RECORD_HW_NAME bytes) with
 * its own reason (MR_RECORD_HW_WHY: errno name, strerror, hint; or libpfm4's error) and
 * the separators between them, then a fixed tail. MR_RECORD_WHY_MAX is sized from those
 * parts; the recorder checks that each reason fits (MR_WARN_ON_ONCE) and the tests ask
 * for the longest one.
 */
#define MR_RECORD_HW_MAX 8
#define MR_RECORD_HW_NAME 64
#define MR_RECORD_HW_WHY 256
#define MR_RECORD_WHY_MAX (MR_RECORD_HW_MAX * (MR_RECORD_HW_NAME + MR_RECORD_HW_WHY + 8) + 256)

/* What one source did: on (1) or off with the reason. */
struct mr_record_source_state {
	const char *name;	/* static */
	int on;
	char why[MR_RECORD_WHY_MAX]; /* "" when on, else the reason and the fix */
};

#define MR_RECORD_NSOURCES 16

/* The steps of mr_record_run() whose wall time struct mr_record_stats.phase_ns holds. */
enum mr_record_phase {
	MR_RECORD_PH_SETUP,	/* options, tracefs ids and formats, hardware probe */
	MR_RECORD_PH_STORE,	/* the store's creation (schema, first commit) */
	MR_RECORD_PH_OPEN,	/* fork the command, perf_event_open, ring mmaps, filters */
	MR_RECORD_PH_PREPARE,	/* streams, sources, start metadata, /proc snapshot */
	MR_RECORD_PH_START,	/* release the command until its exec succeeded */
	MR_RECORD_PH_LOOP,	/* the recording loop: the command's run */
	MR_RECORD_PH_FINISH,	/* last drain, closing metadata, final commit */
	MR_RECORD_PH_TEARDOWN,	/* events dropped, store closed, memory freed */
	MR_RECORD_NPHASES
};
/* Static short name of a phase ("setup", "store", ...); NULL outside the enum. */
const char *mr_record_phase_name(enum mr_record_phase ph);

struct mr_record_stats {
	uint64_t by_kind[MR_EV_NR_KINDS];
	uint64_t events;		/* events written */
	uint64_t samples;		/* perf records read */
	uint64_t cpu_wide_records;	/* of them, records of the streams that stay CPU-wide
					 * under a kernel --cgroup scope (page-cache deletions,
					 * by any task of the host: reclaim runs anywhere) */
	uint64_t lost;			/* samples lost (PERF_FORMAT_LOST, all rings) */
	uint64_t bytes_written;		/* chunk bytes stored (LZ4) */
	uint64_t file_bytes;		/* store file size at the end */
	uint64_t wall_ns;		/* recording wall time */
	uint64_t cpu_ns;		/* recorder's own CPU time (user + sys) */
	uint64_t pages, tasks, files, vmas;
	uint64_t young_scans;
	/* hardware samples read, those that became ACCESS events, and those dropped
	 * without a data address or with a kernel one */
	uint64_t hw_samples, hw_accesses, hw_no_addr, hw_kernel_addr;
	int cmd_status;			/* wait status of the command, -1 if none */
	/* Writing the store failed (full disk, I/O error). The command is never stopped
	 * for it: a failure while recording stops the recording there, closes its perf
	 * events and leaves the command (or the processes followed) to run to its end,
	 * waited for; cmd_status is then the command's own. */
	int write_failed;
	uint64_t kept_events, kept_chunks; /* committed to the store (readable after any end) */
	int store_removed;		/* failed before committing an event: no file left */
	int nrings;
	struct mr_record_source_state src[MR_RECORD_NSOURCES];
	int nsrc;
	/* Where the tracepoint ids and formats were read: the host's mounted tracefs, or
	 * one this recording mounted in a private mount namespace (the host's mounts are
	 * left as they were), or why none could be read. Also the trace's "tracefs" meta. */
	char tracefs[256];
	/* Wall time of each step of mr_record_run() (enum mr_record_phase), for what the
	 * fixed cost of a recording is made of; steps not reached stay 0. */
	uint64_t phase_ns[MR_RECORD_NPHASES];
};

/*
 * Record per *opts into a new store at opts->output. Blocks until the command exits, the
 * duration passes, *opts->stop turns non-zero, or a write fails. Never prints; fills
 * *stats (may be NULL) even on failure, with whatever was recorded.
 * Returns 0; MR_EPERM without privileges (message names perf_event_paranoid, CAP_PERFMON
 * and the fix); MR_EINVAL for bad options (also a --cgroup that is not a cgroup
 * directory, more than 8 hw_events); MR_EIO / MR_ENOSPC
 * when writing fails (every chunk committed before stays readable; the recording stops,
 * the command is not stopped but waited for: stats->write_failed).
 * A run that fails before committing any event removes the store it created, so a retry
 * to the same path needs no --force (stats->store_removed).
 */
int mr_record_run(const struct mr_record_opts *opts, struct mr_record_stats *stats,
		  struct mr_error *err);

/*
 * The host's swap, from the text of /proc/swaps (a header line, then "Filename Type
 * Size Used Priority" per device, sizes in KiB): total bytes, devices, and the kind,
 * "zram" when every device is /dev/zram*, "disk" when none is, "mixed" when both, "none"
 * without a device. Lines that do not parse are skipped. Pure: text in, summary out.
 */
struct mr_host_swap {
	uint64_t total_bytes;
	uint32_t devices, zram;
	const char *kind;	/* static */
};
void mr_recorder_parse_swaps(const char *text, struct mr_host_swap *out);

#endif /* MR_RECORDER_H */
