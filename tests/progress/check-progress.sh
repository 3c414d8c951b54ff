#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Progress lines: shown on a terminal, never in a file, not with --quiet.
#
#   tests/progress/check-progress.sh SYMPROF FIXTURE-DIR IMAGE PROFILE...
#   tests/progress/check-progress.sh SYMPROF FIXTURE-DIR --aprof REPORT...
#
# script(1) gives symprof a pseudo-terminal; SYMPROF_PROGRESS_MS=0 shows
# every step at once so that a fast run shows them too. The report itself
# (stdout) must be the same with and without a terminal on stderr.
set -u
symprof=$1
dir=$2
shift 2
aprof=0
if [ "${1:-}" = --aprof ]; then
	aprof=1
	shift
fi
command -v script >/dev/null || { echo "SKIP: script(1) (util-linux) is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir" || exit 2
fail=0
check() {
	if [ "$1" = 0 ]; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi
}
q() { for a in "$@"; do printf "'%s' " "$a"; done; }

# stderr is the terminal; stdout goes to a file
SYMPROF_PROGRESS_MS=0 script -qec "$(q "$symprof") -b $(q "$@") >$tmp/tty.out" /dev/null \
	>"$tmp/tty.err" </dev/null
tr '\r' '\n' <"$tmp/tty.err" | sed 's/\x1b\[K//g' >"$tmp/tty.lines"
if [ $aprof = 1 ]; then
	grep -q '^symprof: \[1/[0-9]*\] reading .*(' "$tmp/tty.lines"
	check $? "a terminal shows the steps ($(grep -c '^symprof: \[' "$tmp/tty.lines") lines)"
	n=$#
	grep -q "^symprof: \\[$n/[0-9]*\\] reading .*($n of $n files, [0-9.]* kB)" "$tmp/tty.lines" ||
		[ $n = 1 ]
	check $? "reading each report says which file, which of how many and how large"
	grep -q '^symprof: \[[0-9]*/[0-9]*\] fitting the cost of [0-9]* routines' "$tmp/tty.lines"
	check $? "fitting the cost curves is a step"
else
	grep -q '^symprof: \[1/[0-9]*\] reading the symbols of' "$tmp/tty.lines"
	check $? "a terminal shows the steps ($(grep -c '^symprof: \[' "$tmp/tty.lines") lines)"
	grep -q '^symprof: \[[0-9]*/[0-9]*\] reading .*(' "$tmp/tty.lines"
	check $? "reading a profile says which file and how large"
	grep -q '^symprof: \[[0-9]*/[0-9]*\] loading DWARF line tables' "$tmp/tty.lines"
	check $? "loading DWARF line tables is a step"
fi
printf '\r\033[K' >"$tmp/erased"
tail -c 4 "$tmp/tty.err" | cmp -s - "$tmp/erased"
check $? "the last progress line is erased at the end"

# --quiet on a terminal: nothing
SYMPROF_PROGRESS_MS=0 script -qec "$(q "$symprof") --quiet -b $(q "$@") >$tmp/quiet.out" /dev/null \
	>"$tmp/quiet.err" </dev/null
test ! -s "$tmp/quiet.err"
check $? "--quiet prints nothing on the terminal"

# stderr not a terminal: nothing, and the same report
SYMPROF_PROGRESS_MS=0 "$symprof" -b "$@" >"$tmp/file.out" 2>"$tmp/file.err"
test ! -s "$tmp/file.err"
check $? "nothing on stderr when it is not a terminal"
cmp -s "$tmp/file.out" "$tmp/tty.out" && cmp -s "$tmp/file.out" "$tmp/quiet.out"
check $? "the report is the same either way"

# an error erases the progress line before it is printed
# (aprof: the first report is read, the second is missing)
SYMPROF_PROGRESS_MS=0 script -qec "$(q "$symprof") -b $(q "$1") no-such-gmon.out >/dev/null" /dev/null \
	>"$tmp/err.err" </dev/null
tr '\r' '\n' <"$tmp/err.err" | sed 's/\x1b\[K//g' | grep -q "^symprof: cannot read 'no-such-gmon.out'\|^symprof: .*no-such-gmon.out"
check $? "an error message stands on a line of its own"
exit $fail
