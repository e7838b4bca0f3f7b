//! The window: [`HopmapApp`] arranges the panels and views around the
//! [`Model`] and runs one frame ([`HopmapApp::ui_frame`]): poll the jobs,
//! take dropped files, draw the top bar, the left (Data, Network, Mapper),
//! right (Metrics) and central panels, and the headless screenshot.

pub mod file_menu;
pub mod headless;
pub mod lesson_panel;
pub mod teach;
pub mod top_bar;
pub mod ui_state;
pub mod workspace_io;

use super::colormap::{ColorMode, node_colors, process_colors_with};
use super::headless::Headless;
use super::run_state::{Memo, Versioned};
use super::settings::Settings;
use super::view::View;
use super::{
    Model, compare_panel, data_panel, graph_view, mapper_panel, matrix_view, metrics_panel,
    network_panel, network_view,
};
use egui::Color32;
use hopmap_core::graph::CommGraph;
use hopmap_core::routing::Routing;
use hopmap_core::topology::Topology;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Which views fill the centre.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Split,
    Graph,
    Network,
    Matrix,
    Compare,
    Analytical,
    Bipartition,
}

impl Tab {
    pub const ALL: [Tab; 7] = [
        Tab::Split,
        Tab::Graph,
        Tab::Network,
        Tab::Matrix,
        Tab::Compare,
        Tab::Analytical,
        Tab::Bipartition,
    ];
    pub fn title(self) -> &'static str {
        match self {
            Tab::Split => "Graph + Network",
            Tab::Graph => "Graph",
            Tab::Network => "Network",
            Tab::Matrix => "Matrix",
            Tab::Compare => "Compare",
            Tab::Analytical => "Analytical",
            Tab::Bipartition => "Bipartition",
        }
    }
    pub fn key(self) -> &'static str {
        match self {
            Tab::Split => "split",
            Tab::Graph => "graph",
            Tab::Network => "network",
            Tab::Matrix => "matrix",
            Tab::Compare => "compare",
            Tab::Analytical => "analytical",
            Tab::Bipartition => "bipartition",
        }
    }
    pub fn from_key(s: &str) -> Self {
        Tab::ALL
            .into_iter()
            .find(|t| t.key() == s)
            .unwrap_or(Tab::Split)
    }
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
    /// Lessons, guided log, glossary, workspaces, export, report dialog.
    pub teach: super::teach::Teach,
    pub analytical_view: super::analytical_view::AnalyticalView,
    /// The File and View menus, their dialogs, the panels shown.
    pub menus: super::file_menu::Menus,
    pub bipartition_view: super::bipartition_view::BipartitionView,
    /// The process colours, by (graph, network, placement) generation and mode.
    pub(super) colors: Memo<(u64, u64, u64, ColorMode), Vec<Color32>>,
    /// The network's node colours, by network generation.
    node_colors: Memo<u64, Vec<Color32>>,
    pub(super) headless: Option<Headless>,
    /// Where this window saves its settings on exit; with None it saves
    /// nothing, neither settings nor egui's memory nor the window's place
    /// (headless screenshots, tests: they must not change what the user's
    /// next session opens with).
    pub persist: Option<PathBuf>,
    /// Drop pointer input (headless screenshots: where the X pointer happens
    /// to sit must not put a hover or tooltip in the picture).
    pub ignore_pointer: bool,
    /// Frames drawn so far.
    pub frame_no: u64,
    /// Set when the headless run has finished (for the binary's exit code).
    pub finished: Arc<Mutex<Option<Result<(), super::AppError>>>>,
}

impl HopmapApp {
    /// The app on the built-in sample with saved settings (or defaults).
    pub fn new(settings: Settings) -> Self {
        let (g, name) = data_panel::builtin_sample(data_panel::DEFAULT_SAMPLE)
            .unwrap_or_else(|| (CommGraph::empty(1), "empty".into()));
        let topo = Topology::parse(&settings.topology)
            .or_else(|_| Topology::parse("torus:8x8x8"))
            .unwrap_or_else(|_| Topology::Grid(hopmap_core::topology::Grid::torus(&[8, 8, 8])));
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
            analytical_view: Default::default(),
            menus: Default::default(),
            bipartition_view: Default::default(),
            data: data_panel::DataPanel::default(),
            teach: Default::default(),
            model,
            settings,
            tab,
            color_mode,
            colors: Memo::default(),
            node_colors: Memo::default(),
            headless: None,
            persist: None,
            ignore_pointer: false,
            frame_no: 0,
            finished: Arc::new(Mutex::new(None)),
        };
        app.data.sample = name;
        app
    }

    /// The app as eframe creates it: settings from storage, saved back to
    /// [`super::settings::settings_file`] on exit.
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>) -> Self {
        let mut app = Self::new(Settings::load(cc.storage));
        app.persist = cc.storage.and(super::settings::settings_file());
        app
    }

    /// The process colours of the shown mapping, and their generation.
    fn colors(&mut self) -> &Versioned<Vec<Color32>> {
        let key = (
            self.model.graph.generation(),
            self.model.topo.generation(),
            self.model.placement.generation(),
            self.color_mode,
        );
        let (model, mode) = (&self.model, self.color_mode);
        let nc = self
            .node_colors
            .get(model.topo.generation(), || node_colors(&model.topo));
        self.colors
            .get(key, || process_colors_with(model, mode, nc))
    }

    fn sync_settings(&mut self) {
        let lesson = self.lesson_active();
        let s = &mut self.settings;
        s.topology = self.model.topo.spec();
        s.routing = self.model.routing.name();
        s.seed = self.mapper.seed;
        // What a lesson chose (its mapper, view, colouring) is the lesson's,
        // not the user's: it does not persist into the next session.
        if !lesson {
            s.mapper = self.mapper.selected.clone();
            s.mapper_params = self.mapper.params.clone();
            s.tab = self.tab.key().into();
            s.color_mode = self.color_mode.key().into();
            s.heat_by_flows = self.network_view.by_flows;
        }
        s.network_mode = self.network_view.mode.key().into();
        s.matrix_by_mapping = self.matrix_view.by_mapping;
        s.speed = self.model.speed;
    }

    /// One frame of the whole window, without eframe (tests and benches call this).
    pub fn ui_frame(&mut self, ui: &mut egui::Ui) {
        self.frame_no += 1;
        let ctx = ui.ctx().clone();
        if self.model.waker.is_none() {
            let c = ctx.clone();
            self.model.waker = Some(std::sync::Arc::new(move || c.request_repaint()));
        }
        if self.frame_no == 1 {
            readable_small_text(&ctx);
        }
        let jobs_busy = self.model.poll_jobs();
        super::bipartition_view::auto_color(
            &mut self.bipartition_view,
            &self.model,
            &mut self.color_mode,
        );
        self.compare.poll(&mut self.model);
        self.network_view.scale.compared =
            network_view::scale::worst(self.compare.current_rows(&self.model));

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

        self.lesson_keys(&ctx);
        self.top_bar(ui);
        self.side_panels(ui);
        self.teach_panel(ui);
        egui::CentralPanel::default().show(ui, |ui| {
            self.centre(ui);
        });

        self.headless_step(&ctx);
        self.teach_after_frame();
        self.sync_settings();
        // Frames only while something moves: a paused run, and the graph
        // view's layout worker, wake the UI through the model's waker when a
        // snapshot arrives.
        let run_moving = self.model.stepping() || self.model.load_job.is_some();
        let _ = jobs_busy;
        if run_moving
            || self.compare.busy()
            || self.teach.report.busy()
            || self.teach.export.request.is_some()
        {
            ctx.request_repaint();
        }
    }

    /// The left (Data, Network, Mapper; the Mapper's action bar fixed at its
    /// bottom) and right (Metrics) panels: fixed widths (narrower on a
    /// narrow window), their content scrolls; View hides either.
    fn side_panels(&mut self, ui: &mut egui::Ui) {
        let narrow = ui.ctx().content_rect().width() < 1100.0;
        let (lw, rw) = if narrow {
            (250.0, 280.0)
        } else {
            (300.0, 340.0)
        };
        let mut left = self.menus.left_open;
        egui::Panel::left("left_panel")
            .resizable(false)
            .exact_size(lw)
            .show_collapsible(ui, &mut left, |ui| {
                egui::Panel::bottom("mapper_actions")
                    .resizable(false)
                    .show(ui, |ui| {
                        self.mapper.actions_ui(ui, &mut self.model);
                    });
                // Rows wrap to the panel's width; the content scrolls vertically.
                egui::ScrollArea::vertical().show(ui, |ui| {
                    self.data.ui(ui, (&mut self.model, &mut self.settings));
                    ui.separator();
                    if self.network.ui(ui, &mut self.model) {
                        self.network_view.reset_camera();
                    }
                    ui.separator();
                    self.mapper.ui(ui, &mut self.model);
                });
            });
        self.menus.left_open = left;
        let panes = self.panes_note();
        let mut right = self.menus.right_open;
        egui::Panel::right("metrics_panel")
            .resizable(false)
            .exact_size(rw)
            .show_collapsible(ui, &mut right, |ui| {
                // The content fits the panel's width (texts wrap, plots
                // shrink) and scrolls vertically; the panel keeps its width.
                egui::ScrollArea::vertical().show(ui, |ui| {
                    self.metrics.ui(ui, (&self.model, panes));
                });
            });
        self.menus.right_open = right;
    }

    /// The title of an exported view: graph, network, mapping, hop-bytes
    /// (for the difference view, the two mappings compared).
    pub fn export_title(&self) -> String {
        let m = &self.model;
        let head = format!("{} on {}", m.graph_name, m.topo.spec());
        let diff = &self.compare.diff;
        if self.teach.export.wants(super::export::ViewKind::Difference) && diff.panes.len() == 2 {
            return format!("{head} · change of link load, {} − {}", diff.b, diff.a);
        }
        match &m.eval {
            Some(e) => format!(
                "{head} · {} · hop-bytes {}",
                m.shown_label(),
                super::draw::fmt_num(e.metrics.hop_bytes)
            ),
            None => head,
        }
    }

    /// The Compare sub-view shown when its panes carry their own metrics.
    pub fn panes_note(&self) -> Option<&'static str> {
        use super::compare_panel::CompareSub;
        match (self.tab, self.compare.sub) {
            (Tab::Compare, CompareSub::SideBySide) => Some("Side by side"),
            (Tab::Compare, CompareSub::Difference) => Some("Difference"),
            (Tab::Compare, CompareSub::Race) => Some("Race"),
            _ => None,
        }
    }

    fn centre(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            for t in Tab::ALL {
                ui.selectable_value(&mut self.tab, t, t.title());
            }
            ui.separator();
            let l = ui.label("Colour processes by");
            let mut mode = self.color_mode;
            egui::ComboBox::from_id_salt("color_mode")
                .selected_text(match mode {
                    ColorMode::Node => "network node",
                    ColorMode::Cluster => "cluster",
                    ColorMode::Degree => "degree",
                    ColorMode::Part => "bipartition part",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut mode, ColorMode::Node, "network node");
                    ui.selectable_value(&mut mode, ColorMode::Cluster, "cluster");
                    ui.selectable_value(&mut mode, ColorMode::Degree, "degree");
                    ui.selectable_value(&mut mode, ColorMode::Part, "bipartition part")
                        .on_hover_text(
                            "The part of the recursive bipartitioning that holds each \
                             process now (Bipartition tab); node colours otherwise",
                        );
                })
                .response
                .labelled_by(l.id);
            self.color_mode = mode;
        });
        ui.separator();
        if self.teach.export.request.is_some() {
            self.teach.export.title = self.export_title();
        }
        self.colors();
        let memo = std::mem::take(&mut self.colors);
        let (colors, colors_gen) = (&memo.last()[..], memo.last().generation());
        if !matches!(self.tab, Tab::Split | Tab::Graph) {
            // Out of sight, the graph's layout waits (it resumes when shown).
            self.graph_view.hidden();
        }
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
                let mark = super::export::mark(&lu);
                self.graph_view
                    .ui(&mut lu, (&mut self.model, colors, colors_gen));
                self.teach
                    .export
                    .capture(&lu, mark, super::export::ViewKind::Graph);
                let mut ru = ui.new_child(
                    egui::UiBuilder::new()
                        .id_salt("split_network")
                        .max_rect(right)
                        .layout(egui::Layout::top_down(egui::Align::Min)),
                );
                ru.set_clip_rect(right);
                let mark = super::export::mark(&ru);
                View::ui(
                    &mut self.network_view,
                    &mut ru,
                    (&mut self.model, colors, colors_gen),
                );
                self.teach
                    .export
                    .capture(&ru, mark, super::export::ViewKind::Network);
                ui.allocate_rect(r, egui::Sense::hover());
            }
            Tab::Graph => {
                let mark = super::export::mark(ui);
                self.graph_view
                    .ui(ui, (&mut self.model, colors, colors_gen));
                self.teach
                    .export
                    .capture(ui, mark, super::export::ViewKind::Graph);
            }
            Tab::Network => {
                let mark = super::export::mark(ui);
                View::ui(
                    &mut self.network_view,
                    ui,
                    (&mut self.model, colors, colors_gen),
                );
                self.teach
                    .export
                    .capture(ui, mark, super::export::ViewKind::Network);
            }
            Tab::Matrix => {
                let mark = super::export::mark(ui);
                self.matrix_view.ui(ui, &mut self.model);
                let mv = &self.matrix_view;
                self.teach.export.capture_with(
                    ui,
                    mark,
                    None,
                    super::export::ViewKind::Matrix,
                    |c| mv.add_cells(c),
                );
            }
            Tab::Compare => {
                self.compare.ui(ui, (&mut self.model, &self.mapper));
                self.compare.capture_diff(ui, &mut self.teach.export);
            }
            Tab::Analytical => self
                .analytical_view
                .ui(ui, (&mut self.model, &mut self.mapper)),
            Tab::Bipartition => self
                .bipartition_view
                .ui(ui, (&mut self.model, &mut self.mapper)),
        }
        self.colors = memo;
    }
}

impl eframe::App for HopmapApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.ui_frame(ui);
    }

    fn save(&mut self, _storage: &mut dyn eframe::Storage) {
        if let Some(p) = self.persist.clone() {
            self.sync_settings();
            self.settings.save_to(&p);
        }
    }

    fn persist_egui_memory(&self) -> bool {
        self.persist.is_some()
    }

    fn raw_input_hook(&mut self, _ctx: &egui::Context, raw: &mut egui::RawInput) {
        if self.ignore_pointer {
            raw.events.retain(|e| {
                !matches!(
                    e,
                    egui::Event::PointerMoved(_)
                        | egui::Event::PointerButton { .. }
                        | egui::Event::PointerGone
                        | egui::Event::MouseWheel { .. }
                        | egui::Event::MouseMoved(_)
                )
            });
        }
    }
}

/// egui's small text (9 pt) is unreadable in lists and captions (the
/// hottest links, the mappers' summaries, the panes' figures): 11 pt.
pub fn readable_small_text(ctx: &egui::Context) {
    ctx.all_styles_mut(|s| {
        if let Some(f) = s.text_styles.get_mut(&egui::TextStyle::Small) {
            f.size = f.size.max(SMALL_TEXT_PT);
        }
    });
}

/// The size of small text (captions, lists, the panes' figures), in points.
pub const SMALL_TEXT_PT: f32 = 11.0;
