#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# e2e-counts.sh - counts read without /proc/interrupts (IRQTUNE_COUNTS=stat,
# the default from 2048 online CPUs: /proc/stat's per-IRQ totals on each
# IRQ's effective CPU) give the plan that /proc/interrupts gives, on every
# simulated machine where they are exact, and say so; where they are not,
# the run says it went back to /proc/interrupts. Each machine's second
# sample is rendered ahead, as make bench-speed freezes its machines, and
# tests/bench/benchshim.so turns the window into a swap of the three files,
# so that both runs see one and the same window: its monotonic clock moves
# only by the sleeps, so the window is exactly the one asked for however
# late a loaded machine wakes the run (both reports say 1 s), the planner
# has no clock and no time budget (plan_improve's is a count of moves),
# and the machine is on this suite's own /dev/shm directory. Two plans
# that still differ are reported with what differed (plans_differ).
# The clock reads a machine's uptime (BENCH_UPTIME, a minute, as irqsim
# builds them), not this host's: past two minutes, a run with no history
# also takes the counters since boot as evidence, which only
# /proc/interrupts gives per CPU (irqtune(8)), and the two runs would then
# differ by that.
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
	(UMOCKDEV_DIR=$D BENCH_MODE=replay BENCH_UPTIME=60 LD_PRELOAD="$shim $PRELOAD" IRQTUNE_COUNTS=$1 \
		$VALGRIND "$top/irqtune" -n --json --no-config --no-state \
		>"$D.$1.json" 2>"$D.$1.err" </dev/null; exit $?) 2>/dev/null
}
plan() { jq -S 'del(.run, .counts, .counts_reason)' "$1"; }
# What told the two runs apart, when their plans differ: the window each
# measured, and the IRQs whose load differs (the input) or whose load is
# the same and CPU not (the planner). Both reports are kept in tests/out.
plans_differ() {	# plans_differ NAME
	local w
	w=$(jq -r .run.window_seconds "$D.interrupts.json" "$D.stat.json" | tr '\n' ' ')
	mkdir -p "$top/tests/out"
	cp "$D.interrupts.json" "$top/tests/out/e2e-counts-$1.interrupts.json"
	cp "$D.stat.json" "$top/tests/out/e2e-counts-$1.stat.json"
	printf 'windows %s; ' "$w"
	jq -rn --slurpfile a "$D.interrupts.json" --slurpfile b "$D.stat.json" '
		[$a[0].irqs, $b[0].irqs] | transpose
		| map(select(.[0].load != .[1].load or .[0].to != .[1].to))
		| "\(length) IRQs differ: " + (.[:4] | map("irq \(.[0].irq) load \(.[0].load)/\(.[1].load) to \(.[0].to)/\(.[1].to)") | join(", "))'
	printf ' (both reports in tests/out/e2e-counts-%s.*.json)' "$1"
}
replays_same() {
	[ -s "$D.replay.json" ] &&
	cmp -s <(plan "$D.live.json" | grep -v 'hostname\|"history"') \
	       <(plan "$D.replay.json" | grep -v 'hostname\|"history"') &&
	[ "$(jq -r .counts "$D.live.json")" = "$(jq -r .counts "$D.replay.json")" ]
}

# Under valgrind or ASan ($SMALL, tests/lib.sh) the machines that differ in
# kind: offline CPUs, possible CPUs beyond the online ones, kernel-managed
# IRQs, pinned threads, and counts that wrap (not exact, and a capture);
# the plain pass runs every machine.
machines=$(cd "$top/tests/sim/machines" && ls -- *.txt | sed 's/\.txt$//')
[ -n "$SMALL" ] && machines="tiny offline cloud-vm numa2-managed app-poller wrap"
min_exact=10
[ -n "$SMALL" ] && min_exact=4

exact=0 busy=0
for name in $machines; do
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
		why="$(jq -r .run.window_seconds "$D.interrupts.json" "$D.stat.json" | tr '\n' ' ')"
		check "counts $name: both runs measured the same window" \
			[ "$(jq .run.window_seconds "$D.interrupts.json")" = "$(jq .run.window_seconds "$D.stat.json")" ]
		why=
		cmp -s <(plan "$D.interrupts.json") <(plan "$D.stat.json") ||
			why="plans differ: $(plans_differ "$name")"
		check "counts $name: the plan of /proc/interrupts without reading it" [ -z "$why" ]
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
		(UMOCKDEV_DIR=$D BENCH_MODE=replay BENCH_UPTIME=60 LD_PRELOAD="$shim $PRELOAD" IRQTUNE_COUNTS=stat \
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
check "counts: most simulated machines are exact without /proc/interrupts" [ "$exact" -ge "$min_exact" ]
# Not a comparison of two empty windows.
why="no IRQ had a load"
check "counts: the exact machines' IRQs had loads ($busy)" [ "$busy" -gt 100 ]
