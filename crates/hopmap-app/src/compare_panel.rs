//! The Compare view: run a chosen set of mappers on the current graph and
//! network on a worker thread (progress bar, Cancel), then show a table of
//! their metrics sorted by the chosen metric (hop-bytes by default, best
//! first) with each mapper's ratio to the best and to `default`, and bar
//! charts naming every bar ([`super::compare_charts`]); click a row to show
//! that mapping in the other views at once (the comparison kept every
//! mapping, `Row::mapping`: it is only evaluated, on a worker, never run
//! again); load a mapping file from any tool as one more row; export the
//! table as CSV. The runner is [`hopmap_core::compare::compare`].
//!
//! Sub-views: the table and charts, [`super::side_by_side`] (2–4 mappings
//! in synced views), [`super::diff_view`] (the change between two) and
//! [`super::race`] (mappers stepping at once).

use super::Model;
use super::compare_charts::{bar_chart, ratio};
use super::diff_view::DiffView;
use super::draw::fmt_num;
use super::error::AppError;
use super::mapper_panel::MapperPanel;
use super::race::Race;
use super::side_by_side::{Evaluated, SideBySide, eval_job};
use super::view::View;
use super::worker::{Job, Poll};
use egui::Color32;
use hopmap_core::compare::{self, Comparison, Row, Skipped};
use hopmap_core::mappers;
use hopmap_core::metrics::evaluate;
use hopmap_core::report;
use hopmap_core::units::fmt_bytes;
use std::collections::BTreeSet;
use std::path::Path;
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

/// A row for mapping `m` named `name`: evaluated here (on a worker thread).
fn eval_row(
    g: &hopmap_core::graph::CommGraph,
    t: &hopmap_core::topology::Topology,
    r: &hopmap_core::routing::Routing,
    name: String,
    m: hopmap_core::mapping::Mapping,
    seconds: f64,
) -> Row {
    let e = evaluate(g, t, &m, r);
    Row {
        mapper: name,
        seconds,
        metrics: e.metrics.clone(),
        mapping: Arc::new(m),
    }
}

/// What a comparison job returns.
type Outcome = Result<Comparison, AppError>;

/// Which part of the Compare view is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareSub {
    Table,
    SideBySide,
    Difference,
    Race,
}

impl CompareSub {
    pub const ALL: [CompareSub; 4] = [
        CompareSub::Table,
        CompareSub::SideBySide,
        CompareSub::Difference,
        CompareSub::Race,
    ];
    pub fn title(self) -> &'static str {
        match self {
            CompareSub::Table => "Table & charts",
            CompareSub::SideBySide => "Side by side",
            CompareSub::Difference => "Difference",
            CompareSub::Race => "Race",
        }
    }
}

pub struct ComparePanel {
    pub sub: CompareSub,
    pub side: SideBySide,
    pub diff: DiffView,
    pub race: Race,
    /// Evaluating a row to show it in the main views (no re-run).
    show_job: Option<Job<Evaluated>>,
    /// Reading and evaluating a mapping file, or a workspace's saved rows.
    load_job: Option<Job<Result<Vec<Row>, String>>>,
    /// Rows loaded from mapping files (kept across comparisons of the same
    /// graph and network).
    pub loaded: Vec<Row>,
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
    /// The Load mapping file… and Export CSV… dialogs.
    chooser: super::file_dialog::Chooser,
    chooser_csv: super::file_dialog::Chooser,
}

impl Default for ComparePanel {
    fn default() -> Self {
        ComparePanel {
            sub: CompareSub::Table,
            side: SideBySide::default(),
            diff: DiffView::default(),
            race: Race::new(),
            show_job: None,
            load_job: None,
            loaded: Vec::new(),
            chosen: BTreeSet::new(),
            rows: Vec::new(),
            skipped: Vec::new(),
            job: None,
            current: Arc::new(Mutex::new(String::new())),
            // Hop-bytes, best (lowest) first.
            sort_col: 1,
            sort_desc: false,
            rows_key: (0, 0),
            seed: 0,
            params: String::new(),
            chooser: Default::default(),
            chooser_csv: Default::default(),
        }
    }
}

impl ComparePanel {
    pub fn busy(&self) -> bool {
        self.job.is_some()
            || self.show_job.is_some()
            || self.load_job.is_some()
            || self.side.busy()
            || self.diff.busy()
            || self.race.busy()
    }

    /// The metric the rows and bars are sorted by (table column index, 1–6).
    pub fn metric(&self) -> usize {
        if self.sort_col == 0 { 1 } else { self.sort_col }
    }

    /// Show row `i`'s mapping in the main views: the comparison kept it, so
    /// it is only evaluated (on a worker thread), never run again.
    pub fn show_row(&mut self, i: usize, model: &mut Model) {
        let Some(r) = self.rows.get(i) else { return };
        if self.rows_key != (model.graph.generation(), model.topo.generation()) {
            model.error = Some("that result belongs to a previous graph or network".into());
            return;
        }
        model.cancel_run();
        model.status = format!("showing {} (kept from the comparison)…", r.mapper);
        self.show_job = Some(eval_job(model, vec![(r.mapper.clone(), r.mapping.clone())]));
    }

    /// Read a mapping file (`eval --mapping`'s format, any tool's) and add
    /// it as a row named after the file; read and evaluated on a worker.
    pub fn load_mapping_file(&mut self, path: &Path, model: &Model) {
        let (g, t, r) = (
            model.graph.clone(),
            model.topo.clone(),
            model.routing.clone(),
        );
        let path = path.to_path_buf();
        let base = format!(
            "file:{}",
            path.file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| "mapping".into())
        );
        let mut name = base.clone();
        let mut k = 2;
        while self.rows.iter().any(|r| r.mapper == name) {
            name = format!("{base}#{k}");
            k += 1;
        }
        if self.rows.is_empty()
            || self.rows_key != (model.graph.generation(), model.topo.generation())
        {
            self.rows.clear();
            self.loaded.clear();
            self.skipped.clear();
            self.rows_key = (model.graph.generation(), model.topo.generation());
        }
        self.load_job = Some(Job::spawn("load mapping", move |_| {
            let m = hopmap_core::io::read_mapping(&path, &t, g.n()).map_err(|e| e.to_string())?;
            m.validate(g.n(), &t)
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Ok(vec![eval_row(&g, &t, &r, name, m, 0.0)])
        }));
    }

    /// The rows of the current graph and network (none when they belong to
    /// a previous one).
    pub fn current_rows(&self, model: &Model) -> &[Row] {
        if self.rows_key == (model.graph.generation(), model.topo.generation()) {
            &self.rows
        } else {
            &[]
        }
    }

    /// Put a workspace's saved rows back, `(name, mapping, seconds run)`:
    /// they replace the table and are evaluated again on a worker thread, as
    /// a loaded mapping file is (rows named `file:…` are loaded files again).
    pub fn restore_rows(
        &mut self,
        saved: Vec<(String, hopmap_core::mapping::Mapping, f64)>,
        model: &Model,
    ) {
        if let Some(j) = self.job.take() {
            j.cancel();
        }
        self.load_job = None;
        self.rows.clear();
        self.loaded.clear();
        self.skipped.clear();
        self.rows_key = (model.graph.generation(), model.topo.generation());
        if saved.is_empty() {
            return;
        }
        let (g, t, r) = (
            model.graph.clone(),
            model.topo.clone(),
            model.routing.clone(),
        );
        self.load_job = Some(Job::spawn("restore rows", move |_| {
            Ok(saved
                .into_iter()
                .map(|(name, m, secs)| eval_row(&g, &t, &r, name, m, secs))
                .collect())
        }));
    }

    /// Open a sub-view by key (`side`, `diff`, `race`) on the mappers `ids`
    /// (in that order; loaded files follow): side by side shows the first
    /// four rows, the difference the first two, race mode races them.
    /// Returns false for another key. Waits for the evaluations (headless).
    pub fn open_sub(
        &mut self,
        key: &str,
        model: &mut Model,
        ids: &[String],
        seed: u64,
        params: &str,
    ) -> bool {
        let mut names: Vec<String> = ids.to_vec();
        names.extend(self.loaded.iter().map(|r| r.mapper.clone()));
        names.retain(|n| self.rows.iter().any(|r| &r.mapper == n));
        match key {
            "side" => {
                self.sub = CompareSub::SideBySide;
                self.side.choose(&names, &self.rows, model);
                self.side.wait(model);
            }
            "diff" => {
                self.sub = CompareSub::Difference;
                if names.len() >= 2 {
                    self.diff.choose(&names[0], &names[1], &self.rows, model);
                    self.diff.wait(model);
                }
            }
            "race" => {
                self.sub = CompareSub::Race;
                self.race.chosen = ids
                    .iter()
                    .take(super::side_by_side::MAX_PANES)
                    .cloned()
                    .collect();
                let chosen = self.race.chosen.clone();
                self.race.start(model, &chosen, seed, params);
            }
            _ => return false,
        }
        true
    }

    fn poll_side_jobs(&mut self, model: &mut Model) {
        if let Some(j) = self.show_job.as_mut() {
            match j.poll() {
                Poll::Running => {}
                Poll::Lost => self.show_job = None,
                Poll::Finished(v) => {
                    self.show_job = None;
                    self.apply_shown(v, model);
                }
            }
        }
        if let Some(j) = self.load_job.as_mut() {
            match j.poll() {
                Poll::Running => {}
                Poll::Lost => self.load_job = None,
                Poll::Finished(r) => {
                    self.load_job = None;
                    self.add_loaded(r, model);
                }
            }
        }
    }

    fn apply_shown(&mut self, v: Evaluated, model: &mut Model) {
        if let Some((label, m, e)) = v.into_iter().next() {
            model.apply_mapping(&label, (*m).clone(), e);
            model.status = format!("showing {label} (kept from the comparison, not run again)");
        }
    }

    fn add_loaded(&mut self, r: Result<Vec<Row>, String>, model: &mut Model) {
        match r {
            Ok(rows) => {
                model.status = match rows.as_slice() {
                    [row] => format!("loaded {}", row.mapper),
                    _ => format!("restored {} compared mappings", rows.len()),
                };
                for row in rows {
                    if row.mapper.starts_with("file:") {
                        self.loaded.push(row.clone());
                    }
                    self.rows.push(row);
                }
                self.sort();
            }
            Err(e) => model.error = Some(e),
        }
    }

    /// Wait for the row being shown and the file being loaded (tests, headless).
    pub fn wait_jobs(&mut self, model: &mut Model) {
        if let Some(j) = self.show_job.take()
            && let Some(v) = j.wait()
        {
            self.apply_shown(v, model);
        }
        if let Some(j) = self.load_job.take()
            && let Some(r) = j.wait()
        {
            self.add_loaded(r, model);
        }
    }

    /// Start comparing `ids` on a worker thread with [`hopmap_core::compare::compare`].
    pub fn start(&mut self, model: &Model, ids: Vec<String>, seed: u64, params: &str) {
        if let Some(j) = self.job.take() {
            j.cancel();
        }
        if self.rows_key != (model.graph.generation(), model.topo.generation()) {
            self.loaded.clear();
        }
        let graph = model.graph.clone();
        let topo = model.topo.clone();
        let routing = model.routing.clone();
        let extra = hopmap_core::mappers::parse_params(params).unwrap_or_default();
        self.rows_key = (model.graph.generation(), model.topo.generation());
        self.seed = seed;
        self.params = params.to_string();
        let current = self.current.clone();
        self.job = Some(Job::spawn("Compare", move |ctl| {
            let mut sel: Vec<compare::Selected> = ids
                .iter()
                .map(|id| compare::resolve(id))
                .collect::<hopmap_core::Result<_>>()
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
        self.poll_side_jobs(model);
        self.race.poll();
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
                self.rows.extend(self.loaded.iter().cloned());
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
                col_value(a, c)
                    .total_cmp(&col_value(b, c))
                    .then(col_value(a, 1).total_cmp(&col_value(b, 1)))
                    .then_with(|| a.mapper.cmp(&b.mapper))
            };
            if desc { o.reverse() } else { o }
        });
    }

    /// The table as CSV, in the columns of every comparison CSV hopmap
    /// writes ([`hopmap_core::report::CSV_HEADER`]): one line per mapper in
    /// the table's order, then the skipped ones with their reason.
    pub fn csv(&self, model: &Model) -> String {
        let mut s = format!("{}\n", hopmap_core::report::CSV_HEADER);
        let routing = model.routing.resolve(&model.topo).to_string();
        hopmap_core::report::csv_lines(
            &mut s,
            (&model.graph_name, &model.topo.spec(), &routing),
            &self.rows,
            &self.skipped,
        );
        s
    }

    /// Export the difference view's change pane when asked (after `ui`).
    pub fn capture_diff(&mut self, ui: &egui::Ui, export: &mut super::export::Export) {
        let drawn = self.diff.drawn.take();
        if let (CompareSub::Difference, Some((from, to))) = (self.sub, drawn) {
            let d = &self.diff;
            export.capture_with(
                ui,
                from,
                Some(to),
                super::export::ViewKind::Difference,
                |c| d.add_legend(c),
            );
        }
    }

    fn table_ui(&mut self, ui: &mut egui::Ui, model: &mut Model, mapper: &MapperPanel) {
        ui.strong("Compare mappers on this graph and network");
        self.chooser_ui(ui);
        self.actions_ui(ui, model, mapper);
        if self.rows.is_empty() {
            ui.weak("Tick mappers and press Run comparison.");
            return;
        }
        if self.rows_key != (model.graph.generation(), model.topo.generation()) {
            ui.colored_label(
                Color32::from_rgb(240, 190, 80),
                "These results are for a previous graph or network.",
            );
        }
        let metric = self.metric();
        let mut show: Option<usize> = None;
        egui::ScrollArea::both()
            .id_salt("compare_table_scroll")
            .max_height((ui.available_height() * 0.45).max(160.0))
            .show(ui, |ui| {
                egui::Grid::new("compare_table")
                    .striped(true)
                    .num_columns(COLUMNS.len() + 2)
                    .show(ui, |ui| {
                        self.header_ui(ui, metric);
                        show = self.rows_ui(ui, model, metric);
                    });
                for k in &self.skipped {
                    ui.colored_label(
                        Color32::from_rgb(240, 170, 90),
                        format!("{} skipped: {}", k.mapper, k.reason),
                    );
                }
            });
        if let Some(i) = show {
            self.show_row(i, model);
        }
        ui.separator();
        self.charts_ui(ui, metric);
    }

    /// The mappers to compare, one checkbox each.
    fn chooser_ui(&mut self, ui: &mut egui::Ui) {
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
    }

    /// All / None, Run comparison (with its progress and Cancel), loading a
    /// mapping file as one more row, the CSV export.
    fn actions_ui(&mut self, ui: &mut egui::Ui, model: &mut Model, mapper: &MapperPanel) {
        let reg = mappers::registry();
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
            if ui
                .add_enabled(
                    self.load_job.is_none(),
                    egui::Button::new("Load mapping file…"),
                )
                .on_hover_text(
                    "A mapping from any tool, in `hopmap eval --mapping`'s format (a node index \
                     or coordinates x y z [t] per process, in rank order): one more row",
                )
                .clicked()
            {
                self.chooser
                    .open(super::file_dialog::Request::open("Load a mapping file"));
            }
            if let Some(p) = self.chooser.poll(ui.ctx()) {
                self.load_mapping_file(&p, model);
            }
            if !self.rows.is_empty() && ui.button("Export CSV…").clicked() {
                self.chooser_csv.open(
                    super::file_dialog::Request::save("Export the comparison", "compare.csv")
                        .filter("CSV", &["csv"]),
                );
            }
            if let Some(p) = self.chooser_csv.poll(ui.ctx()) {
                if let Err(e) =
                    hopmap_core::io::atomic::write_bytes_atomic(&p, self.csv(model).as_bytes())
                {
                    model.error = Some(e.to_string());
                } else {
                    model.status = format!("saved {}", p.display());
                }
            }
        });
    }

    /// The table's header: one sort button per column, and the two ratio
    /// columns after the first.
    fn header_ui(&mut self, ui: &mut egui::Ui, metric: usize) {
        for (c, title) in COLUMNS.iter().enumerate() {
            let arrow = if self.sort_col == c {
                if self.sort_desc { " (desc)" } else { " (asc)" }
            } else {
                ""
            };
            if ui
                .button(format!("{title}{arrow}"))
                .on_hover_text("sort by this column (click again: reverse)")
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
            if c == 0 {
                ui.label(format!("× best ({})", COLUMNS[metric]))
                    .on_hover_text("this mapper's value of the sort metric over the best one's");
                ui.label("× default")
                    .on_hover_text("this mapper's value of the sort metric over default's");
            }
        }
        ui.end_row();
    }

    /// One row per compared mapping, the best value of the sort metric in
    /// bold; the row clicked (to show its mapping), if any.
    fn rows_ui(&self, ui: &mut egui::Ui, model: &Model, metric: usize) -> Option<usize> {
        let best = self
            .rows
            .iter()
            .map(|r| col_value(r, metric))
            .fold(f64::INFINITY, f64::min);
        let default = self
            .rows
            .iter()
            .find(|r| r.mapper == "default")
            .map(|r| col_value(r, metric));
        let mut show = None;
        for (i, r) in self.rows.iter().enumerate() {
            let m = &r.metrics;
            let shown = model.mapping_label == r.mapper;
            if ui
                .selectable_label(shown, format!("{} ›", r.mapper))
                .on_hover_text(
                    "show this mapping in the views (kept from the comparison: \
                     not run again)",
                )
                .clicked()
            {
                show = Some(i);
            }
            let v = col_value(r, metric);
            let rb = egui::RichText::new(ratio(v, Some(best))).monospace();
            ui.label(if v == best { rb.strong() } else { rb });
            ui.label(egui::RichText::new(ratio(v, default)).monospace());
            let hb = egui::RichText::new(fmt_num(m.hop_bytes)).monospace();
            ui.label(if metric == 1 && v == best {
                hb.strong()
            } else {
                hb
            });
            ui.label(format!("{:.3}", m.avg_hops_per_byte));
            ui.label(m.max_dilation.to_string());
            ui.label(fmt_bytes(m.max_link_load));
            ui.label(m.max_link_flows.to_string());
            ui.label(if r.mapper.starts_with("file:") {
                "loaded".to_string()
            } else {
                format!("{:.3}", r.seconds)
            });
            ui.end_row();
        }
        show
    }

    /// Two bar charts in the table's order: the sort metric and, beside it,
    /// max link load (or hop-bytes when that is the sort metric). Each bar
    /// is the report's [`report::chart_metric`]: on a fabric the load and
    /// flows charts are of the busiest switch-to-switch link, titled so,
    /// with the busiest link overall noted beside each bar.
    fn charts_ui(&self, ui: &mut egui::Ui, metric: usize) {
        let other = if metric == 4 { 1 } else { 4 };
        let fmt_of = |c: usize| -> Box<dyn Fn(f64) -> String> {
            match c {
                1 => Box::new(fmt_num),
                2 => Box::new(|v| format!("{v:.3}")),
                4 => Box::new(fmt_bytes),
                6 => Box::new(|v| format!("{v:.3} s")),
                _ => Box::new(|v| format!("{v:.0}")),
            }
        };
        let fabric = report::on_fabric(&self.rows);
        egui::ScrollArea::both()
            .id_salt("compare_charts_scroll")
            .show(ui, |ui| {
                for c in [metric, other] {
                    let key = COLUMNS[c];
                    let bars: Vec<(String, f64, String)> = self
                        .rows
                        .iter()
                        .map(|r| {
                            let v = report::chart_metric(&r.metrics, r.seconds, key);
                            let note = report::chart_note(&r.metrics, key)
                                .map_or(String::new(), |n| format!("  ({n})"));
                            (r.mapper.clone(), v, note)
                        })
                        .collect();
                    let title = match (c, fabric) {
                        (4, true) => "max switch-to-switch link load",
                        (5, true) => "max switch-to-switch flows",
                        _ => key,
                    };
                    bar_chart(ui, title, &bars, &*fmt_of(c));
                    ui.add_space(6.0);
                }
            });
    }
}

impl View for ComparePanel {
    type Input<'a> = (&'a mut Model, &'a MapperPanel);
    type Output = ();

    fn title(&self) -> &'static str {
        "Compare"
    }

    fn ui(&mut self, ui: &mut egui::Ui, (model, mapper): Self::Input<'_>) -> Self::Output {
        ui.horizontal(|ui| {
            for sub in CompareSub::ALL {
                ui.selectable_value(&mut self.sub, sub, sub.title());
            }
        });
        ui.separator();
        let current = self.rows_key == (model.graph.generation(), model.topo.generation());
        let rows: &[Row] = if current { &self.rows } else { &[] };
        match self.sub {
            CompareSub::Table => self.table_ui(ui, model, mapper),
            CompareSub::SideBySide => View::ui(&mut self.side, ui, (model, rows)),
            CompareSub::Difference => self.diff.ui(ui, (model, rows)),
            CompareSub::Race => {
                let has_coords = model.graph.coords().is_some();
                let params = mapper.effective_params(has_coords);
                self.race.ui(ui, (model, mapper.seed, &params))
            }
        }
    }
}
