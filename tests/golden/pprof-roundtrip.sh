#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# pprof protobuf input: gperftools fixtures converted by Go's pprof.
#
#   tests/golden/pprof-roundtrip.sh SYMPROF PROTO-CHECK DIR EXE PROFILE RECORDED-DIR
#
# In DIR (a fixtures/gperf program):
#  1. `go tool pprof -symbolize=none -proto PROFILE`: an unsymbolized
#     protobuf (addresses and mappings only). symprof reading it with EXE
#     prints what it prints for the gperftools PROFILE itself: -b, -b -l,
#     --format=pprof (-l), -A, and --format=folded (recursive runs of one
#     function counted once: Go's conversion keeps a stack or two of
#     deep recursion two frames shorter). Without EXE, --path-map from
#     RECORDED-DIR (where the profile ran) to DIR names it the same. The
#     other outputs (callgrind, dot, flame graph, speedscope, JSON, proto,
#     HTML) are written, and --diff with the gperftools profile as the
#     base finds no change.
#  2. `go tool pprof -proto PROFILE` with the binary (PPROF_BINARY_PATH):
#     a protobuf Go symbolized; PROTO-CHECK (proto-check.py) compares
#     symprof's reports of it with go tool pprof's reading of it, and
#     symprof's --format=proto of it with symprof's report.
# Exit 0 pass, 1 fail.
set -u
symprof=$1 check=$2 dir=$3 exe=$4 prof=$5 recorded=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp"
cd "$dir" || exit 1
status=0

go tool pprof -symbolize=none -proto "$prof" >"$tmp/raw.pb.gz" 2>"$tmp/go.err" ||
	{ echo "FAIL: go tool pprof -proto $prof"; cat "$tmp/go.err"; exit 1; }

# recursion collapsed, lines summed
fold() {
	awk '{ n = $NF; $NF = ""; k = split($0, f, ";"); s = ""; prev = "";
	       for (i = 1; i <= k; i++) { sub(/ +$/, "", f[i]); if (f[i] != prev) s = s (s == "" ? "" : ";") f[i]; prev = f[i] }
	       sum[s] += n } END { for (s in sum) print s, sum[s] }' | sort
}

same() { # WHAT OPTIONS...
	what=$1
	shift
	"$symprof" "$@" "$exe" "$prof" >"$tmp/want" 2>&1
	"$symprof" "$@" "$exe" "$tmp/raw.pb.gz" >"$tmp/got" 2>&1
	if [ "$what" = folded ]; then
		fold <"$tmp/want" >"$tmp/want.f" && mv "$tmp/want.f" "$tmp/want"
		fold <"$tmp/got" >"$tmp/got.f" && mv "$tmp/got.f" "$tmp/got"
	fi
	if cmp -s "$tmp/want" "$tmp/got"; then
		echo "ok: unsymbolized protobuf, $what $*: as the gperftools profile"
	else
		echo "FAIL: unsymbolized protobuf, $what $*: differs from the gperftools profile's"
		diff "$tmp/want" "$tmp/got" | head -20
		status=1
	fi
}

same text -b
same text -b -l
same pprof --format=pprof
same pprof --format=pprof -l
same annotated -A
same folded --format=folded

# every other output reads it: written, exit 0
for o in --format=callgrind --format=dot --format=flamegraph --format=speedscope --format=json \
	--format=proto "--html=$tmp/report.html"; do
	if "$symprof" $o --output="$tmp/out" "$exe" "$tmp/raw.pb.gz" \
		2>"$tmp/err" && [ -s "$tmp/out" -o -s "$tmp/report.html" ]; then
		echo "ok: unsymbolized protobuf, $o"
	else
		echo "FAIL: unsymbolized protobuf, $o: $(tail -1 "$tmp/err")"
		status=1
	fi
	rm -f "$tmp/out" "$tmp/report.html"
done
# --diff against the gperftools profile it came from: nothing changed
if "$symprof" --diff="$prof" "$exe" "$tmp/raw.pb.gz" >"$tmp/diff" 2>&1 &&
	grep -q 'change 0\.00, 0\.0%' "$tmp/diff"; then
	echo "ok: --diff with the gperftools profile as base: no change"
else
	echo "FAIL: --diff with the gperftools profile as base"
	head -5 "$tmp/diff"
	status=1
fi

# named from the mappings' paths alone
"$symprof" --format=pprof "$exe" "$prof" >"$tmp/want" 2>&1
"$symprof" --format=pprof --path-map="$recorded=$PWD" "$tmp/raw.pb.gz" \
	>"$tmp/got" 2>&1
if cmp -s "$tmp/want" "$tmp/got"; then
	echo "ok: unsymbolized protobuf named through --path-map=$recorded=."
else
	echo "FAIL: unsymbolized protobuf through --path-map: not named as with the executable"
	diff "$tmp/want" "$tmp/got" | head -20
	status=1
fi

PPROF_BINARY_PATH=$PWD go tool pprof -proto "$prof" >"$tmp/sym.pb.gz" 2>"$tmp/go.err" ||
	{ echo "FAIL: go tool pprof -proto $prof (symbolized)"; cat "$tmp/go.err"; exit 1; }
# Go's pprof names nothing of a -no-pie executable (it takes the first,
# read-only mapping for the code): nothing to compare then
if go tool pprof -raw "$tmp/sym.pb.gz" 2>/dev/null | grep -q '\[FN\]'; then
	python3 "$check" "$symprof" "$PWD" --original="$tmp/sym.pb.gz" -- \
		"$tmp/sym.pb.gz" || status=1
else
	echo "skip: go tool pprof named no function of $prof"
fi
exit $status
