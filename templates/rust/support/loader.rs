//! Stand-in loader (the real one lands from the `loader` branch): one lazily filled table of
//! entry points per library. Driver entries go through `cuGetProcAddress_v2(name, version,
//! flags)`; NVRTC entries through `dlsym`. Failures are values, never panics.

use core::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};
use core::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// One exported symbol.
pub struct Entry {
    pub symbol: &'static str,
    /// The name `cuGetProcAddress` knows (`cuMemAlloc` for `cuMemAlloc_v2`).
    pub proc_name: &'static str,
    /// The CUDA version of the ABI this symbol has.
    pub version: u32,
    /// A `_ptds`/`_ptsz` variant.
    pub per_thread: bool,
}

/// Which library a table resolves against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibraryKind {
    Driver,
    Nvrtc,
}

/// A table of lazily resolved entry points.
pub struct Table<const N: usize> {
    kind: LibraryKind,
    entries: &'static [Entry; N],
    slots: [AtomicPtr<c_void>; N],
}

impl<const N: usize> Table<N> {
    pub const fn new(kind: LibraryKind, entries: &'static [Entry; N]) -> Self {
        #[allow(clippy::declare_interior_mutable_const)]
        const EMPTY: AtomicPtr<c_void> = AtomicPtr::new(core::ptr::null_mut());
        Table { kind, entries, slots: [EMPTY; N] }
    }

    /// The entry point at `index`, resolved on first use.
    #[inline(always)]
    pub fn get(&self, index: usize) -> Result<*const c_void, LoadError> {
        let p = self.slots[index].load(Ordering::Acquire);
        if !p.is_null() {
            return Ok(p);
        }
        self.resolve(index)
    }

    #[cold]
    #[inline(never)]
    fn resolve(&self, index: usize) -> Result<*const c_void, LoadError> {
        let e = &self.entries[index];
        let p = match self.kind {
            LibraryKind::Driver => driver_symbol(e)?,
            LibraryKind::Nvrtc => {
                let lib = library(LibraryKind::Nvrtc)?;
                let name = format!("{}\0", e.symbol);
                // SAFETY: only the address is taken; callers transmute it to the declared type.
                unsafe { lib.get::<*const c_void>(name.as_bytes()) }
                    .map(|s| *s)
                    .map_err(|_| LoadError::missing_symbol(lib_name(LibraryKind::Nvrtc), e))?
            }
        };
        if p.is_null() {
            return Err(LoadError::missing_symbol(lib_name(self.kind), e));
        }
        self.slots[index].store(p as *mut c_void, Ordering::Release);
        Ok(p)
    }
}

fn lib_name(kind: LibraryKind) -> &'static str {
    match kind {
        LibraryKind::Driver => "libcuda.so.1",
        LibraryKind::Nvrtc => "libnvrtc.so.12",
    }
}

fn library(kind: LibraryKind) -> Result<&'static libloading::Library, LoadError> {
    static DRIVER: OnceLock<Result<libloading::Library, LoadError>> = OnceLock::new();
    static NVRTC: OnceLock<Result<libloading::Library, LoadError>> = OnceLock::new();
    let (cell, var) = match kind {
        LibraryKind::Driver => (&DRIVER, "CUDAGEN_DRIVER_PATH"),
        LibraryKind::Nvrtc => (&NVRTC, "CUDAGEN_NVRTC_PATH"),
    };
    cell.get_or_init(|| {
        let path = std::env::var_os(var).unwrap_or_else(|| lib_name(kind).into());
        // SAFETY: loading NVIDIA's libraries runs their initialisers, which are trusted.
        unsafe { libloading::Library::new(&path) }.map_err(|err| LoadError {
            library: lib_name(kind).to_string(),
            detail: err.to_string(),
            symbol: None,
            version: None,
            missing_library: true,
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

type GetProcAddress =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, c_ulonglong, *mut c_uint) -> c_uint;

fn driver_symbol(e: &Entry) -> Result<*const c_void, LoadError> {
    static GPA: OnceLock<Result<GetProcAddress, LoadError>> = OnceLock::new();
    let gpa = GPA
        .get_or_init(|| {
            let lib = library(LibraryKind::Driver)?;
            // SAFETY: the type is cuGetProcAddress_v2's prototype from cuda.h.
            unsafe { lib.get::<GetProcAddress>(b"cuGetProcAddress_v2\0") }.map(|s| *s).map_err(|err| LoadError {
                library: lib_name(LibraryKind::Driver).into(),
                detail: err.to_string(),
                symbol: Some("cuGetProcAddress_v2".into()),
                version: Some(12000),
                missing_library: false,
            })
        })
        .as_ref()
        .map_err(Clone::clone)?;
    let name = format!("{}\0", e.proc_name);
    let mut p: *mut c_void = core::ptr::null_mut();
    let mut status: c_uint = 0;
    // CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2
    let flags = if e.per_thread { 2 } else { 1 };
    // SAFETY: arguments follow cuGetProcAddress_v2's contract.
    let r = unsafe { gpa(name.as_ptr().cast(), &mut p, e.version as c_int, flags, &mut status) };
    if r != 0 || p.is_null() {
        return Err(LoadError::missing_symbol(lib_name(LibraryKind::Driver), e));
    }
    Ok(p)
}

/// Why an entry point could not be loaded.
#[derive(Clone, Debug)]
pub struct LoadError {
    library: String,
    detail: String,
    symbol: Option<String>,
    version: Option<u32>,
    missing_library: bool,
}

impl LoadError {
    fn missing_symbol(library: &str, e: &Entry) -> Self {
        LoadError {
            library: library.into(),
            detail: String::new(),
            symbol: Some(e.symbol.into()),
            version: Some(e.version),
            missing_library: false,
        }
    }
    /// The library itself could not be opened.
    pub fn library_missing(&self) -> bool {
        self.missing_library
    }
    /// The entry point that is missing, if the library was found.
    pub fn symbol(&self) -> Option<&str> {
        self.symbol.as_deref()
    }
    /// The CUDA version of the ABI that was asked for.
    pub fn version(&self) -> Option<u32> {
        self.version
    }
}

impl core::fmt::Display for LoadError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (&self.symbol, self.missing_library) {
            (_, true) => write!(f, "cannot load {}: {}", self.library, self.detail),
            (Some(s), false) => {
                write!(f, "{} has no entry point {s}", self.library)?;
                if let Some(v) = self.version {
                    write!(f, " (ABI of CUDA {}.{})", v / 1000, v % 1000 / 10)?;
                }
                Ok(())
            }
            (None, false) => write!(f, "{}: {}", self.library, self.detail),
        }
    }
}

impl std::error::Error for LoadError {}
