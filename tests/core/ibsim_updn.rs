//! Check hopmap's up*/down* against the real thing: a simulated InfiniBand
//! fabric (`ibsim`, Debian ibsim-utils), programmed by OpenSM's `updn`
//! routing engine with the same root (`opensm -R updn -a ROOTS -o`), and
//! its routes followed through every switch's forwarding table (`ibroute`,
//! infiniband-diags). For every ordered pair of switches, the number of
//! switch-to-switch hops of OpenSM's route must equal hopmap's up*/down*
//! distance. Fabrics: the paper's Fig. 2 example and a seeded Moh fabric,
//! read back from `ibnetdiscover`'s dump of the simulation (so the GUIDs
//! are the simulator's).
//!
//! Runs when `ibsim`, `ibsim-run`, `opensm`, `ibroute` and
//! `ibnetdiscover` are installed; otherwise it is skipped, except under CI,
//! where it fails ([`super::ibsim::tools_present`]).

use super::ibsim::{Subnet, TOOLS, cabling, lfts, net_file, switch_hops, tools_present};
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
    let c = cabling(&sn.dump("post.ibnet"));
    let lft = lfts(&sn, &c);
    let s = f.num_switches();
    let mut checked = 0;
    for a in 0..s {
        for b in 0..s {
            if a == b {
                continue;
            }
            let (na, nb) = (&f.switches()[a].name, &f.switches()[b].name);
            let hops = switch_hops(&c, &lft, na, nb) as u16;
            assert_eq!(
                hops,
                ud.dist(a, b),
                "{spec}: {na} → {nb}: OpenSM {hops} hops, hopmap {}",
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
