//! `coce`: Corners to Centre (Bhatele & Kale §VI, Heuristic 4), with BFT for
//! the rest; [`super::coce_mht`] uses the same corners, then MHT.
//!
//! Corners: with `K` = min(coordinate dimension, grid dimensions) axes (2 in
//! 2D, 3 in 3D), the grid has `2^K` corners (4 in 2D, 8 in 3D). The paper
//! picks "the nodes with the minimum and maximum X and Y coordinates"; we
//! generalise this so that every corner gets its own extreme process: corner
//! `s ∈ {low, high}^K` gets the process maximising `Σ_a (s_a ? t_a : 1 − t_a)`
//! where `t_a` is its coordinate normalised by the min/max of axis `a`
//! (smallest id on ties; a process already chosen for an earlier corner is
//! not reused). It is placed on that grid corner (`0` or `k − 1` per axis,
//! grid dimensions past `K` at their centre). Then the traversal starts from
//! all corners at once: their partners are placed near them and mapping
//! progresses inward.
//!
//! One step places one process (corners first); the frontier is the BFT
//! queue. O(n·2^K + m) plus one findNearest per process.

use super::bft::Bft;
use super::greedy::{Affine, Choice, Placer, Policy, coords_of, start_greedy};
use super::{MapperInfo, MapperInput, MapperRun};
use crate::error::Result;
use crate::graph::{CommGraph, Coords};
use crate::mappers::Networks;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "coce",
        name: "Corners to Centre (COCE)",
        paper: "Bhatele & Kale §VI, Heuristic 4",
        doc: "Use coordinates to find the graph's corners (the processes extreme in each \
              diagonal direction: 4 in 2D, 8 in 3D) and pin them to the machine's corners. \
              Then grow breadth-first from all corners at once toward the centre, placing each \
              partner near its parent. Keeps the graph's outline aligned with the machine's.",
        needs_coords: true,
        randomized: false,
        params: &[super::FIND_PARAM, super::COORDS_PARAM],
        networks: Networks::Grids,
        per_node_state: true,
        external: None,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    let coords = coords_of(input, "coce")?;
    start_greedy(input, "coce", |pl| {
        Ok(Corners::new(coords, pl, Bft::new(pl.n())))
    })
}

/// The corner processes and their grid corners, in corner order (corner
/// index bit `a` set = high end of axis `a`).
pub fn corners(coords: &Coords, pl: &Placer) -> Vec<(usize, Vec<f64>)> {
    let grid = pl.grid();
    let aff = Affine::new(coords, grid);
    let k = aff.axes();
    let n = coords.xyz.len().min(pl.n());
    let mut out: Vec<(usize, Vec<f64>)> = Vec::new();
    for s in 0..(1usize << k) {
        let mut best: Option<(f64, usize)> = None;
        for p in 0..n {
            if out.iter().any(|(q, _)| *q == p) {
                continue;
            }
            let score: f64 = (0..k)
                .map(|a| {
                    let t = aff.unit(&coords.xyz[p], a);
                    if s >> a & 1 == 1 { t } else { 1.0 - t }
                })
                .sum();
            if best.is_none_or(|(b, _)| score > b) {
                best = Some((score, p));
            }
        }
        let Some((_, p)) = best else { break };
        let pos = (0..grid.ndims())
            .map(|d| {
                let kd = grid.dims()[d];
                if d < k {
                    if s >> d & 1 == 1 {
                        (kd - 1) as f64
                    } else {
                        0.0
                    }
                } else {
                    (kd / 2) as f64
                }
            })
            .collect();
        out.push((p, pos));
    }
    out
}

/// Place the corners first, then hand over to `inner` (BFT or MHT).
#[derive(Clone, Debug)]
pub struct Corners<P: Policy> {
    pending: Vec<(usize, Vec<f64>)>,
    inner: P,
    /// Every corner process, for guided mode.
    corner_ids: Vec<usize>,
    /// The mapper's name in sentences (`COCE`, `COCE+MHT`).
    name: &'static str,
}

impl<P: Policy> Corners<P> {
    pub fn new(coords: &Coords, pl: &Placer, inner: P) -> Self {
        let mut pending = corners(coords, pl);
        let corner_ids = pending.iter().map(|(p, _)| *p).collect();
        pending.reverse();
        Corners {
            pending,
            inner,
            corner_ids,
            name: "COCE",
        }
    }

    /// The mapper's name in [`Choice::CoceCorner`] (`COCE`, `COCE+MHT`).
    pub fn named(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }
}

impl<P: Policy> Policy for Corners<P> {
    fn next(&mut self, graph: &CommGraph, pl: &Placer) -> Option<(usize, Vec<f64>)> {
        while let Some((p, pos)) = self.pending.pop() {
            if !pl.is_placed(p) {
                return Some((p, pos));
            }
        }
        self.inner.next(graph, pl)
    }
    fn next_into(
        &mut self,
        graph: &CommGraph,
        pl: &Placer,
        desired: &mut Vec<f64>,
    ) -> Option<usize> {
        while let Some((p, pos)) = self.pending.pop() {
            if !pl.is_placed(p) {
                *desired = pos;
                return Some(p);
            }
        }
        self.inner.next_into(graph, pl, desired)
    }
    fn placed(&mut self, p: usize, graph: &CommGraph, pl: &Placer) {
        self.inner.placed(p, graph, pl);
    }
    fn choice(&self, graph: &CommGraph, pl: &Placer, p: usize) -> Option<Choice> {
        if let Some(i) = self.corner_ids.iter().position(|&c| c == p) {
            return Some(Choice::CoceCorner {
                name: self.name,
                corner: i,
                corners: self.corner_ids.len(),
            });
        }
        Some(Choice::CoceInward {
            name: self.name,
            inner: Box::new(self.inner.choice(graph, pl, p)?),
        })
    }
    fn frontier(&self, pl: &Placer) -> Vec<usize> {
        let mut f: Vec<usize> = self.pending.iter().rev().map(|(p, _)| *p).collect();
        f.extend(self.inner.frontier(pl));
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::find_nearest::FindKind;
    use crate::topology::Grid;

    #[test]
    fn corners_pick_diagonal_extremes_in_2d_and_3d() {
        let g = Grid::mesh(&[4, 4]);
        let pl = Placer::new(5, &g, FindKind::Tree);
        let c = Coords::new(
            2,
            vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.5, 0.5, 0.0],
            ],
        );
        let cs = corners(&c, &pl);
        assert_eq!(
            cs,
            vec![
                (0, vec![0.0, 0.0]),
                (1, vec![3.0, 0.0]),
                (2, vec![0.0, 3.0]),
                (3, vec![3.0, 3.0])
            ]
        );
        let g3 = Grid::torus(&[2, 2, 2]);
        let xyz: Vec<[f64; 3]> = (0..9)
            .map(|i| {
                if i == 8 {
                    [0.5; 3]
                } else {
                    [(i & 1) as f64, (i >> 1 & 1) as f64, (i >> 2) as f64]
                }
            })
            .collect();
        let pl3 = Placer::new(9, &g3, FindKind::Tree);
        let cs3 = corners(&Coords::new(3, xyz), &pl3);
        assert_eq!(cs3.len(), 8);
        assert!(cs3.iter().enumerate().all(|(i, (p, _))| *p == i));
    }
}
