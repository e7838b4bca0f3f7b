//! The top bar: the File and View menus ([`crate::file_menu`]), the graph,
//! network and mapping shown, the status, and a message line of fixed
//! height: the progress bars of Map and of a load with Cancel, then the
//! error (one line, the whole text on hover) — so that neither pushes the
//! window down.

use crate::HopmapApp;
use egui::Color32;

/// Height of the top bar's message line (progress, error), fixed.
pub const MESSAGE_LINE: f32 = 22.0;

impl HopmapApp {
    pub(crate) fn top_bar(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("top_bar").show(ui, |ui| {
            ui.horizontal(|ui| {
                self.menu_bar(ui);
                ui.separator();
                ui.strong("hopmap");
                ui.separator();
                ui.label(format!(
                    "{}  ->  {}  ({})",
                    self.model.graph_name,
                    self.model.topo.spec(),
                    // The routing in effect: `dor` means up*/down* on a fabric.
                    self.model.routing.resolve(&self.model.topo).name()
                ));
                if !self.model.mapping_label.is_empty() || self.model.run.is_live() {
                    ui.separator();
                    let what = if self.model.run.is_live() {
                        format!("stepping {}", self.model.run.id())
                    } else {
                        format!("mapping: {}", self.model.mapping_label)
                    };
                    ui.strong(what);
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if !self.model.status.is_empty() {
                        ui.add(
                            egui::Label::new(egui::RichText::new(&self.model.status).weak())
                                .truncate(),
                        )
                        .on_hover_text(&self.model.status);
                    }
                });
            });
            // The message line: always this height, so that a banner or a
            // progress bar never pushes the window down.
            let w = ui.available_width();
            ui.allocate_ui_with_layout(
                egui::vec2(w, MESSAGE_LINE),
                egui::Layout::left_to_right(egui::Align::Center),
                |ui| {
                    ui.set_min_size(egui::vec2(w, MESSAGE_LINE));
                    ui.set_max_height(MESSAGE_LINE);
                    self.message_line(ui);
                },
            );
        });
    }

    /// Progress of Map and of a load, with Cancel, then the error (one line,
    /// truncated, the whole text on hover) with dismiss.
    fn message_line(&mut self, ui: &mut egui::Ui) {
        // Map (to the end) shows its progress here; stepping shows it in
        // the mapper panel, so Step and Play do not shift the layout.
        if self.model.run.to_end() {
            let p = self.model.run.progress();
            let el = self
                .model
                .run
                .started()
                .map_or(0.0, |t| t.elapsed().as_secs_f32());
            let phase = if p.phase.is_empty() {
                String::new()
            } else {
                format!(" {}", p.phase)
            };
            let text = match p.total {
                Some(t) => format!(
                    "{}{phase}: {} of {t} — {el:.1} s",
                    self.model.run.id(),
                    p.done
                ),
                None => format!(
                    "{}{phase}: step {} — {el:.1} s",
                    self.model.run.id(),
                    p.done
                ),
            };
            let bar = match p.fraction() {
                Some(f) => egui::ProgressBar::new(f),
                None => egui::ProgressBar::new(0.0).animate(self.model.stepping()),
            };
            ui.add(bar.desired_width(280.0).text(text));
            let cancel = ui
                .small_button("Cancel")
                .on_hover_text("Stop the mapper; the placement so far stays on screen")
                .clicked();
            if cancel {
                self.model.cancel_run();
                self.model.status = "cancelled".into();
            }
        }
        if let Some(j) = &self.model.load_job {
            let (label, el) = (j.label.clone(), j.elapsed());
            ui.spinner();
            ui.label(format!("{label} — {:.1} s", el.as_secs_f32()));
            let cancel = ui.small_button("Cancel").clicked();
            if cancel && let Some(j) = self.model.load_job.take() {
                j.cancel();
            }
        }
        if let Some(e) = self.model.error.clone() {
            if ui.small_button("dismiss").clicked() {
                self.model.error = None;
            }
            ui.add(
                egui::Label::new(egui::RichText::new(&e).color(Color32::from_rgb(255, 110, 90)))
                    .truncate(),
            )
            .on_hover_text(&e);
        } else if let Some(r) = &self.teach.export.last {
            match r {
                Ok(p) => ui.weak(format!("exported {}", p.display())),
                Err(e) => ui.colored_label(Color32::from_rgb(255, 110, 90), e),
            };
        }
    }
}
