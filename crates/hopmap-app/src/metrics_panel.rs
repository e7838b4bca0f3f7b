//! The Metrics panel: the figures of [`hopmap_core::metrics::Metrics`] for what is
//! shown (hop-bytes, hops per byte, dilation, link load and flows) with the
//! change against the previous mapping; hop-bytes over the steps of the
//! running mapper (egui_plot line); the hop histogram (bytes per hop count).
//!
//! So that a number says whether it is good, the panel opens with "How good
//! is this mapping?": the hop-bytes of the current mapping beside two
//! references, the lower bound valid for every mapping on this network
//! ([`hopmap_core::hop_bound`], which also defines what a hop is on each network)
//! and the `default` mapping (rank i on slot i), each as a bar and a
//! multiple of the bound (or of default's when the bound is 0, as on a
//! fabric whose switches hold the job). The metrics grid has a column with
//! the default mapping's values too. The default mapping and the bound are
//! computed once per graph, network and routing.
//!
//! The panel names what it describes ([`Model::shown_label`]): the shown
//! mapping, or the running mapper's partial placement; in the Compare
//! sub-views with panes it says that each pane carries its own numbers. Every
//! figure it draws is also recorded in [`MetricsPanel::shown`] (name, value,
//! text as displayed) for `hopmap gui --state`.

use super::Model;
use super::draw::fmt_num;
use super::view::View;
use egui::{Color32, RichText};
use egui_plot::{Bar, BarChart, Line, Plot, Points};
use hopmap_core::hop_bound::{HopModel, lower_bound};
use hopmap_core::mapping::Mapping;
use hopmap_core::metrics::{Metrics, evaluate};
use hopmap_core::units::fmt_bytes;

/// The `default` mapping's metrics (rank i on slot i), cached per graph,
/// network and routing.
#[derive(Default)]
pub struct Reference {
    key: (u64, u64, String),
    pub default: Option<Metrics>,
    /// The hop-bytes lower bound of the graph on the network.
    pub bound: f64,
    /// How the network counts hops.
    pub hops: Option<HopModel>,
}

impl Reference {
    /// Bring the default mapping's metrics up to date with `model`.
    pub fn update(&mut self, model: &Model) {
        let key = (
            model.graph.generation(),
            model.topo.generation(),
            model.routing.name(),
        );
        if self.key == key && self.default.is_some() {
            return;
        }
        self.key = key;
        self.default = None;
        self.hops = Some(HopModel::of(&model.topo));
        self.bound = lower_bound(&model.graph, &model.topo);
        let n = model.graph.n();
        if n == 0 || !model.fits() {
            return;
        }
        // The `default` mapper's rule: rank i on slot i.
        let slots: Vec<usize> = (0..n).collect();
        let m = Mapping::from_slots(&slots, &model.topo);
        self.default = Some(evaluate(&model.graph, &model.topo, &m, &model.routing).metrics);
    }
}

/// One figure as the panel displays it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Shown {
    pub name: String,
    pub value: f64,
    pub text: String,
}

#[derive(Default)]
pub struct MetricsPanel {
    pub reference: Reference,
    /// What the panel describes this frame (the mapping's name).
    pub describes: String,
    /// Every figure drawn this frame, in order.
    pub shown: Vec<Shown>,
}

impl MetricsPanel {
    /// On a fabric, what max_link_load covers: every link, the hosts' own
    /// included. The network view colours the links between switches, so
    /// their busiest (its colour bar's top when the scale is its own) and
    /// the busiest host link are shown apart. O(channels).
    fn fabric_split(
        &mut self,
        ui: &mut egui::Ui,
        f: &hopmap_core::topology::Fabric,
        links: &hopmap_core::metrics::LinkLoads,
    ) {
        let host_ch = 2 * f.num_hosts();
        let sw = links.busiest_in(host_ch..f.channel_slots());
        let host = links.busiest_in(0..host_ch);
        let sw_load = sw.map_or(0.0, |b| b.1);
        let host_load = host.map_or(0.0, |b| b.1);
        let host_name = host
            .and_then(|b| f.hosts().get(b.0 / 2))
            .map_or(String::new(), |h| format!(" (here host {})", h.name));
        ui.weak(if host_load > sw_load {
            "max_link_load counts the hosts' links too (here: a host's link)"
        } else {
            "max_link_load counts the hosts' links too (here: a switch link)"
        });
        egui::Grid::new("fabric_link_split")
            .num_columns(2)
            .show(ui, |ui| {
                ui.label("busiest switch link").on_hover_text(
                    "The busiest link between two switches: the network view colours these \
                     links, and its colour bar tops here on its own scale",
                );
                ui.label(RichText::new(fmt_bytes(sw_load)).monospace());
                ui.end_row();
                ui.label("busiest host link").on_hover_text(format!(
                    "The busiest link between a host and its switch{host_name}: the network \
                     view does not draw host links; hover a host for its own load"
                ));
                ui.label(RichText::new(fmt_bytes(host_load)).monospace());
                ui.end_row();
            });
        self.record("max_switch_link_load", sw_load, &fmt_bytes(sw_load));
        self.record("max_host_link_load", host_load, &fmt_bytes(host_load));
    }

    fn record(&mut self, name: &str, value: f64, text: &str) {
        self.shown.push(Shown {
            name: name.to_string(),
            value,
            text: text.to_string(),
        });
    }
}

/// One row of "How good is this mapping?": a label, the value, its multiple
/// of the base (the bound, or default's hop-bytes when the bound is 0), and
/// a bar scaled to the largest row. Returns the multiple as displayed.
#[allow(clippy::too_many_arguments)]
fn quality_row(
    ui: &mut egui::Ui,
    label: &str,
    tip: &str,
    v: f64,
    base: (f64, &str),
    max: f64,
    col: Color32,
) -> String {
    ui.label(label).on_hover_text(tip);
    ui.label(RichText::new(fmt_num(v)).monospace())
        .on_hover_text(fmt_bytes(v));
    let ratio = if base.0 > 0.0 { v / base.0 } else { f64::NAN };
    let text = if ratio.is_finite() {
        format!("{ratio:.2}×")
    } else {
        "–".into()
    };
    ui.label(RichText::new(&text).monospace())
        .on_hover_text(format!("multiple of {}", base.1));
    // The bar takes what is left of the panel's width, at most 70 px.
    let w = ui.available_width().clamp(24.0, 70.0);
    let (r, painter) = ui.allocate_painter(egui::vec2(w, 12.0), egui::Sense::hover());
    let f = if max > 0.0 {
        (v / max).clamp(0.0, 1.0) as f32
    } else {
        0.0
    };
    painter.rect_filled(r.rect, 2.0, Color32::from_gray(40));
    painter.rect_filled(
        egui::Rect::from_min_size(r.rect.min, egui::vec2(w * f, r.rect.height())),
        2.0,
        col,
    );
    ui.end_row();
    text
}

impl MetricsPanel {
    /// "How good is this mapping?": hop-bytes against the lower bound and default.
    fn quality_ui(&mut self, ui: &mut egui::Ui, model: &Model, m: &Metrics) {
        let bound = self.reference.bound;
        let hops = self
            .reference
            .hops
            .clone()
            .unwrap_or_else(|| HopModel::of(&model.topo));
        let default = self.reference.default.clone();
        ui.strong("How good is this mapping?")
            .on_hover_text("hop-bytes = Σ bytes × hops: lower is better");
        // The mapping's name; "default (shown)" when it is the baseline row's.
        let label = if self.describes == "default" {
            "default (shown)".to_string()
        } else {
            self.describes.clone()
        };
        let max = [
            Some(m.hop_bytes),
            default.as_ref().map(|d| d.hop_bytes),
            Some(bound),
        ]
        .into_iter()
        .flatten()
        .fold(0.0, f64::max);
        let better = Color32::from_rgb(110, 210, 110);
        let worse = Color32::from_rgb(255, 120, 100);
        let neutral = Color32::from_rgb(120, 160, 220);
        // Multiples of the bound; of default's hop-bytes when the bound is 0.
        let base = match &default {
            _ if bound > 0.0 => (bound, "the lower bound (1.00× = no mapping can do better)"),
            Some(d) if d.hop_bytes > 0.0 => (d.hop_bytes, "default's hop-bytes (the bound is 0)"),
            _ => (0.0, "nothing: the bound is 0"),
        };
        let bound_tip = hops.explain();
        let mut texts = Vec::new();
        egui::Grid::new("quality_grid")
            .num_columns(4)
            .spacing([8.0, 3.0])
            .show(ui, |ui| {
                let t = quality_row(
                    ui,
                    "lower bound",
                    &bound_tip,
                    bound,
                    base,
                    max,
                    Color32::from_gray(150),
                );
                texts.push(("lower_bound", bound, t));
                if let Some(d) = &default {
                    let t = quality_row(
                        ui,
                        "default",
                        "The `default` mapper (rank i on slot i, linear TXYZ order), the baseline \
                         every mapper should beat.",
                        d.hop_bytes,
                        base,
                        max,
                        neutral,
                    );
                    texts.push(("default_hop_bytes", d.hop_bytes, t));
                }
                let col = match &default {
                    Some(d) if m.hop_bytes < d.hop_bytes * 0.9995 => better,
                    Some(d) if m.hop_bytes > d.hop_bytes * 1.0005 => worse,
                    _ => neutral,
                };
                let t = quality_row(
                    ui,
                    &label,
                    "The mapping shown: what the views show.",
                    m.hop_bytes,
                    base,
                    max,
                    col,
                );
                texts.push(("shown_hop_bytes", m.hop_bytes, t));
            });
        for (name, v, ratio) in texts {
            self.record(name, v, &format!("{} ({ratio})", fmt_num(v)));
        }
        if bound <= 0.0 {
            ui.weak(format!(
                "The bound is 0: every process can share a {} with all its partners \
                 ({} slots), so multiples are of default's hop-bytes.",
                if hops.fabric { "switch" } else { "node" },
                hops.group_slots
            ));
        }
        if let Some(d) = &default
            && d.hop_bytes > 0.0
            && model.mapping_label != "default"
        {
            let pct = (m.hop_bytes - d.hop_bytes) / d.hop_bytes * 100.0;
            let (text, col) = if pct < -0.05 {
                (format!("{:.1}% less traffic than default", -pct), better)
            } else if pct > 0.05 {
                (
                    format!("{pct:.1}% more traffic than default: worse than the baseline"),
                    worse,
                )
            } else {
                ("the same traffic as default".to_string(), neutral)
            };
            ui.colored_label(col, &text);
        }
        if m.total_bytes > 0.0 {
            let avg = m.hop_bytes / m.total_bytes;
            let best = bound / m.total_bytes;
            let text = format!(
                "{avg:.2} {} per byte on average (no mapping goes below {best:.2})",
                if hops.fabric { "switch hops" } else { "hops" }
            );
            ui.weak(&text);
            self.record("hops_per_byte_bound", best, &format!("{best:.2}"));
        }
    }
}

impl View for MetricsPanel {
    type Input<'a> = (&'a Model, Option<&'a str>);
    type Output = ();

    fn title(&self) -> &'static str {
        "Metrics"
    }

    /// The panel. `panes`: the centre shows panes with their own metrics
    /// (Compare's side by side, difference, race): the panel says that it
    /// describes the single views' mapping, not the panes.
    fn ui(&mut self, ui: &mut egui::Ui, (model, panes): Self::Input<'_>) -> Self::Output {
        ui.heading("Metrics");
        self.reference.update(model);
        self.shown.clear();
        self.describes = model.shown_label();
        let Some(e) = &model.eval else {
            self.describes.clear();
            ui.weak("No mapping yet: press Map, Step or Play.");
            return;
        };
        if let Some(what) = panes {
            ui.colored_label(
                Color32::from_rgb(240, 190, 80),
                format!(
                    "{what}: each pane shows its own metrics. This panel describes {}, the \
                         mapping of the Graph, Network and Matrix views.",
                    self.describes
                ),
            );
        }
        let m = &e.metrics;
        if !model.eval_partial {
            self.quality_ui(ui, model, m);
            ui.separator();
        }
        self.figures_ui(ui, model, m);
        if let Some(f) = model.topo.as_fabric() {
            self.fabric_split(ui, f, &e.links);
        }
        let hops = self
            .reference
            .hops
            .clone()
            .unwrap_or_else(|| HopModel::of(&model.topo));
        self.traffic_ui(ui, m, &hops);
        ui.separator();
        trace_ui(ui, model);
        ui.separator();
        self.hop_histogram_ui(ui, m, &hops);
    }
}

impl MetricsPanel {
    /// What the figures describe, and the table of the five headline
    /// figures with their change against the previous mapping and the
    /// default mapping's value.
    fn figures_ui(&mut self, ui: &mut egui::Ui, model: &Model, m: &Metrics) {
        if model.eval_partial {
            ui.colored_label(
                Color32::from_rgb(240, 190, 80),
                format!(
                    "{}: {} of {} processes placed",
                    self.describes,
                    m.processes,
                    model.graph.n()
                ),
            );
        } else {
            ui.label(format!("mapping: {}", self.describes));
        }
        // A partial placement is not comparable with a complete mapping.
        let prev = model.prev.as_ref().filter(|_| !model.eval_partial);
        if let Some((label, _)) = prev {
            ui.weak(format!("change against the previous mapping ({label})"));
        }
        let dm = self
            .reference
            .default
            .as_ref()
            .filter(|_| !model.eval_partial);
        type Row = (
            &'static str,
            f64,
            Option<f64>,
            &'static str,
            bool,
            Option<f64>,
        );
        let rows: [Row; 5] = [
            (
                "hop_bytes",
                m.hop_bytes,
                prev.map(|p| p.1.hop_bytes),
                "Σ over pairs of bytes × hops (Wu et al. eq. 1): total network traffic. Lower is better.",
                true,
                dm.map(|d| d.hop_bytes),
            ),
            (
                "avg_hops_per_byte",
                m.avg_hops_per_byte,
                prev.map(|p| p.1.avg_hops_per_byte),
                "hop-bytes / total bytes: how far the average byte travels (Bhatele & Kale §VII-B).",
                false,
                dm.map(|d| d.avg_hops_per_byte),
            ),
            (
                "max_dilation",
                m.max_dilation as f64,
                prev.map(|p| p.1.max_dilation as f64),
                "The longest distance any message travels, in hops.",
                false,
                dm.map(|d| d.max_dilation as f64),
            ),
            (
                "max_link_load",
                m.max_link_load,
                prev.map(|p| p.1.max_link_load),
                "Bytes on the busiest directed link: the contention bottleneck.",
                true,
                dm.map(|d| d.max_link_load),
            ),
            (
                "max_link_flows",
                m.max_link_flows as f64,
                prev.map(|p| p.1.max_link_flows as f64),
                "Messages crossing the busiest link (Balaji et al.'s contention count, §3.2).",
                false,
                dm.map(|d| d.max_link_flows as f64),
            ),
        ];
        let mut shown = Vec::new();
        egui::Grid::new("metrics_grid")
            .num_columns(3)
            .striped(true)
            .show(ui, |ui| {
                ui.weak("figure: value");
                ui.weak(if prev.is_some() { "change" } else { "" });
                ui.weak(if dm.is_some() { "default" } else { "" })
                    .on_hover_text("The default mapping (rank i on slot i), for reference");
                ui.end_row();
                for (name, v, old, tip, bytes, dv) in rows {
                    let hover = if bytes {
                        format!("{} ({})", fmt_bytes(v), tip)
                    } else {
                        tip.to_string()
                    };
                    // Link loads in bytes with units; counts (and hop-bytes,
                    // a product of bytes and hops) with grouped digits.
                    let load = name == "max_link_load";
                    let text = if load { fmt_bytes(v) } else { fmt_num(v) };
                    // The name above its value: the four columns fit the
                    // panel's width with the longest name and a 10-digit value.
                    ui.vertical(|ui| {
                        ui.add(egui::Label::new(name).extend()).on_hover_text(tip);
                        ui.add(
                            egui::Label::new(RichText::new(&text).monospace().strong()).extend(),
                        )
                        .on_hover_text(hover);
                    });
                    shown.push((name, v, text));
                    match old {
                        Some(o) if o != 0.0 => {
                            let pct = (v - o) / o * 100.0;
                            let col = if pct < -0.05 {
                                Color32::from_rgb(110, 210, 110)
                            } else if pct > 0.05 {
                                Color32::from_rgb(255, 120, 100)
                            } else {
                                Color32::GRAY
                            };
                            ui.colored_label(col, format!("{pct:+.1}%"))
                                .on_hover_text(format!("was {}", fmt_num(o)));
                        }
                        _ => {
                            ui.label("");
                        }
                    }
                    match dv {
                        Some(d) => ui.label(
                            RichText::new(if load { fmt_bytes(d) } else { fmt_num(d) })
                                .monospace()
                                .weak(),
                        ),
                        None => ui.label(""),
                    };
                    ui.end_row();
                }
            });
        for (name, v, text) in shown {
            self.record(name, v, &text);
        }
    }

    /// One line on where the bytes go (on one node, between hosts of one
    /// switch, over the links).
    fn traffic_ui(&mut self, ui: &mut egui::Ui, m: &Metrics, hops: &HopModel) {
        let zero_hop = m.hop_histogram_bytes.first().copied().unwrap_or(0.0);
        let summary = if hops.fabric {
            format!(
                "{} total: {} on one host, {} between hosts of one switch (0 hops); {} links \
                     used, mean load {}",
                fmt_bytes(m.total_bytes),
                fmt_bytes(m.intra_node_bytes),
                fmt_bytes((zero_hop - m.intra_node_bytes).max(0.0)),
                m.used_links,
                fmt_bytes(m.mean_link_load)
            )
        } else {
            format!(
                "{} total, {} on-node; {} links used, mean load {}",
                fmt_bytes(m.total_bytes),
                fmt_bytes(m.intra_node_bytes),
                m.used_links,
                fmt_bytes(m.mean_link_load)
            )
        };
        ui.label(&summary);
        self.record("total_bytes", m.total_bytes, &fmt_bytes(m.total_bytes));
        self.record(
            "intra_node_bytes",
            m.intra_node_bytes,
            &fmt_bytes(m.intra_node_bytes),
        );
        self.record(
            "mean_link_load",
            m.mean_link_load,
            &fmt_bytes(m.mean_link_load),
        );
    }

    /// The bytes by hop count, as bars.
    fn hop_histogram_ui(&mut self, ui: &mut egui::Ui, m: &Metrics, hops: &HopModel) {
        ui.strong("bytes by hop count");
        let bars: Vec<Bar> = m
            .hop_histogram_bytes
            .iter()
            .enumerate()
            .map(|(h, &b)| {
                Bar::new(h as f64, b)
                    .width(0.8)
                    .name(hops.bin_label(h))
                    .fill(super::colormap::viridis(
                        h as f32 / m.hop_histogram_bytes.len().max(2) as f32,
                    ))
            })
            .collect();
        Plot::new("hop_hist")
            .height(140.0)
            .allow_scroll(false)
            .allow_drag(false)
            .x_axis_label(hops.axis_label())
            .y_axis_formatter(|m, _| fmt_bytes(m.value))
            .show(ui, |p| {
                p.bar_chart(BarChart::new("bytes", bars));
            });
        for (h, &b) in m.hop_histogram_bytes.iter().enumerate() {
            self.record(
                &format!("histogram: {}", hops.bin_label(h)),
                b,
                &fmt_bytes(b),
            );
        }
    }
}

/// Hop-bytes over the current or last run's steps, and whose they are.
fn trace_ui(ui: &mut egui::Ui, model: &Model) {
    if model.run.id().is_empty() || model.run.trace().is_empty() {
        ui.strong("hop-bytes over the mapper's steps");
    } else if model.run.id() == model.mapping_label || model.run.is_live() {
        ui.strong(format!("hop-bytes over {}'s steps", model.run.id()));
    } else {
        ui.strong(format!(
            "hop-bytes over {}'s steps (the last run, not the mapping shown)",
            model.run.id()
        ));
    }
    if model.run.trace().is_empty() {
        ui.weak("Step or Play a mapper to draw its curve.");
    } else {
        let pts: Vec<[f64; 2]> = model.run.trace().to_vec();
        Plot::new("trace_plot")
            .height(140.0)
            .allow_scroll(false)
            .x_axis_label("step")
            .y_axis_formatter(|m, _| fmt_num(m.value.round()))
            .show(ui, |p| {
                let c = Color32::from_rgb(120, 180, 255);
                if pts.len() < 30 {
                    p.points(Points::new("hop-bytes", pts.clone()).color(c).radius(3.0));
                }
                p.line(Line::new("hop-bytes", pts).color(c));
            });
        if model.run.trace().len() == 1 {
            ui.weak("One point: these steps ran between two frames; Play draws each step.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(fmt_num(1234567.0), "1 234 567");
        assert_eq!(fmt_num(123.0), "123");
        assert_eq!(fmt_num(0.5), "0.500");
        assert_eq!(fmt_num(-1000.0), "-1 000");
    }

    #[test]
    fn reference_is_the_default_mapping() {
        use hopmap_core::graph::GraphBuilder;
        use hopmap_core::topology::Topology;
        // Path 0-1-2 on a 1D mesh of 4: default puts rank i on node i,
        // so each pair is one hop apart: hop-bytes = 10 + 6.
        let mut b = GraphBuilder::new(3, false);
        b.add(0, 1, 10.0);
        b.add(1, 2, 6.0);
        let model = Model::new(b.build().unwrap(), "p", Topology::parse("mesh:4").unwrap());
        let mut r = Reference::default();
        r.update(&model);
        let d = r.default.clone().unwrap();
        assert_eq!(d.hop_bytes, 16.0);
        // One core per node: every byte one hop, so default meets the bound.
        assert_eq!(r.bound, 16.0);
    }
}
