// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_import.c - `memreplay import FORMAT INPUT -o TRACE.db`: another tool's output as a
 * trace (traces/mr_import.h); its counterpart is cmd_export.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mr_import.h"
#include "mr_util.h"

static void list_importers(void)
{
	const struct mr_importer *const *imp = mr_import_list();

	printf("formats:\n");
	for (; *imp; imp++)
		printf("  %-14s %s\n  %-14s made by: %s\n  %-14s cannot say: %s\n", (*imp)->name,
		       (*imp)->help, "", (*imp)->howto, "", (*imp)->lacks);
}

int cmd_import(int argc, char **argv)
{
	struct mr_import_opts o = { 0 };
	struct mr_import_stats st;
	struct mr_error err = { 0 };
	const struct mr_importer *imp = NULL;
	const char *input = NULL, *out = NULL;
	int time_unit = 0; /* --time-unit given */

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--list") || !strcmp(a, "-l")) {
			list_importers();
			return 0;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: %s\n", cli_find("import")->usage);
			list_importers();
			return 0;
		}
		if (!strcmp(a, "--force")) {
			o.overwrite = 1;
		} else if (!strcmp(a, "--with-instr")) {
			o.with_instr = 1;
		} else if (!strcmp(a, "--file-pages")) {
			o.file_pages = 1;
		} else if (!strcmp(a, "--one-page")) {
			o.one_page = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--tick") ||
			   !strcmp(a, "--time-unit")) {
			if (i + 1 >= argc)
				return cli_usage_error("import", "option %s needs a value", a);
			if (!strcmp(a, "--time-unit")) {
				const char *v = argv[++i];

				if (mr_oracle_time_unit(v, &o.time_unit))
					return cli_usage_error("import", "--time-unit '%s': give s, ms, us or ns", v);
				time_unit = 1;
			} else if (!strcmp(a, "--tick")) {
				if (cli_parse_duration("import", a, argv[++i], 0, &o.tick_ns))
					return 2;
				if (!o.tick_ns)
					return cli_usage_error("import", "--tick must be above 0 (1ns, 10ns, 1us)");
			} else {
				out = argv[++i];
			}
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("import", "unknown option '%s'", a);
		} else if (!imp) {
			imp = mr_import_find(a);
			if (!imp)
				return cli_usage_error("import", "unknown format '%s' (memreplay import --list shows them)", a);
		} else if (!input) {
			input = a;
		} else {
			return cli_usage_error("import", "unexpected argument '%s'", a);
		}
	}
	if (!imp)
		return cli_usage_error("import", "name a format (memreplay import --list)");
	if (!input)
		return cli_usage_error("import", "name the %s input file ('-' for standard input)", imp->name);
	if (!out)
		return cli_usage_error("import", "missing -o TRACE.db");
	if ((o.with_instr || o.tick_ns) && strcmp(imp->name, "lackey"))
		return cli_usage_error("import", "--with-instr and --tick are for lackey input");
	if ((o.file_pages || o.one_page || time_unit) && strcmp(imp->name, "oracleGeneral"))
		return cli_usage_error("import", "--file-pages, --one-page and --time-unit are for "
				       "oracleGeneral input");
	if (mr_import_create(imp, input, out, &o, &st, &err))
		return cli_fail("import", &err);
	printf("memreplay import: wrote %s from %s (%s): %llu events, %llu page references of "
	       "%llu pages, %llu tasks in %llu address spaces\n", out, input, imp->name,
	       (unsigned long long)st.events, (unsigned long long)st.accesses,
	       (unsigned long long)st.pages, (unsigned long long)st.tasks,
	       (unsigned long long)st.mms);
	if (st.skipped)
		printf("  left out: %llu records (%s)\n", (unsigned long long)st.skipped,
		       !strcmp(imp->name, "damo") ? "regions with no access" :
		       !strcmp(imp->name, "lackey") ? "instruction fetches without --with-instr, "
		       "addresses beyond 2^56" : "kernel addresses");
	if (st.clamped)
		printf("  adjusted: %llu records (%s)\n", (unsigned long long)st.clamped,
		       !strcmp(imp->name, "oracleGeneral") ?
		       "a timestamp that went back, or an object that grew: docs/import.md" :
		       "a time that went back, placed at the one before");
	printf("  %s cannot say: %s\n", imp->name, imp->lacks);
	return 0;
}
