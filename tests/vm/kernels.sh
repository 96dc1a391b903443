#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/kernels.sh - Debian's kernel packages for the guests: which one a
# meta-package stands for, the .debs fetched with apt-get download, and the
# kernel's tree unpacked once, with a modules.dep of its own. Everything is
# cached under $VM_CACHE (/var/tmp/irqtune-vm); nothing comes from anywhere
# but the Debian archive this machine's apt already reads.
#
#	kernels.sh resolve SPEC		the image package SPEC stands for now,
#					as SUITE:PACKAGE (or PACKAGE: this
#					machine's own suites)
#	kernels.sh fetch SPEC		download and unpack it; prints its tree
#					(boot/vmlinuz-V, lib/modules/V)
#	kernels.sh host			the package of the running kernel, if
#					Debian's archive has one
#
# SPEC is META (a meta-package of this machine's suites), SUITE:META (of
# another suite: trixie:linux-image-rt-amd64), or SUITE:newest (the newest
# stock image package of SUITE by version in its name: trixie-backports
# follows the newest kernel without the suite naming one). Another suite is
# read through a private sources.list and package lists under
# $VM_CACHE/apt/SUITE, for these commands alone: the machine's own apt
# configuration is never changed.
#
# Debian's newest kernels come split: linux-image-V is a stub depending on
# linux-binary-V (the kernel, at usr/lib/modules/V/vmlinuz, no /boot),
# linux-modules-V (usr/lib/modules, merged /usr) and linux-base-V (among
# others modules.builtin, without which modprobe cannot tell a built-in
# driver from a missing one). All are fetched and unpacked into one tree,
# and the tree gets the old paths as links.
#
# A failure says why on stderr and exits non-zero: the caller turns it into
# a FAIL line naming the cause.
set -eu
VM_CACHE=${VM_CACHE:-/var/tmp/irqtune-vm}
debs=$VM_CACHE/kernels
trees=$VM_CACHE/trees
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "kernels.sh: $*" >&2; exit 1; }

# The archive this machine's apt reads (its own suites' URI), and its
# security archive: another suite comes from the same places.
archive() {	# plain | security
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null | sort -u |
	awk -v k="$1" 'k == "security" && $2 ~ /-security$/ { print $1; exit }
		k == "plain" && $2 ~ /^[a-z]+(-updates)?$/ { print $1; exit }'
}

# apt options that read SUITE alone, from a private list under
# $VM_CACHE/apt/SUITE, updated at most once an hour. A release's own suite
# brings its -updates and -security suites with it, as a machine's
# sources.list has them.
aptopts=
suite() {
	s=$1 dir=$VM_CACHE/apt/$1
	aptopts="-o Dir::Etc::sourcelist=$dir/sources.list -o Dir::Etc::sourceparts=- \
-o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir/cache -o Dir::State::status=/dev/null \
-o Debug::NoLocking=1"
	if [ -n "$(find "$dir/updated" -mmin -60 2>/dev/null)" ]; then return 0; fi
	[ "$(id -u)" = 0 ] || die "$s: reading another suite needs root (apt-get update)"
	[ -r "$keyring" ] || die "$s: no $keyring (debian-archive-keyring)"
	main=$(archive plain) sec=$(archive security)
	[ -n "$main" ] || die "$s: this machine's apt reads no Debian archive (apt-get indextargets)"
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	{
		echo "deb [signed-by=$keyring] $main $s main"
		case "$s" in
		*-*) ;;
		*)	echo "deb [signed-by=$keyring] $main $s-updates main"
			[ -n "$sec" ] && echo "deb [signed-by=$keyring] $sec $s-security main" ;;
		esac
	} >"$dir/sources.list"
	# shellcheck disable=SC2086
	timeout 300 apt-get $aptopts -q update >"$dir/update.log" 2>&1 ||
		die "$s: apt-get update failed: $(grep -E '^(E|Err):' "$dir/update.log" | head -1)"
	touch "$dir/updated"
}

# SPEC -> "SUITE PACKAGE", SUITE empty for this machine's own
split_spec() {
	case "$1" in
	*:*) echo "${1%%:*} ${1#*:}" ;;
	*) echo "- $1" ;;
	esac
}

# The first Depends: of the meta-package: the names follow ABI bumps, so
# they are looked up each time, never written down.
resolve() {
	set -- $(split_spec "$1")
	s=$1 meta=$2
	if [ "$s" != - ]; then
		suite "$s"
		if [ "$meta" = newest ]; then
			# the suite's own index (not apt's candidate, which a
			# higher-priority suite could win): stock images only
			idx=$(ls "$VM_CACHE/apt/$s/lists/"*"_dists_${s}_main_binary-amd64_Packages"* 2>/dev/null | head -1)
			[ -n "$idx" ] || die "$s: no package index in $VM_CACHE/apt/$s/lists"
			pkg=$(/usr/lib/apt/apt-helper cat-file "$idx" |
				sed -n 's/^Package: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' |
				grep -Ev -- '-(rt|cloud)-amd64$' | sort -V | tail -1)
			[ -n "$pkg" ] || die "$s: no linux-image-VERSION-amd64 in its index"
			echo "$s:$pkg"
			return
		fi
	fi
	# shellcheck disable=SC2086
	pkg=$(apt-cache $aptopts depends "$meta" 2>/dev/null | awk '$1 == "Depends:" { print $2; exit }')
	# A machine whose package lists were never fetched knows no kernel.
	if [ -z "$pkg" ] && [ "$s" = - ] && [ "$(id -u)" = 0 ]; then
		apt-get update -qq >/dev/null 2>&1
		pkg=$(apt-cache depends "$meta" 2>/dev/null | awk '$1 == "Depends:" { print $2; exit }')
	fi
	[ "$s" = - ] && in= || in=" of $s"
	[ -n "$pkg" ] || die "$meta$in: apt-cache depends names no image package (apt-get update first?)"
	if [ "$s" = - ]; then echo "$pkg"; else echo "$s:$pkg"; fi
}

# download PACKAGE: its .deb in $debs (kept), printed
download() {
	deb=$(ls "$debs/${1}"_*.deb 2>/dev/null | tail -1 || true)
	if [ -z "$deb" ]; then
		# shellcheck disable=SC2086
		(cd "$debs" && timeout 600 apt-get $aptopts download -q "$1" >"$debs/.$1.log" 2>&1) ||
			die "$1: apt-get download failed: $(tail -1 "$debs/.$1.log")"
		deb=$(ls "$debs/${1}"_*.deb 2>/dev/null | tail -1) || die "$1: no .deb after download"
	fi
	echo "$deb"
}

fetch() {
	set -- $(split_spec "$1")
	s=$1 pkg=$2
	[ "$s" = - ] || suite "$s"
	mkdir -p "$debs" "$trees"
	deb=$(download "$pkg")
	dir=$trees/$(basename "$deb" .deb)
	if [ ! -e "$dir/.ready" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		# the split packages the image depends on, where it is a stub
		# shellcheck disable=SC2086
		parts=$(apt-cache $aptopts show "$pkg" 2>/dev/null | sed -n '/^Depends:/{s/^Depends://;s/([^)]*)//g;p;q}' |
			tr ',|' '\n\n' | awk '$1 ~ /^linux-(binary|modules|base)-/ { print $1 }')
		for p in $parts; do
			d=$(download "$p")
			dpkg-deb -x "$d" "$dir" || die "$d: cannot unpack"
		done
		dpkg-deb -x "$deb" "$dir" || die "$deb: cannot unpack"
		# merged /usr: the old paths as links, as on an installed system
		if [ -d "$dir/usr/lib/modules" ] && [ ! -e "$dir/lib/modules" ]; then
			[ -e "$dir/lib" ] || ln -s usr/lib "$dir/lib"
		fi
		ver=$(ls "$dir/lib/modules" 2>/dev/null | head -1)
		[ -n "$ver" ] || die "$deb${parts:+ (with $parts)}: no modules directory in it"
		if [ ! -e "$dir/boot/vmlinuz-$ver" ] && [ -e "$dir/lib/modules/$ver/vmlinuz" ]; then
			mkdir -p "$dir/boot"
			ln -s "../lib/modules/$ver/vmlinuz" "$dir/boot/vmlinuz-$ver"
		fi
		[ -e "$dir/boot/vmlinuz-$ver" ] || die "$deb${parts:+ (with $parts)}: no kernel image in it"
		# The package ships no modules.dep (the postinst makes one).
		depmod -b "$dir" "$ver" || die "$deb: depmod failed"
		touch "$dir/.ready"
	fi
	echo "$dir"
}

# The running kernel's package: linux-image-$(uname -r), if apt knows it.
host() {
	pkg=linux-image-$(uname -r)
	if apt-cache show "$pkg" >/dev/null 2>&1; then echo "$pkg"; else
		echo "the running kernel $(uname -r) has no package $pkg in Debian's archive" >&2
		exit 2
	fi
}

case "${1:-}" in
resolve) resolve "$2" ;;
fetch) fetch "$2" ;;
host) host ;;
*) die "usage: kernels.sh resolve SPEC | fetch SPEC | host" ;;
esac
