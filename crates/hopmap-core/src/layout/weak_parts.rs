//! Splitting a graph where it is barely joined — our addition, not in
//! Bobrik & Popova. Groups of processes that exchange a tiny share of their
//! bytes with the rest (k-point groups of a DFT code, independent replicas,
//! ensembles run in one job) attract each other so weakly that repulsion
//! pushes them apart without practical bound: the gravitational layout's
//! equilibrium distance between two groups of `a` and `b` points joined by
//! total weight `w` grows like `sqrt(a·b / w)`, so drawn to fit, every group
//! shrinks to a dot. [`weak_parts`] finds such groups, so that the layout can
//! treat them as it treats connected components: each laid out on its own
//! and packed side by side ([`super::pack`]).
//!
//! A *part* is a set of processes whose bytes to all other processes are at
//! most `τ` times its volume (`cut(P) ≤ τ · vol(P)`, where `vol(P)` is the
//! sum of its members' weighted degrees) and at most [`BISECTION_SHARE`] of
//! the bytes it takes to cut the part itself in two halves. The second test
//! makes the rule independent of size: a block of a large mesh has a
//! boundary small against its volume, but no smaller than a line across it,
//! so a mesh stays one piece however large it is. The parts are found in
//! three phases:
//!
//! 1. **Communities** by the Louvain method (Blondel, Guillaume, Lambiotte &
//!    Lefebvre, "Fast unfolding of communities in large networks", J. Stat.
//!    Mech. 2008): local moves of single vertices to the neighbouring
//!    community of the largest modularity gain, in vertex order, until a
//!    pass moves at most 1 % of the vertices; then the communities become
//!    the vertices of a smaller graph and the moves repeat, until a level
//!    merges nothing. No seed is
//!    needed: the order is the vertex order and ties keep the current (or
//!    the first) community, so the result is a function of the graph.
//! 2. **Merging** communities back until every part is weakly cut: the part
//!    with the largest ratio `cut / vol` above `τ` joins the neighbouring
//!    part it exchanges most bytes with (ties: the smaller id), until no
//!    ratio exceeds `τ`. Communities never join across connected components,
//!    so each part lies inside one component.
//! 3. **The bisection test**: each part that still has a cut is bisected
//!    (the multilevel bisection of [`crate::partition`], halves of equal
//!    size, seed 0); a part whose cut exceeds [`BISECTION_SHARE`] of its
//!    bisection's joins its heaviest neighbour, and the merged part is
//!    tested again, until every part passes. A component none of whose
//!    splits is weak ends as one part; a part of one process (whose
//!    bisection cuts nothing) is never laid out apart from its partners.
//!
//! Modularity communities are a finer split than needed (a grid falls into
//! many); the merging undoes every split whose cut is not weak, so the
//! result depends on `τ`, not on the resolution of the communities.
//!
//! Cost: each Louvain pass is O(m) with a scratch array per level, and the
//! aggregation sorts the level's edges, O(m log m); levels and passes are
//! few in practice (at most [`MAX_PASSES`] per level). Merging is
//! O(k log k + Σ deg) over the k communities with ordered maps and a lazy
//! heap. Each bisection test is O(m_P log n_P) on its part, and a part is
//! tested again only after a merge, so at most k times. Memory O(n + m).

use super::gravity::ForceGraph;
use crate::partition::{BisectParams, WGraph, bisect};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// Local-moving passes per Louvain level at most.
pub const MAX_PASSES: usize = 32;

/// The default `τ` of the layout: a group is laid out apart when at most 1 %
/// of its bytes leave it.
pub const DEFAULT_WEAK_CUT: f64 = 0.01;

/// A part is laid out apart only if its bytes to the rest are at most this
/// share of the bytes cut by its own bisection.
pub const BISECTION_SHARE: f64 = 0.1;

/// One level of the Louvain hierarchy: a symmetric weighted graph (each
/// pair stored in both directions, no self entries) with a self weight per
/// vertex (the weight inside it, counted from both ends).
struct Level {
    offsets: Vec<usize>,
    adj: Vec<(u32, f64)>,
    selfw: Vec<f64>,
}

impl Level {
    fn n(&self) -> usize {
        self.selfw.len()
    }
    fn row(&self, u: usize) -> &[(u32, f64)] {
        &self.adj[self.offsets[u]..self.offsets[u + 1]]
    }
    fn degree(&self, u: usize) -> f64 {
        self.selfw[u] + self.row(u).iter().map(|e| e.1).sum::<f64>()
    }

    fn from_force(g: &ForceGraph) -> Level {
        let n = g.n();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut adj = Vec::with_capacity(g.targets.len());
        let mut selfw = vec![0.0; n];
        offsets.push(0);
        for (u, s) in selfw.iter_mut().enumerate() {
            for k in g.offsets[u] as usize..g.offsets[u + 1] as usize {
                let (v, w) = (g.targets[k], g.weights[k] as f64);
                if !(w > 0.0) {
                    continue;
                }
                if v as usize == u {
                    *s += 2.0 * w;
                } else {
                    adj.push((v, w));
                }
            }
            offsets.push(adj.len());
        }
        Level {
            offsets,
            adj,
            selfw,
        }
    }

    /// The graph of the communities `comm` (numbered `0..k`).
    fn aggregate(&self, comm: &[u32], k: usize) -> Level {
        let mut selfw = vec![0.0; k];
        let mut triples: Vec<(u32, u32, f64)> = Vec::with_capacity(self.adj.len());
        for u in 0..self.n() {
            let cu = comm[u];
            selfw[cu as usize] += self.selfw[u];
            for &(v, w) in self.row(u) {
                let cv = comm[v as usize];
                if cu == cv {
                    selfw[cu as usize] += w;
                } else {
                    triples.push((cu, cv, w));
                }
            }
        }
        triples.sort_unstable_by_key(|t| (t.0, t.1));
        let mut offsets = vec![0usize; k + 1];
        let mut adj: Vec<(u32, f64)> = Vec::new();
        let mut last: Option<(u32, u32)> = None;
        for (a, b, w) in triples {
            if last == Some((a, b)) {
                if let Some(e) = adj.last_mut() {
                    e.1 += w;
                }
            } else {
                adj.push((b, w));
                offsets[a as usize + 1] += 1;
                last = Some((a, b));
            }
        }
        for c in 0..k {
            offsets[c + 1] += offsets[c];
        }
        Level {
            offsets,
            adj,
            selfw,
        }
    }
}

/// One Louvain level's local moves: the community of every vertex, numbered
/// `0..k` in order of first vertex, and `k`.
fn local_moves(l: &Level) -> (Vec<u32>, usize) {
    let n = l.n();
    let deg: Vec<f64> = (0..n).map(|u| l.degree(u)).collect();
    let m2: f64 = deg.iter().sum();
    let mut comm: Vec<u32> = (0..n as u32).collect();
    if !(m2 > 0.0) {
        return (comm, n);
    }
    let mut tot = deg.clone();
    let mut w_to = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    for _ in 0..MAX_PASSES {
        let mut moved = 0usize;
        for u in 0..n {
            let cu = comm[u];
            touched.clear();
            for &(v, w) in l.row(u) {
                let c = comm[v as usize];
                if w_to[c as usize] == 0.0 {
                    touched.push(c);
                }
                w_to[c as usize] += w;
            }
            tot[cu as usize] -= deg[u];
            // Gain of joining c (up to terms common to every c):
            // w(u, c) − deg(u) · tot(c) / 2m.
            let gain = |c: u32, w: f64| w - deg[u] * tot[c as usize] / m2;
            let mut best = cu;
            let mut best_gain = gain(cu, w_to[cu as usize]);
            let eps = 1e-12 * m2;
            for &c in &touched {
                let g = gain(c, w_to[c as usize]);
                if g > best_gain + eps {
                    best = c;
                    best_gain = g;
                }
            }
            tot[best as usize] += deg[u];
            if best != cu {
                comm[u] = best;
                moved += 1;
            }
            for &c in &touched {
                w_to[c as usize] = 0.0;
            }
        }
        // The communities need not be exact (the merging undoes every split
        // that is not weak): stop once a pass moves at most 1 % of the
        // vertices.
        if moved * 100 <= n {
            break;
        }
    }
    renumber(&mut comm)
}

/// Renumber labels `0..k` in order of first occurrence; returns `k`.
fn renumber(labels: &mut [u32]) -> (Vec<u32>, usize) {
    let mut map: Vec<u32> = vec![u32::MAX; labels.len().max(1)];
    let mut k = 0u32;
    for x in labels.iter_mut() {
        let slot = &mut map[*x as usize];
        if *slot == u32::MAX {
            *slot = k;
            k += 1;
        }
        *x = *slot;
    }
    (labels.to_vec(), k as usize)
}

/// Louvain communities of `g`: the community of every vertex (numbered
/// `0..k` in order of first vertex) and the community graph.
fn louvain(g: &ForceGraph) -> (Vec<u32>, Level) {
    let mut level = Level::from_force(g);
    let mut labels: Vec<u32> = (0..g.n() as u32).collect();
    loop {
        let (comm, k) = local_moves(&level);
        if k == level.n() {
            return (labels, level);
        }
        for x in labels.iter_mut() {
            *x = comm[*x as usize];
        }
        level = level.aggregate(&comm, k);
    }
}

/// The weakly joined parts of `g` with threshold `tau` (a fraction of a
/// part's volume): the part of every vertex, numbered `0..k` in order of
/// first vertex, and `k`. Vertices without edges are each a part.
pub fn weak_parts(g: &ForceGraph, tau: f64) -> (Vec<u32>, usize) {
    let (mut labels, cg) = louvain(g);
    let k = cg.n();
    // Per part: its volume, and its bytes to each neighbouring part.
    let mut vol: Vec<f64> = (0..k).map(|c| cg.degree(c)).collect();
    let mut nb: Vec<BTreeMap<u32, f64>> = (0..k)
        .map(|c| cg.row(c).iter().map(|&(d, w)| (d, w)).collect())
        .collect();
    let mut owner: Vec<u32> = (0..k as u32).collect();
    let mut version = vec![0u32; k];
    let ratio = |nb: &BTreeMap<u32, f64>, vol: f64| {
        let cut: f64 = nb.values().sum();
        if vol > 0.0 { cut / vol } else { 0.0 }
    };
    // Max-heap of (ratio, smaller id first, version); stale entries skipped.
    #[derive(PartialEq)]
    struct Entry(f64, u32, u32);
    impl Eq for Entry {}
    impl PartialOrd for Entry {
        fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
            Some(self.cmp(o))
        }
    }
    impl Ord for Entry {
        fn cmp(&self, o: &Self) -> std::cmp::Ordering {
            self.0.total_cmp(&o.0).then(o.1.cmp(&self.1))
        }
    }
    let mut heap: BinaryHeap<Entry> = (0..k)
        .map(|c| Entry(ratio(&nb[c], vol[c]), c as u32, 0))
        .collect();
    while let Some(Entry(r, a, ver)) = heap.pop() {
        let a = a as usize;
        if owner[a] != a as u32 || version[a] != ver {
            continue;
        }
        if r <= tau {
            break;
        }
        let Some(b) = heaviest(&nb[a]) else {
            continue;
        };
        let keep = merge(&mut nb, &mut vol, &mut owner, a, b);
        version[keep] += 1;
        heap.push(Entry(
            ratio(&nb[keep], vol[keep]),
            keep as u32,
            version[keep],
        ));
    }
    // The bisection test, until every part with a cut passes it.
    let root = |owner: &[u32], mut c: usize| {
        while owner[c] as usize != c {
            c = owner[c] as usize;
        }
        c
    };
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); k];
    for (u, &c) in labels.iter().enumerate() {
        members[root(&owner, c as usize)].push(u as u32);
    }
    // Smallest part first, so that a large part is bisected only once the
    // small parts around it have failed and joined it.
    let mut todo: BinaryHeap<Reverse<(usize, usize)>> = (0..k)
        .filter(|&c| owner[c] as usize == c && !nb[c].is_empty())
        .map(|c| Reverse((members[c].len(), c)))
        .collect();
    while let Some(Reverse((size, a))) = todo.pop() {
        if owner[a] as usize != a || nb[a].is_empty() || members[a].len() != size {
            continue;
        }
        let cut: f64 = nb[a].values().sum();
        if cut <= BISECTION_SHARE * bisection_cut(g, &members[a]) {
            continue;
        }
        let Some(b) = heaviest(&nb[a]) else {
            continue;
        };
        let keep = merge(&mut nb, &mut vol, &mut owner, a, b);
        let gone = if keep == a { b } else { a };
        let moved = std::mem::take(&mut members[gone]);
        members[keep].extend(moved);
        members[keep].sort_unstable();
        todo.push(Reverse((members[keep].len(), keep)));
    }
    let part: Vec<u32> = (0..k).map(|c| root(&owner, c) as u32).collect();
    for x in labels.iter_mut() {
        *x = part[*x as usize];
    }
    renumber(&mut labels)
}

/// The neighbour part exchanging most with a part (ties: the smaller id).
fn heaviest(nb: &BTreeMap<u32, f64>) -> Option<usize> {
    nb.iter()
        .fold(None, |best: Option<(u32, f64)>, (&d, &w)| match best {
            Some(x) if x.1 >= w => Some(x),
            _ => Some((d, w)),
        })
        .map(|(d, _)| d as usize)
}

/// Merge parts `a` and `b`: the smaller neighbour map goes into the larger,
/// whose id survives (returned). O(size of the smaller map · log k).
fn merge(
    nb: &mut [BTreeMap<u32, f64>],
    vol: &mut [f64],
    owner: &mut [u32],
    a: usize,
    b: usize,
) -> usize {
    let (keep, gone) = if nb[a].len() >= nb[b].len() {
        (a, b)
    } else {
        (b, a)
    };
    let moved = std::mem::take(&mut nb[gone]);
    for (&d, &w) in &moved {
        let d = d as usize;
        if d == keep {
            continue;
        }
        *nb[keep].entry(d as u32).or_insert(0.0) += w;
        if let Some(x) = nb[d].remove(&(gone as u32)) {
            *nb[d].entry(keep as u32).or_insert(0.0) += x;
        }
    }
    nb[keep].remove(&(gone as u32));
    vol[keep] += vol[gone];
    owner[gone] = keep as u32;
    keep
}

/// The weight cut by a bisection of `g` restricted to `members` (ascending)
/// into halves of equal size (one more on one side when odd).
fn bisection_cut(g: &ForceGraph, members: &[u32]) -> f64 {
    if members.len() < 2 {
        return 0.0;
    }
    let mut local = std::collections::HashMap::with_capacity(members.len());
    for (i, &u) in members.iter().enumerate() {
        local.insert(u, i as u32);
    }
    let mut edges = Vec::new();
    for (i, &u) in members.iter().enumerate() {
        let u = u as usize;
        for k in g.offsets[u] as usize..g.offsets[u + 1] as usize {
            if let Some(&j) = local.get(&g.targets[k])
                && (i as u32) < j
            {
                edges.push((i as u32, j, g.weights[k] as f64));
            }
        }
    }
    let wg = WGraph::from_edges(vec![1.0; members.len()], &edges);
    let half = members.len().div_ceil(2) as f64;
    bisect(&wg, [half, half], None, &BisectParams::default(), 0).cost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::layout::WeightNorm;

    fn parts_of(n: usize, pairs: &[(usize, usize, f64)], tau: f64) -> (Vec<u32>, usize) {
        let mut b = GraphBuilder::new(n, false);
        for &(u, v, w) in pairs {
            b.add(u, v, w);
        }
        let g = b.build().expect("graph");
        weak_parts(&ForceGraph::from_comm(&g, WeightNorm::Max), tau)
    }

    /// Two 4-cliques of weight 1 per pair, joined by one pair of weight `w`.
    /// Each clique's volume is 4 · 3 + w (every pair counted from both ends,
    /// plus the bridge); its cut is w.
    fn two_cliques(w: f64) -> Vec<(usize, usize, f64)> {
        let mut p = Vec::new();
        for base in [0, 4] {
            for i in 0..4 {
                for j in i + 1..4 {
                    p.push((base + i, base + j, 1.0));
                }
            }
        }
        p.push((3, 4, w));
        p
    }

    #[test]
    fn cliques_joined_by_a_light_pair_are_two_parts() {
        // cut / vol = 0.1 / 12.1 = 0.0083 ≤ 0.01: two parts.
        let (l, k) = parts_of(8, &two_cliques(0.1), 0.01);
        assert_eq!(k, 2);
        assert_eq!(l, vec![0, 0, 0, 0, 1, 1, 1, 1]);
        // cut / vol = 0.2 / 12.2 = 0.0164 > 0.01: one part.
        let (l, k) = parts_of(8, &two_cliques(0.2), 0.01);
        assert_eq!(k, 1);
        assert!(l.iter().all(|&x| x == 0));
    }

    #[test]
    fn a_grid_is_one_part_and_components_stay_apart() {
        // A 6 × 6 grid: Louvain cuts it into communities, none weakly cut.
        let mut p = Vec::new();
        for y in 0..6 {
            for x in 0..6 {
                let i = y * 6 + x;
                if x < 5 {
                    p.push((i, i + 1, 1.0));
                }
                if y < 5 {
                    p.push((i, i + 6, 1.0));
                }
            }
        }
        assert_eq!(parts_of(36, &p, 0.01).1, 1);
        // Two disconnected triangles and an isolated vertex: three parts,
        // whatever τ.
        let tri = [(0, 1, 1.0), (1, 2, 1.0), (0, 2, 1.0)];
        let mut q: Vec<_> = tri.to_vec();
        q.extend(tri.iter().map(|&(a, b, w)| (a + 4, b + 4, w)));
        let (l, k) = parts_of(7, &q, 1.0);
        assert_eq!(k, 3);
        assert_eq!(l, vec![0, 0, 0, 1, 2, 2, 2]);
    }

    /// A 60 × 60 mesh with τ = 5 %: a block of side L has cut 4L and
    /// volume 4L², a ratio of 1/L, so blocks of side 20 or more pass the
    /// volume test; but their cut is about 4 times a line across them (the
    /// bisection), so the mesh stays one piece.
    #[test]
    fn a_large_mesh_stays_one_part_by_the_bisection_test() {
        let side = 60;
        let mut p = Vec::new();
        for y in 0..side {
            for x in 0..side {
                let i = y * side + x;
                if x + 1 < side {
                    p.push((i, i + 1, 1.0));
                }
                if y + 1 < side {
                    p.push((i, i + side, 1.0));
                }
            }
        }
        assert_eq!(parts_of(side * side, &p, 0.05).1, 1);
    }

    #[test]
    fn a_hub_talking_to_every_group_lightly_joins_one() {
        // Three 4-cliques (weight 1) and a hub, vertex 12, sending 0.01 to
        // one member of each: each clique's cut is 0.01 / 12.01 ≤ 0.01,
        // but all of the hub's bytes leave it (ratio 1), so the hub joins
        // the group it talks to most: the first on the tie.
        let mut p = Vec::new();
        for base in [0, 4, 8] {
            for i in 0..4 {
                for j in i + 1..4 {
                    p.push((base + i, base + j, 1.0));
                }
            }
            p.push((base, 12, 0.01));
        }
        let (l, k) = parts_of(13, &p, 0.01);
        assert_eq!(k, 3);
        assert_eq!(l[12], l[0]);
        assert_ne!(l[0], l[4]);
        assert_ne!(l[4], l[8]);
    }
}
