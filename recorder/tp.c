// SPDX-License-Identifier: GPL-2.0
/*
 * tp.c - the tracepoints the recorder reads (rec_tp_names[]: which source wants each,
 * the fields it needs, and from which task's context it fires) and the WORKINGSET_*
 * items of memcg's (rec_ws_names[]); their ids and field layouts read from tracefs at
 * run time (<tracefs>/events/<sys>/<name>/{id,format}), so a kernel that moves a field
 * is read right, and one that lacks a field leaves it absent (off = -1) instead of
 * misread; and finding tracefs, or mounting it for this thread alone when the host has
 * not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "rec_int.h"

#define TPF_FILE (TPF_INO | TPF_INDEX | TPF_DEV)

/*
 * The tracepoints. cpu_wide: under --cgroup this one stays CPU-wide even when the kernel
 * can scope events to the cgroup (PERF_FLAG_PID_CGROUP matches the task running on the
 * CPU when the event fires, so it is right only for events that fire in the context of
 * the task they are about). Per stream, from where the kernel fires it (mm/, 6.12):
 *
 *   faults, MMAP2/COMM/FORK/EXIT     the faulting / mapping / forking / exiting task
 *   mm_filemap_add_to_page_cache     __filemap_add_folio(): the task that reads, faults or
 *                                    reads ahead (readahead is submitted synchronously by
 *                                    that task); the insert is charged to its memcg
 *   mm_filemap_get_pages             filemap_read() of the reading task
 *   page_cache_sync_ra / _async_ra   the reading or faulting task
 *   mod_memcg_lruvec_state           WORKINGSET_REFAULT/ACTIVATE/RESTORE_* change only in
 *     (WORKINGSET_* items only)      mm/workingset.c:workingset_refault(), called from
 *                                    filemap_add_folio() and the swap-in paths of the task
 *                                    that brings the page back (vmscan only reads them);
 *                                    on_memcg() pairs them with that task's insert
 *                                    (file) or its major fault (anon: claim_swapin())
 *   sys_enter_munmap                 the calling task
 *   exit_mmap                        the task dropping the last mm reference: the exiting
 *                                    task (still in its cgroup: cgroup_exit() comes after
 *                                    exit_mm()) or an exec; a /proc reader holding the last
 *                                    reference is missed either way (on_mm_tracepoint()
 *                                    attributes it to the firing task)
 *   page_fault_user                  the faulting task
 *   sys_enter_madvise                the calling task
 *   writeback_dirty_folio            mm/page-writeback.c:folio_account_dirtied(), when a
 *                                    folio turns dirty: the task whose write() or write
 *                                    fault dirtied it (reclaim's try_to_unmap() finds it
 *                                    dirty already: fault_dirty_shared_page() at the fault)
 *   cgroup_attach_task               CPU-WIDE: kernel/cgroup/cgroup.c:
 *                                    cgroup_migrate_execute(), in the task that writes
 *                                    cgroup.procs (the moved task itself, or a manager
 *                                    such as systemd); its pid field is the moved task
 *   mm_filemap_delete_from_page_cache  CPU-WIDE: eviction runs in kswapd, in whichever
 *                                    task does direct reclaim, in a memory.reclaim writer,
 *                                    in a DAMON kdamond (this platform's reclaim), and
 *                                    truncation in whoever truncates. on_tracepoint()
 *                                    keeps a deletion when the deleting task is in the
 *                                    cgroup or when the trace knows a page of the folio.
 */
const struct rec_tp_name rec_tp_names[RTP_NR] = {
	[RTP_ADD] = { "filemap", "mm_filemap_add_to_page_cache", MR_RSRC_PAGECACHE, TPF_FILE },
	[RTP_DELETE] = { "filemap", "mm_filemap_delete_from_page_cache", MR_RSRC_PAGECACHE,
			 TPF_FILE, 1 },
	[RTP_GET_PAGES] = { "filemap", "mm_filemap_get_pages", MR_RSRC_PAGECACHE, TPF_FILE },
	[RTP_RA_SYNC] = { "readahead", "page_cache_sync_ra", MR_RSRC_READAHEAD, TPF_FILE },
	[RTP_RA_ASYNC] = { "readahead", "page_cache_async_ra", MR_RSRC_READAHEAD, TPF_FILE },
	[RTP_MEMCG] = { "memcg", "mod_memcg_lruvec_state", MR_RSRC_REFAULT,
			TPF_ITEM | TPF_VAL },
	[RTP_MUNMAP] = { "syscalls", "sys_enter_munmap", MR_RSRC_MMAP, TPF_ADDR | TPF_LEN },
	[RTP_EXIT_MMAP] = { "mmap", "exit_mmap", MR_RSRC_MMAP, 0 },
	[RTP_PF_USER] = { "exceptions", "page_fault_user", MR_RSRC_FAULT_RW,
			  TPF_ADDRESS | TPF_ERROR_CODE },
	[RTP_MADVISE] = { "syscalls", "sys_enter_madvise", MR_RSRC_MMAP,
			  TPF_START | TPF_LEN_IN | TPF_BEHAVIOR },
	[RTP_DIRTY] = { "writeback", "writeback_dirty_folio", MR_RSRC_PAGECACHE,
			TPF_INO | TPF_INDEX | TPF_BDI },
	[RTP_CG_ATTACH] = { "cgroup", "cgroup_attach_task", MR_RSRC_MMAP,
			    TPF_DST_ROOT | TPF_PID | TPF_DST_PATH, 1 },
};

/* enum rec_ws order */
const char *const rec_ws_names[RWS_NR] = {
	"WORKINGSET_REFAULT_ANON", "WORKINGSET_REFAULT_FILE", "WORKINGSET_ACTIVATE_ANON",
	"WORKINGSET_ACTIVATE_FILE", "WORKINGSET_RESTORE_ANON", "WORKINGSET_RESTORE_FILE",
};

static void add_layout(struct tp_info *tp, const char *name, const struct tp_field *f)
{
	size_t n = strlen(tp->layout);

	if (f->off < 0)
		return;
	snprintf(tp->layout + n, sizeof(tp->layout) - n, "%s%s@%d:%d", n ? "," : "", name,
		 f->off, f->size);
}

/* "\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;" */
static void parse_field(struct tp_info *tp, const char *line)
{
	static const struct {
		const char *name;
		size_t off;
		unsigned bit;
	} want[] = {
		{ "pfn", offsetof(struct tp_info, pfn), TPF_PFN },
		{ "i_ino", offsetof(struct tp_info, ino), TPF_INO },
		{ "ino", offsetof(struct tp_info, ino), TPF_INO },
		{ "name", offsetof(struct tp_info, bdi), TPF_BDI },
		{ "index", offsetof(struct tp_info, index), TPF_INDEX },
		{ "s_dev", offsetof(struct tp_info, dev), TPF_DEV },
		{ "order", offsetof(struct tp_info, order), TPF_ORDER },
		{ "last_index", offsetof(struct tp_info, last_index), TPF_LAST_INDEX },
		{ "size", offsetof(struct tp_info, size), TPF_SIZE },
		{ "async_size", offsetof(struct tp_info, async_size), TPF_ASYNC_SIZE },
		{ "item", offsetof(struct tp_info, item), TPF_ITEM },
		{ "val", offsetof(struct tp_info, val), TPF_VAL },
		{ "addr", offsetof(struct tp_info, addr), TPF_ADDR },
		{ "len", offsetof(struct tp_info, len), TPF_LEN },
		{ "address", offsetof(struct tp_info, address), TPF_ADDRESS },
		{ "error_code", offsetof(struct tp_info, error_code), TPF_ERROR_CODE },
		{ "start", offsetof(struct tp_info, start), TPF_START },
		{ "len_in", offsetof(struct tp_info, len_in), TPF_LEN_IN },
		{ "behavior", offsetof(struct tp_info, behavior), TPF_BEHAVIOR },
		{ "dst_root", offsetof(struct tp_info, dst_root), TPF_DST_ROOT },
		{ "pid", offsetof(struct tp_info, pid), TPF_PID },
		{ "dst_path", offsetof(struct tp_info, dst_path), TPF_DST_PATH },
	};
	const char *decl = strstr(line, "field:"), *semi, *p, *o, *s;
	char name[64];
	size_t len;

	if (!decl)
		return;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return;
	p = semi;
	while (p > decl && (p[-1] == ']' || (p[-1] >= '0' && p[-1] <= '9') || p[-1] == '['))
		p--; /* arrays: drop [N] */
	len = 0;
	while (p > decl && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
			    (p[-1] >= 'A' && p[-1] <= 'Z') || (p[-1] >= '0' && p[-1] <= '9'))) {
		p--;
		len++;
	}
	if (!len || len >= sizeof(name))
		return;
	memcpy(name, p, len);
	name[len] = '\0';
	o = strstr(semi, "offset:");
	s = strstr(semi, "size:");
	if (!o || !s)
		return;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct tp_field *f;

		if (strcmp(want[i].name, name))
			continue;
		f = (struct tp_field *)((char *)tp + want[i].off);
		f->off = atoi(o + 7);
		f->size = atoi(s + 5);
		if (want[i].bit == TPF_BDI ? f->size < 2 || f->size > 64 :
		    f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
			f->off = -1;
		} else {
			tp->have |= want[i].bit;
			add_layout(tp, name, f);
		}
	}
}

int rec_tp_load(struct tp_info *tp, const char *tracefs, const char *sys, const char *name,
		unsigned need)
{
	char path[512], line[512];
	FILE *f;

	memset(tp, 0, sizeof(*tp));
	tp->pfn.off = tp->ino.off = tp->index.off = tp->dev.off = tp->order.off = -1;
	tp->last_index.off = tp->size.off = tp->async_size.off = -1;
	tp->item.off = tp->val.off = tp->addr.off = tp->len.off = -1;
	tp->address.off = tp->error_code.off = -1;
	tp->start.off = tp->len_in.off = tp->behavior.off = tp->bdi.off = -1;
	tp->dst_root.off = tp->pid.off = tp->dst_path.off = -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	tp->id = strtoull(line, NULL, 10);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, sys, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		parse_field(tp, line);
	fclose(f);
	if ((tp->have & need) != need)
		return -EPROTO; /* a layout we cannot use */
	tp->present = 1;
	return 0;
}

/* Field value from a raw record (little-endian host); 0 when absent or out of bounds. */
uint64_t rec_tp_get(const void *raw, uint32_t rawlen, const struct tp_field *f)
{
	const unsigned char *b = raw;
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	if (f->off < 0 || (uint32_t)(f->off + f->size) > rawlen)
		return 0;
	switch (f->size) {
	case 1:
		return b[f->off];
	case 2:
		memcpy(&v2, b + f->off, 2);
		return v2;
	case 4:
		memcpy(&v4, b + f->off, 4);
		return v4;
	default:
		memcpy(&v8, b + f->off, 8);
		return v8;
	}
}

/*
 * tracefs
 *
 * A fresh host has no tracefs mounted (/sys/kernel/tracing is an empty directory), and a
 * recorder should neither fail there nor leave the host changed. The ids and formats are
 * only read during setup, and a perf event opened by id does not need the mount, so when
 * no tracefs is mounted this thread moves to a private copy of its mount namespace
 * (unshare(CLONE_NEWNS), every mount made private first so nothing propagates back),
 * mounts tracefs there, and returns to the host's namespace in rec_tracefs_leave(). The
 * copy, and the mount in it, go away with the last reference. The workload is started
 * after that, in the host's namespace.
 */
#define REC_TRACEFS "/sys/kernel/tracing"
#define REC_TRACEFS_DEBUG "/sys/kernel/debug/tracing" /* kernels before 4.1, old scripts */
#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif

static int is_tracefs(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && sfs.f_type == TRACEFS_MAGIC;
}

static int events_readable(const char *path)
{
	char ev[96];

	snprintf(ev, sizeof(ev), "%s/events", path);
	return access(ev, R_OK | X_OK) == 0 ? 0 : -errno;
}

/* Back to the host's namespace; setns() moves root and cwd to its root, so both are put
 * back from the descriptors taken before the move (cwd matters: -o and the command's
 * relative paths). */
static int back_to_host(struct rec_tracefs *t)
{
	int rc = 0;

	if (t->host_ns < 0)
		return 0;
	if (t->moved && setns(t->host_ns, CLONE_NEWNS))
		rc = -errno;
	if (t->moved && !rc && t->root_fd >= 0) {
		struct stat a, b;

		if (fstat(t->root_fd, &a) == 0 && stat("/", &b) == 0 &&
		    (a.st_dev != b.st_dev || a.st_ino != b.st_ino) &&
		    (fchdir(t->root_fd) || chroot(".")))
			rc = -errno;
	}
	if (t->moved && !rc && t->cwd_fd >= 0 && fchdir(t->cwd_fd))
		rc = -errno;
	close(t->host_ns);
	t->host_ns = -1;
	if (t->root_fd >= 0)
		close(t->root_fd);
	if (t->cwd_fd >= 0)
		close(t->cwd_fd);
	t->root_fd = t->cwd_fd = -1;
	t->moved = 0;
	return rc;
}

int rec_tracefs_enter(struct rec_tracefs *t)
{
	static const char *const where[] = { REC_TRACEFS, REC_TRACEFS_DEBUG };
	const char *step;
	int e;

	memset(t, 0, sizeof(*t));
	t->host_ns = t->root_fd = t->cwd_fd = -1;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		if (!is_tracefs(where[i]))
			continue;
		snprintf(t->found, sizeof(t->found), "%s", where[i]);
		e = events_readable(where[i]);
		if (e) {
			t->err = -e;
			snprintf(t->how, sizeof(t->how), "%s/events unreadable: %s; fix: run as "
				 "root", where[i], strerror(-e));
			return e;
		}
		snprintf(t->path, sizeof(t->path), "%s", where[i]);
		snprintf(t->how, sizeof(t->how), "%s", where[i]);
		return 0;
	}

	/* none mounted: mount one for this thread */
	step = "open /proc/self/ns/mnt";
	t->host_ns = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (t->host_ns < 0)
		goto fail;
	t->root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	t->cwd_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	step = "unshare(CLONE_NEWNS)";
	if (unshare(CLONE_NEWNS))
		goto fail;
	t->moved = 1;
	step = "mount --make-rprivate /";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		goto fail;
	step = "mount -t tracefs nodev " REC_TRACEFS;
	if (mount("nodev", REC_TRACEFS, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		goto fail;
	e = events_readable(REC_TRACEFS);
	if (e) {
		errno = -e;
		step = REC_TRACEFS "/events";
		goto fail;
	}
	snprintf(t->path, sizeof(t->path), "%s", REC_TRACEFS);
	t->mounted = 1;
	snprintf(t->how, sizeof(t->how), "not mounted on the host: mounted at " REC_TRACEFS
		 " in a private mount namespace while the tracepoint ids and formats were "
		 "read; the host's mounts are unchanged");
	return 0;

fail:
	e = errno;
	back_to_host(t);
	t->err = e;
	snprintf(t->how, sizeof(t->how), "tracefs not mounted at " REC_TRACEFS ", and "
		 "mounting it privately failed (%s: %s); fix: run as root, or mount -t "
		 "tracefs nodev " REC_TRACEFS, step, strerror(e));
	return -e;
}

int rec_tracefs_leave(struct rec_tracefs *t)
{
	int rc = back_to_host(t);

	t->path[0] = '\0';
	return rc;
}
