// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_replay_main.c - the regression driver of the replay side's fuzz targets in builds
 * without libFuzzer: feeds every file of each directory (or each file) named on the
 * command line to LLVMFuzzerTestOneInput(), in name order, so that the committed
 * corpora (the inputs the fuzzer found, minimised) run as ordinary CTest tests in every
 * build, the sanitizer build included. A target's broken promise aborts; no input at
 * all fails.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "fuzz_replay_main: cannot open %s\n", path);
		return -1;
	}
	for (;;) {
		size_t got;

		if (n == cap) {
			uint8_t *nb = realloc(buf, cap ? 2 * cap : 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
			cap = cap ? 2 * cap : 4096;
		}
		got = fread(buf + n, 1, cap - n, f);
		if (!got)
			break;
		n += got;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order; the count run, or -1. */
static long run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	long done = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap ? 2 * cap : 64) * sizeof(*nn));

			if (!nn)
				break;
			names = nn;
			cap = cap ? 2 * cap : 64;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			if (run_file(path))
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	long total = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		long k;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "fuzz_replay_main: no such input %s\n", argv[i]);
			return 1;
		}
		k = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) ? -1 : 1;
		if (k < 0)
			return 1;
		total += k;
	}
	printf("fuzz_replay_main: %ld inputs, no failure\n", total);
	return total ? 0 : 1;
}
