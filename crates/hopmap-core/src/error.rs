//! Library error type. Every failure that comes from user input names its
//! source: a file error reads `PATH:LINE: what was expected, what was found`.

use std::path::{Path, PathBuf};

/// The one error type of the hopmap library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A malformed input file: `path:line: message`.
    #[error("{}:{line}: {msg}", show_path(path))]
    Parse {
        path: PathBuf,
        line: usize,
        msg: String,
    },
    /// An I/O failure on a named file.
    #[error("{}: {source}", show_path(path))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A bad specification string (topology spec, generator spec, order string...).
    #[error("invalid {what} `{spec}`: {msg}")]
    Spec {
        what: &'static str,
        spec: String,
        msg: String,
    },
    /// A mapping that violates the topology's constraints.
    #[error("invalid mapping: {0}")]
    Mapping(String),
    /// The inputs do not fit the requested operation (too many processes, no coordinates...).
    #[error("{0}")]
    Unsupported(String),
    /// The run was cancelled by the user.
    #[error("cancelled")]
    Cancelled,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A path as messages show it: control characters (a newline or a tab in
/// a file name) escaped, so that a message stays on one line.
pub fn show_path(p: &Path) -> String {
    let s = p.to_string_lossy();
    if !s.chars().any(char::is_control) {
        return s.into_owned();
    }
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

impl Error {
    /// A parse error at `path:line`.
    pub fn parse(path: &Path, line: usize, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.to_path_buf(),
            line,
            msg: msg.into(),
        }
    }
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
    pub fn spec(what: &'static str, spec: &str, msg: impl Into<String>) -> Self {
        Error::Spec {
            what,
            spec: spec.to_string(),
            msg: msg.into(),
        }
    }
}
