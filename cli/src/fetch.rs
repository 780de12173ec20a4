//! Getting NVIDIA's headers (and the shared libraries the tests load) out of its pip wheels, into
//! the git-ignored cache: `.cache/wheels/` (downloads), `.cache/headers/<minor>/` (every header
//! the library folders' `fetch` tables and companions name: `wheels::plans`),
//! `.cache/<id>/<minor>/` (a library's shared library, where its `fetch.libs` names one), and
//! `.cache/<archive>/<minor>/` for a static archive a library links (the runtime wheel's
//! `libcudart_static.a` in `lib/` and its version header in `include/`). Each header's sha256 is
//! checked against the table.

use crate::versions::{Entry, Table};
use crate::wheels::{optional_headers, plans, required_headers, WheelPlan};
use crate::{paths, run, HeaderSource};
use anyhow::{bail, Context, Result};
use cudagen_generator::profile::LibraryKind;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Headers ready for the generator.
pub struct Fetched {
    pub version: String,
    pub include_dir: PathBuf,
    /// Each fetched shared library (the first of its `fetch.libs`), by library id (absent with
    /// `--cuda-home`).
    pub libs: BTreeMap<String, PathBuf>,
    /// The static archive a library links (`libcudart_static.a` from the runtime wheel), which
    /// wheels of the Python module link (`$CUDAGEN_CUDART_STATIC`); absent with `--cuda-home`
    /// and from wheels without it.
    pub static_archive: Option<PathBuf>,
    pub sha256: BTreeMap<String, String>,
}

pub fn sha256_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect())
}

/// What a fetch extracts from the wheels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extract {
    /// The headers only: what the generator reads (`libs` and `static_archive` stay empty).
    Headers,
    /// The headers, the shared libraries and the static archive the tests load and link.
    All,
}

/// Resolves the source: a local toolkit, or the table's wheels (headers and libraries).
pub fn headers(source: &HeaderSource) -> Result<Fetched> {
    fetch(source, Extract::All)
}

/// [`headers`], extracting `what`.
pub fn fetch(source: &HeaderSource, what: Extract) -> Result<Fetched> {
    if let Some(home) = &source.cuda_home {
        let kinds = crate::libraries()?;
        let include_dir = home.join("include");
        let mut sha256 = BTreeMap::new();
        for h in required_headers(&kinds) {
            let p = include_dir.join(&h);
            if !p.exists() {
                bail!("{} not found (--cuda-home must hold include/{h})", p.display());
            }
            sha256.insert(h, sha256_file(&p)?);
        }
        for h in optional_headers(&kinds) {
            let p = include_dir.join(&h);
            if p.exists() {
                sha256.insert(h, sha256_file(&p)?);
            }
        }
        let version = source.cuda.clone();
        return Ok(Fetched { version, include_dir, libs: BTreeMap::new(), static_archive: None, sha256 });
    }
    let table = Table::load()?;
    fetch_entry(table.resolve(&source.cuda)?, true, what)
}

/// What a complete header folder's `.complete` stamp says: the extraction lists it was made with
/// (changed with them, so older folders are extracted again).
const STAMP: &str = "headers: cuda, runtime API, driver and runtime interop, library types, profiler (3)\n";

/// Downloads (if needed) and extracts one table entry; `verify` checks the table's hashes (and
/// lets a wheel whose headers the header store holds by those hashes go undownloaded when only
/// headers are wanted).
pub fn fetch_entry(entry: &Entry, verify: bool, what: Extract) -> Result<Fetched> {
    let kinds = crate::libraries()?;
    let cache = paths().cache.clone();
    let include_dir = cache.join("headers").join(&entry.minor);
    let required = required_headers(&kinds);
    let plans = plans(&kinds);
    let stored = |w: &WheelPlan| verify && what == Extract::Headers && from_store(&cache, entry, w, &include_dir);
    // Written last, naming what was extracted: a folder extracted with an older list of headers
    // is extracted again.
    let stamp = include_dir.join(".complete");
    let complete =
        required.iter().all(|h| include_dir.join(h).exists()) && std::fs::read_to_string(&stamp).is_ok_and(|s| s == STAMP);
    if !complete {
        std::fs::create_dir_all(&include_dir)?;
        for w in plans.iter().filter(|w| w.core) {
            let Some(requirement) = entry.wheel(&w.key) else { continue };
            if !stored(w) {
                extract_headers(&wheel(&cache.join("wheels"), requirement)?, &include_dir, w)?;
            }
        }
        std::fs::write(&stamp, STAMP)?;
    }
    let mut libs = BTreeMap::new();
    for w in &plans {
        let Some(requirement) = entry.wheel(&w.key) else { continue };
        let headers_there = w.core || w.headers.iter().all(|h| include_dir.join(h).exists());
        if what == Extract::Headers {
            if !headers_there && !stored(w) {
                extract_headers(&wheel(&cache.join("wheels"), requirement)?, &include_dir, w)?;
            }
            continue;
        }
        for (id, starts) in &w.libs {
            let lib_dir = cache.join(id).join(&entry.minor);
            if !headers_there || find_lib(&lib_dir, &starts[0]).is_none() {
                std::fs::create_dir_all(&lib_dir)?;
                let whl = wheel(&cache.join("wheels"), requirement)?;
                if !w.core {
                    extract_headers(&whl, &include_dir, w)?;
                }
                let wanted = |f: &str| starts.iter().any(|s| f.starts_with(s.as_str()));
                extract(&whl, &lib_dir, |name| Path::new(name).file_name().and_then(|f| f.to_str()).is_some_and(wanted))?;
            }
            libs.extend(find_lib(&lib_dir, &starts[0]).map(|l| (id.clone(), l)));
        }
    }
    let static_archive = match what {
        Extract::All => static_archive(&cache, entry, &kinds)?,
        Extract::Headers => None,
    };
    let mut sha256 = BTreeMap::new();
    let present: Vec<String> = optional_headers(&kinds).into_iter().filter(|h| include_dir.join(h).exists()).collect();
    for h in required.iter().chain(&present) {
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
        store(&cache, &include_dir.join(h), &got)?;
        sha256.insert(h.to_string(), got);
    }
    Ok(Fetched { version: entry.minor.clone(), include_dir, libs, static_archive, sha256 })
}

/// `.cache/header-store/<sha256>`: every header fetched so far, by content. Many releases share
/// a header (`nvvm.h` has 8 versions in 15 releases, the profiler headers one), so a release's
/// wheel whose headers are all there need not be downloaded for them.
fn store_path(cache: &Path, sha256: &str) -> PathBuf {
    cache.join("header-store").join(sha256)
}

/// Adds `header` (whose sha256 is `sha256`) to the header store.
fn store(cache: &Path, header: &Path, sha256: &str) -> Result<()> {
    let path = store_path(cache, sha256);
    if !path.exists() {
        std::fs::create_dir_all(cache.join("header-store"))?;
        let part = path.with_extension("part");
        std::fs::copy(header, &part).with_context(|| format!("storing {}", header.display()))?;
        std::fs::rename(&part, &path)?;
    }
    Ok(())
}

/// Copies the headers of `w` that `entry` hashes from the header store into `include_dir`;
/// false (copying nothing) unless the store holds every one of them.
fn from_store(cache: &Path, entry: &Entry, w: &WheelPlan, include_dir: &Path) -> bool {
    let hashed: Vec<(&String, PathBuf)> =
        w.headers.iter().filter_map(|h| Some((h, store_path(cache, entry.sha256.get(h)?)))).collect();
    if hashed.is_empty() || !hashed.iter().all(|(_, p)| p.exists()) {
        return false;
    }
    hashed.iter().all(|(h, p)| std::fs::copy(p, include_dir.join(h)).is_ok())
}

/// Extracts the headers `w` names from its wheel `whl` into `include_dir`.
fn extract_headers(whl: &Path, include_dir: &Path, w: &WheelPlan) -> Result<()> {
    extract(whl, include_dir, |name| w.headers.iter().any(|h| name.ends_with(&format!("include/{h}"))))
}

/// `.cache/<archive>/<minor>/lib/<file>` (`.cache/cudart/12.9/lib/libcudart_static.a`), with the
/// header that gives its version in `include/` beside it (the layout the crate's `build.rs`
/// reads), extracted from the wheel of the library whose `loader.static_link` names it; `None`
/// when no library links one or the wheel has no static archive.
fn static_archive(cache: &Path, entry: &Entry, kinds: &[LibraryKind]) -> Result<Option<PathBuf>> {
    let linked = kinds.iter().map(|k| k.profile()).find(|p| p.loader.static_link.is_some());
    let Some((p, link)) = linked.and_then(|p| Some((p, p.loader.static_link.as_ref()?))) else { return Ok(None) };
    let Some(requirement) = p.fetch.wheel.as_deref().and_then(|w| entry.wheel(w)) else { return Ok(None) };
    let (file, header) = (link.file(), &link.version_header);
    let dir = cache.join(link.archive.trim_end_matches("_static")).join(&entry.minor);
    let archive = dir.join("lib").join(&file);
    if archive.exists() && dir.join("include").join(header).exists() {
        return Ok(Some(archive));
    }
    let whl = wheel(&cache.join("wheels"), requirement)?;
    std::fs::create_dir_all(dir.join("lib"))?;
    std::fs::create_dir_all(dir.join("include"))?;
    if !extract_any(&whl, &dir.join("lib"), |name| name.ends_with(&format!("/lib/{file}")))? {
        return Ok(None);
    }
    extract(&whl, &dir.join("include"), |name| name.ends_with(&format!("include/{header}")))?;
    Ok(Some(archive))
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
    for (id, lib) in &f.libs {
        println!("{id}: {}", lib.display());
    }
    if let Some(a) = f.static_archive {
        println!("static archive: {}", a.display());
    }
    Ok(())
}

/// `cargo xtask versions [--update]`.
pub fn versions_command(update: bool) -> Result<()> {
    let mut table = Table::load()?;
    if update {
        for e in &mut table.cuda {
            let fetched = fetch_entry(e, false, Extract::All)?;
            e.sha256 = fetched.sha256;
            println!("{}: {}", e.minor, e.sha256.values().map(|h| &h[..12]).collect::<Vec<_>>().join(" "));
        }
        std::fs::write(paths().headers.join("versions.toml"), table.render())?;
        println!("headers/versions.toml updated");
    } else {
        for e in &table.cuda {
            println!("{:5} {}", e.minor, e.wheels.values().cloned().collect::<Vec<_>>().join(" "));
        }
    }
    Ok(())
}
