// SPDX-License-Identifier: GPL-2.0
/*
 * sources.c - the recording sources by name and their state: one table of the --sources
 * names and their MR_RSRC_* bits, read by the CLI's --sources (mr_record_parse_sources())
 * and by the recorder when it names the state of each source; and that state, on or off
 * with the reason and the fix (struct mr_record_stats.src: rec_sources_state(), from
 * what the setup steps of record.c found).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mr_recorder.h"
#include "mr_util.h"
#include "rec_int.h"

/* In the order the CLI's usage lists them: each MR_RSRC_* bit, then the sets. */
static const struct {
	const char *name;
	unsigned int bit;
} source_tab[] = {
	{ "faults", MR_RSRC_FAULTS }, { "mmap", MR_RSRC_MMAP },
	{ "pagecache", MR_RSRC_PAGECACHE }, { "readahead", MR_RSRC_READAHEAD },
	{ "young", MR_RSRC_YOUNG }, { "hwsample", MR_RSRC_HWSAMPLE },
	{ "numa", MR_RSRC_NUMA }, { "fault_rw", MR_RSRC_FAULT_RW },
	{ "refault", MR_RSRC_REFAULT },
	{ "default", MR_RSRC_DEFAULT }, { "all", MR_RSRC_ALL },
};

#define NSOURCE_TAB (sizeof(source_tab) / sizeof(source_tab[0]))

const char *mr_record_source_name(unsigned int bit)
{
	for (size_t i = 0; i < NSOURCE_TAB; i++)
		if (source_tab[i].bit == bit)
			return source_tab[i].name;
	return NULL;
}

size_t mr_record_source_names(char *buf, size_t cap)
{
	struct mr_strbuf sb = { .buf = buf, .cap = cap };

	if (cap)
		buf[0] = '\0';
	for (size_t i = 0; i < NSOURCE_TAB; i++)
		mr_strbuf_printf(&sb, "%s%s", i ? "," : "", source_tab[i].name);
	MR_WARN_ON_ONCE(sb.len >= MR_RECORD_SOURCE_NAMES_MAX);
	return sb.len;
}

int mr_record_parse_sources(const char *list, unsigned int *out, struct mr_error *err)
{
	char buf[256], *tok, *save = NULL;

	*out = 0;
	snprintf(buf, sizeof(buf), "%s", list);
	/* left to right: NAME adds a set, -NAME takes it away (default,-refault) */
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int minus = tok[0] == '-';
		size_t i;

		for (i = 0; i < NSOURCE_TAB; i++)
			if (!strcmp(source_tab[i].name, tok + minus))
				break;
		if (i == NSOURCE_TAB)
			return mr_error_set(err, MR_EINVAL, "--sources '%s': no source '%s'",
					    list, tok + minus);
		if (minus)
			*out &= ~source_tab[i].bit;
		else
			*out |= source_tab[i].bit;
	}
	return *out ? 0 : mr_error_set(err, MR_EINVAL, "--sources '%s': no source left",
				       list);
}

/* Source name (static) is on, or off, with the reason fmt (NULL: none). */
static void src_vset(struct mr_record_stats *st, const char *name, int on, const char *fmt,
		     va_list ap)
{
	struct mr_record_source_state *s = NULL;

	for (int i = 0; i < st->nsrc; i++)
		if (!strcmp(st->src[i].name, name))
			s = &st->src[i];
	if (!s) {
		if (st->nsrc >= MR_RECORD_NSOURCES)
			return;
		s = &st->src[st->nsrc++];
	}
	s->name = name;
	s->on = on;
	s->why[0] = '\0';
	if (fmt) {
		int n;

		n = vsnprintf(s->why, sizeof(s->why), fmt, ap);
		/* MR_RECORD_WHY_MAX is sized for the longest reason (mr_recorder.h) */
		MR_WARN_ON_ONCE(n < 0 || (size_t)n >= sizeof(s->why));
	}
}

/* The state of a source that is no --sources name ("munmap", "cgroup"). */
static void src_set(struct mr_record_stats *st, const char *name, int on, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void src_set(struct mr_record_stats *st, const char *name, int on, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	src_vset(st, name, on, fmt, ap);
	va_end(ap);
}

/* The state of the --sources source of bit (MR_RSRC_*), by its name in the table. */
static void src_bit(struct mr_record_stats *st, unsigned int bit, int on, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void src_bit(struct mr_record_stats *st, unsigned int bit, int on, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	src_vset(st, mr_record_source_name(bit), on, fmt, ap);
	va_end(ap);
}

/* A source of tracepoint t (and others like it): on when asked for and t opened, else
 * off with why tracefs could not be read, else missing. */
static void state_tp_source(struct rec *r, unsigned int bit, int t, const char *missing)
{
	if (!(r->o->sources & bit))
		src_bit(r->st, bit, 0, "not asked for (--sources)");
	else if (r->with_tp && r->tp[t].present)
		src_bit(r->st, bit, 1, NULL);
	else
		src_bit(r->st, bit, 0, "%s", r->tracefs_why[0] ? r->tracefs_why : missing);
}

/*
 * The tracepoint sources: pagecache, readahead, the kernel refault labels, munmap and
 * fault_rw, on when asked for and their tracepoints opened, else off with the reason
 * (tracefs, a missing tracepoint, a refused filter). Also switches the decoders' pairing
 * of refault labels and fault_rw.
 */
static void state_tracepoints(struct rec *r)
{
	const struct mr_record_opts *o = r->o;
	struct mr_record_stats *st = r->st;

	state_tp_source(r, MR_RSRC_PAGECACHE, RTP_ADD, "filemap tracepoints missing");
	state_tp_source(r, MR_RSRC_READAHEAD, RTP_RA_SYNC,
			"readahead tracepoints not in this kernel (they exist from 6.10 on)");
	r->refault_on = r->with_tp && r->tp[RTP_MEMCG].present;
	r->pf_user_on = r->with_tp && r->tp[RTP_PF_USER].present;
	if (!(o->sources & MR_RSRC_REFAULT))
		src_bit(st, MR_RSRC_REFAULT, 0, "not asked for (--sources default,refault adds "
			"the kernel's labels, ~1.2 us per fault; key-matched refaults come with "
			"pagecache)");
	else if (r->refault_on)
		src_bit(st, MR_RSRC_REFAULT, 1, "kernel labels: memcg:mod_memcg_lruvec_state "
			"WORKINGSET_* items (values from BTF)");
	else
		src_bit(st, MR_RSRC_REFAULT, 0, "%s; REFAULT events are key matches only "
			"(delete then insert of the same file page)",
			r->refault_why[0] ? r->refault_why : r->tracefs_why[0] ? r->tracefs_why :
			"tracepoint unusable");
	if (!(o->sources & MR_RSRC_MMAP))
		src_set(st, "munmap", 0, "not asked for (--sources mmap)");
	else if (r->with_tp && r->tp[RTP_MUNMAP].present)
		src_set(st, "munmap", 1, r->tp[RTP_EXIT_MMAP].present ? NULL :
			"mmap:exit_mmap missing: an exited address space is freed only by "
			"the replay's EXIT handling");
	else
		src_set(st, "munmap", 0, "syscalls:sys_enter_munmap %s: no UNMAP/FREE "
			"for munmap", r->tracefs_why[0] ? r->tracefs_why : r->tp_why[RTP_MUNMAP] ==
			ENOENT ? "not in this kernel (CONFIG_FTRACE_SYSCALLS off?)" :
			"unusable");
	if (!(o->sources & MR_RSRC_MMAP))
		src_set(st, "madvise", 0, "not asked for (--sources mmap)");
	else if (r->with_tp && r->tp[RTP_MADVISE].present)
		src_set(st, "madvise", 1, "MADV_RANDOM / _SEQUENTIAL / _NORMAL as VMA flags, "
			"MADV_DONTNEED frees anon pages");
	else
		src_set(st, "madvise", 0, "syscalls:sys_enter_madvise %s: VMAs keep the flags "
			"they were mapped with", r->tracefs_why[0] ? r->tracefs_why :
			r->tp_why[RTP_MADVISE] == ENOENT ? "not in this kernel" : "unusable");
	if (!(o->sources & MR_RSRC_FAULTS) || !(o->sources & MR_RSRC_FAULT_RW))
		src_bit(st, MR_RSRC_FAULT_RW, 0, "not asked for (--sources faults,fault_rw): "
			"every fault is recorded as a read");
	else if (r->pf_user_on)
		src_bit(st, MR_RSRC_FAULT_RW, 1, "%s", r->filter_why[0] ? r->filter_why :
			"exceptions:page_fault_user (write / instruction fetch only, kernel "
			"filter) paired with each fault: exact W and X");
	else
		src_bit(st, MR_RSRC_FAULT_RW, 0, "exceptions:page_fault_user %s; FAULT events "
			"have no W bit and X only when the IP is on the faulting page",
			r->tracefs_why[0] ? r->tracefs_why : r->tp_why[RTP_PF_USER] == ENOENT ?
			"not in this kernel (x86 only)" : "unusable");
}

/* hwsample: the events that opened, or why none did (each event's errno). */
static void state_hwsample(struct rec *r)
{
	const struct mr_record_opts *o = r->o;
	struct mr_record_stats *st = r->st;

	if (!(o->sources & MR_RSRC_HWSAMPLE)) {
		src_bit(st, MR_RSRC_HWSAMPLE, 0, "not asked for (--sources)");
	} else {
		char why[MR_RECORD_WHY_MAX];

		if (r->hw_open_why[0])
			snprintf(why, sizeof(why), "%s", r->hw_open_why);
		else if (r->hw.n)
			rec_hw_describe(&r->hw, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "%s; the software sources continue", r->hw_why);
		/* said once: the CLI prints the sources, the metadata keeps them */
		src_bit(st, MR_RSRC_HWSAMPLE, r->hw_on, "%s", why);
	}
}

/*
 * Whether this kernel tracks soft-dirty bits (CONFIG_MEM_SOFT_DIRTY): a page this
 * process has just written shows bit 55 in /proc/self/pagemap
 * (Documentation/admin-guide/mm/soft-dirty.rst); without the option the bit is always 0
 * and clear_refs "4" silently does nothing.
 */
int rec_soft_dirty_works(long psize)
{
	uint64_t e = 0;
	volatile char *p = mmap(NULL, (size_t)psize, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd, ok = 0;

	if (p == MAP_FAILED)
		return 0;
	p[0] = 1;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &e, sizeof(e), (off_t)((uintptr_t)p / (uintptr_t)psize * 8)) ==
			       (ssize_t)sizeof(e))
		ok = (e >> 63) & 1 && (e >> 55) & 1;
	if (fd >= 0)
		close(fd);
	munmap((void *)p, (size_t)psize);
	return ok;
}

/* young: which scanner --young-scan asks for and whether this recorder has it. */
static void state_young(struct rec *r)
{
	const struct mr_record_opts *o = r->o;
	struct mr_record_stats *st = r->st;
	int y = o->young;
	int pi = access("/sys/kernel/mm/page_idle/bitmap", F_OK) == 0;

	if (!(o->sources & MR_RSRC_YOUNG) || y == MR_YOUNG_OFF) {
		src_bit(st, MR_RSRC_YOUNG, 0, "off (--young-scan off or --sources)");
		r->young_src = "off";
	} else if (y == MR_YOUNG_AUTO && o->target == MR_TARGET_SYSTEM) {
		src_bit(st, MR_RSRC_YOUNG, 0, "auto is off with -a: soft-dirty tracking would "
			"write-protect the pages of every process on the host; ask for it "
			"with --young-scan soft_dirty");
		r->young_src = "off";
	} else if (y == MR_YOUNG_PAGE_IDLE || y == MR_YOUNG_DAMON) {
		src_bit(st, MR_RSRC_YOUNG, 0, "%s is not implemented by this "
			"recorder%s; use --young-scan soft_dirty or clear_refs",
			y == MR_YOUNG_DAMON ? "DAMON vaddr" : "page_idle",
			y == MR_YOUNG_PAGE_IDLE && !pi ?
			" (and /sys/kernel/mm/page_idle/bitmap is missing here)" : "");
		r->young_src = "off";
	} else if (y == MR_YOUNG_CLEAR_REFS) {
		r->young_on = 1;
		r->young_src = "clear_refs";
		src_bit(st, MR_RSRC_YOUNG, 1, "clear_refs 1+4 and smaps: reads and writes of "
			"resident pages per VMA, but it clears the young bits the host's "
			"reclaim reads");
	} else if (!rec_soft_dirty_works(r->psize)) {
		src_bit(st, MR_RSRC_YOUNG, 0, "this kernel has no soft-dirty tracking "
			"(CONFIG_MEM_SOFT_DIRTY is off): writes to resident pages are not seen; "
			"--young-scan clear_refs sees them, but clears the young bits the host's "
			"reclaim reads");
		r->young_src = "off";
	} else if (!r->pf_user_on) {
		src_bit(st, MR_RSRC_YOUNG, 0, "soft-dirty tracking needs fault_rw (the W bit "
			"of its write-protect faults), which is off: %s",
			(o->sources & MR_RSRC_FAULT_RW) ? "its tracepoint is unusable" :
			"not asked for");
		r->young_src = "off";
	} else {
		r->young_on = 1;
		r->young_soft_dirty = 1;
		r->young_src = "soft_dirty";
		src_bit(st, MR_RSRC_YOUNG, 1, "soft-dirty (clear_refs 4): writes to resident "
			"pages as write-protect faults, at most one per page and interval; "
			"reads of resident pages are not seen (page_idle %s, DAMON vaddr not "
			"used)", pi ? "present but not used" : "missing");
	}
}

/*
 * The state of every source (r->st->src, in this order; the CLI prints them and
 * rec_meta_end() stores them) from what the setup found, and which of the optional
 * decoding (refault labels, fault_rw, young scans) runs.
 */
void rec_sources_state(struct rec *r)
{
	const struct mr_record_opts *o = r->o;
	struct mr_record_stats *st = r->st;

	if (!(o->sources & MR_RSRC_FAULTS))
		src_bit(st, MR_RSRC_FAULTS, 0, "not asked for (--sources)");
	else if (r->user_only || r->ring_fit) {
		char ring[128] = "";

		if (r->ring_fit)
			snprintf(ring, sizeof(ring), "%srings of %u KiB per CPU, what "
				 "perf_event_mlock_kb lets this user lock (lost samples are "
				 "counted)", r->user_only ? "; " : "",
				 (unsigned int)(r->ring_fit * (uint64_t)r->psize / 1024));
		src_bit(st, MR_RSRC_FAULTS, 1, "%s%s", r->user_only ? "user-mode faults only: "
			"perf_event_paranoid lets this unprivileged process sample its own "
			"tasks in user mode only, so faults the kernel takes for them "
			"(copy_to_user() into an untouched buffer in read()) are missing; fix: "
			"run as root or sysctl kernel.perf_event_paranoid=1" : "", ring);
	}
	else
		src_bit(st, MR_RSRC_FAULTS, 1, NULL);
	src_bit(st, MR_RSRC_MMAP, !!(o->sources & MR_RSRC_MMAP),
		(o->sources & MR_RSRC_MMAP) ? NULL : "not asked for (--sources)");
	state_tracepoints(r);
	state_hwsample(r);
	state_young(r);
	if (o->sources & MR_RSRC_NUMA)
		src_bit(st, MR_RSRC_NUMA, 1, "move_pages on up to 4096 anon pages per interval");
	else
		src_bit(st, MR_RSRC_NUMA, 0, "not asked for (--sources)");
	if (o->target == MR_TARGET_CGROUP)
		/* said once: the CLI prints the sources, the metadata keeps them */
		src_set(st, "cgroup", 1, "%s: filter %s", o->cgroup, r->cg_how);
}
