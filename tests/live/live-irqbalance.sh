#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Live test on this machine: with a real irqbalance running, a real (not
# dry) irqtune run refuses, exits 2, names irqbalance and its pid, and
# changes no /proc/irq/N/smp_affinity. irqbalance is started in the
# foreground with an interval of an hour: it places nothing before its
# first interval, so it too leaves the host's affinities alone; it is
# stopped by its pid, never by name. One is started even where another
# irqbalance already runs (a benchmark's, say, which may end at any
# moment): ours is what guarantees that one runs while irqtune does. And
# irqtune runs where it can with /proc/irq mounted read-only in a private
# mount namespace, so that even a broken check could not move the host's
# IRQs.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why".
set -u
cd "$(dirname "$0")/../.." || exit 1
out=tests/out/live-irqbalance
mkdir -p "$out"
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

snap() {	# every IRQ's affinity, as the kernel has it
	for d in /proc/irq/[0-9]*; do
		printf '%s %s %s\n' "${d#/proc/irq/}" "$(cat "$d/smp_affinity" 2>/dev/null)" \
			"$(cat "$d/smp_affinity_list" 2>/dev/null)"
	done
}
# running_irqbalance: the pids of live irqbalances, read as irqtune reads them
running_irqbalance() {
	for c in /proc/[0-9]*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = irqbalance ] || continue
		p=${c#/proc/}; p=${p%/comm}
		st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
		case "$st" in Z|X|"") continue ;; esac
		echo "$p"
	done
}
# irqtune ARGS...: ./irqtune, with /proc/irq read-only where we can
if unshare -m sh -c 'mount --bind /proc/irq /proc/irq && mount -o remount,bind,ro /proc/irq' 2>/dev/null; then
	ro="with /proc/irq read-only"
	irqtune() {
		unshare -m sh -c 'mount --bind /proc/irq /proc/irq && mount -o remount,bind,ro /proc/irq &&
			exec ./irqtune "$@"' _ "$@"
	}
else
	ro="on the real /proc/irq (no private mount namespace here)"
	irqtune() { ./irqtune "$@"; }
fi

name="live: irqtune refuses to write while irqbalance runs"
if [ "$(id -u)" -ne 0 ]; then
	skip "$name" "needs root: a run that writes, and irqbalance, need it"
	exit 0
fi
ib=$(command -v irqbalance || true)
if [ -z "$ib" ]; then
	skip "$name" "irqbalance is not installed (make deps installs it)"
	exit 0
fi
[ -d /proc/irq ] || { skip "$name" "no /proc/irq here (a container?)"; exit 0; }

# start_ours: an irqbalance of ours in $ours, running; false if it exited
start_ours() {
	# no environment of ours reaches it: no bans, nothing special
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$ib" --foreground --interval=3600 \
		>"$out/irqbalance.log" 2>&1 </dev/null &
	ours=$!
	# until it is itself (past exec) and has read the machine
	n=0
	while [ "$(cat "/proc/$ours/comm" 2>/dev/null)" != irqbalance ] && [ $n -lt 100 ]; do
		sleep 0.05; n=$((n + 1))
	done
	sleep 0.5
	kill -0 "$ours" 2>/dev/null
}
snap >"$out/before"
# The run that writes takes /run/irqtune.lock before it refuses: a lock
# file this test made goes with it (no run holds it: tests/run's live
# tests take turns with other trees').
had_lock=
[ -e /run/irqtune.lock ] && had_lock=1
unlock() { [ -n "$had_lock" ] || rm -f /run/irqtune.lock; }
trap 'kill "$ours" 2>/dev/null; wait "$ours" 2>/dev/null; unlock' EXIT
tries=1
# irqbalance 1.9 exits at once (status 1) while another one holds its
# socket: a benchmark's --oneshot run ends soon, so wait for it
lonely=0
until start_ours; do
	wait "$ours"
	rc=$?
	others=$(running_irqbalance | tr '\n' ' ')
	# alone twice running: it fails for a reason of its own
	[ -n "$others" ] || lonely=$((lonely + 1))
	if [ $lonely -ge 2 ] || [ $tries -ge 15 ]; then
		trap - EXIT
		unlock
		skip "$name" "our irqbalance exited at once (status $rc, $tries tries; others running: ${others:-none}): $(head -3 "$out/irqbalance.log")"
		exit 0
	fi
	tries=$((tries + 1))
	sleep 2
done
others=$(running_irqbalance | grep -vx "$ours" | tr '\n' ' ')

irqtune -w 0.3 >"$out/stdout" 2>"$out/stderr" </dev/null
rc=$?
snap >"$out/after"

if [ "$rc" -eq 2 ]; then pass "live: exit status 2 with irqbalance (pid $ours) running ($ro)"
else fail "live: exit status 2 with irqbalance (pid $ours) running ($ro)" "exit $rc: $(cat "$out/stderr")"; fi
named=$(sed -n 's/^irqtune: irqbalance (pid \([0-9]*\)) is running and balances IRQs itself: writing none.*/\1/p' "$out/stderr")
# ours, or one that ran before it (then irqtune found that one first)
case " $ours $others " in
*" ${named:-none} "*) pass "live: the refusal names irqbalance and its pid ($named)" ;;
*) fail "live: the refusal names irqbalance and its pid" "ours is $ours, others '$others': $(cat "$out/stderr")" ;;
esac
if cmp -s "$out/before" "$out/after"; then
	pass "live: no /proc/irq/N/smp_affinity changed"
else
	fail "live: no /proc/irq/N/smp_affinity changed" "$(diff "$out/before" "$out/after" | head -10)"
fi
# irqtune.service's sandbox (ProtectProc=invisible, no capability) must
# not hide irqbalance from it: /proc mounted with hidepid=invisible, every
# capability dropped.
if unshare -m sh -c 'mount -t proc -o hidepid=invisible proc /proc' 2>/dev/null &&
   command -v setpriv >/dev/null; then
	unshare -m sh -c 'mount -t proc -o hidepid=invisible proc /proc &&
		mount --bind /proc/irq /proc/irq && mount -o remount,bind,ro /proc/irq &&
		exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs ./irqtune "$@"' \
		_ -w 0.3 >"$out/unit.stdout" 2>"$out/unit.stderr" </dev/null
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q "^irqtune: irqbalance (pid [0-9]*) is running and balances" "$out/unit.stderr"; then
		pass "live: in the unit's sandbox (hidepid=invisible, no capability) it refuses too"
	else
		fail "live: in the unit's sandbox (hidepid=invisible, no capability) it refuses too" \
			"exit $rc: $(cat "$out/unit.stderr")"
	fi
else
	skip "live: in the unit's sandbox" "no private /proc mount or no setpriv here"
fi
snap >"$out/after2"
if cmp -s "$out/before" "$out/after2"; then
	pass "live: still no /proc/irq/N/smp_affinity changed"
else
	fail "live: still no /proc/irq/N/smp_affinity changed" "$(diff "$out/before" "$out/after2" | head -10)"
fi

# A dry run beside it still plans, and says a real run would refuse.
irqtune -n -w 0.3 >"$out/dry.stdout" 2>"$out/dry.stderr" </dev/null
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^irqtune: irqbalance (pid [0-9]*) is running: a run that writes would refuse" "$out/dry.stderr"; then
	pass "live: --dry-run beside irqbalance plans and says so"
else
	fail "live: --dry-run beside irqbalance plans and says so" "exit $rc: $(cat "$out/dry.stderr")"
fi

kill "$ours"
wait "$ours" 2>/dev/null
trap - EXIT
unlock
if kill -0 "$ours" 2>/dev/null; then
	fail "live: the irqbalance we started is gone" "pid $ours still runs"
else
	pass "live: the irqbalance we started is gone"
fi
snap >"$out/end"
if cmp -s "$out/before" "$out/end"; then
	pass "live: irqbalance itself placed nothing before its first interval"
else
	fail "live: irqbalance itself placed nothing before its first interval" \
		"$(diff "$out/before" "$out/end" | head -10)"
fi
exit 0
