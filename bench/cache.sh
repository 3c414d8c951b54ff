#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Cold and warm runs of the index cache (symbolize/dwcache.c) against the
# anchors, for the targets of issue 15 that read DWARF at run time:
#
#   bench/cache.sh [-n RUNS] [-s SYMPROF] CELL...
#
# A CELL is one of
#   pprof:DIR       DIR/prog and DIR/prog.prof (gperftools), google-pprof --text
#   addr2line:DIR   DIR/prog and DIR/addrs.txt, addr2line -f -i -C
#   igprof:DUMP:COUNTER:MAP   an IgProf dump with --path-map=MAP, against zcat
#
# Each round runs, interleaved: the anchor; symprof with a cache directory
# made for that run (cold: every index is written); symprof with a cache
# filled beforehand (warm); symprof --no-cache. It prints per cell and mode
# the median wall and CPU (user + sys) seconds of RUNS rounds (default 5),
# the ratio anchor / symprof by wall and by CPU, and whether each symprof
# output is byte-identical to the anchor's (igprof: to symprof --no-cache,
# zcat prints no report). Outputs and caches stay in bench/work/cache/.
# Report only: it never fails on time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
runs=5
symprof=$here/../build/symprof
while getopts n:s: opt; do
	case $opt in
	n) runs=$OPTARG ;;
	s) symprof=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
symprof=$(realpath "$symprof")
W=$here/work/cache
mkdir -p "$W"
measure=$(bench_measure_tool "$here/work")

# one CMD...: "wall cpu" of one run, stdout to $W/out.$tag
one() {
	local tag=$1 dir=$2
	shift 2
	"$measure" -C "$dir" -o "$W/out.$tag" -e /dev/null -- "$@" | awk '{ printf "%s %.6f\n", $1, $2 + $3 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

cell() {
	local spec=$1 kind dir anchor_cmd sym_args tag r mode
	local -a A S
	IFS=: read -r kind dir rest <<<"$spec"
	case $kind in
	pprof)
		A=(google-pprof --text ./prog prog.prof)
		S=(--format=pprof prog prog.prof) ;;
	addr2line)
		A=(sh -c "exec addr2line -f -i -C -e prog < addrs.txt")
		S=(--addr2line -f -i -C -e prog) ;;
	igprof)
		IFS=: read -r counter map <<<"$rest"
		A=(zcat "$dir")
		S=("--path-map=$map" --format=igprof "--counter=$counter" "$dir")
		dir=$(dirname "$dir") ;;
	*) echo "unknown cell '$spec'" >&2; return 1 ;;
	esac
	tag=$(echo "$spec" | tr -c 'a-zA-Z0-9\n' '_' | tail -c 40)
	rm -rf "$W/warm.$tag"
	run_sym() { # MODE CACHE-ARGS...
		local m=$1
		shift
		if [ "$kind" = addr2line ]; then
			one "$tag.$m" "$dir" sh -c "exec '$symprof' $* ${S[*]} < addrs.txt"
		else
			one "$tag.$m" "$dir" "$symprof" "$@" "${S[@]}"
		fi
	}
	run_sym warm "--cache-dir=$W/warm.$tag" >/dev/null
	: >"$W/t.$tag"
	for ((r = 0; r < runs; r++)); do
		echo "anchor $(one "$tag.anchor" "$dir" "${A[@]}")" >>"$W/t.$tag"
		rm -rf "$W/cold.$tag"
		echo "cold $(run_sym cold "--cache-dir=$W/cold.$tag")" >>"$W/t.$tag"
		echo "warm $(run_sym warm "--cache-dir=$W/warm.$tag")" >>"$W/t.$tag"
		echo "nocache $(run_sym nocache --no-cache)" >>"$W/t.$tag"
	done
	local aw ac
	aw=$(awk '$1 == "anchor" { print $2 }' "$W/t.$tag" | median)
	ac=$(awk '$1 == "anchor" { print $3 }' "$W/t.$tag" | median)
	printf '%-34s %-8s %8.4f %8.4f\n' "$spec" anchor "$aw" "$ac"
	for mode in cold warm nocache; do
		local w c same ref=$W/out.$tag.anchor
		w=$(awk -v m=$mode '$1 == m { print $2 }' "$W/t.$tag" | median)
		c=$(awk -v m=$mode '$1 == m { print $3 }' "$W/t.$tag" | median)
		[ "$kind" = igprof ] && ref=$W/out.$tag.nocache
		same=no
		cmp -s "$ref" "$W/out.$tag.$mode" && same=yes
		printf '%-34s %-8s %8.4f %8.4f  x%-7.1f x%-7.1f %s\n' "" "$mode" "$w" "$c" \
			"$(awk -v a="$aw" -v b="$w" 'BEGIN { print a / b }')" \
			"$(awk -v a="$ac" -v b="$c" 'BEGIN { print a / b }')" "$same"
	done
}

printf '# %s, %s cpus, load %s; median of %d rounds\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$(nproc)" \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$runs"
printf '%-34s %-8s %8s %8s  %-8s %-8s %s\n' cell mode wall_s cpu_s wall× cpu× identical
for spec in "$@"; do
	cell "$spec"
done
