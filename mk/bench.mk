# SPDX-License-Identifier: GPL-2.0-or-later
# Placement quality: "make bench" runs tests/bench/quality.sh, which balances
# every simulated machine with irqtune (and irqbalance --oneshot, where
# installed) and prints the figures of docs/quality.md; tests/e2e/e2e-quality.sh
# (run by make check) asserts them.

# irqsim's oracle and rule figures (tests/sim/oracle.c): the rule for
# tests/sim/irqsim compiles every .c prerequisite.
tests/sim/irqsim: tests/sim/oracle.c tests/sim/oracle.h

# Turns poll(2) timeouts into sleeps the fake kernel sees, for irqbalance's
# glib main loop (tests/sim/polltime.c; the .so sits beside fakekernel.so).
tests/sim/polltime.so: tests/sim/polltime.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

# irqtune's planner on the model's true loads (tests/sim/planprobe.c): tells
# planner error from estimate error.
tests/sim/planprobe: tests/sim/planprobe.c $(SIM_MODEL) $(LIB) | .deps.stamp
	$(CC) $(ALL_CFLAGS) -Itests/sim $(LDFLAGS) -o $@ tests/sim/planprobe.c $(filter %.c,$(SIM_MODEL)) $(LIB) $(LDLIBS)

bench: all tests/shims/fakekernel.so tests/sim/irqsim tests/sim/polltime.so tests/sim/planprobe
	tests/bench/quality.sh

check-tests: tests/sim/polltime.so tests/sim/planprobe

clean: clean-quality
clean-quality:
	rm -f tests/sim/polltime.so tests/sim/planprobe

.PHONY: bench clean-quality
