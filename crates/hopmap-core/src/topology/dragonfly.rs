//! `dragonfly:A,P,H[,G]` — Kim et al.'s dragonfly: G groups (default
//! A·H + 1, one global link between every two groups) of A routers joined
//! all-to-all inside the group, P hosts and H global links per router
//! (router radix A − 1 + P + H).
//!
//! Global wiring (the "consecutive" arrangement): group i's global ports are
//! numbered j = r·H + h (router r, port h); for G = A·H + 1, port j of group
//! i goes to group j when j < i, else j + 1. For fewer groups, port j aims at
//! the (j mod (G−1))-th other group, and group pair (i, t) gets as many links
//! as both sides have ports aimed at each other (the n-th port of i towards
//! t meets the n-th port of t towards i; leftover ports stay open). More
//! groups than A·H + 1 cannot be wired and are refused.
//!
//! **Routing modelled.** up*/down* from the minimum-height root (valid and
//! deadlock-free on any topology), or plain `minimal` routing (local–global–
//! local, the dragonfly's minimal routing; not deadlock-free without virtual
//! channels, which hopmap does not model). Valiant/UGAL are not modelled.

use super::fabric::{FabricKind, Host, Switch};
use super::fabric_spec::RawFabric;
use crate::error::{Error, Result};

/// Build `dragonfly:A,P,H[,G]`.
pub fn generate(spec: &str, body: &str) -> Result<RawFabric> {
    let err = |m: String| Error::spec("topology", spec, m);
    let f: Vec<Option<usize>> = body.split(',').map(|x| x.trim().parse().ok()).collect();
    if !(3..=4).contains(&f.len()) || f.iter().any(|x| x.is_none_or(|v| v == 0)) {
        return Err(err(format!(
            "expected dragonfly:A,P,H[,G] with positive integers, found `{body}`"
        )));
    }
    let (a, p, h) = (f[0].unwrap_or(1), f[1].unwrap_or(1), f[2].unwrap_or(1));
    let gmax = a * h + 1;
    let g = f.get(3).copied().flatten().unwrap_or(gmax);
    if g > gmax {
        return Err(err(format!(
            "expected at most A·H + 1 = {gmax} groups, found {g}"
        )));
    }
    if a * g > super::fabric::MAX_SWITCHES || a * g * p > super::fabric::MAX_HOSTS {
        return Err(err("too many switches or hosts".into()));
    }
    let router = |grp: usize, r: usize| (grp * a + r) as u32;
    let switches = (0..g)
        .flat_map(|grp| {
            (0..a).map(move |r| Switch {
                name: format!("g{grp}r{r}"),
                guid: None,
                desc: None,
                ports: (a - 1 + p + h) as u32,
            })
        })
        .collect();
    let mut links = Vec::new();
    for grp in 0..g {
        for r in 0..a {
            for s in r + 1..a {
                links.push((router(grp, r), router(grp, s)));
            }
        }
    }
    if g > 1 {
        let others = g - 1;
        // ports of group i aimed at group t, in port order
        let aimed = |i: usize, t: usize| -> Vec<usize> {
            let rel = if t < i { t } else { t - 1 };
            (0..a * h).filter(|j| j % others == rel).collect()
        };
        for i in 0..g {
            for t in i + 1..g {
                let (pi, pt) = (aimed(i, t), aimed(t, i));
                for (ji, jt) in pi.iter().zip(&pt) {
                    links.push((router(i, ji / h), router(t, jt / h)));
                }
            }
        }
    }
    let mut hosts = Vec::with_capacity(a * g * p);
    for sw in 0..a * g {
        for _ in 0..p {
            hosts.push(Host {
                name: format!("h{}", hosts.len()),
                switch: sw as u32,
            });
        }
    }
    Ok(RawFabric {
        switches,
        links,
        hosts,
        kind: FabricKind::Dragonfly,
        default_job: None,
        ca_ports: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_dragonfly_has_one_link_per_group_pair() {
        // a=4, p=2, h=2: g = 9 groups, 36 routers, 72 hosts.
        let f = generate("d", "4,2,2").unwrap();
        assert_eq!(f.switches.len(), 36);
        assert_eq!(f.hosts.len(), 72);
        // local: 9·6 = 54; global: C(9,2) = 36
        assert_eq!(f.links.len(), 54 + 36);
        let mut deg = vec![0usize; 36];
        for &(x, y) in &f.links {
            deg[x as usize] += 1;
            deg[y as usize] += 1;
        }
        assert!(deg.iter().all(|&d| d == 3 + 2));
        assert!(generate("d", "4,2,2,10").is_err());
        assert_eq!(generate("d", "4,2,2,3").unwrap().switches.len(), 12);
    }
}
