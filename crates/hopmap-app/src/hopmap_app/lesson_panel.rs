//! The lesson panel: pick a built-in lesson ([`hopmap_core::lessons::LESSONS`]),
//! read the step's text, and go Back and Next. Each step is applied through
//! the model's normal paths ([`HopmapApp::apply_lesson_step`]): the graph is
//! built (a generator or an embedded sample), the network and routing set,
//! the view arranged, and the step's mapper started on its worker — mapped
//! to the end, or a few steps in guided mode so that the guided log fills.
//!
//! Cost: applying a step is what loading a graph, setting a network and
//! starting a run cost; drawing the panel is O(text).

use crate::background::Command;
use crate::guided_log::GuidedLog;
use crate::view::View;
use crate::{ColorMode, HopmapApp, Tab, network_panel};
use hopmap_core::lessons::{LESSONS, LessonGraph, RunHow};
use hopmap_core::routing::Routing;
use hopmap_core::topology::Topology;

/// Which lesson and step is open.
#[derive(Default)]
pub struct LessonPanel {
    /// Index into [`LESSONS`], and the step shown.
    pub lesson: usize,
    pub step: usize,
    /// Whether a lesson is open (the app opened on one, or one was picked).
    pub open: bool,
    /// The lesson graph on screen and the model's graph generation it was
    /// loaded at (a lesson step reuses it when nothing else replaced it).
    pub(crate) shown_graph: Option<(LessonGraph, u64)>,
    /// In the last frame: where the step's text started and the height of
    /// the whole text (the teaching panel grows to it, within a cap).
    pub(crate) text_need: Option<(f32, f32)>,
}

impl LessonPanel {
    pub fn current(&self) -> &'static hopmap_core::lessons::Lesson {
        &LESSONS[self.lesson.min(LESSONS.len() - 1)]
    }
}

impl HopmapApp {
    /// Open lesson `lesson` (index into [`LESSONS`]) at step `step` and apply it.
    pub fn open_lesson(&mut self, lesson: usize, step: usize) -> Result<(), String> {
        if lesson >= LESSONS.len() {
            return Err(format!("no lesson {lesson}"));
        }
        self.teach.lesson.lesson = lesson;
        self.teach.lesson.open = true;
        self.apply_lesson_step(step)
    }

    /// Apply step `step` of the open lesson: graph, network, routing, view,
    /// then the step's mapper through the model. Errors go to the banner
    /// too, and leave what was applied so far.
    pub fn apply_lesson_step(&mut self, step: usize) -> Result<(), String> {
        let lesson = self.teach.lesson.current();
        let step = step.min(lesson.steps.len().saturating_sub(1));
        self.teach.lesson.step = step;
        let st = lesson.state_at(step);
        let r = (|| -> Result<(), String> {
            // Network first: a new graph is then mapped (default) on it at once.
            if self.model.topo.spec() != st.topology {
                let t = Topology::parse(st.topology).map_err(|e| e.to_string())?;
                self.model.set_topology(t);
                self.network = network_panel::NetworkPanel::new(&self.model.topo);
                self.network_view.reset_camera();
            }
            let same_graph =
                self.teach.lesson.shown_graph.is_some_and(|(g, gen_)| {
                    g == st.graph && gen_ == self.model.graph.generation()
                });
            if !same_graph {
                let g = st.graph.load().map_err(|e| e.to_string())?;
                let name = st.graph.name();
                self.model.set_graph(g, &name);
                self.data.sample = name;
                self.teach.lesson.shown_graph = Some((st.graph, self.model.graph.generation()));
            }
            let routing = Routing::parse(st.routing).map_err(|e| e.to_string())?;
            if self.model.routing.name() != routing.name() {
                self.model.set_routing(routing);
            }
            self.tab = Tab::from_key(st.view);
            self.color_mode = ColorMode::from_key(st.color);
            self.network_view.by_flows = st.heat_by_flows;
            if let Some((id, params)) = st.mapper {
                let sel = hopmap_core::mappers::resolve(id).map_err(|e| e.to_string())?;
                self.mapper.select(sel.info.id);
                for (k, v) in &sel.params {
                    self.mapper.set_value(k, v);
                }
                let seed = self.mapper.seed;
                match st.run {
                    RunHow::ToEnd => self.model.start_map(id, seed, params),
                    RunHow::Guided(k) => {
                        self.model.guided = true;
                        if self.model.start_run(id, seed, params)
                            && let Some(r) = self.model.run.worker()
                        {
                            r.send(Command::Step(k.max(1)));
                        }
                        // The lesson text stays in view; its panel shows
                        // the newest guided sentences beside it.
                    }
                }
                if let Some(e) = &self.model.error {
                    return Err(e.clone());
                }
            }
            Ok(())
        })();
        if let Err(e) = &r {
            self.model.error = Some(e.clone());
        }
        r
    }

    /// Whether a lesson is on screen: open, and its graph still the one shown.
    pub fn lesson_active(&self) -> bool {
        self.teach.lesson.open
            && self
                .teach
                .lesson
                .shown_graph
                .is_some_and(|(_, g)| g == self.model.graph.generation())
    }

    /// Presentation keys while a lesson is open: PageDown, →, Space give the
    /// next step, PageUp, ← the previous (what presentation clickers send);
    /// not while a text field has the keyboard.
    pub(crate) fn lesson_keys(&mut self, ctx: &egui::Context) {
        if !self.lesson_active() || ctx.egui_wants_keyboard_input() {
            return;
        }
        use egui::Key;
        let (next, prev) = ctx.input(|i| {
            (
                i.key_pressed(Key::PageDown)
                    || i.key_pressed(Key::ArrowRight)
                    || i.key_pressed(Key::Space),
                i.key_pressed(Key::PageUp) || i.key_pressed(Key::ArrowLeft),
            )
        });
        let cur = self.teach.lesson.lesson.min(LESSONS.len() - 1);
        let k = self.teach.lesson.step;
        let n = self.teach.lesson.current().steps.len();
        if next && k + 1 < n {
            let _ = self.open_lesson(cur, k + 1);
        } else if prev && k > 0 {
            let _ = self.open_lesson(cur, k - 1);
        }
    }

    /// The lesson panel; a step it asks for is applied to the whole app.
    pub(crate) fn lesson_ui(&mut self, ui: &mut egui::Ui) {
        if let Some((l, k)) = self.teach.lesson.ui(ui, &self.teach.log) {
            let _ = self.open_lesson(l, k);
        }
    }
}

impl View for LessonPanel {
    type Input<'a> = &'a GuidedLog;
    /// The lesson and step to open (the app applies it: a step changes the
    /// graph, the network, the mapper and the views).
    type Output = Option<(usize, usize)>;

    fn title(&self) -> &'static str {
        "Lesson"
    }

    /// The lesson picker, Back / Next / again, and the step's text with the
    /// newest guided sentences beside it (a recap after the last step).
    fn ui(&mut self, ui: &mut egui::Ui, guided: Self::Input<'_>) -> Self::Output {
        let mut go: Option<(usize, usize)> = None;
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Lesson");
            let cur = self.lesson.min(LESSONS.len() - 1);
            egui::ComboBox::from_id_salt("lesson_pick")
                .selected_text(LESSONS[cur].title)
                .width(330.0)
                .show_ui(ui, |ui| {
                    for (i, l) in LESSONS.iter().enumerate() {
                        if ui.selectable_label(i == cur, l.title).clicked() {
                            go = Some((i, 0));
                        }
                    }
                })
                .response
                .labelled_by(l.id);
            let lesson = self.current();
            let n = lesson.steps.len();
            let k = self.step;
            if ui
                .add_enabled(k > 0, egui::Button::new("Back"))
                .on_hover_text("The previous step of the lesson")
                .clicked()
            {
                go = Some((cur, k - 1));
            }
            ui.label(format!("step {} of {n}", k + 1));
            if ui
                .add_enabled(k + 1 < n, egui::Button::new("Next"))
                .on_hover_text("Apply the next step of the lesson")
                .clicked()
            {
                go = Some((cur, k + 1));
            }
            if ui
                .small_button("again")
                .on_hover_text("Apply this step again")
                .clicked()
            {
                go = Some((cur, k));
            }
            ui.weak(lesson.seed);
        });
        let lesson = self.current();
        let prev_need = self.text_need.take();
        if !self.open {
            ui.horizontal(|ui| {
                if ui.button("Start this lesson").clicked() {
                    go = Some((self.lesson.min(LESSONS.len() - 1), 0));
                }
                ui.weak("It loads its own graph and network.");
            });
        } else if let Some(s) = lesson.steps.get(self.step) {
            ui.label(egui::RichText::new(s.title).strong().size(18.0));
            let last = self.step + 1 == lesson.steps.len();
            let cur = self.lesson.min(LESSONS.len() - 1);
            let log: Vec<String> = guided
                .lines
                .iter()
                .rev()
                .take(3)
                .map(|l| format!("{} #{}: {}", l.run, l.step, l.text))
                .collect();
            let full = ui.available_rect_before_wrap();
            let text_w = if log.is_empty() {
                full.width()
            } else {
                full.width() * 0.58
            };
            if !log.is_empty() {
                // The newest guided sentences, whole, beside the text.
                let r = egui::Rect::from_min_max(
                    egui::pos2(full.min.x + text_w + 8.0, full.min.y),
                    full.max,
                );
                let mut lu = ui.new_child(egui::UiBuilder::new().max_rect(r));
                egui::ScrollArea::vertical()
                    .id_salt("lesson_log")
                    .auto_shrink([false, false])
                    .show(&mut lu, |ui| {
                        ui.label(egui::RichText::new("Guided log, newest first").strong());
                        for l in &log {
                            ui.add(egui::Label::new(egui::RichText::new(l).size(14.0)).wrap());
                            ui.separator();
                        }
                    });
            }
            let tr = egui::Rect::from_min_size(full.min, egui::vec2(text_w, full.height()));
            let mut tu = ui.new_child(egui::UiBuilder::new().max_rect(tr));
            ui.allocate_rect(full, egui::Sense::hover());
            let ui = &mut tu;
            // A scroll bar in sight when the text is longer than the panel.
            let over = prev_need.is_some_and(|(_, h)| h > full.height());
            let bar = if over {
                // Solid: a floating bar is invisible until hovered.
                ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
                egui::scroll_area::ScrollBarVisibility::AlwaysVisible
            } else {
                egui::scroll_area::ScrollBarVisibility::VisibleWhenNeeded
            };
            let out = egui::ScrollArea::vertical()
                .id_salt("lesson_text")
                .auto_shrink([false, false])
                .scroll_bar_visibility(bar)
                .show(ui, |ui| {
                    // Large and bright enough for a projector.
                    ui.add(
                        egui::Label::new(
                            egui::RichText::new(s.text)
                                .size(16.0)
                                .color(ui.visuals().strong_text_color()),
                        )
                        .wrap(),
                    );
                    if last {
                        ui.add_space(6.0);
                        ui.label(egui::RichText::new("Recap").strong().size(16.0));
                        for st in lesson.steps {
                            ui.label(format!("• {}", st.title));
                        }
                        if let Some(next) = LESSONS.get(cur + 1) {
                            if ui.button(format!("Next lesson: {}", next.title)).clicked() {
                                go = Some((cur + 1, 0));
                            }
                        } else {
                            ui.weak("This was the last lesson.");
                        }
                    }
                });
            self.text_need = Some((full.min.y, out.content_size.y));
        }
        go
    }
}
