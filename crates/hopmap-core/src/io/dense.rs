//! Dense communication matrix reader.
//!
//! `n` rows of `n` numbers (whitespace and/or comma separated; `#` and `%`
//! start comments; blank lines are skipped). Entry (i, j) is the bytes sent
//! by process i (the row) to process j (the column), so the graph is
//! directed. Zeros mean "no message" and are skipped silently (they are the
//! matrix's background, not dropped edges); a non-zero diagonal entry is a
//! self-message, which the builder drops and counts.
//! Cost: O(bytes) + the CSR build.

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

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("m.dense")
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
