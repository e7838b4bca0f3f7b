//! The Compare view's bar charts: one horizontal bar per mapper, every bar
//! named, in the order of the table (sorted by the chosen metric, best
//! first), each with its value and its ratio to the best and to `default`.
//! Drawn with plain widgets so that every label is real text (accesskit
//! names each bar `"{chart} bar {mapper}"`). O(rows) per frame.

use super::colormap::category;
use egui::{Color32, Rect, Sense, vec2};

/// Ratio text `×1.23`, or `—` when the reference is 0 or missing.
pub fn ratio(v: f64, reference: Option<f64>) -> String {
    match reference {
        Some(r) if r > 0.0 && r.is_finite() && v.is_finite() => format!("×{:.2}", v / r),
        _ => "—".to_string(),
    }
}

/// Bar colour of a mapper: its index in the registry (stable across sorts).
pub fn mapper_color(name: &str) -> Color32 {
    let reg = hopmap_core::mappers::registry();
    match reg.iter().position(|i| i.id == name) {
        Some(k) => category(k),
        None => Color32::from_rgb(200, 200, 210),
    }
}

/// One chart: `bars` (name, value, a note after its label) in display
/// order; lower is better.
pub fn bar_chart(
    ui: &mut egui::Ui,
    title: &str,
    bars: &[(String, f64, String)],
    fmt: &dyn Fn(f64) -> String,
) {
    let best = bars
        .iter()
        .map(|b| b.1)
        .filter(|v| v.is_finite())
        .fold(f64::INFINITY, f64::min);
    let best = best.is_finite().then_some(best);
    let default = bars.iter().find(|b| b.0 == "default").map(|b| b.1);
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    ui.strong(format!("{title} (lower is better; best first)"));
    egui::Grid::new(("bars", title))
        .num_columns(3)
        .spacing(vec2(6.0, 2.0))
        .show(ui, |ui| {
            let bar_w = (ui.available_width() - 360.0).clamp(80.0, 320.0);
            for (name, v, note) in bars {
                ui.label(egui::RichText::new(name).small());
                let (rect, resp) = ui.allocate_exact_size(vec2(bar_w, 14.0), Sense::hover());
                let frac = if max > 0.0 {
                    (v / max).clamp(0.0, 1.0)
                } else {
                    0.0
                } as f32;
                let painter = ui.painter_at(rect);
                painter.rect_filled(rect, 2.0, Color32::from_gray(35));
                painter.rect_filled(
                    Rect::from_min_size(rect.min, vec2(rect.width() * frac, rect.height())),
                    2.0,
                    mapper_color(name),
                );
                if best == Some(*v) {
                    painter.rect_stroke(
                        rect,
                        2.0,
                        egui::Stroke::new(1.0, Color32::WHITE),
                        egui::StrokeKind::Inside,
                    );
                }
                let text = format!(
                    "{}  {} best  {} default{note}",
                    fmt(*v),
                    ratio(*v, best),
                    ratio(*v, default)
                );
                let label = format!("{title} bar {name}: {text}");
                resp.widget_info(|| {
                    egui::WidgetInfo::labeled(egui::Role::Label, true, label.clone())
                });
                ui.label(egui::RichText::new(text).small().monospace());
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios() {
        assert_eq!(ratio(3.0, Some(2.0)), "×1.50");
        assert_eq!(ratio(3.0, Some(0.0)), "—");
        assert_eq!(ratio(3.0, None), "—");
    }
}
