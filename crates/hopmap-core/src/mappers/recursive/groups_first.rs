//! `group=first` of `recursive` and `recursive+refine` on multicore nodes:
//! choose which processes share a node first, then place the nodes.
//!
//! 1. Split the processes into ⌈n / cores⌉ groups of at most `cores`, the
//!    heaviest-communicating together ([`crate::partition::groups_of_size`]:
//!    multilevel recursive bisection, Wu et al. §3.6's balancing).
//! 2. Map the quotient graph (one vertex per group, the bytes between
//!    groups on its edges) onto the network with one core per node, by the
//!    same recursive mapper (and its refinement).
//! 3. Give each group's processes its node's cores; with `recursive+refine`
//!    a last swap refinement on the whole graph lets single processes move
//!    between nodes.
//!
//! The default order (`group=no`) bisects processes and machine together
//! down to single nodes. Grouping first fixes the node contents by the
//! heaviest communication alone, before distances are known — the order of
//! Wu et al.'s analytical mapper and of hierarchical mappers such as
//! SharedMap. Cost: the grouping O(m log n), the mapper on the quotient
//! (n / cores vertices), then the refinement.

use super::Recursive;
use super::refine::{Refine, RefineParams};
use crate::error::{Error, Result};
use crate::graph::GraphBuilder;
use crate::mappers::{MapperInput, MapperRun, StepEvent};
use crate::mapping::Mapping;
use crate::partition::{groups_of_size, pair_volumes};
use crate::step::{Progress, StepState, Stepper, Stop};
use crate::topology::Topology;
use std::sync::Arc;

/// The grouped run (see the module docs).
pub struct GroupsFirst {
    input: MapperInput,
    part: Vec<u32>,
    inner: Recursive,
    refine_params: Option<RefineParams>,
    refine: Option<Box<Refine>>,
    placement: Vec<Option<u32>>,
    mapping: Option<Mapping>,
    event: Option<StepEvent>,
    stop: Option<Stop>,
    error: Option<Error>,
}

impl GroupsFirst {
    /// Group, build the quotient and start the inner mapper on it.
    pub fn new(input: &MapperInput, refine: Option<RefineParams>, runs: usize) -> Result<Self> {
        let Some(grid) = input.topo.as_grid() else {
            return Err(Error::Unsupported(
                "group=first runs on meshes and tori".into(),
            ));
        };
        let cores = input.topo.cores();
        let groups = groups_of_size(&input.graph, cores, input.seed)?;
        let mut b = GraphBuilder::new(groups.k, false);
        for (u, v, c) in input.graph.pairs() {
            let (a, z) = (groups.part[u] as usize, groups.part[v] as usize);
            if a != z {
                b.add(a, z, c);
            }
        }
        let quotient = Arc::new(b.build()?);
        let one = Arc::new(Topology::Grid(grid.clone().with_cores(1)));
        let mut inner_input = MapperInput::new(quotient, one, input.seed);
        inner_input.params = input.params.clone();
        let inner = Recursive::new(&inner_input, refine, runs)?;
        Ok(GroupsFirst {
            input: input.clone(),
            part: groups.part,
            inner,
            refine_params: refine,
            refine: None,
            placement: vec![None; input.graph.n()],
            mapping: None,
            event: None,
            stop: None,
            error: None,
        })
    }

    fn expand(&self, groups: &Mapping) -> Mapping {
        let nodes = self.input.topo.num_nodes();
        let mut used = vec![0u32; nodes];
        let mut node = Vec::with_capacity(self.part.len());
        let mut core = Vec::with_capacity(self.part.len());
        for &g in &self.part {
            let x = groups.node[g as usize];
            node.push(x);
            core.push(used[x as usize]);
            used[x as usize] += 1;
        }
        Mapping::new(node, core)
    }

    fn finish(&mut self, m: Mapping, stop: Stop) {
        let c = self.input.topo.cores();
        self.placement = (0..m.len()).map(|p| Some(m.slot(p, c) as u32)).collect();
        self.mapping = Some(m);
        self.stop = Some(stop);
    }
}

impl Stepper for GroupsFirst {
    fn step(&mut self) -> StepState {
        if self.stop.is_some() {
            return self.state();
        }
        if let Some(r) = self.refine.as_mut() {
            r.step();
            self.event = Some(StepEvent::Swaps {
                swapped: r.last_swaps().to_vec(),
                hop_bytes: r.hop_bytes(),
            });
            self.placement = r.placement().to_vec();
            if r.is_done() {
                let m = r.mapping();
                self.finish(m, Stop::Complete);
            }
            return self.state();
        }
        match self.inner.step() {
            StepState::Running => {}
            StepState::Stopped(Stop::Failed) => {
                let why = self
                    .inner
                    .error()
                    .map_or("the grouped mapping failed".to_string(), |e| e.to_string());
                self.error = Some(Error::Unsupported(why));
                self.stop = Some(Stop::Failed);
            }
            StepState::Stopped(stop) => match self.inner.result() {
                None => {
                    self.error = Some(Error::Unsupported(
                        "the grouped mapping stopped without a result".into(),
                    ));
                    self.stop = Some(Stop::Failed);
                }
                Some(g) => {
                    let m = self.expand(&g);
                    self.event = Some(StepEvent::Whole);
                    match self.refine_params {
                        Some(p) => {
                            let p = RefineParams {
                                depth: if p.depth == u32::MAX { 1 } else { p.depth },
                                ..p
                            };
                            let c = self.input.topo.cores();
                            self.placement =
                                (0..m.len()).map(|q| Some(m.slot(q, c) as u32)).collect();
                            self.refine = Some(Box::new(Refine::new(
                                self.input.graph.clone(),
                                self.input.topo.clone(),
                                Arc::new(pair_volumes(&self.input.graph)),
                                m,
                                p,
                            )));
                        }
                        None => self.finish(m, stop),
                    }
                }
            },
        }
        self.state()
    }

    fn state(&self) -> StepState {
        match self.stop {
            Some(s) => StepState::Stopped(s),
            None => StepState::Running,
        }
    }

    fn progress(&self) -> Progress {
        match &self.refine {
            Some(r) => {
                let (d, t) = r.progress();
                Progress {
                    done: d,
                    total: Some(t),
                    phase: "refine",
                }
            }
            None => Progress {
                phase: "groups onto nodes",
                ..self.inner.progress()
            },
        }
    }
}

impl MapperRun for GroupsFirst {
    fn placement(&self) -> &[Option<u32>] {
        &self.placement
    }
    fn result(&self) -> Option<Mapping> {
        self.mapping.clone()
    }
    fn error(&self) -> Option<&Error> {
        self.error.as_ref()
    }
    fn inspect(&self) -> super::super::RunRef<'_> {
        super::super::RunRef::GroupsFirst(self)
    }
}

impl GroupsFirst {
    /// What the last step placed.
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.event.as_ref()
    }
    /// How many node groups the processes were grouped into.
    pub fn summary(&self) -> Option<String> {
        Some(format!(
            "grouped the processes into nodes first ({} groups)",
            self.inner.num_processes()
        ))
    }
}
