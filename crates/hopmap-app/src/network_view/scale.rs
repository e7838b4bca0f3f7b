//! The single network view's colour-scale lock. Each mapping's heatmap
//! scaled to its own busiest link makes a mapping with far less load look
//! just as hot; a locked scale keeps the top of the colour bar fixed across
//! mappings: the worst busiest link of the compared mappings (the default
//! once a comparison holds two or more mappings), or a value the user types.
//!
//! Cost: O(rows of the Compare table) per frame, for the compared maximum
//! (a handful of mappers).

use hopmap_core::units::fmt_bytes;

/// What the top of the colour scale is.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum ScaleLock {
    /// The worst of the compared mappings when a comparison exists, else own.
    #[default]
    Auto,
    /// This mapping's own busiest link.
    Own,
    /// The busiest link over the compared mappings.
    Compared,
    /// A value the user typed (bytes, or flows when links show flows).
    Typed(f64),
}

/// The lock and the values it may lock to.
#[derive(Clone, Debug, Default)]
pub struct ScaleState {
    pub lock: ScaleLock,
    /// Worst busiest-link load and flow count over the compared mappings
    /// (their max_link_load / max_link_flows, every directed channel; on a
    /// fabric, the links between switches).
    pub compared: Option<(f64, f64)>,
}

impl ScaleState {
    /// The locked top of the scale, if locked (bytes or flows).
    pub fn top(&self, by_flows: bool) -> Option<f64> {
        let compared = self
            .compared
            .map(|(load, flows)| if by_flows { flows } else { load })
            .filter(|v| *v > 0.0);
        match self.lock {
            ScaleLock::Auto | ScaleLock::Compared => compared,
            ScaleLock::Own => None,
            ScaleLock::Typed(v) => (v > 0.0).then_some(v),
        }
    }

    /// The toolbar control: own / compared / typed.
    pub fn ui(&mut self, ui: &mut egui::Ui, by_flows: bool, own_max: f64) {
        let fmt = |v: f64| {
            if by_flows {
                format!("{v:.0} flows")
            } else {
                fmt_bytes(v)
            }
        };
        let l = ui.label("scale top");
        let compared = self.compared.map(|(l, f)| if by_flows { f } else { l });
        let current = match self.top(by_flows) {
            Some(v) if matches!(self.lock, ScaleLock::Typed(_)) => format!("fixed {}", fmt(v)),
            Some(v) => format!("worst compared ({})", fmt(v)),
            None => format!("own busiest ({})", fmt(own_max)),
        };
        egui::ComboBox::from_id_salt("scale_lock")
            .selected_text(current)
            .show_ui(ui, |ui| {
                if ui
                    .selectable_label(self.lock == ScaleLock::Own, "own busiest link")
                    .clicked()
                {
                    self.lock = ScaleLock::Own;
                }
                let label = match compared {
                    Some(v) => format!("worst of the compared mappings ({})", fmt(v)),
                    None => "worst of the compared mappings (compare first)".into(),
                };
                if ui
                    .add_enabled(
                        compared.is_some(),
                        egui::Button::selectable(
                            matches!(self.lock, ScaleLock::Compared | ScaleLock::Auto)
                                && compared.is_some(),
                            label,
                        ),
                    )
                    .clicked()
                {
                    self.lock = ScaleLock::Compared;
                }
                if ui
                    .selectable_label(matches!(self.lock, ScaleLock::Typed(_)), "a fixed value")
                    .clicked()
                    && !matches!(self.lock, ScaleLock::Typed(_))
                {
                    self.lock = ScaleLock::Typed(own_max.max(1.0));
                }
            })
            .response
            .labelled_by(l.id)
            .on_hover_text(
                "The load (or flow count) at the top of the colour bar. Locked to the worst \
                 of the compared mappings, a mapping with less load looks cooler; by default \
                 the scale locks so once a comparison holds two or more mappings.",
            );
        if let ScaleLock::Typed(v) = &mut self.lock {
            let speed = (*v * 0.01).max(1.0);
            ui.add(
                egui::DragValue::new(v)
                    .range(1.0..=f64::MAX)
                    .speed(speed)
                    .custom_formatter(move |x, _| fmt(x)),
            )
            .labelled_by(l.id);
        }
    }
}

/// The worst busiest-link load and flow count over compared mappings (None
/// for fewer than two: nothing to compare). On a fabric, over the links
/// between switches: the links the drawing colours.
pub fn worst(rows: &[hopmap_core::compare::Row]) -> Option<(f64, f64)> {
    (rows.len() >= 2).then(|| {
        rows.iter().fold((0.0f64, 0.0f64), |(l, f), r| {
            let m = &r.metrics;
            (
                l.max(m.max_switch_link_load.unwrap_or(m.max_link_load)),
                f.max(m.max_switch_link_flows.unwrap_or(m.max_link_flows) as f64),
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_locks_to_the_compared_worst_and_typed_wins() {
        let mut s = ScaleState::default();
        assert_eq!(s.top(false), None);
        s.compared = Some((500.0, 7.0));
        assert_eq!(s.top(false), Some(500.0));
        assert_eq!(s.top(true), Some(7.0));
        s.lock = ScaleLock::Own;
        assert_eq!(s.top(false), None);
        s.lock = ScaleLock::Typed(42.0);
        assert_eq!(s.top(false), Some(42.0));
    }
}
