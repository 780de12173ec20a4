//! The interceptor against a fake driver: which pointer each request gets.

use super::{Driver, Interceptor, Proc};
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use core::ptr::{null, null_mut};
use std::sync::Mutex;

const NOT_FOUND: c_uint = 500;

/// The fake driver's own entries for `name` at `version` with `flags` (0: none).
fn driver_entry(name: &[u8], version: c_int, flags: u64) -> usize {
    match (name, flags & 3) {
        (b"cuMemAlloc", _) if version >= 3020 => 0x1000,
        (b"cuLaunchKernel", 2) if version >= 7000 => 0x2001,
        (b"cuLaunchKernel", _) if version >= 4000 => 0x2000,
        (b"cuInternalThing", _) => 0x4000,
        (b"cuGetProcAddress", _) => real_v2 as *const () as usize,
        _ => 0,
    }
}

unsafe extern "C" fn real_v2(symbol: *const c_char, pfn: *mut *mut c_void, v: c_int, flags: u64, _: *mut c_uint) -> c_uint {
    // SAFETY: the interceptor passes a NUL-terminated name and a writable out pointer.
    let (name, pfn) = unsafe { (CStr::from_ptr(symbol), &mut *pfn) };
    *pfn = driver_entry(name.to_bytes(), v, flags) as *mut c_void;
    if pfn.is_null() {
        NOT_FOUND
    } else {
        0
    }
}

unsafe fn loader_v2(symbol: *const c_char, pfn: *mut *mut c_void, v: c_int, flags: u64, status: *mut c_uint) -> c_uint {
    // SAFETY: as the caller's.
    unsafe { real_v2(symbol, pfn, v, flags, status) }
}

static PASSED: Mutex<Vec<(String, usize)>> = Mutex::new(Vec::new());

fn passthrough(name: &CStr, _: c_int, _: u64, real: *mut c_void) {
    PASSED.lock().unwrap().push((name.to_string_lossy().into_owned(), real as usize));
}

fn passed(name: &str, real: usize) -> bool {
    PASSED.lock().unwrap().contains(&(name.to_string(), real))
}

static SHIM_MEM_ALLOC: u8 = 0;
static SHIM_LAUNCH: u8 = 0;
static SHIM_LAUNCH_PTSZ: u8 = 0;

fn addr(x: &'static u8) -> *mut c_void {
    (x as *const u8).cast_mut().cast()
}

static PROCS: [Proc; 2] = [
    Proc {
        name: b"cuLaunchKernel",
        version: 4000,
        f: &SHIM_LAUNCH as *const u8 as *const c_void,
        pt_version: 7000,
        pt: &SHIM_LAUNCH_PTSZ as *const u8 as *const c_void,
    },
    Proc { name: b"cuMemAlloc", version: 3020, f: &SHIM_MEM_ALLOC as *const u8 as *const c_void, pt_version: 0, pt: null() },
];

fn interceptor(version: fn() -> Option<i32>) -> Interceptor {
    Interceptor::new(&PROCS, Driver { get_proc: loader_v2, version, passthrough })
}

fn ask(i: &Interceptor, name: &CStr, version: c_int, flags: u64) -> (c_uint, *mut c_void) {
    let mut p = null_mut();
    // SAFETY: NUL-terminated name, writable out pointer, no status.
    let r = unsafe { i.get_proc_address(name.as_ptr(), &mut p, version, flags, null_mut()) };
    (r, p)
}

#[test]
fn an_abi_the_shim_exports_gets_the_shims_entry() {
    let i = interceptor(|| Some(12090));
    assert_eq!(ask(&i, c"cuMemAlloc", 12000, 0), (0, addr(&SHIM_MEM_ALLOC)));
    assert_eq!(ask(&i, c"cuLaunchKernel", 12000, 1), (0, addr(&SHIM_LAUNCH)));
    assert_eq!(ask(&i, c"cuLaunchKernel", 12000, 2), (0, addr(&SHIM_LAUNCH_PTSZ)));
    // The default-stream flag follows the driver's choice (the fake's: legacy).
    assert_eq!(ask(&i, c"cuLaunchKernel", 12000, 0), (0, addr(&SHIM_LAUNCH)));
}

#[test]
fn what_the_driver_refuses_stays_refused() {
    let i = interceptor(|| Some(12090));
    assert_eq!(ask(&i, c"cuMemAlloc", 3000, 0), (NOT_FOUND, null_mut()));
    assert_eq!(ask(&i, c"cuNoSuchThing", 12000, 0), (NOT_FOUND, null_mut()));
}

#[test]
fn a_name_the_shim_lacks_keeps_the_drivers_pointer_and_is_reported() {
    let i = interceptor(|| Some(12090));
    assert_eq!(ask(&i, c"cuInternalThing", 12000, 0), (0, 0x4000 as *mut c_void));
    assert!(passed("cuInternalThing", 0x4000));
}

#[test]
fn an_older_driver_keeps_its_own_pointer_where_the_abis_differ() {
    // To a 5.0 driver the shim has no per-thread cuLaunchKernel, yet this fake answers one: the
    // shim's legacy export is another ABI, so the driver's own pointer is kept.
    let i = interceptor(|| Some(5000));
    assert_eq!(ask(&i, c"cuLaunchKernel", 12000, 2), (0, 0x2001 as *mut c_void));
    assert!(passed("cuLaunchKernel", 0x2001));
    assert_eq!(i.real_lookup(b"cuLaunchKernel", 4000, 1), Some(0x2000 as *mut c_void));
    assert_eq!(i.real_lookup(&[b'x'; 300], 4000, 1), None);
}
