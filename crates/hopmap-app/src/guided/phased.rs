//! Guided mode for phased runs: the layout's iterations (Bobrik & Popova
//! §4–5), then the current stage's sentence, else the one of the step that
//! finished the last stage. O(1) plus the stage's own sentence.

use hopmap_core::mappers::phased::{FinishedStage, LayoutStep, Phased};

/// The sentence on the last step of a phased run.
pub fn explain(r: &Phased) -> Option<String> {
    if let Some(l) = r.layout_step() {
        return Some(explain_layout(&l));
    }
    r.run()
        .and_then(|s| super::explain_last_step(s.inspect()))
        .or_else(|| match r.finished_stage()? {
            FinishedStage::Layout(l) => Some(format!(
                "{}; the layout is done and its coordinates go to the mapper",
                explain_layout(&l)
            )),
            FinishedStage::Run(run) => super::explain_last_step(run),
        })
}

/// The sentence for the layout's last iteration — the total force Σ|F| and
/// the §5 stopping-rule value against its threshold ε.
pub fn explain_layout(l: &LayoutStep) -> String {
    let (level, levels) = l.level;
    let at = if levels > 1 {
        format!(" (level {} of {levels}, 1 = the processes)", level + 1)
    } else {
        String::new()
    };
    let eps = l.stop_eps;
    let rule = match l.stop_value {
        Some(v) => {
            format!("stopping-rule value {v:.4} (the layout stops once it is below ε = {eps})")
        }
        None => "the stopping rule's moving averages are still filling".to_string(),
    };
    format!(
        "layout iteration {}{at}: Σ|F| = {:.4}; {rule} (Bobrik & Popova §4: pairs attract by \
         their bytes, all repel; §5: the stopping rule on moving averages of the positions)",
        l.iterations, l.force_norm
    )
}
