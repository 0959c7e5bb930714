// SPDX-License-Identifier: GPL-2.0
/*
 * install_reader.c - a C program of the kind libmemreplay-store.a is for, built by
 * tests/test_install.sh against an installed prefix only (`pkg-config --cflags --libs
 * memreplay`): open a trace, read every event in time order, print how many of each
 * kind there are and how many distinct pages they name.
 *
 * install_reader TRACE.db -> "events N\npages M\n"; 1 and the store's message on error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mr_store.h"

int main(int argc, char **argv)
{
	struct mr_error err = { 0 };
	struct mr_store *s = NULL;
	struct mr_reader *r = NULL;
	struct mr_store_summary sum;
	struct mr_event ev;
	unsigned char *seen = NULL;
	unsigned long long events = 0, pages = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: install_reader TRACE.db\n");
		return 2;
	}
	rc = mr_store_open(argv[1], MR_STORE_RDONLY, &s, &err);
	if (!rc)
		rc = mr_store_summarize(s, &sum, &err);
	if (!rc && !(seen = calloc(sum.n_pages + 1, 1)))
		rc = mr_error_set(&err, MR_ENOMEM, "out of memory");
	if (!rc)
		rc = mr_reader_open(s, &(struct mr_reader_opts){ 0 }, &r, &err);
	while (!rc && (rc = mr_reader_next(r, &ev)) == 0) {
		events++;
		if (ev.page < sum.n_pages && !seen[ev.page]) {
			seen[ev.page] = 1;
			pages++;
		}
	}
	if (rc == MR_EOF)
		rc = 0;
	else if (rc && r)
		err = *mr_reader_error(r);
	if (rc)
		fprintf(stderr, "install_reader: %s\n", err.msg[0] ? err.msg : mr_strerror(rc));
	else
		printf("events %llu\npages %llu\n", events, pages);
	mr_reader_close(r);
	mr_store_close(s);
	free(seen);
	return rc ? 1 : 0;
}
