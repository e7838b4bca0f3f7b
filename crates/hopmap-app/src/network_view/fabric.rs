//! The network view of a switch fabric (Moh et al.): a layered graph.
//!
//! * **Layout** ([`hopmap_core::topology::fabric_layout`]): switches in the levels
//!   of the up*/down* spanning tree of the current routing (the fabric's
//!   root, or every top switch for the `fattree` routing), root on top,
//!   ordered by barycentre sweeps. It is computed once per topology and
//!   routing on a worker thread ([`Job`]), together with the links that no
//!   deterministic up*/down* route between two switches with job hosts
//!   crosses ([`fabric_route::unused_links`]); until it arrives the view
//!   says "laying out".
//! * **Switches** are boxes as wide as their port count; their **hosts**
//!   hang under them as dots (coloured by their first process, dim when
//!   empty), or, above [`MAX_DOTS`] hosts or when the dots would be smaller
//!   than a few points, collapsed into one strip with the host count (each
//!   host a slice of the strip while slices are at least one point wide).
//! * **Links**: a link between two levels is a straight segment, a link
//!   inside a level an arc over it. A small arrowhead marks the *up end*
//!   (the end nearer the root; on one level, the lower GUID); it is drawn
//!   where the link is long enough on screen, always on arcs. Links that
//!   up*/down* never uses are dashed and faint. The heatmap is the torus
//!   view's: the busier direction's bytes or flows on viridis, the same
//!   filter (auto, all, top k %, at least), legend and hottest list.
//! * **Navigation**: the wheel zooms across (the levels stay in view), a
//!   drag pans; hover a switch, a host or a link (both directions' load and
//!   flows); click a host to select it: the routes of the messages of every
//!   process on it are drawn white and its partners' hosts ringed.
//!
//! Cost per frame: nothing while the picture is unchanged (cached meshes);
//! a rebuild (zoom, pan, new data) is O(visible switches + visible links +
//! hosts of visible switches), culled to the screen columns; labels are
//! drawn only where a box is wide enough to hold them, so they are bounded
//! by the screen.

use super::contention::link_style;
use super::geometry::{Geometry, LinkGeom, Resolved};
use super::paint::seg_dist;
use super::{NetworkView, legend};
use crate::Model;
use crate::colormap::viridis;
use crate::draw::add_segment;
use crate::worker::{Job, Poll};
use egui::{Align2, Color32, FontId, Mesh, Pos2, Rect, Sense, Shape, Stroke, pos2, vec2};
use hopmap_core::routing::Routing;
use hopmap_core::routing::fabric_route::{self, Mode};
use hopmap_core::routing::updown::UpDown;
use hopmap_core::topology::Fabric;
use hopmap_core::topology::fabric_layout::{self, FabricLayout};
use hopmap_core::units::fmt_bytes;
use std::sync::Arc;

/// Largest host group drawn as dots (larger groups are a strip with a count).
pub const MAX_DOTS: usize = 16;
/// Smallest dot pitch (points) before a host group collapses into a strip.
const MIN_DOT_PITCH: f32 = 4.0;
/// Margin left and right of the drawing.
const MARGIN: f32 = 24.0;

/// What the worker prepares once per topology and routing.
pub struct FabricPrep {
    pub layout: FabricLayout,
    /// Up end of each inter-switch link under the routing's structure.
    pub up_end: Vec<u32>,
    /// Links no deterministic up*/down* route between job switches crosses.
    pub unused: Vec<bool>,
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
    for l in fabric_route::unused_links(f, Mode::UpDown(ud), false) {
        unused[l] = true;
    }
    FabricPrep {
        layout,
        up_end: ud.up_end.clone(),
        unused,
        roots: ud.roots.clone(),
    }
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
            .map_or("?", |s| s.name.as_str())
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

/// State of the fabric drawing inside [`NetworkView`].
#[derive(Default)]
pub struct FabricState {
    key: (u64, String),
    job: Option<Job<FabricPrep>>,
    pub prep: Option<Arc<FabricPrep>>,
    drawn: Option<FabDrawn>,
    /// Host whose processes' routes are shown.
    pub selected_host: Option<usize>,
    /// The shared hover of synced views (side by side) this view painted in
    /// its last frame, whichever view the pointer is over.
    pub painted_hover: Option<super::input::Picked>,
    host_key: (Option<usize>, Option<usize>, u64, u64),
    host_routes: Vec<bool>,
    partner_hosts: Vec<u32>,
    /// Mesh rebuilds (benches check the cache).
    pub rebuilds: u64,
}

impl FabricState {
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
}

/// Screen mapping of one frame: x in port units to points, level to row.
#[derive(Clone, Copy)]
struct Frame {
    x0: f32,
    kx: f32,
    top: f32,
    row: f32,
    box_h: f32,
    clip: Rect,
}

impl Frame {
    fn x(&self, u: f32) -> f32 {
        self.x0 + u * self.kx
    }
    /// Top of the boxes of level `l`.
    fn y(&self, l: u32) -> f32 {
        self.top + l as f32 * self.row
    }
}

/// Where a switch and its hosts were drawn.
#[derive(Clone, Copy)]
struct SwitchShape {
    sw: u32,
    rect: Rect,
    /// The hosts' area (dots or strip), empty when none.
    hosts: Rect,
    dots: bool,
}

/// One rebuild's meshes and pick lists.
struct FabDrawn {
    key: Vec<u64>,
    links: Arc<Mesh>,
    boxes: Arc<Mesh>,
    /// (link, segment ends) of every drawn link piece.
    segs: Vec<(u32, Pos2, Pos2)>,
    switches: Vec<SwitchShape>,
    /// Labels to draw: (position, text, colour).
    labels: Vec<(Pos2, String, Color32)>,
    frame: Frame,
    /// The x origin the meshes were built at (they may be translated since).
    built_x0: f32,
}

/// What is under the pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pick {
    Switch(u32),
    Host(u32),
    Link(u32),
}

fn link_color(t: f32, alpha: u8) -> Color32 {
    let c = viridis(0.12 + 0.88 * t);
    Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), alpha)
}

/// Points of an arc over a level from `a` to `b` (both box tops).
fn arc(a: Pos2, b: Pos2, lift: f32) -> [Pos2; 7] {
    let c = pos2((a.x + b.x) * 0.5, a.y.min(b.y) - lift);
    std::array::from_fn(|k| {
        let t = k as f32 / 6.0;
        let u = 1.0 - t;
        pos2(
            u * u * a.x + 2.0 * u * t * c.x + t * t * b.x,
            u * u * a.y + 2.0 * u * t * c.y + t * t * b.y,
        )
    })
}

/// A small filled arrowhead at `tip` pointing along `dir`.
fn add_arrow(mesh: &mut Mesh, tip: Pos2, dir: egui::Vec2, size: f32, col: Color32) {
    let d = dir.normalized();
    let n = vec2(-d.y, d.x);
    let base = tip - d * size;
    let i = mesh.vertices.len() as u32;
    mesh.colored_vertex(tip, col);
    mesh.colored_vertex(base + n * size * 0.55, col);
    mesh.colored_vertex(base - n * size * 0.55, col);
    mesh.add_triangle(i, i + 1, i + 2);
}

/// A dashed segment appended to a mesh.
fn add_dashed(mesh: &mut Mesh, a: Pos2, b: Pos2, w: f32, col: Color32) {
    let len = (b - a).length();
    if len < 1.0 {
        return;
    }
    let (dash, gap) = (4.0, 3.0);
    let n = ((len / (dash + gap)).ceil() as usize).min(400);
    let d = (b - a) / len;
    for k in 0..n {
        let s = k as f32 * (dash + gap);
        let e = (s + dash).min(len);
        add_segment(mesh, a + d * s, a + d * e, w, col);
    }
}

/// Inputs of one rebuild.
struct Scene<'a> {
    f: &'a Fabric,
    prep: &'a FabricPrep,
    view: &'a NetworkView,
    threshold: f64,
    /// The top of the colour scale (this view's busiest link, or a shared
    /// or locked scale).
    maxv: f64,
    /// B − A per link and the largest |B − A| (difference view).
    delta: Option<(&'a [f64], f64)>,
    ghost: u8,
    colors: &'a [Color32],
    frame: Frame,
}

fn build(sc: &Scene<'_>, key: Vec<u64>) -> FabDrawn {
    let (f, lay, fr) = (sc.f, &sc.prep.layout, sc.frame);
    let h = f.num_hosts();
    let clip = fr.clip;
    // One screen width beyond each side, so that a pan within it only
    // translates the meshes (see `fabric_ui`).
    let (left, right) = (clip.min.x - clip.width(), clip.max.x + clip.width());
    let visible_x = |x: f32| x >= left && x <= right;
    let sw_rect = |s: usize| {
        let w = (lay.slot[s].min(f.switches()[s].ports.max(1) as f32) * fr.kx).max(1.5);
        let cx = fr.x(lay.x[s]);
        let y = fr.y(lay.level_of[s]);
        Rect::from_min_max(pos2(cx - w * 0.5, y), pos2(cx + w * 0.5, y + fr.box_h))
    };

    // Links, coldest first so the hottest end on top.
    let stats = &sc.view.stats;
    let mut mesh = Mesh::default();
    let mut arrows = Mesh::default();
    let mut segs: Vec<(u32, Pos2, Pos2)> = Vec::new();
    let links = f.switch_links();
    let shown: Vec<u32> = match sc.delta {
        // A difference draws the largest changes last (on top).
        Some((d, _)) => {
            let mut o: Vec<u32> = (0..d.len() as u32).collect();
            o.sort_by(|&a, &b| d[a as usize].abs().total_cmp(&d[b as usize].abs()));
            o
        }
        None => stats.order.iter().rev().copied().collect(),
    };
    let mut visible_links = 0usize;
    let unused_count = sc.prep.unused.iter().filter(|&&u| u).count();
    for &li in &shown {
        let i = li as usize;
        let Some(&(a, b)) = links.get(i) else {
            continue;
        };
        let (ra, rb) = (sw_rect(a as usize), sw_rect(b as usize));
        let (xa, xb) = (ra.center().x, rb.center().x);
        if xa.max(xb) < left || xa.min(xb) > right {
            continue;
        }
        let (la, lb) = (lay.level_of[a as usize], lay.level_of[b as usize]);
        let v = stats.vals.get(i).copied().unwrap_or(0.0);
        let unused = sc.prep.unused.get(i).copied().unwrap_or(false);
        let (st, full_col) = match sc.delta {
            Some((d, m)) => {
                let dv = d.get(i).copied().unwrap_or(0.0);
                super::paint::delta_style(dv, m, sc.ghost)
            }
            None => {
                let st = link_style(v, sc.threshold, sc.maxv, sc.ghost);
                (st, link_color(st.t, st.alpha))
            }
        };
        let (col, w, dashed) = if st.full {
            (full_col, 1.0 * st.width, false)
        } else if unused && v <= 0.0 {
            // Faded; dashed while there are few enough links to tell dashes.
            if shown.len() <= 3000 {
                (
                    Color32::from_rgba_unmultiplied(150, 120, 110, 90),
                    1.0,
                    true,
                )
            } else {
                // Thousands overlap at the overview: fainter the more there are.
                let a = (12.0 * 3000.0 / unused_count.max(1) as f32).clamp(3.0, 12.0) as u8;
                // Premultiplied grey, so that tiny alphas keep a neutral hue.
                (Color32::from_rgba_premultiplied(a, a, a, a), 0.6, false)
            }
        } else if st.alpha == 0 {
            continue;
        } else {
            (
                Color32::from_rgba_unmultiplied(110, 110, 125, st.alpha),
                0.8,
                false,
            )
        };
        visible_links += 1;
        let up = sc.prep.up_end.get(i).copied().unwrap_or(a);
        if la == lb {
            let (pa, pb) = (ra.center_top(), rb.center_top());
            let lift = (fr.row * 0.3).min(8.0 + (pa.x - pb.x).abs() * 0.2);
            let pts = arc(pa, pb, lift);
            for k in 0..6 {
                if dashed && k % 2 == 1 {
                    continue;
                }
                add_segment(&mut mesh, pts[k], pts[k + 1], w, col);
                segs.push((li, pts[k], pts[k + 1]));
            }
            // Arrowhead into the up end.
            let (tip, from) = if up == a {
                (pts[0], pts[1])
            } else {
                (pts[6], pts[5])
            };
            add_arrow(&mut arrows, tip, tip - from, 7.0, col.gamma_multiply(1.3));
        } else {
            let (upper, lower) = if la < lb { (ra, rb) } else { (rb, ra) };
            let hosts_below = |r: Rect, s: u32| {
                if f.hosts_on(s as usize).is_empty() && f.idle_hosts(s as usize) == 0 {
                    r.center_bottom()
                } else {
                    r.center_bottom() + vec2(0.0, host_band(fr))
                }
            };
            let upper_sw = if la < lb { a } else { b };
            let p0 = hosts_below(upper, upper_sw);
            let p1 = lower.center_top();
            if dashed {
                add_dashed(&mut mesh, p0, p1, w, col);
            } else {
                add_segment(&mut mesh, p0, p1, w, col);
            }
            segs.push((li, p0, p1));
            // The up end of a link between levels is its upper end; an
            // arrowhead says so where the link is long enough to carry one.
            if (p1 - p0).length() > 40.0 && fr.kx * lay.width / (lay.levels.len() as f32) > 0.0 {
                let tip = p0 + (p1 - p0).normalized() * 2.0;
                add_arrow(&mut arrows, tip, p0 - p1, 6.0, col.gamma_multiply(1.3));
            }
        }
    }
    // Too many arrowheads are noise: keep them when the links are few.
    if visible_links <= 3000 {
        mesh.append(arrows);
    }

    // Switch boxes and their hosts.
    let mut boxes = Mesh::default();
    let mut switches = Vec::new();
    let mut labels = Vec::new();
    let band = host_band(fr);
    for (l, lv) in lay.levels.iter().enumerate() {
        let _ = l;
        for &s in lv {
            let su = s as usize;
            let r = sw_rect(su);
            if !(visible_x(r.center().x) || (r.min.x < right && r.max.x > left)) {
                continue;
            }
            let root = sc.prep.roots.binary_search(&s).is_ok();
            let fill = if root {
                Color32::from_rgb(120, 110, 170)
            } else {
                Color32::from_rgb(88, 96, 120)
            };
            boxes.add_colored_rect(r, fill);
            if r.width() >= 6.0 {
                let edge = Color32::from_rgb(170, 180, 205);
                boxes.add_colored_rect(
                    Rect::from_min_max(r.min, pos2(r.max.x, r.min.y + 1.0)),
                    edge,
                );
            }
            if r.width() >= 46.0 {
                let name = &f.switches()[su].name;
                let max_chars = ((r.width() - 4.0) / 6.5).max(1.0) as usize;
                let text: String = if name.chars().count() > max_chars {
                    name.chars()
                        .take(max_chars.saturating_sub(1))
                        .chain(['…'])
                        .collect()
                } else {
                    name.clone()
                };
                labels.push((r.center(), text, Color32::from_gray(235)));
            }
            // Hosts under the box.
            let hosts = f.hosts_on(su);
            let idle = f.idle_hosts(su) as usize;
            let n = hosts.len() + idle;
            let mut hr = Rect::NOTHING;
            let mut dots = false;
            if n > 0 {
                let width = r.width().max(2.0);
                let top = r.max.y + 2.0;
                let pitch = dot_pitch(width, n);
                let rows = n.div_ceil(8);
                let proc_color = |hi: usize| -> Color32 {
                    match hosts.get(hi) {
                        Some(&hst) => {
                            let p = sc
                                .view
                                .node_proc
                                .get(hst as usize)
                                .copied()
                                .unwrap_or(u32::MAX);
                            if p == u32::MAX {
                                Color32::from_gray(70)
                            } else {
                                sc.colors.get(p as usize).copied().unwrap_or(Color32::GRAY)
                            }
                        }
                        None => Color32::from_gray(45), // idle (not in the job)
                    }
                };
                if n <= MAX_DOTS && pitch >= MIN_DOT_PITCH && rows as f32 * pitch <= band {
                    dots = true;
                    let d = (pitch * 0.7).min(8.0);
                    for k in 0..n {
                        let c = pos2(
                            r.min.x + (k % 8) as f32 * pitch + pitch * 0.5,
                            top + (k / 8) as f32 * pitch + pitch * 0.5,
                        );
                        boxes
                            .add_colored_rect(Rect::from_center_size(c, vec2(d, d)), proc_color(k));
                    }
                    hr = Rect::from_min_max(
                        pos2(r.min.x, top),
                        pos2(r.max.x, top + rows as f32 * pitch),
                    );
                } else {
                    let sh = (band * 0.45).clamp(2.0, 7.0);
                    hr = Rect::from_min_max(pos2(r.min.x, top), pos2(r.max.x, top + sh));
                    let slice = width / n as f32;
                    if slice >= 1.0 {
                        for k in 0..n {
                            let x0 = r.min.x + k as f32 * slice;
                            boxes.add_colored_rect(
                                Rect::from_min_max(
                                    pos2(x0, top),
                                    pos2(
                                        x0 + slice.max(1.0) - if slice >= 3.0 { 0.5 } else { 0.0 },
                                        top + sh,
                                    ),
                                ),
                                proc_color(k),
                            );
                        }
                    } else {
                        // Mean colour of the group.
                        let (mut rr, mut gg, mut bb) = (0u32, 0u32, 0u32);
                        for k in 0..n {
                            let c = proc_color(k);
                            rr += c.r() as u32;
                            gg += c.g() as u32;
                            bb += c.b() as u32;
                        }
                        let m = n as u32;
                        boxes.add_colored_rect(
                            hr,
                            Color32::from_rgb((rr / m) as u8, (gg / m) as u8, (bb / m) as u8),
                        );
                    }
                    if r.width() >= 16.0 {
                        labels.push((
                            pos2(r.center().x, top + sh + 1.0),
                            if idle > 0 {
                                format!("{}+{idle}", hosts.len())
                            } else {
                                format!("{n}")
                            },
                            Color32::from_gray(170),
                        ));
                    }
                }
            }
            switches.push(SwitchShape {
                sw: s,
                rect: r,
                hosts: hr,
                dots,
            });
        }
    }
    let _ = h;
    FabDrawn {
        key,
        links: Arc::new(mesh),
        boxes: Arc::new(boxes),
        segs,
        switches,
        labels,
        frame: fr,
        built_x0: fr.x0,
    }
}

/// Spacing of host dots under a box `width` points wide (8 a row, at most
/// 10 points apart).
fn dot_pitch(width: f32, n: usize) -> f32 {
    (width / n.clamp(1, 8) as f32).min(10.0)
}

/// Height under a box kept for its hosts.
fn host_band(fr: Frame) -> f32 {
    (fr.row * 0.28).clamp(6.0, 40.0)
}

impl NetworkView {
    /// Start or collect the layout job; true while it runs.
    fn fabric_ensure(&mut self, f: &Fabric, model: &Model) {
        let key = (
            model.topo.generation(),
            model.routing.resolve(&model.topo).name(),
        );
        if self.fab.key != key {
            self.fab.key = key;
            self.fab.prep = None;
            self.fab.drawn = None;
            self.fab.selected_host = None;
            let (f2, r2) = (f.clone(), model.routing.clone());
            self.fab.job = Some(Job::spawn("fabric layout", move |_| prepare(&f2, &r2)));
        }
        if let Some(job) = self.fab.job.as_mut() {
            match job.poll() {
                Poll::Finished(p) => {
                    self.fab.prep = Some(Arc::new(p));
                    self.fab.job = None;
                }
                Poll::Lost => self.fab.job = None,
                Poll::Running => {}
            }
        }
        // Routes of the selected host's processes.
        if model.selected.is_none() {
            self.fab.selected_host = None;
        }
        let hk = (
            self.fab.selected_host,
            model.selected,
            model.placement.generation(),
            model.topo.generation(),
        );
        if self.fab.host_key != hk {
            self.fab.host_key = hk;
            self.fab.host_routes = vec![false; model.topo.channel_slots()];
            self.fab.partner_hosts.clear();
            if let Some(h) = self.fab.selected_host {
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
                        self.fab.partner_hosts.push(nv as u32);
                        let back = g.sent_between(v, p);
                        let chans = &mut self.fab.host_routes;
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
                self.fab.partner_hosts.sort_unstable();
                self.fab.partner_hosts.dedup();
            }
        }
    }

    /// The fabric drawing (called by [`NetworkView::ui`] on a fabric).
    pub(super) fn fabric_ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &mut Model,
        colors: &[Color32],
        colors_gen: u64,
        mut sync: Option<&mut super::ViewSync>,
        delta: Option<&super::LinkDelta>,
    ) {
        let topo = model.topo.clone();
        let Some(f) = topo.as_fabric() else { return };
        let synced = sync.is_some();
        let shared = sync.as_ref().and_then(|s| s.scale);
        let delta = delta.filter(|d| d.vals.len() == f.switch_links().len());
        self.fabric_ensure(f, model);
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let full = resp.rect;
        painter.rect_filled(full, 4.0, Color32::from_gray(14));
        let painter = painter.with_clip_rect(full);
        let Some(prep) = self.fab.prep.clone() else {
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
        let lay = &prep.layout;
        let legend_h = if synced { 0.0 } else { legend::HEIGHT };
        let rect = Rect::from_min_max(
            full.min + vec2(0.0, 8.0),
            pos2(full.max.x, full.max.y - legend_h),
        );

        // Camera: the wheel zooms across about the pointer, a drag pans.
        let base_kx = (rect.width() - 2.0 * MARGIN).max(10.0) / lay.width.max(1.0);
        let max_zoom = (lay.width / 60.0).max(1.0);
        if resp.dragged() {
            self.cam.pan2d.x += resp.drag_delta().x;
        }
        if resp.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                let z0 = self.cam.zoom2d;
                let z1 = (z0 * (scroll / 200.0).exp()).clamp(1.0, max_zoom);
                if let Some(p) = resp.hover_pos() {
                    let x0 = rect.min.x + MARGIN + self.cam.pan2d.x;
                    let u = (p.x - x0) / (base_kx * z0);
                    self.cam.pan2d.x = p.x - u * base_kx * z1 - rect.min.x - MARGIN;
                }
                self.cam.zoom2d = z1;
            }
        }
        self.cam.zoom2d = self.cam.zoom2d.clamp(1.0, max_zoom);
        if let Some(i) = self.frame_request.take()
            && let Some(&(a, b)) = f.switch_links().get(i)
        {
            let mid = (lay.x[a as usize] + lay.x[b as usize]) * 0.5;
            self.cam.zoom2d = (lay.width / 600.0)
                .clamp(1.0, max_zoom)
                .max(self.cam.zoom2d);
            self.cam.pan2d.x =
                rect.center().x - rect.min.x - MARGIN - mid * base_kx * self.cam.zoom2d;
        }
        // Keep some of the drawing on screen.
        let kx = base_kx * self.cam.zoom2d;
        let span = lay.width * kx;
        self.cam.pan2d.x = self
            .cam
            .pan2d
            .x
            .clamp(-(span - rect.width() * 0.5), rect.width() * 0.5);
        let nlev = lay.levels.len().max(1) as f32;
        let row = ((rect.height() - 30.0) / nlev).max(20.0);
        let frame = Frame {
            x0: rect.min.x + MARGIN + self.cam.pan2d.x,
            kx,
            top: rect.min.y + 22.0 + (row * 0.1).min(20.0),
            row,
            box_h: (row * 0.16).clamp(5.0, 16.0),
            clip: full,
        };

        let (threshold, maxv) = match shared.or(self.locked_range().filter(|_| !synced)) {
            Some(r) => r,
            None => (self.stats.threshold(self.filter, false), self.stats.maxv),
        };
        let ghost: u8 = if !self.ghosts {
            0
        } else if self.geom.links.len() > 20_000 {
            14
        } else {
            40
        };
        let key = vec![
            full.min.x.to_bits() as u64 | (full.min.y.to_bits() as u64) << 32,
            full.max.x.to_bits() as u64 | (full.max.y.to_bits() as u64) << 32,
            frame.kx.to_bits() as u64,
            (self.by_flows as u64) | (ghost as u64) << 8,
            threshold.to_bits(),
            model.placement.generation(),
            model.topo.generation(),
            colors_gen,
            Arc::as_ptr(&prep) as u64,
            maxv.to_bits(),
            delta.map_or(u64::MAX, |d| d.generation),
        ];
        // A pan (same scale, another origin) within the screen width built
        // beyond each side translates the meshes instead of rebuilding them.
        if let Some(d) = self.fab.drawn.as_mut()
            && d.key == key
            && d.frame.x0 != frame.x0
        {
            if (frame.x0 - d.built_x0).abs() <= full.width() * 0.9 {
                let dv = vec2(frame.x0 - d.frame.x0, 0.0);
                Arc::make_mut(&mut d.links).translate(dv);
                Arc::make_mut(&mut d.boxes).translate(dv);
                for (_, a, b) in &mut d.segs {
                    *a += dv;
                    *b += dv;
                }
                for s in &mut d.switches {
                    s.rect = s.rect.translate(dv);
                    s.hosts = s.hosts.translate(dv);
                }
                for (p, _, _) in &mut d.labels {
                    *p += dv;
                }
                d.frame.x0 = frame.x0;
            } else {
                d.key.clear();
            }
        }
        if self.fab.drawn.as_ref().is_none_or(|d| d.key != key) {
            self.fab.rebuilds += 1;
            self.rebuilds += 1;
            let sc = Scene {
                f,
                prep: &prep,
                view: self,
                threshold,
                maxv,
                delta: delta.map(|d| (&d.vals[..], d.max_abs)),
                ghost,
                colors,
                frame,
            };
            let d = build(&sc, key);
            self.fab.drawn = Some(d);
        }
        let Some(drawn) = self.fab.drawn.as_ref() else {
            return;
        };

        painter.add(Shape::mesh(drawn.links.clone()));
        // Routes of the selected host (or process).
        if model.selected.is_some() {
            let on = |ch: u32| {
                let chans = if self.fab.selected_host.is_some() {
                    &self.fab.host_routes
                } else {
                    &self.route_channels
                };
                chans.get(ch as usize).copied().unwrap_or(false)
            };
            for &(i, p0, p1) in &drawn.segs {
                let l = &self.geom.links[i as usize];
                if on(l.fwd) || on(l.back) {
                    painter.line_segment([p0, p1], Stroke::new(3.0, Color32::WHITE));
                }
            }
        }
        painter.add(Shape::mesh(drawn.boxes.clone()));
        for (p, t, c) in &drawn.labels {
            painter.text(*p, Align2::CENTER_CENTER, t, FontId::proportional(10.0), *c);
        }
        // Level labels, over the drawing on a dark plate.
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
            let at = pos2(full.min.x + 4.0, frame.y(l as u32) - 4.0 - galley.size().y);
            painter.rect_filled(
                Rect::from_min_size(at, galley.size()).expand(2.0),
                2.0,
                Color32::from_rgba_unmultiplied(14, 14, 14, 200),
            );
            painter.galley(at, galley, Color32::from_gray(150));
        }
        self.fabric_paint_selection(&painter, drawn, f, model);
        // The processes of the step shown (guided log): their hosts ringed.
        let mut step_hosts: Vec<usize> = crate::guided_log::step_processes(model)
            .into_iter()
            .filter_map(|p| model.node_of(p))
            .collect();
        step_hosts.sort_unstable();
        step_hosts.dedup();
        for h in step_hosts.into_iter().take(512) {
            if let Some(at) = self.fab.host_pos(f, h) {
                painter.circle_stroke(at, 6.0, Stroke::new(2.0, Color32::from_rgb(255, 60, 220)));
            }
        }
        if let Some(i) = self.selected_link {
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
                    self.value_text(self.stats.vals.get(i).copied().unwrap_or(0.0)),
                    FontId::proportional(13.0),
                    Color32::WHITE,
                );
            }
        }

        // Hover and click; synced views share both (hosts and switches by
        // vertex: host h is h, switch s is H + s).
        self.fab.painted_hover = sync.as_ref().and_then(|s| s.hover);
        if let Some(h) = self.fab.painted_hover {
            self.fabric_paint_hover(&painter, drawn, f, h);
        }
        let hover = resp.hover_pos().filter(|p| rect.contains(*p));
        let picked = hover.and_then(|p| pick(drawn, f, p));
        if let Some(s) = sync.as_deref_mut() {
            s.publish_hover(picked.map(|k| match k {
                Pick::Host(h) => super::input::Picked::Node(h as usize),
                Pick::Switch(w) => super::input::Picked::Node(f.switch_vertex(w as usize)),
                Pick::Link(i) => super::input::Picked::Link(i as usize),
            }));
        }
        if resp.clicked() {
            match picked {
                Some(Pick::Host(hst)) => {
                    let hst = hst as usize;
                    self.fab.selected_host = Some(hst);
                    let p = self.node_proc.get(hst).copied().unwrap_or(u32::MAX);
                    model.selected = (p != u32::MAX).then_some(p as usize);
                    if model.selected.is_none() {
                        self.fab.selected_host = None;
                    }
                    if let Some(s) = sync.as_deref_mut() {
                        s.clicked = Some(model.selected);
                    }
                }
                Some(Pick::Link(i)) => self.selected_link = Some(i as usize),
                Some(Pick::Switch(_)) => {}
                None => {
                    model.selected = None;
                    self.fab.selected_host = None;
                    self.selected_link = None;
                    if let Some(s) = sync {
                        s.clicked = Some(None);
                    }
                }
            }
        }
        // A process selected elsewhere (graph view): its own routes.
        if let (Some(h), Some(p)) = (self.fab.selected_host, model.selected)
            && model.node_of(p) != Some(h)
        {
            self.fab.selected_host = None;
        }
        if let Some(k) = picked {
            let t = match k {
                Pick::Switch(s) => self.switch_text(f, &prep, model, s as usize),
                Pick::Host(hst) => self.host_text(f, model, hst as usize),
                Pick::Link(i) => self.fabric_link_text(f, &prep, model, i as usize),
            };
            resp.on_hover_text_at_pointer(t);
        }

        if synced {
            // The caller draws one legend for every synced view.
            return;
        }
        let filter = self
            .filter
            .resolve(self.geom.links.len(), self.stats.used, false);
        let unused = prep.unused.iter().filter(|&&u| u).count();
        let note = format!(
            "fabric: boxes = switches (width = ports), hosts under them (strips with a count when \
             many); arrowheads = up end of a link (towards the root); dashed (faint grey when thousands) = {unused} links up*/down* never \
             uses · {} · wheel zooms across, drag pans",
            host_links_note(f, model)
        );
        let l = self.legend(
            (threshold, maxv),
            filter,
            (Resolved::Flat, false),
            Some(&note),
        );
        legend::draw(&painter, full, &l);
    }

    /// What the pointer is over in another synced view: a host ringed, a
    /// switch outlined, a link drawn over with its value, in cyan.
    fn fabric_paint_hover(
        &self,
        painter: &egui::Painter,
        drawn: &FabDrawn,
        f: &Fabric,
        h: super::input::Picked,
    ) {
        let cyan = Color32::from_rgb(80, 230, 255);
        let font = FontId::proportional(12.0);
        let nh = f.num_hosts();
        match h {
            super::input::Picked::Node(v) if v < nh => {
                if let Some(at) = self.fab.host_pos(f, v) {
                    painter.circle_stroke(at, 7.0, Stroke::new(2.0, cyan));
                    let name = f.hosts().get(v).map_or("?", |x| x.name.as_str());
                    painter.text(at + vec2(9.0, -6.0), Align2::LEFT_BOTTOM, name, font, cyan);
                }
            }
            super::input::Picked::Node(v) => {
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
            super::input::Picked::Link(i) => {
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
                        self.value_text(self.stats.vals.get(i).copied().unwrap_or(0.0)),
                        font,
                        cyan,
                    );
                }
            }
        }
    }

    fn fabric_paint_selection(
        &self,
        painter: &egui::Painter,
        drawn: &FabDrawn,
        f: &Fabric,
        model: &Model,
    ) {
        let Some(sel) = model.selected else { return };
        let host_of = |p: usize| model.node_of(p);
        let sel_host = self.fab.selected_host.or_else(|| host_of(sel));
        let partners: Vec<u32> = if self.fab.selected_host.is_some() {
            self.fab.partner_hosts.clone()
        } else {
            self.partner_nodes.iter().map(|&v| v as u32).collect()
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

    fn switch_text(&self, f: &Fabric, prep: &FabricPrep, model: &Model, s: usize) -> String {
        let sw = &f.switches()[s];
        let hosts = f.hosts_on(s);
        let procs: usize = hosts
            .iter()
            .map(|&h| {
                model
                    .placement
                    .iter()
                    .filter(|x| x.is_some_and(|x| x as usize / model.topo.cores() == h as usize))
                    .count()
            })
            .take(64)
            .sum();
        let _ = procs;
        let placed = hosts
            .iter()
            .filter(|&&h| {
                self.node_proc
                    .get(h as usize)
                    .is_some_and(|&p| p != u32::MAX)
            })
            .count();
        format!(
            "switch {}{}\n{} ports, level {}{}\n{} job hosts ({} with processes){}\n{} links",
            sw.name,
            sw.guid
                .map(|g| format!(" (GUID {g:#x})"))
                .unwrap_or_default(),
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

    fn host_text(&self, f: &Fabric, model: &Model, h: usize) -> String {
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
            f.switches()[f.switch_of(h)].name,
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

    fn fabric_link_text(&self, f: &Fabric, prep: &FabricPrep, model: &Model, i: usize) -> String {
        let Some(&(a, b)) = f.switch_links().get(i) else {
            return String::new();
        };
        let name = |s: u32| f.switches()[s as usize].name.clone();
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
        let rank = self.stats.order.iter().position(|&k| k as usize == i);
        format!(
            "link {i}: {} – {}{}{}\n{} -> {} ({}): {} in {ff} flows\n{} -> {} ({}): {} in {fb} flows",
            name(a),
            name(b),
            match rank {
                Some(r) if self.stats.vals[i] > 0.0 => {
                    format!("\nrank {} of {} used links", r + 1, self.stats.used)
                }
                _ => "\nno traffic".to_string(),
            },
            if prep.unused.get(i).copied().unwrap_or(false) {
                "\nno up*/down* route between job switches uses this link"
            } else {
                ""
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

/// The dot of host `h` in a switch drawn with dots.
fn host_dot_rect(f: &Fabric, s: &SwitchShape, h: usize) -> Option<Rect> {
    let k = f
        .hosts_on(s.sw as usize)
        .iter()
        .position(|&x| x as usize == h)?;
    let n = f.hosts_on(s.sw as usize).len() + f.idle_hosts(s.sw as usize) as usize;
    let pitch = dot_pitch(s.rect.width().max(2.0), n);
    let c = pos2(
        s.rect.min.x + (k % 8) as f32 * pitch + pitch * 0.5,
        s.hosts.min.y + (k / 8) as f32 * pitch + pitch * 0.5,
    );
    Some(Rect::from_center_size(c, vec2(pitch, pitch) * 0.8))
}

/// The switch box, host (dot, or slice of a strip) or link under `p`.
fn pick(d: &FabDrawn, f: &Fabric, p: Pos2) -> Option<Pick> {
    for s in &d.switches {
        if s.rect.expand(1.5).contains(p) {
            return Some(Pick::Switch(s.sw));
        }
        if s.hosts.is_positive() && s.hosts.expand(1.5).contains(p) {
            let hosts = f.hosts_on(s.sw as usize);
            let n = hosts.len() + f.idle_hosts(s.sw as usize) as usize;
            let k = if s.dots {
                let pitch = dot_pitch(s.rect.width().max(2.0), n);
                let col = ((p.x - s.rect.min.x) / pitch).floor().clamp(0.0, 7.0) as usize;
                let row = ((p.y - s.hosts.min.y) / pitch).floor().max(0.0) as usize;
                row * 8 + col
            } else {
                (((p.x - s.hosts.min.x) / s.hosts.width().max(1e-3)) * n as f32).floor() as usize
            };
            return Some(match hosts.get(k.min(n.saturating_sub(1))) {
                Some(&h) => Pick::Host(h),
                None => Pick::Switch(s.sw),
            });
        }
    }
    let _ = d.frame;
    let mut best: Option<(u32, f32)> = None;
    for &(i, a, b) in &d.segs {
        let dd = seg_dist(p, a, b);
        if dd < 6.0 && best.is_none_or(|(_, bd)| dd < bd) {
            best = Some((i, dd));
        }
    }
    best.map(|(i, _)| Pick::Link(i))
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
}
