//! The Compare view driven headlessly through egui_kittest: a comparison of
//! three mappers, side by side (two synced views with one colour scale, one
//! camera, one hover), the difference view's moved processes, labelled bar
//! charts, a row shown without a new run, a mapping file as a row, race
//! mode stepping two mappers in lockstep, race mode drawing three mappers'
//! curves, and four views following one camera. Every assertion reads the
//! app's real state or the text it shows.

use egui::{Pos2, vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap_app::compare_panel::CompareSub;
use hopmap_app::draw::fmt_num;
use hopmap_app::network_view::Picked;
use hopmap_app::settings::Settings;
use hopmap_app::{HopmapApp, Tab};
use hopmap_core::metrics::evaluate;
use std::time::{Duration, Instant};

const THREE: [&str; 3] = ["default", "mht", "random"];

fn harness() -> Harness<'static, HopmapApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1700.0, 1200.0))
        .build_eframe(|_cc| HopmapApp::new(Settings::default()));
    h.state_mut().graph_view.playing = false;
    h.state_mut().tab = Tab::Compare;
    h.run_steps(2);
    h
}

/// Step frames until `done` holds, at most 60 s.
fn step_until(h: &mut Harness<'static, HopmapApp>, what: &str, done: impl Fn(&HopmapApp) -> bool) {
    let t0 = Instant::now();
    while !done(h.state()) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what} (error {:?})",
            h.state().model.error
        );
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.run_steps(1);
}

/// Compare default, MHT and random through the UI's Run button.
fn compare_three(h: &mut Harness<'static, HopmapApp>) {
    h.state_mut().compare.chosen = THREE.iter().map(|s| s.to_string()).collect();
    h.run_steps(1);
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(h, "the comparison", |a| {
        !a.compare.busy() && a.compare.rows.len() == 3
    });
}

fn sub(h: &mut Harness<'static, HopmapApp>, title: &str) {
    h.get_by_label(title).click();
    h.run_steps(2);
}

#[test]
fn side_by_side_shares_one_scale_one_camera_and_the_hover() {
    let mut h = harness();
    compare_three(&mut h);
    sub(&mut h, "Side by side");
    assert_eq!(h.state().compare.sub, CompareSub::SideBySide);
    step_until(&mut h, "two panes", |a| a.compare.side.panes.len() == 2);
    h.run_steps(2);

    let app = h.state();
    let rows = &app.compare.rows;
    let side = &app.compare.side;
    // The two best rows, each in its own view with its own mapping.
    let names: Vec<&str> = side.panes.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(names, [rows[0].mapper.as_str(), rows[1].mapper.as_str()]);
    for (p, r) in side.panes.iter().zip(rows) {
        assert_eq!(p.model.mapping.as_ref(), Some(r.mapping.as_ref()));
        assert_eq!(
            p.model.eval.as_ref().unwrap().metrics.hop_bytes,
            r.metrics.hop_bytes
        );
        assert!(p.view.rebuilds >= 1, "{} was not drawn", p.label);
        // Its metrics line is on screen.
        let line = format!("hop-bytes {} (×", fmt_num(r.metrics.hop_bytes));
        assert!(
            h.query_by_label_contains(&line).is_some(),
            "no metrics line {line} for {}",
            p.label
        );
    }
    // ONE scale: up to the busiest link over both mappings (the library's
    // max link load of each row), from the lower of their thresholds.
    let (lo, hi) = side.scale().expect("a shared scale");
    let want_hi = rows[0]
        .metrics
        .max_link_load
        .max(rows[1].metrics.max_link_load);
    assert_eq!(hi, want_hi);
    assert!(rows[0].metrics.max_link_load != rows[1].metrics.max_link_load);
    for p in &side.panes {
        assert!(p.view.stats().maxv <= hi);
        assert!(lo <= p.view.stats().threshold(side.sync.filter, false));
    }

    // Rotating one view turns the one camera: both views are redrawn.
    let yaw0 = side.sync.cam.yaw;
    let before: Vec<u64> = side.panes.iter().map(|p| p.view.rebuilds).collect();
    let c = side.cells[1].center();
    h.drag_at(c);
    h.step();
    h.hover_at(c + vec2(80.0, 0.0));
    h.step();
    h.drop_at(c + vec2(80.0, 0.0));
    h.run_steps(2);
    let side = &h.state().compare.side;
    assert!(
        (side.sync.cam.yaw - yaw0).abs() > 0.3,
        "yaw {yaw0} -> {}",
        side.sync.cam.yaw
    );
    for (p, b) in side.panes.iter().zip(before) {
        assert!(p.view.rebuilds > b, "{} did not follow the camera", p.label);
    }

    // Hovering a node in the first view highlights it in all: the shared
    // hover names it, and both views are at the same place on screen.
    let v = 0;
    let at: Pos2 = side.panes[0].view.node_screen(v).unwrap();
    let at1 = side.panes[1].view.node_screen(v).unwrap();
    let off0 = at - side.cells[0].min;
    let off1 = at1 - side.cells[1].min;
    assert!((off0 - off1).length() < 0.5, "{off0:?} vs {off1:?}");
    h.hover_at(at);
    h.run_steps(3);
    let side = &h.state().compare.side;
    assert!(
        matches!(side.sync.hover, Some(Picked::Node(_))),
        "{:?}",
        side.sync.hover
    );
}

#[test]
fn difference_view_counts_the_processes_that_moved() {
    let mut h = harness();
    compare_three(&mut h);
    sub(&mut h, "Difference");
    step_until(&mut h, "the difference", |a| {
        a.compare.diff.panes.len() == 2
    });
    h.run_steps(2);
    let app = h.state();
    let d = &app.compare.diff;
    let rows = &app.compare.rows;
    // default against the best (when default is the best: the runner-up
    // against it).
    let want_a = if rows[0].mapper == "default" {
        rows[1].mapper.as_str()
    } else {
        "default"
    };
    assert_eq!(d.a, want_a);
    assert_eq!(d.b, rows[0].mapper);
    let ma = &rows.iter().find(|r| r.mapper == d.a).unwrap().mapping;
    let mb = &rows.iter().find(|r| r.mapper == d.b).unwrap().mapping;
    let want = (0..ma.len()).filter(|&p| ma.node[p] != mb.node[p]).count();
    assert_eq!(d.moved.len(), want);
    assert_eq!(ma.moved_processes(mb).len(), want);
    assert!(want > 0);
    // The count is on screen.
    assert!(
        h.query_by_label(&d.moved_text()).is_some(),
        "{}",
        d.moved_text()
    );
    assert!(d.moved_text().starts_with(&format!("{want} of 512")));
    // One delta per link of the network, with something changed.
    assert_eq!(d.delta.vals.len(), app.model.topo.links().len());
    assert!(d.delta.max_abs > 0.0);
    // Both hottest tables are shown.
    for p in &d.panes {
        assert!(
            h.query_by_label(&format!("Hottest links of {}", p.label))
                .is_some()
        );
    }
}

#[test]
fn charts_name_every_bar_best_first_with_ratios() {
    let mut h = harness();
    compare_three(&mut h);
    let app = h.state();
    let rows = &app.compare.rows;
    // Sorted by hop-bytes, best first.
    for w in rows.windows(2) {
        assert!(w[0].metrics.hop_bytes <= w[1].metrics.hop_bytes);
    }
    let best = rows[0].metrics.hop_bytes;
    let default = rows
        .iter()
        .find(|r| r.mapper == "default")
        .unwrap()
        .metrics
        .hop_bytes;
    for r in rows {
        let label = format!("hop_bytes bar {}:", r.mapper);
        let node = h.get_by_label_contains(&label);
        let text = format!("{node:?}");
        let x_best = format!("×{:.2} best", r.metrics.hop_bytes / best);
        let x_def = format!("×{:.2} default", r.metrics.hop_bytes / default);
        assert!(text.contains(&x_best), "{text} lacks {x_best}");
        assert!(text.contains(&x_def), "{text} lacks {x_def}");
        // The second chart names every bar too.
        h.get_by_label_contains(&format!("max_link_load bar {}:", r.mapper));
    }
}

#[test]
fn clicking_a_row_shows_it_without_a_new_run() {
    let mut h = harness();
    compare_three(&mut h);
    let row = h
        .state()
        .compare
        .rows
        .iter()
        .find(|r| r.mapper == "mht")
        .unwrap()
        .clone();
    assert_ne!(h.state().model.mapping_label, "mht");
    h.get_by_label("mht ›").click();
    // No mapper run starts at any frame; the kept mapping is shown.
    let t0 = Instant::now();
    loop {
        h.step();
        let m = &h.state().model;
        assert!(!m.run.is_live(), "clicking a row started a mapper run");
        if m.mapping_label == "mht" {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "not shown");
        std::thread::sleep(Duration::from_millis(5));
    }
    let m = &h.state().model;
    assert_eq!(m.mapping.as_ref(), Some(row.mapping.as_ref()));
    let want = evaluate(&m.graph, &m.topo, &row.mapping, &m.routing);
    assert_eq!(m.eval.as_ref().unwrap().metrics, want.metrics);
}

#[test]
fn a_mapping_file_is_a_row_and_can_be_shown_side_by_side() {
    let mut h = harness();
    compare_three(&mut h);
    let mht = h
        .state()
        .compare
        .rows
        .iter()
        .find(|r| r.mapper == "mht")
        .unwrap()
        .clone();
    // Another tool's mapping: one node index per line, in rank order.
    let dir = std::env::temp_dir().join(format!("hopmap-gui-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("other.map");
    let text: String = mht.mapping.node.iter().map(|n| format!("{n}\n")).collect();
    std::fs::write(&path, text).unwrap();
    {
        let app = h.state_mut();
        app.compare.load_mapping_file(&path, &app.model);
    }
    step_until(&mut h, "the loaded row", |a| {
        a.compare.rows.iter().any(|r| r.mapper == "file:other.map")
    });
    let app = h.state();
    let row = app
        .compare
        .rows
        .iter()
        .find(|r| r.mapper == "file:other.map")
        .unwrap();
    assert_eq!(row.metrics.hop_bytes, mht.metrics.hop_bytes);
    assert_eq!(row.mapping.node, mht.mapping.node);
    assert!(h.query_by_label("file:other.map ›").is_some());
    // Selectable in side by side like any other row.
    let rows = app.compare.rows.clone();
    {
        let app = h.state_mut();
        let names = vec!["file:other.map".to_string(), "random".to_string()];
        app.compare.sub = CompareSub::SideBySide;
        app.compare.side.choose(&names, &rows, &app.model);
    }
    step_until(&mut h, "the panes", |a| {
        a.compare.side.panes.len() == 2 && !a.compare.side.busy()
    });
    assert_eq!(h.state().compare.side.panes[0].label, "file:other.map");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn race_mode_steps_two_mappers_in_lockstep() {
    let mut h = harness();
    sub(&mut h, "Race");
    h.state_mut().compare.race.chosen = vec!["mht".into(), "bft".into()];
    h.run_steps(1);
    h.get_by_label("Start race").click();
    h.run_steps(1);
    assert_eq!(h.state().compare.race.lanes.len(), 2);
    step_until(&mut h, "20 steps each", |a| {
        a.compare.race.lanes.iter().all(|l| l.steps >= 20)
    });
    // The views show the newest snapshots within a few frames.
    h.run_steps(4);
    let race = &h.state().compare.race;
    // The same number of steps per tick: the lanes never drift apart.
    let s: Vec<usize> = race.lanes.iter().map(|l| l.steps).collect();
    assert!(s[0].abs_diff(s[1]) <= 1, "{s:?}");
    for (l, p) in race.lanes.iter().zip(&race.panes) {
        assert!(!l.curve.is_empty(), "{} has no curve", l.id);
        let placed = p.model.placement.iter().filter(|x| x.is_some()).count();
        assert!(placed >= 20, "{}: {placed} placed", l.id);
        assert!(p.view.rebuilds >= 1);
    }
    // The same time budget: both still step, many steps per tick (an MHT
    // step takes microseconds, the budget is 20 ms).
    let steps0: Vec<usize> = race.lanes.iter().map(|l| l.steps).collect();
    let ticks0 = race.ticks;
    {
        let r = &mut h.state_mut().compare.race;
        r.pace_steps = false;
        r.budget_ms = 20.0;
    }
    step_until(&mut h, "both lanes to step on a budget", |a| {
        a.compare
            .race
            .lanes
            .iter()
            .zip(&steps0)
            .all(|(l, &s0)| l.steps > s0 + 5 || l.done)
    });
    let race = &h.state().compare.race;
    let ticks = race.ticks - ticks0;
    let gained = race.lanes[0].steps - steps0[0];
    assert!(
        race.lanes[0].done || gained > 2 * ticks as usize,
        "{gained} steps in {ticks} ticks of 20 ms"
    );
    h.get_by_label("Stop race").click();
    h.run_steps(1);
    assert!(h.state().compare.race.lanes.is_empty());
}

#[test]
fn four_views_side_by_side_follow_one_camera() {
    let mut h = harness();
    let four = ["default", "mht", "random", "bft"];
    h.state_mut().compare.chosen = four.iter().map(|s| s.to_string()).collect();
    h.run_steps(1);
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, "the comparison", |a| {
        !a.compare.busy() && a.compare.rows.len() == 4
    });
    sub(&mut h, "Side by side");
    {
        let app = h.state_mut();
        let names: Vec<String> = four.iter().map(|s| s.to_string()).collect();
        let rows = app.compare.rows.clone();
        app.compare.side.choose(&names, &rows, &app.model);
    }
    step_until(&mut h, "four panes", |a| {
        a.compare.side.panes.len() == 4 && !a.compare.side.busy()
    });
    h.run_steps(2);
    let side = &h.state().compare.side;
    assert_eq!(side.cells.len(), 4);
    let yaw0 = side.sync.cam.yaw;
    let before: Vec<u64> = side.panes.iter().map(|p| p.view.rebuilds).collect();
    // Drag in the last view (bottom right of the 2 × 2 grid).
    let c = side.cells[3].center();
    h.drag_at(c);
    h.step();
    h.hover_at(c + vec2(-60.0, 20.0));
    h.step();
    h.drop_at(c + vec2(-60.0, 20.0));
    h.run_steps(2);
    let side = &h.state().compare.side;
    assert!((side.sync.cam.yaw - yaw0).abs() > 0.3);
    for (p, b) in side.panes.iter().zip(before) {
        assert!(p.view.rebuilds > b, "{} did not turn", p.label);
    }
    // Every view draws node 0 at the same place in its cell.
    let off = |i: usize| side.panes[i].view.node_screen(0).unwrap() - side.cells[i].min;
    for i in 1..4 {
        assert!((off(i) - off(0)).length() < 0.5, "view {i}");
    }
}

#[test]
fn race_mode_with_three_mappers_draws_three_curves() {
    let mut h = harness();
    sub(&mut h, "Race");
    let three = ["mht", "bft", "random"];
    h.state_mut().compare.race.chosen = three.iter().map(|s| s.to_string()).collect();
    h.run_steps(1);
    h.get_by_label("Start race").click();
    h.run_steps(1);
    assert_eq!(h.state().compare.race.lanes.len(), 3);
    step_until(&mut h, "every lane to step or finish", |a| {
        a.compare
            .race
            .lanes
            .iter()
            .all(|l| l.curve.len() >= 2 || (l.done && !l.curve.is_empty()))
    });
    h.run_steps(2);
    let race = &h.state().compare.race;
    // One curve per lane, each its mapper's own hop-bytes trace.
    let ids: Vec<&str> = race.lanes.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, three);
    for l in &race.lanes {
        assert!(!l.curve.is_empty(), "{} has no curve", l.id);
        assert!(
            l.curve.windows(2).all(|w| w[0][0] < w[1][0]),
            "{}: steps along the curve must grow",
            l.id
        );
    }
    // The plot drew the three curves.
    assert_eq!(race.plotted_curves, 3);
    // random places everything in one step: its value is held as a line
    // to the end of the race so far, not left as a dot.
    let random = &race.lanes[2];
    assert!(random.done && random.curve.len() == 1, "{:?}", random.curve);
    let x_end = race
        .lanes
        .iter()
        .map(|l| l.curve.last().unwrap()[0])
        .fold(0.0, f64::max);
    assert!(x_end > 1.0);
    assert!(
        race.held_lines.contains(&"random".to_string()),
        "{:?}",
        race.held_lines
    );
    for l in &race.lanes {
        let held = race.held_lines.contains(&l.id);
        assert_eq!(
            held,
            l.done && l.curve.last().unwrap()[0] < x_end,
            "{}",
            l.id
        );
    }
}

/// Side by side on a switch fabric: hovering a host (or a switch) in one
/// pane highlights the same host (switch) in the other, as on tori.
#[test]
fn side_by_side_on_a_fabric_shares_the_hover() {
    let mut h = harness();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    h.get_by_label("switch fabric").click();
    h.run_steps(1);
    h.get_by_role_and_label(egui::accesskit::Role::Button, "fabric:75,256,8,0.75,1")
        .click();
    h.run_steps(2);
    assert!(h.state().model.topo.as_fabric().is_some());
    compare_three(&mut h);
    sub(&mut h, "Side by side");
    step_until(&mut h, "two fabric panes laid out", |a| {
        a.compare.side.panes.len() == 2
            && a.compare
                .side
                .panes
                .iter()
                .all(|p| p.view.fab.prep.is_some())
    });
    h.run_steps(3);

    // A host with a process, drawn in both panes at the same place in its cell.
    let (host, at) = {
        let side = &h.state().compare.side;
        let f = side.panes[0].model.topo.as_fabric().unwrap();
        let host = (0..f.num_hosts())
            .find(|&x| {
                side.panes
                    .iter()
                    .all(|p| p.view.fab.host_pos(f, x).is_some())
            })
            .expect("a host drawn in both panes");
        let at0 = side.panes[0].view.fab.host_pos(f, host).unwrap();
        let at1 = side.panes[1].view.fab.host_pos(f, host).unwrap();
        let (off0, off1) = (at0 - side.cells[0].min, at1 - side.cells[1].min);
        assert!((off0 - off1).length() < 0.5, "{off0:?} vs {off1:?}");
        (host, at0)
    };
    h.hover_at(at);
    h.run_steps(3);
    let side = &h.state().compare.side;
    assert_eq!(side.sync.hover, Some(Picked::Node(host)));
    for p in &side.panes {
        assert_eq!(
            p.view.fab.painted_hover,
            Some(Picked::Node(host)),
            "{}",
            p.label
        );
    }
    // The pointer leaves: no pane keeps a highlight.
    h.hover_at(Pos2::new(2.0, 2.0));
    h.run_steps(3);
    let side = &h.state().compare.side;
    assert_eq!(side.sync.hover, None);
    assert!(
        side.panes
            .iter()
            .all(|p| p.view.fab.painted_hover.is_none())
    );
}

/// Tick or untick the side-by-side checkbox of `name`.
fn tick(h: &mut Harness<'static, HopmapApp>, name: &str) {
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, name)
        .click();
    h.run_steps(1);
    step_until(h, "the panes", |a| !a.compare.side.busy());
}

/// The x of each side-by-side checkbox on screen, left to right.
fn boxes_left_to_right(h: &Harness<'static, HopmapApp>) -> Vec<String> {
    let rows: Vec<String> = h
        .state()
        .compare
        .rows
        .iter()
        .map(|r| r.mapper.clone())
        .collect();
    let mut at: Vec<(f32, String)> = rows
        .into_iter()
        .map(|n| {
            let b = h.get_by_role_and_label(egui::accesskit::Role::CheckBox, &n);
            (b.rect().min.x, n)
        })
        .collect();
    at.sort_by(|a, b| a.0.total_cmp(&b.0));
    at.into_iter().map(|(_, n)| n).collect()
}

#[test]
fn side_by_side_panes_come_in_the_order_of_the_checkboxes() {
    let mut h = harness();
    compare_three(&mut h);
    sub(&mut h, "Side by side");
    step_until(&mut h, "two panes", |a| a.compare.side.panes.len() == 2);
    let order = boxes_left_to_right(&h);
    assert_eq!(order.len(), 3);
    // The two first are shown; tick in another order than the boxes': the
    // third, untick the first, tick it again (ticked last).
    assert_eq!(
        h.state().compare.side.chosen,
        order[..2].to_vec(),
        "the two first by default"
    );
    tick(&mut h, &order[2]);
    tick(&mut h, &order[0]);
    assert_eq!(h.state().compare.side.chosen, order[1..].to_vec());
    tick(&mut h, &order[0]);
    h.run_steps(2);
    let labels = |h: &Harness<'static, HopmapApp>| -> Vec<String> {
        h.state()
            .compare
            .side
            .panes
            .iter()
            .map(|p| p.label.clone())
            .collect()
    };
    assert_eq!(labels(&h), order, "panes in the boxes' order");
    // The first pane's mapping colours the processes.
    let app = h.state();
    let first = &app.compare.side.panes[0];
    assert_eq!(
        app.compare.side.colors(),
        &hopmap_app::side_by_side::reference_colors(
            &app.model.topo,
            &first.mapping,
            app.model.graph.n()
        )[..]
    );

    // Sorting the table the other way round reverses the boxes: the panes follow.
    sub(&mut h, "Table & charts");
    h.get_by_label("hop_bytes (asc)").click();
    h.run_steps(1);
    sub(&mut h, "Side by side");
    step_until(&mut h, "the panes", |a| !a.compare.side.busy());
    h.run_steps(2);
    let resorted = boxes_left_to_right(&h);
    assert_eq!(resorted[0], "random", "worst first: {resorted:?}");
    assert_ne!(resorted, order);
    assert_eq!(labels(&h), resorted);
}

/// The app at 1280×800 as `hopmap gui GRAPH --topology T --compare IDS --view V` opens it.
fn at_1280(graph: &str, topology: &str, ids: &str, view: &str) -> Harness<'static, HopmapApp> {
    let opts = hopmap_app::GuiOptions {
        graph: Some(graph.into()),
        topology: Some(topology.into()),
        compare: Some(ids.into()),
        view: Some(view.into()),
        ..Default::default()
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_eframe(move |_cc| {
            let mut app = HopmapApp::new(Settings::default());
            app.apply_options(&opts).expect("the options apply");
            app.graph_view.playing = false;
            app
        });
    h.run_steps(4);
    h
}

#[test]
fn difference_tables_show_each_hot_links_name_whole_at_1280() {
    let lj64 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/captures/lammps-lj-64.mtx"
    );
    for topo in ["fattree:8:3", "torus:4x4x4"] {
        let mut h = at_1280(lj64, topo, "default,sm,mht", "diff");
        step_until(&mut h, "the difference", |a| {
            a.compare.diff.panes.len() == 2 && !a.compare.diff.busy()
        });
        h.run_steps(3);
        let app = h.state();
        let small = egui::TextStyle::Small.resolve(&h.ctx.global_style());
        let central_right = 1280.0 - 340.0;
        let mut seen = 0;
        for p in &app.compare.diff.panes {
            for &i in p.view.stats().hottest(3) {
                let name = p.view.link_short_name(&p.model, i as usize);
                assert!(!name.contains('…') && name.contains(" – "), "{name}");
                if topo.starts_with("fattree") {
                    // Switch names as the fabric names them.
                    assert!(name.contains("leaf") || name.contains("agg"), "{name}");
                }
                let want = h.ctx.fonts_mut(|f| {
                    f.layout_no_wrap(name.clone(), small.clone(), egui::Color32::WHITE)
                        .size()
                });
                for node in h.get_all_by_label(&name) {
                    let r = node.rect();
                    let (w, ht) = (r.max.x - r.min.x, r.max.y - r.min.y);
                    // Inside the centre, and every line's width together
                    // hold the whole name: one line as wide as the text, or
                    // wrapped onto more lines; never elided.
                    assert!(r.max.x <= central_right, "{name}: {r:?}");
                    let lines = (ht / want.y).round().max(1.0);
                    assert!(
                        w * lines + 1.0 >= want.x,
                        "{name}: {w}×{lines} < {}",
                        want.x
                    );
                    assert!(lines <= 2.0, "{name} takes {lines} lines");
                    seen += 1;
                }
            }
        }
        assert!(seen >= 4, "{topo}: {seen} names found");
    }
}

#[test]
fn on_a_fabric_the_compare_charts_show_the_busiest_switch_link() {
    let lj64 = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/captures/lammps-lj-64.mtx"
    );
    let mut h = at_1280(lj64, "fattree:8:3", "default,sm,random", "compare");
    h.run_steps(2);
    let rows = h.state().compare.rows.clone();
    assert_eq!(rows.len(), 3);
    let loads: Vec<f64> = rows.iter().map(|r| r.metrics.max_link_load).collect();
    // The busiest link overall is a host link, the same under every mapper.
    assert!(loads.iter().all(|&l| l == loads[0]), "{loads:?}");
    for r in &rows {
        let sw = r.metrics.max_switch_link_load.expect("a fabric");
        assert!(sw < r.metrics.max_link_load);
        let want = format!(
            "max switch-to-switch link load bar {}: {}  ",
            r.mapper,
            hopmap_core::units::fmt_bytes(sw)
        );
        // A Label's text is its accesskit value.
        let note = format!(
            "(all links incl. hosts' {})",
            hopmap_core::units::fmt_bytes(r.metrics.max_link_load)
        );
        let bar = h.get_by_label_contains(&want);
        let text = egui_kittest::kittest::NodeT::accesskit_node(&bar)
            .value()
            .unwrap_or_default();
        assert!(text.starts_with(&want) && text.ends_with(&note), "{text}");
    }
    // The switch links tell these mappings apart.
    let sw: Vec<f64> = rows
        .iter()
        .map(|r| r.metrics.max_switch_link_load.unwrap())
        .collect();
    assert!(sw.iter().any(|&s| s != sw[0]), "{sw:?}");
}
