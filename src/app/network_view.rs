//! The network view: the mesh/torus with the processes on their nodes and
//! the link-contention heatmap.
//!
//! * 2D: a 1D/2D network is drawn as a grid; a 3D network as its Z slices
//!   side by side (small multiples; the Z links are then in the 3D view).
//! * 3D: a perspective view with an orbit camera (glam): drag rotates, the
//!   wheel zooms.
//! * Torus wrap links are drawn as short stubs leaving the grid at both ends
//!   with a bar at their tip ("continues on the other side").
//! * Every link is coloured by the busier of its two directions, load in
//!   bytes or flow count, on viridis, with a legend; unused links are thin
//!   and grey. Hover a link for both directions' load and flows.
//! * Nodes take the colour of their (first) process; empty nodes are dim.
//!   Click a node to select its process: its partners get rings and the
//!   channels its messages cross (from [`crate::Routing::route`]) are drawn
//!   in white.
//! * While a mapper steps, the last placement is shown: a magenta cross at
//!   the desired (possibly fractional) position, a line to the node
//!   findNearest chose, and a ring on that node.
//!
//! Cost per frame: O(nodes + links) projections and one mesh for links and
//! one for nodes; the link list is built once per topology, node occupancy
//! once per placement change, routes once per selection.

use super::Model;
use super::colormap::{fmt_bytes, viridis};
use super::graph_view::{add_segment, coord_text};
use egui::{Color32, Mesh, Pos2, Rect, Sense, Shape, Stroke, Vec2, pos2, vec2};
use glam::{Vec3, Vec4};

/// One undirected physical link.
#[derive(Clone, Copy, Debug)]
pub struct LinkGeom {
    pub a: u32,
    pub b: u32,
    pub dim: u8,
    pub wrap: bool,
    /// Channel a -> b and b -> a.
    pub fwd: u32,
    pub back: u32,
}

/// What was drawn last (reused while nothing that shapes it changes).
struct Drawn {
    key: [u64; 9],
    screen: Vec<(Pos2, f32)>,
    segs: Vec<(usize, Pos2, Pos2)>,
    links: std::sync::Arc<Mesh>,
    nodes: std::sync::Arc<Mesh>,
    maxv: f64,
}

pub struct NetworkView {
    drawn: Option<Drawn>,
    /// How many times the meshes were rebuilt (benches check the cache).
    pub rebuilds: u64,
    pub three_d: bool,
    pub by_flows: bool,
    yaw: f32,
    pitch: f32,
    dist: f32,
    zoom2d: f32,
    pan2d: Vec2,
    links: Vec<LinkGeom>,
    world: Vec<Vec3>,
    topo_key: u64,
    node_proc: Vec<u32>,
    node_count: Vec<u16>,
    place_key: (u64, u64),
    route_key: (Option<usize>, u64, u64),
    route_channels: Vec<bool>,
    partner_nodes: Vec<usize>,
}

impl NetworkView {
    pub fn new(three_d: bool, by_flows: bool) -> Self {
        NetworkView {
            drawn: None,
            rebuilds: 0,
            three_d,
            by_flows,
            yaw: 0.6,
            pitch: 0.45,
            dist: 0.0,
            zoom2d: 1.0,
            pan2d: Vec2::ZERO,
            links: Vec::new(),
            world: Vec::new(),
            topo_key: 0,
            node_proc: Vec::new(),
            node_count: Vec::new(),
            place_key: (0, 0),
            route_key: (None, 0, 0),
            route_channels: Vec::new(),
            partner_nodes: Vec::new(),
        }
    }

    pub fn reset_camera(&mut self) {
        self.yaw = 0.6;
        self.pitch = 0.45;
        self.dist = 0.0;
        self.zoom2d = 1.0;
        self.pan2d = Vec2::ZERO;
    }

    /// Turn the 3D camera by `radians` (as a horizontal drag does).
    pub fn orbit(&mut self, radians: f32) {
        self.yaw += radians;
    }

    /// Links of the current topology (for tests and benches).
    pub fn links(&self) -> &[LinkGeom] {
        &self.links
    }

    fn ensure(&mut self, model: &Model) {
        if self.topo_key != model.topo_gen {
            self.topo_key = model.topo_gen;
            self.links.clear();
            self.world.clear();
            if let Some(g) = model.topo.as_grid() {
                let nd = g.ndims();
                let dims = g.dims();
                for v in 0..g.num_nodes() {
                    for d in 0..nd {
                        if let Some(w) = g.step(v, d, 0) {
                            if w == v {
                                continue;
                            }
                            self.links.push(LinkGeom {
                                a: v as u32,
                                b: w as u32,
                                dim: d as u8,
                                wrap: g.is_wrap_channel(v, d, 0),
                                fwd: g.channel(v, d, 0) as u32,
                                back: g.channel(w, d, 1) as u32,
                            });
                        }
                    }
                    let c = g.coord(v);
                    let at = |d: usize| if d < nd { c[d] as f32 } else { 0.0 };
                    let size = |d: usize| if d < nd { dims[d] as f32 } else { 1.0 };
                    // Dimensions past Z are folded into X, Y, Z blocks.
                    let x = at(0) + at(3) * (size(0) + 1.0);
                    let y = at(1) + at(4) * (size(1) + 1.0);
                    let z = at(2) + at(5) * (size(2) + 1.0);
                    self.world.push(Vec3::new(x, y, z));
                }
            }
            self.reset_camera();
        }
        let pk = (model.place_gen, model.topo_gen);
        if self.place_key != pk {
            self.place_key = pk;
            let nn = model.topo.num_nodes();
            self.node_proc = vec![u32::MAX; nn];
            self.node_count = vec![0; nn];
            let cores = model.topo.cores();
            for (p, s) in model.placement.iter().enumerate() {
                if let Some(s) = s {
                    let v = *s as usize / cores;
                    if v < nn {
                        if self.node_proc[v] == u32::MAX {
                            self.node_proc[v] = p as u32;
                        }
                        self.node_count[v] = self.node_count[v].saturating_add(1);
                    }
                }
            }
        }
        let rk = (model.selected, model.place_gen, model.topo_gen);
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

    fn is_3d_topology(model: &Model) -> bool {
        model
            .topo
            .as_grid()
            .is_some_and(|g| g.dims().iter().skip(2).any(|&d| d > 1))
    }

    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &mut Model,
        colors: &[Color32],
        colors_gen: u64,
    ) {
        self.ensure(model);
        let topo3 = Self::is_3d_topology(model);
        ui.horizontal_wrapped(|ui| {
            ui.strong("Network");
            if topo3 {
                ui.selectable_value(&mut self.three_d, true, "3D");
                ui.selectable_value(&mut self.three_d, false, "2D slices");
            }
            ui.separator();
            ui.label("links by");
            ui.selectable_value(&mut self.by_flows, false, "load (bytes)");
            ui.selectable_value(&mut self.by_flows, true, "flows");
            if ui.button("Reset view").clicked() {
                self.reset_camera();
            }
        });
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let full = resp.rect;
        painter.rect_filled(full, 4.0, Color32::from_gray(14));
        let legend_h = 62.0;
        let rect = Rect::from_min_max(full.min, pos2(full.max.x, full.max.y - legend_h));
        let painter = painter.with_clip_rect(full);
        let nn = self.world.len();
        if nn == 0 {
            return;
        }
        let three = topo3 && self.three_d;

        // Camera / 2D transform.
        let hover = resp.hover_pos();
        if resp.dragged() {
            let d = resp.drag_delta();
            if three {
                self.yaw -= d.x * 0.01;
                self.pitch = (self.pitch + d.y * 0.01).clamp(-1.5, 1.5);
            } else {
                self.pan2d += d;
            }
        }
        if resp.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                let f = (scroll / 200.0).exp();
                if three {
                    self.dist = (self.dist.max(1e-3) / f).clamp(0.5, 1e4);
                } else {
                    if let Some(p) = hover {
                        let before = p - (rect.center() + self.pan2d);
                        self.pan2d += before - before * f;
                    }
                    self.zoom2d = (self.zoom2d * f).clamp(0.1, 50.0);
                }
            }
        }
        let g = model.topo.as_grid();
        let dims: Vec<u32> = g.map(|g| g.dims().to_vec()).unwrap_or_default();
        let (lo, hi) = self.world.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let centre = (lo + hi) * 0.5;
        let extent = (hi - lo).max_element().max(1.0);
        // Screen position and size factor of a world point.
        let proj: Box<dyn Fn(Vec3) -> (Pos2, f32)> = if three {
            let aspect = rect.width() / rect.height().max(1.0);
            if self.dist <= 0.0 {
                // Frame the bounding sphere in the narrower field of view.
                let radius = (hi - lo).length() * 0.5 + 0.6;
                let half_fov = 0.4f32.min((0.4f32.tan() * aspect.min(1.0)).atan());
                self.dist = radius / half_fov.sin();
            }
            let eye = centre
                + self.dist
                    * Vec3::new(
                        self.pitch.cos() * self.yaw.sin(),
                        self.pitch.sin(),
                        self.pitch.cos() * self.yaw.cos(),
                    );
            let view = glam::camera::rh::view::look_at_mat4(eye, centre, Vec3::Y);
            let pm = glam::camera::rh::proj::opengl::perspective(
                0.8,
                aspect,
                0.05,
                self.dist * 4.0 + extent * 4.0,
            );
            let vp = pm * view;
            let (rc, half) = (rect.center(), rect.size() * 0.5);
            Box::new(move |w: Vec3| {
                // Y up in the world and in NDC, down on screen.
                let c: Vec4 = vp * Vec4::new(w.x, w.y, w.z, 1.0);
                let iw = 1.0 / c.w.max(1e-4);
                (
                    pos2(rc.x + c.x * iw * half.x, rc.y - c.y * iw * half.y),
                    iw * half.y,
                )
            })
        } else {
            // 2D: Z slices laid out in a grid of panels.
            let zs = if topo3 { (hi.z - lo.z) as usize + 1 } else { 1 };
            let cols = (zs as f32).sqrt().ceil().max(1.0) as usize;
            let rows = zs.div_ceil(cols);
            let (w, h) = ((hi.x - lo.x) + 1.0, (hi.y - lo.y) + 1.0);
            let gap = 1.6;
            let tw = cols as f32 * (w + gap) - gap;
            let th = rows as f32 * (h + gap) - gap;
            let s = ((rect.width() - 40.0) / tw).min((rect.height() - 40.0) / th) * self.zoom2d;
            let origin = rect.center() + self.pan2d - vec2(tw, th) * s * 0.5;
            let lo2 = lo;
            Box::new(move |p: Vec3| {
                let z = (p.z - lo2.z).round().max(0.0) as usize;
                let (cx, cy) = ((z % cols) as f32, (z / cols) as f32);
                let x = cx * (w + gap) + (p.x - lo2.x) + 0.5;
                let y = cy * (h + gap) + (p.y - lo2.y) + 0.5;
                (origin + vec2(x, y) * s, s)
            })
        };
        let key = [
            rect.min.x.to_bits() as u64 | (rect.min.y.to_bits() as u64) << 32,
            rect.max.x.to_bits() as u64 | (rect.max.y.to_bits() as u64) << 32,
            self.yaw.to_bits() as u64 | (self.pitch.to_bits() as u64) << 32,
            self.dist.to_bits() as u64 | (self.zoom2d.to_bits() as u64) << 32,
            self.pan2d.x.to_bits() as u64 | (self.pan2d.y.to_bits() as u64) << 32,
            three as u64 | (self.by_flows as u64) << 1,
            model.place_gen,
            model.topo_gen,
            colors_gen,
        ];
        if self.drawn.as_ref().is_none_or(|d| d.key != key) {
            self.rebuilds += 1;
            let screen: Vec<(Pos2, f32)> = self.world.iter().map(|&p| proj(p)).collect();
            let unit = |i: usize| screen[i].1;
            // Link values.
            let (vals, maxv) = match &model.eval {
                Some(e) => {
                    let val = |ch: u32| -> f64 {
                        let ch = ch as usize;
                        if self.by_flows {
                            e.links.flows.get(ch).copied().unwrap_or(0) as f64
                        } else {
                            e.links.load.get(ch).copied().unwrap_or(0.0)
                        }
                    };
                    let v: Vec<f64> = self
                        .links
                        .iter()
                        .map(|l| val(l.fwd).max(val(l.back)))
                        .collect();
                    let m = v.iter().cloned().fold(0.0, f64::max);
                    (v, m)
                }
                None => (vec![0.0; self.links.len()], 0.0),
            };

            // Links: one mesh.
            let mut mesh = Mesh::default();
            mesh.reserve_triangles(self.links.len() * 2);
            mesh.reserve_vertices(self.links.len() * 4);
            let many = self.links.len() > 20_000;
            let in_view = |p: Pos2| full.expand(50.0).contains(p);
            let mut segs: Vec<(usize, Pos2, Pos2)> = Vec::new();
            for (i, l) in self.links.iter().enumerate() {
                let (a, b) = (l.a as usize, l.b as usize);
                if !three && topo3 && l.dim == 2 {
                    continue; // between slices: shown in 3D
                }
                let v = vals[i];
                let t = if maxv > 0.0 { (v / maxv) as f32 } else { 0.0 };
                let (col, w) = if v > 0.0 {
                    let base = if many { 1.0 } else { 1.5 };
                    (viridis(0.08 + 0.92 * t), base + 2.5 * t)
                } else {
                    (Color32::from_rgba_unmultiplied(90, 90, 100, 90), 0.7)
                };
                let scale_w = |k: f32| {
                    if three {
                        (k * unit(a).min(unit(b)) * 0.05).clamp(0.5, 5.0)
                    } else {
                        (k * unit(a) * 0.06).clamp(0.5, 6.0)
                    }
                };
                let w = scale_w(w);
                let (pa, pb) = (screen[a].0, screen[b].0);
                if !in_view(pa) && !in_view(pb) {
                    continue;
                }
                if l.wrap {
                    // Stubs leaving the grid outward at both ends, with a bar at the tip.
                    let mut dir = Vec3::ZERO;
                    dir[l.dim.min(2) as usize] = 1.0;
                    let wa = self.world[a] + dir * 0.42;
                    let wb = self.world[b] - dir * 0.42;
                    let (sa, sb) = (proj(wa).0, proj(wb).0);
                    for (p0, p1) in [(pa, sa), (pb, sb)] {
                        add_segment(&mut mesh, p0, p1, w, col);
                        let d = (p1 - p0).normalized();
                        let nrm = vec2(-d.y, d.x) * (w * 1.6 + 2.0);
                        add_segment(&mut mesh, p1 - nrm, p1 + nrm, (w * 0.8).max(1.0), col);
                        segs.push((i, p0, p1));
                    }
                } else {
                    add_segment(&mut mesh, pa, pb, w, col);
                    segs.push((i, pa, pb));
                }
            }

            // Nodes.
            let mut nodes = Mesh::default();
            let r_of = |i: usize| -> f32 {
                if three {
                    (unit(i) * 0.16).clamp(1.0, 9.0)
                } else {
                    (unit(i) * 0.28).clamp(1.2, 12.0)
                }
            };
            for i in 0..nn {
                let (p, _) = screen[i];
                if !full.contains(p) {
                    continue;
                }
                let r = r_of(i);
                let proc_ = self.node_proc[i];
                if proc_ == u32::MAX {
                    let rr = (r * 0.45).max(0.8);
                    nodes.add_colored_rect(
                        Rect::from_center_size(p, Vec2::splat(rr * 2.0)),
                        Color32::from_gray(70),
                    );
                } else {
                    let c = colors.get(proc_ as usize).copied().unwrap_or(Color32::GRAY);
                    add_disc(&mut nodes, p, r, c, nn > 4000);
                }
            }
            self.drawn = Some(Drawn {
                key,
                screen,
                segs,
                links: std::sync::Arc::new(mesh),
                nodes: std::sync::Arc::new(nodes),
                maxv,
            });
        }
        let Some(drawn) = self.drawn.as_ref() else {
            return;
        };
        let screen = &drawn.screen;
        let segs = &drawn.segs;
        let maxv = drawn.maxv;
        let unit = |i: usize| screen[i].1;
        let r_of = |i: usize| -> f32 {
            if three {
                (unit(i) * 0.16).clamp(1.0, 9.0)
            } else {
                (unit(i) * 0.28).clamp(1.2, 12.0)
            }
        };
        painter.add(Shape::mesh(drawn.links.clone()));
        // Routes of the selected process.
        if model.selected.is_some() {
            for &(i, p0, p1) in segs {
                let l = &self.links[i];
                if self
                    .route_channels
                    .get(l.fwd as usize)
                    .copied()
                    .unwrap_or(false)
                    || self
                        .route_channels
                        .get(l.back as usize)
                        .copied()
                        .unwrap_or(false)
                {
                    painter.line_segment([p0, p1], Stroke::new(3.0, Color32::WHITE));
                }
            }
        }
        painter.add(Shape::mesh(drawn.nodes.clone()));

        // Selected process and partners.
        if let Some(sel) = model.selected
            && let Some(nsel) = model.node_of(sel)
        {
            for &v in &self.partner_nodes {
                painter.circle_stroke(screen[v].0, r_of(v) + 2.0, Stroke::new(1.5, Color32::WHITE));
            }
            painter.circle_stroke(
                screen[nsel].0,
                r_of(nsel) + 4.0,
                Stroke::new(2.5, Color32::from_rgb(255, 80, 200)),
            );
        }

        // The last placement of a stepping mapper.
        if let Some(crate::mappers::StepEvent::Placed {
            desired,
            slot,
            process,
        }) = &model.last_event
        {
            let node = *slot / model.topo.cores();
            if node < nn {
                let mut w = Vec3::ZERO;
                for (d, &x) in desired.iter().enumerate().take(3) {
                    w[d] = x as f32;
                }
                let (pd, _) = proj(w);
                let (pn, _) = screen[node];
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
                painter.circle_stroke(pn, r_of(node) + 5.0, Stroke::new(2.5, Color32::WHITE));
                painter.text(
                    pn + vec2(r_of(node) + 8.0, -8.0),
                    egui::Align2::LEFT_BOTTOM,
                    format!("p{process}"),
                    egui::FontId::proportional(13.0),
                    Color32::WHITE,
                );
            }
        }

        // Hover: nearest node, else nearest link.
        let mut hover_text: Option<String> = None;
        if let Some(hp) = hover.filter(|p| rect.contains(*p)) {
            let mut best: Option<(usize, f32)> = None;
            for i in 0..nn {
                let d = (screen[i].0 - hp).length();
                if d <= r_of(i) + 3.0 && best.is_none_or(|(_, bd)| d < bd) {
                    best = Some((i, d));
                }
            }
            if let Some((v, _)) = best {
                let procs: Vec<String> = model
                    .placement
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.is_some_and(|s| s as usize / model.topo.cores() == v))
                    .map(|(p, _)| p.to_string())
                    .take(16)
                    .collect();
                hover_text = Some(format!(
                    "node {v}{}\n{}",
                    coord_text(model, v),
                    match procs.len() {
                        0 => "no process".to_string(),
                        1 => format!("process {}", procs[0]),
                        _ => format!("processes {}", procs.join(", ")),
                    }
                ));
                if resp.clicked() {
                    let p = self.node_proc[v];
                    model.selected = (p != u32::MAX).then_some(p as usize);
                }
            } else {
                let mut bl: Option<(usize, f32)> = None;
                for &(i, p0, p1) in segs.iter() {
                    let d = seg_dist(hp, p0, p1);
                    if d < 6.0 && bl.is_none_or(|(_, bd)| d < bd) {
                        bl = Some((i, d));
                    }
                }
                if let Some((i, _)) = bl {
                    let l = self.links[i];
                    let (lf, ff, lb, fb) = match &model.eval {
                        Some(e) => (
                            e.links.load.get(l.fwd as usize).copied().unwrap_or(0.0),
                            e.links.flows.get(l.fwd as usize).copied().unwrap_or(0),
                            e.links.load.get(l.back as usize).copied().unwrap_or(0.0),
                            e.links.flows.get(l.back as usize).copied().unwrap_or(0),
                        ),
                        None => (0.0, 0, 0.0, 0),
                    };
                    let axis = ["X", "Y", "Z", "W", "V", "U"][l.dim as usize % 6];
                    hover_text = Some(format!(
                        "{axis} link{}\n{}{} -> {}{}: {} in {ff} flows\n{}{} -> {}{}: {} in {fb} flows",
                        if l.wrap { " (torus wrap)" } else { "" },
                        l.a,
                        coord_text(model, l.a as usize),
                        l.b,
                        coord_text(model, l.b as usize),
                        fmt_bytes(lf),
                        l.b,
                        coord_text(model, l.b as usize),
                        l.a,
                        coord_text(model, l.a as usize),
                        fmt_bytes(lb),
                    ));
                }
                if resp.clicked() {
                    model.selected = None;
                }
            }
        }
        if let Some(t) = hover_text {
            resp.on_hover_text_at_pointer(t);
        }

        // Slice labels in 2D.
        if !three && topo3 {
            let zs = dims.get(2).copied().unwrap_or(1) as usize;
            for z in 0..zs {
                let p = proj(Vec3::new(lo.x, lo.y, z as f32)).0;
                painter.text(
                    p - vec2(0.0, 6.0 + unit(0) * 0.3),
                    egui::Align2::LEFT_BOTTOM,
                    format!("z = {z}"),
                    egui::FontId::proportional(11.0),
                    Color32::from_gray(160),
                );
            }
        }

        // Legend: a colour bar with its range, then a wrapped note.
        let font = egui::FontId::proportional(11.0);
        let lr = Rect::from_min_max(
            pos2(full.min.x + 24.0, full.max.y - legend_h + 4.0),
            pos2(
                full.min.x + 24.0 + (full.width() * 0.45).min(220.0),
                full.max.y - legend_h + 14.0,
            ),
        );
        let mut bar = Mesh::default();
        let steps = 32;
        for k in 0..steps {
            let x0 = lr.min.x + lr.width() * k as f32 / steps as f32;
            let x1 = lr.min.x + lr.width() * (k + 1) as f32 / steps as f32;
            bar.add_colored_rect(
                Rect::from_min_max(pos2(x0, lr.min.y), pos2(x1, lr.max.y)),
                viridis(0.08 + 0.92 * (k as f32 + 0.5) / steps as f32),
            );
        }
        painter.add(Shape::mesh(bar));
        let maxs = if self.by_flows {
            format!("{maxv:.0} flows")
        } else {
            fmt_bytes(maxv)
        };
        let label_col = Color32::from_gray(200);
        painter.text(
            pos2(lr.min.x - 4.0, lr.center().y),
            egui::Align2::RIGHT_CENTER,
            "0",
            font.clone(),
            label_col,
        );
        painter.text(
            pos2(lr.max.x + 4.0, lr.center().y),
            egui::Align2::LEFT_CENTER,
            format!("{maxs} (busiest link)"),
            font.clone(),
            label_col,
        );
        let mut note = format!(
            "colour = {} of the busier direction · grey = unused",
            if self.by_flows { "flows" } else { "bytes" }
        );
        if model
            .topo
            .as_grid()
            .is_some_and(|g| (0..g.ndims()).any(|d| g.wraps(d)))
        {
            note.push_str(" · capped stubs = torus wrap links");
        }
        if three {
            note.push_str(" · drag rotates, wheel zooms");
        } else if topo3 {
            note.push_str(" · Z links: see 3D");
        }
        note.push_str(" · click a node: its process's routes");
        let galley = painter.layout(note, font, Color32::from_gray(150), full.width() - 16.0);
        painter.galley(
            pos2(full.min.x + 8.0, lr.max.y + 4.0),
            galley,
            Color32::from_gray(150),
        );
    }
}

/// A filled disc (an octagon, or a square when `cheap`) appended to a mesh.
fn add_disc(mesh: &mut Mesh, c: Pos2, r: f32, color: Color32, cheap: bool) {
    if cheap || r < 2.0 {
        mesh.add_colored_rect(Rect::from_center_size(c, Vec2::splat(r * 1.8)), color);
        return;
    }
    let i0 = mesh.vertices.len() as u32;
    mesh.colored_vertex(c, color);
    let k = 10;
    for j in 0..k {
        let a = j as f32 / k as f32 * std::f32::consts::TAU;
        mesh.colored_vertex(c + vec2(a.cos(), a.sin()) * r, color);
    }
    for j in 0..k {
        mesh.add_triangle(i0, i0 + 1 + j, i0 + 1 + (j + 1) % k);
    }
}

/// Distance from `p` to the segment `a`–`b`.
fn seg_dist(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_sq().max(1e-6)).clamp(0.0, 1.0);
    (a + ab * t - p).length()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::CommGraph;
    use crate::topology::Topology;

    #[test]
    fn links_cover_every_physical_link_once() {
        for spec in ["torus:4x4x4", "mesh:3x5", "torus:2x3", "torus:8"] {
            let t = Topology::parse(spec).unwrap();
            let m = Model::new(CommGraph::empty(2), "e", t.clone());
            let mut v = NetworkView::new(true, false);
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
        assert!((seg_dist(pos2(0.0, 1.0), pos2(-1.0, 0.0), pos2(1.0, 0.0)) - 1.0).abs() < 1e-6);
    }
}
