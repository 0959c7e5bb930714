// SPDX-License-Identifier: GPL-2.0
/*
 * wl_advise.c - test workload for soft-dirty write tracking and madvise: N anon pages,
 * all written; after PAUSE_MS the pages i % 3 == 0 are written again and, after another
 * PAUSE_MS, the pages i % 3 == 1 read; then the middle third gets MADV_RANDOM and the
 * last third MADV_DONTNEED, and after a last PAUSE_MS the workload reads the Referenced
 * kB of its mapping from /proc/self/smaps (nothing but the host's own reclaim, of which
 * there is none at this size, should have cleared a young bit). Writes
 * "base n referenced_kb" to OUT.
 *   wl_advise N PAUSE_MS OUT
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static unsigned long referenced_kb(unsigned long lo, unsigned long hi)
{
	char line[512];
	unsigned long s, e, kb, sum = 0;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2)
			in = s >= lo && e <= hi;
		else if (in && sscanf(line, "Referenced: %lu kB", &kb) == 1)
			sum += kb;
	}
	fclose(f);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned long n, pause_ms, psize = (unsigned long)sysconf(_SC_PAGESIZE), third;
	volatile char *p;
	unsigned long sum = 0;
	FILE *f;

	if (argc < 4)
		return 2;
	n = strtoul(argv[1], NULL, 0);
	pause_ms = strtoul(argv[2], NULL, 0);
	third = n / 3;
	p = mmap(NULL, n * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise((void *)p, n * psize, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		p[i * psize] = 1;
	usleep(pause_ms * 1000);
	for (unsigned long i = 0; i < n; i += 3)
		p[i * psize] = 2;
	usleep(pause_ms * 1000);
	for (unsigned long i = 1; i < n; i += 3)
		sum += (unsigned long)p[i * psize];
	if (madvise((void *)(p + third * psize), third * psize, MADV_RANDOM) ||
	    madvise((void *)(p + 2 * third * psize), (n - 2 * third) * psize, MADV_DONTNEED))
		return 1;
	usleep(pause_ms * 1000);
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %lu %lu\n", (unsigned long)p, n,
		referenced_kb((unsigned long)p, (unsigned long)p + n * psize));
	fclose(f);
	return sum == 0;
}
