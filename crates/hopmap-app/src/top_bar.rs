//! The top bar: the graph, network and mapping shown, the status line,
//! "Export mapping" (every launcher format, through the native save dialog)
//! and "Screenshot" (a PNG of the window), the error banner, and the
//! progress bars of the running mapper and of a load, with Cancel.

use super::HopmapApp;
use super::headless::Headless;
use egui::Color32;

impl HopmapApp {
    pub(super) fn top_bar(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("top_bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.heading("hopmap");
                ui.separator();
                ui.label(format!(
                    "{}  ->  {}  ({})",
                    self.model.graph_name,
                    self.model.topo.spec(),
                    // The routing in effect: `dor` means up*/down* on a fabric.
                    self.model.routing.resolve(&self.model.topo).name()
                ));
                if !self.model.mapping_label.is_empty() || self.model.run.is_some() {
                    ui.separator();
                    let what = if self.model.run.is_some() {
                        format!("stepping {}", self.model.run_id)
                    } else {
                        format!("mapping: {}", self.model.mapping_label)
                    };
                    ui.strong(what);
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.menu_button("Export mapping", |ui| {
                        use hopmap_core::io::launcher::{
                            HostNames, LauncherFormat, write_mapping_file,
                        };
                        if self.model.mapping.is_none() {
                            ui.weak("no complete mapping yet");
                        }
                        for (f, ext, what) in [
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
                                "SLURM_HOSTFILE for srun -m arbitrary (hosts node%d)",
                            ),
                            (
                                LauncherFormat::Hydra,
                                "txt",
                                "MPICH/Intel MPI Hydra machinefile (hosts node%d)",
                            ),
                        ] {
                            let enabled = self.model.mapping.is_some();
                            if ui.add_enabled(enabled, egui::Button::new(what)).clicked() {
                                ui.close();
                                if let Some(m) = &self.model.mapping
                                    && let Some(p) = rfd::FileDialog::new()
                                        .set_file_name(format!("mapping.{}.{ext}", f.name()))
                                        .save_file()
                                {
                                    match write_mapping_file(
                                        &p,
                                        m,
                                        &self.model.topo,
                                        f,
                                        &HostNames::default(),
                                    ) {
                                        Ok(()) => {
                                            self.model.status = format!("saved {}", p.display())
                                        }
                                        Err(e) => self.model.error = Some(e.to_string()),
                                    }
                                }
                            }
                        }
                    });
                    if ui
                        .button("Screenshot")
                        .on_hover_text("Save a PNG of the whole window")
                        .clicked()
                        && let Some(p) = rfd::FileDialog::new()
                            .add_filter("PNG", &["png"])
                            .set_file_name("hopmap.png")
                            .save_file()
                    {
                        self.headless = Some(Headless::new(p, 0));
                    }
                    if !self.model.status.is_empty() {
                        ui.weak(&self.model.status);
                    }
                });
            });
            if let Some(e) = self.model.error.clone() {
                ui.horizontal(|ui| {
                    ui.colored_label(Color32::from_rgb(255, 110, 90), e);
                    if ui.small_button("dismiss").clicked() {
                        self.model.error = None;
                    }
                });
            }
            // Map (to the end) shows its progress here; stepping shows it in
            // the mapper panel, so Step and Play do not shift the layout.
            if self.model.run.is_some() && self.model.run_to_end {
                let p = self.model.run_progress;
                let el = self
                    .model
                    .run_started
                    .map_or(0.0, |t| t.elapsed().as_secs_f32());
                let phase = if p.phase.is_empty() {
                    String::new()
                } else {
                    format!(" {}", p.phase)
                };
                let text = match p.total {
                    Some(t) => format!(
                        "{}{phase}: {} of {t} — {el:.1} s",
                        self.model.run_id, p.done
                    ),
                    None => format!("{}{phase}: step {} — {el:.1} s", self.model.run_id, p.done),
                };
                let mut cancel = false;
                ui.horizontal(|ui| {
                    let bar = match p.fraction() {
                        Some(f) => egui::ProgressBar::new(f),
                        None => egui::ProgressBar::new(0.0).animate(self.model.stepping()),
                    };
                    ui.add(bar.desired_width(280.0).text(text));
                    cancel = ui
                        .button("Cancel")
                        .on_hover_text("Stop the mapper; the placement so far stays on screen")
                        .clicked();
                });
                if cancel {
                    self.model.cancel_run();
                    self.model.status = "cancelled".into();
                }
            }
            if let Some(j) = &self.model.load_job {
                let (label, el) = (j.label.clone(), j.elapsed());
                let mut cancel = false;
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label(format!("{label} — {:.1} s", el.as_secs_f32()));
                    cancel = ui.button("Cancel").clicked();
                });
                if cancel && let Some(j) = self.model.load_job.take() {
                    j.cancel();
                }
            }
        });
    }
}
