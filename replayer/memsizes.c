// SPDX-License-Identifier: GPL-2.0
/*
 * memsizes.c - the memory sizes of a replay as users type them (`--memory`): one size,
 * a comma-separated list, or a range with a count, a factor or a step, and the short
 * form the tables print them in. Every single size goes through mr_parse_pages(), the
 * one size syntax (a bare number is pages).
 *
 *   64M                 one size
 *   32M,64M,128M        a list, in the order given
 *   16M..1G:8           8 sizes from 16M to 1G, both included, in equal ratios (geometric)
 *   16M..1G:x2          16M, 32M, 64M, ... while at most 1G (each the one before times 2)
 *   16M..256M:+16M      16M, 32M, 48M, ... while at most 256M (linear)
 *
 * Lists and ranges combine: "8M,16M..1G:4". Sizes are whole pages (a geometric or factor
 * step is rounded to the nearest page); the same size twice is an error, not a second
 * run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_replay.h"
#include "mr_util.h"

/* One size of the list, by mr_parse_pages() (copied out of the list: it reads to NUL). */
static int one_size(const char *arg, const char *s, size_t n, uint64_t *pages,
		    struct mr_error *err)
{
	char buf[64];
	struct mr_error e = { 0 };

	if (n >= sizeof(buf))
		return mr_error_set(err, MR_EINVAL, "--memory '%s': size '%.*s...' is too long", arg,
				    20, s);
	memcpy(buf, s, n);
	buf[n] = 0;
	if (mr_parse_pages(buf, MR_PAGE_SIZE, 0, pages, &e))
		return mr_error_set(err, e.code, "--memory '%s': %s", arg, e.msg);
	return 0;
}

static int add_size(const char *arg, uint64_t v, uint64_t *pages, size_t cap, size_t *n,
		    struct mr_error *err)
{
	char a[32];

	for (size_t i = 0; i < *n; i++)
		if (pages[i] == v)
			return mr_error_set(err, MR_EINVAL,
					    "--memory '%s': %s (%llu pages) comes twice; give each size once (a range rounds to whole pages: use fewer sizes)",
					    arg, mr_replay_format_memory(v, a, sizeof(a)),
					    (unsigned long long)v);
	if (*n == cap)
		return mr_error_set(err, MR_ERANGE, "--memory '%s': more than %zu sizes; give fewer",
				    arg, cap);
	pages[(*n)++] = v;
	return 0;
}

/* LO..HI:STEP, the text of one list item (s, n); sizes appended. */
static int range(const char *arg, const char *s, size_t n, uint64_t *pages, size_t cap,
		 size_t *np, struct mr_error *err)
{
	const char *dots = strstr(s, ".."), *colon;
	uint64_t lo, hi, step;
	char buf[64];
	int rc;

	colon = memchr(dots + 2, ':', n - (size_t)(dots + 2 - s));
	if (!colon)
		return mr_error_set(err, MR_EINVAL,
				    "--memory '%s': range '%.*s' needs a count, factor or step: LO..HI:N (N sizes, geometric), LO..HI:xF (times F) or LO..HI:+STEP (linear)",
				    arg, (int)n, s);
	rc = one_size(arg, s, (size_t)(dots - s), &lo, err);
	if (!rc)
		rc = one_size(arg, dots + 2, (size_t)(colon - dots - 2), &hi, err);
	if (rc)
		return rc;
	if (hi <= lo)
		return mr_error_set(err, MR_EINVAL, "--memory '%s': range '%.*s' must go up (LO < HI)",
				    arg, (int)n, s);
	n -= (size_t)(colon + 1 - s);
	s = colon + 1;
	if (!n || n >= sizeof(buf))
		return mr_error_set(err, MR_EINVAL, "--memory '%s': nothing after ':' in the range",
				    arg);
	memcpy(buf, s, n);
	buf[n] = 0;
	if (buf[0] == '+') {
		/* linear: LO, LO + STEP, ... <= HI */
		rc = one_size(arg, buf + 1, n - 1, &step, err);
		if (rc)
			return rc;
		for (uint64_t v = lo; v <= hi && !rc; v = v > UINT64_MAX - step ? UINT64_MAX : v + step) {
			rc = add_size(arg, v, pages, cap, np, err);
			if (v == UINT64_MAX)
				break;
		}
		return rc;
	}
	if (buf[0] == 'x' || buf[0] == '*') {
		/* factor: LO, LO * F, ... <= HI, each rounded to a page */
		struct mr_error e = { 0 };
		double f, v;

		if (mr_parse_double(buf + 1, 1.0, 1e6, &f, &e) || f <= 1.0)
			return mr_error_set(err, MR_EINVAL, "--memory '%s': factor '%s' must be a number above 1 (x2, x1.5)",
					    arg, buf + 1);
		for (v = (double)lo; v <= (double)hi * (1 + 1e-12) && !rc; v *= f) {
			uint64_t p = (uint64_t)llround(v);

			rc = add_size(arg, p > hi ? hi : p, pages, cap, np, err);
		}
		return rc;
	}
	{
		/* count: N sizes in equal ratios, LO and HI included */
		char *end;
		unsigned long count = strtoul(buf, &end, 10);

		if (*end || end == buf || buf[0] == '-')
			return mr_error_set(err, MR_EINVAL,
					    "--memory '%s': '%s' after ':' is not a count (N), a factor (xF) or a step (+SIZE)",
					    arg, buf);
		if (count < 2 || count > cap)
			return mr_error_set(err, MR_ERANGE, "--memory '%s': a range takes 2 to %zu sizes, not %s",
					    arg, cap, buf);
		for (unsigned long i = 0; i < count && !rc; i++) {
			uint64_t p = i == 0 ? lo : i + 1 == count ? hi :
				     (uint64_t)llround((double)lo * pow((double)hi / (double)lo,
									 (double)i / (double)(count - 1)));

			rc = add_size(arg, p, pages, cap, np, err);
		}
		return rc;
	}
}

int mr_replay_parse_memory(const char *full, uint64_t *pages, size_t cap, size_t *n,
			   struct mr_error *err)
{
	const char *s = full;
	char arg[80]; /* the argument as messages show it: a long list cut, so that the
		       * message's reason after it is not */
	int rc = 0;

	if (!full || !*full)
		return mr_error_set(err, MR_EINVAL, "--memory '': give a size (256M), a list (32M,64M) or a range (16M..1G:8)");
	if (strlen(full) < sizeof(arg))
		snprintf(arg, sizeof(arg), "%s", full);
	else
		snprintf(arg, sizeof(arg), "%.60s...", full);
	while (!rc) {
		const char *comma = strchr(s, ','), *dots;
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		uint64_t v;

		if (!len)
			return mr_error_set(err, MR_EINVAL, "--memory '%s': an empty item in the list", arg);
		dots = strstr(s, "..");
		if (memchr(s, '=', len))
			return mr_error_set(err, MR_EINVAL,
					    "--memory '%s': a cgroup limit (CGROUP=SIZE, CGROUP an id or a path) takes one size and has its own --memory; lists and ranges are for the whole-trace size",
					    arg);
		if (dots && dots < s + len) {
			rc = range(arg, s, len, pages, cap, n, err);
		} else {
			rc = one_size(arg, s, len, &v, err);
			if (!rc)
				rc = add_size(arg, v, pages, cap, n, err);
		}
		if (!comma)
			break;
		s = comma + 1;
	}
	return rc;
}

char *mr_replay_format_memory(uint64_t pages, char *buf, size_t cap)
{
	static const char units[] = "KMGT";
	uint64_t kib = pages * (MR_PAGE_SIZE / 1024);
	int u = 0;

	if (pages > UINT64_MAX / (MR_PAGE_SIZE / 1024)) {
		snprintf(buf, cap, "%llu pages", (unsigned long long)pages);
		return buf;
	}
	while (u < 3 && kib && kib % 1024 == 0) {
		kib /= 1024;
		u++;
	}
	snprintf(buf, cap, "%llu%c", (unsigned long long)kib, units[u]);
	return buf;
}
