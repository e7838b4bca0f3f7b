//! The one stepping trait shared by every iterative algorithm: the force
//! layout, the mappers' greedy placements (one step = one process placed),
//! pairwise exchange (one step = a batch of swaps) and later the analytical
//! mapper. The GUI calls [`Stepper::run_for`] with a per-frame time budget
//! and draws the algorithm's current state between frames; the CLI calls
//! [`Stepper::run_to_end`]. Both execute exactly the same steps.

use std::time::{Duration, Instant};

/// What a step reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepStatus {
    /// More work remains.
    Running,
    /// The algorithm has finished; further `step` calls do nothing.
    Done,
}

/// Progress of an iterative algorithm: steps done and, when known, the total.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Progress {
    pub done: usize,
    pub total: Option<usize>,
}

impl Progress {
    /// Fraction in [0, 1] when the total is known.
    pub fn fraction(&self) -> Option<f32> {
        self.total.map(|t| {
            if t == 0 {
                1.0
            } else {
                (self.done as f32 / t as f32).min(1.0)
            }
        })
    }
}

/// An algorithm that advances in visible units of work. Its current state is
/// readable between steps through the implementor's own accessors.
pub trait Stepper {
    /// Advance one unit of work (one iteration, one placement, one batch).
    fn step(&mut self) -> StepStatus;

    /// Whether the algorithm has finished.
    fn is_done(&self) -> bool;

    /// Steps done so far, and the total when it is known in advance.
    fn progress(&self) -> Progress;

    /// Step until done. Returns the number of steps taken.
    fn run_to_end(&mut self) -> usize {
        let mut n = 0;
        while !self.is_done() {
            self.step();
            n += 1;
        }
        n
    }

    /// Step until done or until `budget` has elapsed (at least one step is
    /// taken when not done). This is what the GUI calls once per frame.
    fn run_for(&mut self, budget: Duration) -> StepStatus {
        let start = Instant::now();
        loop {
            if self.is_done() {
                return StepStatus::Done;
            }
            if self.step() == StepStatus::Done {
                return StepStatus::Done;
            }
            if start.elapsed() >= budget {
                return StepStatus::Running;
            }
        }
    }

    /// Step until done, checking `cancel` between steps. Used by worker threads.
    fn run_cancellable(&mut self, cancel: &std::sync::atomic::AtomicBool) -> StepStatus {
        while !self.is_done() {
            if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                return StepStatus::Running;
            }
            self.step();
        }
        StepStatus::Done
    }
}
