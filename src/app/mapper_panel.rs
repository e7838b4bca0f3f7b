//! The Mapper panel: every mapper of [`crate::mappers::registry`] (hover for
//! the idea and the paper section), its parameters and seed, the buttons Map
//! (to the end, on a worker), Step, Play/Pause with a speed slider and Reset,
//! and the routing (dor or adaptive) used by the metrics and the heatmap.

use super::Model;
use super::settings::Settings;
use crate::mappers;
use crate::routing::Routing;

pub struct MapperPanel {
    /// Id of the chosen mapper.
    pub selected: String,
    pub seed: u64,
    /// `key=value, …` passed to the mapper.
    pub params: String,
}

impl MapperPanel {
    pub fn new(settings: &Settings) -> Self {
        let selected = if mappers::find(&settings.mapper).is_some() {
            settings.mapper.clone()
        } else {
            "default".into()
        };
        MapperPanel {
            selected,
            seed: settings.seed,
            params: settings.mapper_params.clone(),
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, model: &mut Model) {
        ui.heading("Mapper");
        let reg = mappers::registry();
        egui::Grid::new("mapper_list")
            .num_columns(2)
            .spacing([6.0, 2.0])
            .show(ui, |ui| {
                for info in &reg {
                    let tip = format!(
                        "{}\n\n{}\n\nPaper: {}{}",
                        info.name,
                        info.doc,
                        info.paper,
                        if info.needs_coords {
                            "\nNeeds process coordinates."
                        } else {
                            ""
                        }
                    );
                    let r = ui
                        .selectable_label(self.selected == info.id, info.id)
                        .on_hover_text(tip);
                    if r.clicked() {
                        self.selected = info.id.to_string();
                    }
                    let mut name = egui::RichText::new(info.name).small();
                    if info.needs_coords && model.graph.coords().is_none() {
                        name = name.strikethrough();
                    }
                    ui.label(name);
                    ui.end_row();
                }
            });
        let randomized = reg
            .iter()
            .find(|i| i.id == self.selected)
            .is_some_and(|i| i.randomized);
        ui.horizontal(|ui| {
            ui.label("seed");
            ui.add_enabled(randomized, egui::DragValue::new(&mut self.seed));
            ui.label("params");
            ui.add(egui::TextEdit::singleline(&mut self.params).desired_width(110.0))
                .on_hover_text("mapper parameters as key=value, comma separated");
        });
        let id = self.selected.clone();
        ui.horizontal(|ui| {
            let busy = model.map_job.is_some();
            if ui
                .add_enabled(!busy, egui::Button::new("Map"))
                .on_hover_text("Run the mapper to the end (on a worker thread)")
                .clicked()
            {
                model.start_map(&id, self.seed, &self.params);
            }
            if ui
                .add_enabled(!busy, egui::Button::new("Step"))
                .on_hover_text("One step: one placement for greedy mappers")
                .clicked()
            {
                model.playing = false;
                model.step(&id, self.seed, &self.params);
            }
            let play_label = if model.playing { "Pause" } else { "Play" };
            if ui
                .add_enabled(!busy, egui::Button::new(play_label))
                .on_hover_text("Animate the mapper step by step")
                .clicked()
            {
                if model.playing {
                    model.playing = false;
                } else if model.run.is_some() && model.run_id == id
                    || model.start_run(&id, self.seed, &self.params)
                {
                    model.playing = true;
                }
            }
            if ui
                .button("Reset")
                .on_hover_text("Forget the running mapper and the placement")
                .clicked()
            {
                model.clear_mapping();
                model.prev = None;
            }
        });
        ui.horizontal(|ui| {
            ui.label("speed");
            ui.add(
                egui::Slider::new(&mut model.speed, 1.0..=2000.0)
                    .logarithmic(true)
                    .suffix(" steps/s")
                    .custom_formatter(|v, _| {
                        if v >= 2000.0 {
                            "max".into()
                        } else {
                            format!("{v:.0}")
                        }
                    }),
            );
        });
        if let Some(r) = &model.run {
            let p = r.progress();
            let text = match p.total {
                Some(t) => format!("{}: step {} of {t}", model.run_id, p.done),
                None => format!("{}: step {}", model.run_id, p.done),
            };
            ui.add(egui::ProgressBar::new(p.fraction().unwrap_or(0.0)).text(text));
        }
        let placed = model.placement.iter().filter(|s| s.is_some()).count();
        ui.label(format!("placed: {placed} of {}", model.graph.n()));
        ui.horizontal(|ui| {
            ui.label("routing");
            let mut r = model.routing.clone();
            ui.radio_value(&mut r, Routing::Dor, "dor")
                .on_hover_text("Dimension-order routing: X, then Y, then Z (Blue Gene static)");
            ui.radio_value(&mut r, Routing::Adaptive, "adaptive")
                .on_hover_text(
                    "Minimal adaptive: bytes split equally over every productive next hop \
                     (Balaji et al. §3.1)",
                );
            if r != model.routing {
                model.set_routing(r);
            }
        });
    }
}
