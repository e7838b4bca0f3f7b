//! The Analytical view: Wu et al.'s analytical mapper (§3) animated live.
//!
//! Left, the network's box seen from above: every bin (node) coloured by
//! its workload (items whose Φ falls in it), bins over γ in red with a
//! white outline; the items as dots at Φ; the shifting targets (§3.3.2) as
//! cyan lines; the spreading forces (§3.3.3) as orange arrows towards the
//! fake anchors (on the boundary with `spread=paper`, at the shift targets with the default
//! `spread=pin`); the fixed corner items as yellow squares;
//! during legalization (§3.4) the items on their nodes and the last step's
//! migrations as magenta arrows. A 3D (or higher) network is shown one
//! slice at a time (a slider; slice k = the nodes `k·X·Y … (k+1)·X·Y − 1`,
//! i.e. Z = k in 3D), or all slices folded (each cell shows the fullest bin
//! of its column). Right, the per-iteration history: max workload with γ,
//! W(Φ) and the hop-bytes Φ would give if legalized now. Step (one
//! iteration: the first also does the setup), Play/Pause and the speed
//! are the mapper panel's ([`Model::step`], [`Model::play`], `Model::speed`).
//! Hover the words in the key for what a bin, γ, a fake anchor, shifting and
//! diffusion are.
//!
//! The state comes from the run's snapshot
//! ([`crate::run_detail::AnalyticalDetail`], built on the worker);
//! this file only draws. Cost per frame: O(1) while the picture is
//! unchanged (one cached mesh), O(items in view + bins in view) to rebuild
//! after a snapshot; arrows are decimated to at most [`MAX_ARROWS`] and
//! cell labels drawn only when the cells are large.

use super::Model;
use super::colormap::viridis;
use super::mapper_panel::MapperPanel;
use super::view::View;
use crate::run_detail::AnalyticalDetail;
use egui::epaint::{Mesh, Vertex, WHITE_UV};
use egui::{Color32, Pos2, Rect, Sense, Shape, Stroke, pos2, vec2};
use egui_plot::{HLine, Line, Plot, Points, VLine};
use hopmap_core::units::fmt_bytes;
use std::sync::Arc;

/// Arrows (forces, shifts) drawn at most, in each layer: more are decimated
/// (every k-th item).
pub const MAX_ARROWS: usize = 300;
/// Cell labels are drawn only up to this many cells in view.
const MAX_LABELS: usize = 400;

pub const TIP_BIN: &str = "Bin (Wu et al. §3.3): the region of the continuous box around one \
    network node (one unit cube). Its workload is the number of items whose position Φ falls in \
    it: how full that node would be if every item went to its bin's node.";
pub const TIP_GAMMA: &str = "γ (Wu et al. §3.3, §3.6): the almost-legal bound. Global mapping stops \
    once no bin holds more than γ items (γ·cores processes per node without grouping). Bins \
    over γ are drawn red with a white outline.";
pub const TIP_ANCHOR: &str = "Fake anchor (Wu et al. §3.3.3, Eqs. 6–9): for every item, a fixed \
    fake process tied to it by a spring, which pulls the item towards its shifted position. \
    With spread=paper the anchor sits on the boundary of the box with weight β chosen so that \
    the shifted position becomes the item's equilibrium; with spread=pin (the default, after \
    FastPlace) it sits at the shifted target itself, with a weight that grows every iteration. \
    The orange arrows point from an item to its anchor: the spreading force. Anchors are \
    discarded and recomputed every iteration.";
pub const TIP_SHIFT: &str = "Shifting (Wu et al. §3.3.2): per row of bins, the bins' segments are \
    resized in proportion to their workload and the items are moved proportionally, keeping \
    their order, so crowded bins spread out. The cyan lines go from Φ to the shifted target.";
pub const TIP_DIFFUSION: &str = "Diffusion legalization (Wu et al. §3.4, Fig. 4): solve L λ = b on \
    the network's Laplacian (b = the nodes' excess; torus wraps included), sort the nodes by λ \
    and migrate the surplus along the links greedily, always moving the item whose move costs \
    the fewest hop-bytes (legalize=diffusion). The default, legalize=bisect (beyond the paper), \
    cuts the box of nodes in two along its longest side, level by level, and splits the items \
    by Φ in proportion to the halves' slots. Magenta arrows: the last step's migrations.";
pub const TIP_W: &str = "W(Φ) (Wu et al. §3.3, Eq. 2): Σ c_ij |Φ_i − Φ_j|², the quadratic \
    wire length that global mapping minimises (during legalization: W of the nodes' positions).";
pub const TIP_HOP: &str = "Estimated hop-bytes: the hop-bytes Φ would give if legalized now \
    (torus distances): with legalize=bisect (default) exactly what bisecting this Φ (x, y, z \
    order) gives; legalization starts from the iterate where it is least, and cuts in the order \
    of the dimensions that gives the fewest. With legalize=diffusion, every item on its bin's \
    node. During legalization, the current hop-bytes.";

/// Cell labels: position and text.
type Labels = Vec<(Pos2, String)>;

/// The view's state.
pub struct AnalyticalView {
    /// The slice shown (3D and higher networks).
    pub slice: usize,
    /// Fold all slices into one picture.
    pub all_slices: bool,
    pub show_heat: bool,
    pub show_items: bool,
    pub show_shift: bool,
    pub show_forces: bool,
    pub show_migrations: bool,
    /// Points per series in the plot drawn last (tests).
    pub plotted: usize,
    /// Mesh rebuilds so far (benches check the cache).
    pub rebuilds: u64,
    cache: Option<(Vec<u64>, Arc<Mesh>, Labels)>,
}

impl Default for AnalyticalView {
    fn default() -> Self {
        AnalyticalView {
            slice: 0,
            all_slices: true,
            show_heat: true,
            show_items: true,
            show_shift: true,
            show_forces: true,
            show_migrations: true,
            plotted: 0,
            rebuilds: 0,
            cache: None,
        }
    }
}

/// Whether `id` is one of the mappers this view animates.
pub fn is_analytical(id: &str) -> bool {
    matches!(id, "analytical" | "analytical+pairs")
}

/// X, Y and the number of slices of a grid of `dims`.
fn plane(dims: &[u32]) -> (usize, usize, usize) {
    let x = dims.first().copied().unwrap_or(1).max(1) as usize;
    let y = dims.get(1).copied().unwrap_or(1).max(1) as usize;
    let total: usize = dims.iter().map(|&k| k.max(1) as usize).product();
    (x, y, (total / (x * y)).max(1))
}

/// The bin (node) of a position: each coordinate rounded and clamped.
fn bin_of(dims: &[u32], x: &[f32]) -> usize {
    let mut node = 0;
    let mut stride = 1;
    for (d, &k) in dims.iter().enumerate() {
        let c = (x[d].round().max(0.0) as usize).min(k.max(1) as usize - 1);
        node += c * stride;
        stride *= k.max(1) as usize;
    }
    node
}

fn node_xy(dims: &[u32], node: usize) -> (f32, f32) {
    let (x, y, _) = plane(dims);
    ((node % x) as f32, ((node / x) % y) as f32)
}

/// Colour of a bin with workload `w` and bound `cap` (max = the fullest bin).
pub fn bin_color(w: u32, cap: u32, max: u32) -> Color32 {
    if w == 0 {
        return Color32::from_gray(34);
    }
    let cap = cap.max(1);
    if w <= cap {
        return viridis(0.12 + 0.6 * w as f32 / cap as f32).gamma_multiply(0.8);
    }
    let t = if max > cap {
        (w - cap) as f32 / (max - cap) as f32
    } else {
        1.0
    };
    let lerp = |a: f32, b: f32| (a + (b - a) * t).round() as u8;
    Color32::from_rgb(lerp(235.0, 255.0), lerp(110.0, 40.0), lerp(50.0, 70.0))
}

fn add_quad(mesh: &mut Mesh, a: Pos2, b: Pos2, c: Pos2, d: Pos2, col: Color32) {
    let i = mesh.vertices.len() as u32;
    for p in [a, b, c, d] {
        mesh.vertices.push(Vertex {
            pos: p,
            uv: WHITE_UV,
            color: col,
        });
    }
    mesh.indices
        .extend_from_slice(&[i, i + 1, i + 2, i, i + 2, i + 3]);
}

fn add_rect(mesh: &mut Mesh, r: Rect, col: Color32) {
    add_quad(
        mesh,
        r.left_top(),
        r.right_top(),
        r.right_bottom(),
        r.left_bottom(),
        col,
    );
}

fn add_segment(mesh: &mut Mesh, a: Pos2, b: Pos2, w: f32, col: Color32) {
    let d = b - a;
    let len = d.length();
    if len < 1e-3 {
        return;
    }
    let n = vec2(-d.y, d.x) / len * (w * 0.5);
    add_quad(mesh, a + n, b + n, b - n, a - n, col);
}

fn add_arrow(mesh: &mut Mesh, a: Pos2, b: Pos2, w: f32, head: f32, col: Color32) {
    let d = b - a;
    let len = d.length();
    if len < 1e-3 {
        return;
    }
    let u = d / len;
    let h = head.min(len * 0.6);
    let base = b - u * h;
    add_segment(mesh, a, base, w, col);
    let n = vec2(-u.y, u.x) * (h * 0.5);
    let i = mesh.vertices.len() as u32;
    for p in [b, base + n, base - n] {
        mesh.vertices.push(Vertex {
            pos: p,
            uv: WHITE_UV,
            color: col,
        });
    }
    mesh.indices.extend_from_slice(&[i, i + 1, i + 2]);
}

fn add_dot(mesh: &mut Mesh, c: Pos2, r: f32, col: Color32) {
    // A diamond: 4 vertices, cheap at thousands of dots.
    add_quad(
        mesh,
        c + vec2(0.0, -r),
        c + vec2(r, 0.0),
        c + vec2(0.0, r),
        c + vec2(-r, 0.0),
        col,
    );
}

/// A small deterministic offset in a cell for item `i` (several items on
/// one node during legalization), within ±0.3 cell.
fn jitter(i: usize) -> (f32, f32) {
    let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let a = ((h >> 16) & 0xffff) as f32 / 65535.0 - 0.5;
    let b = ((h >> 40) & 0xffff) as f32 / 65535.0 - 0.5;
    (a * 0.6, b * 0.6)
}

/// Maps grid coordinates (x, y) to the screen.
#[derive(Clone, Copy)]
struct Frame {
    origin: Pos2,
    s: f32,
}

impl Frame {
    fn new(rect: Rect, nx: usize, ny: usize) -> Self {
        let s = (rect.width() / nx as f32).min(rect.height() / ny as f32);
        let size = vec2(nx as f32, ny as f32) * s;
        Frame {
            origin: rect.center() - size * 0.5,
            s,
        }
    }
    fn at(&self, x: f32, y: f32) -> Pos2 {
        self.origin + vec2((x + 0.5) * self.s, (y + 0.5) * self.s)
    }
    fn cell(&self, x: usize, y: usize) -> Rect {
        Rect::from_min_size(
            self.origin + vec2(x as f32 * self.s, y as f32 * self.s),
            vec2(self.s, self.s),
        )
    }
}

impl AnalyticalView {
    /// One iteration: the mapper's first step also does its setup, so one
    /// step is one iteration.
    fn step_iteration(&mut self, model: &mut Model, id: &str, seed: u64, params: &str) {
        model.step(id, seed, params);
    }

    fn status_ui(&self, ui: &mut egui::Ui, d: &AnalyticalDetail) {
        let phase = d.phase.map_or("", |p| p.name());
        let mut s = format!(
            "global iteration {} · legalization iteration {} · {phase}",
            d.global_iterations, d.legal_iterations
        );
        if d.started() {
            s.push_str(&format!(
                " · max workload {} (γ bound {}) · W(Φ) {} · est. hop-bytes {}",
                d.max_workload,
                d.capacity,
                short(d.w_phi),
                fmt_bytes(d.est_hop_bytes)
            ));
        }
        if let Some(st) = d.global_stop {
            s.push_str(match st {
                hopmap_core::mappers::analytical::GlobalStop::AlmostLegal => {
                    " · global: almost legal"
                }
                hopmap_core::mappers::analytical::GlobalStop::Stalled => {
                    " · global: workload stalled"
                }
                hopmap_core::mappers::analytical::GlobalStop::NoGain => {
                    " · global: no hop-bytes gain"
                }
                hopmap_core::mappers::analytical::GlobalStop::IterationLimit => {
                    " · global: iteration limit"
                }
            });
        }
        if d.legalized_iteration > 0 {
            s.push_str(&format!(
                " · legalizing the Φ of iteration {}",
                d.legalized_iteration
            ));
        }
        ui.label(s);
    }

    fn key_ui(&mut self, ui: &mut egui::Ui, d: &AnalyticalDetail) {
        ui.horizontal_wrapped(|ui| {
            let swatch = |ui: &mut egui::Ui, c: Color32| {
                let (r, p) = ui.allocate_painter(vec2(12.0, 12.0), Sense::hover());
                p.rect_filled(r.rect.shrink(1.0), 2.0, c);
            };
            swatch(ui, bin_color(d.capacity / 2 + 1, d.capacity, d.capacity));
            ui.checkbox(&mut self.show_heat, "bin")
                .on_hover_text(TIP_BIN);
            swatch(ui, bin_color(d.capacity + 1, d.capacity, d.capacity + 1));
            ui.label(format!("> γ = {}", d.capacity)).on_hover_text(TIP_GAMMA);
            swatch(ui, Color32::WHITE);
            ui.checkbox(&mut self.show_items, "items at Φ")
                .on_hover_text("Each item (process, or node-sized group) at its position Φ (§3.3); yellow squares: the fixed corner items (§3.6)");
            swatch(ui, Color32::from_rgb(80, 220, 255));
            ui.checkbox(&mut self.show_shift, "shifting")
                .on_hover_text(TIP_SHIFT);
            swatch(ui, Color32::from_rgb(255, 160, 40));
            ui.checkbox(&mut self.show_forces, "fake anchor / force")
                .on_hover_text(TIP_ANCHOR);
            swatch(ui, Color32::from_rgb(255, 60, 220));
            ui.checkbox(&mut self.show_migrations, "diffusion")
                .on_hover_text(TIP_DIFFUSION);
            let (_, _, slices) = plane(&d.dims);
            if slices > 1 {
                ui.separator();
                ui.checkbox(&mut self.all_slices, "all slices")
                    .on_hover_text("Fold every slice into one picture: each cell shows the fullest bin of its column");
                self.slice = self.slice.min(slices - 1);
                let name = if d.ndims() == 3 { "z" } else { "slice" };
                ui.add_enabled(
                    !self.all_slices,
                    egui::Slider::new(&mut self.slice, 0..=slices - 1).text(name),
                );
            }
        });
    }

    /// The key of the cached mesh.
    fn key(&self, d: &Arc<AnalyticalDetail>, rect: Rect) -> Vec<u64> {
        vec![
            Arc::as_ptr(d) as usize as u64,
            rect.min.x.to_bits() as u64 | (rect.min.y.to_bits() as u64) << 32,
            rect.max.x.to_bits() as u64 | (rect.max.y.to_bits() as u64) << 32,
            self.slice as u64,
            self.all_slices as u64
                | (self.show_heat as u64) << 1
                | (self.show_items as u64) << 2
                | (self.show_shift as u64) << 3
                | (self.show_forces as u64) << 4
                | (self.show_migrations as u64) << 5,
        ]
    }

    fn box_ui(&mut self, ui: &mut egui::Ui, d: &Arc<AnalyticalDetail>) {
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::hover());
        let full = resp.rect;
        painter.rect_filled(full, 4.0, Color32::from_gray(14));
        let rect = full.shrink(10.0);
        let (nx, ny, _) = plane(&d.dims);
        let fr = Frame::new(rect, nx, ny);
        let key = self.key(d, rect);
        if self.cache.as_ref().is_none_or(|(k, _, _)| *k != key) {
            self.rebuilds += 1;
            let (mesh, labels) = self.build(d, fr);
            self.cache = Some((key, Arc::new(mesh), labels));
        }
        if let Some((_, mesh, labels)) = &self.cache {
            painter.add(Shape::mesh(mesh.clone()));
            for (p, t) in labels {
                painter.text(
                    *p,
                    egui::Align2::CENTER_CENTER,
                    t,
                    egui::FontId::proportional((fr.s * 0.3).clamp(9.0, 14.0)),
                    Color32::from_gray(235),
                );
            }
        }
        // The box's outline: the continuous model's boundary.
        painter.rect_stroke(
            Rect::from_min_size(fr.origin, vec2(nx as f32, ny as f32) * fr.s),
            0.0,
            Stroke::new(1.0, Color32::from_gray(120)),
            egui::StrokeKind::Outside,
        );
        if let Some(p) = resp.hover_pos() {
            let x = ((p.x - fr.origin.x) / fr.s).floor();
            let y = ((p.y - fr.origin.y) / fr.s).floor();
            if x >= 0.0 && y >= 0.0 && (x as usize) < nx && (y as usize) < ny {
                let text = self.cell_text(d, x as usize, y as usize);
                resp.on_hover_text_at_pointer(text);
            }
        }
    }

    fn cell_text(&self, d: &AnalyticalDetail, x: usize, y: usize) -> String {
        let (nx, ny, slices) = plane(&d.dims);
        let (node, w) = if self.all_slices {
            (0..slices)
                .map(|k| x + nx * y + nx * ny * k)
                .map(|v| (v, d.workloads.get(v).copied().unwrap_or(0)))
                .max_by_key(|&(_, w)| w)
                .unwrap_or((0, 0))
        } else {
            let v = x + nx * y + nx * ny * self.slice;
            (v, d.workloads.get(v).copied().unwrap_or(0))
        };
        let over = if w > d.capacity {
            format!(" — over γ by {}", w - d.capacity)
        } else {
            String::new()
        };
        format!(
            "bin of node {node} (x {x}, y {y}{})\nworkload {w} of γ bound {}{over}\n\n{TIP_BIN}",
            if slices > 1 {
                format!(", slice {}", node / (nx * ny))
            } else {
                String::new()
            },
            d.capacity
        )
    }

    /// Whether node `node` is drawn (all slices, or the chosen one).
    fn in_view(&self, d: &AnalyticalDetail, node: usize) -> bool {
        if self.all_slices {
            return true;
        }
        let (nx, ny, _) = plane(&d.dims);
        node / (nx * ny) == self.slice
    }

    /// The picture as one mesh, plus the cell labels: the bins, then (once
    /// the run started) the shift targets, the forces, the items and the
    /// migrations, each as its switch says.
    fn build(&self, d: &AnalyticalDetail, fr: Frame) -> (Mesh, Labels) {
        let mut mesh = Mesh::default();
        let labels = self.add_bins(&mut mesh, d, fr);
        if !d.started() {
            return (mesh, labels);
        }
        let legal = d.node_of.is_some();
        // The items in view, with their positions (x, y).
        let visible: Vec<(usize, f32, f32)> = (0..d.items)
            .filter_map(|i| {
                item_pos(d, i)
                    .filter(|&(_, _, v)| self.in_view(d, v))
                    .map(|(x, y, _)| (i, x, y))
            })
            .collect();
        let lw = (fr.s * 0.04).clamp(0.8, 2.0);
        if !legal && self.show_shift && !d.targets.is_empty() {
            add_shifts(&mut mesh, d, &visible, fr, lw);
        }
        if !legal && self.show_forces && !d.anchor.is_empty() {
            add_forces(&mut mesh, d, &visible, fr, lw);
        }
        if self.show_items {
            self.add_items(&mut mesh, d, &visible, fr);
        }
        if legal && self.show_migrations {
            self.add_migrations(&mut mesh, d, fr, lw);
        }
        (mesh, labels)
    }

    /// One square per bin of the plane (the heaviest over the slices when
    /// all are shown), coloured by its workload against the bound, with
    /// the workloads as labels when the cells are large.
    fn add_bins(&self, mesh: &mut Mesh, d: &AnalyticalDetail, fr: Frame) -> Labels {
        let mut labels = Vec::new();
        let (nx, ny, slices) = plane(&d.dims);
        let max = d.workloads.iter().copied().max().unwrap_or(0);
        let big = fr.s >= 26.0 && nx * ny <= MAX_LABELS;
        for y in 0..ny {
            for x in 0..nx {
                let w = if self.all_slices {
                    (0..slices)
                        .map(|k| {
                            d.workloads
                                .get(x + nx * y + nx * ny * k)
                                .copied()
                                .unwrap_or(0)
                        })
                        .max()
                        .unwrap_or(0)
                } else {
                    d.workloads
                        .get(x + nx * y + nx * ny * self.slice)
                        .copied()
                        .unwrap_or(0)
                };
                let cell = fr.cell(x, y);
                let inner = cell.shrink((fr.s * 0.04).min(1.0));
                let col = if self.show_heat {
                    bin_color(w, d.capacity, max)
                } else {
                    Color32::from_gray(30)
                };
                if self.show_heat && w > d.capacity && fr.s >= 6.0 {
                    add_rect(mesh, inner, Color32::WHITE);
                    add_rect(mesh, inner.shrink((fr.s * 0.08).clamp(1.0, 2.5)), col);
                } else {
                    add_rect(mesh, inner, col);
                }
                if big && self.show_heat && w > 0 {
                    labels.push((cell.center() + vec2(0.0, -fr.s * 0.3), w.to_string()));
                }
            }
        }
        labels
    }

    /// The items as dots, the fixed ones with a yellow square.
    fn add_items(
        &self,
        mesh: &mut Mesh,
        d: &AnalyticalDetail,
        visible: &[(usize, f32, f32)],
        fr: Frame,
    ) {
        let r = (fr.s * 0.07).clamp(1.0, 3.5);
        let c = Color32::from_white_alpha(if visible.len() > 2000 { 150 } else { 220 });
        for &(_, x, y) in visible {
            add_dot(mesh, fr.at(x, y), r, c);
        }
        let yc = Color32::from_rgb(255, 225, 60);
        for &(i, _) in &d.fixed {
            if let Some((x, y, v)) = item_pos(d, i as usize)
                && self.in_view(d, v)
            {
                let q = fr.at(x, y);
                let h = r + 2.0;
                add_rect(mesh, Rect::from_center_size(q, vec2(2.0 * h, 2.0 * h)), yc);
            }
        }
    }

    /// The legal placement's migrations as arrows (a dot for a move along
    /// the folded dimension), at most [`MAX_ARROWS`].
    fn add_migrations(&self, mesh: &mut Mesh, d: &AnalyticalDetail, fr: Frame, lw: f32) {
        let c = Color32::from_rgba_unmultiplied(255, 60, 220, 210);
        let st = d.migrations.len().div_ceil(MAX_ARROWS).max(1);
        for &(_, from, to) in d.migrations.iter().step_by(st) {
            let (from, to) = (from as usize, to as usize);
            if !(self.in_view(d, from) || self.in_view(d, to)) {
                continue;
            }
            let (ax, ay) = node_xy(&d.dims, from);
            let (bx, by) = node_xy(&d.dims, to);
            let (a, b) = (fr.at(ax, ay), fr.at(bx, by));
            if (b - a).length() < 1.0 {
                // A move along the sliced (folded) dimension: a small dot.
                add_dot(mesh, a, (fr.s * 0.09).clamp(2.0, 5.0), c);
            } else {
                add_arrow(mesh, a, b, lw * 1.3, (fr.s * 0.22).clamp(4.0, 10.0), c);
            }
        }
    }

    fn plots_ui(&mut self, ui: &mut egui::Ui, d: &AnalyticalDetail) {
        let len = d.hist_max_workload.len();
        self.plotted = len;
        let pts = |v: &[f64]| -> Vec<[f64; 2]> {
            v.iter()
                .enumerate()
                .map(|(i, &y)| [i as f64 + 1.0, y])
                .collect()
        };
        // Where legalization starts, as a vertical line.
        let legal_at = d
            .hist_phase
            .iter()
            .position(|&p| p == hopmap_core::mappers::analytical::Phase::Legalize)
            .map(|i| i as f64 + 0.5);
        ui.label(format!("{len} iterations plotted"));
        let h = ((ui.available_height() - 80.0) / 3.0).clamp(70.0, 240.0);
        let series: [(&str, &str, &[f64], Color32); 3] = [
            (
                "max workload",
                TIP_GAMMA,
                &d.hist_max_workload,
                Color32::from_rgb(255, 120, 80),
            ),
            (
                "W(Φ)",
                TIP_W,
                &d.hist_w_phi,
                Color32::from_rgb(120, 200, 120),
            ),
            (
                "est. hop-bytes",
                TIP_HOP,
                &d.hist_hop_bytes,
                Color32::from_rgb(120, 180, 255),
            ),
        ];
        let link = ui.make_persistent_id("analytical_plots_x");
        for (k, (name, tip, v, c)) in series.into_iter().enumerate() {
            ui.label(egui::RichText::new(name).strong())
                .on_hover_text(tip);
            let p = pts(v);
            Plot::new(("analytical_plot", k))
                .height(h)
                .allow_scroll(false)
                .link_axis(link, [true, false])
                .x_axis_label("iteration")
                .y_axis_formatter(move |m, _| {
                    if k == 2 {
                        fmt_bytes(m.value)
                    } else {
                        short(m.value)
                    }
                })
                .include_y(0.0)
                .show(ui, |pu| {
                    if k == 0 {
                        pu.hline(
                            HLine::new("γ bound", d.capacity as f64)
                                .color(Color32::from_gray(200))
                                .style(egui_plot::LineStyle::dashed_loose()),
                        );
                    }
                    if let Some(x) = legal_at {
                        pu.vline(
                            VLine::new("legalization", x).color(Color32::from_rgb(255, 60, 220)),
                        );
                    }
                    if p.len() < 40 {
                        pu.points(Points::new(name, p.clone()).color(c).radius(3.0));
                    }
                    pu.line(Line::new(name, p).color(c));
                });
        }
    }
}

/// A number in a few characters: 19, 4.52e6.
fn short(x: f64) -> String {
    if x.abs() >= 1e4 {
        format!("{x:.3e}")
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

impl View for AnalyticalView {
    type Input<'a> = (&'a mut Model, &'a mut MapperPanel);
    type Output = ();

    fn title(&self) -> &'static str {
        "Analytical"
    }

    /// The view: header with the controls, the key, the box and the plots.
    fn ui(&mut self, ui: &mut egui::Ui, (model, panel): Self::Input<'_>) -> Self::Output {
        let has_coords = model.graph.coords().is_some();
        ui.horizontal_wrapped(|ui| {
            ui.strong("Analytical mapping")
                .on_hover_text("Wu et al. §3: global mapping (§3.3), legalization (§3.4)");
            if !is_analytical(&panel.selected) {
                if ui
                    .button("Select analytical")
                    .on_hover_text("Choose the analytical mapper in the Mapper panel")
                    .clicked()
                {
                    panel.select("analytical");
                }
                return;
            }
            let id = panel.selected.clone();
            let params = panel.effective_params(has_coords);
            let busy = model.run.to_end();
            if ui
                .add_enabled(!busy, egui::Button::new("Step iteration"))
                .on_hover_text(
                    "One iteration: a global-mapping iteration (solve, shift, spread), or a \
                         legalization iteration. The first one also does the setup (grouping, \
                         fixed corners, matrix assembly).",
                )
                .clicked()
            {
                self.step_iteration(model, &id, panel.seed, &params);
            }
            let label = if model.run.playing() { "Pause" } else { "Play" };
            if ui
                .add_enabled(!busy, egui::Button::new(label))
                .on_hover_text("Animate the iterations at the mapper panel's speed")
                .clicked()
            {
                let on = !model.run.playing();
                model.play(&id, panel.seed, &params, on);
            }
            ui.add(
                egui::Slider::new(&mut model.speed, 1.0..=2000.0)
                    .logarithmic(true)
                    .suffix(" steps/s"),
            );
        });
        let Some(d) = model
            .run
            .detail()
            .as_ref()
            .and_then(|d| match d {
                crate::run_detail::RunDetail::Analytical(a) => Some(a.clone()),
                _ => None,
            })
            .filter(|_| is_analytical(model.run.id()))
        else {
            self.plotted = 0;
            ui.label(
                    "Select the analytical mapper and press Step iteration or Play: the bins, Φ, \
                     the spreading forces and the legalization appear here, iteration by iteration.",
                );
            return;
        };
        self.status_ui(ui, &d);
        self.key_ui(ui, &d);
        let avail = ui.available_rect_before_wrap().intersect(ui.clip_rect());
        let plot_w = (avail.width() * 0.36).clamp(220.0, 460.0);
        let box_rect = Rect::from_min_max(avail.min, pos2(avail.max.x - plot_w - 8.0, avail.max.y));
        let plot_rect = Rect::from_min_max(pos2(avail.max.x - plot_w, avail.min.y), avail.max);
        let mut bu = ui.new_child(
            egui::UiBuilder::new()
                .id_salt("analytical_box")
                .max_rect(box_rect),
        );
        self.box_ui(&mut bu, &d);
        let mut pu = ui.new_child(
            egui::UiBuilder::new()
                .id_salt("analytical_plots")
                .max_rect(plot_rect)
                .layout(egui::Layout::top_down(egui::Align::Min)),
        );
        self.plots_ui(&mut pu, &d);
        ui.allocate_rect(avail, Sense::hover());
    }
}

/// Where item `i` is drawn (x, y) and its node: its node's centre (with a
/// small jitter) once placed legally, else its continuous position.
fn item_pos(d: &AnalyticalDetail, i: usize) -> Option<(f32, f32, usize)> {
    let nd = d.ndims();
    match d.node_of.as_ref() {
        Some(no) => {
            let v = *no.get(i)? as usize;
            let (x, y) = node_xy(&d.dims, v);
            let (jx, jy) = jitter(i);
            Some((x + jx, y + jy, v))
        }
        None => {
            let p = d.phi.get(i * nd..(i + 1) * nd)?;
            let y = if nd > 1 { p[1] } else { 0.0 };
            Some((p[0], y, bin_of(&d.dims, p)))
        }
    }
}

/// A segment from each visible item to its shift target (at most
/// [`MAX_ARROWS`]), with a dot at the target.
fn add_shifts(
    mesh: &mut Mesh,
    d: &AnalyticalDetail,
    visible: &[(usize, f32, f32)],
    fr: Frame,
    lw: f32,
) {
    let nd = d.ndims();
    let stride = visible.len().div_ceil(MAX_ARROWS).max(1);
    let c = Color32::from_rgba_unmultiplied(80, 220, 255, 170);
    for &(i, x, y) in visible.iter().step_by(stride) {
        let Some(t) = d.targets.get(i * nd..(i + 1) * nd) else {
            continue;
        };
        let ty = if nd > 1 { t[1] } else { 0.0 };
        if (t[0] - x).abs() + (ty - y).abs() > 0.02 {
            add_segment(mesh, fr.at(x, y), fr.at(t[0], ty), lw, c);
            add_dot(mesh, fr.at(t[0], ty), lw * 1.5, c);
        }
    }
}

/// An arrow from each visible item towards its anchor, at most 1.5 cells
/// long, and the anchors themselves (boundary or shift target, by
/// `spread`); at most [`MAX_ARROWS`].
fn add_forces(
    mesh: &mut Mesh,
    d: &AnalyticalDetail,
    visible: &[(usize, f32, f32)],
    fr: Frame,
    lw: f32,
) {
    let nd = d.ndims();
    let stride = visible.len().div_ceil(MAX_ARROWS).max(1);
    let c = Color32::from_rgba_unmultiplied(255, 160, 40, 150);
    let ca = Color32::from_rgb(255, 160, 40);
    for &(i, x, y) in visible.iter().step_by(stride) {
        let Some(a) = d.anchor.get(i * nd..(i + 1) * nd) else {
            continue;
        };
        if a[0].is_nan() {
            continue;
        }
        let ay = if nd > 1 { a[1] } else { 0.0 };
        let (dx, dy) = (a[0] - x, ay - y);
        let len = (dx * dx + dy * dy).sqrt();
        if len < 1e-3 {
            continue;
        }
        let k = len.min(1.5) / len;
        add_arrow(
            mesh,
            fr.at(x, y),
            fr.at(x + dx * k, y + dy * k),
            lw,
            (fr.s * 0.25).clamp(4.0, 9.0),
            c,
        );
        add_dot(mesh, fr.at(a[0], ay), (fr.s * 0.08).clamp(1.5, 4.0), ca);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_round_and_clamp_like_the_mapper() {
        let dims = [4, 3, 2];
        assert_eq!(bin_of(&dims, &[0.0, 0.0, 0.0]), 0);
        assert_eq!(bin_of(&dims, &[3.4, 2.6, 1.0]), 3 + 4 * 2 + 12);
        assert_eq!(bin_of(&dims, &[-0.7, 9.0, 0.49]), 4 * 2);
        assert_eq!(plane(&dims), (4, 3, 2));
        assert_eq!(plane(&[8]), (8, 1, 1));
        assert_eq!(node_xy(&dims, 3 + 4 * 2 + 12), (3.0, 2.0));
    }

    #[test]
    fn bins_over_gamma_stand_out() {
        let under = bin_color(4, 4, 9);
        let over = bin_color(5, 4, 9);
        assert_ne!(under, over);
        // Over γ: red dominates; at or under: viridis (green/blue dominate).
        assert!(over.r() > over.g() && over.r() > over.b());
        assert!(under.r() < under.g().max(under.b()));
        assert_eq!(bin_color(0, 4, 9), Color32::from_gray(34));
    }
}
