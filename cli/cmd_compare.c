// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_compare.c - `memreplay compare RESULTS.db`: the runs of a replay side by side,
 * with absolute and percentage deltas against a baseline run and each delta's 95 %
 * interval (docs/results-schema.md, "compare: intervals"), as a table, CSV or JSON
 * (--format table|csv|json; --csv and --json are short for the last two). On a sweep,
 * whether each policy's delta keeps its sign across the sizes. With several results
 * files (recordings of one workload), the spread of each delta between them.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_policy.h"
#include "mr_replay.h"
#include "mr_util.h"

#define MAX_COUNTERS 256

static void fmt_value(char *buf, size_t cap, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(buf, cap, "%.0f", v);
	else
		snprintf(buf, cap, "%.6g", v);
}

static void fmt_signed(char *buf, size_t cap, double v)
{
	char t[48];

	fmt_value(t, sizeof(t), v);
	snprintf(buf, cap, "%s%s", v >= 0 ? "+" : "", t);
}

/* a percentage bound: one decimal, but never a bare "-0.0" or "+0.0" for a bound that
 * is not 0 (which side of 0 it is on is what the reader looks at) */
static void fmt_bound(char *buf, size_t cap, double v)
{
	if (v != 0 && fabs(v) < 0.05)
		snprintf(buf, cap, "%+.1g", v);
	else
		snprintf(buf, cap, "%+.1f", v);
}

/* " [lo,hi]" of a delta's 95 % interval, in percent of the baseline (absolute when the
 * baseline is 0), and "~" when it contains 0; "" without one. */
static void fmt_interval(const struct mr_compare *c, size_t k, size_t i, char *buf, size_t cap)
{
	double lo, hi, plo, phi;
	char a[64], b[64];

	buf[0] = 0;
	if (mr_compare_interval(c, k, i, &lo, &hi, &plo, &phi))
		return;
	if (isnan(plo)) {
		fmt_signed(a, sizeof(a), lo);
		fmt_signed(b, sizeof(b), hi);
	} else {
		fmt_bound(a, sizeof(a), plo);
		fmt_bound(b, sizeof(b), phi);
	}
	snprintf(buf, cap, " [%s,%s]%s", a, b, mr_compare_noise(c, k, i) ? "~" : "");
}

static void fmt_cell(const struct mr_compare *c, size_t k, size_t i, char *buf, size_t cap)
{
	const struct mr_compare_row *r = &c->rows[k];
	char v[64], d[64], ci[160];
	double abs, pct;

	if (!r->present[i]) {
		snprintf(buf, cap, "-");
		return;
	}
	fmt_value(v, sizeof(v), r->value[i]);
	if (c->base[i] == i || mr_compare_delta(c, k, i, &abs, &pct)) {
		snprintf(buf, cap, "%s", v);
		return;
	}
	fmt_value(d, sizeof(d), abs);
	fmt_interval(c, k, i, ci, sizeof(ci));
	if (isnan(pct))
		snprintf(buf, cap, "%s (%s%s, new%s)", v, abs >= 0 ? "+" : "", d, ci);
	else
		snprintf(buf, cap, "%s (%s%s, %+.1f%%%s)", v, abs >= 0 ? "+" : "", d, pct, ci);
}

/* Notes shown under their run: a toggle that never acted. Warnings about the trace
 * (coverage_low, trace_too_coarse) are mostly every run's, so they are summed up once. */
static int run_note(const struct mr_compare_note *n)
{
	return !strcmp(n->kind, "toggle_idle");
}

static int has_notes(const struct mr_compare *c, size_t run)
{
	for (size_t k = 0; k < c->nnotes; k++)
		if (c->notes[k].run == run && run_note(&c->notes[k]))
			return 1;
	return 0;
}

/*
 * Runs of a sampled replay (docs/replay.md, "Sampled replay"), first of all so that
 * nobody takes their counters for a full replay's: one line per rate and seed.
 */
static void print_sampled(const struct mr_compare *c)
{
	int any = 0;

	/* one line per rate and seed, and per trace in a file of several */
	for (size_t i = 0; i < c->nruns; i++) {
		size_t runs = 0, seen = 0;

		if (!c->sample_den[i])
			continue;
		for (size_t j = 0; j < c->nruns; j++) {
			int same = c->sample_den[j] == c->sample_den[i] &&
				   c->sample_seed[j] == c->sample_seed[i] &&
				   c->sample_unit[j] == c->sample_unit[i] &&
				   (!c->many_traces || !strcmp(c->trace_ids[j], c->trace_ids[i]));

			seen += same && j < i;
			runs += same;
		}
		if (seen)
			continue;
		printf("sampled 1/%u (seed %llu) in %zu of %zu runs", c->sample_den[i],
		       (unsigned long long)c->sample_seed[i], runs, c->nruns);
		if (c->many_units)
			printf(" of %uK units", (c->sample_unit[i] ? c->sample_unit[i] : 1) * 4);
		if (c->many_traces) {
			printf(" (");
			cli_print_text(cli_trace_name(c->trace[i], c->trace_ids[i], c->trace[0],
						      sizeof(c->trace[0]), c->trace_ids[0],
						      sizeof(c->trace_ids[0]), c->nruns), 0);
			printf(")");
		}
		printf(": their counters are those of a machine replaying 1 in %u pages (or units, "
		       "--sample-unit), not scaled up (docs/replay.md, \"Sampled replay\")\n",
		       c->sample_den[i]);
		any = 1;
	}
	/* the workflow probe: a 9 % effect in full came out -2 % sampled at one size */
	if (any)
		printf("a delta between sampled runs also carries the sampling's error (a point or more "
		       "of miss ratio on small machines), which its interval does not hold: the "
		       "interval is the trace's segments, of the same sample; check an effect that "
		       "matters against a full replay at that size\n");
}

/* One line per other kind of note: how many runs have it, and the first run's text. */
static void print_other_notes(const struct mr_compare *c)
{
	for (size_t k = 0; k < c->nnotes; k++) {
		size_t runs = 0, seen = 0;

		if (run_note(&c->notes[k]) || !strcmp(c->notes[k].kind, "sampled"))
			continue;
		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(c->notes[j].kind, c->notes[k].kind);
		if (seen)
			continue;
		for (size_t j = k; j < c->nnotes; j++)
			runs += !strcmp(c->notes[j].kind, c->notes[k].kind);
		printf("note: ");
		cli_print_text(c->notes[k].kind, 0);
		printf(" in %zu of %zu runs, e.g. #%lld: ", runs, c->nruns,
		       (long long)c->run_id[c->notes[k].run]);
		cli_print_text(c->notes[k].message, 0);
		putchar('\n');
	}
}

/* ---- the sign of a policy's delta across memory sizes ---- */

/* The counters the sign summary covers: those --counters named, else misses and refaults. */
static int sign_row(const struct mr_compare *c, size_t k, int asked)
{
	if (c->rows[k].model)
		return 0;
	return asked || !strcmp(c->rows[k].name, "mr_misses") || !strcmp(c->rows[k].name, "mr_refaults");
}

struct sign {
	size_t n;                 /* sizes with a delta */
	size_t *run;              /* their runs, by memory ([nruns], the caller's) */
	const char *status;
};

/* Runs a and b are of one series of sizes: one spec, one trace and sampling (cohort),
 * one --vary seed. */
static int same_series(const struct mr_compare *c, size_t a, size_t b)
{
	return !strcmp(c->spec[a], c->spec[b]) && c->cohort[a] == c->cohort[b] &&
	       c->vary_seed[a] == c->vary_seed[b];
}

static int by_memory_then_id(const struct mr_compare *c, size_t a, size_t b)
{
	if (c->memory_pages[a] != c->memory_pages[b])
		return c->memory_pages[a] < c->memory_pages[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/*
 * Run g's policy (its spec) in row k: its runs of g's trace and sampling at every size
 * that has a baseline run, by memory, and what the signs of their deltas do, read from the
 * deltas outside noise (all of them without intervals): "flips", above 0 at one size and
 * below at another; "keeps +" / "keeps -", those all of one sign (any inside noise may
 * have the other); "inside noise", none outside it; "no change", every delta 0.
 * 0 when the policy is the baseline's or has fewer than two sizes.
 */
static int sign_of(const struct mr_compare *c, size_t k, size_t g, struct sign *sg)
{
	size_t pos = 0, neg = 0, pos_out = 0, neg_out = 0;

	sg->n = 0;
	for (size_t j = 0; j < c->nruns; j++) {
		double abs, pct;
		size_t at;

		if (!same_series(c, j, g) || c->base[j] == MR_COMPARE_NONE || c->base[j] == j ||
		    mr_compare_delta(c, k, j, &abs, &pct))
			continue;
		at = sg->n++;
		while (at && by_memory_then_id(c, sg->run[at - 1], j) > 0) {
			sg->run[at] = sg->run[at - 1];
			at--;
		}
		sg->run[at] = j;
		/* outside noise: its interval excludes 0; where the file has intervals, a
		 * delta without one (a counter without segments) is not taken for outside */
		{
			double lo, hi, plo, phi;
			int out = mr_compare_interval(c, k, j, &lo, &hi, &plo, &phi) ? !c->intervals :
				  !mr_compare_noise(c, k, j);

			if (abs > 0) {
				pos++;
				pos_out += out;
			} else if (abs < 0) {
				neg++;
				neg_out += out;
			}
		}
	}
	if (sg->n < 2)
		return 0;
	if (pos_out && neg_out)
		sg->status = "flips";
	else if (pos_out)
		sg->status = "keeps +";
	else if (neg_out)
		sg->status = "keeps -";
	else if (pos || neg)
		sg->status = "inside noise";
	else
		sg->status = "no change";
	return 1;
}

/* g is the first run of its series (same_series()), and not of the baseline's spec */
static int sign_group(const struct mr_compare *c, size_t g)
{
	if (!strcmp(c->spec[g], c->spec[c->baseline]))
		return 0;
	for (size_t j = 0; j < g; j++)
		if (same_series(c, j, g))
			return 0;
	return 1;
}

/* A series' name in the sign summary and the across table: its short spec, its --vary
 * seed, and where its runs come from when the file has several traces or samplings
 * (cli_run_source()). */
static size_t series_label(const struct mr_compare *c, size_t g, char *buf, size_t cap)
{
	size_t l = mr_policy_short_spec(c->spec[g], buf, cap);

	if (c->vary_seed[g] && l < cap)
		l += (size_t)snprintf(buf + l, cap - l, " ~%llu", (unsigned long long)c->vary_seed[g]);
	if (c->by_cohort && l + 3 < cap) {
		char src[400];

		cli_run_source(c, g, src, sizeof(src));
		l += (size_t)snprintf(buf + l, cap - l, " (%s)", src);
	}
	return l < cap ? l : cap - 1;
}

static void print_signs(const struct mr_compare *c, int asked)
{
	char spec[512], mem[32], base[512];
	size_t wspec = 0, wname = 0, any = 0;
	struct sign sg = { .run = calloc(c->nruns, sizeof(size_t)) };

	if (!c->by_memory || !sg.run) {
		free(sg.run);
		return;
	}
	for (size_t g = 0; g < c->nruns; g++)
		for (size_t k = 0; k < c->nrows; k++)
			if (sign_group(c, g) && sign_row(c, k, asked) && sign_of(c, k, g, &sg)) {
				size_t l = series_label(c, g, spec, sizeof(spec));

				wspec = l > wspec ? (l < 64 ? l : 64) : wspec;
				wname = strlen(c->rows[k].name) > wname ? strlen(c->rows[k].name) : wname;
				any++;
			}
	if (!any) {
		free(sg.run);
		return;
	}
	mr_policy_short_spec(c->spec[c->baseline], base, sizeof(base));
	printf("\nsign of the delta across memory sizes (against ");
	cli_print_text(base, 0);
	printf(" at each size%s):\n", c->intervals ? "; ~ = its 95% interval contains 0" : "");
	for (size_t g = 0; g < c->nruns; g++) {
		if (!sign_group(c, g))
			continue;
		for (size_t k = 0; k < c->nrows; k++) {
			size_t l;

			if (!sign_row(c, k, asked) || !sign_of(c, k, g, &sg))
				continue;
			l = series_label(c, g, spec, sizeof(spec));
			printf("  ");
			cli_print_text(spec, 0);
			printf("%*s  ", (int)(wspec > l ? wspec - l : 0), "");
			cli_print_text(c->rows[k].name, 0);
			printf("%*s  %-12s ", (int)(wname - strlen(c->rows[k].name)), "", sg.status);
			for (size_t j = 0; j < sg.n; j++) {
				size_t r = sg.run[j];
				double abs, pct;
				char d[64];

				mr_compare_delta(c, k, r, &abs, &pct);
				if (isnan(pct)) {
					fmt_signed(d, sizeof(d), abs);
					printf("%s%s new", j ? ", " : "", d);
				} else {
					fmt_bound(d, sizeof(d), pct);
					printf("%s%s%%", j ? ", " : "", d);
				}
				printf("%s at %s", mr_compare_noise(c, k, r) ? "~" : "",
				       mr_replay_format_memory(c->memory_pages[r], mem, sizeof(mem)));
			}
			putchar('\n');
		}
	}
	if (c->intervals)
		printf("(of the deltas outside noise: flips, above 0 at one size and below at another; "
		       "keeps + / keeps -, all of one sign; inside noise: none is outside it)\n");
	else
		printf("(flips: above 0 at one size, below at another; keeps + / keeps -: all of one "
		       "sign)\n");
	free(sg.run);
}

/* The pos-th name and value of a settings string (results.c, RUN_SETTINGS: "swap N
 * nodes N wb N reclaim R shadow S fa N script SHA"): 1, or 0 past its end. */
static int setting_at(const char *set, unsigned pos, char *name, char *value, size_t cap)
{
	for (unsigned k = 0; *set; k++) {
		size_t nl = strcspn(set, " "), vl;
		const char *v = set[nl] ? set + nl + 1 : set + nl;

		vl = strcspn(v, " ");
		if (k == pos) {
			snprintf(name, cap, "%.*s", (int)nl, set);
			snprintf(value, cap, "%.*s", (int)vl, v);
			return 1;
		}
		set = v[vl] ? v + vl + 1 : v + vl;
	}
	return 0;
}

/* The settings of run i that differ between the file's runs, each with its name: " swap
 * 0" beside another run's " swap default". */
static void settings_diff(const struct mr_compare *c, size_t i, struct mr_strbuf *sb)
{
	char name[80], value[80], n2[80], v2[80];

	for (unsigned pos = 0; setting_at(c->settings[i], pos, name, value, sizeof(name)); pos++)
		for (size_t j = 0; j < c->nruns; j++)
			if (!setting_at(c->settings[j], pos, n2, v2, sizeof(n2)) || strcmp(v2, value)) {
				mr_strbuf_printf(sb, " %s %s", name, value);
				break;
			}
}

/* Where run i comes from, for a file of several traces or samplings: the trace (its file
 * name, when the file has more than one) and "full" or "sampled 1/N seed S". */
void cli_run_source(const struct mr_compare *c, size_t i, char *buf, size_t cap)
{
	struct mr_strbuf sb = { buf, cap, 0 };

	if (c->many_traces)
		mr_strbuf_printf(&sb, "%s ", cli_trace_name(c->trace[i], c->trace_ids[i], c->trace[0],
							    sizeof(c->trace[0]), c->trace_ids[0],
							    sizeof(c->trace_ids[0]), c->nruns));
	if (c->sample_den[i])
		mr_strbuf_printf(&sb, "sampled 1/%u seed %llu", c->sample_den[i],
				 (unsigned long long)c->sample_seed[i]);
	else
		mr_strbuf_printf(&sb, "full");
	if (c->sample_den[i] && c->many_units)
		mr_strbuf_printf(&sb, " unit %uK", (c->sample_unit[i] ? c->sample_unit[i] : 1) * 4);
	if (c->many_settings)
		settings_diff(c, i, &sb);
}

/* The widest a line of compare's counter table gets before its runs go on in a block
 * below (a wide terminal's width). */
#define TABLE_WIDTH 200

static void print_table(const struct mr_compare *c, int asked)
{
	size_t wname = 7, wspec = 0, wid = 0, *w = calloc(c->nruns, sizeof(size_t));
	char cell[320], spec[512], mem[32], id[32];
	int any_notes = 0;

	if (!w)
		return;
	print_sampled(c);
	/* short specs: a canonical mglru spec lists thirteen parameters, the reader wants
	 * the one that differs (CSV and JSON keep the canonical ones) */
	if (c->by_memory || c->by_cohort)
		printf("runs (baseline * at each %s: a run is compared with the baseline's "
		       "policy at its own %s; parameters at their defaults not shown):\n",
		       !c->by_cohort ? "memory size" : c->by_memory ? "memory size, trace and sampling"
		       : "trace and sampling", !c->by_cohort ? "size" : c->by_memory ?
		       "size, trace and sampling" : "trace and sampling");
	else
		printf("runs (baseline *; parameters at their defaults not shown):\n");
	for (size_t i = 0; (c->by_memory || c->by_cohort) && i < c->nruns; i++) {
		size_t l = mr_policy_short_spec(c->spec[i], spec, sizeof(spec));

		if (c->vary_seed[i])
			l += 2 + (size_t)snprintf(NULL, 0, "%llu", (unsigned long long)c->vary_seed[i]);
		if (l > wspec)
			wspec = l < 60 ? l : 60;
	}
	for (size_t i = 0; i < c->nruns; i++)
		if ((size_t)snprintf(id, sizeof(id), "%lld", (long long)c->run_id[i]) > wid)
			wid = strlen(id);
	for (size_t i = 0; i < c->nruns; i++) {
		size_t l = mr_policy_short_spec(c->spec[i], spec, sizeof(spec));

		if (c->vary_seed[i] && l + 1 < sizeof(spec)) /* as replay names it */
			snprintf(spec + l, sizeof(spec) - l, " ~%llu", (unsigned long long)c->vary_seed[i]);
		printf("  %s#%-*lld  ", c->base[i] == i ? "*" : " ", (int)wid, (long long)c->run_id[i]);
		cli_print_text(spec, 0); /* stored text: escaped */
		if (c->by_memory)
			printf("%*s  at %-*s", (int)(wspec > strlen(spec) ? wspec - strlen(spec) : 0), "",
			       c->by_cohort ? 8 : 0,
			       c->memory_pages[i] ? mr_replay_format_memory(c->memory_pages[i], mem, sizeof(mem))
						  : "no whole-trace size");
		if (c->by_cohort) {
			char src[400];

			printf("%*s  ", (int)(!c->by_memory && wspec > strlen(spec) ? wspec - strlen(spec) : 0), "");
			cli_run_source(c, i, src, sizeof(src));
			cli_print_text(src, 0);
		}
		if (c->base[i] == MR_COMPARE_NONE)
			printf(" (no baseline run of this %s: no deltas)",
			       c->by_cohort ? (c->by_memory ? "size, trace and sampling" : "trace and sampling")
					    : "size");
		putchar('\n');
		for (size_t k = 0; k < c->nnotes; k++) {
			if (c->notes[k].run != i || !run_note(&c->notes[k]))
				continue;
			printf("  %*s  ! ", (int)wid + 2, "");
			cli_print_text(c->notes[k].kind, 0);
			printf(": ");
			cli_print_text(c->notes[k].message, 0);
			putchar('\n');
			any_notes = 1;
		}
	}
	print_other_notes(c);
	printf("\n");
	for (size_t k = 0; k < c->nrows; k++) {
		size_t l = strlen(c->rows[k].name) + (c->rows[k].model ? 6 : 0);

		if (l > wname)
			wname = l;
	}
	for (size_t i = 0; i < c->nruns; i++) {
		w[i] = 4;
		for (size_t k = 0; k < c->nrows; k++) {
			fmt_cell(c, k, i, cell, sizeof(cell));
			if (strlen(cell) > w[i])
				w[i] = strlen(cell);
		}
	}
	for (size_t i = 0; i < c->nruns; i++) {
		if (c->by_memory)
			mr_replay_format_memory(c->memory_pages[i], mem, sizeof(mem));
		if (c->by_memory && strlen(mem) > w[i])
			w[i] = strlen(mem);
	}
	/* blocks of runs no wider than TABLE_WIDTH each, one under the other: a sweep's
	 * two dozen runs side by side made lines of a thousand characters */
	for (size_t from = 0, to; from < c->nruns; from = to) {
		size_t width = wname;

		for (to = from; to < c->nruns && (to == from || width + 2 + w[to] <= TABLE_WIDTH); to++)
			width += 2 + w[to];
		/* a sweep's block ends where a size does, if one does inside it: a size's
		 * runs stay beside their baseline */
		if (c->by_memory && to < c->nruns) {
			size_t cut = to;

			while (cut > from + 1 && c->memory_pages[cut] == c->memory_pages[cut - 1])
				cut--;
			if (cut > from + 1 || c->memory_pages[cut] != c->memory_pages[cut - 1])
				to = cut;
		}
		if (from)
			printf("\n");
		printf("%-*s", (int)wname, "counter");
		for (size_t i = from; i < to; i++) {
			char h[32];

			snprintf(h, sizeof(h), "%s#%lld%s", c->base[i] == i ? "*" : "",
				 (long long)c->run_id[i], has_notes(c, i) ? "!" : "");
			printf("  %*s", (int)w[i], h);
		}
		printf("\n");
		if (c->by_memory) {
			printf("%-*s", (int)wname, "memory");
			for (size_t i = from; i < to; i++)
				printf("  %*s", (int)w[i], c->memory_pages[i] ?
				       mr_replay_format_memory(c->memory_pages[i], mem, sizeof(mem)) : "-");
			printf("\n");
		}
		for (size_t k = 0; k < c->nrows; k++) {
			char name[128];

			snprintf(name, sizeof(name), "%s%s", c->rows[k].model ? "model:" : "",
				 c->rows[k].name);
			cli_print_text(name, 0); /* stored text: escaped, padded as it was measured */
			printf("%*s", (int)(wname > strlen(name) ? wname - strlen(name) : 0), "");
			for (size_t i = from; i < to; i++) {
				fmt_cell(c, k, i, cell, sizeof(cell));
				printf("  %*s", (int)w[i], cell);
			}
			printf("\n");
		}
	}
	if (any_notes)
		printf("\n! a toggle of the run never acted (its note above): the run reclaims as "
		       "without it\n");
	if (c->intervals)
		printf("\n[lo,hi]: the delta's 95%% interval, in %% of the baseline (absolute where "
		       "the baseline is 0): a paired block\nbootstrap over the trace's %zu segments "
		       "(blocks of %u, %u resamples). ~: it contains 0, the delta is inside the\n"
		       "trace's own variability. Not a kernel's run-to-run noise "
		       "(docs/results-schema.md, \"compare: intervals\").\n",
		       c->nsegs, c->block_len, c->resamples);
	print_signs(c, asked);
	free(w);
}

static void print_csv(const struct mr_compare *c)
{
	printf("counter,run,spec,baseline,value,delta,delta_pct,memory_pages,delta_lo,delta_hi,"
	       "delta_pct_lo,delta_pct_hi,noise\n");
	for (size_t k = 0; k < c->nrows; k++) {
		for (size_t i = 0; i < c->nruns; i++) {
			char v[64], d[64] = "", p[64] = "";
			double abs, pct, lo, hi, plo, phi;

			if (!c->rows[k].present[i])
				continue;
			fmt_value(v, sizeof(v), c->rows[k].value[i]);
			if (!mr_compare_delta(c, k, i, &abs, &pct)) {
				fmt_value(d, sizeof(d), abs);
				if (!isnan(pct))
					snprintf(p, sizeof(p), "%.4f", pct);
			}
			fputs(c->rows[k].model ? "model:" : "", stdout);
			if (strpbrk(c->rows[k].name, ",\"\n\r"))
				cli_csv_field(c->rows[k].name);
			else
				cli_print_text(c->rows[k].name, CLI_TEXT_CSV);
			printf(",%lld,", (long long)c->run_id[i]);
			cli_csv_field(c->spec[i]);
			printf(",%d,%s,%s,%s,", c->base[i] == i, v, d, p);
			if (c->memory_pages[i])
				printf("%llu", (unsigned long long)c->memory_pages[i]);
			if (!mr_compare_interval(c, k, i, &lo, &hi, &plo, &phi)) {
				fmt_value(d, sizeof(d), lo);
				fmt_value(v, sizeof(v), hi);
				printf(",%s,%s,", d, v);
				if (!isnan(plo))
					printf("%.4f,%.4f", plo, phi);
				else
					putchar(',');
				printf(",%d", mr_compare_noise(c, k, i));
			} else {
				printf(",,,,,");
			}
			putchar('\n');
		}
	}
}

/* Where run i comes from, in JSON: its trace and sampling, and its sampling unit and
 * settings where the file's runs differ in them */
static void json_source(const struct mr_compare *c, size_t i)
{
	printf(", \"trace\": ");
	cli_json_string(c->trace[i]);
	if (c->sample_den[i])
		printf(", \"sample_den\": %u, \"sample_seed\": %llu", c->sample_den[i],
		       (unsigned long long)c->sample_seed[i]);
	else
		printf(", \"sample_den\": null, \"sample_seed\": null");
	if (c->many_units && c->sample_den[i])
		printf(", \"sample_unit_pages\": %u", c->sample_unit[i] ? c->sample_unit[i] : 1);
	if (c->many_settings) {
		printf(", \"settings\": ");
		cli_json_string(c->settings[i]);
	}
}

static void print_json_signs(const struct mr_compare *c, int asked)
{
	struct sign sg = { .run = calloc(c->nruns, sizeof(size_t)) };
	int first = 1;

	for (size_t g = 0; sg.run && c->by_memory && g < c->nruns; g++) {
		if (!sign_group(c, g))
			continue;
		for (size_t k = 0; k < c->nrows; k++) {
			if (!sign_row(c, k, asked) || !sign_of(c, k, g, &sg))
				continue;
			printf("%s\n  {\"spec\": ", first ? "" : ",");
			cli_json_string(c->spec[g]);
			if (c->vary_seed[g])
				printf(", \"vary_seed\": %llu", (unsigned long long)c->vary_seed[g]);
			if (c->by_cohort)
				json_source(c, g);
			printf(", \"counter\": ");
			cli_json_string(c->rows[k].name);
			printf(", \"status\": \"%s\", \"sizes\": [", sg.status);
			for (size_t j = 0; j < sg.n; j++) {
				double abs, pct;
				char v[64];

				mr_compare_delta(c, k, sg.run[j], &abs, &pct);
				fmt_value(v, sizeof(v), abs);
				printf("%s{\"run\": %lld, \"memory_pages\": %llu, \"delta\": %s, \"delta_pct\": ",
				       j ? ", " : "", (long long)c->run_id[sg.run[j]],
				       (unsigned long long)c->memory_pages[sg.run[j]], v);
				if (isnan(pct))
					printf("null");
				else
					printf("%.4f", pct);
				printf(", \"noise\": %s}", mr_compare_noise(c, k, sg.run[j]) ? "true" : "false");
			}
			printf("]}");
			first = 0;
		}
	}
	free(sg.run);
}

static void print_json(const struct mr_compare *c, int asked)
{
	printf("{\"baseline\": %lld, ", (long long)c->run_id[c->baseline]);
	if (c->intervals)
		printf("\"intervals\": {\"level\": 0.95, \"method\": \"paired circular block bootstrap\", "
		       "\"segments\": %zu, \"block\": %u, \"resamples\": %u, \"seed\": %llu}, ",
		       c->nsegs, c->block_len, c->resamples, (unsigned long long)MR_COMPARE_SEED);
	else
		printf("\"intervals\": null, ");
	printf("\"runs\": [");
	for (size_t i = 0; i < c->nruns; i++) {
		int first = 1;

		printf("%s{\"id\": %lld, \"spec\": ", i ? ", " : "", (long long)c->run_id[i]);
		cli_json_string(c->spec[i]);
		if (c->memory_pages[i])
			printf(", \"memory_pages\": %llu", (unsigned long long)c->memory_pages[i]);
		else
			printf(", \"memory_pages\": null");
		if (c->base[i] == MR_COMPARE_NONE)
			printf(", \"baseline\": null");
		else
			printf(", \"baseline\": %lld", (long long)c->run_id[c->base[i]]);
		json_source(c, i);
		printf(", \"notes\": [");
		for (size_t k = 0; k < c->nnotes; k++) {
			if (c->notes[k].run != i)
				continue;
			printf("%s{\"kind\": ", first ? "" : ", ");
			cli_json_string(c->notes[k].kind);
			printf(", \"message\": ");
			cli_json_string(c->notes[k].message);
			printf("}");
			first = 0;
		}
		printf("]}");
	}
	printf("], \"counters\": [");
	for (size_t k = 0; k < c->nrows; k++) {
		printf("%s\n  {\"name\": ", k ? "," : "");
		cli_json_string(c->rows[k].name);
		printf(", \"model\": %s, \"values\": [", c->rows[k].model ? "true" : "false");
		for (size_t i = 0; i < c->nruns; i++) {
			char v[64];

			fmt_value(v, sizeof(v), c->rows[k].value[i]);
			printf("%s%s", i ? ", " : "", c->rows[k].present[i] ? v : "null");
		}
		printf("], \"delta\": [");
		for (size_t i = 0; i < c->nruns; i++) {
			double abs, pct;
			char v[64];

			if (mr_compare_delta(c, k, i, &abs, &pct)) {
				printf("%snull", i ? ", " : "");
				continue;
			}
			fmt_value(v, sizeof(v), abs);
			printf("%s%s", i ? ", " : "", v);
		}
		printf("], \"delta_pct\": [");
		for (size_t i = 0; i < c->nruns; i++) {
			double abs, pct;

			if (mr_compare_delta(c, k, i, &abs, &pct) || isnan(pct))
				printf("%snull", i ? ", " : "");
			else
				printf("%s%.4f", i ? ", " : "", pct);
		}
		printf("]");
		for (int f = 0; f < 5; f++) {
			static const char *const key[5] = { "delta_lo", "delta_hi", "delta_pct_lo",
							    "delta_pct_hi", "noise" };

			printf(", \"%s\": [", key[f]);
			for (size_t i = 0; i < c->nruns; i++) {
				double b[4];
				char v[64];

				printf("%s", i ? ", " : "");
				if (mr_compare_interval(c, k, i, &b[0], &b[1], &b[2], &b[3]) ||
				    (f >= 2 && f < 4 && isnan(b[f]))) {
					printf("null");
				} else if (f == 4) {
					printf("%s", mr_compare_noise(c, k, i) ? "true" : "false");
				} else if (f < 2) {
					fmt_value(v, sizeof(v), b[f]);
					printf("%s", v);
				} else {
					printf("%.4f", b[f]);
				}
			}
			printf("]");
		}
		printf("}");
	}
	printf("\n], \"signs\": [");
	print_json_signs(c, asked);
	printf("]}\n");
}

/* ---- across recordings: several results files of one workload ---- */

/* What the spread is shown for without --counters. */
static int across_row(const struct mr_compare_row *r, int asked)
{
	static const char *const names[] = { "mr_misses", "mr_refaults", "workingset_refault_file",
		"workingset_refault_anon", "pswpin", "pswpout", "mr_evictions" };

	if (asked)
		return 1;
	for (size_t i = 0; !r->model && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(r->name, names[i]))
			return 1;
	return 0;
}

static size_t row_named(const struct mr_compare *c, const struct mr_compare_row *r)
{
	for (size_t k = 0; k < c->nrows; k++)
		if (c->rows[k].model == r->model && !strcmp(c->rows[k].name, r->name))
			return k;
	return SIZE_MAX;
}

/*
 * Row k, run i of the first file, in every file: the run of the same spec and memory
 * there, its percentage delta against that file's own baseline (NaN where the file has
 * no such run or the baseline is 0), whether that delta is outside the file's noise.
 */
/* Run j of b is run i of a in another recording: the same spec and size, sampled alike
 * (rate, seed, unit), the same --vary seed and settings (the trace differs). */
static int same_run_across(const struct mr_compare *a, size_t i, const struct mr_compare *b,
			   size_t j)
{
	return !strcmp(a->spec[i], b->spec[j]) && a->memory_pages[i] == b->memory_pages[j] &&
	       a->sample_den[i] == b->sample_den[j] && a->sample_seed[i] == b->sample_seed[j] &&
	       a->sample_unit[i] == b->sample_unit[j] && a->vary_seed[i] == b->vary_seed[j] &&
	       !strcmp(a->settings[i], b->settings[j]);
}

static void across_cell(struct mr_compare *const *cs, size_t n, size_t k, size_t i, double *pct,
			double *mean_abs, size_t *outside, size_t *with_ci)
{
	const struct mr_compare *c0 = cs[0];
	double sum = 0;
	size_t m = 0;

	*outside = *with_ci = 0;
	for (size_t f = 0; f < n; f++) {
		const struct mr_compare *c = cs[f];
		size_t kk = row_named(c, &c0->rows[k]), j;
		double abs, p, lo, hi, plo, phi;

		pct[f] = NAN;
		for (j = 0; j < c->nruns; j++)
			if (same_run_across(c0, i, c, j))
				break;
		if (kk == SIZE_MAX || j == c->nruns || mr_compare_delta(c, kk, j, &abs, &p))
			continue;
		pct[f] = p;
		sum += abs;
		m++;
		/* n counts the files with a percentage; so does "outside noise" */
		if (!isnan(p) && !mr_compare_interval(c, kk, j, &lo, &hi, &plo, &phi)) {
			(*with_ci)++;
			*outside += !mr_compare_noise(c, kk, j);
		}
	}
	*mean_abs = m ? sum / (double)m : NAN;
}

static void fmt_pct(char *buf, size_t cap, double v, int sign)
{
	if (isnan(v))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, sign ? "%+.1f%%" : "%.1f%%", v);
}

static int print_across(struct mr_compare *const *cs, char *const *paths, size_t n,
			const char *format, int asked)
{
	const struct mr_compare *c0 = cs[0];
	char spec[512], mem[32], b[8][64];
	size_t wspec = 4, wname = 7;
	double *pct = calloc(n, sizeof(double));
	int csv = !strcmp(format, "csv"), json = !strcmp(format, "json"), first = 1;

	if (!pct)
		return 1;
	for (size_t f = 1; f < n; f++) {
		if (strcmp(cs[f]->spec[cs[f]->baseline], c0->spec[c0->baseline])) {
			fprintf(stderr, "memreplay compare: the baseline of %s is %s but that of %s is %s: "
				"name one policy for all with --baseline SPEC\n", paths[0],
				c0->spec[c0->baseline], paths[f], cs[f]->spec[cs[f]->baseline]);
			free(pct);
			return 1;
		}
	}
	for (size_t f = 0; f < n; f++)
		for (size_t g = 0; g < f; g++)
			if (cs[f]->trace_id[0] && !strcmp(cs[f]->trace_id, cs[g]->trace_id))
				fprintf(stderr, "memreplay compare: note: %s and %s replay the same trace (%s): "
					"the spread between them is not between recordings\n",
					paths[g], paths[f], cs[f]->trace_id);
	for (size_t k = 0; k < c0->nrows; k++)
		if (across_row(&c0->rows[k], asked) && strlen(c0->rows[k].name) + 6 > wname)
			wname = strlen(c0->rows[k].name) + (c0->rows[k].model ? 6 : 0);
	for (size_t i = 0; i < c0->nruns; i++) {
		size_t l = series_label(c0, i, spec, sizeof(spec));

		wspec = l > wspec ? (l < 60 ? l : 60) : wspec;
	}
	if (csv) {
		printf("counter,spec,memory_pages,n,mean_delta,mean_pct,sd_pct,min_pct,max_pct,t_lo_pct,"
		       "t_hi_pct,outside_noise,with_interval\n");
	} else if (json) {
		printf("{\"files\": [");
		for (size_t f = 0; f < n; f++) {
			printf("%s{\"path\": ", f ? ", " : "");
			cli_json_string(paths[f]);
			printf(", \"trace_id\": ");
			cli_json_string(cs[f]->trace_id);
			printf("}");
		}
		printf("], \"baseline\": ");
		cli_json_string(c0->spec[c0->baseline]);
		printf(", \"rows\": [");
	} else {
		mr_policy_short_spec(c0->spec[c0->baseline], spec, sizeof(spec));
		printf("across %zu results files (recordings of one workload): each run against ", n);
		cli_print_text(spec, 0);
		printf(" at its size in its own file; runs matched by spec, memory, sampling, --vary "
		       "seed and settings; the spread is between the files, in %% of each file's "
		       "baseline:\n");
		for (size_t f = 0; f < n; f++) {
			printf("  ");
			cli_print_text(paths[f], 0);
			printf("  ");
			cli_print_text(cs[f]->trace_id, 0);
			printf("  %zu runs%s\n", cs[f]->nruns, cs[f]->intervals ? "" : ", no segments");
		}
		printf("\n%-*s  %-*s  %7s  %3s  %8s  %6s  %8s  %8s  %19s  %s\n", (int)wname, "counter",
		       (int)wspec, "spec", "memory", "n", "mean", "sd", "min", "max", "95% t interval",
		       "outside noise");
	}
	for (size_t k = 0; k < c0->nrows; k++) {
		if (!across_row(&c0->rows[k], asked))
			continue;
		for (size_t i = 0; i < c0->nruns; i++) {
			struct mr_spread sp;
			size_t outside, with_ci;
			double mean_abs;
			char name[128];

			if (c0->base[i] == i || c0->base[i] == MR_COMPARE_NONE)
				continue;
			across_cell(cs, n, k, i, pct, &mean_abs, &outside, &with_ci);
			mr_spread_of(pct, n, &sp);
			/* a count cannot fall below 0: no delta below -100 % */
			if (sp.t_lo < -100.0)
				sp.t_lo = -100.0;
			snprintf(name, sizeof(name), "%s%s", c0->rows[k].model ? "model:" : "",
				 c0->rows[k].name);
			if (c0->memory_pages[i])
				mr_replay_format_memory(c0->memory_pages[i], mem, sizeof(mem));
			else
				snprintf(mem, sizeof(mem), "-");
			if (csv) {
				cli_csv_field(name);
				putchar(',');
				cli_csv_field(c0->spec[i]);
				printf(",");
				if (c0->memory_pages[i])
					printf("%llu", (unsigned long long)c0->memory_pages[i]);
				fmt_value(b[0], sizeof(b[0]), mean_abs);
				printf(",%zu,%s", sp.n, isnan(mean_abs) ? "" : b[0]);
				{
					const double v[6] = { sp.mean, sp.sd, sp.min, sp.max, sp.t_lo, sp.t_hi };

					for (int q = 0; q < 6; q++)
						if (isnan(v[q]))
							printf(",");
						else
							printf(",%.4f", v[q]);
				}
				printf(",%zu,%zu\n", outside, with_ci);
			} else if (json) {
				const double v[7] = { mean_abs, sp.mean, sp.sd, sp.min, sp.max, sp.t_lo, sp.t_hi };
				static const char *const key[7] = { "mean_delta", "mean_pct", "sd_pct", "min_pct",
								    "max_pct", "t_lo_pct", "t_hi_pct" };

				printf("%s\n  {\"counter\": ", first ? "" : ",");
				cli_json_string(name);
				printf(", \"spec\": ");
				cli_json_string(c0->spec[i]);
				printf(", \"memory_pages\": %llu", (unsigned long long)c0->memory_pages[i]);
				if (c0->sample_den[i])
					printf(", \"sample_den\": %u, \"sample_seed\": %llu", c0->sample_den[i],
					       (unsigned long long)c0->sample_seed[i]);
				if (c0->vary_seed[i])
					printf(", \"vary_seed\": %llu", (unsigned long long)c0->vary_seed[i]);
				printf(", \"n\": %zu", sp.n);
				for (int q = 0; q < 7; q++) {
					if (isnan(v[q]))
						printf(", \"%s\": null", key[q]);
					else
						printf(", \"%s\": %.4f", key[q], v[q]);
				}
				printf(", \"outside_noise\": %zu, \"with_interval\": %zu}", outside, with_ci);
				first = 0;
			} else {
				size_t l = series_label(c0, i, spec, sizeof(spec));
				char t[64] = "-", o[32] = "-";

				fmt_pct(b[0], sizeof(b[0]), sp.mean, 1);
				fmt_pct(b[1], sizeof(b[1]), sp.sd, 0);
				fmt_pct(b[2], sizeof(b[2]), sp.min, 1);
				fmt_pct(b[3], sizeof(b[3]), sp.max, 1);
				if (!isnan(sp.t_lo))
					snprintf(t, sizeof(t), "[%+.1f%%,%+.1f%%]", sp.t_lo, sp.t_hi);
				if (with_ci)
					snprintf(o, sizeof(o), "%zu of %zu", outside, with_ci);
				cli_print_text(name, 0);
				printf("%*s  ", (int)(wname > strlen(name) ? wname - strlen(name) : 0), "");
				cli_print_text(spec, 0);
				printf("%*s  %7s  %3zu  %8s  %6s  %8s  %8s  %19s  %s\n",
				       (int)(wspec > l ? wspec - l : 0), "", mem, sp.n, b[0], b[1], b[2], b[3], t, o);
			}
		}
	}
	if (json)
		printf("\n]}\n");
	else if (!csv)
		printf("\nmean, sd, min, max: of the files' percentage deltas; 95%% t interval: mean -+ "
		       "t(0.975, n-1) sd / sqrt(n), for n >= 2; outside noise: files whose own interval "
		       "(the trace's segments) excludes 0; a file whose baseline is 0 there has no "
		       "percentage and counts in neither\n");
	free(pct);
	return 0;
}

/*
 * --across-traces: every trace of the files (a merged sweep of several recordings of one
 * workload) taken as a recording of its own, as if each were a file of its own runs.
 * cs[], labels[] and *n out (freed by the caller). 0, or an exit status with the message.
 */
static int split_traces(struct mr_results **res, char *const *paths, size_t nfiles,
			const struct mr_compare_opts *co, struct mr_compare ***cs_out,
			char ***labels_out, size_t *n_out, struct mr_error *err)
{
	struct mr_compare **cs = NULL;
	char **labels = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t f = 0; f < nfiles && !rc; f++) {
		char (*ids)[80], (*trace)[256];
		size_t nt;

		rc = mr_results_traces(res[f], &ids, &trace, &nt, err);
		for (size_t i = 0; !rc && i < nt; i++) {
			struct mr_compare_opts one = *co;

			if (n == cap) {
				size_t nc = cap ? 2 * cap : 8;
				struct mr_compare **c2 = realloc(cs, nc * sizeof(*c2));
				char **l2 = c2 ? realloc(labels, nc * sizeof(*l2)) : NULL;

				if (c2)
					cs = c2;
				if (!c2 || !l2) {
					rc = mr_error_set(err, MR_ENOMEM, "out of memory");
					break;
				}
				labels = l2;
				cap = nc;
			}
			one.trace_id = ids[i];
			labels[n] = malloc(strlen(paths[f]) + strlen(trace[i]) + 4);
			if (!labels[n]) {
				rc = mr_error_set(err, MR_ENOMEM, "out of memory");
				break;
			}
			sprintf(labels[n], "%s (%s)", paths[f], trace[i]);
			rc = mr_results_compare(res[f], &one, &cs[n], err);
			if (rc) {
				/* which trace: a run id as --baseline names a run of one of them */
				char msg[sizeof(err->msg)];

				snprintf(msg, sizeof(msg), "%s", err->msg);
				mr_error_set(err, rc, "%s, trace %s: %.400s", paths[f], trace[i], msg);
				free(labels[n]);
			} else {
				n++;
			}
		}
		free(ids);
		free(trace);
	}
	if (!rc && n < 2)
		rc = mr_error_set(err, MR_EINVAL, "--across-traces: %s hold%s one trace: name the "
				  "results of several recordings (or files of one each)",
				  nfiles > 1 ? "the files" : paths[0], nfiles > 1 ? "" : "s");
	*cs_out = cs;
	*labels_out = labels;
	*n_out = n;
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "counters", required_argument, NULL, 'c' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "across-traces", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mr_compare_opts co = { 0 };
	const char *names[MAX_COUNTERS];
	const char *format = "table";
	char *list = NULL;
	struct mr_results **res = NULL;
	struct mr_compare **cs = NULL;
	struct mr_error err = { 0 };
	size_t nfiles;
	int ch, rc = 0, status = 0, across_traces = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "b:f:c:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			co.baseline = optarg;
			break;
		case 'f':
			format = optarg;
			if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json"))
				return cli_usage_error("compare", "--format '%s': use table, csv or json",
						       optarg);
			break;
		case 'C':
			format = "csv";
			break;
		case 'J':
			format = "json";
			break;
		case 'c':
			free(list);
			list = strdup(optarg);
			if (!list)
				return 1;
			co.ncounters = 0;
			for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (co.ncounters == MAX_COUNTERS) {
					free(list);
					return cli_usage_error("compare", "at most %d counters", MAX_COUNTERS);
				}
				names[co.ncounters++] = t;
			}
			co.counters = co.ncounters ? names : NULL;
			break;
		case 'T':
			across_traces = 1;
			break;
		case 'h':
			free(list);
			return cli_help("compare");
		default:
			free(list);
			return cli_usage_error("compare", "bad option");
		}
	}
	if (optind >= argc) {
		free(list);
		return cli_usage_error("compare", "name a results database (or several, one per recording)");
	}
	nfiles = (size_t)(argc - optind);
	for (size_t f = 0; f < nfiles; f++)
		for (size_t g = 0; g < f; g++)
			if (mr_same_file(argv[optind + f], argv[optind + g])) {
				free(list);
				return cli_usage_error("compare", "%s is given twice (also as %s): the "
						       "spread across recordings would count one "
						       "recording twice", argv[optind + f], argv[optind + g]);
			}
	res = calloc(nfiles, sizeof(*res));
	cs = calloc(nfiles, sizeof(*cs));
	if (!res || !cs) {
		free(res);
		free(cs);
		free(list);
		return 1;
	}
	for (size_t f = 0; f < nfiles && !rc; f++) {
		rc = mr_results_open(argv[optind + f], &res[f], &err);
		if (!rc && !across_traces)
			rc = mr_results_compare(res[f], &co, &cs[f], &err);
		if (across_traces)
			continue;
		if (!rc && !cs[f]->intervals)
			fprintf(stderr, "memreplay compare: note: %s has no segments (written before "
				"memreplay kept them): its deltas have no intervals; replay the trace "
				"again for them\n", argv[optind + f]);
	}
	if (!rc && across_traces) {
		struct mr_compare **tc = NULL;
		char **labels = NULL;
		size_t nt = 0;

		rc = split_traces(res, argv + optind, nfiles, &co, &tc, &labels, &nt, &err);
		status = rc ? cli_fail("compare", &err) :
			      print_across(tc, labels, nt, format, co.counters != NULL);
		for (size_t t = 0; t < nt; t++) {
			mr_compare_free(tc[t]);
			free(labels[t]);
		}
		free(tc);
		free(labels);
	} else if (rc) {
		status = cli_fail("compare", &err);
	} else if (nfiles > 1) {
		status = print_across(cs, argv + optind, nfiles, format, co.counters != NULL);
	} else if (!strcmp(format, "csv")) {
		print_csv(cs[0]);
	} else if (!strcmp(format, "json")) {
		print_json(cs[0], co.counters != NULL);
	} else {
		print_table(cs[0], co.counters != NULL);
	}
	for (size_t f = 0; f < nfiles; f++) {
		mr_compare_free(cs[f]);
		mr_results_close(res[f]);
	}
	free(cs);
	free(res);
	free(list);
	return status;
}
