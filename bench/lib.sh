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

# bench_text_addresses N ELF: prints N random addresses of ELF's .text, one
# per line in hex (Python's random with seed 1: the same list every time).
bench_text_addresses() {
	python3 - "$2" "$1" <<'PY'
import random, subprocess, sys
out = subprocess.run(["readelf", "-SW", sys.argv[1]], capture_output=True, text=True).stdout
for line in out.splitlines():
    f = line.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == ".text":
        lo, size = int(f[3], 16), int(f[5], 16)
rng = random.Random(1)
sys.stdout.write("".join("0x%x\n" % (lo + rng.randrange(size)) for _ in range(int(sys.argv[2]))))
PY
}
