//! [`RunRef`]: a mapper run borrowed as its concrete type, so that a front
//! end reads what only some runs have (a greedy frontier, a bipartition
//! tree, the analytical mapper's Φ, a layout in progress) through accessors
//! the compiler checks, with no downcast. [`super::MapperRun::inspect`]
//! returns it; each concrete run documents its own read-only accessors.
//!
//! Its methods answer what most runs can say, dispatching to the concrete
//! accessor (composite runs — phased, PAIRS from analytical, `grid`'s
//! fallback — answer for the stage they run): the last step's
//! [`StepEvent`], the frontier, the hop-bytes trace, the layout in progress,
//! the phases done and the one-line [`RunRef::summary`] the CLI prints
//! after a run. What only the app shows (the analytical and bipartition
//! views' details, a recognised grid's coordinates, the guided-mode
//! sentences) is built in the app crate from the concrete runs, each of
//! which publishes what its last step did as a plain read-only record
//! (e.g. [`super::sm::SmStep`], [`super::OneShotPlan`]). Every method is O(1) dispatch plus the
//! concrete accessor's own cost.

use super::analytical::{Analytical, AnalyticalPairs};
use super::bm::Bm;
use super::cdl::CdlRun;
use super::greedy::GreedyView;
use super::grid_embed::GridEmbed;
use super::pairs::Pairs;
use super::phased::Phased;
use super::recursive::Recursive;
use super::recursive::groups_first::GroupsFirst;
use super::scotch::ScotchRun;
use super::sm::Sm;
use super::{OneShot, StepEvent};
use crate::layout::Layout;

/// A mapper run borrowed as its concrete type: one variant per kind of run.
#[derive(Clone, Copy)]
pub enum RunRef<'a> {
    /// `default`, `random` and the permutation orders: one step.
    OneShot(&'a OneShot),
    /// The greedy placements (BFT, MHT, AFFN, COCE, COCE+MHT, the
    /// gravitational placements' second stage).
    Greedy(GreedyView<'a>),
    /// Pairwise exchange.
    Pairs(&'a Pairs),
    /// CDL's scoring of the permutation orders.
    Cdl(&'a CdlRun),
    /// A run of stages (layout then placement; a starting mapper then PAIRS).
    Phased(&'a Phased),
    Analytical(&'a Analytical),
    AnalyticalPairs(&'a AnalyticalPairs),
    Recursive(&'a Recursive),
    /// `recursive` with `groups=first`: nodes' groups, then their placement.
    GroupsFirst(&'a GroupsFirst),
    GridEmbed(&'a GridEmbed),
    Sm(&'a Sm),
    Bm(&'a Bm),
    Scotch(&'a ScotchRun),
}

impl<'a> RunRef<'a> {
    /// A one-line note on what the run chose (CDL's picked order, the
    /// analytical mapper's iterations, `grid`'s recognised grid), printed by
    /// `hopmap map` after the stop reason.
    pub fn summary(self) -> Option<String> {
        match self {
            RunRef::Cdl(r) => r.summary(),
            RunRef::Phased(r) => r.summary(),
            RunRef::Analytical(r) => r.summary(),
            RunRef::GroupsFirst(r) => r.summary(),
            RunRef::GridEmbed(r) => r.summary(),
            RunRef::Scotch(r) => r.summary(),
            RunRef::Recursive(r) => r.summary(),
            RunRef::OneShot(_)
            | RunRef::Greedy(_)
            | RunRef::Pairs(_)
            | RunRef::AnalyticalPairs(_)
            | RunRef::Sm(_)
            | RunRef::Bm(_) => None,
        }
    }

    /// What the last step did (None before the first step).
    pub fn last_event(self) -> Option<&'a StepEvent> {
        match self {
            RunRef::OneShot(r) => r.last_event(),
            RunRef::Greedy(r) => r.last_event(),
            RunRef::Pairs(r) => r.last_event(),
            RunRef::Cdl(r) => r.last_event(),
            RunRef::Phased(r) => r.run().and_then(|s| s.inspect().last_event()),
            RunRef::Analytical(r) => r.last_event(),
            RunRef::AnalyticalPairs(r) => r.last_event(),
            RunRef::Recursive(r) => r.last_event(),
            RunRef::GroupsFirst(r) => r.last_event(),
            RunRef::GridEmbed(r) => r.last_event(),
            RunRef::Sm(r) => r.last_event(),
            RunRef::Bm(r) => r.last_event(),
            RunRef::Scotch(r) => r.last_event(),
        }
    }

    /// The frontier, when the algorithm has one (BFT's queue, MHT's heap).
    pub fn frontier(self) -> Vec<usize> {
        match self {
            RunRef::Greedy(r) => r.frontier(),
            RunRef::Phased(r) => r.run().map(|s| s.inspect().frontier()).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Hop-bytes after each step so far, for runs that track it (PAIRS,
    /// CDL's candidates, the analytical estimates, the refinement).
    pub fn hop_bytes_trace(self) -> &'a [f64] {
        match self {
            RunRef::Pairs(r) => r.hop_bytes_trace(),
            RunRef::Cdl(r) => r.hop_bytes_trace(),
            RunRef::Phased(r) => r.run().map_or(&[], |s| s.inspect().hop_bytes_trace()),
            RunRef::Analytical(r) => r.hop_bytes_trace(),
            RunRef::AnalyticalPairs(r) => r.hop_bytes_trace(),
            RunRef::Recursive(r) => r.trace(),
            _ => &[],
        }
    }

    /// The layout in progress, while a phased run lays the graph out.
    pub fn layout(self) -> Option<&'a Layout> {
        match self {
            RunRef::Phased(r) => r
                .layout()
                .or_else(|| r.run().and_then(|s| s.inspect().layout())),
            _ => None,
        }
    }

    /// Phases finished so far (0 for single-phase mappers).
    pub fn phases_done(self) -> usize {
        match self {
            RunRef::Phased(r) => r.phases_done(),
            RunRef::AnalyticalPairs(r) => r.phases_done(),
            _ => 0,
        }
    }
}
