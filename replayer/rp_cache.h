/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rp_cache.h - private to replayer/: the cache directory (docs/replay.md, "The cache
 * directory"), where what a replay derives from a trace alone is kept per trace, one
 * file per kind, named by the trace identity: opt's next-use times (nextuse.c) and the
 * sampling pre-pass's page counts (pagerefs.c).
 *
 * What is kept decides results (what opt evicts, which pages are sampled), and a file
 * with forged contents and recomputed CRCs passes every check of its format, so the
 * directory and each file are used only if no one else could have written them: this
 * user's, writable by no one else, never reached through a symbolic link. The
 * directory is opened once and used through its descriptor, so every step acts on the
 * directory checked, never on whatever the path leads to by then. Files are built
 * under a temporary name and renamed when complete (a crash or a concurrent replay
 * never sees half a file), and the directory is kept under RP_CACHE_MAX bytes over all
 * kinds, least recently used first.
 *
 * Each kind's own format (header, CRCs) and what it does with a file are its file's;
 * these are the steps they share. Nothing here reports: a cache that cannot be used is
 * no error, and each caller says why in its note.
 */
#ifndef MR_RP_CACHE_H
#define MR_RP_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mr_err.h"

#define RP_CACHE_MAX (8ull << 30) /* bytes of cache files kept in a cache directory */
#define RP_CACHE_STALE_TMP_S (24 * 3600) /* a temporary file this old is a crashed build's */

/* The kinds of file, each "<prefix><identity hex><ext>" (cache.c's table). */
enum rp_cache_kind {
	RP_CACHE_NEXTUSE,  /* nextuse-*.mrnu: opt's next-use times (nextuse.c) */
	RP_CACHE_PAGEREFS, /* pagerefs-*.mrpr: the sampling pre-pass's counts (pagerefs.c) */
	RP_CACHE_NR_KINDS
};

/* What became of a cache file in a replay, for its note (replay.c, cache_note()). */
enum rp_cache_use { RP_CACHE_UNCACHED, RP_CACHE_HIT, RP_CACHE_BUILT, RP_CACHE_REBUILT };
struct rp_cache_info {
	int cache;         /* enum rp_cache_use */
	char path[1200];   /* the cache file (HIT, BUILT, REBUILT) */
	uint64_t bytes;    /* its size when BUILT or REBUILT */
	char why[600];     /* UNCACHED with a cache directory: why it was not used;
			    * REBUILT: why the file there was not (empty: damaged) */
};

/* The file name of kind for a trace identity ("sha256:<hex>"; any character other than
 * a lower-case hex digit becomes '_'), into name (at least 128 bytes). */
void rp_cache_name(enum rp_cache_kind kind, const char *identity, char *name, size_t cap);

/*
 * Open the cache directory dir (made first, mode 0700, if absent) for use through its
 * descriptor. Refused: a symbolic link (not followed), not a directory, one not to be
 * trusted. Returns the descriptor (the caller closes it), or -1 with why set.
 */
int rp_cache_dir_open(const char *dir, char *why, size_t why_cap);

/*
 * Open entry name of the directory dfd for reading, if it may be trusted: a regular
 * file (no link followed; no open() waiting on a FIFO planted there), this user's,
 * writable by no one else. Returns 0 with *fd (blocking) and *size; 1 when there is
 * none or it cannot be opened (no fds, no permission: then it is not removed); -2 when
 * it is not to be trusted (why says how: the caller replaces it, never reads it).
 */
int rp_cache_entry_open(int dfd, const char *name, int *fd, uint64_t *size, char *why,
			size_t why_cap);

/* Mark an entry just used, for rp_cache_prune()'s least recently used order. */
void rp_cache_touch(int fd);

/*
 * Create a temporary entry of kind in dfd, "<prefix><pid>-<k>.tmp", read-write, mode
 * 0600, its name into tmp (at least 128 bytes). Returns the descriptor, or -1 with errno.
 */
int rp_cache_tmp_create(int dfd, enum rp_cache_kind kind, char *tmp, size_t cap);

/*
 * Rename the complete temporary entry tmp to name (over whatever was there, so a file
 * not trusted is replaced, never opened), then prune the directory keeping name.
 * Returns 0, or -1 with errno (tmp is left for the caller to remove).
 */
int rp_cache_commit(int dfd, const char *tmp, const char *name);

/* Keep dfd under RP_CACHE_MAX over every kind: remove the least recently used files
 * (never keep) and temporary files of builds that died. Best effort. */
void rp_cache_prune(int dfd, const char *keep);

/* n bytes at off (off < 0: at the file position, for a write). what names the file in
 * the message: MR_EIO (MR_ENOSPC for a full disk), or MR_EIO for a short read. */
int rp_cache_write_all(int fd, const void *p, size_t n, off_t off, const char *what,
		       struct mr_error *err);
int rp_cache_read_all(int fd, void *p, size_t n, off_t off, const char *what,
		      struct mr_error *err);

/* Little-endian fields of the cache formats. */
static inline void rp_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void rp_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t rp_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rp_get64(const uint8_t *p)
{
	return (uint64_t)rp_get32(p) | (uint64_t)rp_get32(p + 4) << 32;
}

#endif /* MR_RP_CACHE_H */
