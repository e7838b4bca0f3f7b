//! MatrixMarket reader (coordinate and array) and writer (coordinate).
//!
//! Reads `%%MatrixMarket matrix coordinate (real|integer|pattern)
//! (general|symmetric)`. Entry `i j v` (1-based) of a square matrix is a
//! message: a **general** matrix keeps the direction (bytes i→j, a directed
//! [`CommGraph`]), a **symmetric** one gives the pair volume `c_ij` (Wu et al.
//! §2). `pattern` means weight 1. The entry count must match the size line.
//! Negative values are an error (bytes cannot be negative); explicit zeros
//! and diagonal entries are passed to the builder, which drops and counts them.
//!
//! Also reads the dense `%%MatrixMarket matrix array (real|integer)
//! (general|symmetric)` that `scipy.io.mmwrite` writes for a dense array:
//! a size line `rows columns`, then the values in column-major order (every
//! entry when general, the lower triangle with the diagonal when
//! symmetric); zeros are pairs that do not talk, and the value count must be
//! the matrix's.
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
    let array = match format.map(|b| b.to_ascii_lowercase()) {
        Some(b) if b == b"coordinate" => false,
        Some(b) if b == b"array" => true,
        _ => {
            return Err(Error::parse(
                path,
                hl,
                format!(
                    "expected format `coordinate` or `array`, found {}",
                    show_opt(format)
                ),
            ));
        }
    };
    let field = f.next();
    let pattern = match field.map(|b| b.to_ascii_lowercase()) {
        Some(b) if b == b"real" || b == b"integer" || b == b"double" => false,
        Some(b) if b == b"pattern" && !array => true,
        _ => {
            return Err(Error::parse(
                path,
                hl,
                format!(
                    "expected field {}, found {}",
                    if array {
                        "`real` or `integer` (an array has values)"
                    } else {
                        "`real`, `integer` or `pattern`"
                    },
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
    let nnz = if array {
        0
    } else {
        text::uint(path, sl, f.next(), "the entry count")?
    };
    if let Some(t) = f.next() {
        return Err(Error::parse(
            path,
            sl,
            format!(
                "expected the size line `rows columns{}`, found an extra {}",
                if array { "" } else { " entries" },
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
    if array {
        return parse_array(lines, bytes, path, n, directed);
    }
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

/// The values of an `array` matrix of `n` rows after its size line:
/// column-major, every entry (`directed`, general) or the lower triangle
/// with the diagonal (symmetric). O(bytes + nnz log d).
fn parse_array(
    lines: Lines,
    bytes: &[u8],
    path: &Path,
    n: usize,
    directed: bool,
) -> Result<CommGraph> {
    let n64 = n as u64;
    let want = if directed {
        n64 * n64
    } else {
        n64 * (n64 + 1) / 2
    };
    let mut b = GraphBuilder::new(n, directed);
    // The next value's row and column.
    let (mut i, mut j) = (0usize, 0usize);
    let mut count: u64 = 0;
    for (ln, l) in lines {
        if l.first() == Some(&b'%') || text::is_blank(l) {
            continue;
        }
        for t in Fields::new(l, false) {
            if count == want {
                return Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected {want} values for a {}{n} × {n} array, found more: {}",
                        if directed { "" } else { "symmetric " },
                        show(t)
                    ),
                ));
            }
            let w = text::weight(path, ln, Some(t), "a value")?;
            if w > 0.0 {
                b.add(i, j, w);
            }
            count += 1;
            i += 1;
            if i == n {
                j += 1;
                i = if directed { 0 } else { j };
            }
        }
    }
    if count != want {
        return Err(Error::parse(
            path,
            text::eof_line(bytes),
            format!(
                "expected {want} values for a {}{n} × {n} array, found {count}",
                if directed { "" } else { "symmetric " }
            ),
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
            e(b"%%MatrixMarket matrix vector real general\n"),
            "t.mtx:1: expected format `coordinate` or `array`, found `vector`"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix array pattern general\n"),
            "t.mtx:1: expected field `real` or `integer` (an array has values), found `pattern`"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix array real general\n2 2\n0\n1\n2\n"),
            "t.mtx:5: expected 4 values for a 2 × 2 array, found 3"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix array real symmetric\n2 2\n0\n1\n2\n3\n"),
            "t.mtx:6: expected 3 values for a symmetric 2 × 2 array, found more: `3`"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix array real general\n2 2 4\n"),
            "t.mtx:2: expected the size line `rows columns`, found an extra `4`"
        );
        assert_eq!(
            e(b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n2 1 1\n"),
            "t.mtx:4: expected 1 entries as the size line says, found more: `2 1 1`"
        );
        assert!(e(b"hello").starts_with("t.mtx:1: expected a `%%MatrixMarket` header"));
    }

    #[test]
    fn a_dense_array_is_read_column_major() {
        // scipy.io.mmwrite of [[0, 5, 0], [2, 0, 7], [0, 1.5, 0]]: columns
        // (0, 2, 0), (5, 0, 1.5), (0, 7, 0).
        let s = b"%%MatrixMarket matrix array real general\n%\n3 3\n0\n2\n0\n5\n0\n1.5\n0 7\n0\n";
        let g = parse(s, p()).unwrap();
        assert!(g.is_directed());
        assert_eq!(g.n(), 3);
        assert_eq!(g.sent_between(0, 1), 5.0);
        assert_eq!(g.sent_between(1, 0), 2.0);
        assert_eq!(g.sent_between(1, 2), 7.0);
        assert_eq!(g.sent_between(2, 1), 1.5);
        assert_eq!(g.num_messages(), 4);
        // Symmetric: the lower triangle by columns, (0,0) (1,0) (2,0) (1,1)
        // (2,1) (2,2); the diagonal is dropped and counted.
        let s = b"%%MatrixMarket matrix array integer symmetric\n3 3\n9\n4\n0\n0\n6\n0\n";
        let g = parse(s, p()).unwrap();
        assert!(!g.is_directed());
        assert_eq!(g.volume(0, 1), 4.0);
        assert_eq!(g.volume(1, 2), 6.0);
        assert_eq!(g.volume(0, 2), 0.0);
        assert_eq!(g.num_edges(), 2);
        assert_eq!(g.build_stats().self_loops_dropped, 1);
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
