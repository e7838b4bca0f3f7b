//! Guided mode: one sentence on what a mapper run's last step did, in the
//! terms of the mapper's paper and citing its section ("MHT took process 41
//! from the top of the heap: …"). The core publishes what each step did as
//! plain read-only records reached through [`RunRef`]; this module words
//! them, on demand, so steps stay cheap (O(1) to O(D) per sentence, D = the
//! grid's dimensions, never O(n)).
//!
//! One file per mapper family: [`one_shot`] (`default`, `random`, the
//! permutation orders), [`cdl`], [`greedy`] (BFT, MHT, AFFN, COCE, the
//! gravitational placements), [`pairs`], [`phased`] (the layout stage and
//! the stage switches), [`analytical`], [`recursive`], [`grid`], [`fabric`]
//! (SM, BM) and [`scotch`].

pub mod analytical;
pub mod cdl;
pub mod fabric;
pub mod greedy;
pub mod grid;
pub mod one_shot;
pub mod pairs;
pub mod phased;
pub mod recursive;
pub mod scotch;

use hopmap_core::mappers::RunRef;
use hopmap_core::topology::{Grid, Topology};

/// The sentence on `run`'s last step; None when the mapper has no sentence
/// for it (or no step was taken).
pub fn explain_last_step(run: RunRef<'_>) -> Option<String> {
    match run {
        RunRef::OneShot(r) => one_shot::explain(r),
        RunRef::Greedy(r) => greedy::explain(r),
        RunRef::Pairs(r) => pairs::explain(r),
        RunRef::Cdl(r) => cdl::explain(r),
        RunRef::Phased(r) => phased::explain(r),
        RunRef::Analytical(r) => analytical::explain(r),
        RunRef::AnalyticalPairs(r) => match r.pairs() {
            Some(p) if p.last_event().is_some() => pairs::explain(p),
            _ => analytical::explain(r.analytical()),
        },
        RunRef::Recursive(r) => recursive::explain(r),
        RunRef::GroupsFirst(_) => None,
        RunRef::GridEmbed(r) => grid::explain(r),
        RunRef::Sm(r) => fabric::explain_sm(r),
        RunRef::Bm(r) => fabric::explain_bm(r),
        RunRef::Scotch(r) => scotch::explain(r),
    }
}

/// A slot as a sentence names it: grid coordinates `(x, y, z)`, or a
/// fabric's host and switch; the core when nodes have several.
pub fn slot_str(topo: &Topology, slot: usize) -> String {
    let cores = topo.cores().max(1);
    let (node, core) = (slot / cores, slot % cores);
    let core = if cores > 1 {
        format!(" core {core}")
    } else {
        String::new()
    };
    match (topo.as_grid(), topo.as_fabric()) {
        (Some(g), _) => format!("{}{core}", coord_str(g, node)),
        (None, Some(f)) if node < f.num_hosts() => format!(
            "host {} (switch {}){core}",
            f.hosts()[node].name,
            f.switch_of(node)
        ),
        _ => format!("node {node}{core}"),
    }
}

/// A grid node's coordinates, `(x, y, z)`.
pub fn coord_str(g: &Grid, node: usize) -> String {
    let c = g.coord(node);
    let v: Vec<String> = (0..g.ndims()).map(|d| c[d].to_string()).collect();
    format!("({})", v.join(", "))
}

#[cfg(test)]
mod tests;
