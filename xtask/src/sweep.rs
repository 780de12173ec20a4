//! `cargo xtask sweep` (also a step of `cargo xtask test`): every release in
//! headers/versions.toml regenerated into `target/sweep/`, with every function on every surface
//! (0 skipped), and its Rust crate `cargo check`ed. The crates are members of one scratch
//! workspace sharing one target dir, so dependencies compile once and cargo checks crates in
//! parallel; a crate whose files did not change is not checked again. Its Rust is not run through
//! rustfmt (nobody reads it; a file rustfmt could not parse fails `cargo check` as well).

use crate::versions::Table;
use crate::{regen, root, run};
use anyhow::{bail, Context, Result};
use cudagen_generator::coverage::Coverage;
use cudagen_generator::emit::Rustfmt;
use cudagen_generator::ir::LibraryKind;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::process::Command;
use std::time::Instant;

pub fn run() -> Result<()> {
    let start = Instant::now();
    let dir = root().join("target/sweep");
    let crates = dir.join("crates");
    let mut members = Vec::new();
    for entry in &Table::load()?.cuda {
        let t = Instant::now();
        let output = regen::generate_release(&entry.minor, Rustfmt::Skip)?;
        let member = format!("cudagen_{}", entry.minor.replace('.', "_"));
        regen::write(&rust_crate(&output.files, &member)?, &crates.join(&member))?;
        println!("{:<5} {}  ({:.1}s)", entry.minor, counts(&output.coverage), t.elapsed().as_secs_f64());
        members.push(member);
    }
    std::fs::write(crates.join("Cargo.toml"), workspace(&members))?;
    std::fs::copy(root().join("Cargo.lock"), crates.join("Cargo.lock")).context("copying Cargo.lock")?;
    let t = Instant::now();
    run::status(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["check", "--workspace", "--quiet"])
            .current_dir(&crates)
            .env("CARGO_TARGET_DIR", dir.join("target")),
    )
    .context("a generated Rust crate does not build")?;
    println!(
        "{} releases regenerated with nothing skipped; their Rust crates check ({:.1}s); sweep {:.1}s",
        members.len(),
        t.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
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

/// The `rust/` files of one release, as a package named `member` (a workspace forbids two
/// packages of one name; nothing in the crate names itself).
fn rust_crate(files: &BTreeMap<String, String>, member: &str) -> Result<BTreeMap<String, String>> {
    let mut out: BTreeMap<String, String> =
        files.iter().filter_map(|(rel, text)| Some((rel.strip_prefix("rust/")?.to_string(), text.clone()))).collect();
    let manifest = out.get_mut("Cargo.toml").context("the generator wrote no rust/Cargo.toml")?;
    if !manifest.contains("\nname = \"cudagen\"\n") {
        bail!("rust/Cargo.toml does not name the package `cudagen`");
    }
    *manifest = manifest.replacen("\nname = \"cudagen\"\n", &format!("\nname = \"{member}\"\n"), 1);
    Ok(out)
}

fn workspace(members: &[String]) -> String {
    let list: Vec<String> = members.iter().map(|m| format!("\"{m}\"")).collect();
    format!("# Written by `cargo xtask sweep`.\n[workspace]\nresolver = \"2\"\nmembers = [{}]\n", list.join(", "))
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
        assert_eq!(out["Cargo.toml"], "[package]\nname = \"cudagen_13_5\"\nversion = \"0.1.0\"\n");
        assert!(workspace(&["a".into(), "b".into()]).contains("members = [\"a\", \"b\"]"));
        files.remove("rust/Cargo.toml");
        assert!(rust_crate(&files, "x").is_err());
    }
}
