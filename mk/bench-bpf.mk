# SPDX-License-Identifier: GPL-2.0-or-later
# mk/bench-bpf.mk - what the bpf load source costs here (needs root):
#
#   make bench-bpf    load/attach CPU, per-event program time under a disk
#                     load (added cost per hard IRQ; per context switch
#                     with the irq threads' sched_switch program, and
#                     with it counting pinned application threads too;
#                     the probe cost a run takes out), map memory, and a
#                     whole dry run with each source; the figures of
#                     docs/performance.md
#
# Leaves nothing loaded: the programs and the run-time statistics end with
# the benchmark's process. Not part of make check.

BENCH_BPF_OUT = tests/out/bench-bpf

$(BENCH_BPF_OUT)/bpfbench: tests/bench/bpfbench.c $(LIB) $(LIB_BPF) | .deps.stamp
	@mkdir -p $(BENCH_BPF_OUT)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LINK_LIB) $(LDLIBS)

bench-bpf: all $(BENCH_BPF_OUT)/bpfbench
	@echo "== the program alone"
	@$(BENCH_BPF_OUT)/bpfbench $(CURDIR)/$(BENCH_BPF_OUT)
	@echo "== whole dry runs, window 0.1 s: CPU per run, mean of 20 (the window itself is a sleep)"
	@for s in proc bpf; do \
		/usr/bin/time -f "%U %S" sh -c "for i in \$$(seq 20); do ./irqtune -n -q -w 0.1 --load-source=$$s; done" 2>&1 | \
			awk -v s=$$s '{ printf "  --load-source=%s: %.1f ms CPU (%.1f user, %.1f system)\n", s, ($$1 + $$2) * 50, $$1 * 50, $$2 * 50 }'; \
	done

.PHONY: bench-bpf
