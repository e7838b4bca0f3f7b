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
//!
//! On switch fabrics ([`crate::topology::Fabric`], Moh et al. §3.1):
//!
//! * [`Routing::UpDown`] (`updn`) — up*/down*, the lexicographically smallest
//!   legal shortest route ([`fabric_route`], tables in [`updown`]);
//! * [`Routing::UpDownSplit`] (`updn-split`) — up*/down*, bytes split evenly
//!   over all legal shortest routes, exactly;
//! * [`Routing::Minimal`] / [`Routing::MinimalSplit`] (`minimal`,
//!   `minimal-split`) — plain shortest paths, for comparison (not
//!   deadlock-free);
//! * [`Routing::FatTree`] (`fattree`, `ftree`) — on a fat tree (a
//!   `fattree:` fabric, or a file that OpenSM's ftree engine recognises as
//!   one, [`crate::topology::ftree_detect`]), up/down with every top switch
//!   a root and an even split over the equal-cost up paths: the route
//!   lengths of OpenSM's `ftree` (its choice of port per destination is not
//!   modelled).
//!
//! `minimal` is also spelt `minhop`: its route lengths are those of OpenSM's
//! `minhop` engine; OpenSM picks, per destination, the least-used of the
//! shortest ports, which `minimal-split` models in aggregate.
//!
//! `dor` on a fabric means `fattree` on fat trees and `updn` elsewhere;
//! `adaptive` means `fattree` or `updn-split` ([`Routing::resolve`]); the
//! fabric routings are rejected on a mesh/torus by [`Routing::check`].
//!
//! Every routing is minimal for its own distance ([`Routing::distance`]), so
//! every byte crosses exactly that many hop-counting channels and Σ loads
//! over them = hop-bytes.

pub mod adaptive;
pub mod cache;
pub mod dor;
pub mod dor_lines;
pub mod fabric_route;
pub mod opensm_roots;
pub mod updown;

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
    /// Fabrics: up*/down*, lexicographically smallest legal shortest route.
    UpDown,
    /// Fabrics: up*/down*, even split over all legal shortest routes.
    UpDownSplit,
    /// Fabrics: plain shortest path, lexicographically smallest.
    Minimal,
    /// Fabrics: plain shortest paths, even split.
    MinimalSplit,
    /// Fat trees: up/down from every top switch, even split.
    FatTree,
}

impl Routing {
    /// Parse `dor`, `dor:ZYX` (any order of X..U letters or digits) or `adaptive`.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        let lower = s.to_ascii_lowercase();
        if lower == "dor" {
            return Ok(Routing::Dor);
        }
        match lower.as_str() {
            "adaptive" => return Ok(Routing::Adaptive),
            "updn" | "updown" | "up*/down*" => return Ok(Routing::UpDown),
            "updn-split" | "updown-split" => return Ok(Routing::UpDownSplit),
            "minimal" | "min-hop" | "minhop" => return Ok(Routing::Minimal),
            "minimal-split" => return Ok(Routing::MinimalSplit),
            "fattree" | "fat-tree" | "ftree" => return Ok(Routing::FatTree),
            _ => {}
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
            "expected dor, dor:ORDER, adaptive, updn, updn-split, minimal, minimal-split or fattree",
        ))
    }

    pub fn name(&self) -> String {
        match self {
            Routing::Dor => "dor".into(),
            Routing::Adaptive => "adaptive".into(),
            Routing::UpDown => "updn".into(),
            Routing::UpDownSplit => "updn-split".into(),
            Routing::Minimal => "minimal".into(),
            Routing::MinimalSplit => "minimal-split".into(),
            Routing::FatTree => "fattree".into(),
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
                // Rejected by `check`; route as their grid counterparts.
                Routing::UpDown | Routing::Minimal => {
                    dor::route_grid(g, None, src, dst, bytes, sink)
                }
                Routing::UpDownSplit | Routing::MinimalSplit | Routing::FatTree => {
                    adaptive::route_grid(g, src, dst, bytes, sink)
                }
            },
            Topology::Fabric(f) => {
                let (mode, split) = self.fabric_mode(f);
                fabric_route::route_hosts(f, mode, split, src, dst, bytes, sink)
            }
        }
    }

    /// The tables and split flag of this routing on fabric `f` (after
    /// [`Routing::resolve`]: `dor` = `updn` or `fattree`, `adaptive` =
    /// `updn-split` or `fattree`; a fat-tree routing on a fabric that is not
    /// a fat tree falls back to `updn-split`, which [`Routing::check`]
    /// reports).
    pub fn fabric_mode<'a>(
        &self,
        f: &'a crate::topology::Fabric,
    ) -> (fabric_route::Mode<'a>, bool) {
        use fabric_route::Mode;
        match self.resolve_fabric(f) {
            Routing::Dor | Routing::DorOrder(_) | Routing::UpDown => {
                (Mode::UpDown(f.updown()), false)
            }
            Routing::Adaptive | Routing::UpDownSplit => (Mode::UpDown(f.updown()), true),
            Routing::Minimal => (Mode::Minimal, false),
            Routing::MinimalSplit => (Mode::Minimal, true),
            Routing::FatTree => (Mode::UpDown(f.fat_tree().unwrap_or(f.updown())), true),
        }
    }

    /// The hop distance this routing gives between nodes `a` and `b` (the
    /// topology's distance, except plain shortest paths and the fat-tree
    /// routing on fabrics).
    #[inline]
    pub fn distance(&self, topo: &Topology, a: usize, b: usize) -> u32 {
        match topo {
            Topology::Grid(g) => g.distance(a, b),
            Topology::Fabric(f) => match self.resolve_fabric(f) {
                Routing::Minimal | Routing::MinimalSplit => f.min_distance(a, b),
                Routing::FatTree => {
                    let (sa, sb) = (f.switch_of(a), f.switch_of(b));
                    if sa == sb {
                        0
                    } else {
                        self.fabric_mode(f).0.dist(f, sa, sb)
                    }
                }
                _ => f.distance(a, b),
            },
        }
    }

    /// The routing actually used on `topo`: on a fat tree (a `fattree:`
    /// fabric or one that OpenSM's ftree engine recognises,
    /// [`crate::topology::ftree_detect`]) `dor` and `adaptive` are `fattree`;
    /// on other fabrics `dor` is `updn` and `adaptive` is `updn-split`;
    /// otherwise unchanged.
    pub fn resolve(&self, topo: &Topology) -> Routing {
        match topo {
            Topology::Fabric(f) => self.resolve_fabric(f),
            Topology::Grid(_) => self.clone(),
        }
    }

    /// [`Routing::resolve`] on fabric `f`.
    pub fn resolve_fabric(&self, f: &crate::topology::Fabric) -> Routing {
        let fat = f.ftree_roots().is_ok();
        match self {
            Routing::Dor | Routing::DorOrder(_) | Routing::Adaptive if fat => Routing::FatTree,
            Routing::Dor | Routing::DorOrder(_) => Routing::UpDown,
            Routing::Adaptive => Routing::UpDownSplit,
            _ => self.clone(),
        }
    }

    /// Check that the routing fits the topology (e.g. an explicit order's dimensions exist).
    pub fn check(&self, topo: &Topology) -> Result<()> {
        match (self, topo) {
            (
                Routing::UpDown
                | Routing::UpDownSplit
                | Routing::Minimal
                | Routing::MinimalSplit
                | Routing::FatTree,
                Topology::Grid(_),
            ) => {
                return Err(Error::spec(
                    "routing",
                    &self.name(),
                    "routes switch fabrics; on a mesh/torus use dor or adaptive",
                ));
            }
            (Routing::DorOrder(_), Topology::Fabric(_)) => {
                return Err(Error::spec(
                    "routing",
                    &self.name(),
                    "a dimension order needs a mesh/torus; on a fabric use updn, updn-split, \
                     minimal, minimal-split or fattree",
                ));
            }
            (Routing::FatTree, Topology::Fabric(f)) => {
                if let Err(why) = f.ftree_roots() {
                    return Err(Error::spec(
                        "routing",
                        &self.name(),
                        format!(
                            "needs a fat tree, and this fabric is not one as OpenSM's ftree \
                             engine sees it: {why}; use updn or updn-split"
                        ),
                    ));
                }
            }
            _ => {}
        }
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
