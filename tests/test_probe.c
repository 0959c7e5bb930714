// SPDX-License-Identifier: GPL-2.0
/*
 * test_probe.c - mr_recorder_probe() against facts that hold on any Linux host, and the
 * report it formats. Runs as root or not: without privilege the report must say so.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mr_recorder.h"
#include "mr_test.h"

/* The text after "label" and its padding on the report line that starts with label. */
static const char *value_of(const char *report, const char *label)
{
	size_t n = strlen(label);
	const char *line = report;

	while (line && *line) {
		if (!strncmp(line, label, n)) {
			line += n;
			while (*line == ' ')
				line++;
			return line;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return "";
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Every line that answers "no:" must also say how to fix it. */
static int check_every_no_has_fix(const char *report)
{
	char line[1024];
	const char *s = report;
	int bad = 0;

	while (*s) {
		size_t n = strcspn(s, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		if (strstr(line, " no: ") && !strstr(line, "fix")) {
			fprintf(stderr, "a \"no\" without a fix: %s\n", line);
			bad++;
		}
		s += n + (s[n] == '\n');
	}
	return bad;
}

static void test_facts(const struct mr_probe *p)
{
	struct utsname uts;

	CHECK_EQ_U64(p->page_size, sysconf(_SC_PAGESIZE));
	CHECK(uname(&uts) == 0);
	CHECK(!strcmp(p->kernel_release, uts.release));
	CHECK(!strcmp(p->machine, uts.machine));
	CHECK(p->numa_nodes >= 1);
	CHECK_EQ_U64(p->euid, geteuid());
	CHECK(p->mglru_present == exists("/sys/kernel/mm/lru_gen/enabled"));
	CHECK(p->page_idle == exists("/sys/kernel/mm/page_idle/bitmap"));
	CHECK(p->damon_sysfs == exists("/sys/kernel/mm/damon/admin"));
	CHECK(!p->thp_enabled[0] || !strcmp(p->thp_enabled, "always") ||
	      !strcmp(p->thp_enabled, "madvise") || !strcmp(p->thp_enabled, "never"));
	CHECK(!p->cgroup_v1_memory || exists("/sys/fs/cgroup/memory/memory.limit_in_bytes"));
	CHECK(!p->cgroup_v2_path[0] || exists(p->cgroup_v2_path));

	/* A privileged process outside a restrictive sandbox (tracefs is visible) must be
	 * able to sample its own page faults, and the test fault must come back. */
	if (p->euid == 0 && p->tracefs_readable)
		CHECK(p->sw_fault_ok);
	if (p->sw_fault_ok) {
		CHECK(p->sw_fault_ncpus >= 1);
		CHECK(p->sw_fault_sampled);
	} else {
		CHECK(p->sw_fault_step != NULL && p->sw_fault_errno != 0);
	}
	/* Tracepoint answers are known exactly when tracefs could be read. */
	for (int t = 0; t < MR_TP_COUNT; t++)
		CHECK((p->tracepoints[t] == MR_PROBE_UNKNOWN) == !p->tracefs_readable);
	CHECK(p->pfm_rc != 0 || !strcmp(p->hw_event, "cycles"));
	CHECK(p->hw_event_ok || p->pfm_rc != 0 || p->hw_event_pfm_rc != 0 ||
	      p->hw_event_errno != 0);
}

static void test_report(const struct mr_probe *p)
{
	static const char *const labels[] = {
		"kernel:", "page size:", "THP:", "MGLRU:", "privileges:",
		"perf_event_paranoid:", "software page faults:", "tracefs:", "tracepoints:",
		"page_idle:", "DAMON sysfs:", "libpfm4:", "hardware event:", "NUMA:",
		"cgroups:",
	};
	char report[MR_PROBE_REPORT_MAX];
	char small[64];
	int n;

	n = mr_probe_format(p, report, sizeof(report));
	CHECK(n > 0);
	CHECK_EQ_U64(n, strlen(report));
	printf("%s", report);

	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		mr_test_checks++;
		if (!strstr(report, labels[i])) {
			mr_test_failures++;
			fprintf(stderr, "report does not mention %s\n", labels[i]);
		}
	}
	for (int t = 0; t < MR_TP_COUNT; t++)
		CHECK(strstr(report, mr_probe_tracepoint_name(t)) != NULL);
	CHECK(mr_probe_tracepoint_name(MR_TP_COUNT) == NULL);
	CHECK(mr_probe_tracepoint_name(-1) == NULL);
	CHECK(strstr(report, p->kernel_release) != NULL);
	CHECK(check_every_no_has_fix(report) == 0);

	/* The report agrees with the struct. */
	CHECK(starts(value_of(report, "software page faults:"), p->sw_fault_ok ? "yes" : "no"));
	CHECK(starts(value_of(report, "tracefs:"), p->tracefs_readable ? "yes" : "no"));
	CHECK(starts(value_of(report, "page_idle:"), p->page_idle ? "yes" : "no"));
	CHECK(starts(value_of(report, "DAMON sysfs:"), p->damon_sysfs ? "yes" : "no"));
	CHECK(starts(value_of(report, "hardware event:"), p->hw_event_ok ? "yes" : "no"));
	/* none mounted: record mounts one privately when it may (root), and then the
	 * tracepoints are known; else the fix is to mount it */
	if (p->tracefs_private) {
		CHECK(!p->tracefs_path[0] && p->tracefs_readable);
		CHECK(strstr(value_of(report, "tracefs:"), "private mount namespace") != NULL);
		CHECK(p->tracepoints[0] != MR_PROBE_UNKNOWN);
	} else if (!p->tracefs_path[0] && !p->tracefs_errno) {
		CHECK(strstr(report, "mount -t tracefs nodev /sys/kernel/tracing") != NULL);
	}

	/* Without privilege the report says which is missing and what to do. */
	if (!p->cap_perfmon && !p->cap_sys_admin) {
		CHECK(starts(value_of(report, "privileges:"), "no"));
		CHECK(strstr(report, "run as root") != NULL);
	} else {
		CHECK(starts(value_of(report, "privileges:"), "yes"));
	}
	if (!p->sw_fault_ok && p->perf_paranoid >= 2 && !p->cap_perfmon && !p->cap_sys_admin)
		CHECK(strstr(report, "kernel.perf_event_paranoid=-1") != NULL);

	/* Too small a buffer: MR_ENOSPC, still a terminated prefix of the report. */
	CHECK(mr_probe_format(p, small, sizeof(small)) == MR_ENOSPC);
	CHECK_EQ_U64(strlen(small), sizeof(small) - 1);
	CHECK(!strncmp(small, report, sizeof(small) - 1));
	CHECK(mr_probe_format(p, report, (size_t)n) == MR_ENOSPC);
	CHECK(mr_probe_format(p, report, (size_t)n + 1) == n);
	CHECK(mr_probe_format(NULL, report, sizeof(report)) == MR_EINVAL);
}

/* The same report on a synthetic host where nothing works: every failure branch still
 * names its fix, and the worst case fits in MR_PROBE_REPORT_MAX. */
static void test_report_nothing_works(void)
{
	char report[MR_PROBE_REPORT_MAX];
	struct mr_probe p;
	int n;

	for (int variant = 0; variant < 2; variant++) {
		memset(&p, 0, sizeof(p));
		memset(p.kernel_release, 'k', sizeof(p.kernel_release) - 1);
		memset(p.machine, 'm', sizeof(p.machine) - 1);
		p.page_size = 4096;
		p.euid = 1000;
		p.perf_paranoid = 3;
		p.sw_fault_step = "perf_evlist__open";
		p.sw_fault_errno = 13; /* EACCES */
		memset(p.hw_event, 'e', sizeof(p.hw_event) - 1);
		memset(p.pfm_pmu, 'p', sizeof(p.pfm_pmu) - 1);
		p.numa_nodes = 1;
		if (variant == 0) {
			p.mglru_present = 1; /* built in, switched off */
			p.perf_paranoid_errno = 2; /* ENOENT */
			snprintf(p.tracefs_path, sizeof(p.tracefs_path), "/sys/kernel/tracing");
			p.tracefs_errno = 13;
			for (int t = 0; t < MR_TP_COUNT; t++)
				p.tracepoints[t] = MR_PROBE_UNKNOWN;
			p.pfm_rc = -1;
			p.cgroup_mode = MR_CGROUP_NONE;
		} else {
			p.sw_fault_step = "perf_evlist__mmap";
			p.sw_fault_errno = 1; /* EPERM */
			p.tracefs_readable = 1;
			snprintf(p.tracefs_path, sizeof(p.tracefs_path), "/sys/kernel/tracing");
			for (int t = 0; t < MR_TP_COUNT; t++)
				p.tracepoints[t] = MR_PROBE_NO;
			p.hw_event_pfm_rc = -4;
			p.cgroup_mode = MR_CGROUP_V2;
			snprintf(p.cgroup_v2_path, sizeof(p.cgroup_v2_path), "/sys/fs/cgroup");
		}
		n = mr_probe_format(&p, report, sizeof(report));
		CHECK(n > 0 && n < MR_PROBE_REPORT_MAX);
		CHECK(check_every_no_has_fix(report) == 0);
		CHECK(starts(value_of(report, "privileges:"), "no"));
		CHECK(starts(value_of(report, "software page faults:"), "no"));
		CHECK(starts(value_of(report, "tracefs:"), variant ? "yes" : "no"));
		CHECK(starts(value_of(report, "MGLRU:"), "no"));
		CHECK(starts(value_of(report, "THP:"), "no"));
		CHECK(starts(value_of(report, "hardware event:"), "no"));
		CHECK(strstr(report, variant ? "perf_event_mlock_kb" :
					       "kernel.perf_event_paranoid=-1") != NULL);
		if (variant)
			CHECK(strstr(report, "memcg:mod_memcg_lruvec_state               no: ") !=
			      NULL);
	}
}

int main(void)
{
	struct mr_error err = { 0 };
	struct mr_probe p;

	CHECK(mr_recorder_probe(NULL, &err) == MR_EINVAL);
	CHECK(err.code == MR_EINVAL && err.msg[0]);

	CHECK(mr_recorder_probe(&p, &err) == 0);
	test_facts(&p);
	test_report(&p);
	test_report_nothing_works();

	/* Probing twice gives the same facts (nothing left open or changed). */
	{
		struct mr_probe again;

		CHECK(mr_recorder_probe(&again, NULL) == 0);
		CHECK(again.sw_fault_ok == p.sw_fault_ok);
		CHECK(again.tracefs_readable == p.tracefs_readable);
		CHECK(!strcmp(again.pfm_pmu, p.pfm_pmu));
	}
	return mr_test_done("test_probe");
}
