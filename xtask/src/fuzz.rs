//! `cargo xtask fuzz --calls N`: the boundary fuzz of `tests/python/fuzz_boundary.py`, longer
//! than the sample `cargo xtask test` runs (the sweep plus N random calls per function).

use crate::{root, run, test_cmd};
use anyhow::Result;
use std::process::Command;

pub fn run(calls: u32, seed: u64) -> Result<()> {
    let root = root();
    let py = test_cmd::install_python(&root)?;
    let report = root.join("target/fuzz-report.json");
    run::status(
        Command::new(py)
            .arg(root.join("tests/python/fuzz_boundary.py"))
            .args(["--calls", &calls.to_string(), "--seed", &seed.to_string(), "--json"])
            .arg(&report)
            .current_dir(&root),
    )?;
    println!("report: {}", report.display());
    Ok(())
}
