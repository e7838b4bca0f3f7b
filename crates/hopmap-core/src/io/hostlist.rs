//! Slurm hostlist expressions: `tux[0-3,12]`, `rack[1-2]n[01-04]`,
//! `a,b[7-8]` — comma-separated items, each a name with bracketed ranges
//! (`lo-hi` or single numbers, comma-separated); a range keeps the width of
//! its lower bound when that has leading zeros (`[01-10]` → `01` … `10`).
//! Several bracket groups expand as a product, the first varying slowest.
//! O(output) time; at most [`MAX_NAMES`] names.

/// Largest number of names one expression may expand to.
pub const MAX_NAMES: usize = 1 << 22;

/// Expand a hostlist expression into names, in order. The error says what
/// was expected and what was found.
pub fn expand(expr: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for item in split_top(expr)? {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let mut names = vec![String::new()];
        let mut rest = item;
        while !rest.is_empty() {
            match rest.find('[') {
                None => {
                    for n in &mut names {
                        n.push_str(rest);
                    }
                    rest = "";
                }
                Some(i) => {
                    let close = rest[i..]
                        .find(']')
                        .map(|j| i + j)
                        .ok_or_else(|| format!("expected `]` in `{item}`, found none"))?;
                    let prefix = &rest[..i];
                    let nums = ranges(&rest[i + 1..close])?;
                    let mut next = Vec::with_capacity(names.len() * nums.len());
                    for n in &names {
                        for num in &nums {
                            next.push(format!("{n}{prefix}{num}"));
                        }
                    }
                    if next.len() + out.len() > MAX_NAMES {
                        return Err(format!(
                            "expected at most {MAX_NAMES} names, found more in `{item}`"
                        ));
                    }
                    names = next;
                    rest = &rest[close + 1..];
                }
            }
        }
        out.extend(names);
    }
    Ok(out)
}

/// Split on commas outside brackets.
fn split_top(s: &str) -> Result<Vec<&str>, String> {
    let mut v = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("expected `[` before `]` in `{s}`"));
                }
            }
            ',' if depth == 0 => {
                v.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("expected `]` in `{s}`, found none"));
    }
    v.push(&s[start..]);
    Ok(v)
}

/// `0-3,12` → numbers as strings (zero-padded like their lower bound).
fn ranges(s: &str) -> Result<Vec<String>, String> {
    let mut v = Vec::new();
    for part in s.split(',') {
        let part = part.trim();
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let bad = || format!("expected a number or range like 0-3 in `[{s}]`, found `{part}`");
        if lo.is_empty()
            || !lo.bytes().all(|b| b.is_ascii_digit())
            || !hi.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let (a, b): (u64, u64) = (
            lo.parse().map_err(|_| bad())?,
            hi.parse().map_err(|_| bad())?,
        );
        if b < a || b - a >= MAX_NAMES as u64 {
            return Err(bad());
        }
        let width = if lo.len() > 1 && lo.starts_with('0') {
            lo.len()
        } else {
            0
        };
        for n in a..=b {
            v.push(format!("{n:0width$}"));
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_slurm_examples() {
        assert_eq!(
            expand("tux[0-3,12]").unwrap(),
            vec!["tux0", "tux1", "tux2", "tux3", "tux12"]
        );
        assert_eq!(expand("n[08-10]").unwrap(), vec!["n08", "n09", "n10"]);
        assert_eq!(expand("a,b[1-2]").unwrap(), vec!["a", "b1", "b2"]);
        assert_eq!(
            expand("r[1-2]n[1-2]").unwrap(),
            vec!["r1n1", "r1n2", "r2n1", "r2n2"]
        );
        assert_eq!(expand("s[1-2]-ib").unwrap(), vec!["s1-ib", "s2-ib"]);
        for bad in ["tux[0-", "tux[3-1]", "tux[a]", "x]", "t[]"] {
            assert!(expand(bad).is_err(), "{bad}");
        }
    }
}
