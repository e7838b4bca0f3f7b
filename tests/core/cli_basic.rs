//! The foundation commands run as a user runs them: info, generate, eval.

use std::path::PathBuf;

use crate::common;
use common::hopmap;

fn tmp(name: &str) -> PathBuf {
    common::tmp_in("cli-basic", name)
}

#[test]
fn generate_info_eval_roundtrip() {
    let g = tmp("s.mtx");
    let c = tmp("s.xy");
    let (code, _, err) = hopmap(&[
        "generate",
        "stencil:16x16",
        "--neighbors",
        "full",
        "-o",
        g.to_str().unwrap(),
        "--coords-out",
        c.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = hopmap(&[
        "info",
        g.to_str().unwrap(),
        "--coords",
        c.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["processes"], 256);
    assert_eq!(v["edges"], 930);
    assert_eq!(v["coordinates"], 2);
    // Identity mapping, one node index per line.
    let m = tmp("id.map");
    std::fs::write(&m, (0..256).map(|i| format!("{i}\n")).collect::<String>()).unwrap();
    let (code, out, err) = hopmap(&[
        "eval",
        g.to_str().unwrap(),
        "--topology",
        "mesh:16x16",
        "--mapping",
        m.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    let mut want = vec![
        "processes",
        "edges",
        "total_bytes",
        "intra_node_bytes",
        "hop_bytes",
        "avg_hops_per_byte",
        "max_dilation",
        "max_link_load",
        "mean_link_load",
        "used_links",
        "max_link_flows",
        "mean_link_flows",
        "routing",
        "topology",
    ];
    want.sort();
    assert_eq!(keys, want);
    // 480 face pairs at 1 hop, 450 diagonal pairs at 2 hops, 2 KiB per pair.
    assert_eq!(v["hop_bytes"], (480.0 * 2048.0 + 450.0 * 2.0 * 2048.0));
    assert_eq!(v["max_dilation"], 2);
    assert_eq!(v["routing"], "dor");
    assert_eq!(v["topology"], "mesh:16x16");
}

#[test]
fn errors_name_the_line_and_exit_codes_follow_the_contract() {
    let g = tmp("bad.mtx");
    std::fs::write(
        &g,
        "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 5\n1 x 3\n",
    )
    .unwrap();
    let (code, _, err) = hopmap(&["info", g.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.mtx:4:"), "{err}");
    // Two processes on one slot: an error naming the line.
    let ok = tmp("ok.txt");
    std::fs::write(&ok, "0 1 10\n1 2 10\n").unwrap();
    let m = tmp("clash.map");
    std::fs::write(&m, "0\n1\n1\n").unwrap();
    let (code, _, err) = hopmap(&[
        "eval",
        ok.to_str().unwrap(),
        "--topology",
        "mesh:2x2",
        "--mapping",
        m.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("clash.map:3:"), "{err}");
    // A node past the topology.
    std::fs::write(&m, "0\n1\n7\n").unwrap();
    let (code, _, err) = hopmap(&[
        "eval",
        ok.to_str().unwrap(),
        "--topology",
        "mesh:2x2",
        "--mapping",
        m.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("clash.map:3:"), "{err}");
    // Usage errors exit 2.
    let (code, _, _) = hopmap(&["eval", "--no-such-flag"]);
    assert_eq!(code, 2);
    let (code, _, err) = hopmap(&[
        "eval",
        ok.to_str().unwrap(),
        "--topology",
        "ring:4",
        "--mapping",
        m.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    // --help everywhere.
    for sub in ["info", "generate", "eval"] {
        let (code, out, _) = hopmap(&[sub, "--help"]);
        assert_eq!(code, 0);
        assert!(out.contains("Usage"));
    }
}

#[test]
fn eval_reads_what_map_writes() {
    let g = tmp("m.mtx");
    let (code, _, err) = hopmap(&["generate", "stencil:8x8", "-o", g.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let out = tmp("m.plain");
    let (code, _, err) = hopmap(&[
        "map",
        g.to_str().unwrap(),
        "--topology",
        "torus:4x4:cores=4",
        "--mapper",
        "random",
        "--seed",
        "3",
        "-o",
        out.to_str().unwrap(),
        "--format",
        "plain",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, stdout, err) = hopmap(&[
        "eval",
        g.to_str().unwrap(),
        "--topology",
        "torus:4x4:cores=4",
        "--mapping",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["processes"], 64);
    assert!(v["hop_bytes"].as_f64().unwrap() > 0.0);
}

#[test]
fn infer_coords_lets_coordinate_mappers_run() {
    let g = tmp("nocoords.mtx");
    let (code, _, err) = hopmap(&["generate", "stencil:8x8", "-o", g.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // Without coordinates, `all` leaves affn out and says why.
    let (code, out, err) = hopmap(&[
        "compare",
        g.to_str().unwrap(),
        "-t",
        "mesh:8x8",
        "--mappers",
        "affn,mht",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1, "{out}");
    assert!(err.contains("affn"), "{err}");
    // With --infer-coords the layout supplies them and says so.
    let (code, out, err) = hopmap(&[
        "compare",
        g.to_str().unwrap(),
        "-t",
        "mesh:8x8",
        "--mappers",
        "affn,mht",
        "--json",
        "--infer-coords",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("inferred"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ids: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["mapper"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"affn") && ids.contains(&"mht"), "{ids:?}");
}
