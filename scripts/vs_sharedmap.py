#!/usr/bin/env python3
"""Compare hopmap's mappers with SharedMap (Schulz & Woydt's hierarchical
process mapping, the Python package `chszlablib`) on a fat tree with
multicore nodes.

Usage: vs_sharedmap.py HOPMAP MAPPERS CASE...
  HOPMAP   path of the hopmap binary
  MAPPERS  comma-separated hopmap mapper ids (ID/KEY=VALUE/… for parameters)
  CASE     SRC.mtx@K@CORES[@shuffle=S]: the capture mapped onto
           `fattree:K:3:cores=CORES` (2·(K/2)^3 hosts)

The fat tree is given to SharedMap as its hierarchy, innermost first:
[CORES, K/2 hosts per leaf switch, K/2 leaves per pod, K pods], with
distances [1, 2, 4, 6] (hops between hosts: 2 under one leaf, 4 in a pod,
6 across pods; the cores of a node at 1 because SharedMap takes positive
distances), imbalance 0 (every PE gets one process), mode `strong`, one
thread. The graph is the capture's METIS file (scripts/mtx_to_metis.py:
pair volumes, integers). Both mappings are evaluated by `hopmap eval
--json` on the same METIS file (hop-bytes; max link load under the fat
tree's default routing). Times are CPU seconds (user + system) of one run:
SharedMap's inside this process (graph building included), hopmap's of the
whole `hopmap map` command (reading the graph included). Prints one TSV
row per case and mapper.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def read_metis(path):
    lines = [l for l in open(path) if not l.startswith("%")]
    n = int(lines[0].split()[0])
    edges = []
    for u in range(n):
        t = lines[1 + u].split() if 1 + u < len(lines) else []
        for k in range(0, len(t), 2):
            v = int(t[k]) - 1
            if u < v:
                edges.append((u, v, int(t[k + 1])))
    return n, edges


def evaluate(hopmap, graph, topo, mapping):
    out = subprocess.run(
        [hopmap, "eval", graph, "--topology", topo, "--mapping", mapping, "--json"],
        check=True, capture_output=True, text=True).stdout
    m = json.loads(out)
    m = m.get("metrics", m)
    return m["hop_bytes"], m["max_link_load"]


def main():
    from chszlablib import Decomposition, Graph

    hopmap, mappers, cases = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    print("case\tmapper\thop_bytes\tmax_link_load\tcpu_s\thb_vs_sharedmap\tload_vs_sharedmap")
    with tempfile.TemporaryDirectory() as w:
        for case in cases:
            parts = case.split("@")
            src, k, cores = parts[0], int(parts[1]), int(parts[2])
            shuf = "none"
            for extra in parts[3:]:
                if extra.startswith("shuffle="):
                    shuf = extra[len("shuffle="):]
            graph = os.path.join(w, "g.graph")
            subprocess.run([sys.executable, os.path.join(here, "mtx_to_metis.py"), src, graph, shuf],
                           check=True)
            topo = f"fattree:{k}:3:cores={cores}"
            m = k // 2
            hierarchy = [cores, m, m, k]
            n, edges = read_metis(graph)
            c0 = cpu_self()
            g = Graph.from_edge_list(edges, num_nodes=n)
            r = Decomposition.process_map(g, hierarchy=hierarchy, distance=[1, 2, 4, 6],
                                          mode="strong", imbalance=0.0, threads=1, seed=0)
            scpu = cpu_self() - c0
            smap = os.path.join(w, "s.map")
            with open(smap, "w") as f:
                f.write("".join(f"{int(pe) // cores}\n" for pe in r.assignment))
            shb, sml = evaluate(hopmap, graph, topo, smap)
            label = case
            print(f"{label}\tsharedmap-strong\t{shb:.0f}\t{sml:.0f}\t{scpu:.3f}\t1\t1")
            for mp in mappers:
                ids = mp.split("/")
                args = [hopmap, "map", graph, "--topology", topo, "--mapper", ids[0]]
                for kv in ids[1:]:
                    args += ["--param", kv]
                hmap = os.path.join(w, "h.map")
                args += ["-o", hmap, "--format", "plain"]
                c0 = cpu_children()
                run = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                hcpu = cpu_children() - c0
                if run.returncode != 0:
                    why = run.stderr.strip().splitlines()[-1:] or ["failed"]
                    print(f"{label}\t{mp}\trefused: {why[0]}")
                    continue
                hb, ml = evaluate(hopmap, graph, topo, hmap)
                print(f"{label}\t{mp}\t{hb:.0f}\t{ml:.0f}\t{hcpu:.3f}\t{hb / shb:.3f}\t{ml / max(sml, 1e-9):.3f}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
