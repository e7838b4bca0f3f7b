//! Topology spec strings.
//!
//! * `mesh:32x32`, `torus:8x16x32`, `torus:8x8x16:cores=4`
//! * mixed wrap: `mesh:8x8x4:wrap=110` (one flag per dimension, X first)
//! * Blue Gene/P partitions (Balaji et al. Table 1): `bgp:512` … `bgp:32768`,
//!   4 cores per node, full torus. Smaller partitions (`bgp:32` … `bgp:256`)
//!   are meshes, as on the real machine. `bgp:N:cores=1` overrides cores.

use super::{Grid, Topology};
use crate::error::{Error, Result};

/// Blue Gene/P partition shapes: (nodes, dims). 512 and up are tori (Table 1
/// of Balaji et al.); below 512 nodes the partitions are meshes.
pub const BGP_PARTITIONS: &[(u32, [u32; 3])] = &[
    (32, [4, 4, 2]),
    (64, [4, 4, 4]),
    (128, [4, 4, 8]),
    (256, [8, 4, 8]),
    (512, [8, 8, 8]),
    (1024, [8, 8, 16]),
    (2048, [8, 8, 32]),
    (4096, [8, 16, 32]),
    (8192, [8, 32, 32]),
    (16384, [16, 32, 32]),
    (32768, [32, 32, 32]),
];

/// Parse a topology spec string (mesh/torus/bgp here; switch fabrics and
/// fabric files in [`super::fabric_spec`]).
pub fn parse_topology(spec: &str) -> Result<Topology> {
    if let Some(t) = super::fabric_spec::parse_fabric(spec)? {
        return Ok(t);
    }
    let err = |m: &str| Error::spec("topology", spec, m.to_string());
    let mut parts = spec.trim().split(':');
    let kind = parts.next().unwrap_or("").to_ascii_lowercase();
    let body = parts
        .next()
        .ok_or_else(|| err("expected KIND:DIMS, e.g. torus:8x8x8 or bgp:512"))?;
    let mut cores: Option<u32> = None;
    let mut wrap: Option<Vec<bool>> = None;
    for opt in parts {
        let (k, v) = opt
            .split_once('=')
            .ok_or_else(|| err(&format!("expected key=value, found `{opt}`")))?;
        match k.trim() {
            "cores" => {
                cores = Some(
                    v.trim()
                        .parse()
                        .ok()
                        .filter(|&c: &u32| c >= 1)
                        .ok_or_else(|| {
                            err(&format!("cores must be a positive integer, found `{v}`"))
                        })?,
                )
            }
            "wrap" => {
                let flags: Option<Vec<bool>> = v
                    .trim()
                    .chars()
                    .map(|c| match c {
                        '1' => Some(true),
                        '0' => Some(false),
                        _ => None,
                    })
                    .collect();
                wrap = Some(
                    flags.ok_or_else(|| err(&format!("wrap must be 0/1 flags, found `{v}`")))?,
                );
            }
            other => {
                return Err(err(&format!(
                    "unknown option `{other}` (expected cores= or wrap=)"
                )));
            }
        }
    }
    let (dims, default_wrap, default_cores): (Vec<u32>, bool, u32) = match kind.as_str() {
        "mesh" | "torus" => {
            let dims: Option<Vec<u32>> = body
                .split(['x', 'X'])
                .map(|s| s.trim().parse::<u32>().ok().filter(|&d| d >= 1))
                .collect();
            let dims =
                dims.ok_or_else(|| err(&format!("expected sizes like 8x8x8, found `{body}`")))?;
            (dims, kind == "torus", 1)
        }
        "bgp" => {
            let n: u32 = body
                .trim()
                .parse()
                .map_err(|_| err(&format!("expected a node count, found `{body}`")))?;
            let (_, d) = BGP_PARTITIONS
                .iter()
                .find(|(m, _)| *m == n)
                .ok_or_else(|| {
                    err(&format!(
                        "no Blue Gene/P partition of {n} nodes; known: {}",
                        BGP_PARTITIONS
                            .iter()
                            .map(|(m, _)| m.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
            (d.to_vec(), n >= 512, 4)
        }
        _ => {
            return Err(err(
                "kind must be mesh, torus, bgp, fabric, fattree, dragonfly, ibnetdiscover, \
                 slurm, or the path of a fabric file",
            ));
        }
    };
    if dims.is_empty() || dims.len() > 6 {
        return Err(err("expected 1 to 6 dimensions"));
    }
    let wrap = match wrap {
        Some(w) if w.len() != dims.len() => {
            return Err(err(&format!(
                "wrap has {} flags for {} dimensions",
                w.len(),
                dims.len()
            )));
        }
        Some(w) => w,
        None => vec![default_wrap; dims.len()],
    };
    let grid =
        Grid::new(&dims, &wrap, cores.unwrap_or(default_cores)).map_err(|e| err(&e.to_string()))?;
    Ok(Topology::Grid(grid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        let t = parse_topology("torus:8x8x16:cores=4").unwrap();
        assert_eq!(t.num_nodes(), 1024);
        assert_eq!(t.cores(), 4);
        assert_eq!(t.spec(), "torus:8x8x16:cores=4");
        let m = parse_topology("mesh:8x8x4:wrap=110").unwrap();
        assert_eq!(m.as_grid().unwrap().wrap(), &[true, true, false]);
        assert_eq!(parse_topology(&m.spec()).unwrap(), m);
        let b = parse_topology("bgp:4096").unwrap();
        assert_eq!(b.as_grid().unwrap().dims(), &[8, 16, 32]);
        assert_eq!(b.cores(), 4);
        assert!(b.as_grid().unwrap().is_torus());
        let s = parse_topology("bgp:128").unwrap();
        assert!(!s.as_grid().unwrap().wrap()[0]);
        for bad in [
            "",
            "mesh",
            "mesh:0x4",
            "mesh:4x4:cores=0",
            "ring:4",
            "mesh:4x4:wrap=1",
            "bgp:1000",
            "mesh:2x2x2x2x2x2x2",
        ] {
            assert!(parse_topology(bad).is_err(), "{bad}");
        }
    }
}
