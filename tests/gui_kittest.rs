//! The real app driven headlessly through egui_kittest (accesskit labels):
//! open a sample, choose a network, map with MHT and check the hop-bytes
//! figure against the library, step BFT three times, compare three mappers.

use egui::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap::app::HopmapApp;
use hopmap::app::metrics_panel::fmt_num;
use hopmap::app::settings::Settings;
use hopmap::mappers::{self, MapperInput};
use hopmap::metrics::evaluate;
use std::time::{Duration, Instant};

fn harness() -> Harness<'static, HopmapApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1700.0, 1300.0))
        .build_eframe(|_cc| HopmapApp::new(Settings::default()));
    // Keep the layout still so that frames are cheap and deterministic.
    h.state_mut().graph_view.playing = false;
    h.run_steps(2);
    h
}

/// Step frames until `done` holds (worker threads finish), at most 60 s.
fn step_until(h: &mut Harness<'static, HopmapApp>, done: impl Fn(&HopmapApp) -> bool) {
    let t0 = Instant::now();
    while !done(h.state()) {
        assert!(t0.elapsed() < Duration::from_secs(60), "timed out");
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
    h.run_steps(2);
}

#[test]
fn open_sample_choose_network_map_with_mht() {
    let mut h = harness();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    assert_eq!(h.state().model.graph_name, "mesh-16x16");
    assert_eq!(h.state().model.graph.n(), 256);

    h.get_by_label("torus:16x16").click();
    h.run_steps(2);
    assert_eq!(h.state().model.topo.spec(), "torus:16x16");

    let id = if mappers::find("mht").is_some() { "mht" } else { "default" };
    h.get_by_label(id).click();
    h.run_steps(1);
    assert_eq!(h.state().mapper.selected, id);
    h.get_by_label("Map").click();
    h.run_steps(1);
    step_until(&mut h, |a| a.model.map_job.is_none() && a.model.mapping_label == id);

    // The same inputs through the library.
    let app = h.state();
    let info = mappers::find(id).unwrap();
    let input = MapperInput::new(app.model.graph.clone(), app.model.topo.clone(), app.mapper.seed);
    let m = mappers::run(&info, &input).unwrap();
    let want = evaluate(&app.model.graph, &app.model.topo, &m, &app.model.routing).metrics;
    let got = &app.model.eval.as_ref().unwrap().metrics;
    assert_eq!(got.hop_bytes, want.hop_bytes);
    assert!(!app.model.eval_partial);
    // ...and the panel shows exactly that figure.
    let shown = fmt_num(want.hop_bytes);
    h.get_by_label(&shown);
}

#[test]
fn step_bft_three_times_places_three_processes() {
    let id = if mappers::find("bft").is_some() { "bft" } else { return };
    let mut h = harness();
    h.get_by_label(id).click();
    h.run_steps(1);
    for _ in 0..3 {
        h.get_by_label("Step").click();
        h.run_steps(1);
    }
    h.run_steps(1);
    let app = h.state();
    let placed = app.model.placement.iter().filter(|s| s.is_some()).count();
    assert_eq!(placed, 3);
    assert!(app.model.eval_partial);
    h.get_by_label(&format!("placed: 3 of {}", app.model.graph.n()));
}

#[test]
fn compare_three_mappers_gives_three_rows() {
    let mut h = harness();
    h.get_by_label("Compare").click();
    h.run_steps(2);
    let ids: Vec<&str> = ["default", "random", "mht"]
        .into_iter()
        .filter(|id| mappers::find(id).is_some())
        .chain(["xyzt", "bft"].into_iter().filter(|id| mappers::find(id).is_some()))
        .take(3)
        .collect();
    assert_eq!(ids.len(), 3);
    for id in &ids {
        h.get_by_role_and_label(Role::CheckBox, id).click();
        h.run_steps(1);
    }
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, |a| !a.compare.busy());
    let app = h.state();
    assert_eq!(app.compare.rows.len() + app.compare.skipped.len(), 3);
    assert_eq!(app.compare.rows.len(), 3, "skipped: {:?}", app.compare.skipped);
    for id in &ids {
        h.get_by_label(&format!("{id} ›"));
    }
    assert_eq!(app.compare.csv().lines().count(), 4);
}
