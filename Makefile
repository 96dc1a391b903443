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
PKGS      = libudev argtable2 inih json-c libbpf libarchive libmnl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libarchive is not linked: capture.c opens it for --capture and --replay
# only (what it links cost every run 1.2 ms of CPU). dlopen(3) is libc's
# from glibc 2.34; -ldl is for older ones.
LINK_PKGS  = $(filter-out libarchive,$(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null || echo -ludev -largtable2 -linih -ljson-c -lbpf -lelf -lz -lmnl) -ldl
# Every build product but the program itself goes under build/, in the
# tree's shape (build/lib/cpuset.o from lib/cpuset.c), so that the tree
# shows sources only. The program stays ./irqtune: the README and the man
# page run it there.
B         = build
# Headers are included by name ("cpuset.h") from the folder of each layer;
# -iquote, so that they come before the libraries' own (json-c's pkg-config
# directory has a json.h too) and never stand in for a <system> header.
SRC_DIRS  = lib capture input load history plan netpath report run
INCLUDES  = -iquote . $(SRC_DIRS:%=-iquote %) -iquote $(B)
HEADERS   = $(wildcard *.h $(SRC_DIRS:%=%/*.h))
ALL_CFLAGS = -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 $(WERROR) \
             -D_GNU_SOURCE -DIRQTUNE_VERSION='"$(VERSION)"' $(INCLUDES) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
LDLIBS   += $(PKG_LIBS) -lm

# The program's modules, everything but main: the three of the design card
# at the top and every .c of the layers' folders (a module moved between
# folders needs only SRC_DIRS to change). They are kept in archives that the
# program, the unit tests, the fuzz targets and the benchmarks link against,
# so each pulls in only the objects it uses and no link list is kept by hand.
LIB_SRCS  = topology.c sample.c apply.c $(sort $(wildcard $(SRC_DIRS:%=%/*.c)))
# The sources that embed the BPF skeletons (generated with clang and
# bpftool) go into an archive of their own, so that a test that never
# reaches them builds on a machine without those tools.
BPF_LIB_SRCS := $(shell grep -l '^\#include "irqload_.*\.lskel\.h"' $(LIB_SRCS) /dev/null)
LIB_OBJS  = $(LIB_SRCS:%.c=$(B)/%.o)
BPF_LIB_OBJS = $(BPF_LIB_SRCS:%.c=$(B)/%.o)
LIB       = $(B)/libirqtune.a
LIB_BPF   = $(B)/libirqtune-bpf.a
# Linked as a group: the two archives call into each other.
LINK_LIB  = -Wl,--start-group $(LIB) $(LIB_BPF) -Wl,--end-group
# Every tests/unit/test_NAME.c is the unit test NAME; the other .c files
# there are what some tests share (the reference planner), in an archive.
UNIT      = $(patsubst tests/unit/test_%.c,%,$(wildcard tests/unit/test_*.c))
TESTS     = $(UNIT:%=$(B)/tests/test_%)
UNIT_HELP_OBJS = $(patsubst %.c,$(B)/%.o,$(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c)))
UNIT_HELP = $(B)/tests/libunit.a

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
# Debian 12 or 13 machine.
deps:
	tools/deps build check
	@touch .deps.stamp

irqtune: $(B)/irqtune.o $(LIB) $(LIB_BPF)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LINK_LIB) $(LDLIBS)

# Made anew each time, not updated: ar names a member by its file name
# only, so an object left over from a module that moved away would stay.
$(LIB): $(filter-out $(BPF_LIB_OBJS),$(LIB_OBJS))
$(LIB_BPF): $(BPF_LIB_OBJS)
$(LIB) $(LIB_BPF) $(UNIT_HELP):
	@mkdir -p $(@D)
	rm -f $@ && $(AR) qcs $@ $^

# -MMD -MP: each object's header dependencies, written beside it as it is
# compiled, so a changed header rebuilds exactly what includes it.
DEPFLAGS  = -MMD -MP

$(B)/%.o: %.c | .deps.stamp
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The kernel program (load/bpf/irqload.bpf.c), built once per way of attaching
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
	     $(if $(BPF_MULTIARCH),-I/usr/include/$(BPF_MULTIARCH)) -Iload/bpf
BPF_MODES  = ctx btf raw
BPF_SKELS  = $(BPF_MODES:%=$(B)/irqload_%.lskel.h)

$(B)/irqload_%.bpf.o: load/bpf/irqload.bpf.c load/bpf/irqload.h load/bpf/acct.h | .deps.stamp
	@mkdir -p $(@D)
	$(BPF_CLANG) $(BPF_CFLAGS) -DIRQLOAD_$(shell echo $* | tr a-z A-Z) -c -o $@ $<

$(B)/irqload_%.lskel.h: $(B)/irqload_%.bpf.o
	$(BPFTOOL) gen skeleton -L $< name irqload_$* >$@.tmp && mv -f $@.tmp $@

$(BPF_LIB_OBJS): $(BPF_SKELS)

# The configuration file's path is compiled in.
$(B)/irqtune.o: ALL_CFLAGS += -D_PATH_CONFIG='"$(SYSCONFDIR)/irqtune.conf"'

$(B)/tests/unit/%.o: tests/unit/%.c | .deps.stamp
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(shell pkg-config --cflags cmocka) -c -o $@ $<

$(UNIT_HELP): $(UNIT_HELP_OBJS)

# Which tests reach the BPF archive: the names (file names without folder
# and suffix) of every file that includes, directly or through other
# headers, a header of a BPF_LIB_SRCS module, to a fixed point. A test
# whose name is not among them calls nothing there (it could not without
# its header), so it is built without clang and bpftool.
space    := $(subst ,, )
INCLUDE_SCAN = $(LIB_SRCS) $(HEADERS) $(wildcard tests/unit/*.c tests/unit/*.h)
includers = $(basename $(notdir $(shell grep -lE '^\#include "($(subst $(space),|,$(strip $(1))))\.h"' $(INCLUDE_SCAN) /dev/null)))
include_closure = $(if $(filter-out $(1),$(call includers,$(1))),$(call include_closure,$(sort $(1) $(call includers,$(1)))),$(1))
BPF_USERS := $(if $(BPF_LIB_SRCS),$(call include_closure,$(basename $(notdir $(BPF_LIB_SRCS)))))
BPF_TESTS  = $(filter $(BPF_USERS:%=$(B)/tests/%),$(TESTS))

$(TESTS): $(B)/tests/test_%: $(B)/tests/unit/test_%.o $(UNIT_HELP) $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_HELP) \
		$(if $(filter $@,$(BPF_TESTS)),$(LINK_LIB),$(LIB)) $(LDLIBS) $(shell pkg-config --libs cmocka)
$(BPF_TESTS): $(LIB_BPF)

# make test: every unit test; make test T=cpuset (or T="cpuset plan"):
# those only, each built first. The output is cmocka's own. The parser and
# topology tests read real captures, from where tests/run looks for them.
TEST_REALDATA = $(or $(IRQTUNE_REALDATA),$(abspath ..)/shared/realdata)
test: $(if $(T),$(filter $(T:%=$(B)/tests/test_%),$(TESTS)),$(TESTS))
	@for t in $(filter-out $(UNIT),$(T)); do echo "make test: no unit test $$t (tests/unit/test_$$t.c)" >&2; done; \
	[ -z "$(filter-out $(UNIT),$(T))" ] || exit 1; \
	for t in $^; do echo "== $$t"; IRQTUNE_REALDATA=$(TEST_REALDATA) $$t || exit 1; done

# The simulated machines: irqsim builds and scores them, fakekernel.so plays
# their kernel under LD_PRELOAD (see tests/sim/README.md).
SIM_MODEL = tests/sim/model.c tests/sim/app.c tests/sim/model.h
SIM_BINS  = tests/sim/irqsim tests/sim/udevls tests/sim/fkprobe

tests/sim/irqsim: tests/sim/irqsim.c tests/sim/build.c tests/sim/build.h $(SIM_MODEL) | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.c,$^) -lm

tests/sim/udevls: tests/sim/udevls.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -ludev

tests/sim/fkprobe: tests/sim/fkprobe.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

tests/shims/fakekernel.so: tests/shims/fakekernel.c $(SIM_MODEL) | .deps.stamp
	$(CC) $(ALL_CFLAGS) -iquote tests -fPIC -shared -fvisibility=hidden -o $@ tests/shims/fakekernel.c $(filter %.c,$(SIM_MODEL)) -ldl -lm

# Helpers of the admin tests (tests/e2e/e2e-admin.sh): a stand-in syslog daemon;
# of the live tests (tests/live/live-bpf.sh): the BPF syscall failing on demand.
TEST_HELPERS = tests/shims/logsink tests/shims/bpffault.so

tests/shims/logsink: tests/shims/logsink.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

tests/shims/bpffault.so: tests/shims/bpffault.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) -fPIC -shared -o $@ $< -ldl

# A real balancing pass on this machine (needs root).
run: deps
	$(MAKE) --no-print-directory all
	./irqtune

# mk/*.mk files add whole extra passes (e.g. under sanitizers) to CHECK_EXTRA.
# CHECK_JOBS: how many jobs the builds of make check and tests/run take at
# once (the passes' sub-makes share make's job slots); 2 fits the 2-core
# machines it is timed on.
CHECK_EXTRA ?=
CHECK_JOBS  ?= 2
check: deps
	$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-tests

check-tests: all $(TESTS) $(TEST_HELPERS) tests/shims/fakekernel.so $(SIM_BINS)
	TESTS_JOBS=$(CHECK_JOBS) tests/run
	@for t in $(CHECK_EXTRA); do $(MAKE) --no-print-directory $$t || exit 1; done

clean:
	rm -f irqtune $(TEST_HELPERS) $(SIM_BINS) tests/shims/fakekernel.so .deps.stamp
	rm -rf $(B) tests/out

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

-include $(shell find $(B) -name '*.d' 2>/dev/null)

.PHONY: all deps run check check-tests test clean install uninstall
# Kept, though only a pattern rule names them. Not every target: a missing
# object must be rebuilt even when the program is newer than its source
# (as after a module moves to its folder).
.SECONDARY: $(BPF_SKELS:.lskel.h=.bpf.o)
