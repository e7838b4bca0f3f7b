//! The Metrics panel: the figures of [`hopmap_core::metrics::Metrics`] for what is
//! shown (hop-bytes, hops per byte, dilation, link load and flows) with the
//! change against the previous mapping; hop-bytes over the steps of the
//! running mapper (egui_plot line); the hop histogram (bytes per hop count).
//!
//! So that a number says whether it is good, the panel opens with "How good
//! is this mapping?": the hop-bytes of the current mapping beside two
//! references, the lower bound (every byte one hop: Σ bytes × 1; with several
//! cores per node, the bytes that leave their node × 1) and the `default`
//! mapping (rank i on slot i), each as a bar and a multiple of the bound.
//! The metrics grid has a column with the default mapping's values too. The
//! default mapping is evaluated once per graph, network and routing.

use super::Model;
use egui::{Color32, RichText};
use egui_plot::{Bar, BarChart, Line, Plot, Points};
use hopmap_core::mapping::Mapping;
use hopmap_core::metrics::{Metrics, evaluate};
use hopmap_core::units::fmt_bytes;

/// A metric value as the panel prints it: integers with space digit
/// groups (`1 234 567`), other values with three decimals.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let s = format!("{}", v.abs() as u64);
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(' ');
            }
            out.push(c);
        }
        if v < 0.0 { format!("-{out}") } else { out }
    } else {
        format!("{v:.3}")
    }
}

/// The lower bound of hop-bytes for a mapping with these metrics: every
/// byte that leaves its node travels at least one hop. With one core per
/// node no byte stays on a node, so this is Σ bytes × 1 for every mapping.
pub fn hop_bytes_lower_bound(m: &Metrics, cores: usize) -> f64 {
    if cores <= 1 {
        m.total_bytes
    } else {
        m.total_bytes - m.intra_node_bytes
    }
}

/// The `default` mapping's metrics (rank i on slot i), cached per graph,
/// network and routing.
#[derive(Default)]
pub struct Reference {
    key: (u64, u64, String),
    pub default: Option<Metrics>,
}

impl Reference {
    /// Bring the default mapping's metrics up to date with `model`.
    pub fn update(&mut self, model: &Model) {
        let key = (model.graph_gen, model.topo_gen, model.routing.name());
        if self.key == key && self.default.is_some() {
            return;
        }
        self.key = key;
        self.default = None;
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

#[derive(Default)]
pub struct MetricsPanel {
    pub reference: Reference,
}

/// One row of "How good is this mapping?": a label, the value, its multiple
/// of the bound, and a bar scaled to the largest row.
fn quality_row(
    ui: &mut egui::Ui,
    label: &str,
    tip: &str,
    v: f64,
    bound: f64,
    max: f64,
    col: Color32,
) {
    ui.label(label).on_hover_text(tip);
    ui.label(RichText::new(fmt_num(v)).monospace())
        .on_hover_text(fmt_bytes(v));
    let ratio = if bound > 0.0 { v / bound } else { f64::NAN };
    ui.label(
        RichText::new(if ratio.is_finite() {
            format!("{ratio:.2}×")
        } else {
            "–".into()
        })
        .monospace(),
    )
    .on_hover_text("multiple of the lower bound (1.00× = every byte one hop)");
    let w = 70.0;
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
}

impl MetricsPanel {
    /// "How good is this mapping?": hop-bytes against the lower bound and default.
    fn quality_ui(&self, ui: &mut egui::Ui, model: &Model, m: &Metrics) {
        let cores = model.topo.cores();
        let bound = hop_bytes_lower_bound(m, cores);
        let default = self.reference.default.as_ref();
        ui.strong("How good is this mapping?")
            .on_hover_text("hop-bytes = Σ bytes × hops: lower is better");
        let label = if model.mapping_label.is_empty() {
            "this mapping".to_string()
        } else {
            format!("{} (shown)", model.mapping_label)
        };
        let max = [Some(m.hop_bytes), default.map(|d| d.hop_bytes), Some(bound)]
            .into_iter()
            .flatten()
            .fold(0.0, f64::max);
        let better = Color32::from_rgb(110, 210, 110);
        let worse = Color32::from_rgb(255, 120, 100);
        let neutral = Color32::from_rgb(120, 160, 220);
        let bound_tip = if cores <= 1 {
            "Every byte travels at least one hop: no mapping can go below Σ bytes × 1 hop."
        } else {
            "Every byte that leaves its node travels at least one hop: (bytes − on-node bytes) × 1 hop \
             for the shown mapping."
        };
        egui::Grid::new("quality_grid")
            .num_columns(4)
            .spacing([8.0, 3.0])
            .show(ui, |ui| {
                quality_row(ui, "lower bound: 1 hop per byte", bound_tip, bound, bound, max, Color32::from_gray(150));
                if let Some(d) = default {
                    quality_row(
                        ui,
                        "default: rank i on slot i",
                        "The `default` mapper (linear TXYZ order), the baseline every mapper should beat.",
                        d.hop_bytes,
                        bound,
                        max,
                        neutral,
                    );
                }
                let col = match default {
                    Some(d) if m.hop_bytes < d.hop_bytes * 0.9995 => better,
                    Some(d) if m.hop_bytes > d.hop_bytes * 1.0005 => worse,
                    _ => neutral,
                };
                quality_row(ui, &label, "What the views show.", m.hop_bytes, bound, max, col);
            });
        if let Some(d) = default
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
            ui.colored_label(col, text);
        }
        if bound > 0.0 {
            ui.weak(format!(
                "{:.2} hops per byte on average (1.00 is the best possible)",
                m.hop_bytes
                    / (m.total_bytes - if cores <= 1 { 0.0 } else { m.intra_node_bytes })
                        .max(f64::MIN_POSITIVE)
            ));
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        ui.heading("Metrics");
        self.reference.update(model);
        let Some(e) = &model.eval else {
            ui.weak("No mapping yet: press Map, Step or Play.");
            return;
        };
        let m = &e.metrics;
        if !model.eval_partial {
            self.quality_ui(ui, model, m);
            ui.separator();
        }
        if model.eval_partial {
            ui.colored_label(
                Color32::from_rgb(240, 190, 80),
                format!(
                    "partial: {} of {} processes placed",
                    m.processes,
                    model.graph.n()
                ),
            );
        } else {
            ui.label(format!("mapping: {}", model.mapping_label));
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
        egui::Grid::new("metrics_grid")
            .num_columns(4)
            .striped(true)
            .show(ui, |ui| {
                ui.weak("");
                ui.weak("value");
                ui.weak(if prev.is_some() { "change" } else { "" });
                ui.weak(if dm.is_some() { "default" } else { "" })
                    .on_hover_text("The default mapping (rank i on slot i), for reference");
                ui.end_row();
                for (name, v, old, tip, bytes, dv) in rows {
                    ui.label(name).on_hover_text(tip);
                    let hover = if bytes {
                        format!("{} ({})", fmt_bytes(v), tip)
                    } else {
                        tip.to_string()
                    };
                    ui.label(RichText::new(fmt_num(v)).monospace().strong())
                        .on_hover_text(hover);
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
                        Some(d) => ui.label(RichText::new(fmt_num(d)).monospace().weak()),
                        None => ui.label(""),
                    };
                    ui.end_row();
                }
            });
        ui.label(format!(
            "{} bytes total, {} on-node; {} links used, mean load {}",
            fmt_bytes(m.total_bytes),
            fmt_bytes(m.intra_node_bytes),
            m.used_links,
            fmt_bytes(m.mean_link_load)
        ));
        ui.separator();
        ui.strong("hop-bytes over the mapper's steps");
        if model.trace.is_empty() {
            ui.weak("Step or Play a mapper to draw its curve.");
        } else {
            let pts: Vec<[f64; 2]> = model.trace.clone();
            Plot::new("trace_plot")
                .height(140.0)
                .allow_scroll(false)
                .x_axis_label("step")
                .y_axis_formatter(|m, _| fmt_bytes(m.value))
                .show(ui, |p| {
                    let c = Color32::from_rgb(120, 180, 255);
                    if pts.len() < 30 {
                        p.points(Points::new("hop-bytes", pts.clone()).color(c).radius(3.0));
                    }
                    p.line(Line::new("hop-bytes", pts).color(c));
                });
        }
        ui.separator();
        ui.strong("bytes by hop count");
        let bars: Vec<Bar> = m
            .hop_histogram_bytes
            .iter()
            .enumerate()
            .map(|(h, &b)| {
                Bar::new(h as f64, b)
                    .width(0.8)
                    .name(format!("{h} hops"))
                    .fill(super::colormap::viridis(
                        h as f32 / m.hop_histogram_bytes.len().max(2) as f32,
                    ))
            })
            .collect();
        Plot::new("hop_hist")
            .height(140.0)
            .allow_scroll(false)
            .allow_drag(false)
            .x_axis_label("hops (0 = same node)")
            .y_axis_formatter(|m, _| fmt_bytes(m.value))
            .show(ui, |p| {
                p.bar_chart(BarChart::new("bytes", bars));
            });
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
    fn lower_bound_is_one_hop_per_byte_that_leaves_its_node() {
        let m = Metrics {
            total_bytes: 100.0,
            intra_node_bytes: 30.0,
            ..Default::default()
        };
        assert_eq!(hop_bytes_lower_bound(&m, 1), 100.0);
        assert_eq!(hop_bytes_lower_bound(&m, 4), 70.0);
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
        assert_eq!(hop_bytes_lower_bound(&d, 1), 16.0);
    }
}
