#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# selftest.sh - smoke test of the machine simulator: build the tiny machine,
# read it through umockdev (cat and libudev), step it, sleep and write
# through fakekernel.so, and check the answers. Exits non-zero on failure.
#
# Uses tests/sim/{irqsim,udevls,fkprobe} and tests/shims/fakekernel.so when they
# exist (override with IRQSIM, UDEVLS, FKPROBE, FAKEKERNEL), else compiles
# them into the scratch directory.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
work=$(mktemp -d "$base/irqsim-selftest.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
cc=${CC:-cc}
cflags="-std=gnu11 -O2 -Wall -Wextra -Wshadow -Wformat=2 -D_GNU_SOURCE"
fails=0

pass() { printf 'PASS  %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; [ $# -gt 1 ] && printf '      %s\n' "$2"; fails=$((fails + 1)); }
check() {	# check NAME GOT WANT
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got \"$2\", want \"$3\""; fi
}

pick() {	# pick VAR default-path build-command...
	var=$1 path=$2
	shift 2
	eval "cur=\${$var:-}"
	if [ -n "$cur" ]; then return; fi
	if [ -x "$path" ] || [ -f "$path" ]; then
		eval "$var=\$path"
		return
	fi
	out=$work/$(basename "$path")
	"$@" -o "$out" || { echo "selftest: cannot build $out" >&2; exit 1; }
	eval "$var=\$out"
}

pick IRQSIM "$here/irqsim" $cc $cflags "$here/irqsim.c" "$here/build.c" "$here/model.c" "$here/oracle.c"
pick UDEVLS "$here/udevls" $cc $cflags "$here/udevls.c" -ludev
pick FKPROBE "$here/fkprobe" $cc $cflags "$here/fkprobe.c"
pick FAKEKERNEL "$top/tests/shims/fakekernel.so" $cc $cflags -fPIC -shared \
	-fvisibility=hidden -iquote "$top/tests" "$top/tests/shims/fakekernel.c" "$here/model.c" -ldl
case $FAKEKERNEL in /*) ;; *) FAKEKERNEL=$PWD/$FAKEKERNEL ;; esac

dir=$work/tiny
under() { UMOCKDEV_DIR=$dir LD_PRELOAD="$FAKEKERNEL libumockdev-preload.so.0" "$@"; }
umock() { UMOCKDEV_DIR=$dir LD_PRELOAD=libumockdev-preload.so.0 "$@"; }
count() {	# count IRQ: its CPU0 and CPU1 counts, as "a b"
	awk -v irq="$1:" '$1 == irq { print $2, $3 }' "$dir/proc/interrupts"
}

echo "selftest: scratch $work"
t0=$(date +%s%N)
if "$IRQSIM" build "$here/machines/tiny.txt" "$dir"; then
	pass "build tiny in $((($(date +%s%N) - t0) / 1000000)) ms"
else
	fail "build tiny"
	exit 1
fi

# umockdev redirects /proc files the testbed holds
got=$(umock cat /proc/interrupts | cmp - "$dir/proc/interrupts" && echo same)
check "cat /proc/interrupts shows the testbed" "$got" same
check "header lists online CPUs" "$(umock head -1 /proc/interrupts | tr -s ' ')" " CPU0 CPU1 "
check "eth0 queue 0 row" "$(awk '$1 == "24:" { print $4, $5, $6 }' "$dir/proc/interrupts")" \
	"IR-PCI-MSIX-0000:01:00.0 0-edge eth0-TxRx-0"
check "/sys/devices/system/cpu/online" "$(umock cat /sys/devices/system/cpu/online)" 0-1
check "managed IRQ file is 0444" "$(umock stat -c %a /proc/irq/28/smp_affinity_list)" 444

# libudev sees the fake tree (and, with both preloads, still does)
for how in umock under; do
	$how "$UDEVLS" pci net block nvme scsi_host > "$work/udev.$how" 2>/dev/null
	check "libudev ($how): NIC" \
		"$(awk '$1 == "pci" && $2 == "0000:01:00.0" { print $4, $5 }' "$work/udev.$how")" \
		"driver=ixgbe class=0x020000"
	check "libudev ($how): eth0 under its PCI function" \
		"$(awk '$1 == "net" { print $2, $5 }' "$work/udev.$how")" "eth0 pci=0000:01:00.0"
	check "libudev ($how): nvme0 under its PCI function" \
		"$(awk '$1 == "nvme" { print $2, $5 }' "$work/udev.$how")" "nvme0 pci=0000:02:00.0"
done

# irqsim step
before=$(count 24)
"$IRQSIM" step "$dir" 2 || fail "irqsim step"
after=$(count 24)
check "step 2 s: eth0-TxRx-0 count +2000" \
	"$(echo "$before $after" | awk '{ print $3 - $1 }')" 2000

# fakekernel.so: virtual clock, sleeps step the model
check "CLOCK_MONOTONIC is the model's" "$(under "$FKPROBE" now)" 17.000000000
before=$(count 24)
t0=$(date +%s%N)
window=$(under "$FKPROBE" window 3)
ms=$((($(date +%s%N) - t0) / 1000000))
check "nanosleep(3) measures 3 s" "$window" 3.000000000
if [ "$ms" -lt 1000 ]; then pass "nanosleep(3) took $ms ms of real time"; else fail "nanosleep(3) took $ms ms"; fi
check "clock_nanosleep(0.5)" "$(under "$FKPROBE" csleep 0.5)" 20.500000000
check "sleeps advanced eth0-TxRx-0 by 3500" \
	"$(echo "$before $(count 24)" | awk '{ print $3 - $1 }')" 3500

# fakekernel.so: affinity writes
check "IRQ 25 starts on CPU 0" "$(cat "$dir/proc/irq/25/effective_affinity_list")" 0
check "write \"1\\n\" to IRQ 25" "$(under "$FKPROBE" write /proc/irq/25/smp_affinity_list '1
')" "ok 2"
check "effective_affinity_list follows" "$(under cat /proc/irq/25/effective_affinity_list)" 1
check "smp_affinity (mask) follows" "$(cat "$dir/proc/irq/25/smp_affinity")" 2
check "model follows (journal)" "$("$IRQSIM" show "$dir" | awk '$1 == 25 { print $2 }')" 1
before=$(count 25)
under "$FKPROBE" sleep 1 > /dev/null
check "IRQ 25 now counts on CPU 1" \
	"$(echo "$before $(count 25)" | awk '{ print $3 - $1, $4 - $2 }')" "0 1000"
check "managed IRQ refuses: EIO" "$(under "$FKPROBE" write /proc/irq/28/smp_affinity_list 1)" "error EIO"
check "CPU beyond the machine: ERANGE" "$(under "$FKPROBE" write /proc/irq/24/smp_affinity_list 7)" "error ERANGE"
check "garbage: EINVAL" "$(under "$FKPROBE" write /proc/irq/24/smp_affinity_list x)" "error EINVAL"
check "fopen/fputs/fclose" "$(under "$FKPROBE" fwrite /proc/irq/24/smp_affinity_list 1)" "ok 1"
check "dprintf" "$(under "$FKPROBE" dprintf /proc/irq/26/smp_affinity 2)" "ok 1"
check "shell redirection (dup2)" "$(under sh -c 'echo 1 > /proc/irq/27/smp_affinity_list && cat /proc/irq/27/effective_affinity_list')" 1
check "no such IRQ: ENOENT, host untouched" "$(under "$FKPROBE" write /proc/irq/99/smp_affinity_list 0)" "error ENOENT"
check "host /proc/sys protected: EACCES" "$(under "$FKPROBE" write /proc/sys/kernel/hostname x)" "error EACCES"

check "/run/irqtune* goes to DIR/run" \
	"$(under sh -c ': > /run/irqtune.selftest' && ls "$dir/run")" irqtune.selftest

# without UMOCKDEV_DIR the library only passes through
real=$(LD_PRELOAD="$FAKEKERNEL" "$FKPROBE" now)
case $real in 17.*|20.*|21.*) fail "no UMOCKDEV_DIR: real clock" "got $real" ;; *) pass "no UMOCKDEV_DIR: real clock ($real)" ;; esac
t0=$(date +%s%N)
LD_PRELOAD="$FAKEKERNEL" "$FKPROBE" sleep 0.2 > /dev/null
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$ms" -ge 190 ]; then pass "no UMOCKDEV_DIR: real sleep ($ms ms)"; else fail "no UMOCKDEV_DIR: real sleep" "$ms ms"; fi

# score and CPU hotplug
if "$IRQSIM" score "$dir" > "$work/score" && grep -q '^load_ratio ' "$work/score"; then
	pass "score: $(grep -E '^(max_load|lower_bound|load_ratio) ' "$work/score" | tr '\n' ' ')"
else
	fail "score"
fi
"$IRQSIM" offline "$dir" 1 > /dev/null || fail "irqsim offline 1"
check "offline CPU 1: one column left" "$(head -1 "$dir/proc/interrupts" | tr -s ' ')" " CPU0 "
check "offline CPU 1: online list" "$(cat "$dir/sys/devices/system/cpu/online")" 0
check "offline CPU 1: IRQ 25 moved" "$(cat "$dir/proc/irq/25/effective_affinity_list")" 0
check "offline CPU 1: its managed IRQ shut down" "$(cat "$dir/proc/irq/29/effective_affinity_list")" ""

# arm64 with a GICv3 (arch arm64): layout, topology, effective CPUs
arm=$work/arm64
cat > "$work/arm64.txt" <<'EOD'
arch arm64
kernel 5.4
cpus packages=1 cores=4 threads=1 nodes=1 clusters=2
irq_base 40
legacy irq=14 name=ttyS0 rate=1 hwirq=37
nic name=eth0 bdf=0000:00:05.0 queues=2 rate=1000 hint=off
EOD
if "$IRQSIM" build "$work/arm64.txt" "$arm" > /dev/null; then pass "build arm64"; else fail "build arm64"; fi
check "arm64: SPI row: GICv3, hwirq, Level" \
	"$(awk '$1 == "14:" { print $(NF-3), $(NF-2), $(NF-1), $NF }' "$arm/proc/interrupts")" "GICv3 37 Level ttyS0"
# pci_msi_domain_calc_hwirq(): 00:05.0 is 5 << 14 = 81920 (the Graviton capture's ena)
check "arm64: LPI row: ITS-MSI, hwirq, Edge" \
	"$(awk '$1 == "40:" { print $(NF-3), $(NF-2), $(NF-1), $NF }' "$arm/proc/interrupts")" "ITS-MSI 81920 Edge eth0-TxRx-0"
check "arm64: IPI0..IPI6 and Err, no x86 rows" \
	"$(awk '$1 !~ /^[0-9]+:$/ && NR > 1 { sub(/:.*/, "", $1); printf "%s ", $1 }' "$arm/proc/interrupts")" \
	"IPI0 IPI1 IPI2 IPI3 IPI4 IPI5 IPI6 Err "
check "arm64: \"IPI0:\" then the %10u count, no blank of its own (\"IPI0:2768808080\")" \
	"$(grep -c '^IPI0:[ 0-9]\{10\} ' "$arm/proc/interrupts")" 1
t=$arm/sys/devices/system/cpu/cpu0
check "arm64: cpu0 is hotpluggable (online file)" "$(cat "$t/online")" 1
check "arm64: cluster_cpus_list, die_id, PPTT package id" \
	"$(cat "$t/topology/cluster_cpus_list" "$t/topology/die_id" "$t/topology/physical_package_id" | tr '\n' ' ')" "0-1 -1 36 "
check "arm64: boot puts every IRQ of mask 0-3 on CPU 0 (first of the mask)" \
	"$(cat "$arm"/proc/irq/4[01]/effective_affinity_list "$arm/proc/irq/14/effective_affinity_list" | tr '\n' ' ')" "0 0 0 "
dir=$arm
under "$FKPROBE" write /proc/irq/40/smp_affinity_list 2-3 > /dev/null
check "arm64: a write of 2-3 lands on CPU 2" "$(cat "$arm/proc/irq/40/effective_affinity_list")" 2
under "$FKPROBE" write /proc/irq/40/smp_affinity_list 1-3 > /dev/null
check "arm64: a write of 1-3 moves it to CPU 1 (no keep-current)" "$(cat "$arm/proc/irq/40/effective_affinity_list")" 1
sed 's/^kernel 5.4/kernel 5.10/' "$work/arm64.txt" > "$work/arm64-510.txt"
"$IRQSIM" build "$work/arm64-510.txt" "$arm" > /dev/null
check "arm64 5.10: the ITS spreads LPIs by load at boot, SPIs stay first" \
	"$(cat "$arm"/proc/irq/4[01]/effective_affinity_list "$arm/proc/irq/14/effective_affinity_list" | tr '\n' ' ')" "1 2 0 "

# noise A: every noise window's rates drawn around the mean, deterministically
noisy=$work/noisy
sed 's/^cpus .*/&\nnoise 10% seed=7/' "$here/machines/tiny.txt" > "$work/noisy.txt"
"$IRQSIM" build "$work/noisy.txt" "$noisy" > /dev/null || fail "build noisy"
"$IRQSIM" build "$work/noisy.txt" "$noisy.b" > /dev/null || fail "build noisy twice"
c24() { awk '$1 == "24:" { print $2 + $3 }' "$1/proc/interrupts"; }
steps() {	# steps DIR: eth0-TxRx-0's count increments over 1 s steps
	local prev
	prev=$(c24 "$1")
	for _ in 1 2 3; do
		"$IRQSIM" step "$1" 1 > /dev/null
		printf '%d ' $(($(c24 "$1") - prev))
		prev=$(c24 "$1")
	done
}
a=$(steps "$noisy")
"$IRQSIM" step "$noisy.b" 0.4 > /dev/null; "$IRQSIM" step "$noisy.b" 0.6 > /dev/null
"$IRQSIM" step "$noisy.b" 2 > /dev/null
check "noise: equal inputs, equal counts, however the time is cut" "$(c24 "$noisy.b")" "$(c24 "$noisy")"
check "noise: windows differ, within 10% of the mean (1000/s)" \
	"$(echo $a | awk '{ ok = $1 != $2 && $2 != $3; for (i = 1; i <= 3; i++) ok = ok && $i >= 900 && $i <= 1100; print ok ? "yes" : $0 }')" yes
x=$(c24 "$noisy")
"$IRQSIM" step "$noisy" 400 > /dev/null
check "noise: the mean over 400 windows is the rate (within 1%)" \
	"$(awk -v a="$x" -v b="$(c24 "$noisy")" 'BEGIN { r = (b - a) / 400; print (r > 990 && r < 1010) ? "yes" : r }')" yes
check "noise: the score keeps the true mean load" \
	"$("$IRQSIM" show "$noisy" | awk '$1 == 24 { print $5, $6 }')" "$("$IRQSIM" show "$work/tiny" | awk '$1 == 24 { print $5, $6 }')"

# noise on=cost: counts at the mean rate, the time of each window noisy
sed 's/^cpus .*/&\nnoise 10% seed=7 on=cost/' "$here/machines/tiny.txt" > "$work/costly.txt"
costly=$work/costly
"$IRQSIM" build "$work/costly.txt" "$costly" > /dev/null || fail "build costly"
si() { awk '$1 == "softirq" { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 + $10 + $11 }' "$1/proc/stat"; }
a=$(steps "$costly")
check "noise on=cost: counts at the mean rate (1000/s)" "$a" "1000 1000 1000 "
x=$(si "$costly")
"$IRQSIM" step "$costly" 1 > /dev/null
y=$(si "$costly")
"$IRQSIM" step "$costly" 1 > /dev/null
check "noise on=cost: softirq time differs from window to window" \
	"$(awk -v a="$x" -v b="$y" -v c="$(si "$costly")" 'BEGIN { print (b - a != c - b) ? "yes" : "no" }')" yes

# numbering=roundrobin: even CPUs on package 0, odd on 1; siblings P*C apart
sed 's/^cpus .*/cpus packages=2 cores=4 threads=2 nodes=2 numbering=roundrobin/' \
	"$here/machines/tiny.txt" > "$work/rr.txt"
rr=$work/rr
"$IRQSIM" build "$work/rr.txt" "$rr" > /dev/null || fail "build roundrobin"
check "numbering=roundrobin: packages of CPUs 0-3, 8's siblings, node 0" \
	"$(cat "$rr"/sys/devices/system/cpu/cpu[0-3]/topology/physical_package_id \
		"$rr/sys/devices/system/cpu/cpu8/topology/thread_siblings_list" \
		"$rr/sys/devices/system/node/node0/cpulist" | tr '\n' ' ')" "0 1 0 1 0,8 0,2,4,6,8,10,12,14 "

# affinity: queues start where it says; a managed IRQ refuses it
sed 's/^start .*/start all/; $a affinity eth0 queues=1 cpu=1' "$here/machines/tiny.txt" > "$work/pin.txt"
"$IRQSIM" build "$work/pin.txt" "$work/pin" > /dev/null || fail "build pin"
check "affinity: queue 1 starts on CPU 1, queue 0 on all" \
	"$(cat "$work"/pin/proc/irq/2[45]/smp_affinity_list | tr '\n' ' ')" "0-1 1 "
sed '$a affinity nvme0 cpu=1' "$here/machines/tiny.txt" > "$work/pinm.txt"
check "affinity: a managed IRQ refuses it" \
	"$("$IRQSIM" build "$work/pinm.txt" "$work/pinm" 2>&1 >/dev/null | grep -c managed)" 1

# measure: the window's exact time of each IRQ, and its softirq per CPU
m=$("$IRQSIM" measure "$work/tiny" 5 6)
check "measure: eth0-TxRx-0, 1000 interrupts of 2 us, 40 us NET_RX each" \
	"$(echo "$m" | awk '$1 == "irq" && $7 == "eth0-TxRx-0" { print $4, $6 } $1 == "napi" && $3 == 24 { print $4, $5 }' | tr '\n' ' ')" \
	"2000000 1000 40000000 1000 "
check "measure: a soft line per CPU, ten vectors of time and of runs" \
	"$(echo "$m" | awk '$1 == "soft" { n++; if (NF != 22) bad++ } END { print n, bad + 0 }')" "2 0"

echo
if [ "$fails" -eq 0 ]; then
	echo "selftest: all checks passed"
	exit 0
fi
echo "selftest: $fails check(s) failed"
exit 1
