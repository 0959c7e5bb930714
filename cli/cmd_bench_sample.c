// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_bench_sample.c - `memreplay bench sample`: print the sampled replay's error and
 * speed against full replays (mr_bench_sample). cmd_bench.c dispatches
 * `bench sample ...` here.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_bench.h"
#include "mr_replay.h"
#include "mr_util.h"

#define MAX_TRACES 32

static char report[MR_BENCH_REPORT_MAX];

static void print_note(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "bench sample: %s\n", line);
}

int cmd_bench_sample(int argc, char **argv)
{
	enum { O_TRACE = 256, O_RATE, O_NO_ZIPF, O_SEEDS, O_UNIT };
	static const struct option opts[] = { { "events", required_argument, NULL, 'e' },
					      { "pages", required_argument, NULL, 'p' },
					      { "trace", required_argument, NULL, O_TRACE },
					      { "rate", required_argument, NULL, O_RATE },
					      { "no-zipf", no_argument, NULL, O_NO_ZIPF },
					      { "seeds", required_argument, NULL, O_SEEDS },
					      { "unit", required_argument, NULL, O_UNIT },
					      { "dir", required_argument, NULL, 'd' },
					      { "keep", no_argument, NULL, 'k' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	const char *traces[MAX_TRACES];
	struct mr_bench_sample_opts o = { .traces = traces, .note = print_note };
	struct mr_bench_sample_case cases[3 * (MAX_TRACES + 1)];
	struct cli_bench_opts b = { 0 };
	struct mr_error err = { 0 };
	size_t n;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:d:kh", opts, NULL)) != -1) {
		if (c == 'h')
			return cli_help("bench");
		if (c == O_TRACE) {
			if (o.ntraces == MAX_TRACES)
				return cli_usage_error("bench", "at most %d traces", MAX_TRACES);
			traces[o.ntraces++] = optarg;
			continue;
		}
		if (c == O_RATE) {
			if (mr_replay_parse_sample(optarg, &o.den, &err))
				return cli_bad_option("bench", &err);
			continue;
		}
		if (c == O_NO_ZIPF) {
			o.no_zipf = 1;
			continue;
		}
		if (c == O_SEEDS) {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > 64)
				return cli_usage_error("bench", "--seeds '%s': give a count from 1 to 64",
						       optarg);
			o.seeds = (uint32_t)v;
			continue;
		}
		if (c == O_UNIT) {
			if (mr_replay_parse_sample_unit(optarg, &o.unit, &err))
				return cli_bad_option("bench", &err);
			continue;
		}
		rc = cli_bench_opt(c, optarg, &b);
		if (rc < 0)
			return cli_usage_error("bench", "bad option");
		if (rc)
			return rc;
	}
	if (optind != argc)
		return cli_usage_error("bench", "sample takes traces with --trace, not '%s'", argv[optind]);
	if (o.no_zipf && !o.ntraces)
		return cli_usage_error("bench", "--no-zipf and no --trace: nothing to measure");
	o.dir = cli_bench_dir(&b);
	o.events = b.events;
	o.pages = b.pages;
	o.keep = b.keep;
	if (mr_bench_sample(&o, cases, sizeof(cases) / sizeof(cases[0]), &n, &err))
		return cli_fail("bench", &err);
	mr_bench_sample_format(cases, n, report, sizeof(report));
	fputs(report, stdout);
	return 0;
}
