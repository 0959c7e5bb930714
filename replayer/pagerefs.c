// SPDX-License-Identifier: GPL-2.0
/*
 * pagerefs.c - the sampled replay's page counts (sample.c, count_refs(): each trace
 * page's references and the slices of its first and last, one 64-bit word), kept per
 * trace in the cache directory (rp_cache.h; docs/replay.md, "The cache directory").
 * They depend on the trace alone, not on the rate, seed or unit, and counting them is
 * one more decode of every event (0.9 s of a 50M-event trace's 22 s sampled replay);
 * a sweep of sampled replays over one trace counts them once.
 *
 * The file, pagerefs-<identity hex>.mrpr, little-endian:
 *
 *   0    8  magic "MRPGREF1"
 *   8    4  version: the caller's (sample.c's PR_VERSION: RP_EVENT_REFS_VERSION in
 *           the low byte, the word's layout above), so that no file of an older
 *           build is used
 *   12   4  RP_SAMPLE_LIVE_BUCKETS (the slices a word names)
 *   16   4  pages of the trace (words)
 *   20   4  PR_BLOCK (words per CRC block)
 *   24   8  events of the trace (its chunks' count: the slices' bounds)
 *   32  80  trace identity ("sha256:..." of its chunk rows and table counts)
 *   112 12  zero
 *   124  4  CRC-32C of bytes 0..123
 *   128     the words, 8 bytes each
 *   then    one CRC-32C per block of PR_BLOCK words (the last block may be shorter)
 *
 * A file is used only if its header is the one this trace and build would write and
 * every block's CRC matches; otherwise it is removed and rebuilt. The words are read
 * whole before the choice begins, so no file can change under it. Nothing here fails
 * a replay: a directory that cannot be used or written only means the words are
 * counted, and the note says why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_codec.h"
#include "rp_cache.h"
#include "rp_int.h"

#define PR_HDR 128u
#define PR_MAGIC "MRPGREF1"
#define PR_BLOCK 65536u /* words per CRC block and per read or write: 512 KiB */
#define PR_FILE "the page-counts file" /* in read and write errors */

static uint64_t nblocks_of(uint32_t nr_pages)
{
	return ((uint64_t)nr_pages + PR_BLOCK - 1) / PR_BLOCK;
}

/* the words of block b (the last may be shorter) */
static uint64_t block_words(uint32_t nr_pages, uint64_t b)
{
	uint64_t left = nr_pages - b * PR_BLOCK;

	return left < PR_BLOCK ? left : PR_BLOCK;
}

static uint64_t file_size(uint32_t nr_pages)
{
	return PR_HDR + (uint64_t)nr_pages * 8 + nblocks_of(nr_pages) * 4;
}

static void make_header(uint8_t *h, const struct rp_image *t, uint32_t version)
{
	memset(h, 0, PR_HDR);
	memcpy(h, PR_MAGIC, 8);
	rp_put32(h + 8, version);
	rp_put32(h + 12, RP_SAMPLE_LIVE_BUCKETS);
	rp_put32(h + 16, t->nr_pages);
	rp_put32(h + 20, PR_BLOCK);
	rp_put64(h + 24, t->n_events);
	snprintf((char *)h + 32, 80, "%s", t->identity);
	rp_put32(h + 124, mr_crc32c(0, h, 124));
}

/* The words from a cached file of size bytes: 0, or -1 when it is not this trace's
 * and build's or is damaged (words then hold anything). buf: PR_BLOCK * 8 bytes. */
static int read_words(int fd, uint64_t size, const struct rp_image *t, uint32_t version,
		      uint64_t *words, uint8_t *buf)
{
	uint8_t h[PR_HDR], want[PR_HDR];
	uint64_t nblocks = nblocks_of(t->nr_pages);
	uint64_t crc_at = PR_HDR + (uint64_t)t->nr_pages * 8;
	struct mr_error e = { 0 };

	/* every field of the header is known: the one this trace and build would write */
	make_header(want, t, version);
	if (size != file_size(t->nr_pages) ||
	    rp_cache_read_all(fd, h, PR_HDR, 0, PR_FILE, &e) || memcmp(h, want, PR_HDR))
		return -1;
	for (uint64_t b = 0; b < nblocks; b++) {
		uint64_t lo = b * PR_BLOCK, n = block_words(t->nr_pages, b);
		uint8_t c[4];

		if (rp_cache_read_all(fd, c, 4, (off_t)(crc_at + 4 * b), PR_FILE, &e) ||
		    rp_cache_read_all(fd, buf, n * 8, (off_t)(PR_HDR + lo * 8), PR_FILE, &e) ||
		    mr_crc32c(0, buf, n * 8) != rp_get32(c))
			return -1;
		for (uint64_t i = 0; i < n; i++)
			words[lo + i] = rp_get64(buf + 8 * i);
	}
	return 0;
}

/* The words, their CRCs, then the header into a new file fd. buf: PR_BLOCK * 8 bytes. */
static int write_words(int fd, const struct rp_image *t, uint32_t version,
		       const uint64_t *words, uint8_t *buf, struct mr_error *err)
{
	uint64_t nblocks = nblocks_of(t->nr_pages);
	uint64_t crc_at = PR_HDR + (uint64_t)t->nr_pages * 8;
	uint8_t h[PR_HDR];
	int rc = 0;

	for (uint64_t b = 0; b < nblocks && !rc; b++) {
		uint64_t lo = b * PR_BLOCK, n = block_words(t->nr_pages, b);
		uint8_t c[4];

		for (uint64_t i = 0; i < n; i++)
			rp_put64(buf + 8 * i, words[lo + i]);
		rp_put32(c, mr_crc32c(0, buf, n * 8));
		rc = rp_cache_write_all(fd, buf, n * 8, (off_t)(PR_HDR + lo * 8), PR_FILE, err);
		if (!rc)
			rc = rp_cache_write_all(fd, c, 4, (off_t)(crc_at + 4 * b), PR_FILE,
						err);
	}
	if (!rc) {
		make_header(h, t, version);
		rc = rp_cache_write_all(fd, h, PR_HDR, 0, PR_FILE, err);
	}
	return rc;
}

int rp_pagerefs_get(const struct rp_image *t, const char *cache_dir, uint32_t version,
		    uint64_t *words,
		    int (*count)(const struct rp_image *t, uint64_t *words, struct mr_error *err),
		    struct rp_cache_info *info, struct mr_error *err)
{
	char name[128], tmp[128], distrusted[200] = "";
	struct mr_error e = { 0 };
	uint8_t *buf = NULL;
	uint64_t size;
	int dfd = -1, fd, cached, rc;

	memset(info, 0, sizeof(*info));
	if (cache_dir && *cache_dir)
		dfd = rp_cache_dir_open(cache_dir, info->why, sizeof(info->why));
	if (dfd >= 0 && !(buf = malloc((size_t)PR_BLOCK * 8))) {
		snprintf(info->why, sizeof(info->why), "out of memory");
		close(dfd);
		dfd = -1;
	}
	if (dfd < 0)
		return count(t, words, err); /* UNCACHED, why set (empty: no directory) */

	rp_cache_name(RP_CACHE_PAGEREFS, t->identity, name, sizeof(name));
	cached = rp_cache_entry_open(dfd, name, &fd, &size, distrusted, sizeof(distrusted));
	if (!cached) {
		cached = read_words(fd, size, t, version, words, buf);
		if (!cached)
			rp_cache_touch(fd);
		close(fd);
	}
	if (!cached) {
		info->cache = RP_CACHE_HIT;
		snprintf(info->path, sizeof(info->path), "%s/%s", cache_dir, name);
		rc = 0;
		goto out;
	}
	if (cached == -1) {
		unlinkat(dfd, name, 0); /* another build's or damaged: rebuilt below */
		/* count() starts from zeros, and the read may have stopped midway */
		memset(words, 0, (size_t)t->nr_pages * sizeof(*words));
	}
	/* one not trusted is never read; the complete new file is renamed over it */
	info->cache = cached < 0 ? RP_CACHE_REBUILT : RP_CACHE_BUILT;
	if (cached == -2)
		snprintf(info->why, sizeof(info->why), "the file there was %s: not trusted, replaced",
			 distrusted);
	rc = count(t, words, err);
	if (rc)
		goto out;
	/* build under a temporary name in the same directory, then rename */
	fd = rp_cache_tmp_create(dfd, RP_CACHE_PAGEREFS, tmp, sizeof(tmp));
	if (fd < 0) {
		snprintf(info->why, sizeof(info->why), "cannot write to %s: %s", cache_dir,
			 strerror(errno));
	} else {
		int wrc = write_words(fd, t, version, words, buf, &e), saved;

		close(fd);
		if (!wrc && !rp_cache_commit(dfd, tmp, name)) {
			snprintf(info->path, sizeof(info->path), "%s/%s", cache_dir, name);
			info->bytes = file_size(t->nr_pages);
			goto out;
		}
		/* the cache directory is full or failing: the words are counted, not kept */
		saved = errno;
		unlinkat(dfd, tmp, 0);
		snprintf(info->why, sizeof(info->why), "%s", wrc ? e.msg : strerror(saved));
	}
	info->cache = RP_CACHE_UNCACHED;
out:
	free(buf);
	close(dfd);
	return rc;
}
