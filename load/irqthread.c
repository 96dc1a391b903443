/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irqthread.c - the threads of threaded IRQs and their run time, from
 * /proc. No logging: what cannot be read is not counted, and the caller
 * says what it used. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "bpf/irqload.h"
#include "bpf/acct.h"
#include "fileio.h"
#include "irqthread.h"
#include "pathnames.h"
#include "strutil.h"

/* include/linux/sched.h; as the kernel program tests it. */
#define PF_KTHREAD	0x00200000UL

int irqthread_parse_name(const char *comm, unsigned int *ret_irq)
{
	char c[16] = "";
	__s32 irq;

	/* One reading of the name, the kernel program's, on the 15
	 * characters the kernel keeps of it. */
	str_copy(c, sizeof(c), comm);
	irq = acct_thread_irq(c);
	if (irq < 0 || (unsigned int)irq >= IRQ_NUM_LIMIT)
		return -EINVAL;
	*ret_irq = (unsigned int)irq;
	return 0;
}

int irqthread_parse_stat(const char *buf, char *ret_comm, size_t len,
			 unsigned long *ret_flags)
{
	/* "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": the
	 * name may hold blanks and parentheses, so it ends at the last ')'. */
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')'), *p;
	char field[32];
	uint64_t flags;
	size_t n;

	if (!open || !close || close < open || close[1] != ' ')
		return -EINVAL;
	p = close + 2;
	for (int i = 0; i < 6; i++) {	/* state .. tpgid */
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
	}
	n = strcspn(p, " \n");
	if (n == 0 || n >= sizeof(field))
		return -EINVAL;
	memcpy(field, p, n);
	field[n] = '\0';
	if (parse_u64(field, UINT32_MAX, &flags) < 0)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (len) {
		if (n >= len)
			n = len - 1;
		memcpy(ret_comm, open + 1, n);
		ret_comm[n] = '\0';
	}
	*ret_flags = (unsigned long)flags;
	return 0;
}

int irqthread_parse_schedstat(const char *buf, uint64_t *ret_ns)
{
	/* "run_ns wait_ns timeslices" (Documentation/scheduler/sched-stats.rst) */
	char field[32];
	size_t n = strcspn(buf, " \n");

	if (n == 0 || n >= sizeof(field))
		return -EINVAL;
	memcpy(field, buf, n);
	field[n] = '\0';
	return parse_u64(field, UINT64_MAX, ret_ns);
}

static int add(struct irqthreads *t, int pid, unsigned int irq)
{
	if (t->nr == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 16;
		struct irqthread *p = reallocarray(t->t, cap, sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->t = p;
		t->cap = cap;
	}
	t->t[t->nr++] = (struct irqthread){ .pid = pid, .irq = irq };
	return 0;
}

struct find_ctx {
	struct source *src;
	struct irqthreads *t;
};

/* One process: an irq thread if a kernel thread so named. */
static int consider(void *ctx, const char *name)
{
	struct find_ctx *c = ctx;
	char path[64], buf[1024], comm[32];
	unsigned long flags;
	unsigned int irq;
	uint64_t pid;

	if (parse_u64(name, INT32_MAX, &pid) < 0 || pid == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%llu/stat", _PATH_PROC, (unsigned long long)pid);
	/* Gone meanwhile, or not a thread of IRQs: not ours. */
	if (source_read(c->src, path, buf, sizeof(buf)) < 0 ||
	    irqthread_parse_stat(buf, comm, sizeof(comm), &flags) < 0 ||
	    !(flags & PF_KTHREAD) || irqthread_parse_name(comm, &irq) < 0)
		return 0;
	return add(c->t, (int)pid, irq);
}

int irqthread_find(struct source *src, struct irqthreads *ret)
{
	struct find_ctx c = { src, ret };

	memset(ret, 0, sizeof(*ret));
	return source_kthreads(src, consider, &c);
}

void irqthread_sample(struct source *src, const char *tag, struct irqthreads *t,
		      unsigned int end)
{
	char path[64], buf[128];

	for (unsigned int i = 0; i < t->nr; i++) {
		snprintf(path, sizeof(path), "%s/%d/schedstat", _PATH_PROC, t->t[i].pid);
		t->t[i].seen[end] = source_read_tag(src, tag, path, buf, sizeof(buf)) >= 0 &&
				    irqthread_parse_schedstat(buf, &t->t[i].run_ns[end]) == 0;
	}
}

static int row_of(const struct interrupts *intr, unsigned int irq)
{
	unsigned int lo = 0, hi = intr->nr_rows;

	while (lo < hi) {	/* rows ascend by irq */
		unsigned int mid = lo + (hi - lo) / 2;

		if (intr->rows[mid].irq == irq)
			return (int)mid;
		if (intr->rows[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void irqthread_apply(const struct irqthreads *t, const struct interrupts *intr,
		     double seconds, bool add_time, struct irq_activity *act)
{
	for (unsigned int i = 0; i < t->nr; i++) {
		const struct irqthread *e = &t->t[i];
		int row = row_of(intr, e->irq);
		double d;

		if (row < 0)
			continue;
		act[row].threaded = true;
		/* Seen at both ends, and the same thread: a PID reused by a
		 * younger one starts again from less. */
		if (!add_time || !e->seen[0] || !e->seen[1] || e->run_ns[1] < e->run_ns[0] ||
		    !(seconds > 0))
			continue;
		d = (double)(e->run_ns[1] - e->run_ns[0]) * 1e-9 / seconds;
		act[row].thread += d;
		act[row].load += d;
	}
}

void irqthread_release(struct irqthreads *t)
{
	if (!t)
		return;
	free(t->t);
	memset(t, 0, sizeof(*t));
}
