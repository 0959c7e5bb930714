// SPDX-License-Identifier: GPL-2.0
/*
 * test_base.c - the shared vocabulary (base/), linked alone (no SQLite, no LZ4): the one
 * duration syntax of every duration option and script time, the monotonic clock, and
 * the radix sort of keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_test.h"
#include "mr_util.h"

/* One case of mr_parse_duration: the input, the code, and the value when it is 0. */
struct duration_case {
	const char *s;
	int rc;
	uint64_t ns;
};

static const struct duration_case durations[] = {
	/* a bare number is nanoseconds, as trace times (and --interval before) are */
	{ "1500", 0, 1500 },
	{ "0", 0, 0 },
	{ "10", 0, 10 },
	/* each unit */
	{ "250ns", 0, 250 },
	{ "10us", 0, 10000 },
	{ "500ms", 0, 500000000 },
	{ "2s", 0, 2000000000 },
	{ "2m", 0, 120000000000 },
	{ "1h", 0, 3600000000000 },
	/* decimal fractions, rounded to the nearest nanosecond */
	{ "1.5s", 0, 1500000000 },
	{ "0.25ms", 0, 250000 },
	{ "1.5ns", 0, 2 },
	{ "1.4ns", 0, 1 },
	{ "0.5h", 0, 1800000000000 },
	{ "1.000000000000000000000001s", 0, 1000000000 },
	/* the largest and past it */
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551615ns", 0, UINT64_MAX },
	{ "18446744073709551616", MR_ERANGE, 0 },
	{ "99999999999999999999999s", MR_ERANGE, 0 },
	{ "18446744074s", MR_ERANGE, 0 },
	{ "5124095h", 0, 5124095ull * 3600000000000ull },
	{ "5124096h", MR_ERANGE, 0 },
	{ "18446744073709551615.9ns", MR_ERANGE, 0 },
	/* negative and signed */
	{ "-5s", MR_EINVAL, 0 },
	{ "-0", MR_EINVAL, 0 },
	{ "+5s", MR_EINVAL, 0 },
	/* garbage */
	{ "", MR_EINVAL, 0 },
	{ "soon", MR_EINVAL, 0 },
	{ "10x", MR_EINVAL, 0 },
	{ "10S", MR_EINVAL, 0 },
	{ "10M", MR_EINVAL, 0 },
	{ "10sec", MR_EINVAL, 0 },
	{ "10 s", MR_EINVAL, 0 },
	{ " 10s", MR_EINVAL, 0 },
	{ "10s ", MR_EINVAL, 0 },
	{ "1e9", MR_EINVAL, 0 },
	{ "0x10", MR_EINVAL, 0 },
	{ ".5s", MR_EINVAL, 0 },
	{ "5.s", MR_EINVAL, 0 },
	{ "1.2.3s", MR_EINVAL, 0 },
	{ "10ms5", MR_EINVAL, 0 },
	{ "inf", MR_EINVAL, 0 },
	{ "nan", MR_EINVAL, 0 },
};

static void test_duration(void)
{
	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		const struct duration_case *c = &durations[i];
		struct mr_error err = { 0 };
		uint64_t ns = 12345;
		int rc = mr_parse_duration(c->s, &ns, &err);

		if (rc != c->rc || (!rc && ns != c->ns))
			fprintf(stderr, "duration '%s': rc %d ns %llu, expected rc %d ns %llu (%s)\n",
				c->s, rc, (unsigned long long)ns, c->rc, (unsigned long long)c->ns,
				err.msg);
		CHECK(rc == c->rc);
		if (!c->rc)
			CHECK_EQ_U64(ns, c->ns);
		else
			CHECK(ns == 12345 && err.code == c->rc && strstr(err.msg, "duration"));
	}
	CHECK(mr_parse_duration(NULL, &(uint64_t){ 0 }, NULL) == MR_EINVAL);
}

/* The messages quote the input and name the units and the meaning of a bare number. */
static void test_duration_messages(void)
{
	struct mr_error err = { 0 };
	uint64_t ns;

	CHECK(mr_parse_duration("10x", &ns, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "'10x'") && strstr(err.msg, "unknown unit 'x'"));
	CHECK(strstr(err.msg, "ns, us, ms, s, m or h") && strstr(err.msg, "a bare number is ns"));
	CHECK(mr_parse_duration("-5s", &ns, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "'-5s'") != NULL);
	CHECK(mr_parse_duration("", &ns, &err) == MR_EINVAL);
	CHECK(strstr(err.msg, "empty duration") != NULL);
	CHECK(mr_parse_duration("5124096h", &ns, &err) == MR_ERANGE);
	CHECK(strstr(err.msg, "'5124096h' is too large") != NULL);
}

static void test_clock(void)
{
	uint64_t a = mr_clock_ns(), b = mr_clock_ns();
	double s = mr_clock_s();

	CHECK(a > 0 && b >= a);
	CHECK(s >= (double)a * 1e-9);
}

/*
 * mr_sort_keys() gives qsort()'s order by (hi, lo, id) on sets that exercise each of its
 * shortcuts: ids ascending (their digits skipped) or shuffled, keys that differ only in
 * their top bits (the last digits), duplicate (hi, lo) pairs, few distinct values (most
 * digits shared, skipped), sizes on both sides of its qsort() threshold.
 */
static void test_sort_keys(void)
{
	static const uint64_t sizes[] = { 0, 1, 2, 1023, 1024, 5000, 70000 };
	uint64_t st = 42;

	for (unsigned shape = 0; shape < 5; shape++) {
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			uint64_t n = sizes[si];
			struct mr_sort_key *a = malloc((n + 1) * sizeof(*a));
			struct mr_sort_key *b = malloc((n + 1) * sizeof(*b));
			int same = 1;

			CHECK(a && b);
			for (uint64_t i = 0; i < n; i++) {
				uint64_t r = mr_splitmix64(&st), q = mr_splitmix64(&st);

				switch (shape) {
				case 0: /* random everything, ids ascending */
					a[i] = (struct mr_sort_key){ r, q, (uint32_t)i };
					break;
				case 1: /* only the top bits differ, ids shuffled */
					a[i] = (struct mr_sort_key){ (r & 3) << 62, (q & 7) << 60,
								     (uint32_t)(q >> 8) };
					break;
				case 2: /* few owners, small keys, duplicates, ids descending */
					a[i] = (struct mr_sort_key){ r % 5, q % 300, (uint32_t)(n - i) };
					break;
				case 3: /* every key the same but the id */
					a[i] = (struct mr_sort_key){ 7, 9, (uint32_t)r };
					break;
				default: /* rank order as sample.c builds it: ~refs, hash */
					a[i] = (struct mr_sort_key){ ~(r % 40) << 11 | 2046, q,
								     (uint32_t)i };
					break;
				}
			}
			memcpy(b, a, n * sizeof(*a));
			CHECK(mr_sort_keys(a, n) == 0);
			qsort(b, n, sizeof(*b), mr_sort_key_cmp);
			for (uint64_t i = 0; i < n; i++)
				same &= a[i].hi == b[i].hi && a[i].lo == b[i].lo && a[i].id == b[i].id;
			if (!same)
				fprintf(stderr, "shape %u, %llu keys: order differs from qsort's\n", shape,
					(unsigned long long)n);
			CHECK(same);
			free(a);
			free(b);
		}
	}
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_duration),
	MR_CASE(test_duration_messages),
	MR_CASE(test_clock),
	MR_CASE(test_sort_keys),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_base", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
