//! Layered drawing of a switch fabric: the switches in the levels of the
//! up*/down* spanning tree (Moh et al. §3.1: level = hops from the root, so
//! the root is level 0, on top), ordered within each level to reduce link
//! crossings. Pure geometry (no GUI types): the network view scales it to
//! the screen.
//!
//! * **Levels** are [`UpDown::level`]; every inter-switch link joins two
//!   switches of one level or of adjacent levels (BFS levels differ by at
//!   most one across a link), so only those two kinds of links exist.
//! * **Initial order**: a depth-first walk of the BFS tree ([`UpDown::parent`],
//!   children in switch order, roots in switch order), so every subtree is a
//!   contiguous run of each level.
//! * **Crossing reduction**: barycentre sweeps (Sugiyama, Tagawa & Toda 1981,
//!   "Methods for visual understanding of hierarchical system structures",
//!   §3.2): alternately downwards (each switch keyed by the mean position of
//!   its neighbours one level up) and upwards (one level down), a stable sort
//!   per level; switches without a neighbour on the reference level keep
//!   their position as key. After every sweep the crossings between adjacent
//!   levels are counted (edges sorted by their upper end, inversions of their
//!   lower ends counted with a Fenwick tree, after Barth, Jünger & Mutzel
//!   2002); the order with the fewest crossings is kept, so sweeping never
//!   makes it worse than the tree order. Same-level links are drawn as arcs
//!   and not counted.
//! * **x positions**: the widest level is packed (each switch takes its
//!   [`slot_width`], then a gap); every other level spreads its switches
//!   evenly over that width, so a tree fans out under its root.
//!
//! Cost: O(S + L) for the levels and the tree order, O(sweeps · L log S) for
//! the sweeps and the crossing counts (L links, S switches); memory O(S + L).
//! For `fattree:48:3` (2,880 switches, 55,296 links) a few milliseconds.

use hopmap_core::routing::updown::UpDown;
use hopmap_core::topology::fabric::Fabric;

/// Sweeps run by [`layout`] by default (each is one pass down or up).
pub const DEFAULT_SWEEPS: usize = 8;

/// Gap between packed switches, in port units.
pub const GAP: f32 = 4.0;

/// The layered drawing of one fabric for one up*/down* structure.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FabricLayout {
    /// Switches of each level, left to right (level 0 = the roots).
    pub levels: Vec<Vec<u32>>,
    /// Level of each switch.
    pub level_of: Vec<u32>,
    /// Index of each switch within its level.
    pub pos: Vec<u32>,
    /// Centre x of each switch, in port units, in `0..width`.
    pub x: Vec<f32>,
    /// Width of the drawing in port units.
    pub width: f32,
    /// Width of each switch's slot in port units ([`slot_width`]).
    pub slot: Vec<f32>,
    /// Crossings between adjacent levels of the tree order and of the result.
    pub crossings_initial: u64,
    pub crossings: u64,
}

/// The room a switch takes in its level: its box (as wide as its port
/// count) or, when wider, the strip of its hosts drawn under it (one unit a
/// host, at most 32 units).
pub fn slot_width(ports: u32, hosts: usize) -> f32 {
    (ports.max(1) as f32).max((hosts as f32).min(32.0))
}

/// Lay out fabric `f` in the levels of `ud` with `sweeps` barycentre sweeps.
pub fn layout(f: &Fabric, ud: &UpDown, sweeps: usize) -> FabricLayout {
    let s = f.num_switches();
    let level_of: Vec<u32> = (0..s)
        .map(|v| ud.level.get(v).copied().unwrap_or(0))
        .collect();
    let nlev = level_of.iter().copied().max().map_or(0, |m| m as usize + 1);
    let levels = tree_order(s, &level_of, &ud.parent, nlev);
    let links = f.switch_links();
    let mut pos = positions(s, &levels);
    let crossings_initial = crossings(links, &level_of, &pos, &levels);
    let mut best = (crossings_initial, levels.clone());
    let mut cur = levels;
    for k in 0..sweeps {
        if best.0 == 0 {
            break;
        }
        let down = k % 2 == 0;
        sweep(&mut cur, links, &level_of, &mut pos, down);
        let c = crossings(links, &level_of, &pos, &cur);
        if c < best.0 {
            best = (c, cur.clone());
        }
    }
    let (crossings, levels) = best;
    let pos = positions(s, &levels);
    let slot: Vec<f32> = (0..s)
        .map(|v| slot_width(f.switches()[v].ports, f.hosts_on(v).len()))
        .collect();
    let width = levels
        .iter()
        .map(|l| l.iter().map(|&v| slot[v as usize] + GAP).sum::<f32>())
        .fold(0.0f32, f32::max);
    let mut x = vec![0.0f32; s];
    for lv in &levels {
        let packed: f32 = lv.iter().map(|&v| slot[v as usize] + GAP).sum();
        if packed >= width - 1e-3 {
            let mut at = 0.0;
            for &v in lv {
                let w = slot[v as usize] + GAP;
                x[v as usize] = at + w * 0.5;
                at += w;
            }
        } else {
            let step = width / lv.len().max(1) as f32;
            for (i, &v) in lv.iter().enumerate() {
                x[v as usize] = (i as f32 + 0.5) * step;
            }
        }
    }
    FabricLayout {
        levels,
        level_of,
        pos,
        x,
        width,
        slot,
        crossings_initial,
        crossings,
    }
}

/// Each level's switches in depth-first order of the BFS tree.
fn tree_order(s: usize, level_of: &[u32], parent: &[Option<u32>], nlev: usize) -> Vec<Vec<u32>> {
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); s];
    let mut roots = Vec::new();
    for v in 0..s {
        match parent.get(v).copied().flatten() {
            Some(p) if (p as usize) < s => children[p as usize].push(v as u32),
            _ => roots.push(v as u32),
        }
    }
    let mut levels: Vec<Vec<u32>> = vec![Vec::new(); nlev];
    let mut seen = vec![false; s];
    let mut stack: Vec<u32> = Vec::new();
    for &r in &roots {
        stack.push(r);
        while let Some(v) = stack.pop() {
            if std::mem::replace(&mut seen[v as usize], true) {
                continue;
            }
            levels[level_of[v as usize] as usize].push(v);
            // Reversed so that the first child is visited first.
            stack.extend(children[v as usize].iter().rev());
        }
    }
    levels
}

fn positions(s: usize, levels: &[Vec<u32>]) -> Vec<u32> {
    let mut pos = vec![0u32; s];
    for lv in levels {
        for (i, &v) in lv.iter().enumerate() {
            pos[v as usize] = i as u32;
        }
    }
    pos
}

/// One barycentre sweep: downwards (key = mean position of the neighbours
/// one level up), or upwards (one level down).
fn sweep(
    levels: &mut [Vec<u32>],
    links: &[(u32, u32)],
    level_of: &[u32],
    pos: &mut [u32],
    down: bool,
) {
    let s = pos.len();
    let nlev = levels.len();
    let mut sum = vec![0.0f64; s];
    let mut cnt = vec![0u32; s];
    let order: Vec<usize> = if down {
        (1..nlev).collect()
    } else {
        (0..nlev.saturating_sub(1)).rev().collect()
    };
    for l in order {
        let reference = if down { l - 1 } else { l + 1 } as u32;
        for &v in &levels[l] {
            sum[v as usize] = 0.0;
            cnt[v as usize] = 0;
        }
        for &(a, b) in links {
            for (v, w) in [(a, b), (b, a)] {
                if level_of[v as usize] as usize == l && level_of[w as usize] == reference {
                    sum[v as usize] += pos[w as usize] as f64;
                    cnt[v as usize] += 1;
                }
            }
        }
        let key = |v: u32| -> f64 {
            let v = v as usize;
            if cnt[v] > 0 {
                sum[v] / cnt[v] as f64
            } else {
                pos[v] as f64
            }
        };
        let lv = &mut levels[l];
        let mut keyed: Vec<(f64, u32)> = lv.iter().map(|&v| (key(v), v)).collect();
        keyed.sort_by(|x, y| x.0.total_cmp(&y.0));
        for (i, (_, v)) in keyed.into_iter().enumerate() {
            lv[i] = v;
            pos[v as usize] = i as u32;
        }
    }
}

/// Crossings between links joining adjacent levels, summed over level pairs.
pub fn crossings(links: &[(u32, u32)], level_of: &[u32], pos: &[u32], levels: &[Vec<u32>]) -> u64 {
    let mut per: Vec<Vec<(u32, u32)>> = vec![Vec::new(); levels.len()];
    for &(a, b) in links {
        let (la, lb) = (level_of[a as usize], level_of[b as usize]);
        if la == lb {
            continue;
        }
        let (up, down) = if la < lb { (a, b) } else { (b, a) };
        per[level_of[up as usize] as usize].push((pos[up as usize], pos[down as usize]));
    }
    let mut total = 0u64;
    for (l, mut e) in per.into_iter().enumerate() {
        if e.len() < 2 {
            continue;
        }
        e.sort_unstable();
        let n = levels.get(l + 1).map_or(0, |v| v.len());
        // Fenwick tree over lower positions: for each edge, count earlier
        // edges whose lower end is strictly to its right.
        let mut tree = vec![0u64; n + 1];
        for (seen, &(_, q)) in e.iter().enumerate() {
            let q = q as usize;
            let mut le = 0u64;
            let mut i = q + 1;
            while i > 0 {
                le += tree[i];
                i &= i - 1;
            }
            total += seen as u64 - le;
            let mut i = q + 1;
            while i <= n {
                tree[i] += 1;
                i += i & i.wrapping_neg();
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::topology::Topology;

    fn fab(spec: &str) -> Fabric {
        Topology::parse(spec).unwrap().as_fabric().unwrap().clone()
    }

    fn check(f: &Fabric, ud: &UpDown, l: &FabricLayout) {
        let s = f.num_switches();
        // Every switch placed exactly once, on its up*/down* level.
        let mut count = vec![0; s];
        for (lev, v) in l.levels.iter().enumerate() {
            for &sw in v {
                count[sw as usize] += 1;
                assert_eq!(ud.level[sw as usize] as usize, lev);
                assert_eq!(l.level_of[sw as usize] as usize, lev);
                assert_eq!(v[l.pos[sw as usize] as usize], sw);
            }
        }
        assert!(count.iter().all(|&c| c == 1), "{count:?}");
        // The roots, and only they, are on top.
        let mut top = l.levels[0].clone();
        top.sort_unstable();
        assert_eq!(top, ud.roots);
        // Left to right within a level, inside the drawing.
        for v in &l.levels {
            for w in v.windows(2) {
                assert!(l.x[w[0] as usize] < l.x[w[1] as usize]);
            }
            for &sw in v {
                assert!(l.x[sw as usize] > 0.0 && l.x[sw as usize] < l.width);
            }
        }
        assert!(l.crossings <= l.crossings_initial);
    }

    #[test]
    fn moh_fig2_levels_are_the_updown_levels_root_on_top() {
        let f = fab("fabric:moh-fig2");
        let l = layout(&f, f.updown(), DEFAULT_SWEEPS);
        check(&f, f.updown(), &l);
        assert_eq!(l.levels[0].len(), 1);
        assert_eq!(l.levels.iter().map(Vec::len).sum::<usize>(), 9);
    }

    #[test]
    fn random_and_regular_fabrics_place_every_switch_once() {
        for spec in [
            "fabric:75,256,8,0.75",
            "fabric:30,60,6,0.5,7",
            "dragonfly:4,2,2",
            "fattree:4:3",
        ] {
            let f = fab(spec);
            let l = layout(&f, f.updown(), DEFAULT_SWEEPS);
            check(&f, f.updown(), &l);
        }
    }

    #[test]
    fn fat_tree_with_every_top_switch_a_root_is_three_tiers() {
        // fattree:4:3: 4 top switches, 4 pods of 2 + 2 switches.
        let f = fab("fattree:4:3");
        let ud = f.fat_tree().unwrap();
        let l = layout(&f, ud, DEFAULT_SWEEPS);
        check(&f, ud, &l);
        assert_eq!(
            l.levels.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![4, 8, 8]
        );
        // Drawn pod by pod, the core–aggregation links cross 36 times (core
        // c reaches aggregation switch c/2 of every pod) and each pod's
        // K2,2 once: 40. Interleaving the pods' aggregation switches gives
        // 12 + 28 = 40 as well; nothing the sweeps keep is worse.
        assert!(l.crossings <= 40, "{}", l.crossings);
    }

    #[test]
    fn crossing_count_by_hand() {
        // Level 0: a=0, b=1; level 1: c=2, d=3. Links a–d and b–c cross once;
        // a–c, b–d do not.
        let level_of = [0, 0, 1, 1];
        let levels = vec![vec![0, 1], vec![2, 3]];
        let pos = [0, 1, 0, 1];
        assert_eq!(crossings(&[(0, 3), (1, 2)], &level_of, &pos, &levels), 1);
        assert_eq!(crossings(&[(0, 2), (1, 3)], &level_of, &pos, &levels), 0);
        // K2,2: one crossing; same-level links are not counted.
        assert_eq!(
            crossings(
                &[(0, 2), (0, 3), (1, 2), (1, 3), (0, 1)],
                &level_of,
                &pos,
                &levels
            ),
            1
        );
    }
}
