// SPDX-License-Identifier: GPL-2.0
/*
 * wl_swap.c - test workload: write N anonymous pages (each its own nonzero contents, so
 * that swap-out really writes them), then read them all again and check the contents,
 * then write "base n" to OUT. Run in a memory cgroup smaller than N pages, the first pass
 * swaps pages out and the second swaps them back in (anon refaults). ORDER of the second
 * pass: "scatter" (default) is page (i * 7919) % N, whose faults are not next to each
 * other (swap readahead's window mostly stays 1: mm/swap_state.c:__swapin_nr_pages());
 * "seq" goes up page by page, which makes swap readahead read neighbours. THP is off on
 * the mapping so every page is its own fault.
 *   wl_swap N OUT [scatter|seq]
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, psize = (unsigned long)sysconf(_SC_PAGESIZE), bad = 0;
	volatile unsigned long *p;
	int seq;
	FILE *f;

	if (argc < 3 || (argc > 3 && strcmp(argv[3], "seq") && strcmp(argv[3], "scatter"))) {
		fprintf(stderr, "usage: wl_swap N OUT [scatter|seq]\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	n = strtoul(argv[1], NULL, 0);
	seq = argc > 3 && !strcmp(argv[3], "seq");
	if (!n)
		return 2;
	p = mmap(NULL, n * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise((void *)p, n * psize, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++)
		p[i * psize / sizeof(*p)] = i + 1;
	for (unsigned long i = 0; i < n; i++) {
		unsigned long pg = seq ? i : (i * 7919) % n;

		bad += p[pg * psize / sizeof(*p)] != pg + 1;
	}
	if (bad) {
		fprintf(stderr, "wl_swap: %lu pages read back wrong\n", bad);
		return 1;
	}
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %lu\n", (unsigned long)p, n);
	return fclose(f) ? 1 : 0;
}
