//! Dimension-order routing on a mesh/torus (Balaji et al. §3.1): correct one
//! dimension at a time in the given order, going the shorter way round each
//! ring; an exact half-ring tie goes in the `+` direction.
//! O(hops) per message.

use crate::topology::Grid;

/// Direction (0 = +, 1 = −) and hop count to go from `a` to `b` in dimension `d`.
#[inline]
pub fn dim_direction(g: &Grid, d: usize, a: u32, b: u32) -> (usize, u32) {
    let k = g.dims()[d];
    if g.wraps(d) {
        // (b − a) mod k without a division (a, b < k).
        let fwd = if b >= a { b - a } else { b + k - a };
        let back = k - fwd;
        if fwd <= back { (0, fwd) } else { (1, back) }
    } else if b >= a {
        (0, b - a)
    } else {
        (1, a - b)
    }
}

/// Route along dimension order `order` (None = natural order).
pub fn route_grid(
    g: &Grid,
    order: Option<&[usize]>,
    src: usize,
    dst: usize,
    bytes: f64,
    sink: &mut impl FnMut(usize, f64),
) {
    let ca = g.coord(src);
    let cb = g.coord(dst);
    route_coords(g, order, &ca, &cb, src, dst, bytes, sink);
}

/// [`route_grid`] from the coordinates `ca` of `src` and `cb` of `dst`
/// (at least `g.ndims()` each), given by the caller (e.g. from a table
/// made once: [`super::cache::RouteCache`]): the same channels in the
/// same order.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn route_coords(
    g: &Grid,
    order: Option<&[usize]>,
    ca: &[u32],
    cb: &[u32],
    src: usize,
    dst: usize,
    bytes: f64,
    sink: &mut impl FnMut(usize, f64),
) {
    let nd = g.ndims();
    let mut node = src;
    let mut visit = |d: usize, node: &mut usize| {
        if ca[d] == cb[d] {
            return;
        }
        let (dir, hops) = dim_direction(g, d, ca[d], cb[d]);
        let k = g.dims()[d] as usize;
        let s = g.strides()[d];
        let mut c = ca[d] as usize;
        for _ in 0..hops {
            sink(g.channel(*node, d, dir), bytes);
            if dir == 0 {
                if c + 1 == k {
                    *node -= c * s;
                    c = 0;
                } else {
                    *node += s;
                    c += 1;
                }
            } else if c == 0 {
                *node += (k - 1) * s;
                c = k - 1;
            } else {
                *node -= s;
                c -= 1;
            }
        }
    };
    match order {
        Some(o) => {
            for &d in o {
                visit(d, &mut node);
            }
        }
        None => {
            for d in 0..nd {
                visit(d, &mut node);
            }
        }
    }
    debug_assert_eq!(node, dst);
}
