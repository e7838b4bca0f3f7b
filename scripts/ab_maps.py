#!/usr/bin/env python3
"""Compare two hopmap builds' `recursive+refine` mappings, case by case.

Usage: ab_maps.py OLD NEW CASE...
  OLD, NEW  two hopmap binaries
  CASE      SRC.mtx@TOPOLOGY[@shuffle=S]: the capture converted to METIS as
            scripts/vs_sharedmap.py does (scripts/mtx_to_metis.py), mapped
            onto TOPOLOGY by both builds

Prints one TSV row per case: hop-bytes and max link load of both mappings
(`hopmap eval --json` of NEW on the same METIS file), on
`fattree:K:3:cores=4` their ratios to the SharedMap-strong rows stored in
docs/mapping-quality-sharedmap-blocks.tsv (SharedMap is not rerun), the
CPU seconds of each `hopmap map` run, and whether the two mapping files
are byte-identical.
"""
import sys, os, subprocess, json, resource, tempfile, csv
here=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sm={}
for f in ['docs/mapping-quality-sharedmap-blocks.tsv']:
    for r in csv.DictReader(open(os.path.join(here,f)), delimiter='\t'):
        sm[r['case']]=(float(r['sharedmap_hop_bytes']), float(r['sharedmap_max_load']))
def cpu():
    r=resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime+r.ru_stime
def ev(b,g,t,m):
    o=json.loads(subprocess.run([b,'eval',g,'--topology',t,'--mapping',m,'--json'],check=True,capture_output=True,text=True).stdout)
    o=o.get('metrics',o); return o['hop_bytes'],o['max_link_load']
old,new=sys.argv[1],sys.argv[2]
print("case\told_hb\tnew_hb\tnew/old\told_load\tnew_load\tsm_hb_ratio_old\tsm_hb_ratio_new\tsm_load_ratio_new\told_cpu\tnew_cpu\tsame")
with tempfile.TemporaryDirectory() as w:
  for case in sys.argv[3:]:
    parts=case.split('@'); src,topo=parts[0],parts[1]; shuf='none'
    for e in parts[2:]:
        if e.startswith('shuffle='): shuf=e[8:]
    g=os.path.join(w,'g.graph')
    subprocess.run([sys.executable,os.path.join(here,'scripts/mtx_to_metis.py'),src,g,shuf],check=True)
    res=[]
    for b in (old,new):
        m=os.path.join(w,'m'+str(len(res)))
        c0=cpu()
        run=subprocess.run([b,'map',g,'--topology',topo,'--mapper','recursive+refine','-o',m,'--format','plain'],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
        c=cpu()-c0
        if run.returncode!=0:
            break
        hb,ml=ev(b,g,topo,m)
        res.append((hb,ml,c,open(m).read()))
    if len(res)<2:
        print(f"{case.split('/')[-1]}\trefused")
        continue
    key=os.path.basename(src)
    if topo.startswith('fattree:'):
        k=topo.split(':')[1]; cores=topo.split('cores=')[1] if 'cores=' in topo else '1'
        key+=f'@{k}@{cores}'+(f'@shuffle={shuf}' if shuf!='none' else '')
    s=sm.get(key) if topo.endswith(':3:cores=4') else None
    r=lambda x,y: f'{x/y:.4f}' if y else '-'
    print(f"{case.split('/')[-1]}\t{res[0][0]:.0f}\t{res[1][0]:.0f}\t{r(res[1][0],res[0][0])}\t{res[0][1]:.0f}\t{res[1][1]:.0f}\t"
          f"{r(res[0][0],s[0]) if s else '-'}\t{r(res[1][0],s[0]) if s else '-'}\t{r(res[1][1],s[1]) if s else '-'}\t{res[0][2]:.3f}\t{res[1][2]:.3f}\t{res[0][3]==res[1][3]}")
    sys.stdout.flush()
