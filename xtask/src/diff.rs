//! `cargo xtask diff 12.9 13.0`: builds the IR of two releases and writes the Markdown report of
//! what changed (`cudagen_generator::diff`) to stdout or `--out`.

use crate::{regen, HeaderSource};
use anyhow::{Context, Result};
use std::path::PathBuf;

pub fn command(old: &str, new: &str, out: Option<PathBuf>) -> Result<()> {
    let api = |v: &str| regen::build(&HeaderSource { cuda: v.to_string(), cuda_home: None }).with_context(|| format!("CUDA {v}"));
    let report = cudagen_generator::diff::report(&api(old)?, &api(new)?);
    match out {
        Some(path) => {
            std::fs::write(&path, &report).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("wrote {} ({} lines)", path.display(), report.lines().count());
        }
        None => print!("{report}"),
    }
    Ok(())
}
