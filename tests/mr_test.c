// SPDX-License-Identifier: GPL-2.0
/* mr_test.c - the shared test harness (see mr_test.h). */
#include "mr_test.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int mr_test_failures;
int mr_test_checks;
static char tmpdir[512];

uint64_t mr_test_seed(void)
{
	const char *s = getenv("MR_TEST_SEED");
	uint64_t seed;
	struct timespec ts;

	if (s && *s) {
		seed = strtoull(s, NULL, 0);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
	}
	if (!seed)
		seed = 1;
	printf("seed: %llu (set MR_TEST_SEED=%llu to replay)\n", (unsigned long long)seed,
	       (unsigned long long)seed);
	return seed;
}

uint64_t mr_test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

const char *mr_test_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/mrtest.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(2);
	}
	return tmpdir;
}

int mr_test_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, mr_test_checks, mr_test_failures);
	if (tmpdir[0] && !mr_test_failures) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	return mr_test_failures ? 1 : 0;
}

static const char *case_name(const struct mr_test_case *c)
{
	return strncmp(c->name, "test_", 5) ? c->name : c->name + 5;
}

int mr_test_main(const char *suite, const struct mr_test_case *cases, size_t n, int argc,
		 char **argv)
{
	int ran = 0;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", case_name(&cases[i]));
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		int hit = 0;

		for (size_t i = 0; i < n; i++)
			hit |= fnmatch(argv[a], case_name(&cases[i]), 0) == 0;
		if (!hit) {
			fprintf(stderr, "%s: no case matches '%s' (--list names them)\n", suite,
				argv[a]);
			return 2;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int want = argc < 2;

		for (int a = 1; !want && a < argc; a++)
			want = fnmatch(argv[a], case_name(&cases[i]), 0) == 0;
		if (!want)
			continue;
		if (cases[i].fn)
			cases[i].fn();
		else
			cases[i].fn_arg(cases[i].arg);
		ran++;
	}
	printf("%s: %d case%s\n", suite, ran, ran == 1 ? "" : "s");
	return mr_test_done(suite);
}
