//! Real runs' monitoring output (`tests/data/real/*/`: LAMMPS LJ, LAMMPS
//! with PPPM, OpenFOAM; 64 ranks each, Open MPI 4.1.4, see each `HOW.md`)
//! read as a folder: the application graph holds exactly the bytes per
//! directed pair that `app-bytes.mtx` beside it gives, which was summed from
//! the same files' `E` lines by a separate script when they were captured.

use hopmap_core::io::{self, ReadOptions};
use std::collections::BTreeMap;
use std::path::Path;

/// `src dst bytes` entries of a MatrixMarket coordinate file, 0-based.
fn mtx_entries(text: &str) -> (usize, BTreeMap<(usize, usize), u64>) {
    let mut lines = text.lines().filter(|l| !l.starts_with('%'));
    let n: usize = lines
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let mut m = BTreeMap::new();
    for l in lines {
        let v: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
        m.insert((v[0] as usize - 1, v[1] as usize - 1), v[2]);
    }
    (n, m)
}

#[test]
fn real_captures_read_to_the_bytes_their_files_hold() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real");
    let mut checked = 0;
    for name in ["lammps-lj-64", "lammps-peptide-64", "openfoam-pitzDaily-64"] {
        let dir = root.join(name);
        let (n, want) = mtx_entries(&std::fs::read_to_string(dir.join("app-bytes.mtx")).unwrap());
        let g =
            io::read_graph(&dir, &ReadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(g.n(), n, "{name}");
        let got: BTreeMap<(usize, usize), u64> = g
            .messages()
            .filter(|&(_, _, b)| b > 0.0)
            .map(|(u, v, b)| ((u, v), b as u64))
            .collect();
        assert_eq!(got.len(), want.len(), "{name}: pairs");
        assert_eq!(got, want, "{name}: bytes per pair");
        checked += 1;
    }
    assert_eq!(checked, 3);
}
