//! Pairs of functions for tests/gpu/objdump_safe.sh: `owned_X` goes through `cudagen::safe`'s
//! owned handles, `typed_X` makes the same driver calls through `cudagen::driver` on raw
//! handles. Each is `#[inline(never)]` and unmangled so its body can be disassembled and compared.
//! Pairs whose owned side ends a handle in `Drop` (an error there is recorded, not returned) and
//! the checked launch are expected to differ; the script says how much.
//! `main` only keeps every function alive; running it does nothing.

use cudagen::driver::{self, CUcontext, CUdeviceptr, CUevent, CUfunction, CUstream, Error};
use cudagen::safe::{self, Context, DeviceBuffer, DeviceMemory, Event, Function, LaunchConfig, Stream, StreamLaunch};
use std::ffi::c_void;
use std::hint::black_box;

/// `cuStreamQuery`.
#[no_mangle]
#[inline(never)]
pub fn owned_stream_query(s: &Stream) -> Result<(), Error> {
    s.query()
}

#[no_mangle]
#[inline(never)]
pub fn typed_stream_query(s: CUstream) -> Result<(), Error> {
    driver::stream_query(s)
}

/// The same with the raw handle behind a reference, as the owned side gets it.
#[no_mangle]
#[inline(never)]
pub fn typed_stream_query_ref(s: &CUstream) -> Result<(), Error> {
    driver::stream_query(*s)
}

/// `cuStreamSynchronize`.
#[no_mangle]
#[inline(never)]
pub fn owned_stream_synchronize(s: &Stream) -> Result<(), Error> {
    s.synchronize()
}

#[no_mangle]
#[inline(never)]
pub fn typed_stream_synchronize(s: CUstream) -> Result<(), Error> {
    driver::stream_synchronize(s)
}

/// `cuEventRecord`.
#[no_mangle]
#[inline(never)]
pub fn owned_event_record(e: &Event, s: &Stream) -> Result<(), Error> {
    e.record(s)
}

#[no_mangle]
#[inline(never)]
pub fn typed_event_record(e: CUevent, s: CUstream) -> Result<(), Error> {
    driver::event_record(e, s)
}

#[no_mangle]
#[inline(never)]
pub fn typed_event_record_ref(e: &CUevent, s: &CUstream) -> Result<(), Error> {
    driver::event_record(*e, *s)
}

/// `cuCtxGetApiVersion` (a method with an out-value).
#[no_mangle]
#[inline(never)]
pub fn owned_ctx_api_version(c: &Context) -> Result<u32, Error> {
    c.get_api_version()
}

#[no_mangle]
#[inline(never)]
pub fn typed_ctx_api_version(c: CUcontext) -> Result<u32, Error> {
    driver::ctx_get_api_version(c)
}

#[no_mangle]
#[inline(never)]
pub fn typed_ctx_api_version_ref(c: &CUcontext) -> Result<u32, Error> {
    driver::ctx_get_api_version(*c)
}

/// `cuMemAlloc` + `cuMemFree`, the owned side ended with `destroy` (its error returned).
#[no_mangle]
#[inline(never)]
pub fn owned_mem_alloc_free(bytes: usize) -> Result<(), Error> {
    DeviceMemory::alloc(bytes)?.destroy()
}

#[no_mangle]
#[inline(never)]
pub fn typed_mem_alloc_free(bytes: usize) -> Result<(), Error> {
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { driver::mem_free(driver::mem_alloc(bytes)?) }
}

/// `cuMemAlloc` + `cuMemFree`, the owned side ended by `Drop` (an error is recorded); the typed
/// side ignores the free's error.
#[no_mangle]
#[inline(never)]
pub fn owned_mem_alloc_drop(bytes: usize) -> Result<(), Error> {
    drop(DeviceMemory::alloc(bytes)?);
    Ok(())
}

#[no_mangle]
#[inline(never)]
pub fn typed_mem_alloc_drop(bytes: usize) -> Result<(), Error> {
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    let _ = unsafe { driver::mem_free(driver::mem_alloc(bytes)?) };
    Ok(())
}

/// `cuStreamCreate` + `cuStreamDestroy`, the owned side ended by `Drop`.
#[no_mangle]
#[inline(never)]
pub fn owned_stream_create_drop(flags: u32) -> Result<(), Error> {
    drop(Stream::create(flags)?);
    Ok(())
}

#[no_mangle]
#[inline(never)]
pub fn typed_stream_create_drop(flags: u32) -> Result<(), Error> {
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    let _ = unsafe { driver::stream_destroy(driver::stream_create(flags)?) };
    Ok(())
}

/// `cuCtxPushCurrent` + `cuCtxSynchronize` + `cuCtxPopCurrent`: the owned side binds with a
/// guard (its pop in `Drop`, an error recorded).
#[no_mangle]
#[inline(never)]
pub fn owned_ctx_synchronize(c: &Context) -> Result<(), Error> {
    let _bound = c.bind()?;
    driver::ctx_synchronize()
}

#[no_mangle]
#[inline(never)]
pub fn typed_ctx_synchronize(c: CUcontext) -> Result<(), Error> {
    driver::ctx_push_current(c)?;
    let r = driver::ctx_synchronize();
    let _ = driver::ctx_pop_current();
    r
}

/// A 5-argument launch: the checked `stream.launch` against `cuLaunchKernel` (informative: the
/// checked path reads and compares the kernel's parameter sizes).
#[no_mangle]
#[inline(never)]
pub fn owned_launch5(
    s: &Stream,
    f: &Function<'_>,
    x: &DeviceBuffer<'_, f32>,
    out: &mut DeviceBuffer<'_, f32>,
) -> Result<(), safe::Error> {
    s.launch(f, LaunchConfig::linear(1, 1), (1.0f32, x, x, out, 1usize))
}

#[no_mangle]
#[inline(never)]
pub fn typed_launch5(s: CUstream, f: CUfunction, x: CUdeviceptr, out: CUdeviceptr) -> Result<(), Error> {
    let (mut a, mut x1, mut x2, mut o, mut n) = (1.0f32, x, x, out, 1usize);
    let mut params: [*mut c_void; 5] =
        [(&raw mut a).cast(), (&raw mut x1).cast(), (&raw mut x2).cast(), (&raw mut o).cast(), (&raw mut n).cast()];
    // SAFETY: five parameters of these sizes, as the kernel declares.
    unsafe { driver::launch_kernel(f, 1, 1, 1, 1, 1, 1, 0, s, params.as_mut_ptr(), std::ptr::null_mut()) }
}

fn main() {
    // Keeps every function in the binary (an address is taken); nothing is called.
    let fns: [*const (); 21] = [
        owned_stream_query as _,
        typed_stream_query as _,
        typed_stream_query_ref as _,
        typed_event_record_ref as _,
        typed_ctx_api_version_ref as _,
        owned_stream_synchronize as _,
        typed_stream_synchronize as _,
        owned_event_record as _,
        typed_event_record as _,
        owned_ctx_api_version as _,
        typed_ctx_api_version as _,
        owned_mem_alloc_free as _,
        typed_mem_alloc_free as _,
        owned_mem_alloc_drop as _,
        typed_mem_alloc_drop as _,
        owned_stream_create_drop as _,
        typed_stream_create_drop as _,
        owned_ctx_synchronize as _,
        typed_ctx_synchronize as _,
        owned_launch5 as _,
        typed_launch5 as _,
    ];
    black_box(fns);
}
