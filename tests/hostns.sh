# SPDX-License-Identifier: GPL-2.0-or-later
# hostns.sh - sourced by the bash scripts that run irqtune against
# simulated machines (tests/lib.sh for the e2e suites, tests/bench/quality.sh):
# what of the host such a run would still reach, hidden.
#
# host_private [ARGS...]: where the host has a /dev/log or a /run/udev and
# we may, re-run the calling script ($0, with ARGS) in a private mount
# namespace with /dev/null over /dev/log and an empty tmpfs over /run/udev;
# elsewhere return at once. A run with stdout not a terminal logs to
# syslog, and glibc connects to /dev/log with an internal call no preload
# sees, so simulated moves would reach the host's journal (syslog() drops
# what it cannot send). umockdev shows libudev a simulated /sys but not a
# simulated udev database, so a simulated NIC of ifindex 2 would take the
# properties udevd keeps for the host's (/run/udev/data/n2: IRQTUNE_CPUS,
# ID_NET_LINK_FILE). Tests that need either make their own (e2e-admin,
# e2e-netpath).
host_private() {
	if [ -z "${IRQTUNE_E2E_NS:-}" ] && { [ -S /dev/log ] || [ -d /run/udev ]; } &&
	   [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		exec unshare -m env IRQTUNE_E2E_NS=1 sh -c \
			'{ [ ! -S /dev/log ] || mount --bind /dev/null /dev/log; } &&
			 { [ ! -d /run/udev ] || mount -t tmpfs -o mode=0755 none /run/udev; } ||
			 exit 1; exec bash "$@"' \
			sh "$0" "$@"
	fi
}
