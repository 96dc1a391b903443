#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The application load's history (issue 31 item 2): a simulated machine
# whose pinned application threads' load is noisy, +-10% around half a
# CPU on every CPU from run to run, run as cron runs irqtune (a minute
# apart, a state-dir). With the history, the runs after the first move
# nothing and the state file keeps each CPU's application load; the same
# runs without it (--no-state) are counted for the report. Then the load
# steps to 0.9 on two CPUs: the next run follows it (it plans what the
# window saw, not the faded mean). Prints "PASS ..." or "FAIL ...".
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup apphist

if ! grep -q '^app ' "$top"/tests/sim/machines/*.txt 2>/dev/null; then
	echo "SKIP apphist: the simulated machines have no application threads"
	exit 0
fi

cat >"$work/noisy.txt" <<'M'
machine app-noisy
cpus packages=1 cores=4 threads=1 nodes=1
hz 100
irqaccounting on
start all

legacy irq=0 name=timer
nic name=eth0 bdf=0000:01:00.0 queues=2 rate=6000 hard_us=2 soft_us=25
app name=svc cpus=0-3 load=0.5 threads=per-cpu sys=0.1
M

# Each run's factor per thread (CPU 0-3): +-10%, fixed so that the runs
# are the same everywhere.
NOISE=(
	"1.10 0.91 1.04 0.95"
	"0.90 1.08 0.93 1.10"
	"1.06 0.92 1.09 0.90"
	"0.93 1.10 0.90 1.07"
	"1.09 0.94 1.05 0.91"
	"0.91 1.06 0.92 1.09"
)
moved() { sed -n 's/^irqtune: .*movable, \([0-9][0-9]*\) moved.*/\1/p' "$D.out" | tail -1; }

# set_load FACTORS [BASE]: each pinned thread's load, BASE (0.5) times its
# factor, in the model's state.
set_load() {
	awk -v f="$1" -v base="${2:-0.5}" '
		BEGIN { n = split(f, x, " ") }
		$1 == "thr" && $11 == "svc" { $5 = base * x[$10 + 1] }
		{ print }' "$D/sim.state" >"$D/sim.state.new" && mv "$D/sim.state.new" "$D/sim.state"
}

# runs NAME RUNS ARGS...: RUNS cron runs of the noisy machine in
# $work/NAME; the moves after the first into $MOVES.
runs() {
	local name=$1 n=$2 r mv
	shift 2
	D=$work/$name
	"$sim" build "$work/noisy.txt" "$D" >/dev/null || { echo "FAIL build $name"; exit 1; }
	printf 'state-dir = %s/state\n' "$D" >"$D.conf"
	chmod 644 "$D.conf"
	MOVES=0
	for ((r = 0; r < n; r++)); do
		[ "$r" -gt 0 ] && "$sim" step "$D" 59 >/dev/null
		set_load "${NOISE[r % ${#NOISE[@]}]}"
		run -v -w 1 -c "$D.conf" "$@"
		why="exit $RC: $(head -c 2000 "$D.err")"
		check "$name: run $((r + 1)) exits 0" [ "$RC" -eq 0 ]
		mv=$(moved)
		[ "$r" -gt 0 ] && MOVES=$((MOVES + ${mv:-1}))
	done
}

runs hist 4
why="$MOVES moved"
check "noisy application load: cron runs 2-4 move nothing" [ "$MOVES" = 0 ]
why="$(head -c 600 "$D/state/state")"
check "the state keeps each CPU's application load" \
	eval 'grep -q "^appcpus " "$D/state/state" && [ "$(grep -c "^app " "$D/state/state")" = 4 ]'
# a real change is followed at once: two CPUs' threads to 0.9
"$sim" step "$D" 59 >/dev/null
set_load "1.8 1.8 1 1"
run -v -w 1 -c "$D.conf"
check "a step to 0.9: run exits 0" [ "$RC" -eq 0 ]
why="$(grep "^app " "$D/state/state" | head -2 | tr '\n' ' ')"
check "a step to 0.9 restarts those CPUs' history" \
	eval '[ "$(awk "\$1 == \"app\" && \$2 < 2 { print \$6 }" "$D/state/state" | sort -u)" = 1 ]'
# the -v table's IRQ after on CPUs 0-1: the queue left them in that run
after=$(awk '$1 ~ /^[01]$/ && $2 ~ /%$/' "$D.out" | grep -o '[0-9.]*%' | awk 'NR % 3 == 0' |
	tr -d '%' | sort -n | tail -1)
why="moved $(moved), IRQ after on CPUs 0-1 up to ${after:-?}%: $(grep '^ *[0-3] ' "$D.out" | tr '\n' '|')"
check "a step to 0.9: the NIC's queues leave those CPUs in that run" \
	eval '[ "$(moved)" -ge 1 ] && [ "$after" = 0.0 ]'
hist_moves=$MOVES

runs nohist 4 --no-state
echo "apphist: runs 2-4 moved $hist_moves with the history, $MOVES without (--no-state)"
runs nohist8 8 --no-state
nohist8=$MOVES
runs hist8 8
echo "apphist: runs 2-8 moved $MOVES with the history, $nohist8 without (--no-state)"
why="$MOVES moved"
check "noisy application load: cron runs 2-8 move nothing" [ "$MOVES" = 0 ]
exit 0
