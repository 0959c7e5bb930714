// SPDX-License-Identifier: GPL-2.0
/*
 * import_damo.c - damo's JSON record of DAMON monitoring results.
 *
 * `damo record --output_type json` (and `damo convert_record_format --format json`)
 * writes a list of records, one per monitoring target (damo src/_damo_records.py,
 * DamonRecord.to_kvpairs / DamonSnapshot.to_kvpairs / _damon.py DamonRegion):
 *
 *   [ { "kdamond_idx": .., "context_idx": .., "intervals": {..}, "scheme_idx": ..,
 *       "target_id": N,
 *       "snapshots": [ { "start_time": NS, "end_time": NS,
 *                        "regions": [ { "start": ADDR, "end": ADDR,
 *                                       "nr_accesses": { "samples": N, "percent": P },
 *                                       "age": { .. }, .. }, .. ],
 *                        "total_bytes": .. }, .. ] }, .. ]
 *
 * Numbers come as JSON numbers or as strings, with thousands separators ("4,294,967,296")
 * when damo formats them for people. Keys this importer does not use are skipped,
 * whatever they hold.
 *
 * The rule: each record is one address space (one task, its own stream); for each
 * snapshot, every page of every region whose nr_accesses is above zero is accessed
 * once, in the file's (address) order, at the snapshot's end_time measured from the
 * first start_time of the file: DAMON saw the region accessed during that aggregation
 * interval, not which of its pages or how often. ACCESS source young (a sampled
 * access bit).
 *
 * The reader is a streaming tokenizer over the FILE: memory does not grow with the
 * input, only with the distinct pages it names.
 */
#include <stdlib.h>
#include <string.h>

#include "import_priv.h"

#define JSON_TEXT_MAX 256  /* keys and scalar values we read; longer ones are skipped */
#define JSON_DEPTH_MAX 64

enum jtok { J_EOF, J_LBRACE, J_RBRACE, J_LBRACK, J_RBRACK, J_COLON, J_COMMA, J_STRING,
	    J_NUMBER, J_TRUE, J_FALSE, J_NULL, J_ERR };

struct json {
	struct imp_ctx *c;
	int peeked; /* one character of lookahead, or EOF (-1); -2 = none */
	enum jtok tok;
	char text[JSON_TEXT_MAX]; /* J_STRING / J_NUMBER text, NUL-terminated */
	int long_text; /* the text was longer than text[] (kept truncated) */
};

static const char *const tok_name[] = {
	[J_EOF] = "end of input", [J_LBRACE] = "'{'", [J_RBRACE] = "'}'", [J_LBRACK] = "'['",
	[J_RBRACK] = "']'", [J_COLON] = "':'", [J_COMMA] = "','", [J_STRING] = "a string",
	[J_NUMBER] = "a number", [J_TRUE] = "true", [J_FALSE] = "false", [J_NULL] = "null",
	[J_ERR] = "a bad token",
};

static int jgetc(struct json *j)
{
	int ch;

	if (j->peeked != -2) {
		ch = j->peeked;
		j->peeked = -2;
	} else {
		ch = getc(j->c->in);
	}
	if (ch == '\n')
		j->c->line++;
	return ch;
}

static void junget(struct json *j, int ch)
{
	if (ch == '\n')
		j->c->line--;
	j->peeked = ch;
}

static int jfail(struct json *j, const char *want)
{
	return imp_fail(j->c, "expected %s in the damo JSON record, found %s", want,
			tok_name[j->tok]);
}

static void text_put(struct json *j, size_t *n, int ch)
{
	if (*n + 1 < sizeof(j->text))
		j->text[(*n)++] = (char)ch;
	else
		j->long_text = 1;
}

/* The next token into j->tok (and j->text). A read error or bad byte gives J_ERR. */
static enum jtok jnext(struct json *j)
{
	size_t n = 0;
	int ch;

	do
		ch = jgetc(j);
	while (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r');
	j->long_text = 0;
	j->text[0] = 0;
	switch (ch) {
	case EOF:
		return j->tok = J_EOF;
	case '{':
		return j->tok = J_LBRACE;
	case '}':
		return j->tok = J_RBRACE;
	case '[':
		return j->tok = J_LBRACK;
	case ']':
		return j->tok = J_RBRACK;
	case ':':
		return j->tok = J_COLON;
	case ',':
		return j->tok = J_COMMA;
	case '"':
		for (;;) {
			ch = jgetc(j);
			if (ch == EOF || ch == '\n')
				return j->tok = J_ERR;
			if (ch == '"')
				break;
			if (ch == '\\') {
				ch = jgetc(j);
				if (ch == EOF)
					return j->tok = J_ERR;
				if (ch == 'u') { /* keep the escape as text: no key we use has one */
					text_put(j, &n, '?');
					for (int i = 0; i < 4; i++)
						if (jgetc(j) == EOF)
							return j->tok = J_ERR;
					continue;
				}
			}
			text_put(j, &n, ch);
		}
		j->text[n] = 0;
		return j->tok = J_STRING;
	}
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		while (ch == '-' || ch == '+' || ch == '.' || ch == 'e' || ch == 'E' ||
		       (ch >= '0' && ch <= '9')) {
			text_put(j, &n, ch);
			ch = jgetc(j);
		}
		junget(j, ch);
		j->text[n] = 0;
		return j->tok = J_NUMBER;
	}
	if (ch >= 'a' && ch <= 'z') {
		while (ch >= 'a' && ch <= 'z') {
			text_put(j, &n, ch);
			ch = jgetc(j);
		}
		junget(j, ch);
		j->text[n] = 0;
		if (!strcmp(j->text, "true"))
			return j->tok = J_TRUE;
		if (!strcmp(j->text, "false"))
			return j->tok = J_FALSE;
		if (!strcmp(j->text, "null"))
			return j->tok = J_NULL;
	}
	return j->tok = J_ERR;
}

static int expect(struct json *j, enum jtok t, const char *want)
{
	return jnext(j) == t ? 0 : jfail(j, want);
}

/* Skip the value that starts with the current token (any depth, bounded). */
static int skip_value(struct json *j)
{
	int depth = 0;

	for (;;) {
		switch (j->tok) {
		case J_LBRACE:
		case J_LBRACK:
			if (++depth > JSON_DEPTH_MAX)
				return imp_fail(j->c, "JSON nested deeper than %d levels", JSON_DEPTH_MAX);
			break;
		case J_RBRACE:
		case J_RBRACK:
			if (--depth < 0)
				return jfail(j, "a value");
			break;
		case J_EOF:
		case J_ERR:
			return jfail(j, "a value");
		default:
			break;
		}
		if (!depth)
			return 0;
		jnext(j);
	}
}

/*
 * Walk the members of the object whose '{' is the current token: member(j, key, arg) is
 * called with the value's first token current and must consume the whole value.
 */
static int each_member(struct json *j, int (*member)(struct json *, const char *, void *),
		       void *arg)
{
	char key[JSON_TEXT_MAX];
	int rc;

	if (j->tok != J_LBRACE)
		return jfail(j, "an object '{'");
	if (jnext(j) == J_RBRACE)
		return 0;
	for (;;) {
		if (j->tok != J_STRING)
			return jfail(j, "a key (a string)");
		memcpy(key, j->text, sizeof(key));
		rc = expect(j, J_COLON, "':' after a key");
		if (!rc) {
			jnext(j);
			rc = member(j, key, arg);
		}
		if (rc)
			return rc;
		if (jnext(j) == J_RBRACE)
			return 0;
		if (j->tok != J_COMMA)
			return jfail(j, "',' or '}' in an object");
		jnext(j);
	}
}

/* The elements of the array whose '[' is current: element(j, arg) as member above. */
static int each_element(struct json *j, int (*element)(struct json *, void *), void *arg)
{
	int rc;

	if (j->tok != J_LBRACK)
		return jfail(j, "an array '['");
	if (jnext(j) == J_RBRACK)
		return 0;
	for (;;) {
		rc = element(j, arg);
		if (rc)
			return rc;
		if (jnext(j) == J_RBRACK)
			return 0;
		if (j->tok != J_COMMA)
			return jfail(j, "',' or ']' in an array");
		jnext(j);
	}
}

/* An unsigned integer: a JSON number or a string of digits, commas allowed. */
static int get_u64(struct json *j, const char *what, uint64_t *v)
{
	uint64_t x = 0;
	int digits = 0;

	if ((j->tok != J_NUMBER && j->tok != J_STRING) || j->long_text)
		return imp_fail(j->c, "%s: expected an integer (a number or a string of digits)",
				what);
	for (const char *p = j->text; *p; p++) {
		if (*p == ',' && j->tok == J_STRING)
			continue;
		if (*p < '0' || *p > '9' || x > (UINT64_MAX - 9) / 10)
			return imp_fail(j->c, "%s: '%s' is not a non-negative integer%s", what, j->text,
					j->tok == J_STRING ? " (damo's raw numbers: record or convert "
					"with damo's default JSON, no units)" : "");
		x = x * 10 + (uint64_t)(*p - '0');
		digits++;
	}
	if (!digits)
		return imp_fail(j->c, "%s: an empty number", what);
	*v = x;
	return 0;
}

/* ---- the record structure ---- */

struct damo_state {
	struct imp_ctx *c;
	int have_t0;
	uint64_t t0;
	uint32_t records; /* records begun */
	/* the current record */
	uint32_t stream, task, mm;
	uint64_t last; /* last event time on the stream */
	int64_t target_id;
	/* the current snapshot */
	int have_start, have_end;
	uint64_t start_time, end_time, t;
	/* the current region */
	int have_rstart, have_rend, have_acc;
	uint64_t rstart, rend;
	int accessed;
};

static int nr_accesses_member(struct json *j, const char *key, void *arg)
{
	struct damo_state *ds = arg;
	uint64_t v;
	int rc;

	if (j->tok == J_NULL)
		return 0;
	if (!strcmp(key, "samples")) {
		rc = get_u64(j, "nr_accesses.samples", &v);
		if (rc)
			return rc;
		ds->accessed = v > 0;
		ds->have_acc = 1;
		return 0;
	}
	if (!strcmp(key, "percent") && !ds->have_acc) {
		if (j->tok != J_NUMBER)
			return imp_fail(j->c, "nr_accesses.percent: expected a number");
		ds->accessed = strtod(j->text, NULL) > 0;
		ds->have_acc = 1;
		return 0;
	}
	return skip_value(j);
}

static int region_member(struct json *j, const char *key, void *arg)
{
	struct damo_state *ds = arg;
	uint64_t v;
	int rc;

	if (!strcmp(key, "start")) {
		ds->have_rstart = 1;
		return get_u64(j, "region start", &ds->rstart);
	}
	if (!strcmp(key, "end")) {
		ds->have_rend = 1;
		return get_u64(j, "region end", &ds->rend);
	}
	if (!strcmp(key, "nr_accesses")) {
		if (j->tok == J_LBRACE)
			return each_member(j, nr_accesses_member, ds);
		rc = get_u64(j, "nr_accesses", &v); /* older records: a plain count */
		if (rc)
			return rc;
		ds->accessed = v > 0;
		ds->have_acc = 1;
		return 0;
	}
	return skip_value(j);
}

static int region(struct json *j, void *arg)
{
	struct damo_state *ds = arg;
	struct imp_ctx *c = ds->c;
	uint64_t first, last;
	int rc;

	ds->have_rstart = ds->have_rend = ds->have_acc = ds->accessed = 0;
	rc = each_member(j, region_member, ds);
	if (rc)
		return rc;
	if (!ds->have_rstart || !ds->have_rend || !ds->have_acc)
		return imp_fail(c, "a region without %s: each needs start, end and nr_accesses",
				!ds->have_rstart ? "start" : !ds->have_rend ? "end" : "nr_accesses");
	if (ds->rend <= ds->rstart)
		return imp_fail(c, "a region with end %llu at or below its start %llu",
				(unsigned long long)ds->rend, (unsigned long long)ds->rstart);
	if (!ds->accessed) {
		c->st.skipped++;
		return 0;
	}
	if (ds->rend > IMP_VA_END)
		return imp_fail(c, "region end 0x%llx is beyond the addresses a trace holds (2^56)",
				(unsigned long long)ds->rend);
	if (!ds->task) {
		char comm[32];

		snprintf(comm, sizeof(comm), "damon-target-%lld", (long long)ds->target_id);
		rc = imp_task(c, ds->stream, ds->t, (int32_t)ds->records, (int32_t)ds->records, comm,
			      &ds->task, &ds->mm);
		if (rc)
			return rc;
	}
	first = ds->rstart >> IMP_PAGE_SHIFT;
	last = (ds->rend - 1) >> IMP_PAGE_SHIFT;
	for (uint64_t vp = first; vp <= last; vp++) {
		uint32_t page;

		rc = imp_page(c, ds->mm, vp, 0, &page);
		if (!rc)
			rc = imp_emit(c, ds->stream, ds->t, MR_EV_ACCESS, page, ds->task,
				      MR_ACC_FLAGS(MR_ACC_READ, MR_SRC_YOUNG), 0, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static int snapshot_member(struct json *j, const char *key, void *arg)
{
	struct damo_state *ds = arg;
	int rc;

	if (!strcmp(key, "start_time")) {
		ds->have_start = 1;
		return get_u64(j, "snapshot start_time", &ds->start_time);
	}
	if (!strcmp(key, "end_time")) {
		ds->have_end = 1;
		return get_u64(j, "snapshot end_time", &ds->end_time);
	}
	if (strcmp(key, "regions"))
		return skip_value(j);
	if (!ds->have_end)
		return imp_fail(j->c, "a snapshot's regions before its end_time: the time of "
				"their accesses is end_time (damo writes start_time, end_time, "
				"regions in that order)");
	if (!ds->have_t0) {
		ds->have_t0 = 1;
		ds->t0 = ds->have_start && ds->start_time < ds->end_time ? ds->start_time :
									  ds->end_time;
	}
	ds->t = ds->end_time >= ds->t0 ? ds->end_time - ds->t0 : 0;
	if (ds->t < ds->last || ds->end_time < ds->t0) {
		ds->c->st.clamped++;
		ds->t = ds->last;
	}
	ds->last = ds->t;
	rc = each_element(j, region, ds);
	return rc;
}

static int snapshot(struct json *j, void *arg)
{
	struct damo_state *ds = arg;

	ds->have_start = ds->have_end = 0;
	return each_member(j, snapshot_member, ds);
}

static int record_member(struct json *j, const char *key, void *arg)
{
	struct damo_state *ds = arg;
	uint64_t v;
	int rc;

	if (!strcmp(key, "target_id") && j->tok != J_NULL) {
		rc = get_u64(j, "target_id", &v);
		if (!rc)
			ds->target_id = (int64_t)(v & INT64_MAX);
		return rc;
	}
	if (!strcmp(key, "snapshots"))
		return each_element(j, snapshot, ds);
	return skip_value(j);
}

static int record(struct json *j, void *arg)
{
	struct damo_state *ds = arg;
	char name[48];
	int rc;

	ds->records++;
	snprintf(name, sizeof(name), "damo record %u", ds->records);
	rc = imp_stream(ds->c, name, &ds->stream);
	if (rc)
		return rc;
	ds->task = ds->mm = 0;
	ds->last = 0;
	ds->target_id = ds->records - 1;
	return each_member(j, record_member, ds);
}

static int damo_run(struct imp_ctx *c)
{
	struct damo_state ds = { .c = c };
	struct json j = { .c = c, .peeked = -2 };
	int ch, rc;

	c->line = 1;
	ch = getc(c->in);
	if (ch == 0x78)
		return imp_fail(c, "zlib-compressed data: damo's default json_compressed record; "
				"convert it with damo convert_record_format --format json "
				"--record_file FILE --output_file OUT.json");
	if (ch != EOF)
		ungetc(ch, c->in);
	jnext(&j);
	rc = each_element(&j, record, &ds);
	if (rc)
		return rc;
	if (jnext(&j) != J_EOF)
		return jfail(&j, "the end of input after the list of records");
	c->st.records = c->line;
	return 0;
}

const struct mr_importer_ops imp_damo_ops = { .run = damo_run };
