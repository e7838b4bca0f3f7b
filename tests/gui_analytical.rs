//! The views that animate mappers' internals, driven headlessly through
//! egui_kittest: the Analytical view (Wu et al.) after three Step presses
//! shows iteration 3 and plots three points per series; the Bipartition
//! view after three bisections shows four parts, and the graph is coloured
//! by them.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap::app::settings::Settings;
use hopmap::app::{ColorMode, HopmapApp, Tab, process_colors};
use hopmap::mappers;
use std::collections::HashSet;
use std::time::{Duration, Instant};

fn harness() -> Harness<'static, HopmapApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1700.0, 1300.0))
        .build_eframe(|_cc| HopmapApp::new(Settings::default()));
    h.state_mut().graph_view.playing = false;
    h.run_steps(2);
    h
}

/// Step frames until `done` holds (the mapper runs on a worker), at most 60 s.
fn step_until(h: &mut Harness<'static, HopmapApp>, done: impl Fn(&HopmapApp) -> bool) {
    let t0 = Instant::now();
    while !done(h.state()) {
        let m = &h.state().model;
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "timed out: run {:?} {:?}, error {:?}",
            m.run_state,
            m.run_progress,
            m.error
        );
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
    h.run_steps(2);
}

#[test]
fn analytical_three_steps_show_iteration_three_and_three_points() {
    assert!(
        mappers::find("analytical").is_some(),
        "analytical is not registered"
    );
    let mut h = harness();
    h.get_by_label("analytical").click();
    h.run_steps(1);
    assert_eq!(h.state().mapper.selected, "analytical");
    h.get_by_label("Analytical").click();
    h.run_steps(1);
    assert_eq!(h.state().tab, Tab::Analytical);
    for _ in 0..3 {
        h.get_by_label("Step iteration").click();
        h.run_steps(1);
    }
    step_until(&mut h, |a| {
        a.model
            .run_detail
            .as_ref()
            .and_then(|d| d.analytical())
            .is_some_and(|d| d.global_iterations >= 3)
            && !a.model.playing
    });
    // Give the worker time for any further (wrong) steps, then look again.
    std::thread::sleep(Duration::from_millis(200));
    h.run_steps(3);
    let d = h
        .state()
        .model
        .run_detail
        .as_ref()
        .and_then(|d| d.analytical())
        .cloned()
        .expect("an analytical detail");
    assert_eq!(d.global_iterations, 3, "three presses, three iterations");
    assert_eq!(d.hist_max_workload.len(), 3);
    // What the view shows: the status line and the plot's points.
    h.get_by_label_contains("global iteration 3 ·");
    h.get_by_label("3 iterations plotted");
    assert_eq!(h.state().analytical_view.plotted, 3);
    assert!(d.started() && d.workloads.iter().map(|&w| w as usize).sum::<usize>() == d.items);
}

#[test]
fn bipartition_three_steps_show_four_parts_on_the_graph() {
    assert!(
        mappers::find("recursive").is_some(),
        "recursive is not registered"
    );
    let mut h = harness();
    h.get_by_label("recursive").click();
    h.run_steps(1);
    h.get_by_label("Bipartition").click();
    h.run_steps(1);
    for _ in 0..3 {
        h.get_by_label("Step bisection").click();
        h.run_steps(1);
    }
    step_until(&mut h, |a| {
        a.model
            .run_detail
            .as_ref()
            .and_then(|d| d.recursive())
            .is_some_and(|d| d.bisections >= 3)
    });
    std::thread::sleep(Duration::from_millis(200));
    h.run_steps(3);
    let app = h.state();
    let d = app
        .model
        .run_detail
        .as_ref()
        .and_then(|d| d.recursive())
        .unwrap();
    assert_eq!(d.bisections, 3);
    assert_eq!(app.bipartition_view.shown_parts, 4);
    h.get_by_label_contains("3 bisections · level 1 of 2 · 4 parts");
    // The graph view colours processes by their part: four colours.
    assert_eq!(h.state().color_mode, ColorMode::Part);
    let colors = process_colors(&h.state().model, ColorMode::Part);
    let distinct: HashSet<_> = colors.iter().collect();
    assert_eq!(distinct.len(), 4);
}
