//! Guided mode for `grid` (recognise a process grid, then tile and fold it:
//! Bhatele & Kale §V; Rubik, SC'12): the plans scored, the plan chosen, the
//! refinement; the fallback mapper's own sentence when no grid was
//! recognised, and the rival's, prefixed, while it runs. O(1) plus the
//! fallback's or rival's sentence.

use hopmap_core::mappers::grid_embed::{GridEmbed, GridStep};

/// The sentence on the last step of `grid` (None before the first).
pub fn explain(r: &GridEmbed) -> Option<String> {
    let what = match r.last_step()? {
        GridStep::Scoring { scored, plans } => format!(
            "grid scored {scored} of {plans} embedding plans (axis permutations, reflections, \
             node blocks, folds)"
        ),
        GridStep::Chosen => "grid chose, of the embeddings within the load budget of the least \
                             hop-bytes, the one of least max link load"
            .to_string(),
        GridStep::Refining { hop_bytes } => {
            format!("grid's swap refinement: hop-bytes now {hop_bytes:.6e}")
        }
        GridStep::Fallback(run) => return super::explain_last_step(run),
        GridStep::Rival(run) => {
            let theirs = super::explain_last_step(run).unwrap_or_default();
            format!(
                "grid's mapping is made; recursive+refine runs as its rival (the least max link \
                 load within the load budget of the least hop-bytes is kept): {theirs}"
            )
        }
        GridStep::Recognised => String::new(),
    };
    let note = r.note();
    Some(if what.is_empty() {
        format!("grid: {note} (Bhatele & Kale §V; Rubik, SC'12)")
    } else {
        format!("{what} — {note} (Bhatele & Kale §V; Rubik, SC'12)")
    })
}
