//! findNearest on a switch fabric (Moh et al.'s routing topology G'_p with
//! Bhatele & Kale's §III findNearest): the free host nearest to a desired
//! host by up*/down* routing distance (switch hops; hosts on one switch are
//! 0 apart, so the desired host's switch-mates come first).
//!
//! The desired position is one coordinate, a host (node) id (rounded,
//! clamped to `0..H`). Tie-break: among free hosts at the same distance the
//! smallest node id wins — the same rule as on grids. The search is a
//! breadth-first scan in distance order realised with the precomputed
//! distance table: one pass over the switches, each keeping a cursor to its
//! lowest-id host with a free core (cursors only advance, as cores are only
//! taken). O(S) per query, O(1) amortised per take.

use super::FindNearest;
use crate::topology::{Fabric, Grid};

/// Nearest free host by routing distance.
#[derive(Clone, Debug)]
pub struct FabricFinder {
    fabric: Fabric,
    /// The 1-D stand-in grid (H nodes, `cores` each) the placer indexes slots by.
    line: Grid,
    free: Vec<u32>,
    total: usize,
    cores: u32,
    /// Per switch: index into `hosts_on` of its first host with a free core.
    cursor: Vec<usize>,
}

impl FabricFinder {
    pub fn new(fabric: &Fabric) -> Self {
        let cores = fabric.cores();
        let h = fabric.num_hosts();
        FabricFinder {
            fabric: fabric.clone(),
            line: line_grid(fabric),
            free: vec![cores; h],
            total: h * cores as usize,
            cores,
            cursor: vec![0; fabric.num_switches()],
        }
    }
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }
    fn first_free(&self, s: usize) -> Option<usize> {
        self.fabric
            .hosts_on(s)
            .get(self.cursor[s])
            .map(|&h| h as usize)
    }
}

/// The 1-D grid whose node ids are the fabric's hosts (for slot indexing).
pub fn line_grid(f: &Fabric) -> Grid {
    Grid::new(&[f.num_hosts() as u32], &[false], f.cores()).unwrap_or_else(|_| Grid::mesh(&[1]))
}

impl FindNearest for FabricFinder {
    fn find(&self, desired: &[f64]) -> Option<usize> {
        if self.total == 0 {
            return None;
        }
        let h = self.fabric.num_hosts();
        let x = desired.first().copied().unwrap_or(0.0);
        let node = if x.is_finite() {
            (x.round().max(0.0) as usize).min(h - 1)
        } else {
            0
        };
        if self.free[node] > 0 {
            return Some(node);
        }
        let s0 = self.fabric.switch_of(node);
        let ud = self.fabric.updown();
        let mut best: Option<(u16, usize)> = None;
        for s in 0..self.fabric.num_switches() {
            let Some(host) = self.first_free(s) else {
                continue;
            };
            let d = if s == s0 { 0 } else { ud.dist(s0, s) };
            if best.is_none_or(|b| (d, host) < b) {
                best = Some((d, host));
            }
        }
        best.map(|b| b.1)
    }
    fn take(&mut self, node: usize) -> Option<u32> {
        let f = self.free.get_mut(node)?;
        if *f == 0 {
            return None;
        }
        let core = self.cores - *f;
        *f -= 1;
        self.total -= 1;
        if *f == 0 {
            let s = self.fabric.switch_of(node);
            let on = self.fabric.hosts_on(s);
            while self.cursor[s] < on.len() && self.free[on[self.cursor[s]] as usize] == 0 {
                self.cursor[s] += 1;
            }
        }
        Some(core)
    }
    fn free_cores(&self, node: usize) -> u32 {
        self.free.get(node).copied().unwrap_or(0)
    }
    fn free_slots(&self) -> usize {
        self.total
    }
    fn grid(&self) -> &Grid {
        &self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn nearest_by_routing_distance_then_smallest_id() {
        let t = Topology::parse("fabric:moh-fig2").unwrap();
        let f = t.as_fabric().unwrap();
        let mut ff = FabricFinder::new(f);
        // m0..m3 on S0; taking them sends the next query from m0 to the
        // nearest switch: S1, S2, S3 at distance 1 → smallest id m4 (S1).
        for m in 0..4 {
            assert_eq!(ff.find(&[0.0]), Some(m));
            ff.take(m);
        }
        assert_eq!(ff.find(&[0.0]), Some(4));
        // From m9 (S4): m10 shares S4; then S1 (m4, distance 1) before S8
        // (m15, distance 1, larger id); S7 (distance 3) last.
        assert_eq!(ff.find(&[9.0]), Some(9));
        ff.take(9);
        assert_eq!(ff.find(&[9.0]), Some(10));
        ff.take(10);
        assert_eq!(ff.find(&[9.2]), Some(4));
        assert_eq!(ff.free_slots(), 10);
    }
}
