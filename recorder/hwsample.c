// SPDX-License-Identifier: GPL-2.0
/*
 * hwsample.c - the hardware data-address sampling attempt: libpfm4 encodes a precise
 * load event (Intel PEBS MEM_INST_RETIRED.ALL_LOADS), else the generic "cycles", and one
 * perf_event_open on the calling thread says whether the PMU exists. The recorder does
 * not yet consume hardware samples; when the event opens it says so, and when it does not
 * it says why (errno) — in both cases software page faults remain the access source.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec_int.h"

int rec_hw_try(char *why, size_t cap)
{
	static const char *const names[] = { "MEM_INST_RETIRED.ALL_LOADS", "cycles" };
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int rc, fd;

	rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		snprintf(why, cap, "libpfm4 pfm_initialize failed (%s); software page "
			 "faults only", pfm_strerror(rc));
		return -1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.attr = &attr;
		arg.size = sizeof(arg);
		rc = pfm_get_os_event_encoding(names[i], PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
		if (rc != PFM_SUCCESS)
			continue;
		attr.size = sizeof(attr);
		attr.sample_period = 100003;
		attr.disabled = 1;
		attr.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd >= 0) {
			close(fd);
			snprintf(why, cap, "hardware event %s opens, but this recorder does not "
				 "consume hardware samples yet; software page faults only",
				 names[i]);
			return -1;
		}
		snprintf(why, cap, "hardware event %s (libpfm4) fails to open: %s (%s); "
			 "no hardware PMU here (VM without vPMU?), software page faults only",
			 names[i], strerrorname_np(errno) ? strerrorname_np(errno) : "?",
			 strerror(errno));
		return -1;
	}
	snprintf(why, cap, "libpfm4 encodes no sampling event for this CPU; software "
		 "page faults only");
	return -1;
}
