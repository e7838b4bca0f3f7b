//! The mapper run the app shows, as one state ([`Run`]): idle, running on
//! its worker, paused on its worker, finished (with why it stopped) or
//! failed (with the error), as rerun's graph view keeps its layout state.
//!
//! What exists only while a worker holds the run (the worker, the layout
//! phase's positions, how it is paced) lives in the live variants
//! ([`LiveRun`], [`Pace`]); what the views show of a run while it runs and
//! after it ended (its id, progress, hop-bytes trace, last step, internals)
//! is its [`RunRecord`], held by every variant but [`Run::Idle`]. The
//! transitions are [`crate::Model`]'s methods (start, step, play, pause, map,
//! cancel, take a snapshot); the views read the state through the accessors
//! here. Also here: [`Versioned`], a value whose one setter bumps the
//! generation views key their caches on, and [`Memo`], a value derived from
//! such generations (the process colours). No egui.

use crate::background::{BackgroundRun, GuidedLine};
use crate::run_detail::RunDetail;
use hopmap_core::mappers::StepEvent;
use hopmap_core::step::{Progress, Stop};
use std::sync::Arc;
use std::time::Instant;

/// What the views show of a run, while it runs and after it ended.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// The mapper's id.
    pub id: String,
    /// When the run started (the progress line's clock, and an identity
    /// for views that restart with each run).
    pub started: Instant,
    /// The newest progress (phase, steps done of how many).
    pub progress: Progress,
    /// Hop-bytes over the run's steps: (step, hop-bytes).
    pub trace: Vec<[f64; 2]>,
    /// What the last step did (the guided log may show another step's).
    pub last_event: Option<StepEvent>,
    /// The processes the mapper considers next.
    pub frontier: Vec<usize>,
    /// The mapper's internals, for the views that animate them (analytical,
    /// bipartition tree).
    pub detail: Option<RunDetail>,
    /// Guided mode: the sentences that arrived and the log has not taken.
    pub guided_new: Vec<GuidedLine>,
}

impl RunRecord {
    /// The record of a run of `id` starting now.
    pub fn new(id: &str) -> Self {
        RunRecord {
            id: id.to_string(),
            started: Instant::now(),
            progress: Progress::default(),
            trace: Vec::new(),
            last_event: None,
            frontier: Vec::new(),
            detail: None,
            guided_new: Vec::new(),
        }
    }
}

/// A run its worker thread holds (running or paused).
pub struct LiveRun {
    pub worker: BackgroundRun,
    pub record: RunRecord,
    /// Positions of the mapper's layout phase, while it lays out.
    pub layout: Option<Vec<[f32; 3]>>,
}

/// How a running run is stepped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// Played at `sent` steps per second (the speed last sent to the
    /// worker; ≥ 2000 means as fast as possible).
    Play { sent: f32 },
    /// Taken to its end as fast as possible (Map).
    ToEnd,
}

/// The state of the app's mapper run; see the module doc.
#[derive(Default)]
pub enum Run {
    /// No run since the mapping was last cleared.
    #[default]
    Idle,
    /// On its worker, stepping by itself (played or taken to its end).
    Running { live: LiveRun, pace: Pace },
    /// On its worker, stepping only when told (Step).
    Paused(LiveRun),
    /// Ended with a mapping, or cancelled: `stop` says why.
    Finished { record: RunRecord, stop: Stop },
    /// Ended without a mapping: `error` says why.
    Failed { record: RunRecord, error: String },
}

impl Run {
    /// The run on its worker, if one is.
    pub fn live(&self) -> Option<&LiveRun> {
        match self {
            Run::Running { live, .. } | Run::Paused(live) => Some(live),
            _ => None,
        }
    }

    pub fn live_mut(&mut self) -> Option<&mut LiveRun> {
        match self {
            Run::Running { live, .. } | Run::Paused(live) => Some(live),
            _ => None,
        }
    }

    /// Whether a worker holds the run (running or paused).
    pub fn is_live(&self) -> bool {
        self.live().is_some()
    }

    /// The worker, while it holds the run.
    pub fn worker(&self) -> Option<&BackgroundRun> {
        self.live().map(|l| &l.worker)
    }

    pub fn worker_mut(&mut self) -> Option<&mut BackgroundRun> {
        self.live_mut().map(|l| &mut l.worker)
    }

    /// The current or last run's record (None when idle).
    pub fn record(&self) -> Option<&RunRecord> {
        match self {
            Run::Idle => None,
            Run::Running { live, .. } | Run::Paused(live) => Some(&live.record),
            Run::Finished { record, .. } | Run::Failed { record, .. } => Some(record),
        }
    }

    pub fn record_mut(&mut self) -> Option<&mut RunRecord> {
        match self {
            Run::Idle => None,
            Run::Running { live, .. } | Run::Paused(live) => Some(&mut live.record),
            Run::Finished { record, .. } | Run::Failed { record, .. } => Some(record),
        }
    }

    /// The current or last run's mapper id ("" when idle).
    pub fn id(&self) -> &str {
        self.record().map_or("", |r| r.id.as_str())
    }

    /// Whether the run is being played (at the model's speed).
    pub fn playing(&self) -> bool {
        matches!(
            self,
            Run::Running {
                pace: Pace::Play { .. },
                ..
            }
        )
    }

    /// Whether the run is being taken to its end (Map).
    pub fn to_end(&self) -> bool {
        matches!(
            self,
            Run::Running {
                pace: Pace::ToEnd,
                ..
            }
        )
    }

    /// The newest progress (the default when idle).
    pub fn progress(&self) -> Progress {
        self.record().map(|r| r.progress).unwrap_or_default()
    }

    /// Hop-bytes over the current or last run's steps.
    pub fn trace(&self) -> &[[f64; 2]] {
        self.record().map_or(&[], |r| r.trace.as_slice())
    }

    /// What the step the views show did.
    pub fn last_event(&self) -> Option<&StepEvent> {
        self.record().and_then(|r| r.last_event.as_ref())
    }

    /// The processes the mapper considers next.
    pub fn frontier(&self) -> &[usize] {
        self.record().map_or(&[], |r| r.frontier.as_slice())
    }

    /// Take the guided sentences that arrived (none when idle).
    pub fn take_guided(&mut self) -> Vec<GuidedLine> {
        self.record_mut()
            .map(|r| std::mem::take(&mut r.guided_new))
            .unwrap_or_default()
    }

    /// Show another step's event in the views (the guided log's highlight);
    /// nothing to show it on when idle.
    pub fn show_event(&mut self, event: Option<StepEvent>) {
        if let Some(r) = self.record_mut() {
            r.last_event = event;
        }
    }

    /// The running (or last finished) mapper's internals.
    pub fn detail(&self) -> Option<&RunDetail> {
        self.record().and_then(|r| r.detail.as_ref())
    }

    /// When the current or last run started.
    pub fn started(&self) -> Option<Instant> {
        self.record().map(|r| r.started)
    }

    /// Positions of the running mapper's layout phase, while it lays out.
    pub fn layout(&self) -> Option<&[[f32; 3]]> {
        self.live().and_then(|l| l.layout.as_deref())
    }

    /// Why the last run stopped, once finished.
    pub fn stop(&self) -> Option<Stop> {
        match self {
            Run::Finished { stop, .. } => Some(*stop),
            _ => None,
        }
    }

    /// Take the state out, leaving Idle (for a transition by value).
    pub fn take(&mut self) -> Run {
        std::mem::take(self)
    }

    /// The record, consuming the state (for a transition to an end).
    pub fn into_record(self) -> Option<RunRecord> {
        match self {
            Run::Idle => None,
            Run::Running { live, .. } | Run::Paused(live) => Some(live.record),
            Run::Finished { record, .. } | Run::Failed { record, .. } => Some(record),
        }
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Run::Idle => write!(f, "Idle"),
            Run::Running { live, pace } => {
                write!(
                    f,
                    "Running({}, {pace:?}, {:?})",
                    live.record.id, live.record.progress
                )
            }
            Run::Paused(live) => {
                write!(f, "Paused({}, {:?})", live.record.id, live.record.progress)
            }
            Run::Finished { record, stop } => write!(f, "Finished({}, {stop:?})", record.id),
            Run::Failed { record, error } => write!(f, "Failed({}, {error})", record.id),
        }
    }
}

/// A value with a generation that its one setter bumps, so that views
/// keyed on the generation cannot miss a change. Reads go through `Deref`.
#[derive(Debug)]
pub struct Versioned<T> {
    value: T,
    generation: u64,
}

impl<T> Versioned<T> {
    /// `value` at generation 1.
    pub fn new(value: T) -> Self {
        Versioned {
            value,
            generation: 1,
        }
    }

    /// Bumped by every change.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Replace the value (a new generation).
    pub fn set(&mut self, value: T) {
        self.value = value;
        self.generation += 1;
    }

    /// Mark the value changed without replacing it (what it stands for
    /// changed: e.g. the evaluation or colours shown with a placement).
    pub fn touch(&mut self) {
        self.generation += 1;
    }

    /// Replace the value by one the views keyed on the generation need not
    /// redraw for (the same graph with coordinates added).
    pub fn set_same_generation(&mut self, value: T) {
        self.value = value;
    }

    /// A copy at the same generation (a pane's model sharing its parent's
    /// graph and network).
    pub fn share(&self) -> Self
    where
        T: Clone,
    {
        Versioned {
            value: self.value.clone(),
            generation: self.generation,
        }
    }
}

impl<T> std::ops::Deref for Versioned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// A value derived from some inputs, computed again only when their key
/// changes (the inputs' [`Versioned`] generations, and [`Same`] for a shared
/// value such as a mapping). The value is itself a [`Versioned`]: each
/// computation is a new generation, so a view caching on that generation
/// (process colours, meshes) cannot miss a change, and no caller bumps a
/// counter by hand. Cost: one key comparison per [`Memo::get`].
#[derive(Debug)]
pub struct Memo<K, V> {
    key: Option<K>,
    value: Versioned<V>,
}

impl<K, V: Default> Default for Memo<K, V> {
    fn default() -> Self {
        Memo {
            key: None,
            value: Versioned::new(V::default()),
        }
    }
}

impl<K: PartialEq, V> Memo<K, V> {
    /// The value for `key`: `compute`d when `key` differs from the last one.
    pub fn get(&mut self, key: K, compute: impl FnOnce() -> V) -> &Versioned<V> {
        if self.key.as_ref() != Some(&key) {
            self.value.set(compute());
            self.key = Some(key);
        }
        &self.value
    }

    /// The value last computed (the default, at generation 1, before any).
    pub fn last(&self) -> &Versioned<V> {
        &self.value
    }
}

/// A key part that compares an `Arc` by identity (the same shared value,
/// not an equal one: O(1)). Holding the `Arc` keeps its address from being
/// reused by another value.
#[derive(Clone, Debug)]
pub struct Same<T>(pub Arc<T>);

impl<T> PartialEq for Same<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memo_computes_again_only_for_a_new_key_and_each_time_is_a_new_generation() {
        let mut m: Memo<(u64, Same<Vec<u8>>), usize> = Memo::default();
        let a = Arc::new(vec![1u8]);
        let b = Arc::new(vec![1u8]);
        let mut calls = 0;
        let mut get = |m: &mut Memo<_, usize>, k| {
            let v = m.get(k, || {
                calls += 1;
                calls
            });
            (**v, v.generation())
        };
        let g0 = m.last().generation();
        let (v1, g1) = get(&mut m, (1, Same(a.clone())));
        assert_eq!(v1, 1);
        assert!(g1 > g0);
        // The same key: nothing computed, the same generation.
        assert_eq!(get(&mut m, (1, Same(a.clone()))), (1, g1));
        // An equal but other value is another key (identity, not equality).
        let (v2, g2) = get(&mut m, (1, Same(b)));
        assert_eq!(v2, 2);
        assert!(g2 > g1);
        // A new input generation too.
        let (v3, g3) = get(&mut m, (2, Same(a)));
        assert_eq!((v3, **m.last()), (3, 3));
        assert!(g3 > g2);
    }

    #[test]
    fn every_setter_bumps_the_generation_but_the_quiet_one() {
        let mut v = Versioned::new(vec![1]);
        assert_eq!(v.generation(), 1);
        v.set(vec![2]);
        assert_eq!((v.generation(), v[0]), (2, 2));
        v.touch();
        assert_eq!(v.generation(), 3);
        v.set_same_generation(vec![5]);
        assert_eq!((v.generation(), v[0]), (3, 5));
        let s = v.share();
        assert_eq!((s.generation(), s.len()), (3, 1));
    }

    #[test]
    fn idle_has_no_record_and_an_ended_run_keeps_its_record() {
        let idle = Run::Idle;
        assert!(idle.record().is_none() && !idle.is_live() && idle.id().is_empty());
        let mut rec = RunRecord::new("mht");
        rec.trace.push([1.0, 10.0]);
        let done = Run::Finished {
            record: rec,
            stop: Stop::Complete,
        };
        assert_eq!(done.id(), "mht");
        assert_eq!(done.trace(), &[[1.0, 10.0]]);
        assert_eq!(done.stop(), Some(Stop::Complete));
        assert!(!done.is_live() && !done.playing() && !done.to_end());
    }
}
