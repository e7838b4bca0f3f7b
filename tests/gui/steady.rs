//! Controls stay where they are, and the app is idle when nothing moves,
//! driven through egui_kittest at real window sizes: at 1280×800 the Map,
//! Step and Play buttons are inside the window at one place for every
//! mapper (however many parameters it has); an error banner and a running
//! Map's progress bar do not move the panels; at 1024×700 the Metrics panel
//! starts collapsed and the View menu brings it back; lesson steps follow
//! PageDown/PageUp, the arrows and Space; a paused run asks for no frames;
//! without a desktop file dialog, the in-app chooser opens a typed path.

use super::common::step_until;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap_app::settings::Settings;
use hopmap_app::{GuiOptions, HopmapApp};
use hopmap_core::mappers;

fn harness_at(w: f32, h: f32) -> Harness<'static, HopmapApp> {
    let mut hn = Harness::builder()
        .with_size(egui::vec2(w, h))
        .build_eframe(|_cc| HopmapApp::new(Settings::default()));
    hn.state_mut().graph_view.playing = false;
    hn.run_steps(3);
    hn
}

fn rect_of(h: &Harness<'static, HopmapApp>, label: &str) -> egui::Rect {
    h.get_by_label(label).rect()
}

#[test]
fn map_step_play_stay_in_view_at_one_place_for_every_mapper() {
    let mut h = harness_at(1280.0, 800.0);
    let mut first: Option<[egui::Rect; 3]> = None;
    for info in mappers::registry() {
        // Disabled mappers (not on this network) cannot be selected.
        if h.state().mapper.fit.why(info.id).is_some() {
            continue;
        }
        h.state_mut().mapper.select(info.id);
        h.run_steps(2);
        let rects = [rect_of(&h, "Map"), rect_of(&h, "Step"), rect_of(&h, "Play")];
        for r in &rects {
            assert!(
                r.max.y <= 800.0 && r.min.y >= 0.0 && r.max.x <= 1280.0,
                "{}: {r:?} is outside 1280×800",
                info.id
            );
        }
        match &first {
            None => first = Some(rects),
            Some(f) => assert_eq!(f, &rects, "{} moved the buttons", info.id),
        }
    }
    assert!(first.is_some());
}

#[test]
fn an_error_banner_and_a_progress_bar_move_nothing() {
    let mut h = harness_at(1280.0, 800.0);
    let before = (rect_of(&h, "Map"), rect_of(&h, "Metrics"));
    h.state_mut().model.error =
        Some("a long error message that would once have pushed the window down".repeat(3));
    h.run_steps(2);
    assert!(h.query_by_label_contains("a long error message").is_some());
    assert_eq!((rect_of(&h, "Map"), rect_of(&h, "Metrics")), before);
    h.get_by_label("dismiss").click();
    h.run_steps(2);
    assert!(h.state().model.error.is_none());
    assert_eq!((rect_of(&h, "Map"), rect_of(&h, "Metrics")), before);
}

#[test]
fn a_narrow_window_collapses_the_metrics_panel_and_view_restores_it() {
    let mut h = harness_at(1024.0, 700.0);
    assert!(!h.state().menus.right_open);
    assert!(h.query_by_label("How good is this mapping?").is_none());
    // The centre is wide enough to use.
    let map = rect_of(&h, "Map");
    assert!(map.max.y <= 700.0);
    h.get_by_label("View").click();
    h.run_steps(3);
    h.get_by_label("Metrics panel").click();
    h.run_steps(3);
    assert!(h.state().menus.right_open);
    // The View menu names the zoom keys.
    h.get_by_label("View").click();
    h.run_steps(3);
    assert!(h.query_by_label_contains("Ctrl +").is_some());
}

#[test]
fn lesson_steps_follow_the_presentation_keys() {
    let mut app = HopmapApp::new(Settings::default());
    app.apply_options(&GuiOptions {
        lesson: Some("bobrik-gravity".into()),
        ..Default::default()
    })
    .unwrap();
    app.graph_view.playing = false;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .build_eframe(move |_cc| app);
    h.run_steps(2);
    assert_eq!(h.state().teach.lesson.step, 0);
    for (key, want) in [
        (egui::Key::PageDown, 1),
        (egui::Key::ArrowRight, 2),
        (egui::Key::PageUp, 1),
        (egui::Key::ArrowLeft, 0),
        (egui::Key::Space, 1),
    ] {
        h.key_press(key);
        h.run_steps(2);
        assert_eq!(h.state().teach.lesson.step, want, "{key:?}");
    }
}

#[test]
fn a_paused_run_asks_for_no_frames() {
    let mut h = harness_at(1280.0, 800.0);
    h.state_mut().mapper.select("mht");
    h.run_steps(1);
    h.get_by_label("Step").click();
    h.run_steps(1);
    step_until(&mut h, |a| {
        a.model.placement.iter().filter(|s| s.is_some()).count() == 1
    });
    assert!(h.state().model.run.is_live(), "paused mid-run");
    // A few frames to settle, then none is asked for.
    h.run_steps(3);
    assert!(!h.ctx.has_requested_repaint());
}

/// Play an iterative mapper, pause it mid-run, and let the frames settle:
/// no frame is asked for, in the split view (graph and network drawn).
fn pause_mid_run_is_idle(id: &str) {
    let mut h = harness_at(1280.0, 800.0);
    h.state_mut().tab = hopmap_app::Tab::Split;
    h.state_mut().model.speed = 1.0;
    h.state_mut().mapper.select(id);
    h.run_steps(1);
    h.get_by_label("Play").click();
    h.run_steps(1);
    step_until(&mut h, |a| {
        (a.model.run.playing() && a.model.run.progress().done >= 1) || !a.model.run.is_live()
    });
    assert!(h.state().model.run.playing(), "{id}: still playing");
    h.get_by_label("Pause").click();
    h.run_steps(2);
    assert!(h.state().model.run.is_live(), "{id}: paused mid-run");
    assert!(!h.state().model.run.playing(), "{id}");
    // The worker may publish the slice it was in: take it, then settle.
    std::thread::sleep(std::time::Duration::from_millis(150));
    h.run_steps(4);
    assert!(
        !h.ctx.has_requested_repaint(),
        "{id}: a paused run asks for frames: {:?}",
        h.ctx.repaint_causes()
    );
    // And a frame without input still asks for none.
    h.step();
    assert!(!h.ctx.has_requested_repaint(), "{id}");
}

#[test]
fn a_run_paused_while_playing_asks_for_no_frames() {
    for id in ["gravity", "cdl"] {
        pause_mid_run_is_idle(id);
    }
}

#[test]
fn the_in_app_chooser_opens_a_typed_path() {
    use hopmap_app::file_dialog::{Backend, Request};
    let dir = std::env::temp_dir().join(format!("hopmap-chooser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ring.txt");
    std::fs::write(&file, "0 1 10\n1 2 10\n2 3 10\n3 0 10\n").unwrap();
    let mut h = harness_at(1600.0, 1000.0);
    h.state_mut()
        .data
        .chooser
        .open_with(Request::open("Open a communication graph"), Backend::InApp);
    h.run_steps(2);
    h.state_mut().data.chooser.inapp.as_mut().unwrap().dir = dir.clone();
    h.run_steps(1);
    // The folder's file is listed; click it, then Open.
    h.get_by_label("ring.txt").click();
    h.run_steps(1);
    h.get_by_label("Open").click();
    h.run_steps(1);
    step_until(&mut h, |a| a.model.graph_name.contains("ring"));
    assert_eq!(h.state().model.graph.n(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With a lesson open at 1280×800 and at 1920×1080, the centre keeps a
/// usable width between the side panels, and the lesson's step title and
/// the first words of its text are on screen; at 1920×1080 the whole text.
#[test]
fn a_lesson_open_leaves_the_centre_usable_at_1280_and_1920() {
    for (w, ht, min_centre) in [(1280.0, 800.0, 600.0), (1920.0, 1080.0, 1200.0)] {
        let mut app = HopmapApp::new(Settings::default());
        app.apply_options(&GuiOptions {
            lesson: Some("balaji-tzxy".into()),
            ..Default::default()
        })
        .unwrap();
        app.graph_view.playing = false;
        let mut h = Harness::builder()
            .with_size(egui::vec2(w, ht))
            .build_eframe(move |_cc| app);
        h.run_steps(3);
        let (left, right) = (rect_of(&h, "Graph + Network"), rect_of(&h, "Metrics"));
        let centre = right.min.x - left.min.x;
        assert!(centre >= min_centre, "{w}×{ht}: centre {centre}");
        let lesson = hopmap_core::lessons::LESSONS
            .iter()
            .find(|l| l.id == "balaji-tzxy")
            .unwrap();
        let step = &lesson.steps[h.state().teach.lesson.step];
        let title = rect_of(&h, step.title);
        assert!(title.max.y <= ht && title.min.x >= left.min.x, "{title:?}");
        let words: String = step.text.chars().take(30).collect();
        let text = h.get_by_label_contains(&words).rect();
        assert!(
            text.min.y < ht && text.max.x <= right.min.x + 1.0,
            "{text:?}"
        );
        if ht >= 1080.0 {
            // The teaching panel grows to the whole step text.
            assert!(text.max.y <= ht, "{w}×{ht}: text ends at {}", text.max.y);
        }
    }
}

/// The app at `w`×`ht` with `mapper` run on lammps-lj-64 on `topo`.
fn mapped_at(topo: &str, mapper: &str, w: f32, ht: f32) -> Harness<'static, HopmapApp> {
    let mut app = HopmapApp::new(Settings::default());
    app.apply_options(&GuiOptions {
        graph: Some("lammps-lj-64".into()),
        topology: Some(topo.into()),
        mapper: Some(mapper.into()),
        ..Default::default()
    })
    .unwrap();
    app.graph_view.playing = false;
    let mut h = Harness::builder()
        .with_size(egui::vec2(w, ht))
        .build_eframe(move |_cc| app);
    h.run_steps(4);
    h
}

/// Every widget starting in `[lo, hi)` and between `top` and `ht` ends by
/// `hi`; returns how many there were.
fn assert_inside(
    h: &Harness<'static, HopmapApp>,
    [lo, hi]: [f32; 2],
    [top, ht]: [f32; 2],
    what: &str,
) -> usize {
    use egui_kittest::kittest::{By, NodeT};
    let mut seen = 0;
    for node in h.query_all(By::new().predicate(|n| n.bounding_box().is_some())) {
        let r = node.rect();
        if r.min.x < lo - 1.0 || r.min.x >= hi || r.min.y < top || r.min.y > ht || r.width() <= 0.0
        {
            continue;
        }
        seen += 1;
        assert!(
            r.max.x <= hi + 0.5,
            "{what}: {:?} ends at x = {} past {hi}",
            node.accesskit_node().label(),
            r.max.x
        );
    }
    seen
}

/// At 1280×800 and 1920×1080, on a torus and on a fabric, every text and
/// widget of the Metrics panel lies inside the window: nothing runs past
/// its right edge (the panel scrolls vertically only).
#[test]
fn the_metrics_panel_fits_its_width_on_a_torus_and_a_fabric() {
    for topo in ["torus:4x4x4", "fattree:8:3"] {
        for (w, ht) in [(1280.0, 800.0), (1920.0, 1080.0)] {
            // Worse than default: the longest sentence and bars.
            let h = mapped_at(topo, "random", w, ht);
            let m = rect_of(&h, "Metrics").min;
            let seen = assert_inside(&h, [m.x, w], [m.y, ht], &format!("{topo} at {w}×{ht}"));
            assert!(seen > 20, "{topo} at {w}×{ht}: {seen} widgets in the panel");
        }
    }
}

/// The left panel (Data, Network, Mapper) wraps its rows to its width: the
/// Generate… button and the fabric sources are not cut at its edge.
#[test]
fn the_left_panel_fits_its_width_on_a_torus_and_a_fabric() {
    for topo in ["torus:4x4x4", "fattree:8:3"] {
        let h = mapped_at(topo, "default", 1280.0, 800.0);
        // The panel's right edge: where the centre's first tab starts.
        let edge = rect_of(&h, "Graph + Network").min.x - 8.0;
        let top = rect_of(&h, "Data").min.y;
        let seen = assert_inside(&h, [0.0, edge], [top, 800.0], topo);
        assert!(seen > 20, "{topo}: {seen} widgets in the panel");
        assert!(rect_of(&h, "Generate…").max.x <= edge);
    }
}

/// Small text (the mappers' summaries, the hottest links, the panes'
/// figures) is drawn at a readable size, not egui's 9 pt.
#[test]
fn small_text_is_readable() {
    let h = harness_at(1280.0, 800.0);
    let info = mappers::find("default").unwrap();
    let r = h.get_by_label(info.name).rect();
    assert!(
        r.height() >= hopmap_app::hopmap_app::SMALL_TEXT_PT,
        "the summary {:?} is {} px high",
        info.name,
        r.height()
    );
}

/// "How good is this mapping?" names its rows apart when the mapping shown
/// is the baseline itself.
#[test]
fn the_default_mapping_shown_is_named_apart_from_the_baseline_row() {
    let mut app = HopmapApp::new(Settings::default());
    app.apply_options(&GuiOptions {
        graph: Some("lammps-lj-64".into()),
        topology: Some("torus:4x4x4".into()),
        mapper: Some("default".into()),
        ..Default::default()
    })
    .unwrap();
    app.graph_view.playing = false;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| app);
    h.run_steps(3);
    let shown = rect_of(&h, "default (shown)");
    assert!(shown.min.x >= rect_of(&h, "Metrics").min.x);
}

/// At 1280×800 on a fabric, in the Network view and in the split view, the
/// legend's note (its last line says how to click) ends above the panel
/// under the centre: the drawing gives the legend its whole wrapped height.
#[test]
fn the_network_legend_fits_its_view_at_1280_on_a_fabric() {
    for view in ["network", "split"] {
        let mut app = HopmapApp::new(Settings::default());
        app.apply_options(&GuiOptions {
            graph: Some("lammps-lj-64".into()),
            topology: Some("fattree:8:3".into()),
            mapper: Some("sm".into()),
            view: Some(view.into()),
            ..Default::default()
        })
        .unwrap();
        app.graph_view.playing = false;
        let mut h = Harness::builder()
            .with_size(egui::vec2(1280.0, 800.0))
            .build_eframe(move |_cc| app);
        let key = "click a node: its process's routes";
        for _ in 0..600 {
            if h.query_by_label_contains(key).is_some() {
                break;
            }
            h.run_steps(1);
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        h.run_steps(3);
        let note = h.get_by_label_contains(key).rect();
        // The centre's bottom panel (Lesson, Guided log, Glossary) starts
        // below the drawing.
        let below = rect_of(&h, "Glossary").min.y;
        let (left, right) = (rect_of(&h, "Graph + Network"), rect_of(&h, "Metrics"));
        assert!(
            note.max.y < below,
            "{view}: legend ends at {} past {below}",
            note.max.y
        );
        assert!(
            note.min.x >= left.min.x && note.max.x <= right.min.x,
            "{view}: {note:?}"
        );
    }
}

/// The network drawing keeps its place while the hottest-links list above
/// it empties (a run clears the placement) and fills again: nodes are drawn
/// at the same points, so the cached meshes stay valid.
#[test]
fn the_network_drawing_stays_put_while_the_hottest_list_empties() {
    let mut h = harness_at(1280.0, 800.0);
    h.state_mut().tab = hopmap_app::Tab::Network;
    h.run_steps(3);
    let at = |h: &Harness<'static, HopmapApp>| h.state().network_view.node_screen(0);
    let before = at(&h);
    assert!(before.is_some());
    assert!(!h.state().network_view.stats().hottest(10).is_empty());
    h.state_mut().model.clear_mapping();
    h.run_steps(2);
    assert!(h.state().network_view.stats().hottest(10).is_empty());
    assert_eq!(at(&h), before, "the drawing moved when the list emptied");
    h.state_mut().model.baseline();
    h.run_steps(2);
    assert!(!h.state().network_view.stats().hottest(10).is_empty());
    assert_eq!(at(&h), before);
}
