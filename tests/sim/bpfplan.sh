#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bpfplan.sh - irqtune's plan on a simulated machine as the measured (bpf)
# load source would make it: the kernel program cannot run against a test
# tree, so irqtune takes a capture of one window (a dry run, the /proc
# source), irqsim adds the "measure" member the program would have summed
# in that window (irqsim measure: exact per-IRQ handler and softirq time,
# the window's noise included), and irqtune plans from the replay. The
# plan is then written into the machine through irqsim set, so that
# irqsim score judges it.
#
#	tests/sim/bpfplan.sh DIR
#
# DIR: a built machine (it is changed: use a copy). Prints "bpf_moves N"
# and "bpf_source NAME" (bpf when the replay used the measurement).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
sim=$top/tests/sim/irqsim
D=$1
cap=$D.bpfplan
rm -rf "$cap" "$cap".*
mkdir -p "$cap" || exit 1
UMOCKDEV_DIR=$D LD_PRELOAD="$top/tests/shims/fakekernel.so libumockdev-preload.so.0" \
	"$top/irqtune" -n -w 1 --no-state --no-config --capture "$cap.cap" >/dev/null 2>"$cap.err" || {
	echo "bpfplan.sh: capture failed: $(head -c 500 "$cap.err")" >&2; exit 1; }
tar xzf "$cap.cap" -C "$cap" || exit 1
from=$(awk '$1 == "snapshot-1" { print $2 }' "$cap/irqtune-capture")
to=$(awk '$1 == "snapshot-2" { print $2 }' "$cap/irqtune-capture")
"$sim" measure "$D" "$from" "$to" >"$cap/measure" || exit 1
# irqtune-capture must come first in the archive
(cd "$cap" && tar czf "$cap.bpf.cap" irqtune-capture $(ls | grep -vx irqtune-capture)) || exit 1
"$top/irqtune" --replay "$cap.bpf.cap" --no-state --json >"$cap.json" 2>"$cap.err" || {
	echo "bpfplan.sh: replay failed: $(head -c 500 "$cap.err")" >&2; exit 1; }
# the JSON prints one key a line: each IRQ's "irq", later its "to" and "outcome"
awk -F'[:,]' '
	/^ *"irq":/ { irq = $2 }
	/^ *"to":/ { to = $2 }
	/^ *"outcome":"would_move"/ { print irq, to }
' "$cap.json" >"$cap.moves"
n=0
while read -r irq cpu; do
	# refused writes are the machine's faults (faults.txt): counted out
	"$sim" set "$D" "$irq" "$cpu" >/dev/null 2>&1 && n=$((n + 1))
done <"$cap.moves"
echo "bpf_moves $n"
echo "bpf_source $(sed -n 's/^ *"load_source":"\([a-z]*\)".*/\1/p' "$cap.json" | head -1)"
rm -rf "$cap" "$cap".*
