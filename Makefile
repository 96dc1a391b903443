# SPDX-License-Identifier: GPL-2.0-or-later
# irqtune - build, test and install. Plain make; `make check` runs every test.

VERSION   = 0.1.0
PREFIX   ?= /usr/local
SBINDIR  ?= $(PREFIX)/sbin
MANDIR   ?= $(PREFIX)/share/man
UDEVRULESDIR ?= /lib/udev/rules.d
# /etc whatever PREFIX is: cron, ifupdown and NetworkManager look only there.
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= /lib/systemd/system

CC       ?= cc
CFLAGS   ?= -O2 -g
WERROR   ?=
# CI builds with warnings as errors; so does anyone who sets CI=true.
ifeq ($(CI),true)
WERROR    = -Werror
endif
PKGS      = libudev argtable2 inih json-c libbpf libarchive
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libarchive is not linked: capture.c opens it for --capture and --replay
# only (what it links cost every run 1.2 ms of CPU). dlopen(3) is libc's
# from glibc 2.34; -ldl is for older ones.
LINK_PKGS  = $(filter-out libarchive,$(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null || echo -ludev -largtable2 -linih -ljson-c -lbpf -lelf -lz) -ldl
ALL_CFLAGS = -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 $(WERROR) \
             -D_GNU_SOURCE -DIRQTUNE_VERSION='"$(VERSION)"' $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm

# The pure and parsing modules; everything but main.
LIB_OBJS  = fileio.o capture.o source.o replay.o cpuset.o topology.o sample.o procfs.o estimate.o measure.o bpfload.o irqthread.o \
            loadsrc.o costs.o state.o history.o devfit.o device.o plan.o plan_index.o plan_improve.o apply.o report.o lock.o config.o policy.o \
            log.o json.o metrics.o compat.o strutil.o netpath.o netpathio.o netfollow.o vectors.o
TESTS     = tests/test_cpuset tests/test_topology tests/test_sample tests/test_estimate \
            tests/test_measure tests/test_costs tests/test_state tests/test_history tests/test_devfit tests/test_plan \
            tests/test_config tests/test_compat tests/test_capture tests/test_irqthread \
            tests/test_report tests/test_replay tests/test_window tests/test_strutil tests/test_netpath \
            tests/test_vectors

all: irqtune

# Plain make builds and installs nothing: a missing build package is named
# (tools/deps -n) and the build stops. NO_DEPS=1 skips even that: a Debian
# package build has its Build-Depends instead.
.deps.stamp: tools/deps
	$(if $(NO_DEPS),@true,tools/deps -n build)
	@touch $@

# make deps installs every package the build and the tests need (as root,
# with apt-get; irqbalance with its daemon disabled and masked). make run
# and make check start with it, so that each does all set-up on a fresh
# Debian 12 machine.
deps:
	tools/deps build check
	@touch .deps.stamp

irqtune: irqtune.o $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# -MMD -MP: each object's header dependencies, written beside it as it is
# compiled, so a changed header rebuilds exactly what includes it.
DEPFLAGS  = -MMD -MP

%.o: %.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The kernel program (bpf/irqload.bpf.c), built once per way of attaching
# it (IRQLOAD_CTX, _BTF, _RAW): for the BPF target with BTF (-g), so its
# field accesses are relocated against the running kernel (CO-RE), then
# embedded as light skeletons, whose loader does that relocation in the
# kernel. Never built with the host's CFLAGS: sanitizers and -O0 mean
# nothing to the BPF verifier.
BPF_CLANG ?= clang
BPFTOOL   ?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)
BPF_ARCH  := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
		-e 's/ppc64le/powerpc/' -e 's/s390x/s390/' -e 's/riscv64/riscv/')
BPF_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS = -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall $(WERROR) \
	     $(if $(BPF_MULTIARCH),-I/usr/include/$(BPF_MULTIARCH)) -Ibpf
BPF_MODES  = ctx btf raw
BPF_SKELS  = $(BPF_MODES:%=irqload_%.lskel.h)

irqload_%.bpf.o: bpf/irqload.bpf.c bpf/irqload.h bpf/acct.h | .deps.stamp
	$(BPF_CLANG) $(BPF_CFLAGS) -DIRQLOAD_$(shell echo $* | tr a-z A-Z) -c -o $@ $<

irqload_%.lskel.h: irqload_%.bpf.o
	$(BPFTOOL) gen skeleton -L $< name irqload_$* >$@.tmp && mv -f $@.tmp $@

bpfload.o: $(BPF_SKELS)

# The configuration file's path is compiled in.
irqtune.o: ALL_CFLAGS += -D_PATH_CONFIG='"$(SYSCONFDIR)/irqtune.conf"'

tests/%.o: tests/%.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -I. $(shell pkg-config --cflags cmocka) -c -o $@ $<

tests/test_%: tests/test_%.o $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs cmocka)

# The planner's tests compare it with the planner it replaced.
tests/test_plan: tests/plan_ref.o

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

# Helpers of the admin tests (tests/e2e-admin.sh): a stand-in syslog daemon;
# of the live tests (tests/live-bpf.sh): the BPF syscall failing on demand.
TEST_HELPERS = tests/logsink tests/bpffault.so

tests/logsink: tests/logsink.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

tests/bpffault.so: tests/bpffault.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

# A real balancing pass on this machine (needs root).
run: deps
	$(MAKE) --no-print-directory all
	./irqtune

# mk/*.mk files add whole extra passes (e.g. under sanitizers) to CHECK_EXTRA.
CHECK_EXTRA ?=
check: deps
	$(MAKE) --no-print-directory check-tests

check-tests: all $(TESTS) $(TEST_HELPERS) tests/fakekernel.so $(SIM_BINS)
	tests/run
	@for t in $(CHECK_EXTRA); do $(MAKE) --no-print-directory $$t || exit 1; done

clean:
	rm -f irqtune *.o tests/*.o $(TESTS) $(TEST_HELPERS) $(SIM_BINS) tests/fakekernel.so .deps.stamp \
		irqload_*.lskel.h irqload_*.lskel.h.tmp *.d tests/*.d
	rm -rf tests/out

# Files that name the installed binary are made from NAME.in at install
# time, so they always match this PREFIX: $(call fill_in,SRC,DEST,MODE).
fill_in = sed -e 's|@SBINDIR@|$(SBINDIR)|g' $(1) >$(2).tmp && chmod $(3) $(2).tmp && mv -f $(2).tmp $(2)

install: irqtune
	install -D -m 0755 irqtune $(DESTDIR)$(SBINDIR)/irqtune
	install -D -m 0644 man/irqtune.8 $(DESTDIR)$(MANDIR)/man8/irqtune.8
	install -D -m 0644 man/irqtune.conf.5 $(DESTDIR)$(MANDIR)/man5/irqtune.conf.5
	install -D -m 0644 udev/90-irqtune.rules $(DESTDIR)$(UDEVRULESDIR)/90-irqtune.rules
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSCONFDIR)/cron.d \
		$(DESTDIR)$(SYSCONFDIR)/network/if-up.d \
		$(DESTDIR)$(SYSCONFDIR)/NetworkManager/dispatcher.d
	$(call fill_in,systemd/irqtune.service.in,$(DESTDIR)$(SYSTEMDUNITDIR)/irqtune.service,0644)
	install -m 0644 systemd/irqtune.timer $(DESTDIR)$(SYSTEMDUNITDIR)/irqtune.timer
	$(call fill_in,cron/irqtune.in,$(DESTDIR)$(SYSCONFDIR)/cron.d/irqtune,0644)
	$(call fill_in,hooks/ifupdown.in,$(DESTDIR)$(SYSCONFDIR)/network/if-up.d/irqtune,0755)
	$(call fill_in,hooks/networkmanager.in,$(DESTDIR)$(SYSCONFDIR)/NetworkManager/dispatcher.d/90-irqtune,0755)
	@# The site's own file is never overwritten.
	[ -e $(DESTDIR)$(SYSCONFDIR)/irqtune.conf ] || \
		install -m 0644 etc/irqtune.conf $(DESTDIR)$(SYSCONFDIR)/irqtune.conf

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/irqtune $(DESTDIR)$(MANDIR)/man8/irqtune.8 \
		$(DESTDIR)$(MANDIR)/man5/irqtune.conf.5 \
		$(DESTDIR)$(UDEVRULESDIR)/90-irqtune.rules \
		$(DESTDIR)$(SYSTEMDUNITDIR)/irqtune.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/irqtune.timer \
		$(DESTDIR)$(SYSCONFDIR)/cron.d/irqtune \
		$(DESTDIR)$(SYSCONFDIR)/network/if-up.d/irqtune \
		$(DESTDIR)$(SYSCONFDIR)/NetworkManager/dispatcher.d/90-irqtune
	@echo "left $(DESTDIR)$(SYSCONFDIR)/irqtune.conf, the site's configuration"

# Further targets (benchmarks, fuzzing, sanitizer runs), one file each.
-include mk/*.mk

-include $(wildcard *.d tests/*.d)

.PHONY: all deps run check check-tests clean install uninstall
.SECONDARY:
