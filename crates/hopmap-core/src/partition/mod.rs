//! Graph partitioning: the reusable core of the recursive-bipartitioning
//! mappers (Scotch's dual recursive bipartitioning, Pellegrini; Moh et al.'s
//! BM, §4.2, which bisects both the process graph and the network).
//!
//! The one entry point is [`bisect()`]: split a weighted undirected graph
//! ([`WGraph`]) into two sides whose vertex weights fit two capacities, with
//! the smallest cost
//!
//! `cost = Σ_{cut edges} w(e) + Σ_v bias[v][side(v)]`
//!
//! where the optional per-vertex `bias` says how much it costs to put `v` on
//! side 0 or side 1 (the mapper uses it for the edges that leave the
//! subproblem: a process whose partners are already placed to the left pays
//! to go right). Without a bias this is the classic balanced min-cut
//! bisection. The method is multilevel ([`bisect()`] in `bisect.rs`):
//! heavy-edge matching coarsening, greedy graph growing from several seeds
//! on the coarsest graph, Fiduccia–Mattheyses refinement at every level of
//! the uncoarsening, and a final exact rebalancing pass.
//!
//! Balance: side `s` receives at most `caps[s]` vertex weight (hard), and
//! the split aims at the proportional share `W·caps[0]/(caps[0]+caps[1])`
//! (rounded either way; [`BisectParams::imbalance`] widens this window by a
//! fraction of `W`). With unit vertex weights the result is always inside
//! the window; with heavier vertices it is as close as moves of single
//! vertices allow.
//!
//! Using it from another mapper (e.g. BM on switch fabrics, Kernighan–Lin on
//! both graphs): build a [`WGraph`] of the processes (or of the network's
//! nodes with unit weights), call `bisect(&g, [cap0, cap1], None,
//! &BisectParams::default(), seed)` and read [`Bisection::side`]. Same input
//! and seed, same result.

//!
//! [`groups_of_size`] (`groups.rs`) is the other entry point: a
//! partition into groups of bounded size with METIS recursive bisection (Wu et al. §3.6), used
//! by the analytical mapper to fill multicore nodes.
//!
//! [`exact`] (`exact.rs`) bisects graphs of at most
//! [`BisectParams::exact`] vertices (8) exactly, by enumerating every side
//! assignment; [`bisect()`] hands them to it.
//!
//! [`gainheap::GainHeap`] (`gainheap.rs`) is the addressable max-heap of
//! move gains under the growing and the FM passes.
//!
//! [`maxcut::kl_max_cut`] (`maxcut.rs`) is the opposite objective:
//! Kernighan–Lin for the largest cut cost on a complete graph of distances,
//! the network side of Moh et al.'s BM (§4.2).

pub mod bisect;
pub mod exact;
pub mod gainheap;
pub mod groups;
pub mod maxcut;

pub use bisect::{BisectParams, Bisection, bisect};
pub use groups::{Groups, edge_cut, groups_of_size};

use crate::graph::CommGraph;

/// A weighted undirected graph in CSR form: every edge is stored in both
/// directions with the same weight; no self-loops.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WGraph {
    /// `xadj[u]..xadj[u+1]` indexes `adj`/`ew` for vertex `u`.
    pub xadj: Vec<usize>,
    pub adj: Vec<u32>,
    pub ew: Vec<f64>,
    /// Vertex weights (1 for a process).
    pub vw: Vec<f64>,
}

impl WGraph {
    pub fn n(&self) -> usize {
        self.vw.len()
    }
    #[inline]
    pub fn edges(&self, u: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let r = self.xadj[u]..self.xadj[u + 1];
        self.adj[r.clone()]
            .iter()
            .zip(&self.ew[r])
            .map(|(&v, &w)| (v as usize, w))
    }
    pub fn total_weight(&self) -> f64 {
        self.vw.iter().sum()
    }

    /// Build from undirected edges `(u, v, w)` listed once each (duplicates
    /// are summed, self-loops dropped). O(m log m).
    pub fn from_edges(vw: Vec<f64>, edges: &[(u32, u32, f64)]) -> Self {
        let n = vw.len();
        let mut deg = vec![0usize; n + 1];
        for &(u, v, _) in edges {
            if u != v {
                deg[u as usize] += 1;
                deg[v as usize] += 1;
            }
        }
        let mut xadj = vec![0usize; n + 1];
        for u in 0..n {
            xadj[u + 1] = xadj[u] + deg[u];
        }
        let mut fill = xadj.clone();
        let mut adj = vec![0u32; xadj[n]];
        let mut ew = vec![0f64; xadj[n]];
        for &(u, v, w) in edges {
            if u == v {
                continue;
            }
            for (a, b) in [(u, v), (v, u)] {
                let k = fill[a as usize];
                adj[k] = b;
                ew[k] = w;
                fill[a as usize] += 1;
            }
        }
        // Sort rows and merge duplicates.
        let mut out = WGraph {
            xadj: vec![0],
            adj: Vec::with_capacity(adj.len()),
            ew: Vec::with_capacity(adj.len()),
            vw,
        };
        let mut row: Vec<(u32, f64)> = Vec::new();
        for u in 0..n {
            row.clear();
            row.extend((xadj[u]..xadj[u + 1]).map(|k| (adj[k], ew[k])));
            row.sort_unstable_by_key(|&(v, _)| v);
            for &(v, w) in &row {
                if out.adj.len() > *out.xadj.last().unwrap_or(&0) && out.adj.last() == Some(&v) {
                    if let Some(l) = out.ew.last_mut() {
                        *l += w;
                    }
                } else {
                    out.adj.push(v);
                    out.ew.push(w);
                }
            }
            out.xadj.push(out.adj.len());
        }
        out
    }

    /// The subgraph of `g` induced by `procs` (vertex `i` of the result is
    /// process `procs[i]`), edge weight = pair volume, unit vertex weights.
    /// `local` must map every process to its index in `procs` or `u32::MAX`;
    /// it is only read. O(Σ deg).
    pub fn induced(g: &CommGraph, vol: &[f64], procs: &[u32], local: &[u32]) -> Self {
        let mut xadj = Vec::with_capacity(procs.len() + 1);
        xadj.push(0);
        let off = g.offsets();
        let room: usize = procs
            .iter()
            .map(|&p| off[p as usize + 1] - off[p as usize])
            .sum();
        let mut adj = Vec::with_capacity(room);
        let mut ew = Vec::with_capacity(room);
        for &p in procs {
            let p = p as usize;
            for (k, &v) in g.neighbors(p).iter().enumerate() {
                let l = local[v as usize];
                if l != u32::MAX {
                    adj.push(l);
                    ew.push(vol[off[p] + k]);
                }
            }
            xadj.push(adj.len());
        }
        WGraph {
            xadj,
            adj,
            ew,
            vw: vec![1.0; procs.len()],
        }
    }
}

/// Pair volume `c_uv = bytes(u→v) + bytes(v→u)` aligned with the CSR entries
/// of `g` (the weight the partitioner and the hop-bytes objective use).
pub fn pair_volumes(g: &CommGraph) -> Vec<f64> {
    let mut vol = Vec::with_capacity(g.num_entries());
    for u in 0..g.n() {
        for (&v, &s) in g.neighbors(u).iter().zip(g.sent_row(u)) {
            vol.push(s + g.sent_between(v as usize, u));
        }
    }
    vol
}
