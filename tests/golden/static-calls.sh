#!/bin/sh
# Checks symprof's static call graph against objdump:
#
#   tests/golden/static-calls.sh [--precise] SYMPROF OBJDUMP PROGRAM GMON...
#
# 1. every direct call objdump -d shows from a known function to a known
#    function (a symbol entry, `<name>'; a PLT stub `<name@plt>' or a GOT
#    slot `# addr <name@VERSION>' stands for `name') is an arc of
#    `symprof -c -z -b -q --no-demangle';
# 2. every arc symprof prints with a count of 0 (found only in the code) is
#    such a call in objdump's listing: nothing else was added.
# With --precise, jumps to another function's entry count as calls too
# (tail calls, `symprof -c --precise'); on AArch64 an unconditional `b'
# always does (gprof's BL scan takes it, so symprof -c does).
#
# A call belongs to the last known function before it, as in gprof's
# symbol table (code of a symbol gprof drops, such as a `.isra.0' clone,
# belongs to the symbol before it, also across sections: cold code at the
# start of .text is _init's; PLT stubs are nobody's). Names are compared,
# not addresses: the graph prints names. Exit status 77 (skipped) when
# OBJDUMP is not installed.
set -u
export LC_ALL=C
precise=
if [ "${1:-}" = --precise ]; then
	precise=1
	shift
fi
symprof=$1
objdump=$2
prog=$3
shift 3
command -v "$objdump" >/dev/null 2>&1 || { echo "skip: no $objdump"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$symprof" -c ${precise:+--precise} -z -b -q --no-demangle "$prog" "$@" >"$tmp/graph" ||
	{ echo "FAIL: symprof failed"; exit 1; }

# The graph: known names, and arcs "parent child called" by name.
awk -f "$(dirname "$0")/graph-arcs.awk" "$tmp/graph" >"$tmp/parsed"

# Aliases: several names at one address are one symbol of the table (it
# keeps one of them); objdump may print another.
nm=$(echo "$objdump" | sed 's/objdump$/nm/')
command -v "$nm" >/dev/null 2>&1 || nm=nm
LC_ALL=C "$nm" --defined-only "$prog" 2>/dev/null | awk 'NF == 3 { print $1, $3 }' >"$tmp/nm"
# PowerPC64 ELFv2: local calls land on a function's local entry, which
# objdump prints as <name+0x8>; readelf gives the offset per function
LC_ALL=C readelf -sW "$prog" 2>/dev/null |
	awk '/localentry/ { n = $NF; o = $0; sub(/.*<localentry>: /, "", o); sub(/].*/, "", o); print n, o }' >"$tmp/localentry"

# GOT slots: "address name" from the dynamic relocations (PLT stubs and
# -fno-plt calls jump through them).
LC_ALL=C "$objdump" -R "$prog" 2>/dev/null |
	awk '$2 ~ /(GLOB_DAT|JUMP_SLOT|JMP_SLOT)$/ { a = $1; sub(/^0+/, "", a); n = $3; sub(/@.*/, "", n); print a, n }' >"$tmp/slots"

# An object file: its calls are relocations (objdump -r prints each after
# its instruction), and only .text is scanned (every section is at 0).
rel=
if LC_ALL=C "$objdump" -f "$prog" | grep -q HAS_RELOC &&
	! LC_ALL=C "$objdump" -f "$prog" | grep -q -E 'EXEC_P|DYNAMIC'; then
	rel=1
fi

a64=
LC_ALL=C "$objdump" -f "$prog" | grep -q 'architecture: aarch64' && a64=1

# objdump: "caller callee" for every direct call between known names.
LC_ALL=C "$objdump" -d ${rel:+-r} --no-show-raw-insn "$prog" |
awk -v precise="$precise" -v rel="$rel" -v a64="$a64" -v known="$tmp/parsed" -v nmfile="$tmp/nm" \
	-v slotfile="$tmp/slots" -v localfile="$tmp/localentry" -f "$(dirname "$0")/objdump-calls.awk" | sort -u >"$tmp/calls"

awk -F '\t' '$1 == "A" { print $2, $3 }' "$tmp/parsed" | sort -u >"$tmp/arcs"
awk -F '\t' '$1 == "A" && $4 ~ /^0(\/|$)/ && $2 != $3 { print $2, $3 }' "$tmp/parsed" |
	sort -u >"$tmp/static"

fail=0
missing=$(comm -23 "$tmp/calls" "$tmp/arcs")
if [ -n "$missing" ]; then
	echo "FAIL: calls objdump shows that are not arcs:"
	echo "$missing" | sed 's/^/  /'
	fail=1
fi
extra=$(comm -13 "$tmp/calls" "$tmp/static")
if [ -n "$extra" ]; then
	echo "FAIL: count-0 arcs that are no call in objdump's listing:"
	echo "$extra" | sed 's/^/  /'
	fail=1
fi
echo "$(wc -l <"$tmp/calls") calls checked, $(wc -l <"$tmp/static") count-0 arcs checked"
exit $fail
