//! The menu bar at the top of the window: **File** (open and save a
//! `.hopmap` workspace, export the mapping in every launcher format, export
//! the graph, network, matrix or difference view as SVG or 2× PNG, save a
//! screenshot of the window, the experiment report) and **View** (the UI
//! zoom with its Ctrl +/−/0 shortcuts, and the side panels shown).
//!
//! Every file dialog goes through one [`Chooser`] (native on a thread, or
//! the in-app chooser: [`crate::file_dialog`]); what the chosen path is for
//! waits in [`Menus::purpose`] until the path arrives.
//!
//! The window arranges itself once for its size ([`Menus::auto_layout`]):
//! below 1100 points wide the Metrics panel starts collapsed (View brings it
//! back), and on a large screen (2400+ pixels wide at a scale of 1) the UI
//! zoom starts at 1.5.
//!
//! Cost per frame: the menu bar's widgets.

use crate::HopmapApp;
use crate::export::{Format, ViewKind};
use crate::file_dialog::{Chooser, Request};
use crate::headless::Headless;
use hopmap_core::io::launcher::{HostNames, LauncherFormat, write_mapping_file};

/// Content widths from this many points on are taken for a window that
/// has not reported its size yet (no screen is that wide at a scale of 1).
pub const PLACEHOLDER_WIDTH: f32 = 9000.0;

/// What a chosen path is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    OpenWorkspace,
    SaveWorkspace,
    Export(ViewKind, Format),
    ExportMapping(LauncherFormat),
    Screenshot,
}

/// State of the menu bar.
pub struct Menus {
    pub chooser: Chooser,
    pub purpose: Option<Purpose>,
    /// The left (Data, Network, Mapper) and right (Metrics) panels shown.
    pub left_open: bool,
    pub right_open: bool,
    auto_done: bool,
}

impl Default for Menus {
    fn default() -> Self {
        Menus {
            chooser: Chooser::default(),
            purpose: None,
            left_open: true,
            right_open: true,
            auto_done: false,
        }
    }
}

/// The export entries of the File menu.
const EXPORTS: [(ViewKind, Format, &str, &str); 6] = [
    (
        ViewKind::Network,
        Format::Svg,
        "Export network view as SVG…",
        "network.svg",
    ),
    (
        ViewKind::Graph,
        Format::Svg,
        "Export graph view as SVG…",
        "graph.svg",
    ),
    (
        ViewKind::Matrix,
        Format::Svg,
        "Export matrix view as SVG…",
        "matrix.svg",
    ),
    (
        ViewKind::Difference,
        Format::Svg,
        "Export difference view as SVG…",
        "difference.svg",
    ),
    (
        ViewKind::Network,
        Format::Png2x,
        "Export network view as PNG (2×)…",
        "network.png",
    ),
    (
        ViewKind::Graph,
        Format::Png2x,
        "Export graph view as PNG (2×)…",
        "graph.png",
    ),
];

/// The launcher formats of Export mapping: format, extension, description.
const MAPPING_FORMATS: [(LauncherFormat, &str, &str); 6] = [
    (LauncherFormat::Plain, "txt", "plain: rank node core"),
    (LauncherFormat::Bgp, "map", "Blue Gene/P mapfile (x y z t)"),
    (LauncherFormat::Mpich, "txt", "Cray MPICH_RANK_ORDER"),
    (
        LauncherFormat::Rankfile,
        "txt",
        "Open MPI rankfile (hosts node%d)",
    ),
    (
        LauncherFormat::Slurm,
        "txt",
        "SLURM_HOSTFILE for srun --distribution=arbitrary (hosts node%d)",
    ),
    (
        LauncherFormat::Hydra,
        "txt",
        "MPICH/Intel MPI Hydra machinefile (hosts node%d)",
    ),
];

impl Menus {
    /// Arrange the window once for its size (see the module doc).
    pub fn auto_layout(&mut self, ctx: &egui::Context) {
        if self.auto_done {
            return;
        }
        let r = ctx.content_rect();
        // The first frame of a window still hidden may report a placeholder
        // size (15 000 points under X11, which would zoom a 1280-pixel
        // window to 1.5): wait for a real one.
        if r.width() < 10.0 || r.width() >= PLACEHOLDER_WIDTH {
            return;
        }
        self.auto_done = true;
        let px = r.width() * ctx.pixels_per_point();
        if px >= 2400.0 && (ctx.zoom_factor() - 1.0).abs() < 1e-3 {
            ctx.set_zoom_factor(1.5);
        } else if r.width() < 1100.0 {
            self.right_open = false;
        }
    }

    fn ask(&mut self, purpose: Purpose, req: Request) {
        self.purpose = Some(purpose);
        self.chooser.open(req);
    }

    /// File → Export network view as SVG's save dialog, in the app
    /// (`hopmap gui --open export`: a native dialog is another window).
    pub fn open_export_dialog(&mut self) {
        let (view, format, what, file) = EXPORTS[0];
        self.purpose = Some(Purpose::Export(view, format));
        self.chooser.open_with(
            Request::save(what.trim_end_matches('…'), file).filter("svg", &["svg"]),
            crate::file_dialog::Backend::InApp,
        );
    }
}

impl HopmapApp {
    /// The menu bar (File, View) at the top of the window.
    pub(crate) fn menu_bar(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.menus.auto_layout(&ctx);
        ui.menu_button("File", |ui| self.file_menu(ui));
        ui.menu_button("View", |ui| self.view_menu(ui));
        if let Some(p) = self.menus.chooser.poll(&ctx)
            && let Some(purpose) = self.menus.purpose.take()
        {
            self.on_chosen(purpose, p);
        } else if !self.menus.chooser.busy() {
            self.menus.purpose = None;
        }
    }

    fn file_menu(&mut self, ui: &mut egui::Ui) {
        if ui
            .button("Open workspace…")
            .on_hover_text("Open a .hopmap workspace")
            .clicked()
        {
            ui.close();
            self.menus.ask(
                Purpose::OpenWorkspace,
                Request::open("Open a workspace")
                    .filter("hopmap workspace", &[hopmap_core::workspace::EXTENSION]),
            );
        }
        if ui
            .button("Save workspace…")
            .on_hover_text(
                "Save graph, network, mapper, mapping, layout and view settings as a .hopmap file",
            )
            .clicked()
        {
            ui.close();
            self.menus.ask(
                Purpose::SaveWorkspace,
                Request::save("Save the workspace", "session.hopmap")
                    .filter("hopmap workspace", &[hopmap_core::workspace::EXTENSION]),
            );
        }
        ui.separator();
        ui.menu_button("Export mapping", |ui| {
            let enabled = self.model.mapping.is_some();
            if !enabled {
                ui.weak("no complete mapping yet");
            }
            for (f, ext, what) in MAPPING_FORMATS {
                if ui.add_enabled(enabled, egui::Button::new(what)).clicked() {
                    ui.close();
                    self.menus.ask(
                        Purpose::ExportMapping(f),
                        Request::save("Export the mapping", &format!("mapping.{}.{ext}", f.name())),
                    );
                }
            }
        });
        for (view, format, what, file) in EXPORTS {
            if ui.button(what).clicked() {
                ui.close();
                let ext = if format == Format::Svg { "svg" } else { "png" };
                self.menus.ask(
                    Purpose::Export(view, format),
                    Request::save(what.trim_end_matches('…'), file).filter(ext, &[ext]),
                );
            }
        }
        if ui
            .button("Screenshot of the window…")
            .on_hover_text("Save a PNG of the whole window")
            .clicked()
        {
            ui.close();
            self.menus.ask(
                Purpose::Screenshot,
                Request::save("Screenshot", "hopmap.png").filter("PNG", &["png"]),
            );
        }
        ui.separator();
        if ui
            .button("Experiment report…")
            .on_hover_text("Compare mappers on graphs × networks and write a report folder")
            .clicked()
        {
            ui.close();
            self.teach.report.show(&self.model);
        }
    }

    fn view_menu(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        let z = ctx.zoom_factor();
        ui.label(format!("UI zoom: {:.0} %", z * 100.0));
        let cmd = if cfg!(target_os = "macos") {
            "Cmd"
        } else {
            "Ctrl"
        };
        if ui.button(format!("Zoom in ({cmd} +)")).clicked() {
            ctx.set_zoom_factor((z + 0.1).min(3.0));
        }
        if ui.button(format!("Zoom out ({cmd} −)")).clicked() {
            ctx.set_zoom_factor((z - 0.1).max(0.5));
        }
        if ui.button(format!("Reset zoom ({cmd} 0)")).clicked() {
            ctx.set_zoom_factor(1.0);
        }
        ui.separator();
        ui.checkbox(&mut self.menus.left_open, "Data, Network, Mapper panel");
        ui.checkbox(&mut self.menus.right_open, "Metrics panel");
        let mut shown = !self.teach.hidden;
        ui.checkbox(&mut shown, "Lessons, guided log, glossary");
        self.teach.hidden = !shown;
    }

    fn on_chosen(&mut self, purpose: Purpose, p: std::path::PathBuf) {
        match purpose {
            Purpose::OpenWorkspace => {
                if let Err(e) = self.load_workspace(&p) {
                    self.model.error = Some(e);
                }
            }
            Purpose::SaveWorkspace => {
                if let Err(e) = self.save_workspace(&p) {
                    self.model.error = Some(e);
                }
            }
            Purpose::Export(view, format) => self.request_export(view, format, p),
            Purpose::ExportMapping(f) => {
                if let Some(m) = &self.model.mapping {
                    let hosts = export_hosts(&self.model.topo);
                    match write_mapping_file(&p, m, &self.model.topo, f, &hosts) {
                        Ok(()) => self.model.status = format!("saved {}", p.display()),
                        Err(e) => self.model.error = Some(e.to_string()),
                    }
                }
            }
            Purpose::Screenshot => self.headless = Some(Headless::new(p, 0)),
        }
    }
}

/// The host names an exported launcher file uses: a fabric's hosts by
/// their node descriptions, as `hopmap map` names them (a host with
/// several HCAs is one host); else, or when descriptions are wholly alike,
/// node0, node1, ….
fn export_hosts(topo: &hopmap_core::topology::Topology) -> HostNames {
    topo.as_fabric()
        .and_then(|fab| {
            HostNames::from_descriptions(fab.hosts().iter().map(|h| h.name.as_str())).ok()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_name_a_fabrics_hosts_by_their_descriptions() {
        use hopmap_core::topology::Topology;
        let torus = Topology::parse("torus:4x4").unwrap();
        assert_eq!(export_hosts(&torus), HostNames::default());
        // Slurm's example names its hosts dev0 … dev17.
        let conf = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/topology.conf"
        );
        let slurm = Topology::parse(conf).unwrap();
        match export_hosts(&slurm) {
            HostNames::List(v) => assert_eq!((v[0].as_str(), v[17].as_str()), ("dev0", "dev17")),
            other => panic!("{other:?}"),
        }
    }

    /// One frame of `ctx` with a window `w` points wide, then auto layout.
    fn frame(ctx: &egui::Context, m: &mut Menus, w: f32) {
        let raw = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w, 800.0),
            )),
            ..Default::default()
        };
        let mut out = ctx.run_ui(raw, |ui| m.auto_layout(ui.ctx()));
        out.textures_delta.clear();
    }

    #[test]
    fn a_placeholder_size_is_not_taken_for_a_large_screen() {
        let ctx = egui::Context::default();
        let mut m = Menus::default();
        // A hidden window's first frame: 15 000 points. Nothing changes yet.
        frame(&ctx, &mut m, 15_000.0);
        assert!(!m.auto_done);
        assert_eq!(ctx.zoom_factor(), 1.0);
        // The real 1280-point window: no zoom, both panels.
        frame(&ctx, &mut m, 1280.0);
        frame(&ctx, &mut m, 1280.0);
        assert!(m.auto_done && m.right_open);
        assert_eq!(ctx.zoom_factor(), 1.0);
        // A 2560-pixel screen zooms to 1.5; a 1024-point one hides Metrics.
        let (big, mut mb) = (egui::Context::default(), Menus::default());
        frame(&big, &mut mb, 2560.0);
        frame(&big, &mut mb, 2560.0 / 1.5);
        assert_eq!(big.zoom_factor(), 1.5);
        let (small, mut ms) = (egui::Context::default(), Menus::default());
        frame(&small, &mut ms, 1024.0);
        assert!(!ms.right_open);
    }
}
