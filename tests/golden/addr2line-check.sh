#!/bin/sh
# Compares symprof --addr2line with the real addr2line, byte for byte:
#
#   tests/golden/addr2line-check.sh SYMPROF ADDR2LINE FILE [N]
#
# The addresses are code addresses of FILE: every function symbol's first
# two bytes and its middle, and N (default 2000) addresses spread evenly
# over .text; they go to both tools on stdin, with -f -i -C, then with -f
# -i (no demangling). Then a few symbol names, `name' and `name+0x3', as
# arguments. Addresses in data (variables DWARF describes) are not asked
# here. The first 50 come again with bits above 32 set, with -a. Exit 77
# (skipped) when ADDR2LINE is not installed.
set -u
export LC_ALL=C
symprof=$1
addr2line=$2
file=$3
n=${4:-2000}
command -v "$addr2line" >/dev/null 2>&1 || { echo "skip: no $addr2line"; exit 77; }
nm=$(echo "$addr2line" | sed 's/addr2line$/nm/')
command -v "$nm" >/dev/null 2>&1 || nm=nm
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# .text: start and size
text=$(readelf -SW "$file" | awk '$2 == ".text" { print $4, $6; exit }
	$3 == ".text" { print $5, $7; exit }')
[ -n "$text" ] || { echo "FAIL: no .text in $file"; exit 1; }
"$nm" -S --defined-only "$file" 2>/dev/null |
	awk -v text="$text" -v n="$n" '
	function hex(s,   i, c, v) {
		v = 0
		for (i = 1; i <= length(s); i++) {
			c = index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
			v = v * 16 + c
		}
		return v
	}
	BEGIN {
		split(text, t, " ")
		lo = hex(t[1]); size = hex(t[2])
		for (i = 0; i < n; i++)
			printf "0x%x\n", lo + int(i * size / n)
	}
	NF == 4 && $3 ~ /^[tTwW]$/ {
		a = hex($1); s = hex($2)
		if (a < lo || a >= lo + size)
			next
		printf "0x%x\n0x%x\n0x%x\n", a, a + 1, a + int(s / 2)
	}' >"$tmp/addrs"
"$nm" --defined-only "$file" 2>/dev/null |
	awk '$2 == "T" && $3 !~ /[@.$]/ { print $3; print $3 "+0x3"; if (++k == 5) exit }' \
	>"$tmp/names"

fail=0
# the addresses on stdin: symprof's default is addr2line -f -i -C
"$addr2line" -f -i -C -e "$file" <"$tmp/addrs" >"$tmp/want" 2>/dev/null
"$symprof" --addr2line -e "$file" <"$tmp/addrs" >"$tmp/got" 2>"$tmp/err" ||
	{ echo "FAIL: symprof --addr2line failed: $(head -3 "$tmp/err")"; exit 1; }
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "FAIL: symprof --addr2line differs from $addr2line -f -i -C:"
	diff "$tmp/want" "$tmp/got" | head -20
	fail=1
fi
# --no-demangle is symprof's spelling of addr2line without -C
"$addr2line" -f -i -e "$file" <"$tmp/addrs" >"$tmp/want" 2>/dev/null
"$symprof" --addr2line --no-demangle -e "$file" <"$tmp/addrs" >"$tmp/got" 2>/dev/null
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "FAIL: --no-demangle differs from $addr2line -f -i:"
	diff "$tmp/want" "$tmp/got" | head -20
	fail=1
fi
# addresses with bits above 32 set, printed back with -a: a 32-bit ELF
# file's are cut to 32 bits (0x100001b80 is 0x00001b80 there)
head -50 "$tmp/addrs" | while read -r a; do
	printf '0x1%08x\n0xffffffff%08x\n' "$a" "$a"
done >"$tmp/high"
"$addr2line" -a -f -i -C -e "$file" <"$tmp/high" >"$tmp/want" 2>/dev/null
"$symprof" --addr2line -a -f -i -C -e "$file" <"$tmp/high" >"$tmp/got" 2>/dev/null
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "FAIL: addresses above 32 bits differ (-a -f -i -C):"
	diff "$tmp/want" "$tmp/got" | head -20
	fail=1
fi
if [ -s "$tmp/names" ]; then
	# shellcheck disable=SC2046
	"$addr2line" -f -i -C -e "$file" $(cat "$tmp/names") >"$tmp/want" 2>/dev/null
	# shellcheck disable=SC2046
	"$symprof" --addr2line -e "$file" $(cat "$tmp/names") >"$tmp/got" 2>/dev/null
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "FAIL: symbol names as arguments differ:"
		diff "$tmp/want" "$tmp/got" | head -20
		fail=1
	fi
fi
echo "$(wc -l <"$tmp/addrs") addresses and $(wc -l <"$tmp/names") names checked"
exit $fail
