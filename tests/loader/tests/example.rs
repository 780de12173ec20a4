//! The shape of generated `sys` wrappers (one driver, one NVRTC), compiled and run here.
#![allow(non_snake_case, non_camel_case_types, dead_code)] // C names, as generated sys code keeps them

use cudagen_loader_tests::{is_child, run_child};
use core::ffi::{c_char, CStr};

mod generated {
    pub use cudagen_loader_tests::{loader, trace};
    use core::ffi::{c_char, c_int};
    use loader::{Entry, LibraryKind, Table};
    use trace::Value;

    #[repr(transparent)] #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct CUresult(pub c_int);
    impl CUresult {
        pub const CUDA_SUCCESS: Self = Self(0);
        pub fn name(self) -> Option<&'static str> { match self.0 { 0 => Some("CUDA_SUCCESS"), 2 => Some("CUDA_ERROR_OUT_OF_MEMORY"), 100 => Some("CUDA_ERROR_NO_DEVICE"), 500 => Some("CUDA_ERROR_NOT_FOUND"), _ => None } }
    }
    #[repr(transparent)] #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct nvrtcResult(pub c_int);
    pub type CUdeviceptr = u64;
    #[repr(C)] pub struct _nvrtcProgram { _p: [u8; 0] }
    pub type nvrtcProgram = *mut _nvrtcProgram;

    // ---- driver table (one per library; index constants emitted next to it) ----
    pub static DRIVER_ENTRIES: [Entry; 1] = [
        Entry { symbol: "cuMemAlloc_v2", proc_name: "cuMemAlloc", version: 3020, per_thread: false },
    ];
    pub static DRIVER: Table<1> = Table::new(LibraryKind::Driver, &DRIVER_ENTRIES);
    const IDX_CU_MEM_ALLOC_V2: usize = 0;

    /// `cuMemAlloc_v2`; returns `CUDA_ERROR_NO_DEVICE`/`CUDA_ERROR_NOT_FOUND` when it cannot be loaded.
    #[inline]
    pub unsafe fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult {
        type Pfn = unsafe extern "C" fn(*mut CUdeviceptr, usize) -> CUresult;
        let f: Pfn = match DRIVER.get(IDX_CU_MEM_ALLOC_V2) {
            Ok(p) => unsafe { core::mem::transmute::<*const core::ffi::c_void, Pfn>(p) },
            Err(e) => return CUresult(e.cuda_error_code()),
        };
        if !trace::active() {
            return unsafe { f(dptr, bytesize) };
        }
        let t = std::time::Instant::now();
        let r = unsafe { f(dptr, bytesize) };
        let elapsed = t.elapsed();
        trace::record(
            "cuMemAlloc_v2",
            &[("dptr", Value::Ptr(dptr.cast())), ("bytesize", Value::Size(bytesize as u64))],
            Value::Enum { name: r.name(), value: r.0 as i64 },
            elapsed,
        );
        r
    }

    // ---- NVRTC table ----
    pub static NVRTC_ENTRIES: [Entry; 1] = [
        Entry { symbol: "nvrtcCreateProgram", proc_name: "nvrtcCreateProgram", version: 0, per_thread: false },
    ];
    pub static NVRTC: Table<1> = Table::with_sonames(LibraryKind::Nvrtc, &NVRTC_ENTRIES, &["libnvrtc.so.12"]);
    const IDX_NVRTC_CREATE_PROGRAM: usize = 0;

    #[inline]
    pub unsafe fn nvrtcCreateProgram(
        prog: *mut nvrtcProgram, src: *const c_char, name: *const c_char, num_headers: c_int,
        headers: *const *const c_char, include_names: *const *const c_char,
    ) -> nvrtcResult {
        type Pfn = unsafe extern "C" fn(*mut nvrtcProgram, *const c_char, *const c_char, c_int, *const *const c_char, *const *const c_char) -> nvrtcResult;
        let f: Pfn = match NVRTC.get(IDX_NVRTC_CREATE_PROGRAM) {
            Ok(p) => unsafe { core::mem::transmute::<*const core::ffi::c_void, Pfn>(p) },
            Err(e) => return nvrtcResult(e.nvrtc_error_code()),
        };
        if !trace::active() {
            return unsafe { f(prog, src, name, num_headers, headers, include_names) };
        }
        let t = std::time::Instant::now();
        let r = unsafe { f(prog, src, name, num_headers, headers, include_names) };
        let elapsed = t.elapsed();
        let cstr = |p: *const c_char| (!p.is_null()).then(|| unsafe { core::ffi::CStr::from_ptr(p) });
        trace::record(
            "nvrtcCreateProgram",
            &[
                ("prog", Value::Ptr(prog.cast())),
                ("src", Value::Str(cstr(src))),
                ("name", Value::Str(cstr(name))),
                ("numHeaders", Value::I64(num_headers.into())),
                ("headers", Value::Ptr(headers.cast())),
                ("includeNames", Value::Ptr(include_names.cast())),
            ],
            Value::Enum { name: None, value: r.0.into() }, // generated: nvrtcResult name lookup
            elapsed,
        );
        r
    }
}

#[test]
fn generated_wrappers_without_libraries() {
    if !is_child() {
        let out = run_child("generated_wrappers_without_libraries", &[("CUDAGEN_TRACE", "1")]);
        println!("{out}");
        return;
    }
    let mut d = 0u64;
    let r = unsafe { generated::cuMemAlloc_v2(&mut d, 1 << 20) };
    assert_eq!(r, generated::CUresult(100));
    let msg = generated::loader::last_error_message().unwrap();
    println!("cuMemAlloc_v2 -> {r:?}: {msg}");
    assert!(msg.starts_with("libcuda.so.1 not found (needed for cuMemAlloc_v2, CUDA 3.2)"));
    let mut prog: generated::nvrtcProgram = core::ptr::null_mut();
    let src: &CStr = c"__global__ void k() {}";
    let r = unsafe { generated::nvrtcCreateProgram(&mut prog, src.as_ptr(), core::ptr::null::<c_char>(), 0, core::ptr::null(), core::ptr::null()) };
    assert_eq!(r, generated::nvrtcResult(11));
    assert!(generated::loader::last_error_message().unwrap().starts_with("libnvrtc.so.12 not found (needed for nvrtcCreateProgram)"));
}
