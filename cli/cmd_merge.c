// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_merge.c - `memreplay merge -o ALL.db IN.db...`: join results files (the cells of a
 * sweep, docs/sweep.md) into one; the work is mr_results_merge() (replayer/merge.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mr_results.h"

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "keep-copies", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct mr_error err = { 0 };
	const char *out = NULL;
	uint64_t nruns;
	int c, quiet = 0;
	unsigned flags = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'K':
			flags |= MR_MERGE_KEEP_COPIES;
			break;
		case 'h':
			printf("usage: %s\n", cli_find("merge")->usage);
			return 0;
		default:
			return cli_usage_error("merge", "bad option");
		}
	}
	if (!out)
		return cli_usage_error("merge", "missing -o ALL.db (the merged results file)");
	if (optind == argc)
		return cli_usage_error("merge", "no input results files (e.g. DIR/cell-*.db)");
	if (mr_results_merge(out, (const char *const *)argv + optind, (size_t)(argc - optind), flags,
			     &nruns, &err)) {
		/* the library's messages say "merge: " for replay --sample-seed's merge */
		if (!strncmp(err.msg, "merge: ", 7))
			memmove(err.msg, err.msg + 7, strlen(err.msg + 7) + 1);
		return cli_fail("merge", &err);
	}
	if (!quiet)
		printf("merged %d files, %llu runs, into %s\n", argc - optind,
		       (unsigned long long)nruns, out);
	return 0;
}
