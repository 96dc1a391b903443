# SPDX-License-Identifier: GPL-2.0-or-later
# mk/fuzz.mk - fuzzing every parser (tests/fuzz/README.md).
#
#   make fuzz                 each libFuzzer target for FUZZ_SECONDS (clang)
#   make fuzz FUZZ_TARGETS=stat FUZZ_SECONDS=600
#   make fuzz-regress         replay seeds and past crashes, any compiler
#   make fuzz-coverage        which lines of the parsers the corpora reach
#
# Builds go to tests/out/fuzz, never over the normal build's objects. The
# corpus a run grows is kept in tests/out/fuzz/corpus/TARGET; a crash is
# left as tests/out/fuzz/crash-* and fails the run: turn it into a cmocka
# regression test and a file under tests/fuzz/regress/TARGET/.

FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_OUT      = tests/out/fuzz
FUZZ_REALDATA ?= $(or $(IRQTUNE_REALDATA),$(abspath ..)/shared/realdata)
# The config and udev property parsers join when their module exists.
FUZZ_CONFIG  := $(and $(wildcard input/config.c),$(wildcard plan/policy.c),$(wildcard tests/fuzz/fuzz_config.c),config)
FUZZ_TARGETS ?= interrupts stat softirqs cpuset procirq estimate topology costs state packstate $(FUZZ_CONFIG) compat capture kubelet netlink
# sample.c and procfs.c read through source.c, which keeps and serves capture
# members.
FUZZ_LIBSRC   = lib/fileio.c lib/strutil.c lib/cpuset.c sample.c input/procfs.c load/estimate.c load/devfit.c capture/source.c capture/capture.c
FUZZ_LIBS_ALL = $(shell pkg-config --libs libarchive 2>/dev/null || echo -larchive)
# Per target: more sources and libraries.
FUZZ_SRC_topology = topology.c
FUZZ_SRC_costs    = load/costs.c load/measure.c
FUZZ_SRC_state    = history/state.c
FUZZ_SRC_packstate = history/packstate.c plan/pack.c topology.c
FUZZ_SRC_config  = input/config.c plan/policy.c
FUZZ_SRC_compat  = input/compat.c
FUZZ_SRC_kubelet = input/kubelet.c
# --replay's reader and every parser a replay runs on a capture's members.
# replay.c parses the kept configuration; report.c names the planner's
# reasons (plan.c).
FUZZ_SRC_capture = run/replay.c topology.c input/device.c load/measure.c input/compat.c report/report.c load/costs.c \
		   input/config.c input/vectors.c plan/plan.c plan/plan_index.c plan/plan_improve.c
FUZZ_LIBS_capture = $(shell pkg-config --libs libudev inih 2>/dev/null || echo -ludev -linih)
FUZZ_LIBS_config = $(shell pkg-config --libs inih 2>/dev/null || echo -linih)
FUZZ_LIBS_kubelet = $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
# netdev netlink's replies (netpathio.c reads NAPI threads through irqthread.c).
FUZZ_SRC_netlink  = netpath/netpathio.c load/irqthread.c
FUZZ_LIBS_netlink = $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl)
FUZZ_CFLAGS   = -std=gnu11 -D_GNU_SOURCE -DIRQTUNE_VERSION='"$(VERSION)"' $(INCLUDES) -Itests/fuzz -g -O1 \
		-fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all
# Per target: the longest input worth trying, and read-only seed dirs.
FUZZ_MAXLEN_estimate = 262144
FUZZ_MAXLEN_cpuset   = 8192
FUZZ_MAXLEN_procirq  = 8192
FUZZ_SEEDS_interrupts = $(FUZZ_REALDATA)/interrupts
FUZZ_SEEDS_stat       = $(FUZZ_REALDATA)/stat
FUZZ_SEEDS_softirqs   = $(FUZZ_REALDATA)/softirqs
FUZZ_SEEDS_estimate   = $(FUZZ_OUT)/seeds/estimate

fuzz-deps:
	tests/fuzz/deps

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIBSRC) topology.c run/replay.c input/device.c load/measure.c $(wildcard input/config.c plan/policy.c input/compat.c input/kubelet.c) $(HEADERS) | fuzz-deps
	@mkdir -p $(FUZZ_OUT)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBSRC) $(FUZZ_SRC_$*) -lm $(FUZZ_LIBS_$*) $(FUZZ_LIBS_ALL)

$(FUZZ_OUT)/seeds/estimate: tests/fuzz/estimate-seeds tests/sim/irqsim
	tests/fuzz/estimate-seeds tests/sim/irqsim $@

fuzz: $(FUZZ_TARGETS:%=$(FUZZ_OUT)/fuzz_%) $(FUZZ_OUT)/seeds/estimate
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_OUT)/corpus/$$t; \
		seeds=; for d in tests/fuzz/seeds/$$t tests/fuzz/regress/$$t $(FUZZ_SEEDS_$$t); do \
			[ -d "$$d" ] && seeds="$$seeds $$d"; done; \
		case $$t in \
		estimate) max=$(FUZZ_MAXLEN_estimate); seeds="$$seeds $(FUZZ_SEEDS_estimate)" ;; \
		cpuset) max=$(FUZZ_MAXLEN_cpuset) ;; \
		procirq) max=$(FUZZ_MAXLEN_procirq) ;; \
		costs) max=4096 ;; \
		state) max=65536 ;; \
		topology) max=16384 ;; \
		capture) max=262144 ;; \
		netlink) max=16384 ;; \
		interrupts) max=65536; seeds="$$seeds $(FUZZ_SEEDS_interrupts)" ;; \
		stat) max=65536; seeds="$$seeds $(FUZZ_SEEDS_stat)" ;; \
		softirqs) max=65536; seeds="$$seeds $(FUZZ_SEEDS_softirqs)" ;; \
		*) max=65536 ;; \
		esac; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		$(FUZZ_OUT)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=$$max \
			-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_OUT)/ $(FUZZ_OUT)/corpus/$$t $$seeds \
			>$(FUZZ_OUT)/$$t.log 2>&1 || { tail -60 $(FUZZ_OUT)/$$t.log; \
			echo "fuzz: $$t FAILED (log: $(FUZZ_OUT)/$$t.log)"; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' $(FUZZ_OUT)/$$t.log | tail -2; \
	done

# Replays every seed and every past crash through the same targets built
# with $(CC) and a plain main() (tests/fuzz/standalone.c): no clang needed.
FUZZ_REGRESS_CC     ?= $(CC)
FUZZ_REGRESS_CFLAGS ?= -std=gnu11 -D_GNU_SOURCE -DIRQTUNE_VERSION='"$(VERSION)"' $(INCLUDES) -Itests/fuzz -g -O1 \
		-fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all
$(FUZZ_OUT)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/standalone.c tests/fuzz/fuzz.h $(FUZZ_LIBSRC) topology.c run/replay.c input/device.c load/measure.c $(wildcard input/config.c plan/policy.c input/compat.c input/kubelet.c) $(HEADERS)
	@mkdir -p $(FUZZ_OUT)
	$(FUZZ_REGRESS_CC) $(FUZZ_REGRESS_CFLAGS) -o $@ $< tests/fuzz/standalone.c $(FUZZ_LIBSRC) $(FUZZ_SRC_$*) -lm $(FUZZ_LIBS_$*) $(FUZZ_LIBS_ALL)

fuzz-regress: $(FUZZ_TARGETS:%=$(FUZZ_OUT)/replay_%) $(FUZZ_OUT)/seeds/estimate
	@set -e; for t in $(FUZZ_TARGETS); do \
		set --; for d in tests/fuzz/seeds/$$t tests/fuzz/regress/$$t; do \
			[ -d "$$d" ] && set -- "$$@" "$$d"; done; \
		case $$t in \
		interrupts|stat|softirqs) [ -d "$(FUZZ_REALDATA)/$$t" ] && set -- "$$@" "$(FUZZ_REALDATA)/$$t" ;; \
		estimate) set -- "$$@" $(FUZZ_SEEDS_estimate) ;; \
		esac; \
		[ $$# -gt 0 ] || continue; \
		ASAN_OPTIONS=detect_leaks=1 $(FUZZ_OUT)/replay_$$t "$$@" || exit 1; \
	done

# Line coverage of the product sources by each target's corpus (what the
# fuzzing reached), with clang's source-based coverage.
FUZZ_COV_SRC = sample.c input/procfs.c lib/strutil.c load/estimate.c lib/cpuset.c lib/fileio.c topology.c $(wildcard input/config.c plan/policy.c) input/compat.c load/costs.c \
	       history/state.c capture/capture.c capture/source.c run/replay.c input/device.c input/kubelet.c \
	       netpath/netpathio.c
fuzz-coverage: $(FUZZ_OUT)/seeds/estimate | fuzz-deps
	@mkdir -p $(FUZZ_OUT)/cov
	@set -e; for t in $(FUZZ_TARGETS); do \
		$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -fprofile-instr-generate \
			-fcoverage-mapping -o $(FUZZ_OUT)/cov/$$t tests/fuzz/fuzz_$$t.c \
			$(FUZZ_LIBSRC) $$(case $$t in topology) echo topology.c ;; \
			config) echo input/config.c plan/policy.c ;; \
			compat) echo input/compat.c report/report.c ;; \
			kubelet) echo input/kubelet.c $(FUZZ_LIBS_kubelet) ;; \
			capture) echo $(FUZZ_SRC_capture) $(FUZZ_LIBS_capture) ;; \
			netlink) echo $(FUZZ_SRC_netlink) $(FUZZ_LIBS_netlink) ;; esac) \
			-lm $(FUZZ_LIBS_ALL) \
			$$([ $$t = config ] && echo "$(FUZZ_LIBS_config)"); \
		set --; for d in $(FUZZ_OUT)/corpus/$$t tests/fuzz/seeds/$$t tests/fuzz/regress/$$t; do \
			[ -d "$$d" ] && set -- "$$@" "$$d"; done; \
		LLVM_PROFILE_FILE=$(FUZZ_OUT)/cov/$$t.profraw $(FUZZ_OUT)/cov/$$t -runs=0 \
			"$$@" >/dev/null 2>&1; \
		llvm-profdata-14 merge -o $(FUZZ_OUT)/cov/$$t.profdata $(FUZZ_OUT)/cov/$$t.profraw; \
	done; \
	llvm-profdata-14 merge -o $(FUZZ_OUT)/cov/all.profdata $(FUZZ_OUT)/cov/*.profraw; \
	set --; for t in $(wordlist 2,99,$(FUZZ_TARGETS)); do \
		set -- "$$@" -object $(FUZZ_OUT)/cov/$$t; done; \
	llvm-cov-14 report $(FUZZ_OUT)/cov/$(firstword $(FUZZ_TARGETS)) "$$@" \
		-instr-profile=$(FUZZ_OUT)/cov/all.profdata $(FUZZ_COV_SRC)

.PHONY: fuzz fuzz-deps fuzz-regress fuzz-coverage
