//! The report dialog: the GUI's `hopmap compare … --report DIR`. Choose
//! graphs (the current one, built-in samples, files), networks and mappers
//! and a folder; the same library functions as the command line
//! ([`hopmap_core::report::run`], then [`hopmap_core::report::write`]) run on a worker
//! thread, with progress (mapper runs done of the total) and Cancel.
//!
//! Cost on the UI thread: O(1) per frame while it runs.

use super::Model;
use super::data_panel::{SAMPLES, load_graph_arg};
use super::view::View;
use super::worker::{Job, Poll};
use hopmap_core::graph::CommGraph;
use hopmap_core::topology::Topology;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What a report job returns: the files written, index.html last.
pub type ReportOutcome = Result<Vec<PathBuf>, String>;

/// The mappers first offered on a mesh or torus, and on a switch fabric
/// (where the grid heuristics would only be left out).
pub const GRID_MAPPERS: &str = "default,random,bft,mht,TZXY,pairs";
pub const FABRIC_MAPPERS: &str = "default,random,sm,bm,recursive+refine";

pub struct ReportDialog {
    pub open: bool,
    /// Include the graph shown in the app.
    pub current_graph: bool,
    /// Built-in samples to include.
    pub samples: Vec<bool>,
    /// More graph files, one per line.
    pub files: String,
    /// Network specs, one per line (fabric specs may hold commas).
    pub topologies: String,
    /// `all` or `id,id,…`.
    pub mappers: String,
    pub dir: String,
    pub seed: u64,
    pub job: Option<Job<ReportOutcome>>,
    pub last: Option<ReportOutcome>,
    chooser: super::file_dialog::Chooser,
}

impl Default for ReportDialog {
    fn default() -> Self {
        ReportDialog {
            open: false,
            current_graph: true,
            samples: vec![false; SAMPLES.len()],
            files: String::new(),
            topologies: String::new(),
            mappers: GRID_MAPPERS.into(),
            dir: "hopmap-report".into(),
            seed: 1,
            job: None,
            last: None,
            chooser: Default::default(),
        }
    }
}

impl ReportDialog {
    /// Open the dialog, with the app's network as the first one and, until
    /// the user edits the list, mappers for that kind of network.
    pub fn show(&mut self, model: &Model) {
        self.open = true;
        if self.topologies.trim().is_empty() {
            self.topologies = model.topo.spec();
        }
        if [GRID_MAPPERS, FABRIC_MAPPERS].contains(&self.mappers.as_str()) {
            let fabric = model.topo.as_fabric().is_some();
            self.mappers = if fabric { FABRIC_MAPPERS } else { GRID_MAPPERS }.into();
        }
    }

    pub fn busy(&self) -> bool {
        self.job.is_some()
    }

    /// Start the report on a worker thread. Inputs are checked first
    /// (graphs read, specs parsed, mappers resolved): an error is returned
    /// and nothing starts.
    pub fn start(&mut self, model: &Model) -> Result<(), String> {
        let mut graphs: Vec<(String, Arc<CommGraph>)> = Vec::new();
        if self.current_graph {
            graphs.push((model.graph_name.clone(), model.graph.clone()));
        }
        for (on, (name, _)) in self.samples.iter().zip(SAMPLES) {
            if *on {
                let (g, n) = load_graph_arg(name)?;
                graphs.push((n, Arc::new(g)));
            }
        }
        for f in self.files.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let (g, n) = load_graph_arg(f)?;
            graphs.push((n, Arc::new(g)));
        }
        if graphs.is_empty() {
            return Err("choose at least one graph".into());
        }
        let topos: Vec<Arc<Topology>> = self
            .topologies
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|t| Topology::parse(t).map(Arc::new).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        if topos.is_empty() {
            return Err("choose at least one network".into());
        }
        let selected =
            hopmap_core::compare::parse_list(&self.mappers).map_err(|e| e.to_string())?;
        let dir = PathBuf::from(self.dir.trim());
        if dir.as_os_str().is_empty() {
            return Err("choose a folder for the report".into());
        }
        let routing = model.routing.clone();
        let seed = self.seed;
        let total = graphs.len() * topos.len() * selected.len().max(1);
        self.last = None;
        self.job = Some(Job::spawn(
            format!("report into {}", dir.display()),
            move |ctl| {
                ctl.set_total(total);
                let mut progress = |case: usize, _cases: usize, i: usize, n: usize, _id: &str| {
                    ctl.set_done(case * n + i);
                };
                let cases = hopmap_core::report::run(
                    &graphs,
                    &topos,
                    &selected,
                    &routing,
                    seed,
                    &ctl.cancel,
                    &mut progress,
                )
                .map_err(|e| e.to_string())?;
                ctl.set_done(total);
                hopmap_core::report::write(&dir, &cases).map_err(|e| e.to_string())
            },
        ));
        Ok(())
    }

    /// Take the job's result when it finished.
    pub fn poll(&mut self) {
        if let Some(j) = self.job.as_mut() {
            match j.poll() {
                Poll::Running => {}
                Poll::Finished(r) => {
                    self.job = None;
                    self.last = Some(r);
                }
                Poll::Lost => {
                    self.job = None;
                    self.last = Some(Err("the report stopped unexpectedly (panic)".into()));
                }
            }
        }
    }

    /// The dialog as a window, while open (its content is [`View::ui`]).
    pub fn window(&mut self, ctx: &egui::Context, model: &mut Model) {
        self.poll();
        if !self.open {
            return;
        }
        let mut open = self.open;
        egui::Window::new(self.title())
            .open(&mut open)
            .default_width(460.0)
            // A dialog: in the middle of the window, not over the menu bar.
            .pivot(egui::Align2::CENTER_CENTER)
            .default_pos(ctx.content_rect().center())
            .show(ctx, |ui| View::ui(self, ui, model));
        self.open = open;
    }
}

impl View for ReportDialog {
    type Input<'a> = &'a mut Model;
    type Output = ();

    fn title(&self) -> &'static str {
        "Experiment report"
    }

    /// The graphs, networks, mappers, folder and seed of the report; Write
    /// report (on a worker, with its progress and Cancel) and what it wrote.
    fn ui(&mut self, ui: &mut egui::Ui, model: Self::Input<'_>) {
        ui.weak(
            "Every graph × network × mapper, as `hopmap compare --report DIR`: runs.csv, \
             runs.json, PNG and SVG charts, index.html.",
        );
        ui.strong("Graphs");
        ui.checkbox(
            &mut self.current_graph,
            format!("the current graph ({})", model.graph_name),
        );
        ui.horizontal_wrapped(|ui| {
            for (on, (name, help)) in self.samples.iter_mut().zip(SAMPLES) {
                ui.checkbox(on, format!("sample {name}"))
                    .on_hover_text(*help);
            }
        });
        ui.label("more graph files, one per line:");
        ui.add(egui::TextEdit::multiline(&mut self.files).desired_rows(2));
        ui.strong("Networks (one spec per line)");
        ui.add(egui::TextEdit::multiline(&mut self.topologies).desired_rows(2));
        ui.horizontal(|ui| {
            ui.strong("Mappers");
            ui.text_edit_singleline(&mut self.mappers)
                .on_hover_text("`all`, or ids separated by commas");
        });
        ui.horizontal(|ui| {
            ui.strong("Folder");
            ui.text_edit_singleline(&mut self.dir);
            if ui.small_button("Browse…").clicked() {
                self.chooser
                    .open(super::file_dialog::Request::folder("The report's folder"));
            }
            if let Some(d) = self.chooser.poll(ui.ctx()) {
                self.dir = d.display().to_string();
            }
        });
        ui.horizontal(|ui| {
            ui.label("seed");
            ui.add(egui::DragValue::new(&mut self.seed));
            ui.weak(format!("routing {}", model.routing.name()));
        });
        if let Some(j) = &self.job {
            let mut cancel = false;
            ui.horizontal(|ui| {
                let f = j.ctl.fraction();
                ui.add(egui::ProgressBar::new(f).desired_width(300.0).text(format!(
                    "{} of {} runs — {:.1} s",
                    j.ctl.done.load(Ordering::Relaxed),
                    j.ctl.total.load(Ordering::Relaxed),
                    j.elapsed().as_secs_f32()
                )));
                cancel = ui.button("Cancel report").clicked();
            });
            if cancel {
                j.cancel();
            }
        } else if ui.button("Write report").clicked()
            && let Err(e) = self.start(model)
        {
            self.last = Some(Err(e));
        }
        match &self.last {
            Some(Ok(files)) => {
                ui.label(format!(
                    "wrote {} files; open {}",
                    files.len(),
                    files
                        .last()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ));
            }
            Some(Err(e)) => {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 90), e);
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialog_writes_the_same_report_as_the_command_line() {
        let g = hopmap_core::generate::generate("stencil:4x4", &Default::default()).unwrap();
        let model = Model::new(g, "s4", Topology::parse("mesh:4x4").unwrap());
        let dir = std::env::temp_dir().join(format!("hopmap-report-dialog-{}", std::process::id()));
        let mut d = ReportDialog {
            mappers: "default,mht".into(),
            topologies: "mesh:4x4\ntorus:4x4".into(),
            dir: dir.display().to_string(),
            ..Default::default()
        };
        // Bad inputs: an error, and nothing starts.
        let mut bad = ReportDialog {
            topologies: "mesh:4x4".into(),
            mappers: "nonesuch".into(),
            ..Default::default()
        };
        let e = bad.start(&model).unwrap_err();
        assert!(e.contains("nonesuch"), "{e}");
        assert!(!bad.busy());
        d.start(&model).unwrap();
        let t0 = std::time::Instant::now();
        while d.busy() {
            d.poll();
            assert!(t0.elapsed() < std::time::Duration::from_secs(60));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let files = d.last.clone().unwrap().unwrap();
        assert!(files.last().unwrap().ends_with("index.html"));
        let csv = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
        // Header + 1 graph × 2 networks × 2 mappers.
        assert_eq!(csv.lines().count(), 5, "{csv}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_mappers_offered_fit_the_network_until_edited() {
        let g = hopmap_core::generate::generate("stencil:4x4", &Default::default()).unwrap();
        let fat = Model::new(g.clone(), "s4", Topology::parse("fattree:4:2").unwrap());
        let mesh = Model::new(g, "s4", Topology::parse("mesh:4x4").unwrap());
        let mut d = ReportDialog::default();
        d.show(&fat);
        assert_eq!(d.mappers, FABRIC_MAPPERS);
        d.show(&mesh);
        assert_eq!(d.mappers, GRID_MAPPERS);
        // Every mapper offered runs on its network: none is left out.
        for (list, m) in [(FABRIC_MAPPERS, &fat), (GRID_MAPPERS, &mesh)] {
            for sel in hopmap_core::compare::parse_list(list).unwrap() {
                assert!(
                    sel.info.networks.allows(&m.topo),
                    "{} on {}",
                    sel.info.id,
                    m.topo.spec()
                );
            }
        }
        d.mappers = "default,sm".into();
        d.show(&mesh);
        assert_eq!(d.mappers, "default,sm", "the user's list stays");
    }
}
