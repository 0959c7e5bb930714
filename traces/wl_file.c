// SPDX-License-Identifier: GPL-2.0
/*
 * wl_file.c - test workload for the page-cache tracepoints: drop FILE from the page
 * cache (posix_fadvise DONTNEED), read it whole, drop it again, read it again. Every page
 * is therefore inserted, deleted and inserted again (a delete->insert key match: refault
 * candidate). The file must be clean (fsynced) and on a disk file system, not tmpfs.
 * With PASSES, the file is read whole PASSES times and never dropped (run inside a small
 * memory cgroup, the second pass refaults what reclaim evicted).
 *   wl_file FILE [PASSES]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int read_all(int fd)
{
	char buf[65536];
	off_t off = 0;
	ssize_t n;

	while ((n = pread(fd, buf, sizeof(buf), off)) > 0)
		off += n;
	return n < 0;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc < 2)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	if (argc > 2) {
		for (long i = strtol(argv[2], NULL, 0); i > 0; i--)
			if (read_all(fd))
				return 1;
		close(fd);
		return 0;
	}
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) || read_all(fd) ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) || read_all(fd))
		return 1;
	close(fd);
	return 0;
}
