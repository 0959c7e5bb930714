// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_bench_record.c - `memreplay bench record`: print the recorder benchmark's figures
 * (mr_bench_record) and whether the targets are met. cmd_bench.c dispatches
 * `bench record ...` here. The default workload and source tree are this build's
 * (MR_WORKLOAD_DIR, MR_SOURCE_DIR from CMake).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mr_bench.h"
#include "mr_util.h"

#ifndef MR_SOURCE_DIR
#define MR_SOURCE_DIR "."
#endif
#ifndef MR_WORKLOAD_DIR
#define MR_WORKLOAD_DIR "workloads"
#endif

#define MAX_CASES 10

static volatile int stop_flag;
static char report[MR_BENCH_REPORT_MAX];

static void on_signal(int sig)
{
	stop_flag = sig;
}

static void print_note(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "bench record: %s\n", line);
}

/* The perf tool for the "perf record" baseline: `perf` in PATH, else /usr/bin/perf (which
 * may be missing: the benchmark then says so in that row). */
static const char *find_perf(char *buf, size_t cap)
{
	const char *path = getenv("PATH");

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, cap, "%.*s/perf", (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return buf;
		path += n + (path[n] == ':');
	}
	return "/usr/bin/perf";
}

int cmd_bench_record(int argc, char **argv)
{
	enum { O_NOBUILD = 256, O_NOFAULTS, O_SRC, O_WORKLOAD, O_PERF, O_NOPERF, O_NOFIXED, O_SORT };
	static const struct option opts[] = { { "size", required_argument, NULL, 's' },
					      { "runs", required_argument, NULL, 'r' },
					      { "src", required_argument, NULL, O_SRC },
					      { "workload", required_argument, NULL, O_WORKLOAD },
					      { "no-build", no_argument, NULL, O_NOBUILD },
					      { "no-faults", no_argument, NULL, O_NOFAULTS },
					      { "no-fixed", no_argument, NULL, O_NOFIXED },
					      { "sort", no_argument, NULL, O_SORT },
					      { "dir", required_argument, NULL, 'd' },
					      { "keep", no_argument, NULL, 'k' },
					      { "help", no_argument, NULL, 'h' },
					      { "perf", required_argument, NULL, O_PERF },
					      { "no-perf", no_argument, NULL, O_NOPERF },
					      { NULL, 0, NULL, 0 } };
	struct mr_bench_record_opts o = { .note = print_note, .src = MR_SOURCE_DIR,
					  .workload = MR_WORKLOAD_DIR "/wl_faultbench",
					  .stop = &stop_flag };
	struct mr_bench_record_case cases[MAX_CASES];
	struct cli_bench_opts b = { 0 };
	struct mr_error err = { 0 };
	struct sigaction sa;
	char perf[4096];
	int no_perf = 0;
	uint64_t runs;
	size_t n = 0;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:r:d:kh", opts, NULL)) != -1) {
		if (c == 'h')
			return cli_help("bench");
		rc = cli_bench_opt(c, optarg, &b);
		if (rc > 0)
			return rc;
		if (rc == 0)
			continue;
		switch (c) {
		case 'r':
			if (mr_parse_count(optarg, &runs, &err))
				return cli_usage_error("bench", "--runs: %s", err.msg);
			if (runs < 1 || runs > 64)
				return cli_usage_error("bench", "--runs %s: 1 to 64", optarg);
			o.runs = (int)runs;
			break;
		case O_SRC:
			o.src = optarg;
			break;
		case O_WORKLOAD:
			o.workload = optarg;
			break;
		case O_NOBUILD:
			o.no_build = 1;
			break;
		case O_NOFAULTS:
			o.no_faults = 1;
			break;
		case O_NOFIXED:
			o.no_fixed = 1;
			break;
		case O_SORT:
			o.sort = 1;
			break;
		case O_PERF:
			o.perf = optarg;
			break;
		case O_NOPERF:
			no_perf = 1;
			break;
		default:
			return cli_usage_error("bench", "bad option");
		}
	}
	if (optind < argc)
		return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (o.no_build && o.no_faults && o.no_fixed && !o.sort)
		return cli_usage_error("bench", "--no-build, --no-faults and --no-fixed leave "
				       "nothing to run");
	o.dir = cli_bench_dir(&b);
	o.pages = b.pages;
	o.keep = b.keep;
	if (!o.perf && !no_perf)
		o.perf = find_perf(perf, sizeof(perf));
	else if (no_perf)
		o.perf = NULL;

	/* No SA_RESTART: waits return EINTR and see the flag. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = mr_bench_record(&o, cases, MAX_CASES, &n, &err);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (rc)
		return cli_fail("bench", &err);
	mr_bench_record_format(cases, n, report, sizeof(report));
	fputs(report, stdout);
	return 0;
}
