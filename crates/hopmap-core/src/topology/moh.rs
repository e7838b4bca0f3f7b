//! Moh et al.'s random irregular switch fabric (§5.1): `fabric:S,H,k,r[,seed]`
//! — `H` hosts on `S` switches of `k` ports with connection ratio `r`, "the
//! ratio of the average number of connected ports over k" (the paper's
//! default is `fabric:75,256,8,0.75`).
//!
//! The paper does not say how its networks were drawn; ours, seeded:
//! 1. hosts are spread as evenly as possible (⌊H/S⌋ per switch, the
//!    remainder on randomly chosen switches);
//! 2. a random spanning tree joins the switches (each switch in a random
//!    order links to a random earlier one with a free port), so the fabric
//!    is connected;
//! 3. random extra links join switches with free ports (no self-links, no
//!    parallel links) until `r·k·S` ports are in use, or no unlinked pair
//!    with free ports is left.
//!
//! Hosts are named `h0…`, numbered switch by switch; switches `s0…`.
//! O(S + H + links) expected time.

use super::fabric::{FabricKind, Host, Switch};
use super::fabric_spec::RawFabric;
use crate::error::{Error, Result};
use crate::rng::Rng;
use std::collections::HashSet;

/// Parameters of Moh's generator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MohParams {
    pub switches: usize,
    pub hosts: usize,
    pub ports: u32,
    pub ratio: f64,
    pub seed: u64,
}

impl MohParams {
    /// Parse `S,H,k,r[,seed]`.
    pub fn parse(spec: &str, body: &str) -> Result<Self> {
        let err = |m: String| Error::spec("topology", spec, m);
        let f: Vec<&str> = body.split(',').map(str::trim).collect();
        if f.len() != 4 && f.len() != 5 {
            return Err(err(format!(
                "expected fabric:S,H,k,r[,seed] (e.g. fabric:75,256,8,0.75), found `{body}`"
            )));
        }
        let int = |s: &str, what: &str| -> Result<usize> {
            s.parse::<usize>().ok().filter(|&x| x >= 1).ok_or_else(|| {
                err(format!(
                    "expected {what} as a positive integer, found `{s}`"
                ))
            })
        };
        let switches = int(f[0], "the switch count S")?;
        let hosts = int(f[1], "the host count H")?;
        let ports = int(f[2], "the port count k")?;
        let ratio: f64 = f[3]
            .parse()
            .ok()
            .filter(|r: &f64| *r > 0.0 && *r <= 1.0)
            .ok_or_else(|| err(format!("expected the ratio r in (0, 1], found `{}`", f[3])))?;
        let seed = match f.get(4) {
            Some(s) => s
                .parse()
                .map_err(|_| err(format!("expected a seed, found `{s}`")))?,
            None => 1,
        };
        if switches > super::fabric::MAX_SWITCHES
            || ports > 4096
            || hosts > super::fabric::MAX_HOSTS
        {
            return Err(err(
                "expected at most 16384 switches, 4096 ports, 2^22 hosts".into(),
            ));
        }
        Ok(MohParams {
            switches,
            hosts,
            ports: ports as u32,
            ratio,
            seed,
        })
    }
    pub fn spec(&self) -> String {
        format!(
            "fabric:{},{},{},{},{}",
            self.switches, self.hosts, self.ports, self.ratio, self.seed
        )
    }
}

/// Draw the fabric.
pub fn generate(p: &MohParams) -> Result<RawFabric> {
    let spec = p.spec();
    let err = |m: String| Error::spec("topology", &spec, m);
    let (s, k) = (p.switches, p.ports as usize);
    let used = (p.ratio * (k * s) as f64).round() as usize;
    let min_links = s - 1;
    if p.hosts + 2 * min_links > k * s {
        return Err(err(format!(
            "expected H + 2(S−1) ≤ k·S ports, found {} hosts and {} tree link ends on {} ports",
            p.hosts,
            2 * min_links,
            k * s
        )));
    }
    let want_links = (used.saturating_sub(p.hosts) / 2).max(min_links);
    let mut rng = Rng::new(p.seed);
    // 1. hosts
    let mut hosts_on = vec![p.hosts / s; s];
    let mut order: Vec<usize> = (0..s).collect();
    rng.shuffle(&mut order);
    for &v in order.iter().take(p.hosts % s) {
        hosts_on[v] += 1;
    }
    if hosts_on.iter().any(|&h| h > k) {
        return Err(err(format!("expected at most {k} hosts per switch")));
    }
    let mut free: Vec<usize> = hosts_on.iter().map(|&h| k - h).collect();
    // 2. spanning tree
    let mut links: Vec<(u32, u32)> = Vec::with_capacity(want_links);
    let mut linked: HashSet<(u32, u32)> = HashSet::new();
    rng.shuffle(&mut order);
    for i in 1..s {
        let v = order[i];
        let cand: Vec<usize> = order[..i]
            .iter()
            .copied()
            .filter(|&u| free[u] > 0)
            .collect();
        if cand.is_empty() || free[v] == 0 {
            return Err(err(
                "expected free ports to join the switches into a tree, found none; \
                 lower H or raise k"
                    .into(),
            ));
        }
        let u = cand[rng.below(cand.len())];
        free[u] -= 1;
        free[v] -= 1;
        let e = (u.min(v) as u32, u.max(v) as u32);
        linked.insert(e);
        links.push(e);
    }
    // 3. extra links
    let mut open: Vec<usize> = (0..s).filter(|&v| free[v] > 0).collect();
    let mut misses = 0usize;
    while links.len() < want_links && open.len() >= 2 && misses < 64 * s + 1024 {
        let (i, j) = (rng.below(open.len()), rng.below(open.len()));
        let (a, b) = (open[i], open[j]);
        let e = (a.min(b) as u32, a.max(b) as u32);
        if a == b || linked.contains(&e) {
            misses += 1;
            continue;
        }
        misses = 0;
        linked.insert(e);
        links.push(e);
        free[a] -= 1;
        free[b] -= 1;
        open.retain(|&v| free[v] > 0);
    }
    let switches = (0..s)
        .map(|v| Switch {
            name: format!("s{v}"),
            guid: None,
            desc: None,
            ports: p.ports,
        })
        .collect();
    let mut hosts = Vec::with_capacity(p.hosts);
    for (v, &c) in hosts_on.iter().enumerate() {
        for _ in 0..c {
            hosts.push(Host {
                name: format!("h{}", hosts.len()),
                switch: v as u32,
            });
        }
    }
    Ok(RawFabric {
        switches,
        links,
        hosts,
        kind: FabricKind::Irregular,
        default_job: None,
        ca_ports: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_default_has_the_right_ports() {
        let p = MohParams::parse("x", "75,256,8,0.75,3").unwrap();
        let f = generate(&p).unwrap();
        assert_eq!(f.switches.len(), 75);
        assert_eq!(f.hosts.len(), 256);
        // 0.75·8·75 = 450 ports: 256 host ports, 194 link ends = 97 links.
        assert_eq!(f.links.len(), 97);
        let mut deg = vec![0usize; 75];
        for &(a, b) in &f.links {
            deg[a as usize] += 1;
            deg[b as usize] += 1;
        }
        for h in &f.hosts {
            deg[h.switch as usize] += 1;
        }
        assert!(deg.iter().all(|&d| d <= 8));
        assert_eq!(generate(&p).unwrap().links, f.links);
        let q = MohParams::parse("x", "75,256,8,0.75,4").unwrap();
        assert_ne!(generate(&q).unwrap().links, f.links);
        assert!(MohParams::parse("x", "75,256,8").is_err());
        assert!(MohParams::parse("x", "75,256,8,1.5").is_err());
        assert!(generate(&MohParams::parse("x", "3,24,8,1").unwrap()).is_err());
    }
}
