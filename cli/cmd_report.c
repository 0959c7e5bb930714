// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_report.c - `memreplay report RESULTS.db -o REPORT.html`: one self-contained HTML
 * file (inline SVG, a few lines of inline script, no fonts, links or network) with what
 * a reviewer asks of a replay: the runs and their miss ratios, the curve over memory
 * sizes, every counter against the baseline, refaults, swap-ins and residency over the
 * trace's time (the `timeseries` table), the generation sizes over time (the `lru_gen`
 * snapshots of `--snapshot-every`), the cgroups that refault most, and the notes
 * (a toggle that never acted, coverage warnings). Every number drawn comes from the
 * results database through the same calls and tables `curve`, `compare` and `query`
 * read (docs/report.md); the same file gives the same bytes.
 *
 * Each plotted mark carries its value (data-chart, data-series, data-x, data-v): opened
 * as REPORT.html#selfcheck, the inline script appends the browser's own layout of every
 * mark and axis tick (centre x, y in CSS pixels) in <pre id="selfcheck">, which is how the tests check
 * in a real browser that what is drawn is what the database holds.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cli.h"
#include "mr_policy.h"
#include "mr_replay.h"
#include "mr_util.h"

#define CW 760 /* chart geometry: as the curve's (curve_svg.c) */
#define CH 360
#define CML 80
#define CMR 210
#define CMT 40
#define CMB 50
#define MAX_SERIES 64
#define TOP_CGROUPS 10

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };

struct series {
	char label[256];
	int64_t run; /* the run the series is of, for data-run */
	size_t n, cap;
	double *x, *y;
};

struct run_info {
	int64_t id;
	char label[256];
	uint64_t memory_pages;
	int64_t t_first;
};

struct report {
	FILE *f;
	sqlite3 *db;
	struct run_info *runs;
	size_t nruns;
	struct mr_error *err;
};

static int push(struct series *s, double x, double y)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		double *nx = realloc(s->x, cap * sizeof(*nx)), *ny;

		if (!nx)
			return -1;
		s->x = nx;
		ny = realloc(s->y, cap * sizeof(*ny));
		if (!ny)
			return -1;
		s->y = ny;
		s->cap = cap;
	}
	s->x[s->n] = x;
	s->y[s->n++] = y;
	return 0;
}

static void series_free(struct series *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].x);
		free(s[i].y);
	}
}

/* A round axis top: the next of 1, 2, 5 x 10^k at or above v. */
static double round_up(double v)
{
	double step;

	if (v <= 0)
		return 1;
	step = pow(10, floor(log10(v)));
	return v <= step ? step : v <= 2 * step ? 2 * step : v <= 5 * step ? 5 * step : 10 * step;
}

static void fmt_num(char *buf, size_t cap, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, cap, "%.0f", v);
	else
		snprintf(buf, cap, "%.4g", v);
}

/*
 * A line chart of series (x and y from 0, linear): one polyline with a mark per point,
 * the marks carrying their values for the self-check. At most 400 marks a series are
 * drawn (evenly picked, the last always): the line is drawn through every point.
 */
static void line_chart(FILE *f, const char *id, const char *title, const char *xlab,
		       const char *ylab, const struct series *s, size_t ns)
{
	double xmax = 0, ymax = 0;
	char num[64];

	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			xmax = s[k].x[i] > xmax ? s[k].x[i] : xmax;
			ymax = s[k].y[i] > ymax ? s[k].y[i] : ymax;
		}
	xmax = xmax > 0 ? xmax : 1;
	ymax = round_up(ymax);
#define PX(v) (CML + (v) / xmax * (CW - CML - CMR))
#define PY(v) (CH - CMB - (v) / ymax * (CH - CMT - CMB))
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		id, CW, CH, CW, CH);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", CW, CH);
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"14\">", CML);
	cli_xml_text(f, title);
	fprintf(f, "</text>\n");
	for (int k = 0; k <= 5; k++) {
		double v = ymax * k / 5;

		fmt_num(num, sizeof(num), v);
		fprintf(f, "<line data-tick=\"%s\" data-axis=\"y\" data-v=\"%.9g\" x1=\"%d\" "
			   "y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			id, v, CML, PY(v), CW - CMR, PY(v), CML - 6, PY(v) + 4, num);
		v = xmax * k / 5;
		fprintf(f, "<line data-tick=\"%s\" data-axis=\"x\" data-v=\"%.9g\" x1=\"%.1f\" "
			   "y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>"
			   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.3g</text>\n",
			id, v, PX(v), CH - CMB, PX(v), CH - CMB + 4, PX(v), CH - CMB + 16, v);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>"
		   "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
		CML, CH - CMB, CW - CMR, CH - CMB, CML, CMT, CML, CH - CMB);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (CML + CW - CMR) / 2, CH - 12);
	cli_xml_text(f, xlab);
	fprintf(f, "</text>\n<text x=\"16\" y=\"%d\" text-anchor=\"middle\" "
		   "transform=\"rotate(-90 16 %d)\">", (CMT + CH - CMB) / 2, (CMT + CH - CMB) / 2);
	cli_xml_text(f, ylab);
	fprintf(f, "</text>\n");
	for (size_t k = 0; k < ns; k++) {
		const char *col = palette[k % (sizeof(palette) / sizeof(palette[0]))];
		size_t every = s[k].n > 400 ? (s[k].n + 399) / 400 : 1;
		double ly = CMT + 10 + 18.0 * (double)k;

		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
		for (size_t i = 0; i < s[k].n; i++)
			fprintf(f, "%s%.1f,%.1f", i ? " " : "", PX(s[k].x[i]), PY(s[k].y[i]));
		fprintf(f, "\"/>\n");
		for (size_t i = 0; i < s[k].n; i++)
			if (i % every == 0 || i + 1 == s[k].n)
				fprintf(f, "<circle data-chart=\"%s\" data-series=\"%zu\" data-run=\"%lld\" "
					   "data-x=\"%.9g\" data-v=\"%.9g\" cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" "
					   "fill=\"%s\"/>\n", id, k, (long long)s[k].run, s[k].x[i], s[k].y[i],
					PX(s[k].x[i]), PY(s[k].y[i]), col);
		if (ly < CH - CMB) {
			fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"2\"/><text x=\"%d\" y=\"%.1f\">",
				CW - CMR + 12, ly, CW - CMR + 32, ly, col, CW - CMR + 38, ly + 4);
			cli_xml_text(f, s[k].label);
			fprintf(f, "</text>\n");
		}
	}
	fprintf(f, "</svg>\n");
#undef PX
#undef PY
}

static int sql_fail(struct report *r, const char *what)
{
	return mr_error_set(r->err, MR_EIO, "reading the results (%s): %s", what,
			    sqlite3_errmsg(r->db));
}

static int load_runs(struct report *r)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(r->db, "SELECT id, spec, memory_pages, trace_t_first FROM runs "
				      "ORDER BY id", -1, &st, NULL))
		return sql_fail(r, "runs");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct run_info *ri, *n = realloc(r->runs, (r->nruns + 1) * sizeof(*n));
		char mem[32], lab[200];

		if (!n) {
			sqlite3_finalize(st);
			return mr_error_set(r->err, MR_ENOMEM, "out of memory");
		}
		r->runs = n;
		ri = &r->runs[r->nruns++];
		ri->id = sqlite3_column_int64(st, 0);
		mr_policy_short_spec((const char *)sqlite3_column_text(st, 1) ?
				     (const char *)sqlite3_column_text(st, 1) : "?", lab, sizeof(lab));
		ri->memory_pages = (uint64_t)sqlite3_column_int64(st, 2);
		ri->t_first = sqlite3_column_int64(st, 3);
		if (ri->memory_pages)
			snprintf(ri->label, sizeof(ri->label), "%lld %s @ %s", (long long)ri->id, lab,
				 mr_replay_format_memory(ri->memory_pages, mem, sizeof(mem)));
		else
			snprintf(ri->label, sizeof(ri->label), "%lld %s", (long long)ri->id, lab);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(r, "runs");
	if (!r->nruns)
		return mr_error_set(r->err, MR_ENOENT, "the results database has no runs");
	return 0;
}

static void header(struct report *r, const char *path)
{
	FILE *f = r->f;
	sqlite3_stmt *st;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>memreplay report: ");
	cli_xml_text(f, path);
	fprintf(f, "</title>\n<style>\nbody{font-family:sans-serif;margin:24px;max-width:1100px}"
		   "table{border-collapse:collapse;margin:8px 0 16px}"
		   "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;font-size:13px}"
		   "th{background:#f3f3f3}td.l,th.l{text-align:left}"
		   ".noise{color:#888}.note{color:#a40;font-size:13px}.ci{color:#555;font-size:11px}"
		   "svg{display:block;margin:8px 0 20px}\n</style></head><body>\n");
	fprintf(f, "<h1>memreplay report</h1>\n<p>Results: <code>");
	cli_xml_text(f, path);
	fprintf(f, "</code></p>\n");
	/* one line per trace (a merge of several, docs/sweep.md), each with its first run's
	 * settings */
	if (!sqlite3_prepare_v2(r->db, "SELECT trace, trace_id, trace_events, version, reclaim, "
				       "shadow, count(*) FROM runs GROUP BY trace_id ORDER BY min(id)",
				-1, &st, NULL))
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *v[6];

		for (int i = 0; i < 6; i++)
			v[i] = sqlite3_column_text(st, i) ? (const char *)sqlite3_column_text(st, i) : "-";
		fprintf(f, "<p>Trace <code>");
		cli_xml_text(f, v[0]);
		fprintf(f, "</code> (%s events, <code>", v[2]);
		cli_xml_text(f, v[1]);
		fprintf(f, "</code>), replayed by memreplay ");
		cli_xml_text(f, v[3]);
		fprintf(f, ", reclaim ");
		cli_xml_text(f, v[4]);
		fprintf(f, ", shadow entries ");
		cli_xml_text(f, v[5]);
		fputc('.', f);
		if (sqlite3_column_int64(st, 6) != (long long)r->nruns)
			fprintf(f, " %lld of the %lld runs.", (long long)sqlite3_column_int64(st, 6),
				(long long)r->nruns);
		fprintf(f, "</p>\n");
	}
	sqlite3_finalize(st);
}

/* The runs with their curve figures; the curve itself when the runs span sizes. */
static int curve_section(struct report *r, struct mr_results *res, const char *path)
{
	struct mr_curve *c = NULL;
	FILE *f = r->f;
	uint64_t m0 = 0;
	int sizes = 0, sampled = 0, rc;
	char mem[32];

	rc = mr_results_curve(res, &c, r->err);
	if (rc)
		return rc;
	for (size_t i = 0; i < c->n; i++)
		sampled |= c->rows[i].sample_den != 0;
	fprintf(f, "<h2>Runs</h2>\n<p>Miss ratio = mr_misses / mr_references (docs/results-schema.md, "
		   "\"curve\").</p>\n<table id=\"runs\"><tr><th>run</th><th class=\"l\">policy</th>"
		   "<th>memory</th><th>miss ratio %%</th><th>misses</th><th>references</th>"
		   "<th>refaults anon</th><th>refaults file</th><th>pswpin</th><th>pswpout</th>"
		   "<th>oom</th>%s%s</tr>\n", sampled ? "<th class=\"l\">sampled</th>" : "",
		c->ntraces > 1 ? "<th class=\"l\">trace</th>" : "");
	for (size_t i = 0; i < c->n; i++) {
		const struct mr_curve_row *w = &c->rows[i];
		char lab[256];

		mr_policy_short_spec(w->spec, lab, sizeof(lab));
		fprintf(f, "<tr data-run=\"%lld\"><td>%lld</td><td class=\"l\">", (long long)w->run,
			(long long)w->run);
		cli_xml_text(f, lab);
		fprintf(f, "</td><td>%s</td>", w->memory_pages ?
			mr_replay_format_memory(w->memory_pages, mem, sizeof(mem)) : "-");
		if (isnan(w->miss_ratio))
			fprintf(f, "<td>-</td>");
		else
			fprintf(f, "<td data-name=\"miss_ratio\">%.3f</td>", 100.0 * w->miss_ratio);
		fprintf(f, "<td data-name=\"mr_misses\">%llu</td><td data-name=\"mr_references\">%llu</td>"
			   "<td data-name=\"workingset_refault_anon\">%llu</td>"
			   "<td data-name=\"workingset_refault_file\">%llu</td>"
			   "<td data-name=\"pswpin\">%llu</td><td data-name=\"pswpout\">%llu</td>"
			   "<td data-name=\"mr_oom\">%llu</td>",
			(unsigned long long)w->misses, (unsigned long long)w->refs,
			(unsigned long long)w->refaults_anon, (unsigned long long)w->refaults_file,
			(unsigned long long)w->pswpin, (unsigned long long)w->pswpout,
			(unsigned long long)w->oom);
		if (sampled && w->sample_den)
			fprintf(f, "<td class=\"l\" style=\"white-space:nowrap\">1/%u seed %llu</td>", w->sample_den,
				(unsigned long long)w->sample_seed);
		else if (sampled)
			fprintf(f, "<td class=\"l\">-</td>");
		if (c->ntraces > 1) {
			fprintf(f, "<td class=\"l\">");
			cli_xml_text(f, w->trace);
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
		if (w->memory_pages && !m0)
			m0 = w->memory_pages;
		else if (w->memory_pages && w->memory_pages != m0)
			sizes = 1; /* a second size: draw the curve */
	}
	fprintf(f, "</table>\n");
	if (sizes) {
		fprintf(f, "<h2>Miss ratio over memory</h2>\n");
		rc = cli_curve_svg_draw(f, c, path, r->err);
	}
	mr_curve_free(c);
	return rc;
}

/* The counters a reclaim review reads first; every other one is in the full table. */
static const char *const headline[] = {
	"mr_misses", "workingset_refault_anon", "workingset_refault_file",
	"workingset_activate_anon", "workingset_activate_file", "pgscan", "pgsteal",
	"pgactivate", "pgmajfault", "pswpin", "pswpout", "mr_evictions", "mr_oom",
};

static int is_headline(const char *name)
{
	for (size_t i = 0; i < sizeof(headline) / sizeof(headline[0]); i++)
		if (!strcmp(name, headline[i]))
			return 1;
	return 0;
}

/* The compare table: the headline counters, or (all) every counter compare gives; of
 * the runs at one memory size when mem is not UINT64_MAX (a sweep: a table per size). */
static void compare_table(struct report *r, const struct mr_compare *c, const char *id, int all,
			  uint64_t mem)
{
	FILE *f = r->f;
	char v[64], d[64];

#define SHOWN(i) (mem == UINT64_MAX || c->memory_pages[i] == mem)
	fprintf(f, "<table id=\"%s\"><tr><th class=\"l\">counter</th>", id);
	for (size_t i = 0; i < c->nruns; i++) {
		if (!SHOWN(i))
			continue;
		fprintf(f, "<th>");
		for (size_t k = 0; k < r->nruns; k++)
			if (r->runs[k].id == c->run_id[i])
				cli_xml_text(f, r->runs[k].label);
		if (c->by_cohort) {
			/* a merge of several traces or samplings: which one this run is */
			char src[400];

			cli_run_source(c, i, src, sizeof(src));
			fprintf(f, "<br>");
			cli_xml_text(f, src);
		}
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr>\n");
	for (size_t k = 0; k < c->nrows; k++) {
		const struct mr_compare_row *w = &c->rows[k];

		if (!all && (w->model || !is_headline(w->name)))
			continue;
		fprintf(f, "<tr><td class=\"l\">");
		cli_xml_text(f, w->name);
		fprintf(f, "%s</td>", w->model ? " (model)" : "");
		for (size_t i = 0; i < c->nruns; i++) {
			double abs, pct;

			if (!SHOWN(i))
				continue;
			if (!w->present[i]) {
				fprintf(f, "<td>-</td>");
				continue;
			}
			fmt_num(v, sizeof(v), w->value[i]);
			fprintf(f, "<td data-run=\"%lld\" data-name=\"", (long long)c->run_id[i]);
			cli_xml_text(f, w->name);
			fprintf(f, "\" data-v=\"%.17g\">%s", w->value[i], v);
			if (c->base[i] != i && !mr_compare_delta(c, k, i, &abs, &pct)) {
				double lo, hi, plo, phi;
				int ci = !mr_compare_interval(c, k, i, &lo, &hi, &plo, &phi);
				int noise = ci ? mr_compare_noise(c, k, i) : abs == 0;

				if (isnan(pct))
					snprintf(d, sizeof(d), "new");
				else
					snprintf(d, sizeof(d), "%+.1f %%", pct);
				fprintf(f, "<br><span class=\"%s\">%s%s</span>", noise ? "noise" : "d", d,
					noise && ci ? " ~" : "");
				if (ci && !isnan(plo))
					fprintf(f, "<br><span class=\"ci\" data-lo=\"%.17g\" data-hi=\"%.17g\">"
						   "[%+.1f, %+.1f] %%</span>", lo, hi, plo, phi);
			}
			fprintf(f, "</td>");
		}
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
#undef SHOWN
}

/* compare_table() once, or per memory size for a sweep, in the runs' order of sizes. */
static void compare_tables(struct report *r, const struct mr_compare *c, const char *id, int all)
{
	char mem[32], sid[64];

	if (!c->by_memory) {
		compare_table(r, c, id, all, UINT64_MAX);
		return;
	}
	for (size_t i = 0; i < c->nruns; i++) {
		size_t j;

		for (j = 0; j < i && c->memory_pages[j] != c->memory_pages[i]; j++)
			;
		if (j < i)
			continue; /* that size has its table */
		mr_replay_format_memory(c->memory_pages[i], mem, sizeof(mem));
		fprintf(r->f, "<h3>at %s</h3>\n", c->memory_pages[i] ? mem : "no whole-trace size");
		snprintf(sid, sizeof(sid), "%s-%s", id, mem);
		compare_table(r, c, sid, all, c->memory_pages[i]);
	}
}

/* The counters against the baseline, as `compare` gives them, and the runs' notes. */
static int compare_section(struct report *r, struct mr_results *res, const char *baseline)
{
	struct mr_compare_opts o = { .baseline = baseline };
	struct mr_compare *c = NULL;
	FILE *f = r->f;
	int rc;

	rc = mr_results_compare(res, &o, &c, r->err);
	if (rc)
		return rc;
	fprintf(f, "<h2>Counters against the baseline</h2>\n<p>Each run against run %lld's policy at "
		   "its own memory size%s (as <code>memreplay compare</code>); below each value the "
		   "delta in percent and its 95 %% interval (a paired block bootstrap over the "
		   "trace's time segments, docs/replay.md); grey with ~: inside noise, the "
		   "interval contains 0.</p>\n", (long long)c->run_id[c->baseline],
		c->by_cohort ? ", trace and sampling" : "");
	if (!c->intervals)
		fprintf(f, "<p class=\"note\">These results have no time segments (written by an "
			   "older memreplay): no intervals; replay the trace again for them.</p>\n");
	compare_tables(r, c, "compare", 0);
	fprintf(f, "<details><summary>every counter (%zu)</summary>\n", c->nrows);
	compare_tables(r, c, "compare-all", 1);
	fprintf(f, "</details>\n");
	if (c->nnotes) {
		fprintf(f, "<h3>Notes</h3>\n<ul>\n");
		for (size_t k = 0; k < c->nnotes; k++) {
			const struct mr_compare_note *n = &c->notes[k];
			size_t same = 0, first = k;

			/* a warning about the trace is mostly every run's: once, with its count */
			if (strcmp(n->kind, "toggle_idle")) {
				for (size_t j = 0; j < c->nnotes; j++)
					if (!strcmp(c->notes[j].kind, n->kind)) {
						first = j < first ? j : first;
						same++;
					}
				if (first != k)
					continue;
			}
			fprintf(f, "<li class=\"note\">run %lld", (long long)c->run_id[n->run]);
			if (same > 1)
				fprintf(f, " (and %zu more runs)", same - 1);
			fprintf(f, ", ");
			cli_xml_text(f, n->kind);
			fprintf(f, ": ");
			cli_xml_text(f, n->message);
			fprintf(f, "</li>\n");
		}
		fprintf(f, "</ul>\n");
	}
	mr_compare_free(c);
	return 0;
}

/* One counter of the time series, one line per run, x in seconds of trace time. */
static int timeseries_chart(struct report *r, const char *name, const char *title,
			    const char *ylab, int by_size, uint64_t pages)
{
	struct series s[MAX_SERIES];
	sqlite3_stmt *st;
	size_t ns = 0;
	int rc = 0;
	char id[96];

	memset(s, 0, sizeof(s));
	if (sqlite3_prepare_v2(r->db, "SELECT t_ns, value FROM timeseries WHERE run = ?1 AND "
				      "name = ?2 ORDER BY t_ns", -1, &st, NULL))
		return sql_fail(r, "timeseries");
	for (size_t k = 0; k < r->nruns && ns < MAX_SERIES; k++) {
		if (by_size && r->runs[k].memory_pages != pages)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, r->runs[k].id);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
		snprintf(s[ns].label, sizeof(s[ns].label), "%s", r->runs[k].label);
		s[ns].run = r->runs[k].id;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			if (push(&s[ns], (double)(sqlite3_column_int64(st, 0) - r->runs[k].t_first) / 1e9,
				 sqlite3_column_double(st, 1))) {
				rc = -1;
				break;
			}
		if (rc != SQLITE_DONE) {
			rc = rc < 0 ? mr_error_set(r->err, MR_ENOMEM, "out of memory") :
				      sql_fail(r, "timeseries");
			goto out;
		}
		rc = 0;
		ns += s[ns].n > 0;
	}
	if (ns) {
		char mem[32], t[300];

		if (by_size) {
			mr_replay_format_memory(pages, mem, sizeof(mem));
			snprintf(id, sizeof(id), "ts-%s-%s", name, mem);
			snprintf(t, sizeof(t), "%s at %s", title, mem);
		} else {
			snprintf(id, sizeof(id), "ts-%s", name);
			snprintf(t, sizeof(t), "%s", title);
		}
		line_chart(r->f, id, t, "trace time (s)", ylab, s, ns);
	}
out:
	sqlite3_finalize(st);
	series_free(s, MAX_SERIES);
	return rc;
}

/* Over time: one chart per counter, and per memory size when the runs have several
 * (a sweep's lines would not be told apart otherwise). */
static int time_section(struct report *r)
{
	static const struct {
		const char *name, *title, *ylab;
	} charts[] = {
		{ "mr_misses", "misses over time (cumulative)", "misses" },
		{ "mr_refaults", "refaults over time (cumulative)", "refaults" },
		{ "pswpin", "swap-ins over time (cumulative)", "pswpin" },
		{ "mr_resident", "resident pages over time", "pages" },
	};
	uint64_t *sizes = calloc(r->nruns, sizeof(*sizes));
	size_t nsizes = 0;
	int rc = 0;

	if (!sizes)
		return mr_error_set(r->err, MR_ENOMEM, "out of memory");
	for (size_t k = 0; k < r->nruns; k++) {
		size_t i;

		for (i = 0; i < nsizes && sizes[i] != r->runs[k].memory_pages; i++)
			;
		if (i == nsizes)
			sizes[nsizes++] = r->runs[k].memory_pages;
	}
	fprintf(r->f, "<h2>Over the trace's time</h2>\n<p>From the <code>timeseries</code> table "
		      "(samples every <code>--interval</code>; default 1 %% of the trace)%s.</p>\n",
		nsizes > 1 ? ", a chart per memory size" : "");
	for (size_t i = 0; !rc && i < sizeof(charts) / sizeof(charts[0]); i++)
		for (size_t m = 0; !rc && m < nsizes; m++)
			rc = timeseries_chart(r, charts[i].name, charts[i].title, charts[i].ylab,
					      nsizes > 1, sizes[m]);
	free(sizes);
	return rc;
}

/*
 * Pages per generation over time from the `every` snapshots (debugfs lru_gen text:
 * "memcg ID PATH", " node N", then "SEQ AGE_MS NR_ANON NR_FILE" per generation, youngest
 * last): summed over memcgs and nodes by age rank, the youngest as rank 0.
 */
#define MAX_GENS 8
static int parse_gens(const char *text, double gens[MAX_GENS], int *ngens)
{
	double per[MAX_GENS];
	int n = 0, most = 0;
	const char *p = text;

	memset(gens, 0, sizeof(double) * MAX_GENS);
	while (*p) {
		unsigned long long seq, age, anon, file;
		const char *eol = strchr(p, '\n');

		if (!strncmp(p, "memcg", 5) || !strncmp(p, " node", 5)) {
			/* a new list: fold the last one in, youngest as rank 0 */
			for (int i = 0; i < n; i++)
				gens[i] += per[n - 1 - i];
			most = n > most ? n : most;
			n = 0;
		} else if (sscanf(p, "%llu %llu %llu %llu", &seq, &age, &anon, &file) == 4 &&
			   n < MAX_GENS) {
			per[n++] = (double)anon + (double)file;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	for (int i = 0; i < n; i++)
		gens[i] += per[n - 1 - i];
	most = n > most ? n : most;
	*ngens = most;
	return 0;
}

static int gen_section(struct report *r)
{
	sqlite3_stmt *st;
	int rc = 0, any = 0;

	if (sqlite3_prepare_v2(r->db, "SELECT t_ns, text FROM lru_gen WHERE run = ?1 AND "
				      "why = 'every' AND full = 0 ORDER BY t_ns", -1, &st, NULL))
		return sql_fail(r, "lru_gen");
	for (size_t k = 0; k < r->nruns && !rc; k++) {
		struct series s[MAX_GENS];
		int most = 0;
		char id[64], title[400];

		memset(s, 0, sizeof(s));
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, r->runs[k].id);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			double g[MAX_GENS], t;
			int n;
			const char *text = (const char *)sqlite3_column_text(st, 1);

			t = (double)(sqlite3_column_int64(st, 0) - r->runs[k].t_first) / 1e9;
			parse_gens(text ? text : "", g, &n);
			most = n > most ? n : most;
			for (int i = 0; i < MAX_GENS; i++)
				if (i < n && push(&s[i], t, g[i])) {
					rc = -1;
					break;
				}
			if (rc < 0)
				break;
		}
		if (rc != SQLITE_DONE) {
			rc = rc < 0 ? mr_error_set(r->err, MR_ENOMEM, "out of memory") :
				      sql_fail(r, "lru_gen");
			series_free(s, MAX_GENS);
			break;
		}
		rc = 0;
		if (most) {
			if (!any)
				fprintf(r->f, "<h2>Generations over time</h2>\n<p>Pages per generation "
					      "(anon + file, all memcgs and nodes) from the "
					      "<code>--snapshot-every</code> snapshots of the lru_gen "
					      "debugfs text; rank 0 is the youngest.</p>\n");
			any = 1;
			for (int i = 0; i < most; i++) {
				snprintf(s[i].label, sizeof(s[i].label), "rank %d%s", i,
					 i == 0 ? " (youngest)" : i == most - 1 ? " (oldest)" : "");
				s[i].run = r->runs[k].id;
			}
			snprintf(id, sizeof(id), "gen-%lld", (long long)r->runs[k].id);
			snprintf(title, sizeof(title), "generation sizes: run %s", r->runs[k].label);
			line_chart(r->f, id, title, "trace time (s)", "pages", s, (size_t)most);
		}
		series_free(s, MAX_GENS);
	}
	sqlite3_finalize(st);
	if (!rc && !any)
		fprintf(r->f, "<p class=\"note\">No generation snapshots over time in these results: "
			      "replay with <code>--snapshot-every T</code> for them.</p>\n");
	return rc;
}

/* The cgroups that refault most, per run (memcgs with counters of their own). */
static int cgroup_section(struct report *r)
{
	sqlite3_stmt *st;
	int rc, any = 0;

	if (sqlite3_prepare_v2(r->db,
			       "SELECT c.run, c.memcg, coalesce(m.path, ''), sum(c.value) AS v "
			       "FROM counters c LEFT JOIN memcgs m ON m.run = c.run AND "
			       "m.cgroup = c.memcg WHERE c.memcg IS NOT NULL AND c.name IN "
			       "('workingset_refault_anon', 'workingset_refault_file') "
			       "GROUP BY c.run, c.memcg ORDER BY c.run, v DESC, c.memcg", -1, &st, NULL))
		return sql_fail(r, "counters");
	{
		int64_t run = -1;
		int shown = 0;

		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (!any)
				fprintf(r->f, "<h2>Cgroups that refault most</h2>\n<table id=\"cgroups\">"
					      "<tr><th>run</th><th>cgroup</th><th class=\"l\">path</th>"
					      "<th>refaults (anon + file)</th></tr>\n");
			any = 1;
			if (sqlite3_column_int64(st, 0) != run) {
				run = sqlite3_column_int64(st, 0);
				shown = 0;
			}
			if (shown++ >= TOP_CGROUPS)
				continue;
			fprintf(r->f, "<tr><td>%lld</td><td>%lld</td><td class=\"l\">",
				(long long)run, (long long)sqlite3_column_int64(st, 1));
			cli_xml_text(r->f, (const char *)sqlite3_column_text(st, 2));
			fprintf(r->f, "</td><td data-run=\"%lld\" data-memcg=\"%lld\">%lld</td></tr>\n",
				(long long)run, (long long)sqlite3_column_int64(st, 1),
				(long long)sqlite3_column_int64(st, 3));
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(r, "counters");
	if (any)
		fprintf(r->f, "</table>\n");
	return 0;
}

static const char selfcheck_js[] =
	"<script>\n"
	"/* REPORT.html#selfcheck: list the browser's layout of every plotted mark */\n"
	"window.addEventListener('load', function () {\n"
	"  if (location.hash !== '#selfcheck') return;\n"
	"  var out = [];\n"
	"  document.querySelectorAll('[data-chart]').forEach(function (e) {\n"
	"    var b = e.getBoundingClientRect();\n"
	"    out.push([e.dataset.chart, e.dataset.series || '-', e.dataset.run, e.dataset.x,\n"
	"              e.dataset.v, (b.left + b.width / 2).toFixed(2),\n"
	"              (b.top + b.height / 2).toFixed(2)].join(' '));\n"
	"  });\n"
	"  document.querySelectorAll('[data-tick]').forEach(function (e) {\n"
	"    var b = e.getBoundingClientRect();\n"
	"    out.push(['tick', e.dataset.tick, e.dataset.axis, e.dataset.v,\n"
	"              (b.left + b.width / 2).toFixed(2), (b.top + b.height / 2).toFixed(2)].join(' '));\n"
	"  });\n"
	"  var p = document.createElement('pre');\n"
	"  p.id = 'selfcheck';\n"
	"  p.textContent = out.join('\\n');\n"
	"  document.body.appendChild(p);\n"
	"});\n"
	"</script>\n";

static int write_report(FILE *f, const char *path, const char *baseline, struct mr_error *err)
{
	struct mr_results *res = NULL;
	struct report r = { .f = f, .err = err };
	int rc;

	rc = mr_results_open(path, &res, err);
	if (rc)
		return rc;
	r.db = mr_results_db(res);
	rc = load_runs(&r);
	if (!rc) {
		header(&r, path);
		rc = curve_section(&r, res, path);
	}
	if (!rc)
		rc = compare_section(&r, res, baseline);
	if (!rc)
		rc = time_section(&r);
	if (!rc)
		rc = gen_section(&r);
	if (!rc)
		rc = cgroup_section(&r);
	if (!rc)
		fprintf(f, "<p style=\"color:#666;font-size:12px\">Made by <code>memreplay report</code> "
			   "from the results database alone; this file loads nothing from anywhere."
			   "</p>\n%s</body></html>\n", selfcheck_js);
	free(r.runs);
	mr_results_close(res);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *out = NULL, *baseline = NULL;
	struct mr_error err = { 0 };
	char tmp[4200], head[16] = "";
	int c, force = 0, rc;
	FILE *f;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'b': baseline = optarg; break;
		case 'F': force = 1; break;
		case 'h': printf("%s\n", cli_find("report")->usage); return 0;
		default: return cli_usage_error("report", "bad option (see `memreplay report --help`)");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("report", "give one results database (memreplay report "
				       "RESULTS.db -o REPORT.html)");
	if (!out)
		return cli_usage_error("report", "give the HTML file to write: -o REPORT.html");
	if (cli_out_ok(out, argv[optind], &err))
		return cli_fail("report", &err);
	/* an existing file must be an HTML report: -o next to a database is one typo away */
	f = fopen(out, "rb");
	if (f) {
		size_t got = fread(head, 1, 15, f);

		fclose(f);
		if (!force && (got < 15 || memcmp(head, "<!DOCTYPE html>", 15))) {
			fprintf(stderr, "memreplay report: %s exists and is not an HTML file: choose "
					"another -o path, or --force to replace it\n", out);
			return 1;
		}
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", out, (long)getpid());
	f = fopen(tmp, "wx");
	if (!f) {
		fprintf(stderr, "memreplay report: cannot write %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	rc = write_report(f, argv[optind], baseline, &err);
	if (ferror(f) | fclose(f) && !rc)
		rc = mr_error_set(&err, MR_EIO, "cannot write %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, out))
		rc = mr_error_set(&err, MR_EIO, "cannot write %s: %s", out, strerror(errno));
	if (rc) {
		unlink(tmp);
		return cli_fail("report", &err);
	}
	return 0;
}
