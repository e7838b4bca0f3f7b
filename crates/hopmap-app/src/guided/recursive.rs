//! Guided mode for `recursive` and `recursive+refine` (beyond the seeds:
//! Pellegrini's dual recursive bipartitioning, the method of Scotch's gmap;
//! VieM's N_C^d swap local search, Schulz & Träff): each bisection with its
//! cut, each refinement batch with its change in hop-bytes, the bottleneck
//! phase with its channel loads, the tabu phase with the best hop-bytes it
//! has found, the block phase with its exchanges of subtrees. O(1) per
//! sentence.

use hopmap_core::mappers::recursive::drb::DrbStep;
use hopmap_core::mappers::recursive::{LastStep, Recursive};

/// The sentence on the last bisection or refinement batch, with its cut or
/// its change in hop-bytes (None before the first step).
pub fn explain(r: &Recursive) -> Option<String> {
    const CITE_REFINE: &str = "(beyond the seeds: VieM's N_C^d swap local search, Schulz & \
                               Träff)";
    let (run, last) = r.last_step()?;
    let who = if r.refine_batch().is_some() {
        "recursive+refine"
    } else {
        "recursive"
    };
    // Runs 0..visible are stepped here; the others run in the background.
    let runs = r.runs().1;
    let of_runs = if let Some((k, n)) = r.polishing_alternative() {
        format!(
            ", on another of the {runs} runs within 0.5 % of the best one's hop-bytes ({k} of \
             {n}; kept if it pays for its hop-bytes with less max link load)"
        )
    } else {
        match (r.visible_runs(), runs - r.visible_runs()) {
            _ if r.polishing() => format!(", on the best of the {runs} runs"),
            (1, 0) => String::new(),
            (v, 0) => format!(", run {} of {v}", run + 1),
            (v, b) => format!(
                ", run {} of {v} stepped here ({b} more in the background)",
                run + 1
            ),
        }
    };
    Some(match last {
        LastStep::Refine {
            swaps,
            moves,
            before,
            after,
            stopped,
            load,
            tabu,
            blocks,
            kicks,
        } => {
            let change = if *before > 0.0 {
                let pct = (after - before) / before * 100.0;
                let sign = if pct < 0.0 { '\u{2212}' } else { '+' };
                format!("{sign}{:.1}%", pct.abs())
            } else {
                "±0%".to_string()
            };
            let batch = r.refine_batch().unwrap_or(0);
            let end = if *stopped {
                "; the refinement stops here"
            } else {
                ""
            };
            const CITE_LOAD: &str = "(beyond the seeds and VieM: a bottleneck phase on \
                                     channel loads under dimension-order routing, as \
                                     seeds 002 and 003 measure contention)";
            if let Some((done, total, best)) = tabu {
                const CITE_TABU: &str = "(beyond the seeds: Taillard's robust tabu search for \
                                         the quadratic assignment problem, 1991)";
                let kept = if *stopped || after != before {
                    format!("; hop-bytes {change} (from {before} to {after})")
                } else {
                    String::new()
                };
                return Some(format!(
                    "{who} ran tabu-search iterations {done} of {total}{of_runs}, each the best \
                     swap of two processes on different nodes that is not tabu: best hop-bytes \
                     found {best} (the refinement's mapping: {before}){kept}{end} {CITE_TABU}"
                ));
            }
            if let Some(kept) = kicks {
                const CITE_KICKS: &str = "(beyond the seeds: iterated local search, Lourenço, \
                                          Martin & Stützle, 2003)";
                return Some(format!(
                    "{who} kicked the mapping{of_runs}: each kick makes a few random exchanges \
                     among a process and its partners, then a local descent from them, and is \
                     undone unless hop-bytes fell ({kept} kept so far): hop-bytes {change} (from \
                     {before} to {after}){end} {CITE_KICKS}"
                ));
            }
            if let Some(made) = blocks {
                const CITE_BLOCKS: &str = "(beyond the seeds: exchanges of whole subtrees of \
                                           the machine, the levels SharedMap's hierarchical \
                                           multisection maps top-down, Schulz & Woydt)";
                return Some(if after < before {
                    format!(
                        "{who} exchanged the whole contents of two subtrees of the network \
                         (hosts, leaf switches or pods){of_runs}, the exchange that lowers \
                         hop-bytes most ({made} so far): hop-bytes {change} (from {before} to \
                         {after}){end} {CITE_BLOCKS}"
                    )
                } else {
                    format!(
                        "{who} found no exchange of two subtrees' contents (hosts, leaf \
                         switches or pods) that lowers hop-bytes{of_runs} after {made}{end} \
                         {CITE_BLOCKS}"
                    )
                });
            }
            match load {
                Some((_, _, true)) => {
                    return Some(format!(
                        "{who} routed messages under dimension-order routing to find the \
                         busiest channel{of_runs}: the bottleneck phase starts{end} \
                         {CITE_LOAD}"
                    ));
                }
                Some((start, now, false)) => {
                    return Some(format!(
                        "{who} relieved the busiest channel{of_runs}: it kept {swaps} \
                         swap{} and {moves} move{} around it, each lowering that channel's \
                         load without raising another to the largest load: largest \
                         channel load {now} (from {start} when the phase began), hop-bytes \
                         {change} (from {before} to {after}){end} {CITE_LOAD}",
                        if *swaps == 1 { "" } else { "s" },
                        if *moves == 1 { "" } else { "s" },
                    ));
                }
                None => {}
            }
            format!(
                "{who} refined a batch of up to {batch} processes{of_runs}: it kept {swaps} \
                 swap{} and {moves} move{} to free cores, each the best exchange with a \
                 process on a partner's node: hop-bytes {change} (from {before} to \
                 {after}){end} {CITE_REFINE}",
                if *swaps == 1 { "" } else { "s" },
                if *moves == 1 { "" } else { "s" },
            )
        }
        LastStep::Construct(step, built) => {
            construct(r, step.as_ref(), *built, who, &of_runs, runs)
        }
    })
}

/// The sentence on a construction step: the bisection, packing or last
/// leaves it did (`step`), and when it finished the construction, the
/// hop-bytes built and whether the refinement starts (`built`).
fn construct(
    r: &Recursive,
    step: Option<&DrbStep>,
    built: Option<(f64, bool)>,
    who: &str,
    of_runs: &str,
    runs: usize,
) -> String {
    const CITE: &str = "(beyond the seeds: Pellegrini's dual recursive bipartitioning, the \
                        method of Scotch's gmap)";
    let then = match built {
        Some((hb, true)) => {
            format!("; the construction is done (hop-bytes {hb}) and the refinement starts")
        }
        Some((hb, false)) if r.is_done() && runs > 1 => format!(
            "; the construction is done (hop-bytes {hb}), and the best of the {} \
             runs is kept",
            runs
        ),
        Some((hb, false)) => format!("; the construction is done (hop-bytes {hb})"),
        None => String::new(),
    };
    match step {
        Some(DrbStep::Cut {
            level,
            processes,
            nodes,
            cut_bytes,
            halves,
            leaves,
            ..
        }) => {
            let leaves = match leaves {
                0 => String::new(),
                k => format!(" ({k} one-node parts were filled on the way)"),
            };
            format!(
                "{who} bisected a part of {processes} processes on {nodes} nodes \
                 (level {level}{of_runs}): the node domain splits into {} ({} nodes) \
                 and {} ({} nodes), the processes into {} and {} that fit them, \
                 cutting {cut_bytes} bytes between the halves (multilevel min-cut, \
                 Fiduccia–Mattheyses; processes are pulled towards partners already \
                 placed){leaves} {CITE}",
                halves[0].2, halves[0].1, halves[1].2, halves[1].1, halves[0].0, halves[1].0
            )
        }
        Some(DrbStep::Shrink { processes, nodes }) => format!(
            "{who} packed the {processes} processes into the first half of the \
             domain ({nodes} nodes), which holds them all, so a small job sits \
             compactly{of_runs} {CITE}"
        ),
        Some(DrbStep::Finished { mirrored, gain, .. }) if *mirrored > 0 => {
            format!(
                "{who} filled the last one-node parts{of_runs}: every process has a \
             core. Then it mirrored {mirrored} boxes of the tree where that \
             shortened the traffic leaving them ({:.3e} fewer hop-bytes; beyond \
             Scotch){then} {CITE}",
                -gain
            )
        }
        Some(DrbStep::Finished { .. }) | None => format!(
            "{who} filled the last one-node parts{of_runs}: every process has a \
             core{then} {CITE}"
        ),
    }
}
