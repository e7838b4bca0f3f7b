//! Mappers: algorithms that place a communication graph's processes onto a
//! topology's slots. Every mapper is listed once in [`registry`], under its
//! paper's name and a short id; the GUI and the CLI take the list from there.
//!
//! Every mapper runs as a [`MapperRun`]: a [`Stepper`] whose current partial
//! mapping and last step can be read between steps, so the GUI can animate a
//! greedy placement one process at a time and the CLI can run it to the end
//! with the same code.

pub mod affn;
pub mod bft;
pub mod cdl;
pub mod coce;
pub mod coce_mht;
pub mod default;
pub mod gravity;
pub mod greedy;
pub mod mht;
pub mod pairs;
pub mod permutation;
pub mod random;

use crate::error::{Error, Result};
use crate::graph::CommGraph;
use crate::mapping::Mapping;
use crate::step::Stepper;
use crate::topology::Topology;
use std::sync::Arc;

/// Everything a mapper is given.
#[derive(Clone, Debug)]
pub struct MapperInput {
    pub graph: Arc<CommGraph>,
    pub topo: Arc<Topology>,
    /// Mapper parameters as `key=value` strings (parsed by each mapper).
    pub params: Vec<(String, String)>,
    pub seed: u64,
}

impl MapperInput {
    pub fn new(graph: Arc<CommGraph>, topo: Arc<Topology>, seed: u64) -> Self {
        MapperInput {
            graph,
            topo,
            params: Vec::new(),
            seed,
        }
    }
    /// A parameter's value, if given.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    /// Fails unless the graph fits in the topology's slots.
    pub fn check_fits(&self) -> Result<()> {
        if self.graph.n() > self.topo.num_slots() {
            return Err(Error::Unsupported(format!(
                "{} processes do not fit in {} slots of {}",
                self.graph.n(),
                self.topo.num_slots(),
                self.topo.spec()
            )));
        }
        Ok(())
    }
}

/// What the last step of a mapper did, for animation.
#[derive(Clone, Debug, PartialEq)]
pub enum StepEvent {
    /// A greedy placement put `process` on `slot`; it wanted to go to
    /// `desired` (topology coordinates, possibly fractional, e.g. a centroid)
    /// and findNearest chose `slot`.
    Placed {
        process: usize,
        desired: Vec<f64>,
        slot: usize,
    },
    /// A batch of swaps (pairwise exchange); hop-bytes after the batch.
    Swaps {
        swapped: Vec<(usize, usize)>,
        hop_bytes: f64,
    },
    /// A whole mapping was produced at once (e.g. a permutation order).
    Whole,
}

/// A mapper in progress. `step()` advances one visible unit of work.
pub trait MapperRun: Stepper + Send {
    /// Slot of each process so far (None = not placed yet).
    fn placement(&self) -> &[Option<u32>];
    /// What the last step did.
    fn last_event(&self) -> Option<&StepEvent>;
    /// The frontier, when the algorithm has one (heap or BFS queue contents).
    fn frontier(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Hop-bytes after each step so far, for algorithms that track it (PAIRS).
    fn hop_bytes_trace(&self) -> &[f64] {
        &[]
    }
    /// The finished mapping (None until done).
    fn result(&self) -> Option<Mapping>;
}

/// A registry entry.
pub struct MapperInfo {
    /// Short id used on the command line (`mht`, `coce+mht`, `xyzt`...).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// Paper and section, e.g. "Bhatele & Kale §IV, Heuristic 2".
    pub paper: &'static str,
    /// One paragraph that teaches the idea (GUI tooltip, `--help`).
    pub doc: &'static str,
    /// Whether the mapper needs per-process coordinates.
    pub needs_coords: bool,
    /// Whether the mapper uses the seed.
    pub randomized: bool,
    /// Start a run. Fails with a clear message if it cannot run on the input.
    pub start: fn(&MapperInput) -> Result<Box<dyn MapperRun>>,
}

impl std::fmt::Debug for MapperInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapperInfo").field("id", &self.id).finish()
    }
}

/// Every registered mapper, in display order.
pub fn registry() -> Vec<MapperInfo> {
    let mut v = vec![default::info(), random::info()];
    // Balaji et al.: permutation orders and the contention-model pick.
    v.push(permutation::info());
    v.extend(permutation::convenience_infos());
    v.push(cdl::info());
    // Bhatele & Kale: greedy heuristics and pairwise exchange.
    v.extend([
        bft::info(),
        mht::info(),
        affn::info(),
        coce::info(),
        coce_mht::info(),
        pairs::info(),
    ]);
    // Bobrik & Popova: the gravitational layout.
    v.extend([gravity::info(), gravity::info_greedy()]);
    v
}

/// Find a mapper by id (case-insensitive).
pub fn find(id: &str) -> Option<MapperInfo> {
    registry()
        .into_iter()
        .find(|m| m.id.eq_ignore_ascii_case(id))
}

/// Run a mapper to the end and return its validated mapping.
pub fn run(info: &MapperInfo, input: &MapperInput) -> Result<Mapping> {
    // `coords=infer`: give the graph coordinates from the gravitational layout.
    let inferred = gravity::with_inferred_coords(input)?;
    let input = inferred.as_ref().unwrap_or(input);
    input.check_fits()?;
    let mut r = (info.start)(input)?;
    r.run_to_end();
    let m = r.result().ok_or_else(|| {
        Error::Unsupported(format!("mapper {} finished without a mapping", info.id))
    })?;
    m.validate(input.graph.n(), &input.topo)?;
    Ok(m)
}

/// A mapper that produces its whole mapping in one step (default, random,
/// permutation orders). Shared by the non-iterative mappers.
pub struct OneShot {
    cores: usize,
    placement: Vec<Option<u32>>,
    mapping: Option<Mapping>,
    pending: Option<Mapping>,
    event: Option<StepEvent>,
}

impl OneShot {
    pub fn new(mapping: Mapping, topo: &Topology) -> Self {
        OneShot {
            cores: topo.cores(),
            placement: vec![None; mapping.len()],
            mapping: None,
            pending: Some(mapping),
            event: None,
        }
    }
}

impl Stepper for OneShot {
    fn step(&mut self) -> crate::step::StepStatus {
        if let Some(m) = self.pending.take() {
            self.placement = (0..m.len())
                .map(|p| Some(m.slot(p, self.cores) as u32))
                .collect();
            self.mapping = Some(m);
            self.event = Some(StepEvent::Whole);
        }
        crate::step::StepStatus::Done
    }
    fn is_done(&self) -> bool {
        self.mapping.is_some()
    }
    fn progress(&self) -> crate::step::Progress {
        crate::step::Progress {
            done: self.mapping.is_some() as usize,
            total: Some(1),
        }
    }
}

impl MapperRun for OneShot {
    fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    fn result(&self) -> Option<Mapping> {
        self.mapping.clone()
    }
}
