#!/bin/sh
# -y / --separate-files: the FILE-ann files symprof writes (and its stdout)
# must equal GNU gprof's, byte for byte.
#   tests/golden/separate-files.sh SYMPROF DIR ARGS...
# ARGS are run in a scratch directory; DIR is the fixture directory that
# relative paths in ARGS are relative to.
set -u
symprof=$1 dir=$2
shift 2
a=$(mktemp -d) b=$(mktemp -d)
trap 'rm -rf "$a" "$b"' EXIT
dir=$(cd "$dir" && pwd)
args=""
for x in "$@"; do
	case $x in
	-I*) args="$args -I$dir/${x#-I}" ;;
	-*) args="$args $x" ;;
	*) args="$args $dir/$x" ;;
	esac
done
(cd "$a" && gprof $args >stdout 2>/dev/null)
(cd "$b" && "$symprof" $args >stdout 2>/dev/null)
if ! diff -r "$a" "$b" >&2; then
	echo "FAIL: -y output differs from gprof's" >&2
	exit 1
fi
n=$(ls "$a" | grep -c -- '-ann$')
[ "$n" -gt 0 ] || { echo "FAIL: gprof wrote no -ann file (bad test)" >&2; exit 1; }
echo "$n annotated files equal"
