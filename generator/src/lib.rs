//! cudagen's generator: NVIDIA headers in, bindings text out.
//!
//! `clang/` wraps libclang, `parse/` builds the raw [`ir::Api`], `passes/` refine it,
//! `render/` turns it into files through the Tera templates, `emit` assembles the output.
//! No network, no GPU: the xtask does all I/O besides reading headers and templates.

pub mod annotations;
mod clang;
pub mod coverage;
mod diag;
pub mod diff;
pub mod emit;
pub mod format;
pub mod ir;
pub mod parse;
pub mod passes;
pub mod profile;
pub mod render;

pub use diag::{Error, Errors, Result};

use std::path::PathBuf;

/// The headers of one CUDA version: a folder holding `cuda.h`, `cudaTypedefs.h` and `nvrtc.h`
/// (missing files skip that library).
#[derive(Clone, Debug)]
pub struct HeaderSet {
    /// `12.9`, or a full version (`12.9.79`).
    pub cuda_version: String,
    pub include_dir: PathBuf,
}

/// The version of the libclang the generator loads (`clang version 18.1.1 ...`).
pub fn libclang_version() -> Result<String> {
    clang::version()
}

/// The libclang arguments the parser uses for headers in `include_dir` (C11, hermetic libc
/// stubs, `-I`), so that a second tool parsing the same headers sees exactly what we see.
pub fn clang_args(include_dir: &std::path::Path) -> Result<Vec<String>> {
    let mut args = clang::base_args()?;
    args.push(format!("-I{}", include_dir.display()));
    Ok(args)
}

/// Parse the headers and run every pass: the finished IR.
pub fn build_api(headers: &HeaderSet, annotations: &annotations::Annotations) -> Result<ir::Api> {
    build_api_until(headers, annotations, None)
}

/// The finished IR of the one library `kind`, from its headers in `include_dir` and its folder's
/// annotations: a library of any root ([`profile::Registry::load_root`]: one being added, or a
/// test's toy) goes through the same parse, passes and renderers as the others.
pub fn build_library(kind: ir::LibraryKind, include_dir: &std::path::Path) -> Result<ir::Api> {
    let profile = kind.profile();
    let lib = parse::parse_profile(profile, include_dir)?
        .ok_or_else(|| Error::new(format!("{}: no {}", include_dir.display(), profile.header)))?;
    let mut api = ir::Api { cuda_version: String::new(), libraries: vec![lib] };
    let annotations = annotations::Annotations::load([kind])?;
    passes::run_all(&mut api, &annotations)?;
    Ok(api)
}

/// [`build_api`] stopping after the pass `last` (see [`passes::PASSES`]), for review.
pub fn build_api_until(headers: &HeaderSet, annotations: &annotations::Annotations, last: Option<&str>) -> Result<ir::Api> {
    let mut api = parse::parse_headers(headers)?;
    passes::run_until(&mut api, annotations, last)?;
    Ok(api)
}
