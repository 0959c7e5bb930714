// SPDX-License-Identifier: GPL-2.0
/*
 * touch.c - the small program the shipped import samples were recorded from
 * (docs/import.md says how each was made).
 *
 *   touch PAGES PASSES [SECONDS]
 *
 * Maps PAGES anonymous pages, writes each once (a page fault each), then reads the
 * first quarter (the hot set) PASSES times, one word per page. With SECONDS, keeps
 * re-reading the hot set until that many seconds have passed, so that a sampling
 * monitor (DAMON) sees a hot region beside a cold one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 16, passes = argc > 2 ? atol(argv[2]) : 2;
	double secs = argc > 3 ? atof(argv[3]) : 0, t0 = now();
	volatile char *p;
	unsigned long sum = 0;

	if (pages < 4 || passes < 0) {
		fprintf(stderr, "usage: touch PAGES(>=4) PASSES [SECONDS]\n");
		return 2;
	}
	p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < pages; i++)
		p[i * 4096] = (char)i;
	do {
		for (long k = 0; k < passes; k++)
			for (long i = 0; i < pages / 4; i++)
				sum += p[i * 4096];
	} while (secs > 0 && now() - t0 < secs);
	return sum == 1; /* keeps the reads */
}
