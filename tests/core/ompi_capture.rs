//! `hopmap capture` against the real thing: a C program of known pattern
//! (`tests/data/ompi_known.c`), compiled here with Debian's `mpicc` and run
//! under Debian's Open MPI `mpirun` through the real `hopmap` binary. The
//! graph must hold exactly the bytes and messages per pair the program
//! sends; its collectives (an `MPI_Allreduce`, an `MPI_Bcast`) must stay
//! out of the application graph; one-sided traffic reads with `--traffic
//! osc`; a failing run passes its exit status on and writes no graph; a
//! launcher that is not Open MPI's is refused with what to do.
//!
//! Runs when `mpicc` and `mpirun` are on PATH; under `CI=true` (`.ci/run`
//! installs `openmpi-bin libopenmpi-dev`) their absence is a failure.

use super::common::{hopmap, tmp_in};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The compiled program, or None (skip) when Open MPI is missing outside CI.
fn program() -> Option<PathBuf> {
    if !have("mpicc") || !have("mpirun") {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but mpicc/mpirun are missing (.ci/run installs openmpi-bin libopenmpi-dev)"
        );
        eprintln!("note: mpicc/mpirun not found; SKIPPING the capture test");
        return None;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ompi_known.c");
    let exe = tmp_in("ompi-capture", "known");
    let out = Command::new("mpicc")
        .arg("-O1")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("run mpicc");
    assert!(
        out.status.success(),
        "mpicc failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

/// `hopmap capture ARGS -- mpirun … -np N EXE PROG_ARGS` (as root, Open MPI
/// needs its two permission variables).
fn capture(args: &[&str], n: usize, exe: &Path, prog: &[&str]) -> (i32, String, String) {
    let np = n.to_string();
    let exe = exe.to_string_lossy().into_owned();
    let mut all: Vec<&str> = vec!["capture"];
    all.extend_from_slice(args);
    all.extend_from_slice(&[
        "--",
        "mpirun",
        "--oversubscribe",
        "--mca",
        "btl",
        "self,vader",
        "-np",
        &np,
        &exe,
    ]);
    all.extend_from_slice(prog);
    let out = Command::new(env!("CARGO_BIN_EXE_hopmap"))
        .args(&all)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("run hopmap");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The application's point-to-point pattern of `ompi_known.c`:
/// (src, dst) → (bytes, messages), self-sends left out.
fn expected_app(n: usize) -> BTreeMap<(usize, usize), (u64, u64)> {
    let mut m = BTreeMap::new();
    for r in 0..n {
        let mut add = |d: usize, b: u64, k: u64| {
            if d != r {
                let e = m.entry((r, d)).or_insert((0, 0));
                e.0 += b;
                e.1 += k;
            }
        };
        add((r + 1) % n, (r as u64 + 1) * 100, 1);
        add((7 * r + 3) % n, 3 * 4096, 3);
    }
    m
}

/// A graph written as an aggregated `.prof` file: its `E` lines.
fn e_lines(path: &Path) -> BTreeMap<(usize, usize), (u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut m = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("E\t")) {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |s: &str| s.split(' ').next().unwrap().parse::<u64>().unwrap();
        m.insert(
            (f[1].parse().unwrap(), f[2].parse().unwrap()),
            (num(f[3]), num(f[4])),
        );
    }
    m
}

#[test]
fn capture_finds_exactly_the_bytes_and_messages_the_program_sends() {
    let Some(exe) = program() else { return };
    // 5 ranks: (7r+3) mod 5 sends rank 2 to itself, which the graph drops.
    let n = 5;
    let out = tmp_in("ompi-capture", "app.prof");
    let raw = tmp_in("ompi-capture", "raw-app");
    let _ = std::fs::remove_dir_all(&raw);
    let (code, _, err) = capture(
        &[
            "-o",
            out.to_str().unwrap(),
            "--keep-raw",
            raw.to_str().unwrap(),
        ],
        n,
        &exe,
        &["osc"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(e_lines(&out), expected_app(n), "{err}");
    assert!(err.contains(&format!("captured {n} ranks")), "{err}");
    // The collectives and the one-sided traffic are left out and said so.
    assert!(err.contains("left out: I "), "{err}");
    assert!(err.contains("S "), "{err}");
    // The kept raw folder reads the same through every way to name it.
    let total: u64 = expected_app(n).values().map(|v| v.0).sum();
    for name in [
        raw.clone(),
        raw.join("prof"),
        raw.join("prof.3.prof"),
        out.clone(),
    ] {
        let (c, o, e) = hopmap(&["info", "--json", name.to_str().unwrap()]);
        assert_eq!(c, 0, "{e}");
        let v: serde_json::Value = serde_json::from_str(&o).unwrap();
        assert_eq!(v["total_bytes"].as_f64(), Some(total as f64), "{name:?}");
        assert_eq!(v["processes"].as_u64(), Some(n as u64), "{name:?}");
        let msgs: u64 = expected_app(n).values().map(|v| v.1).sum();
        assert_eq!(v["total_msgs"].as_f64(), Some(msgs as f64), "{name:?}");
    }
    // One-sided: r puts 800 bytes to r+2, and gets 48 bytes from r+3
    // (bytes r+3 → r, on 5 ranks the same direction as a put); the
    // zero-byte get requests carry nothing.
    let osc = tmp_in("ompi-capture", "osc.txt");
    let (c, _, e) = hopmap(&[
        "convert",
        raw.to_str().unwrap(),
        "--traffic",
        "osc",
        "-o",
        osc.to_str().unwrap(),
    ]);
    assert_eq!(c, 0, "{e}");
    let (c, o, e) = hopmap(&["info", "--json", osc.to_str().unwrap()]);
    assert_eq!(c, 0, "{e}");
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v["total_bytes"].as_f64(), Some((n * (800 + 48)) as f64));
    let text = std::fs::read_to_string(&osc).unwrap();
    let mut want: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for r in 0..n {
        *want.entry((r, (r + 2) % n)).or_default() += 800;
        *want.entry(((r + 3) % n, r)).or_default() += 48;
    }
    let got: BTreeMap<(usize, usize), u64> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<u64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            ((f[0] as usize, f[1] as usize), f[2])
        })
        .collect();
    assert_eq!(got, want, "{text}");
    // Internal traffic (the collectives' messages) is there, and apart.
    let (c, o, e) = hopmap(&[
        "info",
        "--json",
        "--traffic",
        "internal",
        raw.to_str().unwrap(),
    ]);
    assert_eq!(c, 0, "{e}");
    let v: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert!(v["total_bytes"].as_f64().unwrap() > 0.0);
    std::fs::remove_dir_all(&raw).ok();
}

#[test]
fn a_failed_run_passes_its_status_and_writes_no_graph() {
    let Some(exe) = program() else { return };
    let out = tmp_in("ompi-capture", "failed.mtx");
    let _ = std::fs::remove_file(&out);
    let (code, _, err) = capture(&["-o", out.to_str().unwrap()], 2, &exe, &["fail"]);
    assert_eq!(code, 7, "{err}");
    assert!(err.contains("no graph written"), "{err}");
    assert!(!out.exists());
    // The temporary raw folder next to the output is gone.
    let left: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".hopmap-capture")
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_launcher_that_is_not_open_mpi_is_refused_with_what_to_do() {
    let out = tmp_in("ompi-capture", "x.mtx");
    let (code, _, err) = hopmap(&["capture", "-o", out.to_str().unwrap(), "--", "echo", "hi"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("expected an Open MPI launcher") && err.contains("mpirun -np N"),
        "{err}"
    );
    let (code, _, err) = hopmap(&["capture", "-o", out.to_str().unwrap(), "--", "srun", "./a"]);
    assert_eq!(code, 1);
    assert!(err.contains("found srun"), "{err}");
    // A command that runs but leaves no monitoring files.
    let (code, _, err) = hopmap(&[
        "capture",
        "--any-launcher",
        "-o",
        out.to_str().unwrap(),
        "--",
        "true",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("left no monitoring files"), "{err}");
    assert!(!out.exists());
    // A run stopped by a signal: 128 + the signal, no graph.
    let (code, _, err) = hopmap(&[
        "capture",
        "--any-launcher",
        "-o",
        out.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "kill -TERM $$",
    ]);
    assert_eq!(code, 128 + 15, "{err}");
    assert!(err.contains("no graph written"), "{err}");
    assert!(!out.exists());
}

/// Open MPI's own `profile2mat` on a real run (the LAMMPS sample): its
/// averaged matrices read back to the run's pair volumes (each within the
/// rounding of the two halves), and `info` says what the numbers are.
#[test]
fn profile2mat_matrices_read_to_the_runs_pair_volumes() {
    if !have_tool("profile2mat") {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but profile2mat is missing (.ci/run installs openmpi-bin)"
        );
        eprintln!("note: profile2mat not found; SKIPPING");
        return;
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-graphs/lammps-lj-64.prof");
    let prof = tmp_in("ompi-p2m", "run.prof");
    std::fs::copy(&sample, &prof).unwrap();
    let out = Command::new("profile2mat")
        .arg("run.prof")
        .current_dir(prof.parent().unwrap())
        .output()
        .expect("run profile2mat");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let opts = hopmap_core::io::ReadOptions::default();
    let run = hopmap_core::io::read_graph(&prof, &opts).unwrap();
    let mat =
        hopmap_core::io::read_graph(&tmp_in("ompi-p2m", "run_size_external.mat"), &opts).unwrap();
    assert_eq!(mat.n(), run.n());
    assert_eq!(mat.num_edges(), run.num_edges());
    for (u, v, c) in run.pairs() {
        assert!(
            (mat.volume(u, v) - c).abs() <= 1.0,
            "{u}-{v}: {} vs {c}",
            mat.volume(u, v)
        );
    }
    let msgs = tmp_in("ompi-p2m", "run_msg_external.mat");
    let (c, o, e) = hopmap(&["info", msgs.to_str().unwrap()]);
    assert_eq!(c, 0, "{e}");
    assert!(
        o.contains("profile2mat matrix: message counts, not bytes"),
        "{o}"
    );
}

fn have_tool(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}
