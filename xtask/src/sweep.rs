//! `cargo xtask sweep` (also a step of `cargo xtask test`): every release in
//! headers/versions.toml regenerated into `target/sweep/`, with every function on every surface
//! (0 skipped), and its Rust crate `cargo check`ed. Three stages overlap: one thread fetches the
//! releases' headers (headers only: downloads), the main thread generates one release after the
//! other (one core), and as many checkers as cores `cargo check` the crates written so far. Each
//! crate is a workspace of its own; crate `i` always goes to checker `i % checkers`, whose target
//! dir it keeps between runs, so a crate whose files did not change is not checked again. Its
//! Rust is not run through rustfmt (nobody reads it; a file rustfmt could not parse fails
//! `cargo check` as well).

use crate::versions::{Entry, Table};
use crate::{fetch, regen, root, run};
use anyhow::{anyhow, bail, Context, Result};
use cudagen_generator::coverage::Coverage;
use cudagen_generator::emit::Rustfmt;
use cudagen_generator::ir::LibraryKind;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

/// Sweeps `only` (every release when empty).
pub fn run(only: &[String]) -> Result<()> {
    let start = Instant::now();
    let mut entries = Table::load()?.cuda;
    if let Some(unknown) = only.iter().find(|m| !entries.iter().any(|e| e.minor == **m)) {
        bail!("headers/versions.toml has no release {unknown}");
    }
    entries.retain(|e| only.is_empty() || only.contains(&e.minor));
    let dir = root().join("target/sweep");
    let crates = dir.join("crates");
    // The old layout: one workspace over every crate (its manifest would now claim the members).
    let _ = std::fs::remove_file(crates.join("Cargo.toml"));
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).context("reading Cargo.lock")?;
    let (fetched, fetching) = fetcher(entries.clone());
    let checkers = thread::available_parallelism().map_or(2, |n| n.get()).min(entries.len()).max(1);
    let (queues, checks): (Vec<_>, Vec<_>) = (0..checkers).map(|k| checker(dir.join(format!("target-{k}")))).unzip();
    let mut generating = Duration::ZERO;
    let generated = (|| -> Result<()> {
        for i in 0..entries.len() {
            let (minor, headers, took) = fetched.recv().context("the header fetcher stopped")?;
            let t = Instant::now();
            let headers = headers.with_context(|| format!("fetching the CUDA {minor} headers"))?;
            let (path, coverage) = write_release(&minor, headers, &lock, &crates)?;
            generating += t.elapsed();
            let (fetch_s, gen_s) = (took.as_secs_f64(), t.elapsed().as_secs_f64());
            println!("{minor:<5} {}  (fetch {fetch_s:.1}s, generate {gen_s:.1}s)", counts(&coverage));
            queues[i % checkers].send((minor, path)).map_err(|_| anyhow!("checker {} stopped", i % checkers))?;
        }
        Ok(())
    })();
    drop((queues, fetched));
    let fetch_time = fetching.join().map_err(|_| anyhow!("the header fetcher panicked"))?;
    let mut failed = Vec::new();
    let mut checking = Duration::ZERO;
    for c in checks {
        let (fails, took) = c.join().map_err(|_| anyhow!("a checker panicked"))?;
        failed.extend(fails);
        checking += took;
    }
    generated?;
    if !failed.is_empty() {
        bail!("the generated Rust crate of CUDA {} does not build", failed.join(", "));
    }
    println!(
        "{} releases regenerated with nothing skipped; their Rust crates check. Sweep {:.1}s (fetch {:.1}s, \
         generate {:.1}s, check {:.1}s over {checkers} checkers, overlapping)",
        entries.len(),
        start.elapsed().as_secs_f64(),
        fetch_time.as_secs_f64(),
        generating.as_secs_f64(),
        checking.as_secs_f64()
    );
    Ok(())
}

/// Generates release `minor` from its `headers` and writes its Rust crate (with the lock file
/// `lock`) under `crates`: the crate's folder and the coverage.
fn write_release(minor: &str, headers: fetch::Fetched, lock: &str, crates: &Path) -> Result<(PathBuf, Coverage)> {
    let api = cudagen_cli::build_fetched(headers, None).with_context(|| format!("CUDA {minor}"))?;
    let output = cudagen_cli::generate_api(&api, minor, Rustfmt::Skip)?;
    let member = format!("cudagen_{}", minor.replace('.', "_"));
    let mut files = rust_crate(&output.files, &member)?;
    files.insert("Cargo.lock".into(), lock.to_string());
    let path = crates.join(&member);
    regen::write(&files, &path)?;
    Ok((path, output.coverage))
}

/// Headers fetched (only headers), each with the time it took.
type FetchedRelease = (String, Result<fetch::Fetched>, Duration);

/// A thread fetching the headers of `entries` in order, at most two releases ahead of their
/// use; returns the channel and the thread (whose result is the time spent fetching).
fn fetcher(entries: Vec<Entry>) -> (Receiver<FetchedRelease>, thread::JoinHandle<Duration>) {
    let (tx, rx) = sync_channel(2);
    let handle = thread::spawn(move || {
        let mut total = Duration::ZERO;
        for e in entries {
            let t = Instant::now();
            let r = fetch::fetch_entry(&e, true, fetch::Extract::Headers);
            total += t.elapsed();
            if tx.send((e.minor.clone(), r, t.elapsed())).is_err() {
                break;
            }
        }
        total
    });
    (rx, handle)
}

/// A crate to check: its release and folder.
type Job = (String, PathBuf);

/// What a checker did: the releases whose crate failed, and the time it spent.
type Checked = (Vec<String>, Duration);

/// A thread `cargo check`ing each crate sent to it, in `target`; returns its queue and the thread
/// (whose result is the releases whose crate failed and the time spent checking).
fn checker(target: PathBuf) -> (Sender<Job>, thread::JoinHandle<Checked>) {
    let (tx, rx) = channel::<Job>();
    let handle = thread::spawn(move || {
        let (mut failed, mut busy) = (Vec::new(), Duration::ZERO);
        for (minor, path) in rx {
            let t = Instant::now();
            if let Err(e) = check(&path, &target) {
                eprintln!("CUDA {minor}: {e:#}");
                failed.push(minor);
            }
            busy += t.elapsed();
        }
        (failed, busy)
    });
    (tx, handle)
}

fn check(path: &Path, target: &Path) -> Result<()> {
    run::status(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["check", "--quiet"])
            .current_dir(path)
            .env("CARGO_TARGET_DIR", target),
    )
}

/// `driver 452 functions, nvrtc 26 functions, 0 skipped (c python rust)`.
pub(crate) fn counts(coverage: &Coverage) -> String {
    let mut s = String::new();
    for kind in LibraryKind::all() {
        let n = coverage.libraries.get(&kind).map_or(0, |l| l.functions.len());
        let _ = write!(s, "{} {n:>3} functions, ", kind.module());
    }
    let surfaces: BTreeSet<&str> = coverage.libraries.values().flat_map(|l| l.surfaces.keys().map(String::as_str)).collect();
    s + &format!("0 skipped ({})", surfaces.into_iter().collect::<Vec<_>>().join(" "))
}

/// The `rust/` files of one release, as a package named `member` (nothing in the crate names
/// itself) that is a workspace of its own.
fn rust_crate(files: &BTreeMap<String, String>, member: &str) -> Result<BTreeMap<String, String>> {
    let mut out: BTreeMap<String, String> =
        files.iter().filter_map(|(rel, text)| Some((rel.strip_prefix("rust/")?.to_string(), text.clone()))).collect();
    let manifest = out.get_mut("Cargo.toml").context("the generator wrote no rust/Cargo.toml")?;
    if !manifest.contains("\nname = \"cudagen\"\n") {
        bail!("rust/Cargo.toml does not name the package `cudagen`");
    }
    *manifest = manifest.replacen("\nname = \"cudagen\"\n", &format!("\nname = \"{member}\"\n"), 1);
    manifest.push_str("\n# Written by `cargo xtask sweep`: a workspace of its own.\n[workspace]\n");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crate_is_renamed_and_only_rust_files_are_kept() {
        let mut files = BTreeMap::new();
        files.insert("rust/Cargo.toml".to_string(), "[package]\nname = \"cudagen\"\nversion = \"0.1.0\"\n".to_string());
        files.insert("rust/src/lib.rs".to_string(), "//".to_string());
        files.insert("python/Cargo.toml".to_string(), "[package]\nname = \"cudagen\"\n".to_string());
        let out = rust_crate(&files, "cudagen_13_5").unwrap();
        assert_eq!(out.keys().collect::<Vec<_>>(), ["Cargo.toml", "src/lib.rs"]);
        assert!(out["Cargo.toml"].starts_with("[package]\nname = \"cudagen_13_5\"\nversion = \"0.1.0\"\n"));
        assert!(out["Cargo.toml"].ends_with("\n[workspace]\n"));
        files.remove("rust/Cargo.toml");
        assert!(rust_crate(&files, "x").is_err());
    }
}
