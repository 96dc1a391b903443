#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Live smoke test: irqtune --dry-run on this very machine. It must list every
# IRQ of /proc/interrupts that has a handler, exit 0, and write nothing: no
# affinity, and neither the load history nor the costs in /run/irqtune (a
# dry run reads them, and keeps them only where a state-dir asks it to).
set -u
cd "$(dirname "$0")/../.." || exit 1
out=tests/out/smoke
mkdir -p "$out"
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

snap() {
	for d in /proc/irq/[0-9]*; do
		printf '%s %s\n' "${d#/proc/irq/}" "$(cat "$d/smp_affinity_list" 2>/dev/null)"
	done
}

# What /run/irqtune holds, to the nanosecond of each file's change.
runstate() {
	if [ -e /run/irqtune ]; then
		find /run/irqtune -printf '%p %y %s %i %T@ %C@\n' | sort
	else
		echo "no /run/irqtune"
	fi
}

# A run from cron holds /run/irqtune.lock while it keeps its own state:
# held here from the first look to the last, so that what changes in
# /run/irqtune is the dry run's doing.
if [ -r /run/irqtune.lock ] && command -v flock >/dev/null; then
	exec 9</run/irqtune.lock && flock -w 120 9
fi
snap >"$out/before"
runstate >"$out/run.before"
# --no-config: a state-dir in this host's configuration would ask a dry
# run to keep its state, and the defaults are what is tested here.
./irqtune --dry-run --no-config --window 0.3 >"$out/stdout" 2>"$out/stderr"
rc=$?
snap >"$out/after"
runstate >"$out/run.after"
exec 9<&-
if [ "$rc" -eq 0 ]; then pass "dry-run exits 0"; else fail "dry-run exits 0" "exit $rc: $(cat "$out/stderr")"; fi
if cmp -s "$out/before" "$out/after"; then
	pass "dry-run writes no affinity"
else
	fail "dry-run writes no affinity" "$(diff "$out/before" "$out/after")"
fi

if cmp -s "$out/run.before" "$out/run.after"; then
	pass "dry-run keeps no state in /run/irqtune"
else
	fail "dry-run keeps no state in /run/irqtune" "$(diff "$out/run.before" "$out/run.after")"
fi

# Every IRQ with a handler (a named subdirectory in /proc/irq/N) is listed.
missing=
for d in /proc/irq/[0-9]*; do
	n=${d#/proc/irq/}
	grep -q "^ *$n: " /proc/interrupts || continue
	set -- "$d"/*/
	[ -d "$1" ] || continue
	awk -v n="$n" '$1 == n { found = 1 } END { exit !found }' "$out/stdout" ||
		missing="$missing $n"
done
if [ -z "$missing" ]; then pass "dry-run lists every IRQ with a handler"; else fail "dry-run lists every IRQ with a handler" "missing:$missing"; fi

if grep -q '^irqtune: [0-9]* seen, [0-9]* movable, [0-9]* to move, [0-9]* kernel-managed, 0 failed' "$out/stdout"; then
	pass "dry-run prints the summary"
else
	fail "dry-run prints the summary" "$(tail -3 "$out/stdout")"
fi
