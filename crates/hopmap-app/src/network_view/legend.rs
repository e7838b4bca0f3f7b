//! The legend under the network drawing: a colour bar from the filter's
//! threshold to the busiest link, and one note wrapped to the view's width
//! saying what is shown (how many links in full, what faint means, what the
//! squares and stubs are, and how to move the camera). [`Laid`] wraps the
//! note first so the view reserves the legend's whole height before it
//! draws; the note is a label (so it is in the accessibility tree).

use super::geometry::Resolved;
use crate::colormap::viridis;
use egui::{Color32, Galley, Mesh, Painter, Rect, Shape, pos2};
use hopmap_core::units::fmt_bytes;
use std::sync::Arc;

/// The colour bar's row above the note, and the margin below it.
const BAR_ROW: f32 = 18.0;
const BOTTOM: f32 = 4.0;
const FONT: f32 = 11.0;

pub struct Legend<'a> {
    pub by_flows: bool,
    /// Lowest value drawn in full, and the busiest link's value.
    pub from: f64,
    pub to: f64,
    /// Links drawn in full, used links, all links.
    pub full: usize,
    pub used: usize,
    pub total: usize,
    pub filtered: bool,
    pub ghosts: bool,
    pub resolved: Resolved,
    pub any_wrap: bool,
    pub auto_note: Option<&'a str>,
    /// The top is a locked scale (not this view's busiest link).
    pub locked: bool,
}

fn value_text(by_flows: bool, v: f64) -> String {
    if by_flows {
        format!("{v:.0} flows")
    } else {
        fmt_bytes(v)
    }
}

/// The legend's note wrapped to a view of width `width`, ready to draw.
pub struct Laid(Arc<Galley>);

impl Laid {
    /// Wrap the note of `lg` to `width` (less the margins).
    pub fn new(painter: &Painter, width: f32, lg: &Legend<'_>) -> Self {
        let font = egui::FontId::proportional(FONT);
        let wrap = (width - 16.0).max(40.0);
        Self(painter.layout(note_text(lg), font, Color32::from_gray(150), wrap))
    }

    /// The height the legend takes at the bottom of the view.
    pub fn height(&self) -> f32 {
        BAR_ROW + self.0.size().y + BOTTOM
    }
}

/// Draw the legend into the bottom [`Laid::height`] of `full`: the colour
/// bar and its end values, then the note as a label.
pub fn draw(ui: &mut egui::Ui, painter: &Painter, full: Rect, lg: &Legend<'_>, laid: Laid) {
    let font = egui::FontId::proportional(FONT);
    let top = full.max.y - laid.height();
    let lr = Rect::from_min_max(
        pos2(full.min.x + 64.0, top + 4.0),
        pos2(
            full.min.x + 64.0 + (full.width() * 0.35).min(200.0),
            top + 14.0,
        ),
    );
    let mut bar = Mesh::default();
    let steps = 32;
    for k in 0..steps {
        let x0 = lr.min.x + lr.width() * k as f32 / steps as f32;
        let x1 = lr.min.x + lr.width() * (k + 1) as f32 / steps as f32;
        bar.add_colored_rect(
            Rect::from_min_max(pos2(x0, lr.min.y), pos2(x1, lr.max.y)),
            viridis(0.12 + 0.88 * (k as f32 + 0.5) / steps as f32),
        );
    }
    painter.add(Shape::mesh(bar));
    let label_col = Color32::from_gray(200);
    let lo = if lg.from.is_finite() {
        value_text(lg.by_flows, lg.from)
    } else {
        "0".to_string()
    };
    painter.text(
        pos2(lr.min.x - 4.0, lr.center().y),
        egui::Align2::RIGHT_CENTER,
        lo,
        font.clone(),
        label_col,
    );
    painter.text(
        pos2(lr.max.x + 4.0, lr.center().y),
        egui::Align2::LEFT_CENTER,
        if lg.locked {
            format!("{} (locked scale top)", value_text(lg.by_flows, lg.to))
        } else {
            format!("{} (busiest link)", value_text(lg.by_flows, lg.to))
        },
        font.clone(),
        label_col,
    );
    let at = pos2(full.min.x + 8.0, lr.max.y + 4.0);
    let rect = Rect::from_min_size(at, laid.0.size());
    ui.put(rect, egui::Label::new(laid.0).selectable(false));
}

/// What the legend's note says.
fn note_text(lg: &Legend<'_>) -> String {
    let what = if lg.by_flows { "flows" } else { "bytes" };
    let mut note = if lg.filtered {
        format!(
            "{} of {} used links in full (colour, width, opacity = {what} of the busier direction), {}",
            lg.full,
            lg.used,
            if lg.ghosts {
                "the rest faint"
            } else {
                "the rest hidden"
            }
        )
    } else {
        format!(
            "all {} used links of {}: colour, width, opacity = {what} of the busier direction · grey = unused",
            lg.used, lg.total
        )
    };
    match lg.resolved {
        Resolved::Projection => note.push_str(
            " · projected along Z: lines = busiest X/Y link of each column, squares = busiest Z link",
        ),
        Resolved::Slices => note.push_str(" · Z links: see 3D or Projection"),
        Resolved::ThreeD => note.push_str(" · drag rotates, wheel zooms"),
        Resolved::Flat => {}
    }
    if lg.any_wrap {
        note.push_str(" · capped stubs = torus wrap links");
    }
    if let Some(a) = lg.auto_note {
        note.push_str(" · ");
        note.push_str(a);
    }
    note.push_str(" · click a node: its process's routes; click a link: select it");
    note
}
