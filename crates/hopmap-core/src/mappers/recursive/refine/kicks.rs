//! The kick phase of [`Refine`]'s polish: an iterated local search
//! (Lourenço, Martin & Stützle, "Iterated Local Search", 2003) around the
//! descent's local optimum. Beyond the seed papers.
//!
//! Each kick picks a process `p` at random and makes 2 to 4 random
//! exchanges among `p` and its partners, whatever they cost; then a
//! local descent, queued like the descent's sweep (`Refine::descent_sweep`),
//! starts from the processes the kick moved and their partners: each tries
//! the distinct nodes of its neighbourhood (its partners' nodes and their
//! network neighbours, a random core of each) and takes the first exchange
//! that lowers hop-bytes; the processes of an exchange and their partners
//! are queued again. Unless the kick and its descent together lower
//! hop-bytes (by more than the refinement's rounding margin), every
//! exchange is undone in reverse order. Hop-bytes never rise, and the
//! mapping changes only where they fall.
//!
//! Why: the descent stops at a local optimum of single exchanges, and on
//! meshes folded into tori whole regions are misplaced in ways no single
//! exchange improves: a METIS-made 2D mesh of 512 parts on an 8 × 8 × 8
//! torus went from 0.931 to 0.85 × Scotch's hop-bytes in a Python
//! experiment of the same search (`docs/mapping-quality.md`, "Kicks").
//!
//! It runs in the polish of the best run ([`Refine::polish`]) on meshes
//! and tori (not on switch fabrics, whose distances leave wide plateaus
//! of equal hop-bytes and which have their block phases) below
//! [`MAX_PROCESSES`] processes, for the `hopbytes` objective, with
//! `kicks` × n kicks ([`RefineParams::kicks`](super::RefineParams), by
//! default [`KICKS_PER_PROCESS`]), or until its work (Σ over the tries
//! of the trying process's partners) reaches [`WORK_PER_ENTRY`] × the
//! input's adjacency entries, whichever comes first. Cost: O(m ·
//! [`WORK_PER_ENTRY`]) at most; a kick touches a neighbourhood, not the
//! whole mapping. Memory: O(n + nodes). Deterministic for the
//! refinement's seed.

use super::{FREE, Refine, RefineStop};

/// Inputs of this many processes and more are not kicked (from 1,024
/// processes the speed target against Scotch's gmap leaves no time).
pub const MAX_PROCESSES: usize = 1024;

/// Kicks per process by default (`recursive+refine`'s `kicks`).
pub const KICKS_PER_PROCESS: usize = 8;

/// The phase's budget of work, per adjacency entry of the input (twice
/// the communicating pairs): each try costs the trying process's
/// partners. The kicks of a sparse input (METIS-made 2D meshes of 256 to
/// 512 parts, 4,200–5,300 per entry; Gerris on 128 ranks, 7,800) fit in
/// it; on dense ones (54,000–82,000 on the 64-rank captures of 16 to 63
/// partners per rank) it stops the phase after about a tenth of the
/// kicks.
pub const WORK_PER_ENTRY: usize = 8192;

/// Kicks per step of the phase.
const KICKS_PER_STEP: usize = 64;

/// The phase's state: why the search stopped, the kicks left, and the
/// kicks kept.
pub(super) struct Kicks {
    pub(super) why: RefineStop,
    left: usize,
    kept: usize,
    /// Work done (Σ over the tries of the trying process's partners) and
    /// the phase's budget of it.
    work: usize,
    budget: usize,
    queue: std::collections::VecDeque<u32>,
    queued: Vec<bool>,
    /// Per node, the stamp of the process whose candidates included it.
    seen: Vec<u32>,
    stamp: u32,
    /// The exchanges of the current kick: (process, its slot before, the
    /// change of hop-bytes), to be undone in reverse.
    log: Vec<(usize, usize, f64)>,
}

/// Whether the phase runs on `n` processes.
pub fn applies(n: usize) -> bool {
    (3..MAX_PROCESSES).contains(&n)
}

impl Kicks {
    /// `kicks` kicks at most, on an input of `n` processes with `entries`
    /// adjacency entries and a network of `nodes` nodes.
    pub(super) fn new(
        why: RefineStop,
        kicks: usize,
        n: usize,
        entries: usize,
        nodes: usize,
    ) -> Self {
        Kicks {
            why,
            left: kicks,
            kept: 0,
            work: 0,
            budget: WORK_PER_ENTRY * entries.max(1),
            queue: Default::default(),
            queued: vec![false; n],
            seen: vec![0; nodes],
            stamp: 0,
            log: Vec::new(),
        }
    }

    /// Queue `x`, `y` and their partners (whose costs they changed), those
    /// not queued yet. O(deg x + deg y).
    fn enqueue(&mut self, graph: &crate::graph::CommGraph, x: usize, y: usize) {
        for z in [x, y] {
            for w in std::iter::once(z as u32).chain(graph.neighbors(z).iter().copied()) {
                if !self.queued[w as usize] {
                    self.queued[w as usize] = true;
                    self.queue.push_back(w);
                }
            }
        }
    }

    /// Kicks whose result was kept (hop-bytes lower).
    pub fn kept(&self) -> usize {
        self.kept
    }
}

impl Refine {
    /// Up to [`KICKS_PER_STEP`] kicks; whether the phase is over.
    pub(super) fn kicks_step(&mut self, k: &mut Kicks) -> bool {
        let n = self.graph.n();
        let graph = self.graph.clone();
        let dist = self.dist.clone();
        let mut memo = self.take_memo();
        for _ in 0..KICKS_PER_STEP.min(k.left) {
            if k.work >= k.budget {
                k.left = 0;
                break;
            }
            k.left -= 1;
            let p = self.rng.below(n);
            let nbrs = graph.neighbors(p);
            if nbrs.is_empty() {
                continue;
            }
            let before = self.hb;
            k.log.clear();
            let moves = 2 + self.rng.below(3);
            for _ in 0..moves {
                let x = self.region_member(p, nbrs);
                let y = self.region_member(p, nbrs);
                if x == y || self.node_of[x] == self.node_of[y] {
                    continue;
                }
                let s = self.node_of[y] as usize * self.cores + self.core_of[y] as usize;
                let sx = self.node_of[x] as usize * self.cores + self.core_of[x] as usize;
                let dhb = self.exchange_change(x, s);
                let ex = self.apply(x, s, dhb);
                memo.changed(&graph, ex, [s, sx]);
                k.log.push((x, sx, dhb));
                k.enqueue(&graph, x, y);
            }
            // The local descent from what the kick moved.
            while let Some(q) = k.queue.pop_front() {
                let q = q as usize;
                k.queued[q] = false;
                k.stamp = k.stamp.wrapping_add(1);
                let a = self.node_of[q] as usize;
                k.seen[a] = k.stamp;
                let deg = graph.neighbors(q).len().max(1);
                let mut ex = None;
                'cands: for &v in graph.neighbors(q) {
                    let nv = self.node_of[v as usize] as usize;
                    for b in
                        std::iter::once(nv).chain(dist.neighbors(nv).iter().map(|&x| x as usize))
                    {
                        if k.seen[b] == k.stamp {
                            continue;
                        }
                        k.seen[b] = k.stamp;
                        k.work += deg;
                        let s = b * self.cores + self.rng.below(self.cores);
                        let sq = a * self.cores + self.core_of[q] as usize;
                        let hb = self.hb;
                        ex = self.try_slot(q, a, b, s, None, &mut memo, &graph, &dist);
                        if ex.is_some() {
                            k.log.push((q, sq, self.hb - hb));
                            break 'cands;
                        }
                    }
                }
                if let Some((x, y)) = ex {
                    k.enqueue(&graph, x, y);
                }
            }
            if self.hb >= before - self.hb_eps {
                while let Some((x, sx, dhb)) = k.log.pop() {
                    let s = self.node_of[x] as usize * self.cores + self.core_of[x] as usize;
                    let ex = self.apply(x, sx, -dhb);
                    memo.changed(&graph, ex, [s, sx]);
                }
                // Undone exactly: the running sum back where it was.
                self.hb = before;
            } else {
                k.kept += 1;
            }
        }
        self.last.clear();
        self.memo = Some(memo);
        k.left == 0
    }

    /// `p` or one of its partners `nbrs`, at random.
    fn region_member(&mut self, p: usize, nbrs: &[u32]) -> usize {
        let i = self.rng.below(nbrs.len() + 1);
        if i == nbrs.len() { p } else { nbrs[i] as usize }
    }

    /// The change of hop-bytes when `p` moves into slot `s` of another
    /// node, swapping with its occupant if any. O(deg p + deg q).
    fn exchange_change(&self, p: usize, s: usize) -> f64 {
        let a = self.node_of[p] as usize;
        let b = s / self.cores;
        let q = self.owner[s];
        let gp = self.cost_at(p, b) - self.cost[p];
        if q == FREE {
            return gp;
        }
        let q = q as usize;
        let dab = self.dist.get(a, b) as f64;
        gp + self.cost_at(q, a) - self.cost[q] + 2.0 * self.pair_volume(p, q) * dab
    }
}

#[cfg(test)]
mod tests {
    use super::super::descent::tests::stencil_searched_then_polish;

    #[test]
    fn the_kicks_lower_hop_bytes_past_the_descents_local_optimum() {
        // A 16 × 16 stencil from a random placement on a 4 × 4 × 16 torus:
        // a search-only run, then its polish (descent, then kicks). The
        // kicks start where the descent stopped and lower hop-bytes
        // further; hop-bytes never rise and the cost cache stays exact.
        let (g, topo, _, _, mut p) = stencil_searched_then_polish(|s| {
            assert!(s.kicks.is_none(), "a run's search does not kick");
        });
        let mut at_kicks = None;
        let mut last = p.hop_bytes();
        while !p.is_done() {
            p.step();
            if p.kicks.is_some() && at_kicks.is_none() {
                at_kicks = Some(p.total_hop_bytes());
            }
            assert!(p.hop_bytes() <= last * (1.0 + 1e-12), "hop-bytes rose");
            last = p.hop_bytes();
            assert!(p.cost_cache_error() <= 1e-9 * p.hop_bytes().max(1.0));
        }
        let before = at_kicks.expect("the kicks ran");
        let after = crate::metrics::hop_bytes(&g, &topo, &p.mapping());
        assert!(
            (after - p.hop_bytes()).abs() <= 1e-9 * after,
            "the running sum is exact"
        );
        assert!(after < 0.98 * before, "{after} vs {before}");
        assert!(p.kicks_phase().is_some_and(|k| k > 0));
    }

    #[test]
    fn the_kicks_run_below_1024_processes() {
        assert!(super::applies(3) && super::applies(1023));
        assert!(!super::applies(1024) && !super::applies(2));
    }
}
