//! Fixed processes for global mapping (Wu et al. §3.6, compared in §4.2):
//! the items that sit on the machine's corner nodes during global mapping.
//!
//! Both the topology's nodes and the items are put in one order — breadth
//! first traversal (`bft`, from node/item 0, partners in id order) or reverse
//! Cuthill–McKee (`rcm`: breadth first from a pseudo-peripheral start found
//! by the George–Liu iteration, each level's vertices visited by increasing
//! degree, and the whole order reversed). The node at position `r` of the
//! node order corresponds to the item at position `⌊r · N / nodes⌋` of the
//! item order (the graph-similarity mapping; with as many items as nodes it
//! is position `r` itself, as in the paper). The items that correspond to the
//! corner nodes (every coordinate 0 or its maximum: 2^D corners, fewer when a
//! dimension has size 1) are fixed there. Two corners that would get the
//! same item keep the first one.
//!
//! The nodes are traversed as the global-mapping box sees them: without a
//! torus's wrap links (beyond the paper, which does not say; with the wraps,
//! RCM on `torus:8x16x16` put items that are graph neighbours on opposite
//! corners of the box).
//!
//! Disconnected graphs (beyond the paper): the traversal restarts from the
//! lowest unvisited id (`bft`) or a new pseudo-peripheral vertex of the
//! lowest-id unvisited component (`rcm`).
//!
//! Cost: O(n + m) per traversal (RCM: O(m log d) for the degree sorts, and a
//! few traversals for the pseudo-peripheral search). Memory O(n).

use super::global::ItemGraph;
use crate::topology::Grid;

/// How the fixed processes are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixedKind {
    Rcm,
    Bft,
    /// Beyond the paper: far-apart items, oriented to the corners.
    Far,
}

/// A graph seen through a neighbour callback (items or topology nodes).
pub trait Adjacency {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn neighbors_into(&self, v: usize, out: &mut Vec<usize>);
}

impl Adjacency for ItemGraph {
    fn len(&self) -> usize {
        self.n()
    }
    fn neighbors_into(&self, v: usize, out: &mut Vec<usize>) {
        out.clear();
        out.extend(self.row(v).0.iter().map(|&j| j as usize));
    }
}

impl Adjacency for Grid {
    fn len(&self) -> usize {
        self.num_nodes()
    }
    fn neighbors_into(&self, v: usize, out: &mut Vec<usize>) {
        out.clear();
        Grid::neighbors_into(self, v, out);
        out.sort_unstable();
    }
}

/// Breadth-first order from `start`, visiting partners in id order (or by
/// increasing degree when `by_degree`); records each vertex's level.
fn bfs(
    g: &dyn Adjacency,
    start: usize,
    by_degree: bool,
    seen: &mut [bool],
    order: &mut Vec<usize>,
    level: &mut [u32],
) {
    let mut nb = Vec::new();
    let first = order.len();
    seen[start] = true;
    level[start] = 0;
    order.push(start);
    let mut head = first;
    let mut deg_buf = Vec::new();
    while head < order.len() {
        let u = order[head];
        head += 1;
        g.neighbors_into(u, &mut nb);
        if by_degree {
            deg_buf.clear();
            let mut tmp = Vec::new();
            for &v in &nb {
                g.neighbors_into(v, &mut tmp);
                deg_buf.push((tmp.len(), v));
            }
            deg_buf.sort_unstable();
            nb.clear();
            nb.extend(deg_buf.iter().map(|e| e.1));
        }
        for &v in &nb {
            if !seen[v] {
                seen[v] = true;
                level[v] = level[u] + 1;
                order.push(v);
            }
        }
    }
}

/// George–Liu pseudo-peripheral vertex of `start`'s component.
fn pseudo_peripheral(g: &dyn Adjacency, start: usize) -> usize {
    let n = g.len();
    let mut level = vec![0u32; n];
    let mut v = start;
    let mut ecc = 0;
    let mut tmp = Vec::new();
    for _ in 0..8 {
        let mut seen = vec![false; n];
        let mut order = Vec::new();
        bfs(g, v, false, &mut seen, &mut order, &mut level);
        let last = order.iter().map(|&u| level[u]).max().unwrap_or(0);
        if last <= ecc && v != start {
            break;
        }
        ecc = last;
        // Lowest-degree vertex of the last level (ties: lowest id).
        let mut best = (usize::MAX, usize::MAX);
        for &u in &order {
            if level[u] == last {
                g.neighbors_into(u, &mut tmp);
                best = best.min((tmp.len(), u));
            }
        }
        if best.1 == v {
            break;
        }
        v = best.1;
    }
    v
}

/// The order of `kind` over all vertices of `g`.
pub fn order(g: &dyn Adjacency, kind: FixedKind) -> Vec<usize> {
    let n = g.len();
    let mut seen = vec![false; n];
    let mut level = vec![0u32; n];
    let mut order = Vec::with_capacity(n);
    let mut next = 0;
    while order.len() < n {
        while seen[next] {
            next += 1;
        }
        match kind {
            FixedKind::Bft => bfs(g, next, false, &mut seen, &mut order, &mut level),
            FixedKind::Rcm | FixedKind::Far => {
                let s = pseudo_peripheral(g, next);
                let s = if seen[s] { next } else { s };
                bfs(g, s, true, &mut seen, &mut order, &mut level);
            }
        }
    }
    if kind != FixedKind::Bft {
        order.reverse();
    }
    order
}

/// The corner nodes of a grid: every coordinate 0 or dims−1 (deduplicated,
/// in increasing id).
pub fn corner_nodes(grid: &Grid) -> Vec<usize> {
    let nd = grid.ndims();
    let mut v = Vec::new();
    for mask in 0..(1usize << nd) {
        let mut c = [0u32; crate::topology::MAX_DIMS];
        for d in 0..nd {
            if mask >> d & 1 == 1 {
                c[d] = grid.dims()[d] - 1;
            }
        }
        v.push(grid.node(&c[..nd]));
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// BFS hop distances from `s` (u32::MAX: unreachable).
fn distances(g: &ItemGraph, s: usize) -> Vec<u32> {
    let mut dist = vec![u32::MAX; g.n()];
    let mut queue = std::collections::VecDeque::new();
    dist[s] = 0;
    queue.push_back(s);
    while let Some(u) = queue.pop_front() {
        for &v in g.row(u).0 {
            let v = v as usize;
            if dist[v] == u32::MAX {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    dist
}

/// `fixed=far` (beyond the paper): the 2^D items are picked by farthest-point
/// sampling in hop distance (the first is the George–Liu pseudo-peripheral
/// item of item 0's component, each next one the item farthest from those
/// already picked, ties: the largest sum of distances to them, then the
/// lowest id), then given to the corners in the
/// order that best matches the box: the assignment maximises
/// `Σ_{a<b} d_G(a, b) · |c_a − c_b|` (hop distance × Euclidean corner
/// distance; with the scale fitted, this is the least-squares match of the
/// two distance matrices, as `Σ |c_a − c_b|²` is the same for every
/// assignment), by trying all `(2^D)!` assignments (40,320 in 3D), or by
/// pairwise swaps above 8 corners.
///
/// Why: RCM/BFT give the corners of the box the items at the same *rank*
/// of two traversals; items of the same rank sit anywhere on a level set of
/// the graph, so two box corners that are neighbours can get items far
/// apart (the box is then twisted). Measured in `docs/benchmarks.md`.
///
/// Cost O(2^D · (n + m) + (2^D)! · 4^D). Memory O(2^D · n).
pub fn far_items(g: &ItemGraph, grid: &Grid) -> Vec<(usize, usize)> {
    let n = g.n();
    let corners = corner_nodes(grid);
    let k = corners.len();
    if n < k || k < 2 {
        return fixed_items(g, grid, FixedKind::Rcm);
    }
    let first = pseudo_peripheral(g, 0);
    let mut picked = vec![first];
    let mut dist = vec![distances(g, first)];
    let mut mind: Vec<u32> = dist[0].clone();
    let mut sum: Vec<u64> = dist[0].iter().map(|&d| d as u64).collect();
    while picked.len() < k {
        // Unreachable items (other components) are not candidates. Ties of
        // the smallest distance go to the largest sum of distances (on a
        // grid graph's L1 hop metric that is a corner), then the lowest id.
        let mut best = (0u32, 0u64, usize::MAX);
        for v in 0..n {
            let d = mind[v];
            if d != u32::MAX && d > 0 && (d > best.0 || (d == best.0 && sum[v] > best.1)) {
                best = (d, sum[v], v);
            }
        }
        if best.2 == usize::MAX {
            break;
        }
        let v = best.2;
        picked.push(v);
        let dv = distances(g, v);
        for ((m, s), &d) in mind.iter_mut().zip(sum.iter_mut()).zip(&dv) {
            *m = (*m).min(d);
            *s = s.saturating_add(d as u64);
        }
        dist.push(dv);
    }
    let kk = picked.len();
    if kk < k {
        return fixed_items(g, grid, FixedKind::Rcm);
    }
    let nd = grid.ndims();
    let cc: Vec<Vec<f64>> = corners
        .iter()
        .map(|&c| grid.coord(c)[..nd].iter().map(|&x| x as f64).collect())
        .collect();
    let db = |a: usize, b: usize| -> f64 {
        cc[a]
            .iter()
            .zip(&cc[b])
            .map(|(x, y)| (x - y) * (x - y))
            .sum::<f64>()
            .sqrt()
    };
    let dg: Vec<Vec<f64>> = (0..k)
        .map(|a| (0..k).map(|b| dist[a][picked[b]] as f64).collect())
        .collect();
    let dbm: Vec<Vec<f64>> = (0..k).map(|a| (0..k).map(|b| db(a, b)).collect()).collect();
    let score = |perm: &[usize]| -> f64 {
        let mut s = 0.0;
        for a in 0..k {
            for b in a + 1..k {
                s += dg[a][b] * dbm[perm[a]][perm[b]];
            }
        }
        s
    };
    let mut perm: Vec<usize> = (0..k).collect();
    let mut best_perm = perm.clone();
    let mut best = score(&perm);
    if k <= 8 {
        // Heap's algorithm, iterative.
        let mut c = vec![0usize; k];
        let mut i = 0;
        while i < k {
            if c[i] < i {
                if i % 2 == 0 {
                    perm.swap(0, i);
                } else {
                    perm.swap(c[i], i);
                }
                let sc = score(&perm);
                if sc > best + 1e-9 {
                    best = sc;
                    best_perm.copy_from_slice(&perm);
                }
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
    } else {
        let mut improved = true;
        while improved {
            improved = false;
            for a in 0..k {
                for b in a + 1..k {
                    best_perm.swap(a, b);
                    let sc = score(&best_perm);
                    if sc > best + 1e-9 {
                        best = sc;
                        improved = true;
                    } else {
                        best_perm.swap(a, b);
                    }
                }
            }
        }
    }
    (0..k).map(|a| (picked[a], corners[best_perm[a]])).collect()
}

/// A starting Φ for the first solve (beyond the paper, which starts its
/// solver from scratch): along each dimension `d`, an item sits at
/// `(k_d − 1) · D₀ / (D₀ + D₁)`, where `D₀`/`D₁` are its hop distances to
/// the nearest fixed item on the low/high face of `d` (multi-source BFS);
/// items that reach neither face sit at the centre. It only warm-starts the
/// conjugate gradients (the solution of Eq. 5 does not depend on it).
///
/// Cost O(D · (n + m)). Memory O(n · D).
pub fn initial_positions(g: &ItemGraph, grid: &Grid, fixed: &[(usize, usize)]) -> Vec<f64> {
    let n = g.n();
    let nd = grid.ndims();
    let mut phi = vec![0.0; n * nd];
    let multi = |sources: &[usize]| -> Vec<u32> {
        let mut dist = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        for &s in sources {
            dist[s] = 0;
            queue.push_back(s);
        }
        while let Some(u) = queue.pop_front() {
            for &v in g.row(u).0 {
                let v = v as usize;
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        dist
    };
    for d in 0..nd {
        let k = grid.dims()[d];
        let centre = (k as f64 - 1.0) / 2.0;
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        for &(i, node) in fixed {
            let c = grid.coord(node)[d];
            if c == 0 {
                lo.push(i);
            }
            if c + 1 == k {
                hi.push(i);
            }
        }
        if k < 2 || lo.is_empty() || hi.is_empty() {
            for i in 0..n {
                phi[i * nd + d] = centre;
            }
            continue;
        }
        let (d0, d1) = (multi(&lo), multi(&hi));
        for i in 0..n {
            phi[i * nd + d] = if d0[i] == u32::MAX || d1[i] == u32::MAX {
                centre
            } else {
                let (a, b) = (d0[i] as f64, d1[i] as f64);
                (k as f64 - 1.0) * a / (a + b).max(1.0)
            };
        }
    }
    phi
}

/// `(item, corner node)` pairs: the fixed items and where they sit.
pub fn fixed_items(g: &ItemGraph, grid: &Grid, kind: FixedKind) -> Vec<(usize, usize)> {
    let n_items = g.n();
    if n_items == 0 {
        return Vec::new();
    }
    if kind == FixedKind::Far {
        return far_items(g, grid);
    }
    let item_order = order(g, kind);
    // The box's nodes without wrap links: on a torus the wrap links put
    // the corner (X−1, 0, 0) next to (0, 0, 0) in any traversal, and the
    // box model then pins two neighbouring items to opposite faces.
    let node_order = order(&Grid::mesh(grid.dims()), kind);
    let nodes = grid.num_nodes();
    let mut pos_of_node = vec![0usize; nodes];
    for (r, &v) in node_order.iter().enumerate() {
        pos_of_node[v] = r;
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    for c in corner_nodes(grid) {
        let r = pos_of_node[c];
        let k = ((r as u128 * n_items as u128) / nodes as u128) as usize;
        let item = item_order[k.min(n_items - 1)];
        if !out.iter().any(|&(i, _)| i == item) {
            out.push((item, c));
        }
    }
    out
}

/// For a restart from positions `phi` (items × D): for each corner node the
/// nearest item not yet taken (ties: lowest id).
pub fn nearest_to_corners(phi: &[f64], grid: &Grid) -> Vec<(usize, usize)> {
    let nd = grid.ndims();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for c in corner_nodes(grid) {
        let cc = grid.coord(c);
        let best = phi
            .chunks_exact(nd)
            .enumerate()
            .filter(|(i, _)| !out.iter().any(|&(j, _)| j == *i))
            .map(|(i, x)| {
                let d2: f64 = (0..nd).map(|d| (x[d] - cc[d] as f64).powi(2)).sum();
                (d2, i)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if let Some((_, i)) = best {
            out.push((i, c));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(n: usize) -> ItemGraph {
        let rows = (0..n)
            .map(|i| {
                let mut r = Vec::new();
                if i > 0 {
                    r.push((i as u32 - 1, 1.0));
                }
                if i + 1 < n {
                    r.push((i as u32 + 1, 1.0));
                }
                r
            })
            .collect();
        ItemGraph::from_lists(n, rows)
    }

    #[test]
    fn corners_of_grids() {
        assert_eq!(corner_nodes(&Grid::mesh(&[3, 3])), vec![0, 2, 6, 8]);
        assert_eq!(corner_nodes(&Grid::mesh(&[4, 1, 2])), vec![0, 3, 4, 7]);
        assert_eq!(corner_nodes(&Grid::torus(&[2, 2, 2])).len(), 8);
        assert_eq!(corner_nodes(&Grid::mesh(&[1])), vec![0]);
    }

    #[test]
    fn orders_are_permutations_and_rcm_starts_at_an_end_of_a_path() {
        let g = path(7);
        for k in [FixedKind::Bft, FixedKind::Rcm] {
            let mut o = order(&g, k);
            assert_eq!(o.len(), 7);
            if k == FixedKind::Rcm {
                assert!(o[0] == 0 || o[0] == 6, "{o:?}");
            } else {
                assert_eq!(o, (0..7).collect::<Vec<_>>());
            }
            o.sort_unstable();
            assert_eq!(o, (0..7).collect::<Vec<_>>());
        }
    }

    #[test]
    fn far_items_put_a_diametral_pair_on_opposite_corners() {
        // A 4×3 grid graph (item = x + 4y) onto a 4×3 mesh: the first two
        // far items are the graph's diametral corners 0 and 11 (hop
        // distance 5); the assignment puts them on opposite box corners.
        // (Hop distances on a grid are L1, which ties the other corners
        // with interior items, so only the pair is checked.)
        let (w, h) = (4usize, 3usize);
        let rows = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let mut r = Vec::new();
                if x > 0 {
                    r.push((i as u32 - 1, 1.0));
                }
                if x + 1 < w {
                    r.push((i as u32 + 1, 1.0));
                }
                if y > 0 {
                    r.push(((i - w) as u32, 1.0));
                }
                if y + 1 < h {
                    r.push(((i + w) as u32, 1.0));
                }
                r
            })
            .collect();
        let g = ItemGraph::from_lists(w * h, rows);
        let grid = Grid::mesh(&[4, 3]);
        let f = fixed_items(&g, &grid, FixedKind::Far);
        assert_eq!(f.len(), 4, "{f:?}");
        let mut items: Vec<usize> = f.iter().map(|p| p.0).collect();
        items.sort_unstable();
        items.dedup();
        assert_eq!(items.len(), 4, "{f:?}");
        let at = |item: usize| f.iter().find(|p| p.0 == item).map(|p| p.1);
        let (a, b) = (at(0).expect("0 fixed"), at(11).expect("11 fixed"));
        assert_eq!(a + b, 11, "{f:?}");
    }

    #[test]
    fn a_path_on_a_line_fixes_its_ends_on_the_ends() {
        let g = path(8);
        let grid = Grid::mesh(&[8]);
        let f = fixed_items(&g, &grid, FixedKind::Bft);
        assert_eq!(f, vec![(0, 0), (7, 7)]);
    }
}
