//! OpenSM's automatic up*/down* roots: the rule of its `updn` engine when no
//! root file is given (`updn_find_root_nodes_by_min_hop` in OpenSM's
//! `osm_ucast_updn.c`), which picks the spines of fat trees and leaf–spine
//! fabrics.
//!
//! Each switch builds a histogram of the fabric's CA (and router) ports by
//! their min-hop distance from it: a port cabled to switch `t` counts at the
//! plain shortest-path distance from the switch to `t`. With `N` such ports
//! in all, a switch is a root when exactly one bar is above `0.9·N` and no
//! other bar is above `0.05·N` — nearly every host is the same number of
//! hops away, as seen from a spine. On irregular fabrics no switch passes
//! and OpenSM disables up*/down* (then it routes with its default engine,
//! min-hop); hopmap then keeps up*/down* with the root of the minimum-height
//! BFS tree ([`crate::routing::updown::auto_root`]) and says so.
//!
//! Cost: O(S · T) for S switches, T of them with CA ports; no memory beyond
//! the histogram.

use crate::routing::updown::UNREACHABLE;

/// The switches OpenSM's `updn` engine ranks as roots, ascending. `minimal`
/// is the column-major plain shortest-path table (`minimal[t * s + src]`),
/// `ca_ports[t]` the CA and router ports cabled to switch `t`.
pub fn min_hop_roots(s: usize, minimal: &[u16], ca_ports: &[u32]) -> Vec<u32> {
    let total: u64 = ca_ports.iter().map(|&c| c as u64).sum();
    if total == 0 {
        return Vec::new();
    }
    let (thd1, thd2) = (total as f64 * 0.9, total as f64 * 0.05);
    let with_cas: Vec<usize> = (0..s.min(ca_ports.len()))
        .filter(|&t| ca_ports[t] > 0)
        .collect();
    // OpenSM's histogram has one bar per hop count below 64 (the largest
    // InfiniBand path); farther ports are not counted.
    const BARS: usize = 64;
    let mut roots = Vec::new();
    let mut hist = [0u64; BARS];
    for src in 0..s {
        hist.fill(0);
        for &t in &with_cas {
            let d = minimal[t * s + src];
            if d != UNREACHABLE && (d as usize) < BARS {
                hist[d as usize] += ca_ports[t] as u64;
            }
        }
        let over1 = hist.iter().filter(|&&h| h as f64 > thd1).count();
        let over2 = hist.iter().filter(|&&h| h as f64 > thd2).count();
        if over1 == 1 && over2 == 1 {
            roots.push(src as u32);
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::updown::min_table;

    fn table(s: usize, links: &[(u32, u32)]) -> Vec<u16> {
        let mut adj = vec![Vec::new(); s];
        for (l, &(a, b)) in links.iter().enumerate() {
            adj[a as usize].push((b, l as u32));
            adj[b as usize].push((a, l as u32));
        }
        min_table(s, &adj).0
    }

    #[test]
    fn leaf_spine_gives_the_spines() {
        // Spines 0, 1; leaves 2..6, each cabled to both spines, 3 hosts each.
        let links: Vec<(u32, u32)> = (2..6).flat_map(|l| [(0, l), (1, l)]).collect();
        let m = table(6, &links);
        // From a spine all 12 hosts are 1 hop away; from a leaf 3 are at 0
        // hops (25% > 5%), so no leaf is a root.
        assert_eq!(min_hop_roots(6, &m, &[0, 0, 3, 3, 3, 3]), vec![0, 1]);
    }

    #[test]
    fn thresholds_are_strict_and_a_line_has_no_root() {
        // 0 - 1 - 2 with hosts 19 on 0, 1 on 2: from 1 every host is 1 hop
        // away, a root. From 0: 19 at 0 hops (95% > 90%) and 1 at 2 hops
        // (5%, not above 5%): a root too; from 2 the same, mirrored.
        let m = table(3, &[(0, 1), (1, 2)]);
        assert_eq!(min_hop_roots(3, &m, &[19, 0, 1]), vec![0, 1, 2]);
        // 18 and 2: from 0, 18 of 20 is 90%, not above it.
        assert_eq!(min_hop_roots(3, &m, &[18, 0, 2]), vec![1]);
        // Hosts on all three: the centre sees 1/3 at 0 hops, 2/3 at 1.
        assert_eq!(min_hop_roots(3, &m, &[1, 1, 1]), Vec::<u32>::new());
        assert_eq!(min_hop_roots(3, &m, &[0, 0, 0]), Vec::<u32>::new());
    }
}
