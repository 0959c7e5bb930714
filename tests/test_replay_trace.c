// SPDX-License-Identifier: GPL-2.0
/*
 * test_replay_trace.c - hand-made traces for the replay tests, written with the ordinary
 * store writer, and the helpers they share (test_replay_trace.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "mr_gen.h"
#include "mr_store.h"
#include "mr_test.h"
#include "test_replay_trace.h"

struct tb {
	struct mr_store *s;
	struct mr_writer *w;
	uint32_t stream;
	int rc;
};


struct tb *tb_create(const char *path, unsigned nodes)
{
	struct mr_error err = { 0 };
	struct tb *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->rc = mr_store_create(path, 1, &b->s, &err);
	if (!b->rc)
		b->rc = mr_writer_create(b->s, NULL, &b->w, &err);
	if (!b->rc)
		b->rc = mr_writer_add_stream(b->w, "test", "test", -1, &b->stream);
	if (!b->rc)
		b->rc = mr_writer_set_meta_u64(b->w, "nodes", nodes);
	if (b->rc)
		fprintf(stderr, "tb_create %s: %s\n", path, err.msg);
	return b;
}

void tb_cgroup(struct tb *b, uint32_t id, const char *path)
{
	struct mr_cgroup c = { .id = id, .path = path };

	if (!b->rc)
		b->rc = mr_writer_add_cgroup(b->w, &c);
}

void tb_mm(struct tb *b, uint32_t id)
{
	if (!b->rc)
		b->rc = mr_writer_add_mm(b->w, id, (int32_t)id, "test");
}

void tb_task(struct tb *b, uint32_t id, uint32_t mm, uint32_t cgroup)
{
	struct mr_task t = { .id = id, .pid = (int32_t)id, .tgid = (int32_t)mm, .mm = mm,
			     .cgroup = cgroup, .comm = "test" };

	if (!b->rc)
		b->rc = mr_writer_add_task(b->w, &t);
}

void tb_file(struct tb *b, uint32_t id, uint64_t npages)
{
	struct mr_file f = { .id = id, .dev = 1, .ino = id, .path = "/f", .size_pages = npages };

	if (!b->rc)
		b->rc = mr_writer_add_file(b->w, &f);
}

void tb_vma(struct tb *b, uint32_t id, uint32_t mm, uint64_t start, uint64_t npages,
	    uint32_t flags, uint32_t file, uint64_t pgoff)
{
	struct mr_vma_row v = { .id = id, .mm = mm, .start = start, .end = start + npages * 4096,
			    .flags = flags, .file = file, .pgoff = pgoff };

	if (!b->rc)
		b->rc = mr_writer_add_vma(b->w, &v);
}

void tb_page_anon(struct tb *b, uint32_t id, uint32_t mm, uint64_t vpage, uint32_t cgroup,
		  int node)
{
	struct mr_page p = { .id = id, .type = MR_PAGE_ANON, .mm = mm, .vpage = vpage,
			     .cgroup = cgroup, .node = (int16_t)node };

	if (!b->rc)
		b->rc = mr_writer_add_page(b->w, &p);
}

void tb_page_file(struct tb *b, uint32_t id, uint32_t file, uint64_t index, uint32_t cgroup,
		  int exec)
{
	struct mr_page p = { .id = id, .type = MR_PAGE_FILE, .file = file, .index = index,
			     .cgroup = cgroup, .exec = (uint8_t)exec, .node = 0 };

	if (!b->rc)
		b->rc = mr_writer_add_page(b->w, &p);
}

void tb_marker(struct tb *b, uint32_t id, uint64_t t)
{
	struct mr_event ev = { .time = t, .page = MR_PAGE_NONE, .kind = MR_EV_MARKER, .arg = id };

	if (!b->rc)
		b->rc = mr_writer_add_marker(b->w, id, t, "marker");
	if (!b->rc)
		b->rc = mr_writer_append(b->w, b->stream, &ev);
}

void tb_ev(struct tb *b, uint64_t time, unsigned kind, uint32_t page, uint32_t task,
	   unsigned flags, uint32_t size, uint64_t arg)
{
	struct mr_event ev = { .time = time, .arg = arg, .page = page, .task = task,
			       .size = size, .kind = (uint8_t)kind, .flags = (uint8_t)flags };

	if (!b->rc)
		b->rc = mr_writer_append(b->w, b->stream, &ev);
}

int tb_finish(struct tb *b)
{
	int rc = b->rc;

	if (!rc)
		rc = mr_writer_finish(b->w);
	mr_writer_destroy(b->w);
	mr_store_close(b->s);
	free(b);
	return rc;
}

/* ---- shared helpers ---- */

char *path_in(const char *name)
{
	static char buf[16][1024];
	static int i;

	i = (i + 1) % 16;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", mr_test_tmpdir(), name);
	return buf[i];
}

const char *gen_trace(const char *gen, const char *name, const char *const *kv, size_t n)
{
	const struct mr_gen *g = mr_gen_find(gen);
	const char *path = path_in(name);
	struct mr_gen_values v;
	struct mr_error err = { 0 };

	if (!access(path, F_OK))
		return path;
	CHECK(g != NULL);
	if (!g || mr_gen_defaults(g, &v, &err))
		return NULL;
	for (size_t i = 0; i + 1 < n; i += 2)
		CHECK(mr_gen_set(g, &v, kv[i], kv[i + 1], &err) == 0);
	v.seed = 3;
	if (mr_gen_write(g, &v, path, NULL, &err)) {
		fprintf(stderr, "gen %s: %s\n", gen, err.msg);
		CHECK(0);
		return NULL;
	}
	return path;
}

uint64_t ctr(const struct mr_replay *r, size_t run, const char *name)
{
	uint64_t v = UINT64_MAX;

	if (mr_replay_counter(r, run, name, -1, &v))
		fprintf(stderr, "no counter %s\n", name);
	return v;
}

static int file_bytes(const char *path, unsigned char **buf, size_t *n)
{
	FILE *f = fopen(path, "rb");
	long len;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	*buf = malloc((size_t)len + 1);
	*n = fread(*buf, 1, (size_t)len, f);
	fclose(f);
	return 0;
}

int same_file(const char *a, const char *b)
{
	unsigned char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	int same;

	if (file_bytes(a, &x, &nx) || file_bytes(b, &y, &ny)) {
		free(x);
		free(y);
		return 0;
	}
	same = nx == ny && nx > 0 && !memcmp(x, y, nx);
	free(x);
	free(y);
	return same;
}

int64_t sql_int(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else
		fprintf(stderr, "sql failed: %s: %s\n", sql, h ? sqlite3_errmsg(h) : "?");
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

struct tb *tb_anon_process(const char *path, uint64_t base, uint32_t npages, uint64_t t_map)
{
	struct tb *b = tb_create(path, 1);

	tb_cgroup(b, 1, "/test");
	tb_mm(b, 1);
	tb_task(b, 1, 1, 1);
	tb_vma(b, 1, 1, base, npages, MR_VMA_READ | MR_VMA_WRITE, 0, 0);
	for (uint32_t i = 0; i < npages; i++)
		tb_page_anon(b, i, 1, (base >> 12) + i, 1, 0);
	tb_ev(b, t_map, MR_EV_MAP, MR_PAGE_NONE, 1, 0, 0, 1);
	return b;
}
