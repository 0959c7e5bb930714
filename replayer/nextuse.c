// SPDX-License-Identifier: GPL-2.0
/*
 * nextuse.c - for policies that see every access (opt): the trace position of the next
 * use of the page at each reference, computed once per trace, in bounded memory.
 *
 * Pass 1 reads the trace forward and writes one u32 per reference to temp file A: the
 * page id, with bit 31 set for an insertion (READAHEAD/PC_INSERT page), which is a
 * reference but not a use. Pass 2 reads A backwards block by block, keeping the
 * position of the last use seen per page (8 bytes per distinct page), and writes each
 * reference's next-use position to temp file B at that reference's own offset, so B
 * reads forward in lockstep with the replay. Positions are u32 when the trace has fewer
 * than 2^32 - 1 references (u64 otherwise); "never" is the all-ones value, returned to
 * callers as UINT64_MAX. Both files are unlinked as soon as they are created.
 *
 *   A: [ref 0: u32 page|insert<<31] [ref 1] ...        (forward)
 *   B: [ref 0: next-use position]   [ref 1] ...        (written backwards, read forward)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rp_int.h"

#define NU_BLOCK (1u << 20) /* references per block in pass 2 and per read buffer */
#define NU_BATCH 65536

struct rp_nextuse {
	int fd;           /* file B */
	unsigned es;      /* 4 or 8 */
	uint64_t total;   /* references */
	uint64_t pos;     /* next reference to hand out */
	uint8_t *buf;     /* NU_BLOCK elements */
	uint64_t buf_lo, buf_n;
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

static int write_all(int fd, const void *p, size_t n, off_t off, struct mr_error *err)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = off < 0 ? write(fd, b, n) : pwrite(fd, b, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return mr_error_set(err, errno == ENOSPC ? MR_ENOSPC : MR_EIO,
					    "writing the next-use temporary file: %s", strerror(errno));
		}
		b += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n, off_t off, struct mr_error *err)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = pread(fd, b, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return mr_error_set(err, MR_EIO, "reading the next-use temporary file: %s",
					    r < 0 ? strerror(errno) : "short read");
		b += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

/* Pass 1: references to file A. */
static int pass_forward(const char *trace, uint32_t nr_pages, int fd, uint64_t *total,
			struct mr_error *err)
{
	struct rp_source *src = NULL;
	struct mr_event *ev = malloc(NU_BATCH * sizeof(*ev));
	uint32_t *out = malloc(NU_BLOCK * sizeof(*out));
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
			uint32_t tag = rp_event_is_use(&ev[i]) ? 0 : 0x80000000u;

			for (uint64_t j = 0; j < k; j++) {
				out[nout++] = (first + (uint32_t)j) | tag;
				if (nout == NU_BLOCK) {
					rc = write_all(fd, out, nout * sizeof(*out), -1, err);
					nout = 0;
					if (rc)
						break;
				}
			}
			refs += k;
		}
	}
	if (!rc && nout)
		rc = write_all(fd, out, nout * sizeof(*out), -1, err);
	*total = refs;
out:
	rp_source_close(src);
	free(ev);
	free(out);
	return rc;
}

/* Pass 2: file A backwards to file B. */
static int pass_backward(int fa, int fb, uint64_t total, uint32_t nr_pages, unsigned es,
			 struct mr_error *err)
{
	uint64_t *last = malloc(((size_t)nr_pages + 1) * sizeof(*last));
	uint32_t *in = malloc(NU_BLOCK * sizeof(*in));
	uint8_t *out = malloc((size_t)NU_BLOCK * es);
	uint64_t hi = total;
	int rc = 0;

	if (!last || !in || !out) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory for next-use times (%u pages)", nr_pages);
		goto out;
	}
	memset(last, 0xff, ((size_t)nr_pages + 1) * sizeof(*last));
	while (hi > 0 && !rc) {
		uint64_t lo = hi > NU_BLOCK ? hi - NU_BLOCK : 0, n = hi - lo;

		rc = read_all(fa, in, n * sizeof(*in), (off_t)(lo * sizeof(*in)), err);
		if (rc)
			break;
		for (uint64_t i = n; i-- > 0;) {
			uint32_t page = in[i] & 0x7fffffffu;
			uint64_t nu = last[page];

			if (es == 4) {
				uint32_t v = nu == UINT64_MAX ? UINT32_MAX : (uint32_t)nu;

				memcpy(out + i * 4, &v, 4);
			} else {
				memcpy(out + i * 8, &nu, 8);
			}
			if (!(in[i] & 0x80000000u))
				last[page] = lo + i;
		}
		rc = write_all(fb, out, n * es, (off_t)(lo * es), err);
		hi = lo;
	}
out:
	free(last);
	free(in);
	free(out);
	return rc;
}

int rp_nextuse_build(const char *trace_path, uint32_t nr_pages, const char *tmpdir,
		     struct rp_nextuse **out, struct mr_error *err)
{
	struct rp_nextuse *nu;
	int fa = -1, rc;

	*out = NULL;
	if (nr_pages >= 0x80000000u)
		return mr_error_set(err, MR_ERANGE, "next-use times support at most 2^31 pages (the trace has %u)",
				    nr_pages);
	nu = calloc(1, sizeof(*nu));
	if (!nu)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	nu->fd = -1;
	rc = temp_file(tmpdir, err, &fa);
	if (!rc)
		rc = temp_file(tmpdir, err, &nu->fd);
	if (!rc)
		rc = pass_forward(trace_path, nr_pages, fa, &nu->total, err);
	if (!rc) {
		nu->es = nu->total < UINT32_MAX ? 4 : 8;
		rc = pass_backward(fa, nu->fd, nu->total, nr_pages, nu->es, err);
	}
	if (fa >= 0)
		close(fa);
	if (!rc) {
		nu->buf = malloc((size_t)NU_BLOCK * nu->es);
		if (!nu->buf)
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
	}
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
			uint64_t m = nu->total - nu->pos < NU_BLOCK ? nu->total - nu->pos : NU_BLOCK;
			int rc = read_all(nu->fd, nu->buf, m * nu->es, (off_t)(nu->pos * nu->es), err);

			if (rc)
				return rc;
			nu->buf_lo = nu->pos;
			nu->buf_n = m;
		}
		off = nu->pos - nu->buf_lo;
		k = nu->buf_n - off < n ? nu->buf_n - off : n;
		for (uint64_t i = 0; i < k; i++) {
			if (nu->es == 4) {
				uint32_t v;

				memcpy(&v, nu->buf + (off + i) * 4, 4);
				out[i] = v == UINT32_MAX ? UINT64_MAX : v;
			} else {
				memcpy(&out[i], nu->buf + (off + i) * 8, 8);
			}
		}
		out += k;
		n -= (size_t)k;
		nu->pos += k;
	}
	return 0;
}

uint64_t rp_nextuse_total(const struct rp_nextuse *nu)
{
	return nu->total;
}

void rp_nextuse_close(struct rp_nextuse *nu)
{
	if (!nu)
		return;
	if (nu->fd >= 0)
		close(nu->fd);
	free(nu->buf);
	free(nu);
}
