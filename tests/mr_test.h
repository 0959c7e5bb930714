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

/*
 * A test program's cases, to run one at a time: `test_mglru scenario_7` runs the case of
 * that name, `test_mglru 'scenario_*' s003_*` those matching a glob, `test_mglru` all,
 * `test_mglru --list` prints the names. A case named by MR_CASE(test_x) is "x"; one with
 * an argument (MR_CASE_ARG) is named as given. CMake registers each case as its own CTest
 * test `<area>.<case>` (mr_add_test_cases in tests/CMakeLists.txt), from these tables.
 */
struct mr_test_case {
	const char *name;
	void (*fn)(void);
	void (*fn_arg)(int);
	int arg;
};
#define MR_CASE(f) { #f, f, NULL, 0 }
#define MR_CASE_ARG(name, f, a) { name, NULL, f, a }
/* Run the cases argv selects (see above) and return mr_test_done(suite)'s exit code; 2
 * when an argument matches no case (a typo must not pass as "0 checks, 0 failed"). */
int mr_test_main(const char *suite, const struct mr_test_case *cases, size_t n, int argc,
		 char **argv);

#endif /* MR_TEST_H */
