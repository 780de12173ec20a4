//! `cargo xtask test`: what CI runs. Named steps, each timed, failing fast with its name.

use crate::{fetch, libclang, regen, root, run, HeaderSource};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The NVRTC wheel the Python tests install (the same one the headers come from).
fn nvrtc_requirement() -> Result<String> {
    let table = crate::versions::Table::load()?;
    Ok(table.resolve("12.9")?.wheel("nvrtc").context("12.9 names no nvrtc wheel")?.to_string())
}

/// The 12.9 wheels of the libraries with a wheel of their own (nvJitLink, NVVM: cached files),
/// which the Python tests install so that both cudagen and cuda.bindings find the libraries in
/// the virtualenv.
fn library_wheels() -> Result<Vec<PathBuf>> {
    let table = crate::versions::Table::load()?;
    let entry = table.resolve("12.9")?;
    let plans = cudagen_cli::wheels::plans(&cudagen_cli::libraries()?);
    let own = plans.iter().filter(|w| !w.core && !w.libs.is_empty());
    own.filter_map(|w| entry.wheel(&w.key)).map(fetch::cached_wheel).collect()
}

/// `(override variable, library file)` of each fetched shared library of release `minor` in
/// `.cache/`, for the Rust tests (each library's loader override, from its profile).
fn library_overrides(minor: &str) -> Result<Vec<(&'static str, PathBuf)>> {
    let cache = root().join(".cache");
    let profiles = cudagen_cli::libraries()?.into_iter().map(|k| k.profile());
    let found = profiles.filter_map(|p| {
        let lib = fetch::find_lib(&cache.join(&p.id).join(minor), p.fetch.libs.first()?)?;
        Some((p.loader.override_var.as_str(), lib))
    });
    Ok(found.collect())
}

/// One finished step of the summary: name, wall seconds, CPU seconds (this process and its
/// children, user + system), passed.
struct Row(String, f64, f64, bool);

/// The steps run so far, for the summary table.
#[derive(Default)]
struct Steps(Vec<Row>);

impl Steps {
    /// Runs step `name`, timed (wall and CPU), failing with its name.
    fn step(&mut self, name: &str, f: impl FnOnce() -> Result<()>) -> Result<()> {
        println!("\n==> {name}");
        let (start, cpu) = (Instant::now(), cpu_seconds());
        let r = f().with_context(|| format!("step `{name}` failed"));
        let (wall, cpu) = (start.elapsed().as_secs_f64(), cpu_seconds() - cpu);
        println!("<== {name}: {} in {wall:.1}s (CPU {cpu:.1}s)", if r.is_ok() { "ok" } else { "FAILED" });
        self.0.push(Row(name.to_string(), wall, cpu, r.is_ok()));
        r
    }

    /// The Markdown table of the steps: wall and CPU time each, and the totals.
    fn table(&self) -> String {
        let mut t = String::from("| step | result | wall s | CPU s |\n| --- | --- | ---: | ---: |\n");
        for Row(name, wall, cpu, ok) in &self.0 {
            t += &format!("| {name} | {} | {wall:.1} | {cpu:.1} |\n", if *ok { "ok" } else { "FAILED" });
        }
        let (wall, cpu) = self.0.iter().fold((0.0, 0.0), |(w, c), r| (w + r.1, c + r.2));
        t + &format!("| all steps | | {wall:.1} | {cpu:.1} |\n")
    }
}

/// User + system CPU seconds of this process (every thread) and of its waited-for children.
fn cpu_seconds() -> f64 {
    let of = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(who, &mut u) } != 0 {
            return 0.0;
        }
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        secs(u.ru_utime) + secs(u.ru_stime)
    };
    of(libc::RUSAGE_SELF) + of(libc::RUSAGE_CHILDREN)
}

/// Runs every step, then prints the summary table (also when a step failed).
pub fn run_all() -> Result<()> {
    let mut steps = Steps::default();
    let r = run_steps(&mut steps);
    println!("\n{}", steps.table());
    r?;
    println!("all steps passed");
    Ok(())
}

fn run_steps(steps: &mut Steps) -> Result<()> {
    let root = root();
    let source = HeaderSource { cuda: "12.9".into(), cuda_home: None };
    let mut nvrtc_lib: Option<PathBuf> = None;
    let mut headers_dir = PathBuf::new();
    steps.step("provision libclang and the 12.9, 13.0 and 12.4 headers", || {
        libclang::ensure()?;
        let f = fetch::headers(&source)?;
        headers_dir = f.include_dir;
        nvrtc_lib = f.libs.get("nvrtc").cloned();
        // The diff snapshot (tests/diff.rs) compares 12.9 with 13.0; tests/c/run.sh builds a
        // program against 12.4's nvJitLink.h.
        for cuda in ["13.0", "12.4"] {
            fetch::headers(&HeaderSource { cuda: cuda.into(), cuda_home: None })?;
        }
        Ok(())
    })?;
    let nvrtc_lib = nvrtc_lib.context("the NVRTC wheel holds no libnvrtc.so")?;
    steps.step("regen --check (generated/ is fresh)", || regen::regen(&source, None, true))?;
    steps.step(
        "cargo fmt --check (hand-written and generated crates, support files) and clippy -D warnings (hand-written)",
        || lint(&root),
    )?;
    let overrides = library_overrides("12.9")?;
    let env = |cmd: &mut Command| {
        cmd.current_dir(&root)
            .env("CUDAGEN_HEADERS_DIR", &headers_dir)
            .env("CUDAGEN_HEADERS_CACHE", headers_dir.parent().unwrap_or(&headers_dir))
            .env("CUDAGEN_NVRTC_PATH", &nvrtc_lib)
            .envs(overrides.clone())
            .env("CI", std::env::var("CI").unwrap_or_else(|_| "true".into()));
    };
    steps.step("cargo test --workspace", || {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.args(["test", "--workspace", "--quiet"]);
        env(&mut cmd);
        run::status(&mut cmd)
    })?;
    steps.step("loader tests (fake drivers, real NVRTC, tracing)", || {
        let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cmd.args(["test", "--quiet", "--manifest-path", "tests/loader/Cargo.toml"]);
        env(&mut cmd);
        cmd.env("CARGO_TARGET_DIR", root.join("target/loader-tests"));
        run::status(&mut cmd)
    })?;
    steps.step("Python: build the wheel, pytest, stubtest", || python(&root, &env))?;
    steps.step(
        &format!("Python {}: regen, debug build into .venv13, oracle against cuda-bindings 13.x", crate::python13::CUDA),
        crate::python13::run,
    )?;
    steps.step("C shim: symbols, headers, SAXPY (NVRTC part)", || {
        let mut cmd = Command::new("bash");
        cmd.arg("tests/c/run.sh");
        env(&mut cmd);
        run::status(&mut cmd)
    })?;
    steps.step("every release: regen, coverage, cargo check (sweep)", || crate::sweep::run(&[]))?;
    Ok(())
}

/// The packages written by hand (the generated crates are checked by regen --check instead):
/// the tools, the tests, and the runtime crates the generated ones depend on (`runtime/`).
const HAND_WRITTEN: [&str; 7] =
    ["cudagen-generator", "cudagen-cli", "xtask", "cudagen-tests", "cudagen-runtime", "cudagen-core", "cudagen-c-core"];

/// `-p NAME` for each package.
fn packages(names: &[&'static str]) -> Vec<&'static str> {
    names.iter().flat_map(|n| ["-p", n]).collect()
}

/// The generated crates: formatted by the generator (each with its own `rustfmt.toml`).
const GENERATED: [&str; 6] = ["-p", "cudagen", "-p", "cudagen-python", "-p", "cudagen-shim"];

/// `cargo fmt --check` over the hand-written and the generated crates, `rustfmt --check` over the
/// support files that ship verbatim in the generated crates (`templates/**/*.rs`), and clippy with
/// warnings as errors over the hand-written crates.
fn lint(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run::status(Command::new(&cargo).arg("fmt").args(packages(&HAND_WRITTEN)).arg("--check").current_dir(root))?;
    run::status(Command::new(&cargo).arg("fmt").args(GENERATED).arg("--check").current_dir(root))?;
    let mut support = Vec::new();
    rust_files(&root.join("templates"), &mut support)?;
    support.sort();
    run::status(Command::new("rustfmt").args(["--check", "--edition", "2021"]).args(&support).current_dir(root))?;
    run::status(
        Command::new(&cargo)
            .arg("clippy")
            .args(packages(&HAND_WRITTEN))
            .args(["--all-targets", "--quiet", "--", "-D", "warnings"])
            .current_dir(root),
    )
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Builds the abi3 wheel into a fresh virtualenv and runs the Python tests there.
fn python(root: &Path, env: &dyn Fn(&mut Command)) -> Result<()> {
    let py = install_python(root)?;
    let mut pytest = Command::new(&py);
    pytest.args(["-m", "pytest", "-q", "tests/python"]);
    env(&mut pytest);
    // The Python surface finds libnvrtc, libnvJitLink and libnvvm in the virtualenv's NVIDIA wheels
    // by itself.
    pytest.env_remove("CUDAGEN_NVRTC_PATH");
    for (var, _) in library_overrides("12.9")? {
        pytest.env_remove(var);
    }
    run::status(&mut pytest)?;
    let mut stubtest = Command::new(&py);
    stubtest.args(["-m", "mypy.stubtest", "cudagen"]).current_dir(std::env::temp_dir());
    run::status(&mut stubtest)
}

/// Builds the abi3 wheel and installs it (with the pinned test tools) into `.venv`; returns
/// the virtualenv's Python.
pub fn install_python(root: &Path) -> Result<PathBuf> {
    let venv = root.join(".venv");
    let py = venv.join("bin/python");
    if !py.exists() {
        run::status(Command::new(run::python()).args(["-m", "venv"]).arg(&venv))?;
    }
    run::status(
        Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", "maturin==1.16.0", "pytest==9.2.0", "numpy==2.4.6", "mypy==2.4.1"])
            // NVIDIA's bindings: the oracle `tests/python/test_oracle.py` compares the surface with.
            .args(["cuda-bindings==12.9.5", "cuda-pathfinder==1.9.0"])
            .arg(nvrtc_requirement()?)
            .args(library_wheels()?),
    )?;
    let wheels = root.join("target/wheels");
    let _ = std::fs::remove_dir_all(&wheels);
    run::status(
        Command::new(venv.join("bin/maturin"))
            .args(["build", "--release", "--quiet", "-m", "generated/python/Cargo.toml", "-o"])
            .arg(&wheels)
            .envs([crate::wheel::cudart_static("12.9")?])
            .current_dir(root),
    )?;
    crate::wheel::install_wheel(&py, &wheels)?;
    Ok(py)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_has_a_row_per_step_and_the_totals() {
        let mut steps = Steps::default();
        assert!(steps.step("a", || Ok(())).is_ok());
        assert!(steps.step("b", || anyhow::bail!("no")).is_err());
        let table = steps.table();
        let rows: Vec<&str> = table.lines().collect();
        assert_eq!(rows.len(), 5, "{table}");
        assert!(rows[2].starts_with("| a | ok |") && rows[3].starts_with("| b | FAILED |"), "{table}");
        assert!(cpu_seconds() > 0.0, "this process has used CPU to get here");
        assert!(rows[4].starts_with("| all steps | |"), "{table}");
    }
}
