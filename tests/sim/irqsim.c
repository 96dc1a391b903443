// SPDX-License-Identifier: GPL-2.0-or-later
/* irqsim.c - build and drive simulated machines for irqtune's end-to-end
 * tests. See tests/sim/README.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "model.h"
#include "oracle.h"

static void usage(FILE *f)
{
	fputs("usage: irqsim build MACHINE.txt DIR\n"
	      "       irqsim step DIR SECONDS\n"
	      "       irqsim score [-v] DIR\n"
	      "       irqsim shift DIR NAME\n"
	      "       irqsim offline DIR CPU\n"
	      "       irqsim online DIR CPU\n"
	      "       irqsim set DIR IRQ CPULIST\n"
	      "       irqsim show DIR\n"
	      "       irqsim oracle [-v] DIR\n"
	      "       irqsim rules DIR\n"
	      "       irqsim measure DIR FROM TO\n", f);
}

static int load(const char *dir, struct sim **ret)
{
	int r = sim_load(dir, ret);

	if (r < 0)
		fprintf(stderr, "irqsim: %s/%s: %s\n", dir, SIM_STATE_FILE,
			strerror(-r));
	return r;
}

static int finish(struct sim *s, bool cpus)
{
	int r = 0;

	if (cpus)
		r = sim_render_cpus(s);
	if (r == 0)
		r = sim_render_proc(s, false);
	if (r == 0)
		r = sim_save(s);
	if (r < 0)
		fprintf(stderr, "irqsim: %s: %s\n", s->dir, strerror(-r));
	sim_free(s);
	return r < 0 ? 1 : 0;
}

static int cmd_cpu(int argc, char **argv, bool off)
{
	struct sim *s;
	unsigned long cpu;
	int r;

	if (argc != 4 || sim_parse_uint(argv[3], SIM_MAX_CPUS - 1, &cpu) < 0) {
		usage(stderr);
		return 2;
	}
	if (load(argv[2], &s) < 0)
		return 1;
	r = off ? sim_cpu_offline(s, (unsigned int)cpu, stdout) :
		  sim_cpu_online(s, (unsigned int)cpu);
	if (r < 0) {
		fprintf(stderr, "irqsim: cannot take CPU %lu %s: %s\n", cpu,
			off ? "offline" : "online", strerror(-r));
		sim_free(s);
		return 1;
	}
	return finish(s, true);
}

int main(int argc, char **argv)
{
	struct sim *s;
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "build") == 0 && argc == 4)
		return sim_build(argv[2], argv[3], stderr) < 0 ? 1 : 0;
	if (strcmp(cmd, "step") == 0 && argc == 4) {
		double dt;

		if (sim_parse_double(argv[3], &dt) < 0 || dt < 0 || dt > 1e7) {
			fprintf(stderr, "irqsim: bad SECONDS \"%s\"\n", argv[3]);
			return 2;
		}
		if (load(argv[2], &s) < 0)
			return 1;
		sim_step(s, dt);
		return finish(s, false);
	}
	if (strcmp(cmd, "score") == 0 && (argc == 3 || argc == 4)) {
		bool verbose = argc == 4 && strcmp(argv[2], "-v") == 0;

		if (argc == 4 && !verbose) {
			usage(stderr);
			return 2;
		}
		if (load(argv[argc - 1], &s) < 0)
			return 1;
		sim_score(s, stdout, verbose);
		sim_free(s);
		return 0;
	}
	if (strcmp(cmd, "oracle") == 0 && (argc == 3 ||
					    (argc == 4 && !strcmp(argv[2], "-v")))) {
		int r;

		if (load(argv[argc - 1], &s) < 0)
			return 1;
		r = sim_oracle(s, stdout, argc == 4);
		sim_free(s);
		return r < 0 ? 1 : 0;
	}
	if (strcmp(cmd, "rules") == 0 && argc == 3) {
		int r;

		if (load(argv[2], &s) < 0)
			return 1;
		r = sim_rules(s, stdout);
		sim_free(s);
		return r < 0 ? 1 : 0;
	}
	if (strcmp(cmd, "measure") == 0 && argc == 5) {
		double from, to;

		if (sim_parse_double(argv[3], &from) < 0 ||
		    sim_parse_double(argv[4], &to) < 0 || !(to > from)) {
			usage(stderr);
			return 2;
		}
		if (load(argv[2], &s) < 0)
			return 1;
		sim_measure(s, from, to, stdout);
		sim_free(s);
		return 0;
	}
	if (strcmp(cmd, "show") == 0 && argc == 3) {
		if (load(argv[2], &s) < 0)
			return 1;
		sim_show(s, stdout);
		sim_free(s);
		return 0;
	}
	if (strcmp(cmd, "shift") == 0 && argc == 4) {
		if (load(argv[2], &s) < 0)
			return 1;
		if (sim_apply_shift(s, argv[3]) < 0) {
			fprintf(stderr, "irqsim: no shift \"%s\" in %s\n", argv[3],
				argv[2]);
			sim_free(s);
			return 1;
		}
		return finish(s, false);
	}
	if (strcmp(cmd, "offline") == 0)
		return cmd_cpu(argc, argv, true);
	if (strcmp(cmd, "online") == 0)
		return cmd_cpu(argc, argv, false);
	if (strcmp(cmd, "set") == 0 && argc == 5) {
		unsigned long irq;
		long n;

		if (sim_parse_uint(argv[3], SIM_MAX_IRQS - 1, &irq) < 0) {
			usage(stderr);
			return 2;
		}
		if (load(argv[2], &s) < 0)
			return 1;
		n = sim_write_affinity(s, (long)irq, argv[4], strlen(argv[4]), true);
		if (n < 0) {
			fprintf(stderr, "irqsim: irq %lu: cannot set affinity to "
				"\"%s\": %s\n", irq, argv[4], strerror((int)-n));
			sim_free(s);
			return 1;
		}
		return finish(s, false);
	}
	usage(argc > 1 && strcmp(cmd, "-h") && strcmp(cmd, "--help") ? stderr : stdout);
	return argc > 1 && (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) ? 0 : 2;
}
