#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# quality.sh - how well irqtune balances the simulated machines of
# tests/sim/machines: against the oracle (irqsim oracle: the best placement
# under irqtune's rules, from the model's true loads), against irqtune's own
# planner fed the true loads (tests/sim/planprobe: planner error apart from
# estimate error) and, where installed, against irqbalance --oneshot run on
# the same machines under the same preloads, and against the plan irqtune
# makes from the measured (bpf) source as modelled (tests/sim/bpfplan.sh:
# a replay with the window's exact per-IRQ times). Prints markdown tables;
# docs/quality.md explains every column. On machines with application
# threads (tests/sim/machines/app-*) a last table has issue 31's two
# figures: IRQ work on pinned-application CPUs and the busiest CPU's whole
# load, at boot, after the tool (and after cron run 4), the oracle's, and
# irqtune's planner on the true loads.
#
#	make bench
#	QUALITY_MACHINES="router big" QUALITY_TOOLS=irqtune tests/bench/quality.sh
#
# Per machine and tool: build the machine, run the tool, score, run it again
# (a second run under the same load), then for every "shift" of the machine
# description in turn: apply it and run the tool once more.
#
# Cron mode (irqtune only, QUALITY_CRON_RUNS runs, 4 by default, 0: none):
# on a fresh build, that many runs a minute apart (irqsim step 59) keeping the load history
# (state-dir in the machine's directory, as tests/e2e/e2e-history.sh does),
# then each shift and one run a minute after it; per run the load ratio, its
# distance from the oracle, the moves and the estimate's total error.
#
# Nothing here touches the host's /proc/irq: every run is under
# tests/shims/fakekernel.so and umockdev, on a tree in /dev/shm (QUALITY_KEEP=1
# keeps it).
set -u
# the host's journal and udev database out of reach (tests/hostns.sh)
. "$(dirname "$0")/../hostns.sh"
host_private "$@"
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
sim=$top/tests/sim/irqsim
probe=$top/tests/sim/planprobe
fk=$top/tests/shims/fakekernel.so
pt=$top/tests/sim/polltime.so
window=${QUALITY_WINDOW:-1}
cron_runs=${QUALITY_CRON_RUNS:-4}
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
work=$(mktemp -d "$base/irqtune-quality.XXXXXX") || exit 1
[ -n "${QUALITY_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT INT TERM

for f in "$top/irqtune" "$sim" "$probe" "$fk" "$pt"; do
	[ -e "$f" ] || { echo "quality.sh: $f missing: run make bench" >&2; exit 1; }
done
machines=${QUALITY_MACHINES:-$(cd tests/sim/machines && ls -- *.txt | sed 's/\.txt$//')}
tools=${QUALITY_TOOLS:-irqtune irqbalance}
have_irqbalance=
command -v irqbalance >/dev/null 2>&1 && have_irqbalance=1

key() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }	# key KEY FILE
f3() { printf '%.3f' "$1"; }

# Every IRQ's smp_affinity_list, one "N/smp_affinity_list:list" line each.
affs() { (cd "$1/proc/irq" && grep -H . -- */smp_affinity_list) | sort; }
# IRQs whose affinity differs between two affs listings.
changed() { diff "$1" "$2" | grep -c '^>'; }

run_tool() {	# run_tool TOOL DIR LOG [IRQTUNE-ARGS]
	local tool=$1 dir=$2 log=$3

	shift 3
	case $tool in
	irqtune)
		UMOCKDEV_DIR=$dir LD_PRELOAD="$fk libumockdev-preload.so.0" \
			"$top/irqtune" -v -w "$window" "$@" >"$log" 2>&1 ;;
	irqbalance)
		# irqbalance waits in its glib main loop (poll), hence polltime.so;
		# --oneshot measures one interval (10 s of model time) and places.
		UMOCKDEV_DIR=$dir LD_PRELOAD="$pt $fk libumockdev-preload.so.0" \
			timeout 300 irqbalance --oneshot --foreground >"$log" 2>&1 ;;
	esac
}

# "RHO ERR N" of irqtune's load estimate against the true loads
# (tests/sim/accuracy.awk).
accuracy() { awk -f "$top/tests/sim/accuracy.awk" "$1" "$2"; }	# accuracy LOG SHOW

# measure TOOL MACHINE: one row in each of the tables.
measure() {
	local tool=$1 m=$2 D=$work/$1-$2 desc=tests/sim/machines/$2.txt
	local p1=- b1=- prev sh k=2 pr=- rc

	"$sim" build "$desc" "$D" >/dev/null || { echo "| $m | $tool | build failed |" >>"$work/t1"; return; }
	"$sim" oracle "$D" >"$D.o0"
	"$sim" score "$D" >"$D.s0"
	[ "$tool" = irqtune ] && "$probe" "$D" >"$D.p0"
	affs "$D" >"$D.a0"
	run_tool "$tool" "$D" "$D.log1"
	rc=$?
	if [ "$tool" = irqbalance ] && { [ "$rc" -ne 0 ] ||
	    grep -qE 'bailing out|Shutting down' "$D.log1"; }; then
		echo "| $m | $tool | failed (exit $rc): $(tail -1 "$D.log1") |" >>"$work/t1"
		return
	fi
	affs "$D" >"$D.a1"
	"$sim" score "$D" >"$D.s1"
	"$sim" rules "$D" >"$D.r1"
	"$sim" show "$D" >"$D.show1"
	run_tool "$tool" "$D" "$D.log2"
	affs "$D" >"$D.a2"

	if [ "$tool" = irqtune ]; then
		# the measured source's plan, on a copy of the machine as built
		"$sim" build "$desc" "$D.bpf" >/dev/null &&
			"$top/tests/sim/bpfplan.sh" "$D.bpf" >"$D.b0" &&
			"$sim" score "$D.bpf" >"$D.bs0" &&
			b1="$(awk -v a="$(key max_load "$D.bs0")" -v o="$(key oracle_max_load "$D.o0")" \
				'BEGIN { printf "%+.1f", (o > 0 ? 100 * (a / o - 1) : 0) }')"
		p1=$(f3 "$(key probe_ratio "$D.p0")")
		[ "$(key probe_moves_second "$D.p0")" = 0 ] ||
			p1="$p1 (2nd: $(key probe_moves_second "$D.p0"))"
		set -- $(accuracy "$D.log1" "$D.show1")
		echo "| $m | $(grep -q '^irqaccounting off' "$desc" && echo off || echo on) | $1 | $2 | $3 |" >>"$work/t4"
	fi
	[ -n "$(key irq_on_app_pct "$D.s1")" ] && app_row "$m" "$tool" "$D.s0" "$D.s1" "$D.o0" \
		"$([ "$tool" = irqtune ] && printf '%s%% / %s' "$(key probe_irq_on_app_pct "$D.p0")" \
			"$(f3 "$(key probe_whole_max_load "$D.p0")")" || echo -)"
	echo "| $m | $tool | $(f3 "$(key load_ratio "$D.s0")") | $(f3 "$(key load_ratio "$D.s1")") |" \
	     "$(f3 "$(key oracle_ratio "$D.o0")") | $(f3 "$(key oracle_spread_ratio "$D.o0")") |" \
	     "$(f3 "$(key oracle_any_node_ratio "$D.o0")") |" \
	     "$(awk -v a="$(key max_load "$D.s1")" -v o="$(key oracle_max_load "$D.o0")" \
		'BEGIN { printf "%+.1f", (o > 0 ? 100 * (a / o - 1) : 0) }') | $p1 | $b1 |" \
	     "$(key numa_local_load_pct "$D.s1") | $(changed "$D.a0" "$D.a1") | $(changed "$D.a1" "$D.a2") |" >>"$work/t1"
	echo "| $m | $tool |" \
	     "$(awk '$1 ~ /\.spread_cores$/ { g += $2 } $1 ~ /\.spread_target$/ { t += $2 }
		END { if (t) printf "%d/%d", g, t; else printf "-" }' "$D.r1") |" \
	     "$(key nic_shared_cores "$D.r1") ($(key nic_shared_avoidable "$D.r1")) |" \
	     "$(key smt_next_to_nic "$D.r1") ($(key smt_next_to_nic_avoidable "$D.r1")) |" \
	     "$(key count_max "$D.r1")/$(key count_fair "$D.r1") |" \
	     "$(( $(key movable_on_isolated "$D.s1") + $(key movable_on_nohz_full "$D.s1") +
		  $(key movable_on_offline "$D.s1") )) | $(key max_irqs_per_cpu "$D.s1") |" >>"$work/t2"

	prev=$D.a2
	for sh in $(awk '$1 == "shift" && !seen[$2]++ { print $2 }' "$desc"); do
		k=$((k + 1))
		"$sim" shift "$D" "$sh" >/dev/null || continue
		"$sim" oracle "$D" >"$D.o$k"
		"$sim" score "$D" >"$D.s$k.0"
		if [ "$tool" = irqtune ]; then
			"$probe" "$D" >"$D.p$k"
			pr="$(f3 "$(key probe_ratio "$D.p$k")") ($(key probe_moves "$D.p$k"))"
		fi
		run_tool "$tool" "$D" "$D.log$k"
		affs "$D" >"$D.a$k"
		"$sim" score "$D" >"$D.s$k"
		echo "| $m | $tool | $sh | $(f3 "$(key load_ratio "$D.s$k.0")") |" \
		     "$(key oracle_moves_lb "$D.o$k")/$(key oracle_moves_greedy "$D.o$k") |" \
		     "$(changed "$prev" "$D.a$k") | $(f3 "$(key load_ratio "$D.s$k")") |" \
		     "$(f3 "$(key oracle_ratio "$D.o$k")") | $pr |" >>"$work/t3"
		prev=$D.a$k
	done
}

# app_row MACHINE TOOL SCORE-BEFORE SCORE-AFTER ORACLE TRUE-LOAD-PLAN: on a
# machine with application threads, the two headline figures (IRQ work on
# pinned-application CPUs, the busiest CPU's whole load) before and after
# the tool, against the oracle that knows the threads' true load.
app_row() {
	echo "| $1 | $2 | $(key irq_on_app_pct "$3")% / $(f3 "$(key whole_max_load "$3")") |" \
	     "$(key irq_on_app_pct "$4")% / $(f3 "$(key whole_max_load "$4")") |" \
	     "$(key oracle_irq_on_app_pct "$5")% / $(f3 "$(key oracle_whole_max_load "$5")") |" \
	     "$(key oracle_spread_irq_on_app_pct "$5")% / $(f3 "$(key oracle_spread_whole_max_load "$5")") |" \
	     "$6 |" >>"$work/t6"
}

# "RATIO (+VS%) / MOVES / ERR%" of the run that wrote LOG: one cron cell.
cron_cell() {	# cron_cell DIR LOG ORACLE-FILE
	local D=$1 ratio err
	"$sim" score "$D" >"$D.cs"
	"$sim" show "$D" >"$D.cshow"
	ratio=$(key load_ratio "$D.cs")
	set -- "$D" "$2" "$(key oracle_max_load "$3")"
	err=$(accuracy "$2" "$D.cshow" | awk '{ print $2 }')
	printf '%s (%s) / %s / %s%%' "$(f3 "$ratio")" \
		"$(awk -v a="$(key max_load "$D.cs")" -v o="$3" \
			'BEGIN { printf "%+.1f%%", (o > 0 ? 100 * (a / o - 1) : 0) }')" \
		"$(sed -n 's/^irqtune: .*movable, \([0-9][0-9]*\) moved.*/\1/p' "$2" | tail -1)" \
		"$err"
}

# cron MACHINE: one row of the cron-mode table.
cron() {
	local m=$1 D=$work/cron-$1 desc=tests/sim/machines/$1.txt r row sh

	"$sim" build "$desc" "$D" >/dev/null || { echo "| $m | build failed |" >>"$work/t5"; return; }
	printf 'state-dir = %s/state\n' "$D" >"$D.conf"
	chmod 644 "$D.conf"
	"$sim" oracle "$D" >"$D.o0"
	"$sim" score "$D" >"$D.o0.s"
	row="| $m | $(f3 "$(key oracle_ratio "$D.o0")") | $(f3 "$(key oracle_any_node_ratio "$D.o0")") |"
	for r in $(seq 1 "$cron_runs"); do
		# a minute from the start of one run to the next, as from cron
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		run_tool irqtune "$D" "$D.log$r" -c "$D.conf"
		row="$row $(cron_cell "$D" "$D.log$r" "$D.o0") |"
	done
	[ -n "$(key irq_on_app_pct "$D.cs")" ] &&
		app_row "$m" "irqtune, cron run $cron_runs" "$D.o0.s" "$D.cs" "$D.o0" -
	sh=
	for s in $(awk '$1 == "shift" && !seen[$2]++ { print $2 }' "$desc"); do
		"$sim" shift "$D" "$s" >/dev/null || continue
		"$sim" step "$D" 59 >/dev/null
		"$sim" oracle "$D" >"$D.o.$s"
		run_tool irqtune "$D" "$D.log.$s" -c "$D.conf"
		sh="$sh${sh:+, }$s $(cron_cell "$D" "$D.log.$s" "$D.o.$s") (oracle $(f3 "$(key oracle_ratio "$D.o.$s")"))"
	done
	echo "$row $sh |" >>"$work/t5"
}

: >"$work/t1"; : >"$work/t2"; : >"$work/t3"; : >"$work/t4"; : >"$work/t5"; : >"$work/t6"
for m in $machines; do
	for t in $tools; do
		if [ "$t" = irqbalance ] && [ -z "$have_irqbalance" ]; then
			echo "| $m | irqbalance | not installed: skipped |" >>"$work/t1"
			continue
		fi
		measure "$t" "$m"
	done
	case " $tools " in
	*" irqtune "*) [ "$cron_runs" -gt 0 ] && cron "$m" ;;
	esac
done

echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -srm), $(nproc) CPUs" \
     "($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo));" \
     "irqtune $("$top/irqtune" -V 2>&1 | head -1 | awk '{ print $NF }'), window ${window} s;" \
     "$([ -n "$have_irqbalance" ] && irqbalance --version 2>&1 | head -1 || echo 'irqbalance not installed')."
echo
echo "Balance (load ratio = busiest CPU / lower bound; oracle = best possible):"
echo
echo "| machine | tool | ratio before | ratio after | oracle | oracle, spread | oracle, any node | vs oracle % | true-load plan | bpf plan vs oracle % | NUMA local % | moves | 2nd run moves |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
cat "$work/t1"
echo
echo "Placement rules after the first run (avoidable cases in parentheses):"
echo
echo "| machine | tool | spread cores got/target | NIC-shared cores | heavy IRQs next to NIC | idle IRQs/CPU max/fair | on avoided CPUs | max IRQs/CPU |"
echo "|---|---|---|---|---|---|---|---|"
cat "$work/t2"
echo
echo "Load shifts (applied in turn after the second run):"
echo
echo "| machine | tool | shift | ratio before | moves needed ≥ / greedy | moves | ratio after | oracle | true-load plan (moves) |"
echo "|---|---|---|---|---|---|---|---|---|"
cat "$work/t3"
if [ -s "$work/t4" ]; then
	echo
	echo "irqtune's load estimate against the true load (first run, IRQs with interrupts):"
	echo
	echo "| machine | irq time accounting | Spearman ρ | total abs. error % | IRQs |"
	echo "|---|---|---|---|---|"
	cat "$work/t4"
fi
if [ -s "$work/t5" ]; then
	echo
	echo "Cron mode: irqtune $cron_runs times a minute apart with the load history, then once a minute after each shift" \
	     "(per run: load ratio (vs oracle) / moves / estimate's total error):"
	echo
	printf '| machine | oracle | oracle, any node |'
	for r in $(seq 1 "$cron_runs"); do printf ' run %s |' "$r"; done
	printf ' after each shift |\n|---|---|---|'
	for r in $(seq 1 "$cron_runs"); do printf -- '---|'; done
	printf -- '---|\n'
	cat "$work/t5"
fi
if [ -s "$work/t6" ]; then
	echo
	echo "Pinned application threads (IRQ work on CPUs whose pinned threads run > 5% of them / busiest CPU's whole load, IRQ + pinned threads):"
	echo
	echo "| machine | tool | before | after | oracle | oracle, spread | true-load plan |"
	echo "|---|---|---|---|---|---|---|"
	cat "$work/t6"
fi
