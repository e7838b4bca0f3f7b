#!/usr/bin/env python3
"""Cell graph of an OpenFOAM polyMesh -> METIS graph file; then writes
constant/cellDecomposition from gpmetis's partition.
usage: foam_metis.py graph CASE OUT.graph | foam_metis.py decomp CASE PART_FILE"""
import sys, re
def labels(path):
    txt = open(path).read()
    body = txt[txt.index('FoamFile'):]
    body = body[body.index('}')+1:]
    m = re.search(r'(\d+)\s*\(', body)
    n = int(m.group(1)); vals = body[m.end():].split(')')[0].split()
    assert len(vals) == n, (path, n, len(vals))
    return [int(v) for v in vals]
mode, case = sys.argv[1], sys.argv[2]
pm = case + '/constant/polyMesh/'
if mode == 'graph':
    own = labels(pm+'owner'); nei = labels(pm+'neighbour')
    ncell = max(own) + 1
    adj = [[] for _ in range(ncell)]
    for f, b in enumerate(nei):
        a = own[f]; adj[a].append(b+1); adj[b].append(a+1)
    with open(sys.argv[3], 'w') as o:
        o.write(f"{ncell} {len(nei)}\n")
        for l in adj: o.write(' '.join(map(str, l)) + '\n')
else:
    part = [int(l) for l in open(sys.argv[3]) if l.strip()]
    hdr = ('FoamFile\n{\n    version 2.0;\n    format ascii;\n    class labelList;\n'
           '    location "constant";\n    object cellDecomposition;\n}\n')
    with open(case + '/constant/cellDecomposition', 'w') as o:
        o.write(hdr + f"{len(part)}\n(\n" + '\n'.join(map(str, part)) + '\n)\n')
