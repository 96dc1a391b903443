# SPDX-License-Identifier: GPL-2.0-or-later
# mk/bench-speed.mk - speed and size: "make bench-speed" runs
# tests/bench/bench-speed.sh, which builds simulated machines of 64 to 8192
# CPUs and 1000 to 16000 IRQs (tests/bench/machines/) and measures one
# irqtune run on each against the floor (reading what irqtune reads) and
# irqbalance --oneshot; docs/performance.md has the figures and how to read
# them.
#
#   make bench-speed                        every size
#   make bench-speed BENCH_SIZES="64 1024"  some (the names' CPU counts)
#   make bench-speed BENCH_KEEP=1           keep the trees for the next run
#   make bench-speed-clean                  drop kept machine trees
#
# Trees are built under BENCH_CACHE (default /dev/shm/irqtune-bench; the
# 8192-CPU one takes ~6 minutes to build and 5 GB) and removed when the run
# ends unless BENCH_KEEP=1. make check needs none of this. Helpers are
# built into tests/out/bench, never beside the project's objects.

BENCH_OUT   = tests/out/bench
BENCH_TOOLS = $(BENCH_OUT)/benchshim.so $(BENCH_OUT)/benchrun \
              $(BENCH_OUT)/floorcat $(BENCH_OUT)/parsebench

$(BENCH_OUT)/benchshim.so: tests/bench/benchshim.c | .deps.stamp
	@mkdir -p $(BENCH_OUT)
	$(CC) $(ALL_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $< -ldl -lpthread

$(BENCH_OUT)/benchrun: tests/bench/benchrun.c | .deps.stamp
	@mkdir -p $(BENCH_OUT)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

$(BENCH_OUT)/floorcat: tests/bench/floorcat.c | .deps.stamp
	@mkdir -p $(BENCH_OUT)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# The parser alone: the project's own procfs.o, as irqtune links it.
$(BENCH_OUT)/parsebench: tests/bench/parsebench.c $(LIB) | .deps.stamp
	@mkdir -p $(BENCH_OUT)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# tests/e2e/e2e-counts.sh plays its machines through benchshim.so: built
# before tests/run, so that no suite runs make beside another.
check-tests: $(BENCH_OUT)/benchshim.so

bench-speed: irqtune tests/shims/fakekernel.so tests/sim/irqsim $(BENCH_TOOLS)
	BENCH_SIZES="$(BENCH_SIZES)" BENCH_KEEP="$(BENCH_KEEP)" tests/bench/bench-speed.sh

bench-speed-clean:
	rm -rf $(or $(BENCH_CACHE),/dev/shm/irqtune-bench)

.PHONY: bench-speed bench-speed-clean
