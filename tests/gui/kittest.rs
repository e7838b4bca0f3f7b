//! The real app driven headlessly through egui_kittest (accesskit labels):
//! open a sample, choose a network, map with MHT and check the hop-bytes
//! figure against the library, step BFT three times, compare three mappers,
//! filter the network view's links and pick a link from the hottest list.
//! A mapper these tests name that is not registered is a failure.

use super::common::{harness, library_metrics, map_through_ui, step_until};
use egui::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap_app::draw::fmt_num;
use hopmap_app::network_view::{HOTTEST_ROWS, Resolved, ViewMode};
use hopmap_app::{HopmapApp, Tab};
use hopmap_core::mappers;

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

    let id = "mht";
    assert!(mappers::find(id).is_some(), "mapper {id} is not registered");
    map_through_ui(&mut h, id);

    // The same inputs through the library.
    let app = h.state();
    let want = library_metrics(app, id);
    let got = &app.model.eval.as_ref().unwrap().metrics;
    assert_eq!(got.hop_bytes, want.hop_bytes);
    assert!(!app.model.eval_partial);
    // ...and the panel shows exactly that figure (in "How good is this
    // mapping?" and in the metrics grid).
    let shown = fmt_num(want.hop_bytes);
    assert_eq!(h.query_all_by_label(&shown).count(), 2);
}

#[test]
fn step_bft_three_times_places_three_processes() {
    let id = "bft";
    assert!(mappers::find(id).is_some(), "the registry lost {id}");
    let mut h = harness();
    h.get_by_label(id).click();
    h.run_steps(1);
    for _ in 0..3 {
        h.get_by_label("Step").click();
        h.run_steps(1);
    }
    // The steps run on the mapper's worker thread: wait for its snapshot.
    step_until(&mut h, |a| {
        a.model.placement.iter().filter(|s| s.is_some()).count() == 3
            && a.model.eval_partial
            && a.model.eval.is_some()
    });
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
    let ids = ["default", "random", "mht"];
    for id in ids {
        assert!(mappers::find(id).is_some(), "mapper {id} is not registered");
    }
    for id in &ids {
        h.get_by_role_and_label(Role::CheckBox, id).click();
        h.run_steps(1);
    }
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, |a| !a.compare.busy());
    let app = h.state();
    assert_eq!(app.compare.rows.len() + app.compare.skipped.len(), 3);
    assert_eq!(
        app.compare.rows.len(),
        3,
        "skipped: {:?}",
        app.compare.skipped
    );
    for id in &ids {
        h.get_by_label(&format!("{id} ›"));
    }
    assert_eq!(app.compare.csv(&app.model).lines().count(), 4);
}

/// A file dropped on the window.
#[derive(Debug)]
struct Dropped(std::path::PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

fn drop_file(h: &mut Harness<'static, HopmapApp>, path: &std::path::Path) {
    h.input_mut()
        .dropped_files
        .push(std::sync::Arc::new(Dropped(path.to_path_buf())));
    h.step();
    step_until(h, |a| a.model.load_job.is_none());
}

#[test]
fn dropped_files_load_and_bad_ones_leave_the_state_with_a_message() {
    let mut h = harness();
    let before = h.state().model.graph_name.clone();
    let dir = std::env::temp_dir().join(format!("hopmap-kittest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A broken MatrixMarket file: the error names the file and line.
    let bad = dir.join("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 x 5\n",
    )
    .unwrap();
    drop_file(&mut h, &bad);
    let err = h.state().model.error.clone().expect("an error is shown");
    assert!(err.contains("bad.mtx"), "{err}");
    assert_eq!(h.state().model.graph_name, before);
    h.get_by_label(&err);
    // A good edge list loads, replaces the graph and is remembered in Recent.
    let good = dir.join("ring.txt");
    std::fs::write(&good, "0 1 100\n1 2 100\n2 3 100\n3 0 100\n").unwrap();
    drop_file(&mut h, &good);
    assert_eq!(h.state().model.error, None);
    assert_eq!(h.state().model.graph_name, "ring.txt");
    assert_eq!(h.state().model.graph.n(), 4);
    assert_eq!(h.state().settings.recent[0], good.display().to_string());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Opening a graph with more processes than the network has slots, or a
/// file that cannot be read, keeps the working graph, its mapping and the
/// comparison, and says why.
#[test]
fn a_file_that_does_not_fit_keeps_the_graph_mapping_and_comparison() {
    let mut h = harness();
    map_with(&mut h, "mht");
    h.state_mut().tab = Tab::Compare;
    h.state_mut().compare.chosen = ["default", "mht"].map(String::from).into();
    h.run_steps(1);
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, |a| !a.compare.busy() && a.compare.rows.len() == 2);
    let before = |a: &HopmapApp| {
        (
            a.model.graph_name.clone(),
            a.model.graph.generation(),
            a.model.mapping_label.clone(),
            a.model.mapping.clone(),
            a.model.eval.as_ref().map(|e| e.metrics.hop_bytes),
            a.compare.rows.len(),
        )
    };
    let kept = before(h.state());
    assert_eq!(kept.2, "mht");
    let slots = h.state().model.topo.num_slots();
    let spec = h.state().model.topo.spec();

    let dir = std::env::temp_dir().join(format!("hopmap-kittest-fit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A ring of one process more than the network has slots.
    let big = dir.join("too-big.txt");
    let n = slots + 1;
    let ring: String = (0..n)
        .map(|i| format!("{i} {} 100\n", (i + 1) % n))
        .collect();
    std::fs::write(&big, ring).unwrap();
    drop_file(&mut h, &big);
    h.run_steps(2);
    let err = h.state().model.error.clone().expect("an error is shown");
    assert!(
        err.starts_with(&format!(
            "too-big.txt: {n} processes do not fit in the {slots} slots of {spec}"
        )),
        "{err}"
    );
    assert!(err.contains("unchanged"), "{err}");
    h.get_by_label(&err);
    assert_eq!(before(h.state()), kept);
    assert_eq!(h.state().data.source_path, None);

    // A file that cannot be read: the same.
    let bad = dir.join("bad.mtx");
    std::fs::write(
        &bad,
        "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 x 5\n",
    )
    .unwrap();
    drop_file(&mut h, &bad);
    h.run_steps(2);
    let err = h.state().model.error.clone().expect("an error is shown");
    assert!(
        err.contains("bad.mtx") && err.contains("unchanged"),
        "{err}"
    );
    assert_eq!(before(h.state()), kept);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn clicking_a_compare_row_shows_that_mapping() {
    let mut h = harness();
    h.get_by_label("Compare").click();
    h.run_steps(2);
    for id in ["default", "random"] {
        h.get_by_role_and_label(Role::CheckBox, id).click();
        h.run_steps(1);
    }
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, |a| !a.compare.busy());
    h.get_by_label("random ›").click();
    h.run_steps(1);
    step_until(&mut h, |a| {
        !a.model.run.is_live() && a.model.mapping_label == "random"
    });
    let app = h.state();
    let row = app
        .compare
        .rows
        .iter()
        .find(|r| r.mapper == "random")
        .unwrap();
    let shown = &app.model.eval.as_ref().unwrap().metrics;
    assert_eq!(shown.hop_bytes, row.metrics.hop_bytes);
}

#[test]
fn pairs_parameter_controls_set_only_non_default_params() {
    let info = mappers::find("pairs").expect("the registry lost pairs");
    let mut h = harness();
    h.get_by_label("pairs").click();
    h.run_steps(2);
    assert_eq!(h.state().mapper.selected, "pairs");
    // Defaults are shown and nothing is passed.
    assert_eq!(h.state().mapper.params, "");
    let sweeps = info.param_spec("sweeps").unwrap();
    assert_eq!(h.state().mapper.value(sweeps), sweeps.default);
    h.get_by_label("sweeps").set_value_accesskit(5.0);
    h.run_steps(2);
    assert_eq!(h.state().mapper.params, "sweeps=5");
    assert_eq!(
        h.state().mapper.non_default_params(),
        vec![("sweeps".to_string(), "5".to_string())]
    );
    info.check_params(&h.state().mapper.non_default_params())
        .unwrap();
    // The range is enforced by the control.
    h.get_by_label("sweeps").set_value_accesskit(-3.0);
    h.run_steps(2);
    assert_eq!(h.state().mapper.params, "sweeps=0");
    // Back to the default value: nothing passed again.
    h.get_by_label("sweeps").set_value_accesskit(100.0);
    h.run_steps(2);
    assert_eq!(h.state().mapper.params, "");
    // Another mapper has its own parameters; pairs keeps its values.
    h.get_by_label("sweeps").set_value_accesskit(7.0);
    h.run_steps(2);
    h.get_by_label("mht").click();
    h.run_steps(2);
    assert_eq!(h.state().mapper.params, "");
    h.get_by_label("pairs").click();
    h.run_steps(2);
    assert_eq!(h.state().mapper.params, "sweeps=7");
    // (The button may be scrolled below the fixed action bar: the
    // accessibility click reaches it wherever it is.)
    h.get_by_label("Reset to defaults").click_accesskit();
    h.run_steps(2);
    assert_eq!(h.state().mapper.params, "");
}

/// Choose mapper `id` in the panel, press Map and wait for the mapping.
fn map_with(h: &mut Harness<'static, HopmapApp>, id: &str) {
    assert!(mappers::find(id).is_some(), "mapper {id} is not registered");
    h.get_by_label(id).click();
    h.run_steps(1);
    h.get_by_label("Map").click();
    h.run_steps(1);
    step_until(h, |a| !a.model.run.is_live() && a.model.mapping_label == id);
}

#[test]
fn network_link_filter_controls_set_the_filter_and_what_is_drawn() {
    use hopmap_app::network_view::LinkFilter;
    let mut h = harness();
    h.state_mut().tab = Tab::Network;
    // Uneven loads: map the sample (8x8x8 torus, 1536 links) randomly.
    map_with(&mut h, "random");
    // Auto shows every used link of a network this small.
    let used = h.state().network_view.stats().used;
    assert!(used > 0);
    assert_eq!(h.state().network_view.filter, LinkFilter::Auto);
    let passing = |a: &HopmapApp| {
        let s = a.network_view.stats();
        s.passing(s.threshold(a.network_view.filter, false))
    };
    assert_eq!(passing(h.state()), used);

    h.get_by_label("top %").click();
    h.run_steps(2);
    assert_eq!(h.state().network_view.filter, LinkFilter::TopPercent(5.0));
    let top = passing(h.state());
    assert!(
        top >= (used as f64 * 0.05).ceil() as usize && top < used,
        "{top} of {used}"
    );
    // The share is a slider.
    h.get_by_role_and_label(Role::Slider, "hottest")
        .set_value_accesskit(50.0);
    h.run_steps(2);
    assert_eq!(h.state().network_view.filter, LinkFilter::TopPercent(50.0));
    assert!(passing(h.state()) >= used / 2);

    h.get_by_label("≥ value").click();
    h.run_steps(2);
    let LinkFilter::AtLeast(t) = h.state().network_view.filter else {
        panic!("not a threshold: {:?}", h.state().network_view.filter);
    };
    let s = h.state().network_view.stats();
    assert_eq!(
        passing(h.state()),
        s.vals.iter().filter(|&&v| v >= t).count()
    );

    h.get_by_label("auto").click();
    h.run_steps(2);
    assert_eq!(h.state().network_view.filter, LinkFilter::Auto);
    assert_eq!(passing(h.state()), used);
}

#[test]
fn hottest_links_list_selects_and_frames_the_busiest_link() {
    let mut h = harness();
    h.state_mut().tab = Tab::Network;
    // Something with contention: MHT on the sample.
    map_with(&mut h, "mht");
    let view = &h.state().network_view;
    assert_eq!(view.resolved, Resolved::ThreeD);
    assert_eq!(view.selected_link, None);
    assert_eq!(view.cam.target, None);
    let hot = view.stats().hottest(HOTTEST_ROWS).to_vec();
    assert_eq!(hot.len(), HOTTEST_ROWS);
    // The list is ordered hottest first, and its first row is the busiest link.
    let s = view.stats();
    assert!(
        hot.windows(2)
            .all(|w| s.vals[w[0] as usize] >= s.vals[w[1] as usize])
    );
    assert_eq!(s.vals[hot[0] as usize], s.maxv);
    let dist_before = view.cam.dist;

    h.get_by_label_contains("#1 ").click();
    h.run_steps(2);
    let view = &h.state().network_view;
    let first = hot[0] as usize;
    assert_eq!(view.selected_link, Some(first));
    // Framed: the 3D camera looks at the link's midpoint from closer.
    assert_eq!(view.cam.target, view.link_mid(first));
    assert!(
        view.cam.dist < dist_before,
        "{} !< {dist_before}",
        view.cam.dist
    );

    // Another row selects another link.
    h.get_by_label_contains("#3 ").click();
    h.run_steps(2);
    let view = &h.state().network_view;
    assert_eq!(view.selected_link, Some(hot[2] as usize));
    assert_eq!(view.cam.target, view.link_mid(hot[2] as usize));

    // In the Z slices the same click pans the link to the centre.
    h.state_mut().network_view.mode = ViewMode::Slices;
    h.run_steps(2);
    assert_eq!(h.state().network_view.resolved, Resolved::Slices);
    h.get_by_label_contains("#1 ").click();
    h.run_steps(2);
    let view = &h.state().network_view;
    assert_eq!(view.selected_link, Some(first));
    assert!(view.cam.zoom2d >= 3.0);
}

/// Step frames until a label containing `text` is shown (`present`) or
/// gone (`!present`), at most 60 s.
fn wait_for_label(h: &mut Harness<'static, HopmapApp>, text: &str, present: bool) {
    let t0 = std::time::Instant::now();
    while h.query_by_label_contains(text).is_some() != present {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(60),
            "timed out waiting for {text:?} to be {}",
            if present { "shown" } else { "gone" }
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
        h.step();
    }
}

/// GPAW's k-point groups barely talk to each other: the graph view lays
/// them out apart, packed side by side, and says so under the layout's
/// status; unticking the control in Layout parameters lays the graph out
/// as one piece again.
#[test]
fn weakly_joined_groups_are_laid_out_apart_until_the_control_is_unticked() {
    let mut h = harness();
    let gpaw =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/captures/gpaw-si-96.mtx");
    drop_file(&mut h, &gpaw);
    assert_eq!(h.state().model.graph.n(), 96);
    h.state_mut().tab = Tab::Graph;
    h.run_steps(2);
    // A new graph's layout plays at once and pauses itself once it has
    // converged (sooner or later on a loaded machine); then play it again.
    wait_for_label(&mut h, "Play layout", true);
    h.get_by_label("Play layout").click();
    wait_for_label(&mut h, "4 groups laid out apart", true);
    h.get_by_label_contains("joined by at most 1 % of their bytes");
    h.get_by_label("Layout parameters").click();
    h.run_steps(2);
    h.get_by_label("lay out apart groups joined by at most")
        .click();
    h.run_steps(1);
    assert_eq!(h.state().graph_view.params.weak_cut, None);
    wait_for_label(&mut h, "groups laid out apart", false);
}
