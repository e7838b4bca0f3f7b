//! Side by side: 2 to 4 mappings of the same graph on the same network, each
//! in its own network view with its key metrics, in a grid. The views share
//! one [`ViewSync`]: one camera (rotate, zoom, pan or change the drawing in
//! one and all follow), one link filter, ONE colour scale (from the lowest
//! threshold to the busiest link over all the shown mappings, so the same
//! colour means the same load everywhere) and the hover (a node or link
//! under the pointer in one view is ringed in all, with each view's process
//! or load there). The views come in the order of the checkboxes that
//! choose them (the table's order); processes are coloured by where the
//! first mapping puts them, so the other views show where each process went.
//!
//! The mappings are the ones the comparison kept ([`hopmap_core::compare::Row`]'s
//! `Arc<Mapping>`, nothing is re-run); their evaluations (link loads) are
//! computed on a worker thread when the selection changes. Also here: the
//! helpers the difference view and race mode share (a [`Model`] showing one
//! mapping, the grid, the shared toolbar and the one legend).
//!
//! Cost per frame: the views' own (cached meshes, rebuilt when the camera
//! moves); O(n + links) per view when the selection changes.

use super::Model;
use super::colormap::{category, node_colors, viridis};
use super::draw::fmt_num;
use super::network_view::{LinkFilter, NetworkView, ViewMode, ViewSync};
use super::run_state::{Memo, Same, Versioned};
use super::worker::{Job, Poll};
use egui::{Color32, Rect, pos2, vec2};
use hopmap_core::compare::Row;
use hopmap_core::graph::CommGraph;
use hopmap_core::mapping::Mapping;
use hopmap_core::metrics::Metrics;
use hopmap_core::metrics::{Evaluation, evaluate};
use hopmap_core::topology::{Grid, Topology};
use hopmap_core::units::fmt_bytes;
use std::sync::Arc;

/// At most this many views side by side.
pub const MAX_PANES: usize = 4;
/// Height of a pane's title and metrics line.
pub const PANE_HEADER: f32 = 36.0;

/// A model that shows nothing yet, sharing `parent`'s graph, network and
/// routing (for one pane of side by side, the difference view or a race).
pub fn blank_model(parent: &Model) -> Model {
    let mut m = Model::new(
        CommGraph::empty(0),
        &parent.graph_name,
        Topology::Grid(Grid::torus(&[1])),
    );
    m.graph = parent.graph.share();
    m.topo = parent.topo.share();
    m.routing = parent.routing.clone();
    m.placement.set(vec![None; m.graph.n()]);
    m
}

/// A model showing `mapping` (evaluated as `eval`), labelled `label`.
pub fn pane_model(parent: &Model, label: &str, mapping: &Mapping, eval: Evaluation) -> Model {
    let mut m = blank_model(parent);
    m.apply_mapping(label, mapping.clone(), eval);
    m
}

/// What an evaluation job returns: each mapping with its evaluation.
pub type Evaluated = Vec<(String, Arc<Mapping>, Evaluation)>;

/// Evaluate `items` under `parent`'s graph, network and routing on a
/// worker thread (the link loads the views colour by).
pub fn eval_job(parent: &Model, items: Vec<(String, Arc<Mapping>)>) -> Job<Evaluated> {
    let (g, t, r) = (
        parent.graph.clone(),
        parent.topo.clone(),
        parent.routing.clone(),
    );
    Job::spawn("evaluate", move |ctl| {
        ctl.set_total(items.len());
        let mut out = Vec::with_capacity(items.len());
        for (i, (label, m)) in items.into_iter().enumerate() {
            let e = evaluate(&g, &t, &m, &r);
            out.push((label, m, e));
            ctl.set_done(i + 1);
        }
        out
    })
}

/// Colour of every process from the node `reference` puts it on (the
/// network-position colours), so that other mappings show where it went.
pub fn reference_colors(topo: &Topology, reference: &Mapping, n: usize) -> Vec<Color32> {
    let nc = node_colors(topo);
    (0..n)
        .map(|p| {
            reference
                .node
                .get(p)
                .and_then(|&v| nc.get(v as usize))
                .copied()
                .unwrap_or(Color32::from_gray(110))
        })
        .collect()
}

/// What the reference colours depend on: the graph's and network's
/// generations and the reference mapping itself.
pub type RefKey = (u64, u64, Same<Mapping>);

/// [`reference_colors`] of `reference` under `model`'s graph and network,
/// computed again only when one of them is another.
pub fn reference_colors_memo<'a>(
    memo: &'a mut Memo<RefKey, Vec<Color32>>,
    model: &Model,
    reference: &Arc<Mapping>,
) -> &'a Versioned<Vec<Color32>> {
    let key = (
        model.graph.generation(),
        model.topo.generation(),
        Same(reference.clone()),
    );
    memo.get(key, || {
        reference_colors(&model.topo, reference, model.graph.n())
    })
}

/// Cells of a grid of `n` views in `rect`: one row up to 3, else 2 × 2.
pub fn grid_cells(rect: Rect, n: usize) -> Vec<Rect> {
    let n = n.max(1);
    let (cols, rows) = if n <= 3 { (n, 1) } else { (n.div_ceil(2), 2) };
    let gap = 6.0;
    let w = (rect.width() - gap * (cols as f32 - 1.0)) / cols as f32;
    let h = (rect.height() - gap * (rows as f32 - 1.0)) / rows as f32;
    (0..n)
        .map(|i| {
            let (c, r) = ((i % cols) as f32, (i / cols) as f32);
            Rect::from_min_size(
                pos2(rect.min.x + c * (w + gap), rect.min.y + r * (h + gap)),
                vec2(w, h),
            )
        })
        .collect()
}

/// The controls every synced view shares: drawing mode, links by load or
/// flows, which links in full, reset.
pub fn sync_toolbar(ui: &mut egui::Ui, sync: &mut ViewSync, three_dims: bool) {
    ui.horizontal_wrapped(|ui| {
        if three_dims {
            for m in ViewMode::ALL {
                ui.selectable_value(&mut sync.mode, m, m.title());
            }
            ui.separator();
        }
        ui.label("links by");
        ui.selectable_value(&mut sync.by_flows, false, "load (bytes)");
        ui.selectable_value(&mut sync.by_flows, true, "flows");
        ui.separator();
        ui.label("show");
        let f = sync.filter;
        if ui.selectable_label(f == LinkFilter::Auto, "auto").clicked() {
            sync.filter = LinkFilter::Auto;
        }
        if ui.selectable_label(f == LinkFilter::All, "all").clicked() {
            sync.filter = LinkFilter::All;
        }
        let is_top = matches!(f, LinkFilter::TopPercent(_));
        if ui.selectable_label(is_top, "top %").clicked() && !is_top {
            sync.filter = LinkFilter::TopPercent(5.0);
        }
        if let LinkFilter::TopPercent(p) = &mut sync.filter {
            ui.add(
                egui::Slider::new(p, 0.1..=100.0)
                    .logarithmic(true)
                    .suffix(" %"),
            );
        }
        ui.checkbox(&mut sync.ghosts, "faint rest");
        if ui
            .button("Reset view")
            .on_hover_text("one camera for all the views")
            .clicked()
        {
            sync.cam = Default::default();
        }
    });
}

/// Height reserved under a grid of synced views for its legend.
pub const LEGEND_H: f32 = 34.0;

/// A colour bar of `steps` cells, `color(t)` for t in [0, 1], as a widget.
pub fn color_bar(ui: &mut egui::Ui, width: f32, color: impl Fn(f32) -> Color32) {
    let (bar, _) = ui.allocate_exact_size(vec2(width, 12.0), egui::Sense::hover());
    let painter = ui.painter_at(bar);
    let steps = 44;
    for k in 0..steps {
        let x0 = bar.min.x + bar.width() * k as f32 / steps as f32;
        let x1 = bar.min.x + bar.width() * (k + 1) as f32 / steps as f32;
        painter.rect_filled(
            Rect::from_min_max(pos2(x0, bar.min.y), pos2(x1, bar.max.y)),
            0.0,
            color((k as f32 + 0.5) / steps as f32),
        );
    }
}

/// The one legend under synced views: the shared colour bar.
pub fn scale_legend(ui: &mut egui::Ui, sync: &ViewSync, views: usize) {
    let fmt = |v: f64| {
        if sync.by_flows {
            format!("{v:.0} flows")
        } else {
            fmt_bytes(v)
        }
    };
    let (lo, hi) = sync.scale.unwrap_or((0.0, 0.0));
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        ui.label(egui::RichText::new(fmt(lo)).small());
        color_bar(ui, 160.0, |t| viridis(0.12 + 0.88 * t));
        ui.label(egui::RichText::new(fmt(hi)).small());
        ui.label(
            egui::RichText::new(format!(
                "· one colour scale for all {views} views, up to the busiest link of the shown \
                 mappings (log scale; colour, width, opacity) · drag or wheel moves every view · \
                 hovering a node or link rings it in all"
            ))
            .small()
            .weak(),
        );
    });
}

/// One view of the grid.
pub struct Pane {
    pub label: String,
    pub model: Model,
    pub view: NetworkView,
    pub mapping: Arc<Mapping>,
    /// This pane's own process colours and their generation (race lanes);
    /// None: the grid's shared colours.
    pub own_colors: Option<(Vec<Color32>, u64)>,
}

impl Pane {
    /// This pane's metrics; all zero before its evaluation is in.
    pub fn metrics(&self) -> Metrics {
        self.model
            .eval
            .as_ref()
            .map(|e| e.metrics.clone())
            .unwrap_or_default()
    }
}

/// The side-by-side view; see the module doc.
#[derive(Default)]
pub struct SideBySide {
    /// Names of the rows shown, in order (2 to 4).
    pub chosen: Vec<String>,
    pub panes: Vec<Pane>,
    pub sync: ViewSync,
    job: Option<Job<Evaluated>>,
    /// The (graph, topology) generation of the panes.
    key: (u64, u64),
    /// Process colours from where the first pane's mapping puts them.
    colors: Memo<RefKey, Vec<Color32>>,
    /// Where the panes were drawn in the last frame.
    pub cells: Vec<Rect>,
}

impl SideBySide {
    /// Show the rows named `names` (at most [`MAX_PANES`], unknown names
    /// ignored) in the order of `rows`, which is the order of the
    /// checkboxes above the panes (the table's sort: best first by
    /// default): the panes read left to right as the ticked boxes do, and
    /// ticking or unticking one never reorders the others. Their
    /// evaluations run on a worker thread.
    pub fn choose(&mut self, names: &[String], rows: &[Row], model: &Model) {
        let items: Vec<(String, Arc<Mapping>)> = in_rows_order(names, rows)
            .into_iter()
            .filter_map(|n| rows.iter().find(|r| r.mapper == n))
            .take(MAX_PANES)
            .map(|r| (r.mapper.clone(), r.mapping.clone()))
            .collect();
        self.chosen = items.iter().map(|(n, _)| n.clone()).collect();
        if let Some(j) = self.job.take() {
            j.cancel();
        }
        self.key = (model.graph.generation(), model.topo.generation());
        self.job = Some(eval_job(model, items));
    }

    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Collect finished evaluations into panes.
    pub fn poll(&mut self, model: &Model) {
        let Some(j) = self.job.as_mut() else { return };
        match j.poll() {
            Poll::Running => {}
            Poll::Lost => self.job = None,
            Poll::Finished(v) => {
                self.job = None;
                self.build(v, model);
            }
        }
    }

    /// Wait for the evaluations (tests, headless).
    pub fn wait(&mut self, model: &Model) {
        if let Some(j) = self.job.take()
            && let Some(v) = j.wait()
        {
            self.build(v, model);
        }
    }

    fn build(&mut self, v: Evaluated, model: &Model) {
        // Keep the views (their caches) where the count allows.
        let mut old: Vec<NetworkView> = self.panes.drain(..).map(|p| p.view).collect();
        old.reverse();
        for (label, m, e) in v {
            let view = old
                .pop()
                .unwrap_or_else(|| NetworkView::new(ViewMode::Auto, false));
            self.panes.push(Pane {
                model: pane_model(model, &label, &m, e),
                label,
                view,
                mapping: m,
                own_colors: None,
            });
        }
    }

    /// The process colours of the panes (from the first pane's mapping).
    pub fn colors(&self) -> &[Color32] {
        self.colors.last()
    }

    /// The shared colour scale as set in the last frame.
    pub fn scale(&self) -> Option<(f64, f64)> {
        self.sync.scale
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model, rows: &[Row]) {
        self.poll(model);
        if self.key != (model.graph.generation(), model.topo.generation()) && !self.panes.is_empty()
        {
            self.panes.clear();
            self.chosen.clear();
        }
        if self.chosen.is_empty() && self.job.is_none() && rows.len() >= 2 {
            let names: Vec<String> = rows.iter().take(2).map(|r| r.mapper.clone()).collect();
            self.choose(&names, rows, model);
        }
        ui.horizontal_wrapped(|ui| {
            ui.label("Show (2 to 4):");
            let mut next = self.chosen.clone();
            for r in rows {
                let mut on = next.contains(&r.mapper);
                let full = next.len() >= MAX_PANES && !on;
                if ui
                    .add_enabled(!full, egui::Checkbox::new(&mut on, &r.mapper))
                    .changed()
                {
                    if on {
                        next.push(r.mapper.clone());
                    } else {
                        next.retain(|n| n != &r.mapper);
                    }
                }
            }
            // The table re-sorted: the panes follow the boxes' new order.
            let next = in_rows_order(&next, rows);
            if next != self.chosen && next.len() >= 2 {
                self.choose(&next, rows, model);
            } else if next != self.chosen {
                ui.weak("pick at least two");
            }
        });
        if rows.len() < 2 {
            ui.weak("Run a comparison of at least two mappers first (or load mapping files).");
            return;
        }
        if self.job.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("evaluating the chosen mappings…");
            });
            ui.ctx().request_repaint();
        }
        if self.panes.is_empty() {
            return;
        }
        let three = model.topo.as_grid().is_some_and(|g| g.dims().len() >= 3);
        sync_toolbar(ui, &mut self.sync, three);
        let best = rows
            .iter()
            .map(|r| r.metrics.hop_bytes)
            .fold(f64::INFINITY, f64::min);
        let avail = ui.available_rect_before_wrap();
        let grid = Rect::from_min_max(avail.min, pos2(avail.max.x, avail.max.y - LEGEND_H));
        let cells = grid_cells(grid, self.panes.len());
        self.cells = cells.clone();
        let colors = reference_colors_memo(&mut self.colors, model, &self.panes[0].mapping);
        draw_panes(
            ui,
            &mut self.panes,
            &cells,
            &mut self.sync,
            colors,
            colors.generation(),
            |_, p| {
                let m = p.metrics();
                let ratio = if best > 0.0 {
                    format!(" (×{:.2} best)", m.hop_bytes / best)
                } else {
                    String::new()
                };
                format!(
                    "hop-bytes {}{ratio} · hops/byte {:.3} · {}",
                    fmt_num(m.hop_bytes),
                    m.avg_hops_per_byte,
                    load_text(&m)
                )
            },
        );
        ui.allocate_rect(grid, egui::Sense::hover());
        scale_legend(ui, &self.sync, self.panes.len());
    }
}

/// `names` in the order `rows` lists them (names no row has are left out).
pub fn in_rows_order(names: &[String], rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter(|r| names.contains(&r.mapper))
        .map(|r| r.mapper.clone())
        .collect()
}

/// Below a pane's title and caption in `cu` (cell `c`): report their
/// height, and start the view where every pane's does (the tallest header
/// of the last frame, at least [`PANE_HEADER`]), so that the views line up.
pub fn pane_top(cu: &mut egui::Ui, c: &Rect, sync: &mut ViewSync) {
    let used = cu.min_rect().max.y - c.min.y;
    sync.report_header(used);
    let top = c.min.y + sync.header.max(PANE_HEADER).max(used);
    if cu.min_rect().max.y < top {
        cu.add_space(top - cu.min_rect().max.y);
    }
}

/// A pane's busiest-link figures: `max load 2.40 MiB · max flows 7`; on a
/// fabric those of the links between switches (what the pane colours, and
/// what tells mappings apart: [`hopmap_core::report::chart_metric`]), and
/// the busiest link counting the hosts' links.
pub fn load_text(m: &hopmap_core::metrics::Metrics) -> String {
    match (m.max_switch_link_load, m.max_switch_link_flows) {
        (Some(sw), Some(f)) => format!(
            "max switch link {} · with hosts {} · max flows {f}",
            fmt_bytes(sw),
            fmt_bytes(m.max_link_load)
        ),
        _ => format!(
            "max load {} · max flows {}",
            fmt_bytes(m.max_link_load),
            m.max_link_flows
        ),
    }
}

/// Draw `panes` in `cells` with one shared sync: the shared scale is set
/// from every pane's range first, the hover of the last frame painted in
/// all, a click on a node selects its process in every pane. `info` gives
/// each pane's metrics line.
pub fn draw_panes(
    ui: &mut egui::Ui,
    panes: &mut [Pane],
    cells: &[Rect],
    sync: &mut ViewSync,
    colors: &[Color32],
    colors_gen: u64,
    info: impl Fn(usize, &Pane) -> String,
) {
    if sync.begin_frame() {
        ui.ctx().request_repaint();
    }
    let view_rect = |c: &Rect| Rect::from_min_max(pos2(c.min.x, c.min.y + PANE_HEADER), c.max);
    let ranges: Vec<(f64, f64)> = panes
        .iter_mut()
        .zip(cells)
        .map(|(p, c)| p.view.link_range(&p.model, sync, view_rect(c)))
        .collect();
    sync.scale = ViewSync::shared_scale(&ranges);
    for (i, (p, c)) in panes.iter_mut().zip(cells).enumerate() {
        let mut cu = ui.new_child(
            egui::UiBuilder::new()
                .id_salt(("pane", i))
                .max_rect(*c)
                .layout(egui::Layout::top_down(egui::Align::Min)),
        );
        cu.set_clip_rect(*c);
        cu.horizontal(|ui| {
            let (r, _) = ui.allocate_exact_size(vec2(10.0, 10.0), egui::Sense::hover());
            ui.painter().rect_filled(r, 2.0, category(i));
            ui.strong(&p.label);
        });
        cu.label(egui::RichText::new(info(i, p)).small());
        pane_top(&mut cu, c, sync);
        let Pane {
            model,
            view,
            own_colors,
            ..
        } = p;
        let (cols, gen_) = match own_colors {
            Some((c, g)) => (&c[..], *g),
            None => (colors, colors_gen),
        };
        view.ui_synced(&mut cu, model, cols, gen_, sync, None);
    }
    if let Some(sel) = sync.clicked {
        for p in panes.iter_mut() {
            p.model.selected = sel;
        }
    }
}

impl super::view::View for SideBySide {
    type Input<'a> = (&'a Model, &'a [Row]);
    type Output = ();

    fn title(&self) -> &'static str {
        "Side by side"
    }

    fn ui(&mut self, ui: &mut egui::Ui, (model, rows): Self::Input<'_>) {
        SideBySide::ui(self, ui, model, rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panes_load_figures_on_a_fabric_are_the_switch_links() {
        let mut m = hopmap_core::metrics::Metrics {
            max_link_load: 9_890_416.0,
            max_link_flows: 32,
            ..Default::default()
        };
        assert_eq!(load_text(&m), "max load 9.43 MiB · max flows 32");
        m.max_switch_link_load = Some(4_760_000.0);
        m.max_switch_link_flows = Some(16);
        assert_eq!(
            load_text(&m),
            "max switch link 4.54 MiB · with hosts 9.43 MiB · max flows 16"
        );
    }

    #[test]
    fn grid_is_one_row_up_to_three_then_two_by_two() {
        let r = Rect::from_min_size(pos2(0.0, 0.0), vec2(606.0, 406.0));
        let c = grid_cells(r, 3);
        assert_eq!(c.len(), 3);
        assert!(c.iter().all(|x| x.height() == 406.0 && x.width() == 198.0));
        let c = grid_cells(r, 4);
        assert_eq!((c[3].min.x, c[3].min.y), (306.0, 206.0));
        assert_eq!((c[3].width(), c[3].height()), (300.0, 200.0));
    }
}
