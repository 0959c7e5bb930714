// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_compare.c - `memreplay compare RESULTS.db`: the runs of a replay side by side,
 * with absolute and percentage deltas against a baseline run, as a table, CSV or JSON
 * (--format table|csv|json; --csv and --json are short for the last two).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_policy.h"
#include "mr_replay.h"

#define MAX_COUNTERS 256

static void fmt_value(char *buf, size_t cap, double v)
{
	if (v == floor(v) && fabs(v) < 1e18)
		snprintf(buf, cap, "%.0f", v);
	else
		snprintf(buf, cap, "%.6g", v);
}

static void fmt_cell(const struct mr_compare *c, size_t k, size_t i, char *buf, size_t cap)
{
	const struct mr_compare_row *r = &c->rows[k];
	char v[64], d[64];
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
	if (isnan(pct))
		snprintf(buf, cap, "%s (%s%s, new)", v, abs >= 0 ? "+" : "", d);
	else
		snprintf(buf, cap, "%s (%s%s, %+.1f%%)", v, abs >= 0 ? "+" : "", d, pct);
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

/* One line per other kind of note: how many runs have it, and the first run's text. */
static void print_other_notes(const struct mr_compare *c)
{
	for (size_t k = 0; k < c->nnotes; k++) {
		size_t runs = 0, seen = 0;

		if (run_note(&c->notes[k]))
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

static void print_table(const struct mr_compare *c)
{
	size_t wname = 7, wspec = 0, wid = 0, *w = calloc(c->nruns, sizeof(size_t));
	char cell[160], spec[512], mem[32], id[32];
	int any_notes = 0;

	if (!w)
		return;
	/* short specs: a canonical mglru spec lists thirteen parameters, the reader wants
	 * the one that differs (CSV and JSON keep the canonical ones) */
	if (c->by_memory)
		printf("runs (baseline * at each memory size: a run is compared with the baseline's "
		       "policy at its own size; parameters at their defaults not shown):\n");
	else
		printf("runs (baseline *; parameters at their defaults not shown):\n");
	for (size_t i = 0; c->by_memory && i < c->nruns; i++) {
		size_t l = mr_policy_short_spec(c->spec[i], spec, sizeof(spec));

		if (l > wspec)
			wspec = l < 60 ? l : 60;
	}
	for (size_t i = 0; i < c->nruns; i++)
		if ((size_t)snprintf(id, sizeof(id), "%lld", (long long)c->run_id[i]) > wid)
			wid = strlen(id);
	for (size_t i = 0; i < c->nruns; i++) {
		mr_policy_short_spec(c->spec[i], spec, sizeof(spec));
		printf("  %s#%-*lld  ", c->base[i] == i ? "*" : " ", (int)wid, (long long)c->run_id[i]);
		cli_print_text(spec, 0); /* stored text: escaped */
		if (c->by_memory)
			printf("%*s  at %s%s", (int)(wspec > strlen(spec) ? wspec - strlen(spec) : 0), "",
			       c->memory_pages[i] ? mr_replay_format_memory(c->memory_pages[i], mem, sizeof(mem))
						  : "no whole-trace size",
			       c->base[i] == MR_COMPARE_NONE ? " (no baseline run of this size: no deltas)" : "");
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
	printf("%-*s", (int)wname, "counter");
	for (size_t i = 0; i < c->nruns; i++) {
		char h[32];

		snprintf(h, sizeof(h), "%s#%lld%s", c->base[i] == i ? "*" : "", (long long)c->run_id[i],
			 has_notes(c, i) ? "!" : "");
		printf("  %*s", (int)w[i], h);
	}
	printf("\n");
	if (c->by_memory) {
		printf("%-*s", (int)wname, "memory");
		for (size_t i = 0; i < c->nruns; i++)
			printf("  %*s", (int)w[i], c->memory_pages[i] ?
			       mr_replay_format_memory(c->memory_pages[i], mem, sizeof(mem)) : "-");
		printf("\n");
	}
	for (size_t k = 0; k < c->nrows; k++) {
		char name[128];

		snprintf(name, sizeof(name), "%s%s", c->rows[k].model ? "model:" : "", c->rows[k].name);
		cli_print_text(name, 0); /* stored text: escaped, padded as it was measured */
		printf("%*s", (int)(wname > strlen(name) ? wname - strlen(name) : 0), "");
		for (size_t i = 0; i < c->nruns; i++) {
			fmt_cell(c, k, i, cell, sizeof(cell));
			printf("  %*s", (int)w[i], cell);
		}
		printf("\n");
	}
	if (any_notes)
		printf("\n! a toggle of the run never acted (its note above): the run reclaims as "
		       "without it\n");
	free(w);
}

static void csv_str(const char *s)
{
	putchar('"');
	cli_print_text(s, CLI_TEXT_CSV);
	putchar('"');
}

static void print_csv(const struct mr_compare *c)
{
	printf("counter,run,spec,baseline,value,delta,delta_pct,memory_pages\n");
	for (size_t k = 0; k < c->nrows; k++) {
		for (size_t i = 0; i < c->nruns; i++) {
			char v[64], d[64] = "", p[64] = "";
			double abs, pct;

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
				csv_str(c->rows[k].name);
			else
				cli_print_text(c->rows[k].name, CLI_TEXT_CSV);
			printf(",%lld,", (long long)c->run_id[i]);
			csv_str(c->spec[i]);
			printf(",%d,%s,%s,%s,", c->base[i] == i, v, d, p);
			if (c->memory_pages[i])
				printf("%llu", (unsigned long long)c->memory_pages[i]);
			putchar('\n');
		}
	}
}

static void print_json(const struct mr_compare *c)
{
	printf("{\"baseline\": %lld, \"runs\": [", (long long)c->run_id[c->baseline]);
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
		printf("]}");
	}
	printf("\n]}\n");
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "counters", required_argument, NULL, 'c' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mr_compare_opts co = { 0 };
	const char *names[MAX_COUNTERS];
	const char *format = "table";
	char *list = NULL;
	struct mr_results *res = NULL;
	struct mr_compare *c = NULL;
	struct mr_error err = { 0 };
	int ch, rc;

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
		case 'h':
			free(list);
			return cli_help("compare");
		default:
			free(list);
			return cli_usage_error("compare", "bad option");
		}
	}
	if (optind + 1 != argc) {
		free(list);
		return cli_usage_error("compare", "name one results database");
	}
	rc = mr_results_open(argv[optind], &res, &err);
	if (!rc)
		rc = mr_results_compare(res, &co, &c, &err);
	if (rc) {
		mr_results_close(res);
		free(list);
		return cli_fail("compare", &err);
	}
	if (!strcmp(format, "csv"))
		print_csv(c);
	else if (!strcmp(format, "json"))
		print_json(c);
	else
		print_table(c);
	mr_compare_free(c);
	mr_results_close(res);
	free(list);
	return 0;
}
