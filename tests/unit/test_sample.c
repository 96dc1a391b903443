// SPDX-License-Identifier: GPL-2.0-or-later
/* test_sample.c - the /proc/interrupts, /proc/stat and /proc/softirqs
 * parsers against every real capture in ../shared/realdata, odd inputs as
 * strings, and the delta and load arithmetic on snapshots built by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpuset.h"
#include "fileio.h"
#include "sample.h"
#include "source.h"

/* sample.c's cap on one line; a test pins the boundary. */
#define LINE_LIMIT	(4u << 20)

/* ---- helpers ---- */

#include "snaptest.h"
#include "strutil.h"

static uint64_t count_on(const struct irq_row *row, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < row->nr_counts; i++)
		if (row->counts[i].cpu == cpu)
			return row->counts[i].count;
	return 0;
}

static bool is_blank_char(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* What every parse result must satisfy, whatever the input. */
static void check_invariants(const char *what, const struct interrupts *intr)
{
	unsigned int i, j;

	assert_non_null(intr);
	if (intr->nr_cols == 0)
		fail_msg("%s: no columns", what);
	for (j = 1; j < intr->nr_cols; j++)
		if (intr->col_cpu[j] <= intr->col_cpu[j - 1])
			fail_msg("%s: col_cpu not ascending at %u", what, j);
	for (i = 0; i < intr->nr_rows; i++) {
		const struct irq_row *row = &intr->rows[i];
		uint64_t sum = 0;
		size_t dl, nl;

		if (i > 0 && row->irq <= intr->rows[i - 1].irq)
			fail_msg("%s: rows not ascending at irq %u", what,
				 row->irq);
		if (row->irq > IRQ_NUM_LIMIT)
			fail_msg("%s: irq %u above the limit", what, row->irq);
		for (j = 0; j < row->nr_counts; j++) {
			unsigned int k;

			if (row->counts[j].count == 0)
				fail_msg("%s: irq %u: zero count kept", what,
					 row->irq);
			if (j > 0 && row->counts[j].cpu <= row->counts[j - 1].cpu)
				fail_msg("%s: irq %u: counts not ascending",
					 what, row->irq);
			for (k = 0; k < intr->nr_cols; k++)
				if (intr->col_cpu[k] == row->counts[j].cpu)
					break;
			if (k == intr->nr_cols)
				fail_msg("%s: irq %u: cpu %u is no column", what,
					 row->irq, row->counts[j].cpu);
			sum += row->counts[j].count;
		}
		check_u64(what, row->total, sum);
		assert_non_null(row->desc);
		assert_non_null(row->name);
		dl = strlen(row->desc);
		nl = strlen(row->name);
		if (dl && (is_blank_char(row->desc[0]) ||
			   is_blank_char(row->desc[dl - 1])))
			fail_msg("%s: irq %u: desc not trimmed", what, row->irq);
		if (nl > dl || strcmp(row->desc + dl - nl, row->name) != 0)
			fail_msg("%s: irq %u: name \"%s\" does not end desc \"%s\"",
				 what, row->irq, row->name, row->desc);
		if (interrupts_find(intr, row->irq) != row)
			fail_msg("%s: interrupts_find(%u) missed", what, row->irq);
	}
}

/* ---- /proc/interrupts: every real capture ---- */

struct intr_case {
	const char *file;
	unsigned int nr_cols, first_cpu, last_cpu;
	unsigned int nr_rows, max_irq;	/* numbered rows, counted with grep */
	uint64_t sum;			/* of every numbered row's counts */
	unsigned int nr_counts;		/* non-zero counts in those rows */
	/* One row checked in full: its total, its largest count, its name. */
	unsigned int irq;
	uint64_t total;
	unsigned int cpu;
	uint64_t count;
	const char *name;
};

/* Counted independently of sample.c, with awk and python over the files:
 * header words, rows matching ^ *[0-9]+:, the first nr_cols words of each. */
static const struct intr_case intr_cases[] = {
	{ "goprocinfo-4cpu-x86.txt",
	  4, 0, 3, 21, 36, 45909172ull, 31,
	  32, 26238352ull, 1, 24451422ull, "enp0s25" },
	{ "insights-core-test-1cpu-x86-old-IO-APIC-edge-floppy-HYP.txt",
	  1, 0, 0, 6, 9, 52ull, 4,
	  0, 45ull, 0, 45ull, "timer" },
	{ "insights-core-test-8cpu-x86-laptop-irq30-empty-devname.txt",
	  8, 0, 7, 19, 35, 7240341ull, 106,
	  30, 190ull, 0, 100ull, "" },
	{ "node_exporter-4cpu-x86-laptop-old-IR-IO-APIC-edge-format.txt",
	  4, 0, 3, 15, 47, 89013634ull, 42,
	  46, 43539055ull, 0, 43078464ull, "iwlwifi" },
	{ "node_exporter-8cpu-arm64-graviton-ITS-MSI-ena-nvme.txt",
	  8, 0, 7, 51, 65, 41951564656ull, 38,
	  59, 2709939227ull, 3, 2709937608ull, "eth0-Tx-Rx-1" },
	{ "nto-mustgather-bare-metal-master.internal.txt",
	  112, 0, 111, 1862, 2024, 23316921ull, 124,
	  10, 276ull, 84, 276ull, "ipmi_si" },
	{ "nto-mustgather-bare-metal-worker1.internal.txt",
	  80, 0, 79, 542, 604, 5440232ull, 518,
	  151, 794140ull, 42, 794057ull, "eno3-TxRx-0" },
	{ "nto-mustgather-bare-metal-worker1.txt",
	  80, 0, 79, 755, 782, 518685830ull, 3421,
	  527, 44289612ull, 4, 12864142ull, "mlx5_comp0@pci:0000:19:00.1" },
	{ "nto-mustgather-bare-metal-worker2.internal.txt",
	  32, 0, 31, 233, 276, 296390ull, 845,
	  80, 58084ull, 20, 57900ull, "eno3-TxRx-4" },
	{ "nto-mustgather-bare-metal-worker2.txt",
	  24, 0, 23, 22, 35, 1269102980ull, 15,
	  34, 1218439781ull, 7, 1218437244ull, "virtio1-input.0" },
	{ "nto-mustgather-e2e-ci-ln-t0prq3t-72292-h4x2n-worker-a-wqnqt.txt",
	  2, 0, 1, 21, 38, 27595ull, 22,
	  29, 13617ull, 0, 13617ull, "virtio0-request" },
	{ "nto-mustgather-sno-ocp47sno-master-0.demo.lab.txt",
	  12, 0, 11, 15, 30, 2823515ull, 11,
	  29, 1399099ull, 11, 1398859ull, "virtio0-input.0" },
	{ "nto-mustgather-sno-sno.txt",
	  12, 0, 11, 57, 74, 102373ull, 30,
	  69, 17140ull, 11, 17125ull, "virtio1-input.0" },
	{ "pcp-qa-1152cpu-x86_64.txt",
	  1152, 0, 1151, 1034, 1160, 2525390ull, 111,
	  36, 69868ull, 584, 69868ull, "smartpqi" },
	/* s390 zPCI rows have no flow type, so no name is recognised. */
	{ "pcp-qa-interrupts-16cpu-s390x.txt",
	  16, 0, 15, 22, 24, 830ull, 50,
	  3, 406ull, 8, 64ull, "" },
	{ "pcp-qa-interrupts-1cpu-i686.txt",
	  1, 0, 0, 11, 25, 886740ull, 7,
	  11, 307009ull, 0, 307009ull, "uhci_hcd:usb1, ens3" },
	{ "pcp-qa-interrupts-2cpu-s390x.txt",
	  2, 0, 1, 0, 0, 0ull, 0,
	  0, 0, 0, 0, NULL },
	{ "pcp-qa-interrupts-8cpu-x86_64.txt",
	  8, 0, 7, 19, 35, 11233418ull, 109,
	  29, 4736146ull, 0, 3249898ull, "enp0s25" },
	{ "procfs-fixture-4cpu-x86-virtio-kvm.txt",
	  4, 0, 3, 28, 44, 13970ull, 17,
	  27, 2654ull, 2, 2654ull, "virtio5-req.2" },
	{ "sysstat-test-root1-9cpu.txt",
	  9, 0, 8, 21, 36, 1383582ull, 12,
	  34, 756140ull, 6, 756140ull, "nvkm" },
	{ "sysstat-test-root2-8cpu.txt",
	  8, 0, 7, 21, 36, 1390942ull, 11,
	  34, 760815ull, 6, 760815ull, "nvkm" },
	{ "sysstat-test-root3-cpu6-missing-cols-CPU0-5+CPU7.txt",
	  7, 0, 7, 21, 36, 632325ull, 10,
	  24, 221678ull, 2, 221678ull, "ahci[0000:00:1f.2]" },
	/* CPU6 offline: the 8th column is CPU8. */
	{ "sysstat-test-root4-cpu6-missing-cols-CPU0-5+CPU7-8.txt",
	  8, 0, 8, 21, 36, 637168ull, 11,
	  27, 50ull, 8, 50ull, "xhci_hcd" },
	{ "sysstat-test-root5-9cpu.txt",
	  9, 0, 8, 21, 36, 1414348ull, 12,
	  34, 775355ull, 6, 775355ull, "nvkm" },
	{ "sysstat-test-root6-10cpu.txt",
	  10, 0, 9, 21, 36, 1386016ull, 14,
	  34, 756140ull, 6, 756140ull, "nvkm" },
	{ "sysstat-test-root6b-10cpu.txt",
	  10, 0, 9, 21, 36, 1386016ull, 14,
	  34, 756140ull, 6, 756140ull, "nvkm" },
	{ "sysstat-test-root7-10cpu.txt",
	  10, 0, 9, 21, 36, 1393399ull, 14,
	  34, 760815ull, 6, 760815ull, "nvkm" },
	{ "telegraf-issue4470-4cpu-arm-raspberrypi3-bcm2836-FIQ.txt",
	  4, 0, 3, 15, 92, 1015510699ull, 12,
	  62, 521451447ull, 0, 521451447ull,
	  "dwc_otg, dwc_otg_pcd, dwc_otg_hcd:usb1" },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))


static void test_intr_real_all(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(intr_cases); i++) {
		const struct intr_case *c = &intr_cases[i];
		struct interrupts *intr = load_intr(c->file);
		const struct irq_row *row;
		uint64_t sum = 0;
		unsigned int nr_counts = 0, j;

		check_invariants(c->file, intr);
		check_u64(c->file, intr->nr_cols, c->nr_cols);
		check_u64(c->file, intr->col_cpu[0], c->first_cpu);
		check_u64(c->file, intr->col_cpu[intr->nr_cols - 1], c->last_cpu);
		check_u64(c->file, intr->nr_rows, c->nr_rows);
		for (j = 0; j < intr->nr_rows; j++) {
			sum += intr->rows[j].total;
			nr_counts += intr->rows[j].nr_counts;
		}
		check_u64(c->file, sum, c->sum);
		check_u64(c->file, nr_counts, c->nr_counts);
		if (c->nr_rows) {
			check_u64(c->file, intr->rows[intr->nr_rows - 1].irq,
				  c->max_irq);
			row = interrupts_find(intr, c->irq);
			if (!row)
				fail_msg("%s: irq %u not found", c->file, c->irq);
			check_u64(c->file, row->total, c->total);
			check_u64(c->file, count_on(row, c->cpu), c->count);
			check_str(c->file, row->name, c->name);
		}
		interrupts_free(intr);
	}
}

/* The table above must cover every capture, so a new one gets facts. */
static void test_intr_real_table_covers_dir(void **state)
{
	char path[4096];
	struct dirent *de;
	unsigned int n = 0;
	size_t i;
	DIR *d;

	(void)state;
	snprintf(path, sizeof(path), "%s/interrupts", realdata());
	d = opendir(path);
	if (!d)
		fail_msg("%s: %s", path, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		for (i = 0; i < ARRAY_SIZE(intr_cases); i++)
			if (strcmp(intr_cases[i].file, de->d_name) == 0)
				break;
		if (i == ARRAY_SIZE(intr_cases))
			fail_msg("%s has no row in intr_cases", de->d_name);
	}
	closedir(d);
	check_u64("interrupts/", n, ARRAY_SIZE(intr_cases));
}

/* Offline CPU6: the header jumps from CPU5 to CPU7 and CPU7's counts must
 * land on id 7, not on column index 6. */
static void test_intr_real_offline_columns(void **state)
{
	static const unsigned int root3[] = { 0, 1, 2, 3, 4, 5, 7 };
	static const unsigned int root4[] = { 0, 1, 2, 3, 4, 5, 7, 8 };
	struct interrupts *intr;
	const struct irq_row *row;
	unsigned int i, j;
	char *text;
	FILE *f;
	size_t len;

	(void)state;
	intr = load_intr("sysstat-test-root3-cpu6-missing-cols-CPU0-5+CPU7.txt");
	check_u64("root3", intr->nr_cols, ARRAY_SIZE(root3));
	for (i = 0; i < ARRAY_SIZE(root3); i++)
		check_u64("root3", intr->col_cpu[i], root3[i]);
	for (i = 0; i < intr->nr_rows; i++)
		for (j = 0; j < intr->rows[i].nr_counts; j++)
			if (intr->rows[i].counts[j].cpu == 6)
				fail_msg("irq %u has a count on offline CPU6",
					 intr->rows[i].irq);
	interrupts_free(intr);

	intr = load_intr("sysstat-test-root4-cpu6-missing-cols-CPU0-5+CPU7-8.txt");
	for (i = 0; i < ARRAY_SIZE(root4); i++)
		check_u64("root4", intr->col_cpu[i], root4[i]);
	row = interrupts_find(intr, 27);	/* "0 0 0 0 0 0 0 50" */
	assert_non_null(row);
	check_u64("root4 irq 27", row->nr_counts, 1);
	check_u64("root4 irq 27", row->counts[0].cpu, 8);
	check_u64("root4 irq 27", row->counts[0].count, 50);
	interrupts_free(intr);

	/* root3's own header with a count in its last column. */
	f = open_real("interrupts",
		      "sysstat-test-root3-cpu6-missing-cols-CPU0-5+CPU7.txt");
	text = NULL;
	len = 0;
	assert_true(getline(&text, &len, f) > 0);
	fclose(f);
	text = realloc(text, strlen(text) + 128);
	assert_non_null(text);
	strcat(text, " 40:  0 0 0 0 0 6 77   PCI-MSI 1-edge  eth9\n");
	assert_int_equal(parse_intr(text, &intr, NULL), 0);
	row = interrupts_find(intr, 40);
	assert_non_null(row);
	check_u64("CPU7 column", row->nr_counts, 2);
	check_u64("CPU7 column", count_on(row, 5), 6);
	check_u64("CPU7 column", count_on(row, 7), 77);
	check_u64("CPU7 column", count_on(row, 6), 0);
	interrupts_free(intr);
	free(text);
}

/* arm64 arch rows glue 10-digit counts to the colon: "IPI0:2768808080". */
static void test_intr_real_graviton_ipi(void **state)
{
	struct interrupts *intr;
	const struct irq_row *row;

	(void)state;
	intr = load_intr("node_exporter-8cpu-arm64-graviton-ITS-MSI-ena-nvme.txt");
	check_u64("graviton", intr->rows[0].irq, 10);
	check_u64("graviton", intr->rows[intr->nr_rows - 1].irq, 65);
	assert_null(interrupts_find(intr, 0));	/* "IPI0" is not irq 0 */
	row = interrupts_find(intr, 10);	/* arch_timer, 8 x ~3.3e9 */
	assert_non_null(row);
	check_u64("irq 10", row->total, 26767542953ull);
	check_u64("irq 10", row->nr_counts, 8);
	check_u64("irq 10", count_on(row, 5), 3641875466ull);
	check_str("irq 10", row->desc, "GICv3  27 Level     arch_timer");
	check_str("irq 10", row->name, "arch_timer");
	row = interrupts_find(intr, 50);
	check_str("irq 50", row->desc, "ARMH0061:00   3 Edge      ACPI:Event");
	check_str("irq 50", row->name, "ACPI:Event");
	row = interrupts_find(intr, 51);
	check_str("irq 51", row->name, "nvme0q0");
	interrupts_free(intr);
}

/* A blank line between the MIS and PIN rows, and a final all-space line. */
static void test_intr_real_blank_lines(void **state)
{
	struct interrupts *intr;

	(void)state;
	intr = load_intr("procfs-fixture-4cpu-x86-virtio-kvm.txt");
	check_u64("procfs", intr->nr_rows, 28);
	check_str("procfs irq 44", interrupts_find(intr, 44)->name,
		  "virtio4-virtqueues");
	check_str("procfs irq 0", interrupts_find(intr, 0)->desc,
		  "IO-APIC   2-edge      timer");
	interrupts_free(intr);
	intr = load_intr("node_exporter-8cpu-arm64-graviton-ITS-MSI-ena-nvme.txt");
	check_u64("graviton", intr->nr_rows, 51);
	interrupts_free(intr);
}

/* Raspberry Pi: a "FIQ:" row with no counts, and a chip whose own name ends
 * in "-level" ahead of the real flow type. */
static void test_intr_real_rpi_fiq(void **state)
{
	struct interrupts *intr;
	const struct irq_row *row;

	(void)state;
	intr = load_intr("telegraf-issue4470-4cpu-arm-raspberrypi3-bcm2836-FIQ.txt");
	check_u64("rpi", intr->nr_rows, 15);
	check_u64("rpi", intr->nr_cols, 4);
	row = interrupts_find(intr, 23);
	check_str("irq 23", row->desc,
		  "ARMCTRL-level   1 Edge      3f00b880.mailbox");
	check_str("irq 23", row->name, "3f00b880.mailbox");
	check_u64("irq 23", row->total, 1549514);
	check_str("irq 24", interrupts_find(intr, 24)->name, "VCHIQ doorbell");
	check_str("irq 46", interrupts_find(intr, 46)->name, "bcm2708_fb dma");
	check_str("irq 17", interrupts_find(intr, 17)->name, "arch_timer");
	interrupts_free(intr);
}

/* s390: "EXT:", "I/O:", "AIO:" and ~35 class rows keyed by letters. */
static void test_intr_real_s390(void **state)
{
	struct interrupts *intr;
	const struct irq_row *row;

	(void)state;
	intr = load_intr("pcp-qa-interrupts-2cpu-s390x.txt");
	check_u64("s390 2cpu", intr->nr_cols, 2);
	check_u64("s390 2cpu", intr->nr_rows, 0);
	assert_null(interrupts_find(intr, 0));
	interrupts_free(intr);

	intr = load_intr("pcp-qa-interrupts-16cpu-s390x.txt");
	check_u64("s390 16cpu", intr->rows[0].irq, 3);
	check_u64("s390 16cpu", intr->nr_rows, 22);
	row = interrupts_find(intr, 3);
	check_str("irq 3", row->desc, "PCI-MSI  mlx5_async@pci:0002:00:00.0");
	check_u64("irq 3", count_on(row, 15), 7);
	row = interrupts_find(intr, 23);
	check_str("irq 23", row->desc, "PCI-MSI  0000:00:00.0");
	check_u64("irq 23", row->nr_counts, 0);
	assert_null(row->counts);
	interrupts_free(intr);
}

/* 13 MB, 1152 columns: correct, and fast enough to run every pass. */
static void test_intr_real_1152cpu(void **state)
{
	struct timespec t0, t1;
	struct interrupts *intr;
	const struct irq_row *row;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	intr = load_intr("pcp-qa-1152cpu-x86_64.txt");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("# 1152-CPU /proc/interrupts (13 MB) parsed in %.1f ms\n",
		      (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	check_u64("1152", intr->col_cpu[1151], 1151);
	row = interrupts_find(intr, 1160);
	check_str("irq 1160", row->name, "i40e-0000:c3:00.3:fdir-TxRx-0");
	check_str("irq 1160", row->desc,
		  "IR-PCI-MSI 102242399-edge      i40e-0000:c3:00.3:fdir-TxRx-0");
	row = interrupts_find(intr, 107);	/* one count, on CPU579 */
	check_u64("irq 107", row->nr_counts, 1);
	check_u64("irq 107", row->counts[0].cpu, 579);
	check_u64("irq 107", row->counts[0].count, 2786);
	check_str("irq 107", row->name, "lpfc:0");
	interrupts_free(intr);
}

/* Names: empty, with blanks and commas, in three generations of chips. */
static void test_intr_real_names(void **state)
{
	static const struct {
		const char *file;
		unsigned int irq;
		const char *desc, *name;
	} cases[] = {
		{ "insights-core-test-8cpu-x86-laptop-irq30-empty-devname.txt",
		  30, "IR-PCI-MSI 524288-edge", "" },
		{ "insights-core-test-8cpu-x86-laptop-irq30-empty-devname.txt",
		  34, "IR-PCI-MSI 442368-edge      snd_hda_intel:card2",
		  "snd_hda_intel:card2" },
		{ "nto-mustgather-bare-metal-master.internal.txt",
		  124, "IR-PCI-MSI-0000:16:02.0    0-edge      PCIe PME, pciehp",
		  "PCIe PME, pciehp" },
		{ "goprocinfo-4cpu-x86.txt",
		  16, "IR-IO-APIC  16-fasteoi   ehci_hcd:usb1, mmc0",
		  "ehci_hcd:usb1, mmc0" },
		{ "node_exporter-4cpu-x86-laptop-old-IR-IO-APIC-edge-format.txt",
		  16, "IR-IO-APIC-fasteoi   ehci_hcd:usb1, mmc0",
		  "ehci_hcd:usb1, mmc0" },
		{ "node_exporter-4cpu-x86-laptop-old-IR-IO-APIC-edge-format.txt",
		  40, "DMAR_MSI-edge      dmar0", "dmar0" },
		{ "insights-core-test-1cpu-x86-old-IO-APIC-edge-floppy-HYP.txt",
		  6, "IO-APIC-edge      floppy", "floppy" },
		{ "nto-mustgather-sno-sno.txt",
		  69, "PCI-MSIX-0000:01:00.0   1-edge      virtio1-input.0",
		  "virtio1-input.0" },
		{ "pcp-qa-interrupts-1cpu-i686.txt",
		  10, "IO-APIC  10-fasteoi   virtio0, qxl", "virtio0, qxl" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct interrupts *intr = load_intr(cases[i].file);
		const struct irq_row *row = interrupts_find(intr, cases[i].irq);

		if (!row)
			fail_msg("%s: no irq %u", cases[i].file, cases[i].irq);
		check_str(cases[i].file, row->desc, cases[i].desc);
		check_str(cases[i].file, row->name, cases[i].name);
		interrupts_free(intr);
	}
}

/* ---- /proc/interrupts: odd inputs ---- */

struct bad_case {
	const char *what;
	const char *text;
	unsigned int line;
};

static const struct bad_case intr_bad[] = {
	{ "duplicate irq", "  CPU0 CPU1\n 1: 1 2 a\n 1: 3 4 b\n", 3 },
	{ "duplicate irq, unsorted",
	  "CPU0\n 5: 1 x\n 3: 1 y\n 5: 2 z\n", 4 },
	{ "irq above IRQ_NUM_LIMIT", "CPU0\n16777217: 1 x\n", 2 },
	{ "irq of 20 digits", "CPU0\n 0: 1\n 12345678901234567890: 1 x\n", 3 },
	{ "irq wrapping u64 to 1", "CPU0\n18446744073709551617: 1 x\n", 2 },
	{ "garbage count", "CPU0 CPU1\n 1: 12 12x4 IO-APIC 1-edge i8042\n", 2 },
	{ "negative count", "CPU0 CPU1\n 1: 12 -5 IO-APIC 1-edge i8042\n", 2 },
	{ "count above u64",
	  "CPU0\n 1: 18446744073709551616 PCI-MSI 1-edge x\n", 2 },
	{ "total above u64",
	  "CPU0 CPU1\n 1: 18446744073709551615 1 x\n", 2 },
	{ "count glued to text", "CPU0 CPU1\n 1: 5 6IO-APIC\n", 2 },
	{ "header word not CPUn", "CPU0 CPUX\n 1: 1 2\n", 1 },
	{ "header lower case", "cpu0 cpu1\n", 1 },
	{ "header CPU without id", "CPU0 CPU\n", 1 },
	{ "header duplicate CPU", "CPU0 CPU0\n 1: 1 2\n", 1 },
	{ "header descending", "CPU1 CPU0\n 1: 1 2\n", 1 },
	{ "header CPU id at CPU_ID_LIMIT", "CPU0 CPU16384\n", 1 },
	{ "header id glued", "CPU0x\n", 1 },
	{ "no header", "", 1 },
	{ "only blank lines", "\n   \n", 3 },
	{ "line without a key", "CPU0\n 0: 1 x\n 1 2 3\n", 3 },
	{ "empty key", "CPU0\n : 1\n", 2 },
};

static void test_intr_bad_inputs(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(intr_bad); i++) {
		struct interrupts *intr = (void *)0x1;
		unsigned int line = 999;
		int r = parse_intr(intr_bad[i].text, &intr, &line);

		if (r != -EINVAL)
			fail_msg("%s: r = %d, want -EINVAL", intr_bad[i].what, r);
		check_u64(intr_bad[i].what, line, intr_bad[i].line);
		/* *ret is set only on success */
		assert_ptr_equal(intr, (void *)0x1);
	}
}

static void test_intr_odd_but_good(void **state)
{
	struct interrupts *intr;
	const struct irq_row *row;

	(void)state;
	/* Counts wider than 10 digits, u64 max, glued to the colon, CR line
	 * ends, tabs, leading blank lines, no final newline, unsorted rows. */
	assert_int_equal(parse_intr(
		"\n   \n   CPU0       CPU2       CPU3   \n"
		" 9:  12345678901234  0 0  IO-APIC 9-fasteoi acpi\n"
		" 12: 0 18446744073709551615 0  IO-APIC 12-edge big\n"
		"10:3287008667 3310445093 1 GICv3  27 Level     arch_timer\r\n"
		"\t 3:\t7\t0\t0\tPCI-MSI\t3-edge\teth0\n"
		"  1: 0 0 0 IO-APIC 1-edge i8042   \r\n"
		"NMI: 1 2 3 Non-maskable interrupts\n"
		" 16777216: 1 0 0 X 1-edge biggest",
		&intr, NULL), 0);
	check_invariants("odd", intr);
	check_u64("odd", intr->nr_rows, 6);
	check_u64("odd", intr->rows[0].irq, 1);
	check_u64("odd", intr->rows[1].irq, 3);
	check_u64("odd", intr->rows[5].irq, IRQ_NUM_LIMIT);
	row = interrupts_find(intr, 9);
	check_u64("irq 9", row->total, 12345678901234ull);
	check_u64("irq 9", row->nr_counts, 1);
	row = interrupts_find(intr, 12);
	check_u64("irq 12", count_on(row, 2), UINT64_MAX);
	check_u64("irq 12", row->total, UINT64_MAX);
	row = interrupts_find(intr, 10);
	check_u64("irq 10", count_on(row, 0), 3287008667ull);
	check_u64("irq 10", count_on(row, 3), 1);
	check_u64("irq 10", row->total, 3287008667ull + 3310445093ull + 1);
	check_str("irq 10", row->desc, "GICv3  27 Level     arch_timer");
	row = interrupts_find(intr, 3);
	check_str("irq 3", row->desc, "PCI-MSI\t3-edge\teth0");
	check_str("irq 3", row->name, "eth0");
	row = interrupts_find(intr, 1);
	check_u64("irq 1", row->nr_counts, 0);
	check_u64("irq 1", row->total, 0);
	check_str("irq 1", row->desc, "IO-APIC 1-edge i8042");
	check_str("irq 1", row->name, "i8042");
	check_str("irq max", interrupts_find(intr, IRQ_NUM_LIMIT)->name,
		  "biggest");
	interrupts_free(intr);
}

static void test_intr_column_mismatch(void **state)
{
	struct interrupts *intr;
	const struct irq_row *row;

	(void)state;
	assert_int_equal(parse_intr(
		"CPU0 CPU1 CPU2 CPU3\n"
		/* fewer counts than CPUs: the missing ones are 0 */
		" 1: 5 6 IO-APIC 1-edge i8042\n"
		" 2: 7\n"
		/* more: the first nr_cols are counts, the rest description */
		" 3: 1 2 3 4 5 6 PCI-MSI 3-edge eth0\n",
		&intr, NULL), 0);
	row = interrupts_find(intr, 1);
	check_u64("short row", row->nr_counts, 2);
	check_u64("short row", count_on(row, 1), 6);
	check_str("short row", row->desc, "IO-APIC 1-edge i8042");
	row = interrupts_find(intr, 2);
	check_u64("counts only", row->total, 7);
	check_str("counts only", row->desc, "");
	check_str("counts only", row->name, "");
	row = interrupts_find(intr, 3);
	check_u64("long row", row->total, 10);
	check_u64("long row", count_on(row, 3), 4);
	check_str("long row", row->desc, "5 6 PCI-MSI 3-edge eth0");
	check_str("long row", row->name, "eth0");
	interrupts_free(intr);
}

/* The flow type decides where names start, whatever the chip format. */
static void test_intr_name_formats(void **state)
{
	static const struct {
		const char *desc, *name;
	} cases[] = {
		{ "IR-PCI-MSI 512000-edge      eth0", "eth0" },
		{ "IO-APIC   2-edge      timer", "timer" },
		{ "PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx", "virtio3-rx" },
		{ "IR-IO-APIC-edge      i8042", "i8042" },
		{ "IO-APIC-level  uhci_hcd:usb2, eth1", "uhci_hcd:usb2, eth1" },
		{ "GICv3  27 Level     arch_timer", "arch_timer" },
		{ "GIC-0  56 Level     -fasteoi  mmc0", "mmc0" },
		{ "ARMCTRL-level  53 Edge      DMA IRQ", "DMA IRQ" },
		{ "MSI-EDGE  nvme0q1", "nvme0q1" },
		{ "xen-percpu    -virq      timer0", "timer0" },
		{ "xen-pirq    -msi-x     nvme0q1", "nvme0q1" },
		{ "IR-PCI-MSI 524288-edge", "" },
		{ "PCI-MSI  mlx5_async@pci:0002:00:00.0", "" },
		{ "IR-PCI-MSI 1-edge   eth0-edge", "eth0-edge" },
	};
	char text[256];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct interrupts *intr;

		snprintf(text, sizeof(text), "CPU0\n 7: 1   %s  \n",
			 cases[i].desc);
		assert_int_equal(parse_intr(text, &intr, NULL), 0);
		check_str(cases[i].desc, intr->rows[0].desc, cases[i].desc);
		check_str(cases[i].desc, intr->rows[0].name, cases[i].name);
		interrupts_free(intr);
	}
}

static void test_intr_embedded_nul(void **state)
{
	static const char text[] = "CPU0\n 1: 5 IO\0-APIC 1-edge x\n";
	struct interrupts *intr = NULL;
	unsigned int line = 0;
	FILE *f = mem_n(text, sizeof(text) - 1);

	(void)state;
	assert_int_equal(interrupts_parse(f, &intr, &line), -EINVAL);
	check_u64("NUL", line, 2);
	assert_null(intr);
	fclose(f);
}

/* A line of exactly LINE_LIMIT bytes is read; one byte more is refused. */
static void test_intr_line_limit(void **state)
{
	static const char head[] = "CPU0\n 1: 5 ";
	size_t n = sizeof(head) - 1 + LINE_LIMIT + 1 + 16;
	char *text = malloc(n);
	struct interrupts *intr;
	unsigned int line = 0;
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(text);
	/* line 2 is " 1: 5 " (6 bytes) + padding up to LINE_LIMIT bytes */
	len = sizeof(head) - 1;
	memcpy(text, head, len);
	memset(text + len, 'x', LINE_LIMIT - 6);
	len += LINE_LIMIT - 6;
	memcpy(text + len, "\n 2: 1 y\n", 9);
	f = mem_n(text, len + 9);
	assert_int_equal(interrupts_parse(f, &intr, &line), 0);
	fclose(f);
	check_u64("at the limit", strlen(interrupts_find(intr, 1)->desc),
		  LINE_LIMIT - 6);
	check_str("after the limit", interrupts_find(intr, 2)->desc, "y");
	interrupts_free(intr);

	/* one more byte on line 2 */
	len = sizeof(head) - 1;
	memset(text + len, 'x', LINE_LIMIT - 5);
	len += LINE_LIMIT - 5;
	memcpy(text + len, "\n 2: 1 y\n", 9);
	f = mem_n(text, len + 9);
	assert_int_equal(interrupts_parse(f, &intr, &line), -EINVAL);
	check_u64("over the limit", line, 2);
	fclose(f);
	free(text);
}

/* A read error is returned as is, with no line. */
static void test_intr_read_error(void **state)
{
	struct interrupts *intr = NULL;
	unsigned int line = 77;
	FILE *f = fopen("/", "r");	/* a directory: fread fails */

	(void)state;
	assert_non_null(f);
	assert_int_equal(interrupts_parse(f, &intr, &line), -EISDIR);
	check_u64("EISDIR", line, 77);
	assert_null(intr);
	fclose(f);
	assert_int_equal(interrupts_parse(NULL, &intr, NULL), -EINVAL);
	assert_null(interrupts_find(NULL, 1));
	interrupts_free(NULL);
}

/* The shapes docs/trust.md lists, one row each: what irqtune must parse
 * (or skip) in /proc/interrupts, whatever the kernel or architecture. */
/* Wide rows as the kernel prints them (" %10u" a count), mostly zeros, the
 * parser's fast path for runs of idle CPUs: every count comes back in its
 * column wherever it sits against the runs of sixteen, including a count
 * wider than its field, a zero glued to a digit ("05"), and rows that stop
 * early into their description. Checked against the counts written. */
static void test_intr_wide_rows(void **state)
{
	enum { CPUS = 70, ROWS = 300 };
	static uint64_t want[ROWS][CPUS];
	unsigned int stop[ROWS];
	size_t cap = (size_t)ROWS * (CPUS * 12 + 64) + CPUS * 8 + 64, len = 0;
	char *text = malloc(cap);
	struct interrupts *intr = NULL;
	unsigned int line = 0, seed = 12345;

	(void)state;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "     ");
	for (int c = 0; c < CPUS; c++)
		len += (size_t)snprintf(text + len, cap - len, "       CPU%d", c);
	text[len++] = '\n';
	for (unsigned int r = 0; r < ROWS; r++) {
		unsigned int glued = CPUS;

		stop[r] = CPUS;
		memset(want[r], 0, sizeof(want[r]));
		if (r < CPUS) {
			want[r][r] = r + 1;	/* one CPU: each column once */
		} else if (r < 2 * CPUS) {
			want[r][r - CPUS] = 12345678901ull;	/* wider than 10 */
		} else if (r < 2 * CPUS + 40) {
			/* Fewer counts than CPUs, ending on or near a run. */
			stop[r] = r - 2 * CPUS + 10;
			want[r][stop[r] - 1] = 7;
		} else if (r < 2 * CPUS + 60) {
			/* "...0" then a digit: one count "05", never a run. */
			glued = r - 2 * CPUS - 40 + 14;
		} else {
			for (int c = 0; c < CPUS; c++) {
				seed = seed * 1103515245u + 12345u;
				if ((seed >> 16) % 11 == 0)
					want[r][c] = (seed >> 8) % 100000;
			}
		}
		len += (size_t)snprintf(text + len, cap - len, "%4u:", r);
		for (unsigned int c = 0; c < stop[r]; c++) {
			if (c == glued) {
				/* Field c is "0" run into field c+1's "5": 05. */
				len += (size_t)snprintf(text + len, cap - len,
							"          05");
				want[r][c] = 5;
				c++;
				continue;
			}
			len += (size_t)snprintf(text + len, cap - len, " %10llu",
						(unsigned long long)want[r][c]);
		}
		len += (size_t)snprintf(text + len, cap - len,
					"  IR-PCI-MSIX-0000:01:00.0 %u-edge eth0-%u\n", r, r);
		assert_true(len < cap);
	}
	text[len] = '\0';
	assert_int_equal(parse_intr(text, &intr, &line), 0);
	assert_int_equal(intr->nr_rows, ROWS);
	for (unsigned int r = 0; r < ROWS; r++) {
		const struct irq_row *row = &intr->rows[r];
		uint64_t got[CPUS] = { 0 };

		assert_int_equal(row->irq, r);
		for (unsigned int k = 0; k < row->nr_counts; k++) {
			assert_true(row->counts[k].cpu < CPUS);
			got[row->counts[k].cpu] = row->counts[k].count;
		}
		for (unsigned int c = 0; c < CPUS; c++)
			if (got[c] != want[r][c])
				fail_msg("row %u cpu %u: %llu, wrote %llu", r, c,
					 (unsigned long long)got[c],
					 (unsigned long long)want[r][c]);
		assert_true(strncmp(row->desc, "IR-PCI-MSIX-0000:01:00.0 ", 25) == 0);
	}
	interrupts_free(intr);
	free(text);
}

static void test_intr_shapes(void **state)
{
	static const struct {
		const char *what, *text;
		unsigned int nr_rows, irq;
		uint64_t total;
		const char *desc, *name;
	} cases[] = {
		{ "offline CPUs missing from the header",
		  "      CPU0 CPU2 CPU3\n 24: 100 5 0 IR-PCI-MSIX-0000:01:00.0 0-edge eth0\n",
		  1, 24, 105, "IR-PCI-MSIX-0000:01:00.0 0-edge eth0", "eth0" },
		{ "single-count ERR, MIS and Err rows",
		  "  CPU0 CPU1\n  1: 1 2 IO-APIC 1-edge i8042\nERR:          0\n"
		  "MIS:          0\n Err:          3\n",
		  1, 1, 3, "IO-APIC 1-edge i8042", "i8042" },
		{ "a row with no counts (FIQ)",
		  "  CPU0 CPU1\n 17: 9 0 ARMCTRL-level 1 Edge 3f00b880.mailbox\n"
		  "FIQ:              usb_fiq\n",
		  1, 17, 9, "ARMCTRL-level 1 Edge 3f00b880.mailbox",
		  "3f00b880.mailbox" },
		{ "counts glued to the colon",
		  "  CPU0 CPU1\n10:3287008667 3310445093 GICv3  27 Level     arch_timer\n"
		  "IPI0:2768808080 2751447283       Rescheduling interrupts\n",
		  1, 10, 3287008667ull + 3310445093ull,
		  "GICv3  27 Level     arch_timer", "arch_timer" },
		{ "blank and all-space lines",
		  "\n   \n  CPU0\n\n  1: 5 IO-APIC 1-edge i8042\n  \t \n\n", 1, 1, 5,
		  "IO-APIC 1-edge i8042", "i8042" },
		{ "a row with no device name",
		  "  CPU0\n 30: 5 IR-PCI-MSI 524288-edge\n", 1, 30, 5,
		  "IR-PCI-MSI 524288-edge", "" },
		{ "a row with no chip column",
		  "  CPU0 CPU1\n 31: 7 1\n", 1, 31, 8, "", "" },
		{ "a row with nothing after the colon",
		  "  CPU0 CPU1\n 32:\n", 1, 32, 0, "", "" },
		{ "names with blanks and commas",
		  "  CPU0\n  9: 5 IO-APIC 9-fasteoi acpi, PCIe PME, pciehp\n", 1, 9, 5,
		  "IO-APIC 9-fasteoi acpi, PCIe PME, pciehp",
		  "acpi, PCIe PME, pciehp" },
		{ "a name that forges a line (newline in an action name)",
		  "  CPU0\n  5: 3 IO-APIC 5-edge evil\x1b[2J\nforged: row\n", 1, 5, 3,
		  "IO-APIC 5-edge evil\x1b[2J", "evil\x1b[2J" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct interrupts *intr = NULL;
		const struct irq_row *row;
		unsigned int line = 0;
		int r = parse_intr(cases[i].text, &intr, &line);

		if (r != 0)
			fail_msg("%s: r = %d at line %u", cases[i].what, r, line);
		check_invariants(cases[i].what, intr);
		check_u64(cases[i].what, intr->nr_rows, cases[i].nr_rows);
		row = interrupts_find(intr, cases[i].irq);
		if (!row)
			fail_msg("%s: no irq %u", cases[i].what, cases[i].irq);
		check_u64(cases[i].what, row->total, cases[i].total);
		check_str(cases[i].what, row->desc, cases[i].desc);
		check_str(cases[i].what, row->name, cases[i].name);
		interrupts_free(intr);
	}
}

/* ---- /proc/stat ---- */

struct stat_case {
	const char *file;
	unsigned int nr_cpus;	/* cpuN lines */
	unsigned int nr_ids;	/* highest N + 1 */
	uint64_t irq, softirq;	/* summed over the cpuN lines */
};

/* Counted with awk: cpuN lines, fields 7 and 8 of each (0 if missing). */
static const struct stat_case stat_cases[] = {
	{ "goprocinfo-x86.txt", 8, 8, 1ull, 51ull },
	{ "hwloc-128arm-2pa2n8cluster4co-proc-stat.txt",
	  128, 128, 117ull, 86ull },
	{ "hwloc-128ia64-17n4s2c-proc-stat.txt",
	  128, 128, 2312834ull, 11586058ull },
	{ "hwloc-16amd64-4n4c-cgroup-distance-merge-proc-stat.txt",
	  16, 16, 0ull, 2127ull },
	{ "hwloc-16amd64-8n2c-proc-stat.txt", 16, 16, 77ull, 434ull },
	{ "hwloc-16em64t-4s2c2t-proc-stat.txt", 16, 16, 3245242ull, 56284ull },
	{ "hwloc-20em64t-hybrid-1p6c2t+2ca4co1t-proc-stat.txt",
	  20, 20, 0ull, 73ull },
	{ "hwloc-20s390-2g6s4c-proc-stat.txt", 20, 20, 3ull, 29ull },
	{ "hwloc-256ppc-8n8s4t-proc-stat.txt", 256, 256, 11715ull, 46ull },
	{ "hwloc-2arm-2c-proc-stat.txt", 2, 2, 0ull, 14ull },
	{ "hwloc-2i386-2c-nohugepage-proc-stat.txt", 2, 2, 17ull, 63ull },
	{ "hwloc-2i386-2t-hugepagesizecount-proc-stat.txt",
	  2, 2, 0ull, 13960ull },
	{ "hwloc-2pa-pcidomain32bits-proc-stat.txt", 2, 2, 0ull, 170190ull },
	{ "hwloc-32amd64-4s2n4c-cgroup2-proc-stat.txt",
	  32, 32, 1429ull, 31101ull },
	{ "hwloc-32em64t-2n8c+dax+nvme+mic+dimms-proc-stat.txt",
	  16, 16, 5ull, 46968ull },
	{ "hwloc-32intel64-2p8co2t+8ve-proc-stat.txt",
	  32, 32, 0ull, 115821ull },
	{ "hwloc-40intel64-2g2n4c+pcilocality-proc-stat.txt",
	  40, 40, 2624ull, 2084180ull },
	{ "hwloc-48amd64-4pa2n6c-sparse-proc-stat.txt", 48, 48, 11ull, 147ull },
	{ "hwloc-64amd64-4s2n4ca2co-proc-stat.txt", 64, 64, 0ull, 32ull },
	{ "hwloc-8em64t-2s2ca2c-buggynuma-proc-stat.txt",
	  8, 8, 0ull, 20036ull },
	{ "hwloc-8em64t-2s2ca2c-proc-stat.txt", 8, 8, 870ull, 18975ull },
	{ "hwloc-8ia64-2s2c2t-proc-stat.txt", 8, 8, 1019ull, 4069ull },
	{ "hwloc-fakecpuid1f-64intel64-2p4d2n2c2t-proc-stat.txt",
	  64, 64, 0ull, 65ull },
	{ "hwloc-fakeheteromemtiers-proc-stat.txt", 6, 6, 0ull, 28ull },
	{ "hwloc-memorysidecaches-proc-stat.txt", 80, 80, 0ull, 460ull },
	{ "hwloc-nvidia-dgx-gb10-proc-stat.txt", 20, 20, 0ull, 2594ull },
	{ "hwloc-nvidiagpunumanodes-proc-stat.txt", 176, 176, 0ull, 109ull },
	{ "hwloc-offline-cpu0-node0-proc-stat.txt", 24, 24, 0ull, 12884ull },
	/* Alpha: a 65 KB intr line */
	{ "hwloc-removed-1alpha-proc-stat.txt", 1, 1, 27914ull, 82878ull },
	{ "hwloc-removed-24em64t-2n6c2t+2mic.olddriver-proc-stat.txt",
	  24, 24, 58ull, 3656ull },
	{ "hwloc-removed-28em64t-2s2n7c-buggycoresiblings-proc-stat.txt",
	  28, 28, 0ull, 84ull },
	{ "hwloc-removed-2s390-2c-proc-stat.txt", 2, 2, 21664ull, 37214ull },
	/* 32 CPUs with ids up to 62 */
	{ "hwloc-removed-32ppc-4n4c2c-proc-stat.txt",
	  32, 63, 1017234ull, 197659ull },
	{ "hwloc-removed-4em64t-2c2t-ignore-reorder-proc-stat.txt",
	  4, 4, 0ull, 333ull },
	{ "hwloc-removed-4ppc-4c-proc-stat.txt", 4, 4, 2037299ull, 3401408ull },
	{ "hwloc-removed-4qs22-2s2t-proc-stat.txt", 4, 4, 5595ull, 3798ull },
	{ "hwloc-removed-8em64t-4c2t-proc-stat.txt", 8, 8, 532ull, 2164ull },
	{ "hwloc-x86+linux-5intel64-hybrid-lakefield-proc-stat.txt",
	  5, 5, 0ull, 3704ull },
	{ "hwloc-x86+linux-64amd64-4p2n4ca2co-proc-stat.txt",
	  64, 64, 0ull, 194ull },
	{ "node_exporter-8cpu.txt", 8, 8, 1ull, 3940ull },
	{ "pcp-qa-bigsys-root-hpbl920gen8.txt", 480, 480, 1ull, 952ull },
	{ "pcp-qa-sysdev-root-001.txt", 4, 4, 5574ull, 9013ull },
	{ "pcp-qa-sysdev-root-002.txt", 8, 8, 9027207ull, 1431540ull },
	{ "pcp-qa-sysfs-cpufreq-scaling-001.txt", 8, 8, 4842409ull, 339811ull },
	{ "pcp-qa-sysfs-numa-001.txt", 8, 8, 25255ull, 11588ull },
	/* a 130 KB intr line */
	{ "procfs-fixture-8cpu.txt", 8, 8, 1ull, 3940ull },
	{ "sysstat-test-root1.txt", 9, 9, 27887ull, 25848ull },
	{ "sysstat-test-root2.txt", 8, 8, 27707ull, 25866ull },
	/* cpu6 line missing */
	{ "sysstat-test-root3.txt", 7, 8, 24228ull, 24792ull },
	{ "sysstat-test-root4.txt", 8, 9, 24590ull, 24905ull },
	{ "sysstat-test-root5.txt", 9, 9, 28242ull, 26102ull },
	/* no steal, guest, guest_nice */
	{ "sysstat-test-root6.txt", 10, 10, 27923ull, 25850ull },
	{ "sysstat-test-root6b.txt", 9, 9, 28242ull, 26102ull },
	{ "sysstat-test-root7.txt", 10, 10, 28287ull, 25916ull },
};


static void test_stat_real_all(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(stat_cases); i++) {
		const struct stat_case *c = &stat_cases[i];
		struct cpu_stats st = { 0 };
		uint64_t irq = 0, softirq = 0;
		unsigned int n = 0, j;

		load_stat(c->file, &st);
		check_u64(c->file, st.nr_ids, c->nr_ids);
		for (j = 0; j < st.nr_ids; j++) {
			if (st.cpu[j].seen & ~1u)
				fail_msg("%s: cpu%u seen %#x", c->file, j,
					 st.cpu[j].seen);
			n += st.cpu[j].seen & 1;
			irq += st.cpu[j].irq;
			softirq += st.cpu[j].softirq;
		}
		check_u64(c->file, n, c->nr_cpus);
		check_u64(c->file, irq, c->irq);
		check_u64(c->file, softirq, c->softirq);
		cpu_stats_release(&st);
	}
}

static void test_stat_real_shapes(void **state)
{
	struct cpu_stats st = { 0 };

	(void)state;
	/* cpu6 missing: the slot exists, unseen, zero */
	load_stat("sysstat-test-root3.txt", &st);
	check_u64("root3 cpu6", st.cpu[6].seen, 0);
	check_u64("root3 cpu6", st.cpu[6].irq, 0);
	check_u64("root3 cpu7", st.cpu[7].seen, 1);
	check_u64("root3 cpu7", st.cpu[7].irq, 2107);
	check_u64("root3 cpu7", st.cpu[7].softirq, 981);
	cpu_stats_release(&st);

	/* "cpu9 200 2000 200 2000 200 200 20": no steal column */
	load_stat("sysstat-test-root6.txt", &st);
	check_u64("root6 cpu9", st.cpu[9].irq, 200);
	check_u64("root6 cpu9", st.cpu[9].softirq, 20);
	cpu_stats_release(&st);

	/* ids 0..62 with holes: "cpu62" is there, "cpu1" is not */
	load_stat("hwloc-removed-32ppc-4n4c2c-proc-stat.txt", &st);
	check_u64("ppc cpu1", st.cpu[1].seen, 0);
	check_u64("ppc cpu62", st.cpu[62].seen, 1);
	cpu_stats_release(&st);
}

static void test_stat_strings(void **state)
{
	struct cpu_stats st = { 0 };
	unsigned int line = 0;

	(void)state;
	/* 2.4 kernels: four values, no irq or softirq */
	assert_int_equal(parse_stat("cpu  4 3 2 1\ncpu0 4 3 2 1\n"
				    "cpu3 1 2 3 4 5 6 7 8 9 10 11 12\n"
				    "cpufreq 1 2\npage 5 6\n", &st, &line), 0);
	check_u64("old", st.nr_ids, 4);
	check_u64("old cpu0", st.cpu[0].seen, 1);
	check_u64("old cpu0", st.cpu[0].irq, 0);
	check_u64("old cpu0", st.cpu[0].softirq, 0);
	check_u64("new cpu3", st.cpu[3].irq, 6);
	check_u64("new cpu3", st.cpu[3].softirq, 7);
	check_u64("gap cpu1", st.cpu[1].seen, 0);

	/* A second parse replaces what the first said, keeps softirqs. */
	st.cpu[3].seen |= 2;
	st.cpu[3].softirqs[SOFTIRQ_NET_RX] = 42;
	assert_int_equal(parse_stat("cpu0 1 1 1 1 1 9 8\n", &st, &line), 0);
	check_u64("again", st.nr_ids, 4);
	check_u64("again cpu0", st.cpu[0].irq, 9);
	check_u64("again cpu3", st.cpu[3].seen, 2);
	check_u64("again cpu3", st.cpu[3].irq, 0);
	check_u64("again cpu3", st.cpu[3].softirqs[SOFTIRQ_NET_RX], 42);
	cpu_stats_release(&st);
	cpu_stats_release(&st);		/* twice is fine */
	cpu_stats_release(NULL);
}

static const struct bad_case stat_bad[] = {
	{ "three values", "cpu  1 2 3 4\ncpu0 1 2 3\n", 2 },
	{ "garbage value", "cpu0 1 2 x 4 5 6 7\n", 1 },
	{ "negative value", "cpu0 1 2 -3 4 5 6 7\n", 1 },
	{ "value above u64", "cpu0 1 2 3 4 5 18446744073709551616 7\n", 1 },
	{ "duplicate cpu", "cpu0 1 2 3 4\ncpu1 1 2 3 4\ncpu0 1 2 3 4\n", 3 },
	{ "cpu id at CPU_ID_LIMIT", "cpu16384 1 2 3 4\n", 1 },
	{ "cpu id glued", "cpu1x 1 2 3 4\n", 1 },
};

static void test_stat_bad_inputs(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(stat_bad); i++) {
		struct cpu_stats st = { 0 };
		unsigned int line = 999;
		int r;

		/* what a failed parse must leave untouched */
		assert_int_equal(parse_stat("cpu0 1 1 1 1 1 5 6\n", &st, NULL), 0);
		r = parse_stat(stat_bad[i].text, &st, &line);
		if (r != -EINVAL)
			fail_msg("%s: r = %d, want -EINVAL", stat_bad[i].what, r);
		check_u64(stat_bad[i].what, line, stat_bad[i].line);
		check_u64(stat_bad[i].what, st.nr_ids, 1);
		check_u64(stat_bad[i].what, st.cpu[0].irq, 5);
		check_u64(stat_bad[i].what, st.cpu[0].seen, 1);
		cpu_stats_release(&st);
	}
}

/* An intr line past the line limit is skipped whole; a cpu line that long
 * is an error. */
static void test_stat_huge_lines(void **state)
{
	static const char head[] = "cpu0 1 2 3 4 5 6 7\nintr 1";
	static const char tail[] = "\ncpu1 1 2 3 4 5 60 70\n";
	size_t pad = LINE_LIMIT + 1000, len;
	char *text = malloc(sizeof(head) + pad + sizeof(tail));
	struct cpu_stats st = { 0 };
	unsigned int line = 0, i;
	FILE *f;

	(void)state;
	assert_non_null(text);
	len = sizeof(head) - 1;
	memcpy(text, head, len);
	for (i = 0; i < pad / 2; i++, len += 2)
		memcpy(text + len, " 0", 2);
	memcpy(text + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	f = mem_n(text, len);
	assert_int_equal(stat_parse(f, &st, &line), 0);
	fclose(f);
	check_u64("after intr", st.nr_ids, 2);
	check_u64("after intr", st.cpu[1].irq, 60);
	check_u64("after intr", st.cpu[1].softirq, 70);
	cpu_stats_release(&st);

	/* the same padding on a cpu line */
	memcpy(text, "cpu0 1 2 3 4 5 6 7\ncpu2 1", sizeof(head) - 1);
	f = mem_n(text, len);
	assert_int_equal(stat_parse(f, &st, &line), -EINVAL);
	check_u64("huge cpu line", line, 2);
	check_u64("huge cpu line", st.nr_ids, 0);
	fclose(f);
	free(text);
}

/* /proc/stat as old and new kernels print it: without steal and guest
 * columns, with all of them, and with an intr line of 100 KB (a machine
 * with nr_irqs in the tens of thousands) between the cpu lines. */
static void test_stat_shapes(void **state)
{
	static const char head[] =
		"cpu  9 9 9 9 9 9 9\n"
		"cpu0 1 2 3 4 5 6 7\n"			/* 2.6.0: no steal */
		"cpu1 1 2 3 4 5 16 17 8\n"		/* 2.6.11: steal */
		"intr 123";
	static const char tail[] =
		"\ncpu2 1 2 3 4 5 26 27 8 9 10\n"	/* 2.6.33: guest_nice */
		"ctxt 5\nsoftirq 1 2 3\n";
	size_t pad = 100 * 1024, len = 0, i;
	char *text = malloc(sizeof(head) + pad + sizeof(tail));
	struct cpu_stats st = { 0 };
	unsigned int line = 0;
	FILE *f;

	(void)state;
	assert_non_null(text);
	memcpy(text, head, sizeof(head) - 1);
	len = sizeof(head) - 1;
	for (i = 0; i < pad / 2; i++, len += 2)
		memcpy(text + len, " 7", 2);
	memcpy(text + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	f = mem_n(text, len);
	assert_int_equal(stat_parse(f, &st, &line), 0);
	fclose(f);
	check_u64("100 KB intr", st.nr_ids, 3);
	check_u64("no steal", st.cpu[0].irq, 6);
	check_u64("no steal", st.cpu[0].softirq, 7);
	check_u64("steal", st.cpu[1].irq, 16);
	check_u64("guest_nice", st.cpu[2].softirq, 27);
	cpu_stats_release(&st);
	free(text);
}

/* ---- /proc/softirqs ---- */

struct softirqs_case {
	const char *file;
	unsigned int nr_cols, last_cpu;
	uint64_t net_rx, block;		/* summed over the CPUs */
	uint64_t rcu_last;		/* RCU of the last CPU */
};

static const struct softirqs_case softirqs_cases[] = {
	{ "node_exporter-2cpu.txt", 2, 1, 147574ull, 47891ull, 146631ull },
	{ "nto-mustgather-bare-metal-master.internal.txt",
	  112, 111, 376429830ull, 8438863ull, 7154398ull },
	{ "nto-mustgather-bare-metal-worker1.internal.txt",
	  80, 79, 9733647ull, 168ull, 0ull },
	{ "nto-mustgather-bare-metal-worker2.internal.txt",
	  32, 31, 433150ull, 160ull, 23369ull },
	/* 4 columns while /proc/interrupts has 2: CPU2-3 offline */
	{ "nto-mustgather-e2e-ci-ln-t0prq3t-72292-h4x2n-worker-a-wqnqt.txt",
	  4, 3, 28321ull, 18691ull, 2756ull },
	{ "nto-mustgather-sno-sno.txt", 12, 11, 443270ull, 294ull, 56637ull },
	{ "pcp-qa-1152cpu-x86_64.txt", 1152, 1151, 6892ull, 15129ull, 2706ull },
	{ "pcp-qa-softirqs-1cpu-i686.txt",
	  1, 0, 2315415ull, 649022ull, 9479358ull },
	{ "pcp-qa-softirqs-8cpu-x86_64.txt",
	  8, 7, 5317658ull, 2034372ull, 1790731ull },
	{ "procfs-fixture-2cpu.txt", 2, 1, 84613ull, 437670ull, 532783ull },
	{ "sysstat-test-root1.txt", 9, 8, 52652ull, 101642ull, 1ull },
	{ "sysstat-test-root2.txt", 9, 8, 52689ull, 101746ull, 1ull },
	/* 9 columns while root3's /proc/interrupts has 7 */
	{ "sysstat-test-root3.txt", 9, 8, 52715ull, 102062ull, 1ull },
	{ "sysstat-test-root4.txt", 9, 8, 52783ull, 102172ull, 1ull },
	{ "sysstat-test-root5.txt", 9, 8, 52841ull, 102366ull, 19ull },
	{ "sysstat-test-root6.txt", 8, 7, 52838ull, 101802ull, 105556ull },
	{ "sysstat-test-root7.txt", 8, 7, 52917ull, 102195ull, 105818ull },
};

static void test_softirqs_real_all(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(softirqs_cases); i++) {
		const struct softirqs_case *c = &softirqs_cases[i];
		struct cpu_stats st = { 0 };
		uint64_t net_rx = 0, block = 0;
		unsigned int n = 0, j;

		load_softirqs(c->file, &st);
		check_u64(c->file, st.nr_ids, c->last_cpu + 1);
		for (j = 0; j < st.nr_ids; j++) {
			n += (st.cpu[j].seen & 2) != 0;
			net_rx += st.cpu[j].softirqs[SOFTIRQ_NET_RX];
			block += st.cpu[j].softirqs[SOFTIRQ_BLOCK];
		}
		check_u64(c->file, n, c->nr_cols);
		check_u64(c->file, net_rx, c->net_rx);
		check_u64(c->file, block, c->block);
		check_u64(c->file, st.cpu[c->last_cpu].softirqs[SOFTIRQ_RCU],
			  c->rcu_last);
		cpu_stats_release(&st);
	}
}

/* sysstat root3: /proc/stat lacks cpu6, /proc/softirqs has it. */
static void test_softirqs_stat_together(void **state)
{
	struct cpu_stats st = { 0 };

	(void)state;
	load_stat("sysstat-test-root3.txt", &st);
	load_softirqs("sysstat-test-root3.txt", &st);
	check_u64("root3", st.nr_ids, 9);
	check_u64("root3 cpu5", st.cpu[5].seen, 3);
	check_u64("root3 cpu6", st.cpu[6].seen, 2);
	check_u64("root3 cpu6", st.cpu[6].softirqs[SOFTIRQ_TASKLET], 80);
	check_u64("root3 cpu8", st.cpu[8].seen, 2);
	check_u64("root3 cpu8", st.cpu[8].softirqs[SOFTIRQ_TIMER], 123456);
	check_u64("root3 cpu7", st.cpu[7].irq, 2107);
	cpu_stats_release(&st);
}

static void test_softirqs_strings(void **state)
{
	struct cpu_stats st = { 0 };
	unsigned int line = 0;

	(void)state;
	assert_int_equal(parse_softirqs(
		"   CPU0       CPU2   \n"
		"          HI:          7          1\n"
		"BLOCK_IOPOLL:          3          4\n"
		" NEW_SOFTIRQ: 1 2 3 4 5 x\n"	/* unknown: ignored whole */
		"      NET_RX:  12345678901234\n"	/* short: CPU2 is 0 */
		"\n"
		"         RCU:5 6\n", &st, &line), 0);
	check_u64("str", st.nr_ids, 3);
	check_u64("str cpu1", st.cpu[1].seen, 0);
	check_u64("str cpu2", st.cpu[2].seen, 2);
	check_u64("str HI", st.cpu[2].softirqs[SOFTIRQ_HI], 1);
	check_u64("str IRQ_POLL", st.cpu[0].softirqs[SOFTIRQ_IRQ_POLL], 3);
	check_u64("str IRQ_POLL", st.cpu[2].softirqs[SOFTIRQ_IRQ_POLL], 4);
	check_u64("str NET_RX", st.cpu[0].softirqs[SOFTIRQ_NET_RX],
		  12345678901234ull);
	check_u64("str NET_RX", st.cpu[2].softirqs[SOFTIRQ_NET_RX], 0);
	check_u64("str RCU", st.cpu[2].softirqs[SOFTIRQ_RCU], 6);
	check_u64("str TIMER", st.cpu[0].softirqs[SOFTIRQ_TIMER], 0);

	/* A re-parse with fewer CPUs forgets the old counts of the others. */
	assert_int_equal(parse_softirqs("CPU0\nHI: 9\n", &st, &line), 0);
	check_u64("again", st.nr_ids, 3);
	check_u64("again cpu0", st.cpu[0].softirqs[SOFTIRQ_HI], 9);
	check_u64("again cpu0", st.cpu[0].softirqs[SOFTIRQ_NET_RX], 0);
	check_u64("again cpu2", st.cpu[2].seen, 0);
	check_u64("again cpu2", st.cpu[2].softirqs[SOFTIRQ_RCU], 0);
	cpu_stats_release(&st);
}

static const struct bad_case softirqs_bad[] = {
	{ "extra count", "CPU0 CPU1\nHI: 1 2 3\n", 2 },
	{ "garbage count", "CPU0 CPU1\nHI: 1 2x\n", 2 },
	{ "duplicate name", "CPU0\nHI: 1\nTIMER: 2\nHI: 3\n", 4 },
	{ "IRQ_POLL twice", "CPU0\nIRQ_POLL: 1\nBLOCK_IOPOLL: 2\n", 3 },
	{ "no key", "CPU0\nHI 1\n", 2 },
	{ "bad header", "CPU0 CPU1 foo\nHI: 1 2\n", 1 },
	{ "no header", "", 1 },
};

static void test_softirqs_bad_inputs(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(softirqs_bad); i++) {
		struct cpu_stats st = { 0 };
		unsigned int line = 999;
		int r;

		assert_int_equal(parse_softirqs("CPU0\nNET_RX: 5\n", &st, NULL), 0);
		r = parse_softirqs(softirqs_bad[i].text, &st, &line);
		if (r != -EINVAL)
			fail_msg("%s: r = %d, want -EINVAL", softirqs_bad[i].what,
				 r);
		check_u64(softirqs_bad[i].what, line, softirqs_bad[i].line);
		check_u64(softirqs_bad[i].what, st.nr_ids, 1);
		check_u64(softirqs_bad[i].what,
			  st.cpu[0].softirqs[SOFTIRQ_NET_RX], 5);
		cpu_stats_release(&st);
	}
}

/* ---- snapshots ---- */

/* snapshot_take() reads fixed paths. While a test points fake_proc at a
 * table, fopen() of a path in it opens the table's file instead, or fails
 * with ENOENT when that is NULL; every other fopen() is the real one. */
struct fake_file {
	const char *path;
	const char *target;
};

static const struct fake_file *fake_proc;

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real_fopen)(const char *, const char *);
	const struct fake_file *ff;

	if (!real_fopen)
		real_fopen = (FILE *(*)(const char *, const char *))
			     dlsym(RTLD_NEXT, "fopen");
	for (ff = fake_proc; ff && ff->path; ff++) {
		if (strcmp(path, ff->path) != 0)
			continue;
		if (!ff->target) {
			errno = ENOENT;
			return NULL;
		}
		path = ff->target;
		break;
	}
	return real_fopen(path, mode);
}

static void test_snapshot_take_files(void **state)
{
	char intr[4096], stat[4096], softirqs[4096];
	struct fake_file files[4] = {
		{ "/proc/interrupts", intr },
		{ "/proc/stat", stat },
		{ "/proc/softirqs", softirqs },
		{ NULL, NULL },
	};
	struct snapshot s, untouched = { .when = -1 };
	const char *path;
	unsigned int line, i, n;

	(void)state;
	snprintf(intr, sizeof(intr), "%s/interrupts/%s", realdata(),
		 "sysstat-test-root3-cpu6-missing-cols-CPU0-5+CPU7.txt");
	snprintf(stat, sizeof(stat), "%s/stat/sysstat-test-root3.txt",
		 realdata());
	snprintf(softirqs, sizeof(softirqs),
		 "%s/softirqs/sysstat-test-root3.txt", realdata());
	fake_proc = files;

	assert_int_equal(snapshot_take(&s, NULL, NULL), 0);
	check_u64("root3", s.intr->nr_cols, 7);
	check_u64("root3", s.intr->nr_rows, 21);
	check_u64("root3", s.stats.nr_ids, 9);
	check_u64("root3 cpu6", s.stats.cpu[6].seen, 2);
	check_u64("root3 cpu7", s.stats.cpu[7].seen, 3);
	assert_true(s.when > 0);
	snapshot_release(&s);

	/* No /proc/softirqs (before 2.6.31): tolerated, no softirq data. */
	files[2].target = NULL;
	assert_int_equal(snapshot_take(&s, NULL, NULL), 0);
	for (i = 0, n = 0; i < s.stats.nr_ids; i++)
		n += (s.stats.cpu[i].seen & 2) != 0;
	check_u64("no softirqs", n, 0);
	check_u64("no softirqs", s.stats.cpu[7].irq, 2107);
	snapshot_release(&s);

	/* An unreadable /proc/softirqs is no missing one. */
	files[2].target = "/dev/null";
	s = untouched;
	path = NULL;
	line = 99;
	assert_int_equal(snapshot_take(&s, &path, &line), -EINVAL);
	check_str("empty softirqs", path, "/proc/softirqs");
	check_u64("empty softirqs", line, 1);
	assert_null(s.intr);
	check_near("empty softirqs", s.when, -1);

	/* No /proc/stat, no /proc/interrupts: errors, line 0. */
	files[1].target = NULL;
	line = 99;
	assert_int_equal(snapshot_take(&s, &path, &line), -ENOENT);
	check_str("no stat", path, "/proc/stat");
	check_u64("no stat", line, 0);
	files[0].target = NULL;
	line = 99;
	assert_int_equal(snapshot_take(&s, &path, &line), -ENOENT);
	check_str("no interrupts", path, "/proc/interrupts");
	check_u64("no interrupts", line, 0);

	/* A malformed /proc/interrupts names its line. */
	files[0].target = softirqs;	/* "HI:" is no IRQ row, header ok */
	files[1].target = stat;
	files[2].target = softirqs;
	line = 99;
	assert_int_equal(snapshot_take(&s, &path, &line), 0);
	check_u64("softirqs as interrupts", s.intr->nr_rows, 0);
	snapshot_release(&s);
	files[0].target = stat;		/* "cpu  97026 ...": no CPUn header */
	assert_int_equal(snapshot_take(&s, &path, &line), -EINVAL);
	check_str("stat as interrupts", path, "/proc/interrupts");
	check_u64("stat as interrupts", line, 1);
}

static int fake_proc_off(void **state)
{
	(void)state;
	fake_proc = NULL;
	return 0;
}

/* ---- counts without /proc/interrupts ---- */

/* One IRQ of a 4-CPU machine at the two snapshots. */
struct cnt_irq {
	unsigned int irq;
	const char *action;		/* NULL: no handler */
	unsigned int a[4], b[4];	/* per-CPU counts */
	const char *eff_a, *eff_b;	/* effective_affinity_list */
};

static void cnt_put(struct capture *cap, const char *tag, const char *file,
		    const char *text)
{
	char name[CAPTURE_NAME_MAX];

	snprintf(name, sizeof(name), "%s/proc/%s", tag, file);
	assert_int_equal(capture_put(cap, name, text, strlen(text), 0444), 0);
}

static void cnt_dir(struct capture *cap, const char *tag, const char *dir)
{
	char name[CAPTURE_NAME_MAX];

	snprintf(name, sizeof(name), "%s/proc/%s", tag, dir);
	assert_int_equal(capture_put_dir(cap, name), 0);
}

/* Both ways of the snapshot @n (1: a, 2: b) of @v into @cap. */
static void cnt_render(struct capture *cap, const struct cnt_irq *v, unsigned int nv,
		       int n)
{
	char tag[16], *text = malloc(1 << 16), buf[128];
	size_t len = 0;
	uint64_t totals[64] = { 0 };

	assert_non_null(text);
	snprintf(tag, sizeof(tag), "snapshot-%d", n);
	len += (size_t)sprintf(text + len, "           CPU0       CPU1       CPU2       CPU3\n");
	for (unsigned int i = 0; i < nv; i++) {
		const unsigned int *c = n == 1 ? v[i].a : v[i].b;
		uint64_t sum = (uint64_t)c[0] + c[1] + c[2] + c[3];

		totals[v[i].irq] = sum;
		/* Linux's show_interrupts(): a handler or counts. */
		if (v[i].action || sum) {
			len += (size_t)sprintf(text + len, "%3u: %10u %10u %10u %10u  IR-PCI-MSI %u-edge %s\n",
					       v[i].irq, c[0], c[1], c[2], c[3], v[i].irq,
					       v[i].action ? v[i].action : "");
		}
		snprintf(buf, sizeof(buf), "irq/%u", v[i].irq);
		cnt_dir(cap, tag, buf);
		if (v[i].action) {
			snprintf(buf, sizeof(buf), "irq/%u/%s", v[i].irq, v[i].action);
			cnt_dir(cap, tag, buf);
		}
		snprintf(buf, sizeof(buf), "irq/%u/effective_affinity_list", v[i].irq);
		cnt_put(cap, tag, buf, n == 1 ? v[i].eff_a : v[i].eff_b);
	}
	text[len] = '\0';
	cnt_put(cap, tag, "interrupts", text);
	len = (size_t)sprintf(text, "cpu  1 2 3 4 5 6 7 8 9 10\n");
	for (int c = 0; c < 4; c++)
		len += (size_t)sprintf(text + len, "cpu%d 1 2 3 4 5 %d %d 8 9 10\n", c, 6 + n, 7 + n);
	len += (size_t)sprintf(text + len, "intr 12345");
	for (unsigned int k = 0; k < 40; k++)
		len += (size_t)sprintf(text + len, " %llu", (unsigned long long)totals[k]);
	sprintf(text + len, "\nctxt 1\n");
	cnt_put(cap, tag, "stat", text);
	free(text);
}

/* sample_counts() of the two snapshots of @v read one way. */
static int cnt_counts(const struct cnt_irq *v, unsigned int nv, bool stat,
		      struct irq_activity **ret, unsigned int *ret_n, unsigned int *ret_line)
{
	struct capture *cap = capture_new();
	struct source src = { .mode = SOURCE_REPLAY };
	struct snapshot a, b;
	unsigned int line = 0;
	int r;

	assert_non_null(cap);
	src.cap = cap;
	cnt_render(cap, v, nv, 1);
	cnt_render(cap, v, nv, 2);
	r = stat ? snapshot_take_stat(&a, &src, "snapshot-1", NULL, NULL, &line) :
		   snapshot_take_from(&a, &src, "snapshot-1", NULL, &line);
	assert_int_equal(r, 0);
	r = stat ? snapshot_take_stat(&b, &src, "snapshot-2", &a, NULL, &line) :
		   snapshot_take_from(&b, &src, "snapshot-2", NULL, &line);
	if (r == 0) {
		b.when = a.when + 1.0;
		assert_int_equal(sample_counts(&a, &b, ret), 0);
		*ret_n = b.intr->nr_rows;
		snapshot_release(&b);
	}
	if (ret_line)
		*ret_line = line;
	snapshot_release(&a);
	capture_free(cap);
	return r;
}

static void test_counts_stat_path(void **state)
{
	/* Exact: every IRQ that fired stayed on one CPU. Some fired on other
	 * CPUs before (their totals include that), one has a handler and no
	 * counts, one no handler and no counts (not a row), one counts and no
	 * handler (a row), one spreads over CPUs but is quiet in the window. */
	static const struct cnt_irq exact[] = {
		{ 0, "timer", { 50, 0, 0, 0 }, { 50, 0, 0, 0 }, "0", "0" },
		{ 3, "eth0-0", { 10, 20, 0, 0 }, { 10, 95, 0, 0 }, "1", "1" },
		{ 4, "eth0-1", { 7, 0, 0, 4000000000u }, { 7, 0, 0, 4000100000u }, "3", "3" },
		{ 9, "idle", { 0 }, { 0 }, "2", "2" },
		{ 11, NULL, { 0 }, { 0 }, "2", "2" },
		{ 12, NULL, { 0, 0, 5, 0 }, { 0, 0, 9, 0 }, "2", "2" },
		{ 17, "spread", { 1, 2, 3, 4 }, { 1, 2, 3, 4 }, "0-3", "0-3" },
		{ 30, "nvme0q1", { 0 }, { 0, 0, 0, 77 }, "3", "3" },
	};
	/* Not exact, each alone: moved in the window, spread and firing,
	 * counts that fell (the number freed and given again). */
	static const struct cnt_irq moved[] = {
		{ 3, "eth0-0", { 10, 20, 0, 0 }, { 10, 25, 5, 0 }, "1", "2" },
	};
	static const struct cnt_irq spread[] = {
		{ 17, "spread", { 1, 2, 3, 4 }, { 2, 2, 3, 9 }, "0-3", "0-3" },
	};
	static const struct cnt_irq fell[] = {
		{ 0, "timer", { 50, 0, 0, 0 }, { 50, 0, 0, 0 }, "0", "0" },
		{ 21, "ahci", { 0, 900, 0, 0 }, { 0, 3, 0, 0 }, "1", "1" },
	};
	struct irq_activity *full = NULL, *fast = NULL;
	unsigned int nf = 0, ns = 0, line = 0;

	(void)state;
	assert_int_equal(cnt_counts(exact, ARRAY_SIZE(exact), false, &full, &nf, NULL), 0);
	assert_int_equal(cnt_counts(exact, ARRAY_SIZE(exact), true, &fast, &ns, NULL), 0);
	assert_int_equal(nf, 7);	/* irq 11 is no row of /proc/interrupts */
	assert_int_equal(ns, nf);
	for (unsigned int i = 0; i < nf; i++) {
		check_u64("irq", fast[i].irq, full[i].irq);
		check_u64("delta", fast[i].delta, full[i].delta);
		check_u64("top", (uint64_t)(fast[i].top_cpu + 1), (uint64_t)(full[i].top_cpu + 1));
	}
	check_u64("eth0-0", full[1].delta, 75);
	check_u64("nvme", full[6].delta, 77);
	free(full);
	free(fast);

	assert_int_equal(cnt_counts(moved, ARRAY_SIZE(moved), true, &fast, &ns, &line), -EDOM);
	check_u64("moved", line, 3);
	assert_int_equal(cnt_counts(spread, ARRAY_SIZE(spread), true, &fast, &ns, &line), -EDOM);
	check_u64("spread", line, 17);
	assert_int_equal(cnt_counts(fell, ARRAY_SIZE(fell), true, &fast, &ns, &line), -EDOM);
	check_u64("fell", line, 21);
}

/* ---- snapshots of this machine ---- */

static void test_snapshot_live(void **state)
{
	struct snapshot a, b;
	struct irq_activity *act = NULL;
	const char *path = NULL;
	unsigned int line = 0, i;
	int r;

	(void)state;
	r = snapshot_take(&a, &path, &line);
	if (r < 0)
		fail_msg("snapshot_take: %s: %s (line %u)", path, strerror(-r),
			 line);
	assert_true(a.when > 0);
	assert_true(a.intr->nr_cols >= 1);
	/* Every CPU with a /proc/interrupts column is online, so it has a
	 * /proc/stat line and a /proc/softirqs column. */
	for (i = 0; i < a.intr->nr_cols; i++) {
		unsigned int c = a.intr->col_cpu[i];

		assert_true(c < a.stats.nr_ids);
		check_u64("live", a.stats.cpu[c].seen & 1, 1);
		if (access("/proc/softirqs", R_OK) == 0)
			check_u64("live", a.stats.cpu[c].seen & 2, 2);
	}
	assert_int_equal(snapshot_take(&b, NULL, NULL), 0);
	assert_true(b.when >= a.when);
	b.when = a.when + 1.0;	/* the two reads may share a clock tick */
	assert_int_equal(sample_counts(&a, &b, &act), 0);
	for (i = 0; i < b.intr->nr_rows; i++) {
		check_u64("live", act[i].irq, b.intr->rows[i].irq);
		/* counts only: the load is a load source's to fill */
		assert_true(act[i].load == 0 && act[i].hard == 0 && act[i].soft == 0);
		assert_true((act[i].delta == 0) == (act[i].top_cpu == -1));
		check_near("live", act[i].rate, (double)act[i].delta);
	}
	free(act);
	snapshot_release(&a);
	snapshot_release(&b);
	snapshot_release(&b);	/* twice is fine */
	snapshot_release(NULL);
}

/* ---- /proc/irq/N values: read_small_file(), parse_int(), parse_u64() ----
 *
 * device.c reads node, smp_affinity_list and effective_affinity_list of
 * every IRQ, and msi_irqs entries and "irq" from sysfs, through these. */

static void test_parse_numbers(void **state)
{
	static const struct {
		const char *s;
		uint64_t max;
		int r;
		uint64_t v;
	} u[] = {
		{ "0", UINT64_MAX, 0, 0 },
		{ " 7 \n", 100, 0, 7 },			/* as sysfs prints it */
		{ "\t42\t", 100, 0, 42 },
		{ "18446744073709551615", UINT64_MAX, 0, UINT64_MAX },
		{ "18446744073709551616", UINT64_MAX, -ERANGE, 0 },
		{ "99999999999999999999999", UINT64_MAX, -ERANGE, 0 },
		{ "16777216", IRQ_NUM_LIMIT, 0, IRQ_NUM_LIMIT },
		{ "16777217", IRQ_NUM_LIMIT, -ERANGE, 0 },
		{ "", 100, -EINVAL, 0 },
		{ " \n", 100, -EINVAL, 0 },
		{ "-1", 100, -EINVAL, 0 },
		{ "+1", 100, -EINVAL, 0 },
		{ "1x", 100, -EINVAL, 0 },
		{ "0x10", 100, -EINVAL, 0 },
		{ "1 2", 100, -EINVAL, 0 },
		{ "1.5", 100, -EINVAL, 0 },
	};
	static const struct {
		const char *s;
		int min, max, r, v;
	} n[] = {
		{ "-1", -1, 65535, 0, -1 },		/* numa_node: no node */
		{ "0\n", -1, 65535, 0, 0 },
		{ "65535", -1, 65535, 0, 65535 },
		{ "65536", -1, 65535, -ERANGE, 0 },
		{ "-2", -1, 65535, -ERANGE, 0 },
		{ "-0", -1, 65535, 0, 0 },
		{ "2147483647", INT_MIN, INT_MAX, 0, INT_MAX },
		{ "2147483648", INT_MIN, INT_MAX, -ERANGE, 0 },
		{ "-2147483648", INT_MIN, INT_MAX, 0, INT_MIN },
		{ "-2147483649", INT_MIN, INT_MAX, -ERANGE, 0 },
		{ "- 5", INT_MIN, INT_MAX, -EINVAL, 0 },
		{ "--5", INT_MIN, INT_MAX, -EINVAL, 0 },
		{ "-", INT_MIN, INT_MAX, -EINVAL, 0 },
		{ "", INT_MIN, INT_MAX, -EINVAL, 0 },
		{ "5-", INT_MIN, INT_MAX, -EINVAL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(u); i++) {
		uint64_t v = 12345;
		int r = parse_u64(u[i].s, u[i].max, &v);

		if (r != u[i].r)
			fail_msg("parse_u64(\"%s\") = %d, want %d", u[i].s, r, u[i].r);
		check_u64(u[i].s, v, r == 0 ? u[i].v : 12345);	/* set on success only */
	}
	for (i = 0; i < ARRAY_SIZE(n); i++) {
		int v = 12345;
		int r = parse_int(n[i].s, n[i].min, n[i].max, &v);

		if (r != n[i].r)
			fail_msg("parse_int(\"%s\") = %d, want %d", n[i].s, r, n[i].r);
		if (v != (r == 0 ? n[i].v : 12345))
			fail_msg("parse_int(\"%s\") set %d", n[i].s, v);
	}
}

static void test_read_small_file(void **state)
{
	char dir[] = "/tmp/irqtune-fileio.XXXXXX", path[64], buf[8];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/node", dir);

	f = fopen(path, "we");
	assert_non_null(f);
	fputs("1234567", f);		/* 7 bytes: fits with the NUL */
	fclose(f);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(read_small_file(path, buf, sizeof(buf)), 7);
	check_str("fits", buf, "1234567");

	f = fopen(path, "we");
	fputs("12345678", f);		/* 8 bytes: no room for the NUL */
	fclose(f);
	assert_int_equal(read_small_file(path, buf, sizeof(buf)), -EFBIG);

	f = fopen(path, "we");
	fputs("0-3\n \n", f);		/* trailing whitespace trimmed */
	fclose(f);
	assert_int_equal(read_small_file(path, buf, sizeof(buf)), 3);
	check_str("trimmed", buf, "0-3");

	f = fopen(path, "we");
	fclose(f);
	assert_int_equal(read_small_file(path, buf, sizeof(buf)), 0);
	check_str("empty", buf, "");

	assert_int_equal(read_small_file(path, buf, 0), -EINVAL);
	assert_int_equal(read_small_file(dir, buf, sizeof(buf)), -EISDIR);
	unlink(path);
	assert_int_equal(read_small_file(path, buf, sizeof(buf)), -ENOENT);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intr_real_all),
		cmocka_unit_test(test_intr_real_table_covers_dir),
		cmocka_unit_test(test_intr_real_offline_columns),
		cmocka_unit_test(test_intr_real_graviton_ipi),
		cmocka_unit_test(test_intr_real_blank_lines),
		cmocka_unit_test(test_intr_real_rpi_fiq),
		cmocka_unit_test(test_intr_real_s390),
		cmocka_unit_test(test_intr_real_1152cpu),
		cmocka_unit_test(test_intr_real_names),
		cmocka_unit_test(test_intr_bad_inputs),
		cmocka_unit_test(test_intr_odd_but_good),
		cmocka_unit_test(test_intr_wide_rows),
		cmocka_unit_test(test_intr_shapes),
		cmocka_unit_test(test_intr_column_mismatch),
		cmocka_unit_test(test_intr_name_formats),
		cmocka_unit_test(test_intr_embedded_nul),
		cmocka_unit_test(test_intr_line_limit),
		cmocka_unit_test(test_intr_read_error),
		cmocka_unit_test(test_stat_real_all),
		cmocka_unit_test(test_stat_real_shapes),
		cmocka_unit_test(test_stat_strings),
		cmocka_unit_test(test_stat_bad_inputs),
		cmocka_unit_test(test_stat_huge_lines),
		cmocka_unit_test(test_stat_shapes),
		cmocka_unit_test(test_softirqs_real_all),
		cmocka_unit_test(test_softirqs_stat_together),
		cmocka_unit_test(test_softirqs_strings),
		cmocka_unit_test(test_softirqs_bad_inputs),
		cmocka_unit_test_teardown(test_snapshot_take_files, fake_proc_off),
		cmocka_unit_test(test_snapshot_live),
		cmocka_unit_test(test_counts_stat_path),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_read_small_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
