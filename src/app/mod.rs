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
//! While a mapper plays, the model advances it by a per-frame budget
//! ([`crate::Stepper::run_for`]) and the views redraw each placement; heavy
//! work (Map to the end, Compare, loading) runs on worker threads.

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
use crate::mappers::{self, MapperInput, MapperRun, StepEvent};
use crate::mapping::Mapping;
use crate::metrics::{Evaluation, Metrics, evaluate};
use crate::routing::Routing;
use crate::topology::Topology;
use egui::Color32;
use settings::Settings;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use worker::{Job, Poll};

/// Result of a Map job: mapper id, mapping, its evaluation, seconds, and the
/// hop-bytes after each step when the mapper keeps a trace (PAIRS, CDL).
pub type MapOutcome = Result<(String, Mapping, Evaluation, f64, Vec<f64>), String>;
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
    /// The mapper being stepped in the UI thread.
    pub run: Option<Box<dyn MapperRun>>,
    pub run_id: String,
    pub playing: bool,
    /// Steps per second while playing (≥ 2000 means as fast as the frame budget allows).
    pub speed: f32,
    step_credit: f32,
    last_partial_eval: Option<Instant>,
    /// Hop-bytes over the steps of the running mapper: (step, hop-bytes).
    pub trace: Vec<[f64; 2]>,
    pub last_event: Option<StepEvent>,
    pub frontier: Vec<usize>,
    /// The process clicked in a view.
    pub selected: Option<usize>,
    /// A readable error for the banner; the state is left as it was.
    pub error: Option<String>,
    pub status: String,
    pub map_job: Option<Job<MapOutcome>>,
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
            playing: false,
            speed: 30.0,
            step_credit: 0.0,
            last_partial_eval: None,
            trace: Vec::new(),
            last_event: None,
            frontier: Vec::new(),
            selected: None,
            error: None,
            status: String::new(),
            map_job: None,
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
        if let Some(j) = self.map_job.take() {
            j.cancel();
        }
        self.run = None;
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
            self.refresh_partial_eval();
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

    fn input(&self, seed: u64, params: &str) -> MapperInput {
        let mut input = MapperInput::new(self.graph.clone(), self.topo.clone(), seed);
        input.params = parse_params(params);
        input
    }

    /// Run mapper `id` to the end on a worker thread (progress + Cancel).
    pub fn start_map(&mut self, id: &str, seed: u64, params: &str) {
        let sel = match crate::compare::resolve(id) {
            Ok(s) => s,
            Err(e) => {
                self.error = Some(e.to_string());
                return;
            }
        };
        let info = sel.info;
        let mut input = self.input(seed, params);
        input.params.extend(sel.params);
        // Parameters come from the mapper panel's controls, or from a compare
        // run of several mappers: keep the ones this mapper declares.
        input.params = info.own_params(&input.params);
        if let Err(e) = info
            .check_params(&input.params)
            .and_then(|_| input.check_fits())
        {
            self.error = Some(e.to_string());
            return;
        }
        self.run = None;
        self.playing = false;
        if let Some(j) = self.map_job.take() {
            j.cancel();
        }
        let routing = self.routing.clone();
        let start = info.start;
        let id = sel.id;
        self.status = format!("mapping with {id}…");
        self.map_job = Some(Job::spawn(format!("Map: {id}"), move |ctl| {
            let t0 = Instant::now();
            // `coords=infer`: the layout's coordinates, computed here on the worker.
            let input = mappers::gravity::with_inferred_coords(&input)
                .map_err(|e| e.to_string())?
                .unwrap_or(input);
            let mut run = start(&input).map_err(|e| e.to_string())?;
            ctl.set_total(run.progress().total.unwrap_or(0));
            while !run.is_done() {
                if ctl.is_cancelled() {
                    return Err("cancelled".to_string());
                }
                // Advance in slices so progress and Cancel stay responsive.
                run.run_for(Duration::from_millis(20));
                ctl.set_done(run.progress().done);
            }
            let m = run
                .result()
                .ok_or_else(|| format!("mapper {id} finished without a mapping"))?;
            m.validate(input.graph.n(), &input.topo)
                .map_err(|e| e.to_string())?;
            let e = evaluate(&input.graph, &input.topo, &m, &routing);
            let trace = run.hop_bytes_trace().to_vec();
            Ok((id, m, e, t0.elapsed().as_secs_f64(), trace))
        }));
    }

    /// Start stepping mapper `id` in the UI thread (for Step and Play).
    pub fn start_run(&mut self, id: &str, seed: u64, params: &str) -> bool {
        let Some(info) = mappers::find(id) else {
            self.error = Some(format!("no mapper named `{id}`"));
            return false;
        };
        let mut input = self.input(seed, params);
        input.params = info.own_params(&input.params);
        let started = info
            .check_params(&input.params)
            .and_then(|_| mappers::gravity::with_inferred_coords(&input))
            .map(|inferred| inferred.unwrap_or(input))
            .and_then(|input| input.check_fits().and_then(|_| (info.start)(&input)));
        match started {
            Ok(r) => {
                if self.mapping.is_some()
                    && !self.eval_partial
                    && let Some(e) = &self.eval
                {
                    self.prev = Some((self.mapping_label.clone(), e.metrics.clone()));
                }
                self.mapping = None;
                self.run = Some(r);
                self.run_id = info.id.to_string();
                self.placement = vec![None; self.graph.n()];
                self.place_gen += 1;
                self.trace.clear();
                self.last_event = None;
                self.frontier.clear();
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

    /// One step of the running mapper (starting it first if needed).
    pub fn step(&mut self, id: &str, seed: u64, params: &str) {
        if (self.run.is_none() || self.run_id != id) && !self.start_run(id, seed, params) {
            return;
        }
        if let Some(r) = self.run.as_mut() {
            r.step();
        }
        self.after_steps(true);
    }

    /// Advance the playing mapper by the time since the last frame × speed.
    pub fn advance(&mut self, dt: f32) {
        if !self.playing {
            return;
        }
        let Some(r) = self.run.as_mut() else {
            self.playing = false;
            return;
        };
        if self.speed >= 2000.0 {
            r.run_for(Duration::from_millis(10));
        } else {
            self.step_credit += dt * self.speed;
            let t0 = Instant::now();
            while self.step_credit >= 1.0 && !r.is_done() {
                r.step();
                self.step_credit -= 1.0;
                if t0.elapsed() > Duration::from_millis(12) {
                    self.step_credit = 0.0;
                    break;
                }
            }
        }
        self.after_steps(false);
    }

    /// Read the running mapper's state into the display.
    fn after_steps(&mut self, force_eval: bool) {
        let Some(r) = self.run.as_ref() else { return };
        self.placement = r.placement().to_vec();
        self.place_gen += 1;
        self.last_event = r.last_event().cloned();
        self.frontier = r.frontier();
        let done = r.is_done();
        let steps = r.progress().done;
        let trace = r.hop_bytes_trace();
        let own_trace = !trace.is_empty();
        if own_trace {
            self.trace = trace
                .iter()
                .enumerate()
                .map(|(i, &h)| [i as f64 + 1.0, h])
                .collect();
        }
        if done {
            let result = r.result();
            self.playing = false;
            let id = self.run_id.clone();
            self.run = None;
            if let Some(m) = result {
                match m.validate(self.graph.n(), &self.topo) {
                    Ok(()) => {
                        let e = evaluate(&self.graph, &self.topo, &m, &self.routing);
                        if !own_trace {
                            self.trace.push([steps as f64, e.metrics.hop_bytes]);
                        }
                        // `prev` was set when the run started.
                        let prev = self.prev.take();
                        self.mapping = None;
                        self.apply_mapping(&id, m, e);
                        self.prev = prev;
                        self.status = format!("{id} finished in {steps} steps");
                    }
                    Err(e) => self.error = Some(format!("{id}: {e}")),
                }
            }
            return;
        }
        let due = self
            .last_partial_eval
            .is_none_or(|t| t.elapsed() > Duration::from_millis(100));
        if force_eval || due {
            self.refresh_partial_eval();
            if !own_trace && let Some(e) = &self.eval {
                self.trace.push([steps as f64, e.metrics.hop_bytes]);
            }
        }
    }

    /// Evaluate the placed processes only (the subgraph among them), so the
    /// heatmap and metrics grow with the placement.
    pub fn refresh_partial_eval(&mut self) {
        self.last_partial_eval = Some(Instant::now());
        match crate::metrics::evaluate_placed(
            &self.graph,
            &self.topo,
            &self.placement,
            &self.routing,
        ) {
            Ok(e) => {
                let placed = e.as_ref().map_or(0, |e| e.metrics.processes);
                self.eval_partial = e.is_some() && placed < self.graph.n();
                self.eval = e;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Check the background jobs; apply what finished.
    pub fn poll_jobs(&mut self) -> bool {
        let mut busy = false;
        if let Some(j) = self.map_job.as_mut() {
            match j.poll() {
                Poll::Running => busy = true,
                Poll::Finished(r) => {
                    self.map_job = None;
                    match r {
                        Ok((id, m, e, secs, trace)) => {
                            self.trace = trace_points(&trace, e.metrics.hop_bytes);
                            self.status = format!("{id}: mapped in {secs:.2} s");
                            self.apply_mapping(&id, m, e);
                        }
                        Err(e) => {
                            self.status.clear();
                            if e != "cancelled" {
                                self.error = Some(e);
                            }
                        }
                    }
                }
                Poll::Lost => {
                    self.map_job = None;
                    self.error = Some("the mapper stopped unexpectedly (panic)".into());
                }
            }
        }
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
        self.playing || self.map_job.is_some() || self.load_job.is_some()
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

/// Parse `key=value, key=value` (commas or semicolons between pairs).
pub fn parse_params(s: &str) -> Vec<(String, String)> {
    s.split([',', ';'])
        .filter_map(|kv| {
            let kv = kv.trim();
            if kv.is_empty() {
                return None;
            }
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
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
    /// Per-process coordinates (`x y [z]` per line) replacing the graph's own.
    pub coords: Option<PathBuf>,
    /// How to read the graph file (format, one-based ids).
    pub read: crate::io::ReadOptions,
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
                network_view::ViewMode::from_key(&settings.network_mode),
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
            let (graph, name) =
                data_panel::load_graph_arg_with(g, &opts.read, opts.coords.as_deref())?;
            self.model.error = None;
            self.model.set_graph(graph, &name);
            self.data.sample = name;
        }
        if let Some(m) = &opts.mapper {
            let info = mappers::find(m).ok_or_else(|| {
                format!(
                    "no mapper named `{m}`; known: {}",
                    mappers::registry()
                        .iter()
                        .map(|i| i.id)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            self.mapper.select(info.id);
            if let Some(k) = opts.steps {
                let has_coords = self.model.graph.coords().is_some();
                let (seed, params) = (self.mapper.seed, self.mapper.effective_params(has_coords));
                if !self.model.start_run(info.id, seed, &params) {
                    return Err(self.model.error.clone().unwrap_or_default());
                }
                for _ in 0..k {
                    self.model.step(info.id, seed, &params);
                }
                if let Some(v) = &opts.view {
                    self.tab = Tab::from_key(v);
                }
                return self.headless_from(opts);
            }
            let mut input = MapperInput::new(
                self.model.graph.clone(),
                self.model.topo.clone(),
                self.mapper.seed,
            );
            input.params = parse_params(
                &self
                    .mapper
                    .effective_params(self.model.graph.coords().is_some()),
            );
            info.check_params(&input.params)
                .map_err(|e| e.to_string())?;
            let input = mappers::gravity::with_inferred_coords(&input)
                .map_err(|e| e.to_string())?
                .unwrap_or(input);
            input.check_fits().map_err(|e| e.to_string())?;
            let mut run = (info.start)(&input).map_err(|e| e.to_string())?;
            run.run_to_end();
            let m = run
                .result()
                .ok_or_else(|| format!("mapper {} finished without a mapping", info.id))?;
            m.validate(input.graph.n(), &input.topo)
                .map_err(|e| e.to_string())?;
            let e = evaluate(&self.model.graph, &self.model.topo, &m, &self.model.routing);
            self.model.trace = trace_points(run.hop_bytes_trace(), e.metrics.hop_bytes);
            self.model.apply_mapping(info.id, m, e);
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
        s.network_mode = self.network_view.mode.key().into();
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
        self.model.advance(dt);

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
            if let Some(j) = &self.model.map_job {
                let (label, frac, el) = (j.label.clone(), j.ctl.fraction(), j.elapsed());
                let mut cancel = false;
                ui.horizontal(|ui| {
                    ui.add(
                        egui::ProgressBar::new(frac)
                            .desired_width(240.0)
                            .text(format!("{label} — {:.1} s", el.as_secs_f32())),
                    );
                    cancel = ui.button("Cancel").clicked();
                });
                if cancel && let Some(j) = self.model.map_job.take() {
                    j.cancel();
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
    fn params_parse() {
        assert_eq!(
            parse_params("a=1, b = 2;c"),
            vec![
                ("a".into(), "1".into()),
                ("b".into(), "2".into()),
                ("c".into(), "".into())
            ]
        );
        assert!(parse_params("  ").is_empty());
    }

    #[test]
    fn partial_evaluation_counts_only_placed_pairs() {
        // Path 0-1-2 on a 1D mesh of 4; place 0 and 1 only, two hops apart.
        let mut b = crate::graph::GraphBuilder::new(3, false);
        b.add(0, 1, 10.0);
        b.add(1, 2, 6.0);
        let g = b.build().unwrap();
        let t = Topology::parse("mesh:4").unwrap();
        let mut m = Model::new(g, "p", t);
        m.placement = vec![Some(0), Some(2), None];
        m.refresh_partial_eval();
        let e = m.eval.as_ref().unwrap();
        assert!(m.eval_partial);
        assert_eq!(e.metrics.hop_bytes, 20.0);
        assert_eq!(e.metrics.total_bytes, 10.0);
    }

    #[test]
    fn stepping_default_finishes_and_evaluates() {
        let (g, name) = data_panel::builtin_sample("mesh-16x16").unwrap();
        let t = Topology::parse("torus:16x16").unwrap();
        let mut m = Model::new(g, &name, t);
        m.step("default", 1, "");
        assert!(m.run.is_none());
        let mapping = m.mapping.clone().unwrap();
        let want = evaluate(&m.graph, &m.topo, &mapping, &m.routing);
        assert_eq!(m.eval.as_ref().unwrap().metrics, want.metrics);
        assert_eq!(m.mapping_label, "default");
    }
}

/// Plot points for hop-bytes over a finished mapper's steps: its own trace
/// (PAIRS, CDL) when it keeps one, else the single final value.
fn trace_points(trace: &[f64], final_hop_bytes: f64) -> Vec<[f64; 2]> {
    if trace.is_empty() {
        vec![[1.0, final_hop_bytes]]
    } else {
        trace
            .iter()
            .enumerate()
            .map(|(i, &h)| [(i + 1) as f64, h])
            .collect()
    }
}
