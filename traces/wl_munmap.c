// SPDX-License-Identifier: GPL-2.0
/*
 * wl_munmap.c - test workload for munmap: map N anonymous pages (THP off), touch every
 * page, munmap the middle third [N/3, 2N/3) (the kernel splits the VMA in two), then touch
 * one page of a second mapping (a fault after the munmap, to place it in time), and write
 * "base n mark" to OUT.
 *   wl_munmap N OUT
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, psize = (unsigned long)sysconf(_SC_PAGESIZE);
	volatile char *p, *mark;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: wl_munmap N OUT\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	if (n < 3)
		return 2;
	p = mmap(NULL, n * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mark = mmap(NULL, psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mark == MAP_FAILED)
		return 1;
	madvise((void *)p, n * psize, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		p[i * psize] = 1;
	if (munmap((void *)(p + n / 3 * psize), (2 * n / 3 - n / 3) * psize))
		return 1;
	mark[0] = 1;
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %lu %lx\n", (unsigned long)p, n, (unsigned long)mark);
	return fclose(f) ? 1 : 0;
}
