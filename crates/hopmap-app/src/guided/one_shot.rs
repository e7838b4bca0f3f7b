//! Guided mode for the one-shot mappers: `default`, `random` (RM) and the
//! permutation orders of Balaji et al. §2.2. Each sentence names a few
//! ranks: O(D) per named rank (D = dimensions), never O(n).

use super::{coord_str, slot_str};
use hopmap_core::mappers::permutation::{Axis, order_string};
use hopmap_core::mappers::{MapperRun, OneShot, OneShotPlan};
use hopmap_core::topology::{Grid, Topology};

/// The sentence on the one step (None before it).
pub fn explain(r: &OneShot) -> Option<String> {
    let topo = r.topology();
    let n = r.placement().len();
    Some(match r.plan()? {
        OneShotPlan::Order { order, launcher } => {
            let g = topo.as_grid()?;
            let why = order_why(order, g);
            if *launcher {
                let why =
                    format!("it is what the launcher does without topology information; {why}");
                explain_order("default", &why, order, g, n)
            } else {
                explain_order(&order_string(order), &why, order, g, n)
            }
        }
        OneShotPlan::Random { seed } => {
            let slots: Vec<usize> = r
                .placement()
                .iter()
                .map(|s| s.map_or(0, |s| s as usize))
                .collect();
            explain_random(topo, &slots, *seed)
        }
        OneShotPlan::Linear => explain_linear(topo, n),
    })
}

/// The slot of rank `r` under a permutation `order` (mixed radix, the first
/// letter varying fastest). O(D).
fn rank_slot(order: &[Axis], g: &Grid, r: usize) -> usize {
    let cores = g.cores() as usize;
    let (mut rest, mut node, mut core) = (r, 0usize, 0usize);
    for a in order {
        let k = a.size(g).max(1);
        let digit = rest % k;
        rest /= k;
        match a {
            Axis::Dim(d) => node += digit * g.strides()[*d],
            Axis::T => core = digit,
        }
    }
    node * cores + core
}

/// A position of a rank under an order: `(x, y, z)` plus the core when
/// nodes have several.
fn pos_str(g: &Grid, slot: usize) -> String {
    let cores = g.cores() as usize;
    let c = if cores > 1 {
        format!(" core {}", slot % cores)
    } else {
        String::new()
    };
    format!("{}{c}", coord_str(g, slot / cores))
}

/// Guided sentence of a permutation order (`who` = the mapper's name, e.g.
/// "default" or "XYZT"): the digit formulas and a few ranks' positions.
fn explain_order(who: &str, why: &str, order: &[Axis], g: &Grid, n: usize) -> String {
    let os = order_string(order);
    if n == 0 {
        return format!("{who}: no ranks to lay out in order {os} (Balaji et al. §2.2)");
    }
    // Digit formulas of the axes longer than 1: X = r mod 4, Y = (r div 4) mod 4.
    let mut parts = Vec::new();
    let mut stride = 1usize;
    let mut runs: Vec<usize> = Vec::new(); // strides of the non-trivial axes
    for a in order {
        let k = a.size(g);
        if k > 1 {
            let l = a.letter();
            parts.push(if stride == 1 {
                format!("{l} = r mod {k}")
            } else {
                format!("{l} = (r div {stride}) mod {k}")
            });
            runs.push(stride);
        }
        stride = stride.saturating_mul(k.max(1));
    }
    let run = runs.get(1).copied().unwrap_or(stride).min(n).max(1);
    let mut named = vec![0usize];
    if n > 1 {
        named.push(1);
    }
    if let Some(&s) = runs.get(1)
        && s < n
    {
        named.push(s);
    }
    if n > 2 && !named.contains(&(n - 1)) {
        named.push(n - 1);
    }
    let examples: Vec<String> = named
        .iter()
        .map(|&r| format!("rank {r} on {}", pos_str(g, rank_slot(order, g, r))))
        .collect();
    let first = order
        .iter()
        .find(|a| a.size(g) > 1)
        .map_or('T', |a| a.letter());
    format!(
        "{who} laid the {n} ranks out in order {os}, the first letter varying fastest ({}): \
         ranks 0–{} run along {first}; {}. Why: {why} (Balaji et al. §2.2)",
        if parts.is_empty() {
            "one position".to_string()
        } else {
            parts.join(", ")
        },
        run - 1,
        examples.join(", "),
    )
}

/// Why an order is chosen, read from its string: where T sits decides
/// whether consecutive ranks share a node; the first dimension is the one
/// consecutive ranks walk along.
fn order_why(order: &[Axis], g: &Grid) -> String {
    let cores = g.cores();
    let dims: Vec<char> = order
        .iter()
        .filter(|a| matches!(a, Axis::Dim(_)) && a.size(g) > 1)
        .map(|a| a.letter())
        .collect();
    let along = match dims.first() {
        Some(c) => format!("consecutive ranks are one hop apart along {c}"),
        None => "the machine is one node".to_string(),
    };
    if cores > 1 && order.first() == Some(&Axis::T) {
        format!(
            "T first fills a node's {cores} cores with consecutive ranks (they talk through \
             memory); after that {along}, so a row of the logical grid lies on as few nodes \
             and links as possible"
        )
    } else if cores > 1 && order.last() == Some(&Axis::T) {
        format!(
            "T last puts one rank on every node before any gets a second core: {along}, and a \
             rank's partner r ± 1 is on the next node"
        )
    } else if cores > 1 {
        format!("T in the middle fills cores after the axes before it; {along}")
    } else {
        format!("nodes have one core, so T does not matter: {along}")
    }
}

/// Guided sentence of RM (a seeded random placement): which process went
/// where, for the first few processes and the last.
fn explain_random(topo: &Topology, slots: &[usize], seed: u64) -> String {
    let n = slots.len();
    let k = n.min(3);
    let mut ex: Vec<String> = (0..k)
        .map(|p| format!("process {p} on {}", slot_str(topo, slots[p])))
        .collect();
    if n > k {
        ex.push(format!(
            "…, process {} on {}",
            n - 1,
            slot_str(topo, slots[n - 1])
        ));
    }
    format!(
        "RM put each of the {n} processes on a uniformly random free slot (of {} slots: a \
         Fisher–Yates shuffle seeded with {seed}; the same seed gives the same mapping): {}. \
         The baseline every heuristic must beat: a message travels about half the diameter \
         (Moh et al. §4, random mapping RM; Bhatele & Kale §VIII)",
        topo.num_slots(),
        if ex.is_empty() {
            "nothing to place".to_string()
        } else {
            ex.join(", ")
        }
    )
}

/// Guided sentence of `default` on a topology that is not a grid (a
/// switch fabric): rank i goes to slot i, hosts in their listed order.
fn explain_linear(topo: &Topology, n: usize) -> String {
    let mut ex = vec![format!("rank 0 on {}", slot_str(topo, 0))];
    if n > 1 {
        ex.push(format!("rank {} on {}", n - 1, slot_str(topo, n - 1)));
    }
    format!(
        "default put rank i on slot i: the {n} ranks fill the hosts' cores in the order the \
         hosts are listed, as a launcher does without topology information ({}). Why: it keeps \
         ranks that are numbered close together close in the list, which is only near in the \
         network if the list follows it (Bhatele & Kale §VII-B's default mapping; Balaji et al. \
         §2.2)",
        if n == 0 {
            "nothing to place".to_string()
        } else {
            ex.join(", ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use hopmap_core::mappers::permutation::{first_run, order_slots, parse_order};

    #[test]
    fn rank_slot_agrees_with_order_slots() {
        let t = Topology::parse("torus:2x3x4:cores=2").unwrap();
        let g = t.as_grid().unwrap();
        for o in ["TXYZ", "XYZT", "TZXY", "ZYXT", "YTZX"] {
            let order = parse_order(o, g).unwrap();
            let all = order_slots(&order, g, t.num_slots());
            for (r, &s) in all.iter().enumerate() {
                assert_eq!(rank_slot(&order, g, r), s, "{o} rank {r}");
            }
        }
    }

    #[test]
    fn an_order_sentence_names_the_formula_and_real_positions() {
        let t = Topology::parse("torus:4x4x2").unwrap();
        let g = t.as_grid().unwrap();
        let order = parse_order("XYZT", g).unwrap();
        let s = explain_order("XYZT", "because", &order, g, 32);
        let hl = first_run(&order, g, 32);
        assert_eq!(
            s,
            "XYZT laid the 32 ranks out in order XYZT, the first letter varying fastest (X = r mod \
             4, Y = (r div 4) mod 4, Z = (r div 16) mod 2): ranks 0–3 run along X; \
             rank 0 on (0, 0, 0), rank 1 on (1, 0, 0), rank 4 on (0, 1, 0), rank 31 on (3, 3, 1). \
             Why: because (Balaji et al. §2.2)"
        );
        assert_eq!(hl, vec![0, 1, 2, 3]);
        let t2 = Topology::parse("mesh:2x2:cores=2").unwrap();
        let g2 = t2.as_grid().unwrap();
        let o2 = parse_order("TXY", g2).unwrap();
        assert!(order_why(&o2, g2).starts_with("T first fills a node's 2 cores"));
        let s2 = explain_order("default", "w", &o2, g2, 8);
        let hl2 = first_run(&o2, g2, 8);
        assert!(s2.contains("rank 1 on (0, 0) core 1"), "{s2}");
        assert!(s2.contains("rank 2 on (1, 0) core 0"), "{s2}");
        assert_eq!(hl2, vec![0, 1]);
    }
}
