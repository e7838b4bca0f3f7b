//! Plans that are images of each other under a symmetry of the graph, so
//! that the max-load tie-break routes one plan per class.
//!
//! A plan reflects an open grid direction i by placing the process at
//! coordinate c where the unreflected plan places the one at size − 1 − c:
//! its mapping is the unreflected mapping composed with the reflection τᵢ
//! of the grid's coordinates. When τᵢ is an automorphism of the graph (every
//! message u → v of b bytes has its image τᵢu → τᵢv of b bytes: a product of
//! cliques, a halo whose volumes are symmetric along i), both mappings route
//! the same messages between the same nodes, so their hop-bytes and every
//! channel's load are equal. Plans that differ only in the reflections of
//! such directions form one class ([`classes`]); the caller routes its
//! first plan and gives the others its max load.
//!
//! Beyond the seeds: the grid's automorphisms found by checking each
//! reflection on the graph, O(m log Δ) per open direction, and a class key
//! per plan, O(plans · size of a plan).

use super::embed::Plan;
use super::recognise::GridHalo;
use crate::graph::CommGraph;

/// Bit i set when reflecting open direction i of `halo` (size ≥ 2) maps
/// every message of `g` onto a message of the same bytes (an automorphism
/// of the graph). Processes are located by their grid coordinates, which
/// must be a bijection onto the box (as [`super::recognise`] gives them).
/// O(d · m log Δ).
pub fn automorphic_reflections(g: &CommGraph, halo: &GridHalo) -> u32 {
    let d = halo.ndims();
    let n = g.n();
    if d == 0 || halo.coords.len() != n * d || d > 32 {
        return 0;
    }
    // The process at each coordinate (x fastest).
    let mut at = vec![u32::MAX; n];
    let index = |c: &[u32]| {
        let mut i = 0usize;
        for k in (0..d).rev() {
            i = i * halo.dims[k] as usize + c[k] as usize;
        }
        i
    };
    for p in 0..n {
        let i = index(halo.coord(p));
        if i >= n || at[i] != u32::MAX {
            return 0;
        }
        at[i] = p as u32;
    }
    let positive = |u: usize| g.sent_row(u).iter().filter(|&&b| b > 0.0).count();
    let mut mask = 0u32;
    let mut c = vec![0u32; d];
    let mut image = vec![0u32; n];
    for i in 0..d {
        if halo.periodic[i] || halo.dims[i] < 2 {
            continue;
        }
        for p in 0..n {
            c.copy_from_slice(halo.coord(p));
            c[i] = halo.dims[i] - 1 - c[i];
            image[p] = at[index(&c)];
        }
        let symmetric = (0..n).all(|u| {
            let tu = image[u] as usize;
            positive(u) == positive(tu)
                && g.neighbors(u)
                    .iter()
                    .zip(g.sent_row(u))
                    .all(|(&v, &b)| b <= 0.0 || g.sent_between(tu, image[v as usize] as usize) == b)
        });
        if symmetric {
            mask |= 1 << i;
        }
    }
    mask
}

/// For each plan of `plans` (in order), the index in `plans` of the first
/// plan of its class: plans equal but for the reflections of the
/// directions in `mask` ([`automorphic_reflections`]). O(plans² · size of a
/// plan) for the few tied plans it is given.
pub fn classes(plans: &[&Plan], mask: u32) -> Vec<usize> {
    let same = |a: &Plan, b: &Plan| {
        a.split == b.split
            && a.targets == b.targets
            && a.same_shifts(b)
            && a.arrange == b.arrange
            && (a.flip & !mask) == (b.flip & !mask)
    };
    (0..plans.len())
        .map(|j| (0..j).find(|&i| same(plans[i], plans[j])).unwrap_or(j))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::mappers::grid_embed::embed::{Factor, Targets};
    use crate::mappers::grid_embed::recognise::Found;

    /// A 3 × 2 open grid, process p at (p % 3, p / 3).
    fn halo_3x2() -> GridHalo {
        GridHalo {
            dims: vec![3, 2],
            periodic: vec![false, false],
            clique: vec![false, false],
            coords: (0..6).flat_map(|p| [p % 3, p / 3]).collect(),
            axis_bytes: vec![0.0; 2],
            diagonal_bytes: 0.0,
            other_bytes: 0.0,
            other_pairs: 0,
            threshold: 0.0,
            found: Found::Exact,
        }
    }

    #[test]
    fn a_uniform_grid_is_symmetric_along_both_directions() {
        // Face pairs of the 3 × 2 grid, 4 bytes each way.
        let mut b = GraphBuilder::new(6, false);
        for (u, v) in [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)] {
            b.add(u, v, 4.0);
        }
        let g = b.build().unwrap();
        assert_eq!(automorphic_reflections(&g, &halo_3x2()), 0b11);
    }

    #[test]
    fn a_heavier_end_breaks_the_reflection_of_its_direction_only() {
        // As above, but 0–1 carries 9: reflecting x maps it onto 1–2 (4
        // bytes), reflecting y onto 3–4 (4 bytes): neither is an
        // automorphism. Then 3–4 carries 9 too: y's reflection swaps the
        // two heavy pairs, x's still does not.
        let pairs = [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)];
        let graph = |heavy: &[(usize, usize)]| {
            let mut b = GraphBuilder::new(6, false);
            for &(u, v) in &pairs {
                b.add(u, v, if heavy.contains(&(u, v)) { 9.0 } else { 4.0 });
            }
            b.build().unwrap()
        };
        assert_eq!(automorphic_reflections(&graph(&[(0, 1)]), &halo_3x2()), 0);
        assert_eq!(
            automorphic_reflections(&graph(&[(0, 1), (3, 4)]), &halo_3x2()),
            0b10
        );
    }

    #[test]
    fn plans_differing_in_symmetric_reflections_share_a_class() {
        let plan = |flip: u32| Plan {
            split: vec![vec![3], vec![2]].into(),
            targets: Targets::new(&[
                vec![Factor {
                    dir: 0,
                    level: 0,
                    size: 3,
                }],
                vec![Factor {
                    dir: 1,
                    level: 0,
                    size: 2,
                }],
                vec![],
            ]),
            flip,
            shift: vec![0, 0],
            arrange: Vec::new(),
        };
        let (a, b, c, e) = (plan(0), plan(0b01), plan(0b10), plan(0b11));
        let plans = [&a, &b, &c, &e];
        // Only y's reflection is an automorphism: flips of x part classes.
        assert_eq!(classes(&plans, 0b10), vec![0, 1, 0, 1]);
        assert_eq!(classes(&plans, 0b11), vec![0, 0, 0, 0]);
        assert_eq!(classes(&plans, 0), vec![0, 1, 2, 3]);
    }
}
