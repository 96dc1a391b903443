/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.h - the machine model behind the simulator: CPUs, IRQs, their rates
 * and costs, the counters the kernel would show, and what the kernel does
 * when time passes, an affinity is written or a CPU goes away.
 *
 * Shared by irqsim (tests/sim/irqsim.c) and the preload library
 * (tests/shims/fakekernel.c). The state lives in DIR/sim.state; the files a program
 * reads (DIR/proc/...) are rendered from it. Independent of irqtune's own
 * parsers on purpose: the simulator must not share their bugs. */
#ifndef IRQSIM_MODEL_H
#define IRQSIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SIM_MAX_CPUS	8192	/* x86 NR_CPUS with MAXSMP */
#define SIM_MAX_IRQS	65536
#define SIM_NAME_MAX	64
#define SIM_ACTION_MAX	128
#define SIM_STATE_FILE	"sim.state"

/* /proc/softirqs rows, in the kernel's order. */
enum sim_sirq {
	SIRQ_HI, SIRQ_TIMER, SIRQ_NET_TX, SIRQ_NET_RX, SIRQ_BLOCK,
	SIRQ_IRQ_POLL, SIRQ_TASKLET, SIRQ_SCHED, SIRQ_HRTIMER, SIRQ_RCU,
	SIRQ_NR
};

/* /proc/stat cpu columns, in the kernel's order. */
enum sim_stat {
	ST_USER, ST_NICE, ST_SYSTEM, ST_IDLE, ST_IOWAIT, ST_IRQ, ST_SOFTIRQ,
	ST_STEAL, ST_GUEST, ST_GUEST_NICE, ST_NR
};

/* Per-CPU x86 rows of /proc/interrupts that the model moves (arm64 shows
 * RES and CAL as IPI0 and IPI1). */
enum sim_arch { AR_NMI, AR_LOC, AR_RES, AR_CAL, AR_TLB, AR_NR };

/* The architecture whose kernel the model plays (tests/sim/README.md,
 * "The kernel behaviour modelled"). */
enum sim_isa { ISA_X86, ISA_ARM64 };

/* What /sys/devices/system/cpu/nohz_full looks like when no CPU is listed. */
enum sim_nohz { NOHZ_NULL, NOHZ_EMPTY, NOHZ_ABSENT };

/* A counter that only moves by whole units; @frac keeps the remainder. */
struct sim_acc {
	uint64_t n;
	double frac;
};

struct sim_cpu {
	bool present;
	bool online;
	int node;		/* -1: machine without NUMA */
	int package;
	int die;
	int core;		/* core_id, within the package */
	int llc;		/* last-level cache group (global id) */
	int cluster;		/* arm64 cluster (global id), -1: the core's own */
	bool isolated;
	bool nohz_full;
	struct sim_acc stat[ST_NR];	/* USER_HZ ticks */
	struct sim_acc sirq[SIRQ_NR];
	struct sim_acc arch[AR_NR];
	unsigned int nr_eff;	/* derived: IRQs effective here */
	/* What the CPU does in a second beside the biggest (1..1024, the
	 * scheduler's units): interrupt work takes 1024/capacity times as
	 * long here. 0: full, and no cpu_capacity file (x86). Shown as
	 * cpu_capacity, or on a hybrid machine through its core lists. */
	unsigned int capacity;
	/* x86 vectors device IRQs may use here, 0: SIM_VECTORS */
	unsigned int vectors;
};

/* A CPU's vectors for device IRQs: 0x20..0xeb less a few system ones. */
#define SIM_VECTORS	200

struct sim_dev {
	char name[SIM_NAME_MAX];
	char kind[24];
	char bdf[16];		/* "" for non-PCI */
	int node;
};

struct sim_irq {
	unsigned int irq;
	int dev;		/* index into devs[], -1 for none */
	int queue;
	bool managed;
	double rate;		/* interrupts per second */
	double hard_us;		/* hard-irq cost per interrupt, microseconds */
	double soft_us;		/* softirq cost per interrupt */
	int sirq;		/* softirq raised per interrupt, -1 for none */
	int node;		/* /proc/irq/N/node */
	uint64_t *aff;		/* smp_affinity */
	uint64_t *hint;		/* affinity_hint, NULL for none */
	int eff;		/* effective CPU, -1 none (shut down) */
	uint64_t *count;	/* per CPU id, nr_cpus entries */
	double frac;
	char chip[48];
	unsigned long hwirq;
	char type[12];		/* "edge", "fasteoi" */
	char name[SIM_ACTION_MAX];	/* actions, ", "-separated */
	bool dirty;		/* its /proc/irq/N files need rewriting */
	bool fresh;		/* new since the last render: its whole directory */
};

/* One IRQ's new parameters under a named load shift. */
struct sim_shift {
	char name[32];
	unsigned int irq;
	double rate, hard_us, soft_us;
};

#define SIM_ERR_SHORT	(-1)	/* fault: short write instead of an errno */

struct sim_fault {
	unsigned int irq;
	int err;		/* positive errno, or SIM_ERR_SHORT */
	uint64_t *cpus;		/* only when the new set meets these; NULL: any */
	int times;		/* failures left, -1 forever */
};

/* Events: what the kernel does to a running program's machine at a virtual
 * time or on the Nth affinity write (README.md, "Events"). */
enum sim_ev_when { EV_AT, EV_WRITE };
enum sim_ev_what { EV_OFFLINE, EV_ONLINE, EV_REMOVE, EV_ADD, EV_SIGNAL,
		  EV_EXIT, EV_REUSE };

struct sim_event {
	enum sim_ev_when when;
	double at;		/* EV_AT: CLOCK_MONOTONIC seconds */
	unsigned long nth;	/* EV_WRITE: the machine's Nth write, 1-based */
	enum sim_ev_what what;
	unsigned int cpu;	/* EV_OFFLINE, EV_ONLINE */
	unsigned int irq;	/* EV_REMOVE, EV_ADD; EV_EXIT, EV_REUSE: the PID */
	int sig;		/* EV_SIGNAL */
	double rate, hard_us, soft_us;	/* EV_ADD */
	char name[SIM_ACTION_MAX];	/* EV_ADD: action names */
	bool fired;
};

/* Paths a program may not open or stat: a container without /proc/irq, an
 * unreadable /proc/interrupts. */
struct sim_deny {
	char path[128];
	int err;
};

/* A thread of an application (or kernel) process: it runs @load of a CPU,
 * spread evenly over the online CPUs it may run on (tests/sim/app.c). */
struct sim_thread {
	unsigned int tgid, tid;
	char comm[16];
	bool kernel;		/* PF_KTHREAD: never an application's */
	double load;		/* CPUs it asks for (0..1) */
	double sys;		/* the fraction of it in system time */
	uint64_t *cpus;		/* Cpus_allowed */
	struct sim_acc utime, stime;	/* USER_HZ ticks it got */
	uint64_t start;		/* starttime: ticks after boot */
	char pod[48];		/* kubelet pod UID, "" none */
	char container[32];	/* its container name */
};

/* The kubelet's CPU manager state file the build writes (app.c). */
enum sim_kubelet { KUBELET_NONE, KUBELET_V2, KUBELET_V1 };

struct sim {
	char *dir;
	char machine[SIM_NAME_MAX];
	double time;		/* CLOCK_MONOTONIC seconds */
	double btime;
	unsigned int hz;	/* USER_HZ */
	unsigned int timer_hz;	/* CONFIG_HZ: LOC and TIMER rates */
	int kmajor, kminor;	/* kernel version whose behaviour is copied */
	bool irqacct;		/* CONFIG_IRQ_TIME_ACCOUNTING */
	bool ir;		/* interrupt remapping: "IR-" chip prefix */
	bool managed_ro;	/* managed IRQs' smp_affinity* are 0444 */
	bool keep_current;	/* x86: a new mask holding the current CPU keeps it */
	bool offline_ignore;	/* no online CPU in a write: succeed, no-op */
	enum sim_isa isa;	/* x86 or arm64: layouts and effective CPUs */
	double noise;		/* per-window noise, fraction (0: none) */
	bool noise_cost;	/* on the cost of an interrupt, not the rate */
	double noise_period;	/* seconds of one noise window */
	unsigned long noise_seed;
	double bg_user, bg_system;	/* background load, fraction of a CPU */
	unsigned int gsi_top;
	unsigned int nr_cpus;	/* nr_cpu_ids: possible CPUs */
	unsigned int nwords;	/* uint64_t words of a CPU set */
	struct sim_cpu *cpu;
	uint64_t *default_aff;
	enum sim_nohz nohz_mode;
	unsigned int nr_devs;
	struct sim_dev *devs;
	unsigned int nr_irqs;
	struct sim_irq *irqs;	/* ascending irq */
	unsigned int nr_shifts;
	struct sim_shift *shifts;
	unsigned int nr_faults;
	struct sim_fault *faults;
	uint64_t ctxt, processes;
	struct sim_acc ctxt_acc;
	int last_fault;		/* faults[] index the last write hit, -1 */
	unsigned int nr_events;
	struct sim_event *events;
	unsigned long writes;	/* affinity write(2)s answered since the build */
	unsigned int nr_denies;
	struct sim_deny *denies;
	/* Intel hybrid: capacities shown as cpu_core/cpu_atom lists (1024:
	 * a P-core, below: an E-core), not as cpu_capacity */
	bool hybrid;
	unsigned int nr_threads;
	struct sim_thread *threads;
};

/* How many times as long CPU @c takes for an interrupt's work as the
 * biggest CPU: exactly 1 where no capacity is set, so machines of alike
 * CPUs account their time as they always did. */
static inline double sim_slowdown(const struct sim *s, unsigned int c)
{
	unsigned int cap = s->cpu[c].capacity;

	return cap && cap < 1024 ? 1024.0 / cap : 1.0;
}

/* CPU @c's vectors for device IRQs. */
static inline unsigned int sim_vectors(const struct sim *s, unsigned int c)
{
	return s->cpu[c].vectors ? s->cpu[c].vectors : SIM_VECTORS;
}

/* Free vectors of CPU @c: its vectors less the IRQs effective on it. */
static inline unsigned int sim_vectors_free(const struct sim *s, unsigned int c)
{
	unsigned int v = sim_vectors(s, c);

	return v > s->cpu[c].nr_eff ? v - s->cpu[c].nr_eff : 0;
}

/* CPU sets: arrays of s->nwords words. */
uint64_t *sim_set_new(const struct sim *s);
void sim_set_zero(const struct sim *s, uint64_t *set);
void sim_set_copy(const struct sim *s, uint64_t *dst, const uint64_t *src);
static inline bool sim_set_test(const uint64_t *set, unsigned int cpu)
{
	return (set[cpu / 64] >> (cpu % 64)) & 1;
}
static inline void sim_set_add(uint64_t *set, unsigned int cpu)
{
	set[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}
static inline void sim_set_del(uint64_t *set, unsigned int cpu)
{
	set[cpu / 64] &= ~((uint64_t)1 << (cpu % 64));
}
unsigned int sim_set_count(const struct sim *s, const uint64_t *set);
bool sim_set_empty(const struct sim *s, const uint64_t *set);
bool sim_set_online_empty(const struct sim *s, const uint64_t *set);
/* The kernel's spellings: "0-3,8" and "ff,ffffffff" (nr_cpus bits). */
void sim_set_list(const struct sim *s, const uint64_t *set, char *buf, size_t len);
void sim_set_mask(const struct sim *s, const uint64_t *set, char *buf, size_t len);
/* Parse like the kernel: -EINVAL on syntax, -ERANGE for a CPU >= nr_cpus,
 * -EOVERFLOW for a mask with too many bits. @set is zeroed first. */
int sim_parse_list(const struct sim *s, const char *buf, size_t len, uint64_t *set);
int sim_parse_mask(const struct sim *s, const char *buf, size_t len, uint64_t *set);

/* Strict numbers for descriptions and state: all of @str, nothing else. */
int sim_parse_uint(const char *str, unsigned long max, unsigned long *ret);
int sim_parse_int(const char *str, long min, long max, long *ret);
int sim_parse_double(const char *str, double *ret);

/* Allocate a model with @nr_cpus possible CPUs (fields zeroed). */
int sim_alloc(struct sim **ret, const char *dir, unsigned int nr_cpus);
/* Add an IRQ (kept ascending); returns its index or -errno. */
int sim_add_irq(struct sim *s, unsigned int irq);
struct sim_irq *sim_find_irq(struct sim *s, unsigned int irq);
void sim_free(struct sim *s);

int sim_load(const char *dir, struct sim **ret);
int sim_save(const struct sim *s);

/* Recount nr_eff from the IRQs' effective CPUs. */
void sim_recount(struct sim *s);
/* Pick the effective CPU of IRQ @i from its mask like x86's vector matrix:
 * the online CPU of the mask with the fewest IRQs, lowest id on ties; with
 * keep_current, the current CPU when it is still in the mask. On arm64 the
 * GIC's set_affinity: the first online CPU of the mask (GICv3 SPIs, and
 * ITS LPIs before 5.10); ITS LPIs from 5.10 the least loaded one, never
 * keeping the current CPU for its own sake. */
void sim_place(struct sim *s, struct sim_irq *q, bool keep);

/* The factor on IRQ @q's rate in the noise window holding time @t: 1 + a*u,
 * u uniform in [-1, 1) from a hash of (seed, IRQ, window); 1 without noise. */
double sim_noise_factor(const struct sim *s, const struct sim_irq *q, double t);

/* Advance time by @dt seconds: counts, ticks, softirqs. No rendering. */
void sim_step(struct sim *s, double dt);

/* A write of @buf to /proc/irq/@irq/smp_affinity(_list) (@list) or, for
 * @irq < 0, to /proc/irq/default_smp_affinity. Returns what write(2) would:
 * bytes accepted or -errno. Updates the model and marks files dirty. */
long sim_write_affinity(struct sim *s, long irq, const char *buf, size_t len,
			bool list);

/* Take a CPU offline / bring it back, moving IRQs like the kernel. */
int sim_cpu_offline(struct sim *s, unsigned int cpu, FILE *log);
int sim_cpu_online(struct sim *s, unsigned int cpu);

/* Apply the named shift; -ENOENT when no such shift exists. */
int sim_apply_shift(struct sim *s, const char *name);

/* Render DIR/proc/{interrupts,stat,softirqs}; with @all_irqs every
 * DIR/proc/irq/N, else only dirty ones (plus default_smp_affinity). */
int sim_render_proc(struct sim *s, bool all_irqs);
/* Only the dirty DIR/proc/irq/N files and default_smp_affinity. */
int sim_render_irqs(struct sim *s);

/* Cheap persistence between full saves: DIR/sim.journal gets one line per
 * change (absolute values, so replaying twice is harmless); sim_load()
 * replays it and sim_save() removes it. */
#define SIM_JOURNAL_FILE "sim.journal"
int sim_journal_irq(const struct sim *s, const struct sim_irq *q);
int sim_journal_default(const struct sim *s);
int sim_journal_fault(const struct sim *s, unsigned int idx);

/* Events. sim_advance() is sim_step() that stops at each pending EV_AT
 * event on the way, fires it and goes on; sim_write_event() counts one
 * affinity write and fires the EV_WRITE events it triggers, before the
 * write is applied. Firing changes the model and the files it owns (/sys
 * CPUs, proc/irq/N of a removed or added IRQ); the caller renders /proc
 * and saves as after any step. Signals are not sent: the first one due is
 * returned in *@ret_sig (0: none) for the caller to raise once the state
 * is saved. Returns 0 or -errno of a file effect. */
int sim_advance(struct sim *s, double dt, int *ret_sig);
int sim_write_event(struct sim *s, int *ret_sig, bool *ret_changed);
int sim_journal_writes(const struct sim *s);
/* A new event (zeroed) or deny rule in @s; NULL / -errno on failure. */
struct sim_event *sim_add_event(struct sim *s);
int sim_add_deny(struct sim *s, const char *path, int err);
/* Decode "\xNN" (not 00) in place: how names with control bytes are
 * written in descriptions and in sim.state. */
void sim_unescape(char *str);
/* -errno a program gets for opening or stat()ing @path, 0 if allowed. */
int sim_denied(const struct sim *s, const char *path);
/* Remove IRQ @irq like free_irq() of its last handler plus the vector's
 * release: its row, counts and proc/irq/N go. */
int sim_remove_irq(struct sim *s, unsigned int irq);
const char *sim_signal_name(int sig);
int sim_signal_parse(const char *name);	/* 0 if unknown */

/* Application threads (tests/sim/app.c). A thread is pinned when the
 * online CPUs it may run on are fewer than the eligible CPUs (online, not
 * isolated, not nohz_full): irqtune's rule. Kernel threads never are. */
struct sim_buf;
#define SIM_APP_BUSY	0.05	/* a CPU with more pinned load runs the app */
struct sim_thread *sim_add_thread(struct sim *s);
bool sim_thread_pinned(const struct sim *s, const struct sim_thread *t);
/* A thread (@pid a TID other than its process's) or a whole process
 * exits: it leaves the model and its /proc directory goes. */
int sim_app_exit(struct sim *s, unsigned int pid);
/* The process @pid exits and a new one takes its PIDs at once: times
 * from zero, starttime now (a PID reused within a window). */
int sim_app_reuse(struct sim *s, unsigned int pid);
/* Per CPU id: the pinned threads' true load, in CPUs (@ret: nr_cpus). */
void sim_app_load(const struct sim *s, double *ret);
/* Per CPU id: what every thread asks for per second, user and system. */
void sim_app_demand(const struct sim *s, double *user, double *sys);
/* Threads' utime/stime after @dt seconds in which CPU c gave them
 * @grant[c] (0..1) of what they asked for there. */
void sim_app_advance(struct sim *s, const double *grant, double dt);
void sim_app_save(const struct sim *s, struct sim_buf *b);
/* The measure member's application lines (replay.c's "app_cpus" and "app
 * CPU NS RUNS"): the pinned threads' run time per CPU over [from, to], what
 * the kernel program's sched_switch probe sums: what the IRQs and the
 * background left them of what they asked for (at the IRQs' mean rates
 * and the window's noise, as sim_step gives it). */
void sim_app_measure(const struct sim *s, double from, double to, FILE *out);
int sim_app_load_line(struct sim *s, char *rest);
/* DIR/proc/PID/{stat,status,comm} and task/TID/{stat,status}; @all: make
 * the directories too. */
int sim_app_render(const struct sim *s, bool all);
/* The kubelet's cpu_manager_state in DIR/var/lib/kubelet: the pods'
 * containers (threads with a pod) and their CPUs; @policy "static" or
 * another; @truncate > 0 cuts the file to that many bytes. */
int sim_kubelet_render(const struct sim *s, enum sim_kubelet layout,
		       const char *policy, long truncate);
/* The score's application keys, given each CPU's IRQ load (busy time);
 * nothing on a machine without threads. */
void sim_app_score(const struct sim *s, const double *irq, FILE *out);
/* Of IRQ load @irq per CPU, the share (percent) and load on CPUs whose
 * pinned load @app is above SIM_APP_BUSY; and the busiest CPU's whole
 * load (IRQ plus pinned app), its CPU in *@ret_cpu. */
void sim_app_figures(const struct sim *s, const double *irq, const double *app,
		     double *ret_pct, double *ret_on_app, double *ret_whole,
		     int *ret_cpu);

/* Key/value quality report and a per-IRQ table. */
void sim_score(const struct sim *s, FILE *out, bool verbose);
/* sim_score()'s lower_bound, so that other ratios read like load_ratio. */
double sim_lower_bound(const struct sim *s);
void sim_show(const struct sim *s, FILE *out);
/* The kernel program's measurement over model time [from, to], as a
 * capture's "measure" member: what the bpf load source would have seen. */
void sim_measure(const struct sim *s, double from, double to, FILE *out);

/* IRQ load in CPUs (1.0 = one CPU busy). */
static inline double sim_irq_load(const struct sim_irq *q)
{
	return q->rate * (q->hard_us + q->soft_us) * 1e-6;
}

/* Files under s->dir. put_file writes whole files (mode applied even over an
 * existing read-only file); paths are relative to @dir, never absolute. */
int sim_put_file(const char *dir, const char *rel, const char *data,
		 size_t len, unsigned int mode);
int sim_put_atomic(const char *dir, const char *rel, const char *data,
		   size_t len);
int sim_mkdirs(const char *dir, const char *rel);

/* Writing a tree under @dir: the current directory (relative to @dir, set
 * and created by sim_out_cd) and the first error, kept in @err. */
struct sim_out {
	const char *dir;
	char base[512];
	int err;
	unsigned int files;
};
void sim_out_fail(struct sim_out *o, int r);
void sim_out_cd(struct sim_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sim_out_put(struct sim_out *o, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A symlink to @fmt (relative to @dir, under "sys/"), spelled relative. */
void sim_out_link(struct sim_out *o, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Remove @rel under @dir, recursively, never following symlinks. */
int sim_rm_rf(const char *dir, const char *rel);
/* (Re-)render sys/devices/system/{cpu,node} from the CPUs' state. */
int sim_render_cpus(struct sim *s);

/* Growable string. */
struct sim_buf {
	char *p;
	size_t len, cap;
	bool oom;
};
void sim_buf_printf(struct sim_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sim_buf_puts(struct sim_buf *b, const char *str);
void sim_buf_putc(struct sim_buf *b, char c);
/* %*llu without printf: right-aligned in @width. */
void sim_buf_u64(struct sim_buf *b, uint64_t v, int width);
void sim_buf_reset(struct sim_buf *b);
void sim_buf_free(struct sim_buf *b);

const char *sim_errno_name(int err);
int sim_errno_parse(const char *name);	/* positive errno, SIM_ERR_SHORT, or 0 */
extern const char *const sim_sirq_names[SIRQ_NR];

/* The busiest online CPU counting half of its SMT siblings' @load (per
 * CPU id): irqtune's objective on SMT machines (issue 34). */
double sim_smt_peak(const struct sim *s, const double *load);

#endif
