//! A test that keeps the app's modules free of import cycles: it reads the
//! crate's sources, takes every top-level module (a file or folder under
//! `src/`) as a node and every `crate::m` or (from a top-level file)
//! `super::m` path outside comments as an edge (names re-exported by
//! `lib.rs` count for the module they come from), and fails naming a
//! cycle if there is one. O(size of the sources).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The module graph: top-level module → the top-level modules it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file under `dir`, with its top-level module and whether it
/// is that module's own file (where `super::` is the crate root).
fn sources(dir: &Path, top: Option<&str>, out: &mut Vec<(String, bool, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.is_dir() {
            sources(&path, Some(top.unwrap_or(stem)), out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            match top {
                None => out.push((stem.to_string(), true, text)),
                Some(t) => out.push((t.to_string(), false, text)),
            }
        }
    }
}

/// The code of `text` without its comments (line comments and doc lines).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first names of the paths after every `prefix` in `code` (`a` of
/// `prefix a::b`, and `a`, `c` of `prefix {a, c::d}`).
fn names_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = true;
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        out.push(ident_at(&group[j..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident_at(rest).to_string());
        }
    }
    out
}

/// The module graph of the crate whose sources are in `src`.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    sources(src, None, &mut files);
    // lib.rs re-exports: name → module.
    let mut origin: BTreeMap<String, String> = BTreeMap::new();
    for (m, _, text) in &files {
        if m != "lib" {
            continue;
        }
        for line in code(text).lines() {
            if let Some(rest) = line.trim().strip_prefix("pub use ") {
                let module = ident_at(rest).to_string();
                for name in names_after(rest, &format!("{module}::")) {
                    origin.insert(name, module.clone());
                }
            }
        }
    }
    let modules: BTreeSet<String> = files
        .iter()
        .map(|f| f.0.clone())
        .filter(|m| m != "lib")
        .collect();
    let mut g = Graph::new();
    for (m, own_file, text) in files.iter().filter(|f| f.0 != "lib") {
        let code = code(text);
        let mut named = names_after(&code, "crate::");
        if *own_file {
            named.extend(names_after(&code, "super::"));
        }
        let deps = g.entry(m.clone()).or_default();
        for n in named {
            let target = origin.get(&n).cloned().unwrap_or(n);
            if modules.contains(&target) && &target != m {
                deps.insert(target);
            }
        }
    }
    g
}

/// A cycle of `g` (its modules in order), if there is one.
fn find_cycle(g: &Graph) -> Option<Vec<String>> {
    // 0 = unseen, 1 = on the current path, 2 = done.
    fn visit(
        v: &str,
        g: &Graph,
        mark: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        mark.insert(v.to_string(), 1);
        path.push(v.to_string());
        for w in g.get(v).into_iter().flatten() {
            match mark.get(w).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| p == w).unwrap_or(0);
                    let mut c = path[from..].to_vec();
                    c.push(w.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(w, g, mark, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        mark.insert(v.to_string(), 2);
        None
    }
    let mut mark = BTreeMap::new();
    for v in g.keys() {
        if mark.get(v).copied().unwrap_or(0) == 0
            && let Some(c) = visit(v, g, &mut mark, &mut Vec::new())
        {
            return Some(c);
        }
    }
    None
}

#[test]
fn names_are_read_from_paths_and_groups_outside_comments() {
    let c = code("use crate::{a, b::{c, d}, e};\n// crate::f\nlet x = super::g::h();");
    assert_eq!(names_after(&c, "crate::"), ["a", "b", "e"]);
    assert_eq!(names_after(&c, "super::"), ["g"]);
}

#[test]
fn a_cycle_is_found_and_a_chain_is_not() {
    let edge = |a: &str, b: &str| (a.to_string(), BTreeSet::from([b.to_string()]));
    let chain: Graph = [edge("a", "b"), edge("b", "c")].into_iter().collect();
    assert_eq!(find_cycle(&chain), None);
    let cyc: Graph = [edge("a", "b"), edge("b", "c"), edge("c", "a")]
        .into_iter()
        .collect();
    assert_eq!(find_cycle(&cyc).map(|c| c.len()), Some(4), "a → b → c → a");
}

#[test]
fn the_app_has_no_module_import_cycle() {
    let g = module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(g.len() > 20, "read the app's modules: {:?}", g.keys());
    assert!(g["hopmap_app"].contains("model"), "edges are read");
    if let Some(c) = find_cycle(&g) {
        panic!("module import cycle: {}", c.join(" → "));
    }
}
