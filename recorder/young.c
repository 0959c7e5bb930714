// SPDX-License-Identifier: GPL-2.0
/*
 * young.c - periodic scanners: young bits through clear_refs + smaps, and the NUMA node
 * of sampled anon pages through move_pages(2).
 *
 * What a young scan event means (this host has no page_idle and no usable DAMON vaddr):
 * every interval, for each live recorded process, /proc/PID/smaps gives per VMA the
 * resident size (Rss) and how much of it had the young bit set since the previous scan
 * (Referenced; clear_refs "1" cleared the bits and "4" flushed the TLB so that they are
 * set again on the next access). smaps is per VMA, not per page, so:
 *   - Referenced == Rss > 0: every resident page was accessed -> one ACCESS (source young)
 *     per resident page (residency from /proc/PID/pagemap): exact;
 *   - 0 < Referenced < Rss: some unknown subset was accessed -> no per-page event; the VMA
 *     is counted in meta young.partial_vmas (no guessing);
 *   - Referenced == 0: nothing;
 *   - a fully referenced VMA spanning more than 16 GiB is not walked (young.skipped_vmas).
 * Each scan is bracketed by SCAN_BEGIN/SCAN_END (arg = scan number, SCAN_END size = pages
 * emitted, flags = MR_SCAN_CLEAR_REFS). Writing clear_refs "1" also clears the kernel's
 * referenced state (PTE young bits, PG_referenced, PG_young: fs/proc/task_mmu.c,
 * clear_refs_pte_range()), which reclaim reads: on kernel-lab's rand walk pgactivate went
 * from 26-48 thousand to 0-1 with these scans on (docs/validation.md). So this is not the
 * default.
 *
 * The default (MR_YOUNG_SOFT_DIRTY) writes only "4" (CLEAR_REFS_SOFT_DIRTY): the kernel
 * clears the soft-dirty bit and write-protects each present PTE and `continue`s before
 * the young-bit code, so reclaim's view is untouched. The next write to such a page takes
 * a write-protect fault (do_wp_page), which is an ordinary minor fault sample with the
 * write bit from exceptions:page_fault_user: writes to resident pages are recorded at
 * most once per page and interval, with nothing to scan. Each interval is bracketed by
 * SCAN_BEGIN/SCAN_END with flags MR_SCAN_SOFT_DIRTY and size 0. Reads of resident pages
 * are not seen (no page_idle in Debian's kernels; DAMON vaddr is not used).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_int.h"

#define PM_PRESENT (1ull << 63)
#define PM_SWAP (1ull << 62)
#define PM_FILE (1ull << 61) /* file page or shared anon (Documentation/admin-guide/mm/pagemap.rst) */
#define NUMA_BATCH 4096
/* Fully referenced VMAs larger than this (16 GiB of address space: sanitizer shadow,
 * sparse reservations) are not walked through pagemap; counted in young.skipped_vmas. */
#define MAX_VMA_PAGES (1ull << 22)

static void clear_refs(int32_t pid, int soft_dirty_only)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/clear_refs", pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if ((!soft_dirty_only && write(fd, "1", 1) < 0) || write(fd, "4", 1) < 0) {
		/* process gone or no permission: nothing to scan next time */
	}
	close(fd);
}

static int emit_vma(struct rec *r, int pmfd, uint32_t mm, uint64_t start, uint64_t end,
		    uint64_t rss_pages, uint64_t t, uint32_t *count)
{
	uint64_t buf[512], found = 0;
	uint64_t vp = start >> r->pshift, vend = end >> r->pshift;
	int rc;

	while (vp < vend && found < rss_pages) {
		size_t n = vend - vp < 512 ? (size_t)(vend - vp) : 512;
		ssize_t got = pread(pmfd, buf, n * 8, (off_t)(vp * 8));

		if (got <= 0)
			return 0;
		n = (size_t)got / 8;
		for (size_t i = 0; i < n; i++) {
			uint64_t addr = (vp + i) << r->pshift;
			const struct rec_vma *v;
			struct mr_event ev;
			uint32_t page;

			if (!(buf[i] & PM_PRESENT))
				continue;
			found++;
			v = rec_vma_find(&r->mms[mm], addr);
			/* pagemap without PM_FILE in a private file mapping: a copy written
			 * since (COW), also when its write fault was not seen */
			page = rec_addr_page(r, mm, v, addr, !(buf[i] & PM_FILE));
			if (page == MR_PAGE_NONE)
				continue;
			ev = (struct mr_event){ .time = t, .kind = MR_EV_ACCESS, .page = page,
						.flags = MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_YOUNG) };
			if ((rc = rec_emit(r, r->young_stream, &r->young_last, &ev)))
				return rc;
			(*count)++;
		}
		vp += n;
	}
	return 0;
}

static int scan_mm(struct rec *r, uint32_t mm, uint64_t t, uint32_t *count)
{
	char path[64], line[512];
	unsigned long long start = 0, end = 0, rss = 0, ref = 0, kb;
	int32_t pid = r->mms[mm].tgid;
	int have = 0, rc = 0, pmfd;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", pid);
	f = fopen(path, "re");
	if (!f) {
		r->mms[mm].alive = 0;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	pmfd = open(path, O_RDONLY | O_CLOEXEC);
	while (!rc) {
		int eof = !fgets(line, sizeof(line), f);
		unsigned long long s, e;

		if (eof || sscanf(line, "%llx-%llx ", &s, &e) == 2) {
			/* the previous VMA is complete */
			if (have && ref && ref == rss && pmfd >= 0 &&
			    (end - start) >> r->pshift > MAX_VMA_PAGES)
				r->young_skipped++;
			else if (have && ref && ref == rss && pmfd >= 0)
				rc = emit_vma(r, pmfd, mm, start, end,
					      rss * 1024 / (uint64_t)r->psize, t, count);
			else if (have && ref)
				r->young_partial++;
			if (eof)
				break;
			start = s;
			end = e;
			rss = ref = 0;
			have = 1;
		} else if (sscanf(line, "Rss: %llu kB", &kb) == 1) {
			rss = kb;
		} else if (sscanf(line, "Referenced: %llu kB", &kb) == 1) {
			ref = kb;
		}
	}
	fclose(f);
	if (pmfd >= 0)
		close(pmfd);
	return rc;
}

/* mm is its process's current address space (an exec replaced the older ones). */
static int latest_mm(struct rec *r, uint32_t mm)
{
	int found;
	struct rec_hent *h = rec_htab_slot(&r->mm_ix, (uint64_t)(uint32_t)r->mms[mm].tgid, 0,
					   &found);

	return h && found && h->val == mm;
}

int rec_young_scan(struct rec *r, uint64_t t)
{
	int sd = r->young_soft_dirty;
	struct mr_event ev = { .time = t, .page = MR_PAGE_NONE,
			       .flags = sd ? MR_SCAN_SOFT_DIRTY : MR_SCAN_CLEAR_REFS };
	uint32_t count = 0;
	int rc;

	if (t) { /* the first call only clears: no interval has passed yet */
		ev.kind = MR_EV_SCAN_BEGIN;
		ev.arg = ++r->young_seq;
		if ((rc = rec_emit(r, r->young_stream, &r->young_last, &ev)))
			return rc;
		for (uint32_t mm = 1; mm < r->nmms && !sd; mm++) {
			/* An address space never cleared (a fresh exec) has every page it
			 * touched young: those touches are its faults, already recorded. */
			if (!r->mms[mm].alive || r->mms[mm].tgid <= 0 ||
			    r->mms[mm].tgid == getpid() || !latest_mm(r, mm) ||
			    !r->mms[mm].young_cleared)
				continue;
			if ((rc = scan_mm(r, mm, t, &count)))
				return rc;
		}
		ev.kind = MR_EV_SCAN_END;
		ev.size = count;
		ev.time = t;
		if ((rc = rec_emit(r, r->young_stream, &r->young_last, &ev)))
			return rc;
	}
	/* An exec'd process has a newer mm with the same tgid: clear each pid once. */
	for (uint32_t mm = 1; mm < r->nmms; mm++)
		if (r->mms[mm].alive && r->mms[mm].tgid > 0 && r->mms[mm].tgid != getpid() &&
		    latest_mm(r, mm)) {
			clear_refs(r->mms[mm].tgid, sd);
			r->mms[mm].young_cleared = 1;
		}
	return 0;
}

/* Node of up to NUMA_BATCH anon pages, round-robin over the page table; rows updated. */
void rec_numa_sample(struct rec *r)
{
	void *addrs[NUMA_BATCH];
	uint32_t which[NUMA_BATCH];
	int status[NUMA_BATCH];
	uint32_t n = 0, mm = 0;

	if (!r->npages || r->o->anonymize) /* anonymised pages keep no address */
		return;
	for (uint32_t k = 0; k < r->npages && n < NUMA_BATCH; k++) {
		uint32_t id = (uint32_t)((r->numa_cursor + k) % r->npages);
		const struct mr_page *p = &r->pages[id];

		if (p->type != MR_PAGE_ANON || !p->mm || p->mm >= r->nmms ||
		    !r->mms[p->mm].alive)
			continue;
		if (n && p->mm != mm)
			continue; /* one process per call */
		mm = p->mm;
		addrs[n] = (void *)(uintptr_t)(p->vpage << r->pshift);
		which[n++] = id;
	}
	r->numa_cursor += NUMA_BATCH;
	if (!n)
		return;
	if (move_pages(r->mms[mm].tgid, n, addrs, NULL, status, 0) != 0)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct mr_page *p = &r->pages[which[i]];

		if (status[i] >= 0 && p->node != status[i]) {
			p->node = (int16_t)status[i];
			mr_writer_add_page(r->w, p);
		}
	}
}
