#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/judge.sh - the host side of make check-vm: reads what one guest
# said on its second serial port and judges it, one "PASS TAG-check",
# "FAIL TAG-check: why" line per check, plus "info" lines with the figures.
#
#	judge.sh DIR TAG MACHINE
#
# DIR holds results.txt (from tests/vm/guest.sh); its parts are split into
# DIR/f/NAME. The guest only collects; every threshold is here.
set -u
dir=$1 tag=$2 machine=$3
f=$dir/f
rm -rf "$f"
mkdir -p "$f"
tr -d '\r' <"$dir/results.txt" | awk -v d="$f" '
	/^@@BEGIN / { out = d "/" $2; printf "" > out; next }
	/^@@END / { close(out); out = ""; next }
	out != "" { print >> out; next }
	/^@@ / { sub(/^@@ /, ""); print >> (d "/facts") }
	/^@@DONE/ { print "done" >> (d "/facts") }'
touch "$f/facts"

pass() { echo "PASS $tag $1"; }
fail() { echo "FAIL $tag $1: $2"; }
info() { echo "info $tag $*"; }
fact() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$f/facts"; }
rc_of() { awk -v k="$1" '$1 == "rc" && $2 == k { print $3; exit }' "$f/facts"; }
json_ok() { [ -s "$f/$1" ] && jq -e . "$f/$1" >/dev/null 2>&1; }

if ! grep -qx done "$f/facts"; then
	fail boot "the guest did not finish (last step: $(awk '$1 == "step" { s = $2 } END { print s ? s : "none" }' "$f/facts"))"
fi
info "kernel $(fact kernel), cpus $(fact cpus), $(fact nodes) NUMA nodes, BTF $(fact btf)"
# Where the guest's time went: seconds per step, by its uptime ("boot" is
# the kernel and /init up to the first step).
info "steps (s): $(awk '$1 == "step" { if (p != "") printf "%s %.1f, ", p, $3 - t; else printf "boot %.1f, ", $3; p = $2; t = $3 }' "$f/facts")"

# The devices the checks are about, from the guest's own sysfs: per PCI
# function "ADDR DRIVER CLASS IRQ...", only IRQs /proc/interrupts lists.
awk 'NR == FNR { if ($1 ~ /:$/) { sub(":", "", $1); live[$1] = 1 } next }
	$1 == "dev" {
		c = ($3 == "nvme" || $3 == "virtio_blk") ? "storage" : (($3 == "virtio_net" || $3 == "e1000e") ? "net" : "")
		if (c == "") next
		l = ""
		for (i = 5; i <= NF; i++) if (live[$i]) l = l " " $i
		print $2, $3, c l
	}' "$f/interrupts" "$f/devmap" >"$f/devices"

### 1. naming and classifying
classify() {
	local j=$f/classify.out bad="" n=0 addr drv cls irqs irq got
	json_ok classify.out || { fail classify "no JSON (exit $(rc_of classify)): $(head -3 "$f/classify.err")"; return; }
	while read -r addr drv cls irqs; do
		for irq in $irqs; do
			n=$((n + 1))
			got=$(jq -r --argjson i "$irq" '[.irqs[] | select(.irq == $i)][0] |
				if . == null then "absent" else "\(.name)|\(.device)|\(.label)|\(.class)" end' "$j")
			case "$got" in
			"absent") bad="$bad irq $irq ($drv) absent;" ;;
			"|"*|*"||"*) bad="$bad irq $irq ($drv) unnamed: $got;" ;;
			*"|$addr|"*"|$cls") ;;
			*) bad="$bad irq $irq ($drv $addr) as $got, want $cls;" ;;
			esac
		done
	done <"$f/devices"
	# a kernel without the e1000e driver has a second virtio-net instead
	want="nvme virtio_blk virtio_net e1000e"
	[ "$(fact peerkind)" = virtio ] && want="nvme virtio_blk virtio_net"
	for drv in $want; do
		grep -q " $drv " "$f/devices" || bad="$bad no $drv device with IRQs;"
	done
	if [ -z "$bad" ] && [ "$n" -gt 0 ]; then pass classify; else fail classify "${bad:-no IRQ}"; fi
}
classify

### 4a. the measured source, used and named
source_used() {
	local r j=$f/classify.out
	r=$(jq -r '"\(.load_source): \(.load_source_reason)"' "$j" 2>/dev/null)
	info "load source: $r"
	if [ "$(fact btf)" != yes ]; then
		fail source "the kernel has no BTF: $r"
	elif [[ "$r" == "bpf: "*"measured in the kernel ("*")"* ]] &&
	     grep -q 'hard-irq' "$f/verbose.out"; then
		pass source
	else
		fail source "auto did not measure, or the report does not name the build: $r / $(tail -1 "$f/verbose.out")"
	fi
}
source_used

### 2. managed IRQs: predicted where the kernel shows them (a read-only
### smp_affinity_list, Linux 6.12 on), never a failed write; with the CPU
### of one banned, its refused write reported as kernel-managed
managed() {
	local nv q bad="" mode name o run ro=0 rw=0 banned=0
	nv=$(awk '$2 == "nvme" { $1 = $2 = $3 = ""; print }' "$f/devices")
	[ -n "$nv" ] || { fail managed "no NVMe IRQs"; return; }
	for run in classify real ban; do
		json_ok $run.out || { fail managed "the $run run printed no JSON (exit $(rc_of $run)): $(head -3 "$f/$run.err")"; return; }
	done
	for q in $nv; do
		name=$(jq -r --argjson i "$q" '.irqs[] | select(.irq == $i) | .name' "$f/real.out")
		[ "${name#nvme*q}" = 0 ] && continue	# the admin queue is not managed
		mode=$(awk -v i="$q" '$1 == i { print $2 }' "$f/modes")
		case "$mode" in
		*[2367]*) rw=$((rw + 1)) ;;
		*)
			ro=$((ro + 1))
			for run in classify real ban; do
				o=$(jq -r --argjson i "$q" '.irqs[] | select(.irq == $i) | .outcome' "$f/$run.out")
				[ "$o" = kernel_managed ] || bad="$bad $run: $name (irq $q, mode $mode) $o;"
			done ;;
		esac
		# on the banned CPU: it had to move, and cannot
		if [ "$(jq -r --argjson i "$q" '.irqs[] | select(.irq == $i) | .from' "$f/ban.out")" = 0 ]; then
			banned=$((banned + 1))
			o=$(jq -r --argjson i "$q" '.irqs[] | select(.irq == $i) | .outcome' "$f/ban.out")
			[ "$o" = kernel_managed ] || bad="$bad --bancpus 0: $name $o;"
		fi
	done
	for run in real ban; do
		failed=$(jq -r '[.irqs[] | select(.outcome == "failed") | "\(.irq) \(.name)"] | join(", ")' "$f/$run.out")
		[ -z "$failed" ] || bad="$bad $run: failed writes: $failed;"
		[ "$(rc_of $run)" = 0 ] || bad="$bad $run: exit $(rc_of $run);"
	done
	[ "$banned" -gt 0 ] || bad="$bad no NVMe queue on CPU 0 to ban;"
	info "managed: $ro NVMe I/O queues with a read-only smp_affinity_list (predicted), $rw writable (before Linux 6.12: known only by the refused write); $banned on the banned CPU 0; real run $(jq -c .summary "$f/real.out")"
	if [ -z "$bad" ]; then pass managed; else fail managed "$bad"; fi
}
managed

### 3. the writes land. x86 without interrupt remapping moves an MSI at an
### interrupt after the write (GENERIC_PENDING_IRQ): until then the old CPU
### is the effective one. An IRQ with 3 interrupts or more in the burst
### after the run must show the reported CPU as effective; one with fewer
### is pending, and only its smp_affinity_list is held to the report.
writes() {
	local bad="" ok=0 pend=0 irq to aff eff fired
	json_ok real.out || { fail writes "no JSON from the real run"; return; }
	while read -r irq to; do
		aff=$(awk -v i="$irq" '$1 == i { print $2 }' "$f/real.after")
		eff=$(awk -v i="$irq" '$1 == i { print $3 }' "$f/real.after2")
		fired=$(awk -v i="$irq" 'FNR == 1 { k++ } { r = $1; sub(":", "", r) }
			r == i { s = 0; for (c = 2; c <= NF && $c ~ /^[0-9]+$/; c++) s += $c; t[k] = s }
			END { print (t[2] >= t[1] + 3) ? 1 : 0 }' "$f/real.intr1" "$f/real.intr2")
		if [ "$aff" != "$to" ]; then
			bad="$bad irq $irq: smp_affinity_list $aff, report $to;"
		elif [ "$fired" = 1 ]; then
			if [ "$eff" = "$to" ]; then ok=$((ok + 1)); else bad="$bad irq $irq: effective $eff after interrupts, report $to;"; fi
		else
			pend=$((pend + 1))
		fi
	done < <(jq -r '.irqs[] | select(.outcome == "moved") | "\(.irq) \(.to)"' "$f/real.out")
	info "writes: $ok moved IRQs read back from effective_affinity_list after interrupts, $pend moved with fewer than 3 interrupts since (move pending in the kernel; smp_affinity_list checked)"
	if [ -z "$bad" ] && [ "$ok" -gt 0 ]; then pass writes; else fail writes "${bad:- no moved IRQ fired after the run}"; fi
}
writes

# The irq threads' run time and runs over irqtune's exact window, per IRQ,
# from the 20 ms schedstat samples (linear between the two around each
# end); a thread whose samples do not span the window is "uncovered PID".
thread_time() {	# NAME -> "IRQ SECONDS-PER-SECOND RUNS-PER-SECOND"
	local from to
	from=$(jq .run.window_from_monotonic "$f/$1.out") to=$(jq .run.window_to_monotonic "$f/$1.out")
	awk -v from="$from" -v to="$to" -v th="$f/$1.threads" '
	BEGIN { while ((getline l < th) > 0) { split(l, a, " "); irq[a[1]] = a[2] } }
	function at(p, x, col,   k) {
		for (k = 2; k <= n[p]; k++) if (t[p, k] >= x)
			return v[p, k - 1, col] + (v[p, k, col] - v[p, k - 1, col]) * (x - t[p, k - 1]) / (t[p, k] - t[p, k - 1])
		return -1
	}
	{ k = ++n[$2]; t[$2, k] = $1; v[$2, k, 0] = $3; v[$2, k, 1] = $4 }
	END {
		for (p in irq) {
			if (n[p] < 2 || t[p, 1] > from) { print "uncovered", p; continue }
			x0 = at(p, from, 0); x1 = at(p, to, 0)
			if (x0 < 0 || x1 < 0) { print "uncovered", p; continue }
			th_[irq[p]] += (x1 - x0) / 1e9 / (to - from)
			ru[irq[p]] += (at(p, to, 1) - at(p, from, 1)) / (to - from)
		}
		for (i in th_) printf "%s %.9f %.1f\n", i, th_[i], ru[i]
	}' "$f/$1.sched"
}

# threads_of NAME: NAME.thr, the threads' time per IRQ, where the devices'
# IRQs are threaded (PREEMPT_RT, threadirqs); $thr_err says why not.
threads_of() {
	thr_err=
	: >"$f/$1.thr"
	awk 'NR == FNR { for (i = 4; i <= NF; i++) d[$i] = 1; next } ($2 in d)' \
		"$f/devices" "$f/$1.threads" 2>/dev/null | grep -q . || return 0
	thread_time "$1" >"$f/$1.thr"
	if grep -q '^uncovered' "$f/$1.thr"; then
		thr_err="the schedstat samples do not cover irqtune's window for thread(s)$(awk '$1 == "uncovered" { printf " %s", $2 }' "$f/$1.thr")"
	fi
}

# Per device, this window: irqtune's load (load_window, else load) and the
# kernel's account of it. Lines "DRIVER MEASURED REFERENCE HOW PROC-EST":
# the trace's handler + attributed softirq time, or, for a device whose
# IRQs are threaded, handler + irq-thread time (the softirqs run inside the
# threads there). A thread's schedstat time holds one run of irqtune's own
# sched_switch probe per run (the kernel charges the switch that puts a
# task on the CPU to that task), which irqtune takes out of its own figure
# and names in its reason ("N an irq thread's run"): it is taken out of the
# account too, so that both say what the thread cost without irqtune.
per_device() {	# NAME
	local probe
	threads_of "$1"
	probe=$(jq -r .load_source_reason "$f/$1.out" 2>/dev/null | sed -n "s/.* \([0-9][0-9]*\) an irq thread's run.*/\1/p")
	jq -r '.irqs[] | "\(.irq) \(.load_window // .load) \(.load_proc_estimate // -1)"' "$f/$1.out" 2>/dev/null |
	awk -v devs="$f/devices" -v ref="$f/$1.ref" -v thr="$f/$1.thr" -v probe="${probe:-0}" '
	BEGIN {
		while ((getline l < devs) > 0) { n = split(l, a, " "); for (i = 4; i <= n; i++) dev[a[i]] = a[2]; order[a[2]] = 1 }
		while ((getline l < ref) > 0) { split(l, a, " "); if (a[1] == "ref") { h[a[2]] = a[3]; s[a[2]] = a[4] } }
		while ((getline l < thr) > 0) {
			split(l, a, " ")
			if (a[1] != "uncovered") { t[a[1]] = a[2]; p[a[1]] = a[3] * probe * 1e-9; thd[a[1]] = 1 }
		}
	}
	($1 in dev) {
		d = dev[$1]; m[d] += $2; e[d] += ($3 < 0 ? 0 : $3); H[d] += h[$1]; S[d] += s[$1]; T[d] += t[$1]; P[d] += p[$1]
		if ($1 in thd) threaded[d] = 1
	}
	END {
		for (d in order) {
			if (threaded[d]) printf "%s %.6f %.6f handlers+irq-threads-probe:%.6f+%.6f-%.6f %.6f\n", d, m[d], H[d] + T[d] - P[d], H[d], T[d], P[d], e[d]
			else printf "%s %.6f %.6f handlers+softirq:%.6f+%.6f %.6f\n", d, m[d], H[d] + S[d], H[d], S[d], e[d]
		}
	}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }
# Loads below 0.5% of a CPU are judged by an absolute band of 0.1% of a CPU:
# the trace's microsecond stamps and one window's scheduling noise.
near() {	# A B LO HI
	awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN {
		if (b < 0.005) exit !(a >= b * lo - 0.001 && a <= b * hi + 0.001)
		exit !(a >= b * lo && a <= b * hi) }'
}
# a device the load did not reach proves nothing: 0.05% of a CPU at least
reached() { awk -v a="$1" 'BEGIN { exit !(a >= 0.0005) }'; }

### 7. the network path, after one real run with threaded NAPI on.
# Which IRQ a NAPI thread serves, from the kernel's names alone: the
# e1000e's one NAPI is its rx vector's ("IF-rx-0"); virtio-net's receive
# NAPIs are its "input.N" vectors', N the rank of the thread's NAPI id among
# the NIC's (virtio-net adds, and from 6.13 enables, its receive NAPIs in
# queue order, and ids are handed out in that order); its transmit NAPIs
# (id 0: never hashed) are its "output.N" vectors'. With one queue pair
# that is output.0; with more, the id-0 threads cannot be told apart, and
# the report must say each was left. However irqtune matched (names, or
# netdev netlink's napi-get irq/pid from 6.8), the outcome is judged: a
# thread's CPU is its queue's IRQ's.
netpath_checks() {
	local bad="" n=0 rc left=0 nleft=0 napiq=""
	rc=$(rc_of netpath)
	[ "$rc" = 0 ] || bad="$bad exit $rc: $(head -2 "$f/netpath.err" | tr '\n' ' ');"
	while read -r pid comm cpus; do
		ifn=${comm#napi/}; id=${ifn##*-}; ifn=${ifn%-*}
		drv=$(awk -v i="$ifn" '$1 == "dev" && index("," $4, "," i ",") { print $3 }' "$f/devmap")
		case "$drv" in
		e1000e) want="$ifn-rx-0" ;;
		virtio_net)
			if [ "$id" = 0 ]; then
				if [ "$(grep -c " napi/$ifn-0 " "$f/napi.after")" -gt 1 ]; then
					nleft=$((nleft + 1))
					o=$(jq -r --argjson p "$pid" '[.netpath.changes[]? | select(.kind == "napi_thread" and .pid == $p) | .outcome][0] // "absent"' "$f/netpath.out" 2>/dev/null)
					if [ "$o" = left ]; then left=$((left + 1)); else bad="$bad $comm (pid $pid, one of several id-0 threads of $ifn) reported '$o', not left;"; fi
					continue
				fi
				want="-output.0"
			else
				want="-input.$(awk -v i="$ifn" -v id="$id" '{ n = split($2, a, "-"); x = a[n]; sub("^napi/", "", $2) }
					$2 ~ ("^" i "-[0-9]+$") && x + 0 > 0 && x + 0 < id + 0 { r++ } END { print r + 0 }' "$f/napi.after")"
			fi ;;
		*) continue ;;
		esac
		n=$((n + 1))
		irqs=$(awk -v i="$ifn" '$1 == "dev" && index("," $4, "," i ",") { for (k = 5; k <= NF; k++) printf "%s ", $k }' "$f/devmap")
		irq=$(awk -v l=" $irqs" -v w="$want" '$1 ~ /:$/ { i = $1; sub(":", "", i); if (index(l, " " i " ") && index($NF, w)) { print i; exit } }' "$f/netpath.interrupts")
		aff=$(awk -v i="$irq" '$1 == i { print $2 }' "$f/netpath.aff")
		if [ -z "$irq" ]; then bad="$bad $comm: no IRQ named *$want;"
		elif [[ "$cpus" == *[,-]* ]]; then bad="$bad $comm on CPUs $cpus, not one;"
		elif [ "$aff" != "$cpus" ]; then bad="$bad $comm on CPU $cpus, its IRQ $irq on $aff;"
		else napiq="$napiq $comm=${want#-}:irq$irq@$cpus"
		fi
	done <"$f/napi.after"
	info "netpath: $n NAPI threads of the NICs; before $(cut -d' ' -f2- "$f/napi.before" | tr '\n' ';') after $(cut -d' ' -f2- "$f/napi.after" | tr '\n' ';'); matched by $(jq -r '.netpath.napi_matched_by // "-"' "$f/netpath.out" 2>/dev/null)"
	[ "$n" -gt 0 ] || bad="$bad no NAPI thread of the NICs ($(fact threaded));"
	info "netpath-napi: $n threads on their queue's IRQ CPU:$napiq; $left of $nleft indistinguishable id-0 threads reported left"
	if [ -n "$(fact mqnics)" ]; then
		# machine b: every receive queue of the multi-queue NICs proven,
		# and their transmit threads reported left
		for m in $(fact mqnics); do
			k=$(echo "$napiq" | tr ' ' '\n' | grep -c "^napi/$m-[1-9][0-9]*=input\.")
			[ "$k" -ge 4 ] || bad="$bad $m: $k receive NAPI threads proven, want 4;"
		done
		[ "$nleft" -ge 4 ] || bad="$bad $nleft id-0 threads of the multi-queue NICs, want 4 or more;"
	fi
	if [ -z "$bad" ]; then pass netpath-napi; else fail netpath-napi "$bad"; fi

	# XPS: a transmit queue whose mask can be read holds its completion
	# IRQ's CPU; one that cannot (a NIC with one transmit queue: ENOENT)
	# is left as it was, and the report says why. QEMU 7.2's hub ports
	# give every NIC a single queue pair, so there it is the second case;
	# machine b's multi-queue NICs the first, 4 queues each.
	bad="" xpsq=""
	while read -r q m; do
		ifn=${q%%/*}
		drv=$(awk -v i="$ifn" '$1 == "dev" && index("," $4, "," i ",") { print $3 }' "$f/devmap")
		[ -n "$drv" ] || continue
		before=$(awk -v q="$q" '$1 == q { print $2 }' "$f/xps.before")
		if [[ "$m" == unreadable:* ]]; then
			[ "$m" = "$before" ] || bad="$bad $q changed: $before -> $m;"
			jq -e --arg i "$ifn" '[.netpath.notes[]? | select(.kind == "xps" and .interface == $i)] | length > 0' "$f/netpath.out" >/dev/null 2>&1 ||
				bad="$bad $q: no XPS note for $ifn in the report;"
			info "netpath: $q has no XPS mask ($m); report: $(jq -r --arg i "$ifn" '[.netpath.notes[]? | select(.kind == "xps" and .interface == $i) | .note] | join("; ")' "$f/netpath.out" 2>/dev/null)"
		else
			n=${q##*tx-}
			irq=$(awk -v i="$ifn" '$1 == "dev" && index("," $4, "," i ",") { for (k = 5; k <= NF; k++) printf "%s ", $k }' "$f/devmap" |
				awk -v n="$n" -v intr="$f/netpath.interrupts" '{ l = " " $0 } END { while ((getline x < intr) > 0) { split(x, a, " "); i = a[1]; sub(":", "", i); if (index(l, " " i " ") && (x ~ ("(output|tx)[.-]" n "$") || x ~ ("TxRx-" n "$"))) { print i; exit } } }')
			cpu=$(awk -v i="$irq" '$1 == i { print $2 }' "$f/netpath.aff")
			want=$(awk -v c="$cpu" 'BEGIN { if (c ~ /^[0-9]+$/) printf "%x", 2 ^ c }')
			if [ -n "$want" ] && [ "$((16#${m//,/}))" = "$((16#$want))" ]; then
				xpsq="$xpsq $q:$m=irq$irq@$cpu"
			else
				bad="$bad $q mask $m, its IRQ ${irq:-?} on ${cpu:-?};"
			fi
		fi
	done <"$f/xps.after"
	info "netpath-xps: transmit queues holding their completion IRQ's CPU:${xpsq:- none}"
	for m in $(fact mqnics); do
		k=$(echo "$xpsq" | tr ' ' '\n' | grep -c "^$m/tx-")
		[ "$k" -ge 4 ] || bad="$bad $m: $k transmit queues proven, want 4;"
	done
	if [ -z "$bad" ]; then pass netpath-xps; else fail netpath-xps "$bad"; fi

	# xps = off, napi-threads = off: nothing of the network path written
	bad=""
	rc=$(rc_of netoff)
	[ "$rc" = 0 ] || bad="$bad exit $rc: $(head -2 "$f/netoff.err" | tr '\n' ' ');"
	cmp -s "$f/napi.off.before" "$f/napi.off.after" || bad="$bad NAPI threads moved: $(diff "$f/napi.off.before" "$f/napi.off.after" | grep '^[<>]' | tr '\n' ';');"
	cmp -s "$f/xps.off.before" "$f/xps.off.after" || bad="$bad XPS masks changed;"
	w=$(jq '[.netpath.changes[]? | select(.outcome == "written")] | length' "$f/netoff.out" 2>/dev/null)
	[ "${w:-0}" = 0 ] || bad="$bad the report says $w written;"
	if [ -z "$bad" ]; then pass netpath-off; else fail netpath-off "$bad"; fi
}

### 4b. the measured load against the kernel's own account, per build
build_ran() {	# NAME BUILD-WORDS CHECK: the JSON is there and names the build
	local r
	if ! json_ok "$1.out"; then fail "$3" "no JSON (exit $(rc_of "$1")): $(head -3 "$f/$1.err")"; return 1; fi
	r=$(jq -r .load_source_reason "$f/$1.out")
	[[ "$r" == *"$2"* ]] && return 0
	fail "$3" "the $2 build did not run (IRQTUNE_BPF_BUILD not honoured?): $r"
	return 1
}

measured() {	# NAME BUILD-WORDS CHECK LO HI
	local name=$1 words=$2 check=$3 lo=$4 hi=$5 bad="" d m ref how e ov
	build_ran "$name" "$words" "$check" || return
	ov=$(awk -v k="$name" '$1 == "overrun" && $2 == k { print $3 }' "$f/facts")
	[ "${ov:-1}" = 0 ] || bad="$bad the trace lost ${ov:-?} events;"
	per_device "$name" >"$f/$name.dev"
	[ -z "$thr_err" ] || bad="$bad $thr_err;"
	while read -r d m ref how e; do
		info "$name $d: irqtune $m, kernel $ref (${how%%:*} ${how#*:}), ratio $(ratio "$m" "$ref")"
		reached "$ref" || bad="$bad no load reached $d ($how);"
		near "$m" "$ref" "$lo" "$hi" || bad="$bad $d $m vs $ref;"
	done <"$f/$name.dev"
	if [ -z "$bad" ]; then pass "$check"; else fail "$check" "outside ${lo}..${hi}x of the kernel's account:$bad"; fi
}

# The whole-context build at or above the handler-only figure: per device,
# each build's figure over its own window's account (the two windows are
# not the same), the context build's ratio no more than 0.1 below the
# handler build's (one window's noise on a softirq-bound NIC, where the
# two builds time the same work).
context_above() {
	local bad="" d m ref how e ctx hnd
	build_ran m-context "whole hard-irq contexts" context-at-or-above || return
	[ -s "$f/m-handlers.dev" ] || per_device m-handlers >"$f/m-handlers.dev"
	per_device m-context >"$f/m-context.dev"
	[ -z "$thr_err" ] || bad="$bad $thr_err;"
	while read -r d m ref how e; do
		ctx=$(ratio "$m" "$ref")
		hnd=$(awk -v d="$d" '$1 == d { if ($3 > 0) printf "%.2f", $2 / $3; else print 0 }' "$f/m-handlers.dev")
		info "m-context $d: irqtune $m, kernel $ref (${how%%:*} ${how#*:}), ratio $ctx; the handler build's ratio ${hnd:-none}"
		reached "$ref" || bad="$bad no load reached $d ($how);"
		awk -v c="$ctx" -v x="${hnd:-0}" 'BEGIN { exit !(c != "inf" && c >= x - 0.1) }' ||
			bad="$bad $d $ctx of the kernel's account, the handler build ${hnd:-none};"
	done <"$f/m-context.dev"
	if [ -z "$bad" ]; then pass context-at-or-above; else fail context-at-or-above "below the handler-only figure:$bad"; fi
}

# Threaded IRQs (PREEMPT_RT): the handler-only build against handler +
# irq-thread run time, within 25%, for the devices whose IRQs are threaded.
threaded() {
	local bad="" n=0 d m ref how e
	build_ran m-handlers "hard-irq handlers" threaded || return
	[ -s "$f/m-handlers.dev" ] || per_device m-handlers >"$f/m-handlers.dev"
	threads_of m-handlers
	[ -z "$thr_err" ] || { fail threaded "$thr_err"; return; }
	while read -r d m ref how e; do
		case "$how" in handlers+irq-threads*) ;; *) continue ;; esac
		n=$((n + 1))
		reached "$ref" || bad="$bad no load reached $d ($how);"
		near "$m" "$ref" 0.75 1.25 || bad="$bad $d $m vs $ref;"
	done <"$f/m-handlers.dev"
	if [ "$n" -eq 0 ]; then
		info "threaded: the devices' IRQs are not threaded on this kernel: nothing to compare"
		return
	fi
	if [ -z "$bad" ]; then pass threaded; else fail threaded "outside 0.75..1.25x of handlers + irq threads:$bad"; fi
}

### 8. the pinned application (issue 31): CPU-bound threads pinned to
### CPULIST, the disk and network loads on, one real run. Every busy IRQ
### (0.05% of a CPU or more, irqtune(8) PLACEMENT) that irqtune may move
### must be planned off those CPUs, have its smp_affinity_list off them,
### and, once it has had 3 interrupts since (a moved MSI takes its new CPU
### at an interrupt), its effective_affinity_list too. Kernel-managed
### queues cannot move and are only counted: those irqtune reports so, and
### those that refused the guest's write after the run (before Linux 6.12
### nothing else tells a managed vector; irqtune keeps a per-CPU queue
### where it is without trying).
app_pinned() {	# NAME CHECK CPULIST
	local name=$1 check=$2 pinned=$3 bad="" j=$f/$1.out rows busy managed app
	json_ok "$name.out" || { fail "$check" "no JSON (exit $(rc_of "$name")): $(head -3 "$f/$name.err" 2>/dev/null)"; return; }
	[ "$(rc_of "$name")" = 0 ] || bad="$bad exit $(rc_of "$name"): $(head -2 "$f/$name.err" | tr '\n' ' ');"
	# the application as the kernel had it: one thread on each CPU of
	# CPULIST, allowed that CPU alone
	bad="$bad$(awk -v p="$pinned" '
		BEGIN { n = split(p, r, "-"); for (c = r[1]; c <= r[n]; c++) want[c] = 1 }
		$2 ~ /^[0-9]+$/ && ($2 in want) { got[$2] = 1 }
		END { for (c in want) if (!(c in got)) printf " no application thread pinned to CPU %s;", c }' "$f/$name.threads")"
	# "IRQ LOAD TO OUTCOME FROM", busy ones only
	rows=$(jq -r '.irqs[] | select(.load >= 0.0005 and (.to // .from) != null) |
		"\(.irq) \(.load) \(.to // .from) \(.outcome) \(.from)"' "$j")
	busy=$(echo "$rows" | awk -v p="$pinned" -v aff="$f/$name.after" -v eff="$f/$name.after2" \
		-v i1="$f/$name.intr1" -v i2="$f/$name.intr2" -v probe="$f/$name.probe" '
		# on(LIST): does cpulist LIST name a CPU of the pinned range?
		function on(list,   n, part, k, r, m, c) {
			n = split(list, part, ",")
			for (k = 1; k <= n; k++) {
				m = split(part[k], r, "-")
				for (c = r[1] + 0; c <= r[m] + 0; c++) if (c >= lo && c <= hi) return 1
			}
			return 0
		}
		function fired(file,   l, a, c, s, i) {
			while ((getline l < file) > 0) {
				split(l, a, " "); i = a[1]; sub(":", "", i); s = 0
				for (c = 2; a[c] ~ /^[0-9]+$/; c++) s += a[c]
				cnt[file, i] = s
			}
		}
		BEGIN {
			split(p, pr, "-"); lo = pr[1] + 0; hi = pr[2] == "" ? lo : pr[2] + 0
			while ((getline l < aff) > 0) { split(l, a, " "); A[a[1]] = a[2] }
			while ((getline l < eff) > 0) { split(l, a, " "); E[a[1]] = a[3] }
			fired(i1); fired(i2)
			while ((getline l < probe) > 0) { split(l, a, " "); if (a[2] == "refused") refused[a[1]] = 1 }
		}
		NF >= 4 {
			if ($4 == "kernel_managed" || ($1 in refused)) { if (on($3)) mg = mg " " $1; next }
			n++
			if (on($3)) bad = bad sprintf(" irq %s (load %.4f) planned on %s;", $1, $2, $3)
			else if (on(A[$1])) bad = bad sprintf(" irq %s smp_affinity_list %s;", $1, A[$1])
			else if (cnt[i2, $1] >= cnt[i1, $1] + 3 && on(E[$1])) bad = bad sprintf(" irq %s effective on %s after interrupts;", $1, E[$1])
			if (on($5)) was = was " " $1
		}
		END { printf "%d|%s|%s|%s\n", n, bad, was, mg }')
	IFS='|' read -r n irqbad was managed <<<"$busy"
	bad="$bad$irqbad"
	[ "${n:-0}" -gt 0 ] || bad="$bad no busy IRQ that irqtune may move;"
	# What the run saw of the application, where its JSON says it: per CPU
	# pinned application load (the member once it exists).
	app=$(jq -r '[.machine.cpus[]? | select(has("app_load")) | "\(.cpu):\(.app_load)"] | join(" ")' "$j" 2>/dev/null)
	share=$(jq -r '.summary | select(has("app_cpu_irq_share_before")) |
		"\(.app_cpu_irq_share_before * 1000 | round / 10)% -> \(.app_cpu_irq_share_after * 1000 | round / 10)%"' "$j" 2>/dev/null)
	info "$check: application on CPUs $pinned ($(awk '{ printf "%s:%s ", $1, $2 }' "$f/$name.threads")); $n busy IRQs judged, of them on those CPUs before the run:${was:- none}; busy kernel-managed queues left there (reported, or refusing a write):${managed:- none}; per-CPU application load in the JSON: ${app:-absent}; IRQ work on pinned-application CPUs: ${share:-absent}; user+nice ticks per CPU over the run: $(awk 'NR == FNR { u[$1] = $2 + $3; next } { printf "%s %d ", $1, $2 + $3 - u[$1] }' "$f/$name.stat1" "$f/$name.stat2"); summary $(jq -c .summary "$j")"
	# The run saw the application: a tenth of a CPU or more on each pinned
	# CPU (the threads share theirs with the loads' unpinned processes and
	# with the IRQs still there when the window opens).
	if [ -n "$app" ]; then
		bad="$bad$(echo "$app" | tr ' ' '\n' | awk -F: -v p="$pinned" '
			BEGIN { split(p, r, "-"); lo = r[1]; hi = r[2] == "" ? lo : r[2] }
			$1 >= lo && $1 <= hi && $2 < 0.1 { printf " CPU %s application load %s in the JSON, under 0.1;", $1, $2 }')"
	fi
	if [ -z "$bad" ]; then pass "$check"; else fail "$check" "$bad"; fi
}

if [ "$machine" = a ]; then
	app_pinned app-23 app-pinned-23 2-3
	app_pinned app-01 app-pinned-01 0-1
fi

if [ "$machine" = a ]; then
	net=$(fact net)
	info "loads: $(fact loaddevs); peer $(fact peer); last flood: $net"
	awk '$1 == "slowload" { $1 = ""; print "info '"$tag"' the loads were slow to start:" $0 }' "$f/facts"
	measured m-handlers "hard-irq handlers" accuracy-handlers 0.75 1.25
	context_above
	threaded
	### 5. the proc source after a measured run recorded this guest's costs
	if json_ok p-proc.out && jq -r .load_source_reason "$f/p-proc.out" | grep -q 'per-event costs as measured'; then
		# The band irqtune(8) KERNELS states for one device in one
		# window where the kernel has no IRQ time accounting (Debian's):
		# a split of sampled clock ticks, seen from 0.31x to 2.4x here.
		measured p-proc "costs as measured" proc-band 0.25 4
	else
		fail proc-band "the proc run did not start from the measured costs: $(jq -r .load_source_reason "$f/p-proc.out" 2>/dev/null) $(head -2 "$f/p-proc.err")"
	fi

	### 6. faults
	# same_or_planned BEFORE AFTER JSON: every IRQ's affinity afterwards is
	# the one before or the one the report says it got.
	half_applied() {
		awk 'FILENAME == ARGV[1] { b[$1] = $2; next } FILENAME == ARGV[2] { a[$1] = $2; next }
			{ to[$1] = $2; o[$1] = $3 }
			END { for (i in a) if (a[i] != b[i] && !((i in to) && a[i] == to[i] && o[i] == "moved")) printf " irq %s %s->%s", i, b[i], a[i] }' \
			"$1" "$2" <(jq -r '.irqs[]? | "\(.irq) \(.to) \(.outcome)"' "$3" 2>/dev/null)
	}
	rc=$(rc_of term)
	changed=$(awk 'NR == FNR { b[$1] = $2; next } b[$1] != $2 { printf " %s", $1 }' "$f/term.before" "$f/term.after")
	info "sigterm: exit $rc, $(fact progs_in_window) programs loaded in the window, $(fact progs_left) left, trace instances: $(fact instances)"
	if [ "$rc" = 143 ] && [ "$(fact progs_in_window)" -gt 0 ] && [ "$(fact progs_left)" = 0 ] &&
	   [ "$(fact instances)" = . ] && [ -z "$changed" ]; then
		pass sigterm
	else
		fail sigterm "exit $rc (want 143), programs $(fact progs_in_window) in the window and $(fact progs_left) left, instances '$(fact instances)', affinities changed:${changed:- none}"
	fi

	rc=$(rc_of offline)
	half=$(half_applied "$f/offline.before" "$f/offline.after" "$f/offline.out")
	info "cpu offline: cpu $(fact offlined) taken offline in the window; exit $rc; $(jq -c .summary "$f/offline.out" 2>/dev/null); $(head -2 "$f/offline.err" | tr '\n' ' ')"
	if [[ "$rc" == [01] ]] && json_ok offline.out && [ -z "$half" ]; then pass cpu-offline; else
		fail cpu-offline "exit $rc, JSON $(json_ok offline.out && echo ok || echo none), half-applied:${half:- none}; $(head -3 "$f/offline.err" | tr '\n' ' ')"; fi

	rc=$(rc_of unplug)
	half=$(half_applied "$f/unplug.before" "$f/unplug.after" "$f/unplug.out")
	nvo=$(jq -r '[.irqs[]? | select(.name | startswith("nvme")) | .outcome] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' "$f/unplug.out" 2>/dev/null)
	info "unplug: NVMe gone at $(fact nvme_gone) s, window $(jq -r '"\(.run.window_from_monotonic)..\(.run.window_to_monotonic)"' "$f/unplug.out" 2>/dev/null) s; exit $rc; NVMe IRQs in the report: ${nvo:-none (gone before the window ended)}; $(head -2 "$f/unplug.err" | tr '\n' ' ')"
	if [ "$(fact nvme_gone)" = no ]; then
		fail unplug "the NVMe drive was not unplugged (monitor: $(tail -2 "$dir/monitor.log" 2>/dev/null | tr -d '\r' | tr '\n' ' '))"
	elif [[ "$rc" == [01] ]] && json_ok unplug.out && [ -z "$half" ]; then pass unplug; else
		fail unplug "exit $rc, JSON $(json_ok unplug.out && echo ok || echo none), half-applied:${half:- none}; $(head -3 "$f/unplug.err" | tr '\n' ' ')"; fi

	### 7. the network path (irqtune(8) PLACEMENT, Network path)
	netpath_checks
fi

if [ "$machine" = b ]; then
	### 9. the multi-queue NICs: their flood reached every queue's vector
	mq_flood() {
		local m bad="" fig
		[ -n "$(fact mqnics)" ] || { fail mq-nics "no virtio-net NIC with more than one transmit queue: $(fact mqnics)"; return; }
		fig=$(awk 'FNR == 1 { k++ } $NF ~ /-(input|output)\.[0-9]+$/ { i = $1; s = 0
				for (c = 2; c <= NF && $c ~ /^[0-9]+$/; c++) s += $c; n[k, i] = s; name[i] = $NF }
			END { for (i in name) printf "%s:%d ", name[i], n[2, i] - n[1, i] }' "$f/mq.intr1" "$f/mq.intr2" | tr ' ' '\n' | sort -V | tr '\n' ' ')
		info "mq-nics: $(fact mqnics); $(fact mqpeer); flood $(fact mqnet); interrupts per vector in the flood: $fig"
		for m in $(fact mqnics); do
			[ "$(awk -v m="$m" '$1 ~ ("^" m "/tx-")' "$f/xps.after" | wc -l)" -ge 4 ] || bad="$bad $m has fewer than 4 transmit queues;"
		done
		if [ -z "$bad" ]; then pass mq-nics; else fail mq-nics "$bad"; fi
	}
	mq_flood
	netpath_checks
	### the core and sibling rules: a device's busy queues (0.05% of a CPU
	### or more, irqtune(8) PLACEMENT) on distinct
	### cores while it has no more of them than there are cores
	smt() {
		local bad
		cores=$(awk '{ print $2 }' "$f/topology" | sort -u | wc -l)
		sib=$(awk '$3 ~ /[-,]/' "$f/topology" | wc -l)
		[ "$sib" -gt 0 ] || { fail smt "the guest sees no SMT siblings: $(tr '\n' ';' <"$f/topology")"; return; }
		bad=$(jq -r '.irqs[] | select(.load >= 0.0005 and .device != "" and (.outcome == "moved" or .outcome == "kept")) |
			"\(.device) \(.irq) \(.to)"' "$f/real.out" | awk -v topo="$f/topology" -v cores="$cores" '
			BEGIN { while ((getline l < topo) > 0) { split(l, a, " "); sub("cpu", "", a[1]); core[a[1]] = a[2] } }
			{ n[$1]++; k = $1 SUBSEP core[$3]; if (k in seen) dup[$1] = dup[$1] " " seen[k] "+" $2 " on core " core[$3]; seen[k] = $2 }
			END { for (d in dup) if (n[d] <= cores) printf "%s:%s; ", d, dup[d] }')
		info "smt: $cores cores, $sib CPUs with siblings"
		if [ -z "$bad" ]; then pass smt; else fail smt "busy queues of one device share a core while others are free: $bad"; fi
	}
	smt
fi
