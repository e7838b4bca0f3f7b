//! `recursive+refine` on a fat tree with multicore nodes holds SharedMap's
//! hop-bytes and max link load on real captures, in any rank order:
//! checked against SharedMap-strong's own mappings (`tests/data/sharedmap/`).

use hopmap_core::metrics::evaluate;
use hopmap_core::rng::Rng;
use hopmap_core::{GraphBuilder, Mapping, Routing, Topology, mappers};
use std::path::Path;
use std::sync::Arc;

#[test]
fn recursive_refine_holds_sharedmaps_hop_bytes_and_max_load_on_a_fat_tree() {
    let t = Arc::new(Topology::parse("fattree:4:3:cores=4").unwrap());
    for f in ["lammps-lj-64", "lammps-peptide-64"] {
        let g = hopmap_core::io::read_graph(
            Path::new(&format!("tests/data/captures/{f}.mtx")),
            &Default::default(),
        )
        .unwrap();
        let reference = hopmap_core::io::read_mapping(
            Path::new(&format!("tests/data/sharedmap/{f}@fattree-4-3-cores4.map")),
            &t,
            g.n(),
        )
        .unwrap();
        let metrics = |g: &hopmap_core::CommGraph, m: &Mapping| {
            let e = evaluate(g, &t, m, &Routing::Dor).metrics;
            (e.hop_bytes, e.max_link_load)
        };
        let (shb, sload) = metrics(&g, &reference);
        for shuffle in [None, Some(3u64)] {
            // Rank u of the capture becomes perm[u].
            let mut perm: Vec<usize> = (0..g.n()).collect();
            if let Some(s) = shuffle {
                Rng::new(s).shuffle(&mut perm);
            }
            let mut b = GraphBuilder::new(g.n(), true);
            for (u, v, w) in g.messages() {
                b.add(perm[u], perm[v], w);
            }
            let h = Arc::new(b.build().unwrap());
            let input = mappers::MapperInput::new(h.clone(), t.clone(), 0);
            let m = mappers::run(&mappers::find("recursive+refine").unwrap(), &input).unwrap();
            let (hb, load) = metrics(&h, &m);
            assert!(
                hb <= shb * (1.0 + 1e-9),
                "{f} {shuffle:?}: {hb} > SharedMap's {shb}"
            );
            assert!(
                load <= sload * (1.0 + 1e-9),
                "{f} {shuffle:?}: max load {load} > SharedMap's {sload}"
            );
        }
    }
}
