//! Pairs of block moves: the depth-2 step of the block phase
//! ([`super::blocks`]) on hierarchical switch fabrics.
//!
//! When no single exchange of two congruent subtrees' contents (two hosts,
//! two leaf switches' hosts, two pods) lowers hop-bytes, the phase looks
//! for two in a row whose sum does: for every move x (in the order the
//! single search tries them), x is applied to the phase's own state, and
//! every move y that can interact with it is evaluated exactly after it;
//! the pair of least total change is applied when that total lowers
//! hop-bytes (ties: the first found, so the phase stays deterministic).
//!
//! Only moves that touch a host of x, or a host holding a partner of a
//! unit x moved, can interact with it: any other y moves units that have
//! no edge to x's units, so its change after x is its change alone, which
//! does not lower hop-bytes (no single move does), and neither does the
//! pair. The candidates are read from a list of the moves through each
//! host, and each y is evaluated once per x (generation stamps).
//!
//! Complexity: one search costs O(M · (deg_x + R · c · deg)) with M the
//! moves of every level, R the moves through x's hosts and its units'
//! partners' hosts (at most M), c the hosts per cluster and deg a unit's
//! partners; memory O(M · c) for the host-to-move lists. It runs on
//! networks of at most [`MAX_PAIR_HOSTS`] hosts (on `fattree:4:3`, 136
//! moves; on `fattree:8:3`, 128 hosts, about 8,400).
//!
//! Beyond the seeds: the depth-2 step of Lin and Kernighan ("An effective
//! heuristic algorithm for the traveling-salesman problem", Oper. Res. 21,
//! 1973) and Glover's ejection chains ("Ejection chains, reference
//! structures and alternating path methods for traveling salesman
//! problems", Discrete Appl. Math. 65, 1996), as the bottleneck phase's
//! [`super::chain`] does for single processes, here over whole subtrees.
//! SharedMap (Schulz & Woydt, "Shared-memory hierarchical process
//! mapping", 2025) partitions top-down, pods first; a mapping built and
//! refined bottom-up can sit in a local optimum of single block moves from
//! which a leaf's halves must change pods while two leaves change pods
//! too: on GROMACS's 64-rank capture on `fattree:4:3:cores=4`, exchanging
//! two hosts' contents across pods (+3.9 M hop-bytes) and then two leaves'
//! (+3.9 M alone) lowers hop-bytes by 13,228 together, below SharedMap's
//! (`docs/mapping-quality.md`, "Pairs of block moves on fat trees").

use super::blocks::Blocks;

/// Largest network (hosts) the pair search runs on.
pub const MAX_PAIR_HOSTS: usize = 128;

/// A block move: level, and its two clusters of that level.
pub(super) type Move = (usize, usize, usize);

impl Blocks {
    /// Every move the single search tries, in its order: two clusters of
    /// one level with as many hosts, under different parents, not both
    /// silent. O(Σ_levels clusters² · cluster size).
    pub(super) fn all_moves(&self) -> Vec<Move> {
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

    /// The pair of moves, x then y, whose total change of hop-bytes is the
    /// lowest, when that lowers hop-bytes: (Δ, x, y). None on networks of
    /// more than [`MAX_PAIR_HOSTS`] hosts. The state is left as found.
    pub(super) fn best_pair(&mut self) -> Option<(f64, Move, Move)> {
        let h = self.unit_on.len();
        if h > MAX_PAIR_HOSTS {
            return None;
        }
        let moves = self.all_moves();
        // The moves through each host: by_host[off[a]..off[a + 1]].
        let mut off = vec![0usize; h + 1];
        for &(l, i, j) in &moves {
            for &a in self.hier.cluster(l, i).iter().chain(self.hier.cluster(l, j)) {
                off[a as usize + 1] += 1;
            }
        }
        for a in 0..h {
            off[a + 1] += off[a];
        }
        let mut fill = off.clone();
        let mut by_host = vec![0u32; off[h]];
        for (m, &(l, i, j)) in moves.iter().enumerate() {
            for &a in self.hier.cluster(l, i).iter().chain(self.hier.cluster(l, j)) {
                by_host[fill[a as usize]] = m as u32;
                fill[a as usize] += 1;
            }
        }
        let mut perm = std::mem::take(&mut self.perm);
        let mut inside = std::mem::take(&mut self.inside);
        let mut move_seen = vec![0u32; moves.len()];
        let mut host_seen = vec![0u32; h];
        let mut touched: Vec<u32> = Vec::new();
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        let mut best: Option<(f64, Move, Move)> = None;
        for (xm, &(l, i, j)) in moves.iter().enumerate() {
            let mark = xm as u32 + 1;
            xs.clear();
            xs.extend_from_slice(self.hier.cluster(l, i));
            ys.clear();
            ys.extend_from_slice(self.hier.cluster(l, j));
            let dx = self.delta(&mut perm, &mut inside, &xs, &ys);
            self.swap_units(&xs, &ys);
            // The hosts of x and of its units' partners.
            touched.clear();
            for &a in xs.iter().chain(&ys) {
                if host_seen[a as usize] != mark {
                    host_seen[a as usize] = mark;
                    touched.push(a);
                }
                let u = self.unit_on[a as usize] as usize;
                for k in self.uoff[u] as usize..self.uoff[u + 1] as usize {
                    let b = self.at[self.unbr[k] as usize];
                    if host_seen[b as usize] != mark {
                        host_seen[b as usize] = mark;
                        touched.push(b);
                    }
                }
            }
            move_seen[xm] = mark;
            for &a in &touched {
                for &ym in &by_host[off[a as usize]..off[a as usize + 1]] {
                    if move_seen[ym as usize] == mark {
                        continue;
                    }
                    move_seen[ym as usize] = mark;
                    let (l2, i2, j2) = moves[ym as usize];
                    let dy = self.delta(
                        &mut perm,
                        &mut inside,
                        self.hier.cluster(l2, i2),
                        self.hier.cluster(l2, j2),
                    );
                    let d = dx + dy;
                    if d < -self.eps && best.is_none_or(|b| d < b.0) {
                        best = Some((d, (l, i, j), (l2, i2, j2)));
                    }
                }
            }
            self.swap_units(&xs, &ys);
        }
        self.perm = perm;
        self.inside = inside;
        best
    }
}
