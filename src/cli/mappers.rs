//! `hopmap mappers`: list every registered mapper with its paper section;
//! `--long` adds each mapper's explanation and parameters (key, type and
//! range, default, help). `--markdown` prints a Markdown table of the
//! registry (the first sentence of each idea); `--long --markdown` prints
//! the whole of it, which is `docs/mappers.md`'s generated part (a test
//! fails when the two disagree).

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Also print each mapper's explanation and parameters.
    #[arg(long, short = 'l')]
    pub long: bool,
    /// Print a Markdown table (id, name, paper, idea); with --long, the
    /// whole registry (networks, notes, parameters): docs/mappers.md's table.
    #[arg(long)]
    pub markdown: bool,
}

/// One line of Markdown table text: whitespace collapsed, `|` escaped.
fn cell(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// `hopmap mappers --long --markdown`: every registry entry with its whole
/// idea, the networks it runs on and its notes, then each mapper's
/// parameters.
fn long_markdown(reg: &[hopmap_core::mappers::MapperInfo]) -> anyhow::Result<()> {
    use hopmap_core::mappers::Networks;
    crate::outln!("| id | mapper | paper | runs on | notes | idea |");
    crate::outln!("|---|---|---|---|---|---|");
    for m in reg {
        let networks = match m.networks {
            Networks::Grids => "meshes, tori",
            Networks::Any => "meshes, tori, switch fabrics",
        };
        let mut notes = Vec::new();
        if m.needs_coords {
            notes.push("needs coordinates");
        }
        if m.randomized {
            notes.push("seeded");
        }
        if m.per_node_state {
            notes.push("state per node");
        }
        if m.external.is_some() {
            notes.push("external program");
        }
        crate::outln!(
            "| `{}` | {} | {} | {networks} | {} | {} |",
            m.id,
            cell(m.name),
            cell(m.paper),
            notes.join(", "),
            cell(m.doc)
        );
    }
    let (with, without): (Vec<_>, Vec<_>) = reg.iter().partition(|m| !m.params.is_empty());
    crate::outln!();
    crate::outln!("### Parameters");
    crate::outln!();
    let none: Vec<String> = without.iter().map(|m| format!("`{}`", m.id)).collect();
    crate::outln!("Without parameters: {}.", none.join(", "));
    for m in with {
        crate::outln!();
        crate::outln!("#### `{}`", m.id);
        crate::outln!();
        crate::outln!("| key | type | default | meaning |");
        crate::outln!("|---|---|---|---|");
        for p in m.params {
            let default = if p.default.is_empty() {
                "(empty)".to_string()
            } else {
                format!("`{}`", p.default)
            };
            crate::outln!(
                "| `{}` | {} | {default} | {} |",
                p.key,
                cell(&p.kind.to_string()),
                cell(p.help)
            );
        }
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let reg = hopmap_core::mappers::registry();
    if args.markdown && args.long {
        return long_markdown(&reg);
    }
    if args.markdown {
        crate::outln!("| id | mapper | paper | idea |");
        crate::outln!("|---|---|---|---|");
        for m in &reg {
            let first = m
                .doc
                .split(". ")
                .next()
                .unwrap_or(m.doc)
                .trim_end_matches('.');
            let first: String = first.split_whitespace().collect::<Vec<_>>().join(" ");
            crate::outln!("| `{}` | {} | {} | {}. |", m.id, m.name, m.paper, first);
        }
        return Ok(());
    }
    for m in &reg {
        let mut tags = Vec::new();
        if m.needs_coords {
            tags.push("needs coordinates");
        }
        if m.randomized {
            tags.push("seeded");
        }
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", tags.join(", "))
        };
        crate::outln!("{:<16} {} — {}{}", m.id, m.name, m.paper, tags);
        if args.long {
            let doc: String = m.doc.split_whitespace().collect::<Vec<_>>().join(" ");
            crate::outln!("{:<16} {}", "", doc);
            if m.params.is_empty() {
                crate::outln!("{:<16} params: none", "");
            } else {
                crate::outln!("{:<16} params (--param KEY=VALUE):", "");
            }
            for p in m.params {
                let default = if p.default.is_empty() {
                    "(empty)".to_string()
                } else {
                    p.default.to_string()
                };
                let help: String = p.help.split_whitespace().collect::<Vec<_>>().join(" ");
                crate::outln!(
                    "{:<18} {}: {}, default {default}. {help}",
                    "",
                    p.key,
                    p.kind
                );
            }
            crate::outln!();
        }
    }
    Ok(())
}
