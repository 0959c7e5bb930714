// SPDX-License-Identifier: GPL-2.0
/*
 * nextuse.c - for policies that see every access (opt): the trace position of the next
 * reference to the page at each reference, computed once per trace, in bounded memory,
 * and kept in a cache so that the next replay of the same trace (another memory size,
 * the usual sweep) does not pay for it again.
 *
 * What a reference's value is: the position of the page's next reference of any kind,
 * a use (ACCESS, a page of FD_ACCESS) or an insertion (a page of READAHEAD/PC_INSERT).
 * An insertion is not a use, but it costs a miss exactly when the page is not resident
 * then (the replay inserts what the host inserted: the insertions are forced), and
 * costs nothing when it is, like a use. So, for the count of misses, the two are the
 * same kind of request, and MIN must rank a page by whichever comes first: a page the
 * recorded readahead brings in again next, before its next use, costs a miss there if
 * it was evicted (docs/replay.md, "What opt minimises").
 *
 * Pass 1 reads the trace forward and writes one u32 per reference to temp file A: the
 * page id. Pass 2 reads A backwards block by block, keeping the position of the last
 * reference seen per page (8 bytes per distinct page), and writes each reference's
 * next-reference position to file B at that reference's own offset, so B reads forward
 * in lockstep with the replay. Positions are u32 when the trace has fewer than 2^32 - 1
 * references (u64 otherwise); "never" is the all-ones value, returned to callers as
 * UINT64_MAX. A is unlinked at creation.
 *
 * File B (docs/replay.md, "The cache directory"), little-endian:
 *
 *   0    8  magic "MRNEXTU1"
 *   8    4  NU_VERSION: RP_EVENT_REFS_VERSION (what a reference is) in the low byte,
 *           this file's own version above it (bump it when what a value means
 *           changes), so that no cache made by an older build is used
 *   12   4  element size (4 or 8)
 *   16   4  pages of the trace
 *   20   4  nu_block (references per block)
 *   24   8  references
 *   32  80  trace identity ("sha256:..." of its chunk rows and table counts)
 *   112 12  zero
 *   124  4  CRC-32C of bytes 0..123
 *   128     the next-use values, one per reference
 *   then    one CRC-32C per block of nu_block values (the last block may be shorter)
 *
 * With a cache directory, B is built there under a temporary name and renamed to
 * nextuse-<identity hex>.mrnu when complete, so a crash or a concurrent replay never
 * sees half a file. A cached file is used only if its header names this trace and
 * build and every block's CRC matches (checked when it is opened, and again as each
 * block is read); otherwise it is removed and rebuilt. The directory's trust rules,
 * temporary names and pruning are cache.c's (rp_cache.h), shared with the sampling
 * pre-pass's file. Without one (or when it cannot be written) B is a temporary file in
 * tmpdir, unlinked at creation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_codec.h"
#include "rp_cache.h"
#include "rp_int.h"

/* references per block in pass 2, per read and per CRC; smaller only in tests */
static uint32_t nu_block = 1u << 20;
#define NU_BATCH 65536
/* the file's version: what a reference is (rp_int.h) in the low byte, what this file's
 * values mean above it (0 so far) */
#define NU_VERSION (RP_EVENT_REFS_VERSION | 0u << 8)
#define NU_HDR 128u
#define NU_MAGIC "MRNEXTU1"
#define NU_FILE "the next-use file" /* in read and write errors */

struct rp_nextuse {
	int fd;           /* file B */
	unsigned es;      /* 4 or 8 */
	uint64_t total;   /* references */
	uint64_t pos;     /* next reference to hand out */
	uint8_t *buf;     /* nu_block elements */
	uint64_t buf_lo, buf_n;
	uint32_t *crc;    /* per block */
	uint64_t nblocks;
	struct rp_cache_info info;
};

static int temp_file(const char *dir, struct mr_error *err, int *fd)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/memreplay-nextuse.XXXXXX", dir && *dir ? dir : "/tmp");
	*fd = mkstemp(path);
	if (*fd < 0)
		return mr_error_set(err, MR_EIO, "cannot create a temporary file in %s for next-use times: %s (set --tmpdir)",
				    dir && *dir ? dir : "/tmp", strerror(errno));
	unlink(path);
	return 0;
}

static uint64_t nblocks_of(uint64_t total)
{
	return (total + nu_block - 1) / nu_block;
}

/* Pass 1: references to file A. */
static int pass_forward(const char *trace, uint32_t nr_pages, int fd, uint64_t *total,
			struct mr_error *err)
{
	struct rp_source *src = NULL;
	struct mr_event *ev = malloc(NU_BATCH * sizeof(*ev));
	uint32_t *out = malloc(nu_block * sizeof(*out));
	size_t nout = 0, n;
	uint64_t refs = 0;
	int rc;

	if (!ev || !out) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	rc = rp_source_open(trace, &src, err);
	while (!rc) {
		rc = rp_source_read(src, ev, NU_BATCH, &n, err);
		if (rc || !n)
			break;
		for (size_t i = 0; i < n && !rc; i++) {
			uint32_t first;
			uint64_t k = rp_event_refs(&ev[i], nr_pages, &first);
			for (uint64_t j = 0; j < k; j++) {
				out[nout++] = first + (uint32_t)j;
				if (nout == nu_block) {
					rc = rp_cache_write_all(fd, out, nout * sizeof(*out), -1,
								NU_FILE, err);
					nout = 0;
					if (rc)
						break;
				}
			}
			refs += k;
		}
	}
	if (!rc && nout)
		rc = rp_cache_write_all(fd, out, nout * sizeof(*out), -1, NU_FILE, err);
	*total = refs;
out:
	rp_source_close(src);
	free(ev);
	free(out);
	return rc;
}

/*
 * Pass 2: file A backwards to file B's values, one block at a time. Blocks are aligned
 * to multiples of nu_block from the start (the last, partial one is done first), so each
 * written block is one CRC block and one read block.
 */
static int pass_backward(int fa, struct rp_nextuse *nu, uint32_t nr_pages, struct mr_error *err)
{
	uint64_t *last = malloc(((size_t)nr_pages + 1) * sizeof(*last));
	uint32_t *in = malloc(nu_block * sizeof(*in));
	uint8_t *out = malloc((size_t)nu_block * nu->es);
	uint64_t hi = nu->total;
	unsigned es = nu->es;
	int rc = 0;

	if (!last || !in || !out) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for next-use times (%u pages)", nr_pages);
		goto out;
	}
	memset(last, 0xff, ((size_t)nr_pages + 1) * sizeof(*last));
	while (hi > 0 && !rc) {
		uint64_t lo = (hi - 1) / nu_block * nu_block, n = hi - lo;

		rc = rp_cache_read_all(fa, in, n * sizeof(*in), (off_t)(lo * sizeof(*in)), NU_FILE,
				       err);
		if (rc)
			break;
		for (uint64_t i = n; i-- > 0;) {
			uint32_t page = in[i];
			uint64_t v = last[page];

			if (es == 4) {
				uint32_t v32 = v == UINT64_MAX ? UINT32_MAX : (uint32_t)v;

				memcpy(out + i * 4, &v32, 4);
			} else {
				memcpy(out + i * 8, &v, 8);
			}
			last[page] = lo + i; /* a use or an insertion: see the header */
		}
		nu->crc[lo / nu_block] = mr_crc32c(0, out, n * es);
		rc = rp_cache_write_all(nu->fd, out, n * es, (off_t)(NU_HDR + lo * es), NU_FILE,
					err);
		hi = lo;
	}
out:
	free(last);
	free(in);
	free(out);
	return rc;
}

static void make_header(uint8_t *h, const struct rp_nextuse *nu, uint32_t nr_pages,
			const char *identity)
{
	memset(h, 0, NU_HDR);
	memcpy(h, NU_MAGIC, 8);
	rp_put32(h + 8, NU_VERSION);
	rp_put32(h + 12, nu->es);
	rp_put32(h + 16, nr_pages);
	rp_put32(h + 20, nu_block);
	rp_put64(h + 24, nu->total);
	snprintf((char *)h + 32, 80, "%s", identity);
	rp_put32(h + 124, mr_crc32c(0, h, 124));
}

/* Build B into nu->fd (created by the caller): both passes, the CRCs, the header. */
static int build(struct rp_nextuse *nu, const char *trace_path, uint32_t nr_pages,
		 const char *identity, const char *tmpdir, struct mr_error *err)
{
	uint8_t h[NU_HDR];
	uint8_t *tr = NULL;
	int fa = -1, rc;

	rc = temp_file(tmpdir, err, &fa);
	if (!rc)
		rc = pass_forward(trace_path, nr_pages, fa, &nu->total, err);
	if (!rc) {
		nu->es = nu->total < UINT32_MAX ? 4 : 8;
		nu->nblocks = nblocks_of(nu->total);
		nu->crc = calloc(nu->nblocks ? nu->nblocks : 1, sizeof(*nu->crc));
		tr = malloc((nu->nblocks ? nu->nblocks : 1) * 4);
		if (!nu->crc || !tr)
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
	}
	if (!rc)
		rc = pass_backward(fa, nu, nr_pages, err);
	if (fa >= 0)
		close(fa);
	if (!rc) {
		for (uint64_t b = 0; b < nu->nblocks; b++)
			rp_put32(tr + 4 * b, nu->crc[b]);
		rc = rp_cache_write_all(nu->fd, tr, nu->nblocks * 4,
					(off_t)(NU_HDR + nu->total * nu->es), NU_FILE, err);
	}
	if (!rc) {
		make_header(h, nu, nr_pages, identity);
		rc = rp_cache_write_all(nu->fd, h, NU_HDR, 0, NU_FILE, err);
	}
	free(tr);
	return rc;
}

/*
 * Open a cached B (name in directory dfd) and check it against the trace: who may have
 * written it (rp_cache_entry_open(): next-use values decide what opt evicts), header,
 * size, and every block's CRC. Returns 0 when it can be used; 1 when there is none; -1
 * when there is one but it is not this trace's or is damaged; -2 when it is not to be
 * trusted (why says how). The caller replaces both kinds.
 */
static int open_cached(struct rp_nextuse *nu, int dfd, const char *name, uint32_t nr_pages,
		       const char *identity, char *why, size_t why_cap)
{
	uint8_t h[NU_HDR];
	struct mr_error e = { 0 };
	uint64_t size;
	uint8_t *tr = NULL;
	int fd, rc = rp_cache_entry_open(dfd, name, &fd, &size, why, why_cap);

	if (rc)
		return rc;
	if (rp_cache_read_all(fd, h, NU_HDR, 0, NU_FILE, &e) || memcmp(h, NU_MAGIC, 8) ||
	    rp_get32(h + 124) != mr_crc32c(0, h, 124) || rp_get32(h + 8) != NU_VERSION ||
	    rp_get32(h + 16) != nr_pages || rp_get32(h + 20) != nu_block ||
	    (rp_get32(h + 12) != 4 && rp_get32(h + 12) != 8) ||
	    strncmp((const char *)h + 32, identity, 80))
		goto bad;
	nu->es = rp_get32(h + 12);
	nu->total = rp_get64(h + 24);
	if (nu->total > ((uint64_t)1 << 40) || (nu->es == 4) != (nu->total < UINT32_MAX))
		goto bad;
	nu->nblocks = nblocks_of(nu->total);
	if (size != NU_HDR + nu->total * nu->es + nu->nblocks * 4)
		goto bad;
	nu->crc = calloc(nu->nblocks ? nu->nblocks : 1, sizeof(*nu->crc));
	tr = malloc((nu->nblocks ? nu->nblocks : 1) * 4);
	if (!nu->crc || !tr ||
	    rp_cache_read_all(fd, tr, nu->nblocks * 4, (off_t)(NU_HDR + nu->total * nu->es), NU_FILE,
			      &e))
		goto bad;
	for (uint64_t b = 0; b < nu->nblocks; b++) {
		uint64_t n = nu->total - b * nu_block < nu_block ? nu->total - b * nu_block : nu_block;

		nu->crc[b] = rp_get32(tr + 4 * b);
		if (rp_cache_read_all(fd, nu->buf, n * nu->es,
				      (off_t)(NU_HDR + b * nu_block * nu->es), NU_FILE, &e) ||
		    mr_crc32c(0, nu->buf, n * nu->es) != nu->crc[b])
			goto bad;
	}
	free(tr);
	rp_cache_touch(fd);
	nu->fd = fd;
	return 0;
bad:
	free(tr);
	free(nu->crc);
	nu->crc = NULL;
	close(fd);
	return -1;
}

int rp_nextuse_build(const char *trace_path, uint32_t nr_pages, const char *identity,
		     const char *cache_dir, const char *tmpdir, struct rp_nextuse **out,
		     struct mr_error *err)
{
	struct rp_nextuse *nu;
	char name[128], path[1200], tmp[128];
	int rc, cached = -1, dfd = -1;

	*out = NULL;
	if (nr_pages >= 0x80000000u)
		return mr_error_set(err, MR_ERANGE, "next-use times support at most 2^31 pages (the trace has %u)",
				    nr_pages);
	nu = calloc(1, sizeof(*nu));
	if (!nu)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	nu->fd = -1;
	nu->buf = malloc((size_t)nu_block * 8);
	if (!nu->buf) {
		free(nu);
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	}

	rp_cache_name(RP_CACHE_NEXTUSE, identity, name, sizeof(name));
	if (cache_dir && *cache_dir)
		dfd = rp_cache_dir_open(cache_dir, nu->info.why, sizeof(nu->info.why));
	if (dfd >= 0) {
		char distrusted[200] = "";

		snprintf(path, sizeof(path), "%s/%s", cache_dir, name);
		cached = open_cached(nu, dfd, name, nr_pages, identity, distrusted, sizeof(distrusted));
		if (cached == -1)
			unlinkat(dfd, name, 0); /* another build's or damaged: rebuilt below */
		if (!cached) {
			close(dfd);
			nu->info.cache = RP_CACHE_HIT;
			snprintf(nu->info.path, sizeof(nu->info.path), "%s", path);
			*out = nu;
			return 0;
		}
		/* one not trusted is never read; the complete new file is renamed over it */
		nu->info.cache = cached < 0 ? RP_CACHE_REBUILT : RP_CACHE_BUILT;
		if (cached == -2)
			snprintf(nu->info.why, sizeof(nu->info.why), "the file there was %s: not trusted, replaced",
				 distrusted);
		/* build under a temporary name in the same directory, then rename */
		nu->fd = rp_cache_tmp_create(dfd, RP_CACHE_NEXTUSE, tmp, sizeof(tmp));
		if (nu->fd >= 0) {
			struct mr_error e = { 0 };

			rc = build(nu, trace_path, nr_pages, identity, tmpdir, &e);
			if (!rc && !rp_cache_commit(dfd, tmp, name)) {
				snprintf(nu->info.path, sizeof(nu->info.path), "%s", path);
				nu->info.bytes = NU_HDR + nu->total * nu->es + nu->nblocks * 4;
				close(dfd);
				*out = nu;
				return 0;
			}
			/* the cache directory is full or failing: build in tmpdir instead */
			unlinkat(dfd, tmp, 0);
			close(nu->fd);
			nu->fd = -1;
			free(nu->crc);
			nu->crc = NULL;
			snprintf(nu->info.why, sizeof(nu->info.why), "%s", rc ? e.msg : strerror(errno));
		} else {
			snprintf(nu->info.why, sizeof(nu->info.why), "cannot write to %s: %s",
				 cache_dir, strerror(errno));
		}
		close(dfd);
	}
	nu->info.cache = RP_CACHE_UNCACHED;
	rc = temp_file(tmpdir, err, &nu->fd);
	if (!rc)
		rc = build(nu, trace_path, nr_pages, identity, tmpdir, err);
	if (rc) {
		rp_nextuse_close(nu);
		return rc;
	}
	*out = nu;
	return 0;
}

int rp_nextuse_read(struct rp_nextuse *nu, uint64_t *out, size_t n, struct mr_error *err)
{
	if (n > nu->total - nu->pos)
		return mr_error_set(err, MR_ECORRUPT, "the trace changed while it was replayed (more references than the next-use pass saw)");
	while (n) {
		uint64_t off, k;

		if (nu->pos >= nu->buf_lo + nu->buf_n) {
			uint64_t m = nu->total - nu->pos < nu_block ? nu->total - nu->pos : nu_block;
			int rc = rp_cache_read_all(nu->fd, nu->buf, m * nu->es,
						   (off_t)(NU_HDR + nu->pos * nu->es), NU_FILE, err);

			if (rc)
				return rc;
			/* pos is at a block start here: blocks are read whole, in order */
			if (mr_crc32c(0, nu->buf, m * nu->es) != nu->crc[nu->pos / nu_block])
				return mr_error_set(err, MR_ECORRUPT,
						    "next-use file %s changed while it was read (block %llu): delete it and replay again",
						    *nu->info.path ? nu->info.path : "(temporary)",
						    (unsigned long long)(nu->pos / nu_block));
			nu->buf_lo = nu->pos;
			nu->buf_n = m;
		}
		off = nu->pos - nu->buf_lo;
		k = nu->buf_n - off < n ? nu->buf_n - off : n;
		if (nu->es == 4) {
			const uint8_t *s = nu->buf + off * 4;

			for (uint64_t i = 0; i < k; i++) {
				uint32_t v;

				memcpy(&v, s + i * 4, 4);
				out[i] = v == UINT32_MAX ? UINT64_MAX : v;
			}
		} else {
			memcpy(out, nu->buf + off * 8, k * 8);
		}
		out += k;
		n -= (size_t)k;
		nu->pos += k;
	}
	return 0;
}

void rp_nextuse_set_block(uint32_t refs)
{
	nu_block = refs ? refs : 1u << 20;
}

int rp_nextuse_finish(const struct rp_nextuse *nu, struct mr_error *err)
{
	if (nu->pos != nu->total)
		return mr_error_set(err, MR_ECORRUPT, "the trace changed while it was replayed (%llu references, the next-use pass saw %llu)",
				    (unsigned long long)nu->pos, (unsigned long long)nu->total);
	return 0;
}

const struct rp_cache_info *rp_nextuse_info(const struct rp_nextuse *nu)
{
	return &nu->info;
}

void rp_nextuse_close(struct rp_nextuse *nu)
{
	if (!nu)
		return;
	if (nu->fd >= 0)
		close(nu->fd);
	free(nu->crc);
	free(nu->buf);
	free(nu);
}
