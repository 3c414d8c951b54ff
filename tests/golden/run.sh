#!/bin/sh
# Runs one golden case: tests/golden/run.sh SYMPROF CASE.cmd
#
# CASE.cmd holds the arguments that follow the program name (shell words;
# run with the .cmd file's directory as cwd). The case passes when symprof's
# stdout equals CASE.out byte for byte and its exit status equals CASE.rc
# (0 when there is no .rc file). When CASE.err exists, stderr must equal it
# (CASE.env, if present, holds NAME=value lines exported for the run)
# too. With SP_GOLDEN_UPDATE=1 the expected files are rewritten instead
# (only for cases whose .out does not come from an anchor tool: see the
# regen.sh of each fixture for those; a CASE.anchor file marks such a case
# and is never overwritten).
#
# The index cache (symbolize/dwcache.c) is off (SYMPROF_NO_CACHE), never the
# user's: with SP_GOLDEN_CACHE=1 the case runs twice with a cache directory
# of its own, written by the first run and read by the second, and both
# must give the expected output.
#
# A `requires` file in the case's directory lists "PATH BUILD-ID" lines:
# shared libraries whose code the profiles sampled. When an installed one
# has another build-id (or is missing) the case is skipped (exit 77): its
# names would come from a different file.
set -u
symprof=$1
case_cmd=$2
dir=$(dirname "$case_cmd")
base=${case_cmd%.cmd}
out=$(mktemp)
err=$(mktemp)
cache=
trap 'rm -f "$out" "$err"; [ -z "$cache" ] || rm -rf "$cache"' EXIT
runs=1
if [ "${SP_GOLDEN_CACHE:-0}" = 1 ]; then
	cache=$(mktemp -d)
	export SYMPROF_CACHE_DIR="$cache"
	unset SYMPROF_NO_CACHE
	runs=2
else
	export SYMPROF_NO_CACHE=1
fi

cd "$dir" || exit 2
if [ -f requires ]; then
	while read -r lib id; do
		have=$(readelf -n "$lib" 2>/dev/null | sed -n 's/.*Build ID: //p')
		if [ "$have" != "$id" ]; then
			echo "SKIP: $lib is not the one the profiles ran with (build-id $id)" >&2
			exit 77
		fi
	done <requires
fi
# A `needs` file in the case's directory lists files outside the
# repository that its cases read in place (profiles of other projects in
# ../shared/external, never copied here), one path a line, relative to the
# directory: without one of them the case is skipped (exit 77).
if [ -f needs ]; then
	while read -r path; do
		if [ ! -e "$path" ]; then
			echo "SKIP: $path is not there" >&2
			exit 77
		fi
	done <needs
fi
# CASE.env: NAME=value lines exported for the run
if [ -f "$base.env" ]; then
	set -a
	. "$base.env"
	set +a
fi
eval "set -- $(cat "$case_cmd")"
want_rc=0
[ -f "$base.rc" ] && want_rc=$(cat "$base.rc")
run=1
while [ $run -lt $runs ]; do
	# the cold run of SP_GOLDEN_CACHE=1: fills the cache, checked too
	"$symprof" "$@" >"$out" 2>"$err"
	rc=$?
	if ! cmp -s "$out" "$base.out" || [ "$rc" != "$want_rc" ]; then
		echo "FAIL: the run that fills the index cache differs (status $rc)" >&2
		diff -u "$base.out" "$out" | head -60 >&2
		exit 1
	fi
	run=$((run + 1))
done
"$symprof" "$@" >"$out" 2>"$err"
rc=$?

if [ "${SP_GOLDEN_UPDATE:-0}" = 1 ]; then
	[ -f "$base.anchor" ] && exit 0
	cp "$out" "$base.out"
	[ "$rc" != 0 ] && echo "$rc" >"$base.rc"
	[ -f "$base.err" ] && cp "$err" "$base.err"
	exit 0
fi

fail=0
if ! cmp -s "$out" "$base.out"; then
	echo "FAIL: stdout differs from $base.out" >&2
	diff -u "$base.out" "$out" | head -60 >&2
	fail=1
fi
if [ "$rc" != "$want_rc" ]; then
	echo "FAIL: exit status $rc, expected $want_rc" >&2
	fail=1
fi
if [ -f "$base.err" ] && ! cmp -s "$err" "$base.err"; then
	echo "FAIL: stderr differs from $base.err" >&2
	diff -u "$base.err" "$err" | head -20 >&2
	fail=1
fi
if [ $fail = 0 ] && [ "$want_rc" = 0 ] && [ ! -f "$base.err" ] && [ -s "$err" ]; then
	echo "note: stderr was:" >&2
	head -5 "$err" >&2
fi
exit $fail
