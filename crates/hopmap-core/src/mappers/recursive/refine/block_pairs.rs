//! Pairs of block moves: the depth-2 step of the block phase
//! ([`super::blocks`]) on hierarchical switch fabrics.
//!
//! When no single exchange of two congruent subtrees' contents (two hosts,
//! two leaf switches' hosts, two pods under different parents) lowers
//! hop-bytes, the phase looks for two such exchanges on disjoint hosts
//! whose sum does, and applies the pair of least total change (ties: the
//! first found, so the phase stays deterministic).
//!
//! The total of a pair x, y is exact without applying either: x's change
//! alone plus y's alone, corrected on the edges between a unit x moves
//! (host a to x(a)) and a unit y moves (b to y(b)), where the pair's
//! change d(x(a), y(b)) − d(a, b) replaces the two single terms
//! d(x(a), b) − d(a, b) and d(a, y(b)) − d(a, b). Every other edge is
//! counted by one of the two single changes, or by neither when it is
//! left alone. So, for a first move x, the search walks the partners of
//! x's units and, through a list of the moves through each host (with
//! where each takes the host's contents), adds the correction to every
//! move y through a partner's host; a y that touches no partner of x's
//! units keeps its single change, and the pair cannot lower hop-bytes
//! then (neither single move does). Moves that share a host with x are
//! left out. The first moves are the [`PAIR_BREADTH`] single moves that
//! raise hop-bytes least (Lin and Kernighan's breadth at depth 2).
//!
//! Complexity per search: M single changes, O(M · c · deg) (M the moves of
//! every level, c the hosts per cluster, deg a unit's partners), then per
//! first move O(c · deg · r), r the moves through one host (≤ hosts + the
//! clusters of each level); memory O(M · c) for the host-to-move lists.
//! It runs on networks of at most [`MAX_PAIR_HOSTS`] hosts (on
//! `fattree:4:3`, 16 hosts, 136 moves; on `fattree:8:3`, 128 hosts, about
//! 8,400).
//!
//! Beyond the seeds: the depth-2 step of Lin and Kernighan ("An effective
//! heuristic algorithm for the traveling-salesman problem", Oper. Res. 21,
//! 1973) and of Glover's ejection chains, as the bottleneck phase's
//! [`super::chain`] makes for single processes, here over whole subtrees.
//! SharedMap (Schulz & Woydt, "Shared-memory hierarchical process
//! mapping") partitions top-down, pods first; a mapping built by recursive
//! bisection and refined can sit in a local optimum of single block moves
//! that one pair leaves: two exchanges that each raise hop-bytes (say two
//! hosts' contents across pods, then two leaves' across two other pods)
//! can lower them together (measured: `docs/mapping-quality.md`, "Pairs of
//! block moves on fat trees").

use super::blocks::Blocks;
use crate::stamps::Stamps;

/// Largest network (hosts) the pair search runs on.
pub const MAX_PAIR_HOSTS: usize = 512;

/// Largest network (hosts) on which every run's block phase makes pairs;
/// on larger ones only the polish does (`fattree:8:3`, 128 hosts: the
/// runs' pairs cost 0.1–0.3 s more there for the same results on the
/// LAMMPS and OpenFOAM captures; `fattree:4:3`, 16 hosts: a few ms, and
/// GPAW on `fattree:4:3:cores=8` gains only from them).
pub const RUN_PAIR_HOSTS: usize = 64;

/// First moves tried per search, the least harmful first.
pub const PAIR_BREADTH: usize = 256;

/// A block move: level, and its two clusters of that level.
pub(super) type Move = (usize, usize, usize);

impl Blocks {
    /// The pair of moves on disjoint hosts whose total change of hop-bytes
    /// is the lowest, when that lowers hop-bytes: (Δ, x, y). None on
    /// networks of more than [`MAX_PAIR_HOSTS`] hosts.
    pub(super) fn best_pair(&mut self) -> Option<(f64, Move, Move)> {
        let h = self.unit_on.len();
        if h > MAX_PAIR_HOSTS {
            return None;
        }
        let moves = self.all_moves();
        // The moves through each host, with where that host's contents go
        // in the move: by_host[off[a]..off[a + 1]].
        let mut off = vec![0usize; h + 1];
        for &(l, i, j) in &moves {
            for &a in self
                .hier
                .cluster(l, i)
                .iter()
                .chain(self.hier.cluster(l, j))
            {
                off[a as usize + 1] += 1;
            }
        }
        for a in 0..h {
            off[a + 1] += off[a];
        }
        let mut fill = off.clone();
        let mut by_host = vec![(0u32, 0u32); off[h]];
        for (m, &(l, i, j)) in moves.iter().enumerate() {
            let (x, y) = (self.hier.cluster(l, i), self.hier.cluster(l, j));
            for (&a, &b) in x.iter().zip(y) {
                by_host[fill[a as usize]] = (m as u32, b);
                fill[a as usize] += 1;
                by_host[fill[b as usize]] = (m as u32, a);
                fill[b as usize] += 1;
            }
        }
        let mut perm = std::mem::take(&mut self.perm);
        let mut inside = std::mem::take(&mut self.inside);
        // Each move's change alone.
        let single: Vec<f64> = moves
            .iter()
            .map(|&(l, i, j)| {
                self.delta(
                    &mut perm,
                    &mut inside,
                    self.hier.cluster(l, i),
                    self.hier.cluster(l, j),
                )
            })
            .collect();
        // The first moves: the PAIR_BREADTH that raise hop-bytes least
        // (ties: the single search's order).
        let mut first: Vec<usize> = (0..moves.len()).collect();
        first.sort_by(|&a, &b| single[a].total_cmp(&single[b]).then(a.cmp(&b)));
        first.truncate(PAIR_BREADTH);
        let mut overlap = Stamps::new(moves.len());
        let mut seen = Stamps::new(moves.len());
        let mut acc = vec![0.0f64; moves.len()];
        let mut cand: Vec<u32> = Vec::new();
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        let mut best: Option<(f64, Move, Move)> = None;
        for &xm in &first {
            let (l, i, j) = moves[xm];
            overlap.clear();
            seen.clear();
            xs.clear();
            xs.extend_from_slice(self.hier.cluster(l, i));
            ys.clear();
            ys.extend_from_slice(self.hier.cluster(l, j));
            // The moves through x's hosts are left out.
            overlap.insert(xm);
            for &a in xs.iter().chain(&ys) {
                for &(ym, _) in &by_host[off[a as usize]..off[a as usize + 1]] {
                    overlap.insert(ym as usize);
                }
            }
            // Any other move y changes the distances x changes only on the
            // edges between their units: there, the pair's change is
            // d(x a, y b) − d(a, b), against the parts x and y alone count,
            // d(x a, b) − d(a, b) and d(a, y b) − d(a, b).
            for (&a, &b) in xs.iter().zip(&ys) {
                perm[a as usize] = b;
                perm[b as usize] = a;
                inside[a as usize] = true;
                inside[b as usize] = true;
            }
            cand.clear();
            for &a in xs.iter().chain(&ys) {
                let a = a as usize;
                let u = self.unit_on[a] as usize;
                let pa = perm[a] as usize;
                for k in self.uoff[u] as usize..self.uoff[u + 1] as usize {
                    let b = self.at[self.unbr[k] as usize] as usize;
                    if inside[b] {
                        continue;
                    }
                    let w = self.uw[k];
                    let (dpb, dab) = (self.dist[pa * h + b] as f64, self.dist[a * h + b] as f64);
                    for &(ym, yb) in &by_host[off[b]..off[b + 1]] {
                        let ym = ym as usize;
                        if overlap.contains(ym) {
                            continue;
                        }
                        if seen.insert(ym) {
                            acc[ym] = 0.0;
                            cand.push(ym as u32);
                        }
                        let yb = yb as usize;
                        acc[ym] += w
                            * (self.dist[pa * h + yb] as f64 - dpb - self.dist[a * h + yb] as f64
                                + dab);
                    }
                }
            }
            for &a in xs.iter().chain(&ys) {
                perm[a as usize] = a;
                inside[a as usize] = false;
            }
            for &ym in &cand {
                let ym = ym as usize;
                let d = single[xm] + single[ym] + acc[ym];
                if d < -self.eps && best.is_none_or(|b| d < b.0) {
                    best = Some((d, (l, i, j), moves[ym]));
                }
            }
        }
        self.perm = perm;
        self.inside = inside;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::super::blocks::{Blocks, Hierarchy};
    use super::super::{Dist, RefineStop};
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn a_host_exchange_and_a_leaf_exchange_lower_hop_bytes_together_only() {
        // fattree:4:3 with one core per host: 16 hosts, 2 per leaf switch
        // (0 switch hops apart), 2 leaves per pod (2 hops), 4 pods (4
        // hops). Process p on host p; pairs 1–9 (2 bytes, pods 0 and 2:
        // 8 hop-bytes), 9–10 (6, one pod: 12), 4–10 (5, pods 1 and 2: 20),
        // and 8–9, 2–3, 10–11 (each within a leaf: 0): 40 hop-bytes. No
        // exchange of two hosts' contents, nor of two leaves', lowers them
        // (each leaves or splits more than it joins). Exchanging hosts 1
        // and 6 (process 1 into pod 1: 1–9 stays at 4 hops) and leaves
        // {4, 5} and {8, 9} (processes 8, 9 into pod 1 and 4 into pod 2):
        // 1–9 at 2 hops (4), 9–10 at 4 (24), 4–10 at 2 (10): 38.
        let t = Arc::new(Topology::parse("fattree:4:3").unwrap());
        let dist = Dist::new(t.clone());
        let edges = [
            (1, 9, 2.0),
            (9, 10, 6.0),
            (4, 10, 5.0),
            (8, 9, 4.0),
            (2, 3, 4.0),
            (10, 11, 6.0),
        ];
        let mut b = crate::graph::GraphBuilder::new(16, false);
        for &(u, v, w) in &edges {
            b.add(u, v, w);
        }
        let g = b.build().unwrap();
        let vol = crate::partition::pair_volumes(&g);
        let hb = |host: &[u32]| -> f64 {
            edges
                .iter()
                .map(|&(u, v, w)| w * t.distance(host[u] as usize, host[v] as usize) as f64)
                .sum()
        };
        let start: Vec<u32> = (0..16).collect();
        assert_eq!(hb(&start), 40.0);
        let hier = Hierarchy::of(&t, &dist).unwrap();
        let mut blocks = Blocks::new(&dist, &g, &vol, &start, hier, RefineStop::LocalOptimum);
        // No single move lowers hop-bytes.
        assert!(blocks.all_moves().iter().all(|&(l, i, j)| {
            let (mut perm, mut inside) = (blocks.perm.clone(), blocks.inside.clone());
            let (x, y) = (blocks.hier.cluster(l, i), blocks.hier.cluster(l, j));
            blocks.delta(&mut perm, &mut inside, x, y) >= 0.0
        }));
        let (d, x, y) = blocks.best_pair().unwrap();
        assert_eq!(d, -2.0);
        let pairs = blocks.step().unwrap();
        assert_eq!(blocks.moves(), 2, "one pair of moves");
        let mut sorted = pairs.clone();
        sorted.sort();
        assert_eq!(sorted, vec![(1, 6), (4, 8), (5, 9)], "{x:?} {y:?}");
        // Apply the host exchanges to the processes: 38 hop-bytes.
        let mut host = start.clone();
        for &(a, b) in &pairs {
            for h in host.iter_mut() {
                if *h == a {
                    *h = b;
                } else if *h == b {
                    *h = a;
                }
            }
        }
        assert_eq!(hb(&host), 38.0);
        // Nothing more lowers them.
        assert!(blocks.step().is_none());
        assert!(blocks.is_done());
    }
}
