//! A lower bound of hop-bytes for networks whose nodes (or switches) hold
//! several processes: it bounds the bytes that can stay inside a node by the
//! heaviest *group* each process could share a node with, instead of by its
//! heaviest partners one by one.
//!
//! **The bound.** Let `c` be the most processes that are pairwise 0 hops
//! apart ([`super::HopModel::group_slots`]: a node's cores on a mesh or
//! torus), `W(S)` the bytes between the processes of a set `S` (pair
//! volumes `c_uv`, both ways), and `M_k(u)` the most bytes inside a set of
//! at most `k` processes that contains `u` and is connected in the graph.
//!
//! *Claim: in any mapping, the bytes between processes 0 hops apart are at
//! most `Σ_u max_{1≤k≤c} M_k(u) / k`.* Split each group of processes that
//! are 0 hops apart (a node's) into the connected components `K` of the
//! graph restricted to it. Two processes of one group in different
//! components exchange nothing, so the bytes inside the groups are
//! `Σ_K W(K)`. A component of `k ≤ c` processes has
//! `W(K) = Σ_{u∈K} W(K) / k ≤ Σ_{u∈K} M_k(u) / k`, because `K` itself is
//! one of the sets `M_k(u)` ranges over. Summing over the components, every
//! process appears once.
//!
//! Every other byte travels at least `d₁` hops
//! ([`super::HopModel::min_hops`]), so
//!
//! ```text
//! hop-bytes ≥ (Σ bytes − Σ_u max_k M_k(u) / k) · d₁.
//! ```
//!
//! The larger of this and [`super::lower_bound`] is returned. It is stronger
//! where a process's heaviest partners cannot all share its node with each
//! other: on a 2D grid with 4 cores per node every process lies in a square
//! of 4 pairs, so at most one byte per process stays inside, which the
//! 2 × 2 block tiling reaches; the per-partner bound lets each process keep
//! its 3 heaviest partners.
//!
//! **Cost.** The connected sets of at most `c` processes are enumerated once
//! each (Wernicke's ESU, the set's least process as root; every set updates
//! `M_k` of its members), O(S · (c log d + d)) for S sets and largest
//! degree `d`.
//! S grows like `n · d^(c−1)`: when the stars alone (`Σ_u C(d(u), c − 1)`)
//! exceed [`MAX_STEPS`] it does not start, and the enumeration stops after
//! [`MAX_STEPS`] steps; then it returns `None`, as with one process per node
//! (nothing to add to [`super::lower_bound`]). Memory O(n · c + m).
//!
//! Beyond the seeds: the seeds' bound (Bhatele & Kale's hops per byte of 1)
//! counts every byte at one hop; this is a set-packing relaxation of the
//! intra-node bytes, in the spirit of the clique bounds of graph
//! partitioning.

use super::HopModel;
use crate::graph::CommGraph;
use crate::topology::Topology;

/// Most enumeration steps (sets extended) before giving up.
pub const MAX_STEPS: u64 = 4_000_000;

/// The node-group bound of hop-bytes (module doc), or `None` when nodes hold
/// one process, the group is larger than 16 processes, or the enumeration
/// would take more than [`MAX_STEPS`] steps.
pub fn node_group_bound(graph: &CommGraph, topo: &Topology) -> Option<f64> {
    let model = HopModel::of(topo);
    let c = model.group_slots.min(graph.n());
    if !(2..=16).contains(&c) {
        return None;
    }
    // The stars alone (a process and c − 1 of its partners) are
    // Σ_u C(d(u), c − 1) sets: above the budget, do not start.
    let stars: f64 = (0..graph.n())
        .map(|u| binomial(graph.neighbors(u).len(), c - 1))
        .sum();
    if stars > MAX_STEPS as f64 {
        return None;
    }
    let best = heaviest_groups(graph, c)?;
    let inside: f64 = best
        .iter()
        .map(|row| {
            row.iter()
                .enumerate()
                .map(|(k, &w)| w / (k + 1) as f64)
                .fold(0.0, f64::max)
        })
        .sum();
    let pairs: f64 = graph.pairs().map(|(_, _, c)| c).sum();
    let bound = (pairs - inside).max(0.0) * model.min_hops as f64;
    // Rounding in the sums must not lift it above an optimal mapping.
    Some((bound * (1.0 - 1e-9)).max(super::lower_bound(graph, topo)))
}

/// C(n, k) as a float.
fn binomial(n: usize, k: usize) -> f64 {
    (0..k.min(n + 1)).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// `M_k(u)` for k = 1..=c, as `best[u][k − 1]`: the most bytes inside a
/// connected set of at most `k` processes containing `u`. `None` after
/// [`MAX_STEPS`] steps.
fn heaviest_groups(graph: &CommGraph, c: usize) -> Option<Vec<Vec<f64>>> {
    let n = graph.n();
    let mut best = vec![vec![0.0f64; c]; n];
    let mut e = Esu {
        graph,
        volumes: (0..n)
            .map(|u| graph.edges_of(u).map(|(_, _, c)| c).collect())
            .collect(),
        c,
        best: &mut best,
        set: Vec::with_capacity(c),
        // How many members of the set are the process or its partners.
        near: vec![0u32; n],
        steps: 0,
    };
    for root in 0..n {
        e.add(root);
        let ext: Vec<usize> = graph
            .neighbors(root)
            .iter()
            .map(|&v| v as usize)
            .filter(|&v| v > root)
            .collect();
        let ok = e.extend(root, 0.0, ext);
        e.remove(root);
        if !ok {
            return None;
        }
    }
    // A set of at most k members is also one of at most k + 1.
    for row in best.iter_mut() {
        for k in 1..c {
            row[k] = row[k].max(row[k - 1]);
        }
    }
    Some(best)
}

/// Wernicke's enumeration of connected sets (ESU), with the set's bytes.
struct Esu<'a> {
    graph: &'a CommGraph,
    /// Pair volumes aligned with each process's partners.
    volumes: Vec<Vec<f64>>,
    c: usize,
    best: &'a mut Vec<Vec<f64>>,
    set: Vec<usize>,
    near: Vec<u32>,
    steps: u64,
}

impl Esu<'_> {
    fn add(&mut self, v: usize) {
        self.set.push(v);
        self.near[v] += 1;
        for &w in self.graph.neighbors(v) {
            self.near[w as usize] += 1;
        }
    }

    fn remove(&mut self, v: usize) {
        self.set.pop();
        self.near[v] -= 1;
        for &w in self.graph.neighbors(v) {
            self.near[w as usize] -= 1;
        }
    }

    /// Records the current set (bytes `w`), then extends it by each vertex
    /// of `ext` in turn. False when the step budget ran out.
    fn extend(&mut self, root: usize, w: f64, mut ext: Vec<usize>) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return false;
        }
        let k = self.set.len();
        for &u in &self.set {
            let slot = &mut self.best[u][k - 1];
            if w > *slot {
                *slot = w;
            }
        }
        if k == self.c {
            return true;
        }
        while let Some(v) = ext.pop() {
            // v's bytes with the set (its partners are sorted).
            let nb = self.graph.neighbors(v);
            let gain: f64 = self
                .set
                .iter()
                .filter_map(|&x| nb.binary_search(&(x as u32)).ok())
                .map(|i| self.volumes[v][i])
                .sum();
            // The exclusive neighbours of v: beyond the root, not in or next
            // to the set.
            let mut next = ext.clone();
            next.extend(
                self.graph
                    .neighbors(v)
                    .iter()
                    .map(|&x| x as usize)
                    .filter(|&x| x > root && self.near[x] == 0),
            );
            self.add(v);
            let ok = self.extend(root, w + gain, next);
            self.remove(v);
            if !ok {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn grid(w: usize, h: usize) -> CommGraph {
        let mut b = GraphBuilder::new(w * h, false);
        for y in 0..h {
            for x in 0..w {
                let u = y * w + x;
                if x + 1 < w {
                    b.add(u, u + 1, 1.0);
                }
                if y + 1 < h {
                    b.add(u, u + w, 1.0);
                }
            }
        }
        b.build().unwrap()
    }

    #[test]
    fn a_grid_in_square_blocks_of_four_reaches_the_tiling() {
        // 4 × 4 grid, 24 unit pairs, on a 2 × 2 mesh of 4-core nodes. Every
        // process lies in a 2 × 2 square (4 pairs inside), so at most
        // 16 · 4 / 4 = 16 bytes stay inside nodes and 8 travel: the 2 × 2
        // block tiling's hop-bytes. The per-partner bound gives 24 − 22 = 2.
        let g = grid(4, 4);
        let t = Topology::parse("mesh:2x2:cores=4").unwrap();
        assert_eq!(super::super::lower_bound(&g, &t), 2.0);
        let b = node_group_bound(&g, &t).unwrap();
        assert!((b - 8.0).abs() < 1e-6, "{b}");
    }

    #[test]
    fn small_components_are_charged_their_own_size() {
        // Path 0 — 1 — 2 — 3 (unit pairs) on two nodes of 3 cores: a set of
        // 3 holds 2 bytes, of 2 holds 1. max(M_1/1, M_2/2, M_3/3) = 2/3 for
        // each of the 4 processes, so at most 8/3 stay inside and the bound
        // is 3 − 8/3 = 1/3; the optimum ({0,1,2} and {3}) is 1. The
        // per-partner bound is 3 − (1 + 2 + 2 + 1)/2 = 0.
        let mut b = GraphBuilder::new(4, false);
        for u in 0..3 {
            b.add(u, u + 1, 1.0);
        }
        let g = b.build().unwrap();
        let t = Topology::parse("mesh:2:cores=3").unwrap();
        assert_eq!(super::super::lower_bound(&g, &t), 0.0);
        let b = node_group_bound(&g, &t).unwrap();
        assert!((b - 1.0 / 3.0).abs() < 1e-6, "{b}");
    }

    #[test]
    fn one_core_per_node_adds_nothing() {
        let t = Topology::parse("mesh:4x4").unwrap();
        assert_eq!(node_group_bound(&grid(4, 4), &t), None);
    }
}
