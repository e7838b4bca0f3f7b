//! up*/down* routing tables for switch fabrics (Moh et al. §3.1, after
//! Autonet, Schroeder et al. 1990; the rule of OpenSM's `updn` engine).
//!
//! * **Levels.** A breadth-first search from the root switch(es) gives every
//!   switch its level (hops to the nearest root). The BFS tree (each switch's
//!   parent is its first neighbour one level up, in switch order) is kept for
//!   drawing; the routing depends only on the levels. With one root, the
//!   paper's "BFS tree that minimizes the height" is the tree rooted at a
//!   switch of minimum eccentricity, ties to the first in switch order
//!   ([`auto_root`]). Several roots (OpenSM's `-a` file, or every top switch
//!   of a fat tree) are a multi-source BFS.
//! * **Link directions.** A link's *up end* is the end nearer the root; when
//!   both ends are on the same level, the end first in the switch order. Our
//!   switch indices *are* the switch order (ascending GUID when the source
//!   gives GUIDs, else record order), so "first" is the smaller index.
//! * **Legal route.** Zero or more up moves, then zero or more down moves.
//!   A route is a walk in the state graph of `(switch, phase)`: phase 0 may
//!   still go up, phase 1 (after the first down move) may only go down.
//! * **Distances.** `dist(s, t)`: the shortest legal route from `s` to `t`
//!   in switch-to-switch hops; `down(s, t)`: the shortest down-only route
//!   (what is left once a route has turned). Both are S×S `u16` tables,
//!   column-major (`t * S + s`), computed by a breadth-first search over the
//!   state graph from *every* source at once: each state holds a bit set of
//!   the sources that reached it, and one round ORs the sets along every move.
//!   Cost O(D · M · S/64) word operations (D the largest distance, M the
//!   directed moves), parallel over target switches; memory 2·S² `u16` plus
//!   4·S²/8 bytes of bit sets while building.
//! * [`min_table`]: plain shortest paths (all moves legal, one phase), the
//!   same search; its rounds also give each switch's eccentricity.
//!
//! The routes themselves (the lexicographically smallest legal shortest route,
//! or the exact even split over all of them) are in
//! [`crate::routing::fabric_route`].

use rayon::prelude::*;

/// Marks an unreachable pair in a distance table.
pub const UNREACHABLE: u16 = u16::MAX;

/// The up*/down* structure of one choice of roots.
#[derive(Clone, Debug)]
pub struct UpDown {
    /// The root switches (sorted).
    pub roots: Vec<u32>,
    /// Level of each switch (hops from the nearest root).
    pub level: Vec<u32>,
    /// BFS-tree parent of each switch (None for a root).
    pub parent: Vec<Option<u32>>,
    /// Up end of each inter-switch link.
    pub up_end: Vec<u32>,
    /// Shortest legal route length, column-major: `dist[t * S + s]`.
    dist: Vec<u16>,
    /// Shortest down-only route length, column-major.
    down: Vec<u16>,
    s: usize,
    diameter: u32,
}

impl UpDown {
    /// Levels, link directions and both distance tables for `roots` on the
    /// switch graph with `s` switches and `links` (parallel links allowed).
    /// `adj[v]` lists `(neighbour, link)` of switch `v`.
    pub fn new(s: usize, links: &[(u32, u32)], adj: &[Vec<(u32, u32)>], roots: &[u32]) -> Self {
        let mut roots = roots.to_vec();
        roots.sort_unstable();
        roots.dedup();
        let (level, parent) = bfs_levels(s, adj, &roots);
        let up_end: Vec<u32> = links
            .iter()
            .map(|&(a, b)| {
                let (la, lb) = (level[a as usize], level[b as usize]);
                if la < lb || (la == lb && a < b) { a } else { b }
            })
            .collect();
        // In-moves of each switch: (from, is_up), deduplicated (parallel links
        // give the same move).
        let mut into: Vec<Vec<(u32, bool)>> = vec![Vec::new(); s];
        for (l, &(a, b)) in links.iter().enumerate() {
            let up = up_end[l];
            // Move a→b is up when b is the up end.
            into[b as usize].push((a, up == b));
            into[a as usize].push((b, up == a));
        }
        for v in &mut into {
            v.sort_unstable();
            v.dedup();
        }
        let dist = state_bfs(s, &into, false);
        let down = state_bfs(s, &into, true);
        let diameter = dist
            .iter()
            .filter(|&&d| d != UNREACHABLE)
            .copied()
            .max()
            .unwrap_or(0) as u32;
        UpDown {
            diameter,
            roots,
            level,
            parent,
            up_end,
            dist,
            down,
            s,
        }
    }

    /// Shortest legal route from switch `a` to switch `b`, in switch hops.
    #[inline]
    pub fn dist(&self, a: usize, b: usize) -> u16 {
        self.dist[b * self.s + a]
    }
    /// Shortest down-only route from `a` to `b` ([`UNREACHABLE`] if none).
    #[inline]
    pub fn down(&self, a: usize, b: usize) -> u16 {
        self.down[b * self.s + a]
    }
    /// Whether crossing link `l` from switch `from` is an up move.
    #[inline]
    pub fn is_up_move(&self, l: usize, links: &[(u32, u32)], from: u32) -> bool {
        let (a, b) = links[l];
        let to = if from == a { b } else { a };
        self.up_end[l] == to
    }
    /// Largest legal distance between two switches.
    pub fn diameter(&self) -> u32 {
        self.diameter
    }
    /// The tree height (largest level).
    pub fn height(&self) -> u32 {
        self.level.iter().copied().max().unwrap_or(0)
    }
}

/// Multi-source BFS levels and the BFS-tree parent (first neighbour one
/// level up, in switch order). Unreachable switches get level `u32::MAX`.
pub fn bfs_levels(
    s: usize,
    adj: &[Vec<(u32, u32)>],
    roots: &[u32],
) -> (Vec<u32>, Vec<Option<u32>>) {
    let mut level = vec![u32::MAX; s];
    let mut parent = vec![None; s];
    let mut queue: std::collections::VecDeque<u32> = std::collections::VecDeque::new();
    for &r in roots {
        if (r as usize) < s && level[r as usize] == u32::MAX {
            level[r as usize] = 0;
            queue.push_back(r);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &(v, _) in &adj[u as usize] {
            if level[v as usize] == u32::MAX {
                level[v as usize] = level[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    for v in 0..s {
        if level[v] == 0 || level[v] == u32::MAX {
            continue;
        }
        parent[v] = adj[v]
            .iter()
            .filter(|&&(u, _)| level[u as usize] + 1 == level[v])
            .map(|&(u, _)| u)
            .min();
    }
    (level, parent)
}

/// The root of the minimum-height BFS tree: a switch of minimum eccentricity,
/// ties to the first in switch order. `ecc` from [`min_table`].
pub fn auto_root(ecc: &[u32]) -> u32 {
    let mut best = 0usize;
    for (v, &e) in ecc.iter().enumerate() {
        if e < ecc[best] {
            best = v;
        }
    }
    best as u32
}

/// Bit-set BFS from every source at once over the `(switch, phase)` state
/// graph. `down_only`: the sources start in phase 1 (the `down` table);
/// otherwise in phase 0 (the `dist` table, min over both phases).
fn state_bfs(s: usize, into: &[Vec<(u32, bool)>], down_only: bool) -> Vec<u16> {
    let w = s.div_ceil(64);
    let mut table = vec![UNREACHABLE; s * s];
    // r0: reached in phase 0; r1: reached in phase 1. Row v = words v*w..
    let mut r0 = vec![0u64; s * w];
    let mut r1 = vec![0u64; s * w];
    for v in 0..s {
        let row = if down_only { &mut r1 } else { &mut r0 };
        row[v * w + v / 64] |= 1 << (v % 64);
        table[v * s + v] = 0;
    }
    let mut n0 = r0.clone();
    let mut n1 = r1.clone();
    let mut d: u16 = 0;
    loop {
        d += 1;
        let changed: bool = n0
            .par_chunks_mut(w)
            .zip(n1.par_chunks_mut(w))
            .zip(table.par_chunks_mut(s))
            .enumerate()
            .map(|(v, ((a0, a1), col))| {
                a0.copy_from_slice(&r0[v * w..(v + 1) * w]);
                a1.copy_from_slice(&r1[v * w..(v + 1) * w]);
                for &(u, up) in &into[v] {
                    let u = u as usize;
                    let (u0, u1) = (&r0[u * w..(u + 1) * w], &r1[u * w..(u + 1) * w]);
                    if up {
                        // An up move keeps phase 0 (phase 1 cannot go up).
                        for k in 0..w {
                            a0[k] |= u0[k];
                        }
                    } else {
                        for k in 0..w {
                            a1[k] |= u0[k] | u1[k];
                        }
                    }
                }
                let mut ch = false;
                for k in 0..w {
                    let mut new = (a0[k] & !r0[v * w + k]) | (a1[k] & !r1[v * w + k]);
                    while new != 0 {
                        let b = new.trailing_zeros() as usize;
                        new &= new - 1;
                        let src = k * 64 + b;
                        if col[src] == UNREACHABLE {
                            col[src] = d;
                            ch = true;
                        }
                    }
                    ch |= a0[k] != r0[v * w + k] || a1[k] != r1[v * w + k];
                }
                ch
            })
            .reduce(|| false, |a, b| a | b);
        std::mem::swap(&mut r0, &mut n0);
        std::mem::swap(&mut r1, &mut n1);
        if !changed || d == UNREACHABLE - 1 {
            break;
        }
    }
    table
}

/// Plain shortest-path table (column-major `u16`, all moves legal) and each
/// switch's eccentricity (`u32::MAX` when some switch is unreachable).
pub fn min_table(s: usize, adj: &[Vec<(u32, u32)>]) -> (Vec<u16>, Vec<u32>) {
    let into: Vec<Vec<(u32, bool)>> = adj
        .iter()
        .map(|v| {
            let mut m: Vec<(u32, bool)> = v.iter().map(|&(u, _)| (u, true)).collect();
            m.sort_unstable();
            m.dedup();
            m
        })
        .collect();
    // With every move "up", phase 0 is the whole search.
    let table = state_bfs(s, &into, false);
    let mut ecc = vec![0u32; s];
    for t in 0..s {
        for src in 0..s {
            let d = table[t * s + src];
            ecc[src] = if d == UNREACHABLE || ecc[src] == u32::MAX {
                u32::MAX
            } else {
                ecc[src].max(d as u32)
            };
        }
    }
    (table, ecc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adj_of(s: usize, links: &[(u32, u32)]) -> Vec<Vec<(u32, u32)>> {
        let mut adj = vec![Vec::new(); s];
        for (l, &(a, b)) in links.iter().enumerate() {
            adj[a as usize].push((b, l as u32));
            adj[b as usize].push((a, l as u32));
        }
        for v in &mut adj {
            v.sort_unstable();
        }
        adj
    }

    #[test]
    fn three_switch_line() {
        // 0 - 1 - 2; the centre is the root.
        let links = [(0, 1), (1, 2)];
        let adj = adj_of(3, &links);
        let (m, ecc) = min_table(3, &adj);
        assert_eq!(ecc, vec![2, 1, 2]);
        assert_eq!(m[2 * 3], 2);
        assert_eq!(auto_root(&ecc), 1);
        let ud = UpDown::new(3, &links, &adj, &[1]);
        assert_eq!(ud.level, vec![1, 0, 1]);
        assert_eq!(ud.up_end, vec![1, 1]);
        assert_eq!(ud.dist(0, 2), 2);
        assert_eq!(ud.dist(2, 0), 2);
        assert_eq!(ud.down(1, 0), 1);
        assert_eq!(ud.down(0, 2), UNREACHABLE);
        // Rooted at an end, the line is one long down path.
        let ud = UpDown::new(3, &links, &adj, &[0]);
        assert_eq!(ud.level, vec![0, 1, 2]);
        assert_eq!(ud.dist(2, 0), 2);
        assert_eq!(ud.down(0, 2), 2);
        assert_eq!(ud.parent, vec![None, Some(0), Some(1)]);
    }

    #[test]
    fn a_valley_is_forbidden() {
        // 0-4, 4-1, 0-2, 1-3, 2-3 rooted at 0. Levels 0:0, 4:1, 2:1, 1:2, 3:2.
        // Link 1-3 is level with level: its up end is 1 (first in order).
        // 2→3 is down and 3→1 is up: the 2-hop path 2→3→1 is illegal, so
        // up*/down* takes 2→0→4→1.
        let links = [(0, 4), (4, 1), (0, 2), (1, 3), (2, 3)];
        let adj = adj_of(5, &links);
        let ud = UpDown::new(5, &links, &adj, &[0]);
        assert_eq!(ud.level, vec![0, 2, 1, 2, 1]);
        assert_eq!(ud.up_end, vec![0, 4, 0, 1, 2]);
        let (m, _) = min_table(5, &adj);
        assert_eq!(m[5 + 2], 2); // minimal 2→1
        assert_eq!(ud.dist(2, 1), 3);
        assert_eq!(ud.dist(1, 2), 3);
        assert_eq!(ud.dist(3, 1), 1);
        assert_eq!(ud.diameter(), 3);
    }
}
