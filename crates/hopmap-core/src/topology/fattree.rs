//! `fattree:K[:L]` — the k-port, L-level fat tree (folded Clos, full
//! bisection; Al-Fares et al.'s three-level tree for L = 3, the default):
//! with m = K/2, every non-top level has 2·m^(L−1) switches and the top level
//! m^(L−1); there are 2·m^L hosts (`fattree:48:3`: 2,880 switches, 27,648
//! hosts).
//!
//! Construction: K pods, each an m-ary (L−1)-tree (Petrini's k-ary n-tree:
//! levels of m^(L−2) switches labelled by L−2 base-m digits; switch w at
//! pod level ℓ links to every switch at level ℓ+1 whose label differs from w
//! at most in digit ℓ); each leaf has m hosts; the top switch c links to
//! switch ⌊c/m⌋ of the top level of every pod. Switch order: top switches
//! first, then pod by pod from the pod's top level down; hosts leaf by leaf.
//!
//! **Routing modelled.** up*/down* from the minimum-height root (as on any
//! fabric), and `--routing fattree`: up/down with every top switch a root
//! and an even split over the equal-cost up paths — the standard fat-tree
//! routing (the down path from a common ancestor is unique).

use super::fabric::{FabricKind, Host, Switch};
use super::fabric_spec::RawFabric;
use crate::error::{Error, Result};

/// Build `fattree:K:L`.
pub fn generate(spec: &str, k: u32, levels: u32) -> Result<RawFabric> {
    let err = |m: String| Error::spec("topology", spec, m);
    if !(2..=256).contains(&k) || !k.is_multiple_of(2) {
        return Err(err(format!(
            "expected an even port count K in 2..=256, found {k}"
        )));
    }
    if !(1..=6).contains(&levels) {
        return Err(err(format!("expected 1 to 6 levels, found {levels}")));
    }
    let m = (k / 2) as usize;
    if levels == 1 {
        let hosts = (0..k)
            .map(|i| Host {
                name: format!("h{i}"),
                switch: 0,
            })
            .collect();
        return Ok(RawFabric {
            switches: vec![Switch {
                name: "top0".into(),
                guid: None,
                desc: None,
                ports: k,
            }],
            links: Vec::new(),
            hosts,
            kind: FabricKind::FatTree { top: vec![0] },
            default_job: None,
            ca_ports: Vec::new(),
        });
    }
    let pod_levels = (levels - 1) as usize; // levels inside a pod
    let per_level = m.checked_pow(pod_levels as u32 - 1).unwrap_or(usize::MAX); // switches per pod level
    let top = m.checked_pow(pod_levels as u32).unwrap_or(usize::MAX);
    let pods = k as usize;
    let total = top.saturating_add(pods.saturating_mul(pod_levels).saturating_mul(per_level));
    let host_count = pods.saturating_mul(per_level).saturating_mul(m);
    if total > super::fabric::MAX_SWITCHES || host_count > super::fabric::MAX_HOSTS {
        return Err(err(format!(
            "expected at most {} switches and {} hosts, found {total} and {host_count}",
            super::fabric::MAX_SWITCHES,
            super::fabric::MAX_HOSTS
        )));
    }
    // Index of pod p, pod level ℓ (0 = pod top, pod_levels−1 = leaf), label w.
    let idx = |p: usize, l: usize, w: usize| top + (p * pod_levels + l) * per_level + w;
    let mut switches = Vec::with_capacity(total);
    for c in 0..top {
        switches.push(Switch {
            name: format!("top{c}"),
            guid: None,
            desc: None,
            ports: k,
        });
    }
    for p in 0..pods {
        for l in 0..pod_levels {
            for w in 0..per_level {
                let name = if l + 1 == pod_levels {
                    format!("leaf{p}_{w}")
                } else {
                    format!("agg{}_{p}_{w}", pod_levels - 1 - l)
                };
                switches.push(Switch {
                    name,
                    guid: None,
                    desc: None,
                    ports: k,
                });
            }
        }
    }
    let mut links = Vec::new();
    // Top switch c ↔ pod top-level switch c / m of every pod.
    for c in 0..top {
        for p in 0..pods {
            links.push((c as u32, idx(p, 0, c / m) as u32));
        }
    }
    // Inside a pod: pod level ℓ (from the top) ↔ ℓ+1. In Petrini's labels the
    // tree level from the leaves is t = pod_levels−1−ℓ; a switch at tree level
    // t links up to the switches that differ in digit t.
    for p in 0..pods {
        for l in 1..pod_levels {
            let t = pod_levels - 1 - l; // tree level of the lower switch
            let pw = m.pow(t as u32);
            for w in 0..per_level {
                let digit = (w / pw) % m;
                let base = w - digit * pw;
                for j in 0..m {
                    links.push((idx(p, l - 1, base + j * pw) as u32, idx(p, l, w) as u32));
                }
            }
        }
    }
    let mut hosts = Vec::with_capacity(host_count);
    for p in 0..pods {
        for w in 0..per_level {
            let leaf = idx(p, pod_levels - 1, w) as u32;
            for _ in 0..m {
                hosts.push(Host {
                    name: format!("h{}", hosts.len()),
                    switch: leaf,
                });
            }
        }
    }
    Ok(RawFabric {
        switches,
        links,
        hosts,
        kind: FabricKind::FatTree {
            top: (0..top as u32).collect(),
        },
        default_job: None,
        ca_ports: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn degrees(f: &RawFabric) -> Vec<u32> {
        let mut d = vec![0u32; f.switches.len()];
        for &(a, b) in &f.links {
            d[a as usize] += 1;
            d[b as usize] += 1;
        }
        for h in &f.hosts {
            d[h.switch as usize] += 1;
        }
        d
    }

    #[test]
    fn sizes_and_full_ports() {
        for (k, l, sw, h) in [
            (4, 2, 6, 8),
            (4, 3, 20, 16),
            (8, 3, 80, 128),
            (48, 3, 2880, 27648),
            (4, 4, 56, 32),
        ] {
            let f = generate("t", k, l).unwrap();
            assert_eq!((f.switches.len(), f.hosts.len()), (sw, h), "{k}:{l}");
            assert!(degrees(&f).iter().all(|&d| d == k), "{k}:{l}");
            let mut e = f.links.clone();
            e.sort();
            e.dedup();
            assert_eq!(e.len(), f.links.len(), "no parallel links {k}:{l}");
        }
        assert!(generate("t", 5, 3).is_err());
    }
}
