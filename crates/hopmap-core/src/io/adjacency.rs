//! Build a symmetric graph from an adjacency listing in which every edge
//! appears twice (once in each endpoint's list, with the same weight), as in
//! METIS and Scotch files.
//!
//! The listing is parsed once and its arcs kept (32 bytes each) for two
//! passes:
//! 1. arcs `u → v` with `u < v` go to the builder with their weight as the
//!    pair volume (so an edge of weight `w` gives volume `w`, not `2w`);
//! 2. after the CSR is built, every arc is matched against its pair: a
//!    reverse arc `v → u` must find the pair with the same weight, no arc may
//!    be listed twice, and every pair must be listed from both ends.
//!
//! Any mismatch is an error naming the line of the offending vertex.
//! Cost: one scan plus O(n + m log d) for the build and O(log d) per arc;
//! memory O(m) for the kept arcs.

use crate::error::{Error, Result};
use crate::graph::{CommGraph, GraphBuilder};
use std::path::Path;

/// One listed arc: vertex `u` (0-based) lists `v` with weight `w` on `line`.
#[derive(Clone, Copy, Debug)]
pub struct Arc {
    pub u: usize,
    pub v: usize,
    pub w: f64,
    pub line: usize,
}

/// `scan` calls its sink once per arc, in file order, and fails on malformed
/// input. `base` is added to vertex numbers in
/// messages (1 for METIS); `vertex_line(u)` is the line where `u`'s list is.
pub fn build_symmetric<S>(
    path: &Path,
    n: usize,
    capacity: usize,
    base: usize,
    scan: S,
) -> Result<CommGraph>
where
    S: FnOnce(&mut dyn FnMut(Arc) -> Result<()>) -> Result<Vec<u32>>,
{
    let mut b = GraphBuilder::with_capacity(n, false, capacity);
    let mut arcs: Vec<Arc> = Vec::with_capacity(2 * capacity);
    let vertex_lines = scan(&mut |a: Arc| {
        if a.u <= a.v {
            b.add(a.u, a.v, a.w);
        }
        arcs.push(a);
        Ok(())
    })?;
    let g = b.build()?;
    // Second pass: bit 0 = listed by the lower endpoint, bit 1 = by the upper.
    let mut seen = vec![0u8; g.num_entries()];
    let offsets = g.offsets();
    let targets = g.targets();
    let sent = g.sent();
    let locate = |lo: usize, hi: usize| -> Option<usize> {
        let row = targets.get(offsets[lo]..offsets[lo + 1])?;
        row.binary_search(&(hi as u32))
            .ok()
            .map(|k| offsets[lo] + k)
    };
    for a in arcs {
        if a.u == a.v || a.w == 0.0 {
            continue;
        }
        let (lo, hi, bit) = if a.u < a.v {
            (a.u, a.v, 1u8)
        } else {
            (a.v, a.u, 2u8)
        };
        let Some(k) = locate(lo, hi) else {
            return Err(Error::parse(
                path,
                a.line,
                format!(
                    "expected vertex {} to list {} as well (each edge appears in both lists), found it missing",
                    a.v + base,
                    a.u + base
                ),
            ));
        };
        if seen[k] & bit != 0 {
            return Err(Error::parse(
                path,
                a.line,
                format!(
                    "expected each neighbour once in a list, found {} listed twice by vertex {}",
                    a.v + base,
                    a.u + base
                ),
            ));
        }
        seen[k] |= bit;
        if bit == 2 {
            let there = 2.0 * sent[k];
            if (there - a.w).abs() > 1e-9 * there.abs().max(a.w.abs()) {
                return Err(Error::parse(
                    path,
                    a.line,
                    format!(
                        "expected edge {}-{} to have the weight vertex {} gives it ({}), found {}",
                        a.u + base,
                        a.v + base,
                        a.v + base,
                        there,
                        a.w
                    ),
                ));
            }
        }
    }
    for lo in 0..g.n() {
        for k in offsets[lo]..offsets[lo + 1] {
            let hi = targets[k] as usize;
            if hi > lo && seen[k] != 3 {
                let (who, other) = if seen[k] & 2 == 0 { (hi, lo) } else { (lo, hi) };
                let line = vertex_lines.get(lo).copied().unwrap_or(0) as usize;
                return Err(Error::parse(
                    path,
                    line,
                    format!(
                        "expected vertex {} to list {} as well (each edge appears in both lists), found it missing",
                        who + base,
                        other + base
                    ),
                ));
            }
        }
    }
    Ok(g)
}
