#!/usr/bin/env python3
"""MatrixMarket communication matrix -> METIS graph of pair volumes.

Usage: mtx_to_metis.py SRC.mtx DST.graph [SHUFFLE_SEED|none]

Each pair {u, v} gets the volume a(u,v) + a(v,u) (a symmetric file lists
each pair once: that entry is the volume). Volumes are written as integers
(METIS and Scotch take integer loads): when any volume is fractional or the
heaviest exceeds 10^6, all are scaled so the heaviest is 10^6, and every
pair keeps at least 1. With a seed, the ranks are relabelled by a seeded
random permutation (Python's random.Random(seed).shuffle).
"""
import random
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    shuf = sys.argv[3] if len(sys.argv) > 3 else "none"
    vol = {}
    n = None
    sym = False
    with open(src) as f:
        for line in f:
            if line.startswith("%%"):
                sym = "symmetric" in line.lower()
                continue
            if line.startswith("%") or not line.strip():
                continue
            t = line.split()
            if n is None:
                n = max(int(t[0]), int(t[1]))
                continue
            u, v = int(t[0]) - 1, int(t[1]) - 1
            w = float(t[2]) if len(t) > 2 else 1.0
            if u == v or w <= 0:
                continue
            k = (min(u, v), max(u, v))
            vol[k] = vol.get(k, 0.0) + w
    del sym  # a symmetric file lists each pair once: the sum above is right
    perm = list(range(n))
    if shuf != "none":
        random.Random(int(shuf)).shuffle(perm)
    top = max(vol.values()) if vol else 1.0
    fractional = any(abs(w - round(w)) > 1e-9 for w in vol.values())
    scale = 1e6 / top if (top > 1e6 or fractional) else 1.0
    rows = [dict() for _ in range(n)]
    for (u, v), w in vol.items():
        w = max(1, round(w * scale))
        a, b = perm[u], perm[v]
        rows[a][b] = w
        rows[b][a] = w
    m = sum(len(r) for r in rows) // 2
    with open(dst, "w") as f:
        f.write(f"{n} {m} 001\n")
        for r in rows:
            f.write(" ".join(f"{v + 1} {w}" for v, w in sorted(r.items())) + "\n")


if __name__ == "__main__":
    main()
