#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The package on Debian 13 "trixie" (make check-deb13; .ci/run runs it):
# a Debian 13 root made with debootstrap from this machine's own Debian
# archive (as its apt sources name it), in which the package is built,
# linted, installed into a second, fresh root, verified by systemd and run.
#
# Built there, not here. An admin on Debian 13 gets a package built on
# Debian 13 (from the Debian archive or from this source), and only a build
# there proves that the Build-Depends resolve on trixie, that its gcc and
# clang compile the tree without a warning, and that its debhelper lays
# the package out as Debian 13 wants (/usr/lib: debian/rules). That costs
# a couple of minutes on 2 cores; the package built on Debian 12 (make deb)
# installs there too (issue 32), and check-deb tests that one. The one
# built here is kept as dist/debian13/irqtune_VERSION_ARCH.deb.
#
# Two roots, cached as zstd tarballs under $DEB13_CACHE (/var/tmp/irqtune-deb13):
#   base   debootstrap --variant=minbase trixie, plus systemd: a fresh
#          Debian 13 machine, for the install, systemd-analyze and the run
#   build  base plus "tools/deps build deb" run inside it, which proves
#          that those package names hold on Debian 13
# They are made again when older than $DEB13_DAYS days (7), when the
# package lists or the archive change, or when a tarball does not match
# the checksums written after it was complete (a cut or damaged cache is
# rebuilt, never trusted). Each run unpacks copies into a directory of its
# own and removes it at the end: a tmpfs (up to $DEB13_TMPFS, 6g; it holds
# 2 GB for a few minutes) mounted in this script's own mount namespace,
# so that a killed run leaves no files behind either.
#
# Everything runs in a private mount namespace: /proc, /sys and /dev are
# bound into the fresh root for the dry run only and unmounted by a trap;
# should the script be killed, the mounts end with the namespace. irqtune
# runs there with --dry-run --no-state only, and this host's IRQ
# affinities are compared before and after.
#
# Needs root and the Debian archive; skipped, saying why, without them.
# Prints "PASS name", "FAIL name: why" or "SKIP name: why", and the time
# each step took.
set -u
export IRQTUNE_DEB13_T0=${IRQTUNE_DEB13_T0:-$(date +%s)}
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh		# pass, fail, skip, check

suite=trixie
days=${DEB13_DAYS:-7}
cache=${DEB13_CACHE:-/var/tmp/irqtune-deb13}
# Bumped when what goes into the roots changes in a way the key misses.
recipe=1

if [ "$(id -u)" -ne 0 ]; then
	skip "deb13" "needs root (debootstrap, chroot, mounts)"
	exit 0
fi
if [ -z "${IRQTUNE_DEB13_NS:-}" ]; then
	if ! unshare -m --propagation private true 2>/dev/null; then
		skip "deb13" "cannot make a private mount namespace here (unshare -m)"
		exit 0
	fi
	exec unshare -m --propagation private env IRQTUNE_DEB13_NS=1 bash "$0" "$@"
fi

now() { date +%s; }
t0=${IRQTUNE_DEB13_T0:-$(now)}

if ! out=$(tools/deps deb13 2>&1); then
	skip "deb13" "debootstrap cannot be installed here: $out"
	exit 0
fi

# The Debian archive this machine's apt uses: the first deb source of a
# Debian suite (not -security, -updates or a third party's) in its sources.
debian_mirror() {
	{
		cat /etc/apt/sources.list.d/*.sources 2>/dev/null
		echo
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] && sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) \([^ ]*\) .*/URIs: \2\nSuites: \3\n/p' "$f"
		done
	} | awk -v RS= '
		{ uris = ""; suites = ""; n = split($0, l, "\n")
		  for (i = 1; i <= n; i++) {
			if (l[i] ~ /^#/) continue
			if (l[i] ~ /^URIs:/) { uris = l[i]; sub(/^URIs: */, "", uris) }
			if (l[i] ~ /^Suites:/) { suites = l[i]; sub(/^Suites: */, "", suites) }
		  }
		  if (uris !~ /security/ && suites ~ /(^| )(bullseye|bookworm|trixie|forky|sid|oldstable|stable|testing|unstable)( |$)/) {
			split(uris, u, " "); print u[1]; exit
		  } }'
}
mirror=${DEB13_MIRROR:-$(debian_mirror)}
mirror=${mirror:-http://deb.debian.org/debian}
mirror=${mirror%/}
if ! wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$suite/InRelease"; then
	skip "deb13" "the Debian archive $mirror has no $suite here (wget $mirror/dists/$suite/InRelease failed)"
	exit 0
fi

version=$(sed -n 's/^VERSION *= *//p' Makefile)
arch=$(dpkg --print-architecture)
debname=irqtune_${version}_$arch.deb
# One quiet, predictable environment in the roots: not this shell's.
inroot() {	# inroot ROOT COMMAND...
	local r=$1; shift
	chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

mkdir -p "$cache" || exit 1
exec 9>"$cache/lock"
if ! flock -w 1800 9; then
	fail "deb13: the cache" "another check-deb13 has held $cache/lock for 30 minutes"
	exit 1
fi

### the cache
key=$(printf 'recipe %s\nsuite %s\nmirror %s\narch %s\n' "$recipe" "$suite" "$mirror" "$arch"
      tools/deps -l build deb)
key=$(printf '%s\n' "$key" | sha256sum | cut -c1-16)
cache_bad() {	# prints why the cache cannot be used, if it cannot
	local f age
	for f in SHA256SUMS key base.tar.zst build.tar.zst; do
		[ -f "$cache/$f" ] || { echo "no $f"; return; }
	done
	[ "$(cat "$cache/key")" = "$key" ] ||
		{ echo "made for other package lists or another archive"; return; }
	age=$(( ($(now) - $(stat -c %Y "$cache/SHA256SUMS")) / 86400 ))
	[ "$age" -lt "$days" ] || { echo "$age days old (the limit is $days)"; return; }
	(cd "$cache" && sha256sum --quiet -c SHA256SUMS >/dev/null 2>&1) ||
		echo "a tarball does not match its checksum (cut short or damaged)"
}

# Only what this script made, and never through a mount: --one-file-system.
scrub() { [ -e "$1" ] && rm -rf --one-file-system -- "$1"; }
# Unmount whatever is mounted under $1, deepest first, and $1 with -a.
unmount_under() {
	local m
	findmnt -rn -o TARGET | awk -v p="$1/" 'index($0, p) == 1' | sort -r |
	while read -r m; do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	if [ "${2:-}" = -a ] && mountpoint -q "$1"; then
		umount "$1" 2>/dev/null || umount -l "$1"
	fi
}
# A scratch directory DIR on a tmpfs of its own (in this namespace only).
scratch() {
	mkdir -p "$1" && mount -t tmpfs -o "size=${DEB13_TMPFS:-6g},mode=0700" tmpfs "$1"
}
mounted_under() { findmnt -rn -o TARGET | awk -v p="$1/" 'index($0, p) == 1'; }

new=$cache/new
run=
cleanup() {
	local t
	t=$(now)
	for d in "$new" "$run"; do
		[ -n "$d" ] || continue
		unmount_under "$d" -a
		scrub "$d"
	done
	rm -f "$cache"/*.new
	echo "deb13: removed the copies in $(( $(now) - t ))s; $(( $(now) - t0 ))s in all"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
for d in "$cache"/run.* "$new"; do	# left by a run that was killed (we hold the lock)
	[ -e "$d" ] && unmount_under "$d" -a && scrub "$d"
done

pack() {	# pack ROOT TARBALL
	tar --numeric-owner -C "$1" -cf - . | zstd -q -T2 -3 -o "$2"
}

build_cache() {
	local r=$new/root log=$new/make.log
	scratch "$new" || return 1
	echo "deb13: debootstrap --variant=minbase --include=systemd $suite from $mirror"
	if ! debootstrap --variant=minbase --include=systemd "$suite" "$r" "$mirror" >"$log" 2>&1; then
		fail "deb13: debootstrap makes a Debian 13 root from $mirror" "$(tail -20 "$log")"
		return 1
	fi
	pass "deb13: debootstrap makes a Debian 13 root from $mirror ($(. "$r/etc/os-release"; echo "$PRETTY_NAME"))"
	# The chroot's daemons never start (invoke-rc.d(8)); no systemd runs there either.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d" && chmod 755 "$r/usr/sbin/policy-rc.d"
	inroot "$r" apt-get clean
	pack "$r" "$cache/base.tar.zst.new" || return 1
	cp tools/deps "$r/tmp/deps"
	mount -t proc proc "$r/proc"
	inroot "$r" sh /tmp/deps build deb >>"$log" 2>&1
	rc=$?
	umount "$r/proc"
	why="exit $rc: $(tail -20 "$log")"
	check "deb13: tools/deps build deb installs its packages on Debian 13" [ "$rc" -eq 0 ]
	[ "$rc" -eq 0 ] || return 1
	rm -f "$r/tmp/deps"
	inroot "$r" apt-get clean
	pack "$r" "$cache/build.tar.zst.new" || return 1
	# The checksums go last: a cache without them is one never finished.
	rm -f "$cache/SHA256SUMS"
	echo "$key" >"$cache/key"
	mv -f "$cache/base.tar.zst.new" "$cache/base.tar.zst" &&
		mv -f "$cache/build.tar.zst.new" "$cache/build.tar.zst" &&
		(cd "$cache" && sha256sum base.tar.zst build.tar.zst key >SHA256SUMS.new) &&
		mv -f "$cache/SHA256SUMS.new" "$cache/SHA256SUMS" || return 1
	unmount_under "$new" -a; scrub "$new"
}

t=$(now)
bad=$(cache_bad)
if [ -n "$bad" ]; then
	echo "deb13: the cached roots in $cache cannot be used: $bad; making them again"
	if ! build_cache; then
		fail "deb13: the Debian 13 roots" "could not be made (above)"
		exit 1
	fi
	bad=$(cache_bad)
	why="$bad"; check "deb13: the new cache verifies against its checksums" [ -z "$bad" ]
	[ -z "$bad" ] || exit 1
	cache_how="made (cold) in $(( $(now) - t ))s"
else
	cache_how="verified in $(( $(now) - t ))s, made $(date -u -r "$cache/SHA256SUMS" '+%F %H:%M UTC')"
fi
echo "deb13: root cache: $cache_how"

t=$(now)
run=$(mktemp -d "$cache/run.XXXXXX") && scratch "$run" || exit 1
b=$run/build f=$run/fresh
mkdir -p "$b" "$f"
zstd -q -dc "$cache/build.tar.zst" | tar --numeric-owner -C "$b" -xf - &&
	zstd -q -dc "$cache/base.tar.zst" | tar --numeric-owner -C "$f" -xf -
rc=$?
why="exit $rc"; check "deb13: the cached roots unpack" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || exit 1
t_unpack=$(( $(now) - t ))

### build and lint there
t=$(now)
src=$b/build/irqtune-$version
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -co --exclude-standard | while IFS= read -r p; do
		[ -e "$p" ] && printf '%s\n' "$p"; done
else
	find . -path ./.git -prune -o -path ./dist -prune -o -path ./tests/out -prune \
		-o -path ./build -prune -o -type f -print
fi | tar -cf - -T - | tar -xf - -C "$src"
inroot "$b" sh -c "cd /build/irqtune-$version && nice dpkg-buildpackage -b -us -uc -j2" \
	>"$run/build.log" 2>&1
rc=$?
cp "$run/build.log" tests/out/deb13-build.log 2>/dev/null
why="exit $rc: $(tail -30 "$run/build.log")"
check "deb13: dpkg-buildpackage builds the package on Debian 13 (its Build-Depends resolve there)" \
	sh -c '[ "$1" -eq 0 ] && [ -f "$2" ]' _ "$rc" "$b/build/$debname"
[ -f "$b/build/$debname" ] || exit 1
# Kept, for an admin on Debian 13 (make deb's is Debian 12's).
mkdir -p dist/debian13 && cp "$b/build/$debname" dist/debian13/ &&
	echo "deb13: dist/debian13/$debname"
t_build=$(( $(now) - t ))
cc=$(inroot "$b" gcc -dumpfullversion)
clang=$(inroot "$b" clang -dumpversion)
warn=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$run/build.log")
why="$warn"; check "deb13: gcc $cc and clang $clang compile it without a warning" [ -z "$warn" ]

t=$(now)
lv=$(inroot "$b" dpkg-query -W -f '${Version}' lintian)
inroot "$b" lintian --fail-on error,warning --display-info "/build/$debname" >"$run/lintian.log" 2>&1
rc=$?
why="exit $rc: $(grep -E '^[EW]: ' "$run/lintian.log")"
check "deb13: Debian 13's lintian ($lv) reports no error and no warning" \
	sh -c '[ "$1" -eq 0 ] && ! grep -qE "^[EW]: " "$2"' _ "$rc" "$run/lintian.log"
grep -E '^[IP]: ' "$run/lintian.log" | sed 's/^/deb13: lintian: /'
t_lint=$(( $(now) - t ))

### a fresh Debian 13 machine: resolve, install, verify
t=$(now)
inroot "$f" apt-get update -qq >"$run/install.log" 2>&1
groups="build check deb vm deb13"
# shellcheck disable=SC2046
inroot "$f" apt-get install -s --no-install-recommends $(tools/deps -l $groups) \
	>"$run/resolve.log" 2>&1
rc=$?
why="exit $rc: $(grep -E '^(E|W):' "$run/resolve.log")"
check "deb13: every package tools/deps names ($groups) resolves on Debian 13, all together" \
	[ "$rc" -eq 0 ]
# systemd-analyze verify runs man(1) for each Documentation= page: man-db
# first, apart, so that the next install lists the package's own dependencies.
inroot "$f" apt-get install -y --no-install-recommends man-db >>"$run/install.log" 2>&1
cp "$b/build/$debname" "$f/tmp/"
inroot "$f" apt-get install -y --no-install-recommends "/tmp/$debname" >"$run/install2.log" 2>&1
rc=$?
cat "$run/install2.log" >>"$run/install.log"
got=$(sed -n 's/^Setting up \([^: ]*\).*/\1/p' "$run/install2.log" | grep -vx irqtune | tr '\n' ' ')
why="exit $rc: $(tail -20 "$run/install.log")"
check "deb13: apt-get installs it on a fresh Debian 13 root, with its dependencies from the archive (${got% })" \
	sh -c '[ "$1" -eq 0 ] && [ -x "$2/usr/sbin/irqtune" ]' _ "$rc" "$f"
t_install=$(( $(now) - t ))

### the installed package, with this host's /proc, /sys and /dev: systemctl
### and systemd-analyze want them, and the dry run reads this host's IRQs
t=$(now)
affinities() { grep -H . /proc/irq/*/smp_affinity_list 2>/dev/null; }
before=$(affinities)
for m in proc sys dev; do
	mount --bind "/$m" "$f/$m" || { fail "deb13: bind /$m into the root" "mount failed"; exit 1; }
done
en=$(inroot "$f" systemctl is-enabled irqtune.timer 2>&1)
why="$en"; check "deb13: the package enabled irqtune.timer" [ "$en" = enabled ]
sv=$(inroot "$f" systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
inroot "$f" systemd-analyze verify /usr/lib/systemd/system/irqtune.service \
	/usr/lib/systemd/system/irqtune.timer >"$run/verify.log" 2>&1
rc=$?
why="exit $rc: $(cat "$run/verify.log")"
check "deb13: systemd $sv's systemd-analyze verify accepts the unit and timer, no warnings" \
	sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ "$rc" "$run/verify.log"

inroot "$f" /usr/sbin/irqtune --dry-run --no-state -v >"$run/dry.log" 2>&1
rc=$?
unmount_under "$f"
after=$(affinities)
left=$(mounted_under "$run")
grep '^irqtune: ' "$run/dry.log" | head -6 | sed 's/^/deb13: /'
src_line=$(grep -m1 -iE 'load source|source:' "$run/dry.log")
why="exit $rc: $(tail -5 "$run/dry.log")"
check "deb13: irqtune --dry-run --no-state runs in the Debian 13 root on this host's kernel${src_line:+ ($src_line)}" \
	[ "$rc" -eq 0 ]
why="$(diff <(echo "$before") <(echo "$after"))"
check "deb13: the dry run changed none of this host's IRQ affinities" [ "$before" = "$after" ]
why="$left"; check "deb13: /proc, /sys and /dev are unmounted again" [ -z "$left" ]
t_dry=$(( $(now) - t ))

echo "deb13: time: root cache $cache_how; unpack ${t_unpack}s, build ${t_build}s," \
	"lintian ${t_lint}s, install ${t_install}s, verify and dry run ${t_dry}s; total $(( $(now) - t0 ))s"
exit 0
