//! Packing the connected components of a layout side by side, so that every
//! one is visible — our addition, not in Bobrik & Popova. A force layout of
//! a disconnected graph has no attraction between components, so repulsion
//! pushes them apart without bound: drawn to fit, the picture becomes one
//! strand and a dot. Laying out each component alone and then packing them
//! keeps each at its own scale.
//!
//! The packing follows the idea of Graphviz's `pack` (largest first): the
//! components' bounding boxes (in the x–y plane; z is kept), each grown by a
//! margin, are sorted by decreasing size and placed on shelves — left to
//! right in rows of a target width `max(widest box, 1.2·sqrt(Σ areas))`, a
//! new row above when one is full — then the whole arrangement is centred
//! on the origin. The largest component lands in the first row's first
//! place. Shelf packing is simpler than Graphviz's polyomino packing and
//! wastes more space between very unequal boxes, but it is O(k log k) for k
//! components and deterministic. [`pack_components`] moves positions in
//! place in O(n + k log k).

use super::gravity::ForceGraph;

/// Lower-left corner of each box (`[width, height]`, padded by `margin` on
/// every side) in a shelf packing, largest box first; the arrangement is
/// centred on the origin. Ties in size keep the input order.
pub fn pack_boxes(sizes: &[[f32; 2]], margin: f32) -> Vec<[f32; 2]> {
    let k = sizes.len();
    if k == 0 {
        return Vec::new();
    }
    let m = if margin.is_finite() && margin > 0.0 {
        margin
    } else {
        0.0
    };
    let padded: Vec<[f32; 2]> = sizes
        .iter()
        .map(|s| [s[0].max(0.0) + 2.0 * m, s[1].max(0.0) + 2.0 * m])
        .collect();
    let mut order: Vec<usize> = (0..k).collect();
    // Largest first: by the longer side, then by area.
    order.sort_by(|&a, &b| {
        let ka = (padded[a][0].max(padded[a][1]), padded[a][0] * padded[a][1]);
        let kb = (padded[b][0].max(padded[b][1]), padded[b][0] * padded[b][1]);
        kb.0.total_cmp(&ka.0).then(kb.1.total_cmp(&ka.1))
    });
    let area: f64 = padded.iter().map(|p| p[0] as f64 * p[1] as f64).sum();
    let widest = padded.iter().map(|p| p[0]).fold(0.0f32, f32::max);
    let width = widest.max((1.2 * area.sqrt()) as f32);
    let mut corner = vec![[0f32; 2]; k];
    let (mut x, mut y, mut row_h) = (0f32, 0f32, 0f32);
    for &i in &order {
        let [w, h] = padded[i];
        if x > 0.0 && x + w > width {
            y += row_h;
            x = 0.0;
            row_h = 0.0;
        }
        corner[i] = [x + m, y + m];
        x += w;
        row_h = row_h.max(h);
    }
    // Centre the arrangement.
    let total_w = order
        .iter()
        .map(|&i| corner[i][0] - m + padded[i][0])
        .fold(0.0f32, f32::max);
    let total_h = y + row_h;
    for c in corner.iter_mut() {
        c[0] -= total_w / 2.0;
        c[1] -= total_h / 2.0;
    }
    corner
}

/// Move every component (`comp[i]` = component of point `i`, `0..k`) so that
/// the components lie side by side without overlap ([`pack_boxes`] of their
/// x–y bounding boxes, `margin` apart from each other twice over). A single
/// component is left where it is. O(n + k log k).
pub fn pack_components(pos: &mut [[f32; 3]], comp: &[u32], k: usize, margin: f32) {
    if k <= 1 || pos.is_empty() {
        return;
    }
    let offsets = component_offsets(pos, comp, k, margin);
    for (p, &c) in pos.iter_mut().zip(comp) {
        let o = offsets[c as usize];
        p[0] += o[0];
        p[1] += o[1];
    }
}

/// The x–y translation of each component that [`pack_components`] applies.
pub fn component_offsets(pos: &[[f32; 3]], comp: &[u32], k: usize, margin: f32) -> Vec<[f32; 2]> {
    let mut lo = vec![[f32::INFINITY; 2]; k];
    let mut hi = vec![[f32::NEG_INFINITY; 2]; k];
    for (p, &c) in pos.iter().zip(comp) {
        let c = c as usize;
        for a in 0..2 {
            let v = if p[a].is_finite() { p[a] } else { 0.0 };
            lo[c][a] = lo[c][a].min(v);
            hi[c][a] = hi[c][a].max(v);
        }
    }
    // A component with no point (not expected) is an empty box at 0.
    for c in 0..k {
        if lo[c][0] > hi[c][0] {
            lo[c] = [0.0; 2];
            hi[c] = [0.0; 2];
        }
    }
    let sizes: Vec<[f32; 2]> = (0..k)
        .map(|c| [hi[c][0] - lo[c][0], hi[c][1] - lo[c][1]])
        .collect();
    let corner = pack_boxes(&sizes, margin);
    (0..k)
        .map(|c| [corner[c][0] - lo[c][0], corner[c][1] - lo[c][1]])
        .collect()
}

/// The sub-graph of `g` on `members` (ascending global ids), renumbered by
/// `local` (global id → index in `members`): the CSR rows of the members,
/// with their weights and masses, keeping the neighbours in the members'
/// part (`part`: the part of every process; the members are one part).
/// O(size of the part's rows).
pub fn subgraph(g: &ForceGraph, members: &[u32], local: &[u32], part: &[u32]) -> ForceGraph {
    let mut offsets = Vec::with_capacity(members.len() + 1);
    let mut targets = Vec::new();
    let mut weights = Vec::new();
    let mut mass = Vec::with_capacity(members.len());
    offsets.push(0u32);
    for &u in members {
        let u = u as usize;
        for k in g.offsets[u] as usize..g.offsets[u + 1] as usize {
            let v = g.targets[k] as usize;
            if part[v] != part[u] {
                continue;
            }
            targets.push(local[v]);
            weights.push(g.weights[k]);
        }
        offsets.push(targets.len() as u32);
        mass.push(g.mass[u]);
    }
    ForceGraph {
        offsets,
        targets,
        weights,
        mass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlap(a: ([f32; 2], [f32; 2]), b: ([f32; 2], [f32; 2])) -> bool {
        a.0[0] < b.1[0] && b.0[0] < a.1[0] && a.0[1] < b.1[1] && b.0[1] < a.1[1]
    }

    #[test]
    fn boxes_do_not_overlap_and_largest_comes_first() {
        let sizes = [[1.0, 1.0], [10.0, 4.0], [0.0, 0.0], [3.0, 3.0], [0.0, 0.0]];
        let c = pack_boxes(&sizes, 0.5);
        let rect = |i: usize| (c[i], [c[i][0] + sizes[i][0], c[i][1] + sizes[i][1]]);
        for i in 0..sizes.len() {
            for j in i + 1..sizes.len() {
                // Padded boxes are disjoint, so the real ones are a margin apart.
                let grow = |r: ([f32; 2], [f32; 2])| {
                    ([r.0[0] - 0.5, r.0[1] - 0.5], [r.1[0] + 0.5, r.1[1] + 0.5])
                };
                assert!(!overlap(grow(rect(i)), rect(j)), "{i} {j} {c:?}");
            }
        }
        // The largest box (index 1) is first in the first row: leftmost, lowest.
        assert!(
            c.iter().all(|p| p[0] >= c[1][0] && p[1] >= c[1][1]),
            "{c:?}"
        );
        // Centred: the arrangement's extent is symmetric about 0.
        let xmin = (0..5).map(|i| c[i][0] - 0.5).fold(f32::INFINITY, f32::min);
        let xmax = (0..5)
            .map(|i| c[i][0] + sizes[i][0] + 0.5)
            .fold(f32::NEG_INFINITY, f32::max);
        assert!((xmin + xmax).abs() < 1e-4, "{xmin} {xmax}");
        assert!(pack_boxes(&[], 1.0).is_empty());
    }

    #[test]
    fn components_are_moved_apart_and_kept_whole() {
        // Two components drawn on top of each other, and an isolated point
        // far away.
        let mut pos = vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.5, 0.2, 1.0],
            [0.5, 0.8, 0.0],
            [1e6, 1e6, 0.0],
        ];
        let comp = [0, 0, 1, 1, 2];
        let before = pos.clone();
        pack_components(&mut pos, &comp, 3, 0.25);
        // Shapes are kept (pure translations) and z is untouched.
        assert_eq!(pos[1][0] - pos[0][0], 1.0);
        assert_eq!(pos[3][1] - pos[2][1], before[3][1] - before[2][1]);
        assert_eq!(pos[2][2], 1.0);
        // Bounding boxes no longer overlap, and the far point came close.
        // Boxes grown by 0.2 (less than the two margins between them).
        let bb = |a: usize, b: usize| {
            (
                [
                    pos[a][0].min(pos[b][0]) - 0.2,
                    pos[a][1].min(pos[b][1]) - 0.2,
                ],
                [
                    pos[a][0].max(pos[b][0]) + 0.2,
                    pos[a][1].max(pos[b][1]) + 0.2,
                ],
            )
        };
        assert!(!overlap(bb(0, 1), bb(2, 3)));
        assert!(pos[4][0].abs() < 10.0 && pos[4][1].abs() < 10.0, "{pos:?}");
        // One component: nothing moves.
        let mut one = before.clone();
        pack_components(&mut one, &[0; 5], 1, 0.25);
        assert_eq!(one, before);
    }
}
