//! Which mappers run on the current network, and why not: the mapper list
//! shows a mapper that cannot run as a disabled entry whose tooltip is the
//! mapper's own refusal.
//!
//! A mapper is asked, not guessed about: its external tool must be
//! installed ([`MapperInfo::available`]), and a mapper that the registry
//! does not list for this kind of network ([`MapperInfo::networks`]
//! on a fabric; the fabric-only ones on a mesh/torus) is started on a
//! two-process probe graph (with coordinates) on the current network; its
//! `Unsupported` error, if any, is the reason. Starting is cheap by the
//! stepping rules (heavy work happens in steps), and the probe runs once
//! per network: O(mappers · start) per topology change, nothing per frame.

use hopmap_core::error::Error;
use hopmap_core::graph::{CommGraph, Coords, GraphBuilder};
use hopmap_core::mappers::{self, MapperInfo, MapperInput, Networks};
use hopmap_core::topology::Topology;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why each mapper that cannot run on a network cannot, by mapper id.
#[derive(Default)]
pub struct MapperFit {
    key: Option<u64>,
    reasons: BTreeMap<String, String>,
}

/// A two-process graph with 2D coordinates (so that coordinate mappers
/// answer about the network, not about missing coordinates).
fn probe_graph() -> Option<CommGraph> {
    let mut b = GraphBuilder::new(2, false);
    b.add(0, 1, 1.0);
    b.build()
        .ok()?
        .with_coords(Some(Coords::new(2, vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])))
        .ok()
}

/// Why `info` cannot run on `topo` (None: it can).
pub fn reason(info: &MapperInfo, topo: &Arc<Topology>) -> Option<String> {
    if let Err(e) = info.available() {
        return Some(e);
    }
    let listed = info.networks == Networks::Any;
    let fabric = topo.as_fabric().is_some();
    // An external peer runs on both kinds; its start may touch files.
    let suspect = if fabric {
        !listed
    } else {
        listed && info.external.is_none()
    };
    if !suspect {
        return None;
    }
    let g = Arc::new(probe_graph()?);
    let input = MapperInput::new(g, topo.clone(), 0);
    // Through the one pipeline, so its own checks (schema, fit, network
    // size, coordinates) give their reasons too.
    match mappers::prepare(info, &input) {
        Err(Error::Unsupported(m)) => Some(m),
        _ => None,
    }
}

impl MapperFit {
    /// Bring the reasons up to date for network generation `topo_gen`.
    pub fn update(&mut self, topo_gen: u64, topo: &Arc<Topology>) {
        if self.key == Some(topo_gen) {
            return;
        }
        self.key = Some(topo_gen);
        self.reasons.clear();
        for info in mappers::registry() {
            if let Some(r) = reason(&info, topo) {
                self.reasons.insert(info.id.to_string(), r);
            }
        }
    }

    /// Why mapper `id` cannot run on the current network.
    pub fn why(&self, id: &str) -> Option<&str> {
        self.reasons.get(id).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_mappers_refuse_a_fabric_and_fabric_mappers_refuse_a_torus() {
        let fab = Arc::new(Topology::parse("fabric:moh-fig2").unwrap());
        let torus = Arc::new(Topology::parse("torus:4x4").unwrap());
        let mut fit = MapperFit::default();
        fit.update(1, &fab);
        // A coordinate mapper says why it does not apply.
        let why = fit.why("affn").expect("affn runs on a fabric?");
        assert!(why.contains("mesh or torus"), "{why}");
        assert!(fit.why("sm").is_none());
        assert!(fit.why("mht").is_none());
        fit.update(2, &torus);
        assert!(fit.why("sm").unwrap().contains("switch fabric"));
        assert!(fit.why("affn").is_none());
        assert!(fit.why("default").is_none());
    }
}
