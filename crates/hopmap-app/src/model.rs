//! The app's model: the library state the views show (graph, topology,
//! routing, the current mapping and its evaluation, the mapper run on its
//! worker, the load job, clusters, the selection). No egui here: the views
//! read it and call its methods, and tests drive it without a window.

use super::error::AppError;
use super::worker::{Job, Poll};
use crate::background::{BackgroundRun, Command, GuidedLine, Snapshot};
use hopmap_core::graph::CommGraph;
use hopmap_core::mappers::{self, MapperInput, StepEvent};
use hopmap_core::mapping::Mapping;
use hopmap_core::metrics::{Evaluation, Metrics, evaluate};
use hopmap_core::routing::Routing;
use hopmap_core::step::{Progress, StepState, Stop};
use hopmap_core::topology::Topology;
use std::sync::Arc;
use std::time::Instant;

/// Result of a Load job: graph and its display name.
pub type LoadOutcome = Result<(CommGraph, String), AppError>;

/// The library state the app shows.
pub struct Model {
    pub graph: Arc<CommGraph>,
    pub graph_name: String,
    /// Bumped whenever the graph changes.
    pub graph_gen: u64,
    pub topo: Arc<Topology>,
    /// Bumped whenever the topology changes.
    pub topo_gen: u64,
    pub routing: Routing,
    /// The last complete mapping (None = nothing placed yet).
    pub mapping: Option<Mapping>,
    /// Which mapper produced `mapping`.
    pub mapping_label: String,
    /// Slot of every process as displayed (partial while a mapper steps).
    pub placement: Vec<Option<u32>>,
    /// Bumped whenever `placement` changes.
    pub place_gen: u64,
    /// Evaluation of what is displayed (of the placed processes only while partial).
    pub eval: Option<Evaluation>,
    pub eval_partial: bool,
    /// Metrics of the previous complete mapping, for the change column.
    pub prev: Option<(String, Metrics)>,
    /// The mapper run on its worker thread (Map, Step, Play).
    pub run: Option<BackgroundRun>,
    pub run_id: String,
    /// The run's newest state: progress, phase, why it stopped.
    pub run_progress: Progress,
    pub run_state: StepState,
    /// Whether the run is being taken to its end (Map) rather than stepped.
    pub run_to_end: bool,
    /// When the current run started (for the progress line).
    pub run_started: Option<Instant>,
    /// Positions of the running mapper's layout phase, while it lays out.
    pub run_layout: Option<Vec<[f32; 3]>>,
    pub playing: bool,
    /// Steps per second while playing (≥ 2000 means as fast as possible).
    pub speed: f32,
    /// The speed last sent to the worker.
    sent_speed: f32,
    /// Hop-bytes over the steps of the running mapper: (step, hop-bytes).
    pub trace: Vec<[f64; 2]>,
    /// The mapper whose steps `trace` holds.
    pub trace_label: String,
    pub last_event: Option<StepEvent>,
    pub frontier: Vec<usize>,
    /// The running (or last finished) mapper's internals, for the views
    /// that animate them (analytical, bipartition tree).
    pub run_detail: Option<crate::run_detail::RunDetail>,
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
    /// Guided mode: runs collect a sentence per step ([`GuidedLine`]).
    pub guided: bool,
    /// Guided sentences that arrived and the log has not taken yet.
    pub guided_new: Vec<GuidedLine>,
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
            graph: Arc::new(graph),
            graph_name: name.to_string(),
            graph_gen: 1,
            topo: Arc::new(topo),
            topo_gen: 1,
            routing: Routing::Dor,
            mapping: None,
            mapping_label: String::new(),
            placement: vec![None; n],
            place_gen: 1,
            eval: None,
            eval_partial: false,
            prev: None,
            run: None,
            run_id: String::new(),
            run_progress: Progress::default(),
            run_state: StepState::Running,
            run_to_end: false,
            run_started: None,
            run_layout: None,
            playing: false,
            speed: 30.0,
            sent_speed: 0.0,
            trace: Vec::new(),
            trace_label: String::new(),
            last_event: None,
            frontier: Vec::new(),
            run_detail: None,
            selected: None,
            error: None,
            status: String::new(),
            load_job: None,
            clusters,
            num_clusters: k,
            num_components: k,
            clusters_from_layout: false,
            guided: false,
            guided_new: Vec::new(),
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
        self.playing = false;
        self.mapping = None;
        self.mapping_label.clear();
        self.placement = vec![None; self.graph.n()];
        self.place_gen += 1;
        self.eval = None;
        self.eval_partial = false;
        self.trace.clear();
        self.last_event = None;
        self.frontier.clear();
        self.run_detail = None;
    }

    /// Replace the graph; maps it with `default` when it fits, as a baseline.
    pub fn set_graph(&mut self, graph: CommGraph, name: &str) {
        let (clusters, k) = graph.components();
        self.graph = Arc::new(graph);
        self.graph_name = name.to_string();
        self.graph_gen += 1;
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
        self.topo = Arc::new(topo);
        self.topo_gen += 1;
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
            && self.run.is_none()
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
        self.place_gen += 1;
    }

    /// Show a complete mapping; the previous one's metrics become the reference.
    pub fn apply_mapping(&mut self, label: &str, m: Mapping, e: Evaluation) {
        if let (Some(old), false) = (&self.eval, self.eval_partial)
            && self.mapping.is_some()
        {
            self.prev = Some((self.mapping_label.clone(), old.metrics.clone()));
        }
        let cores = self.topo.cores();
        self.placement = (0..m.len())
            .map(|p| Some(m.slot(p, cores) as u32))
            .collect();
        self.place_gen += 1;
        self.mapping = Some(m);
        self.mapping_label = label.to_string();
        self.eval = Some(e);
        self.eval_partial = false;
        self.error = None;
    }

    /// Start mapper `id` through the one pipeline and hand it to a worker
    /// thread, idle. Errors (unknown id, bad parameters, no fit, missing
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
                self.run = Some(BackgroundRun::spawn(
                    &sel.info,
                    &sel.id,
                    run,
                    input,
                    self.routing.clone(),
                    match self.waker.clone() {
                        Some(w) => Box::new(move || w()),
                        None => Box::new(|| {}),
                    },
                ));
                if let Some(r) = &self.run {
                    r.set_guided(self.guided);
                }
                self.run_id = sel.id;
                self.run_progress = Progress::default();
                self.run_state = StepState::Running;
                self.run_to_end = false;
                self.run_started = Some(Instant::now());
                self.run_layout = None;
                self.mapping = None;
                self.placement = vec![None; self.graph.n()];
                self.place_gen += 1;
                self.trace.clear();
                self.trace_label = self.run_id.clone();
                self.last_event = None;
                self.frontier.clear();
                self.run_detail = None;
                self.eval = None;
                self.error = None;
                self.sent_speed = 0.0;
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
        self.playing = false;
        self.run_to_end = true;
        self.status = format!("mapping with {id}…");
        if let Some(r) = &self.run {
            r.send(Command::RunToEnd);
        }
    }

    /// Cancel the running mapper, if any (its placement stays on screen).
    pub fn cancel_run(&mut self) {
        if let Some(r) = self.run.take() {
            r.send(Command::Cancel);
        }
        self.playing = false;
        self.run_to_end = false;
        self.run_layout = None;
    }

    /// One step of the running mapper (starting it first if needed).
    pub fn step(&mut self, id: &str, seed: u64, params: &str) {
        if (self.run.is_none() || self.run_id != id) && !self.start_run(id, seed, params) {
            return;
        }
        if self.playing {
            self.set_playing(false);
        }
        if let Some(r) = &self.run {
            r.send(Command::Step(1));
        }
    }

    /// Play or pause the running mapper (starting `id` first if needed).
    pub fn play(&mut self, id: &str, seed: u64, params: &str, on: bool) {
        if on && (self.run.is_none() || self.run_id != id) && !self.start_run(id, seed, params) {
            return;
        }
        self.set_playing(on);
    }

    fn set_playing(&mut self, on: bool) {
        self.playing = on;
        if let Some(r) = &self.run {
            if on {
                self.sent_speed = self.speed;
                r.send(Command::Play {
                    steps_per_second: if self.speed >= 2000.0 {
                        f64::INFINITY
                    } else {
                        self.speed as f64
                    },
                });
            } else {
                r.send(Command::Pause);
            }
        }
    }

    /// Take the run's newest snapshot, if any, into the display. Called once
    /// per frame; O(n) when a snapshot arrived.
    pub fn poll_run(&mut self) -> bool {
        if self.playing && self.speed != self.sent_speed {
            self.set_playing(true);
        }
        let Some(r) = self.run.as_mut() else {
            return false;
        };
        let Some(snap) = r.take() else {
            return true;
        };
        self.apply_snapshot(snap);
        self.run.is_some()
    }

    /// Show a snapshot of the run; a finished run's mapping becomes the
    /// current mapping.
    pub fn apply_snapshot(&mut self, mut snap: Snapshot) {
        self.guided_new.append(&mut snap.guided);
        self.placement = snap.placement;
        self.place_gen += 1;
        self.last_event = snap.last_event;
        self.frontier = snap.frontier;
        self.run_progress = snap.progress;
        self.run_state = snap.state;
        self.run_layout = snap.layout;
        if snap.detail.is_some() {
            self.run_detail = snap.detail;
        }
        let own_trace = !snap.trace.is_empty();
        if own_trace {
            self.trace = snap
                .trace
                .iter()
                .enumerate()
                .map(|(i, &h)| [i as f64 + 1.0, h])
                .collect();
        }
        let Some(result) = snap.result else {
            if let Some(e) = snap.eval {
                if !own_trace && self.trace.last().is_none_or(|t| t[0] < snap.steps as f64) {
                    self.trace.push([snap.steps as f64, e.metrics.hop_bytes]);
                }
                self.eval = Some(e);
                self.eval_partial = snap.partial;
            }
            if !snap.active {
                self.playing = false;
            }
            return;
        };
        let id = self.run_id.clone();
        self.run = None;
        self.playing = false;
        self.run_to_end = false;
        self.run_layout = None;
        match (result, snap.eval) {
            (Ok(m), Some(e)) => {
                if !own_trace {
                    self.trace.push([snap.steps as f64, e.metrics.hop_bytes]);
                }
                // `prev` was set when the run started.
                let prev = self.prev.take();
                self.mapping = None;
                // A recognised grid gives a graph without coordinates its
                // grid positions (the graph view can then lay it out on them).
                if let Some(c) = snap.grid_coords
                    && self.graph.coords().is_none()
                {
                    let mut g = (*self.graph).clone();
                    if g.set_coords(Some(c)).is_ok() {
                        self.graph = Arc::new(g);
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
            }
            (Ok(_), None) => self.error = Some(format!("{id}: finished without an evaluation")),
            (Err(e), _) => {
                if snap.state == StepState::Stopped(Stop::Cancelled) {
                    self.status = format!("{id} cancelled");
                } else {
                    self.error = Some(e);
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
        if self.run.is_some() {
            format!("{} (running, partial)", self.run_id)
        } else if self.mapping.is_none() && self.eval.is_some() {
            format!("{} (stopped, partial)", self.run_id)
        } else {
            self.mapping_label.clone()
        }
    }

    /// Whether anything is animating or running.
    pub fn busy(&self) -> bool {
        self.run.is_some() || self.load_job.is_some()
    }

    /// Whether a run is actively stepping (playing or taken to its end).
    pub fn stepping(&self) -> bool {
        self.run.is_some() && (self.playing || self.run_to_end)
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
    use std::time::Duration;

    #[test]
    fn stepping_default_finishes_and_evaluates() {
        let (g, name) = super::super::data_panel::builtin_sample("mesh-16x16").unwrap();
        let t = Topology::parse("torus:16x16").unwrap();
        let mut m = Model::new(g, &name, t);
        m.step("default", 1, "");
        let t0 = Instant::now();
        while m.run.is_some() {
            assert!(t0.elapsed() < Duration::from_secs(60), "timed out");
            m.poll_run();
            std::thread::sleep(Duration::from_millis(1));
        }
        let mapping = m.mapping.clone().unwrap();
        let want = evaluate(&m.graph, &m.topo, &mapping, &m.routing);
        assert_eq!(m.eval.as_ref().unwrap().metrics, want.metrics);
        assert_eq!(m.mapping_label, "default");
    }
}
