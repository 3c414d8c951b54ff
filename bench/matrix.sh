#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The benchmark matrix (issue 15): symprof against its anchors on program
# shapes x sizes and on real programs, in one table, with the scaling of
# each of symprof's phases. A report: timing never fails the script.
#
#   bench/matrix.sh [--quick] [--shape LIST] [--size LIST] [--mode LIST]
#                   [--runs N] [--build-only] [--no-scaling] [--append] [--list]
#
#   --shape LIST  comma-separated cells' shapes (default: all):
#                 generated: layered cycles deep tiny cxx libc
#                 real (Debian source packages): sqlite3 zstd leveldb
#                 igprof (the corpus's IgProf dumps, read in place)
#   --size LIST   sizes of the generated shapes: 1k 5k 20k 100k (layered
#                 has all four; cycles, deep, cxx, libc 5k; tiny 20k)
#   --mode LIST   b (-b), bl (-b -l), bc (-b -c), default (gprof's default
#                 output), pprof (--format=pprof vs google-pprof --text),
#                 addr2line (--addr2line -f -i -C vs addr2line -f -i -C),
#                 igprof (--format=igprof vs zcat); default: all
#   --runs N      timed runs per tool and cell (default 5; 3 with --quick)
#   --quick       sizes up to 5k, RUNS=3, fewer samples and addresses, real
#                 programs only where already built
#   --build-only  build and profile the cells, measure nothing
#   --no-scaling  skip the SYMPROF_TIMING scaling table
#   --append      add to the last run's results (table and scaling data)
#                 instead of starting new ones: a long matrix in pieces
#   --list        print the cells and exit
#
# Each cell is built and profiled once and cached under bench/work/matrix
# (git-ignored; delete a cell's directory to redo it):
#   gen/SHAPE-SIZE/{c,cxx}/   bench/build-and-profile.sh's prog + gmon.out
#   gperf/SHAPE-SIZE/         the same program built with libprofiler, and
#                             its CPU profile prog.prof (SAMPLES samples)
#   real/NAME/{pg,gperf}/     Debian source packages built with -pg -g -O2
#                             and with libprofiler; their sources in
#                             real/src (apt-get source through a private
#                             sources list in apt/: nothing on the machine
#                             changes)
#   out/CELL/                 every tool's output and times
#   results.txt, results.tsv, scaling.txt
#
# Every pair of runs goes through bench/measure.c (wall time, CPU, peak RSS),
# anchor and symprof alternating after one warm-up run each; medians. An
# anchor whose warm-up run takes more than SLOW seconds (default 30) gets
# one timed run. "identical" is cmp of the warm-up outputs: "yes", or the
# first differing line ("NO @L12"; the diff is out/CELL/MODE.diff). For
# igprof the anchor of the output is igprof-analyse's report in the corpus
# (there is no IgProf here), its time is zcat's.
#
# Environment: SYMPROF (build/symprof), GPROF (/usr/bin/gprof),
# GOOGLE_PPROF (google-pprof), ADDR2LINE (addr2line), RUNS, SLOW, SAMPLES
# (gperftools samples per profile, default 10000), ADDRS (random .text
# addresses for addr2line, default 200000), JOBS (2), MATRIX_WORK
# (bench/work/matrix), CORPUS (../shared/corpus/igprof).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
W=${MATRIX_WORK:-$here/work/matrix}
symprof=${SYMPROF:-$root/build/symprof}
gprof=${GPROF:-/usr/bin/gprof}
pprof=${GOOGLE_PPROF:-google-pprof}
a2l=${ADDR2LINE:-addr2line}
corpus=${CORPUS:-$root/../shared/corpus/igprof}
jobs=${JOBS:-2}
slow=${SLOW:-30}

log() { printf 'matrix: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}

quick=0 build_only=0 scaling=1 list=0 append=0
shapes="" sizes="" modes="" runs=${RUNS:-}
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1 ;;
	--shape) shapes=$2; shift ;;
	--shape=*) shapes=${1#*=} ;;
	--size) sizes=$2; shift ;;
	--size=*) sizes=${1#*=} ;;
	--mode) modes=$2; shift ;;
	--mode=*) modes=${1#*=} ;;
	--runs) runs=$2; shift ;;
	--runs=*) runs=${1#*=} ;;
	--build-only) build_only=1 ;;
	--no-scaling) scaling=0 ;;
	--append) append=1 ;;
	--list) list=1 ;;
	-h|--help) awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[ -n "$runs" ] || runs=$([ $quick = 1 ] && echo 3 || echo 5)
case "$runs" in ''|*[!0-9]*|0) die "--runs must be a positive integer" ;; esac
samples=${SAMPLES:-$([ $quick = 1 ] && echo 3000 || echo 10000)}
naddrs=${ADDRS:-$([ $quick = 1 ] && echo 50000 || echo 200000)}
all_shapes="layered cycles deep tiny cxx libc sqlite3 zstd leveldb igprof"
all_modes="b bl bc default pprof addr2line igprof"
shapes=${shapes:-$all_shapes}
modes=${modes:-$all_modes}
shapes=${shapes//,/ }
modes=${modes//,/ }
sizes=${sizes//,/ }
for s in $shapes; do
	case " $all_shapes " in *" $s "*) ;; *) die "unknown shape '$s' ($all_shapes)" ;; esac
done
for m in $modes; do
	case " $all_modes " in *" $m "*) ;; *) die "unknown mode '$m' ($all_modes)" ;; esac
done
want_mode() { case " $modes " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- the cells ----

size_n() { # 5k -> 5000
	local z=$1
	echo $((${z%k} * 1000))
}

# sizes_of SHAPE: the sizes a generated shape is built at
sizes_of() {
	case "$1" in
	layered) echo 1k 5k 20k 100k ;;
	tiny) echo 20k ;;
	*) echo 5k ;;
	esac
}

# gen_args SHAPE N: bench/gen-program.py's arguments for the shape
gen_args() {
	local n=$2 u=$(($2 / 100))
	case "$1" in
	layered) # one cycle holding most of the program: 3% back edges,
		# about 15% of the call sites indirect
		echo "-n $n -u $u --back-edges 0.03 --table-calls 0.1 --local-calls 0.3 --text-pad $((n * 100))" ;;
	cycles) # about 60 cycles of 8-24 members, apart from each other
		echo "-n $n -u $u --layers 30 --cycles $((n / 12)) --cycle-len 8:24" ;;
	deep) # 7 leaves recurse 12,000 deep each time they are called
		echo "-n $n -u $u --deep 12000" ;;
	tiny) # no filler; many indirect call sites (64 targets each): 100k+
		# arcs, with room for them in glibc's arc table
		echo "-n $n -u $u --tiny --table-calls 0.3 --text-pad $((n * 150))" ;;
	cxx) echo "-n $n -u $u" ;; # and --cxx
	libc) echo "--libc -n $n -u $u --work 2e5" ;;
	esac
}

is_gen() { case "$1" in layered|cycles|deep|tiny|cxx|libc) return 0 ;; esac; return 1; }
is_real() { case "$1" in sqlite3|zstd|leveldb) return 0 ;; esac; return 1; }
# generated shapes that also get a gperftools build and profile
has_gperf() { case "$1" in layered-5k|deep-5k|libc-5k|cxx-5k) return 0 ;; esac; return 1; }

cells=()
for s in $shapes; do
	if is_gen "$s"; then
		for z in $(sizes_of "$s"); do
			if [ -n "$sizes" ]; then
				case " $sizes " in *" $z "*) ;; *) continue ;; esac
			elif [ $quick = 1 ]; then
				case $z in 20k|100k) continue ;; esac
			fi
			cells+=("$s-$z")
		done
	else
		cells+=("$s")
	fi
done
if [ $list = 1 ]; then
	for c in "${cells[@]}"; do
		s=${c%%-*}
		if is_gen "$s"; then
			printf '%-12s gen-program.py %s%s\n' "$c" "$([ "$s" = cxx ] && echo '--cxx ')" \
				"$(gen_args "$s" "$(size_n "${c#*-}")")"
		else
			printf '%s\n' "$c"
		fi
	done
	exit 0
fi

for tool in python3 make gcc g++ cmp zcat readelf "$gprof" "$pprof" "$a2l"; do
	command -v "$tool" >/dev/null || die "missing '$tool' (scripts/install-deps.sh --regen)"
done
case "$symprof" in /*) ;; *) symprof=$PWD/$symprof ;; esac
[ $build_only = 1 ] || [ -x "$symprof" ] || die "symprof not found at '$symprof' (set SYMPROF)"
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
measure=$(bench_measure_tool "$here/work")
mkdir -p "$W/logs" "$W/out"

# ---- building: generated shapes ----

# build_gen CELL: prog and gmon.out in $W/gen/CELL/{c,cxx}; prints the dir
build_gen() {
	local cell=$1 shape=${1%%-*} n lang=c args
	n=$(size_n "${cell#*-}")
	read -ra args <<<"$(gen_args "$shape" "$n")"
	[ "$shape" = cxx ] && lang=cxx
	local d=$W/gen/$cell/$lang
	if [ ! -f "$d/gmon.out" ] || [ ! -f "$d/info.txt" ] || [ "$(cat "$d/matrix.stamp" 2>/dev/null)" != "${args[*]}" ]; then
		log "$cell: generating, building (-pg -g -O2) and profiling (log: $W/logs/$cell.log)"
		local opt=(--seconds 5)
		[ "$lang" = cxx ] && opt+=(--cxx)
		# tiny: every iteration adds arcs; 5 s of it overflows glibc's
		# table (224k arcs for its 7.5 MB of text) and leaves no gmon.out
		[ "$shape" = tiny ] && opt=(--iters 80)
		BENCH_WORK=$W/gen/$cell MIN_SECONDS=3 JOBS=$jobs nice "$here/build-and-profile.sh" \
			"${opt[@]}" -- "${args[@]}" >"$W/logs/$cell.log" 2>&1 ||
			{ log "$cell: build or profile failed: $W/logs/$cell.log"; return 1; }
		printf '%s\n' "${args[*]}" >"$d/matrix.stamp"
	fi
	printf '%s\n' "$d"
}

# gperf_profile DIR PROG ARGS...: profiles DIR/PROG ARGS with libprofiler
# for about $samples samples at 250 Hz (one calibration run first)
gperf_profile() {
	local d=$1 prog=$2
	shift 2
	[ -f "$d/prog.prof" ] && [ "$(cat "$d/prof.stamp" 2>/dev/null)" = "$samples $*" ] && return 0
	rm -f "$d/prog.prof"
	(cd "$d" && CPUPROFILE=$d/prog.prof CPUPROFILE_FREQUENCY=250 "$d/$prog" "$@" >/dev/null 2>&1)
	printf '%s\n' "$samples $*" >"$d/prof.stamp"
}

# build_gen_gperf CELL: the cell's program built with libprofiler and
# profiled; prints the dir (holding prog and prog.prof)
build_gen_gperf() {
	local cell=$1 shape=${1%%-*} n args d=$W/gperf/$1
	n=$(size_n "${cell#*-}")
	read -ra args <<<"$(gen_args "$shape" "$n")"
	[ "$shape" != cxx ] || args=(--cxx "${args[@]}")
	mkdir -p "$d"
	if [ ! -x "$d/prog" ] || [ "$(cat "$d/build.stamp" 2>/dev/null)" != "${args[*]}" ]; then
		log "$cell: building with libprofiler (log: $W/logs/$cell.gperf.log)"
		python3 "$here/gen-program.py" -o "$d/src" "${args[@]}" >"$W/logs/$cell.gperf.log"
		nice make -C "$d/src" -s -j"$jobs" CFLAGS="-g -O2 -fno-omit-frame-pointer" \
			LDFLAGS="-Wl,--no-as-needed -lprofiler" prog >>"$W/logs/$cell.gperf.log" 2>&1 ||
			{ log "$cell: gperftools build failed"; return 1; }
		cp "$d/src/prog" "$d/prog"
		printf '%s\n' "${args[*]}" >"$d/build.stamp"
		rm -f "$d/prog.prof"
	fi
	if [ ! -f "$d/prog.prof" ] || [ "$(cut -d' ' -f1 "$d/prof.stamp" 2>/dev/null)" != "$samples" ]; then
		local t iters
		t=$("$measure" -C "$d" -o /dev/null -- "$d/prog" 20 | awk '{ print ($2 + $3) / 20 }')
		iters=$(awk -v t="$t" -v n="$samples" 'BEGIN { printf "%d", n / 250 / (t > 0.0001 ? t : 0.0001) + 1 }')
		log "$cell: gperftools profile, $iters iterations (about $samples samples)"
		rm -f "$d/prof.stamp"
		gperf_profile "$d" prog "$iters"
	fi
	printf '%s\n' "$d"
}

# pprof_series DIR: the same program profiled for about 1,000, 4,000 and
# 16,000 samples at 250 Hz (DIR/series/N/prog.prof, prog a link): the
# samples axis of the scaling table. (Higher frequencies give no more
# samples: the kernel's profiling timer ticks at most at HZ, 250 here.)
pprof_series() {
	local d=$1 k t iters s
	t=$("$measure" -C "$d" -o /dev/null -- "$d/prog" 20 | awk '{ print ($2 + $3) / 20 }')
	for k in 1000 4000 16000; do
		s=$d/series/$k
		mkdir -p "$s"
		ln -sf ../../prog "$s/prog"
		[ -f "$s/prog.prof" ] && continue
		iters=$(awk -v t="$t" -v n="$k" 'BEGIN { printf "%d", n / 250 / (t > 0.0001 ? t : 0.0001) + 1 }')
		log "pprof series: $k samples ($iters iterations at 250 Hz)"
		(cd "$s" && CPUPROFILE=$s/prog.prof CPUPROFILE_FREQUENCY=250 ./prog "$iters" >/dev/null 2>&1)
	done
}

# ---- building: real programs ----

apt_opts=(-o "Dir::Etc::SourceList=$W/apt/sources.list" -o "Dir::Etc::SourceParts=$W/apt/sourceparts"
	-o "Dir::State::Lists=$W/apt/lists" -o "Dir::Cache=$W/apt/cache" -o APT::Sandbox::User=root)

# fetch_source PKG: apt-get source PKG into $W/real/src (a private
# sources list with a deb-src line; the machine's apt setup is untouched);
# prints the unpacked directory
fetch_source() {
	local pkg=$1 dir
	dir=$(find "$W/real/src" -maxdepth 1 -type d -name "$pkg-[0-9]*" 2>/dev/null | head -n 1)
	if [ -z "$dir" ]; then
		mkdir -p "$W/apt/lists/partial" "$W/apt/cache/archives/partial" "$W/apt/sourceparts" "$W/real/src"
		[ -f "$W/apt/sources.list" ] ||
			echo "deb-src http://deb.debian.org/debian bookworm main" >"$W/apt/sources.list"
		if [ ! -f "$W/apt/updated" ]; then
			apt-get "${apt_opts[@]}" update >"$W/logs/apt-update.log" 2>&1 || { log "apt-get update failed"; return 1; }
			touch "$W/apt/updated"
		fi
		(cd "$W/real/src" && apt-get "${apt_opts[@]}" source "$pkg") >"$W/logs/apt-source-$pkg.log" 2>&1 ||
			{ log "apt-get source $pkg failed: $W/logs/apt-source-$pkg.log"; return 1; }
		dir=$(find "$W/real/src" -maxdepth 1 -type d -name "$pkg-[0-9]*" | head -n 1)
	fi
	printf '%s\n' "$dir"
}

# run_timed DIR LOG CMD...: runs CMD in DIR, logs its time
run_logged() {
	local d=$1 lg=$2
	shift 2
	(cd "$d" && "$@") >>"$lg" 2>&1
}

# real_workload NAME DIR: the command line that profiles NAME (run in DIR)
real_workload() {
	case "$1" in
	sqlite3) echo "./prog --memdb --size 150" ;;
	zstd) echo "./prog -b1e5 -i1 -T1" ;;
	leveldb) echo "./prog --db=$2/db --num=400000 --benchmarks=fillseq,fillrandom,overwrite,readrandom,readseq,fillrandom,readrandom" ;;
	esac
}

# build_real NAME VARIANT: VARIANT pg (-pg -g -O2, profiled to gmon.out) or
# gperf (-g -O2 -fno-omit-frame-pointer + libprofiler, profiled to
# prog.prof); prints the dir, which holds prog (a copy of the program) and
# the profile. The build is kept; the profile is redone when the workload
# changes.
build_real() {
	local name=$1 v=$2 d=$W/real/$1/$2 lg src cflags ldflags work
	lg=$W/logs/$name.$v.log
	work=$(real_workload "$name" "$d")
	if [ -f "$d/done" ] && [ "$(cat "$d/run.stamp" 2>/dev/null)" = "$work" ]; then
		printf '%s\n' "$d"
		return 0
	fi
	[ $quick = 0 ] || { log "$name: not built yet (skipped with --quick)"; return 1; }
	if [ "$v" = pg ]; then
		cflags="-pg -g -O2" ldflags="-pg"
	else
		cflags="-g -O2 -fno-omit-frame-pointer" ldflags="-Wl,--no-as-needed -lprofiler"
	fi
	if [ ! -f "$d/built" ]; then
		rm -rf "$d"
		mkdir -p "$d"
		: >"$lg"
		log "$name: building ($v; log: $lg)"
		case "$name" in
		sqlite3)
			src=$(fetch_source sqlite3) || return 1
			# the amalgamation (sqlite3.c) needs tclsh; made once
			if [ ! -f "$W/real/sqlite3/amalg/sqlite3.c" ]; then
				mkdir -p "$W/real/sqlite3/amalg"
				run_logged "$W/real/sqlite3/amalg" "$lg" "$src/configure" --disable-tcl \
					--disable-readline || return 1
				run_logged "$W/real/sqlite3/amalg" "$lg" nice make sqlite3.c || return 1
			fi
			# shellcheck disable=SC2086
			run_logged "$d" "$lg" nice gcc $cflags -I"$W/real/sqlite3/amalg" -DSQLITE_OMIT_LOAD_EXTENSION \
				-o prog "$src/test/speedtest1.c" "$W/real/sqlite3/amalg/sqlite3.c" $ldflags -lm \
				-lpthread || return 1
			;;
		zstd)
			src=$(fetch_source libzstd) || return 1
			cp -a "$src" "$d/src"
			run_logged "$d/src/programs" "$lg" nice make -j"$jobs" zstd CFLAGS="$cflags" \
				LDFLAGS="$ldflags" HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0 || return 1
			cp "$d/src/programs/zstd" "$d/prog"
			rm -rf "$d/src"
			;;
		leveldb)
			src=$(fetch_source leveldb) || return 1
			run_logged "$d" "$lg" cmake -S "$src" -B "$d/build" -DCMAKE_BUILD_TYPE=None \
				-DCMAKE_C_FLAGS="$cflags" -DCMAKE_CXX_FLAGS="$cflags" \
				-DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DLEVELDB_BUILD_TESTS=OFF \
				-DLEVELDB_BUILD_BENCHMARKS=ON -DBUILD_SHARED_LIBS=OFF || return 1
			run_logged "$d" "$lg" nice cmake --build "$d/build" -j"$jobs" --target db_bench || return 1
			cp "$d/build/db_bench" "$d/prog"
			rm -rf "$d/build"
			;;
		esac
		touch "$d/built"
	fi
	rm -f "$d/done" "$d/gmon.out" "$d/prog.prof" "$d/info.txt"
	read -ra work <<<"$work"
	if [ "$v" = pg ]; then
		local t
		t=$("$measure" -C "$d" -o "$d/run.out" -e "$d/run.err" -- "${work[@]}")
		log "$name: profiled run: $t (wall user sys rss status)"
		[ -f "$d/gmon.out" ] || { log "$name: the run wrote no gmon.out"; return 1; }
	else
		# a real program's workload is fixed: the frequency is chosen
		# for about $samples samples from the CPU time of a run without
		# the profiler (at most 250 Hz, the kernel's HZ)
		local t hz
		t=$("$measure" -C "$d" -o /dev/null -e /dev/null -- "${work[@]}" | awk '{ print $2 + $3 }')
		hz=$(awk -v t="$t" -v n="$samples" 'BEGIN { h = int(n / (t > 0.01 ? t : 0.01)); if (h > 250) h = 250; if (h < 100) h = 100; print h }')
		rm -rf "$d/db"
		(cd "$d" && CPUPROFILE=$d/prog.prof CPUPROFILE_FREQUENCY=$hz "${work[@]}" >"$d/run.out" 2>"$d/run.err") ||
			{ log "$name: the profiled run failed"; return 1; }
		log "$name: gperftools profile at $hz Hz of a $t s CPU run"
	fi
	rm -rf "$d/db"
	printf '%s\n' "${work[*]}" >"$d/run.stamp"
	touch "$d/done"
	printf '%s\n' "$d"
}

# ---- measuring ----

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'
}

results=$W/results.txt
tsv=$W/results.tsv

# target MODE: the speed ratio (anchor/symprof) the issue asks for
target_of() {
	case "$1" in
	b) echo 10 ;;
	bl) echo 20 ;;
	pprof) echo 100 ;;
	addr2line) echo 10 ;;
	igprof) echo 2 ;; # symprof in at most half zcat's time
	*) echo "" ;;
	esac
}

label_of() {
	case "$1" in
	b) echo "-b" ;;
	bl) echo "-b -l" ;;
	bc) echo "-b -c" ;;
	default) echo "default" ;;
	pprof) echo "pprof --text" ;;
	addr2line) echo "addr2line" ;;
	igprof) echo "igprof $2" ;;
	esac
}

row_header() {
	printf '%-12s %-24s %9s %9s %8s %-8s %8s %8s  %s\n' cell mode "anchor s" "symprof s" ratio target \
		"anch MiB" "symp MiB" identical
}

A=() S=()

# time_pair CELL SLUG LABEL TARGET DIR REF: runs the arrays A (anchor) and
# S (symprof) in DIR, alternating, and prints a row. A command line that
# starts with "<FILE" reads FILE on stdin. REF, when not empty, is the file
# the symprof output must equal instead of the anchor's output.
time_pair() {
	local cell=$1 slug=$2 label=$3 need=$4 dir=$5 ref=$6 o=$W/out/$1 i n=$runs
	mkdir -p "$o"
	rm -f "$o/$slug".*.times
	run_side() { # A|S out err
		if [ "$1" = A ]; then
			"$measure" -C "$dir" -o "$2" -e "$3" -- "${A[@]}"
		else
			"$measure" -C "$dir" -o "$2" -e "$3" -- "${S[@]}"
		fi
	}
	local aw sw
	aw=$(run_side A "$o/$slug.anchor.out" "$o/$slug.anchor.err")
	sw=$(run_side S "$o/$slug.symprof.out" "$o/$slug.symprof.err")
	if awk -v w="${aw%% *}" -v s="$slow" 'BEGIN { exit !(w > s) }'; then
		n=1
	fi
	for ((i = 0; i < n; i++)); do
		run_side A /dev/null /dev/null >>"$o/$slug.anchor.times"
		run_side S /dev/null /dev/null >>"$o/$slug.symprof.times"
	done
	local a_w s_w a_r s_r a_rc s_rc ident ratio tgt
	a_w=$(awk '{ print $1 }' "$o/$slug.anchor.times" | median)
	s_w=$(awk '{ print $1 }' "$o/$slug.symprof.times" | median)
	a_r=$(awk '{ print $4 }' "$o/$slug.anchor.times" | median)
	s_r=$(awk '{ print $4 }' "$o/$slug.symprof.times" | median)
	a_rc=${aw##* } s_rc=${sw##* }
	[ -n "$ref" ] || ref=$o/$slug.anchor.out
	if [ "$s_rc" != 0 ]; then
		ident="NO (symprof exit $s_rc)"
	elif [ "$a_rc" != 0 ] && [ "$ref" = "$o/$slug.anchor.out" ]; then
		ident="anchor exit $a_rc"
	elif cmp -s "$ref" "$o/$slug.symprof.out"; then
		ident=yes
	else
		local line
		line=$(cmp "$ref" "$o/$slug.symprof.out" 2>&1 | sed -n 's/.*line \([0-9]*\).*/\1/p' || true)
		[ -n "$line" ] || line=EOF
		ident="NO @L$line"
		# -c: symprof decodes instructions where gprof scans bytes for
		# 0xE8 (docs/differences.md): more arcs, by design
		[ "$slug" != bc ] || ident="$ident (-c: documented)"
		diff "$ref" "$o/$slug.symprof.out" >"$o/$slug.diff" 2>&1 || true
	fi
	ratio=$(awk -v a="$a_w" -v s="$s_w" 'BEGIN { if (s > 0) printf "%.2f", a / s; else print "n/a" }')
	tgt=-
	if [ -n "$need" ]; then
		# zcat's memory says nothing about an IgProf reader's
		tgt=$(awk -v r="$ratio" -v n="$need" -v ar="$a_r" -v sr="$s_r" -v rss="$([ "$slug" = "${slug#igprof}" ] && echo 1 || echo 0)" 'BEGIN {
			t = (r + 0 >= n) ? "met" : "MISSED"; if (rss && sr + 0 > ar + 0) t = t "+rss"; print t }')
	fi
	# no speed target against an anchor that failed
	case "$ident" in "anchor exit"*) tgt=n/a ;; esac
	[ "$n" = "$runs" ] || ident="$ident (1 run)"
	printf '%-12s %-24s %9.3f %9.3f %8s %-8s %8.1f %8.1f  %s\n' "$cell" "$label" "$a_w" "$s_w" "$ratio" \
		"$tgt" "$(awk -v k="$a_r" 'BEGIN { print k / 1024 }')" "$(awk -v k="$s_r" 'BEGIN { print k / 1024 }')" \
		"$ident" | tee -a "$results"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cell" "$label" "$a_w" "$s_w" "$ratio" "$tgt" "$a_r" "$s_r" \
		"$ident" >>"$tsv"
}

# make_addresses FILE N ELF: N random addresses of ELF's .text (seed 1)
make_addresses() {
	[ -f "$1" ] || bench_text_addresses "$2" "$3" >"$1"
}

# measure_gmon CELL DIR: the gprof modes and addr2line on DIR/prog
measure_gmon() {
	local cell=$1 d=$2 m opts
	for m in b bl bc default; do
		want_mode $m || continue
		case $m in
		b) opts=(-b) ;;
		bl) opts=(-b -l) ;;
		bc) opts=(-b -c) ;;
		default) opts=() ;;
		esac
		A=("$gprof" ${opts[@]+"${opts[@]}"} prog gmon.out)
		S=("$symprof" ${opts[@]+"${opts[@]}"} prog gmon.out)
		time_pair "$cell" "$m" "$(label_of $m)" "$(target_of $m)" "$d" ""
	done
	if want_mode addr2line; then
		make_addresses "$d/addrs.$naddrs.txt" "$naddrs" "$d/prog"
		A=(sh -c "exec $a2l -f -i -C -e prog < addrs.$naddrs.txt")
		S=(sh -c "exec '$symprof' --addr2line -f -i -C -e prog < addrs.$naddrs.txt")
		time_pair "$cell" addr2line "addr2line $((naddrs / 1000))k" "$(target_of addr2line)" "$d" ""
	fi
}

measure_pprof() {
	local cell=$1 d=$2
	want_mode pprof || return 0
	A=("$pprof" --text ./prog prog.prof)
	S=("$symprof" --format=pprof prog prog.prof)
	time_pair "$cell" pprof "pprof --text" "$(target_of pprof)" "$d" ""
}

# ---- scaling: SYMPROF_TIMING phases ----

scal=$W/scaling.tsv

# timing_phases CELL KIND DIR SIZES CMD...: runs CMD 5 times with
# SYMPROF_TIMING=1 in DIR and appends "cell kind phase median_ms sizes"
timing_phases() {
	local cell=$1 kind=$2 d=$3 sz=$4 o=$W/out/$1 i
	shift 4
	mkdir -p "$o"
	: >"$o/timing.$kind.txt"
	for ((i = 0; i < 5; i++)); do
		(cd "$d" && SYMPROF_TIMING=1 "$@" 2>&1 >/dev/null | grep '^symprof: .* ms ' >>"$o/timing.$kind.txt") || true
	done
	awk -v c="$cell" -v k="$kind" -v sz="$sz" '
		{ sub(/^symprof: /, ""); ms = ""; name = "";
		  for (i = 1; i <= NF; i++) if ($(i + 1) == "ms") { ms = $i; break } else name = name (name ? " " : "") $i;
		  if (!(name in n)) order[++np] = name; v[name, ++n[name]] = ms }
		END { for (p = 1; p <= np; p++) { name = order[p]; m = n[name];
			for (i = 1; i <= m; i++) a[i] = v[name, i];
			for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			printf "%s\t%s\t%s\t%s\t%s\n", c, k, name, a[int((m + 1) / 2)], sz } }' "$o/timing.$kind.txt" >>"$scal"
}

# gmon_sizes DIR: "functions=F arcs=A bins=B samples=S"
gmon_sizes() {
	local d=$1 f
	f=$(readelf -sW "$d/prog" | awk '/^Symbol table/ { s = $3 == "'\''.symtab'\''" } s && $4 == "FUNC" && $7 != "UND"' | wc -l)
	python3 "$here/gmon-stats.py" "$d/gmon.out" | awk -v f="$f" -F': *' '
		$1 == "arc records" { a = $2 } $1 == "histogram bins" { b = $2 } $1 == "histogram samples" { s = $2 }
		END { printf "functions=%d arcs=%d bins=%d samples=%d\n", f, a, b, s }'
}

# pprof_sizes DIR: "samples=S addresses=A functions=F"
pprof_sizes() {
	local d=$1 f
	f=$(readelf -sW "$d/prog" | awk '$4 == "FUNC" && $7 != "UND"' | wc -l)
	python3 - "$d/prog.prof" "$f" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
w = lambda i: struct.unpack_from("<Q", d, i * 8)[0]
i, n_s, pcs = 2 + w(1), 0, set()
while True:
    c, n = w(i), w(i + 1)
    if c == 0 and n == 1 and w(i + 2) == 0:
        break
    n_s += c
    pcs.update(w(i + 2 + k) for k in range(n))
    i += 2 + n
print("samples=%d addresses=%d functions=%s" % (n_s, len(pcs), sys.argv[2]))
EOF
}

# ---- igprof ----

measure_igprof() {
	want_mode igprof || return 0
	[ -d "$corpus" ] || { log "no IgProf corpus at '$corpus' (set CORPUS)"; return 0; }
	local dump c map ref name
	for spec in "big/mem-leakstorm.gz:MEM_LIVE:big/mem-leakstorm.MEM_LIVE.d-v-g.txt" \
		"big/mem-leakstorm.gz:MEM_TOTAL:big/mem-leakstorm.MEM_TOTAL.d-v-g.txt" \
		"profiles/perf/igprof.hotrec-nopie.8643.1795298548.626690.gz:PERF_TICKS:reports/igprof.hotrec-nopie.8643.1795298548.626690.PERF_TICKS.d-v-g.txt" \
		"profiles/mem/igprof.leaky-nopie.8675.1795298549.345352.gz:MEM_LIVE:reports/igprof.leaky-nopie.8675.1795298549.345352.MEM_LIVE.d-v-g.txt"; do
		IFS=: read -r dump c ref <<<"$spec"
		[ -f "$corpus/$dump" ] || continue
		name=$(basename "$dump" .gz)
		name=${name#igprof.}
		name=${name%%.*}
		case "$dump" in
		big/*) map="--path-map=/tmp/igprof-big-open=$corpus/big" ;;
		*) map="--path-map=/tmp/pp-corpus/igprof/=$corpus/" ;;
		esac
		A=(zcat "$corpus/$dump")
		S=("$symprof" "$map" --format=igprof --counter="$c" "$corpus/$dump")
		time_pair "igprof" "igprof-$name-$c" "$name $c" "$(target_of igprof)" "$W/out" "$corpus/$ref"
	done
}

# ---- main ----

if [ $build_only = 0 ]; then
	[ $append = 0 ] || [ -f "$results" ] || append=0
	{
		[ $append = 0 ] || printf '# appended:\n'
		printf '# %s, %s, %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
			"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')" \
			"$(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
		[ -c /dev/null ] || printf '# /dev/null is a %s, not the null device: every output is written to a file\n' \
			"$(stat -c %F /dev/null 2>/dev/null || echo 'missing file')"
		printf '# symprof %s (%s); %s; %s; %s\n' "$symprof" \
			"$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" "$("$gprof" --version | head -n 1)" \
			"$("$pprof" --version 2>&1 | head -n 1)" "$("$a2l" --version | head -n 1)"
		printf '# median of %s runs (1 where the anchor takes more than %s s); ratio = anchor / symprof wall\n' \
			"$runs" "$slow"
		printf '# targets: -b 10, -b -l 20, pprof 100, addr2line 10, igprof 2 (= symprof in half of zcat'\''s time); +rss: symprof'\''s peak RSS above the anchor'\''s\n'
		row_header
	} | if [ $append = 1 ]; then tee -a "$results"; else tee "$results"; fi
	if [ $append = 0 ]; then
		: >"$tsv"
		: >"$scal"
	fi
fi

for cell in "${cells[@]}"; do
	shape=${cell%%-*}
	if is_gen "$shape"; then
		d=$(build_gen "$cell") || continue
		gd=""
		if has_gperf "$cell" && want_mode pprof; then
			gd=$(build_gen_gperf "$cell") || gd=""
			[ -z "$gd" ] || [ $scaling = 0 ] || [ "$cell" != layered-5k ] || pprof_series "$gd"
		fi
	elif is_real "$shape"; then
		d=$(build_real "$shape" pg) || d=""
		gd=""
		want_mode pprof && { gd=$(build_real "$shape" gperf) || gd=""; }
		if [ -n "$d" ] && [ ! -f "$d/info.txt" ]; then
			{
				printf 'binary size (bytes): %s\n' "$(stat -c %s "$d/prog")"
				size -A "$d/prog" | awk '$1 == ".text" { print ".text size (bytes): " $2 }'
				python3 "$here/gmon-stats.py" "$d/gmon.out"
			} >"$d/info.txt"
		fi
	else
		d="" gd=""
	fi
	[ $build_only = 0 ] || continue
	if [ "$shape" = igprof ]; then
		measure_igprof
		continue
	fi
	if [ -n "$d" ]; then
		measure_gmon "$cell" "$d"
		if [ $scaling = 1 ]; then
			timing_phases "$cell" "-b" "$d" "$(gmon_sizes "$d")" "$symprof" -b prog gmon.out
			want_mode bl && timing_phases "$cell" "-b -l" "$d" "$(gmon_sizes "$d")" "$symprof" -b -l prog gmon.out
		fi
	fi
	if [ -n "$gd" ] && [ -f "$gd/prog.prof" ]; then
		measure_pprof "$cell" "$gd"
		[ $scaling = 0 ] || timing_phases "$cell" "pprof" "$gd" "$(pprof_sizes "$gd")" \
			"$symprof" --format=pprof prog prog.prof
		if [ $scaling = 1 ] && [ "$cell" = layered-5k ]; then
			for k in 1000 4000 16000; do
				timing_phases "samples-$k" "pprof" "$gd/series/$k" "$(pprof_sizes "$gd/series/$k")" \
					"$symprof" --format=pprof prog prog.prof
			done
		fi
	fi
done
[ $build_only = 0 ] || exit 0

# ---- the scaling table ----

if [ $scaling = 1 ] && [ -s "$scal" ]; then
	python3 - "$scal" <<'EOF' | tee "$W/scaling.txt"
import collections, math, sys

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
# phase times per (series, kind, phase): the layered sizes are one series;
# every cell is also printed on its own
data = collections.defaultdict(dict)
sizes = {}
for cell, kind, phase, ms, sz in rows:
    sizes[cell, kind] = dict(kv.split("=") for kv in sz.split())
    data[cell, kind][phase] = float(ms)

print("phase times (ms, medians of 5 SYMPROF_TIMING=1 runs)")
for (cell, kind), ph in sorted(data.items()):
    s = sizes[cell, kind]
    print("  %-12s %-6s %s" % (cell, kind, " ".join("%s=%s" % kv for kv in s.items())))
    print("    " + "  ".join("%s %.2f" % (p, v) for p, v in ph.items()))

def fit(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    sxx = sum((a - mx) ** 2 for a in lx)
    if sxx == 0:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sxx

print()
print("log-log slopes of each phase against the inputs' sizes (series: the same")
print("shape at several sizes; points under 0.05 ms left out; a measure that")
print("grows less than 2x over the series is not fitted (-); FLAG: the slope is")
print("above 1.1 against every fitted measure and the phase takes 1 ms or more)")
series = collections.defaultdict(list)
for (cell, kind) in data:
    series[cell.split("-")[0], kind].append(cell)
for (shape, kind), cells in sorted(series.items()):
    if len(cells) < 3:
        continue
    measures = [m for m in ("functions", "arcs", "bins", "samples", "addresses")
                if all(m in sizes[c, kind] for c in cells)]
    # the series' order: the size in the cell's name (layered-20k, samples-4000)
    def nominal(c):
        z = c.split("-", 1)[1]
        return float(z[:-1]) * 1000 if z.endswith("k") else float(z)
    lo, hi = min(cells, key=nominal), max(cells, key=nominal)
    grows = {m: float(sizes[hi, kind][m]) >= 2 * max(1.0, float(sizes[lo, kind][m]))
             for m in measures}
    phases = []
    for c in cells:
        for p in data[c, kind]:
            if p not in phases:
                phases.append(p)
    print("  %s %s (%s)" % (shape, kind, ", ".join(cells)))
    print("    %-18s %s  %9s" % ("phase", " ".join("%10s" % m for m in measures), "max ms"))
    for p in phases:
        pts = [(c, data[c, kind][p]) for c in cells if data[c, kind].get(p, 0) >= 0.05]
        if len(pts) < 3:
            continue
        slopes = []
        for m in measures:
            xs = [float(sizes[c, kind][m]) for c, _ in pts]
            slopes.append(fit(xs, [y for _, y in pts]) if min(xs) > 0 and grows[m] else None)
        top = max(y for _, y in pts)
        valid = [s for s in slopes if s is not None]
        flag = "FLAG" if valid and min(valid) > 1.1 and top >= 1.0 else ""
        print("    %-18s %s  %9.2f %s" % (p, " ".join("%10s" % ("%.2f" % s if s is not None else "-")
                                                  for s in slopes), top, flag))
EOF
fi
log "results: $results, $tsv, $W/scaling.txt; outputs in $W/out"
