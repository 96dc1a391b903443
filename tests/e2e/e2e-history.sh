#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end: the load history carried from run to run (state.c), as cron
# runs irqtune every minute. On simulated machines, with state-dir pointing
# into the machine's own directory (a test machine's /proc is not the
# kernel's, so without state-dir no history is kept). Four runs under the
# same load must move nothing after the first; a load shift must be
# followed in the next run, within 5% of the oracle (judged, as irqtune
# plans, with half the SMT siblings' load: issue 34); a history file that
# cannot be trusted is named
# and the run goes on without it. Prints "PASS name" or "FAIL name: why";
# and a "cron:" line per machine with the load ratio after each run, for
# docs/quality.md.
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup e2e-history

key() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }
times() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a * b }'; }
moved() { sed -n 's/^irqtune: .*movable, \([0-9][0-9]*\) moved.*/\1/p' "$D.out" | tail -1; }

conf() {	# conf MACHINE-DIR: a configuration whose state-dir is the machine's
	printf 'state-dir = %s/state\n' "$1" >"$1.conf"
	chmod 644 "$1.conf"
}

hrun() {	# hrun NAME [ARGS]: irqtune -v -w 1 with the machine's history
	local name=$1
	shift
	UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" \
		$VALGRIND "$top/irqtune" -v -w 1 -c "$D.conf" "$@" >"$D.out" 2>"$D.err"
	RC=$?
	why="exit $RC: $(head -c 2000 "$D.err")"; check "$name exits 0" [ "$RC" -eq 0 ]
}

# The first run has no history to use, so one with --no-state must
# estimate as well: the per-device fit is the window's own, not the
# history's. On a second build of the machine, so as to leave the
# cron runs' clock alone.
nostate_first() {	# nostate_first MACHINE FIRST-RUN-ERROR
	local m=$1 N=$work/$1-nostate e rc ok
	"$sim" build "$top/tests/sim/machines/$m.txt" "$N" >/dev/null || {
		fail "$m: build" "irqsim build failed"; return; }
	UMOCKDEV_DIR=$N LD_PRELOAD="$PRELOAD" \
		$VALGRIND "$top/irqtune" -v -w 1 --no-state --dry-run >"$N.out" 2>"$N.err"
	rc=$?
	"$sim" show "$N" >"$N.show"
	e=$(awk -f "$top/tests/sim/accuracy.awk" "$N.out" "$N.show" | awk '{ print $2 }')
	# a failed run prints no estimate, and "" would compare as 0
	why="--no-state: exit $rc, error ${e:-none}%, with a history: $2% ($(head -c 500 "$N.err"))"
	ok=false
	[ "$rc" -eq 0 ] && [ -n "$e" ] && le "$e" "$(awk -v a="$2" 'BEGIN { print a + 1 }')" && ok=true
	check "$m: a --no-state run estimates as well as a first run with history" $ok
	rm -rf "$N" "$N".*
}

# The busiest CPU and the oracle's under irqtune's objective: a CPU's load
# plus half its SMT siblings' (issue 34; the plain figures without SMT),
# the oracle with the spreading rule irqtune keeps (e2e-quality.sh).
smt_of() { key smt_max_load "$1"; }
smt_orc() { key oracle_smt_spread_max_load "$1"; }

# Where the /proc estimate leaves a gap under that objective, the gap
# measured (smt_tol MACHINE WHAT DEFAULT); the planner fed the true loads
# (tests/sim/planprobe) is within 2% of the oracle on all of these.
# noacct: hard-irq time is nowhere in /proc without IRQ time accounting,
# and its NVMe and accel interrupts, taken at the prior's 2 us, cost 5
# and 10 us (e2e-quality.sh, smt_slack): x1.110. storage: its fourth run
# x1.036 (estimate error 2.2%). Its rebuild half-way through a minute:
# the run after it moves 23 IRQs on one window (half of it the old load)
# to x1.094, and the runs after that keep it: on their estimate it is
# within the 2% threshold and the 0.45% resolution of their best plan,
# where the planner on the true loads at that threshold moves 16 to
# x1.012 (before plan_improve() lowered a CPU through its siblings the
# first run moved nothing, x1.175, and the second went to x1.043).
smt_tol() {
	case $1:$2 in
	noacct:fourth) echo 1.12 ;;
	storage:fourth) echo 1.04 ;;
	storage:mid) echo 1.15 ;;
	*) echo "$3" ;;
	esac
}

cron() {	# cron MACHINE: four runs, then each shift
	local m=$1 line ratio orc lim sh k=0 err err1
	D=$work/$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$D" >/dev/null || {
		fail "$m: build" "irqsim build failed"; return; }
	conf "$D"
	"$sim" oracle "$D" >"$D.oracle"
	orc=$(key oracle_ratio "$D.oracle")
	line="cron: $m oracle $orc runs"
	for r in 1 2 3 4; do
		# cron: a minute from the start of one run to the next
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		hrun "$m: run $r"
		"$sim" score "$D" >"$D.score"
		"$sim" show "$D" >"$D.show"
		ratio=$(key load_ratio "$D.score")
		err=$(awk -f "$top/tests/sim/accuracy.awk" "$D.out" "$D.show" | awk '{ print $2 }')
		[ "$r" = 1 ] && err1=$err && nostate_first "$m" "$err1"
		line="$line $ratio/$(moved)/err$err"
		if [ "$r" = 2 ]; then
			why="$(grep 'load history' "$D.out")"
			check "$m: run 2 estimates over the minute since run 1" \
				grep -q "estimated over the 60 s since the last run's window" "$D.out"
		fi
		if [ "$r" -gt 1 ]; then
			why="$(tail -2 "$D.out" | head -1)"
			check "$m: run $r under the same load moves nothing" [ "$(moved)" = 0 ]
		fi
	done
	why="$(ls -l "$D/state" 2>&1)"
	check "$m: the history is kept in state-dir" [ -s "$D/state/state" ]
	why="$(grep 'load history' "$D.out")"
	check "$m: -v says the loads were weighed with it" \
		grep -q "^irqtune: load history: loads weighed with the history in $D/state/state" "$D.out"
	why="$(grep 'load history' "$D.out")"
	check "$m: run 4 plans on the evidence of four windows" \
		grep -q "every busy IRQ has a history: plans judged to [0-9.]*% of a CPU, threshold 2%$" "$D.out"
	lim=$(times "$(smt_orc "$D.oracle")" "$(smt_tol "$m" fourth 1.03)")
	why="ratio $ratio, oracle $orc; busiest CPU with half its siblings' load $(smt_of "$D.score"), oracle $(smt_orc "$D.oracle")"
	check "$m: the fourth run is within 3% of the oracle" le "$(smt_of "$D.score")" "$lim"
	# storage's HBA and three kinds of NVMe drive share CPUs in one
	# window's proportions; the minutes of four runs tell their costs
	# apart (devfit.c)
	if [ "$m" = storage ]; then
		why="estimate error $err1% on run 1, $err% on run 4"
		check "$m: the estimate's error falls by a quarter over four runs" \
			awk -v a="$err" -v b="$err1" 'BEGIN { exit !(a <= b * 0.75) }'
	fi
	for sh in $(awk '$1 == "shift" && !seen[$2]++ { print $2 }' "$top/tests/sim/machines/$m.txt"); do
		k=$((k + 1))
		# the load shifts just after a run; the next comes a minute on
		"$sim" shift "$D" "$sh" >/dev/null
		"$sim" step "$D" 59 >/dev/null
		"$sim" oracle "$D" >"$D.oracle$k"
		hrun "$m: run after shift $sh"
		"$sim" score "$D" >"$D.score$k"
		ratio=$(key load_ratio "$D.score$k")
		orc=$(key oracle_ratio "$D.oracle$k")
		lim=$(times "$(smt_orc "$D.oracle$k")" "$(smt_tol "$m" shift 1.05)")
		line="$line | $sh $ratio/$(moved) (oracle $orc)"
		why="ratio $ratio, oracle $orc, $(moved) moved; with half the siblings' load $(smt_of "$D.score$k"), oracle $(smt_orc "$D.oracle$k")"
		check "$m: shift $sh is followed in one run, within 5% of the oracle" le "$(smt_of "$D.score$k")" "$lim"
		# the minute since the shift is evidence of the new load on
		# its own, so the plan is judged on it, not on one window's
		# rules (which let a placement 10% off stand)
		why="$(grep 'load history' "$D.out")"
		check "$m: after shift $sh, plans on the evidence of the minute since" \
			grep -q "every busy IRQ has a history: plans judged to [0-9.]*% of a CPU, threshold 2%$" "$D.out"
	done
	echo "$line"
}

# Under valgrind or ASan ($SMALL, tests/lib.sh) the machines that differ in
# kind: NIC queues, no irq time accounting, a load shift, managed IRQs.
machines="router mixed noacct shift storage managed twosocket arm64-gic twosocket-noise"
[ -n "$SMALL" ] && machines="router noacct shift managed"
for m in $machines; do
	cron "$m"
done

### a shift half-way through the minute: the next run sees a second of
### the new load and an interval half old, half new, and judges by the
### second; the run after it has a minute of the new load and must land
### within 5% of the oracle (storage's light NVMe queues were once
### estimated 50% high here, and the plan stuck at +8%)
midminute() {	# midminute MACHINE SHIFT
	local m=$1 sh=$2 ratio orc r
	machine "$m" "$m-mid" || return
	conf "$D"
	for r in 1 2 3 4; do
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		hrun "$m mid-minute: run $r"
	done
	"$sim" step "$D" 30 >/dev/null
	"$sim" shift "$D" "$sh" >/dev/null
	"$sim" step "$D" 29 >/dev/null
	"$sim" oracle "$D" >"$D.oracle"
	# followed's 10% (below) stands for smt_tol's where that is wider
	orc=$(awk -v o="$(smt_orc "$D.oracle")" -v t="$(smt_tol "$m" mid 1.10)" 'BEGIN { printf "%.6f", o * t / 1.10 }')
	for r in 1 2 3; do
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		hrun "$m mid-minute: run $r after $sh"
		ratio=$(smt_of <("$sim" score "$D"))
		why="ratio $ratio, oracle $orc, $(moved) moved"
		if [ "$r" = 1 ]; then
			check "$m: $sh half-way through a minute, the run after it within 5% of the oracle, or still within 10%" \
				followed "$(moved)" "$ratio" "$orc"
		else
			check "$m: $sh half-way through a minute, run $r after it within 5% of the oracle" \
				le "$ratio" "$(times "$orc" 1.05)"
		fi
	done
	why="$(tail -2 "$D.out" | head -1)"
	check "$m: the third run after $sh moves nothing" [ "$(moved)" = 0 ]
}
midminute storage rebuild
midminute twosocket-noise tilt

### a threshold the admin set stands, however good the evidence
machine router thr || exit 1
conf "$D"
echo "threshold = 15%" >>"$D.conf"
hrun "threshold: run 1"
why="$(grep 'load history' "$D.out")"
check "threshold: the first run, one window, has no history to judge by" \
	sh -c '! grep -q "every busy IRQ has a history" "$1"' _ "$D.out"
hrun "threshold: run 2"
why="$(grep 'load history' "$D.out")"
check "threshold: the site's 15% is kept on the evidence of two windows" \
	grep -q "every busy IRQ has a history: plans judged to [0-9.]*% of a CPU, threshold 15%$" "$D.out"

### an idle machine has no busy IRQ whose evidence could judge a plan
D=$work/quiet
printf 'machine quiet\ncpus packages=1 cores=2 threads=1 nodes=1\nhz 100\nlegacy irq=4 name=ttyS0 rate=1\nlegacy irq=8 name=rtc0 rate=1\n' >"$work/quiet.txt"
"$sim" build "$work/quiet.txt" "$D" >/dev/null || fail "quiet: build" "irqsim build failed"
conf "$D"
hrun "idle: run 1"
"$sim" step "$D" 59 >/dev/null
hrun "idle: run 2"
why="$(grep 'load history' "$D.out")"
check "idle: the evidence rule says nothing where nothing is busy" \
	sh -c 'grep -q "estimated over the 60 s" "$1" && ! grep -q "every busy IRQ has a history" "$1"' _ "$D.out"

### a history not to be trusted: named, not used, the run goes on
machine router hist || exit 1
conf "$D"
mkdir -p "$D/state"
printf 'irqtune-state 7\n' >"$D/state/state"
hrun "history: of a newer irqtune" -n
why="$(cat "$D.err")"
check "history: a newer one is named, with what happens next" \
	grep -q "state/state: version 7, written by a newer irqtune; planning from this window alone" "$D.err"
# without application load, the version before the application lines:
# the file an older irqtune reads too
version=$(awk '$1 == "#define" && $2 == "STATE_VERSION_READ" { print $3 }' "$top/history/state.h")
why="$(head -1 "$D/state/state")"
check "history: and replaced by this run's" grep -q "^irqtune-state $version\$" "$D/state/state"
printf 'irqtune-state %s\nboot x\ntime 1\nirq 1 - x 100000000 0 1 1000000 1000000' "$version" >"$D/state/state"
hrun "history: of another boot" -n
why="$(cat "$D.err")"
check "history: another boot's is dropped without a word" [ ! -s "$D.err" ]
rm -f "$D/state/state"
ln -s "$D/elsewhere" "$D/state/state"
hrun "history: a symlink in its place" -n
why="$(cat "$D.err")"
# (umockdev's preload resolves the link before irqtune's O_NOFOLLOW open
# sees it, so the refusal to read through one is tested in test_state.c.)
check "history: a symlink in its place is not written through" \
	sh -c 'grep -q "cannot keep the load history in .*refusing it" "$1" && [ ! -e "$2" ]' \
	_ "$D.err" "$D/elsewhere"
rm -f "$D/state/state"
chmod 777 "$D/state"
hrun "history: a directory others can write" -n
why="$(cat "$D.err")"
check "history: is not written into" \
	sh -c 'grep -q "cannot keep the load history in .*refusing it" "$1" && [ ! -e "$2" ]' \
	_ "$D.err" "$D/state/state"
chmod 755 "$D/state"
hrun "history: --no-state" -n --no-state
why="$(ls "$D/state")"
check "history: --no-state neither reads nor keeps it" [ ! -e "$D/state/state" ]
UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" "$top/irqtune" -n -w 1 >"$D.out" 2>"$D.err"
why="$(cat "$D.err")"
check "history: without state-dir a test machine keeps none" \
	sh -c '[ ! -e "$1" ] && ! grep -q "load history" "$2"' _ "$D/state/state" "$D.out"
exit 0
