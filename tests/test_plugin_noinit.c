// SPDX-License-Identifier: GPL-2.0
/* test_plugin_noinit.c - a shared object that is not a policy plugin (no mr_plugin_init). */
int mr_not_a_plugin(void);

int mr_not_a_plugin(void)
{
	return 42;
}
