# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lib.sh - what every end-to-end script shares: a scratch directory on
# /dev/shm, the PASS/FAIL/SKIP lines tests/run counts, and running the real
# irqtune against a simulated machine in $D (umockdev shows it the fake
# /sys, tests/shims/fakekernel.so plays the kernel). Sourced, never run:
#
#	. "$(dirname "$0")/../lib.sh"	# from tests/e2e/ or tests/live/
#	e2e_setup NAME		# cd to the top, $top $sim $work, cleanup trap
#
# $VALGRIND, when set, runs every irqtune under it (make check-valgrind).
# $SMALL is set when every irqtune runs instrumented: under $VALGRIND, or
# built with AddressSanitizer (make check-asan runs the suites with
# ASAN_OPTIONS set). A run then takes ten times as long or more, so the
# suites that walk every simulated machine keep to a few small ones that
# differ in kind: the code paths are what the instruments check, and the
# plain pass runs every machine.
# KEEP=1 keeps $work for a look afterwards.

VALGRIND=${VALGRIND:-}
SMALL=
if [ -n "$VALGRIND" ] || [ -n "${ASAN_OPTIONS:-}" ]; then SMALL=1; fi
PRELOAD=

# e2e_setup NAME: the scratch directory /dev/shm/irqtune-NAME.XXXXXX in $work,
# the script first re-run where the host's journal and udev database are
# out of reach (host_private, tests/hostns.sh). The syslog test of
# e2e-admin brings its own /dev/log.
. "$(dirname "${BASH_SOURCE[0]}")/hostns.sh"
e2e_setup() {
	host_private
	cd "$(dirname "$0")/../.." || exit 1
	top=$PWD
	sim=$top/tests/sim/irqsim
	PRELOAD="$top/tests/shims/fakekernel.so libumockdev-preload.so.0"
	work=$(mktemp -d "/dev/shm/irqtune-$1.XXXXXX") || exit 1
	trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
}

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
# planprobe_find: $probe, the planner fed the model's true loads, where it
# is built and no older than the library it links; else empty, with a SKIP
# line. A probe left from an older tree (make all does not rebuild it)
# judges that tree's planner, not this one's.
planprobe_find() {
	probe=$top/tests/sim/planprobe
	if [ ! -x "$probe" ]; then
		skip planprobe "not built here (make tests/sim/planprobe): no check of the planner on true loads"
		probe=
	elif [ "$probe" -ot "$top/build/libirqtune.a" ]; then
		skip planprobe "older than build/libirqtune.a (make tests/sim/planprobe): no check of the planner on true loads"
		probe=
	fi
}
check() {	# check NAME CONDITION-COMMAND... ; message from $why
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "${why:-condition failed}"; fi
	why=
}

# Whether RATIO, after a run that moved MOVES, is within the 5% target of
# ORACLE, or moved nothing while within the 10% stability threshold a run
# judges one window by: one with no history (e2e-quality), or the first
# after a shift in the middle of a minute, which only that run's window
# shows (e2e-history holds the run after it to the target itself).
followed() {	# followed MOVES RATIO ORACLE
	[ "$1" = 0 ] && awk -v a="$2" -v b="$3" 'BEGIN { exit !(a <= b * 1.10 + 1e-9) }' ||
		awk -v a="$2" -v b="$3" 'BEGIN { exit !(a <= b * 1.05 + 1e-9) }'
}

# machine NAME [DIR]: a fresh tree of tests/sim/machines/NAME.txt in
# $D ($work/DIR, DIR defaults to NAME)
machine() {
	D=$work/${2:-$1}
	rm -rf "$D" "$D.out" "$D.err"
	"$sim" build "$top/tests/sim/machines/$1.txt" "$D" >/dev/null || {
		echo "FAIL build $1: irqsim build failed"; return 1; }
}

# run ARGS...: irqtune against $D; stdout in $OUT, stderr in $ERR, status $RC.
# In a subshell whose own stderr is dropped, so that a run killed on purpose
# is not announced as "Killed" in the log; stdin is not a terminal, as under
# cron.
run() {
	(UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" $VALGRIND "$top/irqtune" "$@" \
		>"$D.out" 2>"$D.err" </dev/null; exit $?) 2>/dev/null
	RC=$?
	OUT=$(cat "$D.out")
	ERR=$(cat "$D.err")
}

aff() { cat "$D/proc/irq/$1/smp_affinity_list"; }
# irq_of ACTION: the IRQ number whose /proc/interrupts row ends in ACTION
irq_of() { awk -v a="$1" '$NF == a { sub(":", "", $1); print $1; exit }' "$D/proc/interrupts"; }
summary_field() {	# the number before WORD in the summary line
	echo "$OUT" | sed -n 's/^irqtune: .*[^0-9]\([0-9][0-9]*\) '"$1"'[,;].*/\1/p' | tail -1
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b + 1e-9) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b - 1e-9) }'; }
