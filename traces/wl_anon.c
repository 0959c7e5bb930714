// SPDX-License-Identifier: GPL-2.0
/*
 * wl_anon.c - test workload: touch N anonymous pages once each, in the known order
 * page (i * 7919) % N, then write "base n" to OUT so the recorder test can check that the
 * trace holds exactly those addresses in that order. THP is disabled on the mapping so
 * each page is its own fault. Optional DELAY_US sleeps between touches (for kill tests).
 *   wl_anon N OUT [DELAY_US]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long n, delay, psize = (unsigned long)sysconf(_SC_PAGESIZE);
	volatile char *p;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: wl_anon N OUT [DELAY_US]\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	n = strtoul(argv[1], NULL, 0);
	delay = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	p = mmap(NULL, n * psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise((void *)p, n * psize, MADV_NOHUGEPAGE);
	for (unsigned long i = 0; i < n; i++) {
		p[((i * 7919) % n) * psize] = 1;
		if (delay)
			usleep((useconds_t)delay);
	}
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %lu\n", (unsigned long)p, n);
	return fclose(f) ? 1 : 0;
}
