// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_curve.c - `memreplay curve RESULTS.db`: per policy and memory size the miss ratio
 * (mr_misses / mr_references), the misses, refaults by type and swap traffic of a
 * results database, as a table (with a policy x memory matrix of miss ratios), CSV or
 * JSON; `-o FILE.svg` also draws it (curve_svg.c). The numbers come from
 * mr_results_curve(), the same SELECT as the results' view `curve`.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_policy.h"
#include "mr_replay.h"
#include "mr_results.h"
#include "mr_util.h"

static const char definition[] =
	"miss ratio = mr_misses / mr_references: pages brought into memory per reference "
	"that could miss (an access, a page of a read()/write(), a page a readahead or "
	"page-cache insertion named; docs/results-schema.md, \"curve\")";

static void label_of(const struct mr_curve_row *r, char *buf, size_t cap)
{
	size_t n = mr_policy_short_spec(r->spec, buf, cap);

	if (r->vary_seed && n + 1 < cap) /* as replay names it: 'SPEC ~SEED' */
		snprintf(buf + n, cap - n, " ~%llu", (unsigned long long)r->vary_seed);
}

static void fmt_ratio(const struct mr_curve_row *r, char *buf, size_t cap)
{
	if (isnan(r->miss_ratio))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.3f %%%s", 100.0 * r->miss_ratio, r->oom ? "!" : "");
}

/*
 * A sampled replay's runs (docs/replay.md, "Sampled replay") are said first, so that
 * nobody takes them for full replays: one line per rate and seed.
 */
static void print_sampled(const struct mr_curve *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct mr_curve_row *r = &c->rows[i];
		size_t runs = 0;
		int seen = 0;

		if (!r->sample_den)
			continue;
		/* one line per rate and seed, and per trace in a file of several */
		for (size_t j = 0; j < c->n; j++) {
			int same = c->rows[j].sample_den == r->sample_den &&
				   c->rows[j].sample_seed == r->sample_seed &&
				   (c->ntraces < 2 || !strcmp(c->rows[j].trace_id, r->trace_id));

			seen |= same && j < i;
			runs += same;
		}
		if (seen)
			continue;
		printf("sampled 1/%u (seed %llu): %zu of the %zu runs", r->sample_den,
		       (unsigned long long)r->sample_seed, runs, c->n);
		if (c->ntraces > 1) {
			printf(" of ");
			cli_print_text(cli_trace_name(r->trace, r->trace_id, c->rows[0].trace,
						      sizeof(c->rows[0]), c->rows[0].trace_id,
						      sizeof(c->rows[0]), c->n), 0);
		}
		printf(" replayed 1 in %u pages (or units, --sample-unit) on a machine scaled to them; "
		       "their miss ratio counts the references their machine did not see as hits "
		       "(docs/replay.md, \"Sampled replay\")\n", r->sample_den);
	}
}

/* Does column g's miss ratio at mems[m] rise above the one at its next smaller size
 * (more memory, more misses: the curve is not monotonic there)? The column's own next
 * smaller size: other columns may have sizes between; 0 (no size: cgroup limits alone)
 * is not one. A thousandth of a point or more, so that equal ratios computed apart are
 * not taken for a rise. */
static int rises(const struct mr_curve *c, size_t g, const uint64_t *mems, size_t m)
{
	struct mr_spread a, b;

	if (!mems[m])
		return 0;
	cli_curve_at(c, g, mems[m], &b, NULL);
	for (size_t k = m; b.n && k-- > 0 && mems[k];) {
		cli_curve_at(c, g, mems[k], &a, NULL);
		if (a.n)
			return b.mean > a.mean + 0.001;
	}
	return 0;
}

/* Column g's cell at mems[m] into buf: one run's miss ratio, or of several seeds' runs
 * the mean and the range; "^" when it rises above the smaller size's (bit 2 returned),
 * "!" when a run went over its memory, " k/N" when only k of the column's N seeds have
 * a ratio there (a seed replayed at other sizes, a run without its counters; bit 1). */
static int cell(const struct mr_curve *c, size_t g, const uint64_t *mems, size_t m, char *buf,
		size_t cap)
{
	struct mr_spread sp;
	int oom = 0, up = rises(c, g, mems, m), rc = up ? 2 : 0;
	size_t all = cli_curve_at(c, g, mems[m], &sp, &oom), seeds = cli_curve_seeds(c, g), l;

	if (!sp.n)
		snprintf(buf, cap, "-");
	else if (all == 1)
		snprintf(buf, cap, "%.3f%s%s", sp.mean, up ? "^" : "", oom ? "!" : "");
	else
		snprintf(buf, cap, "%.3f (%.3f-%.3f)%s%s", sp.mean, sp.min, sp.max, up ? "^" : "",
			 oom ? "!" : "");
	if (!sp.n || seeds < 2 || sp.n >= seeds)
		return rc;
	l = strlen(buf);
	snprintf(buf + l, cap > l ? cap - l : 0, " %zu/%zu", sp.n, seeds);
	return rc | 1;
}

/* The groups (policies, and what else sets a curve apart) in the order of their first
 * run, and the memory sizes ascending: the matrix's columns and rows. groups and mems
 * hold c->n each. */
static void matrix_axes(const struct mr_curve *c, size_t *groups, size_t *ng, uint64_t *mems,
			size_t *nm)
{
	*ng = *nm = 0;
	for (size_t i = 0; i < c->n; i++) {
		size_t k;

		for (k = 0; k < *ng && groups[k] != c->rows[i].group; k++)
			;
		if (k == *ng)
			groups[(*ng)++] = c->rows[i].group;
		for (k = 0; k < *nm && mems[k] != c->rows[i].memory_pages; k++)
			;
		if (k == *nm)
			mems[(*nm)++] = c->rows[i].memory_pages;
	}
	for (size_t a = 1; a < *nm; a++) /* memory ascending */
		for (size_t b = a; b > 0 && mems[b - 1] > mems[b]; b--) {
			uint64_t t = mems[b];

			mems[b] = mems[b - 1];
			mems[b - 1] = t;
		}
}

static void print_table(const struct mr_curve *c)
{
	size_t wl = 6, ng = 0, nm = 0;
	size_t *groups = calloc(c->n, sizeof(*groups));
	uint64_t *mems = calloc(c->n, sizeof(*mems));
	char lab[512], mem[32], ratio[96];
	int any_oom = 0, any_sampled = 0, partial = 0, rise = 0;

	if (!groups || !mems) {
		free(groups);
		free(mems);
		return;
	}
	printf("%s\n\n", definition);
	print_sampled(c);
	for (size_t i = 0; i < c->n; i++) {
		size_t l;

		label_of(&c->rows[i], lab, sizeof(lab));
		l = strlen(lab);
		if (l > wl)
			wl = l < 48 ? l : 48;
		any_oom |= c->rows[i].oom > 0;
	}
	for (size_t i = 0; i < c->n; i++)
		any_sampled |= c->rows[i].sample_den != 0;
	printf("%-*s %8s %11s %10s %11s %11s %13s %13s %9s %9s %5s", (int)wl, "policy", "memory",
	       "miss ratio", "misses", "references", "first_touch", "refaults_anon",
	       "refaults_file", "pswpin", "pswpout", "oom");
	if (any_sampled)
		printf(c->ntraces > 1 ? " %-14s" : " %s", "sampled");
	printf("%s\n", c->ntraces > 1 ? " trace" : "");
	for (size_t i = 0; i < c->n; i++) {
		const struct mr_curve_row *r = &c->rows[i];

		label_of(r, lab, sizeof(lab));
		fmt_ratio(r, ratio, sizeof(ratio));
		cli_print_text(lab, 0); /* stored text: escaped */
		printf("%*s %8s %11s %10llu %11llu %11llu %13llu %13llu %9llu %9llu %5llu",
		       (int)(wl > strlen(lab) ? wl - strlen(lab) : 0), "",
		       r->memory_pages ? mr_replay_format_memory(r->memory_pages, mem, sizeof(mem)) : "-",
		       ratio, (unsigned long long)r->misses, (unsigned long long)r->refs,
		       (unsigned long long)r->first_touch, (unsigned long long)r->refaults_anon,
		       (unsigned long long)r->refaults_file, (unsigned long long)r->pswpin,
		       (unsigned long long)r->pswpout, (unsigned long long)r->oom);
		if (any_sampled) {
			char smp[48] = "-";

			if (r->sample_den)
				snprintf(smp, sizeof(smp), "1/%u seed %llu", r->sample_den,
					 (unsigned long long)r->sample_seed);
			printf(c->ntraces > 1 ? " %-14s" : " %s", smp);
		}
		if (c->ntraces > 1) {
			putchar(' ');
			cli_print_text(r->trace, 0);
		}
		printf("\n");
	}
	/* the matrix: memory down, groups (policies) across */
	matrix_axes(c, groups, &ng, mems, &nm);
	if (nm > 1) {
		size_t *w = calloc(ng, sizeof(*w));

		printf("\nmiss ratio (%%) by memory size:\n%8s", "memory");
		for (size_t g = 0; w && g < ng; g++) {
			cli_curve_group_label(c, groups[g], lab, sizeof(lab));
			w[g] = strlen(lab) > 9 ? (strlen(lab) < 48 ? strlen(lab) : 48) : 9;
			for (size_t m = 0; m < nm; m++) { /* "mean (min-max)" cells are wider */
				cell(c, groups[g], mems, m, ratio, sizeof(ratio));
				if (strlen(ratio) > w[g])
					w[g] = strlen(ratio);
			}
			printf("  %*s", (int)(w[g] > strlen(lab) ? w[g] - strlen(lab) : 0), "");
			cli_print_text(lab, 0);
		}
		printf("\n");
		for (size_t m = 0; w && m < nm; m++) {
			printf("%8s", mems[m] ? mr_replay_format_memory(mems[m], mem, sizeof(mem)) : "-");
			for (size_t g = 0; g < ng; g++) {
				int k = cell(c, groups[g], mems, m, ratio, sizeof(ratio));

				partial |= k & 1;
				rise |= (k & 2) != 0;
				printf("  %*s", (int)w[g], ratio);
			}
			printf("\n");
		}
		free(w);
	}
	if (rise)
		printf("\n^: above the miss ratio at the next smaller size: more memory, more misses "
		       "(the curve is not monotonic there; docs/results-schema.md, \"curve\")\n");
	if (partial)
		printf("\nk/N: the mean and range of only k of the column's N seeds, the others "
		       "without a miss ratio at that size (replayed at other sizes, or their counters "
		       "missing)\n");
	if (nm > 1 && c->max_seeds > 1)
		printf("\nA column of several seeds (x N: the seeds of a sampled rate, merged results "
		       "files; ~xN: replay --vary N) gives their mean and, in brackets, the lowest and "
		       "highest seed: how far the sample's choice of pages, or the timing --vary draws, "
		       "moves the curve (docs/replay.md, \"Sampled replay\", \"--vary N\"). For a "
		       "sampled rate that range is not its error against a full replay: the scaled "
		       "machine's bias moves every seed alike, and a full curve may lie outside it.\n");
	if (any_oom)
		printf("\n! the run went over its memory (mr_oom > 0): it had more than its size, not "
		       "comparable (docs/replay.md)\n");
	if (c->missing_refs)
		printf("\n%zu run%s without mr_references (written by an older memreplay): no miss "
		       "ratio; replay the trace again for it\n", c->missing_refs,
		       c->missing_refs == 1 ? "" : "s");
	free(groups);
	free(mems);
}

static void print_csv(const struct mr_curve *c)
{
	char lab[512];

	printf("run,policy,spec,memory_pages,references,misses,miss_ratio,first_touch,"
	       "refaults_anon,refaults_file,pswpin,pswpout,evictions,oom,sample_den,sample_seed,"
	       "miss_ratio_raw,trace\n");
	for (size_t i = 0; i < c->n; i++) {
		const struct mr_curve_row *r = &c->rows[i];

		label_of(r, lab, sizeof(lab));
		printf("%lld,", (long long)r->run);
		cli_csv_field(lab);
		putchar(',');
		cli_csv_field(r->spec);
		putchar(',');
		if (r->memory_pages)
			printf("%llu", (unsigned long long)r->memory_pages);
		printf(",%llu,%llu,", (unsigned long long)r->refs, (unsigned long long)r->misses);
		if (!isnan(r->miss_ratio))
			printf("%.6f", r->miss_ratio);
		printf(",%llu,%llu,%llu,%llu,%llu,%llu,%llu,", (unsigned long long)r->first_touch,
		       (unsigned long long)r->refaults_anon, (unsigned long long)r->refaults_file,
		       (unsigned long long)r->pswpin, (unsigned long long)r->pswpout,
		       (unsigned long long)r->evictions, (unsigned long long)r->oom);
		/* a full replay: the sampling columns empty */
		if (r->sample_den)
			printf("%u,%llu", r->sample_den, (unsigned long long)r->sample_seed);
		else
			printf(",");
		putchar(',');
		if (!isnan(r->miss_ratio_raw))
			printf("%.6f", r->miss_ratio_raw);
		putchar(',');
		cli_csv_field(r->trace);
		putchar('\n');
	}
}

static void print_json(const struct mr_curve *c)
{
	size_t *groups = calloc(c->n ? c->n : 1, sizeof(*groups));
	uint64_t *mems = calloc(c->n ? c->n : 1, sizeof(*mems));
	char lab[512];

	printf("{\"definition\": ");
	cli_json_string(definition);
	printf(", \"runs\": [");
	for (size_t i = 0; i < c->n; i++) {
		const struct mr_curve_row *r = &c->rows[i];

		label_of(r, lab, sizeof(lab));
		printf("%s\n  {\"run\": %lld, \"policy\": ", i ? "," : "", (long long)r->run);
		cli_json_string(lab);
		printf(", \"spec\": ");
		cli_json_string(r->spec);
		if (r->memory_pages)
			printf(", \"memory_pages\": %llu", (unsigned long long)r->memory_pages);
		else
			printf(", \"memory_pages\": null");
		printf(", \"references\": %llu, \"misses\": %llu, \"miss_ratio\": ",
		       (unsigned long long)r->refs, (unsigned long long)r->misses);
		if (isnan(r->miss_ratio))
			printf("null");
		else
			printf("%.6f", r->miss_ratio);
		printf(", \"first_touch\": %llu, \"refaults_anon\": %llu, \"refaults_file\": %llu, "
		       "\"pswpin\": %llu, \"pswpout\": %llu, \"evictions\": %llu, \"oom\": %llu",
		       (unsigned long long)r->first_touch, (unsigned long long)r->refaults_anon,
		       (unsigned long long)r->refaults_file, (unsigned long long)r->pswpin,
		       (unsigned long long)r->pswpout, (unsigned long long)r->evictions,
		       (unsigned long long)r->oom);
		if (r->sample_den) {
			printf(", \"sample_den\": %u, \"sample_seed\": %llu, \"miss_ratio_raw\": ",
			       r->sample_den, (unsigned long long)r->sample_seed);
			if (isnan(r->miss_ratio_raw))
				printf("null");
			else
				printf("%.6f", r->miss_ratio_raw);
		} else
			printf(", \"sample_den\": null, \"sample_seed\": null");
		printf(", \"trace\": ");
		cli_json_string(r->trace);
		putchar('}');
	}
	/* the matrix the table prints: per group and size, the mean miss ratio of its seeds
	 * (one run: its own) with the lowest and highest, n of the group's seeds there */
	printf("\n], \"matrix\": [");
	if (groups && mems) {
		size_t ng, nm, first = 1;

		matrix_axes(c, groups, &ng, mems, &nm);
		for (size_t g = 0; g < ng; g++)
			for (size_t m = 0; m < nm; m++) {
				struct mr_spread sp;
				int oom = 0;

				cli_curve_at(c, groups[g], mems[m], &sp, &oom);
				if (!sp.n)
					continue;
				cli_curve_group_label(c, groups[g], lab, sizeof(lab));
				printf("%s\n  {\"group\": ", first ? "" : ",");
				cli_json_string(lab);
				if (mems[m])
					printf(", \"memory_pages\": %llu", (unsigned long long)mems[m]);
				else
					printf(", \"memory_pages\": null");
				/* fractions, as the runs' miss_ratio (the table prints %) */
				printf(", \"n\": %zu, \"seeds\": %zu, \"miss_ratio_mean\": %.6f, "
				       "\"miss_ratio_min\": %.6f, \"miss_ratio_max\": %.6f, \"oom\": %s, "
				       "\"rises\": %s}", sp.n, cli_curve_seeds(c, groups[g]), sp.mean / 100.0,
				       sp.min / 100.0, sp.max / 100.0, oom ? "true" : "false",
				       rises(c, groups[g], mems, m) ? "true" : "false");
				first = 0;
			}
	}
	free(groups);
	free(mems);
	printf("\n]}\n");
}

int cmd_curve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = "table", *svg = NULL;
	struct mr_results *res = NULL;
	struct mr_curve *c = NULL;
	struct mr_error err = { 0 };
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:o:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			format = optarg;
			if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json"))
				return cli_usage_error("curve", "--format '%s': use table, csv or json", optarg);
			break;
		case 'C':
			format = "csv";
			break;
		case 'J':
			format = "json";
			break;
		case 'o':
			svg = optarg;
			break;
		case 'h':
			return cli_help("curve");
		default:
			return cli_usage_error("curve", "bad option (see `memreplay curve --help`)");
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("curve", "name one results database");
	rc = mr_results_open(argv[optind], &res, &err);
	if (!rc)
		rc = mr_results_curve(res, &c, &err);
	if (!rc && svg) {
		rc = cli_out_ok(svg, argv[optind], &err);
		if (!rc)
			rc = cli_curve_svg(svg, c, argv[optind], &err);
	}
	if (rc) {
		mr_curve_free(c);
		mr_results_close(res);
		return cli_fail("curve", &err);
	}
	if (!strcmp(format, "csv"))
		print_csv(c);
	else if (!strcmp(format, "json"))
		print_json(c);
	else
		print_table(c);
	mr_curve_free(c);
	mr_results_close(res);
	return 0;
}
