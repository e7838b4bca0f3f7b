//! The fabric view driven headlessly through egui_kittest: choose a switch
//! fabric in the Network panel, map with a fabric mapper (BM when the
//! registry has it, else SM), and the metrics panel shows the weighted
//! cardinality (hop-bytes on a fabric) that the library's
//! `metrics::evaluate` gives for that mapping. Also: a fabric file that
//! does not exist leaves the network as it was with a message, mappers
//! that need a mesh/torus are disabled, and the fabric drawing is laid out
//! in its up*/down* levels and picks links from the hottest list.

use super::common::{harness, library_metrics, map_through_ui, step_until};
use egui_kittest::kittest::{NodeT, Queryable};
use hopmap_app::Tab;
use hopmap_app::draw::fmt_num;
use hopmap_core::mappers;
use hopmap_core::units::fmt_bytes;

/// The fabric mapper the test maps with: BM when registered, else SM.
fn fabric_mapper() -> &'static str {
    if mappers::find("bm").is_some() {
        "bm"
    } else {
        "sm"
    }
}

#[test]
fn choose_a_fabric_map_it_and_the_metrics_match_the_library() {
    let mut h = harness();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    assert_eq!(h.state().model.graph.n(), 256);

    // Network panel: switch fabric, Moh's default fabric (256 hosts).
    h.get_by_label("switch fabric").click();
    h.run_steps(1);
    let spec = "fabric:75,256,8,0.75,1";
    h.get_by_role_and_label(egui::accesskit::Role::Button, spec)
        .click();
    h.run_steps(2);
    let app = h.state();
    assert!(app.model.topo.as_fabric().is_some());
    assert_eq!(app.model.topo.spec(), spec);
    assert_eq!(app.model.topo.num_nodes(), 256);

    // A mapper that needs a grid is disabled on a fabric.
    let affn = h.get_by_label("affn");
    assert!(affn.accesskit_node().is_disabled());

    let id = fabric_mapper();
    map_through_ui(&mut h, id);

    // The same mapping through the library, and its weighted cardinality.
    let app = h.state();
    let want = library_metrics(app, id);
    let got = &app.model.eval.as_ref().unwrap().metrics;
    assert_eq!(got.hop_bytes, want.hop_bytes);
    assert!(want.hop_bytes > 0.0);
    let shown = fmt_num(want.hop_bytes);
    assert_eq!(h.query_all_by_label(&shown).count(), 2, "{shown}");

    // The fabric drawing: laid out off the UI thread in the up*/down* levels.
    h.state_mut().tab = Tab::Network;
    h.run_steps(1);
    step_until(&mut h, |a| a.network_view.fab.prep.is_some());
    let app = h.state();
    let f = app.model.topo.as_fabric().unwrap();
    let prep = app.network_view.fab.prep.as_ref().unwrap();
    assert_eq!(prep.layout.level_of, f.updown().level);
    assert_eq!(
        prep.layout.levels.iter().map(Vec::len).sum::<usize>(),
        f.num_switches()
    );
    assert_eq!(app.network_view.links().len(), f.switch_links().len());
    // Clicking a host (a real pointer click where it is drawn) selects it
    // and shows the routes of its processes' messages: exactly the channels
    // the routing gives for them.
    let host = {
        let app = h.state();
        let f = app.model.topo.as_fabric().unwrap();
        (0..f.num_hosts())
            .find(|&x| {
                app.network_view.fab.host_pos(f, x).is_some()
                    && app.model.node_of(0).is_some()
                    && app
                        .model
                        .placement
                        .iter()
                        .any(|s| s.is_some_and(|s| s as usize == x))
            })
            .expect("no host drawn")
    };
    let at = {
        let app = h.state();
        let f = app.model.topo.as_fabric().unwrap();
        app.network_view.fab.host_pos(f, host).unwrap()
    };
    h.hover_at(at);
    h.run_steps(1);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    h.run_steps(2);
    let app = h.state();
    assert_eq!(app.network_view.fab.selected_host, Some(host));
    let p = app.model.selected.expect("no process selected");
    assert_eq!(app.model.node_of(p), Some(host));
    let mut want = vec![false; app.model.topo.channel_slots()];
    let g = &app.model.graph;
    for q in (0..g.n()).filter(|&q| app.model.node_of(q) == Some(host)) {
        for (v, bytes, _) in g.edges_of(q) {
            let nv = app.model.node_of(v).unwrap();
            let back = g.sent_between(v, q);
            if bytes > 0.0 {
                app.model
                    .routing
                    .route(&app.model.topo, host, nv, bytes, &mut |c, _| want[c] = true);
            }
            if back > 0.0 {
                app.model
                    .routing
                    .route(&app.model.topo, nv, host, back, &mut |c, _| want[c] = true);
            }
        }
    }
    assert!(want.iter().any(|&x| x));
    assert_eq!(app.network_view.fab.host_route_channels(), &want[..]);

    // The hottest list names switch links and selects one.
    h.get_by_label_contains("#1 ").click();
    h.run_steps(2);
    let app = h.state();
    let top = app.network_view.stats().hottest(1)[0] as usize;
    assert_eq!(app.network_view.selected_link, Some(top));
}

#[test]
fn a_missing_fabric_file_keeps_the_network_and_says_why() {
    let mut h = harness();
    h.get_by_label("switch fabric").click();
    h.run_steps(1);
    // A fabric the 512-process sample fits on.
    h.get_by_label("fattree:16:3").click();
    h.run_steps(2);
    let before = h.state().model.topo.spec();
    assert_eq!(before, "fattree:16:3");
    h.get_by_label("file").click();
    h.run_steps(1);
    h.state_mut().network.fabric.path = "/nonexistent/ibnetdiscover.txt".into();
    h.get_by_label("ibnetdiscover").click();
    h.run_steps(1);
    h.get_by_label("Apply fabric").click();
    h.run_steps(2);
    let app = h.state();
    assert_eq!(app.model.topo.spec(), before);
    let err = app.model.error.clone().expect("no error shown");
    assert!(err.contains("/nonexistent/ibnetdiscover.txt"), "{err}");
    assert!(err.starts_with("file missing"), "{err}");
}

/// On a fabric, max_link_load counts the hosts' links, which the network
/// view does not draw: the Metrics panel shows the busiest link between
/// switches (the colour bar's top) and the busiest host link apart, each
/// as the library's evaluation gives it, and the drawing says so.
#[test]
fn the_fabric_max_load_is_split_into_the_drawn_switch_links_and_the_host_links() {
    let mut h = harness();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    h.get_by_label("switch fabric").click();
    h.run_steps(1);
    h.get_by_role_and_label(egui::accesskit::Role::Button, "fabric:75,256,8,0.75,1")
        .click();
    h.run_steps(2);
    map_through_ui(&mut h, fabric_mapper());

    // The library's evaluation of the mapping shown, channel by channel:
    // channels 0..2H are host links, the others join two switches.
    let app = h.state();
    let f = app.model.topo.as_fabric().unwrap();
    let e = hopmap_core::metrics::evaluate(
        &app.model.graph,
        &app.model.topo,
        app.model.mapping.as_ref().unwrap(),
        &app.model.routing,
    );
    let (mut sw, mut host) = (0.0f64, 0.0f64);
    for ch in 0..f.channel_slots() {
        let (a, b) = f.channel_ends(ch).unwrap();
        let (load, _) = e.links.get(ch);
        if a < f.num_hosts() || b < f.num_hosts() {
            host = host.max(load);
        } else {
            sw = sw.max(load);
        }
    }
    assert!(sw > 0.0 && host > 0.0, "{sw} {host}");
    assert_eq!(e.metrics.max_link_load, sw.max(host));
    let shown = |name: &str| {
        let s = h.state().ui_state();
        let m = s.metrics.iter().find(|m| m.name == name).cloned();
        m.unwrap_or_else(|| panic!("{name} not shown"))
    };
    assert_eq!(shown("max_link_load").value, sw.max(host));
    let s = shown("max_switch_link_load");
    assert_eq!((s.value, s.text.as_str()), (sw, fmt_bytes(sw).as_str()));
    let s = shown("max_host_link_load");
    assert_eq!((s.value, s.text.as_str()), (host, fmt_bytes(host).as_str()));
    h.get_by_label("busiest switch link");
    h.get_by_label("busiest host link");
    assert!(h.query_all_by_label(&fmt_bytes(sw)).count() >= 1);
    assert!(h.query_all_by_label(&fmt_bytes(host)).count() >= 1);

    // The drawing's colour bar tops at the busiest link between switches,
    // and its note names the host links it leaves out.
    h.state_mut().tab = Tab::Network;
    h.run_steps(1);
    step_until(&mut h, |a| a.network_view.fab.prep.is_some());
    assert_eq!(h.state().network_view.legend_range().1, sw);

    // Compared with random, the colour bar locks to the worst compared
    // mapping's busiest link between switches (the library's, per row),
    // not to a host link no drawing shows.
    h.state_mut().tab = Tab::Compare;
    h.state_mut().compare.chosen = ["default", "random"].map(String::from).into();
    h.run_steps(1);
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, |a| !a.compare.busy() && a.compare.rows.len() == 2);
    h.state_mut().tab = Tab::Network;
    h.run_steps(2);
    let app = h.state();
    let worst_switch = app
        .compare
        .rows
        .iter()
        .map(|r| {
            let e = hopmap_core::metrics::evaluate(
                &app.model.graph,
                &app.model.topo,
                &r.mapping,
                &app.model.routing,
            );
            let (l, _) = e
                .links
                .max_in(2 * f_hosts(app)..app.model.topo.channel_slots());
            assert_eq!(r.metrics.max_switch_link_load, Some(l));
            l
        })
        .fold(0.0, f64::max);
    assert_eq!(app.network_view.legend_range().1, worst_switch);
}

fn f_hosts(app: &hopmap_app::HopmapApp) -> usize {
    app.model.topo.as_fabric().unwrap().num_hosts()
}

/// The fabric drawing caches its links and its boxes apart: a new
/// placement that changes the link values but no host's colour (two
/// processes on hosts of different switches swapped) rebuilds the links
/// only; one that empties a host rebuilds the boxes too.
#[test]
fn new_link_values_rebuild_the_links_and_keep_the_boxes() {
    use hopmap_core::Topology;
    use hopmap_core::generate::{GenOptions, generate};
    use hopmap_core::mapping::Mapping;
    use hopmap_core::metrics::evaluate;
    let mut h = harness();
    let g = generate("stencil:8x8", &GenOptions::default()).unwrap();
    {
        let app = h.state_mut();
        app.model
            .set_topology(Topology::parse("fattree:8:3").unwrap());
        app.model.set_graph(g, "stencil:8x8");
        app.tab = Tab::Network;
    }
    // Process p on host 2p: 64 of the 128 hosts, spread over the switches.
    let apply = |h: &mut egui_kittest::Harness<'static, hopmap_app::HopmapApp>, hosts: &[u32]| {
        let app = h.state_mut();
        let m = Mapping::from_nodes(hosts.to_vec(), &app.model.topo).unwrap();
        let e = evaluate(&app.model.graph, &app.model.topo, &m, &app.model.routing);
        app.model.apply_mapping("test", m, e);
        h.run_steps(2);
    };
    let mut hosts: Vec<u32> = (0..64).map(|p| 2 * p).collect();
    apply(&mut h, &hosts);
    step_until(&mut h, |a| a.network_view.fab.prep.is_some());
    h.run_steps(2);
    let counts = |h: &egui_kittest::Harness<'static, hopmap_app::HopmapApp>| {
        let f = &h.state().network_view.fab;
        (f.link_rebuilds, f.box_rebuilds)
    };
    let (l0, b0) = counts(&h);
    assert!(l0 >= 1 && b0 >= 1, "nothing drawn: {l0} {b0}");
    let (f_sw, stats0) = {
        let app = h.state();
        let f = app.model.topo.as_fabric().unwrap();
        (
            (0..64).map(|p| f.switch_of(2 * p)).collect::<Vec<_>>(),
            app.network_view.stats().vals.clone(),
        )
    };
    // Swap the first process with one on another switch.
    let q = (1..64).find(|&q| f_sw[q] != f_sw[0]).unwrap();
    hosts.swap(0, q);
    apply(&mut h, &hosts);
    assert_ne!(h.state().network_view.stats().vals, stats0);
    assert_eq!(counts(&h), (l0 + 1, b0), "the boxes were rebuilt");
    // The first process moves to an empty host: that host's colour changes.
    hosts[0] = 1;
    apply(&mut h, &hosts);
    let (l2, b2) = counts(&h);
    assert_eq!(b2, b0 + 1);
    assert!(l2 > l0);
}
