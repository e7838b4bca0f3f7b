//! Capture a run: the user's own Open MPI launch command, run with the
//! monitoring components switched on, and its output read as a graph
//! ([`super::ompi_monitoring`]).
//!
//! Monitoring is switched on through the environment, which `mpirun`
//! forwards to every rank (on every node): `OMPI_MCA_pml_monitoring_enable=2`
//! (application and collective-internal messages kept apart),
//! `OMPI_MCA_pml_monitoring_enable_output=3` (one file per rank) and
//! `OMPI_MCA_pml_monitoring_filename=DIR/prof`. `DIR` is a fresh folder
//! next to the output graph (ranks on other nodes write there, so it should
//! be on a file system they share; a `/tmp` folder would not be), removed
//! afterwards unless the caller keeps it.
//!
//! A run is complete only if the command exits with status 0 and every
//! rank wrote its file; otherwise there is no graph. Cost: the run, then
//! O(bytes of the files).

use crate::error::{Error, Result};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file-name prefix of the rank files in the raw folder.
pub const PREFIX: &str = "prof";

/// Launcher names `capture` accepts without `--any-launcher`.
pub const LAUNCHERS: [&str; 4] = ["mpirun", "mpiexec", "orterun", "oshrun"];

/// The environment that switches monitoring on, writing into `dir`.
pub fn monitoring_env(dir: &Path) -> Vec<(&'static str, std::ffi::OsString)> {
    vec![
        ("OMPI_MCA_pml_monitoring_enable", "2".into()),
        ("OMPI_MCA_pml_monitoring_enable_output", "3".into()),
        (
            "OMPI_MCA_pml_monitoring_filename",
            dir.join(PREFIX).into_os_string(),
        ),
    ]
}

/// Check that `program` is Open MPI's launcher: its name is one of
/// [`LAUNCHERS`] and `program --version` says "Open MPI". Returns the
/// version line. Errors say what to do instead.
pub fn check_launcher(program: &OsStr) -> Result<String> {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "srun" {
        return Err(Error::Unsupported(
            "expected Open MPI's mpirun as the command, found srun: monitoring files are \
             written by Open MPI's components; inside an allocation (salloc) run `hopmap \
             capture -o GRAPH -- mpirun -np N ./app`, or pass --any-launcher if srun \
             starts an Open MPI application here"
                .into(),
        ));
    }
    if !LAUNCHERS.contains(&name.as_str()) {
        return Err(Error::Unsupported(format!(
            "expected an Open MPI launcher ({}) as the command, found `{name}`; write \
             `hopmap capture -o GRAPH -- mpirun -np N ./app ARGS`, or pass --any-launcher \
             when `{name}` runs mpirun itself (a wrapper script)",
            LAUNCHERS.join(", ")
        )));
    }
    let out = Command::new(program)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            Error::Unsupported(format!(
                "could not run `{name} --version` ({e}); install Open MPI (Debian: `apt-get \
                 install openmpi-bin libopenmpi-dev`) or give the launcher's full path"
            ))
        })?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let first = text.lines().next().unwrap_or_default().trim().to_string();
    if !text.contains("Open MPI") && !text.contains("OpenRTE") {
        return Err(Error::Unsupported(format!(
            "expected Open MPI's launcher, found one that says `{first}`: hopmap capture uses \
             Open MPI's monitoring components; with MPICH or Intel MPI, record the run with \
             their tools (for example EZTrace's communication matrix) and open that file, or \
             build and run the application with Open MPI"
        )));
    }
    Ok(first)
}

/// The folder the ranks write into: `keep` (created if missing; it must
/// hold no monitoring files yet), or a fresh folder in `near` that is
/// removed on drop.
pub struct RawDir {
    path: PathBuf,
    keep: bool,
}

impl RawDir {
    /// See the type's docs.
    pub fn new(keep: Option<&Path>, near: &Path) -> Result<RawDir> {
        if let Some(k) = keep {
            std::fs::create_dir_all(k).map_err(|e| Error::io(k, e))?;
            let taken = std::fs::read_dir(k)
                .map_err(|e| Error::io(k, e))?
                .filter_map(|e| e.ok())
                .any(|e| e.file_name().to_string_lossy().ends_with(".prof"));
            if taken {
                return Err(Error::Unsupported(format!(
                    "{}: expected a folder without .prof files for the raw monitoring output, \
                     found some (of an earlier run?); pick a new folder",
                    crate::error::show_path(k)
                )));
            }
            let path = std::fs::canonicalize(k).map_err(|e| Error::io(k, e))?;
            return Ok(RawDir { path, keep: true });
        }
        let base = if near.as_os_str().is_empty() {
            Path::new(".")
        } else {
            near
        };
        let base = std::fs::canonicalize(base).map_err(|e| Error::io(base, e))?;
        for i in 0..100u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let p = base.join(format!(
                ".hopmap-capture-{}-{i}-{nanos}",
                std::process::id()
            ));
            match std::fs::create_dir(&p) {
                Ok(()) => {
                    return Ok(RawDir {
                        path: p,
                        keep: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(&p, e)),
            }
        }
        Err(Error::Unsupported(format!(
            "could not create a fresh folder in {}",
            crate::error::show_path(&base)
        )))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the folder stays after the capture.
    pub fn kept(&self) -> bool {
        self.keep
    }
}

impl Drop for RawDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// What to tell a user whose run left no monitoring files.
pub fn no_files_help(dir: &Path) -> String {
    format!(
        "the run left no monitoring files in {}: the application did not run under Open \
         MPI with its monitoring components. Check that it is linked with Open MPI (`ldd \
         ./app | grep libmpi`), that the launch command does not set pml_monitoring_* itself, \
         and, on several nodes, that this folder is on a file system every node shares \
         (choose one with --keep-raw DIR)",
        crate::error::show_path(dir)
    )
}

/// Whether `dir` holds any rank file.
pub fn has_files(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().ends_with(".prof"))
    })
}
