//! `random`: a seeded uniformly random placement of processes on slots —
//! Moh et al.'s RM baseline. Its average hops per byte is about half the
//! network diameter (Bhatele & Kale §VIII). O(slots).

use super::{MapperInfo, MapperInput, MapperRun, OneShot, OneShotPlan};
use crate::error::Result;
use crate::mappers::Networks;
use crate::mapping::Mapping;
use crate::rng::Rng;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "random",
        name: "Random (RM)",
        paper: "Moh et al. (RM baseline); Bhatele & Kale §VIII",
        doc: "Each process goes to a uniformly random free slot (seeded). The baseline every \
              heuristic must beat: on average a message travels about half the network diameter.",
        needs_coords: false,
        randomized: true,
        params: &[],
        networks: Networks::Any,
        per_node_state: true,
        external: None,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    input.check_fits()?;
    let mut slots: Vec<usize> = (0..input.topo.num_slots()).collect();
    Rng::new(input.seed).shuffle(&mut slots);
    slots.truncate(input.graph.n());
    // Highlight the first three processes and the last.
    let n = slots.len();
    let mut hl: Vec<usize> = (0..n.min(3)).collect();
    if n > 3 {
        hl.push(n - 1);
    }
    let plan = OneShotPlan::Random { seed: input.seed };
    Ok(Box::new(
        OneShot::new(Mapping::from_slots(&slots, &input.topo), &input.topo).with_plan(plan, hl),
    ))
}
