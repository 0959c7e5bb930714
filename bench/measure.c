// SPDX-License-Identifier: GPL-2.0
/*
 * measure.c - what the benchmarks share (bench_int.h): progress notes, rates, the median
 * of runs, a case run in a child process for its own peak RSS, generator traces,
 * temporary directories and report text.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_int.h"
#include "mr_gen.h"

void bench_note(void (*note)(void *arg, const char *line), void *arg, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (!note)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	note(arg, line);
}

size_t bench_median(const double *v, size_t n, double *min, double *max)
{
	size_t by[64], m = n < 64 ? n : 64;

	/* insertion sort of the indices: a handful of runs, and equal values keep their order */
	for (size_t i = 0; i < m; i++) {
		size_t j = i;

		for (; j > 0 && v[by[j - 1]] > v[i]; j--)
			by[j] = by[j - 1];
		by[j] = i;
	}
	*min = v[by[0]];
	*max = v[by[m - 1]];
	return by[(m - 1) / 2];
}

/* What the child sends back ahead of fn's result. */
struct child_head {
	int rc;
	struct mr_error err;
};

static int read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

int bench_in_child(const char *what, int (*fn)(void *arg, void *result, struct mr_error *err),
		   void *arg, void *result, size_t size, uint64_t *peak_rss,
		   struct mr_error *err)
{
	struct child_head head;
	struct rusage ru;
	int fds[2], status = 0, got;
	pid_t pid;

	if (pipe(fds))
		return mr_error_set(err, MR_EIO, "bench: pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return mr_error_set(err, MR_EIO, "bench: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		memset(&head, 0, sizeof(head));
		head.rc = fn(arg, result, &head.err);
		/* a blocking pipe takes each whole: the parent reads while we write */
		if (write(fds[1], &head, sizeof(head)) != (ssize_t)sizeof(head) ||
		    (size && write(fds[1], result, size) != (ssize_t)size))
			_exit(2);
		_exit(0);
	}
	close(fds[1]);
	got = !read_full(fds[0], &head, sizeof(head)) && !read_full(fds[0], result, size);
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return mr_error_set(err, MR_EIO, "bench: wait: %s", strerror(errno));
	if (!got || !WIFEXITED(status) || WEXITSTATUS(status))
		return mr_error_set(err, MR_EIO, "bench: the %s child failed (status %d)", what,
				    status);
	if (head.rc)
		return mr_error_set(err, head.rc, "%s", head.err.msg);
	*peak_rss = (uint64_t)ru.ru_maxrss * 1024;
	return 0;
}

int bench_gen(const char *gen, const char *const *params, const char *path,
	      struct mr_error *err)
{
	const struct mr_gen *g = mr_gen_find(gen);
	struct mr_gen_values vals;
	int rc;

	if (!g)
		return mr_error_set(err, MR_ENOENT, "bench: the %s generator is not built in", gen);
	rc = mr_gen_defaults(g, &vals, err);
	for (; !rc && params && params[0]; params += 2)
		rc = mr_gen_set(g, &vals, params[0], params[1], err);
	if (!rc)
		rc = mr_gen_write(g, &vals, path, NULL, err);
	return rc;
}

int bench_mkdtemp(const char *parent, const char *name, char *dir, size_t cap,
		  struct mr_error *err)
{
	snprintf(dir, cap, "%s/memreplay-bench-%s.XXXXXX", parent ? parent : "/tmp", name);
	if (!mkdtemp(dir))
		return mr_error_set(err, MR_EIO, "bench %s: cannot create a directory under %s: %s",
				    name, parent ? parent : "/tmp", strerror(errno));
	return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	return remove(path);
}

void bench_rmtree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int bench_report_end(const struct mr_strbuf *sb)
{
	return sb->len >= sb->cap ? MR_ENOSPC : (int)sb->len;
}

const char *bench_fig(char *b, size_t cap, int have, const char *fmt, double v)
{
	if (have)
		snprintf(b, cap, fmt, v);
	else
		snprintf(b, cap, "-");
	return b;
}
