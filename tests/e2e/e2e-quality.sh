#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end placement quality: the real irqtune binary balances every
# simulated machine once, and the result is held against the oracle (irqsim
# oracle: the best placement under irqtune's rules, from the model's true
# loads) and against irqtune's placement rules (irqsim rules). Then a second
# run under the same load must move nothing, and every load shift of the
# machine must be followed with few moves. docs/quality.md has the figures
# these tolerances come from, and says why some are looser than the targets.
# The crowded machines of issue 27 (crowd-a, crowd-b) and the unlike CPUs
# of issue 26 (biglittle, hybrid, vectors288) are also held in cron mode,
# four runs a minute apart with the load history, and against the plan the
# measured (bpf) source makes as modelled (tests/sim/bpfplan.sh). On
# vectors288 no write may fail for want of a vector.
# Every machine is also held under the SMT objective (issue 34: a CPU's
# load plus half its SMT siblings', as irqtune plans; irqsim score's
# smt_max_load against irqsim oracle's oracle_smt_max_load), first run and
# fourth cron run, within 5% (smt_first, smt_cron); the SMT machines of
# issue 34 (smt-e810, smt-wrongnode) and its arm64 one (arm64-spi) run
# the whole sequence too.
# numa2 is also held under a site policy that allows its NIC 4 of its
# node's 16 cores: runs under the same load move nothing (narrow()).
# softmix (issue 34: NIC and storage queues one to one on the CPUs of a
# node, NICs of unlike per-packet cost) is also held per device after one
# window of the /proc estimate (split()), and so are it and crowd-a an
# hour after boot, when the counters since boot tell more (split boot).
# QUALITY_MACHINES, QUALITY_CRON, QUALITY_NARROW, QUALITY_SPLIT and
# QUALITY_SPLIT_BOOT name a subset (as tests/bench does).
# Prints "PASS name" or "FAIL name: why" per test.
#
# Under valgrind or ASan ($SMALL, tests/lib.sh) only a few small machines
# run: the placement code paths, not the figures, are what the
# instruments are for.
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup e2e-quality
planprobe_find

times() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a * b }'; }
key() { awk -v k="$1" '$1 == k { print $2; exit }' "$2"; }	# key KEY FILE

run() {	# run NAME: irqtune -v against $D; output in $D.out, status $RC
	UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" \
		$VALGRIND "$top/irqtune" -v -w 1 >"$D.out" 2>"$D.err"
	RC=$?
	why="exit $RC: $(head -c 2000 "$D.err")"; check "$1 exits 0" [ "$RC" -eq 0 ]
}
moved() { sed -n 's/^irqtune: .*movable, \([0-9][0-9]*\) moved.*/\1/p' "$D.out" | tail -1; }

# "RHO ERR" of irqtune's load estimate against the true loads
# (tests/sim/accuracy.awk); "1 0" when there are too few IRQs to tell.
accuracy() {	# accuracy LOG SHOW -> "rho err"
	awk -f "$top/tests/sim/accuracy.awk" "$1" "$2" |
		awk '{ if ($3 < 3) print "1 0"; else print $1, $2 }'
}

# Tolerance on the load ratio over the oracle's: the 5% target, on every
# machine held here.
slack() { echo 1.05; }

# The oracle a machine is held to: irqtune's rules, and on hybrid with the
# spreading rule too. There a NIC's 16 queues take 16 physical cores, 8 of
# them E-cores, where the model (which runs an SMT thread at full speed
# whatever its sibling does) would rather put two on each P-core: a rule
# that costs balance on purpose (docs/quality.md, "Capacity and vector
# space").
yard() {
	case $1 in
	hybrid) echo oracle_spread ;;
	*) echo oracle ;;
	esac
}

# The estimate's total error after one window of a second. A CPU's time is
# read in clock ticks of 1% of a CPU, at whatever phase the tick is in:
# where CPUs carry IRQ loads of a tick or two, that tick is most of the
# error, whatever the estimate does (isolated: 28 CPUs at 1-2%; tiny: all
# on one CPU, its hard-irq time under a tick). docs/quality.md has them.
err_bound() {
	case $1 in
	isolated) echo 60 ;;
	tiny) echo 30 ;;
	*) echo 20 ;;
	esac
}

# quality MACHINE: the whole sequence on one machine.
quality() {
	local m=$1 ratio orc lim p r sh k=0 greedy
	D=$work/$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$D" >/dev/null || {
		fail "$m: build" "irqsim build failed"; return; }
	"$sim" oracle "$D" >"$D.oracle"
	[ -n "$probe" ] && "$probe" "$D" >"$D.probe"
	# the true loads where the run measured them (on unlike CPUs an
	# IRQ's time depends on its CPU)
	"$sim" show "$D" >"$D.show0"
	run "$m: first run"
	"$sim" score "$D" >"$D.score"
	"$sim" rules "$D" >"$D.rules"
	"$sim" show "$D" >"$D.show"
	ratio=$(key load_ratio "$D.score")
	orc=$(key "$(yard "$m")_ratio" "$D.oracle")
	lim=$(times "$orc" "$(slack "$m")")
	why="ratio $ratio, oracle $orc"
	check "$m: load ratio within $(slack "$m") of the oracle's" le "$ratio" "$lim"
	if le "$orc" 1.10 && [ "$m" != arm64-spi ]; then
		why="ratio $ratio"; check "$m: load ratio at most 1.10" le "$ratio" 1.10
	fi
	if [ -n "$probe" ]; then
		p=$(key probe_ratio "$D.probe")
		why="planner on true loads: $p, oracle $orc"
		check "$m: planner on true loads within 2% of the oracle" le "$p" "$(times "$orc" 1.02)"
		why="$(key probe_moves_second "$D.probe") moves"
		check "$m: planner on true loads is still on a second run" \
			[ "$(key probe_moves_second "$D.probe")" = 0 ]
	fi
	smt_first "$m"
	why="$(key numa_local_load_pct "$D.score")%"
	check "$m: all device IRQ work on its node" [ "$(key numa_local_load_pct "$D.score")" = 100.00 ]
	why="$(grep spread "$D.rules" | tr '\n' ' ')"
	check "$m: multi-queue devices on min(queues, cores) cores" [ "$(key spread_short_devices "$D.rules")" = 0 ]
	why="$(key nic_shared_avoidable "$D.rules") avoidable"
	check "$m: no two NICs on a core while one is free" [ "$(key nic_shared_avoidable "$D.rules")" = 0 ]
	why="$(key smt_next_to_nic_avoidable "$D.rules") avoidable"
	check "$m: busy IRQs off busy NIC CPUs' SMT siblings" [ "$(key smt_next_to_nic_avoidable "$D.rules")" = 0 ]
	why="$(grep -E '^movable_on_' "$D.score" | tr '\n' ' ')"
	check "$m: no movable IRQ on isolated, nohz_full or offline CPUs" \
		[ "$(awk '/^movable_on_(isolated|nohz_full|offline) / { n += $2 } END { print n + 0 }' "$D.score")" = 0 ]
	why="idle IRQs: $(key count_max "$D.rules") on one CPU, fair share $(key count_fair "$D.rules")"
	check "$m: idle IRQs spread by count (fair share + 2)" le "$(key count_excess "$D.rules")" 2
	if [ "$m" != hotspot ]; then	# one IRQ against 30 equal ones: ranks are ties
		set -- $(accuracy "$D.out" "$D.show0")
		why="Spearman $1"; check "$m: estimate ranks IRQs like the true load (rho >= 0.85)" ge "$1" 0.85
		why="total error $2%"
		check "$m: estimate within $(err_bound "$m")% in total" le "$2" "$(err_bound "$m")"
	fi
	[ "$m" = vectors288 ] && vectors
	run "$m: second run"
	why="$(tail -1 "$D.out")"; check "$m: second run moves nothing" [ "$(moved)" = 0 ]
	for sh in $(awk '$1 == "shift" && !seen[$2]++ { print $2 }' "$top/tests/sim/machines/$m.txt"); do
		k=$((k + 1))
		"$sim" shift "$D" "$sh" >/dev/null
		"$sim" oracle "$D" >"$D.oracle$k"
		[ -n "$probe" ] && "$probe" "$D" >"$D.probe$k"
		run "$m: run after shift $sh"
		"$sim" score "$D" >"$D.score$k"
		# judged as irqtune plans: with half the SMT siblings' load
		# (the same as the plain figures without SMT), and so is the
		# stability rule's 10%
		r=$(key smt_max_load "$D.score$k")
		orc=$(key "$(smt_yard "$m")_max_load" "$D.oracle$k")
		greedy=$(key oracle_moves_greedy "$D.oracle$k")
		[ "$greedy" -ge 0 ] 2>/dev/null || greedy=$(key oracle_jobs "$D.oracle$k")
		why="ratio $r, oracle $orc, $(moved) moved"
		check "$m: after shift $sh, busiest CPU (SMT objective) within 5% of the oracle's, or still within 10%" \
			followed "$(moved)" "$r" "$orc"
		why="$(moved) moved, greedy repair needs $greedy"
		check "$m: after shift $sh, at most 2x+2 the greedy repair's moves" \
			le "$(moved)" $((2 * greedy + 2))
		if [ -n "$probe" ]; then
			p=$(key probe_smt_max_load "$D.probe$k")
			why="planner on true loads: $p ($(key probe_moves "$D.probe$k") moves), oracle $orc"
			# The stability rule lets a placement within the 10%
			# threshold of the best stand.
			check "$m: after shift $sh, planner on true loads within 5% of the oracle, or still within 10%" \
				followed "$(key probe_moves "$D.probe$k")" "$p" "$orc"
			check "$m: after shift $sh, planner on true loads moves at most 2x+2 the greedy repair" \
				le "$(key probe_moves "$D.probe$k")" $((2 * greedy + 2))
		fi
	done
}

# Tolerance under the SMT objective: the 5% target, but on noacct, where
# the /proc estimate cannot see what the plan needs. Its kernel has no
# IRQ time accounting, so hard-irq time is nowhere in /proc and each
# interrupt is taken at the prior's 2 us: nvme0 takes 5 us and accel
# 10 us, so nvme0q1 reads 1.2% of a CPU for 3.0% and accel-0 0.4% for
# 2.0%. Both land on CPU 9, the sibling of eth0-TxRx-1's CPU 1: 0.1426
# against the oracle's 0.1285 (x1.110, first run and fourth cron run).
# The planner fed the true loads (planprobe) is at the oracle; it was
# 11% above it until plan_improve() took load off the busiest CPU's
# siblings, not only off the CPU itself.
smt_slack() {
	case $1 in
	noacct) echo 1.12 ;;
	*) echo 1.05 ;;
	esac
}

# The SMT objective's oracle a machine is held to: with the spreading rule
# (a device's busy queues on distinct cores), which irqtune keeps. By a
# CPU's own load the rule costs next to nothing, but counting the
# siblings it can: on managed after its burst the best is 0.1465 without
# it and 0.1591 with it, and irqtune, which keeps the rule, stands at
# 0.1741 (before issue 34 too), within the stability rule's 10% of the
# latter only.
smt_yard() { echo oracle_smt_spread; }

# smt_first MACHINE: the first run's busiest CPU, counting half its SMT
# siblings' load, within 5% of the oracle under that objective ($D.score,
# $D.oracle of quality()). On machines without SMT both are the plain
# figures.
smt_first() {
	local m=$1 got orc
	got=$(key smt_max_load "$D.score")
	orc=$(key "$(smt_yard "$m")_max_load" "$D.oracle")
	why="busiest CPU with half its siblings' load $got, oracle $orc"
	check "$m: first run within $(smt_slack "$m") of the oracle under the SMT objective" \
		le "$got" "$(times "$orc" "$(smt_slack "$m")")"
}

# smt_cron MACHINE: four cron runs a minute apart with the load history;
# the fourth within 5% of the oracle under the SMT objective.
smt_cron() {
	local m=$1 r orc got
	D=$work/smtcron-$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$D" >/dev/null || {
		fail "$m: smt cron build" "irqsim build failed"; return; }
	printf 'state-dir = %s/state\n' "$D" >"$D.conf"
	chmod 644 "$D.conf"
	"$sim" oracle "$D" >"$D.oracle"
	for r in 1 2 3 4; do
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" \
			"$top/irqtune" -v -w 1 -c "$D.conf" >"$D.out" 2>"$D.err"
		RC=$?
		why="exit $RC: $(head -c 2000 "$D.err")"
		check "$m: smt cron run $r exits 0" [ "$RC" -eq 0 ]
	done
	"$sim" score "$D" >"$D.score4"
	got=$(key smt_max_load "$D.score4")
	orc=$(key "$(smt_yard "$m")_max_load" "$D.oracle")
	why="busiest CPU with half its siblings' load $got, oracle $orc"
	check "$m: cron run 4 within $(smt_slack "$m") of the oracle under the SMT objective" \
		le "$got" "$(times "$orc" "$(smt_slack "$m")")"
}

# vectors: on vectors288 after its first run, every write found a vector,
# the report says where vector space changed a choice, and it had to: a
# CPU it kept IRQs off has none left, and the kernel refuses one more.
vectors() {
	local full irq
	# irqtune tries the next best CPU after ENOSPC (apply.c), and the
	# report says only what was done: the model counts every write
	why="$(key writes "$D.score") writes for $(moved) moves; $(grep -E 'cannot set' "$D.out" "$D.err" | head -3)"
	check "vectors288: no write fails (ENOSPC): one write a move" \
		[ "$(key writes "$D.score")" = "$(moved)" ]
	why="$(grep 'interrupt vectors' "$D.out")"
	check "vectors288: the report says where vector space changed a choice" \
		grep -Eq '^irqtune: interrupt vectors: .*: [1-9][0-9]* IRQs kept off CPUs without a free vector' "$D.out"
	full=$(sed -n 's/.*; CPU \([0-9][0-9]*\) had no free vector.*/\1/p' "$D.out" | head -1)
	irq=$(awk -v c="$full" 'NR > 1 && $2 != c && $4 == "vf0" { print $1; exit }' "$D.show")
	why="CPU ${full:-none}, irq ${irq:-none}: $("$sim" set "$D" "${irq:-0}" "${full:-0}" 2>&1)"
	check "vectors288: the CPU named has no vector left: a write there fails with ENOSPC" \
		eval '"$sim" set "$D" "$irq" "$full" 2>&1 | grep -q "No space left on device"'
}

# cron MACHINE: four runs a minute apart with the load history (state-dir
# in the machine's directory), as cron runs irqtune: the first within 5% of
# the oracle, the fourth within 3%, nothing moved after the first; and the
# plan from the measured source's exact loads within 2% of the oracle, so
# that a gap left is the /proc estimate's and not the planner's.
cron() {
	local m=$1 r orc cut moves=0 mv
	D=$work/cron-$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$D" >/dev/null || {
		fail "$m: cron build" "irqsim build failed"; return; }
	printf 'state-dir = %s/state\n' "$D" >"$D.conf"
	chmod 644 "$D.conf"
	"$sim" oracle "$D" >"$D.oracle"
	orc=$(key "$(yard "$m")_max_load" "$D.oracle")
	for r in 1 2 3 4; do
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" \
			"$top/irqtune" -v -w 1 -c "$D.conf" >"$D.out" 2>"$D.err"
		RC=$?
		why="exit $RC: $(head -c 2000 "$D.err")"
		check "$m: cron run $r exits 0" [ "$RC" -eq 0 ]
		"$sim" score "$D" >"$D.score$r"
		mv=$(moved)
		[ "$r" -gt 1 ] && moves=$((moves + ${mv:-1}))
	done
	why="busiest CPU $(key max_load "$D.score1"), oracle $orc"
	check "$m: cron run 1 within 5% of the oracle" le "$(key max_load "$D.score1")" "$(times "$orc" 1.05)"
	why="busiest CPU $(key max_load "$D.score4"), oracle $orc"
	check "$m: cron run 4 within 3% of the oracle" le "$(key max_load "$D.score4")" "$(times "$orc" 1.03)"
	why="$moves moved"
	check "$m: cron runs 2-4 move nothing" [ "$moves" = 0 ]
	cut=$work/bpf-$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$cut" >/dev/null &&
		"$top/tests/sim/bpfplan.sh" "$cut" >"$cut.plan" 2>"$cut.err"
	why="$(cat "$cut.plan" "$cut.err" 2>/dev/null | tr '\n' ' ')"
	check "$m: the modelled measurement is the replay's load source" \
		[ "$(key bpf_source "$cut.plan")" = bpf ]
	"$sim" score "$cut" >"$cut.score"
	why="busiest CPU $(key max_load "$cut.score"), oracle $orc"
	check "$m: plan on the measured source within 2% of the oracle" \
		le "$(key max_load "$cut.score")" "$(times "$orc" 1.02)"
}

# A site policy that allows a device a few of its node's cores: numa2's
# 32-queue NIC on 4 of node 1's 16 cores ([net] cpus = 16-19,48-51, both
# threads of cores 16-19). Its queues share those cores, 8 a core, and a
# second run under the same load moves nothing: the share of a core is of
# the cores the device may use, not of its node's (counted against the
# node's, 21 queues moved again in every run).
narrow() {
	local m=$1 n bad= cpu per
	D=$work/narrow-$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$D" >/dev/null || {
		fail "$m narrow: build" "irqsim build failed"; return; }
	printf '[net]\ncpus = 16-19,48-51\n' >"$D.conf"
	chmod 644 "$D.conf"
	for r in 1 2 3; do
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" \
			$VALGRIND "$top/irqtune" -v -w 1 -c "$D.conf" >"$D.out" 2>"$D.err"
		RC=$?
		why="exit $RC: $(head -c 2000 "$D.err")"; check "$m narrow: run $r exits 0" [ "$RC" -eq 0 ]
		eval "mv$r=\$(moved)"
	done
	why="$mv1 moved"; check "$m narrow: the first run moves the NIC's queues" [ "${mv1:-0}" -ge 32 ]
	why="runs 2 and 3 moved ${mv2:-?} and ${mv3:-?}"
	check "$m narrow: runs under the same load move nothing" [ "$mv2" = 0 ] && [ "$mv3" = 0 ]
	# numa2 numbers CPUs like x86: core = CPU mod 32.
	per=$(for n in $(awk '/eth0-TxRx-/ { sub(":", "", $1); print $1 }' "$D/proc/interrupts"); do
		cpu=$(aff "$n")
		case $cpu in 16|17|18|19|48|49|50|51) ;; *) bad="$bad $n:$cpu" ;; esac
		echo $((cpu % 32))
	done | sort -n | uniq -c | awk '{ printf "%s%s", s, $1; s = " " }')
	why="IRQs outside the policy:$bad"; check "$m narrow: the NIC's queues stay within [net] cpus" [ -z "$bad" ]
	why="queues a core: $per"; check "$m narrow: 8 queues on each of the 4 cores" [ "$per" = "8 8 8 8" ]
}

# split MACHINE: issue 34. One window of the /proc estimate with no
# history (--no-state --dry-run --json, what a container without BPF
# gets on its first run) puts every device with 1% of a CPU or more in
# all within 20% of its true load (irqsim show, summed over its IRQs).
# softmix misses that target: its X710 and NVMe queues sit one to one on
# node 0's CPUs, so one second cannot tell them apart, and the MegaRAID is
# mostly hard-irq time, a clock tick of 1% on each of its CPUs. Its
# storage takes the pooled per-device costs (BLOCK's type cost is at its
# floor: estimate.c, pooled_where_differ): NVMe x0.81, MegaRAID x0.62
# (x0.68 and x0.55 before). Held to the bounds it had before, so it cannot
# get worse than that; split_cron holds its cron runs to 20%
# (docs/quality.md, issue 34).
# split MACHINE boot: the same one window with no history, an hour after
# boot: the first snapshot's counters since boot join the per-device fit
# (irqtune(8), "Estimated: the proc source"), the net and storage costs
# are reported found from them ("boot"), and every device with 1% of a
# CPU is held within 20% of its true load but softmix's NVMe drive. Its
# X710 and NVMe queues have shared node 0's CPUs one to one since boot, so
# the hour cannot tell those two apart either, and the split between them
# moves with the window's ticks: over 24 draws (uptimes of 10 minutes to
# a day, IRQSIM_PHASE_SEED 0-3) the NVMe drive is x0.63-0.98 (x0.76 here),
# the MegaRAID x0.89-1.08 (x0.89 here; x0.32-0.62 a minute after boot),
# the X710 x1.01-1.12 and the 82599 x0.97-1.04 (docs/quality.md).
split_bound() {	# split_bound KIND MACHINE DEVICE
	case $1/$2/$3 in
	split/softmix/megaraid0) echo 0.50 ;;
	split/softmix/nvme0) echo 0.35 ;;
	boot/softmix/nvme0) echo 0.40 ;;
	*) echo 0.20 ;;
	esac
}

split() {	# split MACHINE [boot]
	local m=$1 kind=${2:-split} name="$1 split" dev t e b
	[ "$kind" = boot ] && name="$m split boot"
	D=$work/$kind-$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$D" >/dev/null || {
		fail "$name: build" "irqsim build failed"; return; }
	[ "$kind" = boot ] && "$sim" step "$D" 3540 >/dev/null
	"$sim" show "$D" >"$D.show"
	UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" $VALGRIND "$top/irqtune" --no-state --dry-run \
		--json -w 1 >"$D.json" 2>"$D.err"
	RC=$?
	why="exit $RC: $(head -c 2000 "$D.err")"; check "$name: exits 0" [ "$RC" -eq 0 ]
	if [ "$kind" = boot ]; then
		why="$(jq -c '.estimate_costs' "$D.json")"
		check "$name: the net and storage costs found from the counters since boot" \
			jq -e '[.estimate_costs[] | select(.class == "net" or .class == "storage")]
			       | length == 4 and all(.found == "boot")' "$D.json"
	fi
	WINDOW=1 dev_ratios "$D.json" "$D.show" >"$D.dev"
	why="no device with 1% of a CPU"; check "$name: devices to judge" [ -s "$D.dev" ]
	while read -r dev t e; do
		b=$(split_bound "$kind" "$m" "$dev")
		why="estimate $e, true $t"
		check "$name: $dev's one-window estimate within $b of its true load" \
			awk -v t="$t" -v e="$e" -v b="$b" 'BEGIN { d = e / t - 1; exit !(d <= b && d >= -b) }'
	done <"$D.dev"
}

# dev_ratios JSON SHOW: "DEVICE TRUE EST" per device with 1% of a CPU or
# more in all, its IRQs' loads in JSON (the window's own where history
# weighed it, @WINDOW=1) summed against irqsim show's true loads.
dev_ratios() {
	local f='.load'
	[ "${WINDOW:-}" = 1 ] && f='.load_window // .load'
	jq -r ".irqs[] | \"\(.irq) \($f)\"" "$1" |
	awk 'NR == FNR { e[$1] = $2; next }
	     FNR > 1 && $4 != "-" { t[$4] += $6; s[$4] += e[$1] }
	     END { for (d in t) if (t[d] >= 0.01) printf "%s %.5f %.5f\n", d, t[d], s[d] }' \
		- "$2" | sort
}

# all_found JSON HOW: the run's estimate_costs are all found HOW.
all_found() {
	jq -e --arg h "$2" '.estimate_costs | length > 0 and all(.found == $h)' "$1" >/dev/null
}

# split_cron MACHINE: the same machine as cron runs it, four runs a
# minute apart with the load history. Each run's JSON says how the
# estimate found its costs: run 1 has its window alone (every cost
# "fitted"); by run 4 three minutes of history, faded a run's worth each,
# outweigh the fourth's interval (every cost "carried"). From run 2 the
# estimate is over the minute since the last run's window, each CPU's time
# known to a sixtieth of a tick, not a tick, and every device with 1% of a
# CPU is held within 20% of its true load from run 2 on: softmix's NVMe
# drive x0.81, MegaRAID x0.97 (x0.81 and x0.62 in one window). Not by
# placement: irqtune's, as the kernel's spread before it, puts one X710
# queue and one NVMe queue on every CPU of node 0 (16 queues of two sizes
# on 8 CPUs: the balanced plan), so no run's window tells those two apart;
# the NVMe drive's share is its class's cost as the MegaRAID shows it
# (estimate.c, pooled_where_differ), and the minute tells the MegaRAID's
# hard-irq time, a tick a second on each CPU, to a sixtieth. Over phase
# draws (IRQSIM_PHASE_SEED 1-3) the NVMe drive is x0.75-0.98 there:
# docs/quality.md.
split_cron() {
	local m=$1 r dev t e b bad
	D=$work/splitcron-$m
	"$sim" build "$top/tests/sim/machines/$m.txt" "$D" >/dev/null || {
		fail "$m split cron: build" "irqsim build failed"; return; }
	printf 'state-dir = %s/state\n' "$D" >"$D.conf"
	chmod 644 "$D.conf"
	for r in 1 2 3 4; do
		[ "$r" -gt 1 ] && "$sim" step "$D" 59 >/dev/null
		"$sim" show "$D" >"$D.show"
		UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" \
			"$top/irqtune" --json -w 1 -c "$D.conf" >"$D.json$r" 2>"$D.err"
		RC=$?
		why="exit $RC: $(head -c 2000 "$D.err")"
		check "$m split cron: run $r exits 0" [ "$RC" -eq 0 ]
		dev_ratios "$D.json$r" "$D.show" >"$D.dev$r"
		[ "$r" -lt 2 ] && continue
		while read -r dev t e; do
			b=0.20
			why="run $r: estimate $e, true $t"
			check "$m split cron: $dev's run $r estimate within $b of its true load" \
				awk -v t="$t" -v e="$e" -v b="$b" \
				'BEGIN { d = e / t - 1; exit !(d <= b && d >= -b) }'
		done <"$D.dev$r"
	done
	why="$(jq -c '.estimate_costs' "$D.json1")"
	check "$m split cron: run 1 reports every cost fitted" \
		all_found "$D.json1" fitted
	why="$(jq -c '.estimate_costs' "$D.json4")"
	check "$m split cron: run 4 reports every cost carried from the history" \
		all_found "$D.json4" carried
}

if [ -n "$SMALL" ]; then
	machines="tiny router mixed"
else
	machines="tiny router numa2 numa2-managed hotspot isolated offline cloud-vm
		  shift smt idle mixed noacct big managed twosocket arm64-gic
		  twosocket-noise crowd-a crowd-b biglittle hybrid vectors288 softmix"
	# issue 34's SMT machines, and its arm64 one (arm64-spi). There the
	# oracle's load ratio is 1.098, and the /proc estimate puts the dwc3
	# USB IRQ, which shares CPU 0 with an NVMe and a NIC queue in the
	# one window it has, at 7.1% of a CPU where it takes 10.8%: the run
	# ends at 1.144, 4.2% above the oracle (the planner fed the true
	# loads is at it), so it is held to the oracle but not to 1.10
	machines="$machines smt-e810 smt-wrongnode arm64-spi"
	# storage is not held here: one window after its rebuild shift, with
	# no history, lands 3-11% above the oracle over the draws of tick
	# phases (docs/quality.md); tests/e2e/e2e-history.sh holds its cron runs
	# to the 5% target
fi
for m in ${QUALITY_MACHINES:-$machines}; do
	quality "$m"
done
if [ -z "$SMALL" ]; then
	for m in ${QUALITY_CRON:-crowd-a crowd-b biglittle hybrid vectors288}; do
		cron "$m"
	done
	for m in ${QUALITY_NARROW-numa2}; do
		narrow "$m"
	done
	for m in ${QUALITY_SMT_CRON:-${QUALITY_MACHINES:-$machines}}; do
		smt_cron "$m"
	done
	for m in ${QUALITY_SPLIT-softmix}; do
		split "$m"
		split_cron "$m"
	done
	for m in ${QUALITY_SPLIT_BOOT-softmix crowd-a}; do
		split "$m" boot
	done
fi
exit 0
