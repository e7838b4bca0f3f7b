//! Edge list / CSV reader and writer.
//!
//! One edge per line, `src dst [bytes]` (bytes default to 1), fields
//! separated by whitespace and/or commas. `#` and `%` start a comment that
//! runs to the end of the line. The first non-comment line may be a header
//! (its first field is not a number) and is skipped. Ids are 0-based, or
//! 1-based with `one_based`; n = largest id + 1. The edges are symmetric:
//! each line adds to the pair's volume, so `a b 3` and `b a 4` give 7.
//! Cost: one pass, O(bytes), plus the CSR build.

use super::text::{self, Fields, Lines, Num, show};
use crate::error::{Error, Result};
use crate::graph::{CommGraph, GraphBuilder};
use std::io::Write;
use std::path::Path;

/// Parse an edge list.
pub fn parse(bytes: &[u8], path: &Path, one_based: bool) -> Result<CommGraph> {
    let mut b = GraphBuilder::with_capacity(0, false, bytes.len() / 8 + 1);
    let mut first_content = true;
    let mut header_line: Option<(usize, &[u8])> = None;
    let mut edges = 0usize;
    let base: u64 = one_based as u64;
    let limit = text::process_limit(bytes.len()) as u64;
    for (ln, l) in Lines::new(bytes) {
        let l = text::strip_comment(l, b"#%");
        let mut f = Fields::new(l, true);
        let Some(a) = f.next() else { continue };
        let header = first_content && text::parse_u64(a).is_none();
        first_content = false;
        if header {
            header_line = Some((ln, text::trim(l)));
            continue;
        }
        if text::has_empty_csv_field(l) {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected `src dst [bytes]` with a value between each pair of commas, found an empty field in {}",
                    show(text::trim(l))
                ),
            ));
        }
        let id = |tok: Option<&[u8]>, what: &str| -> Result<usize> {
            match tok.and_then(text::parse_u64) {
                Some(v) if v >= base && v - base < limit => Ok((v - base) as usize),
                Some(v) if v < base => Err(Error::parse(
                    path,
                    ln,
                    format!("expected a 1-based {what} id (≥ 1, as --one-based says), found `{v}`"),
                )),
                Some(v) => Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected a {what} id below {}, found `{v}` ({})",
                        limit + base,
                        text::limit_reason(bytes.len())
                    ),
                )),
                None => Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected `src dst [bytes]` with a {what} id (a non-negative integer), found {}",
                        text::show_opt(tok)
                    ),
                )),
            }
        };
        let u = id(Some(a), "source")?;
        let v = id(f.next(), "destination")?;
        let w = match f.next() {
            None => 1.0,
            Some(t) => text::weight(path, ln, Some(t), "the bytes")?,
        };
        if let Some(t) = f.next() {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected `src dst [bytes]`, found an extra field {}",
                    show(t)
                ),
            ));
        }
        b.ensure_processes(u.max(v) + 1);
        b.add(u, v, w);
        edges += 1;
    }
    if edges == 0 {
        // A header and nothing else (`a b c`, `0;1;5`), or no line at all:
        // not an empty graph but a file that is not an edge list.
        return Err(match header_line {
            Some((ln, h)) => Error::parse(
                path,
                ln,
                format!(
                    "expected `src dst [bytes]` edge lines (numbers separated by spaces or commas), found only {}",
                    show(h)
                ),
            ),
            None => Error::parse(
                path,
                text::eof_line(bytes),
                "expected `src dst [bytes]` edge lines, found none (an empty file)",
            ),
        });
    }
    b.build()
}

/// Write `src dst bytes` lines (0-based): each pair once with its volume for
/// a symmetric graph, each message for a directed one (reading it back sums
/// the two directions into the pair volume). When the last process sends
/// and receives nothing (or no process does), a zero-byte self-loop
/// `n-1 n-1 0` follows, so that reading the file back (n = largest id + 1)
/// gives the same number of processes.
pub fn write(w: &mut (impl Write + ?Sized), graph: &CommGraph) -> std::io::Result<()> {
    writeln!(
        w,
        "# hopmap edge list: src dst bytes (0-based ids); {} processes, {} pairs{}",
        graph.n(),
        graph.num_edges(),
        if graph.is_directed() {
            ", one line per directed message"
        } else {
            ""
        }
    )?;
    // The reader takes n = largest id + 1; the last processes may send and
    // receive nothing.
    let mut top: Option<usize> = None;
    if graph.is_directed() {
        for (u, v, s) in graph.messages() {
            writeln!(w, "{u} {v} {}", Num(s))?;
            top = top.max(Some(u.max(v)));
        }
    } else {
        for (u, v, c) in graph.pairs() {
            writeln!(w, "{u} {v} {}", Num(c))?;
            top = top.max(Some(u.max(v)));
        }
    }
    if let Some(last) = graph.n().checked_sub(1).filter(|&l| top < Some(l)) {
        writeln!(
            w,
            "# process {last} communicates with no one: a zero-byte line keeps the process count"
        )?;
        writeln!(w, "{last} {last} 0")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("e.csv")
    }

    #[test]
    fn header_comments_commas_and_defaults() {
        let s = b"src,dst,bytes\n# comment\n0,1,10\n1 0 5 % trailing\n2, 3\n\n";
        let g = parse(s, p(), false).unwrap();
        assert_eq!(g.n(), 4);
        assert!(!g.is_directed());
        assert_eq!(g.volume(0, 1), 15.0);
        assert_eq!(g.volume(2, 3), 1.0);
        assert_eq!(g.build_stats().duplicates_merged, 1);
        let g = parse(b"1 2 4\n2 3\n", p(), true).unwrap();
        assert_eq!(g.n(), 3);
        assert_eq!(g.volume(0, 1), 4.0);
        assert_eq!(g.volume(1, 2), 1.0);
    }

    #[test]
    fn errors_name_path_and_line() {
        let e = |s: &[u8], ob| parse(s, p(), ob).unwrap_err().to_string();
        assert_eq!(
            e(b"0 1\n0 x\n", false),
            "e.csv:2: expected `src dst [bytes]` with a destination id (a non-negative integer), found `x`"
        );
        assert_eq!(
            e(b"1 2\n0 1\n", true),
            "e.csv:2: expected a 1-based source id (≥ 1, as --one-based says), found `0`"
        );
        assert_eq!(
            e(b"0 1 2 3\n", false),
            "e.csv:1: expected `src dst [bytes]`, found an extra field `3`"
        );
        assert_eq!(
            e(b"a b\nc d\n", false),
            "e.csv:2: expected `src dst [bytes]` with a source id (a non-negative integer), found `c`"
        );
        assert!(
            e(b"0 99999999999\n", false).starts_with("e.csv:1: expected a destination id below")
        );
    }

    /// 8 processes of which 4..7 communicate with no one, and 3 that
    /// communicate with no one: reading the written file back gives 8 and 3
    /// processes (it gave 4, and an unreadable empty file).
    #[test]
    fn silent_last_processes_survive_a_round_trip() {
        for directed in [false, true] {
            let mut b = GraphBuilder::new(8, directed);
            b.add(0, 1, 10.0);
            b.add(3, 2, 5.0);
            let g = b.build().unwrap();
            let mut out = Vec::new();
            write(&mut out, &g).unwrap();
            let text = String::from_utf8(out.clone()).unwrap();
            assert!(text.ends_with("\n7 7 0\n"), "{text}");
            let h = parse(&out, p(), false).unwrap();
            assert_eq!(h.n(), 8);
            assert_eq!(h.volume(0, 1), 10.0);
            assert_eq!(h.volume(2, 3), 5.0);
            assert_eq!(h.total_bytes(), g.total_bytes());
        }
        let g = GraphBuilder::new(3, false).build().unwrap();
        let mut out = Vec::new();
        write(&mut out, &g).unwrap();
        assert_eq!(parse(&out, p(), false).unwrap().n(), 3);
        // A graph whose last process talks writes no extra line.
        let mut b = GraphBuilder::new(2, false);
        b.add(0, 1, 1.0);
        let mut out = Vec::new();
        write(&mut out, &b.build().unwrap()).unwrap();
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 2);
    }

    #[test]
    fn write_read_round_trip() {
        for directed in [false, true] {
            let mut b = GraphBuilder::new(4, directed);
            b.add(0, 1, 3.5);
            b.add(1, 0, 2.0);
            b.add(3, 2, 1e-3);
            let g = b.build().unwrap();
            let mut out = Vec::new();
            write(&mut out, &g).unwrap();
            let h = parse(&out, p(), false).unwrap();
            assert_eq!(h.n(), 4);
            let a: Vec<_> = g.pairs().collect();
            let b: Vec<_> = h.pairs().collect();
            assert_eq!(a, b);
        }
    }
}
