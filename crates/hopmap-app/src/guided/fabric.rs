//! Guided mode for the switch-fabric mappers of Moh et al.: SM (§4.1, the
//! buddy system generalised by recursive bisection) and BM (§4.2, Binary
//! Mapping). O(1) per sentence.

use hopmap_core::mappers::bm::Bm;
use hopmap_core::mappers::recursive::drb::DrbStep;
use hopmap_core::mappers::sm::{Sm, SmStep};

/// SM: the bisection level or the switch the last step filled.
pub fn explain_sm(r: &Sm) -> Option<String> {
    Some(match r.last_step()? {
        SmStep::Level { halved } => format!(
            "SM halved {halved} buddy block{} of the communication graph (bisection level \
             {}: a multilevel min-cut bisection of each block into halves of the block's \
             size) (Moh et al. §4.1, the buddy system generalised by recursive bisection)",
            if halved == 1 { "" } else { "s" },
            r.levels_done()
        ),
        SmStep::Switch { s, taken, lo, hi } => format!(
            "SM filled switch {s} ({} hosts, the largest switch not yet filled) with {taken} \
             processes of a buddy block of {} (the smallest block that still holds enough \
             unmapped processes); {} processes left (Moh et al. §4.1)",
            r.fabric().hosts_on(s).len(),
            hi - lo,
            r.unmapped()
        ),
    })
}

/// BM: the process cut and the network cut of the last step.
pub fn explain_bm(r: &Bm) -> Option<String> {
    const CITE: &str = "(Moh et al. §4.2, Binary Mapping)";
    Some(match r.drb().last_step()? {
        DrbStep::Cut {
            level,
            processes,
            nodes,
            cut_bytes,
            halves,
            network_cost,
            leaves,
        } => {
            let net = match network_cost {
                Some(c) => format!(
                    "the network cut (steps 2–3: whole switches, largest first, then \
                 Kernighan–Lin for the largest cost) has cost {c}, the sum of the up*/down* \
                     switch distances of the processor pairs it separates"
                ),
                None => "the network cut".to_string(),
            };
            let leaves = match leaves {
                0 => String::new(),
                k => format!("; {k} one-processor parts were mapped on the way"),
            };
            format!(
                "BM bisected a part of {processes} processes on {nodes} processors (level \
                 {level}): the process cut (step 1, least communication) leaves {cut_bytes} \
                 bytes between Q₀ ({} processes) and Q₁ ({}); {net}: R₀ has {} and R₁ {} \
                 processors, so the cheap process cut falls on the expensive network cut \
                 (step 4: Q₀ onto R₀, Q₁ onto R₁){leaves} {CITE}",
                halves[0].0, halves[1].0, halves[0].1, halves[1].1
            )
        }
        DrbStep::Shrink { processes, nodes } => format!(
            "BM packed the {processes} processes into the first half of the processors \
                 ({nodes}), which holds them all (beyond the paper, which assumes as many \
                 processes as processors) {CITE}"
        ),
        DrbStep::Finished { leaves, .. } => format!(
            "BM mapped the last {leaves} one-processor parts: every process has its \
                 processor {CITE}"
        ),
    })
}
