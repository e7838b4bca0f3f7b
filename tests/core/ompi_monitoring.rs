//! Open MPI monitoring output read as a graph: hand-made folders with
//! known lines (every traffic kind, phases, each error naming file and
//! line), a real LAMMPS run's files summed by a separate tiny parser here,
//! and mutated folders (no panic, a `PATH:LINE` error).

use super::common::tmp_in;
use hopmap_core::Error;
use hopmap_core::io::ompi_monitoring::{self, Traffic};
use hopmap_core::io::{self, ReadOptions};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn hist(bucket: usize, count: u64) -> String {
    let mut h = vec![0u64; 66];
    h[bucket] = count;
    h.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Rank `r`'s file of a 3-rank run: E r→r+1 (100·(r+1) bytes, 2 msgs),
/// I r→r+2 (8 bytes), S r→r+1 (800), R r←r+2 (48), C r→r+1 (16).
fn rank_file(r: usize, n: usize) -> String {
    let (a, b) = ((r + 1) % n, (r + 2) % n);
    format!(
        "# POINT TO POINT\nE\t{r}\t{a}\t{} bytes\t2 msgs sent\t{}\nI\t{r}\t{b}\t8 bytes\t1 msgs sent\t{}\n\
         # OSC\nS\t{r}\t{a}\t800 bytes\t1 msgs sent\nR\t{r}\t{b}\t48 bytes\t1 msgs sent\n\
         # COLLECTIVES\nC\t{r}\t{a}\t16 bytes\t2 msgs sent\nD\tMPI_COMM_WORLD\tprocs: {}\n\
         O2A\t{r}\t16 bytes\t2 msgs sent\nA2O\t{r}\t0 bytes\t0 msgs sent\nA2A\t{r}\t0 bytes\t0 msgs sent\n",
        100 * (r + 1),
        hist(7, 2),
        hist(4, 1),
        (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    )
}

fn folder(tag: &str, files: &[(&str, String)]) -> PathBuf {
    let d = tmp_in("ompi-mon", tag);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (name, text) in files {
        std::fs::write(d.join(name), text).unwrap();
    }
    d
}

fn run3(tag: &str, name: &str) -> PathBuf {
    let files: Vec<(String, String)> = (0..3)
        .map(|r| (format!("{name}.{r}.prof"), rank_file(r, 3)))
        .collect();
    let refs: Vec<(&str, String)> = files.iter().map(|(a, b)| (a.as_str(), b.clone())).collect();
    folder(tag, &refs)
}

fn err_of(path: &Path, traffic: Traffic, phase: Option<&str>) -> String {
    match ompi_monitoring::read(path, traffic, phase) {
        Ok(_) => panic!("{path:?} read without error"),
        Err(e) => {
            assert!(matches!(e, Error::Parse { .. }), "{e}");
            e.to_string()
        }
    }
}

#[test]
fn every_traffic_kind_reads_its_own_lines() {
    let d = run3("kinds", "prof");
    let read = |t| ompi_monitoring::read(&d, t, None).unwrap();
    let g = read(Traffic::App);
    assert!(g.is_directed());
    assert_eq!(g.n(), 3);
    assert_eq!(g.sent_between(0, 1), 100.0);
    assert_eq!(g.sent_between(1, 2), 200.0);
    assert_eq!(g.sent_between(2, 0), 300.0);
    assert_eq!(g.sent_between(1, 0), 0.0);
    assert_eq!(g.total_bytes(), 600.0);
    assert_eq!(g.msgs_between(2, 0), Some(2.0));
    // Every point-to-point message counted once, whatever its kind.
    let h = g.source().unwrap().size_histogram.clone().unwrap();
    assert_eq!((h[7], h[4], h.iter().sum::<u64>()), (6, 3, 9));
    let notes = g.source().unwrap().notes.join("\n");
    assert!(notes.contains("left out: I 24 B"), "{notes}");
    let g = read(Traffic::Internal);
    assert_eq!((g.sent_between(0, 2), g.total_bytes()), (8.0, 24.0));
    let g = read(Traffic::Collectives);
    assert_eq!((g.sent_between(0, 1), g.total_bytes()), (16.0, 48.0));
    // R lines: r received 48 bytes from r+2, so the bytes went r+2 → r,
    // which on 3 ranks is the direction of the S line r+2 → r+3.
    let g = read(Traffic::Osc);
    assert_eq!(g.sent_between(0, 1), 800.0 + 48.0);
    assert_eq!(g.sent_between(2, 0), 800.0 + 48.0);
    assert_eq!(g.sent_between(1, 0), 0.0);
    assert_eq!(g.msgs_between(1, 2), Some(2.0));
    assert_eq!(g.total_bytes(), 3.0 * 848.0);
    let g = read(Traffic::All);
    assert_eq!(g.total_bytes(), 600.0 + 24.0 + 3.0 * 848.0);
    // The folder, the prefix and any one file read the same.
    for p in [d.join("prof"), d.join("prof.2.prof")] {
        let opts = ReadOptions::default();
        assert_eq!(io::read_graph(&p, &opts).unwrap().total_bytes(), 600.0);
    }
}

#[test]
fn phases_read_one_by_one_or_summed() {
    let mut files = Vec::new();
    for ph in ["phase_1", "phase_2", "phase_10"] {
        for r in 0..3 {
            files.push((format!("{ph}.{r}.prof"), rank_file(r, 3)));
        }
    }
    let refs: Vec<(&str, String)> = files.iter().map(|(a, b)| (a.as_str(), b.clone())).collect();
    let d = folder("phases", &refs);
    let all = ompi_monitoring::read(&d, Traffic::App, None).unwrap();
    assert_eq!(all.total_bytes(), 1800.0);
    let s = all.source().unwrap();
    assert_eq!(s.phases, ["phase_1", "phase_2", "phase_10"]);
    assert_eq!(s.phase, None);
    let one = ompi_monitoring::read(&d, Traffic::App, Some("phase_10")).unwrap();
    assert_eq!(one.total_bytes(), 600.0);
    assert_eq!(one.source().unwrap().phase.as_deref(), Some("phase_10"));
    let file = ompi_monitoring::read(&d.join("phase_2.1.prof"), Traffic::App, None).unwrap();
    assert_eq!(file.total_bytes(), 600.0);
    let e = err_of(&d, Traffic::App, Some("phase_3"));
    assert!(
        e.contains("expected phase `phase_3`, found only `phase_1`"),
        "{e}"
    );
}

#[test]
fn missing_extra_and_mixed_files_are_errors_naming_file_and_line() {
    // A rank with no file.
    let d = folder(
        "missing",
        &[
            ("prof.0.prof", rank_file(0, 3)),
            ("prof.2.prof", rank_file(2, 3)),
        ],
    );
    let e = err_of(&d, Traffic::App, None);
    assert!(
        e.starts_with(&format!(
            "{}:1: expected this file",
            d.join("prof.1.prof").display()
        )),
        "{e}"
    );
    // The last rank's file is missing: the files name rank 2 (line 2 of rank 0's file names peer 2).
    let d = folder(
        "last",
        &[
            ("prof.0.prof", rank_file(0, 3)),
            ("prof.1.prof", rank_file(1, 3)),
        ],
    );
    let e = err_of(&d, Traffic::App, None);
    assert!(
        e.starts_with(&format!(
            "{}:3: expected ranks 0 to 1",
            d.join("prof.0.prof").display()
        )),
        "{e}"
    );
    // An extra file: a 3-rank run's files and a fourth of a 4-rank run.
    let mut files: Vec<(String, String)> = (0..3)
        .map(|r| (format!("prof.{r}.prof"), rank_file(r, 3)))
        .collect();
    files.push(("prof.3.prof".into(), rank_file(3, 4)));
    let refs: Vec<(&str, String)> = files.iter().map(|(a, b)| (a.as_str(), b.clone())).collect();
    let d = folder("extra", &refs);
    let e = err_of(&d, Traffic::App, None);
    assert!(
        e.starts_with(&format!(
            "{}:9: expected MPI_COMM_WORLD of 4 ranks",
            d.join("prof.0.prof").display()
        )),
        "{e}"
    );
    // A file renamed to another rank.
    let d = folder(
        "renamed",
        &[
            ("prof.0.prof", rank_file(0, 2)),
            ("prof.1.prof", rank_file(0, 2)),
        ],
    );
    let e = err_of(&d, Traffic::App, None);
    assert!(
        e.starts_with(&format!(
            "{}:2: expected lines of rank 1",
            d.join("prof.1.prof").display()
        )),
        "{e}"
    );
    // Two runs of different sizes under two names in one folder.
    let mut files: Vec<(String, String)> = (0..3)
        .map(|r| (format!("a.{r}.prof"), rank_file(r, 3)))
        .collect();
    files.extend((0..2).map(|r| (format!("b.{r}.prof"), rank_file(r, 2))));
    let refs: Vec<(&str, String)> = files.iter().map(|(a, b)| (a.as_str(), b.clone())).collect();
    let d = folder("mixed", &refs);
    let e = err_of(&d, Traffic::App, None);
    assert!(e.contains("found two mixed in one folder"), "{e}");
    // Either run alone reads.
    assert_eq!(
        ompi_monitoring::read(&d, Traffic::App, Some("b"))
            .unwrap()
            .n(),
        2
    );
    // A line that does not parse.
    let bad = rank_file(0, 2).replace("100 bytes", "1x0 bytes");
    let d = folder(
        "badline",
        &[("prof.0.prof", bad), ("prof.1.prof", rank_file(1, 2))],
    );
    let e = err_of(&d, Traffic::App, None);
    assert!(
        e.starts_with(&format!(
            "{}:2: expected a byte count (a whole number), found `1x0`",
            d.join("prof.0.prof").display()
        )),
        "{e}"
    );
    // An empty folder.
    let d = folder("empty", &[]);
    assert!(err_of(&d, Traffic::App, None).contains("found none"));
}

/// `(src, dst) → (bytes, messages)` of the E lines, by a parser that
/// shares nothing with hopmap's.
fn sum_e_lines(text: &str) -> BTreeMap<(usize, usize), (u64, u64)> {
    let mut m: BTreeMap<(usize, usize), (u64, u64)> = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f[0] != "E" {
            continue;
        }
        let lead = |s: &str| s.split(' ').next().unwrap().parse::<u64>().unwrap();
        let e = m
            .entry((f[1].parse().unwrap(), f[2].parse().unwrap()))
            .or_default();
        e.0 += lead(f[3]);
        e.1 += lead(f[4]);
    }
    m
}

const LAMMPS: &str = "sample-graphs/lammps-lj-64.prof";

#[test]
fn a_real_lammps_run_reads_to_exactly_the_bytes_its_files_hold() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(LAMMPS);
    let text = std::fs::read_to_string(&path).unwrap();
    let want = sum_e_lines(&text);
    // Captured by a colleague's script (sample-graphs/README.md): 384 pairs, 622,826,080 bytes.
    assert_eq!(want.len(), 384);
    assert_eq!(want.values().map(|v| v.0).sum::<u64>(), 622_826_080);
    let g = io::read_graph(&path, &ReadOptions::default()).unwrap();
    assert_eq!(g.n(), 64);
    let got: BTreeMap<(usize, usize), (u64, u64)> = g
        .messages()
        .map(|(u, v, b)| ((u, v), (b as u64, g.msgs_between(u, v).unwrap() as u64)))
        .collect();
    assert_eq!(got, want);
    // Split into the 64 rank files it came from: the folder reads the same.
    let d = tmp_in("ompi-mon", "lammps");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (r, block) in text.split("# POINT TO POINT\n").skip(1).enumerate() {
        std::fs::write(
            d.join(format!("prof.{r}.prof")),
            format!("# POINT TO POINT\n{block}"),
        )
        .unwrap();
    }
    let h = io::read_graph(&d, &ReadOptions::default()).unwrap();
    assert_eq!(
        h.messages().collect::<Vec<_>>(),
        g.messages().collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&d).ok();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A rank file mutated (bytes flipped, cut, inserted): reading the
    /// folder never panics, and fails only with a PATH:LINE error.
    #[test]
    fn mutated_folders_fail_cleanly(
        which in 0usize..3,
        edits in proptest::collection::vec((any::<u16>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let d = tmp_in("ompi-mon", &format!("fuzz-{which}"));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        for r in 0..3 {
            let mut b = rank_file(r, 3).into_bytes();
            if r == which {
                for &(at, byte, op) in &edits {
                    let at = at as usize % (b.len() + 1);
                    match op {
                        0 if at < b.len() => b[at] = byte,
                        1 => b.insert(at, byte),
                        _ => b.truncate(at),
                    }
                }
            }
            std::fs::write(d.join(format!("prof.{r}.prof")), b).unwrap();
        }
        for t in Traffic::ALL {
            match ompi_monitoring::read(&d, t, None) {
                Ok(g) => prop_assert!(g.n() <= 3 + 256 * 64),
                Err(Error::Parse { line, msg, .. }) => {
                    prop_assert!(line >= 1);
                    prop_assert!(msg.starts_with("expected") && !msg.contains('\n'), "{msg}");
                }
                Err(e) => prop_assert!(false, "not a parse error: {e}"),
            }
        }
    }
}

/// `hopmap convert`: every writer reads back to the same pairs; METIS and
/// Scotch loads over 32 bits are divided by a stated power of ten.
#[test]
fn convert_writes_every_format_and_scales_32_bit_loads() {
    use super::common::hopmap;
    let src = tmp_in("ompi-mon", "big.txt");
    // 3·10⁹ bytes between 0 and 1 (both directions: 6·10⁹ in the arcs), 5 between 1 and 2.
    std::fs::write(&src, "0 1 3000000000\n1 2 5\n").unwrap();
    let s = src.to_str().unwrap();
    for ext in ["mtx", "txt", "mat", "dot", "prof"] {
        let out = tmp_in("ompi-mon", &format!("big.{ext}"));
        let (c, _, e) = hopmap(&["convert", s, "-o", out.to_str().unwrap()]);
        assert_eq!(c, 0, "{ext}: {e}");
        let g = io::read_graph(&out, &ReadOptions::default()).unwrap();
        assert_eq!(g.volume(0, 1), 3e9, "{ext}");
        assert_eq!(g.volume(1, 2), 5.0, "{ext}");
    }
    for ext in ["graph", "grf"] {
        let out = tmp_in("ompi-mon", &format!("big.{ext}"));
        let (c, _, e) = hopmap(&["convert", s, "-o", out.to_str().unwrap()]);
        assert_eq!(c, 0, "{ext}: {e}");
        assert!(
            e.contains("loads are bytes divided by 10,") || e.contains("divided by 10 "),
            "{e}"
        );
        let g = io::read_graph(&out, &ReadOptions::default()).unwrap();
        // 3·10⁹ / 10; 5 / 10 = 0.5 rounds to 1 (and a load is at least 1).
        assert_eq!(g.volume(0, 1), 3e8, "{ext}");
        assert_eq!(g.volume(1, 2), 1.0, "{ext}");
    }
    let text = std::fs::read_to_string(tmp_in("ompi-mon", "big.graph")).unwrap();
    assert!(
        text.contains("divided by 10 (so that their sum fits in 32 bits)"),
        "{text}"
    );
    // Small weights are not scaled.
    std::fs::write(&src, "0 1 7\n").unwrap();
    let out = tmp_in("ompi-mon", "small.grf");
    let (c, _, e) = hopmap(&["convert", s, "-o", out.to_str().unwrap()]);
    assert_eq!(c, 0, "{e}");
    assert!(!e.contains("divided"), "{e}");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "0\n2 2\n0 010\n1 7 1\n1 7 0\n"
    );
}

/// Messages of less than half a byte (weights below 1e-6 from a normalised
/// matrix) are written as 1 byte, not 0: a line of 0 bytes reads as no
/// message, so the pair vanished from the graph read back.
#[test]
fn tiny_messages_survive_the_prof_writer() {
    use hopmap_core::graph::GraphBuilder;
    for directed in [false, true] {
        let mut b = GraphBuilder::new(3, directed);
        b.add(0, 1, 1e-7);
        b.add(1, 2, 0.4);
        b.add(2, 0, 7.0);
        let g = b.build().unwrap();
        let mut out = Vec::new();
        ompi_monitoring::write(&mut out, &g).unwrap();
        let f = tmp_in("ompi-mon", &format!("tiny-{directed}.prof"));
        std::fs::write(&f, &out).unwrap();
        let h = io::read_graph(&f, &ReadOptions::default()).unwrap();
        assert_eq!(h.n(), 3);
        assert_eq!(h.volume(0, 1), 1.0, "directed {directed}");
        assert_eq!(h.volume(1, 2), 1.0, "directed {directed}");
        assert_eq!(h.volume(0, 2), 7.0, "directed {directed}");
    }
}
