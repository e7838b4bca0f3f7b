//! The fabric drawing's meshes ([`super::fabric`]): the links between
//! switches (segments between levels, arcs inside a level, dashed when
//! up*/down* never uses them, an arrowhead at the up end), the switch boxes
//! and their hosts (dots, or a strip with a count), the labels, and what
//! picking needs (segments, switch and host rectangles).
//!
//! Cost: O(visible links + visible switches + their hosts) per rebuild,
//! culled to one screen width beyond each side of the view (so that a pan
//! within it only translates the meshes); picking is O(drawn switches +
//! drawn segments).

use super::contention::link_style;
use super::data::LinkData;
use super::fabric::FabricPrep;
use super::paint::seg_dist;
use crate::colormap::viridis;
use crate::draw::{add_dashed, add_segment};
use egui::{Color32, Mesh, Pos2, Rect, pos2, vec2};
use hopmap_core::topology::Fabric;
use std::sync::Arc;

/// Largest host group drawn as dots (larger groups are a strip with a count).
pub const MAX_DOTS: usize = 16;
/// Smallest dot pitch (points) before a host group collapses into a strip.
const MIN_DOT_PITCH: f32 = 4.0;

/// Screen mapping of one frame: x in port units to points, level to row.
#[derive(Clone, Copy)]
pub struct Frame {
    pub x0: f32,
    pub kx: f32,
    pub top: f32,
    pub row: f32,
    pub box_h: f32,
    pub clip: Rect,
}

impl Frame {
    pub fn x(&self, u: f32) -> f32 {
        self.x0 + u * self.kx
    }
    /// Top of the boxes of level `l`.
    pub fn y(&self, l: u32) -> f32 {
        self.top + l as f32 * self.row
    }
    /// The x range built: one screen width beyond each side.
    fn span(&self) -> (f32, f32) {
        let c = self.clip;
        (c.min.x - c.width(), c.max.x + c.width())
    }
}

/// Where a switch and its hosts were drawn.
#[derive(Clone, Copy)]
pub struct SwitchShape {
    pub sw: u32,
    pub rect: Rect,
    /// The hosts' area (dots or strip), empty when none.
    pub hosts: Rect,
    pub dots: bool,
}

/// The meshes and pick lists drawn, in two layers cached apart: the links
/// (which follow the link values) and the boxes with their hosts and
/// labels (which follow the layout, the frame and the hosts' colours), so
/// that a new placement with new link values rebuilds the links only.
pub struct FabDrawn {
    /// What the links layer was built from ([`super::fabric`] keys).
    pub links_key: Vec<u64>,
    /// What the boxes layer was built from.
    pub boxes_key: Vec<u64>,
    pub links: Arc<Mesh>,
    pub boxes: Arc<Mesh>,
    /// (link, segment ends) of every drawn link piece.
    pub segs: Vec<(u32, Pos2, Pos2)>,
    pub switches: Vec<SwitchShape>,
    /// Labels to draw: (position, text, colour).
    pub labels: Vec<(Pos2, String, Color32)>,
    pub frame: Frame,
    /// The x origin each layer (links, boxes) was built at (they may be
    /// translated since).
    pub built_x0: [f32; 2],
}

impl FabDrawn {
    /// Move the links layer by `dv` (a pan that keeps the scale).
    pub fn translate_links(&mut self, dv: egui::Vec2) {
        Arc::make_mut(&mut self.links).translate(dv);
        for (_, a, b) in &mut self.segs {
            *a += dv;
            *b += dv;
        }
    }

    /// Move the boxes layer by `dv`.
    pub fn translate_boxes(&mut self, dv: egui::Vec2) {
        Arc::make_mut(&mut self.boxes).translate(dv);
        for s in &mut self.switches {
            s.rect = s.rect.translate(dv);
            s.hosts = s.hosts.translate(dv);
        }
        for (p, _, _) in &mut self.labels {
            *p += dv;
        }
    }

    /// Rebuild the links layer from `sc` (its frame becomes the drawing's).
    pub fn rebuild_links(&mut self, sc: &Scene<'_>, key: Vec<u64>) {
        let (links, segs) = build_links(sc);
        self.links = Arc::new(links);
        self.segs = segs;
        self.links_key = key;
        self.built_x0[0] = sc.frame.x0;
        self.frame = sc.frame;
    }

    /// Rebuild the boxes layer from `sc` (its frame becomes the drawing's).
    pub fn rebuild_boxes(&mut self, sc: &Scene<'_>, key: Vec<u64>) {
        let (boxes, switches, labels) = build_switches(sc);
        self.boxes = Arc::new(boxes);
        self.switches = switches;
        self.labels = labels;
        self.boxes_key = key;
        self.built_x0[1] = sc.frame.x0;
        self.frame = sc.frame;
    }
}

/// What is under the pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
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

/// Inputs of one rebuild.
pub struct Scene<'a> {
    pub f: &'a Fabric,
    pub prep: &'a FabricPrep,
    pub data: &'a LinkData,
    pub threshold: f64,
    /// The top of the colour scale (this view's busiest link, or a shared
    /// or locked scale).
    pub maxv: f64,
    /// B − A per link and the largest |B − A| (difference view).
    pub delta: Option<(&'a [f64], f64)>,
    pub ghost: u8,
    /// Each host's colour ([`host_colors`]).
    pub host_colors: &'a [Color32],
    pub frame: Frame,
}

impl Scene<'_> {
    /// The box of switch `s`: as wide as its ports (at least 1.5 points).
    fn sw_rect(&self, s: usize) -> Rect {
        let (lay, fr) = (&self.prep.layout, self.frame);
        let ports = self.f.switches()[s].ports.max(1) as f32;
        let w = (lay.slot[s].min(ports) * fr.kx).max(1.5);
        let cx = fr.x(lay.x[s]);
        let y = fr.y(lay.level_of[s]);
        Rect::from_min_max(pos2(cx - w * 0.5, y), pos2(cx + w * 0.5, y + fr.box_h))
    }

    /// Colour of host `k` of switch `s` (its first process's; dim when
    /// empty, darker when outside the job).
    fn host_color(&self, s: usize, k: usize) -> Color32 {
        match self.f.hosts_on(s).get(k) {
            Some(&hst) => self
                .host_colors
                .get(hst as usize)
                .copied()
                .unwrap_or(Color32::from_gray(70)),
            None => Color32::from_gray(45), // idle (not in the job)
        }
    }
}

/// Both layers of `sc`, tagged with their keys.
pub fn build(sc: &Scene<'_>, links_key: Vec<u64>, boxes_key: Vec<u64>) -> FabDrawn {
    let mut d = FabDrawn {
        links_key: Vec::new(),
        boxes_key: Vec::new(),
        links: Arc::default(),
        boxes: Arc::default(),
        segs: Vec::new(),
        switches: Vec::new(),
        labels: Vec::new(),
        frame: sc.frame,
        built_x0: [sc.frame.x0; 2],
    };
    d.rebuild_links(sc, links_key);
    d.rebuild_boxes(sc, boxes_key);
    d
}

/// The colour of every host (by node index): its first process's, dim
/// grey when empty. O(hosts).
pub fn host_colors(node_proc: &[u32], colors: &[Color32]) -> Vec<Color32> {
    node_proc
        .iter()
        .map(|&p| match p {
            u32::MAX => Color32::from_gray(70),
            p => colors.get(p as usize).copied().unwrap_or(Color32::GRAY),
        })
        .collect()
}

/// How one link is drawn: colour, width, dashed; None when hidden.
fn link_look(
    sc: &Scene<'_>,
    i: usize,
    many: bool,
    unused_count: usize,
) -> Option<(Color32, f32, bool)> {
    let v = sc.data.stats.vals.get(i).copied().unwrap_or(0.0);
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
    Some(if st.full {
        (full_col, st.width, false)
    } else if unused && v <= 0.0 {
        // Faded; dashed while there are few enough links to tell dashes.
        if !many {
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
        return None;
    } else {
        (
            Color32::from_rgba_unmultiplied(110, 110, 125, st.alpha),
            0.8,
            false,
        )
    })
}

/// The links, coldest first so that the hottest end on top (a difference:
/// the largest changes last), culled to the span built; arrowheads only
/// while at most 3000 links are visible.
fn build_links(sc: &Scene<'_>) -> (Mesh, Vec<(u32, Pos2, Pos2)>) {
    let (f, lay, fr) = (sc.f, &sc.prep.layout, sc.frame);
    let (left, right) = fr.span();
    let mut mesh = Mesh::default();
    let mut arrows = Mesh::default();
    let mut segs: Vec<(u32, Pos2, Pos2)> = Vec::new();
    let links = f.switch_links();
    let shown: Vec<u32> = match sc.delta {
        Some((d, _)) => {
            let mut o: Vec<u32> = (0..d.len() as u32).collect();
            o.sort_by(|&a, &b| d[a as usize].abs().total_cmp(&d[b as usize].abs()));
            o
        }
        None => sc.data.stats.order.iter().rev().copied().collect(),
    };
    let many = shown.len() > 3000;
    let unused_count = sc.prep.unused.iter().filter(|&&u| u).count();
    let band = host_band(fr);
    let mut visible_links = 0usize;
    for &li in &shown {
        let i = li as usize;
        let Some(&(a, b)) = links.get(i) else {
            continue;
        };
        let (ra, rb) = (sc.sw_rect(a as usize), sc.sw_rect(b as usize));
        let (xa, xb) = (ra.center().x, rb.center().x);
        if xa.max(xb) < left || xa.min(xb) > right {
            continue;
        }
        let Some((col, w, dashed)) = link_look(sc, i, many, unused_count) else {
            continue;
        };
        visible_links += 1;
        let (la, lb) = (lay.level_of[a as usize], lay.level_of[b as usize]);
        let up = sc.prep.up_end.get(i).copied().unwrap_or(a);
        let mut piece = |p0: Pos2, p1: Pos2, dashed: bool| {
            if dashed {
                add_dashed(&mut mesh, p0, p1, w, col);
            } else {
                add_segment(&mut mesh, p0, p1, w, col);
            }
            segs.push((li, p0, p1));
        };
        if la == lb {
            let (pa, pb) = (ra.center_top(), rb.center_top());
            let lift = (fr.row * 0.3).min(8.0 + (pa.x - pb.x).abs() * 0.2);
            let pts = arc(pa, pb, lift);
            for k in 0..6 {
                if !(dashed && k % 2 == 1) {
                    piece(pts[k], pts[k + 1], false);
                }
            }
            // Arrowhead into the up end.
            let (tip, from) = if up == a {
                (pts[0], pts[1])
            } else {
                (pts[6], pts[5])
            };
            add_arrow(&mut arrows, tip, tip - from, 7.0, col.gamma_multiply(1.3));
        } else {
            let (upper, lower, upper_sw) = if la < lb { (ra, rb, a) } else { (rb, ra, b) };
            let s = upper_sw as usize;
            let p0 = if f.hosts_on(s).is_empty() && f.idle_hosts(s) == 0 {
                upper.center_bottom()
            } else {
                upper.center_bottom() + vec2(0.0, band)
            };
            let p1 = lower.center_top();
            piece(p0, p1, dashed);
            // The up end of a link between levels is its upper end; an
            // arrowhead says so where the link is long enough to carry one.
            if (p1 - p0).length() > 40.0 {
                let tip = p0 + (p1 - p0).normalized() * 2.0;
                add_arrow(&mut arrows, tip, p0 - p1, 6.0, col.gamma_multiply(1.3));
            }
        }
    }
    // Too many arrowheads are noise: keep them when the links are few.
    if visible_links <= 3000 {
        mesh.append(arrows);
    }
    (mesh, segs)
}

/// Switch boxes (roots in violet, a light top edge when wide enough, the
/// name when it fits) and their hosts, culled to the span built.
fn build_switches(sc: &Scene<'_>) -> (Mesh, Vec<SwitchShape>, Vec<(Pos2, String, Color32)>) {
    let (left, right) = sc.frame.span();
    let mut boxes = Mesh::default();
    let mut switches = Vec::new();
    let mut labels = Vec::new();
    for lv in &sc.prep.layout.levels {
        for &s in lv {
            let su = s as usize;
            let r = sc.sw_rect(su);
            let cx = r.center().x;
            if !((cx >= left && cx <= right) || (r.min.x < right && r.max.x > left)) {
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
                let name = sc.f.switches()[su].label();
                let max_chars = ((r.width() - 4.0) / 6.5).max(1.0) as usize;
                let text: String = if name.chars().count() > max_chars {
                    name.chars()
                        .take(max_chars.saturating_sub(1))
                        .chain(['…'])
                        .collect()
                } else {
                    name.to_string()
                };
                labels.push((r.center(), text, Color32::from_gray(235)));
            }
            let (hosts, dots) = add_hosts(sc, su, r, &mut boxes, &mut labels);
            switches.push(SwitchShape {
                sw: s,
                rect: r,
                hosts,
                dots,
            });
        }
    }
    (boxes, switches, labels)
}

/// The hosts of switch `s` under its box `r`: dots when few and wide
/// enough, else a strip (a slice per host while slices are at least a
/// point wide, else the group's mean colour) with the count. Returns the
/// hosts' area (empty when none) and whether they are dots.
fn add_hosts(
    sc: &Scene<'_>,
    s: usize,
    r: Rect,
    boxes: &mut Mesh,
    labels: &mut Vec<(Pos2, String, Color32)>,
) -> (Rect, bool) {
    let f = sc.f;
    let idle = f.idle_hosts(s) as usize;
    let n = f.hosts_on(s).len() + idle;
    if n == 0 {
        return (Rect::NOTHING, false);
    }
    let band = host_band(sc.frame);
    let width = r.width().max(2.0);
    let top = r.max.y + 2.0;
    let pitch = dot_pitch(width, n);
    let rows = n.div_ceil(8);
    if n <= MAX_DOTS && pitch >= MIN_DOT_PITCH && rows as f32 * pitch <= band {
        let d = (pitch * 0.7).min(8.0);
        for k in 0..n {
            let c = pos2(
                r.min.x + (k % 8) as f32 * pitch + pitch * 0.5,
                top + (k / 8) as f32 * pitch + pitch * 0.5,
            );
            boxes.add_colored_rect(Rect::from_center_size(c, vec2(d, d)), sc.host_color(s, k));
        }
        let hr = Rect::from_min_max(pos2(r.min.x, top), pos2(r.max.x, top + rows as f32 * pitch));
        return (hr, true);
    }
    let sh = (band * 0.45).clamp(2.0, 7.0);
    let hr = Rect::from_min_max(pos2(r.min.x, top), pos2(r.max.x, top + sh));
    let slice = width / n as f32;
    if slice >= 1.0 {
        for k in 0..n {
            let x0 = r.min.x + k as f32 * slice;
            let x1 = x0 + slice.max(1.0) - if slice >= 3.0 { 0.5 } else { 0.0 };
            boxes.add_colored_rect(
                Rect::from_min_max(pos2(x0, top), pos2(x1, top + sh)),
                sc.host_color(s, k),
            );
        }
    } else {
        // Mean colour of the group.
        let (mut rr, mut gg, mut bb) = (0u32, 0u32, 0u32);
        for k in 0..n {
            let c = sc.host_color(s, k);
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
        let hosts = f.hosts_on(s).len();
        labels.push((
            pos2(r.center().x, top + sh + 1.0),
            if idle > 0 {
                format!("{hosts}+{idle}")
            } else {
                format!("{n}")
            },
            Color32::from_gray(170),
        ));
    }
    (hr, false)
}

/// Spacing of host dots under a box `width` points wide (8 a row, at most
/// 10 points apart).
fn dot_pitch(width: f32, n: usize) -> f32 {
    (width / n.clamp(1, 8) as f32).min(10.0)
}

/// Height under a box kept for its hosts.
pub fn host_band(fr: Frame) -> f32 {
    (fr.row * 0.28).clamp(6.0, 40.0)
}

/// The dot of host `h` in a switch drawn with dots.
pub fn host_dot_rect(f: &Fabric, s: &SwitchShape, h: usize) -> Option<Rect> {
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
pub fn pick(d: &FabDrawn, f: &Fabric, p: Pos2) -> Option<Pick> {
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
    let mut best: Option<(u32, f32)> = None;
    for &(i, a, b) in &d.segs {
        let dd = seg_dist(p, a, b);
        if dd < 6.0 && best.is_none_or(|(_, bd)| dd < bd) {
            best = Some((i, dd));
        }
    }
    best.map(|(i, _)| Pick::Link(i))
}
