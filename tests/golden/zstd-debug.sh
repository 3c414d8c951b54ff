#!/bin/sh
# Golden cases whose shared libraries' debug files are zstd-compressed:
#
#   tests/golden/zstd-debug.sh SYMPROF CASE.cmd...
#
# Every library in the cases' `requires` file has its debug file (by
# build-id, under /usr/lib/debug: Debian's -dbg packages, zlib-compressed)
# copied with its debug sections recompressed with zstd (objcopy) into a
# debug root of its own; the cases then run through run.sh with
# SYMPROF_DEBUG_ROOT there, without and with the index cache, and must
# print the expected output (google-pprof's, from the zlib originals).
# libelf cannot inflate zstd: symprof does, in part (the units a profile
# needs) or whole. Exit 77 (skipped) without a debug file or an objcopy
# that writes zstd.
set -u
symprof=$1
shift
here=$(dirname "$0")
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

reqs=$(dirname "$1")/requires
[ -f "$reqs" ] || { echo "FAIL: no $reqs"; exit 1; }
while read -r lib id; do
	rest=${id#??}
	dbg=/usr/lib/debug/.build-id/${id%"$rest"}/$rest.debug
	if [ ! -f "$dbg" ]; then
		echo "skip: no debug file for $lib ($dbg)"
		exit 77
	fi
	mkdir -p "$root/.build-id/${id%"$rest"}"
	if ! objcopy --compress-debug-sections=zstd "$dbg" "$root/.build-id/${id%"$rest"}/$rest.debug" \
		2>/dev/null; then
		echo "skip: objcopy cannot compress with zstd"
		exit 77
	fi
done <"$reqs"

fail=0
for case_cmd in "$@"; do
	for cache in 0 1; do
		if ! SYMPROF_DEBUG_ROOT=$root SP_GOLDEN_CACHE=$cache \
			sh "$here/run.sh" "$symprof" "$case_cmd"; then
			echo "FAIL: $case_cmd (SP_GOLDEN_CACHE=$cache)"
			fail=1
		fi
	done
done
exit $fail
