//! A mapper run stepped on a worker thread, for interactive front ends.
//!
//! The GUI never runs algorithm work on its own thread: it starts a run with
//! [`hopmap_core::mappers::prepare`] (cheap), hands it to a [`BackgroundRun`], and
//! sends commands — step N times, play at a speed, run to the end, pause,
//! cancel. The worker steps in slices of at most [`SLICE`] and after each
//! slice publishes a [`Snapshot`]: the placement so far, the last step's
//! event, the frontier, the hop-bytes trace, the progress and state, the
//! layout's positions during a layout phase, the run's internals for the
//! analytical and bipartition views ([`crate::run_detail`]), guided-mode
//! sentences, and the evaluation of the placed processes (throttled while
//! stepping, fresh whenever it pauses). When the run stops, the snapshot
//! carries the validated mapping and its evaluation
//! ([`hopmap_core::mappers::finish`]) and the coordinates of a recognised
//! grid. The front end reads the newest snapshot once per frame and draws
//! it. Everything is read from the run between steps through
//! [`MapperRun::inspect`] ([`RunRef`]).
//!
//! Cost on the caller's thread: O(1) per command and per snapshot taken.

use crate::run_detail::{DetailCache, RunDetail};
use hopmap_core::mappers::{self, MapperInfo, MapperInput, MapperRun, RunRef, StepEvent};
use hopmap_core::mapping::Mapping;
use hopmap_core::metrics::{Evaluation, evaluate, evaluate_partial};
use hopmap_core::routing::Routing;
use hopmap_core::step::{Progress, StepState, Stop};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest stretch of steps between two snapshots.
pub const SLICE: Duration = Duration::from_millis(15);
/// Partial evaluations are refreshed at most this often while stepping.
pub const PARTIAL_EVAL_EVERY: Duration = Duration::from_millis(150);
/// Guided mode: at most this many sentences wait in a snapshot (the oldest
/// are dropped first, and counted in [`Snapshot::guided_dropped`]).
pub const GUIDED_MAX: usize = 256;

/// Guided mode: the sentence on one step, with what the step did (for
/// highlighting it in the views).
#[derive(Clone, Debug, PartialEq)]
pub struct GuidedLine {
    /// The step's number (1 = the first step of the run).
    pub step: usize,
    /// [`crate::guided::explain_last_step`] after that step.
    pub text: String,
    /// [`RunRef::last_event`] after that step.
    pub event: Option<StepEvent>,
}

/// What the front end asks of the worker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Command {
    /// Take `n` more steps, then pause.
    Step(usize),
    /// Step continuously at `steps_per_second` (∞ = as fast as possible).
    Play { steps_per_second: f64 },
    /// Stop stepping (the run can be resumed).
    Pause,
    /// Step to the end as fast as possible.
    RunToEnd,
    /// Stop for good: the run ends as [`Stop::Cancelled`].
    Cancel,
    /// Step for this long (time spent in steps, at least one step), then
    /// pause: race mode's equal time budgets.
    StepFor(Duration),
}

/// The state of the run after the worker's last slice.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Bumped with every snapshot.
    pub generation: u64,
    /// Steps taken so far (over all phases).
    pub steps: usize,
    pub state: StepState,
    pub progress: Progress,
    pub placement: Vec<Option<u32>>,
    pub last_event: Option<StepEvent>,
    pub frontier: Vec<usize>,
    /// The mapper's own hop-bytes trace (PAIRS, CDL), when it keeps one.
    pub trace: Vec<f64>,
    /// Positions of the layout phase, while one runs.
    pub layout: Option<Vec<[f32; 3]>>,
    /// Evaluation of the placed processes only (None until something is
    /// placed); `partial` says whether every process is placed.
    pub eval: Option<Evaluation>,
    pub partial: bool,
    /// Once stopped: the validated mapping or why there is none.
    pub result: Option<Result<Mapping, String>>,
    /// A note on what the run chose (e.g. CDL's order).
    pub summary: Option<String>,
    /// Once stopped: coordinates the run recovered for the processes (the
    /// `grid` mapper's recognised grid: [`grid_coords`]).
    pub grid_coords: Option<hopmap_core::graph::Coords>,
    /// Guided mode: the sentence on the last step taken
    /// ([`crate::guided::explain_last_step`]).
    pub explanation: Option<String>,
    /// Guided mode (see [`BackgroundRun::set_guided`]): the sentences of
    /// every step taken since the last snapshot the front end took, oldest
    /// first, at most [`GUIDED_MAX`].
    pub guided: Vec<GuidedLine>,
    /// Sentences dropped to keep `guided` within [`GUIDED_MAX`].
    pub guided_dropped: usize,
    /// Wall time spent stepping, in seconds.
    pub seconds: f64,
    /// Whether the worker is currently stepping (playing, or steps pending).
    pub active: bool,
    /// How many commands the worker had read when it published this
    /// snapshot; `active` answers those commands, not later ones (see
    /// [`BackgroundRun::answers_all`]).
    pub commands_read: u64,
    /// The mapper's internals for the views that animate them (analytical,
    /// recursive); shared, O(1) to clone ([`crate::run_detail`]).
    pub detail: Option<RunDetail>,
}

/// A run owned by a worker thread; see the module doc.
pub struct BackgroundRun {
    tx: Sender<Command>,
    /// Commands sent so far.
    sent: AtomicU64,
    latest: Arc<Mutex<Option<Snapshot>>>,
    taken: u64,
    /// The generation of the last snapshot taken (shared with the worker,
    /// which carries untaken guided sentences over into the next snapshot).
    taken_shared: Arc<AtomicU64>,
    guided: Arc<AtomicBool>,
    /// The mapper's id, for labels.
    pub id: String,
}

impl BackgroundRun {
    /// Move `run` (from [`hopmap_core::mappers::prepare`]) to a worker thread.
    /// `on_snapshot` is called after each published snapshot (a front end
    /// passes its "repaint" request).
    pub fn spawn(
        info: &MapperInfo,
        id: &str,
        run: Box<dyn MapperRun>,
        input: MapperInput,
        routing: Routing,
        on_snapshot: Box<dyn Fn() + Send>,
    ) -> Self {
        let (tx, rx) = channel();
        let latest = Arc::new(Mutex::new(None));
        let shared = latest.clone();
        let finish_info = info.clone();
        let taken_shared = Arc::new(AtomicU64::new(0));
        let guided = Arc::new(AtomicBool::new(false));
        let (taken_w, guided_w) = (taken_shared.clone(), guided.clone());
        std::thread::Builder::new()
            .name(format!("hopmap-run-{id}"))
            .spawn(move || {
                Worker {
                    run,
                    input,
                    routing,
                    info: finish_info,
                    shared,
                    notify: on_snapshot,
                    generation: 0,
                    steps: 0,
                    busy: Duration::ZERO,
                    last_eval: None,
                    eval: None,
                    partial: true,
                    eval_steps: usize::MAX,
                    taken: taken_w,
                    guided: guided_w,
                    lines: Vec::new(),
                    dropped: 0,
                    detail: Default::default(),
                    commands_read: 0,
                }
                .main(rx)
            })
            .map(|_| ())
            .unwrap_or_else(|e| {
                // No thread: publish the failure so the front end shows it.
                if let Ok(mut g) = latest.lock() {
                    *g = Some(Snapshot::failed(format!(
                        "cannot start a worker thread: {e}"
                    )));
                }
            });
        BackgroundRun {
            tx,
            sent: AtomicU64::new(0),
            latest,
            taken: 0,
            taken_shared,
            guided,
            id: id.to_string(),
        }
    }

    /// Guided mode on or off: while on, the worker collects the sentence of
    /// every step ([`Snapshot::guided`]); off costs nothing per step.
    pub fn set_guided(&self, on: bool) {
        self.guided.store(on, Ordering::Relaxed);
    }

    /// Send a command (ignored once the worker has ended).
    pub fn send(&self, c: Command) {
        if self.tx.send(c).is_ok() {
            self.sent.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether `snap` was published after the worker read every command
    /// sent so far: only then does its `active` say what the worker does
    /// now (a snapshot published before a Play arrived says "not active").
    pub fn answers_all(&self, snap: &Snapshot) -> bool {
        snap.commands_read >= self.sent.load(Ordering::Relaxed)
    }

    /// The newest snapshot, if one arrived since the last call.
    pub fn take(&mut self) -> Option<Snapshot> {
        let g = self.latest.lock().ok()?;
        let s = g.as_ref()?;
        if s.generation == self.taken && self.taken != 0 {
            return None;
        }
        self.taken = s.generation;
        self.taken_shared.store(s.generation, Ordering::Relaxed);
        Some(s.clone())
    }

    /// Block until a snapshot satisfies `pred` or `timeout` passes (tests,
    /// headless screenshots). Returns the last snapshot seen.
    pub fn wait_for(
        &mut self,
        timeout: Duration,
        pred: impl Fn(&Snapshot) -> bool,
    ) -> Option<Snapshot> {
        let t0 = Instant::now();
        let mut last = None;
        loop {
            if let Ok(g) = self.latest.lock()
                && let Some(s) = g.as_ref()
                && pred(s)
            {
                self.taken = s.generation;
                self.taken_shared.store(s.generation, Ordering::Relaxed);
                return Some(s.clone());
            }
            if let Ok(g) = self.latest.lock() {
                last = g.clone();
            }
            if t0.elapsed() > timeout {
                return last;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for BackgroundRun {
    fn drop(&mut self) {
        let _ = self.tx.send(Command::Cancel);
    }
}

impl Snapshot {
    fn failed(msg: String) -> Self {
        Snapshot {
            generation: 1,
            steps: 0,
            state: StepState::Stopped(Stop::Failed),
            progress: Progress::default(),
            placement: Vec::new(),
            last_event: None,
            frontier: Vec::new(),
            trace: Vec::new(),
            layout: None,
            eval: None,
            partial: true,
            result: Some(Err(msg)),
            summary: None,
            grid_coords: None,
            explanation: None,
            guided: Vec::new(),
            guided_dropped: 0,
            seconds: 0.0,
            active: false,
            commands_read: 0,
            detail: None,
        }
    }
}

struct Worker {
    run: Box<dyn MapperRun>,
    input: MapperInput,
    routing: Routing,
    info: MapperInfo,
    shared: Arc<Mutex<Option<Snapshot>>>,
    notify: Box<dyn Fn() + Send>,
    generation: u64,
    steps: usize,
    busy: Duration,
    last_eval: Option<Instant>,
    eval: Option<Evaluation>,
    partial: bool,
    eval_steps: usize,
    taken: Arc<AtomicU64>,
    guided: Arc<AtomicBool>,
    /// Guided sentences since the last snapshot.
    lines: Vec<GuidedLine>,
    dropped: usize,
    detail: DetailCache,
    /// Commands read from the channel so far.
    commands_read: u64,
}

/// What the worker is doing between commands.
enum Mode {
    Idle,
    Steps(usize),
    Play {
        per_second: f64,
        credit: f64,
        last: Instant,
    },
    ToEnd,
    Budget(Duration),
}

impl Worker {
    fn main(mut self, rx: Receiver<Command>) {
        let mut mode = Mode::Idle;
        self.publish(false, None);
        loop {
            // Wait for a command when idle; otherwise only look.
            let cmd = match mode {
                Mode::Idle => match rx.recv() {
                    Ok(c) => Some(c),
                    Err(_) => return,
                },
                _ => match rx.recv_timeout(Duration::ZERO) {
                    Ok(c) => Some(c),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                },
            };
            if cmd.is_some() {
                self.commands_read += 1;
            }
            match cmd {
                Some(Command::Cancel) => {
                    self.publish(false, Some(Stop::Cancelled));
                    return;
                }
                Some(Command::Pause) => mode = Mode::Idle,
                Some(Command::Step(n)) => {
                    mode = match mode {
                        Mode::Steps(k) => Mode::Steps(k.saturating_add(n)),
                        _ => Mode::Steps(n),
                    }
                }
                Some(Command::Play { steps_per_second }) => {
                    mode = Mode::Play {
                        per_second: steps_per_second,
                        credit: 1.0,
                        last: Instant::now(),
                    }
                }
                Some(Command::RunToEnd) => mode = Mode::ToEnd,
                Some(Command::StepFor(d)) => mode = Mode::Budget(d),
                None => {}
            }
            if self.run.is_stopped() {
                if !matches!(mode, Mode::Idle) {
                    mode = Mode::Idle;
                    self.publish(false, None);
                }
                continue;
            }
            let slice_start = Instant::now();
            match &mut mode {
                Mode::Idle => continue,
                Mode::Steps(k) => {
                    while *k > 0 && slice_start.elapsed() < SLICE {
                        *k -= 1;
                        if !self.step_once().is_running() {
                            break;
                        }
                    }
                    if *k == 0 {
                        mode = Mode::Idle;
                    }
                }
                Mode::Budget(left) => {
                    let limit = SLICE.min(*left);
                    loop {
                        if !self.step_once().is_running() || slice_start.elapsed() >= limit {
                            break;
                        }
                    }
                    *left = left.saturating_sub(slice_start.elapsed());
                    if left.is_zero() {
                        mode = Mode::Idle;
                    }
                }
                Mode::ToEnd => {
                    while slice_start.elapsed() < SLICE {
                        if !self.step_once().is_running() {
                            break;
                        }
                    }
                }
                Mode::Play {
                    per_second,
                    credit,
                    last,
                } => {
                    let now = Instant::now();
                    *credit += now.duration_since(*last).as_secs_f64() * *per_second;
                    *last = now;
                    // Never bank more than one slice's worth of steps.
                    *credit = credit.min((*per_second * SLICE.as_secs_f64()).max(1.0));
                    if *credit < 1.0 {
                        let wait = (1.0 - *credit) / per_second.max(1e-9);
                        std::thread::sleep(Duration::from_secs_f64(wait.min(0.05)));
                        continue;
                    }
                    while *credit >= 1.0 && slice_start.elapsed() < SLICE {
                        *credit -= 1.0;
                        if !self.step_once().is_running() {
                            break;
                        }
                    }
                }
            }
            self.busy += slice_start.elapsed();
            let active = !matches!(mode, Mode::Idle) && !self.run.is_stopped();
            self.publish(active, None);
        }
    }

    /// One step of the run, with its guided sentence when guided mode is on.
    fn step_once(&mut self) -> StepState {
        self.steps += 1;
        let st = self.run.step();
        if self.guided.load(Ordering::Relaxed)
            && let Some(text) = crate::guided::explain_last_step(self.run.inspect())
        {
            if self.lines.len() >= GUIDED_MAX {
                self.lines.remove(0);
                self.dropped += 1;
            }
            self.lines.push(GuidedLine {
                step: self.steps,
                text,
                event: self.run.inspect().last_event().cloned(),
            });
        }
        st
    }

    fn publish(&mut self, active: bool, forced: Option<Stop>) {
        let state = match forced {
            Some(s) => StepState::Stopped(s),
            None => self.run.state(),
        };
        let stopped = !state.is_running();
        let mut result = None;
        if stopped {
            let r = match forced {
                Some(s) => Err(format!("{} {}", self.info.id, s.describe())),
                None => mappers::finish(&self.info, self.run.as_ref(), &self.input)
                    .map_err(|e| e.to_string()),
            };
            if let Ok(m) = &r {
                self.eval = Some(evaluate(
                    &self.input.graph,
                    &self.input.topo,
                    m,
                    &self.routing,
                ));
                self.partial = false;
            }
            result = Some(r);
        } else if self.eval_steps != self.steps
            && (!active
                || self
                    .last_eval
                    .is_none_or(|t| t.elapsed() >= PARTIAL_EVAL_EVERY))
        {
            self.last_eval = Some(Instant::now());
            self.eval_steps = self.steps;
            let placement = self.run.placement();
            self.eval = evaluate_partial(
                &self.input.graph,
                &self.input.topo,
                placement,
                &self.routing,
            );
            self.partial = placement.iter().any(Option::is_none);
        }
        self.generation += 1;
        let guided = std::mem::take(&mut self.lines);
        let guided_dropped = std::mem::take(&mut self.dropped);
        let run = self.run.inspect();
        let mut snap = Snapshot {
            generation: self.generation,
            steps: self.steps,
            state,
            progress: self.run.progress(),
            placement: self.run.placement().to_vec(),
            last_event: run.last_event().cloned(),
            frontier: run.frontier(),
            trace: run.hop_bytes_trace().to_vec(),
            layout: run.layout().map(|l| l.positions().into_owned()),
            eval: self.eval.clone(),
            partial: self.partial,
            result,
            summary: run.summary(),
            grid_coords: if state.is_running() {
                None
            } else {
                grid_coords(run)
            },
            explanation: crate::guided::explain_last_step(run),
            guided,
            guided_dropped,
            seconds: self.busy.as_secs_f64(),
            active,
            commands_read: self.commands_read,
            detail: self.detail.get(run, &self.input.topo, self.steps),
        };
        if let Ok(mut g) = self.shared.lock() {
            if let Some(old) = g.as_mut()
                && old.generation > self.taken.load(Ordering::Relaxed)
            {
                // The front end has not taken the previous snapshot: carry
                // its sentences over (bounded). `take` marks a snapshot
                // taken under this lock, so none is delivered twice.
                let mut lines = std::mem::take(&mut old.guided);
                snap.guided_dropped += old.guided_dropped;
                lines.append(&mut snap.guided);
                snap.guided = lines;
            }
            if snap.guided.len() > GUIDED_MAX {
                let cut = snap.guided.len() - GUIDED_MAX;
                snap.guided.drain(..cut);
                snap.guided_dropped += cut;
            }
            *g = Some(snap);
        }
        (self.notify)();
    }
}

/// Process coordinates a run recovered from the graph (the `grid` mapper's
/// recognised grid), for laying the graph out on them. O(n).
pub fn grid_coords(run: RunRef) -> Option<hopmap_core::graph::Coords> {
    match run {
        RunRef::GridEmbed(g) => g.grid_coords(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::generate::{GenOptions, generate};
    use hopmap_core::topology::Topology;

    fn input() -> MapperInput {
        let g = generate("stencil:8x8", &GenOptions::default()).unwrap();
        MapperInput::new(
            Arc::new(g),
            Arc::new(Topology::parse("mesh:8x8").unwrap()),
            0,
        )
    }

    #[test]
    fn steps_on_the_worker_and_finishes_like_the_pipeline() {
        let inp = input();
        let info = mappers::find("mht").unwrap();
        let run = mappers::prepare(&info, &inp).unwrap();
        let mut bg = BackgroundRun::spawn(
            &info,
            "mht",
            run,
            inp.clone(),
            Routing::Dor,
            Box::new(|| {}),
        );
        bg.send(Command::Step(3));
        let s = bg
            .wait_for(Duration::from_secs(30), |s| s.steps == 3 && !s.active)
            .unwrap();
        assert_eq!(s.steps, 3);
        assert_eq!(s.placement.iter().filter(|p| p.is_some()).count(), 3);
        assert!(s.partial && s.eval.is_some());
        bg.send(Command::RunToEnd);
        let s = bg
            .wait_for(Duration::from_secs(30), |s| s.result.is_some())
            .unwrap();
        let m = s.result.unwrap().unwrap();
        assert_eq!(m, mappers::run(&info, &inp).unwrap());
        assert_eq!(s.state, StepState::Stopped(Stop::Complete));
        assert!(!s.partial);
    }

    #[test]
    fn guided_mode_delivers_one_sentence_per_step_once() {
        let inp = input();
        let info = mappers::find("mht").unwrap();
        let run = mappers::prepare(&info, &inp).unwrap();
        let mut bg = BackgroundRun::spawn(&info, "mht", run, inp, Routing::Dor, Box::new(|| {}));
        bg.set_guided(true);
        bg.send(Command::Step(7));
        let mut lines = Vec::new();
        let t0 = Instant::now();
        loop {
            if let Some(s) = bg.take() {
                assert_eq!(s.guided_dropped, 0);
                lines.extend(s.guided);
                if s.steps == 7 && !s.active {
                    break;
                }
            }
            assert!(t0.elapsed() < Duration::from_secs(30), "timed out");
            std::thread::sleep(Duration::from_millis(1));
        }
        let steps: Vec<usize> = lines.iter().map(|l| l.step).collect();
        assert_eq!(steps, (1..=7).collect::<Vec<_>>());
        assert!(
            lines[0].text.starts_with("MHT started with process "),
            "{}",
            lines[0].text
        );
        assert!(
            lines[1].text.starts_with("MHT took process "),
            "{}",
            lines[1].text
        );
        assert!(matches!(lines[1].event, Some(StepEvent::Placed { .. })));
        // Off: no sentences.
        bg.set_guided(false);
        bg.send(Command::Step(2));
        let s = bg
            .wait_for(Duration::from_secs(30), |s| s.steps == 9 && !s.active)
            .unwrap();
        assert!(s.guided.is_empty());
    }

    #[test]
    fn a_time_budget_steps_then_pauses() {
        let inp = input();
        let info = mappers::find("mht").unwrap();
        let run = mappers::prepare(&info, &inp).unwrap();
        let mut bg = BackgroundRun::spawn(&info, "mht", run, inp, Routing::Dor, Box::new(|| {}));
        bg.send(Command::StepFor(Duration::from_nanos(1)));
        // A budget shorter than a step still takes one, then pauses.
        let s = bg
            .wait_for(Duration::from_secs(30), |s| s.steps >= 1 && !s.active)
            .unwrap();
        assert_eq!(s.steps, 1);
        assert!(s.result.is_none());
    }

    #[test]
    fn a_cancel_ends_the_run_as_cancelled() {
        let inp = input();
        let info = mappers::find("pairs").unwrap();
        let run = mappers::prepare(&info, &inp).unwrap();
        let mut bg = BackgroundRun::spawn(&info, "pairs", run, inp, Routing::Dor, Box::new(|| {}));
        bg.send(Command::Cancel);
        let s = bg
            .wait_for(Duration::from_secs(30), |s| s.result.is_some())
            .unwrap();
        assert_eq!(s.state, StepState::Stopped(Stop::Cancelled));
        assert!(s.result.unwrap().is_err());
    }
}
