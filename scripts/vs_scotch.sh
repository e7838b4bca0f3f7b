#!/usr/bin/env bash
# Compare hopmap's no-coordinate mappers with Scotch's gmap.
#
# Usage: scripts/vs_scotch.sh [HOPMAP] [MAPPERS] [CASES...]
#   HOPMAP   path of the hopmap binary (default target/release/hopmap)
#   MAPPERS  comma-separated hopmap mapper ids (default recursive,recursive+refine,pairs),
#            each optionally with parameters: ID/KEY=VALUE/… (recursive+refine/group=first)
#   CASES    P:DIM:TOPOLOGY[:SEED] (a METIS-made mesh, `hopmap generate
#            unstructured:P:DIM`; default: the issue's table below), or
#            SOURCE@KIND:DIMS[@cores=C][@shuffle=S] for any graph, with
#              SOURCE = file=PATH (a MatrixMarket capture, e.g. tests/data/*.mtx)
#                     | gen=SPEC[+periodic][+full] (`hopmap generate SPEC`,
#                       e.g. gen=halo:8x8x8:1,0.5,0.25:0.02+periodic);
#              shuffle=S relabels the ranks by a permutation seeded with S
#              (the same relabelled graph goes to gmap and to hopmap).
#
# Needs scotch_gmap (Debian package `scotch`) and python3; hopmap itself never
# needs Scotch. For each case a METIS graph is written (`hopmap generate`, or
# scripts/mtx_to_metis.py: pair volumes as integers, scaled so the heaviest
# is 10^6 when they are fractional or larger) and converted to Scotch's .grf
# (same integer weights); gmap maps it with `-b0 -Cd` (strict balance,
# deterministic) onto the torus3D/mesh2D/… target (cores per node: the node
# graph is the target and -b0 puts P/nodes processes on each); both mappings
# are evaluated by `hopmap eval --json` on the same METIS file
# (dimension-order routing). Times are of the whole command (reading the
# graph included), the best of REPS runs (default 3; STAT=median: their
# median): wall-clock seconds and CPU seconds (user + system). On a shared machine the CPU time is the fair
# one; time_vs_gmap is the CPU ratio. hb_per_byte is hop-bytes over the
# graph's bytes: 1 when every byte travels one hop (the perfect embedding of
# a halo on a torus it matches, one core per node).
# Prints one TSV row per case and mapper. With BOUND=1 each case gets one more
# row, `bound`: the larger of the position-aware and the node-group lower
# bounds of hop-bytes on the same METIS file (`hopmap eval --bound`,
# crates/hopmap-core/src/hop_bound/), which no mapping can go below; its
# hb_vs_gmap above 0.90 proves that no mapper can reach 0.90 x gmap's
# hop-bytes on that case.
set -euo pipefail
HOPMAP=${1:-target/release/hopmap}
MAPPERS=${2:-recursive,recursive+refine,pairs}
shift 2 || true
CASES=("$@")
if [ ${#CASES[@]} -eq 0 ]; then
  CASES=(
    512:3d:torus:8x8x8
    1024:3d:torus:8x8x16
    4096:3d:torus:16x16x16
    16384:3d:torus:16x32x32
    1024:2d:mesh:32x32
    4096:2d:mesh:64x64
    512:2d:torus:8x8x8
    4096:2d:torus:16x16x16
    4096:3d:torus:8x8x16:cores=4
    2048:3d:torus:8x8x8:cores=4
    1024:2d:torus:4x8x8:cores=4
  )
fi
command -v scotch_gmap >/dev/null || { echo "scotch_gmap not found (apt-get install scotch)" >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
REPS=${REPS:-3}
STAT=${STAT:-best}
# timed CMD… : runs CMD REPS times, prints "wall cpu" in seconds, each the
# best (STAT=best) or the median (STAT=median) of the runs
# (CPU = user + system of the child, microsecond resolution).
timed() {
  python3 - "$REPS" "$STAT" "$@" <<'PY'
import resource, statistics, subprocess, sys, time
reps, stat, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
ws, cs = [], []
for _ in range(reps):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    t1 = time.perf_counter(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    ws.append(t1 - t0)
    cs.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
pick = statistics.median_low if stat == "median" else min
print(f"{pick(ws):.3f} {pick(cs):.3f}")
PY
}
printf "case\tmapper\thop_bytes\tmax_link_load\twall_s\tcpu_s\thb_vs_gmap\tload_vs_gmap\ttime_vs_gmap\thb_per_byte\n"
HERE=$(cd "$(dirname "$0")" && pwd)
for c in "${CASES[@]}"; do
  g="$W/g.graph"
  if [[ "$c" == *@* ]]; then
    IFS=@ read -r -a PARTS <<<"$c"
    SRC=${PARTS[0]}
    IFS=: read -r KIND DIMS <<<"${PARTS[1]}"
    TOPO="$KIND:$DIMS"
    SHUF=none
    for extra in "${PARTS[@]:2}"; do
      case "$extra" in
        cores=*) TOPO="$TOPO:$extra";;
        shuffle=*) SHUF=${extra#shuffle=};;
        *) echo "unknown case option $extra in $c" >&2; exit 1;;
      esac
    done
    case "$SRC" in
      file=*) cp "${SRC#file=}" "$W/src.mtx";;
      gen=*)
        spec=${SRC#gen=}; gopts=()
        while [[ "$spec" == *+* ]]; do
          flag=${spec##*+}; spec=${spec%+*}
          case "$flag" in
            periodic) gopts+=(--periodic);;
            full) gopts+=(--neighbors full);;
            *) echo "unknown generator flag $flag in $c" >&2; exit 1;;
          esac
        done
        "$HOPMAP" generate "$spec" "${gopts[@]}" -o "$W/src.mtx" >/dev/null;;
      *) echo "unknown source $SRC in $c" >&2; exit 1;;
    esac
    python3 "$HERE/mtx_to_metis.py" "$W/src.mtx" "$g" "$SHUF"
  else
    IFS=: read -r P DIM KIND DIMS REST <<<"$c"
    SEED=1
    TOPO="$KIND:$DIMS"
    case "$REST" in cores=*) TOPO="$TOPO:$REST";; "") ;; *) SEED=$REST;; esac
    "$HOPMAP" generate "unstructured:$P:$DIM" --seed "$SEED" -o "$g" >/dev/null 2>&1
  fi
  python3 - "$g" "$W/g.grf" <<'EOF'
import sys
src, dst = sys.argv[1], sys.argv[2]
rows = []
with open(src) as f:
    lines = [l for l in f if not l.startswith('%')]
n, m = map(int, lines[0].split()[:2])
for i in range(n):
    t = lines[1 + i].split() if 1 + i < len(lines) else []
    rows.append([(int(t[k]) - 1, int(t[k + 1])) for k in range(0, len(t), 2)])
arcs = sum(len(r) for r in rows)
with open(dst, 'w') as f:
    f.write(f"0\n{n} {arcs}\n0 010\n")
    for r in rows:
        f.write(str(len(r)) + ''.join(f" {w} {v}" for v, w in r) + "\n")
EOF
  TOTAL=$(python3 - "$g" <<'EOF'
import sys
lines = [l for l in open(sys.argv[1]) if not l.startswith('%')]
print(sum(int(t) for l in lines[1:] for t in l.split()[1::2]) / 2)
EOF
)
  IFS=x read -r -a D <<<"$DIMS"
  case "$KIND:${#D[@]}" in
    torus:2) TGT="torus2D ${D[*]}";;
    torus:3) TGT="torus3D ${D[*]}";;
    mesh:2) TGT="mesh2D ${D[*]}";;
    mesh:3) TGT="mesh3D ${D[*]}";;
    *) echo "unsupported target $KIND $DIMS" >&2; exit 1;;
  esac
  echo "$TGT" >"$W/t.tgt"
  read -r gsec gcpu < <(timed scotch_gmap "$W/g.grf" "$W/t.tgt" "$W/s.out" -b0 -Cd)
  # gmap output: count, then "vertex<TAB>terminal"; terminals are X-fastest node ids.
  python3 - "$W/s.out" "$W/s.map" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split('\n')
n = int(lines[0])
node = [0] * n
for l in lines[1:1 + n]:
    v, t = l.split()
    node[int(v)] = int(t)
open(sys.argv[2], 'w').write(''.join(f"{t}\n" for t in node))
EOF
  read -r ghb gml < <("$HOPMAP" eval "$g" --topology "$TOPO" --mapping "$W/s.map" --json |
    python3 -c "import json,sys; m=json.load(sys.stdin); m=m.get('metrics',m); print(m['hop_bytes'], m['max_link_load'])")
  printf "%s\t%s\t%.0f\t%.0f\t%s\t%s\t1\t1\t1\t%s\n" "$c" "scotch-gmap" "$ghb" "$gml" "$gsec" "$gcpu" \
    "$(python3 -c "print('%.3f' % ($ghb / $TOTAL))")"
  if [ "${BOUND:-0}" = 1 ]; then
    pb=$("$HOPMAP" eval "$g" --topology "$TOPO" --mapping "$W/s.map" --bound |
      python3 -c "import re,sys; t=sys.stdin.read(); print(max(float(x) for x in re.findall(r'(?:position-aware|node groups): ([0-9.e+]+) ', t)))")
    python3 -c "print('\t'.join(['$c','bound','%.0f'%$pb,'','','','%.3f'%($pb/$ghb),'','','%.3f'%($pb/$TOTAL)]))"
  fi
  IFS=, read -r -a MS <<<"$MAPPERS"
  for m in "${MS[@]}"; do
    # ID/KEY=VALUE/…: the mapper's parameters after its id.
    IFS=/ read -r -a MP <<<"$m"
    PARGS=()
    for kv in "${MP[@]:1}"; do PARGS+=(--param "$kv"); done
    read -r sec cpu < <(timed "$HOPMAP" map "$g" --topology "$TOPO" --mapper "${MP[0]}" "${PARGS[@]}" -o "$W/h.map" --format plain)
    read -r hb ml < <("$HOPMAP" eval "$g" --topology "$TOPO" --mapping "$W/h.map" --json |
      python3 -c "import json,sys; m=json.load(sys.stdin); m=m.get('metrics',m); print(m['hop_bytes'], m['max_link_load'])")
    python3 -c "print('\t'.join(['$c','$m','%.0f'%$hb,'%.0f'%$ml,'$sec','$cpu','%.3f'%($hb/$ghb),'%.3f'%($ml/$gml),'%.2f'%($cpu/max($gcpu,1e-3)),'%.3f'%($hb/$TOTAL)]))"
  done
done
