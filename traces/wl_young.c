// SPDX-License-Identifier: GPL-2.0
/*
 * wl_young.c - test workload for young-bit scans with per-page ground truth: N pages,
 * each its own VMA (madvise NOHUGEPAGE on every other page splits the mapping), all
 * written, then after PAUSE_MS only pages i % 3 == 0 are read again, then PAUSE_MS more.
 * Since smaps is per VMA, a one-page VMA's Referenced is that page's young bit.
 * Writes "base n" to OUT.
 *   wl_young N PAUSE_MS OUT
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, pause_ms, psize = (unsigned long)sysconf(_SC_PAGESIZE);
	volatile char *p;
	unsigned long sum = 0;
	FILE *f;

	if (argc < 4)
		return 2;
	n = strtoul(argv[1], NULL, 0);
	pause_ms = strtoul(argv[2], NULL, 0);
	p = mmap(NULL, n * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (unsigned long i = 1; i < n; i += 2)
		madvise((void *)(p + i * psize), psize, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		p[i * psize] = 1;
	usleep((useconds_t)(pause_ms * 1000));
	for (unsigned long i = 0; i < n; i += 3)
		sum += (unsigned long)p[i * psize];
	usleep((useconds_t)(pause_ms * 1000));
	f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %lu %lu\n", (unsigned long)p, n, sum);
	return fclose(f) ? 1 : 0;
}
