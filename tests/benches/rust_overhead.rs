//! Per-call cost of the typed Rust layer against the raw `sys` call, on a real GPU:
//! `cuCtxGetCurrent`, `cuDeviceGetAttribute` and a 5-argument `cuLaunchKernel` (batches of 256
//! launches, then a synchronize). Rounds alternate between the two layers; medians of 41 rounds.
//! Run: `cargo bench -p cudagen-tests --bench rust_overhead` (prints one skip line without a GPU).

use cudagen::driver::{self, sys, CUcontext, CUdevice_attribute, CUdeviceptr};
use cudagen_tests::{compile_ptx, gpu_or_skip, EMPTY5};
use std::ffi::{c_void, CString};
use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 41;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median ns per call of `raw` and `typed`, measured in alternating rounds of `calls` calls.
fn compare(calls: usize, mut raw: impl FnMut(), mut typed: impl FnMut()) -> (f64, f64) {
    for _ in 0..calls {
        raw();
        typed();
    }
    let (mut r, mut t) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let s = Instant::now();
        for _ in 0..calls {
            raw();
        }
        r.push(s.elapsed().as_nanos() as f64 / calls as f64);
        let s = Instant::now();
        for _ in 0..calls {
            typed();
        }
        t.push(s.elapsed().as_nanos() as f64 / calls as f64);
    }
    (median(r), median(t))
}

fn row(name: &str, (raw, typed): (f64, f64)) {
    println!("| {name:<22} | {raw:>9.2} | {typed:>9.2} | {:>5.3}x |", typed / raw);
}

fn main() {
    if !gpu_or_skip("rust_overhead") {
        return;
    }
    let dev = driver::device_get(0).unwrap();
    let ctx = driver::ctx_create(0, dev).unwrap();
    let major = driver::device_get_attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, dev).unwrap();
    let minor = driver::device_get_attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, dev).unwrap();
    let ptx = CString::new(compile_ptx(EMPTY5, c"empty5.cu", &format!("compute_{major}{minor}")).unwrap()).unwrap();
    let module = unsafe { driver::module_load_data(ptx.as_ptr().cast()) }.unwrap();
    let kernel = driver::module_get_function(module, c"empty5").unwrap();
    let stream = driver::stream_create(0).unwrap();
    let buf = driver::mem_alloc(1 << 20).unwrap();
    let (mut a, mut x, mut y, mut o, mut n): (f32, CUdeviceptr, CUdeviceptr, CUdeviceptr, usize) = (2.0, buf, buf, buf, 0);
    let mut args: [*mut c_void; 5] =
        [(&raw mut a).cast(), (&raw mut x).cast(), (&raw mut y).cast(), (&raw mut o).cast(), (&raw mut n).cast()];
    let params = args.as_mut_ptr();

    println!("| call                   |  sys ns   | typed ns  | ratio  |");
    println!("|------------------------|-----------|-----------|--------|");
    row(
        "cuCtxGetCurrent",
        compare(
            100_000,
            || {
                let mut c = CUcontext::null();
                black_box(unsafe { sys::cuCtxGetCurrent(&mut c) });
                black_box(c);
            },
            || {
                black_box(driver::ctx_get_current().ok());
            },
        ),
    );
    let attr = CUdevice_attribute::MULTIPROCESSOR_COUNT;
    row(
        "cuDeviceGetAttribute",
        compare(
            100_000,
            || {
                let mut v = 0;
                black_box(unsafe { sys::cuDeviceGetAttribute(&mut v, black_box(attr), dev) });
                black_box(v);
            },
            || {
                black_box(driver::device_get_attribute(black_box(attr), dev).ok());
            },
        ),
    );
    // Launches: 256 per batch, then synchronize, so the queue never fills; cost per launch.
    let batch = |launch: &mut dyn FnMut()| {
        for _ in 0..256 {
            launch();
        }
        driver::stream_synchronize(stream).unwrap();
    };
    let (raw, typed) = compare(
        40,
        || {
            batch(&mut || {
                black_box(unsafe { sys::cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, stream, params, std::ptr::null_mut()) });
            })
        },
        || {
            batch(&mut || {
                black_box(unsafe { driver::launch_kernel(kernel, 1, 1, 1, 32, 1, 1, 0, stream, params, std::ptr::null_mut()) }.ok());
            })
        },
    );
    row("cuLaunchKernel (5 args)", (raw / 256.0, typed / 256.0));
    driver::mem_free(buf).unwrap();
    driver::stream_destroy(stream).unwrap();
    driver::module_unload(module).unwrap();
    driver::ctx_destroy(ctx).unwrap();
}
