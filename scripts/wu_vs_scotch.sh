#!/usr/bin/env bash
# Analytical (Wu et al.) against Scotch's gmap and MHT on 3D unstructured
# graphs (no coordinates) on 3D tori with 1 and 4 cores per node: the quality
# targets (analytical <= 1.05 x Scotch, analytical+pairs <= 0.92 x
# Scotch, max link load of analytical <= MHT's).
#
# Usage: scripts/wu_vs_scotch.sh [SIZES...]   (default: 512 2048 8192 16384)
# Env: HOPMAP (default target/release/hopmap), SEED (default 1), WORK (tmp dir).
set -euo pipefail
HOPMAP=${HOPMAP:-${CARGO_TARGET_DIR:-target}/release/hopmap}
SEED=${SEED:-1}
WORK=${WORK:-$(mktemp -d)}
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(512 2048 8192 16384)
command -v scotch_gmap >/dev/null || echo "note: scotch_gmap not on PATH, Scotch columns empty" >&2

# 3D torus shape (Blue Gene/P style) for a node count.
shape() {
  case $1 in
    128) echo 4x4x8 ;; 512) echo 8x8x8 ;; 1024) echo 8x8x16 ;; 2048) echo 8x8x32 ;;
    4096) echo 8x16x32 ;; 8192) echo 16x16x32 ;; 16384) echo 16x32x32 ;;
    *) echo "no shape for $1 nodes" >&2; exit 1 ;;
  esac
}

printf '%-6s %-22s %11s %11s %11s %11s %7s %7s %7s %10s %10s %8s %8s\n' \
  P topology analytical +pairs scotch mht a/S a+p/S mht/S mll_a mll_mht t_a t_S
for P in "${SIZES[@]}"; do
  g=$WORK/u$P.mtx
  [ -f "$g" ] || "$HOPMAP" generate "unstructured:$P:3d" --seed "$SEED" -o "$g" >/dev/null 2>&1
  for C in 1 4; do
    T="torus:$(shape $((P / C))):cores=$C"
    out=$("$HOPMAP" compare "$g" -t "$T" --mappers analytical,analytical+pairs,scotch,mht 2>/dev/null)
    # columns: mapper hop_bytes hops/B max_dil max_load max_flows seconds
    get() { echo "$out" | awk -v m="$1" -v c="$2" '{o=($1=="*")?1:0; if ($(1+o)==m) print $(c+o)}'; }
    a=$(get analytical 2); ap=$(get analytical+pairs 2); s=$(get scotch 2); h=$(get mht 2)
    la=$(get analytical 5); lh=$(get mht 5); ta=$(get analytical 7); ts=$(get scotch 7)
    r() { [ -n "$2" ] && awk -v x="$1" -v y="$2" 'BEGIN{printf "%.3f", x/y}' || echo -; }
    printf '%-6s %-22s %11s %11s %11s %11s %7s %7s %7s %10s %10s %8s %8s\n' \
      "$P" "$T" "$a" "$ap" "${s:--}" "$h" "$(r "$a" "$s")" "$(r "$ap" "$s")" "$(r "$h" "$s")" \
      "$la" "$lh" "$ta" "${ts:--}"
  done
done
