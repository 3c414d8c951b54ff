#!/bin/sh
# One IgProf golden case: tests/igprof/golden.sh SYMPROF DUMP COUNTER REPORT
#
# Run from fixtures/igprof. Passes when
#  1. `symprof --format=igprof --counter=COUNTER DUMP` prints igprof-analyse's
#     `-d -v -g -r COUNTER` REPORT byte for byte (per-function self and
#     cumulative values, calls, callers and callees, ranks, names);
#  2. every frame of the program's executable is named: no "@{NAME+OFF}"
#     (igprof-analyse's unnamed frame) and no "0x..." in the folded stacks
#     of every counter of the dump, even with --no-filter.
# IGPROF_MAP overrides the --path-map that finds the binaries (for dumps
# outside fixtures/igprof).
set -u
symprof=$1 dump=$2 counter=$3 report=$4
map=${IGPROF_MAP:---path-map=/tmp/pp-corpus/igprof=.}
out=$(mktemp) want=$(mktemp)
trap 'rm -f "$out" "$want"' EXIT

fail=0
if ! "$symprof" $map --format=igprof --counter="$counter" "$dump" >"$out"; then
	echo "FAIL: symprof exited with $?" >&2
	fail=1
fi
gzip -dcf "$report" >"$want"
if ! cmp -s "$want" "$out"; then
	echo "FAIL: --format=igprof differs from $report" >&2
	diff -u "$want" "$out" | head -40 >&2
	fail=1
fi
exe=$( (bzip2 -dc "$dump" 2>/dev/null || gzip -dcf "$dump") | head -1 | sed -n 's/^P=(.*N=(\(.*\)) T=.*/\1/p')
exe=$(basename "$exe")
"$symprof" $map --no-filter --format=folded --counter="$counter" "$dump" >"$out" 2>/dev/null
if [ ! -s "$out" ] || grep -E "@\{$exe\+|0x[0-9a-f]+ \(in " "$out" >&2; then
	echo "FAIL: frames of $exe left unnamed (above), or no stacks" >&2
	fail=1
fi
exit $fail
