// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_sweep.c - `memreplay sweep MANIFEST`: many traces x policies x memory sizes, one
 * results file per cell (docs/sweep.md).
 *
 * A cell is one replay pass: one trace with every policy and size the manifest asks of
 * it that one pass can do (the replay runs all its (size, policy) machines over one read
 * of the trace, far cheaper than one pass each). Each cell runs as a child `memreplay
 * replay` of this same binary, so a cell that crashes takes only itself down, writing
 * DIR/cell-NNNN.part.db; the sweep checks that file holds exactly the cell's runs and
 * renames it to DIR/cell-NNNN.db. A rerun skips cells whose file is complete and redoes
 * the others. The same cells can instead be handed to Slurm (a job array, --emit slurm)
 * or to GNU parallel (--emit parallel): each task is `memreplay sweep MANIFEST --cell K`.
 *
 * The pool, the manifest and the scripts are the command line's business (processes,
 * files, text); the replay and the results are the libraries'.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cli.h"
#include "mr_policy.h"
#include "mr_replay.h"
#include "mr_results.h"
#include "mr_store.h"
#include "mr_util.h"

#define MAX_CELLS 10000
#define MAX_POL 256
#define SWEEP_LINE_MAX 65536 /* a manifest line: a trace path, policies and sizes */

struct cell {
	char *trace;			/* as passed to replay: relative to the manifest's folder */
	char *pol[MAX_POL];		/* specs as written */
	char *canon[MAX_POL];		/* canonical specs (runs.spec) */
	size_t npol;
	char memory[1024];		/* the --memory argument */
	uint64_t sizes[MR_REPLAY_MAX_SIZES];
	size_t nsizes;
	unsigned line;			/* manifest line it first came from */
	/* the pool */
	pid_t pid;
	struct timespec start;
};

struct sweep {
	const char *manifest;
	char *dir;			/* manifest's folder with a slash, "" for none */
	struct cell *cells;
	size_t n, cap;
	struct mr_error err;
};

/* ---- the manifest ---- */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static int merr(struct sweep *sw, unsigned line, const char *fmt, const char *a, const char *b)
{
	char msg[1200];

	snprintf(msg, sizeof(msg), fmt, a ? a : "", b ? b : "");
	return mr_error_set(&sw->err, MR_EINVAL, "%s:%u: %s", sw->manifest, line, msg);
}

static int same_pols(const struct cell *a, const struct cell *b)
{
	if (a->npol != b->npol)
		return 0;
	for (size_t i = 0; i < a->npol; i++)
		if (strcmp(a->canon[i], b->canon[i]))
			return 0;
	return 1;
}

static void cell_free(struct cell *c)
{
	free(c->trace);
	for (size_t i = 0; i < c->npol; i++) {
		free(c->pol[i]);
		free(c->canon[i]);
	}
}

/* the cell of (trace, memory), made if there is none yet */
static struct cell *cell_of(struct sweep *sw, const char *trace, const char *memory,
			    unsigned line)
{
	struct cell *c;
	struct mr_error e = { 0 };

	for (size_t i = 0; i < sw->n; i++)
		if (!strcmp(sw->cells[i].trace, trace) && !strcmp(sw->cells[i].memory, memory))
			return &sw->cells[i];
	if (strchr(memory, '=')) {
		merr(sw, line, "memory '%s' is a cgroup limit: a sweep gives whole-trace sizes (a size, a list or a range, as `replay --memory`)",
		     memory, NULL);
		return NULL;
	}
	if (strlen(memory) >= sizeof(c->memory)) {
		merr(sw, line, "memory '%.40s...' is too long", memory, NULL);
		return NULL;
	}
	if (sw->n == MAX_CELLS) {
		merr(sw, line, "more than 10000 cells: split the manifest", NULL, NULL);
		return NULL;
	}
	if (sw->n == sw->cap) {
		size_t cap = sw->cap ? 2 * sw->cap : 16;
		struct cell *nc = realloc(sw->cells, cap * sizeof(*nc));

		if (!nc) {
			mr_error_set(&sw->err, MR_ENOMEM, "out of memory");
			return NULL;
		}
		sw->cells = nc;
		sw->cap = cap;
	}
	c = &sw->cells[sw->n];
	memset(c, 0, sizeof(*c));
	snprintf(c->memory, sizeof(c->memory), "%s", memory);
	if (mr_replay_parse_memory(memory, c->sizes, MR_REPLAY_MAX_SIZES, &c->nsizes, &e)) {
		merr(sw, line, "%s", e.msg, NULL);
		return NULL;
	}
	c->trace = strdup(trace);
	if (!c->trace) {
		mr_error_set(&sw->err, MR_ENOMEM, "out of memory");
		return NULL;
	}
	c->line = line;
	sw->n++;
	return c;
}

/* The path replay is given: a relative trace is relative to the manifest's folder. */
static int trace_path(struct sweep *sw, const char *t, char *buf, size_t cap)
{
	if ((size_t)snprintf(buf, cap, "%s%s", t[0] == '/' ? "" : sw->dir, t) >= cap)
		return mr_error_set(&sw->err, MR_ERANGE, "%s: trace path '%.60s...' is too long",
				    sw->manifest, t);
	return 0;
}

static int add_entry(struct sweep *sw, const char *trace, const char *pol, const char *memory,
		     unsigned line)
{
	_Alignas(16) unsigned char params[16384];
	const struct mr_policy_ops *ops;
	char canon[256], path[PATH_MAX];
	struct mr_error e = { 0 };
	struct cell *c;

	if (trace_path(sw, trace, path, sizeof(path)))
		return sw->err.code;
	if (mr_policy_parse(pol, &ops, params, sizeof(params), canon, sizeof(canon), &e))
		return merr(sw, line, "%s", e.msg, NULL);
	c = cell_of(sw, path, memory, line);
	if (!c)
		return sw->err.code;
	/* the same policy at a size a cell of the trace has (this one, or another whose
	 * memory is written otherwise, 4M, 4096K, 1024, or in another list): the same run
	 * twice */
	for (size_t k = 0; k < sw->n; k++) {
		const struct cell *o = &sw->cells[k];
		int has = 0;

		if (strcmp(o->trace, c->trace))
			continue;
		for (size_t i = 0; i < o->npol && !has; i++)
			has = !strcmp(o->canon[i], canon);
		for (size_t x = 0; has && x < o->nsizes; x++)
			for (size_t y = 0; y < c->nsizes; y++)
				if (o->sizes[x] == c->sizes[y]) {
					char m[32];

					return merr(sw, line, "policy '%s' comes twice for this trace at %s: "
						    "give each once", pol,
						    mr_replay_format_memory(c->sizes[y], m, sizeof(m)));
				}
	}
	if (c->npol == MAX_POL)
		return merr(sw, line, "more than 256 policies for one trace and memory", NULL, NULL);
	c->pol[c->npol] = strdup(pol);
	c->canon[c->npol] = strdup(canon);
	if (!c->pol[c->npol] || !c->canon[c->npol])
		return mr_error_set(&sw->err, MR_ENOMEM, "out of memory");
	c->npol++;
	if (c->npol * c->nsizes > MR_REPLAY_MAX_RUNS)
		return merr(sw, line, "one trace at memory '%s' has more than 1024 runs (policies x sizes), more than one replay does: split the sizes",
			    memory, NULL);
	return 0;
}

/* A paragraph of "traces:", "policies:" and "memory:" lines: their cross product. */
struct para {
	char *key[3];
	unsigned line;
};

static const char *const keys[3] = { "traces", "policies", "memory" };

static int flush_para(struct sweep *sw, struct para *p)
{
	char *tv, *pv, mem[1024], *save1, *save2, *t, *q;
	size_t ml = 0;
	int rc = 0, any = 0;

	for (int k = 0; k < 3; k++)
		any |= p->key[k] != NULL;
	if (!any)
		return 0;
	for (int k = 0; k < 3; k++)
		if (!p->key[k] || !*p->key[k]) {
			rc = merr(sw, p->line, "this cross product has no '%s:' line (it needs traces:, policies: and memory:)",
				  keys[k], NULL);
			goto out;
		}
	/* memory: several words are one list */
	mem[0] = 0;
	for (q = strtok_r(p->key[2], " \t", &save1); q; q = strtok_r(NULL, " \t", &save1))
		ml += (size_t)snprintf(mem + ml, ml < sizeof(mem) ? sizeof(mem) - ml : 0, "%s%s",
				       ml ? "," : "", q);
	if (ml >= sizeof(mem)) {
		rc = merr(sw, p->line, "the memory: line is too long", NULL, NULL);
		goto out;
	}
	tv = p->key[0];
	for (t = strtok_r(tv, " \t", &save1); !rc && t; t = strtok_r(NULL, " \t", &save1)) {
		char *pcopy = strdup(p->key[1]);

		if (!pcopy) {
			rc = mr_error_set(&sw->err, MR_ENOMEM, "out of memory");
			break;
		}
		pv = pcopy;
		for (q = strtok_r(pv, " \t", &save2); !rc && q; q = strtok_r(NULL, " \t", &save2))
			rc = add_entry(sw, t, q, mem, p->line);
		free(pcopy);
	}
out:
	for (int k = 0; k < 3; k++) {
		free(p->key[k]);
		p->key[k] = NULL;
	}
	return rc;
}

/*
 * Cells of one trace with the same policies and sizes that do not overlap are one pass:
 * "a.db lru 64M" and "a.db lru 128M" are replayed together at "64M,128M".
 */
static int same_sizes(const struct cell *a, const struct cell *b)
{
	if (a->nsizes != b->nsizes)
		return 0;
	for (size_t x = 0; x < a->nsizes; x++) {
		int found = 0;

		for (size_t y = 0; y < b->nsizes; y++)
			found |= a->sizes[x] == b->sizes[y];
		if (!found)
			return 0;
	}
	return 1;
}

static void drop_cell(struct sweep *sw, size_t j)
{
	cell_free(&sw->cells[j]);
	memmove(&sw->cells[j], &sw->cells[j + 1], (sw->n - j - 1) * sizeof(sw->cells[0]));
	sw->n--;
}

/*
 * Cells of one trace at the same sizes (as a set) are one pass with both policy lists
 * ("a.db lru 64M" and "a.db opt 64M"): the policies of the later join the earlier's,
 * unless one comes in both (then they stay two cells, as the manifest asked twice).
 */
static void join_policies(struct sweep *sw)
{
	for (size_t i = 0; i < sw->n; i++) {
		struct cell *a = &sw->cells[i];

		for (size_t j = i + 1; j < sw->n; j++) {
			struct cell *b = &sw->cells[j];
			int dup = 0;

			if (strcmp(a->trace, b->trace) || !same_sizes(a, b) ||
			    a->npol + b->npol > MAX_POL ||
			    (a->npol + b->npol) * a->nsizes > MR_REPLAY_MAX_RUNS)
				continue;
			for (size_t x = 0; x < a->npol; x++)
				for (size_t y = 0; y < b->npol; y++)
					dup |= !strcmp(a->canon[x], b->canon[y]);
			if (dup)
				continue;
			memcpy(a->pol + a->npol, b->pol, b->npol * sizeof(b->pol[0]));
			memcpy(a->canon + a->npol, b->canon, b->npol * sizeof(b->canon[0]));
			a->npol += b->npol;
			b->npol = 0; /* the strings are a's now */
			drop_cell(sw, j);
			j--;
		}
	}
}

static void join_cells(struct sweep *sw)
{
	for (size_t i = 0; i < sw->n; i++) {
		struct cell *a = &sw->cells[i];

		for (size_t j = i + 1; j < sw->n; j++) {
			struct cell *b = &sw->cells[j];
			int overlap = 0;

			if (strcmp(a->trace, b->trace) || !same_pols(a, b) ||
			    a->nsizes + b->nsizes > MR_REPLAY_MAX_SIZES ||
			    a->npol * (a->nsizes + b->nsizes) > MR_REPLAY_MAX_RUNS ||
			    strlen(a->memory) + strlen(b->memory) + 2 > sizeof(a->memory))
				continue;
			for (size_t x = 0; x < a->nsizes; x++)
				for (size_t y = 0; y < b->nsizes; y++)
					overlap |= a->sizes[x] == b->sizes[y];
			if (overlap)
				continue;
			strcat(a->memory, ",");
			strcat(a->memory, b->memory);
			memcpy(a->sizes + a->nsizes, b->sizes, b->nsizes * sizeof(b->sizes[0]));
			a->nsizes += b->nsizes;
			drop_cell(sw, j);
			j--;
		}
	}
	join_policies(sw);
}

static int parse_manifest(struct sweep *sw)
{
	FILE *f = fopen(sw->manifest, "r");
	struct para p = { 0 };
	char *line = NULL, *slash;
	size_t cap = 0;
	long len;
	unsigned no = 0;
	int rc = 0;

	if (!f)
		return mr_error_set(&sw->err, MR_ENOENT, "cannot open manifest %s: %s", sw->manifest,
				    strerror(errno));
	sw->dir = strdup(sw->manifest);
	if (!sw->dir) {
		fclose(f);
		return mr_error_set(&sw->err, MR_ENOMEM, "out of memory");
	}
	slash = strrchr(sw->dir, '/');
	if (slash)
		slash[1] = 0;
	else
		sw->dir[0] = 0;
	/* errno set before each read: after the loop it is the last read's */
	while (!rc && (errno = 0, len = mr_getline_max(&line, &cap, f, SWEEP_LINE_MAX)) != -1) {
		char *s, *hash, *w[4], *save;
		int nw = 0, k = -1;
		size_t kl;

		no++;
		if (len == -2) { /* not read further: a file without newlines is not held whole */
			rc = merr(sw, no, "a line of more than 64 KiB: the manifest is not a text "
				  "file of lines", NULL, NULL);
			break;
		}
		if (strlen(line) != (size_t)len) {
			rc = merr(sw, no, "a NUL byte: the manifest is not a text file", NULL, NULL);
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		s = trim(line);
		if (!*s) {
			rc = flush_para(sw, &p);
			continue;
		}
		/* "traces:", "policies:" or "memory:" opens a line of a cross product */
		kl = strcspn(s, ": \t");
		for (int i = 0; s[kl] == ':' && i < 3; i++)
			if (kl == strlen(keys[i]) && !strncmp(s, keys[i], kl))
				k = i;
		if (k >= 0) {
			char *colon = s + kl;

			if (p.key[k]) {
				rc = merr(sw, no, "a second '%s:' line in one cross product: end the first with a blank line",
					  keys[k], NULL);
				break;
			}
			if (!p.key[0] && !p.key[1] && !p.key[2])
				p.line = no;
			p.key[k] = strdup(trim(colon + 1));
			if (!p.key[k])
				rc = mr_error_set(&sw->err, MR_ENOMEM, "out of memory");
			continue;
		}
		rc = flush_para(sw, &p);
		for (char *t = strtok_r(s, " \t", &save); t && nw < 4; t = strtok_r(NULL, " \t", &save))
			w[nw++] = t;
		if (!rc && nw > 0 && w[0][strlen(w[0]) - 1] == ':')
			rc = merr(sw, no, "unknown key '%s' (the keys are traces:, policies:, memory:)",
				  w[0], NULL);
		else if (!rc && nw != 3)
			rc = merr(sw, no, "expected 'TRACE POLICY MEMORY' or a 'traces:', 'policies:' or 'memory:' line, got %s",
				  nw < 3 ? "fewer words" : "more words", NULL);
		else if (!rc)
			rc = add_entry(sw, w[0], w[1], w[2], no);
	}
	if (!rc && (ferror(f) || errno == ENOMEM)) /* not its end: a manifest cut short */
		rc = mr_error_set(&sw->err, errno == ENOMEM ? MR_ENOMEM : MR_EIO,
				  "reading manifest %s failed: %s", sw->manifest,
				  strerror(errno ? errno : EIO));
	if (!rc)
		rc = flush_para(sw, &p);
	for (int k = 0; k < 3; k++)
		free(p.key[k]);
	free(line);
	fclose(f);
	if (!rc && !sw->n)
		rc = mr_error_set(&sw->err, MR_EINVAL, "manifest %s has no cells: write lines 'TRACE POLICY MEMORY' or a cross product (docs/sweep.md)",
				  sw->manifest);
	if (!rc)
		join_cells(sw);
	return rc;
}

/* ---- one cell's files ---- */

static void cell_file(const char *out, size_t k, const char *suffix, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s/cell-%04zu%s", out, k, suffix);
}

/*
 * path holds exactly cell c's runs: a results file (mr_results_open()) whose runs are
 * the cell's trace at each (policy, size) once. 0, or an error saying what is missing.
 */
static int cell_check(const struct cell *c, const char *path, struct mr_error *err)
{
	struct mr_results *r;
	sqlite3_stmt *st = NULL;
	int64_t n = -1, good = -1;
	int rc = mr_results_open(path, &r, err);

	if (rc)
		return rc;
	if (sqlite3_prepare_v2(mr_results_db(r), "SELECT count(*), sum(trace = ?1) FROM runs", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, c->trace, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			n = sqlite3_column_int64(st, 0);
			good = sqlite3_column_int64(st, 1);
		}
	}
	sqlite3_finalize(st);
	if (n != (int64_t)(c->npol * c->nsizes) || good != n) {
		mr_results_close(r);
		return mr_error_set(err, MR_ECORRUPT, "%s has %lld runs of %s, the cell has %zu", path,
				    (long long)(good < 0 ? 0 : good), c->trace, c->npol * c->nsizes);
	}
	/* each (spec, size) once */
	for (size_t p = 0; !rc && p < c->npol; p++)
		for (size_t s = 0; !rc && s < c->nsizes; s++) {
			n = -1;
			if (sqlite3_prepare_v2(mr_results_db(r), "SELECT count(*) FROM runs WHERE "
					       "spec = ?1 AND memory_pages = ?2", -1, &st, NULL) == SQLITE_OK) {
				sqlite3_bind_text(st, 1, c->canon[p], -1, SQLITE_STATIC);
				sqlite3_bind_int64(st, 2, (int64_t)c->sizes[s]);
				if (sqlite3_step(st) == SQLITE_ROW)
					n = sqlite3_column_int64(st, 0);
			}
			sqlite3_finalize(st);
			st = NULL;
			if (n != 1)
				rc = mr_error_set(err, MR_ECORRUPT, "%s lacks the run of %s at %llu pages",
						  path, c->pol[p], (unsigned long long)c->sizes[s]);
		}
	mr_results_close(r);
	return rc;
}

/* The replay of cell c writing to part: argv for execv (pointers into c). */
static void cell_argv(const struct cell *c, const char *self, const char *part, int threads,
		      char *thr, size_t thr_cap, char **argv)
{
	size_t a = 0;

	snprintf(thr, thr_cap, "%d", threads);
	argv[a++] = (char *)self;
	argv[a++] = "replay";
	argv[a++] = c->trace;
	for (size_t p = 0; p < c->npol; p++) {
		argv[a++] = "--policy";
		argv[a++] = c->pol[p];
	}
	argv[a++] = "--memory";
	argv[a++] = (char *)c->memory;
	argv[a++] = "--threads";
	argv[a++] = thr;
	argv[a++] = "-q";
	argv[a++] = "-o";
	argv[a++] = (char *)part;
	argv[a] = NULL;
}

/* a word for sh: as it is when it is safe, else in single quotes */
static void put_word(FILE *f, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-+=.,/:@%") == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void put_argv(FILE *f, char **argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		put_word(f, argv[i]);
	}
}

/* ---- the local pool ---- */

struct pool {
	const struct sweep *sw;
	const char *out, *self;
	int jobs, threads, quiet;
	size_t failed, ran;
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* What a killed run of the cell left: its part file (replay refuses to replace a file
 * that is not results) and the replay's temporaries beside it (PART.tmp-PID-N). */
static void remove_part(const char *part)
{
	char pat[PATH_MAX + 16];
	glob_t g;

	unlink(part);
	snprintf(pat, sizeof(pat), "%s.tmp-*", part);
	if (!glob(pat, GLOB_NOSORT, NULL, &g))
		for (size_t i = 0; i < g.gl_pathc; i++)
			unlink(g.gl_pathv[i]);
	globfree(&g);
}

static int start_cell(struct pool *pl, size_t k)
{
	struct cell *c = &pl->sw->cells[k];
	char part[PATH_MAX], log[PATH_MAX], thr[16];
	char *argv[2 * MAX_POL + 16];
	pid_t pid;
	int fd;

	cell_file(pl->out, k, ".part.db", part, sizeof(part));
	cell_file(pl->out, k, ".log", log, sizeof(log));
	remove_part(part);
	cell_argv(c, pl->self, part, pl->threads, thr, sizeof(thr), argv);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "memreplay sweep: cell %zu: cannot write %s: %s\n", k, log,
			strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "memreplay sweep: cell %zu: fork: %s\n", k, strerror(errno));
		close(fd);
		return -1;
	}
	if (!pid) {
		dup2(fd, 1);
		dup2(fd, 2);
		execv(pl->self, argv);
		fprintf(stderr, "memreplay sweep: cannot run %s: %s\n", pl->self, strerror(errno));
		_exit(127);
	}
	close(fd);
	c->pid = pid;
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	return 0;
}

/* the last lines of a failed cell's log, indented, so the reason is on the terminal */
static void show_log_tail(const char *log)
{
	char buf[4096];
	FILE *f = fopen(log, "r");
	size_t n;
	char *p;
	int lines = 0;

	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	if (ftell(f) > (long)sizeof(buf) - 1)
		fseek(f, -(long)sizeof(buf) + 1, SEEK_END);
	else
		fseek(f, 0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = buf + n;
	while (p > buf && lines < 6)
		if (*--p == '\n' && p + 1 < buf + n)
			lines++;
	if (*p == '\n')
		p++;
	for (char *l = strtok(p, "\n"); l; l = strtok(NULL, "\n")) {
		fputs("    ", stderr);
		fputs(l, stderr);
		fputc('\n', stderr);
	}
}

static void finish_cell(struct pool *pl, size_t k, int status, const struct rusage *ru)
{
	struct cell *c = &pl->sw->cells[k];
	char part[PATH_MAX], final[PATH_MAX], log[PATH_MAX], thr[16], why[PATH_MAX + 128];
	char *argv[2 * MAX_POL + 16];
	struct mr_error err = { 0 };
	double s = since(&c->start);

	c->pid = 0;
	pl->ran++;
	cell_file(pl->out, k, ".part.db", part, sizeof(part));
	cell_file(pl->out, k, ".db", final, sizeof(final));
	cell_file(pl->out, k, ".log", log, sizeof(log));
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		if (cell_check(c, part, &err))
			snprintf(why, sizeof(why), "exit 0 but its results are not the cell's");
		else if (rename(part, final))
			snprintf(why, sizeof(why), "renaming to %s: %s", final, strerror(errno));
		else {
			if (!pl->quiet)
				printf("cell %04zu done: %s, %zu runs, %.1f s, peak RSS %.1f MiB\n", k,
				       c->trace, c->npol * c->nsizes, s, (double)ru->ru_maxrss / 1024.0);
			return;
		}
	} else if (WIFSIGNALED(status)) {
		snprintf(why, sizeof(why), "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	} else {
		snprintf(why, sizeof(why), "exit status %d", WEXITSTATUS(status));
	}
	pl->failed++;
	remove_part(part);
	cell_argv(c, pl->self, part, pl->threads, thr, sizeof(thr), argv);
	fprintf(stderr, "memreplay sweep: cell %zu failed (%s)%s%s; command:\n    ", k, why,
		err.msg[0] ? ": " : "", err.msg);
	put_argv(stderr, argv);
	fprintf(stderr, "\n  its output (%s) ends:\n", log);
	show_log_tail(log);
}

/* cell k needs running: its file is absent, or (said so) not the cell's whole result */
static int cell_needed(const struct pool *pl, size_t k, int force)
{
	char final[PATH_MAX];
	struct mr_error err = { 0 };
	struct stat sb;

	cell_file(pl->out, k, ".db", final, sizeof(final));
	if (lstat(final, &sb))
		return 1;
	if (force) {
		unlink(final);
		return 1;
	}
	if (!cell_check(&pl->sw->cells[k], final, &err))
		return 0;
	fprintf(stderr, "memreplay sweep: cell %zu: %s is not this cell's complete result (%s): running it again\n",
		k, final, err.msg);
	unlink(final);
	return 1;
}

static int run_pool(struct pool *pl, long only, int force)
{
	const struct sweep *sw = pl->sw;
	size_t lo = only >= 0 ? (size_t)only : 0, hi = only >= 0 ? (size_t)only + 1 : sw->n;
	size_t *todo = calloc(hi - lo, sizeof(*todo)), ntodo = 0, next = 0, running = 0, skipped;
	struct timespec t0;

	if (!todo) {
		fprintf(stderr, "memreplay sweep: out of memory\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t k = lo; k < hi; k++)
		if (cell_needed(pl, k, force))
			todo[ntodo++] = k;
	skipped = hi - lo - ntodo;
	if (!pl->quiet)
		printf("sweep: %zu cell(s)%s, %zu already done, running %zu with -j %d\n", hi - lo,
		       only >= 0 ? " (--cell)" : "", skipped, ntodo, pl->jobs);
	while (next < ntodo || running) {
		struct rusage ru;
		int status;
		pid_t pid;

		while (next < ntodo && running < (size_t)pl->jobs) {
			if (start_cell(pl, todo[next]))
				pl->failed++;
			else
				running++;
			next++;
		}
		if (!running)
			break;
		pid = wait4(-1, &status, 0, &ru);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "memreplay sweep: wait: %s\n", strerror(errno));
			break;
		}
		for (size_t i = 0; i < next; i++)
			if (sw->cells[todo[i]].pid == pid) {
				finish_cell(pl, todo[i], status, &ru);
				running--;
				break;
			}
	}
	free(todo);
	if (!pl->quiet)
		printf("sweep: %zu of %zu cell(s) done (%zu skipped, %zu failed) in %.1f s; merge: memreplay merge -o ALL.db %s/cell-*.db\n",
		       hi - lo - pl->failed, hi - lo, skipped, pl->failed, since(&t0), pl->out);
	return pl->failed ? 1 : 0;
}

/* ---- scripts for other schedulers ---- */

/*
 * The memory a cell's replay needs, in MiB, from the trace's distinct pages and the
 * machines (policies x sizes) the pass simulates. Peak RSS of `memreplay replay
 * --threads 1` measured on generated traces of 16K..348K pages, 0.8M..8.4M events, 1, 6
 * and 24 machines (docs/sweep.md, "Memory per cell"): about 10 MiB + pages x (55 +
 * machines x 33) bytes, plus 32 MiB of decode batches when a cell has several machines;
 * the events are streamed. The estimate is 16 MiB + pages x (40 + machines x 64)
 * bytes, times 1.5, plus 64 MiB, rounded up to 64 MiB: at most half of it was used.
 */
#define EST_BASE (16.0 * 1048576)
#define EST_PER_PAGE 40.0
#define EST_PER_MACHINE_PAGE 64.0
static uint64_t cell_mem_mib(uint64_t pages, size_t machines)
{
	double b = EST_BASE + (double)pages * (EST_PER_PAGE + (double)machines * EST_PER_MACHINE_PAGE);
	uint64_t mib = (uint64_t)(b * 1.5 / 1048576.0) + 64;

	return (mib + 63) / 64 * 64;
}

static int trace_pages(const char *path, uint64_t *pages, struct mr_error *err)
{
	struct mr_store *s;
	struct mr_store_summary sum;
	int rc = mr_store_open(path, MR_STORE_RDONLY, &s, err);

	if (rc)
		return rc;
	rc = mr_store_summarize(s, &sum, err);
	if (!rc)
		*pages = sum.n_pages;
	mr_store_close(s);
	return rc;
}

/* the command of one task: cell is a number, or "$SLURM_ARRAY_TASK_ID" in the array script */
static void put_task(FILE *f, const char *self, const char *manifest, const char *out,
		     const char *cell, int threads)
{
	char thr[16];

	snprintf(thr, sizeof(thr), "%d", threads);
	put_word(f, self);
	fputs(" sweep ", f);
	put_word(f, manifest);
	fputs(" -o ", f);
	put_word(f, out);
	fputs(" --threads ", f);
	fputs(thr, f);
	fputs(" --cell ", f);
	fputs(cell, f);
}

static int emit_slurm(const struct sweep *sw, const char *self, const char *cwd,
		      const char *out, int threads, const char *extra)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
	uint64_t max_mib = 0, *mib = calloc(sw->n, sizeof(*mib));
	uint64_t *pages = calloc(sw->n, sizeof(*pages));
	struct mr_error err = { 0 };
	FILE *f;

	if (!mib || !pages) {
		free(mib);
		free(pages);
		return 1;
	}
	for (size_t k = 0; k < sw->n; k++) {
		if (trace_pages(sw->cells[k].trace, &pages[k], &err)) {
			fprintf(stderr, "memreplay sweep: cell %zu (%s:%u): %s\n", k, sw->manifest,
				sw->cells[k].line, err.msg);
			free(mib);
			free(pages);
			return 1;
		}
		mib[k] = cell_mem_mib(pages[k], sw->cells[k].npol * sw->cells[k].nsizes);
		if (mib[k] > max_mib)
			max_mib = mib[k];
	}
	snprintf(path, sizeof(path), "%s/sweep.sbatch", out);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "memreplay sweep: cannot write %s: %s\n", tmp, strerror(errno));
		free(mib);
		free(pages);
		return 1;
	}
	fprintf(f, "#!/bin/sh\n"
		   "# Written by `memreplay sweep --emit slurm` for the manifest %s: one array\n"
		   "# task per cell, each `memreplay sweep MANIFEST --cell K` (docs/sweep.md).\n"
		   "# Submit with: sbatch %s\n", sw->manifest, path);
	fprintf(f, "#SBATCH --job-name=memreplay-sweep\n");
	fprintf(f, "#SBATCH --array=0-%zu\n", sw->n - 1);
	fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n", threads);
	fprintf(f, "#SBATCH --mem=%lluM\n", (unsigned long long)max_mib);
	fprintf(f, "#SBATCH --chdir=%s\n", cwd);
	fprintf(f, "#SBATCH --output=%s/slurm-%%A_%%a.out\n", out);
	if (extra) { /* one option per line, as sbatch reads them */
		char *x = strdup(extra), *save, *w;

		for (w = x ? strtok_r(x, " \t", &save) : NULL; w; w = strtok_r(NULL, " \t", &save))
			fprintf(f, "#SBATCH %s\n", w);
		free(x);
	}
	fprintf(f, "# --mem is the largest cell's estimate (docs/sweep.md, \"Memory per cell\"):\n");
	for (size_t k = 0; k < sw->n; k++)
		fprintf(f, "#   cell %zu: %s, %llu pages, %zu policies x %zu sizes: %llu MiB\n", k,
			sw->cells[k].trace, (unsigned long long)pages[k], sw->cells[k].npol,
			sw->cells[k].nsizes, (unsigned long long)mib[k]);
	fputs("exec ", f);
	put_task(f, self, sw->manifest, out, "\"$SLURM_ARRAY_TASK_ID\"", threads);
	fputc('\n', f);
	free(mib);
	free(pages);
	if (fclose(f) || chmod(tmp, 0755) || rename(tmp, path)) {
		fprintf(stderr, "memreplay sweep: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return 1;
	}
	printf("%s: %zu array task(s), --mem=%lluM; submit with: sbatch %s\n", path, sw->n,
	       (unsigned long long)max_mib, path);
	if (sw->n > 1001) /* slurm.conf(5): MaxArraySize, default 1001 */
		fprintf(stderr, "memreplay sweep: note: %zu tasks is more than Slurm's default MaxArraySize (1001): the cluster's may refuse the array; split the manifest if it does\n",
			sw->n);
	return 0;
}

static int emit_parallel(const struct sweep *sw, const char *self, const char *cwd,
			 const char *out, int threads)
{
	for (size_t k = 0; k < sw->n; k++) {
		char cell[24];

		snprintf(cell, sizeof(cell), "%zu", k);
		fputs("cd ", stdout);
		put_word(stdout, cwd);
		fputs(" && ", stdout);
		put_task(stdout, self, sw->manifest, out, cell, threads);
		putchar('\n');
	}
	return 0;
}

static void print_cells(const struct sweep *sw)
{
	for (size_t k = 0; k < sw->n; k++) {
		const struct cell *c = &sw->cells[k];

		printf("cell %04zu  %s  --memory %s ", k, c->trace, c->memory);
		for (size_t p = 0; p < c->npol; p++)
			printf(" --policy %s", c->pol[p]);
		printf("   (%zu runs, line %u)\n", c->npol * c->nsizes, c->line);
	}
}

int cmd_sweep(int argc, char **argv)
{
	enum { O_EMIT = 256, O_CELL, O_FORCE, O_LIST, O_THREADS, O_SBATCH };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "emit", required_argument, NULL, O_EMIT },
		{ "cell", required_argument, NULL, O_CELL },
		{ "force", no_argument, NULL, O_FORCE },
		{ "list", no_argument, NULL, O_LIST },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "sbatch", required_argument, NULL, O_SBATCH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct sweep sw = { 0 };
	struct pool pl = { .sw = &sw, .jobs = 0, .threads = 1 };
	const char *emit = NULL, *sbatch = NULL;
	char self[PATH_MAX], cwd[PATH_MAX], out[PATH_MAX];
	long cell = -1;
	int c, force = 0, list = 0, rc;
	ssize_t n;
	char *end;

	optind = 1;
	out[0] = 0;
	while ((c = getopt_long(argc, argv, "o:j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (strlen(optarg) >= sizeof(out) - 32)
				return cli_usage_error("sweep", "-o: path too long");
			snprintf(out, sizeof(out), "%s", optarg);
			break;
		case 'j':
			errno = 0;
			pl.jobs = (int)strtol(optarg, &end, 10);
			if (errno || *end || pl.jobs < 1 || pl.jobs > 1024)
				return cli_usage_error("sweep", "-j '%s': give a number of workers, 1..1024",
						       optarg);
			break;
		case O_THREADS:
			errno = 0;
			pl.threads = (int)strtol(optarg, &end, 10);
			if (errno || *end || pl.threads < 1 || pl.threads > 256)
				return cli_usage_error("sweep", "--threads '%s': give 1..256 threads per cell",
						       optarg);
			break;
		case O_EMIT:
			if (strcmp(optarg, "slurm") && strcmp(optarg, "parallel"))
				return cli_usage_error("sweep", "--emit '%s': give slurm or parallel", optarg);
			emit = optarg;
			break;
		case O_CELL:
			errno = 0;
			cell = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || cell < 0)
				return cli_usage_error("sweep", "--cell '%s': give a cell number (0, 1, ...; --list shows them)",
						       optarg);
			break;
		case O_FORCE:
			force = 1;
			break;
		case O_LIST:
			list = 1;
			break;
		case O_SBATCH:
			sbatch = optarg;
			break;
		case 'q':
			pl.quiet = 1;
			break;
		case 'h':
			printf("usage: %s\n", cli_find("sweep")->usage);
			return 0;
		default:
			return cli_usage_error("sweep", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("sweep", "expected exactly one manifest file");
	if (sbatch && (!emit || strcmp(emit, "slurm") || strchr(sbatch, '\n')))
		return cli_usage_error("sweep", "--sbatch goes with --emit slurm (one line of options)");
	if (emit && cell >= 0)
		return cli_usage_error("sweep", "--cell runs one cell here; it does not go with --emit");
	sw.manifest = argv[optind];
	if (parse_manifest(&sw)) {
		rc = cli_fail("sweep", &sw.err);
		goto out;
	}
	if (list) {
		print_cells(&sw);
		rc = 0;
		goto out;
	}
	if (cell >= (long)sw.n) {
		fprintf(stderr, "memreplay sweep: --cell %ld: %s has cells 0..%zu\n", cell,
			sw.manifest, sw.n - 1);
		rc = 1;
		goto out;
	}
	if (!out[0]) /* MANIFEST.d beside the manifest */
		snprintf(out, sizeof(out), "%s.d", sw.manifest);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "memreplay sweep: cannot find its own binary (/proc/self/exe) or the working directory\n");
		rc = 1;
		goto out;
	}
	self[n] = 0;
	if (mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "memreplay sweep: cannot make the output directory %s: %s\n", out,
			strerror(errno));
		rc = 1;
		goto out;
	}
	{
		struct stat ob;

		/* a file there: every cell would fail writing into it */
		if (stat(out, &ob) || !S_ISDIR(ob.st_mode)) {
			fprintf(stderr, "memreplay sweep: -o %s exists and is not a directory: give "
				"the directory the cells' results go to\n", out);
			rc = 1;
			goto out;
		}
	}
	if (emit && !strcmp(emit, "slurm"))
		rc = emit_slurm(&sw, self, cwd, out, pl.threads, sbatch);
	else if (emit)
		rc = emit_parallel(&sw, self, cwd, out, pl.threads);
	else {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		if (!pl.jobs)
			pl.jobs = cell >= 0 ? 1 : ncpu > 0 ? (int)ncpu : 1;
		pl.out = out;
		pl.self = self;
		rc = run_pool(&pl, cell, force);
	}
out:
	for (size_t k = 0; k < sw.n; k++)
		cell_free(&sw.cells[k]);
	free(sw.cells);
	free(sw.dir);
	return rc;
}
