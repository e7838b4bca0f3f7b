//! The grid drawing of the network view (meshes and tori): 3D, Z slices or
//! the projection along Z ([`super::geometry`]), the link heatmap and the
//! nodes as one cached mesh each (`paint`), and the overlays drawn
//! every frame: routes and partners of the selected process, the selected
//! and the hovered link, the last placement of a stepping mapper, the
//! processes of the guided step, the moved processes of a difference, and
//! the slice labels.
//!
//! Cost per frame: nothing while the picture is unchanged (cached meshes);
//! O(nodes + links) to rebuild; O(nodes + drawn segments) to pick under a
//! hovering pointer.

use super::geometry::{self, Projector, Resolved};
use super::paint::{self, Drawn, Scene, node_radius};
use super::{Ctx, LinkDelta, Picked, ViewMode, input, legend};
use crate::Model;
use crate::draw::add_large_mesh;
use crate::graph_view::coord_text;
use egui::{Color32, Rect, Sense, Shape, Stroke, pos2, vec2};
use glam::Vec3;
use hopmap_core::units::fmt_bytes;

/// The grid drawing's own state: its meshes of the last rebuild.
#[derive(Default)]
pub struct GridView {
    drawn: Option<Drawn>,
}

impl GridView {
    /// Where node `v` was drawn in the last frame (tests: hover, click).
    pub fn node_screen(&self, v: usize) -> Option<egui::Pos2> {
        self.drawn.as_ref()?.screen.get(v).map(|s| s.0)
    }

    /// Draw the grid into the rest of `ui`: the picture, its overlays,
    /// hover and click, and (when not synced) the legend.
    pub fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Ctx<'_>, model: &mut Model) {
        let synced = cx.sync.is_some();
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let full = resp.rect;
        painter.rect_filled(full, 4.0, Color32::from_gray(14));
        // The mode the last frame resolved to words the note; a change of
        // mode resizes the drawing on the next frame.
        let legend_h = if synced {
            0.0
        } else {
            let prev = *cx.resolved;
            let lg = grid_legend(cx, cx.range(prev == Resolved::Projection));
            legend::Laid::new(&painter, full.width(), &lg).height()
        };
        let rect = Rect::from_min_max(full.min, pos2(full.max.x, full.max.y - legend_h));
        let painter = painter.with_clip_rect(full);
        if cx.data.geom.world.is_empty() {
            return;
        }
        let geom = &cx.data.geom;
        let resolved = geometry::choose_mode(cx.mode, geom, rect);
        if resolved != *cx.resolved {
            // Another drawing: start from its whole picture.
            *cx.resolved = resolved;
            *cx.cam = Default::default();
        }
        if let Some(i) = cx.frame_request.take()
            && let Some(p) = geom.link_mid(i)
        {
            geometry::frame_point(resolved, geom, rect, cx.cam, p);
        }
        let three = resolved == Resolved::ThreeD;
        input::camera(ui, &resp, rect, three, cx.cam);
        let proj = Projector::new(resolved, geom, rect, cx.cam);
        let range = cx.range(resolved == Resolved::Projection);
        self.ensure_meshes(cx, model, &proj, (rect, full), range);
        let Some(drawn) = self.drawn.as_ref() else {
            return;
        };
        paint_overlays(cx, &painter, drawn, &proj, model);
        hover_and_click(cx, &resp, rect, drawn, model);
        if resolved == Resolved::Slices {
            slice_labels(cx, &painter, drawn, &proj);
        }
        if !synced {
            let lg = grid_legend(cx, range);
            let laid = legend::Laid::new(&painter, full.width(), &lg);
            legend::draw(ui, &painter, full, &lg, laid);
        }
    }

    /// Rebuild the link and node meshes when anything that shapes them
    /// changed: both when the view moved (rectangle, mode, network,
    /// camera), the links alone for new link values, colour range or
    /// difference, the nodes alone for a new placement or colours.
    fn ensure_meshes(
        &mut self,
        cx: &mut Ctx<'_>,
        model: &Model,
        proj: &Projector,
        (rect, full): (Rect, Rect),
        (threshold, maxv): (f64, f64),
    ) {
        let resolved = *cx.resolved;
        let delta = cx.delta();
        let ghost = cx.ghost_alpha();
        let mut view_key = vec![
            rect.min.x.to_bits() as u64 | (rect.min.y.to_bits() as u64) << 32,
            rect.max.x.to_bits() as u64 | (rect.max.y.to_bits() as u64) << 32,
            resolved as u64,
            model.topo.generation(),
        ];
        view_key.extend(cx.cam.key());
        let links_key = vec![
            (cx.by_flows as u64) << 8 | (ghost as u64) << 16,
            threshold.to_bits(),
            maxv.to_bits(),
            cx.data.stats_gen,
            delta.map_or(u64::MAX, |d| d.generation),
        ];
        let nodes_key = vec![model.placement.generation(), cx.colors_gen];
        let scene = Scene {
            geom: &cx.data.geom,
            proj,
            resolved,
            stats: &cx.data.stats,
            threshold,
            maxv,
            delta: delta.map(|d| (&d.vals[..], d.max_abs)),
            ghost,
            node_proc: &cx.data.node_proc,
            colors: cx.colors,
            clip: full,
        };
        match self.drawn.as_mut() {
            Some(d) if d.view_key == view_key => {
                if d.update(&scene, links_key, nodes_key) {
                    *cx.rebuilds += 1;
                }
            }
            _ => {
                *cx.rebuilds += 1;
                self.drawn = Some(paint::build(&scene, (view_key, links_key, nodes_key)));
            }
        }
    }
}

/// Everything drawn over the cached meshes, in order: links, routes, nodes,
/// selection, selected link, last placement, guided step, bipartition,
/// moved processes, the hover of a synced view.
fn paint_overlays(
    cx: &Ctx<'_>,
    painter: &egui::Painter,
    drawn: &Drawn,
    proj: &Projector,
    model: &Model,
) {
    let three = proj.is_3d();
    add_large_mesh(painter, drawn.links.clone(), 0);
    paint_routes(cx, painter, drawn, model);
    add_large_mesh(painter, drawn.nodes.clone(), 1);
    paint_selection(cx, painter, drawn, proj, model);
    paint_selected_link(cx, painter, drawn, proj);
    paint_last_placement(painter, drawn, proj, model, three);
    paint_step_processes(painter, drawn, model, three);
    super::parts_overlay::paint(painter, proj, &cx.data.geom, model);
    if let Some(d) = cx.delta() {
        paint_moved(painter, drawn, three, d);
    }
    if let Some(h) = cx.sync.as_ref().and_then(|s| s.hover) {
        paint_hover(cx, painter, drawn, proj, h);
    }
}

/// The node or link under the pointer: its tooltip, the shared hover of
/// synced views, and a click's selection (a node's process, a link, or
/// nothing on the background).
fn hover_and_click(
    cx: &mut Ctx<'_>,
    resp: &egui::Response,
    rect: Rect,
    drawn: &Drawn,
    model: &mut Model,
) {
    let three = *cx.resolved == Resolved::ThreeD;
    let hover = resp.hover_pos().filter(|p| rect.contains(*p));
    let picked = hover.and_then(|p| input::pick(drawn, three, p));
    if let Some(s) = cx.sync.as_deref_mut() {
        s.publish_hover(picked);
    }
    let hover_text = picked.map(|k| match k {
        Picked::Node(v) => node_text(model, v),
        Picked::Link(i) => link_text(cx, model, i),
    });
    if resp.clicked() {
        match picked {
            Some(Picked::Node(v)) => {
                let p = cx.data.node_proc[v];
                model.selected = (p != u32::MAX).then_some(p as usize);
                if let Some(s) = cx.sync.as_deref_mut() {
                    s.clicked = Some(model.selected);
                }
            }
            Some(Picked::Link(i)) => *cx.selected_link = Some(i),
            None => {
                model.selected = None;
                *cx.selected_link = None;
                if let Some(s) = cx.sync.as_deref_mut() {
                    s.clicked = Some(None);
                }
            }
        }
    }
    if let Some(t) = hover_text {
        resp.clone().on_hover_text_at_pointer(t);
    }
}

/// `z = k` over each slice.
fn slice_labels(cx: &Ctx<'_>, painter: &egui::Painter, drawn: &Drawn, proj: &Projector) {
    let geom = &cx.data.geom;
    let zs = geom.dims.get(2).copied().unwrap_or(1) as usize;
    let (lo, unit) = (geom.lo, drawn.screen[0].1);
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

/// The legend under the grid, with the note on an automatic mode choice.
fn grid_legend(cx: &Ctx<'_>, range: (f64, f64)) -> legend::Legend<'static> {
    let resolved = *cx.resolved;
    let projected = resolved == Resolved::Projection;
    let geom = &cx.data.geom;
    let filter = cx
        .filter
        .resolve(geom.links.len(), cx.data.stats.used, projected);
    let auto_note = match (cx.mode, resolved) {
        (ViewMode::Auto, Resolved::Projection) => {
            Some("Auto: 3D and Z slices would be a solid block here")
        }
        (ViewMode::Auto, Resolved::Slices) => Some("Auto: 3D would hide the inside of the block"),
        _ => None,
    };
    cx.legend(range, filter, (resolved, geom.any_wrap), auto_note)
}

/// `X link (3, 4, 5) -> (4, 4, 5)`.
pub fn link_name(geom: &geometry::Geometry, model: &Model, i: usize) -> String {
    let Some(l) = geom.links.get(i) else {
        return String::new();
    };
    let axis = if geom.dims.is_empty() {
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

/// `X (3, 4, 5) – (4, 4, 5)`: [`link_name`] without the node numbers
/// (the coordinates name the nodes; tables).
pub fn link_short_name(geom: &geometry::Geometry, model: &Model, i: usize) -> String {
    let Some(l) = geom.links.get(i) else {
        return String::new();
    };
    let axis = ["X ", "Y ", "Z ", "W ", "V ", "U "][l.dim as usize % 6];
    let (a, b) = (
        coord_text(model, l.a as usize),
        coord_text(model, l.b as usize),
    );
    if a.is_empty() {
        return link_name(geom, model, i);
    }
    format!(
        "{axis}{} – {}{}",
        a.trim_start(),
        b.trim_start(),
        if l.wrap { " wrap" } else { "" }
    )
}

/// The node or link hovered in any synced view: a cyan ring or outline
/// with this view's process there or this view's load on the link.
fn paint_hover(cx: &Ctx<'_>, painter: &egui::Painter, drawn: &Drawn, proj: &Projector, h: Picked) {
    let cyan = Color32::from_rgb(80, 230, 255);
    let font = egui::FontId::proportional(12.0);
    match h {
        Picked::Node(v) if v < drawn.screen.len() => {
            let (p, unit) = drawn.screen[v];
            let r = node_radius(proj.is_3d(), unit);
            painter.circle_stroke(p, r + 4.0, Stroke::new(2.0, cyan));
            let pr = cx.data.node_proc.get(v).copied().unwrap_or(u32::MAX);
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
            let Some(l) = cx.data.geom.links.get(i) else {
                return;
            };
            let (pa, pb) = (
                proj.at(cx.data.geom.world[l.a as usize]).0,
                proj.at(cx.data.geom.world[l.b as usize]).0,
            );
            let pb = if l.wrap || (*cx.resolved == Resolved::Projection && l.dim == 2) {
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
                cx.value_text(cx.data.stats.vals.get(i).copied().unwrap_or(0.0)),
                font,
                cyan,
            );
        }
        _ => {}
    }
}

/// Difference view: a ring on every node that holds a moved process.
fn paint_moved(painter: &egui::Painter, drawn: &Drawn, three: bool, d: &LinkDelta) {
    let col = Color32::from_rgb(255, 200, 40);
    for &v in d.moved_nodes.iter().take(20_000) {
        if let Some(&(p, unit)) = drawn.screen.get(v as usize) {
            let r = node_radius(three, unit);
            painter.circle_stroke(p, r + 1.5, Stroke::new(1.5, col));
        }
    }
}

fn paint_routes(cx: &Ctx<'_>, painter: &egui::Painter, drawn: &Drawn, model: &Model) {
    if model.selected.is_none() {
        return;
    }
    let on = |ch: u32| {
        cx.data
            .route_channels
            .get(ch as usize)
            .copied()
            .unwrap_or(false)
    };
    for &(i, p0, p1) in &drawn.segs {
        let l = &cx.data.geom.links[i];
        if on(l.fwd) || on(l.back) {
            painter.line_segment([p0, p1], Stroke::new(3.0, Color32::WHITE));
        }
    }
}

fn paint_selection(
    cx: &Ctx<'_>,
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
        for &v in &cx.data.partner_nodes {
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
fn paint_selected_link(cx: &Ctx<'_>, painter: &egui::Painter, drawn: &Drawn, proj: &Projector) {
    let Some(i) = *cx.selected_link else { return };
    let Some(l) = cx.data.geom.links.get(i) else {
        return;
    };
    let mag = Color32::from_rgb(255, 60, 220);
    let (pa, pb) = (
        proj.at(cx.data.geom.world[l.a as usize]).0,
        proj.at(cx.data.geom.world[l.b as usize]).0,
    );
    let (p0, p1) = if *cx.resolved == Resolved::Projection && l.dim == 2 {
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
        cx.value_text(cx.data.stats.vals.get(i).copied().unwrap_or(0.0)),
        egui::FontId::proportional(13.0),
        Color32::WHITE,
    );
}

fn node_text(model: &Model, v: usize) -> String {
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

fn link_text(cx: &Ctx<'_>, model: &Model, i: usize) -> String {
    let l = cx.data.geom.links[i];
    let (lf, ff, lb, fb) = match &model.eval {
        Some(e) => {
            let (lf, ff) = e.links.get(l.fwd as usize);
            let (lb, fb) = e.links.get(l.back as usize);
            (lf, ff, lb, fb)
        }
        None => (0.0, 0, 0.0, 0),
    };
    let rank = cx.data.stats.order.iter().position(|&k| k as usize == i);
    format!(
        "{}{}\n{} -> {}: {} in {ff} flows\n{} -> {}: {} in {fb} flows",
        link_name(&cx.data.geom, model, i),
        match rank {
            Some(r) if cx.data.stats.vals[i] > 0.0 => {
                format!("\nrank {} of {} used links", r + 1, cx.data.stats.used)
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

/// The processes of the step shown (guided log) on their nodes: a magenta
/// ring per node, and a dashed line between the two nodes of each exchange
/// (the lines in one mesh, the rings too when many: [`crate::draw::add_rings`]).
/// O(processes of the step), capped by [`crate::guided_log::MAX_RINGED`].
fn paint_step_processes(painter: &egui::Painter, drawn: &Drawn, model: &Model, three: bool) {
    let procs = crate::guided_log::step_processes(model);
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
        // Thousands of dashed lines: one mesh, copied once by the tessellator.
        let mut mesh = egui::Mesh::default();
        for &(p, q) in swapped.iter().take(crate::guided_log::MAX_RINGED) {
            if let (Some((a, _)), Some((b, _))) = (at(p), at(q))
                && p != q
            {
                crate::draw::add_dashed(&mut mesh, a, b, 1.5, mag);
            }
        }
        add_large_mesh(painter, std::sync::Arc::new(mesh), 3);
    }
    let rings = procs
        .iter()
        .filter_map(|&p| at(p))
        .map(|(pos, unit)| (pos, node_radius(three, unit) + 4.0));
    crate::draw::add_rings(painter, rings, 2.0, mag, 2);
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

#[cfg(test)]
mod tests {
    use super::super::{Model, NetworkView, ViewMode};
    use hopmap_core::graph::CommGraph;
    use hopmap_core::topology::Topology;

    #[test]
    fn links_cover_every_physical_link_once() {
        for spec in ["torus:4x4x4", "mesh:3x5", "torus:2x3", "torus:8"] {
            let t = Topology::parse(spec).unwrap();
            let m = Model::new(CommGraph::empty(2), "e", t.clone());
            let mut v = NetworkView::new(ViewMode::Auto, false);
            v.data.ensure(&m, false);
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
