#!/bin/sh
# Times symprof's static call graph (-c) on a large text section.
#
#   bench/static-cg.sh [ELF]     default: the largest libLLVM on the machine
#
# The ELF file need not have been profiled: the script writes a gmon.out for
# it (work/static-cg/gmon.out: one histogram over .text with 64-byte bins, a
# few samples, an arc between every 50th and 75th exported function), so any
# big binary or library will do. It prints the .text size and, for
# `-b -q', `-b -q -c' and `-b -q -c --precise', symprof's median wall time,
# CPU time and peak RSS over RUNS (3) runs (bench/measure.c). gprof needs a
# .symtab, which a stripped library lacks; when the file has one, gprof -c
# is timed too. A report, not a test.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
SYMPROF=${SYMPROF:-$root/build/symprof}
GPROF=${GPROF:-/usr/bin/gprof}
RUNS=${RUNS:-3}
elf=${1:-$(ls -S /usr/lib/x86_64-linux-gnu/libLLVM*.so* 2>/dev/null | head -1)}
[ -n "$elf" ] && [ -f "$elf" ] || { echo "usage: $0 ELF" >&2; exit 2; }
work=$here/work/static-cg
mkdir -p "$work" "$here/work/bin"
[ -x "$here/work/bin/measure" ] || cc -O2 -o "$here/work/bin/measure" "$here/measure.c"

python3 - "$elf" "$work/gmon.out" <<'EOF'
import struct, subprocess, sys
elf, out = sys.argv[1], sys.argv[2]
binsize = 64
for line in subprocess.run(["readelf", "-SW", elf], capture_output=True, text=True).stdout.splitlines():
    f = line.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == ".text":
        lo, size = int(f[3], 16), int(f[5], 16)
nbins = (size + binsize - 1) // binsize
hi = lo + nbins * binsize
funcs = []
for opt in (["nm", "--defined-only"], ["nm", "-D", "--defined-only"]):
    for l in subprocess.run(opt + [elf], capture_output=True, text=True).stdout.splitlines():
        f = l.split()
        if len(f) == 3 and f[1] in "TtWw" and lo <= int(f[0], 16) < hi:
            funcs.append(int(f[0], 16))
    if funcs:
        break
funcs.sort()
bins = [0] * nbins
for i, a in enumerate(funcs[::97]):
    bins[(a - lo) // binsize] += 1 + i % 7
data = b"gmon" + struct.pack("<I", 1) + bytes(12)
data += bytes([0]) + struct.pack("<QQII", lo, hi, nbins, 100) + b"seconds".ljust(15, b"\0") + b"s"
data += struct.pack("<%dH" % nbins, *bins)
for a, b in zip(funcs[::50], funcs[25::50]):
    data += bytes([1]) + struct.pack("<QQI", a + 8, b, 3)
open(out, "wb").write(data)
print("%s: .text %.1f MB, %d functions" % (elf, size / 1e6, len(funcs)))
EOF

# median of RUNS measure runs: "wall cpu rss_mib"
time_it() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$here/work/bin/measure" -o "$work/out" -e "$work/err" -- "$@" | awk '{ print $1, $2 + $3, $4 / 1024 }'
		i=$((i + 1))
	done | sort -n | awk -v n="$RUNS" 'NR == int((n + 1) / 2)'
}

printf '%-24s %8s %8s %8s\n' mode wall_s cpu_s rss_MiB
for mode in "-b -q" "-b -q -c" "-b -q -c --precise"; do
	# shellcheck disable=SC2086
	set -- $(time_it "$SYMPROF" $mode "$elf" "$work/gmon.out")
	printf '%-24s %8.2f %8.2f %8.1f\n' "symprof $mode" "$1" "$2" "$3"
done
if nm "$elf" >/dev/null 2>&1 && [ -n "$(nm "$elf" 2>/dev/null | head -1)" ]; then
	for mode in "-b -q" "-b -q -c"; do
		# shellcheck disable=SC2086
		set -- $(time_it "$GPROF" $mode "$elf" "$work/gmon.out")
		printf '%-24s %8.2f %8.2f %8.1f\n' "gprof $mode" "$1" "$2" "$3"
	done
fi
