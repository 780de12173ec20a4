//! `cargo xtask regen` and `dump-ir`: headers -> generator -> files, written or compared.

use crate::{fetch, libclang, root, HeaderSource};
use anyhow::{anyhow, bail, Context, Result};
use cudagen_generator::annotations::Annotations;
use cudagen_generator::{build_api, emit, ir::Api, HeaderSet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Most diff lines printed by `--check`.
const DIFF_LINES: usize = 200;

fn build(source: &HeaderSource) -> Result<Api> {
    libclang::ensure()?;
    let fetched = fetch::headers(source)?;
    let annotations = Annotations::load_dir(&root().join("headers")).map_err(|e| anyhow!("{e}"))?;
    let headers = HeaderSet { cuda_version: fetched.version, include_dir: fetched.include_dir };
    build_api(&headers, &annotations).map_err(|e| anyhow!("{e}"))
}

pub fn regen(source: &HeaderSource, out: Option<PathBuf>, check: bool) -> Result<()> {
    let api = build(source)?;
    let output = emit::generate(&api, &root().join("templates")).map_err(|e| anyhow!("{e}"))?;
    print!("{}", output.coverage.report());
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
fn write(files: &BTreeMap<String, String>, dir: &Path) -> Result<(usize, usize)> {
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

pub fn dump_ir(source: &HeaderSource, library: Option<&str>) -> Result<()> {
    let api = build(source)?;
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
        assert!(d.contains("-two") && d.contains("+TWO"), "{d}");
        assert!(d.contains("+new"), "{d}");
        assert!(d.contains("extra file: sub/old.rs"), "{d}");
        write(&files, &dir).unwrap();
        assert_eq!(compare(&files, &dir).unwrap(), "");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
