//! The whole CLI fed random input: random bytes as graph,
//! coordinates and mapping files, and random topology specs, through the
//! real binary. Every run must end with exit 0, 1 or 2 — no panic (101), no
//! abort or signal (an allocation failure under the address-space limit) —
//! within a time limit, and an error must be one line. Few cases, small
//! inputs: the whole file runs in seconds.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("hopmap-cli-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run hopmap under `prlimit --as=1GiB` with a 60 s limit; returns the exit
/// code (None = killed by a signal) and stderr.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new("prlimit")
        .arg(format!("--as={}", 1u64 << 30))
        .arg(env!("CARGO_BIN_EXE_hopmap"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("prlimit (util-linux) is needed for the CLI fuzz test");
    let t = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code(), err);
        }
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            return (None, format!("timed out: {args:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn check(args: &[&str]) -> Result<(), TestCaseError> {
    let (code, err) = run(args);
    prop_assert!(
        matches!(code, Some(0..=2)),
        "exit {code:?} for {args:?}: {err}"
    );
    prop_assert!(!err.contains("panicked"), "{args:?}: {err}");
    if code == Some(1) {
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
        prop_assert_eq!(errors.len(), 1, "{:?}: {}", args, err);
        prop_assert!(
            err.lines().last().unwrap_or("").starts_with("error: "),
            "{args:?}: {err}"
        );
    }
    Ok(())
}

/// Bytes that look like the inputs: digits, separators, newlines, format
/// keywords, and some noise.
fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => (0u64..300).prop_map(|v| v.to_string().into_bytes()),
        1 => (0u64..70000).prop_map(|v| v.to_string().into_bytes()),
        1 => Just(b"1e308".to_vec()),
        1 => Just(b"-1".to_vec()),
        1 => Just(b"0.5".to_vec()),
        3 => Just(b" ".to_vec()),
        3 => Just(b"\n".to_vec()),
        1 => Just(b",".to_vec()),
        1 => Just(b",,".to_vec()),
        1 => Just(b";".to_vec()),
        1 => Just(b"%%MatrixMarket matrix coordinate real general\n".to_vec()),
        1 => Just(b"graph {".to_vec()),
        1 => Just(b"}".to_vec()),
        1 => Just(b" -- ".to_vec()),
        1 => Just(b"[weight=".to_vec()),
        1 => Just(b"# hopmap mapping: 4 processes on torus:2x2; rank node core\n".to_vec()),
        1 => Just(b"#".to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ]
}

fn file_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(token(), 0..40).prop_map(|v| v.concat())
}

/// Topology specs: mostly valid and small, some large, some malformed.
fn topology() -> impl Strategy<Value = String> {
    let dims = prop::collection::vec(
        prop_oneof![8 => 1u32..9, 1 => Just(0u32), 1 => Just(16384u32), 1 => Just(70000u32)],
        1..4,
    );
    (
        prop_oneof![
            Just("mesh"),
            Just("torus"),
            Just("bgp"),
            Just("ring"),
            Just("")
        ],
        dims,
        prop_oneof![
            Just(""),
            Just(":cores=2"),
            Just(":cores=1024"),
            Just(":cores=0"),
            Just(":wrap=1")
        ],
    )
        .prop_map(|(kind, dims, tail)| {
            let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
            if kind == "bgp" {
                format!("bgp:{}", dims[0] as u64 * 512)
            } else {
                format!("{kind}:{}{tail}", d.join("x"))
            }
        })
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_files_and_specs_end_cleanly(
        graph in file_bytes(),
        mapping in file_bytes(),
        coords in file_bytes(),
        ext in prop_oneof![Just("txt"), Just("mtx"), Just("dot"), Just("graph"), Just("bin")],
        topo in topology(),
        k in 0usize..1000,
    ) {
        let d = dir();
        let g = d.join(format!("g{k}.{ext}"));
        let m = d.join(format!("m{k}.txt"));
        let c = d.join(format!("c{k}.xy"));
        std::fs::write(&g, &graph).unwrap();
        std::fs::write(&m, &mapping).unwrap();
        std::fs::write(&c, &coords).unwrap();
        let (g, m, c) = (path_str(&g), path_str(&m), path_str(&c));
        let out = d.join(format!("o{k}.txt"));
        let out = path_str(&out);
        check(&["info", g])?;
        check(&["info", g, "--coords", c, "--json"])?;
        check(&["eval", g, "--topology", &topo, "--mapping", m])?;
        check(&["map", g, "--topology", &topo, "--mapper", "mht", "-o", out])?;
        check(&["map", g, "--topology", &topo, "--mapper", "affn", "--param", "coords=infer", "-o", out])?;
        check(&["compare", g, "--topology", &topo, "--mappers", "default,bft,pairs,TZXY"])?;
        check(&["layout", g, "--iterations", "3", "-o", out])?;
        check(&["layout", g, "--init", c, "--iterations", "2"])?;
    }

    /// Valid generated graphs (random specs, some malformed) on random
    /// networks through every mapper.
    #[test]
    fn generated_graphs_on_random_networks_end_cleanly(
        kind in prop_oneof![Just("stencil"), Just("clusters"), Just("random-geometric"), Just("fft"), Just("nonsense")],
        a in 0u32..7,
        b in 0u32..7,
        topo in topology(),
        k in 0usize..1000,
    ) {
        let d = dir();
        let spec = match kind {
            "random-geometric" => format!("random-geometric:{}:{}", a * 8, b),
            "clusters" => format!("clusters:{a}x{b}"),
            _ => format!("{kind}:{a}x{b}"),
        };
        let g = d.join(format!("gen{k}.mtx"));
        let c = d.join(format!("gen{k}.xy"));
        let (g, c) = (path_str(&g), path_str(&c));
        check(&["generate", &spec, "-o", g, "--coords-out", c])?;
        if Path::new(g).exists() {
            check(&["compare", g, "--topology", &topo, "--mappers", "all"])?;
            check(&["map", g, "--coords", c, "--topology", &topo, "--mapper", "coce+mht", "--format", "bgp"])?;
        }
    }

    /// A small valid graph with coordinates of extreme size (±1e308, f32's
    /// edge, denormals) through the layout and the coordinate mappers.
    #[test]
    fn extreme_coordinates_end_cleanly(
        n in 1usize..12,
        xs in prop::collection::vec(
            prop_oneof![Just(0.0f64), Just(1.0), Just(-1.0), Just(1e308), Just(-1e308),
                        Just(3.4e38), Just(1e-300), Just(12345.5)],
            24,
        ),
        topo in topology(),
        k in 0usize..1000,
    ) {
        let d = dir();
        let g = d.join(format!("x{k}.txt"));
        let c = d.join(format!("x{k}.xy"));
        let edges: String = (1..n).map(|i| format!("{} {i} 3\n", i - 1)).collect();
        let edges = if edges.is_empty() { "0 0 1\n".to_string() } else { edges };
        std::fs::write(&g, edges).unwrap();
        let coords: String = (0..n).map(|i| format!("{} {}\n", xs[2 * i], xs[2 * i + 1])).collect();
        std::fs::write(&c, coords).unwrap();
        let (g, c) = (path_str(&g), path_str(&c));
        check(&["layout", g, "--init", c, "--iterations", "3"])?;
        check(&["compare", g, "--coords", c, "--topology", &topo, "--mappers", "affn,coce,coce+mht,gravity-greedy"])?;
    }
}

/// A 36-process job on a mesh of 2.1 million nodes: `recursive+refine`
/// and `grid` (whose rival it is) keep to the 1 GiB limit, as their memory
/// follows the job, not the machine (the dimension-tie runs, whose box
/// trees hold every box of the machine, are left out on machines of more
/// than `TIE_NODES_MAX` nodes).
#[test]
fn a_small_job_on_a_huge_mesh_keeps_to_the_memory_limit() {
    let d = dir();
    let g = d.join("huge-mesh.mtx");
    let g = path_str(&g);
    check(&["generate", "stencil:6x6", "-o", g]).unwrap();
    for m in ["recursive+refine", "grid"] {
        let out = d.join(format!("huge-mesh-{m}.map"));
        check(&[
            "map",
            g,
            "--topology",
            "mesh:5x70000x6",
            "--mapper",
            m,
            "-o",
            path_str(&out),
        ])
        .unwrap();
    }
}
