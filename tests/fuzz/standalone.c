// SPDX-License-Identifier: GPL-2.0-or-later
/* standalone.c - runs a fuzz target over files and directories of inputs
 * without libFuzzer, so any compiler (gcc with -fsanitize=address) can
 * replay the seeds and every past crash: `fuzz_x FILE|DIR...`. Exits 0
 * when every input ran; a crash aborts with the sanitizer's report. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "re");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	/* libFuzzer hands the target a buffer of exactly the input's size:
	 * copy so a read past the end is caught here too. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, unsigned int *n)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t nr = 0, cap = 0, i;
	int r = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*n)++;
		return run_file(path);
	}
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *full;

		if (de->d_name[0] == '.')
			continue;
		if (nr == cap) {
			char **nn = realloc(names, (cap ? cap * 2 : 64) * sizeof(*nn));

			if (!nn) {
				r = -1;
				break;
			}
			names = nn;
			cap = cap ? cap * 2 : 64;
		}
		if (asprintf(&full, "%s/%s", path, de->d_name) < 0) {
			r = -1;
			break;
		}
		names[nr++] = full;
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), compare);
	for (i = 0; i < nr; i++) {
		if (r == 0)
			r = run_path(names[i], n);
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	unsigned int n = 0;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (run_path(argv[i], &n) < 0)
			return 1;
	printf("%s: %u inputs ran\n", argv[0], n);
	return 0;
}
