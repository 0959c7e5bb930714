// SPDX-License-Identifier: GPL-2.0
/*
 * wl_faultbench.c - the fault-bound workload of `memreplay bench record`: map N anonymous
 * pages (THP off, so every page is its own minor fault), write one byte to each in
 * address order, unmap. Nothing else: its run time is page faults, which is what a
 * fault-sampling recorder slows down. Deterministic; prints nothing.
 *   wl_faultbench N
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, psize = (unsigned long)sysconf(_SC_PAGESIZE);
	volatile char *p;
	char *end;

	if (argc < 2) {
		fprintf(stderr, "usage: wl_faultbench N\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the bench that started it */
	n = strtoul(argv[1], &end, 0);
	if (*end || !n) {
		fprintf(stderr, "wl_faultbench: bad page count '%s'\n", argv[1]);
		return 2;
	}
	p = mmap(NULL, n * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("wl_faultbench: mmap");
		return 1;
	}
	madvise((void *)p, n * psize, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		p[i * psize] = 1;
	munmap((void *)p, n * psize);
	return 0;
}
