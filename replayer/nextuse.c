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
 * File B (docs/replay.md, "next-use cache"), little-endian:
 *
 *   0    8  magic "MRNEXTU1"
 *   8    4  NU_VERSION: bump it whenever rp_event_refs() changes what a reference is
 *           or this file what a value means, so that no cache made by an older build
 *           is used (2: insertions are references too)
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
 * block is read); otherwise it is removed and rebuilt. The directory is kept under
 * NU_CACHE_MAX bytes, least recently used first. Without one (or when it cannot be
 * written) B is a temporary file in tmpdir, unlinked at creation.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mr_codec.h"
#include "rp_int.h"

/* references per block in pass 2, per read and per CRC; smaller only in tests */
static uint32_t nu_block = 1u << 20;
#define NU_BATCH 65536
#define NU_VERSION 2u /* 2: insertions are references too */
#define NU_HDR 128u
#define NU_MAGIC "MRNEXTU1"
#define NU_CACHE_MAX (8ull << 30) /* bytes of cache files kept in a cache directory */
#define NU_STALE_TMP_S (24 * 3600) /* a temporary file this old is a crashed build's */

struct rp_nextuse {
	int fd;           /* file B */
	unsigned es;      /* 4 or 8 */
	uint64_t total;   /* references */
	uint64_t pos;     /* next reference to hand out */
	uint8_t *buf;     /* nu_block elements */
	uint64_t buf_lo, buf_n;
	uint32_t *crc;    /* per block */
	uint64_t nblocks;
	struct rp_nextuse_info info;
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
					    "writing the next-use file: %s", strerror(errno));
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
			return mr_error_set(err, MR_EIO, "reading the next-use file: %s",
					    r < 0 ? strerror(errno) : "short read");
		b += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
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

		rc = read_all(fa, in, n * sizeof(*in), (off_t)(lo * sizeof(*in)), err);
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
		rc = write_all(nu->fd, out, n * es, (off_t)(NU_HDR + lo * es), err);
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
	put32(h + 8, NU_VERSION);
	put32(h + 12, nu->es);
	put32(h + 16, nr_pages);
	put32(h + 20, nu_block);
	put64(h + 24, nu->total);
	snprintf((char *)h + 32, 80, "%s", identity);
	put32(h + 124, mr_crc32c(0, h, 124));
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
			put32(tr + 4 * b, nu->crc[b]);
		rc = write_all(nu->fd, tr, nu->nblocks * 4, (off_t)(NU_HDR + nu->total * nu->es), err);
	}
	if (!rc) {
		make_header(h, nu, nr_pages, identity);
		rc = write_all(nu->fd, h, NU_HDR, 0, err);
	}
	free(tr);
	return rc;
}

/*
 * Whether a cache entry (fstat()ed) or the cache directory may be trusted: next-use
 * values decide what opt evicts, and a file with forged values and recomputed CRCs
 * passes every check below, so only a file that no one else could have written is used:
 * this user's, writable by no one else. NULL when it may; else why not, into buf.
 */
static const char *distrust(const struct stat *st, char *buf, size_t cap)
{
	if (st->st_uid != geteuid())
		snprintf(buf, cap, "owned by uid %u, not by this user (uid %u)",
			 (unsigned)st->st_uid, (unsigned)geteuid());
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		snprintf(buf, cap, "writable by others (mode %04o)", (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return buf;
}

/*
 * Open a cached B (name in directory dfd) and check it against the trace: who may have
 * written it, header, size, and every block's CRC. Returns 0 when it can be used; 1
 * when there is none; -1 when there is one but it is not this trace's or is damaged;
 * -2 when it is not to be trusted (why says how). The caller replaces both kinds.
 */
static int open_cached(struct rp_nextuse *nu, int dfd, const char *name, uint32_t nr_pages,
		       const char *identity, char *why, size_t why_cap)
{
	uint8_t h[NU_HDR];
	struct mr_error e = { 0 };
	struct stat st;
	uint8_t *tr = NULL;
	/* no link followed, and no open() waiting for a writer on a FIFO planted here */
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ELOOP) {
			snprintf(why, why_cap, "not a regular file (a symbolic link)");
			return -2;
		}
		/* one that cannot be opened (no fds left, no permission) is not removed:
		 * the values are computed without it */
		return 1;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_cap, "not a regular file (mode %06o)", (unsigned)st.st_mode);
		close(fd);
		return -2;
	}
	if (distrust(&st, why, why_cap)) {
		close(fd);
		return -2;
	}
	if (read_all(fd, h, NU_HDR, 0, &e) || memcmp(h, NU_MAGIC, 8) ||
	    get32(h + 124) != mr_crc32c(0, h, 124) || get32(h + 8) != NU_VERSION ||
	    get32(h + 16) != nr_pages || get32(h + 20) != nu_block ||
	    (get32(h + 12) != 4 && get32(h + 12) != 8) ||
	    strncmp((const char *)h + 32, identity, 80))
		goto bad;
	nu->es = get32(h + 12);
	nu->total = get64(h + 24);
	if (nu->total > ((uint64_t)1 << 40) || (nu->es == 4) != (nu->total < UINT32_MAX))
		goto bad;
	nu->nblocks = nblocks_of(nu->total);
	if ((uint64_t)st.st_size != NU_HDR + nu->total * nu->es + nu->nblocks * 4)
		goto bad;
	nu->crc = calloc(nu->nblocks ? nu->nblocks : 1, sizeof(*nu->crc));
	tr = malloc((nu->nblocks ? nu->nblocks : 1) * 4);
	if (!nu->crc || !tr ||
	    read_all(fd, tr, nu->nblocks * 4, (off_t)(NU_HDR + nu->total * nu->es), &e))
		goto bad;
	for (uint64_t b = 0; b < nu->nblocks; b++) {
		uint64_t n = nu->total - b * nu_block < nu_block ? nu->total - b * nu_block : nu_block;

		nu->crc[b] = get32(tr + 4 * b);
		if (read_all(fd, nu->buf, n * nu->es, (off_t)(NU_HDR + b * nu_block * nu->es), &e) ||
		    mr_crc32c(0, nu->buf, n * nu->es) != nu->crc[b])
			goto bad;
	}
	free(tr);
	/* regular and ours: back to blocking reads (O_NONBLOCK only guarded the open) */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	futimens(fd, NULL); /* recently used, for prune() */
	nu->fd = fd;
	return 0;
bad:
	free(tr);
	free(nu->crc);
	nu->crc = NULL;
	close(fd);
	return -1;
}

/* mkdir -p for the cache directory (0700: next-use times tell about the trace). */
static int make_dir(const char *dir)
{
	char p[1024];
	size_t l;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	l = strlen(p);
	for (size_t i = 1; i <= l; i++) {
		if (p[i] != '/' && p[i] != 0)
			continue;
		p[i] = 0;
		if (mkdir(p, 0700) && errno != EEXIST)
			return -1;
		p[i] = i < l ? '/' : 0;
	}
	return access(dir, W_OK | X_OK);
}

/*
 * Open the cache directory (made first if absent) for use through its descriptor, so
 * that every later step acts on the directory checked here, never on whatever a path
 * leads to by then. Refused: a symbolic link (not followed), not a directory, and one
 * not to be trusted (distrust()). Returns the descriptor, or -1 with why set.
 */
static int open_cache_dir(const char *dir, char *why, size_t why_cap)
{
	char reason[160];
	struct stat st;
	int dfd;

	if (make_dir(dir)) {
		snprintf(why, why_cap, "cannot write to %s: %s", dir, strerror(errno));
		return -1;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ELOOP || (errno == ENOTDIR && !lstat(dir, &st) && S_ISLNK(st.st_mode)))
			snprintf(why, why_cap, "the cache directory %s is a symbolic link, not followed: give the directory itself",
				 dir);
		else
			snprintf(why, why_cap, "cannot write to %s: %s", dir, strerror(errno));
		return -1;
	}
	if (fstat(dfd, &st)) {
		snprintf(why, why_cap, "cannot write to %s: %s", dir, strerror(errno));
		close(dfd);
		return -1;
	}
	if (distrust(&st, reason, sizeof(reason))) {
		snprintf(why, why_cap, "the cache directory %s is %s: not trusted; make it this user's with mode 0700, or give another --nextuse-cache",
			 dir, reason);
		close(dfd);
		return -1;
	}
	return dfd;
}

struct cache_file {
	char name[128];
	time_t mtime;
	uint64_t size;
};

static int by_mtime(const void *a, const void *b)
{
	const struct cache_file *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keep the cache directory under NU_CACHE_MAX: remove the least recently used files
 * (and temporary files of builds that died) until it fits. Best effort. */
static void prune(int dfd, const char *keep)
{
	struct cache_file *f = NULL;
	size_t n = 0, cap = 0;
	uint64_t sum = 0;
	struct dirent *de;
	int dfd2 = dup(dfd);
	DIR *d = dfd2 >= 0 ? fdopendir(dfd2) : NULL;
	time_t now = time(NULL);

	if (!d) {
		if (dfd2 >= 0)
			close(dfd2);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		size_t l = strlen(de->d_name);

		if (strncmp(de->d_name, "nextuse-", 8) || l >= sizeof(f->name))
			continue;
		/* the entry itself: a link is neither counted nor followed */
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (l > 4 && !strcmp(de->d_name + l - 4, ".tmp")) {
			if (now - st.st_mtime > NU_STALE_TMP_S)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (l <= 5 || strcmp(de->d_name + l - 5, ".mrnu"))
			continue;
		if (n == cap) {
			struct cache_file *nf = realloc(f, (cap ? 2 * cap : 16) * sizeof(*f));

			if (!nf)
				break;
			f = nf;
			cap = cap ? 2 * cap : 16;
		}
		memcpy(f[n].name, de->d_name, l + 1); /* l < sizeof(name), checked above */
		f[n].mtime = st.st_mtime;
		f[n].size = (uint64_t)st.st_size;
		sum += f[n].size;
		n++;
	}
	closedir(d);
	if (n)
		qsort(f, n, sizeof(*f), by_mtime);
	for (size_t i = 0; i < n && sum > NU_CACHE_MAX; i++) {
		if (!strcmp(f[i].name, keep))
			continue;
		if (!unlinkat(dfd, f[i].name, 0))
			sum -= f[i].size;
	}
	free(f);
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

	/* the cache file's name: the identity's hex digits */
	snprintf(name, sizeof(name), "nextuse-%.100s",
		 strncmp(identity, "sha256:", 7) ? identity : identity + 7);
	for (char *c = name + 8; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			*c = '_';
	strcat(name, ".mrnu");
	if (cache_dir && *cache_dir)
		dfd = open_cache_dir(cache_dir, nu->info.why, sizeof(nu->info.why));
	if (dfd >= 0) {
		char distrusted[200] = "";

		snprintf(path, sizeof(path), "%s/%s", cache_dir, name);
		cached = open_cached(nu, dfd, name, nr_pages, identity, distrusted, sizeof(distrusted));
		if (cached == -1)
			unlinkat(dfd, name, 0); /* another build's or damaged: rebuilt below */
		if (!cached) {
			close(dfd);
			nu->info.cache = RP_NU_HIT;
			snprintf(nu->info.path, sizeof(nu->info.path), "%s", path);
			*out = nu;
			return 0;
		}
		/* one not trusted is never read; the complete new file is renamed over it */
		nu->info.cache = cached < 0 ? RP_NU_REBUILT : RP_NU_BUILT;
		if (cached == -2)
			snprintf(nu->info.why, sizeof(nu->info.why), "the file there was %s: not trusted, replaced",
				 distrusted);
		/* build under a temporary name in the same directory, then rename */
		for (unsigned k = 0; k < 100 && nu->fd < 0; k++) {
			snprintf(tmp, sizeof(tmp), "nextuse-%ld-%u.tmp", (long)getpid(), k);
			nu->fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (nu->fd < 0 && errno != EEXIST)
				break;
		}
		if (nu->fd >= 0) {
			struct mr_error e = { 0 };

			rc = build(nu, trace_path, nr_pages, identity, tmpdir, &e);
			if (!rc && !renameat(dfd, tmp, dfd, name)) {
				snprintf(nu->info.path, sizeof(nu->info.path), "%s", path);
				nu->info.bytes = NU_HDR + nu->total * nu->es + nu->nblocks * 4;
				prune(dfd, name);
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
	nu->info.cache = RP_NU_UNCACHED;
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
			int rc = read_all(nu->fd, nu->buf, m * nu->es,
					  (off_t)(NU_HDR + nu->pos * nu->es), err);

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

const struct rp_nextuse_info *rp_nextuse_info(const struct rp_nextuse *nu)
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
