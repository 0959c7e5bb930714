// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_store_open.c - a mutated store file through everything that reads a trace: open
 * (schema and row checks), the summary, the pages, every event through the reader and an
 * OR query through the events table. Any file must give results or an error, never a
 * crash, a hang or a sanitizer report. The input is opened in memory
 * (mr_store_open_image(): the checks of mr_store_open() less those of the file on disk,
 * which test_store_hostile covers), thousands of times faster than through a file.
 */
#include <sqlite3.h>

#include "fuzz.h"
#include "store_int.h"

static int count_page(const struct mr_page *p, void *ctx)
{
	(*(uint64_t *)ctx)++;
	return 0;
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
	size_t n;

	static int configured;

	if (!configured) {
		/* one thread: no mutexes and no memory statistics, a third of the time spent
		 * per input under the sanitizers' allocator */
		sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		configured = 1;
	}
	if (mr_store_open_image("fuzz input", data, size, &s, &err))
		return 0;
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
	return 0;
}
