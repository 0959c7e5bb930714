// SPDX-License-Identifier: GPL-2.0
/* cmd_host.c - `memreplay host`: what this host lets the recorder see, and how to fix gaps. */
#include <stdio.h>

#include "cli.h"
#include "mr_recorder.h"

int cmd_host(int argc, char **argv)
{
	static char report[MR_PROBE_REPORT_MAX];
	struct mr_error err = { 0 };
	struct mr_probe p;
	int n;

	if (argc > 1)
		return cli_usage_error("host", "takes no arguments");
	if (mr_recorder_probe(&p, &err))
		return cli_fail("host", &err);
	n = mr_probe_format(&p, report, sizeof(report));
	if (n < 0) {
		err.code = n;
		return cli_fail("host", &err);
	}
	fputs(report, stdout);
	return 0;
}
