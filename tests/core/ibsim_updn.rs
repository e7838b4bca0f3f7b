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
//! Runs only when `ibsim`, `ibsim-run`, `opensm`, `ibtracert` and
//! `ibnetdiscover` are on PATH; otherwise it prints that it skipped.

use hopmap_core::topology::{Fabric, Topology};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn on_path(tool: &str) -> bool {
    let sbin = ["/usr/sbin", "/sbin"];
    std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .chain(sbin.iter().map(PathBuf::from))
                .any(|d| d.join(tool).is_file())
        })
        .unwrap_or(false)
}

/// The fabric as an ibsim net file (every host of the job as an Hca).
fn net_file(f: &Fabric) -> String {
    let s = f.num_switches();
    let mut next = vec![1u32; s];
    let mut lines: Vec<Vec<String>> = vec![Vec::new(); s];
    for &(a, b) in f.switch_links() {
        let (pa, pb) = (next[a as usize], next[b as usize]);
        next[a as usize] += 1;
        next[b as usize] += 1;
        lines[a as usize].push(format!("[{pa}] \"SW{b}\"[{pb}]"));
        lines[b as usize].push(format!("[{pb}] \"SW{a}\"[{pa}]"));
    }
    let mut hosts = String::new();
    for h in 0..f.num_hosts() {
        let sw = f.switch_of(h);
        let p = next[sw];
        next[sw] += 1;
        lines[sw].push(format!("[{p}] \"HCA{h}\"[1]"));
        hosts.push_str(&format!("Hca 1 \"HCA{h}\"\n[1] \"SW{sw}\"[{p}]\n\n"));
    }
    let mut out = String::new();
    for (v, l) in lines.iter().enumerate() {
        out.push_str(&format!(
            "Switch {} \"SW{v}\"\n{}\n\n",
            next[v].max(2) - 1,
            l.join("\n")
        ));
    }
    out + &hosts
}

fn sim_run(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("ibsim-run")
        .args(args)
        .current_dir(dir)
        .env("OSM_CACHE_DIR", dir)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

struct Sim(std::process::Child);
impl Drop for Sim {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn check_fabric(spec: &str, tag: &str) {
    let dir = std::env::temp_dir().join(format!("hopmap-ibsim-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let generated = Topology::parse(spec).unwrap();
    std::fs::write(
        dir.join("fabric.net"),
        net_file(generated.as_fabric().unwrap()),
    )
    .unwrap();
    let child = Command::new("ibsim")
        .args(["-s", "fabric.net"])
        .current_dir(&dir)
        .stdin(Stdio::piped()) // ibsim's console waits on stdin
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ibsim");
    let _sim = Sim(child);
    // Wait for the simulator, then dump the fabric as a real cluster's.
    let t0 = Instant::now();
    let dump = loop {
        if let Some(d) = sim_run(&dir, &["ibnetdiscover"]).filter(|d| d.contains("Switch")) {
            break d;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "ibsim did not come up"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let pre = dir.join("pre.ibnet");
    std::fs::write(&pre, &dump).unwrap();
    let t = Topology::parse(&format!("ibnetdiscover:{}", pre.display())).unwrap();
    let f = t.as_fabric().unwrap();
    let ud = f.updown();
    assert_eq!(ud.roots.len(), 1);
    let root = &f.switches()[ud.roots[0] as usize];
    let guid = root.guid.expect("ibnetdiscover gives GUIDs");
    std::fs::write(dir.join("roots"), format!("0x{guid:016x}\n")).unwrap();
    // The same root chosen explicitly gives the same tables.
    let t2 = Topology::parse(&format!(
        "ibnetdiscover:{}:roots={}",
        pre.display(),
        dir.join("roots").display()
    ))
    .unwrap();
    assert_eq!(t2.as_fabric().unwrap().updown().roots, ud.roots);
    sim_run(
        &dir,
        &["opensm", "-R", "updn", "-a", "roots", "-f", "osm.log", "-o"],
    )
    .expect("opensm");
    let post = sim_run(&dir, &["ibnetdiscover"]).expect("ibnetdiscover after the SM");
    // Switch LIDs from the record headers: `Switch N "S-guid" # "desc" base port 0 lid L …`.
    let mut lid: HashMap<String, u32> = HashMap::new();
    for line in post.lines().filter(|l| l.starts_with("Switch")) {
        let id = line.split('"').nth(1).unwrap().to_string();
        let l = line
            .split("lid ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap();
        lid.insert(id, l.parse().unwrap());
    }
    let s = f.num_switches();
    let mut checked = 0;
    for a in 0..s {
        for b in 0..s {
            if a == b {
                continue;
            }
            let (la, lb) = (lid[&f.switches()[a].name], lid[&f.switches()[b].name]);
            let out = sim_run(&dir, &["ibtracert", &la.to_string(), &lb.to_string()])
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
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn updn_distances_match_opensm() {
    let tools = ["ibsim", "ibsim-run", "opensm", "ibtracert", "ibnetdiscover"];
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !on_path(t)).collect();
    if !missing.is_empty() {
        eprintln!(
            "skipped: {} not installed (Debian ibsim-utils, opensm, infiniband-diags)",
            missing.join(", ")
        );
        return;
    }
    check_fabric("fabric:moh-fig2:job=all", "fig2");
    check_fabric("fabric:16,40,8,0.75,5", "moh");
}
