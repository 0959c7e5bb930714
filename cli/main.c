// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - `memreplay`, git-style: one binary, one table of subcommands. Each subcommand
 * turns argv into typed settings, makes library calls and prints; logic lives in the
 * libraries (storage/, traces/, policy/, replayer/, recorder/).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mr_util.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct mr_cmd commands[] = {
	{ "info", cmd_info, "summarise a trace: duration, events by kind, pages, size",
	  "memreplay info TRACE.db [--json]" },
	{ "record", cmd_record, "record what memory a command, processes or the host touch",
	  "memreplay record -o TRACE.db [--duration T] [--sources LIST] [--young-scan MODE]\n"
	  "       [--young-interval T] [--ring-size SIZE] [--anonymize] [--force] [--quiet]\n"
	  "       [--hw-event NAME[,NAME...]] [--hw-period N]\n"
	  "       (-- COMMAND ARGS... | -p PID[,PID...] | --cgroup PATH | -a)" },
	{ "replay", cmd_replay, "replay a trace through reclaim policies into a results database",
	  "memreplay replay TRACE.db --policy SPEC [--policy SPEC ...] --memory SIZE[,SIZE...]\n"
	  "       [--memory LO..HI:N|LO..HI:xF|LO..HI:+STEP] [--memory CGROUP_ID=SIZE] [-o RESULTS.db]\n"
	  "       [--script FILE] [--interval T] [--swap SIZE] [--threads N] [--plugin SO]\n"
	  "       memreplay replay --list-policies" },
	{ "compare", cmd_compare, "policies side by side with deltas against a baseline",
	  "memreplay compare RESULTS.db [--baseline RUN|SPEC] [--format table|csv|json] [--counters a,b]" },
	{ "curve", cmd_curve, "miss ratio per policy and memory size (a sweep's curve)",
	  "memreplay curve RESULTS.db [--format table|csv|json] [-o CURVE.svg]" },
	{ "report", cmd_report, "one self-contained HTML report of a results database",
	  "memreplay report RESULTS.db -o REPORT.html [--baseline RUN|SPEC] [--force]" },
	{ "sweep", cmd_sweep, "many traces x policies x sizes from a manifest: a worker pool, Slurm or GNU parallel",
	  "memreplay sweep MANIFEST [-o DIR] [-j N] [--threads N] [--force] [--cell K] [--list] [-q]\n"
	  "       memreplay sweep MANIFEST [-o DIR] --emit slurm [--sbatch 'OPTIONS'] | --emit parallel" },
	{ "merge", cmd_merge, "join results files (a sweep's cells) into one results database",
	  "memreplay merge -o ALL.db RESULTS.db... [-q]" },
	{ "gen", cmd_gen, "write a synthetic workload trace (deterministic, seeded)",
	  "memreplay gen GENERATOR -o OUT.db [--seed N] [--PARAM VALUE ...]\n"
	  "       memreplay gen --list | memreplay gen GENERATOR --help" },
	{ "query", cmd_query, "run SQL on a trace or results database",
	  "memreplay query DB [--csv] SQL" },
	{ "bench", cmd_bench, "measure the project's own speed (store codec, ...)",
	  "memreplay bench store [--events N] [--pages SIZE] [--keep]\n"
	  "       memreplay bench replay [--events N] [--pages SIZE] [--policy SPEC ...]\n"
	  "       memreplay bench record [--size SIZE] [--runs N] [--no-build] [--no-faults]\n"
	  "                              [--src DIR] [--workload PATH] [--dir DIR] [--keep]\n"
	  "                              [--perf PATH | --no-perf]" },
	{ "host", cmd_host, "what this host lets the recorder see (perf, tracepoints, young bits)",
	  "memreplay host" },
	{ "help", cmd_help, "show help for a subcommand", "memreplay help [SUBCOMMAND]" },
	{ "version", cmd_version, "print the version", "memreplay version" },
};

const struct mr_cmd *cli_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int cli_fail(const char *cmd, const struct mr_error *err)
{
	fprintf(stderr, "memreplay %s: %s\n", cmd,
		err->msg[0] ? err->msg : mr_strerror(err->code));
	return 1;
}

int cli_parse_duration(const char *cmd, const char *opt, const char *arg, uint64_t min_ns,
		       uint64_t *ns)
{
	struct mr_error err = { 0 };

	if (mr_parse_duration(arg, ns, &err) == 0 && (!*ns || *ns >= min_ns))
		return 0;
	if (!err.code)
		mr_error_set(&err, MR_ERANGE, "%s is %llu ns, too short to be meant; a bare "
			     "number is nanoseconds: give a unit (%ss, %sms)", arg,
			     (unsigned long long)*ns, arg, arg);
	fprintf(stderr, "memreplay %s: %s: %s\n", cmd, opt, err.msg);
	return 1;
}

void cli_json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

void cli_print_text(const char *s, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned c = *p, len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
					(c & 0xf8) == 0xf0 ? 4 : 0;
		unsigned k = 1;

		if ((flags & CLI_TEXT_CSV) && (c == '\n' || c == '\r' || c == '\t' || c == '"')) {
			if (c == '"')
				putchar('"');
			putchar(c); /* the quotes around the field keep these in it */
			p++;
			continue;
		}
		if (c == '\\' && !(flags & CLI_TEXT_CSV)) {
			fputs("\\\\", stdout);
			p++;
			continue;
		}
		if (c == '\n' || c == '\t' || c == '\r') {
			printf("\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
			p++;
			continue;
		}
		/* a whole UTF-8 sequence that is not a C1 control (U+0080..U+009F) stays */
		while (len > 1 && k < len && (p[k] & 0xc0) == 0x80)
			k++;
		if (len == 1 ? c >= 0x20 && c != 0x7f :
		    len && k == len && !(c == 0xc2 && p[1] < 0xa0) && !(len == 2 && c < 0xc2)) {
			fwrite(p, 1, len, stdout);
			p += len;
			continue;
		}
		printf("\\x%02x", c);
		p++;
	}
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	const struct mr_cmd *c = cli_find(cmd);
	va_list ap;

	fprintf(stderr, "memreplay %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c)
		fprintf(stderr, "usage: %s\n", c->usage);
	return 2;
}

static void print_overview(FILE *f)
{
	fprintf(f, "usage: memreplay SUBCOMMAND [ARGS...]\n\n"
		   "Record what memory a host touches, replay it through reclaim policies.\n\n"
		   "subcommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n`memreplay help SUBCOMMAND` shows its usage.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct mr_cmd *c;

	if (argc < 2) {
		print_overview(stdout);
		return 0;
	}
	c = cli_find(argv[1]);
	if (!c)
		return cli_usage_error("help", "unknown subcommand '%s'", argv[1]);
	printf("%s - %s\nusage: %s\n", c->name, c->summary, c->usage);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	printf("memreplay %s\n", MR_VERSION_STRING);
	return 0;
}

int main(int argc, char **argv)
{
	const struct mr_cmd *c;

	if (argc < 2) {
		print_overview(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv);
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
	c = cli_find(argv[1]);
	if (!c) {
		fprintf(stderr, "memreplay: unknown subcommand '%s'; run `memreplay help` for the list\n",
			argv[1]);
		return 2;
	}
	return c->fn(argc - 1, argv + 1);
}
