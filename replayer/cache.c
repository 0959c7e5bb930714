// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - the cache directory's steps that every kind of cache file shares (rp_cache.h):
 * opening and trusting the directory and its entries, temporary files renamed into
 * place, pruning over all kinds, whole reads and writes, file names.
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

#include "rp_cache.h"

/* One table of kinds, so that prune() counts every kind against the one budget. */
static const struct {
	const char *prefix, *ext;
} kinds[RP_CACHE_NR_KINDS] = {
	[RP_CACHE_NEXTUSE] = { "nextuse-", ".mrnu" },
	[RP_CACHE_PAGEREFS] = { "pagerefs-", ".mrpr" },
};

void rp_cache_name(enum rp_cache_kind kind, const char *identity, char *name, size_t cap)
{
	size_t l = strlen(kinds[kind].prefix);

	/* the identity's hex digits */
	snprintf(name, cap, "%s%.100s", kinds[kind].prefix,
		 strncmp(identity, "sha256:", 7) ? identity : identity + 7);
	for (char *c = name + l; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f')))
			*c = '_';
	l = strlen(name);
	snprintf(name + l, cap - l, "%s", kinds[kind].ext);
}

int rp_cache_write_all(int fd, const void *p, size_t n, off_t off, const char *what,
		       struct mr_error *err)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = off < 0 ? write(fd, b, n) : pwrite(fd, b, n, off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return mr_error_set(err, errno == ENOSPC ? MR_ENOSPC : MR_EIO,
					    "writing %s: %s", what, strerror(errno));
		}
		b += w;
		n -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

int rp_cache_read_all(int fd, void *p, size_t n, off_t off, const char *what,
		      struct mr_error *err)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = pread(fd, b, n, off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return mr_error_set(err, MR_EIO, "reading %s: %s", what,
					    r < 0 ? strerror(errno) : "short read");
		b += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

/*
 * Whether a cache entry (fstat()ed) or the cache directory may be trusted: only what no
 * one else could have written is (rp_cache.h): this user's, writable by no one else.
 * NULL when it may; else why not, into buf.
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

int rp_cache_entry_open(int dfd, const char *name, int *fd, uint64_t *size, char *why,
			size_t why_cap)
{
	struct stat st;
	/* no link followed, and no open() waiting for a writer on a FIFO planted here */
	int f = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	*fd = -1;
	if (f < 0) {
		if (errno == ELOOP) {
			snprintf(why, why_cap, "not a regular file (a symbolic link)");
			return -2;
		}
		/* one that cannot be opened (no fds left, no permission) is not removed:
		 * the values are computed without it */
		return 1;
	}
	if (fstat(f, &st)) {
		close(f);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_cap, "not a regular file (mode %06o)", (unsigned)st.st_mode);
		close(f);
		return -2;
	}
	if (distrust(&st, why, why_cap)) {
		close(f);
		return -2;
	}
	/* regular and ours: back to blocking reads (O_NONBLOCK only guarded the open) */
	fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
	*fd = f;
	*size = (uint64_t)st.st_size;
	return 0;
}

void rp_cache_touch(int fd)
{
	futimens(fd, NULL);
}

/* mkdir -p for the cache directory (0700: what is kept tells about the trace). */
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

int rp_cache_dir_open(const char *dir, char *why, size_t why_cap)
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

int rp_cache_tmp_create(int dfd, enum rp_cache_kind kind, char *tmp, size_t cap)
{
	int fd = -1;

	errno = EEXIST;
	for (unsigned k = 0; k < 100 && fd < 0; k++) {
		snprintf(tmp, cap, "%s%ld-%u.tmp", kinds[kind].prefix, (long)getpid(), k);
		fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

int rp_cache_commit(int dfd, const char *tmp, const char *name)
{
	if (renameat(dfd, tmp, dfd, name))
		return -1;
	rp_cache_prune(dfd, name);
	return 0;
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

/* Which kind's file (or temporary file, *tmp = 1) name is; -1 for none. */
static int kind_of(const char *name, int *tmp)
{
	size_t l = strlen(name);

	for (int k = 0; k < RP_CACHE_NR_KINDS; k++) {
		size_t lp = strlen(kinds[k].prefix), le = strlen(kinds[k].ext);

		if (strncmp(name, kinds[k].prefix, lp))
			continue;
		*tmp = l > 4 && !strcmp(name + l - 4, ".tmp");
		if (*tmp || (l > le && !strcmp(name + l - le, kinds[k].ext)))
			return k;
	}
	return -1;
}

void rp_cache_prune(int dfd, const char *keep)
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
		int tmp = 0;

		if (kind_of(de->d_name, &tmp) < 0 || l >= sizeof(f->name))
			continue;
		/* the entry itself: a link is neither counted nor followed */
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (tmp) {
			if (now - st.st_mtime > RP_CACHE_STALE_TMP_S)
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
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
	for (size_t i = 0; i < n && sum > RP_CACHE_MAX; i++) {
		if (!strcmp(f[i].name, keep))
			continue;
		if (!unlinkat(dfd, f[i].name, 0))
			sum -= f[i].size;
	}
	free(f);
}
