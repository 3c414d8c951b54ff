#!/bin/sh
# Sets up, builds and runs every test: the tree's formatting, the normal
# build (-Werror) under ctest, the Release and MinSizeRel builds users make
# (no warning allowed), and the ASan+UBSan build under ctest.
#
#   scripts/test.sh            both configurations
#   scripts/test.sh --fast     the normal build only
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/check-format.sh
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYMPROF_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs")
scripts/check-release.sh

if [ "${1:-}" != --fast ]; then
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSYMPROF_SANITIZE=ON \
		-DSYMPROF_WERROR=ON >/dev/null
	cmake --build build-asan -j "$jobs"
	(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j "$jobs")
fi
echo "all tests passed"
