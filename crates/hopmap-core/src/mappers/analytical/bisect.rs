//! Legalization by recursive coordinate bisection of Φ (`legalize=bisect`,
//! the default; **beyond the paper**, whose legalization is the diffusion of
//! §3.4, still available as `legalize=diffusion`).
//!
//! The machine's box of nodes and the items are cut together: a box is split
//! in two halves along its longest dimension (ties: the first in a priority
//! `order` of the dimensions, see below;
//! an extent `k` splits into `⌊k/2⌋` and `k − ⌊k/2⌋`), and its items are
//! split by their Φ coordinate along that dimension (ties: lowest id), the
//! lower ones to the lower half. The lower half receives
//! `round(n · c₁ / (c₁ + c₂))` items, clamped so that neither half gets more
//! than its capacity `c = nodes · cap` — with as many items as slots that is
//! exactly its capacity; with fewer, the free slots are shared out in
//! proportion (how the generalisation to fewer items than slots reads here).
//! The recursion ends at single nodes, which by construction hold at most
//! `cap` items: the result is always legal.
//!
//! Why: global mapping ends with Φ still crowded (it usually stalls above
//! γ with one core per node), and the diffusion, which moves the surplus of
//! each node a link at a time, roughly doubled the hop-bytes of the bins;
//! bisection keeps the relative order of Φ in every dimension at once and
//! gave fewer hop-bytes than diffusion on every measured input
//! (`docs/benchmarks.md`, "Legalization"). Being cheap, it is also what
//! "the hop-bytes Φ would give if legalized now" means in this mode, so
//! global mapping keeps its best iterate by that measure and legalizes
//! that one (see the module docs of [`super`]).
//!
//! The order of cutting equal sides changes the result by a few per cent
//! (on a cube every level has ties), and no order is best for every input,
//! so global mapping's best iterate is bisected with the first `cut_orders`
//! permutations of the dimensions (lexicographic, x-y-z first; default 6,
//! all of them in 3D) and legalized with the order that gives the fewest
//! hop-bytes ([`orders`]).
//!
//! Stepping: one step is one level of the recursion — every box that is
//! still more than one node is cut once, and every item moves to the node of
//! its box nearest to its bin (its bin's coordinates clamped into the box),
//! so the GUI sees the items pushed into ever smaller boxes; the last level
//! leaves every box a single node. Levels: about `Σ_d ⌈log₂ k_d⌉`.
//!
//! Cost: O(n) per level (one selection per box), O(n log nodes) in all;
//! memory O(n + nodes).

use crate::topology::Grid;
use crate::topology::grid::{GridCoord, MAX_DIMS};

/// A box of nodes `[lo, hi)` per dimension and its items `perm[start..end]`.
#[derive(Clone, Copy, Debug)]
struct Cell {
    lo: GridCoord,
    hi: GridCoord,
    start: usize,
    end: usize,
}

/// The recursion's state between steps.
#[derive(Clone, Debug)]
pub struct Bisection {
    grid: Grid,
    cap: usize,
    phi: Vec<f64>,
    perm: Vec<u32>,
    cells: Vec<Cell>,
    order: Vec<usize>,
    levels: usize,
}

impl Bisection {
    /// Start with every item in the whole box. `phi` is items × D; equal
    /// sides are cut in the priority `order` (a permutation of 0..D).
    pub fn new(grid: &Grid, cap: u32, phi: &[f64], order: &[usize]) -> Self {
        let nd = grid.ndims();
        let n = phi.len().checked_div(nd).unwrap_or(0);
        Bisection {
            grid: grid.clone(),
            cap: cap.max(1) as usize,
            phi: phi.to_vec(),
            perm: (0..n as u32).collect(),
            cells: vec![whole(grid, n)],
            order: order.to_vec(),
            levels: 0,
        }
    }

    /// Levels cut so far.
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// Whether every box is a single node.
    pub fn is_done(&self) -> bool {
        self.cells
            .iter()
            .all(|c| split_dim(c, &self.order).is_none())
    }

    /// Cut every box once (one level). Returns whether anything was cut.
    pub fn level(&mut self) -> bool {
        let nd = self.grid.ndims();
        let cut = cut_level(
            &mut self.cells,
            &mut self.perm,
            &self.phi,
            nd,
            self.cap,
            &self.order,
        );
        if cut {
            self.levels += 1;
        }
        cut
    }

    /// Every item's node now: its bin clamped into its box.
    pub fn nodes_into(&self, out: &mut [u32]) {
        let nd = self.grid.ndims();
        let mut at = [0u32; MAX_DIMS];
        for c in &self.cells {
            for &i in &self.perm[c.start..c.end] {
                let x = &self.phi[i as usize * nd..(i as usize + 1) * nd];
                for d in 0..nd {
                    let b = x[d].round().clamp(0.0, (self.grid.dims()[d] - 1) as f64) as u32;
                    at[d] = b.clamp(c.lo[d], c.hi[d] - 1);
                }
                out[i as usize] = self.grid.node(&at[..nd]) as u32;
            }
        }
    }
}

/// Cut every box of `cells` once; `perm` holds the boxes' items.
fn cut_level(
    cells: &mut Vec<Cell>,
    perm: &mut [u32],
    phi: &[f64],
    nd: usize,
    cap: usize,
    order: &[usize],
) -> bool {
    let mut next = Vec::with_capacity(cells.len() * 2);
    let mut cut = false;
    for c in cells.drain(..) {
        let Some(d) = split_dim(&c, order) else {
            next.push(c);
            continue;
        };
        cut = true;
        let mid = c.lo[d] + (c.hi[d] - c.lo[d]) / 2;
        let mut hi1 = c.hi;
        hi1[d] = mid;
        let mut lo2 = c.lo;
        lo2[d] = mid;
        let c1 = nodes_in(&c.lo, &hi1) * cap;
        let c2 = nodes_in(&lo2, &c.hi) * cap;
        let n = c.end - c.start;
        let share = (n as f64 * c1 as f64 / (c1 + c2) as f64).round() as usize;
        let n1 = share.min(c1).max(n.saturating_sub(c2)).min(n);
        if n1 > 0 && n1 < n {
            perm[c.start..c.end].select_nth_unstable_by(n1, |&a, &b| {
                phi[a as usize * nd + d]
                    .total_cmp(&phi[b as usize * nd + d])
                    .then(a.cmp(&b))
            });
        }
        next.push(Cell {
            lo: c.lo,
            hi: hi1,
            start: c.start,
            end: c.start + n1,
        });
        next.push(Cell {
            lo: lo2,
            hi: c.hi,
            start: c.start + n1,
            end: c.end,
        });
    }
    *cells = next;
    cut
}

/// The dimension a box is cut along: its longest, ties to the first in
/// `order`; None for a single node.
fn split_dim(c: &Cell, order: &[usize]) -> Option<usize> {
    let mut best: Option<(u32, usize)> = None;
    for &d in order {
        let e = c.hi[d] - c.lo[d];
        if e > 1 && best.is_none_or(|(be, _)| e > be) {
            best = Some((e, d));
        }
    }
    best.map(|(_, d)| d)
}

/// The first `k` permutations of `0..nd` in lexicographic order (the
/// identity first; at most nd!).
pub fn orders(nd: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut p: Vec<usize> = (0..nd).collect();
    while out.len() < k.max(1) {
        out.push(p.clone());
        // Next permutation.
        let Some(i) = (1..nd).rev().find(|&i| p[i - 1] < p[i]) else {
            break;
        };
        let j = (i..nd).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
        p.swap(i - 1, j);
        p[i..].reverse();
    }
    out
}

fn nodes_in(lo: &[u32], hi: &[u32]) -> usize {
    lo.iter().zip(hi).map(|(&l, &h)| (h - l) as usize).product()
}

/// The whole bisection at once: the node of every item (a legal mapping
/// with at most `cap` items per node). O(n log nodes).
pub fn assign(grid: &Grid, cap: u32, phi: &[f64], order: &[usize]) -> Vec<u32> {
    let nd = grid.ndims();
    let n = phi.len().checked_div(nd).unwrap_or(0);
    let mut perm: Vec<u32> = (0..n as u32).collect();
    let mut cells = vec![whole(grid, n)];
    while cut_level(&mut cells, &mut perm, phi, nd, cap.max(1) as usize, order) {}
    let mut out = vec![0u32; n];
    for c in &cells {
        let node = grid.node(&c.lo[..nd]) as u32;
        for &i in &perm[c.start..c.end] {
            out[i as usize] = node;
        }
    }
    out
}

/// The whole box with all `n` items.
fn whole(grid: &Grid, n: usize) -> Cell {
    let mut hi = [1u32; MAX_DIMS];
    hi[..grid.ndims()].copy_from_slice(grid.dims());
    Cell {
        lo: [0; MAX_DIMS],
        hi,
        start: 0,
        end: n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loads(grid: &Grid, nodes: &[u32]) -> Vec<usize> {
        let mut l = vec![0; grid.num_nodes()];
        for &v in nodes {
            l[v as usize] += 1;
        }
        l
    }

    #[test]
    fn a_row_keeps_its_order() {
        // Five items on a 5-node line, Φ in reverse order and all crowded
        // near 1: the bisection spreads them over the line in Φ's order.
        let grid = Grid::mesh(&[5]);
        let phi = [1.4, 1.3, 1.2, 1.1, 1.0];
        let nodes = assign(&grid, 1, &phi, &[0]);
        assert_eq!(nodes, vec![4, 3, 2, 1, 0]);
    }

    #[test]
    fn a_2x2_with_two_cores() {
        // 8 items, 2 per node: the 4 lowest x go to x = 0, then by y.
        let grid = Grid::mesh(&[2, 2]);
        let phi = [
            0.0, 0.0, 0.1, 0.9, 0.2, 0.2, 0.3, 0.8, //
            0.6, 0.1, 0.7, 0.7, 0.8, 0.3, 0.9, 0.6,
        ];
        let nodes = assign(&grid, 2, &phi, &[0, 1]);
        // node = x + 2y: items 0, 2 at (0,0); 1, 3 at (0,1); 4, 6 at (1,0); 5, 7 at (1,1).
        assert_eq!(nodes, vec![0, 2, 0, 2, 1, 3, 1, 3]);
    }

    #[test]
    fn fewer_items_than_slots_are_spread_in_proportion() {
        let grid = Grid::torus(&[4, 4]);
        let phi: Vec<f64> = (0..6).flat_map(|_| [0.0, 0.0]).collect();
        let nodes = assign(&grid, 1, &phi, &[0, 1]);
        assert!(loads(&grid, &nodes).iter().all(|&l| l <= 1));
        // 6 of 16: the first cut (along x, 8 + 8 slots) gives 3 + 3.
        let left = nodes
            .iter()
            .filter(|&&v| grid.coord(v as usize)[0] < 2)
            .count();
        assert_eq!(left, 3);
    }

    #[test]
    fn the_levels_end_in_the_assignment() {
        let grid = Grid::mesh(&[3, 5, 2]);
        let n = 27;
        let phi: Vec<f64> = (0..n * 3)
            .map(|k| ((k * 7919) % 101) as f64 / 101.0 * 3.0)
            .collect();
        let mut b = Bisection::new(&grid, 1, &phi, &[0, 1, 2]);
        let mut out = vec![0u32; n];
        let mut levels = 0;
        while !b.is_done() {
            assert!(b.level());
            levels += 1;
            b.nodes_into(&mut out);
        }
        assert_eq!(levels, b.levels());
        assert!(!b.level());
        assert_eq!(out, assign(&grid, 1, &phi, &[0, 1, 2]));
        assert!(loads(&grid, &out).iter().all(|&l| l <= 1));
    }

    #[test]
    fn orders_are_the_permutations_in_lexicographic_order() {
        assert_eq!(
            orders(3, 6),
            vec![
                vec![0, 1, 2],
                vec![0, 2, 1],
                vec![1, 0, 2],
                vec![1, 2, 0],
                vec![2, 0, 1],
                vec![2, 1, 0]
            ]
        );
        assert_eq!(orders(3, 100).len(), 6);
        assert_eq!(orders(2, 1), vec![vec![0, 1]]);
        assert_eq!(orders(1, 6), vec![vec![0]]);
        assert_eq!(orders(4, 720).len(), 24);
    }

    #[test]
    fn the_order_decides_which_equal_side_is_cut_first() {
        // 4 items on a 2x2, Φ near the corners: both orders give every
        // item its bin's node.
        let grid = Grid::mesh(&[2, 2]);
        let phi = [0.1, 0.1, 0.2, 0.9, 0.8, 0.2, 0.9, 0.8];
        assert_eq!(assign(&grid, 1, &phi, &[0, 1]), vec![0, 2, 1, 3]);
        assert_eq!(assign(&grid, 1, &phi, &[1, 0]), vec![0, 2, 1, 3]);
        // Φ where the orders disagree (node = x + 2y): x first puts items
        // 0, 1 (lowest x) at x = 0, then item 1 (lower y) at the bottom; y
        // first puts items 1, 0 (lowest y) at y = 0, then item 0 (lower x)
        // on the left.
        let phi = [0.0, 0.4, 0.3, 0.0, 0.6, 1.0, 1.0, 0.7];
        let xy = assign(&grid, 1, &phi, &[0, 1]);
        let yx = assign(&grid, 1, &phi, &[1, 0]);
        assert_eq!(xy, vec![2, 0, 3, 1]);
        assert_eq!(yx, vec![0, 1, 2, 3]);
    }
}
