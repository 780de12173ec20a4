//! rustfmt over every generated `.rs` file, with one pinned configuration passed explicitly
//! (`--config-path`), so the output never depends on a `rustfmt.toml` of the tree it is written
//! into or of the user's home. Each generated crate also gets that configuration as its own
//! `rustfmt.toml`, so `cargo fmt --check` there agrees with the generator.

use crate::diag::{Error, Result};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// The configuration every generated Rust file is formatted with (the repository's own style).
pub const RUSTFMT_CONFIG: &str =
    "edition = \"2021\"\nmax_width = 130\nuse_small_heuristics = \"Max\"\nnewline_style = \"Unix\"\n";

/// What to do when rustfmt cannot be started.
const INSTALL_HINT: &str = "the generator formats its Rust output with rustfmt; install it with `rustup component add rustfmt` \
     (or point the RUSTFMT variable at a rustfmt binary)";

/// The rustfmt binary: `$RUSTFMT` (as cargo fmt reads it), else `rustfmt` on the PATH.
fn rustfmt_binary() -> PathBuf {
    std::env::var_os("RUSTFMT").filter(|v| !v.is_empty()).map_or_else(|| PathBuf::from("rustfmt"), PathBuf::from)
}

/// Fails with the install hint when rustfmt cannot be run (checked before a long generation).
pub fn require_rustfmt() -> Result<()> {
    require(&rustfmt_binary())
}

fn require(binary: &Path) -> Result<()> {
    match Command::new(binary).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(Error::new(format!(
            "`{} --version` failed ({}): {}; {INSTALL_HINT}",
            binary.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))),
        Err(e) => Err(Error::new(format!("cannot run `{}` ({e}); {INSTALL_HINT}", binary.display()))),
    }
}

/// Adds `<crate>/rustfmt.toml` beside every `<crate>/Cargo.toml` among `files`.
pub fn add_crate_configs(files: &mut BTreeMap<String, String>) {
    let crates: Vec<String> = files
        .keys()
        .filter_map(|p| p.strip_suffix("Cargo.toml").filter(|dir| dir.is_empty() || dir.ends_with('/')))
        .map(str::to_string)
        .collect();
    for dir in crates {
        files.insert(format!("{dir}rustfmt.toml"), RUSTFMT_CONFIG.to_string());
    }
}

/// Formats every `.rs` file of `files` in place, several rustfmt processes at a time.
pub fn format_rust_files(files: &mut BTreeMap<String, String>) -> Result<()> {
    format_with(&rustfmt_binary(), files)
}

fn format_with(binary: &Path, files: &mut BTreeMap<String, String>) -> Result<()> {
    require(binary)?;
    let config = config_file()?;
    let jobs: Vec<(&String, &mut String)> = files.iter_mut().filter(|(p, _)| p.ends_with(".rs")).collect();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(jobs.len().max(1));
    let queue = Mutex::new(jobs.into_iter());
    let next = || queue.lock().unwrap_or_else(|e| e.into_inner()).next();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    while let Some((path, text)) = next() {
                        *text = rustfmt(binary, config, path, text)?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| h.join().unwrap_or_else(|_| Err(Error::new("a rustfmt worker panicked"))))
    })
}

/// `text` (the file `path`) as rustfmt prints it from stdin.
fn rustfmt(binary: &Path, config: &Path, path: &str, text: &str) -> Result<String> {
    let fail = |what: String| Error::new(format!("rustfmt could not format generated {path}: {what}"));
    let mut child = Command::new(binary)
        .args(["--edition", "2021", "--config-path"])
        .arg(config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::new(format!("cannot run `{}` ({e}); {INSTALL_HINT}", binary.display())))?;
    // rustfmt reads all of stdin before it prints; a failed write shows in its exit status.
    let written = child.stdin.take().map(|mut stdin| stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
    if !out.status.success() {
        return Err(fail(format!("{} {}", out.status, String::from_utf8_lossy(&out.stderr).trim())));
    }
    if let Some(Err(e)) = written {
        return Err(fail(e.to_string()));
    }
    String::from_utf8(out.stdout).map_err(|e| fail(e.to_string()))
}

/// [`RUSTFMT_CONFIG`] as a file in the temporary folder, named by its content (written once per
/// process, atomically, so concurrent generators share it).
fn config_file() -> Result<&'static Path> {
    static PATH: OnceLock<std::result::Result<PathBuf, String>> = OnceLock::new();
    let written = PATH.get_or_init(|| {
        let hash =
            RUSTFMT_CONFIG.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        let dir = std::env::temp_dir().join(format!("cudagen-rustfmt-{hash:016x}"));
        let path = dir.join("rustfmt.toml");
        if std::fs::read_to_string(&path).is_ok_and(|t| t == RUSTFMT_CONFIG) {
            return Ok(path);
        }
        let tmp = dir.join(format!("rustfmt.toml.{}", std::process::id()));
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(&tmp, RUSTFMT_CONFIG))
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map(|()| path.clone())
            .map_err(|e| format!("writing the rustfmt configuration {}: {e}", path.display()))
    });
    written.as_deref().map_err(|e| Error::new(e.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_rust_files_are_formatted_with_the_pinned_width() {
        let long = format!("fn f() {{ let x = [{}]; }}\n", vec!["1"; 60].join(", "));
        let mut files = BTreeMap::new();
        files.insert("rust/src/a.rs".to_string(), "fn  main( ){let x=1 ;}\n".to_string());
        files.insert("rust/src/long.rs".to_string(), long.clone());
        files.insert("rust/README.md".to_string(), "fn  main( ){}\n".to_string());
        format_rust_files(&mut files).unwrap();
        assert_eq!(files["rust/src/a.rs"], "fn main() {\n    let x = 1;\n}\n");
        assert_eq!(files["rust/README.md"], "fn  main( ){}\n", "not Rust: left alone");
        let widest = files["rust/src/long.rs"].lines().map(str::len).max().unwrap();
        assert!(widest > 100 && widest <= 130, "max_width 130 (the default is 100): {}", files["rust/src/long.rs"]);
    }

    #[test]
    fn a_syntax_error_names_the_file() {
        let mut files = BTreeMap::from([("c/src/bad.rs".to_string(), "fn (\n".to_string())]);
        let e = format_rust_files(&mut files).unwrap_err();
        assert!(e.message.contains("c/src/bad.rs"), "{e}");
    }

    #[test]
    fn a_missing_rustfmt_says_how_to_install_it() {
        let mut files = BTreeMap::from([("a.rs".to_string(), "fn main() {}\n".to_string())]);
        let e = format_with(Path::new("/nonexistent/rustfmt"), &mut files).unwrap_err();
        assert!(e.message.contains("rustup component add rustfmt"), "{e}");
        assert!(e.message.contains("/nonexistent/rustfmt"), "{e}");
    }

    #[test]
    fn each_crate_gets_the_configuration() {
        let mut files = BTreeMap::from([
            ("rust/Cargo.toml".to_string(), String::new()),
            ("python/Cargo.toml".to_string(), String::new()),
            ("python/pyproject.toml".to_string(), String::new()),
        ]);
        add_crate_configs(&mut files);
        assert_eq!(files["rust/rustfmt.toml"], RUSTFMT_CONFIG);
        assert_eq!(files["python/rustfmt.toml"], RUSTFMT_CONFIG);
        assert_eq!(files.len(), 5);
    }
}
