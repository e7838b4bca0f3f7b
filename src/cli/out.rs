//! Standard output of every command, in one place. Commands print with
//! [`outln!`](crate::outln) / [`out!`](crate::out) (or write to [`Stdout`]),
//! which return an error instead of panicking when the write fails, and
//! remember that failure, so that `main` decides once what it means:
//!
//! * a closed pipe (`hopmap mappers --long | head -1`) ends the program
//!   quietly with exit 0 — the reader has all it wanted;
//! * any other failure (`> /dev/full`) is one line on stderr and exit 1.

use std::io::{self, Write};
use std::sync::Mutex;

/// The first failed write to standard output, if any.
static FAILED: Mutex<Option<(io::ErrorKind, String)>> = Mutex::new(None);

fn record(e: io::Error) -> io::Error {
    if let Ok(mut f) = FAILED.lock()
        && f.is_none()
    {
        *f = Some((e.kind(), e.to_string()));
    }
    e
}

/// The failure recorded by a write to standard output: its kind and text.
pub fn failure() -> Option<(io::ErrorKind, String)> {
    FAILED.lock().ok().and_then(|f| f.clone())
}

/// Standard output as a writer that records its failures.
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().lock().write(buf).map_err(record)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        io::stdout().lock().write_all(buf).map_err(record)
    }
    fn flush(&mut self) -> io::Result<()> {
        io::stdout().lock().flush().map_err(record)
    }
}

/// A failed write to standard output, as an error value.
#[derive(Debug, thiserror::Error)]
#[error("writing to standard output: {0}")]
pub struct StdoutError(#[from] pub io::Error);

/// Flush standard output at the end of a command.
pub fn flush() -> Result<(), StdoutError> {
    Stdout.flush().map_err(StdoutError)
}

/// `println!` that fails with [`StdoutError`] (use with `?`).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::out!("\n")
    };
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!($crate::cli::out::Stdout, $($arg)*).map_err($crate::cli::out::StdoutError)?
    }};
}

/// `print!` that fails with [`StdoutError`] (use with `?`).
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!($crate::cli::out::Stdout, $($arg)*).map_err($crate::cli::out::StdoutError)?
    }};
}
