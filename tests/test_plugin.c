// SPDX-License-Identifier: GPL-2.0
/*
 * test_plugin.c - a minimal policy plugin for tests/test_policy.c: registers `testplug`
 * from mr_plugin_init(). It never runs a machine; its hooks do nothing.
 */
#include <stddef.h>

#include "mr_policy.h"

struct testplug_params {
	int64_t knob;
};

static void tp_folio_add(struct mr_policy *p, uint32_t page, unsigned ctx)
{
	(void)p, (void)page, (void)ctx;
}

static void tp_page(struct mr_policy *p, uint32_t page)
{
	(void)p, (void)page;
}

static void tp_refault(struct mr_policy *p, uint32_t page, uint64_t shadow, unsigned ctx)
{
	(void)p, (void)page, (void)shadow, (void)ctx;
}

static void tp_shrink(struct mr_policy *p, uint32_t lruvec, struct mr_scan_control *sc)
{
	(void)p, (void)lruvec, (void)sc;
}

static const struct mr_param_desc tp_params[] = {
	{ .name = "knob", .type = MR_PARAM_INT, .min = 0, .max = 9, .def = 4,
	  .offset = offsetof(struct testplug_params, knob), .help = "a test knob" },
};

static const struct mr_policy_ops testplug_ops = {
	.abi = MR_POLICY_ABI,
	.name = "testplug",
	.help = "test plugin policy",
	.params = tp_params,
	.nparams = 1,
	.params_size = sizeof(struct testplug_params),
	.folio_add = tp_folio_add,
	.mark_accessed = tp_page,
	.folio_del = tp_page,
	.refault = tp_refault,
	.rotate = tp_page,
	.shrink_lruvec = tp_shrink,
};

int mr_plugin_init(struct mr_error *err);

int mr_plugin_init(struct mr_error *err)
{
	return mr_policy_register(&testplug_ops, err);
}
