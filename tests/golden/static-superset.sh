#!/bin/sh
# Compares symprof -c with a golden output of gprof -c:
#
#   tests/golden/static-superset.sh SYMPROF CASE.cmd
#
# gprof's scan misses calls (backward calls on x86-64, calls through the
# PLT), so symprof -c prints more arcs and its output is not gprof's byte
# for byte (docs/differences.md). Static arcs take part in cycles (gprof's
# rule), so an added arc that closes a cycle changes the total-per-call
# column of the flat profile and the called column of the graph for the
# functions of that cycle and their callers. static-superset.py checks
# everything else (see its comment): cycles are the components of the
# printed arcs in both outputs; with the same cycles, the flat profile is
# identical; every gprof arc is printed with the same calls; the added ones
# have a count of 0 (tests/golden/static-calls.sh checks those against
# objdump); with no arc added, the whole output is gprof's byte for byte.
# Functions are compared by name (as printed, demangled or not).
set -u
export LC_ALL=C
symprof=$1
case_cmd=$2
dir=$(dirname "$case_cmd")
base=${case_cmd%.cmd}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$dir" || exit 2
eval "set -- $(cat "$case_cmd")"
"$symprof" "$@" >"$tmp/out" 2>/dev/null || { echo "FAIL: symprof failed"; exit 1; }
awk -f "$here/graph-arcs.awk" "$base.out" >"$tmp/g"
awk -f "$here/graph-arcs.awk" "$tmp/out" >"$tmp/s"
python3 "$here/static-superset.py" "$base.out" "$tmp/out" "$tmp/g" "$tmp/s"
