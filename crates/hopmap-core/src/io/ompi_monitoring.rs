//! Open MPI monitoring output: the `.prof` files of the `pml`, `coll` and
//! `osc` monitoring components (Open MPI 4.1 and 5), read as one graph.
//!
//! A run with `pml_monitoring_enable 2`, `pml_monitoring_enable_output 3`
//! and `pml_monitoring_filename DIR/prof` (or the same through
//! `OMPI_MCA_pml_monitoring_*` environment variables, as `hopmap capture`
//! sets them) leaves one file `DIR/prof.<rank>.prof` per rank of
//! `MPI_COMM_WORLD`, written at `MPI_Finalize`. A program that flushes
//! through the `pml_monitoring_flush` MPI_T variable writes
//! `<name>.<rank>.prof` for every `<name>` it writes to the variable: each
//! such name is a **phase**. (`aggregate_profile` concatenates one phase's
//! files into `<name>.prof`; that single file reads too.)
//!
//! Each file has three sections; every data line is tab-separated:
//!
//! | section | line | meaning (checked on Debian's Open MPI 4.1.4) |
//! |---|---|---|
//! | `# POINT TO POINT` | `E src dst B bytes n msgs sent hist` | the application's own point-to-point messages `src → dst` (tag ≥ 0) |
//! | | `I src dst B bytes n msgs sent [hist]` | point-to-point messages of Open MPI's collective algorithms (negative tags) |
//! | `# OSC` | `S src dst B bytes n msgs sent` | one-sided traffic `src` sent to `dst` (`MPI_Put`, `MPI_Accumulate`; a `MPI_Get` request counts one empty message) |
//! | | `R src dst B bytes n msgs sent` | one-sided traffic `src` received from `dst` (`MPI_Get`): bytes `dst → src` |
//! | `# COLLECTIVES` | `C src dst B bytes n msgs sent` | the collectives' own account of what `src` sent `dst` (the coll component; the messages are the `I` lines) |
//! | | `D name procs: r,…` then `O2A`/`A2O`/`A2A rank B bytes n msgs sent` | per communicator: one-to-all, all-to-one and all-to-all collective bytes of this rank |
//!
//! `hist` is a message-size histogram of 66 comma-separated counts (see
//! [`crate::graph::SIZE_HISTOGRAM_BUCKETS`]). Open MPI keeps one per peer
//! for *all* point-to-point messages to it (application and internal
//! alike) and prints it once: on the `E` line, or on the `I` line when
//! there is no `E` line for that peer. With `pml_monitoring_enable 1`
//! there are no `I` lines and the `E` lines hold both kinds; the letters
//! also meant other things in older sources, so check a new version with a
//! program of known pattern (as `tests/core/ompi_capture.rs` does).
//!
//! [`Traffic`] picks what becomes the graph: `app` (`E`, the default),
//! `internal` (`I`), `collectives` (`C`), `osc` (`S`, and `R` reversed) or
//! `all` (`E` + `I` + `S` + `R`; not `C`, which recounts the `I` messages).
//! The graph is directed (bytes per direction) and keeps the message
//! counts of the chosen lines; the histogram, the totals of what was left
//! out and the phases go into its [`SourceInfo`].
//!
//! Checks, each an [`Error::Parse`] naming the file and line: a line that
//! does not parse or sits in the wrong section; a line of another rank in
//! a rank's file; a peer or communicator member past the run's last rank;
//! a rank with no file; files of runs of different sizes mixed (by the
//! `MPI_COMM_WORLD` size the files record, or the phases' rank counts).
//! Cost: O(bytes) time; memory O(lines), never a size a file claims.

use crate::error::{Error, Result};
use crate::graph::{CommGraph, GraphBuilder, SIZE_HISTOGRAM_BUCKETS, SourceInfo};
use crate::io::text;
use crate::units::fmt_bytes_exact as fmt_bytes;
use std::path::{Path, PathBuf};

/// Which traffic of a monitored run becomes the graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Traffic {
    /// The application's own point-to-point messages (`E` lines).
    #[default]
    App,
    /// Point-to-point messages of Open MPI's collective algorithms (`I` lines).
    Internal,
    /// The collectives as the coll component accounts them (`C` lines).
    Collectives,
    /// One-sided communication (`S` lines, `R` lines reversed).
    Osc,
    /// Everything that was sent: `E` + `I` + `S` + `R`.
    All,
}

impl Traffic {
    pub const ALL: [Traffic; 5] = [
        Traffic::App,
        Traffic::Internal,
        Traffic::Collectives,
        Traffic::Osc,
        Traffic::All,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Traffic::App => "app",
            Traffic::Internal => "internal",
            Traffic::Collectives => "collectives",
            Traffic::Osc => "osc",
            Traffic::All => "all",
        }
    }

    /// One line: what this choice reads.
    pub fn describe(self) -> &'static str {
        match self {
            Traffic::App => "the application's own point-to-point messages (E lines)",
            Traffic::Internal => {
                "point-to-point messages of Open MPI's collective algorithms (I lines)"
            }
            Traffic::Collectives => "collectives as the coll component counts them (C lines)",
            Traffic::Osc => "one-sided communication (S lines, R lines reversed)",
            Traffic::All => "all messages sent: E + I + S + R lines",
        }
    }

    /// Parse a command-line name.
    pub fn parse(s: &str) -> Option<Traffic> {
        Traffic::ALL.into_iter().find(|t| t.name() == s)
    }

    fn takes(self, kind: Kind) -> bool {
        match self {
            Traffic::App => kind == Kind::E,
            Traffic::Internal => kind == Kind::I,
            Traffic::Collectives => kind == Kind::C,
            Traffic::Osc => matches!(kind, Kind::S | Kind::R),
            Traffic::All => kind != Kind::C,
        }
    }
}

impl std::fmt::Display for Traffic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The kinds of per-peer lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    E,
    I,
    S,
    R,
    C,
}

impl Kind {
    const ALL: [Kind; 5] = [Kind::E, Kind::I, Kind::S, Kind::R, Kind::C];
    fn index(self) -> usize {
        self as usize
    }
    fn letter(self) -> &'static str {
        ["E", "I", "S", "R", "C"][self.index()]
    }
    fn what(self) -> &'static str {
        [
            "application point-to-point",
            "collective-internal point-to-point",
            "one-sided sent",
            "one-sided received",
            "collectives (coll account)",
        ][self.index()]
    }
}

/// One per-peer line.
#[derive(Clone, Copy, Debug)]
struct Entry {
    kind: Kind,
    src: u32,
    dst: u32,
    bytes: u64,
    msgs: u64,
}

/// A rank file of a phase.
#[derive(Clone, Debug)]
struct RankFile {
    rank: usize,
    path: PathBuf,
}

/// One phase: a name and its rank files (sorted by rank).
#[derive(Clone, Debug)]
struct Phase {
    name: String,
    files: Vec<RankFile>,
}

/// Everything read from one or more files.
#[derive(Default)]
struct Parsed {
    entries: Vec<Entry>,
    histogram: Vec<u64>,
    /// The `MPI_COMM_WORLD` size a file recorded: (size, file, line).
    world: Vec<(usize, u32, u32)>,
    /// Largest rank any line names, with where.
    max_rank: Option<(usize, u32, u32)>,
    /// O2A, A2O, A2A bytes and messages.
    per_comm: [(u128, u128); 3],
    paths: Vec<PathBuf>,
}

/// Whether `path` names Open MPI monitoring output: a folder (the only
/// graph input that is one), a `.prof` file, or a prefix `P` with a
/// `P.0.prof` file.
pub fn is_monitoring_path(path: &Path) -> bool {
    if path.is_dir() {
        return true;
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("prof"))
    {
        return true;
    }
    !path.exists() && prefix_file(path, 0).is_file()
}

/// `P.<rank>.prof` for a prefix `P`.
fn prefix_file(prefix: &Path, rank: usize) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(format!(".{rank}.prof"));
    PathBuf::from(s)
}

/// `name.<rank>.prof` → `(name, rank)`.
fn split_rank_name(file_name: &str) -> Option<(&str, usize)> {
    let stem = file_name.strip_suffix(".prof")?;
    let dot = stem.rfind('.')?;
    let (name, digits) = (&stem[..dot], &stem[dot + 1..]);
    if name.is_empty()
        || digits.is_empty()
        || digits.len() > 9
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((name, digits.parse().ok()?))
}

/// The phases of a folder: every `name` with `name.<rank>.prof` files,
/// in natural order (`phase_2` before `phase_10`).
fn scan_dir(dir: &Path) -> Result<Vec<Phase>> {
    let mut phases: Vec<Phase> = Vec::new();
    let rd = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    for entry in rd {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let fname = entry.file_name();
        let Some(fname) = fname.to_str() else {
            continue;
        };
        let Some((name, rank)) = split_rank_name(fname) else {
            continue;
        };
        let file = RankFile {
            rank,
            path: entry.path(),
        };
        match phases.iter_mut().find(|p| p.name == name) {
            Some(p) => p.files.push(file),
            None => phases.push(Phase {
                name: name.to_string(),
                files: vec![file],
            }),
        }
    }
    phases.sort_by_key(|a| natural_key(&a.name));
    for p in &mut phases {
        p.files.sort_by_key(|f| f.rank);
    }
    Ok(phases)
}

/// Sort key: the text with every digit run compared as a number.
fn natural_key(s: &str) -> Vec<(String, u128)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num: Option<u128> = None;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            num = Some(
                num.unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(d as u128),
            );
        } else {
            if let Some(n) = num.take() {
                out.push((std::mem::take(&mut text), n));
            }
            text.push(c);
        }
    }
    out.push((text, num.unwrap_or(0)));
    out
}

/// Read Open MPI monitoring output as one graph: `path` is a folder, a
/// prefix (`DIR/prof` for `DIR/prof.<rank>.prof`), one rank's file (its
/// whole phase is read), or a single aggregated `.prof` file. `phase`
/// picks one phase of a folder by name (`None` or `"all"`: all phases,
/// summed).
pub fn read(path: &Path, traffic: Traffic, phase: Option<&str>) -> Result<CommGraph> {
    let phase = phase.filter(|p| *p != "all");
    let (phases, chosen): (Vec<Phase>, Option<String>) = if path.is_dir() {
        let phases = scan_dir(path)?;
        if phases.is_empty() {
            return Err(Error::parse(
                path,
                1,
                "expected Open MPI monitoring files (`NAME.<rank>.prof`) in this folder, found \
                 none; run with `--mca pml_monitoring_enable 2 --mca \
                 pml_monitoring_enable_output 3 --mca pml_monitoring_filename DIR/prof` (or \
                 `hopmap capture`)",
            ));
        }
        (phases, phase.map(str::to_string))
    } else {
        let fname = path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or_default();
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = if let Some((name, _)) = split_rank_name(fname) {
            name.to_string()
        } else if !path.exists() && prefix_file(path, 0).is_file() {
            fname.to_string()
        } else {
            // One aggregated file: every rank's lines in one.
            let bytes = crate::io::read_bytes(path)?;
            return parse(&bytes, path, traffic);
        };
        if let Some(p) = phase
            && p != name
        {
            return Err(Error::parse(
                path,
                1,
                format!(
                    "expected phase `{p}` (as asked), found a file of phase `{name}`; pass the \
                     folder to pick a phase"
                ),
            ));
        }
        let phases = scan_dir(&dir)?;
        (phases, Some(name))
    };
    let names: Vec<String> = phases.iter().map(|p| p.name.clone()).collect();
    let selected: Vec<&Phase> = match &chosen {
        Some(c) => match phases.iter().find(|p| &p.name == c) {
            Some(p) => vec![p],
            None => {
                return Err(Error::parse(
                    path,
                    1,
                    format!(
                        "expected phase `{c}`, found only {}",
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        },
        None => phases.iter().collect(),
    };
    // Every phase must be complete and of one run size.
    let mut n_run: Option<(usize, &str)> = None;
    let mut parsed = Parsed::default();
    for ph in &selected {
        let n = check_ranks(ph)?;
        if let Some((m, other)) = n_run
            && m != n
        {
            return Err(Error::parse(
                &ph.files[0].path,
                1,
                format!(
                    "expected files of one run, found two mixed in one folder: `{other}` has {m} \
                     ranks, `{}` has {n}; pass one prefix or one of its files",
                    ph.name
                ),
            ));
        }
        n_run = Some((n, &ph.name));
        for f in &ph.files {
            let bytes = crate::io::read_bytes(&f.path)?;
            parse_into(&mut parsed, &bytes, &f.path, Some(f.rank))?;
        }
    }
    let n = n_run.map_or(0, |(n, _)| n);
    check_run(&parsed, n)?;
    let mut g = build(&parsed, n, traffic, path)?;
    let info = g.source().cloned().unwrap_or_default();
    let mut info = info;
    info.phases = names.clone();
    info.phase = if selected.len() == 1 && names.len() > 1 {
        Some(selected[0].name.clone())
    } else {
        None
    };
    if names.len() > 1 {
        info.notes.push(match &info.phase {
            Some(p) => format!("phase `{p}` of {} ({})", names.len(), names.join(", ")),
            None => format!(
                "all {} phases summed ({}); pick one with --phase NAME",
                names.len(),
                names.join(", ")
            ),
        });
    }
    g = g.with_source(info)?;
    Ok(g)
}

/// The rank count of a phase; every rank from 0 to the last must have a file.
fn check_ranks(ph: &Phase) -> Result<usize> {
    let last = ph.files.last().map_or(0, |f| f.rank);
    for (want, f) in ph.files.iter().enumerate() {
        if f.rank != want {
            let dir = f.path.parent().unwrap_or(Path::new("."));
            let missing = dir.join(format!("{}.{want}.prof", ph.name));
            return Err(Error::parse(
                &missing,
                1,
                format!(
                    "expected this file: phase `{}` has files up to rank {last}, but none for \
                     rank {want} (deleted, or the run stopped early)",
                    ph.name
                ),
            ));
        }
    }
    Ok(last + 1)
}

/// Checks after all files are parsed: every rank named is below `n`, and
/// every recorded `MPI_COMM_WORLD` size is `n`.
fn check_run(p: &Parsed, n: usize) -> Result<()> {
    if let Some((r, f, line)) = p.max_rank
        && r >= n
    {
        return Err(Error::parse(
            &p.paths[f as usize],
            line as usize,
            format!(
                "expected ranks 0 to {} (the run's files), found rank {r}: a rank's file is \
                 missing, or files of two runs are mixed",
                n.saturating_sub(1)
            ),
        ));
    }
    if let Some(&(w, f, line)) = p.world.iter().find(|(w, _, _)| *w != n) {
        return Err(Error::parse(
            &p.paths[f as usize],
            line as usize,
            format!(
                "expected MPI_COMM_WORLD of {n} ranks (one file each), found {w}: files of two \
                 runs are mixed, or some are missing"
            ),
        ));
    }
    Ok(())
}

/// Parse one aggregated `.prof` file (all ranks' lines) from memory.
/// The run has as many ranks as its `MPI_COMM_WORLD` line says, else the
/// largest rank named plus one.
pub fn parse(bytes: &[u8], path: &Path, traffic: Traffic) -> Result<CommGraph> {
    let mut p = Parsed::default();
    parse_into(&mut p, bytes, path, None)?;
    let n = match (p.world.first(), p.max_rank) {
        (Some(&(w, _, _)), _) => w,
        (None, Some((r, _, _))) => r + 1,
        (None, None) => 0,
    };
    check_run(&p, n)?;
    build(&p, n, traffic, path)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    P2p,
    Osc,
    Coll,
}

/// Parse one file's lines into `p`. `rank`: the rank the file name says
/// (every line must be of it), `None` for an aggregated file.
fn parse_into(p: &mut Parsed, bytes: &[u8], path: &Path, rank: Option<usize>) -> Result<()> {
    let file = p.paths.len() as u32;
    p.paths.push(path.to_path_buf());
    if p.histogram.is_empty() {
        p.histogram = vec![0; SIZE_HISTOGRAM_BUCKETS];
    }
    let limit = text::process_limit(bytes.len()).max(rank.map_or(0, |r| r + 1));
    let mut section = Section::None;
    let mut any = false;
    let mut block_rank: Option<usize> = rank;
    for (ln, line) in text::Lines::new(bytes) {
        let at = |msg: String| Error::parse(path, ln, msg);
        if text::is_blank(line) {
            continue;
        }
        let t = text::trim(line);
        if t.starts_with(b"#") {
            let head = String::from_utf8_lossy(t[1..].trim_ascii());
            section = match head.as_ref() {
                "POINT TO POINT" => {
                    if rank.is_none() {
                        block_rank = None;
                    }
                    Section::P2p
                }
                "OSC" => Section::Osc,
                "COLLECTIVES" => Section::Coll,
                _ => {
                    return Err(at(format!(
                        "expected a section header `# POINT TO POINT`, `# OSC` or \
                         `# COLLECTIVES`, found {}",
                        text::show(t)
                    )));
                }
            };
            any = true;
            continue;
        }
        if section == Section::None {
            return Err(at(format!(
                "expected Open MPI monitoring output starting with `# POINT TO POINT`, found {}",
                text::show(t)
            )));
        }
        let letter = t[..letter_len(t)].trim_ascii();
        let kind = match letter {
            b"E" => Some(Kind::E),
            b"I" => Some(Kind::I),
            b"S" => Some(Kind::S),
            b"R" => Some(Kind::R),
            b"C" => Some(Kind::C),
            _ => None,
        };
        let want = match kind {
            Some(Kind::E | Kind::I) => Section::P2p,
            Some(Kind::S | Kind::R) => Section::Osc,
            Some(Kind::C) => Section::Coll,
            None => Section::Coll,
        };
        if let Some(kind) = kind {
            if section != want {
                return Err(at(format!(
                    "expected `{}` lines only in the `{}` section, found one in `{}`",
                    kind.letter(),
                    section_name(want),
                    section_name(section)
                )));
            }
            let rest: Vec<&[u8]> = text::Fields::new(&t[letter.len()..], false).collect();
            // src dst B bytes n msgs sent [hist]
            let ok_words =
                rest.len() >= 7 && rest[3] == b"bytes" && rest[5] == b"msgs" && rest[6] == b"sent";
            if !ok_words || rest.len() > 8 {
                return Err(at(format!(
                    "expected `{} SRC DST B bytes N msgs sent[ HISTOGRAM]`, found {}",
                    kind.letter(),
                    text::show(t)
                )));
            }
            let num = |tok: &[u8], what: &str| {
                text::parse_u64(tok).ok_or_else(|| {
                    at(format!(
                        "expected {what} (a whole number), found {}",
                        text::show(tok)
                    ))
                })
            };
            let src = num(rest[0], "the sending rank")?;
            let dst = num(rest[1], "the peer rank")?;
            let b = num(rest[2], "a byte count")?;
            let m = num(rest[4], "a message count")?;
            for (r, what) in [(src, "sending rank"), (dst, "peer rank")] {
                if r >= limit as u64 {
                    return Err(at(format!(
                        "expected a {what} below {limit}, found {r} ({})",
                        text::limit_reason(bytes.len())
                    )));
                }
            }
            let (src, dst) = (src as usize, dst as usize);
            match block_rank {
                Some(r) if r != src => {
                    return Err(at(format!(
                        "expected lines of rank {r} ({}), found one of rank {src}: files of two \
                         runs mixed, or renamed",
                        if rank.is_some() {
                            "the rank in the file name"
                        } else {
                            "the rank of this block's earlier lines"
                        }
                    )));
                }
                None => block_rank = Some(src),
                _ => {}
            }
            if let Some(h) = rest.get(7) {
                if !matches!(kind, Kind::E | Kind::I) {
                    return Err(at(format!(
                        "expected no histogram on `{}` lines, found {}",
                        kind.letter(),
                        text::show(h)
                    )));
                }
                add_histogram(&mut p.histogram, h).map_err(at)?;
            }
            note_rank(p, src.max(dst), file, ln);
            if p.entries.try_reserve(1).is_err() {
                return Err(at(
                    "expected a file that fits in memory, found more lines than do".into(),
                ));
            }
            p.entries.push(Entry {
                kind,
                src: src as u32,
                dst: dst as u32,
                bytes: b,
                msgs: m,
            });
            continue;
        }
        // Collectives section: D, O2A, A2O, A2A.
        if section != Section::Coll {
            return Err(at(format!(
                "expected a line starting with {}, found {}",
                if section == Section::P2p {
                    "`E` or `I`"
                } else {
                    "`S` or `R`"
                },
                text::show(t)
            )));
        }
        match letter {
            b"D" => {
                // D <TAB> name <TAB> procs: 0,1,2
                let tf: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
                let procs = tf
                    .last()
                    .and_then(|f| f.trim_ascii().strip_prefix(b"procs:"));
                let (Some(procs), true) = (procs, tf.len() >= 3) else {
                    return Err(at(format!(
                        "expected `D<TAB>NAME<TAB>procs: RANK,RANK,…`, found {}",
                        text::show(t)
                    )));
                };
                let name = tf[1].trim_ascii();
                let mut count = 0usize;
                for tok in procs.split(|&b| b == b',') {
                    let tok = tok.trim_ascii();
                    if tok.is_empty() && count == 0 {
                        continue;
                    }
                    let r = text::parse_u64(tok)
                        .filter(|&r| r < limit as u64)
                        .ok_or_else(|| {
                            at(format!(
                                "expected a communicator member rank below {limit}, found {}",
                                text::show(tok)
                            ))
                        })?;
                    note_rank(p, r as usize, file, ln);
                    count += 1;
                }
                if name == b"MPI_COMM_WORLD" {
                    p.world
                        .push((count, file, ln.min(u32::MAX as usize) as u32));
                }
            }
            b"O2A" | b"A2O" | b"A2A" => {
                let rest: Vec<&[u8]> = text::Fields::new(&t[3..], false).collect();
                if rest.len() != 6
                    || rest[2] != b"bytes"
                    || rest[4] != b"msgs"
                    || rest[5] != b"sent"
                {
                    return Err(at(format!(
                        "expected `{} RANK B bytes N msgs sent`, found {}",
                        String::from_utf8_lossy(letter),
                        text::show(t)
                    )));
                }
                let vals: Vec<Option<u64>> = [rest[0], rest[1], rest[3]]
                    .iter()
                    .map(|t| text::parse_u64(t))
                    .collect();
                let (Some(r), Some(b), Some(m)) = (vals[0], vals[1], vals[2]) else {
                    return Err(at(format!(
                        "expected whole numbers in `{} RANK B bytes N msgs sent`, found {}",
                        String::from_utf8_lossy(letter),
                        text::show(t)
                    )));
                };
                if let Some(br) = block_rank
                    && br as u64 != r
                {
                    return Err(at(format!(
                        "expected lines of rank {br}, found one of rank {r}: files of two runs \
                         mixed, or renamed"
                    )));
                }
                let k = match letter {
                    b"O2A" => 0,
                    b"A2O" => 1,
                    _ => 2,
                };
                p.per_comm[k].0 += b as u128;
                p.per_comm[k].1 += m as u128;
            }
            _ => {
                return Err(at(format!(
                    "expected a line starting with `C`, `D`, `O2A`, `A2O` or `A2A`, found {}",
                    text::show(t)
                )));
            }
        }
    }
    if !any {
        return Err(Error::parse(
            path,
            text::eof_line(bytes).max(1),
            "expected Open MPI monitoring output starting with `# POINT TO POINT`, found an \
             empty file (did the run stop before MPI_Finalize?)",
        ));
    }
    Ok(())
}

fn letter_len(line: &[u8]) -> usize {
    line.iter()
        .position(|&b| b == b'\t' || b == b' ')
        .unwrap_or(line.len())
}

fn section_name(s: Section) -> &'static str {
    match s {
        Section::None => "(none)",
        Section::P2p => "# POINT TO POINT",
        Section::Osc => "# OSC",
        Section::Coll => "# COLLECTIVES",
    }
}

fn note_rank(p: &mut Parsed, r: usize, file: u32, line: usize) {
    if p.max_rank.is_none_or(|(m, _, _)| r > m) {
        p.max_rank = Some((r, file, line.min(u32::MAX as usize) as u32));
    }
}

/// Add a `h0,h1,…,h65` histogram to `into`.
fn add_histogram(into: &mut [u64], tok: &[u8]) -> std::result::Result<(), String> {
    let mut k = 0;
    for part in tok.split(|&b| b == b',') {
        if k >= into.len() {
            return Err(format!(
                "expected a histogram of {} counts, found more",
                into.len()
            ));
        }
        let c = text::parse_u64(part).ok_or_else(|| {
            format!(
                "expected a histogram count (a whole number), found {}",
                text::show(part)
            )
        })?;
        into[k] = into[k].saturating_add(c);
        k += 1;
    }
    if k != into.len() {
        return Err(format!(
            "expected a histogram of {} counts, found {k}",
            into.len()
        ));
    }
    Ok(())
}

/// The graph of `traffic` over `n` ranks, with counts, histogram and notes.
fn build(p: &Parsed, n: usize, traffic: Traffic, path: &Path) -> Result<CommGraph> {
    let mut totals = [(0u128, 0u128); 5];
    for e in &p.entries {
        let t = &mut totals[e.kind.index()];
        t.0 += e.bytes as u128;
        t.1 += e.msgs as u128;
    }
    let taken: Vec<&Entry> = p.entries.iter().filter(|e| traffic.takes(e.kind)).collect();
    let mut b = GraphBuilder::with_capacity(n, true, taken.len());
    // `R` lines: `src` received from `dst`, so the bytes went dst → src.
    let ends = |e: &Entry| {
        if e.kind == Kind::R {
            (e.dst as usize, e.src as usize)
        } else {
            (e.src as usize, e.dst as usize)
        }
    };
    for e in &taken {
        let (u, v) = ends(e);
        b.add(u, v, e.bytes as f64);
    }
    let g = b.build().map_err(|e| match e {
        Error::Unsupported(m) => Error::parse(path, 1, m),
        e => e,
    })?;
    let msgs = g.align_counts(taken.iter().map(|e| {
        let (u, v) = ends(e);
        (u, v, e.msgs as f64)
    }));
    let mut notes = vec![format!(
        "Open MPI monitoring, {n} ranks; the graph is {} (--traffic {}), directed: bytes per direction",
        traffic.describe(),
        traffic.name()
    )];
    let left: Vec<String> = Kind::ALL
        .iter()
        .filter(|k| !traffic.takes(**k) && totals[k.index()].1 > 0)
        .map(|k| {
            let (b, m) = totals[k.index()];
            format!(
                "{} {} in {m} messages ({})",
                k.letter(),
                fmt_bytes(b as f64),
                k.what()
            )
        })
        .collect();
    if !left.is_empty() {
        notes.push(format!("left out: {}", left.join("; ")));
    }
    if totals[Kind::I.index()].1 == 0 && totals[Kind::C.index()].1 > 0 && traffic == Traffic::App {
        notes.push(
            "no I lines although collectives ran: if the run used pml_monitoring_enable 1 \
             (not 2), the E lines also hold the collectives' messages"
                .into(),
        );
    }
    let pc = &p.per_comm;
    if pc.iter().any(|(_, m)| *m > 0) {
        notes.push(format!(
            "collectives per communicator: one-to-all {}, all-to-one {}, all-to-all {}",
            fmt_bytes(pc[0].0 as f64),
            fmt_bytes(pc[1].0 as f64),
            fmt_bytes(pc[2].0 as f64)
        ));
    }
    if matches!(traffic, Traffic::App | Traffic::Internal | Traffic::All) {
        notes.push(
            "message sizes: Open MPI keeps one histogram for all point-to-point messages \
             (application and collective-internal alike)"
                .into(),
        );
    }
    let histogram = match traffic {
        Traffic::Collectives | Traffic::Osc => None,
        _ => Some(p.histogram.clone()),
    };
    g.with_source(SourceInfo {
        msgs: Some(msgs),
        size_histogram: histogram.filter(|h| !h.is_empty()),
        notes,
        phases: Vec::new(),
        phase: None,
    })
}

/// Whether `bytes` look like monitoring output (first non-blank line is
/// `# POINT TO POINT`).
pub fn looks_like(bytes: &[u8]) -> bool {
    text::Lines::new(bytes)
        .map(|(_, l)| text::trim(l))
        .find(|l| !l.is_empty())
        .is_some_and(|l| l == b"# POINT TO POINT")
}

/// Write `g` as one aggregated monitoring file (`# POINT TO POINT` with an
/// `E` line per directed message, bytes and message count): what
/// `hopmap capture -o X.prof` keeps, readable again with its counts.
/// Bytes are whole numbers here: a directed graph's are rounded (to at
/// least 1, so that no message is lost: a line of 0 bytes reads as none);
/// a symmetric graph's pair volume goes whole on the `u → v` line (`u < v`),
/// so that pair volumes survive exactly.
pub fn write(w: &mut (impl std::io::Write + ?Sized), g: &CommGraph) -> std::io::Result<()> {
    let counts = g.msg_counts();
    let off = g.offsets();
    let directed = g.is_directed();
    for u in 0..g.n() {
        writeln!(w, "# POINT TO POINT")?;
        for (k, (&v, &s)) in g.neighbors(u).iter().zip(g.sent_row(u)).enumerate() {
            let bytes = if directed {
                s
            } else if (v as usize) > u {
                g.volume(u, v as usize)
            } else {
                0.0
            };
            if bytes <= 0.0 {
                continue;
            }
            let m = counts.map_or(1.0, |c| c[off[u] + k]).max(1.0);
            writeln!(
                w,
                "E\t{u}\t{v}\t{:.0} bytes\t{:.0} msgs sent",
                bytes.round().max(1.0),
                m.round()
            )?;
        }
        writeln!(w, "# OSC")?;
        writeln!(w, "# COLLECTIVES")?;
        if u == 0 {
            let procs: Vec<String> = (0..g.n()).map(|r| r.to_string()).collect();
            writeln!(w, "D\tMPI_COMM_WORLD\tprocs: {}", procs.join(","))?;
        }
    }
    Ok(())
}
