//! The views that animate mappers' internals, driven headlessly through
//! egui_kittest: the Analytical view (Wu et al.) after three Step presses
//! shows iteration 3 and plots three points per series; the Bipartition
//! view after three bisections shows four parts, and the graph is coloured
//! by them.

use super::common::{harness, step_until};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap_app::run_detail::AnalyticalDetail;
use hopmap_app::{ColorMode, HopmapApp, Tab, process_colors};
use hopmap_core::mappers;
use std::collections::HashSet;
use std::time::Duration;

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
    let d = analytical_after_three(&mut h);
    assert_eq!(d.hist_max_workload.len(), 3);
    assert!(d.started() && d.workloads.iter().map(|&w| w as usize).sum::<usize>() == d.items);
}

/// The wording: select analytical, press the mapper panel's plain
/// Step 3 times, and the view shows iteration 3 and a plot with 3 points
/// (the mapper's setup happens inside its first step).
#[test]
fn analytical_panel_step_three_times_shows_iteration_three() {
    let mut h = harness();
    h.get_by_label("analytical").click();
    h.run_steps(1);
    assert_eq!(h.state().mapper.selected, "analytical");
    for k in 1..=3 {
        // The analytical parameters are many: bring the button into view.
        // (Scrolling animates: let it settle before clicking.)
        h.get_by_label("Step").scroll_to_me();
        h.run_steps(30);
        h.get_by_label("Step").click();
        h.run_steps(2);
        step_until(&mut h, |a| a.model.run.progress().done >= k);
    }
    assert!(h.state().model.run.is_live(), "Step started the run");
    h.get_by_label("Analytical").click();
    h.run_steps(1);
    assert_eq!(h.state().tab, Tab::Analytical);
    let d = analytical_after_three(&mut h);
    assert_eq!(d.hist_hop_bytes.len(), 3);
}

/// After three Step presses: wait for the third global iteration (and for
/// play to be off), give the worker time for any further (wrong) steps,
/// then check that the run and the view show exactly three iterations, and
/// return the detail.
fn analytical_after_three(h: &mut Harness<'static, HopmapApp>) -> AnalyticalDetail {
    step_until(h, |a| {
        a.model
            .run
            .detail()
            .as_ref()
            .and_then(|d| d.analytical())
            .is_some_and(|d| d.global_iterations >= 3)
            && !a.model.run.playing()
    });
    std::thread::sleep(Duration::from_millis(200));
    h.run_steps(3);
    let d = h
        .state()
        .model
        .run
        .detail()
        .as_ref()
        .and_then(|d| d.analytical())
        .cloned()
        .expect("an analytical detail");
    assert_eq!(d.global_iterations, 3, "three presses, three iterations");
    // What the view shows: the status line and the plot's points.
    h.get_by_label_contains("global iteration 3 ·");
    h.get_by_label("3 iterations plotted");
    assert_eq!(h.state().analytical_view.plotted, 3);
    d
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
            .run
            .detail()
            .as_ref()
            .and_then(|d| d.recursive())
            .is_some_and(|d| d.bisections >= 3)
    });
    std::thread::sleep(Duration::from_millis(200));
    h.run_steps(3);
    let app = h.state();
    let d = app
        .model
        .run
        .detail()
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

#[test]
fn recursive_refine_trace_is_the_metrics_curve_and_the_views_plot() {
    assert!(
        mappers::find("recursive+refine").is_some(),
        "recursive+refine is not registered"
    );
    let mut h = harness();
    h.get_by_label("recursive+refine").click();
    h.run_steps(1);
    h.get_by_label("Bipartition").click();
    h.run_steps(1);
    // Map (the panel's button may be scrolled out of view under this
    // mapper's many parameters): the same call the button makes.
    let seed = h.state().mapper.seed;
    h.state_mut().model.start_map("recursive+refine", seed, "");
    h.run_steps(1);
    step_until(&mut h, |a| {
        !a.model.run.is_live() && a.model.mapping_label == "recursive+refine"
    });
    let app = h.state();
    let d = app
        .model
        .run
        .detail()
        .as_ref()
        .and_then(|d| d.recursive())
        .unwrap();
    // Every stepped run's construction value, then one value per
    // refinement step (the second half of the runs go to a background
    // thread and add no points).
    let stepped = d.runs.div_ceil(2);
    assert!(
        d.trace.len() >= 2 * stepped,
        "{} values for {} stepped runs",
        d.trace.len(),
        stepped
    );
    // The metrics panel's "hop-bytes over the mapper's steps" is that trace…
    let shown: Vec<f64> = app.model.run.trace().iter().map(|p| p[1]).collect();
    assert_eq!(shown, d.trace);
    // …and so is the Bipartition view's refinement plot.
    assert_eq!(app.bipartition_view.plotted, d.trace.len());
    // The mapping kept is the best run's: no worse than the last stepped
    // run's end (a background run may be better still).
    let hb = app.model.eval.as_ref().unwrap().metrics.hop_bytes;
    let last = d.trace.last().copied().unwrap();
    assert!(hb <= last + 1e-6, "{hb} vs {last}");
}
