//! A process's cost at many candidate nodes of a mesh or torus, summed by
//! dimension. The hop distance between two nodes of a mesh or torus is the
//! sum of their distances along each dimension, so the cost of process p
//! at node b, Σ_v c_v · d(b, node of v) over p's partners v, is
//! Σ_k T_k[b_k] with T_k[x] = Σ_v c_v · d_k(x, (node of v)_k) (d_k the
//! distance along dimension k, across the wrap on a torus). The partners'
//! volumes are first summed by coordinate along each dimension (w_k[y] =
//! Σ c_v over the partners whose node has k-coordinate y), so T_k[x] =
//! Σ_y w_k[y] · d_k(x, y) has one term per distinct coordinate, and each
//! T_k[x] is made when a candidate node first needs it. The candidates
//! (the nodes of p's partners and their network neighbours) share a few
//! coordinates per dimension, so most of their costs are one look-up per
//! dimension instead of a pass over p's partners. Cost per process:
//! O(deg · dimensions + Σ_k D_k · P_k + candidates · dimensions), D_k and
//! P_k the distinct k-coordinates of the candidates and of the partners,
//! against O(candidates · deg) ([`Refine::gain_at`]). The bottleneck phase
//! ([`super::bottleneck`]) uses it whenever it applies; the hop-bytes
//! search when [`AxisCosts::pays`] expects it to cost less (on a halo
//! embedded in a torus, yes; early in `recursive+refine`'s search, whose
//! processes' partners are often scattered, often not).
//!
//! Used only on exact sums ([`super::exact_sums`]) over a tabulated
//! distance ([`Dist`]'s table: every distance below 255): every partial sum
//! is then an integer that a double holds exactly, so the cost is the same
//! bits as [`Refine::gain_at`]'s sum in any order. Beyond the seeds: the
//! per-dimension split of a mesh's distance (the idea of the Manhattan
//! median), applied to the candidates of one process.

use super::Dist;

/// The cost of one term of a table of costs by dimension, and of one
/// look-up per dimension and candidate, against one term of
/// [`Refine::gain_at`] ([`AxisCosts::pays`]; set by instruction counts).
const AXIS_TERM_COST: usize = 3;
const AXIS_LOOKUP_COST: usize = 4;
#[cfg(doc)]
use super::Refine;

/// Costs by dimension for one process at a time ([`AxisCosts::begin`]).
#[derive(Default)]
pub(super) struct AxisCosts {
    /// The process being tried: T_k[x] made under another stamp are stale.
    stamp: u32,
    /// Per dimension, where its coordinates start in `vals` and `at`.
    start: [usize; 7],
    /// (stamp, T_k[x]) of every dimension k and coordinate x.
    vals: Vec<(u32, f64)>,
    /// Per dimension k, the coordinates its partners' nodes take and the
    /// partners' volume at each (`hist[from[k]..from[k + 1]]`).
    hist: Vec<(u32, f64)>,
    from: [usize; 7],
    /// (stamp, index in `hist`) of every dimension and coordinate, while
    /// `hist` is made.
    at: Vec<(u32, u32)>,
    /// Scratch of [`AxisCosts::pays`]: per dimension and coordinate, the
    /// stamp of the last count that met it.
    seen: Vec<u32>,
    seen_stamp: u32,
}

impl AxisCosts {
    /// Start a new process whose `partners` are (node, volume): false (and
    /// nothing to use) when costs by dimension do not apply — the sums are
    /// not `exact` ([`super::exact_sums`]), or the network is not a
    /// tabulated mesh or torus. Sums the partners' volumes by coordinate,
    /// dimension by dimension. O(deg · dimensions), plus O(Σ sizes) the
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
            self.at = vec![(0, 0); at];
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.vals.fill((0, 0.0));
            self.at.fill((0, 0));
            self.stamp = 1;
        }
        let nd = dist.nd;
        self.hist.clear();
        for k in 0..nd {
            self.from[k] = self.hist.len();
            for &(nv, c) in partners {
                let y = dist.coords[nv * nd + k];
                let e = &mut self.at[self.start[k] + y as usize];
                if e.0 == self.stamp {
                    self.hist[e.1 as usize].1 += c;
                } else {
                    *e = (self.stamp, self.hist.len() as u32);
                    self.hist.push((y, c));
                }
            }
        }
        self.from[nd] = self.hist.len();
        true
    }

    /// Whether costs by dimension are expected to cost less than one pass
    /// over the partners per candidate ([`Refine::gain_at`]) for a process
    /// whose `partners` are (node, volume) and that has `cands` candidate nodes
    /// within `depth` hops of them. Along dimension k the candidates take at
    /// most D_k = min(size_k, P_k + 2 · depth) coordinates, P_k the distinct
    /// coordinates of the partners, and each makes one table of P_k terms;
    /// then `dimensions` look-ups per candidate. Only the time depends on
    /// the answer (both give the same bits on exact sums). O(deg ·
    /// dimensions).
    pub(super) fn pays(
        &mut self,
        dist: &Dist,
        partners: &[(usize, f64)],
        depth: u32,
        cands: usize,
    ) -> bool {
        let nd = dist.nd;
        let deg = partners.len();
        // The look-ups and the sums by coordinate alone cost as much as
        // the passes over the partners: no need to count.
        if nd == 0
            || dist.table.is_empty()
            || AXIS_TERM_COST * nd * deg + AXIS_LOOKUP_COST * cands * nd >= cands * deg
        {
            return false;
        }
        let total: usize = dist.dims[..nd].iter().map(|&d| d as usize).sum();
        if self.seen.len() != total {
            self.seen = vec![0; total];
            self.seen_stamp = 0;
        }
        self.seen_stamp = self.seen_stamp.wrapping_add(1);
        if self.seen_stamp == 0 {
            self.seen.fill(0);
            self.seen_stamp = 1;
        }
        let mut work = 0;
        let mut at = 0;
        for k in 0..nd {
            let size = dist.dims[k] as usize;
            let mut distinct = 0;
            for &(nv, _) in partners {
                let x = at + dist.coords[nv * nd + k] as usize;
                if self.seen[x] != self.seen_stamp {
                    self.seen[x] = self.seen_stamp;
                    distinct += 1;
                }
            }
            work += size.min(distinct + 2 * depth as usize) * distinct;
            at += size;
        }
        AXIS_TERM_COST * (work + nd * deg) + AXIS_LOOKUP_COST * cands * nd < cands * deg
    }

    /// Σ c · d(b, node) over the partners (node, volume) of the process
    /// [`AxisCosts::begin`] started: its cost at node `b`. O(dimensions),
    /// plus O(distinct coordinates of the partners along k) per T_k[x]
    /// first made.
    #[inline]
    pub(super) fn cost(&mut self, dist: &Dist, b: usize) -> f64 {
        let nd = dist.nd;
        let cb = &dist.coords[b * nd..(b + 1) * nd];
        let mut s = 0.0;
        for k in 0..nd {
            let x = cb[k];
            let slot = &mut self.vals[self.start[k] + x as usize];
            if slot.0 != self.stamp {
                let (size, wrap) = (dist.dims[k], dist.wrap[k]);
                let mut t = 0.0;
                for &(y, c) in &self.hist[self.from[k]..self.from[k + 1]] {
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
