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
#include "mr_replay.h"
#include "mr_util.h"

#define MAX_POLICIES 16

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
					      { NULL, 0, NULL, 0 } };
	const char *pol[MAX_POLICIES];
	struct mr_bench_replay_opts o = { .policies = pol, .note = print_note };
	struct mr_bench_replay_case cases[64];
	struct mr_bench_memory mem;
	struct mr_error err = { 0 };
	size_t n;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:p:P:d:k", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (mr_parse_count(optarg, &o.events, &err))
				return cli_fail("bench", &err);
			break;
		case 'p':
			if (mr_parse_pages(optarg, MR_PAGE_SIZE, 0, &o.pages, &err))
				return cli_fail("bench", &err);
			break;
		case 'P':
			if (o.npolicies == MAX_POLICIES)
				return cli_usage_error("bench", "at most %d policies", MAX_POLICIES);
			pol[o.npolicies++] = optarg;
			break;
		case 'd':
			o.dir = optarg;
			break;
		case 'k':
			o.keep = 1;
			break;
		default:
			return cli_usage_error("bench", "bad option");
		}
	}
	if (!o.dir)
		o.dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	if (mr_bench_replay(&o, cases, 64, &n, &err))
		return cli_fail("bench", &err);
	if (mr_bench_memory(&mem, &err))
		return cli_fail("bench", &err);
	printf("memory (%llu MiB, as the per-page arrays are mapped): a random cache-line load costs "
	       "%.0f ns when\nthe previous load gives its address (a list walk), %.1f ns when "
	       "the addresses are known ahead\n\n",
	       (unsigned long long)(mem.bytes >> 20), mem.dependent_ns, mem.independent_ns);
	printf("%-34s %10s %8s %9s %10s %7s %9s %9s %9s %7s\n", "case", "events", "replay s",
	       "M ev/s", "machine", "load s", "peak RSS", "floor", "B/page", "ratio");
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_replay_case *k = &cases[i];
		char ratio[16] = "";

		if (k->ratio > 0)
			snprintf(ratio, sizeof(ratio), "%.2f", k->ratio);
		if (!k->floor_rss) { /* a case without a floor run (next-use computed) */
			printf("%-34s %10llu %8.2f %9.1f %10.1f %7.2f %5llu MiB %9s %9s %7s\n",
			       k->name, (unsigned long long)k->events, k->seconds, k->mevps,
			       k->machine_mevps, k->load_s, (unsigned long long)(k->peak_rss >> 20),
			       "-", "-", ratio);
			continue;
		}
		printf("%-34s %10llu %8.2f %9.1f %10.1f %7.2f %5llu MiB %5llu MiB %9.1f %7s\n",
		       k->name, (unsigned long long)k->events, k->seconds, k->mevps, k->machine_mevps,
		       k->load_s, (unsigned long long)(k->peak_rss >> 20),
		       (unsigned long long)(k->floor_rss >> 20), k->bytes_per_page, ratio);
	}
	printf("M ev/s = events / replay wall time (decode included; one thread for single runs,\n"
	       "\"threads\": the decode on a second thread, as `memreplay replay` runs one policy);\n"
	       "machine = policy-events / the machines' own time (worker time, summed);\n"
	       "load = reading the trace's tables and sizing the machines; peak RSS of the child\n"
	       "process that ran the case; floor = peak RSS of the same case on a 4096-page trace\n"
	       "(program, SQLite, decode buffers); B/page = (peak RSS - floor) / distinct pages;\n"
	       "@100%%, no reclaim = the first policy with memory for every page: the decode, a\n"
	       "fault per page and a PTE young bit per access, the ceiling for any memory size;\n"
	       "ratio = one pass "
	       "(load + replay) over the same summed for the single runs of those policies;\n"
	       "\"next-use computed\": the first replay of the trace by a policy that needs next-use\n"
	       "times (opt), which computes them and keeps them in the cache; the other rows reuse\n"
	       "them, as every later replay of the same trace does (docs/replay.md)\n");
	return 0;
}
