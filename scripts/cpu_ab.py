#!/usr/bin/env python3
"""CPU time of two builds on the same command, runs interleaved.

Usage: N=21 scripts/cpu_ab.py BIN_A BIN_B ARGS...
Runs `BIN_A ARGS` and `BIN_B ARGS` alternately N times (default 15) and
prints, for each, the median user, system and user + system CPU seconds of
the child and its median minor page faults. Alternating the two makes the
comparison fair on a machine whose load changes during the measurement.
"""
import os
import resource
import statistics
import subprocess
import sys

bins, args = sys.argv[1:3], sys.argv[3:]
res = {b: [] for b in bins}
for _ in range(int(os.environ.get("N", "15"))):
    for b in bins:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([b] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res[b].append((r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime, r1.ru_minflt - r0.ru_minflt))
for b in bins:
    u, s, f = zip(*res[b])
    med = statistics.median
    print(f"{b}\tuser {med(u):.4f}\tsys {med(s):.4f}\tcpu {med([a + c for a, c in zip(u, s)]):.4f}\tminflt {med(f):.0f}")
