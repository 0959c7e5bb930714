// SPDX-License-Identifier: GPL-2.0
/*
 * results.c - the results database (docs/results-schema.md): written once per replay in
 * one transaction, read by `compare`. Everything written is a function of the trace and
 * the parameters, so two replays give byte-identical files; wall time goes only to the
 * `timing` table, and only when asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mr_policy.h"
#include "mr_results.h"
#include "mr_util.h"

/*
 * The view `curve` (docs/results-schema.md, "curve"): per run the miss ratio
 * mr_misses / mr_references and the counters a curve over memory sizes shows. Its
 * SELECT is also what mr_results_curve() runs, so files written before the view are
 * read the same way.
 */
#define CURVE_SELECT                                                                     \
	"SELECT r.id AS run, r.policy AS policy, r.spec AS spec, r.memory_pages AS memory_pages," \
	" c.refs AS refs, c.misses AS misses,"                                           \
	" CASE WHEN c.refs > 0 THEN CAST(c.misses AS REAL) / c.refs END AS miss_ratio,"   \
	" c.first_touch AS first_touch, c.refaults_anon AS refaults_anon,"               \
	" c.refaults_file AS refaults_file, c.pswpin AS pswpin, c.pswpout AS pswpout,"    \
	" c.evictions AS evictions, c.oom AS oom"                                        \
	" FROM runs r LEFT JOIN (SELECT run,"                                            \
	" max(CASE name WHEN 'mr_references' THEN value END) AS refs,"                   \
	" max(CASE name WHEN 'mr_misses' THEN value END) AS misses,"                     \
	" max(CASE name WHEN 'mr_first_touch' THEN value END) AS first_touch,"           \
	" max(CASE name WHEN 'workingset_refault_anon' THEN value END) AS refaults_anon,"  \
	" max(CASE name WHEN 'workingset_refault_file' THEN value END) AS refaults_file,"  \
	" max(CASE name WHEN 'pswpin' THEN value END) AS pswpin,"                        \
	" max(CASE name WHEN 'pswpout' THEN value END) AS pswpout,"                      \
	" max(CASE name WHEN 'mr_evictions' THEN value END) AS evictions,"               \
	" max(CASE name WHEN 'mr_oom' THEN value END) AS oom"                            \
	" FROM counters WHERE memcg IS NULL GROUP BY run) c ON c.run = r.id"
#define CURVE_VIEW "CREATE VIEW curve AS " CURVE_SELECT

/*
 * The index of counters, made after the rows are in: one sort instead of a B-tree insert
 * per row. timeseries, the largest table (a sampled pass of 48 runs writes 200K rows),
 * has its key as its primary key instead (WITHOUT ROWID), its rows written in key order
 * (by_name()): an index sorted after the rows took as long as the rows themselves, and
 * the file was 1.7 times as large.
 */
static const char index_sql[] = "CREATE INDEX counters_run_name ON counters(run, name);\n";

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;\n"
	"CREATE TABLE runs(id INTEGER PRIMARY KEY, policy TEXT NOT NULL, spec TEXT NOT NULL,"
	" params TEXT NOT NULL, trace TEXT NOT NULL, trace_id TEXT NOT NULL,"
	" trace_events INTEGER NOT NULL, trace_t_first INTEGER NOT NULL,"
	" trace_t_last INTEGER NOT NULL, memory_pages INTEGER, memory_spec TEXT,"
	" swap_pages INTEGER, page_size INTEGER NOT NULL, nodes INTEGER NOT NULL,"
	" memcgs INTEGER NOT NULL, writeback_delay_ns INTEGER NOT NULL,"
	" interval_ns INTEGER NOT NULL, snapshot_every_ns INTEGER, script TEXT,"
	" script_sha256 TEXT, version TEXT NOT NULL, events INTEGER NOT NULL,"
	" reclaim TEXT NOT NULL, shadow TEXT NOT NULL, fault_around_pages INTEGER NOT NULL,"
	" vary_seed INTEGER, vary_p REAL);\n"
	"CREATE TABLE memcgs(run INTEGER NOT NULL, cgroup INTEGER NOT NULL, path TEXT,"
	" limit_pages INTEGER, PRIMARY KEY(run, cgroup)) WITHOUT ROWID;\n"
	"CREATE TABLE counters(run INTEGER NOT NULL, memcg INTEGER, name TEXT NOT NULL,"
	" value INTEGER NOT NULL);\n"
	"CREATE TABLE model_counters(run INTEGER NOT NULL, name TEXT NOT NULL, value REAL);\n"
	"CREATE TABLE timeseries(run INTEGER NOT NULL, t_ns INTEGER NOT NULL, name TEXT NOT NULL,"
	" value INTEGER NOT NULL, PRIMARY KEY(run, name, t_ns)) WITHOUT ROWID;\n"
	"CREATE TABLE lru_gen(run INTEGER NOT NULL, t_ns INTEGER NOT NULL, full INTEGER NOT NULL,"
	" why TEXT NOT NULL, text TEXT NOT NULL);\n"
	"CREATE TABLE script_log(run INTEGER NOT NULL, t_ns INTEGER NOT NULL, line INTEGER,"
	" command TEXT NOT NULL, rc INTEGER NOT NULL, message TEXT);\n"
	"CREATE TABLE timing(run INTEGER NOT NULL, wall_s REAL, threads INTEGER);\n"
	"CREATE TABLE notes(run INTEGER NOT NULL, kind TEXT NOT NULL, message TEXT NOT NULL);\n"
	"CREATE TABLE segments(run INTEGER NOT NULL, seg INTEGER NOT NULL,"
	" event_first INTEGER NOT NULL, event_end INTEGER NOT NULL, t_first_ns INTEGER NOT NULL,"
	" t_last_ns INTEGER NOT NULL, PRIMARY KEY(run, seg)) WITHOUT ROWID;\n"
	"CREATE TABLE segment_counters(run INTEGER NOT NULL, seg INTEGER NOT NULL,"
	" name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY(run, name, seg)) WITHOUT ROWID;\n"
	"CREATE VIEW vmstat AS SELECT run, name, value FROM counters WHERE memcg IS NULL;\n"
	"CREATE VIEW memory_stat AS SELECT run, memcg, name, value FROM counters"
	" WHERE memcg IS NOT NULL;\n"
	CURVE_VIEW ";\n";

static int sqlfail(sqlite3 *db, const char *path, const char *what, struct mr_error *err)
{
	return mr_error_set(err, MR_EIO, "results %s: %s: %s", path, what,
			    db ? sqlite3_errmsg(db) : "cannot open");
}

/*
 * Writing results (mr_results_claim()): a writer first claims the path, then writes a
 * complete database under a temporary name in the same directory and renames it over
 * the path, so a reader (or a crash) never sees half a file and a failed write leaves
 * whatever was there.
 *
 * The claim is an flock() on PATH.lock, held from the claim until the release: a second
 * writer of the same path fails at once (MR_EBUSY, naming the holder's pid) instead of
 * both reporting success for one file. The lock file is removed on release; a writer
 * that finds it removed under it (its inode no longer at the name) tries again, and
 * one left by a killed writer is unlocked and reused. Its content is the holder's pid,
 * for the message.
 */
struct mr_results_claim {
	int fd;
	char path[1024];
	char lock[1040];
};

int mr_results_check_target(const char *path, struct mr_error *err)
{
	struct stat sb;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t app = 0;

	if (lstat(path, &sb)) {
		if (errno == ENOENT)
			return 0;
		return mr_error_set(err, MR_EIO, "cannot write results to %s: %s", path, strerror(errno));
	}
	/* a dangling link would have its target created; a live one replaced by a file */
	if (S_ISLNK(sb.st_mode))
		return mr_error_set(err, MR_EINVAL,
				    "%s is a symbolic link: give the path of the results file itself (-o)",
				    path);
	if (!S_ISREG(sb.st_mode))
		return mr_error_set(err, MR_EINVAL, "%s exists and is not a regular file", path);
	if (sb.st_size > 0) {
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
		    sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			app = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		sqlite3_close(db);
		if ((uint32_t)app != MR_RESULTS_APP_ID)
			return mr_error_set(err, MR_EINVAL,
					    "%s exists and is not a memreplay results database (it may be a trace): choose another -o path or remove it",
					    path);
	}
	return 0;
}

static int busy(const struct mr_results_claim *c, int fd, struct mr_error *err)
{
	char who[32] = "";
	ssize_t n = pread(fd, who, sizeof(who) - 1, 0);

	who[n > 0 ? n : 0] = 0;
	who[strcspn(who, "\n")] = 0;
	return mr_error_set(err, MR_EBUSY,
			    "results %s are being written by another replay%s%s (it holds %s): wait for it to finish or give another -o",
			    c->path, *who ? ", pid " : "", who, c->lock);
}

int mr_results_claim(const char *path, struct mr_results_claim **out, struct mr_error *err)
{
	struct mr_results_claim *c;
	int rc;

	*out = NULL;
	if (!path || !*path)
		return mr_error_set(err, MR_EINVAL, "no results path given");
	if (strlen(path) > MR_RESULTS_PATH_MAX || strlen(path) >= sizeof(c->path) - 32)
		return mr_error_set(err, MR_EINVAL, "results path '%.60s...' is too long", path);
	c = calloc(1, sizeof(*c));
	if (!c)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	c->fd = -1;
	snprintf(c->path, sizeof(c->path), "%s", path);
	snprintf(c->lock, sizeof(c->lock), "%s.lock", path);
	rc = mr_results_check_target(path, err);
	for (int tries = 0; !rc; tries++) {
		struct stat fs, ls;
		char pid[32];
		/* O_NOFOLLOW | O_NONBLOCK: a planted link or FIFO is refused, not followed
		 * or waited on */
		int fd = open(c->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);

		if (fd < 0) {
			rc = mr_error_set(err, errno == EACCES || errno == EROFS ? MR_EPERM : MR_EIO,
					  "cannot write results to %s: creating %s: %s", path, c->lock,
					  strerror(errno));
			break;
		}
		if (fstat(fd, &fs) || !S_ISREG(fs.st_mode)) {
			close(fd);
			rc = mr_error_set(err, MR_EINVAL, "cannot write results to %s: %s is not a lock file memreplay made; remove it",
					  path, c->lock);
			break;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			rc = errno == EWOULDBLOCK ? busy(c, fd, err)
						  : mr_error_set(err, MR_EIO, "cannot lock %s: %s", c->lock,
								 strerror(errno));
			close(fd);
			break;
		}
		/* the lock holds only if the name still leads to this inode: a releasing
		 * writer unlinks it, and a new one would lock a new file */
		if (lstat(c->lock, &ls) || ls.st_ino != fs.st_ino || ls.st_dev != fs.st_dev) {
			close(fd);
			if (tries < 16)
				continue;
			rc = mr_error_set(err, MR_EBUSY, "cannot lock %s: it keeps being replaced", c->lock);
			break;
		}
		/* the pid is only for a second writer's message: no reason to fail */
		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (!ftruncate(fd, 0)) {
			ssize_t w = pwrite(fd, pid, strlen(pid), 0);

			(void)w;
		}
		c->fd = fd;
		break;
	}
	if (rc) {
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void mr_results_release(struct mr_results_claim *c)
{
	if (!c)
		return;
	if (c->fd >= 0) {
		unlink(c->lock); /* while still locked: see mr_results_claim() */
		close(c->fd);
	}
	free(c);
}

const char *mr_results_claim_path(const struct mr_results_claim *c)
{
	return c->path;
}

/* A new file beside path, created exclusively (the umask applies, as for any file the
 * user creates); its name into tmp. */
static int create_temp(const char *path, char *tmp, size_t cap, struct mr_error *err)
{
	static unsigned seq;

	for (int tries = 0; tries < 100; tries++) {
		int fd;

		snprintf(tmp, cap, "%s.tmp-%ld-%u", path, (long)getpid(),
			 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return mr_error_set(err, errno == ENOSPC ? MR_ENOSPC : MR_EIO,
					    "cannot write results to %s: creating %s: %s", path, tmp,
					    strerror(errno));
	}
	return mr_error_set(err, MR_EIO, "cannot write results to %s: no free temporary name", path);
}

struct wctx {
	sqlite3 *db;
	const char *path;
	struct mr_error *err;
};

static int exec(struct wctx *w, const char *sql)
{
	if (sqlite3_exec(w->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sqlfail(w->db, w->path, "writing", w->err);
	return 0;
}

static int prep(struct wctx *w, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) != SQLITE_OK)
		return sqlfail(w->db, w->path, "preparing", w->err);
	return 0;
}

static int step_reset(struct wctx *w, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return sqlfail(w->db, w->path, "inserting", w->err);
	return 0;
}

/*
 * The insert statements: NINS of one row each, and for the two tables of (run, integer,
 * name, value) rows, timeseries and segment_counters, statements of NROWS rows: a
 * sampled pass of 48 runs writes 250K such rows, and one statement of 32 rows costs
 * far less than 32 of one (SQLite runs each statement's preamble once).
 */
enum { NINS = 11, ST_TS_ROWS = NINS, ST_SEG_ROWS, NST };
#define NROWS 32

/* Rows (run, a, name, v) of one run and name, written NROWS at a time */
struct rows {
	struct wctx *w;
	sqlite3_stmt *one, *many;
	int64_t run;
	const char *name;
	int nlen;
	unsigned n;
	int64_t a[NROWS];
	uint64_t v[NROWS];
};

/* step_reset() for a statement whose every parameter the next row binds again */
static int step_rebind(struct wctx *w, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sqlfail(w->db, w->path, "inserting", w->err);
	return 0;
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static void bind_row(sqlite3_stmt *st, int first, const struct rows *b, unsigned i)
{
	sqlite3_bind_int64(st, first, b->run);
	sqlite3_bind_int64(st, first + 1, b->a[i]);
	sqlite3_bind_text(st, first + 2, b->name, b->nlen, SQLITE_STATIC);
	bind_u64(st, first + 3, b->v[i]);
}

static int rows_flush(struct rows *b)
{
	int rc = 0;

	if (b->n == NROWS) {
		for (unsigned i = 0; i < NROWS; i++)
			bind_row(b->many, 4 * (int)i + 1, b, i);
		rc = step_rebind(b->w, b->many);
	} else {
		for (unsigned i = 0; !rc && i < b->n; i++) {
			bind_row(b->one, 1, b, i);
			rc = step_rebind(b->w, b->one);
		}
	}
	b->n = 0;
	return rc;
}

static int rows_add(struct rows *b, int64_t a, uint64_t v)
{
	b->a[b->n] = a;
	b->v[b->n++] = v;
	return b->n == NROWS ? rows_flush(b) : 0;
}

/* The rows that follow are name's (those before it go out first) */
static int rows_name(struct rows *b, const char *name)
{
	int rc = rows_flush(b);

	b->name = name;
	b->nlen = (int)strlen(name);
	return rc;
}

struct named {
	const char *name;
	size_t k;
};

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* The counters' names in the order of a key (run, name, ...): BINARY collation compares
 * bytes as strcmp() does, so the rows of a run go in at the end of the B-tree. */
static struct named *by_name(struct wctx *w, const char *const *names, size_t n)
{
	struct named *v = malloc((n ? n : 1) * sizeof(*v));

	if (!v) {
		mr_error_set(w->err, MR_ENOMEM, "results %s: out of memory", w->path);
		return NULL;
	}
	for (size_t k = 0; k < n; k++)
		v[k] = (struct named){ names[k], k };
	qsort(v, n, sizeof(*v), named_cmp);
	return v;
}

/* segments and the increments of their counters; an increment of 0 is not written
 * (docs/results-schema.md, "segments") */
static int write_segments(struct wctx *w, sqlite3_stmt **st, const struct mr_run_result *r,
			  int64_t id)
{
	struct rows rows = { .w = w, .one = st[10], .many = st[ST_SEG_ROWS], .run = id };
	struct named *order;
	int rc = 0;

	for (size_t s = 0; !rc && s < r->nsegs; s++) {
		sqlite3_bind_int64(st[9], 1, id);
		sqlite3_bind_int64(st[9], 2, (int64_t)s);
		bind_u64(st[9], 3, r->segs[s].ev_first);
		bind_u64(st[9], 4, r->segs[s].ev_end);
		bind_u64(st[9], 5, r->segs[s].t_first);
		bind_u64(st[9], 6, r->segs[s].t_last);
		rc = step_reset(w, st[9]);
	}
	if (rc || !(order = by_name(w, r->seg_names, r->seg_nnames)))
		return rc ? rc : MR_ENOMEM;
	for (size_t i = 0; !rc && i < r->seg_nnames; i++) {
		size_t k = order[i].k;

		rc = rows_name(&rows, r->seg_names[k]);
		for (size_t s = 0; !rc && s < r->nsegs; s++) {
			uint64_t v = r->seg_val[s * r->seg_nnames + k];
			uint64_t prev = s ? r->seg_val[(s - 1) * r->seg_nnames + k] : 0;

			if (v < prev) {
				free(order);
				return mr_error_set(w->err, MR_EINVAL,
						    "results %s: segment counter %s goes down in segment %zu of run %lld",
						    w->path, r->seg_names[k], s, (long long)id);
			}
			if (v != prev)
				rc = rows_add(&rows, (int64_t)s, v - prev);
		}
	}
	if (!rc)
		rc = rows_flush(&rows);
	free(order);
	return rc;
}

static int write_run(struct wctx *w, sqlite3_stmt **st, const struct mr_results_setup *in,
		     const struct mr_run_result *r, int64_t id)
{
	const char *note = in->notes ? in->notes[id - 1] : NULL;
	const char *cov = in->coverage ? in->coverage[id - 1] : NULL;
	const char *colon = strchr(r->spec, ':');
	struct rows rows = { .w = w, .one = st[4], .many = st[ST_TS_ROWS], .run = id };
	struct named *order = NULL;
	int rc;

	/* runs */
	sqlite3_bind_int64(st[0], 1, id);
	sqlite3_bind_text(st[0], 2, r->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 3, r->spec, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 4, colon ? colon + 1 : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 5, in->trace_path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 6, in->trace_id, -1, SQLITE_STATIC);
	bind_u64(st[0], 7, in->trace_events);
	bind_u64(st[0], 8, in->trace_t_first);
	bind_u64(st[0], 9, in->trace_t_last);
	if (r->memory_pages || in->memory_pages)
		bind_u64(st[0], 10, r->memory_pages ? r->memory_pages : in->memory_pages);
	if (in->memory_spec)
		sqlite3_bind_text(st[0], 11, in->memory_spec, -1, SQLITE_STATIC);
	if (in->no_swap)
		bind_u64(st[0], 12, 0);
	else if (in->swap_pages)
		bind_u64(st[0], 12, in->swap_pages);
	sqlite3_bind_int(st[0], 13, 4096);
	sqlite3_bind_int(st[0], 14, (int)in->nodes);
	sqlite3_bind_int(st[0], 15, (int)in->nr_memcgs);
	bind_u64(st[0], 16, in->wb_delay_ns);
	bind_u64(st[0], 17, in->interval_ns);
	if (in->snapshot_every_ns)
		bind_u64(st[0], 18, in->snapshot_every_ns);
	if (in->script)
		sqlite3_bind_text(st[0], 19, in->script, -1, SQLITE_STATIC);
	if (in->script_sha256)
		sqlite3_bind_text(st[0], 20, in->script_sha256, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 21, MR_VERSION_STRING, -1, SQLITE_STATIC);
	bind_u64(st[0], 22, r->events);
	sqlite3_bind_text(st[0], 23, in->reclaim ? in->reclaim : "memcg", -1, SQLITE_STATIC);
	sqlite3_bind_text(st[0], 24, in->shadow ? in->shadow : "keep", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st[0], 25, in->fault_around_pages ? in->fault_around_pages : 16);
	if (r->vary_seed) {
		sqlite3_bind_int64(st[0], 26, r->vary_seed);
		sqlite3_bind_double(st[0], 27, r->vary_p);
	}
	rc = step_reset(w, st[0]);
	/* memcgs */
	for (uint32_t i = 0; !rc && i < in->nr_memcgs; i++) {
		sqlite3_bind_int64(st[1], 1, id);
		bind_u64(st[1], 2, in->memcgs[i].cgroup);
		sqlite3_bind_text(st[1], 3, in->memcgs[i].path, -1, SQLITE_STATIC);
		if (in->memcgs[i].limit_pages)
			bind_u64(st[1], 4, in->memcgs[i].limit_pages);
		rc = step_reset(w, st[1]);
	}
	/* counters */
	for (size_t i = 0; !rc && i < r->ncounters; i++) {
		sqlite3_bind_int64(st[2], 1, id);
		if (r->counters[i].memcg >= 0)
			sqlite3_bind_int64(st[2], 2, r->counters[i].memcg);
		sqlite3_bind_text(st[2], 3, r->counters[i].name, -1, SQLITE_STATIC);
		bind_u64(st[2], 4, r->counters[i].value);
		rc = step_reset(w, st[2]);
	}
	if (in->sample_den) {
		/* what a sampled run's miss ratio needs beside its own counters */
		const char *const names[4] = { "mr_sample_trace_references", "mr_sample_pages",
					       "mr_sample_trace_pages", "mr_sample_references" };
		const uint64_t vals[4] = { in->sample_trace_refs, in->sample_pages,
					   in->sample_trace_pages, in->sample_refs };

		for (int i = 0; !rc && i < 4; i++) {
			sqlite3_bind_int64(st[2], 1, id);
			sqlite3_bind_text(st[2], 3, names[i], -1, SQLITE_STATIC);
			bind_u64(st[2], 4, vals[i]);
			rc = step_reset(w, st[2]);
		}
	}
	for (size_t i = 0; !rc && i < r->nmodel; i++) {
		sqlite3_bind_int64(st[3], 1, id);
		sqlite3_bind_text(st[3], 2, r->model[i].name, -1, SQLITE_STATIC);
		if (!isnan(r->model[i].value))
			sqlite3_bind_double(st[3], 3, r->model[i].value);
		rc = step_reset(w, st[3]);
	}
	if (!rc && r->ts_nnames && !(order = by_name(w, r->ts_names, r->ts_nnames)))
		rc = MR_ENOMEM;
	for (size_t i = 0; !rc && i < r->ts_nnames; i++) {
		size_t k = order[i].k;

		rc = rows_name(&rows, r->ts_names[k]);
		for (size_t s = 0; !rc && s < r->ts_nsamples; s++)
			rc = rows_add(&rows, (int64_t)r->ts_t[s], r->ts_val[s * r->ts_nnames + k]);
	}
	if (!rc)
		rc = rows_flush(&rows);
	free(order);
	for (size_t i = 0; !rc && i < r->nsnaps; i++) {
		sqlite3_bind_int64(st[5], 1, id);
		bind_u64(st[5], 2, r->snaps[i].t);
		sqlite3_bind_int(st[5], 3, r->snaps[i].full);
		sqlite3_bind_text(st[5], 4, r->snaps[i].why, -1, SQLITE_STATIC);
		sqlite3_bind_text(st[5], 5, r->snaps[i].text, -1, SQLITE_STATIC);
		rc = step_reset(w, st[5]);
	}
	for (size_t i = 0; !rc && i < r->nlog; i++) {
		sqlite3_bind_int64(st[6], 1, id);
		bind_u64(st[6], 2, r->log[i].t);
		sqlite3_bind_int(st[6], 3, (int)r->log[i].line);
		sqlite3_bind_text(st[6], 4, r->log[i].cmd, -1, SQLITE_STATIC);
		sqlite3_bind_int(st[6], 5, r->log[i].rc);
		sqlite3_bind_text(st[6], 6, r->log[i].msg, -1, SQLITE_STATIC);
		rc = step_reset(w, st[6]);
	}
	if (!rc && in->record_timing) {
		sqlite3_bind_int64(st[7], 1, id);
		sqlite3_bind_double(st[7], 2, r->wall_s);
		sqlite3_bind_int(st[7], 3, in->threads);
		rc = step_reset(w, st[7]);
	}
	if (!rc && cov) {
		sqlite3_bind_int64(st[8], 1, id);
		sqlite3_bind_text(st[8], 2, "coverage", -1, SQLITE_STATIC);
		sqlite3_bind_text(st[8], 3, cov, -1, SQLITE_STATIC);
		rc = step_reset(w, st[8]);
	}
	if (!rc && note) {
		const char *kind = in->note_kinds && in->note_kinds[id - 1] ? in->note_kinds[id - 1]
				   : in->note_kind ? in->note_kind : "note";

		sqlite3_bind_int64(st[8], 1, id);
		sqlite3_bind_text(st[8], 2, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st[8], 3, note, -1, SQLITE_STATIC);
		rc = step_reset(w, st[8]);
	}
	if (!rc && in->sample_den && in->sample_note) {
		/* per run, so that a merge keeps it with the run (meta is the output's) */
		sqlite3_bind_int64(st[8], 1, id);
		sqlite3_bind_text(st[8], 2, "sampled", -1, SQLITE_STATIC);
		sqlite3_bind_text(st[8], 3, in->sample_note, -1, SQLITE_STATIC);
		rc = step_reset(w, st[8]);
	}
	for (size_t i = 0; !rc && i < r->nnotes; i++) {
		sqlite3_bind_int64(st[8], 1, id);
		sqlite3_bind_text(st[8], 2, r->notes[i].kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st[8], 3, r->notes[i].message, -1, SQLITE_STATIC);
		rc = step_reset(w, st[8]);
	}
	if (!rc)
		rc = write_segments(w, st, r, id);
	return rc;
}

int mr_results_write_claimed(const struct mr_results_claim *c,
			     const struct mr_results_setup *setup,
			     const struct mr_run_result *runs, size_t nruns, struct mr_error *err)
{
	static const char *const ins[NINS] = {
		"INSERT INTO runs VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,"
		"?18,?19,?20,?21,?22,?23,?24,?25,?26,?27)",
		"INSERT INTO memcgs VALUES(?1,?2,?3,?4)",
		"INSERT INTO counters VALUES(?1,?2,?3,?4)",
		"INSERT INTO model_counters VALUES(?1,?2,?3)",
		"INSERT INTO timeseries VALUES(?1,?2,?3,?4)",
		"INSERT INTO lru_gen VALUES(?1,?2,?3,?4,?5)",
		"INSERT INTO script_log VALUES(?1,?2,?3,?4,?5,?6)",
		"INSERT INTO timing VALUES(?1,?2,?3)",
		"INSERT INTO notes VALUES(?1,?2,?3)",
		"INSERT INTO segments VALUES(?1,?2,?3,?4,?5,?6)",
		"INSERT INTO segment_counters VALUES(?1,?2,?3,?4)",
	};
	const char *path = c->path;
	struct wctx w = { .path = path, .err = err };
	sqlite3_stmt *st[NST] = { 0 };
	char sql[256], tmp[1100], side[1200];
	int rc = mr_results_check_target(path, err); /* again: it may have changed since the claim */

	if (!rc)
		rc = create_temp(path, tmp, sizeof(tmp), err);
	if (rc)
		return rc;
	/* one thread writes through this connection: no mutex per call (3 % of a sampled
	 * pass's process); a cache of up to 64 MiB, which holds a 48-run file (8 MiB)
	 * without spilling pages mid-write */
	if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = sqlfail(w.db, path, "creating", err);
		goto out;
	}
	snprintf(sql, sizeof(sql),
		 "PRAGMA journal_mode=DELETE; PRAGMA cache_size=-65536; PRAGMA application_id=%d; PRAGMA user_version=%d; BEGIN;",
		 (int)MR_RESULTS_APP_ID, MR_RESULTS_VERSION);
	rc = exec(&w, sql);
	if (!rc)
		rc = exec(&w, schema_sql);
	if (!rc)
		rc = exec(&w, "INSERT INTO meta VALUES('format', 'memreplay results v1');"
			      "INSERT INTO meta VALUES('version', '" MR_VERSION_STRING "');");
	if (!rc && setup->sample_den) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO meta VALUES('sample_den', %u);"
			 "INSERT INTO meta VALUES('sample_seed', %llu);"
			 "INSERT INTO meta VALUES('sample_unit_pages', %u);", setup->sample_den,
			 (unsigned long long)setup->sample_seed,
			 setup->sample_unit ? setup->sample_unit : 1u);
		rc = exec(&w, sql);
	}
	for (int i = 0; !rc && i < NINS; i++)
		rc = prep(&w, ins[i], &st[i]);
	for (int i = ST_TS_ROWS; !rc && i <= ST_SEG_ROWS; i++) {
		char multi[64 + NROWS * 10];
		struct mr_strbuf sb = { multi, sizeof(multi), 0 };

		mr_strbuf_printf(&sb, "INSERT INTO %s VALUES",
				 i == ST_TS_ROWS ? "timeseries" : "segment_counters");
		for (int j = 0; j < NROWS; j++)
			mr_strbuf_printf(&sb, "%s(?,?,?,?)", j ? "," : "");
		rc = prep(&w, multi, &st[i]);
	}
	for (size_t i = 0; !rc && i < nruns; i++)
		rc = write_run(&w, st, setup, &runs[i], (int64_t)i + 1);
	if (!rc && setup->write_extra)
		rc = setup->write_extra(setup->extra_arg, w.db, err);
	if (!rc)
		rc = exec(&w, index_sql);
	if (!rc)
		rc = exec(&w, "COMMIT;");
out:
	for (int i = 0; i < NST; i++)
		sqlite3_finalize(st[i]);
	if (w.db && sqlite3_close(w.db) != SQLITE_OK && !rc)
		rc = mr_error_set(err, MR_EIO, "closing results %s failed", path);
	/* a journal left at path by a writer that crashed there would be rolled back
	 * into the new file when it is next opened */
	snprintf(side, sizeof(side), "%s-journal", path);
	if (!rc && unlink(side) && errno != ENOENT)
		rc = mr_error_set(err, MR_EIO, "cannot write results to %s: removing the stale %s: %s",
				  path, side, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = mr_error_set(err, MR_EIO, "cannot write results to %s: %s", path, strerror(errno));
	if (rc) {
		unlink(tmp);
		snprintf(side, sizeof(side), "%s-journal", tmp);
		unlink(side);
	}
	return rc;
}

int mr_results_write(const char *path, const struct mr_results_setup *setup,
		     const struct mr_run_result *runs, size_t nruns, struct mr_error *err)
{
	struct mr_results_claim *c;
	int rc = mr_results_claim(path, &c, err);

	if (rc)
		return rc;
	rc = mr_results_write_claimed(c, setup, runs, nruns, err);
	mr_results_release(c);
	return rc;
}

/* ---- reading ---- */

struct mr_results {
	sqlite3 *db;
	char path[1024];
};

struct sqlite3 *mr_results_db(struct mr_results *r)
{
	return r->db;
}

/*
 * A results file is read as untrusted input, like a trace (docs/results-schema.md): the
 * connection is defensive, does not trust its schema and runs no triggers, and every
 * object in it must be what this writer makes: a table under each table's name, the two
 * views with exactly their text, nothing else that runs. A view or a trigger someone put
 * there instead (a recursive view under "counters" made `compare` loop for ever) is
 * refused, naming it.
 */
static int check_schema(struct mr_results *r, struct mr_error *err)
{
	static const char *const tables[] = { "meta", "runs", "memcgs", "counters",
		"model_counters", "timeseries", "lru_gen", "script_log", "timing", "notes",
		"segments", "segment_counters" };
	static const char *const views[][2] = {
		{ "vmstat", "CREATE VIEW vmstat AS SELECT run, name, value FROM counters WHERE "
			    "memcg IS NULL" },
		{ "memory_stat", "CREATE VIEW memory_stat AS SELECT run, memcg, name, value FROM "
				 "counters WHERE memcg IS NOT NULL" },
		{ "curve", CURVE_VIEW },
	};
	sqlite3_stmt *st = NULL;
	int v, rc = 0;

	sqlite3_db_config(r->db, SQLITE_DBCONFIG_DEFENSIVE, 1, &v);
	sqlite3_db_config(r->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &v);
	sqlite3_db_config(r->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &v);
	if (sqlite3_prepare_v2(r->db, "SELECT type, name, sql FROM sqlite_schema", -1, &st,
			       NULL) != SQLITE_OK)
		return sqlfail(r->db, r->path, "reading its schema", err);
	/* Every object is looked at; the one named is an object in place of one of our
	 * tables if there is one (renaming a table rewrites the views that read it, so
	 * those differ too, but the table is the cause), else the first that is wrong. */
	while (rc != 2 && sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);
		int ok = 0, table = 0;

		if (!type || !name)
			continue;
		if (!strcmp(type, "index"))
			continue; /* indexes run nothing */
		for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
			if (!strcmp(name, tables[i])) {
				ok = !strcmp(type, "table") ? 1 : -1;
				table = 1;
			}
		for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++)
			if (!strcmp(name, views[i][0]))
				ok = !strcmp(type, "view") && sql && !strcmp(sql, views[i][1]) ? 1 : -1;
		if ((ok < 0 || (ok == 0 && strcmp(type, "table"))) && (!rc || table))
			rc = table ? 2 : 1;
		else
			continue;
		mr_error_set(err, MR_ECORRUPT,
			     "results %s: schema object '%.64s' is a %.16s that memreplay does not "
			     "write there%s: the file was changed or not written by memreplay; "
			     "replay the trace again with -o", r->path, name, type,
			     ok < 0 ? " (in place of its own)" : "");
	}
	sqlite3_finalize(st);
	return rc ? MR_ECORRUPT : 0;
}

/* Decimal digits at *p up to max: the value, *p past them; -1 when none or above max. */
static int dec(const char **p, uint64_t max, uint64_t *v)
{
	const char *s = *p;

	*v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (*v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	return 0;
}

/*
 * A sampled run's note, "sampled 1/N (seed S): 1 in N pages ..." or "... 1 in N units of
 * U pages ..." (replay.c writes it): N from 1 to MR_REPLAY_MAX_SAMPLE_DEN, S a 64-bit
 * seed, U (0 page by page) from 1 to 512. 0, or -1 when it does not read so.
 */
static int parse_sampled(const char *m, uint32_t *den, uint64_t *seed, uint32_t *unit)
{
	const char *p = m, *u;
	uint64_t n, sd, un = 0;

	if (!m || strncmp(p, "sampled 1/", 10))
		return -1;
	p += 10;
	if (dec(&p, 65536, &n) || !n || strncmp(p, " (seed ", 7))
		return -1;
	p += 7;
	if (dec(&p, UINT64_MAX, &sd) || *p != ')')
		return -1;
	if ((u = strstr(p, " units of "))) {
		u += 10;
		if (dec(&u, 512, &un) || !un)
			return -1;
	}
	*den = (uint32_t)n;
	*seed = sd;
	*unit = (uint32_t)un;
	return 0;
}

/*
 * The rows curve, compare and report compute with (the schema is check_schema()'s): a
 * file changed by hand, or damaged, is refused naming the row, rather than read as
 * sizes of 2^64 - 5 pages, ratios of 10^16 or a sampled run taken for a full one.
 */
static int check_rows(struct mr_results *r, struct mr_error *err)
{
	static const struct {
		const char *sql, *what;
	} rules[] = {
		{ "SELECT id, memory_pages FROM runs WHERE memory_pages IS NOT NULL AND "
		  "(typeof(memory_pages) != 'integer' OR memory_pages < 0) LIMIT 1",
		  "runs row %lld: memory_pages '%s' is not a count of pages (0 or more)" },
		{ "SELECT run, name FROM counters WHERE typeof(value) != 'integer' OR value < 0 LIMIT 1",
		  "counters of run %lld: %s is not a count (an integer, 0 or more)" },
		/* a run with the sampling's counters is a sampled one: its note says the rate */
		{ "SELECT c.run, c.name FROM counters c WHERE c.name = 'mr_sample_pages' AND "
		  "c.memcg IS NULL AND c.run NOT IN (SELECT run FROM notes WHERE kind = 'sampled') "
		  "LIMIT 1",
		  "run %lld has the sampling's counters (%s) but no 'sampled' note, which says its "
		  "rate and seed" },
	};
	sqlite3_stmt *st = NULL;
	int rc = 0;

	/* a table an older version did not have (notes) has nothing to check */
	for (size_t i = 0; !rc && i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (sqlite3_prepare_v2(r->db, rules[i].sql, -1, &st, NULL) != SQLITE_OK)
			continue;
		if (sqlite3_step(st) == SQLITE_ROW) {
			char what[400];
			const char *v = (const char *)sqlite3_column_text(st, 1);

			snprintf(what, sizeof(what), rules[i].what, (long long)sqlite3_column_int64(st, 0),
				 v ? v : "NULL");
			rc = mr_error_set(err, MR_ECORRUPT, "%s: %s: the file was changed or damaged; "
					  "replay again to write it anew", r->path, what);
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(r->db, "SELECT run, message FROM notes WHERE kind = 'sampled'", -1,
			       &st, NULL) != SQLITE_OK)
		return 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *m = (const char *)sqlite3_column_text(st, 1);
		uint32_t den, unit;
		uint64_t seed;

		if (parse_sampled(m, &den, &seed, &unit))
			rc = mr_error_set(err, MR_ECORRUPT, "%s: run %lld's 'sampled' note '%.60s' does not "
					  "say a rate 1/N (N 1 to 65536), a seed and, if any, a unit of 1 to "
					  "512 pages: the file was changed "
					  "or damaged; replay again to write it anew", r->path,
					  (long long)sqlite3_column_int64(st, 0), m ? m : "NULL");
	}
	sqlite3_finalize(st);
	return rc;
}

int mr_results_open(const char *path, struct mr_results **out, struct mr_error *err)
{
	struct mr_results *r;
	sqlite3_stmt *st = NULL;
	struct stat sb;
	int64_t app = -1, ver = -1;

	*out = NULL;
	if (stat(path, &sb))
		return mr_error_set(err, MR_ENOENT, "cannot open results %s: %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode)) /* a FIFO would block SQLite's open */
		return mr_error_set(err, MR_ENOTSTORE, "%s is not a memreplay results database (not "
				    "a regular file)", path);
	r = calloc(1, sizeof(*r));
	if (!r)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	snprintf(r->path, sizeof(r->path), "%s", path);
	if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		goto notres;
	if (sqlite3_prepare_v2(r->db, "PRAGMA application_id", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		app = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if ((uint32_t)app != MR_RESULTS_APP_ID)
		goto notres;
	if (sqlite3_prepare_v2(r->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		ver = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (ver > MR_RESULTS_VERSION || ver < 1) {
		mr_error_set(err, MR_EVERSION, "%s has results format version %lld; this memreplay reads version %d%s",
			     path, (long long)ver, MR_RESULTS_VERSION,
			     ver > MR_RESULTS_VERSION ? ": upgrade memreplay" : "");
		mr_results_close(r);
		return MR_EVERSION;
	}
	if (check_schema(r, err) || check_rows(r, err)) {
		mr_results_close(r);
		return MR_ECORRUPT;
	}
	*out = r;
	return 0;
notres:
	mr_results_close(r);
	return mr_error_set(err, MR_ENOTSTORE,
			    "%s is not a memreplay results database (write one with `memreplay replay TRACE --policy SPEC --memory SIZE -o RESULTS.db`)",
			    path);
}

void mr_results_close(struct mr_results *r)
{
	if (!r)
		return;
	sqlite3_close(r->db);
	free(r);
}

int mr_results_traces(struct mr_results *r, char (**ids)[80], char (**paths)[256], size_t *n,
		      struct mr_error *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int step;

	*ids = NULL;
	*paths = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(r->db, "SELECT trace_id, (SELECT trace FROM runs r2 WHERE "
			       "r2.trace_id IS runs.trace_id ORDER BY id LIMIT 1) FROM runs GROUP BY "
			       "trace_id ORDER BY min(id)", -1, &st, NULL) != SQLITE_OK)
		return sqlfail(r->db, r->path, "reading runs", err);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *id = sqlite3_column_text(st, 0), *path = sqlite3_column_text(st, 1);

		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 8;
			char (*i2)[80] = realloc(*ids, nc * sizeof(**ids));
			char (*p2)[256] = i2 ? realloc(*paths, nc * sizeof(**paths)) : NULL;

			if (i2)
				*ids = i2;
			if (!p2) {
				sqlite3_finalize(st);
				return mr_error_set(err, MR_ENOMEM, "out of memory");
			}
			*paths = p2;
			cap = nc;
		}
		snprintf((*ids)[*n], sizeof((*ids)[0]), "%s", id ? (const char *)id : "");
		snprintf((*paths)[*n], sizeof((*paths)[0]), "%s", path ? (const char *)path : "");
		(*n)++;
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : sqlfail(r->db, r->path, "reading runs", err);
}

void mr_compare_free(struct mr_compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrows; i++) {
		free(c->rows[i].value);
		free(c->rows[i].present);
		free(c->rows[i].lo);
		free(c->rows[i].hi);
		free(c->rows[i].has_ci);
	}
	free(c->rows);
	free(c->run_id);
	free(c->spec);
	free(c->memory_pages);
	free(c->base);
	free(c->trace);
	free(c->trace_ids);
	free(c->sample_den);
	free(c->sample_seed);
	free(c->sample_unit);
	free(c->settings);
	free(c->vary_seed);
	free(c->cohort);
	free(c->notes);
	free(c);
}

static struct mr_compare_row *row_find(struct mr_compare *c, const char *name, int model,
				       size_t *cap, int create)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].model == model && !strcmp(c->rows[i].name, name))
			return &c->rows[i];
	if (!create)
		return NULL;
	if (c->nrows == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct mr_compare_row *nr = realloc(c->rows, nc * sizeof(*nr));

		if (!nr)
			return NULL;
		c->rows = nr;
		*cap = nc;
	}
	{
		struct mr_compare_row *r = &c->rows[c->nrows];

		memset(r, 0, sizeof(*r));
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->model = model;
		r->value = calloc(c->nruns ? c->nruns : 1, sizeof(double));
		r->present = calloc(c->nruns ? c->nruns : 1, 1);
		if (!r->value || !r->present) {
			free(r->value);
			free(r->present);
			return NULL;
		}
		c->nrows++;
		return r;
	}
}

static int run_index(const struct mr_compare *c, int64_t id)
{
	for (size_t i = 0; i < c->nruns; i++)
		if (c->run_id[i] == id)
			return (int)i;
	return -1;
}

/*
 * Each sampled run's rate, seed and unit, from its note "sampled 1/N (seed S): 1 in N
 * pages ..." or "... 1 in N units of U pages ..." (results.c writes it, kind 'sampled'):
 * fn(arg, run, N, S, U) for each, U = 0 page by page. A file from before the notes table
 * has none: every run full.
 */
static void each_sampled_run(struct mr_results *res,
			     void (*fn)(void *arg, int64_t run, uint32_t den, uint64_t seed,
					uint32_t unit),
			     void *arg)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(res->db, "SELECT run, message FROM notes WHERE kind = 'sampled'",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t den, unit;
		uint64_t seed;

		/* mr_results_open() refused a file with a note that does not parse */
		if (!parse_sampled((const char *)sqlite3_column_text(st, 1), &den, &seed, &unit))
			fn(arg, sqlite3_column_int64(st, 0), den, seed, unit);
	}
	sqlite3_finalize(st);
}

static int pick_baseline(struct mr_compare *c, const char *b, struct mr_error *err)
{
	char list[400] = "";
	size_t hits = 0, hit = 0;

	if (!b) {
		c->baseline = 0;
		return 0;
	}
	if (*b && strspn(b, "0123456789") == strlen(b)) {
		int i = run_index(c, strtoll(b, NULL, 10));

		if (i >= 0) {
			c->baseline = (size_t)i;
			return 0;
		}
	}
	for (size_t i = 0; i < c->nruns; i++) {
		if (!strcmp(c->spec[i], b)) {
			c->baseline = i;
			return 0;
		}
	}
	/* as people write it (what the list below shows): parameters at their defaults
	 * left out, mglru:ra_placement=B for its canonical spec */
	{
		char want[256];

		mr_policy_short_spec(b, want, sizeof(want));
		for (size_t i = 0; i < c->nruns; i++) {
			char s[256];

			mr_policy_short_spec(c->spec[i], s, sizeof(s));
			if (!strcmp(s, want)) {
				c->baseline = i;
				return 0;
			}
		}
	}
	for (size_t i = 0; i < c->nruns; i++) {
		size_t n = strlen(b);

		if (!strncmp(c->spec[i], b, n) && (c->spec[i][n] == ':' || c->spec[i][n] == ',' ||
						    !c->spec[i][n])) {
			if (!hits)
				hit = i;
			hits++;
		}
	}
	if (hits >= 1) {
		c->baseline = hit; /* the first run matching, as runs are listed */
		return 0;
	}
	/* each run as people write it (parameters at their defaults left out), whole
	 * entries only: the list names what --baseline takes */
	for (size_t i = 0; i < c->nruns; i++) {
		size_t l = strlen(list);
		char one[128], spec[96];

		mr_policy_short_spec(c->spec[i], spec, sizeof(spec));
		snprintf(one, sizeof(one), "%s%lld=%s", i ? ", " : "", (long long)c->run_id[i], spec);
		if (l + strlen(one) + 24 >= sizeof(list)) {
			snprintf(list + l, sizeof(list) - l, ", ... (%zu runs)", c->nruns);
			break;
		}
		memcpy(list + l, one, strlen(one) + 1);
	}
	return mr_error_set(err, MR_ENOENT, "no run matches baseline '%s' (runs: %s); give a "
			    "run id or a policy spec", b, list);
}

/*
 * Within a size, a trace and a sampling: run i is compared with the baseline itself when
 * it has the baseline's memory, trace and sampling, else with the first run of the
 * baseline's spec that has its own (none: no deltas). Runs of two traces, or of a full
 * and a sampled replay, or of two seeds, have nothing to pair.
 */
static void pick_bases(struct mr_compare *c)
{
	size_t b = c->baseline;

	for (size_t i = 0; i < c->nruns; i++) {
		c->by_memory |= c->memory_pages[i] != c->memory_pages[b];
		c->by_cohort |= c->cohort[i] != c->cohort[b];
		c->base[i] = MR_COMPARE_NONE;
		if (c->memory_pages[i] == c->memory_pages[b] && c->cohort[i] == c->cohort[b]) {
			c->base[i] = b;
			continue;
		}
		for (size_t j = 0; j < c->nruns; j++) {
			if (c->memory_pages[j] == c->memory_pages[i] && c->cohort[j] == c->cohort[i] &&
			    !strcmp(c->spec[j], c->spec[b])) {
				c->base[i] = j;
				break;
			}
		}
	}
}

/* A run's settings other than its policy, size, trace and sampling, as one string: runs
 * that differ in them are not compared with each other (compare) nor averaged as seeds
 * (curve). */
#define RUN_SETTINGS                                                                     \
	"printf('swap %s nodes %s wb %s reclaim %s shadow %s fa %s script %s', "            \
	"coalesce(swap_pages, 'default'), coalesce(nodes, '-'), "                          \
	"coalesce(writeback_delay_ns, '-'), coalesce(reclaim, '-'), coalesce(shadow, '-'), " \
	"coalesce(fault_around_pages, '-'), coalesce(script_sha256, 'none'))"

static void compare_sampled(void *arg, int64_t run, uint32_t den, uint64_t seed, uint32_t unit)
{
	struct mr_compare *c = arg;
	int i = run_index(c, run);

	if (i >= 0) {
		c->sample_den[i] = den;
		c->sample_seed[i] = seed;
		c->sample_unit[i] = unit;
	}
}

/* Each run's sampling and --vary seed, and its cohort (trace, rate, unit and seed). */
static void read_cohorts(struct mr_results *res, struct mr_compare *c)
{
	sqlite3_stmt *st = NULL;

	each_sampled_run(res, compare_sampled, c);
	if (sqlite3_prepare_v2(res->db, "SELECT id, vary_seed FROM runs WHERE vary_seed IS NOT NULL",
			       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int i = run_index(c, sqlite3_column_int64(st, 0));

			if (i >= 0)
				c->vary_seed[i] = (uint64_t)sqlite3_column_int64(st, 1);
		}
	}
	sqlite3_finalize(st); /* a file from before --vary: no seeds */
	st = NULL;
	/* a file from before these columns: the settings of every run alike */
	if (sqlite3_prepare_v2(res->db, "SELECT id, " RUN_SETTINGS " FROM runs", -1, &st, NULL) ==
	    SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int i = run_index(c, sqlite3_column_int64(st, 0));
			const unsigned char *set = sqlite3_column_text(st, 1);

			if (i >= 0)
				snprintf(c->settings[i], sizeof(c->settings[0]), "%s",
					 set ? (const char *)set : "");
		}
	}
	sqlite3_finalize(st);
	for (size_t i = 0, s0 = SIZE_MAX; i < c->nruns; i++) {
		c->many_traces |= strcmp(c->trace_ids[i], c->trace_ids[0]) != 0;
		c->many_settings |= strcmp(c->settings[i], c->settings[0]) != 0;
		/* units of sampled runs: a full run has none to differ in */
		if (c->sample_den[i] && s0 == SIZE_MAX)
			s0 = i;
		c->many_units |= c->sample_den[i] && c->sample_unit[i] != c->sample_unit[s0];
		c->cohort[i] = i;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->trace_ids[j], c->trace_ids[i]) &&
			    c->sample_den[j] == c->sample_den[i] && c->sample_unit[j] == c->sample_unit[i] &&
			    c->sample_seed[j] == c->sample_seed[i] &&
			    !strcmp(c->settings[j], c->settings[i])) {
				c->cohort[i] = c->cohort[j];
				break;
			}
	}
}

/* The notes people should see beside a run's deltas: every kind but "coverage". */
static int read_notes(struct mr_results *res, struct mr_compare *c, struct mr_error *err)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	/* a file from before the notes table has none */
	if (sqlite3_prepare_v2(res->db, "SELECT run, kind, message FROM notes WHERE kind <> "
			       "'coverage' ORDER BY run, rowid", -1, &st, NULL) != SQLITE_OK)
		return 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int ri = run_index(c, sqlite3_column_int64(st, 0));
		const unsigned char *kind = sqlite3_column_text(st, 1), *msg = sqlite3_column_text(st, 2);
		struct mr_compare_note *n;

		if (ri < 0 || !kind || !msg)
			continue;
		if (c->nnotes == cap) {
			size_t nc = cap ? 2 * cap : 8;
			struct mr_compare_note *nn = realloc(c->notes, nc * sizeof(*nn));

			if (!nn) {
				sqlite3_finalize(st);
				return mr_error_set(err, MR_ENOMEM, "out of memory");
			}
			c->notes = nn;
			cap = nc;
		}
		n = &c->notes[c->nnotes++];
		n->run = (size_t)ri;
		snprintf(n->kind, sizeof(n->kind), "%s", (const char *)kind);
		snprintf(n->message, sizeof(n->message), "%s", (const char *)msg);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlfail(res->db, res->path, "reading notes", err);
	return 0;
}

/*
 * Intervals (docs/results-schema.md, "compare: intervals"). Each run's segments are
 * equal-event parts of the trace with the increments of its counters in each; every
 * run of one trace has the same segments, so a run and its baseline pair up segment by
 * segment: d[s] = run[s] - base[s], and the delta is the sum of d. The paired block
 * bootstrap draws ceil(S / L) blocks of L consecutive segments (wrapping at the end:
 * the circular form of the moving-block bootstrap, so every segment is drawn equally
 * often and the resampled sums centre on the observed delta), with the same draws for
 * both runs (they are one d), sums the first S drawn, and takes the 50th smallest and
 * 50th largest of 1999 such sums as the 95 % interval. Blocks because segments are not
 * independent: what the replay holds in memory carries from one to the next. L =
 * round(S^(1/3)), the usual order for a block bootstrap of a sum (Hall, Horowitz and
 * Jing 1995). The draws come from a fixed seed and do not depend on the counter or the
 * run, so the output is byte-identical and one set of draws serves every cell.
 */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct seg_run {
	size_t n;       /* segments of the run */
	int ok;         /* its segments are the baseline's (same bounds) */
};

/* The draws for runs of S segments: B resamples of nb block starts (the last block cut
 * to fill S), from the fixed seed, so that runs of one length share them. */
struct draws {
	size_t S, L, nb, last;
	uint32_t *starts; /* [B * nb] */
};

static int make_draws(struct draws *d, size_t S, unsigned B)
{
	uint64_t seed = MR_COMPARE_SEED;

	if (d->S == S)
		return 0;
	d->S = S;
	d->L = (size_t)lround(cbrt((double)S));
	if (d->L < 1)
		d->L = 1;
	d->nb = (S + d->L - 1) / d->L;
	d->last = S - (d->nb - 1) * d->L;
	free(d->starts);
	d->starts = malloc((size_t)B * d->nb * sizeof(*d->starts));
	if (!d->starts)
		return -1;
	for (size_t j = 0; j < (size_t)B * d->nb; j++)
		d->starts[j] = (uint32_t)(mr_splitmix64(&seed) % S);
	return 0;
}

static int compare_intervals(struct mr_results *res, struct mr_compare *c, struct mr_error *err)
{
	const unsigned B = MR_COMPARE_RESAMPLES;
	sqlite3_stmt *st = NULL;
	struct seg_run *sr = NULL;
	uint64_t (*bounds)[2] = NULL; /* each run's (event_first, event_end), from off[run] */
	double **sv = NULL, *pre = NULL, *boot = NULL;
	size_t *off = NULL, total = 0, Smax = 0, ref = c->baseline;
	struct draws d = { 0 };
	int rc = 0, step;

	/* a file written before segments has no table: no intervals */
	if (sqlite3_prepare_v2(res->db, "SELECT run, seg, event_first, event_end FROM segments"
			       " ORDER BY run, seg", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sr = calloc(c->nruns, sizeof(*sr));
	off = calloc(c->nruns + 1, sizeof(*off));
	if (!sr || !off) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	/* pass 1: segments per run. Each run has its own count (the passes of a
	 * --sample-seed list cut their own traces' segments); a pair has intervals where its
	 * two runs have the same segments */
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int ri = run_index(c, sqlite3_column_int64(st, 0));

		if (ri >= 0)
			sr[ri].n++;
	}
	if (step != SQLITE_DONE) {
		rc = sqlfail(res->db, res->path, "reading segments", err);
		goto out;
	}
	/* too few segments to resample (or none), or more than a replay writes (a file
	 * made by hand, which would only cost memory): no intervals for that run */
	for (size_t i = 0; i < c->nruns; i++) {
		sr[i].ok = sr[i].n >= 2 && sr[i].n <= 65536;
		off[i] = total;
		total += sr[i].ok ? sr[i].n : 0;
		if (sr[i].ok && sr[i].n > Smax)
			Smax = sr[i].n;
	}
	off[c->nruns] = total;
	if (!Smax)
		goto out;
	bounds = calloc(total, sizeof(*bounds));
	if (!bounds) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	sqlite3_reset(st);
	/* pass 2: every run's bounds (a segment number past its count: not a replay's) */
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int ri = run_index(c, sqlite3_column_int64(st, 0));
		int64_t seg = sqlite3_column_int64(st, 1);

		if (ri < 0 || !sr[ri].ok)
			continue;
		if (seg < 0 || (size_t)seg >= sr[ri].n) {
			sr[ri].ok = 0;
			continue;
		}
		bounds[off[ri] + (size_t)seg][0] = (uint64_t)sqlite3_column_int64(st, 2);
		bounds[off[ri] + (size_t)seg][1] = (uint64_t)sqlite3_column_int64(st, 3);
	}
	if (step != SQLITE_DONE) {
		rc = sqlfail(res->db, res->path, "reading segments", err);
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;

	/* the increments of every shown counter per run and segment (absent rows: 0) */
	sv = calloc(c->nrows, sizeof(*sv));
	if (!sv) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < c->nrows; k++) {
		if (c->rows[k].model)
			continue;
		sv[k] = calloc(total, sizeof(double));
		if (!sv[k]) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (sqlite3_prepare_v2(res->db, "SELECT run, seg, name, value FROM segment_counters"
			       " ORDER BY name", -1, &st, NULL) != SQLITE_OK) {
		rc = sqlfail(res->db, res->path, "reading segment_counters", err);
		goto out;
	}
	{
		char lastname[96] = "";
		size_t lastrow = SIZE_MAX;

		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			int ri = run_index(c, sqlite3_column_int64(st, 0));
			int64_t seg = sqlite3_column_int64(st, 1);
			const char *name = (const char *)sqlite3_column_text(st, 2);

			if (ri < 0 || !sr[ri].ok || !name || seg < 0 || (size_t)seg >= sr[ri].n)
				continue;
			if (strcmp(name, lastname)) {
				snprintf(lastname, sizeof(lastname), "%s", name);
				lastrow = SIZE_MAX;
				for (size_t k = 0; k < c->nrows; k++)
					if (!c->rows[k].model && !strcmp(c->rows[k].name, name))
						lastrow = k;
			}
			if (lastrow != SIZE_MAX)
				sv[lastrow][off[ri] + (size_t)seg] +=
					(double)(uint64_t)sqlite3_column_int64(st, 3);
		}
		if (step != SQLITE_DONE) {
			rc = sqlfail(res->db, res->path, "reading segment_counters", err);
			goto out;
		}
	}
	sqlite3_finalize(st);
	st = NULL;

	pre = malloc((2 * Smax + 1) * sizeof(*pre));
	boot = malloc(B * sizeof(*boot));
	if (!pre || !boot) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto out;
	}
	/* what the footer says: the baseline's segments (else the first run's that has) */
	{
		size_t r0 = sr[ref].ok ? ref : 0;

		while (r0 < c->nruns && !sr[r0].ok)
			r0++;
		if (make_draws(&d, sr[r0].n, B)) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out;
		}
		c->block_len = (unsigned)d.L;
		c->nsegs = d.S;
	}
	c->intervals = 1;
	c->resamples = B;

	for (size_t k = 0; k < c->nrows; k++) {
		struct mr_compare_row *r = &c->rows[k];

		if (r->model)
			continue;
		r->lo = calloc(c->nruns, sizeof(double));
		r->hi = calloc(c->nruns, sizeof(double));
		r->has_ci = calloc(c->nruns, 1);
		if (!r->lo || !r->hi || !r->has_ci) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < c->nruns; i++) {
			size_t bi = c->base[i], S = sr[i].n;
			const double *x, *y;
			double sx = 0, sy = 0;

			if (bi == MR_COMPARE_NONE || !sr[i].ok || !sr[bi].ok || sr[bi].n != S ||
			    !r->present[i] || !r->present[bi] ||
			    memcmp(bounds[off[i]], bounds[off[bi]], S * sizeof(*bounds)))
				continue;
			x = sv[k] + off[i];
			y = sv[k] + off[bi];
			for (size_t s2 = 0; s2 < S; s2++) {
				sx += x[s2];
				sy += y[s2];
			}
			/* the segments must add up to the counter: a gauge, or a file changed
			 * by hand, has no interval */
			if (sx != r->value[i] || sy != r->value[bi])
				continue;
			if (make_draws(&d, S, B)) {
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				goto out;
			}
			/* prefix sums of d over two turns of the circle */
			pre[0] = 0;
			for (size_t s2 = 0; s2 < 2 * S; s2++)
				pre[s2 + 1] = pre[s2] + (x[s2 % S] - y[s2 % S]);
			for (unsigned b = 0; b < B; b++) {
				const uint32_t *sb = d.starts + (size_t)b * d.nb;
				double sum = 0;

				for (size_t j = 0; j < d.nb; j++) {
					size_t len = j + 1 < d.nb ? d.L : d.last;

					sum += pre[sb[j] + len] - pre[sb[j]];
				}
				boot[b] = sum;
			}
			qsort(boot, B, sizeof(*boot), cmp_double);
			/* the run's count cannot fall below 0, so its delta not below -sy:
			 * resampled sums can, where a few segments hold most of the baseline */
			r->lo[i] = fmax(boot[(B + 1) / 40 - 1], -sy);
			r->hi[i] = fmax(boot[B - (B + 1) / 40], -sy);
			r->has_ci[i] = 1;
		}
	}
out:
	sqlite3_finalize(st);
	if (sv)
		for (size_t k = 0; k < c->nrows; k++)
			free(sv[k]);
	free(sv);
	free(sr);
	free(off);
	free(bounds);
	free(d.starts);
	free(pre);
	free(boot);
	return rc;
}

int mr_results_compare(struct mr_results *res, const struct mr_compare_opts *o,
		       struct mr_compare **out, struct mr_error *err)
{
	struct mr_compare *c = calloc(1, sizeof(*c));
	sqlite3_stmt *st = NULL;
	size_t cap = 0, n = 0;
	int rc = 0;

	*out = NULL;
	if (!c)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(res->db, "SELECT count(*) FROM runs WHERE ?1 IS NULL OR trace_id = ?1",
			       -1, &st, NULL) != SQLITE_OK) {
		rc = sqlfail(res->db, res->path, "reading runs", err);
		goto fail;
	}
	if (o && o->trace_id)
		sqlite3_bind_text(st, 1, o->trace_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = sqlfail(res->db, res->path, "reading runs", err);
		goto fail;
	}
	n = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (!n) {
		rc = o && o->trace_id ? mr_error_set(err, MR_ENOENT, "%s holds no runs of trace %s",
						     res->path, o->trace_id)
				      : mr_error_set(err, MR_ENOENT, "%s holds no runs", res->path);
		goto fail;
	}
	c->run_id = calloc(n, sizeof(*c->run_id));
	c->spec = calloc(n, sizeof(*c->spec));
	c->memory_pages = calloc(n, sizeof(*c->memory_pages));
	c->base = calloc(n, sizeof(*c->base));
	c->trace = calloc(n, sizeof(*c->trace));
	c->sample_den = calloc(n, sizeof(*c->sample_den));
	c->sample_seed = calloc(n, sizeof(*c->sample_seed));
	c->sample_unit = calloc(n, sizeof(*c->sample_unit));
	c->vary_seed = calloc(n, sizeof(*c->vary_seed));
	c->settings = calloc(n, sizeof(*c->settings));
	c->cohort = calloc(n, sizeof(*c->cohort));
	c->trace_ids = calloc(n, sizeof(*c->trace_ids));
	if (!c->run_id || !c->spec || !c->memory_pages || !c->base || !c->trace ||
	    !c->sample_den || !c->sample_seed || !c->sample_unit || !c->vary_seed || !c->cohort ||
	    !c->trace_ids || !c->settings) {
		rc = mr_error_set(err, MR_ENOMEM, "out of memory");
		goto fail;
	}
	if (sqlite3_prepare_v2(res->db, "SELECT id, spec, memory_pages, trace_id, trace FROM runs "
			       "WHERE ?1 IS NULL OR trace_id = ?1 ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
		rc = sqlfail(res->db, res->path, "reading runs", err);
		goto fail;
	}
	if (o && o->trace_id)
		sqlite3_bind_text(st, 1, o->trace_id, -1, SQLITE_STATIC);
	while (c->nruns < n && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *s = sqlite3_column_text(st, 1);

		c->run_id[c->nruns] = sqlite3_column_int64(st, 0);
		snprintf(c->spec[c->nruns], sizeof(c->spec[0]), "%s", s ? (const char *)s : "");
		c->memory_pages[c->nruns] = (uint64_t)sqlite3_column_int64(st, 2); /* NULL: 0 */
		if (!c->nruns && sqlite3_column_text(st, 3))
			snprintf(c->trace_id, sizeof(c->trace_id), "%s",
				 (const char *)sqlite3_column_text(st, 3));
		if (sqlite3_column_text(st, 3))
			snprintf(c->trace_ids[c->nruns], sizeof(c->trace_ids[0]), "%s",
				 (const char *)sqlite3_column_text(st, 3));
		if (sqlite3_column_text(st, 4))
			snprintf(c->trace[c->nruns], sizeof(c->trace[0]), "%s",
				 (const char *)sqlite3_column_text(st, 4));
		c->nruns++;
	}
	sqlite3_finalize(st);
	st = NULL;
	read_cohorts(res, c);
	rc = pick_baseline(c, o ? o->baseline : NULL, err);
	if (rc)
		goto fail;
	pick_bases(c);
	rc = read_notes(res, c, err);
	if (rc)
		goto fail;

	for (int model = 0; model < 2; model++) {
		const char *sql = model ? "SELECT run, name, value FROM model_counters ORDER BY rowid"
					: "SELECT run, name, value FROM counters WHERE memcg IS NULL"
					  " ORDER BY rowid";

		if (sqlite3_prepare_v2(res->db, sql, -1, &st, NULL) != SQLITE_OK) {
			rc = sqlfail(res->db, res->path, "reading counters", err);
			goto fail;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 1);
			int ri = run_index(c, sqlite3_column_int64(st, 0));
			struct mr_compare_row *row;

			if (ri < 0 || !name)
				continue;
			row = row_find(c, name, model, &cap, 1);
			if (!row) {
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				sqlite3_finalize(st);
				st = NULL;
				goto fail;
			}
			if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
				row->value[ri] = model ? sqlite3_column_double(st, 2)
						       : (double)(uint64_t)sqlite3_column_int64(st, 2);
				row->present[ri] = 1;
			}
		}
		sqlite3_finalize(st);
		st = NULL;
		if (rc != SQLITE_DONE) {
			rc = sqlfail(res->db, res->path, "reading counters", err);
			goto fail;
		}
		rc = 0;
	}

	if (o && o->counters) {
		/* the rows asked for, in that order */
		struct mr_compare_row *sel = calloc(o->ncounters ? o->ncounters : 1, sizeof(*sel));

		if (!sel) {
			rc = mr_error_set(err, MR_ENOMEM, "out of memory");
			goto fail;
		}
		for (size_t i = 0; i < o->ncounters; i++) {
			const char *name = o->counters[i];
			struct mr_compare_row *r = row_find(c, name, 0, &cap, 0);

			if (!r && !strncmp(name, "model:", 6))
				r = row_find(c, name + 6, 1, &cap, 0);
			if (!r)
				r = row_find(c, name, 1, &cap, 0);
			if (!r) {
				for (size_t j = 0; j < i; j++) {
					free(sel[j].value);
					free(sel[j].present);
				}
				free(sel);
				rc = mr_error_set(err, MR_ENOENT,
						  "no counter '%s' in %s (list them: memreplay query %s \"SELECT DISTINCT name FROM counters\")",
						  name, res->path, res->path);
				goto fail;
			}
			sel[i] = *r;
			sel[i].value = malloc(c->nruns * sizeof(double));
			sel[i].present = malloc(c->nruns);
			if (!sel[i].value || !sel[i].present) {
				for (size_t j = 0; j <= i; j++) {
					free(sel[j].value);
					free(sel[j].present);
				}
				free(sel);
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				goto fail;
			}
			memcpy(sel[i].value, r->value, c->nruns * sizeof(double));
			memcpy(sel[i].present, r->present, c->nruns);
		}
		for (size_t i = 0; i < c->nrows; i++) {
			free(c->rows[i].value);
			free(c->rows[i].present);
		}
		free(c->rows);
		c->rows = sel;
		c->nrows = o->ncounters;
	} else {
		/* every counter non-zero in some run, counters first, then model counters */
		size_t k = 0;

		for (int model = 0; model < 2; model++) {
			for (size_t i = 0; i < c->nrows; i++) {
				int nz = 0;

				if (c->rows[i].model != model || !c->rows[i].value)
					continue;
				for (size_t j = 0; j < c->nruns; j++)
					nz |= c->rows[i].present[j] && c->rows[i].value[j] != 0;
				if (!nz) {
					free(c->rows[i].value);
					free(c->rows[i].present);
					c->rows[i].value = NULL;
					continue;
				}
			}
		}
		/* compact, counters before model counters, keeping their order */
		{
			struct mr_compare_row *nr = calloc(c->nrows ? c->nrows : 1, sizeof(*nr));

			if (!nr) {
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				goto fail;
			}
			for (int model = 0; model < 2; model++)
				for (size_t i = 0; i < c->nrows; i++)
					if (c->rows[i].model == model && c->rows[i].value)
						nr[k++] = c->rows[i];
			free(c->rows);
			c->rows = nr;
			c->nrows = k;
		}
	}
	rc = compare_intervals(res, c, err);
	if (rc)
		goto fail;
	*out = c;
	return 0;
fail:
	sqlite3_finalize(st);
	mr_compare_free(c);
	return rc;
}

int mr_compare_delta(const struct mr_compare *c, size_t k, size_t i, double *abs, double *pct)
{
	const struct mr_compare_row *r = &c->rows[k];
	size_t bi = c->base ? c->base[i] : c->baseline;
	double b, v;

	if (bi == MR_COMPARE_NONE || !r->present[i] || !r->present[bi])
		return -1;
	b = r->value[bi];
	v = r->value[i];
	*abs = v - b;
	if (b != 0)
		*pct = 100.0 * (v - b) / fabs(b);
	else
		*pct = v == 0 ? 0.0 : NAN;
	return 0;
}

int mr_compare_interval(const struct mr_compare *c, size_t k, size_t i, double *lo, double *hi,
			double *pct_lo, double *pct_hi)
{
	const struct mr_compare_row *r = &c->rows[k];
	double b;

	if (!r->has_ci || !r->has_ci[i])
		return -1;
	b = r->value[c->base[i]];
	*lo = r->lo[i];
	*hi = r->hi[i];
	*pct_lo = b != 0 ? 100.0 * r->lo[i] / fabs(b) : NAN;
	*pct_hi = b != 0 ? 100.0 * r->hi[i] / fabs(b) : NAN;
	return 0;
}

int mr_compare_noise(const struct mr_compare *c, size_t k, size_t i)
{
	const struct mr_compare_row *r = &c->rows[k];

	return r->has_ci && r->has_ci[i] && r->lo[i] <= 0 && r->hi[i] >= 0;
}

/* t(0.975, df) for df = 1..30; beyond, the normal quantile with the first two terms of
 * its expansion in 1/df (Abramowitz and Stegun 26.7.5; within 0.0002 from df = 31) */
static double t975(size_t df)
{
	static const double t[30] = { 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
	const double z = 1.959964;
	const double d = (double)df, z3 = z * z * z, z5 = z3 * z * z;

	if (df >= 1 && df <= 30)
		return t[df - 1];
	return z + (z3 + z) / (4.0 * d) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d);
}

void mr_spread_of(const double *x, size_t n, struct mr_spread *o)
{
	double sum = 0, ss = 0;

	memset(o, 0, sizeof(*o));
	o->mean = o->sd = o->min = o->max = o->t_lo = o->t_hi = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		if (!o->n || x[i] < o->min)
			o->min = x[i];
		if (!o->n || x[i] > o->max)
			o->max = x[i];
		sum += x[i];
		o->n++;
	}
	if (!o->n)
		return;
	o->mean = sum / (double)o->n;
	if (o->n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(x[i]))
			ss += (x[i] - o->mean) * (x[i] - o->mean);
	o->sd = sqrt(ss / (double)(o->n - 1));
	o->t_lo = o->mean - t975(o->n - 1) * o->sd / sqrt((double)o->n);
	o->t_hi = o->mean + t975(o->n - 1) * o->sd / sqrt((double)o->n);
}

/* ---- the curve ---- */

void mr_curve_free(struct mr_curve *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c);
}

static uint64_t col_u64(sqlite3_stmt *st, int i, int *present)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL) {
		if (present)
			*present = 0;
		return 0;
	}
	return (uint64_t)sqlite3_column_int64(st, i);
}

/* Rows by group (in the order of their first run), then memory, then run id. */
static int curve_order(const void *a, const void *b)
{
	const struct mr_curve_row *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->memory_pages != y->memory_pages)
		return x->memory_pages < y->memory_pages ? -1 : 1;
	return x->run < y->run ? -1 : x->run > y->run;
}

/* The row of run id run (rows in run order, before curve_order()), or NULL */
static struct mr_curve_row *row_of_run(struct mr_curve *c, int64_t run)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->rows[mid].run < run)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && c->rows[lo].run == run ? &c->rows[lo] : NULL;
}

static void curve_sampled(void *arg, int64_t run, uint32_t den, uint64_t seed, uint32_t unit)
{
	struct mr_curve_row *r = row_of_run(arg, run);

	if (r) {
		r->sample_den = den;
		r->sample_seed = seed;
		r->sample_unit = unit;
	}
}

/* What runs says of each run's trace, --vary seed and other settings (empty where it
 * says nothing: a file from before a column has it NULL or lacks it) */
static void curve_traces(struct mr_results *res, struct mr_curve *c)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(res->db, "SELECT id, trace, trace_id, vary_seed, " RUN_SETTINGS
			       " FROM runs", -1, &st, NULL) != SQLITE_OK &&
	    sqlite3_prepare_v2(res->db, "SELECT id, trace, trace_id, NULL, '' FROM runs", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct mr_curve_row *r = row_of_run(c, sqlite3_column_int64(st, 0));
		const unsigned char *tr = sqlite3_column_text(st, 1), *id = sqlite3_column_text(st, 2);
		const unsigned char *set = sqlite3_column_text(st, 4);

		if (!r)
			continue;
		snprintf(r->trace, sizeof(r->trace), "%s", tr ? (const char *)tr : "");
		snprintf(r->trace_id, sizeof(r->trace_id), "%s", id ? (const char *)id : "");
		snprintf(r->settings, sizeof(r->settings), "%s", set ? (const char *)set : "");
		r->vary_seed = (uint64_t)sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
}

struct curve_key {
	const struct mr_curve_row *r;
	size_t i;
};

static int group_cmp(const struct mr_curve_row *x, const struct mr_curve_row *y)
{
	int d = strcmp(x->spec, y->spec);

	if (!d)
		d = strcmp(x->trace_id, y->trace_id);
	if (!d)
		d = strcmp(x->settings, y->settings);
	if (!d && x->sample_den != y->sample_den)
		d = x->sample_den < y->sample_den ? -1 : 1;
	if (!d && x->sample_unit != y->sample_unit)
		d = x->sample_unit < y->sample_unit ? -1 : 1;
	if (!d && !x->vary_seed != !y->vary_seed)
		d = !x->vary_seed ? -1 : 1;
	return d;
}

/* by group, then seed (sampling, --vary), then first run */
static int curve_key_cmp(const void *a, const void *b)
{
	const struct curve_key *x = a, *y = b;
	int d = group_cmp(x->r, y->r);

	if (!d && x->r->sample_seed != y->r->sample_seed)
		d = x->r->sample_seed < y->r->sample_seed ? -1 : 1;
	if (!d && x->r->vary_seed != y->r->vary_seed)
		d = x->r->vary_seed < y->r->vary_seed ? -1 : 1;
	if (!d)
		d = x->i < y->i ? -1 : x->i > y->i;
	return d;
}

static int trace_id_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct mr_curve_row *const *)a)->trace_id,
		      (*(const struct mr_curve_row *const *)b)->trace_id);
}

/*
 * Groups and series (struct mr_curve_row), then the rows in curve_order(): groups in the
 * order of their first run, each group and series named by its first row in that order.
 * Sorts, so that a merge of many cells (docs/sweep.md) costs n log n, not n^2.
 */
static int curve_groups(struct mr_results *res, struct mr_curve *c, struct mr_error *err)
{
	struct curve_key *k = malloc(c->n * sizeof(*k));
	const struct mr_curve_row **t = malloc(c->n * sizeof(*t));
	size_t *gname = malloc(c->n * sizeof(*gname)), *sname = malloc(c->n * sizeof(*sname));

	if (!k || !t || !gname || !sname) {
		free(k);
		free(t);
		free(gname);
		free(sname);
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	}
	curve_traces(res, c);
	for (size_t i = 0; i < c->n; i++)
		k[i] = (struct curve_key){ &c->rows[i], i };
	qsort(k, c->n, sizeof(*k), curve_key_cmp);
	c->max_seeds = 0;
	for (size_t a = 0, b; a < c->n; a = b) {
		size_t first = k[a].i, nser = 0;

		/* a group's block [a, b), by seed and then run: named by its first run */
		for (b = a + 1; b < c->n && !group_cmp(k[a].r, k[b].r); b++)
			if (k[b].i < first)
				first = k[b].i;
		for (size_t j = a; j < b; j++) {
			struct mr_curve_row *r = &c->rows[k[j].i];

			r->group = first;
			if (j == a || curve_key_cmp(&(struct curve_key){ k[j - 1].r, 0 },
						    &(struct curve_key){ r, 0 })) {
				r->series = k[j].i; /* a seed's first run: its smallest index */
				nser++;
			} else {
				r->series = c->rows[k[j - 1].i].series;
			}
		}
		if (nser > c->max_seeds)
			c->max_seeds = nser;
	}
	for (size_t i = 0; i < c->n; i++)
		t[i] = &c->rows[i];
	qsort(t, c->n, sizeof(*t), trace_id_cmp);
	c->ntraces = 0;
	for (size_t i = 0; i < c->n; i++)
		c->ntraces += !i || strcmp(t[i - 1]->trace_id, t[i]->trace_id);
	qsort(c->rows, c->n, sizeof(*c->rows), curve_order);
	/* rename each group and series by its first row in this order */
	for (size_t i = 0; i < c->n; i++)
		gname[i] = sname[i] = SIZE_MAX;
	for (size_t i = 0; i < c->n; i++) {
		if (gname[c->rows[i].group] == SIZE_MAX)
			gname[c->rows[i].group] = i;
		if (sname[c->rows[i].series] == SIZE_MAX)
			sname[c->rows[i].series] = i;
	}
	for (size_t i = 0; i < c->n; i++) {
		c->rows[i].group = gname[c->rows[i].group];
		c->rows[i].series = sname[c->rows[i].series];
	}
	free(k);
	free(t);
	free(gname);
	free(sname);
	return 0;
}

int mr_results_curve(struct mr_results *res, struct mr_curve **out, struct mr_error *err)
{
	struct mr_curve *c = calloc(1, sizeof(*c));
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc;

	*out = NULL;
	if (!c)
		return mr_error_set(err, MR_ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(res->db, "SELECT * FROM (" CURVE_SELECT ") ORDER BY run", -1, &st,
			       NULL) != SQLITE_OK) {
		rc = sqlfail(res->db, res->path, "reading the curve", err);
		goto fail;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mr_curve_row *r;
		const unsigned char *pol = sqlite3_column_text(st, 1), *spec = sqlite3_column_text(st, 2);
		int have = 1;

		if (c->n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct mr_curve_row *nr = realloc(c->rows, nc * sizeof(*nr));

			if (!nr) {
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				goto fail;
			}
			c->rows = nr;
			cap = nc;
		}
		r = &c->rows[c->n];
		memset(r, 0, sizeof(*r));
		r->run = sqlite3_column_int64(st, 0);
		snprintf(r->policy, sizeof(r->policy), "%s", pol ? (const char *)pol : "");
		snprintf(r->spec, sizeof(r->spec), "%s", spec ? (const char *)spec : "");
		r->memory_pages = col_u64(st, 3, NULL);
		r->refs = col_u64(st, 4, &have);
		r->misses = col_u64(st, 5, &have);
		r->miss_ratio = have && r->refs ? (double)r->misses / (double)r->refs : NAN;
		r->miss_ratio_raw = r->miss_ratio;
		r->first_touch = col_u64(st, 7, NULL);
		r->refaults_anon = col_u64(st, 8, NULL);
		r->refaults_file = col_u64(st, 9, NULL);
		r->pswpin = col_u64(st, 10, NULL);
		r->pswpout = col_u64(st, 11, NULL);
		r->evictions = col_u64(st, 12, NULL);
		r->oom = col_u64(st, 13, NULL);
		if (!have)
			c->missing_refs++;
		c->n++;
	}
	if (rc != SQLITE_DONE) {
		rc = sqlfail(res->db, res->path, "reading the curve", err);
		goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* sampled runs (docs/replay.md, "Sampled replay"): their note says the rate */
	each_sampled_run(res, curve_sampled, c);
	if (sqlite3_prepare_v2(res->db, "SELECT run, max(CASE name WHEN 'mr_sample_trace_references' THEN value END),"
			       " max(CASE name WHEN 'mr_sample_pages' THEN value END),"
			       " max(CASE name WHEN 'mr_sample_trace_pages' THEN value END),"
			       " max(CASE name WHEN 'mr_sample_references' THEN value END) FROM counters"
			       " WHERE memcg IS NULL AND name LIKE 'mr_sample_%' GROUP BY run",
			       -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t run = sqlite3_column_int64(st, 0);
			double trefs = sqlite3_column_double(st, 1), kept = sqlite3_column_double(st, 2);
			double all = sqlite3_column_double(st, 3), srefs = sqlite3_column_double(st, 4);

			struct mr_curve_row *r = row_of_run(c, run);

			if (r && r->sample_den && !isnan(r->miss_ratio)) {
				/* SHARDS-adj (Waldspurger et al., FAST '15): the sampled pages'
				 * references beyond or short of their share are the hottest
				 * pages', which hit at every size. The references the pages'
				 * share would have are the machine's own times the pass's
				 * share of pages over its share of references (the two count
				 * references alike; the machine counts some events otherwise);
				 * a file without mr_sample_references (before 2026-12-02)
				 * takes the trace's references as the machine's. */
				if (trefs > 0 && kept > 0 && all > 0 && srefs > 0 && r->refs)
					r->miss_ratio = (double)r->misses /
							((double)r->refs * (trefs * kept / all) / srefs);
				else if (trefs > 0 && kept > 0 && all > 0)
					r->miss_ratio = (double)r->misses / (trefs * kept / all);
				/* a sample short of its share of references, at a size where
				 * nearly every one misses, can be scaled past every reference
				 * missing; the full machine's ratio is at most that */
				if (r->miss_ratio > 1)
					r->miss_ratio = 1;
			}
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!c->n) {
		mr_curve_free(c);
		return mr_error_set(err, MR_ENOENT, "%s holds no runs", res->path);
	}
	rc = curve_groups(res, c, err);
	if (rc)
		goto fail;
	*out = c;
	return 0;
fail:
	sqlite3_finalize(st);
	mr_curve_free(c);
	return rc;
}
