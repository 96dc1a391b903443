# SPDX-License-Identifier: GPL-2.0-or-later
# mk/vm.mk - the guest suite (tests/vm/README.md), as root:
#
#   make check-vm   Debian 12's and 13's own kernel packages and the newest
#                   of trixie-backports booted under QEMU (TCG), irqtune
#                   proven live on each; about 15 minutes on 2 cores
#
# It starts by installing what it needs (tools/deps build vm: QEMU,
# busybox-static and the rest). Kernels are fetched with apt-get download
# into /var/tmp/irqtune-vm (Debian 13's suites through a private
# sources.list there). Not part of make check.

# The guests' loads: static, for the initramfs.
tests/vm/loadgen: tests/vm/loadgen.c | .deps.stamp
	$(CC) $(ALL_CFLAGS) -static $(LDFLAGS) -o $@ $<

check-vm:
	tools/deps build vm
	@touch .deps.stamp
	$(MAKE) --no-print-directory all tests/vm/loadgen
	tests/vm/run

clean: clean-vm
clean-vm:
	rm -f tests/vm/loadgen

.PHONY: check-vm clean-vm
