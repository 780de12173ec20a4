//! The `cudagen` command's library, shared with the repository's `cargo xtask`: fetching NVIDIA's
//! headers (`fetch`, `versions`), provisioning libclang (`libclang`), building the IR and writing
//! or checking a generated tree (`output`). Where the header cache, the library folders and the
//! templates live is set once per process ([`set_paths`]); the `cudagen` binary points them at
//! its embedded copies, `cargo xtask` at the repository.

pub mod embedded;
pub mod fetch;
pub mod libclang;
pub mod output;
pub mod run;
pub mod versions;
pub mod wheels;

use anyhow::{anyhow, bail, Context, Result};
use cudagen_generator::annotations::Annotations;
use cudagen_generator::emit::Rustfmt;
use cudagen_generator::profile::{LibraryKind, Registry};
use cudagen_generator::{build_api_until, emit, ir::Api, render::Output, HeaderSet};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Where the tools read and cache things.
#[derive(Clone, Debug)]
pub struct Paths {
    /// Downloads and extracted headers (`wheels/`, `headers/<minor>/`, `nvrtc/`, `libclang/`).
    pub cache: PathBuf,
    /// `versions.toml`.
    pub headers: PathBuf,
    /// The library folders (`driver/library.toml`, `driver/annotations.toml`, ...).
    pub libraries: PathBuf,
    /// The `templates/` tree.
    pub templates: PathBuf,
    /// The hand-written runtime crates the generated crates depend on (`c-core/`, ...).
    pub runtime: PathBuf,
}

static PATHS: OnceLock<Paths> = OnceLock::new();

/// Sets the paths for this process (the first call wins); an error if already set differently.
pub fn set_paths(paths: Paths) -> Result<()> {
    let set = PATHS.get_or_init(|| paths.clone());
    if set.cache != paths.cache
        || set.headers != paths.headers
        || set.libraries != paths.libraries
        || set.templates != paths.templates
        || set.runtime != paths.runtime
    {
        bail!("paths already set to {set:?}");
    }
    Ok(())
}

/// The paths set by [`set_paths`]; unset, this crate's own `data/` and `.cache/` beside it (tests).
pub fn paths() -> &'static Paths {
    PATHS.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        Paths {
            cache: dir.join("../.cache"),
            headers: dir.join("data/headers"),
            libraries: dir.join("data/libraries"),
            templates: dir.join("data/templates"),
            runtime: dir.join("data/runtime"),
        }
    })
}

/// Where the headers come from.
#[derive(clap::Args, Clone, Debug)]
pub struct HeaderSource {
    /// CUDA version: a minor (`12.9`) resolved through headers/versions.toml, or a full version.
    #[arg(long, default_value = "12.9")]
    pub cuda: String,
    /// Use a local toolkit's `include/` instead of NVIDIA's wheels.
    #[arg(long, value_name = "DIR")]
    pub cuda_home: Option<PathBuf>,
}

impl HeaderSource {
    /// A release of the versions table.
    pub fn release(minor: &str) -> Self {
        HeaderSource { cuda: minor.to_string(), cuda_home: None }
    }
}

/// The IR of `source` after the pass `last` (all passes when `None`): libclang provisioned,
/// headers (only) fetched and checked, annotations read.
pub fn build_until(source: &HeaderSource, last: Option<&str>) -> Result<Api> {
    build_fetched(fetch::fetch(source, fetch::Extract::Headers)?, last)
}

/// [`build_until`] over headers already fetched.
pub fn build_fetched(fetched: fetch::Fetched, last: Option<&str>) -> Result<Api> {
    libclang::ensure()?;
    let annotations = Annotations::load(libraries()?).map_err(|e| anyhow!("{e}"))?;
    let headers = HeaderSet { cuda_version: fetched.version, include_dir: fetched.include_dir };
    build_api_until(&headers, &annotations, last).map_err(|e| anyhow!("{e}"))
}

/// The libraries of the library folders ([`Paths::libraries`]), loaded once.
pub fn libraries() -> Result<Vec<LibraryKind>> {
    Registry::load_root(&paths().libraries).map_err(|e| anyhow!("{e}"))
}

/// Fails (naming `rustup component add rustfmt`) when the rustfmt that formats the generated Rust
/// cannot be run; checked before the headers are parsed.
pub fn require_rustfmt() -> Result<()> {
    cudagen_generator::format::require_rustfmt().map_err(|e| anyhow!("{e}"))
}

/// Every surface of one release (a crate without era features), with every function on every
/// surface (else an error with the coverage report).
pub fn generate(source: &HeaderSource) -> Result<Output> {
    generate_with(source, Rustfmt::Run)
}

/// [`generate`], with the Rust formatted or not (the release sweep only checks its crates). The
/// crates depend on the runtime crates of [`Paths::runtime`] by absolute path (they are written
/// outside the repository's `generated/`).
pub fn generate_with(source: &HeaderSource, rustfmt: Rustfmt) -> Result<Output> {
    if rustfmt == Rustfmt::Run {
        require_rustfmt()?;
    }
    let api = build_until(source, None).with_context(|| format!("CUDA {}", source.cuda))?;
    generate_api(&api, &source.cuda, rustfmt)
}

/// Every surface of the finished IR `api` of release `cuda` (see [`generate_with`]).
pub fn generate_api(api: &Api, cuda: &str, rustfmt: Rustfmt) -> Result<Output> {
    let mut output = emit::generate_with(api, &paths().templates, rustfmt).map_err(|e| anyhow!("CUDA {cuda}: {e}"))?;
    output::relocate_runtime(&mut output.files, &paths().runtime)?;
    if output.coverage.problems() > 0 {
        bail!(
            "CUDA {cuda}: {} functions are missing from a surface or skipped:\n{}",
            output.coverage.problems(),
            output.coverage.report()
        );
    }
    Ok(output)
}
