//! Run several mappers on one input and compare their mappings: the engine
//! behind `hopmap compare` and the GUI's Compare panel.
//!
//! Each mapper runs through the one mapper pipeline
//! ([`crate::mappers::prepare`] … [`crate::mappers::finish`]) to the end
//! (timed: the mapper alone, not the evaluation), its mapping validated and evaluated under the chosen
//! routing; rows are sorted by hop-bytes (ties by max link load, then id),
//! the first is the best. A mapper that cannot run on the input (no
//! coordinates, wrong dimensionality, too many processes…) is left out with
//! its reason. Mappers run one after the other so that their wall times do
//! not disturb each other; the evaluation itself is parallel
//! ([`crate::metrics::evaluate`]). Cost: Σ mapper times + one evaluation each.

use crate::error::{Error, Result};
use crate::graph::CommGraph;
use crate::mappers::{self, MapperInput};
use crate::metrics::{Metrics, evaluate};
use crate::routing::Routing;
use crate::topology::Topology;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub use crate::mappers::{Selected, resolve};

/// Parse `all` or a comma-separated list of ids. Unknown ids are an error.
pub fn parse_list(s: &str) -> Result<Vec<Selected>> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(mappers::registry()
            .into_iter()
            .map(|info| Selected {
                id: info.id.to_string(),
                info,
                params: Vec::new(),
            })
            .collect());
    }
    let v: Vec<Selected> = s
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(resolve)
        .collect::<Result<_>>()?;
    if v.is_empty() {
        return Err(Error::spec(
            "mapper list",
            s,
            "expected `all` or ids separated by commas",
        ));
    }
    Ok(v)
}

/// One compared mapper. Serializes as `mapper`, `seconds` and the
/// `eval --json` keys.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Row {
    pub mapper: String,
    /// Wall time of the mapper run (not the evaluation).
    pub seconds: f64,
    #[serde(flatten)]
    pub metrics: Metrics,
    /// The mapping itself, kept so that a front end can show it at once.
    #[serde(skip)]
    pub mapping: Arc<crate::mapping::Mapping>,
}

/// A mapper left out, and why.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Skipped {
    pub mapper: String,
    pub reason: String,
}

/// The outcome: rows sorted best first, and the mappers left out.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    pub rows: Vec<Row>,
    pub skipped: Vec<Skipped>,
}

/// Compare `selected` mappers on one graph and topology.
///
/// `progress(i, total, id)` is called before mapper `i` starts. `cancel`
/// is checked between mappers and between a mapper's steps; a cancelled
/// comparison returns [`Error::Cancelled`].
pub fn compare(
    graph: Arc<CommGraph>,
    topo: Arc<Topology>,
    selected: &[Selected],
    routing: &Routing,
    seed: u64,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Comparison> {
    routing.check(&topo)?;
    let mut out = Comparison::default();
    for (i, sel) in selected.iter().enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        progress(i, selected.len(), &sel.id);
        let mut input = MapperInput::new(graph.clone(), topo.clone(), seed);
        // Parameters meant for other mappers in the list are not this one's.
        input.params = sel.info.own_params(&sel.params);
        let t0 = Instant::now();
        let res = mappers::run_cancellable(&sel.info, &input, cancel);
        let seconds = t0.elapsed().as_secs_f64();
        match res {
            Ok(m) => {
                let ev = evaluate(&graph, &topo, &m, routing);
                out.rows.push(Row {
                    mapper: sel.id.clone(),
                    seconds,
                    metrics: ev.metrics,
                    mapping: Arc::new(m),
                });
            }
            Err(Error::Cancelled) => return Err(Error::Cancelled),
            Err(e) => out.skipped.push(Skipped {
                mapper: sel.id.clone(),
                reason: e.to_string(),
            }),
        }
    }
    out.rows.sort_by(|a, b| {
        a.metrics
            .hop_bytes
            .total_cmp(&b.metrics.hop_bytes)
            .then(a.metrics.max_link_load.total_cmp(&b.metrics.max_link_load))
            .then_with(|| a.mapper.cmp(&b.mapper))
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;

    fn ring(n: usize) -> Arc<CommGraph> {
        let mut b = GraphBuilder::new(n, false);
        for i in 0..n {
            b.add(i, (i + 1) % n, 2.0);
        }
        Arc::new(b.build().unwrap())
    }

    #[test]
    fn resolves_ids_and_orders() {
        assert_eq!(resolve("DEFAULT").unwrap().id, "default");
        let s = resolve("tzxy").unwrap();
        assert_eq!((s.id.as_str(), s.info.id), ("tzxy", "tzxy"));
        let s = resolve("TZXY").unwrap();
        assert_eq!((s.id.as_str(), s.info.id), ("TZXY", "perm"));
        let s = resolve("YXT").unwrap();
        assert_eq!((s.id.as_str(), s.info.id), ("YXT", "perm"));
        assert_eq!(s.params, vec![("order".to_string(), "YXT".to_string())]);
        let e = resolve("nosuch").unwrap_err().to_string();
        assert!(e.contains("unknown mapper") && e.contains("default"), "{e}");
        assert!(parse_list("default,nosuch").is_err());
        assert!(parse_list(" , ").is_err());
        assert_eq!(parse_list("all").unwrap().len(), mappers::registry().len());
    }

    #[test]
    fn sorts_by_hop_bytes_and_skips_with_reasons() {
        // A 16-ring (volume 2 per pair) on a 4x4 torus.
        let g = ring(16);
        let t = Arc::new(Topology::parse("torus:4x4").unwrap());
        let sel = parse_list("random,default,XYZT,YX").unwrap();
        let cancel = AtomicBool::new(false);
        let mut calls = Vec::new();
        let c = compare(g, t, &sel, &Routing::Dor, 7, &cancel, &mut |i, n, id| {
            calls.push((i, n, id.to_string()))
        })
        .unwrap();
        assert_eq!(calls.len(), 4);
        assert_eq!(c.skipped.len(), 1);
        assert_eq!(c.skipped[0].mapper, "XYZT");
        assert!(c.skipped[0].reason.contains("Z"), "{}", c.skipped[0].reason);
        assert_eq!(c.rows.len(), 3);
        for w in c.rows.windows(2) {
            assert!(w[0].metrics.hop_bytes <= w[1].metrics.hop_bytes);
        }
        // default: rank i on node i. 12 ring edges inside a row are 1 hop;
        // 3→4, 7→8, 11→12 go (3,y) → (0,y+1), 2 hops with the X wrap, and
        // 15→0 is (3,3) → (0,0), 2 hops: 20 hops × volume 2 = 40.
        let d = c.rows.iter().find(|r| r.mapper == "default").unwrap();
        assert_eq!(d.metrics.hop_bytes, 40.0);
        let json = serde_json::to_value(&c.rows[0]).unwrap();
        for k in [
            "mapper",
            "seconds",
            "hop_bytes",
            "max_link_flows",
            "routing",
        ] {
            assert!(json.get(k).is_some(), "{k}");
        }
    }

    #[test]
    fn cancel_stops() {
        let cancel = AtomicBool::new(true);
        let sel = parse_list("default").unwrap();
        let t = Arc::new(Topology::parse("mesh:4").unwrap());
        let r = compare(
            ring(4),
            t,
            &sel,
            &Routing::Dor,
            0,
            &cancel,
            &mut |_, _, _| {},
        );
        assert!(matches!(r, Err(Error::Cancelled)));
    }
}
