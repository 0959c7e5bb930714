/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mr_test.h - a tiny test harness: CHECK macros that report file:line and keep going,
 * a seed taken from MR_TEST_SEED or the clock and printed, and a temp dir per test.
 */
#ifndef MR_TEST_H
#define MR_TEST_H

#include <stdint.h>
#include <stdio.h>

extern int mr_test_failures;
extern int mr_test_checks;

#define CHECK(cond)                                                                   \
	do {                                                                           \
		mr_test_checks++;                                                      \
		if (!(cond)) {                                                         \
			mr_test_failures++;                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
				#cond);                                                \
		}                                                                      \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                            \
	do {                                                                           \
		unsigned long long a_ = (unsigned long long)(a),                       \
				   b_ = (unsigned long long)(b);                       \
		mr_test_checks++;                                                      \
		if (a_ != b_) {                                                        \
			mr_test_failures++;                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);                   \
		}                                                                      \
	} while (0)

/* Seed from $MR_TEST_SEED, else time-based; printed so a failure can be replayed. */
uint64_t mr_test_seed(void);
/* xorshift64* on a caller-held state. */
uint64_t mr_test_rand(uint64_t *state);
/* A fresh empty directory for this test (under $TMPDIR), removed by mr_test_done()
 * when every check passed. */
const char *mr_test_tmpdir(void);
/* Print the summary line and return the process exit code. */
int mr_test_done(const char *name);

#endif /* MR_TEST_H */
