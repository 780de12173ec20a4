//! The driver functions the tracer calls itself, untraced: name and parameter queries, resolved
//! once each through the loader at the version that introduced them (`None` on older drivers).

use crate::loader::Entry;
use core::ffi::{c_char, c_void};
use std::sync::OnceLock;

/// `cuFuncGetName` / `cuKernelGetName`: `(const char **name, handle)`.
pub(super) type NameFn = unsafe extern "C" fn(*mut *const c_char, *mut c_void) -> i32;
/// `cuFuncGetModule`: `(CUmodule *hmod, CUfunction hfunc)`.
pub(super) type ModuleFn = unsafe extern "C" fn(*mut *mut c_void, *mut c_void) -> i32;
/// `cuFuncGetParamInfo` / `cuKernelGetParamInfo`: `(handle, index, size_t *offset, size_t *size)`.
pub(super) type ParamInfoFn = unsafe extern "C" fn(*mut c_void, usize, *mut usize, *mut usize) -> i32;

macro_rules! driver_fn {
    ($(#[$doc:meta])* $name:ident: $ty:ty = $symbol:literal @ $version:literal) => {
        $(#[$doc])*
        pub(super) fn $name() -> Option<$ty> {
            static ENTRY: Entry = Entry { symbol: $symbol, proc_name: $symbol, version: $version, per_thread: false, fallbacks: &[] };
            static ADDR: OnceLock<Option<usize>> = OnceLock::new();
            let p = *ADDR.get_or_init(|| crate::loader::driver_entry(&ENTRY).map(|p| p as usize));
            // SAFETY: the driver's entry of that name and version has this prototype (cuda.h).
            p.map(|p| unsafe { core::mem::transmute::<usize, $ty>(p) })
        }
    };
}

driver_fn!(func_get_name: NameFn = "cuFuncGetName" @ 12030);
driver_fn!(kernel_get_name: NameFn = "cuKernelGetName" @ 12030);
driver_fn!(func_get_module: ModuleFn = "cuFuncGetModule" @ 11000);
driver_fn!(func_get_param_info: ParamInfoFn = "cuFuncGetParamInfo" @ 12040);
driver_fn!(kernel_get_param_info: ParamInfoFn = "cuKernelGetParamInfo" @ 12040);

/// The name the driver gives function or kernel `handle` (`cuFuncGetName`, else
/// `cuKernelGetName`: a launch's `CUfunction` may be a `CUkernel`), copied at once (the driver's
/// string lives as long as the handle).
pub(super) fn name_of(handle: u64, kernel_first: bool) -> Option<Vec<u8>> {
    let order = if kernel_first { [kernel_get_name(), func_get_name()] } else { [func_get_name(), kernel_get_name()] };
    order.into_iter().flatten().find_map(|f| {
        let mut name: *const c_char = core::ptr::null();
        // SAFETY: a valid out pointer; the handle is one the program passed to the driver.
        let ok = unsafe { f(&mut name, handle as usize as *mut c_void) } == 0 && !name.is_null();
        // SAFETY: the driver returned a NUL-terminated string.
        ok.then(|| unsafe { core::ffi::CStr::from_ptr(name) }.to_bytes().to_vec())
    })
}

/// The module function `handle` belongs to (`cuFuncGetModule`), if the driver says.
pub(super) fn module_of(handle: u64) -> Option<u64> {
    let f = func_get_module()?;
    let mut m: *mut c_void = core::ptr::null_mut();
    // SAFETY: as in `name_of`.
    (unsafe { f(&mut m, handle as usize as *mut c_void) } == 0 && !m.is_null()).then_some(m as usize as u64)
}
