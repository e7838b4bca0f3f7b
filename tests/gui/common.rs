//! Shared by the GUI test modules: the app in a kittest harness, and
//! stepping frames until a worker's result arrives.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap_app::HopmapApp;
use hopmap_app::settings::Settings;
use hopmap_core::mappers::{self, MapperInput};
use hopmap_core::metrics::{Metrics, evaluate};
use std::time::{Duration, Instant};

pub fn harness() -> Harness<'static, HopmapApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1700.0, 1300.0))
        .build_eframe(|_cc| HopmapApp::new(Settings::default()));
    // Keep the layout still so that frames are cheap and deterministic.
    h.state_mut().graph_view.playing = false;
    h.run_steps(2);
    h
}

/// Step frames until `done` holds (worker threads finish), at most 60 s.
pub fn step_until(h: &mut Harness<'static, HopmapApp>, done: impl Fn(&HopmapApp) -> bool) {
    let t0 = Instant::now();
    while !done(h.state()) {
        if t0.elapsed() > Duration::from_secs(60) {
            let m = &h.state().model;
            panic!(
                "timed out: run {:?} {:?}, placed {}, eval {} partial {}, error {:?}, status {:?}",
                m.run,
                m.run.progress(),
                m.placement.iter().filter(|s| s.is_some()).count(),
                m.eval.is_some(),
                m.eval_partial,
                m.error,
                m.status
            );
        }
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
    h.run_steps(2);
}

/// Select mapper `id` in the Mapper panel, press Map, and wait for the
/// mapping.
pub fn map_through_ui(h: &mut Harness<'static, HopmapApp>, id: &str) {
    // The mapper list scrolls with the left panel: bring the row into view.
    // (The scroll animates over a few frames.)
    h.get_by_label(id).scroll_to_me();
    h.run_steps(20);
    h.get_by_label(id).click();
    h.run_steps(1);
    assert_eq!(h.state().mapper.selected, id);
    h.get_by_label("Map").click();
    h.run_steps(1);
    step_until(h, |a| !a.model.run.is_live() && a.model.mapping_label == id);
}

/// The metrics of mapper `id` run through the library on the app's graph,
/// network, seed and routing.
pub fn library_metrics(app: &HopmapApp, id: &str) -> Metrics {
    let info = mappers::find(id).unwrap();
    let input = MapperInput::new(
        app.model.graph.clone(),
        app.model.topo.clone(),
        app.mapper.seed,
    );
    let m = mappers::run(&info, &input).unwrap();
    evaluate(&app.model.graph, &app.model.topo, &m, &app.model.routing).metrics
}
