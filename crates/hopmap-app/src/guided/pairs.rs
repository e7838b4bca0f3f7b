//! Guided mode for PAIRS (Bhatele & Kale §VII-B; Bokhari's pairwise
//! exchange): the exchanges of the last batch and the change in hop-bytes.
//! O(1).

use hopmap_core::mappers::StepEvent;
use hopmap_core::mappers::pairs::Pairs;

/// The sentence on the last batch (None before the first).
pub fn explain(r: &Pairs) -> Option<String> {
    let Some(StepEvent::Swaps { swapped, hop_bytes }) = r.last_event() else {
        return None;
    };
    let trace = r.hop_bytes_trace();
    let before = match trace.len() {
        0 | 1 => *hop_bytes,
        k => trace[k - 2],
    };
    Some(explain_swaps(swapped, before, *hop_bytes, r.batch()))
}

/// Guided mode: the sentence for one PAIRS batch that kept `swapped`
/// (`(p, p)` is a move into a free core) and took hop-bytes from `before`
/// to `after`.
pub fn explain_swaps(swapped: &[(usize, usize)], before: f64, after: f64, batch: usize) -> String {
    const CITE: &str = "(Bhatele & Kale §VII-B; Bokhari's pairwise exchange)";
    let Some(&(p, q)) = swapped.first() else {
        return format!(
            "PAIRS tried {batch} processes and found no exchange that lowers hop-bytes \
             ({after}) {CITE}"
        );
    };
    let what = if p == q {
        format!("PAIRS moved {p} to a free core")
    } else {
        format!("PAIRS swapped {p} and {q}")
    };
    let more = match swapped.len() - 1 {
        0 => String::new(),
        1 => " and kept 1 more exchange".to_string(),
        k => format!(" and kept {k} more exchanges"),
    };
    let change = if before > 0.0 {
        let pct = (after - before) / before * 100.0;
        let sign = if pct < 0.0 { '\u{2212}' } else { '+' };
        format!("{sign}{:.1}%", pct.abs())
    } else {
        "±0%".to_string()
    };
    format!("{what}{more}: hop-bytes {change} (from {before} to {after}) {CITE}")
}
