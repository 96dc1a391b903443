#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/source.sh - the shape rules of the source tree that no compiler
# checks: every include pointing down the floors of docs/ARCHITECTURE.md,
# every header compiling on its own, no function of the program longer
# than 120 lines (tools/funclen), and an SPDX licence line atop every
# source file. One PASS/FAIL line each, as the other suites print.
set -u
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The floors: docs/ARCHITECTURE.md's table, "FLOOR PART" a line, a part
# named as a folder ("lib") or a root file without its extension
# ("topology": its .c and .h are one part).
sed -n 's/^| *\([0-9][0-9]*\) *| *\([^|]*\)|.*/\1 \2/p' docs/ARCHITECTURE.md |
	while read -r floor parts; do
		for p in $(echo "$parts" | grep -o '`[^`]*`' | tr -d '`'); do
			p=${p%/}
			echo "$floor ${p%.[ch]}"
		done
	done >"$tmp/floors"

# Every quoted include of FILES (paths under DIR) that names a header of
# FILES and leaves its part for one on the same floor or above, or for a
# part the table lacks: one line each, nothing when all point down.
check_layers() {
	dir=$1
	shift
	(cd "$dir" && grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@") |
		sed 's/^\([^:]*\):[^"]*"\([^"]*\)".*/\1 \2/' >"$tmp/incs"
	printf '%s\n' "$@" | grep '\.h$' >"$tmp/hdrs"
	awk -v floors="$tmp/floors" -v hdrs="$tmp/hdrs" '
	function part(p, u) {
		u = p
		if (index(u, "/")) { sub(/\/.*/, "", u); return u }
		sub(/\.[ch]$/, "", u)
		return u
	}
	BEGIN {
		while ((getline l < floors) > 0) { split(l, f, " "); floor[f[2]] = f[1] }
		while ((getline h < hdrs) > 0) { n = h; sub(/.*\//, "", n); path[n] = h }
	}
	{
		name = $2
		sub(/.*\//, "", name)
		if (!(name in path))
			next		# a system or generated header
		a = part($1); b = part(path[name])
		if (a == b)
			next
		if (!(a in floor))
			print $1 ": " a " is on no floor"
		else if (!(b in floor))
			print $1 " -> " path[name] ": " b " is on no floor"
		else if (floor[b] >= floor[a])
			print $1 " -> " path[name] " (floor " floor[a] " to " floor[b] ")"
	}' "$tmp/incs" | sort -u
}

# The check must see a bad edge, or its silence means nothing: an upward
# one, a sideways one and a folder the table lacks.
mkdir -p "$tmp/bad/lib" "$tmp/bad/plan" "$tmp/bad/netpath" "$tmp/bad/nowhere"
echo '#include "plan.h"' >"$tmp/bad/lib/up.c"
echo '#include "plan.h"' >"$tmp/bad/netpath/side.c"
echo '#include "cpuset.h"' >"$tmp/bad/nowhere/new.c"
: >"$tmp/bad/plan/plan.h"
: >"$tmp/bad/lib/cpuset.h"
bad=$(check_layers "$tmp/bad" lib/up.c netpath/side.c nowhere/new.c plan/plan.h lib/cpuset.h)
if [ ! -s "$tmp/floors" ]; then
	echo "FAIL source-layers: no floors in docs/ARCHITECTURE.md"
elif [ "$(echo "$bad" | grep -c .)" -ne 3 ]; then
	echo "FAIL source-layers: the check missed a bad include: $(echo "$bad" | tr '\n' ';')"
else
	git ls-files '*.c' '*.h' 2>/dev/null | grep -v -e '^tests/' -e '^tools/' >"$tmp/tree"
	if [ ! -s "$tmp/tree" ]; then
		echo "SKIP source-layers: not a git checkout, no list of tracked files"
	elif out=$(check_layers . $(cat "$tmp/tree")) && [ -n "$out" ]; then
		echo "FAIL source-layers: includes that do not point down (docs/ARCHITECTURE.md): $(echo "$out" | tr '\n' ';')"
	else
		echo "PASS source-layers: $(wc -l <"$tmp/incs") includes of $(wc -l <"$tmp/tree") files point down $(cut -d' ' -f1 "$tmp/floors" | sort -un | wc -l) floors"
	fi
fi

# Every header compiles on its own: it includes what it uses. The
# compiler and flags are the Makefile's.
cc_flags=$(make -s --no-print-directory -f Makefile -f - print-cc <<'MK' 2>/dev/null
print-cc: ; @echo $(CC) $(ALL_CFLAGS)
MK
)
compiles() {
	printf '#include "%s"\n' "$1" >"$tmp/alone.c"
	$cc_flags -iquote "$(pwd)" -fsyntax-only -o /dev/null "$tmp/alone.c" >"$tmp/alone.log" 2>&1
}
printf 'static inline size_t f(void) { return 0; }\n' >"$tmp/nosize.h"
if [ -z "$cc_flags" ]; then
	echo "FAIL source-headers: the Makefile named no compiler"
elif compiles "$tmp/nosize.h"; then
	echo "FAIL source-headers: a header using size_t alone compiled"
else
	failed=$(git ls-files '*.h' 2>/dev/null | grep -v '^tests/' | while read -r h; do
			compiles "$h" || echo "$h: $(grep -m1 error "$tmp/alone.log")"
		done)
	if [ -z "$failed" ]; then
		echo "PASS source-headers: all $(git ls-files '*.h' | grep -vc '^tests/') headers compile on their own"
	else
		echo "FAIL source-headers: do not compile alone: $(echo "$failed" | tr '\n' ';')"
	fi
fi

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
