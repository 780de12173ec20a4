//! `cargo xtask regen` and `dump-ir`: headers -> generator -> files, written or compared.

use crate::{root, HeaderSource};
use anyhow::{anyhow, bail, Context, Result};
use cudagen_cli::output::compare;
pub(crate) use cudagen_cli::output::write;
use cudagen_generator::emit::Rustfmt;
use cudagen_generator::{emit, ir::Api, render::Output};
use std::path::PathBuf;

/// The releases `generated/` is made from: every surface of the first; the Rust crate also holds
/// the second's API (features `cuda-12`, the default, and `cuda-13`).
pub const ERAS: [&str; 2] = ["12.9", "13.5"];

pub(crate) fn build(source: &HeaderSource) -> Result<Api> {
    cudagen_cli::build_until(source, None)
}

/// Every surface of release `minor` of headers/versions.toml, with every function on every
/// surface (else an error with the coverage report); its Rust formatted or not.
pub(crate) fn generate_release(minor: &str, rustfmt: Rustfmt) -> Result<Output> {
    cudagen_cli::generate_with(&HeaderSource::release(minor), rustfmt)
}

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

/// Every surface of one release, coverage printed.
fn single(source: &HeaderSource) -> Result<Output> {
    let output = cudagen_cli::generate(source)?;
    print!("{}", output.coverage.report());
    Ok(output)
}

/// The two-era output of [`ERAS`], coverage of each printed.
fn eras() -> Result<Output> {
    cudagen_cli::require_rustfmt()?;
    let mut apis = Vec::new();
    for minor in ERAS {
        apis.push(build(&HeaderSource::release(minor)).with_context(|| format!("CUDA {minor}"))?);
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

pub fn dump_ir(source: &HeaderSource, library: Option<&str>, after: Option<&str>) -> Result<()> {
    let api = cudagen_cli::build_until(source, after)?;
    for lib in api.libraries.iter().filter(|l| library.is_none_or(|m| m == l.kind.module())) {
        println!("{}", serde_json::to_string_pretty(lib)?);
    }
    Ok(())
}
