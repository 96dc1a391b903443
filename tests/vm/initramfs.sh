#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/vm/initramfs.sh - the guest's whole root file system, built at test
# time for one kernel tree (from kernels.sh fetch):
#
#	initramfs.sh TREE OUT.cpio.gz
#
# It holds busybox-static, the freshly built ./irqtune, the loads
# (tests/vm/loadgen), bpftool (to show no program is left) and iproute2's
# ip (network namespaces, which busybox's ip cannot make), each with the
# shared libraries ldd names; the driver modules of the guest's devices
# with their dependencies, in insmod order, uncompressed (busybox insmod
# reads no .ko.xz); and the guest side of the checks (tests/vm/guest.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$1
out=$2
ver=$(ls "$tree/lib/modules" | head -1)
# The guests' devices: NVMe, virtio (PCI, block, net) and the e1000e. A
# kernel without one of them (Debian's cloud flavour has no e1000e) is
# given the others; the list of the missing goes into /mods/absent, and the
# suite gives its machine another device instead (tests/vm/run).
mods="virtio_pci virtio_blk virtio_net e1000e nvme"

die() { echo "initramfs.sh: $*" >&2; exit 1; }

root=$(mktemp -d "${VM_CACHE:-/var/tmp/irqtune-vm}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/proc" "$root/sys" \
	"$root/dev" "$root/run" "$root/tmp" "$root/mods" "$root/etc" "$root/var"

# A binary and the libraries it links, at the paths ldd resolves them to.
with_libs() {	# SOURCE DEST
	cp -L "$1" "$root$2"
	ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

busybox=$(command -v busybox) || die "no busybox (tools/deps vm installs busybox-static)"
file -L "$busybox" | grep -q 'statically linked' || die "$busybox is not static (busybox-static)"
cp "$busybox" "$root/bin/busybox"
for b in "$top/irqtune" "$top/tests/vm/loadgen"; do
	[ -x "$b" ] || die "$b: not built"
done
with_libs "$top/irqtune" /usr/sbin/irqtune
cp "$top/tests/vm/loadgen" "$root/usr/bin/loadgen"
with_libs "$(command -v bpftool || echo /usr/sbin/bpftool)" /usr/sbin/bpftool
with_libs "$(readlink -f "$(command -v ip)")" /usr/sbin/ip
cp "$top/tests/vm/guest.sh" "$root/guest.sh"
printf 'root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

# The modules, in the order modprobe would load them; each once.
n=0
for m in $mods; do
	modprobe -d "$tree" -S "$ver" --show-depends "$m" 2>/dev/null || echo "$m" >>"$root/mods/absent"
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' | while read -r ko; do
	n=$((n + 1))
	name=$(printf '%02d-%s' "$n" "$(basename "$ko" | sed 's/\.ko.*$//')").ko
	case "$ko" in
	*.ko.xz) xz -dc "$ko" >"$root/mods/$name" ;;
	*.ko.zst) zstd -qdc "$ko" >"$root/mods/$name" ;;
	*.ko.gz) gzip -dc "$ko" >"$root/mods/$name" ;;
	*) cp "$ko" "$root/mods/$name" ;;
	esac
	echo "$name" >>"$root/mods/order"
done
case " $(cat "$root/mods/absent" 2>/dev/null | tr '\n' ' ')" in
*" virtio_pci "*|*" virtio_blk "*|*" virtio_net "*|*" nvme "*)
	die "$ver: modprobe cannot resolve $(tr '\n' ' ' <"$root/mods/absent")" ;;
esac
[ -s "$root/mods/order" ] || echo "(every driver built in)" >"$root/mods/none"

cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
[ -e /mods/order ] && for m in $(cat /mods/order); do insmod "/mods/$m" || echo "init: insmod $m failed"; done
exec sh /guest.sh
INIT
chmod 755 "$root/init" "$root/guest.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.tmp"
mv -f "$out.tmp" "$out"
