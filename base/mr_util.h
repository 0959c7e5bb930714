/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_util.h - the small helpers every library shares: sizes, counts and durations as
 * users type them, a bounded string appender, byte figures, and the one monotonic clock.
 */
#ifndef MR_UTIL_H
#define MR_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mr_err.h"

#define MR_PAGE_SIZE 4096u

/*
 * Parse a memory size into pages of page_size bytes.
 *   "256M", "1G", "512K", "2T", "64KiB", "1GB" -> bytes (binary multiples), rounded up
 *   to whole pages; "65536" or "65536p" -> pages.
 * Rejects empty, negative, fractional-page-free garbage, trailing junk, zero (unless
 * allow_zero) and overflow with MR_EINVAL/MR_ERANGE and a message quoting the input.
 * Every size accepted is at most 2^64 - 1 bytes: a page count is at most
 * UINT64_MAX / page_size, so pages * page_size never overflows.
 */
int mr_parse_pages(const char *s, uint64_t page_size, int allow_zero, uint64_t *pages,
		   struct mr_error *err);
/* Parse a count: "50M" = 50,000,000 (decimal K/M/G/T), "1000". */
int mr_parse_count(const char *s, uint64_t *out, struct mr_error *err);
/* Is s (a size mr_parse_pages() reads) a whole number of pages? A page count is; bytes
 * with a suffix (5K) are rounded up to pages by mr_parse_pages(), which a setting that
 * takes pages (fault-around, the sampling unit) should refuse rather than change. */
int mr_size_whole_pages(const char *s, uint64_t page_size);
/*
 * Parse a duration into nanoseconds: the one syntax of every duration option and script
 * time. A whole or decimal number and a unit, ns, us, ms, s, m or h ("500ms", "1.5s",
 * "2m", "250us"); a bare number is nanoseconds ("1500"), as trace times are. Rounded to
 * the nearest nanosecond. Rejects empty input, signs, spaces, exponents and unknown
 * units with MR_EINVAL, more than UINT64_MAX ns (about 584 years) with MR_ERANGE, with
 * a message quoting the input.
 */
int mr_parse_duration(const char *s, uint64_t *ns, struct mr_error *err);
/* Parse a decimal number with range check. */
int mr_parse_double(const char *s, double min, double max, double *out, struct mr_error *err);
/* A bounded text appender over a caller-owned buffer. len keeps the length the whole
 * text needs (like snprintf), so len >= cap after the fact means it was cut short; the
 * buffer is always NUL-terminated when cap > 0. */
struct mr_strbuf {
	char *buf;
	size_t cap, len;
};
void mr_strbuf_printf(struct mr_strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Zeroed memory of n bytes for an array indexed by page id, mapped on its own (huge
 * pages where THP allows); NULL when it cannot be mapped. Free with the same n. */
void *mr_big_alloc(size_t n);
/* The same for a pool taken from its start, which may stay mostly unused (a machine's
 * page tables): huge pages past its first 2 MiB only. Freed by mr_big_free(). */
void *mr_big_alloc_pool(size_t n);
void mr_big_free(void *p, size_t n);

/* A key of mr_sort_keys(). */
struct mr_sort_key {
	uint64_t hi, lo;
	uint32_t id;
};
/* Sort e[0..n) by (hi, lo, id), ascending (base/sort.c); stable. 0, or MR_ENOMEM with
 * e unchanged. */
int mr_sort_keys(struct mr_sort_key *e, uint64_t n);
/* Their order as a qsort() comparator (what small sets take). */
int mr_sort_key_cmp(const void *a, const void *b);

/* Do paths a and b name one file (one device and inode, through any name)? 0 when either
 * does not exist. */
int mr_same_file(const char *a, const char *b);

/* Format bytes as "1.5 MiB" into buf. Returns buf. */
char *mr_format_bytes(uint64_t bytes, char *buf, int cap);

/*
 * getline() that stops reading at max bytes (max < SIZE_MAX - 2): the line's length (its
 * newline kept and counted, NULs counted), -1 at the end, on a read error (ferror()
 * tells) or out of memory (errno ENOMEM), -2 when the line is longer than max: then
 * max + 1 of its bytes have been read and the rest is left unread, and buf holds the
 * first max of them, terminated (getline() would hold a file without a newline whole in
 * memory, /dev/zero without end).
 */
long mr_getline_max(char **buf, size_t *cap, FILE *f, size_t max);

/* CLOCK_MONOTONIC in nanoseconds: the clock of recordings (perf's use_clockid) and of
 * every wall time memreplay measures. */
uint64_t mr_clock_ns(void);
/* The same clock in seconds, for measured wall times. */
static inline double mr_clock_s(void)
{
	return (double)mr_clock_ns() * 1e-9;
}

/* splitmix64's finaliser (Steele, Lea, Flood 2014): a fixed bijective mix of 64 bits,
 * for hashes that must not change between versions (sampling, anonymisation). */
static inline uint64_t mr_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* splitmix64: the next value of the generator whose state is *state. */
static inline uint64_t mr_splitmix64(uint64_t *state)
{
	return mr_mix64(*state += 0x9e3779b97f4a7c15ull);
}

#endif /* MR_UTIL_H */
