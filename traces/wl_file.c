// SPDX-License-Identifier: GPL-2.0
/*
 * wl_file.c - test workload for the page-cache tracepoints: drop FILE from the page
 * cache (posix_fadvise DONTNEED), read it whole, drop it again, read it again. Every page
 * is therefore inserted, deleted and inserted again (a delete->insert key match: refault
 * candidate). The file must be clean (fsynced) and on a disk file system, not tmpfs.
 *   wl_file FILE
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
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
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) || read_all(fd) ||
	    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) || read_all(fd))
		return 1;
	close(fd);
	return 0;
}
