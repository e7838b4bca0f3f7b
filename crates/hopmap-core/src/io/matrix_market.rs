//! MatrixMarket coordinate reader and writer.
//!
//! Reads `%%MatrixMarket matrix coordinate (real|integer|pattern)
//! (general|symmetric)`. Entry `i j v` (1-based) of a square matrix is a
//! message: a **general** matrix keeps the direction (bytes i→j, a directed
//! [`CommGraph`]), a **symmetric** one gives the pair volume `c_ij` (Wu et al.
//! §2). `pattern` means weight 1. The entry count must match the size line.
//! Negative values are an error (bytes cannot be negative); explicit zeros
//! and diagonal entries are passed to the builder, which drops and counts them.
//!
//! Parsing is one pass over the bytes, O(bytes), plus the CSR build
//! O(n + nnz log d). The writer emits `general` for directed graphs (every
//! message) and `symmetric` otherwise (each pair once, lower triangle).

use super::text::{self, Fields, Lines, Num, show, show_opt};
use crate::error::{Error, Result};
use crate::graph::{CommGraph, GraphBuilder};
use std::io::Write;
use std::path::Path;

/// Parse a MatrixMarket coordinate file.
pub fn parse(bytes: &[u8], path: &Path) -> Result<CommGraph> {
    let mut lines = Lines::new(bytes);
    let (hl, header) = lines.next().ok_or_else(|| {
        Error::parse(
            path,
            1,
            "expected a `%%MatrixMarket` header, found an empty file",
        )
    })?;
    let mut f = Fields::new(header, false);
    let banner = f.next();
    if !banner.is_some_and(|b| b.eq_ignore_ascii_case(b"%%MatrixMarket")) {
        return Err(Error::parse(
            path,
            hl,
            format!(
                "expected a `%%MatrixMarket` header, found {}",
                show_opt(banner)
            ),
        ));
    }
    let object = f.next();
    if !object.is_some_and(|b| b.eq_ignore_ascii_case(b"matrix")) {
        return Err(Error::parse(
            path,
            hl,
            format!("expected object `matrix`, found {}", show_opt(object)),
        ));
    }
    let format = f.next();
    if !format.is_some_and(|b| b.eq_ignore_ascii_case(b"coordinate")) {
        return Err(Error::parse(
            path,
            hl,
            format!(
                "expected format `coordinate` (for a dense matrix use the dense format), found {}",
                show_opt(format)
            ),
        ));
    }
    let field = f.next();
    let pattern = match field.map(|b| b.to_ascii_lowercase()) {
        Some(b) if b == b"real" || b == b"integer" || b == b"double" => false,
        Some(b) if b == b"pattern" => true,
        _ => {
            return Err(Error::parse(
                path,
                hl,
                format!(
                    "expected field `real`, `integer` or `pattern`, found {}",
                    show_opt(field)
                ),
            ));
        }
    };
    let sym = f.next();
    let directed = match sym.map(|b| b.to_ascii_lowercase()) {
        Some(b) if b == b"general" => true,
        Some(b) if b == b"symmetric" => false,
        _ => {
            return Err(Error::parse(
                path,
                hl,
                format!(
                    "expected symmetry `general` or `symmetric`, found {}",
                    show_opt(sym)
                ),
            ));
        }
    };

    // Size line: the first line that is neither a comment nor blank.
    let (sl, size) = loop {
        match lines.next() {
            Some((_, l)) if l.first() == Some(&b'%') || text::is_blank(l) => continue,
            Some(x) => break x,
            None => {
                return Err(Error::parse(
                    path,
                    text::eof_line(bytes),
                    "expected the size line `rows columns entries`, found end of file",
                ));
            }
        }
    };
    let mut f = Fields::new(size, false);
    let rows = text::uint(path, sl, f.next(), "the row count")?;
    let cols = text::uint(path, sl, f.next(), "the column count")?;
    let nnz = text::uint(path, sl, f.next(), "the entry count")?;
    if let Some(t) = f.next() {
        return Err(Error::parse(
            path,
            sl,
            format!(
                "expected the size line `rows columns entries`, found an extra {}",
                show(t)
            ),
        ));
    }
    if rows != cols {
        return Err(Error::parse(
            path,
            sl,
            format!(
                "expected a square matrix (one row and column per process), found {rows} × {cols}"
            ),
        ));
    }
    let n = text::check_processes(path, sl, rows, bytes.len())?;
    // Each entry takes at least 4 bytes ("1 1\n"): cap the preallocation.
    let cap = (nnz as usize).min(bytes.len() / 4 + 1);
    let mut b = GraphBuilder::with_capacity(n, directed, cap);
    let mut count: u64 = 0;
    for (ln, l) in lines {
        if l.first() == Some(&b'%') || text::is_blank(l) {
            continue;
        }
        if count == nnz {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected {nnz} entries as the size line says, found more: {}",
                    show(l)
                ),
            ));
        }
        let mut f = Fields::new(l, false);
        let i = text::vertex1(path, ln, f.next(), n, "a row index")?;
        let j = text::vertex1(path, ln, f.next(), n, "a column index")?;
        let w = if pattern {
            1.0
        } else {
            text::weight(path, ln, f.next(), "a value")?
        };
        if let Some(t) = f.next() {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected `row column{}`, found an extra {}",
                    if pattern { "" } else { " value" },
                    show(t)
                ),
            ));
        }
        b.add(i, j, w);
        count += 1;
    }
    if count != nnz {
        return Err(Error::parse(
            path,
            text::eof_line(bytes),
            format!("expected {nnz} entries as the size line says, found {count}"),
        ));
    }
    b.build()
}

/// Write `graph` as a MatrixMarket coordinate real matrix.
pub fn write(w: &mut (impl Write + ?Sized), graph: &CommGraph) -> std::io::Result<()> {
    let n = graph.n();
    if graph.is_directed() {
        writeln!(w, "%%MatrixMarket matrix coordinate real general")?;
        writeln!(
            w,
            "% hopmap communication graph: entry i j v = v bytes sent from process i to j (1-based)"
        )?;
        writeln!(w, "{n} {n} {}", graph.num_messages())?;
        for (u, v, s) in graph.messages() {
            writeln!(w, "{} {} {}", u + 1, v + 1, Num(s))?;
        }
    } else {
        writeln!(w, "%%MatrixMarket matrix coordinate real symmetric")?;
        writeln!(
            w,
            "% hopmap communication graph: entry i j v = v bytes exchanged by processes i and j (1-based)"
        )?;
        writeln!(w, "{n} {n} {}", graph.num_edges())?;
        for (u, v, c) in graph.pairs() {
            // Lower triangle: row > column.
            writeln!(w, "{} {} {}", v + 1, u + 1, Num(c))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("t.mtx")
    }

    #[test]
    fn general_keeps_direction() {
        let s = b"%%MatrixMarket matrix coordinate real general\n% c\n3 3 3\n1 2 10\n2 1 4.5\n3 1 1e2\n";
        let g = parse(s, p()).unwrap();
        assert!(g.is_directed());
        assert_eq!(g.n(), 3);
        assert_eq!(g.sent_between(0, 1), 10.0);
        assert_eq!(g.sent_between(1, 0), 4.5);
        assert_eq!(g.sent_between(2, 0), 100.0);
        assert_eq!(g.sent_between(0, 2), 0.0);
        assert_eq!(g.volume(0, 1), 14.5);
    }

    #[test]
    fn symmetric_pattern_is_pair_volume_one() {
        let s = b"%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n2 1\n3 2\n4 4\n";
        let g = parse(s, p()).unwrap();
        assert!(!g.is_directed());
        assert_eq!(g.volume(0, 1), 1.0);
        assert_eq!(g.volume(1, 2), 1.0);
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.build_stats().self_loops_dropped, 1);
    }

    #[test]
    fn errors_name_path_and_line() {
        let e = |s: &[u8]| parse(s, p()).unwrap_err().to_string();
        assert_eq!(
            e(b"%%MatrixMarket matrix coordinate real general\n2 3 1\n1 2 1\n"),
            "t.mtx:2: expected a square matrix (one row and column per process), found 2 × 3"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n"),
            "t.mtx:3: expected a column index from 1 to 2, found `3`"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n"),
            "t.mtx:3: expected 2 entries as the size line says, found 1"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -1\n"),
            "t.mtx:3: expected a value (a non-negative number of bytes), found `-1`"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix array real general\n"),
            "t.mtx:1: expected format `coordinate` (for a dense matrix use the dense format), found `array`"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n2 1 1\n"),
            "t.mtx:4: expected 1 entries as the size line says, found more: `2 1 1`"
        );
        assert!(e(b"hello").starts_with("t.mtx:1: expected a `%%MatrixMarket` header"));
    }

    #[test]
    fn write_read_round_trip() {
        for directed in [false, true] {
            let mut b = GraphBuilder::new(5, directed);
            b.add(0, 1, 3.0);
            b.add(1, 0, 2.25);
            b.add(3, 2, 1e-9);
            b.add(4, 0, 7e20);
            let g = b.build().unwrap();
            let mut out = Vec::new();
            write(&mut out, &g).unwrap();
            let h = parse(&out, p()).unwrap();
            assert_eq!(h.is_directed(), directed);
            assert_eq!(h.n(), 5);
            let a: Vec<_> = g.messages().collect();
            let b: Vec<_> = h.messages().collect();
            assert_eq!(a, b);
            let a: Vec<_> = g.pairs().collect();
            let b: Vec<_> = h.pairs().collect();
            assert_eq!(a, b);
        }
    }
}
