// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_record.c - `memreplay record`: argv to struct mr_record_opts, signal handling,
 * one mr_record_run() call, and the summary. All recording logic is in recorder/.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "mr_recorder.h"
#include "mr_store.h"
#include "mr_util.h"

int cmd_record(int argc, char **argv); /* also in cli.h once registered */

static volatile int stop_flag;

static void on_signal(int sig)
{
	stop_flag = sig;
}

/* The shortest --duration or --young-interval that can be meant: the recorder polls its
 * rings every 50 ms, a young-bit scan takes longer than this. */
#define MIN_RECORD_NS 1000000ull

static void print_summary(const char *out, const struct mr_record_stats *st)
{
	char b1[32], b2[32];
	double wall = (double)st->wall_ns / 1e9, cpu = (double)st->cpu_ns / 1e9;

	fprintf(stderr, "memreplay record: %s\n", out);
	fprintf(stderr, "  duration     %.3f s, %d ring%s\n", wall, st->nrings,
		st->nrings == 1 ? "" : "s");
	fprintf(stderr, "  events       %llu (%.0f/s) from %llu perf records\n",
		(unsigned long long)st->events, wall > 0 ? (double)st->events / wall : 0.0,
		(unsigned long long)st->samples);
	for (int k = 0; k < MR_EV_NR_KINDS; k++)
		if (st->by_kind[k])
			fprintf(stderr, "    %-12s %llu\n", mr_event_kind_name(k),
				(unsigned long long)st->by_kind[k]);
	if (st->hw_samples)
		fprintf(stderr, "  hwsample     %llu samples: %llu accesses, %llu without a data "
			"address, %llu with a kernel one (dropped)\n",
			(unsigned long long)st->hw_samples, (unsigned long long)st->hw_accesses,
			(unsigned long long)st->hw_no_addr,
			(unsigned long long)st->hw_kernel_addr);
	fprintf(stderr, "  lost         %llu%s\n", (unsigned long long)st->lost,
		st->lost ? " (counted exactly per ring; try a larger --ring-size)" : "");
	fprintf(stderr, "  tables       %llu pages, %llu tasks, %llu files, %llu vmas\n",
		(unsigned long long)st->pages, (unsigned long long)st->tasks,
		(unsigned long long)st->files, (unsigned long long)st->vmas);
	fprintf(stderr, "  written      %s in chunks, %s on disk (%.1f bytes/event)\n",
		mr_format_bytes(st->bytes_written, b1, sizeof(b1)),
		mr_format_bytes(st->file_bytes, b2, sizeof(b2)),
		st->events ? (double)st->file_bytes / (double)st->events : 0.0);
	fprintf(stderr, "  overhead     recorder CPU %.3f s = %.1f%% of one CPU over the "
		"recording, %.2f us per event; the traced tasks also pay the kernel's "
		"sampling cost per fault\n", cpu, wall > 0 ? 100.0 * cpu / wall : 0.0,
		st->events ? (double)st->cpu_ns / 1e3 / (double)st->events : 0.0);
	if (st->tracefs[0])
		fprintf(stderr, "  tracefs      %s\n", st->tracefs);
	fprintf(stderr, "  sources:\n");
	for (int i = 0; i < st->nsrc; i++)
		fprintf(stderr, "    %-10s %s%s%s\n", st->src[i].name, st->src[i].on ? "on" : "off",
			st->src[i].why[0] ? ": " : "", st->src[i].why);
	if (st->cmd_status >= 0) {
		if (WIFEXITED(st->cmd_status))
			fprintf(stderr, "  command      exited with %d\n", WEXITSTATUS(st->cmd_status));
		else if (WIFSIGNALED(st->cmd_status))
			fprintf(stderr, "  command      killed by signal %d\n",
				WTERMSIG(st->cmd_status));
	}
}

int cmd_record(int argc, char **argv)
{
	enum { O_CGROUP = 256, O_DURATION, O_SOURCES, O_YOUNG, O_YINT, O_RING, O_ANON, O_FORCE,
	       O_HW_EVENT, O_HW_PERIOD };
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cgroup", required_argument, NULL, O_CGROUP },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "sources", required_argument, NULL, O_SOURCES },
		{ "young-scan", required_argument, NULL, O_YOUNG },
		{ "young-interval", required_argument, NULL, O_YINT },
		{ "ring-size", required_argument, NULL, O_RING },
		{ "hw-event", required_argument, NULL, O_HW_EVENT },
		{ "hw-period", required_argument, NULL, O_HW_PERIOD },
		{ "anonymize", no_argument, NULL, O_ANON },
		{ "force", no_argument, NULL, O_FORCE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mr_record_opts o = { .target = MR_TARGET_COMMAND };
	struct mr_record_stats st;
	struct mr_error err = { 0 };
	struct sigaction sa;
	int pids[64], npids = 0, all = 0, quiet = 0, c, rc;
	const char *cg = NULL;
	uint64_t pages;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:p:aqh", lo, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case 'p': {
			char buf[256], *tok, *save = NULL;

			snprintf(buf, sizeof(buf), "%s", optarg);
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				char *end;
				long v = strtol(tok, &end, 10);

				if (*end || v <= 0 || npids >= 64)
					return cli_usage_error("record", "bad pid '%s'", tok);
				pids[npids++] = (int)v;
			}
			break;
		}
		case 'a':
			all = 1;
			break;
		case O_CGROUP:
			cg = optarg;
			break;
		case O_DURATION:
			if (cli_parse_duration("record", "--duration", optarg, MIN_RECORD_NS,
					       &o.duration_ns))
				return 2;
			break;
		case O_SOURCES:
			if (mr_record_parse_sources(optarg, &o.sources, NULL)) {
				char names[MR_RECORD_SOURCE_NAMES_MAX];

				mr_record_source_names(names, sizeof(names));
				return cli_usage_error("record", "bad --sources '%s' (comma list of "
						       "%s; -NAME takes one away: default,-refault)",
						       optarg, names);
			}
			break;
		case O_YOUNG:
			if (!strcmp(optarg, "auto"))
				o.young = MR_YOUNG_AUTO;
			else if (!strcmp(optarg, "page_idle"))
				o.young = MR_YOUNG_PAGE_IDLE;
			else if (!strcmp(optarg, "damon"))
				o.young = MR_YOUNG_DAMON;
			else if (!strcmp(optarg, "clear_refs"))
				o.young = MR_YOUNG_CLEAR_REFS;
			else if (!strcmp(optarg, "soft_dirty"))
				o.young = MR_YOUNG_SOFT_DIRTY;
			else if (!strcmp(optarg, "off"))
				o.young = MR_YOUNG_OFF;
			else
				return cli_usage_error("record", "bad --young-scan '%s' (auto, "
						       "soft_dirty, clear_refs, page_idle, damon, off)", optarg);
			break;
		case O_YINT:
			if (cli_parse_duration("record", "--young-interval", optarg, MIN_RECORD_NS,
					       &o.young_interval_ns))
				return 2;
			if (!o.young_interval_ns)
				return cli_usage_error("record", "bad --young-interval '%s'", optarg);
			break;
		case O_RING:
			if (mr_parse_pages(optarg, MR_PAGE_SIZE, 0, &pages, &err))
				return cli_usage_error("record", "--ring-size: %s", err.msg);
			if (pages & (pages - 1) || pages > (1u << 20))
				return cli_usage_error("record", "--ring-size %s: must be a power of "
						       "two number of pages (4K, 8K, ... 4G)", optarg);
			o.ring_pages = (uint32_t)pages;
			break;
		case O_HW_EVENT:
			if (!optarg[0])
				return cli_usage_error("record", "--hw-event: empty event list");
			o.hw_events = optarg;
			break;
		case O_HW_PERIOD: {
			uint64_t v;

			/* a count, as every count option takes it (100K = 100,000) */
			if (mr_parse_count(optarg, &v, &err) || !v)
				return cli_usage_error("record", "bad --hw-period '%s' (a positive "
						       "count of events per sample: 100003, 10K)", optarg);
			o.hw_period = v;
			break;
		}
		case O_ANON:
			o.anonymize = 1;
			break;
		case O_FORCE:
			o.overwrite = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			return cli_help("record");
		default:
			return cli_usage_error("record", "unknown option");
		}
	}
	if (!o.output)
		return cli_usage_error("record", "missing -o TRACE.db");
	if ((optind < argc) + (npids > 0) + all + (cg != NULL) != 1)
		return cli_usage_error("record", "give exactly one of: -- COMMAND, -p PID, "
				       "--cgroup PATH, -a");
	if ((o.hw_events || o.hw_period) && o.sources && !(o.sources & MR_RSRC_HWSAMPLE))
		return cli_usage_error("record", "--hw-event / --hw-period need hwsample in "
				       "--sources");
	if (npids) {
		o.target = MR_TARGET_PIDS;
		o.pids = pids;
		o.n_pids = npids;
	} else if (all) {
		o.target = MR_TARGET_SYSTEM;
	} else if (cg) {
		o.target = MR_TARGET_CGROUP;
		o.cgroup = cg;
	} else {
		o.argv = argv + optind;
	}
	o.stop = &stop_flag;
	if (!o.overwrite) {
		/* a recording killed before its first commit left a store with nothing in
		 * it: a retry replaces it without --force; anything else at the path stays */
		rc = mr_store_remove_abandoned(o.output, &err);
		if (!rc)
			fprintf(stderr, "memreplay record: replacing %s: an empty trace left by a recording that ended before it committed any event (no events, never finished, no process has it open)\n",
				o.output);
		else if (rc != MR_ENOENT)
			return cli_fail("record", &err);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = mr_record_run(&o, &st, &err);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* a failure before the rings existed has nothing to summarise */
	if (rc ? st.nrings > 0 : !quiet) {
		print_summary(o.output, &st);
	} else if (!rc) {
		/* --quiet still says once that hardware sampling asked for fell back */
		for (int i = 0; i < st.nsrc; i++)
			if (!strcmp(st.src[i].name, "hwsample") && !st.src[i].on &&
			    (o.hw_events || o.hw_period || (o.sources & MR_RSRC_HWSAMPLE)))
				fprintf(stderr, "memreplay record: hwsample off: %s\n",
					st.src[i].why);
	}
	if (rc && st.write_failed && o.target == MR_TARGET_COMMAND && st.cmd_status >= 0) {
		/* The recording failed but the command ran to its end: its exit status is
		 * what a caller wrapping it needs (the failure is on stderr), as the shell
		 * reports it: the exit code, or 128 + the signal that killed it. */
		cli_fail("record", &err);
		if (WIFEXITED(st.cmd_status))
			return WEXITSTATUS(st.cmd_status);
		if (WIFSIGNALED(st.cmd_status))
			return 128 + WTERMSIG(st.cmd_status);
		return 1;
	}
	if (rc)
		return cli_fail("record", &err);
	return 0;
}
