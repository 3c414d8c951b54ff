#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Print the size of a GNU gmon.out (x86-64, little-endian): histogram bins and
samples, call-graph arcs and calls.

Usage: gmon-stats.py gmon.out

The format is described in shared/reference/gprof.md (section 3): a 20-byte
header ("gmon", version, 12 spare bytes), then tagged records: 0 = histogram
(low_pc, high_pc: u64; bins, prof_rate: u32; dimen[15], abbrev; bins x u16),
1 = arc (from_pc, self_pc: u64; count: u32), 2 = basic-block counts.
"""

import struct
import sys


def main():
	if len(sys.argv) != 2:
		sys.exit("usage: gmon-stats.py gmon.out")
	with open(sys.argv[1], "rb") as f:
		d = f.read()
	if d[:4] != b"gmon":
		sys.exit("gmon-stats: '%s' is not a GNU gmon.out" % sys.argv[1])
	off = 20
	hist_records = bins = samples = nonzero = 0
	text = 0
	rate = 0
	arcs = calls = 0
	callees = set()
	callers = set()
	while off < len(d):
		tag = d[off]
		off += 1
		if tag == 0:
			lo, hi, n, rate = struct.unpack_from("<QQII", d, off)
			off += 40
			counts = struct.unpack_from("<%dH" % n, d, off)
			off += 2 * n
			hist_records += 1
			bins += n
			text += hi - lo
			samples += sum(counts)
			nonzero += sum(1 for c in counts if c)
		elif tag == 1:
			frm, self_pc, count = struct.unpack_from("<QQI", d, off)
			off += 20
			arcs += 1
			calls += count
			callees.add(self_pc)
			callers.add(frm)
		elif tag == 2:
			(n,) = struct.unpack_from("<I", d, off)
			off += 4 + 16 * n
		else:
			sys.exit("gmon-stats: bad tag %d at offset %d" % (tag, off - 1))
	rows = [
		("histogram records", hist_records),
		("histogram bins", bins),
		("histogram text bytes", text),
		("histogram samples", samples),
		("histogram seconds", "%.2f" % (samples / rate) if rate else "n/a"),
		("nonzero bins", nonzero),
		("arc records", arcs),
		("arc call sites", len(callers)),
		("arc callees", len(callees)),
		("calls", calls),
	]
	for k, v in rows:
		print("%-24s %s" % (k + ":", v))


if __name__ == "__main__":
	main()
