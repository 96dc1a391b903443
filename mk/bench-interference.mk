# SPDX-License-Identifier: GPL-2.0-or-later
# mk/bench-interference.mk - what IRQs cost a pinned application here
# (issue 31), as root on a real machine:
#
#   make bench-interference   a CPU-bound thread pinned to one CPU under a
#                             real disk and network load, its lost time
#                             (its CPU's hard-irq and softirq time, its own
#                             schedstat wait and run time, its work rate)
#                             with the IRQs where irqbalance --oneshot puts
#                             them, where irqtune's plan without the
#                             application (app-weight = 0) puts them, and
#                             where irqtune puts them
#
# It changes the machine's IRQ affinities and restores every one on exit,
# even when interrupted (tests/bench/interference.sh). Not part of make
# check. BENCH_PHASE, BENCH_ROUNDS, BENCH_CPU and the rest: see the script.

bench-interference: all tests/vm/loadgen
	tests/bench/interference.sh

.PHONY: bench-interference
