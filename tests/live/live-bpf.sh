#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live tests of the bpf load source on this machine, as root: under a real
# storage load (O_DIRECT|O_DSYNC writes to a file) and a real network load
# (package downloads, the only traffic this machine can make), irqtune's
# measurement is compared with the kernel's own account of the same window,
# a private tracefs instance recording irq_handler_entry/exit and
# softirq_entry/exit. Then the ways it must fall back, and that nothing is
# left loaded when a run is killed in its window. Every irqtune here is a
# --dry-run: no affinity of this machine changes. Skips, saying why, where
# the kernel cannot run the program.
#
# Leaves nothing behind: the trace instance is removed, tracefs (mounted
# only if it was not) lives in a private mount namespace, the loads are
# stopped by their process group, and the test checks that no program of
# irqtune's is still loaded.

# A private mount namespace first, for tracefs.
if [ -z "${IRQTUNE_LIVE_NS:-}" ] && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	exec unshare -m env IRQTUNE_LIVE_NS=1 bash "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"
e2e_setup live-bpf
irqtune=$top/irqtune
[ -f "$top/tests/shims/bpffault.so" ] || make -s -C "$top" tests/shims/bpffault.so >/dev/null 2>&1
TR=/sys/kernel/tracing
inst=$TR/instances/irqtune-live-$$
loadpid=
apppids=

mkdir -p "$top/tests/out"
disk=$(mktemp -d "$top/tests/out/live-bpf.XXXXXX") || exit 1
# The costs file and load history that runs leave: this machine's are put
# back after.
costs=/run/irqtune/costs
history=/run/irqtune/state
had_costs=
had_history=
# /run/irqtune itself, which the runs below that keep state make
had_dir=
[ -d /run/irqtune ] && had_dir=1
[ -e "$costs" ] && cp -p "$costs" "$disk/costs.saved" && had_costs=1
[ -e "$history" ] && cp -p "$history" "$disk/state.saved" && had_history=1
cleanup() {
	rm -f "$costs" "$history"
	[ -n "$had_costs" ] && cp -p "$disk/costs.saved" "$costs"
	[ -n "$had_history" ] && cp -p "$disk/state.saved" "$history"
	[ -n "$had_dir" ] || rmdir /run/irqtune 2>/dev/null
	[ -n "$loadpid" ] && kill -TERM -- "-$loadpid" 2>/dev/null && wait "$loadpid" 2>/dev/null
	[ -n "$apppids" ] && kill $apppids 2>/dev/null
	[ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
	rm -rf "$disk"
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

if [ "$(id -u)" != 0 ]; then
	skip "live bpf" "not root: the kernel program cannot be loaded"
	exit 0
fi
probe=$("$irqtune" -n -w 0.1 --load-source=bpf 2>&1 >/dev/null)
if [ $? -eq 71 ]; then
	skip "live bpf" "this kernel cannot measure: $probe"
	exit 0
fi

# Programs of irqtune's loaded now, by name (bpftool cuts names at 15).
# prog_ids: the ids of irqtune's programs loaded now, one a line, sorted.
prog_ids() {
	bpftool prog show 2>/dev/null |
		awk '/ name ((btf|raw)_(hard|soft|napi)_|ctx_e|app_close)/ { sub(":", "", $1); print $1 }' |
		sort
}
progs_loaded() { prog_ids | wc -l; }
# left_loaded: how many of irqtune's programs stay loaded. The kernel frees
# a closed program after an RCU grace period: that wait comes first. Another
# irqtune on this host (cron's, or another checkout's tests) loads the same
# programs for its own window, and this bpftool names no holder; a program
# left behind is one whose id outlives any window, so the ids still seen
# then get 30 s more to go.
left_loaded() {
	local ids still
	for _ in $(seq 50); do
		ids=$(prog_ids)
		[ -z "$ids" ] && { echo 0; return; }
		sleep 0.1
	done
	for _ in $(seq 300); do
		still=$(prog_ids | comm -12 - <(printf '%s\n' "$ids"))
		[ -z "$still" ] && { echo 0; return; }
		sleep 0.1
	done
	printf '%s\n' "$still" | wc -l
}

# start_load CMD: CMD in a process group of its own, $loadpid its leader.
start_load() { setsid bash -c "$1" >/dev/null 2>&1 & loadpid=$!; }
stop_load() { kill -TERM -- "-$loadpid" 2>/dev/null; wait "$loadpid" 2>/dev/null; loadpid=; }
disk_load="cd '$disk' && while :; do dd if=/dev/zero of=ddfile bs=4k count=256 oflag=direct,dsync; done"
pkg=firefox-esr
net_load="cd '$disk' && while :; do apt-get download -q $pkg || exit 1; rm -f ./*.deb; done"

###########################################################################
### accuracy against the kernel's own timestamps

# traced NAME LOAD: irqtune -n --json over a 3 s window of LOAD, with the
# trace instance recording the same events; $disk/NAME.json, NAME.trace.
traced() {
	local e
	mkdir "$inst" || return 1
	echo mono >"$inst/trace_clock"	# CLOCK_MONOTONIC, as the JSON window
	echo 16384 >"$inst/buffer_size_kb"
	for e in irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit; do
		echo 1 >"$inst/events/$e/enable" || return 1
	done
	start_load "$2"
	sleep 1
	echo 1 >"$inst/tracing_on"
	# --no-state: this window's measurement, not its mean with earlier ones
	"$irqtune" -n --json --load-source=bpf --no-state -w 3 >"$disk/$1.json" 2>"$disk/$1.err"
	RC=$?
	echo 0 >"$inst/tracing_on"
	stop_load
	cat "$inst/trace" >"$disk/$1.trace"
	OVERRUN=$(cat "$inst"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	rmdir "$inst"
}

# reference TRACE FROM TO IRQS VECS: the kernel's own handler time of IRQS
# (space-separated) and softirq time of VECS within [FROM, TO], in CPUs.
reference() {
	awk -v from="$2" -v to="$3" -v irqs=" $4 " -v vecs=" $5 " '
	{
		if (!match($0, /\[[0-9]+\] /)) next
		cpu = substr($0, RSTART + 1, RLENGTH - 3) + 0
		n = split(substr($0, RSTART + RLENGTH), f, " ")
		if (n < 4) next
		ts = f[2]; sub(/:$/, "", ts); ts += 0
		ev = f[3]; sub(/:$/, "", ev)
		split(f[4], kv, "="); x = kv[2]
		if (ts < from || ts > to) next
	}
	ev == "irq_handler_entry" { hs[cpu] = ts; hi[cpu] = x; next }
	ev == "irq_handler_exit" {
		if (hs[cpu] > 0 && hi[cpu] == x && index(irqs, " " x " ")) t += ts - hs[cpu]
		hs[cpu] = 0; next
	}
	ev == "softirq_entry" { ss[cpu] = ts; sv[cpu] = x; next }
	ev == "softirq_exit" {
		if (ss[cpu] > 0 && sv[cpu] == x && index(vecs, " " x " ")) t += ts - ss[cpu]
		ss[cpu] = 0; next
	}
	END { printf "%.6f\n", t / (to - from) }' "$1"
}

# within A B LO HI: LO <= A/B <= HI
within() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN { exit !(b > 0 && a / b >= lo && a / b <= hi) }'; }
pct() { awk -v a="$1" 'BEGIN { printf "%.3f%%", a * 100 }'; }

# The target: 25% of the handler+softirq timestamps; 1.5x where whole
# hard-irq contexts are timed (they also count interrupt entry and exit).
accuracy_check() {	# NAME MEASURED REFERENCE
	local mode lo=0.75 hi=1.25
	mode=$(jq -r .load_source_reason "$disk/$1.json")
	case "$mode" in *"whole hard-irq contexts"*) hi=1.5 ;; esac
	echo "live $1: measured $(pct "$2"), kernel timestamps $(pct "$3"), /proc estimate $(pct "$4") ($mode)"
	why="measured $2, reference $3 ($mode)"
	check "accuracy $1: measured load within $lo..${hi}x of the kernel's timestamps" \
		within "$2" "$3" "$lo" "$hi"
}

if [ -e "$TR/trace" ] || mount -t tracefs nodev "$TR" 2>/dev/null; then
	# storage: the disk queue that served the writes
	traced storage "$disk_load"
	j=$disk/storage.json
	why="exit $RC: $(cat "$disk/storage.err")"
	check "storage: a measured run under load exits 0 with the bpf source" \
		sh -c '[ "$1" -eq 0 ] && [ "$(jq -r .load_source "$2")" = bpf ]' _ "$RC" "$j"
	irq=$(jq -r '[.irqs[] | select(.class == "storage")] | max_by(.load) | .irq' "$j")
	got=$(jq -r "[.irqs[] | select(.irq == $irq)][0].load" "$j")
	est=$(jq -r "[.irqs[] | select(.irq == $irq)][0].load_proc_estimate" "$j")
	ref=$(reference "$disk/storage.trace" "$(jq .run.window_from_monotonic "$j")" \
		"$(jq .run.window_to_monotonic "$j")" "$irq" "4 5")
	why="overrun $OVERRUN"; check "storage: the trace lost no event" [ "$OVERRUN" -eq 0 ]
	why="irq $irq: $got"; check "storage: the disk queue has load > 0" ge "$got" 0.00001
	accuracy_check storage "$got" "$ref" "$est"

	# network: every IRQ of the interface that carried the downloads
	if (cd "$disk" && timeout 60 apt-get download -q "$pkg" >/dev/null 2>&1); then
		rm -f "$disk"/*.deb
		traced network "$net_load"
		j=$disk/network.json
		why="exit $RC: $(cat "$disk/network.err")"
		check "network: a measured run under load exits 0 with the bpf source" \
			sh -c '[ "$1" -eq 0 ] && [ "$(jq -r .load_source "$2")" = bpf ]' _ "$RC" "$j"
		nic=$(jq -r '[.irqs[] | select(.class == "net")] | max_by(.load) | .label' "$j")
		irqs=$(jq -r "[.irqs[] | select(.label == \"$nic\") | .irq] | join(\" \")" "$j")
		got=$(jq -r "[.irqs[] | select(.label == \"$nic\") | .load] | add" "$j")
		est=$(jq -r "[.irqs[] | select(.label == \"$nic\") | .load_proc_estimate] | add" "$j")
		ref=$(reference "$disk/network.trace" "$(jq .run.window_from_monotonic "$j")" \
			"$(jq .run.window_to_monotonic "$j")" "$irqs" "2 3")
		why="overrun $OVERRUN"; check "network: the trace lost no event" [ "$OVERRUN" -eq 0 ]
		why="$nic ($irqs): $got"; check "network: the NIC's queues have load > 0" ge "$got" 0.00001
		accuracy_check network "$got" "$ref" "$est"
	else
		skip "network accuracy" "no package mirror reachable: apt-get download $pkg failed"
	fi
else
	skip "accuracy" "tracefs cannot be mounted here, so there is no independent account"
fi

###########################################################################
### pinned application threads, against the scheduler's own account

# switch_time TRACE PID FROM TO CPU: PID's on-CPU time on CPU within
# [FROM, TO], in CPUs, from sched_switch events of it (a filter keeps
# only those). A run open at either end of the trace counts to that end;
# a thread with no switch at all in the trace ran throughout, on the CPU
# given by ALONE (its only one).
switch_time() {
	awk -v pid="$2" -v from="$3" -v to="$4" -v want="$5" -v alone="${6:--1}" '
	function ov(a, b) { a = a > from ? a : from; b = b < to ? b : to; return b > a ? b - a : 0 }
	{
		if (!match($0, /\[[0-9]+\] /)) next
		cpu = substr($0, RSTART + 1, RLENGTH - 3) + 0
		n = split(substr($0, RSTART + RLENGTH), f, " ")
		if (n < 4 || f[3] != "sched_switch:") next
		ts = f[2]; sub(/:$/, "", ts); ts += 0
		pp = $0; sub(/.* prev_pid=/, "", pp); sub(/ .*/, "", pp)
		np = $0; sub(/.* next_pid=/, "", np); sub(/ .*/, "", np)
		if (pp == pid) {
			# its first event a switch-out: running since before the trace
			if (!(cpu in on) && !began) on[cpu] = from
			if (cpu in on && cpu == want) t += ov(on[cpu], ts)
			delete on[cpu]
		}
		if (np == pid) on[cpu] = ts
		if (pp == pid || np == pid) began = 1
	}
	END {
		for (c in on) if (c + 0 == want) t += ov(on[c], to)
		if (!began && alone == want) t = to - from
		printf "%.6f\n", t / (to - from)
	}' "$1"
}

# app_of JSON CPU: the pinned threads' load irqtune measured on CPU, as its
# JSON report gives it (0 where it gives none).
app_of() {
	jq -r --argjson c "$2" '[.machine.cpus[]? | select(.cpu == $c) | .app_load // 0] | (.[0] // 0)' "$1" 2>/dev/null || echo 0
}

busy='while :; do :; done'
if [ "$(nproc)" -lt 2 ]; then
	skip "pinned threads" "one CPU: no thread can be pinned to fewer than irqtune may use"
elif [ -e "$TR/trace" ] || mount -t tracefs nodev "$TR" 2>/dev/null; then
	mkdir "$inst"
	echo mono >"$inst/trace_clock"
	echo 8192 >"$inst/buffer_size_kb"
	# A CPU-bound thread pinned to CPU 1 (allowed 1 CPU of all), and one
	# allowed all: only the first is an application thread to count.
	taskset -c 1 bash -c "$busy" & pinned=$!
	bash -c "$busy" & free=$!
	apppids="$pinned $free"
	echo "prev_pid == $pinned || next_pid == $pinned || prev_pid == $free || next_pid == $free" \
		>"$inst/events/sched/sched_switch/filter"
	echo 1 >"$inst/events/sched/sched_switch/enable"
	echo 1 >"$inst/tracing_on"
	sleep 0.5
	"$irqtune" -n -v --json --load-source=bpf --no-state -w 3 >"$disk/app.json" 2>"$disk/app.err"
	RC=$?
	echo 0 >"$inst/tracing_on"
	kill "$pinned" "$free"
	wait "$pinned" "$free" 2>/dev/null
	apppids=
	cat "$inst/trace" >"$disk/app.trace"
	OVERRUN=$(cat "$inst"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	rmdir "$inst"
	from=$(jq .run.window_from_monotonic "$disk/app.json")
	to=$(jq .run.window_to_monotonic "$disk/app.json")
	ref=$(switch_time "$disk/app.trace" "$pinned" "$from" "$to" 1 1)
	got=$(app_of "$disk/app.json" 1)
	free0=$(switch_time "$disk/app.trace" "$free" "$from" "$to" 0)
	free1=$(switch_time "$disk/app.trace" "$free" "$from" "$to" 1)
	got0=$(app_of "$disk/app.json" 0)
	echo "live pinned: CPU 1 measured $got, the pinned thread ran $ref; CPU 0 measured $got0; the unpinned thread ran $free0 on CPU 0, $free1 on CPU 1 ($(jq -r .load_source_reason "$disk/app.json"))"
	why="exit $RC: $(cat "$disk/app.err")"
	check "pinned: the report says the program measured the pinned threads" \
		sh -c '[ "$1" -eq 0 ] && [ "$(jq -r .application.source.kind "$2")" = bpf ]' _ "$RC" "$disk/app.json"
	why="overrun $OVERRUN"; check "pinned: the trace lost no event" [ "$OVERRUN" -eq 0 ]
	why="measured $got, scheduler $ref"
	check "pinned: CPU 1's application load within 10% of the pinned thread's on-CPU time" \
		within "$got" "$ref" 0.9 1.1
	# Counted, the unpinned thread would add its time wherever it ran.
	why="measured $got0 + $got, the pinned thread ran $ref, the unpinned $free0 + $free1"
	check "pinned: a thread allowed every CPU is not counted" \
		awk -v g="$got0" -v g1="$got" -v p="$ref" -v f="$free0" -v f1="$free1" \
		'BEGIN { exit !(f + f1 > 0.05 && g + g1 < p + (f + f1) / 2) }'
else
	skip "pinned threads" "tracefs cannot be mounted here, so there is no independent account"
fi

###########################################################################
### what a measured run leaves for the runs that can only estimate

# A dry run keeps no state unless a state-dir asks it to: these do, in the
# place a run that writes keeps it.
printf 'state-dir = /run/irqtune\n' >"$disk/keep.conf"
chmod 644 "$disk/keep.conf"
rm -f "$costs"
start_load "$disk_load"
"$irqtune" -n -w 0.5 --load-source=bpf >/dev/null 2>"$disk/c.err"
rc=$?
why="exit $rc: $(cat "$disk/c.err"; ls -l "$costs" 2>&1)"
check "costs: a dry run that was not asked records none" \
	sh -c '[ "$1" -eq 0 ] && [ ! -e "$2" ]' _ "$rc" "$costs"
"$irqtune" -n -w 1 --load-source=bpf -c "$disk/keep.conf" >/dev/null 2>"$disk/c.err"
rc=$?
why="exit $rc: $(cat "$disk/c.err"; ls -l "$costs" 2>&1; cat "$costs" 2>&1)"
check "costs: a measured run records them, this boot's, mode 0644" \
	sh -c '[ "$1" -eq 0 ] && [ "$(stat -c %a "$2")" = 644 ] &&
	       [ "$(head -1 "$2")" = "irqtune-costs 1" ] &&
	       grep -qx "boot $(cat /proc/sys/kernel/random/boot_id)" "$2" &&
	       grep -q "^hard storage " "$2"' _ "$rc" "$costs"
"$irqtune" -n -w 1 --load-source=proc --json >"$disk/c.json" 2>"$disk/c.err"
rc=$?
why="exit $rc: $(jq -r .load_source_reason "$disk/c.json")"
check "costs: a proc run starts from them and says so" \
	sh -c '[ "$1" -eq 0 ] && jq -r .load_source_reason "$2" | grep -q "per-event costs as measured"' \
	_ "$rc" "$disk/c.json"
printf 'irqtune-costs 9\n' >"$costs"
"$irqtune" -n -w 0.3 --load-source=proc --json >"$disk/c.json" 2>"$disk/c.err"
rc=$?
why="exit $rc: $(cat "$disk/c.err")"
check "costs: one of a newer irqtune is named, not used, and the run goes on" \
	sh -c '[ "$1" -eq 0 ] && grep -q "costs: version 9, written by a newer irqtune; estimating with the built-in costs" "$2" &&
	       ! jq -r .load_source_reason "$3" | grep -q "measured"' _ "$rc" "$disk/c.err" "$disk/c.json"
rm -f "$costs"
ln -s /etc/passwd "$costs"
"$irqtune" -n -w 0.3 --load-source=proc >/dev/null 2>"$disk/c.err"
rc=$?
why="exit $rc: $(cat "$disk/c.err")"
check "costs: a symlink in its place is refused" \
	sh -c '[ "$1" -eq 0 ] && grep -q "costs: a symlink: refused" "$2"' _ "$rc" "$disk/c.err"
"$irqtune" -n -w 0.5 --load-source=bpf -c "$disk/keep.conf" >/dev/null 2>"$disk/c.err"
rc=$?
why="exit $rc: $(cat "$disk/c.err")"
check "costs: a measured run does not write through a symlink" \
	sh -c '[ "$1" -eq 0 ] && [ -L "$2" ] && grep -q "cannot record the measured costs" "$3"' \
	_ "$rc" "$costs" "$disk/c.err"
rm -f "$costs"
stop_load

# The load history on the kernel's own /proc: kept by one run, weighed by
# the next, the window's own figure beside it.
# A dry run reads it and keeps it only when asked.
rm -f "$history"
"$irqtune" -n -w 0.3 --json >"$disk/h.json" 2>"$disk/h.err"
rc=$?
why="exit $rc: $(jq -r .history "$disk/h.json") $(cat "$disk/h.err"; ls -l "$history" 2>&1)"
check "history: a dry run that was not asked keeps none" \
	sh -c '[ "$1" -eq 0 ] && [ ! -e "$3" ] &&
	       [ "$(jq -r .history "$2")" = "no history yet in $3; not kept by a dry run" ]' \
	_ "$rc" "$disk/h.json" "$history"
"$irqtune" -n -w 0.3 -c "$disk/keep.conf" >/dev/null 2>&1
"$irqtune" -n -w 0.3 --json -c "$disk/keep.conf" >"$disk/h.json" 2>"$disk/h.err"
rc=$?
why="exit $rc: $(jq -r .history "$disk/h.json") $(cat "$disk/h.err")"
check "history: a second run weighs its loads with the first's" \
	sh -c '[ "$1" -eq 0 ] && jq -r .history "$2" | grep -q "^loads weighed with the history in /run/irqtune/state" &&
	       [ "$(jq "[.irqs[] | select(has(\"load_window\"))] | length" "$2")" -gt 0 ]' _ "$rc" "$disk/h.json"

###########################################################################
### falling back, and saying why

# Under a disk load, so that the program has interrupts to see.
start_load "$disk_load"
faulty() {	# FAULT ARGS...: a dry run with the BPF syscall failing as FAULT
	BPFFAULT=$1 LD_PRELOAD=$top/tests/shims/bpffault.so "$irqtune" -n -w 0.5 --json "${@:2}" \
		>"$disk/fault.json" 2>"$disk/fault.err"
	RC=$?
	SRC=$(jq -r .load_source "$disk/fault.json" 2>/dev/null)
	WHY=$(jq -r .load_source_reason "$disk/fault.json" 2>/dev/null)
}
for f in "nobtf:has no BTF" "verifier:refused the program" "mapfull:map was full" \
	 "missed:skipped it" "rename:as \"bogus\""; do
	faulty "${f%%:*}"
	why="exit $RC, $SRC: $WHY"
	check "fallback ${f%%:*}: proc, saying '${f#*:}'" \
		sh -c '[ "$1" -eq 0 ] && [ "$2" = proc ] && case "$3" in *"$4"*) ;; *) exit 1 ;; esac' \
		_ "$RC" "$SRC" "$WHY" "${f#*:}"
	faulty "${f%%:*}" --load-source=bpf
	why="exit $RC: $(cat "$disk/fault.err")"
	check "fallback ${f%%:*}: with --load-source=bpf, exit 71 and why" \
		sh -c '[ "$1" -eq 71 ] && grep -q "^irqtune: load source bpf: .*$2" "$3"' \
		_ "$RC" "${f#*:}" "$disk/fault.err"
done
# The guest suite's switch, each build alone: the one asked for or none.
for b in "context:whole hard-irq contexts, fentry and tp_btf" "handlers:hard-irq handlers, tp_btf" \
	 "raw:hard-irq handlers, raw tracepoints"; do
	IRQTUNE_BPF_BUILD=${b%%:*} "$irqtune" -n -w 0.3 --json >"$disk/build.json" 2>"$disk/build.err"
	RC=$?
	SRC=$(jq -r .load_source "$disk/build.json" 2>/dev/null)
	WHY=$(jq -r .load_source_reason "$disk/build.json" 2>/dev/null)
	why="exit $RC, $SRC: $WHY"
	check "IRQTUNE_BPF_BUILD=${b%%:*}: that build, or the estimate saying it was the only one allowed" \
		sh -c '[ "$1" -eq 0 ] && case "$2:$3" in
			"bpf:measured in the kernel ($4; the one build IRQTUNE_BPF_BUILD allows)"*) ;;
			"proc:the kernel program cannot run: the kernel refused the program ($4"*"(the one build IRQTUNE_BPF_BUILD allows)"*) ;;
			*) exit 1 ;; esac' _ "$RC" "$SRC" "$WHY" "${b#*:}"
done
# The probes' own cost, from the kernel's run-time statistics over the
# window, is taken out and said.
"$irqtune" -n -w 0.5 --json --no-state --load-source=bpf >"$disk/probe.json" 2>"$disk/probe.err"
RC=$?
WHY=$(jq -r .load_source_reason "$disk/probe.json" 2>/dev/null)
why="exit $RC: $WHY"
check "probe cost: a measured run says what it took out per handler" \
	sh -c '[ "$1" -eq 0 ] && echo "$2" | grep -Eq "; its probes. own cost taken out: [0-9]+ ns a handler"' \
	_ "$RC" "$WHY"
# Where irq threads exist (any kernel has some where a driver asks for
# them): their program refused, the rest still measures and the threads'
# time comes from /proc; no run-time statistics, the figures as timed.
if [ -n "$(cat /proc/2/task/2/children 2>/dev/null | tr ' ' '\n' |
	   while read -r p; do [ -n "$p" ] && cat "/proc/$p/comm" 2>/dev/null; done | grep '^irq/')" ]; then
	faulty noswitch
	why="exit $RC, $SRC: $WHY"
	check "fallback noswitch: still bpf, the irq threads from /proc, saying why" \
		sh -c '[ "$1" -eq 0 ] && [ "$2" = bpf ] && case "$3" in *"irq threads from /proc/PID/schedstat, their program was refused"*) ;; *) exit 1 ;; esac' \
		_ "$RC" "$SRC" "$WHY"
else
	skip "fallback noswitch" "no irq thread on this machine"
fi
faulty nostats
why="exit $RC, $SRC: $WHY"
check "fallback nostats: still bpf, saying the probes' cost was not measured" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" = bpf ] && case "$3" in *"its probes'"'"' own cost not measured: BPF_ENABLE_STATS"*) ;; *) exit 1 ;; esac' \
	_ "$RC" "$SRC" "$WHY"
faulty oldkernel
why="exit $RC, $SRC: $WHY"
check "fallback: without tp_btf or fentry, raw tracepoints still measure" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" = bpf ] && case "$3" in *"raw tracepoints"*) ;; *) exit 1 ;; esac' \
	_ "$RC" "$SRC" "$WHY"
stop_load

if command -v setpriv >/dev/null; then
	bindir=$(mktemp -d) && chmod 755 "$bindir" && cp "$irqtune" "$bindir/"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$bindir/irqtune" -n -w 0.2 --json \
		>"$disk/user.json" 2>"$disk/user.err"
	rc=$?
	why="exit $rc: $(cat "$disk/user.json" "$disk/user.err")"
	check "not root: a dry run estimates, saying measuring needs root" \
		sh -c '[ "$1" -eq 0 ] && [ "$(jq -r .load_source "$2")" = proc ] &&
		       jq -r .load_source_reason "$2" | grep -q "needs root"' _ "$rc" "$disk/user.json"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$bindir/irqtune" -n -w 0.2 \
		--load-source=bpf >/dev/null 2>"$disk/user.err"
	rc=$?
	why="exit $rc: $(cat "$disk/user.err")"
	check "not root: --load-source=bpf exits 71" [ "$rc" -eq 71 ]
	rm -rf "$bindir"
fi

###########################################################################
### nothing left loaded

# A run killed in its window: the kernel unloads the program with it.
for sig in TERM INT; do
	left_loaded >/dev/null
	# Background jobs of a script ignore SIGINT; give the run the default.
	env --default-signal=INT "$irqtune" -n -w 20 --load-source=bpf >/dev/null 2>&1 &
	p=$!
	loaded=0
	for _ in $(seq 50); do loaded=$(progs_loaded); [ "$loaded" -gt 0 ] && break; sleep 0.1; done
	kill "-$sig" "$p"
	wait "$p"
	rc=$?
	left=$(left_loaded)
	why="exit $rc; $loaded loaded in the window, $left left"
	check "SIG$sig in the window: the run ends and leaves no program loaded" \
		sh -c '[ "$1" -gt 0 ] && [ "$2" -eq 0 ] && [ "$3" -gt 128 ]' _ "$loaded" "$left" "$rc"
done

# Two runs at once, each with its own program.
"$irqtune" -n -w 1 --json --load-source=bpf >"$disk/a.json" 2>&1 &
pa=$!
"$irqtune" -n -w 1 --json --load-source=bpf >"$disk/b.json" 2>&1
rb=$?
wait "$pa"
ra=$?
why="exits $ra $rb"
check "two runs at once both measure" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ] && [ "$(jq -r .load_source "$3")" = bpf ] &&
	       [ "$(jq -r .load_source "$4")" = bpf ]' _ "$ra" "$rb" "$disk/a.json" "$disk/b.json"

# The measured path under valgrind too (the e2e suites, which check-valgrind
# runs, never load the program): no invalid access, no definite leak. Not
# in the ASan pass: an ASan binary cannot run under valgrind.
if [ -n "${ASAN_OPTIONS:-}" ]; then
	skip "valgrind" "this is the ASan build"
elif command -v valgrind >/dev/null; then
	start_load "$disk_load"
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--suppressions="$top/tests/live/valgrind-bpf.supp" "$irqtune" -n -w 0.5 --json \
		--load-source=bpf >"$disk/vg.json" 2>"$disk/vg.err"
	rc=$?
	stop_load
	why="exit $rc: $(head -30 "$disk/vg.err")"
	check "valgrind: a measured run is clean" \
		sh -c '[ "$1" -eq 0 ] && [ "$(jq -r .load_source "$2")" = bpf ]' _ "$rc" "$disk/vg.json"
fi

left=$(left_loaded)
why="$left outlived 35 s: $(bpftool prog show 2>&1 | grep -E ' name ' | head -5)"
check "afterwards: no program of irqtune's stays loaded" [ "$left" -eq 0 ]
check "afterwards: the trace instance is gone" [ ! -e "$inst" ]
exit 0
