//! Every mapper runs through the one pipeline: `hopmap map` (the binary),
//! the comparison engine and the GUI's Map give the same mapping for every
//! registry entry, for an order-string id, for a parameterised run, and for
//! a coordinate mapper asked to infer its coordinates.

use hopmap_app::Model;
use hopmap_core::generate::{GenOptions, generate};
use hopmap_core::io::Format;
use hopmap_core::io::launcher::{HostNames, LauncherFormat, parse_mapping};
use hopmap_core::mappers;
use hopmap_core::{Mapping, Routing, Topology};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_hopmap");
const SEED: u64 = 3;

/// `hopmap map`'s mapping, with `--seed seed` when given.
fn cli_mapping(
    graph: &Path,
    spec: &str,
    id: &str,
    params: &[&str],
    seed: Option<u64>,
    out: &Path,
) -> Mapping {
    let mut args = vec![
        "map".to_string(),
        graph.display().to_string(),
        "--topology".into(),
        spec.into(),
        "--mapper".into(),
        id.into(),
        "-o".into(),
        out.display().to_string(),
    ];
    if let Some(seed) = seed {
        args.extend(["--seed".into(), seed.to_string()]);
    }
    for p in params {
        args.push("--param".into());
        args.push(p.to_string());
    }
    let o = Command::new(BIN).args(&args).output().unwrap();
    assert!(
        o.status.success(),
        "{id}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(out).unwrap();
    let topo = Topology::parse(spec).unwrap();
    parse_mapping(
        &text,
        out,
        &topo,
        LauncherFormat::Plain,
        &HostNames::default(),
    )
    .unwrap()
}

fn compare_mapping(
    g: &Arc<hopmap_core::CommGraph>,
    spec: &str,
    id: &str,
    params: &[&str],
) -> Mapping {
    let mut sel = mappers::resolve(id).unwrap();
    let user: Vec<(String, String)> = params
        .iter()
        .map(|p| mappers::parse_param(p).unwrap())
        .collect();
    sel.params = sel.with_params(&user).unwrap();
    let topo = Arc::new(Topology::parse(spec).unwrap());
    let cmp = hopmap_core::compare::compare(
        g.clone(),
        topo,
        &[sel],
        &Routing::Dor,
        SEED,
        &AtomicBool::new(false),
        &mut |_, _, _| {},
    )
    .unwrap();
    assert!(cmp.skipped.is_empty(), "{id}: {:?}", cmp.skipped);
    (*cmp.rows[0].mapping).clone()
}

fn gui_mapping(g: &hopmap_core::CommGraph, spec: &str, id: &str, params: &[&str]) -> Mapping {
    gui_mapping_seeded(g, spec, id, params, SEED)
}

/// The GUI model's mapping with the given seed.
fn gui_mapping_seeded(
    g: &hopmap_core::CommGraph,
    spec: &str,
    id: &str,
    params: &[&str],
    seed: u64,
) -> Mapping {
    let mut m = Model::new(g.clone(), "g", Topology::parse(spec).unwrap());
    m.start_map(id, seed, &params.join(", "));
    assert!(m.error.is_none(), "{id}: {:?}", m.error);
    let t0 = Instant::now();
    while m.run.is_live() {
        assert!(t0.elapsed() < Duration::from_secs(120), "{id}: timed out");
        m.poll_run();
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(m.error.is_none(), "{id}: {:?}", m.error);
    assert_eq!(m.mapping_label, mappers::resolve(id).unwrap().id);
    m.mapping.clone().unwrap()
}

#[test]
fn cli_compare_and_gui_give_the_same_mapping_for_every_mapper() {
    let dir = std::env::temp_dir().join(format!("hopmap-one-pipeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 64 processes with coordinates on 4×4×2 nodes × 2 cores (a full machine).
    let g = generate("stencil:4x4x4", &GenOptions::default()).unwrap();
    assert!(g.coords().is_some());
    let with = dir.join("with.mtx");
    hopmap_core::io::write_graph(&with, &g, Format::Mtx).unwrap();
    let coords = dir.join("with.xyz");
    let mut buf = Vec::new();
    hopmap_core::io::coords::write(&mut buf, g.coords().unwrap()).unwrap();
    std::fs::write(&coords, buf).unwrap();
    let spec = "torus:4x4x2:cores=2";
    let ga = Arc::new(g.clone());

    let mut cases: Vec<(String, Vec<&str>)> = mappers::registry()
        .iter()
        .filter(|i| match i.available() {
            Ok(()) => true,
            Err(why) => {
                // An external peer whose tool is not installed (scotch).
                eprintln!("skipped {}: {why}", i.id);
                false
            }
        })
        .map(|i| (i.id.to_string(), vec![]))
        .collect();
    cases.push(("ZYXT".into(), vec![]));
    cases.push(("pairs".into(), vec!["from=affn", "sweeps=3"]));
    cases.push(("mht".into(), vec!["find=spiral"]));
    for (id, params) in &cases {
        // Switch-fabric mappers run on the paper's example fabric instead.
        let spec = if id == "sm" || id == "bm" {
            "fabric:moh-fig2:job=all:cores=4"
        } else {
            spec
        };
        let out = dir.join(format!("{}.map", id.replace('+', "_")));
        // The binary reads the graph and its coordinates from files.
        let o = Command::new(BIN)
            .args([
                "map",
                with.to_str().unwrap(),
                "--coords",
                coords.to_str().unwrap(),
            ])
            .args([
                "--topology",
                spec,
                "--mapper",
                id,
                "--seed",
                &SEED.to_string(),
            ])
            .args(params.iter().flat_map(|p| ["--param", p]))
            .args(["-o", out.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(&out).unwrap();
        let topo = Topology::parse(spec).unwrap();
        let cli = parse_mapping(
            &text,
            &out,
            &topo,
            LauncherFormat::Plain,
            &HostNames::default(),
        )
        .unwrap();
        let cmp = compare_mapping(&ga, spec, id, params);
        let gui = gui_mapping(&g, spec, id, params);
        assert_eq!(cli, cmp, "{id}: CLI and compare differ");
        assert_eq!(cli, gui, "{id}: CLI and GUI differ");
    }

    // A coordinate mapper on a graph without coordinates, asked to infer them.
    let bare = g.clone().with_coords(None).unwrap();
    let without = dir.join("without.mtx");
    hopmap_core::io::write_graph(&without, &bare, Format::Mtx).unwrap();
    let bare_a = Arc::new(bare.clone());
    for id in ["affn", "coce+mht"] {
        let out = dir.join(format!("{id}-infer.map"));
        let cli = cli_mapping(&without, spec, id, &["coords=infer"], Some(SEED), &out);
        let cmp = compare_mapping(&bare_a, spec, id, &["coords=infer"]);
        let gui = gui_mapping(&bare, spec, id, &["coords=infer"]);
        assert_eq!(cli, cmp, "{id} coords=infer: CLI and compare differ");
        assert_eq!(cli, gui, "{id} coords=infer: CLI and GUI differ");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without a seed given, the GUI's mapper panel (fresh settings) and
/// `hopmap map` use the same seed, so a seeded mapper gives the same
/// mapping in both by default.
#[test]
fn the_gui_and_the_cli_default_to_the_same_seed() {
    let dir = std::env::temp_dir().join(format!("hopmap-default-seed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let g = generate("stencil:4x4x4", &GenOptions::default()).unwrap();
    let path = dir.join("g.mtx");
    hopmap_core::io::write_graph(&path, &g, Format::Mtx).unwrap();
    let spec = "torus:4x4x4";
    let cli = cli_mapping(&path, spec, "random", &[], None, &dir.join("random.map"));
    let panel =
        hopmap_app::mapper_panel::MapperPanel::new(&hopmap_app::settings::Settings::default());
    let gui = gui_mapping_seeded(&g, spec, "random", &[], panel.seed);
    assert_eq!(gui, cli, "default seeds differ");
    let _ = std::fs::remove_dir_all(&dir);
}
