//! The app's model: the library state the views show (graph, topology,
//! routing, the current mapping and its evaluation, the mapper run on its
//! worker, the load job, clusters, the selection). No egui here: the views
//! read it and call its methods, and tests drive it without a window.

use super::error::AppError;
use super::run_state::{LiveRun, Pace, Run, RunRecord, Versioned};
use super::worker::{Job, Poll};
use crate::background::{BackgroundRun, Command, Snapshot};
use hopmap_core::graph::CommGraph;
use hopmap_core::mappers::{self, MapperInput};
use hopmap_core::mapping::Mapping;
use hopmap_core::metrics::{Evaluation, Metrics, evaluate};
use hopmap_core::routing::Routing;
use hopmap_core::step::{StepState, Stop};
use hopmap_core::topology::Topology;
use std::sync::Arc;

/// Result of a Load job: graph and its display name.
pub type LoadOutcome = Result<(CommGraph, String), AppError>;

/// The library state the app shows.
pub struct Model {
    /// The graph; its generation changes with every new graph.
    pub graph: Versioned<Arc<CommGraph>>,
    pub graph_name: String,
    /// The network; its generation changes with every new network.
    pub topo: Versioned<Arc<Topology>>,
    pub routing: Routing,
    /// The last complete mapping (None = nothing placed yet).
    pub mapping: Option<Mapping>,
    /// Which mapper produced `mapping`.
    pub mapping_label: String,
    /// Slot of every process as displayed (partial while a mapper steps).
    /// Its generation changes with what is shown with it too (the
    /// evaluation, the process colours).
    pub placement: Versioned<Vec<Option<u32>>>,
    /// Evaluation of what is displayed (of the placed processes only while partial).
    pub eval: Option<Evaluation>,
    pub eval_partial: bool,
    /// Metrics of the previous complete mapping, for the change column.
    pub prev: Option<(String, Metrics)>,
    /// The mapper run (Map, Step, Play) and what it shows.
    pub run: Run,
    /// Steps per second while playing (≥ 2000 means as fast as possible).
    pub speed: f32,
    /// The process clicked in a view.
    pub selected: Option<usize>,
    /// A readable error for the banner; the state is left as it was.
    pub error: Option<String>,
    pub status: String,
    pub load_job: Option<Job<LoadOutcome>>,
    /// Cluster id per process when known (components until the layout's clusters land).
    pub clusters: Vec<u32>,
    pub num_clusters: usize,
    /// Connected components of the graph (its undirected support).
    pub num_components: usize,
    /// Whether `clusters` are the layout's clusters (not yet the components).
    pub clusters_from_layout: bool,
    /// Guided mode: runs collect a sentence per step
    /// ([`RunRecord::guided_new`](crate::RunRecord::guided_new)).
    pub guided: bool,
    /// The file the graph was read from (None: generated, a sample, a lesson).
    pub graph_path: Option<std::path::PathBuf>,
    /// The file a load job in flight reads (becomes `graph_path`).
    pub pending_path: Option<std::path::PathBuf>,
    /// Called by a run's worker after each snapshot (the app asks for a
    /// frame), so that a paused run costs no frames.
    pub waker: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl Model {
    pub fn new(graph: CommGraph, name: &str, topo: Topology) -> Self {
        let (clusters, k) = graph.components();
        let n = graph.n();
        Model {
            graph: Versioned::new(Arc::new(graph)),
            graph_name: name.to_string(),
            topo: Versioned::new(Arc::new(topo)),
            routing: Routing::Dor,
            mapping: None,
            mapping_label: String::new(),
            placement: Versioned::new(vec![None; n]),
            eval: None,
            eval_partial: false,
            prev: None,
            run: Run::Idle,
            speed: 30.0,
            selected: None,
            error: None,
            status: String::new(),
            load_job: None,
            clusters,
            num_clusters: k,
            num_components: k,
            clusters_from_layout: false,
            guided: false,
            graph_path: None,
            pending_path: None,
            waker: None,
        }
    }

    pub fn fits(&self) -> bool {
        self.graph.n() <= self.topo.num_slots()
    }

    /// Forget the mapping and any run (keeps graph and topology).
    pub fn clear_mapping(&mut self) {
        self.cancel_run();
        self.run = Run::Idle;
        self.mapping = None;
        self.mapping_label.clear();
        self.placement.set(vec![None; self.graph.n()]);
        self.eval = None;
        self.eval_partial = false;
    }

    /// Show the layout's clusters (the process colours follow them).
    pub fn set_layout_clusters(&mut self, clusters: Vec<u32>, k: usize) {
        self.clusters = clusters;
        self.num_clusters = k;
        self.clusters_from_layout = true;
        self.placement.touch();
    }

    /// Replace the graph; maps it with `default` when it fits, as a baseline.
    pub fn set_graph(&mut self, graph: CommGraph, name: &str) {
        let (clusters, k) = graph.components();
        self.graph.set(Arc::new(graph));
        self.graph_name = name.to_string();
        self.graph_path = None;
        self.clusters = clusters;
        self.num_clusters = k;
        self.num_components = k;
        self.clusters_from_layout = false;
        self.selected = None;
        self.prev = None;
        self.clear_mapping();
        self.baseline();
    }

    /// Why graph `g` (named `name`) cannot replace the working graph: more
    /// processes than the network has slots. None when it can.
    pub fn refuses_graph(&self, g: &CommGraph, name: &str) -> Option<String> {
        (g.n() > self.topo.num_slots()).then(|| {
            format!(
                "{name}: {} processes do not fit in the {} slots of {}; the graph, mapping and \
                 comparison shown are unchanged (choose a network with at least {} slots in the \
                 Network panel first)",
                g.n(),
                self.topo.num_slots(),
                self.topo.spec(),
                g.n()
            )
        })
    }

    /// Why `topo` cannot replace the network (the graph does not fit, or
    /// the network is too large to evaluate); None when it can.
    pub fn refuses_topology(&self, topo: &Topology) -> Option<String> {
        if self.graph.n() > topo.num_slots() {
            return Some(format!(
                "{} has {} slots for {} processes: the network was not changed (the graph, \
                 mapping and comparison stay)",
                topo.spec(),
                topo.num_slots(),
                self.graph.n()
            ));
        }
        hopmap_core::metrics::check_evaluable(topo)
            .err()
            .map(|e| format!("{e}: the network was not changed"))
    }

    /// Replace the topology; maps with `default` when the graph fits.
    pub fn set_topology(&mut self, topo: Topology) {
        self.topo.set(Arc::new(topo));
        if self.routing.check(&self.topo).is_err() {
            self.routing = Routing::Dor;
        }
        // A fat tree opens with its own routing (and so its three-tier
        // drawing), not up*/down* with a fifth of the links unused.
        if self
            .topo
            .as_fabric()
            .is_some_and(|f| f.fat_tree().is_some())
            && Routing::FatTree.check(&self.topo).is_ok()
        {
            self.routing = Routing::FatTree;
        }
        self.prev = None;
        self.clear_mapping();
        self.baseline();
    }

    /// The `default` mapping, so that a new graph or network shows something.
    pub fn baseline(&mut self) {
        if !self.fits() {
            self.error = Some(format!(
                "{} processes do not fit in {} slots of {} — choose a larger network",
                self.graph.n(),
                self.topo.num_slots(),
                self.topo.spec()
            ));
            return;
        }
        if let Some(info) = mappers::find("default") {
            let input = MapperInput::new(self.graph.clone(), self.topo.clone(), 0);
            match mappers::run(&info, &input) {
                Ok(m) => {
                    let e = evaluate(&self.graph, &self.topo, &m, &self.routing);
                    self.apply_mapping("default", m, e);
                    self.prev = None;
                }
                Err(e) => self.error = Some(e.to_string()),
            }
        }
    }

    pub fn set_routing(&mut self, r: Routing) {
        if let Err(e) = r.check(&self.topo) {
            self.error = Some(e.to_string());
            return;
        }
        self.routing = r;
        self.reevaluate();
    }

    /// Evaluate again what is displayed (after a routing change).
    pub fn reevaluate(&mut self) {
        if let Some(m) = &self.mapping
            && !self.run.is_live()
        {
            self.eval = Some(evaluate(&self.graph, &self.topo, m, &self.routing));
            self.eval_partial = false;
        } else {
            self.eval = hopmap_core::metrics::evaluate_partial(
                &self.graph,
                &self.topo,
                &self.placement,
                &self.routing,
            );
            self.eval_partial = true;
        }
        self.placement.touch();
    }

    /// Show a complete mapping; the previous one's metrics become the reference.
    pub fn apply_mapping(&mut self, label: &str, m: Mapping, e: Evaluation) {
        if let (Some(old), false) = (&self.eval, self.eval_partial)
            && self.mapping.is_some()
        {
            self.prev = Some((self.mapping_label.clone(), old.metrics.clone()));
        }
        let cores = self.topo.cores();
        self.placement.set(
            (0..m.len())
                .map(|p| Some(m.slot(p, cores) as u32))
                .collect(),
        );
        self.mapping = Some(m);
        self.mapping_label = label.to_string();
        self.eval = Some(e);
        self.eval_partial = false;
        self.error = None;
    }

    /// Start mapper `id` through the one pipeline and hand it to a worker
    /// thread, paused. Errors (unknown id, bad parameters, no fit, missing
    /// coordinates) go to the banner and leave the state as it was.
    pub fn start_run(&mut self, id: &str, seed: u64, params: &str) -> bool {
        let started =
            (|| -> hopmap_core::Result<(mappers::Selected, MapperInput, Box<dyn mappers::MapperRun>)> {
                let sel = mappers::resolve(id)?;
                let user = mappers::parse_params(params)?;
                let mut input = MapperInput::new(self.graph.clone(), self.topo.clone(), seed);
                // The parameter line may hold parameters of other mappers (a
                // compare run of several): keep the ones this mapper declares.
                input.params = sel.with_params(&sel.info.own_params(&user))?;
                let run = mappers::prepare(&sel.info, &input)?;
                Ok((sel, input, run))
            })();
        match started {
            Ok((sel, input, run)) => {
                self.cancel_run();
                if self.mapping.is_some()
                    && !self.eval_partial
                    && let Some(e) = &self.eval
                {
                    self.prev = Some((self.mapping_label.clone(), e.metrics.clone()));
                }
                let worker = BackgroundRun::spawn(
                    &sel.info,
                    &sel.id,
                    run,
                    input,
                    self.routing.clone(),
                    match self.waker.clone() {
                        Some(w) => Box::new(move || w()),
                        None => Box::new(|| {}),
                    },
                );
                worker.set_guided(self.guided);
                self.run = Run::Paused(LiveRun {
                    worker,
                    record: RunRecord::new(&sel.id),
                    layout: None,
                });
                self.mapping = None;
                self.placement.set(vec![None; self.graph.n()]);
                self.eval = None;
                self.error = None;
                true
            }
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
        }
    }

    /// Run mapper `id` to the end on its worker thread (progress + Cancel).
    pub fn start_map(&mut self, id: &str, seed: u64, params: &str) {
        if !self.start_run(id, seed, params) {
            return;
        }
        self.status = format!("mapping with {id}…");
        if let Run::Paused(live) = self.run.take() {
            live.worker.send(Command::RunToEnd);
            self.run = Run::Running {
                live,
                pace: Pace::ToEnd,
            };
        }
    }

    /// Cancel the running mapper, if any (its placement stays on screen,
    /// and the run becomes Finished, cancelled).
    pub fn cancel_run(&mut self) {
        match self.run.take() {
            Run::Running { live, .. } | Run::Paused(live) => {
                live.worker.send(Command::Cancel);
                self.run = Run::Finished {
                    record: live.record,
                    stop: Stop::Cancelled,
                };
            }
            ended => self.run = ended,
        }
    }

    /// Whether mapper `id`'s run is on its worker.
    fn runs(&self, id: &str) -> bool {
        self.run.is_live() && self.run.id() == id
    }

    /// One step of the running mapper (starting it first if needed).
    pub fn step(&mut self, id: &str, seed: u64, params: &str) {
        if !self.runs(id) && !self.start_run(id, seed, params) {
            return;
        }
        if self.run.playing() {
            self.set_playing(false);
        }
        if let Some(w) = self.run.worker() {
            w.send(Command::Step(1));
        }
    }

    /// Play or pause the running mapper (starting `id` first if needed).
    pub fn play(&mut self, id: &str, seed: u64, params: &str, on: bool) {
        if on && !self.runs(id) && !self.start_run(id, seed, params) {
            return;
        }
        self.set_playing(on);
    }

    /// Play the live run at `speed` (Running), or pause it (Paused).
    fn set_playing(&mut self, on: bool) {
        let live = match self.run.take() {
            Run::Running { live, .. } | Run::Paused(live) => live,
            ended => {
                self.run = ended;
                return;
            }
        };
        if on {
            live.worker.send(Command::Play {
                steps_per_second: if self.speed >= 2000.0 {
                    f64::INFINITY
                } else {
                    self.speed as f64
                },
            });
            self.run = Run::Running {
                live,
                pace: Pace::Play { sent: self.speed },
            };
        } else {
            live.worker.send(Command::Pause);
            self.run = Run::Paused(live);
        }
    }

    /// Take the run's newest snapshot, if any, into the display. Called once
    /// per frame; O(n) when a snapshot arrived.
    pub fn poll_run(&mut self) -> bool {
        if let Run::Running {
            pace: Pace::Play { sent },
            ..
        } = self.run
            && sent != self.speed
        {
            self.set_playing(true);
        }
        let Some(w) = self.run.worker_mut() else {
            return false;
        };
        let Some(snap) = w.take() else {
            return true;
        };
        self.apply_snapshot(snap);
        self.run.is_live()
    }

    /// Show a snapshot of the run; a finished run's mapping becomes the
    /// current mapping.
    pub fn apply_snapshot(&mut self, mut snap: Snapshot) {
        // The worker stopped by itself (its steps ran out) only if this
        // snapshot answers every command sent, a Play included.
        let answers_all = self.run.worker().is_none_or(|w| w.answers_all(&snap));
        self.placement.set(snap.placement);
        if let Some(live) = self.run.live_mut() {
            live.layout = snap.layout;
        }
        let Some(rec) = self.run.record_mut() else {
            return;
        };
        rec.guided_new.append(&mut snap.guided);
        rec.last_event = snap.last_event;
        rec.frontier = snap.frontier;
        rec.progress = snap.progress;
        if snap.detail.is_some() {
            rec.detail = snap.detail;
        }
        let own_trace = !snap.trace.is_empty();
        if own_trace {
            rec.trace = snap
                .trace
                .iter()
                .enumerate()
                .map(|(i, &h)| [i as f64 + 1.0, h])
                .collect();
        }
        let Some(result) = snap.result else {
            if let Some(e) = snap.eval {
                if !own_trace && rec.trace.last().is_none_or(|t| t[0] < snap.steps as f64) {
                    rec.trace.push([snap.steps as f64, e.metrics.hop_bytes]);
                }
                self.eval = Some(e);
                self.eval_partial = snap.partial;
            }
            if !snap.active
                && answers_all
                && self.run.playing()
                && let Run::Running { live, .. } = self.run.take()
            {
                self.run = Run::Paused(live);
            }
            return;
        };
        let Some(mut record) = self.run.take().into_record() else {
            return;
        };
        let id = record.id.clone();
        match (result, snap.eval) {
            (Ok(m), Some(e)) => {
                if !own_trace {
                    record.trace.push([snap.steps as f64, e.metrics.hop_bytes]);
                }
                // `prev` was set when the run started.
                let prev = self.prev.take();
                self.mapping = None;
                // A recognised grid gives a graph without coordinates its
                // grid positions (the graph view can then lay it out on them).
                if let Some(c) = snap.grid_coords
                    && self.graph.coords().is_none()
                {
                    let mut g = (**self.graph).clone();
                    if g.set_coords(Some(c)).is_ok() {
                        self.graph.set_same_generation(Arc::new(g));
                    }
                }
                self.apply_mapping(&id, m, e);
                self.prev = prev;
                let why = snap.state.stop().map_or("", Stop::describe);
                let note = snap.summary.map(|s| format!(", {s}")).unwrap_or_default();
                self.status = format!(
                    "{id}: {why} after {} steps in {:.2} s{note}",
                    snap.steps, snap.seconds
                );
                // A run that returned its mapping stopped for a reason; a
                // construction that did not say one completed.
                let stop = snap.state.stop().unwrap_or(Stop::Complete);
                self.run = Run::Finished { record, stop };
            }
            (Ok(_), None) => {
                let error = format!("{id}: finished without an evaluation");
                self.error = Some(error.clone());
                self.run = Run::Failed { record, error };
            }
            (Err(error), _) => {
                if snap.state == StepState::Stopped(Stop::Cancelled) {
                    self.status = format!("{id} cancelled");
                    self.run = Run::Finished {
                        record,
                        stop: Stop::Cancelled,
                    };
                } else {
                    self.error = Some(error.clone());
                    self.run = Run::Failed { record, error };
                }
            }
        }
    }

    /// Check the background jobs; apply what finished.
    pub fn poll_jobs(&mut self) -> bool {
        let mut busy = self.poll_run();
        if let Some(j) = self.load_job.as_mut() {
            match j.poll() {
                Poll::Running => busy = true,
                Poll::Finished(r) => {
                    self.load_job = None;
                    let opened = self.pending_path.take();
                    match r {
                        // A graph (opened or generated) that does not fit
                        // leaves the working graph, mapping and comparison
                        // as they are; so does a file that cannot be read.
                        Ok((g, name)) => match self.refuses_graph(&g, &name) {
                            Some(why) => self.error = Some(why),
                            None => {
                                self.status = format!("loaded {name}");
                                self.set_graph(g, &name);
                                self.graph_path = opened;
                            }
                        },
                        Err(e) => {
                            self.error = Some(format!(
                                "{e}; the graph, mapping and comparison shown are unchanged"
                            ))
                        }
                    }
                }
                Poll::Lost => {
                    self.load_job = None;
                    self.error = Some("loading stopped unexpectedly (panic)".into());
                }
            }
        }
        busy
    }

    /// The name of what `eval` describes: the complete mapping's mapper, or
    /// the running (or stopped) mapper's partial placement.
    pub fn shown_label(&self) -> String {
        if self.run.is_live() {
            format!("{} (running, partial)", self.run.id())
        } else if self.mapping.is_none() && self.eval.is_some() {
            format!("{} (stopped, partial)", self.run.id())
        } else {
            self.mapping_label.clone()
        }
    }

    /// Whether anything is animating or running.
    pub fn busy(&self) -> bool {
        self.run.is_live() || self.load_job.is_some()
    }

    /// Whether a run is actively stepping (playing or taken to its end).
    pub fn stepping(&self) -> bool {
        matches!(self.run, Run::Running { .. })
    }

    /// The network node of process `p`, if placed.
    pub fn node_of(&self, p: usize) -> Option<usize> {
        self.placement
            .get(p)
            .copied()
            .flatten()
            .map(|s| s as usize / self.topo.cores())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn stepping_default_finishes_and_evaluates() {
        let spec = "stencil:16x16";
        let g = hopmap_core::generate::generate(spec, &Default::default()).unwrap();
        let t = Topology::parse("torus:16x16").unwrap();
        let mut m = Model::new(g, spec, t);
        m.step("default", 1, "");
        let t0 = Instant::now();
        while m.run.is_live() {
            assert!(t0.elapsed() < Duration::from_secs(60), "timed out");
            m.poll_run();
            std::thread::sleep(Duration::from_millis(1));
        }
        let mapping = m.mapping.clone().unwrap();
        let want = evaluate(&m.graph, &m.topo, &mapping, &m.routing);
        assert_eq!(m.eval.as_ref().unwrap().metrics, want.metrics);
        assert_eq!(m.mapping_label, "default");
        assert!(matches!(m.run, Run::Finished { .. }), "{:?}", m.run);
    }

    fn small() -> Model {
        let spec = "stencil:8x8";
        let g = hopmap_core::generate::generate(spec, &Default::default()).unwrap();
        Model::new(g, spec, Topology::parse("torus:8x8").unwrap())
    }

    /// Poll until the run leaves its worker; the final state.
    fn finish(m: &mut Model) {
        let t0 = Instant::now();
        while m.run.is_live() {
            assert!(t0.elapsed() < Duration::from_secs(60), "timed out");
            m.poll_run();
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn the_run_state_follows_the_commands() {
        let mut m = small();
        assert!(matches!(m.run, Run::Idle));
        assert!(m.start_run("bft", 1, ""));
        assert!(matches!(m.run, Run::Paused(_)) && m.run.id() == "bft");
        m.speed = 5.0;
        m.play("bft", 1, "", true);
        assert_eq!(
            m.run.live().map(|_| m.run.playing()),
            Some(true),
            "{:?}",
            m.run
        );
        assert!(m.stepping());
        m.play("bft", 1, "", false);
        assert!(matches!(m.run, Run::Paused(_)) && !m.stepping());
        m.cancel_run();
        assert_eq!(m.run.stop(), Some(Stop::Cancelled));
        assert_eq!(m.run.id(), "bft", "an ended run keeps its record");
        m.start_map("bft", 1, "");
        assert!(m.run.to_end() && m.stepping());
        finish(&mut m);
        // BFT is a construction: it stops complete, with its mapping shown.
        assert_eq!(m.run.stop(), Some(Stop::Complete), "{:?}", m.run);
        assert_eq!(m.mapping_label, "bft");
        assert!(!m.run.trace().is_empty(), "the trace stays after the end");
        m.clear_mapping();
        assert!(matches!(m.run, Run::Idle) && m.run.trace().is_empty());
    }

    /// A snapshot the worker published before it read Play says "not
    /// active"; taking it must not turn the playing run into a paused one.
    /// A snapshot that answers every command and says "not active" does.
    #[test]
    fn a_snapshot_older_than_play_does_not_pause_the_run() {
        let mut m = small();
        assert!(m.start_run("bft", 1, ""));
        let stale = m
            .run
            .worker_mut()
            .and_then(|w| w.wait_for(Duration::from_secs(30), |_| true))
            .expect("the worker's first snapshot");
        assert!(!stale.active && stale.commands_read == 0 && stale.result.is_none());
        m.speed = 1.0;
        m.play("bft", 1, "", true);
        assert!(m.run.playing());
        m.apply_snapshot(stale.clone());
        assert!(m.run.playing(), "paused by a stale snapshot: {:?}", m.run);
        let answering = Snapshot {
            commands_read: u64::MAX,
            ..stale
        };
        m.apply_snapshot(answering);
        assert!(matches!(m.run, Run::Paused(_)), "{:?}", m.run);
    }

    #[test]
    fn placement_generation_moves_with_every_change_shown() {
        let mut m = small();
        let g0 = m.placement.generation();
        m.set_routing(Routing::Dor);
        let g1 = m.placement.generation();
        assert!(g1 > g0, "a new evaluation is a new generation");
        m.set_layout_clusters(vec![0; m.graph.n()], 1);
        assert!(m.placement.generation() > g1, "new colours too");
        let (gg, tg) = (m.graph.generation(), m.topo.generation());
        m.set_topology(Topology::parse("mesh:8x8").unwrap());
        assert_eq!(m.graph.generation(), gg);
        assert_eq!(m.topo.generation(), tg + 1);
    }
}
