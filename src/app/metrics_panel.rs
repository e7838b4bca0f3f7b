//! The Metrics panel: the figures of [`crate::metrics::Metrics`] for what is
//! shown (hop-bytes, hops per byte, dilation, link load and flows) with the
//! change against the previous mapping; hop-bytes over the steps of the
//! running mapper (egui_plot line); the hop histogram (bytes per hop count).

use super::Model;
use super::colormap::fmt_bytes;
use egui::{Color32, RichText};
use egui_plot::{Bar, BarChart, Line, Plot, Points};

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

#[derive(Default)]
pub struct MetricsPanel {}

impl MetricsPanel {
    pub fn ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        ui.heading("Metrics");
        let Some(e) = &model.eval else {
            ui.weak("No mapping yet: press Map, Step or Play.");
            return;
        };
        let m = &e.metrics;
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
        type Row = (&'static str, f64, Option<f64>, &'static str, bool);
        let rows: [Row; 5] = [
            (
                "hop_bytes",
                m.hop_bytes,
                prev.map(|p| p.1.hop_bytes),
                "Σ over pairs of bytes × hops (Wu et al. eq. 1): total network traffic. Lower is better.",
                true,
            ),
            (
                "avg_hops_per_byte",
                m.avg_hops_per_byte,
                prev.map(|p| p.1.avg_hops_per_byte),
                "hop-bytes / total bytes: how far the average byte travels (Bhatele & Kale §VII-B).",
                false,
            ),
            (
                "max_dilation",
                m.max_dilation as f64,
                prev.map(|p| p.1.max_dilation as f64),
                "The longest distance any message travels, in hops.",
                false,
            ),
            (
                "max_link_load",
                m.max_link_load,
                prev.map(|p| p.1.max_link_load),
                "Bytes on the busiest directed link: the contention bottleneck.",
                true,
            ),
            (
                "max_link_flows",
                m.max_link_flows as f64,
                prev.map(|p| p.1.max_link_flows as f64),
                "Messages crossing the busiest link (Balaji et al.'s contention count, §3.2).",
                false,
            ),
        ];
        egui::Grid::new("metrics_grid")
            .num_columns(3)
            .striped(true)
            .show(ui, |ui| {
                for (name, v, old, tip, bytes) in rows {
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
}
