//! `coce+mht`: Corners to Centre followed by Max Heap Traversal (Bhatele &
//! Kale §VI, Heuristic 4, "COCE+MHT"). The corner processes are chosen and
//! pinned exactly as in [`super::coce`]; their partners enter MHT's max-heap
//! and the rest is placed by MHT (centroid of mapped partners, findNearest).
//!
//! One step places one process; the frontier is the pending corners, then
//! the heap. O((n + m) log m + n·2^K) plus one findNearest per process.

use super::coce::Corners;
use super::greedy::{coords_of, start_greedy};
use super::mht::Mht;
use super::{MapperInfo, MapperInput, MapperRun};
use crate::error::Result;
use crate::mappers::Networks;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "coce+mht",
        name: "Corners to Centre + Max Heap (COCE+MHT)",
        paper: "Bhatele & Kale §VI, Heuristic 4",
        doc: "Pin the graph's corner processes (found from coordinates) to the machine's \
              corners, then fill inward with the max-heap traversal: always place the process \
              with the most placed partners, near their centroid. Combines COCE's alignment \
              with MHT's compact growth; the paper's best on large graphs.",
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
    let coords = coords_of(input, "coce+mht")?;
    start_greedy(input, "coce+mht", |pl| {
        Ok(Corners::new(coords, pl, Mht::new(&input.graph)).named("COCE+MHT"))
    })
}
