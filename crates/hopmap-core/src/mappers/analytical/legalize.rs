//! Legalization by diffusion-like migration (Wu et al. §3.4, Fig. 4).
//!
//! Every item starts on its bin's node. One iteration (one step):
//! 1. `b_v` = what node `v` must send out; solve `L λ = b` on the topology's
//!    Laplacian `L` (Eq. 10–11) — on a torus with its wrap links, so that
//!    diffusion can flow round a ring.
//! 2. Sort the nodes by λ, largest first.
//! 3. For each node `i` still holding more than it may (`b_i > 0`): to every
//!    neighbour `j` with `λ_j < λ_i` move `min(b_i, ⌊λ_i − λ_j⌋)` items; if
//!    `b_i` is still positive, one item to each such neighbour in decreasing
//!    order of the fractional part of `λ_i − λ_j`, until `b_i = 0`. Each move
//!    takes the item on `i` whose move to `j` costs the fewest hop-bytes
//!    (`Σ_q c_pq (d(j, φ_q) − d(i, φ_q))`, torus distances, ties: lowest id).
//!    `b` is updated as items move, so an item can travel on through `j`
//!    later in the same sweep.
//!
//! Generalisation to fewer items than slots (beyond the paper, which has
//! exactly one process per node): a node may hold `cap` items (1 with
//! grouping, `cores` without). Over-full nodes get `b_v = load − cap` as in
//! the paper; every other node gets `b_v = −(cap − load) · E / F`, its free
//! capacity scaled by the total excess `E` over the total free capacity `F`,
//! so that Σ b = 0 (needed for `L λ = b` to have a solution) and the flow
//! goes toward free capacity in proportion to it. With as many items as
//! slots `E = F` and this is the paper's `b = w − 1`.
//!
//! `L λ = b` is solved by conjugate gradients on `L + 10⁻⁹ I` to a relative
//! residual of 10⁻⁶ (faer sparse matrix–vector products; `b ⊥ 1`, so λ is the minimum-norm solution).
//!
//! Termination: Wu et al. argue every iteration moves at least one item out
//! of the fullest node. As a guarantee (beyond the paper), after
//! `max_iterations` sweeps, or a sweep that moves nothing, the remaining
//! excess goes to the nearest node with free capacity (ties: lowest id),
//! again the cheapest item first; [`Legalizer::fallback_moves`] counts those.
//!
//! With `legalize=bisect` (the default, beyond the paper) the same state is
//! driven by [`super::bisect`] instead: one step is one level of a recursive
//! coordinate bisection of Φ, every item moving to its box's node nearest
//! its bin ([`Legalizer::bisecting`]); `λ` then stays 0.
//!
//! Cost per iteration: the CG solve (O(iterations · nodes · D)), the sort
//! O(nodes log nodes), and O(moves · items per node · degree) for the moves.

use super::bisect::Bisection;
use super::global::ItemGraph;
use crate::topology::Grid;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Accum, MatMut, MatRef, Par};

/// One migration of a legalization step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Migration {
    pub item: u32,
    pub from: u32,
    pub to: u32,
    /// Hop-bytes change of the move.
    pub cost: f64,
}

/// The legalization state.
pub struct Legalizer {
    grid: Grid,
    cap: u32,
    node_of: Vec<u32>,
    items_on: Vec<Vec<u32>>,
    // Laplacian (CSC, symmetric, with the 1e-9 shift on the diagonal).
    col_ptr: Vec<u32>,
    row_idx: Vec<u32>,
    val: Vec<f64>,
    lambda: Vec<f64>,
    b: Vec<f64>,
    iterations: usize,
    max_iterations: usize,
    fallback_moves: usize,
    migrations: Vec<Migration>,
    done: bool,
    /// `legalize=bisect`: the bisection that drives the steps.
    bisect: Option<Bisection>,
}

impl Legalizer {
    /// Start with item `i` on node `start[i]`; nodes hold at most `cap` items.
    pub fn new(grid: &Grid, cap: u32, start: Vec<u32>, max_iterations: usize) -> Self {
        let nodes = grid.num_nodes();
        let mut items_on = vec![Vec::new(); nodes];
        for (i, &v) in start.iter().enumerate() {
            items_on[v as usize].push(i as u32);
        }
        let mut col_ptr = Vec::with_capacity(nodes + 1);
        let mut row_idx = Vec::new();
        let mut val = Vec::new();
        col_ptr.push(0u32);
        let mut nb = Vec::new();
        for v in 0..nodes {
            nb.clear();
            grid.neighbors_into(v, &mut nb);
            nb.push(v);
            nb.sort_unstable();
            let deg = (nb.len() - 1) as f64;
            for &u in &nb {
                row_idx.push(u as u32);
                val.push(if u == v { deg + 1e-9 } else { -1.0 });
            }
            col_ptr.push(row_idx.len() as u32);
        }
        Legalizer {
            grid: grid.clone(),
            cap,
            node_of: start,
            items_on,
            col_ptr,
            row_idx,
            val,
            lambda: vec![0.0; nodes],
            b: vec![0.0; nodes],
            iterations: 0,
            max_iterations,
            fallback_moves: 0,
            migrations: Vec::new(),
            done: false,
            bisect: None,
        }
    }

    /// Legalization by recursive bisection of `phi` (items × D; beyond the
    /// paper, see [`super::bisect`]), equal sides cut in the priority
    /// `order`; item `i` starts on node `start[i]`.
    pub fn bisecting(grid: &Grid, cap: u32, start: Vec<u32>, phi: &[f64], order: &[usize]) -> Self {
        let nodes = grid.num_nodes();
        let mut items_on = vec![Vec::new(); nodes];
        for (i, &v) in start.iter().enumerate() {
            items_on[v as usize].push(i as u32);
        }
        Legalizer {
            grid: grid.clone(),
            cap,
            node_of: start,
            items_on,
            col_ptr: Vec::new(),
            row_idx: Vec::new(),
            val: Vec::new(),
            lambda: vec![0.0; nodes],
            b: vec![0.0; nodes],
            iterations: 0,
            max_iterations: usize::MAX,
            fallback_moves: 0,
            migrations: Vec::new(),
            done: false,
            bisect: Some(Bisection::new(grid, cap, phi, order)),
        }
    }

    /// One bisection level: cut, then move every item whose node changed
    /// (each move's cost against the positions of the moves before it).
    fn bisect_step(&mut self, g: &ItemGraph) -> bool {
        let Some(bis) = self.bisect.as_mut() else {
            return true;
        };
        if bis.level() {
            self.iterations += 1;
        }
        let mut to = vec![0u32; self.node_of.len()];
        bis.nodes_into(&mut to);
        let finished = bis.is_done();
        for (i, &t) in to.iter().enumerate() {
            let from = self.node_of[i];
            if from != t {
                let cost = self.move_cost(g, i, t as usize);
                self.node_of[i] = t;
                self.migrations.push(Migration {
                    item: i as u32,
                    from,
                    to: t,
                    cost,
                });
            }
        }
        for v in &mut self.items_on {
            v.clear();
        }
        for (i, &v) in self.node_of.iter().enumerate() {
            self.items_on[v as usize].push(i as u32);
        }
        if finished {
            self.done = true;
        }
        self.done
    }

    pub fn node_of(&self) -> &[u32] {
        &self.node_of
    }
    pub fn items_on(&self, node: usize) -> &[u32] {
        &self.items_on[node]
    }
    pub fn lambda(&self) -> &[f64] {
        &self.lambda
    }
    pub fn iterations(&self) -> usize {
        self.iterations
    }
    pub fn fallback_moves(&self) -> usize {
        self.fallback_moves
    }
    /// The migrations of the last step.
    pub fn migrations(&self) -> &[Migration] {
        &self.migrations
    }
    pub fn is_done(&self) -> bool {
        self.done
    }
    /// Whether every node holds at most `cap` items.
    pub fn is_legal(&self) -> bool {
        self.items_on.iter().all(|v| v.len() <= self.cap as usize)
    }
    /// Largest node load.
    pub fn max_load(&self) -> usize {
        self.items_on.iter().map(|v| v.len()).max().unwrap_or(0)
    }

    /// Hop-bytes change of moving `item` from its node to `to`.
    pub fn move_cost(&self, g: &ItemGraph, item: usize, to: usize) -> f64 {
        let from = self.node_of[item] as usize;
        let (t, w) = g.row(item);
        let mut s = 0.0;
        for (&q, &c) in t.iter().zip(w) {
            let nq = self.node_of[q as usize] as usize;
            s += c * (self.grid.distance(to, nq) as f64 - self.grid.distance(from, nq) as f64);
        }
        s
    }

    /// Move the cheapest item of `from` to `to` (ties: lowest id); records
    /// and returns the migration. None when `from` is empty.
    pub fn migrate_one(&mut self, g: &ItemGraph, from: usize, to: usize) -> Option<Migration> {
        let mut best: Option<(f64, u32)> = None;
        for &p in &self.items_on[from] {
            let c = self.move_cost(g, p as usize, to);
            if best.is_none_or(|(bc, bp)| c < bc || (c == bc && p < bp)) {
                best = Some((c, p));
            }
        }
        let (cost, p) = best?;
        self.items_on[from].retain(|&q| q != p);
        self.items_on[to].push(p);
        self.node_of[p as usize] = to as u32;
        let m = Migration {
            item: p,
            from: from as u32,
            to: to as u32,
            cost,
        };
        self.migrations.push(m);
        Some(m)
    }

    fn matvec(&self, x: &[f64], out: &mut [f64]) {
        let n = self.lambda.len();
        let sym = SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx);
        let mat = SparseColMatRef::new(sym, &self.val);
        faer::sparse::linalg::matmul::sparse_dense_matmul(
            MatMut::from_column_major_slice_mut(out, n, 1),
            Accum::Replace,
            mat,
            MatRef::from_column_major_slice(x, n, 1),
            1.0,
            Par::Seq,
        );
    }

    /// Solve L λ = b by CG from λ = 0.
    fn solve_lambda(&mut self) {
        let n = self.lambda.len();
        let b = std::mem::take(&mut self.b);
        let mut x = vec![0.0; n];
        let mut r = b.clone();
        let mut p = r.clone();
        let mut q = vec![0.0; n];
        let bb: f64 = b.iter().map(|a| a * a).sum();
        let tol = 1e-12 * bb.max(1e-300);
        let mut rr = bb;
        for _ in 0..(4 * n + 100) {
            if rr <= tol {
                break;
            }
            self.matvec(&p, &mut q);
            let pq: f64 = p.iter().zip(&q).map(|(a, b)| a * b).sum();
            if pq <= 0.0 || !pq.is_finite() {
                break;
            }
            let alpha = rr / pq;
            let mut rr_new = 0.0;
            for v in 0..n {
                x[v] += alpha * p[v];
                r[v] -= alpha * q[v];
                rr_new += r[v] * r[v];
            }
            let beta = rr_new / rr;
            rr = rr_new;
            for v in 0..n {
                p[v] = r[v] + beta * p[v];
            }
        }
        self.lambda = x;
        self.b = b;
    }

    /// One legalization iteration. Returns true when legal (done).
    pub fn step(&mut self, g: &ItemGraph) -> bool {
        self.migrations.clear();
        if self.bisect.is_some() {
            return self.done || self.bisect_step(g);
        }
        if self.done || self.is_legal() {
            self.done = true;
            return true;
        }
        if self.iterations >= self.max_iterations {
            self.fallback(g);
            self.done = true;
            return true;
        }
        self.iterations += 1;
        let nodes = self.items_on.len();
        let cap = self.cap as f64;
        let (mut excess, mut free) = (0.0, 0.0);
        for v in 0..nodes {
            let l = self.items_on[v].len() as f64;
            if l > cap {
                excess += l - cap;
            } else {
                free += cap - l;
            }
        }
        let ratio = if free > 0.0 { excess / free } else { 0.0 };
        for v in 0..nodes {
            let l = self.items_on[v].len() as f64;
            self.b[v] = if l > cap { l - cap } else { (l - cap) * ratio };
        }
        self.solve_lambda();
        let mut order: Vec<u32> = (0..nodes as u32).collect();
        order.sort_by(|&a, &b| {
            self.lambda[b as usize]
                .total_cmp(&self.lambda[a as usize])
                .then(a.cmp(&b))
        });
        let mut nb = Vec::new();
        let mut cand: Vec<(f64, usize)> = Vec::new();
        for &i in &order {
            let i = i as usize;
            if self.items_on[i].len() <= self.cap as usize {
                continue;
            }
            nb.clear();
            self.grid.neighbors_into(i, &mut nb);
            nb.sort_unstable();
            cand.clear();
            for &j in &nb {
                let diff = self.lambda[i] - self.lambda[j];
                if diff > 0.0 {
                    cand.push((diff, j));
                }
            }
            for &(diff, j) in &cand {
                let excess = self.items_on[i].len().saturating_sub(self.cap as usize);
                let amount = excess.min(diff.floor() as usize);
                for _ in 0..amount {
                    self.migrate_one(g, i, j);
                }
            }
            if self.items_on[i].len() > self.cap as usize {
                cand.sort_by(|a, b| {
                    (b.0 - b.0.floor())
                        .total_cmp(&(a.0 - a.0.floor()))
                        .then(a.1.cmp(&b.1))
                });
                for &(_, j) in &cand {
                    if self.items_on[i].len() <= self.cap as usize {
                        break;
                    }
                    self.migrate_one(g, i, j);
                }
            }
        }
        if self.is_legal() {
            self.done = true;
        } else if self.migrations.is_empty() {
            self.fallback(g);
            self.done = true;
        }
        self.done
    }

    /// Send all remaining excess to the nearest nodes with room.
    fn fallback(&mut self, g: &ItemGraph) {
        let nodes = self.items_on.len();
        let cap = self.cap as usize;
        for i in 0..nodes {
            while self.items_on[i].len() > cap {
                let Some(j) = (0..nodes)
                    .filter(|&j| self.items_on[j].len() < cap)
                    .min_by_key(|&j| (self.grid.distance(i, j), j))
                else {
                    return; // more items than slots: cannot happen (checked at start)
                };
                self.migrate_one(g, i, j);
                self.fallback_moves += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(n: usize) -> ItemGraph {
        ItemGraph::from_lists(
            n,
            (0..n)
                .map(|i| {
                    let mut r = Vec::new();
                    if i > 0 {
                        r.push((i as u32 - 1, 1.0 + i as f64));
                    }
                    if i + 1 < n {
                        r.push((i as u32 + 1, 2.0 + i as f64));
                    }
                    r
                })
                .collect(),
        )
    }

    fn hop_bytes(g: &ItemGraph, grid: &Grid, node_of: &[u32]) -> f64 {
        let mut s = 0.0;
        for i in 0..g.n() {
            let (t, w) = g.row(i);
            for (&j, &c) in t.iter().zip(w) {
                if (j as usize) > i {
                    s +=
                        c * grid.distance(node_of[i] as usize, node_of[j as usize] as usize) as f64;
                }
            }
        }
        s
    }

    #[test]
    fn every_migration_moves_the_cheapest_item() {
        // 6 items on 3 of the 9 nodes of a 3x3 torus; move one from node 4
        // to each neighbour and compare with brute force.
        let grid = Grid::torus(&[3, 3]);
        let g = path(6);
        let start = vec![4, 4, 0, 4, 8, 4];
        for to in [1usize, 3, 5, 7] {
            let mut l = Legalizer::new(&grid, 1, start.clone(), 10);
            let before = hop_bytes(&g, &grid, l.node_of());
            let mut brute: Vec<(f64, u32)> = Vec::new();
            for &p in l.items_on(4) {
                let mut m = l.node_of().to_vec();
                m[p as usize] = to as u32;
                brute.push((hop_bytes(&g, &grid, &m) - before, p));
            }
            brute.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let mig = l.migrate_one(&g, 4, to).unwrap();
            assert_eq!(mig.item, brute[0].1, "to {to}: {brute:?}");
            assert!((mig.cost - brute[0].0).abs() < 1e-9);
        }
    }

    #[test]
    fn legalization_ends_legal_for_every_load() {
        for (dims, wrap) in [(vec![4u32, 3], false), (vec![3, 3], true), (vec![5], true)] {
            let grid = Grid::new(&dims, &vec![wrap; dims.len()], 1).unwrap();
            let nodes = grid.num_nodes();
            for cap in [1u32, 2] {
                for n in 1..=nodes * cap as usize {
                    // Everything piled on node 0.
                    let g = path(n);
                    let mut l = Legalizer::new(&grid, cap, vec![0; n], 50);
                    let mut steps = 0;
                    while !l.step(&g) {
                        steps += 1;
                        assert!(steps < 1000);
                    }
                    assert!(l.is_legal(), "{dims:?} cap {cap} n {n}");
                    let mut count = vec![0; nodes];
                    for &v in l.node_of() {
                        count[v as usize] += 1;
                    }
                    assert_eq!(count.iter().sum::<usize>(), n);
                }
            }
        }
    }
}
