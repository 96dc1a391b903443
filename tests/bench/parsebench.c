// SPDX-License-Identifier: GPL-2.0-or-later
/* parsebench.c - the /proc/interrupts parser of sample.o alone, against
 * reading the same file, for make bench-speed.
 *
 *	parsebench [-n ITERATIONS] FILE
 *
 * Best of ITERATIONS (default 20) process CPU times of: reading FILE
 * through a 64 KiB buffer (open + read, what cat costs without its write);
 * interrupts_parse() of FILE opened with fopen() (what irqtune does); and
 * interrupts_parse() of the bytes already in memory (fmemopen; the parse
 * alone). Prints "key value" lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sample.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* All of @path into a new buffer. */
static int read_all(const char *path, char **ret_buf, size_t *ret_len)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap), *nb;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		free(buf);
		return fd < 0 ? -errno : -ENOMEM;
	}
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)n;
		if (len == cap) {
			nb = realloc(buf, cap *= 2);
			if (!nb) {
				n = -1;
				errno = ENOMEM;
				break;
			}
			buf = nb;
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return -errno;
	}
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

int main(int argc, char **argv)
{
	double t, best_read = 1e9, best_file = 1e9, best_mem = 1e9;
	unsigned int rows = 0, cols = 0;
	int iters = 20, opt;
	static char chunk[64 * 1024];
	char *mem = NULL;
	size_t size = 0;
	const char *path;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (iters = atoi(optarg)) < 1) {
			fputs("usage: parsebench [-n ITERATIONS] FILE\n", stderr);
			return 64;
		}
	}
	if (optind + 1 != argc) {
		fputs("usage: parsebench [-n ITERATIONS] FILE\n", stderr);
		return 64;
	}
	path = argv[optind];
	if (read_all(path, &mem, &size) < 0 || size == 0) {
		fprintf(stderr, "parsebench: cannot read %s\n", path);
		return 66;
	}
	for (int i = 0; i < iters; i++) {
		struct interrupts *intr = NULL;
		unsigned int line = 0;
		size_t got;
		ssize_t n;
		FILE *f;
		int fd, r;

		/* read only */
		t = cpu_now();
		fd = open(path, O_RDONLY | O_CLOEXEC);
		got = 0;
		while (fd >= 0 && (n = read(fd, chunk, sizeof(chunk))) > 0)
			got += (size_t)n;
		if (fd >= 0)
			close(fd);
		t = cpu_now() - t;
		if (t < best_read)
			best_read = t;
		if (got != size)
			return 70;

		/* fopen + parse, as irqtune */
		t = cpu_now();
		f = fopen(path, "re");
		r = f ? interrupts_parse(f, &intr, &line) : -errno;
		if (f)
			fclose(f);
		if (r == 0) {
			rows = intr->nr_rows;
			cols = intr->nr_cols;
		}
		interrupts_free(intr);
		t = cpu_now() - t;
		if (r < 0) {
			fprintf(stderr, "parsebench: %s:%u: %s\n", path, line, strerror(-r));
			return 65;
		}
		if (t < best_file)
			best_file = t;

		/* parse from memory */
		intr = NULL;
		t = cpu_now();
		f = fmemopen(mem, size, "r");
		r = f ? interrupts_parse(f, &intr, &line) : -errno;
		if (f)
			fclose(f);
		interrupts_free(intr);
		t = cpu_now() - t;
		if (r < 0)
			return 65;
		if (t < best_mem)
			best_mem = t;
	}
	printf("bytes %zu\nrows %u\ncolumns %u\niterations %d\n", size, rows, cols, iters);
	printf("read_s %.6f\nparse_file_s %.6f\nparse_mem_s %.6f\n", best_read,
	       best_file, best_mem);
	printf("parse_file_mb_s %.1f\n", (double)size / 1e6 / best_file);
	return 0;
}
