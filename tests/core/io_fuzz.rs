//! Robustness of every reader: random bytes and mutated valid files (bytes
//! flipped, inserted, deleted) are fed to `parse_graph` with every format
//! forced and with detection, to `parse_coords`, to `parse_mapping` and to
//! every launcher file parser (`io::launcher::parse_mapping`).
//! Nothing may panic, and every failure must be a one-line
//! `PATH:LINE: message` parse error.

use hopmap_core::io::launcher::{self, HostNames, LauncherFormat};
use hopmap_core::io::{self, Format, ReadOptions};
use hopmap_core::{Error, Topology};
use proptest::prelude::*;
use std::path::Path;

const SAMPLES: &[(&str, &[u8])] = &[
    (
        "a.mtx",
        b"%%MatrixMarket matrix coordinate real general\n% comment\n4 4 5\n1 2 10\n2 1 4.5\n3 4 1e3\n4 1 2\n2 3 0.25\n",
    ),
    (
        "b.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n3 2\n4 3\n5 4\n",
    ),
    (
        "c.graph",
        b"% METIS with vertex and edge weights\n4 4 011 2\n1 1 2 7 3 1\n1 1 1 7 3 9\n1 1 1 1 2 9 4 2\n5 5 3 2\n",
    ),
    ("d.graph", b"5 4\n2\n1 3\n2 4\n3 5\n4\n"),
    (
        "e.grf",
        b"0\n3 4\n1 011\n5 1 7 2\n5 2 7 1 9 3\n5 1 9 2\n",
    ),
    ("f.grf", b"0\n2 2\n0 100\n10 1 20\n20 1 10\n"),
    (
        "g.csv",
        b"src,dst,bytes\n# comment\n0,1,10\n1 0 5 % trailing\n2, 3\n3 4 2.5e2\n",
    ),
    ("h.dense", b"# 3x3\n0 5 0\n2,0,1\n0 7 0\n"),
    (
        "i.dot",
        b"/* c */ graph G {\n  a [pos=\"0,1\"]; b [pos=\"1,1\"]; \"c\" [pos=\"2,0\"];\n  a -- b -- c [weight=3];\n  edge [bytes=5]\n  subgraph s { c -- a }\n}\n",
    ),
    (
        "j.gv",
        b"strict digraph { 2 -> 0 -> 1 [weight=4]; 1 -> 2 // x\n # y\n 0 [pos=\"1,2,3!\"] }\n",
    ),
    ("k.xyz", b"# coords\n0 0\n1 0.5\n2,1\n"),
    ("l.map", b"# mapping\n4\n1 1\n0 0 1\n\n0 # c\n"),
    ("m.map", b"0 0 0\n1 0 1\n2\n"),
    ("n.rankfile", b"rank 0=h1 slot=1\nrank 2=h0 slot=0 # c\nrank 1=h2 slot=0\n"),
    ("o.slurm", b"# SLURM_HOSTFILE\nh2\nh0,h1\nh1\nh4*2\n"),
    ("p.hydra", b"# machinefile\nh1:2 binding=user:1,0\nh0:1 binding=user:0\n"),
    (
        "n.prof",
        b"# POINT TO POINT\nE\t0\t1\t100 bytes\t1 msgs sent\t0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\nI\t0\t1\t8 bytes\t1 msgs sent\n# OSC\nS\t0\t1\t800 bytes\t1 msgs sent\nR\t0\t1\t48 bytes\t1 msgs sent\n# COLLECTIVES\nC\t0\t1\t8 bytes\t1 msgs sent\nD\tMPI_COMM_WORLD\tprocs: 0,1\nO2A\t0\t8 bytes\t1 msgs sent\nA2O\t0\t0 bytes\t0 msgs sent\nA2A\t0\t0 bytes\t0 msgs sent\n# POINT TO POINT\nE\t1\t0\t3 bytes\t1 msgs sent\n# OSC\n# COLLECTIVES\n",
    ),
];

fn check_err(e: &Error) -> Result<(), TestCaseError> {
    match e {
        Error::Parse { line, msg, .. } => {
            prop_assert!(*line >= 1, "line 0 in {e}");
            prop_assert!(!msg.contains('\n'), "multi-line error: {e}");
            prop_assert!(msg.starts_with("expected"), "message shape: {e}");
            Ok(())
        }
        other => Err(TestCaseError::fail(format!("not a parse error: {other}"))),
    }
}

fn feed(bytes: &[u8], name: &str) -> Result<(), TestCaseError> {
    let paths = [Path::new(name), Path::new("input.unknown")];
    for path in paths {
        let mut opts = vec![ReadOptions::default()];
        for f in Format::ALL {
            for one_based in [false, true] {
                opts.push(ReadOptions {
                    format: Some(f),
                    one_based,
                    ..Default::default()
                });
            }
        }
        for o in &opts {
            match io::parse_graph(bytes, path, o) {
                Ok(g) => {
                    prop_assert!(g.n() <= io::MAX_PROCESSES);
                    if let Some(c) = g.coords() {
                        prop_assert_eq!(c.xyz.len(), g.n());
                    }
                }
                Err(e) => check_err(&e)?,
            }
        }
        if let Err(e) = io::parse_coords(bytes, path) {
            check_err(&e)?;
        }
    }
    let topos = [
        Topology::parse("torus:3x3:cores=2").unwrap(),
        Topology::parse("mesh:2x3x4").unwrap(),
        Topology::parse("torus:5").unwrap(),
    ];
    let text = String::from_utf8_lossy(bytes);
    let hosts = HostNames::Pattern("h%d".into());
    for t in &topos {
        for f in LauncherFormat::ALL {
            match launcher::parse_mapping(&text, Path::new(name), t, f, &hosts) {
                // Slurm's and Hydra's files name hosts and cores of `t`.
                Ok(m) if matches!(f, LauncherFormat::Slurm | LauncherFormat::Hydra) => {
                    m.validate(m.len(), t).map_err(|e| {
                        TestCaseError::fail(format!("{f:?}: invalid mapping accepted: {e}"))
                    })?
                }
                Ok(_) => {}
                // Cray's launcher packs ranks into slots: too many is not a line's fault.
                Err(Error::Mapping(_)) if f == LauncherFormat::Mpich => {}
                Err(e) => check_err(&e)?,
            }
        }
        for n in [0, 1, 3, 5] {
            match io::parse_mapping(bytes, Path::new(name), t, n) {
                Ok(m) => m
                    .validate(n, t)
                    .map_err(|e| TestCaseError::fail(format!("invalid mapping accepted: {e}")))?,
                Err(e) => check_err(&e)?,
            }
        }
    }
    Ok(())
}

/// A byte that is likely to matter to some parser.
fn interesting() -> impl Strategy<Value = u8> {
    prop_oneof![
        any::<u8>(),
        prop::sample::select(b"0123456789 \n\t,.-+e%#\"{}[];=:<>/*!x".to_vec()),
    ]
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    /// Duplicate a slice (grows headers and counts).
    Repeat(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), interesting()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), interesting()).prop_map(|(p, b)| Mutation::Insert(p, b)),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), 1usize..16).prop_map(|(p, l)| Mutation::Repeat(p, l)),
    ]
}

fn apply(mut v: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = v.len();
        match *m {
            Mutation::Flip(p, b) if len > 0 => v[p % len] = b,
            Mutation::Insert(p, b) => v.insert(p % (len + 1), b),
            Mutation::Delete(p) if len > 0 => {
                v.remove(p % len);
            }
            Mutation::Repeat(p, l) if len > 0 => {
                let a = p % len;
                let b = (a + l).min(len);
                let piece = v[a..b].to_vec();
                v.splice(b..b, piece);
            }
            _ => {}
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(interesting(), 0..300), k in 0..SAMPLES.len()) {
        feed(&bytes, SAMPLES[k].0)?;
    }

    #[test]
    fn mutated_samples_never_panic(k in 0..SAMPLES.len(), muts in prop::collection::vec(mutation(), 1..6)) {
        let (name, sample) = SAMPLES[k];
        let bytes = apply(sample.to_vec(), &muts);
        feed(&bytes, name)?;
    }
}

#[test]
fn samples_are_valid() {
    for (name, bytes) in SAMPLES {
        let path = Path::new(name);
        if name.ends_with(".xyz") {
            io::parse_coords(bytes, path).unwrap();
        } else if name.ends_with(".map") {
            let t = Topology::parse("torus:3x3:cores=2").unwrap();
            let n = bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty() && l[0] != b'#')
                .count();
            io::parse_mapping(bytes, path, &t, n).unwrap();
        } else if let Some(f) = [
            ("rankfile", LauncherFormat::Rankfile),
            ("slurm", LauncherFormat::Slurm),
            ("hydra", LauncherFormat::Hydra),
        ]
        .into_iter()
        .find_map(|(ext, f)| name.ends_with(ext).then_some(f))
        {
            let t = Topology::parse("torus:3x3:cores=2").unwrap();
            let text = std::str::from_utf8(bytes).unwrap();
            let m = launcher::parse_mapping(text, path, &t, f, &HostNames::Pattern("h%d".into()))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(m.len() >= 3, "{name}");
            m.validate(m.len(), &t)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        } else {
            let g = io::parse_graph(bytes, path, &ReadOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(g.num_edges() > 0, "{name}");
            // Detection by content agrees with the extension.
            assert_eq!(
                io::detect_content(bytes),
                Format::from_extension(path),
                "{name}"
            );
        }
    }
}

/// Every graph in sample-graphs/ reads (by extension and by content alike).
#[test]
fn sample_graphs_read() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-graphs");
    // The samples ship with the repository: a missing folder is a failure.
    let entries = std::fs::read_dir(&dir).expect("sample-graphs/ is in the repository");
    let mut read = 0;
    for e in entries.flatten() {
        let path = e.path();
        let Some(f) = Format::from_extension(&path) else {
            continue;
        };
        let g = io::read_graph(&path, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(g.n() > 0 && g.num_edges() > 0, "{}", path.display());
        read += 1;
        let bytes = std::fs::read(&path).unwrap();
        if f != Format::EdgeList {
            // Content detection finds the same format (edge lists ending in
            // .txt may look like other formats only when tiny).
            assert_eq!(io::detect_content(&bytes), Some(f), "{}", path.display());
        }
    }
    assert!(read >= 3, "only {read} sample graphs read");
}
