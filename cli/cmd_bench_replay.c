// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_bench_replay.c - `memreplay bench replay`: print the replay benchmark's figures
 * (mr_bench_replay). cmd_bench.c dispatches `bench replay ...` here.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_bench.h"
#include "mr_util.h"

#define MAX_POLICIES 16

static char report[MR_BENCH_REPORT_MAX];

static void print_note(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "bench replay: %s\n", line);
}

int cmd_bench_replay(int argc, char **argv)
{
	static const struct option opts[] = { { "events", required_argument, NULL, 'e' },
					      { "pages", required_argument, NULL, 'p' },
					      { "policy", required_argument, NULL, 'P' },
					      { "dir", required_argument, NULL, 'd' },
					      { "keep", no_argument, NULL, 'k' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	const char *pol[MAX_POLICIES];
	struct mr_bench_replay_opts o = { .policies = pol, .note = print_note };
	struct mr_bench_replay_case cases[64];
	struct mr_bench_memory mem;
	struct cli_bench_opts b = { 0 };
	struct mr_error err = { 0 };
	size_t n;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:P:d:kh", opts, NULL)) != -1) {
		if (c == 'h')
			return cli_help("bench");
		if (c == 'P') {
			if (o.npolicies == MAX_POLICIES)
				return cli_usage_error("bench", "at most %d policies", MAX_POLICIES);
			pol[o.npolicies++] = optarg;
			continue;
		}
		rc = cli_bench_opt(c, optarg, &b);
		if (rc < 0)
			return cli_usage_error("bench", "bad option");
		if (rc)
			return rc;
	}
	if (optind != argc)
		return cli_usage_error("bench", "replay takes no '%s'", argv[optind]);
	o.dir = cli_bench_dir(&b);
	o.events = b.events;
	o.pages = b.pages;
	o.keep = b.keep;
	if (mr_bench_replay(&o, cases, 64, &n, &err))
		return cli_fail("bench", &err);
	if (mr_bench_memory(&mem, &err))
		return cli_fail("bench", &err);
	mr_bench_replay_format(&mem, cases, n, report, sizeof(report));
	fputs(report, stdout);
	return 0;
}
