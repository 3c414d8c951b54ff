#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Compares symprof with GNU gprof on the benchmark profile: wall time and peak
# RSS (median of RUNS runs each, interleaved) and whether the outputs match.
#
#   bench/bench-gmon.sh [MODE...]
#
# Each MODE is one quoted option string given to both tools before
# "prog gmon.out": "-b" (the default), "-b -p", "-b -q", "-b -l"; "default"
# (or "") for the full default output; "all" for those five.
#
# Environment:
#   SYMPROF    symprof binary (default build/symprof in the repository); when
#              it is missing, only gprof is measured and symprof shows n/a
#   GPROF      gprof binary (default /usr/bin/gprof)
#   RUNS       timed runs per tool and mode (default 5), after one warm-up run
#   BENCH_DIR  directory with prog and gmon.out (default bench/work/c, made by
#              bench/build-and-profile.sh, which is run first if they are missing)
#
# Each run goes through bench/measure.c (built into bench/work/bin): wall time
# from CLOCK_MONOTONIC, peak RSS from wait4() (see measure.c for why not
# Python or /usr/bin/time). Ratios are gprof/symprof: above 1 means symprof is
# faster or smaller. Outputs of the first run are kept in bench/work/bench-out/.
# Timing never fails the script: it is a report, not a test.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
symprof=${SYMPROF:-$root/build/symprof}
gprof=${GPROF:-/usr/bin/gprof}
runs=${RUNS:-5}
bench_dir=${BENCH_DIR:-$here/work/c}
out_dir=$here/work/bench-out

log() { printf 'bench-gmon: %s\n' "$*" >&2; }

case "${1:-}" in
-h|--help) awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
esac
case "$runs" in
''|*[!0-9]*|0) log "RUNS must be a positive integer"; exit 2 ;;
esac

# ---- setup ----

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
measure=$(bench_measure_tool "$here/work")
if [ -z "${BENCH_DIR:-}" ] && { [ ! -f "$bench_dir/prog" ] || [ ! -f "$bench_dir/gmon.out" ]; }; then
	log "no profile yet: running bench/build-and-profile.sh"
	"$here/build-and-profile.sh" >/dev/null
fi
# absolute paths: the tools run in $out_dir
abspath() {
	case "$1" in
	/*) printf '%s\n' "$1" ;;
	*/*) printf '%s/%s\n' "$PWD" "$1" ;;
	*) command -v "$1" || printf '%s\n' "$1" ;;
	esac
}
symprof=$(abspath "$symprof")
gprof=$(abspath "$gprof")
bench_dir=$(abspath "$bench_dir/.")
prog=${bench_dir%/.}/prog
gmon=${bench_dir%/.}/gmon.out
[ -x "$gprof" ] || { log "gprof not found at '$gprof'"; exit 1; }
for f in "$prog" "$gmon"; do
	[ -f "$f" ] || { log "missing '$f' (run bench/build-and-profile.sh)"; exit 1; }
done
have_symprof=1
if [ ! -x "$symprof" ]; then
	log "symprof not found at '$symprof': measuring gprof only (set SYMPROF=path)"
	have_symprof=0
fi

modes=()
[ $# -gt 0 ] || set -- -b
for m in "$@"; do
	case "$m" in
	all) modes+=("-b" "-b -p" "-b -q" "-b -l" "") ;;
	default|full) modes+=("") ;;
	*) modes+=("$m") ;;
	esac
done

mkdir -p "$out_dir"
rm -f "$out_dir"/*.out "$out_dir"/*.err "$out_dir"/*.times

# ---- measuring ----

# measure TOOL SLUG OPTS...: runs TOOL OPTS prog gmon.out once and appends
# "wall_seconds user sys rss_kib exit_status" to $out_dir/SLUG.times; the
# first run's stdout and stderr are kept as SLUG.out and SLUG.err.
measure() {
	local tool=$1 slug=$2 o=$out_dir/$2.out e=$out_dir/$2.err
	shift 2
	if [ -f "$o" ]; then
		o=/dev/null e=/dev/null
	fi
	"$measure" -C "$out_dir" -o "$o" -e "$e" -- "$tool" "$@" "$prog" "$gmon" >>"$out_dir/$slug.times"
}

# median FILE COLUMN
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'
}

# ratio A B: A/B with two decimals, or n/a
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

mib() {
	awk -v k="$1" 'BEGIN { if (k == "") print "n/a"; else printf "%.1f\n", k / 1024 }'
}

secs() {
	awk -v s="$1" 'BEGIN { if (s == "") print "n/a"; else printf "%.3f\n", s }'
}

overhead=$(for _ in 1 2 3 4 5; do "$measure" -- /bin/true; done | sort -g | sed -n 3p | cut -d' ' -f1)

results=$out_dir/results.txt
{
	printf '# %s, %s, %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
		"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')" \
		"$(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '# gprof: %s; symprof: %s\n' "$("$gprof" --version | head -n 1)" \
		"$([ $have_symprof = 1 ] && echo "$symprof ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))" || echo missing)"
	printf '# input: %s (%s bytes), %s (%s bytes); median of %s runs; measuring overhead %.2f ms\n' \
		"$prog" "$(stat -c %s "$prog")" "$gmon" "$(stat -c %s "$gmon")" "$runs" \
		"$(awk -v s="$overhead" 'BEGIN { print s * 1000 }')"
	printf '%-10s %9s %9s %8s %9s %9s %8s  %-7s %-6s %9s %9s\n' mode "gprof s" "symprof s" speedup \
		"gprof MiB" "symp MiB" "mem x" output target "gprof cpu" "symp cpu"
} | tee "$results"

for mode in "${modes[@]}"; do
	read -ra opts <<<"$mode"
	label=${mode:-default}
	slug=$(printf '%s' "${mode:-default}" | tr -c 'a-zA-Z0-9' '_' | sed 's/^_*//')
	rm -f "$out_dir/gprof.$slug.times" "$out_dir/symprof.$slug.times"
	# warm-up (page cache), then interleaved timed runs
	measure "$gprof" "gprof.$slug" "${opts[@]}"
	[ $have_symprof = 0 ] || measure "$symprof" "symprof.$slug" "${opts[@]}"
	rm -f "$out_dir/gprof.$slug.times" "$out_dir/symprof.$slug.times"
	for ((i = 0; i < runs; i++)); do
		measure "$gprof" "gprof.$slug" "${opts[@]}"
		[ $have_symprof = 0 ] || measure "$symprof" "symprof.$slug" "${opts[@]}"
	done
	g_wall=$(median "$out_dir/gprof.$slug.times" 1)
	g_rss=$(median "$out_dir/gprof.$slug.times" 4)
	g_cpu=$(awk '{ print $2 + $3 }' "$out_dir/gprof.$slug.times" >"$out_dir/cpu.tmp" && median "$out_dir/cpu.tmp" 1)
	g_rc=$(awk '$5 != 0 { print $5; exit }' "$out_dir/gprof.$slug.times")
	s_wall="" s_rss="" s_cpu="" s_rc="" output=n/a target=n/a
	if [ $have_symprof = 1 ]; then
		s_wall=$(median "$out_dir/symprof.$slug.times" 1)
		s_rss=$(median "$out_dir/symprof.$slug.times" 4)
		s_cpu=$(awk '{ print $2 + $3 }' "$out_dir/symprof.$slug.times" >"$out_dir/cpu.tmp" &&
			median "$out_dir/cpu.tmp" 1)
		s_rc=$(awk '$5 != 0 { print $5; exit }' "$out_dir/symprof.$slug.times")
		if [ -n "$s_rc" ]; then
			output="DIFFER(exit $s_rc)"
		elif cmp -s "$out_dir/gprof.$slug.out" "$out_dir/symprof.$slug.out"; then
			output=MATCH
		else
			output=DIFFER
			log "'$label': outputs differ: diff $out_dir/gprof.$slug.out $out_dir/symprof.$slug.out"
		fi
		case "$label" in
		-b) need=10 ;;
		"-b -l") need=20 ;;
		*) need="" ;;
		esac
		if [ -n "$need" ]; then
			target=$(awk -v g="$g_wall" -v s="$s_wall" -v gm="$g_rss" -v sm="$s_rss" -v n="$need" \
				'BEGIN { ok = s > 0 && g / s >= n && (n != 10 || sm <= gm);
					 print ok ? "met" : "missed" }')
		fi
	fi
	[ -z "$g_rc" ] || log "gprof exited with status $g_rc for '$label'"
	printf '%-10s %9s %9s %8s %9s %9s %8s  %-7s %-6s %9s %9s\n' "$label" "$(secs "$g_wall")" \
		"$(secs "$s_wall")" "$(ratio "$g_wall" "$s_wall")" "$(mib "$g_rss")" "$(mib "$s_rss")" \
		"$(ratio "$g_rss" "$s_rss")" "$output" "$target" "$(secs "$g_cpu")" "$(secs "$s_cpu")" |
		tee -a "$results"
done
rm -f "$out_dir/cpu.tmp"
printf '# targets: -b >= 10x faster with no more memory; -b -l >= 20x faster (wall, medians)\n' |
	tee -a "$results"
log "outputs and results.txt in $out_dir"
