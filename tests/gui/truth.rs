//! Every number the app shows is the library's: the real UI (egui_kittest)
//! is driven through each view — Graph + Network, Graph, Network, Matrix,
//! Compare's table, side by side, difference and race — on a torus and on
//! a fat tree, and what the panels displayed ([`HopmapApp::ui_state`], the
//! same record `hopmap gui --state` writes) is checked against
//! `metrics::evaluate` and `hop_bound::lower_bound`: the mapping the Metrics
//! panel names, each figure's value and its text, the bound, the
//! histogram's labels, the colour legend's range, and every pane's numbers.

use super::common::{harness, map_through_ui, step_until};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use hopmap_app::compare_panel::CompareSub;
use hopmap_app::draw::fmt_num;
use hopmap_app::ui_state::UiState;
use hopmap_app::{HopmapApp, Tab};
use hopmap_core::hop_bound::lower_bound;
use hopmap_core::metrics::{Metrics, evaluate};
use hopmap_core::units::fmt_bytes;

fn figure<'a>(st: &'a UiState, name: &str) -> &'a hopmap_app::metrics_panel::Shown {
    st.metrics
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no figure {name} in {:?}", st.metrics))
}

/// The library's metrics of the mapping the app shows.
fn library(app: &HopmapApp) -> Metrics {
    let m = app.model.mapping.as_ref().expect("a complete mapping");
    evaluate(&app.model.graph, &app.model.topo, m, &app.model.routing).metrics
}

/// The Metrics panel's figures are the library's, with their texts.
fn check_panel(app: &HopmapApp, st: &UiState, view: &str) {
    let want = library(app);
    assert_eq!(st.shown_mapping, app.model.mapping_label, "{view}");
    let hb = figure(st, "hop_bytes");
    assert_eq!(hb.value, want.hop_bytes, "{view}");
    assert_eq!(hb.text, fmt_num(want.hop_bytes), "{view}");
    let ml = figure(st, "max_link_load");
    assert_eq!(ml.value, want.max_link_load, "{view}");
    assert_eq!(ml.text, fmt_bytes(want.max_link_load), "{view}");
    assert_eq!(figure(st, "max_dilation").value, want.max_dilation as f64);
    assert_eq!(
        figure(st, "max_link_flows").value,
        want.max_link_flows as f64
    );
    assert_eq!(
        figure(st, "avg_hops_per_byte").value,
        want.avg_hops_per_byte
    );
    assert_eq!(figure(st, "shown_hop_bytes").value, want.hop_bytes);
    // The bound: the library's, below every mapping shown.
    let lb = lower_bound(&app.model.graph, &app.model.topo);
    assert_eq!(st.lower_bound, lb, "{view}");
    assert_eq!(figure(st, "lower_bound").value, lb);
    assert!(
        lb <= want.hop_bytes,
        "{view}: bound {lb} > {}",
        want.hop_bytes
    );
    // The histogram: one labelled bin per distance, the bytes of each.
    for (h, &b) in want.hop_histogram_bytes.iter().enumerate() {
        let fabric = app.model.topo.as_fabric().is_some();
        let label = match (h, fabric) {
            (0, false) => "histogram: 0 hops: same node".to_string(),
            (0, true) => "histogram: 0 hops: same host or same switch".to_string(),
            (1, false) => "histogram: 1 hop".to_string(),
            (1, true) => "histogram: 1 switch hop".to_string(),
            (h, false) => format!("histogram: {h} hops"),
            (h, true) => format!("histogram: {h} switch hops"),
        };
        assert_eq!(figure(st, &label).value, b, "{view} {label}");
    }
}

fn set_view(h: &mut Harness<'static, HopmapApp>, tab: Tab, sub: Option<CompareSub>) {
    h.state_mut().tab = tab;
    if let Some(s) = sub {
        h.state_mut().compare.sub = s;
    }
    h.run_steps(3);
}

/// Map, compare three mappers, then walk every view.
fn walk_every_view(h: &mut Harness<'static, HopmapApp>, mapper: &str, others: [&str; 2]) {
    map_through_ui(h, mapper);
    set_view(h, Tab::Network, None);
    let st = h.state().ui_state();
    check_panel(h.state(), &st, "network, before comparing");
    // The own scale: the busiest drawn link; on a torus every channel is
    // drawn, so it is the max link load.
    let legend = st.legend.clone().expect("a legend");
    assert!(!legend.locked);
    if h.state().model.topo.as_grid().is_some() {
        assert_eq!(legend.to, library(h.state()).max_link_load);
    } else {
        assert!(legend.to <= library(h.state()).max_link_load);
    }

    // Compare the three (the worker's rows), then every view.
    let ids: Vec<String> = [mapper, others[0], others[1]]
        .iter()
        .map(|s| s.to_string())
        .collect();
    {
        let app = h.state_mut();
        let (seed, params) = (app.mapper.seed, app.mapper.params.clone());
        app.compare.start(&app.model, ids.clone(), seed, &params);
        app.compare.wait(&mut app.model);
    }
    h.run_steps(2);
    let rows = h.state().compare.rows.clone();
    assert_eq!(rows.len(), 3);
    let worst = rows
        .iter()
        .map(|r| r.metrics.max_link_load)
        .fold(0.0, f64::max);

    for (tab, key) in [
        (Tab::Split, "split"),
        (Tab::Graph, "graph"),
        (Tab::Network, "network"),
        (Tab::Matrix, "matrix"),
        (Tab::Compare, "compare"),
    ] {
        set_view(h, tab, Some(CompareSub::Table));
        let st = h.state().ui_state();
        assert_eq!(st.view, key);
        check_panel(h.state(), &st, key);
        if matches!(tab, Tab::Network | Tab::Split) {
            // While comparing, the single view's scale is locked to the
            // worst of the compared mappings.
            let legend = st.legend.clone().unwrap();
            assert!(legend.locked, "{key}");
            assert_eq!(legend.to, worst, "{key}");
        }
    }

    // Side by side, difference, race: each pane's numbers are its row's,
    // and the panel says what it describes.
    {
        let app = h.state_mut();
        let (seed, params) = (app.mapper.seed, app.mapper.params.clone());
        app.compare
            .open_sub("side", &mut app.model, &ids[..2], seed, &params);
    }
    set_view(h, Tab::Compare, None);
    step_until(h, |a| a.compare.side.panes.len() == 2);
    let st = h.state().ui_state();
    assert_eq!(st.view, "side");
    check_panel(h.state(), &st, "side");
    assert!(
        h.query_by_label_contains("each pane shows its own metrics")
            .is_some()
    );
    let mut pane_max: f64 = 0.0;
    for p in &st.panes {
        let row = rows.iter().find(|r| r.mapper == p.mapping).unwrap();
        let app = h.state();
        let want = evaluate(
            &app.model.graph,
            &app.model.topo,
            &row.mapping,
            &app.model.routing,
        );
        assert_eq!(p.hop_bytes, want.metrics.hop_bytes, "side {}", p.mapping);
        assert_eq!(p.max_link_load, want.metrics.max_link_load);
        pane_max = pane_max.max(want.metrics.max_link_load);
    }
    // One colour scale for both panes, to the busiest drawn link of either.
    let legend = st.legend.clone().expect("the shared legend");
    assert!(legend.locked);
    assert!(legend.to > 0.0 && legend.to <= pane_max);

    {
        let app = h.state_mut();
        let (seed, params) = (app.mapper.seed, app.mapper.params.clone());
        app.compare
            .open_sub("diff", &mut app.model, &ids[..2], seed, &params);
    }
    set_view(h, Tab::Compare, None);
    step_until(h, |a| a.compare.diff.panes.len() == 2);
    h.run_steps(2);
    let st = h.state().ui_state();
    assert_eq!(st.view, "diff");
    check_panel(h.state(), &st, "diff");
    // B − A, link by link, on both kinds of network.
    let app = h.state();
    let d = &app.compare.diff;
    let (a, b) = (d.panes[0].view.stats(), d.panes[1].view.stats());
    assert_eq!(d.delta.vals.len(), a.vals.len());
    for i in 0..a.vals.len() {
        assert_eq!(d.delta.vals[i], b.vals[i] - a.vals[i]);
    }
    let legend = st.legend.clone().unwrap();
    assert_eq!(
        (legend.from, legend.to),
        (-d.delta.max_abs, d.delta.max_abs)
    );

    set_view(h, Tab::Compare, Some(CompareSub::Race));
    let st = h.state().ui_state();
    assert_eq!(st.view, "race");
    check_panel(h.state(), &st, "race");
}

#[test]
fn every_view_shows_the_library_numbers_on_a_torus() {
    let mut h = harness();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    {
        let app = h.state_mut();
        let fresh = hopmap_app::network_panel::NetworkPanel::new(&app.model.topo);
        let mut net = std::mem::replace(&mut app.network, fresh);
        assert!(net.apply("torus:4x4x4:cores=4", &mut app.model));
        app.network = net;
    }
    h.run_steps(2);
    walk_every_view(&mut h, "mht", ["default", "random"]);
}

#[test]
fn every_view_shows_the_library_numbers_on_a_fat_tree() {
    let mut h = harness();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    {
        let app = h.state_mut();
        let fresh = hopmap_app::network_panel::NetworkPanel::new(&app.model.topo);
        let mut net = std::mem::replace(&mut app.network, fresh);
        assert!(net.apply("fattree:8:3:cores=2", &mut app.model));
        app.network = net;
    }
    h.run_steps(2);
    let st = h.state().ui_state();
    assert_eq!(st.hop, "switch-to-switch link");
    assert_eq!(st.zero_hops, "same switch");
    walk_every_view(&mut h, "sm", ["default", "random"]);
    // The bound on a fat tree: each edge switch holds 4 hosts × 2 cores, so
    // a process keeps its 7 heaviest partners 0 hops away at best; on a
    // 16×16 mesh (at most 4 partners) the bound is 0, and the panel says
    // multiples are of default's hop-bytes.
    let st = h.state().ui_state();
    assert_eq!(st.lower_bound, 0.0);
    assert!(h.query_by_label_contains("The bound is 0").is_some());
}

#[test]
fn a_network_too_small_keeps_the_graph_mapping_and_comparison() {
    let mut h = harness();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    let before = (
        h.state().model.topo.spec(),
        h.state().model.mapping_label.clone(),
        h.state().model.graph.n(),
    );
    {
        let app = h.state_mut();
        let fresh = hopmap_app::network_panel::NetworkPanel::new(&app.model.topo);
        let mut net = std::mem::replace(&mut app.network, fresh);
        assert!(!net.apply("torus:4x4", &mut app.model));
        app.network = net;
    }
    h.run_steps(2);
    let app = h.state();
    assert_eq!(
        (
            app.model.topo.spec(),
            app.model.mapping_label.clone(),
            app.model.graph.n()
        ),
        before
    );
    assert!(app.model.mapping.is_some());
    let e = app.model.error.clone().unwrap();
    assert!(e.contains("16 slots for 256 processes"), "{e}");
}
