//! The desktop app (eframe/egui). It renders library state and dispatches
//! actions; all algorithms live in the core modules.
//!
//! Structure: [`Model`] holds the library state (graph, topology, routing,
//! the current mapping and its [`Evaluation`], the mapper being stepped, the
//! background jobs); one struct per panel or view renders it and turns clicks
//! into calls on the model. [`HopmapApp`] arranges the panels:
//!
//! * left: Data, Network, Mapper;
//! * right: Metrics (figures, hop-bytes over steps, hop histogram);
//! * centre: the communication graph and the network side by side, or one of
//!   the graph, network, matrix and compare views alone.
//!
//! Every mapper run — Map to the end, Step, Play — goes through the one
//! pipeline ([`crate::mappers::prepare`]) and is stepped on a worker thread
//! ([`crate::mappers::background::BackgroundRun`]); each frame takes the
//! newest snapshot and draws it, so the UI thread runs no algorithm work and
//! never freezes. Compare and loading run on worker threads too.

pub mod colormap;
pub mod compare_panel;
pub mod data_panel;
pub mod graph_view;
pub mod mapper_panel;
pub mod matrix_view;
pub mod metrics_panel;
pub mod network_panel;
pub mod network_view;
pub mod settings;
pub mod worker;

use crate::graph::CommGraph;
use crate::mappers::background::{BackgroundRun, Command, Snapshot};
use crate::mappers::{self, MapperInput, StepEvent};
use crate::mapping::Mapping;
use crate::metrics::{Evaluation, Metrics, evaluate};
use crate::step::{Progress, StepState, Stop};
use crate::routing::Routing;
use crate::topology::Topology;
use egui::Color32;
use settings::Settings;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use worker::{Job, Poll};

/// Result of a Load job: graph and its display name.
pub type LoadOutcome = Result<(CommGraph, String), String>;

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
    pub last_event: Option<StepEvent>,
    pub frontier: Vec<usize>,
    /// The process clicked in a view.
    pub selected: Option<usize>,
    /// A readable error for the banner; the state is left as it was.
    pub error: Option<String>,
    pub status: String,
    pub load_job: Option<Job<LoadOutcome>>,
    /// Cluster id per process when known (components until the layout's clusters land).
    pub clusters: Vec<u32>,
    pub num_clusters: usize,
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
            last_event: None,
            frontier: Vec::new(),
            selected: None,
            error: None,
            status: String::new(),
            load_job: None,
            clusters,
            num_clusters: k,
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
    }

    /// Replace the graph; maps it with `default` when it fits, as a baseline.
    pub fn set_graph(&mut self, graph: CommGraph, name: &str) {
        let (clusters, k) = graph.components();
        self.graph = Arc::new(graph);
        self.graph_name = name.to_string();
        self.graph_gen += 1;
        self.clusters = clusters;
        self.num_clusters = k;
        self.selected = None;
        self.prev = None;
        self.clear_mapping();
        self.baseline();
    }

    /// Replace the topology; maps with `default` when the graph fits.
    pub fn set_topology(&mut self, topo: Topology) {
        self.topo = Arc::new(topo);
        self.topo_gen += 1;
        if self.routing.check(&self.topo).is_err() {
            self.routing = Routing::Dor;
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
            self.eval = crate::metrics::evaluate_partial(
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
        let started = (|| -> crate::Result<(mappers::Selected, MapperInput, Box<dyn mappers::MapperRun>)> {
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
                    Box::new(|| {}),
                ));
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
                self.last_event = None;
                self.frontier.clear();
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
    pub fn apply_snapshot(&mut self, snap: Snapshot) {
        self.placement = snap.placement;
        self.place_gen += 1;
        self.last_event = snap.last_event;
        self.frontier = snap.frontier;
        self.run_progress = snap.progress;
        self.run_state = snap.state;
        self.run_layout = snap.layout;
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
                    match r {
                        Ok((g, name)) => {
                            self.status = format!("loaded {name}");
                            self.set_graph(g, &name);
                        }
                        Err(e) => self.error = Some(e),
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

/// How processes are coloured (the same in the graph and the network view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMode {
    /// By the network node they are mapped to (position in the grid).
    Node,
    /// By cluster.
    Cluster,
    /// By weighted degree (viridis, log scale).
    Degree,
}

impl ColorMode {
    pub fn key(self) -> &'static str {
        match self {
            ColorMode::Node => "node",
            ColorMode::Cluster => "cluster",
            ColorMode::Degree => "degree",
        }
    }
    pub fn from_key(s: &str) -> Self {
        match s {
            "cluster" => ColorMode::Cluster,
            "degree" => ColorMode::Degree,
            _ => ColorMode::Node,
        }
    }
}

/// Colour of every network node from its grid position.
pub fn node_colors(topo: &Topology) -> Vec<Color32> {
    let n = topo.num_nodes();
    match topo.as_grid() {
        Some(g) => {
            let dims = g.dims();
            (0..n)
                .map(|v| {
                    let c = g.coord(v);
                    let mut f = [0.0f32; 3];
                    for (d, fd) in f.iter_mut().enumerate() {
                        if d < dims.len() && dims[d] > 1 {
                            *fd = c[d] as f32 / (dims[d] - 1) as f32;
                        }
                    }
                    colormap::position(f)
                })
                .collect()
        }
        None => (0..n).map(colormap::category).collect(),
    }
}

/// Colour of every process for `mode`. Unplaced processes are grey in Node mode.
pub fn process_colors(model: &Model, mode: ColorMode) -> Vec<Color32> {
    let n = model.graph.n();
    match mode {
        ColorMode::Node => {
            let nc = node_colors(&model.topo);
            (0..n)
                .map(|p| match model.node_of(p) {
                    Some(v) => nc[v],
                    None => Color32::from_gray(110),
                })
                .collect()
        }
        ColorMode::Cluster => (0..n)
            .map(|p| colormap::category(model.clusters.get(p).copied().unwrap_or(0) as usize))
            .collect(),
        ColorMode::Degree => {
            let w: Vec<f64> = (0..n)
                .map(|p| model.graph.sent_row(p).iter().sum::<f64>())
                .collect();
            let hi = w.iter().cloned().fold(0.0, f64::max);
            let lo = w.iter().cloned().filter(|&x| x > 0.0).fold(hi, f64::min);
            w.iter()
                .map(|&x| colormap::viridis(colormap::log_scale(x, lo * 0.5, hi)))
                .collect()
        }
    }
}

/// Which views fill the centre.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Split,
    Graph,
    Network,
    Matrix,
    Compare,
}

impl Tab {
    pub const ALL: [Tab; 5] = [
        Tab::Split,
        Tab::Graph,
        Tab::Network,
        Tab::Matrix,
        Tab::Compare,
    ];
    pub fn title(self) -> &'static str {
        match self {
            Tab::Split => "Graph + Network",
            Tab::Graph => "Graph",
            Tab::Network => "Network",
            Tab::Matrix => "Matrix",
            Tab::Compare => "Compare",
        }
    }
    pub fn key(self) -> &'static str {
        match self {
            Tab::Split => "split",
            Tab::Graph => "graph",
            Tab::Network => "network",
            Tab::Matrix => "matrix",
            Tab::Compare => "compare",
        }
    }
    pub fn from_key(s: &str) -> Self {
        Tab::ALL
            .into_iter()
            .find(|t| t.key() == s)
            .unwrap_or(Tab::Split)
    }
}

/// Options of `hopmap gui` (all optional).
#[derive(Clone, Debug, Default)]
pub struct GuiOptions {
    /// A graph file, or `sample` / a built-in sample name.
    pub graph: Option<String>,
    pub topology: Option<String>,
    pub mapper: Option<String>,
    /// Save a PNG of the whole window after `frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    pub frames: u32,
    /// Stop the mapper after this many steps (shows a placement in progress).
    pub steps: Option<usize>,
    /// The central view: split, graph, network, matrix or compare.
    pub view: Option<String>,
}

/// State of the headless screenshot run.
struct Headless {
    path: PathBuf,
    frames: u32,
    requested: bool,
    saved: Arc<Mutex<Option<Result<(), String>>>>,
}

/// The whole app.
pub struct HopmapApp {
    pub model: Model,
    pub settings: Settings,
    pub tab: Tab,
    pub color_mode: ColorMode,
    pub data: data_panel::DataPanel,
    pub network: network_panel::NetworkPanel,
    pub mapper: mapper_panel::MapperPanel,
    pub graph_view: graph_view::GraphView,
    pub network_view: network_view::NetworkView,
    pub matrix_view: matrix_view::MatrixView,
    pub metrics: metrics_panel::MetricsPanel,
    pub compare: compare_panel::ComparePanel,
    colors: Vec<Color32>,
    colors_key: (u64, u64, u64, ColorMode),
    /// Bumped whenever `colors` is recomputed.
    colors_gen: u64,
    headless: Option<Headless>,
    /// Frames drawn so far.
    pub frame_no: u64,
    /// Set when the headless run has finished (for the binary's exit code).
    pub finished: Arc<Mutex<Option<Result<(), String>>>>,
}

impl HopmapApp {
    /// The app on the built-in sample with saved settings (or defaults).
    pub fn new(settings: Settings) -> Self {
        let (g, name) = data_panel::builtin_sample(data_panel::DEFAULT_SAMPLE)
            .unwrap_or_else(|| (CommGraph::empty(1), "empty".into()));
        let topo = Topology::parse(&settings.topology)
            .or_else(|_| Topology::parse("torus:8x8x8"))
            .unwrap_or_else(|_| Topology::Grid(crate::topology::Grid::torus(&[8, 8, 8])));
        let mut model = Model::new(g, &name, topo);
        if let Ok(r) = Routing::parse(&settings.routing) {
            model.routing = r;
        }
        model.speed = settings.speed;
        model.baseline();
        let tab = Tab::from_key(&settings.tab);
        let color_mode = ColorMode::from_key(&settings.color_mode);
        let mut app = HopmapApp {
            network: network_panel::NetworkPanel::new(&model.topo),
            mapper: mapper_panel::MapperPanel::new(&settings),
            graph_view: graph_view::GraphView::default(),
            network_view: network_view::NetworkView::new(
                settings.network_3d,
                settings.heat_by_flows,
            ),
            matrix_view: matrix_view::MatrixView::new(settings.matrix_by_mapping),
            metrics: metrics_panel::MetricsPanel::default(),
            compare: compare_panel::ComparePanel::default(),
            data: data_panel::DataPanel::default(),
            model,
            settings,
            tab,
            color_mode,
            colors: Vec::new(),
            colors_key: (0, 0, 0, ColorMode::Node),
            colors_gen: 0,
            headless: None,
            frame_no: 0,
            finished: Arc::new(Mutex::new(None)),
        };
        app.data.sample = name;
        app
    }

    /// The app as eframe creates it: settings from storage.
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>) -> Self {
        Self::new(Settings::load(cc.storage))
    }

    /// Apply `hopmap gui` options: graph, topology, mapper (run to the end
    /// synchronously so that the screenshot shows the result), screenshot.
    pub fn apply_options(&mut self, opts: &GuiOptions) -> Result<(), String> {
        if let Some(t) = &opts.topology {
            let topo = Topology::parse(t).map_err(|e| e.to_string())?;
            self.model.error = None;
            self.model.set_topology(topo);
            self.network = network_panel::NetworkPanel::new(&self.model.topo);
        }
        if let Some(g) = &opts.graph {
            let (graph, name) = data_panel::load_graph_arg(g)?;
            self.model.error = None;
            self.model.set_graph(graph, &name);
            self.data.sample = name;
        }
        if let Some(m) = &opts.mapper {
            let sel = mappers::resolve(m).map_err(|e| e.to_string())?;
            self.mapper.select(sel.info.id);
            let (seed, params) = (self.mapper.seed, self.mapper.params.clone());
            if !self.model.start_run(m, seed, &params) {
                return Err(self.model.error.clone().unwrap_or_default());
            }
            // The headless window shows the run's state after `--steps`
            // steps, or its end: wait for the worker here, before the first
            // frame.
            let cmd = match opts.steps {
                Some(k) => Command::Step(k),
                None => Command::RunToEnd,
            };
            let want = opts.steps;
            if let Some(r) = self.model.run.as_mut() {
                r.send(cmd);
                let snap = r.wait_for(Duration::from_secs(24 * 3600), |s| {
                    s.result.is_some() || want.is_some_and(|k| s.steps >= k && !s.active)
                });
                if let Some(snap) = snap {
                    self.model.apply_snapshot(snap);
                }
            }
            if let Some(e) = &self.model.error {
                return Err(e.clone());
            }
        }
        if let Some(v) = &opts.view {
            self.tab = Tab::from_key(v);
        }
        self.headless_from(opts)
    }

    fn headless_from(&mut self, opts: &GuiOptions) -> Result<(), String> {
        if let Some(p) = &opts.screenshot {
            self.headless = Some(Headless {
                path: p.clone(),
                frames: opts.frames.max(3),
                requested: false,
                saved: Arc::new(Mutex::new(None)),
            });
        }
        Ok(())
    }

    fn colors(&mut self) -> &[Color32] {
        let key = (
            self.model.graph_gen,
            self.model.topo_gen,
            self.model.place_gen,
            self.color_mode,
        );
        if key != self.colors_key || self.colors.len() != self.model.graph.n() {
            self.colors = process_colors(&self.model, self.color_mode);
            self.colors_key = key;
            self.colors_gen += 1;
        }
        &self.colors
    }

    fn sync_settings(&mut self) {
        let s = &mut self.settings;
        s.topology = self.model.topo.spec();
        s.routing = self.model.routing.name();
        s.mapper = self.mapper.selected.clone();
        s.seed = self.mapper.seed;
        s.mapper_params = self.mapper.params.clone();
        s.tab = self.tab.key().into();
        s.color_mode = self.color_mode.key().into();
        s.network_3d = self.network_view.three_d;
        s.heat_by_flows = self.network_view.by_flows;
        s.matrix_by_mapping = self.matrix_view.by_mapping;
        s.speed = self.model.speed;
    }

    /// One frame of the whole window, without eframe (tests and benches call this).
    pub fn ui_frame(&mut self, ui: &mut egui::Ui) {
        self.frame_no += 1;
        let ctx = ui.ctx().clone();
        let dt = ctx.input(|i| i.stable_dt).min(0.1);
        let jobs_busy = self.model.poll_jobs();
        self.compare.poll(&mut self.model);
        let _ = dt;

        // Files dropped on the window.
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .collect()
        });
        if let Some(p) = dropped.into_iter().next() {
            self.data.open_path(&p, &mut self.model, &mut self.settings);
        }

        self.top_bar(ui);
        egui::Panel::left("left_panel")
            .resizable(true)
            .default_size(300.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    self.data.ui(ui, &mut self.model, &mut self.settings);
                    ui.separator();
                    if self.network.ui(ui, &mut self.model) {
                        self.network_view.reset_camera();
                    }
                    ui.separator();
                    self.mapper.ui(ui, &mut self.model);
                });
            });
        egui::Panel::right("metrics_panel")
            .resizable(true)
            .default_size(310.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical().show(ui, |ui| {
                    self.metrics.ui(ui, &self.model);
                });
            });
        egui::CentralPanel::default().show(ui, |ui| {
            self.centre(ui);
        });

        self.headless_step(&ctx);
        self.sync_settings();
        if self.model.busy() || jobs_busy || self.compare.busy() || self.graph_view.animating() {
            ctx.request_repaint();
        }
    }

    fn top_bar(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("top_bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.heading("hopmap");
                ui.separator();
                ui.label(format!(
                    "{}  ->  {}  ({})",
                    self.model.graph_name,
                    self.model.topo.spec(),
                    self.model.routing.name()
                ));
                if !self.model.mapping_label.is_empty() || self.model.run.is_some() {
                    ui.separator();
                    let what = if self.model.run.is_some() {
                        format!("stepping {}", self.model.run_id)
                    } else {
                        format!("mapping: {}", self.model.mapping_label)
                    };
                    ui.strong(what);
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.menu_button("Export mapping", |ui| {
                        use crate::io::launcher::{HostNames, LauncherFormat, write_mapping_file};
                        if self.model.mapping.is_none() {
                            ui.weak("no complete mapping yet");
                        }
                        for (f, ext, what) in [
                            (LauncherFormat::Plain, "txt", "plain: rank node core"),
                            (LauncherFormat::Bgp, "map", "Blue Gene/P mapfile (x y z t)"),
                            (LauncherFormat::Mpich, "txt", "Cray MPICH_RANK_ORDER"),
                            (
                                LauncherFormat::Rankfile,
                                "txt",
                                "Open MPI rankfile (hosts node%d)",
                            ),
                        ] {
                            let enabled = self.model.mapping.is_some();
                            if ui.add_enabled(enabled, egui::Button::new(what)).clicked() {
                                ui.close();
                                if let Some(m) = &self.model.mapping
                                    && let Some(p) = rfd::FileDialog::new()
                                        .set_file_name(format!("mapping.{}.{ext}", f.name()))
                                        .save_file()
                                {
                                    match write_mapping_file(
                                        &p,
                                        m,
                                        &self.model.topo,
                                        f,
                                        &HostNames::default(),
                                    ) {
                                        Ok(()) => {
                                            self.model.status = format!("saved {}", p.display())
                                        }
                                        Err(e) => self.model.error = Some(e.to_string()),
                                    }
                                }
                            }
                        }
                    });
                    if ui
                        .button("Screenshot")
                        .on_hover_text("Save a PNG of the whole window")
                        .clicked()
                        && let Some(p) = rfd::FileDialog::new()
                            .add_filter("PNG", &["png"])
                            .set_file_name("hopmap.png")
                            .save_file()
                    {
                        self.headless = Some(Headless {
                            path: p,
                            frames: 0,
                            requested: false,
                            saved: Arc::new(Mutex::new(None)),
                        });
                    }
                    if !self.model.status.is_empty() {
                        ui.weak(&self.model.status);
                    }
                });
            });
            if let Some(e) = self.model.error.clone() {
                ui.horizontal(|ui| {
                    ui.colored_label(Color32::from_rgb(255, 110, 90), e);
                    if ui.small_button("dismiss").clicked() {
                        self.model.error = None;
                    }
                });
            }
            // Map (to the end) shows its progress here; stepping shows it in
            // the mapper panel, so Step and Play do not shift the layout.
            if self.model.run.is_some() && self.model.run_to_end {
                let p = self.model.run_progress;
                let el = self.model.run_started.map_or(0.0, |t| t.elapsed().as_secs_f32());
                let phase = if p.phase.is_empty() {
                    String::new()
                } else {
                    format!(" {}", p.phase)
                };
                let text = match p.total {
                    Some(t) => format!("{}{phase}: {} of {t} — {el:.1} s", self.model.run_id, p.done),
                    None => format!("{}{phase}: step {} — {el:.1} s", self.model.run_id, p.done),
                };
                let mut cancel = false;
                ui.horizontal(|ui| {
                    let bar = match p.fraction() {
                        Some(f) => egui::ProgressBar::new(f),
                        None => egui::ProgressBar::new(0.0).animate(self.model.stepping()),
                    };
                    ui.add(bar.desired_width(280.0).text(text));
                    cancel = ui
                        .button("Cancel")
                        .on_hover_text("Stop the mapper; the placement so far stays on screen")
                        .clicked();
                });
                if cancel {
                    self.model.cancel_run();
                    self.model.status = "cancelled".into();
                }
            }
            if let Some(j) = &self.model.load_job {
                let (label, el) = (j.label.clone(), j.elapsed());
                let mut cancel = false;
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("{label} — {:.1} s", el.as_secs_f32()));
                    cancel = ui.button("Cancel").clicked();
                });
                if cancel && let Some(j) = self.model.load_job.take() {
                    j.cancel();
                }
            }
        });
    }

    fn centre(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for t in Tab::ALL {
                ui.selectable_value(&mut self.tab, t, t.title());
            }
            ui.separator();
            ui.label("Colour processes by");
            let mut mode = self.color_mode;
            egui::ComboBox::from_id_salt("color_mode")
                .selected_text(match mode {
                    ColorMode::Node => "network node",
                    ColorMode::Cluster => "cluster",
                    ColorMode::Degree => "degree",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut mode, ColorMode::Node, "network node");
                    ui.selectable_value(&mut mode, ColorMode::Cluster, "cluster");
                    ui.selectable_value(&mut mode, ColorMode::Degree, "degree");
                });
            self.color_mode = mode;
        });
        ui.separator();
        self.colors();
        let colors = std::mem::take(&mut self.colors);
        match self.tab {
            Tab::Split => {
                let r = ui.available_rect_before_wrap();
                let gap = 8.0;
                let w = (r.width() - gap) / 2.0;
                let left = egui::Rect::from_min_size(r.min, egui::vec2(w, r.height()));
                let right = egui::Rect::from_min_size(
                    egui::pos2(r.min.x + w + gap, r.min.y),
                    egui::vec2(w, r.height()),
                );
                let mut lu = ui.new_child(
                    egui::UiBuilder::new()
                        .id_salt("split_graph")
                        .max_rect(left)
                        .layout(egui::Layout::top_down(egui::Align::Min)),
                );
                lu.set_clip_rect(left);
                self.graph_view
                    .ui(&mut lu, &mut self.model, &colors, self.colors_gen);
                let mut ru = ui.new_child(
                    egui::UiBuilder::new()
                        .id_salt("split_network")
                        .max_rect(right)
                        .layout(egui::Layout::top_down(egui::Align::Min)),
                );
                ru.set_clip_rect(right);
                self.network_view
                    .ui(&mut ru, &mut self.model, &colors, self.colors_gen);
                ui.allocate_rect(r, egui::Sense::hover());
            }
            Tab::Graph => self
                .graph_view
                .ui(ui, &mut self.model, &colors, self.colors_gen),
            Tab::Network => self
                .network_view
                .ui(ui, &mut self.model, &colors, self.colors_gen),
            Tab::Matrix => self.matrix_view.ui(ui, &mut self.model),
            Tab::Compare => self.compare.ui(ui, &mut self.model, &self.mapper),
        }
        self.colors = colors;
    }

    fn headless_step(&mut self, ctx: &egui::Context) {
        let Some(h) = self.headless.as_mut() else {
            return;
        };
        if let Some(r) = h.saved.lock().ok().and_then(|mut s| s.take()) {
            let path = h.path.display().to_string();
            let interactive = h.frames == 0;
            self.headless = None;
            match r {
                Ok(()) => self.model.status = format!("saved {path}"),
                Err(e) => self.model.error = Some(e),
            }
            if !interactive {
                if let Ok(mut f) = self.finished.lock() {
                    *f = Some(match &self.model.error {
                        Some(e) => Err(e.clone()),
                        None => Ok(()),
                    });
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            return;
        }
        let waiting = self.model.busy();
        if !h.requested && !waiting && self.frame_no >= h.frames as u64 {
            h.requested = true;
            let path = h.path.clone();
            let saved = h.saved.clone();
            let ctx2 = ctx.clone();
            ctx.request_screenshot(move |img: Arc<egui::ColorImage>| {
                let r = save_png(&path, &img);
                if let Ok(mut s) = saved.lock() {
                    *s = Some(r);
                }
                ctx2.request_repaint();
            });
        }
        ctx.request_repaint();
    }
}

/// Save an egui image as an RGBA PNG.
pub fn save_png(path: &std::path::Path, img: &egui::ColorImage) -> Result<(), String> {
    let [w, h] = img.size;
    image::save_buffer(
        path,
        img.as_raw(),
        w as u32,
        h as u32,
        image::ColorType::Rgba8,
    )
    .map_err(|e| format!("{}: {e}", path.display()))
}

impl eframe::App for HopmapApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ui_frame(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        self.sync_settings();
        self.settings.save(storage);
    }
}

/// Open the window. Returns Err with a readable message when there is no
/// display (or the graphics backend fails), or when a headless run failed.
pub fn run(opts: GuiOptions) -> Result<(), String> {
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("hopmap — topology-aware process mapping")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([800.0, 500.0]),
        persist_window: opts.screenshot.is_none(),
        ..Default::default()
    };
    let finished: Arc<Mutex<Option<Result<(), String>>>> = Arc::new(Mutex::new(None));
    let fin2 = finished.clone();
    let headless = opts.screenshot.is_some();
    let setup_error: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let se2 = setup_error.clone();
    let r = eframe::run_native(
        "hopmap",
        native,
        Box::new(move |cc| {
            let mut app = if headless {
                // A documentation screenshot must not depend on saved settings.
                HopmapApp::new(Settings::default())
            } else {
                HopmapApp::from_creation_context(cc)
            };
            app.finished = fin2;
            if let Err(e) = app.apply_options(&opts) {
                if headless {
                    if let Ok(mut s) = se2.lock() {
                        *s = Some(e.clone());
                    }
                    cc.egui_ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
                app.model.error = Some(e);
            }
            Ok(Box::new(app))
        }),
    );
    r.map_err(|e| format!("cannot open a window: {e}"))?;
    if let Some(e) = setup_error.lock().ok().and_then(|mut s| s.take()) {
        return Err(e);
    }
    if headless {
        return match finished.lock().ok().and_then(|mut f| f.take()) {
            Some(r) => r,
            None => Err("the window closed before the screenshot was saved".into()),
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stepping_default_finishes_and_evaluates() {
        let (g, name) = data_panel::builtin_sample("mesh-16x16").unwrap();
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

