//! A simulated InfiniBand subnet for the tests that check hopmap against
//! the real subnet manager and diagnostics: `ibsim` (Debian ibsim-utils)
//! loads a net file, and `ibsim-run` runs OpenSM (opensm) and the
//! infiniband-diags tools against it.
//!
//! [`tools_present`] decides whether such a test runs: when a tool is
//! missing the test is skipped, except under CI (`CI` set, as `.ci/run`
//! does), where it fails.

use hopmap_core::topology::Fabric;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The tools every ibsim test needs.
pub const TOOLS: [&str; 5] = ["ibsim", "ibsim-run", "opensm", "ibroute", "ibnetdiscover"];

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

/// True when every tool is installed. Otherwise: under CI, fail; else say
/// that the test is skipped and return false.
pub fn tools_present(tools: &[&str]) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return true;
    }
    let msg = format!(
        "{} not installed (Debian ibsim-utils, opensm, infiniband-diags)",
        missing.join(", ")
    );
    assert!(std::env::var_os("CI").is_none(), "under CI: {msg}");
    eprintln!("skipped: {msg}");
    false
}

/// The fabric as an ibsim net file (every host of the job as an Hca named
/// `HCA<h>`, switch `v` as `SW<v>`), switches first so that the subnet
/// manager sits on switch 0.
pub fn net_file(f: &Fabric) -> String {
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

/// A running simulator in its own folder, on its own socket
/// (`IBSIM_SOCKNAME`, which ibsim and the clients ibsim-run starts both
/// read), so that simulators of tests running at once do not meet; dropped,
/// it is stopped and the folder removed.
pub struct Subnet {
    pub dir: PathBuf,
    sock: String,
    child: std::process::Child,
}

impl Drop for Subnet {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Subnet {
    /// Load `net` into ibsim and wait until the fabric answers.
    pub fn start(net: &str, tag: &str) -> Subnet {
        let dir = std::env::temp_dir().join(format!("hopmap-ibsim-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("fabric.net"), net).unwrap();
        let sock = format!("hopmap{}{tag}", std::process::id());
        let child = Command::new("ibsim")
            .args(["-s", "fabric.net"])
            .env("IBSIM_SOCKNAME", &sock)
            .current_dir(&dir)
            .stdin(Stdio::piped()) // ibsim's console waits on stdin
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ibsim");
        let sn = Subnet { dir, sock, child };
        let t0 = Instant::now();
        while sn
            .run(&["ibnetdiscover"])
            .filter(|d| d.contains("Switch"))
            .is_none()
        {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "ibsim did not come up"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        sn
    }

    /// `ibsim-run ARGS` in the subnet's folder: its output, if it succeeded.
    pub fn run(&self, args: &[&str]) -> Option<String> {
        let out = Command::new("ibsim-run")
            .args(args)
            .current_dir(&self.dir)
            .env("OSM_CACHE_DIR", &self.dir)
            .env("IBSIM_SOCKNAME", &self.sock)
            .stdin(Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Run OpenSM once (`-o`) with `args`; its log.
    pub fn opensm(&self, args: &[&str]) -> String {
        let log = self.dir.join("osm.log");
        let _ = std::fs::remove_file(&log);
        let mut a = vec!["opensm", "-o", "-f", "osm.log"];
        a.extend_from_slice(args);
        self.run(&a).unwrap_or_else(|| panic!("opensm {args:?}"));
        std::fs::read_to_string(&log).unwrap_or_default()
    }

    /// ibnetdiscover's dump, written to `name` in the folder; its path.
    pub fn dump(&self, name: &str) -> PathBuf {
        let d = self.run(&["ibnetdiscover"]).expect("ibnetdiscover");
        let p = self.dir.join(name);
        std::fs::write(&p, d).unwrap();
        p
    }
}

/// A dump's cabling: for each node id (`S-…`, `H-…`) its LID (a CA's: its
/// first port's) and what each of its ports is cabled to.
pub struct Cabling {
    pub lid: HashMap<String, u32>,
    /// Node id → (port → peer node id).
    pub ports: HashMap<String, HashMap<u32, String>>,
    /// CA node description → node id.
    pub ca_id: HashMap<String, String>,
    /// The switch the dump was taken from (where the subnet manager sits).
    pub origin: String,
}

/// Read a dump taken after the subnet manager ran.
pub fn cabling(dump: &Path) -> Cabling {
    let text = std::fs::read_to_string(dump).unwrap();
    let mut c = Cabling {
        lid: HashMap::new(),
        ports: HashMap::new(),
        ca_id: HashMap::new(),
        origin: String::new(),
    };
    let mut cur: Option<(String, bool)> = None; // (id, is a CA)
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("# Initiated from node ") {
            c.origin = format!("S-{}", n.split_whitespace().next().unwrap());
        }
        let quoted: Vec<&str> = line.split('"').collect();
        if line.starts_with("Switch") || line.starts_with("Ca") {
            let id = quoted[1].to_string();
            let is_ca = line.starts_with("Ca");
            if is_ca {
                c.ca_id.insert(quoted[3].to_string(), id.clone());
            } else {
                let l = line.split("lid ").nth(1).unwrap();
                c.lid.insert(
                    id.clone(),
                    l.split_whitespace().next().unwrap().parse().unwrap(),
                );
            }
            cur = Some((id, is_ca));
        } else if line.starts_with('[')
            && let Some((id, is_ca)) = &cur
        {
            let port: u32 = line[1..line.find(']').unwrap()].parse().unwrap();
            c.ports
                .entry(id.clone())
                .or_default()
                .insert(port, quoted[1].to_string());
            if *is_ca && !c.lid.contains_key(id) {
                let l = line.split("# lid ").nth(1).unwrap();
                c.lid.insert(
                    id.clone(),
                    l.split_whitespace().next().unwrap().parse().unwrap(),
                );
            }
        }
    }
    c
}

/// Every switch's unicast forwarding table (`ibroute -D PATH`, reached by
/// directed route from the dump's origin, since LID routes between
/// switches need not exist): switch id → (destination LID → out port).
pub fn lfts(sn: &Subnet, c: &Cabling) -> HashMap<String, HashMap<u32, u32>> {
    // Directed-route paths by breadth-first search over switch cables.
    let mut path: HashMap<String, String> = HashMap::new();
    path.insert(c.origin.clone(), "0".into());
    let mut queue = std::collections::VecDeque::from([c.origin.clone()]);
    while let Some(sw) = queue.pop_front() {
        let mut ports: Vec<(&u32, &String)> = c.ports[&sw].iter().collect();
        ports.sort();
        for (p, peer) in ports {
            if peer.starts_with("S-") && !path.contains_key(peer) {
                let dr = format!("{},{p}", path[&sw]);
                path.insert(peer.clone(), dr);
                queue.push_back(peer.clone());
            }
        }
    }
    let mut out = HashMap::new();
    for (id, dr) in &path {
        let text = sn
            .run(&["ibroute", "-D", dr])
            .unwrap_or_else(|| panic!("ibroute -D {dr}"));
        let mut t = HashMap::new();
        for line in text.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            if let [dl, port, ":", ..] = w[..]
                && let Some(h) = dl.strip_prefix("0x")
            {
                t.insert(u32::from_str_radix(h, 16).unwrap(), port.parse().unwrap());
            }
        }
        out.insert(id.clone(), t);
    }
    out
}

/// The switches (ids) a packet from CA `from` to CA `to` (node
/// descriptions) crosses, in order, following the forwarding tables.
pub fn routed_switches(
    c: &Cabling,
    lft: &HashMap<String, HashMap<u32, u32>>,
    from: &str,
    to: &str,
) -> Vec<String> {
    let (a, b) = (&c.ca_id[from], &c.ca_id[to]);
    let dlid = c.lid[b];
    let mut path = vec![c.ports[a][&1].clone()];
    while path.len() < 64 {
        let sw = path.last().unwrap();
        let port = lft[sw][&dlid];
        let next = &c.ports[sw][&port];
        if next == b {
            return path;
        }
        assert!(
            next.starts_with("S-"),
            "{from} → {to}: reached {next} at {sw}"
        );
        path.push(next.clone());
    }
    panic!("{from} → {to}: no route within 64 switches")
}

/// Switch-to-switch hops of the route from switch `a` to switch `b` (ids),
/// following the forwarding tables towards `b`'s LID.
pub fn switch_hops(
    c: &Cabling,
    lft: &HashMap<String, HashMap<u32, u32>>,
    a: &str,
    b: &str,
) -> usize {
    let dlid = c.lid[b];
    let mut sw = a.to_string();
    for hops in 0..64 {
        if sw == b {
            return hops;
        }
        let port = lft[&sw]
            .get(&dlid)
            .unwrap_or_else(|| panic!("{a} → {b}: {sw} has no route to LID {dlid}"));
        sw = c.ports[&sw][port].clone();
    }
    panic!("{a} → {b}: no route within 64 switches")
}
