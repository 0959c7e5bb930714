// SPDX-License-Identifier: GPL-2.0
/*
 * test_toggles.c - "say when a toggle never acted": every seed toggle of mglru, alone
 * and with kernel=6.12, in a memory sweep over generated traces and traces/default.db.
 * A run has a toggle_idle note for its toggle exactly when the toggle's acted counter
 * (model counter mglru_toggle_acted_*) is 0, and then its counters are those of the
 * same policy without the toggle at the same size, counter for counter: the note's
 * "so this run reclaims as without it" is checked, not assumed. Each toggle acts
 * somewhere in the matrix, and the largest size gives "no aging pass ran at this size".
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_gen.h"
#include "mr_replay.h"
#include "mr_test.h"
#include "test_replay_trace.h"

#ifndef MR_SOURCE_DIR
#define MR_SOURCE_DIR "."
#endif

/* The text of a query's rows ('|' between columns, '\n' after rows); malloc'ed. */
static char *sql_text(sqlite3 *db, const char *sql, int64_t a, int64_t b)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 1 << 14, len = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	out[0] = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
		CHECK(0);
		return out;
	}
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const char *t = (const char *)sqlite3_column_text(st, c);
			size_t l = t ? strlen(t) : 4;

			if (len + l + 2 >= cap) {
				char *n = realloc(out, cap * 2 + l);

				if (!n)
					break;
				out = n;
				cap = cap * 2 + l;
			}
			len += (size_t)sprintf(out + len, "%s%c", t ? t : "NULL",
					       c + 1 < sqlite3_column_count(st) ? '|' : '\n');
		}
	}
	sqlite3_finalize(st);
	return out;
}

/* A toggle of the matrix: its spec, the spec of its default, its param as notes name it
 * and its acted counter (NULL: none, the note is unconditional). */
struct toggle {
	const char *spec, *base, *param, *acted;
};

static const struct toggle toggles[] = {
	{ "mglru:inc_min_seq=v3", "mglru", "inc_min_seq=v3", "mglru_toggle_acted_inc_min_seq" },
	{ "mglru:pud_filter=1", "mglru", "pud_filter=1", "mglru_toggle_acted_pud_filter" },
	{ "mglru:ra_placement=B", "mglru", "ra_placement=B", "mglru_toggle_acted_ra_placement" },
	{ "mglru:ra_placement=C", "mglru", "ra_placement=C", "mglru_toggle_acted_ra_placement" },
	{ "mglru:exec_promote=1", "mglru", "exec_promote=1", "mglru_toggle_acted_exec_promote" },
	{ "mglru:exec_promote=alt", "mglru", "exec_promote=alt", "mglru_toggle_acted_exec_promote" },
	{ "mglru:stats_layout=after", "mglru", "stats_layout=after", NULL },
	{ "mglru:kernel=6.12,inc_min_seq=v3", "mglru:kernel=6.12", "inc_min_seq=v3",
	  "mglru_toggle_acted_inc_min_seq" },
	{ "mglru:kernel=6.12,ra_placement=B", "mglru:kernel=6.12", "ra_placement=B",
	  "mglru_toggle_acted_ra_placement" },
	{ "mglru:kernel=6.12,exec_promote=1", "mglru:kernel=6.12", "exec_promote=1",
	  "mglru_toggle_acted_exec_promote" },
};
#define NTOGGLES (sizeof(toggles) / sizeof(toggles[0]))

static unsigned acted_somewhere[NTOGGLES], idle_somewhere[NTOGGLES], no_aging_note;

/* Replay the toggles and their defaults at sizes; check every toggle run. */
static void check_trace(const char *trace, const uint64_t *sizes, size_t nsizes, const char *tag)
{
	const char *pol[NTOGGLES + 3];
	size_t npol = 0;
	char out[1100];
	struct mr_replay_opts o = { .trace = trace, .memory_sizes = sizes, .nmemory = nsizes,
				    .threads = 2, .tmpdir = mr_test_tmpdir() };
	struct mr_replay *r = NULL;
	struct mr_error err = { 0 };
	sqlite3 *db = NULL;
	int rc;

	if (!trace)
		return;
	pol[npol++] = "mglru";
	pol[npol++] = "mglru:kernel=6.12";
	pol[npol++] = "lru";
	for (size_t i = 0; i < NTOGGLES; i++)
		pol[npol++] = toggles[i].spec;
	o.policies = pol;
	o.npolicies = npol;
	snprintf(out, sizeof(out), "%s", path_in(tag));
	rc = mr_replay_create(&o, &r, &err);
	if (!rc)
		rc = mr_replay_run(r, &err);
	if (!rc)
		rc = mr_replay_write_results(r, out, &err);
	if (rc) {
		fprintf(stderr, "replay %s: %s\n", trace, err.msg);
		CHECK(0);
		mr_replay_destroy(r);
		return;
	}
	/* the engine's notes are the file's */
	for (size_t run = 0; run < mr_replay_nruns(r); run++) {
		const struct mr_result_note *n;
		size_t k = mr_replay_notes(r, run, &n);

		for (size_t j = 0; j < k; j++)
			CHECK(!strcmp(n[j].kind, "toggle_idle") && strstr(n[j].message, " never acted: "));
	}
	mr_replay_destroy(r);
	CHECK(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	for (size_t si = 0; si < nsizes; si++) {
		/* no notes for policies without toggles */
		for (size_t p = 0; p < 3; p++) {
			char *t = sql_text(db, "SELECT message FROM notes WHERE run = ?1 AND kind = 'toggle_idle'",
					   (int64_t)(si * npol + p + 1), 0);

			CHECK(t && !*t);
			free(t);
		}
		for (size_t i = 0; i < NTOGGLES; i++) {
			const struct toggle *tg = &toggles[i];
			int64_t run = (int64_t)(si * npol + 3 + i + 1);
			int64_t base = (int64_t)(si * npol + (strcmp(tg->base, "mglru") ? 2 : 1));
			char q[256], *note, *acted, *mine, *theirs;
			int idle;

			note = sql_text(db, "SELECT message FROM notes WHERE run = ?1 AND kind = 'toggle_idle'",
					run, 0);
			snprintf(q, sizeof(q), "SELECT value FROM model_counters WHERE run = ?1 AND name = '%s'",
				 tg->acted ? tg->acted : "-");
			acted = sql_text(db, q, run, 0);
			idle = tg->acted ? !strcmp(acted, "0.0\n") : 1;
			if (tg->acted && !*acted) {
				fprintf(stderr, "%s: %s at %llu pages has no %s\n", tag, tg->spec,
					(unsigned long long)sizes[si], tg->acted);
				CHECK(0);
			}
			/* a note exactly when it never acted, naming the toggle */
			if (idle != (*note != 0) || (idle && strncmp(note, tg->param, strlen(tg->param)))) {
				fprintf(stderr, "%s: %s at %llu pages: acted %s but note '%s'\n", tag, tg->spec,
					(unsigned long long)sizes[si], acted, note);
				CHECK(0);
			}
			if (strstr(note, "no aging pass ran at this size"))
				no_aging_note++;
			(idle ? idle_somewhere : acted_somewhere)[i]++;
			/* an idle toggle reclaims as its default: the same counters */
			mine = sql_text(db, "SELECT memcg, name, value FROM counters WHERE run = ?1 ORDER BY rowid", run, 0);
			theirs = sql_text(db, "SELECT memcg, name, value FROM counters WHERE run = ?1 ORDER BY rowid", base, 0);
			if (idle && strcmp(mine, theirs)) {
				fprintf(stderr, "%s: %s at %llu pages never acted but its counters differ from %s's\n",
					tag, tg->spec, (unsigned long long)sizes[si], tg->base);
				CHECK(0);
			}
			free(mine);
			free(theirs);
			free(note);
			free(acted);
		}
	}
	sqlite3_close(db);
}

static void test_idle_notes(void)
{
	static const char *const zipf[] = { "pages", "4096", "events", "200000" };
	static const char *const execbuild[] = { "tasks", "6", "text_size", "4M", "data_size", "8M" };
	static const char *const filerefault[] = { "size", "16M", "events", "100000", "jobs", "4" };
	static const uint64_t sizes[] = { 1024, 2048, 1u << 20 };
	static const uint64_t exec_sizes[] = { 1024, 2560, 1u << 20 };
	static const uint64_t default_sizes[] = { 4096, 8192, 1u << 20 };

	check_trace(gen_trace("zipf", "zipf.db", zipf, 4), sizes, 3, "zipf.r.db");
	check_trace(gen_trace("execbuild", "execbuild.db", execbuild, 6), exec_sizes, 3, "execbuild.r.db");
	check_trace(gen_trace("filerefault", "filerefault.db", filerefault, 6), sizes, 3, "filerefault.r.db");
	if (!access(MR_SOURCE_DIR "/traces/default.db", R_OK))
		check_trace(MR_SOURCE_DIR "/traces/default.db", default_sizes, 3, "default.r.db");
	for (size_t i = 0; i < NTOGGLES; i++) {
		const struct toggle *tg = &toggles[i];

		printf("%-34s acted in %u runs, idle in %u\n", tg->spec, acted_somewhere[i],
		       idle_somewhere[i]);
		/* the matrix exercises both outcomes of every toggle that can act */
		if (tg->acted && strncmp(tg->spec, "mglru:kernel=6.12", 17) &&
		    strcmp(tg->param, "inc_min_seq=v3")) /* see test_inc_min_seq_acts */
			CHECK(acted_somewhere[i] > 0);
		CHECK(idle_somewhere[i] > 0);
	}
	CHECK(no_aging_note > 0);
}

/*
 * inc_min_seq() moves folios only when aging retires a generation that still has some:
 * reclaim empties the oldest one first, so on these traces S000 acts only with
 * proactive aging (a forced `+` at every millisecond, as docs/seeds.md's demo).
 */
static void test_inc_min_seq_acts(void)
{
	static const char *const zipf[] = { "pages", "4096", "events", "200000" };
	static const char *const pol[] = { "mglru", "mglru:inc_min_seq=v3" };
	const char *trace = gen_trace("zipf", "zipf.db", zipf, 4), *out = path_in("aged.db");
	char script[1024] = "";
	struct mr_replay_opts o = { .trace = trace, .policies = pol, .npolicies = 2,
				    .memory_pages = 1024, .threads = 0, .tmpdir = mr_test_tmpdir(),
				    .script_text = script };
	struct mr_replay *r = NULL;
	struct mr_error err = { 0 };
	const struct mr_result_note *n;
	sqlite3 *db = NULL;
	char *t;

	if (!trace)
		return;
	for (int ms = 1; ms <= 12; ms++)
		snprintf(script + strlen(script), sizeof(script) - strlen(script), "%dms + 0 0 3 60 1\n", ms);
	CHECK(mr_replay_create(&o, &r, &err) == 0);
	CHECK(r && mr_replay_run(r, &err) == 0);
	CHECK(r && mr_replay_write_results(r, out, &err) == 0);
	CHECK(r && mr_replay_notes(r, 1, &n) == 0);
	mr_replay_destroy(r);
	CHECK(sqlite3_open_v2(out, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	t = sql_text(db, "SELECT value > 0 FROM model_counters WHERE run = 2 AND name = 'mglru_toggle_acted_inc_min_seq'", 0, 0);
	CHECK(!strcmp(t, "1\n"));
	free(t);
	t = sql_text(db, "SELECT count(*) FROM notes WHERE kind = 'toggle_idle'", 0, 0);
	CHECK(!strcmp(t, "0\n"));
	free(t);
	t = sql_text(db, "SELECT count(*) FROM script_log WHERE rc <> 0", 0, 0);
	CHECK(!strcmp(t, "0\n"));
	free(t);
	sqlite3_close(db);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_idle_notes),
	MR_CASE(test_inc_min_seq_acts),
};

int main(int argc, char **argv)
{
	return mr_test_main("test_toggles", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
