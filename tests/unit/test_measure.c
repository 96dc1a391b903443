// SPDX-License-Identifier: GPL-2.0-or-later
/* test_measure.c - the measured load source's arithmetic: the per-CPU clock
 * state machine of the kernel program (load/bpf/acct.h) replayed on recorded
 * event sequences, the attribution of softirq and NAPI time to IRQs, and
 * the checks that a measurement describes the machine /proc shows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "bpf/irqload.h"
#include "bpf/acct.h"
#include "bpfload.h"
#include "measure.h"
#include "snaptest.h"

/* ---- the kernel program's clock arithmetic, on recorded sequences ----
 *
 * An event sequence is a string of steps, one per line:
 *	H irq t		irq_handler_entry	h irq t		irq_handler_exit
 *	S vec t		softirq_entry		s vec t		softirq_exit
 *	N t		napi:napi_poll		C t / c t	irq_enter/exit_rcu
 *	T irq t		sched_switch to irq/<irq>-x (PID 1000 + irq)
 *	t pid t		sched_switch from task <pid>
 *	F irq t		the first sched_switch seen, from irq/<irq>-x (-1: another
 *			task); the window opened at 0
 * and each step's result is appended to @out as the program would have
 * added it to its maps ("h36=10 n=40 s3=90 c5=70"). */
static void replay(const char *seq, bool use_ctx, char *out, size_t len)
{
	struct acct_cpu s = { .use_ctx = use_ctx };
	char line[64];
	const char *p = seq;
	size_t o = 0;

	out[0] = '\0';
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		unsigned long long a = 0, t = 0, ns;
		char op;
		int k;

		assert_true(n < sizeof(line));
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl ? 1 : 0);
		k = sscanf(line, " %c %llu %llu", &op, &a, &t);
		if (k < 2)
			continue;
		if (k == 2)
			t = a;	/* N and C take only a time */
		switch (op) {
		case 'H':
			acct_hard_entry(&s, (__u32)a, t);
			break;
		case 'h':
			ns = acct_hard_exit(&s, (__u32)a, t);
			o += snprintf(out + o, len - o, "h%llu=%llu ", a, ns);
			break;
		case 'S':
			acct_soft_entry(&s, (__u32)a, t);
			break;
		case 's':
			ns = acct_soft_exit(&s, (__u32)a, t);
			o += snprintf(out + o, len - o, "s%llu=%llu ", a, ns);
			break;
		case 'N':
			ns = acct_napi_poll(&s, t);
			o += snprintf(out + o, len - o, "n=%llu ", ns);
			break;
		case 'C':
			acct_ctx_enter(&s, t);
			break;
		case 'T':
			if (!s.switched)	/* from a task that was not one */
				acct_thread_first(&s, -1, 0, t);
			acct_thread_in(&s, (__u32)a, 1000 + (__u32)a, t);
			break;
		case 'F': {
			long long irq;

			assert_int_equal(sscanf(line, " %*c %lld %llu", &irq, &t), 2);
			ns = acct_thread_first(&s, (__s32)irq, 0, t);
			o += snprintf(out + o, len - o, "f%lld=%llu ", irq, ns);
			break;
		}
		case 't': {
			__u32 irq;

			ns = acct_thread_out(&s, (__u32)a, t, &irq);
			if (ns && (s.thr_softs || s.thr_polls))
				o += snprintf(out + o, len - o, "t%u=%llu/%s%s ", irq, ns,
					      s.thr_softs ? (char[]){ (char)('0' + s.thr_softs), 's', 0 } : "",
					      s.thr_polls ? (char[]){ (char)('0' + s.thr_polls), 'p', 0 } : "");
			else if (ns)
				o += snprintf(out + o, len - o, "t%u=%llu ", irq, ns);
			else
				o += snprintf(out + o, len - o, "t=0 ");
			break;
		}
		case 'c': {
			__u64 d;
			__s32 irq = acct_ctx_exit(&s, t, &d);

			o += snprintf(out + o, len - o, "c%d=%llu ", irq,
				      (unsigned long long)d);
			break;
		}
		default:
			fail_msg("bad step '%s'", line);
		}
		assert_true(o < len);
	}
	if (o)
		out[o - 1] = '\0';
}

struct seq_case {
	const char *what, *seq;
	bool use_ctx;
	const char *want;
};

static const struct seq_case seq_cases[] = {
	{ "a handler", "H 36 100\nh 36 130", false, "h36=30" },
	{ "an exit whose entry came before the window", "h 36 130", false, "h36=0" },
	{ "an exit of another irq", "H 36 100\nh 37 130\nh 36 140", false,
	  "h37=0 h36=0" },
	{ "a softirq", "S 4 100\ns 4 150", false, "s4=50" },
	{ "a softirq whose entry was not seen", "s 4 150", false, "s4=0" },
	/* Each napi_poll ends the poll that began at the previous one, or at
	 * the entry of NET_RX. */
	{ "NAPI windows", "S 3 100\nN 150\nN 230\ns 3 300", false,
	  "n=50 n=80 s3=200" },
	/* A hard irq inside a poll is its own time, not the poll's, nor the
	 * softirq's. */
	{ "a hard irq nested in a poll", "S 3 100\nH 36 120\nh 36 130\nN 150\ns 3 200",
	  false, "h36=10 n=40 s3=90" },
	{ "busy polling outside NET_RX", "N 150\nN 200", false, "n=0 n=0" },
	{ "a poll inside NET_TX is not NAPI time", "S 2 100\nN 150\ns 2 200", false,
	  "n=0 s2=100" },
	{ "a softirq after NET_RX", "S 3 100\nN 150\ns 3 160\nN 170", false,
	  "n=50 s3=60 n=0" },
	/* Whole contexts: the time from irq_enter_rcu() to irq_exit_rcu()
	 * goes to the first handler that ran in it. */
	{ "a whole context", "C 100\nH 5 110\nh 5 150\nc 170", true, "h5=40 c5=70" },
	{ "a timer context serves no device", "C 100\nc 120", true, "c-1=20" },
	/* ... and stays in what it interrupted, as with handlers alone. */
	{ "a timer context in a softirq", "S 4 100\nC 110\nc 120\ns 4 150", true,
	  "c-1=10 s4=50" },
	{ "a timer context in an irq thread", "T 42 100\nC 110\nc 125\nt 1042 200", true,
	  "c-1=15 t42=100" },
	{ "contexts nested in a softirq", "S 3 100\nC 120\nH 5 125\nh 5 130\nc 140\ns 3 200",
	  true, "h5=5 c5=20 s3=80" },
	{ "an exit whose context began before the window", "c 140", true, "c-1=0" },
	{ "a clock that went back", "H 9 100\nh 9 90", false, "h9=0" },
	/* Threaded IRQs: an irq thread's on-CPU time, switch to switch. */
	{ "an irq thread's run", "T 42 100\nt 1042 160", false, "t42=60" },
	{ "a thread that sleeps and runs again: two runs",
	  "T 42 100\nt 1042 130\nT 42 500\nt 1042 520", false, "t42=30 t42=20" },
	{ "another task switched out is not the thread", "T 42 100\nt 7 130", false, "t=0" },
	{ "a run begun before the window", "t 1042 130", false, "t=0" },
	/* Hard irqs interrupt the thread: their own time, not the thread's. */
	{ "a hard irq inside the thread", "T 42 100\nH 5 110\nh 5 130\nt 1042 200", false,
	  "h5=20 t42=80" },
	{ "a whole context inside the thread",
	  "T 42 100\nC 110\nH 5 112\nh 5 120\nc 125\nt 1042 200", true, "h5=8 c5=15 t42=85" },
	/* local_bh_enable() at the end of irq_forced_thread_fn() runs the
	 * pending softirqs in the thread: the thread's time, as the kernel
	 * accounts it, and not softirq time too. */
	{ "a softirq run in the thread", "T 42 100\nS 4 120\ns 4 170\nt 1042 200", false,
	  "s4=0 t42=100/1s" },
	{ "a hard irq in a softirq in the thread",
	  "T 42 100\nS 4 120\nH 5 130\nh 5 140\ns 4 170\nt 1042 200", false,
	  "h5=10 s4=0 t42=90/1s" },
	{ "NET_RX and its polls in the thread",
	  "T 42 100\nS 3 110\nN 150\nN 180\ns 3 190\nS 4 192\ns 4 195\nt 1042 200", false,
	  "n=0 n=0 s3=0 s4=0 t42=100/2s2p" },
	/* The thread's next run counts its own softirqs only. */
	{ "softirqs counted per run",
	  "T 42 100\nS 4 120\ns 4 170\nt 1042 200\nT 42 300\nt 1042 310", false,
	  "s4=0 t42=100/1s t42=10" },
	/* Softirqs run by another task (ksoftirqd) are softirq time. */
	{ "a softirq after the thread left", "T 42 100\nt 1042 120\nS 4 130\ns 4 150", false,
	  "t42=20 s4=20" },
	/* Preempted: the time another task ran, with its irqs, is not the
	 * thread's. */
	{ "preempted by another task with an irq",
	  "T 42 100\nt 1042 120\nH 5 130\nh 5 140\nT 42 150\nt 1042 170", false,
	  "t42=20 h5=10 t42=20" },
	{ "the secondary thread of a handler is its IRQ's", "T 43 100\nt 1043 105", false, "t43=5" },
	/* A thread busy when the window opened counts from its opening,
	 * less what interrupted it since. */
	{ "a thread running when the window opened", "H 5 10\nh 5 20\nS 4 30\ns 4 50\nF 42 100",
	  false, "h5=10 s4=20 f42=70" },
	{ "another task running then", "H 5 10\nh 5 20\nF -1 100\nT 42 110\nt 1042 130", false,
	  "h5=10 f-1=0 t42=20" },
	{ "only the first switch", "F -1 100\nF 42 200", false, "f-1=0 f42=0" },
};

/* A program's cost per run: the median of the window's steps, so that
 * one step with the CPU taken away counts once; the mean with few. */
static void test_probe_per_run(void **state)
{
	static const struct {
		const char *what;
		double step[8];
		unsigned int nr;
		uint64_t runs, ns;
		double want;
	} cases[] = {
		{ "never ran", { 0 }, 0, 0, 0, 0 },
		{ "no steps: the mean", { 0 }, 0, 10, 1000, 100 },
		{ "two steps: the mean", { 100, 5000 }, 2, 20, 51000, 2550 },
		{ "one stolen step of five", { 100, 110, 90000, 105, 95 }, 5, 50, 0, 105 },
		{ "an even number", { 100, 120, 110, 130 }, 4, 40, 0, 115 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double step[8];

		memcpy(step, cases[i].step, sizeof(step));
		check_near(cases[i].what, measure_probe_per_run(step, cases[i].nr, cases[i].runs,
								cases[i].ns), cases[i].want);
	}
}

static void test_acct_sequences(void **state)
{
	char got[256];

	(void)state;
	for (size_t i = 0; i < sizeof(seq_cases) / sizeof(seq_cases[0]); i++) {
		replay(seq_cases[i].seq, seq_cases[i].use_ctx, got, sizeof(got));
		if (strcmp(got, seq_cases[i].want) != 0)
			fail_msg("%s: got \"%s\", want \"%s\"", seq_cases[i].what,
				 got, seq_cases[i].want);
	}
}

/* Pinned application threads: a run from switch-in to switch-out, less
 * the hard irqs and softirqs inside it; one running when the window
 * opened counts from then; one still running when it closed is closed
 * at its end, switched or not. */
static void test_acct_app(void **state)
{
	struct acct_cpu s = { 0 };

	(void)state;
	/* in at 100; a handler 150..160, a softirq 170..190; out at 300 */
	acct_app_in(&s, 7, 100);
	acct_hard_entry(&s, 5, 150);
	assert_int_equal(acct_hard_exit(&s, 5, 160), 10);
	acct_soft_entry(&s, 3, 170);
	assert_int_equal(acct_soft_exit(&s, 3, 190), 20);
	assert_int_equal(acct_app_out(&s, 7, 300), 200 - 10 - 20);
	assert_int_equal(s.app_start, 0);
	/* another task going off: not the run, which is dropped */
	acct_app_in(&s, 7, 400);
	assert_int_equal(acct_app_out(&s, 8, 450), 0);
	assert_int_equal(acct_app_out(&s, 7, 460), 0);
	/* a clock going back is no run */
	acct_app_in(&s, 7, 500);
	assert_int_equal(acct_app_out(&s, 7, 499), 0);

	/* The first switch of the window (opened at 1000): 10 of hard irq
	 * before it, then the thread goes off at 1100. */
	memset(&s, 0, sizeof(s));
	acct_hard_entry(&s, 5, 1020);
	acct_hard_exit(&s, 5, 1030);
	assert_int_equal(acct_app_first(&s, 0, 1000, 1100), 0);	/* not pinned */
	assert_int_equal(acct_app_first(&s, 1, 1000, 1100), 100 - 10);
	acct_thread_first(&s, -1, 1000, 1100);
	assert_int_equal(acct_app_first(&s, 1, 1000, 1200), 0);	/* not the first */

	/* Closed at the window's end (2000): an open run, then nothing more. */
	acct_app_in(&s, 9, 1500);
	acct_soft_entry(&s, 1, 1600);
	acct_soft_exit(&s, 1, 1650);
	assert_int_equal(acct_app_close(&s, 1, 1000, 2000), 500 - 50);
	assert_int_equal(acct_app_close(&s, 1, 1000, 2000), 0);
	/* no open run on a CPU that switched: its runs were counted */
	assert_int_equal(acct_app_close(&s, 1, 1000, 2000), 0);

	/* No switch in the whole window: the task running now ran all of it,
	 * less what interrupted it; counted once, and only if pinned. */
	memset(&s, 0, sizeof(s));
	acct_hard_entry(&s, 5, 1100);
	acct_hard_exit(&s, 5, 1140);
	assert_int_equal(acct_app_close(&s, 1, 1000, 2000), 1000 - 40);
	assert_int_equal(acct_app_close(&s, 1, 1000, 2000), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(acct_app_close(&s, 0, 1000, 2000), 0);
	assert_true(s.switched);
}

/* ---- attribution ---- */

#define MS 1000000ull	/* ns */

static struct measure_raw *raw_new(unsigned int nr_cpus, double window)
{
	struct measure_raw *raw = measure_raw_new(nr_cpus);

	assert_non_null(raw);
	raw->window = window;
	raw->irqs = calloc(32, sizeof(*raw->irqs));
	raw->napi = calloc(32, sizeof(*raw->napi));
	assert_non_null(raw->irqs);
	assert_non_null(raw->napi);
	return raw;
}

static void add_irq(struct measure_raw *raw, unsigned int irq, unsigned int cpu,
		    uint64_t handler_ns, uint64_t count)
{
	raw->irqs[raw->nr_irqs++] = (struct measure_irq){
		.irq = irq, .cpu = cpu, .handler_ns = handler_ns, .count = count,
	};
}

static void add_napi(struct measure_raw *raw, unsigned int cpu, int irq,
		     const char *dev, uint64_t ns)
{
	struct measure_napi *p = &raw->napi[raw->nr_napi++];

	*p = (struct measure_napi){ .cpu = cpu, .irq = irq, .ns = ns, .polls = 1 };
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
}

/* Rows: 40 eth0 (net), 41 eth1 (net), 50 nvme0 (storage), 51 sda's HBA
 * (storage), 60 a serial port (other). */
static const struct measure_target tg[] = {
	{ 40, CLASS_NET, 0, "eth0" },
	{ 41, CLASS_NET, 1, "eth1" },
	{ 50, CLASS_STORAGE, 2, "nvme0" },
	{ 51, CLASS_STORAGE, 3, "sda" },
	{ 60, CLASS_OTHER, -1, NULL },
};
#define NT (sizeof(tg) / sizeof(tg[0]))

static void attribute(const struct measure_raw *raw, struct irq_activity *act)
{
	memset(act, 0, NT * sizeof(*act));
	assert_int_equal(measure_attribute(raw, tg, NT, act), 0);
	for (unsigned int i = 0; i < NT; i++)
		check_near("load = hard + soft + thread", act[i].load,
			   act[i].hard + act[i].soft + act[i].thread);
}

/* Loads are in CPUs: ns over the window. */
#define CPUS(ns, window) ((double)(ns) * 1e-9 / (window))

/* The case the /proc estimate cannot separate: two NICs on one CPU whose
 * NAPI work differs tenfold, and whose hard-irq times say the opposite. */
static void test_attr_napi_by_device(void **state)
{
	struct measure_raw *raw = raw_new(2, 2.0);
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 40, 0, 3 * MS, 3000);	/* eth0: busy handler */
	add_irq(raw, 41, 0, 1 * MS, 1000);	/* eth1 */
	add_napi(raw, 0, -1, "eth0", 10 * MS);
	add_napi(raw, 0, -1, "eth1", 100 * MS);
	raw->soft_ns[0][SOFTIRQ_NET_RX] = 110 * MS;
	attribute(raw, act);
	check_near("eth0 hard", act[0].hard, CPUS(3 * MS, 2.0));
	check_near("eth0 soft", act[0].soft, CPUS(10 * MS, 2.0));
	check_near("eth1 soft", act[1].soft, CPUS(100 * MS, 2.0));
	check_near("nvme", act[2].load, 0);
	measure_raw_free(raw);
}

/* napi->irq names the IRQ outright, on whatever CPU the poll ran; the NET_RX
 * time no poll explains (RPS backlog, net_rx_action's own) goes to the
 * CPU's network IRQs by hard-irq time. */
static void test_attr_napi_irq_and_rest(void **state)
{
	struct measure_raw *raw = raw_new(2, 1.0);
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 40, 1, 1 * MS, 100);
	add_irq(raw, 41, 1, 3 * MS, 300);
	add_napi(raw, 1, 41, "eth1", 20 * MS);
	add_napi(raw, 1, -1, "", 4 * MS);	/* the backlog: no device */
	raw->soft_ns[1][SOFTIRQ_NET_RX] = 28 * MS;	/* 8 ms outside eth1's polls */
	raw->soft_ns[1][SOFTIRQ_NET_TX] = 4 * MS;
	attribute(raw, act);
	check_near("eth0 soft", act[0].soft, CPUS(2 * MS + 1 * MS, 1.0));
	check_near("eth1 soft", act[1].soft, CPUS(20 * MS + 6 * MS + 3 * MS, 1.0));
	measure_raw_free(raw);
}

/* A poll of a device whose IRQs did not fire on that CPU (its IRQ moved in
 * the window) goes to that device's IRQs wherever they fired. */
static void test_attr_napi_unmapped_elsewhere(void **state)
{
	struct measure_raw *raw = raw_new(2, 1.0);
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 40, 0, 1 * MS, 100);
	add_irq(raw, 41, 1, 1 * MS, 100);
	add_napi(raw, 1, -1, "eth0", 6 * MS);
	raw->soft_ns[1][SOFTIRQ_NET_RX] = 6 * MS;
	attribute(raw, act);
	check_near("eth0 soft", act[0].soft, CPUS(6 * MS, 1.0));
	check_near("eth1 soft", act[1].soft, 0);
	measure_raw_free(raw);
}

/* A CPU that served no IRQ at all still has its polls attributed: to the
 * IRQ napi->irq names, or the interface's IRQs elsewhere; its other
 * network softirq time has no IRQ of its own to go to. */
static void test_attr_napi_on_a_quiet_cpu(void **state)
{
	struct measure_raw *raw = raw_new(3, 1.0);
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 40, 0, 1 * MS, 100);
	add_irq(raw, 41, 0, 1 * MS, 100);
	add_napi(raw, 2, 41, "eth1", 5 * MS);
	add_napi(raw, 2, -1, "eth0", 3 * MS);
	raw->soft_ns[2][SOFTIRQ_NET_RX] = 10 * MS;
	raw->soft_ns[2][SOFTIRQ_NET_TX] = 1 * MS;
	attribute(raw, act);
	check_near("eth1 soft", act[1].soft, CPUS(5 * MS, 1.0));
	check_near("eth0 soft", act[0].soft, CPUS(3 * MS, 1.0));
	measure_raw_free(raw);
}

/* BLOCK goes to the CPU's storage IRQs by their hard-irq time, never to a
 * NIC beside them; timers and RCU are nobody's. */
static void test_attr_block_split(void **state)
{
	struct measure_raw *raw = raw_new(2, 1.0);
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 50, 0, 1 * MS, 1000);
	add_irq(raw, 51, 0, 3 * MS, 500);
	add_irq(raw, 40, 0, 5 * MS, 50);
	add_irq(raw, 60, 0, 1 * MS, 5);
	raw->soft_ns[0][SOFTIRQ_BLOCK] = 8 * MS;
	raw->soft_ns[0][SOFTIRQ_TIMER] = 50 * MS;
	raw->soft_ns[0][SOFTIRQ_RCU] = 50 * MS;
	raw->soft_ns[0][SOFTIRQ_TASKLET] = 2 * MS;
	attribute(raw, act);
	check_near("nvme soft", act[2].soft, CPUS(2 * MS, 1.0));
	check_near("hba soft", act[3].soft, CPUS(6 * MS, 1.0));
	check_near("nic soft", act[0].soft, 0);
	check_near("serial: the tasklet", act[4].soft, CPUS(2 * MS, 1.0));
	measure_raw_free(raw);
}

/* Completions the block layer sent to the submitting CPU, which served no
 * storage IRQ: to all storage IRQs by hard-irq time. */
static void test_attr_block_elsewhere(void **state)
{
	struct measure_raw *raw = raw_new(3, 1.0);
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 50, 0, 1 * MS, 1000);
	add_irq(raw, 51, 1, 1 * MS, 1000);
	add_irq(raw, 40, 2, 1 * MS, 10);
	raw->soft_ns[2][SOFTIRQ_BLOCK] = 4 * MS;
	attribute(raw, act);
	check_near("nvme", act[2].soft, CPUS(2 * MS, 1.0));
	check_near("hba", act[3].soft, CPUS(2 * MS, 1.0));
	check_near("nic", act[0].soft, 0);
	measure_raw_free(raw);
}

/* Whole contexts are used where the program timed them; an IRQ on two CPUs
 * (moved in the window, or a CPU went offline) keeps both parts. */
static void test_attr_ctx_and_two_cpus(void **state)
{
	struct measure_raw *raw = raw_new(4, 0.5);
	struct irq_activity act[NT];

	(void)state;
	raw->use_ctx = true;
	add_irq(raw, 50, 0, 1 * MS, 100);
	raw->irqs[0].ctx_ns = 2 * MS;
	add_irq(raw, 50, 3, 1 * MS, 100);	/* its ctx not seen: the handler's */
	attribute(raw, act);
	check_near("nvme hard", act[2].hard, CPUS(3 * MS, 0.5));
	raw->use_ctx = false;
	attribute(raw, act);
	check_near("nvme hard, handlers", act[2].hard, CPUS(2 * MS, 0.5));
	measure_raw_free(raw);
}

/* Threaded IRQs: the threads' time is their IRQ's, on whichever CPU it
 * ran; an IRQ /proc no longer lists keeps none. */
static void test_attr_threads(void **state)
{
	struct measure_raw *raw = raw_new(2, 0.5);
	struct measure_thread th[] = {
		{ 50, 0, 4 * MS, 10, 0, 0 }, { 50, 1, 1 * MS, 2, 0, 0 }, { 60, 1, 2 * MS, 5, 0, 0 },
		{ 99, 0, MS, 1, 0, 0 },
	};
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 50, 0, 1 * MS, 100);
	raw->threads = th;
	raw->nr_threads = 4;
	attribute(raw, act);
	check_near("nvme thread", act[2].thread, CPUS(5 * MS, 0.5));
	check_near("nvme load", act[2].load, CPUS(6 * MS, 0.5));
	check_near("serial thread", act[4].thread, CPUS(2 * MS, 0.5));
	check_near("eth0 none", act[0].thread, 0);
	raw->threads = NULL;
	raw->nr_threads = 0;
	measure_raw_free(raw);
}

/* The pinned threads' load per CPU: their time over the window, less
 * the switch program's cost once per run; nothing when not counted. */
static void test_app_load(void **state)
{
	struct measure_raw *raw = raw_new(2, 0.5);
	double cpu[3] = { -1, -1, -1 };

	(void)state;
	assert_int_equal(measure_app(raw, cpu, 3), -ENODATA);
	assert_true(cpu[0] == -1);
	raw->app_timed = true;
	raw->app_cpus = 2;
	raw->app_ns[1] = 400 * MS;
	raw->app_runs[1] = 1000;
	raw->probe.thread = 1000;	/* ns a run: 1 ms in all */
	assert_int_equal(measure_app(raw, cpu, 3), 0);
	check_near("CPU 0", cpu[0], 0);
	check_near("CPU 1", cpu[1], CPUS(399 * MS, 0.5));
	check_near("no such CPU", cpu[2], 0);
	raw->window = 0;
	assert_int_equal(measure_app(raw, cpu, 3), -ENODATA);
	assert_int_equal(measure_app(NULL, cpu, 3), -ENODATA);
	measure_raw_free(raw);
}

/* The probes' own cost per event comes out of every figure: a bias per
 * interrupt must not become a term in the count. */
static void test_attr_probe_cost(void **state)
{
	struct measure_raw *raw = raw_new(1, 1.0);
	/* 1000 runs that ran 400 softirqs and 100 NAPI polls inside */
	struct measure_thread th = { 50, 0, 4 * MS, 1000, 400, 100 };
	struct irq_activity act[NT];

	(void)state;
	add_irq(raw, 50, 0, 3 * MS, 10000);		/* 300 ns a handler */
	raw->irqs[0].ctx_ns = 5 * MS;			/* 500 ns a context */
	raw->soft_ns[0][SOFTIRQ_BLOCK] = 2 * MS;
	raw->soft_events[0][SOFTIRQ_BLOCK] = 10000;
	add_napi(raw, 0, 40, "eth0", 1 * MS);
	raw->napi[0].polls = 1000;
	add_irq(raw, 40, 0, 1 * MS, 1000);
	raw->threads = &th;
	raw->nr_threads = 1;
	raw->probe = (struct measure_probe){ .hard = 100, .ctx = 250, .soft = 50, .napi = 200,
					     .thread = 300 };
	attribute(raw, act);
	check_near("handlers less 100 ns each", act[2].hard, CPUS(2 * MS, 1.0));
	check_near("BLOCK less 50 ns a run", act[2].soft, CPUS(1.5 * MS, 1.0));
	check_near("thread less 300 ns a run, 50 a softirq, 200 a poll", act[2].thread,
		   CPUS((4000 - 300 - 20 - 20) * 1e3, 1.0));
	check_near("a NAPI poll less 200 ns", act[0].soft, CPUS(0.8 * MS, 1.0));
	check_near("eth0 handlers", act[0].hard, CPUS(0.9 * MS, 1.0));
	raw->use_ctx = true;
	attribute(raw, act);
	check_near("contexts less 250 ns each", act[2].hard, CPUS(2.5 * MS, 1.0));
	{
		char note[160];

		assert_int_equal(measure_probe_note(raw, note, sizeof(note)), 0);
		assert_string_equal(note, "its probes' own cost taken out: 250 ns a handler context, "
				    "50 a softirq, 300 an irq thread's run");
		raw->use_ctx = false;
		assert_int_equal(measure_probe_note(raw, note, sizeof(note)), 0);
		assert_string_equal(note, "its probes' own cost taken out: 100 ns a handler, "
				    "50 a softirq, 300 an irq thread's run");
		raw->use_ctx = true;
	}
	/* A cost above the figure leaves 0, never less. */
	raw->probe.ctx = 1e6;
	attribute(raw, act);
	check_near("never below 0", act[2].hard, 0);
	raw->threads = NULL;
	raw->nr_threads = 0;
	{
		char note[160] = "untouched";

		raw->probe = (struct measure_probe){ 0 };
		assert_int_equal(measure_probe_note(raw, note, sizeof(note)), -ENODATA);
		assert_string_equal(note, "untouched");
	}
	measure_raw_free(raw);
}

static void test_attr_bad_args(void **state)
{
	struct measure_raw *raw = raw_new(1, 0);
	struct irq_activity act[NT];

	(void)state;
	assert_int_equal(measure_attribute(raw, tg, NT, act), -EINVAL);	/* window 0 */
	raw->window = 1;
	assert_int_equal(measure_attribute(NULL, tg, NT, act), -EINVAL);
	assert_int_equal(measure_attribute(raw, NULL, NT, act), -EINVAL);
	/* an IRQ /proc no longer lists, a CPU beyond the table: ignored */
	add_irq(raw, 99, 0, MS, 1);
	add_irq(raw, 40, 7, MS, 1);
	attribute(raw, act);
	check_near("eth0 hard", act[0].hard, CPUS(MS, 1.0));
	check_near("eth0 soft", act[0].soft, 0);
	measure_raw_free(raw);
}

/* ---- does the measurement describe this machine? ---- */

static const char check_intr[] =
	"           CPU0       CPU1\n"
	" 40:       1000          0  PCI-MSIX-0000:01:00.0   0-edge      eth0-rx-0\n"
	" 41:          0        500  PCI-MSIX-0000:02:00.0   0-edge      eth1-rx-0\n"
	" 50:          5          0  PCI-MSIX-0000:03:00.0   0-edge      nvme0q0\n"
	" 60:          0          0  IO-APIC   4-edge      ttyS0\n";

struct check_env {
	struct interrupts *intr;
	struct irq_activity act[4];
	struct measure_raw *raw;
	char why[256];
};

static void check_setup(struct check_env *e)
{
	static const uint64_t delta[4] = { 1000, 500, 5, 0 };

	memset(e, 0, sizeof(*e));
	assert_int_equal(parse_intr(check_intr, &e->intr, NULL), 0);
	for (unsigned int i = 0; i < 4; i++) {
		e->act[i].irq = e->intr->rows[i].irq;
		e->act[i].delta = delta[i];
	}
	e->raw = raw_new(2, 1.0);
	add_irq(e->raw, 40, 0, MS, 1003);
	snprintf(e->raw->irqs[0].name, MEASURE_NAME_LEN, "eth0-rx-0");
	add_irq(e->raw, 41, 1, MS, 499);
	snprintf(e->raw->irqs[1].name, MEASURE_NAME_LEN, "eth1-rx-0");
}

static void check_done(struct check_env *e)
{
	interrupts_free(e->intr);
	measure_raw_free(e->raw);
}

static void expect_disagree(struct check_env *e, const char *what, const char *says)
{
	int r = measure_check(e->raw, e->intr, e->act, e->why, sizeof(e->why));

	if (r != -EPROTO)
		fail_msg("%s: measure_check = %d, want -EPROTO", what, r);
	if (!strstr(e->why, says))
		fail_msg("%s: \"%s\" does not say \"%s\"", what, e->why, says);
	check_done(e);
}

/* The threads' names, as the kernel program and the /proc reader read
 * them: kernel/irq/manage.c names them irq/N-name and irq/N-s-name. */
static void test_thread_names(void **state)
{
	static const struct {
		const char *comm;
		int irq;
	} t[] = {
		{ "irq/42-nvme0q1", 42 }, { "irq/9-acpi", 9 }, { "irq/0-timer", 0 },
		{ "irq/123-s-eth0-TxRx", 123 }, { "irq/1234567-x", 1234567 },
		{ "irq/12345678-x", -1 },	/* past the 15 characters' room */
		{ "irq/-x", -1 }, { "irq/42", -1 }, { "irq/4a-x", -1 }, { "irqx/4-x", -1 },
		{ "ksoftirqd/0", -1 }, { "", -1 }, { "irq/", -1 }, { "Irq/4-x", -1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char c[16] = "";

		strncpy(c, t[i].comm, sizeof(c) - 1);
		assert_int_equal(acct_thread_irq(c), t[i].irq);
	}
}

/* IRQTUNE_BPF_BUILD's values: the three builds by name, unset or empty
 * for any, anything else refused (the caller names it). */
static void test_build_parse(void **state)
{
	static const struct {
		const char *s;
		int r;
		enum bpfload_build b;
	} t[] = {
		{ NULL, 0, BPFLOAD_BUILD_ANY }, { "", 0, BPFLOAD_BUILD_ANY },
		{ "context", 0, BPFLOAD_BUILD_CONTEXT }, { "handlers", 0, BPFLOAD_BUILD_HANDLERS },
		{ "raw", 0, BPFLOAD_BUILD_RAW }, { "Raw", -EINVAL, 0 }, { "raw ", -EINVAL, 0 },
		{ "ctx", -EINVAL, 0 }, { "btf", -EINVAL, 0 }, { "any", -EINVAL, 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		enum bpfload_build b = (enum bpfload_build)99;
		int r = bpfload_build_parse(t[i].s, &b);

		assert_int_equal(r, t[i].r);
		if (r == 0)
			assert_int_equal(b, t[i].b);
		else
			assert_int_equal(b, 99);	/* untouched on failure */
	}
}

static void test_check_agrees(void **state)
{
	struct check_env e;

	(void)state;
	check_setup(&e);
	/* nvme0q0's 5 interrupts are too few to insist on; a name cut to
	 * the program's 23 bytes is still its name */
	assert_int_equal(measure_check(e.raw, e.intr, e.act, e.why, sizeof(e.why)), 0);
	check_done(&e);
}

static void test_check_disagrees(void **state)
{
	struct check_env e;

	(void)state;
	check_setup(&e);
	add_irq(e.raw, 77, 0, MS, 1);
	expect_disagree(&e, "unknown irq", "irq 77");

	check_setup(&e);
	snprintf(e.raw->irqs[1].name, MEASURE_NAME_LEN, "nvme1q1");
	expect_disagree(&e, "another name", "\"nvme1q1\"");

	check_setup(&e);
	e.raw->irqs[1].count = 0;
	e.raw->nr_irqs = 1;
	expect_disagree(&e, "missed a busy irq", "500 interrupts of irq 41");

	check_setup(&e);
	e.act[0].delta = 0;
	expect_disagree(&e, "/proc saw none", "1003 interrupts of irq 40");

	check_setup(&e);
	e.raw->dropped = 12;
	expect_disagree(&e, "map full", "12 events");

	check_setup(&e);
	e.raw->missed = 3;
	expect_disagree(&e, "missed runs", "3 times");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_acct_sequences),
		cmocka_unit_test(test_acct_app),
		cmocka_unit_test(test_app_load),
		cmocka_unit_test(test_probe_per_run),
		cmocka_unit_test(test_attr_napi_by_device),
		cmocka_unit_test(test_attr_napi_irq_and_rest),
		cmocka_unit_test(test_attr_napi_unmapped_elsewhere),
		cmocka_unit_test(test_attr_napi_on_a_quiet_cpu),
		cmocka_unit_test(test_attr_block_split),
		cmocka_unit_test(test_attr_block_elsewhere),
		cmocka_unit_test(test_attr_ctx_and_two_cpus),
		cmocka_unit_test(test_attr_threads),
		cmocka_unit_test(test_attr_probe_cost),
		cmocka_unit_test(test_attr_bad_args),
		cmocka_unit_test(test_build_parse),
		cmocka_unit_test(test_thread_names),
		cmocka_unit_test(test_check_agrees),
		cmocka_unit_test(test_check_disagrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
