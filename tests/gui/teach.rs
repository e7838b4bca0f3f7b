//! Teaching features driven through egui_kittest: the app opens on a
//! lesson; Next applies the next step; the guided log grows by one sentence
//! per Step; the glossary shows its eight terms; a workspace saved and
//! opened again gives the same graph, network and mapping (and a bad file
//! changes nothing), and keeps every compared mapping as a Compare row; an
//! SVG export of the network view is valid XML with one element per drawn
//! link and node, of the difference view one `<line>` per drawn link, of
//! the matrix one rectangle per non-empty cell (or bin), each with its
//! colour legend.

use egui::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use hopmap_app::export::{Format, ViewKind};
use hopmap_app::settings::Settings;
use hopmap_app::teach::BottomTab;
use hopmap_app::{GuiOptions, HopmapApp, Tab};
use hopmap_core::topology::Topology;
use std::time::{Duration, Instant};

/// The app as `hopmap gui` starts it without arguments.
fn harness_on_start() -> Harness<'static, HopmapApp> {
    let mut app = HopmapApp::new(Settings::default());
    app.apply_options(&GuiOptions::default()).unwrap();
    app.graph_view.playing = false;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1700.0, 1300.0))
        .build_eframe(move |_cc| app);
    h.run_steps(2);
    h
}

/// The app on the built-in sample (no lesson).
fn harness_plain() -> Harness<'static, HopmapApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1700.0, 1300.0))
        .build_eframe(|_cc| HopmapApp::new(Settings::default()));
    h.state_mut().graph_view.playing = false;
    h.run_steps(2);
    h
}

fn step_until(h: &mut Harness<'static, HopmapApp>, what: &str, done: impl Fn(&HopmapApp) -> bool) {
    let t0 = Instant::now();
    while !done(h.state()) {
        let m = &h.state().model;
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "timed out waiting for {what}: run {} error {:?} status {:?}",
            m.run.is_live(),
            m.error,
            m.status
        );
        std::thread::sleep(Duration::from_millis(5));
        h.step();
    }
    h.run_steps(2);
}

#[test]
fn the_app_opens_on_a_lesson_and_next_applies_the_next_step() {
    let mut h = harness_on_start();
    step_until(&mut h, "the first lesson step's mapping", |a| {
        !a.model.run.is_live() && a.model.mapping.is_some()
    });
    {
        let a = h.state();
        assert!(a.teach.lesson.open);
        assert_eq!((a.teach.lesson.lesson, a.teach.lesson.step), (0, 0));
        assert_eq!(a.model.graph_name, "stencil:8x8x8");
        assert_eq!(a.model.topo.spec(), "torus:8x8x8");
        assert_eq!(a.model.mapping_label, "default");
        // The lesson's claim, on real state: every byte travels one hop.
        let hb = a.model.eval.as_ref().unwrap().metrics.hop_bytes;
        assert_eq!(hb, a.model.graph.total_bytes());
    }
    h.get_by_label("A stencil on a torus of its own shape");

    h.get_by_label("Next").click();
    h.run_steps(1);
    step_until(&mut h, "step 2's mapping", |a| {
        !a.model.run.is_live() && a.model.mapping.is_some()
    });
    {
        let a = h.state();
        assert_eq!(a.teach.lesson.step, 1);
        assert_eq!(a.model.graph_name, "unstructured:512:3d");
        assert_eq!(a.model.topo.spec(), "torus:8x8x8");
        assert_eq!(a.model.mapping_label, "default");
        let hb = a.model.eval.as_ref().unwrap().metrics.hop_bytes;
        assert!(hb > 1.5 * a.model.graph.total_bytes(), "{hb}");
    }
    h.get_by_label("An unstructured mesh on the same torus");
    let default_hb = h.state().model.eval.as_ref().unwrap().metrics.hop_bytes;

    h.get_by_label("Next").click();
    h.run_steps(1);
    step_until(&mut h, "MHT's mapping", |a| {
        !a.model.run.is_live() && a.model.mapping_label == "mht"
    });
    let a = h.state();
    assert_eq!(a.teach.lesson.step, 2);
    assert_eq!(a.mapper.selected, "mht");
    let mht_hb = a.model.eval.as_ref().unwrap().metrics.hop_bytes;
    assert!(mht_hb < default_hb, "mht {mht_hb} vs default {default_hb}");

    // Back returns to the unstructured mesh with the default mapping.
    h.get_by_label("Back").click();
    h.run_steps(1);
    step_until(&mut h, "Back", |a| {
        !a.model.run.is_live() && a.model.mapping_label == "default"
    });
    assert_eq!(h.state().teach.lesson.step, 1);
    assert_eq!(
        h.state().model.eval.as_ref().unwrap().metrics.hop_bytes,
        default_hb
    );
}

#[test]
fn the_guided_log_grows_by_one_sentence_per_step() {
    let mut h = harness_plain();
    h.get_by_label("Guided log (0)").click();
    // Let the layout settle (the panel's first frames with the new tab).
    h.run_steps(3);
    h.get_by_role_and_label(Role::CheckBox, "guided mode")
        .click();
    h.run_steps(2);
    assert!(h.state().model.guided);
    h.get_by_label("mht").click();
    h.run_steps(1);
    for k in 1..=3 {
        h.get_by_label("Step").click();
        h.run_steps(1);
        step_until(&mut h, "a guided line", |a| a.teach.log.lines.len() >= k);
        let a = h.state();
        assert_eq!(a.teach.log.lines.len(), k, "one line per step");
        let l = a.teach.log.lines.back().unwrap();
        assert_eq!(l.step, k);
        if k == 1 {
            assert!(
                l.text.starts_with("MHT started with process "),
                "{}",
                l.text
            );
        } else {
            assert!(l.text.starts_with("MHT took process "), "{}", l.text);
        }
        assert!(
            l.text
                .ends_with("(Bhatele & Kale §IV, Heuristic 2, Algorithm 1)")
        );
    }
    // The sentence is on screen (as the log line's label).
    let last = h.state().teach.log.lines.back().unwrap().text.clone();
    h.get_by_label_contains(&last[..40]);
    // In a narrow window the line wraps, whole: its row is several lines
    // high and its label is the whole sentence, ending with the citation.
    h.set_size(egui::vec2(900.0, 1300.0));
    h.run_steps(3);
    let row = h.get_by_label_contains(&last[..40]);
    let label = row.accesskit_node().label().unwrap_or_default();
    assert!(label.ends_with("Algorithm 1)"), "{label}");
    let (rect, body) = (row.rect(), 14.0);
    assert!(rect.height() > 2.0 * body, "one row per line: {rect:?}");
    assert!(rect.width() < 900.0, "{rect:?}");
    h.set_size(egui::vec2(1700.0, 1300.0));
    h.run_steps(3);
    // Clicking a line shows its step in the views: the process it placed.
    let first = h.state().teach.log.lines[0].clone();
    h.get_by_label_contains(&format!("mht #1: {}", &first.text[..30]))
        .click();
    h.run_steps(1);
    let placed = match first.event {
        Some(hopmap_core::mappers::StepEvent::Placed { process, .. }) => process,
        e => panic!("{e:?}"),
    };
    assert_eq!(h.state().model.selected, Some(placed));
    assert_eq!(h.state().model.run.last_event(), first.event.as_ref());
}

#[test]
fn clicking_a_pairs_line_highlights_both_processes_of_the_swap() {
    let mut h = harness_plain();
    h.get_by_label("Guided log (0)").click();
    h.run_steps(3);
    h.get_by_role_and_label(Role::CheckBox, "guided mode")
        .click();
    h.run_steps(2);
    h.get_by_label("pairs").click();
    h.run_steps(1);
    // Start from RM (much to improve) and try one process per step, so a
    // step keeps at most one exchange.
    h.state_mut().mapper.set_value("from", "random");
    h.state_mut().mapper.set_value("batch", "1");
    h.run_steps(1);
    let mut swap = None;
    for k in 1..=40 {
        h.get_by_label("Step").click();
        h.run_steps(1);
        step_until(&mut h, "a guided line", |a| a.teach.log.lines.len() >= k);
        let a = h.state();
        assert_eq!(a.teach.log.lines.len(), k, "one line per step");
        let l = a.teach.log.lines.back().unwrap();
        assert_eq!(l.step, k);
        if k == 1 {
            assert!(l.text.starts_with("RM put each of the "), "{}", l.text);
            continue;
        }
        assert!(l.text.starts_with("PAIRS "), "{}", l.text);
        assert!(
            l.text
                .ends_with("(Bhatele & Kale §VII-B; Bokhari's pairwise exchange)"),
            "{}",
            l.text
        );
        if let Some(hopmap_core::mappers::StepEvent::Swaps { swapped, .. }) = &l.event
            && let [(p, q)] = swapped[..]
            && p != q
        {
            assert!(
                l.text
                    .starts_with(&format!("PAIRS swapped {p} and {q}: hop-bytes ")),
                "{}",
                l.text
            );
            swap = Some((k, p, q));
            if k >= 3 {
                break;
            }
        }
    }
    let (k, p, q) = swap.expect("a step that swapped two processes");
    // Click another line first, then the swap's: the views show the swap.
    h.get_by_label_contains("pairs #1: RM put each").click();
    h.run_steps(1);
    assert!(hopmap_app::guided_log::step_processes(&h.state().model).len() <= 4);
    h.get_by_label_contains(&format!("pairs #{k}: PAIRS swapped {p} and {q}"))
        .click();
    h.run_steps(1);
    let a = h.state();
    assert_eq!(a.teach.log.pinned, Some(k - 1));
    assert_eq!(
        hopmap_app::guided_log::step_processes(&a.model),
        vec![p, q],
        "both processes of the swap are ringed"
    );
    assert_eq!(a.model.selected, Some(p));
    // Both are placed, so the network view rings their two nodes.
    assert!(a.model.node_of(p).is_some() && a.model.node_of(q).is_some());
}

#[test]
fn the_glossary_shows_its_eight_terms() {
    let mut h = harness_plain();
    h.get_by_label("Glossary").click();
    h.run_steps(2);
    let terms = hopmap_core::glossary::GLOSSARY;
    assert_eq!(terms.len(), 8);
    for t in terms {
        assert!(h.query_all_by_label(t.term).count() >= 1, "{}", t.term);
        h.get_by_label(t.definition);
        assert!(h.query_all_by_label(t.seed).count() >= 1, "{}", t.seed);
    }
    for want in [
        "hop-bytes",
        "hops per byte",
        "dilation",
        "link load",
        "contention (flows on a channel)",
        "weighted cardinality",
        "up*/down*",
        "almost-legal",
    ] {
        assert!(h.query_all_by_label(want).count() >= 1, "{want}");
    }
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("hopmap-gui-teach-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn a_saved_workspace_reloads_equal() {
    let mut h = harness_plain();
    h.get_by_label("mesh-16x16").click();
    h.run_steps(2);
    h.get_by_label("torus:16x16").click();
    h.run_steps(2);
    h.get_by_label("mht").click();
    h.run_steps(1);
    h.get_by_label("Map").click();
    h.run_steps(1);
    step_until(&mut h, "MHT", |a| {
        !a.model.run.is_live() && a.model.mapping_label == "mht"
    });
    h.state_mut().tab = Tab::Network;
    h.run_steps(2);
    let p = tmp("round.hopmap");
    h.state_mut().save_workspace(&p).unwrap();
    let (n, targets, sent, topo, mapping, hb) = {
        let m = &h.state().model;
        (
            m.graph.n(),
            m.graph.targets().to_vec(),
            m.graph.sent().to_vec(),
            m.topo.spec(),
            m.mapping.clone().unwrap(),
            m.eval.as_ref().unwrap().metrics.hop_bytes,
        )
    };
    // Change everything, then open the workspace. (The left panel scrolled
    // to the mapper list; the accessibility click reaches the Data and
    // Network buttons wherever they are.)
    h.get_by_label("fft-8x8").click_accesskit();
    h.run_steps(2);
    h.get_by_label("torus:8x8x8").click_accesskit();
    h.state_mut().tab = Tab::Split;
    h.run_steps(2);
    assert_ne!(h.state().model.topo.spec(), topo);

    // A bad file: an error naming the line, and nothing changes.
    let bad = tmp("bad.hopmap");
    std::fs::write(&bad, "{\n  \"hopmap_workspace\": 1,\n  \"graph\": 7\n}\n").unwrap();
    let gen_before = h.state().model.graph.generation();
    let e = h.state_mut().load_workspace(&bad).unwrap_err();
    assert!(e.ends_with(":3: expected a hopmap workspace, found invalid type: integer `7`, expected internally tagged enum GraphSource") || e.contains(":3: expected a hopmap workspace, found "), "{e}");
    assert_eq!(h.state().model.graph.generation(), gen_before);
    assert_eq!(h.state().model.graph_name, "fft-8x8");

    let note = h.state_mut().load_workspace(&p).unwrap();
    assert!(note.is_none());
    h.run_steps(3);
    let a = h.state();
    let m = &a.model;
    assert_eq!(m.graph.n(), n);
    assert_eq!(m.graph.targets(), &targets[..]);
    assert_eq!(m.graph.sent(), &sent[..]);
    assert_eq!(m.graph_name, "mesh-16x16");
    assert_eq!(m.topo.spec(), topo);
    assert_eq!(m.mapping.as_ref(), Some(&mapping));
    assert_eq!(m.mapping_label, "mht");
    assert_eq!(m.eval.as_ref().unwrap().metrics.hop_bytes, hb);
    assert_eq!(a.tab, Tab::Network);
    assert_eq!(a.mapper.selected, "mht");
    // Saved again, the same file.
    let p2 = tmp("round2.hopmap");
    h.state_mut().save_workspace(&p2).unwrap();
    let w1 = hopmap_core::workspace::load(&p).unwrap();
    let w2 = hopmap_core::workspace::load(&p2).unwrap();
    assert_eq!(w1.graph, w2.graph);
    assert_eq!(w1.mappings, w2.mappings);
    assert_eq!(w1.topology, w2.topology);
}

#[test]
fn an_svg_export_has_one_element_per_drawn_link_and_node() {
    let mut h = harness_plain();
    let g = hopmap_core::generate::generate("stencil:4x4", &Default::default()).unwrap();
    {
        let a = h.state_mut();
        a.model.set_topology(Topology::parse("mesh:4x4").unwrap());
        a.model.set_graph(g, "stencil:4x4");
        a.tab = Tab::Network;
    }
    h.run_steps(3);
    let p = tmp("net.svg");
    h.state_mut()
        .request_export(ViewKind::Network, Format::Svg, p.clone());
    h.run_steps(2);
    let last = h.state().teach.export.last.clone();
    assert_eq!(last, Some(Ok(p.clone())));
    let text = std::fs::read_to_string(&p).unwrap();
    // Well-formed XML with an <svg> root; the mesh groups in drawing
    // order: the links, then the nodes.
    let mut r = quick_xml::Reader::from_str(&text);
    let mut depth = 0i32;
    let mut root = String::new();
    let mut groups: Vec<Vec<(String, String)>> = Vec::new();
    let mut in_group = false;
    loop {
        match r.read_event().unwrap() {
            quick_xml::events::Event::Start(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if depth == 0 {
                    root = name.clone();
                }
                if name == "g" {
                    groups.push(Vec::new());
                    in_group = true;
                }
                depth += 1;
            }
            quick_xml::events::Event::End(e) => {
                if e.name().as_ref() == b"g" {
                    in_group = false;
                }
                depth -= 1;
            }
            quick_xml::events::Event::Empty(e) if in_group => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let class = e
                    .try_get_attribute("class")
                    .unwrap()
                    .map(|a| String::from_utf8_lossy(&a.value).into_owned())
                    .unwrap_or_default();
                if let Some(g) = groups.last_mut() {
                    g.push((name, class));
                }
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(root, "svg");
    assert_eq!(depth, 0);
    // A 4×4 mesh: 24 links, each one <line>, then 16 nodes, each one
    // disc or square.
    assert!(groups.len() >= 2, "{text}");
    assert_eq!(groups[0].len(), 24, "{:?}", groups[0]);
    assert!(groups[0].iter().all(|(n, c)| n == "line" && c == "seg"));
    assert_eq!(groups[1].len(), 16, "{:?}", groups[1]);
    assert!(
        groups[1]
            .iter()
            .all(|(n, c)| (n == "circle" && c == "disc") || (n == "rect" && c == "square"))
    );
    let cap = h.state().teach.export.captured.clone().unwrap();
    assert!(cap.canvas.width() > 100.0);

    // PNG at 2×: twice the canvas.
    let p = tmp("net.png");
    h.state_mut()
        .request_export(ViewKind::Network, Format::Png2x, p.clone());
    h.run_steps(2);
    let img = image::open(&p).unwrap();
    let cap = h.state().teach.export.captured.clone().unwrap();
    assert_eq!(img.width(), (cap.canvas.width() * 2.0).round() as u32);
    assert_eq!(img.height(), (cap.canvas.height() * 2.0).round() as u32);
}

#[test]
fn a_guided_lesson_step_fills_the_log_with_the_layouts_sentences() {
    let mut h = harness_plain();
    let i = hopmap_core::lessons::LESSONS
        .iter()
        .position(|l| l.id == "bobrik-gravity")
        .unwrap();
    h.state_mut().open_lesson(i, 2).unwrap();
    h.run_steps(1);
    step_until(&mut h, "the guided steps", |a| {
        a.model.run.is_live() && !a.model.run.playing() && a.teach.log.lines.len() >= 10
    });
    let a = h.state();
    assert!(a.model.guided);
    // The lesson's text stays on screen; the newest sentences beside it.
    assert_eq!(a.teach.tab, BottomTab::Lesson);
    assert_eq!(a.model.run.id(), "gravity-greedy");
    let it: Vec<&str> = a
        .teach
        .log
        .lines
        .iter()
        .map(|l| l.text.as_str())
        .filter(|t| t.starts_with("layout iteration "))
        .collect();
    assert!(it.len() >= 9, "{:?}", a.teach.log.lines);
    assert!(it[0].contains("Bobrik & Popova §4"), "{}", it[0]);
    // The newest sentence is on screen, whole, beside the lesson text.
    let last = a.teach.log.lines.back().unwrap().clone();
    assert!(last.text.starts_with("layout iteration "), "{}", last.text);
    h.get_by_label(&format!("gravity-greedy #{}: {}", last.step, last.text));
    h.get_by_label_contains("Let the processes find their geometry");
}

#[test]
fn a_saved_workspace_keeps_every_compared_mapping() {
    let mut h = harness_plain();
    h.state_mut().tab = Tab::Compare;
    h.run_steps(2);
    h.state_mut().compare.chosen = ["default", "mht", "random"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    h.run_steps(1);
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, "the comparison", |a| {
        !a.compare.busy() && a.compare.rows.len() == 3
    });
    // Show MHT's row in the main views: the workspace saves it first.
    h.get_by_label("mht ›").click();
    h.run_steps(1);
    step_until(&mut h, "MHT shown", |a| {
        !a.compare.busy() && a.model.mapping_label == "mht"
    });
    let rows: Vec<(String, f64, hopmap_core::mapping::Mapping)> = h
        .state()
        .compare
        .rows
        .iter()
        .map(|r| (r.mapper.clone(), r.metrics.hop_bytes, (*r.mapping).clone()))
        .collect();
    let p = tmp("compared.hopmap");
    h.state_mut().save_workspace(&p).unwrap();
    let w = hopmap_core::workspace::load(&p).unwrap();
    let names: Vec<&str> = w.mappings.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(names[0], "mht");
    assert!(w.mappings.iter().all(|m| m.compare_seconds.is_some()));

    // A fresh app opens it: the Compare table has the same three rows with
    // the same hop-bytes (evaluated again), and MHT is shown.
    let mut h2 = harness_plain();
    h2.state_mut().load_workspace(&p).unwrap();
    h2.state_mut().tab = Tab::Compare;
    h2.run_steps(1);
    step_until(&mut h2, "the restored rows", |a| {
        !a.compare.busy() && a.compare.rows.len() == 3
    });
    let a = h2.state();
    assert_eq!(a.model.mapping_label, "mht");
    let back: Vec<(String, f64, hopmap_core::mapping::Mapping)> = a
        .compare
        .rows
        .iter()
        .map(|r| (r.mapper.clone(), r.metrics.hop_bytes, (*r.mapping).clone()))
        .collect();
    assert_eq!(back, rows);
    for (name, hb, _) in &rows {
        h2.get_by_label(&format!("{name} ›"));
        assert!(
            h2.query_all_by_label(&hopmap_app::draw::fmt_num(*hb))
                .next()
                .is_some(),
            "{name}'s hop-bytes are not shown"
        );
    }
    // Saved again: the same mappings.
    let p2 = tmp("compared2.hopmap");
    h2.state_mut().save_workspace(&p2).unwrap();
    assert_eq!(hopmap_core::workspace::load(&p2).unwrap().mappings.len(), 3);
}

/// An SVG file's root, and its groups in order: each group's class and its
/// elements as (name, class); and every `<text>`'s content.
type Groups = Vec<(String, Vec<(String, String)>)>;
fn parse_svg(text: &str) -> (String, Groups, Vec<String>) {
    use quick_xml::events::Event;
    let attr = |e: &quick_xml::events::BytesStart, k: &str| {
        e.try_get_attribute(k)
            .unwrap()
            .map(|a| String::from_utf8_lossy(&a.value).into_owned())
            .unwrap_or_default()
    };
    let mut r = quick_xml::Reader::from_str(text);
    let (mut depth, mut root) = (0i32, String::new());
    let mut groups: Groups = Vec::new();
    let mut texts = Vec::new();
    let (mut in_group, mut in_text) = (false, false);
    loop {
        match r.read_event().unwrap() {
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                if depth == 0 {
                    root = name.clone();
                }
                if name == "g" {
                    groups.push((attr(&e, "class"), Vec::new()));
                    in_group = true;
                }
                if name == "text" {
                    in_text = true;
                    texts.push(String::new());
                }
                depth += 1;
            }
            Event::Text(t) if in_text => {
                if let Some(s) = texts.last_mut() {
                    s.push_str(&String::from_utf8_lossy(t.as_ref()));
                }
            }
            Event::End(e) => {
                match e.name().as_ref() {
                    b"g" => in_group = false,
                    b"text" => in_text = false,
                    _ => {}
                }
                depth -= 1;
            }
            Event::Empty(e) if in_group => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let class = attr(&e, "class");
                if let Some(g) = groups.last_mut() {
                    g.1.push((name, class));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0);
    (root, groups, texts)
}

fn export_svg(h: &mut Harness<'static, HopmapApp>, view: ViewKind, name: &str) -> String {
    let p = tmp(name);
    h.state_mut().request_export(view, Format::Svg, p.clone());
    step_until(h, "the export", |a| a.teach.export.last.is_some());
    assert_eq!(h.state().teach.export.last.clone(), Some(Ok(p.clone())));
    std::fs::read_to_string(&p).unwrap()
}

#[test]
fn an_svg_export_of_the_matrix_has_one_rectangle_per_nonempty_cell() {
    // 16 processes: one cell per matrix entry; a 4×4 five-point stencil
    // sends along 24 edges, both ways: 48 non-empty entries.
    let mut h = harness_plain();
    let g = hopmap_core::generate::generate("stencil:4x4", &Default::default()).unwrap();
    {
        let a = h.state_mut();
        a.model.set_topology(Topology::parse("mesh:4x4").unwrap());
        a.model.set_graph(g, "stencil:4x4");
    }
    h.run_steps(2);
    let text = export_svg(&mut h, ViewKind::Matrix, "matrix.svg");
    assert_eq!(h.state().tab, Tab::Matrix);
    let (root, groups, texts) = parse_svg(&text);
    assert_eq!(root, "svg");
    let cells = &groups.iter().find(|g| g.0 == "cells").unwrap().1;
    assert_eq!(cells.len(), 48, "{cells:?}");
    assert!(cells.iter().all(|(n, c)| n == "rect" && c == "cell"));
    assert!(!text.contains("<image"));
    let legend = &groups.iter().find(|g| g.0 == "legend").unwrap().1;
    assert!(legend.iter().filter(|e| e.1 == "legend-step").count() >= 10);
    assert!(texts.iter().any(|t| t.contains("log scale")), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("16×16")), "{texts:?}");
    // PNG at 2×: the cells are drawn (the texture is no part of a capture).
    let p = tmp("matrix.png");
    h.state_mut()
        .request_export(ViewKind::Matrix, Format::Png2x, p.clone());
    step_until(&mut h, "the PNG", |a| a.teach.export.request.is_none());
    let img = image::open(&p).unwrap().to_rgb8();
    let cap = h.state().teach.export.captured.clone().unwrap();
    assert_eq!(img.width(), (cap.canvas.width() * 2.0).round() as u32);
    let lit = img
        .pixels()
        .filter(|px| px.0.iter().any(|&c| c > 120))
        .count();
    assert!(lit > 1000, "{lit} bright pixels");

    // 576 processes are drawn in 512 × 512 bins: one rectangle per
    // non-empty bin.
    let g = hopmap_core::generate::generate("stencil:24x24", &Default::default()).unwrap();
    {
        let a = h.state_mut();
        a.model.set_topology(Topology::parse("mesh:24x24").unwrap());
        a.model.set_graph(g, "stencil:24x24");
    }
    h.run_steps(2);
    let text = export_svg(&mut h, ViewKind::Matrix, "matrix-binned.svg");
    let (_, groups, texts) = parse_svg(&text);
    let mv = &h.state().matrix_view;
    assert_eq!(mv.cells_side(), 512);
    let cells = &groups.iter().find(|g| g.0 == "cells").unwrap().1;
    assert_eq!(cells.len(), mv.nonempty_cells());
    assert!(cells.len() > 1000);
    assert!(texts.iter().any(|t| t.contains("per bin")), "{texts:?}");
}

#[test]
fn an_svg_export_of_the_difference_has_one_line_per_drawn_link() {
    let mut h = harness_plain();
    let g = hopmap_core::generate::generate("stencil:4x4", &Default::default()).unwrap();
    {
        let a = h.state_mut();
        a.model.set_topology(Topology::parse("mesh:4x4").unwrap());
        a.model.set_graph(g, "stencil:4x4");
        a.tab = Tab::Compare;
    }
    h.run_steps(2);
    h.state_mut().compare.chosen = ["default", "random"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    h.run_steps(1);
    h.get_by_label("Run comparison").click();
    h.run_steps(1);
    step_until(&mut h, "the comparison", |a| {
        !a.compare.busy() && a.compare.rows.len() == 2
    });
    let text = export_svg(&mut h, ViewKind::Difference, "difference.svg");
    let (root, groups, texts) = parse_svg(&text);
    assert_eq!(root, "svg");
    // A 4×4 mesh: 24 links, one <line> each, in the first mesh group.
    let links = &groups.iter().find(|g| g.0 == "mesh").unwrap().1;
    assert_eq!(links.len(), 24, "{links:?}");
    assert!(links.iter().all(|(n, c)| n == "line" && c == "seg"));
    let legend = &groups.iter().find(|g| g.0 == "legend").unwrap().1;
    assert_eq!(legend.iter().filter(|e| e.1 == "legend-step").count(), 21);
    assert!(texts.iter().any(|t| t.starts_with('−')), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("blue: less")), "{texts:?}");
    let p = tmp("difference.png");
    h.state_mut()
        .request_export(ViewKind::Difference, Format::Png2x, p.clone());
    step_until(&mut h, "the PNG", |a| a.teach.export.request.is_none());
    assert!(image::open(&p).is_ok());
}
