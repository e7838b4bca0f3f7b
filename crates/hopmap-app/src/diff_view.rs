//! The difference view of two mappings A and B of one graph on one network:
//! A and B side by side (shared camera and colour scale, as in
//! [`super::side_by_side`]) and a third view of the change, every link
//! coloured by B − A of its load (the busier direction's bytes or flows) on
//! a diverging map (ColorBrewer RdBu: blue = less in B, red = more, the
//! neutral centre = unchanged; width and opacity grow with |B − A|), with a
//! ring on every node that holds a process B put on another node than A
//! ([`hopmap_core::mapping::Mapping::moved_processes`]). Below, the hottest links
//! of each mapping with that link's change in the other (a percentage, the
//! load on hover) and its short name (switch labels, or the coordinates of
//! its ends: [`NetworkView::link_short_name`]), wrapped, never cut.
//!
//! Cost: O(n + links) when A, B or the link values change; per frame, the
//! views' own cost and O(moved) rings.

use super::Model;
use super::colormap::diverging;
use super::network_view::{LinkDelta, NetworkView, ViewMode, ViewSync};
use super::run_state::{Memo, Same};
use super::side_by_side::{
    Evaluated, LEGEND_H, PANE_HEADER, Pane, RefKey, color_bar, draw_panes, eval_job, grid_cells,
    pane_model, reference_colors, sync_toolbar,
};
use super::view::View;
use super::worker::{Job, Poll};
use egui::{Color32, Rect, pos2};
use hopmap_core::compare::Row;
use hopmap_core::mapping::Mapping;
use hopmap_core::units::fmt_bytes;

/// Rows of each hottest-links table.
pub const HOT_ROWS: usize = 10;
/// Colour of a moved process in the change view (green: not on the diverging map).
pub const MOVED: Color32 = Color32::from_rgb(70, 220, 120);
/// Up to this many moved processes also get a ring.
pub const MOVED_RINGS: usize = 64;

/// The process colours of A and B's panes, and of the change pane.
type PaneColors = (Vec<Color32>, Vec<Color32>);

#[derive(Default)]
pub struct DiffView {
    /// The two rows compared (names).
    pub a: String,
    pub b: String,
    /// A and B.
    pub panes: Vec<Pane>,
    /// The change view (shows B's placement).
    diff_model: Option<Model>,
    diff_view: Option<NetworkView>,
    pub delta: LinkDelta,
    /// Processes on another node in B than in A.
    pub moved: Vec<usize>,
    pub sync: ViewSync,
    job: Option<Job<Evaluated>>,
    key: (u64, u64),
    delta_key: (u64, bool),
    built: u64,
    /// A and B's process colours (from where A puts them), and the change
    /// view's: moved processes green, the others grey.
    colors: Memo<(RefKey, Same<Mapping>), PaneColors>,
    /// The paint-list range the change pane drew this frame (SVG export).
    pub drawn: Option<(usize, usize)>,
}

impl DiffView {
    /// Compare rows `a` and `b` (their evaluations run on a worker thread).
    pub fn choose(&mut self, a: &str, b: &str, rows: &[Row], model: &Model) {
        self.a = a.to_string();
        self.b = b.to_string();
        let items = [a, b]
            .iter()
            .filter_map(|n| rows.iter().find(|r| r.mapper == *n))
            .map(|r| (r.mapper.clone(), r.mapping.clone()))
            .collect();
        if let Some(j) = self.job.take() {
            j.cancel();
        }
        self.key = (model.graph.generation(), model.topo.generation());
        self.job = Some(eval_job(model, items));
    }

    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Wait for the evaluations (tests, headless).
    pub fn wait(&mut self, model: &Model) {
        if let Some(j) = self.job.take()
            && let Some(v) = j.wait()
        {
            self.build(v, model);
        }
    }

    fn poll(&mut self, model: &Model) {
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

    fn build(&mut self, v: Evaluated, model: &Model) {
        self.panes.clear();
        if v.len() != 2 {
            return;
        }
        for (label, m, e) in v {
            self.panes.push(Pane {
                model: pane_model(model, &label, &m, e),
                label,
                view: NetworkView::new(ViewMode::Auto, false),
                mapping: m,
                own_colors: None,
            });
        }
        let (a, b) = (&self.panes[0], &self.panes[1]);
        self.moved = a.mapping.moved_processes(&b.mapping);
        let mut dm = super::side_by_side::blank_model(model);
        dm.placement.set(b.model.placement.to_vec());
        dm.eval = b.model.eval.clone();
        dm.mapping_label = format!("{} − {}", b.label, a.label);
        self.diff_model = Some(dm);
        self.diff_view = Some(NetworkView::new(ViewMode::Auto, false));
        self.built += 1;
    }

    /// The moved-process line shown above the views.
    pub fn moved_text(&self) -> String {
        format!(
            "{} of {} processes moved (on another node in {} than in {})",
            self.moved.len(),
            self.panes.first().map_or(0, |p| p.model.graph.n()),
            self.b,
            self.a
        )
    }

    /// Add the diverging legend to an export of the change pane.
    pub fn add_legend(&self, cap: &mut super::export::Capture) {
        let f = |v: f64| {
            if self.sync.by_flows {
                format!("{v:.0} flows")
            } else {
                fmt_bytes(v)
            }
        };
        super::export::add_legend(
            cap,
            &[
                &format!("change of link load, {} − {}", self.b, self.a),
                &format!("blue: less in {}, red: more", self.b),
                "green: moved processes",
            ],
            &format!("−{}", f(self.delta.max_abs)),
            &format!("+{}", f(self.delta.max_abs)),
            21,
            |t| diverging(t * 2.0 - 1.0),
        );
    }

    /// The hottest links of A and of B, with each link's change in the
    /// other: `# | load | change | link`. The change is a signed percentage
    /// (the other's load on hover) and the link its short name
    /// ([`NetworkView::link_short_name`], the full name on hover), wrapped
    /// rather than cut, so that at 1280×800 every name reads whole.
    fn tables(&mut self, ui: &mut egui::Ui, fmt: &dyn Fn(f64) -> String) {
        ui.columns(2, |cols| {
            for k in 0..2 {
                let (this, other) = (&self.panes[k], &self.panes[1 - k]);
                let ui = &mut cols[k];
                ui.strong(format!("Hottest links of {}", this.label));
                let hot: Vec<u32> = this.view.stats().hottest(HOT_ROWS).to_vec();
                egui::ScrollArea::vertical()
                    .id_salt(("diff_hot", k))
                    .max_height(ui.available_height())
                    .show(ui, |ui| {
                        egui::Grid::new(("diff_hot_grid", k))
                            .striped(true)
                            .num_columns(4)
                            .spacing(egui::vec2(6.0, 2.0))
                            .show(ui, |ui| {
                                let small = |t: &str| egui::RichText::new(t).small();
                                ui.label(small("#"));
                                ui.label(small(&this.label));
                                ui.label(small(&format!("in {}", other.label)));
                                ui.label(small("link"));
                                ui.end_row();
                                for (r, &i) in hot.iter().enumerate() {
                                    hot_row(ui, r, i as usize, this, other, fmt);
                                }
                            });
                    });
            }
        });
    }
}

/// One row of a hottest-links table: rank, `this` pane's load, the change
/// in `other` (coloured on the diverging map), the link's short name.
fn hot_row(
    ui: &mut egui::Ui,
    rank: usize,
    i: usize,
    this: &Pane,
    other: &Pane,
    fmt: &dyn Fn(f64) -> String,
) {
    let v = this.view.stats().vals[i];
    let o = other.view.stats().vals.get(i).copied().unwrap_or(0.0);
    let d = if v > 0.0 { (o - v) / v } else { 0.0 };
    // Whole percents, without a "-0".
    let pct = (d * 100.0).round() + 0.0;
    ui.label(egui::RichText::new(format!("{}", rank + 1)).small());
    ui.label(egui::RichText::new(fmt(v)).small().monospace());
    ui.label(
        egui::RichText::new(format!("{pct:+.0} %"))
            .small()
            .monospace()
            .color(diverging((d as f32).clamp(-1.0, 1.0) * 0.8)),
    )
    .on_hover_text(format!("{} in {}", fmt(o), other.label));
    ui.add(
        egui::Label::new(egui::RichText::new(this.view.link_short_name(&this.model, i)).small())
            .wrap(),
    )
    .on_hover_text(this.view.link_name(&this.model, i));
    ui.end_row();
}

/// The diverging colour bar of the change view.
fn diverging_legend(
    ui: &mut egui::Ui,
    max_abs: f64,
    fmt: &dyn Fn(f64) -> String,
    a: &str,
    b: &str,
) {
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        ui.label(egui::RichText::new(format!("−{}", fmt(max_abs))).small());
        color_bar(ui, 200.0, |t| diverging(t * 2.0 - 1.0));
        ui.label(egui::RichText::new(format!("+{}", fmt(max_abs))).small());
        ui.label(
            egui::RichText::new(format!(
                "· change of each link's load, {b} − {a}: blue = less in {b}, red = more, centre = \
                 unchanged (linear) · green nodes: processes {b} put on another node than {a} · \
                 A and B share one viridis scale"
            ))
            .small()
            .weak(),
        );
    });
}

impl View for DiffView {
    type Input<'a> = (&'a Model, &'a [Row]);
    type Output = ();

    fn title(&self) -> &'static str {
        "Difference"
    }

    fn ui(&mut self, ui: &mut egui::Ui, (model, rows): Self::Input<'_>) -> Self::Output {
        self.poll(model);
        if self.key != (model.graph.generation(), model.topo.generation()) && !self.panes.is_empty()
        {
            self.panes.clear();
            self.a.clear();
            self.b.clear();
        }
        if rows.len() < 2 {
            ui.weak("Run a comparison of at least two mappers first (or load mapping files).");
            return;
        }
        if self.a.is_empty() && self.job.is_none() {
            // Default against the best, else the first two rows.
            let best = rows[0].mapper.clone();
            let other = rows
                .iter()
                .find(|r| r.mapper == "default" && r.mapper != best)
                .unwrap_or(&rows[1])
                .mapper
                .clone();
            self.choose(&other, &best, rows, model);
        }
        self.chooser_ui(ui, model, rows);
        if self.job.is_some() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("evaluating…");
            });
            ui.ctx().request_repaint();
        }
        if self.panes.len() != 2 {
            return;
        }
        let three = model.topo.as_grid().is_some_and(|g| g.dims().len() >= 3);
        sync_toolbar(ui, &mut self.sync, three);

        let avail = ui.available_rect_before_wrap();
        let tables_h = (avail.height() * 0.3).clamp(120.0, 230.0);
        let grid = Rect::from_min_max(
            avail.min,
            pos2(avail.max.x, avail.max.y - tables_h - LEGEND_H),
        );
        let cells = grid_cells(grid, 3);
        // The delta, when A, B or what a link's value is changed.
        let view_rect = Rect::from_min_max(
            pos2(cells[0].min.x, cells[0].min.y + PANE_HEADER),
            cells[0].max,
        );
        for p in self.panes.iter_mut() {
            p.view.link_range(&p.model, &self.sync, view_rect);
        }
        self.update_delta();
        self.update_colors(model);
        let colors = self.colors.last();
        let colors_gen = colors.generation();
        let by_flows = self.sync.by_flows;
        let fmt = move |v: f64| {
            if by_flows {
                format!("{v:.0} flows")
            } else {
                fmt_bytes(v)
            }
        };
        draw_panes(
            ui,
            &mut self.panes,
            &cells[..2],
            &mut self.sync,
            &colors.0,
            colors_gen,
            |_, p| {
                let m = p.metrics();
                format!(
                    "hop-bytes {} · {}",
                    super::draw::fmt_num(m.hop_bytes),
                    super::side_by_side::load_text(&m)
                )
            },
        );
        self.change_pane_ui(ui, cells[2], &fmt);
        ui.allocate_rect(grid, egui::Sense::hover());
        diverging_legend(ui, self.delta.max_abs, &fmt, &self.a, &self.b);
        self.tables(ui, &fmt);
    }
}

impl DiffView {
    /// The A and B choosers (a change evaluates the new pair on a worker),
    /// swap, and how many processes moved.
    fn chooser_ui(&mut self, ui: &mut egui::Ui, model: &Model, rows: &[Row]) {
        ui.horizontal_wrapped(|ui| {
            let (mut a, mut b) = (self.a.clone(), self.b.clone());
            let la = ui.label("A");
            egui::ComboBox::from_id_salt("diff_a")
                .selected_text(&a)
                .show_ui(ui, |ui| {
                    for r in rows {
                        ui.selectable_value(&mut a, r.mapper.clone(), &r.mapper);
                    }
                })
                .response
                .labelled_by(la.id);
            let lb = ui.label("B");
            egui::ComboBox::from_id_salt("diff_b")
                .selected_text(&b)
                .show_ui(ui, |ui| {
                    for r in rows {
                        ui.selectable_value(&mut b, r.mapper.clone(), &r.mapper);
                    }
                })
                .response
                .labelled_by(lb.id);
            if ui.button("swap A and B").clicked() {
                std::mem::swap(&mut a, &mut b);
            }
            if (a != self.a || b != self.b) && self.job.is_none() {
                self.choose(&a, &b, rows, model);
            }
            if !self.panes.is_empty() {
                ui.separator();
                ui.strong(self.moved_text());
            }
        });
    }

    /// A and B's process colours and the change view's, again when A, B,
    /// the graph or the network is another.
    fn update_colors(&mut self, model: &Model) {
        let (a, b) = (&self.panes[0].mapping, &self.panes[1].mapping);
        let moved = &self.moved;
        let key = (
            (
                model.graph.generation(),
                model.topo.generation(),
                Same(a.clone()),
            ),
            Same(b.clone()),
        );
        self.colors.get(key, || {
            let n = model.graph.n();
            let mut mc = vec![Color32::from_gray(85); n];
            for &p in moved {
                if let Some(c) = mc.get_mut(p) {
                    *c = MOVED;
                }
            }
            (reference_colors(&model.topo, a, n), mc)
        });
    }

    /// The link-by-link change B − A, again when A, B or what a link's value
    /// is (bytes or flows) changed.
    fn update_delta(&mut self) {
        let dk = (self.built, self.sync.by_flows);
        if self.delta_key != dk {
            self.delta_key = dk;
            let b = &self.panes[1];
            let mut nodes: Vec<u32> = if self.moved.len() <= MOVED_RINGS {
                self.moved.iter().map(|&p| b.mapping.node[p]).collect()
            } else {
                Vec::new()
            };
            nodes.sort_unstable();
            nodes.dedup();
            self.delta = LinkDelta::new(
                self.panes[0].view.stats(),
                b.view.stats(),
                nodes,
                self.built * 2 + self.sync.by_flows as u64,
            );
        }
    }

    /// The change view in cell `c`: its title, the hop-bytes change, and
    /// the network drawn with the link changes and the moved processes.
    fn change_pane_ui(&mut self, ui: &mut egui::Ui, c: Rect, fmt: &dyn Fn(f64) -> String) {
        let (Some(dm), Some(dv)) = (self.diff_model.as_mut(), self.diff_view.as_mut()) else {
            return;
        };
        let mut cu = ui.new_child(
            egui::UiBuilder::new()
                .id_salt("diff_pane")
                .max_rect(c)
                .layout(egui::Layout::top_down(egui::Align::Min)),
        );
        cu.set_clip_rect(c);
        cu.strong(format!("change {} − {}", self.b, self.a));
        let hb = |p: &Pane| p.model.eval.as_ref().map_or(0.0, |e| e.metrics.hop_bytes);
        let (ha, hb) = (hb(&self.panes[0]), hb(&self.panes[1]));
        cu.label(
            egui::RichText::new(format!(
                "hop-bytes {:+.1} % · largest change ±{} · green: moved processes",
                if ha > 0.0 {
                    (hb - ha) / ha * 100.0
                } else {
                    0.0
                },
                fmt(self.delta.max_abs)
            ))
            .small(),
        );
        super::side_by_side::pane_top(&mut cu, &c, &mut self.sync);
        let from = super::export::mark(&cu);
        dv.ui_synced(
            &mut cu,
            dm,
            &self.colors.last().1,
            self.colors.last().generation(),
            &mut self.sync,
            Some(&self.delta),
        );
        self.drawn = Some((from, super::export::mark(&cu)));
    }
}
