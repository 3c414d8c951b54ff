#!/bin/sh
# The index cache holds one index per file, written by whichever run read
# its DWARF first: a gprof-style -l report (cli/cmd-gmon.c) or
# --addr2line. Each must answer from the other's index exactly as from
# the DWARF:
#   tests/golden/cache-shared.sh SYMPROF DIR PROG GMON
# runs `-b -l PROG GMON` and `--addr2line -f -i -C -e PROG` (on about
# 4,000 addresses spread over .text) without a cache, then each with an
# index the other wrote; all outputs must equal the cacheless ones.
set -u
symprof=$1 dir=$2 prog=$3 gmon=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 2
unset SYMPROF_CACHE_DIR XDG_CACHE_HOME SYMPROF_NO_CACHE
text=$(readelf -SW "$prog" | sed -n 's/^ *\[ *[0-9]*\] \.text  *[A-Z]* *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\).*/\1 \2/p')
[ -n "$text" ] || { echo "FAIL: no .text in $prog" >&2; exit 1; }
set -- $text
awk -v a=$((0x$1)) -v s=$((0x$2)) 'BEGIN {
	step = int(s / 4000); if (step < 1) step = 1
	for (x = a; x < a + s; x += step) printf "0x%x\n", x
}' >"$tmp/addrs"
a2l() { "$symprof" "$@" --addr2line -f -i -C -e "$prog" <"$tmp/addrs"; }
SYMPROF_NO_CACHE=1 "$symprof" -b -l "$prog" "$gmon" >"$tmp/lines" || exit 1
SYMPROF_NO_CACHE=1 a2l >"$tmp/a2l" || exit 1
[ -s "$tmp/lines" ] && [ -s "$tmp/a2l" ] || { echo "FAIL: empty output (bad test)" >&2; exit 1; }
fail=0
# -l writes the index, --addr2line reads it
"$symprof" --cache-dir="$tmp/c1" -b -l "$prog" "$gmon" >/dev/null || exit 1
ls "$tmp"/c1/*/*.idx >/dev/null 2>&1 || { echo "FAIL: -l wrote no index" >&2; exit 1; }
a2l --cache-dir="$tmp/c1" | cmp -s - "$tmp/a2l" || { echo "FAIL: --addr2line from -l's index" >&2; fail=1; }
# --addr2line writes it, -l reads it
a2l --cache-dir="$tmp/c2" >/dev/null || exit 1
"$symprof" --cache-dir="$tmp/c2" -b -l "$prog" "$gmon" | cmp -s - "$tmp/lines" ||
	{ echo "FAIL: -l from --addr2line's index" >&2; fail=1; }
[ $fail = 0 ] && echo "$(wc -l <"$tmp/addrs") addresses and -l equal through either index"
exit $fail
