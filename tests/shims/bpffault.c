// SPDX-License-Identifier: GPL-2.0-or-later
/* bpffault.c - an LD_PRELOAD library that makes the BPF syscall fail the
 * ways kernels do, for the live fallback tests (tests/live/live-bpf.sh). libbpf
 * issues bpf(2) through syscall(3), which this wraps; BPFFAULT says what
 * goes wrong:
 *	nobtf		/sys/kernel/btf/vmlinux does not exist
 *	verifier	every program of irqtune's is rejected (EACCES)
 *	oldkernel	the first two builds (fentry, tp_btf) are rejected
 *	mapfull		the program reports events a full map dropped
 *	missed		the kernel reports skipped program runs
 *	rename		the per-IRQ map reports another name for each IRQ
 *	noswitch	the irq threads' sched_switch program cannot attach
 *	nostats		the kernel has no run-time statistics (before 5.8)
 * irqtune's builds are light skeletons: each is one loader program
 * ("__loader.prog") that loads the rest inside the kernel, so a rejection
 * of the program is a rejection of its loader here. Everything else passes
 * through to the real kernel. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

static const char *fault(void)
{
	const char *f = getenv("BPFFAULT");

	return f ? f : "";
}

static int loaders;	/* loader programs seen */

static int is_loader(const union bpf_attr *a)
{
	return strncmp(a->prog_name, "__loader", 8) == 0;
}

/* The name of the map or program @fd, "" if it cannot be asked: @info is
 * its bpf_map_info or bpf_prog_info (@info_len bytes), @info_name that
 * struct's name field. */
static void obj_name(long (*real)(long, ...), int fd, void *info, size_t info_len,
		     const char *info_name, char *name, size_t len)
{
	union bpf_attr q;

	memset(info, 0, info_len);
	memset(&q, 0, sizeof(q));
	q.info.bpf_fd = (unsigned int)fd;
	q.info.info_len = (__u32)info_len;
	q.info.info = (uintptr_t)info;
	name[0] = '\0';
	if (real(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, &q, sizeof(q)) == 0)
		snprintf(name, len, "%s", info_name);
}

static void map_name(long (*real)(long, ...), int fd, char *name, size_t len)
{
	struct bpf_map_info info;

	obj_name(real, fd, &info, sizeof(info), info.name, name, len);
}

static void prog_name(long (*real)(long, ...), int fd, char *name, size_t len)
{
	struct bpf_prog_info info;

	obj_name(real, fd, &info, sizeof(info), info.name, name, len);
}

int access(const char *path, int mode)
{
	static int (*real)(const char *, int);

	if (strcmp(fault(), "nobtf") == 0 && strcmp(path, "/sys/kernel/btf/vmlinux") == 0) {
		errno = ENOENT;
		return -1;
	}
	if (!real)
		real = (int (*)(const char *, int))dlsym(RTLD_NEXT, "access");
	return real(path, mode);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6], r;
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_bpf) {
		int cmd = (int)a[0];
		union bpf_attr *attr = (union bpf_attr *)a[1];
		const char *f = fault();

		if (cmd == BPF_ENABLE_STATS && strcmp(f, "nostats") == 0) {
			errno = EINVAL;
			return -1;
		}
		if (cmd == BPF_RAW_TRACEPOINT_OPEN && strcmp(f, "noswitch") == 0) {
			char name[BPF_OBJ_NAME_LEN];

			prog_name(real, (int)attr->raw_tracepoint.prog_fd, name, sizeof(name));
			if (strstr(name, "_switch")) {
				errno = ENOENT;
				return -1;
			}
		}
		if (cmd == BPF_PROG_LOAD && is_loader(attr)) {
			loaders++;
			if (strcmp(f, "verifier") == 0 ||
			    (strcmp(f, "oldkernel") == 0 && loaders <= 2)) {
				errno = strcmp(f, "verifier") == 0 ? EACCES : EINVAL;
				return -1;
			}
		}
		r = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (r == 0 && cmd == BPF_OBJ_GET_INFO_BY_FD && strcmp(f, "missed") == 0 &&
		    attr->info.info_len >= sizeof(struct bpf_prog_info)) {
			struct bpf_prog_info *info = (void *)(uintptr_t)attr->info.info;

			if (info->type == BPF_PROG_TYPE_TRACING ||
			    info->type == BPF_PROG_TYPE_RAW_TRACEPOINT)
				info->recursion_misses = 7;
		}
		if (r == 0 && cmd == BPF_MAP_LOOKUP_ELEM &&
		    (strcmp(f, "rename") == 0 || strcmp(f, "mapfull") == 0)) {
			char name[BPF_OBJ_NAME_LEN];

			map_name(real, (int)attr->map_fd, name, sizeof(name));
			/* struct irqload_irq_val: three u64, then the name */
			if (strcmp(f, "rename") == 0 && strcmp(name, "irq_time") == 0)
				memcpy((char *)(uintptr_t)attr->value + 24, "bogus", 6);
			/* struct irqload_drops of CPU 0: irq_full first */
			if (strcmp(f, "mapfull") == 0 && strcmp(name, "drops") == 0)
				*(uint64_t *)(uintptr_t)attr->value = 5;
		}
		return r;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
