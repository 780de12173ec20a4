//! Per-call cost of the typed Rust layer and of cudarc (the peer: its `driver::result` layer,
//! which wraps each call in a `Result` as ours does) against the raw `sys` call, on a real GPU:
//! `cuCtxGetCurrent`, `cuDeviceGetAttribute` and a 5-argument `cuLaunchKernel` (batches of 256
//! launches, then a synchronize). Rounds alternate between the three; medians of 41 rounds.
//! Run: `cargo bench -p cudagen-tests --bench rust_overhead` (prints one skip line without a GPU).

use cudagen::driver::{self, sys, CUcontext, CUdevice_attribute, CUdeviceptr};
use cudagen_tests::{compile_ptx, gpu_or_skip, EMPTY5};
use cudarc::driver::{result as rc, sys as rc_sys};
use std::ffi::{c_void, CString};
use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 41;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median ns per call of each of `layers`, measured in alternating rounds of `calls` calls.
fn compare<const N: usize>(calls: usize, mut layers: [&mut dyn FnMut(); N]) -> [f64; N] {
    for _ in 0..calls {
        for l in layers.iter_mut() {
            l();
        }
    }
    let mut samples: [Vec<f64>; N] = std::array::from_fn(|_| Vec::with_capacity(ROUNDS));
    for _ in 0..ROUNDS {
        for (l, s) in layers.iter_mut().zip(samples.iter_mut()) {
            let start = Instant::now();
            for _ in 0..calls {
                l();
            }
            s.push(start.elapsed().as_nanos() as f64 / calls as f64);
        }
    }
    samples.map(median)
}

fn row(name: &str, [raw, typed, cudarc]: [f64; 3]) {
    println!("| {name:<23} | {raw:>9.2} | {typed:>9.2} | {cudarc:>9.2} | {:>6.3}x | {:>6.3}x |", typed / raw, cudarc / raw);
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

    let rc_attr = rc_sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
    let (rc_dev, rc_kernel, rc_stream) = (dev.0, rc_sys::CUfunction::from(kernel), rc_sys::CUstream::from(stream));

    println!("| call                    |  sys ns   | typed ns  | cudarc ns | typed/sys | cudarc/sys |");
    println!("|-------------------------|-----------|-----------|-----------|-----------|------------|");
    row(
        "cuCtxGetCurrent",
        compare(
            100_000,
            [
                &mut || {
                    let mut c = CUcontext::null();
                    black_box(unsafe { sys::cuCtxGetCurrent(&mut c) });
                    black_box(c);
                },
                &mut || {
                    black_box(driver::ctx_get_current().ok());
                },
                &mut || {
                    black_box(rc::ctx::get_current().ok());
                },
            ],
        ),
    );
    let attr = CUdevice_attribute::MULTIPROCESSOR_COUNT;
    row(
        "cuDeviceGetAttribute",
        compare(
            100_000,
            [
                &mut || {
                    let mut v = 0;
                    black_box(unsafe { sys::cuDeviceGetAttribute(&mut v, black_box(attr), dev) });
                    black_box(v);
                },
                &mut || {
                    black_box(driver::device_get_attribute(black_box(attr), dev).ok());
                },
                &mut || {
                    black_box(unsafe { rc::device::get_attribute(rc_dev, black_box(rc_attr)) }.ok());
                },
            ],
        ),
    );
    // Launches: 256 per batch, then synchronize, so the queue never fills; cost per launch.
    let batch = |launch: &mut dyn FnMut()| {
        for _ in 0..256 {
            launch();
        }
        driver::stream_synchronize(stream).unwrap();
    };
    let [raw, typed, cudarc] = compare(
        40,
        [
            &mut || {
                batch(&mut || {
                    black_box(unsafe { sys::cuLaunchKernel(kernel, 1, 1, 1, 32, 1, 1, 0, stream, params, std::ptr::null_mut()) });
                })
            },
            &mut || {
                batch(&mut || {
                    black_box(
                        unsafe { driver::launch_kernel(kernel, 1, 1, 1, 32, 1, 1, 0, stream, params, std::ptr::null_mut()) }.ok(),
                    );
                })
            },
            &mut || {
                batch(&mut || {
                    let args = unsafe { std::slice::from_raw_parts_mut(params, 5) };
                    black_box(unsafe { rc::launch_kernel(rc_kernel, (1, 1, 1), (32, 1, 1), 0, rc_stream, args) }.ok());
                })
            },
        ],
    );
    row("cuLaunchKernel (5 args)", [raw / 256.0, typed / 256.0, cudarc / 256.0]);
    // SAFETY: made above, idle after the benchmarks, each ended once in reverse order.
    unsafe {
        driver::mem_free(buf).unwrap();
        driver::stream_destroy(stream).unwrap();
        driver::module_unload(module).unwrap();
        driver::ctx_destroy(ctx).unwrap();
    }
}
