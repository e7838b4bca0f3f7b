//! Scotch source graph (`.grf`) reader.
//!
//! Layout (Scotch user's manual, "source graph files"): the version `0`;
//! the vertex count and the **arc** count (twice the edges); the base value,
//! 0 or 1, and a three-digit flag `abc` (a: vertex labels, b: edge loads,
//! c: vertex loads; e.g. `000`, `010`, `011`, `100`). Then for every vertex
//! `[label] [load] degree`, followed by `degree` times `[edge_load] end`: the
//! edge load comes **before** the end vertex. With labels, ends name labels,
//! not indices. The file is a stream of whitespace-separated integers, so a
//! vertex's record may span lines. Vertex loads are ignored; edge loads are
//! the pair volumes (default 1); every edge appears from both ends and the
//! listings must agree ([`super::adjacency`]).
//! Cost: two scans (three with labels) + O(n + m log d).

use super::adjacency::{self, Arc};
use super::text::{self, Tokens, show, show_opt};
use crate::error::{Error, Result};
use crate::graph::CommGraph;
use std::collections::HashMap;
use std::path::Path;

/// The header of a Scotch source graph with edge loads (flags `010`).
pub fn header(g: &CommGraph) -> String {
    let arcs: usize = (0..g.n()).map(|u| g.degree(u)).sum();
    format!("0\n{} {}\n0 010\n", g.n(), arcs)
}

/// Append vertex `u`'s record: its degree, then `load end` per partner,
/// the load of a pair volume given by `load`.
pub fn push_vertex(text: &mut String, g: &CommGraph, u: usize, load: impl Fn(f64) -> u64) {
    use std::fmt::Write as _;
    let _ = write!(text, "{}", g.degree(u));
    for (v, _, c) in g.edges_of(u) {
        let _ = write!(text, " {} {v}", load(c));
    }
    text.push('\n');
}

/// Write `g` as a Scotch source graph: edge loads are pair volumes in
/// bytes divided by `divisor`, rounded, at least 1 (the format has no
/// comments: the caller states the divisor).
pub fn write(
    w: &mut (impl std::io::Write + ?Sized),
    g: &CommGraph,
    divisor: u64,
) -> std::io::Result<()> {
    let d = divisor.max(1) as f64;
    w.write_all(header(g).as_bytes())?;
    let mut text = String::new();
    for u in 0..g.n() {
        text.clear();
        push_vertex(&mut text, g, u, |c| (c / d).round().max(1.0) as u64);
        w.write_all(text.as_bytes())?;
    }
    Ok(())
}

fn next_uint(t: &mut Tokens<'_>, path: &Path, what: &str) -> Result<(usize, u64)> {
    match t.next() {
        Some((ln, tok)) => text::uint(path, ln, Some(tok), what).map(|v| (ln, v)),
        None => Err(Error::parse(
            path,
            t.line(),
            format!("expected {what}, found end of file"),
        )),
    }
}

/// Parse a Scotch source graph.
pub fn parse(bytes: &[u8], path: &Path) -> Result<CommGraph> {
    let mut t = Tokens::new(bytes);
    let len = bytes.len();
    let (vl, version) = next_uint(&mut t, path, "the version number `0`")?;
    if version != 0 {
        return Err(Error::parse(
            path,
            vl,
            format!("expected the version number `0` (new-style Scotch graph), found `{version}`"),
        ));
    }
    let (nl, n) = next_uint(&mut t, path, "the vertex count")?;
    let n = text::check_processes(path, nl, n, len)?;
    let (al, arcs) = next_uint(&mut t, path, "the arc count (twice the edges)")?;
    let (bl, base) = next_uint(&mut t, path, "the base value 0 or 1")?;
    if base > 1 {
        return Err(Error::parse(
            path,
            bl,
            format!("expected the base value 0 or 1, found `{base}`"),
        ));
    }
    let (fl, flag_tok) = match t.next() {
        Some(x) => x,
        None => {
            return Err(Error::parse(
                path,
                t.line(),
                "expected the flags (e.g. `000`), found end of file",
            ));
        }
    };
    let flags = match text::parse_u64(flag_tok) {
        Some(f) if f <= 111 && flag_tok.iter().all(|&b| b == b'0' || b == b'1') => f,
        _ => {
            return Err(Error::parse(
                path,
                fl,
                format!(
                    "expected the three flag digits `abc` (labels, edge loads, vertex loads), each 0 or 1, found {}",
                    show(flag_tok)
                ),
            ));
        }
    };
    let labels = flags / 100 == 1;
    let eload = (flags / 10) % 10 == 1;
    let vload = flags % 10 == 1;
    let body = t;
    // With labels, edge ends name labels: collect them first.
    let label_map: Option<HashMap<u64, u32>> = if labels {
        let mut map = HashMap::with_capacity(n.min(len / 2 + 1));
        let mut t = body.clone();
        for u in 0..n {
            let (ln, lab) = next_uint(&mut t, path, "a vertex label")?;
            if map.insert(lab, u as u32).is_some() {
                return Err(Error::parse(
                    path,
                    ln,
                    format!("expected distinct vertex labels, found label {lab} twice"),
                ));
            }
            if vload {
                next_uint(&mut t, path, "a vertex load")?;
            }
            let (dl, deg) = next_uint(&mut t, path, "a vertex degree")?;
            if deg > arcs {
                return Err(Error::parse(
                    path,
                    dl,
                    format!("expected a degree within the arc count {arcs}, found {deg}"),
                ));
            }
            for _ in 0..deg.saturating_mul(1 + eload as u64) {
                if t.next().is_none() {
                    return Err(Error::parse(
                        path,
                        t.line(),
                        "expected the rest of the adjacency list, found end of file",
                    ));
                }
            }
        }
        Some(map)
    } else {
        None
    };

    let scan = |sink: &mut dyn FnMut(Arc) -> Result<()>| -> Result<Vec<u32>> {
        let mut t = body.clone();
        let mut vertex_lines = Vec::with_capacity(n.min(len / 2 + 1));
        let mut total: u64 = 0;
        for u in 0..n {
            let first = t.clone().next().map_or(t.line(), |x| x.0);
            vertex_lines.push(first.min(u32::MAX as usize) as u32);
            if labels {
                next_uint(&mut t, path, "a vertex label")?;
            }
            if vload {
                next_uint(&mut t, path, "a vertex load")?;
            }
            let (dl, deg) = next_uint(&mut t, path, "a vertex degree")?;
            if deg > arcs - total.min(arcs) {
                return Err(Error::parse(
                    path,
                    dl,
                    format!(
                        "expected at most {arcs} arcs in all as the header says, found vertex {} of degree {deg} after {total}",
                        u as u64 + base
                    ),
                ));
            }
            total += deg;
            for _ in 0..deg {
                let w = if eload {
                    match t.next() {
                        Some((ln, tok)) => text::weight(path, ln, Some(tok), "an edge load")?,
                        None => text::weight(path, t.line(), None, "an edge load")?,
                    }
                } else {
                    1.0
                };
                let (ln, end) = next_uint(&mut t, path, "an adjacent vertex")?;
                let v = match &label_map {
                    Some(map) => match map.get(&end) {
                        Some(&v) => v as usize,
                        None => {
                            return Err(Error::parse(
                                path,
                                ln,
                                format!(
                                    "expected the label of a vertex, found `{end}`, which no vertex has"
                                ),
                            ));
                        }
                    },
                    None => {
                        if end < base || end - base >= n as u64 {
                            return Err(Error::parse(
                                path,
                                ln,
                                format!(
                                    "expected an adjacent vertex from {base} to {}, found `{end}`",
                                    n as u64 + base - 1
                                ),
                            ));
                        }
                        (end - base) as usize
                    }
                };
                sink(Arc { u, v, w, line: ln })?;
            }
        }
        if total != arcs {
            return Err(Error::parse(
                path,
                al,
                format!("expected {arcs} arcs as the header says, found {total}"),
            ));
        }
        let mut rest = t.clone();
        if let Some((ln, tok)) = rest.next() {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected end of file after {n} vertices, found {}",
                    show_opt(Some(tok))
                ),
            ));
        }
        Ok(vertex_lines)
    };
    let cap = (arcs as usize / 2).min(len / 4 + 1);
    // Labels are shown in messages as indices + base.
    adjacency::build_symmetric(path, n, cap, base as usize, scan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("g.grf")
    }

    #[test]
    fn plain_and_weighted() {
        // Path 0-1-2, base 0, no weights.
        let g = parse(b"0\n3 4\n0 000\n1 1\n2 0 2\n1 1\n", p()).unwrap();
        assert_eq!(g.n(), 3);
        assert_eq!(g.volume(0, 1), 1.0);
        assert_eq!(g.volume(1, 2), 1.0);
        assert_eq!(g.num_edges(), 2);
        // Base 1, edge loads (before the end) and vertex loads.
        let g = parse(b"0\n3 4\n1 011\n5 1 7 2\n5 2 7 1 9 3\n5 1 9 2\n", p()).unwrap();
        assert_eq!(g.volume(0, 1), 7.0);
        assert_eq!(g.volume(1, 2), 9.0);
        assert_eq!(g.total_bytes(), 16.0);
        // Labels: ends refer to labels.
        let g = parse(b"0\n2 2\n0 100\n10 1 20\n20 1 10\n", p()).unwrap();
        assert_eq!(g.volume(0, 1), 1.0);
    }

    #[test]
    fn errors_name_path_and_line() {
        let e = |s: &[u8]| parse(s, p()).unwrap_err().to_string();
        assert_eq!(
            e(b"1\n"),
            "g.grf:1: expected the version number `0` (new-style Scotch graph), found `1`"
        );
        assert_eq!(
            e(b"0\n3 6\n0 000\n1 1\n2 0 2\n1 1\n"),
            "g.grf:2: expected 6 arcs as the header says, found 4"
        );
        assert_eq!(
            e(b"0\n2 2\n0 000\n1 1\n1 5\n"),
            "g.grf:5: expected an adjacent vertex from 0 to 1, found `5`"
        );
        assert_eq!(
            e(b"0\n2 2\n0 020\n"),
            "g.grf:3: expected the three flag digits `abc` (labels, edge loads, vertex loads), each 0 or 1, found `020`"
        );
        assert_eq!(
            e(b"0\n2 2\n0 010\n1 3 1\n1 4 0\n"),
            "g.grf:5: expected edge 1-0 to have the weight vertex 0 gives it (3), found 4"
        );
        assert_eq!(
            e(b"0\n2 2\n0 000\n1 1\n1 0\n9\n"),
            "g.grf:6: expected end of file after 2 vertices, found `9`"
        );
    }
}
