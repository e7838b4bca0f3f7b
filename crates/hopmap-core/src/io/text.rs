//! Byte-level text scanning shared by every reader: a line iterator with
//! 1-based line numbers, a field splitter on ASCII whitespace (and optionally
//! commas), checked integer and float parsing, and the helpers that format the
//! `what was found` half of an error message.
//!
//! Everything works on `&[u8]` slices of the input: no per-line `String`, no
//! regex. Integers are parsed by hand with overflow checks; floats take a fast
//! path for plain integers and otherwise go through `str::parse::<f64>` on the
//! token (Rust's Eisel–Lemire implementation). Cost: O(bytes).

use crate::error::{Error, Result};
use std::path::Path;

/// Largest process count any reader accepts (2^24 ≈ 1.7·10⁷).
pub const MAX_PROCESSES: usize = 1 << 24;

/// Largest process count accepted from an input of `len` bytes: the global
/// cap, and at most 64 processes per input byte (but always at least 2^20),
/// so that a tiny or corrupt header cannot demand gigabytes.
pub fn process_limit(len: usize) -> usize {
    MAX_PROCESSES.min(len.saturating_mul(64).max(1 << 20))
}

/// Why [`process_limit`] is what it is, for error messages.
pub fn limit_reason(len: usize) -> String {
    format!(
        "a {len}-byte input may name at most {} processes: hopmap allows 64 per byte \
         of input (at least {}, at most {MAX_PROCESSES}), so that a small file cannot \
         demand gigabytes of memory",
        process_limit(len),
        1 << 20
    )
}

/// Check a process count claimed by a header (or implied by an id).
pub fn check_processes(path: &Path, line: usize, n: u64, len: usize) -> Result<usize> {
    let lim = process_limit(len);
    if n > lim as u64 {
        return Err(Error::parse(
            path,
            line,
            format!(
                "expected at most {lim} processes, found {n} ({})",
                limit_reason(len)
            ),
        ));
    }
    Ok(n as usize)
}

/// Iterator over `(line_number, line)` with 1-based numbers; the line excludes
/// the `\n` and a trailing `\r`. A final fragment after the last `\n` is
/// yielded only when it is non-empty.
#[derive(Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
    line: usize,
}

impl<'a> Lines<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Lines {
            rest: bytes,
            line: 0,
        }
    }
    /// Number of the last line yielded (0 before the first).
    pub fn line(&self) -> usize {
        self.line
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        self.line += 1;
        let (mut l, rest) = match find_newline(self.rest) {
            Some(k) => (&self.rest[..k], &self.rest[k + 1..]),
            None => (self.rest, &self.rest[self.rest.len()..]),
        };
        self.rest = rest;
        if let [head @ .., b'\r'] = l {
            l = head;
        }
        Some((self.line, l))
    }
}

/// Position of the first `\n`, eight bytes at a time (SWAR: a word has a
/// zero byte after XOR with `\n` repeated iff it holds a newline).
#[inline]
pub fn find_newline(s: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while i + 8 <= s.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&s[i..i + 8]);
        let x = u64::from_le_bytes(w) ^ NL;
        let z = x.wrapping_sub(LO) & !x & HI;
        if z != 0 {
            return Some(i + (z.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..].iter().position(|&b| b == b'\n').map(|k| i + k)
}

/// Number of the line after the last one: where an "unexpected end of file"
/// is reported.
pub fn eof_line(bytes: &[u8]) -> usize {
    let nl = bytes.iter().filter(|&&b| b == b'\n').count();
    if bytes.last().is_some_and(|&b| b != b'\n') {
        nl + 1
    } else {
        nl.max(1)
    }
}

#[inline]
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// Split a line on ASCII whitespace, and on commas when `comma` is set.
/// Runs of separators count as one.
#[derive(Clone)]
pub struct Fields<'a> {
    s: &'a [u8],
    comma: bool,
}

impl<'a> Fields<'a> {
    pub fn new(s: &'a [u8], comma: bool) -> Self {
        Fields { s, comma }
    }
    #[inline]
    fn is_sep(&self, b: u8) -> bool {
        is_space(b) || (self.comma && b == b',')
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let mut i = 0;
        while i < self.s.len() && self.is_sep(self.s[i]) {
            i += 1;
        }
        if i == self.s.len() {
            self.s = &self.s[i..];
            return None;
        }
        let start = i;
        while i < self.s.len() && !self.is_sep(self.s[i]) {
            i += 1;
        }
        let tok = &self.s[start..i];
        self.s = &self.s[i..];
        Some(tok)
    }
}

/// Whitespace-separated tokens of a whole buffer with their line numbers,
/// for stream formats (Scotch) whose records may span lines.
#[derive(Clone)]
pub struct Tokens<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Tokens<'a> {
    pub fn new(s: &'a [u8]) -> Self {
        Tokens { s, pos: 0, line: 1 }
    }
    /// Line of the last token returned, or of the end of input.
    pub fn line(&self) -> usize {
        self.line
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = (usize, &'a [u8]);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let s = self.s;
        let mut i = self.pos;
        while i < s.len() && is_space(s[i]) {
            if s[i] == b'\n' {
                self.line += 1;
            }
            i += 1;
        }
        if i == s.len() {
            self.pos = i;
            return None;
        }
        let start = i;
        while i < s.len() && !is_space(s[i]) {
            i += 1;
        }
        self.pos = i;
        Some((self.line, &s[start..i]))
    }
}

/// Whether a comma-separated line has an empty field: two commas with only
/// whitespace between them, or a comma at the start or end (`0,,5`,
/// `,0,5`). Such a line is refused rather than read with a field missing.
pub fn has_empty_csv_field(line: &[u8]) -> bool {
    if !line.contains(&b',') {
        return false;
    }
    line.split(|&b| b == b',').any(is_blank)
}

/// The line up to the first of the comment characters.
#[inline]
pub fn strip_comment<'a>(line: &'a [u8], chars: &[u8]) -> &'a [u8] {
    match line.iter().position(|b| chars.contains(b)) {
        Some(k) => &line[..k],
        None => line,
    }
}

/// The line without leading and trailing ASCII whitespace.
pub fn trim(line: &[u8]) -> &[u8] {
    let a = line
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(line.len());
    let b = line
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(a, |k| k + 1);
    &line[a..b.max(a)]
}

/// Whether the line is empty or only whitespace.
#[inline]
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_space(b))
}

/// A non-negative decimal integer (optional leading `+`), None on anything
/// else or on overflow.
#[inline]
pub fn parse_u64(tok: &[u8]) -> Option<u64> {
    let digits = match tok {
        [b'+', rest @ ..] => rest,
        _ => tok,
    };
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

/// A decimal integer with optional sign.
pub fn parse_i64(tok: &[u8]) -> Option<i64> {
    match tok {
        [b'-', rest @ ..] => {
            let v = parse_u64(rest)?;
            if v <= i64::MAX as u64 + 1 {
                Some((v as i64).wrapping_neg())
            } else {
                None
            }
        }
        _ => parse_u64(tok).and_then(|v| i64::try_from(v).ok()),
    }
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Clinger's fast path: `[-+]digits[.digits]` whose digits form an integer
/// below 2^53 and with at most 22 decimals is `mantissa / 10^decimals`, a
/// single correctly rounded division. None when the token needs the slow path.
#[inline]
fn fast_decimal(tok: &[u8]) -> Option<f64> {
    let (neg, d) = match tok {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, tok),
    };
    let mut mant: u64 = 0;
    let mut digits = 0u32;
    let mut frac = 0usize;
    let mut dot = false;
    for &b in d {
        let v = b.wrapping_sub(b'0');
        if v <= 9 {
            if digits >= 18 {
                return None;
            }
            mant = mant * 10 + v as u64;
            digits += 1;
            frac += dot as usize;
        } else if b == b'.' && !dot {
            dot = true;
        } else {
            return None;
        }
    }
    if digits == 0 || mant > (1u64 << 53) || frac > 22 {
        return None;
    }
    let v = mant as f64 / POW10[frac];
    Some(if neg { -v } else { v })
}

/// A finite float (decimal, optional exponent). `inf`/`nan` are rejected.
#[inline]
pub fn parse_f64(tok: &[u8]) -> Option<f64> {
    if let Some(v) = fast_decimal(tok) {
        return Some(v);
    }
    // Only characters of a decimal float may pass (this rejects inf/nan).
    if tok.is_empty()
        || !tok
            .iter()
            .all(|&b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
    {
        return None;
    }
    let s = std::str::from_utf8(tok).ok()?;
    let v: f64 = s.parse().ok()?;
    v.is_finite().then_some(v)
}

/// How a token is shown in an error: backquoted, control characters escaped,
/// cut at 40 characters.
pub fn show(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    let mut out = String::from("`");
    for (i, c) in s.chars().enumerate() {
        if i == 40 {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('`');
    out
}

/// `show` of an optional token, "end of line" when absent.
pub fn show_opt(tok: Option<&[u8]>) -> String {
    match tok {
        Some(t) => show(t),
        None => "end of line".to_string(),
    }
}

/// Parse a non-negative weight (bytes); errors name the line and token.
#[inline]
pub fn weight(path: &Path, line: usize, tok: Option<&[u8]>, what: &str) -> Result<f64> {
    match tok.and_then(parse_f64) {
        Some(w) if w >= 0.0 => Ok(w),
        _ => Err(Error::parse(
            path,
            line,
            format!(
                "expected {what} (a non-negative number of bytes), found {}",
                show_opt(tok)
            ),
        )),
    }
}

/// Parse a non-negative integer; errors name the line and token.
#[inline]
pub fn uint(path: &Path, line: usize, tok: Option<&[u8]>, what: &str) -> Result<u64> {
    tok.and_then(parse_u64).ok_or_else(|| {
        Error::parse(
            path,
            line,
            format!(
                "expected {what} (a non-negative integer), found {}",
                show_opt(tok)
            ),
        )
    })
}

/// Parse a finite number; errors name the line and token.
pub fn number(path: &Path, line: usize, tok: Option<&[u8]>, what: &str) -> Result<f64> {
    tok.and_then(parse_f64).ok_or_else(|| {
        Error::parse(
            path,
            line,
            format!("expected {what} (a number), found {}", show_opt(tok)),
        )
    })
}

/// A 1-based vertex reference in `1..=n`, returned 0-based.
#[inline]
pub fn vertex1(
    path: &Path,
    line: usize,
    tok: Option<&[u8]>,
    n: usize,
    what: &str,
) -> Result<usize> {
    match tok.and_then(parse_u64) {
        Some(v) if v >= 1 && v <= n as u64 => Ok(v as usize - 1),
        _ => Err(Error::parse(
            path,
            line,
            format!("expected {what} from 1 to {n}, found {}", show_opt(tok)),
        )),
    }
}

/// Format a number so that it parses back exactly and stays short: integers
/// without a fraction, others in the shortest round-trip form.
pub struct Num(pub f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x.fract() == 0.0 && x.abs() < 1e15 {
            write!(f, "{}", x as i64)
        } else if x == 0.0 || (x.abs() >= 1e-4 && x.abs() < 1e15) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_numbers_and_crlf() {
        let v: Vec<_> = Lines::new(b"a\r\nb\n\nc").collect();
        assert_eq!(
            v,
            vec![
                (1, &b"a"[..]),
                (2, &b"b"[..]),
                (3, &b""[..]),
                (4, &b"c"[..])
            ]
        );
        assert_eq!(Lines::new(b"a\n").count(), 1);
        assert_eq!(eof_line(b"a\nb"), 2);
        assert_eq!(eof_line(b"a\nb\n"), 2);
    }

    #[test]
    fn newline_search() {
        for len in 0..40 {
            for at in 0..=len {
                let mut v = vec![b'a'; len];
                if at < len {
                    v[at] = b'\n';
                }
                let want = (at < len).then_some(at);
                assert_eq!(find_newline(&v), want, "{len} {at}");
            }
        }
        assert_eq!(find_newline(b"ab\x8a\n"), Some(3));
    }

    #[test]
    fn fields_split() {
        let v: Vec<_> = Fields::new(b" 1, 2 ,,3\t", true).collect();
        assert_eq!(v, vec![&b"1"[..], b"2", b"3"]);
        let v: Vec<_> = Fields::new(b"1,2 3", false).collect();
        assert_eq!(v, vec![&b"1,2"[..], b"3"]);
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"+7"), Some(7));
        assert_eq!(parse_u64(b"-7"), None);
        assert_eq!(parse_i64(b"-7"), Some(-7));
        assert_eq!(parse_f64(b"2.5e3"), Some(2500.0));
        assert_eq!(parse_f64(b"inf"), None);
        assert_eq!(parse_f64(b"1e400"), None);
        assert_eq!(parse_f64(b"12"), Some(12.0));
        assert_eq!(parse_f64(b"-0.5"), Some(-0.5));
        assert_eq!(parse_f64(b"."), None);
        assert_eq!(parse_f64(b"1.2.3"), None);
        // The fast path agrees with the standard parser.
        for t in [
            "0.1",
            "123.456",
            "9007199254740992",
            "9007199254740993",
            "1.000000000000000000001",
            "65535.999",
            "0.0000000000000000000001",
            "12345678901234567890",
        ] {
            assert_eq!(parse_f64(t.as_bytes()), t.parse::<f64>().ok(), "{t}");
        }
        for x in [0.0, 1.0, 2.5, 1e-7, 123456789.125, 1e300, 0.1] {
            let s = Num(x).to_string();
            assert_eq!(parse_f64(s.as_bytes()), Some(x), "{s}");
        }
        assert_eq!(Num(1e300).to_string(), "1e300");
        assert_eq!(show(b"ab\x01"), "`ab\\u{1}`");
    }
}
