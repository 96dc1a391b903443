#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/source.sh - the shape rules of the source tree that no compiler
# checks: no function of the program longer than 120 lines
# (tools/funclen), and an SPDX licence line atop every source file. One
# PASS/FAIL line each, as the other suites print.
set -u
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The program's C files, as the Makefile builds them (LIB_SRCS and main).
srcs=$(make -s --no-print-directory -f Makefile -f - print-srcs <<'MK' 2>/dev/null
print-srcs: ; @echo irqtune.c $(LIB_SRCS)
MK
)
if [ -z "$srcs" ]; then
	echo "FAIL source-funclen: the Makefile named no sources"
else
	# funclen itself must see a long function, or its silence means nothing.
	{ echo "static int f(void)"; echo "{"; i=0
	  while [ $i -lt 121 ]; do echo "	i++;"; i=$((i + 1)); done; echo "}"; } >"$tmp/long.c"
	if tools/funclen "$tmp/long.c" >/dev/null 2>&1; then
		echo "FAIL source-funclen: tools/funclen missed a function of 124 lines"
	elif out=$(tools/funclen $srcs 2>&1); then
		echo "PASS source-funclen: $(echo $srcs | wc -w) files, no function over 120 lines"
	else
		echo "FAIL source-funclen: longer than 120 lines: $(echo "$out" | tr '\n' ';')"
	fi
fi

# Every tracked source, build and test file names its licence.
git ls-files 2>/dev/null | grep -E '\.(c|h|sh|mk|awk|in|rules|[58])$|^Makefile$|^tests/run$|^tools/' >"$tmp/files"
missing=$(while read -r f; do
		head -3 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || echo "$f"
	done <"$tmp/files")
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "SKIP source-spdx: not a git checkout, no list of tracked files"
elif [ -z "$missing" ]; then
	echo "PASS source-spdx: all $(wc -l <"$tmp/files") source files name GPL-2.0-or-later"
else
	echo "FAIL source-spdx: no SPDX line in the first three lines of: $(echo $missing)"
fi
