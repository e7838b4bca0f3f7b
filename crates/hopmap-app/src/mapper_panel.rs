//! The Mapper panel: every mapper of [`hopmap_core::mappers::registry`] (hover for
//! the idea and the paper section), one control per declared parameter
//! ([`hopmap_core::mappers::ParamSpec`]: a drag value with its range for numbers,
//! a combo box for choices, a text field for text; hover for the help) with
//! a "reset to defaults" button, the seed, the buttons Map (to the end, on a
//! worker), Step, Play/Pause with a speed slider and Reset, and the routing
//! (dor or adaptive) used by the metrics and the heatmap.
//!
//! Only parameters whose value differs from the default are passed to the
//! mapper ([`MapperPanel::params`]).
//!
//! Coordinate mappers (AFFN, COCE, COCE+MHT) stay usable when the graph has
//! no coordinates: they then run on coordinates from the gravitational
//! layout (Bhatele & Kale §V: coordinates inferred by a force-directed
//! layout), i.e. with `coords=infer`, unless the user unticks "use the
//! layout's coordinates" ([`MapperPanel::effective_params`]).

use super::Model;
use super::settings::Settings;
use super::view::View;
use hopmap_core::mappers::{self, COORDS_PARAM, MapperInfo, ParamKind, ParamSpec};
use hopmap_core::routing::Routing;
use std::collections::BTreeMap;

/// Tooltip of a coordinate mapper on a graph without coordinates.
pub const LAYOUT_COORDS_TIP: &str = "This graph has no process coordinates, so this mapper uses \
    the layout's coordinates: the gravitational layout (Bobrik & Popova, the method of the graph \
    view) is run in the network's dimension (2D, or 3D for a 3D network) with the mapper's seed, \
    and its positions become the processes' coordinates (Bhatele & Kale §V: inferring coordinates \
    by force-directed layout). Same as `--param coords=infer` on the command line.";

/// The line added to a coordinate mapper's tooltip in the mapper list.
const LAYOUT_COORDS_NOTE: &str = "\nThis graph has no coordinates: the mapper uses the layout's \
    coordinates (gravitational layout in the network's dimension; Bhatele & Kale §V).";

pub struct MapperPanel {
    /// Id of the chosen mapper.
    pub selected: String,
    pub seed: u64,
    /// The non-default parameters of the selected mapper as `key=value, …`:
    /// what is passed to the mapper (derived from [`Self::values`]).
    pub params: String,
    /// Values set in the controls, by (mapper id, key); missing = default.
    /// Kept per mapper, so switching mappers does not lose them.
    pub values: BTreeMap<(String, String), String>,
    /// Which mappers cannot run on the current network, and why.
    pub fit: super::mapper_fit::MapperFit,
}

/// Whether `v` means the same as the spec's default.
fn is_default(spec: &ParamSpec, v: &str) -> bool {
    let v = v.trim();
    match spec.kind {
        ParamKind::Int { .. } => match (v.parse::<i64>(), spec.default.parse::<i64>()) {
            (Ok(a), Ok(b)) => a == b,
            _ => v == spec.default,
        },
        ParamKind::Float { .. } => match (v.parse::<f64>(), spec.default.parse::<f64>()) {
            (Ok(a), Ok(b)) => a == b,
            _ => v == spec.default,
        },
        ParamKind::Choice(_) => v.eq_ignore_ascii_case(spec.default),
        ParamKind::Text => v == spec.default,
    }
}

/// `key (kind, default …): help` for hover text.
fn help_text(spec: &ParamSpec) -> String {
    let help: String = spec.help.split_whitespace().collect::<Vec<_>>().join(" ");
    let default = if spec.default.is_empty() {
        "empty"
    } else {
        spec.default
    };
    format!("{}: {}, default {default}\n\n{help}", spec.key, spec.kind)
}

impl MapperPanel {
    pub fn new(settings: &Settings) -> Self {
        let selected = if mappers::find(&settings.mapper).is_some() {
            settings.mapper.clone()
        } else {
            "default".into()
        };
        let mut panel = MapperPanel {
            selected,
            seed: settings.seed,
            params: String::new(),
            values: BTreeMap::new(),
            fit: Default::default(),
        };
        // The saved non-default parameters of the saved mapper; keys it does
        // not declare and bad values are dropped.
        if let Some(info) = mappers::find(&panel.selected) {
            for (k, v) in
                hopmap_core::mappers::parse_params(&settings.mapper_params).unwrap_or_default()
            {
                if let Some(spec) = info.param_spec(&k)
                    && spec.check(&v).is_ok()
                {
                    panel.values.insert((info.id.to_string(), k), v);
                }
            }
        }
        panel.refresh_params();
        panel
    }

    /// Choose mapper `id` (its parameters keep the values last set for it).
    pub fn select(&mut self, id: &str) {
        self.selected = id.to_string();
        self.refresh_params();
    }

    /// The current value of parameter `spec` of the selected mapper.
    pub fn value(&self, spec: &ParamSpec) -> String {
        self.values
            .get(&(self.selected.clone(), spec.key.to_string()))
            .cloned()
            .unwrap_or_else(|| spec.default.to_string())
    }

    /// Set parameter `key` of the selected mapper (as if typed in its control).
    pub fn set_value(&mut self, key: &str, value: &str) {
        self.values
            .insert((self.selected.clone(), key.to_string()), value.to_string());
        self.refresh_params();
    }

    /// Put every parameter of the selected mapper back to its default.
    pub fn reset_params(&mut self) {
        let id = self.selected.clone();
        self.values.retain(|(m, _), _| *m != id);
        self.refresh_params();
    }

    /// The selected mapper's parameters that differ from their defaults, in
    /// declaration order.
    pub fn non_default_params(&self) -> Vec<(String, String)> {
        let Some(info) = mappers::find(&self.selected) else {
            return Vec::new();
        };
        info.params
            .iter()
            .filter_map(|spec| {
                let v = self.value(spec);
                (!is_default(spec, &v)).then(|| (spec.key.to_string(), v.trim().to_string()))
            })
            .collect()
    }

    /// What is passed to the mapper: [`Self::params`], plus `coords=infer`
    /// when the selected mapper needs coordinates, the graph has none
    /// (`has_coords` false) and the user did not choose otherwise.
    pub fn effective_params(&self, has_coords: bool) -> String {
        let mut out = self.params.clone();
        if self.uses_layout_coords(has_coords)
            && !self
                .non_default_params()
                .iter()
                .any(|(k, _)| k == COORDS_PARAM.key)
        {
            if !out.is_empty() {
                out.push_str(", ");
            }
            out.push_str("coords=infer");
        }
        out
    }

    /// Whether the selected mapper will run on the layout's coordinates.
    pub fn uses_layout_coords(&self, has_coords: bool) -> bool {
        let Some(info) = mappers::find(&self.selected) else {
            return false;
        };
        if !info.needs_coords || info.param_spec(COORDS_PARAM.key).is_none() {
            return false;
        }
        match self
            .values
            .get(&(self.selected.clone(), COORDS_PARAM.key.to_string()))
        {
            Some(v) => v.trim().eq_ignore_ascii_case("infer"),
            None => !has_coords,
        }
    }

    /// Recompute [`Self::params`] from the controls.
    pub fn refresh_params(&mut self) {
        self.params = self
            .non_default_params()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ");
    }

    /// One control per parameter of `info`, plus "reset to defaults". A
    /// coordinate mapper on a graph without coordinates shows "use the
    /// layout's coordinates" instead of the `coords` choice.
    fn params_ui(&mut self, ui: &mut egui::Ui, info: &MapperInfo, has_coords: bool) {
        if info.params.is_empty() {
            ui.label(egui::RichText::new("no parameters").small().weak());
            return;
        }
        if info.needs_coords && !has_coords && info.param_spec(COORDS_PARAM.key).is_some() {
            let mut on = self.uses_layout_coords(false);
            if ui
                .checkbox(&mut on, "use the layout's coordinates")
                .on_hover_text(LAYOUT_COORDS_TIP)
                .changed()
            {
                self.values.insert(
                    (info.id.to_string(), COORDS_PARAM.key.to_string()),
                    if on { "infer" } else { "none" }.to_string(),
                );
            }
        }
        egui::Grid::new("mapper_params")
            .num_columns(2)
            .spacing([6.0, 2.0])
            .show(ui, |ui| {
                for spec in info.params {
                    if spec.key == COORDS_PARAM.key && info.needs_coords && !has_coords {
                        continue; // the checkbox above
                    }
                    let tip = help_text(spec);
                    let label = ui.label(spec.key).on_hover_text(&tip);
                    let mut v = self.value(spec);
                    let changed = match spec.kind {
                        ParamKind::Int { min, max } => {
                            let mut x: i64 = v
                                .trim()
                                .parse()
                                .or_else(|_| spec.default.parse())
                                .unwrap_or(min);
                            let r =
                                ui.add(egui::DragValue::new(&mut x).range(min..=max).speed(1.0));
                            v = x.to_string();
                            r.labelled_by(label.id).on_hover_text(&tip).changed()
                        }
                        ParamKind::Float { min, max } => {
                            let mut x: f64 = v
                                .trim()
                                .parse()
                                .or_else(|_| spec.default.parse())
                                .unwrap_or(min);
                            let r = ui.add(
                                egui::DragValue::new(&mut x)
                                    .range(min..=max)
                                    .speed(0.01)
                                    .max_decimals(4),
                            );
                            v = x.to_string();
                            r.labelled_by(label.id).on_hover_text(&tip).changed()
                        }
                        ParamKind::Choice(choices) => {
                            let mut changed = false;
                            let r = egui::ComboBox::from_id_salt(("mapper_param", spec.key))
                                .selected_text(v.clone())
                                .show_ui(ui, |ui| {
                                    for &c in choices {
                                        if ui
                                            .selectable_label(v.eq_ignore_ascii_case(c), c)
                                            .clicked()
                                        {
                                            v = c.to_string();
                                            changed = true;
                                        }
                                    }
                                });
                            r.response.labelled_by(label.id).on_hover_text(&tip);
                            changed
                        }
                        ParamKind::Text => ui
                            .add(
                                egui::TextEdit::singleline(&mut v)
                                    .desired_width(90.0)
                                    .hint_text(spec.default),
                            )
                            .labelled_by(label.id)
                            .on_hover_text(&tip)
                            .changed(),
                    };
                    if changed {
                        self.values
                            .insert((info.id.to_string(), spec.key.to_string()), v);
                    }
                    ui.end_row();
                }
            });
        let any = !self.non_default_params().is_empty();
        if ui
            .add_enabled(any, egui::Button::new("Reset to defaults"))
            .on_hover_text("Put every parameter of this mapper back to its default")
            .clicked()
        {
            self.reset_params();
        }
    }

    /// The action bar: the selected mapper, Map, Step, Play/Pause, Reset,
    /// the speed and the run's progress. The app draws it at a fixed place
    /// (the bottom of the left panel), whatever the parameter count.
    pub fn actions_ui(&mut self, ui: &mut egui::Ui, model: &mut Model) {
        let has_coords = model.graph.coords().is_some();
        ui.horizontal(|ui| {
            ui.strong("Run");
            ui.label(egui::RichText::new(&self.selected).monospace());
        });
        let id = self.selected.clone();
        let params = self.effective_params(has_coords);
        ui.horizontal(|ui| {
            let busy = model.run.to_end();
            if ui
                .add_enabled(!busy, egui::Button::new("Map"))
                .on_hover_text("Run the mapper to the end (on a worker thread)")
                .clicked()
            {
                model.start_map(&id, self.seed, &params);
            }
            if ui
                .add_enabled(!busy, egui::Button::new("Step"))
                .on_hover_text("One step: one placement for greedy mappers")
                .clicked()
            {
                model.step(&id, self.seed, &params);
            }
            let play_label = if model.run.playing() { "Pause" } else { "Play" };
            if ui
                .add_enabled(!busy, egui::Button::new(play_label))
                .on_hover_text("Animate the mapper step by step")
                .clicked()
            {
                let on = !model.run.playing();
                model.play(&id, self.seed, &params, on);
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
            ui.add(
                egui::Slider::new(&mut model.speed, 1.0..=2000.0)
                    .text("speed")
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
        // The progress line is always there, so nothing below it moves.
        let placed = model.placement.iter().filter(|s| s.is_some()).count();
        if model.run.is_live() {
            let p = model.run.progress();
            let phase = if p.phase.is_empty() { "step" } else { p.phase };
            let text = match p.total {
                Some(t) => format!("{}: {phase} {} of {t}", model.run.id(), p.done),
                None => format!("{}: {phase} {}", model.run.id(), p.done),
            };
            ui.add(egui::ProgressBar::new(p.fraction().unwrap_or(0.0)).text(text));
        } else {
            ui.add(
                egui::ProgressBar::new(if placed == model.graph.n() { 1.0 } else { 0.0 })
                    .text("idle"),
            );
        }
        ui.label(format!("placed: {placed} of {}", model.graph.n()));
    }
}

impl View for MapperPanel {
    type Input<'a> = &'a mut Model;
    type Output = ();

    fn title(&self) -> &'static str {
        "Mapper"
    }

    fn ui(&mut self, ui: &mut egui::Ui, model: Self::Input<'_>) -> Self::Output {
        ui.heading("Mapper");
        let has_coords = model.graph.coords().is_some();
        let reg = mappers::registry();
        self.fit.update(model.topo.generation(), &model.topo);
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
                        match (info.needs_coords, has_coords) {
                            (false, _) => "",
                            (true, true) => "\nUses the graph's process coordinates.",
                            (true, false) => LAYOUT_COORDS_NOTE,
                        }
                    );
                    // A mapper that does not run on this network: disabled,
                    // its refusal as the tooltip.
                    if let Some(why) = self.fit.why(info.id) {
                        ui.add_enabled(
                            false,
                            egui::Button::selectable(self.selected == info.id, info.id),
                        )
                        .on_disabled_hover_text(format!("Does not run here: {why}"));
                        ui.label(
                            egui::RichText::new(format!("{} · not on this network", info.name))
                                .small()
                                .weak(),
                        )
                        .on_hover_text(why);
                        ui.end_row();
                        continue;
                    }
                    let r = ui
                        .selectable_label(self.selected == info.id, info.id)
                        .on_hover_text(tip);
                    if r.clicked() {
                        self.select(info.id);
                    }
                    if info.needs_coords && !has_coords {
                        ui.label(
                            egui::RichText::new(format!("{} · layout coords", info.name)).small(),
                        )
                        .on_hover_text(LAYOUT_COORDS_TIP);
                    } else {
                        ui.label(egui::RichText::new(info.name).small());
                    }
                    ui.end_row();
                }
            });
        let current = reg.iter().find(|i| i.id == self.selected);
        let randomized = current.is_some_and(|i| i.randomized);
        ui.horizontal(|ui| {
            let l = ui.label("seed");
            ui.add_enabled(randomized, egui::DragValue::new(&mut self.seed))
                .labelled_by(l.id)
                .on_hover_text("Seed of every randomized step (same seed, same mapping)");
        });
        if let Some(info) = current {
            ui.label(egui::RichText::new(format!("{} parameters", info.id)).strong());
            self.params_ui(ui, info, has_coords);
        }
        self.refresh_params();
        ui.horizontal(|ui| {
            ui.label("routing");
            let mut r = model.routing.clone();
            if let Some(f) = model.topo.as_fabric() {
                super::network_view::fabric::routing_ui(ui, f, &mut r);
            } else {
                ui.radio_value(&mut r, Routing::Dor, "dor")
                    .on_hover_text("Dimension-order routing: X, then Y, then Z (Blue Gene static)");
                ui.radio_value(&mut r, Routing::Adaptive, "adaptive")
                    .on_hover_text(
                        "Minimal adaptive: bytes split equally over every productive next hop \
                         (Balaji et al. §3.1)",
                    );
            }
            if r != model.routing {
                model.set_routing(r);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_values_that_differ_from_the_default_are_passed() {
        let mut p = MapperPanel::new(&Settings::default());
        p.select("gravity");
        p.set_value("theta", "1.0");
        p.set_value("find", "TREE");
        assert_eq!(p.params, "");
        p.set_value("theta", "0.5");
        p.set_value("iters", "200");
        assert_eq!(p.params, "iters=200, theta=0.5");
        p.select("pairs");
        assert_eq!(p.params, "");
        p.select("gravity");
        assert_eq!(p.params, "iters=200, theta=0.5");
        p.reset_params();
        assert_eq!(p.params, "");
    }

    #[test]
    fn coordinate_mappers_use_the_layout_when_the_graph_has_none() {
        let mut p = MapperPanel::new(&Settings::default());
        p.select("affn");
        assert!(p.uses_layout_coords(false));
        assert_eq!(p.effective_params(false), "coords=infer");
        // A graph with coordinates: its own are used.
        assert!(!p.uses_layout_coords(true));
        assert_eq!(p.effective_params(true), "");
        // Unticked: nothing inferred (the mapper will say it needs coordinates).
        p.values
            .insert(("affn".into(), "coords".into()), "none".into());
        p.refresh_params();
        assert!(!p.uses_layout_coords(false));
        assert_eq!(p.effective_params(false), "");
        // Other parameters are kept; a mapper without coordinates is unchanged.
        p.reset_params();
        p.set_value("find", "spiral");
        assert_eq!(p.effective_params(false), "find=spiral, coords=infer");
        p.select("mht");
        assert_eq!(p.effective_params(false), p.params);
    }

    #[test]
    fn saved_params_are_restored_and_foreign_keys_dropped() {
        let s = Settings {
            mapper: "pairs".into(),
            mapper_params: "sweeps=3, order=ZYXT, radius=99".into(),
            ..Settings::default()
        };
        let p = MapperPanel::new(&s);
        assert_eq!(p.selected, "pairs");
        assert_eq!(p.params, "sweeps=3");
    }
}
