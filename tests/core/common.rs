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
