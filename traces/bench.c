// SPDX-License-Identifier: GPL-2.0
/*
 * bench.c - store benchmark: generator traces written through the real writer, then read
 * back twice: the pure chunk codec over blobs held in memory (the decode rate the format
 * allows), and the reader over the SQLite file (the rate a replay sees).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_bench.h"
#include "mr_codec.h"
#include "mr_gen.h"
#include "mr_store.h"
#include "mr_util.h"

/* Decode every chunk blob of the store from memory, best of 3 rounds. */
static int bench_decode(struct mr_store *s, struct mr_bench_store_case *c, struct mr_error *err)
{
	sqlite3_stmt *st;
	uint8_t **blobs = NULL;
	size_t *lens = NULL, nb = 0, capb = 0;
	size_t scap = mr_chunk_scratch_size(MR_CHUNK_MAX_EVENTS);
	void *scratch = malloc(scap);
	struct mr_event *ev = malloc(MR_CHUNK_MAX_EVENTS * sizeof(*ev));
	double best = 0;
	uint64_t total = 0;
	int rc = 0;

	if (!scratch || !ev) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(mr_store_db(s), "SELECT data FROM chunks ORDER BY id", -1, &st, NULL)) {
		rc = mr_error_set(err, MR_EIO, "%s", sqlite3_errmsg(mr_store_db(s)));
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(st, 0);

		if (nb == capb) {
			capb = capb ? capb * 2 : 1024;
			blobs = realloc(blobs, capb * sizeof(*blobs));
			lens = realloc(lens, capb * sizeof(*lens));
			if (!blobs || !lens) {
				sqlite3_finalize(st);
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				goto out;
			}
		}
		blobs[nb] = malloc(len);
		if (!blobs[nb]) {
			sqlite3_finalize(st);
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(blobs[nb], sqlite3_column_blob(st, 0), len);
		lens[nb++] = len;
	}
	sqlite3_finalize(st);
	for (int round = 0; round < 3; round++) {
		double t0 = mr_clock_s(), dt;

		total = 0;
		for (size_t i = 0; i < nb; i++) {
			size_t n;

			rc = mr_chunk_decode(blobs[i], lens[i], scratch, scap, ev, MR_CHUNK_MAX_EVENTS,
					     &n, NULL, err);
			if (rc)
				goto out;
			total += n;
		}
		dt = mr_clock_s() - t0;
		if (dt > 0 && (double)total / dt > best)
			best = (double)total / dt;
	}
	c->decode_mevps = best / 1e6;
out:
	for (size_t i = 0; i < nb; i++)
		free(blobs[i]);
	free(blobs);
	free(lens);
	free(scratch);
	free(ev);
	return rc;
}

static int bench_read(struct mr_store *s, struct mr_bench_store_case *c, struct mr_error *err)
{
	struct mr_reader *r;
	struct mr_event buf[4096];
	uint64_t total = 0;
	size_t n;
	double t0 = mr_clock_s();
	int rc = mr_reader_open(s, NULL, &r, err);

	if (rc)
		return rc;
	while ((rc = mr_reader_read(r, buf, 4096, &n)) == 0)
		total += n;
	if (rc == MR_EOF)
		rc = 0;
	else
		*err = *mr_reader_error(r);
	mr_reader_close(r);
	c->read_mevps = (double)total / (mr_clock_s() - t0) / 1e6;
	return rc;
}

/* Generate + write in a child so its peak RSS is the writer's (and generator's) alone. */
static int write_in_child(const struct mr_gen *g, const struct mr_gen_values *vals,
			  const char *path, uint64_t *peak_rss, struct mr_error *err)
{
	struct rusage ru;
	int fds[2], status = 0;
	pid_t pid;
	ssize_t got;

	if (pipe(fds))
		return mr_error_set(err, MR_EIO, "pipe failed");
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return mr_error_set(err, MR_EIO, "fork failed");
	}
	if (pid == 0) {
		int rc;

		close(fds[0]);
		rc = mr_gen_write(g, vals, path, NULL, err);
		if (rc && write(fds[1], err, sizeof(*err)) < 0)
			_exit(3);
		_exit(rc ? 1 : 0);
	}
	close(fds[1]);
	got = read(fds[0], err, sizeof(*err));
	close(fds[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return mr_error_set(err, MR_EIO, "wait failed");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return got == (ssize_t)sizeof(*err) ? err->code
						     : mr_error_set(err, MR_EIO, "generator process failed");
	*peak_rss = (uint64_t)ru.ru_maxrss * 1024;
	return 0;
}

static int run_case(const struct mr_bench_store_opts *o, const char *label, const char *gen,
		    const char *const *params, struct mr_bench_store_case *c, struct mr_error *err)
{
	const struct mr_gen *g = mr_gen_find(gen);
	struct mr_gen_values vals;
	struct mr_store_summary sum;
	struct mr_store *s;
	char path[4096];
	double t0;
	int rc;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", label);
	if (!g)
		return mr_error_set(err, MR_ENOENT, "generator %s missing", gen);
	rc = mr_gen_defaults(g, &vals, err);
	for (; !rc && params && params[0]; params += 2)
		rc = mr_gen_set(g, &vals, params[0], params[1], err);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/bench-%s.db", o->dir, gen);
	t0 = mr_clock_s();
	rc = write_in_child(g, &vals, path, &c->write_peak_rss, err);
	if (rc)
		return rc;
	c->write_s = mr_clock_s() - t0;
	rc = mr_store_open(path, MR_STORE_RDONLY, &s, err);
	if (rc)
		return rc;
	rc = mr_store_summarize(s, &sum, err);
	if (!rc) {
		c->events = sum.n_events;
		c->chunks = sum.n_chunks;
		c->bytes_per_event = sum.n_events ? (double)sum.stored_bytes / (double)sum.n_events : 0;
		c->payload_per_event = sum.n_events ? (double)sum.payload_bytes / (double)sum.n_events : 0;
		c->file_bytes = sum.file_bytes;
		c->writer_buffer_bytes = mr_chunk_scratch_size(MR_CHUNK_DEFAULT_EVENTS) +
					 mr_chunk_bound(MR_CHUNK_DEFAULT_EVENTS) +
					 MR_CHUNK_DEFAULT_EVENTS * sizeof(struct mr_event);
		rc = bench_decode(s, c, err);
	}
	if (!rc)
		rc = bench_read(s, c, err);
	mr_store_close(s);
	if (!o->keep)
		unlink(path);
	return rc;
}

int mr_bench_store(const struct mr_bench_store_opts *o, struct mr_bench_store_case *out,
		   size_t cap, size_t *n, struct mr_error *err)
{
	char events[32], pages[32], seqpages[32];
	const char *zipf[] = { "events", events, "pages", pages, "skew", "1.0", NULL };
	const char *seq[] = { "size", seqpages, NULL };
	const char *loop[] = { "size", seqpages, NULL };
	int rc;

	*n = 0;
	snprintf(events, sizeof(events), "%llu", (unsigned long long)(o->events ? o->events : 50000000));
	snprintf(pages, sizeof(pages), "%llu", (unsigned long long)(o->pages ? o->pages : 1048576));
	snprintf(seqpages, sizeof(seqpages), "%llu", (unsigned long long)(o->pages ? o->pages : 1048576));
	if (cap < 3)
		return mr_error_set(err, MR_EINVAL, "need room for 3 cases");
	rc = run_case(o, "zipf(1.0)", "zipf", zipf, &out[0], err);
	if (!rc)
		rc = run_case(o, "seq", "seq", seq, &out[1], err);
	if (!rc)
		rc = run_case(o, "loop", "loop", loop, &out[2], err);
	*n = rc ? 0 : 3;
	return rc;
}
