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

#include "cli.h"
#include "mr_recorder.h"
#include "mr_util.h"

#ifndef MR_SOURCE_DIR
#define MR_SOURCE_DIR "."
#endif
#ifndef MR_WORKLOAD_DIR
#define MR_WORKLOAD_DIR "workloads"
#endif

#define MAX_CASES 8

static volatile int stop_flag;

static void on_signal(int sig)
{
	stop_flag = sig;
}

static void print_note(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "bench record: %s\n", line);
}

static const char *mode_label(enum mr_bench_record_mode m)
{
	return m == MR_BENCH_ALONE ? "alone" : m == MR_BENCH_RAW_PERF ? "raw perf" : "record";
}

/* "  12.3" or "     -" for figures a mode does not have. */
static void fmt_or_dash(char *buf, size_t cap, int have, const char *fmt, double v)
{
	if (have)
		snprintf(buf, cap, fmt, v);
	else
		snprintf(buf, cap, "-");
}

static void print_table(const struct mr_bench_record_case *cases, size_t n)
{
	printf("%-18s %-8s %7s %6s %8s %8s %8s %8s %10s %10s %7s %6s %6s %6s %7s\n", "case",
	       "mode", "wall s", "spread", "work CPU", "rec CPU", "wall ovh", "CPU ovh",
	       "events", "events/s", "us/ev", "lost", "B/ev", "col/ev", "file/ev");
	for (size_t i = 0; i < n; i++) {
		const struct mr_bench_record_case *k = &cases[i];
		int alone = k->mode == MR_BENCH_ALONE, rec = k->mode == MR_BENCH_RECORD;
		char rcpu[16], wo[16], co[16], ev[24], evs[16], us[16], lost[24], b[16], p[16],
			f[16];

		fmt_or_dash(rcpu, sizeof(rcpu), !alone, "%.3f", k->rec_cpu_s);
		fmt_or_dash(wo, sizeof(wo), !alone, "%+.1f%%", 100 * k->overhead);
		fmt_or_dash(co, sizeof(co), !alone, "%+.1f%%", 100 * k->cpu_overhead);
		fmt_or_dash(ev, sizeof(ev), !alone, "%.0f", (double)k->events);
		fmt_or_dash(evs, sizeof(evs), !alone, "%.3g", k->events_per_s);
		fmt_or_dash(us, sizeof(us), !alone, "%.2f", k->rec_us_per_event);
		fmt_or_dash(lost, sizeof(lost), !alone, "%.0f", (double)k->lost);
		fmt_or_dash(b, sizeof(b), rec, "%.3f", k->chunk_bytes_per_event);
		fmt_or_dash(p, sizeof(p), rec, "%.2f", k->payload_bytes_per_event);
		fmt_or_dash(f, sizeof(f), rec, "%.2f", k->file_bytes_per_event);
		printf("%-18s %-8s %7.3f %5.1f%% %8.3f %8s %8s %8s %10s %10s %7s %6s %6s %6s %7s\n",
		       k->name, mode_label(k->mode), k->wall_s,
		       k->wall_s > 0 ? 50.0 * (k->wall_max_s - k->wall_min_s) / k->wall_s : 0.0,
		       k->work_cpu_s, rcpu, wo, co, ev, evs, us, lost, b, p, f);
	}
}

static const struct mr_bench_record_case *find_case(const struct mr_bench_record_case *c,
						    size_t n, const char *prefix,
						    enum mr_bench_record_mode m)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].mode == m && !strncmp(c[i].name, prefix, strlen(prefix)))
			return &c[i];
	return NULL;
}

static void print_targets(const struct mr_bench_record_case *c, size_t n)
{
	const struct mr_bench_record_case *b = find_case(c, n, "build", MR_BENCH_RECORD);
	const struct mr_bench_record_case *raw = find_case(c, n, "faults", MR_BENCH_RAW_PERF);
	const struct mr_bench_record_case *rec = find_case(c, n, "faults", MR_BENCH_RECORD);

	printf("targets:\n");
	if (b)
		printf("  build, wall overhead <= %.0f %%:          %+.1f %% (CPU %+.1f %%)   %s\n",
		       100 * MR_BENCH_RECORD_MAX_OVERHEAD, 100 * b->overhead,
		       100 * b->cpu_overhead,
		       b->overhead <= MR_BENCH_RECORD_MAX_OVERHEAD ? "met" : "NOT met");
	else
		printf("  build, wall overhead <= %.0f %%:          not run (--no-build)\n",
		       100 * MR_BENCH_RECORD_MAX_OVERHEAD);
	if (raw && rec) {
		/* Half the run-to-run range of each, as the noise band. */
		double noise = (raw->wall_max_s - raw->wall_min_s + rec->wall_max_s -
				rec->wall_min_s) / 2;
		double excess = rec->wall_s - raw->wall_s;

		printf("  faults, record no worse than raw perf: wall %+.1f %% vs %+.1f %%, "
		       "recorder %.2f vs drainer %.2f us/event   %s\n", 100 * rec->overhead,
		       100 * raw->overhead, rec->rec_us_per_event, raw->rec_us_per_event,
		       excess <= 0 ? "met" : excess <= noise ? "met within run-to-run noise" :
		       "NOT met");
		printf("  faults, stored <= %.0f byte/event:          %.3f B/event "
		       "(%.3f B per fault)   %s\n", MR_BENCH_RECORD_MAX_BYTES_PER_EVENT,
		       rec->chunk_bytes_per_event, rec->faults ? rec->chunk_bytes_per_event *
		       (double)rec->events / (double)rec->faults : 0.0,
		       rec->chunk_bytes_per_event <= MR_BENCH_RECORD_MAX_BYTES_PER_EVENT ? "met" :
		       "NOT met");
		if (rec->lost || raw->lost)
			printf("  loss: %llu samples lost by the recorder, %llu by raw perf "
			       "(events/s above is then not sustained)\n",
			       (unsigned long long)rec->lost, (unsigned long long)raw->lost);
	} else {
		printf("  faults targets:                         not run (--no-faults)\n");
	}
}

int cmd_bench_record(int argc, char **argv)
{
	enum { O_NOBUILD = 256, O_NOFAULTS, O_SRC, O_WORKLOAD };
	static const struct option opts[] = { { "size", required_argument, NULL, 's' },
					      { "runs", required_argument, NULL, 'r' },
					      { "src", required_argument, NULL, O_SRC },
					      { "workload", required_argument, NULL, O_WORKLOAD },
					      { "no-build", no_argument, NULL, O_NOBUILD },
					      { "no-faults", no_argument, NULL, O_NOFAULTS },
					      { "dir", required_argument, NULL, 'd' },
					      { "keep", no_argument, NULL, 'k' },
					      { NULL, 0, NULL, 0 } };
	struct mr_bench_record_opts o = { .note = print_note, .src = MR_SOURCE_DIR,
					  .workload = MR_WORKLOAD_DIR "/wl_faultbench",
					  .stop = &stop_flag };
	struct mr_bench_record_case cases[MAX_CASES];
	struct mr_error err = { 0 };
	struct sigaction sa;
	uint64_t runs;
	size_t n = 0;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:r:d:k", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (mr_parse_pages(optarg, MR_PAGE_SIZE, 0, &o.pages, &err))
				return cli_fail("bench", &err);
			break;
		case 'r':
			if (mr_parse_count(optarg, &runs, &err))
				return cli_fail("bench", &err);
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
	if (optind < argc)
		return cli_usage_error("bench", "unexpected argument '%s'", argv[optind]);
	if (o.no_build && o.no_faults)
		return cli_usage_error("bench", "--no-build and --no-faults leave nothing to run");
	if (!o.dir)
		o.dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

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

	print_table(cases, n);
	printf("wall = workload exec to exit, median of %d run%s (spread = half the min-max "
	       "range); work CPU = the\n"
	       "workload's user+sys; rec CPU = recorder's (record) or ring drainer's (raw "
	       "perf) own CPU;\n"
	       "wall/CPU ovh = against alone (CPU: work + rec CPU over alone work CPU); "
	       "us/ev = rec CPU per event;\n"
	       "events = stored events (record: FAULT + ACCESS per fault, plus mmap/page-cache/"
	       "young) or fault\n"
	       "samples (raw perf); lost = PERF_FORMAT_LOST, worst run; B/ev = stored (LZ4) "
	       "chunk bytes per event,\n"
	       "col/ev = chunks.payload_bytes (columns before LZ4), file/ev = whole store file. "
	       "raw perf = the recorder's\n"
	       "fault events drained and counted only. On a 2-CPU machine the recorder and the "
	       "workload compete.\n", cases[0].runs, cases[0].runs == 1 ? "" : "s");
	print_targets(cases, n);
	return 0;
}
