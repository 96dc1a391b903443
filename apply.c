// SPDX-License-Identifier: GPL-2.0-or-later
/* apply.c - writes one CPU per IRQ into /proc/irq/N/smp_affinity_list and,
 * when every write was refused, reads back where the kernel left it. One
 * open+write per attempt, so a refusal is seen at the write, with its errno,
 * and never leaves a partial value. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "fileio.h"
#include "pathnames.h"
#include "strutil.h"

/* /proc/irq/@irq/@file into @path (64 bytes), without snprintf(3): it
 * cost more than the write it names. */
static void irq_path(char *path, unsigned int irq, const char *file)
{
	char *p;

	memcpy(path, _PATH_PROC_IRQ "/", sizeof(_PATH_PROC_IRQ));
	p = utoa_into(path + sizeof(_PATH_PROC_IRQ), irq);
	*p++ = '/';
	str_copy(p, (size_t)(path + 64 - p), file);
}

static int write_cpu(unsigned int irq, int cpu)
{
	char path[64], buf[16];
	ssize_t n;
	int fd, len, r = 0;

	/* cpu >= 0: apply_irq() skips the others */
	irq_path(path, irq, "smp_affinity_list");
	len = (int)(utoa_into(buf, (unsigned int)cpu) - buf);
	buf[len++] = '\n';
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -errno;
	do
		n = write(fd, buf, (size_t)len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		r = -errno;
	else if (n != len)
		r = -EMSGSIZE;	/* the kernel takes a cpulist whole or not at all */
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

static void read_back(unsigned int irq, struct apply_result *res)
{
	char path[64], buf[4096];

	irq_path(path, irq, "smp_affinity_list");
	if (read_small_file(path, buf, sizeof(buf)) >= 0)
		str_copy(res->now, sizeof(res->now), buf);
	else
		str_copy(res->now, sizeof(res->now), "?");
	irq_path(path, irq, "effective_affinity_list");
	res->effective = -1;
	if (read_small_file(path, buf, sizeof(buf)) > 0) {
		int cpu = 0;
		const char *p = buf;

		while (*p >= '0' && *p <= '9' && cpu < 1 << 20)
			cpu = cpu * 10 + (*p++ - '0');
		if (p != buf)
			res->effective = cpu;
	}
}

int apply_irq(unsigned int irq, const int *cpus, unsigned int nr_cpus,
	      struct apply_result *res)
{
	int r = -EINVAL;

	memset(res, 0, sizeof(*res));
	res->cpu = -1;
	res->outcome = APPLY_FAILED;
	for (unsigned int k = 0; k < nr_cpus; k++) {
		if (cpus[k] < 0)
			continue;
		res->tried++;
		r = write_cpu(irq, cpus[k]);
		if (r == 0) {
			res->cpu = cpus[k];
			res->outcome = APPLY_MOVED;
			break;
		}
		res->err = -r;
		/* No free vector there, or the CPU went offline: next best. */
		if (r == -ENOSPC || r == -EINVAL)
			continue;
		/* Managed IRQs refuse: EIO before Linux 6.12, EPERM after. */
		if (r == -EIO || r == -EPERM)
			res->outcome = APPLY_MANAGED;
		else if (r == -ENOENT)
			res->outcome = APPLY_GONE;
		break;
	}
	/* An accepted write is its own answer (the kernel takes a cpulist whole
	 * or refuses it); only a refusal is reported with what stays. */
	if (res->outcome == APPLY_MOVED) {
		utoa_into(res->now, (unsigned int)res->cpu);	/* >= 0: written */
		res->effective = -1;
	} else if (res->outcome != APPLY_GONE) {
		read_back(irq, res);
	}
	return res->outcome == APPLY_MOVED ? 0 : r;
}
