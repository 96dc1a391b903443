#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/bench/interference.sh - make bench-interference, as root on a real
# machine (issue 31): what the IRQs cost a CPU-bound thread pinned to one
# CPU, under a real disk and network load, in three phases of equal length:
#
#	1. the IRQs where irqbalance --oneshot puts them
#	2. where irqtune's plan without the application puts them
#	   (app-weight = 0; plain irqtune where that key does not exist)
#	3. where irqtune puts them
#
# Per phase: the thread's CPU's hard-irq and softirq time (/proc/stat), the
# thread's own wait and run time (/proc/PID/task/TID/schedstat), its loops
# per second (the work it got done), and what the loads did. The loads:
# 4 KiB O_DIRECT|O_DSYNC writes (dd oflag=direct,dsync) to a file under
# /var/tmp, and apt-get download of a big package at a set rate, both in
# loops, unpinned (pinned, they would count as an application too).
#
# The thread's CPU is where irqbalance put the busiest movable IRQ (the
# case of an IRQ-blind balancer and a pinned application meeting), unless
# BENCH_CPU names one. It changes the machine's IRQ affinities: it records
# every one first (and XPS masks, NAPI threads' CPUs, default_smp_affinity)
# and restores them on exit, Ctrl-C, TERM or HUP, then checks that every
# smp_affinity_list is as it was and says so. Not part of make check.
#
#	BENCH_PHASE	seconds measured per phase (default 20)
#	BENCH_SETTLE	seconds from placing to measuring (default 3)
#	BENCH_ROUNDS	times the three phases run, in turn (default 1)
#	BENCH_CPU	the thread's CPU (default: see above)
#	BENCH_WINDOW	irqtune's sampling window, seconds (default 2)
#	BENCH_NICE	the thread's nice value (default 0; -10 makes it the
#			CPU's main user on a machine busy with other work)
#	BENCH_PACKAGES	what the network load downloads
#	BENCH_NETLOOPS	apt-get download loops at once (default 2)
#	BENCH_RATE	each loop's rate in KB/s (Acquire::http::Dl-Limit;
#			default 20000; 0: as fast as the mirror sends); the
#			loops start 12 s apart, so that one's restart (apt-get
#			takes seconds to start) is never the other's
#	IRQTUNE		the irqtune to run (default ./irqtune)
#
# What each phase ran and measured (irqtune's JSON, irqbalance's output,
# the thread's progress) is kept in tests/out/bench-interference/.
#
# Exit status: 0 measured and restored; 1 something failed or an affinity
# could not be restored; 130 interrupted (restored).
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
phase_s=${BENCH_PHASE:-20}
settle=${BENCH_SETTLE:-3}
rounds=${BENCH_ROUNDS:-1}
window=${BENCH_WINDOW:-2}
nice_=${BENCH_NICE:-0}
# One big package: apt-get's start (seconds on a busy machine) is a gap in
# the load, a long download at a steady rate is none.
packages=${BENCH_PACKAGES:-texlive-fonts-extra}
netloops=${BENCH_NETLOOPS:-2}
rate=${BENCH_RATE:-20000}
irqtune=${IRQTUNE:-$top/irqtune}
spinner=$top/tests/vm/loadgen
hz=$(getconf CLK_TCK)
# Without IRQ time accounting /proc/stat's irq column counts only ticks
# that land in a hard irq: next to nothing.
irqacct=", no IRQ time accounting: irq is near 0"
{ zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
	grep -q '^CONFIG_IRQ_TIME_ACCOUNTING=y' && irqacct=", IRQ time accounting"

status=0
die() { echo "bench-interference: $*" >&2; status=1; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root: it places IRQs"
[ -x "$irqtune" ] || die "$irqtune: not built (make all)"
[ -x "$spinner" ] || die "$spinner: not built (make tests/vm/loadgen)"
command -v jq >/dev/null || die "jq is not installed (apt-get install jq): it reads irqtune's JSON"
command -v irqbalance >/dev/null || die "irqbalance is not installed (apt-get install irqbalance)"
# A running balancer would move the IRQs under the measurement.
pgrep -x irqbalance >/dev/null && die "irqbalance is running (pid $(pgrep -x irqbalance | tr '\n' ' ')): stop it first (systemctl stop irqbalance)"
for v in "$phase_s" "$settle" "$rounds" "$window" "$netloops" "$rate"; do
	[[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "'$v': not a number of seconds"
done
[[ "$nice_" =~ ^-?[0-9]+$ ]] || die "BENCH_NICE '$nice_': not a nice value"
online=$(cat /sys/devices/system/cpu/online)
ncpu=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += (n == 2 ? r[2] - r[1] + 1 : 1) } } END { print c }' <<<"$online")
[ "$ncpu" -ge 2 ] || die "one CPU online: nowhere to move an IRQ to"

work=$(mktemp -d /var/tmp/irqtune-interference.XXXXXX) || die "cannot make a directory under /var/tmp"
out=$top/tests/out/bench-interference
saved=$work/saved

### What it will touch, recorded before anything moves
snapshot_affinities() {	# "IRQ CPULIST" per IRQ
	local i
	for i in /proc/irq/[0-9]*; do
		[ -e "$i/smp_affinity_list" ] && echo "${i##*/} $(cat "$i/smp_affinity_list" 2>/dev/null)"
	done
}
snapshot_affinities >"$saved.aff"
cp /proc/irq/default_smp_affinity "$saved.default"
for q in /sys/class/net/*/queues/tx-*/xps_cpus; do
	m=$(cat "$q" 2>/dev/null) && echo "$q $m"
done >"$saved.xps"
for p in /proc/[0-9]*; do
	case "$(cat "$p/comm" 2>/dev/null)" in napi/*)
		echo "${p##*/} $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$p/status")" ;;
	esac
done >"$saved.napi"
# irqtune's run files (a real run keeps /run/irqtune/costs and the lock;
# irqbalance its socket directory): put back as found.
had_run_dir=; [ -d /run/irqtune ] && had_run_dir=1 && cp -a /run/irqtune "$saved.run"
had_lock=; [ -e /run/irqtune.lock ] && had_lock=1
had_ib_dir=; [ -d /run/irqbalance ] && had_ib_dir=1
echo "bench-interference: recorded $(wc -l <"$saved.aff") IRQs' affinities, $(wc -l <"$saved.xps") XPS masks, $(wc -l <"$saved.napi") NAPI threads; restored on exit"

### Cleanup: everything started, stopped by pid; everything recorded, put back
groups=()	# process groups of the loads and the thread (setsid)
child=		# irqbalance or irqtune while it runs
acct=		# irqtune's dry run measuring a phase
restored=
restore() {
	local irq list now bad=0 n=0 q m pid
	for pid in "${groups[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
	for pid in $child $acct; do kill -TERM "$pid" 2>/dev/null; done
	for pid in "${groups[@]}" $child $acct; do wait "$pid" 2>/dev/null; done
	groups=() child= acct=
	[ -n "$restored" ] && return
	restored=1
	while read -r irq list; do
		[ -e "/proc/irq/$irq/smp_affinity_list" ] || continue
		now=$(cat "/proc/irq/$irq/smp_affinity_list" 2>/dev/null)
		[ "$now" = "$list" ] || echo "$list" >"/proc/irq/$irq/smp_affinity_list" 2>/dev/null
	done <"$saved.aff"
	cmp -s /proc/irq/default_smp_affinity "$saved.default" || cat "$saved.default" >/proc/irq/default_smp_affinity
	while read -r q m; do
		[ "$(cat "$q" 2>/dev/null)" = "$m" ] || echo "$m" >"$q" 2>/dev/null
	done <"$saved.xps"
	while read -r pid list; do
		taskset -pc "$list" "$pid" >/dev/null 2>&1
	done <"$saved.napi"
	if [ -n "$had_run_dir" ]; then
		cp -a "$saved.run/." /run/irqtune/ 2>/dev/null
		for f in /run/irqtune/*; do [ -e "$saved.run/${f##*/}" ] || rm -f "$f"; done
	else
		rm -rf /run/irqtune
	fi
	[ -n "$had_lock" ] || rm -f /run/irqtune.lock
	[ -n "$had_ib_dir" ] || rm -rf /run/irqbalance
	# The check: every IRQ as recorded (one that went away meanwhile is
	# named, not counted as restored).
	while read -r irq list; do
		if [ ! -e "/proc/irq/$irq/smp_affinity_list" ]; then
			echo "bench-interference: irq $irq went away during the run"
			continue
		fi
		n=$((n + 1))
		now=$(cat "/proc/irq/$irq/smp_affinity_list" 2>/dev/null)
		if [ "$now" != "$list" ]; then
			echo "bench-interference: irq $irq: smp_affinity_list $now, was $list: NOT restored"
			bad=$((bad + 1))
		fi
	done <"$saved.aff"
	if [ "$bad" -eq 0 ]; then
		echo "bench-interference: restored: every one of $n IRQs' smp_affinity_list is as before the benchmark"
	else
		echo "bench-interference: $bad of $n IRQs NOT restored (see above)"
		status=1
	fi
	# what each phase ran and measured, for a look afterwards
	rm -rf "$out" && mkdir -p "$out" &&
		cp "$work"/*.json "$work"/*.log "$work"/*.err "$work/rows" "$out/" 2>/dev/null
	rm -rf "$work"
}
trap 'restore; exit $status' EXIT
trap 'echo "bench-interference: interrupted (SIGINT): restoring"; status=130; exit 130' INT
trap 'echo "bench-interference: interrupted (SIGTERM): restoring"; status=143; exit 143' TERM
trap 'echo "bench-interference: interrupted (SIGHUP): restoring"; status=129; exit 129' HUP

# A sleep a signal cuts short: the trap runs at once, not after the sleep.
nap() { sleep "$1" & wait $!; }
# run_child LOG CMD...: CMD in the background, waited for (interruptible)
run_child() {
	local log=$1 rc
	shift
	"$@" >"$log" 2>"$log.err" &
	child=$!
	wait $child
	rc=$?
	child=
	return $rc
}

### The loads, on any CPU: pinned, they would be pinned threads themselves,
### which app-aware irqtune places IRQs around as it does the thread
disk_dev=$(stat -c '%d' "$work")
disk_stat=/sys/dev/block/$((disk_dev >> 8)):$((disk_dev & 255))/stat
[ -e "$disk_stat" ] || disk_stat=
ddfile=$work/dd.img
setsid bash -c 'while :; do dd if=/dev/zero of="$1" bs=4k count=256 oflag=direct,dsync conv=notrunc status=none || exit 1; done' \
	_ "$ddfile" >"$work/dd.log" 2>&1 &
groups+=($!)
pid_dd=$!
for k in $(seq "$netloops"); do
	mkdir -p "$work/debs$k"
	# root downloads (no _apt sandbox: the directory is root's, mode 0700)
	setsid bash -c 'cd "$1" || exit 1; r=$2; sleep "$3"; shift 3
		while :; do
			apt-get download -q=2 -o APT::Sandbox::User=root -o Acquire::http::Dl-Limit="$r" "$@" >>../apt.log 2>&1 || sleep 1
			rm -f ./*.deb
		done' _ "$work/debs$k" "$rate" $(((k - 1) * 12)) $packages >/dev/null 2>&1 &
	groups+=($!)
done

netdevs=$(for n in /sys/class/net/*; do [ -e "$n/device" ] && echo "${n##*/}"; done)
net_bytes() {	# received, sent: every physical interface
	local n r=0 t=0
	for n in $netdevs; do
		r=$((r + $(cat /sys/class/net/$n/statistics/rx_bytes)))
		t=$((t + $(cat /sys/class/net/$n/statistics/tx_bytes)))
	done
	echo "$r $t"
}
echo "bench-interference: loads on: dd oflag=direct,dsync 4 KiB writes to $work, $netloops loops of apt-get download $packages at ${rate} KB/s each ($(echo $netdevs))"
# apt-get takes seconds to start on a busy machine: up to 20 s for 1 MB
b0=$(net_bytes)
flowing=
for _ in $(seq 20); do
	nap 1
	b1=$(net_bytes)
	[ "${b1%% *}" -gt "$((${b0%% *} + 1000000))" ] && flowing=1 && break
done
kill -0 "$pid_dd" 2>/dev/null || die "the disk load stopped: $(tail -2 "$work/dd.log")"
[ -n "$flowing" ] ||
	echo "bench-interference: warning: the network load is not flowing ($(tail -1 "$work/apt.log" 2>/dev/null)); measuring on"

# movable IRQs: those whose smp_affinity_list root may write (a
# kernel-managed one is read-only from Linux 6.12; before, it refuses
# the write, and irqbalance and irqtune leave it alone either way)
movable() {
	local i
	for i in /proc/irq/[0-9]*; do
		case "$(stat -c %a "$i/smp_affinity_list" 2>/dev/null)" in *[2367]*) echo "${i##*/}" ;; esac
	done
}
# counts FILE: /proc/interrupts as "IRQ CPU COUNT", by the header's CPUn
counts() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) { c = $i; sub("CPU", "", c); col[i] = c } n = NF; next }
		$1 ~ /^[0-9]+:$/ { i = $1; sub(":", "", i)
			for (k = 2; k <= n + 1 && $k ~ /^[0-9]+$/; k++) print i, col[k - 1], $k }' "$1"
}

place_irqbalance() {	# LOG
	run_child "$1" irqbalance --oneshot --foreground
}
noapp_conf=$work/noapp.conf
printf '# bench-interference phase 2: the plan without the application\napp-weight = 0\n' >"$noapp_conf"
if "$irqtune" -n -q -w 0.1 --no-state --load-source=proc -c "$noapp_conf" >"$work/probe.log" 2>&1; then
	noapp_args=(-c "$noapp_conf") noapp_name="irqtune, app-weight = 0"
else
	noapp_args=(--no-config) noapp_name="irqtune (no app-weight)"
	echo "bench-interference: this irqtune has no app-weight key ($(head -1 "$work/probe.log")): phase 2 runs it plain"
fi
place_irqtune() {	# LOG ARGS...
	local log=$1
	shift
	run_child "$log" "$irqtune" --json --no-state -w "$window" "$@"
}

# sample FILE: one instant of everything a phase is judged by
sample() {
	{
		echo "time $(date +%s.%N)"
		echo "stat $(grep "^cpu$cpu " /proc/stat)"
		echo "sched $(cat "/proc/$spid/task/$tid/schedstat")"
		echo "spin $(tail -1 "$work/spin.log")"
		echo "net $(net_bytes)"
		[ -n "$disk_stat" ] && echo "disk $(cat "$disk_stat")"
		echo "softirq $(awk -v c="$cpu" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "CPU" c) k = i + 1; next }
			$1 == "NET_RX:" || $1 == "NET_TX:" || $1 == "BLOCK:" { printf "%s %s ", $1, $k }' /proc/softirqs)"
	} >"$1"
	cp /proc/interrupts "$1.intr"
}

# figures A B NAME: one table row from two samples
figures() {
	local a=$1 b=$2
	awk -v hz="$hz" -v cpu="$cpu" -v name="$3" -v onx="$4" -v acct="$5" -v share="$6" -v mov="$7" '
	FNR == 1 { f++ }
	{ v[f, $1] = $0 }
	$1 == "time" { t[f] = $2 }
	$1 == "stat" { irq[f] = $8; sirq[f] = $9; steal[f] = $10; usr[f] = $3 + $4; sys_[f] = $5 }
	$1 == "sched" { run[f] = $2; wt[f] = $3 }
	$1 == "spin" { st[f] = $2; loops[f] = $5 }
	$1 == "net" { rx[f] = $2 }
	$1 == "disk" { wr[f] = $6 }
	$1 == "softirq" { for (i = 2; i < NF; i += 2) s[f, $i] = $(i + 1) }
	END {
		dt = t[2] - t[1]
		ms = 1000 / hz / dt
		i_ = (irq[2] - irq[1]) * ms; s_ = (sirq[2] - sirq[1]) * ms
		w_ = (wt[2] - wt[1]) / 1e6 / dt; r_ = (run[2] - run[1]) / 1e9 / dt * 100
		lp = (st[2] > st[1]) ? (loops[2] - loops[1]) / (st[2] - st[1]) / 1e6 : 0
		# loops per second on the CPU: without IRQ time accounting the
		# hard-irq time (and softirqs at its exit) is charged to the
		# task it interrupted, so only the work rate while running shows it
		lr = (run[2] > run[1]) ? (loops[2] - loops[1]) / ((run[2] - run[1]) / 1e9) / 1e6 : 0
		if (st[2] <= st[1]) lr = 0
		printf "%s\t%.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.1f %.1f %.1f %.3f %.1f\t%s\n", name, i_, s_, acct, mov, share, w_, i_ + s_ + w_, r_, lp, lr,
			(s[2, "NET_RX:"] - s[1, "NET_RX:"] + s[2, "BLOCK:"] - s[1, "BLOCK:"]) / dt,
			(rx[2] - rx[1]) / dt / 1e6, (wr[2] - wr[1]) / dt, onx
	}' "$a" "$b"
}

# show [-h]: the table's rows (from figures), or with -h its heading
show() {
	if [ "${1:-}" = -h ]; then
		printf "%-26s %5s %7s %7s %7s %6s %6s %6s %5s %7s %7s %7s %6s %6s  %s\n" phase "irq" "softirq" "irqtune" "movable" "app" "wait" "lost" "run" "Mloop/s" "Mloop/" "NETRX+" "rx" "disk" "IRQs on the CPU, per s"
		printf "%-26s %5s %7s %7s %7s %6s %6s %6s %5s %7s %7s %7s %6s %6s\n" "" "ms/s" "ms/s" "ms/s" "ms/s" "share%" "ms/s" "ms/s" "%" "" "run-s" "BLOCK/s" "MB/s" "wr/s"
		return
	fi
	awk -F'\t' '{ split($2, f, " ")
		printf "%-26s %5.1f %7.1f %7s %7s %6s %6.1f %6.1f %5.1f %7.0f %7.0f %7.0f %6.2f %6.0f  %s\n", $1,
			f[1], f[2], f[3] < 0 ? "-" : sprintf("%.1f", f[3]), f[4] < 0 ? "-" : sprintf("%.1f", f[4]),
			f[5] < 0 ? "-" : sprintf("%.0f", f[5]), f[6], f[7], f[8], f[9], f[10], f[11], f[12], f[13], $3 }'
}

# The IRQs on CPU X, busy in the phase: "IRQ(NAME):COUNT/s"
busy_on() {	# A.intr B.intr SECONDS
	awk -v c="$cpu" -v dt="$3" '
		NR == FNR && FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "CPU" c) k = i + 1; next }
		FNR == 1 { next }
		$1 ~ /^[0-9]+:$/ { n[FILENAME, $1] = $k; name[$1] = $NF }
		END { for (x in name) { d = (n[ARGV[2], x] - n[ARGV[1], x]) / dt
			if (d >= 5) { i = x; sub(":", "", i); printf "%s%s(%s):%.0f", sep, i, name[x], d; sep = " " } } }' "$1" "$2"
}

### Round 1, phase 1 placement first: it picks the thread's CPU
echo "bench-interference: phase 1 placement: irqbalance --oneshot"
place_irqbalance "$work/place-1.1.log" || echo "bench-interference: irqbalance --oneshot exit $?: $(tail -1 "$work/place-1.1.log.err")"
cp /proc/interrupts "$work/probe1"
nap 3
cp /proc/interrupts "$work/probe2"
if [ -n "${BENCH_CPU:-}" ]; then
	cpu=$BENCH_CPU
	why="BENCH_CPU"
else
	# the busiest by irqtune's measure (handler and softirq time), else
	# by interrupts
	busiest=
	if run_child "$work/pick.json" "$irqtune" -n --json --no-state --no-config -w "$window"; then
		busiest=$(jq -r '[.irqs[] | select(.outcome != "kernel_managed" and .load >= 0.0005)] | max_by(.load) |
			select(. != null) | "\(.irq) \(.name) \(.load * 100 | . * 100 | round / 100)% of a CPU"' "$work/pick.json" 2>/dev/null)
	fi
	mv_list=" $(movable | tr '\n' ' ') "
	[ -n "$busiest" ] || busiest=$(awk -v mv="$mv_list" 'FNR == 1 { f++ } $1 ~ /^[0-9]+:$/ { i = $1; sub(":", "", i)
			s = 0; for (k = 2; $k ~ /^[0-9]+$/; k++) s += $k; c[f, i] = s; name[i] = $NF }
		END { for (i in name) if (index(mv, " " i " ") && c[2, i] - c[1, i] > best) { best = c[2, i] - c[1, i]; b = i }
			if (b != "") print b, name[b], int(best / 3) "/s" }' "$work/probe1" "$work/probe2")
	[ -n "$busiest" ] || die "no movable IRQ fired in 3 s of load"
	set -- $busiest
	cpu=$(cut -d, -f1 <"/proc/irq/$1/effective_affinity_list" | cut -d- -f1)
	why="where irqbalance put the busiest movable IRQ, $1 ($2, ${*:3})"
fi
[[ "$cpu" =~ ^[0-9]+$ ]] && [ -e "/sys/devices/system/cpu/cpu$cpu/online" -o "$cpu" = 0 ] || die "CPU '$cpu': not a CPU"

total=$(awk -v r="$rounds" -v p="$phase_s" -v s="$settle" -v w="$window" 'BEGIN { t = r * 3 * (p + s + w + 30) + 60; print (t > 3600 ? 3600 : t) }')
setsid nice -n "$nice_" "$spinner" spin "$cpu" "$total" 200 >"$work/spin.log" 2>&1 &
groups+=($!)
spid=$!
for _ in $(seq 50); do [ -s "$work/spin.log" ] && break; nap 0.1; done
tid=$(awk 'NF == 4 { print $3; exit }' "$work/spin.log")
# With autogroups a session's tasks share one weight: the thread's session
# (setsid) gets its nice too, or it would only reorder the session.
[ "$nice_" = 0 ] || [ ! -e "/proc/$spid/autogroup" ] || echo "$nice_" >"/proc/$spid/autogroup" 2>/dev/null
[ -n "$tid" ] && [ -e "/proc/$spid/task/$tid" ] || die "the pinned thread did not start: $(head -2 "$work/spin.log")"
echo "bench-interference: CPU-bound thread $tid (process $spid, nice $nice_) pinned to CPU $cpu: $why"
echo "bench-interference: $rounds round(s) of 3 phases, ${phase_s} s measured each, ${settle} s after placing"

rows=$work/rows
: >"$rows"
for r in $(seq "$rounds"); do
	for p in 1 2 3; do
		log=$work/place-$r.$p.json
		case $p in
		1)	name="irqbalance --oneshot"
			log=${log%.json}.log
			[ "$r" = 1 ] || place_irqbalance "$log" || echo "bench-interference: irqbalance exit $?: $(tail -1 "$log.err")" ;;
		2)	name=$noapp_name
			place_irqtune "$log" "${noapp_args[@]}" || echo "bench-interference: phase 2 irqtune exit $?: $(grep -m1 irqtune: "$log.err")" ;;
		3)	name="irqtune"
			place_irqtune "$log" --no-config || echo "bench-interference: phase 3 irqtune exit $?: $(grep -m1 irqtune: "$log.err")" ;;
		esac
		[ "$p" = 1 ] || jq -r --argjson c "$cpu" '"  (phase '"$p"' placed: \(.summary.moved) moved, \(.summary.unchanged) unchanged; the CPU\u0027s application load as seen \([.machine.cpus[] | select(.cpu == $c) | .app_load // "unknown"][0]); on it now: \([.irqs[] | select(.load >= 0.0005 and (.to | tostring) == ($c | tostring)) | "\(.irq)(\(.name)) \(.load * 1000 | round / 1000)"] | join(", ")))"' "$log" 2>/dev/null
		kill -0 "$spid" 2>/dev/null || die "the pinned thread ended early: $(tail -2 "$work/spin.log")"
		nap "$settle"
		sample "$work/a"
		# irqtune's own account of the same span, a dry run: the IRQ work
		# it measures on the thread's CPU (the bpf source where it runs)
		"$irqtune" -n --json --no-state --no-config -w "$phase_s" >"$work/acct-$r.$p.json" 2>"$work/acct-$r.$p.err" &
		acct=$!
		nap "$phase_s"
		sample "$work/b"
		wait "$acct"
		acct=
		acct_ms=$(jq -r --argjson c "$cpu" '.machine.cpus[] | select(.cpu == $c) | .load_before * 1000' \
			"$work/acct-$r.$p.json" 2>/dev/null)
		# of it, what placement decides: IRQs that are not kernel-managed
		movable_ms=$(jq -r --argjson c "$cpu" '[.irqs[] | select(.outcome != "kernel_managed" and
			(.from | tostring) == ($c | tostring)) | .load] | add // 0 | . * 1000' "$work/acct-$r.$p.json" 2>/dev/null)
		# and the share of all IRQ work on CPUs running pinned threads,
		# where this irqtune knows them
		acct_share=$(jq -r '.summary.app_cpu_irq_share_before // empty | . * 100' "$work/acct-$r.$p.json" 2>/dev/null)
		dt=$(awk '{ t[NR] = $2 } END { print t[2] - t[1] }' <(head -1 "$work/a"; head -1 "$work/b"))
		figures "$work/a" "$work/b" "$p. $name" "$(busy_on "$work/a.intr" "$work/b.intr" "$dt")" "${acct_ms:--1}" "${acct_share:--1}" "${movable_ms:--1}" |
			tee -a "$rows" | show | sed 's/^/  /'
	done
done

echo
echo "bench-interference: the thread on CPU $cpu, per second of each phase ($(uname -r), $ncpu CPUs, HZ-sampled /proc/stat)"
show -h
show <"$rows"
if [ "$rounds" -gt 1 ]; then
	echo "mean of $rounds rounds:"
	awk -F'\t' '{ n[$1]++; if (!($1 in o)) o[$1] = ++k; split($2, f, " "); for (i = 1; i <= 13; i++) s[$1, i] += f[i] }
		END { for (p in o) order[o[p]] = p
			for (j = 1; j <= k; j++) { p = order[j]; printf "%s\t", p
				for (i = 1; i <= 13; i++) printf "%s%f", (i > 1 ? " " : ""), s[p, i] / n[p]
				printf "\t\n" } }' "$rows" | show
fi
echo "irq, softirq: /proc/stat (tick-sampled$irqacct); irqtune: the IRQ work a dry run of irqtune measured there over the phase;"
echo "movable: of that, the IRQs that are not kernel-managed, which placement decides;"
echo "app share: of all IRQ work, the part on CPUs running pinned threads, by the same dry run (where irqtune knows them);"
echo "lost = irq + softirq on the CPU + the thread's wait for it; run = the thread's share of the CPU;"
echo "Mloop/run-s = its work per second on the CPU, which IRQ time charged to it (no IRQ time accounting) lowers"
exit 0
