//! Builds the raw IR from the headers through `clang/`.
//!
//! The parser records what the headers say and nothing more: parameter directions and roles,
//! handle kinds and names are decided later by `passes/`.

mod decls;
mod forwarders;
mod macros;
mod names;
mod types;
mod versions;

use crate::clang::TranslationUnit;
use crate::diag::{Error, Result};
use crate::ir::{Api, HeaderInfo, Library, LibraryKind};
use crate::profile::LibraryProfile;
use crate::HeaderSet;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

pub use crate::profile::Companion;

/// Parses every library whose main header (its profile's `header`) is in `headers.include_dir`,
/// with its typedefs header and companions where present.
pub fn parse_headers(headers: &HeaderSet) -> Result<Api> {
    let dir = &headers.include_dir;
    let mut api = Api { cuda_version: headers.cuda_version.clone(), libraries: Vec::new() };
    let kinds = LibraryKind::all().collect::<Vec<_>>();
    for k in &kinds {
        api.libraries.extend(parse_profile(k.profile(), dir)?);
    }
    if api.libraries.is_empty() {
        let names: Vec<&str> = kinds.iter().map(|k| k.profile().header.as_str()).collect();
        return Err(Error::new(format!("{}: none of {} is there", dir.display(), names.join(", "))));
    }
    Ok(api)
}

/// Parses the library `profile` describes from the headers in `dir` (its main header, with its
/// typedefs header and companions where present); `None` when its main header is not there.
pub fn parse_profile(profile: &'static LibraryProfile, dir: &Path) -> Result<Option<Library>> {
    let header = dir.join(&profile.header);
    if !header.exists() {
        return Ok(None);
    }
    let typedefs = profile.typedefs.as_ref().map(|t| dir.join(t)).filter(|t| t.exists());
    let companions: Vec<Companion> = profile.companions.iter().filter(|c| dir.join(&c.header).exists()).cloned().collect();
    parse_parts(profile, &header, typedefs.as_deref(), &companions).map(Some)
}

/// Parses one header (and, for the driver, its `cudaTypedefs.h` companion for ABI versions).
pub fn parse_library(kind: LibraryKind, header: &Path, typedefs: Option<&Path>) -> Result<Library> {
    parse_family(kind, header, typedefs, &[])
}

/// Parses a main header with its `PFN_*` typedefs header and its companions (all in one folder).
pub fn parse_family(kind: LibraryKind, header: &Path, typedefs: Option<&Path>, companions: &[Companion]) -> Result<Library> {
    parse_parts(kind.profile(), header, typedefs, companions)
}

/// [`parse_family`] for the library `profile` describes.
fn parse_parts(
    profile: &'static LibraryProfile,
    header: &Path,
    typedefs: Option<&Path>,
    companions: &[Companion],
) -> Result<Library> {
    let include_dir = header.parent().unwrap_or(Path::new("."));
    let mut library = Library::new(profile.kind());
    let mut files = Files::default();
    files.declarations.insert(file_name(header));
    library.headers.push(header_info(header, &[], None)?);
    for d in profile.declares.iter().filter(|d| include_dir.join(d).exists()) {
        files.declarations.insert(d.to_string());
        library.headers.push(HeaderInfo { included_by_main: true, ..header_info(&include_dir.join(d), &[], None)? });
    }
    // `PFN_*` typedef headers that exist: the main one, then the companions'.
    let mut typedef_paths: Vec<PathBuf> = Vec::new();
    if let Some(t) = typedefs {
        library.headers.push(header_info(t, &[], None)?);
        files.versions.insert(file_name(t));
        typedef_paths.push(t.to_path_buf());
    }
    for c in companions {
        library.headers.push(header_info(&include_dir.join(&c.header), &c.needs, Some(&c.guard))?);
        files.declarations.insert(c.header.to_string());
        files.legacy_free.insert(c.header.to_string());
        files.declarations.extend(c.needs.iter().map(|n| file_name(Path::new(n))));
        if let Some(t) = c.typedefs.as_ref().filter(|t| include_dir.join(t).exists()) {
            library.headers.push(header_info(&include_dir.join(t), &[], None)?);
            files.versions.insert(t.to_string());
            typedef_paths.push(include_dir.join(t));
        }
    }

    // A typedefs header includes its main header: one parse serves both.
    let tu = translation_unit(typedefs.unwrap_or(header), include_dir, companions)?;
    let top: Vec<_> = tu.cursor().children();
    let names = names::PublicNames::collect(&top, &files);
    decls::collect(&top, &files, &names, &mut library)?;
    macros::collect(&top, &files, &mut library);
    let main_file = file_name(header);
    let text = std::fs::read_to_string(header).map_err(|e| Error::new(format!("{}: {e}", header.display())))?;
    macros::drop_undefined(&mut library, &main_file, &text, &tu.skipped_lines(&main_file));
    macros::per_thread_from_text(&text, &mut library);
    forwarders::fold(&text, &main_file, &mut library);
    // The companions' typedefs too: their deprecated functions, left out of the IR, are still
    // exports a program built against their headers may reference (`cuGLInit`).
    let mut typedefs_text = String::new();
    for path in &typedef_paths {
        typedefs_text += &std::fs::read_to_string(path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    }
    if !files.versions.is_empty() {
        versions::assign(&top, &files.versions, &versions::abi_versions(&typedefs_text), &mut library);
    }
    if typedefs.is_some() {
        versions::legacy_from_text(&typedefs_text, &mut library);
    }
    library.status_enum = library.enum_named(&profile.status_enum).map(|e| e.name.clone());
    Ok(library)
}

/// One parse of `root` and, after it, each companion (its typedefs header where there is one)
/// with the graphics headers it needs.
fn translation_unit(root: &Path, include_dir: &Path, companions: &[Companion]) -> Result<TranslationUnit> {
    let args = vec![format!("-I{}", include_dir.display())];
    if companions.is_empty() {
        return TranslationUnit::parse(root, &args);
    }
    let mut umbrella = format!("#include \"{}\"\n", file_name(root));
    for c in companions {
        for n in &c.needs {
            let _ = writeln!(umbrella, "#include <{n}>");
        }
        let t = c.typedefs.as_ref().filter(|t| include_dir.join(t).exists()).unwrap_or(&c.header);
        let _ = writeln!(umbrella, "#include \"{t}\"");
    }
    TranslationUnit::parse_source(&include_dir.join("cudagen-umbrella.c"), &umbrella, &args)
}

/// Which files of a parse say what (file names without folders, as locations give them).
#[derive(Default)]
pub(crate) struct Files {
    /// Files whose declarations belong to the library (headers and graphics stand-ins).
    pub declarations: BTreeSet<String>,
    /// Files whose deprecated functions are left out (the companions).
    pub legacy_free: BTreeSet<String>,
    /// `PFN_*` typedef headers.
    pub versions: BTreeSet<String>,
}

impl Files {
    pub fn declares(&self, c: &crate::clang::Cursor<'_>) -> bool {
        self.declarations.contains(&c.location().file)
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

fn header_info(path: &Path, needs: &[String], guard: Option<&str>) -> Result<HeaderInfo> {
    let bytes = std::fs::read(path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    let includes = needs.iter().map(|n| n.to_string()).collect();
    Ok(HeaderInfo {
        file: file_name(path),
        sha256: sha256_hex(&bytes),
        includes,
        guard: guard.map(str::to_string),
        included_by_main: false,
    })
}

fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}
