#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The HTML report and the flame graphs in headless Chromium.
#
#   tests/browser/run.sh SYMPROF OUTDIR [fixtures]
#                                                 the gmon fixtures, aprof
#                                                 reports (cost plots) and a
#                                                 gperftools profile
#   tests/browser/run.sh SYMPROF OUTDIR large     the 6,000-function program
#                                                 of bench/ (built on first use)
#
# Installs playwright-core and speedscope with `npm ci` here on first use
# (the Chromium is Debian's, from scripts/install-deps.sh), writes each
# report, its JSON and its flame graph to OUTDIR and runs check-report.mjs
# on them, and loads --format=speedscope files in speedscope's own page
# (check-speedscope.mjs); screenshots land in OUTDIR/screenshots. Exit 77
# (skipped) only when Chromium cannot start.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
symprof=$1
out=$2
mode=${3:-fixtures}
mkdir -p "$out/screenshots"

command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/install-deps.sh)"; exit 1; }
# one npm ci at a time (ctest -j runs the two entries together)
# (again when an installed package is not the version package.json names)
if ! flock "$here/package.json" sh -c '
	cd "$1" || exit 1
	for p in playwright-core speedscope; do
		want=$(node -p "require(\"./package.json\").dependencies[\"$p\"]")
		have=$(node -p "require(\"./node_modules/$p/package.json\").version" 2>/dev/null)
		[ "$want" = "$have" ] || exec npm ci --no-audit --no-fund --loglevel=error
	done' sh "$here"; then
	echo "FAIL: npm ci in tests/browser"
	exit 1
fi

status=0
# case NAME DIR [--diff=BASE] [--plots] IMAGE PROFILE...   (aprof: REPORT...)
case_() {
	name=$1 dir=$2
	shift 2
	extra="" check=""
	while :; do
		case "$1" in
		--diff=*) extra="$1"; shift ;;
		--plots) check="--plots"; shift ;;
		*) break ;;
		esac
	done
	(cd "$dir" &&
	 "$symprof" --format=json "$@" >"$out/$name.json" &&
	 "$symprof" --format=flamegraph --output="$out/$name-flame.svg" "$@" &&
	 "$symprof" --quiet --html="$out/$name.html" $extra "$@" >/dev/null) ||
		{ echo "FAIL: symprof on $name"; status=1; return; }
	node "$here/check-report.mjs" "$out/$name.html" "$out/$name.json" "$out/screenshots" "$name" \
		--flame "$out/$name-flame.svg" $check
	rc=$?
	if [ $rc = 77 ]; then
		exit 77
	fi
	[ $rc = 0 ] || status=1
}

# speedscope NAME DIR ARGS...: --format=speedscope in speedscope's page,
# against --format=folded of the same profile
speedscope() {
	name=$1 dir=$2
	shift 2
	(cd "$dir" &&
	 "$symprof" --format=speedscope --output="$out/$name.speedscope.json" "$@" &&
	 "$symprof" --format=folded --output="$out/$name.folded" "$@") ||
		{ echo "FAIL: symprof --format=speedscope on $name"; status=1; return; }
	node "$here/check-speedscope.mjs" "$out/$name.speedscope.json" "$out/$name.folded" \
		"$out/screenshots" "$name"
	rc=$?
	if [ $rc = 77 ]; then
		exit 77
	fi
	[ $rc = 0 ] || status=1
}

G=$src/fixtures/gmon
if [ "$mode" = large ]; then
	work=${BENCH_WORK:-$src/bench/work/browser}
	BENCH_WORK=$work MIN_SECONDS=0 "$src/bench/build-and-profile.sh" --iters 200 >"$out/bench.log" 2>&1 ||
		{ echo "FAIL: bench/build-and-profile.sh (see $out/bench.log)"; exit 1; }
	grep -E 'functions \(symtab|gmon calls' "$out/bench.log"
	case_ large "$work/c" prog gmon.out
else
	case_ prog "$G/prog" --diff=gmon.out.run1 prog gmon.out.run2
	case_ recursion "$G/recursion" recursion gmon.out
	case_ cxx "$G/cxx" cxx gmon.out
	# aprof: two runs with their difference, and a calling-context tree
	A=$src/fixtures/aprof/corpus
	case_ aprof "$A" --diff=profiles/sortsz_10000_0_4.aprof --plots profiles/sortsz_10506_0_4.aprof
	case_ aprof-cct "$A" --plots profiles/sortsz_10038_0_4.aprof
	# gperftools: exact stacks, two runs of one program with their difference
	case_ gperf "$src/fixtures/gperf/inline" --diff=inline.run1.prof inline inline.run2.prof
	# speedscope: each input format
	speedscope gperf-inline "$src/fixtures/gperf/inline" inline inline.prof
	speedscope gperf-cxx "$src/fixtures/gperf/cxx" cxx cxx.prof
	speedscope gmon-recursion "$G/recursion" recursion gmon.out
	speedscope aprof-cct "$A" profiles/sortsz_10038_0_4.aprof
	speedscope igprof-mem "$src/fixtures/igprof" --path-map=/tmp/pp-corpus/igprof=. \
		--counter=MEM_LIVE profiles/mem/igprof.leaky-pie.8671.1795298549.314875.gz
fi
exit $status
