#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Compares symprof with google-pprof on a gperftools CPU profile of the
# large generated program, and symprof --addr2line with addr2line.
#
#   bench/bench-gperf.sh [pprof] [addr2line]      (default: both)
#
# Setup (once, reused afterwards; bench/work/gperf, never committed):
#   - bench/gen-program.py -n 5600 --layers 44 (deep call chains: the
#     profile's median stack depth is about 40), built with -g -O2
#     -fno-omit-frame-pointer and linked with libprofiler;
#   - one run of it with CPUPROFILE at 250 Hz, long enough for SAMPLES
#     samples (default 30000: about two minutes of CPU); the profile is a
#     real one, nothing synthesized.
#
# pprof: google-pprof --text ./prog prog.prof (run where the binary is at
# its recorded path) against symprof --format=pprof prog prog.prof, and the
# same with --cum and --lines; interleaved runs, medians, outputs compared.
# addr2line: ADDRS (default 1000000) random addresses of .text (fixed seed)
# on stdin of addr2line -f -i -C -e prog and symprof --addr2line -e prog;
# addresses per second, outputs compared.
#
# Environment: SYMPROF (default build/symprof), GOOGLE_PPROF (google-pprof),
# ADDR2LINE (addr2line), RUNS (5 for pprof, 3 for addr2line), SAMPLES, ADDRS,
# BENCH_WORK (bench/work), JOBS (2). Timing never fails the script: it is a
# report. Results go to bench/work/gperf/results.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
symprof=${SYMPROF:-$root/build/symprof}
pprof=${GOOGLE_PPROF:-google-pprof}
a2l=${ADDR2LINE:-addr2line}
samples=${SAMPLES:-30000}
naddrs=${ADDRS:-1000000}
work=${BENCH_WORK:-$here/work}/gperf
jobs=${JOBS:-2}

log() { printf 'bench-gperf: %s\n' "$*" >&2; }

case "${1:-}" in
-h|--help) awk 'NR > 3 && !/^#/ { exit } NR > 3 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
esac
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(pprof addr2line)
for tool in python3 make "$pprof" "$a2l" readelf strings; do
	command -v "$tool" >/dev/null || { log "missing '$tool'"; exit 1; }
done
case "$symprof" in /*) ;; *) symprof=$PWD/$symprof ;; esac
[ -x "$symprof" ] || { log "symprof not found at '$symprof' (set SYMPROF)"; exit 1; }

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
measure=$(bench_measure_tool "${BENCH_WORK:-$here/work}")
mkdir -p "$work"

# ---- setup: program and profile ----

if [ ! -x "$work/prog" ]; then
	log "generating and building the program (a few minutes)"
	python3 "$here/gen-program.py" -n 5600 --layers 44 --seed 1 -o "$work/src" >/dev/null
	make -C "$work/src" -j"$jobs" CFLAGS="-g -O2 -fno-omit-frame-pointer" \
		LDFLAGS="-Wl,--no-as-needed -lprofiler" >/dev/null
	cp "$work/src/prog" "$work/prog"
fi
if [ ! -f "$work/prog.prof" ]; then
	t=$( { /usr/bin/time -f %U "$work/prog" 1 >/dev/null; } 2>&1 | tail -n 1)
	iters=$(awk -v t="$t" -v n="$samples" 'BEGIN { i = int(n / 230 / (t > 0 ? t : 1)) + 1; print i }')
	log "profiling: $iters iterations (about $(awk -v t="$t" -v i="$iters" 'BEGIN{printf "%d", t*i}') s of CPU)"
	(cd "$work" && CPUPROFILE=$work/prog.prof CPUPROFILE_FREQUENCY=250 ./prog "$iters" \
		>/dev/null 2>&1)
fi
# google-pprof finds a PIE's symbols only at the path the profile recorded
recorded=$(strings -n 8 "$work/prog.prof" | awk '$2 ~ /x/ && $NF ~ /\/prog$/ { print $NF; exit }')
if [ -n "$recorded" ] && ! [ "$recorded" -ef "$work/prog" ]; then
	log "warning: the profile recorded the program as '$recorded', not '$work/prog':" \
		"google-pprof cannot name its addresses there (its output then differs, and it runs" \
		"faster); delete $work/prog.prof to profile again at this path"
fi
stats=$(python3 - "$work/prog.prof" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
w = lambda i: struct.unpack_from("<Q", d, i * 8)[0]
i, depths, pcs, recs = 2 + w(1), [], set(), 0
while True:
    c, n = w(i), w(i + 1)
    if c == 0 and n == 1 and w(i + 2) == 0:
        break
    s = [w(i + 2 + k) for k in range(n)]
    depths += [n] * c
    pcs.update(s)
    recs += 1
    i += 2 + n
depths.sort()
print("%d samples, %d records, %d distinct addresses, stack depth median %d (min %d, max %d)"
      % (len(depths), recs, len(pcs), depths[len(depths) // 2], depths[0], depths[-1]))
EOF
)

results=$work/results.txt
{
	printf '# %s, %s, %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
		"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')" \
		"$(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '# symprof %s; %s; %s\n' "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')" \
		"$("$pprof" --version 2>&1 | head -n 1)" "$("$a2l" --version | head -n 1)"
	printf '# program: %s (%s bytes, %s functions); profile: %s\n' "$work/prog" \
		"$(stat -c %s "$work/prog")" "$(readelf -sW "$work/prog" | awk '$4 == "FUNC"' | wc -l)" "$stats"
} | tee "$results"

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "" }'
}

# ---- google-pprof --text ----

bench_pprof() {
	local runs=${RUNS:-5} label=$1 popts=$2 sopts=$3 slug
	slug=$(printf '%s' "$label" | tr -c 'a-z0-9' '_')
	rm -f "$work/$slug".*.times
	for ((i = 0; i <= runs; i++)); do
		# shellcheck disable=SC2086
		"$measure" -C "$work" -o "$work/$slug.pprof.out" -e /dev/null -- \
			"$pprof" $popts ./prog prog.prof >>"$work/$slug.pprof.times"
		# shellcheck disable=SC2086
		"$measure" -C "$work" -o "$work/$slug.symprof.out" -e /dev/null -- \
			"$symprof" $sopts prog prog.prof >>"$work/$slug.symprof.times"
		[ "$i" -gt 0 ] || rm -f "$work/$slug".*.times # warm-up
	done
	local pw sw pc sc out
	pw=$(awk '{ print $1 }' "$work/$slug.pprof.times" | median)
	sw=$(awk '{ print $1 }' "$work/$slug.symprof.times" | median)
	pc=$(awk '{ print $2 + $3 }' "$work/$slug.pprof.times" | median)
	sc=$(awk '{ print $2 + $3 }' "$work/$slug.symprof.times" | median)
	out=DIFFER
	cmp -s "$work/$slug.pprof.out" "$work/$slug.symprof.out" && out=MATCH
	awk -v l="$label" -v pw="$pw" -v sw="$sw" -v pc="$pc" -v sc="$sc" -v o="$out" 'BEGIN {
		printf "%-16s %10.3f %10.4f %8.1fx %10.3f %10.4f %8.1fx  %s\n", l, pw, sw, pw / sw, pc, sc,
		       (sc > 0 ? pc / sc : 0), o }' | tee -a "$results"
}

if printf '%s\n' "${what[@]}" | grep -qx pprof; then
	printf '%-16s %10s %10s %9s %10s %10s %9s  %s\n' "pprof mode" "pprof s" "symprof s" \
		"wall x" "pprof cpu" "symp cpu" "cpu x" output | tee -a "$results"
	bench_pprof "--text" "--text" "--format=pprof"
	bench_pprof "--text --cum" "--text --cum" "--format=pprof --cum"
	bench_pprof "--lines --text" "--lines --text" "--format=pprof --lines"
	printf '# target: symprof >= 100x faster than google-pprof --text (wall, medians)\n' |
		tee -a "$results"
fi

# ---- addr2line ----

if printf '%s\n' "${what[@]}" | grep -qx addr2line; then
	if [ ! -f "$work/addrs.$naddrs.txt" ]; then
		bench_text_addresses "$naddrs" "$work/prog" >"$work/addrs.$naddrs.txt"
	fi
	runs=${RUNS:-3}
	rm -f "$work"/a2l.*.times
	for ((i = 0; i < runs; i++)); do
		"$measure" -C "$work" -o "$work/a2l.addr2line.out" -e /dev/null -- sh -c \
			"exec $a2l -f -i -C -e prog < addrs.$naddrs.txt" >>"$work/a2l.addr2line.times"
		"$measure" -C "$work" -o "$work/a2l.symprof.out" -e /dev/null -- sh -c \
			"exec '$symprof' --addr2line -e prog < addrs.$naddrs.txt" >>"$work/a2l.symprof.times"
	done
	aw=$(awk '{ print $1 }' "$work/a2l.addr2line.times" | median)
	sw=$(awk '{ print $1 }' "$work/a2l.symprof.times" | median)
	out=DIFFER
	cmp -s "$work/a2l.addr2line.out" "$work/a2l.symprof.out" && out=MATCH
	inl=$(awk 'NR % 2 == 1' "$work/a2l.symprof.out" | wc -l)
	awk -v n="$naddrs" -v aw="$aw" -v sw="$sw" -v o="$out" -v f="$inl" 'BEGIN {
		printf "addr2line -f -i -C: %d addresses (%d functions printed, inlines included)\n", n, f
		printf "%-22s %8.3f s %12.0f addresses/s\n", "addr2line", aw, n / aw
		printf "%-22s %8.3f s %12.0f addresses/s  %.1fx  %s\n", "symprof --addr2line", sw, n / sw,
		       aw / sw, o
		printf "# target: symprof >= 2,000,000 addresses/s with function, file:line and inlines\n" }' |
		tee -a "$results"
fi
log "outputs and results.txt in $work"
