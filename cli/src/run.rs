//! Running external commands with clear errors.

use anyhow::{bail, Context, Result};
use std::process::Command;

/// Runs `cmd`, inheriting stdio; fails naming the command and its exit status.
pub fn status(cmd: &mut Command) -> Result<()> {
    let shown = format!("{cmd:?}");
    let st = cmd.status().with_context(|| format!("could not start {shown}"))?;
    if !st.success() {
        bail!("{shown} failed ({st})");
    }
    Ok(())
}

/// Runs `cmd` and returns its stdout.
pub fn output(cmd: &mut Command) -> Result<String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().with_context(|| format!("could not start {shown}"))?;
    if !out.status.success() {
        bail!("{shown} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The Python interpreter to use for pip.
pub fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}
