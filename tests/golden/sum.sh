#!/bin/sh
# Checks symprof's -s (gmon.sum):
#   tests/golden/sum.sh SYMPROF FORMAT DIR EXE PROFILE...
# In a scratch directory, `symprof -s [-O FORMAT] EXE PROFILE...` writes
# gmon.sum; then GNU gprof must report gmon.sum exactly as it reports the
# PROFILEs summed on its command line (-b, flat and graph), and so must
# symprof. FORMAT is "gnu" or "bsd", or "gnu-l" to compare the line-level
# exec counts (-l -C, where basic-block counts show) as well. For the GNU
# format the 12 spare header bytes must be zero.
#
# SUM_REPEAT=N passes the PROFILEs N times over (enough copies of a run
# make a summed bin exceed 65535 and an arc count 2^32-1: gmon.sum then
# holds several records that gprof adds back).
#
# GPROF names the anchor gprof (default gprof), e.g. a cross gprof for a
# profile of another target. When it is not installed, SUM_WANT (a golden
# .out of `gprof -b EXE PROFILE...`, relative to DIR) stands for its report
# of the inputs, and only symprof's reading of gmon.sum is checked (-b only).
set -u
gprof=${GPROF:-gprof}
symprof=$1 format=$2 dir=$3 exe=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 2
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
exe=$(abs "$exe")
profiles=""
i=0
while [ $i -lt "${SUM_REPEAT:-1}" ]; do
	for p in "$@"; do profiles="$profiles $(abs "$p")"; done
	i=$((i + 1))
done
opt=""
[ "$format" = bsd ] && opt="-O b"
modes="-b"
[ "$format" = gnu-l ] && modes="-b|-l -C"
(cd "$tmp" && "$symprof" -s $opt "$exe" $profiles >/dev/null) || {
	echo "FAIL: symprof -s exited with $?" >&2
	exit 1
}
[ -f "$tmp/gmon.sum" ] || { echo "FAIL: no gmon.sum written" >&2; exit 1; }
if [ "$format" != bsd ]; then
	spare=$(od -An -tx1 -j8 -N12 "$tmp/gmon.sum" | tr -d ' \n')
	[ "$spare" = 000000000000000000000000 ] || { echo "FAIL: spare bytes $spare" >&2; exit 1; }
fi
have_gprof=1
command -v "$gprof" >/dev/null 2>&1 || have_gprof=0
if [ $have_gprof = 0 ]; then
	if [ -z "${SUM_WANT:-}" ] || [ "$modes" != "-b" ]; then
		echo "FAIL: $gprof missing and no SUM_WANT for $modes" >&2
		exit 1
	fi
	echo "note: $gprof missing: checking against $SUM_WANT" >&2
fi
fail=0
# what -s prints besides (it turns -l on, as in gprof: a line-level flat
# profile and the call graph), in a directory of its own for gprof's
# gmon.sum; where gprof aborts in line mode (optimized C++,
# docs/differences.md) there is nothing to compare
if [ $have_gprof = 1 ] && [ "$format" != bsd ]; then
	mkdir "$tmp/g"
	if (cd "$tmp/g" && "$gprof" -s -b -p -q "$exe" $profiles >"$tmp/want-s" 2>/dev/null); then
		(cd "$tmp/g" && "$symprof" -s -b -p -q "$exe" $profiles >"$tmp/got-s" 2>/dev/null)
	else
		cp "$tmp/want-s" "$tmp/got-s"
	fi
	if ! cmp -s "$tmp/want-s" "$tmp/got-s"; then
		echo "FAIL: symprof -s -b -p -q prints other than gprof's" >&2
		diff -u "$tmp/want-s" "$tmp/got-s" | head -30 >&2
		fail=1
	fi
fi
IFS='|'
for mode in $modes; do
	IFS=' '
	if [ $have_gprof = 1 ]; then
		"$gprof" $mode "$exe" $profiles >"$tmp/want" 2>/dev/null
		"$gprof" $mode "$exe" "$tmp/gmon.sum" >"$tmp/got-gprof" 2>/dev/null
	else
		cp "$SUM_WANT" "$tmp/want"
		cp "$SUM_WANT" "$tmp/got-gprof"
	fi
	"$symprof" $mode "$exe" "$tmp/gmon.sum" >"$tmp/got-symprof" 2>/dev/null
	if ! cmp -s "$tmp/want" "$tmp/got-gprof"; then
		echo "FAIL: gprof $mode reports gmon.sum differently from the summed inputs" >&2
		diff -u "$tmp/want" "$tmp/got-gprof" | head -30 >&2
		fail=1
	fi
	if ! cmp -s "$tmp/want" "$tmp/got-symprof"; then
		echo "FAIL: symprof $mode reports gmon.sum differently from gprof on the inputs" >&2
		diff -u "$tmp/want" "$tmp/got-symprof" | head -30 >&2
		fail=1
	fi
	IFS='|'
done
exit $fail
