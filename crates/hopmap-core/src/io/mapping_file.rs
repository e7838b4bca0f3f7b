//! Mapping file reader: one line per process in rank order.
//!
//! A line is either a node index, or grid coordinates as in a Blue Gene
//! mapfile (Balaji et al. §2.2): on an N-dimensional mesh/torus, N numbers
//! give the node, and an (N+1)-th the core slot `t`. `#` starts a comment;
//! blank lines are skipped. On a 1-D grid a single number is the node either
//! way, and two numbers are `x t`.
//!
//! Lines with an explicit core claim their slot first; then every line
//! without one takes its node's lowest core not claimed by anyone (in rank
//! order), so that a multi-core mapping can list node indices only (the rule
//! of [`Mapping::from_nodes`] when no line names a core). Every error names
//! the line: a node past the topology, a coordinate or core out of range, two
//! processes in one slot, a full node, too few or too many lines.
//! Cost: O(bytes + n + slots).

use super::text::{self, Fields, Lines, show};
use crate::error::{Error, Result};
use crate::mapping::Mapping;
use crate::topology::Topology;
use crate::topology::grid::MAX_DIMS;
use std::collections::HashMap;
use std::path::Path;

/// Parse a mapping of `n` processes onto `topo`.
pub fn parse(bytes: &[u8], path: &Path, topo: &Topology, n: usize) -> Result<Mapping> {
    let nodes = topo.num_nodes();
    let cores = topo.cores();
    let grid = topo.as_grid();
    let ndims = grid.map_or(0, |g| g.ndims());
    let cap = n.min(bytes.len() / 2 + 1);
    let mut node: Vec<u32> = Vec::with_capacity(cap);
    // u32::MAX = no explicit core yet.
    let mut core: Vec<u32> = Vec::with_capacity(cap);
    let mut lines: Vec<u32> = Vec::with_capacity(cap);
    let shape = if ndims > 1 {
        format!(
            "a node index (0 to {}), {ndims} coordinates, or {ndims} coordinates and a core",
            nodes - 1
        )
    } else {
        format!(
            "a node index (0 to {}), optionally followed by a core",
            nodes - 1
        )
    };
    for (ln, l) in Lines::new(bytes) {
        let l = text::strip_comment(l, b"#");
        let mut vals = [0u64; MAX_DIMS + 1];
        let mut k = 0usize;
        for t in Fields::new(l, false) {
            if k == vals.len() {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("expected {shape}, found too many numbers"),
                ));
            }
            vals[k] = text::uint(path, ln, Some(t), "a node index or coordinate")?;
            k += 1;
        }
        if k == 0 {
            continue;
        }
        if node.len() == n {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected {n} lines (one per process), found more: {}",
                    show(l)
                ),
            ));
        }
        let (nd, c) = if k == 1 || (ndims <= 1 && k == 2) {
            let v = vals[0];
            if v >= nodes as u64 {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("expected a node index below {nodes} ({topo}), found {v}"),
                ));
            }
            (v as usize, (k == 2).then_some(vals[1]))
        } else if let Some(g) = grid.filter(|_| k == ndims || k == ndims + 1) {
            let mut c = [0u32; MAX_DIMS];
            for d in 0..ndims {
                let size = g.dims()[d];
                if vals[d] >= size as u64 {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "expected coordinate {} from 0 to {} ({topo}), found {}",
                            ["x", "y", "z", "w", "v", "u"][d],
                            size - 1,
                            vals[d]
                        ),
                    ));
                }
                c[d] = vals[d] as u32;
            }
            let Some(id) = g.node_checked(&c[..ndims]) else {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("expected coordinates inside {topo}"),
                ));
            };
            (id, (k == ndims + 1).then_some(vals[ndims]))
        } else {
            return Err(Error::parse(
                path,
                ln,
                format!("expected {shape}, found {k} numbers"),
            ));
        };
        let c = match c {
            Some(c) if c >= cores as u64 => {
                return Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected a core from 0 to {} ({topo}), found {c}",
                        cores - 1
                    ),
                ));
            }
            Some(c) => c as u32,
            None => u32::MAX,
        };
        node.push(nd as u32);
        core.push(c);
        lines.push(ln.min(u32::MAX as usize) as u32);
    }
    if node.len() != n {
        return Err(Error::parse(
            path,
            text::eof_line(bytes),
            format!("expected {n} lines (one per process), found {}", node.len()),
        ));
    }
    // Explicit slots first.
    // Hash maps, not slot-sized arrays: a topology may have far more slots
    // than the mapping has processes.
    let mut owner: HashMap<usize, u32> = HashMap::with_capacity(n);
    for p in 0..n {
        if core[p] != u32::MAX {
            let s = node[p] as usize * cores + core[p] as usize;
            if let Some(&q) = owner.get(&s) {
                let q = q as usize;
                return Err(Error::parse(
                    path,
                    lines[p] as usize,
                    format!(
                        "expected one process per slot, found processes {q} (line {}) and {p} on node {} core {}",
                        lines[q], node[p], core[p]
                    ),
                ));
            }
            owner.insert(s, p as u32);
        }
    }
    // Then the next free core for the others.
    let mut next: HashMap<u32, u32> = HashMap::new();
    for p in 0..n {
        if core[p] != u32::MAX {
            continue;
        }
        let nd = node[p] as usize;
        let mut c = next.get(&node[p]).copied().unwrap_or(0) as usize;
        while c < cores && owner.contains_key(&(nd * cores + c)) {
            c += 1;
        }
        if c == cores {
            return Err(Error::parse(
                path,
                lines[p] as usize,
                format!("expected a free core on node {nd}, found all {cores} taken"),
            ));
        }
        owner.insert(nd * cores + c, p as u32);
        core[p] = c as u32;
        next.insert(node[p], c as u32 + 1);
    }
    Ok(Mapping::new(node, core))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("map.txt")
    }

    #[test]
    fn indices_coords_and_cores() {
        let t = Topology::parse("torus:3x3:cores=2").unwrap();
        // node index; x y; x y t; node index again (takes next free core).
        let s = b"# mapping\n4\n1 1\n0 0 1\n\n0 # comment\n";
        let m = parse(s, p(), &t, 4).unwrap();
        assert_eq!(m.node, vec![4, 4, 0, 0]);
        assert_eq!(m.core, vec![0, 1, 1, 0]);
        m.validate(4, &t).unwrap();
        // 3-D coordinates, X-fastest.
        let t = Topology::parse("mesh:2x3x4").unwrap();
        let m = parse(b"1 2 3\n0 0 0\n", p(), &t, 2).unwrap();
        assert_eq!(m.node, vec![1 + 2 * (2 + 3 * 3), 0]);
    }

    #[test]
    fn errors_name_path_and_line() {
        let t = Topology::parse("torus:3x3:cores=2").unwrap();
        let e = |s: &[u8], n| parse(s, p(), &t, n).unwrap_err().to_string();
        assert_eq!(
            e(b"0\n9\n", 2),
            "map.txt:2: expected a node index below 9 (torus:3x3:cores=2), found 9"
        );
        assert_eq!(
            e(b"0 0 1\n1\n0 0 1\n", 3),
            "map.txt:3: expected one process per slot, found processes 0 (line 1) and 2 on node 0 core 1"
        );
        assert_eq!(
            e(b"0\n0\n0\n", 3),
            "map.txt:3: expected a free core on node 0, found all 2 taken"
        );
        assert_eq!(
            e(b"0\n1\n", 3),
            "map.txt:2: expected 3 lines (one per process), found 2"
        );
        assert_eq!(
            e(b"0\n1\n2\n", 2),
            "map.txt:3: expected 2 lines (one per process), found more: `2`"
        );
        assert_eq!(
            e(b"0 3\n", 1),
            "map.txt:1: expected coordinate y from 0 to 2 (torus:3x3:cores=2), found 3"
        );
        assert_eq!(
            e(b"0 0 2\n", 1),
            "map.txt:1: expected a core from 0 to 1 (torus:3x3:cores=2), found 2"
        );
        assert_eq!(
            e(b"0 0 0 0\n", 1),
            "map.txt:1: expected a node index (0 to 8), 2 coordinates, or 2 coordinates and a core, found 4 numbers"
        );
    }
}
