#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Times symprof on a large aprof report: the V8 report (version 2, 890 KB,
# 2,343 routines, 14,408 tuples; fixtures/aprof/v8/crypto_1.aprof.xz) by
# default. Median wall time, CPU and peak RSS of RUNS runs per mode, after
# one warm-up run.
#
#   bench/bench-aprof.sh [REPORT...]
#
# Modes: the routine table (default), --rank=growth, --format=json,
# --routine=NAME and --plot=NAME (NAME: the costliest routine with a fit).
# Environment: SYMPROF (default build/symprof), RUNS (default 9). Each run
# goes through bench/measure.c like bench-gmon.sh. The target is "well
# under a second" for reading and analysing the V8 report; timing never
# fails the script.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
symprof=${SYMPROF:-$root/build/symprof}
runs=${RUNS:-9}
work=$here/work/aprof

log() { printf 'bench-aprof: %s\n' "$*" >&2; }

case "${1:-}" in
-h|--help) awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
esac
[ -x "$symprof" ] || { log "symprof not found at '$symprof' (set SYMPROF)"; exit 1; }

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
measure=$(bench_measure_tool "$here/work")
mkdir -p "$work"
reports=()
if [ $# -eq 0 ]; then
	xz -dc "$root/fixtures/aprof/v8/crypto_1.aprof.xz" >"$work/crypto_1.aprof"
	reports=("$work/crypto_1.aprof")
else
	for r in "$@"; do reports+=("$(cd "$(dirname "$r")" && pwd)/$(basename "$r")"); done
fi

# the costliest routine with a fit, for --routine and --plot
routine=$("$symprof" --format=json "${reports[@]}" | python3 -c '
import json, sys
fs = [f for f in json.load(sys.stdin)["functions"] if f["fit"]]
print(max(fs, key=lambda f: f["total"])["name"] if fs else "")')

median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'
}

printf '# %s, %s, load %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
	"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
printf '# symprof %s; %s; median of %s runs\n' \
	"$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" \
	"$(for r in "${reports[@]}"; do printf '%s (%s bytes) ' "$(basename "$r")" "$(stat -c %s "$r")"; done)" "$runs"
printf '%-16s %9s %9s %9s\n' mode "wall s" "cpu s" "RSS MiB"
for mode in table growth json routine plot; do
	case $mode in
	table) opts=() ;;
	growth) opts=(--rank=growth) ;;
	json) opts=(--format=json) ;;
	routine) opts=("--routine=$routine") ;;
	plot) opts=("--plot=$routine" "--output=$work/plot.svg") ;;
	esac
	times=$work/$mode.times
	: >"$times"
	"$measure" -o /dev/null -e /dev/null -- "$symprof" "${opts[@]}" "${reports[@]}" >/dev/null
	for _ in $(seq "$runs"); do
		"$measure" -o /dev/null -e /dev/null -- "$symprof" "${opts[@]}" "${reports[@]}" >>"$times"
	done
	awk '{ print $1, $2 + $3, $4 }' "$times" >"$times.c"
	printf '%-16s %9.3f %9.3f %9.1f\n' "$mode" "$(median "$times.c" 1)" "$(median "$times.c" 2)" \
		"$(awk -v k="$(median "$times.c" 3)" 'BEGIN { print k / 1024 }')"
done
