// SPDX-License-Identifier: GPL-2.0
/* cmd_gen.c - `memreplay gen NAME -o OUT [--force] --param value`: run a workload generator
 * (an existing OUT is replaced only with --force). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mr_gen.h"
#include "mr_util.h"

static void list_generators(void)
{
	const struct mr_gen *const *g = mr_gen_list();

	printf("generators:\n");
	for (; *g; g++)
		printf("  %-12s %s\n  %-12s (%s)\n", (*g)->name, (*g)->help, "", (*g)->models);
}

static void gen_help(const struct mr_gen *g)
{
	printf("memreplay gen %s -o OUT.db [--force] [--seed N] [--PARAM VALUE ...]\n%s\nshaped like: %s\n\n"
	       "  --force            replace OUT.db if it exists (it may be a recorded trace)\n\nparameters:\n",
	       g->name, g->help, g->models);
	for (size_t i = 0; i < g->nparams; i++) {
		const struct mr_gen_param *p = &g->params[i];
		const char *type = p->type == MR_GP_PAGES ? "size" : p->type == MR_GP_COUNT ? "count" :
				   p->type == MR_GP_DURATION ? "time" : "number";

		printf("  --%-16s %-6s default %-8s %s\n", p->name, type, p->def, p->help);
	}
	printf("  --%-16s %-6s default %-8s %s\n", "seed", "count", "1", "random seed");
	printf("\nsizes: 256M, 1G, 64K (bytes, binary) or a page count (65536); counts: 50M = 50,000,000;\n"
	       "times: 100ms, 1.5s, 2m (a bare number is nanoseconds)\n");
}

int cmd_gen(int argc, char **argv)
{
	struct mr_error err = { 0 };
	struct mr_gen_values vals;
	const struct mr_gen *g;
	const char *out = NULL;
	int force = 0, rc;

	if (argc < 2)
		return cli_usage_error("gen", "name a generator (memreplay gen --list)");
	if (!strcmp(argv[1], "--list") || !strcmp(argv[1], "-l")) {
		list_generators();
		return 0;
	}
	g = mr_gen_find(argv[1]);
	if (!g)
		return cli_usage_error("gen", "unknown generator '%s' (memreplay gen --list shows them)", argv[1]);
	if (mr_gen_defaults(g, &vals, &err))
		return cli_fail("gen", &err);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			gen_help(g);
			return 0;
		}
		if (!strcmp(a, "--force")) {
			force = 1;
			continue;
		}
		if (!strncmp(a, "--", 2) && strchr(a, '=')) {
			/* --name=value */
			char name[64];
			const char *eq = strchr(a, '=');
			size_t n = (size_t)(eq - a - 2);

			if (n >= sizeof(name))
				return cli_usage_error("gen", "option too long: %s", a);
			memcpy(name, a + 2, n);
			name[n] = 0;
			if (!strcmp(name, "seed")) {
				if (mr_parse_count(eq + 1, &vals.seed, &err))
					return cli_bad_option("gen", &err);
			} else if (!strcmp(name, "output")) {
				out = eq + 1;
			} else if (mr_gen_set(g, &vals, name, eq + 1, &err)) {
				return cli_bad_option("gen", &err);
			}
			continue;
		}
		if (i + 1 >= argc)
			return cli_usage_error("gen", "option %s needs a value", a);
		if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			out = argv[++i];
		} else if (!strcmp(a, "--seed")) {
			if (mr_parse_count(argv[++i], &vals.seed, &err))
				return cli_bad_option("gen", &err);
		} else if (!strncmp(a, "--", 2)) {
			if (mr_gen_set(g, &vals, a + 2, argv[++i], &err))
				return cli_bad_option("gen", &err);
		} else {
			return cli_usage_error("gen", "unexpected argument '%s'", a);
		}
	}
	if (!out)
		return cli_usage_error("gen", "missing -o OUT.db");
	rc = mr_gen_create(g, &vals, out, force, NULL, &err);
	if (rc)
		return cli_fail("gen", &err);
	fprintf(stderr, "memreplay gen: wrote %s (see `memreplay info %s`)\n", out, out);
	return 0;
}
