//! METIS graph reader and writer.
//!
//! Header `n m [fmt [ncon]]`, then one line per vertex (1-based ids; a blank
//! line is a vertex without neighbours; lines starting with `%` are comments).
//! `fmt` has up to three binary digits: vertex sizes, vertex weights, edge
//! weights (so 0, 1, 10, 11, 100, 101, 110, 111); `ncon` is the number of
//! vertex weights. Vertex sizes and weights are parsed and ignored; edge
//! weights are the pair volumes. METIS lists each edge from both ends: the
//! two listings must agree and give volume `w` (not `2w`); see
//! [`super::adjacency`]. The adjacency entries must number `2m`.
//!
//! The writer emits `fmt = 001` with integer edge weights: volumes are
//! rounded to the nearest integer, at least 1, and a `%` comment says so.
//! Cost: two scans of the input, O(bytes + n + m log d).

use super::adjacency::{self, Arc};
use super::text::{self, Fields, Lines, show};
use crate::error::{Error, Result};
use crate::graph::CommGraph;
use std::io::Write;
use std::path::Path;

struct Header {
    line: usize,
    n: usize,
    m: u64,
    vsize: bool,
    vwgt: usize,
    ewgt: bool,
}

fn header(bytes: &[u8], path: &Path, lines: &mut Lines) -> Result<Header> {
    let mut line = 0usize;
    for (ln, l) in lines.by_ref() {
        line = ln;
        if l.first() == Some(&b'%') || text::is_blank(l) {
            continue;
        }
        let mut f = Fields::new(l, false);
        let n = text::uint(
            path,
            ln,
            f.next(),
            "the vertex count n of the header `n m [fmt [ncon]]`",
        )?;
        let m = text::uint(
            path,
            ln,
            f.next(),
            "the edge count m of the header `n m [fmt [ncon]]`",
        )?;
        let fmt = f.next();
        let (vsize, vw, ewgt) = match fmt {
            None => (false, false, false),
            Some(t) if t.len() <= 3 && t.iter().all(|&b| b == b'0' || b == b'1') => {
                let mut d = [b'0'; 3];
                d[3 - t.len()..].copy_from_slice(t);
                (d[0] == b'1', d[1] == b'1', d[2] == b'1')
            }
            Some(t) => {
                return Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected fmt 0, 1, 10, 11, 100, 101, 110 or 111, found {}",
                        show(t)
                    ),
                ));
            }
        };
        let ncon = match f.next() {
            None => 1,
            Some(t) => match text::parse_u64(t) {
                Some(c) if (1..=1000).contains(&c) => c as usize,
                _ => {
                    return Err(Error::parse(
                        path,
                        ln,
                        format!(
                            "expected ncon, the number of vertex weights (1 to 1000), found {}",
                            show(t)
                        ),
                    ));
                }
            },
        };
        if let Some(t) = f.next() {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected the header `n m [fmt [ncon]]`, found an extra {}",
                    show(t)
                ),
            ));
        }
        let n = text::check_processes(path, ln, n, bytes.len())?;
        let h = Header {
            line: ln,
            n,
            m,
            vsize,
            vwgt: if vw { ncon } else { 0 },
            ewgt,
        };
        return Ok(h);
    }
    Err(Error::parse(
        path,
        line.max(1),
        "expected the header `n m [fmt [ncon]]`, found end of file",
    ))
}

/// Parse a METIS graph file.
pub fn parse(bytes: &[u8], path: &Path) -> Result<CommGraph> {
    let mut lines = Lines::new(bytes);
    let h = header(bytes, path, &mut lines)?;
    let n = h.n;
    let scan = |sink: &mut dyn FnMut(Arc) -> Result<()>| -> Result<Vec<u32>> {
        let mut vertex_lines = Vec::with_capacity(n.min(bytes.len() + 1));
        let mut u = 0usize;
        let mut arcs: u64 = 0;
        let mut last = h.line;
        for (ln, l) in lines.clone() {
            last = ln;
            if l.first() == Some(&b'%') {
                continue;
            }
            if u == n {
                if text::is_blank(l) {
                    continue;
                }
                return Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected {n} vertex lines as the header says, found more: {}",
                        show(l)
                    ),
                ));
            }
            vertex_lines.push(ln.min(u32::MAX as usize) as u32);
            let mut f = Fields::new(l, false);
            if h.vsize {
                text::uint(path, ln, f.next(), "the vertex size")?;
            }
            for _ in 0..h.vwgt {
                text::number(path, ln, f.next(), "a vertex weight")?;
            }
            while let Some(t) = f.next() {
                let v = text::vertex1(path, ln, Some(t), n, "a neighbour")?;
                let w = if h.ewgt {
                    text::weight(path, ln, f.next(), "an edge weight after the neighbour")?
                } else {
                    1.0
                };
                arcs += 1;
                sink(Arc { u, v, w, line: ln })?;
            }
            u += 1;
        }
        if u < n {
            return Err(Error::parse(
                path,
                last + 1,
                format!("expected {n} vertex lines as the header says, found {u}"),
            ));
        }
        if arcs != h.m.saturating_mul(2) {
            return Err(Error::parse(
                path,
                h.line,
                format!(
                    "expected {} adjacency entries (each of the m = {} edges listed from both ends), found {arcs}",
                    h.m.saturating_mul(2),
                    h.m
                ),
            ));
        }
        Ok(vertex_lines)
    };
    let cap = (h.m as usize).min(bytes.len() / 4 + 1);
    adjacency::build_symmetric(path, n, cap, 1, scan)
}

/// Write `graph` as METIS `fmt = 001`, with rounded integer pair volumes.
pub fn write(
    w: &mut (impl Write + ?Sized),
    graph: &CommGraph,
    divisor: u64,
) -> std::io::Result<()> {
    writeln!(
        w,
        "% hopmap communication graph in METIS format: {} processes, {} pairs",
        graph.n(),
        graph.num_edges()
    )?;
    writeln!(
        w,
        "% edge weights are pair volumes in bytes{} rounded to the nearest integer (at least 1){}",
        if divisor > 1 {
            format!(" divided by {divisor} (so that their sum fits in 32 bits)")
        } else {
            String::new()
        },
        if graph.is_directed() {
            "; the direction of the messages is not kept"
        } else {
            ""
        }
    )?;
    writeln!(w, "{} {} 001", graph.n(), graph.num_edges())?;
    let mut line = String::new();
    for u in 0..graph.n() {
        line.clear();
        for (v, _, c) in graph.edges_of(u) {
            let r = (c / divisor.max(1) as f64).round().max(1.0) as u64;
            if !line.is_empty() {
                line.push(' ');
            }
            use std::fmt::Write as _;
            let _ = write!(line, "{} {}", v + 1, r);
        }
        writeln!(w, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn p() -> &'static Path {
        Path::new("g.graph")
    }

    #[test]
    fn unweighted_and_weighted() {
        // Triangle 1-2-3 plus a pendant 4 on 3.
        let s = b"% comment\n4 4\n2 3\n1 3\n1 2 4\n3\n";
        let g = parse(s, p()).unwrap();
        assert_eq!(g.n(), 4);
        assert_eq!(g.num_edges(), 4);
        assert_eq!(g.volume(0, 1), 1.0);
        assert_eq!(g.volume(2, 3), 1.0);
        assert_eq!(g.total_bytes(), 4.0);
        // fmt 011 with 2 constraints: vertex weights skipped, edge weights used.
        let s = b"3 2 011 2\n5 6 2 7\n1 1 1 7 3 9\n0 0 2 9\n";
        let g = parse(s, p()).unwrap();
        assert_eq!(g.volume(0, 1), 7.0);
        assert_eq!(g.volume(1, 2), 9.0);
        assert_eq!(g.total_bytes(), 16.0);
        // A blank line is a vertex without neighbours.
        let g = parse(b"3 1\n2\n1\n\n", p()).unwrap();
        assert_eq!((g.n(), g.num_edges()), (3, 1));
        // fmt 100: vertex sizes, parsed and ignored.
        let s = b"3 1 100\n1 2\n1 1\n1\n";
        let g = parse(s, p()).unwrap();
        assert_eq!(g.n(), 3);
        assert_eq!(g.degree(2), 0);
        assert_eq!(g.volume(0, 1), 1.0);
    }

    #[test]
    fn errors_name_path_and_line() {
        let e = |s: &[u8]| parse(s, p()).unwrap_err().to_string();
        assert_eq!(
            e(b"3 2\n2 3\n1 3\n1 2\n"),
            "g.graph:1: expected 4 adjacency entries (each of the m = 2 edges listed from both ends), found 6"
        );
        assert_eq!(
            e(b"3 2\n2\n1 3\n1\n"),
            "g.graph:4: expected vertex 1 to list 3 as well (each edge appears in both lists), found it missing"
        );
        assert_eq!(
            e(b"2 1 1\n2 5\n1 6\n"),
            "g.graph:3: expected edge 2-1 to have the weight vertex 1 gives it (5), found 6"
        );
        assert_eq!(
            e(b"2 1\n2\n4\n"),
            "g.graph:3: expected a neighbour from 1 to 2, found `4`"
        );
        assert_eq!(
            e(b"3 1\n2\n1\n"),
            "g.graph:4: expected 3 vertex lines as the header says, found 2"
        );
        assert_eq!(
            e(b"2 1 12\n"),
            "g.graph:1: expected fmt 0, 1, 10, 11, 100, 101, 110 or 111, found `12`"
        );
        assert_eq!(
            e(b"2 1 1\n2\n1 1\n"),
            "g.graph:2: expected an edge weight after the neighbour (a non-negative number of bytes), found end of line"
        );
        assert_eq!(
            e(b"2 2\n2 2\n1 1\n"),
            "g.graph:2: expected each neighbour once in a list, found 2 listed twice by vertex 1"
        );
    }

    #[test]
    fn write_read_round_trip() {
        let mut b = GraphBuilder::new(5, false);
        b.add(0, 1, 3.0);
        b.add(1, 2, 8.0);
        b.add(4, 0, 1.0);
        let g = b.build().unwrap();
        let mut out = Vec::new();
        write(&mut out, &g, 1).unwrap();
        let h = parse(&out, p()).unwrap();
        assert_eq!(h.n(), 5);
        let a: Vec<_> = g.pairs().collect();
        let b: Vec<_> = h.pairs().collect();
        assert_eq!(a, b);
        // Rounding: 2.4 → 2, 0.2 → 1.
        let mut b = GraphBuilder::new(3, false);
        b.add(0, 1, 2.4);
        b.add(1, 2, 0.2);
        let g = b.build().unwrap();
        let mut out = Vec::new();
        write(&mut out, &g, 1).unwrap();
        assert!(String::from_utf8_lossy(&out).contains("rounded"));
        let h = parse(&out, p()).unwrap();
        assert_eq!(h.volume(0, 1), 2.0);
        assert_eq!(h.volume(1, 2), 1.0);
    }
}
