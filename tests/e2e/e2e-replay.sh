#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end tests of --capture and --replay: a capture taken on every
# simulated machine replays, with nothing of that machine around (no
# preload, no tree), to the report the live run printed there; two replays
# are identical; the raw /sys topology files, irqbalance's settings and
# the cpuset partitions in a capture are parsed again by the replay (an
# edited file changes the replayed plan); site options apply on top; and
# captures that are not one (truncated, corrupt, foreign, another
# version, hostile) are refused with a message naming the capture (and
# the member), exit 65, and no crash.
# Prints "PASS name" or "FAIL name: why" per test.
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup replay

# replay ARGS...: irqtune on this host, with no simulated machine at all:
# whatever it printed came from the capture. stdout $ROUT, stderr $RERR.
replay() {
	($VALGRIND "$top/irqtune" "$@" >"$work/r.out" 2>"$work/r.err" </dev/null; exit $?) 2>/dev/null
	RRC=$?
	ROUT=$(cat "$work/r.out")
	RERR=$(cat "$work/r.err")
}

# The report without the run's own timestamps, which are a replay's.
untimed() { jq -S 'del(.run.started, .run.finished, .run.duration_seconds, .run.locked)'; }
# The plan, IRQ for IRQ: number, outcome and CPU.
plan() { jq -c '.irqs[] | [.irq, .outcome, .to]'; }

machines=$(cd tests/sim/machines && ls *.txt | sed 's/\.txt$//')
# Under valgrind or ASan ($SMALL), the machines that differ in kind; the
# rest cost minutes.
[ -n "$SMALL" ] && machines="tiny offline cloud-vm numa2-managed"

for m in $machines; do
	machine "$m" "$m" || continue
	run --capture "$work/$m.cap" -v
	live_rc=$RC
	printf '%s\n' "$OUT" >"$work/$m.live"
	why="exit $RC: $ERR"; check "$m: capture written" [ -s "$work/$m.cap" ]
	rm -rf "$D"	# nothing of the machine is left to read
	replay --replay "$work/$m.cap" -v
	printf '%s\n' "$ROUT" >"$work/$m.replay"
	why="exit $RRC, live $live_rc: $RERR"; check "$m: replay exits as the live run did" \
		[ "$RRC" = "$live_rc" ]
	why=$(diff "$work/$m.live" "$work/$m.replay" | head -20)
	check "$m: replay prints the live report, byte for byte" \
		cmp -s "$work/$m.live" "$work/$m.replay"

	machine "$m" "$m" || continue
	run --capture "$work/$m.json.cap" --json
	printf '%s\n' "$OUT" | untimed >"$work/$m.live.json"
	rm -rf "$D"
	replay --replay "$work/$m.json.cap" --json
	printf '%s\n' "$ROUT" | untimed >"$work/$m.r1.json"
	replay --replay "$work/$m.json.cap" --json
	printf '%s\n' "$ROUT" | untimed >"$work/$m.r2.json"
	why=$(diff <(plan <"$work/$m.live.json") <(plan <"$work/$m.r1.json") | head -20)
	check "$m: replayed plan equals the live plan, IRQ for IRQ" \
		[ -s "$work/$m.live.json" ] && [ -z "$why" ]
	why=$(diff "$work/$m.live.json" "$work/$m.r1.json" | head -20)
	check "$m: replayed JSON equals the live JSON but for the timestamps" \
		cmp -s "$work/$m.live.json" "$work/$m.r1.json"
	why=$(diff "$work/$m.r1.json" "$work/$m.r2.json" | head -20)
	check "$m: two replays are identical but for the timestamps" \
		cmp -s "$work/$m.r1.json" "$work/$m.r2.json"
done

### the raw topology files are what a replay parses
# The machines whose topology a parser could get wrong keep their files.
for m in offline isolated smt numa2; do
	[ -s "$work/$m.cap" ] || continue
	tar -tzf "$work/$m.cap" >"$work/$m.list" 2>/dev/null
	for mem in root/sys/devices/system/cpu/ root/sys/devices/system/cpu/online \
		   root/sys/devices/system/cpu/possible root/sys/devices/system/cpu/isolated \
		   root/sys/devices/system/cpu/cpu1/topology/thread_siblings_list; do
		why="members: $(grep sys/ "$work/$m.list" | head -8 | tr '\n' ' ')"
		check "raw topology: $m holds $mem" grep -qx "$mem" "$work/$m.list"
	done
done
if [ -s "$work/numa2.list" ]; then
	why=$(grep system/node "$work/numa2.list" | tr '\n' ' ')
	check "raw topology: numa2 holds both node directories and their cpulists" \
		sh -c 'grep -qx root/sys/devices/system/node/node1/ "$1" &&
		       grep -qx root/sys/devices/system/node/node1/cpulist "$1"' _ "$work/numa2.list"
fi
if [ -s "$work/offline.cap" ]; then
	off=$(tar -xzOf "$work/offline.cap" root/sys/devices/system/cpu/online 2>/dev/null)
	why="online is '$off'"; check "raw topology: offline's online file as the kernel wrote it" \
		[ "$off" = "0-2,4-8,11-15" ]
fi
# An edited file in a capture changes what the replay plans: it is parsed.
if [ -s "$work/smt.cap" ]; then
	e=$work/edit && rm -rf "$e" && mkdir -p "$e" && tar -C "$e" -xzf "$work/smt.cap"
	printf '0-3\n' >"$e/root/sys/devices/system/cpu/isolated"
	(cd "$e" && tar -czf "$work/smt-iso.cap" irqtune-capture $(ls | grep -vx irqtune-capture))
	replay --replay "$work/smt-iso.cap" --json
	why="exit $RRC: $RERR $(printf '%s\n' "$ROUT" | jq -c .machine.eligible_cpus)"
	check "raw topology: an isolated file edited in the capture is parsed on replay" \
		sh -c 'printf "%s\n" "$1" | jq -e ".machine.eligible_cpus == \"4-15\" and
			([.irqs[] | select(.outcome == \"would_move\" and .to < 4)] | length == 0)" >/dev/null' _ "$ROUT"
fi

### irqbalance's settings and the cpuset partitions: raw, replayed, options on top
machine smt bans || true
mkdir -p "$D/etc/default" "$D/sys/fs/cgroup"
printf '# the site\nIRQBALANCE_BANNED_CPULIST=1\n' >"$D/etc/default/irqbalance"
chmod 0644 "$D/etc/default/irqbalance"
printf '5\n' >"$D/sys/fs/cgroup/cpuset.cpus.isolated"
IRQBALANCE_BANNED_CPUS=4 run --capture "$work/bans.cap" --json
why="exit $RC: $ERR"; check "bans: a capture with irqbalance's settings exits 0" [ "$RC" = 0 ]
printf '%s\n' "$OUT" | jq -c '.machine.banned' >"$work/bans.live"
tar -tzf "$work/bans.cap" >"$work/bans.list" 2>/dev/null
for mem in root/etc/default/irqbalance env/IRQBALANCE_BANNED_CPUS \
	   root/sys/fs/cgroup/cpuset.cpus.isolated; do
	why=$(grep -v proc/ "$work/bans.list" | tr '\n' ' ')
	check "bans: the capture holds $mem as read" grep -qx "$mem" "$work/bans.list"
done
why=$(tar -xzOf "$work/bans.cap" root/etc/default/irqbalance 2>&1)
check "bans: the environment file is kept verbatim" \
	[ "$(tar -xzOf "$work/bans.cap" root/etc/default/irqbalance 2>/dev/null)" = "$(printf '# the site\nIRQBALANCE_BANNED_CPULIST=1')" ]
rm -rf "$D"
IRQBALANCE_BANNED_CPULIST=0 replay --replay "$work/bans.cap" --json
printf '%s\n' "$ROUT" | jq -c '.machine.banned' >"$work/bans.r1"
why="$(cat "$work/bans.live") vs $(cat "$work/bans.r1"); $RERR"
check "bans: replayed from the raw files and variables, not this process's environment" \
	sh -c '[ -s "$1" ] && cmp -s "$1" "$2" && grep -q "etc/default/irqbalance:2" "$1"' _ \
	"$work/bans.live" "$work/bans.r1"
replay --replay "$work/bans.cap" --json --bancpus 3
why="exit $RRC: $RERR $(printf '%s\n' "$ROUT" | jq -c .machine.banned)"
check "bans: --bancpus over a replay adds to the captured machine's bans" \
	sh -c 'printf "%s\n" "$1" | jq -e "[.machine.banned[].source] | (index(\"--bancpus\") != null) and length == 4" >/dev/null' _ "$ROUT"
printf 'irqbalance-env = off\n' >"$work/off.conf"
replay --replay "$work/bans.cap" --json -c "$work/off.conf"
why="exit $RRC: $RERR $(printf '%s\n' "$ROUT" | jq -c .machine.banned)"
check "bans: -c FILE over a replay parses the captured settings as that file says (off)" \
	sh -c 'printf "%s\n" "$1" | jq -e "[.machine.banned[].source] | length == 1 and (.[0] | test(\"cpuset partition\"))" >/dev/null' _ "$ROUT"

cap=$work/tiny.cap
### a replay reads nothing of this machine and writes nothing
if command -v strace >/dev/null && [ -z "$VALGRIND" ]; then
	# tiny's, and the one whose irqbalance settings and partition are kept.
	: >"$work/strace"
	for c in "$cap" "$work/bans.cap"; do
		strace -f -qq -e trace=open,openat,creat,stat,newfstatat,statx,access,connect,bpf \
			-o "$work/strace.1" "$top/irqtune" --replay "$c" -v >/dev/null 2>&1 </dev/null
		cat "$work/strace.1" >>"$work/strace"
	done
	# /proc/self is the process's own (ASan's runtime reads its maps).
	why=$(grep -E '"/(proc|sys|run|etc/irqtune|etc/default/irqbalance|etc/sysconfig/irqbalance|dev/log)|bpf\(|connect\(' "$work/strace" |
		grep -v '"/proc/self/' | head -5)
	check "replay: opens nothing of /proc, /sys, /run, irqbalance's settings, no BPF, no syslog" [ -z "$why" ]
	why=$(grep -E 'O_(WRONLY|RDWR)|creat\(' "$work/strace" | head -5)
	check "replay: opens nothing for writing" [ -z "$why" ]
else
	skip "replay: reads nothing of this machine" "no strace, or under valgrind"
fi

### what if: site options over a capture
replay --replay "$cap" --json --bancpus 1
why="exit $RRC: $RERR"; check "what-if: --bancpus over a replay exits 0" [ "$RRC" = 0 ]
why=$(printf '%s\n' "$ROUT" | plan)
check "what-if: --bancpus 1 keeps every planned move off CPU 1" \
	sh -c '! printf "%s\n" "$1" | jq -e ".irqs[] | select(.outcome == \"would_move\" and .to == 1)" >/dev/null' _ "$ROUT"
check "what-if: the ban is reported" \
	sh -c 'printf "%s\n" "$1" | jq -e ".machine.banned | length > 0" >/dev/null' _ "$ROUT"
replay --replay "$cap" --load-source=bpf
why="exit $RRC: $RERR"; check "what-if: --load-source=bpf with no measurement captured exits 71" \
	[ "$RRC" = 71 ]
printf '[irqtune]\nthreshold = 2.0\n' >"$work/alt.conf"
replay --replay "$cap" -c "$work/alt.conf" --json
why="exit $RRC: $RERR"; check "what-if: -c FILE over a replay" \
	sh -c 'printf "%s\n" "$1" | jq -e "[.irqs[] | select(.outcome == \"would_move\")] | length == 0" >/dev/null' _ "$ROUT"
replay --replay "$cap" --window 2
why="exit $RRC"; check "usage: --replay refuses --window" [ "$RRC" = 64 ]
replay --replay "$cap" --capture "$work/x.cap"
why="exit $RRC"; check "usage: --replay and --capture exclude each other" [ "$RRC" = 64 ]

### the capture names what is in it
tar -tzf "$cap" >"$work/list" 2>/dev/null
why=$(head -3 "$work/list"); check "format: the meta member comes first" \
	[ "$(head -1 "$work/list")" = irqtune-capture ]
for mem in devices snapshot-1/proc/interrupts snapshot-2/proc/softirqs \
	   root/proc/irq/24/smp_affinity_list root/sys/devices/system/cpu/online; do
	why="members: $(tr '\n' ' ' <"$work/list" | head -c 300)"
	check "format: holds $mem" grep -qx "$mem" "$work/list"
done
meta=$(tar -xzOf "$cap" irqtune-capture)
for key in "format irqtune-capture" "version 2" hostname kernel time hz snapshot-1 load-source; do
	why="$meta"; check "format: meta says $key" sh -c 'printf "%s\n" "$1" | grep -q "^$2"' _ "$meta" "$key"
done
why=$(stat -c %a "$cap"); check "format: the capture is mode 0600" [ "$(stat -c %a "$cap")" = 600 ]

### threaded IRQs: the irq threads' run time, as a capture keeps it
# tiny's capture with one kernel thread irq/N-name added for its busiest
# IRQ (kthreadd's child, PF_KTHREAD in its stat flags) that ran a quarter
# of a CPU over the window, per its schedstat at both ends; and a process
# so named that is no kernel thread, which is not one.
th=$work/threaded
rm -rf "$th" && mkdir -p "$th" && tar -C "$th" -xzf "$cap"
replay --replay "$cap" --json
tirq=$(printf '%s
' "$ROUT" | jq '[.irqs[] | select(.class != "other")] | max_by(.load) | .irq')
tload=$(printf '%s
' "$ROUT" | jq "[.irqs[] | select(.irq == $tirq)][0].load")
from=$(printf '%s
' "$ROUT" | jq .run.window_from_monotonic)
to=$(printf '%s
' "$ROUT" | jq .run.window_to_monotonic)
run_ns=$(awk -v a="$from" -v b="$to" 'BEGIN { printf "%d", 1000000000 + 0.25 * (b - a) * 1e9 }')
mkdir -p "$th/root/proc/2/task/2" "$th/root/proc/900" "$th/root/proc/901" \
	"$th/snapshot-1/proc/900" "$th/snapshot-2/proc/900" "$th/snapshot-1/proc/901" "$th/snapshot-2/proc/901"
echo "900 901" >"$th/root/proc/2/task/2/children"
echo "900 (irq/$tirq-tiny) S 2 0 0 0 -1 2129984 0 0 0 0 0 25 0 0 -51 0 1 0 380" >"$th/root/proc/900/stat"
echo "901 (irq/$tirq-fake) S 2 0 0 0 -1 4194560 0 0 0 0 0 25 0 0 20 0 1 0 380" >"$th/root/proc/901/stat"
echo "1000000000 5000 40" >"$th/snapshot-1/proc/900/schedstat"
echo "$run_ns 9000 90" >"$th/snapshot-2/proc/900/schedstat"
echo "0 0 0" >"$th/snapshot-1/proc/901/schedstat"
echo "900000000 0 0" >"$th/snapshot-2/proc/901/schedstat"
(cd "$th" && tar -czf "$work/threaded.cap" irqtune-capture $(ls | grep -vx irqtune-capture))
replay --replay "$work/threaded.cap" --json
why="exit $RRC: $RERR"; check "threaded: a capture with an irq thread replays, exit 0" [ "$RRC" = 0 ]
got=$(printf '%s\n' "$ROUT" | jq -c "[.irqs[] | select(.irq == $tirq)][0] | [.threaded, .load_thread, .load]")
why="irq $tirq: [threaded, load_thread, load] $got, load without $tload"
check "threaded: the IRQ is threaded, its thread's quarter CPU in load_thread and load" \
	sh -c 'printf "%s\n" "$1" | jq -e --argjson l "$2" ".[0] == true and (.[1] - 0.25 | fabs) < 0.001 and (.[2] - .[1] - \$l | fabs) < 0.001" >/dev/null' \
	_ "$got" "$tload"
n=$(printf '%s\n' "$ROUT" | jq '[.irqs[] | select(has("threaded"))] | length')
why="$n IRQs threaded"; check "threaded: no other IRQ is, nor a process named like a thread" [ "$n" = 1 ]
replay --replay "$work/threaded.cap"
why=$(printf '%s\n' "$ROUT" | grep -E "^ *$tirq ")
check "threaded: the text report says so on its line" \
	sh -c 'printf "%s\n" "$1" | grep -Eq "^ *$2 .*\(threaded: 25\.0[0-9]{2}% in its threads\)$"' _ "$ROUT" "$tirq"
replay --replay "$cap" --json
n=$(printf '%s\n' "$ROUT" | jq '[.irqs[] | select(has("threaded") or has("load_thread"))] | length')
why="$n"; check "threaded: without irq threads, the JSON has neither field" [ "$n" = 0 ]

### bad captures: a message naming the capture, exit 65 (66: unreadable), no crash
bad() {	# bad NAME FILE STATUS PATTERN
	replay --replay "$2" -v
	why="exit $RRC: $RERR"
	check "bad capture: $1: exit $3" [ "$RRC" = "$3" ]
	check "bad capture: $1: says so, naming it" \
		sh -c 'printf "%s\n" "$1" | grep -q "capture $2: .*$3"' _ "$RERR" "$2" "$4"
}
x=$work/bad
mkdir -p "$x"
bad "missing" "$x/none.cap" 66 "No such file"
: >"$x/empty.cap"
bad "empty" "$x/empty.cap" 65 "not a gzip'd tar"
head -c 4096 /dev/urandom >"$x/random.cap"
bad "random bytes" "$x/random.cap" 65 "not a gzip'd tar"
head -c $(($(stat -c %s "$cap") / 2)) "$cap" >"$x/truncated.cap"
bad "truncated" "$x/truncated.cap" 65 "truncated"
{ head -c 600 "$cap"; head -c 2000 /dev/urandom; tail -c +2601 "$cap"; } >"$x/corrupt.cap"
bad "corrupt" "$x/corrupt.cap" 65 "corrupt\|not a gzip"
mkdir -p "$x/foreign" && echo hello >"$x/foreign/README"
tar -C "$x/foreign" -czf "$x/foreign.cap" README
bad "foreign archive" "$x/foreign.cap" 65 "not an irqtune capture"
# Rebuilt captures: $x/t is tiny's unpacked; pack NAME lists the meta first.
mkdir -p "$x/t" && tar -C "$x/t" -xzf "$cap"
pack() { (cd "$x/t" && tar -czf "$1" irqtune-capture $(ls | grep -vx irqtune-capture)); }
sed -i 's/^version 2$/version 3/' "$x/t/irqtune-capture"
pack "$x/version.cap"
bad "another version" "$x/version.cap" 65 "format version 3"
# Version 1 kept parsed views, not files: refused, with what to do.
sed -i 's/^version 3$/version 1/' "$x/t/irqtune-capture"
pack "$x/version1.cap"
bad "version 1" "$x/version1.cap" 65 "format version 1; .*take the capture again"
sed -i 's/^version 1$/version 2/' "$x/t/irqtune-capture"
(cd "$x/t" && tar -czPf "$x/dotdot.cap" irqtune-capture root/../devices 2>/dev/null)
bad "a name with .." "$x/dotdot.cap" 65 "not a safe relative name"
(cd "$x/t" && tar -czPf "$x/dotdot2.cap" irqtune-capture \
	root/sys/devices/system/cpu/../cpu/online 2>/dev/null)
bad "a topology name with .." "$x/dotdot2.cap" 65 "member 'root/sys/devices/system/cpu/../cpu/online': not a safe"
truncate -s 200M "$x/t/huge"
pack "$x/huge.cap"
rm -f "$x/t/huge"
bad "a member beyond the bounds" "$x/huge.cap" 65 "beyond the bounds"
s=$x/t/root/sys/devices/system/cpu
cp -a "$s" "$x/cpu.orig"
# topoedit NAME FILE TEXT PATTERN: FILE (under cpu/) holding TEXT refused.
topoedit() {
	printf '%s' "$3" >"$s/$2"
	pack "$x/$1.cap"
	rm -rf "$s" && cp -a "$x/cpu.orig" "$s"
	bad "$1" "$x/$1.cap" 65 "member root/sys/devices/system/cpu/$2: $4"
}
topoedit "topology garbage" online "0-zz" "not what the kernel writes there"
topoedit "absurd CPU count" possible "0-999999999" "an id out of range"
topoedit "online beyond possible" online "0-7" "not what the kernel writes there"
topoedit "an oversized topology file" isolated "$(head -c 70000 /dev/zero | tr '\0' 0)" \
	"larger than any such sysfs file"
rm -rf "$s"
pack "$x/notopo.cap"
cp -a "$x/cpu.orig" "$s"
bad "no topology" "$x/notopo.cap" 65 "member root/sys/devices/system/cpu: missing"
rm -f "$s/online" "$s/possible"
pack "$x/noonline.cap"
rm -rf "$s" && cp -a "$x/cpu.orig" "$s"
replay --replay "$x/noonline.cap"
why="exit $RRC: $RERR"
check "bad capture: no online nor possible file: read as an old kernel's tree would be, no crash" \
	[ "$RRC" -lt 128 ] && [ "$RRC" != 70 ]
cp "$x/t/devices" "$x/devices.orig"
echo "device /sys/x pci id drv 0x020000 0 - - - . - . 99999999999" >>"$x/t/devices"
pack "$x/devices.cap"
cp "$x/devices.orig" "$x/t/devices"
bad "an absurd IRQ number" "$x/devices.cap" 65 "devices:4"
printf 'CPU0 CPU1\n 24: 1 2 PCI-MSI x\ngarbage\n' >"$x/t/snapshot-2/proc/interrupts.new"
mv "$x/t/snapshot-2/proc/interrupts" "$x/interrupts.orig"
mv "$x/t/snapshot-2/proc/interrupts.new" "$x/t/snapshot-2/proc/interrupts"
pack "$x/parse.cap"
mv "$x/interrupts.orig" "$x/t/snapshot-2/proc/interrupts"
bad "a snapshot the parser refuses" "$x/parse.cap" 65 "snapshot-2/proc/interrupts:"
# libarchive is opened only when a capture is read or written. One that
# lacks what irqtune calls (here a stand-in of that soname, found first on
# LD_LIBRARY_PATH) is named: the replay is refused (65), the capture not
# written (73), and the run itself plans all the same.
mkdir -p "$x/lib"
echo 'int not_libarchive;' >"$x/lib/stand-in.c"
if cc -shared -fPIC -o "$x/lib/libarchive.so.13" "$x/lib/stand-in.c"; then
	LD_LIBRARY_PATH=$x/lib replay --replay "$cap" -v
	why="exit $RRC: $RERR"
	check "libarchive unusable: a replay exits 65" [ "$RRC" = 65 ]
	check "libarchive unusable: the replay names the capture and the library" \
		sh -c 'printf "%s\n" "$1" | grep -q "capture $2: libarchive.so.13 has no archive_"' _ "$RERR" "$cap"
	machine tiny stand-in || exit 1
	LD_LIBRARY_PATH=$x/lib run --capture "$x/stand-in.cap" -n
	why="exit $RC: $ERR"
	check "libarchive unusable: a capture exits 73, written nowhere" \
		sh -c '[ "$1" = 73 ] && [ ! -e "$2" ]' _ "$RC" "$x/stand-in.cap"
	check "libarchive unusable: the capture says why" \
		sh -c 'printf "%s\n" "$1" | grep -q "capture $2: not written: libarchive.so.13 has no archive_"' \
		_ "$ERR" "$x/stand-in.cap"
	check "libarchive unusable: the run still plans" \
		sh -c 'printf "%s\n" "$1" | grep -q "^irqtune: .* seen, "' _ "$OUT"
else
	fail "libarchive unusable" "cannot build the stand-in library"
fi

# A million IRQs: bounded by IRQ_NUM_LIMIT and the member bounds, planned
# or refused in bounded time and memory, never a crash. Not under
# valgrind or ASan (whose shadow needs terabytes of address space, and
# which would take minutes and gigabytes): the fuzz target covers them.
if [ -z "$SMALL" ]; then
	for n in 1 2; do
		awk -v n=$n 'BEGIN { print "           CPU0       CPU1";
			for (i = 0; i < 1000000; i++) printf "%d: %d 0 PCI-MSI %d-edge q%d\n", i, i * n, i, i }' \
			>"$x/t/snapshot-$n/proc/interrupts"
	done
	pack "$x/million.cap"
	start=$(date +%s)
	( ulimit -v 4000000; "$top/irqtune" --replay "$x/million.cap" >/dev/null 2>"$work/m.err" ); mrc=$?
	took=$(( $(date +%s) - start ))
	why="exit $mrc after ${took}s: $(head -3 "$work/m.err")"
	check "bad capture: a million IRQs: no crash, within 4 GB" [ "$mrc" -lt 128 ] && [ "$mrc" != 70 ]
	check "bad capture: a million IRQs: within 120 s" [ "$took" -le 120 ]
fi
