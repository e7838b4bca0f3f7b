//! `hopmap map` and `hopmap compare`, run as the built binary on a small
//! generated graph: every launcher format is parsed back and compared with
//! the mapping the library computes; `compare --json` is parsed.

use hopmap_core::generate::{GenOptions, Neighbors, generate};
use hopmap_core::io::Format;
use hopmap_core::io::launcher::{HostNames, LauncherFormat, parse_mapping, parse_mpich_order};
use hopmap_core::mappers::{self, MapperInput};
use hopmap_core::{CommGraph, Mapping, Topology};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

const BIN: &str = env!("CARGO_BIN_EXE_hopmap");

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hopmap-cli-map-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A 6×6 full stencil (36 processes), written as MatrixMarket.
fn stencil_file(dir: &Path) -> (PathBuf, CommGraph) {
    let opts = GenOptions {
        neighbors: Neighbors::Full,
        ..GenOptions::default()
    };
    let g = generate("stencil:6x6", &opts).unwrap();
    let p = dir.join("stencil.mtx");
    hopmap_core::io::write_graph(&p, &g, Format::Mtx).unwrap();
    (p, g)
}

fn hopmap(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn library_mapping(g: CommGraph, topo: &Topology, id: &str) -> Mapping {
    let sel = hopmap_core::compare::resolve(id).unwrap();
    let mut input = MapperInput::new(Arc::new(g), Arc::new(topo.clone()), 0);
    input.params = sel.params;
    mappers::run(&sel.info, &input).unwrap()
}

#[test]
fn map_writes_every_format_and_they_parse_back() {
    let dir = scratch("formats");
    let (graph, g) = stencil_file(&dir);
    let spec = "torus:3x3x2:cores=2"; // 36 slots: a full machine
    let topo = Topology::parse(spec).unwrap();
    let hosts_file = dir.join("hosts");
    let names: Vec<String> = (0..topo.num_nodes()).map(|i| format!("cn{i:02}")).collect();
    std::fs::write(&hosts_file, names.join("\n") + "\n").unwrap();
    let hosts = HostNames::List(names);
    for mapper in ["TZXY", "cdl", "default"] {
        let want = library_mapping(g.clone(), &topo, mapper);
        want.validate(36, &topo).unwrap();
        for (fmt, flag) in [
            (LauncherFormat::Plain, "plain"),
            (LauncherFormat::Bgp, "bgp"),
            (LauncherFormat::Mpich, "mpich"),
            (LauncherFormat::Rankfile, "rankfile"),
        ] {
            let out = dir.join(format!("{mapper}.{flag}"));
            let stdout = ok(&hopmap(&[
                "map",
                graph.to_str().unwrap(),
                "--topology",
                spec,
                "--mapper",
                mapper,
                "-o",
                out.to_str().unwrap(),
                "--format",
                flag,
                "--hosts",
                hosts_file.to_str().unwrap(),
            ]));
            assert!(stdout.contains("hop_bytes"), "{stdout}");
            let text = std::fs::read_to_string(&out).unwrap();
            let back = parse_mapping(&text, &out, &topo, fmt, &hosts).unwrap();
            assert_eq!(back, want, "{mapper} {flag}");
            if fmt == LauncherFormat::Mpich {
                assert_eq!(
                    parse_mpich_order(&text, &out).unwrap(),
                    want.ranks_in_slot_order(&topo)
                );
            }
        }
    }
    // The summary reports the picked order for cdl.
    let out = dir.join("cdl.plain");
    let s = ok(&hopmap(&[
        "map",
        graph.to_str().unwrap(),
        "-t",
        spec,
        "-m",
        "cdl",
        "-o",
        out.to_str().unwrap(),
    ]));
    assert!(s.contains("picked order"), "{s}");
    // Default host pattern and stdout output.
    let s = ok(&hopmap(&[
        "map",
        graph.to_str().unwrap(),
        "-t",
        spec,
        "-m",
        "default",
        "--format",
        "rankfile",
        "--host-pattern",
        "n%03d",
    ]));
    assert!(
        s.starts_with("rank 0=n000 slot=0\nrank 1=n000 slot=1\n"),
        "{s}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn map_rejects_bad_input_with_a_message() {
    let dir = scratch("bad");
    let (graph, _) = stencil_file(&dir);
    for (args, needle) in [
        (
            vec!["-t", "torus:3x3x2:cores=2", "-m", "nosuch"],
            "unknown mapper",
        ),
        (vec!["-t", "mesh:6x6", "-m", "XYZT"], "dimension 3"),
        (vec!["-t", "mesh:3x3", "-m", "default"], "do not fit"),
    ] {
        let mut a = vec!["map", graph.to_str().unwrap()];
        a.extend(args);
        let o = hopmap(&a);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{needle}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// ibnetdiscover(8)'s example names every HCA `MT23108 InfiniHost
/// Mellanox Technologies`: the first words (the host names `map` takes from
/// a fabric) agree, so a rankfile would have put every rank on one host
/// `MT23108`, slot 0. Refused, with the way out; a pattern gives names.
#[test]
fn fabric_host_names_that_clash_are_refused() {
    let dir = scratch("clash");
    let g = dir.join("pair.txt");
    std::fs::write(&g, "0 1 5\n").unwrap();
    let topo = format!(
        "ibnetdiscover:{}/tests/data/ibnetdiscover-man.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let base = ["map", g.to_str().unwrap(), "-t", &topo, "-m", "default"];
    for f in ["rankfile", "slurm", "hydra"] {
        let o = hopmap(&[&base[..], &["--format", f]].concat());
        assert_eq!(o.status.code(), Some(1), "{f}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("the host name `MT23108` names nodes 0 and 1")
                && err.contains("--host-pattern"),
            "{f}: {err}"
        );
    }
    let s = ok(&hopmap(
        &[
            &base[..],
            &["--format", "rankfile", "--host-pattern", "h%d"],
        ]
        .concat(),
    ));
    assert_eq!(s, "rank 0=h0 slot=0\nrank 1=h1 slot=0\n");
    ok(&hopmap(&[&base[..], &["--format", "plain"]].concat()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same fabric with node descriptions as rdma-ndd sets them (`HOST
/// DEVICE`), the first two HCAs in one host `n1`: that host's slots are
/// its HCAs' cores in turn (2 cores per HCA), so the default mapping's
/// ranks 0 and 1 (first HCA) and 2 (second HCA) get slots 0, 1 and 2 of
/// `n1`, and Open MPI starts them on one machine.
#[test]
fn a_host_with_two_hcas_is_one_host_in_a_rankfile() {
    let dir = scratch("two-hcas");
    let man = std::fs::read_to_string(format!(
        "{}/tests/data/ibnetdiscover-man.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    // Each Ca record's description, by its GUID.
    let mut text = String::new();
    let mut desc = "";
    for line in man.lines() {
        if line.starts_with("caguid=") {
            desc = match line {
                "caguid=0x8f10403960984" => "n1 mlx5_0",
                "caguid=0x5442b100004900" => "n1 mlx5_1",
                "caguid=0x8f10403961354" => "n2 mlx5_0",
                _ => "n3 mlx5_0",
            };
        }
        let l = if line.starts_with("Ca\t") {
            line.replace("MT23108 InfiniHost Mellanox Technologies", desc)
        } else {
            line.to_string()
        };
        text.push_str(&l);
        text.push('\n');
    }
    let fabric = dir.join("two-hcas.txt");
    std::fs::write(&fabric, text).unwrap();
    let g = dir.join("pair.txt");
    std::fs::write(&g, "0 2 5\n").unwrap();
    let topo = format!("ibnetdiscover:{}:cores=2", fabric.display());
    let s = ok(&hopmap(&[
        "map",
        g.to_str().unwrap(),
        "-t",
        &topo,
        "-m",
        "default",
        "--format",
        "rankfile",
    ]));
    assert_eq!(s, "rank 0=n1 slot=0\nrank 1=n1 slot=1\nrank 2=n1 slot=2\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_json_has_the_keys_and_is_sorted() {
    let dir = scratch("compare");
    let (graph, _) = stencil_file(&dir);
    let o = hopmap(&[
        "compare",
        graph.to_str().unwrap(),
        "--topology",
        "torus:3x3x2:cores=2",
        "--mappers",
        "default,random,xyzt,TZXY,cdl",
        "--routing",
        "adaptive",
        "--json",
    ]);
    let s = ok(&o);
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 5);
    let keys = [
        "mapper",
        "seconds",
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
    for r in rows {
        for k in keys {
            assert!(r.get(k).is_some(), "missing {k} in {r}");
        }
        assert_eq!(r["routing"], "adaptive");
        assert_eq!(r.as_object().unwrap().len(), keys.len(), "{r}");
    }
    let hb: Vec<f64> = rows
        .iter()
        .map(|r| r["hop_bytes"].as_f64().unwrap())
        .collect();
    assert!(hb.windows(2).all(|w| w[0] <= w[1]), "{hb:?}");
    // Registry ids as registered; an order in capitals is reported as typed.
    let ids: Vec<&str> = rows.iter().map(|r| r["mapper"].as_str().unwrap()).collect();
    for id in ["default", "random", "xyzt", "TZXY", "cdl"] {
        assert!(ids.contains(&id), "{ids:?}");
    }
    // Unknown id: an error exit with the id named.
    let o = hopmap(&[
        "compare",
        graph.to_str().unwrap(),
        "-t",
        "torus:3x3x2:cores=2",
        "--mappers",
        "default,nosuch",
    ]);
    assert!(matches!(o.status.code(), Some(1) | Some(2)));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nosuch"));
    // A mapper that cannot run on the input is left out, with the reason;
    // `all` runs (or leaves out with a reason) every registered mapper.
    let o = hopmap(&[
        "compare",
        graph.to_str().unwrap(),
        "-t",
        "mesh:6x6",
        "--mappers",
        "default,XYZT",
        "--csv",
    ]);
    let csv = ok(&o);
    assert!(csv.starts_with(hopmap_core::report::CSV_HEADER), "{csv}");
    let mesh = ",mesh:6x6,dor,";
    assert!(
        csv.lines().any(|l| l.contains(&format!("{mesh}default,"))),
        "{csv}"
    );
    // The mapper left out is a line with its reason.
    assert!(
        csv.lines()
            .any(|l| l.contains(&format!("{mesh}XYZT,")) && l.contains("dimension 3")),
        "{csv}"
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("XYZT left out") && err.contains("dimension 3"),
        "{err}"
    );
    let o = hopmap(&[
        "compare",
        graph.to_str().unwrap(),
        "-t",
        "mesh:6x6",
        "--mappers",
        "all",
    ]);
    let table = ok(&o);
    let listed = |id: &str| {
        table
            .lines()
            .any(|l| l.get(2..).is_some_and(|r| r.starts_with(&format!("{id} "))))
            || table.contains(&format!("note: {id} left out"))
    };
    for m in hopmap_core::mappers::registry() {
        assert!(listed(m.id), "{} missing from\n{table}", m.id);
    }
    assert!(table.lines().any(|l| l.starts_with("* ")), "{table}");
    let _ = std::fs::remove_dir_all(&dir);
}
