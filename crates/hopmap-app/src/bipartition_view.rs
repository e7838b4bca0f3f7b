//! The Bipartition view: the recursive mappers (`recursive`,
//! `recursive+refine`: dual recursive bipartitioning, then VieM-style
//! refinement) animated.
//!
//! * The tree so far as an icicle diagram: one row per level, each
//!   subproblem a bar as wide as its share of the processes, in the colour
//!   of its node domain's centre (the network view's node colours, so a
//!   part has the colour its processes end with); the part cut by the last
//!   step outlined in white, parts still waiting to be cut hatched.
//! * The same parts elsewhere: the graph view colours every process by its
//!   current part (colour mode "bipartition part", chosen automatically when
//!   a recursive run starts: [`auto_color`]), and the network view outlines
//!   each current part's node domain in its colour while the construction
//!   runs ([`paint_on_network`]; the parts still to be cut, up to [`MAX_OUTLINED`]).
//! * The refinement's hop-bytes per step (all runs; each run starts again
//!   from its own construction). The metrics panel's "hop-bytes over the
//!   mapper's steps" shows the same trace.
//!
//! Step / Play / speed are the mapper panel's ([`Model::step`],
//! [`Model::play`]). Cost per frame: O(parts) for the diagram (≤ 2·nodes),
//! O(frontier parts) for the network outlines.

use super::Model;
use super::colormap::{category, position};
use super::mapper_panel::MapperPanel;
use super::network_view::geometry::{Geometry, Projector};
use crate::run_detail::{PartState, RecursiveDetail, RunDetail, TreePart};
use egui::epaint::{Mesh, Vertex, WHITE_UV};
use egui::{Color32, Pos2, Rect, Sense, Shape, Stroke, pos2, vec2};
use egui_plot::{Line, Plot, Points};
use glam::Vec3;
use hopmap_core::mappers::recursive::domain::Domain;
use hopmap_core::topology::Topology;

/// The view's state.
#[derive(Default)]
pub struct BipartitionView {
    /// Parts holding processes in the tree drawn last (tests).
    pub shown_parts: usize,
    /// Points of the refinement plot drawn last (tests).
    pub plotted: usize,
    /// The run (by start time) for which the colour mode was switched.
    colored_for: Option<std::time::Instant>,
}

/// Whether `id` is one of the recursive mappers.
pub fn is_recursive(id: &str) -> bool {
    matches!(id, "recursive" | "recursive+refine")
}

/// The recursive detail of the model's run, if any.
pub fn detail(model: &Model) -> Option<&RecursiveDetail> {
    match model.run_detail.as_ref()? {
        RunDetail::Recursive(r) if is_recursive(&model.run_id) => Some(r),
        _ => None,
    }
}

/// The colour of a part: the node colour of its domain's centre (grids: by
/// position; other networks: the centre node's category colour).
pub fn part_color(topo: &Topology, part: &TreePart) -> Color32 {
    match (topo.as_grid(), &part.domain) {
        (Some(g), Domain::Box { .. }) => {
            let dims = g.dims();
            let mut f = [0.0f32; 3];
            for (d, fd) in f.iter_mut().enumerate() {
                if d < dims.len() && dims[d] > 1 {
                    *fd = part.centre[d] / (dims[d] - 1) as f32;
                }
            }
            position(f)
        }
        (_, Domain::Set { centre, .. }) => category(*centre as usize),
        _ => Color32::GRAY,
    }
}

/// Colour of every process by its current part; None when no recursive
/// run is in progress (a finished run's mapping may be another run's than
/// the tree kept, so its processes take their nodes' colours).
pub fn process_part_colors(model: &Model) -> Option<Vec<Color32>> {
    model.run.as_ref()?;
    let d = detail(model)?;
    let cols: Vec<Color32> = d.parts.iter().map(|p| part_color(&model.topo, p)).collect();
    Some(
        (0..model.graph.n())
            .map(|p| {
                d.part_of
                    .get(p)
                    .and_then(|&k| cols.get(k as usize).copied())
                    .unwrap_or(Color32::from_gray(110))
            })
            .collect(),
    )
}

/// Switch the process colours to "bipartition part" once when a recursive
/// run starts (the combo box shows it; the user can switch back).
pub fn auto_color(view: &mut BipartitionView, model: &Model, mode: &mut super::ColorMode) {
    if model.run.is_some()
        && is_recursive(&model.run_id)
        && model.run_started.is_some()
        && view.colored_for != model.run_started
    {
        view.colored_for = model.run_started;
        *mode = super::ColorMode::Part;
    }
}

fn add_rect(mesh: &mut Mesh, r: Rect, col: Color32) {
    let i = mesh.vertices.len() as u32;
    for p in [
        r.left_top(),
        r.right_top(),
        r.right_bottom(),
        r.left_bottom(),
    ] {
        mesh.vertices.push(Vertex {
            pos: p,
            uv: WHITE_UV,
            color: col,
        });
    }
    mesh.indices
        .extend_from_slice(&[i, i + 1, i + 2, i, i + 2, i + 3]);
}

/// The horizontal extent (0..1) of every part in the icicle diagram: a
/// child takes its share of the parent's extent, in order.
pub fn extents(d: &RecursiveDetail) -> Vec<(f32, f32)> {
    let mut ext = vec![(0.0f32, 1.0f32); d.parts.len()];
    let mut cursor: Vec<f32> = vec![0.0; d.parts.len()];
    for (i, p) in d.parts.iter().enumerate() {
        if let Some(par) = p.parent {
            let par = par as usize;
            let (lo, hi) = ext[par];
            let total = d.parts[par].processes.max(1) as f32;
            let start = lo.max(cursor[par]);
            let w = (hi - lo) * p.processes as f32 / total;
            ext[i] = (start, (start + w).min(hi));
            cursor[par] = start + w;
        } else if i > 0 {
            // A second root (a new run): not expected within one run.
            ext[i] = (0.0, 1.0);
        }
        if cursor[i] == 0.0 {
            cursor[i] = ext[i].0;
        }
    }
    ext
}

impl BipartitionView {
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &mut Model, panel: &mut MapperPanel) {
        let has_coords = model.graph.coords().is_some();
        ui.horizontal_wrapped(|ui| {
            ui.strong("Recursive bipartitioning").on_hover_text(
                "Dual recursive bipartitioning (Pellegrini; Scotch's gmap): cut the machine and \
                 the communication graph in two, recurse down to single nodes. Beyond the seed \
                 papers.",
            );
            if !is_recursive(&panel.selected) {
                if ui.button("Select recursive").clicked() {
                    panel.select("recursive");
                }
                if ui.button("Select recursive+refine").clicked() {
                    panel.select("recursive+refine");
                }
                return;
            }
            let id = panel.selected.clone();
            let params = panel.effective_params(has_coords);
            let busy = model.run_to_end;
            if ui
                .add_enabled(!busy, egui::Button::new("Step bisection"))
                .on_hover_text("One step: one bisection (then one refinement batch)")
                .clicked()
            {
                model.step(&id, panel.seed, &params);
            }
            let label = if model.playing { "Pause" } else { "Play" };
            if ui.add_enabled(!busy, egui::Button::new(label)).clicked() {
                let on = !model.playing;
                model.play(&id, panel.seed, &params, on);
            }
            ui.add(
                egui::Slider::new(&mut model.speed, 1.0..=2000.0)
                    .logarithmic(true)
                    .suffix(" steps/s"),
            );
        });
        let Some(d) = detail(model) else {
            self.shown_parts = 0;
            self.plotted = 0;
            ui.label(
                "Select recursive or recursive+refine and press Step bisection or Play: the \
                 bipartition tree grows here, level by level, and the graph and network views \
                 show its parts.",
            );
            return;
        };
        let d = d.clone();
        let frontier = d.frontier().count();
        self.shown_parts = frontier;
        let level = d
            .last_cut
            .and_then(|k| d.parts.get(k as usize))
            .map_or(0, |p| p.level);
        ui.label(format!(
            "run {} of {} · {} bisections · level {} of {} · {} parts{}",
            (d.run + 1).min(d.runs.max(1)),
            d.runs.max(1),
            d.bisections,
            level,
            d.depth(),
            frontier,
            if d.refining { " · refining" } else { "" }
        ));
        let avail = ui.available_rect_before_wrap().intersect(ui.clip_rect());
        let plot_h = if d.refining || !d.trace.is_empty() {
            (avail.height() * 0.3).clamp(120.0, 260.0)
        } else {
            0.0
        };
        let tree_rect = Rect::from_min_max(avail.min, pos2(avail.max.x, avail.max.y - plot_h));
        self.tree_ui(ui, model, &d, tree_rect);
        if plot_h > 0.0 {
            let pr = Rect::from_min_max(pos2(avail.min.x, avail.max.y - plot_h + 6.0), avail.max);
            let mut pu = ui.new_child(
                egui::UiBuilder::new()
                    .id_salt("bipartition_plot")
                    .max_rect(pr)
                    .layout(egui::Layout::top_down(egui::Align::Min)),
            );
            self.plot_ui(&mut pu, &d);
        }
        ui.allocate_rect(avail, Sense::hover());
    }

    fn tree_ui(&mut self, ui: &mut egui::Ui, model: &Model, d: &RecursiveDetail, rect: Rect) {
        let resp = ui.interact(
            rect,
            ui.make_persistent_id("bipartition_tree"),
            Sense::hover(),
        );
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 4.0, Color32::from_gray(14));
        let inner = rect.shrink(10.0);
        let rows = d.depth() as usize + 1;
        let row_h = (inner.height() / rows as f32).min(40.0);
        let ext = extents(d);
        let mut mesh = Mesh::default();
        let x_of = |t: f32| inner.left() + t * inner.width();
        let bar = |i: usize| {
            let (lo, hi) = ext[i];
            let y = inner.top() + d.parts[i].level as f32 * row_h;
            Rect::from_min_max(pos2(x_of(lo), y), pos2(x_of(hi), y + row_h - 2.0))
        };
        for (i, p) in d.parts.iter().enumerate() {
            let r = bar(i);
            let c = part_color(&model.topo, p);
            let c = match p.state {
                PartState::Pending => c.gamma_multiply(0.55),
                _ => c,
            };
            let r = if r.width() > 2.0 {
                r.shrink2(vec2(0.5, 0.0))
            } else {
                r
            };
            add_rect(&mut mesh, r, c);
        }
        painter.add(Shape::mesh(mesh));
        // Pending parts: a diagonal hatch; the last cut: outlined.
        for (i, p) in d.parts.iter().enumerate() {
            if p.state == PartState::Pending {
                let r = bar(i);
                if r.width() >= 6.0 {
                    painter.line_segment(
                        [r.left_bottom(), r.right_top()],
                        Stroke::new(1.0, Color32::from_black_alpha(140)),
                    );
                }
            }
        }
        if let Some(k) = d.last_cut {
            let r = bar(k as usize);
            painter.rect_stroke(
                r,
                0.0,
                Stroke::new(2.0, Color32::WHITE),
                egui::StrokeKind::Outside,
            );
        }
        for l in 0..rows {
            painter.text(
                pos2(
                    inner.left() + 2.0,
                    inner.top() + l as f32 * row_h + row_h * 0.5,
                ),
                egui::Align2::LEFT_CENTER,
                format!("L{l}"),
                egui::FontId::proportional((row_h * 0.45).clamp(8.0, 12.0)),
                Color32::from_black_alpha(200),
            );
        }
        if let Some(pos) = resp.hover_pos() {
            let hit = (0..d.parts.len()).rev().find(|&i| bar(i).contains(pos));
            if let Some(i) = hit {
                let p = &d.parts[i];
                let state = match p.state {
                    PartState::Cut => "cut in two",
                    PartState::Leaf => "one node: its processes fill the node's cores",
                    PartState::Pending => "waiting to be cut",
                };
                resp.on_hover_text_at_pointer(format!(
                    "level {}: {} processes on {} nodes, {state}",
                    p.level,
                    p.processes,
                    p.domain.num_nodes()
                ));
            }
        }
    }

    fn plot_ui(&mut self, ui: &mut egui::Ui, d: &RecursiveDetail) {
        ui.strong("refinement: hop-bytes per step").on_hover_text(
            "Moves and swaps onto the nodes of each process's partners (VieM's N_C^d). Every \
             run starts again from its own bipartitioning; the best run is kept.",
        );
        let pts: Vec<[f64; 2]> = d
            .trace
            .iter()
            .enumerate()
            .map(|(i, &h)| [i as f64 + 1.0, h])
            .collect();
        self.plotted = pts.len();
        let c = Color32::from_rgb(120, 180, 255);
        Plot::new("bipartition_refine_plot")
            .height(ui.available_height().max(80.0))
            .allow_scroll(false)
            .x_axis_label("refinement step")
            .y_axis_formatter(|m, _| super::metrics_panel::fmt_num(m.value.round()))
            .show(ui, |pu| {
                if pts.len() < 40 {
                    pu.points(Points::new("hop-bytes", pts.clone()).color(c).radius(3.0));
                }
                pu.line(Line::new("hop-bytes", pts).color(c));
            });
    }
}

/// Pending parts outlined on the network at most (more: none, the parts
/// are then a few nodes each and the nodes' colours show them).
pub const MAX_OUTLINED: usize = 512;
/// Node rings / slice rectangles drawn at most by the overlay per frame.
pub const MAX_NODE_MARKS: usize = 4096;

/// The network view's overlay while a recursive construction runs: each
/// part waiting to be cut has its node domain outlined (and, in the flat
/// drawings, tinted) in the part's colour. At most [`MAX_OUTLINED`] parts
/// and [`MAX_NODE_MARKS`] node marks per frame.
pub fn paint_on_network(painter: &egui::Painter, proj: &Projector, geom: &Geometry, model: &Model) {
    let Some(d) = detail(model) else {
        return;
    };
    if model.run.is_none() || d.refining {
        return;
    }
    let flat = !proj.is_3d();
    let nd = geom.dims.len();
    // The parts still to be cut (one-node leaves show as their nodes'
    // colours); past MAX_OUTLINED they are too small to outline usefully.
    let pending = d.parts.iter().filter(|p| p.state == PartState::Pending);
    if pending.clone().count() > MAX_OUTLINED {
        return;
    }
    let mut budget = MAX_NODE_MARKS;
    for p in pending {
        let c = part_color(&model.topo, p);
        match &p.domain {
            Domain::Box { lo, len } if nd <= 3 && !geom.dims.is_empty() => {
                let a = Vec3::new(lo[0] as f32, lo[1] as f32, lo[2] as f32) - Vec3::splat(0.42);
                let b = Vec3::new(
                    (lo[0] + len[0]) as f32,
                    (lo[1] + len[1]) as f32,
                    (lo[2] + len[2]) as f32,
                ) - Vec3::splat(0.58);
                if flat {
                    let collapse = matches!(proj, Projector::Flat(l) if l.collapse);
                    let zs = if collapse || nd < 3 { 1 } else { len[2] };
                    if zs as usize > budget {
                        return;
                    }
                    budget -= zs as usize;
                    for k in 0..zs {
                        let z = (lo[2] + k) as f32;
                        let p0 = proj.at(Vec3::new(a.x, a.y, z)).0;
                        let p1 = proj.at(Vec3::new(b.x, b.y, z)).0;
                        let r = Rect::from_two_pos(p0, p1);
                        painter.rect_filled(r, 2.0, c.gamma_multiply(0.22));
                        painter.rect_stroke(r, 2.0, Stroke::new(2.0, c), egui::StrokeKind::Inside);
                    }
                } else {
                    let corner = |i: usize| {
                        Vec3::new(
                            if i & 1 == 0 { a.x } else { b.x },
                            if i & 2 == 0 { a.y } else { b.y },
                            if i & 4 == 0 { a.z } else { b.z },
                        )
                    };
                    let pts: Vec<Pos2> = (0..8).map(|i| proj.at(corner(i)).0).collect();
                    for i in 0..8 {
                        for bit in [1, 2, 4] {
                            let j = i | bit;
                            if j != i {
                                painter.line_segment([pts[i], pts[j]], Stroke::new(1.8, c));
                            }
                        }
                    }
                }
            }
            dom => {
                let nodes = dom.nodes(&model.topo);
                if nodes.len() > budget {
                    return;
                }
                budget -= nodes.len();
                for v in nodes {
                    if let Some(&w) = geom.world.get(v as usize) {
                        let (q, unit) = proj.at(w);
                        painter.circle_stroke(
                            q,
                            (unit * 0.3).clamp(3.0, 10.0),
                            Stroke::new(2.0, c),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_detail::TreePart;

    fn part(level: u32, parent: Option<u32>, processes: u32, state: PartState) -> TreePart {
        TreePart {
            level,
            parent,
            processes,
            domain: Domain::Set {
                nodes: vec![0],
                centre: 0,
            },
            centre: [0.0; 3],
            state,
        }
    }

    #[test]
    fn children_share_their_parents_extent_by_size() {
        let d = RecursiveDetail {
            parts: vec![
                part(0, None, 8, PartState::Cut),
                part(1, Some(0), 6, PartState::Cut),
                part(1, Some(0), 2, PartState::Pending),
                part(2, Some(1), 3, PartState::Pending),
                part(2, Some(1), 3, PartState::Pending),
            ],
            ..Default::default()
        };
        let e = extents(&d);
        assert_eq!(e[0], (0.0, 1.0));
        assert_eq!(e[1], (0.0, 0.75));
        assert_eq!(e[2], (0.75, 1.0));
        assert_eq!(e[3], (0.0, 0.375));
        assert_eq!(e[4], (0.375, 0.75));
    }
}
