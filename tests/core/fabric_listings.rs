//! The four listings of one InfiniBand subnet — `ibnetdiscover`'s dump,
//! `ibnetdiscover -p`, `iblinkinfo` and `iblinkinfo -l` — read to exactly
//! the same fabric, and each is recognised by its content. The listings in
//! tests/data/ibsim/ were taken from simulated subnets (ibsim, with OpenSM
//! assigning the LIDs; `make.sh` there remakes them): a leaf–spine fabric,
//! and a small one with parallel cables and a dual-ported HCA cabled to two
//! switches.

use hopmap_core::topology::fabric_spec::{self, FileKind};
use hopmap_core::topology::{FabricDesc, Topology};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ibsim")
        .join(name)
}

/// The fabric a file reads to (its spec cleared, which names the file).
fn read(name: &str) -> FabricDesc {
    let p = data(name);
    let t = Topology::parse(&p.display().to_string()).unwrap();
    let mut d = t.as_fabric().unwrap().desc().clone();
    d.spec.clear();
    d
}

#[test]
fn listings_are_detected_by_content() {
    for (suffix, kind) in [
        ("ibnet", FileKind::Ibnet),
        ("ports", FileKind::IbnetPorts),
        ("linkinfo", FileKind::Linkinfo),
        ("linkinfo-l", FileKind::Linkinfo),
    ] {
        for net in ["leafspine", "mixed"] {
            let bytes = std::fs::read(data(&format!("{net}.{suffix}"))).unwrap();
            assert_eq!(fabric_spec::detect(&bytes), kind, "{net}.{suffix}");
        }
    }
}

#[test]
fn every_listing_reads_to_the_dumps_fabric() {
    for net in ["leafspine", "mixed"] {
        let dump = read(&format!("{net}.ibnet"));
        for suffix in ["ports", "linkinfo", "linkinfo-l"] {
            assert_eq!(read(&format!("{net}.{suffix}")), dump, "{net}.{suffix}");
        }
        // `ibnetdiscover:` takes any of the InfiniBand listings.
        let p = data(&format!("{net}.ports"));
        let t = Topology::parse(&format!("ibnetdiscover:{}", p.display())).unwrap();
        let mut d = t.as_fabric().unwrap().desc().clone();
        d.spec.clear();
        assert_eq!(d, dump);
    }
}

#[test]
fn the_mixed_fabric_by_hand() {
    // A (GUID 0x200000) = B by two cables, B – C; Hca0 (ports on A and C)
    // hangs from A, its lowest port; Hca1 from B, Hca2 from C. The dump
    // lists the CAs as Hca2, Hca1, Hca0.
    let d = read("mixed.linkinfo");
    let names: Vec<&str> = d.switches.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "S-0000000000200000",
            "S-0000000000200001",
            "S-0000000000200002"
        ]
    );
    let ports: Vec<u32> = d.switches.iter().map(|s| s.ports).collect();
    assert_eq!(ports, [8, 8, 4]);
    assert_eq!(d.links, vec![(0, 1), (0, 1), (1, 2)]);
    let hosts: Vec<(&str, u32)> = d
        .hosts
        .iter()
        .map(|h| (h.name.as_str(), h.switch))
        .collect();
    assert_eq!(hosts, [("Hca2", 2), ("Hca1", 1), ("Hca0", 0)]);
    // Switches keep their GUID ids and are labelled as the listing names them.
    let labels: Vec<&str> = d.switches.iter().map(|s| s.label()).collect();
    assert_eq!(labels, ["A", "B", "C"]);
    // CA ports per switch: Hca0 counts on A and on C.
    assert_eq!(d.ca_ports, vec![1, 1, 2]);
}

/// A listing that names huge ports, LIDs and GUIDs, read by `hopmap
/// topology` under a 1 GiB address-space limit: memory follows the lines,
/// not the numbers in them.
#[test]
fn hostile_numbers_are_bounded() {
    let d = std::env::temp_dir().join(format!("hopmap-listing-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let big = "SW 65535 4096 0xffffffffffffffff 4x SDR - SW 4294967295 4096 0xfffffffffffffffe ( 'a' - 'b' )\n\
               CA 4294967295 4095 0xffffffffffffffff 4x SDR - SW 1 4000 0xfffffffffffffffe ( 'h' - 'b' )\n\
               CA 7 4096 0x0 4x SDR - SW 1 3999 0xfffffffffffffffe ( 'g' - 'b' )\n";
    let link = "Switch: 0xffffffffffffffff a:\n  4294967295 4096[ ] ==( x )==> 4294967294 4096[ ] \"b\" ( )\n";
    for (name, text) in [("big.ports", big), ("big.linkinfo", link)] {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        let out = std::process::Command::new("prlimit")
            .arg(format!("--as={}", 1u64 << 30))
            .arg(env!("CARGO_BIN_EXE_hopmap"))
            .args(["topology", p.to_str().unwrap()])
            .output()
            .expect("prlimit (util-linux) is needed for the memory-bounded tests");
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code().unwrap_or(-1);
        assert!(code == 0 || code == 1, "{name}: exit {code}: {err}");
        assert!(err.lines().count() <= 1, "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    // The ports file is a fabric of two switches and two hosts.
    let t = Topology::parse(&d.join("big.ports").display().to_string()).unwrap();
    assert_eq!(t.as_fabric().unwrap().num_switches(), 2);
    assert_eq!(t.num_nodes(), 2);
    std::fs::remove_dir_all(&d).ok();
}

/// `hopmap topology` says which routing a file is routed with, whether
/// OpenSM's ftree takes it and how the roots were chosen.
#[test]
fn the_report_names_the_routing_and_the_roots_rule() {
    use hopmap_core::topology::report::report;
    let p = data("leafspine.ports");
    let r = report(&Topology::parse(&p.display().to_string()).unwrap(), 10);
    assert_eq!(r.routing, "fattree");
    assert_eq!(
        r.ftree,
        "a fat tree with 2 top switches (S-0000000000200000, S-0000000000200001)"
    );
    assert_eq!(r.roots, ["S-0000000000200000", "S-0000000000200001"]);
    assert!(
        r.root_rule.starts_with("OpenSM's automatic roots"),
        "{}",
        r.root_rule
    );
    // The spines have no legal route between them (down, then up).
    let text = r.to_text();
    assert!(
        text.contains(
            "S-0000000000200000 – S-0000000000200001: no legal up*/down* route, 2 shortest"
        ),
        "{text}"
    );
    // Hosts on every switch: not a fat tree, up*/down*, no OpenSM root.
    let p = data("mixed.ibnet");
    let r = report(&Topology::parse(&p.display().to_string()).unwrap(), 10);
    assert_eq!(r.routing, "updn");
    assert_eq!(
        r.ftree,
        "not a fat tree: every switch has hosts: no switch is above another"
    );
    assert!(
        r.root_rule
            .starts_with("OpenSM's min-hop rule finds no root"),
        "{}",
        r.root_rule
    );
}
