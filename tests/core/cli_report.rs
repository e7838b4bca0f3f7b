//! `hopmap compare --report DIR` and the `scotch` mapper, run as a user runs
//! them.

use std::path::PathBuf;
use std::process::Command;

use crate::common;
use common::hopmap;

fn tmp(name: &str) -> PathBuf {
    common::tmp_in("cli-report", name)
}

#[test]
fn a_report_covers_every_graph_topology_and_mapper() {
    let a = tmp("a.mtx");
    let b = tmp("b.mtx");
    for (spec, p) in [("stencil:4x4", &a), ("fft:4x4", &b)] {
        let (code, _, err) = hopmap(&["generate", spec, "-o", p.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
    }
    let dir = tmp("report");
    let (code, out, err) = hopmap(&[
        "compare",
        a.to_str().unwrap(),
        "--graph",
        b.to_str().unwrap(),
        "--topology",
        "torus:4x4",
        "-t",
        "mesh:4x4",
        "-t",
        "mesh:2x2:cores=4",
        "--mappers",
        "default,mht,TZXY",
        "--report",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("6 cases"), "{out}");
    let csv = std::fs::read_to_string(dir.join("runs.csv")).unwrap();
    // 2 graphs × 3 topologies × 2 mappers that fit every 2D grid; TZXY
    // needs a Z axis and is left out of every case: a line each, with its
    // reason in the last column and no metrics.
    assert_eq!(csv.lines().count(), 1 + 12 + 6, "{csv}");
    let tzxy: Vec<&str> = csv.lines().filter(|l| l.contains(",TZXY,")).collect();
    assert_eq!(tzxy.len(), 6, "{csv}");
    assert!(tzxy.iter().all(|l| !l.ends_with(',')), "{csv}");
    assert!(err.contains("TZXY left out"), "{err}");
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for k in 1..=6 {
        for m in ["hop_bytes", "max_link_load", "max_link_flows", "seconds"] {
            for ext in ["svg", "png"] {
                let f = format!("case{k}-{m}.{ext}");
                assert!(dir.join(&f).exists(), "{f}");
                assert!(html.contains(&f), "{f}");
            }
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runs.json")).unwrap()).unwrap();
    assert_eq!(json["runs"].as_array().unwrap().len(), 12);
    // Lists without --report are refused; the single form still works.
    let (code, _, err) = hopmap(&[
        "compare",
        a.to_str().unwrap(),
        "-t",
        "torus:4x4",
        "-t",
        "mesh:4x4",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--report"), "{err}");
    let (code, out, _) = hopmap(&[
        "compare",
        a.to_str().unwrap(),
        "-t",
        "torus:4x4",
        "--mappers",
        "default",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("default"));
}

#[test]
fn scotch_maps_from_the_command_line_or_says_how_to_install_it() {
    let a = tmp("s.mtx");
    let (code, _, err) = hopmap(&["generate", "stencil:4x4x4", "-o", a.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let out = tmp("s.map");
    let (code, stdout, err) = hopmap(&[
        "map",
        a.to_str().unwrap(),
        "--topology",
        "torus:4x4x2:cores=2",
        "--mapper",
        "scotch",
        "-o",
        out.to_str().unwrap(),
    ]);
    if hopmap_core::mappers::scotch::available().is_err() {
        assert_eq!(code, 1);
        assert!(err.contains("apt-get install scotch"), "{err}");
        eprintln!("skipped the real scotch_gmap run: it is not on PATH (apt-get install scotch)");
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("numbering checked"), "{stdout}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 64);
}

#[test]
fn without_scotch_on_path_the_mapper_says_how_to_install_it() {
    let a = tmp("p.mtx");
    let (code, _, err) = hopmap(&["generate", "stencil:4x4", "-o", a.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let run = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_hopmap"))
            .args(args)
            .env("PATH", "/nonexistent-hopmap-test")
            .output()
            .unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let p = a.to_str().unwrap();
    let (code, _, err) = run(&["map", p, "-t", "torus:4x4", "--mapper", "scotch"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("scotch_gmap is not on PATH") && err.contains("apt-get install scotch"),
        "{err}"
    );
    // compare leaves it out with the same reason and runs the others.
    let (code, out, _) = run(&[
        "compare",
        p,
        "-t",
        "torus:4x4",
        "--mappers",
        "default,scotch",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("scotch left out") && out.contains("apt-get install scotch"),
        "{out}"
    );
}
