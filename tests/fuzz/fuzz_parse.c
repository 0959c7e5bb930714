// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_parse.c - fuzz target for the size, count, duration and number parsers of
 * base/util.c (mr_parse_pages, mr_parse_count, mr_parse_duration, mr_parse_double):
 * every string is parsed or refused with a message; an accepted value is in range and
 * reads back the same from its plain form. The first byte picks the parser (and the
 * page size and allow_zero for sizes), the rest is the string up to any NUL.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define EXPECT(cond)                                                                   \
	do {                                                                           \
		if (!(cond)) {                                                         \
			fprintf(stderr, "fuzz_parse: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                       \
		}                                                                      \
	} while (0)

/* rc is 0 with no message, or negative with one */
static void check_rc(int rc, const struct mr_error *err)
{
	EXPECT(rc <= 0);
	EXPECT(rc == 0 || err->msg[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t page_sizes[4] = { 4096, 1, 512, 2097152 };
	struct mr_error err = { 0 };
	char s[256], back[64];
	uint64_t v = 0, w = 0;
	double d = 0;
	unsigned sel;
	size_t n;
	int rc;

	if (!size)
		return 0;
	sel = data[0];
	n = size - 1 < sizeof(s) - 1 ? size - 1 : sizeof(s) - 1;
	memcpy(s, data + 1, n);
	s[n] = 0;
	switch (sel & 3) {
	case 0: {
		uint64_t ps = page_sizes[(sel >> 2) & 3];
		int allow_zero = (sel >> 4) & 1;

		rc = mr_parse_pages(s, ps, allow_zero, &v, &err);
		check_rc(rc, &err);
		if (rc)
			break;
		/* a size is at most 2^64 - 1 bytes: pages * page size never overflows */
		EXPECT(v <= UINT64_MAX / ps);
		EXPECT(allow_zero || v);
		snprintf(back, sizeof(back), "%llup", (unsigned long long)v);
		EXPECT(mr_parse_pages(back, ps, 1, &w, &err) == 0 && w == v);
		break;
	}
	case 1:
		rc = mr_parse_count(s, &v, &err);
		check_rc(rc, &err);
		if (rc)
			break;
		snprintf(back, sizeof(back), "%llu", (unsigned long long)v);
		EXPECT(mr_parse_count(back, &w, &err) == 0 && w == v);
		break;
	case 2:
		rc = mr_parse_duration(s, &v, &err);
		check_rc(rc, &err);
		if (rc)
			break;
		snprintf(back, sizeof(back), "%lluns", (unsigned long long)v);
		EXPECT(mr_parse_duration(back, &w, &err) == 0 && w == v);
		break;
	default:
		rc = mr_parse_double(s, -1e6, 1e6, &d, &err);
		check_rc(rc, &err);
		if (!rc)
			EXPECT(isfinite(d) && d >= -1e6 && d <= 1e6);
		break;
	}
	return 0;
}
