//! Painting the network view: one mesh for the links and one for the nodes,
//! rebuilt only when something that shapes them changes (the cache key), and
//! the overlays drawn every frame (routes of the selected process, the
//! selected link, the last placement of a stepping mapper, slice labels).
//!
//! Links are drawn coldest first so the hottest end on top. In the
//! projection along Z, each X/Y link position shows the busiest link of its
//! column (a maximum projection) and each node square the busiest Z link of
//! its column; hovering or selecting there names that link.
//!
//! Cost: O(nodes + links) per rebuild, O(selected routes) per frame.

use super::contention::{LinkStats, LinkStyle, link_style};
use super::geometry::{Geometry, LinkGeom, Projector, Resolved};
use crate::colormap::viridis;
use crate::draw::add_segment;
use egui::{Color32, Mesh, Pos2, Rect, Vec2, vec2};
use glam::Vec3;
use std::sync::Arc;

/// What was drawn last (reused while nothing that shapes it changes). The
/// links and the nodes have keys of their own: a run's snapshot moves
/// processes (new node colours) more often than it changes link loads.
pub struct Drawn {
    /// What positions every node: rectangle, mode, network, camera.
    pub view_key: Vec<u64>,
    /// What styles the links (values, colour range, filter, difference).
    pub links_key: Vec<u64>,
    /// What colours the nodes (placement, colours).
    pub nodes_key: Vec<u64>,
    /// Screen position and scale of every node.
    pub screen: Vec<(Pos2, f32)>,
    /// Drawn link segments: (link index, ends) for hover and routes.
    pub segs: Vec<(usize, Pos2, Pos2)>,
    /// Node squares of the projection: (link index of the busiest Z link, rect).
    pub cells: Vec<(usize, Rect)>,
    pub links: Arc<Mesh>,
    pub nodes: Arc<Mesh>,
    /// Whether nodes were drawn (hover picks nodes only then).
    pub nodes_drawn: bool,
}

/// Inputs of a rebuild.
pub struct Scene<'a> {
    pub geom: &'a Geometry,
    pub proj: &'a Projector,
    pub resolved: Resolved,
    pub stats: &'a LinkStats,
    pub threshold: f64,
    /// The busiest value of the colour scale (this view's, or shared).
    pub maxv: f64,
    /// Difference view: per-link change B − A and its largest magnitude;
    /// links are then coloured on the diverging map instead of by load.
    pub delta: Option<(&'a [f64], f64)>,
    /// Opacity of links below the threshold (0 = hidden).
    pub ghost: u8,
    pub node_proc: &'a [u32],
    pub colors: &'a [Color32],
    pub clip: Rect,
}

/// Radius of node `i`'s disc.
pub fn node_radius(three: bool, unit: f32) -> f32 {
    if three {
        (unit * 0.16).clamp(1.0, 9.0)
    } else {
        (unit * 0.28).clamp(1.2, 12.0)
    }
}

/// Colour of a link drawn in full at scale position `t`, with opacity.
fn link_color(t: f32, alpha: u8) -> Color32 {
    let c = viridis(0.12 + 0.88 * t);
    Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), alpha)
}

/// Everything, with the three keys.
pub fn build(
    sc: &Scene<'_>,
    (view_key, links_key, nodes_key): (Vec<u64>, Vec<u64>, Vec<u64>),
) -> Drawn {
    let screen: Vec<(Pos2, f32)> = sc.geom.world.iter().map(|&p| sc.proj.at(p)).collect();
    let (links, segs, cells) = build_links(sc, &screen);
    let (nodes, nodes_drawn) = build_nodes(sc, &screen);
    Drawn {
        view_key,
        links_key,
        nodes_key,
        screen,
        segs,
        cells,
        links: Arc::new(links),
        nodes: Arc::new(nodes),
        nodes_drawn,
    }
}

impl Drawn {
    /// Bring the link mesh up to `links_key` and the node mesh up to
    /// `nodes_key` (the view unchanged): only what changed is rebuilt.
    /// Returns whether anything was.
    pub fn update(&mut self, sc: &Scene<'_>, links_key: Vec<u64>, nodes_key: Vec<u64>) -> bool {
        let mut any = false;
        if self.links_key != links_key {
            let (links, segs, cells) = build_links(sc, &self.screen);
            (self.links, self.segs, self.cells) = (Arc::new(links), segs, cells);
            self.links_key = links_key;
            any = true;
        }
        if self.nodes_key != nodes_key {
            let (nodes, drawn) = build_nodes(sc, &self.screen);
            (self.nodes, self.nodes_drawn) = (Arc::new(nodes), drawn);
            self.nodes_key = nodes_key;
            any = true;
        }
        any
    }
}

/// The link mesh (coldest first, so the hottest end on top), the drawn
/// segments and the projection's squares.
#[allow(clippy::type_complexity)]
fn build_links(
    sc: &Scene<'_>,
    screen: &[(Pos2, f32)],
) -> (Mesh, Vec<(usize, Pos2, Pos2)>, Vec<(usize, Rect)>) {
    let geom = sc.geom;
    let three = sc.proj.is_3d();
    let unit = |i: usize| screen[i].1;
    let in_view = |p: Pos2| sc.clip.expand(50.0).contains(p);
    let many = geom.links.len() > 20_000;
    let mut mesh = Mesh::default();
    // A quad per link (wrap links: four): no regrowth while building.
    mesh.vertices.reserve(geom.links.len() * 4);
    mesh.indices.reserve(geom.links.len() * 6);
    let mut segs: Vec<(usize, Pos2, Pos2)> = Vec::with_capacity(geom.links.len());
    let mut cells: Vec<(usize, Rect)> = Vec::new();
    // Which links are drawn: in the projection, the busiest per column.
    // A difference orders them by the size of the change.
    let abs: Vec<f64>;
    let key_vals: &[f64] = match sc.delta {
        Some((d, _)) => {
            abs = d.iter().map(|x| x.abs()).collect();
            &abs
        }
        None => &sc.stats.vals,
    };
    let shown: Vec<u32> = match (sc.resolved, sc.delta) {
        (Resolved::Projection, _) => projected_links(geom, key_vals),
        (_, Some(_)) => {
            let mut o: Vec<u32> = (0..key_vals.len() as u32).collect();
            o.sort_by(|&a, &b| key_vals[a as usize].total_cmp(&key_vals[b as usize]));
            o
        }
        _ => sc.stats.order.iter().rev().copied().collect(),
    };
    let style_of = |i: usize| -> (LinkStyle, Color32) {
        match sc.delta {
            Some((d, m)) => delta_style(d[i], m, sc.ghost),
            None => {
                let st = link_style(sc.stats.vals[i], sc.threshold, sc.maxv, sc.ghost);
                (st, link_color(st.t, st.alpha))
            }
        }
    };
    let width = |k: f32, a: usize, b: usize| {
        if three {
            (k * unit(a).min(unit(b)) * 0.05).clamp(0.5, 5.0)
        } else {
            (k * unit(a) * 0.1).clamp(0.6, 7.0)
        }
    };
    for &li in &shown {
        let i = li as usize;
        let l = &geom.links[i];
        let (st, full_col) = style_of(i);
        if !st.full && st.alpha == 0 {
            continue;
        }
        let (a, b) = (l.a as usize, l.b as usize);
        if sc.resolved == Resolved::Projection && l.dim == 2 {
            // A Z link: its column's square.
            let (p, s) = screen[a];
            let side = if st.full {
                s * (0.3 + 0.15 * st.width)
            } else {
                s * 0.3
            };
            let r = Rect::from_center_size(p, Vec2::splat(side));
            if st.full {
                mesh.add_colored_rect(r, full_col);
            } else {
                mesh.add_colored_rect(r, Color32::from_rgba_unmultiplied(110, 110, 125, st.alpha));
            }
            cells.push((i, Rect::from_center_size(p, Vec2::splat(s * 0.6))));
            continue;
        }
        if sc.resolved == Resolved::Slices && l.dim == 2 {
            continue; // between slices: shown in 3D and in the projection
        }
        let (col, w) = if st.full {
            let base = if many { 1.0 } else { 1.5 };
            (full_col, width(base * st.width, a, b))
        } else {
            (
                Color32::from_rgba_unmultiplied(110, 110, 125, st.alpha),
                width(st.width, a, b).min(1.0),
            )
        };
        let (pa, pb) = (screen[a].0, screen[b].0);
        if !in_view(pa) && !in_view(pb) {
            continue;
        }
        add_link(&mut mesh, &mut segs, sc.proj, geom, i, l, (pa, pb), w, col);
    }

    (mesh, segs, cells)
}

/// The node mesh: discs with the colour of their process.
fn build_nodes(sc: &Scene<'_>, screen: &[(Pos2, f32)]) -> (Mesh, bool) {
    let three = sc.proj.is_3d();
    // Nodes: discs with the colour of their process. In 3D past a few
    // thousand nodes they are small and translucent so the links stay
    // visible; the projection draws Z-link squares instead.
    let mut nodes = Mesh::default();
    let nn = sc.geom.world.len();
    nodes.vertices.reserve(nn * 4);
    nodes.indices.reserve(nn * 6);
    let nodes_drawn = sc.resolved != Resolved::Projection;
    if nodes_drawn {
        let faint = three && nn > 2000;
        for (i, &(p, u)) in screen.iter().enumerate() {
            if !sc.clip.contains(p) {
                continue;
            }
            let r = node_radius(three, u);
            let proc_ = sc.node_proc.get(i).copied().unwrap_or(u32::MAX);
            if proc_ == u32::MAX {
                let rr = (r * 0.45).max(0.8);
                nodes.add_colored_rect(
                    Rect::from_center_size(p, Vec2::splat(rr * 2.0)),
                    Color32::from_gray(70).gamma_multiply(if faint { 0.3 } else { 1.0 }),
                );
            } else {
                let c = sc
                    .colors
                    .get(proc_ as usize)
                    .copied()
                    .unwrap_or(Color32::GRAY);
                if faint {
                    let c = Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), 60);
                    nodes.add_colored_rect(Rect::from_center_size(p, Vec2::splat(r)), c);
                } else {
                    add_disc(&mut nodes, p, r, c, nn > 4000);
                }
            }
        }
    }
    (nodes, nodes_drawn)
}

/// The busiest link per X/Y link position and per Z column, coldest first.
fn projected_links(geom: &Geometry, vals: &[f64]) -> Vec<u32> {
    let (x, y) = (
        geom.dims.first().copied().unwrap_or(1) as usize,
        geom.dims.get(1).copied().unwrap_or(1) as usize,
    );
    let plane = (x * y).max(1);
    // Slot: column * 3 + dim.
    let mut best: Vec<u32> = vec![u32::MAX; plane * 3];
    for (i, l) in geom.links.iter().enumerate() {
        let slot = (l.a as usize % plane) * 3 + (l.dim as usize).min(2);
        let cur = best[slot];
        if cur == u32::MAX || vals[i] > vals[cur as usize] {
            best[slot] = i as u32;
        }
    }
    let mut out: Vec<u32> = best.into_iter().filter(|&i| i != u32::MAX).collect();
    out.sort_by(|&a, &b| vals[a as usize].total_cmp(&vals[b as usize]));
    out
}

/// One link into the mesh: a segment, or for a torus wrap link two stubs
/// leaving the grid outward with a bar at their tips.
#[allow(clippy::too_many_arguments)]
fn add_link(
    mesh: &mut Mesh,
    segs: &mut Vec<(usize, Pos2, Pos2)>,
    proj: &Projector,
    geom: &Geometry,
    i: usize,
    l: &LinkGeom,
    (pa, pb): (Pos2, Pos2),
    w: f32,
    col: Color32,
) {
    if l.wrap {
        let mut dir = Vec3::ZERO;
        dir[l.dim.min(2) as usize] = 1.0;
        let wa = geom.world[l.a as usize] + dir * 0.42;
        let wb = geom.world[l.b as usize] - dir * 0.42;
        let (sa, sb) = (proj.at(wa).0, proj.at(wb).0);
        for (p0, p1) in [(pa, sa), (pb, sb)] {
            add_segment(mesh, p0, p1, w, col);
            let d = (p1 - p0).normalized();
            let nrm = vec2(-d.y, d.x) * (w * 1.6 + 2.0);
            add_segment(mesh, p1 - nrm, p1 + nrm, (w * 0.8).max(1.0), col);
            segs.push((i, p0, p1));
        }
    } else {
        add_segment(mesh, pa, pb, w, col);
        segs.push((i, pa, pb));
    }
}

/// A filled disc (a decagon, or a square when `cheap`) appended to a mesh.
pub fn add_disc(mesh: &mut Mesh, c: Pos2, r: f32, color: Color32, cheap: bool) {
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
pub fn seg_dist(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_sq().max(1e-6)).clamp(0.0, 1.0);
    (a + ab * t - p).length()
}

/// Style and colour of a link whose value changed by `v` (B − A) when the
/// largest change is `m`: RdBu by sign, stronger and wider with |v| / m;
/// an unchanged link is transparent (the difference view, tori and fabrics).
pub(super) fn delta_style(v: f64, m: f64, ghost: u8) -> (LinkStyle, Color32) {
    if v == 0.0 || m <= 0.0 || !v.is_finite() {
        let st = link_style(0.0, 1.0, 1.0, ghost);
        return (st, Color32::TRANSPARENT);
    }
    let t = (v.abs() / m).clamp(0.0, 1.0) as f32;
    let st = LinkStyle {
        t,
        alpha: (110.0 + 145.0 * t).round() as u8,
        width: 1.0 + 2.5 * t,
        full: true,
    };
    let c = super::super::colormap::diverging(v.signum() as f32 * (0.25 + 0.75 * t));
    (
        st,
        Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), st.alpha),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::pos2;
    use hopmap_core::metrics::{Evaluation, LinkLoads};
    use hopmap_core::topology::Topology;

    #[test]
    fn projection_keeps_the_busiest_link_of_each_column() {
        let topo = Topology::parse("mesh:2x2x3").unwrap();
        let geom = Geometry::new(&topo);
        let mut load = vec![0.0; topo.channel_slots()];
        // Load every X link by its z (so z = 2 is the busiest of each column).
        for l in &geom.links {
            load[l.fwd as usize] = geom.world[l.a as usize].z as f64 + 1.0;
        }
        let e = Evaluation {
            links: LinkLoads {
                flows: vec![0; load.len()],
                load,
                used: Vec::new(),
            },
            ..Default::default()
        };
        let stats = LinkStats::compute(&geom.links, Some(&e), false);
        let shown = projected_links(&geom, &stats.vals);
        // Per column of the 2×2 plane: X links exist from x = 0 (2 columns),
        // Y links from y = 0 (2 columns), Z links in all 4 columns.
        let xs: Vec<&LinkGeom> = shown
            .iter()
            .map(|&i| &geom.links[i as usize])
            .filter(|l| l.dim == 0)
            .collect();
        assert_eq!(xs.len(), 2);
        assert!(xs.iter().all(|l| geom.world[l.a as usize].z == 2.0));
        assert_eq!(shown.len(), 2 + 2 + 4);
        // Coldest first.
        for w in shown.windows(2) {
            assert!(stats.vals[w[0] as usize] <= stats.vals[w[1] as usize]);
        }
        assert!((seg_dist(pos2(0.0, 1.0), pos2(-1.0, 0.0), pos2(1.0, 0.0)) - 1.0).abs() < 1e-6);
    }
}
