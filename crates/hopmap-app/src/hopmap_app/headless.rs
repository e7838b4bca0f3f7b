//! The headless/screenshot driver: `hopmap gui` options ([`GuiOptions`],
//! applied before the first frame), the screenshot taken after some frames
//! (also the Screenshot button), and [`run`], which opens the eframe window
//! and reports how a headless run ended.

use crate::background::Command;
use crate::data_panel;
use crate::error::AppError;
use crate::settings::Settings;
use crate::{HopmapApp, Tab, network_panel};
use hopmap_core::mappers;
use hopmap_core::topology::Topology;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Options of `hopmap gui` (all optional).
#[derive(Clone, Debug, Default)]
pub struct GuiOptions {
    /// A graph file, or `sample` / a built-in sample name.
    pub graph: Option<String>,
    pub topology: Option<String>,
    pub mapper: Option<String>,
    /// Save a PNG of the whole window after `frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    pub frames: u32,
    /// Stop the mapper after this many steps (shows a placement in progress).
    pub steps: Option<usize>,
    /// The central view: split, graph, network, matrix, compare, analytical
    /// or bipartition; or side, diff, race (the Compare view's side by side
    /// in the table's order, the difference of the first two on the
    /// `compare` list, the race of that list).
    pub view: Option<String>,
    /// Mapper ids to compare before showing (comma-separated).
    pub compare: Option<String>,
    /// Mapping files to load as named rows of the comparison.
    pub mappings: Vec<PathBuf>,
    /// Per-process coordinates (`x y [z]` per line) replacing the graph's own.
    pub coords: Option<PathBuf>,
    /// How to read the graph file (format, one-based ids).
    pub read: hopmap_core::io::ReadOptions,
    /// A `.hopmap` workspace to open (instead of a lesson or a graph).
    pub workspace: Option<PathBuf>,
    /// The lesson to open (id); without graph, network, mapper or
    /// workspace, the app opens on the first lesson.
    pub lesson: Option<String>,
    /// With `screenshot`: also write what the panels show as JSON
    /// ([`crate::ui_state::UiState`]).
    pub state: Option<PathBuf>,
    /// The window's inner size in points (default 1280×800).
    pub size: Option<[f32; 2]>,
    /// A dialog or tab to open: one of [`OPEN_KEYS`] (scripted figures of
    /// what only a click shows).
    pub open: Option<String>,
}

/// What `hopmap gui --open` opens: File → Export's save dialog (the in-app
/// chooser, for the network view as SVG), File → Experiment report's
/// dialog, the teaching panel's guided log (with guided mode on, so that
/// the `--mapper` run fills it) or its glossary.
pub const OPEN_KEYS: [&str; 4] = ["export", "report", "guided-log", "glossary"];

/// State of a screenshot: taken after `frames` frames (0 = at once, and the
/// window stays open: the Screenshot button).
pub(crate) struct Headless {
    path: PathBuf,
    /// Where to write the panels' state with the screenshot.
    pub(crate) state: Option<PathBuf>,
    frames: u32,
    requested: bool,
    saved: Arc<Mutex<Option<Result<(), AppError>>>>,
}

impl Headless {
    pub(crate) fn new(path: PathBuf, frames: u32) -> Self {
        Headless {
            path,
            state: None,
            frames,
            requested: false,
            saved: Arc::new(Mutex::new(None)),
        }
    }
}

impl HopmapApp {
    /// Apply `hopmap gui` options: graph, topology, mapper (run to the end
    /// synchronously so that the screenshot shows the result), screenshot.
    pub fn apply_options(&mut self, opts: &GuiOptions) -> Result<(), AppError> {
        if let Some(w) = &opts.workspace {
            self.load_workspace(w)?;
        } else if opts.lesson.is_some()
            || (opts.graph.is_none() && opts.topology.is_none() && opts.mapper.is_none())
        {
            // The app opens on a lesson, not on an arbitrary sample.
            let lessons = hopmap_core::lessons::LESSONS;
            let i = match &opts.lesson {
                Some(id) => lessons.iter().position(|l| l.id == id).ok_or_else(|| {
                    let ids: Vec<&str> = lessons.iter().map(|l| l.id).collect();
                    format!("no lesson {id}: one of {}", ids.join(", "))
                })?,
                None => 0,
            };
            self.open_lesson(i, 0)?;
            if opts.screenshot.is_some() {
                // Let the headless screenshot show the lesson's mapping.
                self.wait_for_run();
            }
        }
        if let Some(t) = &opts.topology {
            let topo = Topology::parse(t).map_err(|e| e.to_string())?;
            self.model.error = None;
            self.model.set_topology(topo);
            self.network = network_panel::NetworkPanel::new(&self.model.topo);
        }
        if let Some(g) = &opts.graph {
            let (graph, name) =
                data_panel::load_graph_arg_with(g, &opts.read, opts.coords.as_deref())?;
            self.model.error = None;
            self.model.set_graph(graph, &name);
            self.data.sample = name;
            // A graph file (not a sample) is what a saved workspace points to.
            let path = std::path::Path::new(g);
            let sample = g == "sample" || data_panel::SAMPLES.iter().any(|(n, _)| n == g);
            let plain = opts.coords.is_none() && !opts.read.one_based && opts.read.format.is_none();
            let monitoring = hopmap_core::io::ompi_monitoring::is_monitoring_path(path);
            if plain && !sample && !monitoring && path.is_file() {
                self.model.graph_path = Some(path.to_path_buf());
            }
            if !sample {
                self.data.source_path = Some(path.to_path_buf());
                self.data.traffic = opts.read.traffic;
                self.data.phase = opts.read.phase.clone();
            }
        }
        if let Some(k) = &opts.open {
            self.open_key(k)?;
        }
        if let Some(m) = &opts.mapper {
            let sel = mappers::resolve(m).map_err(|e| e.to_string())?;
            self.mapper.select(sel.info.id);
            let has_coords = self.model.graph.coords().is_some();
            let (seed, params) = (self.mapper.seed, self.mapper.effective_params(has_coords));
            if !self.model.start_run(m, seed, &params) {
                return Err(self.model.error.clone().unwrap_or_default().into());
            }
            // The headless window shows the run's state after `--steps`
            // steps, or its end: wait for the worker here, before the first
            // frame.
            let cmd = match opts.steps {
                Some(k) => Command::Step(k),
                None => Command::RunToEnd,
            };
            let want = opts.steps;
            if let Some(r) = self.model.run.worker_mut() {
                r.send(cmd);
                let snap = r.wait_for(Duration::from_secs(24 * 3600), |s| {
                    s.result.is_some() || want.is_some_and(|k| s.steps >= k && !s.active)
                });
                if let Some(snap) = snap {
                    self.model.apply_snapshot(snap);
                }
            }
            if let Some(e) = &self.model.error {
                return Err(e.clone().into());
            }
        }
        let ids: Vec<String> = opts
            .compare
            .iter()
            .flat_map(|l| l.split(','))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        if !ids.is_empty() {
            let (seed, params) = (self.mapper.seed, self.mapper.params.clone());
            self.compare.start(&self.model, ids.clone(), seed, &params);
            self.compare.wait(&mut self.model);
        }
        for p in &opts.mappings {
            self.compare.load_mapping_file(p, &self.model);
            self.compare.wait_jobs(&mut self.model);
        }
        if let Some(e) = &self.model.error {
            return Err(e.clone().into());
        }
        if let Some(v) = &opts.view {
            let has_coords = self.model.graph.coords().is_some();
            let (seed, params) = (self.mapper.seed, self.mapper.effective_params(has_coords));
            if !self
                .compare
                .open_sub(v, &mut self.model, &ids, seed, &params)
            {
                self.tab = Tab::from_key(v);
            } else {
                self.tab = Tab::Compare;
            }
        }
        self.headless_from(opts)
    }

    /// Open one of [`OPEN_KEYS`] (before a `--mapper` run: the guided log
    /// turns guided mode on for it).
    pub fn open_key(&mut self, key: &str) -> Result<(), AppError> {
        use crate::teach::BottomTab;
        match key {
            "export" => self.menus.open_export_dialog(),
            "report" => self.teach.report.show(&self.model),
            "guided-log" => {
                self.model.guided = true;
                self.teach.hidden = false;
                self.teach.tab = BottomTab::Log;
            }
            "glossary" => {
                self.teach.hidden = false;
                self.teach.tab = BottomTab::Glossary;
            }
            _ => {
                return Err(AppError::Failed(format!(
                    "--open {key}: expected one of {}",
                    OPEN_KEYS.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Wait for the running mapper to finish (or pause) and show it.
    fn wait_for_run(&mut self) {
        if let Some(r) = self.model.run.worker_mut() {
            let snap = r.wait_for(Duration::from_secs(600), |s| {
                s.result.is_some() || (s.steps > 0 && !s.active)
            });
            if let Some(snap) = snap {
                self.model.apply_snapshot(snap);
            }
        }
    }

    fn headless_from(&mut self, opts: &GuiOptions) -> Result<(), AppError> {
        if let Some(p) = &opts.screenshot {
            let mut h = Headless::new(p.clone(), opts.frames.max(3));
            h.state = opts.state.clone();
            self.headless = Some(h);
        }
        Ok(())
    }

    pub(crate) fn headless_step(&mut self, ctx: &egui::Context) {
        let Some(h) = self.headless.as_mut() else {
            return;
        };
        if let Some(r) = h.saved.lock().ok().and_then(|mut s| s.take()) {
            let path = h.path.display().to_string();
            let interactive = h.frames == 0;
            self.headless = None;
            match r {
                Ok(()) => self.model.status = format!("saved {path}"),
                Err(e) => self.model.error = Some(e.to_string()),
            }
            if !interactive {
                if let Ok(mut f) = self.finished.lock() {
                    *f = Some(match &self.model.error {
                        Some(e) => Err(AppError::Failed(e.clone())),
                        None => Ok(()),
                    });
                }
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
            return;
        }
        // A run paused after `--steps` steps is not waited for; the graph
        // view's layout is, until it stops (same seed, same picture), but
        // not by the Screenshot button.
        let waiting = self.model.load_job.is_some()
            || self.model.stepping()
            || self.network_view.busy()
            || (h.frames > 0 && self.graph_view.poll_layout(&mut self.model));
        if !h.requested && !waiting && self.frame_no >= h.frames as u64 {
            h.requested = true;
            // The state of the frame the screenshot shows.
            if let Some(sp) = h.state.clone()
                && let Err(e) = self.write_state(&sp)
            {
                self.model.error = Some(e.to_string());
            }
            let Some(h) = self.headless.as_mut() else {
                return;
            };
            let path = h.path.clone();
            let saved = h.saved.clone();
            let ctx2 = ctx.clone();
            ctx.request_screenshot(move |img: Arc<egui::ColorImage>| {
                let r = save_png(&path, &img);
                if let Ok(mut s) = saved.lock() {
                    *s = Some(r);
                }
                ctx2.request_repaint();
            });
        }
        ctx.request_repaint();
    }
}

/// Save an egui image as an RGBA PNG.
pub fn save_png(path: &std::path::Path, img: &egui::ColorImage) -> Result<(), AppError> {
    let [w, h] = img.size;
    hopmap_core::io::atomic::write_png(
        path,
        w as u32,
        h as u32,
        img.as_raw(),
        image::ExtendedColorType::Rgba8,
    )
    .map_err(AppError::from)
}

/// eframe's options for `opts`: the window's size, and whether eframe
/// saves the window's place (not for a screenshot run, which saves
/// nothing: see [`HopmapApp::persist`]).
pub fn native_options(opts: &GuiOptions) -> eframe::NativeOptions {
    eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("hopmap — topology-aware process mapping")
            .with_inner_size(opts.size.unwrap_or([1280.0, 800.0]))
            .with_min_inner_size([800.0, 500.0]),
        persist_window: opts.screenshot.is_none(),
        ..Default::default()
    }
}

/// The app of a screenshot run: default settings (a documentation
/// screenshot must not depend on saved ones), nothing saved on exit, the
/// pointer ignored.
pub fn screenshot_app() -> HopmapApp {
    let mut app = HopmapApp::new(Settings::default());
    app.persist = None;
    app.ignore_pointer = true;
    app
}

/// Open the window. Returns [`AppError::NoWindow`] when there is no display
/// (or the graphics backend fails), and the error of a headless run that
/// failed.
pub fn run(opts: GuiOptions) -> Result<(), AppError> {
    let native = native_options(&opts);
    let finished: Arc<Mutex<Option<Result<(), AppError>>>> = Arc::new(Mutex::new(None));
    let fin2 = finished.clone();
    let headless = opts.screenshot.is_some();
    let setup_error: Arc<Mutex<Option<AppError>>> = Arc::new(Mutex::new(None));
    let se2 = setup_error.clone();
    let r = eframe::run_native(
        "hopmap",
        native,
        Box::new(move |cc| {
            if headless {
                // A screenshot does not inherit a zoom or panel sizes saved
                // by another run (egui's memory is loaded from disk).
                cc.egui_ctx.memory_mut(|m| m.data = Default::default());
                cc.egui_ctx.set_zoom_factor(1.0);
            }
            let mut app = if headless {
                screenshot_app()
            } else {
                HopmapApp::from_creation_context(cc)
            };
            app.finished = fin2;
            if let Err(e) = app.apply_options(&opts) {
                if headless {
                    if let Ok(mut s) = se2.lock() {
                        *s = Some(e.clone());
                    }
                    cc.egui_ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                }
                app.model.error = Some(e.to_string());
            }
            Ok(Box::new(app))
        }),
    );
    r.map_err(|e| AppError::NoWindow(e.to_string()))?;
    if let Some(e) = setup_error.lock().ok().and_then(|mut s| s.take()) {
        return Err(e);
    }
    if headless {
        return match finished.lock().ok().and_then(|mut f| f.take()) {
            Some(r) => r,
            None => Err(AppError::Failed(
                "the window closed before the screenshot was saved".into(),
            )),
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records every write eframe's storage would get.
    #[derive(Default)]
    struct Recorder(Vec<String>);

    impl eframe::Storage for Recorder {
        fn get_string(&self, _key: &str) -> Option<String> {
            None
        }
        fn set_string(&mut self, key: &str, _value: String) {
            self.0.push(key.to_string());
        }
        fn remove_string(&mut self, key: &str) {
            self.0.push(key.to_string());
        }
        fn flush(&mut self) {}
    }

    #[test]
    fn open_keys_open_their_dialog_or_tab() {
        use crate::teach::BottomTab;
        let mut app = HopmapApp::new(Settings::default());
        app.teach.hidden = true;
        app.open_key("glossary").unwrap();
        assert_eq!(
            (app.teach.tab, app.teach.hidden),
            (BottomTab::Glossary, false)
        );
        assert!(!app.model.guided);
        app.open_key("guided-log").unwrap();
        assert_eq!(app.teach.tab, BottomTab::Log);
        assert!(app.model.guided, "the run fills the log");
        assert!(app.menus.chooser.inapp.is_none());
        app.open_key("export").unwrap();
        assert!(app.menus.chooser.inapp.is_some(), "the in-app chooser");
        assert!(matches!(
            app.menus.purpose,
            Some(crate::file_menu::Purpose::Export(
                crate::export::ViewKind::Network,
                _
            ))
        ));
        assert!(!app.teach.report.open);
        app.open_key("report").unwrap();
        assert!(app.teach.report.open);
        let e = app.open_key("matrix").unwrap_err().to_string();
        assert!(e.contains("export, report, guided-log, glossary"), "{e}");
    }

    #[test]
    fn a_screenshot_run_saves_nothing_and_a_window_saves_its_settings() {
        let shot = GuiOptions {
            screenshot: Some("x.png".into()),
            ..Default::default()
        };
        assert!(!native_options(&shot).persist_window);
        assert!(native_options(&GuiOptions::default()).persist_window);
        let mut app = screenshot_app();
        assert!(app.persist.is_none() && app.ignore_pointer);
        assert!(!eframe::App::persist_egui_memory(&app));
        let mut rec = Recorder::default();
        eframe::App::save(&mut app, &mut rec);
        assert!(rec.0.is_empty(), "{:?}", rec.0);

        // A window with a settings file writes it (so the check above can fail).
        let dir = std::env::temp_dir().join(format!("hopmap-persist-{}", std::process::id()));
        let path = dir.join("settings.json");
        let mut app = HopmapApp::new(Settings::default());
        app.persist = Some(path.clone());
        app.mapper.seed = 77;
        assert!(eframe::App::persist_egui_memory(&app));
        eframe::App::save(&mut app, &mut rec);
        let saved: Settings = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(saved.seed, 77);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
