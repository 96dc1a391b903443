#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end tests of the network path (irqtune(8), NETWORK PATH): the real
# irqtune against the router machine (two 8-queue NICs) given what a
# kernel with XPS and threaded NAPI shows: queues/tx-N/xps_cpus, threaded,
# napi/X-ID kernel threads (kthreadd's children, their stat, status and
# comm). After a run every transmit queue's mask is its completion IRQ's
# CPU and every NAPI thread runs on its IRQ's CPU; a dry run writes
# nothing; a refused xps_cpus write, a thread that exits before it is
# pinned and a malformed mask are each reported and leave the rest
# applied; xps = off and napi-threads = off write nothing of the path;
# IRQTUNE_XPS=0 (through a capture's devices member) leaves that NIC. With
# netdev netlink played by the fake kernel (DIR/sim.napi): threads matched
# by the IRQ netlink names, a busy-polling thread left, deferred IRQs
# reported; netlink without IRQs falls back to names and says why. A NIC
# whose systemd-udevd .link file sets its IRQ affinity is left (its IRQs,
# XPS and threads), saying why, in text and JSON.
#
# Prints "PASS name" or "FAIL name: why" per test.
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup netpath

cpumask() {	# cpumask CPU: the kernel's hex mask of one CPU
	local c=$1 g=$(($1 / 32)) out
	out=$(printf '%x' $((1 << (c % 32))))
	while [ "$g" -gt 0 ]; do out="$out,00000000"; g=$((g - 1)); done
	echo "$out"
}
# setup: router in $D, with XPS and threaded NAPI on both NICs. eth0's
# threads are PIDs 9100-9107, NAPI ids 8193-8200 (queue order), listed out
# of order; 9107 exits before it can be pinned (its comm is gone).
# eth1's tx-3 refuses writes; its tx-5 holds a malformed mask.
setup() {
	machine router || exit 1
	local ifn q pid kids=
	for ifn in eth0 eth1; do
		echo 1 >"$D/sys/class/net/$ifn/threaded"
		for q in 0 1 2 3 4 5 6 7; do
			mkdir -p "$D/sys/class/net/$ifn/queues/tx-$q"
			echo ffff >"$D/sys/class/net/$ifn/queues/tx-$q/xps_cpus"
		done
	done
	chmod 0444 "$D/sys/class/net/eth1/queues/tx-3/xps_cpus"
	echo "zz,ff" >"$D/sys/class/net/eth1/queues/tx-5/xps_cpus"
	for q in 7 3 0 5 1 6 2 4; do
		pid=$((9100 + q))
		kids="$kids $pid"
		mkdir -p "$D/proc/$pid"
		echo "$pid (napi/eth0-$((8193 + q))) S 2 0 0 0 -1 2129984 0 0 0 0 0 25 0 0 20 0 1 0 380" \
			>"$D/proc/$pid/stat"
		printf 'Name:\tnapi/eth0-%d\nCpus_allowed:\tffff\nCpus_allowed_list:\t0-15\n' \
			$((8193 + q)) >"$D/proc/$pid/status"
		echo "napi/eth0-$((8193 + q))" >"$D/proc/$pid/comm"
	done
	rm "$D/proc/9107/comm"
	mkdir -p "$D/proc/2/task/2"
	echo "${kids# }" >"$D/proc/2/task/2/children"
}
xps() { cat "$D/sys/class/net/$1/queues/tx-$2/xps_cpus"; }
allowed() { awk '/^Cpus_allowed_list:/ { print $2 }' "$D/proc/$1/status"; }

### a dry run: says what it would set, writes nothing
setup
run -n -v -w 0.5
why="exit $RC: $ERR"; check "dry run: exits 0" [ "$RC" = 0 ]
n=$(printf '%s\n' "$OUT" | grep -c "network path: eth0 tx-[0-7] xps_cpus ffff\|network path: eth0 tx-[0-7] xps_cpus 0-15 -> [0-9]*, would set")
why="$OUT"; check "dry run: all 8 of eth0's queues would be set" [ "$n" = 8 ]
why=$(xps eth0 0; allowed 9100)
check "dry run: nothing written" sh -c '[ "$1" = ffff ] && [ "$2" = 0-15 ]' _ "$(xps eth0 0)" "$(allowed 9100)"

### a real run: each queue's mask is its completion IRQ's CPU, each thread
### its IRQ's CPU; the refusal and the exited thread are reported
run -v -w 0.5
why="exit $RC: $ERR"; check "run: a refused write makes it exit 1 (partial)" [ "$RC" = 1 ]
bad=
for ifn in eth0 eth1; do
	for q in 0 1 2 3 4 5 6 7; do
		[ "$ifn/$q" = eth1/3 ] && continue
		cpu=$(aff "$(irq_of "$ifn-TxRx-$q")")
		[ "$(xps "$ifn" "$q")" = "$(cpumask "$cpu")" ] || bad="$bad $ifn/tx-$q:$(xps "$ifn" "$q")-not-cpu-$cpu"
	done
done
why="$bad"; check "run: every transmit queue's xps_cpus is its TxRx IRQ's CPU (malformed one too)" [ -z "$bad" ]
why=$(xps eth1 3); check "run: the refused queue keeps its mask" [ "$(xps eth1 3)" = ffff ]
why="$ERR"; check "run: the refusal is a warning naming the queue, the mask and the errno" \
	sh -c 'printf "%s\n" "$1" | grep -q "^irqtune: eth1 tx-3 xps_cpus: cannot set to [0-9]*: Permission denied, left at 0-15"' _ "$ERR"
bad=
for q in 0 1 2 3 4 5 6; do
	cpu=$(aff "$(irq_of "eth0-TxRx-$q")")
	[ "$(allowed $((9100 + q)))" = "$cpu" ] || bad="$bad $((9100 + q)):$(allowed $((9100 + q)))-not-$cpu"
done
why="$bad"; check "run: each NAPI thread runs on the CPU of its queue's IRQ (ids in queue order)" [ -z "$bad" ]
why="$OUT"; check "run: the thread that exited is reported gone, and left" \
	sh -c '[ "$2" = 0-15 ] && printf "%s\n" "$1" | grep -q "napi/eth0-8200 (pid 9107) 0-15, gone"' _ "$OUT" "$(allowed 9107)"
why="$OUT"; check "run: -v says how threads were matched" \
	sh -c 'printf "%s\n" "$1" | grep -q "NAPI threads matched to IRQs by their names and NAPI ids"' _ "$OUT"

### JSON: each change with its outcome and reason
run -w 0.5 --json
why="exit $RC: $ERR"; check "json: exits 1 (the refusal stays)" [ "$RC" = 1 ]
got=$(printf '%s\n' "$OUT" | jq -c '[.netpath.changes[] | select(.interface == "eth1" and .what == "tx-3")][0] | [.kind, .outcome, .error]')
why="$got"; check "json: the refused queue is 'failed' with its error" [ "$got" = '["xps","failed","Permission denied"]' ]
got=$(printf '%s\n' "$OUT" | jq -c '[.netpath.changes[] | select(.kind == "napi_thread" and .outcome == "kept")] | length')
why="$got"; check "json: a second run keeps the 7 pinned threads" [ "$got" = 7 ]
got=$(printf '%s\n' "$OUT" | jq -r '.netpath.napi_matched_by')
why="$got"; check "json: napi_matched_by names" [ "$got" = names ]

### xps = off, napi-threads = off: nothing of the path is written
setup
cfg=$work/off.conf
printf 'xps = off\nnapi-threads = off\n' >"$cfg"
chmod 0644 "$cfg"
run -v -w 0.5 -c "$cfg"
why="exit $RC: $ERR"; check "off: exits 0" [ "$RC" = 0 ]
why=$(xps eth0 1; allowed 9101)
check "off: no xps_cpus and no thread written" sh -c '[ "$1" = ffff ] && [ "$2" = 0-15 ] && ! printf "%s\n" "$3" | grep -q "network path"' \
	_ "$(xps eth0 1)" "$(allowed 9101)" "$OUT"

### a NIC whose IRQs irqtune does not place: its path is left
setup
run -v -w 0.5 --banirq "$(irq_of eth0-TxRx-2)"
why="$OUT"; check "banned: eth0's XPS is left, with the reason" \
	sh -c '[ "$2" = ffff ] && printf "%s\n" "$1" | grep -q "eth0: XPS left: irq [0-9]* (eth0-TxRx-2) is not irqtune.s to place (banned)"' _ "$OUT" "$(xps eth0 0)"
why="$OUT"; check "banned: eth0's threads are left" \
	sh -c '[ "$2" = 0-15 ] && printf "%s\n" "$1" | grep -q "napi/eth0-8193 (pid 9100) 0-15, left"' _ "$OUT" "$(allowed 9100)"
cpu=$(aff "$(irq_of eth1-TxRx-0)")
why=$(xps eth1 0); check "banned: eth1's path still follows" [ "$(xps eth1 0)" = "$(cpumask "$cpu")" ]

### IRQTUNE_XPS=0 on a device, as a capture keeps it: its XPS is left
setup
cap=$work/np.cap
run -n -w 0.5 --capture "$cap"
why="exit $RC: $ERR"; check "capture: exits 0" [ "$RC" = 0 ]
x=$work/x && rm -rf "$x" && mkdir -p "$x" && tar -C "$x" -xzf "$cap"
awk '$1 == "device" && $4 == "0000:18:00.0" { $0 = $0 " 0 eth0" } { print }' "$x/devices" >"$x/devices.new" &&
	mv "$x/devices.new" "$x/devices"
(cd "$x" && tar -czf "$work/xps0.cap" irqtune-capture $(ls | grep -vx irqtune-capture))
out=$("$top/irqtune" --replay "$work/xps0.cap" -v 2>&1); rc=$?
why="exit $rc: $out"; check "IRQTUNE_XPS=0: the replay exits 0" [ "$rc" = 0 ]
why="$out"; check "IRQTUNE_XPS=0: eth0's XPS is left, saying why; eth1's is not" \
	sh -c 'printf "%s\n" "$1" | grep -q "eth0: XPS left: IRQTUNE_XPS=0 on eth0" &&
	       ! printf "%s\n" "$1" | grep -q "eth0 tx-0 xps_cpus" &&
	       printf "%s\n" "$1" | grep -q "eth1 tx-0 xps_cpus 0-15 -> [0-9]*, would set"' _ "$out"
why="$out"; check "replay: the threads come from the capture, matched by names" \
	sh -c 'printf "%s\n" "$1" | grep -q "napi/eth0-8193 (pid 9100) 0-15 -> [0-9]*, would set"' _ "$out"

### IRQTUNE_XPS that is neither 1 nor 0: said, and ignored (XPS follows)
awk '$1 == "device" && $4 == "0000:18:00.0" { sub(/ 0 eth0$/, " maybe eth0") } { print }' "$x/devices" >"$x/devices.new" &&
	mv "$x/devices.new" "$x/devices"
(cd "$x" && tar -czf "$work/xpsbad.cap" irqtune-capture $(ls | grep -vx irqtune-capture))
out=$("$top/irqtune" --replay "$work/xpsbad.cap" -v 2>&1); rc=$?
why="exit $rc: $out"; check "IRQTUNE_XPS=maybe: the replay exits 0" [ "$rc" = 0 ]
why="$out"; check "IRQTUNE_XPS=maybe: said to be ignored, and eth0's XPS follows" \
	sh -c 'printf "%s\n" "$1" | grep -q "IRQTUNE_XPS .maybe. on eth0: not 1 or 0; ignored" &&
	       printf "%s\n" "$1" | grep -q "eth0 tx-0 xps_cpus 0-15 -> [0-9]*, would set"' _ "$out"

### netdev netlink (the fake kernel plays napi-get from DIR/sim.napi): each
### of eth0's threads is matched by its pid to the IRQ netlink names,
### against the order of their ids; a busy-polling thread is left; eth1's
### NAPIs defer their IRQs, which the proc source says it cannot see.
setup
if0=$(cat "$D/sys/class/net/eth0/ifindex") if1=$(cat "$D/sys/class/net/eth1/ifindex")
: >"$D/sim.napi"
for q in 0 1 2 3 4 5 6 7; do
	# NAPI 8193+q (thread 9100+q) served by the IRQ of queue 7-q; 9103 busy-polls
	mode=1; [ "$q" = 3 ] && mode=2
	echo "$if0 $((8193 + q)) $(irq_of "eth0-TxRx-$((7 - q))") $((9100 + q)) $mode 0 0 0" >>"$D/sim.napi"
	echo "$if1 $((8300 + q)) - - 0 2 20000 0" >>"$D/sim.napi"
done
run -v -w 0.5 --load-source=proc
why="exit $RC: $ERR"; check "netlink: a run exits 1 (eth1's refused queue only)" [ "$RC" = 1 ]
bad=
for q in 0 1 2 4 5 6; do
	cpu=$(aff "$(irq_of "eth0-TxRx-$((7 - q))")")
	[ "$(allowed $((9100 + q)))" = "$cpu" ] || bad="$bad $((9100 + q)):$(allowed $((9100 + q)))-not-$cpu"
done
why="$bad"; check "netlink: each thread runs on the CPU of the IRQ netlink names, not its id's" [ -z "$bad" ]
why="$OUT"; check "netlink: the busy-polling thread is left where it was, saying why" \
	sh -c '[ "$2" = 0-15 ] && printf "%s\n" "$1" | grep -q "napi/eth0-8196 (pid 9103) 0-15, left (it busy-polls (threaded busy polling)"' _ "$OUT" "$(allowed 9103)"
why="$OUT"; check "netlink: -v says eth0's threads were matched by netlink" \
	sh -c 'printf "%s\n" "$1" | grep -q "network path: eth0: NAPI threads matched by netdev netlink (napi-get)" &&
	       printf "%s\n" "$1" | grep -q "NAPI threads matched to IRQs by netdev netlink"' _ "$OUT"
why="$OUT"; check "netlink: eth1's deferral is reported with its settings, and the proc source says it cannot see the poll work" \
	sh -c 'printf "%s\n" "$1" | grep -q "eth1: 8 NAPIs defer or suspend their IRQ (defer-hard-irqs 2, gro-flush-timeout 20000 ns, irq-suspend-timeout 0 ns)" &&
	       printf "%s\n" "$1" | grep -q "eth1: its IRQs are deferred or suspended .*the proc load source counts interrupts and cannot see"' _ "$OUT"
run -w 0.5 --load-source=proc --json -n
got=$(printf '%s\n' "$OUT" | jq -c '[.netpath.nics[] | [.interface, .napi_matched_by, .busy_poll_threads, .defer_hard_irqs, .gro_flush_timeout_ns, .deferred_napis, .poll_work_unseen]]')
why="$got"; check "netlink: json nics say how each NIC was matched, its busy pollers and its deferral" \
	[ "$got" = '[["eth0","netlink",1,0,0,0,false],["eth1",null,0,2,20000,8,true]]' ]

### netlink answering without IRQs (virtio-net, or any driver before it
### calls netif_napi_set_irq()): names decide, and the report says why
setup
if0=$(cat "$D/sys/class/net/eth0/ifindex")
: >"$D/sim.napi"
for q in 0 1 2 3 4 5 6 7; do
	echo "$if0 $((8193 + q)) - $((9100 + q)) 1 - - -" >>"$D/sim.napi"
done
run -v -w 0.5 -n
why="$OUT"; check "netlink without irq: matched by names, saying netlink named no IRQ" \
	sh -c 'printf "%s\n" "$1" | grep -q "eth0: NAPI threads matched by their names: netlink names no IRQ of its NAPIs" &&
	       printf "%s\n" "$1" | grep -q "napi/eth0-8193 (pid 9100) 0-15 -> [0-9]*, would set"' _ "$OUT"

### systemd-udevd .link files: a NIC whose [Link] sets IRQAffinityPolicy=,
### IRQAffinity= or IRQAffinityNUMA= is the admin's: its IRQs, XPS and
### threads are left, saying why. udevd's database is shown to libudev in
### a private mount namespace (/run/udev/data/nIFINDEX: ID_NET_LINK_FILE).
link_run() {	# link_run LINK-FILE-TEXT ARGS...: irqtune with eth0's .link
	local text=$1 idx; shift
	idx=$(cat "$D/sys/class/net/eth0/ifindex")
	printf '%b' "$text" >"$work/10-eth0.link"
	unshare -m sh -c '
		mount -t tmpfs none /run && mkdir -p /run/udev/data &&
		printf "I:1\nE:ID_NET_LINK_FILE=%s\n" "$1" >"/run/udev/data/n$2" || exit 99
		shift 2
		exec "$@"' _ "$work/10-eth0.link" "$idx" env UMOCKDEV_DIR="$D" LD_PRELOAD="$PRELOAD" \
		"$top/irqtune" "$@" >"$D.out" 2>"$D.err"
	RC=$?
	OUT=$(cat "$D.out"); ERR=$(cat "$D.err")
}
if ! unshare -m true 2>/dev/null; then
	skip "link files" "no private mount namespace here (unshare -m failed)"
else
	setup
	n0=$(irq_of eth0-TxRx-0) before=$(aff "$(irq_of eth0-TxRx-0)")
	link_run '[Match]\nOriginalName=eth0\nIRQAffinity=7\n\n[Link]\n# spread, as the admin asked\nIRQAffinityPolicy=spread\n' -v -w 0.5
	why="exit $RC: $ERR"; check "link file: the run exits 1 (eth1's refused queue only)" [ "$RC" = 1 ]
	why="$OUT"; check "link file: eth0's IRQs are left as systemd-udevd's, saying which setting in which file" \
		sh -c '[ "$2" = "$3" ] && printf "%s\n" "$1" | grep -Eq "^ *$4 +eth0-TxRx-0 .*banned \(systemd-udevd sets its affinity: IRQAffinityPolicy=spread in $5\)"' \
		_ "$OUT" "$(aff "$n0")" "$before" "$n0" "$work/10-eth0.link"
	why="$OUT"; check "link file: eth0's XPS and threads are left, and said so" \
		sh -c '[ "$2" = ffff ] && [ "$3" = 0-15 ] &&
		       printf "%s\n" "$1" | grep -q "network path: eth0: XPS and NAPI threads left: systemd-udevd sets its IRQ affinity (IRQAffinityPolicy=spread in "' \
		_ "$OUT" "$(xps eth0 0)" "$(allowed 9100)"
	cpu=$(aff "$(irq_of eth1-TxRx-0)")
	why=$(xps eth1 0); check "link file: eth1 (no .link) still follows" [ "$(xps eth1 0)" = "$(cpumask "$cpu")" ]
	link_run '[Link]\nIRQAffinityNUMA=yes\n' -n -w 0.5 --json
	got=$(printf '%s\n' "$OUT" | jq -r --argjson n "$n0" '.irqs[] | select(.irq == $n) | .outcome + "|" + .reason')
	why="$got"; check "link file: JSON says banned, and why" \
		[ "$got" = "banned|systemd-udevd sets its affinity: IRQAffinityNUMA=yes in $work/10-eth0.link" ]
	got=$(printf '%s\n' "$OUT" | jq -r '[.netpath.notes[] | select(.interface == "eth0") | .note] | join("|")')
	why="$got"; check "link file: JSON netpath notes say eth0's path is left to udevd" \
		sh -c 'printf "%s\n" "$1" | grep -q "XPS and NAPI threads left: systemd-udevd sets its IRQ affinity (IRQAffinityNUMA=yes"' _ "$got"
	# an empty assignment resets it: then the NIC is irqtune's
	link_run '[Link]\nIRQAffinity=1-3\nIRQAffinity=\n' -n -v -w 0.5
	why="$OUT"; check "link file: an emptied setting leaves the NIC irqtune's" \
		sh -c '! printf "%s\n" "$1" | grep -q "systemd-udevd" && printf "%s\n" "$1" | grep -q "eth0 tx-0 xps_cpus 0-15 -> [0-9]*, would set"' _ "$OUT"
fi
