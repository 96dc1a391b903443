/* SPDX-License-Identifier: GPL-2.0-or-later */
/* irqclass.h - the device classes irqtune balances separately. */
#ifndef IRQTUNE_IRQCLASS_H
#define IRQTUNE_IRQCLASS_H

enum irq_class { CLASS_NET, CLASS_STORAGE, CLASS_OTHER, CLASS_NR };

static inline const char *irq_class_name(enum irq_class c)
{
	static const char *const names[CLASS_NR] = { "net", "storage", "other" };
	return (unsigned int)c < CLASS_NR ? names[c] : "?";
}

#endif
