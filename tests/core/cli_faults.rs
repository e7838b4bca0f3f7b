//! Bad input and faults, run as a user runs them: every case
//! ends with exit 0, 1 or 2 and at most a one-line message, memory bounded by
//! the input (checked under `prlimit --as`), and no file lost or half
//! written.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_hopmap")
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin()).args(args).output().expect("run hopmap");
    decode(out)
}

fn decode(out: Output) -> (i32, String, String) {
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run under an address-space limit of `mib` MiB (util-linux `prlimit`,
/// which every Debian machine has: a missing one fails the test).
fn run_limited(mib: u64, args: &[&str]) -> (i32, String, String) {
    let limit = format!("--as={}", mib << 20);
    let out = Command::new("prlimit")
        .arg(limit)
        .arg(bin())
        .args(args)
        .output()
        .expect("prlimit (util-linux) is needed for the memory-bounded tests");
    decode(out)
}

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hopmap-faults-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &Path, name: &str, content: &[u8]) -> String {
    let p = d.join(name);
    std::fs::write(&p, content).unwrap();
    p.to_str().unwrap().to_string()
}

/// An error is one line on stderr, prefixed `error: `.
fn one_line_error(code: i32, err: &str) {
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err:?}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

// ---------------------------------------------------------------- memory

#[test]
fn layout_of_a_disconnected_graph_is_bounded() {
    let d = dir("iso");
    // 65,536 processes, all isolated but one pair: the old MDS start asked
    // for 16 GiB.
    let g = write(&d, "iso.txt", b"0 65535 1\n");
    let out = d.join("l.txt");
    let (code, _, err) = run_limited(1024, &["layout", &g, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 65536);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn components_are_laid_out_apart_and_visible() {
    use hopmap_core::GraphBuilder;
    use hopmap_core::layout::{Layout, LayoutParams};
    use hopmap_core::step::Stepper;
    // Two 4-cycles, a pair and an isolated process.
    let mut b = GraphBuilder::new(11, false);
    for c in 0..2 {
        for i in 0..4 {
            b.add(4 * c + i, 4 * c + (i + 1) % 4, 1.0);
        }
    }
    b.add(8, 9, 1.0);
    let g = b.build().unwrap();
    let mut l = Layout::new(&g, LayoutParams::default()).unwrap();
    assert_eq!(l.components(), 4);
    l.run_to_end();
    let p = l.positions();
    let bbox = |ids: &[usize]| {
        let mut lo = [f32::INFINITY; 2];
        let mut hi = [f32::NEG_INFINITY; 2];
        for &i in ids {
            for a in 0..2 {
                lo[a] = lo[a].min(p[i][a]);
                hi[a] = hi[a].max(p[i][a]);
            }
        }
        (lo, hi)
    };
    let boxes = [
        bbox(&[0, 1, 2, 3]),
        bbox(&[4, 5, 6, 7]),
        bbox(&[8, 9]),
        bbox(&[10]),
    ];
    for i in 0..4 {
        for j in i + 1..4 {
            let (a, b) = (boxes[i], boxes[j]);
            let apart = a.1[0] < b.0[0] || b.1[0] < a.0[0] || a.1[1] < b.0[1] || b.1[1] < a.0[1];
            assert!(apart, "components {i} and {j} overlap: {boxes:?}");
        }
    }
    // Visible: the whole drawing is not dominated by the gaps between
    // components (each cycle spans at least 1/20 of the drawing).
    let all = bbox(&(0..11).collect::<Vec<_>>());
    let span = (all.1[0] - all.0[0]).max(all.1[1] - all.0[1]);
    let cyc = (boxes[0].1[0] - boxes[0].0[0]).max(boxes[0].1[1] - boxes[0].0[1]);
    assert!(cyc > span / 20.0, "cycle {cyc} in a drawing of {span}");
}

#[test]
fn mapping_a_tiny_graph_on_a_huge_network_is_bounded() {
    let d = dir("huge");
    let g = write(&d, "g4.txt", b"0 1 5\n1 2 5\n2 3 5\n");
    let o = d.join("o.txt");
    let o = o.to_str().unwrap();
    for topo in ["torus:16384x16384", "torus:16384x16384:cores=1024"] {
        let (code, out, err) = run_limited(
            512,
            &[
                "map",
                &g,
                "--topology",
                topo,
                "--mapper",
                "default",
                "-o",
                o,
            ],
        );
        assert_eq!(code, 0, "{topo}: {err}");
        assert!(out.contains("hop_bytes"), "{out}");
        let (code, _, err) = run_limited(
            512,
            &[
                "compare",
                &g,
                "--topology",
                topo,
                "--mappers",
                "default,xyzt,cdl",
            ],
        );
        assert_eq!(code, 0, "{topo}: {err}");
    }
    // eval reads and validates a mapping on 2^38 slots in memory that
    // follows the mapping.
    let m = write(&d, "m4.txt", b"0\n1\n16384\n268435455\n");
    let (code, out, err) = run_limited(
        512,
        &[
            "eval",
            &g,
            "--topology",
            "torus:16384x16384:cores=1024",
            "--mapping",
            &m,
        ],
    );
    assert_eq!(code, 0, "{err}");
    // Nodes (0,0), (1,0), (0,1), (16383,16383): 1, 2 and 3 hops (wrapping)
    // of 5 bytes each.
    assert!(out.contains("hop-bytes:         30\n"), "{out}");
    // Mappers with per-node state say so up front.
    let (code, _, err) = run_limited(
        512,
        &[
            "map",
            &g,
            "--topology",
            "torus:16384x16384",
            "--mapper",
            "mht",
            "-o",
            o,
        ],
    );
    one_line_error(code, &err);
    assert!(err.contains("mapper mht keeps state per node"), "{err}");
    let (code, out, err) = run_limited(512, &["compare", &g, "--topology", "torus:16384x16384"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("* cdl") && out.contains("note: mht left out"),
        "{out}"
    );
    // A network whose diameter alone is too large to evaluate.
    let (code, _, err) = run(&["map", &g, "--topology", "mesh:268435456", "-m", "default"]);
    one_line_error(code, &err);
    assert!(err.contains("too large to evaluate"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn huge_coordinates_end_cleanly() {
    let d = dir("hugec");
    let g = write(&d, "p4.txt", b"0 1\n1 2\n2 3\n");
    let c = write(&d, "c4.xy", b"-1e308 0\n1e308 0\n0 1e308\n0 -1e308\n");
    let (code, _, err) = run(&["layout", &g, "--init", &c, "--iterations", "5"]);
    one_line_error(code, &err);
    assert!(err.contains("expected initial positions within"), "{err}");
    for m in ["affn", "coce", "coce+mht", "gravity", "pairs"] {
        let (code, _, err) = run(&["map", &g, "--coords", &c, "-t", "torus:2x2", "-m", m]);
        assert_eq!(code, 0, "{m}: {err}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn counts_are_capped() {
    let d = dir("caps");
    let g = write(&d, "g.txt", b"0 1 5\n1 2 5\n");
    let huge = "18446744073709551615";
    let (code, _, err) = run(&["layout", &g, "--iterations", huge]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1..=1000000"), "{err}");
    for args in [
        vec!["bench", "layout", "--n", "16", "--iterations", huge],
        vec!["bench", "layout", "--n", huge],
        vec!["bench", "layout", "--n", "16", "--repeats", huge],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // The cap still lets a real run through.
    let (code, _, err) = run(&["layout", &g, "--iterations", "5"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn input_size_is_capped() {
    let t = std::time::Instant::now();
    let (code, _, err) = run_limited(256, &["info", "/dev/zero"]);
    one_line_error(code, &err);
    assert!(
        err.contains("/dev/zero:1: expected a text file, found binary data"),
        "{err}"
    );
    assert!(t.elapsed().as_secs() < 20);
    // A (sparse) file past the cap is refused before reading.
    let d = dir("cap");
    let p = d.join("big.txt");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(hopmap_core::io::MAX_INPUT_BYTES + 1).unwrap();
    drop(f);
    let (code, _, err) = run_limited(256, &["info", p.to_str().unwrap()]);
    one_line_error(code, &err);
    assert!(
        err.contains("expected an input file of at most 2.00 GiB"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).ok();
}

// ------------------------------------------------------- output and faults

/// Every command that prints, with the files it needs in `d`.
fn printing_commands(d: &Path) -> Vec<Vec<String>> {
    let g = write(d, "g.mtx", b"");
    std::fs::remove_file(&g).ok();
    let (code, _, err) = run(&["generate", "stencil:64x64", "-o", &g]);
    assert_eq!(code, 0, "{err}");
    let m = write(
        d,
        "id.map",
        (0..4096)
            .map(|i| format!("{i}\n"))
            .collect::<String>()
            .as_bytes(),
    );
    let png = d.join("png").to_str().unwrap().to_string();
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    vec![
        v(&["info", &g]),
        v(&["info", &g, "--json"]),
        v(&["eval", &g, "--topology", "torus:64x64", "--mapping", &m]),
        v(&[
            "compare",
            &g,
            "--topology",
            "torus:64x64",
            "--mappers",
            "default,xyzt",
        ]),
        v(&["layout", &g, "--iterations", "2"]),
        v(&["mappers"]),
        v(&["mappers", "--long"]),
        v(&["map", &g, "--topology", "torus:64x64", "-m", "default"]),
        v(&["reproduce", "bobrik", "--png-dir", &png]),
        v(&[
            "bench",
            "layout",
            "--n",
            "16",
            "--iterations",
            "1",
            "--repeats",
            "1",
        ]),
    ]
}

#[test]
fn closed_pipe_ends_quietly_and_full_disk_is_one_line() {
    let d = dir("stdout");
    for args in printing_commands(&d) {
        // A reader that has gone away (`| head -1` after its line).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(bin())
            .args(&args)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let (code, _, err) = decode(out);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(
            !err.contains("error") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
        // A full disk.
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(bin())
            .args(&args)
            .stdout(Stdio::from(full))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let (code, _, err) = decode(out);
        let last = err.lines().last().unwrap_or("");
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(
            last, "error: writing to standard output: No space left on device (os error 28)",
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn head_reads_one_line_of_a_long_listing() {
    // `hopmap map … | head -1` on a mapping larger than the pipe buffer.
    let d = dir("head");
    let g = d.join("g.mtx");
    let g = g.to_str().unwrap();
    let (code, _, err) = run(&["generate", "stencil:256x256", "-o", g]);
    assert_eq!(code, 0, "{err}");
    let mut child = Command::new(bin())
        .args(["map", g, "--topology", "torus:64x64x16", "-m", "default"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    let mut stdout = child.stdout.take().unwrap();
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(first.starts_with(b"# hopmap mapping"));
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!err.contains("error") && !err.contains("panicked"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

fn no_temporaries(d: &Path) {
    for e in std::fs::read_dir(d).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.contains("hopmap-tmp"), "left behind: {name}");
    }
}

#[test]
fn a_failed_coords_out_leaves_the_graph_file_untouched() {
    let d = dir("pair");
    let g = write(&d, "g.mtx", b"OLD GRAPH\n");
    let bad = d.join("no-such-dir").join("c.xy");
    let (code, _, err) = run(&[
        "generate",
        "stencil:8x8",
        "-o",
        &g,
        "--coords-out",
        bad.to_str().unwrap(),
    ]);
    one_line_error(code, &err);
    assert!(err.contains("no-such-dir/c.xy"), "{err}");
    assert_eq!(std::fs::read(&g).unwrap(), b"OLD GRAPH\n");
    no_temporaries(&d);
    // Both succeed together.
    let c = d.join("c.xy");
    let (code, _, err) = run(&[
        "generate",
        "stencil:8x8",
        "-o",
        &g,
        "--coords-out",
        c.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        std::fs::read_to_string(&g)
            .unwrap()
            .starts_with("%%MatrixMarket")
    );
    assert_eq!(std::fs::read_to_string(&c).unwrap().lines().count(), 65);
    no_temporaries(&d);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn writes_to_devices_go_through_and_a_full_device_fails_cleanly() {
    let d = dir("dev");
    let g = write(&d, "g.txt", b"0 1 5\n1 2 5\n");
    let (code, _, err) = run(&[
        "map",
        &g,
        "-t",
        "torus:2x2",
        "-m",
        "default",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(Path::new("/dev/null").exists());
    let (code, _, err) = run(&[
        "map",
        &g,
        "-t",
        "torus:2x2",
        "-m",
        "default",
        "-o",
        "/dev/full",
    ]);
    one_line_error(code, &err);
    assert!(err.contains("/dev/full: No space left on device"), "{err}");
    let (code, _, err) = run(&["layout", &g, "-o", "/dev/full"]);
    one_line_error(code, &err);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let d = dir("same");
    let g = write(&d, "g.txt", b"0 1 5\n1 2 5\n");
    let before = std::fs::read(&g).unwrap();
    let other_spelling = d.join(".").join("g.txt");
    let link = d.join("link.txt");
    std::os::unix::fs::symlink(&g, &link).unwrap();
    for out in [
        g.clone(),
        other_spelling.to_str().unwrap().to_string(),
        link.to_str().unwrap().to_string(),
    ] {
        let (code, _, err) = run(&["map", &g, "-t", "torus:2x2", "-m", "default", "-o", &out]);
        one_line_error(code, &err);
        assert!(
            err.contains("is the input GRAPH: refusing to overwrite it"),
            "{err}"
        );
        let (code, _, err) = run(&["layout", &g, "-o", &out]);
        one_line_error(code, &err);
        assert_eq!(std::fs::read(&g).unwrap(), before);
    }
    let c = write(&d, "c.xy", b"0 0\n1 0\n2 0\n");
    let (code, _, err) = run(&["layout", &g, "--init", &c, "-o", &c]);
    one_line_error(code, &err);
    assert!(err.contains("is the input --init"), "{err}");
    let (code, _, err) = run(&["generate", "stencil:4x4", "-o", &c, "--coords-out", &c]);
    one_line_error(code, &err);
    assert!(err.contains("name the same file"), "{err}");
    std::fs::remove_dir_all(&d).ok();
}

// ---------------------------------------------------------- silent misreads

#[test]
fn malformed_edge_lists_are_errors_not_graphs() {
    let d = dir("misread");
    for (name, content, want) in [
        (
            "e.txt",
            &b"0,,5\n"[..],
            "e.txt:1: expected `src dst [bytes]` with a value between each pair of commas, found an empty field in `0,,5`",
        ),
        (
            "abc.txt",
            b"a b c\n",
            "abc.txt:1: expected `src dst [bytes]` edge lines (numbers separated by spaces or commas), found only `a b c`",
        ),
        (
            "semi.txt",
            b"0;1;5\n",
            "semi.txt:1: expected `src dst [bytes]` edge lines (numbers separated by spaces or commas), found only `0;1;5`",
        ),
        (
            "semi.unknown",
            b"0;1;5\n",
            "semi.unknown:1: expected a graph in a known format",
        ),
        (
            "empty.txt",
            b"",
            "empty.txt:1: expected `src dst [bytes]` edge lines, found none",
        ),
    ] {
        let p = write(&d, name, content);
        for args in [
            vec!["info", p.as_str()],
            vec!["compare", p.as_str(), "--topology", "torus:4x4"],
        ] {
            let (code, out, err) = run(&args);
            one_line_error(code, &err);
            assert!(err.contains(want), "{name}: {err}");
            assert!(out.is_empty(), "{out}");
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_plain_mapping_without_its_header_is_detected_or_refused() {
    let d = dir("plain");
    let g = d.join("g.mtx");
    let g = g.to_str().unwrap();
    let (code, _, err) = run(&["generate", "stencil:2x2x2", "-o", g]);
    assert_eq!(code, 0, "{err}");
    let with = d.join("with.txt");
    let (code, _, err) = run(&[
        "map",
        g,
        "-t",
        "torus:2x2x2",
        "-m",
        "tzxy",
        "-o",
        with.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let eval = |m: &str, topo: &str| run(&["eval", g, "-t", topo, "--mapping", m, "--json"]);
    let (code, want, err) = eval(with.to_str().unwrap(), "torus:2x2x2");
    assert_eq!(code, 0, "{err}");
    // The same lines without the header: `rank node core` cannot be x y z
    // here (node 7 is no coordinate of a 2×2×2 torus), so it reads as plain.
    let text = std::fs::read_to_string(&with).unwrap();
    let body: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let without = write(&d, "without.txt", body.as_bytes());
    let (code, got, err) = eval(&without, "torus:2x2x2");
    assert_eq!(code, 0, "{err}");
    assert_eq!(got, want);
    // On a larger torus both readings are valid and differ: refused.
    let (code, _, err) = eval(&without, "torus:8x8x8");
    one_line_error(code, &err);
    assert!(err.contains("read both as `rank node core`"), "{err}");
    // A Blue Gene mapfile (x y z) that is no plain mapping reads as before.
    let bgp = write(
        &d,
        "bgp.txt",
        b"0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n",
    );
    let (code, _, err) = eval(&bgp, "torus:2x2x2");
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn bytes_that_overflow_are_an_error() {
    let d = dir("inf");
    let p = write(&d, "big.txt", b"0 1 1e308\n1 2 1e308\n");
    for args in [
        vec!["info", p.as_str()],
        vec!["compare", p.as_str(), "--topology", "torus:4x4", "--json"],
    ] {
        let (code, out, err) = run(&args);
        one_line_error(code, &err);
        assert!(
            err.contains("big.txt:2: expected messages that sum to at most 1e300 bytes"),
            "{err}"
        );
        assert!(!out.contains("null") && !out.contains("inf"), "{out}");
    }
    std::fs::remove_dir_all(&d).ok();
}

// -------------------------------------------------------------- parameters

#[test]
fn documented_parameters_do_what_they_say() {
    let d = dir("params");
    let g = d.join("u.mtx");
    let g = g.to_str().unwrap();
    let (code, _, err) = run(&["generate", "unstructured:16", "-o", g]);
    assert_eq!(code, 0, "{err}");
    let o = d.join("o.txt");
    let o = o.to_str().unwrap();
    // coords=infer runs a coordinate mapper on a graph without coordinates.
    let (code, out, err) = run(&[
        "map",
        g,
        "-t",
        "torus:4x4",
        "-m",
        "affn",
        "--param",
        "coords=infer",
        "-o",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("affn"), "{out}");
    // theta: the documented range 0 to 2 is what the check and the layout take.
    let (_, long, _) = run(&["mappers", "--long"]);
    assert!(long.contains("theta: number 0..=2"), "{long}");
    for (theta, ok) in [("0", true), ("2", true), ("2.5", false)] {
        let (code, _, err) = run(&[
            "map",
            g,
            "-t",
            "torus:4x4",
            "-m",
            "gravity",
            "--param",
            &format!("theta={theta}"),
            "-o",
            o,
        ]);
        assert_eq!(code == 0, ok, "theta={theta}: {err}");
    }
    // order= on an order-string id is not ignored: the same order runs, a
    // different one is refused (the pipeline's rule), and `perm` takes it.
    let (code, _, err) = run(&["generate", "stencil:4x4x4", "-o", g]);
    assert_eq!(code, 0, "{err}");
    let get = |args: &[&str]| {
        let (code, _, err) = run(args);
        assert_eq!(code, 0, "{err}");
        std::fs::read_to_string(o).unwrap()
    };
    let (code, _, err) = run(&[
        "map",
        g,
        "-t",
        "torus:4x4x4",
        "-m",
        "TZXY",
        "--param",
        "order=ZYXT",
        "-o",
        o,
    ]);
    one_line_error(code, &err);
    assert!(err.contains("already sets order=TZXY"), "{err}");
    let a = get(&[
        "map",
        g,
        "-t",
        "torus:4x4x4",
        "-m",
        "perm",
        "--param",
        "order=ZYXT",
        "-o",
        o,
    ]);
    let b = get(&["map", g, "-t", "torus:4x4x4", "-m", "ZYXT", "-o", o]);
    let c = get(&[
        "map",
        g,
        "-t",
        "torus:4x4x4",
        "-m",
        "TZXY",
        "--param",
        "order=TZXY",
        "-o",
        o,
    ]);
    assert_eq!(a, b);
    assert_ne!(a, c);
    std::fs::remove_dir_all(&d).ok();
}

// ----------------------------------------------------------------- messages

#[test]
fn messages_are_one_line_and_say_what_they_mean() {
    let d = dir("msg");
    // A missing file: the OS error once.
    let (code, _, err) = run(&["info", "missing.txt"]);
    one_line_error(code, &err);
    assert_eq!(
        err.trim_end(),
        "error: missing.txt: No such file or directory (os error 2)"
    );
    // reproduce names the folder it cannot create.
    let (code, _, err) = run(&["reproduce", "bobrik", "--png-dir", "/proc/x"]);
    one_line_error(code, &err);
    assert!(err.contains("/proc/x"), "{err}");
    // A file name with a newline stays on one line.
    let (code, _, err) = run(&["info", "a\nb.txt"]);
    one_line_error(code, &err);
    assert!(err.contains("a\\nb.txt"), "{err}");
    // DOT: end of file on the last line; a weight shown whole.
    let p = write(&d, "a.dot", b"graph {\n a -- b\n");
    let (code, _, err) = run(&["info", &p]);
    one_line_error(code, &err);
    assert!(
        err.contains("a.dot:2: expected `}`, found end of file"),
        "{err}"
    );
    let p = write(&d, "w.dot", b"graph {\n a -- b [weight=1e400]\n}\n");
    let (code, _, err) = run(&["info", &p]);
    one_line_error(code, &err);
    assert!(
        err.contains(
            "w.dot:2: expected weight to be a non-negative number of bytes, found `1e400`"
        ),
        "{err}"
    );
    // DOT numbering: numeric names keep their ids next to named nodes.
    let p = write(&d, "n.dot", b"graph { 2 -- b; a -- 0 }\n");
    let (code, out, err) = run(&["info", &p, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["processes"], 5);
    // The edge list's process cap says why.
    let p = write(&d, "cap.txt", b"0 99999999999\n");
    let (code, _, err) = run(&["info", &p]);
    one_line_error(code, &err);
    assert!(err.contains("hopmap allows 64 per byte of input"), "{err}");
    // Ranges are written "0 to 2".
    let g = write(&d, "g.txt", b"0 1 5\n");
    let m = write(&d, "m.txt", b"0 0\n0 3\n");
    let (code, _, err) = run(&["eval", &g, "-t", "torus:3x3", "--mapping", &m]);
    one_line_error(code, &err);
    assert!(
        err.contains("m.txt:2: expected coordinate y from 0 to 2"),
        "{err}"
    );
    assert!(!err.contains(".."), "{err}");
    // Mapping-file errors name a real line (the old ones said line 0).
    for (body, want) in [
        (
            &b"# hopmap mapping: 2 processes on torus:3x3; rank node core\n0 0 0\n"[..],
            "m2.txt:2: expected 2 ranks",
        ),
        (
            b"# hopmap mapping: 2 processes on torus:3x3; rank node core\n0 0 0\n1 9 0\n",
            "m2.txt:3: expected rank 1's node from 0 to 8",
        ),
        (
            b"# hopmap mapping: 2 processes on torus:3x3; rank node core\n0 4 0\n1 4 0\n",
            "m2.txt:3: expected one rank per slot, found ranks 0 (line 2) and 1",
        ),
        (
            b"# hopmap mapping: 2 processes on torus:3x3; rank node core\n1 0 0\n3 0 0\n",
            "m2.txt:3: expected every rank from 0 to the largest (3), found rank 0 missing",
        ),
    ] {
        let m = write(&d, "m2.txt", body);
        let (code, _, err) = run(&["eval", &g, "-t", "torus:3x3", "--mapping", &m]);
        one_line_error(code, &err);
        assert!(err.contains(want), "{err}");
    }
    // generate says "with coordinates" only when the file keeps them.
    let s = d.join("s.mtx");
    let (code, _, err) = run(&["generate", "unstructured:16", "-o", s.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        !err.contains("with coordinates") && err.contains("coordinates are not kept"),
        "{err}"
    );
    let s = d.join("s.dot");
    let (code, _, err) = run(&["generate", "unstructured:16", "-o", s.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(err.contains("with coordinates"), "{err}");
    // An empty graph has 0 bytes, not -0.
    let e = write(
        &d,
        "e.mtx",
        b"%%MatrixMarket matrix coordinate real general\n3 3 0\n",
    );
    let (code, out, err) = run(&["info", &e]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" 0 B") && !out.contains("-0"), "{out}");
    // compare on a network too small: one line.
    let u = d.join("u.mtx");
    let (code, _, _) = run(&["generate", "stencil:4x4", "-o", u.to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, out, err) = run(&["compare", u.to_str().unwrap(), "--topology", "torus:2x2"]);
    one_line_error(code, &err);
    assert_eq!(
        err.trim_end(),
        "error: 16 processes do not fit in 4 slots of torus:2x2"
    );
    assert!(out.is_empty(), "{out}");
    std::fs::remove_dir_all(&d).ok();
}

/// Every file hopmap writes goes through `io::atomic`: no other code in
/// any crate's src/ (outside test modules) creates or writes files directly.
#[test]
fn every_writer_uses_the_atomic_helper() {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for src in ["src", "crates/hopmap-core/src", "crates/hopmap-app/src"] {
        walk(&root.join(src), &mut files);
    }
    assert!(files.len() > 100);
    let banned = [
        "File::create",
        "fs::write(",
        "OpenOptions::new()",
        "save_buffer(",
        ".save(path",
        "to_io_writer",
    ];
    let mut found = Vec::new();
    for f in &files {
        if f.ends_with("io/atomic.rs") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        // Test modules sit at the end of a file.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, l) in code.lines().enumerate() {
            if l.trim_start().starts_with("//") {
                continue;
            }
            if banned.iter().any(|b| l.contains(b)) {
                found.push(format!("{}:{}: {}", f.display(), i + 1, l.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "writes that bypass io::atomic:\n{}",
        found.join("\n")
    );
}
