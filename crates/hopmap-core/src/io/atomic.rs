//! Atomic file writes: every file hopmap writes goes through here.
//!
//! The content is written to a temporary file in the destination's folder
//! (`.NAME.hopmap-tmp-PID-K`), flushed and synced, and only then renamed
//! over the destination. A write that fails part-way (full disk, a closed
//! device, an error in the writer) removes the temporary file and leaves the
//! old destination untouched: a reader sees either the old file or the whole
//! new one, never a truncated one. Rename within one folder is atomic on
//! POSIX file systems.
//!
//! [`AtomicBatch`] extends this to several files that belong together (a
//! graph and its `--coords-out`): all are written to temporaries first, and
//! renamed only when every one was written, so one failure leaves none of
//! them half-done.
//!
//! [`same_file`] answers "is this output path one of the inputs?", so that a
//! command refuses to overwrite the file it reads.

use crate::error::{Error, Result};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A path shown in a message: control characters (a newline in a file name)
/// escaped, so that every message stays on one line.
pub fn show_path(p: &Path) -> String {
    crate::error::show_path(p)
}

/// A fresh temporary path beside `path`.
fn temp_path(path: &Path) -> Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "expected a file name, found a folder or an empty path",
            ),
        )
    })?;
    let k = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(".hopmap-tmp-{}-{k}", std::process::id()));
    Ok(path.with_file_name(tmp))
}

/// Write `path` atomically: `fill` writes the content into a buffered
/// temporary file beside it, which then replaces `path` by a rename. On any
/// error the temporary is removed and `path` is unchanged. Errors name `path`.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    match target(path)? {
        Target::Special => write_direct(path, fill),
        Target::File(dest) => {
            let tmp = write_temp(&dest, path, fill)?;
            commit(&tmp, &dest, path)
        }
    }
}

/// Where a write goes: a regular file (through a temporary and a rename),
/// or a special file that exists already — a device such as `/dev/null`,
/// a FIFO — which is written directly (it cannot be replaced, and must not).
enum Target {
    File(PathBuf),
    Special,
}

/// A symbolic link is followed, so that the rename replaces the file it
/// points to and not the link.
fn target(path: &Path) -> Result<Target> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            if m.is_dir() {
                return Err(Error::io(
                    path,
                    std::io::Error::new(
                        std::io::ErrorKind::IsADirectory,
                        "expected a file, found a folder",
                    ),
                ));
            }
            Ok(Target::Special)
        }
        Ok(_) => {
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            if is_link {
                Ok(Target::File(
                    std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?,
                ))
            } else {
                Ok(Target::File(path.to_path_buf()))
            }
        }
        Err(_) => Ok(Target::File(path.to_path_buf())),
    }
}

fn write_direct(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let mut w = BufWriter::new(file);
    fill(&mut w)
        .and_then(|_| w.flush())
        .map_err(|e| Error::io(path, e))
}

/// [`write_atomic`] of a byte buffer.
pub fn write_bytes_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic(path, |w| w.write_all(bytes))
}

/// Write the temporary beside `dest`; errors name `shown` (the path the
/// user gave).
/// Encode raw pixels (`color`: Rgb8, Rgba8…) as a PNG and write it
/// atomically.
pub fn write_png(
    path: &Path,
    width: u32,
    height: u32,
    raw: &[u8],
    color: image::ExtendedColorType,
) -> Result<()> {
    write_atomic(path, |w| {
        let enc = image::codecs::png::PngEncoder::new(w);
        image::ImageEncoder::write_image(enc, raw, width, height, color)
            .map_err(std::io::Error::other)
    })
}

fn write_temp(
    dest: &Path,
    shown: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<PathBuf> {
    let path = shown;
    let tmp = temp_path(dest)?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| Error::io(path, e))?;
    let mut w = BufWriter::new(file);
    let r = fill(&mut w)
        .and_then(|_| w.flush())
        .and_then(|_| w.get_ref().sync_all());
    drop(w);
    match r {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(Error::io(path, e))
        }
    }
}

fn commit(tmp: &Path, dest: &Path, shown: &Path) -> Result<()> {
    std::fs::rename(tmp, dest).map_err(|e| {
        let _ = std::fs::remove_file(tmp);
        Error::io(shown, e)
    })
}

/// Several files written together: each [`AtomicBatch::add`] writes a
/// temporary; [`AtomicBatch::commit`] renames them all. Dropping the batch
/// without committing (an error in between) removes the temporaries.
#[derive(Default)]
pub struct AtomicBatch {
    /// (temporary, destination, the path as given).
    pending: Vec<(PathBuf, PathBuf, PathBuf)>,
}

impl AtomicBatch {
    pub fn new() -> Self {
        Self::default()
    }

    /// Write `path`'s content to a temporary now; rename it on commit.
    pub fn add(
        &mut self,
        path: &Path,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        match target(path)? {
            // A device or FIFO cannot be staged: it is written now.
            Target::Special => write_direct(path, fill),
            Target::File(dest) => {
                let tmp = write_temp(&dest, path, fill)?;
                self.pending.push((tmp, dest, path.to_path_buf()));
                Ok(())
            }
        }
    }

    /// Rename every temporary over its destination. The renames run only
    /// after every content was written; a rename can still fail (a folder
    /// removed meanwhile), and then the remaining temporaries are removed.
    pub fn commit(mut self) -> Result<()> {
        let pending = std::mem::take(&mut self.pending);
        let mut it = pending.into_iter();
        while let Some((tmp, dest, shown)) = it.next() {
            if let Err(e) = commit(&tmp, &dest, &shown) {
                for (t, _, _) in it {
                    let _ = std::fs::remove_file(t);
                }
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Drop for AtomicBatch {
    fn drop(&mut self) {
        for (tmp, _, _) in self.pending.drain(..) {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Whether `a` and `b` name the same existing file (same device and inode
/// on Unix; equal canonical paths elsewhere). False when either is missing.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
        false
    }
    #[cfg(not(unix))]
    {
        match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// Refuse to write an output over one of the inputs: `outputs` and
/// `inputs` are `(what, path)` pairs such as `("-o", …)`, `("GRAPH", …)`.
/// Two outputs naming one file are refused too.
pub fn check_outputs(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<()> {
    for (i, (ow, op)) in outputs.iter().enumerate() {
        for (iw, ip) in inputs {
            if same_file(op, ip) {
                return Err(Error::Unsupported(format!(
                    "{ow} {} is the input {iw}: refusing to overwrite it",
                    show_path(op)
                )));
            }
        }
        for (ow2, op2) in &outputs[i + 1..] {
            if op == op2 || same_file(op, op2) {
                return Err(Error::Unsupported(format!(
                    "{ow} and {ow2} name the same file {}",
                    show_path(op)
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hopmap-atomic-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn leftovers(d: &Path) -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("hopmap-tmp"))
            .collect()
    }

    #[test]
    fn failed_write_keeps_the_old_file() {
        let d = dir("keep");
        let p = d.join("out.txt");
        write_bytes_atomic(&p, b"old content\n").unwrap();
        let e = write_atomic(&p, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err()
        .to_string();
        assert!(e.ends_with("out.txt: disk full"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"old content\n");
        assert!(leftovers(&d).is_empty());
        write_bytes_atomic(&p, b"new\n").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        std::fs::remove_dir_all(&d).ok();
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_directly_and_links_followed() {
        use std::os::unix::fs::FileTypeExt;
        write_bytes_atomic(Path::new("/dev/null"), b"x").unwrap();
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
        let d = dir("link");
        let real = d.join("real.txt");
        std::fs::write(&real, b"old").unwrap();
        let link = d.join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_bytes_atomic(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn batch_renames_all_or_nothing() {
        let d = dir("batch");
        let (a, b) = (d.join("a"), d.join("b"));
        write_bytes_atomic(&a, b"A0").unwrap();
        write_bytes_atomic(&b, b"B0").unwrap();
        {
            let mut batch = AtomicBatch::new();
            batch.add(&a, |w| w.write_all(b"A1")).unwrap();
            assert!(
                batch
                    .add(&b, |_| Err(std::io::Error::other("boom")))
                    .is_err()
            );
            // Dropped without commit.
        }
        assert_eq!(std::fs::read(&a).unwrap(), b"A0");
        assert_eq!(std::fs::read(&b).unwrap(), b"B0");
        assert!(leftovers(&d).is_empty());
        let mut batch = AtomicBatch::new();
        batch.add(&a, |w| w.write_all(b"A2")).unwrap();
        batch.add(&b, |w| w.write_all(b"B2")).unwrap();
        batch.commit().unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"A2");
        assert_eq!(std::fs::read(&b).unwrap(), b"B2");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn same_file_and_output_checks() {
        let d = dir("same");
        let p = d.join("g.txt");
        std::fs::write(&p, b"0 1\n").unwrap();
        let q = d.join(".").join("g.txt");
        assert!(same_file(&p, &q));
        assert!(!same_file(&p, &d.join("missing")));
        let e = check_outputs(&[("-o", &q)], &[("GRAPH", &p)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("is the input GRAPH"), "{e}");
        let o = d.join("o.txt");
        let e = check_outputs(&[("-o", &o), ("--coords-out", &o)], &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("name the same file"), "{e}");
        check_outputs(&[("-o", &o)], &[("GRAPH", &p)]).unwrap();
        std::fs::remove_dir_all(&d).ok();
    }
}
