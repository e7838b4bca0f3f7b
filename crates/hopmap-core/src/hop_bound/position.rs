//! A position-aware lower bound of hop-bytes: every process is charged the
//! distances of the best slots its partners could take around *its own*
//! position, and the positions are shared out by an optimal assignment.
//!
//! **The bound.** Take a slot `s` on node `x`. Every other slot lies at a
//! distance from `s`: `cores − 1` at 0 (the rest of `x`), `cores` at
//! `d(x, y)` for every other node `y`. Sorted, these are the *profile*
//! `δ_s(1) ≤ δ_s(2) ≤ …` of `s` (it depends on the node only). Let process
//! `p` have pair volumes (bytes both ways) `w_p(1) ≥ w_p(2) ≥ …` to its
//! partners, and let
//!
//! ```text
//! c(p, s) = Σ_k w_p(k) · δ_s(k).
//! ```
//!
//! *Claim 1: in any mapping φ with p on slot s,
//! Σ_v c_pv · d(φp, φv) ≥ c(p, s).* The partners sit on distinct slots other
//! than `s`, so their distances from `s` are a sub-multiset of the profile,
//! one entry each; pairing volumes sorted down with distances sorted up is
//! the least such sum (the rearrangement inequality; volumes are
//! non-negative, and an unused larger profile entry only raises the sum).
//!
//! *Claim 2: hop-bytes(φ) ≥ ½ · min over assignments σ of Σ_p c(p, σ(p)).*
//! Hop-bytes = ½ Σ_p Σ_v c_pv · d(φp, φv) (every pair counted from both
//! ends) ≥ ½ Σ_p c(p, φ(p)) by claim 1, and φ is itself an assignment of
//! processes to distinct slots, so the sum is at least the least one.
//!
//! Hence [`position_bound`] (the assignment's half-sum) holds for every
//! mapping. It is never below [`super::lower_bound`]: a profile starts with
//! `cores − 1` zeros and every later entry is at least one hop. It is
//! stronger where positions differ: on a mesh a border node has fewer
//! neighbours at one hop, and no node of an 8 × 8 mesh has the six a 3D
//! halo process would need.
//!
//! **Cost.** The profiles: O(N² log N) for N nodes (profiles equal up to
//! their first `deg` entries share a class; on a torus there is one class).
//! The costs: O(n · classes · deg). The assignment (Hungarian method,
//! [`super::assignment`]): O(n² · slots), done when that is at most
//! [`ASSIGN_WORK`]; else each process takes its own best class (a weaker
//! relaxation, still a lower bound). Networks of more than [`MAX_NODES`]
//! nodes get [`super::lower_bound`]. The result is lowered by a relative
//! 1e-9 so that rounding in the sums cannot lift it above an optimal
//! mapping's hop-bytes.

use super::assignment::min_cost;
use crate::graph::CommGraph;
use crate::topology::Topology;
use std::collections::HashMap;

/// Largest network (nodes) whose profiles are computed.
pub const MAX_NODES: usize = 4096;
/// Largest n² · slots for which the assignment is solved exactly.
pub const ASSIGN_WORK: usize = 150_000_000;

/// The position-aware lower bound of hop-bytes (module doc); 0 for a graph
/// without bytes, infinity when the graph does not fit the network.
pub fn position_bound(graph: &CommGraph, topo: &Topology) -> f64 {
    let n = graph.n();
    let nodes = topo.num_nodes();
    let cores = topo.cores().max(1);
    let slots = nodes * cores;
    if n > slots {
        return f64::INFINITY;
    }
    if nodes > MAX_NODES {
        return super::lower_bound(graph, topo);
    }
    // Each process's volumes, largest first.
    let vols: Vec<Vec<f64>> = (0..n)
        .map(|u| {
            let mut v: Vec<f64> = graph
                .edges_of(u)
                .map(|(_, _, c)| c)
                .filter(|&c| c > 0.0)
                .collect();
            v.sort_by(|a, b| b.total_cmp(a));
            v
        })
        .collect();
    let deg = vols.iter().map(Vec::len).max().unwrap_or(0);
    if deg == 0 {
        return 0.0;
    }
    // Profiles truncated to `deg` entries, grouped into classes.
    let mut class_of = vec![0usize; nodes];
    let mut profiles: Vec<Vec<u32>> = Vec::new();
    let mut index: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut d = Vec::with_capacity(slots);
    for x in 0..nodes {
        d.clear();
        d.extend(std::iter::repeat_n(0u32, cores - 1));
        for y in (0..nodes).filter(|&y| y != x) {
            let h = topo.distance(x, y);
            d.extend(std::iter::repeat_n(h, cores));
        }
        let k = deg.min(d.len());
        if k < d.len() {
            d.select_nth_unstable(k);
        }
        let mut p = d[..k].to_vec();
        p.sort_unstable();
        let next = profiles.len();
        let c = *index.entry(p.clone()).or_insert(next);
        if c == next {
            profiles.push(p);
        }
        class_of[x] = c;
    }
    // c(p, class).
    let cost: Vec<Vec<f64>> = vols
        .iter()
        .map(|w| {
            profiles
                .iter()
                .map(|prof| w.iter().zip(prof).map(|(a, &b)| a * b as f64).sum())
                .collect()
        })
        .collect();
    let total = if n.saturating_mul(n).saturating_mul(slots) <= ASSIGN_WORK {
        min_cost(n, slots, |p, s| cost[p][class_of[s / cores]])
    } else {
        cost.iter()
            .map(|row| row.iter().cloned().fold(f64::INFINITY, f64::min))
            .sum()
    };
    0.5 * total * (1.0 - 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn star(leaves: usize) -> CommGraph {
        let mut b = GraphBuilder::new(leaves + 1, true);
        for l in 1..=leaves {
            b.add(0, l, 1.0);
        }
        b.build().unwrap()
    }

    #[test]
    fn a_star_on_a_ring_pays_for_its_far_leaves() {
        // A star of 5 leaves (1 byte each) on a ring of 6: the centre's
        // profile is 1, 1, 2, 2, 3 (c = 9), each leaf's first entry is 1
        // (c = 1): ½ (9 + 5) = 7. The plain bound is ½ (5 + 5) = 5; the best
        // mapping (centre anywhere) costs 1 + 1 + 2 + 2 + 3 = 9.
        let g = star(5);
        let t = Topology::parse("torus:6").unwrap();
        let b = position_bound(&g, &t);
        assert!((b - 7.0).abs() < 1e-6, "{b}");
        assert_eq!(super::super::lower_bound(&g, &t), 5.0);
    }

    #[test]
    fn the_assignment_gives_the_middle_to_one_process_only() {
        // A triangle (1 byte per pair) on a path of 3 nodes (mesh:3). The
        // middle node's profile is 1, 1 (c = 2), an end node's 1, 2 (c = 3).
        // Each process alone would take the middle (½ · 3 · 2 = 3, the plain
        // bound too); the assignment gives it to one: ½ (2 + 3 + 3) = 4,
        // which every mapping reaches (1 + 1 + 2): the bound is tight.
        let mut b = GraphBuilder::new(3, true);
        for (u, v) in [(0, 1), (1, 2), (0, 2)] {
            b.add(u, v, 1.0);
        }
        let g = b.build().unwrap();
        let t = Topology::parse("mesh:3").unwrap();
        let pb = position_bound(&g, &t);
        assert!((pb - 4.0).abs() < 1e-6, "{pb}");
        assert!(pb <= 4.0);
        assert_eq!(super::super::lower_bound(&g, &t), 3.0);
    }
}
