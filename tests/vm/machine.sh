#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/machine.sh - the guest machines and their launcher:
#
#	machine.sh MACHINE VMLINUZ INITRD DIR SECONDS
#
# boots MACHINE (a or b, below) under QEMU with that kernel and initramfs,
# and returns when the guest powers off, or after SECONDS at most, killing
# it. In DIR: console.log (ttyS0), results.txt (ttyS1: what the guest side
# reports), qemu.pid, mon.sock (the monitor). Exit status: 0 the guest
# powered off, 3 QEMU could not start, 4 the time limit killed it, 5 the
# guest kernel panicked; the cause is on stderr.
#
# VM_PEER_NIC (e1000e, the default, or virtio) is the model of the second
# hub NIC: a kernel without an e1000e driver (Debian's cloud flavour) gets a
# second virtio-net there instead.
#
# Machine b also has two 4-queue virtio-net NICs (mq=on, 10 vectors: 4
# receive, 4 transmit, config and control) on multi-queue taps joined by a
# bridge, all in a network namespace made for this guest alone
# (VM_NETNS, default irqtune-vm-PID) and removed when it ends, however it
# ends; QEMU runs inside it. That namespace has no other interface, so no
# frame leaves it.
#
# While it runs it serves the guest's requests: a line "@@UNPLUG nvme" on
# ttyS1 has the monitor unplug the NVMe drive (device_del).
#
# noirqdebug: on PREEMPT_RT the 8250 driver's irq thread, run late under
# TCG, finds most of ttyS1's interrupts already served and returns
# IRQ_NONE; the spurious-IRQ detector then disables IRQ 3 ("nobody cared")
# and the results port stalls. That detector is not under test.
#
# no_timer_check: on a busy host the vCPU is too slow for the check that the
# 8254 timer reaches the IO-APIC, and 6.1 panics at boot ("IO-APIC + timer
# doesn't work").
#
# Always single-threaded TCG: QEMU 7.2's multi-threaded TCG locks up every
# vCPU when kernel text is patched (tracefs events, BPF attach) under
# interrupt load. No network leaves QEMU: -nodefaults (no default NIC), the
# two hub NICs are ports of a QEMU-internal hub, and machine b's taps are in
# a namespace of their own.
set -u
machine=$1 kernel=$2 initrd=$3 dir=$4 limit=$5

common=(-machine q35 -accel tcg,thread=single -cpu qemu64,vendor=GenuineIntel
	-nodefaults -display none -vga none
	-no-reboot -m 1024)
# The drives: NVMe behind a PCIe root port, so it can be hot-unplugged; a
# 4-queue virtio-blk disk. The NICs: virtio-net and e1000e on hub 0.
devices=(-device pcie-root-port,id=rp1,bus=pcie.0,chassis=1,slot=1
	-drive "file=$dir/nvme.img,if=none,id=nv0,format=raw"
	-device nvme,id=nvme0,drive=nv0,serial=irqtune0,bus=rp1
	-drive "file=$dir/vblk.img,if=none,id=vb0,format=raw"
	-device virtio-blk-pci,drive=vb0,num-queues=4
	-netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0
	-netdev hubport,id=n1,hubid=0)
case "${VM_PEER_NIC:-e1000e}" in
virtio)	devices+=(-device virtio-net-pci,netdev=n1) ;;
*)	devices+=(-device e1000e,netdev=n1) ;;
esac
netns=""
in_ns=()
case "$machine" in
a)	# 4 vCPUs, 2 sockets, each its own NUMA node
	cpus=(-smp 4,sockets=2,cores=2,threads=1
		-object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M
		-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1) ;;
b)	# 8 vCPUs: 4 cores of 2 SMT threads
	cpus=(-smp 8,sockets=1,cores=4,threads=2)
	netns=${VM_NETNS:-irqtune-vm-$$}
	in_ns=(ip netns exec "$netns")
	for i in 0 1; do
		devices+=(-netdev "tap,id=mq$i,ifname=mqtap$i,queues=4,script=no,downscript=no,vhost=off"
			-device "virtio-net-pci,netdev=mq$i,mq=on,vectors=10")
	done ;;
*)	echo "machine.sh: no machine '$machine' (a or b)" >&2; exit 64 ;;
esac

mkdir -p "$dir"
rm -f "$dir/console.log" "$dir/results.txt" "$dir/qemu.pid" "$dir/mon.sock" "$dir/monitor.log"
truncate -s 64M "$dir/nvme.img" "$dir/vblk.img"
: >"$dir/results.txt"

qpid=
netns_made=
netns_del() {	# the taps and the bridge, then the namespace
	[ -n "$netns_made" ] || return 0
	ip -n "$netns" link del mqtap0 2>/dev/null
	ip -n "$netns" link del mqtap1 2>/dev/null
	ip -n "$netns" link del mqbr 2>/dev/null
	ip netns del "$netns" 2>/dev/null
	netns_made=
}
stop() {	# the launcher (timeout), then QEMU itself by its pid file
	[ -n "$qpid" ] && kill -TERM "$qpid" 2>/dev/null
	local p
	p=$(cat "$dir/qemu.pid" 2>/dev/null)
	if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
		sleep 0.5
		kill -KILL "$p" 2>/dev/null
	fi
	[ -n "$qpid" ] && wait "$qpid" 2>/dev/null
	qpid=
	netns_del
}
trap 'stop; exit 130' INT TERM
trap stop EXIT

if [ -n "$netns" ]; then
	# the bridge of two multi-queue taps, nothing else: no route out
	netns_made=1
	if ! err=$({ ip netns add "$netns" &&
		ip -n "$netns" link add mqbr type bridge &&
		ip -n "$netns" tuntap add dev mqtap0 mode tap multi_queue &&
		ip -n "$netns" tuntap add dev mqtap1 mode tap multi_queue &&
		ip -n "$netns" link set mqtap0 master mqbr &&
		ip -n "$netns" link set mqtap1 master mqbr &&
		ip -n "$netns" link set mqtap0 up &&
		ip -n "$netns" link set mqtap1 up &&
		ip -n "$netns" link set mqbr up; } 2>&1); then
		echo "cannot make the network namespace $netns of the multi-queue taps: $err" >&2
		exit 3
	fi
fi
timeout -k 5 "$limit" "${in_ns[@]}" qemu-system-x86_64 "${common[@]}" "${cpus[@]}" "${devices[@]}" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 quiet panic=-1 noirqdebug no_timer_check ${VM_APPEND:-}" \
	-serial "file:$dir/console.log" -serial "file:$dir/results.txt" \
	-monitor "unix:$dir/mon.sock,server,nowait" -pidfile "$dir/qemu.pid" \
	>"$dir/qemu.log" 2>&1 &
qpid=$!

# QEMU's CPU time (user + system, clock ticks), kept up to date in DIR/cpu:
# one single-threaded TCG guest's need of a host core, whatever else the
# host runs (the suite's time table)
served=0 qp=
while kill -0 "$qpid" 2>/dev/null; do
	[ -n "$qp" ] || qp=$(cat "$dir/qemu.pid" 2>/dev/null)
	if [ -n "$qp" ] && read -r -a st <"/proc/$qp/stat" 2>/dev/null; then
		echo "$((st[13] + st[14]))" >"$dir/cpu"
	fi
	n=$(grep -c '^@@UNPLUG nvme' "$dir/results.txt" 2>/dev/null)
	if [ "${n:-0}" -gt "$served" ]; then
		echo "device_del nvme0" | socat - "UNIX-CONNECT:$dir/mon.sock" >>"$dir/monitor.log" 2>&1
		served=$n
	fi
	sleep 0.2
done
wait "$qpid"
rc=$?
qpid=
# A panic powers off too (panic=-1 reboots, -no-reboot exits): not a pass.
if grep -q "Kernel panic" "$dir/console.log" 2>/dev/null; then
	echo "the guest kernel panicked: $(grep -m1 "Kernel panic" "$dir/console.log" | tr -d '\r')" >&2
	exit 5
fi
case $rc in
0)	exit 0 ;;
124|137)
	echo "the guest did not power off within ${limit} s: killed (last console line: $(tail -1 "$dir/console.log" 2>/dev/null | tr -d '\r'))" >&2
	exit 4 ;;
*)	if [ ! -s "$dir/console.log" ]; then
		echo "QEMU could not start (exit $rc): $(tail -3 "$dir/qemu.log" | tr '\n' ' ')" >&2
		exit 3
	fi
	echo "QEMU exited $rc: $(tail -3 "$dir/qemu.log" | tr '\n' ' ')" >&2
	exit 3 ;;
esac
