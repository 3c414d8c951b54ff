#!/bin/sh
# Fuzzes a reader and everything behind it with libFuzzer (clang,
# ASan+UBSan) for SECONDS (default 300): TARGET gmon (default), gperf or igprof.
# New corpus entries go to build-fuzz/corpus-TARGET; crashes to
# build-fuzz/crashes (add them to tests/fuzz/corpus/TARGET/ once fixed, so
# the replay test keeps them).
#
#   scripts/fuzz.sh [SECONDS]
#   FUZZ_TARGET=gperf scripts/fuzz.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-300}
t=${FUZZ_TARGET:-gmon}
CC=clang cmake -S . -B build-fuzz -DSYMPROF_FUZZ=ON -DSYMPROF_WERROR=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz --target "fuzz-$t" -j "$(nproc)"
mkdir -p "build-fuzz/corpus-$t" build-fuzz/crashes
cp -n tests/fuzz/corpus/"$t"/* "build-fuzz/corpus-$t/" 2>/dev/null || true
if [ "$t" = gperf ]; then
	cp -n fixtures/bad/gperf/*.prof "build-fuzz/corpus-$t/" 2>/dev/null || true
fi
if [ "$t" = igprof ]; then
	cp -n fixtures/bad/igprof/*.igprof* fixtures/igprof/profiles/*/* \
		"build-fuzz/corpus-$t/" 2>/dev/null || true
fi
build-fuzz/tests/fuzz/"fuzz-$t" -max_total_time="$secs" -max_len=65536 \
	-artifact_prefix=build-fuzz/crashes/ -print_final_stats=1 "build-fuzz/corpus-$t"
