// SPDX-License-Identifier: GPL-2.0
/*
 * test_policy.c - the policy framework and the lru/opt policies:
 *   registry and parameter parsing (every error path, messages naming the culprit),
 *   parameter-table validation, --list-policies text, plugins (a good one, a missing
 *   file, a file that is not a shared object, a shared object without mr_plugin_init),
 *   vmstat names;
 *   shrink_folio_list's paths and folio_referenced on the small test machine;
 *   lru: the classic second-chance rules, exec first use, deactivation, writeback
 *   rotation, swap-out, refault distance edge cases;
 *   opt: the textbook MIN count, a randomised comparison with a naive MIN, dirty and
 *   anon victims, heap invariants.
 *
 * Usage: test_policy PLUGIN.so NOINIT.so (paths given by CTest).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_policy.h"
#include "mr_test.h"
#include "policy_machine.h"
#include "vmscan.h"

/* The test plugins, built beside this program (tests/policy.cmake). */
static const char *const plugin_path = MR_TEST_PLUGIN, *const noinit_path = MR_TEST_PLUGIN_NOINIT;
static uint64_t test_seed; /* for the randomised tests, printed once */

static int contains(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

#define CHECK_MSG(err, needle)                                                          \
	do {                                                                           \
		CHECK(contains((err)->msg, (needle)));                                 \
		if (!contains((err)->msg, (needle)))                                   \
			fprintf(stderr, "  message: \"%s\" lacks \"%s\"\n", (err)->msg, \
				(needle));                                             \
	} while (0)

/* ---- a policy with one parameter of each type, registered by the tests ---- */

struct tst_params {
	int64_t level, flag, mode;
};

static void nop_add(struct mr_policy *p, uint32_t page, unsigned ctx)
{
	(void)p, (void)page, (void)ctx;
}

static void nop_page(struct mr_policy *p, uint32_t page)
{
	(void)p, (void)page;
}

static void nop_refault(struct mr_policy *p, uint32_t page, uint64_t shadow, unsigned ctx)
{
	(void)p, (void)page, (void)shadow, (void)ctx;
}

static void nop_shrink(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc)
{
	(void)p, (void)lruvec, (void)sc;
}

static const char *const mode_names[] = { "a", "b", "c" };

static const struct mr_param_desc tst_params[] = {
	{ .name = "level", .type = MR_PARAM_INT, .min = -5, .max = 100, .def = 7,
	  .offset = offsetof(struct tst_params, level), .help = "an int" },
	{ .name = "flag", .type = MR_PARAM_BOOL, .min = 0, .max = 1, .def = 0,
	  .offset = offsetof(struct tst_params, flag), .help = "a bool" },
	{ .name = "mode", .type = MR_PARAM_ENUM, .min = 0, .max = 2, .def = 1,
	  .enum_names = mode_names, .offset = offsetof(struct tst_params, mode),
	  .help = "an enum" },
};

#define TST_OPS(nm, prm, np, size)                                                       \
	{ .abi = MR_POLICY_ABI, .name = (nm), .help = "test policy", .params = (prm),   \
	  .nparams = (np),                                                             \
	  .params_size = (size), .folio_add = nop_add, .mark_accessed = nop_page,       \
	  .folio_del = nop_page, .refault = nop_refault, .rotate = nop_page,           \
	  .shrink_lruvec = nop_shrink }

static const struct mr_policy_ops tst_ops =
	TST_OPS("tst", tst_params, 3, sizeof(struct tst_params));

/* tst registered once, by whichever case needs it first (cases also run alone). */
static int register_tst(void)
{
	static int done, rc;
	struct mr_error err = { 0 };

	if (!done) {
		rc = mr_policy_register(&tst_ops, &err);
		done = 1;
	}
	return rc;
}

static void test_builtins(void)
{
	size_t n, i;
	const struct mr_policy_ops *const *list = mr_policy_list(&n);
	int have_lru = 0, have_opt = 0;

	for (i = 0; i < n; i++) {
		have_lru |= !strcmp(list[i]->name, "lru");
		have_opt |= !strcmp(list[i]->name, "opt");
	}
	CHECK(have_lru && have_opt);
	CHECK(mr_policy_find("lru") != NULL);
	CHECK(mr_policy_find("opt") != NULL);
	CHECK(mr_policy_find("nope") == NULL);
	CHECK(mr_policy_find(NULL) == NULL);
}

/* Parse spec into a tst_params-sized buffer; returns the code, fills err and canon. */
static int parse(const char *spec, struct mr_error *err, char *canon, size_t cap, void *params,
		 const struct mr_policy_ops **ops)
{
	memset(err, 0, sizeof(*err));
	return mr_policy_parse(spec, ops, params, sizeof(struct tst_params), canon, cap, err);
}

static void test_parse_builtin(void)
{
	struct tst_params prm;
	const struct mr_policy_ops *ops = NULL;
	struct mr_error err;
	char canon[256];

	CHECK(parse("lru", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(ops == mr_policy_find("lru"));
	CHECK(!strcmp(canon, "lru:swappiness=60"));
	CHECK(mr_param_get(ops, &prm, 0) == 60);

	CHECK(parse("lru:swappiness=100", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(!strcmp(canon, "lru:swappiness=100"));
	CHECK(mr_param_get(ops, &prm, 0) == 100);
	CHECK(parse("lru:swappiness=0", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(parse("lru:swappiness=200", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(parse("lru:swappiness=+7", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(!strcmp(canon, "lru:swappiness=7"));

	CHECK(parse("opt", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(!strcmp(canon, "opt"));
	CHECK(parse("opt:", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(!strcmp(canon, "opt"));

	/* unknown policy: lists what exists */
	CHECK(parse("lruu:swappiness=1", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK(err.code == MR_EINVAL);
	CHECK_MSG(&err, "'lruu'");
	CHECK_MSG(&err, "lru, ");
	CHECK_MSG(&err, "opt");
	CHECK(parse("", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "empty policy spec");
	CHECK(mr_policy_parse(NULL, &ops, &prm, sizeof(prm), canon, sizeof(canon), &err) ==
	      MR_EINVAL);

	/* unknown parameter: lists the policy's parameters */
	CHECK(parse("lru:swapiness=1", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "'swapiness'");
	CHECK_MSG(&err, "swappiness)");
	CHECK(parse("opt:foo=1", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "'foo'");
	CHECK_MSG(&err, "it has no parameters");

	/* out of range: names the range */
	CHECK(parse("lru:swappiness=201", &err, canon, sizeof(canon), &prm, &ops) == MR_ERANGE);
	CHECK(err.code == MR_ERANGE);
	CHECK_MSG(&err, "swappiness=201");
	CHECK_MSG(&err, "[0, 200]");
	CHECK(parse("lru:swappiness=-1", &err, canon, sizeof(canon), &prm, &ops) == MR_ERANGE);
	CHECK(parse("lru:swappiness=99999999999999999999", &err, canon, sizeof(canon), &prm,
		    &ops) == MR_ERANGE);
	CHECK_MSG(&err, "swappiness");

	/* not a number, no value, empty value */
	CHECK(parse("lru:swappiness=abc", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "'abc'");
	CHECK_MSG(&err, "swappiness");
	CHECK(parse("lru:swappiness=6x", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK(parse("lru:swappiness= 6", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK(parse("lru:swappiness=", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "swappiness");
	CHECK(parse("lru:swappiness", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "swappiness=VALUE");

	/* duplicates, stray commas */
	CHECK(parse("lru:swappiness=1,swappiness=2", &err, canon, sizeof(canon), &prm, &ops) ==
	      MR_EINVAL);
	CHECK_MSG(&err, "'swappiness' is given twice");
	CHECK(parse("lru:swappiness=1,", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "ends with ','");
	CHECK(parse("lru:,swappiness=1", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "empty parameter");

	/* buffers */
	memset(&err, 0, sizeof(err));
	CHECK(mr_policy_parse("lru", &ops, &prm, 4, canon, sizeof(canon), &err) == MR_EINVAL);
	CHECK_MSG(&err, "lru");
	CHECK(parse("lru", &err, canon, 8, &prm, &ops) == MR_ENOSPC);
	CHECK_MSG(&err, "lru");
	CHECK(parse("lru", &err, NULL, 0, &prm, &ops) == 0); /* canon is optional */
	CHECK(parse("lru", &err, canon, sizeof(canon), &prm, NULL) == 0); /* ops_out optional */
	/* a NULL error context is allowed */
	CHECK(mr_policy_parse("nope", &ops, &prm, sizeof(prm), canon, sizeof(canon), NULL) ==
	      MR_EINVAL);
	CHECK(mr_policy_parse("lru:swappiness=300", &ops, &prm, sizeof(prm), canon,
			      sizeof(canon), NULL) == MR_ERANGE);
}

static void test_parse_types(void)
{
	struct tst_params prm;
	const struct mr_policy_ops *ops = NULL;
	struct mr_error err = { 0 };
	char canon[256], canon2[256];
	static const char *const truths[] = { "1", "true", "on", "TRUE", "On" };
	static const char *const falses[] = { "0", "false", "off", "False", "OFF" };
	size_t i;

	CHECK(register_tst() == 0);

	CHECK(parse("tst", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(ops == &tst_ops);
	CHECK(!strcmp(canon, "tst:level=7,flag=0,mode=b"));
	CHECK(prm.level == 7 && prm.flag == 0 && prm.mode == 1);

	/* canonical form: table order, bools as 0/1, enums by name */
	CHECK(parse("tst:mode=c,flag=on,level=-5", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(!strcmp(canon, "tst:level=-5,flag=1,mode=c"));
	CHECK(prm.level == -5 && prm.flag == 1 && prm.mode == 2);
	CHECK(parse("tst:level=-5,flag=1,mode=2", &err, canon2, sizeof(canon2), &prm, &ops) == 0);
	CHECK(!strcmp(canon, canon2));

	for (i = 0; i < sizeof(truths) / sizeof(truths[0]); i++) {
		char spec[64];

		snprintf(spec, sizeof(spec), "tst:flag=%s", truths[i]);
		CHECK(parse(spec, &err, canon, sizeof(canon), &prm, &ops) == 0 && prm.flag == 1);
		snprintf(spec, sizeof(spec), "tst:flag=%s", falses[i]);
		CHECK(parse(spec, &err, canon, sizeof(canon), &prm, &ops) == 0 && prm.flag == 0);
	}
	CHECK(parse("tst:flag=yes", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "'flag'");
	CHECK_MSG(&err, "'yes'");
	CHECK_MSG(&err, "on, off");
	CHECK(parse("tst:flag=2", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);

	/* enums: by name or by index */
	CHECK(parse("tst:mode=a", &err, canon, sizeof(canon), &prm, &ops) == 0 && prm.mode == 0);
	CHECK(parse("tst:mode=C", &err, canon, sizeof(canon), &prm, &ops) == 0 && prm.mode == 2);
	CHECK(parse("tst:mode=1", &err, canon, sizeof(canon), &prm, &ops) == 0 && prm.mode == 1);
	CHECK(parse("tst:mode=7", &err, canon, sizeof(canon), &prm, &ops) == MR_ERANGE);
	CHECK_MSG(&err, "'mode'");
	CHECK_MSG(&err, "a (0), b (1), c (2)");
	CHECK(parse("tst:mode=zz", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK(err.code == MR_EINVAL);
	CHECK_MSG(&err, "'zz'");

	/* ints at and past both ends */
	CHECK(parse("tst:level=100", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(parse("tst:level=101", &err, canon, sizeof(canon), &prm, &ops) == MR_ERANGE);
	CHECK_MSG(&err, "[-5, 100]");
	CHECK(parse("tst:level=-6", &err, canon, sizeof(canon), &prm, &ops) == MR_ERANGE);

	/* unknown parameter lists all of them */
	CHECK(parse("tst:bogus=1", &err, canon, sizeof(canon), &prm, &ops) == MR_EINVAL);
	CHECK_MSG(&err, "level, flag, mode");
}

/* Registration refuses bad ops and bad parameter tables, naming the problem. */
static void test_register_validation(void)
{
	struct mr_error err;

	CHECK(register_tst() == 0); /* for the duplicate-name refusal below */
	static const struct mr_param_desc dup[] = {
		{ .name = "x", .type = MR_PARAM_INT, .max = 1, .offset = 0 },
		{ .name = "x", .type = MR_PARAM_INT, .max = 1, .offset = 8 },
	};
	static const struct mr_param_desc minmax[] = {
		{ .name = "x", .type = MR_PARAM_INT, .min = 5, .max = 1, .def = 3 },
	};
	static const struct mr_param_desc defout[] = {
		{ .name = "x", .type = MR_PARAM_INT, .min = 0, .max = 10, .def = 11 },
	};
	static const struct mr_param_desc offset[] = {
		{ .name = "x", .type = MR_PARAM_INT, .max = 1, .offset = 4 },
	};
	static const struct mr_param_desc overlap[] = {
		{ .name = "x", .type = MR_PARAM_INT, .max = 1, .offset = 0 },
		{ .name = "y", .type = MR_PARAM_INT, .max = 1, .offset = 4 },
	};
	static const struct mr_param_desc badbool[] = {
		{ .name = "x", .type = MR_PARAM_BOOL, .max = 2 },
	};
	static const struct mr_param_desc noenum[] = {
		{ .name = "x", .type = MR_PARAM_ENUM, .max = 2 },
	};
	static const char *const short_names[] = { "a", NULL, "c" };
	static const struct mr_param_desc holeenum[] = {
		{ .name = "x", .type = MR_PARAM_ENUM, .max = 2, .enum_names = short_names },
	};
	static const struct mr_param_desc badname[] = {
		{ .name = "Has Space", .type = MR_PARAM_INT, .max = 1 },
	};
	static const struct mr_param_desc badtype[] = {
		{ .name = "x", .type = (enum mr_param_type)9, .max = 1 },
	};
	static const struct mr_policy_ops bad_dup = TST_OPS("bad-dup", dup, 2, 16);
	static const struct mr_policy_ops bad_minmax = TST_OPS("bad-minmax", minmax, 1, 8);
	static const struct mr_policy_ops bad_def = TST_OPS("bad-def", defout, 1, 8);
	static const struct mr_policy_ops bad_off = TST_OPS("bad-off", offset, 1, 8);
	static const struct mr_policy_ops bad_overlap = TST_OPS("bad-overlap", overlap, 2, 16);
	static const struct mr_policy_ops bad_bool = TST_OPS("bad-bool", badbool, 1, 8);
	static const struct mr_policy_ops bad_enum = TST_OPS("bad-enum", noenum, 1, 8);
	static const struct mr_policy_ops bad_hole = TST_OPS("bad-hole", holeenum, 1, 8);
	static const struct mr_policy_ops bad_pname = TST_OPS("bad-pname", badname, 1, 8);
	static const struct mr_policy_ops bad_type = TST_OPS("bad-type", badtype, 1, 8);
	static const struct mr_policy_ops bad_table = TST_OPS("bad-table", NULL, 2, 16);
	static const struct mr_policy_ops bad_name = TST_OPS("Bad:name", NULL, 0, 0);
	static const struct mr_policy_ops dup_lru = TST_OPS("lru", NULL, 0, 0);
	struct mr_policy_ops no_hook = TST_OPS("no-hook", NULL, 0, 0);
	size_t before, after;

	mr_policy_list(&before);
#define REFUSE(ops, needle)                                                              	do {                                                                           		memset(&err, 0, sizeof(err));                                          		CHECK(mr_policy_register((ops), &err) == MR_EINVAL);                   		CHECK(err.code == MR_EINVAL);                                          		CHECK_MSG(&err, needle);                                               	} while (0)
	REFUSE(&bad_dup, "'x' is declared twice");
	REFUSE(&bad_minmax, "min <= default <= max");
	REFUSE(&bad_def, "default 11");
	REFUSE(&bad_off, "offset 4");
	REFUSE(&bad_overlap, "overlap");
	REFUSE(&bad_bool, "range 0..1");
	REFUSE(&bad_enum, "value names");
	REFUSE(&bad_hole, "no name for value 1");
	REFUSE(&bad_pname, "'Has Space'");
	REFUSE(&bad_type, "unknown type");
	REFUSE(&bad_table, "no table");
	REFUSE(&bad_name, "'Bad:name'");
	REFUSE(&dup_lru, "'lru' is already registered");
	no_hook.shrink_lruvec = NULL;
	REFUSE(&no_hook, "'no-hook' lacks a required hook");
	/* another ABI: refused first, by its version, naming the fix */
	{
		struct mr_policy_ops old_abi = TST_OPS("old-abi", NULL, 0, 0);

		old_abi.abi = MR_POLICY_ABI + 1;
		memset(&err, 0, sizeof(err));
		CHECK(mr_policy_register(&old_abi, &err) == MR_EVERSION);
		CHECK_MSG(&err, "rebuild the plugin");
		old_abi.abi = 0;
		CHECK(mr_policy_register(&old_abi, &err) == MR_EVERSION);
		CHECK(mr_policy_find("old-abi") == NULL);
	}
	REFUSE(NULL, "NULL policy");
	REFUSE(&tst_ops, "'tst' is already registered");
#undef REFUSE
	mr_policy_list(&after);
	CHECK(after == before);
	CHECK(mr_policy_find("bad-dup") == NULL);
}

static void test_describe(void)
{
	char buf[8192], small[16];
	size_t n, full;

	CHECK(register_tst() == 0);

	n = mr_policy_describe(mr_policy_find("lru"), buf, sizeof(buf));
	CHECK(n == strlen(buf));
	CHECK(contains(buf, "lru - classic"));
	CHECK(contains(buf, "swappiness (int, 0..200, default 60)"));
	CHECK(contains(buf, "vm.swappiness"));
	n = mr_policy_describe(mr_policy_find("opt"), buf, sizeof(buf));
	CHECK(contains(buf, "opt - ") && contains(buf, "(no parameters)"));
	n = mr_policy_describe(&tst_ops, buf, sizeof(buf));
	CHECK(contains(buf, "flag (bool, default 0)"));
	CHECK(contains(buf, "mode (enum: a|b|c, default b)"));
	CHECK(contains(buf, "level (int, -5..100, default 7)"));

	full = mr_policy_describe(NULL, buf, sizeof(buf));
	CHECK(full == strlen(buf));
	CHECK(contains(buf, "lru - ") && contains(buf, "opt - ") && contains(buf, "tst - "));
	/* truncation: NUL-terminated, returns the full length */
	n = mr_policy_describe(NULL, small, sizeof(small));
	CHECK(n == full);
	CHECK(strlen(small) == sizeof(small) - 1);
	CHECK(mr_policy_describe(NULL, NULL, 0) == full);
}

static void test_plugins(void)
{
	struct mr_error err = { 0 };
	const struct mr_policy_ops *ops;
	struct tst_params prm;
	char canon[64], path[600];
	size_t n, i;
	const struct mr_policy_ops *const *list;
	int listed = 0;
	FILE *f;

	CHECK(mr_policy_find("testplug") == NULL);
	CHECK(mr_policy_load_plugin(plugin_path, &err) == 0);
	if (err.code)
		fprintf(stderr, "  plugin: %s\n", err.msg);
	ops = mr_policy_find("testplug");
	CHECK(ops != NULL);
	list = mr_policy_list(&n);
	for (i = 0; i < n; i++)
		listed |= list[i] == ops && !strcmp(list[i]->name, "testplug");
	CHECK(listed);
	CHECK(parse("testplug:knob=3", &err, canon, sizeof(canon), &prm, &ops) == 0);
	CHECK(!strcmp(canon, "testplug:knob=3"));

	/* loading it again: its policy is already there */
	memset(&err, 0, sizeof(err));
	CHECK(mr_policy_load_plugin(plugin_path, &err) == MR_EINVAL);
	CHECK_MSG(&err, plugin_path);
	CHECK_MSG(&err, "'testplug' is already registered");
	CHECK(mr_policy_find("testplug") != NULL);

	/* a missing file */
	memset(&err, 0, sizeof(err));
	CHECK(mr_policy_load_plugin("/nonexistent/dir/plug.so", &err) == MR_ENOENT);
	CHECK_MSG(&err, "/nonexistent/dir/plug.so");
	CHECK_MSG(&err, "not found");

	/* a file that is not a shared object */
	snprintf(path, sizeof(path), "%s/not-elf.so", mr_test_tmpdir());
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("not an ELF file\n", f);
		fclose(f);
	}
	memset(&err, 0, sizeof(err));
	CHECK(mr_policy_load_plugin(path, &err) == MR_EINVAL);
	CHECK_MSG(&err, path);
	CHECK_MSG(&err, "cannot load policy plugin");

	/* a shared object without mr_plugin_init */
	memset(&err, 0, sizeof(err));
	CHECK(mr_policy_load_plugin(noinit_path, &err) == MR_EINVAL);
	CHECK_MSG(&err, noinit_path);
	CHECK_MSG(&err, "mr_plugin_init");

	memset(&err, 0, sizeof(err));
	CHECK(mr_policy_load_plugin("", &err) == MR_EINVAL);
}

static void test_vmstat_names(void)
{
	unsigned i, j;

	CHECK(!strcmp(mr_vmstat_name(MR_VM_WORKINGSET_REFAULT_FILE), "workingset_refault_file"));
	CHECK(!strcmp(mr_vmstat_name(MR_VM_PGSCAN_ANON), "pgscan_anon"));
	CHECK(!strcmp(mr_vmstat_name(MR_VM_NR_UNEVICTABLE), "nr_unevictable"));
	CHECK(mr_vmstat_name(MR_NR_VMSTAT) == NULL);
	for (i = 0; i < MR_NR_VMSTAT; i++) {
		CHECK(mr_vmstat_name(i) != NULL);
		for (j = 0; j < i; j++)
			CHECK(strcmp(mr_vmstat_name(i), mr_vmstat_name(j)) != 0);
	}
}


/* ---- the test machine ---- */

#define VMA_BASE 0x400000ull
#define PAGE_ADDR(i) (VMA_BASE + (uint64_t)(i) * 4096)

static struct mr_scan_control sc_make(uint64_t nr_to_reclaim, int priority)
{
	return (struct mr_scan_control){
		.nr_to_reclaim = nr_to_reclaim, .priority = priority, .may_swap = 1,
		.may_writepage = 1, .may_unmap = 1, .gfp_io = 1, .kswapd = 1,
	};
}

static struct pm_machine *machine(uint32_t nr_pages)
{
	struct pm_machine *pm = pm_create(&(struct pm_config){ .nr_pages = nr_pages });

	CHECK(pm != NULL);
	return pm;
}

static struct mr_policy *policy(struct pm_machine *pm, const char *name)
{
	struct mr_error err = { 0 };
	struct mr_policy *p = pm_policy_new(pm, mr_policy_find(name));

	CHECK(p != NULL);
	CHECK(mr_policy_start(p, &err) == 0);
	return p;
}

static int resident(struct pm_machine *pm, uint32_t page)
{
	return !!(pm->m.folios[page].flags & MR_PG_RESIDENT);
}

static int has(struct pm_machine *pm, uint32_t page, uint32_t flags)
{
	return (pm->m.folios[page].flags & flags) == flags;
}

/* Folio page of kind, added to the LRU (not mapped). */
static void add(struct pm_machine *pm, struct mr_policy *p, uint32_t page, enum pm_kind kind)
{
	pm_folio(pm, page, kind, 0, 0);
	p->ops->folio_add(p, page, 0);
}

/* Folio page of kind, faulted in through mm 0 at PAGE_ADDR(page): mapped young. */
static void fault(struct pm_machine *pm, struct mr_policy *p, uint32_t page, enum pm_kind kind)
{
	pm_folio(pm, page, kind, 0, 0);
	CHECK(pm_map(pm, 0, PAGE_ADDR(page), page, MR_PTE_YOUNG) == 0);
	p->ops->folio_add(p, page, MR_ADD_IN_FAULT);
}

/* folio_end_writeback() as the engine does it. */
static void end_writeback(struct pm_machine *pm, struct mr_policy *p, uint32_t page)
{
	struct mr_folio *f = &pm->m.folios[page];

	if (f->flags & MR_PG_RECLAIM) {
		f->flags &= ~MR_PG_RECLAIM;
		p->ops->rotate(p, page);
	}
	f->flags &= ~MR_PG_WRITEBACK;
}

static void shrink(struct mr_policy *p, uint64_t nr_to_reclaim, int priority)
{
	struct mr_scan_control sc = sc_make(nr_to_reclaim, priority);

	p->ops->shrink_lruvec(p, 0, &sc);
	CHECK(p->ops->check(p) == 0);
}

/* ---- shrink_folio_list() ---- */

struct hook_state {
	enum folio_references ref;
	unsigned checked, shadows;
};

static struct hook_state hooks_state;

static enum folio_references test_check_references(struct mr_policy *p, uint32_t page,
						  struct mr_scan_control *sc)
{
	(void)p, (void)page, (void)sc;
	hooks_state.checked++;
	return hooks_state.ref;
}

static uint64_t test_eviction_shadow(struct mr_policy *p, uint32_t page)
{
	(void)p;
	hooks_state.shadows++;
	return 0x1000 + page;
}

static const struct mr_shrink_hooks test_hooks = {
	.check_references = test_check_references,
	.eviction_shadow = test_eviction_shadow,
};

/* Run shrink_folio_list on pages[0..n) (isolated), with references = ref. */
static uint64_t run_sfl(struct pm_machine *pm, uint32_t *pages, uint32_t n,
			enum folio_references ref, struct mr_scan_control *sc,
			struct mr_reclaim_stat *stat)
{
	struct mr_policy pol = { .m = &pm->m };
	struct mr_folio_list list = { pages, n, n };
	uint64_t r;

	hooks_state = (struct hook_state){ .ref = ref };
	r = mr_shrink_folio_list(&pol, &list, sc, &test_hooks, stat);
	return r * 1000 + list.n; /* reclaimed and kept, in one value */
}

static void test_shrink_folio_list(void)
{
	struct pm_machine *pm = machine(32);
	struct mr_scan_control sc = sc_make(32, 0);
	struct mr_reclaim_stat st;
	uint32_t pages[8];

	pm_add_vma(pm, 0, VMA_BASE, VMA_BASE + 32 * 4096, MR_VMA_READ | MR_VMA_WRITE, 0);

	/* clean unmapped file folio: freed with the policy's shadow */
	pm_folio(pm, 0, PM_FILE, 0, 0);
	pages[0] = 0;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1000);
	CHECK(!resident(pm, 0));
	CHECK_EQ_U64(pm->shadow[0], 0x1000);
	CHECK_EQ_U64(sc.nr_scanned, 1);
	CHECK(hooks_state.checked == 1 && hooks_state.shadows == 1);

	/* dirty file folio ([7.2]): nr_vmscan_immediate, PG_reclaim, activated, kept */
	pm_folio(pm, 1, PM_FILE, 0, 0)->flags |= MR_PG_DIRTY;
	pages[0] = 1;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	CHECK(resident(pm, 1) && has(pm, 1, MR_PG_ACTIVE | MR_PG_RECLAIM | MR_PG_DIRTY));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_VMSCAN_IMMEDIATE), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGACTIVATE), 1);
	CHECK_EQ_U64(pm_lruvec_stat(pm, 0, MR_VM_PGACTIVATE), 1);
	CHECK_EQ_U64(st.nr_activate[1], 1);
	CHECK_EQ_U64(st.nr_unqueued_dirty, 1);
	CHECK(hooks_state.shadows == 0);

	/* clean folio with a dirty PTE: the dirty bit moves to the folio (try_to_unmap) */
	pm_folio(pm, 2, PM_FILE, 0, 0);
	CHECK(pm_map(pm, 0, PAGE_ADDR(2), 2, MR_PTE_YOUNG | MR_PTE_DIRTY) == 0);
	pages[0] = 2;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	CHECK(has(pm, 2, MR_PG_DIRTY | MR_PG_ACTIVE | MR_PG_RECLAIM));
	CHECK(!(pm_pte_bits(pm, 0, PAGE_ADDR(2)) & MR_PTE_DIRTY));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_VMSCAN_IMMEDIATE), 2);

	/* anon without swap: add_to_swap, pageout (pswpout), kept under writeback */
	pm_folio(pm, 3, PM_ANON, 0, 0);
	pages[0] = 3;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	CHECK(has(pm, 3, MR_PG_SWAPCACHE | MR_PG_WRITEBACK | MR_PG_RECLAIM));
	CHECK(!has(pm, 3, MR_PG_DIRTY) && !has(pm, 3, MR_PG_ACTIVE));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PSWPOUT), 1);
	CHECK_EQ_U64(st.nr_pageout, 1);
	CHECK(pm->nr_writeback == 1);
	/* ... writeback ends: the clean swap-cache folio is freed without more I/O */
	pm->m.folios[3].flags &= ~(MR_PG_WRITEBACK | MR_PG_RECLAIM);
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1000);
	CHECK(!resident(pm, 3));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PSWPOUT), 1);

	/* under writeback: PG_reclaim and activate */
	pm_folio(pm, 4, PM_FILE, 0, 0)->flags |= MR_PG_WRITEBACK;
	pages[0] = 4;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	CHECK(has(pm, 4, MR_PG_ACTIVE | MR_PG_RECLAIM));
	CHECK_EQ_U64(st.nr_writeback, 1);
	CHECK(hooks_state.checked == 0); /* before folio_check_references */

	/* mapped and !may_unmap: kept untouched */
	pm_folio(pm, 5, PM_FILE, 0, 0);
	CHECK(pm_map(pm, 0, PAGE_ADDR(5), 5, MR_PTE_YOUNG) == 0);
	pages[0] = 5;
	sc.may_unmap = 0;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	sc.may_unmap = 1;
	CHECK(pm->m.folios[5].flags == MR_PG_RESIDENT);
	CHECK(hooks_state.checked == 0);
	/* ... with may_unmap, a clean mapped folio is unmapped and freed */
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1000);
	CHECK(!resident(pm, 5) && pm->m.folios[5].mapcount == 0);
	CHECK(pm_pte_bits(pm, 0, PAGE_ADDR(5)) == 0);

	/* the references verdict: ACTIVATE and KEEP */
	pm_folio(pm, 6, PM_FILE, 0, 0);
	pm_folio(pm, 7, PM_FILE, 0, 0);
	pages[0] = 6;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_ACTIVATE, &sc, &st), 1);
	CHECK(has(pm, 6, MR_PG_ACTIVE));
	pages[0] = 7;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_KEEP, &sc, &st), 1);
	CHECK(!has(pm, 7, MR_PG_ACTIVE) && st.nr_ref_keep == 1);
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM_CLEAN, &sc, &st), 1000);

	/* unevictable: culled (active unless mlocked) */
	pm_folio(pm, 8, PM_FILE, 0, 0)->flags |= MR_PG_UNEVICTABLE;
	pm_folio(pm, 9, PM_ANON, 0, 0)->flags |= MR_PG_MLOCKED;
	pages[0] = 8;
	pages[1] = 9;
	CHECK_EQ_U64(run_sfl(pm, pages, 2, FOLIOREF_RECLAIM, &sc, &st), 2);
	CHECK(has(pm, 8, MR_PG_ACTIVE) && !has(pm, 9, MR_PG_ACTIVE));

	/* anon: no __GFP_IO -> keep; no swap space -> activate */
	pm_folio(pm, 10, PM_ANON, 0, 0);
	pages[0] = 10;
	sc.gfp_io = 0;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	sc.gfp_io = 1;
	CHECK(!has(pm, 10, MR_PG_SWAPCACHE) && !has(pm, 10, MR_PG_ACTIVE));
	pm->m.swap_free = 0;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	CHECK(has(pm, 10, MR_PG_ACTIVE) && !has(pm, 10, MR_PG_SWAPCACHE));
	pm->m.swap_free = 100;

	/* shmem: pageout allocates the slot (shmem_writepage) */
	pm_folio(pm, 11, PM_SHMEM, 0, 0)->flags |= MR_PG_DIRTY;
	pages[0] = 11;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	CHECK(has(pm, 11, MR_PG_SWAPCACHE | MR_PG_WRITEBACK | MR_PG_RECLAIM));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PSWPOUT), 2);

	/* lazyfree: clean -> freed without a shadow; dirty PTE -> swap-backed again */
	pm_folio(pm, 12, PM_ANON, 0, 0)->flags &= ~MR_PG_SWAPBACKED;
	pages[0] = 12;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1000);
	CHECK(hooks_state.shadows == 0 && pm->shadow[12] == 0);
	pm_folio(pm, 13, PM_ANON, 0, 0)->flags &= ~MR_PG_SWAPBACKED;
	CHECK(pm_map(pm, 0, PAGE_ADDR(13), 13, MR_PTE_YOUNG | MR_PTE_DIRTY) == 0);
	pages[0] = 13;
	CHECK_EQ_U64(run_sfl(pm, pages, 1, FOLIOREF_RECLAIM, &sc, &st), 1);
	CHECK(has(pm, 13, MR_PG_SWAPBACKED | MR_PG_ACTIVE));
	CHECK(st.nr_lazyfree_fail == 1 && st.nr_unmap_fail == 1);

	/* a mixed list: freed ones leave, survivors keep their order */
	pm_folio(pm, 20, PM_FILE, 0, 0);
	pm_folio(pm, 21, PM_FILE, 0, 0)->flags |= MR_PG_DIRTY;
	pm_folio(pm, 22, PM_FILE, 0, 0);
	pm_folio(pm, 23, PM_ANON, 0, 0);
	pm_folio(pm, 24, PM_FILE, 0, 0)->flags |= MR_PG_WRITEBACK;
	memcpy(pages, (uint32_t[]){ 20, 21, 22, 23, 24 }, 5 * sizeof(uint32_t));
	sc.nr_scanned = 0;
	CHECK_EQ_U64(run_sfl(pm, pages, 5, FOLIOREF_RECLAIM, &sc, &st), 2003);
	CHECK(pages[0] == 21 && pages[1] == 23 && pages[2] == 24);
	CHECK_EQ_U64(sc.nr_scanned, 5);
	pm_destroy(pm);
}

/* ---- folio_referenced() ---- */

struct look {
	unsigned calls;
	unsigned slots[4];
};

static struct look look_seen;

static void test_look_around(struct mr_policy *p, const struct mr_vma *vma, struct mr_pte_table *pt,
			     unsigned slot)
{
	(void)p, (void)vma;
	CHECK(!(pt->bits[slot] & MR_PTE_YOUNG)); /* the target is cleared first */
	if (look_seen.calls < 4)
		look_seen.slots[look_seen.calls] = slot;
	look_seen.calls++;
}

static void test_folio_referenced(void)
{
	struct pm_machine *pm = pm_create(&(struct pm_config){ .nr_pages = 8, .nr_mms = 3 });
	struct mr_policy pol = { .m = &pm->m };
	uint32_t vm_flags;

	pm_add_vma(pm, 0, VMA_BASE, VMA_BASE + 8 * 4096, MR_VMA_READ | MR_VMA_FILE, 1);
	pm_add_vma(pm, 1, VMA_BASE, VMA_BASE + 8 * 4096, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE,
		   1);
	pm_add_vma(pm, 2, VMA_BASE, VMA_BASE + 8 * 4096, MR_VMA_READ | MR_VMA_SEQ_READ, 1);
	pm_folio(pm, 3, PM_FILE, 0, 0);
	CHECK(pm_map(pm, 0, PAGE_ADDR(3), 3, MR_PTE_YOUNG) == 0);
	CHECK(pm_map(pm, 1, PAGE_ADDR(3), 3, MR_PTE_YOUNG | MR_PTE_DIRTY) == 0);
	CHECK(pm_map(pm, 2, PAGE_ADDR(3), 3, MR_PTE_YOUNG) == 0);

	look_seen = (struct look){ 0 };
	CHECK(mr_folio_referenced(&pol, 3, &vm_flags, test_look_around) == 2);
	CHECK(vm_flags & MR_VMA_EXEC);
	CHECK(look_seen.calls == 2 && look_seen.slots[0] == 3 && look_seen.slots[1] == 3);
	CHECK(pm_pte_bits(pm, 0, PAGE_ADDR(3)) == 0);
	CHECK(pm_pte_bits(pm, 1, PAGE_ADDR(3)) == MR_PTE_DIRTY); /* only A is consumed */
	/* no recency (MADV_SEQUENTIAL): ignored, its young bit left alone */
	CHECK(pm_pte_bits(pm, 2, PAGE_ADDR(3)) == MR_PTE_YOUNG);

	/* nothing young now: 0, no flags, no look-around */
	CHECK(mr_folio_referenced(&pol, 3, &vm_flags, test_look_around) == 0);
	CHECK(vm_flags == 0 && look_seen.calls == 2);
	/* one young mapping, the non-exec one */
	pm_touch(pm, 0, PAGE_ADDR(3), 0);
	CHECK(mr_folio_referenced(&pol, 3, &vm_flags, NULL) == 1);
	CHECK(!(vm_flags & MR_VMA_EXEC));
	/* unmapped folio */
	pm_folio(pm, 4, PM_FILE, 0, 0);
	CHECK(mr_folio_referenced(&pol, 4, &vm_flags, NULL) == 0);
	pm_destroy(pm);
}

/* ---- lru ---- */

/* Mapped folios need two looks: the one young from the instantiating fault only gets
 * PG_referenced; touched again before the next scan, it is activated, while a folio used
 * once is reclaimed. */
static void test_lru_second_chance(void)
{
	struct pm_machine *pm = machine(16);
	struct mr_policy *p = policy(pm, "lru");

	pm_add_vma(pm, 0, VMA_BASE, VMA_BASE + 16 * 4096, MR_VMA_READ | MR_VMA_FILE, 1);
	fault(pm, p, 0, PM_FILE); /* A */
	fault(pm, p, 1, PM_FILE); /* B */
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_INACTIVE_FILE), 2);

	shrink(p, 2, 0); /* both young once: referenced, kept */
	CHECK(resident(pm, 0) && resident(pm, 1));
	CHECK(has(pm, 0, MR_PG_REFERENCED | MR_PG_LRU) && has(pm, 1, MR_PG_REFERENCED | MR_PG_LRU));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSCAN_KSWAPD), 2);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSTEAL_KSWAPD), 0);

	pm_touch(pm, 0, PAGE_ADDR(0), 0); /* A used again */
	shrink(p, 1, 0);
	CHECK(resident(pm, 0) && has(pm, 0, MR_PG_ACTIVE | MR_PG_LRU));
	CHECK(!resident(pm, 1)); /* B: referenced flag only -> RECLAIM_CLEAN */
	CHECK(pm->shadow[1] != 0);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGACTIVATE), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSTEAL_FILE), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_ACTIVE_FILE), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_INACTIVE_FILE), 0);

	/* fd accesses: twice -> active (folio_mark_accessed), once -> referenced only */
	add(pm, p, 4, PM_FILE);
	add(pm, p, 5, PM_FILE);
	p->ops->mark_accessed(p, 4);
	p->ops->mark_accessed(p, 4);
	p->ops->mark_accessed(p, 5);
	CHECK(has(pm, 4, MR_PG_ACTIVE) && !has(pm, 4, MR_PG_REFERENCED));
	CHECK(has(pm, 5, MR_PG_REFERENCED) && !has(pm, 5, MR_PG_ACTIVE));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGACTIVATE), 2);
	p->ops->mark_accessed(p, 4); /* active,unreferenced -> active,referenced */
	CHECK(has(pm, 4, MR_PG_ACTIVE | MR_PG_REFERENCED));
	shrink(p, 1, 0);
	CHECK(resident(pm, 4) && !resident(pm, 5));
	CHECK(p->ops->check(p) == 0);
	mr_policy_destroy(p);
	pm_destroy(pm);
}

/*
 * kswapd_age_node(): kswapd deactivates anon in every memcg of the node when the node's
 * whole anon LRU is short of inactive pages, even in a memcg whose own lists are
 * balanced; memcg reclaim only rebalances the lruvec it shrank (shrink_lruvec's tail).
 */
static void test_lru_kswapd_age_node(void)
{
	struct pm_machine *pm = pm_create(&(struct pm_config){ .nr_pages = 16, .nr_memcgs = 2 });
	struct mr_policy *p = policy(pm, "lru");
	struct mr_scan_control sc = sc_make(0, MR_DEF_PRIORITY);

	for (uint32_t i = 0; i < 15; i++) {
		pm_folio(pm, i, PM_ANON, i < 8 ? 0 : 1, 0);
		p->ops->folio_add(p, i, 0);
		if (i < 8 || i >= 12) { /* memcg 0: 8 active; memcg 1: 4 inactive, 3 active */
			p->ops->mark_accessed(p, i);
			p->ops->mark_accessed(p, i);
		}
	}
	CHECK(has(pm, 0, MR_PG_ACTIVE) && has(pm, 12, MR_PG_ACTIVE) && !has(pm, 8, MR_PG_ACTIVE));

	/* memcg 1 alone (4 inactive >= 3 active): nothing to rebalance */
	sc.kswapd = 0;
	sc.memcg_reclaim = 1;
	sc.memcg = 1;
	p->ops->shrink_lruvec(p, 1, &sc);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGDEACTIVATE), 0);
	CHECK(has(pm, 12, MR_PG_ACTIVE) && has(pm, 14, MR_PG_ACTIVE));

	/* kswapd at the node's first memcg: the node has 4 inactive, 11 active anon */
	sc = sc_make(0, MR_DEF_PRIORITY);
	p->ops->shrink_lruvec(p, 0, &sc);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGDEACTIVATE), 11);
	for (uint32_t i = 0; i < 15; i++)
		CHECK(!has(pm, i, MR_PG_ACTIVE) && resident(pm, i));
	CHECK(has(pm, 12, MR_PG_WORKINGSET) && !has(pm, 8, MR_PG_WORKINGSET));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_ACTIVE_ANON), 0);

	/* without swap, anon is not aged (can_age_anon_pages) */
	for (uint32_t i = 0; i < 8; i++) {
		p->ops->mark_accessed(p, i);
		p->ops->mark_accessed(p, i);
	}
	pm->m.swap_free = 0;
	pm->m.swap_total = 0;
	p->ops->shrink_lruvec(p, 0, &sc);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGDEACTIVATE), 11);
	/* with swap that is full, it is (total_swap_pages, not the free pages) */
	pm->m.swap_total = 100;
	p->ops->shrink_lruvec(p, 0, &sc);
	CHECK(pm_vmstat(pm, MR_VM_PGDEACTIVATE) > 11);
	CHECK(p->ops->check(p) == 0);
	mr_policy_destroy(p);
	pm_destroy(pm);
}

/* Executable file folios are activated on first use; anon ones are not. */
static void test_lru_exec(void)
{
	struct pm_machine *pm = machine(16);
	struct mr_policy *p = policy(pm, "lru");

	pm_add_vma(pm, 0, VMA_BASE, VMA_BASE + 16 * 4096, MR_VMA_READ | MR_VMA_EXEC | MR_VMA_FILE,
		   1);
	fault(pm, p, 0, PM_FILE);
	fault(pm, p, 1, PM_ANON);
	shrink(p, 2, 0);
	CHECK(has(pm, 0, MR_PG_ACTIVE | MR_PG_REFERENCED));
	CHECK(!has(pm, 1, MR_PG_ACTIVE) && has(pm, 1, MR_PG_REFERENCED));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_ACTIVE_FILE), 1);

	/*
	 * shrink_active_list: a referenced exec file folio stays active; with anon
	 * unused. Deactivate with only active file pages: inactive_is_low holds.
	 */
	pm_touch(pm, 0, PAGE_ADDR(0), 0);
	add(pm, p, 2, PM_FILE);
	p->ops->mark_accessed(p, 2);
	p->ops->mark_accessed(p, 2); /* active, unmapped */
	shrink(p, 0, 0);
	CHECK(has(pm, 0, MR_PG_ACTIVE) && !has(pm, 0, MR_PG_WORKINGSET));
	CHECK(!has(pm, 2, MR_PG_ACTIVE) && has(pm, 2, MR_PG_WORKINGSET));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGDEACTIVATE), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGREFILL), 2);
	mr_policy_destroy(p);
	pm_destroy(pm);
}

/* Dirty file folios go to the active list with PG_reclaim; when writeback ends they
 * rotate to the inactive tail and are reclaimed first. Anon goes to swap through
 * writeback and is freed by a later scan. */
static void test_lru_writeback(void)
{
	struct pm_machine *pm = machine(16);
	struct mr_policy *p = policy(pm, "lru");

	add(pm, p, 0, PM_FILE);
	pm->m.folios[0].flags |= MR_PG_DIRTY;
	add(pm, p, 1, PM_FILE);
	add(pm, p, 2, PM_FILE);
	/* inactive file, head to tail: 2 1 0; scanning 3 >> 1 = 1 takes 0 */
	shrink(p, 1, 1);
	CHECK(has(pm, 0, MR_PG_ACTIVE | MR_PG_RECLAIM | MR_PG_LRU));
	CHECK(resident(pm, 1) && resident(pm, 2));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_VMSCAN_IMMEDIATE), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_ACTIVE_FILE), 1);

	/* the flusher writes it back; at the end it rotates to the inactive tail */
	pm->m.folios[0].flags &= ~MR_PG_DIRTY;
	pm->m.folios[0].flags |= MR_PG_WRITEBACK;
	add(pm, p, 3, PM_FILE);
	end_writeback(pm, p, 0);
	CHECK(!has(pm, 0, MR_PG_ACTIVE) && !has(pm, 0, MR_PG_RECLAIM));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGROTATED), 1);
	/* 3 2 1 0: scanning 4 >> 2 = 1 takes the rotated folio */
	shrink(p, 1, 2);
	CHECK(!resident(pm, 0) && resident(pm, 1) && resident(pm, 2) && resident(pm, 3));
	/* folio_del takes folios off the lists */
	p->ops->folio_del(p, 1);
	p->ops->folio_del(p, 2);
	p->ops->folio_del(p, 3);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_INACTIVE_FILE), 0);
	CHECK(!has(pm, 1, MR_PG_LRU));

	/* anon: pageout, then freed after writeback ends */
	add(pm, p, 5, PM_ANON);
	shrink(p, 1, 0);
	CHECK(resident(pm, 5) && has(pm, 5, MR_PG_SWAPCACHE | MR_PG_WRITEBACK | MR_PG_RECLAIM));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PSWPOUT), 1);
	end_writeback(pm, p, 5);
	shrink(p, 1, 0);
	CHECK(!resident(pm, 5));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSTEAL_ANON), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PSWPOUT), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGROTATED), 2);
	CHECK(p->ops->check(p) == 0);
	mr_policy_destroy(p);
	pm_destroy(pm);
}

/*
 * Refault distance: one active file folio W is the file workingset; X is evicted; then
 * `extra` anon folios are activated (each ages the nonresident clock by one), `gone` of
 * them are freed again (the age stays, the workingset shrinks), and `inact` inactive anon
 * folios are added (no aging). X refaults at distance 1 + extra; it is activated iff
 * that is at most the workingset: active file, plus active and inactive anon when swap
 * is available.
 */
static void refault_case(int extra, int gone, int inact, int swap, int ws, int expect)
{
	struct pm_machine *pm = machine(16);
	struct mr_policy *p = policy(pm, "lru");
	int failures = mr_test_failures;
	uint64_t shadow;
	int i;

	pm->m.swap_free = 0; /* full: workingset_test_recent() leaves anon out */
	add(pm, p, 0, PM_FILE); /* W */
	p->ops->mark_accessed(p, 0);
	p->ops->mark_accessed(p, 0);
	add(pm, p, 1, PM_FILE); /* X */
	if (ws)
		pm->m.folios[1].flags |= MR_PG_WORKINGSET;
	{
		struct mr_scan_control sc = sc_make(1, 0);

		sc.kswapd = 0;
		sc.memcg_reclaim = 1;
		p->ops->shrink_lruvec(p, 0, &sc);
		CHECK_EQ_U64(sc.nr_reclaimed, 1);
	}
	CHECK(!resident(pm, 1) && resident(pm, 0) && has(pm, 0, MR_PG_ACTIVE));
	CHECK_EQ_U64(pm_lruvec_stat(pm, 0, MR_VM_PGSTEAL_DIRECT), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSTEAL_DIRECT), 0); /* cgroup reclaim */
	shadow = pm->shadow[1];
	CHECK(shadow != 0);
	for (i = 0; i < extra; i++) {
		add(pm, p, 4 + (uint32_t)i, PM_ANON);
		p->ops->mark_accessed(p, 4 + (uint32_t)i);
		p->ops->mark_accessed(p, 4 + (uint32_t)i); /* activation: clock + 1 */
	}
	for (i = 0; i < gone; i++)
		p->ops->folio_del(p, 4 + (uint32_t)i);
	for (i = 0; i < inact; i++)
		add(pm, p, 10 + (uint32_t)i, PM_ANON);
	if (swap)
		pm->m.swap_free = 100;

	pm_folio(pm, 1, PM_FILE, 0, 0);
	p->ops->refault(p, 1, shadow, MR_ADD_IN_FAULT | MR_ADD_REFAULT);
	p->ops->folio_add(p, 1, MR_ADD_IN_FAULT | MR_ADD_REFAULT);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_WORKINGSET_REFAULT_FILE), 1);
	CHECK_EQ_U64(pm_lruvec_stat(pm, 0, MR_VM_WORKINGSET_REFAULT_FILE), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_WORKINGSET_ACTIVATE_FILE), expect);
	CHECK(has(pm, 1, MR_PG_ACTIVE) == expect);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_WORKINGSET_RESTORE_FILE), expect && ws);
	CHECK(has(pm, 1, MR_PG_WORKINGSET) == (expect && ws));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_ACTIVE_FILE), 1 + expect);
	CHECK(p->ops->check(p) == 0);
	if (mr_test_failures != failures)
		fprintf(stderr, "  in refault_case(extra %d, gone %d, inact %d, swap %d, ws %d)\n",
			extra, gone, inact, swap, ws);
	mr_policy_destroy(p);
	pm_destroy(pm);
}

static void test_lru_refault(void)
{
	/*          extra gone inact swap ws  expect */
	refault_case(0, 0, 0, 0, 0, 1); /* distance 1 <= 1 (active file) */
	refault_case(1, 0, 0, 0, 0, 0); /* distance 2 > 1: anon does not count without swap */
	refault_case(1, 0, 0, 1, 0, 1); /* 2 <= 1 + 1 active anon */
	refault_case(2, 0, 0, 1, 0, 1); /* 3 <= 1 + 2: equal is recent */
	refault_case(2, 1, 0, 1, 0, 0); /* 3 > 1 + 1 */
	refault_case(2, 1, 1, 1, 0, 1); /* 3 <= 1 + 1 + 1 inactive anon */
	refault_case(0, 0, 0, 0, 1, 1); /* workingset at eviction: restored */
	refault_case(1, 0, 0, 0, 1, 0); /* too far: neither activated nor restored */
}

/* Random adds, faults, accesses, dirtying, writeback ends, frees, refaults and reclaim at
 * every priority: the lists, sizes and gauges stay consistent. */
static void test_lru_random(void)
{
	enum { N = 96 };
	struct pm_machine *pm = machine(N);
	struct mr_policy *p = policy(pm, "lru");
	uint64_t seed = test_seed ^ 0x5bd1e995ull, st = seed;
	int i, fails = mr_test_failures;

	pm_add_vma(pm, 0, VMA_BASE, VMA_BASE + N * 4096, MR_VMA_READ | MR_VMA_WRITE, 0);
	for (i = 0; i < 6000 && mr_test_failures == fails; i++) {
		uint32_t page = (uint32_t)(mr_test_rand(&st) % N);
		unsigned op = (unsigned)(mr_test_rand(&st) % 8);
		struct mr_folio *f = &pm->m.folios[page];

		if (!resident(pm, page)) {
			enum pm_kind kind = (page % 3) ? PM_FILE : PM_ANON;

			pm_folio(pm, page, kind, 0, 0);
			if (pm->shadow[page]) /* evicted by reclaim: a refault */
				p->ops->refault(p, page, pm->shadow[page], MR_ADD_REFAULT);
			if (op & 1) {
				pm_map(pm, 0, PAGE_ADDR(page), page, MR_PTE_YOUNG);
				p->ops->folio_add(p, page, MR_ADD_IN_FAULT);
			} else {
				p->ops->folio_add(p, page, 0);
			}
			pm->shadow[page] = 0;
			continue;
		}
		switch (op) {
		case 0:
			p->ops->mark_accessed(p, page);
			break;
		case 1:
			pm_touch(pm, 0, PAGE_ADDR(page), (int)(mr_test_rand(&st) & 1));
			break;
		case 2:
			if (!(f->flags & MR_PG_WRITEBACK) && mr_folio_is_file_lru(f))
				f->flags |= MR_PG_DIRTY;
			break;
		case 3:
			if (f->flags & MR_PG_DIRTY && mr_folio_is_file_lru(f)) {
				f->flags &= ~MR_PG_DIRTY; /* the flusher starts writeback */
				f->flags |= MR_PG_WRITEBACK;
			} else if (f->flags & MR_PG_WRITEBACK) {
				end_writeback(pm, p, page);
			}
			break;
		case 4:
			if (!(mr_test_rand(&st) % 8)) { /* freed outside reclaim (munmap) */
				struct mr_pte_table *pt = pm_table(pm, 0, PAGE_ADDR(page), 0);
				unsigned sl = page & (MR_PTRS_PER_TABLE - 1);

				p->ops->folio_del(p, page);
				if (pt && pt->page[sl] == page) {
					pt->page[sl] = MR_NONE;
					pt->bits[sl] = 0;
					pt->nr_present--;
				}
				f->flags = 0;
				f->mapcount = 0;
			}
			break;
		default: {
			struct mr_scan_control sc = sc_make(1 + mr_test_rand(&st) % 8,
							    (int)(mr_test_rand(&st) % 13));

			sc.kswapd = (int)(mr_test_rand(&st) & 1);
			sc.memcg_reclaim = !sc.kswapd;
			p->ops->shrink_lruvec(p, 0, &sc);
			break;
		}
		}
		if (i % 50 == 0)
			CHECK(p->ops->check(p) == 0);
	}
	CHECK(p->ops->check(p) == 0);
	{
		uint64_t lists = pm_vmstat(pm, MR_VM_NR_ACTIVE_ANON) +
				 pm_vmstat(pm, MR_VM_NR_INACTIVE_ANON) +
				 pm_vmstat(pm, MR_VM_NR_ACTIVE_FILE) +
				 pm_vmstat(pm, MR_VM_NR_INACTIVE_FILE);
		uint32_t pg, nres = 0;

		for (pg = 0; pg < N; pg++)
			nres += resident(pm, pg);
		CHECK_EQ_U64(lists, nres);
	}
	if (getenv("MR_TEST_VERBOSE")) {
		static const unsigned items[] = { MR_VM_PGSTEAL_FILE, MR_VM_PGSTEAL_ANON,
						  MR_VM_WORKINGSET_REFAULT_FILE,
						  MR_VM_WORKINGSET_ACTIVATE_FILE,
						  MR_VM_WORKINGSET_RESTORE_ANON, MR_VM_PGACTIVATE,
						  MR_VM_PGDEACTIVATE, MR_VM_PGROTATED, MR_VM_PSWPOUT,
						  MR_VM_NR_VMSCAN_IMMEDIATE };
		size_t k;

		for (k = 0; k < sizeof(items) / sizeof(items[0]); k++)
			printf("  lru_random %s %llu\n", mr_vmstat_name(items[k]),
			       (unsigned long long)pm_vmstat(pm, items[k]));
	}
	if (mr_test_failures != fails)
		fprintf(stderr, "  test_lru_random seed %llu step %d\n", (unsigned long long)seed, i);
	mr_policy_destroy(p);
	pm_destroy(pm);
}

/* ---- opt ---- */

/* Next use of refs[t]'s page after t, or UINT64_MAX. */
static uint64_t next_use(const uint32_t *refs, uint32_t n, uint32_t t)
{
	uint32_t u;

	for (u = t + 1; u < n; u++)
		if (refs[u] == refs[t])
			return u;
	return UINT64_MAX;
}

/* Replay refs through opt with room for `frames` pages, demand paging (reclaim one
 * page when full), reporting trace position t as t * scale (scale > 1 stands for a
 * trace of more than 2^32 references); returns the number of faults. */
static uint32_t run_opt_scaled(const uint32_t *refs, uint32_t n, uint32_t frames,
			       uint32_t nr_pages, uint64_t scale)
{
	struct pm_machine *pm = machine(nr_pages);
	struct mr_policy *p = policy(pm, "opt");
	uint32_t t, faults = 0, nres = 0;

	for (t = 0; t < n; t++) {
		uint32_t page = refs[t];
		uint64_t nu = next_use(refs, n, t);

		if (nu != UINT64_MAX)
			nu *= scale;
		if (!resident(pm, page)) {
			if (nres == frames) {
				struct mr_scan_control sc = sc_make(1, MR_DEF_PRIORITY);

				p->ops->shrink_lruvec(p, 0, &sc);
				CHECK_EQ_U64(sc.nr_reclaimed, 1);
				nres -= (uint32_t)sc.nr_reclaimed;
			}
			pm_folio(pm, page, PM_FILE, 0, 0);
			p->ops->folio_add(p, page, MR_ADD_IN_FAULT);
			nres++;
			faults++;
		}
		p->ops->access(p, page, nu);
	}
	CHECK(p->ops->check(p) == 0);
	CHECK_EQ_U64(pm->nr_removed, faults - nres);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSTEAL_FILE), faults - nres);
	mr_policy_destroy(p);
	pm_destroy(pm);
	return faults;
}

static uint32_t run_opt(const uint32_t *refs, uint32_t n, uint32_t frames, uint32_t nr_pages)
{
	return run_opt_scaled(refs, n, frames, nr_pages, 1);
}

/* Belady's MIN the obvious way: on a miss with memory full, scan ahead for the resident
 * page used farthest in the future. */
static uint32_t naive_min(const uint32_t *refs, uint32_t n, uint32_t frames)
{
	uint32_t res[64], nres = 0, t, i, faults = 0;

	for (t = 0; t < n; t++) {
		int hit = 0;

		for (i = 0; i < nres; i++)
			hit |= res[i] == refs[t];
		if (hit)
			continue;
		faults++;
		if (nres == frames) {
			uint32_t victim = 0;
			uint64_t far = 0;

			for (i = 0; i < nres; i++) {
				uint64_t u;

				for (u = t + 1; u < n && refs[u] != res[i]; u++)
					;
				if (u == n)
					u = UINT64_MAX;
				if (u >= far) {
					far = u;
					victim = i;
				}
			}
			res[victim] = refs[t];
		} else {
			res[nres++] = refs[t];
		}
	}
	return faults;
}

static void test_opt_textbook(void)
{
	/* Silberschatz's reference string: 9 faults with 3 frames under OPT (LRU: 12). */
	static const uint32_t refs[] = { 7, 0, 1, 2, 0, 3, 0, 4, 2, 3,
					 0, 3, 2, 1, 2, 0, 1, 7, 0, 1 };
	uint32_t n = sizeof(refs) / sizeof(refs[0]);

	CHECK_EQ_U64(run_opt(refs, n, 3, 8), 9);
	CHECK_EQ_U64(naive_min(refs, n, 3), 9);
	CHECK_EQ_U64(run_opt(refs, n, 4, 8), 8);
	CHECK_EQ_U64(run_opt(refs, n, 1, 8), 20);
}

/* 100 random skewed traces (low ids are hot): opt with next-use positions times
 * scales[round % nscales] evicts exactly as many as naive MIN. */
static void opt_matches_min(uint64_t seed, const uint64_t *scales, size_t nscales)
{
	uint64_t st = seed;
	uint32_t refs[300];
	int round;

	for (round = 0; round < 100; round++) {
		uint32_t n = 50 + (uint32_t)(mr_test_rand(&st) % 250);
		uint32_t pages = 2 + (uint32_t)(mr_test_rand(&st) % 14);
		uint32_t frames = 1 + (uint32_t)(mr_test_rand(&st) % pages);
		uint32_t t, a, b;

		for (t = 0; t < n; t++)
			refs[t] = (uint32_t)(mr_test_rand(&st) % (1 + mr_test_rand(&st) % pages));
		a = run_opt_scaled(refs, n, frames, pages, scales[(size_t)round % nscales]);
		b = naive_min(refs, n, frames);
		CHECK_EQ_U64(a, b);
		if (a != b) {
			fprintf(stderr, "  seed %llu round %d: %u pages, %u frames\n",
				(unsigned long long)seed, round, pages, frames);
			break;
		}
	}
}

static void test_opt_random(void)
{
	static const uint64_t one = 1;

	opt_matches_min(test_seed, &one, 1);
}

static void run_opt_heap(uint64_t scale);

/* Positions beyond 2^32 (a trace of more references): bucket entries keep only the low
 * 32 bits of a key, which here are the same for every key (scale 2^33) or collide
 * often (2^32 + 1); the choices must still be MIN's. */
static void test_opt_wide_keys(void)
{
	static const uint64_t scales[] = { UINT64_C(1) << 33, (UINT64_C(1) << 32) + 1 };
	uint64_t seed = test_seed ^ 0x5bd1e995ull;

	opt_matches_min(seed, scales, 2);
	/* keys that go down as well as up: entries whose low bits match a key of another
	 * bucket */
	run_opt_heap(scales[0]);
	/* the same, reclaiming one folio at a time: always the farthest (never first, then
	 * the highest key; lower page id on ties) */
	{
		struct pm_machine *pm = machine(64);
		struct mr_policy *p = policy(pm, "opt");
		uint64_t key[64], st2 = seed + 1;
		int i, fails = mr_test_failures;

		for (i = 0; i < 20000 && mr_test_failures == fails; i++) {
			uint32_t page = (uint32_t)(mr_test_rand(&st2) % 64), q, want = MR_NONE;
			unsigned op = (unsigned)(mr_test_rand(&st2) % 16);
			struct mr_scan_control sc = sc_make(1, MR_DEF_PRIORITY);

			if (op < 3) {
				for (q = 0; q < 64; q++)
					if (resident(pm, q) && (want == MR_NONE || key[q] > key[want]))
						want = q;
				if (want == MR_NONE)
					continue;
				p->ops->shrink_lruvec(p, 0, &sc);
				CHECK_EQ_U64(sc.nr_reclaimed, 1);
				CHECK(!resident(pm, want));
			} else if (!resident(pm, page)) {
				pm_folio(pm, page, PM_FILE, 0, 0);
				p->ops->folio_add(p, page, 0);
				key[page] = UINT64_MAX;
				if (op & 1) { /* a fault: the access follows */
					key[page] = mr_test_rand(&st2) % 1000 * scales[0];
					p->ops->access(p, page, key[page]);
				}
			} else if (op == 3) {
				p->ops->folio_del(p, page);
				pm->m.folios[page].flags = 0;
			} else {
				key[page] = op == 4 ? UINT64_MAX : mr_test_rand(&st2) % 1000 * scales[0];
				p->ops->access(p, page, key[page]);
			}
			if (i % 97 == 0)
				CHECK(p->ops->check(p) == 0);
		}
		CHECK(p->ops->check(p) == 0);
		if (mr_test_failures != fails)
			fprintf(stderr, "  test_opt_wide_keys reclaim seed %llu step %d\n",
				(unsigned long long)seed, i);
		mr_policy_destroy(p);
		pm_destroy(pm);
	}
}

/* The farthest folio is dirty (file) or anon: it is written back, not freed, and the
 * next farthest goes instead; after writeback it is the first victim. */
static void test_opt_dirty(void)
{
	struct pm_machine *pm = machine(8);
	struct mr_policy *p = policy(pm, "opt");

	add(pm, p, 0, PM_FILE);
	p->ops->access(p, 0, 10);
	add(pm, p, 1, PM_FILE);
	p->ops->access(p, 1, 100);
	pm->m.folios[1].flags |= MR_PG_DIRTY;
	add(pm, p, 2, PM_FILE);
	p->ops->access(p, 2, 50);
	add(pm, p, 3, PM_ANON);
	p->ops->access(p, 3, 70);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_INACTIVE_FILE), 3);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_NR_INACTIVE_ANON), 1);

	shrink(p, 1, MR_DEF_PRIORITY);
	/* 1 (dirty file): PG_reclaim for the flusher; 3 (anon): pageout; 2 freed */
	CHECK(resident(pm, 1) && has(pm, 1, MR_PG_RECLAIM | MR_PG_LRU) && !has(pm, 1, MR_PG_ACTIVE));
	CHECK(resident(pm, 3) && has(pm, 3, MR_PG_WRITEBACK | MR_PG_SWAPCACHE | MR_PG_LRU));
	CHECK(!resident(pm, 2) && resident(pm, 0));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PSWPOUT), 1);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSCAN_KSWAPD), 3);
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PGSTEAL_KSWAPD), 1);

	/* writeback of both ends; the farthest (1) goes next, then 3 */
	pm->m.folios[1].flags &= ~MR_PG_DIRTY;
	pm->m.folios[1].flags |= MR_PG_WRITEBACK;
	end_writeback(pm, p, 1);
	end_writeback(pm, p, 3);
	shrink(p, 1, MR_DEF_PRIORITY);
	CHECK(!resident(pm, 1) && resident(pm, 3) && resident(pm, 0));
	shrink(p, 1, MR_DEF_PRIORITY);
	CHECK(!resident(pm, 3) && resident(pm, 0));
	CHECK_EQ_U64(pm_vmstat(pm, MR_VM_PSWPOUT), 1);
	/* nothing more asked, nothing freed */
	{
		struct mr_scan_control sc = sc_make(1, MR_DEF_PRIORITY);

		sc.nr_reclaimed = 1;
		p->ops->shrink_lruvec(p, 0, &sc);
		CHECK(resident(pm, 0) && sc.nr_reclaimed == 1);
	}
	mr_policy_destroy(p);
	pm_destroy(pm);
}

/* Heap invariants under random adds, key changes (keys scaled by scale) and deletions;
 * lruvecs separate. */
static void run_opt_heap(uint64_t scale)
{
	struct pm_machine *pm = pm_create(&(struct pm_config){ .nr_pages = 64, .nr_memcgs = 2 });
	struct mr_policy *p = policy(pm, "opt");
	uint64_t seed = test_seed ^ 0x9e3779b97f4a7c15ull, st = seed;
	int i, fails = mr_test_failures;

	for (i = 0; i < 4000; i++) {
		uint32_t page = (uint32_t)(mr_test_rand(&st) % 64);
		unsigned op = (unsigned)(mr_test_rand(&st) % 4);

		if (!resident(pm, page)) {
			pm_folio(pm, page, PM_FILE, page & 1, 0);
			p->ops->folio_add(p, page, 0);
		} else if (op == 0) {
			p->ops->folio_del(p, page);
			pm->m.folios[page].flags = 0;
		} else {
			p->ops->access(p, page, mr_test_rand(&st) % 1000 * scale);
		}
		if (i % 97 == 0)
			CHECK(p->ops->check(p) == 0);
	}
	CHECK(p->ops->check(p) == 0);
	/* reclaiming lruvec 1 takes only its folios */
	{
		struct mr_scan_control sc = sc_make(64, MR_DEF_PRIORITY);
		int before[64];
		uint32_t page;

		for (page = 0; page < 64; page++)
			before[page] = resident(pm, page);
		p->ops->shrink_lruvec(p, 1, &sc);
		for (page = 0; page < 64; page++)
			CHECK(resident(pm, page) == ((page & 1) ? 0 : before[page]));
	}
	CHECK(p->ops->check(p) == 0);
	if (mr_test_failures != fails)
		fprintf(stderr, "  test_opt_heap seed %llu scale %llu\n", (unsigned long long)seed,
			(unsigned long long)scale);
	mr_policy_destroy(p);
	pm_destroy(pm);
}

static void test_opt_heap(void)
{
	run_opt_heap(1);
}

/* mr_policy_short_spec(): only the parameters off their defaults, for people */
static void test_short_spec(void)
{
	char out[256], tiny[8];

	mr_policy_short_spec("lru:swappiness=60", out, sizeof(out));
	CHECK(!strcmp(out, "lru"));
	mr_policy_short_spec("lru:swappiness=100", out, sizeof(out));
	CHECK(!strcmp(out, "lru:swappiness=100"));
	mr_policy_short_spec("opt", out, sizeof(out));
	CHECK(!strcmp(out, "opt"));
	/* a canonical spec, two off the defaults: table order, enum names */
	mr_policy_short_spec("mglru:swappiness=60,min_ttl_ms=0,enabled=7,lru_gen_stats=0,"
			     "inc_min_seq=base,ra_placement=B,exec_promote=0,probes=0,pud_filter=0,"
			     "stats_layout=before,lrugen_base=8,cacheline_model=0,kernel=6.12",
			     out, sizeof(out));
	CHECK(!strcmp(out, "mglru:ra_placement=B,kernel=6.12"));
	/* the order given does not matter */
	mr_policy_short_spec("mglru:kernel=6.12,swappiness=200", out, sizeof(out));
	CHECK(!strcmp(out, "mglru:swappiness=200,kernel=6.12"));
	/* what does not parse is copied: an unknown policy, a bad value */
	mr_policy_short_spec("nosuch:x=1", out, sizeof(out));
	CHECK(!strcmp(out, "nosuch:x=1"));
	mr_policy_short_spec("lru:swappiness=999", out, sizeof(out));
	CHECK(!strcmp(out, "lru:swappiness=999"));
	/* too small a buffer: the short form cut and terminated, its whole length returned */
	CHECK_EQ_U64(mr_policy_short_spec("mglru:swappiness=60,min_ttl_ms=0,enabled=7,"
					  "lru_gen_stats=0,inc_min_seq=base,ra_placement=B",
					  tiny, sizeof(tiny)),
		     strlen("mglru:ra_placement=B"));
	CHECK(!strcmp(tiny, "mglru:r"));
	CHECK_EQ_U64(mr_policy_short_spec("nosuch:x=1", tiny, sizeof(tiny)), strlen("nosuch:x=1"));
	CHECK(!strcmp(tiny, "nosuch:"));
	CHECK_EQ_U64(mr_policy_short_spec("opt", NULL, 0), 3);
}

static const struct mr_test_case cases[] = {
	MR_CASE(test_builtins),
	MR_CASE(test_parse_builtin),
	MR_CASE(test_parse_types),
	MR_CASE(test_register_validation),
	MR_CASE(test_describe),
	MR_CASE(test_plugins),
	MR_CASE(test_vmstat_names),
	MR_CASE(test_shrink_folio_list),
	MR_CASE(test_folio_referenced),
	MR_CASE(test_lru_second_chance),
	MR_CASE(test_lru_exec),
	MR_CASE(test_lru_kswapd_age_node),
	MR_CASE(test_short_spec),
	MR_CASE(test_lru_writeback),
	MR_CASE(test_lru_refault),
	MR_CASE(test_lru_random),
	MR_CASE(test_opt_textbook),
	MR_CASE(test_opt_random),
	MR_CASE(test_opt_wide_keys),
	MR_CASE(test_opt_dirty),
	MR_CASE(test_opt_heap),
};

int main(int argc, char **argv)
{
	test_seed = mr_test_seed();
	return mr_test_main("test_policy", cases, sizeof(cases) / sizeof(cases[0]), argc, argv);
}
