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
#include <sys/resource.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

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
	int sfd, r;
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
	/* Twice: as on a kernel without irq threads, then with the
	 * sched_switch program that times them attached too. */
	for (int threads = 0; threads < 2; threads++) {
		if (bpfload_open(64, BPFLOAD_BUILD_ANY, threads, &b, why, sizeof(why)) < 0) {
			fprintf(stderr, "bpfbench: cannot load: %s\n", why);
			return 1;
		}
		printf("mode: %s%s\n", bpfload_mode(b),
		       threads ? ", with the irq threads' sched_switch program" : "");
		snprintf(cmd, sizeof(cmd), "cd '%s' && exec dd if=/dev/zero of=bpfbench.dd bs=4k "
			 "count=2000 oflag=direct,dsync 2>/dev/null", dir);
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
			if (strstr(st.prog[i].name, "_switch") && st.prog[i].run_cnt)
				printf("added cost per context switch: %.0f ns\n",
				       (double)st.prog[i].run_time_ns / (double)st.prog[i].run_cnt);
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
	close(sfd);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS: %ld KiB\n", ru.ru_maxrss);
	return 0;
}
