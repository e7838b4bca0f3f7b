//! Dense communication matrix reader.
//!
//! `n` rows of `n` numbers (whitespace and/or comma separated; `#` and `%`
//! start comments; blank lines are skipped). Entry (i, j) is the bytes sent
//! by process i (the row) to process j (the column), so the graph is
//! directed. Zeros mean "no message" and are skipped silently (they are the
//! matrix's background, not dropped edges); a non-zero diagonal entry is a
//! self-message, which the builder drops and counts.
//! Cost: O(bytes) + the CSR build.
//!
//! Tools that write such matrices, and what their numbers are
//! ([`meaning`] tells by the file name):
//! * Open MPI's `profile2mat` (`NAME_size_KIND.mat`, `_msg_`, `_avg_`)
//!   writes `(a→b + b→a) / 2` in both cells: an average of the two
//!   directions, so a pair's volume (both cells summed) is exact up to
//!   the rounding to whole numbers.
//! * `ompi_monitoring_prof.so` (`LD_PRELOAD`; `monitoring_{pml,coll,osc,all}_{size,msg,avg}.mat`)
//!   averages the same way, with integer division.
//! * EZTrace (`communication_matrix_{p2p,collective,all}.{message_size,nb_messages}.dat`)
//!   writes each direction in its own cell.
//!
//! The `_msg_`/`nb_messages` matrices hold message counts and the `_avg_`
//! ones average message sizes: read as graphs their numbers stand for bytes.

use super::text::{self, Fields, Lines};
use crate::error::{Error, Result};
use crate::graph::{CommGraph, GraphBuilder};
use std::path::Path;

/// Parse a dense n×n matrix.
pub fn parse(bytes: &[u8], path: &Path) -> Result<CommGraph> {
    let mut b: Option<GraphBuilder> = None;
    let mut n = 0usize;
    let mut row = 0usize;
    for (ln, l) in Lines::new(bytes) {
        let l = text::strip_comment(l, b"#%");
        if text::is_blank(l) {
            continue;
        }
        if b.is_none() {
            n = Fields::new(l, true).count();
            n = text::check_processes(path, ln, n as u64, bytes.len())?;
            b = Some(GraphBuilder::with_capacity(
                n,
                true,
                (bytes.len() / 4).min(n.saturating_mul(n)) / 4,
            ));
        }
        if text::has_empty_csv_field(l) {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected a number between each pair of commas, found an empty field in {}",
                    text::show(text::trim(l))
                ),
            ));
        }
        let Some(builder) = b.as_mut() else { continue };
        if row == n {
            return Err(Error::parse(
                path,
                ln,
                format!("expected {n} rows (as many as numbers in a row), found more"),
            ));
        }
        let mut count = 0usize;
        for (j, t) in Fields::new(l, true).enumerate() {
            if j >= n {
                count = j + 1;
                continue;
            }
            let w = text::weight(path, ln, Some(t), "a matrix entry")?;
            if w != 0.0 {
                builder.add(row, j, w);
            }
            count = j + 1;
        }
        if count != n {
            return Err(Error::parse(
                path,
                ln,
                format!(
                    "expected {n} numbers in row {} like the first row, found {count}",
                    row + 1
                ),
            ));
        }
        row += 1;
    }
    if row != n {
        return Err(Error::parse(
            path,
            text::eof_line(bytes),
            format!("expected {n} rows (as many as numbers in a row), found {row}"),
        ));
    }
    match b {
        Some(b) => b.build(),
        None => Ok(GraphBuilder::new(0, true).build()?),
    }
}

/// What the numbers of a dense matrix written by a known tool mean, from
/// its file name (`None` for other names).
pub fn meaning(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let what = |tag: &str| -> Option<&'static str> {
        if name.contains(&format!("_size{tag}")) || name.contains(".message_size") {
            Some("bytes")
        } else if name.contains(&format!("_msg{tag}")) || name.contains(".nb_messages") {
            Some("message counts, not bytes (the graph's bytes are messages)")
        } else if name.contains(&format!("_avg{tag}")) {
            Some("average message sizes, not bytes sent (not a communication volume)")
        } else {
            None
        }
    };
    if name.starts_with("communication_matrix") {
        let w = what("_")?;
        return Some(format!(
            "EZTrace communication matrix: {w}; each direction in its own cell (row = sender)"
        ));
    }
    if name.starts_with("monitoring_") && name.ends_with(".mat") {
        let w = what(".")?;
        return Some(format!(
            "ompi_monitoring_prof.so matrix: {w}; averaged as (a→b + b→a) / 2 (integer \
             division) in both cells, so a pair's volume is both cells summed"
        ));
    }
    if name.ends_with(".mat") {
        let w = what("_")?;
        return Some(format!(
            "profile2mat matrix: {w}; averaged as (a→b + b→a) / 2, rounded, in both cells, so a \
             pair's volume is both cells summed"
        ));
    }
    None
}

/// Largest process count the dense writer writes (n² numbers).
pub const MAX_WRITE_PROCESSES: usize = 16_384;

/// Write the n×n matrix of bytes sent (row = sender), one row a line.
pub fn write(w: &mut (impl std::io::Write + ?Sized), g: &CommGraph) -> std::io::Result<()> {
    let n = g.n();
    if n > MAX_WRITE_PROCESSES {
        return Err(std::io::Error::other(format!(
            "expected at most {MAX_WRITE_PROCESSES} processes for a dense matrix ({n}² numbers \
             would be written), found {n}; use MatrixMarket or an edge list"
        )));
    }
    let mut row = vec![0.0f64; n];
    let mut line = String::new();
    for u in 0..n {
        for (&v, &s) in g.neighbors(u).iter().zip(g.sent_row(u)) {
            row[v as usize] = s;
        }
        line.clear();
        for (j, x) in row.iter().enumerate() {
            if j > 0 {
                line.push(' ');
            }
            use std::fmt::Write as _;
            let _ = write!(line, "{}", crate::io::text::Num(*x));
        }
        writeln!(w, "{line}")?;
        for &v in g.neighbors(u) {
            row[v as usize] = 0.0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("m.dense")
    }

    #[test]
    fn tool_matrices_say_what_they_hold() {
        let m = |s: &str| meaning(Path::new(s)).unwrap_or_default();
        assert!(m("run/prof_size_external.mat").starts_with("profile2mat matrix: bytes;"));
        assert!(m("prof_msg_all.mat").contains("message counts"));
        assert!(m("prof_avg_all.mat").contains("average message sizes"));
        assert!(m("monitoring_pml_size.mat").starts_with("ompi_monitoring_prof.so matrix: bytes"));
        assert!(
            m("communication_matrix_p2p.nb_messages.dat").starts_with("EZTrace")
                && m("communication_matrix_p2p.nb_messages.dat").contains("message counts")
        );
        assert_eq!(meaning(Path::new("plain.mat")), None);
    }

    #[test]
    fn writes_what_it_reads() {
        let g = parse(b"0 5 0\n2 0 0.5\n0 0 0\n", p()).unwrap();
        let mut out = Vec::new();
        write(&mut out, &g).unwrap();
        assert_eq!(String::from_utf8_lossy(&out), "0 5 0\n2 0 0.5\n0 0 0\n");
    }

    #[test]
    fn rows_send_columns_receive() {
        let g = parse(b"# 3x3\n0 5 0\n2,0,0\n0 0 7\n", p()).unwrap();
        assert!(g.is_directed());
        assert_eq!(g.n(), 3);
        assert_eq!(g.sent_between(0, 1), 5.0);
        assert_eq!(g.sent_between(1, 0), 2.0);
        assert_eq!(g.num_edges(), 1);
        assert_eq!(g.build_stats().self_loops_dropped, 1);
        assert_eq!(g.build_stats().zero_weights_dropped, 0);
    }

    #[test]
    fn errors_name_path_and_line() {
        let e = |s: &[u8]| parse(s, p()).unwrap_err().to_string();
        assert_eq!(
            e(b"0 1\n1\n"),
            "m.dense:2: expected 2 numbers in row 2 like the first row, found 1"
        );
        assert_eq!(
            e(b"0 1\n1 0\n1 1\n"),
            "m.dense:3: expected 2 rows (as many as numbers in a row), found more"
        );
        assert_eq!(
            e(b"0 1\n1 0\n\n% x\n0 1 2\n"),
            "m.dense:5: expected 2 rows (as many as numbers in a row), found more"
        );
        assert_eq!(
            e(b"0 1 1\n1 0 1\n"),
            "m.dense:2: expected 3 rows (as many as numbers in a row), found 2"
        );
        assert_eq!(
            e(b"0 x\n1 0\n"),
            "m.dense:1: expected a matrix entry (a non-negative number of bytes), found `x`"
        );
    }
}
