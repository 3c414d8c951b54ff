#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Generates the benchmark program, builds it with gcc -pg -g -O2 and runs it
# long enough to get a gmon.out from at least MIN_SECONDS of CPU time.
#
#   bench/build-and-profile.sh [--force] [--cxx] [--iters N] [--seconds S] [-- GEN-ARGS...]
#
#   --force      regenerate, rebuild and rerun even if the outputs exist
#   --cxx        the C++ variant (bench/work/cxx instead of bench/work/c)
#   --iters N    run the driver loop N times (default: calibrate to S seconds)
#   --seconds S  target CPU seconds when calibrating (default 15)
#   GEN-ARGS     passed to gen-program.py (e.g. -n 8000 --seed 2)
#
# Environment: BENCH_WORK (default bench/work), JOBS (default 2), MIN_SECONDS
# (default 10).
#
# Outputs in bench/work/c (never committed): src/ (generated sources and
# objects), prog, gmon.out, info.txt (the report printed at the end). Each step
# is skipped when its outputs exist and its inputs are unchanged, so a second
# run only prints the report.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
force=0
lang=c
iters=
seconds=15
gen_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--force) force=1 ;;
	--cxx) lang=cxx ;;
	--iters) iters=$2; shift ;;
	--iters=*) iters=${1#--iters=} ;;
	--seconds) seconds=$2; shift ;;
	--seconds=*) seconds=${1#--seconds=} ;;
	--) shift; gen_args=("$@"); break ;;
	-h|--help) awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) echo "build-and-profile: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
case "$iters" in
''|*[!0-9]*) [ -z "$iters" ] || { echo "build-and-profile: bad --iters '$iters'" >&2; exit 2; } ;;
esac

work=${BENCH_WORK:-$here/work}/$lang
jobs=${JOBS:-2}
min_seconds=${MIN_SECONDS:-10}
src=$work/src

log() { printf 'build-and-profile: %s\n' "$*" >&2; }

# ---- setup ----

for tool in python3 make nm readelf size sha256sum cc; do
	command -v "$tool" >/dev/null || { log "missing '$tool'"; exit 1; }
done
if [ $lang = cxx ]; then
	command -v g++ >/dev/null || { log "missing 'g++'"; exit 1; }
	gen_args=(--cxx "${gen_args[@]}")
else
	command -v gcc >/dev/null || { log "missing 'gcc'"; exit 1; }
fi

if [ $force = 1 ]; then
	log "--force: removing $work"
	rm -rf "$work"
fi
mkdir -p "$work"
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
measure=$(bench_measure_tool "${BENCH_WORK:-$here/work}")

# ---- generate ----

gen_stamp="$(sha256sum "$here/gen-program.py" | cut -d' ' -f1) ${gen_args[*]}"
if [ -f "$src/manifest.txt" ] && [ "$(cat "$work/gen.stamp" 2>/dev/null)" = "$gen_stamp" ]; then
	log "sources up to date in $src"
else
	# the generator rewrites only files whose text changed, so make
	# rebuilds only what changed
	log "generating sources in $src"
	python3 "$here/gen-program.py" -o "$src" "${gen_args[@]}" >/dev/null
	printf '%s\n' "$gen_stamp" >"$work/gen.stamp"
fi

# ---- build ----

if make -C "$src" -q prog 2>/dev/null && [ -f "$work/prog" ] && cmp -s "$src/prog" "$work/prog"; then
	log "binary up to date: $work/prog"
else
	log "building with -pg -g -O2 (make -j$jobs)"
	start=$(date +%s)
	make -C "$src" -s -j"$jobs" prog
	cp -p "$src/prog" "$work/prog"
	log "built in $(($(date +%s) - start)) s"
fi

# ---- profile ----

# run_prog DIR N: runs prog N times in DIR, prints "wall user sys rss status"
run_prog() {
	local t
	rm -rf "$1"
	mkdir -p "$1"
	t=$("$measure" -C "$1" -o "$1/stdout.txt" -- "$work/prog" "$2")
	case "$t" in
	*" 0") ;;
	*) log "prog $2 failed: $t"; exit 1 ;;
	esac
	printf '%s\n' "$t"
}

# cpu_of "wall user sys": user + sys
cpu_of() { echo "$1" | awk '{ printf "%.2f", $2 + $3 }'; }

prof_stamp="$(sha256sum "$work/prog" | cut -d' ' -f1) iters=${iters:-auto} seconds=$seconds"
if [ -f "$work/gmon.out" ] && [ "$(cat "$work/profile.stamp" 2>/dev/null)" = "$prof_stamp" ]; then
	log "profile up to date: $work/gmon.out"
else
	rm -f "$work/gmon.out" "$work/profile.stamp" "$work/info.txt"
	auto=0
	if [ -z "$iters" ]; then
		auto=1
		calib=50
		t=$(run_prog "$work/calib" $calib)
		iters=$(echo "$t" | awk -v n=$calib -v s="$seconds" \
			'{ c = $2 + $3; if (c < 0.01) c = 0.01; printf "%d", n * s / c + 1 }')
		log "calibration: $calib iterations in $(cpu_of "$t") s CPU -> $iters iterations for ${seconds} s"
		rm -rf "$work/calib"
	fi
	for attempt in 1 2; do
		if [ $auto = 1 ]; then
			log "profiling: prog $iters (about ${seconds} s)"
		else
			log "profiling: prog $iters"
		fi
		t=$(run_prog "$work/run" "$iters")
		cpu=$(cpu_of "$t")
		log "run: $(cat "$work/run/stdout.txt"); $cpu s CPU, $(echo "$t" | awk '{ printf "%.2f", $1 }') s wall"
		if awk -v c="$cpu" -v m="$min_seconds" 'BEGIN { exit !(c < m) }'; then
			if [ $auto = 1 ] && [ $attempt = 1 ]; then
				iters=$(awk -v n="$iters" -v c="$cpu" -v s="$seconds" \
					'BEGIN { if (c < 0.01) c = 0.01; printf "%d", n * s / c + 1 }')
				log "shorter than $min_seconds s: rerunning with $iters iterations"
				continue
			fi
			log "warning: the run took $cpu s CPU, less than $min_seconds s"
		fi
		break
	done
	[ -f "$work/run/gmon.out" ] || { log "the run wrote no gmon.out"; exit 1; }
	mv "$work/run/gmon.out" "$work/gmon.out"
	printf 'iterations: %s\ntime (wall user sys): %s\n' "$iters" "$(echo "$t" | awk '{ printf "%.2f %.2f %.2f", $1, $2, $3 }')" >"$work/run.txt"
	rm -rf "$work/run"
	printf '%s\n' "$prof_stamp" >"$work/profile.stamp"
fi

# ---- report ----

if [ ! -f "$work/info.txt" ]; then
	{
		printf '%-40s %s\n' "binary:" "$work/prog"
		printf '%-40s %s\n' "binary size (bytes):" "$(stat -c %s "$work/prog")"
		printf '%-40s %s\n' "functions (symtab FUNC):" "$(readelf -sW "$work/prog" |
			awk '/^Symbol table/ { s = $3 == "'\''.symtab'\''" } s && $4 == "FUNC" && $7 != "UND"' | wc -l)"
		printf '%-40s %s\n' "text symbols (nm T/t):" \
			"$(nm --defined-only "$work/prog" | grep -c ' [Tt] ')"
		size -A "$work/prog" | awk '
			$1 == ".text" { printf "%-40s %s\n", ".text size (bytes):", $2 }
			$1 ~ /^\.debug/ { d += $2 }
			END { printf "%-40s %s\n", "DWARF size (.debug_*, bytes):", d }'
		sed 's/^/gen: /' "$src/manifest.txt" | awk -F': *' '{ printf "%-40s %s\n", $1 ": " $2 ":", $3 }'
		awk -F': ' '{ printf "%-40s %s\n", "run " $1 ":", $2 }' "$work/run.txt"
		python3 "$here/gmon-stats.py" "$work/gmon.out" |
			awk -F': *' '{ printf "%-40s %s\n", "gmon " $1 ":", $2 }'
	} >"$work/info.txt"
fi
cat "$work/info.txt"
