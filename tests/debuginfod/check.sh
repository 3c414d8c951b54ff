#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# debuginfod: files and debug info that are not here come by build-id from
# a real debuginfod server (elfutils' `debuginfod -F`), serving a folder of
# fixture binaries from a temporary directory.
#
#   tests/debuginfod/check.sh SYMPROF MOVED-OBJECTS FIXTURES-DIR
#
# debuginfod 0.188 has no option to listen on one address: the server, and
# every client of the test, run in a network namespace of their own
# (unshare: a user, network and PID namespace) whose only interface is the
# loopback, so the server can only be reached on 127.0.0.1, and nothing of
# the test outlives it (the PID namespace ends with its first process).
# The server's database, the clients' cache (DEBUGINFOD_CACHE_PATH) and
# HOME are in the temporary directory, removed at the end.
#
# Checked (the "expected" outputs are symprof's own with the files in
# place; the fixtures' goldens check those against the anchor tools):
#   - a gperftools profile whose executable is stripped and whose libc
#     debug file is not installed (empty debug root) prints the same
#     reports as with the files in place: the debug info comes from the
#     server;
#   - the same profile with every binary known by build-id only (as a
#     pprof protobuf records them; tests/helper/moved-objects.c) is named
#     frame for frame as in place, each build-id asked for once;
#   - a real unsymbolized pprof protobuf (fixtures/pprof/unsymbolized):
#     its executable, not at its recorded path, comes from the server by
#     build-id, libc's debug info too: named as with the files in place,
#     each asked for once; the same when the executable's .debug file is
#     in the debug root (debug info: the executable is still asked for);
#   - gmon.out with a stripped executable: gprof's output (t5000); an
#     IgProf dump (no build-ids: paths) whose binary has no DWARF, -l;
#   - a build-id the server does not have: one clear warning, the report
#     printed with those frames unnamed, as without debuginfod;
#   - a server that is down, one that never answers and one whose
#     connections never open: one warning, the report printed, within
#     DEBUGINFOD_TIMEOUT (+ 2 s for the last) once for the whole run;
#   - --no-debuginfod asks nothing; the client's cache serves a second run
#     with the server gone; a slow answer shows on the progress line.
#
# Exit status: 0, 1 on a failure, 77 when the machine cannot run it
# (no debuginfod, no namespaces, another libc than the fixtures').
set -u

if [ "${1:-}" = --inner ]; then
	inner=1
	shift
else
	inner=0
fi
symprof=$1
moved_objects=$2
fixtures=$3
here=$(cd "$(dirname "$0")" && pwd)
net="python3 $here/net.py"
libc_id=93ac61ec5a8eb1396f9fbd350e3169a558528a40
libc_debug=/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug

if [ $inner = 0 ]; then
	for c in debuginfod unshare ip python3 strip objcopy readelf; do
		command -v $c >/dev/null 2>&1 ||
			{ echo "SKIP: $c is not installed (scripts/install-deps.sh)"; exit 77; }
	done
	have=$(readelf -n /usr/lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | sed -n 's/.*Build ID: //p')
	if [ "$have" != $libc_id ] || [ ! -f $libc_debug ]; then
		echo "SKIP: the fixtures' libc (build-id $libc_id) and its libc6-dbg file are not installed"
		exit 77
	fi
	if ! unshare -rn --pid --fork --kill-child --mount-proc true 2>/dev/null; then
		echo "SKIP: cannot make a user, network and PID namespace (unshare -rn --pid)"
		exit 77
	fi
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	unshare -rn --pid --fork --kill-child --mount-proc \
		sh "$0" --inner "$symprof" "$moved_objects" "$fixtures" "$tmp"
	rc=$?
	# nothing the test started may still run (the PID namespace ends
	# with its first process; this checks it did)
	left=$(pgrep -f "$tmp" || true)
	if [ -n "$left" ]; then
		echo "FAIL: processes of the test still run: $left"
		kill $left 2>/dev/null
		rc=1
	else
		echo "ok: no process of the test is left"
	fi
	exit $rc
fi

# ---- inside the namespaces ----
tmp=$4
fail=0
check() {
	if [ "$1" = 0 ]; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi
}
# sameout NAME A B: files A and B are equal (a diff is shown if not)
sameout() {
	if cmp -s "$2" "$3"; then
		check 0 "$1"
	else
		check 1 "$1"
		diff "$2" "$3" | head -20
	fi
}
# elapsed CMD...: runs CMD, sets $secs to its duration in whole seconds
elapsed() {
	t0=$(date +%s.%N)
	"$@"
	t1=$(date +%s.%N)
	secs=$(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }')
}
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# fake KIND: a misbehaving server (net.py hang|blackhole) in the
# background: $fake_pid, $fake_url
fake() {
	$net "$1" "$tmp/$1.port" &
	fake_pid=$!
	# up to 10 s: a loaded machine (the whole suite at -j2) starts Python
	# slowly, and the black hole waits 0.5 s before it writes its port
	i=0
	while [ ! -s "$tmp/$1.port" ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	fake_url=http://127.0.0.1:$(cat "$tmp/$1.port")
}

export HOME=$tmp/home
unset DEBUGINFOD_URLS DEBUGINFOD_PROGRESS DEBUGINFOD_VERBOSE DEBUGINFOD_RETRY_LIMIT
export DEBUGINFOD_TIMEOUT=10
mkdir -p "$HOME" "$tmp/serve" "$tmp/root" "$tmp/run" "$tmp/gmon"
ip link set lo up || exit 1
links=$(ip -o link show | awk -F': ' '{ print $2 }' | tr '\n' ' ')
[ "$links" = "lo " ]
check $? "the server's network namespace has the loopback only ($links)"

# The files: what the server has, and what is left here.
G=$fixtures/gperf/libc
D=$fixtures/symbolize/debuginfo
cp "$G/libc" "$G/libc.prof" "$G/libc.c" "$tmp/run/"
strip --strip-all -o "$tmp/run/libc" "$G/libc"
objcopy --strip-debug "$G/libc" "$tmp/run/libc-nodebug"
cp "$G/libc" "$tmp/serve/libc"
cp $libc_debug "$tmp/serve/libc6.debug"
"$moved_objects" -e "$G/libc" --list "$G/libc.prof" >"$tmp/objects" 2>/dev/null
while read -r f; do
	[ "$f" != "$G/libc" ] && cp "$f" "$tmp/serve/"
done <"$tmp/objects"
cp "$fixtures/gmon/prog/prog" "$tmp/serve/prog"
cp "$fixtures/igprof/bin/hotrec-nopie" "$tmp/serve/hotrec-nopie"
cp "$D/prog-stripped" "$D/gmon.out" "$tmp/gmon/"
exe_id=$(readelf -n "$G/libc" | sed -n 's/.*Build ID: //p')
hot_id=$(readelf -n "$fixtures/gperf/hot/hot_pie" | sed -n 's/.*Build ID: //p')

port=$($net free-port)
debuginfod -p "$port" -F -d "$tmp/db.sqlite" "$tmp/serve" >"$tmp/server.log" 2>&1 &
server=$!
hang=""
blackhole=""
# the server (and the silent one of case 8) stop at the end, whatever happens
stop() {
	for p in $server $hang $blackhole; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
trap stop EXIT
trap 'exit 1' INT TERM
url=http://127.0.0.1:$port
$net wait 60 "$url/buildid/$exe_id/executable" "$url/buildid/$libc_id/debuginfo" \
	"$url/buildid/$libc_id/executable" "$url/buildid/8c0f97a13db93167fd19616fb2208b17ab1d6440/debuginfo" \
	"$url/buildid/09d61d5edec7767ae24767dc9aa2a06d6836eb4b/debuginfo"
check $? "debuginfod serves the fixture binaries on $url"
ss -ltn | grep -q ":$port "
check $? "debuginfod listens on port $port, in the namespace that has the loopback only"

# run NAME ENV... -- ARGS...: symprof in $tmp/run, stdout/stderr to $tmp/NAME.*
run() {
	name=$1
	shift
	envs=""
	while [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	shift
	(cd "$tmp/run" && env $envs "$symprof" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err")
	rc=$?
	[ $rc = 0 ] || check 1 "symprof $* ($name) exits with status $rc"
}
moved="SYMPROF_DEBUG_ROOT=$tmp/root DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$tmp/cache"

# 1. the executable stripped, libc's debug file not here
for args in "" "-l" "--format=folded" "--format=json" "--format=callgrind" "-b -A"; do
	(cd "$G" && "$symprof" $args libc libc.prof >"$tmp/inplace.out" 2>/dev/null)
	run moved $moved -- $args libc libc.prof
	sameout "symprof $args: debug info from debuginfod, the same report as in place" \
		"$tmp/inplace.out" "$tmp/moved.out"
	grep -v "cannot find source file" "$tmp/moved.err" >"$tmp/moved.warn"
	test ! -s "$tmp/moved.warn"
	check $? "symprof $args: no warning"
	cat "$tmp/moved.warn"
done
# google-pprof's view reads the executable's own symbol table: keep it
(cd "$G" && "$symprof" --format=pprof --lines libc libc.prof >"$tmp/inplace.out" 2>/dev/null)
run moved $moved -- --format=pprof --lines libc-nodebug libc.prof
sameout "--format=pprof --lines: an executable without DWARF, lines from debuginfod" \
	"$tmp/inplace.out" "$tmp/moved.out"

# 2. every binary known by build-id only: each asked for once
(cd "$G" && "$moved_objects" -e libc libc.prof >"$tmp/inplace.out" 2>/dev/null)
(cd "$G" && env $moved DEBUGINFOD_VERBOSE=1 "$moved_objects" -e libc --moved libc.prof \
	>"$tmp/moved.out" 2>"$tmp/moved.err")
sameout "binaries moved away, found by build-id: every frame named as in place" \
	"$tmp/inplace.out" "$tmp/moved.out"
grep '^debuginfod_find_' "$tmp/moved.err" | sort >"$tmp/queries"
test -s "$tmp/queries" && test -z "$(uniq -d "$tmp/queries")"
check $? "each build-id asked for once per kind ($(wc -l <"$tmp/queries") questions)"
grep -q "^debuginfod_find_executable $libc_id" "$tmp/queries"
check $? "libc.so.6 itself came from debuginfod"

# 2b. a real unsymbolized pprof protobuf (Go's pprof conversion of
# libc.prof, fixtures/pprof/unsymbolized): its executable is known by
# build-id only (its recorded path is not here) and comes from the server,
# libc.so.6 is found by its path and its debug info comes from the server.
# Then the same with the executable's .debug file in the debug root: that
# is debug info, not the executable, which is still asked for.
P=$fixtures/pprof/unsymbolized
recorded=/tmp/symprof-gperf-fixtures/libc
# a regen of the gperf fixtures leaves the recorded path in place: hidden
# in this mount namespace
[ -e $recorded ] && mount -t tmpfs tmpfs $recorded
test ! -e $recorded/libc
check $? "the protobuf's executable is not at its recorded path $recorded/libc"
mkdir -p "$tmp/pb" "$tmp/root-exe"
cp "$P/libc.pb.gz" "$G/libc.c" "$tmp/pb/"
exe_debug=$(echo $exe_id | sed 's|^\(..\)\(.*\)|.build-id/\1/\2.debug|')
mkdir -p "$tmp/root-exe/$(dirname $exe_debug)"
objcopy --only-keep-debug "$G/libc" "$tmp/root-exe/$exe_debug"
for root in root root-exe; do
	rm -rf "$tmp/cache-pb"
	for args in -b -l --format=pprof "--format=pprof --lines" --format=folded -A; do
		(cd "$G" && "$symprof" $args libc "$P/libc.pb.gz" >"$tmp/inplace.out" 2>/dev/null)
		(cd "$tmp/pb" && env SYMPROF_DEBUG_ROOT="$tmp/$root" DEBUGINFOD_URLS=$url \
			DEBUGINFOD_CACHE_PATH="$tmp/cache-pb" DEBUGINFOD_VERBOSE=1 \
			"$symprof" $args libc.pb.gz >"$tmp/pb.out" 2>"$tmp/pb.err")
		sameout "pprof protobuf, debug root $root, $args: named by debuginfod as in place" \
			"$tmp/inplace.out" "$tmp/pb.out"
		# symprof's own lines (the others are libdebuginfod's, verbose)
		grep "^symprof: " "$tmp/pb.err" | grep -v "cannot find source file" >"$tmp/pb.warn"
		test ! -s "$tmp/pb.warn"
		check $? "pprof protobuf, debug root $root, $args: no warning"
		cat "$tmp/pb.warn"
		[ "$args" = -b ] || continue
		grep '^debuginfod_find_' "$tmp/pb.err" | sort >"$tmp/queries"
		printf 'debuginfod_find_debuginfo %s\ndebuginfod_find_executable %s\n' $libc_id $exe_id |
			cmp -s - "$tmp/queries"
		rc=$?
		check $rc "pprof protobuf, debug root $root: the executable and libc's debug info asked for, once each"
		[ $rc = 0 ] || cat "$tmp/queries"
		grep -q " cmp$" "$tmp/pb.out" && grep -q " __strcmp_evex$" "$tmp/pb.out"
		check $? "... the executable's functions and libc's named (cmp, __strcmp_evex)"
	done
done

# 3. gmon.out and a stripped executable
(cd "$tmp/gmon" && env $moved "$symprof" -b prog-stripped gmon.out >"$tmp/gmon.out" 2>"$tmp/gmon.err")
sameout "gmon: a stripped executable's debug info from debuginfod: gprof's report" \
	"$D/t5000-build-id.out" "$tmp/gmon.out"

# 3b. IgProf (dumps record paths only): a stripped binary at the mapped path
I=$fixtures/igprof
mkdir -p "$tmp/ig/bin"
objcopy --strip-debug "$I/bin/hotrec-nopie" "$tmp/ig/bin/hotrec-nopie"
dump=profiles/perf/igprof.hotrec-nopie.8643.1795298548.626690.gz
(cd "$I" && "$symprof" --path-map=/tmp/pp-corpus/igprof=. -b -l -p $dump >"$tmp/inplace.out" 2>&1)
(cd "$I" && env $moved "$symprof" --path-map=/tmp/pp-corpus/igprof="$tmp/ig" -b -l -p $dump \
	>"$tmp/moved.out" 2>&1)
sameout "IgProf -l: lines of a binary without DWARF from debuginfod, as in place" \
	"$tmp/inplace.out" "$tmp/moved.out"

# 4. a build-id the server does not have
cp "$fixtures/gperf/hot/hot_pie.prof" "$tmp/run/"
strip --strip-all -o "$tmp/run/hot_pie" "$fixtures/gperf/hot/hot_pie"
run none -- hot_pie hot_pie.prof
run missing DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$tmp/cache -- hot_pie hot_pie.prof
sameout "a build-id debuginfod does not have: the report without it" "$tmp/none.out" \
	"$tmp/missing.out"
grep -c "debuginfod has no debug info for 'hot_pie' (build-id $hot_id)" "$tmp/missing.err" |
	grep -qx 1
check $? "... and one warning names the file and the build-id"
cat "$tmp/missing.err"
(cd "$fixtures/gperf/hot" && env $moved "$moved_objects" -e hot_pie --moved hot_pie.prof \
	>"$tmp/hmoved.out" 2>"$tmp/hmoved.err")
grep -q "debuginfod has no executable and no debug info for '/nonexistent/moved/hot_pie' (build-id $hot_id)" \
	"$tmp/hmoved.err" && grep -q "^0x[0-9a-f]* hot_pie ?? " "$tmp/hmoved.out"
check $? "an executable debuginfod does not have: one warning, its frames unnamed"

# 5. --no-debuginfod asks nothing
rm -rf "$tmp/cache"
run off $moved -- --no-debuginfod libc libc.prof
run none SYMPROF_DEBUG_ROOT=$tmp/root -- libc libc.prof
sameout "--no-debuginfod: the report without debuginfod" "$tmp/none.out" "$tmp/off.out"
test ! -e "$tmp/cache" && test ! -s "$tmp/off.err"
check $? "--no-debuginfod: no question asked, no warning"

# 6. the client's cache serves a second run with the server gone
run first $moved -- libc libc.prof
kill $server
wait $server 2>/dev/null
! kill -0 $server 2>/dev/null
check $? "the server is stopped"
run cached $moved -- libc libc.prof
sameout "the server gone: the same report from the client's cache" "$tmp/first.out" \
	"$tmp/cached.out"

# 7. a server that is down (nothing listens on its port)
down=http://127.0.0.1:$($net free-port)
elapsed run down SYMPROF_DEBUG_ROOT=$tmp/root DEBUGINFOD_URLS=$down \
	DEBUGINFOD_CACHE_PATH=$tmp/cache-down -- libc libc.prof
sameout "a server that is down: the report without it" "$tmp/none.out" "$tmp/down.out"
test "$(grep -c 'debuginfod' "$tmp/down.err")" = 1 &&
	grep -q "cannot get build-id [0-9a-f]* from '$down': Connection refused; no more questions to debuginfod in this run" "$tmp/down.err"
check $? "... one warning says it cannot be reached (${secs} s)"
cat "$tmp/down.err"

# 8. a server that accepts and never answers: DEBUGINFOD_TIMEOUT, once
fake hang
hang=$fake_pid
slow=$fake_url
elapsed run slow SYMPROF_DEBUG_ROOT=$tmp/root DEBUGINFOD_URLS=$slow DEBUGINFOD_TIMEOUT=2 \
	DEBUGINFOD_CACHE_PATH=$tmp/cache-slow -- libc libc.prof
sameout "a server that never answers: the report without it" "$tmp/none.out" "$tmp/slow.out"
grep -q "no answer from '$slow' within 2 s (DEBUGINFOD_TIMEOUT)" "$tmp/slow.err" &&
	test "$(grep -c debuginfod "$tmp/slow.err")" = 1
check $? "... one warning says it did not answer"
lt "$secs" 5.5 && ! lt "$secs" 1.9
check $? "... two build-ids to ask, one timeout of 2 s for the run (${secs} s)"
cd "$G" || exit 1
elapsed env SYMPROF_DEBUG_ROOT="$tmp/root" DEBUGINFOD_URLS="$slow" DEBUGINFOD_TIMEOUT=2 \
	DEBUGINFOD_CACHE_PATH="$tmp/cache-slow2" "$moved_objects" -e libc --moved libc.prof \
	>/dev/null 2>"$tmp/hslow.err"
cd "$tmp" || exit 1
lt "$secs" 5.5 && test "$(grep -c 'no answer from' "$tmp/hslow.err")" = 1
check $? "every binary missing: still one timeout for the run (${secs} s)"
# a server whose connections never open (its packets dropped): libcurl
# would wait 300 s to connect; symprof gives up after DEBUGINFOD_TIMEOUT
# plus 2 s
fake blackhole
blackhole=$fake_pid
dropped=$fake_url
elapsed run dropped SYMPROF_DEBUG_ROOT=$tmp/root DEBUGINFOD_URLS=$dropped DEBUGINFOD_TIMEOUT=2 \
	DEBUGINFOD_CACHE_PATH=$tmp/cache-dropped -- libc libc.prof
sameout "a server that never lets a connection open: the report without it" "$tmp/none.out" \
	"$tmp/dropped.out"
grep -q "no answer from '$dropped' within 2 s" "$tmp/dropped.err" &&
	test "$(grep -c debuginfod "$tmp/dropped.err")" = 1
check $? "... one warning says it did not answer"
lt "$secs" 7.5
check $? "... within DEBUGINFOD_TIMEOUT + 2 s for the run (${secs} s)"
kill $blackhole
wait $blackhole 2>/dev/null
if command -v script >/dev/null 2>&1; then
	(cd "$tmp/run" && SYMPROF_PROGRESS_MS=100 SYMPROF_DEBUG_ROOT=$tmp/root DEBUGINFOD_URLS=$slow \
		DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_CACHE_PATH=$tmp/cache-slow3 \
		script -qec "'$symprof' -b libc libc.prof >/dev/null" /dev/null \
		>"$tmp/tty.err" </dev/null)
	tr '\r' '\n' <"$tmp/tty.err" |
		grep -q "^symprof: .*asking debuginfod for the debug info of '[^']*libc' [0-9.]* s"
	check $? "the progress line says what debuginfod is asked for, and for how long"
fi
# under ASan/UBSan: nothing reported in any run
! grep -l "Sanitizer\|runtime error" "$tmp"/*.err
check $? "no sanitizer report"
exit $fail
