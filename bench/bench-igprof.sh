#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# symprof on IgProf dumps against the time zcat needs just to decompress
# them (issue #6: every frame named in at most 1.2x the zcat time, memory
# following the distinct stacks, not the file), and against igprof-analyse
# when it is installed.
#
#   bench/bench-igprof.sh [DUMP...]
#
# Default dumps: the corpus's big MEM dump (46 MB of text, 2 million leaked
# blocks; CORPUS/big/mem-leakstorm.gz, its binary mapped with --path-map)
# and its perf dumps (small: they show the fixed costs). For each dump and
# each of its counters, interleaved runs (RUNS, default 5) of
#   zcat DUMP >/dev/null
#   symprof --path-map=... --format=igprof --counter=C DUMP >/dev/null
#   igprof-analyse -d -v -g -r C DUMP (if found; binaries must sit at their
#                                      recorded paths for -g)
# through bench/measure.c; medians of wall time and peak RSS, and the ratio
# to zcat. Timing never fails the script: it is a report.
#
# Environment: SYMPROF (build/symprof), CORPUS (../shared/corpus/igprof
# beside the repository), RUNS (5), IGPROF_ANALYSE (igprof-analyse),
# BENCH_WORK (bench/work). Results also go to bench/work/igprof/results.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
symprof=${SYMPROF:-$root/build/symprof}
corpus=${CORPUS:-$root/../shared/corpus/igprof}
runs=${RUNS:-5}
analyse=${IGPROF_ANALYSE:-igprof-analyse}
work=${BENCH_WORK:-$here/work}/igprof

log() { printf 'bench-igprof: %s\n' "$*" >&2; }

case "${1:-}" in
-h|--help) awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
esac
case "$symprof" in /*) ;; *) symprof=$PWD/$symprof ;; esac
[ -x "$symprof" ] || { log "symprof not found at '$symprof' (set SYMPROF)"; exit 1; }
command -v zcat >/dev/null || { log "missing zcat"; exit 1; }
have_analyse=0
command -v "$analyse" >/dev/null && have_analyse=1

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
measure=$(bench_measure_tool "${BENCH_WORK:-$here/work}")
mkdir -p "$work"
results=$work/results.txt
: >"$results"

dumps=("$@")
if [ ${#dumps[@]} -eq 0 ]; then
	[ -d "$corpus" ] || { log "no corpus at '$corpus' (set CORPUS or name dumps)"; exit 1; }
	dumps=("$corpus"/big/mem-leakstorm.gz "$corpus"/profiles/perf/*.gz)
fi

# --path-map for a dump: the recorded program's directory -> where the
# dump lies (big/) or the corpus's bin/ (profiles/).
path_map() {
	local dump=$1 prog dir
	prog=$(zcat "$dump" | head -1 | sed -n 's/^P=(.*N=(\(.*\)) T=.*/\1/p')
	dir=$(dirname "$prog")
	if [ -f "$(dirname "$dump")/$(basename "$prog")" ]; then
		printf -- '--path-map=%s=%s\n' "$dir" "$(cd "$(dirname "$dump")" && pwd)"
	else
		printf -- '--path-map=%s=%s\n' "$dir" "$(cd "$(dirname "$dump")/../../bin" && pwd)"
	fi
}

counters() {
	zcat "$1" | grep -o 'V[0-9a-f]*=([A-Z_0-9]*)' | sed 's/.*(\(.*\))/\1/' | sort -u
}

# median of column $2 of file $1
median() {
	sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

run_one() {
	local name=$1 out=$2
	shift 2
	"$measure" -o /dev/null -e /dev/null -- "$@" >>"$out"
}

printf '%-52s %-10s %8s %8s %7s %9s %8s\n' dump counter zcat_s symprof_s ratio rss_kib \
	analyse_s | tee -a "$results"
for dump in "${dumps[@]}"; do
	map=$(path_map "$dump")
	for c in $(counters "$dump"); do
		tz=$work/zcat.t ts=$work/symprof.t ta=$work/analyse.t
		: >"$tz"
		: >"$ts"
		: >"$ta"
		for ((i = 0; i < runs; i++)); do
			run_one zcat "$tz" zcat "$dump"
			run_one symprof "$ts" "$symprof" "$map" --format=igprof --counter="$c" "$dump"
			if [ $have_analyse = 1 ]; then
				run_one analyse "$ta" "$analyse" -d -v -g -r "$c" "$dump"
			fi
		done
		z=$(median "$tz" 1) s=$(median "$ts" 1) rss=$(median "$ts" 4)
		a=-
		[ $have_analyse = 1 ] && a=$(median "$ta" 1)
		ratio=$(awk -v s="$s" -v z="$z" 'BEGIN { printf "%.2f", (z > 0 ? s / z : 0) }')
		printf '%-52s %-10s %8.3f %8.3f %7s %9s %8s\n' "$(basename "$dump")" "$c" "$z" "$s" \
			"${ratio}x" "$rss" "$a" | tee -a "$results"
	done
done
[ $have_analyse = 1 ] || log "igprof-analyse not found: its column is '-'"
