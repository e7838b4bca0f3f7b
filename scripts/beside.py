#!/usr/bin/env python3
"""Add a master and idle ranks to a MatrixMarket communication graph.

Usage: scripts/beside.py IN.mtx OUT.mtx [--master SHARE] [--idle K]

The output has the input's ranks first (same numbers), then, with
`--master SHARE`, one master rank that exchanges SHARE of the input's total
bytes with every rank (a gather to it, and a quarter of that back), then
K ranks that exchange nothing. Shuffle the result with scripts/vs_scotch.sh's
`@shuffle=S` (scripts/mtx_to_metis.py) to hide where they are. Integer bytes.
"""
import argparse

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("dst")
ap.add_argument("--master", type=float, default=0.0)
ap.add_argument("--idle", type=int, default=0)
a = ap.parse_args()
lines = [l for l in open(a.src) if not l.startswith("%")]
n = int(lines[0].split()[0])
edges = [(int(t[0]), int(t[1]), float(t[2])) for t in (l.split() for l in lines[1:] if l.strip())]
total = sum(w for _, _, w in edges)
out = [(i, j, int(round(w))) for i, j, w in edges]
size = n
if a.master > 0:
    size += 1
    m = size
    per = max(1, int(round(a.master * total / n)))
    for k in range(1, n + 1):
        out.append((k, m, per))
        out.append((m, k, max(1, per // 4)))
size += a.idle
with open(a.dst, "w") as f:
    f.write("%%MatrixMarket matrix coordinate integer general\n")
    f.write(f"{size} {size} {len(out)}\n")
    f.writelines(f"{i} {j} {w}\n" for i, j, w in out)
