// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_main.c - replay a fuzz target's corpus without libFuzzer: `fuzz_X DIR|FILE...`
 * runs every file (a directory's files in name order) through LLVMFuzzerTestOneInput()
 * once. Exit 0 when all ran; a finding crashes or aborts, as under libFuzzer.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "fuzz_main: cannot read %s\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "fuzz_main: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	long ran = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat sb;
		struct dirent **names;
		int n;

		if (stat(argv[i], &sb) || !S_ISDIR(sb.st_mode)) {
			bad += run_file(argv[i]) != 0;
			ran++;
			continue;
		}
		n = scandir(argv[i], &names, NULL, by_name);
		if (n < 0) {
			fprintf(stderr, "fuzz_main: cannot list %s\n", argv[i]);
			bad++;
			continue;
		}
		for (int k = 0; k < n; k++) {
			char path[4096];

			if (names[k]->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
				bad += run_file(path) != 0;
				ran++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("%s: %ld inputs, %ld unreadable\n", argv[0], ran, bad);
	return bad || !ran;
}
