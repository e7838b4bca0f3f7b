//! Race mode: several mappers step at once on the same graph and network,
//! each on its own worker thread (the run of the lane's pane model, see
//! [`crate::run_state::Run`]), in lockstep ticks: every tick gives each
//! unfinished mapper the same number of steps, or the same time budget (time spent in its steps, [`Command::StepFor`]); the
//! next tick starts when every mapper has used its share, at most one tick
//! per frame. Their hop-bytes curves (of the placed processes, as each
//! worker evaluates them) are drawn together on one plot, against steps or
//! stepping time, and their network views animate side by side with one
//! camera and one colour scale ([`super::side_by_side::draw_panes`]).
//!
//! The UI thread only takes each worker's newest snapshot (a copy) and
//! draws it: O(n + links) per lane per new snapshot, nothing else.

use super::Model;
use super::colormap::{category, node_colors};
use super::draw::fmt_num;
use super::network_view::{NetworkView, ViewMode, ViewSync};
use super::side_by_side::{
    MAX_PANES, Pane, blank_model, draw_panes, grid_cells, scale_legend, sync_toolbar,
};
use super::view::View;
use crate::background::{Command, Snapshot};
use egui::{Color32, Rect, pos2};
use egui_plot::{Line, LineStyle, Plot, PlotPoint, PlotPoints, Points, Text};
use hopmap_core::mapping::Mapping;
use hopmap_core::step::StepState;
use std::sync::Arc;
use std::time::Duration;

/// How each tick is shared out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// The same number of steps for every mapper.
    Steps(usize),
    /// The same stepping time (milliseconds) for every mapper.
    Budget(f32),
}

/// The state of one racing mapper (its view is the pane of the same index,
/// whose model holds the run on its worker).
pub struct Lane {
    pub id: String,
    /// Steps taken and seconds spent stepping.
    pub steps: usize,
    pub seconds: f64,
    /// Waiting for the worker to use its share of the tick.
    pending: bool,
    /// The worker's first snapshot arrived (published before it reads any
    /// command, so it must not be taken as the answer to a tick).
    ready: bool,
    pub done: bool,
    /// (steps, seconds, hop-bytes of the placed processes).
    pub curve: Vec<[f64; 3]>,
    pub state: StepState,
    place_key: u64,
    /// The newest snapshot not yet shown in the lane's view.
    unshown: Option<Snapshot>,
}

pub struct Race {
    /// Mapper ids chosen for the next race (up to [`MAX_PANES`]).
    pub chosen: Vec<String>,
    pub lanes: Vec<Lane>,
    pub panes: Vec<Pane>,
    pub pace_steps: bool,
    pub steps_per_tick: usize,
    pub budget_ms: f32,
    pub running: bool,
    /// Plot hop-bytes against stepping time instead of steps.
    pub x_time: bool,
    pub sync: ViewSync,
    /// Ticks handed out so far.
    pub ticks: u64,
    /// The lane whose view is refreshed next (one view per frame).
    next_shown: usize,
    key: (u64, u64),
    node_colors: Vec<Color32>,
    pub error: Option<String>,
    /// Curves (lines with points) the plot drew last frame.
    pub plotted_curves: usize,
    /// The lanes whose final value the plot held out to the end of the x
    /// range last frame ([`held_line`]).
    pub held_lines: Vec<String>,
}

impl Default for Race {
    fn default() -> Self {
        Self::new()
    }
}

impl Race {
    pub fn new() -> Self {
        Race {
            chosen: Vec::new(),
            lanes: Vec::new(),
            panes: Vec::new(),
            pace_steps: true,
            steps_per_tick: 1,
            budget_ms: 4.0,
            running: false,
            x_time: false,
            sync: ViewSync::default(),
            ticks: 0,
            next_shown: 0,
            key: (0, 0),
            node_colors: Vec::new(),
            error: None,
            plotted_curves: 0,
            held_lines: Vec::new(),
        }
    }

    pub fn pace(&self) -> Pace {
        if self.pace_steps {
            Pace::Steps(self.steps_per_tick.max(1))
        } else {
            Pace::Budget(self.budget_ms.max(0.05))
        }
    }

    /// Start racing `ids` (each through the one pipeline, on its worker).
    pub fn start(&mut self, model: &Model, ids: &[String], seed: u64, params: &str) {
        self.stop();
        self.error = None;
        self.key = (model.graph.generation(), model.topo.generation());
        self.node_colors = node_colors(&model.topo);
        for id in ids.iter().take(MAX_PANES) {
            let mut m = blank_model(model);
            if !m.start_run(id, seed, params) {
                self.error = Some(format!("{id}: {}", m.error.take().unwrap_or_default()));
                continue;
            }
            m.mapping_label = id.clone();
            self.lanes.push(Lane {
                id: id.clone(),
                steps: 0,
                seconds: 0.0,
                pending: false,
                ready: false,
                done: false,
                curve: Vec::new(),
                state: StepState::Running,
                place_key: 0,
                unshown: None,
            });
            self.panes.push(Pane {
                label: id.clone(),
                model: m,
                view: NetworkView::new(ViewMode::Auto, false),
                mapping: Arc::new(Mapping::default()),
                own_colors: Some((Vec::new(), 0)),
            });
        }
        self.ticks = 0;
        self.running = !self.lanes.is_empty();
    }

    /// Cancel every run and forget the lanes.
    pub fn stop(&mut self) {
        for p in &mut self.panes {
            p.model.cancel_run();
        }
        self.lanes.clear();
        self.panes.clear();
        self.running = false;
    }

    pub fn busy(&self) -> bool {
        self.running || self.lanes.iter().any(|l| l.pending)
    }

    /// Take the newest snapshots, and hand out the next tick when every
    /// lane has used its share. Called once per frame. To bound a frame's
    /// work, one lane's view takes its newest snapshot per frame (round
    /// robin; a finished run's at once), so four lanes each refresh at a
    /// quarter of the frame rate.
    pub fn poll(&mut self) {
        for (l, p) in self.lanes.iter_mut().zip(self.panes.iter_mut()) {
            if l.done {
                continue;
            }
            let Some(r) = p.model.run.worker_mut() else {
                continue;
            };
            let Some(snap) = r.take() else { continue };
            // The first snapshot precedes every command; a later one answers
            // the tick only once the worker has read every command sent.
            if l.ready {
                l.pending = snap.active || !r.answers_all(&snap);
            }
            l.ready = true;
            l.steps = snap.steps;
            l.seconds = snap.seconds;
            l.state = snap.state;
            if let Some(e) = &snap.eval
                && l.curve.last().is_none_or(|c| c[0] < snap.steps as f64)
            {
                l.curve
                    .push([snap.steps as f64, snap.seconds, e.metrics.hop_bytes]);
            }
            let finished = snap.result.is_some();
            l.unshown = Some(snap);
            if finished {
                l.done = true;
                l.pending = false;
            }
        }
        let n = self.lanes.len();
        let mut shown_one = false;
        for k in 0..n {
            let i = (self.next_shown + k) % n;
            let (l, p) = (&mut self.lanes[i], &mut self.panes[i]);
            let last = l.unshown.as_ref().is_some_and(|s| s.result.is_some());
            if l.unshown.is_some() && (last || !shown_one) {
                if let Some(s) = l.unshown.take() {
                    p.model.apply_snapshot(s);
                }
                if !last && !shown_one {
                    shown_one = true;
                    self.next_shown = (i + 1) % n;
                }
            }
        }
        // Process colours follow each lane's placement.
        for (l, p) in self.lanes.iter_mut().zip(self.panes.iter_mut()) {
            if l.place_key != p.model.placement.generation() {
                l.place_key = p.model.placement.generation();
                let cores = p.model.topo.cores();
                let cols: Vec<Color32> = p
                    .model
                    .placement
                    .iter()
                    .map(|s| match s {
                        Some(s) => self
                            .node_colors
                            .get(*s as usize / cores)
                            .copied()
                            .unwrap_or(Color32::GRAY),
                        None => Color32::from_gray(110),
                    })
                    .collect();
                p.own_colors = Some((cols, l.place_key));
            }
        }
        if self.lanes.iter().all(|l| l.done) {
            self.running = false;
            return;
        }
        if self.running && self.lanes.iter().all(|l| l.done || (l.ready && !l.pending)) {
            let cmd = match self.pace() {
                Pace::Steps(k) => Command::Step(k),
                Pace::Budget(ms) => Command::StepFor(Duration::from_secs_f64(ms as f64 / 1000.0)),
            };
            for (l, p) in self.lanes.iter_mut().zip(&self.panes) {
                if let (false, Some(r)) = (l.done, p.model.run.worker()) {
                    r.send(cmd);
                    l.pending = true;
                }
            }
            self.ticks += 1;
        }
    }
}

impl View for Race {
    type Input<'a> = (&'a Model, u64, &'a str);
    type Output = ();

    fn title(&self) -> &'static str {
        "Race"
    }

    /// The race's controls, plot and views ([`Race::poll`] runs each frame
    /// from the Compare panel's poll, shown or not).
    fn ui(&mut self, ui: &mut egui::Ui, (model, seed, params): Self::Input<'_>) -> Self::Output {
        if self.key != (model.graph.generation(), model.topo.generation()) && !self.lanes.is_empty()
        {
            self.stop();
        }
        if self.lanes.is_empty() {
            chooser_ui(ui, &mut self.chosen);
        } else {
            // While racing, the chooser folds away to leave room for the views.
            egui::CollapsingHeader::new(format!("Mappers: {}", self.chosen.join(", ")))
                .id_salt("race_chooser")
                .default_open(false)
                .show(ui, |ui| chooser_ui(ui, &mut self.chosen));
        }
        self.controls_ui(ui, model, seed, params);
        if let Some(e) = &self.error {
            ui.colored_label(Color32::from_rgb(240, 120, 100), e);
        }
        if self.lanes.is_empty() {
            ui.weak("Tick two to four mappers and press Start race.");
            return;
        }
        if self.busy() {
            ui.ctx().request_repaint();
        }
        self.plot_ui(ui);
        self.views_ui(ui, model);
    }
}

impl Race {
    /// The pace (steps or time per tick), Start / Pause / Resume / Stop,
    /// and the plot's x axis.
    fn controls_ui(&mut self, ui: &mut egui::Ui, model: &Model, seed: u64, params: &str) {
        ui.horizontal_wrapped(|ui| {
            ui.radio_value(&mut self.pace_steps, true, "same steps per frame");
            ui.add_enabled(
                self.pace_steps,
                egui::DragValue::new(&mut self.steps_per_tick).range(1..=10_000),
            );
            ui.radio_value(&mut self.pace_steps, false, "same time budget per frame")
                .on_hover_text(
                    "each mapper steps for this long per tick (time spent in its steps)",
                );
            ui.add_enabled(
                !self.pace_steps,
                egui::DragValue::new(&mut self.budget_ms)
                    .range(0.05..=200.0)
                    .speed(0.1)
                    .suffix(" ms"),
            );
            ui.separator();
            if ui
                .add_enabled(self.chosen.len() >= 2, egui::Button::new("Start race"))
                .on_hover_text("at least two mappers")
                .clicked()
            {
                let ids = self.chosen.clone();
                self.start(model, &ids, seed, params);
            }
            if !self.lanes.is_empty() && self.lanes.iter().any(|l| !l.done) {
                let label = if self.running { "Pause" } else { "Resume" };
                if ui.button(label).clicked() {
                    self.running = !self.running;
                }
            }
            if !self.lanes.is_empty() && ui.button("Stop race").clicked() {
                self.stop();
            }
            ui.separator();
            ui.label("x axis");
            ui.selectable_value(&mut self.x_time, false, "steps");
            ui.selectable_value(&mut self.x_time, true, "time");
            if !self.lanes.is_empty() {
                ui.label(format!("tick {}", self.ticks));
            }
        });
    }

    /// The lanes' hop-bytes curves on one plot, against steps or time: each
    /// lane's curve, a marker at its newest value, and for a lane that has
    /// finished a dashed line holding its final value to the end of the
    /// plot's x range ([`held_line`]), so that a mapper done in one step is a
    /// line, not a dot; each lane's name and newest value written at its
    /// newest point.
    fn plot_ui(&mut self, ui: &mut egui::Ui) {
        let x_time = self.x_time;
        let xy = |c: &[f64; 3]| [if x_time { c[1] } else { c[0] }, c[2]];
        let x_end = self
            .lanes
            .iter()
            .filter_map(|l| l.curve.last().map(|c| xy(c)[0]))
            .fold(0.0, f64::max);
        let y_top = self
            .lanes
            .iter()
            .flat_map(|l| l.curve.iter().map(|c| c[2]))
            .fold(0.0, f64::max);
        let plotted = Plot::new("race_plot")
            .height((ui.available_height() * 0.28).clamp(90.0, 200.0))
            // Each curve is labelled at its newest point (no legend box to
            // hide them); room above the highest value for its label.
            .include_y(0.0)
            .include_y(y_top * 1.2)
            .x_axis_label(if x_time { "seconds stepping" } else { "steps" })
            .y_axis_label("hop-bytes (placed)")
            // Grouped digits, as every other hop-bytes figure.
            .y_axis_formatter(|m, _| super::draw::fmt_num(m.value.round()))
            .show(ui, |p| {
                let mut n = 0;
                let mut held = Vec::new();
                for (i, l) in self.lanes.iter().enumerate() {
                    let Some(last) = l.curve.last().map(xy) else {
                        continue;
                    };
                    n += 1;
                    let c = category(i);
                    let pts: PlotPoints = l.curve.iter().map(xy).collect();
                    p.line(
                        Line::new(l.id.clone(), pts)
                            .color(c)
                            .width(2.0)
                            .id(("race", i, 0)),
                    );
                    p.points(
                        Points::new(l.id.clone(), vec![last])
                            .color(c)
                            .radius(4.0)
                            .filled(true)
                            .id(("race", i, 1)),
                    );
                    if let Some(seg) = held_line(last, l.done, x_end) {
                        held.push(l.id.clone());
                        p.line(
                            Line::new(l.id.clone(), seg.to_vec())
                                .color(c)
                                .width(1.5)
                                .style(LineStyle::dashed_dense())
                                .id(("race", i, 2)),
                        );
                    }
                    // Its name and newest value above that point, inward.
                    let anchor = if last[0] * 2.0 < x_end {
                        egui::Align2::LEFT_BOTTOM
                    } else {
                        egui::Align2::RIGHT_BOTTOM
                    };
                    p.text(
                        Text::new(
                            l.id.clone(),
                            PlotPoint::new(last[0], last[1]),
                            egui::RichText::new(format!("{} {}", l.id, fmt_num(last[1])))
                                .small()
                                .color(c),
                        )
                        .anchor(anchor)
                        .id(("race", i, 3)),
                    );
                }
                (n, held)
            });
        (self.plotted_curves, self.held_lines) = plotted.inner;
    }

    /// The lanes' network views side by side, one camera and colour scale,
    /// each titled with its steps, time, hop-bytes and state.
    fn views_ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        let three = model.topo.as_grid().is_some_and(|g| g.dims().len() >= 3);
        sync_toolbar(ui, &mut self.sync, three);
        let avail = ui.available_rect_before_wrap();
        let grid = Rect::from_min_max(
            avail.min,
            pos2(avail.max.x, avail.max.y - super::side_by_side::LEGEND_H),
        );
        let cells = grid_cells(grid, self.panes.len());
        let infos: Vec<String> = self
            .lanes
            .iter()
            .map(|l| {
                let hb = l.curve.last().map_or(0.0, |c| c[2]);
                let state = match l.state.stop() {
                    Some(s) => s.describe().to_string(),
                    None => "running".to_string(),
                };
                let placed = if l.curve.is_empty() {
                    " (nothing placed yet)"
                } else {
                    ""
                };
                format!(
                    "{} step{} · {:.1} ms stepping · hop-bytes {}{placed} · {state}",
                    l.steps,
                    if l.steps == 1 { "" } else { "s" },
                    l.seconds * 1e3,
                    fmt_num(hb)
                )
            })
            .collect();
        draw_panes(
            ui,
            &mut self.panes,
            &cells,
            &mut self.sync,
            &[],
            0,
            |i, _| infos.get(i).cloned().unwrap_or_default(),
        );
        ui.allocate_rect(grid, egui::Sense::hover());
        scale_legend(ui, &self.sync, self.panes.len());
    }
}

/// The dashed segment that holds a finished lane's final value `last`
/// (x, hop-bytes) out to `x_end`, the end of the plot's x range; None for a
/// lane still running or one that ends there.
pub fn held_line(last: [f64; 2], done: bool, x_end: f64) -> Option<[[f64; 2]; 2]> {
    (done && x_end > last[0]).then_some([last, [x_end, last[1]]])
}

/// The mappers to race, up to [`MAX_PANES`] (those available here).
fn chooser_ui(ui: &mut egui::Ui, chosen: &mut Vec<String>) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Race (up to 4):");
        for info in hopmap_core::mappers::registry() {
            if info.available().is_err() {
                continue;
            }
            let mut on = chosen.iter().any(|c| c == info.id);
            let full = chosen.len() >= MAX_PANES && !on;
            if ui
                .add_enabled(!full, egui::Checkbox::new(&mut on, info.id))
                .on_hover_text(info.name)
                .changed()
            {
                if on {
                    chosen.push(info.id.to_string());
                } else {
                    chosen.retain(|c| c != info.id);
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::held_line;

    #[test]
    fn a_lane_done_in_one_step_holds_its_value_to_the_end_of_the_race() {
        // default finishes at step 1 with 827 400 304; sm runs to step 22.
        assert_eq!(
            held_line([1.0, 827_400_304.0], true, 22.0),
            Some([[1.0, 827_400_304.0], [22.0, 827_400_304.0]])
        );
        // Still running: its curve ends where it is.
        assert_eq!(held_line([5.0, 9.0], false, 22.0), None);
        // The lane that ends last needs no segment.
        assert_eq!(held_line([22.0, 9.0], true, 22.0), None);
    }
}
