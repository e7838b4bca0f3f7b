//! Guided mode for Scotch (beyond the seeds: an external peer, Pellegrini's
//! Scotch): which of Scotch's programs runs. O(1).

use hopmap_core::mappers::scotch::{ScotchRun, ScotchStage};

/// The sentence on where the Scotch run is (None before the first step).
pub fn explain(r: &ScotchRun) -> Option<String> {
    let since = r.running_for();
    let s: String = match r.stage()? {
        ScotchStage::Write { written, vertices } => format!(
            "Scotch: writing the communication graph as a Scotch source graph ({written} of \
             {vertices} vertices)"
        ),
        ScotchStage::Target => {
            "Scotch: the graph is written; next, the target for the network".into()
        }
        ScotchStage::Amk => format!(
            "Scotch: amk_grf builds a decomposition of the network by recursive bipartitioning \
             ({since:.1} s)"
        ),
        ScotchStage::Gmap => format!(
            "Scotch: scotch_gmap maps the graph by dual recursive bipartitioning, splitting \
             graph and machine in halves together ({since:.1} s)"
        ),
        ScotchStage::Read => format!(
            "Scotch: mapping read back; {}",
            r.summary().unwrap_or_default()
        ),
    };
    Some(format!(
        "{s} (beyond the seeds: an external peer, Pellegrini's Scotch)"
    ))
}
