//! The block phase of [`Refine`] on hierarchical switch fabrics: exchanges
//! of the whole contents of two congruent subtrees of the machine (two
//! hosts, two leaf switches' hosts, two pods), evaluated exactly on
//! hop-bytes.
//!
//! The machine's hierarchy is read from its host distances: when they form
//! an ultrametric (d(a, c) ≤ max(d(a, b), d(b, c)) for every three hosts,
//! as on a fat tree, where two hosts are 0 switch hops apart under one
//! leaf switch, 2 in one pod and 4 across pods), the hosts within each
//! distance r of one another form a partition for every r, and these
//! partitions nest: level 0 is the single hosts, level k the clusters at
//! the k-th smallest distance (leaf switches, then pods, …), below the one
//! cluster of every host ([`Hierarchy::of`]; O(hosts² · distances) distance
//! calls, and nothing when the distances are not an ultrametric).
//!
//! A move exchanges the contents of two clusters of one level that hold
//! the same number of hosts and lie under different parents (two
//! siblings are the same distance from every other host, so exchanging
//! them changes nothing): the i-th host of one, in an order where every
//! cluster of every level is contiguous, takes the contents of the i-th
//! host of the other (every process keeps its core), so the two subtrees'
//! inner placements move as they are. The units are the hosts' contents at
//! the phase's start (the processes of one host stay together), joined by
//! their summed pair volumes; a move's change of hop-bytes is the sum over
//! the units on the two clusters of their volume to each partner times the
//! change of distance, O(Σ degree of those units). Each step evaluates
//! every move of every level and applies the one that lowers hop-bytes
//! most (ties: the first, finest level first), so the phase is
//! deterministic; it stops when no move lowers hop-bytes, or after
//! [`MAX_MOVES_PER_HOST`] × hosts moves. When no single move lowers
//! hop-bytes, the best pair of moves on disjoint hosts is applied if it
//! does ([`super::block_pairs`]; on large networks in the polish only,
//! [`Blocks::pairs`]). A step costs O(Σ_levels
//! (clusters²) · cluster size · unit degree), at most O(hosts² · unit
//! degree) per level, against a table of the hosts' distances built at the
//! start (hosts² entries of 2 bytes, at most 512 KiB at [`MAX_HOSTS`]): on
//! `fattree:4:3:cores=4` (16 hosts) a few thousand look-ups. Each move
//! then recomputes hop-bytes and the search's cost cache, O(m).
//!
//! Beyond the seeds: the process-level search moves one or two processes
//! at a time, and on a fat tree its local optima can differ from a better
//! mapping only by which leaves share a pod, which no exchange of two
//! processes, nor of two hosts' contents, improves, while the exchange of
//! two leaves' contents across pods, then of two hosts', does (NWChem's
//! 64-rank capture on `fattree:4:3:cores=4`: `docs/mapping-quality.md`,
//! "Exchanges of whole subtrees on fat trees"). SharedMap (Schulz &
//! Woydt) builds its mapping top-down by hierarchical multisection; these
//! moves let a bottom-up mapping revise its coarse levels afterwards.

use super::{Dist, FREE, Refine, RefineStop};
use crate::graph::CommGraph;
use crate::topology::Topology;

/// Largest network (hosts) the phase runs on.
pub const MAX_HOSTS: usize = 512;
/// The phase stops after this many moves per host (each lowers hop-bytes,
/// so it ends anyway; the cap bounds its time).
pub const MAX_MOVES_PER_HOST: usize = 4;

/// The nested clusters of hosts of an ultrametric network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hierarchy {
    /// The hosts in an order where every cluster of every level is
    /// contiguous.
    pub order: Vec<u32>,
    /// Per level, finest (single hosts) first: cluster k is
    /// `order[start[k]..start[k + 1]]`.
    pub start: Vec<Vec<u32>>,
    /// Per level: each cluster's parent cluster at the next level (all 0
    /// at the coarsest level, whose parent is the whole network).
    pub parent: Vec<Vec<u32>>,
}

impl Hierarchy {
    /// The hierarchy of the hosts of `topo`, when it is a switch fabric of
    /// 4 to [`MAX_HOSTS`] hosts whose distances (`dist`) form an
    /// ultrametric with at least two distinct values between distinct
    /// hosts. O(hosts² · distinct distances) distance calls.
    pub fn of(topo: &Topology, dist: &Dist) -> Option<Hierarchy> {
        topo.as_fabric()?;
        let h = topo.num_nodes();
        if !(4..=MAX_HOSTS).contains(&h) {
            return None;
        }
        let mut radii: Vec<u32> = Vec::new();
        for a in 0..h {
            for b in a + 1..h {
                let d = dist.get(a, b);
                if let Err(i) = radii.binary_search(&d) {
                    radii.insert(i, d);
                }
            }
        }
        if radii.len() < 2 {
            return None;
        }
        // Cluster ids per level: level 0 the hosts themselves, then one
        // level per radius below the largest (the largest joins all).
        let mut ids: Vec<Vec<u32>> = vec![(0..h as u32).collect()];
        for &r in &radii[..radii.len() - 1] {
            // Union-find over the pairs within r.
            let mut up: Vec<u32> = (0..h as u32).collect();
            fn find(up: &mut [u32], mut x: u32) -> u32 {
                while up[x as usize] != x {
                    up[x as usize] = up[up[x as usize] as usize];
                    x = up[x as usize];
                }
                x
            }
            let mut within = 0usize;
            for a in 0..h {
                for b in a + 1..h {
                    if dist.get(a, b) <= r {
                        within += 1;
                        let (x, y) = (find(&mut up, a as u32), find(&mut up, b as u32));
                        if x != y {
                            up[x.max(y) as usize] = x.min(y);
                        }
                    }
                }
            }
            let root: Vec<u32> = (0..h as u32).map(|x| find(&mut up, x)).collect();
            let mut size = vec![0usize; h];
            for &x in &root {
                size[x as usize] += 1;
            }
            // Ultrametric at r: every two hosts of a component are within r.
            if size
                .iter()
                .map(|&s| s * s.saturating_sub(1) / 2)
                .sum::<usize>()
                != within
            {
                return None;
            }
            if *ids.last()? != root {
                ids.push(root);
            }
        }
        // Coarsest level first in the key, so that every cluster of every
        // level is contiguous.
        let mut order: Vec<u32> = (0..h as u32).collect();
        order.sort_by_key(|&x| {
            ids.iter()
                .rev()
                .map(|l| l[x as usize])
                .collect::<Vec<u32>>()
        });
        let mut start = Vec::with_capacity(ids.len());
        let mut parent = Vec::with_capacity(ids.len());
        for (k, l) in ids.iter().enumerate() {
            let mut s = Vec::new();
            let mut par = Vec::new();
            for (i, &x) in order.iter().enumerate() {
                if i == 0 || l[x as usize] != l[order[i - 1] as usize] {
                    s.push(i as u32);
                    par.push(ids.get(k + 1).map_or(0, |up| up[x as usize]));
                }
            }
            s.push(h as u32);
            // Parents as cluster indices of the next level.
            if let Some(up) = ids.get(k + 1) {
                let mut first: Vec<u32> = Vec::new();
                let mut index = vec![0u32; h];
                for (i, &x) in order.iter().enumerate() {
                    let id = up[x as usize];
                    if i == 0 || id != up[order[i - 1] as usize] {
                        index[id as usize] = first.len() as u32;
                        first.push(id);
                    }
                }
                for p in par.iter_mut() {
                    *p = index[*p as usize];
                }
            }
            start.push(s);
            parent.push(par);
        }
        Some(Hierarchy {
            order,
            start,
            parent,
        })
    }

    /// The hosts of cluster `k` of level `l`, in the hierarchy's order.
    pub(super) fn cluster(&self, l: usize, k: usize) -> &[u32] {
        &self.order[self.start[l][k] as usize..self.start[l][k + 1] as usize]
    }
}

/// The state of the block phase.
pub struct Blocks {
    pub(super) hier: Hierarchy,
    /// The units (the hosts' contents at the start, numbered by that host)
    /// and their summed pair volumes: unit u's partners are
    /// `unbr[uoff[u]..uoff[u + 1]]`, volumes `uw[…]`.
    pub(super) uoff: Vec<u32>,
    pub(super) unbr: Vec<u32>,
    pub(super) uw: Vec<f64>,
    /// The host each unit is on now, and the unit on each host.
    pub(super) at: Vec<u32>,
    pub(super) unit_on: Vec<u32>,
    /// The hosts' distances, `dist[a * hosts + b]` (hosts ≤ [`MAX_HOSTS`]).
    pub(super) dist: Vec<u16>,
    /// Scratch: where each host's contents go in the move being
    /// evaluated (itself for hosts outside it), and whether it is in it.
    pub(super) perm: Vec<u32>,
    pub(super) inside: Vec<bool>,
    /// Moves below this are rounding noise.
    pub(super) eps: f64,
    /// Whether pairs of moves are tried ([`super::block_pairs`]): in the
    /// polish, and in a run stopped with its search on networks of at
    /// most [`super::block_pairs::RUN_PAIR_HOSTS`] hosts.
    pub pairs: bool,
    moves: usize,
    max_moves: usize,
    done: bool,
    /// Why the search before the phase stopped.
    pub why: RefineStop,
}

impl Blocks {
    /// The phase for `graph` (pair volumes `vol`) placed with `node_of`
    /// on the hosts of `hier`, distances `dist`. O(m log m + hosts²).
    pub fn new(
        dist: &Dist,
        graph: &CommGraph,
        vol: &[f64],
        node_of: &[u32],
        hier: Hierarchy,
        why: RefineStop,
    ) -> Blocks {
        let h = hier.order.len();
        let off = graph.offsets();
        let mut pairs: Vec<(u32, u32, f64)> = Vec::new();
        for p in 0..graph.n() {
            let a = node_of[p];
            for (k, &v) in graph.neighbors(p).iter().enumerate() {
                let b = node_of[v as usize];
                if (v as usize) > p && a != b {
                    pairs.push((a, b, vol[off[p] + k]));
                    pairs.push((b, a, vol[off[p] + k]));
                }
            }
        }
        // Stable: equal pairs keep the graph's order, so the sums do too.
        pairs.sort_by_key(|&(a, b, _)| (a, b));
        let mut uoff = vec![0u32; h + 1];
        let mut unbr = Vec::new();
        let mut uw: Vec<f64> = Vec::new();
        let mut total = 0.0;
        for (i, &(a, b, w)) in pairs.iter().enumerate() {
            total += w;
            if i > 0 && pairs[i - 1].0 == a && pairs[i - 1].1 == b {
                if let Some(x) = uw.last_mut() {
                    *x += w;
                }
            } else {
                unbr.push(b);
                uw.push(w);
                uoff[a as usize + 1] += 1;
            }
        }
        for u in 0..h {
            uoff[u + 1] += uoff[u];
        }
        let mut table = Vec::with_capacity(h * h);
        for a in 0..h {
            table.extend((0..h).map(|b| dist.get(a, b).min(u16::MAX as u32) as u16));
        }
        Blocks {
            hier,
            dist: table,
            uoff,
            unbr,
            uw,
            at: (0..h as u32).collect(),
            unit_on: (0..h as u32).collect(),
            perm: (0..h as u32).collect(),
            inside: vec![false; h],
            eps: 1e-12 * total.max(1.0),
            moves: 0,
            max_moves: MAX_MOVES_PER_HOST * h,
            pairs: true,
            done: false,
            why,
        }
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Moves applied so far.
    pub fn moves(&self) -> usize {
        self.moves
    }

    /// The change of hop-bytes of exchanging the contents of hosts `x[i]`
    /// and `y[i]` for every i (`perm`, `inside`: the scratch rows, left as
    /// they were found). O(Σ degree of the units on them).
    pub(super) fn delta(&self, perm: &mut [u32], inside: &mut [bool], x: &[u32], y: &[u32]) -> f64 {
        let h = self.unit_on.len();
        for (&a, &b) in x.iter().zip(y) {
            perm[a as usize] = b;
            perm[b as usize] = a;
            inside[a as usize] = true;
            inside[b as usize] = true;
        }
        let mut s = 0.0;
        for &a in x.iter().chain(y) {
            let a = a as usize;
            let u = self.unit_on[a] as usize;
            let pa = perm[a] as usize;
            for k in self.uoff[u] as usize..self.uoff[u + 1] as usize {
                let b = self.at[self.unbr[k] as usize] as usize;
                if inside[b] && b < a {
                    continue;
                }
                let pb = perm[b] as usize;
                s += self.uw[k] * (self.dist[pa * h + pb] as f64 - self.dist[a * h + b] as f64);
            }
        }
        for &a in x.iter().chain(y) {
            perm[a as usize] = a;
            inside[a as usize] = false;
        }
        s
    }

    /// Exchange, in the phase's own state, the units on hosts `x[i]` and
    /// `y[i]` for every i (its own inverse). O(|x|).
    pub(super) fn swap_units(&mut self, x: &[u32], y: &[u32]) {
        for (&a, &b) in x.iter().zip(y) {
            let (ua, ub) = (self.unit_on[a as usize], self.unit_on[b as usize]);
            self.unit_on[a as usize] = ub;
            self.unit_on[b as usize] = ua;
            self.at[ua as usize] = b;
            self.at[ub as usize] = a;
        }
    }

    /// Every move the single search tries, in its order: two clusters of
    /// one level with as many hosts, under different parents, not both
    /// silent. O(Σ_levels clusters² · cluster size).
    pub(super) fn all_moves(&self) -> Vec<super::block_pairs::Move> {
        let mut out = Vec::new();
        for l in 0..self.hier.start.len() {
            let k = self.hier.start[l].len() - 1;
            for i in 0..k {
                for j in i + 1..k {
                    if self.hier.parent[l][i] == self.hier.parent[l][j] {
                        continue;
                    }
                    let (x, y) = (self.hier.cluster(l, i), self.hier.cluster(l, j));
                    if x.len() != y.len() || (self.silent(x) && self.silent(y)) {
                        continue;
                    }
                    out.push((l, i, j));
                }
            }
        }
        out
    }

    /// Whether no unit on the hosts `c` has a partner.
    pub(super) fn silent(&self, c: &[u32]) -> bool {
        c.iter().all(|&a| {
            let u = self.unit_on[a as usize] as usize;
            self.uoff[u] == self.uoff[u + 1]
        })
    }

    /// The best move of every level: (Δ hop-bytes, level, cluster, cluster),
    /// when one lowers hop-bytes.
    fn best_move(&mut self) -> Option<(f64, usize, usize, usize)> {
        let mut perm = std::mem::take(&mut self.perm);
        let mut inside = std::mem::take(&mut self.inside);
        let mut best: Option<(f64, usize, usize, usize)> = None;
        for (l, i, j) in self.all_moves() {
            let (x, y) = (self.hier.cluster(l, i), self.hier.cluster(l, j));
            let d = self.delta(&mut perm, &mut inside, x, y);
            if d < -self.eps && best.is_none_or(|b| d < b.0) {
                best = Some((d, l, i, j));
            }
        }
        self.perm = perm;
        self.inside = inside;
        best
    }

    /// One step: find the best move and, if it lowers hop-bytes, return
    /// the host pairs whose contents are to be exchanged, in order (and
    /// record the move); when none does, the best pair of moves
    /// ([`super::block_pairs`]) the same way; otherwise the phase is done.
    pub fn step(&mut self) -> Option<Vec<(u32, u32)>> {
        if self.done {
            return None;
        }
        let chosen: Vec<(usize, usize, usize)> = match self.best_move() {
            Some((_, l, i, j)) => vec![(l, i, j)],
            None => match if self.pairs { self.best_pair() } else { None } {
                Some((_, x, y)) => vec![x, y],
                None => {
                    self.done = true;
                    return None;
                }
            },
        };
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for &(l, i, j) in &chosen {
            let x = self.hier.cluster(l, i).to_vec();
            let y = self.hier.cluster(l, j).to_vec();
            self.swap_units(&x, &y);
            pairs.extend(x.into_iter().zip(y));
        }
        self.moves += chosen.len();
        if self.moves >= self.max_moves {
            self.done = true;
        }
        Some(pairs)
    }
}

impl Refine {
    /// The block phase for the current mapping, when the network has a
    /// hierarchy ([`Hierarchy::of`]).
    pub(super) fn start_blocks(&self, why: RefineStop) -> Option<Blocks> {
        let hier = Hierarchy::of(&self.topo, &self.dist)?;
        let mut b = Blocks::new(&self.dist, &self.graph, &self.vol, &self.node_of, hier, why);
        // Pairs of moves in every run on small networks; on larger ones
        // (where a pair search costs more) only where the mapping is
        // polished, since the runs' phases only rank the runs.
        b.pairs = !self.search_only || self.topo.num_nodes() <= super::block_pairs::RUN_PAIR_HOSTS;
        Some(b)
    }

    /// One step of the block phase: apply its move, if any (the processes
    /// exchanged go to `last`); whether the phase is over.
    pub(super) fn blocks_step(&mut self, b: &mut Blocks) -> bool {
        let Some(pairs) = b.step() else {
            return true;
        };
        let c = self.cores;
        // Moved without `apply`: the search's memo no longer holds.
        self.after_memo = Default::default();
        for (x, y) in pairs {
            let (x, y) = (x as usize, y as usize);
            for k in 0..c {
                let (sx, sy) = (x * c + k, y * c + k);
                let (px, py) = (self.owner[sx], self.owner[sy]);
                self.owner[sx] = py;
                self.owner[sy] = px;
                for (p, s) in [(px, sy), (py, sx)] {
                    if p != FREE {
                        let p = p as usize;
                        self.node_of[p] = (s / c) as u32;
                        self.placement[p] = Some(s as u32);
                    }
                }
                match (px, py) {
                    (FREE, FREE) => {}
                    (FREE, q) | (q, FREE) => self.last.push((q as usize, q as usize)),
                    (p, q) => self.last.push((p as usize, q as usize)),
                }
            }
        }
        self.cost = (0..self.graph.n()).map(|p| self.cost_of(p)).collect();
        self.hb = self.total_hop_bytes();
        b.is_done()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn hier(spec: &str) -> Option<Hierarchy> {
        let t = Arc::new(Topology::parse(spec).unwrap());
        let d = Dist::new(t.clone());
        Hierarchy::of(&t, &d)
    }

    #[test]
    fn a_fat_trees_hosts_nest_in_leaves_and_pods() {
        // fattree:4:3: 16 hosts, 2 per leaf switch, 2 leaves per pod.
        let h = hier("fattree:4:3:cores=4").unwrap();
        assert_eq!(h.start.len(), 3, "hosts, leaves, pods");
        assert_eq!(h.start[0].len() - 1, 16);
        assert_eq!(h.start[1].len() - 1, 8);
        assert_eq!(h.start[2].len() - 1, 4);
        let t = Topology::parse("fattree:4:3").unwrap();
        for k in 0..8 {
            let c = h.cluster(1, k);
            assert_eq!(c.len(), 2);
            assert_eq!(t.distance(c[0] as usize, c[1] as usize), 0);
        }
        for k in 0..4 {
            let c = h.cluster(2, k);
            assert_eq!(c.len(), 4);
            for &a in c {
                for &b in c {
                    assert!(t.distance(a as usize, b as usize) <= 2);
                }
            }
            // The pod's two leaves are its children.
            let kids: Vec<usize> = (0..8).filter(|&i| h.parent[1][i] as usize == k).collect();
            assert_eq!(kids.len(), 2);
        }
        // Meshes and tori are left out.
        assert!(hier("torus:4x4").is_none());
    }

    #[test]
    fn exchanging_leaves_across_pods_pairs_the_pairs_that_talk() {
        // fattree:4:3 with one core per host: 16 hosts, 2 per leaf switch
        // (0 switch hops apart), 2 leaves per pod (2 hops), 4 pods (4 hops
        // apart). Process p starts on host p. Pairs P_i = {2i, 2i + 1}
        // exchange 100 bytes each and fill one leaf; P0–P2, P1–P3, P4–P6
        // and P5–P7 exchange 10 bytes on each of two edges (2i–2j and
        // 2i+1–2j+1), but start in different pods: 4 × 2 × 10 × 4 = 320
        // hop-bytes. Any exchange of two processes on different leaves
        // splits a pair (+200 at least, for at most 80 saved), so the
        // search and the descent keep the start. Exchanging two leaves'
        // contents across pods (P1 with P2, then P5 with P6, or the like)
        // brings each talking pair of pairs into one pod: 4 × 2 × 10 × 2 =
        // 160, the least possible (a leaf holds only one pair).
        let t = Arc::new(Topology::parse("fattree:4:3").unwrap());
        for p in 0..16 {
            for q in 0..16 {
                let want = if p / 2 == q / 2 {
                    0
                } else if p / 4 == q / 4 {
                    2
                } else {
                    4
                };
                assert_eq!(t.distance(p, q), want, "hosts {p}, {q}");
            }
        }
        let mut b = crate::graph::GraphBuilder::new(16, false);
        for i in 0..8 {
            b.add(2 * i, 2 * i + 1, 100.0);
        }
        for (i, j) in [(0, 2), (1, 3), (4, 6), (5, 7)] {
            b.add(2 * i, 2 * j, 10.0);
            b.add(2 * i + 1, 2 * j + 1, 10.0);
        }
        let g = Arc::new(b.build().unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let params = super::super::RefineParams {
            objective: super::super::Objective::HopBytes,
            sweeps: 100,
            batch: 16,
            depth: 2,
            time: None,
            seed: 1,
            tol: 0.0,
            load_budget: 0.0,
            tabu: 0,
            kicks: crate::mappers::recursive::refine::kicks::KICKS_PER_PROCESS,
        };
        let start = crate::mapping::Mapping::new((0..16).collect(), vec![0; 16]);
        let mut r = Refine::new(g, t, vol, start, params);
        assert_eq!(r.hop_bytes(), 320.0);
        while !r.is_done() {
            r.step();
        }
        assert_eq!(r.total_hop_bytes(), 160.0);
        assert_eq!(r.hop_bytes(), 160.0);
        assert_eq!(r.blocks_phase(), Some(2), "two leaf exchanges");
        // Every pair still shares a leaf; each talking pair of pairs a pod.
        let m = r.mapping();
        for i in 0..8 {
            assert_eq!(m.node[2 * i] / 2, m.node[2 * i + 1] / 2);
        }
        for (i, j) in [(0, 2), (1, 3), (4, 6), (5, 7)] {
            assert_eq!(m.node[2 * i] / 4, m.node[2 * j] / 4);
        }
    }
}
