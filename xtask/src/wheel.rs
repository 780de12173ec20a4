//! The Python wheel the test steps build and install, and the static archive it links.

use crate::{fetch, run, HeaderSource};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `libcudart_static.a` of release `cuda` in `.cache/` (fetched if needed), which wheels link
/// (`static-cudart`, on in `pyproject.toml`): the value of the `build.rs` variable naming it.
pub fn cudart_static(cuda: &str) -> Result<(&'static str, PathBuf)> {
    let kinds = cudagen_cli::libraries()?;
    let link = kinds.iter().find_map(|k| k.profile().loader.static_link.as_ref());
    let link = link.context("no library profile names a static archive")?;
    let fetched = fetch::headers(&HeaderSource { cuda: cuda.into(), cuda_home: None })?;
    let archive = fetched.static_archive.with_context(|| format!("the CUDA {cuda} wheels hold no {}", link.file()))?;
    Ok((&link.path_var, archive))
}

/// Installs into `py`'s environment the wheel maturin built into `wheels`.
pub fn install_wheel(py: &Path, wheels: &Path) -> Result<()> {
    let wheel = std::fs::read_dir(wheels)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .context("maturin built no wheel")?;
    run::status(Command::new(py).args(["-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps"]).arg(&wheel))
}
