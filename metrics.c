/* metrics.c - Prometheus textfile-collector output. Names follow the
 * Prometheus conventions: irqtune_ prefix, base units (seconds; loads in
 * CPUs), gauges only, one HELP and TYPE per family, no sample timestamps. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <stdbool.h>

#include "metrics.h"

static void family(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void value(FILE *f, double v)
{
	if (isnan(v))
		fputs(" NaN\n", f);
	else
		fprintf(f, " %.9g\n", v);
}

int metrics_format(FILE *f, const struct report_run *run)
{
	const struct report_totals *t = &run->totals;

	family(f, "irqtune_last_run_timestamp_seconds",
	       "When the last run of irqtune finished, in seconds since the epoch.");
	fprintf(f, "irqtune_last_run_timestamp_seconds %.3f\n", run->finished);
	family(f, "irqtune_run_duration_seconds",
	       "How long the last run took, sampling window included.");
	fputs("irqtune_run_duration_seconds", f);
	value(f, run->duration);
	family(f, "irqtune_run_success",
	       "1 if the last run ended with exit status 0, else 0.");
	fprintf(f, "irqtune_run_success %d\n", run->status == 0);
	family(f, "irqtune_exit_status", "Exit status of the last run (see irqtune(8)).");
	fprintf(f, "irqtune_exit_status %d\n", run->status);
	family(f, "irqtune_irqs",
	       "IRQs with a handler by what the last run did with them.");
	fprintf(f, "irqtune_irqs{state=\"moved\"} %u\n", t->moved);
	fprintf(f, "irqtune_irqs{state=\"unchanged\"} %u\n", t->unchanged);
	fprintf(f, "irqtune_irqs{state=\"kernel_managed\"} %u\n", t->managed);
	fprintf(f, "irqtune_irqs{state=\"failed\"} %u\n", t->failed);
	if (run->after) {
		family(f, "irqtune_cpu_irq_load",
		       "Estimated IRQ work on each online CPU after the last run, in CPUs (1 = one CPU kept busy).");
		for (unsigned int k = 0; k < run->nr_cpus; k++) {
			fprintf(f, "irqtune_cpu_irq_load{cpu=\"%d\"}", run->cpus[k]);
			value(f, run->after[run->cpus[k]]);
		}
		family(f, "irqtune_load_ratio",
		       "IRQ load of the busiest eligible CPU over the mean of the eligible CPUs (1 = even), before and after the last run.");
		fputs("irqtune_load_ratio{when=\"before\"}", f);
		value(f, t->ratio_before);
		fputs("irqtune_load_ratio{when=\"after\"}", f);
		value(f, t->ratio_after);
	}
	return ferror(f) ? -EIO : 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Open a fresh ".NAME.XXXXXXXX" beside the target; never an existing file,
 * never through a symlink. node_exporter reads only *.prom, so it ignores it. */
static int open_temp(int dirfd, const char *base, char *tmp, size_t len)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned int rnd;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (unsigned int)getpid() * 2654435761u + (unsigned int)tries;
		snprintf(tmp, len, ".%s.%08x", base, rnd);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC | O_NOCTTY, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

#define STALE_SECONDS	600

/* Our temporary files that a run killed between create and rename left
 * behind: ".NAME." and 8 hex digits, a regular file of ours, older than
 * any run takes. Best effort. */
static void remove_stale(int dirfd, const char *base)
{
	size_t blen = strlen(base);
	struct dirent *de;
	struct stat st;
	int fd = dup(dirfd);
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		bool ours = n[0] == '.' && strncmp(n + 1, base, blen) == 0 &&
			    n[blen + 1] == '.' && strlen(n + blen + 2) == 8;

		for (int k = 0; ours && k < 8; k++)
			ours = isxdigit((unsigned char)n[blen + 2 + k]);
		if (ours && fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    st.st_mtime < time(NULL) - STALE_SECONDS)
			unlinkat(dirfd, n, 0);
	}
	closedir(d);
}

int metrics_write(const char *path, const struct report_run *run)
{
	char dbuf[PATH_MAX], bbuf[PATH_MAX], tmp[NAME_MAX + 1];
	char *text = NULL, *dir, *base;
	size_t len = 0;
	struct stat st;
	int dirfd, fd = -1, r;
	FILE *mem;

	if (strlen(path) >= sizeof(dbuf))
		return -ENAMETOOLONG;
	strcpy(dbuf, path);
	strcpy(bbuf, path);
	dir = dirname(dbuf);
	base = basename(bbuf);
	if (!*base || strcmp(base, "/") == 0 || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0 || strlen(base) + 10 > NAME_MAX)
		return -EINVAL;

	mem = open_memstream(&text, &len);
	if (!mem)
		return -ENOMEM;
	r = metrics_format(mem, run);
	if (fclose(mem) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		goto out_free;

	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		r = -errno;
		goto out_free;
	}
	/* The entry we replace must be a file of ours: a symlink or someone
	 * else's file there is refused, not silently replaced. */
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			r = -ELOOP;
		else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
			r = -EPERM;
	} else if (errno != ENOENT) {
		r = -errno;
	}
	if (r < 0)
		goto out_dir;
	fd = open_temp(dirfd, base, tmp, sizeof(tmp));
	if (fd < 0) {
		r = fd;
		goto out_dir;
	}
	/* Readable by node_exporter whatever the umask (UMask=0077 in the unit). */
	if (fchmod(fd, 0644) < 0 || (r = write_all(fd, text, len)) < 0 ||
	    fsync(fd) < 0) {
		r = r < 0 ? r : -errno;
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fd = -1;
		r = -errno;
		goto out_unlink;
	}
	fd = -1;
	if (renameat(dirfd, tmp, dirfd, base) < 0) {
		r = -errno;
		goto out_unlink;
	}
	(void)fsync(dirfd);	/* the rename itself durable; best effort */
	remove_stale(dirfd, base);
	r = 0;
	goto out_dir;

out_unlink:
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
out_dir:
	close(dirfd);
out_free:
	free(text);
	return r;
}
