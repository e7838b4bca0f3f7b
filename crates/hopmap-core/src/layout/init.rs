//! Initial positions for the gravitational layout (Bobrik & Popova §4.1–4.2,
//! §6.1): seeded random positions in a disc/ball, the circle with equal
//! angles (the paper's slowest start, Fig. 1), or given coordinates. O(n).

use crate::error::{Error, Result};
use crate::rng::Rng;

/// How the points start.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// Uniform in a square/cube of side `radius · 2` (seeded).
    Random,
    /// On a circle centred at the origin, process `s` at angle `2πs/n`
    /// (in the z = 0 plane in 3D).
    Circle,
    /// Given coordinates (e.g. from a file or a previous run).
    Given(Vec<[f64; 3]>),
}

/// The radius used for random and circle starts: `sqrt(n)` natural units, so
/// the start has about one point per unit area, whatever `n`.
pub fn start_radius(n: usize) -> f32 {
    (n.max(1) as f32).sqrt()
}

/// Positions for `n` points in `dim` dimensions.
pub fn initial_positions(init: &Init, n: usize, dim: usize, seed: u64) -> Result<Vec<[f32; 3]>> {
    let r = start_radius(n);
    match init {
        Init::Random => {
            let mut rng = Rng::new(seed);
            Ok((0..n)
                .map(|_| {
                    let mut p = [0f32; 3];
                    for a in p.iter_mut().take(dim) {
                        *a = rng.range_f64(-r as f64, r as f64) as f32;
                    }
                    p
                })
                .collect())
        }
        Init::Circle => Ok((0..n)
            .map(|s| {
                let t = std::f64::consts::TAU * s as f64 / n.max(1) as f64;
                [
                    (r as f64 * t.cos()) as f32,
                    (r as f64 * t.sin()) as f32,
                    0.0,
                ]
            })
            .collect()),
        Init::Given(xyz) => {
            if xyz.len() != n {
                return Err(Error::Unsupported(format!(
                    "{} initial positions given for {n} processes",
                    xyz.len()
                )));
            }
            Ok(xyz
                .iter()
                .map(|p| {
                    let mut q = [p[0] as f32, p[1] as f32, p[2] as f32];
                    if dim == 2 {
                        q[2] = 0.0;
                    }
                    q
                })
                .collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circle_has_equal_angles_and_radius() {
        let p = initial_positions(&Init::Circle, 4, 2, 0).unwrap();
        let r = start_radius(4);
        assert!((p[0][0] - r).abs() < 1e-6 && p[0][1].abs() < 1e-6);
        assert!(p[1][0].abs() < 1e-6 && (p[1][1] - r).abs() < 1e-6);
        assert!((p[2][0] + r).abs() < 1e-6);
    }

    #[test]
    fn random_is_seeded_and_flat_in_2d() {
        let a = initial_positions(&Init::Random, 50, 2, 9).unwrap();
        let b = initial_positions(&Init::Random, 50, 2, 9).unwrap();
        let c = initial_positions(&Init::Random, 50, 2, 10).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|p| p[2] == 0.0));
        assert!(initial_positions(&Init::Given(vec![[0.0; 3]]), 2, 2, 0).is_err());
    }
}
