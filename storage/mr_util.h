/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_util.h - small shared parsers: sizes and counts as users type them.
 */
#ifndef MR_UTIL_H
#define MR_UTIL_H

#include <stdint.h>

#include "mr_err.h"

#define MR_PAGE_SIZE 4096u

/*
 * Parse a memory size into pages of page_size bytes.
 *   "256M", "1G", "512K", "2T", "64KiB", "1GB" -> bytes (binary multiples), rounded up
 *   to whole pages; "65536" or "65536p" -> pages.
 * Rejects empty, negative, fractional-page-free garbage, trailing junk, zero (unless
 * allow_zero) and overflow with MR_EINVAL/MR_ERANGE and a message quoting the input.
 */
int mr_parse_pages(const char *s, uint64_t page_size, int allow_zero, uint64_t *pages,
		   struct mr_error *err);
/* Parse a count: "50M" = 50,000,000 (decimal K/M/G/T), "1000". */
int mr_parse_count(const char *s, uint64_t *out, struct mr_error *err);
/* Parse a decimal number with range check. */
int mr_parse_double(const char *s, double min, double max, double *out, struct mr_error *err);
/* Format bytes as "1.5 MiB" into buf. Returns buf. */
char *mr_format_bytes(uint64_t bytes, char *buf, int cap);

#endif /* MR_UTIL_H */
