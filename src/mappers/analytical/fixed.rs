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
}

/// A graph seen through a neighbour callback (items or topology nodes).
pub trait Adjacency {
    fn len(&self) -> usize;
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
            FixedKind::Rcm => {
                let s = pseudo_peripheral(g, next);
                let s = if seen[s] { next } else { s };
                bfs(g, s, true, &mut seen, &mut order, &mut level);
            }
        }
    }
    if kind == FixedKind::Rcm {
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

/// `(item, corner node)` pairs: the fixed items and where they sit.
pub fn fixed_items(g: &ItemGraph, grid: &Grid, kind: FixedKind) -> Vec<(usize, usize)> {
    let n_items = g.n();
    if n_items == 0 {
        return Vec::new();
    }
    let item_order = order(g, kind);
    let node_order = order(grid, kind);
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
    fn a_path_on_a_line_fixes_its_ends_on_the_ends() {
        let g = path(8);
        let grid = Grid::mesh(&[8]);
        let f = fixed_items(&g, &grid, FixedKind::Bft);
        assert_eq!(f, vec![(0, 0), (7, 7)]);
    }
}
