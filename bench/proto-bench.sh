#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libprotobuf-c against symprof's own protobuf encoder (core/pbwire.c) on
# one synthetic profile (bench/proto-bench.c): time, size, peak memory.
#
#   bench/proto-bench.sh [SAMPLES] [RUNS]     defaults 1000000 and 5
#
# Needs protoc-c and libprotobuf-c-dev (Debian protobuf-c-compiler,
# libprotobuf-c-dev); they are not build dependencies of symprof.
# Builds under bench/work/proto/; runs the two in turn, RUNS times each.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
w=${BENCH_WORK:-$here/work}/proto
samples=${1:-1000000}
runs=${2:-5}
mkdir -p "$w"
protoc-c --proto_path="$src/formats" --c_out="$w" "$src/formats/profile.proto"
${CC:-cc} -std=c17 -O2 -I"$src/include" -I"$w" -o "$w/proto-bench" "$here/proto-bench.c" \
	"$w/profile.pb-c.c" "$src/core/pbwire.c" "$src/core/buf.c" "$src/core/alloc.c" \
	-lprotobuf-c
i=0
while [ $i -lt "$runs" ]; do
	"$w/proto-bench" own "$samples"
	"$w/proto-bench" protobuf-c "$samples"
	i=$((i + 1))
done
