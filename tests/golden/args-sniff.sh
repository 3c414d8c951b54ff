#!/bin/sh
# What the file arguments are, on files made for the test (cli/formats.c):
#
#   tests/golden/args-sniff.sh SYMPROF FIXTURES PPROF_SAMPLE
#
# - google/pprof's gzipped sample.cpu (../shared/external, read in place)
#   decompressed and recompressed with bzip2: each read as a pprof
#   protobuf (skipped when the file is not there);
# - a gzipped gperftools profile: named, to be decompressed first;
# - a gmon.out on stdin ("-") and through a named pipe: read whole, as a
#   plain file (looking at the arguments must not consume them).
set -u
symprof=$1
fix=$2
sample=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect NAME RC STDERR ARGS...: symprof ARGS exits RC, saying STDERR
expect() {
	name=$1 want_rc=$2 want_err=$3
	shift 3
	"$symprof" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	got=$(cat "$tmp/err")
	if [ "$rc" != "$want_rc" ] || [ "$got" != "$want_err" ]; then
		echo "FAIL: $name: exit $rc (want $want_rc), stderr:" >&2
		printf '  %s\n  want: %s\n' "$got" "$want_err" >&2
		fail=1
	fi
}

if [ -f "$sample" ]; then
	gzip -dc "$sample" >"$tmp/sample.pb"
	bzip2 -c "$tmp/sample.pb" >"$tmp/sample.pb.bz2"
	expect "plain protobuf" 0 "" "$tmp/sample.pb"
	expect "bzip2 protobuf" 0 "" "$tmp/sample.pb.bz2"
else
	echo "note: $sample is not there: protobufs not checked"
fi

gzip -c "$fix/gperf/hot/hot_pie.prof" >"$tmp/hot_pie.prof.gz"
expect "gzipped gperftools profile" 1 \
	"symprof: cannot read '$tmp/hot_pie.prof.gz': it is a gzip-compressed gperftools profile (decompress it first)" \
	"$tmp/hot_pie.prof.gz"

prog=$fix/gmon/prog
"$symprof" -b "$prog/prog" "$prog/gmon.out.run1" >"$tmp/want" 2>&1
"$symprof" -b "$prog/prog" - <"$prog/gmon.out.run1" >"$tmp/stdin" 2>&1
if ! cmp -s "$tmp/want" "$tmp/stdin" || [ ! -s "$tmp/want" ]; then
	echo "FAIL: a gmon.out on stdin is not read as the file is" >&2
	fail=1
fi
mkfifo "$tmp/fifo"
cat "$prog/gmon.out.run1" >"$tmp/fifo" &
timeout 60 "$symprof" -b "$prog/prog" "$tmp/fifo" >"$tmp/pipe" 2>&1
kill $! 2>/dev/null
wait
if ! cmp -s "$tmp/want" "$tmp/pipe"; then
	echo "FAIL: a gmon.out through a named pipe is not read as the file is" >&2
	fail=1
fi
exit $fail
