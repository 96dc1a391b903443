// SPDX-License-Identifier: GPL-2.0-or-later
/* loadsrc.c - chooses the load source for one run and says why. The
 * measurement is only believed when it describes the machine the run
 * reads: /proc and /sys are the kernel's own (not a test tree, not a
 * container's bound-over files), and the IRQs the program saw are those
 * /proc/interrupts counted. Functions return 0 or -errno; the caller
 * reports. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfload.h"
#include "fileio.h"
#include "loadsrc.h"
#include "pathnames.h"
#include "strutil.h"

const char *loadsrc_name(enum loadsrc_kind k)
{
	return k == LOADSRC_BPF ? "bpf" : "proc";
}

/* Numbered entries of /proc/irq: how many IRQs the maps must hold. */
static unsigned int count_irqs(void)
{
	DIR *d = opendir(_PATH_PROC_IRQ);
	struct dirent *e;
	unsigned int n = 0;

	if (!d)
		return 1024;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			n++;
	closedir(d);
	return n;
}

static const char *const proc_files[] = {
	_PATH_PROC_INTERRUPTS, _PATH_PROC_STAT, _PATH_PROC_SOFTIRQS, NULL
};
static const char *const sys_files[] = { _PATH_SYS_CPU "/online", NULL };

bool loadsrc_native(void)
{
	char why[64];

	return bpfload_native(proc_files, sys_files, why, sizeof(why)) == 0;
}

int loadsrc_begin(struct loadsrc *ls, enum config_load_source want,
		  enum bpfload_build build, bool threads, unsigned int app_cpus)
{
	char why[LOADSRC_REASON_MAX - 64];
	int r;

	memset(ls, 0, sizeof(*ls));
	ls->want = want == CONFIG_LOAD_UNSET ? CONFIG_LOAD_AUTO : want;
	ls->used = LOADSRC_PROC;
	/* Checked before anything is loaded: a measurement of this kernel
	 * says nothing about the machine a test tree shows. */
	r = bpfload_native(proc_files, sys_files, why, sizeof(why));
	ls->native = r == 0;
	if (ls->want == CONFIG_LOAD_PROC) {
		snprintf(ls->reason, sizeof(ls->reason), "asked for");
		return 0;
	}
	if (r == 0 && geteuid() != 0) {
		snprintf(why, sizeof(why), "measuring needs root");
		r = -EPERM;
	}
	if (r == 0) {
		r = bpfload_open(count_irqs(), build, threads, app_cpus, &ls->bpf, why,
				 sizeof(why));
		/* A forced build's refusal is not the kernel's last word. */
		if (r < 0 && build != BPFLOAD_BUILD_ANY)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 " (the one build IRQTUNE_BPF_BUILD allows)");
	}
	if (r < 0) {
		snprintf(ls->reason, sizeof(ls->reason), "the kernel program cannot run: %s", why);
		return ls->want == CONFIG_LOAD_BPF ? r : 0;
	}
	snprintf(ls->reason, sizeof(ls->reason), "measured in the kernel (%s%s)",
		 bpfload_mode(ls->bpf),
		 build == BPFLOAD_BUILD_ANY ? "" : "; the one build IRQTUNE_BPF_BUILD allows");
	return 0;
}

int loadsrc_replay(struct loadsrc *ls, enum config_load_source want,
		   struct measure_raw *raw, const char *reason)
{
	memset(ls, 0, sizeof(*ls));
	ls->want = want == CONFIG_LOAD_UNSET ? CONFIG_LOAD_AUTO : want;
	ls->used = LOADSRC_PROC;
	if (ls->want == CONFIG_LOAD_PROC) {
		measure_raw_free(raw);
		snprintf(ls->reason, sizeof(ls->reason), "asked for");
		return 0;
	}
	ls->raw = raw;
	snprintf(ls->reason, sizeof(ls->reason), "%s", reason);
	return !raw && ls->want == CONFIG_LOAD_BPF ? -ENODATA : 0;
}

void loadsrc_start(struct loadsrc *ls)
{
	if (ls->bpf)
		bpfload_start(ls->bpf);
}

void loadsrc_tick(struct loadsrc *ls)
{
	if (ls->bpf)
		bpfload_tick(ls->bpf);
}

void loadsrc_stop(struct loadsrc *ls)
{
	if (ls->bpf)
		bpfload_stop(ls->bpf);
}

int loadsrc_finish(struct loadsrc *ls, const struct snapshot *a,
		   const struct snapshot *b, const struct measure_target *t,
		   const enum irq_class *class, long hz,
		   const struct estimate_prior *prior, const struct estimate_dev *dev,
		   const struct irqthreads *thr, struct irq_activity **ret)
{
	struct irq_activity *est = NULL, *meas = NULL;
	char why[LOADSRC_REASON_MAX - 64], note[128] = "";
	int tr = 0, ar = 0;
	unsigned int n = b->intr->nr_rows;
	int r;

	r = estimate_proc_dev(a, b, class, hz, prior, dev, &est);
	if (r < 0)
		return r;
	if (thr)
		irqthread_apply(thr, b->intr, b->when - a->when, true, est);
	if (!ls->bpf && !ls->raw) {
		*ret = est;
		return 0;
	}
	if (ls->bpf) {
		str_copy(note, sizeof(note), bpfload_probe_note(ls->bpf));
		tr = bpfload_threads(ls->bpf);
		ar = bpfload_app(ls->bpf);
		r = bpfload_read(ls->bpf, &ls->raw);
		/* Read once: nothing more is wanted of the kernel. */
		bpfload_free(ls->bpf);
		ls->bpf = NULL;
		if (r < 0) {
			snprintf(why, sizeof(why), "cannot read its maps: %s", strerror(-r));
			goto disagree;
		}
	}
	r = sample_counts(a, b, &meas);
	if (r < 0)
		goto fail;
	r = measure_check(ls->raw, b->intr, meas, why, sizeof(why));
	if (r == 0)
		r = measure_attribute(ls->raw, t, n, meas);
	if (r == -ENOMEM)
		goto fail;
	if (r < 0)
		goto disagree;
	/* Threads the program did not time: their /proc run time. */
	if (thr)
		irqthread_apply(thr, b->intr, b->when - a->when, !ls->raw->threads_timed, meas);
	/* From the measurement, so that a replay says it too; the program's
	 * own words where it could not measure it. */
	if (measure_probe_note(ls->raw, note, sizeof(note)) == 0 || note[0]) {
		size_t l = strlen(ls->reason);

		snprintf(ls->reason + l, sizeof(ls->reason) - l, "; %s", note);
	}
	if (tr < 0) {
		size_t l = strlen(ls->reason);

		snprintf(ls->reason + l, sizeof(ls->reason) - l,
			 "; irq threads from /proc/PID/schedstat, their program was refused: %s",
			 strerror(-tr));
	}
	if (ar < 0) {
		size_t l = strlen(ls->reason);

		snprintf(ls->reason + l, sizeof(ls->reason) - l,
			 "; pinned application threads %s: %s", ls->raw->app_timed ?
			 "counted without the runs open at the window's end" :
			 "not counted, their program was refused", strerror(-ar));
	}
	ls->used = LOADSRC_BPF;
	ls->measured_ok = true;
	ls->proc_act = est;
	*ret = meas;
	return 0;
disagree:
	free(meas);
	snprintf(ls->reason, sizeof(ls->reason), "the measurement was not used: %s", why);
	if (ls->want == CONFIG_LOAD_BPF) {
		free(est);
		return -EPROTO;
	}
	*ret = est;
	return 0;
fail:
	free(meas);
	free(est);
	return r;
}

void loadsrc_release(struct loadsrc *ls)
{
	bpfload_free(ls->bpf);
	ls->bpf = NULL;
	measure_raw_free(ls->raw);
	ls->raw = NULL;
	free(ls->proc_act);
	ls->proc_act = NULL;
}
