#!/bin/sh
# Builds symprof the way users and packagers do and fails on any warning:
# Release with Debian's hardening flags (dpkg-buildflags), then MinSizeRel.
# The project itself never forces -Werror on them (SYMPROF_WERROR is off by
# default); this check adds it from outside, through CFLAGS.
#
#   scripts/check-release.sh [BUILD_DIR_PREFIX]    default: build-release
set -eu
cd "$(dirname "$0")/.."
prefix=${1:-build-release}
jobs=$(nproc 2>/dev/null || echo 2)

CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS) -Werror" \
	LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" \
	cmake -S . -B "$prefix" -DCMAKE_BUILD_TYPE=Release -DSYMPROF_TESTS=OFF >/dev/null
cmake --build "$prefix" -j "$jobs" >/dev/null
CFLAGS=-Werror cmake -S . -B "$prefix-minsize" -DCMAKE_BUILD_TYPE=MinSizeRel \
	-DSYMPROF_TESTS=OFF >/dev/null
cmake --build "$prefix-minsize" -j "$jobs" >/dev/null
"$prefix"/symprof --version >/dev/null
echo "check-release: Release (Debian flags) and MinSizeRel build without warnings"
