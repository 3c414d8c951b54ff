#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# How responsive the HTML report (--html) is on the large program of the
# gmon benchmark (about 6,000 functions): runs tests/browser/run.sh in its
# `large` mode, which writes the report and opens it in headless Chromium,
# and prints the times it measures: page ready, all rows in, selecting a
# function, sorting, filtering. Issue #8 asks that the report "stay
# responsive for a 5,000-function profile"; no test asserts a time, this
# script reports them (and never fails on a time).
#
#   bench/bench-html.sh
#
# Environment: SYMPROF (default build/symprof). The program is built on
# first use into bench/work/browser (about two minutes).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
symprof=${SYMPROF:-$root/build/symprof}
out=$here/work/bench-html

case "${1:-}" in
-h|--help) awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
esac
[ -x "$symprof" ] || { echo "bench-html: symprof not found at '$symprof' (set SYMPROF)" >&2; exit 1; }
mkdir -p "$out"
set +e
"$root/tests/browser/run.sh" "$symprof" "$out" large >"$out/log.txt" 2>&1
rc=$?
set -e
printf '# %s, %s, %s cpus, load %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/ .*//')" "$(nproc)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
grep -E 'functions \(symtab|info:' "$out/log.txt" || true
case $rc in
0) echo "checks: all passed (report: $out/large.html)" ;;
77) echo "checks: skipped (Chromium cannot start)" ;;
*) echo "checks: FAILED, see $out/log.txt" ;;
esac
