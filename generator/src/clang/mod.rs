//! A small safe layer over libclang (through clang-sys, loaded at run time).
//!
//! This is the only module that touches clang-sys types. Everything it hands out is owned Rust
//! data or a cursor/type handle tied to a [`TranslationUnit`]'s lifetime.

mod cursor;
mod stdinc;

pub use cursor::{Cursor, CursorKind, Token, TokenKind, Ty, TyKind};

use crate::diag::{Error, Result};
use crate::ir::Location;
use clang_sys::*;
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::path::Path;
use std::ptr;

/// Loads libclang for this thread (clang-sys keeps the library per thread).
fn ensure_loaded() -> Result<()> {
    if clang_sys::is_loaded() {
        return Ok(());
    }
    clang_sys::load().map_err(|e| {
        Error::new(format!(
            "libclang could not be loaded ({e}). Run `cargo xtask doctor` (it provisions one), \
             or set LIBCLANG_PATH to the folder holding libclang.so"
        ))
    })
}

/// The libclang version string (`clang version 18.1.1 ...`).
pub fn version() -> Result<String> {
    ensure_loaded()?;
    Ok(unsafe { cx_string(clang_getClangVersion()) })
}

/// The arguments every parse starts with: C11 and the hermetic libc stubs instead of the
/// machine's headers.
pub fn base_args() -> Result<Vec<String>> {
    let stub_dir = stdinc::materialise()?;
    Ok(vec![
        "-x".into(),
        "c".into(),
        "-std=c11".into(),
        "-nostdinc".into(),
        format!("-isystem{}", stub_dir.display()),
        "-fparse-all-comments".into(),
    ])
}

/// A parsed translation unit. Owns the index.
pub struct TranslationUnit {
    index: CXIndex,
    tu: CXTranslationUnit,
}

impl TranslationUnit {
    /// Parses `file` as C11 with the given `-I`/`-D` arguments and the hermetic libc stubs.
    /// Any error-level diagnostic becomes an [`Error`] with its location.
    pub fn parse(file: &Path, extra_args: &[String]) -> Result<TranslationUnit> {
        Self::parse_with(file, None, extra_args)
    }

    /// Parses `text` as if it were the file `file` (which need not exist): an umbrella source.
    pub fn parse_source(file: &Path, text: &str, extra_args: &[String]) -> Result<TranslationUnit> {
        Self::parse_with(file, Some(text), extra_args)
    }

    fn parse_with(file: &Path, text: Option<&str>, extra_args: &[String]) -> Result<TranslationUnit> {
        ensure_loaded()?;
        let mut args = base_args()?;
        args.extend(extra_args.iter().cloned());
        let c_args: Vec<CString> = args.iter().map(|a| CString::new(a.as_str()).unwrap_or_default()).collect();
        let c_ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        let c_file = CString::new(file.to_string_lossy().as_bytes())
            .map_err(|_| Error::new(format!("{}: path contains NUL", file.display())))?;
        let c_text = text
            .map(|t| CString::new(t).map_err(|_| Error::new(format!("{}: text contains NUL", file.display()))))
            .transpose()?;
        let mut unsaved: Vec<CXUnsavedFile> = c_text
            .iter()
            .map(|t| CXUnsavedFile { Filename: c_file.as_ptr(), Contents: t.as_ptr(), Length: t.as_bytes().len() as _ })
            .collect();
        unsafe {
            let index = clang_createIndex(0, 0);
            let mut tu: CXTranslationUnit = ptr::null_mut();
            let options = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_SkipFunctionBodies;
            let rc = clang_parseTranslationUnit2(
                index,
                c_file.as_ptr(),
                c_ptrs.as_ptr(),
                c_ptrs.len() as i32,
                if unsaved.is_empty() { ptr::null_mut() } else { unsaved.as_mut_ptr() },
                unsaved.len() as u32,
                options,
                &mut tu,
            );
            if rc != CXError_Success || tu.is_null() {
                clang_disposeIndex(index);
                return Err(Error::new(format!("{}: libclang could not parse it (error {rc})", file.display())));
            }
            let unit = TranslationUnit { index, tu };
            unit.check_diagnostics()?;
            Ok(unit)
        }
    }

    fn check_diagnostics(&self) -> Result<()> {
        let mut errors = crate::diag::Errors::default();
        unsafe {
            for i in 0..clang_getNumDiagnostics(self.tu) {
                let d = clang_getDiagnostic(self.tu, i);
                let severity = clang_getDiagnosticSeverity(d);
                if severity >= CXDiagnostic_Error {
                    let loc = location_of(clang_getDiagnosticLocation(d));
                    let text = cx_string(clang_getDiagnosticSpelling(d));
                    errors.push(Error::at(loc, text));
                }
                clang_disposeDiagnostic(d);
            }
        }
        errors.finish()
    }

    /// The root cursor.
    pub fn cursor(&self) -> Cursor<'_> {
        Cursor::new(unsafe { clang_getTranslationUnitCursor(self.tu) }, self)
    }

    pub(crate) fn raw(&self) -> CXTranslationUnit {
        self.tu
    }

    /// The line ranges (first, last) of `file` that the preprocessor skipped (`#if 0` blocks).
    pub fn skipped_lines(&self, file: &str) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        unsafe {
            let list = clang_getAllSkippedRanges(self.tu);
            if list.is_null() {
                return out;
            }
            for i in 0..(*list).count as usize {
                let range = *(*list).ranges.add(i);
                let (start, end) = (location_of(clang_getRangeStart(range)), location_of(clang_getRangeEnd(range)));
                if start.file == file {
                    out.push((start.line, end.line));
                }
            }
            clang_disposeSourceRangeList(list);
        }
        out
    }
}

impl Drop for TranslationUnit {
    fn drop(&mut self) {
        unsafe {
            clang_disposeTranslationUnit(self.tu);
            clang_disposeIndex(self.index);
        }
    }
}

/// Converts and frees a libclang string.
pub(crate) unsafe fn cx_string(s: CXString) -> String {
    let p = clang_getCString(s);
    let out = if p.is_null() { String::new() } else { CStr::from_ptr(p).to_string_lossy().into_owned() };
    clang_disposeString(s);
    out
}

/// The spelling location of a source location, as file name (no directory) and line.
pub(crate) fn location_of(loc: CXSourceLocation) -> Location {
    unsafe {
        let mut file: CXFile = ptr::null_mut();
        let mut line = 0;
        let mut col = 0;
        let mut off = 0;
        clang_getSpellingLocation(loc, &mut file, &mut line, &mut col, &mut off);
        let name = if file.is_null() { String::new() } else { cx_string(clang_getFileName(file)) };
        let base = Path::new(&name).file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or(name);
        Location { file: base, line }
    }
}
