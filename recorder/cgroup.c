// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup.c - `record --cgroup`: which hierarchy the directory is in and whether the kernel
 * can scope the events to it (rec_cgroup_set()), and, where it cannot or for the streams
 * that stay CPU-wide, which tasks are in it (rec_in_scope(), from /proc/TID/cgroup, once
 * per task; forks inherit their parent's answer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec_int.h"

/* Path of tid's cgroup in the hierarchy of r->cg_want; "" when unknown. */
static void tid_cgroup(const struct rec *r, int32_t tid, char *buf, size_t cap)
{
	char path[64], line[1024];
	size_t nf = strlen(r->cg_field);
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* "ID:CONTROLLERS:PATH"; v2 is "0::PATH" */
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;

		line[strcspn(line, "\n")] = '\0';
		if (!b)
			continue;
		if (r->cg_v1 ? (size_t)(b - a - 1) == nf && !strncmp(a + 1, r->cg_field, nf) :
			       !strncmp(line, "0::", 3)) {
			snprintf(buf, cap, "%s", b + 1);
			break;
		}
	}
	fclose(f);
}

/*
 * --cgroup: is tid in the cgroup (or a descendant)? Decided once per tid from
 * /proc/TID/cgroup (a task that is gone before it is looked at counts as outside; a
 * forked child inherits its parent's answer). Always 1 without --cgroup.
 */
int rec_in_scope(struct rec *r, int32_t tid)
{
	struct rec_hent *h;
	char cg[1024];
	size_t n;
	int found;

	if (!r->cg_want[0])
		return 1;
	h = rec_htab_slot(&r->scope_ix, (uint64_t)(uint32_t)tid, 0, &found);
	if (!h)
		return 0;
	if (found)
		return h->val == 1;
	tid_cgroup(r, tid, cg, sizeof(cg));
	n = strlen(r->cg_want);
	h->val = cg[0] && !strncmp(cg, r->cg_want, n) &&
		 (cg[n] == '\0' || cg[n] == '/' || !strcmp(r->cg_want, "/")) ? 1 : 2;
	return h->val == 1;
}

void rec_scope_inherit(struct rec *r, int32_t parent, int32_t child)
{
	struct rec_hent *h;
	int found;

	if (!r->cg_want[0])
		return;
	h = rec_htab_slot(&r->scope_ix, (uint64_t)(uint32_t)child, 0, &found);
	if (h)
		h->val = rec_in_scope(r, parent) ? 1 : 2;
}

/*
 * The cgroup mount holding real (the longest mount point that is a prefix): its mount
 * point, root (not "/" inside a cgroup namespace or a bind mount), whether it is cgroup2,
 * and its super options (v1: the controllers). Returns 0 or -ENOENT.
 */
static int cgroup_mount(const char *real, char *mnt, size_t mcap, char *root, size_t rcap,
			int *v2, char *opts, size_t ocap)
{
	char line[4096];
	size_t best = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER */
		char r_[1024], m_[1024], fs[32], so[1024];
		char *dash = strstr(line, " - ");
		size_t n;

		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", r_, m_) != 2 ||
		    sscanf(dash + 3, "%31s %*s %1023s", fs, so) != 2 ||
		    (strcmp(fs, "cgroup") && strcmp(fs, "cgroup2")))
			continue;
		n = strlen(m_);
		if (n < best || strncmp(real, m_, n) || (real[n] && real[n] != '/'))
			continue;
		best = n;
		snprintf(mnt, mcap, "%s", m_);
		snprintf(root, rcap, "%s", r_);
		snprintf(opts, ocap, "%s", so);
		*v2 = !strcmp(fs, "cgroup2");
	}
	fclose(f);
	return best ? 0 : -ENOENT;
}

/* /proc/cgroups: the hierarchy of controller name (0 = cgroup2) and whether it is
 * enabled; -1 when the kernel has no such controller. */
static int cgroup_hierarchy(const char *name, int *enabled)
{
	char line[256], nm[64];
	int h, e, found = -1;
	FILE *f = fopen("/proc/cgroups", "re");

	*enabled = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d %*d %d", nm, &h, &e) == 3 && !strcmp(nm, name)) {
			found = h;
			*enabled = e;
		}
	fclose(f);
	return found;
}

/* v1 super options ("rw,cpu,cpuacct,xattr") -> the controllers field of
 * /proc/PID/cgroup ("cpu,cpuacct"): the known controllers and name=, in order. */
static void v1_field(const char *opts, char *field, size_t cap)
{
	char buf[1024], *tok, *save = NULL;
	size_t n = 0;
	int en;

	field[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", opts);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if ((!strncmp(tok, "name=", 5) || cgroup_hierarchy(tok, &en) > 0) && n < cap)
			n += (size_t)snprintf(field + n, cap - n, "%s%s", n ? "," : "", tok);
}

/*
 * --cgroup PATH: a directory of a mounted cgroup hierarchy (v1 or v2). Decides where the
 * filter runs. perf_event_open(PERF_FLAG_PID_CGROUP) takes a directory of the hierarchy
 * the perf_event controller is attached to: cgroup2 when /proc/cgroups says hierarchy 0,
 * else the v1 mount with perf_event among its controllers. Anything else (the v1 memory
 * hierarchy on hosts like this one) is filtered in user space: every CPU's events come
 * in and on_*() keep those of tasks whose /proc/TID/cgroup lies under PATH. r->cg_how
 * says which and why.
 */
int rec_cgroup_set(struct rec *r, const char *path, struct mr_error *err)
{
	char real[4096], mnt[1024], root[1024], opts[1024], why[160] = "";
	int v2 = 0, en = 0, pe;
	struct stat sb;
	size_t n;

	r->cg_fd = -1;
	errno = 0;
	if (!path || !realpath(path, real) || stat(real, &sb) || !S_ISDIR(sb.st_mode))
		return mr_error_set(err, MR_EINVAL, "--cgroup %s: not a directory%s%s",
				    path ? path : "(null)", errno ? ": " : "",
				    errno ? strerror(errno) : "");
	if (cgroup_mount(real, mnt, sizeof(mnt), root, sizeof(root), &v2, opts, sizeof(opts)))
		return mr_error_set(err, MR_EINVAL, "--cgroup %s: not in a mounted cgroup "
				    "hierarchy (none in /proc/self/mountinfo holds it); fix: give "
				    "a cgroup's directory, e.g. under /sys/fs/cgroup", path);
	n = strlen(mnt);
	if (strlen(root) + strlen(real + n) + 2 > sizeof(r->cg_want))
		return mr_error_set(err, MR_EINVAL, "--cgroup %s: path longer than %zu bytes",
				    path, sizeof(r->cg_want) - 2);
	/* the path inside the hierarchy, as /proc/PID/cgroup shows it (length checked) */
	strcpy(r->cg_want, strcmp(root, "/") ? root : "");
	strcat(r->cg_want, real[n] ? real + n : (strcmp(root, "/") ? "" : "/"));
	r->cg_v1 = !v2;
	if (!v2) {
		v1_field(opts, r->cg_field, sizeof(r->cg_field));
		if (!r->cg_field[0])
			return mr_error_set(err, MR_EINVAL, "--cgroup %s: cannot tell which "
					    "v1 hierarchy %s is (super options \"%s\")", path, mnt,
					    opts);
	}

	pe = cgroup_hierarchy("perf_event", &en);
	if (pe < 0 || !en)
		snprintf(why, sizeof(why), "the perf_event cgroup controller is %s",
			 pe < 0 ? "not in this kernel (CONFIG_CGROUP_PERF)" : "disabled");
	else if (v2 && pe != 0)
		snprintf(why, sizeof(why), "%.80s is cgroup2 but perf_event is on v1 hierarchy %d",
			 mnt, pe);
	else if (!v2 && !strstr(opts, "perf_event"))
		snprintf(why, sizeof(why), "%.60s is v1 '%.40s'; perf_event is on %s", mnt,
			 r->cg_field, pe ? "another v1 hierarchy" : "cgroup2");
#ifndef MR_LIBPERF_CGROUP_FD
	else
		snprintf(why, sizeof(why), "libperf lacks perf_evsel__set_cgroup_fd() (its patch "
			 "did not apply: see build/_deps/libperf/build.log)");
#endif
	if (!why[0]) {
		r->cg_fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (r->cg_fd < 0)
			snprintf(why, sizeof(why), "cannot open %.80s: %s", real, strerror(errno));
	}
	r->cg_kernel = !why[0];
	if (r->cg_kernel) /* (cg_how[] holds the longest cg_want) */
		snprintf(r->cg_how, sizeof(r->cg_how), "in the kernel (PERF_FLAG_PID_CGROUP, "
			 "%s %s); page-cache deletions CPU-wide, kept for its tasks and known "
			 "pages", v2 ? "cgroup2" : "v1 perf_event", r->cg_want);
	else
		snprintf(r->cg_how, sizeof(r->cg_how), "in user space (every task sampled): %s",
			 why);
	return 0;
}

/*
 * Is a record of this stream (enum rec_tp, or -1 for faults and side band) from tid
 * in scope? Streams scoped by the kernel are by construction; the others are asked
 * rec_in_scope(). Always 1 without --cgroup.
 */
int rec_stream_in_scope(struct rec *r, int t, int32_t tid)
{
	if (r->cg_kernel && (t < 0 || !rec_tp_names[t].cpu_wide))
		return 1;
	return rec_in_scope(r, tid);
}
