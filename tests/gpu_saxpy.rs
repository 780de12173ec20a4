//! The seed's SAXPY program against the typed Rust API, on a real GPU: NVRTC compile, context,
//! module, 16,777,216 floats, copies, launch, comparison with the CPU. Skips with one line where
//! no driver exists.

use cudagen::driver::{self, CUdeviceptr};
use cudagen_tests::{compile_ptx, gpu_or_skip, random_floats, SAXPY};
use std::ffi::{c_void, CString};

const NUM_THREADS: u32 = 512;
const NUM_BLOCKS: u32 = 32768;

#[test]
fn saxpy_on_the_gpu_matches_the_cpu() {
    if !gpu_or_skip("saxpy_on_the_gpu_matches_the_cpu") {
        return;
    }
    let device = driver::device_get(0).unwrap();
    let major = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, device).unwrap();
    let minor = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, device).unwrap();
    let name = driver::device_get_name(device).unwrap();
    let ptx = compile_ptx(SAXPY, c"saxpy.cu", &format!("compute_{major}{minor}")).expect("nvrtc");
    let context = driver::ctx_create(0, device).unwrap();
    let ptx = CString::new(ptx).unwrap();
    let module = unsafe { driver::module_load_data(ptx.as_ptr().cast()) }.unwrap();
    let kernel = driver::module_get_function(module, c"saxpy").unwrap();

    let n = (NUM_THREADS * NUM_BLOCKS) as usize;
    let bytes = n * std::mem::size_of::<f32>();
    let a = 2.0f32;
    let hx = random_floats(n, 1);
    let hy = random_floats(n, 2);
    let mut hout = vec![f32::NAN; n]; // poisoned: every element must be written
    let dx = driver::mem_alloc(bytes).unwrap();
    let dy = driver::mem_alloc(bytes).unwrap();
    let dout = driver::mem_alloc(bytes).unwrap();
    let stream = driver::stream_create(0).unwrap();
    unsafe {
        driver::memcpy_htod_async(dx, hx.as_ptr().cast(), bytes, stream).unwrap();
        driver::memcpy_htod_async(dy, hy.as_ptr().cast(), bytes, stream).unwrap();
    }
    let (mut pa, mut px, mut py, mut pout, mut pn): (f32, CUdeviceptr, CUdeviceptr, CUdeviceptr, usize) = (a, dx, dy, dout, n);
    let mut args: [*mut c_void; 5] =
        [(&raw mut pa).cast(), (&raw mut px).cast(), (&raw mut py).cast(), (&raw mut pout).cast(), (&raw mut pn).cast()];
    unsafe {
        driver::launch_kernel(kernel, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1, 0, stream, args.as_mut_ptr(), std::ptr::null_mut())
            .unwrap();
        driver::memcpy_dtoh_async(hout.as_mut_ptr().cast(), dout, bytes, stream).unwrap();
    }
    driver::stream_synchronize(stream).unwrap();

    let mut max_err = 0f32;
    for i in 0..n {
        let want = a * hx[i] + hy[i];
        max_err = max_err.max((hout[i] - want).abs());
    }
    println!("saxpy on {name} (sm_{major}{minor}): {n} floats, max |gpu - cpu| = {max_err:e}");
    assert!(hout.iter().all(|v| v.is_finite()), "unwritten output elements");
    assert!(max_err <= 1e-6, "max error {max_err}");

    // SAFETY: made above, idle once the copy back returned, each ended once in reverse order.
    unsafe {
        driver::stream_destroy(stream).unwrap();
        for d in [dx, dy, dout] {
            driver::mem_free(d).unwrap();
        }
        driver::module_unload(module).unwrap();
        driver::ctx_destroy(context).unwrap();
    }
}

#[test]
fn typed_spot_checks_on_the_gpu() {
    if !gpu_or_skip("typed_spot_checks_on_the_gpu") {
        return;
    }
    let device = driver::device_get(0).unwrap();
    let context = driver::ctx_create(0, device).unwrap();
    let (free, total) = driver::mem_get_info().unwrap();
    assert!(free > 0 && free <= total, "free {free} total {total}");
    assert_eq!(driver::ctx_get_current().unwrap(), context);
    let version = driver::driver_get_version().unwrap();
    assert!(version >= 12000, "{version}");
    // SAFETY: the context was made above and is ended once.
    unsafe { driver::ctx_destroy(context) }.unwrap();
}
