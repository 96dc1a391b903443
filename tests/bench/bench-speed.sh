#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-speed.sh - "make bench-speed": what one irqtune run costs on machines
# of 64 to 8192 CPUs and 1000 to 16000 IRQs, against the floor (reading the
# files it reads, nothing more) and irqbalance --oneshot. docs/performance.md
# explains the method and holds the figures.
#
# Environment:
#   BENCH_SIZES   main machines to run, by CPU count (64 256 1024 4096 8192)
#   BENCH_MACHINES  further machines by name (default "real-1152 big": the
#                 real 1,152-CPU capture's machine, make bench's 256 CPUs)
#   BENCH_SWEEPS  1 (default): also the sweeps that vary CPUs or IRQs alone
#   BENCH_STEADY  machines for the zero-writes test, by CPU count (256 1024)
#   BENCH_STEADY_COST  1 (default): also time a run on each speed-* machine
#                 once balanced (the cron case: nothing to move)
#   BENCH_REPS    repetitions per measurement, the lowest CPU time is kept
#                 (default: 5 up to 1024 CPUs, 3 at 4096, 2 at 8192)
#   BENCH_CACHE   where built trees are kept (/dev/shm/irqtune-bench); a
#                 tree is rebuilt when its description or irqsim changes
#   BENCH_KEEP    1: leave the trees there for the next run (default: the
#                 cache is removed when the run ends, however it ends; with
#                 every size built it is 14 GB of a tmpfs others need)
#   BENCH_REUSE   1: keep cached trees that another irqsim built
#   BENCH_TIMEOUT seconds one run may take before it is killed (300)
#   BENCH_HISTORY rows whose load history is priced (default
#                 "speed-1024/steady", the cron case): natively, runs with
#                 --no-state against runs that read the state of a run
#                 before them and write their own (21 of each, alternating)
#   BENCH_PRELOAD 1 (default): also measure under umockdev's preload
#   BENCH_IRQBALANCE_TRACE_MAX  largest CPU count whose irqbalance run is
#                 also traced for its system calls (4096)
#   IRQTUNE_REALDATA  the captures (default ../shared/realdata)
#
# The machines are tests/bench/machines/*.txt (tests/bench/genmachine made
# them). A tree is built once with tests/sim/irqsim, then frozen into a
# replay: the second sample is rendered ahead (irqsim step), sim.state is
# put away, and tests/bench/benchshim.so turns the program's sampling sleep
# into a swap of /proc/{interrupts,stat,softirqs}, so nothing of the
# simulator runs inside the measured process (at 8192 CPUs its model alone
# is a gigabyte). Affinity writes go to a sink file: the tree stays as built
# and every repetition does the same work; their count is kept.
#
# Two ways to show the tree to the program:
#  - native: in this script's private mount namespace the tree is
#    bind-mounted on /sys, /proc/irq and /proc/{interrupts,stat,softirqs},
#    and the program runs with nothing preloaded but benchshim.so: the
#    kernel's own path lookup, the cost on a real machine but for what
#    sysfs and procfs take to generate their files;
#  - preload: umockdev's preload and fakekernel.so, as the end-to-end tests
#    run (tests/sim/README.md); every path call pays umockdev's redirection.
# The floor is the same list of files, read by floorcat, both ways.
#
# Nothing here can write the host's /proc/irq: the namespace has a
# read-only tmpfs over it (under the binds), and fakekernel.so refuses
# write-opens outside the testbed besides.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 1
top=$PWD

# A private PID namespace too, with its own /proc: irqtune stands down
# (writes nothing, exit 2) while it sees an irqbalance running, and another
# bench-speed on this host runs irqbalance --oneshot often; that made
# repetitions that wrote nothing, and the best of them was kept.
if [ -z "${BENCH_GUARDED:-}" ]; then
	if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	   unshare -m true 2>/dev/null; then
		pidns=
		unshare -m -p -f --mount-proc true 2>/dev/null && pidns="-p -f --mount-proc"
		# shellcheck disable=SC2086
		exec unshare -m $pidns env BENCH_GUARDED=1 bash -c \
			'mount -t tmpfs -o ro,size=4k,mode=0555 bench-guard /proc/irq || exit 1
			 exec "$0" "$@"' "$top/tests/bench/bench-speed.sh" "$@"
	fi
	echo "bench-speed: no private mount namespace (needs root): no native runs;" \
	     "fakekernel.so's refusal of writes outside the testbed guards the host" >&2
	export BENCH_GUARDED=0
fi

out=$top/tests/out/bench
sim=$top/tests/sim/irqsim
tools=$out
cache=${BENCH_CACHE:-/dev/shm/irqtune-bench}
realdata=${IRQTUNE_REALDATA:-$top/../shared/realdata}
capture=$realdata/interrupts/pcp-qa-1152cpu-x86_64.txt
sizes=${BENCH_SIZES:-}
[ -n "$sizes" ] || sizes="64 256 1024 4096 8192"
extra=${BENCH_MACHINES-real-1152 big}
sweeps=${BENCH_SWEEPS:-1}
steady=${BENCH_STEADY-256 1024}
with_preload=${BENCH_PRELOAD:-1}
history=${BENCH_HISTORY-speed-1024/steady}
preload="$tools/benchshim.so $top/tests/shims/fakekernel.so libumockdev-preload.so.0"
results=$out/bench-speed.txt
rows=$out/bench-speed.rows
stats=$out/benchshim.stats
limit=${BENCH_TIMEOUT:-300}
mkdir -p "$out" "$cache" || exit 1
# The cache goes when the run does, an interrupted one too, unless kept.
if [ "${BENCH_KEEP:-0}" != 1 ]; then
	trap 'rm -rf "$cache"' EXIT
	trap 'exit 130' INT TERM HUP
fi
: >"$results"
: >"$rows"
rm -f "$out"/*.history

say() { echo "$*" | tee -a "$results"; }
die() { echo "bench-speed: $*" >&2; exit 1; }

for t in benchshim.so benchrun floorcat parsebench; do
	[ -e "$tools/$t" ] || die "$tools/$t missing: run it as make bench-speed"
done
[ -x "$top/irqtune" ] && [ -x "$sim" ] && [ -e "$top/tests/shims/fakekernel.so" ] ||
	die "build irqtune, tests/sim/irqsim and tests/shims/fakekernel.so first (make bench-speed does)"

# strace counts the system calls; Debian's, installed when missing.
if ! command -v strace >/dev/null; then
	[ "$(id -u)" = 0 ] || die "strace missing (apt-get install strace)"
	echo "bench-speed: installing strace" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends strace >/dev/null ||
		die "cannot install strace"
fi
# As cron runs it, without the host's site policy where irqtune reads one.
itargs="-q"
"$top/irqtune" --help 2>&1 | grep -q -- --no-config && itargs="$itargs --no-config"
# A balancer the host runs (another bench's irqbalance, say) is no reason
# to stop here: every write goes to the replay's sink.
"$top/irqtune" --help 2>&1 | grep -q -- --ignore-other-balancer && itargs="$itargs --ignore-other-balancer"
ibargs="--oneshot --foreground"
irqbalance=$(command -v irqbalance || true)
native=0
[ "$BENCH_GUARDED" = 1 ] && native=1

# ---- machines ---------------------------------------------------------

# A machine of this bench, or else one of tests/sim (big: make bench's
# 256 CPUs, where irqbalance is compared for placement quality too).
desc_of() {
	if [ -f "$top/tests/bench/machines/$1.txt" ]; then
		echo "$top/tests/bench/machines/$1.txt"
	else
		echo "$top/tests/sim/machines/$1.txt"
	fi
}

# "CPUS IRQS" of a description: its cpus line, its "about N IRQs" comment.
desc_size() {
	awk '/^cpus / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			 c = v["packages"] * v["cores"] * v["threads"] }
	     /^# about [0-9]+ IRQs/ { n = $3 }
	     END { print c, n }' "$1"
}

kb_avail_shm() { df -Pk "$cache" | awk 'NR == 2 { print $4 }'; }
kb_avail_mem() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }

# freeze DIR: render the second sample ahead and put the model away.
freeze() {
	local d=$1 f
	mkdir -p "$d/replay/a" "$d/replay/b" || return 1
	for f in interrupts stat softirqs; do cp "$d/proc/$f" "$d/replay/a/$f" || return 1; done
	"$sim" step "$d" 1 >/dev/null || return 1
	for f in interrupts stat softirqs; do
		mv "$d/proc/$f" "$d/replay/b/$f" && ln -s "../replay/a/$f" "$d/proc/$f" || return 1
	done
	mv "$d/sim.state" "$d/replay/sim.state"
	rm -f "$d/sim.journal"
	: >"$d/replay/sink"
}

# prepare NAME: a frozen tree in $cache/NAME (built unless cached), in D.
# Returns 1, with a line in the results, when this machine cannot hold it.
prepare() {
	local name=$1 desc stamp cpus irqs need_shm need_mem t0
	desc=$(desc_of "$name")
	[ -f "$desc" ] || { say "$name: no description $desc"; return 1; }
	D=$cache/$name
	# What the tree was made of: the description and the layout (replay/,
	# sink: "replay 2"), then irqsim itself. BENCH_REUSE=1 keeps a tree that
	# another irqsim built (the 8192-CPU one takes minutes).
	stamp="$( (cat "$desc"; echo replay 2) | sha256sum | cut -c1-16) $(sha256sum <"$sim" | cut -c1-16)"
	if [ -f "$D/.stamp" ]; then
		old=$(cat "$D/.stamp")
		[ "$old" = "$stamp" ] && return 0
		if [ "${BENCH_REUSE:-0}" = 1 ] && [ "${old%% *}" = "${stamp%% *}" ]; then
			echo "bench-speed: $name: reusing a tree built by another irqsim (BENCH_REUSE=1)" >&2
			return 0
		fi
	fi
	rm -rf "$D"
	read -r cpus irqs < <(desc_size "$desc")
	# Two samples of ~11 bytes per CPU and IRQ, sysfs masks of every CPU
	# in every CPU's files, ~40 KB per /proc/irq/N; irqsim holds 8 bytes
	# per CPU and IRQ besides.
	need_shm=$(( (cpus * irqs * 11 * 21 / 10 + cpus * cpus * 24 + irqs * 40000) / 1024 ))
	need_mem=$(( need_shm + cpus * irqs * 8 * 12 / 10 / 1024 ))
	if [ "$need_shm" -gt "$(kb_avail_shm)" ] ||
	   [ "$need_mem" -gt "$(( $(kb_avail_mem) * 9 / 10 ))" ]; then
		say "$name: skipped: needs ~$((need_shm / 1048576 + 1)) GB in $cache and" \
		    "~$((need_mem / 1048576 + 1)) GB of memory; $(( $(kb_avail_shm) / 1048576 )) GB" \
		    "and $(( $(kb_avail_mem) / 1048576 )) GB free"
		return 1
	fi
	echo "bench-speed: building $name ($cpus CPUs, $irqs IRQs; once, cached in $D)" >&2
	t0=$(date +%s)
	if ! "$sim" build "$desc" "$D" >/dev/null || ! freeze "$D"; then
		say "$name: cannot build the tree (irqsim failed)"
		rm -rf "$D"
		return 1
	fi
	echo "$stamp" >"$D/.stamp"
	echo "bench-speed: built $name in $(( $(date +%s) - t0 )) s" >&2
}

# prepare_steady NAME: tree $cache/NAME.steady, the machine of NAME once
# irqtune has balanced it (two runs against the live model), frozen like
# the others; in D. Keyed on NAME's tree, not on irqtune: a later irqtune
# may still find something to move there, and the table says how much.
# The sysfs tree is hard-linked from NAME's, nothing of it is copied.
prepare_steady() {
	local name=$1 base=$cache/$1 stamp r t0
	S=$cache/$name.steady
	stamp="$(cat "$base/.stamp") steady 1"
	if [ -f "$S/.stamp" ] && [ "$(cat "$S/.stamp")" = "$stamp" ]; then
		D=$S
		return 0
	fi
	rm -rf "$S"
	echo "bench-speed: balancing $name for the steady run (once, cached in $S)" >&2
	t0=$(date +%s)
	mkdir -p "$S/proc" &&
	cp -al "$base/sys" "$S/sys" &&
	cp -a "$base/proc/irq" "$S/proc/irq" &&
	cp "$base/replay/b/interrupts" "$base/replay/b/stat" "$base/replay/b/softirqs" "$S/proc/" &&
	cp "$base/replay/sim.state" "$S/sim.state" || { rm -rf "$S"; return 1; }
	for r in 1 2; do
		# shellcheck disable=SC2086
		timeout -s KILL "$limit" env UMOCKDEV_DIR="$S" \
			LD_PRELOAD="$top/tests/shims/fakekernel.so libumockdev-preload.so.0" \
			"$top/irqtune" $itargs >/dev/null 2>&1
		[ $? -gt 1 ] && { say "$name/steady: balancing run $r failed"; rm -rf "$S"; return 1; }
	done
	freeze "$S" || { rm -rf "$S"; return 1; }
	echo "$stamp" >"$S/.stamp"
	echo "bench-speed: balanced $name in $(( $(date +%s) - t0 )) s" >&2
	D=$S
}

# ---- measuring --------------------------------------------------------

reps_for() {
	if [ -n "${BENCH_REPS:-}" ]; then echo "$BENCH_REPS"
	elif [ "$1" -le 1024 ]; then echo 5
	elif [ "$1" -le 4096 ]; then echo 3
	else echo 2; fi
}

# field NAME LINE: the value after NAME in a "key value ..." line
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

# The tree on the real paths, in this namespace only; /run emptied so the
# programs' lock and socket files stay in here.
native_on() {
	mount --bind "$D/sys" /sys &&
	mount --bind "$D/proc/irq" /proc/irq &&
	mount -t tmpfs -o size=16m bench-run /run &&
	"$tools/benchrun" -R "$D" -- true >/dev/null
}
native_off() {
	local f
	for f in interrupts stat softirqs; do
		while umount -l "/proc/$f" 2>/dev/null; do :; done
	done
	umount -l /run; umount -l /proc/irq; umount -l /sys
}

# run_mode MODE REPS PROG ARGS...: benchrun natively or under the preload
run_mode() {
	local mode=$1 reps=$2; shift 2
	if [ "$mode" = native ]; then
		"$tools/benchrun" -n "$reps" -t "$limit" -R "$D" -e BENCH_MODE=native \
			-e "BENCH_DIR=$D" -e "LD_PRELOAD=$tools/benchshim.so" \
			-e SYSTEMD_DEVICE_VERIFY_SYSFS=0 -e "BENCH_STATS=$stats" -- "$@"
	else
		"$tools/benchrun" -n "$reps" -t "$limit" -r "$D" -e BENCH_MODE=replay \
			-e "UMOCKDEV_DIR=$D" -e "LD_PRELOAD=$preload" -e "BENCH_STATS=$stats" -- "$@"
	fi
}

# trace MODE FILE PROG ARGS...: one run under strace
trace() {
	local mode=$1 file=$2; shift 2
	if [ "$mode" = native ]; then
		"$tools/benchrun" -R "$D" -- true >/dev/null
		timeout -s KILL "$limit" strace -f -qq -y -s 0 -o "$file" -E BENCH_MODE=native \
			-E "BENCH_DIR=$D" -E "LD_PRELOAD=$tools/benchshim.so" \
			-E SYSTEMD_DEVICE_VERIFY_SYSFS=0 -E "BENCH_STATS=$stats" "$@" >/dev/null 2>&1
		"$tools/benchrun" -R "$D" -- true >/dev/null
	else
		"$tools/benchrun" -r "$D" -- true >/dev/null
		timeout -s KILL "$limit" strace -f -qq -y -s 0 -o "$file" -E BENCH_MODE=replay \
			-E "UMOCKDEV_DIR=$D" -E "LD_PRELOAD=$preload" -E "BENCH_STATS=$stats" \
			"$@" >/dev/null 2>&1
		"$tools/benchrun" -r "$D" -- true >/dev/null
	fi
}

# syscalls FILE: "opens N reads N writes N dirents N stats N total N"
syscalls() {
	awk '/ resumed>/ || /^[0-9]+ \+\+\+/ || /^[0-9]+ ---/ { next }
	     { s = $2; sub(/\(.*/, "", s); n[s]++; t++ }
	     END {
		printf "opens %d reads %d writes %d dirents %d stats %d total %d\n",
		    n["open"] + n["openat"] + n["openat2"] + n["creat"],
		    n["read"] + n["pread64"] + n["readv"] + n["preadv"],
		    n["write"] + n["pwrite64"] + n["writev"] + n["pwritev"],
		    n["getdents64"] + n["getdents"],
		    n["stat"] + n["lstat"] + n["fstat"] + n["newfstatat"] + n["statx"] + \
		    n["access"] + n["faccessat"] + n["faccessat2"] + n["readlink"] + n["readlinkat"],
		    t
	     }' "$1"
}

# floor_list MODE TRACE LIST: the machine's files the traced run opened for
# reading, as it named them (/sys/..., /proc/...): each once, the three
# sampled files each time.
floor_list() {
	awk -v d="$D/" -v mode="$1" '
	/ resumed>/ { next }
	$2 ~ /^(open|openat)\(/ && !/O_WRONLY|O_RDWR/ {
		if (!match($0, / = [0-9]+<.*>$/)) next
		p = substr($0, RSTART, RLENGTH); sub(/^ = [0-9]+</, "", p); sub(/>$/, "", p)
		if (mode != "native") {
			if (substr(p, 1, length(d)) != d) next
			p = "/" substr(p, length(d) + 1)
			if (p ~ /^\/replay\/[ab]\/(interrupts|stat|softirqs)$/)
				sub(/^\/replay\/[ab]\//, "/proc/", p)
		}
		if (p ~ /^\/proc\/(interrupts|stat|softirqs)$/) { print p; next }
		if (p !~ /^\/sys\// && p !~ /^\/proc\/irq\//) next
		if (!(p in seen)) { seen[p] = 1; print p }
	}' "$2" >"$3"
}

# count_writes: affinity write-opens benchshim.so saw in the last runs
count_writes() { awk 'NR == 1 { print $4 }' "$stats"; }

# measure_mode MODE NAME CPUS REPS: irqtune, the floor and irqbalance one
# way; prints "key value" pairs prefixed with the mode.
measure_mode() {
	local m=$1 name=$2 cpus=$3 reps=$4 it fc ib tr sc fl p ib_sc=
	p=${m:0:1}		# n or p
	: >"$stats"
	# shellcheck disable=SC2086
	it=$(run_mode "$m" "$reps" "$top/irqtune" $itargs)
	echo "${p}_it_cpu $(field cpu_s "$it") ${p}_it_user $(field user_s "$it")" \
	     "${p}_it_wall $(field wall_s "$it") ${p}_it_rss $(field maxrss_kb "$it")" \
	     "${p}_it_status $(field status "$it") ${p}_it_moves $(count_writes)"
	# The list of files comes from the first way measured (native if any).
	fl=$out/$name.floor.list
	if [ "$m" = native ] || [ "$native" = 0 ]; then
		tr=$out/$name.$m.strace
		: >"$stats"
		# shellcheck disable=SC2086
		trace "$m" "$tr" "$top/irqtune" $itargs
		sc=$(syscalls "$tr")
		floor_list "$m" "$tr" "$fl"
		rm -f "$tr"
		echo "sc_mode $m sc_opens $(field opens "$sc") sc_reads $(field reads "$sc")" \
		     "sc_writes $(field writes "$sc") sc_dirents $(field dirents "$sc")" \
		     "sc_stats $(field stats "$sc") sc_total $(field total "$sc") floor_files $(wc -l <"$fl")"
	fi
	fc=$(run_mode "$m" "$reps" "$tools/floorcat" "$fl")
	echo "${p}_fl_cpu $(field cpu_s "$fc") ${p}_fl_wall $(field wall_s "$fc")"
	if [ -n "$irqbalance" ]; then
		: >"$stats"
		# shellcheck disable=SC2086
		ib=$(run_mode "$m" "$reps" "$irqbalance" $ibargs)
		echo "${p}_ib_cpu $(field cpu_s "$ib") ${p}_ib_wall $(field wall_s "$ib")" \
		     "${p}_ib_rss $(field maxrss_kb "$ib") ${p}_ib_status $(field status "$ib")" \
		     "${p}_ib_moves $(count_writes)"
		# Its trace takes minutes at 8192 CPUs, where it gives up anyway.
		if { [ "$m" = native ] || [ "$native" = 0 ]; } &&
		   [ "$cpus" -le "${BENCH_IRQBALANCE_TRACE_MAX:-4096}" ]; then
			tr=$out/$name.irqbalance.strace
			# shellcheck disable=SC2086
			trace "$m" "$tr" "$irqbalance" $ibargs
			ib_sc=$(syscalls "$tr")
			rm -f "$tr"
			echo "ib_opens $(field opens "$ib_sc") ib_reads $(field reads "$ib_sc")" \
			     "ib_writes $(field writes "$ib_sc") ib_total $(field total "$ib_sc")"
		fi
	fi
}

# measure_history NAME REPS: what the load history adds to a run, natively
# (the only way irqtune keeps one here: /run is the bench's own tmpfs). The
# state is seeded by a run whose window saw no load (its two samples both
# replay/a), so the measured run estimates over the interval since, as a
# run a minute after the last one does, and every repetition starts from
# that seed. Runs with --no-state and with the history alternate, REPS of
# each, so that what else the host does falls on both alike; prints the
# least and the median CPU time of each as "key value" pairs. The run's
# report of its history goes to $out/NAME.history.
measure_history() {
	local name=$1 reps=$2 seed=$out/$1.state conf=$out/history.conf kb args i
	local -a env=(-e BENCH_MODE=native -e "BENCH_DIR=$D" -e "LD_PRELOAD=$tools/benchshim.so"
		      -e SYSTEMD_DEVICE_VERIFY_SYSFS=0)
	# irqtune keeps a history natively only where the configuration names
	# its directory (/proc is not the kernel's own here); the rest as cron.
	echo "state-dir = /run/irqtune-bench" >"$conf"
	args="-c $conf ${itargs/--no-config/}"
	rm -rf /run/irqtune-bench
	# shellcheck disable=SC2086
	"$tools/benchrun" -t "$limit" -R "$D" "${env[@]}" -e BENCH_NOSWAP=1 -- "$top/irqtune" $args >/dev/null
	cp /run/irqtune-bench/state "$seed" 2>/dev/null || { echo "h_status no-state"; return; }
	kb=$(( $(stat -c %s "$seed") / 1024 ))
	# The seed's counters must be older than the measured window's start
	# (its clock moved on by the window inside the seeding process only).
	sleep 2
	cp "$seed" /run/irqtune-bench/state
	"$tools/benchrun" -R "$D" -- true >/dev/null
	# shellcheck disable=SC2086
	BENCH_MODE=native BENCH_DIR="$D" LD_PRELOAD="$tools/benchshim.so" SYSTEMD_DEVICE_VERIFY_SYSFS=0 \
		timeout -s KILL "$limit" "$top/irqtune" ${args/-q/} -v 2>&1 |
		grep '^irqtune: load history:' >"$out/$name.history"
	for i in $(seq 1 "$reps"); do
		# shellcheck disable=SC2086
		echo "ns $("$tools/benchrun" -t "$limit" -R "$D" "${env[@]}" -- "$top/irqtune" $args --no-state)"
		# shellcheck disable=SC2086
		echo "st $("$tools/benchrun" -t "$limit" -R "$D" -c "$seed:/run/irqtune-bench/state" \
			"${env[@]}" -- "$top/irqtune" $args)"
	done | awk -v kb="$kb" '
		{ for (i = 2; i < NF; i++) if ($i == "cpu_s") t[$1, ++n[$1]] = $(i + 1)
		  for (i = 2; i < NF; i++) if ($i == "status" && $(i + 1) != 0) bad = $(i + 1) }
		function sortk(k,   i, j, x) {
			for (i = 2; i <= n[k]; i++) { x = t[k, i]; for (j = i - 1; j >= 1 && t[k, j] > x; j--) t[k, j + 1] = t[k, j]; t[k, j + 1] = x }
		}
		END {
			sortk("ns"); sortk("st")
			printf "h_ns_min %s h_ns_med %s h_st_min %s h_st_med %s h_reps %d h_state_kb %d h_status %s\n",
			    t["ns", 1], t["ns", int((n["ns"] + 1) / 2)], t["st", 1], t["st", int((n["st"] + 1) / 2)],
			    n["st"], kb, bad == "" ? 0 : bad
		}'
	rm -rf "$seed" "$conf" /run/irqtune-bench
}

# run_machine NAME [steady]: every measurement of one machine, one row
# into $rows (named NAME/steady for the balanced machine).
run_machine() {
	local name=$1 cpus irqs bytes reps kv= row=$1
	prepare "$name" || return 0
	if [ "${2:-}" = steady ]; then
		prepare_steady "$name" || return 0
		row=$name/steady
	fi
	read -r cpus irqs < <(desc_size "$(desc_of "$name")")
	irqs=$(grep -c '^ *[0-9][0-9]*:' "$D/replay/a/interrupts")
	bytes=$(stat -Lc %s "$D/replay/a/interrupts")
	reps=$(reps_for "$cpus")
	echo "bench-speed: measuring $row ($reps repetitions each)" >&2
	if [ "$native" = 1 ]; then
		if native_on; then
			kv="$kv $(measure_mode native "${row/\//.}" "$cpus" "$reps" | tr '\n' ' ')"
			case " $history " in
			*" $row "*) kv="$kv $(measure_history "${row/\//.}" "${BENCH_HISTORY_REPS:-21}")" ;;
			esac
		else
			say "$row: cannot bind the tree: no native runs"
		fi
		native_off
	fi
	# The balanced machines natively only, where that is possible.
	if [ "$with_preload" = 1 ] && [ "$row" = "$name" ] || [ "$native" = 0 ]; then
		kv="$kv $(measure_mode preload "${row/\//.}" "$cpus" "$reps" | tr '\n' ' ')"
	fi
	echo "$row $cpus $irqs $bytes $kv" >>"$rows"
}

# ---- report -----------------------------------------------------------

# The table of one way (n: native, p: preload).
table() {
	awk -v p="$1" '
	function ms(x) { if (x == "" || x == "-") return "-"; return x < 1 ? sprintf("%.1fms", x * 1000) : sprintf("%.2fs", x) }
	function r(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.2f", a / b) : "-" }
	function g(k) { return (p "_" k) in v ? v[p "_" k] : "" }
	BEGIN {
		printf "%-17s %5s %6s %8s | %9s %8s %8s %6s %6s %6s | %9s %6s | %10s %6s %7s\n",
		    "machine", "CPUs", "IRQs", "intr_MB", "irqtune", "(user)", "wall", "RSS_MB", "moves", "exit",
		    "floor", "x_flr", "irqbalance", "x_ib", "ib_RSS"
	}
	{
		delete v
		for (i = 5; i < NF; i += 2) v[$i] = $(i + 1)
		if (g("it_cpu") == "") next
		printf "%-17s %5d %6d %8.1f | %9s %8s %8s %6.1f %6s %6s | %9s %6s | %10s %6s %7s\n",
		    $1, $2, $3, $4 / 1e6, ms(g("it_cpu")), ms(g("it_user")), ms(g("it_wall")),
		    g("it_rss") / 1024, g("it_moves"), g("it_status"),
		    ms(g("fl_cpu")), r(g("it_cpu"), g("fl_cpu")),
		    ms(g("ib_cpu")), r(g("it_cpu"), g("ib_cpu")),
		    g("ib_rss") != "" ? sprintf("%.1f", g("ib_rss") / 1024) : "-"
	}' "$rows" | tee -a "$results"
}

# Growth: least-squares slope of log(cost) on log(size) over the speed-*
# machines, and the slope between neighbours (where a step would show).
growth() {
	awk -v p="$1" -v want="${2:-fresh}" '$1 ~ /^speed-/ && (($1 ~ /\/steady$/) == (want == "steady")) {
		delete v
		for (i = 5; i < NF; i += 2) v[$i] = $(i + 1)
		if (v[p "_it_cpu"] == "") next
		n++; x["bytes", n] = $4; x["CPUsxIRQs", n] = $2 * $3; x["IRQs", n] = $3; x["CPUs", n] = $2
		y["irqtune", n] = v[p "_it_cpu"]; y["floor", n] = v[p "_fl_cpu"]
		y["irqbalance", n] = v[p "_ib_cpu"]; y["irqtune_RSS", n] = v[p "_it_rss"]
		y["syscalls", n] = v["sc_total"]
	}
	function slope(xk, yk,   i, m, sx, sy, sxx, sxy, a, b) {
		m = 0; sx = sy = sxx = sxy = 0
		for (i = 1; i <= n; i++) {
			if (y[yk, i] == "" || y[yk, i] <= 0) continue
			a = log(x[xk, i]); b = log(y[yk, i]); m++
			sx += a; sy += b; sxx += a * a; sxy += a * b
		}
		if (m < 2 || m * sxx == sx * sx) return "-"
		return sprintf("%.2f", (m * sxy - sx * sy) / (m * sxx - sx * sx))
	}
	END {
		if (n < 2) { print "  (needs two machines)"; exit }
		printf "  %-12s", "cost \\ size"
		split("bytes CPUsxIRQs IRQs CPUs", xk, " ")
		for (j = 1; j <= 4; j++) printf " %10s", xk[j]
		printf "   vs bytes, neighbour to neighbour\n"
		split("irqtune floor irqbalance irqtune_RSS syscalls", yk, " ")
		for (k = 1; k <= 5; k++) {
			printf "  %-12s", yk[k]
			for (j = 1; j <= 4; j++) printf " %10s", slope(xk[j], yk[k])
			printf "  "
			for (i = 2; i <= n; i++) {
				a = y[yk[k], i - 1]; b = y[yk[k], i]
				printf " %s", (a > 0 && b > 0) ? sprintf("%.2f", log(b / a) / log(x["bytes", i] / x["bytes", i - 1])) : "-"
			}
			printf "\n"
		}
	}' "$rows" | tee -a "$results"
}

sweep_exponents() {
	awk -v p="$1" '{ delete v; for (i = 5; i < NF; i += 2) v[$i] = $(i + 1)
		c[$1] = v[p "_it_cpu"]; f[$1] = v[p "_fl_cpu"]; b[$1] = v[p "_ib_cpu"] }
	function e(y, a, bb, xa, xb) { return (y[a] > 0 && y[bb] > 0) ? sprintf("%.2f", log(y[bb] / y[a]) / log(xb / xa)) : "-" }
	function line(t, a, bb, xa, xb) {
		printf "  %-34s irqtune %s, floor %s, irqbalance %s\n", t,
		    e(c, a, bb, xa, xb), e(f, a, bb, xa, xb), e(b, a, bb, xa, xb)
	}
	END {
		line("IRQs 1000 -> 16000 at 1024 CPUs:", "sweep-1024x1000", "sweep-1024x16000", 1000, 16000)
		line("IRQs 1000 -> 4096 at 1024 CPUs:", "sweep-1024x1000", "speed-1024", 1000, 4096)
		line("CPUs 256 -> 4096 at 4096 IRQs:", "sweep-256x4096", "sweep-4096x4096", 256, 4096)
		line("CPUs 256 -> 1024 at 4096 IRQs:", "sweep-256x4096", "speed-1024", 256, 1024)
	}' "$rows" | tee -a "$results"
}

syscall_table() {
	awk '{ delete v; for (i = 5; i < NF; i += 2) v[$i] = $(i + 1)
		if (!("sc_total" in v)) next
		if (!h++) printf "%-17s %8s %8s %7s %8s %8s %9s %8s | %8s %8s %7s %9s\n", "machine", "opens", "reads",
		    "writes", "dirents", "stats", "syscalls", "files", "ib_opens", "ib_reads", "ib_wrts", "ib_sysc"
		printf "%-17s %8d %8d %7d %8d %8d %9d %8d | %8s %8s %7s %9s\n", $1, v["sc_opens"], v["sc_reads"],
		    v["sc_writes"], v["sc_dirents"], v["sc_stats"], v["sc_total"], v["floor_files"],
		    v["ib_opens"] == "" ? "-" : v["ib_opens"], v["ib_reads"] == "" ? "-" : v["ib_reads"],
		    v["ib_writes"] == "" ? "-" : v["ib_writes"], v["ib_total"] == "" ? "-" : v["ib_total"] }' "$rows" |
		tee -a "$results"
}

fmt_s() { awk -v x="$1" 'BEGIN { if (x == "" || x < 0) print "-"; else if (x < 1) printf "%.1f ms", x * 1000; else printf "%.2f s", x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b <= 0) print "-"; else printf "%.2f", a / b }'; }

# ---- run --------------------------------------------------------------

t_start=$(date +%s)
say "irqtune bench-speed, $(date -u +%Y-%m-%dT%H:%MZ)"
say "host: $(nproc) CPUs ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(uname -sr)," \
    "$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) memory," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
say "irqtune $(git -C "$top" describe --always --dirty 2>/dev/null || echo '?') ($itargs)," \
    "$( [ "$BENCH_GUARDED" = 1 ] && echo 'host /proc/irq read-only in a private mount namespace' || echo 'no mount namespace')"
[ -n "$irqbalance" ] && say "$("$irqbalance" --version 2>&1 | head -1) ($ibargs)"

for n in $sizes; do
	run_machine "speed-$n"
done
for m in $extra; do
	run_machine "$m"
done
if [ "${BENCH_STEADY_COST:-1}" = 1 ]; then
	for n in $sizes; do
		run_machine "speed-$n" steady
	done
	for m in $extra; do
		run_machine "$m" steady
	done
fi
if [ "$sweeps" = 1 ]; then
	for m in sweep-1024x1000 sweep-1024x16000 sweep-256x4096 sweep-4096x4096; do
		run_machine "$m"
	done
fi

say ""
say "One run of irqtune on a fresh machine (every movable IRQ allowed on all CPUs, so all move; NAME/steady:"
say "the same machine once irqtune has balanced it, the cron case),"
say "replayed: CPU = user + sys, the best of the repetitions; wall excludes the sampling window;"
say "floor = reading once every file irqtune opened; x_flr, x_ib = irqtune's CPU time over theirs."
for mode in native preload; do
	p=${mode:0:1}
	grep -q " ${p}_it_cpu " "$rows" || continue
	say ""
	if [ "$mode" = native ]; then
		say "Native (the tree bind-mounted on /sys and /proc; nothing preloaded but the replay shim):"
	else
		say "Under umockdev's preload and fakekernel.so (as the end-to-end tests run):"
	fi
	table "$p"
	say "Growth over the speed-* machines (exponent of a log-log least-squares fit; 1 = linear):"
	growth "$p"
	if grep -q "^speed-[0-9]*/steady .* ${p}_it_cpu " "$rows"; then
		say "The same over the balanced machines (*/steady):"
		growth "$p" steady
	fi
	if [ "$sweeps" = 1 ] && grep -q '^sweep-' "$rows"; then
		say "One dimension at a time (exponent between the two machines):"
		sweep_exponents "$p"
	fi
done
if grep -q ' h_st_min ' "$rows"; then
	say ""
	say "The load history's cost (native; runs with --no-state and runs that read the state of a run"
	say "before them, estimate over the interval since and write their own, alternating; CPU time):"
	awk '{ delete v; for (i = 5; i < NF; i += 2) v[$i] = $(i + 1)
		if (!("h_st_min" in v)) next
		printf "  %-17s --no-state least %.1f ms, median %.1f; with history least %.1f ms, median %.1f:" \
		    " %+.1f%% / %+.1f%% (%d runs each); state %d KB; exit %s\n",
		    $1, v["h_ns_min"] * 1000, v["h_ns_med"] * 1000, v["h_st_min"] * 1000, v["h_st_med"] * 1000,
		    (v["h_ns_min"] > 0 ? (v["h_st_min"] / v["h_ns_min"] - 1) * 100 : 0),
		    (v["h_ns_med"] > 0 ? (v["h_st_med"] / v["h_ns_med"] - 1) * 100 : 0),
		    v["h_reps"], v["h_state_kb"], v["h_status"] }' "$rows" | tee -a "$results"
	for f in "$out"/*.history; do
		[ -s "$f" ] && say "  ${f##*/}: $(cut -c1-200 "$f")"
	done
fi
say ""
say "System calls of one irqtune run ($(grep -q 'sc_mode native' "$rows" && echo native || echo 'under the preload'); files = distinct files read, the floor's list), irqbalance's beside:"
syscall_table

# ---- the parser alone on a real 13 MB capture --------------------------
say ""
if [ -f "$capture" ]; then
	pb=$("$tools/parsebench" -n 20 "$capture")
	ct=$("$tools/benchrun" -n 20 -- cat "$capture")
	pf=$(echo "$pb" | awk '$1 == "parse_file_s" { print $2 }')
	pm=$(echo "$pb" | awk '$1 == "parse_mem_s" { print $2 }')
	rd=$(echo "$pb" | awk '$1 == "read_s" { print $2 }')
	say "Parser: interrupts_parse() of $(basename "$capture")" \
	    "($(echo "$pb" | awk '$1 == "bytes" { printf "%.1f MB", $2 / 1e6 }'), $(echo "$pb" |
	      awk '$1 == "columns" { c = $2 } $1 == "rows" { r = $2 } END { print c " CPUs, " r " IRQ rows" }')), best of 20:"
	say "  parse from the file $(fmt_s "$pf") ($(echo "$pb" | awk '$1 == "parse_file_mb_s" { print $2 }') MB/s)," \
	    "from memory $(fmt_s "$pm"); cat of it $(fmt_s "$(field cpu_s "$ct")") CPU, a read(2) loop $(fmt_s "$rd")"
	say "  parse / cat = $(ratio "$pf" "$(field cpu_s "$ct")"), parse / read loop = $(ratio "$pf" "$rd")"
else
	say "Parser: $capture missing (set IRQTUNE_REALDATA)"
fi

# ---- a steady machine writes nothing -----------------------------------
# The live model this time (fakekernel.so answers the writes, the kernel's
# way): a first run balances, the next ones should write nothing. Counted
# at the libc boundary by benchshim.so (fakekernel.so turns the write-opens
# into read-only opens, so strace cannot see them), by the files of
# /proc/irq the second run changed, and in a last run replayed with its
# writes kept, under strace: an openat(2) with O_WRONLY of a /proc/irq file.
say ""
runs=${BENCH_STEADY_RUNS:-6}
for n in $steady; do
	name=speed-$n
	desc=$(desc_of "$name")
	[ -f "$desc" ] || continue
	S=$cache/steady-$n
	rm -rf "$S" "$S.irq"
	"$sim" build "$desc" "$S" >/dev/null || { say "Steady $name: build failed"; continue; }
	counts= changed=
	for r in $(seq 1 "$runs"); do
		[ "$r" = 2 ] && cp -a "$S/proc/irq" "$S.irq"
		: >"$stats"
		# shellcheck disable=SC2086
		timeout -s KILL "$limit" env BENCH_MODE=count BENCH_STATS="$stats" UMOCKDEV_DIR="$S" \
			LD_PRELOAD="$preload" "$top/irqtune" $itargs >/dev/null 2>"$out/steady.err"
		rc=$?
		counts="$counts $(awk '{ s += $4 } END { print s + 0 }' "$stats")"
		[ "$rc" -gt 1 ] && counts="$counts(exit $rc)"
		if [ "$r" = 2 ]; then
			changed=$(diff -rq "$S.irq" "$S/proc/irq" | wc -l)
			rm -rf "$S.irq"
		fi
	done
	D=$S
	freeze "$S" >/dev/null 2>&1
	tr=$out/steady-$n.strace
	"$tools/benchrun" -r "$D" -- true >/dev/null
	# shellcheck disable=SC2086
	timeout -s KILL "$limit" strace -f -qq -y -s 0 -o "$tr" -E BENCH_MODE=replay -E BENCH_WRITES=keep \
		-E "UMOCKDEV_DIR=$D" -E "LD_PRELOAD=$preload" -E "BENCH_STATS=$stats" "$top/irqtune" $itargs \
		>/dev/null 2>&1
	rc=$?
	w=$(awk '$2 ~ /^(open|openat)\(/ && /O_WRONLY|O_RDWR/ && /\/proc\/irq\// && / = [0-9]+</' "$tr" | wc -l)
	say "Steady $name: affinity writes in runs 1-$runs:$counts (the second changed $changed files of /proc/irq);" \
	    "run $((runs + 1)) under strace: $w write-opens of /proc/irq (exit $rc)"
	rm -rf "$S" "$tr"
done

say ""
if [ "${BENCH_KEEP:-0}" = 1 ]; then
	kept="trees kept in $cache ($(du -sh "$cache" 2>/dev/null | cut -f1); make bench-speed-clean drops them)"
else
	kept="trees removed from $cache (BENCH_KEEP=1 keeps them)"
fi
say "bench-speed: $(( $(date +%s) - t_start )) s; figures in ${results#"$top"/}, raw rows in ${rows#"$top"/}; $kept"
