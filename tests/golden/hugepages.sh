#!/bin/sh
# The heap on transparent huge pages (cli/main.c):
#
#   tests/golden/hugepages.sh SYMPROF SANITIZED CASE.cmd...
#
# Each golden case prints its expected output with the heap's huge pages
# (the default) and without (SYMPROF_HUGEPAGES=0), through run.sh. The
# advice itself shows in SYMPROF_TIMING's first line: "N MiB on huge
# pages" by default where glibc's heap grows by brk (SANITIZED=0; a
# sanitizer's allocator has no such heap: "not asked"), "huge pages
# refused" on a kernel without transparent huge pages, "off" with
# SYMPROF_HUGEPAGES=0.
set -u
symprof=$1
sanitized=$2
shift 2
here=$(dirname "$0")
fail=0

heap_line() { # heap_line CASE.cmd: SYMPROF_TIMING's "heap:" line of the case
	(cd "$(dirname "$1")" && eval "set -- $(cat "$1")" &&
		SYMPROF_NO_CACHE=1 SYMPROF_TIMING=1 "$symprof" "$@" 2>&1 >/dev/null) |
		sed -n 's/^symprof: heap: //p'
}

for case_cmd in "$@"; do
	for huge in 1 0; do
		SYMPROF_HUGEPAGES=$huge sh "$here/run.sh" "$symprof" "$case_cmd"
		case $? in
		0 | 77) ;; # 77: skipped (its shared libraries are not these)
		*)
			echo "FAIL: $case_cmd (SYMPROF_HUGEPAGES=$huge)"
			fail=1
			;;
		esac
	done
	if [ "$sanitized" = 1 ]; then
		want='huge pages not asked (the heap is not brk'"'"'s, or not new)'
	elif [ -d /sys/kernel/mm/transparent_hugepage ]; then
		want='[0-9]* MiB on huge pages'
	else
		want='huge pages refused (Invalid argument)'
	fi
	got=$(heap_line "$case_cmd")
	# shellcheck disable=SC2254 # want is a pattern
	case $got in
	$want) ;;
	*)
		echo "FAIL: $case_cmd: heap: '$got', want '$want'"
		fail=1
		;;
	esac
	got=$(SYMPROF_HUGEPAGES=0 heap_line "$case_cmd")
	if [ "$got" != "huge pages off (SYMPROF_HUGEPAGES=0)" ]; then
		echo "FAIL: $case_cmd: heap with SYMPROF_HUGEPAGES=0: '$got'"
		fail=1
	fi
done
exit $fail
