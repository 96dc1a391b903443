#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end tests of irqtune on machines set up for irqbalance: the CPUs
# banned by irqbalance's settings (Debian's /etc/default/irqbalance, RHEL's
# /etc/sysconfig/irqbalance, the environment), by isolated cgroup v2 cpuset
# partitions and by irqtune's own bancpus all add up, -v and --json name the
# source of each, a malformed value is a warning and nothing more, and a run
# that would write while irqbalance runs refuses. The real binary against
# simulated machines: tests/shims/fakekernel.so sends /etc/default/irqbalance,
# /etc/sysconfig/irqbalance and the listing of /proc to the machine's tree,
# umockdev its /sys, so the host's files and processes are never consulted.
# Prints "PASS name" or "FAIL name: why" per test.
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup compat

has() { printf '%s\n' "$1" | grep -qE -- "$2"; }
jqv() { jq -r "$1" "$D.out"; }
# bans: the run's machine.banned as "cpus<source>|..."
bans() { jq -r '[.machine.banned[] | "\(.cpus)<\(.source)>"] | join("|")' "$D.out"; }
# on_cpus LIST: the movable IRQs with a handler whose affinity is one of
# the CPUs of LIST (a space-separated set)
on_cpus() {
	local cpus=$1 d a hit=
	for d in "$D"/proc/irq/[0-9]*; do
		[ -w "$d/smp_affinity_list" ] || continue
		set -- "$d"/*/; [ -d "$1" ] || continue
		a=$(cat "$d/smp_affinity_list")
		case " $cpus " in *" $a "*) hit="$hit ${d##*/}:$a" ;; esac
	done
	echo "$hit"
}
put() {	# put PATH-UNDER-D TEXT...: a root-owned 0644 file of the machine
	mkdir -p "$(dirname "$D/$1")"
	local f=$D/$1; shift
	printf '%s\n' "$@" >"$f"
	chmod 0644 "$f"
}

###########################################################################
### nothing set: nothing banned, whatever the host's own files say
machine smt || exit 1
run --json -w 1 --no-config
why="exit $RC: $ERR"; check "none: a run exits 0" [ "$RC" -eq 0 ]
why="$(jq -c .machine.banned "$D.out")"; check "none: JSON lists no ban" [ "$(bans)" = "" ]
why="$(jqv .machine.eligible_cpus)"; check "none: every CPU eligible" [ "$(jqv .machine.eligible_cpus)" = 0-15 ]

###########################################################################
### Debian: /etc/default/irqbalance as the package ships it, then edited
machine smt || exit 1
put etc/default/irqbalance '# irqbalance settings' '#IRQBALANCE_BANNED_CPUS=' \
	'#IRQBALANCE_BANNED_CPULIST=' '' '# keep the capture cores free' \
	'IRQBALANCE_BANNED_CPULIST="2-3"' 'IRQBALANCE_ARGS="--banirq=42"'
run --json -w 1 --no-config
why="exit $RC: $ERR"; check "debian: a run exits 0 and says nothing" \
	sh -c '[ "$1" -eq 0 ] && [ -z "$2" ]' _ "$RC" "$ERR"
why="$(bans)"; check "debian: JSON names the file and line of the ban" \
	[ "$(bans)" = "2-3<IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance:6>" ]
why="$(jqv .machine.eligible_cpus)"; check "debian: CPUs 2-3 are not eligible" \
	[ "$(jqv .machine.eligible_cpus)" = 0-1,4-15 ]
left=$(on_cpus "2 3")
why="on 2-3:$left"; check "debian: no movable IRQ is left on CPUs 2-3" [ -z "$left" ]
why="$(jq -c '[.irqs[] | select(.outcome == "moved")] | length' "$D.out")"
check "debian: the run did move IRQs (off the banned CPUs, among others)" \
	[ "$(jqv '[.irqs[] | select(.outcome == "moved")] | length')" -gt 0 ]

###########################################################################
### RHEL: /etc/sysconfig/irqbalance with a cpumask as tuned writes it
machine smt || exit 1
put etc/sysconfig/irqbalance '# irqbalance environment file' \
	'IRQBALANCE_BANNED_CPUS="00000000,00000030"' 'IRQBALANCE_ARGS='
run --json -w 1 --no-config
why="exit $RC: $ERR"; check "rhel: a run exits 0" [ "$RC" -eq 0 ]
why="$(bans)"; check "rhel: JSON names the mask's file and line" \
	[ "$(bans)" = "4-5<IRQBALANCE_BANNED_CPUS in /etc/sysconfig/irqbalance:2>" ]
left=$(on_cpus "4 5")
why="on 4-5:$left"; check "rhel: no movable IRQ is left on CPUs 4-5" [ -z "$left" ]

###########################################################################
### the environment, the isolated partitions, and all sources together
machine smt || exit 1
IRQBALANCE_BANNED_CPULIST=6 run --json -w 1 --no-config
why="$(bans)"; check "environment: IRQBALANCE_BANNED_CPULIST is a source of its own" \
	[ "$(bans)" = "6<IRQBALANCE_BANNED_CPULIST in the environment>" ]
left=$(on_cpus 6)
why="on 6:$left"; check "environment: no movable IRQ is left on CPU 6" [ -z "$left" ]
machine smt || exit 1
put sys/fs/cgroup/cpuset.cpus.isolated 7
run --json -w 1 --no-config
why="$(bans) / $ERR"; check "cgroup: CPUs of isolated cpuset partitions are banned" \
	[ "$(bans)" = "7<an isolated cpuset partition (/sys/fs/cgroup/cpuset.cpus.isolated)>" ]
left=$(on_cpus 7)
why="on 7:$left"; check "cgroup: no movable IRQ is left on CPU 7" [ -z "$left" ]

machine smt || exit 1
put etc/default/irqbalance 'IRQBALANCE_BANNED_CPULIST=2-3'
put etc/sysconfig/irqbalance 'export IRQBALANCE_BANNED_CPUS=30'
put sys/fs/cgroup/cpuset.cpus.isolated 7
cfg=$work/conf; mkdir -p "$cfg"
printf 'bancpus = 9\n' >"$cfg/ban.conf"; chmod 0644 "$cfg/ban.conf"
IRQBALANCE_BANNED_CPUS=40 run --json -w 1 -c "$cfg/ban.conf"
why="exit $RC: $ERR"; check "all: a run with every source exits 0" [ "$RC" -eq 0 ]
why="$(bans)"; check "all: every source is listed, in order" \
	[ "$(bans)" = "9<bancpus in $cfg/ban.conf>|6<IRQBALANCE_BANNED_CPUS in the environment>|2-3<IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance:1>|4-5<IRQBALANCE_BANNED_CPUS in /etc/sysconfig/irqbalance:1>|7<an isolated cpuset partition (/sys/fs/cgroup/cpuset.cpus.isolated)>" ]
why="$(jqv .machine.eligible_cpus)"; check "all: the bans add up" \
	[ "$(jqv .machine.eligible_cpus)" = 0-1,8,10-15 ]
left=$(on_cpus "2 3 4 5 6 7 9")
why="on banned CPUs:$left"; check "all: no movable IRQ is left on a banned CPU" [ -z "$left" ]
IRQBALANCE_BANNED_CPUS=40 run -n -v -w 0.5 -c "$cfg/ban.conf" --bancpus 10
why="$OUT"; check "all: -v prints one line per source, --bancpus replacing the file's" \
	sh -c '[ "$(printf "%s\n" "$1" | grep -c " banned by ")" -eq 5 ] &&
	       printf "%s\n" "$1" | grep -qx "irqtune: CPU 10 banned by --bancpus" &&
	       printf "%s\n" "$1" | grep -qx "irqtune: CPUs 2-3 banned by IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance:1" &&
	       printf "%s\n" "$1" | grep -qx "irqtune: CPU 6 banned by IRQBALANCE_BANNED_CPUS in the environment" &&
	       ! printf "%s\n" "$1" | grep -q "CPU 9 banned"' _ "$OUT"

###########################################################################
### irqtune.conf's irqbalance-env: another file, or none at all
printf 'irqbalance-env = off\n' >"$cfg/off.conf"; chmod 0644 "$cfg/off.conf"
IRQBALANCE_BANNED_CPULIST=6 run -n --json -w 0.5 -c "$cfg/off.conf"
why="$(bans)"; check "irqbalance-env = off: neither files nor environment, the partitions still" \
	[ "$(bans)" = "7<an isolated cpuset partition (/sys/fs/cgroup/cpuset.cpus.isolated)>" ]
printf 'IRQBALANCE_BANNED_CPULIST=12-13\n' >"$cfg/irqbalance.env"; chmod 0644 "$cfg/irqbalance.env"
printf 'irqbalance-env = %s\n' "$cfg/irqbalance.env" >"$cfg/other.conf"; chmod 0644 "$cfg/other.conf"
run -n --json -w 0.5 -c "$cfg/other.conf"
why="$(bans)"; check "irqbalance-env = PATH: that file instead of the default ones" \
	[ "$(bans)" = "12-13<IRQBALANCE_BANNED_CPULIST in $cfg/irqbalance.env:1>|7<an isolated cpuset partition (/sys/fs/cgroup/cpuset.cpus.isolated)>" ]
printf 'irqbalance-env = %s\n' "$cfg/none.env" >"$cfg/gone.conf"; chmod 0644 "$cfg/gone.conf"
run -n -w 0.5 -c "$cfg/gone.conf"
why="exit $RC: $ERR"; check "irqbalance-env = PATH: a missing file is a warning, the run goes on" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" = "irqtune: $3: cannot read it: No such file or directory; its irqbalance settings are not applied" ]' \
	_ "$RC" "$ERR" "$cfg/none.env"

###########################################################################
### malformed values: a warning with file, line and value; the run goes on
machine smt || exit 1
put etc/default/irqbalance '# line 1' 'IRQBALANCE_BANNED_CPULIST=2-3' 'IRQBALANCE_BANNED_CPUS=0xZZ'
put etc/sysconfig/irqbalance 'IRQBALANCE_BANNED_CPULIST="$ISOLATED"'
put sys/fs/cgroup/cpuset.cpus.isolated 'nonsense'
IRQBALANCE_BANNED_CPULIST=1-x run --json -w 1 --no-config
why="exit $RC: $ERR"; check "malformed: the run goes on and exits 0" [ "$RC" -eq 0 ]
why="$ERR"; check "malformed: the file's value is named with file and line" \
	has "$ERR" "^irqtune: /etc/default/irqbalance:3: IRQBALANCE_BANNED_CPUS '0xZZ': not a hex cpumask .*; ignored$"
why="$ERR"; check "malformed: an expansion is refused, not evaluated" \
	has "$ERR" "^irqtune: /etc/sysconfig/irqbalance:1: IRQBALANCE_BANNED_CPULIST=\"\\\$ISOLATED\": a \\\$ or \` expansion, which irqtune does not evaluate; ignored$"
why="$ERR"; check "malformed: the environment's value is named" \
	has "$ERR" "^irqtune: IRQBALANCE_BANNED_CPULIST '1-x' in the environment: not a cpulist .*; ignored$"
why="$ERR"; check "malformed: the partition file's value is named" \
	has "$ERR" "^irqtune: /sys/fs/cgroup/cpuset.cpus.isolated: 'nonsense': not a cpulist; ignored$"
why="$(bans)"; check "malformed: the good value beside them still counts" \
	[ "$(bans)" = "2-3<IRQBALANCE_BANNED_CPULIST in /etc/default/irqbalance:2>" ]
why="$(jqv .summary.moved)"; check "malformed: the run still balanced" [ "$(jqv .summary.moved)" -gt 0 ]
machine smt || exit 1
put etc/default/irqbalance 'IRQBALANCE_BANNED_CPULIST=0-15'
run -n -w 0.5 --no-config
why="exit $RC: $ERR"; check "every CPU banned by irqbalance's settings: exit 69" [ "$RC" -eq 69 ]
machine smt || exit 1
put etc/default/irqbalance 'IRQBALANCE_BANNED_CPULIST=3'
chmod 0666 "$D/etc/default/irqbalance"
run -n --json -w 0.5 --no-config
why="exit $RC: $ERR / $(bans)"; check "a world-writable irqbalance file is refused with a warning" \
	sh -c '[ "$1" -eq 0 ] && [ -z "$2" ] && [ "$3" = "irqtune: /etc/default/irqbalance: writable by anyone (mode 0666): refusing it (chmod go-w): its irqbalance settings are not applied" ]' \
	_ "$RC" "$(bans)" "$ERR"

###########################################################################
### no fighting: a running irqbalance (a process of the machine's /proc)
machine smt || exit 1
mkdir -p "$D/proc/4321"
echo irqbalance >"$D/proc/4321/comm"
echo '4321 (irqbalance) S 1 4321 4321 0 -1 4194560 88 0 0 0 1 2 0 0 20 0 2 0' >"$D/proc/4321/stat"
cp -r "$D/proc/irq" "$D.irq0"
mdir=$work/metrics; mkdir -p "$mdir"
run -w 1 --json --metrics-file "$mdir/irqtune.prom"
why="exit $RC: $ERR"; check "balancer: a run that would write refuses with exit 2" [ "$RC" -eq 2 ]
why="$ERR"; check "balancer: the message names irqbalance and its pid" \
	has "$ERR" '^irqtune: irqbalance \(pid 4321\) is running and balances IRQs itself: writing none, .*--ignore-other-balancer\)$'
why="$(diff -r "$D.irq0" "$D/proc/irq" | head -5)"; check "balancer: nothing was written" \
	diff -rq "$D.irq0" "$D/proc/irq"
why="$OUT"; check "balancer: JSON says status 2 and holds no IRQ" \
	sh -c '[ "$(jq .status "$1")" = 2 ] && [ "$(jq ".irqs | length" "$1")" = 0 ]' _ "$D.out"
why="$(cat "$mdir/irqtune.prom" 2>&1 | grep -E 'success|status')"; check "balancer: the metrics file records the refusal" \
	sh -c 'grep -qx "irqtune_exit_status 2" "$1" && grep -qx "irqtune_run_success 0" "$1"' _ "$mdir/irqtune.prom"
run -n -w 1
why="exit $RC: $ERR"; check "balancer: --dry-run still plans, exits 0 and says a real run would refuse" \
	sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^irqtune: irqbalance (pid 4321) is running: a run that writes would refuse (--ignore-other-balancer overrides); this dry run writes nothing$" &&
	       printf "%s\n" "$3" | grep -q " to move, "' _ "$RC" "$ERR" "$OUT"
why="$(diff -r "$D.irq0" "$D/proc/irq" | head -5)"; check "balancer: the dry run wrote nothing either" \
	diff -rq "$D.irq0" "$D/proc/irq"
# a zombie irqbalance writes nothing more: not a balancer
sed -i 's/ S / Z /' "$D/proc/4321/stat"
run -n --json -w 0.5
why="exit $RC: $ERR"; check "balancer: an exited (zombie) irqbalance does not count" \
	sh -c '[ "$1" -eq 0 ] && [ -z "$2" ]' _ "$RC" "$ERR"
sed -i 's/ Z / S /' "$D/proc/4321/stat"
run -w 1 --ignore-other-balancer
why="exit $RC: $ERR"; check "balancer: --ignore-other-balancer writes anyway" \
	sh -c '[ "$1" -eq 0 ] && [ "$(printf "%s\n" "$2" | sed -n "s/.* \([0-9]*\) moved,.*/\1/p")" -gt 0 ]' _ "$RC" "$OUT"
machine smt || exit 1
mkdir -p "$D/proc/4321"
echo irqbalance >"$D/proc/4321/comm"
echo '4321 (irqbalance) S 1' >"$D/proc/4321/stat"
printf 'other-balancer = ignore\n' >"$cfg/ignore.conf"; chmod 0644 "$cfg/ignore.conf"
run -w 1 -c "$cfg/ignore.conf"
why="exit $RC: $ERR"; check "balancer: other-balancer = ignore in irqtune.conf writes anyway" [ "$RC" -eq 0 ]
exit 0
