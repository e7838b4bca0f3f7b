//! The bottleneck phase's ([`super::bottleneck`]) best mapping and its
//! priced look-ahead.
//!
//! **Keep the best.** Every kept exchange (or pair, [`super::chain`])
//! lowers the channel loads sorted in decreasing order lexicographically,
//! but when other channels tie with the busiest one the largest load stays
//! while hop-bytes rise; the phase may then end at the same largest load
//! it started from, only dearer. So the phase remembers the best state it
//! has seen — the least largest load among the *admissible* ones, then the
//! least hop-bytes — and goes back to it when it ends: every exchange kept
//! since is logged as (process, slot it left) and undone in reverse order
//! (moving a process back into the slot it left swaps back whoever took
//! it). The state is checked at the start of each round, where the phase
//! finds the busiest channel anyway. The same idea as a local search's
//! incumbent (the tabu phase, [`super::tabu`], keeps its best mapping the
//! same way).
//!
//! **Price hop-bytes by the max load they buy.** A state's value is
//! `ρ · g − max(0, r − β)`, where `g` is the relative fall of the largest
//! load (`(M₀ − M) / M₀`), `r` the relative rise of hop-bytes over the
//! phase's start, `β` the flat budget `load_budget` and `ρ` the price
//! [`LOAD_PRICE`]: hop-bytes within the flat budget are free, and each per
//! cent beyond it must buy at least `1/ρ` per cent less largest load. A
//! state is admissible when its value is not negative (`r ≤ β + ρ · g`),
//! and the best is the admissible one of highest value, then of least
//! largest load, then of least hop-bytes (within the flat budget this is
//! the least largest load, as the flat phase keeps). Relief of the busiest
//! channel costs before it pays (while other channels tie, the maximum
//! does not move), so once the phase has stopped within its flat budget it
//! goes on once more (the look-ahead, on graphs of fewer than
//! [`PAIRS_BELOW`](super::chain::PAIRS_BELOW) processes, as the pairs) with
//! a budget of `2β + ρ · g*` (`g*`: the best state's fall so far), and
//! then returns to the best state. The state where the flat phase stopped
//! is admissible and the flat phase's best, so the result is never worse
//! than the flat phase's by value, and hop-bytes never rise by more than
//! `β + ρ · g` × their start.
//!
//! **The extension.** Once the look-ahead is stuck too, the bottleneck
//! phase tries moves that its rounds otherwise leave out (whole nodes'
//! contents, and exchanges that lower the largest load though Σ load²
//! rises). Their states must also pay for the hop-bytes they add to the
//! best state's with the fall of the largest load below the best's, at the
//! price `ρ` and with no flat budget: `(hb − hb*) / hb₀ ≤ ρ · (M* − M) /
//! M₀`. So the extension never spends what the flat budget left unspent on
//! nothing, and the phase's result is at least the one it had without the
//! extension, by value.
//!
//! Cost: O(1) per round to compare, O(1) per kept exchange to log; the log
//! is cleared at each new best, so it holds only the exchanges since. Going
//! back costs O(deg) per undone exchange, then O(m · L) once to route
//! every message again (m messages, L the mean route length: what the
//! phase's set-up costs), only when the phase did not end at its best.

use super::Refine;
use super::bottleneck::Hot;

/// Hop-bytes (as a fraction of their value at the phase's start) that one
/// unit of relative fall of the largest load may buy: 0.1, one per cent of
/// hop-bytes for each ten per cent less largest load.
pub const LOAD_PRICE: f64 = 0.1;

/// The best state of the phase and the way back to it.
#[derive(Default)]
pub struct KeepBest {
    /// Hop-bytes at the phase's start.
    pub(super) hb0: f64,
    /// The best state's value, largest load and hop-bytes.
    pub(super) value: f64,
    pub(super) max: f64,
    pub(super) hb: f64,
    /// Exchanges kept since the best state: (process, slot it left), in
    /// order.
    pub(super) undo: Vec<(u32, u32)>,
    /// Whether the look-ahead has begun.
    pub(super) ahead: bool,
    /// Whether the extension (moves tried once the look-ahead is stuck)
    /// has begun: its states must pay for their hop-bytes against the best.
    pub(super) extending: bool,
    /// Exchanges undone when the phase went back to its best state.
    pub(super) undone: usize,
}

impl KeepBest {
    /// The phase starts at largest load `max` and hop-bytes `hb`.
    pub(super) fn start(&mut self, max: f64, hb: f64) {
        self.hb0 = hb;
        self.value = 0.0;
        self.max = max;
        self.hb = hb;
        self.undo.clear();
        self.ahead = false;
        self.extending = false;
    }

    /// A state's value: `price · g − max(0, r − budget)` for a relative
    /// fall `g` of the largest load and a relative rise `r` of hop-bytes
    /// (also how `grid` weighs its rivals).
    pub fn value(price: f64, g: f64, r: f64, budget: f64) -> f64 {
        price * g - (r - budget).max(0.0)
    }

    /// The relative fall of the largest load from `start_max` to `m`.
    fn gain(start_max: f64, m: f64) -> f64 {
        if start_max > 0.0 {
            ((start_max - m) / start_max).max(0.0)
        } else {
            0.0
        }
    }

    /// The hop-bytes a state whose largest load fell from `start_max` to
    /// `m` may have spent: `(β + ρ · g) · hb₀`.
    pub(super) fn allowance(&self, beta: f64, start_max: f64, m: f64) -> f64 {
        (beta + LOAD_PRICE * Self::gain(start_max, m)) * self.hb0
    }

    /// Record the state (largest load `m`, hop-bytes `hb`) if it is
    /// admissible and better than the best so far: of higher value, or the
    /// same value and a lower largest load, or both the same and fewer
    /// hop-bytes (`eps` apart).
    pub(super) fn see(&mut self, beta: f64, start_max: f64, m: f64, hb: f64, eps: f64) {
        let tol = 1e-9 * start_max;
        let r = (hb - self.hb0) / self.hb0.max(f64::MIN_POSITIVE);
        let value = Self::value(LOAD_PRICE, Self::gain(start_max, m), r, beta);
        let veps = 1e-12 + eps / self.hb0.max(f64::MIN_POSITIVE);
        if value < -veps {
            return;
        }
        let better = if (value - self.value).abs() > veps {
            value > self.value
        } else if (m - self.max).abs() > tol {
            m < self.max
        } else {
            hb < self.hb - eps
        };
        // In the extension a state must also pay for the hop-bytes it adds
        // to the best state's with the fall of the largest load below the
        // best's, at the price `ρ`, with no flat budget: what the flat
        // budget left unspent is not spent on nothing.
        let pays = !self.extending
            || (hb - self.hb) / self.hb0.max(f64::MIN_POSITIVE)
                <= LOAD_PRICE * (self.max - m) / start_max.max(f64::MIN_POSITIVE) + veps;
        if better && pays {
            self.value = value;
            self.max = m;
            self.hb = hb;
            self.undo.clear();
        }
    }

    /// The budget left during the look-ahead at hop-bytes `hb`:
    /// `(2β + ρ · g*) · hb₀` minus what was spent.
    pub(super) fn ahead_budget(&self, beta: f64, start_max: f64, hb: f64) -> f64 {
        beta * self.hb0 + self.allowance(beta, start_max, self.max) - (hb - self.hb0)
    }
}

impl Refine {
    /// Log that `p` left slot `s` for an exchange the phase keeps.
    pub(super) fn best_log(&self, h: &mut Hot, p: usize) {
        let s = self.node_of[p] as usize * self.cores + self.core_of[p] as usize;
        h.best.undo.push((p as u32, s as u32));
    }

    /// The phase is over: go back to its best state if it is not there
    /// (undo the logged exchanges, route every message again). The
    /// exchanges undone are added to the step's list. O(deg) per undone
    /// exchange plus O(m · L) when any is.
    pub(super) fn best_restore(&mut self, h: &mut Hot) {
        if h.best.undo.is_empty() {
            return;
        }
        let undo = std::mem::take(&mut h.best.undo);
        for &(p, s) in undo.iter().rev() {
            let ex = self.apply(p as usize, s as usize, 0.0);
            self.last.push(ex);
        }
        h.exchanges = h.exchanges.saturating_sub(undo.len());
        h.best.undone = undo.len();
        self.hb = self.total_hop_bytes();
        self.route_all();
        h.max = self.max_load();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Refine, RefineParams};
    use crate::graph::GraphBuilder;
    use crate::mapping::Mapping;
    use crate::metrics::evaluate;
    use crate::routing::Routing;
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn in_the_extension_a_state_pays_for_its_hop_bytes_against_the_best() {
        // Start: largest load 100, hop-bytes 1,000; flat budget 1 %. A state
        // at 99.9 and 1,005 hop-bytes spends 0.5 % (within the budget, so
        // free) for 0.1 % less load: value 0.1 · 0.001 = 0.0001 > 0, the best.
        let mut k = super::KeepBest::default();
        k.start(100.0, 1000.0);
        k.see(0.01, 100.0, 99.9, 1005.0, 0.0);
        assert_eq!((k.max, k.hb), (99.9, 1005.0));
        // 99.8 at 1,009.9 is still within the flat budget (0.99 %) and of
        // higher value (0.0002), so before the extension it would be the
        // best; in the extension it adds 0.49 % of hop-bytes to the best's
        // for 0.1 % less load, and 0.0049 > 0.1 · 0.001: refused.
        let mut before = super::KeepBest::default();
        before.start(100.0, 1000.0);
        before.see(0.01, 100.0, 99.9, 1005.0, 0.0);
        before.see(0.01, 100.0, 99.8, 1009.9, 0.0);
        assert_eq!((before.max, before.hb), (99.8, 1009.9));
        k.extending = true;
        k.see(0.01, 100.0, 99.8, 1009.9, 0.0);
        assert_eq!((k.max, k.hb), (99.9, 1005.0));
        // 94.9 at 1,006 adds 0.1 % for 5 % less load: 0.001 ≤ 0.005, kept.
        k.see(0.01, 100.0, 94.9, 1006.0, 0.0);
        assert_eq!((k.max, k.hb), (94.9, 1006.0));
    }

    #[test]
    fn the_phase_gives_back_hop_bytes_spent_on_a_tie_that_cannot_fall() {
        // mesh 2×2, node = x + 2y, dimension-order routing x first.
        // Messages (bytes): 0→2: 2, 1→0: 1, 1→2: 3, 2→1: 4; process 3 is
        // idle. Processes 0, 1, 2, 3 on nodes 2, 1, 0, 3: 0→2 goes down
        // (2→0: 2), 1→0 left then up (1→0, 0→2: 1), 1→2 left (1→0: 3), 2→1
        // right (0→1: 4). Loads 2→0 2, 1→0 4, 0→2 1, 0→1 4: the largest, 4,
        // on two channels. It is the least possible (2→1's 4 bytes cross
        // some channel, one core per node). Hop-bytes 2 + 2 + 3 + 4 = 11,
        // the least possible too (the 7 bytes between 1 and 2 take a hop,
        // and 0 next to 2 puts 0 and 1 on a diagonal: 7 + 2 + 1·2 = 11), so
        // the search keeps this mapping. The phase (budget 10 %, 1.1
        // hop-bytes) swaps 1 and 2: 2→1 goes left (1→0: 4), 1→2 right
        // (0→1: 3), 1→0 up (0→2: 1), 0→2 right then down (2→3, 3→1: 2
        // each): 0→1 falls from 4 to 3, Σ load² from 37 to 34, nothing
        // reaches 4 but 1→0, already there; hop-bytes 4 + 1 + 3 + 4 = 12.
        // Then no exchange can lower the largest load, and the phase goes
        // back to its start: the same largest load at one hop-byte less.
        let mut b = GraphBuilder::new(4, true);
        b.add(0, 2, 2.0);
        b.add(1, 0, 1.0);
        b.add(1, 2, 3.0);
        b.add(2, 1, 4.0);
        let g = Arc::new(b.build().unwrap());
        let topo = Arc::new(Topology::parse("mesh:2x2").unwrap());
        let vol = Arc::new(crate::partition::pair_volumes(&g));
        let start = Mapping::new(vec![2, 1, 0, 3], vec![0; 4]);
        let eval = |m: &Mapping| evaluate(&g, &topo, m, &Routing::Dor).metrics;
        assert_eq!(
            (eval(&start).hop_bytes, eval(&start).max_link_load),
            (11.0, 4.0)
        );
        let params = RefineParams::hand_checked(0.1);
        let mut r = Refine::new(g.clone(), topo.clone(), vol, start.clone(), params);
        let mut before_last = None;
        while !r.is_done() {
            before_last = Some(r.mapping());
            r.step();
        }
        // The swap was made (the step before the last ends with it) and
        // undone.
        let swapped = before_last.unwrap();
        assert_eq!(swapped.node, vec![2, 0, 1, 3]);
        assert_eq!(
            (eval(&swapped).hop_bytes, eval(&swapped).max_link_load),
            (12.0, 4.0)
        );
        assert_eq!(r.mapping(), start);
        assert_eq!(r.exchanges_undone(), 1);
        assert_eq!(r.load_phase(), Some((4.0, 4.0, 0)));
        assert_eq!(r.hop_bytes(), 11.0);
    }
}
