/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_appload.c - the pinned application threads' load from /proc: the
 * stat and status parsers on real-looking lines, the pinned test, and a
 * window read from a capture served as a replay (threads that exit, a
 * reused TID, offline CPUs, malformed lines, kernel threads, the cap). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appload.h"
#include "capture.h"
#include "cpuset.h"
#include "source.h"
#include "topology.h"

/* A user thread's stat as a 6.1 kernel writes it: utime 1234, stime 56,
 * starttime 998877. */
#define STAT_DB "4242 (postgres: wal (x)) S 1 4242 4242 0 -1 4194368 310 0 0 0 " \
		"1234 56 0 0 20 0 9 0 998877 221184000 1800 18446744073709551615 1 1 0 0 0 " \
		"0 0 4096 0 0 0 0 17 3 0 0 0 0 0"

static void test_parse_stat(void **state)
{
	struct appload_stat s;

	(void)state;
	assert_int_equal(appload_parse_stat(STAT_DB, &s), 0);
	assert_int_equal(s.ticks, 1234 + 56);
	assert_int_equal(s.start, 998877);
	assert_int_equal(s.flags, 4194368);
	/* A name of blanks and parentheses: the fields follow the last ')'. */
	assert_int_equal(appload_parse_stat("7 () ) (a b) R 1 7 7 0 -1 64 0 0 0 0 "
					    "10 20 0 0 20 0 1 0 555", &s), 0);
	assert_int_equal(s.ticks, 30);
	assert_int_equal(s.start, 555);
	/* A kernel thread's flags. */
	assert_int_equal(appload_parse_stat("12 (kworker/1:0) I 2 0 0 0 -1 69238880 0 0 0 0 "
					    "0 3 0 0 20 0 1 0 40", &s), 0);
	assert_true(s.flags & 0x00200000);
	/* Cut short before starttime, a letter in utime, no name, no blank. */
	assert_int_equal(appload_parse_stat("7 (a) R 1 7 7 0 -1 64 0 0 0 0 10 20 0 0", &s),
			 -EINVAL);
	assert_int_equal(appload_parse_stat("7 (a) R 1 7 7 0 -1 64 0 0 0 0 1x 20 0 0 20 0 1 0 5",
					    &s), -EINVAL);
	assert_int_equal(appload_parse_stat("7 a R 1 7 7 0 -1 64 0 0 0 0 10 20 0 0 20 0 1 0 5",
					    &s), -EINVAL);
	assert_int_equal(appload_parse_stat("7 (a)R 1 7 7 0 -1 64 0 0 0 0 10 20 0 0 20 0 1 0 5",
					    &s), -EINVAL);
	assert_int_equal(appload_parse_stat("7 (a) R 1 7 7 0 -1 64 0 0 0 0  20 0 0 20 0 1 0 5",
					    &s), -EINVAL);
	assert_int_equal(appload_parse_stat("", &s), -EINVAL);
}

#define STATUS(list) "Name:\tpostgres\nUmask:\t0077\nState:\tS (sleeping)\nTgid:\t4242\n" \
		     "Pid:\t4243\nPPid:\t1\nCpus_allowed:\t0c\nCpus_allowed_list:\t" list "\n" \
		     "Mems_allowed:\t1\nMems_allowed_list:\t0\nvoluntary_ctxt_switches:\t10\n"

static void test_parse_allowed(void **state)
{
	struct cpuset *set = cpuset_new(16);

	(void)state;
	assert_int_equal(appload_parse_allowed(STATUS("2-3"), set), 0);
	assert_int_equal(cpuset_count(set), 2);
	assert_true(cpuset_test(set, 2) && cpuset_test(set, 3));
	assert_int_equal(appload_parse_allowed(STATUS("0,5-7,9"), set), 0);
	assert_int_equal(cpuset_count(set), 5);
	assert_false(cpuset_test(set, 2));
	assert_int_equal(appload_parse_allowed(STATUS("0-40"), set), -ERANGE);
	assert_int_equal(appload_parse_allowed(STATUS("3-x"), set), -EINVAL);
	assert_int_equal(appload_parse_allowed(STATUS(""), set), -EINVAL);
	assert_int_equal(appload_parse_allowed("Name:\tx\nCpus_allowed:\tff\n", set), -EINVAL);
	cpuset_free(set);
}

static void test_pinned(void **state)
{
	struct cpuset *elig = cpuset_new(8), *a = cpuset_new(8);

	(void)state;
	assert_int_equal(cpulist_parse("1-7", elig), 0);	/* CPU 0 banned */
	assert_int_equal(cpulist_parse("0-7", a), 0);
	assert_false(appload_pinned(a, elig));
	cpuset_zero(a);
	assert_int_equal(cpulist_parse("1-7", a), 0);	/* all IRQs may go: not pinned */
	assert_false(appload_pinned(a, elig));
	cpuset_zero(a);
	assert_int_equal(cpulist_parse("0-6", a), 0);
	assert_true(appload_pinned(a, elig));
	cpuset_free(elig);
	cpuset_free(a);
}

/* A machine of 4 online CPUs (and CPU 4 offline) in a capture. */
struct machine {
	struct capture *cap;
	struct source src;
	struct cpuset *online, *eligible;
	struct appthreads t;
};

static void put(struct machine *m, const char *name, const char *data)
{
	assert_int_equal(capture_put(m->cap, name, data, strlen(data), 0444), 0);
}

static void dir(struct machine *m, const char *name)
{
	assert_int_equal(capture_put_dir(m->cap, name), 0);
}

static void stat_line(char *buf, size_t len, int tid, unsigned long flags,
		      unsigned long long ticks, unsigned long long start)
{
	snprintf(buf, len, "%d (worker %d) R 1 %d %d 0 -1 %lu 0 0 0 0 %llu 0 0 0 20 0 1 0 %llu "
		 "0 0", tid, tid, tid, tid, flags, ticks, start);
}

/* Thread @tid of process @pid: its stat at both ends (@ticks1 0: gone at
 * the end), and its status. */
static void thread(struct machine *m, int pid, int tid, unsigned long flags,
		   unsigned long long ticks0, unsigned long long ticks1,
		   unsigned long long start1, const char *status)
{
	char name[128], line[256];

	snprintf(name, sizeof(name), "root/proc/%d", pid);
	dir(m, name);
	snprintf(name, sizeof(name), "root/proc/%d/task", pid);
	dir(m, name);
	snprintf(name, sizeof(name), "root/proc/%d/task/%d", pid, tid);
	dir(m, name);
	snprintf(name, sizeof(name), "snapshot-1/proc/%d/task/%d/stat", pid, tid);
	stat_line(line, sizeof(line), tid, flags, ticks0, 1000);
	put(m, name, line);
	if (ticks1) {
		snprintf(name, sizeof(name), "snapshot-2/proc/%d/task/%d/stat", pid, tid);
		stat_line(line, sizeof(line), tid, flags, ticks1, start1);
		put(m, name, line);
	}
	if (status) {
		snprintf(name, sizeof(name), "root/proc/%d/task/%d/status", pid, tid);
		put(m, name, status);
	}
}

static void machine_init(struct machine *m)
{
	memset(m, 0, sizeof(*m));
	m->cap = capture_new();
	assert_non_null(m->cap);
	m->src = (struct source){ .mode = SOURCE_REPLAY, .cap = m->cap };
	m->online = cpuset_new(8);
	m->eligible = cpuset_new(8);
	assert_int_equal(cpulist_parse("0-3", m->online), 0);
	assert_int_equal(cpulist_parse("0-3", m->eligible), 0);
	m->t.limit = APPLOAD_THREADS_MAX;
	m->t.online = m->online;
	m->t.eligible = m->eligible;
	appload_decide(&m->t, false, true);
	assert_true(m->t.active);
}

static void machine_free(struct machine *m)
{
	appthreads_release(&m->t);
	capture_free(m->cap);
	cpuset_free(m->online);
	cpuset_free(m->eligible);
}

static void window(struct machine *m, struct appload *ret)
{
	assert_int_equal(appload_sample(&m->src, "snapshot-1", &m->t, 0), 0);
	assert_int_equal(appload_sample(&m->src, "snapshot-2", &m->t, 1), 0);
	/* A 2 s window at USER_HZ 100 */
	assert_int_equal(appload_compute(&m->t, 2.0, 100, 8, ret), 0);
}

static void test_window(void **state)
{
	struct machine m;
	struct appload a;

	(void)state;
	machine_init(&m);
	/* A poller on CPU 1, busy the whole window (200 ticks in 2 s). */
	thread(&m, 100, 100, 0x400040, 50, 250, 1000, STATUS("1"));
	/* A database thread on CPUs 2-3 at half a CPU: a quarter each. */
	thread(&m, 200, 201, 0x400040, 0, 100, 1000, STATUS("2-3"));
	/* Unpinned, busy: not application load to place around. */
	thread(&m, 300, 300, 0x400040, 0, 200, 1000, STATUS("0-3"));
	/* Its cpuset names offline CPUs 4-5 too: only CPU 0 counts. */
	thread(&m, 400, 400, 0x400040, 0, 100, 1000, STATUS("0,4-5"));
	/* Only offline CPUs: not counted. */
	thread(&m, 500, 500, 0x400040, 0, 100, 1000, STATUS("4"));
	/* Exited in the window: no stat at its end. */
	thread(&m, 600, 600, 0x400040, 0, 0, 0, STATUS("2"));
	/* Its TID reused by a younger thread: not counted. */
	thread(&m, 700, 700, 0x400040, 0, 100, 1500, STATUS("2"));
	/* A kernel thread, named by PF_KTHREAD alone. */
	thread(&m, 800, 800, 0x00208040, 0, 200, 1000, STATUS("3"));
	/* Malformed status: skipped. */
	thread(&m, 900, 900, 0x400040, 0, 200, 1000, "Name:\tx\nCpus_allowed_list:\t1-\n");
	/* Pinned, but idle. */
	thread(&m, 1000, 1000, 0x400040, 70, 70, 1000, STATUS("3"));
	/* A malformed stat at the start: skipped. */
	dir(&m, "root/proc/1100");
	dir(&m, "root/proc/1100/task");
	dir(&m, "root/proc/1100/task/1100");
	put(&m, "snapshot-1/proc/1100/task/1100/stat", "1100 (x) R 1 2");
	put(&m, "snapshot-2/proc/1100/task/1100/stat", "1100 (x) R 1 2");
	put(&m, "root/proc/1100/task/1100/status", STATUS("3"));
	window(&m, &a);

	assert_int_equal(a.kind, APPLOAD_PROC);
	assert_int_equal(a.nr_ids, 8);
	assert_false(a.capped);
	assert_int_equal(a.cap, APPLOAD_THREADS_MAX);
	/* 300..1000, less the kernel thread (1100's stat is malformed) */
	assert_int_equal(a.threads_seen, 9);
	assert_int_equal(a.threads_pinned, 3);	/* 100, 201, 400 */
	assert_float_equal(a.cpu[0], 0.5, 1e-9);
	assert_float_equal(a.cpu[1], 1.0, 1e-9);
	assert_float_equal(a.cpu[2], 0.25, 1e-9);
	assert_float_equal(a.cpu[3], 0.25, 1e-9);
	for (unsigned int c = 4; c < 8; c++)
		assert_float_equal(a.cpu[c], 0.0, 0);
	appload_release(&a);
	machine_free(&m);
}

static void test_cap(void **state)
{
	struct machine m;
	struct appload a;

	(void)state;
	machine_init(&m);
	for (int p = 1; p <= 5; p++)
		thread(&m, 100 + p, 100 + p, 0x400040, 0, 200, 1000, STATUS("1"));
	/* kthreadd's children are not read, so spend none of the cap. */
	thread(&m, 50, 50, 0x00208040, 0, 200, 1000, STATUS("1"));
	put(&m, "root/proc/2/task/2/children", "50 51");
	m.t.limit = 3;
	window(&m, &a);
	assert_true(a.capped);
	assert_int_equal(a.cap, 3);
	assert_int_equal(a.threads_seen, 3);
	assert_int_equal(m.t.stats_read, 3);
	/* Three busy threads on CPU 1, capped at one CPU. */
	assert_float_equal(a.cpu[1], 1.0, 1e-9);
	appload_release(&a);

	/* Read again from a window's start: the same three, no more. */
	window(&m, &a);
	assert_int_equal(a.threads_seen, 3);
	appload_release(&a);
	machine_free(&m);
}

static void test_choose(void **state)
{
	struct appload bpf = { .kind = APPLOAD_BPF, .nr_ids = 2 };
	struct appload proc = { .kind = APPLOAD_PROC, .nr_ids = 2 };
	struct appload out;

	(void)state;
	bpf.cpu = calloc(2, sizeof(double));
	proc.cpu = calloc(2, sizeof(double));
	assert_non_null(bpf.cpu);
	assert_non_null(proc.cpu);
	bpf.cpu[1] = 0.7;
	appload_choose(&bpf, &proc, &out);
	assert_int_equal(out.kind, APPLOAD_BPF);
	assert_float_equal(out.cpu[1], 0.7, 0);
	assert_null(proc.cpu);
	appload_release(&out);

	/* No program data: the proc source. */
	proc.kind = APPLOAD_PROC;
	proc.cpu = calloc(2, sizeof(double));
	assert_non_null(proc.cpu);
	appload_choose(NULL, &proc, &out);
	assert_int_equal(out.kind, APPLOAD_PROC);
	assert_non_null(out.cpu);
	appload_release(&out);

	/* No window: nothing measured, said. */
	struct appthreads t = { .limit = 4 };

	assert_int_equal(appload_compute(&t, 0, 100, 2, &out), 0);
	assert_int_equal(out.kind, APPLOAD_NONE);
	assert_null(out.cpu);
	assert_true(strstr(out.reason, "not measured") != NULL);
}

/* The planner's figures: weighted, in CPUs of the biggest, NULL when
 * there is nothing to place around. */
static void test_for_plan(void **state)
{
	struct topology *t = topology_new(4);
	double cpu[4] = { 0, 1.0, 0.5, 0.25 }, *v;
	struct appload a = { .kind = APPLOAD_PROC, .nr_ids = 4, .cpu = cpu };

	(void)state;
	assert_non_null(t);
	for (int id = 0; id < 4; id++)
		t->cpus[id] = (struct cpu_info){ .online = id != 3, .core = id, .node = 0,
						 .capacity = id == 2 ? 512 : 1024 };
	t->nr_nodes = 1;
	topology_update_sets(t);
	assert_int_equal(appload_for_plan(&a, 2.0, t, &v), 0);
	assert_non_null(v);
	assert_float_equal(v[0], 0, 0);
	assert_float_equal(v[1], 2.0, 1e-12);
	assert_float_equal(v[2], 0.5, 1e-12);	/* half a CPU of half the capacity, x2 */
	assert_float_equal(v[3], 0, 0);		/* offline */
	free(v);
	assert_int_equal(appload_for_plan(&a, 0, t, &v), 0);
	assert_null(v);
	cpu[1] = cpu[2] = 0;
	assert_int_equal(appload_for_plan(&a, 1.0, t, &v), 0);
	assert_null(v);				/* only the offline CPU had some */
	a.kind = APPLOAD_NONE;
	cpu[1] = 1;
	assert_int_equal(appload_for_plan(&a, 1.0, t, &v), 0);
	assert_null(v);
	topology_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_allowed),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_for_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
