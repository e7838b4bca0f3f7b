//! Guided mode for the analytical mapper of Wu et al. (§3.3 global
//! mapping, §3.4 legalization, §3.6 multicore items) and its recursive
//! bisection legalizer: the set-up, each global iteration with W(Φ) and the
//! fullest bin, each legalization step. O(1) per sentence.

use hopmap_core::mappers::analytical::{Analytical, GlobalStop, LegalizeKind, Phase};

/// The sentence on the last global iteration or legalization step, with
/// W(Φ), the fullest bin and the estimated hop-bytes (None before the first
/// step).
pub fn explain(r: &Analytical) -> Option<String> {
    if r.steps() == 0 {
        return None;
    }
    let items = r.items()?;
    let cap = r.bin_capacity();
    let (processes, cores) = r.sizes();
    let last = *r.history().phase.last()?;
    let setup = if r.global_iterations() == 1 && last == Phase::Global {
        format!(
            "setup: {} items ({} processes, {} cores per node) and the quadratic system \
             with {} corner items fixed (Wu et al. §3.3, §3.6); ",
            items.graph.n(),
            processes,
            cores,
            r.fixed_items().len()
        )
    } else {
        String::new()
    };
    let text = match (last, r.phase()) {
        (Phase::Global, Phase::Global) => format!(
            "global mapping iteration {}: solved min Σ c_ij·|Φi − Φj|² with {} corner items \
             fixed, W(Φ) = {:.4e}; the fullest bin holds {} items (capacity {cap}), so \
             shifting and spreading set the anchors of the next solve (Wu et al. §3.3)",
            r.global_iterations(),
            r.fixed_items().len(),
            r.w_phi(),
            r.max_workload()
        ),
        (Phase::Global, _) => format!(
            "global mapping iteration {}: W(Φ) = {:.4e}, fullest bin {} items (capacity \
             {cap}): {}, so legalization starts (Wu et al. §3.3, §3.4)",
            r.global_iterations(),
            r.w_phi(),
            r.max_workload(),
            match r.global_stop() {
                Some(GlobalStop::AlmostLegal) => "almost legal, every bin within capacity",
                Some(GlobalStop::Stalled) => "the fullest bin stopped shrinking",
                Some(GlobalStop::NoGain) => {
                    "the hop-bytes of its iterates stopped improving"
                }
                _ => "the iteration limit",
            }
        ),
        (_, Phase::Done) => format!(
            "legal: every node within capacity after {} legalization iterations; the items \
             are expanded to cores, hop-bytes {:.4e} (Wu et al. §3.4, §3.6)",
            r.legal_iterations(),
            r.estimated_hop_bytes()
        ),
        _ if r.settings().legalize == LegalizeKind::Bisect => format!(
            "legalization level {}: every box of nodes cut in two along its longest side, \
             its items split by Φ in proportion to the halves' slots; {} items moved into \
             their boxes (from global iteration {}); the fullest node holds {} items \
             (capacity {}), hop-bytes {:.4e} (recursive bisection, beyond Wu et al. §3.4)",
            r.legal_iterations(),
            r.migrations().len(),
            r.best_iteration(),
            r.max_workload(),
            items.cap,
            r.estimated_hop_bytes()
        ),
        _ => format!(
            "legalization iteration {}: {} surplus items migrated by diffusion on the \
             network's Laplacian, cheapest first; the fullest node holds {} items (capacity \
             {}), hop-bytes {:.4e} (Wu et al. §3.4)",
            r.legal_iterations(),
            r.migrations().len(),
            r.max_workload(),
            items.cap,
            r.estimated_hop_bytes()
        ),
    };
    Some(setup + &text)
}
