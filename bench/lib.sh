# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Shared by the bench/ scripts (sourced, not run).

# bench_measure_tool WORKDIR: builds bench/measure.c into WORKDIR/bin/measure
# when it is missing or older than its source, and prints its path.
bench_measure_tool() {
	local src bin
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/measure.c
	bin=$1/bin/measure
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		mkdir -p "$1/bin"
		${CC:-cc} -std=c17 -O2 -Wall -Wextra -o "$bin" "$src" >&2 || return 1
	fi
	printf '%s\n' "$bin"
}
