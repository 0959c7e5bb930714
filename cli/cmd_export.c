// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_export.c - `memreplay export --format oracleGeneral TRACE.db -o OUT.bin`: a trace's
 * page references for libCacheSim (traces/mr_import.h, docs/import.md).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mr_import.h"
#include "mr_util.h"

int cmd_export(int argc, char **argv)
{
	struct mr_export_opts o = { .unit = MR_EXPORT_S };
	struct mr_export_stats st;
	struct mr_error err = { 0 };
	const char *format = NULL, *trace = NULL, *out = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: %s\n", cli_find("export")->usage);
			return 0;
		}
		if (!strcmp(a, "--force")) {
			o.overwrite = 1;
			continue;
		}
		if (!strcmp(a, "--format") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
		    !strcmp(a, "--time-unit")) {
			const char *v;

			if (i + 1 >= argc)
				return cli_usage_error("export", "option %s needs a value", a);
			v = argv[++i];
			if (!strcmp(a, "--format")) {
				format = v;
			} else if (!strcmp(a, "--time-unit")) {
				if (mr_oracle_time_unit(v, &o.unit))
					return cli_usage_error("export", "--time-unit '%s': give s, ms, us or ns", v);
			} else {
				out = v;
			}
			continue;
		}
		if (a[0] == '-' && a[1])
			return cli_usage_error("export", "unknown option '%s'", a);
		if (trace)
			return cli_usage_error("export", "unexpected argument '%s'", a);
		trace = a;
	}
	if (!format)
		return cli_usage_error("export", "missing --format (oracleGeneral)");
	if (strcmp(format, "oracleGeneral") && strcmp(format, "oracle"))
		return cli_usage_error("export", "unknown format '%s': memreplay exports oracleGeneral", format);
	if (!trace)
		return cli_usage_error("export", "name the trace to export");
	if (!out)
		return cli_usage_error("export", "missing -o OUT.bin");
	if (mr_export_oracle(trace, out, &o, &st, &err))
		return cli_fail("export", &err);
	printf("memreplay export: wrote %s: %llu oracleGeneral requests of %llu objects (pages), "
	       "timestamps in %s; left out %llu events that are not page references\n", out,
	       (unsigned long long)st.requests, (unsigned long long)st.objects, mr_oracle_time_unit_name(o.unit),
	       (unsigned long long)st.skipped);
	return 0;
}
