//! The Network panel: kind (mesh/torus), dimensions, per-dimension wrap,
//! cores per node, quick presets and the Blue Gene/P partitions (Balaji et
//! al. Table 1). Everything becomes a topology spec string parsed by
//! [`Topology::parse`]; the panel warns when the graph has more processes
//! than the network has slots.

use super::Model;
use super::view::View;
use hopmap_core::topology::Topology;
use hopmap_core::topology::spec::BGP_PARTITIONS;

/// Quick presets shown as buttons.
pub const PRESETS: &[&str] = &["mesh:16x16", "torus:16x16", "torus:8x8x8", "torus:16x32x32"];

pub struct NetworkPanel {
    pub torus: bool,
    pub dims: String,
    pub wrap: Vec<bool>,
    pub cores: u32,
    /// The spec being edited (Apply parses it).
    pub spec: String,
    /// (topology generation, physical links) — counted once per topology.
    links: (u64, usize),
    /// Switch fabric chosen (else mesh/torus).
    pub is_fabric: bool,
    /// The fabric controls ([`super::fabric_panel`]).
    pub fabric: super::fabric_panel::FabricPanel,
}

impl NetworkPanel {
    pub fn new(topo: &Topology) -> Self {
        let mut p = NetworkPanel {
            torus: true,
            dims: String::new(),
            wrap: Vec::new(),
            cores: topo.cores() as u32,
            spec: topo.spec(),
            links: (0, 0),
            is_fabric: false,
            fabric: Default::default(),
        };
        p.load(topo);
        p
    }

    fn load(&mut self, topo: &Topology) {
        if let Some(g) = topo.as_grid() {
            self.dims = g
                .dims()
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("x");
            self.wrap = g.wrap().to_vec();
            self.torus = g.is_torus();
            self.cores = g.cores();
        }
        self.spec = topo.spec();
        self.is_fabric = topo.as_fabric().is_some();
        self.fabric.load(topo);
    }

    /// The spec built from the fields.
    pub fn build_spec(&self) -> String {
        let ndims = self.dims.split(['x', 'X']).count();
        let mut s = format!(
            "{}:{}",
            if self.torus { "torus" } else { "mesh" },
            self.dims
        );
        let wrap: Vec<bool> = (0..ndims)
            .map(|d| self.wrap.get(d).copied().unwrap_or(self.torus))
            .collect();
        if wrap.iter().any(|&w| w != self.torus) {
            s.push_str(":wrap=");
            s.extend(wrap.iter().map(|&w| if w { '1' } else { '0' }));
        }
        if self.cores != 1 {
            s.push_str(&format!(":cores={}", self.cores));
        }
        s
    }

    /// Parse `spec` and give it to the model. True when the network changed.
    pub fn apply(&mut self, spec: &str, model: &mut Model) -> bool {
        match Topology::parse(spec) {
            Ok(t) if model.refuses_topology(&t).is_some() => {
                model.error = model.refuses_topology(&t);
                false
            }
            Ok(t) => {
                model.error = None;
                model.set_topology(t);
                let topo = model.topo.clone();
                self.load(&topo);
                true
            }
            Err(e) => {
                model.error = Some(e.to_string());
                false
            }
        }
    }
}

impl View for NetworkPanel {
    type Input<'a> = &'a mut Model;
    type Output = bool;

    fn title(&self) -> &'static str {
        "Network"
    }

    /// Draw the panel; true when the network changed.
    fn ui(&mut self, ui: &mut egui::Ui, model: Self::Input<'_>) -> Self::Output {
        let mut changed = false;
        ui.heading("Network");
        ui.horizontal(|ui| {
                ui.selectable_value(&mut self.is_fabric, false, "mesh / torus");
                ui.selectable_value(&mut self.is_fabric, true, "switch fabric")
                    .on_hover_text("Moh et al.'s fabrics, fat trees, dragonflies, ibnetdiscover and topology.conf files");
            });
        if self.is_fabric {
            if let Some(spec) = self.fabric.ui(ui, model) {
                changed = self.apply(&spec, model);
            }
            if changed {
                let topo = model.topo.clone();
                self.fabric.load(&topo);
            }
            return changed;
        }
        ui.horizontal(|ui| {
            ui.label("kind");
            if ui.radio_value(&mut self.torus, false, "mesh").changed()
                | ui.radio_value(&mut self.torus, true, "torus").changed()
            {
                let t = self.torus;
                self.wrap.iter_mut().for_each(|w| *w = t);
            }
        });
        ui.horizontal(|ui| {
            ui.label("dims");
            ui.add(egui::TextEdit::singleline(&mut self.dims).desired_width(90.0))
                .on_hover_text("sizes along X, Y, Z…, e.g. 8x8x8");
            let l = ui.label("cores");
            ui.add(egui::DragValue::new(&mut self.cores).range(1..=64))
                .labelled_by(l.id);
        });
        let ndims = self.dims.split(['x', 'X']).count().min(6);
        self.wrap.resize(ndims, self.torus);
        ui.horizontal(|ui| {
            ui.label("wrap");
            for (d, w) in self.wrap.iter_mut().enumerate() {
                ui.checkbox(w, ["X", "Y", "Z", "W", "V", "U"][d]);
            }
        });
        ui.horizontal(|ui| {
            if ui
                .button("Apply network")
                .on_hover_text("Use these settings (re-maps with `default` as a baseline)")
                .clicked()
            {
                let s = self.build_spec();
                changed |= self.apply(&s, model);
            }
            ui.weak(self.build_spec());
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("Presets:");
            for p in PRESETS {
                if ui.selectable_label(model.topo.spec() == *p, *p).clicked() {
                    changed |= self.apply(p, model);
                }
            }
        });
        ui.horizontal(|ui| {
            let l = ui.label("Blue Gene/P");
            let current = model.topo.spec();
            egui::ComboBox::from_id_salt("bgp")
                .selected_text(
                    BGP_PARTITIONS
                        .iter()
                        .map(|(n, _)| format!("bgp:{n}"))
                        .find(|s| Topology::parse(s).is_ok_and(|t| t.spec() == current))
                        .unwrap_or_else(|| "partition…".into()),
                )
                .show_ui(ui, |ui| {
                    for (n, d) in BGP_PARTITIONS {
                        let label = format!(
                            "bgp:{n}  ({}×{}×{} {}, 4 cores)",
                            d[0],
                            d[1],
                            d[2],
                            if *n >= 512 { "torus" } else { "mesh" }
                        );
                        if ui.selectable_label(false, label).clicked() {
                            changed |= self.apply(&format!("bgp:{n}"), model);
                        }
                    }
                })
                .response
                .labelled_by(l.id);
        });
        if self.links.0 != model.topo.generation() {
            self.links = (model.topo.generation(), model.topo.num_channels() / 2);
        }
        let t = &model.topo;
        ui.label(format!(
            "{} nodes × {} cores = {} slots, diameter {}, {} links",
            t.num_nodes(),
            t.cores(),
            t.num_slots(),
            t.diameter(),
            self.links.1
        ));
        if !model.fits() {
            ui.colored_label(
                egui::Color32::from_rgb(255, 110, 90),
                format!(
                    "{} processes > {} slots: choose a larger network or more cores",
                    model.graph.n(),
                    t.num_slots()
                ),
            );
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_from_fields_round_trips() {
        let t = Topology::parse("mesh:8x8x4:wrap=110:cores=4").unwrap();
        let p = NetworkPanel::new(&t);
        assert_eq!(Topology::parse(&p.build_spec()).unwrap(), t);
        let t = Topology::parse("torus:8x8x8").unwrap();
        let p = NetworkPanel::new(&t);
        assert_eq!(p.build_spec(), "torus:8x8x8");
    }
}
