//! The one stepping trait shared by every iterative algorithm: the force
//! layout, the mappers' greedy placements (one step = one process placed),
//! pairwise exchange (one step = a batch of swaps), the contention-model pick
//! (one step = one candidate order) and the phased mappers built from these
//! ([`crate::mappers::phased`]). The GUI advances a run in slices of a frame
//! budget ([`Stepper::run_for`]) and draws its state between slices; the CLI
//! calls [`Stepper::run_to_end`]. Both execute exactly the same steps.
//!
//! A run is [`StepState::Running`] until it stops, and then says why
//! ([`Stop`]): it converged, hit its iteration limit, reached a local
//! optimum, completed a construction, was cancelled, ran out of its time
//! budget, or failed. (argmin's termination status is the model.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// A stopping rule on the iterates held (the layout's moving averages,
    /// an almost-legal placement).
    Converged,
    /// The iteration limit was reached before convergence.
    IterationLimit,
    /// A local search found no improving move.
    LocalOptimum,
    /// A construction finished: every process is placed, every candidate
    /// scored.
    Complete,
    /// The caller cancelled the run.
    Cancelled,
    /// The caller's time budget ran out.
    TimeLimit,
    /// A phase could not start (its error is kept by the run).
    Failed,
}

impl Stop {
    /// A short phrase for logs and status lines ("converged", …).
    pub fn describe(self) -> &'static str {
        match self {
            Stop::Converged => "converged",
            Stop::IterationLimit => "reached its iteration limit",
            Stop::LocalOptimum => "reached a local optimum",
            Stop::Complete => "complete",
            Stop::Cancelled => "cancelled",
            Stop::TimeLimit => "ran out of time",
            Stop::Failed => "failed",
        }
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

/// The state of a run: still running, or stopped for a reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StepState {
    Running,
    Stopped(Stop),
}

impl StepState {
    pub fn is_running(self) -> bool {
        self == StepState::Running
    }
    /// The reason, once stopped.
    pub fn stop(self) -> Option<Stop> {
        match self {
            StepState::Running => None,
            StepState::Stopped(s) => Some(s),
        }
    }
}

/// Progress of an iterative algorithm: steps done in the current phase and,
/// when known, that phase's total; the phase's name for multi-phase runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Progress {
    pub done: usize,
    pub total: Option<usize>,
    /// The phase in progress ("layout", "placement", "exchange"…); empty for
    /// single-phase algorithms.
    pub phase: &'static str,
}

impl Progress {
    /// Progress of a single-phase algorithm.
    pub fn new(done: usize, total: Option<usize>) -> Self {
        Progress {
            done,
            total,
            phase: "",
        }
    }
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
    /// Once stopped, further calls do nothing and return the same state.
    fn step(&mut self) -> StepState;

    /// Running, or stopped and why.
    fn state(&self) -> StepState;

    /// Steps done so far, and the total when it is known in advance.
    fn progress(&self) -> Progress;

    /// Whether the run has stopped.
    fn is_stopped(&self) -> bool {
        !self.state().is_running()
    }

    /// Step until stopped; returns why it stopped.
    fn run_to_end(&mut self) -> Stop {
        loop {
            if let StepState::Stopped(s) = self.step() {
                return s;
            }
        }
    }

    /// Step until stopped or until `budget` has elapsed (at least one step is
    /// taken while running). Returns `Running` when the budget ran out: the
    /// run pauses, it does not stop. This is what a frame or a worker slice
    /// calls.
    fn run_for(&mut self, budget: Duration) -> StepState {
        let start = Instant::now();
        loop {
            let s = self.step();
            if !s.is_running() || start.elapsed() >= budget {
                return s;
            }
        }
    }

    /// Step until stopped, checking `cancel` between steps; a cancel stops
    /// the caller's loop with [`Stop::Cancelled`] (the run itself can be
    /// resumed).
    fn run_cancellable(&mut self, cancel: &AtomicBool) -> Stop {
        loop {
            if cancel.load(Ordering::Relaxed) {
                return Stop::Cancelled;
            }
            if let StepState::Stopped(s) = self.step() {
                return s;
            }
        }
    }

    /// Step until stopped or until `deadline`; a run that is still going at
    /// the deadline reports [`Stop::TimeLimit`].
    fn run_until(&mut self, deadline: Instant) -> Stop {
        loop {
            if Instant::now() >= deadline {
                return Stop::TimeLimit;
            }
            if let StepState::Stopped(s) = self.step() {
                return s;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts to `n`, then stops with `Complete`.
    struct Count {
        i: usize,
        n: usize,
    }
    impl Stepper for Count {
        fn step(&mut self) -> StepState {
            if self.i < self.n {
                self.i += 1;
            }
            self.state()
        }
        fn state(&self) -> StepState {
            if self.i >= self.n {
                StepState::Stopped(Stop::Complete)
            } else {
                StepState::Running
            }
        }
        fn progress(&self) -> Progress {
            Progress::new(self.i, Some(self.n))
        }
    }

    #[test]
    fn run_to_end_reports_the_reason_and_takes_every_step() {
        let mut c = Count { i: 0, n: 5 };
        assert_eq!(c.run_to_end(), Stop::Complete);
        assert_eq!(c.i, 5);
        assert_eq!(c.step(), StepState::Stopped(Stop::Complete));
        assert_eq!(c.i, 5);
    }

    #[test]
    fn a_cancel_is_reported_as_a_cancel() {
        let mut c = Count { i: 0, n: 5 };
        let cancel = AtomicBool::new(true);
        assert_eq!(c.run_cancellable(&cancel), Stop::Cancelled);
        assert_eq!(c.i, 0);
        assert!(!c.is_stopped());
        cancel.store(false, Ordering::Relaxed);
        assert_eq!(c.run_cancellable(&cancel), Stop::Complete);
    }

    #[test]
    fn a_passed_deadline_is_a_time_limit() {
        let mut c = Count { i: 0, n: 5 };
        assert_eq!(c.run_until(Instant::now()), Stop::TimeLimit);
        assert_eq!(
            c.run_until(Instant::now() + Duration::from_secs(60)),
            Stop::Complete
        );
    }
}
