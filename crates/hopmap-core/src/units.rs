//! The one way hopmap writes a quantity of bytes, in the CLI, the app, the
//! reports and the exports: binary units (KiB = 1,024 B, MiB, GiB, …), as
//! message sizes and buffers are counted in powers of two. Two lengths of
//! the same convention: [`fmt_bytes`] for panels, legends and tables, and
//! [`fmt_bytes_exact`] where a reader may want the exact count (the CLI's
//! summaries). O(1).

const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/// The value scaled to its unit, and the unit's index in [`UNITS`].
fn scaled(b: f64) -> (f64, usize) {
    let mut v = b;
    let mut i = 0;
    while v.abs() >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    (v, i)
}

/// Bytes with a binary unit and two decimals, e.g. `1.50 MiB`; whole bytes
/// below 1 KiB, e.g. `512 B`.
///
/// ```
/// use hopmap_core::units::fmt_bytes;
/// assert_eq!(fmt_bytes(512.0), "512 B");
/// assert_eq!(fmt_bytes(1536.0), "1.50 KiB");
/// assert_eq!(fmt_bytes(3.0 * 1024.0 * 1024.0), "3.00 MiB");
/// ```
pub fn fmt_bytes(b: f64) -> String {
    // −0 (an empty sum) reads as 0.
    let b = b + 0.0;
    match scaled(b) {
        (_, 0) => format!("{b:.0} B"),
        (v, i) => format!("{v:.2} {}", UNITS[i]),
    }
}

/// [`fmt_bytes`] followed by the exact count, e.g. `1.50 MiB (1572864)`.
///
/// ```
/// use hopmap_core::units::fmt_bytes_exact;
/// assert_eq!(fmt_bytes_exact(1572864.0), "1.50 MiB (1572864)");
/// assert_eq!(fmt_bytes_exact(100.0), "100 B");
/// ```
pub fn fmt_bytes_exact(b: f64) -> String {
    let b = b + 0.0;
    match scaled(b) {
        (_, 0) => format!("{b} B"),
        (v, i) => format!("{v:.2} {} ({b})", UNITS[i]),
    }
}

/// A whole count with space digit groups, e.g. `1 234 567` (as the app's
/// panels print hop-bytes and flows); other values with four significant
/// digits ([`crate::report::fmt_value`]).
///
/// ```
/// use hopmap_core::units::fmt_count;
/// assert_eq!(fmt_count(827400304.0), "827 400 304");
/// assert_eq!(fmt_count(32.0), "32");
/// ```
pub fn fmt_count(v: f64) -> String {
    group_digits(v).unwrap_or_else(|| crate::report::fmt_value(v))
}

/// A whole number below 10¹⁵ with space digit groups (`-1 234 567`); None
/// for any other value (a fraction, too large, not finite).
///
/// ```
/// use hopmap_core::units::group_digits;
/// assert_eq!(group_digits(-1234567.0).as_deref(), Some("-1 234 567"));
/// assert_eq!(group_digits(0.5), None);
/// ```
pub fn group_digits(v: f64) -> Option<String> {
    if !(v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15) {
        return None;
    }
    let s = format!("{}", v.abs() as u64);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    Some(if v < 0.0 { format!("-{out}") } else { out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_step_at_1024_and_keep_the_sign() {
        assert_eq!(fmt_bytes(1023.0), "1023 B");
        assert_eq!(fmt_bytes(1024.0), "1.00 KiB");
        assert_eq!(fmt_bytes(-2048.0), "-2.00 KiB");
        assert_eq!(fmt_bytes(-0.0), "0 B");
        assert_eq!(fmt_bytes(1024f64.powi(6) * 3.0), "3072.00 PiB");
        assert_eq!(fmt_bytes_exact(2048.0), "2.00 KiB (2048)");
    }
}
