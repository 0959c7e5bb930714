// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - join results databases into one (`memreplay merge`, docs/sweep.md): the
 * cells of a sweep, each written by its own replay, become one file that `compare`,
 * `curve` and `report` read as if one replay had written it.
 *
 * The output starts as an empty results database written by mr_results_write() (so its
 * schema is the writer's, not a copy of an input's); each input is then attached and
 * every row of every table copied with its run id renumbered: the runs of input k follow
 * those of inputs 0..k-1, in the order of their old ids. Columns an older version-1
 * file lacks are NULL. The output is written under a temporary name and renamed over the
 * path, as the replay writes it, so the path never holds half a merge; the same inputs in
 * the same order give a byte-identical file (SQLite writes the same pages for the same
 * statements).
 */
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mr_results.h"
#include "mr_util.h"

/* The tables merge copies, with the order their rows are copied in within a run (a
 * WITHOUT ROWID table has no rowid: its primary key). meta is the output's own. */
static const struct {
	const char *name;
	const char *order;
} tables[] = {
	{ "runs", NULL }, { "memcgs", "s.cgroup" }, { "counters", "s.rowid" },
	{ "model_counters", "s.rowid" }, { "timeseries", "s.name, s.t_ns" }, { "lru_gen", "s.rowid" },
	{ "script_log", "s.rowid" }, { "timing", "s.rowid" }, { "notes", "s.rowid" },
	{ "segments", "s.seg" }, { "segment_counters", "s.name, s.seg" },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

struct mctx {
	sqlite3 *db;
	const char *out;
	struct mr_error *err;
	const char *const *inputs; /* the inputs, and how many are merged so far */
	size_t ninputs;
	unsigned flags; /* MR_MERGE_* */
};

static int sqlerr(struct mctx *m, const char *what, const char *in)
{
	return mr_error_set(m->err, MR_EIO, "merge into %s: %s%s%s: %s", m->out, what,
			    in ? " of " : "", in ? in : "", sqlite3_errmsg(m->db));
}

static int exec(struct mctx *m, const char *sql, const char *in)
{
	if (sqlite3_exec(m->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sqlerr(m, "copying", in);
	return 0;
}

/* One integer from sql (0 when it returns no row); -1 on an SQL error (message set). */
static int64_t query_int(struct mctx *m, const char *sql, const char *in)
{
	sqlite3_stmt *st = NULL;
	int64_t v = 0;

	if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlerr(m, "reading", in);
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else if (sqlite3_errcode(m->db) != SQLITE_DONE && sqlite3_errcode(m->db) != SQLITE_OK)
		v = -1, sqlerr(m, "reading", in);
	sqlite3_finalize(st);
	return v;
}

/*
 * The output's own tables must be the ones this file knows: a table added to the schema
 * (results.c) and not here would be dropped from every merge without a word.
 */
static int check_known_tables(struct mctx *m)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	if (sqlite3_prepare_v2(m->db, "SELECT name FROM main.sqlite_schema WHERE type = 'table' "
				      "ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		return sqlerr(m, "reading the schema", NULL);
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int known = name && !strcmp(name, "meta");

		for (size_t i = 0; name && i < NTABLES; i++)
			known |= !strcmp(name, tables[i].name);
		if (!known)
			rc = mr_error_set(m->err, MR_EINVAL,
					  "merge into %s: the results schema has a table '%s' that merge does not copy (replayer/merge.c must learn it)",
					  m->out, name ? name : "?");
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * "INSERT INTO main.T(c1, c2, ...) SELECT <new run id>, s.c2, ... FROM src.T s JOIN
 * temp.merge_map ..." for table t: every column of the output's table, NULL where the
 * input lacks it. A column of the input that the output lacks (a newer writer's file
 * that kept version 1) is refused: its values would be lost.
 */
static int copy_table(struct mctx *m, size_t t, const char *in)
{
	const char *name = tables[t].name;
	const char *key = t == 0 ? "id" : "run";
	char cbuf[2048], sbuf[2048], qbuf[4608];
	struct mr_strbuf cols = { cbuf, sizeof(cbuf), 0 }, sel = { sbuf, sizeof(sbuf), 0 };
	struct mr_strbuf sql = { qbuf, sizeof(qbuf), 0 };
	sqlite3_stmt *st = NULL;
	char q[256];
	int64_t extra;

	snprintf(q, sizeof(q), "SELECT count(*) FROM pragma_table_info('%s', 'src') s WHERE s.name "
		 "NOT IN (SELECT name FROM pragma_table_info('%s', 'main'))", name, name);
	extra = query_int(m, q, in);
	if (extra < 0)
		return MR_EIO;
	if (extra > 0)
		return mr_error_set(m->err, MR_EVERSION,
				    "%s: table %s has %lld column(s) this memreplay does not know: it was written by a newer memreplay; merge it with that version",
				    in, name, (long long)extra);
	snprintf(q, sizeof(q), "SELECT m.name, s.name IS NOT NULL FROM pragma_table_info('%s', "
		 "'main') m LEFT JOIN pragma_table_info('%s', 'src') s ON s.name = m.name ORDER BY m.cid",
		 name, name);
	if (sqlite3_prepare_v2(m->db, q, -1, &st, NULL) != SQLITE_OK)
		return sqlerr(m, "reading the schema", in);
	cbuf[0] = sbuf[0] = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		int present = sqlite3_column_int(st, 1);
		int first = !cols.len;

		mr_strbuf_printf(&cols, "%s\"%s\"", first ? "" : ", ", c);
		if (!strcmp(c, key))
			mr_strbuf_printf(&sel, "%smap.new", first ? "" : ", ");
		else if (present)
			mr_strbuf_printf(&sel, "%ss.\"%s\"", first ? "" : ", ", c);
		else
			mr_strbuf_printf(&sel, "%sNULL", first ? "" : ", ");
	}
	sqlite3_finalize(st);
	mr_strbuf_printf(&sql, "INSERT INTO main.%s(%s) SELECT %s FROM src.%s s JOIN temp.merge_map "
			 "map ON map.old = s.%s ORDER BY map.new%s%s", name, cbuf, sbuf, name, key,
			 tables[t].order ? ", " : "", tables[t].order ? tables[t].order : "");
	if (cols.len >= cols.cap || sel.len >= sel.cap || sql.len >= sql.cap)
		return mr_error_set(m->err, MR_ERANGE, "merge into %s: table %s has too many columns",
				    m->out, name);
	return exec(m, qbuf, in);
}

/* The input has table t (a file from before a table was added has none: no rows). */
static int64_t has_table(struct mctx *m, const char *name, const char *in)
{
	char q[160];

	snprintf(q, sizeof(q), "SELECT count(*) FROM src.sqlite_schema WHERE type = 'table' AND "
		 "name = '%s'", name);
	return query_int(m, q, in);
}

/* Rows of input in that belong to no run cannot be given a new id: refused, not lost. */
static int check_orphans(struct mctx *m, const char *in)
{
	char q[200];

	for (size_t t = 1; t < NTABLES; t++) {
		int64_t n = has_table(m, tables[t].name, in);

		if (n <= 0) {
			if (n < 0)
				return MR_EIO;
			continue;
		}
		snprintf(q, sizeof(q), "SELECT count(*) FROM src.%s WHERE run NOT IN "
			 "(SELECT id FROM src.runs)", tables[t].name);
		n = query_int(m, q, in);
		if (n < 0)
			return MR_EIO;
		if (n > 0)
			return mr_error_set(m->err, MR_ECORRUPT,
					    "%s: %lld row(s) of table %s name a run the file does not have: it was changed after the replay wrote it; replay that cell again",
					    in, (long long)n, tables[t].name);
	}
	return 0;
}

/* temp.merge_sfp: each run of the input with its counters' and notes' row counts and sums
 * (an input without one of those tables: 0); have[0], have[1]: whether it has them */
static int src_fingerprints(struct mctx *m, const char *in, int64_t have[2])
{
	int64_t hc = have[0] = has_table(m, "counters", in), hn = have[1] = has_table(m, "notes", in);
	char q[768];

	if (hc < 0 || hn < 0)
		return MR_EIO;
	snprintf(q, sizeof(q),
		 "DELETE FROM temp.merge_sfp; INSERT INTO temp.merge_sfp SELECT r.id, "
		 "coalesce(c.nc, 0), coalesce(c.sv, 0), coalesce(n.nn, 0), coalesce(n.ln, 0) FROM "
		 "src.runs r LEFT JOIN (%s) c ON c.run = r.id LEFT JOIN (%s) n ON n.run = r.id",
		 hc ? "SELECT run, count(*) nc, total(value) sv FROM src.counters GROUP BY run" :
		      "SELECT NULL run, 0 nc, 0 sv WHERE 0",
		 hn ? "SELECT run, count(*) nn, total(length(message)) ln FROM src.notes GROUP BY run" :
		      "SELECT NULL run, 0 nn, 0 ln WHERE 0");
	return exec(m, q, in);
}

/*
 * A run of the input that is one already merged from an earlier input: the same trace,
 * policy, parameters, memory, settings and release (every column of runs but its id and
 * the trace's path) and the same counters and notes. The replay is deterministic, so it
 * is a copy of that run (a file merged with its copy, a cell replayed twice): merged, it
 * would be counted twice in every curve and compare. Refused, naming both.
 */
static int check_duplicates(struct mctx *m, const char *in)
{
	char cbuf[4096], qbuf[6144];
	struct mr_strbuf on = { cbuf, sizeof(cbuf), 0 }, sql = { qbuf, sizeof(qbuf), 0 };
	sqlite3_stmt *st = NULL;
	int64_t have[2];
	int rc = 0;

	if (m->flags & MR_MERGE_KEEP_COPIES)
		return 0;
	/* each input run's fingerprint (how many counter and note rows, their sums): runs
	 * that differ in it are not compared row by row (seeds given as separate files
	 * agree in every runs column) */
	rc = src_fingerprints(m, in, have);
	if (rc || !m->ninputs)
		return rc;
	if (sqlite3_prepare_v2(m->db, "SELECT m.name, s.name IS NOT NULL FROM pragma_table_info('runs', "
				      "'main') m LEFT JOIN pragma_table_info('runs', 'src') s ON s.name = "
				      "m.name WHERE m.name NOT IN ('id', 'trace') ORDER BY m.cid",
			       -1, &st, NULL) != SQLITE_OK)
		return sqlerr(m, "reading the schema", in);
	cbuf[0] = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);

		if (sqlite3_column_int(st, 1))
			mr_strbuf_printf(&on, " AND m.\"%s\" IS s.\"%s\"", c, c);
		else
			mr_strbuf_printf(&on, " AND m.\"%s\" IS NULL", c);
	}
	sqlite3_finalize(st);
	mr_strbuf_printf(&sql, "SELECT s.id, o.input, o.old FROM src.runs s JOIN temp.merge_sfp sf "
			 "ON sf.id = s.id JOIN temp.merge_fp f ON f.nc = sf.nc AND f.sv = sf.sv AND "
			 "f.nn = sf.nn AND f.ln = sf.ln JOIN main.runs m ON m.id = f.new%s "
			 "JOIN temp.merge_origin o ON o.new = m.id WHERE 1", cbuf);
	for (size_t i = 0; i < 2; i++) { /* the same rows of counters and of notes */
		const char *t = i ? "notes" : "counters", *c = i ? "kind, message" : "memcg, name, value";

		if (!have[i]) { /* an older file without the table: no rows */
			mr_strbuf_printf(&sql, " AND NOT EXISTS (SELECT 1 FROM main.%s WHERE run = m.id)", t);
			continue;
		}
		mr_strbuf_printf(&sql, " AND NOT EXISTS (SELECT %s FROM src.%s WHERE run = s.id EXCEPT "
				 "SELECT %s FROM main.%s WHERE run = m.id) AND NOT EXISTS (SELECT %s "
				 "FROM main.%s WHERE run = m.id EXCEPT SELECT %s FROM src.%s WHERE run = "
				 "s.id)", c, t, c, t, c, t, c, t);
	}
	mr_strbuf_printf(&sql, " ORDER BY s.id, m.id LIMIT 1");
	if (on.len >= on.cap || sql.len >= sql.cap)
		return mr_error_set(m->err, MR_ERANGE, "merge into %s: table runs has too many columns",
				    m->out);
	if (sqlite3_prepare_v2(m->db, qbuf, -1, &st, NULL) != SQLITE_OK)
		return sqlerr(m, "comparing the runs", in);
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), k = sqlite3_column_int64(st, 1);
		int64_t old = sqlite3_column_int64(st, 2);

		rc = mr_error_set(m->err, MR_EINVAL,
				  "merge: run #%lld of %s is run #%lld of %s again (the same trace, "
				  "policy, parameters, memory, settings, seeds, counters and notes): "
				  "merged, it would be counted twice in curves and compares; leave out "
				  "the copy (a file given with a copy of it, or a cell replayed twice), "
				  "or give --keep-copies to keep both (two builds' runs of one cell)",
				  (long long)id, in, (long long)old,
				  k >= 0 && (size_t)k < m->ninputs ? m->inputs[k] : "an earlier input");
	} else if (sqlite3_errcode(m->db) != SQLITE_DONE && sqlite3_errcode(m->db) != SQLITE_OK) {
		rc = sqlerr(m, "comparing the runs", in);
	}
	sqlite3_finalize(st);
	return rc;
}

static int merge_one(struct mctx *m, const char *in, int64_t *nruns)
{
	sqlite3_stmt *st = NULL;
	char q[160];
	int rc;
	int64_t n;

	if (sqlite3_prepare_v2(m->db, "ATTACH ?1 AS src", -1, &st, NULL) != SQLITE_OK)
		return sqlerr(m, "attaching", in);
	sqlite3_bind_text(st, 1, in, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sqlerr(m, "attaching", in);
	sqlite3_finalize(st);
	if (rc)
		return rc;
	/* one transaction per input: SQLite detaches only outside one (the output is a
	 * temporary file until the rename, so nobody sees it half-merged) */
	rc = exec(m, "BEGIN", in);
	if (!rc)
		rc = check_orphans(m, in);
	if (!rc)
		rc = check_duplicates(m, in);
	if (!rc)
		rc = exec(m, "DELETE FROM temp.merge_map", in);
	if (!rc) {
		snprintf(q, sizeof(q), "INSERT INTO temp.merge_map SELECT id, %lld + row_number() "
			 "OVER (ORDER BY id) FROM src.runs", (long long)*nruns);
		rc = exec(m, q, in);
	}
	if (!rc) {
		snprintf(q, sizeof(q), "INSERT INTO temp.merge_origin SELECT new, %zu, old FROM "
			 "temp.merge_map", m->ninputs);
		rc = exec(m, q, in);
	}
	if (!rc && !(m->flags & MR_MERGE_KEEP_COPIES))
		rc = exec(m, "INSERT INTO temp.merge_fp SELECT map.new, sf.nc, sf.sv, sf.nn, sf.ln "
			  "FROM temp.merge_sfp sf JOIN temp.merge_map map ON map.old = sf.id", in);
	for (size_t t = 0; !rc && t < NTABLES; t++) {
		int64_t have = has_table(m, tables[t].name, in);

		if (have < 0)
			rc = MR_EIO;
		else if (!have && t == 0)
			rc = mr_error_set(m->err, MR_ECORRUPT, "%s has no table runs: not a results file memreplay wrote",
					  in);
		else if (have)
			rc = copy_table(m, t, in);
	}
	if (!rc) {
		n = query_int(m, "SELECT count(*) FROM temp.merge_map", in);
		if (n < 0)
			rc = MR_EIO;
		else
			*nruns += n;
	}
	if (!rc)
		rc = exec(m, "COMMIT", in);
	else
		sqlite3_exec(m->db, "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_exec(m->db, "DETACH src", NULL, NULL, NULL) != SQLITE_OK && !rc)
		rc = sqlerr(m, "detaching", in);
	return rc;
}

/* in and out are one file (merging a file into itself would replace an input) */
/* Every input is a results file of this version with this writer's schema objects,
 * none is out and none is given twice: checked before anything is written
 * (mr_results_open() refuses the others, naming why). */
static int check_inputs(const char *out, const char *const *inputs, size_t n, struct mr_error *err)
{
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct mr_results *r;

		if (mr_same_file(inputs[i], out))
			return mr_error_set(err, MR_EINVAL,
					    "merge: %s is both an input and the output (-o): write the merge to another file",
					    inputs[i]);
		for (size_t j = 0; j < i; j++)
			if (mr_same_file(inputs[i], inputs[j]))
				return mr_error_set(err, MR_EINVAL,
						    "merge: %s is given twice (also as %s): its runs would be counted twice",
						    inputs[i], inputs[j]);
		rc = mr_results_open(inputs[i], &r, err);
		if (rc)
			return rc;
		mr_results_close(r);
	}
	return 0;
}

static int merge_into(const struct mr_results_claim *claim, const char *const *inputs,
		      size_t n, unsigned flags, uint64_t *nruns, struct mr_error *err);

int mr_results_merge(const char *out, const char *const *inputs, size_t n, unsigned flags,
		     uint64_t *nruns, struct mr_error *err)
{
	struct mr_results_claim *claim = NULL;
	int rc;

	*nruns = 0;
	if (!n)
		return mr_error_set(err, MR_EINVAL, "merge: no input results files given");
	/* the inputs checked before out is claimed: a bad input leaves no lock behind */
	rc = check_inputs(out, inputs, n, err);
	if (rc)
		return rc;
	rc = mr_results_claim(out, &claim, err);
	if (rc)
		return rc;
	rc = merge_into(claim, inputs, n, flags, nruns, err);
	mr_results_release(claim);
	return rc;
}

int mr_results_merge_claimed(const struct mr_results_claim *claim, const char *const *inputs,
			     size_t n, unsigned flags, uint64_t *nruns, struct mr_error *err)
{
	int rc;

	*nruns = 0;
	if (!n)
		return mr_error_set(err, MR_EINVAL, "merge: no input results files given");
	rc = check_inputs(mr_results_claim_path(claim), inputs, n, err);
	return rc ? rc : merge_into(claim, inputs, n, flags, nruns, err);
}

/* The merge of checked inputs into claim's path (temp + rename). */
static int merge_into(const struct mr_results_claim *claim, const char *const *inputs,
		      size_t n, unsigned flags, uint64_t *nruns, struct mr_error *err)
{
	static const struct mr_results_setup none = { 0 };
	const char *out = mr_results_claim_path(claim);
	struct mctx m = { .out = out, .err = err, .flags = flags };
	char tmp[PATH_MAX + 32], side[PATH_MAX + 48];
	int64_t total = 0;
	int rc, v;

	snprintf(tmp, sizeof(tmp), "%s.merge-%ld", out, (long)getpid());
	unlink(tmp);
	rc = mr_results_write(tmp, &none, NULL, 0, err);
	if (rc)
		goto out;
	if (sqlite3_open_v2(tmp, &m.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		rc = sqlerr(&m, "opening", tmp);
		goto out;
	}
	/* the inputs are read as untrusted files, as mr_results_open() reads them */
	sqlite3_db_config(m.db, SQLITE_DBCONFIG_DEFENSIVE, 1, &v);
	sqlite3_db_config(m.db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &v);
	sqlite3_db_config(m.db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &v);
	rc = check_known_tables(&m);
	if (!rc)
		rc = exec(&m, "PRAGMA journal_mode=DELETE; CREATE TEMP TABLE merge_map(old INTEGER "
			      "PRIMARY KEY, new INTEGER NOT NULL); CREATE TEMP TABLE merge_origin(new "
			      "INTEGER PRIMARY KEY, input INTEGER NOT NULL, old INTEGER NOT NULL); "
			      "CREATE TEMP TABLE merge_sfp(id INTEGER PRIMARY KEY, nc, sv, nn, ln); "
			      "CREATE TEMP TABLE merge_fp(new INTEGER PRIMARY KEY, nc, sv, nn, ln); "
			      "CREATE INDEX temp.merge_fp_key ON merge_fp(nc, sv, nn, ln);", NULL);
	m.inputs = inputs;
	for (size_t i = 0; !rc && i < n; i++, m.ninputs++)
		rc = merge_one(&m, inputs[i], &total);
	if (sqlite3_close(m.db) != SQLITE_OK && !rc)
		rc = mr_error_set(err, MR_EIO, "merge into %s: closing %s failed", out, tmp);
	m.db = NULL;
	snprintf(side, sizeof(side), "%s-journal", out);
	if (!rc && unlink(side) && errno != ENOENT)
		rc = mr_error_set(err, MR_EIO, "merge into %s: removing the stale %s: %s", out, side,
				  strerror(errno));
	if (!rc && rename(tmp, out))
		rc = mr_error_set(err, MR_EIO, "merge into %s: %s", out, strerror(errno));
out:
	if (rc) {
		unlink(tmp);
		snprintf(side, sizeof(side), "%s-journal", tmp);
		unlink(side);
	}
	if (!rc)
		*nruns = (uint64_t)total;
	return rc;
}
