//! The bottleneck phase's second start: the image of its start of least
//! largest load, run as a second try and kept only when it pays.
//!
//! Where the bottleneck phase ([`super::bottleneck`]) ends depends on
//! where it starts, and the images of its start under the mesh's or
//! torus's symmetries ([`super::images`]) have the same hop-bytes but other
//! dimension-order routes: other channels at the maximum, so other
//! exchanges that relieve them. Ending at an image of the result
//! ([`Refine::best_image`]) cannot reach what the phase would have found
//! from an image of its start. So on graphs of fewer than
//! [`PAIRS_BELOW`](super::chain::PAIRS_BELOW) processes, once the phase
//! has ended (at its best state, then that state's best image), when the
//! start has an image of strictly lower largest load, the phase runs once
//! more from that image, with the same rules and the same flat budget
//! (`load_budget` × the hop-bytes at its start, equal for both starts), and
//! its result replaces the first one only when it [`pays`]: fewer
//! hop-bytes at no more largest load, or a lower largest load with
//! hop-bytes raised by at most [`LOAD_PRICE`](super::keep_best::LOAD_PRICE)
//! × the relative fall of the largest load. Otherwise the mapping goes back
//! to the first result. So the phase's result is never worse than the one
//! from its own start by that rule; a second start that only moves the
//! path (more hop-bytes at the same load, or a higher load) is dropped.
//!
//! Cost: O(n) to remember the start; at the end O(images · m · L) to find
//! the start's best image, then (only when one is lower) the phase once
//! more and O(n · deg + m · L) to move between the two results. At most
//! twice the phase. Deterministic: the images in a fixed order, the same
//! rounds.
//!
//! Beyond the seeds: a restart of the local search from a symmetric image
//! of its start (the network's automorphisms keep hop-bytes, not
//! dimension-order loads), judged by the phase's own price, as the
//! polished runs of [`alternatives`](super::super::alternatives) are.

use super::super::alternatives::pays;
use super::bottleneck::Hot;
use super::{FREE, Refine};

/// The two starts of the bottleneck phase.
#[derive(Default)]
pub struct SecondStart {
    /// The slot of each process when the first start's set-up ended
    /// (empty: not recorded, or the second start has begun).
    start: Vec<u32>,
    /// The first start's result once the second runs: slots, hop-bytes,
    /// largest load, the largest load at its start, exchanges and pairs
    /// kept.
    first: Option<First>,
}

struct First {
    slots: Vec<u32>,
    hb: f64,
    max: f64,
    start_max: f64,
    exchanges: usize,
    chains: usize,
}

impl SecondStart {
    /// Whether the phase now runs from its second start.
    pub fn running(&self) -> bool {
        self.first.is_some()
    }
}

impl Refine {
    /// Each process's slot. O(n).
    fn slots(&self) -> Vec<u32> {
        (0..self.graph.n())
            .map(|p| self.node_of[p] * self.cores as u32 + self.core_of[p])
            .collect()
    }

    /// Move every process to its slot in `slots` (each move swaps out
    /// whoever holds the slot; a process once placed is never displaced,
    /// since the slots differ); hop-bytes recomputed, loads not.
    /// O(n · deg).
    fn move_to(&mut self, slots: &[u32]) {
        for (p, &s) in slots.iter().enumerate() {
            let here = self.node_of[p] as usize * self.cores + self.core_of[p] as usize;
            if here != s as usize {
                debug_assert!(self.owner[s as usize] == FREE || self.owner[s as usize] != p as u32);
                let ex = self.apply(p, s as usize, 0.0);
                self.last.push(ex);
            }
        }
        self.hb = self.total_hop_bytes();
    }

    /// The phase's set-up is over: remember its start (first start only,
    /// fewer than [`PAIRS_BELOW`](super::chain::PAIRS_BELOW) processes).
    /// O(n).
    pub(super) fn second_record(&mut self, h: &mut Hot) {
        if self.graph.n() < super::chain::PAIRS_BELOW && !h.second.running() {
            h.second.start = self.slots();
        }
    }

    /// The phase has ended (at its best state and that state's best
    /// image). After the first start: when the start has an image of lower
    /// largest load, move there and set the phase up anew (false: not over);
    /// after the second: keep whichever result [`pays`] (true).
    /// O(images · m · L) + O(n · deg + m · L) to move.
    pub(super) fn second_start(&mut self, h: &mut Hot) -> bool {
        if h.second.running() {
            self.second_settle(h);
            return true;
        }
        let start = std::mem::take(&mut h.second.start);
        if start.is_empty() {
            return true;
        }
        let c = self.cores as u32;
        let nodes: Vec<u32> = start.iter().map(|&s| s / c).collect();
        let Some(map) = self.least_image(&nodes, h.start_max) else {
            return true;
        };
        h.second.first = Some(First {
            slots: self.slots(),
            hb: self.total_hop_bytes(),
            max: h.max,
            start_max: h.start_max,
            exchanges: h.exchanges,
            chains: h.chains,
        });
        let image: Vec<u32> = start
            .iter()
            .map(|&s| map[(s / c) as usize] * c + s % c)
            .collect();
        self.move_to(&image);
        h.restart();
        false
    }

    /// The second start has ended (or the phase is cut short while it
    /// runs): go back to the first start's result unless the second's
    /// [`pays`] against it. O(m · L + n · deg) when it goes back.
    pub(super) fn second_settle(&mut self, h: &mut Hot) {
        let Some(first) = h.second.first.take() else {
            return;
        };
        // The loads from scratch: the phase may have been cut short in its
        // set-up.
        self.route_all();
        let hb = self.total_hop_bytes();
        let m = self.max_load();
        if !pays((first.hb, first.max), (hb, m)) {
            self.move_to(&first.slots);
            self.route_all();
            h.exchanges = first.exchanges;
            h.chains = first.chains;
        }
        h.start_max = first.start_max;
        h.max = self.max_load();
    }
}
