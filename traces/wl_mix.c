// SPDX-License-Identifier: GPL-2.0
/*
 * wl_mix.c - workloads for the record -> replay loop on a real kernel
 * (scripts/kernel-loop.sh): what kernel-lab's memwalk does not do.
 *
 *   wl_mix mmap  PATH PASSES seq|rand SEED normal|random|sequential
 *       maps PATH shared read-only, madvise()s the whole mapping with the advice (none for
 *       normal) and reads one byte of every page per pass, in file order or in a fixed
 *       permutation from SEED. MADV_NOHUGEPAGE keeps THP out.
 *   wl_mix build PATH ROUNDS SEED
 *       a build-like mix: a long-lived anon heap (16 MiB, written once, an eighth of it
 *       touched every round, like make or a linker), and per round a "compiler" that
 *       pread()s a 2 MiB source slice of PATH, maps a 2 MiB header slice of PATH
 *       privately and reads it twice, writes a 12 MiB anon heap, reads half of it back
 *       and unmaps it. Slices come from SEED.
 *
 *   wl_mix write PATH MIB PASSES
 *       writes MIB MiB to PATH (created or truncated) with write() in 64 KiB chunks, no
 *       fsync (the flushers and reclaim write it back), then reads it back PASSES times
 *       with read() in 64 KiB chunks and unlinks it: dirty page cache under a memory limit.
 *   wl_mix cow PATH PASSES
 *       maps PATH privately read-write (MAP_PRIVATE), reads the first half of its pages,
 *       writes one byte of every page (copies on write: the read half through
 *       do_wp_page(), the other through do_cow_fault()), then reads every page PASSES
 *       times: anonymous memory the size of the file, backed by swap, not by the file.
 *
 * Deterministic for a given argument list; for mmap and build the file must exist and be
 * at least 8 MiB.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PG 4096ul

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static volatile uint64_t sink;

static int do_mmap(const char *path, int passes, const char *pat, uint64_t seed,
		   const char *advice)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	size_t n, *order;
	unsigned char *m;
	int adv;

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return 1;
	}
	if (!strcmp(advice, "normal"))
		adv = -1;
	else if (!strcmp(advice, "random"))
		adv = MADV_RANDOM;
	else if (!strcmp(advice, "sequential"))
		adv = MADV_SEQUENTIAL;
	else {
		fprintf(stderr, "wl_mix: advice %s: use normal, random or sequential\n", advice);
		return 2;
	}
	n = (size_t)st.st_size / PG;
	m = mmap(NULL, n * PG, PROT_READ, MAP_SHARED, fd, 0);
	order = malloc(n * sizeof(*order));
	if (m == MAP_FAILED || !order) {
		perror("wl_mix: mmap");
		return 1;
	}
	madvise(m, n * PG, MADV_NOHUGEPAGE);
	if (adv >= 0)
		madvise(m, n * PG, adv);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (!strcmp(pat, "rand"))
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = next(&seed) % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < n; i++)
			sink += m[order[i] * PG];
	printf("wl_mix mmap pages=%zu passes=%d pattern=%s advice=%s\n", n, passes, pat, advice);
	return 0;
}

static unsigned char *anon(size_t bytes)
{
	unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_NOHUGEPAGE);
	return p;
}

static int do_build(const char *path, int rounds, uint64_t seed)
{
	const size_t heap = 16u << 20, cc = 12u << 20, slice = 2u << 20;
	int fd = open(path, O_RDONLY);
	unsigned char *h, *buf = malloc(slice);
	struct stat st;
	size_t slices;

	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < 4 * slice || !buf) {
		fprintf(stderr, "wl_mix: %s: cannot read it, or smaller than 8 MiB\n", path);
		return 1;
	}
	slices = (size_t)st.st_size / slice;
	if (!(h = anon(heap)))
		return 1;
	for (size_t i = 0; i < heap; i += PG)
		h[i] = (unsigned char)i;
	for (int r = 0; r < rounds; r++) {
		off_t src = (off_t)(next(&seed) % slices * slice);
		off_t hdr = (off_t)(next(&seed) % slices * slice);
		unsigned char *c, *m;

		if (pread(fd, buf, slice, src) != (ssize_t)slice)
			return 1;
		m = mmap(NULL, slice, PROT_READ, MAP_PRIVATE, fd, hdr);
		if (m == MAP_FAILED)
			return 1;
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < slice; i += PG)
				sink += m[i];
		if (!(c = anon(cc)))
			return 1;
		for (size_t i = 0; i < cc; i += PG)
			c[i] = (unsigned char)(i ^ (size_t)r);
		for (size_t i = 0; i < cc; i += 2 * PG)
			sink += c[i];
		for (size_t i = 0; i < heap / PG / 8; i++)
			h[next(&seed) % (heap / PG) * PG] ^= 1;
		munmap(c, cc);
		munmap(m, slice);
	}
	printf("wl_mix build rounds=%d\n", rounds);
	return 0;
}

static int do_write(const char *path, int mib, int passes)
{
	const size_t chunk = 64u << 10, bytes = (size_t)mib << 20;
	unsigned char *buf = malloc(chunk);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || !buf || mib <= 0) {
		fprintf(stderr, "wl_mix: %s: cannot create it\n", path);
		return 1;
	}
	for (size_t off = 0; off < bytes; off += chunk) {
		for (size_t i = 0; i < chunk; i += PG)
			buf[i] = (unsigned char)((off + i) / PG);
		if (write(fd, buf, chunk) != (ssize_t)chunk) {
			fprintf(stderr, "wl_mix: %s: write failed (disk full?)\n", path);
			unlink(path);
			return 1;
		}
	}
	for (int p = 0; p < passes; p++) {
		ssize_t n;

		if (lseek(fd, 0, SEEK_SET) != 0)
			return 1;
		while ((n = read(fd, buf, chunk)) > 0)
			sink += buf[0];
	}
	close(fd);
	unlink(path);
	printf("wl_mix write %d MiB passes=%d\n", mib, passes);
	return 0;
}

static int do_cow(const char *path, int passes)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	unsigned char *m;
	size_t len, npg;

	if (fd < 0 || fstat(fd, &st) || st.st_size < (off_t)(8u << 20)) {
		fprintf(stderr, "wl_mix: %s: need a file of 8 MiB or more\n", path);
		return 1;
	}
	len = (size_t)st.st_size & ~(PG - 1);
	npg = len / PG;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 1;
	madvise(m, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < npg / 2; i++)
		sink += m[i * PG];
	for (size_t i = 0; i < npg; i++)
		m[i * PG] ^= 1;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < npg; i++)
			sink += m[i * PG];
	munmap(m, len);
	printf("wl_mix cow pages=%zu passes=%d\n", npg, passes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "mmap"))
		return do_mmap(argv[2], atoi(argv[3]), argv[4], strtoull(argv[5], NULL, 0),
			       argv[6]);
	if (argc == 5 && !strcmp(argv[1], "build"))
		return do_build(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "write"))
		return do_write(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "cow"))
		return do_cow(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: wl_mix mmap PATH PASSES seq|rand SEED normal|random|sequential\n"
			"       wl_mix build PATH ROUNDS SEED\n"
			"       wl_mix write PATH MIB PASSES\n"
			"       wl_mix cow PATH PASSES\n");
	return 2;
}
