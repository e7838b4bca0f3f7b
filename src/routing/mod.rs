//! Routing: which directed channels a message's bytes cross.
//!
//! * [`Routing::Dor`] — dimension-order routing (X, then Y, then Z by default;
//!   the order is configurable), the shorter way round each ring, an exact
//!   half-ring tie going in the `+` direction. This is Blue Gene's static
//!   routing (Balaji et al. §3.1).
//! * [`Routing::Adaptive`] — Balaji et al.'s first-order model of minimal
//!   adaptive routing (§3.1): at every hop the bytes are split equally over
//!   all next hops that reduce the distance to the destination. Computed
//!   exactly by pushing flow through the DAG of minimal paths.
//!
//! Both are minimal, so every byte crosses exactly `distance` channels and
//! Σ channel loads = hop-bytes.

pub mod adaptive;
pub mod dor;

use crate::error::{Error, Result};
use crate::topology::Topology;

/// A routing algorithm.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Routing {
    /// Dimension order X, then Y, then Z, … (dimension 0 first).
    #[default]
    Dor,
    /// Dimension order with an explicit order, e.g. `dor:ZYX`.
    DorOrder(Vec<usize>),
    /// Minimal adaptive, bytes split equally over productive next hops.
    Adaptive,
}

impl Routing {
    /// Parse `dor`, `dor:ZYX` (any order of X..U letters or digits) or `adaptive`.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        let lower = s.to_ascii_lowercase();
        if lower == "dor" {
            return Ok(Routing::Dor);
        }
        if lower == "adaptive" {
            return Ok(Routing::Adaptive);
        }
        if let Some(o) = lower.strip_prefix("dor:") {
            let letters = ['x', 'y', 'z', 'w', 'v', 'u'];
            let order: Option<Vec<usize>> = o
                .chars()
                .map(|c| {
                    letters
                        .iter()
                        .position(|&l| l == c)
                        .or_else(|| c.to_digit(10).map(|d| d as usize))
                })
                .collect();
            let order = order
                .filter(|v| {
                    let mut s = v.clone();
                    s.sort();
                    s.dedup();
                    s.len() == v.len() && !v.is_empty()
                })
                .ok_or_else(|| {
                    Error::spec(
                        "routing",
                        s,
                        "dor:ORDER needs distinct dimension letters such as ZYX",
                    )
                })?;
            return Ok(Routing::DorOrder(order));
        }
        Err(Error::spec(
            "routing",
            s,
            "expected dor, dor:ORDER or adaptive",
        ))
    }

    pub fn name(&self) -> String {
        match self {
            Routing::Dor => "dor".into(),
            Routing::Adaptive => "adaptive".into(),
            Routing::DorOrder(o) => {
                let letters = ['X', 'Y', 'Z', 'W', 'V', 'U'];
                format!(
                    "dor:{}",
                    o.iter()
                        .map(|&d| letters.get(d).copied().unwrap_or('?'))
                        .collect::<String>()
                )
            }
        }
    }

    /// Route `bytes` from node `src` to node `dst`, calling `sink(channel, bytes)`
    /// once for every channel the message crosses, with the bytes it puts there.
    #[inline]
    pub fn route(
        &self,
        topo: &Topology,
        src: usize,
        dst: usize,
        bytes: f64,
        sink: &mut impl FnMut(usize, f64),
    ) {
        if src == dst {
            return;
        }
        match topo {
            Topology::Grid(g) => match self {
                Routing::Dor => dor::route_grid(g, None, src, dst, bytes, sink),
                Routing::DorOrder(o) => dor::route_grid(g, Some(o), src, dst, bytes, sink),
                Routing::Adaptive => adaptive::route_grid(g, src, dst, bytes, sink),
            },
        }
    }

    /// Check that the routing fits the topology (e.g. an explicit order's dimensions exist).
    pub fn check(&self, topo: &Topology) -> Result<()> {
        if let (Routing::DorOrder(o), Topology::Grid(g)) = (self, topo)
            && (o.len() != g.ndims() || o.iter().any(|&d| d >= g.ndims()))
        {
            return Err(Error::spec(
                "routing",
                &self.name(),
                format!(
                    "the order must name each of the {} dimensions once",
                    g.ndims()
                ),
            ));
        }
        Ok(())
    }
}

impl std::fmt::Display for Routing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for Routing {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}
