#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A gzip bomb given as a pprof profile: 300 MiB of zeros gzipped (about
300 KB), made here. symprof must stop at SP_PPROF_MAX_SIZE (256 MiB) with
one line naming the file and the compressed offset, exit 1, and stay in
bounded memory (peak resident size checked below 1 GiB).

  pprof-bomb.py SYMPROF EXECUTABLE

(The executable comes first: the bomb's first bytes are no profile's, so
alone it would be taken for the executable, as gprof takes a first file.)
"""
import gzip
import os
import resource
import subprocess
import sys
import tempfile

symprof, exe = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="symprof-bomb-")
path = os.path.join(tmp, "bomb.pb.gz")
chunk = bytes(1 << 20)
with gzip.open(path, "wb", compresslevel=9) as f:
    for _ in range(300):
        f.write(chunk)
p = subprocess.run([symprof, "--input-format=pprof", "-b", exe, path], capture_output=True)
rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
err = p.stderr.decode()
os.remove(path)
os.rmdir(tmp)
ok = True
for good, what in ((p.returncode == 1, f"exit status 1 (got {p.returncode})"),
                   (err.count("\n") == 1, "one line on stderr"),
                   ("decompresses to more than 256 MiB" in err and "bomb.pb.gz" in err
                    and "compressed offset" in err, "it names the file, the limit and the offset"),
                   (not p.stdout, "nothing on stdout"),
                   (rss_mib < 1024, f"peak memory {rss_mib:.0f} MiB, under 1 GiB")):
    print(("ok: " if good else "FAIL: ") + what)
    ok &= good
print(err.strip())
sys.exit(0 if ok else 1)
