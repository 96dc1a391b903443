#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/kernels.sh - Debian's kernel packages for the guests: which one a
# meta-package stands for, the .deb fetched with apt-get download, and its
# tree unpacked once, with a modules.dep of its own. Everything is cached
# under $VM_CACHE (/var/tmp/irqtune-vm); nothing comes from anywhere else.
#
#	kernels.sh resolve META		the image package META depends on now
#	kernels.sh fetch PACKAGE	download and unpack PACKAGE; prints its
#					tree (boot/vmlinuz-V, lib/modules/V)
#	kernels.sh host			the package of the running kernel, if
#					Debian's archive has one
#
# A failure says why on stderr and exits non-zero: the caller turns it into
# a FAIL line naming the cause.
set -eu
VM_CACHE=${VM_CACHE:-/var/tmp/irqtune-vm}
debs=$VM_CACHE/kernels
trees=$VM_CACHE/trees

die() { echo "kernels.sh: $*" >&2; exit 1; }

# The first Depends: of the meta-package: the names follow ABI bumps, so
# they are looked up each time, never written down.
resolve() {
	pkg=$(apt-cache depends "$1" 2>/dev/null | awk '$1 == "Depends:" { print $2; exit }')
	# A machine whose package lists were never fetched knows no kernel.
	if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -qq >/dev/null 2>&1
		pkg=$(apt-cache depends "$1" 2>/dev/null | awk '$1 == "Depends:" { print $2; exit }')
	fi
	[ -n "$pkg" ] || die "$1: apt-cache depends names no image package (apt-get update first?)"
	echo "$pkg"
}

fetch() {
	pkg=$1
	mkdir -p "$debs" "$trees"
	deb=$(ls "$debs/${pkg}"_*.deb 2>/dev/null | tail -1 || true)
	if [ -z "$deb" ]; then
		(cd "$debs" && timeout 600 apt-get download -q "$pkg" >"$debs/.$pkg.log" 2>&1) ||
			die "$pkg: apt-get download failed: $(tail -1 "$debs/.$pkg.log")"
		deb=$(ls "$debs/${pkg}"_*.deb 2>/dev/null | tail -1) || die "$pkg: no .deb after download"
	fi
	dir=$trees/$(basename "$deb" .deb)
	if [ ! -e "$dir/.ready" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg-deb -x "$deb" "$dir" || die "$deb: cannot unpack"
		ver=$(ls "$dir/lib/modules" | head -1)
		[ -n "$ver" ] && [ -e "$dir/boot/vmlinuz-$ver" ] || die "$deb: no kernel image in it"
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
*) die "usage: kernels.sh resolve META | fetch PACKAGE | host" ;;
esac
