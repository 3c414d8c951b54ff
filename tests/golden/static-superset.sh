#!/bin/sh
# Compares symprof -c with a golden output of gprof -c:
#
#   tests/golden/static-superset.sh SYMPROF CASE.cmd
#
# gprof's scan misses calls (backward calls on x86-64, calls through the
# PLT), so symprof -c prints more arcs and its output is not gprof's byte
# for byte (docs/differences.md). This checks everything else:
#  1. the output up to the call graph (flat profile) is identical;
#  2. both graphs have entries for the same functions;
#  3. every arc gprof prints is printed, with the same "called" column;
#  4. every arc gprof does not print has a count of 0 (found in the code;
#     tests/golden/static-calls.sh checks those against objdump);
#  5. when symprof adds no arc, the whole output is byte for byte gprof's.
# Functions are compared by name (as printed, demangled or not).
set -u
export LC_ALL=C
symprof=$1
case_cmd=$2
dir=$(dirname "$case_cmd")
base=${case_cmd%.cmd}
awkf=$(cd "$(dirname "$0")" && pwd)/graph-arcs.awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$dir" || exit 2
eval "set -- $(cat "$case_cmd")"
"$symprof" "$@" >"$tmp/out" 2>/dev/null || { echo "FAIL: symprof failed"; exit 1; }
fail=0

sed '/Call graph/,$d' "$base.out" >"$tmp/gflat"
sed '/Call graph/,$d' "$tmp/out" >"$tmp/sflat"
if ! cmp -s "$tmp/gflat" "$tmp/sflat"; then
	echo "FAIL: the output before the call graph differs"
	diff -u "$tmp/gflat" "$tmp/sflat" | head -20
	fail=1
fi

awk -f "$awkf" "$base.out" | sort -u >"$tmp/g"
awk -f "$awkf" "$tmp/out" | sort -u >"$tmp/s"

grep '^K' "$tmp/g" >"$tmp/gk"
grep '^K' "$tmp/s" >"$tmp/sk"
if ! cmp -s "$tmp/gk" "$tmp/sk"; then
	echo "FAIL: the graphs have entries for different functions"
	diff "$tmp/gk" "$tmp/sk" | head -10
	fail=1
fi
missing=$(grep '^A' "$tmp/g" | comm -23 - "$tmp/s")
if [ -n "$missing" ]; then
	echo "FAIL: arcs gprof prints that symprof does not:"
	echo "$missing" | head -20
	fail=1
fi
extra=$(grep '^A' "$tmp/s" | comm -13 "$tmp/g" - | awk -F '\t' '$4 !~ /^0(\/|$)/')
if [ -n "$extra" ]; then
	echo "FAIL: arcs gprof does not print that have calls:"
	echo "$extra" | head -20
	fail=1
fi
added=$(grep '^A' "$tmp/s" | comm -13 "$tmp/g" - | wc -l)
# nothing added: then the whole output is gprof's byte for byte
if [ "$added" = 0 ] && ! cmp -s "$base.out" "$tmp/out"; then
	echo "FAIL: no arc added, yet the output differs from gprof's"
	diff -u "$base.out" "$tmp/out" | head -20
	fail=1
fi
echo "$(grep -c '^A' "$tmp/g") gprof arcs checked, $added added"
exit $fail
