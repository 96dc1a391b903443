# irqtune - build, test and install. Plain make; `make check` runs every test.

VERSION   = 0.1.0
PREFIX   ?= /usr/local
SBINDIR  ?= $(PREFIX)/sbin
MANDIR   ?= $(PREFIX)/share/man
UDEVRULESDIR ?= /lib/udev/rules.d

CC       ?= cc
CFLAGS   ?= -O2 -g
WERROR   ?=
# CI builds with warnings as errors; so does anyone who sets CI=true.
ifeq ($(CI),true)
WERROR    = -Werror
endif
PKGS      = libudev argtable2
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -ludev -largtable2)
ALL_CFLAGS = -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 $(WERROR) \
             -D_GNU_SOURCE -DIRQTUNE_VERSION='"$(VERSION)"' $(PKG_CFLAGS) $(CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm

# The pure and parsing modules; everything but main.
LIB_OBJS  = fileio.o cpuset.o topology.o sample.o device.o plan.o apply.o report.o lock.o
TESTS     = tests/test_cpuset tests/test_topology tests/test_sample \
            tests/test_plan

all: deps irqtune

# Installs missing Debian packages (needs root and apt) then remembers it.
deps: .deps.stamp
.deps.stamp: tools/deps
	tools/deps
	@touch $@

irqtune: irqtune.o $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

%.o: %.c $(wildcard *.h) | .deps.stamp
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

tests/%.o: tests/%.c $(wildcard *.h tests/*.h) | .deps.stamp
	$(CC) $(ALL_CFLAGS) -I. $(shell pkg-config --cflags cmocka) -c -o $@ $<

tests/test_%: tests/test_%.o $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs cmocka)

# The simulated machines: irqsim builds and scores them, fakekernel.so plays
# their kernel under LD_PRELOAD (see tests/sim/README.md).
SIM_MODEL = tests/sim/model.c tests/sim/model.h
SIM_BINS  = tests/sim/irqsim tests/sim/udevls tests/sim/fkprobe

tests/sim/irqsim: tests/sim/irqsim.c tests/sim/build.c tests/sim/build.h $(SIM_MODEL) | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) -lm

tests/sim/udevls: tests/sim/udevls.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -ludev

tests/sim/fkprobe: tests/sim/fkprobe.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

tests/fakekernel.so: tests/fakekernel.c $(SIM_MODEL) | .deps.stamp
	$(CC) $(ALL_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ tests/fakekernel.c tests/sim/model.c -ldl -lm

# A real balancing pass on this machine (needs root).
run: all
	./irqtune

# mk/*.mk files add whole extra passes (e.g. under sanitizers) to CHECK_EXTRA.
CHECK_EXTRA ?=
check: all $(TESTS) tests/fakekernel.so $(SIM_BINS)
	tests/run
	@for t in $(CHECK_EXTRA); do $(MAKE) --no-print-directory $$t || exit 1; done

clean:
	rm -f irqtune *.o tests/*.o $(TESTS) $(SIM_BINS) tests/fakekernel.so .deps.stamp
	rm -rf tests/out

install: irqtune
	install -D -m 0755 irqtune $(DESTDIR)$(SBINDIR)/irqtune
	install -D -m 0644 man/irqtune.8 $(DESTDIR)$(MANDIR)/man8/irqtune.8
	install -D -m 0644 udev/90-irqtune.rules $(DESTDIR)$(UDEVRULESDIR)/90-irqtune.rules

# Further targets (benchmarks, fuzzing, sanitizer runs), one file each.
-include mk/*.mk

.PHONY: all deps run check clean install
.SECONDARY:
