//! The Compare view: run a chosen set of mappers on the current graph and
//! network on a worker thread (progress bar, Cancel), then show a sortable
//! table of their metrics and bar charts; click a row to show that mapping
//! in the other views (it is run again, deterministically, with the same
//! seed); export the table as CSV. The runner is [`crate::compare::compare`].

use super::Model;
use super::colormap::{category, fmt_bytes};
use super::error::AppError;
use super::mapper_panel::MapperPanel;
use super::metrics_panel::fmt_num;
use super::worker::{Job, Poll};
use crate::compare::{self, Comparison, Row, Skipped};
use crate::mappers;
use egui::Color32;
use egui_plot::{Bar, BarChart, Plot};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

/// Table columns.
const COLUMNS: [&str; 7] = [
    "mapper",
    "hop_bytes",
    "avg_hops_per_byte",
    "max_dilation",
    "max_link_load",
    "max_link_flows",
    "seconds",
];

fn col_value(r: &Row, c: usize) -> f64 {
    let m = &r.metrics;
    match c {
        1 => m.hop_bytes,
        2 => m.avg_hops_per_byte,
        3 => m.max_dilation as f64,
        4 => m.max_link_load,
        5 => m.max_link_flows as f64,
        6 => r.seconds,
        _ => 0.0,
    }
}

/// What a comparison job returns.
type Outcome = Result<Comparison, AppError>;

#[derive(Default)]
pub struct ComparePanel {
    pub chosen: BTreeSet<String>,
    /// The rows of the last comparison (sorted as the user chose).
    pub rows: Vec<Row>,
    pub skipped: Vec<Skipped>,
    job: Option<Job<Outcome>>,
    /// Mapper currently running in the job.
    current: Arc<Mutex<String>>,
    sort_col: usize,
    sort_desc: bool,
    /// The (graph, topology) generation the rows belong to.
    rows_key: (u64, u64),
    seed: u64,
    params: String,
}

impl ComparePanel {
    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Start comparing `ids` on a worker thread with [`crate::compare::compare`].
    pub fn start(&mut self, model: &Model, ids: Vec<String>, seed: u64, params: &str) {
        if let Some(j) = self.job.take() {
            j.cancel();
        }
        let graph = model.graph.clone();
        let topo = model.topo.clone();
        let routing = model.routing.clone();
        let extra = crate::mappers::parse_params(params).unwrap_or_default();
        self.rows_key = (model.graph_gen, model.topo_gen);
        self.seed = seed;
        self.params = params.to_string();
        let current = self.current.clone();
        self.job = Some(Job::spawn("Compare", move |ctl| {
            let mut sel: Vec<compare::Selected> = ids
                .iter()
                .map(|id| compare::resolve(id))
                .collect::<crate::Result<_>>()
                .map_err(|e| e.to_string())?;
            for s in &mut sel {
                s.params.extend(extra.iter().cloned());
            }
            ctl.set_total(sel.len());
            let mut progress = |i: usize, _total: usize, id: &str| {
                ctl.set_done(i);
                if let Ok(mut c) = current.lock() {
                    *c = id.to_string();
                }
            };
            let r = compare::compare(
                graph,
                topo,
                &sel,
                &routing,
                seed,
                &ctl.cancel,
                &mut progress,
            )
            .map_err(AppError::from);
            ctl.set_done(sel.len());
            r
        }));
    }

    /// Collect a finished comparison.
    pub fn poll(&mut self, model: &mut Model) {
        if let Some(j) = self.job.as_mut() {
            match j.poll() {
                Poll::Running => {}
                Poll::Finished(r) => {
                    self.job = None;
                    self.finish(r, model);
                }
                Poll::Lost => {
                    self.job = None;
                    model.error = Some("the comparison stopped unexpectedly (panic)".into());
                }
            }
        }
    }

    fn finish(&mut self, r: Outcome, model: &mut Model) {
        match r {
            Ok(c) => {
                self.rows = c.rows;
                self.skipped = c.skipped;
                self.sort();
                model.status = format!("compared {} mappers", self.rows.len());
            }
            Err(AppError::Cancelled) => model.status = "comparison cancelled".into(),
            Err(e) => model.error = Some(e.to_string()),
        }
    }

    /// Wait for the running comparison (tests).
    pub fn wait(&mut self, model: &mut Model) {
        if let Some(j) = self.job.take()
            && let Some(r) = j.wait()
        {
            self.finish(r, model);
        }
    }

    fn sort(&mut self) {
        let (c, desc) = (self.sort_col, self.sort_desc);
        self.rows.sort_by(|a, b| {
            let o = if c == 0 {
                a.mapper.cmp(&b.mapper)
            } else {
                col_value(a, c).total_cmp(&col_value(b, c))
            };
            if desc { o.reverse() } else { o }
        });
    }

    /// The table as CSV (header + one line per mapper; skipped ones with their reason).
    pub fn csv(&self) -> String {
        let mut s = COLUMNS.join(",");
        s.push_str(",skipped\n");
        for r in &self.rows {
            let m = &r.metrics;
            s.push_str(&format!(
                "{},{},{},{},{},{},{:.6},\n",
                r.mapper,
                m.hop_bytes,
                m.avg_hops_per_byte,
                m.max_dilation,
                m.max_link_load,
                m.max_link_flows,
                r.seconds
            ));
        }
        for k in &self.skipped {
            s.push_str(&format!(
                "{},,,,,,,\"{}\"\n",
                k.mapper,
                k.reason.replace('"', "'")
            ));
        }
        s
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, model: &mut Model, mapper: &MapperPanel) {
        ui.strong("Compare mappers on this graph and network");
        let reg = mappers::registry();
        ui.horizontal_wrapped(|ui| {
            for info in &reg {
                let mut on = self.chosen.contains(info.id);
                if ui
                    .checkbox(&mut on, info.id)
                    .on_hover_text(format!("{}\n{}", info.name, info.paper))
                    .changed()
                {
                    if on {
                        self.chosen.insert(info.id.to_string());
                    } else {
                        self.chosen.remove(info.id);
                    }
                }
            }
        });
        ui.horizontal(|ui| {
            if ui.button("All").clicked() {
                self.chosen = reg.iter().map(|i| i.id.to_string()).collect();
            }
            if ui.button("None").clicked() {
                self.chosen.clear();
            }
            let ids: Vec<String> = reg
                .iter()
                .filter(|i| self.chosen.contains(i.id))
                .map(|i| i.id.to_string())
                .collect();
            if ui
                .add_enabled(
                    !ids.is_empty() && self.job.is_none(),
                    egui::Button::new("Run comparison"),
                )
                .clicked()
            {
                self.start(model, ids, mapper.seed, &mapper.params);
            }
            if let Some(j) = &self.job {
                ui.add(
                    egui::ProgressBar::new(j.ctl.fraction())
                        .desired_width(200.0)
                        .text(format!(
                            "{} — {:.1} s",
                            self.current.lock().map(|c| c.clone()).unwrap_or_default(),
                            j.elapsed().as_secs_f32()
                        )),
                );
                if ui.button("Cancel").clicked() {
                    j.cancel();
                }
            }
            if !self.rows.is_empty()
                && ui.button("Export CSV…").clicked()
                && let Some(p) = rfd::FileDialog::new()
                    .add_filter("CSV", &["csv"])
                    .set_file_name("compare.csv")
                    .save_file()
            {
                if let Err(e) = crate::io::atomic::write_bytes_atomic(&p, self.csv().as_bytes()) {
                    model.error = Some(e.to_string());
                } else {
                    model.status = format!("saved {}", p.display());
                }
            }
        });
        if self.rows.is_empty() {
            ui.weak("Tick mappers and press Run comparison.");
            return;
        }
        if self.rows_key != (model.graph_gen, model.topo_gen) {
            ui.colored_label(
                Color32::from_rgb(240, 190, 80),
                "These results are for a previous graph or network.",
            );
        }
        let best = self
            .rows
            .iter()
            .map(|r| r.metrics.hop_bytes)
            .fold(f64::INFINITY, f64::min);
        let mut show: Option<usize> = None;
        egui::Grid::new("compare_table")
            .striped(true)
            .num_columns(COLUMNS.len())
            .show(ui, |ui| {
                for (c, title) in COLUMNS.iter().enumerate() {
                    let arrow = if self.sort_col == c {
                        if self.sort_desc { " (desc)" } else { " (asc)" }
                    } else {
                        ""
                    };
                    if ui
                        .button(format!("{title}{arrow}"))
                        .on_hover_text("sort by this column")
                        .clicked()
                    {
                        if self.sort_col == c {
                            self.sort_desc = !self.sort_desc;
                        } else {
                            self.sort_col = c;
                            self.sort_desc = false;
                        }
                        self.sort();
                    }
                }
                ui.end_row();
                for (i, r) in self.rows.iter().enumerate() {
                    let m = &r.metrics;
                    let shown = model.mapping_label == r.mapper;
                    if ui
                        .selectable_label(shown, format!("{} ›", r.mapper))
                        .on_hover_text("show this mapping in the views (runs it again)")
                        .clicked()
                    {
                        show = Some(i);
                    }
                    let hb = egui::RichText::new(fmt_num(m.hop_bytes)).monospace();
                    ui.label(if m.hop_bytes == best { hb.strong() } else { hb });
                    ui.label(format!("{:.3}", m.avg_hops_per_byte));
                    ui.label(m.max_dilation.to_string());
                    ui.label(fmt_bytes(m.max_link_load));
                    ui.label(m.max_link_flows.to_string());
                    ui.label(format!("{:.3}", r.seconds));
                    ui.end_row();
                }
            });
        for k in &self.skipped {
            ui.colored_label(
                Color32::from_rgb(240, 170, 90),
                format!("{} skipped: {}", k.mapper, k.reason),
            );
        }
        if let Some(i) = show {
            if self.rows_key == (model.graph_gen, model.topo_gen) {
                let id = self.rows[i].mapper.clone();
                model.start_map(&id, self.seed, &self.params);
            } else {
                model.error = Some("that result belongs to a previous graph or network".into());
            }
        }
        ui.separator();
        let names: Vec<String> = self.rows.iter().map(|r| r.mapper.clone()).collect();
        ui.columns(2, |cols| {
            for (ci, (title, f)) in [
                (
                    "hop-bytes",
                    (|r: &Row| r.metrics.hop_bytes) as fn(&Row) -> f64,
                ),
                ("max link load (bytes)", |r: &Row| r.metrics.max_link_load),
            ]
            .into_iter()
            .enumerate()
            {
                let ui = &mut cols[ci];
                ui.label(title);
                let bars: Vec<Bar> = self
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(k, r)| {
                        Bar::new(k as f64, f(r))
                            .width(0.7)
                            .name(&r.mapper)
                            .fill(category(k))
                    })
                    .collect();
                let names = names.clone();
                Plot::new(format!("compare_bars_{ci}"))
                    .height(180.0)
                    .allow_scroll(false)
                    .allow_drag(false)
                    .x_axis_formatter(move |mark, _| {
                        let i = mark.value.round();
                        if (mark.value - i).abs() < 1e-6 && i >= 0.0 {
                            names.get(i as usize).cloned().unwrap_or_default()
                        } else {
                            String::new()
                        }
                    })
                    .show(ui, |p| p.bar_chart(BarChart::new(title, bars)));
            }
        });
    }
}
