/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scratch.h - the scratch directory of a cmocka test binary that writes
 * files: made before its group of tests, removed after. Include it once,
 * after cmocka.h; @scratch_dir holds the directory's path. */
#ifndef IRQTUNE_TESTS_SCRATCH_H
#define IRQTUNE_TESTS_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

static char scratch_dir[] = "/tmp/irqtune-test.XXXXXX";

static int scratch_setup(void **state)
{
	(void)state;
	return mkdtemp(scratch_dir) ? 0 : -1;
}

static int scratch_teardown(void **state)
{
	char cmd[64 + sizeof(scratch_dir)];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch_dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
