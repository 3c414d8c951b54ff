#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Damaged compressed debug sections (SHF_COMPRESSED, zlib or zstd): libelf
and libbfd leave such a section out, so addr2line answers without it;
symprof must answer what addr2line answers and say so in one warning that
names the file and the section:

    compressed-sections.py SYMPROF FILE

FILE is a 64-bit little-endian ELF file whose debug sections are
compressed, or a 32-bit one, whose zstd copy (objcopy) must get one
warning: symprof inflates zstd only in files of the host's layout. Each case copies it with one section's compression header
changed: a size larger than the data holds (the stream ends early:
left out, but for zstd, which libbfd reads as far as it goes), a smaller
one (the data does not fit), a compression type nobody knows, a size over
ten times the file's (libbfd's bound: addr2line leaves the section out)
and one of 512 GiB (addr2line refuses the file, as for the unknown type;
symprof answers as for a section left out, without allocating it), and
an unknown type in a section whose name lies past the string table
(addr2line refuses the file; symprof reads it through libdw, which skips
the section it cannot name: the same answers, and no warning, whose name
would be read out of bounds). The
intact file gets no warning, and the same answers from a cold and a
warm index cache. Every code and data symbol's address and 300
addresses spread over .text are asked, with -f -i -C."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

symprof, path = sys.argv[1], sys.argv[2]
if not shutil.which("addr2line"):
    print("skip: no addr2line")
    sys.exit(77)


def sections(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    strtab = struct.unpack_from("<IIQQQQ", data, shoff + shstrndx * shentsize)[4]
    for i in range(shnum):
        name, _, flags, _, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        end = data.index(b"\0", strtab + name)
        yield data[strtab + name:end].decode(), flags, off, size


def addresses():
    out, data = set(), set()
    for line in subprocess.run(["nm", "--defined-only", path], capture_output=True,
                               text=True).stdout.splitlines():
        p = line.split()
        if len(p) >= 3 and p[1] in "tTwW":
            out.add(int(p[0], 16))
        elif len(p) >= 3 and p[1] in "bBdD":
            data.add(int(p[0], 16))
    lo, hi = min(out), max(out)
    out.update(lo + (hi - lo) * i // 300 for i in range(300))
    return "".join("0x%x\n" % a for a in sorted(out | data))


def set_name_past_strtab(copy, section):
    """Points section's sh_name past the end of the section names."""
    shoff, = struct.unpack_from("<Q", copy, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", copy, 0x3a)
    strsize = struct.unpack_from("<IIQQQQ", copy, shoff + shstrndx * shentsize)[5]
    for i, (name, _, _, _) in enumerate(sections(bytes(copy))):
        if name == section:
            struct.pack_into("<I", copy, shoff + i * shentsize, strsize + len(copy))
            return


def damage(data, section, how):
    """A copy of data with section's Elf64_Chdr changed."""
    copy = bytearray(data)
    for name, flags, off, _ in sections(data):
        if name == section:
            assert flags & 0x800, section + " is not compressed"
            ch_type, _, ch_size = struct.unpack_from("<IIQ", data, off)
            if how == "short":
                struct.pack_into("<Q", copy, off + 8, ch_size + 100)
            elif how == "long":
                struct.pack_into("<Q", copy, off + 8, ch_size // 2)
            elif how == "big":
                struct.pack_into("<Q", copy, off + 8, len(data) * 11)
            elif how == "huge":
                struct.pack_into("<Q", copy, off + 8, 1 << 39)
            else:
                struct.pack_into("<I", copy, off, 99)
            if how == "name":
                set_name_past_strtab(copy, name)
            return bytes(copy)
    raise SystemExit("FAIL: no section %s in %s" % (section, path))


def check(file, section, like=None):
    """0 if symprof answers as addr2line does on file (or on like: addr2line
    refuses a file with a compression type it does not know, where symprof
    leaves the section out as for a short one) and warns as it should."""
    want = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", like or file], input=queries,
                          capture_output=True, text=True).stdout
    got = subprocess.run([symprof, "--addr2line", "--no-cache", "-e", file], input=queries,
                         capture_output=True, text=True, errors="replace")
    bad = 0
    if got.returncode != 0:
        print("FAIL: %s: exit %d" % (file, got.returncode))
        bad = 1
    if got.stdout != want:
        print("FAIL: %s: the answers differ from addr2line's" % file)
        bad = 1
    lines = got.stderr.splitlines()
    if section is not None and section.startswith("?"):
        # a section whose name is past the string table: libelf cannot
        # name it, libdw skips it, and there is nothing to name in a warning
        section = None
    if section is None and lines:
        print("FAIL: %s: unexpected stderr: %s" % (file, lines[0]))
        bad = 1
    prefix = "symprof: warning: '%s': section %s: " % (file, section)
    if section is not None and (len(lines) != 1 or not lines[0].startswith(prefix)):
        print("FAIL: %s: wanted one line starting %r, got %r" % (file, prefix, lines))
        bad = 1
    return bad


def cached_twice(file):
    """0 if symprof answers as addr2line from a fresh index cache and then
    from the index it saved (variables' lines come from the DWARF read
    again: inflated as the first run inflated it)."""
    want = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", file], input=queries,
                          capture_output=True, text=True).stdout
    cache = tempfile.mkdtemp()
    bad = 0
    for run in ("cold", "warm"):
        got = subprocess.run([symprof, "--addr2line", "--cache-dir=" + cache, "-e", file],
                             input=queries, capture_output=True, text=True)
        if got.stdout != want or got.stderr:
            print("FAIL: %s: the %s cache's answers differ from addr2line's" % (file, run))
            bad = 1
    shutil.rmtree(cache)
    return bad


queries = addresses()
data = open(path, "rb").read()
if data[4] == 1:
    # a 32-bit file (uncompressed): its zstd copy (objcopy) is beyond
    # symprof's own inflater; libelf cannot read zstd, so the sections are
    # left out, with one warning
    tmp = tempfile.mkdtemp()
    copy = os.path.join(tmp, "zstd32")
    made = subprocess.run(["objcopy", "--compress-debug-sections=zstd", path, copy],
                          capture_output=True)
    if made.returncode != 0:
        shutil.rmtree(tmp)
        print("skip: objcopy cannot compress with zstd")
        sys.exit(77)
    got = subprocess.run([symprof, "--addr2line", "--no-cache", "-e", copy], input=queries,
                         capture_output=True, text=True)
    lines = got.stderr.splitlines()
    shutil.rmtree(tmp)
    want = "symprof: warning: '%s': section .debug_" % copy
    if got.returncode != 0 or len(lines) != 1 or not lines[0].startswith(want) \
            or "zstd-compressed" not in lines[0]:
        print("FAIL: %s: wanted exit 0 and one zstd warning, got %d and %r"
              % (copy, got.returncode, lines))
        sys.exit(1)
    print("the zstd copy of %s: one warning" % path)
    sys.exit(0)
tmp = tempfile.mkdtemp()
fails = check(path, None) + cached_twice(path)
cases = 0
try:
    for section in (".debug_line", ".debug_info", ".debug_abbrev"):
        for how in ("short", "long", "type", "big", "huge", "name"):
            copy = os.path.join(tmp, "%s-%s" % (section[1:], how))
            with open(copy, "wb") as f:
                f.write(damage(data, section, how))
            fails += check(copy, "?" + section if how == "name" else section,
                           os.path.join(tmp, section[1:] + "-long")
                           if how in ("type", "huge", "name") else None)
            cases += 1
finally:
    shutil.rmtree(tmp)
print("%d damaged copies of %s checked, %d failed" % (cases, path, fails))
sys.exit(1 if fails else 0)
