//! The guided log: with guided mode on, every step of the running mapper
//! adds its sentence ([`hopmap_core::mappers::RunRef::explain_last_step`], in
//! the paper's terms, citing the section), newest at the bottom, kept for
//! scrolling back (at most [`MAX_LINES`]). Hovering a line shows the step it
//! describes in the views (the process placed, where it wanted to go and
//! the node chosen; for exchanges, both processes of each and their nodes;
//! for a bisection, the part it cut; for an order, the ranks it names):
//! clicking keeps it shown. The views ring [`step_processes`].
//!
//! Cost per frame: O(new lines) to take them from the model, O(visible
//! rows) to draw (rows of one height, `show_rows`).

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
    match &model.last_event {
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
        if model.guided_new.is_empty() {
            return;
        }
        let run = model.run_id.clone();
        for GuidedLine { step, text, event } in model.guided_new.drain(..) {
            if self.lines.len() >= MAX_LINES {
                self.lines.pop_front();
                self.pinned = self.pinned.and_then(|i| i.checked_sub(1));
            }
            self.lines.push_back(LogLine {
                run: run.clone(),
                step,
                text,
                event,
            });
        }
    }

    pub fn clear(&mut self) {
        self.lines.clear();
        self.pinned = None;
        self.dropped = 0;
    }

    /// Show line `i`'s step in the views.
    pub fn highlight(&self, i: usize, model: &mut Model) {
        if let Some(l) = self.lines.get(i) {
            model.last_event = l.event.clone();
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
                if let Some(r) = &model.run {
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
        let row_h = ui.text_style_height(&egui::TextStyle::Body) + 4.0;
        let mut hovered = None;
        let mut clicked = None;
        egui::ScrollArea::vertical()
            .id_salt("guided_log")
            .auto_shrink([false, false])
            .stick_to_bottom(true)
            .show_rows(ui, row_h, self.lines.len(), |ui, range| {
                for i in range {
                    let l = &self.lines[i];
                    let text = format!("{} #{}: {}", l.run, l.step, l.text);
                    let r = ui
                        .add(egui::Button::selectable(self.pinned == Some(i), text).truncate())
                        .on_hover_text(&l.text);
                    if r.hovered() {
                        hovered = Some(i);
                    }
                    if r.clicked() {
                        clicked = Some(i);
                    }
                }
            });
        if let Some(i) = clicked {
            self.pinned = Some(i);
            self.saved = None;
            self.highlight(i, model);
        }
        match (hovered, self.hovered_before) {
            (Some(i), _) if clicked.is_none() => {
                if self.saved.is_none() {
                    self.saved = Some((model.last_event.clone(), model.selected));
                }
                self.highlight(i, model);
            }
            (None, Some(_)) => {
                if let Some((e, s)) = self.saved.take() {
                    model.last_event = e;
                    model.selected = s;
                }
            }
            _ => {}
        }
        self.hovered_before = hovered;
    }
}
