#!/usr/bin/env bash
# Hop-bytes of a hopmap build against a reference build over the 72 mappings
# of docs/mapping-quality.md ("Speed from 1,024 processes"): the METIS-made
# meshes of 1,024 parts 3D and 2D on torus:8x8x16 and of 512 parts 2D on
# torus:8x8x8 (`hopmap generate unstructured:P:DIM --seed S`, S = 1…3), each
# mapped with `--seed 0…7`; each mapping's hop-bytes (`hopmap eval --json`,
# dimension-order routing) over the reference's on the same mesh and seed.
#
# Usage: scripts/quality72.sh REF_BIN NEW_BIN [MAPPER] [CASES...]
#   MAPPER  mapper id (default recursive+refine), ID/KEY=VALUE/… for --param
#   CASES   P:DIM:KIND:DIMS (default the three above)
# Prints one row per mapping (mesh, seed, hop-bytes ref and new, ratio,
# whether the two mapping files are identical), then each mesh's mean
# ratio, the mean over all and the worst mapping. REF rows are cached in
# $QCACHE (default /tmp/quality72-cache) by the reference binary's checksum.
set -euo pipefail
REF=$1
NEW=$2
MAPPER=${3:-recursive+refine}
shift 3 || shift $#
CASES=("$@")
[ ${#CASES[@]} -eq 0 ] && CASES=(1024:3d:torus:8x8x16 1024:2d:torus:8x8x16 512:2d:torus:8x8x8)
IFS=/ read -r -a MP <<<"$MAPPER"
MID=${MP[0]}
PARAMS=()
for kv in "${MP[@]:1}"; do PARAMS+=(--param "$kv"); done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
QCACHE=${QCACHE:-/tmp/quality72-cache}
mkdir -p "$QCACHE"
KEY=$(cat "$REF" | md5sum | cut -c1-12)-$(echo "$MAPPER" | md5sum | cut -c1-8)
hb() { "$1" eval "$2" --topology "$3" --mapping "$4" --json |
  python3 -c "import json,sys; m=json.load(sys.stdin); m=m.get('metrics',m); print(m['hop_bytes'])"; }
printf "mesh\tseed\thb_ref\thb_new\tratio\tidentical\n"
for c in "${CASES[@]}"; do
  IFS=: read -r P D K T <<<"$c"
  for s in 1 2 3; do
    g="$W/g_${P}_${D}_$s.graph"
    "$NEW" generate "unstructured:$P:$D" --seed "$s" -o "$g" >/dev/null 2>&1
    for k in 0 1 2 3 4 5 6 7; do
      cf="$QCACHE/$KEY-$P-$D-$K-$T-$s-$k.map"
      if [ ! -s "$cf" ]; then
        "$REF" map "$g" -t "$K:$T" -m "$MID" "${PARAMS[@]}" --seed "$k" -o "$cf.tmp" >/dev/null 2>&1
        mv "$cf.tmp" "$cf"
      fi
      "$NEW" map "$g" -t "$K:$T" -m "$MID" "${PARAMS[@]}" --seed "$k" -o "$W/n.map" >/dev/null 2>&1
      a=$(hb "$NEW" "$g" "$K:$T" "$cf")
      b=$(hb "$NEW" "$g" "$K:$T" "$W/n.map")
      same=no
      cmp -s "$cf" "$W/n.map" && same=yes
      printf "%s\t%s\t%s\t%s\t%s\t%s\n" "$P:$D:$K:$T/$s" "$k" "$a" "$b" \
        "$(python3 -c "print(f'{$b/$a:.5f}')")" "$same"
    done
  done
done | tee "$W/rows"
python3 - "$W/rows" <<'EOF'
import sys, statistics as st
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
by = {}
for mesh, seed, a, b, r, same in rows:
    by.setdefault(mesh, []).append((float(r), same == 'yes'))
allr = [r for v in by.values() for r, _ in v]
for mesh, v in by.items():
    print(f"# {mesh}: mean {st.mean(r for r, _ in v):.4f}, identical {sum(s for _, s in v)}/{len(v)}")
print(f"# all {len(allr)}: mean {st.mean(allr):.4f}, worst mesh mean "
      f"{max(st.mean(r for r, _ in v) for v in by.values()):.4f}, mappings {min(allr):.3f}-{max(allr):.3f}, "
      f"identical {sum(s for v in by.values() for _, s in v)}/{len(allr)}")
EOF
