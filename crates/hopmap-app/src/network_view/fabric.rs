//! The network view of a switch fabric (Moh et al.): a layered graph.
//!
//! * **Layout** ([`super::fabric_layout`]): switches in the levels
//!   of the up*/down* spanning tree of the current routing (the fabric's
//!   root, or every top switch for the `fattree` routing), root on top,
//!   ordered by barycentre sweeps. It is computed once per topology and
//!   routing on a worker thread ([`Job`]), together with the links that no
//!   deterministic route of the current routing (up*/down*, fat-tree or
//!   shortest paths) between two switches with job hosts crosses
//!   ([`fabric_route::unused_links`]); until it arrives the view says
//!   "laying out".
//! * **Switches** are boxes as wide as their port count; their **hosts**
//!   hang under them as dots (coloured by their first process, dim when
//!   empty), or, above [`MAX_DOTS`] hosts or when the dots would be smaller
//!   than a few points, collapsed into one strip with the host count (each
//!   host a slice of the strip while slices are at least one point wide).
//! * **Links**: a link between two levels is a straight segment, a link
//!   inside a level an arc over it. A small arrowhead marks the *up end*
//!   (the end nearer the root; on one level, the lower GUID); it is drawn
//!   where the link is long enough on screen, always on arcs. Links that
//!   the routing never uses are dashed and faint. The heatmap is the torus
//!   view's: the busier direction's bytes or flows on viridis, the same
//!   filter (auto, all, top k %, at least), legend and hottest list.
//! * **Navigation**: the wheel zooms across (the levels stay in view), a
//!   drag pans; hover a switch, a host or a link (both directions' load and
//!   flows); click a host to select it: the routes of the messages of every
//!   process on it are drawn white and its partners' hosts ringed.
//!
//! Cost per frame: nothing while the picture is unchanged (cached meshes,
//! the links apart from the boxes and hosts: new link values rebuild the
//! links, a host's new colour the boxes); a rebuild (zoom, pan, new data)
//! is O(visible switches + visible links + hosts of visible switches),
//! culled to the screen columns; the hosts' colours are compared in
//! O(hosts) per placement; labels are
//! drawn only where a box is wide enough to hold them, so they are bounded
//! by the screen.

use super::data::LinkData;
use super::fabric_draw::{self, FabDrawn, Frame, Pick, Scene, host_dot_rect};
use super::fabric_layout::{self, FabricLayout};
use super::geometry::{Geometry, LinkGeom, Resolved};
use super::{Ctx, Picked, legend};
use crate::Model;
use crate::draw::add_large_mesh;
use crate::worker::{Job, Poll};
use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, pos2, vec2};
use hopmap_core::routing::Routing;
use hopmap_core::routing::fabric_route::{self, Mode};
use hopmap_core::routing::updown::UpDown;
use hopmap_core::topology::Fabric;
use hopmap_core::units::fmt_bytes;
use std::sync::Arc;

pub use fabric_draw::MAX_DOTS;

/// Margin left and right of the drawing.
const MARGIN: f32 = 24.0;

/// What the worker prepares once per topology and routing.
pub struct FabricPrep {
    pub layout: FabricLayout,
    /// Up end of each inter-switch link under the routing's structure.
    pub up_end: Vec<u32>,
    /// Links no deterministic route of the routing between job switches
    /// crosses.
    pub unused: Vec<bool>,
    /// The routing these were computed for, as the user names it
    /// (`updn`, `fattree`, `minimal`, after resolving `dor`/`adaptive`).
    pub routing: String,
    /// Roots of the up*/down* structure drawn.
    pub roots: Vec<u32>,
}

/// The up*/down* structure of `routing` on `f`: the fat-tree one (every top
/// switch a root) for the `fattree` routing, else the fabric's.
pub fn structure<'a>(f: &'a Fabric, routing: &Routing) -> &'a UpDown {
    match routing.fabric_mode(f).0 {
        Mode::UpDown(ud) => ud,
        Mode::Minimal => f.updown(),
    }
}

/// Layout, link directions and never-used links of `f` under `routing`.
pub fn prepare(f: &Fabric, routing: &Routing) -> FabricPrep {
    let ud = structure(f, routing);
    let layout = fabric_layout::layout(f, ud, fabric_layout::DEFAULT_SWEEPS);
    let mut unused = vec![false; f.switch_links().len()];
    let mode = routing.fabric_mode(f).0;
    for l in fabric_route::unused_links(f, mode, false) {
        unused[l] = true;
    }
    FabricPrep {
        layout,
        up_end: ud.up_end.clone(),
        unused,
        routing: routing_name(f, routing),
        roots: ud.roots.clone(),
    }
}

/// The routing whose routes the view draws, by its deterministic variant:
/// `updn`, `fattree` (only on a fabric that is a fat tree, else `updn`, as
/// [`Routing::fabric_mode`] falls back) or `minimal`.
fn routing_name(f: &Fabric, routing: &Routing) -> String {
    match routing.resolve_fabric(f) {
        Routing::FatTree if f.fat_tree().is_some() => Routing::FatTree,
        Routing::Minimal | Routing::MinimalSplit => Routing::Minimal,
        _ => Routing::UpDown,
    }
    .name()
}

/// The undirected inter-switch links as the network view's link list (the
/// heatmap, the filter and the hottest list work on it): link `l` joins
/// vertices `H + a` and `H + b`, its channels are `a → b` and `b → a`.
/// Host links are not in it: their loads are shown on the hosts.
pub fn link_geometry(f: &Fabric) -> Geometry {
    let h = f.num_hosts();
    let links = f
        .switch_links()
        .iter()
        .enumerate()
        .map(|(l, &(a, b))| LinkGeom {
            a: (h + a as usize) as u32,
            b: (h + b as usize) as u32,
            dim: 0,
            wrap: false,
            fwd: f.link_channel(l, a) as u32,
            back: f.link_channel(l, b) as u32,
        })
        .collect();
    Geometry {
        links,
        world: vec![glam::Vec3::ZERO; h + f.num_switches()],
        ..Geometry::default()
    }
}

/// `sw3 – sw7 (up end sw3)`.
pub fn link_name(f: &Fabric, l: &LinkGeom, prep: Option<&FabricPrep>) -> String {
    let h = f.num_hosts();
    let name = |v: u32| {
        f.switches()
            .get(v as usize - h.min(v as usize))
            .map_or("?", |s| s.label())
            .to_string()
    };
    let idx = f
        .switch_links()
        .iter()
        .position(|&(a, b)| (a as usize + h, b as usize + h) == (l.a as usize, l.b as usize));
    let up = idx
        .zip(prep)
        .and_then(|(i, p)| p.up_end.get(i))
        .map(|&u| format!(" (up end {})", name(u + h as u32)))
        .unwrap_or_default();
    format!("{} – {}{up}", name(l.a), name(l.b))
}
/// A switch's short label for tables: the file's node description when it
/// has one, else its id with an ibnetdiscover id's GUID written without its
/// zero padding (`S-0000000000200001` → `S-200001`: the GUID is unique, so
/// the short form is too), else the id.
pub fn short_switch_label(s: &hopmap_core::topology::fabric::Switch) -> String {
    if s.desc.is_some() {
        return s.label().to_string();
    }
    match s.name.strip_prefix("S-") {
        Some(hex) if hex.len() > 4 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            let t = hex.trim_start_matches('0');
            format!("S-{}", if t.is_empty() { "0" } else { t })
        }
        _ => s.name.clone(),
    }
}

/// `sw3 – sw7` with [`short_switch_label`]s (tables; the tooltip has
/// [`link_name`]).
pub fn link_short_name(f: &Fabric, l: &LinkGeom) -> String {
    let h = f.num_hosts();
    let name = |v: u32| {
        f.switches()
            .get(v as usize - h.min(v as usize))
            .map_or("?".to_string(), short_switch_label)
    };
    format!("{} – {}", name(l.a), name(l.b))
}

/// The fabric drawing of a [`super::NetworkView`] and its own state: the
/// layout job and its result, the meshes, the selected host and its routes.
#[derive(Default)]
pub struct FabricView {
    key: (u64, String),
    job: Option<Job<FabricPrep>>,
    pub prep: Option<Arc<FabricPrep>>,
    drawn: Option<FabDrawn>,
    /// Host whose processes' routes are shown.
    pub selected_host: Option<usize>,
    /// The shared hover of synced views (side by side) this view painted in
    /// its last frame, whichever view the pointer is over.
    pub painted_hover: Option<Picked>,
    host_key: (Option<usize>, Option<usize>, u64, u64),
    host_routes: Vec<bool>,
    partner_hosts: Vec<u32>,
    /// Each host's colour, what it was computed from (placement, topology
    /// and colour generations), and a counter bumped when it changed.
    host_colors: Vec<Color32>,
    host_colors_key: (u64, u64, u64),
    host_colors_gen: u64,
    /// Mesh rebuilds, of either layer (benches check the cache).
    pub rebuilds: u64,
    /// Rebuilds of the links layer and of the boxes layer.
    pub link_rebuilds: u64,
    pub box_rebuilds: u64,
}

impl FabricView {
    /// Whether the layout is still being computed.
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Channels of the routes shown for the selected host (by channel index).
    pub fn host_route_channels(&self) -> &[bool] {
        &self.host_routes
    }

    /// Where host `h` was last drawn (its dot, or its slice of the strip).
    pub fn host_pos(&self, f: &Fabric, h: usize) -> Option<Pos2> {
        let d = self.drawn.as_ref()?;
        let sw = f.switch_of(h) as u32;
        let s = d.switches.iter().find(|s| s.sw == sw)?;
        if !s.hosts.is_positive() {
            return None;
        }
        if s.dots {
            return host_dot_rect(f, s, h).map(|r| r.center());
        }
        let k = f
            .hosts_on(sw as usize)
            .iter()
            .position(|&x| x as usize == h)?;
        let n = f.hosts_on(sw as usize).len() + f.idle_hosts(sw as usize) as usize;
        let w = s.hosts.width() / n as f32;
        Some(pos2(
            s.hosts.min.x + (k as f32 + 0.5) * w,
            s.hosts.center().y,
        ))
    }

    /// Start or collect the layout job (once per topology and routing), and
    /// bring the selected host's routes up to date.
    fn ensure(&mut self, f: &Fabric, model: &Model) {
        let key = (
            model.topo.generation(),
            model.routing.resolve(&model.topo).name(),
        );
        if self.key != key {
            self.key = key;
            self.prep = None;
            self.drawn = None;
            self.selected_host = None;
            let (f2, r2) = (f.clone(), model.routing.clone());
            self.job = Some(Job::spawn("fabric layout", move |_| prepare(&f2, &r2)));
        }
        if let Some(job) = self.job.as_mut() {
            match job.poll() {
                Poll::Finished(p) => {
                    self.prep = Some(Arc::new(p));
                    self.job = None;
                }
                Poll::Lost => self.job = None,
                Poll::Running => {}
            }
        }
        if model.selected.is_none() {
            self.selected_host = None;
        }
        let hk = (
            self.selected_host,
            model.selected,
            model.placement.generation(),
            model.topo.generation(),
        );
        if self.host_key != hk {
            self.host_key = hk;
            self.host_routes(model);
        }
    }

    /// The channels crossed by the messages of every process on the
    /// selected host, and the hosts of their partners.
    fn host_routes(&mut self, model: &Model) {
        self.host_routes = vec![false; model.topo.channel_slots()];
        self.partner_hosts.clear();
        let Some(h) = self.selected_host else { return };
        let g = &model.graph;
        let cores = model.topo.cores();
        let procs: Vec<usize> = model
            .placement
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some_and(|s| s as usize / cores == h))
            .map(|(p, _)| p)
            .collect();
        for p in procs {
            for (v, s, _) in g.edges_of(p) {
                let Some(nv) = model.node_of(v) else { continue };
                self.partner_hosts.push(nv as u32);
                let back = g.sent_between(v, p);
                let chans = &mut self.host_routes;
                if s > 0.0 {
                    model
                        .routing
                        .route(&model.topo, h, nv, s, &mut |ch, _| chans[ch] = true);
                }
                if back > 0.0 {
                    model
                        .routing
                        .route(&model.topo, nv, h, back, &mut |ch, _| chans[ch] = true);
                }
            }
        }
        self.partner_hosts.sort_unstable();
        self.partner_hosts.dedup();
    }

    /// Draw the fabric into the rest of `ui` ("laying out…" until the
    /// layout arrives): the picture, its overlays, hover and click, and
    /// (when not synced) the legend.
    pub fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Ctx<'_>, model: &mut Model) {
        let topo = model.topo.clone();
        let Some(f) = topo.as_fabric() else { return };
        let synced = cx.sync.is_some();
        self.ensure(f, model);
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let full = resp.rect;
        painter.rect_filled(full, 4.0, Color32::from_gray(14));
        let painter = painter.with_clip_rect(full);
        let Some(prep) = self.prep.clone() else {
            painter.text(
                full.center(),
                Align2::CENTER_CENTER,
                format!(
                    "laying out {} switches in their up*/down* levels…",
                    f.num_switches()
                ),
                FontId::proportional(14.0),
                Color32::from_gray(180),
            );
            ui.ctx().request_repaint();
            return;
        };
        let range = cx.range(false);
        let note = fabric_note(f, &prep, model);
        let lg = (!synced).then(|| fabric_legend(cx, range, &note));
        let laid = lg
            .as_ref()
            .map(|l| legend::Laid::new(&painter, full.width(), l));
        let legend_h = laid.as_ref().map_or(0.0, legend::Laid::height);
        let rect = Rect::from_min_max(
            full.min + vec2(0.0, 8.0),
            pos2(full.max.x, full.max.y - legend_h),
        );
        let frame = camera(ui, &resp, rect, cx, f, &prep.layout);
        let frame = Frame {
            clip: full,
            ..frame
        };
        self.ensure_meshes(cx, model, f, &prep, frame, range);
        let Some(drawn) = self.drawn.as_ref() else {
            return;
        };
        self.paint(cx, &painter, drawn, f, &prep, model);
        self.paint_hover(cx, &painter, f);
        self.hover_and_click(cx, &resp, rect, f, &prep, model);
        if let (Some(l), Some(laid)) = (lg, laid) {
            legend::draw(ui, &painter, full, &l, laid);
        }
    }

    /// Rebuild each layer of meshes (links; boxes and hosts) when anything
    /// that shapes it changed: the links follow the link values and the
    /// colour scale, the boxes the hosts' colours; both the frame. A pan
    /// (same scale, another origin) within the screen width built beyond
    /// each side only translates them. Until a layer is rebuilt nothing
    /// else is drawn in its place: the rebuild happens in this frame.
    fn ensure_meshes(
        &mut self,
        cx: &mut Ctx<'_>,
        model: &Model,
        f: &Fabric,
        prep: &Arc<FabricPrep>,
        frame: Frame,
        (threshold, maxv): (f64, f64),
    ) {
        let full = frame.clip;
        let delta = cx.delta();
        let ghost = cx.ghost_alpha();
        self.ensure_host_colors(cx, model);
        let shape = [
            full.min.x.to_bits() as u64 | (full.min.y.to_bits() as u64) << 32,
            full.max.x.to_bits() as u64 | (full.max.y.to_bits() as u64) << 32,
            frame.kx.to_bits() as u64 | (frame.top.to_bits() as u64) << 32,
            frame.row.to_bits() as u64 | (frame.box_h.to_bits() as u64) << 32,
            model.topo.generation(),
            Arc::as_ptr(prep) as u64,
        ];
        let mut links_key = shape.to_vec();
        links_key.extend([
            (cx.by_flows as u64) | (ghost as u64) << 8,
            threshold.to_bits(),
            maxv.to_bits(),
            cx.data.stats_gen,
            delta.map_or(u64::MAX, |d| d.generation),
        ]);
        let mut boxes_key = shape.to_vec();
        boxes_key.push(self.host_colors_gen);
        let near = |x0: f32| (frame.x0 - x0).abs() <= full.width() * 0.9;
        let (links_ok, boxes_ok) = match self.drawn.as_mut() {
            Some(d) => {
                let ok = (
                    d.links_key == links_key && near(d.built_x0[0]),
                    d.boxes_key == boxes_key && near(d.built_x0[1]),
                );
                let dv = vec2(frame.x0 - d.frame.x0, 0.0);
                if dv.x != 0.0 {
                    if ok.0 {
                        d.translate_links(dv);
                    }
                    if ok.1 {
                        d.translate_boxes(dv);
                    }
                    d.frame.x0 = frame.x0;
                }
                ok
            }
            None => (false, false),
        };
        if links_ok && boxes_ok {
            return;
        }
        self.rebuilds += 1;
        *cx.rebuilds += 1;
        self.link_rebuilds += u64::from(!links_ok);
        self.box_rebuilds += u64::from(!boxes_ok);
        let sc = Scene {
            f,
            prep,
            data: cx.data,
            threshold,
            maxv,
            delta: delta.map(|d| (&d.vals[..], d.max_abs)),
            ghost,
            host_colors: &self.host_colors,
            frame,
        };
        match self.drawn.as_mut() {
            Some(d) => {
                if !links_ok {
                    d.rebuild_links(&sc, links_key);
                }
                if !boxes_ok {
                    d.rebuild_boxes(&sc, boxes_key);
                }
            }
            None => self.drawn = Some(fabric_draw::build(&sc, links_key, boxes_key)),
        }
    }

    /// Bring the hosts' colours up to date (O(hosts) when the placement or
    /// the colours changed); their counter moves only when one differs, so
    /// that a placement that keeps every host's colour keeps the boxes.
    fn ensure_host_colors(&mut self, cx: &Ctx<'_>, model: &Model) {
        let key = (
            model.placement.generation(),
            model.topo.generation(),
            cx.colors_gen,
        );
        if key == self.host_colors_key && self.host_colors_gen > 0 {
            return;
        }
        self.host_colors_key = key;
        let cols = fabric_draw::host_colors(&cx.data.node_proc, cx.colors);
        if cols != self.host_colors || self.host_colors_gen == 0 {
            self.host_colors = cols;
            self.host_colors_gen += 1;
        }
    }

    /// The cached meshes and everything over them: links, routes of the
    /// selection, boxes and labels, level labels, selection rings, the
    /// guided step's hosts, the selected link.
    fn paint(
        &self,
        cx: &Ctx<'_>,
        painter: &egui::Painter,
        drawn: &FabDrawn,
        f: &Fabric,
        prep: &FabricPrep,
        model: &Model,
    ) {
        add_large_mesh(painter, drawn.links.clone(), 0);
        self.paint_routes(cx, painter, drawn, model);
        add_large_mesh(painter, drawn.boxes.clone(), 1);
        for (p, t, c) in &drawn.labels {
            painter.text(*p, Align2::CENTER_CENTER, t, FontId::proportional(10.0), *c);
        }
        level_labels(painter, drawn, &prep.layout);
        self.paint_selection(cx, painter, drawn, f, model);
        // The processes of the step shown (guided log): their hosts ringed.
        let mut step_hosts: Vec<usize> = crate::guided_log::step_processes(model)
            .into_iter()
            .filter_map(|p| model.node_of(p))
            .collect();
        step_hosts.sort_unstable();
        step_hosts.dedup();
        let rings = step_hosts
            .iter()
            .take(512)
            .filter_map(|&h| self.host_pos(f, h))
            .map(|at| (at, 6.0));
        let mag = Color32::from_rgb(255, 60, 220);
        crate::draw::add_rings(painter, rings, 2.0, mag, 2);
        paint_selected_link(cx, painter, drawn);
    }

    /// What the pointer is over in another synced view: a host ringed, a
    /// switch outlined, a link drawn over with its value, in cyan.
    fn paint_hover(&mut self, cx: &Ctx<'_>, painter: &egui::Painter, f: &Fabric) {
        self.painted_hover = cx.sync.as_ref().and_then(|s| s.hover);
        let (Some(h), Some(drawn)) = (self.painted_hover, self.drawn.as_ref()) else {
            return;
        };
        let cyan = Color32::from_rgb(80, 230, 255);
        let font = FontId::proportional(12.0);
        let nh = f.num_hosts();
        match h {
            Picked::Node(v) if v < nh => {
                if let Some(at) = self.host_pos(f, v) {
                    painter.circle_stroke(at, 7.0, Stroke::new(2.0, cyan));
                    let name = f.hosts().get(v).map_or("?", |x| x.name.as_str());
                    painter.text(at + vec2(9.0, -6.0), Align2::LEFT_BOTTOM, name, font, cyan);
                }
            }
            Picked::Node(v) => {
                let sw = (v - nh) as u32;
                if let Some(s) = drawn.switches.iter().find(|s| s.sw == sw) {
                    painter.rect_stroke(
                        if s.hosts.is_positive() {
                            s.rect.union(s.hosts)
                        } else {
                            s.rect
                        }
                        .expand(3.0),
                        2.0,
                        Stroke::new(2.0, cyan),
                        egui::StrokeKind::Outside,
                    );
                }
            }
            Picked::Link(i) => {
                let mut mid = None;
                for &(li, p0, p1) in &drawn.segs {
                    if li as usize == i {
                        painter.line_segment([p0, p1], Stroke::new(6.0, cyan.gamma_multiply(0.6)));
                        mid.get_or_insert(p0 + (p1 - p0) * 0.5);
                    }
                }
                if let Some(m) = mid {
                    painter.circle_stroke(m, 8.0, Stroke::new(2.0, cyan));
                    painter.text(
                        m + vec2(10.0, -8.0),
                        Align2::LEFT_BOTTOM,
                        cx.value_text(cx.data.stats.vals.get(i).copied().unwrap_or(0.0)),
                        font,
                        cyan,
                    );
                }
            }
        }
    }

    /// Routes of the selected host (or process) in white.
    fn paint_routes(&self, cx: &Ctx<'_>, painter: &egui::Painter, drawn: &FabDrawn, model: &Model) {
        if model.selected.is_none() {
            return;
        }
        let chans = if self.selected_host.is_some() {
            &self.host_routes
        } else {
            &cx.data.route_channels
        };
        let on = |ch: u32| chans.get(ch as usize).copied().unwrap_or(false);
        for &(i, p0, p1) in &drawn.segs {
            let l = &cx.data.geom.links[i as usize];
            if on(l.fwd) || on(l.back) {
                painter.line_segment([p0, p1], Stroke::new(3.0, Color32::WHITE));
            }
        }
    }

    /// Hover text of the switch, host or link under the pointer, and a
    /// click's selection (a host and its processes' routes, a link, or
    /// nothing on the background).
    fn hover_and_click(
        &mut self,
        cx: &mut Ctx<'_>,
        resp: &egui::Response,
        rect: Rect,
        f: &Fabric,
        prep: &FabricPrep,
        model: &mut Model,
    ) {
        let Some(drawn) = self.drawn.as_ref() else {
            return;
        };
        let hover = resp.hover_pos().filter(|p| rect.contains(*p));
        let picked = hover.and_then(|p| fabric_draw::pick(drawn, f, p));
        // Synced views share the hover (hosts and switches by vertex: host
        // h is h, switch s is H + s) and the click.
        if let Some(s) = cx.sync.as_deref_mut() {
            s.publish_hover(picked.map(|k| match k {
                Pick::Host(h) => Picked::Node(h as usize),
                Pick::Switch(w) => Picked::Node(f.switch_vertex(w as usize)),
                Pick::Link(i) => Picked::Link(i as usize),
            }));
        }
        if resp.clicked() {
            match picked {
                Some(Pick::Host(hst)) => {
                    let hst = hst as usize;
                    self.selected_host = Some(hst);
                    let p = cx.data.node_proc.get(hst).copied().unwrap_or(u32::MAX);
                    model.selected = (p != u32::MAX).then_some(p as usize);
                    if model.selected.is_none() {
                        self.selected_host = None;
                    }
                    if let Some(s) = cx.sync.as_deref_mut() {
                        s.clicked = Some(model.selected);
                    }
                }
                Some(Pick::Link(i)) => *cx.selected_link = Some(i as usize),
                Some(Pick::Switch(_)) => {}
                None => {
                    model.selected = None;
                    self.selected_host = None;
                    *cx.selected_link = None;
                    if let Some(s) = cx.sync.as_deref_mut() {
                        s.clicked = Some(None);
                    }
                }
            }
        }
        // A process selected elsewhere (graph view): its own routes.
        if let (Some(h), Some(p)) = (self.selected_host, model.selected)
            && model.node_of(p) != Some(h)
        {
            self.selected_host = None;
        }
        if let Some(k) = picked {
            let t = match k {
                Pick::Switch(s) => switch_text(cx.data, f, prep, s as usize),
                Pick::Host(hst) => host_text(f, model, hst as usize),
                Pick::Link(i) => link_text(cx.data, f, prep, model, i as usize),
            };
            resp.clone().on_hover_text_at_pointer(t);
        }
    }

    /// Rings on the partners' switches (their hosts) and on the selected
    /// host (its dot, or its switch's hosts).
    fn paint_selection(
        &self,
        cx: &Ctx<'_>,
        painter: &egui::Painter,
        drawn: &FabDrawn,
        f: &Fabric,
        model: &Model,
    ) {
        let Some(sel) = model.selected else { return };
        let sel_host = self.selected_host.or_else(|| model.node_of(sel));
        let partners: Vec<u32> = if self.selected_host.is_some() {
            self.partner_hosts.clone()
        } else {
            cx.data.partner_nodes.iter().map(|&v| v as u32).collect()
        };
        let mut partner_sw: Vec<u32> = partners
            .iter()
            .map(|&h| f.switch_of(h as usize) as u32)
            .collect();
        partner_sw.sort_unstable();
        partner_sw.dedup();
        let sel_sw = sel_host.map(|h| f.switch_of(h) as u32);
        for s in &drawn.switches {
            let hr = if s.hosts.is_positive() {
                s.hosts
            } else {
                s.rect
            };
            if partner_sw.binary_search(&s.sw).is_ok() {
                painter.rect_stroke(
                    hr.expand(2.0),
                    1.0,
                    Stroke::new(1.5, Color32::WHITE),
                    egui::StrokeKind::Outside,
                );
            }
            if Some(s.sw) == sel_sw {
                let target = match (s.dots, sel_host) {
                    (true, Some(h)) => host_dot_rect(f, s, h).unwrap_or(hr),
                    _ => hr,
                };
                painter.rect_stroke(
                    target.expand(3.0),
                    2.0,
                    Stroke::new(2.5, Color32::from_rgb(255, 80, 200)),
                    egui::StrokeKind::Outside,
                );
            }
        }
    }
}

/// The camera of the fabric drawing: the wheel zooms across about the
/// pointer, a drag pans, a framing request centres a link; the zoom is
/// kept between the whole width and about 60 ports, and some of the
/// drawing on screen. Returns the frame's screen mapping.
fn camera(
    ui: &egui::Ui,
    resp: &egui::Response,
    rect: Rect,
    cx: &mut Ctx<'_>,
    f: &Fabric,
    lay: &FabricLayout,
) -> Frame {
    let cam = &mut *cx.cam;
    let base_kx = (rect.width() - 2.0 * MARGIN).max(10.0) / lay.width.max(1.0);
    let max_zoom = (lay.width / 60.0).max(1.0);
    if resp.dragged() {
        cam.pan2d.x += resp.drag_delta().x;
    }
    if resp.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            let z0 = cam.zoom2d;
            let z1 = (z0 * (scroll / 200.0).exp()).clamp(1.0, max_zoom);
            if let Some(p) = resp.hover_pos() {
                let x0 = rect.min.x + MARGIN + cam.pan2d.x;
                let u = (p.x - x0) / (base_kx * z0);
                cam.pan2d.x = p.x - u * base_kx * z1 - rect.min.x - MARGIN;
            }
            cam.zoom2d = z1;
        }
    }
    cam.zoom2d = cam.zoom2d.clamp(1.0, max_zoom);
    if let Some(i) = cx.frame_request.take()
        && let Some(&(a, b)) = f.switch_links().get(i)
    {
        let mid = (lay.x[a as usize] + lay.x[b as usize]) * 0.5;
        cam.zoom2d = (lay.width / 600.0).clamp(1.0, max_zoom).max(cam.zoom2d);
        cam.pan2d.x = rect.center().x - rect.min.x - MARGIN - mid * base_kx * cam.zoom2d;
    }
    // Keep some of the drawing on screen.
    let kx = base_kx * cam.zoom2d;
    let span = lay.width * kx;
    cam.pan2d.x = cam
        .pan2d
        .x
        .clamp(-(span - rect.width() * 0.5), rect.width() * 0.5);
    let nlev = lay.levels.len().max(1) as f32;
    let row = ((rect.height() - 30.0) / nlev).max(20.0);
    Frame {
        x0: rect.min.x + MARGIN + cam.pan2d.x,
        kx,
        top: rect.min.y + 22.0 + (row * 0.1).min(20.0),
        row,
        box_h: (row * 0.16).clamp(5.0, 16.0),
        clip: rect,
    }
}

/// `level 0 (roots): 24`, `level 1: 48`, … over the drawing on a dark plate.
fn level_labels(painter: &egui::Painter, drawn: &FabDrawn, lay: &FabricLayout) {
    let full = drawn.frame.clip;
    for (l, lv) in lay.levels.iter().enumerate() {
        let text = if l == 0 {
            format!(
                "level 0 (root{}): {}",
                if lv.len() > 1 { "s" } else { "" },
                lv.len()
            )
        } else {
            format!("level {l}: {}", lv.len())
        };
        let galley =
            painter.layout_no_wrap(text, FontId::proportional(10.0), Color32::from_gray(150));
        let at = pos2(
            full.min.x + 4.0,
            drawn.frame.y(l as u32) - 4.0 - galley.size().y,
        );
        painter.rect_filled(
            Rect::from_min_size(at, galley.size()).expand(2.0),
            2.0,
            Color32::from_rgba_unmultiplied(14, 14, 14, 200),
        );
        painter.galley(at, galley, Color32::from_gray(150));
    }
}

/// The selected link: white outline, magenta core, a ring and its value.
fn paint_selected_link(cx: &Ctx<'_>, painter: &egui::Painter, drawn: &FabDrawn) {
    let Some(i) = *cx.selected_link else { return };
    let mag = Color32::from_rgb(255, 60, 220);
    let mut mid = None;
    for &(li, p0, p1) in &drawn.segs {
        if li as usize == i {
            painter.line_segment([p0, p1], Stroke::new(6.0, Color32::WHITE));
            painter.line_segment([p0, p1], Stroke::new(3.0, mag));
            mid.get_or_insert(p0 + (p1 - p0) * 0.5);
        }
    }
    if let Some(m) = mid {
        painter.circle_stroke(m, 9.0, Stroke::new(2.0, mag));
        painter.text(
            m + vec2(12.0, -10.0),
            Align2::LEFT_BOTTOM,
            cx.value_text(cx.data.stats.vals.get(i).copied().unwrap_or(0.0)),
            FontId::proportional(13.0),
            Color32::WHITE,
        );
    }
}

/// The legend under the fabric, with `note` on what boxes, hosts,
/// arrowheads and dashes mean.
fn fabric_legend<'b>(cx: &Ctx<'_>, range: (f64, f64), note: &'b str) -> legend::Legend<'b> {
    let filter = cx
        .filter
        .resolve(cx.data.geom.links.len(), cx.data.stats.used, false);
    cx.legend(range, filter, (Resolved::Flat, false), Some(note))
}

/// What boxes, hosts, arrowheads and dashes mean.
fn fabric_note(f: &Fabric, prep: &FabricPrep, model: &Model) -> String {
    let unused = prep.unused.iter().filter(|&&u| u).count();
    format!(
        "fabric: boxes = switches (width = ports), hosts under them (strips with a count when \
         many); arrowheads = up end of a link (towards the root); dashed (faint grey when thousands) = {unused} links up*/down* never \
         uses · {} · wheel zooms across, drag pans",
        host_links_note(f, model)
    )
}

fn switch_text(data: &LinkData, f: &Fabric, prep: &FabricPrep, s: usize) -> String {
    let sw = &f.switches()[s];
    let hosts = f.hosts_on(s);
    let placed = hosts
        .iter()
        .filter(|&&h| {
            data.node_proc
                .get(h as usize)
                .is_some_and(|&p| p != u32::MAX)
        })
        .count();
    format!(
        "switch {}{}\n{} ports, level {}{}\n{} job hosts ({} with processes){}\n{} links",
        sw.label(),
        match (&sw.desc, sw.guid) {
            (Some(_), Some(g)) => format!(" ({}, GUID {g:#x})", sw.name),
            (Some(_), None) => format!(" ({})", sw.name),
            (None, Some(g)) => format!(" (GUID {g:#x})"),
            (None, None) => String::new(),
        },
        sw.ports,
        prep.layout.level_of[s],
        if prep.roots.binary_search(&(s as u32)).is_ok() {
            " (root)"
        } else {
            ""
        },
        hosts.len(),
        placed,
        match f.idle_hosts(s) {
            0 => String::new(),
            i => format!(", {i} hosts outside the job"),
        },
        f.switch_adj(s).len()
    )
}

fn host_text(f: &Fabric, model: &Model, h: usize) -> String {
    if h >= f.num_hosts() {
        return "a host outside the job".into();
    }
    let cores = model.topo.cores();
    let procs: Vec<String> = model
        .placement
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_some_and(|s| s as usize / cores == h))
        .map(|(p, _)| p.to_string())
        .take(16)
        .collect();
    let (up, down) = match &model.eval {
        Some(e) => (
            e.links.get(f.host_channel(h, true)),
            e.links.get(f.host_channel(h, false)),
        ),
        None => ((0.0, 0), (0.0, 0)),
    };
    format!(
        "host {} (node {h}) on switch {}\n{}\nto switch: {} in {} flows · from switch: {} in {} flows\nclick: show its processes' routes",
        f.hosts()[h].name,
        f.switches()[f.switch_of(h)].label(),
        match procs.len() {
            0 => "no process".to_string(),
            1 => format!("process {}", procs[0]),
            _ => format!("processes {}", procs.join(", ")),
        },
        fmt_bytes(up.0),
        up.1,
        fmt_bytes(down.0),
        down.1
    )
}

fn link_text(data: &LinkData, f: &Fabric, prep: &FabricPrep, model: &Model, i: usize) -> String {
    let Some(&(a, b)) = f.switch_links().get(i) else {
        return String::new();
    };
    let name = |s: u32| f.switches()[s as usize].label();
    let (ca, cb) = (f.link_channel(i, a), f.link_channel(i, b));
    let (lf, ff, lb, fb) = match &model.eval {
        Some(e) => {
            let (lf, ff) = e.links.get(ca);
            let (lb, fb) = e.links.get(cb);
            (lf, ff, lb, fb)
        }
        None => (0.0, 0, 0.0, 0),
    };
    let up = prep.up_end.get(i).copied().unwrap_or(a);
    let dir = |from: u32| if from == up { "down" } else { "up" };
    let rank = data.stats.order.iter().position(|&k| k as usize == i);
    format!(
        "link {i}: {} – {}{}{}\n{} -> {} ({}): {} in {ff} flows\n{} -> {} ({}): {} in {fb} flows",
        name(a),
        name(b),
        match rank {
            Some(r) if data.stats.vals[i] > 0.0 => {
                format!("\nrank {} of {} used links", r + 1, data.stats.used)
            }
            _ => "\nno traffic".to_string(),
        },
        if prep.unused.get(i).copied().unwrap_or(false) {
            format!(
                "\nno {} route between job switches uses this link",
                prep.routing
            )
        } else {
            String::new()
        },
        name(a),
        name(b),
        dir(a),
        fmt_bytes(lf),
        name(b),
        name(a),
        dir(b),
        fmt_bytes(lb),
    )
}

/// What the colours leave out: the hosts' links are not drawn (the colour
/// bar covers the links between switches); their busiest load, which the
/// Metrics panel's max_link_load includes. O(hosts).
fn host_links_note(f: &Fabric, model: &Model) -> String {
    let busiest = model
        .eval
        .as_ref()
        .and_then(|e| e.links.busiest_in(0..2 * f.num_hosts()));
    match busiest {
        Some((ch, load, _)) => format!(
            "colours = links between switches; host links not drawn (busiest {}, host {}) · hover a host for its link's load",
            fmt_bytes(load),
            f.hosts().get(ch / 2).map_or("?", |h| h.name.as_str())
        ),
        None => "colours = links between switches; host links not drawn".into(),
    }
}

/// The routing choice on a fabric (the mapper panel's routing row): the
/// routings of [`Routing`] that apply to switch fabrics. `dor` and
/// `adaptive` (what a mesh/torus had) show as what they mean on this fabric
/// ([`Routing::resolve_fabric`]: `fattree` on fat trees, else `updn` and
/// `updn-split`); `r` changes only on a click.
pub fn routing_ui(ui: &mut egui::Ui, f: &Fabric, r: &mut Routing) {
    let cur = r.resolve_fabric(f);
    let mut choices = vec![
        (
            Routing::UpDown,
            "updn",
            "up*/down* (Moh et al. §3.1): the lexicographically smallest legal shortest route",
        ),
        (
            Routing::UpDownSplit,
            "updn-split",
            "up*/down*, bytes split evenly over every legal shortest route",
        ),
        (
            Routing::Minimal,
            "minimal",
            "plain shortest path (OpenSM's minhop route lengths; not deadlock-free)",
        ),
        (
            Routing::MinimalSplit,
            "minimal-split",
            "plain shortest paths, bytes split evenly (OpenSM's minhop balances its ports \
             per destination; this is that balance in aggregate)",
        ),
    ];
    let ftree_why = f.ftree_roots().err().map(str::to_string);
    if ftree_why.is_none() {
        choices.push((
            Routing::FatTree,
            "fattree",
            "fat-tree up/down (OpenSM's ftree route lengths): every top switch a root, bytes \
             split evenly over the equal-cost up paths (the view then draws the tree's levels)",
        ));
    }
    for (k, label, tip) in choices {
        if ui
            .selectable_label(cur == k, label)
            .on_hover_text(tip)
            .clicked()
        {
            *r = k;
        }
    }
    if let Some(why) = ftree_why {
        ui.add_enabled(false, egui::Button::selectable(false, "fattree"))
            .on_disabled_hover_text(format!("not a fat tree as OpenSM's ftree sees it: {why}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::topology::Topology;

    #[test]
    fn a_switch_short_label_is_its_description_else_its_id_without_guid_padding() {
        let sw = |name: &str, desc: Option<&str>| hopmap_core::topology::Switch {
            name: name.into(),
            guid: None,
            desc: desc.map(Into::into),
            ports: 8,
        };
        assert_eq!(
            short_switch_label(&sw("S-0000000000200001", Some("Spine1"))),
            "Spine1"
        );
        assert_eq!(
            short_switch_label(&sw("S-0000000000200001", None)),
            "S-200001"
        );
        assert_eq!(short_switch_label(&sw("S-0000000000000000", None)), "S-0");
        // Not an ibnetdiscover id: as named.
        assert_eq!(short_switch_label(&sw("S-core", None)), "S-core");
        assert_eq!(short_switch_label(&sw("agg1_2_0", None)), "agg1_2_0");
        // A fat tree's link, by the generator's names.
        let t = Topology::parse("fattree:4:2").unwrap();
        let f = t.as_fabric().unwrap();
        let g = link_geometry(f);
        let l = &g.links[0];
        let name = link_short_name(f, l);
        assert!(name.contains(" – ") && !name.contains("up end"), "{name}");
    }

    #[test]
    fn link_list_is_the_inter_switch_links_with_their_channels() {
        let t = Topology::parse("fabric:moh-fig2").unwrap();
        let f = t.as_fabric().unwrap();
        let g = link_geometry(f);
        assert_eq!(g.links.len(), f.switch_links().len());
        for l in &g.links {
            assert_eq!(
                t.channel_ends(l.fwd as usize),
                Some((l.a as usize, l.b as usize))
            );
            assert_eq!(
                t.channel_ends(l.back as usize),
                Some((l.b as usize, l.a as usize))
            );
        }
        let p = prepare(f, &Routing::Dor);
        // The seed's point: up*/down* leaves some links of Fig. 2 unused.
        let unused = p.unused.iter().filter(|&&u| u).count();
        let want = fabric_route::unused_links(f, Mode::UpDown(f.updown()), false).len();
        assert_eq!(unused, want);
        assert_eq!(p.roots, f.updown().roots);
        assert!(link_name(f, &g.links[0], Some(&p)).contains("up end"));
    }

    #[test]
    fn unused_links_follow_the_routing_in_use() {
        let t = Topology::parse("fabric:moh-fig2").unwrap();
        let f = t.as_fabric().unwrap();
        assert_eq!(prepare(f, &Routing::Dor).routing, "updn");
        let p = prepare(f, &Routing::MinimalSplit);
        assert_eq!(p.routing, "minimal");
        let unused: Vec<usize> = (0..p.unused.len()).filter(|&l| p.unused[l]).collect();
        assert_eq!(unused, fabric_route::unused_links(f, Mode::Minimal, false));
    }
}
