#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e-counts.sh - counts read without /proc/interrupts (IRQTUNE_COUNTS=stat,
# the default from 2048 online CPUs: /proc/stat's per-IRQ totals on each
# IRQ's effective CPU) give the plan that /proc/interrupts gives, on every
# simulated machine where they are exact, and say so; where they are not,
# the run says it went back to /proc/interrupts. Each machine's second
# sample is rendered ahead, as make bench-speed freezes its machines, and
# tests/bench/benchshim.so turns the window into a swap of the three files,
# so that both runs see one and the same window.
. "$(dirname "$0")/../lib.sh"
e2e_setup counts

shim=$top/tests/out/bench/benchshim.so
[ -e "$shim" ] || make -s -C "$top" tests/out/bench/benchshim.so >/dev/null 2>&1
[ -e "$shim" ] || { fail counts "cannot build $shim"; exit 0; }

# freeze: the second sample of $D rendered into replay/b, the first in replay/a
freeze() {
	local f
	mkdir -p "$D/replay/a" "$D/replay/b" || return 1
	for f in interrupts stat softirqs; do cp "$D/proc/$f" "$D/replay/a/$f" || return 1; done
	"$sim" step "$D" 1 >/dev/null || return 1
	for f in interrupts stat softirqs; do
		mv "$D/proc/$f" "$D/replay/b/$f" || return 1
	done
	mv "$D/sim.state" "$D/replay/sim.state"
	: >"$D/replay/sink"
}
# unfreeze: the first sample back in place for the next run
rewind() {
	local f
	for f in interrupts stat softirqs; do ln -sfn "../replay/a/$f" "$D/proc/$f"; done
}
# counts_run WAY: one dry run, JSON in $D.WAY.json
counts_run() {
	rewind
	(UMOCKDEV_DIR=$D BENCH_MODE=replay LD_PRELOAD="$shim $PRELOAD" IRQTUNE_COUNTS=$1 \
		$VALGRIND "$top/irqtune" -n --json --no-config --no-state \
		>"$D.$1.json" 2>"$D.$1.err" </dev/null; exit $?) 2>/dev/null
}
plan() { jq -S 'del(.run, .counts, .counts_reason)' "$1"; }
replays_same() {
	[ -s "$D.replay.json" ] &&
	cmp -s <(plan "$D.live.json" | grep -v 'hostname\|"history"') \
	       <(plan "$D.replay.json" | grep -v 'hostname\|"history"') &&
	[ "$(jq -r .counts "$D.live.json")" = "$(jq -r .counts "$D.replay.json")" ]
}

exact=0 busy=0
for desc in "$top"/tests/sim/machines/*.txt; do
	name=$(basename "$desc" .txt)
	machine "$name" || continue
	freeze || { fail "counts $name" "cannot freeze the machine"; continue; }
	counts_run interrupts; rc_i=$?
	counts_run stat; rc_s=$?
	if [ "$rc_i" -gt 1 ] || [ "$rc_s" -gt 1 ]; then
		fail "counts $name" "exit $rc_i with /proc/interrupts, $rc_s without: $(head -c 300 "$D.stat.err")"
		continue
	fi
	way=$(jq -r .counts "$D.stat.json")
	if [ "$way" = stat ]; then
		exact=$((exact + 1))
		busy=$((busy + $(jq '[.irqs[] | select(.load > 0)] | length' "$D.stat.json")))
		why="plans differ: $(diff <(plan "$D.interrupts.json") <(plan "$D.stat.json") | head -8 | tr '\n' ' ')"
		check "counts $name: the plan of /proc/interrupts without reading it" \
			cmp -s <(plan "$D.interrupts.json") <(plan "$D.stat.json")
	else
		# Not exact here: the second window is its own, only the input is checked.
		why="counts '$way', reason '$(jq -r .counts_reason "$D.stat.json")'"
		check "counts $name: not exact, so /proc/interrupts, a window later" \
			grep -q '"counts_reason":"/proc/interrupts, a window later: irq [0-9]' "$D.stat.json"
	fi
	why="counts '$(jq -r .counts "$D.interrupts.json")'"
	check "counts $name: IRQTUNE_COUNTS=interrupts reads /proc/interrupts" \
		[ "$(jq -r .counts "$D.interrupts.json")" = interrupts ]
	# A capture holds what was read, the snapshots of a second window too,
	# and its replay takes the same way to the same plan.
	case $name in big|wrap)
		rewind
		(UMOCKDEV_DIR=$D BENCH_MODE=replay LD_PRELOAD="$shim $PRELOAD" IRQTUNE_COUNTS=stat \
			"$top/irqtune" -n --json --no-config --no-state --capture="$D.cap" \
			>"$D.live.json" 2>"$D.live.err" </dev/null) 2>/dev/null
		"$top/irqtune" --replay="$D.cap" --json >"$D.replay.json" 2>"$D.replay.err"
		why="$(head -c 300 "$D.replay.err") $(diff <(plan "$D.live.json" | grep -v hostname) \
			<(plan "$D.replay.json" | grep -v hostname) | head -6 | tr '\n' ' ')"
		check "counts $name: a capture replays to the same plan, the same way" replays_same
	esac
	rm -rf "$D" "$D".*
done
why="only $exact machines were exact"
check "counts: most simulated machines are exact without /proc/interrupts" [ "$exact" -ge 10 ]
# Not a comparison of two empty windows.
why="no IRQ had a load"
check "counts: the exact machines' IRQs had loads ($busy)" [ "$busy" -gt 100 ]
