# SPDX-License-Identifier: GPL-2.0-or-later
# mk/deb.mk - the Debian package.
#
#   make deb          dist/irqtune_VERSION_ARCH.deb, built with debhelper
#                     from debian/, then checked with lintian (errors and
#                     warnings fail it)
#   make check-deb    make deb, then tests/pkg/deb.sh on the package: its
#                     files, conffiles, maintainer scripts and purge;
#                     make check runs it after tests/run
#   make deb-clean    remove dist/
#
# The package is built in a copy of the tree (dist/build/irqtune-VERSION:
# the files git tracks or would, as they are now), since a package build
# starts with "make clean" and must not wipe this tree's build or a test
# run's tests/out. debhelper and lintian come from "tools/deps deb".

DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo unknown)
DEB_BUILD    = dist/build
DEB_SRC      = $(DEB_BUILD)/irqtune-$(VERSION)
DEB_FILE     = dist/irqtune_$(VERSION)_$(DEB_ARCH).deb

.deps-deb.stamp: tools/deps
	tools/deps deb
	@touch $@

deb: .deps-deb.stamp
	@ver=$$(dpkg-parsechangelog -l debian/changelog -S Version) && \
		[ "$$ver" = "$(VERSION)" ] || { \
		echo "deb: debian/changelog is at $$ver, the Makefile at $(VERSION): add a changelog entry (dch -v $(VERSION))" >&2; \
		exit 1; }
	@rm -rf $(DEB_BUILD) && mkdir -p $(DEB_SRC)
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -co --exclude-standard | while IFS= read -r f; do \
			[ -e "$$f" ] && printf '%s\n' "$$f"; done; \
	else \
		find . -path ./.git -prune -o -path ./dist -prune -o -path ./tests/out -prune -o -path ./$(B) -prune \
			-o -type f -print; \
	fi | tar -cf - -T - | tar -xf - -C $(DEB_SRC)
	@echo "deb: dpkg-buildpackage in $(DEB_SRC) (log: $(DEB_BUILD)/build.log)"
	@cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc -j2 >../build.log 2>&1 || { \
		tail -40 ../build.log; echo "deb: dpkg-buildpackage FAILED (log: $(DEB_BUILD)/build.log)"; exit 1; }
	@mv -f $(DEB_BUILD)/irqtune_$(VERSION)_$(DEB_ARCH).deb $(DEB_FILE)
	@echo "deb: $(DEB_FILE)"
	@echo "deb: lintian $(DEB_FILE)"
	@lintian --fail-on error,warning --display-info $(DEB_FILE) >$(DEB_BUILD)/lintian.log 2>&1; rc=$$?; \
		cat $(DEB_BUILD)/lintian.log; \
		[ $$rc -eq 0 ] || { echo "deb: lintian FAILED"; exit 1; }

# Not on .deps-deb.stamp: tests/pkg/deb.sh skips, saying why, where the tools
# cannot be installed.
check-deb:
	@mkdir -p tests/out; tests/pkg/deb.sh >tests/out/deb.log 2>&1; rc=$$?; \
	cat tests/out/deb.log; \
	p=$$(grep -c '^PASS ' tests/out/deb.log); f=$$(grep -c '^FAIL ' tests/out/deb.log); \
	[ $$rc -eq 0 ] || [ $$f -ne 0 ] || f=1; \
	echo "check-deb: $$p passed, $$f failed"; [ $$f -eq 0 ]

deb-clean:
	rm -rf dist .deps-deb.stamp

clean: deb-clean

CHECK_EXTRA += check-deb

.PHONY: deb check-deb deb-clean
