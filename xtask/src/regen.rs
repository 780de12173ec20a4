//! `cargo xtask regen` and `dump-ir`: headers -> generator -> files, written or compared.

use crate::{fetch, libclang, root, HeaderSource};
use anyhow::{anyhow, bail, Context, Result};
use cudagen_generator::annotations::Annotations;
use cudagen_generator::{build_api_until, emit, ir::Api, HeaderSet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Most diff lines printed by `--check`.
const DIFF_LINES: usize = 200;

pub(crate) fn build(source: &HeaderSource) -> Result<Api> {
    build_until(source, None)
}

/// The IR after the pass `last` (all passes when `None`).
fn build_until(source: &HeaderSource, last: Option<&str>) -> Result<Api> {
    libclang::ensure()?;
    let fetched = fetch::headers(source)?;
    let annotations = Annotations::load_dir(&root().join("headers")).map_err(|e| anyhow!("{e}"))?;
    let headers = HeaderSet { cuda_version: fetched.version, include_dir: fetched.include_dir };
    build_api_until(&headers, &annotations, last).map_err(|e| anyhow!("{e}"))
}

/// Every surface of release `minor` of headers/versions.toml, with every function on every
/// surface (else an error with the coverage report).
pub(crate) fn generate_release(minor: &str) -> Result<cudagen_generator::render::Output> {
    let source = HeaderSource { cuda: minor.to_string(), cuda_home: None };
    let api = build(&source).with_context(|| format!("CUDA {minor}"))?;
    let output = emit::generate(&api, &root().join("templates")).map_err(|e| anyhow!("CUDA {minor}: {e}"))?;
    if output.coverage.problems() > 0 {
        bail!("CUDA {minor}: {} functions not fully covered:\n{}", output.coverage.problems(), output.coverage.report());
    }
    Ok(output)
}

/// The releases `generated/` is made from: every surface of the first; the Rust crate also holds
/// the second's API (features `cuda-12`, the default, and `cuda-13`).
pub const ERAS: [&str; 2] = ["12.9", "13.5"];

/// `generated/` from [`ERAS`], or (with `--out`) every surface of one release in a crate without
/// era features.
pub fn regen(source: &HeaderSource, out: Option<PathBuf>, check: bool) -> Result<()> {
    let output = match &out {
        Some(_) => single(source)?,
        None if source.cuda_home.is_none() && source.cuda == ERAS[0] => eras()?,
        None => bail!(
            "generated/ holds the CUDA {} and {} eras (`cargo xtask regen`); for CUDA {} alone pass --out DIR",
            ERAS[0],
            ERAS[1],
            source.cuda
        ),
    };
    let dir = out.unwrap_or_else(|| root().join("generated"));
    if check {
        let stale = compare(&output.files, &dir)?;
        if !stale.is_empty() {
            eprintln!("{stale}");
            bail!("{} is stale; run: cargo xtask regen --cuda {}", dir.display(), source.cuda);
        }
        println!("{} is up to date ({} files)", dir.display(), output.files.len());
    } else {
        let (written, removed) = write(&output.files, &dir)?;
        println!("{}: {} files, {written} changed, {removed} removed", dir.display(), output.files.len());
    }
    Ok(())
}

/// Every file under `dir`, relative, with `/` separators.
fn existing(dir: &Path) -> Result<BTreeSet<String>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeSet<String>) -> std::io::Result<()> {
        for e in std::fs::read_dir(dir)? {
            let p = e?.path();
            if p.is_dir() {
                walk(base, &p, out)?;
            } else if let Ok(rel) = p.strip_prefix(base) {
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
        Ok(())
    }
    let mut out = BTreeSet::new();
    if dir.exists() {
        walk(dir, dir, &mut out).with_context(|| format!("listing {}", dir.display()))?;
    }
    Ok(out.into_iter().filter(|p| !ignored(p)).collect())
}

/// Build and editor leftovers inside generated/ that are not ours to judge.
fn ignored(rel: &str) -> bool {
    rel.contains("__pycache__/") || rel.ends_with(".pyc") || rel.contains("/target/") || rel.ends_with(".so")
}

/// Writes changed files and removes ones no longer generated: (written, removed).
/// Refuses to clean a non-empty folder that holds no cudagen output (a mistyped `--out`).
/// Every surface of one release, coverage printed.
fn single(source: &HeaderSource) -> Result<cudagen_generator::render::Output> {
    let api = build(source)?;
    let output = emit::generate(&api, &root().join("templates")).map_err(|e| anyhow!("{e}"))?;
    print!("{}", output.coverage.report());
    if output.coverage.problems() > 0 {
        bail!("{} functions are missing from a surface or skipped (listed above); nothing written", output.coverage.problems());
    }
    Ok(output)
}

/// The two-era output of [`ERAS`], coverage of each printed.
fn eras() -> Result<cudagen_generator::render::Output> {
    let mut apis = Vec::new();
    for minor in ERAS {
        apis.push(build(&HeaderSource { cuda: minor.to_string(), cuda_home: None }).with_context(|| format!("CUDA {minor}"))?);
    }
    let (output, later) = emit::generate_eras(&apis, &root().join("templates")).map_err(|e| anyhow!("{e}"))?;
    print!("CUDA {}, every surface:\n{}", ERAS[0], output.coverage.report());
    let mut problems = output.coverage.problems();
    for (minor, coverage) in ERAS[1..].iter().zip(&later) {
        print!("CUDA {minor}, Rust era:\n{}", coverage.report());
        problems += coverage.problems();
    }
    if problems > 0 {
        bail!("{problems} functions are missing from a surface or skipped (listed above); nothing written");
    }
    Ok(output)
}

pub(crate) fn write(files: &BTreeMap<String, String>, dir: &Path) -> Result<(usize, usize)> {
    let present = existing(dir)?;
    let ours = present.iter().any(|rel| {
        std::fs::read_to_string(dir.join(rel)).is_ok_and(|t| t.lines().take(3).any(|l| l.contains("@generated by cudagen")))
    });
    if !present.is_empty() && !ours {
        bail!("{} holds files but none generated by cudagen; refusing to clean it", dir.display());
    }
    let mut written = 0;
    for (rel, text) in files {
        let path = dir.join(rel);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        written += 1;
    }
    let mut removed = 0;
    for rel in existing(dir)? {
        if !files.contains_key(&rel) {
            std::fs::remove_file(dir.join(&rel))?;
            removed += 1;
        }
    }
    Ok((written, removed))
}

/// A unified diff of every difference, capped at [`DIFF_LINES`] lines (empty when fresh).
fn compare(files: &BTreeMap<String, String>, dir: &Path) -> Result<String> {
    let mut lines: Vec<String> = Vec::new();
    for (rel, want) in files {
        let have = std::fs::read_to_string(dir.join(rel)).unwrap_or_default();
        if have != *want {
            let diff = similar::TextDiff::from_lines(&have, want);
            let text = diff.unified_diff().context_radius(2).header(&format!("a/{rel}"), &format!("b/{rel}")).to_string();
            lines.extend(text.lines().map(str::to_string));
        }
    }
    for rel in existing(dir)? {
        if !files.contains_key(&rel) {
            lines.push(format!("extra file: {rel} (not generated any more)"));
        }
    }
    Ok(cap(lines))
}

fn cap(lines: Vec<String>) -> String {
    let n = lines.len();
    let mut out: Vec<String> = lines.into_iter().take(DIFF_LINES).collect();
    if n > DIFF_LINES {
        out.push(format!("... and {} more diff lines", n - DIFF_LINES));
    }
    out.join("\n")
}

pub fn dump_ir(source: &HeaderSource, library: Option<&str>, after: Option<&str>) -> Result<()> {
    let api = build_until(source, after)?;
    for lib in api.libraries.iter().filter(|l| library.is_none_or(|m| m == l.kind.module())) {
        println!("{}", serde_json::to_string_pretty(lib)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_is_capped_with_a_count() {
        let s = cap((0..250).map(|i| i.to_string()).collect());
        assert_eq!(s.lines().count(), DIFF_LINES + 1);
        assert!(s.ends_with("... and 50 more diff lines"));
    }

    #[test]
    fn check_reports_changed_missing_and_extra_files() {
        let dir = std::env::temp_dir().join(format!("xtask-compare-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.rs"), "one\ntwo\n").unwrap();
        std::fs::write(dir.join("sub/old.rs"), "x").unwrap();
        let mut files = BTreeMap::new();
        files.insert("a.rs".to_string(), "one\nTWO\n".to_string());
        files.insert("b.rs".to_string(), "new\n".to_string());
        let d = compare(&files, &dir).unwrap();
        assert!(write(&files, &dir).is_err(), "a folder without cudagen output must not be cleaned");
        std::fs::write(dir.join("marker.rs"), "// @generated by cudagen\n").unwrap();
        assert!(d.contains("-two") && d.contains("+TWO"), "{d}");
        assert!(d.contains("+new"), "{d}");
        assert!(d.contains("extra file: sub/old.rs"), "{d}");
        write(&files, &dir).unwrap();
        assert_eq!(compare(&files, &dir).unwrap(), "");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
