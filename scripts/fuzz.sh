#!/bin/sh
# Fuzzes the gmon reader and everything behind it with libFuzzer (clang,
# ASan+UBSan) for SECONDS (default 300). New corpus entries go to
# build-fuzz/corpus; crashes to build-fuzz/crashes (add them to
# tests/fuzz/corpus/gmon/ once fixed, so the replay test keeps them).
#
#   scripts/fuzz.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-300}
CC=clang cmake -S . -B build-fuzz -DSYMPROF_FUZZ=ON -DSYMPROF_WERROR=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz --target fuzz-gmon -j "$(nproc)"
mkdir -p build-fuzz/corpus build-fuzz/crashes
cp -n tests/fuzz/corpus/gmon/* build-fuzz/corpus/ 2>/dev/null || true
build-fuzz/tests/fuzz/fuzz-gmon -max_total_time="$secs" -max_len=65536 \
	-artifact_prefix=build-fuzz/crashes/ -print_final_stats=1 build-fuzz/corpus
