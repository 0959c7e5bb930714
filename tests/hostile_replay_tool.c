// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_replay_tool.c - makes the broken inputs test_hostile_replay.sh feeds to
 * `memreplay replay`, so that the test needs nothing but this tree (no sqlite3 shell,
 * no python):
 *
 *   hostile_replay_tool sql DB SQL       run SQL on a store or results file (the edits
 *                                        `memreplay query` refuses to make)
 *   hostile_replay_tool rows DB SQL      print the first column of each row, one a line
 *   hostile_replay_tool maxtime OUT      a small valid trace whose last event is at
 *                                        2^64 - 1 ns (a time the writer accepts and a
 *                                        chunk then carries as its t_last)
 *   hostile_replay_tool forge-nextuse F  rewrite every next-use value of cache file F
 *                                        to a scrambled position and recompute its
 *                                        CRCs: a well-formed file with wrong values
 *
 * Exit status 0, or 1 with a message.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mr_codec.h"
#include "mr_store.h"

static int print_row(void *arg, int n, char **v, char **names)
{
	(void)arg;
	(void)names;
	printf("%s\n", n > 0 && v[0] ? v[0] : "NULL");
	return 0;
}

static int run_sql(const char *db_path, const char *sql, int rows)
{
	sqlite3 *db = NULL;
	char *msg = NULL;
	int rc = sqlite3_open_v2(db_path, &db, rows ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE,
				 NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, rows ? print_row : NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fprintf(stderr, "hostile_replay_tool: %s: %s\n", db_path,
			msg ? msg : db ? sqlite3_errmsg(db) : "cannot open");
	sqlite3_free(msg);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : 1;
}

/* One mm, one task, four anon pages in one VMA, an access to each, the last at 2^64-1. */
static int make_maxtime(const char *out)
{
	struct mr_error err = { 0 };
	struct mr_store *s = NULL;
	struct mr_writer *w = NULL;
	struct mr_task task = { .id = 1, .pid = 100, .tgid = 100, .mm = 1, .comm = "hostile" };
	struct mr_vma_row vma = { .id = 1, .mm = 1, .start = 0x100000, .end = 0x104000,
				  .flags = MR_VMA_READ | MR_VMA_WRITE };
	uint32_t stream;
	int rc = mr_store_create(out, 1, &s, &err);

	if (!rc)
		rc = mr_writer_create(s, NULL, &w, &err);
	if (!rc)
		rc = mr_writer_add_stream(w, "synthetic", "hostile", -1, &stream);
	if (!rc)
		rc = mr_writer_add_mm(w, 1, 100, "hostile");
	if (!rc)
		rc = mr_writer_add_task(w, &task);
	if (!rc)
		rc = mr_writer_add_vma(w, &vma);
	for (uint32_t i = 0; !rc && i < 4; i++) {
		struct mr_page p = { .id = i, .type = MR_PAGE_ANON, .node = 0, .mm = 1,
				     .vpage = (0x100000 >> 12) + i };

		rc = mr_writer_add_page(w, &p);
	}
	for (uint32_t i = 0; !rc && i < 4; i++) {
		struct mr_event e = { .time = i < 3 ? 1000 * (i + 1) : UINT64_MAX,
				      .kind = MR_EV_ACCESS, .page = i, .task = 1,
				      .flags = MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_SYNTH) };

		rc = mr_writer_append(w, stream, &e);
	}
	if (!rc)
		rc = mr_writer_finish(w);
	if (rc)
		fprintf(stderr, "hostile_replay_tool: %s: %s\n", out,
			err.msg[0] ? err.msg : mr_writer_error(w) ? mr_writer_error(w)->msg : "failed");
	mr_writer_destroy(w);
	mr_store_close(s);
	return rc ? 1 : 0;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The layout is replayer/nextuse.c's: a 128-byte header (element size at 12, block
 * size at 20, reference count at 24), the values, one CRC-32C per block. */
static int forge_nextuse(const char *path)
{
	FILE *f = fopen(path, "r+b");
	uint8_t *b = NULL;
	long n;
	int rc = 1;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 128 || fseek(f, 0, SEEK_SET))
		goto out;
	b = malloc((size_t)n);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
		goto out;
	{
		uint64_t es = get32(b + 12), block = get32(b + 20);
		uint64_t total = get32(b + 24) | (uint64_t)get32(b + 28) << 32;
		uint64_t nblocks = block ? (total + block - 1) / block : 0;

		if ((es != 4 && es != 8) || !block || 128 + total * es + 4 * nblocks != (uint64_t)n)
			goto out;
		/* reference i "next used at" a scrambled position: plausible values, wrong */
		for (uint64_t i = 0; i < total; i++) {
			uint64_t v = (i * 2654435761u + 12345) % total;

			if (es == 4)
				put32(b + 128 + 4 * i, (uint32_t)v);
			else
				for (int k = 0; k < 8; k++)
					b[128 + 8 * i + k] = (uint8_t)(v >> (8 * k));
		}
		for (uint64_t k = 0; k < nblocks; k++) {
			uint64_t m = total - k * block < block ? total - k * block : block;

			put32(b + 128 + total * es + 4 * k,
			      mr_crc32c(0, b + 128 + k * block * es, m * es));
		}
	}
	if (fseek(f, 0, SEEK_SET) || fwrite(b, 1, (size_t)n, f) != (size_t)n)
		goto out;
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "hostile_replay_tool: %s: not a next-use file it can rewrite\n", path);
	free(b);
	if (f && fclose(f))
		rc = 1;
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "sql"))
		return run_sql(argv[2], argv[3], 0);
	if (argc == 4 && !strcmp(argv[1], "rows"))
		return run_sql(argv[2], argv[3], 1);
	if (argc == 3 && !strcmp(argv[1], "maxtime"))
		return make_maxtime(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "forge-nextuse"))
		return forge_nextuse(argv[2]);
	fprintf(stderr, "usage: hostile_replay_tool sql|rows DB SQL | maxtime OUT | forge-nextuse FILE\n");
	return 2;
}
