// SPDX-License-Identifier: GPL-2.0
/*
 * meta.c - the trace's metadata (the meta table): what a replay or a reader needs to know
 * about the recording. rec_meta_start() writes what is known when the events are open
 * (the host, the options, each source's own rows, the tracepoint layouts);
 * rec_meta_end() the counters at the end (loss, refault pairing, munmap and exit_mmap
 * calls, hwsample counts) and the state of every source ("source.NAME").
 */
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rec_int.h"

int rec_read_int_file(const char *path, long *v)
{
	char buf[64];
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*v = strtol(buf, NULL, 10);
	return 0;
}

/* hwsample: what was asked for, what opened (encoding, period) and why the rest did not. */
static void meta_hw(struct rec *r)
{
	char key[64], buf[REC_HW_MAX * MR_RECORD_HW_NAME];
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; r->hw_on && i < r->hw.n; i++)
		if (r->hw.ev[i].opened && n < sizeof(buf))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
					      r->hw.ev[i].name);
	mr_writer_set_meta(r->w, "hwsample.events", buf);
	mr_writer_set_meta(r->w, "hwsample.vendor", r->hw.vendor);
	mr_writer_set_meta(r->w, "hwsample.list", r->hw.defaults ? "vendor default" :
			   "--hw-event");
	for (int i = 0; i < r->hw.n; i++) {
		const struct rec_hw_event *e = &r->hw.ev[i];

		snprintf(key, sizeof(key), "hwsample.event%d", i);
		mr_writer_set_meta(r->w, key, e->name);
		snprintf(key, sizeof(key), "hwsample.event%d.opened", i);
		mr_writer_set_meta_u64(r->w, key, (uint64_t)(e->opened && r->hw_on));
		snprintf(key, sizeof(key), "hwsample.event%d.encoding", i);
		mr_writer_set_meta(r->w, key, e->how);
		if (e->opened) {
			snprintf(key, sizeof(key), "hwsample.event%d.period", i);
			mr_writer_set_meta_u64(r->w, key, e->period);
			snprintf(key, sizeof(key), "hwsample.event%d.precise_ip", i);
			mr_writer_set_meta_u64(r->w, key, e->precise_ip);
		} else {
			snprintf(key, sizeof(key), "hwsample.event%d.error", i);
			mr_writer_set_meta(r->w, key, e->why);
		}
	}
}

/* hwsample counters at the end, per event and in the stats. */
static void meta_hw_counts(struct rec *r, struct perf_state *ps)
{
	static const char *const what[] = { "samples", "accesses", "no_addr", "kernel_addr",
					    "lost" };
	char key[64];

	for (int e = 0; e < ps->nevsel; e++)
		if (ps->kind[e] >= RK_HW_BASE)
			r->hw.ev[ps->kind[e] - RK_HW_BASE].lost = rec_perf_evsel_lost(ps, e);
	for (int i = 0; r->hw_on && i < r->hw.n; i++) {
		struct rec_hw_event *e = &r->hw.ev[i];
		const uint64_t v[] = { e->samples, e->accesses, e->no_addr, e->kernel_addr,
				       e->lost };

		if (!e->opened)
			continue;
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			snprintf(key, sizeof(key), "hwsample.event%d.%s", i, what[k]);
			mr_writer_set_meta_u64(r->w, key, v[k]);
		}
		r->st->hw_samples += e->samples;
		r->st->hw_accesses += e->accesses;
		r->st->hw_no_addr += e->no_addr;
		r->st->hw_kernel_addr += e->kernel_addr;
	}
}

static void meta_host(struct rec *r)
{
	struct utsname u;
	char buf[256], path[128];
	long v;
	FILE *f;

	if (uname(&u) == 0) {
		mr_writer_set_meta(r->w, "kernel", u.release);
		mr_writer_set_meta(r->w, "host.machine", u.machine);
		if (!r->o->anonymize)
			mr_writer_set_meta(r->w, "host.name", u.nodename);
	}
	mr_writer_set_meta_u64(r->w, "page_size", (uint64_t)r->psize);
	mr_writer_set_meta(r->w, "recorder", "memreplay record " MR_VERSION_STRING);
	mr_writer_set_meta(r->w, "clock", "CLOCK_MONOTONIC");
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;

			if (a && b) {
				*b = '\0';
				mr_writer_set_meta(r->w, "thp", a + 1);
			}
		}
		fclose(f);
	} else {
		mr_writer_set_meta(r->w, "thp", "unknown");
	}
	if (rec_read_int_file("/sys/kernel/debug/fault_around_bytes", &v) == 0)
		mr_writer_set_meta_u64(r->w, "fault_around_bytes", (uint64_t)v);
	else
		mr_writer_set_meta(r->w, "fault_around_bytes",
				   "unknown (debugfs not readable; 65536 is the kernel default)");
	snprintf(path, sizeof(path), "/sys/fs/cgroup/memory/memory.limit_in_bytes");
	if (rec_read_int_file(path, &v) == 0)
		mr_writer_set_meta_u64(r->w, "memcg.root_limit_bytes", (uint64_t)v);
	if (rec_read_int_file("/sys/kernel/mm/lru_gen/enabled", &v) == 0 || 1) {
		f = fopen("/sys/kernel/mm/lru_gen/enabled", "re");
		if (f) {
			if (fgets(buf, sizeof(buf), f)) {
				buf[strcspn(buf, "\n")] = '\0';
				mr_writer_set_meta(r->w, "mglru_enabled", buf);
			}
			fclose(f);
		}
	}
	mr_writer_set_meta_u64(r->w, "numa_nodes",
			       numa_available() >= 0 ? (uint64_t)numa_max_node() + 1 : 1);
}

void mr_recorder_parse_swaps(const char *text, struct mr_host_swap *out)
{
	const char *line = text;

	memset(out, 0, sizeof(*out));
	/* the first line is the header */
	line = line ? strchr(line, '\n') : NULL;
	while (line && *++line) {
		char name[256], type[32];
		unsigned long long kib, used;

		if (sscanf(line, "%255s %31s %llu %llu", name, type, &kib, &used) == 4) {
			out->devices++;
			out->zram += !strncmp(name, "/dev/zram", 9);
			out->total_bytes += kib * 1024;
		}
		line = strchr(line, '\n');
	}
	out->kind = !out->devices ? "none" : out->zram == out->devices ? "zram" :
		    out->zram ? "mixed" : "disk";
}

/*
 * The host's swap (/proc/swaps), for the replay's default --swap and writeback (a zram
 * device completes its writes inside pageout): swap.total_bytes, swap.kind, swap.devices.
 */
static void meta_swap(struct rec *r)
{
	char text[8192];
	struct mr_host_swap sw;
	size_t n = 0;
	FILE *f = fopen("/proc/swaps", "re");

	if (!f) {
		mr_writer_set_meta(r->w, "swap.kind", "unknown (/proc/swaps not readable)");
		return;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	mr_recorder_parse_swaps(text, &sw);
	mr_writer_set_meta_u64(r->w, "swap.total_bytes", sw.total_bytes);
	mr_writer_set_meta(r->w, "swap.kind", sw.kind);
	mr_writer_set_meta_u64(r->w, "swap.devices", sw.devices);
}

/* One limit file of the recorded cgroup: its value as the file says it ("max" or
 * bytes), or nothing when the file is absent. */
static void meta_limit(struct rec *r, const char *dir, const char *const *files, const char *key)
{
	for (; *files; files++) {
		char path[4200], buf[64];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, *files);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = '\0';
			/* v1 says "no limit" with a page-rounded LONG_MAX */
			if (strtoull(buf, NULL, 10) >= (1ull << 62))
				snprintf(buf, sizeof(buf), "max");
			mr_writer_set_meta(r->w, key, buf);
		}
		fclose(f);
		return;
	}
}

/*
 * --cgroup: its memory limits, for the replay's default --memory: cgroup.memory.max,
 * cgroup.memory.high, cgroup.memory.swap.max (cgroup2 names, else the v1 memory
 * controller's limit_in_bytes, soft_limit_in_bytes and memsw.limit_in_bytes, which
 * counts memory and swap together).
 */
static void limits_of(struct rec *r, const char *dir)
{
	static const char *const max[] = { "memory.max", "memory.limit_in_bytes", NULL };
	static const char *const high[] = { "memory.high", "memory.soft_limit_in_bytes", NULL };
	static const char *const swap[] = { "memory.swap.max", "memory.memsw.limit_in_bytes", NULL };

	meta_limit(r, dir, max, "cgroup.memory.max");
	meta_limit(r, dir, high, "cgroup.memory.high");
	meta_limit(r, dir, swap, "cgroup.memory.swap.max");
}

static void meta_cgroup_limits(struct rec *r)
{
	char real[4096];

	if (r->o->cgroup && realpath(r->o->cgroup, real))
		limits_of(r, real);
}

/*
 * A command's memory cgroup: the one its first task was in at its last exec, or when the
 * recorder first saw it (ids.c, task_cgroup(), rec_task_cgroup_update(); task id 1), in
 * the v1 memory hierarchy, else cgroup2: `sh -c 'echo $$ > CG/cgroup.procs; exec CMD'`
 * gives CG's. A move without an exec is not followed (docs/record.md).
 */
static void meta_command_cgroup_limits(struct rec *r)
{
	static const char *const roots[] = { "/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified",
					     "/sys/fs/cgroup" };
	uint32_t cg;

	if (r->ntasks < 2 || !(cg = r->tasks[1].cgroup) || cg > r->ncg)
		return;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char dir[4200], probe[4300];

		snprintf(dir, sizeof(dir), "%s%s", roots[i], r->cg_paths[cg - 1]);
		snprintf(probe, sizeof(probe), "%s/memory.max", dir);
		if (access(probe, R_OK)) {
			snprintf(probe, sizeof(probe), "%s/memory.limit_in_bytes", dir);
			if (access(probe, R_OK))
				continue;
		}
		limits_of(r, dir);
		return;
	}
}

static void meta_options(struct rec *r)
{
	const struct mr_record_opts *o = r->o;
	static const char *const tgt[] = { "command", "pids", "cgroup", "system" };
	char buf[1024];
	size_t n = 0;

	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "target=%s sources=0x%x ring_pages=%u "
			      "duration_ns=%llu young_interval_ns=%llu anonymize=%d user_only=%d",
			      tgt[o->target], o->sources, REC_RING_PAGES(r),
			      (unsigned long long)o->duration_ns,
			      (unsigned long long)o->young_interval_ns, o->anonymize, r->user_only);
	if (o->target == MR_TARGET_COMMAND && o->argv && !o->anonymize)
		for (int i = 0; o->argv[i] && n < sizeof(buf) - 2; i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : " argv=",
					      o->argv[i]);
	mr_writer_set_meta(r->w, "record.options", buf);
}

/* hwsample: its state (said once: the CLI prints the sources, the metadata keeps them),
 * then what was asked for and what opened. */
static void meta_hwsample(struct rec *r)
{
	const char *name = mr_record_source_name(MR_RSRC_HWSAMPLE);
	char meta[MR_RECORD_WHY_MAX + 8];

	for (int i = 0; i < r->st->nsrc; i++) {
		if (strcmp(r->st->src[i].name, name))
			continue;
		snprintf(meta, sizeof(meta), "%s: %s", r->hw_on ? "on" : "off",
			 r->st->src[i].why);
		mr_writer_set_meta(r->w, "hwsample", meta);
	}
	meta_hw(r);
}

static void meta_young(struct rec *r)
{
	mr_writer_set_meta(r->w, "young.source", r->young_src);
	mr_writer_set_meta_u64(r->w, "young.interval_ns", r->young_on ?
			       r->o->young_interval_ns : 0);
	if (r->young_soft_dirty)
		mr_writer_set_meta(r->w, "young.semantics",
				   "clear_refs(4) each interval: writes to resident pages come "
				   "as write-protect faults (FAULT + ACCESS with W), at most one "
				   "per page and interval; reads of resident pages are not "
				   "recorded; the host's young bits are not touched");
	else
		mr_writer_set_meta(r->w, "young.semantics",
				   "clear_refs(1 then 4) + smaps Referenced per VMA each "
				   "interval; ACCESS(source young) only for resident pages of "
				   "VMAs whose Referenced == Rss (every resident page young: "
				   "exact); VMAs partly referenced are counted in "
				   "young.partial_vmas and emit no per-page events");
}

/* --cgroup: which, and where it was filtered (said once, as hwsample's). */
static void meta_cgroup(struct rec *r)
{
	mr_writer_set_meta(r->w, "cgroup.path", r->o->anonymize ? "(anonymized)" : r->cg_want);
	mr_writer_set_meta(r->w, "cgroup.filter", r->cg_kernel ? "kernel" : "user");
	mr_writer_set_meta(r->w, "cgroup.filter_why", r->cg_how);
}

/* This kernel's enum node_stat_item values of the refault labels, when resolved. */
static void meta_refault_items(struct rec *r)
{
	char buf[320];
	size_t n = 0;

	if (r->ws_item[0] < 0 && r->ws_item[RWS_REFAULT_FILE] < 0)
		return;
	buf[0] = '\0';
	for (int k = 0; k < RWS_NR; k++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s=%lld", k ? "," : "",
				      rec_ws_names[k], (long long)r->ws_item[k]);
	mr_writer_set_meta(r->w, "refault.node_stat_item", buf);
}

/* The field layout of every tracepoint read (tracefs format), per tracepoint. */
static void meta_tracepoints(struct rec *r)
{
	for (int t = 0; t < RTP_NR; t++) {
		char key[96];

		if (!r->tp[t].present)
			continue;
		snprintf(key, sizeof(key), "tracepoint.%s:%s", rec_tp_names[t].sys,
			 rec_tp_names[t].name);
		mr_writer_set_meta(r->w, key, r->tp[t].layout);
	}
}

/* What is known once the events are open and the sources' states are set. */
void rec_meta_start(struct rec *r)
{
	if (r->o->sources & MR_RSRC_HWSAMPLE)
		meta_hwsample(r);
	mr_writer_set_meta(r->w, "tracefs", r->st->tracefs);
	meta_young(r);
	if (r->o->target == MR_TARGET_CGROUP) {
		meta_cgroup(r);
		meta_cgroup_limits(r);
	}
	meta_host(r);
	meta_swap(r);
	meta_options(r);
	meta_refault_items(r);
	meta_tracepoints(r);
}

/* The counters at the end, hwsample's per event, and the state of every source. */
void rec_meta_end(struct rec *r, struct perf_state *ps)
{
	char buf[128];
	size_t n = 0;

	buf[0] = '\0';
	for (int k = 0; k <= 12; k++)
		if (r->folio_orders & (1u << k))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%d",
					      n ? "," : "", k);
	mr_writer_set_meta(r->w, "folio_orders_seen", buf);
	mr_writer_set_meta_u64(r->w, "lost", r->st->lost);
	mr_writer_set_meta_u64(r->w, "young.scans", r->young_seq);
	mr_writer_set_meta_u64(r->w, "young.partial_vmas", r->young_partial);
	mr_writer_set_meta_u64(r->w, "young.skipped_vmas", r->young_skipped);
	mr_writer_set_meta_u64(r->w, "refault.kernel_labels", r->rf_labels);
	mr_writer_set_meta_u64(r->w, "refault.kernel_file_pages", r->rf_pages);
	mr_writer_set_meta_u64(r->w, "refault.kernel_anon_pages", r->rf_anon_pages);
	mr_writer_set_meta_u64(r->w, "refault.kernel_anon_attached", r->rf_anon_attached);
	mr_writer_set_meta_u64(r->w, "refault.kernel_anon_readahead", r->rf_anon_readahead);
	mr_writer_set_meta_u64(r->w, "refault.kernel_anon_unattached",
			       r->rf_anon_unattached);
	mr_writer_set_meta_u64(r->w, "refault.kernel_unpaired", r->rf_unpaired);
	mr_writer_set_meta_u64(r->w, "fault_rw.paired", r->pf_paired);
	mr_writer_set_meta_u64(r->w, "munmap.calls", r->munmaps);
	/* where the events wrote (perf.c, "Rings before the events") */
	if (ps->rings.used)
		mr_writer_set_meta(r->w, "perf.rings", "cpu-wide, mapped before the events opened");
	else if (r->o->target == MR_TARGET_COMMAND && ps->rings.why) {
		char why[160];

		snprintf(why, sizeof(why), "the events' own (CPU-wide ones: %s: %s)",
			 ps->rings.why_step ? ps->rings.why_step : "?", strerror(-ps->rings.why));
		mr_writer_set_meta(r->w, "perf.rings", why);
	} else {
		mr_writer_set_meta(r->w, "perf.rings", "the events' own");
	}
	/* cgroup:cgroup_attach_task moves of recorded tasks between memory cgroups */
	mr_writer_set_meta_u64(r->w, "cgroup.moves", r->cg_moves);
	/* private file pages that became anonymous copies (cow_add() in ids.c) */
	mr_writer_set_meta_u64(r->w, "cow.private_file_pages", r->ncow);
	mr_writer_set_meta_u64(r->w, "madvise.flags", r->madvise_flags);
	mr_writer_set_meta_u64(r->w, "switch.ins", r->switch_ins);
	mr_writer_set_meta_u64(r->w, "pagecache.inserts_in_fault", r->pend_in_fault);
	mr_writer_set_meta_u64(r->w, "pagecache.inserts_held", r->pend_flushed);
	/* writeback_dirty_folio: folios that turned dirty, and those of file systems
	 * without a MAJOR:MINOR bdi, which cannot be matched to a file */
	mr_writer_set_meta_u64(r->w, "pagecache.dirtied", r->dirty_events);
	mr_writer_set_meta_u64(r->w, "pagecache.dirtied_unmatched", r->dirty_unmatched);
	mr_writer_set_meta_u64(r->w, "madvise.dontneed", r->madvise_dontneed);
	mr_writer_set_meta_u64(r->w, "madvise.ignored", r->madvise_ignored);
	mr_writer_set_meta_u64(r->w, "exit_mmap.calls", r->exit_mmaps);
	mr_writer_set_meta_u64(r->w, "mm.ends_at_last_exit", r->mm_ends);
	if (r->o->target == MR_TARGET_COMMAND)
		meta_command_cgroup_limits(r);
	if (r->o->sources & MR_RSRC_HWSAMPLE)
		meta_hw_counts(r, ps);
	for (int i = 0; i < r->st->nsrc; i++) {
		char key[64];

		snprintf(key, sizeof(key), "source.%s", r->st->src[i].name);
		mr_writer_set_meta(r->w, key, r->st->src[i].on ?
				   (r->st->src[i].why[0] ? r->st->src[i].why : "on") :
				   r->st->src[i].why);
	}
}
