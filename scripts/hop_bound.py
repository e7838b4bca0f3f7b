#!/usr/bin/env python3
"""Lower bound of hop-bytes on a mesh/torus with CORES per node, as hops/byte.

Usage: hop_bound.py GRAPH.metis CORES

The bound of crates/hopmap-core/src/hop_bound.rs (`lower_bound`), for a
mesh or torus: a process has at most CORES − 1 partners on its own node
(0 hops), every other partner is at least one hop away, so

    hop-bytes >= 1/2 * sum_u (sum_v c_uv - top_{CORES-1}(u))

with c_uv the pair volume and top_k(u) the sum of u's k largest volumes.
Prints the bound divided by the graph's bytes (1.000 with one core per
node: every byte at least one hop). Reads the METIS file that
scripts/vs_scotch.sh maps (scripts/mtx_to_metis.py), so the volumes are the
same integers.
"""
import sys


def main():
    path, cores = sys.argv[1], int(sys.argv[2])
    lines = [l for l in open(path) if not l.startswith("%")]
    n = int(lines[0].split()[0])
    total = 0.0
    bound = 0.0
    for u in range(n):
        t = lines[1 + u].split() if 1 + u < len(lines) else []
        vols = sorted((int(w) for w in t[1::2]), reverse=True)
        total += sum(vols)
        bound += sum(vols) - sum(vols[: cores - 1])
    print(f"{bound / total:.3f}")


if __name__ == "__main__":
    main()
