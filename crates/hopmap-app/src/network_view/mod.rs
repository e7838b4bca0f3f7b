//! The network view: the mesh/torus with the processes on their nodes and
//! the link-contention heatmap, readable from 8 to 16K nodes.
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
//! Structure: [`geometry`] (links, positions, modes, camera), [`contention`]
//! (link values, ranking, filter, style), `input` (camera and picking),
//! `paint` (cached meshes and overlays), `legend`.
//!
//! Cost per frame: nothing while the picture is unchanged (cached meshes);
//! O(nodes + links) to rebuild; the link ranking is sorted once per
//! evaluation, node occupancy once per placement, routes once per selection.

pub mod contention;
pub mod fabric;
pub mod geometry;
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
use super::graph_view::coord_text;
use egui::{Color32, Rect, Sense, Shape, Stroke, pos2, vec2};
use geometry::{Camera, Geometry, Projector};
use glam::Vec3;
use hopmap_core::units::fmt_bytes;
use paint::{Drawn, Scene, node_radius};

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
    geom: Geometry,
    topo_key: u64,
    drawn: Option<Drawn>,
    node_proc: Vec<u32>,
    place_key: (u64, u64),
    route_key: (Option<usize>, u64, u64),
    route_channels: Vec<bool>,
    partner_nodes: Vec<usize>,
    stats: LinkStats,
    stats_key: (u64, u64, bool),
    /// The switch-fabric drawing ([`fabric`]).
    pub fab: fabric::FabricState,
    /// The single view's colour-scale lock ([`scale`]).
    pub scale: scale::ScaleState,
}

impl NetworkView {
    /// The colour legend of this view: values `from`..`to` drawn in full,
    /// the link filter, how the view resolved (and whether it wraps), and
    /// the note on an automatic choice. The grid and fabric drawings share it.
    fn legend<'a>(
        &self,
        (from, to): (f64, f64),
        filter: LinkFilter,
        (resolved, any_wrap): (Resolved, bool),
        auto_note: Option<&'a str>,
    ) -> legend::Legend<'a> {
        legend::Legend {
            by_flows: self.by_flows,
            from,
            to,
            full: self.stats.passing(from),
            used: self.stats.used,
            total: self.geom.links.len(),
            filtered: filter != LinkFilter::All,
            ghosts: self.ghosts,
            resolved,
            any_wrap,
            auto_note,
            locked: self.scale.top(self.by_flows).is_some(),
        }
    }

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
            geom: Geometry::default(),
            topo_key: 0,
            drawn: None,
            node_proc: Vec::new(),
            place_key: (0, 0),
            route_key: (None, 0, 0),
            route_channels: Vec::new(),
            partner_nodes: Vec::new(),
            stats: LinkStats::default(),
            stats_key: (0, 0, false),
            fab: fabric::FabricState::default(),
            scale: scale::ScaleState::default(),
        }
    }

    /// The locked colour range `(threshold, top)` of the single view, if
    /// the scale is locked ([`scale`]).
    pub(super) fn locked_range(&self) -> Option<(f64, f64)> {
        self.locked_range_at(false)
    }

    fn locked_range_at(&self, projected: bool) -> Option<(f64, f64)> {
        let top = self.scale.top(self.by_flows)?;
        let t = self.stats.threshold(self.filter, projected);
        Some((if t.is_finite() { t.min(top) } else { t }, top))
    }

    /// The colour range `(from, to)` the single view's legend shows.
    pub fn legend_range(&self) -> (f64, f64) {
        let projected = self.resolved == Resolved::Projection;
        self.locked_range_at(projected).unwrap_or((
            self.stats.threshold(self.filter, projected),
            self.stats.maxv,
        ))
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
        &self.geom.links
    }

    /// The link values and ranking of what is shown.
    pub fn stats(&self) -> &LinkStats {
        &self.stats
    }

    /// Midpoint of link `i` in world coordinates (what framing centres on).
    pub fn link_mid(&self, i: usize) -> Option<Vec3> {
        self.geom.link_mid(i)
    }

    /// Where node `v` was drawn in the last frame (tests: hover, click).
    pub fn node_screen(&self, v: usize) -> Option<egui::Pos2> {
        self.drawn.as_ref()?.screen.get(v).map(|s| s.0)
    }

    /// Select link `i` and frame it in the next frame.
    pub fn select_link(&mut self, i: usize) {
        if i < self.geom.links.len() {
            self.selected_link = Some(i);
            self.frame_request = Some(i);
        }
    }

    /// Bring the caches up to date with the model.
    fn ensure(&mut self, model: &Model) {
        if self.topo_key != model.topo.generation() {
            self.topo_key = model.topo.generation();
            self.geom = match model.topo.as_fabric() {
                Some(f) => fabric::link_geometry(f),
                None => Geometry::new(&model.topo),
            };
            self.selected_link = None;
            self.reset_camera();
        }
        let pk = (model.placement.generation(), model.topo.generation());
        if self.place_key != pk {
            self.place_key = pk;
            let nn = model.topo.num_nodes();
            self.node_proc = vec![u32::MAX; nn];
            let cores = model.topo.cores();
            for (p, s) in model.placement.iter().enumerate() {
                if let Some(s) = s {
                    let v = *s as usize / cores;
                    if v < nn && self.node_proc[v] == u32::MAX {
                        self.node_proc[v] = p as u32;
                    }
                }
            }
        }
        // The evaluation changes with the placement and the routing, both of
        // which bump the placement's generation.
        let sk = (
            model.placement.generation(),
            model.topo.generation(),
            self.by_flows,
        );
        if self.stats_key != sk {
            self.stats_key = sk;
            self.stats = LinkStats::compute(&self.geom.links, model.eval.as_ref(), self.by_flows);
        }
        let rk = (
            model.selected,
            model.placement.generation(),
            model.topo.generation(),
        );
        if self.route_key != rk {
            self.route_key = rk;
            self.route_channels = vec![false; model.topo.channel_slots()];
            self.partner_nodes.clear();
            if let Some(p) = model.selected.filter(|&p| p < model.graph.n())
                && let Some(np) = model.node_of(p)
            {
                let g = &model.graph;
                for (v, s, _) in g.edges_of(p) {
                    let Some(nv) = model.node_of(v) else { continue };
                    self.partner_nodes.push(nv);
                    let back = g.sent_between(v, p);
                    let chans = &mut self.route_channels;
                    if s > 0.0 {
                        model
                            .routing
                            .route(&model.topo, np, nv, s, &mut |ch, _| chans[ch] = true);
                    }
                    if back > 0.0 {
                        model
                            .routing
                            .route(&model.topo, nv, np, back, &mut |ch, _| chans[ch] = true);
                    }
                }
            }
        }
    }

    /// `X link (3, 4, 5) -> (4, 4, 5)`.
    pub fn link_name(&self, model: &Model, i: usize) -> String {
        let Some(l) = self.geom.links.get(i) else {
            return String::new();
        };
        if let Some(f) = model.topo.as_fabric() {
            return fabric::link_name(f, l, self.fab.prep.as_deref());
        }
        let axis = if self.geom.dims.is_empty() {
            ""
        } else {
            ["X ", "Y ", "Z ", "W ", "V ", "U "][l.dim as usize % 6]
        };
        format!(
            "{axis}{}{} -> {}{}{}",
            l.a,
            coord_text(model, l.a as usize),
            l.b,
            coord_text(model, l.b as usize),
            if l.wrap { " (wrap)" } else { "" }
        )
    }

    fn value_text(&self, v: f64) -> String {
        if self.by_flows {
            format!("{v:.0} flows")
        } else {
            fmt_bytes(v)
        }
    }

    fn toolbar(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_wrapped(|ui| {
            ui.strong("Network");
            if self.geom.three_dims {
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
            let total = self.geom.links.len();
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
                let t = self.stats.threshold(LinkFilter::TopPercent(1.0), false);
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
                    let hi = self.stats.maxv.max(1.0);
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
            let own = self.stats.maxv;
            self.scale.ui(ui, self.by_flows, own);
        });
    }

    /// The hottest links; a click selects and frames one.
    fn hottest_ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        let hot: Vec<u32> = self.stats.hottest(HOTTEST_ROWS).to_vec();
        egui::CollapsingHeader::new(format!("Hottest links ({} used)", self.stats.used))
            .id_salt("hottest_links")
            .default_open(true)
            .show(ui, |ui| {
                if hot.is_empty() {
                    ui.weak("no traffic crosses the network");
                    return;
                }
                egui::ScrollArea::vertical()
                    .max_height(96.0)
                    .id_salt("hottest_scroll")
                    .show(ui, |ui| {
                        for (rank, &i) in hot.iter().enumerate() {
                            let i = i as usize;
                            let text = format!(
                                "#{} {}  {}",
                                rank + 1,
                                self.value_text(self.stats.vals[i]),
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
        self.draw(ui, model, colors, colors_gen, None, None);
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
        self.draw(ui, model, colors, colors_gen, Some(sync), delta);
        std::mem::swap(&mut self.cam, &mut sync.cam);
    }

    /// This view's own colour range `(threshold, busiest)` for `model` under
    /// `sync`'s settings, drawn in `rect` (what a shared scale is made of).
    pub fn link_range(&mut self, model: &Model, sync: &ViewSync, rect: Rect) -> (f64, f64) {
        self.by_flows = sync.by_flows;
        self.ensure(model);
        let resolved = geometry::choose_mode(sync.mode, &self.geom, rect);
        let projected = resolved == Resolved::Projection;
        (
            self.stats.threshold(sync.filter, projected),
            self.stats.maxv,
        )
    }

    fn draw(
        &mut self,
        ui: &mut egui::Ui,
        model: &mut Model,
        colors: &[Color32],
        colors_gen: u64,
        mut sync: Option<&mut ViewSync>,
        delta: Option<&LinkDelta>,
    ) {
        let synced = sync.is_some();
        self.ensure(model);
        if !synced {
            self.toolbar(ui);
            self.hottest_ui(ui, model);
        }
        if model.topo.as_fabric().is_some() {
            self.fabric_ui(ui, model, colors, colors_gen, sync, delta);
            return;
        }
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let full = resp.rect;
        painter.rect_filled(full, 4.0, Color32::from_gray(14));
        let legend_h = if synced { 0.0 } else { legend::HEIGHT };
        let rect = Rect::from_min_max(full.min, pos2(full.max.x, full.max.y - legend_h));
        let painter = painter.with_clip_rect(full);
        if self.geom.world.is_empty() {
            return;
        }
        let resolved = geometry::choose_mode(self.mode, &self.geom, rect);
        if resolved != self.resolved {
            // Another drawing: start from its whole picture.
            self.resolved = resolved;
            self.reset_camera();
        }
        if let Some(i) = self.frame_request.take()
            && let Some(p) = self.geom.link_mid(i)
        {
            geometry::frame_point(resolved, &self.geom, rect, &mut self.cam, p);
        }
        let three = resolved == Resolved::ThreeD;
        input::camera(ui, &resp, rect, three, &mut self.cam);
        let proj = Projector::new(resolved, &self.geom, rect, &mut self.cam);

        // Meshes: rebuilt only when something that shapes them changed.
        let projected = resolved == Resolved::Projection;
        let (threshold, maxv) = match sync.as_ref().and_then(|s| s.scale) {
            Some(r) => r,
            None => match self.locked_range_at(projected).filter(|_| !synced) {
                Some(r) => r,
                None => (
                    self.stats.threshold(self.filter, projected),
                    self.stats.maxv,
                ),
            },
        };
        let delta = delta.filter(|d| d.vals.len() == self.geom.links.len());
        let ghost: u8 = if !self.ghosts {
            0
        } else if self.geom.links.len() > 20_000 {
            14
        } else {
            40
        };
        let mut key = vec![
            rect.min.x.to_bits() as u64 | (rect.min.y.to_bits() as u64) << 32,
            rect.max.x.to_bits() as u64 | (rect.max.y.to_bits() as u64) << 32,
            resolved as u64 | (self.by_flows as u64) << 8 | (ghost as u64) << 16,
            threshold.to_bits(),
            model.placement.generation(),
            model.topo.generation(),
            colors_gen,
            maxv.to_bits(),
            delta.map_or(u64::MAX, |d| d.generation),
        ];
        key.extend(self.cam.key());
        if self.drawn.as_ref().is_none_or(|d| d.key != key) {
            self.rebuilds += 1;
            let scene = Scene {
                geom: &self.geom,
                proj: &proj,
                resolved,
                stats: &self.stats,
                threshold,
                maxv,
                delta: delta.map(|d| (&d.vals[..], d.max_abs)),
                ghost,
                node_proc: &self.node_proc,
                colors,
                clip: full,
            };
            self.drawn = Some(paint::build(&scene, key));
        }
        let Some(drawn) = self.drawn.as_ref() else {
            return;
        };
        painter.add(Shape::mesh(drawn.links.clone()));
        self.paint_routes(&painter, drawn, model);
        painter.add(Shape::mesh(drawn.nodes.clone()));
        self.paint_selection(&painter, drawn, &proj, model);
        self.paint_selected_link(&painter, drawn, &proj);
        paint_last_placement(&painter, drawn, &proj, model, three);
        paint_step_processes(&painter, drawn, model, three);
        parts_overlay::paint(&painter, &proj, &self.geom, model);
        if let Some(d) = delta {
            self.paint_moved(&painter, drawn, three, d);
        }
        if let Some(h) = sync.as_ref().and_then(|s| s.hover) {
            self.paint_hover(&painter, drawn, &proj, h);
        }

        // Hover and click.
        let hover = resp.hover_pos().filter(|p| rect.contains(*p));
        let picked = hover.and_then(|p| input::pick(drawn, three, p));
        if let Some(s) = sync.as_deref_mut() {
            s.publish_hover(picked);
        }
        let hover_text = picked.map(|k| match k {
            Picked::Node(v) => self.node_text(model, v),
            Picked::Link(i) => self.link_text(model, i),
        });
        if resp.clicked() {
            match picked {
                Some(Picked::Node(v)) => {
                    let p = self.node_proc[v];
                    model.selected = (p != u32::MAX).then_some(p as usize);
                    if let Some(s) = sync.as_deref_mut() {
                        s.clicked = Some(model.selected);
                    }
                }
                Some(Picked::Link(i)) => self.selected_link = Some(i),
                None => {
                    model.selected = None;
                    self.selected_link = None;
                    if let Some(s) = sync {
                        s.clicked = Some(None);
                    }
                }
            }
        }
        if let Some(t) = hover_text {
            resp.on_hover_text_at_pointer(t);
        }

        // Slice labels.
        if resolved == Resolved::Slices {
            let zs = self.geom.dims.get(2).copied().unwrap_or(1) as usize;
            let (lo, unit) = (self.geom.lo, drawn.screen[0].1);
            for z in 0..zs {
                let p = proj.at(Vec3::new(lo.x, lo.y, z as f32)).0;
                painter.text(
                    p - vec2(0.0, 6.0 + unit * 0.3),
                    egui::Align2::LEFT_BOTTOM,
                    format!("z = {z}"),
                    egui::FontId::proportional(11.0),
                    Color32::from_gray(160),
                );
            }
        }

        if synced {
            return;
        }
        let filter = self
            .filter
            .resolve(self.geom.links.len(), self.stats.used, projected);
        let auto_note = match (self.mode, resolved) {
            (ViewMode::Auto, Resolved::Projection) => {
                Some("Auto: 3D and Z slices would be a solid block here")
            }
            (ViewMode::Auto, Resolved::Slices) => {
                Some("Auto: 3D would hide the inside of the block")
            }
            _ => None,
        };
        let l = self.legend(
            (threshold, maxv),
            filter,
            (resolved, self.geom.any_wrap),
            auto_note,
        );
        legend::draw(&painter, full, &l);
    }

    /// The node or link hovered in any synced view: a cyan ring or outline
    /// with this view's process there or this view's load on the link.
    fn paint_hover(&self, painter: &egui::Painter, drawn: &Drawn, proj: &Projector, h: Picked) {
        let cyan = Color32::from_rgb(80, 230, 255);
        let font = egui::FontId::proportional(12.0);
        match h {
            Picked::Node(v) if v < drawn.screen.len() => {
                let (p, unit) = drawn.screen[v];
                let r = node_radius(proj.is_3d(), unit);
                painter.circle_stroke(p, r + 4.0, Stroke::new(2.0, cyan));
                let pr = self.node_proc.get(v).copied().unwrap_or(u32::MAX);
                let t = if pr == u32::MAX {
                    format!("node {v}: empty")
                } else {
                    format!("node {v}: p{pr}")
                };
                painter.text(
                    p + vec2(r + 6.0, -6.0),
                    egui::Align2::LEFT_BOTTOM,
                    t,
                    font,
                    cyan,
                );
            }
            Picked::Link(i) => {
                let Some(l) = self.geom.links.get(i) else {
                    return;
                };
                let (pa, pb) = (
                    proj.at(self.geom.world[l.a as usize]).0,
                    proj.at(self.geom.world[l.b as usize]).0,
                );
                let pb = if l.wrap || (self.resolved == Resolved::Projection && l.dim == 2) {
                    pa
                } else {
                    pb
                };
                painter.line_segment([pa, pb], Stroke::new(6.0, cyan.gamma_multiply(0.6)));
                let mid = pa + (pb - pa) * 0.5;
                painter.circle_stroke(mid, 8.0, Stroke::new(2.0, cyan));
                painter.text(
                    mid + vec2(10.0, -8.0),
                    egui::Align2::LEFT_BOTTOM,
                    self.value_text(self.stats.vals.get(i).copied().unwrap_or(0.0)),
                    font,
                    cyan,
                );
            }
            _ => {}
        }
    }

    /// Difference view: a ring on every node that holds a moved process.
    fn paint_moved(&self, painter: &egui::Painter, drawn: &Drawn, three: bool, d: &LinkDelta) {
        let col = Color32::from_rgb(255, 200, 40);
        for &v in d.moved_nodes.iter().take(20_000) {
            if let Some(&(p, unit)) = drawn.screen.get(v as usize) {
                let r = node_radius(three, unit);
                painter.circle_stroke(p, r + 1.5, Stroke::new(1.5, col));
            }
        }
    }

    fn paint_routes(&self, painter: &egui::Painter, drawn: &Drawn, model: &Model) {
        if model.selected.is_none() {
            return;
        }
        let on = |ch: u32| {
            self.route_channels
                .get(ch as usize)
                .copied()
                .unwrap_or(false)
        };
        for &(i, p0, p1) in &drawn.segs {
            let l = &self.geom.links[i];
            if on(l.fwd) || on(l.back) {
                painter.line_segment([p0, p1], Stroke::new(3.0, Color32::WHITE));
            }
        }
    }

    fn paint_selection(
        &self,
        painter: &egui::Painter,
        drawn: &Drawn,
        proj: &Projector,
        model: &Model,
    ) {
        let three = proj.is_3d();
        let r_of = |v: usize| node_radius(three, drawn.screen[v].1);
        if let Some(sel) = model.selected
            && let Some(nsel) = model.node_of(sel)
            && nsel < drawn.screen.len()
        {
            for &v in &self.partner_nodes {
                if v < drawn.screen.len() {
                    painter.circle_stroke(
                        drawn.screen[v].0,
                        r_of(v) + 2.0,
                        Stroke::new(1.5, Color32::WHITE),
                    );
                }
            }
            painter.circle_stroke(
                drawn.screen[nsel].0,
                r_of(nsel) + 4.0,
                Stroke::new(2.5, Color32::from_rgb(255, 80, 200)),
            );
        }
    }

    /// The selected link: a white outline with a magenta core and its value.
    fn paint_selected_link(&self, painter: &egui::Painter, drawn: &Drawn, proj: &Projector) {
        let Some(i) = self.selected_link else { return };
        let Some(l) = self.geom.links.get(i) else {
            return;
        };
        let mag = Color32::from_rgb(255, 60, 220);
        let (pa, pb) = (
            proj.at(self.geom.world[l.a as usize]).0,
            proj.at(self.geom.world[l.b as usize]).0,
        );
        let (p0, p1) = if self.resolved == Resolved::Projection && l.dim == 2 {
            // A Z link in the projection: its column's square.
            let r = drawn.screen[l.a as usize].1 * 0.35 + 3.0;
            painter.rect_stroke(
                Rect::from_center_size(pa, egui::Vec2::splat(2.0 * r)),
                0.0,
                Stroke::new(2.5, mag),
                egui::StrokeKind::Outside,
            );
            (pa, pa)
        } else if l.wrap {
            (pa, pa)
        } else {
            painter.line_segment([pa, pb], Stroke::new(7.0, Color32::WHITE));
            painter.line_segment([pa, pb], Stroke::new(3.5, mag));
            (pa, pb)
        };
        let mid = p0 + (p1 - p0) * 0.5;
        painter.circle_stroke(mid, 9.0, Stroke::new(2.0, mag));
        painter.text(
            mid + vec2(12.0, -10.0),
            egui::Align2::LEFT_BOTTOM,
            self.value_text(self.stats.vals.get(i).copied().unwrap_or(0.0)),
            egui::FontId::proportional(13.0),
            Color32::WHITE,
        );
    }

    fn node_text(&self, model: &Model, v: usize) -> String {
        let procs: Vec<String> = model
            .placement
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some_and(|s| s as usize / model.topo.cores() == v))
            .map(|(p, _)| p.to_string())
            .take(16)
            .collect();
        format!(
            "node {v}{}\n{}",
            coord_text(model, v),
            match procs.len() {
                0 => "no process".to_string(),
                1 => format!("process {}", procs[0]),
                _ => format!("processes {}", procs.join(", ")),
            }
        )
    }

    fn link_text(&self, model: &Model, i: usize) -> String {
        let l = self.geom.links[i];
        let (lf, ff, lb, fb) = match &model.eval {
            Some(e) => {
                let (lf, ff) = e.links.get(l.fwd as usize);
                let (lb, fb) = e.links.get(l.back as usize);
                (lf, ff, lb, fb)
            }
            None => (0.0, 0, 0.0, 0),
        };
        let rank = self.stats.order.iter().position(|&k| k as usize == i);
        format!(
            "{}{}\n{} -> {}: {} in {ff} flows\n{} -> {}: {} in {fb} flows",
            self.link_name(model, i),
            match rank {
                Some(r) if self.stats.vals[i] > 0.0 => {
                    format!("\nrank {} of {} used links", r + 1, self.stats.used)
                }
                _ => "\nunused".to_string(),
            },
            l.a,
            l.b,
            fmt_bytes(lf),
            l.b,
            l.a,
            fmt_bytes(lb),
        )
    }
}

/// The processes of the step shown (guided log) on their nodes: a magenta
/// ring per node, and a dashed line between the two nodes of each exchange.
/// O(processes of the step), capped by [`super::guided_log::MAX_RINGED`].
fn paint_step_processes(painter: &egui::Painter, drawn: &Drawn, model: &Model, three: bool) {
    let procs = super::guided_log::step_processes(model);
    if procs.is_empty() {
        return;
    }
    let mag = Color32::from_rgb(255, 60, 220);
    let at = |p: usize| {
        model
            .node_of(p)
            .filter(|&v| v < drawn.screen.len())
            .map(|v| drawn.screen[v])
    };
    if let Some(hopmap_core::mappers::StepEvent::Swaps { swapped, .. }) = model.run.last_event() {
        for &(p, q) in swapped.iter().take(super::guided_log::MAX_RINGED) {
            if let (Some((a, _)), Some((b, _))) = (at(p), at(q))
                && p != q
            {
                painter.add(Shape::dashed_line(&[a, b], Stroke::new(1.5, mag), 4.0, 3.0));
            }
        }
    }
    for p in procs {
        if let Some((pos, unit)) = at(p) {
            painter.circle_stroke(pos, node_radius(three, unit) + 4.0, Stroke::new(2.0, mag));
        }
    }
}

/// The last placement of a stepping mapper: a cross where it wanted to go,
/// a dashed line to the node chosen, a ring and the process id there.
fn paint_last_placement(
    painter: &egui::Painter,
    drawn: &Drawn,
    proj: &Projector,
    model: &Model,
    three: bool,
) {
    let Some(hopmap_core::mappers::StepEvent::Placed {
        desired,
        slot,
        process,
    }) = model.run.last_event()
    else {
        return;
    };
    let node = *slot / model.topo.cores();
    if node >= drawn.screen.len() {
        return;
    }
    let mut w = Vec3::ZERO;
    for (d, &x) in desired.iter().enumerate().take(3) {
        w[d] = x as f32;
    }
    let (pd, _) = proj.at(w);
    let (pn, unit) = drawn.screen[node];
    let r = node_radius(three, unit);
    let mag = Color32::from_rgb(255, 60, 220);
    painter.add(Shape::dashed_line(
        &[pd, pn],
        Stroke::new(1.5, mag),
        4.0,
        3.0,
    ));
    let k = 6.0;
    painter.line_segment([pd - vec2(k, k), pd + vec2(k, k)], Stroke::new(2.5, mag));
    painter.line_segment([pd - vec2(k, -k), pd + vec2(k, -k)], Stroke::new(2.5, mag));
    painter.circle_stroke(pn, r + 5.0, Stroke::new(2.5, Color32::WHITE));
    painter.text(
        pn + vec2(r + 8.0, -8.0),
        egui::Align2::LEFT_BOTTOM,
        format!("p{process}"),
        egui::FontId::proportional(13.0),
        Color32::WHITE,
    );
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

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::graph::CommGraph;
    use hopmap_core::topology::Topology;

    #[test]
    fn links_cover_every_physical_link_once() {
        for spec in ["torus:4x4x4", "mesh:3x5", "torus:2x3", "torus:8"] {
            let t = Topology::parse(spec).unwrap();
            let m = Model::new(CommGraph::empty(2), "e", t.clone());
            let mut v = NetworkView::new(ViewMode::Auto, false);
            v.ensure(&m);
            assert_eq!(v.links().len(), t.links().len(), "{spec}");
            for l in v.links() {
                assert_eq!(
                    t.channel_ends(l.fwd as usize),
                    Some((l.a as usize, l.b as usize))
                );
                assert_eq!(
                    t.channel_ends(l.back as usize),
                    Some((l.b as usize, l.a as usize))
                );
            }
            let wraps = v.links().iter().filter(|l| l.wrap).count();
            let want = match spec {
                "torus:4x4x4" => 3 * 16,
                "torus:8" => 1,
                "torus:2x3" => 2,
                _ => 0,
            };
            assert_eq!(wraps, want, "{spec}");
        }
    }
}
