//! Routes between the switches of a fabric, computed once and kept.
//!
//! A search that re-routes the same messages again and again (the
//! refinement's bottleneck phase moves a process and routes its messages
//! before and after) spends most of its time in the fabric's route search
//! ([`fabric_route::switch_route_split`] walks the layers of every legal
//! shortest route, allocating as it goes). [`RouteCache`] keeps, per
//! ordered pair of switches, the channels of the route and each one's
//! share of the bytes, so a route costs its length after the first time.
//! On a mesh or torus it routes directly (dimension order needs no search),
//! reading both ends' coordinates from a table made once (O(nodes ·
//! dimensions) memory) instead of dividing node ids at every route.
//!
//! Cost: the first route between two switches as
//! [`Routing::route`]; later ones O(route channels). Memory: at most
//! `max_pairs` switch pairs are kept (the caller sizes it from the input),
//! and the cache is emptied when full, so memory follows the input, not
//! the fabric.

use super::{Routing, dor, fabric_route};
use crate::topology::Topology;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The channels of a switch-to-switch route and each one's share of the
/// bytes.
type Hops = Box<[(u32, f64)]>;

/// Memoised switch-to-switch routes of one routing on one network.
pub struct RouteCache {
    topo: Arc<Topology>,
    routing: Routing,
    max_pairs: usize,
    /// (source switch, destination switch) → (channel, share of the bytes).
    routes: RefCell<HashMap<(u32, u32), Hops>>,
    /// Dimension-order routing on a mesh or torus: every node's
    /// coordinates, `ndims` per node (empty otherwise).
    coords: Vec<u32>,
}

impl RouteCache {
    /// A cache of `routing`'s routes on `topo`, keeping at most `max_pairs`
    /// switch pairs (at least one).
    pub fn new(topo: Arc<Topology>, routing: Routing, max_pairs: usize) -> Self {
        let coords = match (&*topo, &routing) {
            (Topology::Grid(g), Routing::Dor | Routing::DorOrder(_)) => {
                let nd = g.ndims();
                let mut c = Vec::with_capacity(g.num_nodes() * nd);
                for node in 0..g.num_nodes() {
                    c.extend_from_slice(&g.coord(node)[..nd]);
                }
                c
            }
            _ => Vec::new(),
        };
        RouteCache {
            topo,
            routing,
            max_pairs: max_pairs.max(1),
            routes: RefCell::default(),
            coords,
        }
    }

    /// Route `bytes` from node `src` to node `dst` as [`Routing::route`]
    /// does: `sink(channel, bytes)` for every channel crossed.
    #[inline]
    pub fn route(&self, src: usize, dst: usize, bytes: f64, sink: &mut impl FnMut(usize, f64)) {
        if !self.coords.is_empty()
            && src != dst
            && let Topology::Grid(g) = &*self.topo
        {
            let nd = g.ndims();
            let order = match &self.routing {
                Routing::DorOrder(o) => Some(o.as_slice()),
                _ => None,
            };
            let (ca, cb) = (&self.coords[src * nd..], &self.coords[dst * nd..]);
            return dor::route_coords(g, order, ca, cb, src, dst, bytes, sink);
        }
        let f = match &*self.topo {
            Topology::Fabric(f) if src != dst => f,
            topo => return self.routing.route(topo, src, dst, bytes, sink),
        };
        let (sa, sb) = (f.switch_of(src), f.switch_of(dst));
        sink(f.host_channel(src, true), bytes);
        if sa != sb {
            let key = (sa as u32, sb as u32);
            let mut routes = self.routes.borrow_mut();
            if !routes.contains_key(&key) {
                if routes.len() >= self.max_pairs {
                    routes.clear();
                }
                let (mode, split) = self.routing.fabric_mode(f);
                let mut hops: Vec<(u32, f64)> = Vec::new();
                if split {
                    fabric_route::switch_route_split(f, mode, sa, sb, 1.0, &mut |l, from, x| {
                        hops.push((f.link_channel(l, from) as u32, x))
                    });
                } else {
                    fabric_route::switch_route_det(f, mode, sa, sb, &mut |l, from| {
                        hops.push((f.link_channel(l, from) as u32, 1.0))
                    });
                }
                routes.insert(key, hops.into_boxed_slice());
            }
            if let Some(hops) = routes.get(&key) {
                for &(ch, share) in hops.iter() {
                    sink(ch as usize, bytes * share);
                }
            }
        }
        sink(f.host_channel(dst, false), bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair of hosts of a fat tree (split routes) and of an irregular
    /// fabric (deterministic up*/down*), and every pair of nodes of a torus
    /// and a mesh (dimension order through the coordinate table, also in
    /// another order of the dimensions), routed twice through the cache:
    /// the same channels with the same bytes as the routing itself.
    #[test]
    fn cached_routes_are_the_routings_own() {
        for spec in [
            "fattree:4:3",
            "fabric:6,12,4,0.5,7",
            "torus:4x3x5",
            "mesh:3x4",
        ] {
            let topo = Arc::new(Topology::parse(spec).unwrap());
            for routing in [
                Routing::Dor,
                Routing::Adaptive,
                Routing::DorOrder(vec![2, 0, 1]),
            ] {
                if matches!(routing, Routing::DorOrder(_)) && !spec.starts_with("torus") {
                    continue;
                }
                let cache = RouteCache::new(topo.clone(), routing.clone(), 5);
                let n = topo.num_nodes();
                for _ in 0..2 {
                    for a in 0..n {
                        for b in 0..n {
                            let mut want: Vec<(usize, f64)> = Vec::new();
                            routing.route(&topo, a, b, 3.0, &mut |c, x| want.push((c, x)));
                            let mut got: Vec<(usize, f64)> = Vec::new();
                            cache.route(a, b, 3.0, &mut |c, x| got.push((c, x)));
                            want.sort_by(|x, y| x.partial_cmp(y).unwrap());
                            got.sort_by(|x, y| x.partial_cmp(y).unwrap());
                            assert_eq!(want.len(), got.len(), "{spec} {a}→{b}");
                            for (w, g) in want.iter().zip(&got) {
                                assert_eq!(w.0, g.0, "{spec} {a}→{b}");
                                assert!((w.1 - g.1).abs() < 1e-12, "{spec} {a}→{b}");
                            }
                        }
                    }
                }
            }
        }
    }
}
