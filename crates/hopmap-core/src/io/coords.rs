//! Coordinates file reader and writer: one line per process in rank order,
//! `x y` or `x y z` (the same count on every line; whitespace and/or comma
//! separated), `#` and `%` comments, blank lines skipped. Cost: O(bytes).

use super::text::{self, Fields, Lines, Num};
use crate::error::{Error, Result};
use crate::graph::Coords;
use std::io::Write;
use std::path::Path;

/// Parse a coordinates file.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Coords> {
    let mut dim = 0usize;
    let mut xyz: Vec<[f64; 3]> = Vec::with_capacity(bytes.len() / 8 + 1);
    for (ln, l) in Lines::new(bytes) {
        let l = text::strip_comment(l, b"#%");
        let mut p = [0.0f64; 3];
        let mut k = 0usize;
        for t in Fields::new(l, true) {
            if k == 3 {
                return Err(Error::parse(
                    path,
                    ln,
                    format!(
                        "expected `x y [z]`, found a fourth number {}",
                        text::show(t)
                    ),
                ));
            }
            p[k] = text::number(path, ln, Some(t), "a coordinate")?;
            k += 1;
        }
        if k == 0 {
            continue;
        }
        if k == 1 {
            return Err(Error::parse(
                path,
                ln,
                "expected `x y [z]`, found one number",
            ));
        }
        if dim == 0 {
            dim = k;
        } else if k != dim {
            return Err(Error::parse(
                path,
                ln,
                format!("expected {dim} numbers like the first line, found {k}"),
            ));
        }
        xyz.push(p);
    }
    if xyz.is_empty() {
        return Err(Error::parse(
            path,
            text::eof_line(bytes),
            "expected `x y [z]` lines, found none",
        ));
    }
    xyz.shrink_to_fit();
    Ok(Coords::new(dim, xyz))
}

/// Write one `x y [z]` line per process.
pub fn write(w: &mut (impl Write + ?Sized), c: &Coords) -> std::io::Result<()> {
    writeln!(
        w,
        "# hopmap coordinates: one line per process, {}",
        if c.dim == 3 { "x y z" } else { "x y" }
    )?;
    for p in &c.xyz {
        if c.dim == 3 {
            writeln!(w, "{} {} {}", Num(p[0]), Num(p[1]), Num(p[2]))?;
        } else {
            writeln!(w, "{} {}", Num(p[0]), Num(p[1]))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("c.xyz")
    }

    #[test]
    fn parse_2d_3d_and_round_trip() {
        let c = parse(b"# pts\n0 1\n2.5,-3\n\n", p()).unwrap();
        assert_eq!(c.dim, 2);
        assert_eq!(c.xyz, vec![[0.0, 1.0, 0.0], [2.5, -3.0, 0.0]]);
        let c = parse(b"1 2 3\n4 5 6 % c\n", p()).unwrap();
        assert_eq!(c.dim, 3);
        let mut out = Vec::new();
        write(&mut out, &c).unwrap();
        assert_eq!(parse(&out, p()).unwrap(), c);
    }

    #[test]
    fn errors_name_path_and_line() {
        let e = |s: &[u8]| parse(s, p()).unwrap_err().to_string();
        assert_eq!(
            e(b"1 2\n1 2 3\n"),
            "c.xyz:2: expected 2 numbers like the first line, found 3"
        );
        assert_eq!(
            e(b"1 2\n1 y\n"),
            "c.xyz:2: expected a coordinate (a number), found `y`"
        );
        assert_eq!(e(b"1\n"), "c.xyz:1: expected `x y [z]`, found one number");
        assert_eq!(
            e(b"1 2 3 4\n"),
            "c.xyz:1: expected `x y [z]`, found a fourth number `4`"
        );
    }
}
