//! The canonical form of a recognised grid, so that what `grid` chooses is a
//! function of the grid and its bytes, not of the rank numbering.
//!
//! The recognition numbers a grid's directions in the order it meets them,
//! which follows the ranks' numbering; the plans are enumerated, sampled
//! and tie-broken in that order, and a rival mapper run on the graph sees
//! the ranks' numbering too. Here the directions are put in one order
//! (heaviest bytes first, then longer, open before periodic: [`axes`]),
//! every process gets the linear index of its grid coordinates as its
//! canonical number ([`grid_order`]), the pairs are listed in that order
//! ([`pairs_in_order`]), and the graph can be relabelled by it
//! ([`relabel`]). Two numberings of one halo whose recognised coordinates
//! differ by a symmetry of the halo (a translation of a ring, the
//! reflection of a direction, an exchange of two directions of equal size
//! and bytes) then give the same canonical graph, the same sample of pairs
//! and the same plans in the same order. O(n·d + m log m).

use super::recognise::GridHalo;
use crate::error::Result;
use crate::graph::{CommGraph, Coords, GraphBuilder};

/// `h` with its directions sorted: most face bytes first (compared to 40
/// bits, so that summation order does not matter), then larger, then open
/// before periodic, then not a clique before a clique; the coordinates are
/// permuted alike. Directions equal in all of these keep their order.
/// O(n·d).
pub fn axes(mut h: GridHalo) -> GridHalo {
    let d = h.ndims();
    let top = h.axis_bytes.iter().copied().fold(0.0f64, f64::max);
    let level = |b: f64| -> u64 {
        if top > 0.0 {
            (b / top * (1u64 << 40) as f64).round() as u64
        } else {
            0
        }
    };
    let mut order: Vec<usize> = (0..d).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(level(h.axis_bytes[i])),
            std::cmp::Reverse(h.dims[i]),
            h.periodic[i],
            h.clique[i],
        )
    });
    if order.iter().enumerate().all(|(k, &i)| k == i) {
        return h;
    }
    h.coords = h
        .coords
        .chunks(d.max(1))
        .flat_map(|c| order.iter().map(move |&i| c[i]))
        .collect();
    h.dims = order.iter().map(|&i| h.dims[i]).collect();
    h.periodic = order.iter().map(|&i| h.periodic[i]).collect();
    h.clique = order.iter().map(|&i| h.clique[i]).collect();
    h.axis_bytes = order.iter().map(|&i| h.axis_bytes[i]).collect();
    h
}

/// The canonical number of every process: the rank of its grid
/// coordinates' linear index (first direction fastest), ties (a grid read
/// inexactly may give two processes one position) by process id. A
/// permutation of `0..n`. O(n log n).
pub fn grid_order(h: &GridHalo) -> Vec<u32> {
    let n = h.coords.len() / h.ndims().max(1);
    let linear = |p: usize| -> u64 {
        h.coord(p)
            .iter()
            .zip(&h.dims)
            .rev()
            .fold(0u64, |acc, (&c, &g)| acc * g as u64 + c as u64)
    };
    let mut by: Vec<(u64, u32)> = (0..n).map(|p| (linear(p), p as u32)).collect();
    by.sort_unstable();
    let mut rank = vec![0u32; n];
    for (k, &(_, p)) in by.iter().enumerate() {
        rank[p as usize] = k as u32;
    }
    rank
}

/// The pairs of `g` (u, v, bytes), ordered by the canonical numbers of
/// their ends (lower end first). O(m log m).
pub fn pairs_in_order(g: &CommGraph, rank: &[u32]) -> Vec<(u32, u32, f64)> {
    let mut pairs: Vec<(u32, u32, u32, u32, f64)> = g
        .pairs()
        .map(|(u, v, c)| {
            let (a, b) = (rank[u], rank[v]);
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            (lo, hi, u as u32, v as u32, c)
        })
        .collect();
    pairs.sort_unstable_by_key(|p| (p.0, p.1));
    pairs.into_iter().map(|p| (p.2, p.3, p.4)).collect()
}

/// `g` with process p renumbered `rank[p]` (a permutation of `0..n`); the
/// bytes of each direction (directed graphs) and the coordinates follow.
/// O(m log m).
pub fn relabel(g: &CommGraph, rank: &[u32]) -> Result<CommGraph> {
    let n = g.n();
    let mut b = GraphBuilder::with_capacity(n, g.is_directed(), g.num_messages());
    if g.is_directed() {
        for (u, v, w) in g.messages() {
            b.add(rank[u] as usize, rank[v] as usize, w);
        }
    } else {
        for (u, v, c) in g.pairs() {
            b.add(rank[u] as usize, rank[v] as usize, c);
        }
    }
    let out = b.build()?;
    match g.coords() {
        Some(c) => {
            let mut xyz = vec![[0.0; 3]; n];
            for (p, x) in c.xyz.iter().enumerate() {
                xyz[rank[p] as usize] = *x;
            }
            out.with_coords(Some(Coords::new(c.dim, xyz)))
        }
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_go_heaviest_first_and_coordinates_follow() {
        // A 2 × 3 grid whose second direction is the heavier.
        let h = GridHalo {
            dims: vec![2, 3],
            periodic: vec![false, true],
            clique: vec![false; 2],
            coords: vec![0, 0, 1, 0, 0, 1, 1, 1, 0, 2, 1, 2],
            axis_bytes: vec![3.0, 6.0],
            diagonal_bytes: 0.0,
            other_bytes: 0.0,
            other_pairs: 0,
            threshold: 0.5,
            found: super::super::recognise::Found::Exact,
        };
        let c = axes(h);
        assert_eq!(c.dims, [3, 2]);
        assert_eq!(c.periodic, [true, false]);
        assert_eq!(c.axis_bytes, [6.0, 3.0]);
        assert_eq!(c.coord(1), [0, 1]);
        assert_eq!(c.coord(4), [2, 0]);
        // Process 4 at (2, 0): linear index 2; process 1 at (0, 1): 3.
        assert_eq!(grid_order(&c), [0, 3, 1, 4, 2, 5]);
    }
}
