//! The lesson panel: pick a built-in lesson ([`hopmap_core::lessons::LESSONS`]),
//! read the step's text, and go Back and Next. Each step is applied through
//! the model's normal paths ([`HopmapApp::apply_lesson_step`]): the graph is
//! built (a generator or an embedded sample), the network and routing set,
//! the view arranged, and the step's mapper started on its worker — mapped
//! to the end, or a few steps in guided mode so that the guided log fills.
//!
//! Cost: applying a step is what loading a graph, setting a network and
//! starting a run cost; drawing the panel is O(text).

use super::{ColorMode, HopmapApp, Tab, network_panel};
use hopmap_core::lessons::{LESSONS, LessonGraph, RunHow};
use hopmap_core::mappers::background::Command;
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
    pub(super) shown_graph: Option<(LessonGraph, u64)>,
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
            let same_graph = self
                .teach
                .lesson
                .shown_graph
                .is_some_and(|(g, gen_)| g == st.graph && gen_ == self.model.graph_gen);
            if !same_graph {
                let g = st.graph.load().map_err(|e| e.to_string())?;
                let name = st.graph.name();
                self.model.set_graph(g, &name);
                self.data.sample = name;
                self.teach.lesson.shown_graph = Some((st.graph, self.model.graph_gen));
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
                            && let Some(r) = &self.model.run
                        {
                            r.send(Command::Step(k.max(1)));
                        }
                        self.teach.tab = super::teach::BottomTab::Log;
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

    pub(super) fn lesson_ui(&mut self, ui: &mut egui::Ui) {
        let mut go: Option<(usize, usize)> = None;
        ui.horizontal_wrapped(|ui| {
            ui.label("Lesson");
            let cur = self.teach.lesson.lesson.min(LESSONS.len() - 1);
            egui::ComboBox::from_id_salt("lesson_pick")
                .selected_text(LESSONS[cur].title)
                .width(330.0)
                .show_ui(ui, |ui| {
                    for (i, l) in LESSONS.iter().enumerate() {
                        if ui.selectable_label(i == cur, l.title).clicked() {
                            go = Some((i, 0));
                        }
                    }
                });
            let lesson = self.teach.lesson.current();
            let n = lesson.steps.len();
            let k = self.teach.lesson.step;
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
        let lesson = self.teach.lesson.current();
        if !self.teach.lesson.open {
            ui.horizontal(|ui| {
                if ui.button("Start this lesson").clicked() {
                    go = Some((self.teach.lesson.lesson.min(LESSONS.len() - 1), 0));
                }
                ui.weak("It loads its own graph and network.");
            });
        } else if let Some(s) = lesson.steps.get(self.teach.lesson.step) {
            ui.label(egui::RichText::new(s.title).strong().size(15.0));
            egui::ScrollArea::vertical()
                .id_salt("lesson_text")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    ui.add(egui::Label::new(s.text).wrap());
                });
        }
        if let Some((l, k)) = go {
            let _ = self.open_lesson(l, k);
        }
    }
}
