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
FUZZ_LIBS_ALL = $(shell pkg-config --libs libarchive 2>/dev/null || echo -larchive)
# Each way of building the targets (fuzz: clang with libFuzzer; regress: any
# compiler; cov: clang with coverage) compiles the program's modules with
# its own flags into its own archive, FUZZ_OUT/WAY/libirqtune.a, which the
# targets link against: each pulls in the parsers it calls and what they
# call, nothing else, and no list of them is kept here. The BPF loader is
# left out: no parser needs it, nor clang's BPF target.
FUZZ_LIB_SRCS = $(filter-out $(BPF_LIB_SRCS),$(LIB_SRCS))
FUZZ_LINK     = $(PKG_LIBS) $(FUZZ_LIBS_ALL) -lm
FUZZ_CFLAGS   = -std=gnu11 -D_GNU_SOURCE -DIRQTUNE_VERSION='"$(VERSION)"' $(INCLUDES) -Itests/fuzz -g -O1 \
		-fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all
# $(call fuzz_lib,WAY,CC,CFLAGS): the objects and archive of one way.
define fuzz_lib
$(FUZZ_OUT)/$(1)/obj/%.o: %.c
	@mkdir -p $$(@D)
	$(2) $(3) -MMD -MP -c -o $$@ $$<
$(FUZZ_OUT)/$(1)/libirqtune.a: $(FUZZ_LIB_SRCS:%.c=$(FUZZ_OUT)/$(1)/obj/%.o)
	rm -f $$@ && $(AR) qcs $$@ $$^
endef
-include $(shell find $(FUZZ_OUT) -name '*.d' 2>/dev/null)

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

# The modules with libFuzzer's coverage hooks but not its main().
$(eval $(call fuzz_lib,fuzz,$(FUZZ_CC),$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link))
$(FUZZ_OUT)/fuzz/libirqtune.a: | fuzz-deps
$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OUT)/fuzz/libirqtune.a $(HEADERS) | fuzz-deps
	@mkdir -p $(FUZZ_OUT)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OUT)/fuzz/libirqtune.a $(FUZZ_LINK)

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
$(eval $(call fuzz_lib,regress,$(FUZZ_REGRESS_CC),$(FUZZ_REGRESS_CFLAGS)))
$(FUZZ_OUT)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/standalone.c tests/fuzz/fuzz.h $(FUZZ_OUT)/regress/libirqtune.a $(HEADERS)
	@mkdir -p $(FUZZ_OUT)
	$(FUZZ_REGRESS_CC) $(FUZZ_REGRESS_CFLAGS) -o $@ $< tests/fuzz/standalone.c $(FUZZ_OUT)/regress/libirqtune.a $(FUZZ_LINK)

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
FUZZ_COV_CFLAGS = $(FUZZ_CFLAGS) -fprofile-instr-generate -fcoverage-mapping
$(eval $(call fuzz_lib,cov,$(FUZZ_CC),$(FUZZ_COV_CFLAGS) -fsanitize=fuzzer-no-link))
$(FUZZ_OUT)/cov/libirqtune.a: | fuzz-deps
fuzz-coverage: $(FUZZ_OUT)/seeds/estimate $(FUZZ_OUT)/cov/libirqtune.a | fuzz-deps
	@mkdir -p $(FUZZ_OUT)/cov
	@set -e; for t in $(FUZZ_TARGETS); do \
		$(FUZZ_CC) $(FUZZ_COV_CFLAGS) -fsanitize=fuzzer -o $(FUZZ_OUT)/cov/$$t \
			tests/fuzz/fuzz_$$t.c $(FUZZ_OUT)/cov/libirqtune.a $(FUZZ_LINK); \
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
