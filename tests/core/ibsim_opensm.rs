//! hopmap against OpenSM itself, on simulated subnets (`ibsim`): the
//! up*/down* roots it detects, whether it takes a fabric as a fat tree, and
//! the length of every route its `ftree` and `minhop` engines program.
//!
//! Fabrics: leaf–spine (2 spines and 4 leaves; the shape of a real
//! cluster's dump, 2 spines, 9 leaves and 89 hosts), a three-level fat
//! tree (`fattree:4:3`) and a seeded irregular Moh fabric. Each is loaded
//! into ibsim and read back from `ibnetdiscover`'s dump, so hopmap sees the
//! GUIDs OpenSM sees.
//!
//! * Roots: `opensm -R updn -D 0x0b` logs "Ranking GUID … as root node"
//!   for each root it detects (debug level 0x08) and "disabling UPDN
//!   algorithm, no root nodes were found" (info, 0x02) when there are none;
//!   hopmap's automatic roots must be the same switches, and where OpenSM
//!   finds none hopmap says so (`RootChoice::MinHeight`).
//! * Routes: after `opensm -R ftree|minhop -o`, every switch's forwarding
//!   table is read with `ibroute` and every host-to-host route followed;
//!   the switches it crosses, less one, must be hopmap's distance under
//!   `fattree` / `minimal`, and each ftree route must be one of the routes
//!   hopmap's `fattree` splits over (up, then down: never down then up). OpenSM logs "ftree tables configured" only when
//!   it routed with ftree; hopmap must offer `fattree` exactly then.
//!
//! Skipped when the tools are missing, except under CI (fails).

use super::ibsim::{Subnet, TOOLS, cabling, lfts, net_file, routed_switches, tools_present};
use hopmap_core::Routing;
use hopmap_core::topology::{RootChoice, Topology};

/// A leaf–spine net: every leaf cabled once to every spine, `hosts` hosts
/// dealt to the leaves in turn.
fn leaf_spine(spines: usize, leaves: usize, hosts: usize) -> String {
    let mut sw: Vec<Vec<String>> = vec![Vec::new(); spines + leaves];
    let name = |v: usize| {
        if v < spines {
            format!("Spine{v}")
        } else {
            format!("Leaf{}", v - spines)
        }
    };
    for l in 0..leaves {
        for s in 0..spines {
            sw[s].push(format!("[{}] \"{}\"[{}]", l + 1, name(spines + l), s + 1));
            sw[spines + l].push(format!("[{}] \"{}\"[{}]", s + 1, name(s), l + 1));
        }
    }
    let mut out = String::new();
    let mut hca = String::new();
    for h in 0..hosts {
        let leaf = spines + h % leaves;
        let port = spines + 1 + h / leaves;
        sw[leaf].push(format!("[{port}] \"node{h:02}\"[1]"));
        hca.push_str(&format!(
            "Hca 1 \"node{h:02}\"\n[1] \"{}\"[{port}]\n\n",
            name(leaf)
        ));
    }
    for (v, lines) in sw.iter().enumerate() {
        out.push_str(&format!(
            "Switch 36 \"{}\"\n{}\n\n",
            name(v),
            lines.join("\n")
        ));
    }
    out + &hca
}

fn fabrics() -> Vec<(&'static str, String)> {
    let net_of = |spec: &str| net_file(Topology::parse(spec).unwrap().as_fabric().unwrap());
    vec![
        ("leafspine", leaf_spine(2, 4, 12)),
        ("cluster", leaf_spine(2, 9, 89)),
        ("fattree", net_of("fattree:4:3")),
        ("moh", net_of("fabric:16,40,8,0.75,5")),
    ]
}

/// GUIDs of the "Ranking GUID 0x… as root node" lines, sorted.
fn opensm_roots(log: &str) -> Vec<u64> {
    let mut g: Vec<u64> = log
        .lines()
        .filter_map(|l| l.split("Ranking GUID 0x").nth(1))
        .filter_map(|r| r.split_whitespace().next())
        .map(|h| u64::from_str_radix(h, 16).unwrap())
        .collect();
    g.sort_unstable();
    g
}

#[test]
fn automatic_roots_are_opensms() {
    if !tools_present(&TOOLS) {
        return;
    }
    let mut found_some = 0;
    for (tag, net) in fabrics() {
        let sn = Subnet::start(&net, &format!("roots-{tag}"));
        let dump = sn.dump("pre.ibnet");
        let t = Topology::parse(&format!("ibnetdiscover:{}", dump.display())).unwrap();
        let f = t.as_fabric().unwrap();
        let log = sn.opensm(&["-R", "updn", "-D", "0x0b"]);
        let theirs = opensm_roots(&log);
        let mut ours: Vec<u64> = f
            .updown()
            .roots
            .iter()
            .map(|&r| f.switches()[r as usize].guid.unwrap())
            .collect();
        ours.sort_unstable();
        if theirs.is_empty() {
            assert!(
                log.contains("no root nodes were found"),
                "{tag}: OpenSM ranked no root but did not say so"
            );
            assert_eq!(f.root_choice(), RootChoice::MinHeight, "{tag}");
        } else {
            found_some += 1;
            assert_eq!(f.root_choice(), RootChoice::OpenSm, "{tag}");
            assert_eq!(ours, theirs, "{tag}: hopmap's roots against OpenSM's");
        }
        eprintln!("{tag}: OpenSM roots {theirs:x?}, hopmap {ours:x?}");
    }
    // Leaf–spine (both) and the fat tree have roots; the Moh fabric none.
    assert_eq!(found_some, 3);
}

#[test]
fn ftree_and_minhop_route_lengths_are_opensms() {
    if !tools_present(&TOOLS) {
        return;
    }
    for (tag, net) in fabrics() {
        if tag == "cluster" {
            continue; // the same shape as leafspine, bigger
        }
        let sn = Subnet::start(&net, &format!("routes-{tag}"));
        let dump = sn.dump("pre.ibnet");
        let t = Topology::parse(&format!("ibnetdiscover:{}", dump.display())).unwrap();
        let f = t.as_fabric().unwrap();
        for engine in ["ftree", "minhop"] {
            let log = sn.opensm(&["-R", engine]);
            let routing = Routing::parse(engine).unwrap();
            if engine == "ftree" {
                let took = log.contains("ftree tables configured");
                assert_eq!(
                    routing.check(&t).is_ok(),
                    took,
                    "{tag}: OpenSM {} it as a fat tree, hopmap {:?}",
                    if took { "routes" } else { "does not route" },
                    f.ftree_roots()
                );
                if !took {
                    continue;
                }
                assert_eq!(Routing::Dor.resolve(&t), Routing::FatTree, "{tag}");
            }
            let index: std::collections::HashMap<&str, usize> = f
                .switches()
                .iter()
                .enumerate()
                .map(|(i, s)| (s.name.as_str(), i))
                .collect();
            let c = cabling(&sn.dump("post.ibnet"));
            let lft = lfts(&sn, &c);
            let n = f.num_hosts();
            let mut pairs = 0;
            for a in 0..n {
                for b in 0..n {
                    if a == b {
                        continue;
                    }
                    let (ha, hb) = (&f.hosts()[a].name, &f.hosts()[b].name);
                    let path = routed_switches(&c, &lft, ha, hb);
                    let ours = routing.distance(&t, a, b) as usize;
                    assert_eq!(path.len() - 1, ours, "{tag} {engine}: {ha} → {hb}");
                    if engine == "ftree" {
                        // OpenSM's route is one of those hopmap's fattree
                        // splits over: up moves, then down moves.
                        let level = &f.fat_tree().unwrap().level;
                        let lv = |id: &String| level[index[id.as_str()]];
                        let turns = path
                            .windows(3)
                            .filter(|w| lv(&w[0]) < lv(&w[1]) && lv(&w[1]) > lv(&w[2]));
                        assert_eq!(turns.count(), 0, "{tag}: {ha} → {hb} by {path:?}");
                    }
                    pairs += 1;
                }
            }
            eprintln!("{tag} {engine}: {pairs} host pairs, route lengths equal");
        }
    }
}
