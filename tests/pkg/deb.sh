#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package (make check-deb, which make check runs): make deb
# builds dist/irqtune_VERSION_ARCH.deb with debhelper and lintian finds
# no error or warning in it; then what the package holds (files, modes,
# paths the unit, cron job and hooks name, conffiles), how it enables the
# timer, that its program and man pages work, and what purging removes:
# the package's postrm is run against a scratch root ($DPKG_ROOT, as dpkg
# sets it) with the systemd helpers it calls replaced by stubs, so nothing
# is installed on or removed from this host. Skipped, with the reason,
# only where the Debian tools cannot be installed.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why"; make check-deb
# counts them.
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$PWD
. tests/lib.sh		# pass, fail, skip, check
work=$(mktemp -d /dev/shm/irqtune-deb.XXXXXX) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

if ! out=$(tools/deps deb 2>&1); then
	skip "deb" "the Debian packaging tools cannot be installed here: $out"
	exit 0
fi

version=$(sed -n 's/^VERSION *= *//p' Makefile)
arch=$(dpkg --print-architecture)
deb=dist/irqtune_${version}_$arch.deb
rm -f "$deb"
make -s deb >"$work/make.log" 2>&1
rc=$?
why="exit $rc: $(tail -30 "$work/make.log")"; check "deb: make deb succeeds" [ "$rc" -eq 0 ]
why="$(ls dist 2>&1)"; check "deb: leaves $deb" [ -f "$deb" ]
[ -f "$deb" ] || exit 1
tags=$(grep -E '^[EW]: ' dist/build/lintian.log)
why="$tags"; check "deb: lintian reports no error and no warning" \
	sh -c '[ -f "$1" ] && [ -z "$2" ] && grep -q "^deb: lintian" "$3"' _ \
	dist/build/lintian.log "$tags" "$work/make.log"
over=$(cat debian/*lintian-overrides 2>/dev/null | grep -v '^#' | grep -c .)
uncommented=$(awk '/^#/ { c = 1; next } /./ { if (!c) print; c = 0 }' debian/*lintian-overrides 2>/dev/null)
why="$uncommented"; check "deb: every lintian override ($over) has a comment saying why" [ -z "$uncommented" ]

### what it holds
# Built on Debian 13, what goes under /lib is shipped under /usr/lib
# (debian/rules: dh_movetousr): the same place on a merged-/usr system.
dpkg-deb -c "$deb" | awk '{ print $1, $6 }' | sed 's|^\([^ ]* \)\./usr/lib/|\1./lib/|' >"$work/contents"
bad=
while read -r mode path; do
	grep -qx -- "$mode \\./${path#/}" "$work/contents" || bad="$bad $path($mode)"
done <<'EOF'
-rwxr-xr-x /usr/sbin/irqtune
-rw-r--r-- /usr/share/man/man8/irqtune.8.gz
-rw-r--r-- /usr/share/man/man5/irqtune.conf.5.gz
-rw-r--r-- /lib/systemd/system/irqtune.service
-rw-r--r-- /lib/systemd/system/irqtune.timer
-rw-r--r-- /lib/udev/rules.d/90-irqtune.rules
-rw-r--r-- /etc/cron.d/irqtune
-rwxr-xr-x /etc/network/if-up.d/irqtune
-rwxr-xr-x /etc/NetworkManager/dispatcher.d/90-irqtune
-rw-r--r-- /etc/irqtune.conf
-rw-r--r-- /usr/share/doc/irqtune/copyright
EOF
why="missing or wrong mode:$bad"; check "deb: holds the program, man pages, units, udev rule, cron job, hooks, configuration" [ -z "$bad" ]
root=$work/root
dpkg-deb -x "$deb" "$root"
dpkg-deb -e "$deb" "$work/control"
conff=$(sort "$work/control/conffiles" | tr '\n' ' ')
why="$conff"; check "deb: /etc/irqtune.conf, the cron job and the hooks are conffiles" \
	[ "$conff" = "/etc/NetworkManager/dispatcher.d/90-irqtune /etc/cron.d/irqtune /etc/irqtune.conf /etc/network/if-up.d/irqtune " ]
unit=$root/lib/systemd/system/irqtune.service
[ -e "$unit" ] || unit=$root/usr/lib/systemd/system/irqtune.service
why="$(grep ExecStart "$unit")"
check "deb: the unit runs /usr/sbin/irqtune" \
	grep -qx 'ExecStart=/usr/sbin/irqtune --quiet' "$unit"
line=$(grep -v -e '^#' -e '^[A-Z]*=' -e '^$' "$root/etc/cron.d/irqtune")
why="$line"; check "deb: the cron job stands down where systemd runs" \
	[ "$line" = "* * * * * root test -e /run/systemd/system || /usr/sbin/irqtune -q" ]
hooks=$(grep -h '/irqtune -q' "$root/etc/network/if-up.d/irqtune" "$root/etc/NetworkManager/dispatcher.d/90-irqtune" | grep -c '^/usr/sbin/irqtune -q --wait-lock 30 ')
why="$hooks of 2"; check "deb: both hooks run /usr/sbin/irqtune" [ "$hooks" -eq 2 ]
why="$(cat "$work/control/postinst")"
check "deb: postinst enables and starts the timer through deb-systemd-helper" \
	sh -c 'grep -q "deb-systemd-helper enable .irqtune.timer." "$1" &&
	       grep -q "deb-systemd-invoke start .irqtune.timer." "$1" &&
	       ! grep -q "irqtune.service" "$1"' _ "$work/control/postinst"
why="$(cat "$work/control/postrm")"
check "deb: postrm purges the timer's enablement" \
	grep -q "deb-systemd-helper purge .irqtune.timer." "$work/control/postrm"

### it works
v=$("$root/usr/sbin/irqtune" --version 2>&1)
why="$v"; check "deb: the packaged program runs" [ "$v" = "irqtune $version" ]
why="$("$root/usr/sbin/irqtune" --help 2>&1 | head -3)"
check "deb: the packaged program is this tree's (--ignore-other-balancer)" \
	sh -c '"$1" --help | grep -q -- --ignore-other-balancer' _ "$root/usr/sbin/irqtune"
lint=$(for p in man8/irqtune.8 man5/irqtune.conf.5; do
	zcat "$root/usr/share/man/$p.gz" >"$work/${p#*/}"
	mandoc -T lint -W warning "$work/${p#*/}" 2>&1
done)
why="$lint"; check "deb: the packaged man pages pass mandoc -T lint" [ -z "$lint" ]
flags=$(readelf -d "$root/usr/sbin/irqtune" | grep -E 'FLAGS')
why="$flags"; check "deb: built with Debian's hardening flags (PIE, BIND_NOW)" \
	sh -c 'printf "%s\n" "$1" | grep -q BIND_NOW && printf "%s\n" "$1" | grep -q PIE' _ "$flags"

### purge: what irqtune created goes, nothing else
sys=$work/sys
stubs=$work/stubs
mkdir -p "$sys/run/irqtune" "$sys/etc" "$sys/srv/metrics" "$stubs"
for t in deb-systemd-helper deb-systemd-invoke systemctl update-rc.d invoke-rc.d udevadm; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$t" "$work" >"$stubs/$t"
	chmod 755 "$stubs/$t"
done
: >"$sys/run/irqtune/state"
: >"$sys/run/irqtune.lock"
: >"$sys/run/other.lock"		# someone else's
cp "$root/etc/irqtune.conf" "$sys/etc/irqtune.conf"
echo 'metrics-file = /srv/metrics/irqtune.prom ; for node_exporter' >>"$sys/etc/irqtune.conf"
echo 'irqtune_run_success 1' >"$sys/srv/metrics/irqtune.prom"
: >"$sys/srv/metrics/.irqtune.prom.0badf00d"	# left by a killed run
: >"$sys/srv/metrics/node.prom"			# another exporter's
echo precious >"$sys/srv/precious"
ln -s "$sys/srv/precious" "$sys/srv/metrics/.irqtune.prom.deadbeef"
pr() { DPKG_ROOT=$sys PATH=$stubs:$PATH DPKG_MAINTSCRIPT_PACKAGE=irqtune sh "$work/control/postrm" "$@"; }
# dpkg --purge: postrm remove, the conffiles deleted, postrm purge
pr remove >"$work/postrm.out" 2>&1
rc1=$?
rm -f "$sys/etc/irqtune.conf"
pr purge >>"$work/postrm.out" 2>&1
rc2=$?
why="exit $rc1, $rc2: $(cat "$work/postrm.out")"; check "purge: postrm remove and purge exit 0" \
	[ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ]
left=$(cd "$sys" && find . | sort | tr '\n' ' ')
why="left: $left"; check "purge: removes /run/irqtune, the lock and the metrics file with its temporaries" \
	sh -c '[ ! -e "$1/run/irqtune" ] && [ ! -e "$1/run/irqtune.lock" ] &&
	       [ ! -e "$1/srv/metrics/irqtune.prom" ] && [ ! -e "$1/srv/metrics/.irqtune.prom.0badf00d" ] &&
	       [ ! -e "$1/var/lib/irqtune" ]' _ "$sys"
why="left: $left"; check "purge: and nothing else (other files, a symlink and its target stay)" \
	sh -c '[ -e "$1/run/other.lock" ] && [ -e "$1/srv/metrics/node.prom" ] &&
	       [ "$(cat "$1/srv/precious")" = precious ] && [ -L "$1/srv/metrics/.irqtune.prom.deadbeef" ]' _ "$sys"
why="$(cat "$work/calls" 2>/dev/null)"; check "purge: the timer's state is purged through deb-systemd-helper" \
	grep -q "^deb-systemd-helper purge irqtune.timer" "$work/calls"
# a purge without a metrics-file configured leaves every .prom alone
rm -rf "$sys"; mkdir -p "$sys/etc" "$sys/srv/metrics"
cp "$root/etc/irqtune.conf" "$sys/etc/irqtune.conf"
: >"$sys/srv/metrics/irqtune.prom"
pr remove >/dev/null 2>&1; rm -f "$sys/etc/irqtune.conf"; pr purge >/dev/null 2>&1
why="$(cd "$sys" && find . | sort | tr '\n' ' ')"; check "purge: with no metrics-file set, no metrics file is touched" \
	[ -e "$sys/srv/metrics/irqtune.prom" ]
exit 0
