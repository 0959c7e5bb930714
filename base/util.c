// SPDX-License-Identifier: GPL-2.0
/* util.c - parsers for sizes, counts and durations as users type them, string and byte
 * formatting, the monotonic clock (see mr_util.h). */
#include "mr_util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

/* Leading unsigned integer; rejects signs, empty input and overflow. */
static int parse_uint(const char *s, uint64_t *v, const char **end)
{
	char *e;
	unsigned long long x;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &e, 10);
	if (errno == ERANGE)
		return -2;
	*v = x;
	*end = e;
	return 0;
}

int mr_parse_pages(const char *s, uint64_t page_size, int allow_zero, uint64_t *pages,
		   struct mr_error *err)
{
	const char *p;
	uint64_t v, mult = 0;
	int rc;

	if (!s || !*s)
		return mr_error_set(err, MR_EINVAL, "empty size: give bytes with a suffix (256M, 1G) or a page count");
	rc = parse_uint(s, &v, &p);
	if (rc == -2)
		return mr_error_set(err, MR_ERANGE, "size '%s' is too large", s);
	if (rc)
		return mr_error_set(err, MR_EINVAL, "bad size '%s': expected a number with an optional K/M/G/T suffix (e.g. 256M, 1G) or a page count", s);
	if (!page_size)
		return mr_error_set(err, MR_EINVAL, "size '%s': no page size", s);
	if (!*p || !strcasecmp(p, "p") || !strcasecmp(p, "pages")) {
		/* a page count whose bytes do not fit in 64 bits would reach the results
		 * (SQLite INTEGER) as a negative number and overflow any byte figure */
		if (v > UINT64_MAX / page_size)
			return mr_error_set(err, MR_ERANGE, "size '%s' is too large: at most %llu pages of %llu bytes (2^64 bytes)",
					    s, (unsigned long long)(UINT64_MAX / page_size),
					    (unsigned long long)page_size);
		*pages = v;
	} else {
		switch (toupper((unsigned char)*p)) {
		case 'K': mult = 1ULL << 10; break;
		case 'M': mult = 1ULL << 20; break;
		case 'G': mult = 1ULL << 30; break;
		case 'T': mult = 1ULL << 40; break;
		}
		if (!mult)
			return mr_error_set(err, MR_EINVAL, "bad size '%s': unknown suffix '%s' (use K, M, G, T or a plain page count)", s, p);
		p++;
		if (*p && strcasecmp(p, "B") && strcasecmp(p, "iB"))
			return mr_error_set(err, MR_EINVAL, "bad size '%s': trailing '%s'", s, p);
		if (v > UINT64_MAX / mult)
			return mr_error_set(err, MR_ERANGE, "size '%s' is too large", s);
		v *= mult;
		*pages = v / page_size + (v % page_size != 0);
	}
	if (!*pages && !allow_zero)
		return mr_error_set(err, MR_EINVAL, "size '%s' is zero: give a positive size", s);
	return 0;
}

int mr_parse_count(const char *s, uint64_t *out, struct mr_error *err)
{
	const char *p;
	uint64_t v, mult = 1;
	int rc;

	if (!s || !*s)
		return mr_error_set(err, MR_EINVAL, "empty count");
	rc = parse_uint(s, &v, &p);
	if (rc == -2)
		return mr_error_set(err, MR_ERANGE, "count '%s' is too large", s);
	if (rc)
		return mr_error_set(err, MR_EINVAL, "bad count '%s': expected a whole number, optionally with K/M/G (x1000)", s);
	if (*p) {
		switch (toupper((unsigned char)*p)) {
		case 'K': mult = 1000ULL; break;
		case 'M': mult = 1000000ULL; break;
		case 'G': mult = 1000000000ULL; break;
		case 'T': mult = 1000000000000ULL; break;
		default: mult = 0;
		}
		if (!mult || p[1])
			return mr_error_set(err, MR_EINVAL, "bad count '%s': trailing '%s'", s, p);
		if (v > UINT64_MAX / mult)
			return mr_error_set(err, MR_ERANGE, "count '%s' is too large", s);
	}
	*out = v * mult;
	return 0;
}

#define DURATION_SYNTAX \
	"a number with a unit ns, us, ms, s, m or h (500ms, 1.5s, 2m); a bare number is ns"

int mr_parse_duration(const char *s, uint64_t *ns, struct mr_error *err)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
		{ "m", 60000000000 }, { "h", 3600000000000 },
	};
	uint64_t whole, frac = 0, scale = 1;
	unsigned __int128 v;
	const char *p;
	size_t u;
	int rc;

	if (!s || !*s)
		return mr_error_set(err, MR_EINVAL, "empty duration: give " DURATION_SYNTAX);
	rc = parse_uint(s, &whole, &p);
	if (rc == -2)
		goto too_large;
	if (rc || (*p == '.' && !isdigit((unsigned char)p[1])))
		return mr_error_set(err, MR_EINVAL, "bad duration '%s': expected " DURATION_SYNTAX, s);
	if (*p == '.') {
		/* digits past the 18th are worth less than 1e-5 ns in any unit: dropped */
		for (p++; isdigit((unsigned char)*p); p++) {
			if (scale < 1000000000000000000ull) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
		}
	}
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (!strcmp(p, units[u].name))
			break;
	if (u == sizeof(units) / sizeof(units[0]))
		return mr_error_set(err, MR_EINVAL, "bad duration '%s': unknown unit '%s': expected "
				    DURATION_SYNTAX, s, p);
	v = (unsigned __int128)whole * units[u].ns +
	    ((unsigned __int128)frac * units[u].ns + scale / 2) / scale;
	if (v > UINT64_MAX)
		goto too_large;
	*ns = (uint64_t)v;
	return 0;
too_large:
	return mr_error_set(err, MR_ERANGE, "duration '%s' is too large (at most 2^64 - 1 ns, "
			    "about 584 years)", s);
}

int mr_parse_double(const char *s, double min, double max, double *out, struct mr_error *err)
{
	char *e;
	double v;

	if (!s || !*s)
		return mr_error_set(err, MR_EINVAL, "empty number");
	errno = 0;
	v = strtod(s, &e);
	if (*e || e == s || errno || !isfinite(v))
		return mr_error_set(err, MR_EINVAL, "bad number '%s'", s);
	if (v < min || v > max)
		return mr_error_set(err, MR_ERANGE, "%s is out of range [%g, %g]", s, min, max);
	*out = v;
	return 0;
}

char *mr_format_bytes(uint64_t bytes, char *buf, int cap)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, cap, "%.1f %s", v, units[u]);
	return buf;
}

void mr_strbuf_printf(struct mr_strbuf *sb, const char *fmt, ...)
{
	size_t room = sb->len < sb->cap ? sb->cap - sb->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->len += (size_t)n;
}

uint64_t mr_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

long mr_getline_max(char **buf, size_t *cap, FILE *f, size_t max)
{
	size_t n = 0;
	int ch;

	for (;;) {
		if (n + 2 > *cap) {
			size_t nc = *cap ? 2 * *cap : 256;
			char *nb;

			if (nc > max + 2)
				nc = max + 2;
			if (nc < n + 2)
				return -2;
			nb = realloc(*buf, nc);
			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			*buf = nb;
			*cap = nc;
		}
		ch = getc_unlocked(f);
		if (ch == EOF)
			break;
		if (n == max) {
			(*buf)[n] = 0;
			return -2;
		}
		(*buf)[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	if (!n)
		return -1;
	(*buf)[n] = 0;
	return (long)n;
}

int mr_size_whole_pages(const char *s, uint64_t page_size)
{
	uint64_t bytes;
	struct mr_error e = { 0 };

	if (!s || !strpbrk(s, "kKmMgGtT"))
		return 1; /* a page count */
	if (mr_parse_pages(s, 1, 1, &bytes, &e))
		return 1; /* not a size: its parser says why */
	return bytes % page_size == 0;
}

int mr_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
