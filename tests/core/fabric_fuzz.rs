//! Robustness of the fabric readers, like tests/io_fuzz.rs for the graph
//! readers: random bytes and mutated valid files (ibnetdiscover output, an
//! ibsim net file, topology.conf, `ibnetdiscover -p`, iblinkinfo in both
//! layouts) are parsed with each format forced and
//! with detection. Nothing may panic; every reader failure is a one-line
//! `PATH:LINE: expected …` parse error; whatever parses builds a fabric or
//! fails with a plain message.

use hopmap_core::Error;
use hopmap_core::topology::fabric_spec::{self, FileKind};
use proptest::prelude::*;
use std::path::Path;

const SAMPLES: &[(&str, &[u8])] = &[
    ("a.ibnet", include_bytes!("../data/ibnetdiscover-man.txt")),
    ("b.conf", include_bytes!("../data/topology.conf")),
    ("c.conf", include_bytes!("../data/line3.conf")),
    ("e.ports", include_bytes!("../data/ibsim/mixed.ports")),
    ("f.linkinfo", include_bytes!("../data/ibsim/mixed.linkinfo")),
    ("g.linkinfo", include_bytes!("../data/ibsim/mixed.linkinfo-l")),
    (
        "d.net",
        b"# ibsim\nSwitch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[3]\t\"Switch2\"[3]\n[4]\t\"Switch2\"[4] w=4\n\nSwitch 8 \"Switch2\"\n[3]\t\"Switch1\"[3]\n[4]\t\"Switch1\"[4]\n[1] \"Hca2\"[1]\n\nHca\t2 \"Hca1\"\n[1]\t\"Switch1\"[1]\n\nHca 2 \"Hca2\"\n[1] \"Switch2\"[1]\n",
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
    for kind in [
        None,
        Some(FileKind::Ibnet),
        Some(FileKind::IbnetPorts),
        Some(FileKind::Linkinfo),
        Some(FileKind::Slurm),
    ] {
        match fabric_spec::parse_bytes(Path::new(name), bytes, kind) {
            Ok(raw) => {
                prop_assert!(!raw.switches.is_empty() && !raw.hosts.is_empty());
                for opts in [
                    &[][..],
                    &[("sort", "name"), ("job", "1"), ("cores", "2")][..],
                ] {
                    if let Ok(f) = fabric_spec::finish(raw.clone(), opts, name) {
                        let t = hopmap_core::Topology::Fabric(f);
                        prop_assert!(t.num_nodes() >= 1);
                        let _ = t.diameter();
                    }
                }
            }
            Err(e) => check_err(&e)?,
        }
    }
    Ok(())
}

fn interesting() -> impl Strategy<Value = u8> {
    prop_oneof![
        any::<u8>(),
        prop::sample::select(b"0123456789 \n\t,-#\"'[]()=:<>xSwitchCaHNodesSWCART".to_vec()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(interesting(), 0..300), k in 0..SAMPLES.len()) {
        feed(&bytes, SAMPLES[k].0)?;
    }

    #[test]
    fn mutated_samples_never_panic(
        k in 0..SAMPLES.len(),
        muts in prop::collection::vec((any::<usize>(), interesting(), 0u8..3), 1..6)
    ) {
        let (name, sample) = SAMPLES[k];
        let mut v = sample.to_vec();
        for (p, b, op) in muts {
            let len = v.len();
            match op {
                0 if len > 0 => v[p % len] = b,
                1 => v.insert(p % (len + 1), b),
                _ if len > 0 => { v.remove(p % len); }
                _ => {}
            }
        }
        feed(&v, name)?;
    }
}

#[test]
fn samples_parse_and_detect() {
    for (name, bytes) in SAMPLES {
        let raw = fabric_spec::parse_bytes(Path::new(name), bytes, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = match name.rsplit('.').next() {
            Some("conf") => FileKind::Slurm,
            Some("ports") => FileKind::IbnetPorts,
            Some("linkinfo") => FileKind::Linkinfo,
            _ => FileKind::Ibnet,
        };
        assert_eq!(fabric_spec::detect(bytes), want, "{name}");
        fabric_spec::finish(raw, &[], name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
