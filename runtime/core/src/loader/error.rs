//! [`LoadError`]: a missing library or entry point, with enough context to fix it.

use super::{Entry, LibraryKind, Resolve};
use std::cell::RefCell;
use std::fmt;
use std::sync::{Arc, Mutex};

/// What the loader knows about one library: its name, where it was found or where it looked.
#[derive(Debug)]
pub(crate) struct LibraryInfo {
    pub(crate) kind: LibraryKind,
    /// Soname or configured path, e.g. `libcuda.so.1`.
    pub(crate) name: String,
    /// Path or name it was opened from; `None` when it was not found.
    pub(crate) opened: Option<String>,
    /// Each candidate tried, with why it was rejected (`"path (reason)"`).
    pub(crate) looked: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reason {
    LibraryMissing,
    NotFound,
    VersionTooOld,
    /// `cuGetProcAddress` itself returned this `CUresult`.
    Status(i32),
    BadIndex(usize),
}

/// A library or entry point that could not be loaded. Cheap to clone (one `Arc`).
#[derive(Clone, Debug)]
pub struct LoadError {
    library: Arc<LibraryInfo>,
    symbol: Option<&'static str>,
    /// The other exports tried ([`Entry::fallbacks`]).
    fallbacks: &'static [&'static str],
    version: Option<u32>,
    reason: Reason,
}

impl LoadError {
    fn new(library: Arc<LibraryInfo>, entry: Option<&Entry>, reason: Reason) -> Self {
        let fallbacks = entry.map_or(&[][..], |e| e.fallbacks);
        Self {
            library,
            symbol: entry.map(|e| e.symbol),
            fallbacks,
            version: entry.map(|e| e.version).filter(|&v| v != 0),
            reason,
        }
    }
    pub(crate) fn library_not_found(lib: Arc<LibraryInfo>, entry: &Entry) -> Self {
        Self::new(lib, Some(entry), Reason::LibraryMissing)
    }
    pub(crate) fn not_found(lib: Arc<LibraryInfo>, entry: &Entry) -> Self {
        Self::new(lib, Some(entry), Reason::NotFound)
    }
    pub(crate) fn too_old(lib: Arc<LibraryInfo>, entry: &Entry) -> Self {
        Self::new(lib, Some(entry), Reason::VersionTooOld)
    }
    pub(crate) fn status(lib: Arc<LibraryInfo>, entry: &Entry, code: i32) -> Self {
        Self::new(lib, Some(entry), Reason::Status(code))
    }
    pub(crate) fn bad_index(kind: LibraryKind, index: usize) -> Self {
        let lib = LibraryInfo { kind, name: String::new(), opened: None, looked: Vec::new() };
        Self::new(Arc::new(lib), None, Reason::BadIndex(index))
    }

    /// Slot sentinel caching this failure, or `None` if it is worth retrying.
    pub(crate) fn sentinel(&self) -> Option<usize> {
        match self.reason {
            Reason::NotFound => Some(1),
            Reason::VersionTooOld => Some(2),
            Reason::LibraryMissing => Some(3),
            Reason::Status(_) | Reason::BadIndex(_) => None,
        }
    }
    pub(crate) fn from_sentinel(lib: Arc<LibraryInfo>, entry: &Entry, sentinel: usize) -> Self {
        let reason = match sentinel {
            1 => Reason::NotFound,
            2 => Reason::VersionTooOld,
            _ => Reason::LibraryMissing,
        };
        Self::new(lib, Some(entry), reason)
    }

    /// The library itself could not be opened (as opposed to one entry point missing).
    pub fn library_missing(&self) -> bool {
        self.reason == Reason::LibraryMissing
    }
    /// ABI symbol that was asked for, e.g. `cuMemAlloc_v2`.
    pub fn symbol(&self) -> Option<&str> {
        self.symbol
    }
    /// CUDA version that introduced the ABI asked for (`3020` = 3.2).
    pub fn version(&self) -> Option<u32> {
        self.version
    }
    /// Which library this is about.
    pub fn kind(&self) -> LibraryKind {
        self.library.kind
    }
    /// Library name (soname or configured path), e.g. `libcuda.so.1`.
    pub fn library_name(&self) -> &str {
        &self.library.name
    }
    /// Where the library was opened from, if it was.
    pub fn library_path(&self) -> Option<&str> {
        self.library.opened.as_deref()
    }
    /// Candidates tried while searching for the library, each `"place (why rejected)"`.
    pub fn looked_in(&self) -> &[String] {
        &self.library.looked
    }
    /// Suggested `CUresult` for surfaces that must return one:
    /// `CUDA_ERROR_NO_DEVICE` (100) without a driver, else `CUDA_ERROR_NOT_FOUND` (500).
    pub fn cuda_error_code(&self) -> i32 {
        if self.library_missing() {
            100
        } else {
            500
        }
    }
    /// Suggested `nvrtcResult` for surfaces that must return one: `NVRTC_ERROR_INTERNAL_ERROR` (11).
    pub fn nvrtc_error_code(&self) -> i32 {
        11
    }
}

/// `3020` -> `3.2`, `12040` -> `12.4`.
pub(crate) struct CudaVersion(pub(crate) u32);

impl fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0 / 1000, (self.0 % 1000) / 10)
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lib = &*self.library;
        let sym = self.symbol.unwrap_or("?");
        let place = lib.opened.as_deref().unwrap_or(&lib.name);
        // A library resolved through `cuGetProcAddress` is the driver: name its version.
        let driver = match lib.kind.profile().resolve {
            Resolve::GetProcAddress if lib.opened.is_some() => super::driver_version_of(lib.kind),
            _ => None,
        };
        let write_sym = |f: &mut fmt::Formatter<'_>| match self.version {
            Some(v) => write!(f, "{sym} (CUDA {})", CudaVersion(v)),
            None => f.write_str(sym),
        };
        let write_driver = |f: &mut fmt::Formatter<'_>| match driver {
            Some(d) if d > 0 => write!(f, " (driver {})", CudaVersion(d as u32)),
            _ => Ok(()),
        };
        match self.reason {
            Reason::LibraryMissing => {
                write!(f, "{} not found", lib.name)?;
                if let Some(sym) = self.symbol {
                    write!(f, " (needed for {sym}")?;
                    if let Some(v) = self.version {
                        write!(f, ", CUDA {}", CudaVersion(v))?;
                    }
                    f.write_str(")")?;
                }
                write!(f, "; looked in: {}", lib.looked.join(", "))?;
                let var = lib.kind.profile().override_var;
                write!(f, "; set {var} to the library's path")
            }
            Reason::NotFound => {
                write_sym(f)?;
                write!(f, " not found in {place}")?;
                write_driver(f)?;
                if !self.fallbacks.is_empty() {
                    write!(f, ", nor its other exports {}: the library predates the function", self.fallbacks.join(", "))?;
                    if let Some(v) = self.version {
                        write!(f, " (the CUDA {} headers declare it)", CudaVersion(v))?;
                    }
                }
                Ok(())
            }
            Reason::VersionTooOld => {
                write_sym(f)?;
                write!(f, " not available in {place}")?;
                write_driver(f)?;
                match self.version {
                    Some(v) => write!(f, ": needs CUDA {}", CudaVersion(v)),
                    None => f.write_str(": driver too old"),
                }
            }
            Reason::Status(code) => {
                write!(f, "cuGetProcAddress failed with CUresult {code} resolving ")?;
                write_sym(f)?;
                write!(f, " in {place}")?;
                write_driver(f)
            }
            Reason::BadIndex(i) => write!(f, "internal error: no entry {i} in the {:?} table", lib.kind),
        }
    }
}

impl std::error::Error for LoadError {}

thread_local! {
    static LAST: RefCell<Option<LoadError>> = const { RefCell::new(None) };
}
static GLOBAL_LAST: Mutex<Option<LoadError>> = Mutex::new(None);

/// Remember `e` as the most recent failure of this thread and of the process.
pub(crate) fn set_last(e: &LoadError) {
    let _ = LAST.try_with(|c| {
        if let Ok(mut slot) = c.try_borrow_mut() {
            *slot = Some(e.clone());
        }
    });
    let mut g = GLOBAL_LAST.lock().unwrap_or_else(|p| p.into_inner());
    *g = Some(e.clone());
}

/// Message of the most recent load failure: this thread's if it had one, else the process's.
/// For the C shim's `cudagenLastLoaderError()` and the Python exception text.
pub fn last_error_message() -> Option<String> {
    let mine = LAST.try_with(|c| c.try_borrow().ok().and_then(|b| b.clone())).ok().flatten();
    let e = mine.or_else(|| GLOBAL_LAST.lock().unwrap_or_else(|p| p.into_inner()).clone())?;
    Some(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::super::kind::tests::NVRTC;
    use super::*;

    const ENTRY: Entry =
        Entry { symbol: "nvrtcGetPTX", proc_name: "nvrtcGetPTX", version: 12040, per_thread: false, fallbacks: &[] };

    fn nvrtc(opened: Option<&str>) -> Arc<LibraryInfo> {
        let looked = vec!["/a/libnvrtc.so.12 (no such file)".to_string()];
        Arc::new(LibraryInfo { kind: NVRTC, name: "libnvrtc.so.12".into(), opened: opened.map(Into::into), looked })
    }

    #[test]
    fn a_cached_failure_comes_back_as_it_was() {
        let lib = nvrtc(Some("/x/libnvrtc.so.12"));
        let errors = [
            LoadError::not_found(lib.clone(), &ENTRY),
            LoadError::too_old(lib.clone(), &ENTRY),
            LoadError::library_not_found(nvrtc(None), &ENTRY),
        ];
        for e in errors {
            let s = e.sentinel().expect("cached");
            assert!((1..=super::super::SENTINEL_MAX).contains(&s));
            assert_eq!(LoadError::from_sentinel(e.library.clone(), &ENTRY, s).to_string(), e.to_string());
        }
        assert_eq!(LoadError::status(lib, &ENTRY, 7).sentinel(), None, "a failed resolver call is retried");
    }

    #[test]
    fn messages_say_what_is_missing_and_how_to_fix_it() {
        let e = LoadError::library_not_found(nvrtc(None), &ENTRY);
        assert!(e.library_missing() && e.version() == Some(12040));
        let var = NVRTC.profile().override_var;
        assert_eq!(
            e.to_string(),
            format!(
                "libnvrtc.so.12 not found (needed for nvrtcGetPTX, CUDA 12.4); looked in: /a/libnvrtc.so.12 (no such file); \
                 set {var} to the library's path"
            )
        );
        let e = LoadError::too_old(nvrtc(Some("/x/libnvrtc.so.12")), &ENTRY);
        assert_eq!(e.to_string(), "nvrtcGetPTX (CUDA 12.4) not available in /x/libnvrtc.so.12: needs CUDA 12.4");
        assert_eq!(LoadError::bad_index(NVRTC, 9).to_string(), "internal error: no entry 9 in the Nvrtc table");
    }

    #[test]
    fn a_missing_entry_with_other_exports_names_them_and_the_release_it_needs() {
        let entry = Entry { symbol: "__f_13_2", version: 13020, fallbacks: &["__f_13_1", "__f_13_0", "f"], ..ENTRY };
        let e = LoadError::not_found(nvrtc(Some("/x/lib.so")), &entry);
        assert_eq!(
            e.to_string(),
            "__f_13_2 (CUDA 13.2) not found in /x/lib.so, nor its other exports __f_13_1, __f_13_0, f: \
             the library predates the function (the CUDA 13.2 headers declare it)"
        );
    }
}
