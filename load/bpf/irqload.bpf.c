// SPDX-License-Identifier: GPL-2.0-or-later
/* irqload.bpf.c - the in-kernel half of irqtune's measured load source.
 * Loaded for one sampling window, it times every hard irq, softirq and NAPI
 * poll on the kernel's own clock and sums them in maps that user space
 * (bpfload.c) reads once at the end: no per-event traffic to user space.
 *
 * The kernel types it touches are declared here, a few fields each, with
 * preserve_access_index: libbpf relocates every access against the running
 * kernel's BTF (CO-RE), so the object needs no vmlinux.h from the build
 * host and runs on any kernel with BTF that has these fields. */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "irqload.h"
#include "acct.h"

char LICENSE[] SEC("license") = "GPL";	/* tp_btf and fentry need it */

struct irqaction {
	const char *name;
} __attribute__((preserve_access_index));

struct task_struct {
	unsigned int flags;
	int pid;
	int nr_cpus_allowed;	/* since 2.6.39 */
	char comm[16];
} __attribute__((preserve_access_index));

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h, since 2.6.x */

struct net_device {
	char name[IRQLOAD_DEV_LEN];
} __attribute__((preserve_access_index));

struct napi_struct {
	struct net_device *dev;
	unsigned int napi_id;
	int irq;		/* since 6.13 (netif_napi_set_irq) */
} __attribute__((preserve_access_index));

/* Allocated as entries are used (the loader cannot size maps to the
 * machine): room for each of 16384 IRQs on four CPUs, of 4096 NAPI
 * instances on one. A map that fills is counted, and the run falls back. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IRQLOAD_MAX_IRQ_CPUS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct irqload_irq_key);
	__type(value, struct irqload_irq_val);
} irq_time SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IRQLOAD_MAX_IRQ_CPUS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct irqload_irq_key);
	__type(value, struct irqload_thread_val);
} thread_time SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IRQLOAD_NR_SOFTIRQS);
	__type(key, __u32);
	__type(value, struct irqload_soft_val);
} soft_time SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IRQLOAD_MAX_NAPI_CPUS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct irqload_napi_key);
	__type(value, struct irqload_napi_val);
} napi_time SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct acct_cpu);
} cpu_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irqload_drops);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct irqload_app_val);
} app_time SEC(".maps");

/* How many CPUs irqtune may place IRQs on, set by the loader before the
 * load: a user thread allowed on fewer is pinned, and its run time is
 * counted. 0 (the default) counts none, and as a constant it lets the
 * verifier drop that code: the switch program then costs what it did. */
const volatile __u32 app_cpus = 0;

/* The window, CLOCK_MONOTONIC ns, written by user space through the mmapped
 * data section: events outside it are not looked at. */
__u64 start_ns = ~0ULL;
__u64 stop_ns = ~0ULL;
/* Built three times (see the Makefile), one object per way of attaching:
 * IRQLOAD_CTX whole contexts with fentry and tp_btf, IRQLOAD_BTF tp_btf,
 * IRQLOAD_RAW raw tracepoints. Each is a light skeleton, which does its
 * CO-RE relocations in the kernel: no user-space parse of the kernel's
 * 5 MB of BTF, which would be most of a run's cost.
 *
 * Why not one object whose programs are chosen at load time, with
 * bpf_program__set_autoload() as libbpf-tools do: a light skeleton has no
 * bpf_program to call it on. Its loader is a program bpftool records when
 * it generates the skeleton, with the set of programs fixed then; a
 * program marked SEC("?...") (autoload off) is left out for good (its fd
 * stays 0 after a load, and nothing turns it on), and one program that
 * cannot load fails the whole load (an fentry on a function the kernel
 * has not: -ENOENT; on irq_enter_rcu under 6.18 here: -EPERM, where the
 * same object without it loads). What a light skeleton can set before
 * its load is read-only data (skel->rodata), so IRQLOAD_USE_CTX could be
 * such a switch, but not which programs load. One object would mean the
 * full skeleton, and with it the BTF parse above, so the three builds
 * stay. (Tried with bpftool v7.1 and a three-program object, 2026-12.) */
#ifdef IRQLOAD_CTX
#define IRQLOAD_USE_CTX 1
#else
#define IRQLOAD_USE_CTX 0
#endif

static __always_inline struct acct_cpu *state(__u64 now)
{
	__u32 zero = 0;
	struct acct_cpu *s;

	if (now < start_ns || now > stop_ns)
		return 0;
	s = bpf_map_lookup_elem(&cpu_state, &zero);
	if (s)
		s->use_ctx = IRQLOAD_USE_CTX;
	return s;
}

static __always_inline void drop(int napi)
{
	__u32 zero = 0;
	struct irqload_drops *d = bpf_map_lookup_elem(&drops, &zero);

	if (!d)
		return;
	if (napi)
		d->napi_full++;
	else
		d->irq_full++;
}

static __always_inline struct irqload_irq_val *irq_entry(__u32 irq)
{
	struct irqload_irq_key k = { .irq = irq, .cpu = bpf_get_smp_processor_id() };
	struct irqload_irq_val *v = bpf_map_lookup_elem(&irq_time, &k);
	struct irqload_irq_val zero = {};

	if (v)
		return v;
	/* Only this CPU writes keys of its own: fails only when full. */
	bpf_map_update_elem(&irq_time, &k, &zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&irq_time, &k);
	if (!v)
		drop(0);
	return v;
}

/* The entry does the least it can: the handler's time starts here. */
static __always_inline void on_hard_entry(__u32 irq)
{
	__u64 now = bpf_ktime_get_ns();
	struct acct_cpu *s = state(now);

	if (s)
		acct_hard_entry(s, irq, now);
}

/* The map work is after the clock is read: not the handler's time. */
static __always_inline void on_hard_exit(__u32 irq, struct irqaction *action)
{
	__u64 now = bpf_ktime_get_ns();
	struct acct_cpu *s = state(now);
	struct irqload_irq_val *v;
	__u64 d;

	if (!s)
		return;
	d = acct_hard_exit(s, irq, now);
	if (!d)
		return;
	v = irq_entry(irq);
	if (!v)
		return;
	v->handler_ns += d;
	if (v->count++ == 0 && action)
		bpf_probe_read_kernel_str(v->name, sizeof(v->name), BPF_CORE_READ(action, name));
}

static __always_inline void on_soft_entry(__u32 vec)
{
	__u64 now = bpf_ktime_get_ns();
	struct acct_cpu *s = state(now);

	if (s && vec < IRQLOAD_NR_SOFTIRQS)
		acct_soft_entry(s, vec, now);
}

static __always_inline void on_soft_exit(__u32 vec)
{
	__u64 now = bpf_ktime_get_ns();
	struct acct_cpu *s = state(now);
	struct irqload_soft_val *v;
	__u64 d;

	if (!s || vec >= IRQLOAD_NR_SOFTIRQS)
		return;
	d = acct_soft_exit(s, vec, now);
	v = bpf_map_lookup_elem(&soft_time, &vec);
	if (v && d) {
		v->ns += d;
		v->count++;
	}
}

static __always_inline void on_napi_poll(struct napi_struct *napi)
{
	__u64 now = bpf_ktime_get_ns();
	struct acct_cpu *s = state(now);
	struct irqload_napi_key k = {};
	struct irqload_napi_val *v;
	__u64 d;

	if (!s)
		return;
	d = acct_napi_poll(s, now);
	if (!d)
		return;
	k.napi = (__u64)(unsigned long)napi;
	k.cpu = bpf_get_smp_processor_id();
	v = bpf_map_lookup_elem(&napi_time, &k);
	if (!v) {
		struct irqload_napi_val n = { .irq = -1 };
		struct net_device *dev = BPF_CORE_READ(napi, dev);

		n.napi_id = BPF_CORE_READ(napi, napi_id);
		if (bpf_core_field_exists(napi->irq))
			n.irq = BPF_CORE_READ(napi, irq);
		if (dev)
			BPF_CORE_READ_STR_INTO(&n.dev, dev, name);
		bpf_map_update_elem(&napi_time, &k, &n, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&napi_time, &k);
		if (!v) {
			drop(1);
			return;
		}
	}
	v->ns += d;
	v->polls++;
}

/* A task's field: tp_btf hands the program typed pointers that it may
 * load from directly; raw tracepoints hand it words, read through
 * bpf_probe_read_kernel(). The switch program runs at every context
 * switch: the fewer helper calls the better. */
#ifdef IRQLOAD_RAW
#define TASK_FIELD(t, f)	BPF_CORE_READ(t, f)
#else
#define TASK_FIELD(t, f)	((t)->f)
#endif

/* The IRQ whose thread @t is, -1 for any other task. Kernel threads only:
 * a process may name itself "irq/1-x" (prctl PR_SET_NAME). The name
 * first: few tasks are called "irq/". */
static __always_inline __s32 thread_irq(struct task_struct *t)
{
	char comm[12];

#ifndef IRQLOAD_RAW
	if (t->comm[0] != 'i' || t->comm[1] != 'r' || t->comm[2] != 'q' || t->comm[3] != '/')
		return -1;
#endif
	if (bpf_probe_read_kernel(comm, sizeof(comm), __builtin_preserve_access_index(&t->comm)))
		return -1;
	if (comm[3] != '/' || !(TASK_FIELD(t, flags) & PF_KTHREAD))
		return -1;
	return acct_thread_irq(comm);
}

/* Threaded IRQs: the on-CPU time of each irq thread, from the switch that
 * puts it on a CPU to the one that takes it off. Only the task that was
 * switched in can be switched out of this CPU, so one slot per CPU holds
 * every run; a thread that blocks (an rt_mutex on PREEMPT_RT) or is
 * preempted stops counting until it is back. */
static __always_inline void add_thread(__u32 irq, __u64 d, const struct acct_cpu *s)
{
	struct irqload_irq_key k = { .irq = irq, .cpu = bpf_get_smp_processor_id() };
	struct irqload_thread_val *v = bpf_map_lookup_elem(&thread_time, &k);

	if (!v) {
		struct irqload_thread_val zero = {};

		bpf_map_update_elem(&thread_time, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&thread_time, &k);
	}
	if (!v) {
		drop(0);
		return;
	}
	v->ns += d;
	v->runs++;
	v->softs += s->thr_softs;
	v->polls += s->thr_polls;
}

/* Is @t a pinned application thread? The CPU count first: most tasks may
 * run anywhere. Kernel threads never count (per-CPU ones are pinned, irq
 * threads are IRQ work), nor an idle task (PF_KTHREAD only since 5.14,
 * pid 0 always). READ is how a field is read: see TASK_FIELD. */
#define TASK_PINNED(t, READ)						\
	(app_cpus && bpf_core_field_exists((t)->nr_cpus_allowed) &&	\
	 (__u32)READ(t, nr_cpus_allowed) < app_cpus &&			\
	 !(READ(t, flags) & PF_KTHREAD) && READ(t, pid) != 0)

/* This CPU's sums of pinned threads' time. */
static __always_inline void add_app(__u64 d, __u64 runs)
{
	__u32 zero = 0;
	struct irqload_app_val *v = bpf_map_lookup_elem(&app_time, &zero);

	if (!v)
		return;
	v->ns += d;
	v->runs += runs;
}

/* Pinned threads: the run of the task going off this CPU, if it is one
 * (the first switch in the window: if it was running when it opened),
 * and the start of the next's, if that is one. */
static __always_inline void app_out(struct acct_cpu *s, struct task_struct *prev, __u64 now)
{
	__u64 d = 0, runs = 0;

	if (!s->switched) {
		d = acct_app_first(s, TASK_PINNED(prev, TASK_FIELD), start_ns, now);
	} else if (s->app_start) {
		d = acct_app_out(s, (__u32)TASK_FIELD(prev, pid), now);
		runs = 1;
	}
	if (d)
		add_app(d, runs);
}

static __always_inline void on_switch(struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), d = 0;
	struct acct_cpu *s = state(now);
	__u32 out_irq = 0;
	__s32 irq;

	if (!s)
		return;
	if (app_cpus)
		app_out(s, prev, now);
	if (!s->switched) {
		/* The task running when the window opened: an irq thread's
		 * run counts from then. */
		irq = thread_irq(prev);
		d = acct_thread_first(s, irq, start_ns, now);
		out_irq = (__u32)irq;
	} else if (s->thr_start) {
		d = acct_thread_out(s, (__u32)TASK_FIELD(prev, pid), now, &out_irq);
	}
	if (d)
		add_thread(out_irq, d, s);
	irq = thread_irq(next);
	if (irq >= 0)
		acct_thread_in(s, (__u32)irq, (__u32)TASK_FIELD(next, pid), now);
	else if (TASK_PINNED(next, TASK_FIELD))
		acct_app_in(s, (__u32)TASK_FIELD(next, pid), now);
}

/* Not attached: user space runs it on each CPU (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU, 5.10) once the window is over, in an IPI, to
 * close the pinned thread's run that is open there: a CPU-bound thread
 * alone on its CPU (a poller on an isolated CPU) may never be switched
 * out in the whole window. The current task is read through
 * bpf_get_current_task(), an untyped word in every build. The section
 * names a tracepoint only because bpftool 7.1 crashes on one that names
 * none; it is never attached there. */
SEC("raw_tp/sched_switch")
int app_close(void *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 start = start_ns, stop = stop_ns, d, open;
	__u32 zero = 0;
	struct acct_cpu *s;

	if (!app_cpus || start == ~0ULL || stop == ~0ULL)
		return 0;
	s = bpf_map_lookup_elem(&cpu_state, &zero);
	if (!s)
		return 0;
	open = s->app_start != 0;
	d = acct_app_close(s, TASK_PINNED(t, BPF_CORE_READ), start, stop);
	if (d)
		add_app(d, open);
	return 0;
}

#if defined(IRQLOAD_BTF) || defined(IRQLOAD_CTX)
SEC("tp_btf/sched_switch")
int BPF_PROG(btf_switch, _Bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(prev, next);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(btf_hard_entry, int irq)
{
	on_hard_entry((__u32)irq);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(btf_hard_exit, int irq, struct irqaction *action)
{
	on_hard_exit((__u32)irq, action);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(btf_soft_entry, unsigned int vec)
{
	on_soft_entry(vec);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(btf_soft_exit, unsigned int vec)
{
	on_soft_exit(vec);
	return 0;
}

SEC("tp_btf/napi_poll")
int BPF_PROG(btf_napi_poll, struct napi_struct *napi)
{
	on_napi_poll(napi);
	return 0;
}

#endif

#ifdef IRQLOAD_RAW
SEC("raw_tp/sched_switch")
int raw_switch(struct bpf_raw_tracepoint_args *ctx)
{
	on_switch((struct task_struct *)ctx->args[1], (struct task_struct *)ctx->args[2]);
	return 0;
}

/* The same, for kernels without tp_btf (before 5.5, or no BTF for
 * tracing programs): raw tracepoints (4.17) take the same arguments as
 * untyped words, and pointers are read with bpf_probe_read_kernel() (which
 * BPF_CORE_READ does). Not classic tracepoints: those attach through
 * tracefs, which is often not mounted. */
SEC("raw_tp/irq_handler_entry")
int raw_hard_entry(struct bpf_raw_tracepoint_args *ctx)
{
	on_hard_entry((__u32)ctx->args[0]);
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int raw_hard_exit(struct bpf_raw_tracepoint_args *ctx)
{
	on_hard_exit((__u32)ctx->args[0], (struct irqaction *)ctx->args[1]);
	return 0;
}

SEC("raw_tp/softirq_entry")
int raw_soft_entry(struct bpf_raw_tracepoint_args *ctx)
{
	on_soft_entry((__u32)ctx->args[0]);
	return 0;
}

SEC("raw_tp/softirq_exit")
int raw_soft_exit(struct bpf_raw_tracepoint_args *ctx)
{
	on_soft_exit((__u32)ctx->args[0]);
	return 0;
}

SEC("raw_tp/napi_poll")
int raw_napi_poll(struct bpf_raw_tracepoint_args *ctx)
{
	on_napi_poll((struct napi_struct *)ctx->args[0]);
	return 0;
}

#endif

#ifdef IRQLOAD_CTX
/* The whole hard-irq context, where the kernel lets fentry attach: from
 * irq_enter_rcu() to the start of irq_exit_rcu() (before it runs pending
 * softirqs). That adds the interrupt flow's own work (ack, EOI, descriptor
 * locking) to the handler's; the entry stub before irq_enter_rcu() is not
 * covered. */
SEC("fentry/irq_enter_rcu")
int BPF_PROG(ctx_enter)
{
	__u64 now = bpf_ktime_get_ns();
	struct acct_cpu *s = state(now);

	if (s)
		acct_ctx_enter(s, now);
	return 0;
}

SEC("fentry/irq_exit_rcu")
int BPF_PROG(ctx_exit)
{
	__u64 now = bpf_ktime_get_ns(), d;
	struct acct_cpu *s = state(now);
	struct irqload_irq_val *v;
	__s32 irq;

	if (!s)
		return 0;
	irq = acct_ctx_exit(s, now, &d);
	if (irq < 0 || !d)
		return 0;
	v = irq_entry((__u32)irq);
	if (v)
		v->ctx_ns += d;
	return 0;
}
#endif
