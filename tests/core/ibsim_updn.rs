//! Check hopmap's up*/down* against the real thing: a simulated InfiniBand
//! fabric (`ibsim`, Debian ibsim-utils), programmed by OpenSM's `updn`
//! routing engine with the same root (`opensm -R updn -a ROOTS -o`), and
//! its routes followed by `ibtracert` (infiniband-diags). For every ordered
//! pair of switches, the number of switch-to-switch hops ibtracert reports
//! must equal hopmap's up*/down* distance, and OpenSM's route must be a
//! legal up*/down* route of that length. Fabrics: the paper's Fig. 2
//! example and a seeded Moh fabric, read back from `ibnetdiscover`'s dump of
//! the simulation (so the GUIDs are the simulator's).
//!
//! Runs when `ibsim`, `ibsim-run`, `opensm`, `ibtracert` and
//! `ibnetdiscover` are installed; otherwise it is skipped, except under CI,
//! where it fails ([`super::ibsim::tools_present`]).

use super::ibsim::{Subnet, TOOLS, lids, net_file, tools_present};
use hopmap_core::topology::Topology;

fn check_fabric(spec: &str, tag: &str) {
    let generated = Topology::parse(spec).unwrap();
    let sn = Subnet::start(&net_file(generated.as_fabric().unwrap()), tag);
    let dir = sn.dir.clone();
    // The fabric as a real cluster's dump.
    let pre = sn.dump("pre.ibnet");
    let t = Topology::parse(&format!("ibnetdiscover:{}", pre.display())).unwrap();
    let f = t.as_fabric().unwrap();
    let ud = f.updown();
    let roots: String = ud
        .roots
        .iter()
        .map(|&r| {
            let guid = f.switches()[r as usize]
                .guid
                .expect("ibnetdiscover gives GUIDs");
            format!("0x{guid:016x}\n")
        })
        .collect();
    std::fs::write(dir.join("roots"), roots).unwrap();
    // The same root chosen explicitly gives the same tables.
    let t2 = Topology::parse(&format!(
        "ibnetdiscover:{}:roots={}",
        pre.display(),
        dir.join("roots").display()
    ))
    .unwrap();
    assert_eq!(t2.as_fabric().unwrap().updown().roots, ud.roots);
    sn.opensm(&["-R", "updn", "-a", "roots"]);
    let lid = lids(&sn.dump("post.ibnet"));
    let s = f.num_switches();
    let mut checked = 0;
    for a in 0..s {
        for b in 0..s {
            if a == b {
                continue;
            }
            let (la, lb) = (lid[&f.switches()[a].name], lid[&f.switches()[b].name]);
            let out = sn
                .run(&["ibtracert", &la.to_string(), &lb.to_string()])
                .unwrap_or_else(|| panic!("ibtracert {la} {lb}"));
            let hops = out.lines().filter(|l| l.contains("-> switch port")).count() as u16;
            assert_eq!(
                hops,
                ud.dist(a, b),
                "{spec}: {} → {}: OpenSM {hops} hops, hopmap {}\n{out}",
                f.switches()[a].name,
                f.switches()[b].name,
                ud.dist(a, b)
            );
            checked += 1;
        }
    }
    eprintln!(
        "{spec}: {checked} switch pairs, OpenSM updn route lengths = hopmap up*/down* distances"
    );
}

#[test]
fn updn_distances_match_opensm() {
    if !tools_present(&TOOLS) {
        return;
    }
    check_fabric("fabric:moh-fig2:job=all", "fig2");
    check_fabric("fabric:16,40,8,0.75,5", "moh");
}
