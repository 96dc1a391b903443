// SPDX-License-Identifier: GPL-2.0-or-later
/* model.c - the simulated kernel: state file, time steps, affinity writes,
 * CPU hotplug, the /proc files and the quality score. See model.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

const char *const sim_sirq_names[SIRQ_NR] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

/* ---- growable strings ------------------------------------------------ */

static void buf_reserve(struct sim_buf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return;
	}
	b->p = p;
	b->cap = cap;
}

void sim_buf_printf(struct sim_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sim_buf_puts(struct sim_buf *b, const char *str)
{
	size_t n = strlen(str);

	buf_reserve(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, str, n + 1);
	b->len += n;
}

void sim_buf_putc(struct sim_buf *b, char c)
{
	buf_reserve(b, 1);
	if (b->oom)
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

void sim_buf_u64(struct sim_buf *b, uint64_t v, int width)
{
	char tmp[24];
	int n = 0, pad;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	pad = width > n ? width - n : 0;
	buf_reserve(b, (size_t)(pad + n));
	if (b->oom)
		return;
	memset(b->p + b->len, ' ', (size_t)pad);
	b->len += (size_t)pad;
	while (n)
		b->p[b->len++] = tmp[--n];
	b->p[b->len] = '\0';
}

void sim_buf_reset(struct sim_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void sim_buf_free(struct sim_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ---- numbers --------------------------------------------------------- */

int sim_parse_uint(const char *str, unsigned long max, unsigned long *ret)
{
	unsigned long v;
	char *end;
	int base = 10;

	if (!str || !*str || *str == '-' || *str == '+' || *str == ' ')
		return -EINVAL;
	if (str[0] == '0' && (str[1] == 'x' || str[1] == 'X'))
		base = 16;
	errno = 0;
	v = strtoul(str, &end, base);
	if (errno || *end)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	if (v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int sim_parse_int(const char *str, long min, long max, long *ret)
{
	long v;
	char *end;

	if (!str || !*str || *str == ' ')
		return -EINVAL;
	errno = 0;
	v = strtol(str, &end, 10);
	if (errno || *end)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int sim_parse_double(const char *str, double *ret)
{
	double v;
	char *end;

	if (!str || !*str || *str == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(str, &end);
	if (errno || *end || v != v)
		return -EINVAL;
	*ret = v;
	return 0;
}

static const struct {
	const char *name;
	int err;
} errno_names[] = {
	{ "EIO", EIO }, { "EPERM", EPERM }, { "EINVAL", EINVAL },
	{ "ENOSPC", ENOSPC }, { "EBUSY", EBUSY }, { "EROFS", EROFS },
	{ "ENOMEM", ENOMEM }, { "EAGAIN", EAGAIN }, { "ERANGE", ERANGE },
	{ "EOVERFLOW", EOVERFLOW }, { "ENOENT", ENOENT }, { "ENODEV", ENODEV },
	{ "EACCES", EACCES }, { "ENXIO", ENXIO }, { "short", SIM_ERR_SHORT },
};

const char *sim_errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return "?";
}

int sim_errno_parse(const char *name)
{
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (strcmp(errno_names[i].name, name) == 0)
			return errno_names[i].err;
	return 0;
}

/* ---- CPU sets -------------------------------------------------------- */

uint64_t *sim_set_new(const struct sim *s)
{
	return calloc(s->nwords, sizeof(uint64_t));
}

void sim_set_zero(const struct sim *s, uint64_t *set)
{
	memset(set, 0, s->nwords * sizeof(uint64_t));
}

void sim_set_copy(const struct sim *s, uint64_t *dst, const uint64_t *src)
{
	memcpy(dst, src, s->nwords * sizeof(uint64_t));
}

unsigned int sim_set_count(const struct sim *s, const uint64_t *set)
{
	unsigned int n = 0;

	for (unsigned int w = 0; w < s->nwords; w++)
		n += (unsigned int)__builtin_popcountll(set[w]);
	return n;
}

bool sim_set_empty(const struct sim *s, const uint64_t *set)
{
	for (unsigned int w = 0; w < s->nwords; w++)
		if (set[w])
			return false;
	return true;
}

bool sim_set_online_empty(const struct sim *s, const uint64_t *set)
{
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (sim_set_test(set, c) && s->cpu[c].online)
			return false;
	return true;
}

void sim_set_list(const struct sim *s, const uint64_t *set, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int c = 0;

	buf[0] = '\0';
	while (c < s->nr_cpus) {
		unsigned int end;
		int n;

		if (!sim_set_test(set, c)) {
			c++;
			continue;
		}
		end = c;
		while (end + 1 < s->nr_cpus && sim_set_test(set, end + 1))
			end++;
		if (end == c)
			n = snprintf(buf + used, len - used, "%s%u", used ? "," : "", c);
		else
			n = snprintf(buf + used, len - used, "%s%u-%u",
				     used ? "," : "", c, end);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
		c = end + 1;
	}
}

/* The kernel's "%*pb": 32-bit groups from the top, the first one only as
 * wide as nr_cpu_ids needs, the others zero-padded to 8 digits. */
void sim_set_mask(const struct sim *s, const uint64_t *set, char *buf, size_t len)
{
	unsigned int nbits = s->nr_cpus ? s->nr_cpus : 1;
	unsigned int ngroups = (nbits + 31) / 32;
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int g = ngroups; g-- > 0;) {
		uint32_t v = 0;
		int width, n;

		for (unsigned int b = 0; b < 32; b++) {
			unsigned int cpu = g * 32 + b;

			if (cpu < s->nr_cpus && sim_set_test(set, cpu))
				v |= (uint32_t)1 << b;
		}
		if (g == ngroups - 1)
			width = (int)(((nbits - 1) % 32) / 4 + 1);
		else
			width = 8;
		n = snprintf(buf + used, len - used, "%s%0*x",
			     g == ngroups - 1 ? "" : ",", width, v);
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

/* bitmap_parselist(): "0-3,8", "0-15:2/4" (2 of every 4), blanks and a
 * trailing newline allowed; "" is the empty set. */
int sim_parse_list(const struct sim *s, const char *buf, size_t len, uint64_t *set)
{
	char tmp[8192];
	char *p, *tok, *save;

	sim_set_zero(s, set);
	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	p = tmp;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	for (size_t n = strlen(p); n && (p[n - 1] == ' ' || p[n - 1] == '\n' ||
					 p[n - 1] == '\t'); n--)
		p[n - 1] = '\0';
	if (!*p)
		return 0;
	for (tok = strtok_r(p, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long a, b, used = 1, group = 1;
		char *dash, *colon, *slash;
		int r;

		colon = strchr(tok, ':');
		if (colon) {
			*colon = '\0';
			slash = strchr(colon + 1, '/');
			if (!slash)
				return -EINVAL;
			*slash = '\0';
			if (sim_parse_uint(colon + 1, UINT_MAX, &used) < 0 ||
			    sim_parse_uint(slash + 1, UINT_MAX, &group) < 0 ||
			    !used || !group || used > group)
				return -EINVAL;
		}
		dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		r = sim_parse_uint(tok, ULONG_MAX, &a);
		if (r == 0 && dash)
			r = sim_parse_uint(dash + 1, ULONG_MAX, &b);
		else
			b = a;
		if (r < 0 || strncmp(tok, "0x", 2) == 0)
			return -EINVAL;
		if (b < a)
			return -EINVAL;
		if (b >= s->nr_cpus)
			return -ERANGE;
		for (unsigned long c = a; c <= b; c++)
			if ((c - a) % group < used)
				sim_set_add(set, (unsigned int)c);
	}
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* bitmap_parse(): comma-separated 32-bit hex groups, lowest group last. */
int sim_parse_mask(const struct sim *s, const char *buf, size_t len, uint64_t *set)
{
	unsigned int bit = 0, digits = 0;

	sim_set_zero(s, set);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' ||
		       buf[len - 1] == '\0'))
		len--;
	if (!len)
		return -EINVAL;
	for (size_t i = len; i-- > 0;) {
		int v;

		if (buf[i] == ',') {
			if (digits == 0 || digits > 8)
				return -EINVAL;
			bit = (bit + 31) / 32 * 32;
			digits = 0;
			continue;
		}
		v = hexval(buf[i]);
		if (v < 0)
			return -EINVAL;
		if (++digits > 8)
			return -EOVERFLOW;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= s->nr_cpus)
				return -EOVERFLOW;
			sim_set_add(set, bit);
		}
	}
	return 0;
}

/* ---- the model ------------------------------------------------------- */

static uint64_t splitmix64(uint64_t x);

/* IRQSIM_PHASE_SEED picks other phases, to tell a result from its luck. */
static uint64_t phase_seed(void)
{
	const char *e = getenv("IRQSIM_PHASE_SEED");

	return e ? splitmix64(strtoull(e, NULL, 0)) : 0;
}

int sim_alloc(struct sim **ret, const char *dir, unsigned int nr_cpus)
{
	struct sim *s;

	if (nr_cpus == 0 || nr_cpus > SIM_MAX_CPUS)
		return -ERANGE;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dir = strdup(dir);
	s->nr_cpus = nr_cpus;
	s->nwords = (nr_cpus + 63) / 64;
	s->cpu = calloc(nr_cpus, sizeof(*s->cpu));
	s->default_aff = sim_set_new(s);
	if (!s->dir || !s->cpu || !s->default_aff) {
		sim_free(s);
		return -ENOMEM;
	}
	s->hz = 100;
	s->timer_hz = 250;
	s->kmajor = 6;
	s->kminor = 6;
	s->irqacct = true;
	s->ir = true;
	s->managed_ro = true;
	s->keep_current = true;
	s->gsi_top = 24;
	s->time = 5.0;
	s->btime = 1767225600;	/* 2026-01-01, fixed for stable output */
	s->processes = 1000;
	s->last_fault = -1;
	s->noise_period = 1.0;
	for (unsigned int c = 0; c < nr_cpus; c++) {
		s->cpu[c].node = s->cpu[c].cluster = -1;
		/* A real kernel's time counters are read at any phase of a
		 * tick: start each at its own (seeded, so runs repeat), not
		 * all at a tick's start, which would truncate every CPU's
		 * first window the same way. */
		for (unsigned int t = 0; t < ST_NR; t++)
			s->cpu[c].stat[t].frac = (double)(splitmix64(phase_seed() ^
				((uint64_t)c * ST_NR + t + 1)) >> 11) * 0x1p-53;
	}
	*ret = s;
	return 0;
}

int sim_add_irq(struct sim *s, unsigned int irq)
{
	struct sim_irq *q;
	unsigned int pos;

	if (irq >= SIM_MAX_IRQS || sim_find_irq(s, irq))
		return -EEXIST;
	if (s->nr_irqs % 64 == 0) {
		q = realloc(s->irqs, (s->nr_irqs + 64) * sizeof(*q));
		if (!q)
			return -ENOMEM;
		s->irqs = q;
	}
	for (pos = s->nr_irqs; pos > 0 && s->irqs[pos - 1].irq > irq; pos--)
		;
	memmove(&s->irqs[pos + 1], &s->irqs[pos],
		(s->nr_irqs - pos) * sizeof(*q));
	q = &s->irqs[pos];
	memset(q, 0, sizeof(*q));
	q->irq = irq;
	q->dev = -1;
	q->sirq = -1;
	q->eff = -1;
	q->node = -1;
	q->dirty = true;
	snprintf(q->type, sizeof(q->type), "edge");
	q->aff = sim_set_new(s);
	q->count = calloc(s->nr_cpus, sizeof(uint64_t));
	s->nr_irqs++;
	if (!q->aff || !q->count)
		return -ENOMEM;
	return (int)pos;
}

struct sim_irq *sim_find_irq(struct sim *s, unsigned int irq)
{
	unsigned int lo = 0, hi = s->nr_irqs;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (s->irqs[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nr_irqs && s->irqs[lo].irq == irq ? &s->irqs[lo] : NULL;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		free(s->irqs[i].aff);
		free(s->irqs[i].hint);
		free(s->irqs[i].count);
	}
	for (unsigned int i = 0; i < s->nr_faults; i++)
		free(s->faults[i].cpus);
	for (unsigned int i = 0; i < s->nr_threads; i++)
		free(s->threads[i].cpus);
	free(s->threads);
	free(s->irqs);
	free(s->faults);
	free(s->events);
	free(s->denies);
	free(s->shifts);
	free(s->devs);
	free(s->cpu);
	free(s->default_aff);
	free(s->dir);
	free(s);
}

void sim_recount(struct sim *s)
{
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		s->cpu[c].nr_eff = 0;
	for (unsigned int i = 0; i < s->nr_irqs; i++)
		if (s->irqs[i].eff >= 0)
			s->cpu[s->irqs[i].eff].nr_eff++;
}

/* arm64: GICv3 SPIs (gic_set_affinity(): cpumask_any_and(mask, online),
 * the first) and ITS LPIs before Linux 5.10 (its_set_affinity():
 * cpumask_first_and()) take the first online CPU of the mask. */
static bool first_of_mask(const struct sim *s, const struct sim_irq *q)
{
	if (s->isa != ISA_ARM64)
		return false;
	return strncmp(q->chip, "ITS", 3) != 0 || s->kmajor * 100 + s->kminor < 510;
}

/* What sim_place() ranks CPUs by, most first. x86's matrix_find_best_cpu()
 * takes the CPU with the most free vectors: where every CPU has as many,
 * the one with the fewest IRQs. The GIC has no vectors to run out of. */
static long room(const struct sim *s, unsigned int c)
{
	long v = s->isa == ISA_X86 ? (long)sim_vectors(s, c) : 0;

	return v - (long)s->cpu[c].nr_eff;
}

void sim_place(struct sim *s, struct sim_irq *q, bool keep)
{
	int best = -1;

	if (q->eff >= 0 && s->cpu[q->eff].nr_eff)
		s->cpu[q->eff].nr_eff--;
	q->dirty = true;
	/* The ITS from 5.10 (its_select_cpu(): the least loaded CPU of the
	 * mask) has no keep-current rule: the loop below without it. */
	if (s->isa == ISA_ARM64)
		keep = false;
	/* x86 assign_vector_locked(): "If the current target CPU is online
	 * and in the new requested affinity mask, there is no point in
	 * moving the interrupt from one CPU to another." */
	if (keep && s->keep_current && q->eff >= 0 &&
	    s->cpu[q->eff].online && sim_set_test(q->aff, (unsigned int)q->eff)) {
		s->cpu[q->eff].nr_eff++;
		return;
	}
	for (unsigned int w = 0; w < s->nwords; w++) {
		uint64_t bits = q->aff[w];

		while (bits) {
			unsigned int c = w * 64 + (unsigned int)__builtin_ctzll(bits);

			bits &= bits - 1;
			if (c >= s->nr_cpus || !s->cpu[c].online)
				continue;
			if (best < 0 || room(s, c) > room(s, (unsigned int)best))
				best = (int)c;
			if (first_of_mask(s, q))
				goto out;
		}
	}
out:
	q->eff = best;
	if (best >= 0)
		s->cpu[best].nr_eff++;
}

static void acc_add(struct sim_acc *a, double x)
{
	uint64_t whole;

	if (x <= 0)
		return;
	x += a->frac;
	whole = (uint64_t)x;
	a->n += whole;
	a->frac = x - (double)whole;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The noise window holding time @t (model time is never negative). */
static uint64_t noise_window(const struct sim *s, double t)
{
	return t > 0 ? (uint64_t)(t / s->noise_period) : 0;
}

double sim_noise_factor(const struct sim *s, const struct sim_irq *q, double t)
{
	uint64_t h;
	double u;

	if (s->noise <= 0 || s->noise_period <= 0)
		return 1.0;
	h = splitmix64(s->noise_seed ^ splitmix64(q->irq ^
		       splitmix64(noise_window(s, t))));
	u = (double)(h >> 11) * 0x1p-53 * 2.0 - 1.0;
	return 1.0 + s->noise * u;
}

/* Seconds of @q's mean load over [from, to]: their length, or with noise
 * the sum over the noise windows it meets of their length times their
 * factor (so a step cut anywhere gives the same counts). */
static double noisy_span(const struct sim *s, const struct sim_irq *q,
			 double from, double to)
{
	double t = from, end = to, sum = 0;

	if (s->noise <= 0 || s->noise_period <= 0)
		return to - from;
	while (t < end) {
		double next = (double)(noise_window(s, t) + 1) * s->noise_period;

		if (next > end || next <= t)
			next = end;
		sum += (next - t) * sim_noise_factor(s, q, t);
		t = next;
	}
	return sum;
}

static double noisy_dt(const struct sim *s, const struct sim_irq *q, double dt)
{
	return noisy_span(s, q, s->time, s->time + dt);
}

/* What irqtune's kernel program would have summed over [from, to] (the
 * "measure" member of a capture, replay.c's format): each IRQ's handler
 * time and count on its effective CPU, each CPU's softirq time by vector,
 * and NET_RX time per NAPI instance, one per NIC queue with its IRQ known.
 * Exact, as a measurement without probe overhead would be: the time of
 * interrupts the model's noise made dearer or cheaper included. The
 * background softirqs (timer, RCU) cost no time in the model, so none. */
void sim_measure(const struct sim *s, double from, double to, FILE *out)
{
	double (*soft)[SIRQ_NR] = calloc(s->nr_cpus, sizeof(*soft));
	double (*ev)[SIRQ_NR] = calloc(s->nr_cpus, sizeof(*ev));

	if (!soft || !ev || !(to > from))
		goto out_free;
	fprintf(out, "# irqtune measure: modelled by irqsim\n"
		"window %.9f\nuse_ctx 0\ncpus %u\ndropped 0\nmissed 0\n",
		to - from, s->nr_cpus);
	fputs("# irq IRQ CPU HANDLER_NS CTX_NS COUNT NAME\n", out);
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		double span, n, slow;

		if (q->eff < 0 || !s->cpu[q->eff].online || q->rate <= 0)
			continue;
		span = noisy_span(s, q, from, to);
		/* noise on the cost leaves the count at the mean rate */
		n = q->rate * (s->noise_cost ? to - from : span);
		/* a smaller CPU takes longer, and a probe times that */
		slow = sim_slowdown(s, (unsigned int)q->eff);
		span *= slow;
		fprintf(out, "irq %u %d %.0f 0 %.0f %.23s\n", q->irq, q->eff,
			q->rate * q->hard_us * 1e3 * span, n, q->name);
		if (q->sirq < 0)
			continue;
		soft[q->eff][q->sirq] += q->rate * q->soft_us * 1e3 * span;
		ev[q->eff][q->sirq] += n;
		if (q->sirq == SIRQ_NET_RX && q->dev >= 0)
			fprintf(out, "napi %d %u %.0f %.0f %.15s\n", q->eff, q->irq,
				q->rate * q->soft_us * 1e3 * span, n,
				s->devs[q->dev].name);
	}
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		fprintf(out, "soft %u", c);
		for (int v = 0; v < SIRQ_NR; v++)
			fprintf(out, " %.0f", soft[c][v]);
		for (int v = 0; v < SIRQ_NR; v++)
			fprintf(out, " %.0f", ev[c][v]);
		fputc('\n', out);
	}
	if (s->nr_threads)
		sim_app_measure(s, from, to, out);
out_free:
	free(soft);
	free(ev);
}

void sim_step(struct sim *s, double dt)
{
	double *hard, *soft, *au = NULL, *as = NULL, *grant = NULL;
	unsigned int online = 0;

	if (dt <= 0)
		return;
	hard = calloc(s->nr_cpus, sizeof(double));
	soft = calloc(s->nr_cpus, sizeof(double));
	if (!hard || !soft)
		goto out_free;
	if (s->nr_threads) {
		au = calloc(s->nr_cpus, sizeof(double));
		as = calloc(s->nr_cpus, sizeof(double));
		grant = calloc(s->nr_cpus, sizeof(double));
		if (!au || !as || !grant)
			goto out_free;
		sim_app_demand(s, au, as);
	}
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		struct sim_irq *q = &s->irqs[i];
		double x, qdt, slow;
		uint64_t n;

		if (q->eff < 0 || !s->cpu[q->eff].online || q->rate <= 0)
			continue;
		qdt = noisy_dt(s, q, dt);
		/* Noise on the cost leaves the count at the mean rate: only
		 * the time an interrupt takes varies from window to window. */
		x = q->rate * (s->noise_cost ? dt : qdt) + q->frac;
		n = (uint64_t)x;
		q->frac = x - (double)n;
		q->count[q->eff] += n;
		/* a smaller CPU takes longer for the same work */
		slow = sim_slowdown(s, (unsigned int)q->eff);
		hard[q->eff] += q->rate * q->hard_us * 1e-6 * qdt * slow;
		soft[q->eff] += q->rate * q->soft_us * 1e-6 * qdt * slow;
		if (q->sirq >= 0)
			acc_add(&s->cpu[q->eff].sirq[q->sirq], q->rate * qdt);
	}
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		struct sim_cpu *cpu = &s->cpu[c];
		double total = s->hz * dt;
		double h = hard[c] * s->hz, so = soft[c] * s->hz;
		double bu = s->bg_user * total, bs = s->bg_system * total;
		double busy = h + so + bu + bs, tick;
		bool quiet;

		if (!cpu->online)
			continue;
		online++;
		if (busy > total) {	/* saturated: time is what there is */
			double k = total / busy;

			h *= k;
			so *= k;
			bu *= k;
			bs *= k;
			busy = total;
		}
		/* Without CONFIG_IRQ_TIME_ACCOUNTING hard-irq time is not
		 * seen by the tick: it shows up as the interrupted context's. */
		acc_add(&cpu->stat[s->irqacct ? ST_IRQ : ST_SYSTEM], h);
		acc_add(&cpu->stat[ST_SOFTIRQ], so);
		/* Threads get what interrupts and the background leave. */
		if (au && au[c] + as[c] > 0) {
			double want = (au[c] + as[c]) * total;
			double got = want < total - busy ? want : total - busy;

			grant[c] = got / want;
			bu += au[c] * total * grant[c];
			bs += as[c] * total * grant[c];
			busy += got;
		}
		acc_add(&cpu->stat[ST_USER], bu);
		acc_add(&cpu->stat[ST_SYSTEM], bs);
		acc_add(&cpu->stat[ST_IDLE], total - busy);
		/* A nohz_full CPU with nothing to do does not tick. */
		quiet = cpu->nohz_full && hard[c] == 0 && soft[c] == 0;
		tick = quiet ? 1 : s->timer_hz;
		acc_add(&cpu->arch[AR_LOC], tick * dt);
		acc_add(&cpu->arch[AR_RES], (quiet ? 0.1 : 4) * dt);
		acc_add(&cpu->arch[AR_CAL], (quiet ? 0.1 : 2) * dt);
		acc_add(&cpu->arch[AR_TLB], (quiet ? 0 : 0.5) * dt);
		acc_add(&cpu->sirq[SIRQ_TIMER], tick * dt);
		acc_add(&cpu->sirq[SIRQ_SCHED], (quiet ? 0.1 : 20) * dt);
		acc_add(&cpu->sirq[SIRQ_RCU], (quiet ? 0.5 : 40) * dt);
	}
	if (grant)
		sim_app_advance(s, grant, dt);
	acc_add(&s->ctxt_acc, 800.0 * online * dt);
	s->ctxt = s->ctxt_acc.n;
	s->time += dt;
out_free:
	free(hard);
	free(soft);
	free(au);
	free(as);
	free(grant);
}

static bool fault_hits(struct sim *s, const struct sim_irq *q,
		       const uint64_t *set, int *ret_err)
{
	for (unsigned int i = 0; i < s->nr_faults; i++) {
		struct sim_fault *f = &s->faults[i];
		bool meets = !f->cpus;

		if (f->irq != q->irq || f->times == 0)
			continue;
		for (unsigned int w = 0; !meets && w < s->nwords; w++)
			meets = (f->cpus[w] & set[w]) != 0;
		if (!meets)
			continue;
		if (f->times > 0)
			f->times--;
		s->last_fault = (int)i;
		*ret_err = f->err;
		return true;
	}
	return false;
}

/* Whether x86 finds IRQ @q a vector for the new set @set: the current one
 * where it stays (keep_current), else a free one on an online CPU of the
 * set; irq_matrix_alloc() fails with -ENOSPC and the write with it. */
static bool vector_for(const struct sim *s, const struct sim_irq *q,
		       const uint64_t *set)
{
	if (s->isa != ISA_X86)
		return true;
	if (s->keep_current && q->eff >= 0 && s->cpu[q->eff].online &&
	    sim_set_test(set, (unsigned int)q->eff))
		return true;
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (sim_set_test(set, c) && s->cpu[c].online &&
		    ((int)c == q->eff || sim_vectors_free(s, c) > 0))
			return true;
	return false;
}

long sim_write_affinity(struct sim *s, long irq, const char *buf, size_t len,
			bool list)
{
	struct sim_irq *q = NULL;
	uint64_t *set;
	long ret = (long)len;
	int r, err;

	s->last_fault = -1;
	if (irq >= 0) {
		q = irq < SIM_MAX_IRQS ? sim_find_irq(s, (unsigned int)irq) : NULL;
		if (!q)
			return -ENOENT;
		/* irq_can_set_affinity_usr(): managed IRQs refuse. */
		if (q->managed)
			return s->kmajor * 100 + s->kminor >= 612 ? -EPERM : -EIO;
	}
	set = sim_set_new(s);
	if (!set)
		return -ENOMEM;
	r = list ? sim_parse_list(s, buf, len, set) : sim_parse_mask(s, buf, len, set);
	if (r < 0) {
		ret = r;
		goto out_free;
	}
	if (!q) {
		/* write_default_smp_affinity(): at least one online CPU. */
		if (sim_set_online_empty(s, set))
			ret = -EINVAL;
		else
			sim_set_copy(s, s->default_aff, set);
		goto out_free;
	}
	if (fault_hits(s, q, set, &err)) {
		if (err == SIM_ERR_SHORT)
			ret = len > 1 ? (long)len - 1 : 0;
		else
			ret = -err;
		goto out_free;
	}
	/* "Do not allow disabling IRQs completely": no online CPU in the new
	 * set is refused (or, where the architecture picks a default, a
	 * silent no-op). */
	if (sim_set_online_empty(s, set)) {
		if (!s->offline_ignore)
			ret = -EINVAL;
		goto out_free;
	}
	if (!vector_for(s, q, set)) {
		ret = -ENOSPC;
		goto out_free;
	}
	sim_set_copy(s, q->aff, set);
	sim_place(s, q, true);
out_free:
	free(set);
	return ret;
}

int sim_cpu_offline(struct sim *s, unsigned int cpu, FILE *log)
{
	unsigned int online = 0;

	if (cpu >= s->nr_cpus || !s->cpu[cpu].present)
		return -ENODEV;
	if (!s->cpu[cpu].online)
		return 0;
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		online += s->cpu[c].online;
	if (online <= 1)
		return -EBUSY;
	s->cpu[cpu].online = false;
	/* irq_migrate_all_off_this_cpu() / migrate_one_irq(). */
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		struct sim_irq *q = &s->irqs[i];

		if (q->eff != (int)cpu)
			continue;
		if (sim_set_online_empty(s, q->aff)) {
			if (q->managed) {	/* shut down, mask kept */
				s->cpu[cpu].nr_eff--;
				q->eff = -1;
				q->dirty = true;
				continue;
			}
			/* Broken affinity: the mask becomes the online CPUs. */
			for (unsigned int c = 0; c < s->nr_cpus; c++)
				if (s->cpu[c].online)
					sim_set_add(q->aff, c);
			if (log)
				fprintf(log, "IRQ %u: no longer affine to CPU%u\n",
					q->irq, cpu);
		}
		sim_place(s, q, false);
	}
	return 0;
}

int sim_cpu_online(struct sim *s, unsigned int cpu)
{
	if (cpu >= s->nr_cpus || !s->cpu[cpu].present)
		return -ENODEV;
	if (s->cpu[cpu].online)
		return 0;
	s->cpu[cpu].online = true;
	/* Shut-down managed IRQs start again when a CPU of their mask comes. */
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		struct sim_irq *q = &s->irqs[i];

		if (q->managed && q->eff < 0 && sim_set_test(q->aff, cpu))
			sim_place(s, q, false);
	}
	return 0;
}

int sim_apply_shift(struct sim *s, const char *name)
{
	int found = 0;

	for (unsigned int i = 0; i < s->nr_shifts; i++) {
		struct sim_shift *sh = &s->shifts[i];
		struct sim_irq *q;

		if (strcmp(sh->name, name) != 0)
			continue;
		found = 1;
		q = sim_find_irq(s, sh->irq);
		if (!q)
			continue;
		q->rate = sh->rate;
		q->hard_us = sh->hard_us;
		q->soft_us = sh->soft_us;
	}
	return found ? 0 : -ENOENT;
}

/* ---- events ---------------------------------------------------------- */

int sim_remove_irq(struct sim *s, unsigned int irq)
{
	struct sim_irq *q = sim_find_irq(s, irq);
	char rel[64];
	unsigned int i;

	if (!q)
		return -ENOENT;
	i = (unsigned int)(q - s->irqs);
	if (q->eff >= 0 && s->cpu[q->eff].nr_eff)
		s->cpu[q->eff].nr_eff--;
	free(q->aff);
	free(q->hint);
	free(q->count);
	memmove(q, q + 1, (s->nr_irqs - i - 1) * sizeof(*q));
	s->nr_irqs--;
	/* unregister_irq_proc(): the directory goes with the descriptor */
	snprintf(rel, sizeof(rel), "proc/irq/%u", irq);
	return sim_rm_rf(s->dir, rel);
}

/* request_irq() of a device-less MSI vector: unmanaged, on the default
 * affinity, counts from zero. Its directory is rendered with /proc. */
static int add_irq_event(struct sim *s, const struct sim_event *e)
{
	struct sim_irq *q;
	int idx = sim_add_irq(s, e->irq);

	if (idx < 0)
		return idx;
	q = &s->irqs[idx];
	q->rate = e->rate;
	q->hard_us = e->hard_us;
	q->soft_us = e->soft_us;
	q->sirq = e->soft_us > 0 ? SIRQ_TASKLET : -1;
	q->hwirq = e->irq;
	snprintf(q->chip, sizeof(q->chip), "%sPCI-MSI", s->ir ? "IR-" : "");
	snprintf(q->name, sizeof(q->name), "%s", e->name);
	sim_set_copy(s, q->aff, s->default_aff);
	sim_place(s, q, false);
	q->fresh = true;
	return 0;
}

static int fire(struct sim *s, struct sim_event *e, int *ret_sig)
{
	int r = 0;

	e->fired = true;
	switch (e->what) {
	case EV_OFFLINE:
		r = sim_cpu_offline(s, e->cpu, NULL);
		if (r == 0)
			r = sim_render_cpus(s);
		break;
	case EV_ONLINE:
		r = sim_cpu_online(s, e->cpu);
		if (r == 0)
			r = sim_render_cpus(s);
		break;
	case EV_REMOVE:
		r = sim_remove_irq(s, e->irq);
		break;
	case EV_ADD:
		r = add_irq_event(s, e);
		break;
	case EV_EXIT:
		r = sim_app_exit(s, e->irq);
		break;
	case EV_REUSE:
		r = sim_app_reuse(s, e->irq);
		break;
	case EV_SIGNAL:
		if (!*ret_sig)
			*ret_sig = e->sig;
		break;
	}
	return r;
}

int sim_advance(struct sim *s, double dt, int *ret_sig)
{
	double end = s->time + (dt > 0 ? dt : 0);
	int r = 0, r2;

	*ret_sig = 0;
	for (;;) {
		struct sim_event *next = NULL;

		for (unsigned int i = 0; i < s->nr_events; i++) {
			struct sim_event *e = &s->events[i];

			if (e->when == EV_AT && !e->fired && e->at <= end &&
			    (!next || e->at < next->at))
				next = e;
		}
		if (!next)
			break;
		if (next->at > s->time)
			sim_step(s, next->at - s->time);
		r2 = fire(s, next, ret_sig);
		if (r == 0)
			r = r2;
	}
	if (end > s->time)
		sim_step(s, end - s->time);
	return r;
}

int sim_write_event(struct sim *s, int *ret_sig, bool *ret_changed)
{
	int r = 0, r2;

	*ret_sig = 0;
	*ret_changed = false;
	s->writes++;
	for (unsigned int i = 0; i < s->nr_events; i++) {
		struct sim_event *e = &s->events[i];

		if (e->when != EV_WRITE || e->fired || e->nth > s->writes)
			continue;
		r2 = fire(s, e, ret_sig);
		if (r == 0)
			r = r2;
		*ret_changed = true;
	}
	return r;
}

int sim_denied(const struct sim *s, const char *path)
{
	for (unsigned int i = 0; i < s->nr_denies; i++) {
		size_t n = strlen(s->denies[i].path);

		if (strncmp(path, s->denies[i].path, n) == 0 &&
		    (path[n] == '\0' || path[n] == '/'))
			return -s->denies[i].err;
	}
	return 0;
}

/* ---- files ----------------------------------------------------------- */

static int join(char *path, size_t len, const char *dir, const char *rel)
{
	int n;

	if (rel[0] == '/' || strstr(rel, ".."))
		return -EINVAL;	/* never leave @dir */
	n = snprintf(path, len, "%s/%s", dir, rel);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int sim_put_file(const char *dir, const char *rel, const char *data,
		 size_t len, unsigned int mode)
{
	char path[PATH_MAX];
	int fd, r;

	r = join(path, sizeof(path), dir, rel);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0 && errno == EACCES) {	/* read-only and not root */
		unlink(path);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
			  O_NOFOLLOW, mode);
	}
	if (fd < 0)
		return -errno;
	r = write_all(fd, data, len);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int sim_put_atomic(const char *dir, const char *rel, const char *data,
		   size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int fd, r;

	r = join(path, sizeof(path), dir, rel);
	if (r < 0)
		return r;
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	r = write_all(fd, data, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int sim_mkdirs(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	size_t base = strlen(dir) + 1;
	int r;

	r = join(path, sizeof(path), dir, rel);
	if (r < 0)
		return r;
	for (char *p = path + base; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* ---- state file ------------------------------------------------------ */

static void put_acc(struct sim_buf *b, const struct sim_acc *a, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		sim_buf_printf(b, " %llu:%.17g", (unsigned long long)a[i].n, a[i].frac);
}

static int split(char *line, char **f, int max);

/* Names go last on their line, with control bytes, a leading blank and
 * backslashes as \xNN: an action name may hold anything but '\0' and '/'
 * (a driver's choice, or an interface renamed in a container). */
static void put_escaped(struct sim_buf *b, const char *str)
{
	for (const char *p = str; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == 0x7f || c == '\\' || (p == str && c == ' '))
			sim_buf_printf(b, "\\x%02x", c);
		else
			sim_buf_putc(b, (char)c);
	}
}

/* Undo put_escaped() in place (also what machine descriptions use). */
void sim_unescape(char *str)
{
	char *o = str;

	for (const char *p = str; *p; p++) {
		if (p[0] == '\\' && p[1] == 'x' && hexval(p[2]) >= 0 &&
		    hexval(p[3]) >= 0 && (hexval(p[2]) | hexval(p[3]))) {
			*o++ = (char)(hexval(p[2]) << 4 | hexval(p[3]));
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
}

static const struct {
	const char *name;
	int sig;
} signal_names[] = {
	{ "KILL", SIGKILL }, { "TERM", SIGTERM }, { "INT", SIGINT },
	{ "HUP", SIGHUP }, { "STOP", SIGSTOP },
};

const char *sim_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++)
		if (signal_names[i].sig == sig)
			return signal_names[i].name;
	return "?";
}

int sim_signal_parse(const char *name)
{
	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (size_t i = 0; i < sizeof(signal_names) / sizeof(signal_names[0]); i++)
		if (strcmp(signal_names[i].name, name) == 0)
			return signal_names[i].sig;
	return 0;
}

static const char *const ev_what_names[] = {
	[EV_OFFLINE] = "offline", [EV_ONLINE] = "online",
	[EV_REMOVE] = "remove", [EV_ADD] = "add", [EV_SIGNAL] = "signal",
	[EV_EXIT] = "exit", [EV_REUSE] = "reuse",
};

/* "event at|write VALUE FIRED WHAT ARGS", "deny ERRNO PATH", "writes N" */
static void save_events(const struct sim *s, struct sim_buf *b)
{
	for (unsigned int i = 0; i < s->nr_events; i++) {
		const struct sim_event *e = &s->events[i];

		if (e->when == EV_AT)
			sim_buf_printf(b, "event at %.17g", e->at);
		else
			sim_buf_printf(b, "event write %lu", e->nth);
		sim_buf_printf(b, " %d %s", e->fired, ev_what_names[e->what]);
		switch (e->what) {
		case EV_OFFLINE:
		case EV_ONLINE:
			sim_buf_printf(b, " %u\n", e->cpu);
			break;
		case EV_REMOVE:
		case EV_EXIT:
		case EV_REUSE:
			sim_buf_printf(b, " %u\n", e->irq);
			break;
		case EV_ADD:
			sim_buf_printf(b, " %u %.17g %.17g %.17g ", e->irq, e->rate,
				       e->hard_us, e->soft_us);
			put_escaped(b, e->name);
			sim_buf_putc(b, '\n');
			break;
		case EV_SIGNAL:
			sim_buf_printf(b, " %s\n", sim_signal_name(e->sig));
			break;
		}
	}
	for (unsigned int i = 0; i < s->nr_denies; i++)
		sim_buf_printf(b, "deny %s %s\n", sim_errno_name(s->denies[i].err),
			       s->denies[i].path);
	sim_buf_printf(b, "writes %lu\n", s->writes);
}

int sim_save(const struct sim *s)
{
	struct sim_buf b = { 0 };
	char list[16384];
	int r;

	sim_buf_printf(&b, "irqsim-state 1\nmachine %s\ntime %.17g\nbtime %.0f\n",
		       s->machine, s->time, s->btime);
	sim_buf_printf(&b, "hz %u\ntimer_hz %u\nkernel %d %d\ngsi_top %u\n",
		       s->hz, s->timer_hz, s->kmajor, s->kminor, s->gsi_top);
	sim_buf_printf(&b, "opts %d %d %d %d %d\n", s->irqacct, s->ir,
		       s->managed_ro, s->keep_current, s->offline_ignore);
	sim_buf_printf(&b, "isa %s\nnoise %.17g %.17g %lu %s\n",
		       s->isa == ISA_ARM64 ? "arm64" : "x86", s->noise,
		       s->noise_period, s->noise_seed,
		       s->noise_cost ? "cost" : "rate");
	sim_buf_printf(&b, "background %.17g %.17g\nnohz %d\n", s->bg_user,
		       s->bg_system, (int)s->nohz_mode);
	sim_buf_printf(&b, "ctxt %llu:%.17g %llu\n",
		       (unsigned long long)s->ctxt_acc.n, s->ctxt_acc.frac,
		       (unsigned long long)s->processes);
	sim_buf_printf(&b, "nr_cpus %u\n", s->nr_cpus);
	if (s->hybrid)
		sim_buf_puts(&b, "hybrid 1\n");
	sim_set_list(s, s->default_aff, list, sizeof(list));
	sim_buf_printf(&b, "default_affinity %s\n", list[0] ? list : "-");
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		const struct sim_cpu *p = &s->cpu[c];

		sim_buf_printf(&b, "cpu %u %d %d %d %d %d %d %d %d %d %d\n", c,
			       p->present, p->online, p->node, p->package,
			       p->die, p->core, p->llc, p->isolated, p->nohz_full,
			       p->cluster);
		if (!p->present)
			continue;
		if (p->capacity || p->vectors)
			sim_buf_printf(&b, "ccap %u %u %u\n", c, p->capacity, p->vectors);
		sim_buf_printf(&b, "cstat %u", c);
		put_acc(&b, p->stat, ST_NR);
		put_acc(&b, p->sirq, SIRQ_NR);
		put_acc(&b, p->arch, AR_NR);
		sim_buf_putc(&b, '\n');
	}
	for (unsigned int d = 0; d < s->nr_devs; d++) {
		sim_buf_printf(&b, "dev %u %d %s %s ", d, s->devs[d].node,
			       s->devs[d].kind,
			       s->devs[d].bdf[0] ? s->devs[d].bdf : "-");
		put_escaped(&b, s->devs[d].name);
		sim_buf_putc(&b, '\n');
	}
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		char hint[16384];

		sim_set_list(s, q->aff, list, sizeof(list));
		if (q->hint)
			sim_set_list(s, q->hint, hint, sizeof(hint));
		sim_buf_printf(&b, "irq %u %d %d %d %.17g %.17g %.17g %d %d %d "
			       "%.17g %lu %s %s %s %s ", q->irq, q->dev,
			       q->queue, q->managed, q->rate, q->hard_us,
			       q->soft_us, q->sirq, q->node, q->eff, q->frac,
			       q->hwirq, q->type, q->chip, list[0] ? list : "-",
			       q->hint ? (hint[0] ? hint : "-") : "none");
		put_escaped(&b, q->name);
		sim_buf_putc(&b, '\n');
		sim_buf_printf(&b, "cnt %u", q->irq);
		for (unsigned int c = 0; c < s->nr_cpus; c++)
			if (q->count[c])
				sim_buf_printf(&b, " %u:%llu", c,
					       (unsigned long long)q->count[c]);
		sim_buf_putc(&b, '\n');
	}
	for (unsigned int i = 0; i < s->nr_shifts; i++)
		sim_buf_printf(&b, "shift %s %u %.17g %.17g %.17g\n",
			       s->shifts[i].name, s->shifts[i].irq,
			       s->shifts[i].rate, s->shifts[i].hard_us,
			       s->shifts[i].soft_us);
	for (unsigned int i = 0; i < s->nr_faults; i++) {
		const struct sim_fault *f = &s->faults[i];

		if (f->cpus)
			sim_set_list(s, f->cpus, list, sizeof(list));
		sim_buf_printf(&b, "fault %u %s %d %s\n", f->irq,
			       sim_errno_name(f->err), f->times,
			       f->cpus && list[0] ? list : "-");
	}
	save_events(s, &b);
	sim_app_save(s, &b);
	sim_buf_puts(&b, "end\n");
	if (b.oom) {
		sim_buf_free(&b);
		return -ENOMEM;
	}
	r = sim_put_atomic(s->dir, SIM_STATE_FILE, b.p, b.len);
	sim_buf_free(&b);
	if (r == 0) {
		char path[PATH_MAX];

		if (join(path, sizeof(path), s->dir, SIM_JOURNAL_FILE) == 0 &&
		    unlink(path) < 0 && errno != ENOENT)
			r = -errno;
	}
	return r;
}

static int journal(const struct sim *s, const char *line)
{
	char path[PATH_MAX];
	int fd, r;

	r = join(path, sizeof(path), s->dir, SIM_JOURNAL_FILE);
	if (r < 0)
		return r;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0)
		return -errno;
	r = write_all(fd, line, strlen(line));
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int sim_journal_irq(const struct sim *s, const struct sim_irq *q)
{
	char list[16384], line[16500];

	sim_set_list(s, q->aff, list, sizeof(list));
	snprintf(line, sizeof(line), "aff %u %s %d\n", q->irq,
		 list[0] ? list : "-", q->eff);
	return journal(s, line);
}

int sim_journal_default(const struct sim *s)
{
	char list[16384], line[16500];

	sim_set_list(s, s->default_aff, list, sizeof(list));
	snprintf(line, sizeof(line), "default %s\n", list[0] ? list : "-");
	return journal(s, line);
}

int sim_journal_writes(const struct sim *s)
{
	char line[64];

	snprintf(line, sizeof(line), "writes %lu\n", s->writes);
	return journal(s, line);
}

int sim_journal_fault(const struct sim *s, unsigned int idx)
{
	char line[64];

	if (idx >= s->nr_faults)
		return -EINVAL;
	snprintf(line, sizeof(line), "fault %u %d\n", idx, s->faults[idx].times);
	return journal(s, line);
}

static int replay_line(struct sim *s, char *line)
{
	char *f[4];
	unsigned long u;
	long v;
	int n = split(line, f, 4);

	if (n == 0)
		return 0;
	if (strcmp(f[0], "aff") == 0 && n == 4) {
		struct sim_irq *q;

		if (sim_parse_uint(f[1], SIM_MAX_IRQS - 1, &u) < 0 ||
		    sim_parse_int(f[3], -1, (long)s->nr_cpus - 1, &v) < 0)
			return -EINVAL;
		q = sim_find_irq(s, (unsigned int)u);
		if (!q)
			return -EINVAL;
		sim_set_zero(s, q->aff);
		if (strcmp(f[2], "-") != 0 &&
		    sim_parse_list(s, f[2], strlen(f[2]), q->aff) < 0)
			return -EINVAL;
		q->eff = (int)v;
		return 0;
	}
	if (strcmp(f[0], "default") == 0 && n == 2) {
		sim_set_zero(s, s->default_aff);
		if (strcmp(f[1], "-") == 0)
			return 0;
		return sim_parse_list(s, f[1], strlen(f[1]), s->default_aff);
	}
	if (strcmp(f[0], "writes") == 0 && n == 2)
		return sim_parse_uint(f[1], ULONG_MAX, &s->writes) < 0 ? -EINVAL : 0;
	if (strcmp(f[0], "fault") == 0 && n == 3) {
		if (sim_parse_uint(f[1], s->nr_faults ? s->nr_faults - 1 : 0, &u) < 0 ||
		    !s->nr_faults || sim_parse_int(f[2], -1, INT_MAX, &v) < 0)
			return -EINVAL;
		s->faults[u].times = (int)v;
		return 0;
	}
	return -EINVAL;
}

/* Split @line at blanks into at most @max fields; the last takes the rest. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	while (*line && n < max) {
		while (*line == ' ')
			line++;
		if (!*line)
			break;
		f[n++] = line;
		if (n == max)
			break;
		while (*line && *line != ' ')
			line++;
		if (*line)
			*line++ = '\0';
	}
	return n;
}

static int get_pair(char *str, unsigned long long *ret_a, char **ret_b)
{
	char *colon = strchr(str, ':');
	char *end;

	if (!colon)
		return -EINVAL;
	*colon = '\0';
	errno = 0;
	*ret_a = strtoull(str, &end, 10);
	if (errno || *end || end == str)
		return -EINVAL;
	*ret_b = colon + 1;
	return 0;
}

static int get_acc(char *str, struct sim_acc *a)
{
	unsigned long long n;
	char *rest;

	if (get_pair(str, &n, &rest) < 0)
		return -EINVAL;
	a->n = n;
	return sim_parse_double(rest, &a->frac);
}

static int load_cpu(struct sim *s, char *rest)
{
	char *g[12];
	unsigned long u;
	long v[10];
	struct sim_cpu *p;

	if (split(rest, g, 12) != 11 || sim_parse_uint(g[0], s->nr_cpus - 1, &u) < 0)
		return -EINVAL;
	for (int i = 0; i < 10; i++)
		if (sim_parse_int(g[i + 1], -1, INT_MAX, &v[i]) < 0)
			return -EINVAL;
	p = &s->cpu[u];
	p->present = v[0];
	p->online = v[1];
	p->node = (int)v[2];
	p->package = (int)v[3];
	p->die = (int)v[4];
	p->core = (int)v[5];
	p->llc = (int)v[6];
	p->isolated = v[7];
	p->nohz_full = v[8];
	p->cluster = (int)v[9];
	return 0;
}

/* "ccap CPU CAPACITY VECTORS": a CPU's capacity and vectors, 0 for
 * the defaults (written only where one is set). */
static int load_ccap(struct sim *s, char *rest)
{
	char *g[4];
	unsigned long u, cap, vec;

	if (split(rest, g, 4) != 3 || sim_parse_uint(g[0], s->nr_cpus - 1, &u) < 0 ||
	    sim_parse_uint(g[1], 1024, &cap) < 0 || sim_parse_uint(g[2], 256, &vec) < 0)
		return -EINVAL;
	s->cpu[u].capacity = (unsigned int)cap;
	s->cpu[u].vectors = (unsigned int)vec;
	return 0;
}

static int load_cstat(struct sim *s, char *rest)
{
	char *g[ST_NR + SIRQ_NR + AR_NR + 2];
	struct sim_cpu *p;
	unsigned long u;

	if (split(rest, g, ST_NR + SIRQ_NR + AR_NR + 2) != ST_NR + SIRQ_NR + AR_NR + 1 ||
	    sim_parse_uint(g[0], s->nr_cpus - 1, &u) < 0)
		return -EINVAL;
	p = &s->cpu[u];
	for (int i = 0; i < ST_NR; i++)
		if (get_acc(g[1 + i], &p->stat[i]) < 0)
			return -EINVAL;
	for (int i = 0; i < SIRQ_NR; i++)
		if (get_acc(g[1 + ST_NR + i], &p->sirq[i]) < 0)
			return -EINVAL;
	for (int i = 0; i < AR_NR; i++)
		if (get_acc(g[1 + ST_NR + SIRQ_NR + i], &p->arch[i]) < 0)
			return -EINVAL;
	return 0;
}

static int load_dev(struct sim *s, char *rest)
{
	struct sim_dev *d;
	char *g[5];
	long node;

	if (split(rest, g, 5) != 5 || sim_parse_int(g[1], -1, 65535, &node) < 0)
		return -EINVAL;
	if (s->nr_devs % 32 == 0) {
		d = realloc(s->devs, (s->nr_devs + 32) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		s->devs = d;
	}
	d = &s->devs[s->nr_devs++];
	memset(d, 0, sizeof(*d));
	d->node = (int)node;
	snprintf(d->kind, sizeof(d->kind), "%s", g[2]);
	snprintf(d->bdf, sizeof(d->bdf), "%s", strcmp(g[3], "-") ? g[3] : "");
	snprintf(d->name, sizeof(d->name), "%s", g[4]);
	sim_unescape(d->name);
	return 0;
}

static int load_irq(struct sim *s, char *rest)
{
	struct sim_irq *q;
	unsigned long u;
	char *g[17];
	long v[6];
	int idx;

	if (split(rest, g, 17) != 17 || sim_parse_uint(g[0], SIM_MAX_IRQS - 1, &u) < 0)
		return -EINVAL;
	idx = sim_add_irq(s, (unsigned int)u);
	if (idx < 0)
		return idx;
	q = &s->irqs[idx];
	if (sim_parse_int(g[1], -1, INT_MAX, &v[0]) < 0 ||
	    sim_parse_int(g[2], -1, INT_MAX, &v[1]) < 0 ||
	    sim_parse_int(g[3], 0, 1, &v[2]) < 0 ||
	    sim_parse_double(g[4], &q->rate) < 0 ||
	    sim_parse_double(g[5], &q->hard_us) < 0 ||
	    sim_parse_double(g[6], &q->soft_us) < 0 ||
	    sim_parse_int(g[7], -1, SIRQ_NR - 1, &v[3]) < 0 ||
	    sim_parse_int(g[8], -1, 65535, &v[4]) < 0 ||
	    sim_parse_int(g[9], -1, (long)s->nr_cpus - 1, &v[5]) < 0 ||
	    sim_parse_double(g[10], &q->frac) < 0 ||
	    sim_parse_uint(g[11], ULONG_MAX, &q->hwirq) < 0)
		return -EINVAL;
	if (v[0] >= (long)s->nr_devs)
		return -EINVAL;
	q->dev = (int)v[0];
	q->queue = (int)v[1];
	q->managed = v[2];
	q->sirq = (int)v[3];
	q->node = (int)v[4];
	q->eff = (int)v[5];
	snprintf(q->type, sizeof(q->type), "%s", g[12]);
	snprintf(q->chip, sizeof(q->chip), "%s", g[13]);
	if (strcmp(g[14], "-") != 0 &&
	    sim_parse_list(s, g[14], strlen(g[14]), q->aff) < 0)
		return -EINVAL;
	if (strcmp(g[15], "none") != 0) {
		q->hint = sim_set_new(s);
		if (!q->hint)
			return -ENOMEM;
		if (strcmp(g[15], "-") != 0 &&
		    sim_parse_list(s, g[15], strlen(g[15]), q->hint) < 0)
			return -EINVAL;
	}
	snprintf(q->name, sizeof(q->name), "%s", g[16]);
	sim_unescape(q->name);
	q->dirty = false;
	return 0;
}

static int load_cnt(struct sim *s, char *rest)
{
	char *g[2], *save, *tok;
	struct sim_irq *q;
	unsigned long u;
	int n = split(rest, g, 2);

	if (n < 1 || sim_parse_uint(g[0], SIM_MAX_IRQS - 1, &u) < 0)
		return -EINVAL;
	q = sim_find_irq(s, (unsigned int)u);
	if (!q)
		return -EINVAL;
	for (tok = n == 2 ? strtok_r(g[1], " ", &save) : NULL; tok;
	     tok = strtok_r(NULL, " ", &save)) {
		unsigned long long cpu, cnt;
		char *val, *end;

		if (get_pair(tok, &cpu, &val) < 0 || cpu >= s->nr_cpus)
			return -EINVAL;
		errno = 0;
		cnt = strtoull(val, &end, 10);
		if (errno || *end || end == val)
			return -EINVAL;
		q->count[cpu] = cnt;
	}
	return 0;
}

static int load_shift(struct sim *s, char *rest)
{
	struct sim_shift *sh;
	unsigned long u;
	char *g[5];

	if (split(rest, g, 5) != 5)
		return -EINVAL;
	if (s->nr_shifts % 32 == 0) {
		sh = realloc(s->shifts, (s->nr_shifts + 32) * sizeof(*sh));
		if (!sh)
			return -ENOMEM;
		s->shifts = sh;
	}
	sh = &s->shifts[s->nr_shifts++];
	snprintf(sh->name, sizeof(sh->name), "%s", g[0]);
	if (sim_parse_uint(g[1], SIM_MAX_IRQS - 1, &u) < 0 ||
	    sim_parse_double(g[2], &sh->rate) < 0 ||
	    sim_parse_double(g[3], &sh->hard_us) < 0 ||
	    sim_parse_double(g[4], &sh->soft_us) < 0)
		return -EINVAL;
	sh->irq = (unsigned int)u;
	return 0;
}

static int load_fault(struct sim *s, char *rest)
{
	struct sim_fault *ft;
	unsigned long u;
	char *g[4];
	long times;

	if (split(rest, g, 4) != 4)
		return -EINVAL;
	if (s->nr_faults % 16 == 0) {
		ft = realloc(s->faults, (s->nr_faults + 16) * sizeof(*ft));
		if (!ft)
			return -ENOMEM;
		s->faults = ft;
	}
	ft = &s->faults[s->nr_faults++];
	memset(ft, 0, sizeof(*ft));
	if (sim_parse_uint(g[0], SIM_MAX_IRQS - 1, &u) < 0 ||
	    sim_parse_int(g[2], -1, INT_MAX, &times) < 0)
		return -EINVAL;
	ft->irq = (unsigned int)u;
	ft->err = sim_errno_parse(g[1]);
	ft->times = (int)times;
	if (!ft->err)
		return -EINVAL;
	if (strcmp(g[3], "-") != 0) {
		ft->cpus = sim_set_new(s);
		if (!ft->cpus || sim_parse_list(s, g[3], strlen(g[3]), ft->cpus) < 0)
			return -EINVAL;
	}
	return 0;
}

struct sim_event *sim_add_event(struct sim *s)
{
	struct sim_event *e;

	if (s->nr_events % 16 == 0) {
		e = realloc(s->events, (s->nr_events + 16) * sizeof(*e));
		if (!e)
			return NULL;
		s->events = e;
	}
	e = &s->events[s->nr_events++];
	memset(e, 0, sizeof(*e));
	return e;
}

int sim_add_deny(struct sim *s, const char *path, int err)
{
	struct sim_deny *d;

	if (path[0] != '/' || strlen(path) >= sizeof(d->path) || err <= 0)
		return -EINVAL;
	if (s->nr_denies % 8 == 0) {
		d = realloc(s->denies, (s->nr_denies + 8) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		s->denies = d;
	}
	d = &s->denies[s->nr_denies++];
	snprintf(d->path, sizeof(d->path), "%s", path);
	/* "/proc/irq/" and "/proc/irq" are one path */
	for (size_t n = strlen(d->path); n > 1 && d->path[n - 1] == '/'; n--)
		d->path[n - 1] = '\0';
	d->err = err;
	return 0;
}

static int load_event(struct sim *s, char *rest)
{
	char *g[9];
	unsigned long u;
	long fired;
	struct sim_event *e;
	int n = split(rest, g, 9), what = -1;

	if (n < 5)
		return -EINVAL;
	for (int i = 0; i < (int)(sizeof(ev_what_names) / sizeof(ev_what_names[0])); i++)
		if (strcmp(g[3], ev_what_names[i]) == 0)
			what = i;
	e = sim_add_event(s);
	if (!e)
		return -ENOMEM;
	if (strcmp(g[0], "at") == 0) {
		e->when = EV_AT;
		if (sim_parse_double(g[1], &e->at) < 0)
			return -EINVAL;
	} else if (strcmp(g[0], "write") == 0) {
		e->when = EV_WRITE;
		if (sim_parse_uint(g[1], ULONG_MAX, &e->nth) < 0)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	if (what < 0 || sim_parse_int(g[2], 0, 1, &fired) < 0)
		return -EINVAL;
	e->fired = fired;
	e->what = (enum sim_ev_what)what;
	switch (e->what) {
	case EV_OFFLINE:
	case EV_ONLINE:
		if (n != 5 || sim_parse_uint(g[4], s->nr_cpus - 1, &u) < 0)
			return -EINVAL;
		e->cpu = (unsigned int)u;
		return 0;
	case EV_REMOVE:
		if (n != 5 || sim_parse_uint(g[4], SIM_MAX_IRQS - 1, &u) < 0)
			return -EINVAL;
		e->irq = (unsigned int)u;
		return 0;
	case EV_EXIT:
	case EV_REUSE:
		if (n != 5 || sim_parse_uint(g[4], 4194304, &u) < 0)
			return -EINVAL;
		e->irq = (unsigned int)u;
		return 0;
	case EV_ADD:
		if (n != 9 || sim_parse_uint(g[4], SIM_MAX_IRQS - 1, &u) < 0 ||
		    sim_parse_double(g[5], &e->rate) < 0 ||
		    sim_parse_double(g[6], &e->hard_us) < 0 ||
		    sim_parse_double(g[7], &e->soft_us) < 0)
			return -EINVAL;
		e->irq = (unsigned int)u;
		snprintf(e->name, sizeof(e->name), "%s", g[8]);
		sim_unescape(e->name);
		return 0;
	case EV_SIGNAL:
		e->sig = sim_signal_parse(g[4]);
		return n == 5 && e->sig ? 0 : -EINVAL;
	}
	return -EINVAL;
}

static int load_deny(struct sim *s, char *rest)
{
	char *g[3];

	if (split(rest, g, 2) != 2)
		return -EINVAL;
	return sim_add_deny(s, g[1], sim_errno_parse(g[0]));
}

static int load_line(struct sim *s, char *line)
{
	char *f[3], *rest;
	unsigned long u;
	long v[5];
	int n;

	n = split(line, f, 2);
	if (n == 0)
		return 0;
	rest = n == 2 ? f[1] : f[0] + strlen(f[0]);
	if (strcmp(f[0], "cpu") == 0)
		return load_cpu(s, rest);
	if (strcmp(f[0], "cstat") == 0)
		return load_cstat(s, rest);
	if (strcmp(f[0], "ccap") == 0)
		return load_ccap(s, rest);
	if (strcmp(f[0], "hybrid") == 0) {
		if (sim_parse_int(rest, 0, 1, &v[0]) < 0)
			return -EINVAL;
		s->hybrid = v[0];
		return 0;
	}
	if (strcmp(f[0], "irq") == 0)
		return load_irq(s, rest);
	if (strcmp(f[0], "cnt") == 0)
		return load_cnt(s, rest);
	if (strcmp(f[0], "dev") == 0)
		return load_dev(s, rest);
	if (strcmp(f[0], "shift") == 0)
		return load_shift(s, rest);
	if (strcmp(f[0], "fault") == 0)
		return load_fault(s, rest);
	if (strcmp(f[0], "event") == 0)
		return load_event(s, rest);
	if (strcmp(f[0], "deny") == 0)
		return load_deny(s, rest);
	if (strcmp(f[0], "thr") == 0)
		return sim_app_load_line(s, rest);
	if (strcmp(f[0], "writes") == 0)
		return sim_parse_uint(rest, ULONG_MAX, &s->writes) < 0 ? -EINVAL : 0;
	if (strcmp(f[0], "irqsim-state") == 0 || strcmp(f[0], "end") == 0 ||
	    strcmp(f[0], "nr_cpus") == 0)
		return 0;
	if (strcmp(f[0], "machine") == 0) {
		snprintf(s->machine, sizeof(s->machine), "%s", rest);
		return 0;
	}
	if (strcmp(f[0], "time") == 0)
		return sim_parse_double(rest, &s->time);
	if (strcmp(f[0], "btime") == 0)
		return sim_parse_double(rest, &s->btime);
	if (strcmp(f[0], "hz") == 0 || strcmp(f[0], "timer_hz") == 0 ||
	    strcmp(f[0], "gsi_top") == 0) {
		if (sim_parse_uint(rest, 100000, &u) < 0 || u == 0)
			return -EINVAL;
		if (f[0][0] == 'h')
			s->hz = (unsigned int)u;
		else if (f[0][0] == 't')
			s->timer_hz = (unsigned int)u;
		else
			s->gsi_top = (unsigned int)u;
		return 0;
	}
	if (strcmp(f[0], "default_affinity") == 0) {
		if (strcmp(rest, "-") == 0)
			return 0;
		return sim_parse_list(s, rest, strlen(rest), s->default_aff);
	}
	if (strcmp(f[0], "nohz") == 0) {
		if (sim_parse_int(rest, 0, 2, &v[0]) < 0)
			return -EINVAL;
		s->nohz_mode = (enum sim_nohz)v[0];
		return 0;
	}
	if (strcmp(f[0], "kernel") == 0) {
		char *g[3];

		if (split(rest, g, 3) != 2 || sim_parse_int(g[0], 2, 99, &v[0]) < 0 ||
		    sim_parse_int(g[1], 0, 99, &v[1]) < 0)
			return -EINVAL;
		s->kmajor = (int)v[0];
		s->kminor = (int)v[1];
		return 0;
	}
	if (strcmp(f[0], "background") == 0) {
		char *g[3];

		if (split(rest, g, 3) != 2 || sim_parse_double(g[0], &s->bg_user) < 0 ||
		    sim_parse_double(g[1], &s->bg_system) < 0)
			return -EINVAL;
		return 0;
	}
	if (strcmp(f[0], "ctxt") == 0) {
		char *g[3];

		if (split(rest, g, 3) != 2 || get_acc(g[0], &s->ctxt_acc) < 0 ||
		    sim_parse_uint(g[1], ULONG_MAX, &u) < 0)
			return -EINVAL;
		s->ctxt = s->ctxt_acc.n;
		s->processes = u;
		return 0;
	}
	if (strcmp(f[0], "isa") == 0) {
		if (strcmp(rest, "x86") != 0 && strcmp(rest, "arm64") != 0)
			return -EINVAL;
		s->isa = rest[0] == 'a' ? ISA_ARM64 : ISA_X86;
		return 0;
	}
	if (strcmp(f[0], "noise") == 0) {
		char *g[5];
		int ng = split(rest, g, 5);

		/* states written before noise on costs have no fourth field */
		if ((ng != 3 && ng != 4) || sim_parse_double(g[0], &s->noise) < 0 ||
		    sim_parse_double(g[1], &s->noise_period) < 0 ||
		    sim_parse_uint(g[2], ULONG_MAX, &s->noise_seed) < 0)
			return -EINVAL;
		if (ng == 4 && strcmp(g[3], "cost") != 0 && strcmp(g[3], "rate") != 0)
			return -EINVAL;
		s->noise_cost = ng == 4 && strcmp(g[3], "cost") == 0;
		return 0;
	}
	if (strcmp(f[0], "opts") == 0) {
		char *g[6];

		if (split(rest, g, 6) != 5)
			return -EINVAL;
		for (int i = 0; i < 5; i++)
			if (sim_parse_int(g[i], 0, 1, &v[i]) < 0)
				return -EINVAL;
		s->irqacct = v[0];
		s->ir = v[1];
		s->managed_ro = v[2];
		s->keep_current = v[3];
		s->offline_ignore = v[4];
		return 0;
	}
	return -EINVAL;
}

static char *slurp(const char *path, size_t *ret_len)
{
	size_t cap = 65536, len = 0;
	char *p;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	p = malloc(cap);
	if (!p)
		goto out_close;
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *np = realloc(p, cap * 2);

			if (!np)
				goto out_free;
			p = np;
			cap *= 2;
		}
		n = read(fd, p + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out_free;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	p[len] = '\0';
	*ret_len = len;
	return p;
out_free:
	free(p);
out_close:
	close(fd);
	return NULL;
}

int sim_load(const char *dir, struct sim **ret)
{
	struct sim *s = NULL;
	char path[PATH_MAX];
	char *text, *line, *next, *nr;
	unsigned long nr_cpus;
	size_t len;
	int r;

	if (join(path, sizeof(path), dir, SIM_STATE_FILE) < 0)
		return -ENAMETOOLONG;
	text = slurp(path, &len);
	if (!text)
		return errno ? -errno : -ENOMEM;
	/* nr_cpus sizes every set: find it first. */
	nr = strstr(text, "\nnr_cpus ");
	r = -EINVAL;
	if (strncmp(text, "irqsim-state 1\n", 15) != 0 || !nr ||
	    sscanf(nr + 9, "%lu", &nr_cpus) != 1 || nr_cpus > SIM_MAX_CPUS)
		goto out_free;
	r = sim_alloc(&s, dir, (unsigned int)nr_cpus);
	for (line = text; r == 0 && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		r = load_line(s, line);
	}
	if (r == 0 && s->nr_irqs > SIM_MAX_IRQS)
		r = -EINVAL;
	free(text);
	text = NULL;
	if (r == 0 && join(path, sizeof(path), dir, SIM_JOURNAL_FILE) == 0) {
		text = slurp(path, &len);
		for (line = text; r == 0 && line && *line; line = next) {
			next = strchr(line, '\n');
			if (!next)	/* a torn last line: ignore it */
				break;
			*next++ = '\0';
			r = replay_line(s, line);
		}
	}
out_free:
	free(text);
	if (r < 0) {
		sim_free(s);
		return r;
	}
	sim_recount(s);
	*ret = s;
	return 0;
}

/* ---- /proc rendering ------------------------------------------------- */

static bool new_layout(const struct sim *s)
{
	return s->kmajor * 100 + s->kminor >= 602;
}

/* x86 arch_probe_nr_irqs() (arm64: NR_IRQS, 64), grown to hold every
 * allocated IRQ. */
static unsigned int kernel_nr_irqs(const struct sim *s)
{
	unsigned int nr = s->gsi_top + 16 + 8 * s->nr_cpus;

	nr += s->gsi_top <= 16 ? 8 * s->nr_cpus : s->gsi_top * 16;
	if (s->isa == ISA_ARM64)
		nr = 64;
	if (s->nr_irqs && s->irqs[s->nr_irqs - 1].irq >= nr)
		nr = s->irqs[s->nr_irqs - 1].irq + 1;
	return nr;
}

static const struct {
	const char *name;
	int arch;	/* enum sim_arch, -1: always 0 */
	const char *desc;
} arch_rows[] = {
	{ "NMI", AR_NMI, "Non-maskable interrupts" },
	{ "LOC", AR_LOC, "Local timer interrupts" },
	{ "SPU", -1, "Spurious interrupts" },
	{ "PMI", -1, "Performance monitoring interrupts" },
	{ "IWI", -1, "IRQ work interrupts" },
	{ "RTR", -1, "APIC ICR read retries" },
	{ "RES", AR_RES, "Rescheduling interrupts" },
	{ "CAL", AR_CAL, "Function call interrupts" },
	{ "TLB", AR_TLB, "TLB shootdowns" },
	{ "TRM", -1, "Thermal event interrupts" },
	{ "THR", -1, "Threshold APIC interrupts" },
	{ "DFR", -1, "Deferred Error APIC interrupts" },
	{ "MCE", -1, "Machine check exceptions" },
	{ "MCP", -1, "Machine check polls" },
};

/* arm64 show_ipi_list() (Linux 5.4 to 6.5: IPI_RESCHEDULE .. IPI_WAKEUP). */
static const struct {
	int arch;
	const char *desc;
} ipi_rows[] = {
	{ AR_RES, "Rescheduling interrupts" },
	{ AR_CAL, "Function call interrupts" },
	{ -1, "CPU stop interrupts" },
	{ -1, "CPU stop (for crash dump) interrupts" },
	{ -1, "Timer broadcast interrupts" },
	{ -1, "IRQ work interrupts" },
	{ -1, "CPU wake-up interrupts" },
};

static void render_arch_rows(const struct sim *s, struct sim_buf *b, int prec)
{
	if (s->isa == ISA_ARM64) {
		for (size_t r = 0; r < sizeof(ipi_rows) / sizeof(ipi_rows[0]); r++) {
			/* "IPI0:2768808080 ...": no blank when prec is 3 */
			sim_buf_printf(b, "%*s%zu:%s", prec - 1, "IPI", r,
				       prec >= 4 ? " " : "");
			for (unsigned int c = 0; c < s->nr_cpus; c++) {
				if (!s->cpu[c].online)
					continue;
				sim_buf_u64(b, ipi_rows[r].arch < 0 ? 0 :
					    (uint32_t)s->cpu[c].arch[ipi_rows[r].arch].n, 10);
				sim_buf_putc(b, ' ');
			}
			sim_buf_printf(b, "      %s\n", ipi_rows[r].desc);
		}
		sim_buf_printf(b, "%*s: %10u\n", prec, "Err", 0u);
		return;
	}
	for (size_t r = 0; r < sizeof(arch_rows) / sizeof(arch_rows[0]); r++) {
		sim_buf_printf(b, "%*s: ", prec, arch_rows[r].name);
		for (unsigned int c = 0; c < s->nr_cpus; c++) {
			if (!s->cpu[c].online)
				continue;
			sim_buf_u64(b, arch_rows[r].arch < 0 ? 0 :
				    (uint32_t)s->cpu[c].arch[arch_rows[r].arch].n, 10);
			sim_buf_putc(b, ' ');
		}
		sim_buf_printf(b, "  %s\n", arch_rows[r].desc);
	}
	sim_buf_printf(b, "%*s: %10u\n", prec, "ERR", 0u);
	sim_buf_printf(b, "%*s: %10u\n", prec, "MIS", 0u);
}

static void render_interrupts(const struct sim *s, struct sim_buf *b)
{
	unsigned int nr = kernel_nr_irqs(s), j = 1000;
	int prec = 3;
	bool nl = new_layout(s);

	/* show_interrupts(): the width of the IRQ column follows nr_irqs. */
	while (prec < 10 && j <= nr) {
		prec++;
		j *= 10;
	}
	/* Only online CPUs get a column (for_each_online_cpu). */
	sim_buf_printf(b, "%*s", prec + 8, "");
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].online)
			sim_buf_printf(b, "CPU%-8u", c);
	sim_buf_putc(b, '\n');
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];

		sim_buf_printf(b, nl ? "%*u:" : "%*u: ", prec, q->irq);
		for (unsigned int c = 0; c < s->nr_cpus; c++) {
			if (!s->cpu[c].online)
				continue;
			/* kstat_irqs are unsigned int: they wrap. */
			if (nl)
				sim_buf_putc(b, ' ');
			sim_buf_u64(b, (uint32_t)q->count[c], 10);
			if (!nl)
				sim_buf_putc(b, ' ');
		}
		/* arm64 has GENERIC_IRQ_SHOW_LEVEL and no handler name:
		 * "GICv3  27 Level"; x86 the handler name: "IO-APIC 2-edge" */
		if (s->isa == ISA_ARM64)
			sim_buf_printf(b, " %8s %*lu %-8s", q->chip, prec, q->hwirq, q->type);
		else
			sim_buf_printf(b, " %8s %*lu-%-8s", q->chip, prec, q->hwirq, q->type);
		if (q->name[0])
			sim_buf_printf(b, "  %s", q->name);
		sim_buf_putc(b, '\n');
	}
	render_arch_rows(s, b, prec);
}

static void render_stat(const struct sim *s, struct sim_buf *b)
{
	unsigned int nr = kernel_nr_irqs(s), next = 0;
	uint64_t sum[ST_NR] = { 0 }, ssum[SIRQ_NR] = { 0 }, intr = 0, all = 0;

	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		for (int k = 0; k < ST_NR; k++)
			sum[k] += s->cpu[c].stat[k].n;
		for (int k = 0; k < SIRQ_NR; k++)
			ssum[k] += s->cpu[c].sirq[k].n;
		for (int k = 0; k < AR_NR; k++)
			if (s->isa != ISA_ARM64 || k == AR_RES || k == AR_CAL)
				intr += s->cpu[c].arch[k].n;
	}
	sim_buf_puts(b, "cpu ");
	for (int k = 0; k < ST_NR; k++)
		sim_buf_printf(b, " %llu", (unsigned long long)sum[k]);
	sim_buf_putc(b, '\n');
	/* Per-CPU lines: online CPUs only; the sum covers all possible. */
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		if (!s->cpu[c].online)
			continue;
		sim_buf_printf(b, "cpu%u", c);
		for (int k = 0; k < ST_NR; k++)
			sim_buf_printf(b, " %llu",
				       (unsigned long long)s->cpu[c].stat[k].n);
		sim_buf_putc(b, '\n');
	}
	for (unsigned int i = 0; i < s->nr_irqs; i++)
		for (unsigned int c = 0; c < s->nr_cpus; c++)
			intr += s->irqs[i].count[c];
	sim_buf_printf(b, "intr %llu", (unsigned long long)intr);
	for (unsigned int irq = 0; irq < nr; irq++) {
		uint32_t v = 0;

		if (next < s->nr_irqs && s->irqs[next].irq == irq) {
			for (unsigned int c = 0; c < s->nr_cpus; c++)
				v += (uint32_t)s->irqs[next].count[c];
			next++;
		}
		if (v) {
			sim_buf_putc(b, ' ');
			sim_buf_u64(b, v, 0);
		} else {
			sim_buf_puts(b, " 0");
		}
	}
	sim_buf_putc(b, '\n');
	for (int k = 0; k < SIRQ_NR; k++)
		all += ssum[k];
	sim_buf_printf(b, "ctxt %llu\nbtime %.0f\nprocesses %llu\n"
		       "procs_running 1\nprocs_blocked 0\nsoftirq %llu",
		       (unsigned long long)s->ctxt, s->btime,
		       (unsigned long long)s->processes, (unsigned long long)all);
	for (int k = 0; k < SIRQ_NR; k++)
		sim_buf_printf(b, " %llu", (unsigned long long)ssum[k]);
	sim_buf_putc(b, '\n');
}

static void render_softirqs(const struct sim *s, struct sim_buf *b)
{
	/* show_softirqs(): every possible CPU, online or not. */
	sim_buf_puts(b, "                    ");
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		sim_buf_printf(b, "CPU%-8u", c);
	sim_buf_putc(b, '\n');
	for (int k = 0; k < SIRQ_NR; k++) {
		sim_buf_printf(b, "%12s:", sim_sirq_names[k]);
		for (unsigned int c = 0; c < s->nr_cpus; c++) {
			sim_buf_putc(b, ' ');
			sim_buf_u64(b, (uint32_t)s->cpu[c].sirq[k].n, 10);
		}
		sim_buf_putc(b, '\n');
	}
}

static int put_set_files(const struct sim *s, const char *rel,
			 const uint64_t *set, unsigned int mode,
			 const char *mask_name, const char *list_name)
{
	char path[128], text[40000];
	size_t n;
	int r;

	sim_set_mask(s, set, text, sizeof(text) - 1);
	n = strlen(text);
	text[n++] = '\n';
	snprintf(path, sizeof(path), "%s/%s", rel, mask_name);
	r = sim_put_file(s->dir, path, text, n, mode);
	if (r < 0 || !list_name)
		return r;
	sim_set_list(s, set, text, sizeof(text) - 1);
	n = strlen(text);
	text[n++] = '\n';
	snprintf(path, sizeof(path), "%s/%s", rel, list_name);
	return sim_put_file(s->dir, path, text, n, mode);
}

static int render_irq_dir(struct sim *s, struct sim_irq *q, bool all)
{
	unsigned int amode = q->managed && s->managed_ro ? 0444 : 0644;
	char rel[64], path[256], text[32];
	uint64_t *eff;
	int r;

	snprintf(rel, sizeof(rel), "proc/irq/%u", q->irq);
	if (all) {
		char names[SIM_ACTION_MAX], *tok, *save;

		r = sim_mkdirs(s->dir, rel);
		if (r < 0)
			return r;
		snprintf(names, sizeof(names), "%s", q->name);
		for (tok = strtok_r(names, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			while (*tok == ' ')
				tok++;
			if (!*tok || strchr(tok, '/'))
				continue;
			snprintf(path, sizeof(path), "%s/%s", rel, tok);
			r = sim_mkdirs(s->dir, path);
			if (r < 0)
				return r;
		}
		snprintf(text, sizeof(text), "%d\n", q->node < 0 ? 0 : q->node);
		snprintf(path, sizeof(path), "%s/node", rel);
		r = sim_put_file(s->dir, path, text, strlen(text), 0444);
		if (r < 0)
			return r;
		snprintf(path, sizeof(path), "%s/spurious", rel);
		r = sim_put_file(s->dir, path,
				 "count 0\nunhandled 0\nlast_unhandled 0 ms\n",
				 41, 0444);
		if (r < 0)
			return r;
	}
	eff = sim_set_new(s);
	if (!eff)
		return -ENOMEM;
	if (q->eff >= 0)
		sim_set_add(eff, (unsigned int)q->eff);
	r = put_set_files(s, rel, q->aff, amode, "smp_affinity", "smp_affinity_list");
	if (r == 0)
		r = put_set_files(s, rel, eff, 0444, "effective_affinity",
				  "effective_affinity_list");
	if (r == 0 && all) {
		sim_set_zero(s, eff);
		r = put_set_files(s, rel, q->hint ? q->hint : eff, 0444,
				  "affinity_hint", NULL);
	}
	free(eff);
	if (r == 0)
		q->dirty = q->fresh = false;
	return r;
}

static int render_domains(struct sim *s, bool all);

int sim_render_irqs(struct sim *s)
{
	int r = 0;

	for (unsigned int i = 0; r == 0 && i < s->nr_irqs; i++)
		if (s->irqs[i].dirty || s->irqs[i].fresh)
			r = render_irq_dir(s, &s->irqs[i], s->irqs[i].fresh);
	if (r == 0)
		r = put_set_files(s, "proc/irq", s->default_aff, 0644,
				  "default_smp_affinity", NULL);
	if (r == 0)
		r = render_domains(s, false);
	return r;
}

/* debugfs's IRQ domains: x86's VECTOR file, its matrix as
 * irq_matrix_debug_show() prints it (online CPUs; "act" the IRQs
 * effective there, allocated from vector 33 up), re-rendered with the
 * IRQs' moves; on arm64 a GIC domain beside where VECTOR would be. */
static int render_domains(struct sim *s, bool all)
{
	const char *dir = "sys/kernel/debug/irq/domains";
	struct sim_buf b = { 0 };
	unsigned int online = 0, avail = 0, alloc = 0, mapped = 0;
	int r;

	if (all) {
		r = sim_mkdirs(s->dir, dir);
		if (r < 0)
			return r;
	}
	if (s->isa == ISA_ARM64) {
		if (!all)
			return 0;
		sim_buf_printf(&b, "name:   GICv3\n size:   0\n mapped: %u\n flags:  0x00000001\n",
			       s->nr_irqs);
		r = b.oom ? -ENOMEM : sim_put_file(s->dir, "sys/kernel/debug/irq/domains/GICv3",
						   b.p, b.len, 0444);
		sim_buf_free(&b);
		return r;
	}
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		if (!s->cpu[c].online)
			continue;
		online++;
		avail += sim_vectors_free(s, c);
		alloc += s->cpu[c].nr_eff;
	}
	for (unsigned int i = 0; i < s->nr_irqs; i++)
		mapped += s->irqs[i].eff >= 0;
	sim_buf_printf(&b, "name:   VECTOR\n size:   0\n mapped: %u\n flags:  0x00000103\n",
		       mapped);
	sim_buf_printf(&b, "Online bitmaps:   %6u\nGlobal available: %6u\n"
		       "Global reserved:  %6u\nTotal allocated:  %6u\n",
		       online, avail, 0u, alloc);
	sim_buf_printf(&b, "System: 38: 0-19,32,50,128,236,240-242,244,246-255\n");
	sim_buf_printf(&b, " | CPU | avl | man | mac | act | vectors\n");
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		unsigned int n = s->cpu[c].nr_eff;

		if (!s->cpu[c].online)
			continue;
		sim_buf_printf(&b, "  %4u  %4u  %4u  %4u %4u  ", c, sim_vectors_free(s, c),
			       0u, 0u, n);
		if (n == 1)
			sim_buf_printf(&b, "33");
		else if (n > 1)
			sim_buf_printf(&b, "33-%u", 33 + n - 1);
		sim_buf_putc(&b, '\n');
	}
	r = b.oom ? -ENOMEM : sim_put_atomic(s->dir, "sys/kernel/debug/irq/domains/VECTOR",
					     b.p, b.len);
	sim_buf_free(&b);
	return r;
}

int sim_render_proc(struct sim *s, bool all_irqs)
{
	struct sim_buf b = { 0 };
	int r;

	if (all_irqs) {
		r = sim_mkdirs(s->dir, "proc/irq");
		if (r < 0)
			return r;
	}
	render_interrupts(s, &b);
	r = b.oom ? -ENOMEM : sim_put_atomic(s->dir, "proc/interrupts", b.p, b.len);
	sim_buf_reset(&b);
	if (r == 0) {
		render_stat(s, &b);
		r = b.oom ? -ENOMEM : sim_put_atomic(s->dir, "proc/stat", b.p, b.len);
		sim_buf_reset(&b);
	}
	if (r == 0) {
		render_softirqs(s, &b);
		r = b.oom ? -ENOMEM : sim_put_atomic(s->dir, "proc/softirqs",
						     b.p, b.len);
	}
	sim_buf_free(&b);
	for (unsigned int i = 0; r == 0 && i < s->nr_irqs; i++)
		if (all_irqs || s->irqs[i].dirty || s->irqs[i].fresh)
			r = render_irq_dir(s, &s->irqs[i],
					   all_irqs || s->irqs[i].fresh);
	if (r == 0)
		r = put_set_files(s, "proc/irq", s->default_aff, 0644,
				  "default_smp_affinity", NULL);
	if (r == 0)
		r = render_domains(s, all_irqs);
	if (r == 0)
		r = sim_app_render(s, all_irqs);
	return r;
}

/* ---- writing trees, and the /sys CPU and node files ------------------ */

void sim_out_fail(struct sim_out *o, int r)
{
	if (r < 0 && !o->err)
		o->err = r;
}

/* Set the current directory (relative to o->dir) and create it. */
void sim_out_cd(struct sim_out *o, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->base, sizeof(o->base), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(o->base)) {
		sim_out_fail(o, -ENAMETOOLONG);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", o->dir, o->base);
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return;
	sim_out_fail(o, sim_mkdirs(o->dir, o->base));
}

void sim_out_put(struct sim_out *o, const char *name, const char *fmt, ...)
{
	char rel[PATH_MAX], text[40960];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(text)) {
		sim_out_fail(o, -E2BIG);
		return;
	}
	snprintf(rel, sizeof(rel), "%s/%s", o->base, name);
	sim_out_fail(o, sim_put_file(o->dir, rel, text, (size_t)n, 0644));
	o->files++;
}

/* A symlink o->base/@name to @target (relative to o->dir, under "sys/"),
 * spelled relative like the kernel's. */
void sim_out_link(struct sim_out *o, const char *name, const char *fmt, ...)
{
	char target[PATH_MAX], rel[PATH_MAX], path[PATH_MAX];
	size_t used = 0;
	va_list ap;
	int ups = 0;

	va_start(ap, fmt);
	vsnprintf(target, sizeof(target), fmt, ap);
	va_end(ap);
	if (strncmp(target, "sys/", 4) != 0 || strncmp(o->base, "sys", 3) != 0) {
		sim_out_fail(o, -EINVAL);
		return;
	}
	for (const char *p = o->base; *p; p++)
		ups += *p == '/';
	for (int i = 0; i < ups && used + 3 < sizeof(rel); i++, used += 3)
		memcpy(rel + used, "../", 3);
	snprintf(rel + used, sizeof(rel) - used, "%s", target + 4);
	snprintf(path, sizeof(path), "%s/%s/%s", o->dir, o->base, name);
	if (symlink(rel, path) < 0) {
		if (errno == EEXIST && unlink(path) == 0 && symlink(rel, path) == 0)
			return;
		sim_out_fail(o, -errno);
	}
	o->files++;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

/* Remove @rel under @dir, recursively, never following symlinks. */
int sim_rm_rf(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	if (rel[0] == '/' || strstr(rel, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 ? -errno : 0;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}


static int nr_nodes(const struct sim *s)
{
	int n = 0;

	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].node + 1 > n)
			n = s->cpu[c].node + 1;
	return n;
}

enum cpu_rel { REL_THREAD, REL_PACKAGE, REL_DIE, REL_LLC, REL_NODE, REL_CLUSTER,
	       REL_SELF };

static bool related(const struct sim_cpu *a, const struct sim_cpu *b,
		    enum cpu_rel rel)
{
	switch (rel) {
	case REL_THREAD:
		return a->package == b->package && a->core == b->core;
	case REL_PACKAGE:
		return a->package == b->package;
	case REL_DIE:
		return a->package == b->package && a->die == b->die;
	case REL_LLC:
		return a->llc == b->llc;
	case REL_NODE:
		return a->node == b->node;
	case REL_CLUSTER:
		if (a->cluster < 0 || b->cluster < 0)
			return a->package == b->package && a->core == b->core;
		return a->cluster == b->cluster;
	case REL_SELF:
		return a == b;
	}
	return false;
}

/* Online CPUs related to @cpu (topology and cache files list online ones). */
static void related_set(const struct sim *s, unsigned int cpu,
			enum cpu_rel rel, uint64_t *set)
{
	sim_set_zero(s, set);
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].online && related(&s->cpu[cpu], &s->cpu[c], rel))
			sim_set_add(set, c);
}

static void put_set(struct sim_out *o, const struct sim *s, const char *name,
		    const uint64_t *set, bool list)
{
	char text[40000];

	if (list)
		sim_set_list(s, set, text, sizeof(text));
	else
		sim_set_mask(s, set, text, sizeof(text));
	sim_out_put(o, name, "%s\n", text);
}

static void put_pair(struct sim_out *o, const struct sim *s, const char *base,
		     const uint64_t *set)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_list", base);
	put_set(o, s, name, set, true);
	put_set(o, s, base, set, false);
}

static bool any_capacity(const struct sim *s)
{
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].capacity)
			return true;
	return false;
}

/* Intel hybrid: the core PMU's and the atom PMU's "cpus" (present CPUs
 * of each kind, offline ones included), where perf lists them. */
static void render_hybrid(struct sim_out *o, const struct sim *s, uint64_t *set)
{
	for (int atom = 0; atom < 2; atom++) {
		sim_set_zero(s, set);
		for (unsigned int c = 0; c < s->nr_cpus; c++) {
			unsigned int cap = s->cpu[c].capacity ? s->cpu[c].capacity : 1024;

			if (s->cpu[c].present && (cap < 1024) == atom)
				sim_set_add(set, c);
		}
		sim_out_cd(o, "sys/devices/%s", atom ? "cpu_atom" : "cpu_core");
		put_set(o, s, "cpus", set, true);
		sim_out_put(o, "type", "%d\n", atom ? 10 : 4);
	}
}

static void render_cpu(struct sim_out *o, const struct sim *s, unsigned int c,
		       uint64_t *set)
{
	static const struct {
		const char *type;
		int level;
		const char *size;
		enum cpu_rel rel;
	} caches[] = {
		{ "Data", 1, "48K", REL_THREAD },
		{ "Instruction", 1, "32K", REL_THREAD },
		{ "Unified", 2, "2048K", REL_THREAD },
		{ "Unified", 3, "32768K", REL_LLC },
	};
	static const struct {
		const char *type;
		int level;
		const char *size;
		enum cpu_rel rel;
	} arm_caches[] = {
		{ "Data", 1, "64K", REL_THREAD },
		{ "Instruction", 1, "64K", REL_THREAD },
		{ "Unified", 2, "1024K", REL_THREAD },
		{ "Unified", 3, "32768K", REL_LLC },
	};
	const struct sim_cpu *p = &s->cpu[c];
	bool arm = s->isa == ISA_ARM64;

	sim_out_cd(o, "sys/devices/system/cpu/cpu%u", c);
	if (arm)
		sim_out_put(o, "uevent", "MODALIAS=cpu:type:aarch64:feature:,0000,0001,0002,0003,0004,0005,0006,0007\n");
	else
		sim_out_put(o, "uevent", "MODALIAS=cpu:type:x86,ven0000fam0006mod006A:feature:,0000\n");
	sim_out_link(o, "subsystem", "sys/bus/cpu");
	/* cpu0 of x86 is not hotpluggable: no "online" file; arm64's is. */
	if (arm || c != 0 || !p->online)
		sim_out_put(o, "online", "%d\n", p->online);
	/* drivers/base/arch_topology.c: every CPU's, once any is set */
	if (any_capacity(s) && !s->hybrid)
		sim_out_put(o, "cpu_capacity", "%u\n", p->capacity ? p->capacity : 1024);
	if (p->node >= 0) {
		char name[32];

		snprintf(name, sizeof(name), "node%d", p->node);
		sim_out_link(o, name, "sys/devices/system/node/node%d", p->node);
	}
	if (!p->online) {
		/* The topology and cache groups go away with the CPU. */
		char rel[128];

		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/topology", c);
		sim_out_fail(o, sim_rm_rf(o->dir, rel));
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%u/cache", c);
		sim_out_fail(o, sim_rm_rf(o->dir, rel));
		return;
	}
	sim_out_cd(o, "sys/devices/system/cpu/cpu%u/topology", c);
	if (arm) {
		/* ACPI PPTT: package and cluster ids are table offsets (a
		 * Kunpeng 920 shows 36 and 138), core_id the processor UID,
		 * no dies (-1, die_cpus the CPU alone) */
		sim_out_put(o, "physical_package_id", "%d\n", 36 + 6144 * p->package);
		sim_out_put(o, "die_id", "-1\n");
		sim_out_put(o, "core_id", "%u\n", c);
		sim_out_put(o, "cluster_id", "%d\n", p->cluster < 0 ? (int)c :
			    138 + 160 * p->cluster);
	} else {
		sim_out_put(o, "physical_package_id", "%d\n", p->package);
		sim_out_put(o, "die_id", "%d\n", p->die);
		sim_out_put(o, "core_id", "%d\n", p->core);
		sim_out_put(o, "cluster_id", "%d\n", p->core);
	}
	related_set(s, c, REL_THREAD, set);
	put_pair(o, s, "thread_siblings", set);
	put_pair(o, s, "core_cpus", set);
	related_set(s, c, REL_CLUSTER, set);
	put_pair(o, s, "cluster_cpus", set);
	related_set(s, c, REL_PACKAGE, set);
	put_pair(o, s, "core_siblings", set);
	put_pair(o, s, "package_cpus", set);
	related_set(s, c, arm ? REL_SELF : REL_DIE, set);
	put_pair(o, s, "die_cpus", set);
	for (unsigned int i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		int id = caches[i].rel == REL_LLC ? p->llc :
			 p->package * 4096 + p->core;

		sim_out_cd(o, "sys/devices/system/cpu/cpu%u/cache/index%u", c, i);
		sim_out_put(o, "level", "%d\n", caches[i].level);
		sim_out_put(o, "type", "%s\n", arm ? arm_caches[i].type : caches[i].type);
		sim_out_put(o, "size", "%s\n", arm ? arm_caches[i].size : caches[i].size);
		sim_out_put(o, "id", "%d\n", id);
		sim_out_put(o, "coherency_line_size", "%d\n", arm && i == 3 ? 128 : 64);
		related_set(s, c, caches[i].rel, set);
		put_set(o, s, "shared_cpu_list", set, true);
		put_set(o, s, "shared_cpu_map", set, false);
	}
}

int sim_render_cpus(struct sim *s)
{
	struct sim_out o = { .dir = s->dir };
	uint64_t *set = sim_set_new(s), *set2 = sim_set_new(s);
	int nodes = nr_nodes(s);
	char text[40000];
	unsigned int present = 0;

	if (!set || !set2) {
		free(set);
		free(set2);
		return -ENOMEM;
	}
	sim_out_cd(&o, "sys/devices/system/cpu");
	sim_set_zero(s, set);
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		sim_set_add(set, c);
	put_set(&o, s, "possible", set, true);
	sim_out_put(&o, "kernel_max", "%d\n", SIM_MAX_CPUS - 1);
	sim_set_zero(s, set);
	for (unsigned int c = 0; c < s->nr_cpus; c++)
		if (s->cpu[c].present)
			sim_set_add(set, c);
	put_set(&o, s, "present", set, true);
	sim_set_zero(s, set);
	sim_set_zero(s, set2);
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		if (s->cpu[c].online)
			sim_set_add(set, c);
		else if (s->cpu[c].present)
			sim_set_add(set2, c);
	}
	put_set(&o, s, "online", set, true);
	put_set(&o, s, "offline", set2, true);
	sim_set_zero(s, set);
	sim_set_zero(s, set2);
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		if (s->cpu[c].isolated)
			sim_set_add(set, c);
		if (s->cpu[c].nohz_full)
			sim_set_add(set2, c);
	}
	put_set(&o, s, "isolated", set, true);
	/* With CONFIG_CPUMASK_OFFSTACK and no nohz_full=, the kernel prints
	 * a NULL cpumask: "(null)". */
	if (!sim_set_empty(s, set2))
		put_set(&o, s, "nohz_full", set2, true);
	else if (s->nohz_mode == NOHZ_NULL)
		sim_out_put(&o, "nohz_full", "(null)\n");
	else if (s->nohz_mode == NOHZ_EMPTY)
		sim_out_put(&o, "nohz_full", "\n");
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		if (!s->cpu[c].present)
			continue;
		present++;
		render_cpu(&o, s, c, set);
		sim_out_cd(&o, "sys/bus/cpu/devices");
		snprintf(text, sizeof(text), "cpu%u", c);
		sim_out_link(&o, text, "sys/devices/system/cpu/cpu%u", c);
	}
	if (s->hybrid)
		render_hybrid(&o, s, set);
	if (nodes > 0) {
		sim_out_cd(&o, "sys/devices/system/node");
		sim_out_put(&o, "possible", nodes > 1 ? "0-%d\n" : "%d\n", nodes - 1);
		sim_out_put(&o, "online", nodes > 1 ? "0-%d\n" : "%d\n", nodes - 1);
		sim_out_put(&o, "has_normal_memory", nodes > 1 ? "0-%d\n" : "%d\n", nodes - 1);
		sim_out_put(&o, "has_memory", nodes > 1 ? "0-%d\n" : "%d\n", nodes - 1);
		text[0] = '\0';
		for (int n = 0; n < nodes; n++) {
			bool has = false;

			for (unsigned int c = 0; c < s->nr_cpus && !has; c++)
				has = s->cpu[c].online && s->cpu[c].node == n;
			if (has)
				snprintf(text + strlen(text), sizeof(text) - strlen(text),
					 "%s%d", text[0] ? "," : "", n);
		}
		sim_out_put(&o, "has_cpu", "%s\n", text);
		for (int n = 0; n < nodes; n++) {
			size_t used = 0;

			sim_out_cd(&o, "sys/devices/system/node/node%d", n);
			sim_out_put(&o, "uevent", "%s", "");
			sim_out_link(&o, "subsystem", "sys/bus/node");
			/* x86 numa_remove_cpu(): offline CPUs leave the node mask. */
			sim_set_zero(s, set);
			for (unsigned int c = 0; c < s->nr_cpus; c++) {
				if (s->cpu[c].node != n || !s->cpu[c].present)
					continue;
				if (s->cpu[c].online)
					sim_set_add(set, c);
				snprintf(text, sizeof(text), "cpu%u", c);
				sim_out_link(&o, text, "sys/devices/system/cpu/cpu%u", c);
			}
			put_set(&o, s, "cpulist", set, true);
			put_set(&o, s, "cpumap", set, false);
			for (int m = 0; m < nodes && used < sizeof(text) - 8; m++)
				used += (size_t)snprintf(text + used, sizeof(text) - used,
							 "%s%d", m ? " " : "",
							 m == n ? 10 : 21);
			sim_out_put(&o, "distance", "%s\n", text);
		}
	}
	free(set);
	free(set2);
	return o.err;
}

/* ---- score ----------------------------------------------------------- */

static bool avoided(const struct sim_cpu *c)
{
	return c->isolated || c->nohz_full;
}

static bool eligible(const struct sim_cpu *c)
{
	return c->online && !avoided(c);
}

/* The busiest online CPU counting half of its SMT siblings' @load (two
 * busy threads of a core each run slower; irqtune plans by this, issue 34):
 * the measure the oracle's oracle_smt_* figures are on. */
double sim_smt_peak(const struct sim *s, const double *load)
{
	double max = 0;

	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		double e;

		if (!s->cpu[c].online)
			continue;
		e = load[c];
		for (unsigned int o = 0; o < s->nr_cpus; o++)
			if (o != c && s->cpu[o].online && s->cpu[o].package == s->cpu[c].package &&
			    s->cpu[o].core == s->cpu[c].core)
				e += load[o] / 2;
		if (e > max)
			max = e;
	}
	return max;
}

void sim_score(const struct sim *s, FILE *out, bool verbose)
{
	unsigned int n = s->nr_cpus, nodes = 0;
	double *load = calloc(n, sizeof(double));
	double *mload = calloc(n, sizeof(double));
	unsigned int *active = calloc(n, sizeof(unsigned int));
	double total = 0, movable = 0, managed_elig = 0, hmax = 0, max = 0;
	double local_load = 0, known_load = 0;
	unsigned int local_irqs = 0, known_irqs = 0, remote_irqs = 0;
	unsigned int on_iso = 0, on_nohz = 0, on_off = 0, aff_avoid = 0;
	unsigned int nr_active = 0, nr_movable = 0, nr_managed = 0, stopped = 0;
	unsigned int online = 0, elig = 0, max_irqs = 0, max_active = 0;
	double lb_local, lb_any, mmax = 0, room = 0, fastest = 0;
	int max_cpu = -1;

	if (!load || !mload || !active)
		goto out_free;
	for (unsigned int c = 0; c < n; c++) {
		online += s->cpu[c].online;
		elig += eligible(&s->cpu[c]);
		/* what the eligible CPUs do in a second, in the biggest's
		 * seconds (elig itself where CPUs are alike) */
		if (eligible(&s->cpu[c])) {
			room += 1.0 / sim_slowdown(s, c);
			if (!fastest || sim_slowdown(s, c) < fastest)
				fastest = sim_slowdown(s, c);
		}
		if (s->cpu[c].node + 1 > (int)nodes)
			nodes = (unsigned int)s->cpu[c].node + 1;
	}
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];
		double l = sim_irq_load(q);
		int node = q->dev >= 0 ? s->devs[q->dev].node : -1;

		if (q->managed)
			nr_managed++;
		else
			nr_movable++;
		if (q->rate > 0)
			nr_active++;
		if (!q->managed) {
			bool hit = false;

			for (unsigned int c = 0; c < n && !hit; c++)
				hit = sim_set_test(q->aff, c) && avoided(&s->cpu[c]);
			aff_avoid += hit;
		}
		if (q->eff < 0 || !s->cpu[q->eff].online) {
			if (q->rate > 0)
				stopped++;
			if (!q->managed && q->eff >= 0)
				on_off++;
			continue;
		}
		if (q->rate > 0)
			active[q->eff]++;
		/* a CPU's load is its busy time: a smaller CPU's is longer */
		load[q->eff] += l * sim_slowdown(s, (unsigned int)q->eff);
		total += l;
		if (q->managed) {
			mload[q->eff] += l * sim_slowdown(s, (unsigned int)q->eff);
			if (eligible(&s->cpu[q->eff]))
				managed_elig += l;
		} else {
			movable += l;
			if (l > hmax)
				hmax = l;
			on_iso += s->cpu[q->eff].isolated;
			on_nohz += s->cpu[q->eff].nohz_full;
		}
		/* locality of what a balancer can move */
		if (node >= 0 && nodes > 1 && q->rate > 0 && !q->managed) {
			bool local = s->cpu[q->eff].node == node;

			known_irqs++;
			known_load += l;
			local_irqs += local;
			remote_irqs += !local;
			local_load += local ? l : 0;
		}
	}
	for (unsigned int c = 0; c < n; c++) {
		if (!s->cpu[c].online)
			continue;
		if (max_cpu < 0 || load[c] > max) {
			max = load[c];
			max_cpu = (int)c;
		}
		if (mload[c] > mmax)
			mmax = mload[c];
		if (s->cpu[c].nr_eff > max_irqs)
			max_irqs = s->cpu[c].nr_eff;
		if (active[c] > max_active)
			max_active = active[c];
	}
	/* Lower bounds on the busiest CPU: no IRQ splits, managed IRQs stay
	 * put, movable work spreads over eligible CPUs at best evenly, each
	 * CPU taking its capacity's share. The local bound keeps each
	 * device's IRQs on its node when the node has eligible CPUs. */
	if (fastest)
		hmax *= fastest;	/* the heaviest, on the biggest CPU */
	lb_any = hmax > mmax ? hmax : mmax;
	if (elig && (movable + managed_elig) / room > lb_any)
		lb_any = (movable + managed_elig) / room;
	lb_local = lb_any;
	for (unsigned int node = 0; nodes > 1 && node < nodes; node++) {
		double sum = 0, ne = 0;

		for (unsigned int c = 0; c < n; c++) {
			if (s->cpu[c].node != (int)node || !eligible(&s->cpu[c]))
				continue;
			ne += 1.0 / sim_slowdown(s, c);
			sum += mload[c] / sim_slowdown(s, c);
		}
		if (!ne)
			continue;
		for (unsigned int i = 0; i < s->nr_irqs; i++) {
			const struct sim_irq *q = &s->irqs[i];

			if (!q->managed && q->dev >= 0 &&
			    s->devs[q->dev].node == (int)node &&
			    q->eff >= 0 && s->cpu[q->eff].online)
				sum += sim_irq_load(q);
		}
		if (sum / ne > lb_local)
			lb_local = sum / ne;
	}
	fprintf(out, "machine %s\n", s->machine);
	fprintf(out, "time %.3f\n", s->time);
	fprintf(out, "online_cpus %u\n", online);
	fprintf(out, "eligible_cpus %u\n", elig);
	fprintf(out, "irqs %u\n", s->nr_irqs);
	fprintf(out, "active_irqs %u\n", nr_active);
	fprintf(out, "movable_irqs %u\n", nr_movable);
	fprintf(out, "managed_irqs %u\n", nr_managed);
	fprintf(out, "stopped_irqs %u\n", stopped);
	fprintf(out, "total_load %.6f\n", total);
	fprintf(out, "max_load %.6f\n", max);
	fprintf(out, "max_load_cpu %d\n", max_cpu);
	fprintf(out, "smt_max_load %.6f\n", sim_smt_peak(s, load));
	fprintf(out, "heaviest_irq_load %.6f\n", hmax);
	fprintf(out, "lower_bound %.6f\n", lb_local);
	fprintf(out, "lower_bound_any_node %.6f\n", lb_any);
	fprintf(out, "load_ratio %.6f\n", lb_local > 0 ? max / lb_local : 1.0);
	fprintf(out, "numa_local_load_pct %.2f\n",
		known_load > 0 ? 100.0 * local_load / known_load : 100.0);
	fprintf(out, "numa_local_irqs_pct %.2f\n",
		known_irqs ? 100.0 * local_irqs / known_irqs : 100.0);
	fprintf(out, "numa_remote_irqs %u\n", remote_irqs);
	fprintf(out, "movable_on_isolated %u\n", on_iso);
	fprintf(out, "movable_on_nohz_full %u\n", on_nohz);
	fprintf(out, "movable_on_offline %u\n", on_off);
	fprintf(out, "movable_affinity_avoided %u\n", aff_avoid);
	fprintf(out, "max_irqs_per_cpu %u\n", max_irqs);
	fprintf(out, "max_active_irqs_per_cpu %u\n", max_active);
	fprintf(out, "writes %lu\n", s->writes);
	for (unsigned int d = 0; d < s->nr_devs; d++) {
		unsigned int irqs = 0, act = 0, cores = 0, cpus = 0, local = 0;
		double dl = 0;
		uint64_t *seen_cpu = sim_set_new(s);
		/* a physical core is (package, core_id) */
		int *seen_core = calloc(s->nr_irqs + 1, 2 * sizeof(int));

		if (!seen_cpu || !seen_core) {
			free(seen_cpu);
			free(seen_core);
			break;
		}
		for (unsigned int i = 0; i < s->nr_irqs; i++) {
			const struct sim_irq *q = &s->irqs[i];
			const struct sim_cpu *c;
			bool dup = false;

			if (q->dev != (int)d)
				continue;
			irqs++;
			if (q->rate <= 0 || q->eff < 0 || !s->cpu[q->eff].online)
				continue;
			act++;
			dl += sim_irq_load(q);
			c = &s->cpu[q->eff];
			local += s->devs[d].node < 0 || c->node == s->devs[d].node;
			if (!sim_set_test(seen_cpu, (unsigned int)q->eff)) {
				sim_set_add(seen_cpu, (unsigned int)q->eff);
				cpus++;
			}
			for (unsigned int k = 0; k < cores && !dup; k++)
				dup = seen_core[2 * k] == c->package &&
				      seen_core[2 * k + 1] == c->core;
			if (!dup) {
				seen_core[2 * cores] = c->package;
				seen_core[2 * cores + 1] = c->core;
				cores++;
			}
		}
		free(seen_cpu);
		free(seen_core);
		fprintf(out, "dev.%s.irqs %u\n", s->devs[d].name, irqs);
		fprintf(out, "dev.%s.active %u\n", s->devs[d].name, act);
		fprintf(out, "dev.%s.cpus %u\n", s->devs[d].name, cpus);
		fprintf(out, "dev.%s.cores %u\n", s->devs[d].name, cores);
		fprintf(out, "dev.%s.node_local %u\n", s->devs[d].name, local);
		fprintf(out, "dev.%s.load %.6f\n", s->devs[d].name, dl);
	}
	sim_app_score(s, load, out);
	if (verbose)
		for (unsigned int c = 0; c < n; c++)
			if (s->cpu[c].online)
				fprintf(out, "cpu.%u.load %.6f\ncpu.%u.irqs %u\n",
					c, load[c], c, s->cpu[c].nr_eff);
out_free:
	free(load);
	free(mload);
	free(active);
}

/* Read back from the report rather than computed again, so that there is
 * one definition of the bound. */
double sim_lower_bound(const struct sim *s)
{
	char *buf = NULL, *line, *save;
	size_t len = 0;
	double lb = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return 0;
	sim_score(s, f, false);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "lower_bound %lf", &lb) == 1)
			break;
	free(buf);
	return lb;
}

/* LOAD is the time the IRQ takes on its effective CPU: its work, longer
 * on a smaller CPU, what a measurement there sees. */
void sim_show(const struct sim *s, FILE *out)
{
	char aff[16384];

	fprintf(out, "%-6s %-5s %-24s %-12s %10s %8s %8s %-4s %s\n", "IRQ",
		"EFF", "NAME", "DEVICE", "RATE", "LOAD", "FLAGS", "NODE",
		"AFFINITY");
	for (unsigned int i = 0; i < s->nr_irqs; i++) {
		const struct sim_irq *q = &s->irqs[i];

		sim_set_list(s, q->aff, aff, sizeof(aff));
		fprintf(out, "%-6u %-5d %-24.24s %-12.12s %10.1f %8.5f %8s %-4d %s\n",
			q->irq, q->eff, q->name,
			q->dev >= 0 ? s->devs[q->dev].name : "-", q->rate,
			sim_irq_load(q) * (q->eff >= 0 ? sim_slowdown(s, (unsigned int)q->eff) : 1.0),
			q->managed ? "managed" : "-", q->node,
			aff);
	}
}
