//! Opening each library once per process and resolving single entry points.

use super::error::{LibraryInfo, LoadError};
use super::{search, Entry, LibraryKind, Resolve, MAX_LIBRARIES};
use core::ffi::{c_char, c_int, c_void};
use libloading::Library;
use std::ffi::CString;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Exported by the cudagen C shim; a candidate exporting it is the shim and is skipped.
const SHIM_MARKER: &[u8] = b"cudagen_shim_marker\0";

/// `CU_GET_PROC_ADDRESS_LEGACY_STREAM` / `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
const FLAG_LEGACY: u64 = 1;
const FLAG_PER_THREAD: u64 = 2;
/// `CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT`.
const STATUS_VERSION_NOT_SUFFICIENT: c_int = 2;
/// `CUDA_ERROR_NOT_FOUND`.
const CUDA_ERROR_NOT_FOUND: c_int = 500;

type GetProcV2 = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_int) -> c_int;
type GetProcV1 = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64) -> c_int;
type DriverGetVersion = unsafe extern "C" fn(*mut c_int) -> c_int;

/// An opened (or definitively missing) library. Lives in a `static`, so it is never closed.
struct Loaded {
    info: Arc<LibraryInfo>,
    lib: Option<Library>,
    get_proc_v2: Option<GetProcV2>,
    get_proc_v1: Option<GetProcV1>,
}

/// One opened library per kind, indexed by its slot.
static LOADED: [OnceLock<Loaded>; MAX_LIBRARIES] = [const { OnceLock::new() }; MAX_LIBRARIES];

/// The first library opened whose entries resolve through `cuGetProcAddress`: the driver.
static DRIVER: OnceLock<LibraryKind> = OnceLock::new();

fn loaded(kind: LibraryKind, sonames: &[&str]) -> &'static Loaded {
    LOADED[kind.slot()].get_or_init(|| {
        if kind.profile().resolve == Resolve::GetProcAddress {
            let _ = DRIVER.set(kind);
        }
        open(kind, sonames)
    })
}

/// The driver, once a table of it (or [`driver_version_of`]) has opened it: the tracer's
/// own queries go to it.
pub(crate) fn driver() -> Option<LibraryKind> {
    DRIVER.get().copied()
}

/// Whether the entries of `kind` come from its static archive linked into this crate, where a
/// table has one ([`Table::linked`](super::Table::linked)): yes unless the library's override
/// variable was set (non-empty) when first asked. Decided once per process, so a table never
/// mixes entries of two copies of a library.
pub fn linked_in(kind: LibraryKind) -> bool {
    static LINKED: [OnceLock<bool>; MAX_LIBRARIES] = [const { OnceLock::new() }; MAX_LIBRARIES];
    *LINKED[kind.slot()].get_or_init(|| std::env::var_os(search::override_var(kind)).filter(|v| !v.is_empty()).is_none())
}

/// Library description for error messages (opens the library if not yet tried).
pub(crate) fn info(kind: LibraryKind, sonames: &[&str]) -> Arc<LibraryInfo> {
    loaded(kind, sonames).info.clone()
}

fn open(kind: LibraryKind, sonames: &[&str]) -> Loaded {
    let var = search::override_var(kind);
    let overridden = std::env::var_os(var).is_some_and(|v| !v.is_empty());
    let mut looked = Vec::new();
    let mut found = None;
    for cand in search::candidates(kind, sonames) {
        let is_path = cand.contains('/');
        let label = if overridden { format!("${var}={cand}") } else { cand.clone() };
        if is_path && !Path::new(&cand).exists() {
            looked.push(format!("{label} (absent)"));
            continue;
        }
        // SAFETY: running a library's initialisers is the point; these are vendor libraries.
        match unsafe { Library::new(&cand) } {
            Err(e) => looked.push(format!("{label} ({})", short_dlerror(&e.to_string(), &cand))),
            Ok(lib) => {
                if kind.profile().skip_shim && is_shim(&lib) {
                    looked.push(format!("{label} (is the cudagen shim, skipped)"));
                    drop(lib);
                    continue;
                }
                if is_path {
                    open_companions(kind, Path::new(&cand));
                }
                found = Some((cand, lib));
                break;
            }
        }
    }
    let name = match (&found, overridden) {
        (Some((c, _)), true) => c.clone(),
        _ if overridden => std::env::var_os(var).unwrap_or_default().to_string_lossy().into_owned(),
        _ => sonames.first().copied().unwrap_or("?").to_owned(),
    };
    let opened = found.as_ref().map(|(c, _)| c.clone());
    let lib = found.map(|(_, l)| l);
    let (mut v2, mut v1) = (None, None);
    if let (Some(l), Resolve::GetProcAddress) = (&lib, kind.profile().resolve) {
        // SAFETY: prototypes as declared in cuda.h (CUDA 12.0+ / 11.3+).
        unsafe {
            v2 = l.get::<GetProcV2>(b"cuGetProcAddress_v2\0").ok().map(|s| *s);
            v1 = l.get::<GetProcV1>(b"cuGetProcAddress\0").ok().map(|s| *s);
        }
    }
    let info = Arc::new(LibraryInfo { kind, name, opened, looked });
    Loaded { info, lib, get_proc_v2: v2, get_proc_v1: v1 }
}

/// Opens, from the folder of `path`, the libraries it loads by bare name (the profile's
/// `companions`), for the life of the process: its own later `dlopen` of that name finds them
/// loaded (by soname), whatever its run path says.
fn open_companions(kind: LibraryKind, path: &Path) {
    let prefixes = kind.profile().companions;
    let Some(entries) = path.parent().filter(|_| !prefixes.is_empty()).and_then(|d| std::fs::read_dir(d).ok()) else {
        return;
    };
    for entry in entries.flatten() {
        if prefixes.iter().any(|p| entry.file_name().to_string_lossy().starts_with(p)) {
            // SAFETY: a vendor library shipped beside the one just opened.
            if let Ok(lib) = unsafe { Library::new(entry.path()) } {
                std::mem::forget(lib);
            }
        }
    }
}

/// Trim dlerror's "name: cannot open shared object file: ..." to the reason.
fn short_dlerror(msg: &str, cand: &str) -> String {
    let m = msg.strip_prefix(cand).and_then(|m| m.strip_prefix(": ")).unwrap_or(msg);
    m.strip_suffix(": cannot open shared object file: No such file or directory")
        .map(|_| "not found".to_owned())
        .unwrap_or_else(|| m.replace("cannot open shared object file: No such file or directory", "not found"))
}

fn is_shim(lib: &Library) -> bool {
    // SAFETY: only the symbol's presence is checked; it is never read.
    unsafe { lib.get::<*const c_void>(SHIM_MARKER).is_ok() }
}

/// Resolve one entry as the library's profile says: `cuGetProcAddress_v2` (else
/// `cuGetProcAddress`, else `dlsym`), or `dlsym`.
pub(crate) fn resolve(kind: LibraryKind, sonames: &[&str], entry: &Entry) -> Result<*const c_void, LoadError> {
    let l = loaded(kind, sonames);
    let Some(lib) = &l.lib else {
        return Err(LoadError::library_not_found(l.info.clone(), entry));
    };
    let via_get_proc = kind.profile().resolve == Resolve::GetProcAddress && (l.get_proc_v2.is_some() || l.get_proc_v1.is_some());
    if !via_get_proc {
        return match first_export(lib, entry) {
            Some((p, bound)) => {
                if bound != entry.symbol {
                    super::rebound::note(kind, &l.info, entry.symbol, bound);
                }
                Ok(p)
            }
            None => Err(LoadError::not_found(l.info.clone(), entry)),
        };
    }
    let Ok(name) = CString::new(entry.proc_name) else {
        return Err(LoadError::not_found(l.info.clone(), entry));
    };
    // An older driver would hand back an older ABI of the same name: refuse instead.
    let driver = driver_version_of(kind);
    if driver.is_some_and(|d| entry.version != 0 && (d as u32) < entry.version) {
        return Err(LoadError::too_old(l.info.clone(), entry));
    }
    let version = match entry.version {
        0 => driver.unwrap_or(12000),
        v => v as c_int,
    };
    let flags = if entry.per_thread { FLAG_PER_THREAD } else { FLAG_LEGACY };
    let mut pfn: *mut c_void = core::ptr::null_mut();
    let mut status: c_int = 0;
    // SAFETY: cuGetProcAddress needs no cuInit; all pointers are valid for the call.
    let rc = unsafe {
        match (l.get_proc_v2, l.get_proc_v1) {
            (Some(f), _) => f(name.as_ptr(), &mut pfn, version, flags, &mut status),
            (None, Some(f)) => f(name.as_ptr(), &mut pfn, version, flags),
            (None, None) => CUDA_ERROR_NOT_FOUND,
        }
    };
    match rc {
        0 if !pfn.is_null() => Ok(pfn as *const c_void),
        _ if status == STATUS_VERSION_NOT_SUFFICIENT => Err(LoadError::too_old(l.info.clone(), entry)),
        0 | CUDA_ERROR_NOT_FOUND => Err(LoadError::not_found(l.info.clone(), entry)),
        code => Err(LoadError::status(l.info.clone(), entry, code)),
    }
}

/// The address of the first of `entry`'s symbol and then its fallbacks that `lib` exports, with
/// the name it was found under.
fn first_export(lib: &Library, entry: &Entry) -> Option<(*const c_void, &'static str)> {
    std::iter::once(entry.symbol).chain(entry.fallbacks.iter().copied()).find_map(|name| {
        // SAFETY: only the address is taken; the caller casts it to the declared prototype.
        let p = unsafe { lib.get::<*mut c_void>(name.as_bytes()) }.map(|s| *s).ok()?;
        (!p.is_null()).then_some((p as *const c_void, name))
    })
}

/// Driver version from `cuDriverGetVersion` (e.g. `12040`) of `driver`, a library resolving
/// through `cuGetProcAddress`, opening it if needed; `None` without a driver (or for another
/// kind of library). Does not call `cuInit`. Cached after the first call.
pub fn driver_version_of(driver: LibraryKind) -> Option<i32> {
    static VERSION: [OnceLock<Option<i32>>; MAX_LIBRARIES] = [const { OnceLock::new() }; MAX_LIBRARIES];
    if driver.profile().resolve != Resolve::GetProcAddress {
        return None;
    }
    *VERSION[driver.slot()].get_or_init(|| {
        let l = loaded(driver, driver.default_sonames());
        let lib = l.lib.as_ref()?;
        // SAFETY: prototype from cuda.h; exported unversioned by every driver.
        let f = unsafe { lib.get::<DriverGetVersion>(b"cuDriverGetVersion\0") }.ok().map(|s| *s)?;
        let mut v: c_int = 0;
        // SAFETY: valid out pointer.
        (unsafe { f(&mut v) } == 0).then_some(v)
    })
}
