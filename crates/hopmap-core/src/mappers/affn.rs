//! `affn`: Affine Mapping (Bhatele & Kale §VI, Heuristic 3, Algorithm 2).
//!
//! Each process's coordinates are stretched affinely onto the grid —
//! coordinate axis `a` onto grid dimension `a`, `⌊k·(x − min)/(max − min)⌋`
//! clamped to `k − 1` (see [`super::greedy::Affine`]) — and, in process-id
//! order, each process goes to the free core nearest to its stretched
//! position (findNearest). 2D coordinates on a 3D grid use the middle plane
//! of the extra dimension; 3D coordinates on a 2D grid drop z.
//!
//! One step places one process; no frontier. O(n) plus one findNearest per
//! process (this is the run the paper times findNearest in, Fig. 1).

use super::greedy::{Affine, Choice, Placer, Policy, coords_of, start_greedy};
use super::{MapperInfo, MapperInput, MapperRun};
use crate::error::Result;
use crate::graph::{CommGraph, Coords};
use crate::mappers::Networks;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "affn",
        name: "Affine Mapping (AFFN)",
        paper: "Bhatele & Kale §VI, Heuristic 3 (Algorithm 2)",
        doc: "Use the processes' geometric coordinates: stretch the bounding box of the \
              coordinates onto the machine (an affine map per axis) and put each process on \
              the free node nearest to where it lands. Fast and faithful to the geometry, but \
              the stretch distorts the graph when its aspect ratio differs from the machine's.",
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
    let coords = coords_of(input, "affn")?.clone();
    start_greedy(input, "affn", |pl| Ok(Affn::new(coords, pl)))
}

/// The AFFN policy: processes in id order at their stretched positions.
#[derive(Clone, Debug)]
pub struct Affn {
    coords: Coords,
    affine: Affine,
    next: usize,
}

impl Affn {
    pub fn new(coords: Coords, pl: &Placer) -> Self {
        let affine = Affine::new(&coords, pl.grid());
        Affn {
            coords,
            affine,
            next: 0,
        }
    }
}

impl Policy for Affn {
    fn next(&mut self, graph: &CommGraph, pl: &Placer) -> Option<(usize, Vec<f64>)> {
        let mut v = Vec::new();
        self.next_into(graph, pl, &mut v).map(|p| (p, v))
    }
    fn next_into(
        &mut self,
        _graph: &CommGraph,
        pl: &Placer,
        desired: &mut Vec<f64>,
    ) -> Option<usize> {
        while self.next < pl.n() && pl.is_placed(self.next) {
            self.next += 1;
        }
        let p = self.next;
        if p >= pl.n() {
            return None;
        }
        self.affine.position_into(&self.coords.xyz[p], desired);
        Some(p)
    }
    fn placed(&mut self, _p: usize, _graph: &CommGraph, _pl: &Placer) {}
    fn choice(&self, _graph: &CommGraph, _pl: &Placer, p: usize) -> Option<Choice> {
        Some(Choice::Affn {
            coords: self.coords.xyz[p][..self.coords.dim.clamp(1, 3)].to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::topology::Topology;
    use std::sync::Arc;

    #[test]
    fn affn_keeps_geometry_and_resolves_collisions_nearby() {
        // Four points at the corners of a square, plus one duplicate of the first.
        let mut b = GraphBuilder::new(5, false);
        b.add(0, 1, 1.0);
        let xyz = vec![
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 0.0],
            [0.0, 5.0, 0.0],
            [10.0, 5.0, 0.0],
            [0.0, 0.0, 0.0],
        ];
        let g = b
            .build()
            .unwrap()
            .with_coords(Some(Coords::new(2, xyz)))
            .unwrap();
        let t = Arc::new(Topology::parse("mesh:4x3").unwrap());
        let input = MapperInput::new(Arc::new(g), t.clone(), 0);
        let m = super::super::run(&info(), &input).unwrap();
        assert_eq!(m.node, vec![0, 3, 8, 11, 1]);
        // Without coordinates: a clear error.
        let bare = MapperInput::new(Arc::new(GraphBuilder::new(2, false).build().unwrap()), t, 0);
        let e = start(&bare).err().unwrap().to_string();
        assert!(e.contains("needs coordinates"), "{e}");
    }
}
