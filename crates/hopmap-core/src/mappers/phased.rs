//! Phased mapper runs: a mapper whose work comes in stages, each of which
//! steps. `gravity` lays the graph out, then places processes one per step;
//! `pairs` runs its starting mapper step by step, then exchanges; any
//! coordinate mapper asked for `coords=infer` first runs the layout that
//! infers the coordinates (Bhatele & Kale §V). Nothing heavy happens when a
//! run starts: the layout's hierarchy is built by its first step, and each
//! next stage is started by the step that ends the previous one.
//!
//! [`Phased`] is a [`MapperRun`] that owns the current stage and a
//! continuation that builds the next stage from the previous one's output
//! (coordinates, or a mapping). Its progress names the phase in progress,
//! and it stops for the reason its last stage stopped; a continuation that
//! fails stops the run with [`Stop::Failed`] and keeps the error
//! ([`MapperRun::error`]). Its accessors ([`Phased::layout`], [`Phased::run`])
//! give the layout in progress or the current stage's run.
//!
//! Cost: the stages' own; switching stages is O(n).

use super::MapperRun;
use crate::error::{Error, Result};
use crate::graph::{CommGraph, Coords};
use crate::layout::{Layout, LayoutParams};
use crate::mapping::Mapping;
use crate::step::{Progress, StepState, Stepper, Stop};
use std::sync::Arc;

/// Builds the next stage from the coordinates a layout produced.
pub type ThenCoords = Box<dyn FnOnce(Coords) -> Result<Box<dyn MapperRun>> + Send>;
/// Builds the next stage from the mapping the previous stage produced.
pub type ThenMapping = Box<dyn FnOnce(Mapping) -> Result<Box<dyn MapperRun>> + Send>;

enum Stage {
    /// A layout not yet built (its hierarchy is built by the first step).
    LayoutPending {
        graph: Arc<CommGraph>,
        params: Box<LayoutParams>,
        then: ThenCoords,
    },
    Layout {
        layout: Box<Layout>,
        then: ThenCoords,
    },
    Run {
        run: Box<dyn MapperRun>,
        then: Option<ThenMapping>,
    },
    Failed,
}

/// A mapper run made of stages; see the module doc.
pub struct Phased {
    stage: Stage,
    /// Placement shown while no stage has one (during a layout).
    empty: Vec<Option<u32>>,
    error: Option<Error>,
    /// Stages finished so far.
    finished_phases: usize,
    /// The stage a step finished, kept so that front ends can tell what
    /// that step did while the next stage has taken no step yet.
    finished: Option<Finished>,
}

impl Phased {
    /// Lay `graph` out with `params` (stepping), then continue with `then`.
    pub fn layout_then(graph: Arc<CommGraph>, params: LayoutParams, then: ThenCoords) -> Self {
        let n = graph.n();
        Phased {
            stage: Stage::LayoutPending {
                graph,
                params: Box::new(params),
                then,
            },
            empty: vec![None; n],
            error: None,
            finished_phases: 0,
            finished: None,
        }
    }

    /// Run `first` to its end, then continue with `then` on its mapping.
    pub fn chain(first: Box<dyn MapperRun>, then: ThenMapping) -> Self {
        let n = first.placement().len();
        Phased {
            stage: Stage::Run {
                run: first,
                then: Some(then),
            },
            empty: vec![None; n],
            error: None,
            finished_phases: 0,
            finished: None,
        }
    }

    fn fail(&mut self, e: Error) -> StepState {
        self.error = Some(e);
        self.stage = Stage::Failed;
        StepState::Stopped(Stop::Failed)
    }

    /// The current stage's run, once past the layout (None during the
    /// layout and after a failed continuation).
    pub fn run(&self) -> Option<&dyn MapperRun> {
        match &self.stage {
            Stage::Run { run, .. } => Some(run.as_ref()),
            _ => None,
        }
    }
}

impl Stepper for Phased {
    fn step(&mut self) -> StepState {
        match std::mem::replace(&mut self.stage, Stage::Failed) {
            Stage::Failed => {
                self.stage = Stage::Failed;
                StepState::Stopped(Stop::Failed)
            }
            Stage::LayoutPending {
                graph,
                params,
                then,
            } => match Layout::new(&graph, *params) {
                Ok(layout) => {
                    self.stage = Stage::Layout {
                        layout: Box::new(layout),
                        then,
                    };
                    StepState::Running
                }
                Err(e) => self.fail(e),
            },
            Stage::Layout { mut layout, then } => {
                if layout.step().is_running() {
                    self.stage = Stage::Layout { layout, then };
                    return StepState::Running;
                }
                self.finished_phases += 1;
                self.finished = Some(Finished::Layout(LayoutStep::of(&layout)));
                match then(layout.coords()) {
                    Ok(run) => {
                        self.stage = Stage::Run { run, then: None };
                        StepState::Running
                    }
                    Err(e) => self.fail(e),
                }
            }
            Stage::Run { mut run, then } => {
                let s = run.step();
                let (then, stop) = match (then, s) {
                    (Some(then), StepState::Stopped(stop)) => (then, stop),
                    (then, s) => {
                        self.stage = Stage::Run { run, then };
                        return s;
                    }
                };
                if stop == Stop::Failed || stop == Stop::Cancelled {
                    self.stage = Stage::Run { run, then: None };
                    return s;
                }
                let Some(m) = run.result() else {
                    return self.fail(Error::Unsupported(
                        "the first phase finished without a mapping".into(),
                    ));
                };
                self.finished_phases += 1;
                match then(m) {
                    Ok(next) => {
                        self.finished = Some(Finished::Run(run));
                        self.stage = Stage::Run {
                            run: next,
                            then: None,
                        };
                        StepState::Running
                    }
                    Err(e) => self.fail(e),
                }
            }
        }
    }

    fn state(&self) -> StepState {
        match &self.stage {
            Stage::Failed => StepState::Stopped(Stop::Failed),
            Stage::Run { run, then: None } => run.state(),
            _ => StepState::Running,
        }
    }

    fn progress(&self) -> Progress {
        match &self.stage {
            Stage::LayoutPending { .. } => Progress {
                done: 0,
                total: None,
                phase: "layout",
            },
            Stage::Layout { layout, .. } => layout.progress(),
            Stage::Run { run, .. } => {
                let mut p = run.progress();
                if p.phase.is_empty() {
                    p.phase = "placement";
                }
                p
            }
            Stage::Failed => Progress::default(),
        }
    }
}

impl MapperRun for Phased {
    fn placement(&self) -> &[Option<u32>] {
        self.run().map_or(&self.empty, |r| r.placement())
    }
    fn result(&self) -> Option<Mapping> {
        match &self.stage {
            Stage::Run { run, then: None } => run.result(),
            _ => None,
        }
    }
    fn error(&self) -> Option<&Error> {
        self.error
            .as_ref()
            .or_else(|| self.run().and_then(|r| r.error()))
    }
    fn inspect(&self) -> super::RunRef<'_> {
        super::RunRef::Phased(self)
    }
}

impl Phased {
    /// The layout in progress, while this run lays the graph out (a later
    /// stage's own layout is that stage's: [`Phased::run`]).
    pub fn layout(&self) -> Option<&Layout> {
        match &self.stage {
            Stage::Layout { layout, .. } => Some(layout),
            _ => None,
        }
    }
    /// The current stage's note ([`super::RunRef::summary`]).
    pub fn summary(&self) -> Option<String> {
        self.run().and_then(|r| r.inspect().summary())
    }
    /// Phases finished so far.
    pub fn phases_done(&self) -> usize {
        self.finished_phases
    }
    /// The last iteration of the layout in progress (None outside a layout).
    pub fn layout_step(&self) -> Option<LayoutStep> {
        self.layout().map(LayoutStep::of)
    }
    /// The stage the last stage switch finished: the layout's last
    /// iteration, or the finished run (read its last step through
    /// [`MapperRun::inspect`]). None before the first switch.
    pub fn finished_stage(&self) -> Option<FinishedStage<'_>> {
        Some(match self.finished.as_ref()? {
            Finished::Layout(l) => FinishedStage::Layout(*l),
            Finished::Run(r) => FinishedStage::Run(r.inspect()),
        })
    }
}

/// The stage a step finished (the finished run is kept: O(n) memory).
enum Finished {
    Layout(LayoutStep),
    Run(Box<dyn MapperRun>),
}

/// The stage the last stage switch finished, as [`Phased::finished_stage`]
/// gives it.
#[derive(Clone, Copy)]
pub enum FinishedStage<'a> {
    /// A layout, by its last iteration.
    Layout(LayoutStep),
    /// A mapper run (a starting mapper before PAIRS, a placement stage).
    Run(super::RunRef<'a>),
}

/// What a layout's last iteration reached: the facts a front end words
/// (Bobrik & Popova §4–5). Read in O(1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutStep {
    /// Iterations done.
    pub iterations: usize,
    /// The level in progress (0 = the processes) and the number of levels.
    pub level: (usize, usize),
    /// The total force Σ|F| of the last iteration.
    pub force_norm: f64,
    /// The §5 stopping-rule value (None while its moving averages fill).
    pub stop_value: Option<f64>,
    /// The stopping threshold ε.
    pub stop_eps: f64,
}

impl LayoutStep {
    /// The facts of `layout`'s last iteration.
    pub fn of(layout: &Layout) -> Self {
        LayoutStep {
            iterations: layout.iterations(),
            level: layout.level(),
            force_norm: layout.force_norm(),
            stop_value: layout.stop_value(),
            stop_eps: layout
                .engine()
                .map_or(layout.params().stop_eps, |e| e.params().stop_eps),
        }
    }
}
