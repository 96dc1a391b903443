# SPDX-License-Identifier: GPL-2.0-or-later
# mk/sanitize.mk - the test suite under sanitizers; `make check` runs both
# passes after tests/run (docs/trust.md).
#
#   make check-asan       rebuild everything with AddressSanitizer and
#                         UndefinedBehaviorSanitizer in tests/out/asan (a
#                         copy of the tree: the normal build's objects are
#                         not touched) and run the whole suite there (the
#                         suites that walk every simulated machine keep to
#                         the small ones, as under valgrind: $SMALL in
#                         tests/lib.sh; CHECK_JOBS of them at a time), then
#                         replay the fuzzing seeds and past crashes
#   make check-valgrind   the end-to-end tests with irqtune under valgrind
#                         (memcheck; definite leaks are errors)
#
# gcc's libasan and libubsan come with Debian's gcc; valgrind is installed
# by tools/deps. Nothing here needs more packages.

ASAN_DIR     = tests/out/asan
ASAN_CFLAGS  = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	       -fno-sanitize-recover=all
# verify_asan_link_order=0: under LD_PRELOAD of tests/shims/fakekernel.so and
# libumockdev-preload.so.0 the ASan runtime is not first in the library
# list; those two are not instrumented and need not be. Child processes
# that are not instrumented (sh, cat) ignore these.
# exitcode: not 1, which irqtune means as "partial failure".
ASAN_ENV     = ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:exitcode=86 \
	       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87 \
	       IRQTUNE_REALDATA=$(or $(IRQTUNE_REALDATA),$(abspath ..)/shared/realdata)

VALGRIND_CMD = valgrind -q --error-exitcode=99 --leak-check=full \
	       --errors-for-leak-kinds=definite --show-leak-kinds=definite

CHECK_EXTRA += check-asan check-valgrind

check-asan: all
	@echo "check-asan: building in $(ASAN_DIR)"
	@rm -rf $(ASAN_DIR) && mkdir -p $(ASAN_DIR)
	@tar -cf - --exclude=./tests/out --exclude=./$(B) --exclude=./.git . | tar -xf - -C $(ASAN_DIR)
	@$(MAKE) --no-print-directory -C $(ASAN_DIR) clean >/dev/null
	@touch $(ASAN_DIR)/.deps.stamp
	@# the preload libraries stay uninstrumented: they are also loaded into
	@# sh and cat, which ASan's runtime would not come first in
	@# (so do the helpers the suites would otherwise build as they run,
	@# two at a time: logsink, benchshim.so)
	@$(MAKE) --no-print-directory -s -C $(ASAN_DIR) tests/shims/fakekernel.so tests/shims/bpffault.so \
		tests/shims/logsink tests/out/bench/benchshim.so
	@$(MAKE) --no-print-directory -s -C $(ASAN_DIR) all $(TESTS) $(SIM_BINS) \
		CFLAGS="$(ASAN_CFLAGS)" CHECK_EXTRA=
	@echo "check-asan: the whole suite under ASan+UBSan"
	@cd $(ASAN_DIR) && $(ASAN_ENV) TESTS_JOBS=$(CHECK_JOBS) tests/run >../asan.log 2>&1; rc=$$?; \
		tail -12 ../asan.log; \
		if [ $$rc -ne 0 ]; then grep -B5 -A40 -E 'ERROR: (Address|Leak)Sanitizer|runtime error|^FAIL|not ok' ../asan.log | head -150; \
			echo "check-asan: FAILED (log: tests/out/asan.log)"; exit 1; fi
	@echo "check-asan: fuzzing seeds and past crashes"
	@$(MAKE) --no-print-directory -s fuzz-regress

# The suites run side by side (each runs one irqtune at a time).
check-valgrind: all tests/shims/fakekernel.so $(SIM_BINS)
	@suites=$$(ls tests/e2e/e2e*.sh); \
	for s in $$suites; do \
		log=tests/out/valgrind-$$(basename $$s .sh).log; \
		{ t0=$$(date +%s); VALGRIND="$(VALGRIND_CMD)" $$s >$$log 2>&1; echo $$? >$$log.rc; \
		  echo $$(($$(date +%s) - t0)) >$$log.secs; } & \
	done; wait; \
	passed=0; failed=0; for s in $$suites; do \
		n=$$(basename $$s .sh); log=tests/out/valgrind-$$n.log; \
		p=$$(grep -c '^PASS ' $$log); f=$$(grep -c '^FAIL ' $$log); \
		[ "$$(cat $$log.rc)" = 0 ] || [ $$f -ne 0 ] || f=1; \
		echo "check-valgrind $$n: $$p passed, $$f failed ($$(cat $$log.secs) s)"; \
		[ $$f -eq 0 ] || grep -A30 '^FAIL ' $$log | head -80; \
		passed=$$((passed + p)); failed=$$((failed + f)); \
	done; \
	echo "check-valgrind: $$passed passed, $$failed failed"; \
	[ $$failed -eq 0 ] && [ $$passed -gt 0 ]

.PHONY: check-asan check-valgrind
