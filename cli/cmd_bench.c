// SPDX-License-Identifier: GPL-2.0
/* cmd_bench.c - `memreplay bench store`: print the store benchmark's figures
 * (mr_bench_store); `bench replay` and `bench record` go to their own files. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_bench.h"
#include "mr_util.h"

static char report[MR_BENCH_REPORT_MAX];

int cli_bench_opt(int c, const char *arg, struct cli_bench_opts *b)
{
	struct mr_error err = { 0 };

	switch (c) {
	case 'e': /* 0 is "the default" inside: given, it would run 50M events */
		if (mr_parse_count(arg, &b->events, &err))
			return cli_usage_error("bench", "--events: %s", err.msg);
		return b->events ? 0 : cli_usage_error("bench", "--events 0: give a count of 1 or more");
	case 'p':
	case 's':
		return mr_parse_pages(arg, MR_PAGE_SIZE, 0, &b->pages, &err) ?
			       cli_usage_error("bench", "--%s: %s", c == 'p' ? "pages" : "size", err.msg) : 0;
	case 'd':
		b->dir = arg;
		return 0;
	case 'k':
		b->keep = 1;
		return 0;
	}
	return -1;
}

const char *cli_bench_dir(const struct cli_bench_opts *b)
{
	if (b->dir)
		return b->dir;
	return getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

static int bench_store(int argc, char **argv)
{
	static const struct option opts[] = { { "events", required_argument, NULL, 'e' },
					      { "pages", required_argument, NULL, 'p' },
					      { "dir", required_argument, NULL, 'd' },
					      { "keep", no_argument, NULL, 'k' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	struct cli_bench_opts b = { 0 };
	struct mr_bench_store_opts o;
	struct mr_bench_store_case cases[8];
	struct mr_error err = { 0 };
	size_t n;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:d:kh", opts, NULL)) != -1) {
		if (c == 'h')
			return cli_help("bench");
		rc = cli_bench_opt(c, optarg, &b);
		if (rc < 0)
			return cli_usage_error("bench", "bad option");
		if (rc)
			return rc;
	}
	if (optind != argc)
		return cli_usage_error("bench", "store takes no '%s'", argv[optind]);
	o = (struct mr_bench_store_opts){ .dir = cli_bench_dir(&b), .events = b.events,
					  .pages = b.pages, .keep = b.keep };
	fprintf(stderr, "memreplay bench store: generating and measuring (zipf %s events)...\n",
		o.events ? "custom" : "50M");
	if (mr_bench_store(&o, cases, 8, &n, &err))
		return cli_fail("bench", &err);
	mr_bench_store_format(cases, n, report, sizeof(report));
	fputs(report, stdout);
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("bench", "name a benchmark: store, replay, record or sample");
	if (!strcmp(argv[1], "store"))
		return bench_store(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return cmd_bench_replay(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return cmd_bench_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sample"))
		return cmd_bench_sample(argc - 1, argv + 1);
	return cli_usage_error("bench", "unknown benchmark '%s' (available: store, replay, record, sample)",
			       argv[1]);
}
