//! The communication graph view: processes as dots, communicating pairs as
//! lines whose width and opacity grow with their bytes. Positions come from
//! the gravitational layout ([`hopmap_core::layout::Layout`], Bobrik & Popova),
//! which runs live from the moment a graph is loaded (Play/Pause/Step,
//! restart from a random or circle start, sliders for its coefficients) on a
//! worker thread ([`crate::layout_worker`]; the view takes its newest
//! snapshot once per frame, O(1), and draws it), or
//! from the graph's own coordinates (3D ones in an oblique projection).
//! When the layout stops, its clusters ([`mod@hopmap_core::layout::clusters`]) become
//! the "cluster" colouring. Nodes are coloured by the app's colour mode; hover shows the
//! process, its degree and bytes; click selects it (its partners light up in
//! both views); drag a node to pin it; drag the background to pan; the wheel
//! zooms; "Fit" frames everything.
//!
//! Structure of a frame: `toolbar`, then `input` (pick, drag, pan, zoom),
//! `rebuild_meshes` (the geometry cache), `paint`, `legend`, and the hover
//! card.
//!
//! Drawing cost: one [`egui::Mesh`] for all edges (a quad each) and, past
//! 3000 processes, one for all nodes, rebuilt only when the view, the
//! positions or the colours change. With more than [`MAX_EDGES`] pairs only
//! the heaviest are drawn (threshold computed once per graph, O(m)); pairs
//! tied at the threshold are thinned by a fixed hash so that exactly about
//! [`MAX_EDGES`] remain.

use super::Model;
use super::draw::{add_large_mesh, add_rings, add_segment};
use super::view::View;
use crate::layout_worker::{LayoutCommand, LayoutSnapshot, LayoutWorker};
use egui::{Color32, Mesh, Pos2, Rect, Sense, Stroke, Vec2, vec2};
use hopmap_core::layout::{Init, Layout, LayoutParams};
use hopmap_core::step::{StepState, Stop};
use hopmap_core::units::fmt_bytes;
use std::sync::Arc;

/// Most pairs drawn; lighter ones are left out.
pub const MAX_EDGES: usize = 20_000;

pub struct GraphView {
    /// Layout-space positions (shared with the layout's last snapshot).
    pub pos: Arc<[Vec2]>,
    /// The gravity layout, stepped on its worker.
    pub layout: Option<LayoutWorker>,
    /// The layout's last snapshot (positions, status line).
    snap: Option<LayoutSnapshot>,
    /// The layout should advance (sent to the worker when it changes).
    pub playing: bool,
    /// What the worker was last told: play (true) or pause.
    sent_playing: bool,
    /// Show the graph's own coordinates instead of the layout.
    pub use_coords: bool,
    pub params: LayoutParams,
    /// Keep the whole graph framed while the layout moves.
    auto_fit: bool,
    clusters_done: bool,
    pub pinned: Vec<bool>,
    key: u64,
    bounds: Rect,
    /// Zoom relative to "fit", and pan in screen points.
    zoom: f32,
    pan: Vec2,
    /// Lightest pair volume drawn, and the heaviest.
    min_drawn: f64,
    /// Among pairs whose volume equals `min_drawn`: keep those whose hash
    /// modulo `.1` is below `.0` (both 0 = keep all).
    tie_keep: (u64, u64),
    max_vol: f64,
    dragging: Option<usize>,
    /// Bumped whenever `pos` changes.
    pos_version: u64,
    /// How many times the meshes were rebuilt (benches check the cache).
    pub rebuilds: u64,
    /// Last meshes: (key, edges, nodes).
    drawn: Option<([u64; 8], Arc<Mesh>, Arc<Mesh>)>,
    /// Median length of a sample of edges, in layout units (sets the dot size).
    edge_len: f32,
}

impl Default for GraphView {
    fn default() -> Self {
        GraphView {
            pos: Arc::new([]),
            layout: None,
            snap: None,
            playing: true,
            sent_playing: false,
            use_coords: false,
            params: LayoutParams::default(),
            auto_fit: true,
            clusters_done: false,
            pinned: Vec::new(),
            key: 0,
            bounds: Rect::from_min_max(egui::Pos2::ZERO, egui::pos2(1.0, 1.0)),
            zoom: 1.0,
            pan: Vec2::ZERO,
            min_drawn: 0.0,
            tie_keep: (0, 0),
            max_vol: 0.0,
            dragging: None,
            edge_len: 1.0,
            pos_version: 0,
            rebuilds: 0,
            drawn: None,
        }
    }
}

impl GraphView {
    /// The model's graph generation the view last set itself up for.
    pub fn graph_key(&self) -> u64 {
        self.key
    }

    /// Whether the layout is stepping on its worker (its snapshots request
    /// the repaints; headless screenshots wait for it to stop).
    pub fn animating(&self) -> bool {
        self.playing && self.layout.is_some() && !self.use_coords
    }

    /// Take the layout's newest snapshot (also when the view is not shown)
    /// and say whether its worker still steps. O(1).
    pub fn poll_layout(&mut self, model: &mut Model) -> bool {
        if self.sent_playing {
            self.advance(model);
        }
        self.animating() && self.sent_playing
    }

    /// The view is not drawn this frame: pause the layout's worker (the
    /// next frame that draws the view resumes it if `playing`).
    pub fn hidden(&mut self) {
        if self.sent_playing
            && let Some(w) = &self.layout
        {
            w.commands.send(LayoutCommand::Play(false));
            self.sent_playing = false;
        }
    }

    /// (Re)start the layout from the current parameters.
    pub fn restart_layout(&mut self, model: &mut Model) {
        match self.start(model) {
            Ok(()) => self.pinned.iter_mut().for_each(|p| *p = false),
            Err(e) => model.error = Some(e.to_string()),
        }
    }

    /// Check the parameters, then hand the layout to a new worker (the old
    /// one stops), which builds it and plays it; the positions shown stay
    /// until its first snapshot.
    fn start(&mut self, model: &Model) -> hopmap_core::Result<()> {
        let g = Arc::clone(&model.graph);
        Layout::check(g.n(), &self.params)?;
        let params = self.params.clone();
        let w = LayoutWorker::build(move || Layout::new(&g, params), model.waker.clone());
        self.snap = None;
        self.layout = Some(w);
        // Playing from the next `advance`, framed, clusters to come.
        (self.playing, self.sent_playing, self.use_coords) = (true, false, false);
        (self.auto_fit, self.clusters_done) = (true, false);
        self.pull_positions();
        Ok(())
    }

    /// The last snapshot's positions (O(1): they are shared).
    fn pull_positions(&mut self) {
        self.pos_version += 1;
        if let Some(s) = &self.snap {
            self.pos = s.positions.clone();
            if self.auto_fit {
                self.bounds = s.bounds;
            }
        }
    }

    fn coords_positions(&mut self, model: &Model) {
        let g = &model.graph;
        let n = g.n();
        self.pos = match g.coords() {
            Some(c) if c.dim >= 3 => c
                .xyz
                .iter()
                .map(|p| vec2((p[0] + 0.55 * p[2]) as f32, (p[1] + 0.3 * p[2]) as f32))
                .collect(),
            Some(c) => c
                .xyz
                .iter()
                .map(|p| vec2(p[0] as f32, p[1] as f32))
                .collect(),
            None => (0..n)
                .map(|i| {
                    let a = i as f32 / n.max(1) as f32 * std::f32::consts::TAU;
                    vec2(a.cos(), a.sin()) * (n as f32).sqrt().max(1.0)
                })
                .collect(),
        };
        self.update_bounds();
    }

    /// Tell the worker to play or pause when `playing` changed, and take
    /// its newest snapshot; on stopping, publish its clusters.
    fn advance(&mut self, model: &mut Model) {
        let Some(w) = self.layout.as_mut() else {
            return;
        };
        let play = self.playing && !self.use_coords;
        if play != self.sent_playing {
            w.commands.send(LayoutCommand::Play(play));
            self.sent_playing = play;
        }
        let Some(s) = w.take() else {
            return;
        };
        let stopped = !s.playing && s.state != StepState::Running;
        if stopped && self.sent_playing && w.commands.answered(s.commands_read) {
            // The worker paused itself.
            self.playing = false;
            self.sent_playing = false;
        }
        if !self.clusters_done
            && let Some((c, k)) = &s.clusters
            && c.len() == model.graph.n()
        {
            model.set_layout_clusters(c.to_vec(), *k);
            self.clusters_done = true;
        }
        self.snap = Some(s);
        if !self.use_coords {
            self.pull_positions();
        }
    }

    fn ensure(&mut self, model: &Model) {
        if self.pos.len() != model.graph.n() {
            self.key = 0;
        }
        if self.key == model.graph.generation() {
            return;
        }
        self.key = model.graph.generation();
        let g = &model.graph;
        let n = g.n();
        self.coords_positions(model);
        self.layout = None;
        self.snap = None;
        self.params.seed = 1;
        if self.start(model).is_err() {
            self.use_coords = true;
        }
        self.pinned = vec![false; n];
        self.zoom = 1.0;
        self.pan = Vec2::ZERO;
        // Edge threshold: keep the MAX_EDGES heaviest pairs.
        let mut vols: Vec<f64> = g.pairs().map(|(_, _, c)| c).collect();
        self.max_vol = vols.iter().cloned().fold(0.0, f64::max);
        self.min_drawn = if vols.len() > MAX_EDGES {
            let k = vols.len() - MAX_EDGES;
            vols.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
            vols[k]
        } else {
            0.0
        };
        self.tie_keep = (0, 0);
        if self.min_drawn > 0.0 {
            let above = vols.iter().filter(|&&v| v > self.min_drawn).count();
            let ties = vols.iter().filter(|&&v| v == self.min_drawn).count();
            if above + ties > MAX_EDGES && ties > 0 {
                self.tie_keep = ((MAX_EDGES - above.min(MAX_EDGES)) as u64, ties as u64);
            }
        }
    }

    /// Median edge length over at most 2000 pairs.
    fn measure_edges(&mut self, model: &Model) {
        let g = &model.graph;
        let mut l: Vec<f32> = Vec::new();
        let n = g.n();
        let step = (n / 2000).max(1);
        for u in (0..n).step_by(step) {
            if let Some(&v) = g.neighbors(u).first()
                && (v as usize) < self.pos.len()
                && u < self.pos.len()
            {
                l.push((self.pos[u] - self.pos[v as usize]).length());
            }
        }
        l.sort_by(|a, b| a.total_cmp(b));
        self.edge_len = l
            .get(l.len() / 2)
            .copied()
            .filter(|x| *x > 0.0)
            .unwrap_or_else(|| {
                (self.bounds.width().max(self.bounds.height()) / (n as f32).sqrt().max(1.0))
                    .max(1e-3)
            });
    }

    fn update_bounds(&mut self) {
        self.pos_version += 1;
        let mut r = Rect::NOTHING;
        for p in self.pos.iter() {
            r.extend_with(p.to_pos2());
        }
        if !r.is_positive() {
            r = r.expand(1.0);
        }
        self.bounds = r;
    }

    pub fn fit(&mut self) {
        self.update_bounds();
        self.zoom = 1.0;
        self.pan = Vec2::ZERO;
        self.auto_fit = true;
    }

    /// Buttons (Fit, Play/Pause, Step, Restart, coordinates, Unpin), the
    /// layout's parameters and its status line.
    fn toolbar(&mut self, ui: &mut egui::Ui, model: &mut Model) {
        ui.horizontal_wrapped(|ui| {
            ui.strong("Communication graph");
            if ui
                .button("Fit")
                .on_hover_text("Frame the whole graph")
                .clicked()
            {
                self.fit();
            }
            let has_layout = self.layout.is_some() && !self.use_coords;
            let label = if self.playing {
                "Pause layout"
            } else {
                "Play layout"
            };
            if ui
                .add_enabled(has_layout, egui::Button::new(label))
                .on_hover_text("Run the gravitational layout live (Bobrik & Popova §4)")
                .clicked()
            {
                self.playing = !self.playing;
            }
            if ui
                .add_enabled(has_layout, egui::Button::new("Step layout"))
                .on_hover_text("One iteration")
                .clicked()
                && let Some(w) = self.layout.as_ref()
            {
                self.playing = false;
                self.sent_playing = false;
                w.commands.send(LayoutCommand::Step);
            }
            ui.menu_button("Restart…", |ui| {
                if ui.button("from random positions").clicked() {
                    self.params.init = Init::Random;
                    self.restart_layout(model);
                    ui.close();
                }
                if ui.button("from a circle").clicked() {
                    self.params.init = Init::Circle;
                    self.restart_layout(model);
                    ui.close();
                }
            });
            if model.graph.coords().is_some()
                && ui
                    .selectable_label(self.use_coords, "coordinates")
                    .on_hover_text("Show the graph's own coordinates instead of the layout")
                    .clicked()
            {
                self.use_coords = !self.use_coords;
                if self.use_coords {
                    self.coords_positions(model);
                } else {
                    self.pull_positions();
                    self.update_bounds();
                }
            }
            let pinned = self.pinned.iter().filter(|&&p| p).count();
            if pinned > 0 && ui.button(format!("Unpin {pinned}")).clicked() {
                for (i, p) in self.pinned.iter_mut().enumerate() {
                    if *p && let Some(w) = self.layout.as_ref() {
                        w.commands.send(LayoutCommand::Unpin(i));
                    }
                    *p = false;
                }
                self.playing = self.layout.is_some();
            }
        });
        ui.collapsing("Layout parameters", |ui| {
            let p = &mut self.params;
            let mut changed = false;
            changed |= ui
                .add(egui::Slider::new(&mut p.c_att, 0.0..=10.0).text("attraction c_att"))
                .changed();
            changed |= ui
                .add(
                    egui::Slider::new(&mut p.c_rep, 0.01..=10.0)
                        .logarithmic(true)
                        .text("repulsion c_rep"),
                )
                .changed();
            changed |= ui
                .add(egui::Slider::new(&mut p.rep_power, 0.5..=4.0).text("repulsion power p"))
                .changed();
            changed |= weak_cut_ui(ui, &mut p.weak_cut);
            ui.add(
                egui::Slider::new(&mut p.max_iterations, 50..=5000)
                    .logarithmic(true)
                    .text("iterations"),
            );
            ui.horizontal(|ui| {
                ui.label("seed");
                ui.add(egui::DragValue::new(&mut p.seed));
                if ui.button("Apply & restart").clicked() {
                    changed = true;
                }
            });
            if changed {
                self.restart_layout(model);
            }
        });
        if let Some(l) = self.snap.as_ref().filter(|_| !self.use_coords) {
            let (lev, levels) = l.level;
            ui.weak(format!(
                "layout: iteration {}, level {} of {}, {}{}",
                l.iterations,
                levels - lev,
                levels,
                match l.state {
                    StepState::Running => "running",
                    StepState::Stopped(Stop::Converged) => "converged (§5 stopping rule)",
                    StepState::Stopped(Stop::IterationLimit) => "iteration limit",
                    StepState::Stopped(s) => s.describe(),
                },
                l.stop_value
                    .map(|v| format!(", stop value {v:.4}"))
                    .unwrap_or_default()
            ));
            if l.parts > 1 {
                ui.weak(format!(
                    "{} groups laid out apart and packed side by side: {}",
                    l.parts,
                    match self.params.weak_cut {
                        Some(t) => format!(
                            "components, or joined by at most {} % of their bytes",
                            t * 100.0
                        ),
                        None => "the connected components".into(),
                    }
                ));
            }
        }
    }

    /// Layout space → screen for this frame.
    fn transform(&self, rect: Rect) -> Xform {
        let b = self.bounds;
        let fit = ((rect.width() - 30.0) / b.width().max(1e-3))
            .min((rect.height() - 30.0) / b.height().max(1e-3))
            .max(1e-4);
        let scale = fit * self.zoom;
        let node_r = (self.edge_len * scale * 0.22).clamp(1.5, 7.0);
        Xform {
            rect,
            scale,
            centre: self.bounds.center().to_vec2(),
            origin: rect.center() + self.pan,
            node_r,
        }
    }

    /// The node within reach of screen point `p`.
    fn pick(&self, xf: &Xform, p: Pos2) -> Option<usize> {
        let mut best = None;
        let mut bd = (xf.node_r + 4.0).powi(2);
        for (i, &q) in self.pos.iter().enumerate() {
            let d = (xf.to_screen(q) - p).length_sq();
            if d < bd {
                bd = d;
                best = Some(i);
            }
        }
        best
    }

    /// Input: drag a node to pin it (the layout moves the rest), drag the
    /// background to pan, click to select, wheel to zoom about the pointer.
    /// Returns the hovered process.
    fn input(
        &mut self,
        ui: &egui::Ui,
        resp: &egui::Response,
        xf: &Xform,
        model: &mut Model,
    ) -> Option<usize> {
        let hover_pos = resp.hover_pos();
        let hovered = hover_pos.and_then(|p| self.pick(xf, p));
        if resp.drag_started() {
            self.dragging = resp.interact_pointer_pos().and_then(|p| self.pick(xf, p));
        }
        if resp.dragged() {
            match (self.dragging, resp.interact_pointer_pos()) {
                (Some(i), Some(p)) => {
                    let w = xf.to_world(p);
                    // O(n) while dragging only: the positions are shared.
                    let mut pos = self.pos.to_vec();
                    pos[i] = w;
                    self.pos = pos.into();
                    self.pos_version += 1;
                    self.pinned[i] = true;
                    if let Some(l) = self.layout.as_ref().filter(|_| !self.use_coords) {
                        l.commands.send(LayoutCommand::Pin(i, [w.x, w.y, 0.0]));
                        self.playing = true;
                    }
                }
                _ => {
                    self.pan += resp.drag_delta();
                    self.auto_fit = false;
                }
            }
        }
        if resp.drag_stopped() {
            self.dragging = None;
        }
        if resp.clicked() {
            model.selected = hovered;
        }
        if resp.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                let f = (scroll / 200.0).exp();
                if let Some(p) = hover_pos {
                    // Zoom around the pointer.
                    let before = p - xf.origin;
                    self.pan += before - before * f;
                }
                self.zoom = (self.zoom * f).clamp(0.05, 200.0);
                self.auto_fit = false;
            }
        }
        hovered
    }

    /// The geometry cache: edges (and, past 3000 processes, nodes) as
    /// meshes, rebuilt only when the view, the positions or the colours change.
    /// The edges do not depend on the colours: a new mapping (new colours)
    /// rebuilds the node mesh alone.
    fn rebuild_meshes(&mut self, xf: &Xform, model: &Model, colors: &[Color32], colors_gen: u64) {
        let n = model.graph.n();
        let rect = xf.rect;
        // The colours' generation last, so that the rest keys the edges.
        let key = [
            rect.min.x.to_bits() as u64 | (rect.min.y.to_bits() as u64) << 32,
            rect.max.x.to_bits() as u64 | (rect.max.y.to_bits() as u64) << 32,
            xf.scale.to_bits() as u64 | (xf.node_r.to_bits() as u64) << 32,
            xf.origin.x.to_bits() as u64 | (xf.origin.y.to_bits() as u64) << 32,
            xf.centre.x.to_bits() as u64 | (xf.centre.y.to_bits() as u64) << 32,
            self.pos_version,
            model.graph.generation(),
            colors_gen,
        ];
        if self.drawn.as_ref().is_some_and(|d| d.0 == key) {
            return;
        }
        self.rebuilds += 1;
        let old = self.drawn.take();
        let same_edges = old.as_ref().is_some_and(|d| d.0[..7] == key[..7]);
        let edges = match old {
            Some((_, e, _)) if same_edges => e,
            _ => Arc::new(self.edge_mesh(xf, model)),
        };
        let mut m = Mesh::default();
        if n > 3000 {
            for (&q, &c) in self.pos.iter().zip(colors).take(n) {
                let p = xf.to_screen(q);
                if rect.contains(p) {
                    m.add_colored_rect(Rect::from_center_size(p, Vec2::splat(xf.node_r * 2.0)), c);
                }
            }
        }
        self.drawn = Some((key, edges, Arc::new(m)));
    }

    /// The edges drawn (the heaviest pairs), width and opacity by volume.
    fn edge_mesh(&self, xf: &Xform, model: &Model) -> Mesh {
        let g = &model.graph;
        let n = g.n();
        let rect = xf.rect;
        let mut mesh = Mesh::default();
        let maxv = self.max_vol.max(1e-12);
        let many = g.num_edges() > 5000;
        for u in 0..n {
            let pu = xf.to_screen(self.pos[u]);
            for (&v, &s) in g.neighbors(u).iter().zip(g.sent_row(u)) {
                let v = v as usize;
                if v <= u {
                    continue;
                }
                let vol = s + g.sent_between(v, u);
                if vol < self.min_drawn {
                    continue;
                }
                if vol == self.min_drawn
                    && self.tie_keep.1 > 0
                    && pair_hash(u, v) % self.tie_keep.1 >= self.tie_keep.0
                {
                    continue;
                }
                let t = (vol / maxv).sqrt() as f32;
                let pv = xf.to_screen(self.pos[v]);
                if !rect.contains(pu) && !rect.contains(pv) {
                    continue;
                }
                let w = if many { 0.4 + 1.4 * t } else { 0.5 + 2.0 * t };
                let a = if many {
                    20.0 + 110.0 * t
                } else {
                    30.0 + 120.0 * t
                };
                add_segment(
                    &mut mesh,
                    pu,
                    pv,
                    w,
                    Color32::from_rgba_unmultiplied(170, 185, 210, a as u8),
                );
            }
        }
        mesh
    }

    /// Painting: edges, the selected process's pairs, nodes, pins, the
    /// stepping mapper's frontier and last placement, the selection.
    fn paint(&self, painter: &egui::Painter, xf: &Xform, model: &Model, colors: &[Color32]) {
        let g = &model.graph;
        let n = g.n();
        let node_r = xf.node_r;
        if let Some((_, edges, _)) = &self.drawn {
            add_large_mesh(painter, edges.clone(), 0);
        }
        // Selected process: its pairs on top.
        if let Some(sel) = model.selected.filter(|&s| s < n) {
            let ps = xf.to_screen(self.pos[sel]);
            for &v in g.neighbors(sel) {
                painter.line_segment(
                    [ps, xf.to_screen(self.pos[v as usize])],
                    Stroke::new(2.0, Color32::WHITE),
                );
            }
        }
        // Nodes.
        if n <= 3000 {
            for (&q, &c) in self.pos.iter().zip(colors).take(n) {
                painter.circle_filled(xf.to_screen(q), node_r, c);
            }
        } else if let Some((_, _, nodes)) = &self.drawn {
            add_large_mesh(painter, nodes.clone(), 1);
        }
        for (i, pinned) in self.pinned.iter().enumerate() {
            if *pinned {
                painter.circle_stroke(
                    xf.to_screen(self.pos[i]),
                    node_r + 2.0,
                    Stroke::new(1.5, Color32::YELLOW),
                );
            }
        }
        // Mapper state: frontier (orange rings), the process just placed (white ring).
        let frontier = model.run.frontier().iter().take(5000).filter(|&&f| f < n);
        add_rings(
            painter,
            frontier.map(|&f| (xf.to_screen(self.pos[f]), node_r + 2.5)),
            1.5,
            Color32::from_rgb(255, 160, 40),
            2,
        );
        if let Some(hopmap_core::mappers::StepEvent::Placed { process, .. }) =
            model.run.last_event()
            && *process < n
        {
            painter.circle_stroke(
                xf.to_screen(self.pos[*process]),
                node_r + 4.0,
                Stroke::new(2.5, Color32::WHITE),
            );
        }
        // The processes of the step shown (guided log): both of an
        // exchange, a bisection's part, an order's ranks (magenta rings).
        let step = super::guided_log::step_processes(model);
        add_rings(
            painter,
            step.iter()
                .map(|&p| (xf.to_screen(self.pos[p]), node_r + 4.0)),
            2.0,
            Color32::from_rgb(255, 60, 220),
            3,
        );
        if let Some(sel) = model.selected.filter(|&s| s < n) {
            painter.circle_stroke(
                xf.to_screen(self.pos[sel]),
                node_r + 3.0,
                Stroke::new(2.0, Color32::WHITE),
            );
        }
    }

    /// The legend line under the drawing.
    fn legend(&self, painter: &egui::Painter, rect: Rect, model: &Model) {
        let g = &model.graph;
        painter.text(
            rect.left_bottom() + vec2(6.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            format!(
                "{} processes, {} pairs{}  ·  width/opacity = bytes  ·  wheel zoom, drag pan, drag a dot to pin",
                g.n(),
                g.num_edges(),
                if self.min_drawn > 0.0 {
                    format!(" (about {MAX_EDGES} heaviest drawn)")
                } else {
                    String::new()
                }
            ),
            egui::FontId::proportional(11.0),
            Color32::from_gray(150),
        );
    }
}

/// Layout space → screen for one frame.
struct Xform {
    rect: Rect,
    scale: f32,
    /// Centre of the layout's bounds, in layout space.
    centre: Vec2,
    origin: Pos2,
    /// Radius of a node's dot.
    node_r: f32,
}

impl Xform {
    fn to_screen(&self, p: Vec2) -> Pos2 {
        self.origin + (p - self.centre) * self.scale
    }
    fn to_world(&self, s: Pos2) -> Vec2 {
        (s - self.origin) / self.scale + self.centre
    }
}

/// The hovered process: degree, bytes, network node.
fn hover_ui(resp: egui::Response, model: &Model, h: usize) {
    let g = &model.graph;
    let node = model.node_of(h);
    resp.on_hover_ui_at_pointer(|ui| {
        ui.strong(format!("process {h}"));
        ui.label(format!("degree {}", g.degree(h)));
        ui.label(format!(
            "sends {}, total with partners {}",
            fmt_bytes(g.sent_row(h).iter().sum()),
            fmt_bytes(g.weighted_degree(h))
        ));
        match node {
            Some(v) => ui.label(format!("on network node {v}{}", coord_text(model, v))),
            None => ui.label("not placed"),
        };
    });
}

/// A fixed hash of a pair, for thinning ties deterministically.
fn pair_hash(u: usize, v: usize) -> u64 {
    let x = (u as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (v as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (x ^ (x >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 7
}

/// ` (x, y, z)` for a grid node.
pub fn coord_text(model: &Model, node: usize) -> String {
    match model.topo.as_grid() {
        Some(g) => {
            let c = g.coord(node);
            let s: Vec<String> = (0..g.ndims()).map(|d| c[d].to_string()).collect();
            format!(" ({})", s.join(", "))
        }
        None => String::new(),
    }
}

impl View for GraphView {
    type Input<'a> = (&'a mut Model, &'a [Color32], u64);
    type Output = ();

    fn title(&self) -> &'static str {
        "Graph"
    }

    fn ui(
        &mut self,
        ui: &mut egui::Ui,
        (model, colors, colors_gen): Self::Input<'_>,
    ) -> Self::Output {
        self.ensure(model);
        self.advance(model);
        self.measure_edges(model);
        self.toolbar(ui, model);
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let rect = resp.rect;
        painter.rect_filled(rect, 4.0, Color32::from_gray(18));
        let n = model.graph.n();
        if n == 0 {
            return;
        }
        let xf = self.transform(rect);
        let hovered = self.input(ui, &resp, &xf, model);
        // The transform may have changed (pan, zoom, a dragged node).
        let xf = self.transform(rect);
        self.rebuild_meshes(&xf, model, colors, colors_gen);
        let painter = painter.with_clip_rect(rect);
        self.paint(&painter, &xf, model, colors);
        self.legend(&painter, rect, model);
        if let Some(h) = hovered {
            hover_ui(resp, model, h);
        }
    }
}

/// The weak-cut control of the layout parameters: whether groups joined by
/// at most a fraction of their bytes are laid out apart, and the fraction
/// (in %). Returns whether it changed.
fn weak_cut_ui(ui: &mut egui::Ui, weak_cut: &mut Option<f64>) -> bool {
    let mut on = weak_cut.is_some();
    let mut pct = weak_cut.unwrap_or(hopmap_core::layout::weak_parts::DEFAULT_WEAK_CUT) * 100.0;
    let mut changed = false;
    ui.horizontal(|ui| {
        changed |= ui
            .checkbox(&mut on, "lay out apart groups joined by at most")
            .on_hover_text(
                "Groups that send at most this share of their bytes to the rest are laid out \
                 on their own and packed side by side, as components are: otherwise their weak \
                 attraction leaves them so far apart that each shrinks to a dot.",
            )
            .changed();
        changed |= ui
            .add_enabled(
                on,
                egui::DragValue::new(&mut pct)
                    .range(0.0..=50.0)
                    .speed(0.1)
                    .suffix(" %"),
            )
            .changed();
        ui.label("of their bytes");
    });
    if changed {
        *weak_cut = on.then_some(pct / 100.0);
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::topology::Topology;
    use std::time::{Duration, Instant};

    /// The view only takes snapshots (`advance` sends Play and reads the
    /// newest one); the positions change because the worker steps.
    #[test]
    fn layout_moves_while_the_view_only_takes_snapshots() {
        let (g, name) = crate::data_panel::builtin_sample("stencil-3d").expect("sample");
        let mut model = Model::new(g, &name, Topology::parse("torus:8x8x8").expect("torus"));
        let mut view = GraphView::default();
        view.ensure(&model);
        // The worker builds the layout: no snapshot until it is built.
        let first = view.pos.clone();
        let t0 = Instant::now();
        while view.snap.as_ref().is_none_or(|s| s.iterations < 3)
            && t0.elapsed() < Duration::from_secs(20)
        {
            view.advance(&mut model);
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(view.snap.as_ref().is_some_and(|s| s.iterations >= 3));
        assert_ne!(first, view.pos);
        // Paused: no new snapshot arrives.
        view.playing = false;
        view.advance(&mut model);
        std::thread::sleep(Duration::from_millis(50));
        view.advance(&mut model);
        let its = view.snap.as_ref().map(|s| s.iterations);
        std::thread::sleep(Duration::from_millis(50));
        view.advance(&mut model);
        assert_eq!(view.snap.as_ref().map(|s| s.iterations), its);
    }
}
