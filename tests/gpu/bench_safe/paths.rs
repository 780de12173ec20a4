//! The same work done four ways: cudagen's safe layer, its typed layer (the raw baseline, the
//! calls a C program makes), cudarc's safe API as it comes (a non-blocking stream from
//! `new_stream`, so its event tracking is on) and cudarc with event tracking off.
//! Every function does its work `reps` times and returns nanoseconds per repetition.

use cudagen::driver::{self, CUdeviceptr, CUfunction, CUstream};
use cudagen::safe::{DeviceBuffer, Function, LaunchConfig, Stream, StreamLaunch};
use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig as RcConfig, PushKernelArg};
use std::ffi::c_void;
use std::sync::Arc;
use std::time::Instant;

/// Threads per block of every SAXPY launch.
pub const BLOCK: u32 = 256;
/// The SAXPY factor.
pub const A: f32 = 2.0;

fn timed(reps: usize, mut body: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        body();
    }
    t.elapsed().as_nanos() as f64 / reps as f64
}

/// Nanoseconds per launch of `reps` launches that took `d`.
fn per_launch(d: std::time::Duration, reps: usize) -> f64 {
    d.as_nanos() as f64 / reps as f64
}

/// cudagen's safe layer: its own stream and the checked-launch handles of both kernels.
pub struct Safe<'m> {
    pub stream: Stream<'m>,
    pub saxpy: Function<'m>,
    pub empty5: Function<'m>,
}

impl Safe<'_> {
    /// Alloc + copy in (x, y), SAXPY, copy out, free, synchronize; returns y.
    pub fn saxpy(&self, hx: &[f32], hy: &[f32]) -> Vec<f32> {
        let s = &self.stream;
        let n = hx.len();
        let x = DeviceBuffer::from_host(s, hx).unwrap();
        let mut y = DeviceBuffer::from_host(s, hy).unwrap();
        s.launch(&self.saxpy, LaunchConfig::for_elements(n as u32, BLOCK), (A, &x, &mut y, n)).unwrap();
        let out = y.to_vec().unwrap();
        drop((x, y));
        s.synchronize().unwrap();
        out
    }

    pub fn time_saxpy(&self, reps: usize, hx: &[f32], hy: &[f32]) -> f64 {
        timed(reps, || drop(std::hint::black_box(self.saxpy(hx, hy))))
    }

    /// `reps` launches of the empty 5-argument kernel, then one synchronize (timed when `whole`;
    /// else only the launch calls: the host's cost, with 256 launches far from a full queue).
    pub fn time_launch(&self, reps: usize, bufs: &mut [DeviceBuffer<'_, f32>; 3], whole: bool) -> f64 {
        let s = &self.stream;
        let cfg = LaunchConfig::linear(1, 1);
        let t = Instant::now();
        let [x, y, out] = bufs;
        for _ in 0..reps {
            s.launch(&self.empty5, cfg, (1.0f32, &*x, &*y, &mut *out, 1usize)).unwrap();
        }
        let host = t.elapsed();
        s.synchronize().unwrap();
        per_launch(if whole { t.elapsed() } else { host }, reps)
    }

    /// `reps` times: a zeroed buffer of `len` floats allocated and freed; then one synchronize.
    pub fn time_alloc(&self, reps: usize, len: usize) -> f64 {
        let t = Instant::now();
        for _ in 0..reps {
            drop(std::hint::black_box(DeviceBuffer::<f32>::zeroed(&self.stream, len).unwrap()));
        }
        self.stream.synchronize().unwrap();
        t.elapsed().as_nanos() as f64 / reps as f64
    }
}

/// cudagen's typed layer: raw handles, the `unsafe` calls written as a C program would.
pub struct Typed {
    pub stream: CUstream,
    pub saxpy: CUfunction,
    pub empty5: CUfunction,
}

/// `cuLaunchKernel` of a 1-D grid with the given parameter pointers.
///
/// # Safety
/// `params` match the kernel's parameters.
unsafe fn launch(f: CUfunction, grid: u32, block: u32, s: CUstream, params: &mut [*mut c_void]) {
    unsafe { driver::launch_kernel(f, grid, 1, 1, block, 1, 1, 0, s, params.as_mut_ptr(), std::ptr::null_mut()) }.unwrap();
}

impl Typed {
    pub fn saxpy(&self, hx: &[f32], hy: &[f32]) -> Vec<f32> {
        let (s, n) = (self.stream, hx.len());
        let bytes = std::mem::size_of_val(hx);
        let mut x = driver::mem_alloc_async(bytes, s).unwrap();
        let mut y = driver::mem_alloc_async(bytes, s).unwrap();
        let mut out = Vec::<f32>::with_capacity(n);
        // SAFETY: x and y hold `bytes`; the host slices are as long; saxpy takes (float, float*,
        // float*, size_t); `out` has room for n floats and is set after the synchronize.
        unsafe {
            driver::memcpy_htod_async(x, hx.as_ptr().cast(), bytes, s).unwrap();
            driver::memcpy_htod_async(y, hy.as_ptr().cast(), bytes, s).unwrap();
            let (mut a, mut n_arg) = (A, n);
            let mut params = [(&raw mut a).cast(), (&raw mut x).cast(), (&raw mut y).cast(), (&raw mut n_arg).cast()];
            launch(self.saxpy, (n as u32).div_ceil(BLOCK), BLOCK, s, &mut params);
            driver::memcpy_dtoh_async(out.as_mut_ptr().cast(), y, bytes, s).unwrap();
            driver::mem_free_async(x, s).unwrap();
            driver::mem_free_async(y, s).unwrap();
            driver::stream_synchronize(s).unwrap();
            out.set_len(n);
        }
        out
    }

    pub fn time_saxpy(&self, reps: usize, hx: &[f32], hy: &[f32]) -> f64 {
        timed(reps, || drop(std::hint::black_box(self.saxpy(hx, hy))))
    }

    pub fn time_launch(&self, reps: usize, bufs: [CUdeviceptr; 3], whole: bool) -> f64 {
        let s = self.stream;
        let t = Instant::now();
        for _ in 0..reps {
            let (mut a, [mut x, mut y, mut out], mut n) = (1.0f32, bufs, 1usize);
            let mut params =
                [(&raw mut a).cast(), (&raw mut x).cast(), (&raw mut y).cast(), (&raw mut out).cast(), (&raw mut n).cast()];
            // SAFETY: empty5 takes (float, float*, float*, float*, size_t).
            unsafe { launch(self.empty5, 1, 1, s, &mut params) };
        }
        let host = t.elapsed();
        driver::stream_synchronize(s).unwrap();
        per_launch(if whole { t.elapsed() } else { host }, reps)
    }

    pub fn time_alloc(&self, reps: usize, len: usize) -> f64 {
        let s = self.stream;
        let bytes = len * std::mem::size_of::<f32>();
        let t = Instant::now();
        for _ in 0..reps {
            let p = driver::mem_alloc_async(bytes, s).unwrap();
            // SAFETY: made by this program, live here, used no more where ended; ended once.
            unsafe { driver::memset_d8_async(p, 0, bytes, s) }.unwrap();
            // SAFETY: made by this program, live here, used no more where ended; ended once.
            unsafe { driver::mem_free_async(std::hint::black_box(p), s) }.unwrap();
        }
        driver::stream_synchronize(s).unwrap();
        t.elapsed().as_nanos() as f64 / reps as f64
    }
}

/// cudarc's safe API on its own stream (`CudaContext::new_stream`).
pub struct Cudarc {
    pub stream: Arc<CudaStream>,
    pub saxpy: CudaFunction,
    pub empty5: CudaFunction,
}

impl Cudarc {
    pub fn saxpy(&self, hx: &[f32], hy: &[f32]) -> Vec<f32> {
        let s = &self.stream;
        let n = hx.len();
        let x = s.clone_htod(hx).unwrap();
        let mut y = s.clone_htod(hy).unwrap();
        let cfg = RcConfig { grid_dim: ((n as u32).div_ceil(BLOCK), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let mut b = s.launch_builder(&self.saxpy);
        b.arg(&A).arg(&x).arg(&mut y).arg(&n);
        // SAFETY: saxpy takes (float, const float*, float*, size_t).
        unsafe { b.launch(cfg) }.unwrap();
        let out = s.clone_dtoh(&y).unwrap();
        drop((x, y));
        s.synchronize().unwrap();
        out
    }

    pub fn time_saxpy(&self, reps: usize, hx: &[f32], hy: &[f32]) -> f64 {
        timed(reps, || drop(std::hint::black_box(self.saxpy(hx, hy))))
    }

    pub fn time_launch(&self, reps: usize, bufs: &mut [cudarc::driver::CudaSlice<f32>; 3], whole: bool) -> f64 {
        let s = &self.stream;
        let cfg = RcConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
        let [x, y, out] = bufs;
        let (a, n) = (1.0f32, 1usize);
        let t = Instant::now();
        for _ in 0..reps {
            let mut b = s.launch_builder(&self.empty5);
            b.arg(&a).arg(&*x).arg(&*y).arg(&mut *out).arg(&n);
            // SAFETY: empty5 takes (float, float*, float*, float*, size_t).
            unsafe { b.launch(cfg) }.unwrap();
        }
        let host = t.elapsed();
        s.synchronize().unwrap();
        per_launch(if whole { t.elapsed() } else { host }, reps)
    }

    pub fn time_alloc(&self, reps: usize, len: usize) -> f64 {
        let t = Instant::now();
        for _ in 0..reps {
            drop(std::hint::black_box(self.stream.alloc_zeros::<f32>(len).unwrap()));
        }
        self.stream.synchronize().unwrap();
        t.elapsed().as_nanos() as f64 / reps as f64
    }
}
