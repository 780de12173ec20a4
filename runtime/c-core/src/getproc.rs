//! `cuGetProcAddress` / `cuGetProcAddress_v2` that hand out the shim's own entry points, so code
//! that resolves the driver at run time (the CUDA runtime does) still goes through the shim.
//!
//! The real `cuGetProcAddress` is asked first, so availability and version semantics are the
//! driver's: when it says "not found", so do we. On success the shim's export for the same ABI
//! replaces the real pointer: the newest ABI of that name whose version is at most the requested
//! one (and the installed driver's), its `_ptds`/`_ptsz` export when the per-thread default stream
//! was asked for (`CU_GET_PROC_ADDRESS_DEFAULT` follows the real driver's choice), provided the
//! driver resolves that ABI to the very pointer it returned. Names the shim does not export
//! (internal entries, ABIs older or newer than the header's) keep the real pointer; with tracing
//! on, a `cuGetProcAddress(passthrough)` line records each.

use crate::guard::guard;
use crate::proc_table::PROCS;
use core::ffi::{c_char, c_int, c_void, CStr};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, Ordering};
use cudagen_rs::driver::sys;
use cudagen_rs::driver::types::{cuuint64_t, CUdriverProcAddressQueryResult, CUresult};
use cudagen_rs::trace;

/// One ABI of one `cuGetProcAddress` name (see `proc_table.rs`).
pub(crate) struct Proc {
    pub name: &'static [u8],
    pub version: u32,
    pub f: *const c_void,
    /// The per-thread-default-stream export of the same ABI (`null` if none) and its version.
    pub pt_version: u32,
    pub pt: *const c_void,
}

// SAFETY: the pointers are addresses of this library's functions, never written.
unsafe impl Sync for Proc {}

/// `CU_GET_PROC_ADDRESS_LEGACY_STREAM`, `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
const LEGACY: u64 = 1;
const PER_THREAD: u64 = 2;
const CUDA_SUCCESS: u32 = 0;
const CUDA_ERROR_UNKNOWN: u32 = 999;

type GetProcV2 =
    unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, cuuint64_t, *mut CUdriverProcAddressQueryResult) -> CUresult;

/// The v2 ABI (CUDA 12.0): the body of the `cuGetProcAddress_v2` export.
pub(crate) unsafe fn get_proc_address(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    version: c_int,
    flags: cuuint64_t,
    status: *mut CUdriverProcAddressQueryResult,
) -> CUresult {
    // SAFETY: the caller's arguments go to the real driver unchanged.
    let r = unsafe { sys::cuGetProcAddress_v2(symbol, pfn, version, flags, status) };
    if r.0 != CUDA_SUCCESS || symbol.is_null() || pfn.is_null() {
        return r;
    }
    // SAFETY: the driver accepted both pointers and wrote `*pfn`.
    let (name, real) = unsafe { (CStr::from_ptr(symbol), *pfn) };
    if real.is_null() || driver_pointers_only() {
        return r;
    }
    match choose(name.to_bytes(), version, flags, real) {
        // SAFETY: as above.
        Some(ours) => unsafe { *pfn = ours as *mut c_void },
        None => passthrough(name, version, flags, real),
    }
    r
}

/// `CUDAGEN_GETPROC=driver` (a diagnostic): hand out the driver's own pointers, untraced.
fn driver_pointers_only() -> bool {
    static V: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *V.get_or_init(|| std::env::var("CUDAGEN_GETPROC").is_ok_and(|v| v == "driver"))
}

/// The 11.3 ABI, without `symbolStatus`: same semantics.
#[no_mangle]
pub unsafe extern "C" fn cuGetProcAddress(
    symbol: *const c_char,
    pfn: *mut *mut c_void,
    cudaVersion: c_int,
    flags: cuuint64_t,
) -> CUresult {
    guard(|| unsafe { get_proc_address(symbol, pfn, cudaVersion, flags, null_mut()) }, CUresult(CUDA_ERROR_UNKNOWN))
}

/// The shim's export for `name` at `version`/`flags`, given the driver's own answer `real`:
/// the newest ABI the shim has at or below the requested version (and the driver's), its
/// per-thread export if that is what the flags ask for, and only if the driver resolves that
/// very ABI to `real` (a newer driver may have a newer ABI of the name than this header: then
/// the driver's pointer is kept rather than handing out an export with another prototype).
fn choose(name: &[u8], version: c_int, flags: u64, real: *mut c_void) -> Option<*const c_void> {
    let lo = PROCS.partition_point(|p| p.name < name);
    let n = PROCS[lo..].iter().take_while(|p| p.name == name).count();
    let candidates = &PROCS[lo..lo + n];
    let requested = u32::try_from(version).ok()?;
    let limit = match cudagen_rs::loader::driver_version() {
        Some(d) if d > 0 => requested.min(d as u32),
        _ => requested,
    };
    let base = candidates.iter().rev().find(|p| p.version <= limit)?;
    let has_pt = !base.pt.is_null() && base.pt_version <= limit;
    let same = |v: u32, f: u64| real_lookup(name, v as c_int, f) == Some(real);
    match flags & (LEGACY | PER_THREAD) {
        PER_THREAD if has_pt => same(base.pt_version, PER_THREAD).then_some(base.pt),
        PER_THREAD | LEGACY => same(base.version, LEGACY).then_some(base.f),
        // CU_GET_PROC_ADDRESS_DEFAULT: whichever of the two the driver picked.
        _ if has_pt && same(base.pt_version, PER_THREAD) => Some(base.pt),
        _ => same(base.version, LEGACY).then_some(base.f),
    }
}

/// The real `cuGetProcAddress_v2`, fetched once (from the driver itself) for untraced look-ups.
fn real_get_proc() -> Option<GetProcV2> {
    static REAL: AtomicPtr<c_void> = AtomicPtr::new(null_mut());
    let mut p = REAL.load(Ordering::Acquire);
    if p.is_null() {
        // SAFETY: valid NUL-terminated name and out pointer; status may be NULL.
        let r = unsafe { sys::cuGetProcAddress_v2(c"cuGetProcAddress".as_ptr(), &mut p, 12000, LEGACY, null_mut()) };
        if r.0 != CUDA_SUCCESS || p.is_null() {
            return None;
        }
        REAL.store(p, Ordering::Release);
    }
    // SAFETY: the driver's own cuGetProcAddress_v2, prototype from cuda.h.
    Some(unsafe { core::mem::transmute::<*mut c_void, GetProcV2>(p) })
}

/// The real driver's entry for `name` at `version` with `flags` (no tracing, no interception).
pub(crate) fn real_lookup(name: &[u8], version: c_int, flags: u64) -> Option<*mut c_void> {
    let f = real_get_proc()?;
    let mut buf = [0u8; 256];
    if name.len() >= buf.len() {
        return None;
    }
    buf[..name.len()].copy_from_slice(name);
    let mut p = null_mut();
    // SAFETY: `buf` is NUL-terminated (name.len() < 256), out pointers valid.
    let r = unsafe { f(buf.as_ptr().cast(), &mut p, version, flags, null_mut()) };
    (r.0 == CUDA_SUCCESS && !p.is_null()).then_some(p)
}

#[cold]
fn passthrough(name: &CStr, version: c_int, flags: u64, real: *mut c_void) {
    if trace::active() {
        trace::record(
            "cuGetProcAddress(passthrough)",
            &[
                ("symbol", trace::Value::Str(Some(name))),
                ("cudaVersion", trace::Value::I64(i64::from(version))),
                ("flags", trace::Value::Hex(flags)),
            ],
            trace::Value::Ptr(real as *const c_void),
            std::time::Duration::ZERO,
        );
    }
}
