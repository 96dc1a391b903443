#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live test of --capture and --replay on this machine: a capture as root
# (a dry run: it writes no affinity), then replays as nobody, from a copy
# of the binary and the capture in a directory of nobody's, with no access
# to what root can read. The replayed plan must equal the live one IRQ for
# IRQ, the text report byte for byte, and two replays must be identical.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why".
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
VALGRIND=${VALGRIND:-}
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
check() {
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "${why:-condition failed}"; fi
	why=
}

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "live replay" "needs root and setpriv(1)"
	exit 0
fi
if [ ! -r /proc/interrupts ] || [ ! -d /proc/irq ]; then
	skip "live replay" "no /proc/interrupts or /proc/irq here"
	exit 0
fi
work=$(mktemp -d /dev/shm/irqtune-livereplay.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

# Text, then JSON: a capture each (a second live run is another moment).
$VALGRIND "$top/irqtune" --capture "$work/live.cap" -v -w 0.5 >"$work/live.txt" 2>"$work/live.err"
rc=$?
why="exit $rc: $(cat "$work/live.err")"; check "live: capture exits as a dry run" [ "$rc" -le 1 ]
$VALGRIND "$top/irqtune" --capture "$work/json.cap" --json -w 0.5 >"$work/live.json" 2>/dev/null

# nobody's copy: the binary and the captures, in a directory only it reads.
mkdir -m 700 "$work/nobody"
cp "$top/irqtune" "$work/live.cap" "$work/json.cap" "$work/nobody/"
chown -R 65534:65534 "$work/nobody"
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
		env -i PATH=/usr/bin:/bin $VALGRIND "$work/nobody/irqtune" "$@" </dev/null
}
as_nobody --replay "$work/nobody/live.cap" -v >"$work/r1.txt" 2>"$work/r1.err"
rc=$?
why="exit $rc: $(cat "$work/r1.err")"; check "live: replay as nobody exits as the capture did" [ "$rc" -le 1 ]
why=$(diff "$work/live.txt" "$work/r1.txt" | head -20)
check "live: replay as nobody prints the live report, byte for byte" cmp -s "$work/live.txt" "$work/r1.txt"
as_nobody --replay "$work/nobody/live.cap" -v >"$work/r2.txt" 2>/dev/null
why=$(diff "$work/r1.txt" "$work/r2.txt" | head -20)
check "live: two replays are identical" cmp -s "$work/r1.txt" "$work/r2.txt"

untimed() { jq -S 'del(.run.started, .run.finished, .run.duration_seconds, .run.locked)'; }
plan() { jq -c '.irqs[] | [.irq, .outcome, .to]'; }
as_nobody --replay "$work/nobody/json.cap" --json 2>/dev/null | untimed >"$work/r1.json"
as_nobody --replay "$work/nobody/json.cap" --json 2>/dev/null | untimed >"$work/r2.json"
untimed <"$work/live.json" >"$work/l.json"
why=$(diff <(plan <"$work/l.json") <(plan <"$work/r1.json") | head -20)
check "live: the replayed plan equals the live plan, IRQ for IRQ" \
	[ "$(plan <"$work/l.json" | wc -l)" -gt 0 ] && [ -z "$why" ]
why=$(diff "$work/l.json" "$work/r1.json" | head -20)
check "live: replayed JSON equals the live JSON but for the timestamps" cmp -s "$work/l.json" "$work/r1.json"
why=$(diff "$work/r1.json" "$work/r2.json" | head -20)
check "live: two JSON replays are identical but for the timestamps" cmp -s "$work/r1.json" "$work/r2.json"
src=$(jq -r .load_source "$work/l.json")
why="load source $src"; check "live: the replay used the captured run's load source" \
	[ "$(jq -r .load_source "$work/r1.json")" = "$src" ]
exit 0
