# SPDX-License-Identifier: GPL-2.0-or-later
# mk/deb13.mk - the package on Debian 13 "trixie".
#
#   make check-deb13   tests/pkg/deb13.sh (as root): in a Debian 13 root
#                      made with debootstrap from this machine's Debian
#                      archive, the package is built, passes Debian 13's
#                      lintian, installs on a fresh root, passes systemd's
#                      verify there and runs a dry run; .ci/run runs it
#                      after make check
#   make deb13-clean   remove the cached roots (/var/tmp/irqtune-deb13)
#
# Not part of make check: it needs the Debian archive and a few minutes.
# The roots are cached for 7 days (DEB13_DAYS), under DEB13_CACHE.

DEB13_CACHE ?= /var/tmp/irqtune-deb13

check-deb13:
	@mkdir -p tests/out; DEB13_CACHE=$(DEB13_CACHE) tests/pkg/deb13.sh >tests/out/deb13.log 2>&1; rc=$$?; \
	cat tests/out/deb13.log; \
	p=$$(grep -c '^PASS ' tests/out/deb13.log); f=$$(grep -c '^FAIL ' tests/out/deb13.log); \
	[ $$rc -eq 0 ] || [ $$f -ne 0 ] || f=1; \
	echo "check-deb13: $$p passed, $$f failed"; [ $$f -eq 0 ]

deb13-clean:
	rm -rf --one-file-system $(DEB13_CACHE)

.PHONY: check-deb13 deb13-clean
