// SPDX-License-Identifier: GPL-2.0
/* cmd_bench.c - `memreplay bench store`: print the store benchmark's figures. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_bench.h"
#include "mr_util.h"

static int bench_store(int argc, char **argv)
{
	static const struct option opts[] = { { "events", required_argument, NULL, 'e' },
					      { "pages", required_argument, NULL, 'p' },
					      { "dir", required_argument, NULL, 'd' },
					      { "keep", no_argument, NULL, 'k' },
					      { NULL, 0, NULL, 0 } };
	struct mr_bench_store_opts o = { .dir = NULL };
	struct mr_bench_store_case cases[8];
	struct mr_error err = { 0 };
	size_t n;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:p:d:k", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (mr_parse_count(optarg, &o.events, &err))
				return cli_fail("bench", &err);
			break;
		case 'p':
			if (mr_parse_pages(optarg, MR_PAGE_SIZE, 0, &o.pages, &err))
				return cli_fail("bench", &err);
			break;
		case 'd': o.dir = optarg; break;
		case 'k': o.keep = 1; break;
		default: return cli_usage_error("bench", "bad option");
		}
	}
	if (!o.dir)
		o.dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	fprintf(stderr, "memreplay bench store: generating and measuring (zipf %s events)...\n",
		o.events ? "custom" : "50M");
	if (mr_bench_store(&o, cases, 8, &n, &err))
		return cli_fail("bench", &err);
	printf("%-10s %12s %7s %9s %9s %8s %10s %10s %10s %9s\n", "trace", "events", "chunks",
	       "bytes/ev", "col/ev", "write s", "write M/s", "decode M/s", "read M/s", "wr RSS");
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_store_case *k = &cases[i];

		printf("%-10s %12llu %7llu %9.3f %9.3f %8.2f %10.2f %10.1f %10.1f %6llu MiB\n",
		       k->name, (unsigned long long)k->events, (unsigned long long)k->chunks,
		       k->bytes_per_event, k->payload_per_event, k->write_s,
		       (double)k->events / k->write_s / 1e6, k->decode_mevps, k->read_mevps,
		       (unsigned long long)(k->write_peak_rss >> 20));
	}
	printf("writer buffers: %llu bytes for one stream (fixed by the chunk size, independent of trace length)\n",
	       (unsigned long long)cases[0].writer_buffer_bytes);
	printf("bytes/ev = LZ4 chunk bytes per event; col/ev = column encoding before LZ4;\n"
	       "write = generate + encode + commit; decode = pure codec from memory, one core;\n"
	       "read = reader over the SQLite file; wr RSS = peak RSS of the generating process\n"
	       "(generator state + writer; compare runs with --events to see it does not grow)\n");
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	if (argc < 2)
		return cli_usage_error("bench", "name a benchmark: store, replay or record");
	if (!strcmp(argv[1], "store"))
		return bench_store(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return cmd_bench_replay(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return cmd_bench_record(argc - 1, argv + 1);
	return cli_usage_error("bench", "unknown benchmark '%s' (available: store, replay, record)",
			       argv[1]);
}
