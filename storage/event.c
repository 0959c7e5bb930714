// SPDX-License-Identifier: GPL-2.0
/* event.c - names of event kinds, as used by `info`, SQL views and the CLI. */
#include "mr_event.h"

#include <string.h>

static const char *const kind_names[MR_EV_NR_KINDS] = {
	[MR_EV_ACCESS] = "access",	   [MR_EV_FD_ACCESS] = "fd_access",
	[MR_EV_FAULT] = "fault",	   [MR_EV_PC_INSERT] = "pc_insert",
	[MR_EV_PC_DELETE] = "pc_delete",   [MR_EV_READAHEAD] = "readahead",
	[MR_EV_MAP] = "map",		   [MR_EV_UNMAP] = "unmap",
	[MR_EV_FREE] = "free",		   [MR_EV_REFAULT] = "refault",
	[MR_EV_SWAP_IN] = "swap_in",	   [MR_EV_SWAP_OUT] = "swap_out",
	[MR_EV_ACTIVATE] = "activate",	   [MR_EV_SCAN_BEGIN] = "scan_begin",
	[MR_EV_SCAN_END] = "scan_end",	   [MR_EV_LOST] = "lost",
	[MR_EV_MARKER] = "marker",	   [MR_EV_EXIT] = "exit",
	[MR_EV_SWITCH] = "switch",
};

const char *mr_event_kind_name(unsigned kind)
{
	return kind < MR_EV_NR_KINDS ? kind_names[kind] : NULL;
}

