//! The tabu phase of [`Refine`] on small inputs: robust tabu search for the
//! quadratic assignment problem (Taillard, "Robust taboo search for the
//! quadratic assignment problem", Parallel Computing 17, 1991) with
//! hop-bytes as the objective.
//!
//! The units are the network's slots' occupants: the n processes, and one
//! dummy unit (no traffic) per free slot, so a swap with a dummy is a move
//! into a free core. A move swaps two units on different nodes (two units
//! on one node, or two dummies, never change hop-bytes). The change of
//! every move is kept in a matrix, `Δ(r, s) = Σ_k (c_rk − c_sk) · (d(φs, φk)
//! − d(φr, φk))` over the processes k ≠ r, s (c the pair volumes, d the
//! hop distance, φ the node of a unit), and after the swap of u and v
//! updated in O(1) per pair disjoint from {u, v} by Taillard's formula for
//! symmetric flows and distances, `Δ(r, s) += (f_r − f_s) · (g_r − g_s)`
//! with `f_k = c_uk − c_vk` and `g_k = d(φv, φk) − d(φu, φk)` at the new
//! positions. The pairs that contain u or v are recomputed in O(1) each
//! from a cost table `C(p, x) = Σ_k c_pk · d(x, φk)` (p's cost were it on
//! node x; `Δ(r, s) = C(r, φs) − C(r, φr) + C(s, φr) − C(s, φs) + 2 c_rs
//! d(φr, φs)`), which a swap updates in O((deg u + deg v) · nodes) — Taillard
//! recomputes them in O(n) each.
//! Each iteration takes the best move that is not tabu (ties: the first),
//! or a tabu one that gives a new best (aspiration), or one whose tabu is
//! older than 5 N² iterations (Taillard's long-term aspiration). After a
//! swap the two units may not return to their old nodes for `t`
//! iterations, `t` drawn uniformly in [0.9 N, 1.1 N] every 2.2 N
//! iterations (N = units).
//!
//! Beyond Taillard: the cost table above; the tabu list is kept per unit
//! and node (not slot), so
//! that the cores of one node count as one location; a move between nodes
//! 0 hops apart (one node, or two hosts on one switch of a fabric) is never
//! tried (on a fat tree those zero moves are the least non-improving ones,
//! and the search would wander among them instead of climbing out); and on
//! meshes and tori, of the mappings at the best hop-bytes found the one of
//! least max link load under dimension-order routing is kept (each time the
//! search returns to the best hop-bytes, the mapping's loads are routed,
//! O(m · route length), while that routing has cost at most
//! 1/[`ROUTE_SHARE`] of the search's own pair updates so far: on a dense
//! graph, where the search returns to its best nearly every iteration and
//! one routing costs more than an iteration, it took two thirds of the
//! time). The result replaces the phase's start only when
//! its hop-bytes are lower, or equal with a lower max link load: the phase
//! never raises hop-bytes, and never raises the max link load unless
//! hop-bytes fall.
//!
//! Cost: O(N²) per iteration (scan and update; the cost table's update is
//! at most O(n · nodes)), O(N²) memory; the table and the deltas are
//! recomputed from scratch every [`RESYNC`] × N iterations (O(m · nodes +
//! N²)) and hop-bytes before a new best is believed (O(m)), so that
//! rounding does not drift. It runs on inputs of at most
//! [`MAX_PROCESSES`] processes on meshes and tori of at most [`MAX_SLOTS`] slots,
//! `tabu` × n iterations (the `tabu` parameter of `recursive+refine`;
//! [`iterations`] for `auto`), or until its best meets the plain lower
//! bound of [`crate::hop_bound`].

use super::{FREE, Refine, RefineStop};
use crate::graph::CommGraph;
use crate::rng::Rng;
use crate::routing::Routing;
use crate::topology::Topology;
use std::sync::Arc;

/// Largest input the phase runs on.
pub const MAX_PROCESSES: usize = 256;
/// Largest network (slots) the phase runs on: one unit per slot.
pub const MAX_SLOTS: usize = 512;
/// The deltas are recomputed from scratch every this many × N iterations.
pub const RESYNC: usize = 8;
/// The load tie-break's routing (channel updates) is at most this
/// fraction's inverse of the pair updates made: 4 lets it route at every
/// return to the best on sparse graphs (6–26 partners: a routing costs
/// less than a quarter of an iteration), and keeps it to a fifth of the
/// time on a complete graph of 128 processes on 8 × 8 × 8.
pub const ROUTE_SHARE: u64 = 4;
/// Work (pair updates) per step, about a millisecond.
const WORK_PER_STEP: usize = 1 << 20;
/// `tabu=auto`: iterations per run such that they make about this many
/// pair updates (n · N each), at most [`AUTO_MAX_PER_PROCESS`] per process:
/// 64 per process at 64 processes on 64 slots (about 30 ms a run), 4 per
/// process at 256 on 256 (about 0.1 s a run). Measured on the 64-rank
/// captures (`docs/mapping-quality.md`): 4 or 16 per process leave
/// OpenFOAM's pitzDaily on the 8 × 8 mesh at 0.84 × gmap's hop-bytes, 64
/// reach 0.77.
pub const AUTO_WORK: u64 = 1 << 26;
/// `tabu=auto`: at most this many iterations per process.
pub const AUTO_MAX_PER_PROCESS: u64 = 64;
/// The value of `RefineParams::tabu` that stands for `auto`.
pub const AUTO: usize = usize::MAX;

/// The iterations of a run: `per_process` × n, or for [`AUTO`] the
/// automatic budget on n processes and `slots` slots.
pub fn iterations(per_process: usize, n: usize, slots: usize) -> u64 {
    if per_process == AUTO {
        (AUTO_WORK / (n as u64 * slots as u64).max(1)).min(AUTO_MAX_PER_PROCESS * n as u64)
    } else {
        (per_process as u64).saturating_mul(n as u64)
    }
}

/// Whether the phase runs on `n` processes on `topo`: meshes and tori of
/// at most [`MAX_SLOTS`] slots, and switch fabrics of at most that many
/// and at most twice `n` (a job that fills at least half the fabric).
///
/// On fabrics the search runs without the load tie-break: it would route
/// the whole mapping each time the search comes back to its best
/// hop-bytes, which a fabric's few distinct distances make frequent, and a
/// fabric route (split over the legal shortest routes) is a search of its
/// own; the bottleneck phase after it relieves the busiest link. A job on
/// a small part of a fabric is left out: the free slots are units of the
/// search (LAMMPS peptide, 200 ranks on the 512 slots of
/// `fattree:8:3:cores=4`: 1.9 s of CPU instead of 0.35 s, for 5 % fewer
/// hop-bytes).
pub fn applies(n: usize, topo: &Topology) -> bool {
    (2..=MAX_PROCESSES).contains(&n)
        && topo.num_slots() <= MAX_SLOTS
        && (matches!(topo, Topology::Grid(_)) || topo.num_slots() <= 2 * n)
}

/// The state of a tabu search over the slots' occupants.
pub struct Tabu {
    /// Why the search before this phase stopped.
    pub(super) why: RefineStop,
    graph: Arc<CommGraph>,
    topo: Arc<Topology>,
    /// Processes (units 0..n) and units (processes and dummies, N).
    n: usize,
    units: usize,
    nodes: usize,
    cores: usize,
    /// Pair volumes, n rows × N columns (dummies' columns are zero), and
    /// the same as adjacency lists (CSR).
    flow: Vec<f64>,
    adj_off: Vec<usize>,
    adj: Vec<u32>,
    adj_w: Vec<f64>,
    /// The cost table: Σ_k c_pk · d(x, φk) at p · nodes + x.
    cm: Vec<f64>,
    /// Node distances, nodes × nodes.
    dn: Vec<f64>,
    /// Slot of each unit, and its node.
    loc: Vec<u32>,
    nl: Vec<u32>,
    /// Δ(r, s) at r · N + s, r < s, r < n.
    delta: Vec<f64>,
    /// Iteration until which unit u may not go back to node b: u · nodes + b.
    tabu: Vec<u64>,
    iter: u64,
    iters: u64,
    tenure: u64,
    next_draw: u64,
    rng: Rng,
    cur: f64,
    eps: f64,
    /// The plain lower bound ([`crate::hop_bound::lower_bound`]): the
    /// search stops when its best meets it.
    bound: f64,
    /// The start's hop-bytes and max link load.
    start: (f64, f64),
    /// The best mapping found (slots of the units), its hop-bytes and (once
    /// routed) its max link load.
    best_loc: Vec<u32>,
    best: f64,
    best_load: Option<f64>,
    /// New bests found (hop-bytes lower than every earlier mapping).
    pub(super) improvements: usize,
    /// Whether mappings at the best hop-bytes are told apart by their max
    /// link load (meshes and tori; not switch fabrics, see [`applies`]).
    tie_break: bool,
    /// Channel updates (and channels cleared) by the load tie-break so far.
    routed: u64,
    /// Scratch: channel loads, and the two vectors of the update.
    loads: Vec<f64>,
    f: Vec<f64>,
    g: Vec<f64>,
}

impl Tabu {
    /// Set up from the slots of the n processes (`slot_of`, distinct) for
    /// `iters` iterations: O(N² · n) for the deltas, O(m · route length)
    /// for the start's max link load. `vol` holds the pair volumes in the
    /// graph's adjacency order ([`crate::partition::pair_volumes`]).
    pub fn new(
        graph: Arc<CommGraph>,
        topo: Arc<Topology>,
        vol: &[f64],
        dist: &super::Dist,
        slot_of: &[u32],
        iters: u64,
        seed: u64,
    ) -> Self {
        let n = graph.n();
        let units = topo.num_slots();
        let nodes = topo.num_nodes();
        let cores = topo.cores();
        let mut flow = vec![0.0; n * units];
        let off = graph.offsets();
        for p in 0..n {
            for (k, &v) in graph.neighbors(p).iter().enumerate() {
                flow[p * units + v as usize] += vol[off[p] + k];
            }
        }
        let mut dn = vec![0.0; nodes * nodes];
        for a in 0..nodes {
            for b in 0..nodes {
                dn[a * nodes + b] = dist.get(a, b) as f64;
            }
        }
        let mut loc = slot_of.to_vec();
        let mut used = vec![false; units];
        for &s in slot_of {
            used[s as usize] = true;
        }
        loc.extend((0..units as u32).filter(|&s| !used[s as usize]));
        let nl = loc.iter().map(|&s| s / cores as u32).collect();
        let mut t = Tabu {
            why: RefineStop::LocalOptimum,
            n,
            units,
            nodes,
            cores,
            flow,
            adj_off: off.to_vec(),
            adj: graph.targets().to_vec(),
            adj_w: vol.to_vec(),
            cm: vec![0.0; n * nodes],
            dn,
            nl,
            delta: vec![0.0; n * units],
            tabu: vec![0; units * nodes],
            iter: 0,
            iters,
            tenure: 0,
            next_draw: 0,
            rng: Rng::new(seed ^ 0x7461_6275),
            cur: 0.0,
            eps: 1e-9 * graph.total_bytes().max(1.0),
            bound: crate::hop_bound::lower_bound(&graph, &topo),
            start: (0.0, 0.0),
            best_loc: loc.clone(),
            loc,
            best: 0.0,
            best_load: None,
            improvements: 0,
            tie_break: matches!(*topo, Topology::Grid(_)),
            routed: 0,
            loads: vec![0.0; topo.channel_slots()],
            f: vec![0.0; units],
            g: vec![0.0; units],
            graph,
            topo,
        };
        t.resync();
        let load = t.max_load(&t.loc.clone());
        t.start = (t.cur, load);
        t.best = t.cur;
        t.best_load = Some(load);
        t
    }

    #[inline]
    fn d(&self, a: usize, b: usize) -> f64 {
        self.dn[self.nl[a] as usize * self.nodes + self.nl[b] as usize]
    }

    /// Δ(r, s) from the cost table. O(1).
    #[inline]
    fn compute(&self, r: usize, s: usize) -> f64 {
        let (nr, ns) = (self.nl[r] as usize, self.nl[s] as usize);
        let nn = self.nodes;
        let mut d = 0.0;
        if r < self.n {
            d += self.cm[r * nn + ns] - self.cm[r * nn + nr];
            if s < self.n {
                d += 2.0 * self.flow[r * self.units + s] * self.dn[nr * nn + ns];
            }
        }
        if s < self.n {
            d += self.cm[s * nn + nr] - self.cm[s * nn + ns];
        }
        d
    }

    /// Hop-bytes, the cost table and every delta from scratch. O(m · nodes
    /// + N²).
    fn resync(&mut self) {
        let (nu, n, nn) = (self.units, self.n, self.nodes);
        self.cm.iter_mut().for_each(|c| *c = 0.0);
        for p in 0..n {
            let row = &mut self.cm[p * nn..(p + 1) * nn];
            for e in self.adj_off[p]..self.adj_off[p + 1] {
                let (k, w) = (self.adj[e] as usize, self.adj_w[e]);
                let nk = self.nl[k] as usize;
                let dk = &self.dn[nk * nn..(nk + 1) * nn];
                for x in 0..nn {
                    row[x] += w * dk[x];
                }
            }
        }
        self.cur = self.exact();
        for r in 0..n {
            for s in r + 1..nu {
                self.delta[r * nu + s] = self.compute(r, s);
            }
        }
    }

    /// Hop-bytes from scratch. O(m).
    fn exact(&self) -> f64 {
        let mut hb = 0.0;
        for p in 0..self.n {
            for e in self.adj_off[p]..self.adj_off[p + 1] {
                let k = self.adj[e] as usize;
                if k > p {
                    hb += self.adj_w[e] * self.d(p, k);
                }
            }
        }
        hb
    }

    /// The largest channel load under dimension-order routing with the
    /// units at `loc`. O(m · route length + channels).
    fn max_load(&mut self, loc: &[u32]) -> f64 {
        self.loads.iter_mut().for_each(|l| *l = 0.0);
        let c = self.cores as u32;
        let loads = &mut self.loads;
        let mut work = loads.len() as u64;
        for (u, v, b) in self.graph.messages() {
            let (a, z) = ((loc[u] / c) as usize, (loc[v] / c) as usize);
            Routing::Dor.route(&self.topo, a, z, b, &mut |ch, x| {
                loads[ch] += x;
                work += 1;
            });
        }
        self.routed += work;
        loads.iter().cloned().fold(0.0, f64::max)
    }

    /// Whether the iteration budget is spent, or the best meets the lower
    /// bound.
    pub fn is_done(&self) -> bool {
        self.iter >= self.iters || self.best <= self.bound + self.eps
    }

    /// Iterations done and the budget.
    pub fn progress(&self) -> (u64, u64) {
        (self.iter, self.iters)
    }

    /// Channel updates (and channels cleared) the load tie-break has made,
    /// and the pair updates of the search so far (iterations × n × N): the
    /// first is at most a [`ROUTE_SHARE`]-th of the second, plus one routing.
    pub fn work(&self) -> (u64, u64) {
        (self.routed, self.iter * (self.n * self.units) as u64)
    }

    /// The best hop-bytes found so far.
    pub fn best_hop_bytes(&self) -> f64 {
        self.best
    }

    /// Run up to a step's worth of iterations (about 2^20 pair updates).
    pub fn step(&mut self) {
        let per = (WORK_PER_STEP / (self.n * self.units).max(1)).max(1) as u64;
        let end = (self.iter + per).min(self.iters);
        while self.iter < end && !self.is_done() {
            if !self.iterate() {
                self.iters = self.iter;
                break;
            }
        }
    }

    /// One iteration; false when no move is allowed.
    fn iterate(&mut self) -> bool {
        self.iter += 1;
        let it = self.iter;
        let nu = self.units as u64;
        if it >= self.next_draw {
            let (lo, hi) = ((9 * nu).div_ceil(10), (11 * nu) / 10);
            self.tenure = lo + self.rng.below((hi.max(lo) - lo + 1) as usize) as u64;
            self.next_draw = it + 2 * hi.max(1);
        }
        let aspiration = 5 * nu * nu;
        let (n, units, nodes) = (self.n, self.units, self.nodes);
        let bar = self.best - self.cur - self.eps;
        let mut pick: Option<(usize, usize)> = None;
        let mut min = f64::INFINITY;
        let mut aspired_pick = false;
        for r in 0..n {
            let nr = self.nl[r] as usize;
            let row = &self.delta[r * units..(r + 1) * units];
            let tr = &self.tabu[r * nodes..(r + 1) * nodes];
            let dr = &self.dn[nr * nodes..(nr + 1) * nodes];
            for s in r + 1..units {
                let ns = self.nl[s] as usize;
                // Nodes 0 hops apart (one node, or hosts on one switch of
                // a fabric) are one location: the move changes nothing.
                if dr[ns] == 0.0 {
                    continue;
                }
                let d = row[s];
                // Only moves that could be kept are examined further.
                if aspired_pick && d >= min {
                    continue;
                }
                let t1 = tr[ns];
                let t2 = self.tabu[s * nodes + nr];
                let authorized = t1 < it || t2 < it;
                let aspired = d < bar || t1 + aspiration < it || t2 + aspiration < it;
                // Taillard's rule: an aspired move beats every move that is
                // not; among aspired or among authorized ones, the least Δ.
                let take = if aspired {
                    !aspired_pick || d < min
                } else {
                    !aspired_pick && authorized && d < min
                };
                if take {
                    pick = Some((r, s));
                    min = d;
                    aspired_pick |= aspired;
                }
            }
        }
        let Some((r, s)) = pick else {
            return false;
        };
        self.swap(r, s, it);
        self.cur += min;
        if it.is_multiple_of(RESYNC as u64 * nu) {
            self.resync();
        }
        if self.cur < self.best - self.eps {
            // Exact before it is believed.
            self.cur = self.exact();
            if self.cur < self.best - self.eps {
                self.best = self.cur;
                self.best_loc.clone_from(&self.loc);
                self.best_load = None;
                self.improvements += 1;
            }
        } else if self.tie_break
            && self.cur <= self.best + self.eps
            && self.routed.saturating_mul(ROUTE_SHARE) <= it * (n * units) as u64
        {
            let best_load = match self.best_load {
                Some(l) => l,
                None => {
                    let b = self.best_loc.clone();
                    self.max_load(&b)
                }
            };
            let loc = self.loc.clone();
            let l = self.max_load(&loc);
            if l < best_load {
                self.best_loc = loc;
                self.best_load = Some(l);
            } else {
                self.best_load = Some(best_load);
            }
        }
        true
    }

    /// Swap units r and s, forbid their old nodes, update the cost table
    /// (O((deg r + deg s) · nodes)) and the deltas (O(N²)).
    fn swap(&mut self, r: usize, s: usize, it: u64) {
        let (nr, ns) = (self.nl[r] as usize, self.nl[s] as usize);
        self.tabu[r * self.nodes + nr] = it + self.tenure;
        self.tabu[s * self.nodes + ns] = it + self.tenure;
        self.loc.swap(r, s);
        self.nl.swap(r, s);
        let (n, nu, nn) = (self.n, self.units, self.nodes);
        // r moved nr → ns, s moved ns → nr.
        for (x, from, to) in [(r, nr, ns), (s, ns, nr)] {
            if x >= n {
                continue;
            }
            for e in self.adj_off[x]..self.adj_off[x + 1] {
                let (u, w) = (self.adj[e] as usize, self.adj_w[e]);
                let row = &mut self.cm[u * nn..(u + 1) * nn];
                let (dt, df) = (
                    &self.dn[to * nn..(to + 1) * nn],
                    &self.dn[from * nn..(from + 1) * nn],
                );
                for k in 0..nn {
                    row[k] += w * (dt[k] - df[k]);
                }
            }
        }
        for k in 0..nu {
            let fr = if r < n { self.flow[r * nu + k] } else { 0.0 };
            let fs = if s < n { self.flow[s * nu + k] } else { 0.0 };
            self.f[k] = fr - fs;
            self.g[k] = self.d(s, k) - self.d(r, k);
        }
        // Taillard's update for every pair; the pairs with r or s are
        // then recomputed from the cost table.
        for i in 0..n {
            let (fi, gi) = (self.f[i], self.g[i]);
            let row = &mut self.delta[i * nu..(i + 1) * nu];
            for j in i + 1..nu {
                row[j] += (fi - self.f[j]) * (gi - self.g[j]);
            }
        }
        for x in [r, s] {
            for i in 0..n.min(x) {
                self.delta[i * nu + x] = self.compute(i, x);
            }
            if x < n {
                for j in x + 1..nu {
                    self.delta[x * nu + j] = self.compute(x, j);
                }
            }
        }
    }

    /// The mapping to keep: the best's slots for the processes when its
    /// hop-bytes are lower than the start's, or equal with a lower max
    /// link load; None to keep the start.
    pub fn outcome(&mut self) -> Option<Vec<u32>> {
        let (hb0, load0) = self.start;
        if self.best < hb0 - self.eps {
            return Some(self.best_loc[..self.n].to_vec());
        }
        let load = match self.best_load {
            Some(l) => l,
            None => {
                let b = self.best_loc.clone();
                self.max_load(&b)
            }
        };
        (self.best <= hb0 + self.eps && load < load0).then(|| self.best_loc[..self.n].to_vec())
    }
}

impl Refine {
    /// Start the tabu phase from the current mapping (the search before it
    /// stopped for `why`).
    pub(super) fn start_tabu(&mut self, why: RefineStop) -> Tabu {
        let slots: Vec<u32> = (0..self.graph.n())
            .map(|p| self.node_of[p] * self.cores as u32 + self.core_of[p])
            .collect();
        let mut t = Tabu::new(
            self.graph.clone(),
            self.topo.clone(),
            &self.vol,
            &self.dist,
            &slots,
            iterations(self.params.tabu, self.graph.n(), self.topo.num_slots()),
            self.params.seed,
        );
        t.why = why;
        t
    }

    /// Take the tabu phase's outcome, if it beats the current mapping: the
    /// processes that changed slots go to `last` (as swaps with the slot's
    /// former occupant, or moves into a free core).
    pub(super) fn adopt_tabu(&mut self, t: &mut Tabu) {
        let Some(slots) = t.outcome() else { return };
        // Moved without `apply`: the search's memo no longer holds.
        self.after_memo = Default::default();
        let old_owner = std::mem::replace(&mut self.owner, vec![FREE; self.topo.num_slots()]);
        for (p, &s) in slots.iter().enumerate() {
            let s = s as usize;
            self.owner[s] = p as u32;
            let before = self.node_of[p] as usize * self.cores + self.core_of[p] as usize;
            if before != s {
                let q = old_owner[s];
                self.last.push((p, if q == FREE { p } else { q as usize }));
            }
            self.node_of[p] = (s / self.cores) as u32;
            self.core_of[p] = (s % self.cores) as u32;
            self.placement[p] = Some(s as u32);
        }
        self.cost = (0..self.graph.n()).map(|p| self.cost_of(p)).collect();
        self.hb = self.total_hop_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    #[test]
    fn the_phase_runs_on_small_meshes_tori_and_filled_fabrics_only() {
        let t = |s: &str| Topology::parse(s).unwrap();
        assert!(applies(64, &t("torus:4x4x4")));
        assert!(applies(64, &t("torus:2x2x4:cores=4")));
        assert!(applies(256, &t("mesh:16x16")));
        assert!(!applies(1, &t("mesh:8x8")));
        assert!(!applies(257, &t("torus:8x8x8")));
        // 64 processes, but 1,024 slots.
        assert!(!applies(64, &t("torus:8x8x16")));
        // A fat tree of 64 slots: filled, or at least half filled.
        assert!(applies(64, &t("fattree:4:3:cores=4")));
        assert!(applies(32, &t("fattree:4:3:cores=4")));
        // Less than half: the free slots would be most of the units.
        assert!(!applies(31, &t("fattree:4:3:cores=4")));
    }

    fn graph(n: usize, seed: u64) -> Arc<CommGraph> {
        let mut rng = Rng::new(seed);
        let mut b = GraphBuilder::new(n, false);
        for i in 0..n {
            for _ in 0..1 + rng.below(3) {
                let j = rng.below(n);
                b.add(i, j, 1.0 + rng.below(50) as f64 + 0.25);
            }
        }
        Arc::new(b.build().unwrap())
    }

    #[test]
    fn the_updated_deltas_match_the_deltas_from_scratch() {
        for (spec, n) in [("mesh:3x4", 12), ("torus:3x3:cores=2", 13), ("mesh:2x5", 7)] {
            let topo = Arc::new(Topology::parse(spec).unwrap());
            let g = graph(n, 3);
            let vol = crate::partition::pair_volumes(&g);
            let dist = super::super::Dist::new(topo.clone());
            let slots: Vec<u32> = (0..n as u32).collect();
            let mut t = Tabu::new(g, topo, &vol, &dist, &slots, 200, 1);
            for _ in 0..200 {
                assert!(t.iterate());
                let cur = t.cur;
                let kept = t.delta.clone();
                t.resync();
                assert!((cur - t.cur).abs() <= 1e-9 * t.cur.max(1.0), "{spec}");
                for (a, b) in kept.iter().zip(&t.delta) {
                    assert!((a - b).abs() <= 1e-9 * t.cur.max(1.0), "{spec}: {a} {b}");
                }
            }
        }
    }
}
