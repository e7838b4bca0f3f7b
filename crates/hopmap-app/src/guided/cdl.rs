//! Guided mode for CDL (Balaji et al. §3): the last order's score against
//! the best so far. O(1).

use hopmap_core::mappers::cdl::CdlRun;

/// The sentence on the last order scored (None before the first).
pub fn explain(r: &CdlRun) -> Option<String> {
    let s = r.scores().last()?;
    let best = r.best()?;
    let verdict = if std::ptr::eq(s, best) {
        "the best so far".to_string()
    } else {
        format!("the best so far stays {}", best.order)
    };
    let done = if r.is_done() {
        format!(
            "; all {} orders scored, CDL picks {}",
            r.scores().len(),
            best.order
        )
    } else {
        String::new()
    };
    Some(format!(
        "CDL scored order {} under minimal adaptive routing: busiest link {} bytes with {} \
         messages, hop-bytes {}: {verdict}{done} (Balaji et al. §3: least contention, then \
         fewest messages on the busiest link, then fewest hop-bytes)",
        s.order, s.max_link_load, s.max_link_flows, s.hop_bytes
    ))
}
