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
//!   runs ([`super::network_view::parts_overlay`]; the parts still to be cut).
//! * The refinement's hop-bytes per step (all runs; each run starts again
//!   from its own construction). The metrics panel's "hop-bytes over the
//!   mapper's steps" shows the same trace.
//!
//! Step / Play / speed are the mapper panel's ([`Model::step`],
//! [`Model::play`]). Cost per frame: O(parts) for the diagram (≤ 2·nodes),
//! O(frontier parts) for the network outlines.

use super::Model;
use super::colormap::{is_recursive, part_color, recursive_detail};
use super::mapper_panel::MapperPanel;
use super::view::View;
use crate::run_detail::{PartState, RecursiveDetail};
use egui::epaint::{Mesh, Vertex, WHITE_UV};
use egui::{Color32, Rect, Sense, Shape, Stroke, pos2, vec2};
use egui_plot::{Line, Plot, Points};

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

/// Switch the process colours to "bipartition part" once when a recursive
/// run starts (the combo box shows it; the user can switch back).
pub fn auto_color(view: &mut BipartitionView, model: &Model, mode: &mut super::ColorMode) {
    if model.run.is_live()
        && is_recursive(model.run.id())
        && model.run.started().is_some()
        && view.colored_for != model.run.started()
    {
        view.colored_for = model.run.started();
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
            .y_axis_formatter(|m, _| super::draw::fmt_num(m.value.round()))
            .show(ui, |pu| {
                if pts.len() < 40 {
                    pu.points(Points::new("hop-bytes", pts.clone()).color(c).radius(3.0));
                }
                pu.line(Line::new("hop-bytes", pts).color(c));
            });
    }
}

impl View for BipartitionView {
    type Input<'a> = (&'a mut Model, &'a mut MapperPanel);
    type Output = ();

    fn title(&self) -> &'static str {
        "Bipartition"
    }

    fn ui(&mut self, ui: &mut egui::Ui, (model, panel): Self::Input<'_>) -> Self::Output {
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
            let busy = model.run.to_end();
            if ui
                .add_enabled(!busy, egui::Button::new("Step bisection"))
                .on_hover_text("One step: one bisection (then one refinement batch)")
                .clicked()
            {
                model.step(&id, panel.seed, &params);
            }
            let label = if model.run.playing() { "Pause" } else { "Play" };
            if ui.add_enabled(!busy, egui::Button::new(label)).clicked() {
                let on = !model.run.playing();
                model.play(&id, panel.seed, &params, on);
            }
            ui.add(
                egui::Slider::new(&mut model.speed, 1.0..=2000.0)
                    .logarithmic(true)
                    .suffix(" steps/s"),
            );
        });
        let Some(d) = recursive_detail(model) else {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_detail::TreePart;
    use hopmap_core::mappers::recursive::domain::Domain;

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
