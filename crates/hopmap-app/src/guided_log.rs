//! The guided log: with guided mode on, every step of the running mapper
//! adds its sentence ([`crate::guided::explain_last_step`], in
//! the paper's terms, citing the section), newest at the bottom, kept for
//! scrolling back (at most [`MAX_LINES`]). Hovering a line shows the step it
//! describes in the views (the process placed, where it wanted to go and
//! the node chosen; for exchanges, both processes of each and their nodes;
//! for a bisection, the part it cut; for an order, the ranks it names):
//! clicking keeps it shown. The views ring [`step_processes`].
//!
//! Every line is shown whole, wrapped to the panel's width. Only the rows
//! in view are laid out: a row's height is the one it had when last drawn
//! at this width, or else estimated from its length ([`estimate_height`]);
//! [`first_visible`] finds where the view starts.
//!
//! Cost per frame: O(new lines) to take them from the model, O(lines) to
//! add up the rows' heights (one number each), O(visible rows) to draw.

use super::Model;
use crate::background::GuidedLine;
use hopmap_core::mappers::StepEvent;
use std::collections::VecDeque;

/// Lines kept for scrolling back; older ones are dropped.
pub const MAX_LINES: usize = 20_000;

/// One line of the log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// The mapper id of the run.
    pub run: String,
    pub step: usize,
    pub text: String,
    pub event: Option<StepEvent>,
}

/// The guided log panel.
#[derive(Default)]
pub struct GuidedLog {
    pub lines: VecDeque<LogLine>,
    /// Per line, the (width, height) it was last drawn at.
    drawn: VecDeque<Option<(f32, f32)>>,
    /// Sentences the worker dropped (more than a snapshot holds).
    pub dropped: usize,
    /// The line the views show (clicked), and the one hovered this frame.
    pub pinned: Option<usize>,
    hovered_before: Option<usize>,
    /// What the model showed before a hover, restored when it ends.
    saved: Option<(Option<StepEvent>, Option<usize>)>,
}

/// The process a step concerns first (the views' selection, which shows
/// its partners and routes): the one placed, the first one swapped. A
/// group's processes are ringed instead ([`step_processes`]).
pub fn event_process(e: &StepEvent) -> Option<usize> {
    match e {
        StepEvent::Placed { process, .. } => Some(*process),
        StepEvent::Swaps { swapped, .. } => swapped.first().map(|s| s.0),
        StepEvent::Group { .. } | StepEvent::Whole => None,
    }
}

/// At most this many processes of a step are ringed in the views.
pub const MAX_RINGED: usize = 4096;

/// The processes of the step the views show ([`Model`]'s
/// `last_event`) that the views ring besides a placement's own marks: both
/// processes of every exchange, a group. At most [`MAX_RINGED`], each below
/// the graph's size. O(size of the event).
pub fn step_processes(model: &Model) -> Vec<usize> {
    match model.run.last_event() {
        None | Some(StepEvent::Placed { .. }) | Some(StepEvent::Whole) => Vec::new(),
        Some(e) => {
            let n = model.graph.n();
            let mut v = e.processes();
            v.retain(|&p| p < n);
            v.truncate(MAX_RINGED);
            v
        }
    }
}

impl GuidedLog {
    /// Take the sentences that arrived.
    pub fn pull(&mut self, model: &mut Model) {
        let new = model.run.take_guided();
        if new.is_empty() {
            return;
        }
        let run = model.run.id().to_string();
        for GuidedLine { step, text, event } in new {
            if self.lines.len() >= MAX_LINES {
                self.lines.pop_front();
                self.drawn.pop_front();
                self.pinned = self.pinned.and_then(|i| i.checked_sub(1));
            }
            self.lines.push_back(LogLine {
                run: run.clone(),
                step,
                text,
                event,
            });
            self.drawn.push_back(None);
        }
    }

    pub fn clear(&mut self) {
        self.lines.clear();
        self.drawn.clear();
        self.pinned = None;
        self.dropped = 0;
    }

    /// Show line `i`'s step in the views.
    pub fn highlight(&self, i: usize, model: &mut Model) {
        if let Some(l) = self.lines.get(i) {
            model.run.show_event(l.event.clone());
            if let Some(p) = l.event.as_ref().and_then(event_process) {
                model.selected = Some(p).filter(|&p| p < model.graph.n());
            }
        }
    }

    pub fn ui(&mut self, ui: &mut egui::Ui, model: &mut Model) {
        self.pull(model);
        ui.horizontal(|ui| {
            let mut on = model.guided;
            let r = ui.checkbox(&mut on, "guided mode");
            if r.changed() {
                model.guided = on;
                if let Some(r) = model.run.worker() {
                    r.set_guided(on);
                }
            }
            r.on_hover_text(
                "Each step of the mapper writes a sentence on what it did, in its paper's terms: \
                 use Step in the Mapper panel",
            );
            ui.weak(format!("{} lines", self.lines.len()));
            if ui.small_button("Clear log").clicked() {
                self.clear();
            }
        });
        if self.lines.is_empty() {
            ui.weak(if model.guided {
                "Step a mapper (Mapper panel: Step or Play): each step's sentence appears here."
            } else {
                "Tick guided mode, then Step a mapper: each step explains itself here."
            });
            return;
        }
        let (hovered, clicked) = self.rows(ui);
        if let Some(i) = clicked {
            self.pinned = Some(i);
            self.saved = None;
            self.highlight(i, model);
        }
        match (hovered, self.hovered_before) {
            (Some(i), _) if clicked.is_none() => {
                if self.saved.is_none() {
                    self.saved = Some((model.run.last_event().cloned(), model.selected));
                }
                self.highlight(i, model);
            }
            (None, Some(_)) => {
                if let Some((e, s)) = self.saved.take() {
                    model.run.show_event(e);
                    model.selected = s;
                }
            }
            _ => {}
        }
        self.hovered_before = hovered;
    }

    /// The log's rows, whole and wrapped, in a scroll area that lays out
    /// only those in view; returns the row hovered and the one clicked.
    fn rows(&mut self, ui: &mut egui::Ui) -> (Option<usize>, Option<usize>) {
        let (mut hovered, mut clicked) = (None, None);
        let line_h = ui.text_style_height(&egui::TextStyle::Body);
        let pad = 2.0 * ui.spacing().button_padding.y;
        let gap = ui.spacing().item_spacing.y;
        egui::ScrollArea::vertical()
            .id_salt("guided_log")
            .auto_shrink([false, false])
            .stick_to_bottom(true)
            .show_viewport(ui, |ui, viewport| {
                let w = ui.available_width();
                let text_w = (w - 2.0 * ui.spacing().button_padding.x).max(1.0);
                let heights: Vec<f32> = self
                    .lines
                    .iter()
                    .zip(&self.drawn)
                    .map(|(l, d)| match d {
                        Some((dw, h)) if (dw - w).abs() < 0.5 => *h,
                        _ => estimate_height(row_text(l).chars().count(), text_w, line_h) + pad,
                    })
                    .collect();
                let total: f32 = heights.iter().map(|h| h + gap).sum::<f32>() - gap;
                ui.set_height(total.max(0.0));
                let (first, y0) = first_visible(&heights, gap, viewport.min.y);
                let top = ui.max_rect().top() + y0;
                let rect = egui::Rect::from_x_y_ranges(
                    ui.max_rect().x_range(),
                    top..=ui.max_rect().bottom(),
                );
                ui.scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
                    ui.skip_ahead_auto_ids(first);
                    let mut y = y0;
                    for i in first..self.lines.len() {
                        if y > viewport.max.y {
                            break;
                        }
                        let l = &self.lines[i];
                        let r = ui.add(
                            egui::Button::selectable(self.pinned == Some(i), row_text(l)).wrap(),
                        );
                        if let Some(d) = self.drawn.get_mut(i) {
                            *d = Some((w, r.rect.height()));
                        }
                        y += r.rect.height() + gap;
                        if r.hovered() {
                            hovered = Some(i);
                        }
                        if r.clicked() {
                            clicked = Some(i);
                        }
                    }
                });
            });
        (hovered, clicked)
    }
}

/// What a row shows: the run, the step and the whole sentence.
fn row_text(l: &LogLine) -> String {
    format!("{} #{}: {}", l.run, l.step, l.text)
}

/// The height of a text of `chars` characters wrapped to `width`, lines
/// `line_h` high: its rows at an average character width of half a line's
/// height (an estimate until the row is drawn and measured). O(1).
pub fn estimate_height(chars: usize, width: f32, line_h: f32) -> f32 {
    let per_row = (width / (0.5 * line_h)).floor().max(1.0) as usize;
    chars.div_ceil(per_row).max(1) as f32 * line_h
}

/// The first row that reaches below `y` (the view's top) with rows of
/// `heights` separated by `gap`, and the row's top. A view below every
/// row gives the last row. O(rows).
pub fn first_visible(heights: &[f32], gap: f32, y: f32) -> (usize, f32) {
    let mut top = 0.0;
    for (i, h) in heights.iter().enumerate() {
        if top + h >= y || i + 1 == heights.len() {
            return (i, top);
        }
        top += h + gap;
    }
    (0, 0.0)
}

impl super::view::View for GuidedLog {
    type Input<'a> = &'a mut Model;
    type Output = ();

    fn title(&self) -> &'static str {
        "Guided log"
    }

    fn ui(&mut self, ui: &mut egui::Ui, model: Self::Input<'_>) {
        GuidedLog::ui(self, ui, model);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_starts_at_the_row_that_reaches_its_top() {
        let h = [10.0, 20.0, 30.0];
        assert_eq!(first_visible(&h, 2.0, 0.0), (0, 0.0));
        assert_eq!(first_visible(&h, 2.0, 10.0), (0, 0.0));
        assert_eq!(first_visible(&h, 2.0, 11.0), (1, 12.0));
        assert_eq!(first_visible(&h, 2.0, 33.0), (2, 34.0));
        assert_eq!(first_visible(&h, 2.0, 500.0), (2, 34.0));
        assert_eq!(first_visible(&[], 2.0, 5.0), (0, 0.0));
    }

    #[test]
    fn a_long_sentence_takes_as_many_lines_as_it_needs() {
        // 10 px lines: 5 px per character, 20 characters per 100 px row.
        assert_eq!(estimate_height(0, 100.0, 10.0), 10.0);
        assert_eq!(estimate_height(20, 100.0, 10.0), 10.0);
        assert_eq!(estimate_height(21, 100.0, 10.0), 20.0);
        assert_eq!(estimate_height(100, 100.0, 10.0), 50.0);
        assert_eq!(estimate_height(5, 1.0, 10.0), 50.0);
    }
}
