#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end tests of trust under faults, races and hostile input: the real
# irqtune binary against simulated machines whose kernel misbehaves during
# the run (tests/sim/README.md, "Events" and "Faults"): IRQs vanish or
# appear between the samples or in the middle of the writes, CPUs go
# offline, writes are refused, the process is killed half-way, /proc is
# unreadable; plus the safe-root checks (no exec, escaped names, the lock
# refuses symlinks, every fd close-on-exec). docs/trust.md lists them.
#
# Prints "PASS name" or "FAIL name: why" per test. $VALGRIND, when set,
# runs every irqtune under it (make check-valgrind).
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup faults

# machine NAME: a fresh tree in $D of the description on stdin
machine() {
	D=$work/$1
	cat >"$work/$1.txt"
	rm -rf "$D" "$D.out" "$D.err"
	"$sim" build "$work/$1.txt" "$D" >/dev/null 2>"$work/$1.build" || {
		echo "FAIL build $1: $(cat "$work/$1.build")"; return 1; }
}

grep_q() { printf '%s\n' "$1" | grep -Eq -- "$2"; }
# every IRQ's smp_affinity_list, "N LIST" lines
affinities() {
	local d
	for d in "$D"/proc/irq/[0-9]*; do
		printf '%s %s\n' "${d##*/}" "$(cat "$d/smp_affinity_list")"
	done
}
# report_rows: "IRQ CPU OUTCOME" of each line of a verbose report, where
# CPU is "OLD->NEW" or the one value and OUTCOME has "_" for blanks
# ("would_move"); names and devices may hold blanks, so the CPU is the
# field before the load (which ends in %).
report_rows() {
	echo "$OUT" | awk '$1 ~ /^[0-9]+$/ {
		for (i = NF; i > 1; i--) if ($i ~ /%$/) break
		o = ""; for (j = i + 1; j <= NF && $j !~ /^\(/; j++) o = o (o ? "_" : "") $j
		print $1, $(i - 1), o }'
}
# The IRQs a dry run of the same machine would move, in write order.
planned_moves() { report_rows | awk '$3 == "would_move" { print $1 }'; }
# Writes the machine answered since it was built.
writes() { awk '$1 == "writes" { w = $2 } END { print w + 0 }' "$D/sim.state" "$D/sim.journal" 2>/dev/null; }

# After any run: each IRQ's affinity is its old value (from $1, the
# affinities before) or its planned one, and the verbose report says
# which: "moved" shows OLD->NEW and NEW is set; anything else shows the
# value left in place.
consistent() {
	local before=$1 bad=
	bad=$(report_rows | while read -r n cpu outcome; do
		[ -d "$D/proc/irq/$n" ] || continue
		now=$(aff "$n")
		old=$(awk -v n="$n" '$1 == n { print $2 }' "$before")
		case $outcome in
		moved)	[ "$now" = "${cpu#*->}" ] || echo "$n:moved-to-${cpu#*->}-but-$now" ;;
		gone)	;;
		*)	[ "$now" = "$old" ] || echo "$n:$outcome-but-$old->$now"
			[ "${cpu%%->*}" = "$old" ] || echo "$n:report-says-$cpu-was-$old" ;;
		esac
	done)
	# and IRQs the report does not list were not touched
	while read -r n old; do
		echo "$OUT" | awk -v n="$n" '$1 == n { f = 1 } END { exit !f }' && continue
		[ -d "$D/proc/irq/$n" ] || continue
		[ "$(aff "$n")" = "$old" ] || bad="$bad $n:unlisted-$old->$(aff "$n")"
	done <"$before"
	why="inconsistent:$bad"
	[ -z "$bad" ]
}

# A 4-CPU machine whose NIC queues all start on CPU 0, so a run writes;
# the lines on stdin are added to it.
four() {
	local extra
	extra=$(cat)
	machine "$1" <<EOF
cpus packages=1 cores=4 threads=1 nodes=1
hz 100
uptime 10
start all-on=0
legacy irq=1 name=i8042 rate=2
nic name=eth0 bdf=0000:01:00.0 queues=4 rate=1000 hard_us=2 soft_us=30 misc=off
nvme name=nvme0 bdf=0000:02:00.0 queues=4 rate=500 hard_us=3 managed
$extra
EOF
}

#### IRQs that vanish or appear ####

### an IRQ vanishes between the samples and the writes: ENOENT, quietly
four plan </dev/null || exit 1
run --dry-run -v -w 1
moves=$(planned_moves | tr '\n' ' ')
last=$(planned_moves | tail -1)
why="planned: $moves"; check "plan: the 4-CPU machine moves at least two IRQs" [ "$(planned_moves | wc -l)" -ge 2 ]
four gone-apply <<<"event write=1 remove irq=$last" || exit 1
affinities >"$D.before"
run -v -w 1
why="exit $RC: $ERR"; check "gone during apply: exits 0" [ "$RC" -eq 0 ]
why="$ERR"; check "gone during apply: nothing on stderr" [ -z "$ERR" ]
why="$OUT"; check "gone during apply: irq $last reported gone, not FAILED" \
	sh -c 'printf "%s\n" "$1" | grep -Eq "^ *$2 .* gone"' _ "$OUT" "$last"
why="$OUT"; check "gone during apply: 0 failed" [ "$(summary_field failed)" = 0 ]
check "gone during apply: affinities are old or planned" consistent "$D.before"

### ... or between the two samples: never planned, never written
four gone-window <<<"event at=+0.5 remove irq=$last" || exit 1
run -v -w 1
why="exit $RC: $ERR"; check "gone in the window: exits 0" [ "$RC" -eq 0 ]
why="$OUT"; check "gone in the window: irq $last not in the report" \
	sh -c '! printf "%s\n" "$1" | grep -Eq "^ *$2 "' _ "$OUT" "$last"
why="$OUT"; check "gone in the window: the rest is balanced" [ "$(summary_field moved)" -ge 1 ]

### a device unplugged in the window: all its vectors go
four unplug <<<"event at=+0.5 remove eth0" || exit 1
run -v -w 1
why="exit $RC: $ERR"; check "unplugged in the window: exits 0" [ "$RC" -eq 0 ]
why="$OUT"; check "unplugged in the window: no eth0 queue listed" \
	sh -c '! printf "%s\n" "$1" | grep -q "eth0-TxRx"' _ "$OUT"

### a new IRQ in the window: planned from what is known (no history: idle)
four new-window <<<"event at=+0.5 add irq=90 name=hotplugged rate=400" || exit 1
run -v -w 1
why="exit $RC: $ERR"; check "new in the window: exits 0" [ "$RC" -eq 0 ]
row=$(report_rows | awk '$1 == 90')
why="$OUT"; check "new in the window: listed" [ -n "$row" ]
load=$(echo "$OUT" | awk '$1 == 90 { for (i = NF; i > 1; i--) if ($i ~ /%$/) { sub("%", "", $i); print $i; exit } }')
why="load $load"; check "new in the window: no history, so no load" [ "$load" = "0.000" ]

### a new IRQ during the writes: left for the next run
four new-apply <<<"event write=1 add irq=91 name=latecomer rate=400" || exit 1
run -v -w 1
why="exit $RC: $ERR"; check "new during apply: exits 0" [ "$RC" -eq 0 ]
why="$OUT"; check "new during apply: not in this run's report" \
	sh -c '! printf "%s\n" "$1" | grep -q latecomer' _ "$OUT"
run -v -w 1
why="$OUT"; check "new during apply: the next run lists it" \
	sh -c 'printf "%s\n" "$1" | grep -q "^ *91 .*latecomer"' _ "$OUT"

### an IRQ number freed and reused in the window is a new IRQ, never
### paired with the old one's counts (near 2^32 here: a false "wrap")
busy=$(four probe </dev/null && irq_of eth0-TxRx-1)
four reuse <<-EOF || exit 1
	counter_offset 3000000000
	event at=+0.5 remove irq=$busy
	event at=+0.5 add irq=$busy name=reused rate=10
EOF
run -v -w 1
why="exit $RC: $ERR"; check "reused number: exits 0" [ "$RC" -eq 0 ]
load=$(echo "$OUT" | awk -v n="$busy" '$1 == n { for (i = NF; i > 1; i--) if ($i ~ /%$/) { sub("%", "", $i); print $i; exit } }')
why="irq $busy load $load%: $OUT"; check "reused number: not mis-paired (load 0, not a 1.3e9-event wrap)" [ "$load" = "0.000" ]
other=$(echo "$OUT" | awk '/eth0-TxRx-0 / { for (i = NF; i > 1; i--) if ($i ~ /%$/) { sub("%", "", $i); print $i; exit } }')
why="eth0-TxRx-0 load $other%"; check "reused number: the other queues keep their load" \
	awk -v l="$other" 'BEGIN { exit !(l > 1) }'

#### CPUs going offline ####

### a CPU goes offline in the window: its column vanishes from the second
### sample; nothing may be planned on it
four off-window <<<"event at=+0.5 offline cpu=3" || exit 1
affinities >"$D.before"
w0=$(writes)
run -v -w 1
why="exit $RC: $ERR"; check "offline in the window: exits 0" [ "$RC" -eq 0 ]
on3=
for d in "$D"/proc/irq/[0-9]*; do
	[ "$(stat -c %a "$d/smp_affinity_list")" = 444 ] && continue	# managed
	case ",$(cat "$d/smp_affinity_list")," in *,3,*) on3="$on3 ${d##*/}" ;; esac
done
why="on CPU 3:$on3"; check "offline in the window: no affinity names CPU 3" [ -z "$on3" ]
check "offline in the window: affinities are old or planned" consistent "$D.before"
moved=$(summary_field moved)
why="$(( $(writes) - w0 )) writes for $moved moves"
check "offline in the window: the plan never names CPU 3 (every write lands first time)" \
	[ "$(( $(writes) - w0 ))" -eq "$moved" ]
four off-window-dry <<<"event at=+0.5 offline cpu=3" || exit 1
run --dry-run -v -w 1
why="$(report_rows | awk '$2 ~ /->3$/')"
check "offline in the window: --dry-run plans nothing on CPU 3" [ -z "$why" ]

### a CPU goes offline just before the writes: a write naming it fails
### EINVAL and the next best CPU is taken
four off-apply <<<"event write=1 offline cpu=3" || exit 1
affinities >"$D.before"
run -v -w 1
why="exit $RC: $ERR"; check "offline before apply: exits 0" [ "$RC" -eq 0 ]
why="$ERR"; check "offline before apply: no failure reported" [ -z "$ERR" ]
on3=$(report_rows | awk '$3 == "moved" && $2 ~ /->3$/ { print $1 }')
why="reported on 3: $on3"; check "offline before apply: nothing reported moved to CPU 3" [ -z "$on3" ]
check "offline before apply: affinities are old or planned" consistent "$D.before"
why="$OUT"; check "offline before apply: IRQs still moved" [ "$(summary_field moved)" -ge 1 ]

#### writes the kernel refuses ####

# every write to an eth0 queue fails so
for e in EROFS EBUSY ENOSPC EINVAL short EIO EPERM; do
	four "refuse-$e" <<<"fault eth0 errno=$e" || exit 1
	affinities >"$D.before"
	run -v -w 1
	case $e in
	EROFS)	text="Read-only file system" ;;
	EBUSY)	text="Device or resource busy" ;;
	ENOSPC)	text="No space left on device" ;;
	EINVAL)	text="Invalid argument" ;;
	short)	text="." ;;	# apply.c: a partial write is EMSGSIZE
	EIO)	text="Input/output error" ;;
	EPERM)	text="Operation not permitted" ;;
	esac
	failed=$(report_rows | awk '$3 == "FAILED" { print $1 }')
	case $e in
	EIO|EPERM)
		# how managed IRQs refuse (EIO before 6.12, EPERM after): an
		# IRQ the kernel manages, not a failure
		why="exit $RC: $ERR"; check "$e: exits 0 (kernel-managed, not a failure)" [ "$RC" -eq 0 ]
		why="$OUT"; check "$e: eth0 queues reported kernel-managed" \
			sh -c 'printf "%s\n" "$1" | grep -Eq "eth0-TxRx-[0-9]+ +eth0 0000:01:00.0 .*kernel-managed"' _ "$OUT"
		;;
	*)
		why="exit $RC: $ERR"; check "$e: partial failure exits 1" [ "$RC" -eq 1 ]
		n=$(echo "$failed" | head -1)
		name=$(awk -v n="$n:" '$1 == n { print $NF }' "$D/proc/interrupts")
		why="$ERR"; check "$e: stderr names irq, action and errno" \
			grep_q "$ERR" "^irqtune: irq $n \\($name\\): cannot set affinity to [0-9]+: $text"
		why="$OUT"; check "$e: report line says FAILED with the device" \
			grep_q "$OUT" "^ *$n +$name +eth0 0000:01:00.0 .*FAILED"
		why="$OUT"; check "$e: summary counts the failures" [ "$(summary_field failed)" -ge 1 ]
		why="$OUT"; check "$e: the run goes on (nvme or i8042 still listed)" \
			grep_q "$OUT" "nvme0q|i8042"
		;;
	esac
	check "$e: affinities are old or planned" consistent "$D.before"
done

### ENOSPC on some CPUs only: the next best CPU with free vectors
four enospc-some <<<"fault eth0 errno=ENOSPC cpu=1-2" || exit 1
affinities >"$D.before"
run -v -w 1
why="exit $RC: $ERR"; check "ENOSPC on CPUs 1-2: exits 0" [ "$RC" -eq 0 ]
bad=$(report_rows | awk '$3 == "moved" && $2 ~ /->(1|2)$/ { print $1 }')
why="$bad"; check "ENOSPC on CPUs 1-2: nothing moved there" [ -z "$bad" ]
check "ENOSPC on CPUs 1-2: affinities are old or planned" consistent "$D.before"

### EBUSY once (a move still pending): reported; the next run succeeds
four ebusy-once <<<"fault eth0 errno=EBUSY times=1" || exit 1
run -v -w 1
why="exit $RC: $ERR"; check "EBUSY once: exits 1" [ "$RC" -eq 1 ]
run -v -w 1
why="exit $RC: $ERR"; check "EBUSY once: the next run exits 0" [ "$RC" -eq 0 ]
why="$OUT"; check "EBUSY once: the next run moves the refused IRQ" [ "$(summary_field moved)" -ge 1 ]

#### killed in the middle ####

for sig in KILL TERM; do
	four "kill-$sig" <<<"event write=2 signal=$sig" || exit 1
	affinities >"$D.before"
	touch "$work/mark"
	run -v -w 1
	case $sig in KILL) want=137 ;; TERM) want=143 ;; esac
	why="exit $RC: $ERR"; check "SIG$sig at the 2nd write: the run dies ($want)" [ "$RC" -eq "$want" ]
	# what it wrote before dying is what a full run plans
	plan=$work/plan-$sig
	four "kill-$sig-plan" <<<"event write=2 signal=$sig" || exit 1
	run --dry-run -v -w 1
	report_rows >"$plan"
	D=$work/kill-$sig
	bad=
	while read -r n old; do
		now=$(aff "$n")
		new=$(awk -v n="$n" '$1 == n && $2 ~ /->/ { sub(".*->", "", $2); print $2 }' "$plan")
		[ "$now" = "$old" ] || [ "$now" = "$new" ] || bad="$bad $n:$old->$now(plan:$new)"
	done <"$D.before"
	why="$bad"; check "SIG$sig at the 2nd write: every IRQ old or planned" [ -z "$bad" ]
	left=$(ls -A "$D/run")
	why="DIR/run: $left"; check "SIG$sig: only the lock file is left behind" [ "$left" = irqtune.lock ]
	# (not /tmp: other suites run beside this one under make check-valgrind)
	new=$(find "$D" -newer "$work/mark" \( -name '*irqtune*' -o -name '.*' \) \
		! -path "$D/run/irqtune.lock" 2>/dev/null)
	why="$new"; check "SIG$sig: no temporary file" [ -z "$new" ]
	run -v -w 1
	why="exit $RC: $ERR"; check "SIG$sig: the next run is not locked out and exits 0" [ "$RC" -eq 0 ]
	why="$OUT"; check "SIG$sig: the next run repairs (moves what was left)" [ "$(summary_field moved)" -ge 1 ]
	run -v -w 1
	why="$OUT"; check "SIG$sig: and the one after moves nothing" [ "$(summary_field moved)" = 0 ]
done

four kill-window <<<"event at=+0.5 signal=KILL" || exit 1
affinities >"$D.before"
run -w 1
why="exit $RC"; check "SIGKILL in the sampling window: dies" [ "$RC" -eq 137 ]
why="$(affinities | diff "$D.before" - )"; check "SIGKILL in the sampling window: nothing written" \
	cmp -s "$D.before" <(affinities)

### a live holder of the lock: exit 75, nothing written
four locked </dev/null || exit 1
mkdir -p "$D/run"
affinities >"$D.before"
exec 9>"$D/run/irqtune.lock"
flock -x 9
run -w 1
exec 9>&-
why="exit $RC: $ERR"; check "lock held: exit 75" [ "$RC" -eq 75 ]
check "lock held: nothing written" cmp -s "$D.before" <(affinities)

#### counters and kernel interfaces ####

### per-CPU counts wrap at 2^32 between the samples (tests/sim/machines/wrap)
machine wrap <"$top/tests/sim/machines/wrap.txt" || exit 1
run -n -v -w 1
why="exit $RC: $ERR"; check "32-bit wrap in the window: exits 0" [ "$RC" -eq 0 ]
load=$(echo "$OUT" | awk '/eth0-TxRx-0 / { for (i = NF; i > 1; i--) if ($i ~ /%$/) { sub("%", "", $i); print $i; exit } }')
why="load $load%, the machine's is 11%"; check "32-bit wrap in the window: the load is the true one (11% +-1)" \
	awk -v l="$load" 'BEGIN { exit !(l > 10 && l < 12) }'

#### unreadable kernel interfaces ####

for c in "/proc/interrupts errno=EACCES:/proc/interrupts" "/proc/irq:/proc/irq" \
	 "/proc/stat errno=EIO:/proc/stat"; do
	spec=${c%%:*} path=${c#*:}
	four deny <<<"deny $spec" || exit 1
	affinities >"$D.before"
	run -w 1
	why="exit $RC: $ERR"; check "$path unreadable: exit 66" [ "$RC" -eq 66 ]
	why="$ERR"; check "$path unreadable: the message names it" grep_q "$ERR" "^irqtune: .*$path"
	check "$path unreadable: nothing written" cmp -s "$D.before" <(affinities)
done

four corrupt </dev/null || exit 1
affinities >"$D.before"
printf 'cpu  1 2 3 4\ncpu0 1 2 x 4 5 6 7\n' >"$D/proc/stat"
run -w 1
why="exit $RC: $ERR"; check "corrupt /proc/stat: exit 66" [ "$RC" -eq 66 ]
why="$ERR"; check "corrupt /proc/stat: names file and line" grep_q "$ERR" "/proc/stat:2"
check "corrupt /proc/stat: nothing written" cmp -s "$D.before" <(affinities)

four corrupt-sys </dev/null || exit 1
affinities >"$D.before"
printf '0-3x\n' >"$D/sys/devices/system/cpu/online"
run -w 1
why="exit $RC: $ERR"; check "corrupt sysfs cpu/online: exit 66" [ "$RC" -eq 66 ]
why="$ERR"; check "corrupt sysfs cpu/online: says the topology is unreadable, names the file" \
	grep_q "$ERR" "^irqtune: cannot read the CPU topology: .*/sys/devices/system/cpu/online: Invalid argument"
check "corrupt sysfs cpu/online: nothing written" cmp -s "$D.before" <(affinities)

#### unlike CPUs and vector space (issue 26): a malformed file is said and
#### planned without, never a failed run
# Capacities as the kernel writes them, then one that is not: the run
# goes on as if every CPU were alike, and plans as such a machine does.
four capacity-alike </dev/null || exit 1
run --dry-run -v -w 1
alike=$(report_rows)
four capacity-bad <<'X' || exit 1
capacity 0-1 512
X
printf 'abc\n' >"$D/sys/devices/system/cpu/cpu1/cpu_capacity"
affinities >"$D.before"
run --dry-run -v -w 1
why="exit $RC: $ERR"; check "malformed cpu_capacity: exit 0" [ "$RC" -eq 0 ]
why="$ERR"; check "malformed cpu_capacity: named, and planned as alike" \
	grep_q "$ERR" "^irqtune: .*/sys/devices/system/cpu/cpu1/cpu_capacity: not what the kernel writes there; planning as if every CPU were alike"
why="$(report_rows) vs $alike"; check "malformed cpu_capacity: the plan of alike CPUs" [ "$(report_rows)" = "$alike" ]
check "malformed cpu_capacity: nothing written (dry run)" cmp -s "$D.before" <(affinities)

# A vector matrix that is not one, then no debugfs at all: said, the run
# planned without vector limits, and -v and JSON name the source that was
# missing. (IRQ domains in debugfs without a VECTOR one is a machine that
# is not x86: nothing to say.)
four vectors-bad <<'X' || exit 1
vectors 0-3 40
X
vec=$D/sys/kernel/debug/irq/domains/VECTOR
if [ ! -f "$vec" ]; then
	echo "FAIL malformed VECTOR: the machine has no $vec to corrupt"
else
	printf 'Online bitmaps:        4\nnot a matrix at all\n' >"$vec"
	run -v -w 1
	why="exit $RC: $ERR"; check "malformed VECTOR: exit 0" [ "$RC" -eq 0 ]
	why="$ERR"; check "malformed VECTOR: named, planned without vector space" \
		grep_q "$ERR" "^irqtune: /sys/kernel/debug/irq/domains/VECTOR: .*; planning without vector space"
	why="$OUT"; check "malformed VECTOR: -v says the vectors are unknown" \
		grep_q "$OUT" "^irqtune: interrupt vectors: unknown: /sys/kernel/debug/irq/domains/VECTOR: "
fi
four vectors-none <<'X' || exit 1
vectors 0-3 40
deny /sys/kernel/debug
X
if [ -f "$D/sys/kernel/debug/irq/domains/VECTOR" ]; then
	run --dry-run --json -w 1
	got=$(echo "$OUT" | jq -r '.machine.vectors_missing' 2>/dev/null)
	ok=0
	[ "$RC" -eq 0 ] && [ "$got" = /sys/kernel/debug/irq/domains/VECTOR ] && [ -z "$ERR" ] && ok=1
	why="exit $RC, vectors_missing '$got': $ERR"
	check "no VECTOR (no debugfs): JSON names the missing source, exit 0" [ "$ok" = 1 ]
else
	echo "FAIL no VECTOR (no debugfs): the machine has no matrix for the deny to hide"
fi

#### safe root behaviour ####

# The product's sources, as the Makefile compiles them into irqtune (the
# root's and each layer folder's).
srcs=($(cd "$top" && make -s --no-print-directory --eval 'print-srcs: ; @echo irqtune.c $(LIB_SRCS)' print-srcs 2>/dev/null))
srcs=("${srcs[@]/#/$top/}")
[ "${#srcs[@]}" -gt 1 ] || fail "safe root behaviour" "cannot list the sources from the Makefile"

### no shell, no exec: in the sources and in what the binary imports
calls=$(grep -nE '\b(system|popen|exec[lv]p?e?|execve|fexecve|posix_spawnp?|fork|vfork)[[:space:]]*\(' \
	"${srcs[@]}" 2>/dev/null | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true)
why="$calls"; check "no system/popen/exec/fork in the product sources" [ -z "$calls" ]
imports=$(nm -D --undefined-only "$top/irqtune" 2>/dev/null | awk '{ print $NF }' |
	grep -E '^(system|popen|exec[lv]p?e?|execve|fexecve|posix_spawnp?|fork|vfork)(@|$)' || true)
why="$imports"; check "irqtune imports no exec/spawn/fork" [ -z "$imports" ]

### every fd close-on-exec: in the sources ...
bad=$(awk 'FNR == 1 { stmt = ""; n = 0 }
	/[^a-z_>.](open|openat)[[:space:]]*\(/ && !/^[[:space:]]*(\*|\/\*)/ { stmt = $0; start = FNR; n = 3 }
	n > 0 { if (stmt != $0) stmt = stmt $0; if (--n == 0 || $0 ~ /;[[:space:]]*$/) {
		if (stmt !~ /O_CLOEXEC/) print FILENAME ":" start; stmt = ""; n = 0 } }
	/[^a-z_]fopen[[:space:]]*\(/ && !/^[[:space:]]*(\*|\/\*)/ && !/"[rwa]\+?e/ { print FILENAME ":" FNR }' \
	"${srcs[@]}")
why="$bad"; check "every open() has O_CLOEXEC and fopen() \"e\" in the sources" [ -z "$bad" ]

### ... and in a live run, stopped at its 2nd write (not under valgrind,
### whose own descriptors share the process)
if [ -z "$VALGRIND" ]; then
	four fds <<<"event write=2 signal=STOP" || exit 1
	# started with no descriptor above 2, so what is open is its own
	(for fd in /proc/$BASHPID/fd/*; do
		n=${fd##*/}
		[ "$n" -gt 2 ] && eval "exec $n>&-"
	done
	UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" \
		exec "$top/irqtune" -w 1 >"$D.out" 2>"$D.err") &
	pid=$!
	for _ in $(seq 100); do
		[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] && break
		sleep 0.05
	done
	leaky= nfd=0
	for fd in /proc/$pid/fd/*; do
		n=${fd##*/}
		[ "$n" -gt 2 ] || continue
		nfd=$((nfd + 1))
		flags=$(awk '$1 == "flags:" { print $2 }' "/proc/$pid/fdinfo/$n" 2>/dev/null)
		[ $(( 0$flags & 02000000 )) -ne 0 ] || leaky="$leaky $n:$(readlink "$fd")"
	done
	kill -CONT "$pid"
	wait "$pid"
	rc=$?
	why="not close-on-exec:$leaky"; check "live run: all $nfd open fds are close-on-exec (lock, affinity file)" [ -z "$leaky" ]
	why="exit $rc"; check "live run: continues after the stop and exits 0" [ "$rc" -eq 0 ]
fi

### names from the kernel are escaped in the report: an action name with
### an escape sequence, a bell and a newline (/proc/interrupts then shows
### a line "forged: row", skipped as an arch row)
four names <<<'legacy irq=5 name=evil\x1b[2J\x07\x0aforged:\x20row\x7f rate=3' || exit 1
run -v --dry-run -w 1
why="exit $RC: $ERR"; check "escape sequences in names: exits 0" [ "$RC" -eq 0 ]
why="$OUT"; check "escape sequences in names: the report shows \\xNN" \
	grep_q "$OUT" '^ *5 +evil\\x1b\[2J\\x07\\x0aforged: row\\x7f'
raw=$(cat "$D.out" "$D.err" | LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')")
why="$raw lines with control bytes"; check "escape sequences in names: no raw control byte printed" [ "$raw" -eq 0 ]

### ... in error messages too: the same IRQ, its write refused
four names-fail <<-'EOF' || exit 1
	legacy irq=5 name=evil\x1b[2J\x07\x0aforged:\x20row\x7f rate=3000 hard_us=50
	fault irq=5 errno=EROFS
EOF
run -w 1 --bancpus 0	# it must leave CPU 0, and its write fails
why="exit $RC: $ERR"; check "escape sequences in names, refused write: exits 1" [ "$RC" -eq 1 ]
why="$ERR"; check "escape sequences in names, refused write: stderr shows \\xNN" \
	grep_q "$ERR" '^irqtune: irq 5 \(evil\\x1b\[2J\\x07\\x0aforged: row\\x7f\): cannot set affinity'
raw=$(cat "$D.out" "$D.err" | LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')")
why="$raw lines with control bytes"; check "escape sequences in names, refused write: no raw control byte printed" [ "$raw" -eq 0 ]

### the lock refuses a symlink, a hard link and someone else's file
for kind in symlink hardlink foreign; do
	four "lock-$kind" </dev/null || exit 1
	mkdir -p "$D/run"
	affinities >"$D.before"
	case $kind in
	symlink)  ln -s "$D/victim" "$D/run/irqtune.lock" ;;
	hardlink) : >"$D/victim"; ln "$D/victim" "$D/run/irqtune.lock" ;;
	foreign)  : >"$D/run/irqtune.lock"; chown 65534 "$D/run/irqtune.lock" ;;
	esac
	run -w 1
	why="exit $RC: $ERR"; check "lock $kind: refused (exit 73)" [ "$RC" -eq 73 ]
	why="$ERR"; check "lock $kind: says why" grep_q "$ERR" "cannot lock /run/irqtune.lock"
	check "lock $kind: nothing written" cmp -s "$D.before" <(affinities)
	if [ "$kind" = symlink ]; then
		check "lock symlink: its target is not created" [ ! -e "$D/victim" ]
	fi
done
#### refusals remembered (the state file) ####

# Linux 6.1 (cloud-vm: managed_files rw): managed queues (its virtio-blk
# vda) have writable files and refuse each write with EIO. A run with a
# history remembers them (version 6 "refused" lines); the next does not
# write them, and says so; a remembered IRQ is never written, until the
# kernel release (or the device) is another.
machine refused-mem <"$top/tests/sim/machines/cloud-vm.txt" || exit 1
printf 'state-dir = %s/state\nother-balancer = ignore\n' "$D" >"$D.conf"
chmod 644 "$D.conf"
run -v -w 1 -c "$D.conf"
why="exit $RC: $ERR"; check "refused: the first run exits 0 (kernel-managed is no failure)" [ "$RC" -eq 0 ]
st=$D/state/state
why=$(grep -v "^s" "$st" 2>&1); check "refused: the state is version 6 with one refused line per managed queue" \
	sh -c '[ "$(head -1 "$1")" = "irqtune-state 6" ] &&
	       [ "$(grep -c "^refused [0-9]* 0000:00:02.0 virtio2-req.[0-3] [^ ]*$" "$1")" = 4 ]' _ "$st"
"$sim" step "$D" 59 >/dev/null
w0=$(writes)
run -v -w 1 -c "$D.conf"
why="$OUT"; check "refused: the next run skips them as remembered" \
	sh -c '[ "$(printf "%s\n" "$1" | grep -c "virtio2-req.[0-3] .*kernel-managed (it refused a write on an earlier run of this kernel: skipped as remembered)")" = 4 ]' _ "$OUT"
why="$(writes) writes after $w0"; check "refused: and writes nothing (it had nothing else to move)" [ "$(writes)" = "$w0" ]
why=$(grep "^refused" "$st"); check "refused: the state still remembers them" [ "$(grep -c "^refused" "$st")" = 4 ]

# A remembered IRQ is not written even where the plan would move it: the
# first of eth0's that a dry run would move, written into the state as
# refused on this kernel.
for n in $(awk '$NF ~ /^virtio1-(input|output)/ { sub(":", "", $1); print $1 }' "$D/proc/interrupts"); do
	"$sim" set "$D" "$n" 0 >/dev/null
done
"$sim" step "$D" 59 >/dev/null
run -n -v -w 1 -c "$D.conf"
last=$(planned_moves | head -1)
name=$(awk -v n="$last:" '$1 == n { print $NF }' "$D/proc/interrupts")
rel=$(awk '$1 == "refused" { print $5; exit }' "$st")
awk -v n="$last" -v name="$name" -v rel="$rel" '
	$1 == "refused" && !done && $2 + 0 > n + 0 { print "refused", n, "0000:00:03.0", name, rel; done = 1 }
	{ print }
	END { if (!done) print "refused", n, "0000:00:03.0", name, rel }' "$st" >"$st.new" && mv "$st.new" "$st"
before=$(aff "$last")
run -v -w 1 -c "$D.conf"
why="$OUT"; check "refused: a remembered IRQ the plan would move ($last, $name) is left, said so" \
	sh -c '[ -n "$4" ] && [ "$2" = "$3" ] && printf "%s\n" "$1" | grep -Eq "^ *$4 .*skipped as remembered"' _ "$OUT" "$(aff "$last")" "$before" "$last"
# Another kernel release: forgotten, and written again.
sed -i "s/^\(refused $last .*\) [^ ]*\$/\1 0.0-another-kernel/" "$st"
"$sim" step "$D" 59 >/dev/null
run -v -w 1 -c "$D.conf"
why="$OUT"; check "refused: on another kernel release it is planned and written again" \
	sh -c '! printf "%s\n" "$1" | grep -Eq "^ *$2 .*skipped as remembered" &&
	       ! grep -q "^refused $2 " "$3"' _ "$OUT" "$last" "$st"

exit 0
