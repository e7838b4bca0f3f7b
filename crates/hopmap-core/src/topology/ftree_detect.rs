//! Is this fabric a fat tree, as OpenSM's `ftree` routing engine decides it
//! (`construct_fabric` and `fabric_validate_topology` in OpenSM's
//! `osm_ucast_ftree.c`, run without root or compute-node files)? If so, which
//! switches are its roots.
//!
//! 1. The fabric needs two switches and two hosts.
//! 2. **Ranking.** The leaf switches are those with CAs cabled to them. A
//!    breadth-first search from all of them gives each switch its distance
//!    to the nearest leaf; the switches farthest from every leaf are the
//!    roots (rank 0). A second search from the roots gives every switch its
//!    rank. More than one switch at rank 0 with nothing below is not a tree.
//! 3. Every switch with CAs must be at the largest rank (the leaf rank), and
//!    the tree (leaf rank + 1 levels) must have 2 to 8 levels.
//! 4. **Regularity.** At every rank, all switches have the same number of
//!    up-groups (neighbour switches one rank up, parallel cables making one
//!    group), every up-group has as many cables as the first up-group of
//!    the rank's first switch (in GUID order), and above the leaf rank they
//!    have the same number of down-groups, of that first switch's size.
//!    OpenSM compares only each switch's first down-group (by port number);
//!    hopmap's fabrics keep no port numbers, so it requires every down-group
//!    to have that size: stricter, equal on regular trees.
//!
//! hopmap routes a recognised fat tree with up/down from the roots
//! ([`crate::routing::Routing::FatTree`]); its route lengths are OpenSM's
//! ftree route lengths. A cable between two switches of one rank (which
//! OpenSM's ftree never uses) is not modelled: such a fabric is reported as
//! not routable by hopmap's ftree.
//!
//! Cost: O(S + L) for S switches and L cables.

use std::collections::VecDeque;

/// Breadth-first distances from `sources` over the switch graph.
fn bfs(adj: &[Vec<(u32, u32)>], sources: impl Iterator<Item = usize>) -> Vec<u32> {
    let mut d = vec![u32::MAX; adj.len()];
    let mut q = VecDeque::new();
    for v in sources {
        if d[v] == u32::MAX {
            d[v] = 0;
            q.push_back(v);
        }
    }
    while let Some(u) = q.pop_front() {
        for &(v, _) in &adj[u] {
            if d[v as usize] == u32::MAX {
                d[v as usize] = d[u] + 1;
                q.push_back(v as usize);
            }
        }
    }
    d
}

/// Neighbour groups of `v` whose rank satisfies `keep`: one entry per
/// distinct neighbour, the number of cables to it (`adj[v]` is sorted).
fn groups(adj: &[Vec<(u32, u32)>], v: usize, keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &(u, _) in &adj[v] {
        if !keep(u) {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.0 == u => last.1 += 1,
            _ => out.push((u, 1)),
        }
    }
    out.into_iter().map(|g| g.1).collect()
}

/// The fat tree's root switches (rank 0), ascending, or why the fabric is
/// not one. `adj[v]`: `(neighbour, link)` of switch `v`, sorted, switches in
/// GUID order; `cas[v]`: CA ports on switch `v`; `name(v)` for messages.
pub fn detect(
    adj: &[Vec<(u32, u32)>],
    cas: &[u32],
    name: &dyn Fn(usize) -> String,
) -> Result<Vec<u32>, String> {
    let s = adj.len();
    if s < 2 {
        return Err(format!("it has {s} switch; a fat tree needs two or more"));
    }
    let total: u64 = cas.iter().map(|&c| c as u64).sum();
    if total < 2 {
        return Err(format!("it has {total} host; a fat tree needs two or more"));
    }
    let leaves = (0..s).filter(|&v| cas.get(v).is_some_and(|&c| c > 0));
    let up = bfs(adj, leaves);
    let far = up
        .iter()
        .copied()
        .filter(|&d| d != u32::MAX)
        .max()
        .unwrap_or(0);
    let rank = bfs(adj, (0..s).filter(|&v| up[v] == far));
    let max_rank = rank
        .iter()
        .copied()
        .filter(|&d| d != u32::MAX)
        .max()
        .unwrap_or(0);
    if max_rank == 0 {
        return Err("every switch has hosts: no switch is above another".into());
    }
    if let Some(v) = (0..s).find(|&v| rank[v] == u32::MAX) {
        return Err(format!("switch {} is not connected", name(v)));
    }
    let levels = max_rank + 1;
    if !(2..=8).contains(&levels) {
        return Err(format!(
            "its tree has {levels} levels; OpenSM's ftree takes 2 to 8"
        ));
    }
    if let Some(v) = (0..s).find(|&v| cas.get(v).is_some_and(|&c| c > 0) && rank[v] != max_rank) {
        return Err(format!(
            "switch {} has hosts at level {} of {levels}; every host must hang from the \
             bottom level",
            name(v),
            rank[v] + 1
        ));
    }
    if let Some(v) = (0..s).find(|&v| adj[v].iter().any(|&(u, _)| rank[u as usize] == rank[v])) {
        return Err(format!(
            "switch {} has a cable to a switch of its own level (hopmap's ftree models \
             cables between adjacent levels only)",
            name(v)
        ));
    }
    // Regularity, rank by rank, against the rank's first switch.
    let mut reference: Vec<Option<(Vec<u32>, Vec<u32>)>> = vec![None; levels as usize];
    for v in 0..s {
        let r = rank[v];
        let ups = groups(adj, v, |u| rank[u as usize] < r);
        let downs = groups(adj, v, |u| rank[u as usize] > r);
        let Some((rup, rdown)) = &reference[r as usize] else {
            reference[r as usize] = Some((ups, downs));
            continue;
        };
        let bad = |what: &str| {
            Err(format!(
                "switches at level {} differ in their {what} ({} against the level's first)",
                r + 1,
                name(v)
            ))
        };
        if ups.len() != rup.len() {
            return bad("number of up-links' neighbours");
        }
        if let Some(&size) = rup.first()
            && ups.iter().any(|&g| g != size)
        {
            return bad("cables per up-neighbour");
        }
        if r != max_rank {
            if downs.len() != rdown.len() {
                return bad("number of down-links' neighbours");
            }
            if let Some(&size) = rdown.first()
                && downs.iter().any(|&g| g != size)
            {
                return bad("cables per down-neighbour");
            }
        }
    }
    Ok((0..s).filter(|&v| rank[v] == 0).map(|v| v as u32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nm(v: usize) -> String {
        format!("s{v}")
    }

    fn adj_of(s: usize, links: &[(u32, u32)]) -> Vec<Vec<(u32, u32)>> {
        let mut adj = vec![Vec::new(); s];
        for (l, &(a, b)) in links.iter().enumerate() {
            adj[a as usize].push((b, l as u32));
            adj[b as usize].push((a, l as u32));
        }
        for v in &mut adj {
            v.sort_unstable();
        }
        adj
    }

    #[test]
    fn leaf_spine_is_a_two_level_tree() {
        let links: Vec<(u32, u32)> = (2..6).flat_map(|l| [(0, l), (1, l)]).collect();
        let adj = adj_of(6, &links);
        assert_eq!(detect(&adj, &[0, 0, 3, 3, 3, 3], &nm), Ok(vec![0, 1]));
        // A host on a spine: it is not at the bottom level.
        assert!(
            detect(&adj, &[1, 0, 3, 3, 3, 3], &nm)
                .unwrap_err()
                .contains("bottom level")
        );
        // One leaf with a second cable to spine 0: spine 0's down-groups
        // differ in size from spine 1's (found first, spines come first).
        let mut l2 = links.clone();
        l2.push((0, 2));
        assert!(
            detect(&adj_of(6, &l2), &[0, 0, 3, 3, 3, 3], &nm)
                .unwrap_err()
                .contains("cables per down-neighbour")
        );
        // A leaf cabled to one spine only: spine 1 has a down-neighbour fewer.
        let l3: Vec<(u32, u32)> = links.iter().copied().filter(|&l| l != (1, 5)).collect();
        assert!(
            detect(&adj_of(6, &l3), &[0, 0, 3, 3, 3, 3], &nm)
                .unwrap_err()
                .contains("number of down-links' neighbours")
        );
    }

    #[test]
    fn rings_and_lone_switches_are_not_trees() {
        // A ring of 4 switches with hosts on 0 and 2: 1 and 3 are the roots,
        // and switch 0 and 2 at the bottom; regular, so it is a tree.
        let ring = adj_of(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        assert_eq!(detect(&ring, &[1, 0, 1, 0], &nm), Ok(vec![1, 3]));
        // Hosts on every switch: nothing above anything.
        assert!(
            detect(&ring, &[1, 1, 1, 1], &nm)
                .unwrap_err()
                .contains("every switch")
        );
        // Hosts on 0 only: 2 is the farthest, the root; 1 and 3 below it.
        assert_eq!(detect(&ring, &[2, 0, 0, 0], &nm), Ok(vec![2]));
        assert!(detect(&adj_of(1, &[]), &[4], &nm).is_err());
        // A cable within a level.
        let tri = adj_of(3, &[(0, 1), (0, 2), (1, 2)]);
        assert!(
            detect(&tri, &[0, 1, 1], &nm)
                .unwrap_err()
                .contains("own level")
        );
    }
}
