// SPDX-License-Identifier: GPL-2.0-or-later
/* floorcat.c - the floor of make bench-speed: read every file of a list
 * once, as cheaply as a program can, and nothing more.
 *
 *	floorcat LIST
 *
 * LIST holds one path a line (as the measured program named it: /sys/...,
 * /proc/...), run under the same preload as the program so the paths
 * resolve the same way. A file is read to its end through one 64 KiB
 * buffer (cat without the write), a directory is listed to its end
 * (getdents64, what readdir() costs). Prints "files N dirs N bytes N
 * failed N" to stdout. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#define BUF_SIZE	(64 * 1024)

int main(int argc, char **argv)
{
	static char buf[BUF_SIZE];
	unsigned long long bytes = 0;
	unsigned long files = 0, dirs = 0, failed = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *list;

	if (argc != 2) {
		fputs("usage: floorcat LIST\n", stderr);
		return 64;
	}
	list = fopen(argv[1], "re");
	if (!list) {
		perror(argv[1]);
		return 66;
	}
	while ((len = getline(&line, &cap, list)) > 0) {
		ssize_t n;
		int fd;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!len)
			continue;
		fd = open(line, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			failed++;
			continue;
		}
		/* A directory: read(2) fails with EISDIR, list it instead. */
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EISDIR) {
			while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
				;
			dirs++;
		} else {
			while (n > 0) {
				bytes += (unsigned long long)n;
				n = read(fd, buf, sizeof(buf));
			}
			files++;
		}
		if (n < 0)
			failed++;
		close(fd);
	}
	free(line);
	fclose(list);
	printf("files %lu dirs %lu bytes %llu failed %lu\n", files, dirs, bytes,
	       failed);
	return 0;
}
