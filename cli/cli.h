/* SPDX-License-Identifier: GPL-2.0 */
/* cli.h - the memreplay command line: subcommand entry points and shared helpers. */
#ifndef MR_CLI_H
#define MR_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "mr_err.h"

/*
 * One subcommand. usage and help are the whole of what `memreplay help NAME`,
 * `memreplay NAME --help` and the man page memreplay-NAME(1) say (cli_help,
 * cli_man): usage is the synopsis, help what it does and every option it takes, one
 * "  -s, --long ARG   what" line each (tests/test_cli_help.sh checks that each option
 * the subcommand's parser accepts is there).
 */
struct mr_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *usage;
	const char *help;
};

int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_host(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_curve(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_bench_replay(int argc, char **argv);
int cmd_bench_record(int argc, char **argv);
int cmd_bench_sample(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* The options the `bench` subcommands share, as getopt returns them (cmd_bench.c). */
struct cli_bench_opts {
	uint64_t events; /* -e/--events N */
	uint64_t pages;  /* --pages SIZE, record's -s/--size SIZE (-p is record's --pid) */
	const char *dir; /* -d/--dir DIR; cli_bench_dir() gives the default */
	int keep;        /* -k/--keep */
};
/* Option c with argument arg, when it is one of those: 0, or the exit status of a bad
 * value (the message printed). -1 when c is not one of them. */
int cli_bench_opt(int c, const char *arg, struct cli_bench_opts *b);
/* The directory for temporary files: --dir, else $TMPDIR, else /tmp. */
const char *cli_bench_dir(const struct cli_bench_opts *b);

/* Print "memreplay CMD: message" for an error context and return exit status 1. */
int cli_fail(const char *cmd, const struct mr_error *err);
/* The same for an option's value that does not parse (the command line is wrong): the
 * message and the usage line, exit status 2 (cli_usage_error()). */
int cli_bad_option(const char *cmd, const struct mr_error *err);
/* An output file path may be written (replaced by a rename): absent, or a regular file
 * that is not input (NULL: none) — never a link, a device, a FIFO or the file read;
 * --force does not change that. 0, or MR_EINVAL / MR_EIO with a message. */
int cli_out_ok(const char *path, const char *input, struct mr_error *err);
/*
 * The duration argument arg of option opt (mr_parse_duration: a bare number is ns) into
 * *ns. A value that is not 0 but below min_ns is refused as well, naming the unit: for
 * options where so short a time cannot be meant, a bare number is seconds or
 * milliseconds typed without the unit. Returns 0, or prints "memreplay CMD: OPT: why"
 * and the usage line and returns exit status 2.
 */
int cli_parse_duration(const char *cmd, const char *opt, const char *arg, uint64_t min_ns,
		       uint64_t *ns);
/* Print "memreplay CMD: " + formatted message + newline; return exit status 2 (usage). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct mr_cmd *cli_find(const char *name);
/* Print the help of subcommand name to stdout (what `help NAME` prints); returns 0. */
int cli_help(const char *name);
/* Print s to stdout as a JSON string literal (quotes, backslashes, control characters escaped). */
void cli_json_string(const char *s);
/* The same for n bytes, which may hold NULs (\u0000): a database's text may. */
void cli_json_stringn(const char *s, size_t n);
/* Print text from a file (a trace or results database may hold anything) to stdout so that
 * it can neither move the cursor, recolour the terminal nor fake lines: control
 * characters, C1 controls and bytes that are not UTF-8 become \xHH (and \n, \t, \r,
 * \\ for a backslash). CLI_TEXT_CSV: the inside of a quoted CSV field, where newlines
 * and tabs stay, quotes are doubled and backslashes are not. */
#define CLI_TEXT_CSV 1u
void cli_print_text(const char *s, unsigned flags);
/* The same for n bytes, which may hold NULs (\x00). */
void cli_print_textn(const char *s, size_t n, unsigned flags);
/* Print s to stdout as one quoted CSV field (cli_print_text() with CLI_TEXT_CSV inside). */
void cli_csv_field(const char *s);

/*
 * Draw a curve (mr_results.h) as a self-contained SVG at path: miss ratio over memory,
 * one line per policy, title naming source. Refuses an existing file that is not an SVG
 * (a trace given by mistake); writes beside path and renames. 0, or MR_EINVAL / MR_EIO
 * with a message (curve_svg.c).
 */
/* The name to show for a trace of a results file that holds several (a merge): its file
 * name, or its path where another of the n traces (traces + i * tstride, their trace_ids
 * at ids + i * istride) has the same file name and another trace_id (main.c). */
const char *cli_trace_name(const char *trace, const char *trace_id, const char *traces,
			   size_t tstride, const char *ids, size_t istride, size_t n);
struct mr_compare;
/* Where run i of a compare comes from, in a file of several traces or samplings: the
 * trace's name (where several) and "full" or "sampled 1/N seed S" (cmd_compare.c). */
void cli_run_source(const struct mr_compare *c, size_t i, char *buf, size_t cap);

struct mr_curve;
struct mr_spread;
/* The name of group g (the index of its first row) of a curve: the policy's short spec,
 * the trace's file name where the curve has several traces, the sampling rate and how
 * many seeds it combines (curve_svg.c). */
void cli_curve_group_label(const struct mr_curve *c, size_t g, char *buf, size_t cap);
/* The seeds (series) group g combines (curve_svg.c). */
size_t cli_curve_seeds(const struct mr_curve *c, size_t g);
/* The runs of group g at mem: their count; *sp the spread of their miss ratios in
 * percent (NaN ones left out); *oom set when one went over its memory. */
size_t cli_curve_at(const struct mr_curve *c, size_t g, uint64_t mem, struct mr_spread *sp,
		    int *oom);
int cli_curve_svg(const char *path, const struct mr_curve *c, const char *source,
		  struct mr_error *err);
/* The same SVG written to f (the report inlines it); MR_EINVAL when nothing can be
 * plotted. Each point carries data-chart="curve", data-run, data-x (its axis value:
 * log2 of the pages on a log axis) and data-v (the miss ratio in percent). */
int cli_curve_svg_draw(FILE *f, const struct mr_curve *c, const char *source,
		       struct mr_error *err);
/* Write s to f as XML/HTML text (&, <, >, " escaped; control characters as '?'). */
void cli_xml_text(FILE *f, const char *s);
int cmd_report(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
