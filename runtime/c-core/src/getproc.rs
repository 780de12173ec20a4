//! `cuGetProcAddress` answers that hand out the shim's own entry points, so code that resolves
//! the driver at run time (the CUDA runtime does) still goes through the shim.
//!
//! The real `cuGetProcAddress` is asked first, so availability and version semantics are the
//! driver's: when it says "not found", so do we. On success the shim's export for the same ABI
//! replaces the real pointer: the newest ABI of that name whose version is at most the requested
//! one (and the installed driver's), its `_ptds`/`_ptsz` export when the per-thread default stream
//! was asked for (`CU_GET_PROC_ADDRESS_DEFAULT` follows the real driver's choice), provided the
//! driver resolves that ABI to the very pointer it returned. Names the shim does not export
//! (internal entries, ABIs older or newer than the header's) keep the real pointer and are
//! reported to [`Driver::passthrough`].

use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, Ordering};

/// One ABI of one `cuGetProcAddress` name (the generated shim's `proc_table.rs`).
pub struct Proc {
    pub name: &'static [u8],
    pub version: u32,
    pub f: *const c_void,
    /// The per-thread-default-stream export of the same ABI (`null` if none) and its version.
    pub pt_version: u32,
    pub pt: *const c_void,
}

// SAFETY: the pointers are addresses of the shim's functions, never written.
unsafe impl Sync for Proc {}

/// `cuGetProcAddress_v2`'s C prototype, its `CUresult` and `CUdriverProcAddressQueryResult` as
/// the C `unsigned int`s they are.
pub type GetProcV2 = unsafe extern "C" fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_uint) -> c_uint;

/// What the interceptor needs of the generated crate.
pub struct Driver {
    /// The loader's `cuGetProcAddress_v2` (opens the driver at first use, traced).
    pub get_proc: unsafe fn(*const c_char, *mut *mut c_void, c_int, u64, *mut c_uint) -> c_uint,
    /// The installed driver's `cuDriverGetVersion`, if a driver is loaded.
    pub version: fn() -> Option<i32>,
    /// Told of each name answered with the driver's own pointer (symbol, version, flags, pointer).
    pub passthrough: fn(&CStr, c_int, u64, *mut c_void),
}

/// `CU_GET_PROC_ADDRESS_LEGACY_STREAM`, `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`.
const LEGACY: u64 = 1;
const PER_THREAD: u64 = 2;
const CUDA_SUCCESS: c_uint = 0;

/// The shim's `cuGetProcAddress`: its table of exports and the driver behind it.
pub struct Interceptor {
    procs: &'static [Proc],
    driver: Driver,
    /// The driver's own `cuGetProcAddress_v2`, fetched once for untraced look-ups.
    real: AtomicPtr<c_void>,
}

impl Interceptor {
    /// `procs` sorted by name, then version.
    pub const fn new(procs: &'static [Proc], driver: Driver) -> Self {
        Interceptor { procs, driver, real: AtomicPtr::new(null_mut()) }
    }

    /// The v2 ABI (CUDA 12.0): the body of the `cuGetProcAddress_v2` export.
    ///
    /// # Safety
    /// The arguments of `cuGetProcAddress_v2`: `symbol` NUL-terminated or NULL, `pfn` and
    /// `status` writable or NULL.
    pub unsafe fn get_proc_address(
        &self,
        symbol: *const c_char,
        pfn: *mut *mut c_void,
        version: c_int,
        flags: u64,
        status: *mut c_uint,
    ) -> c_uint {
        // SAFETY: the caller's arguments go to the real driver unchanged.
        let r = unsafe { (self.driver.get_proc)(symbol, pfn, version, flags, status) };
        if r != CUDA_SUCCESS || symbol.is_null() || pfn.is_null() {
            return r;
        }
        // SAFETY: the driver accepted both pointers and wrote `*pfn`.
        let (name, real) = unsafe { (CStr::from_ptr(symbol), *pfn) };
        if real.is_null() || driver_pointers_only() {
            return r;
        }
        match self.choose(name.to_bytes(), version, flags, real) {
            // SAFETY: as above.
            Some(ours) => unsafe { *pfn = ours as *mut c_void },
            None => (self.driver.passthrough)(name, version, flags, real),
        }
        r
    }

    /// The shim's export for `name` at `version`/`flags`, given the driver's own answer `real`:
    /// the newest ABI the shim has at or below the requested version (and the driver's), its
    /// per-thread export if that is what the flags ask for, and only if the driver resolves that
    /// very ABI to `real` (a newer driver may have a newer ABI of the name than this header: then
    /// the driver's pointer is kept rather than handing out an export with another prototype).
    fn choose(&self, name: &[u8], version: c_int, flags: u64, real: *mut c_void) -> Option<*const c_void> {
        let lo = self.procs.partition_point(|p| p.name < name);
        let n = self.procs[lo..].iter().take_while(|p| p.name == name).count();
        let candidates = &self.procs[lo..lo + n];
        let requested = u32::try_from(version).ok()?;
        let limit = match (self.driver.version)() {
            Some(d) if d > 0 => requested.min(d as u32),
            _ => requested,
        };
        let base = candidates.iter().rev().find(|p| p.version <= limit)?;
        let has_pt = !base.pt.is_null() && base.pt_version <= limit;
        let same = |v: u32, f: u64| self.real_lookup(name, v as c_int, f) == Some(real);
        match flags & (LEGACY | PER_THREAD) {
            PER_THREAD if has_pt => same(base.pt_version, PER_THREAD).then_some(base.pt),
            PER_THREAD | LEGACY => same(base.version, LEGACY).then_some(base.f),
            // CU_GET_PROC_ADDRESS_DEFAULT: whichever of the two the driver picked.
            _ if has_pt && same(base.pt_version, PER_THREAD) => Some(base.pt),
            _ => same(base.version, LEGACY).then_some(base.f),
        }
    }

    /// The real `cuGetProcAddress_v2`, fetched once (from the driver itself).
    fn real_get_proc(&self) -> Option<GetProcV2> {
        let mut p = self.real.load(Ordering::Acquire);
        if p.is_null() {
            // SAFETY: valid NUL-terminated name and out pointer; status may be NULL.
            let r = unsafe { (self.driver.get_proc)(c"cuGetProcAddress".as_ptr(), &mut p, 12000, LEGACY, null_mut()) };
            if r != CUDA_SUCCESS || p.is_null() {
                return None;
            }
            self.real.store(p, Ordering::Release);
        }
        // SAFETY: the driver's own cuGetProcAddress_v2, prototype from cuda.h.
        Some(unsafe { core::mem::transmute::<*mut c_void, GetProcV2>(p) })
    }

    /// The real driver's entry for `name` at `version` with `flags` (no tracing, no interception).
    pub fn real_lookup(&self, name: &[u8], version: c_int, flags: u64) -> Option<*mut c_void> {
        let f = self.real_get_proc()?;
        let mut buf = [0u8; 256];
        if name.len() >= buf.len() {
            return None;
        }
        buf[..name.len()].copy_from_slice(name);
        let mut p = null_mut();
        // SAFETY: `buf` is NUL-terminated (name.len() < 256), out pointers valid.
        let r = unsafe { f(buf.as_ptr().cast(), &mut p, version, flags, null_mut()) };
        (r == CUDA_SUCCESS && !p.is_null()).then_some(p)
    }
}

/// `CUDAGEN_GETPROC=driver` (a diagnostic): hand out the driver's own pointers, untraced.
fn driver_pointers_only() -> bool {
    static V: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *V.get_or_init(|| std::env::var("CUDAGEN_GETPROC").is_ok_and(|v| v == "driver"))
}

#[cfg(test)]
mod tests;
