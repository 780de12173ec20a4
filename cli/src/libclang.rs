//! Provisioning libclang without root: the pinned `libclang` wheel from PyPI, extracted into
//! `.cache/libclang/`. An explicit `LIBCLANG_PATH` wins. The generator loads it at run time.

use crate::{paths, run};
use anyhow::{Context, Result};
use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

/// The libclang wheel whose parser the committed output was made with.
const WHEEL: &str = "libclang==18.1.1";

/// Makes sure `LIBCLANG_PATH` names a folder with a loadable libclang; returns it.
pub fn ensure() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("LIBCLANG_PATH").map(PathBuf::from) {
        if dir.is_dir() {
            return Ok(dir);
        }
    }
    let dir = paths().cache.join("libclang");
    let lib = dir.join("libclang.so");
    if !lib.exists() {
        std::fs::create_dir_all(&dir)?;
        let wheels = paths().cache.join("wheels");
        eprintln!("provisioning libclang from the {WHEEL} wheel ...");
        run::status(
            Command::new(run::python())
                .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest"])
                .arg(&wheels)
                .arg(WHEEL),
        )
        .with_context(|| {
            format!(
                "could not download the {WHEEL} wheel. Install one yourself and point at it: \
                 `python3 -m pip install {WHEEL}` then `export LIBCLANG_PATH=$(python3 -c \
                 'import clang, os; print(os.path.join(os.path.dirname(clang.__file__), \"native\"))')`, \
                 or `apt-get install libclang-dev` and `export LIBCLANG_PATH=/usr/lib/llvm-14/lib`"
            )
        })?;
        let wheel = std::fs::read_dir(&wheels)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libclang-18.1.1-")))
            .context("libclang wheel missing after download")?;
        let mut zip = zip::ZipArchive::new(std::fs::File::open(&wheel)?)?;
        let name = (0..zip.len())
            .filter_map(|i| zip.name_for_index(i).map(str::to_string))
            .find(|n| n.ends_with("clang/native/libclang.so"))
            .context("libclang.so not in the wheel")?;
        let mut member = zip.by_name(&name)?;
        let mut bytes = Vec::new();
        member.read_to_end(&mut bytes)?;
        let tmp = dir.join("libclang.so.partial");
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &lib)?;
    }
    std::env::set_var("LIBCLANG_PATH", &dir);
    Ok(dir)
}

/// `cargo xtask doctor`.
pub fn doctor() -> Result<()> {
    let dir = ensure()?;
    println!("libclang: {} ({})", dir.display(), cudagen_generator::libclang_version()?);
    let py = run::output(Command::new(run::python()).arg("--version")).unwrap_or_else(|e| format!("missing: {e}"));
    println!("python:   {}", py.trim());
    for entry in ["headers", "nvrtc", "wheels"] {
        let p = paths().cache.join(entry);
        let n = std::fs::read_dir(&p).map(|d| d.count()).unwrap_or(0);
        println!("cache:    {}: {n} entries", p.display());
    }
    Ok(())
}
