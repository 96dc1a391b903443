#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# End-to-end tests of irqtune as admins run it: what `make install` lays
# out (DESTDIR, PREFIX), the systemd units (systemd-analyze verify and
# security), the udev rule (real `udevadm test` against simulated devices),
# per-device udev properties read back through the udev database, the
# ifupdown and NetworkManager hooks, the configuration file, dozens of
# concurrent runs, syslog, --json, --metrics-file, exit statuses, and the
# man pages (mandoc lint, --help against SYNOPSIS).
#
# Everything runs against simulated machines (tests/sim/README.md) or in
# scratch directories; the udev and syslog tests run in a private mount
# namespace (unshare -m) so the host's rules, udev database and /dev/log are
# never touched. A test that cannot run here prints "SKIP name: why".
# Prints "PASS name" or "FAIL name: why" per test.
set -u
. "$(dirname "$0")/../lib.sh"
e2e_setup admin
disk=$work/files	# installs, units, hooks; nothing of ours goes to /tmp
mkdir -p "$disk"
# make check builds it; a pass in another tree (check-asan) may not have
[ -x "$top/tests/shims/logsink" ] || make -s -C "$top" tests/shims/logsink >/dev/null 2>&1

has() { printf '%s\n' "$1" | grep -qE -- "$2"; }	# has TEXT ERE
lacks() { ! printf '%s\n' "$1" | grep -qE -- "$2"; }
jqv() { jq -r "$1" "$D.out"; }	# a value of the last run's JSON

# Can this host give a test a private mount namespace?
if unshare -m true 2>/dev/null; then NS=yes; else NS=; fi

###########################################################################
### make install: the layout under DESTDIR, and files that name SBINDIR
dest=$disk/dest
make -s -o irqtune -C "$top" install DESTDIR="$dest" >"$disk/install.log" 2>&1
rc=$?
why="$(cat "$disk/install.log")"; check "install: make install DESTDIR= succeeds" [ "$rc" -eq 0 ]
layout_bad=
while read -r mode path; do
	f=$dest$path
	if [ ! -f "$f" ]; then layout_bad="$layout_bad missing:$path"; continue; fi
	m=$(stat -c %a "$f")
	[ "$m" = "$mode" ] || layout_bad="$layout_bad $path:mode=$m"
done <<'EOF'
755 /usr/local/sbin/irqtune
644 /usr/local/share/man/man8/irqtune.8
644 /usr/local/share/man/man5/irqtune.conf.5
644 /lib/udev/rules.d/90-irqtune.rules
644 /lib/systemd/system/irqtune.service
644 /lib/systemd/system/irqtune.timer
644 /etc/cron.d/irqtune
755 /etc/network/if-up.d/irqtune
755 /etc/NetworkManager/dispatcher.d/90-irqtune
644 /etc/irqtune.conf
EOF
why="$layout_bad"; check "install: every file in place with its mode" [ -z "$layout_bad" ]
stray=$(cd "$dest" && find . -type f | grep -v -e /usr/local/sbin/irqtune -e /man8/irqtune.8 \
	-e /man5/irqtune.conf.5 -e 90-irqtune -e '/irqtune\.\(service\|timer\)$' \
	-e /cron.d/irqtune -e /if-up.d/irqtune -e '^./etc/irqtune.conf$')
why="$stray"; check "install: nothing else (no temporary files)" [ -z "$stray" ]

cronf=$dest/etc/cron.d/irqtune
line=$(grep -v -e '^#' -e '^[A-Z]*=' -e '^$' "$cronf")
why="$line"; check "cron: one job, every minute, as root" \
	has "$line" '^\* \* \* \* \* root '
why="$line"; check "cron: quiet, standing down under systemd" \
	has "$line" 'root test -e /run/systemd/system \|\| /usr/local/sbin/irqtune -q$'
# cron.d ignores files with a dot in the name (run-parts naming)
check "cron: file name has no dot" sh -c 'case "$(basename "$1")" in *.*) exit 1 ;; esac' _ "$cronf"
why="$(grep ExecStart "$dest/lib/systemd/system/irqtune.service")"
check "systemd: ExecStart names the installed sbin path" \
	grep -qx 'ExecStart=/usr/local/sbin/irqtune --quiet' "$dest/lib/systemd/system/irqtune.service"
svc=$(cat "$dest/lib/systemd/system/irqtune.service")
why="$svc"; check "systemd: Type=oneshot" has "$svc" '^Type=oneshot$'
why="$svc"; check "systemd: /proc/irq stays writable (no ProtectKernelTunables)" \
	lacks "$svc" '^ProtectKernelTunables='
hard_missing=
for k in 'NoNewPrivileges=yes' 'ProtectSystem=strict' 'ReadWritePaths=/run' 'PrivateTmp=yes' \
	'ProtectHome=yes' 'RestrictAddressFamilies=AF_UNIX AF_NETLINK' 'MemoryDenyWriteExecute=yes' \
	'SystemCallArchitectures=native' 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON'; do
	grep -qxF "$k" "$dest/lib/systemd/system/irqtune.service" || hard_missing="$hard_missing [$k]"
done
why="missing:$hard_missing"; check "systemd: hardened" [ -z "$hard_missing" ]
tim=$(cat "$dest/lib/systemd/system/irqtune.timer")
why="$tim"; check "systemd: timer every minute, AccuracySec=1s" \
	sh -c 'printf "%s\n" "$1" | grep -qx "OnCalendar=\*-\*-\* \*:\*:00" &&
	       printf "%s\n" "$1" | grep -qx "AccuracySec=1s"' _ "$tim"
for h in etc/network/if-up.d/irqtune etc/NetworkManager/dispatcher.d/90-irqtune; do
	why="$(cat "$dest/$h")"; check "hooks: $(basename "$h") runs irqtune -q --wait-lock 30" \
		grep -q '^/usr/local/sbin/irqtune -q --wait-lock 30 ' "$dest/$h"
	why="$(sh -n "$dest/$h" 2>&1)"; check "hooks: $(basename "$h") is valid sh" sh -n "$dest/$h"
done
# The site's configuration is never overwritten by a reinstall.
echo 'window = 2' >"$dest/etc/irqtune.conf"
make -s -o irqtune -C "$top" install DESTDIR="$dest" >/dev/null 2>&1
why="$(cat "$dest/etc/irqtune.conf")"; check "install: keeps an existing /etc/irqtune.conf" \
	grep -qx 'window = 2' "$dest/etc/irqtune.conf"
why="$("$top/irqtune" -n -w 0.01 -c "$top/etc/irqtune.conf" 2>&1 >/dev/null)"
check "install: the shipped irqtune.conf parses" \
	"$top/irqtune" -n -w 0.01 -c "$top/etc/irqtune.conf" >/dev/null 2>&1
# Another PREFIX: every file naming the binary follows it.
make -s -o irqtune -C "$top" install DESTDIR="$disk/dest2" PREFIX=/opt/irqtune >/dev/null 2>&1
wrong=$(grep -l /usr/local "$disk/dest2/lib/systemd/system/irqtune.service" \
	"$disk/dest2/etc/cron.d/irqtune" "$disk/dest2/etc/network/if-up.d/irqtune" \
	"$disk/dest2/etc/NetworkManager/dispatcher.d/90-irqtune" 2>&1)
why="still /usr/local: $wrong"; check "install: PREFIX=/opt/irqtune reaches unit, cron and hooks" \
	sh -c '[ -z "$1" ] && [ -x "$2/opt/irqtune/sbin/irqtune" ] &&
	       grep -qx "ExecStart=/opt/irqtune/sbin/irqtune --quiet" "$2/lib/systemd/system/irqtune.service"' \
	_ "$wrong" "$disk/dest2"

###########################################################################
### systemd-analyze: verify both units as installed, with a binary at the
### ExecStart path and the man pages where Documentation= looks
pre=$disk/prefix
make -s -o irqtune -C "$top" install PREFIX="$pre/usr" SYSCONFDIR="$pre/etc" \
	SYSTEMDUNITDIR="$pre/lib/systemd/system" UDEVRULESDIR="$pre/lib/udev/rules.d" \
	>"$disk/install2.log" 2>&1
if ! command -v systemd-analyze >/dev/null; then
	fail "systemd-analyze verify" "systemd-analyze is not installed (make deps installs package systemd)"
else
	MANPATH=$pre/usr/share/man systemd-analyze verify \
		"$pre/lib/systemd/system/irqtune.service" "$pre/lib/systemd/system/irqtune.timer" \
		>"$disk/verify.out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -qiE 'not been booted|Failed to (connect|initialize)|Operation not permitted' "$disk/verify.out"; then
		skip "systemd-analyze verify" "cannot run in this container: $(head -3 "$disk/verify.out")"
	else
		why="exit $rc: $(cat "$disk/verify.out")"
		check "systemd-analyze verify: service and timer, no warnings" \
			sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ "$rc" "$disk/verify.out"
	fi
	if systemd-analyze security --offline=true "$pre/lib/systemd/system/irqtune.service" \
		>"$disk/security.out" 2>&1; then
		score=$(sed -n 's/.*Overall exposure level for irqtune.service: \([0-9.]*\).*/\1/p' "$disk/security.out")
		echo "systemd-analyze security: exposure $score"
		why="exposure '$score': $(grep '✗' "$disk/security.out")"
		check "systemd-analyze security: exposure below 2.0" \
			awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 < 2.0) }'
	else
		skip "systemd-analyze security" "cannot run here: $(tail -3 "$disk/security.out")"
	fi
fi

# The unit keeps only what measuring the load needs; the writes and the
# lock need no capability (root owns /proc/irq/N/smp_affinity_list, mode
# 0644). Shown on the simulator: a root process with an empty bounding set
# has no capability after exec, and still balances.
machine tiny || exit 1
if command -v setpriv >/dev/null; then
	caps=$(setpriv --bounding-set=-all grep '^CapEff' /proc/self/status 2>&1)
	UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" setpriv --bounding-set=-all \
		"$top/irqtune" -w 0.5 --json >"$D.out" 2>"$D.err"
	rc=$?
	why="exit $rc ($caps): $(cat "$D.err")"
	check "systemd: a run with no capability at all (CapabilityBoundingSet=) works" \
		sh -c '[ "$1" -eq 0 ] && [ "$(jq .summary.moved "$2")" -gt 0 ] &&
		       [ "$3" = "CapEff:	0000000000000000" ]' _ "$rc" "$D.out" "$caps"
fi

###########################################################################
### hooks: what they run, when, and that interface names reach no command
hk=$disk/hooks
make -s -o irqtune -C "$top" install PREFIX="$hk/usr" SYSCONFDIR="$hk/etc" \
	SYSTEMDUNITDIR="$hk/lib/systemd/system" UDEVRULESDIR="$hk/lib/udev/rules.d" >/dev/null 2>&1
# a stand-in for the binary that records how it was called
cat >"$hk/usr/sbin/irqtune" <<EOF
#!/bin/sh
printf '%s|' "\$@" >>"$hk/calls"
echo >>"$hk/calls"
EOF
chmod 755 "$hk/usr/sbin/irqtune"
hook_calls() {	# hook_calls SCRIPT ARGS... (with env set by the caller)
	rm -f "$hk/calls" "$hk/pwned"
	"$@" >/dev/null 2>&1
	for _ in $(seq 25); do [ -s "$hk/calls" ] && break; sleep 0.02; done
	cat "$hk/calls" 2>/dev/null
}
ifup=$hk/etc/network/if-up.d/irqtune
nmd=$hk/etc/NetworkManager/dispatcher.d/90-irqtune
c=$(IFACE=eth1 MODE=start PHASE=post-up hook_calls "$ifup")
why="called with: $c"; check "hooks: ifupdown runs irqtune -q --wait-lock 30 for a new interface" \
	[ "$c" = "-q|--wait-lock|30|" ]
c=$(IFACE=lo MODE=start hook_calls "$ifup"); why="$c"; check "hooks: ifupdown skips lo" [ -z "$c" ]
c=$(IFACE=eth1 MODE=stop hook_calls "$ifup"); why="$c"; check "hooks: ifupdown skips if-down" [ -z "$c" ]
evil="eth1;touch $hk/pwned;\$(touch $hk/pwned)\`touch $hk/pwned\`"
c=$(IFACE=$evil MODE=start hook_calls "$ifup")
why="$c"; check "hooks: ifupdown: a hostile interface name runs nothing" \
	sh -c '[ "$1" = "-q|--wait-lock|30|" ] && [ ! -e "$2" ]' _ "$c" "$hk/pwned"
c=$(hook_calls "$nmd" eth1 up)
why="$c"; check "hooks: NetworkManager runs irqtune -q --wait-lock 30 on up" [ "$c" = "-q|--wait-lock|30|" ]
c=$(hook_calls "$nmd" eth1 down); why="$c"; check "hooks: NetworkManager skips down" [ -z "$c" ]
c=$(hook_calls "$nmd" "$evil" up)
why="$c"; check "hooks: NetworkManager: a hostile interface name runs nothing" \
	sh -c '[ "$1" = "-q|--wait-lock|30|" ] && [ ! -e "$2" ]' _ "$c" "$hk/pwned"

###########################################################################
### udev: the real rules engine (udevadm test, which never runs RUN)
### against simulated devices, in a namespace with only irqtune's rules
# in_ns SCRIPT: run sh SCRIPT in a private mount namespace with tmpfs over
# the rule directories and /run/udev; $RULES is copied in as 70-test.rules.
in_ns() {
	unshare -m sh -c '
		set -e
		mount -t tmpfs none /run
		mkdir /run/udev
		for d in /etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d; do
			[ -d "$d" ] && mount -t tmpfs none "$d"
		done
		mkdir -p /lib/udev/rules.d /etc/udev/rules.d
		cp "$1/udev/90-irqtune.rules" /lib/udev/rules.d/
		[ -z "$2" ] || printf "%s\n" "$2" >/etc/udev/rules.d/70-test.rules
		shift 2
		exec sh -c "$@"' _ "$top" "${RULES:-}" "$@"
}
udev_test() {	# udev_test SYSPATH [ACTION]: udevadm test under $D's testbed
	UMOCKDEV_DIR=$D LD_PRELOAD=libumockdev-preload.so.0 \
		udevadm test --action="${2:-add}" "$1" 2>&1
}
if [ -z "$NS" ]; then
	skip "udev" "no private mount namespace here (unshare -m failed); udevadm test not run"
elif ! command -v udevadm >/dev/null; then
	fail "udev" "udevadm is not installed (make deps installs package udev)"
else
	machine tiny || exit 1
	export D
	out=$(RULES= in_ns "$(declare -f udev_test); for p in /sys/class/net/eth0 /sys/class/nvme/nvme0 \
		/sys/block/nvme0n1 /sys/class/block/nvme0n1p1; do echo \"== \$p\"; udev_test \$p; done;
		echo '== change'; udev_test /sys/class/net/eth0 change;
		echo '== lo'; udevadm test --action=add /sys/class/net/lo 2>&1")
	printf '%s\n' "$out" >"$work/udev.log"
	wants() {	# wants SECTION: SYSTEMD_WANTS=irqtune.service and the systemd tag
		printf '%s\n' "$out" | awk -v s="== $1" '/^== / { on = ($0 == s) } on' |
			grep -qx 'SYSTEMD_WANTS=irqtune.service' &&
		printf '%s\n' "$out" | awk -v s="== $1" '/^== / { on = ($0 == s) } on' |
			grep -q '^TAGS=.*:systemd:'
	}
	why="see $work/udev.log"
	check "udev: a new NIC (net eth0) wants irqtune.service" wants /sys/class/net/eth0
	check "udev: a new NVMe controller wants irqtune.service" wants /sys/class/nvme/nvme0
	check "udev: a new disk (block nvme0n1, DEVTYPE=disk) wants irqtune.service" wants /sys/block/nvme0n1
	check "udev: a partition does not" eval '! wants /sys/class/block/nvme0n1p1'
	check "udev: a change event does not" eval '! wants change'
	check "udev: lo does not" eval '! wants lo'
	why="$(printf '%s\n' "$out" | head -20)"
	check "udev: udevadm test really ran the rules" has "$out" 'Reading rules file: .*90-irqtune.rules'

	### per-device policy: a rule sets the property, udevadm test writes it
	### to the udev database, irqtune reads it back through libudev
	n0=$(irq_of eth0-TxRx-0); n1=$(irq_of eth0-TxRx-1); nm=$(irq_of eth0)
	ns_run() {	# ns_run RULES ARGS...: udevadm test eth0 + pci, then irqtune
		local rules=$1; shift
		RULES=$rules in_ns "$(declare -f udev_test)
			udev_test /sys/class/net/eth0 >/dev/null
			udev_test /sys/bus/pci/devices/0000:01:00.0 >/dev/null
			UMOCKDEV_DIR=\$D LD_PRELOAD=\"$PRELOAD\" $top/irqtune $* >\$D.out 2>\$D.err"
		RC=$?
		OUT=$(cat "$D.out"); ERR=$(cat "$D.err")
	}
	ns_run 'SUBSYSTEM=="net", KERNEL=="eth0", ENV{IRQTUNE_CPUS}="1"' -w 1 --json
	why="exit $RC: $ERR"; check "udev property: IRQTUNE_CPUS run exits 0" [ "$RC" -eq 0 ]
	why="eth0 IRQs on $(aff "$n0") $(aff "$n1") $(aff "$nm")"
	check "udev property: IRQTUNE_CPUS=1 on eth0 puts its IRQs on CPU 1" \
		sh -c '[ "$1" = 1 ] && [ "$2" = 1 ] && [ "$3" = 1 ]' _ "$(aff "$n0")" "$(aff "$n1")" "$(aff "$nm")"
	why="$(jq -c ".irqs[] | select(.irq == $n0)" "$D.out")"
	check "udev property: JSON names the policy" \
		[ "$(jq -r ".irqs[] | select(.irq == $n0) | .allowed + \"|\" + .policy" "$D.out")" = "1|IRQTUNE_CPUS on eth0" ]
	machine tiny || exit 1
	before="$(aff "$n0") $(aff "$n1") $(aff "$nm")"
	ns_run 'SUBSYSTEM=="pci", KERNEL=="0000:01:00.0", ENV{IRQTUNE_BAN}="1"' -w 1 -v
	why="$OUT"; check "udev property: IRQTUNE_BAN=1 on the PCI device bans its IRQs" \
		sh -c '[ "$1" = "$2" ] && printf "%s\n" "$3" | grep -Eq "^ *$4 .*banned"' \
		_ "$before" "$(aff "$n0") $(aff "$n1") $(aff "$nm")" "$OUT" "$n0"
	machine tiny || exit 1
	ns_run 'SUBSYSTEM=="net", KERNEL=="eth0", ENV{IRQTUNE_CPUS}="x-y"' -w 0.5
	why="exit $RC: $ERR"; check "udev property: a malformed IRQTUNE_CPUS is reported and ignored" \
		sh -c '[ "$1" -eq 0 ] && printf "%s\n" "$2" | grep -q "^irqtune: device 0000:01:00.0: IRQTUNE_CPUS .x-y. on eth0: .*; ignored"' \
		_ "$RC" "$ERR"
	machine tiny || exit 1
	before="$(aff "$n0") $(aff "$n1")"
	ns_run 'SUBSYSTEM=="net", KERNEL=="eth0", ENV{IRQTUNE_CPUS}="1"' -w 0.5 --bancpus 1
	why="exit $RC: $ERR"; check "udev property: allowed CPUs all banned: IRQs left, warning says why" \
		sh -c '[ "$1" -eq 0 ] && [ "$2" = "$3" ] &&
		       printf "%s\n" "$4" | grep -q "eth0-TxRx-0): no eligible CPU among IRQTUNE_CPUS on eth0 .1.; left where it is"' \
		_ "$RC" "$before" "$(aff "$n0") $(aff "$n1")" "$ERR"
fi

###########################################################################
### configuration file
machine tiny || exit 1
cfg=$work/conf
mkdir -p "$cfg"
conf() { printf '%s\n' "$@" >"$cfg/$name.conf"; chmod 0644 "$cfg/$name.conf"; }
name=bad; conf 'window = 1' 'threshold = 10' 'bancpus = 1'
run -n -w 0.1 -c "$cfg/bad.conf"
why="exit $RC: $ERR"; check "config: an error exits 78" [ "$RC" -eq 78 ]
why="$ERR"; check "config: the error names file and line" \
	[ "$ERR" = "irqtune: $cfg/bad.conf:2: threshold '10': give a percentage, e.g. 10%" ]
name=open; conf 'window = 1'; chmod 0666 "$cfg/open.conf"
run -n -w 0.1 -c "$cfg/open.conf"
why="exit $RC: $ERR"; check "config: a world-writable file is refused (78)" \
	sh -c '[ "$1" -eq 78 ] && printf "%s\n" "$2" | grep -q "writable by anyone (mode 0666): refusing it"' _ "$RC" "$ERR"
if [ "$(id -u)" -eq 0 ]; then
	name=foreign; conf 'window = 1'; chown 65534 "$cfg/foreign.conf"
	run -n -w 0.1 -c "$cfg/foreign.conf"
	why="exit $RC: $ERR"; check "config: a file owned by another user is refused (78)" \
		sh -c '[ "$1" -eq 78 ] && printf "%s\n" "$2" | grep -q "owned by uid 65534, not root"' _ "$RC" "$ERR"
fi
run -n -w 0.1 -c "$cfg/none.conf"
why="exit $RC: $ERR"; check "config: a missing --config file exits 78" [ "$RC" -eq 78 ]
run -n -c "$cfg/open.conf" --no-config
why="exit $RC"; check "config: --config with --no-config is a usage error (64)" [ "$RC" -eq 64 ]
run -n -w 0.1 --no-config -c "$cfg/bad.conf"
why="exit $RC"; check "config: --no-config -c is a usage error too" [ "$RC" -eq 64 ]
name=policy; conf 'window = 0.5' 'banirq = eth0-TxRx-0' '[net]' 'cpus = 1'
n0=$(irq_of eth0-TxRx-0); n1=$(irq_of eth0-TxRx-1)
b0=$(aff "$n0")
run --json -c "$cfg/policy.conf"
why="exit $RC: $ERR"; check "config: policy run exits 0" [ "$RC" -eq 0 ]
why="$(jq -c .run "$D.out")"; check "config: window from the file" [ "$(jqv .run.window_seconds)" = 0.5 ]
why="$(jq -c ".irqs[] | select(.irq == $n0)" "$D.out")"
check "config: banirq pattern bans eth0-TxRx-0" \
	sh -c '[ "$1" = banned ] && [ "$2" = "$3" ]' _ "$(jqv ".irqs[] | select(.irq == $n0) | .outcome")" "$b0" "$(aff "$n0")"
why="eth0-TxRx-1 on $(aff "$n1")"; check "config: [net] cpus = 1 puts net IRQs on CPU 1" [ "$(aff "$n1")" = 1 ]
machine tiny || exit 1
run -n --json -w 0.25 -c "$cfg/policy.conf" --banirq 0
why="$(jq -c .run "$D.out")"; check "config: -w overrides the file's window" [ "$(jqv .run.window_seconds)" = 0.25 ]
why="$(jqv ".irqs[] | select(.irq == $n0) | .outcome")"
check "config: --banirq replaces the file's banirq" [ "$(jqv ".irqs[] | select(.irq == $n0) | .outcome")" != banned ]
# affinity-hint = follow: the driver's hint narrows the allowed CPUs where
# it leaves an eligible one (tiny's NIC hints queue 0 to CPU 0, 1 to 1)
machine tiny || exit 1
n0=$(irq_of eth0-TxRx-0); n1=$(irq_of eth0-TxRx-1)
pol() { jqv ".irqs[] | select(.irq == $1) | \"\(.allowed)|\(.policy)\""; }
name=hint; conf 'affinity-hint = follow'
run --json -w 1 -c "$cfg/hint.conf"
why="$(pol "$n0") $(pol "$n1"); on $(aff "$n0") $(aff "$n1")"
check "config: affinity-hint = follow places each queue on its hint" \
	sh -c '[ "$1" = "0|affinity_hint" ] && [ "$2" = "1|affinity_hint" ] && [ "$3" = 0 ] && [ "$4" = 1 ]' \
	_ "$(pol "$n0")" "$(pol "$n1")" "$(aff "$n0")" "$(aff "$n1")"
name=hintnet; conf 'affinity-hint = follow' '[net]' 'cpus = 1'
run -n --json -w 0.2 -c "$cfg/hintnet.conf"
why="$(pol "$n0") $(pol "$n1")"
check "config: a hint outside the class's CPUs is ignored, one inside narrows them" \
	sh -c '[ "$1" = "1|[net] cpus" ] && [ "$2" = "1|[net] cpus and affinity_hint" ]' _ "$(pol "$n0")" "$(pol "$n1")"
run -n --json -w 0.2 --no-config
why="$(pol "$n0")"; check "config: hints are ignored by default" [ "$(pol "$n0")" = "null|null" ]
name=allban; conf 'bancpus = 0-1'
run -n -w 0.1 -c "$cfg/allban.conf"
why="exit $RC: $ERR"; check "exit: no eligible CPU left exits 69" [ "$RC" -eq 69 ]
run -n -w 0.1 -c "$cfg/allban.conf" --bancpus 1
why="exit $RC: $ERR"; check "config: --bancpus replaces the file's bancpus" [ "$RC" -eq 0 ]

###########################################################################
### --json
machine tiny || exit 1
run -n --json -w 1
why="exit $RC: $ERR"; check "json: dry run exits 0" [ "$RC" -eq 0 ]
why="$OUT"; check "json: parses back (jq)" jq -e . "$D.out" >/dev/null
handlers=$(for d in "$D"/proc/irq/[0-9]*; do set -- "$d"/*/; [ -d "$1" ] && echo x; done | wc -l)
why="$(jqv '.irqs | length') IRQs in JSON, $handlers with handlers"
check "json: one entry per IRQ with a handler" [ "$(jqv '.irqs | length')" -eq "$handlers" ]
bad=$(jq -r '.irqs[] | select((.outcome | IN("kept","moved","would_move","kernel_managed","gone","failed","banned","no_allowed_cpu") | not)
	or (.class | IN("net","storage","other") | not) or (.load | type) != "number"
	or (.irq | type) != "number" or (.reason | type) != "string") | .irq' "$D.out")
why="bad entries: $bad"; check "json: every IRQ has a known outcome, class, numeric load, reason" [ -z "$bad" ]
why="$(jq -c .summary "$D.out")"
check "json: dry run plans moves, writes none" \
	sh -c '[ "$(jq "[.irqs[] | select(.outcome == \"would_move\")] | length" "$1")" -eq "$(jq .summary.moved "$1")" ] &&
	       [ "$(jq .summary.moved "$1")" -gt 0 ] && [ "$(jq .dry_run "$1")" = true ] &&
	       [ "$(jq .run.locked "$1")" = null ]' _ "$D.out"
why="$(jq -c '.irqs[] | select(.outcome == "kernel_managed")' "$D.out")"
check "json: kernel-managed IRQs have no target" \
	[ "$(jq '[.irqs[] | select(.outcome == "kernel_managed" and .to != null)] | length' "$D.out")" -eq 0 ]
why="$(jq -c .machine "$D.out")"
check "json: machine and per-CPU loads" \
	sh -c '[ "$(jq -r .machine.online_cpus "$1")" = 0-1 ] && [ "$(jq ".machine.cpus | length" "$1")" -eq 2 ]' _ "$D.out"
run --json -w 1
why="$(jq -c '.summary, .run' "$D.out")"
check "json: a real run says moved and when it held the lock" \
	sh -c '[ "$(jq .summary.moved "$1")" -gt 0 ] && [ "$(jq "[.irqs[] | select(.outcome == \"moved\")] | length" "$1")" -eq "$(jq .summary.moved "$1")" ] &&
	       jq -e ".run.started <= .run.locked and .run.locked <= .run.finished" "$1" >/dev/null' _ "$D.out"

###########################################################################
### --metrics-file
machine tiny || exit 1
mdir=$work/metrics
mkdir -p "$mdir"
umask_was=$(umask); umask 077
run --json -w 1 --metrics-file "$mdir/irqtune.prom"
umask "$umask_was"
m=$mdir/irqtune.prom
why="exit $RC: $ERR"; check "metrics: run exits 0 and writes the file" sh -c '[ "$1" -eq 0 ] && [ -f "$2" ]' _ "$RC" "$m"
why="mode $(stat -c %a "$m")"; check "metrics: readable by node_exporter whatever the umask (0644)" [ "$(stat -c %a "$m")" = 644 ]
left=$(ls -A "$mdir" | grep -v '^irqtune.prom$')
why="$left"; check "metrics: no temporary file left" [ -z "$left" ]
# The text format, line by line: HELP and TYPE before a family's samples,
# gauges only, "name{labels} value" without a timestamp.
syntax=$(awk '
	/^# HELP [a-z_:][a-z0-9_:]* / { help[$3] = 1; next }
	/^# TYPE [a-z_:][a-z0-9_:]* gauge$/ { if (!help[$3]) print "TYPE before HELP: " $0; type[$3] = 1; next }
	/^#/ { print "bad comment: " $0; next }
	{
		if (NF != 2) { print "not name value: " $0; next }
		name = $1; sub(/\{.*/, "", name)
		if (name !~ /^irqtune_[a-z0-9_]+$/) print "bad name: " $0
		if (!type[name]) print "no TYPE: " $0
		if ($1 ~ /\{/ && $1 !~ /^[a-z_]+\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\}$/) print "bad labels: " $0
		if ($2 !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ && $2 != "NaN") print "bad value: " $0
	}' "$m")
why="$syntax"; check "metrics: valid Prometheus text format, no timestamps" [ -z "$syntax" ]
metric() { awk -v k="$1" '$1 == k { print $2 }' "$m"; }
missing=
for k in irqtune_last_run_timestamp_seconds irqtune_run_duration_seconds irqtune_run_success \
	'irqtune_irqs{state="moved"}' 'irqtune_irqs{state="unchanged"}' 'irqtune_irqs{state="kernel_managed"}' \
	'irqtune_irqs{state="failed"}' 'irqtune_cpu_irq_load{cpu="0"}' 'irqtune_cpu_irq_load{cpu="1"}' \
	'irqtune_load_ratio{when="before"}' 'irqtune_load_ratio{when="after"}'; do
	[ -n "$(metric "$k")" ] || missing="$missing $k"
done
why="missing:$missing"; check "metrics: every documented series" [ -z "$missing" ]
sum=$(awk '/^irqtune_irqs\{/ { s += $2 } END { print s }' "$m")
why="states add to $sum, JSON seen $(jqv .summary.seen)"; check "metrics: IRQ states add up to the IRQs seen" [ "$sum" = "$(jqv .summary.seen)" ]
why="moved $(metric 'irqtune_irqs{state="moved"}') vs $(jqv .summary.moved)"
check "metrics: agree with the JSON" \
	sh -c '[ "$1" = "$2" ] && [ "$3" = 1 ] && awk -v a="$4" -v b="$5" "BEGIN { exit !(a - b < 1e-3 && b - a < 1e-3) }"' \
	_ "$(metric 'irqtune_irqs{state="moved"}')" "$(jqv .summary.moved)" "$(metric irqtune_run_success)" \
	"$(metric 'irqtune_load_ratio{when="after"}')" "$(jqv .summary.load_ratio_after)"
now=$(date +%s)
why="timestamp $(metric irqtune_last_run_timestamp_seconds), now $now"
check "metrics: timestamp is now" awk -v t="$(metric irqtune_last_run_timestamp_seconds)" -v n="$now" \
	'BEGIN { exit !(t > n - 60 && t <= n + 1) }'
# a run killed between create and rename leaves its temporary file: the
# next run removes ours once stale, nothing else
: >"$mdir/.irqtune.prom.deadbeef"; touch -d '1 hour ago' "$mdir/.irqtune.prom.deadbeef"
: >"$mdir/.irqtune.prom.0badf00d"
: >"$mdir/.irqtune.prom.keep"; touch -d '1 hour ago' "$mdir/.irqtune.prom.keep"
run -w 0.2 -q --metrics-file "$m"
left=$(ls -A "$mdir" | sort | tr '\n' ' ')
why="$left"; check "metrics: a stale temporary file of ours is removed, nothing else" \
	[ "$left" = ".irqtune.prom.0badf00d .irqtune.prom.keep irqtune.prom " ]
rm -f "$mdir/.irqtune.prom.0badf00d" "$mdir/.irqtune.prom.keep"
echo precious >"$work/target"
ln -sf "$work/target" "$mdir/link.prom"
run -w 0.2 -q --metrics-file "$mdir/link.prom"
why="exit $RC: $ERR"; check "metrics: a symlink at PATH is refused, not followed (74)" \
	sh -c '[ "$1" -eq 74 ] && [ "$(cat "$2")" = precious ] && [ -L "$3" ] &&
	       printf "%s\n" "$4" | grep -q "a symlink: refusing it"' _ "$RC" "$work/target" "$mdir/link.prom" "$ERR"
if [ "$(id -u)" -eq 0 ]; then
	echo theirs >"$mdir/foreign.prom"; chown 65534 "$mdir/foreign.prom"
	run -w 0.2 -q --metrics-file "$mdir/foreign.prom"
	why="exit $RC: $ERR"; check "metrics: another user's file at PATH is refused (74)" \
		sh -c '[ "$1" -eq 74 ] && [ "$(cat "$2")" = theirs ]' _ "$RC" "$mdir/foreign.prom"
fi
run -w 0.2 -q --metrics-file "$work/no/such/dir/x.prom"
why="exit $RC: $ERR"; check "metrics: an unwritable PATH exits 74" [ "$RC" -eq 74 ]
run -n -w 0.1 -c "$cfg/allban.conf" --metrics-file "$mdir/fail.prom"
why="$(cat "$mdir/fail.prom" 2>&1)"; check "metrics: a failed run is recorded as such" \
	sh -c 'grep -qx "irqtune_run_success 0" "$1" && grep -qx "irqtune_exit_status 69" "$1"' _ "$mdir/fail.prom"

###########################################################################
### concurrency: dozens of runs at once against one machine
N=${CONCURRENT:-32}
machine router conc || exit 1
cdir=$work/conc.runs
mkdir -p "$cdir"
burst() {	# burst TAG ARGS...: N runs at once; $cdir/TAG.K.{json,err,rc}
	local tag=$1 k; shift
	for k in $(seq "$N"); do
		( UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" "$top/irqtune" "$@" --json \
			>"$cdir/$tag.$k.json" 2>"$cdir/$tag.$k.err" </dev/null
		  echo $? >"$cdir/$tag.$k.rc" ) &
	done
	wait
}
# overlaps TAG: lock intervals [locked, finished] of the runs that ran, sorted
# by start; prints any run that started before the previous one finished
overlaps() {
	for f in "$cdir/$1".*.json; do
		[ -s "$f" ] && jq -r '"\(.run.locked) \(.run.finished)"' "$f"
	done | sort -n | awk 'NR > 1 && $1 < end { print "overlap at " $1 " before " end } { end = $2 }'
}
burst nowait -w 0.3
statuses=$(cat "$cdir"/nowait.*.rc | sort | uniq -c | tr '\n' ' ')
bad=$(cat "$cdir"/nowait.*.rc | grep -vx -e 0 -e 75 | head -3)
why="statuses: $statuses"; check "concurrency: $N runs without --wait-lock each exit 0 or 75" [ -z "$bad" ]
ran=$(grep -lx 0 "$cdir"/nowait.*.rc | wc -l)
why="statuses: $statuses"; check "concurrency: at least one of them ran" [ "$ran" -ge 1 ]
busy=$(for k in $(seq "$N"); do
	[ "$(cat "$cdir/nowait.$k.rc")" = 75 ] || continue
	[ -s "$cdir/nowait.$k.json" ] && echo "json:$k"
	grep -qx 'irqtune: another run holds /run/irqtune.lock; not running' "$cdir/nowait.$k.err" || echo "msg:$k"
done)
why="$busy"; check "concurrency: a run that found the lock taken says so and does nothing" [ -z "$busy" ]
ov=$(overlaps nowait)
why="$ov"; check "concurrency: no two runs held the machine at once (no wait)" [ -z "$ov" ]
burst wait -w 0.2 --wait-lock 120
statuses=$(cat "$cdir"/wait.*.rc | sort | uniq -c | tr '\n' ' ')
why="statuses: $statuses"; check "concurrency: $N runs with --wait-lock all exit 0" \
	[ "$(grep -lx 0 "$cdir"/wait.*.rc | wc -l)" -eq "$N" ]
ov=$(overlaps wait)
why="$ov"; check "concurrency: no two runs held the machine at once (waiting)" [ -z "$ov" ]
noise=$(cat "$cdir"/*.err | grep -v 'another run holds' | head -5)
why="$noise"; check "concurrency: no run or the simulated kernel complained" [ -z "$noise" ]
# The machine is consistent: the model loads, the files agree with it,
# every written affinity names one CPU, and one more run leaves it balanced.
single=
for d in "$D"/proc/irq/[0-9]*; do
	[ -w "$d/smp_affinity_list" ] || continue
	set -- "$d"/*/; [ -d "$1" ] || continue
	case "$(cat "$d/smp_affinity_list")" in *[,-]*) single="$single ${d##*/}" ;; esac
done
why="several CPUs:$single"; check "concurrency: afterwards every movable IRQ names one CPU" [ -z "$single" ]
why="$("$sim" score "$D" 2>&1 | head -3)"; check "concurrency: the simulated machine's state still loads" \
	"$sim" score "$D" >/dev/null 2>&1
cp -r "$D/proc/irq" "$D.irq"
"$sim" step "$D" 0 >/dev/null 2>&1	# re-render /proc from the model alone
why="$(diff -r "$D.irq" "$D/proc/irq" | head -5)"
check "concurrency: every affinity file agrees with the model (no lost or torn write)" \
	diff -rq "$D.irq" "$D/proc/irq"
run --json -w 1
ratio=$("$sim" score "$D" | awk '$1 == "load_ratio" { print $2 }')
why="exit $RC, load ratio $ratio: $ERR"
check "concurrency: a final run exits 0 and leaves the machine balanced (within 1.20 of the bound)" \
	sh -c '[ "$1" -eq 0 ] && awk -v r="$2" "BEGIN { exit !(r != \"\" && r <= 1.20) }"' _ "$RC" "$ratio"

###########################################################################
### syslog: a non-interactive run logs each move to /dev/log, one line each,
### tag irqtune with its pid, and stays silent on stdout with -q. glibc's
### syslog() connects to /dev/log with an internal call no preload sees, so
### this runs in a namespace whose /dev is private, with tests/shims/logsink as
### the syslog daemon.
# in_devns SCRIPT...: sh -c SCRIPT with a private /dev holding logsink's
# /dev/log; the received lines land in $work/syslog
in_devns() {
	unshare -m sh -c '
		set -e
		# the real /dev stays reachable under a private tmpfs on /mnt
		mount -t tmpfs none /mnt
		mkdir /mnt/dev
		set -- /mnt/dev "$2" "$3" "$4"
		mount --rbind /dev "$1"
		mount -t tmpfs -o mode=0755 none /dev
		for n in null zero full random urandom tty; do
			[ -e "$1/$n" ] || continue
			: >/dev/$n; mount --bind "$1/$n" /dev/$n
		done
		mkdir /dev/shm /dev/pts
		mount --rbind "$1/shm" /dev/shm
		# a pty of our own for script(1)
		mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts 2>/dev/null &&
			ln -s pts/ptmx /dev/ptmx || true
		ln -s /proc/self/fd /dev/fd
		"$2/tests/shims/logsink" /dev/log 120 >"$3/syslog" &
		sink=$!
		n=0; while [ ! -S /dev/log ] && [ $n -lt 200 ]; do sleep 0.02; n=$((n + 1)); done
		shift 3
		set +e
		sh -c "$@"
		rc=$?
		sleep 0.2; kill $sink; wait $sink
		exit $rc' _ - "$top" "$work" "$@"
}
if [ -z "$NS" ]; then
	skip "syslog" "no private mount namespace here (unshare -m failed); syslog output not checked"
else
	machine tiny || exit 1
	export D PRELOAD top
	in_devns 'UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" $top/irqtune -q -w 1 >$D.out 2>$D.err; echo $? >$D.rc
		UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" $top/irqtune -n -v --json -w 1 >$D.json 2>>$D.err'
	log=$(cat "$work/syslog"); RC=$(cat "$D.rc")
	moved=$(grep -c ': moved [0-9,-]* -> [0-9]*, load' "$work/syslog")
	why="exit $RC, stdout '$(cat "$D.out")', stderr '$(cat "$D.err")'"
	check "syslog: a quiet non-interactive run prints nothing" \
		sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ] && [ ! -s "$3" ]' _ "$RC" "$D.out" "$D.err"
	why="$log"; check "syslog: one line per move, daemon.info, tag irqtune with pid" \
		sh -c '[ "$1" -gt 0 ] && [ "$(grep -c ": moved " "$2")" -eq "$(grep -Ec "^<30>[A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} irqtune\[[0-9]+\]: irq [0-9]+ \(.*\) .*: moved " "$2")" ]' \
		_ "$moved" "$work/syslog"
	why="$log"; check "syslog: a summary line when something moved" \
		has "$log" '^<30>.* irqtune\[[0-9]+\]: [0-9]+ seen, [0-9]+ movable, '"$moved"' moved, '
	why="$log"; check "syslog: a dry run logs nothing" [ "$(grep -c . "$work/syslog")" -eq "$((moved + 1))" ]
	# errors: syslog at err and stderr (cron mails it); not twice in the journal
	name=bad; conf 'window = 1' 'bogus = 1'
	in_devns 'UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" $top/irqtune -q -w 1 -c '"$cfg/bad.conf"' >$D.out 2>$D.err
		exec 3>$D.err2; st=$(stat -c "%d:%i" $D.err2)
		JOURNAL_STREAM=$st UMOCKDEV_DIR=$D LD_PRELOAD="$PRELOAD" $top/irqtune -q -c '"$cfg/bad.conf"' 2>&3'
	log=$(cat "$work/syslog")
	why="$log"; check "syslog: a configuration error is logged at daemon.err" \
		has "$log" "^<27>.* irqtune\[[0-9]+\]: $cfg/bad.conf:2: unknown key 'bogus'"
	why="$(cat "$D.err")"; check "syslog: ... and printed on stderr for cron to mail" \
		grep -q "^irqtune: $cfg/bad.conf:2: unknown key 'bogus'" "$D.err"
	why="stderr: $(cat "$D.err2"); log: $log"; check "syslog: not also on stderr when stderr is the journal (JOURNAL_STREAM)" \
		sh -c '[ ! -s "$1" ] && [ "$(grep -c "unknown key" "$2")" -eq 2 ]' _ "$D.err2" "$work/syslog"
	# a terminal: the report on the terminal, nothing in syslog unless --syslog
	if ! command -v script >/dev/null; then
		skip "syslog at a terminal" "script(1) is not installed"
	elif ! in_devns 'script -qec true /dev/null' >/dev/null 2>&1; then
		skip "syslog at a terminal" "no pseudo-terminal here (devpts newinstance failed)"
	else
		machine tiny || exit 1
		in_devns 'script -qec "UMOCKDEV_DIR=$D LD_PRELOAD=\"$PRELOAD\" $top/irqtune -w 1" /dev/null >$D.out 2>&1'
		why="$(cat "$work/syslog") / $(cat "$D.out")"
		check "syslog: an interactive run (tty) prints its report and logs nothing" \
			sh -c '[ ! -s "$1" ] && grep -q "^irqtune: .* moved" "$2"' _ "$work/syslog" "$D.out"
		machine tiny || exit 1
		in_devns 'script -qec "UMOCKDEV_DIR=$D LD_PRELOAD=\"$PRELOAD\" $top/irqtune -w 1 --syslog" /dev/null >$D.out 2>&1'
		why="$(cat "$work/syslog")"; check "syslog: --syslog logs at a terminal too" \
			grep -q ': moved ' "$work/syslog"
	fi
fi

###########################################################################
### man pages and --help
for p in man/irqtune.8 man/irqtune.conf.5; do
	lint=$(mandoc -T lint -W warning "$p" 2>&1)
	why="$lint"; check "man: mandoc -T lint -W warning $p is clean" [ -z "$lint" ]
done
# --help's options, in order, against SYNOPSIS's: each as its short form
# when it has one ("-n"), else its long form ("--banirq").
help_opts=$("$top/irqtune" --help | sed -n 's/^  \(-[A-Za-z]\),.*/\1/p; s/^  \(--[a-z-]*\)[ =].*/\1/p')
syn_opts=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh/p' man/irqtune.8 | sed -n 's/^\.Op Fl \(-*[A-Za-z][a-z-]*\).*/-\1/p')
why="--help: $(echo $help_opts) / SYNOPSIS: $(echo $syn_opts)"
check "man: SYNOPSIS lists the options of --help, in order" [ "$help_opts" = "$syn_opts" ]
missing=
for o in $help_opts; do
	grep -q "^\.It Fl $(printf '%s' "$o" | sed 's/^-//')\b" man/irqtune.8 || missing="$missing $o"
done
why="not in OPTIONS:$missing"; check "man: OPTIONS describes every option" [ -z "$missing" ]
usage=$("$top/irqtune" --help | head -1)
for o in $help_opts; do
	case "$o" in --*) has "$usage" "\\[$o[]= ]" || missing="$missing $o" ;;
		     *) has "$usage" "\\[-[A-Za-z]*${o#-}" || missing="$missing $o" ;; esac
done
why="not in the usage line:$missing"; check "help: the usage line names every option" [ -z "$missing" ]
codes=$(sed -n '/^\.Sh EXIT STATUS/,/^\.Sh/p' man/irqtune.8 | sed -n 's/^\.It \([0-9]*\)$/\1/p' | tr '\n' ' ')
why="$codes"; check "man: EXIT STATUS lists 0 1 2 64 65 66 69 70 71 72 73 74 75 77 78" \
	[ "$codes" = "0 1 2 64 65 66 69 70 71 72 73 74 75 77 78 " ]
exit 0
