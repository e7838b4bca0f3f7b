//! `default`: rank i goes to slot i in the topology's linear order. With
//! several cores per node this is TXYZ (cores first, then X, Y, Z), the Blue
//! Gene/P default (Balaji et al. §2.2; Bhatele & Kale §VII-B's "default
//! mapping"). O(n).

use super::{MAX_HIGHLIGHT, MapperInfo, MapperInput, MapperRun, OneShot, OneShotPlan};
use crate::error::Result;
use crate::mappers::Networks;
use crate::mapping::Mapping;

pub fn info() -> MapperInfo {
    MapperInfo {
        id: "default",
        name: "Default (linear, TXYZ)",
        paper: "Bhatele & Kale §VII-B; Balaji et al. §2.2",
        doc: "Rank i goes to slot i: cores of node 0 first, then node 1, along X, then Y, then Z. \
              This is what a launcher does without topology information (TXYZ on Blue Gene/P). \
              It is good when nearby ranks communicate, as after METIS numbering.",
        needs_coords: false,
        randomized: false,
        params: &[],
        networks: Networks::Any,
        per_node_state: false,
        external: None,
        start,
    }
}

fn start(input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    input.check_fits()?;
    let n = input.graph.n();
    let slots: Vec<usize> = (0..n).collect();
    // On a grid, default is the order TXYZ…; elsewhere slot order.
    let (plan, hl) = match input.topo.as_grid() {
        Some(g) => {
            let mut order = vec![super::permutation::Axis::T];
            order.extend((0..g.ndims()).map(super::permutation::Axis::Dim));
            let hl = super::permutation::first_run(&order, g, n);
            let plan = OneShotPlan::Order {
                order,
                launcher: true,
            };
            (plan, hl)
        }
        None => {
            let run = n.min(input.topo.cores().max(1) * 2).min(MAX_HIGHLIGHT);
            (OneShotPlan::Linear, (0..run).collect())
        }
    };
    Ok(Box::new(
        OneShot::new(Mapping::from_slots(&slots, &input.topo), &input.topo).with_plan(plan, hl),
    ))
}
