//! A process's cost at many candidate nodes of a mesh or torus, summed by
//! dimension. The hop distance between two nodes of a mesh or torus is the
//! sum of their distances along each dimension, so the cost of process p
//! at node b, Σ_v c_v · d(b, node of v) over p's partners v, is
//! Σ_k T_k[b_k] with T_k[x] = Σ_v c_v · d_k(x, (node of v)_k) (d_k the
//! distance along dimension k, across the wrap on a torus). Each T_k[x] is
//! made when a candidate node first needs it, in O(deg); the bottleneck
//! phase's candidates ([`super::bottleneck`]: the nodes of p's partners and
//! their network neighbours) share a few coordinates per dimension around
//! a process whose partners sit close, so most of their costs are one
//! look-up per dimension instead of a pass over p's partners. Cost per
//! process: O(Σ_k distinct k-coordinates of its candidates · deg + candidates
//! · dimensions), against O(candidates · deg) ([`Refine::gain_at`]). (In the
//! hop-bytes search, whose processes' partners are often scattered early
//! on, it cost more than it saved on `recursive+refine`: not used there.)
//!
//! Used only on exact sums ([`super::exact_sums`]) over a tabulated
//! distance ([`Dist`]'s table: every distance below 255): every partial sum
//! is then an integer that a double holds exactly, so the cost is the same
//! bits as [`Refine::gain_at`]'s sum in any order. Beyond the seeds: the
//! per-dimension split of a mesh's distance (the idea of the Manhattan
//! median), applied to the candidates of one process.

use super::Dist;
#[cfg(doc)]
use super::Refine;

/// Costs by dimension for one process at a time ([`AxisCosts::begin`]).
#[derive(Default)]
pub(super) struct AxisCosts {
    /// The process being tried: T_k[x] made under another stamp are stale.
    stamp: u32,
    /// Per dimension, where its coordinates start in `vals`.
    start: [usize; 7],
    /// (stamp, T_k[x]) of every dimension k and coordinate x.
    vals: Vec<(u32, f64)>,
    /// The process's partners: their volumes, and their nodes' coordinates
    /// dimension by dimension (`coords[k * deg + j]`).
    weights: Vec<f64>,
    coords: Vec<u32>,
}

impl AxisCosts {
    /// Start a new process whose `partners` are (node, volume): false (and
    /// nothing to use) when costs by dimension do not apply — the sums are
    /// not `exact` ([`super::exact_sums`]), or the network is not a
    /// tabulated mesh or torus. O(deg · dimensions), plus O(Σ sizes) the
    /// first time.
    pub(super) fn begin(&mut self, dist: &Dist, exact: bool, partners: &[(usize, f64)]) -> bool {
        if !exact || dist.nd == 0 || dist.table.is_empty() {
            return false;
        }
        if self.vals.is_empty() {
            let mut at = 0;
            for k in 0..dist.nd {
                self.start[k] = at;
                at += dist.dims[k] as usize;
            }
            self.vals = vec![(0, 0.0); at];
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.vals.fill((0, 0.0));
            self.stamp = 1;
        }
        let nd = dist.nd;
        self.weights.clear();
        self.weights.extend(partners.iter().map(|p| p.1));
        self.coords.clear();
        for k in 0..nd {
            (self.coords).extend(partners.iter().map(|&(nv, _)| dist.coords[nv * nd + k]));
        }
        true
    }

    /// Σ c · d(b, node) over the partners (node, volume) of the process
    /// [`AxisCosts::begin`] started: its cost at node `b`. O(dimensions),
    /// plus O(deg) per T_k[x] first made.
    pub(super) fn cost(&mut self, dist: &Dist, b: usize) -> f64 {
        let nd = dist.nd;
        let deg = self.weights.len();
        let cb = &dist.coords[b * nd..(b + 1) * nd];
        let mut s = 0.0;
        for k in 0..nd {
            let x = cb[k];
            let slot = &mut self.vals[self.start[k] + x as usize];
            if slot.0 != self.stamp {
                let (size, wrap) = (dist.dims[k], dist.wrap[k]);
                let mut t = 0.0;
                let at = &self.coords[k * deg..(k + 1) * deg];
                for (&y, &c) in at.iter().zip(&self.weights) {
                    let dx = x.abs_diff(y);
                    let d = if wrap { dx.min(size - dx) } else { dx };
                    t += c * d as f64;
                }
                *slot = (self.stamp, t);
            }
            s += slot.1;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;
    use std::sync::Arc;

    /// On meshes and tori the cost by dimension equals the sum over the
    /// distance table, for every node, with the look-ups shared.
    #[test]
    fn costs_by_dimension_equal_the_table_sums() {
        for spec in ["torus:4x4x8", "mesh:5x3", "torus:3x4:cores=2", "mesh:2x3x4"] {
            let topo = Arc::new(Topology::parse(spec).expect("spec"));
            let dist = Dist::new(topo.clone());
            let nodes = topo.num_nodes();
            let mut ax = AxisCosts::default();
            for first in 0..nodes.min(7) {
                let partners: Vec<(usize, f64)> = (0..5)
                    .map(|j| {
                        (
                            (first * 7 + j * 5) % nodes,
                            (1 + (j * 3 + first) % 4) as f64,
                        )
                    })
                    .collect();
                assert!(ax.begin(&dist, true, &partners));
                for b in 0..nodes {
                    let want: f64 = partners
                        .iter()
                        .map(|&(nv, c)| c * dist.get(b, nv) as f64)
                        .sum();
                    assert_eq!(ax.cost(&dist, b), want, "{spec} node {b}");
                }
            }
            assert!(!ax.begin(&dist, false, &[]));
        }
    }
}
