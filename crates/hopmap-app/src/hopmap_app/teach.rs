//! The teaching panel at the bottom of the window: tabs for the open
//! lesson ([`crate::lesson_panel`]), the guided log ([`crate::guided_log`])
//! and the glossary ([`crate::glossary_panel`]). Workspaces, exports and
//! the experiment report are in the File menu ([`crate::file_menu`]).
//!
//! [`Teach`] bundles these panels' state so that the app holds it in one
//! field. Cost per frame: the visible panel's own.

use crate::export::{self, Format, ViewKind};
use crate::view::View;
use crate::{HopmapApp, Tab, glossary_panel, guided_log, lesson_panel, report_dialog};
use std::path::PathBuf;

/// The teaching panel's height (fixed, so that tabs do not move it).
pub const PANEL_HEIGHT: f32 = 185.0;

/// The tabs of the teaching panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BottomTab {
    #[default]
    Lesson,
    Log,
    Glossary,
}

/// State of the teaching panel and its dialogs.
#[derive(Default)]
pub struct Teach {
    pub tab: BottomTab,
    /// Whether the panel is shown.
    pub hidden: bool,
    pub lesson: lesson_panel::LessonPanel,
    pub log: guided_log::GuidedLog,
    pub glossary: glossary_panel::GlossaryPanel,
    pub export: export::Export,
    pub report: report_dialog::ReportDialog,
    /// Saved layout positions waiting for the graph view (graph generation).
    pub pending_layout: Option<(u64, Vec<[f32; 2]>)>,
    /// In the last frame: the panel's frame (outer less inner height) and
    /// its inner top, to size it to the lesson text.
    chrome: f32,
    inner_top: f32,
}

impl HopmapApp {
    /// The teaching panel (call before the central panel).
    pub(crate) fn teach_panel(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.teach.log.pull(&mut self.model);
        self.teach.report.window(&ctx, &mut self.model);
        if self.teach.hidden {
            egui::Panel::bottom("teach_panel_hidden").show(ui, |ui| {
                if ui
                    .small_button("show lessons, guided log, glossary")
                    .clicked()
                {
                    self.teach.hidden = false;
                }
            });
            return;
        }
        let min = if self.teach.tab == BottomTab::Lesson {
            self.lesson_height(ctx.content_rect().height())
        } else {
            150.0
        };
        let shown = egui::Panel::bottom("teach_panel")
            .resizable(true)
            .default_size(180.0)
            .min_size(min)
            .show(ui, |ui| {
                let inner = ui.max_rect();
                ui.horizontal(|ui| {
                    let t = &mut self.teach.tab;
                    ui.selectable_value(t, BottomTab::Lesson, "Lesson");
                    ui.selectable_value(
                        t,
                        BottomTab::Log,
                        format!("Guided log ({})", self.teach.log.lines.len()),
                    );
                    ui.selectable_value(t, BottomTab::Glossary, "Glossary");
                    ui.separator();
                    if ui.small_button("hide").clicked() {
                        self.teach.hidden = true;
                    }
                });
                ui.separator();
                match self.teach.tab {
                    BottomTab::Lesson => self.lesson_ui(ui),
                    BottomTab::Log => self.teach.log.ui(ui, &mut self.model),
                    BottomTab::Glossary => self.teach.glossary.ui(ui, ()),
                }
                inner
            });
        let chrome = shown.response.rect.height() - shown.inner.height();
        self.teach.chrome = chrome.max(0.0);
        self.teach.inner_top = shown.inner.min.y;
    }

    /// The lesson tab's least height in a window `win_h` high: the whole
    /// step text as the last frame measured it, at most 30% of a tall
    /// window (324 px at 1080 lines) and 180 px at 800 lines, where the
    /// text scrolls; never under 150 px.
    fn lesson_height(&self, win_h: f32) -> f32 {
        let cap = (0.6 * win_h - 300.0).clamp(150.0, (0.3 * win_h).max(150.0));
        let need = self.teach.lesson.text_need.map_or(0.0, |(top, h)| {
            self.teach.chrome + (top - self.teach.inner_top) + h + 4.0
        });
        need.clamp(150.0, cap)
    }

    /// Export `view` at the next frame; the centre shows that view if it
    /// is hidden.
    pub fn request_export(&mut self, view: ViewKind, format: Format, path: PathBuf) {
        let shown = match view {
            ViewKind::Graph => matches!(self.tab, Tab::Graph | Tab::Split),
            ViewKind::Network => matches!(self.tab, Tab::Network | Tab::Split),
            ViewKind::Matrix => self.tab == Tab::Matrix,
            ViewKind::Difference => {
                self.tab == Tab::Compare
                    && self.compare.sub == crate::compare_panel::CompareSub::Difference
            }
        };
        if !shown {
            self.tab = match view {
                ViewKind::Graph => Tab::Graph,
                ViewKind::Network => Tab::Network,
                ViewKind::Matrix => Tab::Matrix,
                ViewKind::Difference => {
                    self.compare.sub = crate::compare_panel::CompareSub::Difference;
                    Tab::Compare
                }
            };
        }
        self.teach.export.ask(view, format, path);
    }

    /// After the frame: saved layout positions, the lesson a new run
    /// belongs to.
    pub(crate) fn teach_after_frame(&mut self) {
        self.apply_pending_layout();
    }
}
