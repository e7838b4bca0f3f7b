//! Shared by the command-line test files: run the binary as a user does,
//! and a scratch folder per test file and process.

use std::path::PathBuf;
use std::process::Command;

/// Run `hopmap ARGS`: (exit code, stdout, stderr).
pub fn hopmap(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hopmap"))
        .args(args)
        .output()
        .expect("run hopmap");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `name` in a scratch folder named after `tag` and this process.
pub fn tmp_in(tag: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hopmap-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// The graph with rank u renamed `perm[u]`, `perm` a permutation shuffled
/// by `seed` (`None`: the graph as it is).
pub fn relabelled(
    g: &hopmap_core::CommGraph,
    seed: Option<u64>,
) -> std::sync::Arc<hopmap_core::CommGraph> {
    let mut perm: Vec<usize> = (0..g.n()).collect();
    if let Some(s) = seed {
        hopmap_core::rng::Rng::new(s).shuffle(&mut perm);
    }
    let mut b = hopmap_core::GraphBuilder::new(g.n(), true);
    for (u, v, w) in g.messages() {
        b.add(perm[u], perm[v], w);
    }
    std::sync::Arc::new(b.build().unwrap())
}

/// `recursive+refine` on the capture `tests/data/captures/CAPTURE`, in its
/// own order and shuffled by each of `shuffles`, has at most the hop-bytes
/// and the max link load (dimension-order routing) of a peer's stored
/// mapping `reference` of the capture in its own order (`who` names it).
pub fn recursive_refine_holds(
    capture: &str,
    topo: &str,
    reference: &str,
    who: &str,
    shuffles: &[u64],
) {
    use hopmap_core::metrics::evaluate;
    use hopmap_core::{Mapping, Routing, Topology, mappers};
    use std::path::Path;
    use std::sync::Arc;
    let t = Arc::new(Topology::parse(topo).unwrap());
    let path = Path::new("tests/data/captures").join(capture);
    let g = hopmap_core::io::read_graph(&path, &Default::default()).unwrap();
    let peer = hopmap_core::io::read_mapping(Path::new(reference), &t, g.n()).unwrap();
    let metrics = |g: &hopmap_core::CommGraph, m: &Mapping| {
        let e = evaluate(g, &t, m, &Routing::Dor).metrics;
        (e.hop_bytes, e.max_link_load)
    };
    let (phb, pload) = metrics(&g, &peer);
    let orders = std::iter::once(None).chain(shuffles.iter().map(|&s| Some(s)));
    for shuffle in orders {
        let h = relabelled(&g, shuffle);
        let input = mappers::MapperInput::new(h.clone(), t.clone(), 0);
        let m = mappers::run(&mappers::find("recursive+refine").unwrap(), &input).unwrap();
        let (hb, load) = metrics(&h, &m);
        assert!(
            hb <= phb * (1.0 + 1e-9),
            "{capture} {shuffle:?}: {hb} > {who}'s {phb}"
        );
        assert!(
            load <= pload * (1.0 + 1e-9),
            "{capture} {shuffle:?}: max load {load} > {who}'s {pload}"
        );
    }
}

/// `grid` through the one pipeline on `g` (`params` as `--param`): its
/// hop-bytes and summary.
pub fn run_grid(
    g: &std::sync::Arc<hopmap_core::CommGraph>,
    topo: &str,
    params: &[(&str, &str)],
) -> (f64, Option<String>) {
    use hopmap_core::mappers::{self, MapperInput};
    let t = std::sync::Arc::new(hopmap_core::topology::Topology::parse(topo).unwrap());
    let mut input = MapperInput::new(g.clone(), t.clone(), 1);
    input.params = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let info = mappers::find("grid").unwrap();
    let mut r = mappers::prepare(&info, &input).unwrap();
    r.run_to_end();
    let summary = r.inspect().summary();
    let m = mappers::finish(&info, r.as_ref(), &input).unwrap();
    (hopmap_core::metrics::hop_bytes(g, &t, &m), summary)
}
