#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden outputs: what irqtune prints, byte for byte, on every simulated
# machine, so that a change meant to keep behaviour (a refactor, a move)
# is shown to keep it. Per machine, as cron would run it with a state-dir:
# a run, a --json run a minute later, a -v run that takes a capture, and
# after each of the machine's load shifts a -v and a --json run; then the
# capture replayed (-v and --json). Beside them, a history that cannot be
# trusted or kept (history-faults). Each run's exit status, stdout and
# stderr are compared with tests/e2e/expected/golden/NAME.txt.
#
# What differs from run to run and is not irqtune's behaviour is
# normalised before the comparison (norm below):
#   - the scratch directory (/dev/shm/irqtune-golden.XXXXXX) -> @WORK@
#   - JSON "started", "locked", "finished" (wall-clock times) -> @TIME@
#   - JSON "duration_seconds" (a replay's is this host's time) -> @DURATION@
#   - JSON "hostname" (the host's, or a replay's captured) -> @HOST@
# Everything else, the simulated clock's durations included, is compared
# as printed.
#
# ../shared/realdata holds no irqtune capture (it holds /proc and /sys
# files, not the .tar.gz --capture writes), so the replays here are of
# captures taken on the simulated machines.
#
# UPDATE_EXPECTED=1 writes the expected files instead of comparing; review
# the diff (git diff tests/e2e/expected) and commit it. Under valgrind or
# ASan ($SMALL, tests/lib.sh) the machines that differ in kind only, as
# tests/e2e/e2e-replay.sh does.
# Prints "PASS name" or "FAIL name: why" per machine.
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup golden
exp=$top/tests/e2e/expected/golden
update=${UPDATE_EXPECTED:-}
[ -n "$update" ] && mkdir -p "$exp"

norm() {
	sed -e "s|$work|@WORK@|g" \
	    -e 's/^\([[:space:]]*"\(started\|locked\|finished\)":\)[-0-9.e+][-0-9.e+]*/\1@TIME@/' \
	    -e 's/^\([[:space:]]*"duration_seconds":\)[-0-9.e+][-0-9.e+]*/\1@DURATION@/' \
	    -e 's/"hostname":"[^"]*"/"hostname":"@HOST@"/'
}

# rec TITLE ARGS...: irqtune against $D (or, for --replay, nothing at all),
# its status, stdout and stderr appended to $G.
rec() {
	local title=$1 rc
	shift
	if [ "$1" = --replay ]; then
		($VALGRIND "$top/irqtune" "$@" >"$work/o" 2>"$work/e" </dev/null; exit $?) 2>/dev/null
	else
		(UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" $VALGRIND "$top/irqtune" "$@" \
			>"$work/o" 2>"$work/e" </dev/null; exit $?) 2>/dev/null
	fi
	rc=$?
	{
		echo "== $title: irqtune $*"
		echo "status $rc"
		echo "-- stdout"
		cat "$work/o"
		echo "-- stderr"
		cat "$work/e"
	} | norm >>"$G"
}

# compare NAME: $G against its expected file, or written as it.
compare() {
	local want=$exp/$1.txt
	if [ -n "$update" ]; then
		cp "$G" "$want" && echo "PASS $1 (written)"
	elif [ ! -f "$want" ]; then
		fail "$1" "no $want (UPDATE_EXPECTED=1 writes it)"
	else
		why=$(diff -u "$want" "$G" | head -40)
		check "$1: output as expected" cmp -s "$want" "$G"
	fi
}

# A configuration whose state-dir is the machine's own. other-balancer =
# ignore: an irqbalance that another test (or engineer) runs on this host
# would otherwise be named, with its pid, or refuse the writes.
conf() {
	printf 'state-dir = %s/state\nother-balancer = ignore\n' "$D" >"$D.conf"
	chmod 644 "$D.conf"
}

machines=${GOLDEN_MACHINES:-$(cd tests/sim/machines && ls *.txt | sed "s/\.txt$//")}
[ -n "$SMALL" ] && machines="tiny offline cloud-vm numa2-managed shift"

for m in $machines; do
	G=$work/$m.golden
	: >"$G"
	machine "$m" || { fail "$m" "irqsim build failed"; continue; }
	conf
	rec "run 1" -w 1 -c "$D.conf"
	"$sim" step "$D" 59 >/dev/null
	rec "run 2, a minute on" --json -w 1 -c "$D.conf"
	"$sim" step "$D" 59 >/dev/null
	rec "run 3, a capture" -v -w 1 -c "$D.conf" --capture "$work/$m.cap"
	for sh in $(awk '$1 == "shift" && !seen[$2]++ { print $2 }' "$top/tests/sim/machines/$m.txt"); do
		"$sim" shift "$D" "$sh" >/dev/null
		"$sim" step "$D" 59 >/dev/null
		rec "after shift $sh" -v -w 1 -c "$D.conf"
		"$sim" step "$D" 59 >/dev/null
		rec "a minute after shift $sh" --json -w 1 -c "$D.conf"
	done
	rec "--no-state" -n -v -w 1 --no-state -c "$D.conf"
	if [ -s "$work/$m.cap" ]; then
		rec "replay" --replay "$work/$m.cap" -v
		# big's and vectors288's JSON (420 KB, 600 KB) is pinned by
		# run 2 already
		case $m in
		big|vectors288) ;;
		*) rec "replay" --replay "$work/$m.cap" --json ;;
		esac
	fi
	compare "$m"
	rm -rf "$D" "$D".* "$work/$m.cap"
done

### a history that cannot be trusted, or kept: named, and the run goes on
G=$work/history-faults.golden
: >"$G"
machine router hist || exit 1
conf
mkdir -p "$D/state"
rec "no history yet" -n -v -w 1 -c "$D.conf"
"$sim" step "$D" 59 >/dev/null
printf 'irqtune-state 99\n' >"$D/state/state"
rec "a newer irqtune's" -n -v -w 1 -c "$D.conf"
"$sim" step "$D" 59 >/dev/null
printf 'irqtune-state 4\nboot x\ntime 1\nirq 1 - x 100000000 0 1 1000000 1000000' >"$D/state/state"
rec "another boot's" -n -v -w 1 -c "$D.conf"
"$sim" step "$D" 59 >/dev/null
printf 'not a history\n' >"$D/state/state"
rec "garbage" -n -v -w 1 -c "$D.conf"
"$sim" step "$D" 59 >/dev/null
rm -f "$D/state/state"
chmod 777 "$D/state"
rec "a directory others can write" -n -v --json -w 1 -c "$D.conf"
chmod 755 "$D/state"
compare history-faults
exit 0
