#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Go pprof's own test profiles, read in place (shared/external/pprof: the
# legacy gperftools profiles of its profile/ and driver/ tests, and
# report/testdata/sample.cpu, a gzipped protobuf): symprof reads each
# without error (gprof's text, exit 0, no binaries at hand: frames the
# profile did not name stay unnamed), and go tool pprof reads symprof's
# --format=proto of each.
#
#   tests/golden/pprof-external.sh SYMPROF DIR
#
# Left out: profile_testdata_java.cpu, a Java CPU profile in the legacy
# format, which the gperftools reader refuses (docs/differences.md).
# Exit 77 (skipped) when DIR is not there.
set -u
symprof=$1 dir=$2
[ -d "$dir" ] || { echo "SKIP: $dir is not there"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp"
status=0 n=0
for f in "$dir"/*.cpu; do
	case "$f" in *_java.cpu) continue ;; esac
	n=$((n + 1))
	if "$symprof" -b "$f" >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/out" ]; then
		echo "ok: $(basename "$f"): read ($(grep -c . "$tmp/out") lines)"
	else
		echo "FAIL: $(basename "$f"): $(tail -1 "$tmp/err")"
		status=1
		continue
	fi
	if "$symprof" --format=proto --output="$tmp/p.pb.gz" "$f" 2>/dev/null &&
		go tool pprof -raw "$tmp/p.pb.gz" >/dev/null 2>"$tmp/err"; then
		echo "ok: $(basename "$f"): go tool pprof reads its --format=proto"
	else
		echo "FAIL: $(basename "$f"): --format=proto: $(tail -1 "$tmp/err")"
		status=1
	fi
done
[ $n -gt 0 ] || { echo "FAIL: no profile in $dir"; status=1; }
exit $status
