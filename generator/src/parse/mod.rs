//! Builds the raw IR from the headers through `clang/`.
//!
//! The parser records what the headers say and nothing more: parameter directions and roles,
//! handle kinds and names are decided later by `passes/`.

mod decls;
mod macros;
mod names;
mod types;
mod versions;

use crate::clang::TranslationUnit;
use crate::diag::{Error, Result};
use crate::ir::{Api, HeaderInfo, Library, LibraryKind};
use crate::HeaderSet;
use std::path::Path;

/// Parses every library whose header is present in `headers.include_dir`.
pub fn parse_headers(headers: &HeaderSet) -> Result<Api> {
    let dir = &headers.include_dir;
    let mut api = Api { cuda_version: headers.cuda_version.clone(), libraries: Vec::new() };
    let cuda = dir.join("cuda.h");
    let nvrtc = dir.join("nvrtc.h");
    if !cuda.exists() && !nvrtc.exists() {
        return Err(Error::new(format!("{}: neither cuda.h nor nvrtc.h is there", dir.display())));
    }
    if cuda.exists() {
        let typedefs = dir.join("cudaTypedefs.h");
        api.libraries.push(parse_library(LibraryKind::Driver, &cuda, typedefs.exists().then_some(typedefs.as_path()))?);
    }
    if nvrtc.exists() {
        api.libraries.push(parse_library(LibraryKind::Nvrtc, &nvrtc, None)?);
    }
    Ok(api)
}

/// Parses one header (and, for the driver, its `cudaTypedefs.h` companion for ABI versions).
pub fn parse_library(kind: LibraryKind, header: &Path, typedefs: Option<&Path>) -> Result<Library> {
    let include_dir = header.parent().unwrap_or(Path::new("."));
    let args = vec![format!("-I{}", include_dir.display())];
    let main_file = file_name(header);
    let mut library = Library::new(kind);
    library.headers.push(header_info(header)?);

    // cudaTypedefs.h includes cuda.h: one parse serves both.
    let root = typedefs.unwrap_or(header);
    let tu = TranslationUnit::parse(root, &args)?;
    let top: Vec<_> = tu.cursor().children();
    let names = names::PublicNames::collect(&top, &main_file);
    decls::collect(&top, &main_file, &names, &mut library)?;
    macros::collect(&top, &main_file, &mut library);
    macros::per_thread_from_text(&String::from_utf8_lossy(&std::fs::read(header).unwrap_or_default()), &mut library);
    if let Some(t) = typedefs {
        library.headers.push(header_info(t)?);
        versions::assign(&top, &file_name(t), &mut library);
        versions::legacy_from_text(&String::from_utf8_lossy(&std::fs::read(t).unwrap_or_default()), &mut library);
    }
    library.status_enum = match kind {
        LibraryKind::Driver => library.enum_named("CUresult").map(|e| e.name.clone()),
        LibraryKind::Nvrtc => library.enum_named("nvrtcResult").map(|e| e.name.clone()),
    };
    Ok(library)
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

fn header_info(path: &Path) -> Result<HeaderInfo> {
    let bytes = std::fs::read(path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
    Ok(HeaderInfo { file: file_name(path), sha256: sha256_hex(&bytes) })
}

fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}
