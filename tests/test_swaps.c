// SPDX-License-Identifier: GPL-2.0
/*
 * test_swaps.c - the recorder's reading of /proc/swaps (mr_recorder_parse_swaps()): the
 * total, the device count and the kind a replay takes its default swap from.
 */
#include <string.h>

#include "mr_recorder.h"
#include "mr_test.h"

int main(void)
{
	static const char hdr[] = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
	struct mr_host_swap s;
	char text[512];

	/* a zram device, as Fedora and ChromeOS set up */
	snprintf(text, sizeof(text), "%s/dev/zram0                              partition\t8388604\t\t1024\t\t100\n", hdr);
	mr_recorder_parse_swaps(text, &s);
	CHECK_EQ_U64(s.total_bytes, 8388604ull * 1024);
	CHECK_EQ_U64(s.devices, 1);
	CHECK(!strcmp(s.kind, "zram"));

	/* a swap file and a partition: disk, sizes summed */
	snprintf(text, sizeof(text), "%s/swapfile file 2097148 0 -2\n/dev/sda3 partition 1048572 0 -3\n", hdr);
	mr_recorder_parse_swaps(text, &s);
	CHECK_EQ_U64(s.total_bytes, (2097148ull + 1048572ull) * 1024);
	CHECK_EQ_U64(s.devices, 2);
	CHECK(!strcmp(s.kind, "disk"));

	/* both */
	snprintf(text, sizeof(text), "%s/dev/zram0 partition 100 0 100\n/dev/vda2 partition 200 0 -2\n", hdr);
	mr_recorder_parse_swaps(text, &s);
	CHECK(!strcmp(s.kind, "mixed") && s.zram == 1 && s.total_bytes == 300 * 1024);

	/* no swap: only the header (swapoff -a), an empty file, no file text at all */
	mr_recorder_parse_swaps(hdr, &s);
	CHECK(!strcmp(s.kind, "none") && s.devices == 0 && s.total_bytes == 0);
	mr_recorder_parse_swaps("", &s);
	CHECK(!strcmp(s.kind, "none"));
	mr_recorder_parse_swaps(NULL, &s);
	CHECK(!strcmp(s.kind, "none"));

	/* a line that does not parse is skipped, the rest counted */
	snprintf(text, sizeof(text), "%sgarbage\n/dev/zram1 partition 4 0 5", hdr);
	mr_recorder_parse_swaps(text, &s);
	CHECK(s.devices == 1 && s.total_bytes == 4096 && !strcmp(s.kind, "zram"));
	return mr_test_done("test_swaps");
}
