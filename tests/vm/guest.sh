#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/guest.sh - the guest side of make check-vm, run by the
# initramfs's /init as the guest's only program. It runs irqtune, for real
# (this is a throwaway machine), collects what the host needs to judge it,
# and writes all of it to the second serial port (ttyS1), never judging:
#
#	@@ KEY VALUE		one fact
#	@@BEGIN NAME ... @@END NAME	one file
#	@@UNPLUG nvme		asks the host to unplug the NVMe drive now
#	@@DONE			everything was said
#
# Then it powers the machine off. irqtune.machine=a|b on the kernel command
# line says which machine this is (tests/vm/machine.sh).
exec 3>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null
say() { echo "@@ $*" >&3; }
put() {	# NAME FILE
	echo "@@BEGIN $1" >&3
	cat "$2" >&3 2>/dev/null
	echo "@@END $1" >&3
}
step() { say step "$1 $(cut -d' ' -f1 /proc/uptime)"; }
finish() { echo "@@DONE" >&3; sync; poweroff -f; }
trap finish EXIT

machine=$(sed -n 's/.*irqtune\.machine=\([a-z]\).*/\1/p' /proc/cmdline)
# the second hub NIC's model: e1000e, or virtio where the kernel has no
# e1000e driver (tests/vm/machine.sh VM_PEER_NIC)
peerkind=$(sed -n 's/.*irqtune\.peer=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
# iproute2's ip: busybox sh runs its own applet for a bare "ip", which
# has no netns.
IP=/usr/sbin/ip
TR=/sys/kernel/tracing
mount -t tracefs nodev $TR 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 2>/dev/null

say kernel "$(uname -r)"
say version "$(uname -v)"
say cpus "$(cat /sys/devices/system/cpu/online)"
say nodes "$(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)"
say btf "$([ -e /sys/kernel/btf/vmlinux ] && echo yes || echo no)"
say peerkind "${peerkind:-e1000e}"
say irqtune "$(irqtune --version 2>&1 | head -1)"
[ -e /mods/order ] && say modules "$(tr '\n' ' ' </mods/order)"

# Every NIC up: drivers request their queue IRQs when opened.
for n in /sys/class/net/*; do
	[ "${n##*/}" = lo ] || ip link set "${n##*/}" up
done
ip link set lo up
sleep 2

# The ground truth of which IRQ belongs to which device, from the kernel
# alone: per PCI function its driver (a virtio function's: its virtio
# device's), its net interfaces and its MSI vectors.
devmap() {
	for d in /sys/bus/pci/devices/*; do
		[ -d "$d/msi_irqs" ] || continue
		drv=$(basename "$(readlink "$d/driver" 2>/dev/null)")
		for v in "$d"/virtio*; do
			[ -e "$v/driver" ] && drv=$(basename "$(readlink "$v/driver")")
		done
		nets=$(ls "$d"/net "$d"/virtio*/net 2>/dev/null | grep -v ':$' | tr '\n' ',')
		echo "dev ${d##*/} $drv ${nets:--} $(ls "$d/msi_irqs" | sort -n | tr '\n' ' ')"
	done
}
devmap >/tmp/devmap
put devmap /tmp/devmap
put interrupts /proc/interrupts
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	echo "${c##*/} $(cat "$c/topology/core_id") $(cat "$c/topology/thread_siblings_list")"
done >/tmp/topology
put topology /tmp/topology
for i in /proc/irq/[0-9]*; do echo "${i##*/} $(stat -c %a $i/smp_affinity_list)"; done >/tmp/modes
put modes /tmp/modes

# affinities FILE: every IRQ's smp_affinity_list and effective one
affinities() {
	for i in /proc/irq/[0-9]*; do
		echo "${i##*/} $(cat "$i/smp_affinity_list" 2>/dev/null || echo -) $(cat "$i/effective_affinity_list" 2>/dev/null || echo -)"
	done >"$1"
}

# run NAME ARGS...: irqtune ARGS; NAME.json (or .out) and its status
run() {
	local name=$1
	shift
	irqtune "$@" >/tmp/$name.out 2>/tmp/$name.err
	say rc "$name $?"
	put "$name.out" /tmp/$name.out
	put "$name.err" /tmp/$name.err
}

### 1. naming and classifying; 4. the measured source, named
step classify
run classify --dry-run --json -w 1 --no-state
run verbose --dry-run -v -w 1 --no-state

### the loads: O_DIRECT|O_DSYNC writes to both drives; UDP between the hub
### NICs (virtio-net and the e1000e, or a second virtio-net), one of them in
### a namespace of its own, over IPv6 link-local addresses. A virtio-net
### with more than one transmit queue is one of machine b's multi-queue
### NICs (mqnics), flooded on their own bridge (mqflood below).
vnic= enic= mqnics=
while read -r _ addr drv nets _; do
	n=${nets%%,*}
	case "$drv" in
	virtio_net)
		if [ "$(ls -d /sys/class/net/$n/queues/tx-* 2>/dev/null | wc -l)" -gt 1 ]; then
			mqnics="$mqnics $n"
		elif [ -z "$vnic" ]; then vnic=$n
		elif [ "$peerkind" = virtio ]; then enic=$n
		fi ;;
	e1000e) enic=$n ;;
	esac
done </tmp/devmap
say mqnics "${mqnics# }"
nvme=$(ls /dev/nvme0n1 2>/dev/null)
vblk=$(ls /dev/vda 2>/dev/null)
say loaddevs "nvme=${nvme:--} vblk=${vblk:--} vnic=${vnic:--} enic=${enic:--}"
netok=
if [ -n "$vnic" ] && [ -n "$enic" ] && $IP netns add peer 2>/tmp/netns.err &&
   $IP link set "$enic" netns peer 2>>/tmp/netns.err &&
   $IP netns exec peer $IP link set "$enic" up 2>>/tmp/netns.err &&
   $IP netns exec peer $IP link set lo up; then
	# the link-local address comes when the link is up: on a slow guest
	# (PREEMPT_RT on a busy host) that took more than 2 s
	for _ in $(seq 40); do
		peer6=$($IP netns exec peer $IP -6 addr show dev "$enic" scope link |
			sed -n 's/.*inet6 \(fe80[^/]*\)\/.*/\1/p' | head -1)
		[ -n "$peer6" ] && break
		sleep 0.5
	done
	[ -n "$peer6" ] && netok=1
	say peer "$enic $peer6"
else
	put netns.err /tmp/netns.err
fi
loadpids=
start_load() {	# SECONDS
	[ -n "$nvme" ] && { loadgen disk "$nvme" "$1" >/dev/null & loadpids="$loadpids $!"; }
	[ -n "$vblk" ] && { loadgen disk "$vblk" "$1" >/dev/null & loadpids="$loadpids $!"; }
	if [ -n "$netok" ]; then
		$IP netns exec peer loadgen sink 9999 "$1" >/tmp/sink.out &
		loadpids="$loadpids $!"
		sleep 0.3
		loadgen send6 "$peer6" "$vnic" 9999 "$1" >/tmp/send.out &
		loadpids="$loadpids $!"
	fi
}
stop_load() {
	[ -n "$loadpids" ] && kill $loadpids 2>/dev/null
	wait $loadpids 2>/dev/null
	loadpids=
}

# The kernel's own account of a window: a private trace instance on the
# monotonic clock, summed for [from, to] of irqtune's JSON. Per IRQ: its
# handlers' time (irq_handler_entry..exit) and the softirq time attributed
# to it as irqtune(8) attributes it (NET_RX polls to their interface's
# IRQs, the rest of NET_RX and NET_TX to the CPU's net IRQs, BLOCK and
# IRQ_POLL to its storage IRQs, each by handler time on that CPU), hard
# irqs nested in a softirq taken out of it. Lines "ref IRQ HARD SOFT", s.
inst=$TR/instances/irqtune-vm
trace_start() {
	mkdir $inst || return 1
	echo mono >$inst/trace_clock
	echo 8192 >$inst/buffer_size_kb
	for e in irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit napi/napi_poll; do
		echo 1 >$inst/events/$e/enable
	done
	echo 1 >$inst/tracing_on
}
trace_stop() {	# NAME
	echo 0 >$inst/tracing_on
	cat $inst/trace >/tmp/$1.trace
	cat $inst/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }' >/tmp/$1.overrun
	rmdir $inst
}
jnum() { sed -n "s/.*\"$1\": *\([0-9.]*\).*/\1/p" "$2" | head -1; }
reference() {	# NAME: from /tmp/NAME.trace and the window of /tmp/NAME.out
	local from to
	from=$(jnum window_from_monotonic /tmp/$1.out)
	to=$(jnum window_to_monotonic /tmp/$1.out)
	[ -n "$from" ] && [ -n "$to" ] || { echo "nowindow"; return; }
	awk -v from="$from" -v to="$to" -v map=/tmp/devmap '
	BEGIN {
		while ((getline l < map) > 0) {
			n = split(l, f, " ")
			cls = (f[3] == "nvme" || f[3] == "virtio_blk") ? "storage" :
			      (f[3] == "virtio_net" || f[3] == "e1000e") ? "net" : "other"
			m = split(f[4], ifs, ",")
			for (i = 5; i <= n; i++) {
				class[f[i]] = cls
				for (k = 1; k <= m; k++) if (ifs[k] != "" && ifs[k] != "-") ifirqs[ifs[k]] = ifirqs[ifs[k]] " " f[i]
			}
		}
	}
	{
		if (!match($0, /\[[0-9]+\] /)) next
		cpu = substr($0, RSTART + 1, RLENGTH - 3) + 0
		n = split(substr($0, RSTART + RLENGTH), f, " ")
		if (n < 4) next
		ts = f[2]; sub(/:$/, "", ts); ts += 0
		ev = f[3]; sub(/:$/, "", ev)
		split(f[4], kv, "="); x = kv[2]
		if (ts < from || ts > to) { hs[cpu] = 0; ss[cpu] = 0; next }
	}
	ev == "irq_handler_entry" { hs[cpu] = ts; hi[cpu] = x; next }
	ev == "irq_handler_exit" {
		if (hs[cpu] > 0 && hi[cpu] == x) {
			d = ts - hs[cpu]
			hard[x] += d; hc[cpu, x] += d; cpus[cpu] = 1; irqs[x] = 1
			if (ss[cpu] > 0) { nest[cpu] += d; pnest[cpu] += d }
		}
		hs[cpu] = 0; next
	}
	ev == "softirq_entry" { ss[cpu] = ts; sv[cpu] = x; nest[cpu] = 0; ps[cpu] = ts; pnest[cpu] = 0; next }
	ev == "napi_poll" {
		if (ss[cpu] > 0 && sv[cpu] == 3) {
			for (i = 1; i <= n; i++) if (f[i] == "device") dev = f[i + 1]
			d = ts - ps[cpu] - pnest[cpu]
			napi[cpu, dev] += d; devs[dev] = 1; polled[cpu] += d
			ps[cpu] = ts; pnest[cpu] = 0
		}
		next
	}
	ev == "softirq_exit" {
		if (ss[cpu] > 0 && sv[cpu] == x) { soft[cpu, x] += ts - ss[cpu] - nest[cpu]; cpus[cpu] = 1 }
		ss[cpu] = 0; next
	}
	# share T of CPU c among its IRQs of class k by handler time there
	function share(c, k, t,   i, s) {
		s = 0
		for (i in irqs) if (class[i] == k) s += hc[c, i]
		if (s <= 0) {	# none fired there: all of the class, by handler time
			for (i in irqs) if (class[i] == k) s += hard[i]
			if (s <= 0) { lost[k] += t; return }
			for (i in irqs) if (class[i] == k) sft[i] += t * hard[i] / s
			return
		}
		for (i in irqs) if (class[i] == k) sft[i] += t * hc[c, i] / s
	}
	END {
		for (c in cpus) {
			for (dv in devs) {
				t = napi[c, dv]
				if (t <= 0) continue
				s = 0; local_ = 1; split(ifirqs[dv], li, " ")
				for (j in li) s += hc[c, li[j]]
				if (s <= 0) { local_ = 0; for (j in li) s += hard[li[j]] }
				if (s <= 0) { lost["napi"] += t; continue }
				for (j in li) sft[li[j]] += t * (local_ ? hc[c, li[j]] : hard[li[j]]) / s
			}
			share(c, "net", soft[c, 3] - polled[c] + soft[c, 2])
			share(c, "storage", soft[c, 4] + soft[c, 5])
		}
		w = to - from
		for (i in irqs) printf "ref %s %.9f %.9f\n", i, hard[i] / w, sft[i] / w
		for (k in lost) printf "lost %s %.9f\n", k, lost[k] / w
		printf "window %.6f %.6f\n", from, to
	}' /tmp/$1.trace
}

# until_flowing NAME: until the drives' queues have had 100 interrupts
# since the loads started (5 s at most; a window without load proves
# nothing, and a starved guest says so)
disk_irqs() {
	awk '/nvme0q[1-9]|virtio0-req/ { for (c = 2; c <= NF && $c ~ /^[0-9]+$/; c++) s += $c } END { print s + 0 }' /proc/interrupts
}
until_flowing() {
	local t0 t1 i
	t0=$(disk_irqs)
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.5
		t1=$(disk_irqs)
		[ $((t1 - t0)) -ge 100 ] && return 0
	done
	say slowload "$1 $((t1 - t0)) disk interrupts in 5 s"
}

# The irq threads (PREEMPT_RT, threadirqs): their pids, "PID IRQ NAME".
irqthreads() {
	for p in /proc/[0-9]*; do
		c=$(cat "$p/comm" 2>/dev/null)
		case "$c" in irq/[0-9]*)
			i=${c#irq/}; echo "${p##*/} ${i%%-*} $c" ;;
		esac
	done
}

# measured NAME BUILD ARGS...: one irqtune of ARGS under the loads, with
# IRQTUNE_BPF_BUILD=BUILD unless BUILD is "-";
# the trace recording the same window and the irq threads' run time
# sampled every 20 ms; NAME.out, NAME.ref, NAME.sched
measured() {
	local name=$1 build=$2 pids
	shift 2
	# Loads that outlast any setup: enabling trace events and attaching the
	# program patch kernel text, which under TCG takes seconds. They are
	# stopped as soon as irqtune returns.
	start_load 90
	say t "$name loads $(cut -d' ' -f1 /proc/uptime)"
	until_flowing "$name"
	irqthreads >/tmp/$name.threads
	pids=$(cut -d' ' -f1 /tmp/$name.threads)
	trace_start || say trace "$name cannot make a trace instance"
	say t "$name traced $(cut -d' ' -f1 /proc/uptime)"
	[ -n "$pids" ] && { loadgen schedmon 20 60 $pids >/tmp/$name.sched & smpid=$!; }
	if [ "$build" = - ]; then irqtune "$@"; else env IRQTUNE_BPF_BUILD="$build" irqtune "$@"; fi \
		>/tmp/$name.out 2>/tmp/$name.err
	say rc "$name $?"
	say t "$name ran $(cut -d' ' -f1 /proc/uptime)"
	[ -n "$pids" ] && { sleep 0.1; kill $smpid; wait $smpid; }
	trace_stop "$name"
	stop_load
	say t "$name stopped $(cut -d' ' -f1 /proc/uptime)"
	reference "$name" >/tmp/$name.ref
	say t "$name referenced $(cut -d' ' -f1 /proc/uptime)"
	say overrun "$name $(cat /tmp/$name.overrun)"
	say tracelines "$name $(wc -l </tmp/$name.trace)"
	rm -f /tmp/$name.trace
	for f in out err ref threads sched; do put "$name.$f" /tmp/$name.$f; done
	cat /tmp/send.out /tmp/sink.out 2>/dev/null | tr '\n' ' ' | sed 's/^/@@ net /' >&3; echo >&3
}

### 7. the network path: NAPI threads and XPS follow the IRQs.
### netpath_step NIC...: threaded NAPI on for those NICs, one real run, then
### one with xps and napi-threads off.
netpath_step() {
	step netpath
	# The e1000e back in this namespace (deleting the namespace returns a
	# physical NIC to the initial one): irqtune sees the interfaces of its
	# own namespace only.
	$IP netns del peer 2>/dev/null
	sleep 1
	for n in "$@"; do
		ip link set "$n" up
		echo 1 >/sys/class/net/$n/threaded 2>/tmp/threaded.err || say threaded "$n refused: $(cat /tmp/threaded.err)"
	done
	sleep 1
	# "PID COMM CPUS" per NAPI thread; "IF/tx-N MASK" per transmit queue
	napis() {
		for p in /proc/[0-9]*; do
			c=$(cat "$p/comm" 2>/dev/null)
			case "$c" in napi/*)
				echo "${p##*/} $c $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$p/status")" ;;
			esac
		done
	}
	xpsmasks() {
		for q in /sys/class/net/*/queues/tx-*; do
			[ -e "$q" ] || continue
			m=$(cat "$q/xps_cpus" 2>&1) || m="unreadable:$(echo "$m" | sed 's/.*: //' | tr ' ' _)"
			echo "$(echo "$q" | cut -d/ -f5)/${q##*/} $m"
		done
	}
	napis >/tmp/napi.before
	xpsmasks >/tmp/xps.before
	run netpath --json -w 1 --no-state
	napis >/tmp/napi.after
	xpsmasks >/tmp/xps.after
	affinities /tmp/netpath.aff
	# With both keys off nothing of the network path is written: every
	# thread first on every CPU, then a run that must leave them so.
	for p in $(cut -d' ' -f1 /tmp/napi.after); do taskset -pc "$(cat /sys/devices/system/cpu/online)" "$p" >/dev/null 2>&1; done
	printf 'xps = off\nnapi-threads = off\n' >/tmp/off.conf
	napis >/tmp/napi.off.before
	xpsmasks >/tmp/xps.off.before
	run netoff --json -w 1 --no-state -c /tmp/off.conf
	napis >/tmp/napi.off.after
	xpsmasks >/tmp/xps.off.after
	for f in napi.before xps.before napi.after xps.after netpath.aff napi.off.before xps.off.before \
		 napi.off.after xps.off.after; do
		put "$f" "/tmp/$f"
	done
	put netpath.interrupts /proc/interrupts
}

if [ "$machine" = a ]; then
	### 4. measured load against the kernel's own account, per build
	step measure
	for b in handlers context; do
		measured "m-$b" "$b" -n --json --no-state --load-source=bpf -w 3
	done
	### 5. the proc source, after a measured run recorded this guest's costs
	### (a dry run records them only when a state-dir asks it to)
	step proc
	printf 'state-dir = /run/irqtune\n' >/tmp/keep.conf
	measured m-costs - -n --json --load-source=bpf -w 3 -c /tmp/keep.conf
	put costs /run/irqtune/costs
	measured p-proc - -n --json --load-source=proc -w 3
fi

### 2. and 3. a real run: managed IRQs predicted, the writes land
step real
start_load 60
sleep 1
affinities /tmp/before
run real --json -w 2
stop_load
affinities /tmp/after
# x86 moves an MSI without interrupt remapping at its next interrupt
# (GENERIC_PENDING_IRQ): effective_affinity_list changes then. A burst of
# the loads makes the queues fire; the host judges only IRQs that did.
cp /proc/interrupts /tmp/intr1
start_load 2
sleep 2.5
stop_load
affinities /tmp/after2
put real.intr1 /tmp/intr1
put real.intr2 /proc/interrupts
put real.after2 /tmp/after2
put real.before /tmp/before
put real.after /tmp/after
ls /sys/fs/bpf /run/irqtune >/tmp/runfiles 2>&1
put runfiles /tmp/runfiles
# A managed IRQ that must move: its CPU banned. Before Linux 6.12 its
# affinity file is writable, so only the refused write tells; either way
# it must come out kernel-managed, never failed.
run ban --json -w 1 --bancpus 0

if [ "$machine" = a ]; then
	### 8. the pinned application (issue 31): CPU-bound threads of one
	### process pinned to two CPUs of the four, the disk and network loads
	### on; one real run must leave no busy IRQ on those CPUs. From this
	### window alone (--no-state): the history of the runs above saw no
	### application, and smoothing it in is the history's business, proved
	### on simulated machines.
	app_pinned() {	# NAME CPULIST OTHER-CPULIST
		local name=$1 cpus=$2 others=$3 spid t irq list
		step "$name"
		loadgen spin "$cpus" 90 >/tmp/$name.spin 2>&1 &
		spid=$!
		start_load 90
		until_flowing "$name"
		# "TID CPUS" per thread of the application, as the kernel has them
		for t in /proc/$spid/task/*; do
			echo "${t##*/} $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$t/status")"
		done >/tmp/$name.threads
		grep '^cpu[0-9]' /proc/stat >/tmp/$name.stat1
		affinities /tmp/$name.before
		run "$name" --json -w 2 --no-state
		grep '^cpu[0-9]' /proc/stat >/tmp/$name.stat2
		affinities /tmp/$name.after
		# the loads still on: a moved MSI takes its new CPU at its next
		# interrupt (x86 without interrupt remapping), as in "real" above
		cp /proc/interrupts /tmp/$name.intr1
		sleep 2.5
		cp /proc/interrupts /tmp/$name.intr2
		affinities /tmp/$name.after2
		stop_load
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		# Which IRQs left on those CPUs could move at all: a kernel-managed
		# one (a multi-queue device's per-CPU vector) refuses the write,
		# EIO before Linux 6.12, where its file is still writable. Each
		# write that lands is put back at once. "IRQ refused|accepted"
		awk -v p="$cpus" '{ n = split($2, part, ","); split(p, r, "-")
			for (k = 1; k <= n; k++) { m = split(part[k], c, "-")
				for (x = c[1]; x <= c[m]; x++) if (x >= r[1] && x <= r[2]) { print $1, $2; next } } }' \
			/tmp/$name.after2 | while read -r irq list; do
			if echo "$others" >/proc/irq/$irq/smp_affinity_list 2>/dev/null; then
				echo "$list" >/proc/irq/$irq/smp_affinity_list 2>/dev/null
				echo "$irq accepted"
			else
				echo "$irq refused"
			fi
		done >/tmp/$name.probe
		for t in threads stat1 stat2 before after intr1 intr2 after2 spin probe; do
			put "$name.$t" "/tmp/$name.$t"
		done
	}
	app_pinned app-23 2-3 0-1
	app_pinned app-01 0-1 2-3
fi

if [ "$machine" = a ]; then
	### 6. faults
	progs() { bpftool prog show 2>/dev/null | grep -Ec ' name ((btf|raw)_(hard|soft|napi)_|ctx_e)'; }
	step sigterm
	affinities /tmp/before
	irqtune --json -w 20 >/tmp/term.out 2>/tmp/term.err &
	p=$!
	loaded=0
	for _ in $(seq 100); do loaded=$(progs); [ "$loaded" -gt 0 ] && break; sleep 0.1; done
	sleep 0.5
	kill -TERM $p
	wait $p
	say rc "term $?"
	say progs_in_window "$loaded"
	left=1
	for _ in $(seq 50); do left=$(progs); [ "$left" -eq 0 ] && break; sleep 0.1; done
	say progs_left "$left"
	say instances "$(ls $TR/instances 2>/dev/null | tr '\n' ' ')."
	affinities /tmp/after
	put term.before /tmp/before
	put term.after /tmp/after
	put term.out /tmp/term.out
	put term.err /tmp/term.err

	step offline
	last=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
	affinities /tmp/before
	irqtune --json -w 4 >/tmp/offline.out 2>/tmp/offline.err &
	p=$!
	sleep 2
	echo 0 >/sys/devices/system/cpu/cpu$last/online
	say offlined "$last $?"
	wait $p
	say rc "offline $?"
	say online "$(cat /sys/devices/system/cpu/online)"
	affinities /tmp/after
	put offline.before /tmp/before
	put offline.after /tmp/after
	put offline.out /tmp/offline.out
	put offline.err /tmp/offline.err
	echo 1 >/sys/devices/system/cpu/cpu$last/online

	step unplug
	affinities /tmp/before
	irqtune --json -w 8 >/tmp/unplug.out 2>/tmp/unplug.err &
	p=$!
	sleep 1
	echo "@@UNPLUG nvme" >&3
	gone=
	for _ in $(seq 100); do
		[ -e /sys/class/nvme/nvme0 ] || { gone=$(cut -d' ' -f1 /proc/uptime); break; }
		sleep 0.1
	done
	wait $p
	say rc "unplug $?"
	say nvme_gone "${gone:-no}"
	affinities /tmp/after
	put unplug.before /tmp/before
	put unplug.after /tmp/after
	put unplug.out /tmp/unplug.out
	put unplug.err /tmp/unplug.err
	put unplug.interrupts /proc/interrupts

fi

if [ "$machine" = a ]; then
	netpath_step $vnic $enic
fi

### 9. machine b's multi-queue NICs: a flood between the two, one of them in
### a namespace of its own, over their bridge (in a namespace of the host's
### made for this guest: nothing leaves it); one sender per CPU and
### direction, so that every transmit queue (chosen by the sending CPU) and
### every receive queue (chosen by the tap's flow hash) has work. Then both
### back in this namespace, where irqtune sees them, for the network path.
# lladdr [NS] IF: its IPv6 link-local address, once it has one
lladdr() {
	local ns= a
	[ $# = 2 ] && { ns="$IP netns exec $1"; shift; }
	for _ in $(seq 40); do
		a=$($ns $IP -6 addr show dev "$1" scope link | sed -n 's/.*inet6 \(fe80[^/]*\)\/.*/\1/p' | head -1)
		[ -n "$a" ] && { echo "$a"; return 0; }
		sleep 0.5
	done
	return 1
}
mqflood() {	# NIC-A NIC-B
	local a=$1 b=$2 a6 b6 c
	step mqflood
	$IP netns add mqpeer && $IP link set "$b" netns mqpeer &&
		$IP netns exec mqpeer $IP link set "$b" up && $IP netns exec mqpeer $IP link set lo up ||
		{ say mqflood "cannot put $b into a namespace"; return; }
	ip link set "$a" up
	a6=$(lladdr "$a") b6=$(lladdr mqpeer "$b")
	say mqpeer "$a $a6 $b $b6"
	cp /proc/interrupts /tmp/mq.intr1
	if [ -n "$a6" ] && [ -n "$b6" ]; then
		$IP netns exec mqpeer loadgen sink 9998 4 >/tmp/mq.sinkb &
		loadgen sink 9997 4 >/tmp/mq.sinka &
		sleep 0.3
		for c in $(seq 0 $(($(nproc) - 1))); do
			taskset -c "$c" loadgen send6 "$b6" "$a" 9998 2 >>/tmp/mq.send 2>&1 &
			$IP netns exec mqpeer taskset -c "$c" loadgen send6 "$a6" "$b" 9997 2 >>/tmp/mq.send 2>&1 &
		done
		wait
	fi
	cp /proc/interrupts /tmp/mq.intr2
	say mqnet "$(cat /tmp/mq.sinka /tmp/mq.sinkb 2>/dev/null | tr '\n' ' ')sent: $(awk '{ s += $2 } END { print s + 0 }' /tmp/mq.send 2>/dev/null)"
	put mq.intr1 /tmp/mq.intr1
	put mq.intr2 /tmp/mq.intr2
	# deleting the namespace returns the NIC to this one
	$IP netns del mqpeer
	for _ in $(seq 20); do [ -e "/sys/class/net/$b" ] && break; sleep 0.2; done
}
if [ "$machine" = b ]; then
	set -- $mqnics
	[ $# = 2 ] && mqflood "$1" "$2"
	netpath_step $vnic $enic $mqnics
fi
step done
