//! Orienting the boxes of a finished bipartition tree (beyond the seed
//! papers and beyond Scotch's gmap).
//!
//! Dual recursive bipartitioning decides which half of a box each half of
//! the processes goes to, but the mapping inside a box is only as good as
//! the bisections below it: a part can end up mirrored relative to the
//! partners it has outside its box. On a mesh or torus every reflection of a
//! box onto itself (x ↦ lo + hi − x along any subset of its axes) keeps the
//! distances inside the box, so only the edges leaving the box change.
//!
//! For every box of the tree, children before parents, this pass computes
//! for each of the 2^k − 1 reflections (k = axes of the box longer than one
//! node) the change of hop-bytes over the box's external edges,
//! `Σ_{p in box, v outside} c_pv · (d(R φp, φv) − d(φp, φv))`,
//! and applies the best one when it lowers hop-bytes. Children go first so
//! that a box's processes are still inside the box when it is examined (a
//! parent's reflection moves its children's boxes as a whole). All
//! processes of a node move together, so the mapping stays valid with any
//! number of cores per node. Hop-bytes never rise.
//!
//! Cost: every edge leaves O(log N) boxes of the tree, and a reflection's
//! change is the sum of its axes' changes (distances add up over the axes),
//! so O(m · log N · dims + boxes · 2^dims) for m edges and N nodes (each
//! axis's change of one coordinate pair tabulated, O(len · side) per
//! distinct extent `(axis, lo, len)` of the boxes, shared by the boxes of
//! that extent); on 512 processes on
//! torus 8x8x8 about 1 ms, lowering the construction's hop-bytes by 1–2%
//! on average (`scripts/vs_scotch.sh`).

use super::domain::Domain;
use super::drb::TreeNode;
use crate::graph::CommGraph;
use crate::topology::Topology;
use crate::topology::{GridCoord, MAX_DIMS};

/// Reflect boxes of `tree` (finished, every process inside its boxes) to
/// lower hop-bytes; `node_of` is updated in place. `vol[k]` is the volume of
/// the k-th adjacency entry of `graph`. Returns the number of boxes mirrored
/// and the hop-bytes change (≤ 0). Does nothing off meshes and tori.
pub fn orient(
    graph: &CommGraph,
    vol: &[f64],
    topo: &Topology,
    tree: &[TreeNode],
    node_of: &mut [u32],
) -> (usize, f64) {
    let Some(g) = topo.as_grid() else {
        return (0, 0.0);
    };
    let nd = g.ndims();
    let dims = g.dims();
    let n = graph.n();
    let off = graph.offsets();
    let mut coord: Vec<GridCoord> = node_of.iter().map(|&a| g.coord(a as usize)).collect();
    // Per-axis hop distance between two coordinates.
    let axis = |d: usize, x: u32, y: u32| -> f64 {
        let delta = x.abs_diff(y);
        if g.wraps(d) {
            delta.min(dims[d] - delta) as f64
        } else {
            delta as f64
        }
    };
    const NOT: u32 = u32::MAX;
    let mut mark = vec![NOT; n];
    let mut total = 0.0;
    let mut mirrored = 0;
    let mut delta: Vec<f64> = Vec::new();
    // The change tables by (axis, lo, len): boxes of one level share them
    // wherever their extents along an axis agree.
    let mut tables: std::collections::HashMap<(usize, u32, u32), Vec<f64>> =
        std::collections::HashMap::new();
    for (ti, t) in tree.iter().enumerate().rev() {
        let Domain::Box { lo, len } = &t.domain else {
            continue;
        };
        let mut axes_buf = [0usize; MAX_DIMS];
        let mut na = 0;
        for d in 0..nd {
            if len[d] >= 2 {
                axes_buf[na] = d;
                na += 1;
            }
        }
        let axes = &axes_buf[..na];
        if axes.is_empty() {
            continue;
        }
        let id = ti as u32;
        for &p in &t.processes {
            mark[p as usize] = id;
        }
        let masks = 1usize << axes.len();
        let flip = |d: usize, x: u32| lo[d] + len[d] - 1 - (x - lo[d]);
        // Per axis, the change of one coordinate pair's distance when the
        // box's coordinate is flipped, tabulated: `change[i][x · dims + y]`
        // for box coordinate lo + x and outside coordinate y
        // (len × dims entries per axis; a function of the axis, lo and len).
        for &d in axes {
            tables.entry((d, lo[d], len[d])).or_insert_with(|| {
                let mut t = Vec::with_capacity((len[d] * dims[d]) as usize);
                for x in lo[d]..lo[d] + len[d] {
                    t.extend((0..dims[d]).map(|y| axis(d, flip(d, x), y) - axis(d, x, y)));
                }
                t
            });
        }
        let mut change: [&[f64]; MAX_DIMS] = [&[]; MAX_DIMS];
        for (i, &d) in axes.iter().enumerate() {
            change[i] = &tables[&(d, lo[d], len[d])];
        }
        // Distances add up over the axes, so the change of a reflection is
        // the sum of its axes' changes: per axis, Σ c · (flipped − as is).
        let mut per_axis = [0.0f64; MAX_DIMS];
        for &p in &t.processes {
            let p = p as usize;
            let cp = coord[p];
            for (k, &v) in graph.neighbors(p).iter().enumerate() {
                if mark[v as usize] == id {
                    continue;
                }
                let c = vol[off[p] + k];
                let cv = coord[v as usize];
                for (i, &d) in axes.iter().enumerate() {
                    let x = (cp[d] - lo[d]) * dims[d] + cv[d];
                    per_axis[i] += c * change[i][x as usize];
                }
            }
        }
        // Each mask's sum over its axes in increasing order: the sum of
        // the mask without its highest axis, plus that axis's change (the
        // same additions in the same order as summing the axes one by one).
        delta.clear();
        delta.push(0.0);
        for mask in 1..masks {
            let hi = usize::BITS - 1 - mask.leading_zeros();
            let rest = mask ^ (1 << hi);
            let x = if rest == 0 {
                per_axis[hi as usize]
            } else {
                delta[rest] + per_axis[hi as usize]
            };
            delta.push(x);
        }
        // The best reflection, if it lowers hop-bytes beyond rounding.
        let eps = 1e-12 * delta.iter().map(|x| x.abs()).fold(1.0, f64::max);
        let mut best = (0usize, -eps);
        for (mask, &x) in delta.iter().enumerate().skip(1) {
            if x < best.1 {
                best = (mask, x);
            }
        }
        if best.0 == 0 {
            continue;
        }
        total += best.1;
        mirrored += 1;
        for &p in &t.processes {
            let p = p as usize;
            for (i, &d) in axes.iter().enumerate() {
                if best.0 >> i & 1 == 1 {
                    coord[p][d] = flip(d, coord[p][d]);
                }
            }
            node_of[p] = g.node(&coord[p][..nd]) as u32;
        }
    }
    (mirrored, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::mappers::recursive::drb::Drb;
    use crate::mapping::Mapping;
    use crate::metrics::hop_bytes;
    use crate::partition::{BisectParams, pair_volumes};
    use proptest::prelude::*;
    use std::sync::Arc;

    fn boxed(lo: [u32; 2], len: [u32; 2]) -> Domain {
        let mut l = [0; MAX_DIMS];
        let mut n = [1; MAX_DIMS];
        l[..2].copy_from_slice(&lo);
        n[..2].copy_from_slice(&len);
        Domain::Box { lo: l, len: n }
    }

    /// Path 0–1–2–3 on a 4×1 mesh, the heavy edge 1–2 in the middle.
    fn path4() -> (CommGraph, Topology) {
        let mut b = GraphBuilder::new(4, false);
        b.add(0, 1, 1.0);
        b.add(1, 2, 100.0);
        b.add(2, 3, 1.0);
        (b.build().unwrap(), Topology::parse("mesh:4x1").unwrap())
    }

    /// The two halves of [`path4`]'s mesh: {0, 1} on nodes 0–1, {2, 3} on 2–3.
    fn halves() -> Vec<TreeNode> {
        vec![
            TreeNode {
                level: 1,
                processes: vec![0, 1],
                domain: boxed([0, 0], [2, 1]),
            },
            TreeNode {
                level: 1,
                processes: vec![2, 3],
                domain: boxed([2, 0], [2, 1]),
            },
        ]
    }

    #[test]
    fn a_mirrored_half_is_flipped_back() {
        // The left half {0, 1} sits mirrored (1 on node 0, 0 on node 1), so
        // 1–2 spans 2 hops; reflecting the left box makes it 1 hop.
        let (g, topo) = path4();
        let mut tree = vec![TreeNode {
            level: 0,
            processes: vec![0, 1, 2, 3],
            domain: boxed([0, 0], [4, 1]),
        }];
        tree.extend(halves());
        let mut node_of = vec![1, 0, 2, 3];
        let (mirrored, gain) = orient(&g, &pair_volumes(&g), &topo, &tree, &mut node_of);
        assert_eq!(node_of, vec![0, 1, 2, 3]);
        // The pair volume of 1–2 is 100 (one direction): 2 hops → 1 hop.
        assert_eq!((mirrored, gain), (1, -100.0));
    }

    #[test]
    fn nothing_moves_when_no_reflection_helps() {
        let (g, topo) = path4();
        let tree = halves();
        let mut node_of = vec![0, 1, 2, 3];
        assert_eq!(
            orient(&g, &pair_volumes(&g), &topo, &tree, &mut node_of),
            (0, 0.0)
        );
        assert_eq!(node_of, vec![0, 1, 2, 3]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// On any finished tree: the mapping stays valid, hop-bytes never
        /// rise, and the returned change is the true change.
        #[test]
        fn orientation_keeps_the_mapping_valid_and_never_raises_hop_bytes(
            k in 0usize..4, fill in 0.3f64..=1.0, seed in 0u64..500
        ) {
            let topo = ["torus:4x4:cores=2", "mesh:3x5", "torus:3x2x4", "mesh:4x4x2"][k];
            let topo = Arc::new(Topology::parse(topo).unwrap());
            let n = ((topo.num_slots() as f64 * fill) as usize).max(2);
            let mut rng = crate::rng::Rng::new(seed);
            let mut b = GraphBuilder::new(n, false);
            for i in 0..n {
                for _ in 0..1 + rng.below(3) {
                    b.add(i, rng.below(n), 1.0 + rng.below(50) as f64);
                }
            }
            let g = Arc::new(b.build().unwrap());
            let vol = Arc::new(pair_volumes(&g));
            let mut d = Drb::new(g.clone(), topo.clone(), vol.clone(), BisectParams::default(), seed);
            while !d.is_done() {
                d.step();
            }
            let m = d.result().unwrap();
            let before = hop_bytes(&g, &topo, &m);
            let mut node_of = m.node.clone();
            let (_, change) = orient(&g, &vol, &topo, d.tree(), &mut node_of);
            let after = Mapping::new(node_of, m.core.clone());
            after.validate(n, &topo).unwrap();
            let hb = hop_bytes(&g, &topo, &after);
            prop_assert!(change <= 0.0);
            prop_assert!((hb - (before + change)).abs() <= 1e-9 * before.max(1.0), "{} {} {}", before, change, hb);
        }
    }
}
