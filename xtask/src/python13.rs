//! The 13.x Python surface against NVIDIA's cuda-bindings 13.x (a step of `cargo xtask test`).
//!
//! The [`CUDA`] headers are regenerated into `target/v13/gen` (a scratch workspace of its own:
//! `target/v13/Cargo.toml`), the Python extension is built there and installed with
//! cuda-bindings [`ORACLE`] and the release's NVRTC wheel into a second virtualenv `.venv13`, and
//! the oracle tests run there against `tests/python/oracle_allowlist_13.txt`
//! (`CUDAGEN_ORACLE_ALLOWLIST`), with NVRTC 13 found in the wheel by the loader itself.
//!
//! A debug build: on 2 cores it takes about half the time of a release build, and the tests make
//! few calls. It shares `target/` with `cargo test --workspace`, whose debug build of the
//! dependencies (pyo3, ...) it reuses; only the two generated crates compile (~30 s here), and
//! the extension is always linked again (its file is the workspace crate's too).

use crate::{fetch, regen, root, run, sweep, versions::Table};
use anyhow::{Context, Result};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The release whose Python surface is checked: the newest 13.x of headers/versions.toml.
pub const CUDA: &str = "13.5";
/// NVIDIA's bindings for it (and the loader helper they need), as pip requirements.
const ORACLE: [&str; 2] = ["cuda-bindings==13.5.0", "cuda-pathfinder==1.9.0"];
/// The test tools, pinned as in `.venv`.
const TOOLS: [&str; 4] = ["maturin==1.16.0", "pytest==9.2.0", "numpy==2.4.6", "mypy==2.4.1"];
/// Under `tests/python/`: the known differences from cuda-bindings 13.5.0, a reason each.
const ALLOWLIST: &str = "oracle_allowlist_13.txt";
/// The tests that run against the 13.x pair (`test_acceptance.py` reads `acceptance_allowlist_13.txt`,
/// `test_acceptance_runtime.py` `acceptance_runtime_allowlist_13.txt`, named after [`ALLOWLIST`]).
const TESTS: [&str; 10] = [
    "tests/python/test_oracle.py",
    "tests/python/test_oracle_objects.py",
    "tests/python/test_nvrtc.py",
    "tests/python/test_acceptance.py",
    "tests/python/test_acceptance_runtime.py",
    "tests/python/test_clients.py",
    "tests/python/test_interop.py",
    "tests/python/test_static_cudart.py",
    "tests/python/test_bind_older.py",
    "tests/python/test_readme.py",
];

pub fn run() -> Result<()> {
    let root = root();
    let dir = root.join("target/v13");
    let t = Instant::now();
    let output = regen::generate_release(CUDA, cudagen_generator::emit::Rustfmt::Run)?;
    regen::write(&output.files, &dir.join("gen"))?;
    std::fs::write(
        dir.join("Cargo.toml"),
        "# Written by `cargo xtask test`: the generated crates, outside the repository's workspace.\n\
         [workspace]\nresolver = \"2\"\nmembers = [\"gen/rust\", \"gen/python\"]\n",
    )?;
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).context("copying Cargo.lock")?;
    println!(
        "CUDA {CUDA} regenerated into {}: {} ({:.1}s)",
        dir.join("gen").display(),
        sweep::counts(&output.coverage),
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let py = venv(&root)?;
    println!("{} ready ({:.1}s)", root.join(".venv13").display(), t.elapsed().as_secs_f64());

    let t = Instant::now();
    let wheels = dir.join("wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    // A cdylib's file name carries no hash, so `cargo test --workspace` (the 12.x crate, linked
    // with libpython) writes the same `target/debug/deps/lib_cudagen.so`: without it, cargo
    // finds this crate stale and links it again, instead of handing maturin the other one.
    for stale in ["target/debug/deps/lib_cudagen.so", "target/debug/lib_cudagen.so"] {
        let _ = std::fs::remove_file(root.join(stale));
    }
    run::status(
        Command::new(root.join(".venv13/bin/maturin"))
            .args(["build", "--quiet", "-m"])
            .arg(dir.join("gen/python/Cargo.toml"))
            .arg("-o")
            .arg(&wheels)
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", root.join("target"))
            .envs([crate::wheel::cudart_static(CUDA)?])
            // a one-off build of fresh sources: no incremental state to keep
            .env("CARGO_INCREMENTAL", "0"),
    )?;
    crate::wheel::install_wheel(&py, &wheels)?;
    println!("CUDA {CUDA} extension built (debug) and installed ({:.1}s)", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let mut pytest = Command::new(&py);
    pytest.args(["-m", "pytest", "-q"]).args(TESTS).current_dir(&root);
    pytest
        .env("CUDAGEN_ORACLE_ALLOWLIST", ALLOWLIST)
        .env("CI", std::env::var("CI").unwrap_or_else(|_| "true".into()))
        // NVRTC 13 is found in the virtualenv's nvidia-cuda-nvrtc wheel by the loader itself.
        .env_remove("CUDAGEN_NVRTC_PATH");
    run::status(&mut pytest)?;
    run::status(Command::new(&py).args(["-m", "mypy.stubtest", "cudagen"]).current_dir(std::env::temp_dir()))?;
    println!("CUDA {CUDA} oracle, NVRTC and stub tests ({:.1}s)", t.elapsed().as_secs_f64());
    Ok(())
}

/// `.venv13` with the test tools, cuda-bindings 13.x and the release's NVRTC wheel (the file
/// the headers were fetched from, so it is not downloaded twice); returns its Python.
fn venv(root: &Path) -> Result<std::path::PathBuf> {
    let venv = root.join(".venv13");
    let py = venv.join("bin/python");
    if !py.exists() {
        run::status(Command::new(run::python()).args(["-m", "venv"]).arg(&venv))?;
    }
    let table = Table::load()?;
    let nvrtc = fetch::cached_wheel(table.resolve(CUDA)?.wheel("nvrtc").context("no nvrtc wheel")?)?;
    run::status(Command::new(&py).args(["-m", "pip", "install", "--quiet"]).args(TOOLS).args(ORACLE).arg(&nvrtc))?;
    Ok(py)
}
