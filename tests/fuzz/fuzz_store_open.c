// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_store_open.c - a mutated store file through everything that reads a trace: open
 * (schema and row checks), the summary, the pages, every event through the reader and an
 * OR query through the events table. Any file must give results or an error, never a
 * crash, a hang or a sanitizer report. The input is written to a file of its own (the
 * store opener takes a path), in /dev/shm when there is one.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "mr_store.h"

static char path[256];

static int count_page(const struct mr_page *p, void *ctx)
{
	(*(uint64_t *)ctx)++;
	return 0;
}

static void remove_side(void)
{
	static const char *const side[] = { "-wal", "-shm", "-journal" };
	char p[300];

	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", path, side[i]);
		unlink(p);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mr_event ev[4096];
	struct mr_error err = { 0 };
	struct mr_store_summary sum;
	struct mr_store *s;
	struct mr_reader *r;
	uint64_t pages = 0, events = 0;
	sqlite3_stmt *st;
	FILE *f;
	size_t n;

	if (!path[0]) {
		const char *dir = access("/dev/shm", W_OK) ? (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") : "/dev/shm";

		snprintf(path, sizeof(path), "%s/mr-fuzz-store-%ld.db", dir, (long)getpid());
	}
	remove_side();
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (mr_store_open(path, MR_STORE_RDONLY, &s, &err))
		goto out;
	mr_store_summarize(s, &sum, &err);
	mr_store_pages_foreach(s, count_page, &pages, &err);
	if (!mr_reader_open(s, NULL, &r, &err)) {
		/* bounded: a crafted file may hold many chunks of 65536 events */
		while (events < (1u << 22) && !mr_reader_read(r, ev, sizeof(ev) / sizeof(ev[0]), &n))
			events += n;
		mr_reader_close(r);
	}
	if (sqlite3_prepare_v2(mr_store_db(s), "SELECT count(*), sum(page) FROM events WHERE time < 1000 OR time > 100000",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	mr_store_close(s);
out:
	remove_side();
	unlink(path);
	return 0;
}
