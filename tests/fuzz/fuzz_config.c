// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_config.c - site policy as text: /etc/irqtune.conf through
 * config_parse(), and the udev property values a rule can set on a device
 * (IRQTUNE_BAN through policy_parse_bool(), IRQTUNE_CPUS through
 * cpulist_parse()). A config either parses, with every value within its
 * limits, or fails with a line inside the file and a message. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "config.h"
#include "cpuset.h"
#include "policy.h"
#include "sample.h"
#include "fuzz.h"

static unsigned int count_lines(const uint8_t *data, size_t size)
{
	unsigned int n = 1;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

/* load-source's words besides auto, as the program's table names them
 * (loadsrc_names): the parser takes its caller's list. */
static const char *const sources[] = { "bpf", "proc", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg;
	struct config_error err;
	struct cpuset *set;
	char *value;
	FILE *f = fuzz_file(data, size);
	int r;

	config_init(&cfg);
	cfg.load_sources = sources;
	r = config_parse(f, &cfg, &err);
	fclose(f);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == -EINVAL) {
		fuzz_assert(err.line >= 1 && err.line <= count_lines(data, size));
		fuzz_assert(err.msg[0] && memchr(err.msg, '\0', sizeof(err.msg)));
	}
	if (r == 0) {
		fuzz_assert(cfg.window == 0 ||
			    (cfg.window > 0 && cfg.window <= CONFIG_WINDOW_MAX));
		fuzz_assert(!isnan(cfg.threshold));
		fuzz_assert(cfg.nr_banirq <= CONFIG_LIST_MAX);
		fuzz_assert(cfg.nr_banname <= CONFIG_LIST_MAX);
		for (unsigned int i = 0; i < cfg.nr_banirq; i++)
			fuzz_assert(cfg.banirq[i] <= IRQ_NUM_LIMIT);
		for (unsigned int i = 0; i < cfg.nr_banname; i++)
			config_irq_banned(&cfg, 1, cfg.banname[i]);
	}
	config_release(&cfg);

	/* the same bytes as a udev property value (NUL-terminated) */
	value = malloc(size + 1);
	fuzz_assert(value);
	memcpy(value, data, size);
	value[size] = '\0';
	r = policy_parse_bool(value);
	fuzz_assert(r == 0 || r == 1 || r == -EINVAL);
	set = cpuset_new(CPU_ID_LIMIT);
	fuzz_assert(set);
	r = cpulist_parse(value, set);
	fuzz_assert(r == 0 || r == -EINVAL || r == -ERANGE);
	cpuset_free(set);
	free(value);
	return 0;
}
