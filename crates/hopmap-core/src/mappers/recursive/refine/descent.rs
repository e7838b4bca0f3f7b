//! The descent phase of [`Refine`]: after the best-improvement search has
//! stopped, a seeded first-improvement descent over the same kind of
//! neighbourhood, sampled at random: pick a process `p` at random, one of
//! its partners `v` at random, and a node `b` at random among `v`'s node
//! and that node's neighbours (VieM's N_C^1, Schulz & Träff, SEA 2017, §4);
//! pick a core of `b` at random and apply the move or swap there if it
//! lowers hop-bytes. Beyond the seed papers.
//!
//! Why: the best-improvement search stops at a local optimum of its own
//! candidate order (or when a sweep gains less than `tol`), and random
//! first-improvement moves from there still find gains on meshes folded
//! into tori (a METIS-made 2D mesh of 1,024 parts on an 8 × 8 × 16 torus:
//! 0.935 → about 0.92 × Scotch's hop-bytes; `docs/mapping-quality.md`).
//!
//! It stops after [`TRIES_PER_PROCESS`] × n tries, or once
//! [`IDLE_PER_PROCESS`] × n tries in a row found nothing (both
//! [`POLISH_SCALE`] times larger in [`Refine::polish`]); it runs on
//! inputs of 2 to [`MAX_PROCESSES`] processes, and when it polishes the
//! best of several runs on the sparse ones up to 4,096 ([`applies`]).
//! Cost: at most that many
//! tries, each O(deg p) distance look-ups (O(1) with the distance table),
//! plus O(deg q) when the bound of the search's pruning does not rule the
//! swap out; a step makes 16 × `batch` tries. A try that repeats one that
//! failed, with nothing it reads changed since (`Memo`, which keeps each
//! process's last few tries), is not evaluated again: O(1), and the same
//! exchanges in the same order. So is a try of `p` at node `b` when the
//! hop-bytes search before the phase tried all of p's exchanges with `b`,
//! kept none, and nothing it read has changed since (the search's memo,
//! kept up to date by every exchange: `Refine::settled_at`; on whole
//! volumes, where both compute the same integer change). Only for the `hopbytes` objective (the loads are not kept
//! during it; the bottleneck phase that follows routes everything
//! afresh). Hop-bytes never rise.
//!
//! From [`SWEEP_FROM`] processes on, the polish of the best run
//! ([`Refine::polish`]) descends in a queued form instead
//! (`Refine::descent_sweep`, [`sweeps`]): every process in a seeded
//! random order tries each distinct node of the same neighbourhood once
//! (the nodes of its partners and their network neighbours), and the
//! processes of each exchange and their partners are queued again, until
//! the queue is empty (each process's last pass over its nodes found
//! nothing, and neither it nor a partner moved since) or the same budget
//! of tries is spent. Random tries repeat one another (on the METIS-made 3D mesh of
//! 1,024 parts the tries drawn cover each process's few dozen distinct
//! nodes several times over); the queue tries each once per change:
//! 0.6 × the descent's instructions there, for the same hop-bytes on
//! average over 80 mappings of METIS-made meshes of 1,024 to 4,096 parts
//! (`docs/mapping-quality.md`, "The descent by a queue"). Cost: O(Σ over
//! the processes dequeued of deg p · (Δ + 1)) distinct nodes, each tried
//! as above (Δ the network's degree); each exchange queues O(deg p +
//! deg q) processes.

use super::{FREE, Refine, weighted_distance_below, weighted_distance_below_at};

/// Largest input the phase runs on whatever its density ([`applies`]):
/// above it its cost (measured: about
/// +50 % of `recursive+refine`'s time on METIS-made 3D meshes of 4,096 and
/// 16,384 parts, for about 1 % fewer hop-bytes) would break the speed
/// target against Scotch's gmap.
pub const MAX_PROCESSES: usize = 1024;

/// Whether the phase runs on an input of `n` processes and `pairs`
/// communicating pairs: from 2 to [`MAX_PROCESSES`] processes, and, when it
/// polishes the best of several runs (`polish`, [`Refine::polish`]: what
/// `recursive+refine`'s automatic runs do there), on the sparse inputs
/// above it ([`sparse_large`](crate::mappers::recursive::sparse_large::sparse_large):
/// up to 4,096 processes of at most 8 partners each on average), where
/// the time is there (on the METIS-made 2D meshes of 1,536 to 4,096 parts
/// 0.3–0.5 × gmap's CPU in all, for 1–3 % fewer hop-bytes). Other
/// refinements of such inputs (`grid`'s, one run's) are left as they
/// were. O(1).
pub fn applies(n: usize, pairs: usize, polish: bool) -> bool {
    (2..=MAX_PROCESSES).contains(&n)
        || (polish && crate::mappers::recursive::sparse_large::sparse_large(n, pairs))
}
/// Whether the descent of an input of `n` processes takes its queued
/// form (`Refine::descent_sweep`) instead of random tries: when it
/// polishes the best of several runs ([`Refine::polish`]) from
/// [`SWEEP_FROM`] processes on. O(1).
pub fn sweeps(n: usize, polish: bool) -> bool {
    polish && n >= SWEEP_FROM
}

/// Smallest input whose polish descends by the queue
/// (`Refine::descent_sweep`): every input of 1,024 processes and more
/// (below it, random tries as before).
pub const SWEEP_FROM: usize = 1024;

/// Tries per process, at most.
pub const TRIES_PER_PROCESS: usize = 64;
/// The phase stops once this many tries per process in a row found nothing.
pub const IDLE_PER_PROCESS: usize = 16;
/// Both budgets are this many times larger when the phase polishes only
/// the best of several runs ([`Refine::polish`]): measured over 72
/// mappings (METIS-made meshes of 512 and 1,024 parts, 8 seeds each), the
/// best run's search result polished this way has 0.03 % fewer hop-bytes
/// on average than every run descended with the plain budgets, at about
/// half the phase's time (`docs/mapping-quality.md`, "Speed from 1,024
/// processes").
pub const POLISH_SCALE: usize = 2;

impl Refine {
    /// The descent's budgets (tries, idle tries) are this many times
    /// [`TRIES_PER_PROCESS`] and [`IDLE_PER_PROCESS`]: [`POLISH_SCALE`]
    /// when polishing, else 1.
    pub(super) fn descent_scale(&self) -> usize {
        if self.polishing { POLISH_SCALE } else { 1 }
    }

    /// The descent's memo, made on first use (returned with `self.memo =
    /// Some(memo)` when a call ends).
    pub(super) fn take_memo(&mut self) -> Box<Memo> {
        let (n, slots) = (self.graph.n(), self.owner.len());
        self.memo
            .take()
            .unwrap_or_else(|| Box::new(Memo::new(n, slots)))
    }

    /// Up to `tries` random tries, stopping once [`IDLE_PER_PROCESS`] × n
    /// tries in a row found nothing (`idle` counts them across calls);
    /// returns the tries made.
    #[inline(never)]
    pub(super) fn descent_tries(&mut self, tries: usize, idle: &mut usize) -> usize {
        let n = self.graph.n();
        let graph = self.graph.clone();
        let dist = self.dist.clone();
        let mut memo = self.take_memo();
        let mut made = 0;
        while made < tries && *idle < IDLE_PER_PROCESS * self.descent_scale() * n {
            made += 1;
            *idle += 1;
            let p = self.rng.below(n);
            let nbrs = graph.neighbors(p);
            if nbrs.is_empty() {
                continue;
            }
            let v = nbrs[self.rng.below(nbrs.len())] as usize;
            let nv = self.node_of[v] as usize;
            let around = dist.neighbors(nv);
            let k = self.rng.below(around.len() + 1);
            let b = if k == around.len() {
                nv
            } else {
                around[k] as usize
            };
            let a = self.node_of[p] as usize;
            if a == b {
                continue;
            }
            let s = b * self.cores + self.rng.below(self.cores);
            if self
                .try_slot(p, a, b, s, None, &mut memo, &graph, &dist)
                .is_some()
            {
                *idle = 0;
            }
        }
        self.memo = Some(memo);
        made
    }

    /// The queued variant ([`sweeps`]): the processes in a seeded random
    /// order, each trying every distinct node of its neighbourhood once
    /// (each partner's node, then that node's network neighbours, in
    /// adjacency order; a random core of it), stopping at its first
    /// exchange; the two processes of an exchange and their partners (whose
    /// costs changed) are queued again. Ends when the queue is empty
    /// (`idle` is then set past any bound) or after `tries` tries; returns
    /// the tries made.
    #[inline(never)]
    pub(super) fn descent_sweep(&mut self, tries: usize, idle: &mut usize) -> usize {
        let n = self.graph.n();
        let graph = self.graph.clone();
        let dist = self.dist.clone();
        let mut memo = self.take_memo();
        let mut sw = match memo.sweep.take() {
            Some(sw) => sw,
            None => {
                let mut order: Vec<u32> = (0..n as u32).collect();
                self.rng.shuffle(&mut order);
                Box::new(Sweep {
                    queue: order.into_iter().collect(),
                    queued: vec![true; n],
                    seen: vec![0; dist.nodes],
                    stamp: 0,
                    nodes: Vec::new(),
                })
            }
        };
        let mut made = 0;
        while made < tries {
            let Some(p) = sw.queue.pop_front() else {
                *idle = usize::MAX;
                break;
            };
            let p = p as usize;
            sw.queued[p] = false;
            sw.stamp += 1;
            let a = self.node_of[p] as usize;
            sw.seen[a] = sw.stamp;
            // The partners' nodes, read once for all of p's tries (no
            // exchange happens before the last).
            let mut nodes = std::mem::take(&mut sw.nodes);
            nodes.clear();
            nodes.extend(graph.neighbors(p).iter().map(|&v| self.node_of[v as usize]));
            let mut ex = None;
            'cands: for &nv in &nodes {
                let nv = nv as usize;
                for b in std::iter::once(nv).chain(dist.neighbors(nv).iter().map(|&x| x as usize)) {
                    if sw.seen[b] == sw.stamp {
                        continue;
                    }
                    sw.seen[b] = sw.stamp;
                    made += 1;
                    let s = b * self.cores + self.rng.below(self.cores);
                    ex = self.try_slot(p, a, b, s, Some(&nodes), &mut memo, &graph, &dist);
                    if ex.is_some() {
                        break 'cands;
                    }
                }
            }
            sw.nodes = nodes;
            if let Some((x, y)) = ex {
                for z in [x, y] {
                    for w in std::iter::once(z as u32).chain(graph.neighbors(z).iter().copied()) {
                        if !sw.queued[w as usize] {
                            sw.queued[w as usize] = true;
                            sw.queue.push_back(w);
                        }
                    }
                }
            }
        }
        memo.sweep = Some(sw);
        self.memo = Some(memo);
        made
    }

    /// Whether the queued descent (`Refine::descent_sweep`) ran and
    /// emptied its queue (for tests).
    #[cfg(test)]
    pub(crate) fn descent_queue_emptied(&self) -> bool {
        self.memo
            .as_ref()
            .and_then(|m| m.sweep.as_ref())
            .is_some_and(|s| s.queue.is_empty())
    }

    /// Whether every exchange of `p` with node `b` (a partner's node or a
    /// network neighbour of one, not p's node) surely fails to lower
    /// hop-bytes by more than `hb_eps`: the hop-bytes search tried them
    /// all and kept none, and nothing it read has changed since
    /// (`SearchMemo::certifies_at`; `b` was among its candidates since
    /// `depth` ≥ 1 and p's partners have not moved). On [`super::exact_sums`]
    /// every change, the search's and a try's, is the exact integer, so
    /// the try's change is the one the search refused. Beyond the seeds:
    /// the search's certificate reused by the next phase. O(1).
    #[inline]
    pub(super) fn settled_at(&self, p: usize, b: usize) -> bool {
        self.exact && self.params.depth >= 1 && self.after_memo.certifies_at(p, b)
    }

    /// One try of the descent: `p` (on node `a`) into slot `s` of node
    /// `b`, skipped when the memo knows it fails; applied when it lowers
    /// hop-bytes by more than `hb_eps`. Whether it was applied. `nodes`:
    /// the nodes of p's partners, when the caller has read them (the same
    /// sums either way).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn try_slot(
        &mut self,
        p: usize,
        a: usize,
        b: usize,
        s: usize,
        nodes: Option<&[u32]>,
        memo: &mut Memo,
        graph: &crate::graph::CommGraph,
        dist: &super::Dist,
    ) -> Option<(usize, usize)> {
        let off = graph.offsets();
        let nbrs = graph.neighbors(p);
        let vol = &self.vol[off[p]..off[p] + nbrs.len()];
        let q = self.owner[s];
        // A try the stopped search's memo certifies ([`Refine::settled_at`])
        // fails: skipped (the random draws are made all the same).
        if self.settled_at(p, b) {
            return None;
        }
        // A try that failed since nothing it reads has changed fails
        // again: skipped (the random draws are made all the same).
        if memo.failed_before(p, s, q) {
            return None;
        }
        memo.record(p, s);
        let eps = self.hb_eps;
        // The exchange is kept when it lowers hop-bytes by more than
        // eps. Exact pruning, as in the search: q's cost falls by at
        // most min(cost q, W_q · d(a,b)) (triangle inequality), the
        // pair's term is never negative, and p's new cost is a sum of
        // non-negative terms, cut off once it exceeds what such a fall
        // could make up for (the margin covers the rounding).
        let dab = dist.get(a, b) as f64;
        let fall = if q == FREE {
            0.0
        } else {
            self.cost[q as usize].min(self.wsum[q as usize] * dab)
        };
        let cp = self.cost[p];
        let margin = 1e-9 * (cp + self.wsum[p] * dab + fall).max(1.0);
        let np = match nodes {
            Some(nodes) => weighted_distance_below_at(
                dist,
                nodes,
                b,
                vol,
                cp + fall - eps + margin,
                self.exact,
            ),
            None => weighted_distance_below(
                dist,
                &self.node_of,
                b,
                nbrs,
                vol,
                cp + fall - eps + margin,
                self.exact,
            ),
        }?;
        let gp = np - cp;
        let dhb = if q == FREE {
            gp
        } else {
            let q = q as usize;
            let limit = self.cost[q] - gp - eps + margin + 1e-9 * gp.abs();
            let cq = self.cost_at_below(q, a, limit)?;
            gp + cq - self.cost[q] + 2.0 * self.pair_volume(p, q) * dab
        };
        if dhb < -self.hb_eps {
            let sp = a * self.cores + self.core_of[p] as usize;
            let ex = self.apply(p, s, dhb);
            self.last.push(ex);
            memo.changed(graph, ex, [s, sp]);
            return Some(ex);
        }
        None
    }
}

/// The descent's memory of its failed tries: a try of process `p` into
/// slot `s` reads the nodes of `p`, of the slot's occupant `q` and of their
/// partners (their costs, kept in [`Refine`], follow from those), so it
/// fails again as long as no exchange since it moved `p`, `q` or one of
/// their partners, or changed the occupant of `s`. Each exchange starts a
/// new epoch and stamps the processes and slots it touched; a recorded try
/// is known to fail while every stamp it depends on is older than it.
/// The random draws go on as before, so skipping such tries changes
/// nothing but the time (the same exchanges, in the same order).
///
/// Each process keeps its last tries in [`MEMO_WAYS`] entries (one cache
/// line), indexed by a hash of the slot; a try that lost its entry to
/// another is simply evaluated again. Memory: O(n + slots).
pub(super) struct Memo {
    epoch: u32,
    /// The epoch in which each process, or one of its partners, last moved.
    moved: Vec<u32>,
    /// The epoch in which each slot's occupant last changed.
    slot: Vec<u32>,
    /// Per process, [`MEMO_WAYS`] entries (slot + 1, epoch of the try);
    /// slot 0 = empty.
    table: Vec<(u32, u32)>,
    /// The sweep variant's queue (`Refine::descent_sweep`).
    sweep: Option<Box<Sweep>>,
}

/// The queue of `Refine::descent_sweep`.
pub(super) struct Sweep {
    queue: std::collections::VecDeque<u32>,
    queued: Vec<bool>,
    /// Per node, the stamp of the process whose candidates included it.
    seen: Vec<u32>,
    stamp: u32,
    /// The nodes of the current process's partners (scratch).
    nodes: Vec<u32>,
}

/// Entries per process in [`Memo`].
const MEMO_WAYS: usize = 8;

impl Memo {
    fn new(n: usize, slots: usize) -> Self {
        Memo {
            epoch: 1,
            moved: vec![0; n],
            slot: vec![0; slots],
            table: vec![(0, 0); n * MEMO_WAYS],
            sweep: None,
        }
    }

    /// The entry of `p` that holds slot `s`, if any does.
    #[inline]
    fn entry(p: usize, s: usize) -> usize {
        p * MEMO_WAYS + ((s as u32).wrapping_mul(0x9E37_79B9) >> 29) as usize % MEMO_WAYS
    }

    /// Whether moving `p` into slot `s` (occupant `q`, or [`FREE`]) was
    /// tried, and failed, since anything it reads last changed.
    #[inline]
    fn failed_before(&self, p: usize, s: usize, q: u32) -> bool {
        let (k, e) = self.table[Self::entry(p, s)];
        k as usize == s + 1
            && self.moved[p] < e
            && self.slot[s] < e
            && (q == FREE || self.moved[q as usize] < e)
    }

    /// Record a try of `p` into `s` in the current epoch (it is recorded
    /// before it is known to fail; one that succeeds starts a new epoch
    /// that outdates it).
    #[inline]
    fn record(&mut self, p: usize, s: usize) {
        self.table[Self::entry(p, s)] = (s as u32 + 1, self.epoch);
    }

    /// An exchange of `ex` (a move when both are the same process) between
    /// the two `slots`: stamp them, the processes and their partners, and
    /// start a new epoch.
    pub(super) fn changed(
        &mut self,
        graph: &crate::graph::CommGraph,
        ex: (usize, usize),
        slots: [usize; 2],
    ) {
        for x in [ex.0, ex.1] {
            self.moved[x] = self.epoch;
            for &v in graph.neighbors(x) {
                self.moved[v as usize] = self.epoch;
            }
        }
        for s in slots {
            self.slot[s] = self.epoch;
        }
        self.epoch += 1;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Objective, Refine, RefineParams};
    use crate::generate::{GenOptions, generate};
    use crate::graph::CommGraph;
    use crate::mappers::{MapperInput, Mapping};
    use crate::topology::Topology;
    use std::sync::Arc;

    /// A 16 × 16 stencil placed at random on a 4 × 4 × 16 torus, and
    /// refinement parameters of one search sweep (no tabu, no load budget).
    pub(in crate::mappers::recursive::refine) fn stencil_from_random()
    -> (Arc<CommGraph>, Arc<Topology>, Mapping, RefineParams) {
        let g = Arc::new(generate("stencil:16x16", &GenOptions::default()).unwrap());
        let topo = Arc::new(Topology::parse("torus:4x4x16").unwrap());
        let start = crate::mappers::run(
            &crate::mappers::random::info(),
            &MapperInput::new(g.clone(), topo.clone(), 1),
        )
        .unwrap();
        let params = RefineParams {
            objective: Objective::HopBytes,
            sweeps: 1,
            batch: 64,
            depth: 0,
            time: None,
            seed: 1,
            tol: 0.0,
            load_budget: 0.0,
            tabu: 0,
            kicks: crate::mappers::recursive::refine::kicks::KICKS_PER_PROCESS,
        };
        (g, topo, start, params)
    }

    #[test]
    fn the_memo_forgets_a_failed_try_once_something_it_reads_changes() {
        // A path 0–1–2 and a lone process 3; 4 slots.
        let mut b = crate::graph::GraphBuilder::new(4, false);
        b.add(0, 1, 1.0);
        b.add(1, 2, 1.0);
        let g = b.build().unwrap();
        let mut m = super::Memo::new(4, 4);
        assert!(!m.failed_before(0, 2, 2), "nothing recorded yet");
        m.record(0, 2);
        assert!(m.failed_before(0, 2, 2));
        assert!(!m.failed_before(0, 3, 2), "another slot");
        // 3 moves (from slot 3 to slot 1): nothing the try reads.
        m.changed(&g, (3, 3), [1, 3]);
        assert!(m.failed_before(0, 2, 2));
        // 1 moves: a partner of 0 (and of the occupant 2).
        m.changed(&g, (1, 1), [0, 1]);
        assert!(!m.failed_before(0, 2, 2));
        m.record(0, 2);
        assert!(m.failed_before(0, 2, 2));
        // The slot's occupant changes.
        m.changed(&g, (3, 3), [2, 3]);
        assert!(!m.failed_before(0, 2, super::FREE));
    }

    #[test]
    fn the_descent_lowers_hop_bytes_after_a_short_search() {
        // A 16 × 16 stencil from a random placement on a 4 × 4 × 16 torus:
        // one sweep of the search leaves gains, which the descent finds;
        // hop-bytes never rise and the cost cache stays exact.
        let (g, topo, start, params) = stencil_from_random();
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let mut r = Refine::new(g.clone(), topo.clone(), vol, start, params);
        let mut at_descent = None;
        while !r.is_done() {
            r.step();
            if r.descent.is_some() && at_descent.is_none() {
                at_descent = Some(r.hop_bytes());
            }
            assert!(r.cost_cache_error() <= 1e-9 * r.hop_bytes().max(1.0));
        }
        let before = at_descent.expect("the descent ran");
        let after = crate::metrics::hop_bytes(&g, &topo, &r.mapping());
        assert!(after < 0.99 * before, "{after} vs {before}");
        let tr = r.hop_bytes_trace();
        assert!(tr.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-12)));
    }

    #[test]
    fn the_descent_polishes_above_1024_processes_only_on_sparse_inputs() {
        // A 64 × 32 stencil (2,048 processes, 4,000 pairs: 3.9 partners
        // each) from a random placement on an 8 × 16 × 16 torus, one
        // search sweep: the polish starts with the descent, which lowers
        // hop-bytes; a plain refinement of that size skips it.
        assert_eq!(super::MAX_PROCESSES, 1024);
        let (g, searched, mut p) = stencil_2048_polish();
        assert_eq!((g.n(), g.num_edges()), (2048, 4000));
        assert!(super::applies(g.n(), g.num_edges(), true));
        assert!(!super::applies(g.n(), g.num_edges(), false));
        assert!(p.descent.is_some(), "the polish starts with the descent");
        while !p.is_done() {
            p.step();
        }
        assert!(p.hop_bytes() < searched);
        // Not on denser inputs of that size (the METIS-made 3D mesh of
        // 2,048 parts: 13,743 pairs), nor above 4,096 processes.
        assert!(!super::applies(2048, 13_743, true));
        assert!(!super::applies(4097, 4000, true));
        assert!(super::applies(1024, 1_000_000, false) && !super::applies(1, 0, true));
    }

    /// The 64 × 32 stencil (2,048 processes) on an 8 × 16 × 16 torus from a
    /// random placement, after one plain refinement (which never descends):
    /// the graph, the refinement's hop-bytes, and the polish of its result,
    /// not yet stepped.
    fn stencil_2048_polish() -> (Arc<CommGraph>, f64, Refine) {
        let g = Arc::new(generate("stencil:64x32", &GenOptions::default()).unwrap());
        let topo = Arc::new(Topology::parse("torus:8x16x16").unwrap());
        let start = crate::mappers::run(
            &crate::mappers::random::info(),
            &MapperInput::new(g.clone(), topo.clone(), 1),
        )
        .unwrap();
        let (_, _, _, params) = stencil_from_random();
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let mut r = Refine::new(g.clone(), topo.clone(), vol.clone(), start, params);
        while !r.is_done() {
            r.step();
            assert!(r.descent.is_none(), "no descent without polishing");
        }
        let why = r.stopped().expect("stopped");
        let searched = r.hop_bytes();
        let p = Refine::polish(
            g.clone(),
            topo,
            r.dist.clone(),
            vol,
            r.mapping(),
            params,
            why,
        );
        (g, searched, p)
    }

    #[test]
    fn the_polish_descends_by_a_queue_from_1024_processes() {
        // The 64 × 32 stencil of the test above (2,048 processes) from a
        // random placement after one search sweep: the polish descends by
        // the queue, which empties before the budget of tries; hop-bytes
        // fall, never rise, and the cost cache stays exact. Below 1,024
        // processes, and without polishing, the random tries stay.
        assert_eq!(super::SWEEP_FROM, 1024);
        assert!(super::sweeps(1024, true) && super::sweeps(2048, true));
        assert!(!super::sweeps(1023, true) && !super::sweeps(2048, false));
        let (g, searched, mut p) = stencil_2048_polish();
        let topo = p.topo.clone();
        while !p.is_done() {
            p.step();
            assert!(p.cost_cache_error() <= 1e-9 * p.hop_bytes().max(1.0));
        }
        assert!(p.descent_queue_emptied(), "the queue emptied");
        let after = crate::metrics::hop_bytes(&g, &topo, &p.mapping());
        assert!(after < 0.99 * searched, "{after} vs {searched}");
        let tr = p.hop_bytes_trace();
        assert!(tr.windows(2).all(|w| w[1] <= w[0] * (1.0 + 1e-12)));
        // The plain refinement's descent of 256 processes: random tries.
        let (g, topo, start, params) = stencil_from_random();
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let mut r = Refine::new(g, topo, vol, start, params);
        while !r.is_done() {
            r.step();
        }
        assert!(!r.descent_queue_emptied());
    }

    /// [`stencil_from_random`]'s start through a search-only run (`check`
    /// called after each of its steps), then the polish of its result, not
    /// yet stepped: the graph, the network, the search's hop-bytes, why it
    /// stopped, and the polish.
    pub(in crate::mappers::recursive::refine) fn stencil_searched_then_polish(
        check: impl Fn(&Refine),
    ) -> (
        Arc<CommGraph>,
        Arc<Topology>,
        f64,
        super::super::RefineStop,
        Refine,
    ) {
        let (g, topo, start, params) = stencil_from_random();
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let mut s = Refine::new(g.clone(), topo.clone(), vol.clone(), start, params).search_only();
        while !s.is_done() {
            s.step();
            check(&s);
        }
        let why = s.stopped().expect("stopped");
        let p = Refine::polish(
            g.clone(),
            topo.clone(),
            s.dist.clone(),
            vol,
            s.mapping(),
            params,
            why,
        );
        (g, topo, s.hop_bytes(), why, p)
    }

    #[test]
    fn a_search_only_run_stops_before_the_descent_and_the_polish_carries_on() {
        // Same start as above: the search-only run ends with the search;
        // polishing its result runs the descent (with its larger budgets),
        // which finds the gains the search left.
        let (g, topo, searched, why, mut p) = stencil_searched_then_polish(|s| {
            assert!(s.descent.is_none() && !s.descended && s.hot.is_none());
        });
        assert_eq!(p.hop_bytes(), searched);
        assert!(p.descent.is_some(), "the polish starts with the descent");
        while !p.is_done() {
            p.step();
        }
        assert_eq!(p.stopped(), Some(why));
        let after = crate::metrics::hop_bytes(&g, &topo, &p.mapping());
        assert!(after < 0.99 * searched, "{after} vs {searched}");
    }
}
