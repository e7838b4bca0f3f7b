//! Polishing more than one run, and keeping another polished run only
//! when it pays for its hop-bytes with max link load.
//!
//! With several runs ([`Recursive`]), only the run picked by
//! `Recursive::prefer_lower_load` (of the runs within 0.5 % of the least
//! hop-bytes, the one of least max link load) goes through the descent and
//! the bottleneck phase ([`Refine::polish`](super::refine::Refine::polish)).
//! The descent and the bottleneck phase stop in local optima of their
//! moves, and which ones depends on where they start: two runs a fraction
//! of a per cent apart in hop-bytes can end several per cent apart in max
//! link load, in either order, and the run of more max link load before
//! them may end with fewer hop-bytes and less max link load after them
//! (measured in `docs/mapping-quality.md`, "Polishing more than one
//! run"). So on inputs of fewer than
//! [`ALT_BELOW`] processes, with `load_budget` above 0 (the bottleneck
//! phase's budget; on switch fabrics, where that phase does not run, the
//! polished runs are compared by max link load under the fabric's own
//! routing), up to
//! [`alternatives_cap`] more runs of the same window (other mappings than the
//! picked one, the least max link load first; the best run included when
//! it was not picked) are polished after it, in turn and
//! stepped the same way, and a polished run replaces the result so far
//! when it [`pays`]: fewer hop-bytes and no more max link load, or less max
//! link load with hop-bytes raised by at most [`LOAD_PRICE`] × the
//! relative fall of the largest load (the bottleneck phase's own price,
//! [`super::refine::keep_best`]). So the result is never worse than the
//! first polished run's by that rule, and it never spends hop-bytes
//! without buying max link load at that price. Deterministic: the same
//! runs in the same order, each polished with the same seed.
//!
//! Cost: each polished run costs what the polish costs (the descent and the
//! bottleneck phase), so at most (1 + [`ALT_MAX`]) × the polish, with the
//! polished runs × the pairs within [`RUN_PAIRS`] (the automatic runs'
//! rule), plus one
//! evaluation of the max link load per polished run (O(m · L), m messages,
//! L the route length). Memory: the alternatives' mappings, O(ALT_MAX · n).
//!
//! Beyond the seeds: a multi-start local search (Martí, Resende & Ribeiro,
//! "Multi-start methods for combinatorial optimization", EJOR 226, 2013)
//! whose starts are the runs' local optima, judged by the second objective
//! at the first objective's price.

use super::refine::keep_best::LOAD_PRICE;
use super::{RUN_PAIRS, Recursive};
use crate::mapping::Mapping;
use crate::routing::Routing;

/// Runs polished after the first, at most.
pub const ALT_MAX: usize = 8;
/// Only inputs of fewer processes than this polish more than one run (as
/// the bottleneck phase's pairs and extension,
/// [`PAIRS_BELOW`](super::refine::chain::PAIRS_BELOW)).
pub const ALT_BELOW: usize = super::refine::chain::PAIRS_BELOW;

/// The runs polished after the first on a graph of `pairs` communicating
/// pairs: [`ALT_MAX`], and at most [`RUN_PAIRS`] / pairs − 1, so that the
/// polished runs cover at most as many pairs together as the automatic
/// runs ([`auto_runs`](super::auto_runs)): the polish's time grows with
/// the pairs.
pub fn alternatives_cap(pairs: usize) -> usize {
    (RUN_PAIRS / pairs.max(1)).saturating_sub(1).min(ALT_MAX)
}

/// Relative difference under which two max loads or hop-bytes are tied.
const TIE: f64 = 1e-9;

/// Whether a polished run of hop-bytes `hb` and max link load `m` replaces
/// the result so far (`hb0`, `m0`): fewer hop-bytes and no more max load,
/// or a lower max load with `(hb − hb0) / hb0 ≤ LOAD_PRICE · (m0 − m) / m0`.
pub fn pays((hb0, m0): (f64, f64), (hb, m): (f64, f64)) -> bool {
    let fewer = hb < hb0 * (1.0 - TIE);
    let lower = m < m0 * (1.0 - TIE);
    if fewer && m <= m0 * (1.0 + TIE) {
        return true;
    }
    lower && (hb - hb0) / hb0.max(f64::MIN_POSITIVE) <= LOAD_PRICE * (m0 - m) / m0 + TIE
}

impl Recursive {
    /// Whether more than one run is polished: polishing on, `load_budget`
    /// above 0, fewer than [`ALT_BELOW`] processes (on any network).
    pub(super) fn polishes_alternatives(&self) -> bool {
        self.polish
            && self.refine_params.is_some_and(|r| r.load_budget > 0.0)
            && self.input.graph.n() < ALT_BELOW
    }

    /// While another run than the first is polished: which one (from 1)
    /// and how many there are.
    pub fn polishing_alternative(&self) -> Option<(usize, usize)> {
        (self.polishing && self.polished.is_some())
            .then(|| (self.alt_total - self.alternatives.len(), self.alt_total))
    }

    /// The runs to polish after the picked one `picked`: of `window` (each
    /// run within the load tie, with its max link load), the other
    /// mappings, least max link load first (ties in the order given), at
    /// most [`alternatives_cap`], each mapping once. O(window · n).
    pub(super) fn choose_alternatives(
        &mut self,
        picked: &Mapping,
        mut window: Vec<(f64, Mapping)>,
    ) {
        self.alternatives.clear();
        if !self.polishes_alternatives() {
            return;
        }
        let cap = alternatives_cap(self.input.graph.num_edges());
        // A stable sort: ties keep run order.
        window.sort_by(|x, y| x.0.total_cmp(&y.0));
        for (_, m) in window {
            if self.alternatives.len() >= cap {
                break;
            }
            if &m != picked && !self.alternatives.contains(&m) {
                self.alternatives.push(m);
            }
        }
        // Polished in that order: popped from the back.
        self.alternatives.reverse();
        self.alt_total = self.alternatives.len();
    }

    /// A polished run ended at hop-bytes `hb` (objective `obj`), mapping
    /// `m`: it becomes the result when it is the first, or when it
    /// [`pays`] against the result so far. O(m · L) for its max load.
    pub(super) fn keep_polished(&mut self, obj: f64, hb: f64, m: Mapping) {
        if self.polished.is_none() && self.alternatives.is_empty() {
            self.polished = Some((obj, hb, m, f64::NAN));
            return;
        }
        let load = crate::metrics::evaluate(&self.input.graph, &self.input.topo, &m, &Routing::Dor)
            .metrics
            .max_link_load;
        let replace = match &self.polished {
            None => true,
            Some((_, hb0, _, m0)) => pays((*hb0, *m0), (hb, load)),
        };
        if replace {
            self.polished = Some((obj, hb, m, load));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Recursive;
    use super::super::refine::RefineParams;
    use super::{ALT_MAX, pays};
    use crate::graph::GraphBuilder;
    use crate::mappers::MapperInput;
    use crate::mapping::Mapping;
    use crate::metrics::evaluate;
    use crate::routing::Routing;
    use crate::step::Stepper;
    use crate::topology::Topology;
    use std::sync::Arc;

    /// A line of 4 nodes (0 - 1 - 2 - 3), one core each; messages 0→3: 1,
    /// 1→3: 2, 2→0: 2, 2→1: 3 (process → process, bytes); `Recursive`
    /// with 2 runs, depth 1 and a bottleneck budget of 1 %.
    fn two_runs() -> (MapperInput, Recursive) {
        let mut b = GraphBuilder::new(4, true);
        b.add(0, 3, 1.0);
        b.add(1, 3, 2.0);
        b.add(2, 0, 2.0);
        b.add(2, 1, 3.0);
        let g = Arc::new(b.build().unwrap());
        let topo = Arc::new(Topology::parse("mesh:4").unwrap());
        let inp = MapperInput::new(g, topo, 0);
        let rp = RefineParams {
            depth: 1,
            ..RefineParams::hand_checked(0.01)
        };
        let r = Recursive::new(&inp, Some(rp), 2).unwrap();
        (inp, r)
    }

    #[test]
    fn a_run_of_more_max_load_is_polished_too_and_kept_when_it_ends_better() {
        // Nodes of processes 0–3. A = [0, 3, 2, 1]: 0→3 goes 0→1 (1 byte),
        // 1→3 3→2→1 (2), 2→0 2→1→0 (2), 2→1 2→3 (3): hop-bytes 1 + 4 + 4
        // + 3 = 12, loads 0→1 1, 3→2 2, 2→1 4, 1→0 2, 2→3 3: max 4, the
        // least max load of the 24 mappings. No exchange of two processes
        // lowers its hop-bytes (a local optimum; each of the 6 swaps
        // checked).
        // B = [0, 2, 3, 1]: 0→3 0→1 (1), 1→3 2→1 (2), 2→0 3→2→1→0 (2),
        // 2→1 3→2 (3): hop-bytes 1 + 2 + 6 + 3 = 12, loads 3→2 5, 2→1 4,
        // 1→0 2, 0→1 1: max 5. Tied in hop-bytes, A has the lower max load
        // and is the run polished first; its polish keeps 12 / 4.
        // B's only exchange that lowers its hop-bytes, processes 2 and 3,
        // gives G = [0, 2, 1, 3]: 0→3 0→1→2→3 (1), 1→3 2→3 (2), 2→0 1→0
        // (2), 2→1 1→2 (3): hop-bytes 3 + 2 + 2 + 3 = 10 (the least of the
        // 24 mappings), loads 1→2 4, 2→3 3, 1→0 2, 0→1 1: max 4. Polished
        // after A, B ends at G, with fewer hop-bytes at the same max load:
        // it pays and is the result. With only A polished the result would
        // keep 12 hop-bytes.
        let (inp, mut r) = two_runs();
        let eval = |m: &Mapping| {
            let e = evaluate(&inp.graph, &inp.topo, m, &Routing::Dor).metrics;
            (e.hop_bytes, e.max_link_load)
        };
        let a = Mapping::new(vec![0, 3, 2, 1], vec![0; 4]);
        let b = Mapping::new(vec![0, 2, 3, 1], vec![0; 4]);
        assert_eq!((eval(&a), eval(&b)), ((12.0, 4.0), (12.0, 5.0)));
        assert!(r.polishes_alternatives());
        r.offer(12.0, 12.0, a.clone());
        r.end_run(12.0, 12.0, b.clone());
        assert!(r.polishing);
        assert_eq!(r.alternatives, vec![b]);
        let mut seen = None;
        while !r.done {
            r.step();
            seen = seen.or(r.polishing_alternative());
        }
        assert_eq!(seen, Some((1, 1)));
        let m = r.best.as_ref().unwrap().2.clone();
        assert_eq!(m.node, vec![0, 2, 1, 3]);
        assert_eq!(eval(&m), (10.0, 4.0));
    }

    #[test]
    fn the_alternatives_are_the_other_runs_of_least_max_load_first() {
        let (_, mut r) = two_runs();
        let m = |nodes: [u32; 4]| Mapping::new(nodes.to_vec(), vec![0; 4]);
        // Loads given, in run order: the picked mapping and a repeat are
        // left out, ties keep run order, the least load is polished first
        // (popped from the back).
        let picked = m([0, 1, 2, 3]);
        let window = vec![
            (5.0, m([1, 0, 2, 3])),
            (3.0, m([0, 1, 3, 2])),
            (2.0, picked.clone()),
            (3.0, m([2, 1, 0, 3])),
            (5.0, m([1, 0, 2, 3])),
        ];
        r.choose_alternatives(&picked, window);
        let want = vec![m([1, 0, 2, 3]), m([2, 1, 0, 3]), m([0, 1, 3, 2])];
        assert_eq!(r.alternatives, want);
        // At most ALT_MAX of them.
        let mut many = Vec::new();
        for x in 0..4u32 {
            for y in 0..4u32 {
                for z in 0..4u32 {
                    if x != y && y != z && x != z && x + y + z <= 6 {
                        many.push((f64::from(x), m([x, y, z, 6 - x - y - z])));
                    }
                }
            }
        }
        assert_eq!(many.len(), 24);
        r.choose_alternatives(&picked, many);
        assert_eq!(r.alternatives.len(), ALT_MAX);
        assert!(!r.alternatives.contains(&picked));
    }

    #[test]
    fn the_polished_runs_cover_at_most_the_automatic_runs_pairs() {
        // 16,384 pairs in all: 2,048 pairs → 8 runs → 7 alternatives.
        assert_eq!(super::alternatives_cap(2048), 7);
        assert_eq!(super::alternatives_cap(515), ALT_MAX);
        assert_eq!(super::alternatives_cap(5443), 2);
        assert_eq!(super::alternatives_cap(8192), 1);
        assert_eq!(super::alternatives_cap(10_296), 0);
        assert_eq!(super::alternatives_cap(0), ALT_MAX);
    }

    #[test]
    fn a_polished_run_replaces_the_result_only_when_it_pays() {
        // Result so far: 1,000 hop-bytes, max load 100.
        let kept = (1000.0, 100.0);
        // Fewer hop-bytes at the same load, or both lower: kept.
        assert!(pays(kept, (999.0, 100.0)));
        assert!(pays(kept, (990.0, 90.0)));
        // 10 % less load may buy 1 % more hop-bytes (1,010), not more.
        assert!(pays(kept, (1010.0, 90.0)));
        assert!(!pays(kept, (1011.0, 90.0)));
        // No lower load and no fewer hop-bytes: not kept; the same state
        // is not kept either.
        assert!(!pays(kept, (1000.0, 100.0)));
        assert!(!pays(kept, (999.0, 100.5)));
        // A lower load at the same hop-bytes pays.
        assert!(pays(kept, (1000.0, 99.0)));
    }
}
