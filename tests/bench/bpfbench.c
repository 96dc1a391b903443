// SPDX-License-Identifier: GPL-2.0-or-later
/* bpfbench.c - what the bpf load source costs on this machine (make
 * bench-bpf, docs/performance.md): CPU time to load and attach the
 * program, to read and unload it; the kernel's count of the programs' own
 * run time per event under a real disk load (BPF_ENABLE_STATS, which ends
 * with this process); the maps' kernel memory; this process's peak RSS.
 * Needs root. Prints figures; asserts nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpfload.h"

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Two processes pinned to CPU 0 pass a byte back and forth @n times:
 * nearly every switch there is from one pinned thread to another, the
 * most the pinned threads' accounting can cost. */
static int ping_pong(int n)
{
	int ab[2], ba[2], st, ok = 0;
	pid_t p[2];
	cpu_set_t set;

	if (pipe(ab) < 0 || pipe(ba) < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	for (int k = 0; k < 2; k++) {
		p[k] = fork();
		if (p[k] == 0) {
			char c = 0;
			int in = k ? ab[0] : ba[0], out = k ? ba[1] : ab[1];

			if (sched_setaffinity(0, sizeof(set), &set) < 0)
				_exit(1);
			if (k == 0 && write(out, &c, 1) != 1)
				_exit(1);
			for (int i = 0; i < n; i++)
				if (read(in, &c, 1) != 1 || (write(out, &c, 1) != 1 && i + 1 < n))
					_exit(1);
			_exit(0);
		}
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	for (int k = 0; k < 2; k++)
		if (p[k] > 0 && waitpid(p[k], &st, 0) == p[k] && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0)
			ok++;
	return ok == 2 ? 0 : -EIO;
}

/* The sched_switch program's mean run time under ping_pong(), with
 * pinned application threads counted (@app CPUs eligible) or not; 0
 * when it could not be had (@build refused). */
static double switch_cost(enum bpfload_build build, unsigned int app)
{
	struct bpfload_stats st;
	struct bpfload *b;
	char why[256];
	double per = 0;

	if (bpfload_open(64, build, true, app, &b, why, sizeof(why)) < 0)
		return 0;
	bpfload_start(b);
	if (ping_pong(50000) == 0) {
		bpfload_stop(b);
		if (bpfload_stats(b, &st) == 0)
			for (unsigned int i = 0; i < st.nr_progs; i++)
				if (strstr(st.prog[i].name, "_switch") && st.prog[i].run_cnt)
					per = (double)st.prog[i].run_time_ns /
					      (double)st.prog[i].run_cnt;
	}
	bpfload_free(b);
	return per;
}

int main(int argc, char **argv)
{
	enum { RUNS = 20 };
	double open_ms[RUNS], read_ms[RUNS], t;
	const char *dir = argc > 1 ? argv[1] : ".";
	struct bpfload *b;
	struct bpfload_stats st;
	struct measure_raw *raw;
	struct rusage ru;
	char why[256], cmd[512];
	int sfd, r, ncpu = libbpf_num_possible_cpus();
	double per_switch[3] = { 0 };
	pid_t load;

	for (int i = 0; i < RUNS; i++) {
		t = cpu_ms();
		r = bpfload_open(64, BPFLOAD_BUILD_ANY, false, 0, &b, why, sizeof(why));
		open_ms[i] = cpu_ms() - t;
		if (r < 0) {
			fprintf(stderr, "bpfbench: cannot load: %s\n", why);
			return 1;
		}
		bpfload_start(b);
		bpfload_stop(b);
		t = cpu_ms();
		if (bpfload_read(b, &raw) < 0)
			return 1;
		bpfload_free(b);
		read_ms[i] = cpu_ms() - t;
		measure_raw_free(raw);
	}
	qsort(open_ms, RUNS, sizeof(double), cmp);
	qsort(read_ms, RUNS, sizeof(double), cmp);
	printf("load+attach CPU: median %.1f ms, min %.1f, max %.1f (%d runs)\n",
	       open_ms[RUNS / 2], open_ms[0], open_ms[RUNS - 1], RUNS);
	printf("read+unload CPU: median %.1f ms (an idle window)\n", read_ms[RUNS / 2]);

	sfd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (sfd < 0) {
		fprintf(stderr, "bpfbench: cannot enable BPF run-time stats: %s\n", strerror(errno));
		return 1;
	}
	/* Three times: as on a kernel without irq threads; with the
	 * sched_switch program that times them attached too; and with that
	 * program also counting pinned application threads (all CPUs
	 * eligible). The writer is pinned to CPU 0 each time, so that in the
	 * third its every switch goes through the pinned threads' code. */
	for (int pass = 0; pass < 3; pass++) {
		bool threads = pass > 0;
		unsigned int app = pass == 2 && ncpu > 1 ? (unsigned int)ncpu : 0;

		if (pass == 2 && !app)
			break;		/* one CPU: no thread can be pinned */
		if (bpfload_open(64, BPFLOAD_BUILD_ANY, threads, app, &b, why, sizeof(why)) < 0) {
			fprintf(stderr, "bpfbench: cannot load: %s\n", why);
			return 1;
		}
		printf("mode: %s%s%s\n", bpfload_mode(b),
		       threads ? ", with the irq threads' sched_switch program" : "",
		       app ? ", counting pinned application threads" : "");
		snprintf(cmd, sizeof(cmd), "cd '%s' && exec %s dd if=/dev/zero of=bpfbench.dd bs=4k "
			 "count=2000 oflag=direct,dsync 2>/dev/null", dir,
			 ncpu > 1 ? "taskset -c 0" : "");
		bpfload_start(b);
		load = fork();
		if (load == 0) {
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		waitpid(load, NULL, 0);
		bpfload_stop(b);
		snprintf(cmd, sizeof(cmd), "%s/bpfbench.dd", dir);
		unlink(cmd);
		if (bpfload_stats(b, &st) < 0)
			return 1;
		printf("under 2000 O_DIRECT|O_DSYNC 4 KiB writes:\n");
		for (unsigned int i = 0; i < st.nr_progs; i++)
			printf("  %-16s %8llu runs  %6.0f ns per run\n", st.prog[i].name,
			       (unsigned long long)st.prog[i].run_cnt,
			       st.prog[i].run_cnt ? (double)st.prog[i].run_time_ns /
						    (double)st.prog[i].run_cnt : 0.0);
		for (unsigned int i = 0; i + 1 < st.nr_progs; i++)
			if (strstr(st.prog[i].name, "hard_entry") && st.prog[i].run_cnt &&
			    st.prog[i + 1].run_cnt)
				printf("added cost per hard IRQ (entry + exit programs): %.0f ns\n",
				       (double)st.prog[i].run_time_ns / (double)st.prog[i].run_cnt +
				       (double)st.prog[i + 1].run_time_ns /
				       (double)st.prog[i + 1].run_cnt);
		for (unsigned int i = 0; i < st.nr_progs; i++)
			if (strstr(st.prog[i].name, "_switch") && st.prog[i].run_cnt) {
				per_switch[pass] = (double)st.prog[i].run_time_ns /
						   (double)st.prog[i].run_cnt;
				printf("added cost per context switch: %.0f ns\n", per_switch[pass]);
			}
		if (app) {
			uint64_t ns[2] = { 0 };

			if (bpfload_read_app(b, ns, NULL, 2) == 0)
				printf("pinned application threads counted: CPU 0 %.1f ms, "
				       "CPU 1 %.1f ms\n", (double)ns[0] / 1e6, (double)ns[1] / 1e6);
			if (per_switch[1] > 0 && per_switch[2] > 0)
				printf("pinned application threads' accounting: %+.0f ns per "
				       "context switch (%.0f without, %.0f with)\n",
				       per_switch[2] - per_switch[1], per_switch[1], per_switch[2]);
		}
		printf("maps' kernel memory (memlock): %llu KiB\n",
		       (unsigned long long)st.map_memlock / 1024);
		if (bpfload_read(b, &raw) < 0)
			return 1;
		printf("entries read: %u (IRQ, CPU), %u (NAPI, CPU), %u (IRQ thread, CPU)\n",
		       raw->nr_irqs, raw->nr_napi, raw->nr_threads);
		printf("probe cost per event, as measured at load: hard %.0f ns, context %.0f, "
		       "softirq %.0f, NAPI poll %.0f, thread run %.0f\n", raw->probe.hard,
		       raw->probe.ctx, raw->probe.soft, raw->probe.napi, raw->probe.thread);
		measure_raw_free(raw);
		bpfload_free(b);
	}
	/* The build a run takes, and raw tracepoints, whose every field
	 * is a helper call: the older kernels'. */
	for (int k = 0; ncpu > 1 && k < 2; k++) {
		enum { ROUNDS = 5 };
		enum bpfload_build build = k ? BPFLOAD_BUILD_RAW : BPFLOAD_BUILD_ANY;
		double off[ROUNDS], on[ROUNDS];

		/* Alternated, medians: the machine's other load drifts. */
		for (int i = 0; i < ROUNDS; i++) {
			off[i] = switch_cost(build, 0);
			on[i] = switch_cost(build, (unsigned int)ncpu);
			if (off[i] <= 0 || on[i] <= 0) {
				fprintf(stderr, "bpfbench: the ping-pong could not be timed\n");
				return 1;
			}
		}
		qsort(off, ROUNDS, sizeof(double), cmp);
		qsort(on, ROUNDS, sizeof(double), cmp);
		printf("sched_switch program per context switch (%s), two pinned processes "
		       "ping-ponging on CPU 0, median of %d:\n  %.0f ns without pinned threads' "
		       "accounting, %.0f ns with it: %+.0f ns per context switch\n",
		       k ? "raw tracepoints" : "the build a run takes", ROUNDS,
		       off[ROUNDS / 2], on[ROUNDS / 2], on[ROUNDS / 2] - off[ROUNDS / 2]);
	}
	close(sfd);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
	return 0;
}
