#!/usr/bin/env python3
"""Print scripts/vs_scotch.sh cases mapping every capture onto machine shapes
beyond the usual three (docs/mapping-quality.md, "Other machine shapes").

Usage: scripts/other_shapes.py [SHUFFLE]   (default 2)

For each tests/data/captures/*.mtx of n ranks: a 3D torus with 2 cores per
node (n even) and with 8 (n a multiple of 8), a 3D mesh with one core per
node, and a 2D torus with one core per node; each the most cubic (square)
shape of exactly the slots needed. Every case is shuffled with SHUFFLE.
"""
import glob
import sys


def most_even(m, parts):
    """The factorisation of m into `parts` sorted factors, least spread."""
    best = None

    def rec(rest, k, lo, acc):
        nonlocal best
        if k == 1:
            if rest >= lo:
                f = acc + [rest]
                if best is None or f[-1] - f[0] < best[-1] - best[0]:
                    best = f
            return
        for a in range(lo, rest + 1):
            if rest % a == 0:
                rec(rest // a, k - 1, a, acc + [a])

    rec(m, parts, 1, [])
    return best


def main():
    shuffle = sys.argv[1] if len(sys.argv) > 1 else "2"
    out = []
    for f in sorted(glob.glob("tests/data/captures/*.mtx")):
        with open(f) as h:
            n = int(next(l for l in h if not l.startswith("%")).split()[0])
        shapes = []
        if n % 2 == 0:
            shapes.append("torus:%s@cores=2" % "x".join(map(str, most_even(n // 2, 3))))
        if n % 8 == 0:
            shapes.append("torus:%s@cores=8" % "x".join(map(str, most_even(n // 8, 3))))
        shapes.append("mesh:%s" % "x".join(map(str, most_even(n, 3))))
        shapes.append("torus:%s" % "x".join(map(str, most_even(n, 2))))
        out += ["file=%s@%s@shuffle=%s" % (f, t, shuffle) for t in shapes]
    print(" ".join(out))


if __name__ == "__main__":
    main()
