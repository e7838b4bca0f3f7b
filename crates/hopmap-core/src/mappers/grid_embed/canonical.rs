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
/// their ends (lower end first; `rank` a permutation of `0..n`, so no two
/// pairs have the same two numbers). A counting sort by the higher number,
/// then a stable one by the lower. O(n + m).
pub fn pairs_in_order(g: &CommGraph, rank: &[u32]) -> Vec<(u32, u32, f64)> {
    let n = g.n();
    let pairs: Vec<(u32, u32, f64)> = g.pairs().map(|(u, v, c)| (u as u32, v as u32, c)).collect();
    let ends = |p: &(u32, u32, f64)| {
        let (a, b) = (rank[p.0 as usize], rank[p.1 as usize]);
        if a < b { (a, b) } else { (b, a) }
    };
    // Per canonical number, where the next pair with it as the higher
    // (lower) end goes.
    let mut by_hi = vec![0usize; n + 1];
    let mut by_lo = vec![0usize; n + 1];
    for p in &pairs {
        let (lo, hi) = ends(p);
        by_hi[hi as usize + 1] += 1;
        by_lo[lo as usize + 1] += 1;
    }
    for k in 0..n {
        by_hi[k + 1] += by_hi[k];
        by_lo[k + 1] += by_lo[k];
    }
    let mut hi_first = vec![(0u32, 0u32, 0.0f64); pairs.len()];
    for p in &pairs {
        let slot = &mut by_hi[ends(p).1 as usize];
        hi_first[*slot] = *p;
        *slot += 1;
    }
    let mut out = pairs;
    for p in &hi_first {
        let slot = &mut by_lo[ends(p).0 as usize];
        out[*slot] = *p;
        *slot += 1;
    }
    out
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

    #[test]
    fn pairs_come_in_the_order_of_their_canonical_ends() {
        // By hand: 4 processes, ranks 2, 0, 3, 1; pairs 0–1 (ends 0, 2),
        // 0–2 (2, 3), 1–3 (0, 1), 2–3 (1, 3), 1–2 (0, 3).
        let mut b = GraphBuilder::new(4, false);
        for (u, v, c) in [
            (0, 1, 1.0),
            (0, 2, 2.0),
            (1, 3, 3.0),
            (2, 3, 4.0),
            (1, 2, 5.0),
        ] {
            b.add(u, v, c);
        }
        let g = b.build().unwrap();
        assert_eq!(
            pairs_in_order(&g, &[2, 0, 3, 1]),
            [
                (1, 3, 3.0),
                (0, 1, 1.0),
                (1, 2, 5.0),
                (2, 3, 4.0),
                (0, 2, 2.0)
            ]
        );
        // Random graphs and permutations: the order of a plain sort by the
        // two ends.
        let mut rng = crate::rng::Rng::new(7);
        for n in [2usize, 5, 30, 200] {
            let mut b = GraphBuilder::new(n, false);
            for _ in 0..4 * n {
                let (u, v) = (rng.below(n), rng.below(n));
                if u != v {
                    b.add(u, v, 1.0 + rng.below(9) as f64);
                }
            }
            let g = b.build().unwrap();
            let mut rank: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                rank.swap(i, rng.below(i + 1));
            }
            let mut want: Vec<(u32, u32, u32, u32, f64)> = g
                .pairs()
                .map(|(u, v, c)| {
                    let (a, b) = (rank[u], rank[v]);
                    (a.min(b), a.max(b), u as u32, v as u32, c)
                })
                .collect();
            want.sort_by_key(|p| (p.0, p.1));
            let want: Vec<(u32, u32, f64)> = want.into_iter().map(|p| (p.2, p.3, p.4)).collect();
            assert_eq!(pairs_in_order(&g, &rank), want, "n = {n}");
        }
    }
}
