//! The hand-written runtime (`cudagen-core`, `runtime/core`) with the libraries the generated
//! crate renders for it, plus helpers for the tests and the benchmark.

/// The core's loader with the generated crate's libraries (`DRIVER`, `NVRTC`, ...), as
/// `cudagen::loader` is.
pub mod loader {
    pub use crate::libraries::*;
    pub use cudagen_core::loader::*;
}
pub use cudagen_core::trace;

// The committed rendering of the generator's profiles, formatted as the generator writes it.
#[rustfmt::skip]
#[path = "../../../generated/rust/src/cuda12/libraries.rs"]
mod libraries;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Compile `fake/<name>.c` into `<dir>/<so_name>` with gcc; returns its path.
pub fn build_fake(name: &str, dir: &Path, so_name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fake")
        .join(format!("{name}.c"));
    let out = dir.join(so_name);
    let st = Command::new("gcc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .expect("gcc");
    assert!(st.success(), "gcc failed for {src:?}");
    out
}

/// True in the child process that runs one scenario (see `run_child`).
pub fn is_child() -> bool {
    std::env::var_os("CUDAGEN_TEST_CHILD").is_some()
}

/// Re-run the current test binary for test `name` only, in a fresh process with `envs`
/// (the loader's state is process-wide). Panics with the child's output if it failed.
pub fn run_child(name: &str, envs: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("CUDAGEN_TEST_CHILD", "1");
    for v in [
        "CUDAGEN_LIBCUDA",
        "CUDAGEN_NVRTC_PATH",
        "CUDAGEN_CUDART_PATH",
        "CUDAGEN_TRACE",
        "CUDAGEN_TRACE_FILE",
        "CUDAGEN_TRACE_FORMAT",
        "CUDAGEN_TRACE_SUMMARY",
        "CUDAGEN_TRACE_ONLY",
        "CUDAGEN_TRACE_ERRORS",
        "CUDAGEN_PYTHON_SITE",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "PYTHONHOME",
        "CUDA_HOME",
        "CUDA_PATH",
    ] {
        cmd.env_remove(v);
    }
    cmd.envs(envs.iter().copied());
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "child {name} failed:\n{text}");
    assert!(
        text.contains("1 passed"),
        "child {name} did not run:\n{text}"
    );
    text
}
