// SPDX-License-Identifier: GPL-2.0
/*
 * bigmem.c - zeroed allocations for the arrays indexed by page id (folios, shadows, page
 * rows, per-page policy state). Replay touches them at random, so they are mapped on
 * their own and, where the kernel allows it (THP "madvise" mode), backed by huge pages:
 * the TLB misses of 4 KiB pages otherwise cost as much as the cache misses.
 */
#include <string.h>
#include <sys/mman.h>

#include "mr_util.h"

#define HUGE_SIZE (2u << 20)

static size_t round_huge(size_t n)
{
	return (n + HUGE_SIZE - 1) & ~(size_t)(HUGE_SIZE - 1);
}

/* n zeroed bytes, huge pages where the kernel allows them from byte huge_from on */
static void *map_zeroed(size_t n, size_t huge_from)
{
	void *p;

	if (!n)
		n = 1;
	p = mmap(NULL, round_huge(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	if (n >= huge_from + HUGE_SIZE)
		madvise((char *)p + huge_from, round_huge(n) - huge_from, MADV_HUGEPAGE);
#endif
#ifdef MADV_NOHUGEPAGE
	/* where THP is "always", the part before huge_from would get them anyway */
	if (huge_from)
		madvise(p, huge_from < round_huge(n) ? huge_from : round_huge(n), MADV_NOHUGEPAGE);
#endif
	return p;
}

void *mr_big_alloc(size_t n)
{
	return map_zeroed(n, 0);
}

/* huge pages only past the first one: a small user faults in (and the kernel zeroes)
 * the 4 KiB pages it takes, not a whole 2 MiB */
void *mr_big_alloc_pool(size_t n)
{
	return map_zeroed(n, HUGE_SIZE);
}

void mr_big_free(void *p, size_t n)
{
	if (p)
		munmap(p, round_huge(n ? n : 1));
}
