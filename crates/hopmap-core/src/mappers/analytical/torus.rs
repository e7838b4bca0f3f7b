//! Torus handling beyond the paper (whose continuous model is a box and
//! ignores the wrap links in global mapping).
//!
//! Always: hop-bytes and every migration cost use torus distances, and
//! legalization diffuses over the torus Laplacian (see [`super::legalize`]).
//!
//! `torus=cut`: after a legal mapping, measure for every wrapped dimension
//! the traffic that crosses each of its `k` ring cuts (cut `s` is the link
//! between coordinates `s−1` and `s`; cut 0 is the wrap link), routing every
//! pair the shorter way round (half each way on an exact half-ring tie). If
//! some ring carries least traffic at a cut other than its wrap link, rotate
//! the mapping so that those cuts become the box's faces (a rotation of a
//! torus changes no distance) and run global mapping and legalization again
//! from the rotated mapping: the new box model no longer pretends the
//! processes on the two sides of the old cut are far apart. The better of
//! the rounds is kept. At most one extra round.
//!
//! The second round starts from the rotated legal positions: its fixed
//! items are those nearest each corner, and its first solve anchors every
//! item at its start (spreading anchors with target = start), so the solve
//! does not collapse the mapping.
//!
//! Cost per round: O(m · D + nodes) for the cut traffic, plus a whole round.

use super::global::ItemGraph;
use crate::topology::Grid;

/// Bookkeeping of the torus rounds.
#[derive(Clone, Debug, Default)]
pub struct Rounds {
    /// Rounds finished.
    pub rounds: usize,
    /// Legalization iterations of finished rounds.
    pub legal_iterations: usize,
    /// Hop-bytes of each finished round.
    pub hop_bytes: Vec<f64>,
    /// The cut chosen per dimension after each round (0 = the wrap link).
    pub cuts: Vec<Vec<u32>>,
    best: Option<(f64, Vec<u32>)>,
}

impl Rounds {
    pub fn new(_ndims: usize) -> Self {
        Self::default()
    }

    /// The cumulative iteration limit of global mapping in this round.
    pub fn global_limit(&self, per_round: usize) -> usize {
        per_round * (self.rounds + 1)
    }

    /// The best legal item→node assignment seen.
    pub fn best_nodes(&self) -> &[u32] {
        self.best.as_ref().map(|b| b.1.as_slice()).unwrap_or(&[])
    }

    /// Record a finished round; returns the start Φ of another round (items ×
    /// D) when a ring should be cut elsewhere.
    pub fn finish_round(
        &mut self,
        grid: &Grid,
        g: &ItemGraph,
        node_of: Vec<u32>,
        hop_bytes: f64,
        legal_iterations: usize,
    ) -> Option<Vec<f64>> {
        self.rounds += 1;
        self.legal_iterations += legal_iterations;
        self.hop_bytes.push(hop_bytes);
        let cuts = least_traffic_cuts(grid, g, &node_of);
        let better = self.best.as_ref().is_none_or(|b| hop_bytes < b.0);
        let start = if self.rounds < 2 && cuts.iter().any(|&s| s != 0) {
            Some(rotated_positions(grid, &node_of, &cuts))
        } else {
            None
        };
        self.cuts.push(cuts);
        if better {
            self.best = Some((hop_bytes, node_of));
        }
        start
    }
}

/// Traffic over each cut of each dimension's rings (`[dim][cut]`).
pub fn cut_traffic(grid: &Grid, g: &ItemGraph, node_of: &[u32]) -> Vec<Vec<f64>> {
    let nd = grid.ndims();
    let mut out: Vec<Vec<f64>> = grid
        .dims()
        .iter()
        .map(|&k| vec![0.0; k as usize + 1])
        .collect();
    for i in 0..g.n() {
        let ci = grid.coord(node_of[i] as usize);
        let (t, w) = g.row(i);
        for (&j, &c) in t.iter().zip(w) {
            if (j as usize) < i {
                continue;
            }
            let cj = grid.coord(node_of[j as usize] as usize);
            for d in 0..nd {
                let k = grid.dims()[d] as usize;
                let (a, b) = (ci[d].min(cj[d]) as usize, ci[d].max(cj[d]) as usize);
                if a == b {
                    continue;
                }
                let direct = b - a;
                let around = k - direct;
                let diff = &mut out[d];
                // Direct arc crosses cuts a+1..=b; around crosses b+1..k and 0..=a.
                let (wd, wa) = if !grid.wraps(d) || direct < around {
                    (c, 0.0)
                } else if direct > around {
                    (0.0, c)
                } else {
                    (c / 2.0, c / 2.0)
                };
                if wd > 0.0 {
                    diff[a + 1] += wd;
                    diff[b + 1] -= wd;
                }
                if wa > 0.0 {
                    diff[b + 1] += wa;
                    diff[k] -= wa;
                    diff[0] += wa;
                    diff[a + 1] -= wa;
                }
            }
        }
    }
    for v in &mut out {
        let mut run = 0.0;
        for x in v.iter_mut() {
            run += *x;
            *x = run;
        }
        v.pop();
    }
    out
}

/// The cut with the least traffic per dimension (0 for unwrapped dimensions;
/// ties: the wrap link, then the lowest cut).
pub fn least_traffic_cuts(grid: &Grid, g: &ItemGraph, node_of: &[u32]) -> Vec<u32> {
    let tr = cut_traffic(grid, g, node_of);
    (0..grid.ndims())
        .map(|d| {
            if !grid.wraps(d) {
                return 0;
            }
            let mut best = 0usize;
            for s in 1..tr[d].len() {
                if tr[d][s] < tr[d][best] * (1.0 - 1e-12) {
                    best = s;
                }
            }
            best as u32
        })
        .collect()
}

/// Item positions after rotating every ring so that cut `cuts[d]` becomes
/// the box face: coordinate `c` goes to `(c − cut) mod k`.
pub fn rotated_positions(grid: &Grid, node_of: &[u32], cuts: &[u32]) -> Vec<f64> {
    let nd = grid.ndims();
    let mut out = Vec::with_capacity(node_of.len() * nd);
    for &v in node_of {
        let c = grid.coord(v as usize);
        for d in 0..nd {
            let k = grid.dims()[d];
            out.push(((c[d] + k - cuts[d]) % k) as f64);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_traffic_goes_the_short_way() {
        // Ring of 6; items on nodes 0 and 5 talk (1 hop via the wrap), items
        // on 1 and 3 talk (2 hops direct).
        let grid = Grid::torus(&[6]);
        let g = ItemGraph::from_lists(
            4,
            vec![
                vec![(1, 1.0)],
                vec![(0, 1.0)],
                vec![(3, 2.0)],
                vec![(2, 2.0)],
            ],
        );
        let tr = cut_traffic(&grid, &g, &[0, 5, 1, 3]);
        assert_eq!(tr[0], vec![1.0, 0.0, 2.0, 2.0, 0.0, 0.0]);
        let cuts = least_traffic_cuts(&grid, &g, &[0, 5, 1, 3]);
        assert_eq!(cuts, vec![1]);
        assert_eq!(rotated_positions(&grid, &[0, 5], &cuts), vec![5.0, 4.0]);
    }
}
