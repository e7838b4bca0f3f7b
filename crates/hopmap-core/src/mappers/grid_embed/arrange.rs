//! Rearrange the hyperplanes of a mesh's open dimensions: an optimal
//! linear arrangement of the layers of a mapping along one dimension.
//!
//! On a mesh, a pair's hops are the sum over the dimensions of its
//! coordinates' differences, so hop-bytes split into one sum per dimension,
//! and the sum along an open dimension depends only on which layer
//! (hyperplane: the nodes of one coordinate) each process is in. Permuting
//! the layers of one dimension keeps every process's other coordinates and
//! its core, so it gives a mapping again, and the layers can be put in the
//! order of least hop-bytes along that dimension, each dimension on its
//! own. That order is a minimum linear arrangement (Harper 1964) of the
//! layers weighted by the bytes between them: for a grid folded into a mesh
//! it replaces the snake order of the fold's digits (which steps cost one
//! hop, which three) by the order best for the pairs' real volumes, and it
//! moves whole columns of any mapping, which no exchange of two processes
//! does.
//!
//! Algorithm: the arrangement's cost is the sum, over the k − 1 gaps
//! between consecutive layers, of the bytes crossing the gap, so a dynamic
//! programme over the sets S of layers placed first (Held & Karp's over
//! subsets) gives it exactly: f(S) = min over the last layer u of S of
//! f(S ∖ u) + cut(S), O(2^k · k) time and O(2^k) memory, for k ≤ [`EXACT`].
//! Longer dimensions are improved a window of [`WINDOW`] consecutive layers
//! at a time, the layers outside fixed (each window layer then also pays
//! its position times the bytes to the left minus those to the right), the
//! windows overlapping by half, for at most [`PASSES`] passes: O(PASSES ·
//! k · 2^WINDOW). A window's order is changed only when strictly cheaper,
//! so the result is never worse than the order given. Dimensions of more
//! than [`MAX_LAYERS`] layers are left as they are (the weights between
//! layers take k² memory). Beyond the seeds:
//! the separation of hop-bytes by dimension on a mesh, applied to whole
//! layers.

use crate::graph::CommGraph;
use crate::mapping::Mapping;
use crate::topology::grid::Grid;

/// Longest dimension arranged exactly, all layers at once.
pub const EXACT: usize = 16;
/// Layers arranged at once on a longer dimension.
pub const WINDOW: usize = 12;
/// Most passes of windows over a longer dimension.
pub const PASSES: usize = 4;
/// Longest dimension arranged at all (its k × k weights are kept): a longer
/// one stays as it is, so memory stays bounded on a huge mesh.
pub const MAX_LAYERS: usize = 64;

/// Whether [`layer_perms`] arranges dimension `t` of `net`: open, of 3 to
/// [`MAX_LAYERS`] layers.
pub fn arranged_dim(net: &Grid, t: usize) -> bool {
    let k = net.dims()[t] as usize;
    !net.wraps(t) && (3..=MAX_LAYERS).contains(&k)
}

/// Cost of `order` (`order[i]` = the layer at position i) under the
/// symmetric k × k weights `w` (row-major): Σ over pairs of layers of their
/// weight times their distance. O(k²).
pub fn cost(w: &[f64], order: &[u32]) -> f64 {
    let k = order.len();
    let mut total = 0.0;
    for i in 0..k {
        for j in i + 1..k {
            total += w[order[i] as usize * k + order[j] as usize] * (j - i) as f64;
        }
    }
    total
}

/// The order of least [`cost`] found from the identity order of `k`
/// layers: exact for k ≤ [`EXACT`], else by windows (module docs). Returns
/// `order` (`order[i]` = the layer at position i). O(2^k · k) or
/// O(PASSES · k · 2^WINDOW).
pub fn arrange(k: usize, w: &[f64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..k as u32).collect();
    if k < 3 {
        // Two layers: either order costs the same.
        return order;
    }
    if k <= EXACT {
        improve_window(w, &mut order, 0, k);
        return order;
    }
    for _ in 0..PASSES {
        let mut changed = false;
        let mut s = 0;
        loop {
            let len = WINDOW.min(k - s);
            changed |= improve_window(w, &mut order, s, len);
            if s + len >= k {
                break;
            }
            s += WINDOW / 2;
        }
        if !changed {
            break;
        }
    }
    order
}

/// Put the layers at positions `s..s + len` of `order` in their best order,
/// the others fixed; true when it changed (only when strictly cheaper).
fn improve_window(w: &[f64], order: &mut [u32], s: usize, len: usize) -> bool {
    let k = order.len();
    let win: Vec<usize> = order[s..s + len].iter().map(|&u| u as usize).collect();
    // Bytes of each window layer to the layers left and right of the
    // window: its position's coefficient.
    let lin: Vec<f64> = win
        .iter()
        .map(|&u| {
            let left: f64 = order[..s].iter().map(|&b| w[u * k + b as usize]).sum();
            let right: f64 = order[s + len..]
                .iter()
                .map(|&b| w[u * k + b as usize])
                .sum();
            left - right
        })
        .collect();
    let inner = |a: usize, b: usize| w[win[a] * k + win[b]];
    let deg: Vec<f64> = (0..len)
        .map(|a| (0..len).filter(|&b| b != a).map(|b| inner(a, b)).sum())
        .collect();
    let full = (1usize << len) - 1;
    let mut cut = vec![0.0f64; 1 << len];
    let mut f = vec![f64::INFINITY; 1 << len];
    let mut last = vec![0u8; 1 << len];
    f[0] = 0.0;
    for set in 1..=full {
        let v = set.trailing_zeros() as usize;
        let rest = set & !(1 << v);
        let mut to_rest = 0.0;
        let mut r = rest;
        while r != 0 {
            let b = r.trailing_zeros() as usize;
            to_rest += inner(v, b);
            r &= r - 1;
        }
        cut[set] = cut[rest] + deg[v] - 2.0 * to_rest;
        let at = (set.count_ones() - 1) as f64;
        let (mut best, mut arg) = (f64::INFINITY, 0usize);
        let mut r = set;
        while r != 0 {
            let u = r.trailing_zeros() as usize;
            let c = f[set & !(1 << u)] + at * lin[u];
            if c < best {
                (best, arg) = (c, u);
            }
            r &= r - 1;
        }
        f[set] = best + if set == full { 0.0 } else { cut[set] };
        last[set] = arg as u8;
    }
    // The current order's cost by the same terms.
    let mut now = 0.0;
    let mut set = 0usize;
    for (i, _) in win.iter().enumerate() {
        set |= 1 << i;
        now += i as f64 * lin[i] + if set == full { 0.0 } else { cut[set] };
    }
    let scale = now.abs().max(f[full].abs()).max(1.0);
    if f[full] >= now - 1e-12 * scale {
        return false;
    }
    let mut set = full;
    for i in (0..len).rev() {
        let u = last[set] as usize;
        order[s + i] = win[u] as u32;
        set &= !(1 << u);
    }
    true
}

/// For each dimension of `net` that [`arranged_dim`] allows, the new coordinate of
/// every layer (`perm[old] = new`; empty when it stays), given every
/// process's position on every dimension (`pos`, `nd` a process) and the
/// pairs (process, process, bytes). O(pairs · nd + Σ arrangement cost).
pub fn layer_perms(net: &Grid, pos: &[u32], pairs: &[(u32, u32, f64)]) -> Vec<Vec<u32>> {
    let nd = net.ndims();
    (0..nd)
        .map(|t| {
            let k = net.dims()[t] as usize;
            if !arranged_dim(net, t) {
                return Vec::new();
            }
            let mut w = vec![0.0f64; k * k];
            for &(u, v, c) in pairs {
                let (a, b) = (
                    pos[u as usize * nd + t] as usize,
                    pos[v as usize * nd + t] as usize,
                );
                if a != b {
                    w[a * k + b] += c;
                    w[b * k + a] += c;
                }
            }
            let order = arrange(k, &w);
            if order.iter().enumerate().all(|(i, &l)| i == l as usize) {
                return Vec::new();
            }
            let mut perm = vec![0u32; k];
            for (i, &l) in order.iter().enumerate() {
                perm[l as usize] = i as u32;
            }
            perm
        })
        .collect()
}

/// `m` with the layers of every dimension of `net` that [`arranged_dim`]
/// allows in their best order (module docs); cores unchanged.
/// O(m · nd + Σ arrangement cost).
pub fn arrange_mapping(g: &CommGraph, net: &Grid, m: &Mapping) -> Mapping {
    let nd = net.ndims();
    let mut pos = Vec::with_capacity(m.len() * nd);
    for &node in &m.node {
        let c = net.coord(node as usize);
        pos.extend_from_slice(&c[..nd]);
    }
    let pairs: Vec<(u32, u32, f64)> = g.pairs().map(|(u, v, c)| (u as u32, v as u32, c)).collect();
    let perms = layer_perms(net, &pos, &pairs);
    let node = (0..m.len())
        .map(|p| {
            let mut c = [0u32; crate::topology::grid::MAX_DIMS];
            for t in 0..nd {
                let x = pos[p * nd + t];
                c[t] = perms[t].get(x as usize).copied().unwrap_or(x);
            }
            net.node(&c[..nd]) as u32
        })
        .collect();
    Mapping::new(node, m.core.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(k: usize, w: &[f64]) -> f64 {
        // Every permutation (Heap's algorithm).
        let mut a: Vec<u32> = (0..k as u32).collect();
        let mut c = vec![0usize; k];
        let mut best = cost(w, &a);
        let mut i = 0;
        while i < k {
            if c[i] < i {
                if i % 2 == 0 {
                    a.swap(0, i);
                } else {
                    a.swap(c[i], i);
                }
                best = best.min(cost(w, &a));
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
        best
    }

    fn random_weights(k: usize, seed: u64) -> Vec<f64> {
        let mut rng = crate::rng::Rng::new(seed);
        let mut w = vec![0.0; k * k];
        for a in 0..k {
            for b in a + 1..k {
                let x = if rng.below(3) == 0 {
                    0.0
                } else {
                    rng.below(100) as f64
                };
                w[a * k + b] = x;
                w[b * k + a] = x;
            }
        }
        w
    }

    #[test]
    fn a_mapping_gets_its_columns_reordered_and_keeps_its_rows_and_cores() {
        // Six processes on a 3 × 2 mesh with 2 cores per node: a path
        // 0–1–2 of 10 bytes a pair in row 0, processes 3, 4, 5 beside them
        // in row 1 (1 byte each to 0, 1, 2). Columns given in the order
        // 0, 2, 1 (process 1 at x = 2, process 2 at x = 1): the path costs
        // 10·2 + 10·1 = 30 hops·bytes along x; with the columns reordered
        // to put process 1 between 0 and 2, 20. Rows (y) and cores stay.
        let mut b = crate::graph::GraphBuilder::new(6, false);
        for (u, v, c) in [
            (0, 1, 10.0),
            (1, 2, 10.0),
            (0, 3, 1.0),
            (1, 4, 1.0),
            (2, 5, 1.0),
        ] {
            b.add(u, v, c);
        }
        let g = b.build().unwrap();
        let net = Grid::mesh(&[3, 2]).with_cores(2);
        let topo = crate::topology::Topology::Grid(net.clone());
        // Node = x + 3 y; process 1 and 4 in column 2, 2 and 5 in column 1.
        let m = Mapping::new(vec![0, 2, 1, 3, 5, 4], vec![0, 1, 0, 1, 0, 1]);
        assert_eq!(crate::metrics::hop_bytes(&g, &topo, &m), 30.0 + 3.0);
        let a = arrange_mapping(&g, &net, &m);
        assert_eq!(crate::metrics::hop_bytes(&g, &topo, &a), 20.0 + 3.0);
        assert_eq!(a.core, m.core);
        for p in 0..6 {
            assert_eq!(
                net.coord(a.node[p] as usize)[1],
                net.coord(m.node[p] as usize)[1]
            );
        }
        // Process 1's column lies between 0's and 2's.
        let x = |p: usize| net.coord(a.node[p] as usize)[0];
        assert!(x(0).abs_diff(x(1)) == 1 && x(1).abs_diff(x(2)) == 1);
    }

    #[test]
    fn a_path_given_out_of_order_is_put_back_in_order() {
        // Layers 0-2-1-3 linked as a path 0-2, 2-1, 1-3 of weight 1, 5, 1:
        // the identity order costs 1·2 + 5·1 + 1·2 = 9, the path's order
        // 0, 2, 1, 3 costs 7.
        let k = 4;
        let mut w = vec![0.0; 16];
        for (a, b, x) in [(0, 2, 1.0), (2, 1, 5.0), (1, 3, 1.0)] {
            w[a * k + b] = x;
            w[b * k + a] = x;
        }
        assert_eq!(cost(&w, &[0, 1, 2, 3]), 9.0);
        let order = arrange(k, &w);
        assert_eq!(cost(&w, &order), 7.0);
        assert!(order == [0, 2, 1, 3] || order == [3, 1, 2, 0]);
    }

    #[test]
    fn the_exact_order_is_the_best_permutation() {
        for seed in 0..20 {
            let k = 3 + (seed as usize % 5);
            let w = random_weights(k, seed);
            let order = arrange(k, &w);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..k as u32).collect::<Vec<_>>());
            assert!(
                (cost(&w, &order) - brute(k, &w)).abs() < 1e-9,
                "seed {seed}"
            );
        }
    }

    #[test]
    fn windows_never_make_a_long_dimension_worse() {
        for seed in 0..4 {
            let k = 24;
            let w = random_weights(k, 100 + seed);
            let ident: Vec<u32> = (0..k as u32).collect();
            let order = arrange(k, &w);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, ident);
            assert!(cost(&w, &order) <= cost(&w, &ident));
        }
        // A path of 20 layers whose order along it is the identity but for
        // two local disorders, 3 ↔ 4 and 13 → 15 → 14: each lies within a
        // window, so the windows find an order of cost 19 (every step one
        // apart) from the identity's 23.
        let k = 20;
        let mut path: Vec<usize> = (0..k).collect();
        path.swap(3, 4);
        path.swap(14, 15);
        let mut w = vec![0.0; k * k];
        for e in path.windows(2) {
            w[e[0] * k + e[1]] = 1.0;
            w[e[1] * k + e[0]] = 1.0;
        }
        let ident: Vec<u32> = (0..k as u32).collect();
        assert_eq!(cost(&w, &ident), 23.0);
        assert_eq!(cost(&w, &arrange(k, &w)), 19.0);
    }
}
