//! The graph view's gravitational layout ([`hopmap_core::layout::Layout`])
//! stepped on a worker thread, so that the UI thread never runs it.
//!
//! The worker builds the layout ([`LayoutWorker::build`]: its coarsening,
//! first positions and split into parts are O(m log n) and more on large
//! graphs), owns it and reads [`LayoutCommand`]s: play or pause,
//! one step, pin or unpin a process, stop. While playing it steps in slices
//! of at most [`crate::background::SLICE`] and after each slice publishes a
//! [`LayoutSnapshot`]: the positions and their bounding box (shared, so that
//! taking a snapshot is O(1)), the iteration, level and state for the status
//! line and, once the layout stops, its clusters
//! ([`mod@hopmap_core::layout::clusters`]), computed on the worker. Each
//! snapshot calls the front end's repaint request; a paused or stopped
//! layout publishes nothing, so nothing repaints.
//!
//! The steps do not depend on the slicing: the same seed gives the same
//! positions after the same number of iterations.

use crate::background::SLICE;
use crate::worker::Outbox;
use egui::{Rect, Vec2, vec2};
use hopmap_core::layout::{ClusterParams, Layout};
use hopmap_core::step::{StepState, Stepper};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex};

/// What the view asks of the layout's worker.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayoutCommand {
    /// Step continuously (true) or pause (false).
    Play(bool),
    /// One iteration, then pause.
    Step,
    /// Hold process `.0` at `.1` (layout space).
    Pin(usize, [f32; 3]),
    /// Let process `.0` move again.
    Unpin(usize),
    /// End the worker.
    Stop,
}

/// The layout after the worker's last slice; cloning is O(1).
#[derive(Clone, Debug)]
pub struct LayoutSnapshot {
    /// Bumped with every snapshot (the first is 1).
    pub generation: u64,
    /// Positions in layout space (the x and y of the layout's).
    pub positions: Arc<[Vec2]>,
    /// Their bounding box (never empty).
    pub bounds: Rect,
    pub iterations: usize,
    /// (level, levels) as [`Layout::level`].
    pub level: (usize, usize),
    pub state: StepState,
    pub stop_value: Option<f64>,
    /// How many groups are laid out apart and packed side by side (the
    /// connected components, split at weak cuts; see [`Layout::components`]).
    pub parts: usize,
    /// Whether the worker is stepping.
    pub playing: bool,
    /// Once stopped: each process's cluster and the number of clusters.
    pub clusters: Option<(Arc<[u32]>, usize)>,
    /// How many commands the worker had read when it published this.
    pub commands_read: u64,
}

/// A layout owned by a worker thread; see the module doc. Dropping it
/// stops the worker.
pub struct LayoutWorker {
    /// The commands to the worker; a snapshot answers them all when
    /// `commands.answered(snapshot.commands_read)` (only then does its
    /// `playing` say what the worker does now).
    pub commands: Outbox<LayoutCommand>,
    latest: Arc<Mutex<Option<LayoutSnapshot>>>,
    taken: u64,
}

impl LayoutWorker {
    /// Move `layout` to a new worker thread, paused. `on_snapshot` is
    /// called after each published snapshot (the front end's repaint).
    pub fn spawn(layout: Layout, on_snapshot: Option<Arc<dyn Fn() + Send + Sync>>) -> Self {
        Self::launch(Ok(layout), on_snapshot)
    }

    /// Like [`LayoutWorker::spawn`], but the layout is built on the worker
    /// too (the coarsening, the first positions and the split into parts
    /// cost O(m log n) and more on large graphs): the first snapshot comes
    /// once it is built. A build that fails (which [`Layout::check`] run
    /// first rules out) ends the worker without a snapshot, with a line on
    /// stderr.
    pub fn build(
        build: impl FnOnce() -> hopmap_core::Result<Layout> + Send + 'static,
        on_snapshot: Option<Arc<dyn Fn() + Send + Sync>>,
    ) -> Self {
        Self::launch(Err(Box::new(build)), on_snapshot)
    }

    /// A built layout (published at once) or its builder (run on the worker).
    fn launch(
        layout: Result<Layout, Builder>,
        on_snapshot: Option<Arc<dyn Fn() + Send + Sync>>,
    ) -> Self {
        let (tx, rx) = Outbox::new();
        let latest = Arc::new(Mutex::new(None));
        let (shared, notify) = (latest.clone(), on_snapshot);
        let work: Box<dyn FnOnce() + Send> = match layout {
            Ok(layout) => {
                let mut w = Stepping::new(layout, shared, notify);
                // The first snapshot before the thread runs: the view can
                // draw at once.
                w.publish();
                Box::new(move || w.main(rx))
            }
            Err(build) => Box::new(move || match build() {
                Ok(layout) => {
                    let mut w = Stepping::new(layout, shared, notify);
                    w.publish();
                    w.main(rx)
                }
                Err(e) => eprintln!("hopmap: the layout could not start: {e}"),
            }),
        };
        if let Err(e) = std::thread::Builder::new()
            .name("hopmap-layout".into())
            .spawn(work)
        {
            eprintln!("hopmap: cannot start the layout's worker thread: {e}");
        }
        LayoutWorker {
            commands: tx,
            latest,
            taken: 0,
        }
    }

    /// The newest snapshot, if one arrived since the last call. O(1).
    pub fn take(&mut self) -> Option<LayoutSnapshot> {
        let g = self.latest.lock().ok()?;
        let s = g.as_ref().filter(|s| s.generation != self.taken)?;
        self.taken = s.generation;
        Some(s.clone())
    }
}

impl Drop for LayoutWorker {
    fn drop(&mut self) {
        self.commands.send(LayoutCommand::Stop);
    }
}

/// Builds a layout on the worker.
type Builder = Box<dyn FnOnce() -> hopmap_core::Result<Layout> + Send>;

/// The worker's side.
struct Stepping {
    layout: Layout,
    shared: Arc<Mutex<Option<LayoutSnapshot>>>,
    notify: Option<Arc<dyn Fn() + Send + Sync>>,
    generation: u64,
    playing: bool,
    clusters: Option<(Arc<[u32]>, usize)>,
    commands_read: u64,
}

impl Stepping {
    fn new(
        layout: Layout,
        shared: Arc<Mutex<Option<LayoutSnapshot>>>,
        notify: Option<Arc<dyn Fn() + Send + Sync>>,
    ) -> Self {
        Stepping {
            layout,
            shared,
            notify,
            generation: 0,
            playing: false,
            clusters: None,
            commands_read: 0,
        }
    }

    fn main(mut self, rx: Receiver<LayoutCommand>) {
        loop {
            // Block while paused; while playing, only look.
            let cmd = if self.playing {
                match rx.try_recv() {
                    Ok(c) => Some(c),
                    Err(TryRecvError::Empty) => None,
                    Err(TryRecvError::Disconnected) => return,
                }
            } else {
                match rx.recv() {
                    Ok(c) => Some(c),
                    Err(_) => return,
                }
            };
            self.commands_read += u64::from(cmd.is_some());
            match cmd {
                Some(LayoutCommand::Stop) => return,
                Some(LayoutCommand::Play(on)) => self.playing = on,
                Some(LayoutCommand::Pin(i, p)) if i < self.layout.n() => self.layout.pin(i, p),
                Some(LayoutCommand::Unpin(i)) if i < self.layout.n() => self.layout.unpin(i),
                Some(LayoutCommand::Step) => {
                    self.playing = false;
                    self.layout.step();
                    self.after_steps();
                }
                Some(_) => {}
                None => {
                    self.layout.run_for(SLICE);
                    self.after_steps();
                }
            }
        }
    }

    /// Pause and compute the clusters once the layout stops; publish.
    fn after_steps(&mut self) {
        if self.layout.state() != StepState::Running {
            self.playing = false;
            if self.clusters.is_none() {
                let c = hopmap_core::layout::clusters(
                    &self.layout.positions(),
                    &ClusterParams::default(),
                );
                let k = c.iter().map(|&x| x as usize + 1).max().unwrap_or(0);
                self.clusters = Some((c.into(), k));
            }
        }
        self.publish();
    }

    fn publish(&mut self) {
        self.generation += 1;
        let positions: Arc<[Vec2]> = self
            .layout
            .positions()
            .iter()
            .map(|q| vec2(q[0], q[1]))
            .collect();
        let mut bounds = Rect::NOTHING;
        for p in positions.iter() {
            bounds.extend_with(p.to_pos2());
        }
        if !bounds.is_positive() {
            bounds = bounds.expand(1.0);
        }
        let snap = LayoutSnapshot {
            generation: self.generation,
            positions,
            bounds,
            iterations: self.layout.iterations(),
            level: self.layout.level(),
            state: self.layout.state(),
            stop_value: self.layout.stop_value(),
            parts: self.layout.components(),
            playing: self.playing,
            clusters: self.clusters.clone(),
            commands_read: self.commands_read,
        };
        if let Ok(mut g) = self.shared.lock() {
            *g = Some(snap);
        }
        if let Some(f) = &self.notify {
            f();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::layout::LayoutParams;
    use std::time::{Duration, Instant};

    /// Poll `w` (as a frame would) until a snapshot satisfies `pred`, at
    /// most `secs` seconds; the last snapshot taken.
    fn wait(
        w: &mut LayoutWorker,
        secs: u64,
        pred: impl Fn(&LayoutSnapshot) -> bool,
    ) -> LayoutSnapshot {
        let t0 = Instant::now();
        let mut last = None;
        loop {
            if let Some(s) = w.take() {
                if pred(&s) {
                    return s;
                }
                last = Some(s);
            }
            if t0.elapsed() > Duration::from_secs(secs) {
                return last.expect("a snapshot");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn worker(seed: u64) -> LayoutWorker {
        let (g, _) = crate::data_panel::builtin_sample("stencil-3d").expect("sample");
        let params = LayoutParams {
            seed,
            ..LayoutParams::default()
        };
        LayoutWorker::spawn(Layout::new(&g, params).expect("layout"), None)
    }

    #[test]
    fn layout_advances_on_the_worker_alone() {
        let mut w = worker(1);
        let first = w.take().expect("first snapshot");
        assert_eq!(first.iterations, 0);
        assert!(w.take().is_none(), "nothing new while paused");
        w.commands.send(LayoutCommand::Play(true));
        // This thread only reads snapshots; the worker steps.
        let later = wait(&mut w, 20, |s| s.iterations >= 5);
        assert!(later.iterations >= 5);
        assert_ne!(first.positions, later.positions);
        w.commands.send(LayoutCommand::Play(false));
    }

    #[test]
    fn same_seed_same_positions_and_clusters_on_stop() {
        let run = |seed| {
            let mut w = worker(seed);
            for _ in 0..3 {
                w.commands.send(LayoutCommand::Step);
            }
            let s = wait(&mut w, 20, |s| s.iterations == 3);
            assert_eq!(s.iterations, 3);
            assert!(!s.playing);
            s.positions
        };
        assert_eq!(run(7), run(7));
        let mut w = worker(7);
        w.commands.send(LayoutCommand::Play(true));
        let s = wait(&mut w, 60, |s| s.state != StepState::Running);
        let (c, k) = s.clusters.expect("clusters once stopped");
        assert_eq!(c.len(), s.positions.len());
        assert!(k >= 1 && c.iter().all(|&x| (x as usize) < k));
    }
}
