//! Graphviz DOT reader (a subset) and writer.
//!
//! Reads `[strict] graph|digraph [name] { ... }` with statements separated by
//! optional `;`: node statements `a [attrs]`, edge statements and chains
//! `a -- b -- c [attrs]` (`->` in a digraph, which keeps the direction),
//! attribute statements `graph|node|edge [attrs]` (an `edge [weight=…]`
//! default applies to later edges in its `{}` scope), `key = value`, and
//! subgraph blocks `[subgraph [name]] { ... }` (their nodes and edges count;
//! an edge *to* a subgraph is not supported). Names are identifiers,
//! numerals, `"quoted"` strings (with `\"` escapes and `+` concatenation) or
//! `<html>` strings; ports `a:p:c` are ignored. Comments: `//`, `/* */`, `#`.
//!
//! An edge's bytes come from its `bytes` attribute, else `weight`, else the
//! scope default, else 1. A node whose name is a non-negative integer
//! (without leading zeros) is that process id; the other names are numbered
//! after the largest such integer, in order of first appearance (so `3` is
//! process 3 whether or not the file also has named nodes). Numerals may
//! carry an exponent (`weight=1e6`). Repeated edges add up, except in a
//! `strict` graph, where a repeated edge is the same edge (in either
//! direction in a `graph`): a later `weight`/`bytes` replaces the earlier
//! one, as Graphviz applies a later statement's attributes to the edge.
//! `pos="x,y[,z][!]"` on node statements gives coordinates when every
//! process has one.
//!
//! The writer emits `graph`/`digraph` with `weight` attributes, a `pos` on
//! every node when coordinates exist, and a node statement for each process
//! without edges (so the count survives a round trip).
//! Cost: O(bytes) with one hash lookup per name, plus the CSR build.

use super::text::{self, Num, show};
use crate::error::{Error, Result};
use crate::graph::{CommGraph, Coords, GraphBuilder};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// A name: identifier, numeral, quoted or HTML string. `bool` = quoted/HTML.
    Id(String, bool),
    LBrace,
    RBrace,
    LBrack,
    RBrack,
    Semi,
    Comma,
    Eq,
    Colon,
    Plus,
    /// `--` (false) or `->` (true).
    Edge(bool),
}

fn describe(t: Option<&Tok>) -> String {
    match t {
        None => "end of file".into(),
        Some(Tok::Id(s, _)) => show(s.as_bytes()),
        Some(Tok::LBrace) => "`{`".into(),
        Some(Tok::RBrace) => "`}`".into(),
        Some(Tok::LBrack) => "`[`".into(),
        Some(Tok::RBrack) => "`]`".into(),
        Some(Tok::Semi) => "`;`".into(),
        Some(Tok::Comma) => "`,`".into(),
        Some(Tok::Eq) => "`=`".into(),
        Some(Tok::Colon) => "`:`".into(),
        Some(Tok::Plus) => "`+`".into(),
        Some(Tok::Edge(false)) => "`--`".into(),
        Some(Tok::Edge(true)) => "`->`".into(),
    }
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
    path: &'a Path,
    peeked: Option<(usize, Option<Tok>)>,
}

fn is_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

impl<'a> Lexer<'a> {
    fn err(&self, line: usize, msg: String) -> Error {
        Error::parse(self.path, line, msg)
    }

    fn skip_space_and_comments(&mut self) -> Result<()> {
        let s = self.s;
        loop {
            while self.pos < s.len() && text::is_space(s[self.pos]) {
                if s[self.pos] == b'\n' {
                    self.line += 1;
                }
                self.pos += 1;
            }
            let rest = &s[self.pos..];
            if rest.starts_with(b"//") || rest.starts_with(b"#") {
                while self.pos < s.len() && s[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if rest.starts_with(b"/*") {
                let start = self.line;
                self.pos += 2;
                loop {
                    if self.pos + 1 >= s.len() {
                        return Err(self.err(
                            start,
                            "expected `*/` to close this comment, found end of file".into(),
                        ));
                    }
                    if s[self.pos] == b'*' && s[self.pos + 1] == b'/' {
                        self.pos += 2;
                        break;
                    }
                    if s[self.pos] == b'\n' {
                        self.line += 1;
                    }
                    self.pos += 1;
                }
            } else {
                return Ok(());
            }
        }
    }

    fn lex(&mut self) -> Result<(usize, Option<Tok>)> {
        self.skip_space_and_comments()?;
        let s = self.s;
        let line = self.line;
        let Some(&c) = s.get(self.pos) else {
            // The end of file is reported on the last line, not after it.
            return Ok((text::eof_line(s).min(line), None));
        };
        let one = |t: Tok| (line, Some(t));
        let next = s.get(self.pos + 1).copied();
        let tok = match c {
            b'{' => one(Tok::LBrace),
            b'}' => one(Tok::RBrace),
            b'[' => one(Tok::LBrack),
            b']' => one(Tok::RBrack),
            b';' => one(Tok::Semi),
            b',' => one(Tok::Comma),
            b'=' => one(Tok::Eq),
            b':' => one(Tok::Colon),
            b'+' => one(Tok::Plus),
            b'-' if next == Some(b'-') || next == Some(b'>') => {
                self.pos += 2;
                return Ok((line, Some(Tok::Edge(next == Some(b'>')))));
            }
            b'"' => {
                let mut out = Vec::new();
                let mut i = self.pos + 1;
                loop {
                    let Some(&b) = s.get(i) else {
                        return Err(self.err(
                            line,
                            "expected `\"` to close this string, found end of file".into(),
                        ));
                    };
                    match b {
                        b'"' => break,
                        b'\\' if s.get(i + 1) == Some(&b'"') => {
                            out.push(b'"');
                            i += 2;
                        }
                        b'\\' if s.get(i + 1) == Some(&b'\n') => {
                            self.line += 1;
                            i += 2;
                        }
                        b'\\' if s.get(i + 1) == Some(&b'\r') && s.get(i + 2) == Some(&b'\n') => {
                            self.line += 1;
                            i += 3;
                        }
                        _ => {
                            if b == b'\n' {
                                self.line += 1;
                            }
                            out.push(b);
                            i += 1;
                        }
                    }
                }
                self.pos = i + 1;
                return Ok((
                    line,
                    Some(Tok::Id(String::from_utf8_lossy(&out).into_owned(), true)),
                ));
            }
            b'<' => {
                let mut depth = 0usize;
                let mut i = self.pos;
                loop {
                    let Some(&b) = s.get(i) else {
                        return Err(self.err(
                            line,
                            "expected `>` to close this HTML string, found end of file".into(),
                        ));
                    };
                    match b {
                        b'<' => depth += 1,
                        b'>' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        b'\n' => self.line += 1,
                        _ => {}
                    }
                    i += 1;
                }
                let inner = &s[self.pos + 1..i];
                self.pos = i + 1;
                return Ok((
                    line,
                    Some(Tok::Id(String::from_utf8_lossy(inner).into_owned(), true)),
                ));
            }
            b'-' | b'.' | b'0'..=b'9' => {
                let start = self.pos;
                let mut i = self.pos + (c == b'-') as usize;
                let mut digits = 0;
                let mut dot = false;
                while let Some(&b) = s.get(i) {
                    if b.is_ascii_digit() {
                        digits += 1;
                    } else if b == b'.' && !dot {
                        dot = true;
                    } else {
                        break;
                    }
                    i += 1;
                }
                // An exponent (`1e6`, `2.5E-3`): not in DOT's grammar, but
                // what a weight written by a program looks like.
                if digits > 0 && matches!(s.get(i), Some(b'e' | b'E')) {
                    let mut j = i + 1;
                    if matches!(s.get(j), Some(b'+' | b'-')) {
                        j += 1;
                    }
                    if s.get(j).is_some_and(u8::is_ascii_digit) {
                        while s.get(j).is_some_and(u8::is_ascii_digit) {
                            j += 1;
                        }
                        i = j;
                    }
                }
                if digits == 0 || s.get(i).is_some_and(|&b| is_id_byte(b) || b == b'.') {
                    // Show the whole malformed token, not its first bytes.
                    let mut end = i;
                    while s
                        .get(end)
                        .is_some_and(|&b| is_id_byte(b) || matches!(b, b'.' | b'+' | b'-'))
                    {
                        end += 1;
                    }
                    let end = end.max((start + 1).min(s.len()));
                    return Err(self.err(
                        line,
                        format!(
                            "expected a name or a number, found {}",
                            show(&s[start..end])
                        ),
                    ));
                }
                self.pos = i;
                return Ok((
                    line,
                    Some(Tok::Id(
                        String::from_utf8_lossy(&s[start..i]).into_owned(),
                        false,
                    )),
                ));
            }
            b if is_id_byte(b) => {
                let start = self.pos;
                let mut i = self.pos;
                while s.get(i).is_some_and(|&b| is_id_byte(b)) {
                    i += 1;
                }
                self.pos = i;
                return Ok((
                    line,
                    Some(Tok::Id(
                        String::from_utf8_lossy(&s[start..i]).into_owned(),
                        false,
                    )),
                ));
            }
            _ => {
                return Err(self.err(
                    line,
                    format!(
                        "expected a DOT token, found {}",
                        show(&s[self.pos..self.pos + 1])
                    ),
                ));
            }
        };
        self.pos += 1;
        Ok(tok)
    }

    fn next(&mut self) -> Result<(usize, Option<Tok>)> {
        match self.peeked.take() {
            Some(x) => Ok(x),
            None => self.lex(),
        }
    }

    fn peek(&mut self) -> Result<Option<&Tok>> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().and_then(|x| x.1.as_ref()))
    }
}

fn is_kw(t: &Tok, kw: &str) -> bool {
    matches!(t, Tok::Id(s, false) if s.eq_ignore_ascii_case(kw))
}

/// `(weight, bytes, pos)` found in an attribute list; pos = (point, dims).
type Attrs = (Option<f64>, Option<f64>, Option<([f64; 3], usize)>);

struct Parser<'a> {
    lx: Lexer<'a>,
    directed: bool,
    index: HashMap<String, u32>,
    names: Vec<String>,
    pos: Vec<Option<([f64; 3], usize)>>,
    edges: Vec<(u32, u32, f64)>,
    /// In a `strict` graph: each node pair's index in `edges` (ordered pair
    /// in a digraph, unordered in a graph), so a repeated edge is the same
    /// edge.
    strict: Option<HashMap<(u32, u32), usize>>,
    /// Default edge weight per `{}` scope.
    defaults: Vec<Option<f64>>,
    limit: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, line: usize, msg: String) -> Error {
        Error::parse(self.lx.path, line, msg)
    }

    fn intern(&mut self, name: String, line: usize) -> Result<u32> {
        if let Some(&k) = self.index.get(&name) {
            return Ok(k);
        }
        let k = self.names.len();
        if k >= self.limit {
            return Err(self.err(
                line,
                format!("expected at most {} nodes, found more", self.limit),
            ));
        }
        self.names.push(name.clone());
        self.pos.push(None);
        self.index.insert(name, k as u32);
        Ok(k as u32)
    }

    /// A name value, with `"a" + "b"` concatenation.
    fn value(&mut self, what: &str) -> Result<(usize, String)> {
        let (line, t) = self.lx.next()?;
        let Some(Tok::Id(mut s, quoted)) = t else {
            return Err(self.err(
                line,
                format!("expected {what}, found {}", describe(t.as_ref())),
            ));
        };
        if quoted {
            while self.lx.peek()? == Some(&Tok::Plus) {
                self.lx.next()?;
                let (l2, t2) = self.lx.next()?;
                match t2 {
                    Some(Tok::Id(s2, true)) => s.push_str(&s2),
                    other => {
                        return Err(self.err(
                            l2,
                            format!(
                                "expected a quoted string after `+`, found {}",
                                describe(other.as_ref())
                            ),
                        ));
                    }
                }
            }
        }
        Ok((line, s))
    }

    /// Skip an optional `:port[:compass]`.
    fn port(&mut self) -> Result<()> {
        for _ in 0..2 {
            if self.lx.peek()? == Some(&Tok::Colon) {
                self.lx.next()?;
                self.value("a port name after `:`")?;
            } else {
                break;
            }
        }
        Ok(())
    }

    /// Parse `[k=v, ...]...`; returns (weight, bytes, pos) seen.
    fn attrs(&mut self) -> Result<Attrs> {
        let (mut weight, mut bytes, mut pos) = (None, None, None);
        while self.lx.peek()? == Some(&Tok::LBrack) {
            self.lx.next()?;
            loop {
                match self.lx.peek()? {
                    Some(Tok::RBrack) => {
                        self.lx.next()?;
                        break;
                    }
                    Some(Tok::Semi) | Some(Tok::Comma) => {
                        self.lx.next()?;
                        continue;
                    }
                    _ => {}
                }
                let (kl, key) = self.value("an attribute name or `]`")?;
                let (el, eq) = self.lx.next()?;
                if eq != Some(Tok::Eq) {
                    return Err(self.err(
                        el,
                        format!(
                            "expected `=` after attribute {}, found {}",
                            show(key.as_bytes()),
                            describe(eq.as_ref())
                        ),
                    ));
                }
                let (vl, val) = self.value("an attribute value")?;
                let _ = kl;
                match key.as_str() {
                    "weight" | "bytes" => {
                        let w = match text::parse_f64(val.trim().as_bytes()) {
                            Some(w) if w >= 0.0 => w,
                            _ => {
                                return Err(self.err(
                                    vl,
                                    format!("expected {key} to be a non-negative number of bytes, found {}", show(val.as_bytes())),
                                ));
                            }
                        };
                        if key == "bytes" {
                            bytes = Some(w);
                        } else {
                            weight = Some(w);
                        }
                    }
                    "pos" => {
                        let v = val.trim();
                        let v = v.strip_suffix('!').unwrap_or(v);
                        let mut p = [0.0; 3];
                        let mut k = 0;
                        let mut ok = true;
                        for part in v.split(',') {
                            match (k < 3)
                                .then(|| text::parse_f64(part.trim().as_bytes()))
                                .flatten()
                            {
                                Some(x) => {
                                    p[k] = x;
                                    k += 1;
                                }
                                None => ok = false,
                            }
                        }
                        if !ok || k < 2 {
                            return Err(self.err(
                                vl,
                                format!("expected pos=\"x,y[,z]\", found {}", show(val.as_bytes())),
                            ));
                        }
                        pos = Some((p, k));
                    }
                    _ => {}
                }
            }
        }
        Ok((weight, bytes, pos))
    }

    fn stmt_list(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > 100 {
            let line = self.lx.line;
            return Err(self.err(
                line,
                "expected at most 100 nested `{}` blocks, found more".into(),
            ));
        }
        let inherited = self.defaults.last().copied().flatten();
        self.defaults.push(inherited);
        loop {
            let (line, t) = self.lx.next()?;
            let Some(t) = t else {
                return Err(self.err(line, "expected `}`, found end of file".into()));
            };
            match t {
                Tok::RBrace => break,
                Tok::Semi => continue,
                Tok::LBrace => {
                    self.block_tail(line)?;
                }
                ref k if is_kw(k, "subgraph") => {
                    if matches!(self.lx.peek()?, Some(Tok::Id(..))) {
                        self.lx.next()?;
                    }
                    let (bl, b) = self.lx.next()?;
                    if b != Some(Tok::LBrace) {
                        return Err(self.err(
                            bl,
                            format!(
                                "expected `{{` after subgraph, found {}",
                                describe(b.as_ref())
                            ),
                        ));
                    }
                    self.block_tail(line)?;
                }
                ref k if is_kw(k, "graph") || is_kw(k, "node") || is_kw(k, "edge") => {
                    if self.lx.peek()? == Some(&Tok::Eq) {
                        self.lx.next()?;
                        self.value("a value after `=`")?;
                        continue;
                    }
                    let (w, b, _) = self.attrs()?;
                    if let (true, Some(x), Some(d)) =
                        (is_kw(&t, "edge"), b.or(w), self.defaults.last_mut())
                    {
                        *d = Some(x);
                    }
                }
                Tok::Id(name, quoted) => {
                    let mut name = name;
                    if quoted {
                        while self.lx.peek()? == Some(&Tok::Plus) {
                            self.lx.next()?;
                            let (l2, t2) = self.lx.next()?;
                            match t2 {
                                Some(Tok::Id(s2, true)) => name.push_str(&s2),
                                other => {
                                    return Err(self.err(
                                        l2,
                                        format!(
                                            "expected a quoted string after `+`, found {}",
                                            describe(other.as_ref())
                                        ),
                                    ));
                                }
                            }
                        }
                    }
                    if self.lx.peek()? == Some(&Tok::Eq) {
                        self.lx.next()?;
                        self.value("a value after `=`")?;
                        continue;
                    }
                    self.port()?;
                    let first = self.intern(name, line)?;
                    if matches!(self.lx.peek()?, Some(Tok::Edge(_))) {
                        let mut chain = vec![first];
                        while let Some(Tok::Edge(arrow)) = self.lx.peek()?.cloned() {
                            let (ol, _) = self.lx.next()?;
                            if arrow != self.directed {
                                return Err(self.err(
                                    ol,
                                    format!(
                                        "expected `{}` in a {}, found `{}`",
                                        if self.directed { "->" } else { "--" },
                                        if self.directed { "digraph" } else { "graph" },
                                        if arrow { "->" } else { "--" }
                                    ),
                                ));
                            }
                            let (nl, nt) = self.lx.next()?;
                            match nt {
                                Some(Tok::Id(ref s, _))
                                    if !is_kw(nt.as_ref().unwrap_or(&Tok::Semi), "subgraph") =>
                                {
                                    let s = s.clone();
                                    self.port()?;
                                    chain.push(self.intern(s, nl)?);
                                }
                                other => {
                                    return Err(self.err(
                                        nl,
                                        format!(
                                            "expected a node name after the edge operator (edges to subgraphs are not supported), found {}",
                                            describe(other.as_ref())
                                        ),
                                    ));
                                }
                            }
                        }
                        let (w, b, _) = self.attrs()?;
                        self.add_edges(&chain, b.or(w));
                    } else {
                        let (_, _, pos) = self.attrs()?;
                        if let (Some(p), Some(slot)) = (pos, self.pos.get_mut(first as usize)) {
                            *slot = Some(p);
                        }
                    }
                }
                other => {
                    return Err(self.err(
                        line,
                        format!("expected a statement, found {}", describe(Some(&other))),
                    ));
                }
            }
        }
        self.defaults.pop();
        self.depth -= 1;
        Ok(())
    }

    /// The edges of a chain, with the weight given in its statement
    /// (`explicit`) or else the scope's default, else 1. In a `strict`
    /// graph an edge already seen is that edge again: an explicit weight
    /// replaces its weight, and no weight leaves it as it was (Graphviz's
    /// rule: later statements only apply the attributes they give).
    fn add_edges(&mut self, chain: &[u32], explicit: Option<f64>) {
        let fresh = explicit
            .or(self.defaults.last().copied().flatten())
            .unwrap_or(1.0);
        for pair in chain.windows(2) {
            let (u, v) = (pair[0], pair[1]);
            let Some(seen) = self.strict.as_mut() else {
                self.edges.push((u, v, fresh));
                continue;
            };
            let key = if self.directed || u <= v {
                (u, v)
            } else {
                (v, u)
            };
            match seen.get(&key) {
                Some(&i) => {
                    if let (Some(x), Some(e)) = (explicit, self.edges.get_mut(i)) {
                        e.2 = x;
                    }
                }
                None => {
                    seen.insert(key, self.edges.len());
                    self.edges.push((u, v, fresh));
                }
            }
        }
    }

    /// After a `{` that opened a subgraph at `line`: its statements, and an
    /// error if an edge leaves it.
    fn block_tail(&mut self, line: usize) -> Result<()> {
        self.stmt_list()?;
        if matches!(self.lx.peek()?, Some(Tok::Edge(_))) {
            return Err(self.err(
                line,
                "expected a node name, found a subgraph as an edge end (not supported)".into(),
            ));
        }
        Ok(())
    }
}

/// Parse a DOT graph.
pub fn parse(bytes: &[u8], path: &Path) -> Result<CommGraph> {
    let lx = Lexer {
        s: bytes,
        pos: 0,
        line: 1,
        path,
        peeked: None,
    };
    let mut p = Parser {
        lx,
        directed: false,
        index: HashMap::new(),
        names: Vec::new(),
        pos: Vec::new(),
        edges: Vec::new(),
        strict: None,
        defaults: Vec::new(),
        limit: text::process_limit(bytes.len()),
        depth: 0,
    };
    let (mut line, mut t) = p.lx.next()?;
    if t.as_ref().is_some_and(|t| is_kw(t, "strict")) {
        p.strict = Some(HashMap::new());
        (line, t) = p.lx.next()?;
    }
    p.directed = match &t {
        Some(k) if is_kw(k, "graph") => false,
        Some(k) if is_kw(k, "digraph") => true,
        other => {
            return Err(p.err(
                line,
                format!(
                    "expected `graph` or `digraph`, found {}",
                    describe(other.as_ref())
                ),
            ));
        }
    };
    if matches!(p.lx.peek()?, Some(Tok::Id(..))) {
        p.lx.next()?;
    }
    let (bl, b) = p.lx.next()?;
    if b != Some(Tok::LBrace) {
        return Err(p.err(
            bl,
            format!(
                "expected `{{` to open the graph, found {}",
                describe(b.as_ref())
            ),
        ));
    }
    p.stmt_list()?;
    let (el, e) = p.lx.next()?;
    if e.is_some() {
        return Err(p.err(
            el,
            format!(
                "expected end of file after the graph's `}}`, found {}",
                describe(e.as_ref())
            ),
        ));
    }

    // Ids: a numeric name is its own id; the other names take the ids after
    // the largest numeric one, in order of first appearance. So node `3` is
    // process 3 whether or not the file also has named nodes.
    let as_int = |s: &str| -> Option<u64> {
        let b = s.as_bytes();
        if b.is_empty() || (b.len() > 1 && b[0] == b'0') || !b.iter().all(u8::is_ascii_digit) {
            return None;
        }
        text::parse_u64(b)
    };
    let ints: Vec<Option<u64>> = p.names.iter().map(|s| as_int(s)).collect();
    let numeric_n = ints
        .iter()
        .flatten()
        .max()
        .map_or(0, |&m| m.saturating_add(1));
    let named = ints.iter().filter(|x| x.is_none()).count() as u64;
    let n = text::check_processes(path, el, numeric_n.saturating_add(named), bytes.len())?;
    let mut next = numeric_n;
    let ids: Vec<u32> = ints
        .iter()
        .map(|x| match x {
            Some(v) => *v as u32,
            None => {
                next += 1;
                (next - 1) as u32
            }
        })
        .collect();
    let mut b = GraphBuilder::with_capacity(n, p.directed, p.edges.len());
    for &(u, v, w) in &p.edges {
        b.add(ids[u as usize] as usize, ids[v as usize] as usize, w);
    }
    let g = b.build()?;
    // Coordinates when every process has a pos.
    let mut xyz: Vec<Option<[f64; 3]>> = vec![None; n];
    let mut dim = 2;
    for (k, pos) in p.pos.iter().enumerate() {
        if let Some((pt, d)) = pos {
            xyz[ids[k] as usize] = Some(*pt);
            dim = dim.max(*d);
        }
    }
    let coords: Option<Vec<[f64; 3]>> = xyz.into_iter().collect();
    match coords {
        Some(c) if n > 0 => g.with_coords(Some(Coords::new(dim, c))),
        _ => Ok(g),
    }
}

/// Write `graph` as DOT.
pub fn write(w: &mut (impl Write + ?Sized), graph: &CommGraph) -> std::io::Result<()> {
    let (kw, op) = if graph.is_directed() {
        ("digraph", "->")
    } else {
        ("graph", "--")
    };
    writeln!(
        w,
        "// hopmap communication graph: {} processes; weight = bytes",
        graph.n()
    )?;
    writeln!(w, "{kw} hopmap {{")?;
    let coords = graph.coords().filter(|c| c.xyz.len() == graph.n());
    for u in 0..graph.n() {
        match coords {
            Some(c) => {
                let p = c.xyz[u];
                if c.dim == 3 {
                    writeln!(
                        w,
                        "  {u} [pos=\"{},{},{}\"];",
                        Num(p[0]),
                        Num(p[1]),
                        Num(p[2])
                    )?;
                } else {
                    writeln!(w, "  {u} [pos=\"{},{}\"];", Num(p[0]), Num(p[1]))?;
                }
            }
            None if graph.degree(u) == 0 => writeln!(w, "  {u};")?,
            None => {}
        }
    }
    if graph.is_directed() {
        for (u, v, s) in graph.messages() {
            writeln!(w, "  {u} {op} {v} [weight={}];", Num(s))?;
        }
    } else {
        for (u, v, c) in graph.pairs() {
            writeln!(w, "  {u} {op} {v} [weight={}];", Num(c))?;
        }
    }
    writeln!(w, "}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("g.dot")
    }

    #[test]
    fn names_chains_and_weights() {
        let s = br#"/* c */ graph G {
            // names numbered by first appearance
            a -- b -- c [weight=3];
            "b" -- d [bytes=10, weight=2]
            # preprocessor-style comment
            edge [weight=5];
            d -- a
            subgraph s { c -- "a" }
        }"#;
        let g = parse(s, p()).unwrap();
        assert!(!g.is_directed());
        assert_eq!(g.n(), 4);
        assert_eq!(g.volume(0, 1), 3.0);
        assert_eq!(g.volume(1, 2), 3.0);
        assert_eq!(g.volume(1, 3), 10.0);
        assert_eq!(g.volume(3, 0), 5.0);
        assert_eq!(g.volume(2, 0), 5.0);
        assert!(g.coords().is_none());
    }

    #[test]
    fn strict_graphs_merge_repeated_edges_and_others_add_them() {
        // Without `strict` the two statements of a -- b add up (3 + 4), and
        // b -- a is the same undirected pair.
        let plain = parse(
            b"graph { a -- b [weight=3]; a -- b [weight=4]; b -- a }",
            p(),
        )
        .unwrap();
        assert_eq!(plain.volume(0, 1), 8.0);
        // `strict graph`: one edge; the later weight replaces the earlier,
        // and a repeat without a weight (even the other way round) keeps it.
        let s = b"strict graph { a -- b [weight=3]; a -- b [weight=4]; b -- a; b -- c }";
        let g = parse(s, p()).unwrap();
        assert_eq!(g.volume(0, 1), 4.0);
        assert_eq!(g.volume(1, 2), 1.0);
        // `strict digraph`: a -> b and b -> a are two edges; a scope
        // default applies to new edges only.
        let s = b"strict digraph { a -> b [weight=3]; b -> a [weight=2]; edge [weight=9]; a -> b; c -> a }";
        let g = parse(s, p()).unwrap();
        assert_eq!(g.sent_between(0, 1), 3.0);
        assert_eq!(g.sent_between(1, 0), 2.0);
        assert_eq!(g.sent_between(2, 0), 9.0);
    }

    #[test]
    fn integer_ids_digraph_and_pos() {
        let s = b"strict digraph { 2 [pos=\"1,2!\"]; 0 [pos=\"0,0\"]; 1 [pos=\"3.5,4\"]; 2 -> 0 -> 1; 1 -> 2 [weight=7] }";
        let g = parse(s, p()).unwrap();
        assert!(g.is_directed());
        assert_eq!(g.n(), 3);
        assert_eq!(g.sent_between(2, 0), 1.0);
        assert_eq!(g.sent_between(0, 2), 0.0);
        assert_eq!(g.sent_between(1, 2), 7.0);
        let c = g.coords().unwrap();
        assert_eq!(c.dim, 2);
        assert_eq!(c.xyz[2], [1.0, 2.0, 0.0]);
        assert_eq!(c.xyz[1], [3.5, 4.0, 0.0]);
        // Gaps in integer ids: processes without edges, no coords.
        let g = parse(b"graph { 0 -- 5 }", p()).unwrap();
        assert_eq!(g.n(), 6);
        // Numeric names keep their ids beside named nodes, which come after.
        let g = parse(b"graph { 2 -- b [weight=3]; a -- 0 [weight=1e2] }", p()).unwrap();
        assert_eq!(g.n(), 5);
        assert_eq!(g.volume(2, 3), 3.0);
        assert_eq!(g.volume(4, 0), 100.0);
    }

    #[test]
    fn errors_name_path_and_line() {
        let e = |s: &[u8]| parse(s, p()).unwrap_err().to_string();
        assert_eq!(
            e(b"graph {\n a -> b\n}"),
            "g.dot:2: expected `--` in a graph, found `->`"
        );
        assert_eq!(
            e(b"digraph {\n a -- b\n}"),
            "g.dot:2: expected `->` in a digraph, found `--`"
        );
        assert_eq!(
            e(b"graph {\n a -- b [weight=x]\n}"),
            "g.dot:2: expected weight to be a non-negative number of bytes, found `x`"
        );
        // The end of file is on the last line (2), not past it.
        assert_eq!(
            e(b"graph {\n a -- b\n"),
            "g.dot:2: expected `}`, found end of file"
        );
        assert_eq!(
            e(b"graph {\n a -- b [weight=1e400]\n}"),
            "g.dot:2: expected weight to be a non-negative number of bytes, found `1e400`"
        );
        assert_eq!(
            e(b"graph {\n a -- b [weight=12abc]\n}"),
            "g.dot:2: expected a name or a number, found `12abc`"
        );
        assert_eq!(
            e(b"foo {}"),
            "g.dot:1: expected `graph` or `digraph`, found `foo`"
        );
        assert_eq!(
            e(b"graph {\n\n \"abc\n}"),
            "g.dot:3: expected `\"` to close this string, found end of file"
        );
        assert_eq!(
            e(b"graph {\n a -- {b c}\n}"),
            "g.dot:2: expected a node name after the edge operator (edges to subgraphs are not supported), found `{`"
        );
        assert_eq!(
            e(b"graph { a [pos=\"1\"] }"),
            "g.dot:1: expected pos=\"x,y[,z]\", found `1`"
        );
        assert_eq!(
            e(b"graph { } x"),
            "g.dot:1: expected end of file after the graph's `}`, found `x`"
        );
    }

    #[test]
    fn write_read_round_trip() {
        for directed in [false, true] {
            let mut b = GraphBuilder::new(5, directed);
            b.add(0, 1, 3.5);
            b.add(1, 0, 2.0);
            b.add(3, 2, 1e-3);
            let g = b.build().unwrap();
            let c = Coords::new(2, (0..5).map(|i| [i as f64, 0.5, 0.0]).collect());
            let g = g.with_coords(Some(c.clone())).unwrap();
            let mut out = Vec::new();
            write(&mut out, &g).unwrap();
            let h = parse(&out, p()).unwrap();
            assert_eq!(h.n(), 5);
            assert_eq!(h.is_directed(), directed);
            let a: Vec<_> = g.messages().collect();
            let b: Vec<_> = h.messages().collect();
            assert_eq!(a, b);
            assert_eq!(h.coords(), Some(&c));
        }
    }
}
