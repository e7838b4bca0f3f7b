//! The network view: the mesh/torus (or, drawn by [`fabric`], the switch
//! fabric) with the processes on their nodes and the link-contention
//! heatmap, readable from 8 to 16K nodes.
//!
//! * Modes ([`ViewMode`]): 3D (perspective, orbit camera: drag rotates, the
//!   wheel zooms), the Z slices side by side, or a projection along Z (each
//!   X/Y link position shows the busiest link of its column, each node
//!   square the busiest Z link). Auto picks 3D for small networks and, when
//!   3D would be a solid block, slices if they are large enough to read, else
//!   the projection ([`geometry::choose_mode`]). 1D/2D networks are one grid.
//! * Contention: every link is coloured by the busier of its two directions
//!   (bytes or flows) on viridis; colour, width and opacity grow with the
//!   load, so cold links fade. A filter (all, top k %, or at least a value;
//!   Auto = all up to 4096 links, else the top 1 %, at least 300 links) draws the chosen links in
//!   full and the others faint or hidden ([`contention`]).
//! * "Hottest links" lists the busiest links; a click selects one and frames
//!   it (the 3D camera turns to it, the flat drawings zoom and pan to it).
//!   Clicking a link in the drawing selects it too; hover names both
//!   directions' load and flows.
//! * Torus wrap links are short stubs leaving the grid at both ends with a
//!   bar at their tip ("continues on the other side").
//! * Nodes take the colour of their (first) process; empty nodes are dim.
//!   Click a node to select its process: its partners get rings and the
//!   channels its messages cross (from [`hopmap_core::Routing::route`]) are white.
//! * While a mapper steps, the last placement is shown: a magenta cross at
//!   the desired (possibly fractional) position, a line to the node
//!   findNearest chose, and a ring on that node.
//!
//! Structure: [`NetworkView`] holds the settings (mode, filter, camera,
//! colour scale) and what both drawings draw ([`data`]: links, node
//! occupancy, link values and ranking, routes of the selection); it draws
//! the toolbar and the hottest list and hands the picture to the grid
//! drawing ([`grid`]) or, on a switch fabric, to the fabric drawing
//! ([`fabric::FabricView`]), each with its own state. [`geometry`] (links,
//! positions, modes, camera), [`contention`] (link values, ranking, filter,
//! style), `input` (camera and picking), `paint` (the grid's meshes),
//! `legend`.
//!
//! Cost per frame: nothing while the picture is unchanged (cached meshes);
//! O(nodes + links) to rebuild; the link ranking is sorted once per
//! evaluation, node occupancy once per placement, routes once per selection.

pub mod contention;
pub mod data;
pub mod fabric;
mod fabric_draw;
pub mod fabric_layout;
pub mod geometry;
pub mod grid;
mod input;
mod legend;
mod paint;
pub mod parts_overlay;
pub mod scale;
pub mod sync;

pub use contention::{LinkFilter, LinkStats};
pub use geometry::{LinkGeom, Resolved, ViewMode};
pub use input::Picked;
pub use sync::{LinkDelta, ViewSync};

use super::Model;
use data::LinkData;
use egui::{Color32, Rect};
use geometry::Camera;
use glam::Vec3;
use hopmap_core::units::fmt_bytes;

/// Rows of the hottest-links list.
pub const HOTTEST_ROWS: usize = 10;

pub struct NetworkView {
    /// The mode chosen in the toolbar (Auto by default).
    pub mode: ViewMode,
    /// What Auto (or the choice) resolved to in the last frame.
    pub resolved: Resolved,
    pub by_flows: bool,
    pub filter: LinkFilter,
    /// Draw filtered-out links faintly (else hide them).
    pub ghosts: bool,
    /// The link picked in the hottest list or the drawing.
    pub selected_link: Option<usize>,
    /// How many times the meshes were rebuilt (benches check the cache).
    pub rebuilds: u64,
    pub cam: Camera,
    frame_request: Option<usize>,
    data: LinkData,
    grid: grid::GridView,
    /// The switch-fabric drawing ([`fabric`]).
    pub fab: fabric::FabricView,
    /// The single view's colour-scale lock ([`scale`]).
    pub scale: scale::ScaleState,
}

/// What a drawing (grid or fabric) reads and writes of its network view
/// for one frame: the settings and shared caches, borrowed beside the
/// drawing's own state, and the caller's colours, sync and difference.
pub struct Ctx<'a> {
    pub data: &'a LinkData,
    pub mode: ViewMode,
    pub by_flows: bool,
    pub filter: LinkFilter,
    pub ghosts: bool,
    pub scale: &'a scale::ScaleState,
    pub cam: &'a mut Camera,
    pub resolved: &'a mut Resolved,
    pub selected_link: &'a mut Option<usize>,
    pub frame_request: &'a mut Option<usize>,
    pub rebuilds: &'a mut u64,
    /// Colour of each process, and its generation (mesh cache keys).
    pub colors: &'a [Color32],
    pub colors_gen: u64,
    /// Set when drawn as one of several synced views.
    pub sync: Option<&'a mut ViewSync>,
    /// Per-link change of load (difference view).
    pub delta: Option<&'a LinkDelta>,
}

impl<'a> Ctx<'a> {
    /// The difference to paint, if it fits this network's links.
    pub fn delta(&self) -> Option<&'a LinkDelta> {
        self.delta
            .filter(|d| d.vals.len() == self.data.geom.links.len())
    }

    /// Opacity of the links the filter leaves out (0: hidden).
    pub fn ghost_alpha(&self) -> u8 {
        if !self.ghosts {
            0
        } else if self.data.geom.links.len() > 20_000 {
            14
        } else {
            40
        }
    }

    /// The colour range `(threshold, top)` drawn: the synced views' shared
    /// scale, else the single view's locked scale, else this view's own.
    pub fn range(&self, projected: bool) -> (f64, f64) {
        if let Some(r) = self.sync.as_ref().and_then(|s| s.scale) {
            return r;
        }
        let own = || {
            (
                self.data.stats.threshold(self.filter, projected),
                self.data.stats.maxv,
            )
        };
        if self.sync.is_some() {
            return own();
        }
        locked_range(
            self.scale,
            &self.data.stats,
            self.by_flows,
            self.filter,
            projected,
        )
        .unwrap_or_else(own)
    }

    /// `12.5 KiB` or `3 flows`.
    pub fn value_text(&self, v: f64) -> String {
        value_text(self.by_flows, v)
    }

    /// The colour legend: values `from`..`to` drawn in full, the link
    /// filter, how the view resolved (and whether it wraps), and the note
    /// on an automatic choice. The grid and fabric drawings share it.
    pub fn legend<'b>(
        &self,
        (from, to): (f64, f64),
        filter: LinkFilter,
        (resolved, any_wrap): (Resolved, bool),
        auto_note: Option<&'b str>,
    ) -> legend::Legend<'b> {
        let stats = &self.data.stats;
        legend::Legend {
            by_flows: self.by_flows,
            from,
            to,
            full: stats.passing(from),
            used: stats.used,
            total: self.data.geom.links.len(),
            filtered: filter != LinkFilter::All,
            ghosts: self.ghosts,
            resolved,
            any_wrap,
            auto_note,
            locked: self.scale.top(self.by_flows).is_some(),
        }
    }
}

fn value_text(by_flows: bool, v: f64) -> String {
    if by_flows {
        format!("{v:.0} flows")
    } else {
        fmt_bytes(v)
    }
}

/// The locked colour range `(threshold, top)`, if the scale is locked.
fn locked_range(
    scale: &scale::ScaleState,
    stats: &LinkStats,
    by_flows: bool,
    filter: LinkFilter,
    projected: bool,
) -> Option<(f64, f64)> {
    let top = scale.top(by_flows)?;
    let t = stats.threshold(filter, projected);
    Some((if t.is_finite() { t.min(top) } else { t }, top))
}

impl NetworkView {
    pub fn new(mode: ViewMode, by_flows: bool) -> Self {
        NetworkView {
            mode,
            resolved: Resolved::Flat,
            by_flows,
            filter: LinkFilter::Auto,
            ghosts: true,
            selected_link: None,
            rebuilds: 0,
            cam: Camera::default(),
            frame_request: None,
            data: LinkData::default(),
            grid: grid::GridView::default(),
            fab: fabric::FabricView::default(),
            scale: scale::ScaleState::default(),
        }
    }

    /// The colour range `(from, to)` the single view's legend shows.
    pub fn legend_range(&self) -> (f64, f64) {
        let projected = self.resolved == Resolved::Projection;
        let stats = &self.data.stats;
        locked_range(&self.scale, stats, self.by_flows, self.filter, projected)
            .unwrap_or((stats.threshold(self.filter, projected), stats.maxv))
    }

    /// Whether a drawing is still being prepared (the fabric layout).
    pub fn busy(&self) -> bool {
        self.fab.busy()
    }

    pub fn reset_camera(&mut self) {
        self.cam = Camera::default();
    }

    /// Turn the 3D camera by `radians` (as a horizontal drag does).
    pub fn orbit(&mut self, radians: f32) {
        self.cam.yaw += radians;
    }

    /// Links of the current topology (for tests and benches).
    pub fn links(&self) -> &[LinkGeom] {
        &self.data.geom.links
    }

    /// The link values and ranking of what is shown.
    pub fn stats(&self) -> &LinkStats {
        &self.data.stats
    }

    /// Midpoint of link `i` in world coordinates (what framing centres on).
    pub fn link_mid(&self, i: usize) -> Option<Vec3> {
        self.data.geom.link_mid(i)
    }

    /// Where node `v` was drawn in the last frame (tests: hover, click).
    pub fn node_screen(&self, v: usize) -> Option<egui::Pos2> {
        self.grid.node_screen(v)
    }

    /// Select link `i` and frame it in the next frame.
    pub fn select_link(&mut self, i: usize) {
        if i < self.data.geom.links.len() {
            self.selected_link = Some(i);
            self.frame_request = Some(i);
        }
    }

    /// Bring the caches up to date with the model.
    fn ensure(&mut self, model: &Model) {
        if self.data.ensure(model, self.by_flows) {
            self.selected_link = None;
            self.reset_camera();
        }
    }

    /// `X link (3, 4, 5) -> (4, 4, 5)`, or `sw3 – sw7 (up end sw3)` on a fabric.
    pub fn link_name(&self, model: &Model, i: usize) -> String {
        match (model.topo.as_fabric(), self.data.geom.links.get(i)) {
            (Some(f), Some(l)) => fabric::link_name(f, l, self.fab.prep.as_deref()),
            _ => grid::link_name(&self.data.geom, model, i),
        }
    }

    /// [`Self::link_name`]'s short form for tables: `X (3, 4, 5) – (4, 4, 5)`,
    /// or `sw3 – sw7` with short switch labels
    /// ([`fabric::short_switch_label`]).
    pub fn link_short_name(&self, model: &Model, i: usize) -> String {
        match (model.topo.as_fabric(), self.data.geom.links.get(i)) {
            (Some(f), Some(l)) => fabric::link_short_name(f, l),
            _ => grid::link_short_name(&self.data.geom, model, i),
        }
    }

    fn value_text(&self, v: f64) -> String {
        value_text(self.by_flows, v)
    }

    fn toolbar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.strong("Network");
            if self.data.geom.three_dims {
                for m in ViewMode::ALL {
                    let r = ui.selectable_value(&mut self.mode, m, m.title());
                    if m == ViewMode::Auto {
                        r.on_hover_text(
                            "3D up to 1000 nodes; beyond, Z slices when they are large \
                             enough to read, else the projection along Z",
                        );
                    }
                }
                ui.separator();
            }
            ui.label("links by");
            ui.selectable_value(&mut self.by_flows, false, "load (bytes)");
            ui.selectable_value(&mut self.by_flows, true, "flows");
            if ui.button("Reset view").clicked() {
                self.reset_camera();
            }
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("show");
            let total = self.data.geom.links.len();
            let f = self.filter;
            let is_top = matches!(f, LinkFilter::TopPercent(_));
            let is_at = matches!(f, LinkFilter::AtLeast(_));
            if ui
                .selectable_label(f == LinkFilter::Auto, "auto")
                .on_hover_text(
                    "Every used link up to 4096 links, else the hottest 1 % (at least 300); \
                     the projection is always filtered so its hot spots show",
                )
                .clicked()
            {
                self.filter = LinkFilter::Auto;
            }
            if ui.selectable_label(f == LinkFilter::All, "all").clicked() {
                self.filter = LinkFilter::All;
            }
            if ui
                .selectable_label(is_top, "top %")
                .on_hover_text("Only the hottest share of the used links in full")
                .clicked()
                && !is_top
            {
                self.filter = LinkFilter::TopPercent(5.0);
            }
            if ui
                .selectable_label(is_at, "≥ value")
                .on_hover_text("Only links at or above a load (or flow count) in full")
                .clicked()
                && !is_at
            {
                let t = self
                    .data
                    .stats
                    .threshold(LinkFilter::TopPercent(1.0), false);
                self.filter = LinkFilter::AtLeast(if t.is_finite() { t } else { 0.0 });
            }
            match &mut self.filter {
                LinkFilter::TopPercent(p) => {
                    ui.add(
                        egui::Slider::new(p, 0.1..=100.0)
                            .logarithmic(true)
                            .suffix(" %")
                            .text("hottest"),
                    );
                }
                LinkFilter::AtLeast(t) => {
                    let hi = self.data.stats.maxv.max(1.0);
                    let by_flows = self.by_flows;
                    ui.add(
                        egui::Slider::new(t, 0.0..=hi)
                            .logarithmic(true)
                            .custom_formatter(move |v, _| {
                                if by_flows {
                                    format!("{v:.0} flows")
                                } else {
                                    fmt_bytes(v)
                                }
                            })
                            .text("at least"),
                    );
                }
                _ => {}
            }
            ui.checkbox(&mut self.ghosts, "faint rest")
                .on_hover_text(format!(
                    "Draw the links the filter leaves out faintly ({total} links in all)"
                ));
            ui.separator();
            let own = self.data.stats.maxv;
            self.scale.ui(ui, self.by_flows, own);
        });
    }

    /// The hottest links; a click selects and frames one.
    fn hottest_ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        let hot: Vec<u32> = self.data.stats.hottest(HOTTEST_ROWS).to_vec();
        egui::CollapsingHeader::new(format!("Hottest links ({} used)", self.data.stats.used))
            .id_salt("hottest_links")
            .default_open(true)
            .show(ui, |ui| {
                // One height whatever the list holds (empty while a run
                // starts), so that the drawing below neither jumps nor
                // rebuilds its meshes for a new rectangle.
                egui::ScrollArea::vertical()
                    .max_height(96.0)
                    .auto_shrink([false, false])
                    .id_salt("hottest_scroll")
                    .show(ui, |ui| {
                        if hot.is_empty() {
                            ui.weak("no traffic crosses the network");
                        }
                        for (rank, &i) in hot.iter().enumerate() {
                            let i = i as usize;
                            let text = format!(
                                "#{} {}  {}",
                                rank + 1,
                                self.value_text(self.data.stats.vals[i]),
                                self.link_name(model, i)
                            );
                            let on = self.selected_link == Some(i);
                            if ui
                                .selectable_label(on, egui::RichText::new(text).small())
                                .on_hover_text("Select this link and frame it")
                                .clicked()
                            {
                                self.select_link(i);
                            }
                        }
                    });
            });
    }

    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &mut Model,
        colors: &[Color32],
        colors_gen: u64,
    ) {
        self.draw(ui, model, (colors, colors_gen), None, None);
    }

    /// Draw as one of several synced views (side by side, race, difference):
    /// camera, mode, filter and colour scale come from `sync`, and the hover
    /// is shared; no toolbar, hottest list or legend (the caller draws them
    /// once). `delta` colours links by a change of load (difference view).
    pub fn ui_synced(
        &mut self,
        ui: &mut egui::Ui,
        model: &mut Model,
        colors: &[Color32],
        colors_gen: u64,
        sync: &mut ViewSync,
        delta: Option<&LinkDelta>,
    ) {
        self.mode = sync.mode;
        self.by_flows = sync.by_flows;
        self.filter = sync.filter;
        self.ghosts = sync.ghosts;
        std::mem::swap(&mut self.cam, &mut sync.cam);
        self.draw(ui, model, (colors, colors_gen), Some(sync), delta);
        std::mem::swap(&mut self.cam, &mut sync.cam);
    }

    /// This view's own colour range `(threshold, busiest)` for `model` under
    /// `sync`'s settings, drawn in `rect` (what a shared scale is made of).
    pub fn link_range(&mut self, model: &Model, sync: &ViewSync, rect: Rect) -> (f64, f64) {
        self.by_flows = sync.by_flows;
        self.ensure(model);
        let resolved = geometry::choose_mode(sync.mode, &self.data.geom, rect);
        let projected = resolved == Resolved::Projection;
        (
            self.data.stats.threshold(sync.filter, projected),
            self.data.stats.maxv,
        )
    }

    /// The toolbar and hottest list (unless synced), then the grid or the
    /// fabric drawing.
    fn draw(
        &mut self,
        ui: &mut egui::Ui,
        model: &mut Model,
        (colors, colors_gen): (&[Color32], u64),
        sync: Option<&mut ViewSync>,
        delta: Option<&LinkDelta>,
    ) {
        self.ensure(model);
        if sync.is_none() {
            self.toolbar(ui);
            self.hottest_ui(ui, model);
        }
        let mut cx = Ctx {
            data: &self.data,
            mode: self.mode,
            by_flows: self.by_flows,
            filter: self.filter,
            ghosts: self.ghosts,
            scale: &self.scale,
            cam: &mut self.cam,
            resolved: &mut self.resolved,
            selected_link: &mut self.selected_link,
            frame_request: &mut self.frame_request,
            rebuilds: &mut self.rebuilds,
            colors,
            colors_gen,
            sync,
            delta,
        };
        if model.topo.as_fabric().is_some() {
            self.fab.ui(ui, &mut cx, model);
        } else {
            self.grid.ui(ui, &mut cx, model);
        }
    }
}

/// The [`super::view::View`] of the network drawing (its full toolbar,
/// legend and hottest list; [`NetworkView::ui`]).
impl super::view::View for NetworkView {
    type Input<'a> = (&'a mut Model, &'a [Color32], u64);
    type Output = ();

    fn title(&self) -> &'static str {
        "Network"
    }

    fn ui(&mut self, ui: &mut egui::Ui, (model, colors, gen_): Self::Input<'_>) {
        NetworkView::ui(self, ui, model, colors, gen_);
    }
}
