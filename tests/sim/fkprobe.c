// SPDX-License-Identifier: GPL-2.0-or-later
/* fkprobe.c - poke the calls fakekernel.so intercepts, print what came back.
 *	fkprobe now | sleep S | csleep S | window S
 *	fkprobe write|fwrite|dprintf|openat PATH TEXT
 *	fkprobe batch		(stdin: "PATH TEXT" lines, one write(2) each)
 * Writes print "ok N" or "error ENAME"; times print seconds. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *ename(int e)
{
	switch (e) {
	case EIO: return "EIO";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ERANGE: return "ERANGE";
	case ENOSPC: return "ENOSPC";
	case EBUSY: return "EBUSY";
	case EROFS: return "EROFS";
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EBADF: return "EBADF";
	case EOVERFLOW: return "EOVERFLOW";
	default: return strerror(e);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec secs(const char *s)
{
	char *end;
	double d = strtod(s, &end);
	struct timespec ts;

	if (*end || d < 0) {
		fprintf(stderr, "fkprobe: bad seconds \"%s\"\n", s);
		exit(2);
	}
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	return ts;
}

static int report(long n, int err)
{
	if (n < 0) {
		printf("error %s\n", ename(err));
		return 1;
	}
	printf("ok %ld\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "now") && argc == 2) {
		printf("%.9f\n", now());
		return 0;
	}
	if ((!strcmp(cmd, "sleep") || !strcmp(cmd, "csleep") ||
	     !strcmp(cmd, "window")) && argc == 3) {
		struct timespec ts = secs(argv[2]);
		double a = now(), b;
		int r;

		r = cmd[0] == 'c' ? clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) :
				    nanosleep(&ts, NULL);
		b = now();
		if (r)
			return 1;
		printf("%.9f\n", cmd[0] == 'w' ? b - a : b);
		return 0;
	}
	if ((!strcmp(cmd, "write") || !strcmp(cmd, "dprintf") ||
	     !strcmp(cmd, "openat")) && argc == 4) {
		long n;
		int fd, e;

		if (!strcmp(cmd, "openat")) {
			char dir[4096], *slash;

			snprintf(dir, sizeof(dir), "%s", argv[2]);
			slash = strrchr(dir, '/');
			if (!slash)
				return 2;
			*slash = '\0';
			fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return report(-1, errno);
			fd = openat(fd, slash + 1, O_WRONLY | O_CLOEXEC);
		} else {
			fd = open(argv[2], O_WRONLY | O_CLOEXEC);
		}
		if (fd < 0)
			return report(-1, errno);
		if (!strcmp(cmd, "dprintf"))
			n = dprintf(fd, "%s", argv[3]);
		else
			n = write(fd, argv[3], strlen(argv[3]));
		e = errno;
		close(fd);
		return report(n, e);
	}
	if (!strcmp(cmd, "fwrite") && argc == 4) {
		FILE *f = fopen(argv[2], "we");
		int r;

		if (!f)
			return report(-1, errno);
		fputs(argv[3], f);
		r = fclose(f);
		return report(r ? -1 : (long)strlen(argv[3]), errno);
	}
	if (!strcmp(cmd, "batch") && argc == 2) {
		char line[4096];
		int bad = 0;

		while (fgets(line, sizeof(line), stdin)) {
			char *sp = strchr(line, ' ');
			int fd, e;
			long n;

			if (!sp)
				continue;
			*sp++ = '\0';
			sp[strcspn(sp, "\n")] = '\0';
			fd = open(line, O_WRONLY | O_CLOEXEC);
			if (fd < 0) {
				printf("%s ", line);
				bad |= report(-1, errno);
				continue;
			}
			n = write(fd, sp, strlen(sp));
			e = errno;
			close(fd);
			printf("%s ", line);
			bad |= report(n, e);
		}
		return bad;
	}
	fprintf(stderr, "usage: fkprobe now | sleep S | csleep S | window S\n"
		"       fkprobe write|fwrite|dprintf|openat PATH TEXT\n"
		"       fkprobe batch < lines of \"PATH TEXT\"\n");
	return 2;
}
