// SPDX-License-Identifier: GPL-2.0
/*
 * wl_rw.c - test workload for the fault R/W bit: map 2N anonymous pages (THP off), read
 * pages [0, N) (each maps the zero page: a read fault), then write pages [N, 2N) (each a
 * write fault), and write "base n" to OUT.
 *   wl_rw N OUT
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, psize = (unsigned long)sysconf(_SC_PAGESIZE);
	volatile char *p;
	unsigned sum = 0;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: wl_rw N OUT\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	p = mmap(NULL, 2 * n * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise((void *)p, 2 * n * psize, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		sum += (unsigned)p[i * psize];
	for (unsigned long i = n; i < 2 * n; i++)
		p[i * psize] = 1;
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %lu %u\n", (unsigned long)p, n, sum);
	return fclose(f) ? 1 : 0;
}
