//! `hopmap mappers`: list every registered mapper with its paper section;
//! `--long` adds each mapper's explanation and parameters (key, type and
//! range, default, help).

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Also print each mapper's explanation and parameters.
    #[arg(long, short = 'l')]
    pub long: bool,
    /// Print a Markdown table (id, name, paper, needs coordinates).
    #[arg(long)]
    pub markdown: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let reg = hopmap_core::mappers::registry();
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
