/* SPDX-License-Identifier: GPL-2.0-or-later */
/* build.h - machine descriptions to a model and a /sys + /proc tree.
 * Used by irqsim only (the preload library never builds). */
#ifndef IRQSIM_BUILD_H
#define IRQSIM_BUILD_H

#include <stdio.h>
#include "model.h"

/* Parse @desc (a machine description) and create DIR/{sys,proc,sim.state}.
 * Errors name the file and line on @err. */
int sim_build(const char *desc, const char *dir, FILE *err);

/* Re-render /sys/devices/system/{cpu,node} after a CPU went on/offline. */
int sim_render_cpus(struct sim *s);

#endif
