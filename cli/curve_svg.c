// SPDX-License-Identifier: GPL-2.0
/*
 * curve_svg.c - `memreplay curve -o FILE.svg`: the miss ratio over memory as one
 * self-contained SVG (no scripts, fonts or links): one line with points per policy,
 * memory on a log2 axis when the sizes span a factor of 4 or more (else linear), the
 * miss ratio in percent from 0, a legend. The same curve gives the same bytes. Runs
 * without a whole-trace size or a miss ratio are left out of the plot.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mr_policy.h"
#include "mr_replay.h"
#include "mr_results.h"
#include "mr_util.h"

#define W 760
#define H 460
#define ML 70  /* margins: left, right (the legend), top, bottom */
#define MR 200
#define MT 50
#define MB 60

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };

void cli_xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			/* control characters have no place in XML 1.0 text */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}

static void group_label(const struct mr_curve *c, size_t g, char *buf, size_t cap);

void cli_curve_group_label(const struct mr_curve *c, size_t g, char *buf, size_t cap)
{
	char other[512];

	group_label(c, g, buf, cap);
	/* groups that differ only in settings the label leaves out (--swap, --reclaim, a
	 * script, ...): told apart by their first run */
	for (size_t i = 0; i < c->n; i++) {
		if (c->rows[i].group != i || i == g)
			continue;
		group_label(c, i, other, sizeof(other));
		if (!strcmp(other, buf)) {
			size_t l = strlen(buf);

			snprintf(buf + l, cap > l ? cap - l : 0, " #%lld", (long long)c->rows[g].run);
			return;
		}
	}
}

static void group_label(const struct mr_curve *c, size_t g, char *buf, size_t cap)
{
	const struct mr_curve_row *r = &c->rows[g];
	struct mr_strbuf sb = { buf, cap, 0 };
	size_t seeds = cli_curve_seeds(c, g);
	char spec[256];

	mr_policy_short_spec(r->spec, spec, sizeof(spec));
	mr_strbuf_printf(&sb, "%s", spec);
	if (c->ntraces > 1)
		mr_strbuf_printf(&sb, " %s", cli_trace_name(r->trace, r->trace_id, c->rows[0].trace,
							    sizeof(c->rows[0]), c->rows[0].trace_id,
							    sizeof(c->rows[0]), c->n));
	if (r->vary_seed)
		mr_strbuf_printf(&sb, " ~x%zu", seeds);
	if (r->sample_den && seeds > 1 && !r->vary_seed)
		mr_strbuf_printf(&sb, " 1/%u x%zu", r->sample_den, seeds);
	else if (r->sample_den)
		mr_strbuf_printf(&sb, " 1/%u", r->sample_den);
}

size_t cli_curve_seeds(const struct mr_curve *c, size_t g)
{
	size_t seeds = 0;

	/* a group's rows follow its first (mr_results_curve()); a series is named by its
	 * first row */
	for (size_t i = g; i < c->n && c->rows[i].group == g; i++)
		seeds += c->rows[i].series == i;
	return seeds;
}

size_t cli_curve_at(const struct mr_curve *c, size_t g, uint64_t mem, struct mr_spread *sp,
		    int *oom)
{
	size_t all = 0, from = SIZE_MAX;
	double sum = 0;

	*sp = (struct mr_spread){ .mean = NAN, .sd = NAN, .min = NAN, .max = NAN, .t_lo = NAN,
				  .t_hi = NAN };
	/* a group's rows are by memory, then run: one row per series (seed) at mem, its
	 * first (a spec given twice to one replay runs twice, alike) */
	for (size_t i = g; i < c->n && c->rows[i].group == g; i++) {
		const struct mr_curve_row *r = &c->rows[i];
		int dup = 0;

		if (r->memory_pages != mem)
			continue;
		if (from == SIZE_MAX)
			from = i;
		for (size_t j = from; j < i && !dup; j++)
			dup = c->rows[j].series == r->series;
		if (dup)
			continue;
		all++;
		if (oom && r->oom)
			*oom = 1;
		if (isnan(r->miss_ratio))
			continue;
		sum += 100.0 * r->miss_ratio;
		if (!sp->n || 100.0 * r->miss_ratio < sp->min)
			sp->min = 100.0 * r->miss_ratio;
		if (!sp->n || 100.0 * r->miss_ratio > sp->max)
			sp->max = 100.0 * r->miss_ratio;
		sp->n++;
	}
	if (sp->n)
		sp->mean = sum / (double)sp->n;
	return all;
}

struct axes {
	double xmin, xmax, ymax; /* memory in pages (log2 or linear), ratio in percent */
	int logx;
};

static double px(const struct axes *a, uint64_t pages)
{
	double lo = a->logx ? log2(a->xmin) : a->xmin, hi = a->logx ? log2(a->xmax) : a->xmax;
	double v = a->logx ? log2((double)pages) : (double)pages;

	return ML + (hi > lo ? (v - lo) / (hi - lo) : 0.5) * (W - ML - MR);
}

static double py(const struct axes *a, double pct)
{
	return H - MB - pct / a->ymax * (H - MT - MB);
}

static int plotted(const struct mr_curve_row *r)
{
	return r->memory_pages && !isnan(r->miss_ratio);
}

static void draw(FILE *f, const struct mr_curve *c, const char *source, const struct axes *a)
{
	uint64_t *mems = calloc(c->n ? c->n : 1, sizeof(*mems));
	struct bar {
		double x, lo, hi;
	} *bars = calloc(c->n ? c->n : 1, sizeof(*bars)); /* a group's seeds: lowest to highest */
	size_t nm = 0, line = 0, nbar = 0;
	char mem[32], lab[512];

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H, W, H);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
	fprintf(f, "<text x=\"%d\" y=\"24\" font-size=\"15\">miss ratio by memory size: ", ML);
	cli_xml_text(f, source);
	/* not a full replay's curve (docs/replay.md, "Sampled replay"): the rate and seeds */
	{
		unsigned den[9];
		unsigned long long seed[9];
		size_t np = 0, more = 0;
		int one_den = 1;

		for (size_t i = 0; i < c->n; i++) {
			const struct mr_curve_row *r = &c->rows[i];
			size_t k;

			if (!r->sample_den)
				continue;
			for (k = 0; k < np && (den[k] != r->sample_den || seed[k] != r->sample_seed); k++)
				;
			if (k < np)
				continue;
			if (np == 9) {
				more = 1;
				continue;
			}
			one_den &= !np || den[0] == r->sample_den;
			den[np] = r->sample_den;
			seed[np++] = r->sample_seed;
		}
		for (size_t k = 0; k < np; k++) {
			if (one_den && !k)
				fprintf(f, " (sampled 1/%u, seed%s %llu", den[0], np > 1 ? "s" : "", seed[0]);
			else if (one_den)
				fprintf(f, ", %llu", seed[k]);
			else
				fprintf(f, "%s1/%u seed %llu", k ? ", " : " (sampled ", den[k], seed[k]);
		}
		if (np)
			fprintf(f, "%s)", more ? ", ..." : "");
	}
	fprintf(f, "</text>\n");
	/* y grid and labels: five steps */
	for (int k = 0; k <= 5; k++) {
		double v = a->ymax * k / 5, y = py(a, v);

		fprintf(f, "<line data-tick=\"curve\" data-axis=\"y\" data-v=\"%.9g\" x1=\"%d\" "
			   "y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", v, ML, y, W - MR, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n", ML - 6, y + 4,
			a->ymax < 5 ? 2 : a->ymax < 50 ? 1 : 0, v);
	}
	/* x labels at every size (at most 12 of them, evenly picked) */
	for (size_t i = 0; mems && i < c->n; i++) {
		size_t k;

		if (!plotted(&c->rows[i]))
			continue;
		for (k = 0; k < nm && mems[k] != c->rows[i].memory_pages; k++)
			;
		if (k == nm)
			mems[nm++] = c->rows[i].memory_pages;
	}
	for (size_t a1 = 1; a1 < nm; a1++)
		for (size_t b = a1; b > 0 && mems[b - 1] > mems[b]; b--) {
			uint64_t t = mems[b];

			mems[b] = mems[b - 1];
			mems[b - 1] = t;
		}
	for (size_t k = 0; k < nm; k++) {
		double x = px(a, mems[k]);

		if (nm > 12 && k % ((nm + 11) / 12) && k + 1 != nm)
			continue;
		fprintf(f, "<line data-tick=\"curve\" data-axis=\"x\" data-v=\"%.9g\" x1=\"%.1f\" "
			   "y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>\n",
			a->logx ? log2((double)mems[k]) : (double)mems[k], x, MT, x, H - MB);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, H - MB + 18,
			mr_replay_format_memory(mems[k], mem, sizeof(mem)));
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", ML, H - MB,
		W - MR, H - MB);
	fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", ML, MT, ML,
		H - MB);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">memory%s</text>\n",
		(ML + W - MR) / 2, H - 18, a->logx ? " (log scale)" : "");
	fprintf(f, "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 18 %d)\">"
		   "miss ratio (%%): mr_misses / mr_references</text>\n", (MT + H - MB) / 2,
		(MT + H - MB) / 2);
	/* one line per policy, rows of a group being in memory order already */
	for (size_t i = 0; i < c->n; i++) {
		const char *col;
		int first = 1;
		double ly;

		if (c->rows[i].group != i)
			continue;
		col = palette[line % (sizeof(palette) / sizeof(palette[0]))];
		/* through the mean at each size (several seeds of a sampled rate: a bar from the
		 * lowest to the highest, and a point for each run) */
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
		nbar = 0;
		for (size_t j = i, last = 0, any = 0; j < c->n && c->rows[j].group == i; j++) {
			struct mr_spread sp;

			if (!plotted(&c->rows[j]) || (any && c->rows[j].memory_pages == last))
				continue;
			any = 1;
			last = c->rows[j].memory_pages;
			if (cli_curve_at(c, i, last, &sp, NULL) > 1 && sp.n > 1 && bars)
				bars[nbar++] = (struct bar){ px(a, last), py(a, sp.min), py(a, sp.max) };
			fprintf(f, "%s%.1f,%.1f", first ? "" : " ", px(a, last), py(a, sp.mean));
			first = 0;
		}
		fprintf(f, "\"/>\n");
		for (size_t k = 0; k < nbar; k++)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
				   "stroke-width=\"1\"/>\n", bars[k].x, bars[k].lo, bars[k].x, bars[k].hi, col);
		for (size_t j = i; j < c->n; j++)
			if (c->rows[j].group == i && plotted(&c->rows[j]))
				fprintf(f, "<circle data-chart=\"curve\" data-run=\"%lld\" data-x=\"%.6f\" data-v=\"%.6f\" "
					   "cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%.3f %% at %s</title></circle>\n",
					(long long)c->rows[j].run,
					a->logx ? log2((double)c->rows[j].memory_pages) : (double)c->rows[j].memory_pages,
					100.0 * c->rows[j].miss_ratio,
					px(a, c->rows[j].memory_pages), py(a, 100.0 * c->rows[j].miss_ratio),
					col, 100.0 * c->rows[j].miss_ratio,
					mr_replay_format_memory(c->rows[j].memory_pages, mem, sizeof(mem)));
		ly = MT + 10 + 20.0 * (double)line;
		cli_curve_group_label(c, i, lab, sizeof(lab));
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			W - MR + 16, ly, W - MR + 40, ly, col);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\">", W - MR + 46, ly + 4);
		cli_xml_text(f, lab);
		fprintf(f, "</text>\n");
		line++;
	}
	fprintf(f, "</svg>\n");
	free(bars);
	free(mems);
}

int cli_curve_svg_draw(FILE *f, const struct mr_curve *c, const char *source,
		       struct mr_error *err)
{
	struct axes a = { .xmin = 0, .xmax = 0, .ymax = 0 };
	int n = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct mr_curve_row *r = &c->rows[i];

		if (!plotted(r))
			continue;
		if (!n || (double)r->memory_pages < a.xmin)
			a.xmin = (double)r->memory_pages;
		if (!n || (double)r->memory_pages > a.xmax)
			a.xmax = (double)r->memory_pages;
		if (100.0 * r->miss_ratio > a.ymax)
			a.ymax = 100.0 * r->miss_ratio;
		n++;
	}
	if (!n)
		return mr_error_set(err, MR_EINVAL, "nothing to plot: no run has a memory size and a miss ratio");
	a.logx = a.xmax >= 4 * a.xmin;
	/* a round top: the next of 1, 2, 5 x 10^k above the largest ratio */
	{
		double step = pow(10, floor(log10(a.ymax > 0 ? a.ymax : 1)));

		a.ymax = a.ymax <= step ? step : a.ymax <= 2 * step ? 2 * step :
			 a.ymax <= 5 * step ? 5 * step : 10 * step;
		if (a.ymax > 100)
			a.ymax = 100;
	}
	draw(f, c, source, &a);
	return 0;
}

int cli_curve_svg(const char *path, const struct mr_curve *c, const char *source,
		  struct mr_error *err)
{
	char tmp[1100], head[8] = "";
	FILE *f;
	int rc;

	/* an existing file must be an SVG: -o next to a trace is one typo away */
	f = fopen(path, "rb");
	if (f) {
		size_t got = fread(head, 1, 4, f);

		fclose(f);
		if (got < 4 || memcmp(head, "<svg", 4))
			return mr_error_set(err, MR_EINVAL, "%s exists and is not an SVG: choose another -o path or remove it",
					    path);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", path, (long)getpid());
	f = fopen(tmp, "wx");
	if (!f)
		return mr_error_set(err, MR_EIO, "cannot write %s: %s", tmp, strerror(errno));
	rc = cli_curve_svg_draw(f, c, source, err);
	if (rc) {
		fclose(f);
		unlink(tmp);
		return rc;
	}
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return mr_error_set(err, MR_EIO, "cannot write %s: %s", path, strerror(e));
	}
	return 0;
}
