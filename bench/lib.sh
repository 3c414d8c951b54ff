# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Shared by the bench/ scripts (sourced, not run).

# bench_measure_tool WORKDIR: builds bench/measure.c into WORKDIR/bin/measure
# when it is missing or older than its source, and prints its path.
bench_measure_tool() {
	local src bin
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/measure.c
	bin=$1/bin/measure
	# a sandbox may leave a regular file at /dev/null: the outputs sent
	# there are then written to tmpfs, a cost both tools pay per byte that
	# lowers the faster one's ratio (1.3 MB of call graph: about 10% of
	# symprof -b on a 1k-function program)
	if [ ! -c /dev/null ]; then
		printf 'bench: warning: /dev/null is a %s, not the null device: outputs are written to a file and the ratios understate symprof (as root: rm /dev/null && mknod -m 666 /dev/null c 1 3)\n' \
			"$(stat -c %F /dev/null 2>/dev/null || echo 'missing file')" >&2
	fi
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
