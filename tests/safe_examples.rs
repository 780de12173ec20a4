//! The safe layer's examples (README.md, "The safe layer"), as GPU tests with no `unsafe`:
//! SAXPY, two streams ordered by events, graph capture and replay, stream-ordered allocation
//! from a pool of our own, and NVRTC -> module -> checked launch (with a refused launch).
//! Skips with one line where no driver exists.

use cudagen::driver::{self, CUmemLocation, CUmemLocationType, CUmemPool_attribute};
use cudagen::safe::{
    Alloc, DeviceBuffer, Error, Event, LaunchConfig, MemoryPool, Module, PrimaryContext, Program, Stream, StreamCapture,
    StreamLaunch,
};
use cudagen_tests::gpu_or_skip;
use std::ffi::CString;

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

const KERNELS: &std::ffi::CStr = c"
extern \"C\" __global__ void saxpy(float a, const float *x, float *y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern \"C\" __global__ void add_one(float *v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += 1.0f;
}
";

/// NVRTC through the owned `Program`: source -> PTX for this device (the log in the error).
fn compile(device: driver::CUdevice, source: &std::ffi::CStr) -> Result<CString> {
    let major = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, device)?;
    let minor = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, device)?;
    let arch = CString::new(format!("--gpu-architecture=compute_{major}{minor}"))?;
    let program = Program::create_program(source, Some(c"kernels.cu"), &[], &[])?;
    if let Err(e) = program.compile_program(&[arch.as_c_str()]) {
        return Err(format!("{e}: {}", program.get_program_log()?).into());
    }
    Ok(CString::new(program.get_ptx()?.trim_end_matches('\0'))?)
}

/// Device 0 and its primary context (each example binds it on its thread).
fn setup() -> Result<(driver::CUdevice, PrimaryContext)> {
    let device = driver::device_get(0)?;
    Ok((device, PrimaryContext::retain(device)?))
}

#[test]
fn example_saxpy() -> Result {
    if !gpu_or_skip("example_saxpy") {
        return Ok(());
    }
    let (device, ctx) = setup()?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, &compile(device, KERNELS)?)?;
    let saxpy = module.get_function(c"saxpy")?;
    let stream = Stream::create(&ctx, 0)?;

    let n = 1 << 20;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let dx = DeviceBuffer::from_host(&stream, &x)?;
    let mut dy = DeviceBuffer::from_host(&stream, &vec![1.0f32; n])?;
    stream.launch(&saxpy, LaunchConfig::for_elements(n as u32, 256), (2.0f32, &dx, &mut dy, n))?;
    let y = dy.to_vec()?;

    assert!(y.iter().enumerate().all(|(i, &v)| v == 2.0 * i as f32 + 1.0));
    println!("example saxpy: {n} floats, y = 2x + 1 exact");
    Ok(())
}

#[test]
fn example_two_streams_and_events() -> Result {
    if !gpu_or_skip("example_two_streams_and_events") {
        return Ok(());
    }
    let (device, ctx) = setup()?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, &compile(device, KERNELS)?)?;
    let add_one = module.get_function(c"add_one")?;
    let (s1, s2) = (Stream::create(&ctx, 1)?, Stream::create(&ctx, 1)?);
    // Timing events (flags 0 = CU_EVENT_DEFAULT).
    let (start, stop) = (Event::create(&ctx, 0)?, Event::create(&ctx, 0)?);

    let n = 1u32 << 22;
    let cfg = LaunchConfig::for_elements(n, 256);
    let mut a = DeviceBuffer::<f32>::zeroed(&s1, n as usize)?;
    let mut b = DeviceBuffer::<f32>::zeroed(&s2, n as usize)?;
    start.record(&s1)?;
    for _ in 0..10 {
        s1.launch(&add_one, cfg, (&mut a, n))?; // the two streams run side by side
        s2.launch(&add_one, cfg, (&mut b, n))?;
    }
    stop.record(&s1)?;
    // Hand `a` to s2: an event on s1 that s2 waits for, once, then s2 owns it.
    let mut a = a.move_to(&s2)?;
    s2.launch(&add_one, cfg, (&mut a, n))?;
    stop.synchronize()?;
    let ms = start.elapsed_time(&stop)?;

    assert_eq!(a.slice(..4).to_vec()?, [11.0; 4]);
    assert_eq!(b.slice(..4).to_vec()?, [10.0; 4]);
    println!("example streams: 2 streams x 10 launches, one move, stream 1 took {ms:.3} ms by its events");
    Ok(())
}

#[test]
fn example_graph_capture_and_replay() -> Result {
    if !gpu_or_skip("example_graph_capture_and_replay") {
        return Ok(());
    }
    let (device, ctx) = setup()?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, &compile(device, KERNELS)?)?;
    let add_one = module.get_function(c"add_one")?;
    let stream = Stream::create(&ctx, 1)?;
    let n = 1u32 << 16;
    let cfg = LaunchConfig::for_elements(n, 256);
    let mut v = DeviceBuffer::<f32>::zeroed(&stream, n as usize)?;

    stream.launch(&add_one, cfg, (&mut v, n))?; // once eagerly: v = 1
                                                // The capture borrows `add_one` and `v` for as long as the graph and its executable live.
    let mut cap = stream.capture(driver::CUstreamCaptureMode::THREAD_LOCAL)?;
    for _ in 0..3 {
        cap.launch(&add_one, cfg, (&v, n))?; // recorded, not run
    }
    let exec = cap.end()?.instantiate()?;
    for _ in 0..5 {
        exec.launch()?; // +3 each replay, on `stream`
    }

    assert_eq!(v.to_vec()?.iter().filter(|&&x| x == 16.0).count(), n as usize);
    println!("example graph: 3 launches captured, replayed 5 times, every element 1 + 15");
    Ok(())
}

#[test]
fn example_pool_allocations() -> Result {
    if !gpu_or_skip("example_pool_allocations") {
        return Ok(());
    }
    let (device, ctx) = setup()?;
    let _bound = ctx.bind()?;
    let stream = Stream::create(&ctx, 1)?;
    let pool = MemoryPool::pinned(CUmemLocation { r#type: CUmemLocationType::DEVICE, id: device.0 })?;
    // Keep freed memory in the pool between rounds instead of returning it at each synchronize.
    pool.set_attribute(CUmemPool_attribute::RELEASE_THRESHOLD, &u64::MAX)?;

    let data: Vec<u32> = (0..1 << 20).collect();
    for round in 0..100u32 {
        let buf = DeviceBuffer::from_host_with(&stream, &data, Alloc::Pool(&pool))?;
        assert_eq!(buf.slice(round as usize..round as usize + 1).to_vec()?, [round]);
    } // each buffer is freed on the stream when dropped, back into the pool
    let reserved: u64 = pool.get_attribute(CUmemPool_attribute::RESERVED_MEM_CURRENT)?;
    let used: u64 = pool.get_attribute(CUmemPool_attribute::USED_MEM_CURRENT)?;
    pool.trim_to(0)?;

    assert_eq!(used, 0, "every buffer went back to the pool");
    // 100 rounds of 4 MiB: without reuse the pool would hold 400 MiB.
    assert!(reserved <= 64 << 20, "the pool's memory was reused ({reserved} bytes reserved)");
    println!("example pool: 100 stream-ordered allocations of 4 MiB, pool reserved {reserved} bytes, 0 in use");
    Ok(())
}

#[test]
fn example_nvrtc_module_checked_launch() -> Result {
    if !gpu_or_skip("example_nvrtc_module_checked_launch") {
        return Ok(());
    }
    let (device, ctx) = setup()?;
    let _bound = ctx.bind()?;
    // A compile error comes back with NVRTC's log.
    let e = compile(device, c"extern \"C\" __global__ void broken(int *p) { p[0] = undefined; }").unwrap_err();
    assert!(e.to_string().contains("undefined"), "{e}");

    let module = Module::from_ptx(&ctx, &compile(device, KERNELS)?)?;
    let saxpy = module.get_function(c"saxpy")?;
    let stream = Stream::create(&ctx, 0)?;
    let x = DeviceBuffer::from_host(&stream, &[1.0f32, 2.0, 3.0])?;
    let mut y = DeviceBuffer::from_host(&stream, &[10.0f32, 20.0, 30.0])?;
    let cfg = LaunchConfig::for_elements(3, 32);

    // `n` is a size_t: a u32 is refused before anything is launched.
    let refused = stream.launch(&saxpy, cfg, (2.0f32, &x, &mut y, 3u32)).unwrap_err();
    assert!(matches!(refused, Error::ParamSize { index: 3, expected: 8, given: 4, .. }), "{refused:?}");
    stream.launch(&saxpy, cfg, (2.0f32, &x, &mut y, 3usize))?;

    assert_eq!(y.to_vec()?, [12.0, 24.0, 36.0]);
    println!("example nvrtc: compile error logged, refused: {refused}; launched: [12, 24, 36]");
    Ok(())
}

/// The examples are what a user writes: no `unsafe` in this file.
#[test]
fn examples_have_no_unsafe() {
    let source = include_str!("safe_examples.rs");
    let word = concat!("un", "safe");
    let uses = source.lines().filter(|l| l.contains(&format!("{word} ")) && !l.trim_start().starts_with("//")).count();
    assert_eq!(uses, 0, "an example uses {word}");
}

/// The safe forms of the typed layer's raw-address calls: stream writes and waits on one
/// element, fills of 1-, 2- and 4-byte elements, 1-D copies between slices, checked on the host.
#[test]
fn example_stream_values_and_fills() -> Result {
    if !gpu_or_skip("example_stream_values_and_fills") {
        return Ok(());
    }
    let (_device, ctx) = setup()?;
    let _bound = ctx.bind()?;
    let stream = Stream::create(&ctx, 1)?;
    // Stream memory operations on memory of cuMemAlloc: the H200 (driver 580) refuses them on a
    // stream-ordered pool's memory with CUDA_ERROR_INVALID_VALUE (an error; nothing written).
    let mut flags = DeviceBuffer::<u32>::zeroed_with(&stream, 4, Alloc::Sync)?;
    flags.write_value(0, 7)?;
    flags.slice_mut(2..).write_value(1, 9)?;
    flags.wait_value(0, 7, driver::CUstreamWaitValue_flags::EQ)?; // already true: no hang
    let mut wide = DeviceBuffer::<u64>::zeroed_with(&stream, 2, Alloc::Sync)?;
    wide.write_value(1, u64::MAX - 1)?;
    let mut halves = DeviceBuffer::<i16>::zeroed(&stream, 5)?;
    halves.fill(-3)?;
    let mut floats = DeviceBuffer::<f32>::zeroed(&stream, 8)?;
    floats.fill(1.5)?;
    floats.slice_mut(6..).fill(-2.0)?;
    let copy = DeviceBuffer::from_host(&stream, &floats.to_vec()?)?;
    floats.slice_mut(..2).copy_from_device(&copy.slice(6..))?;
    assert_eq!(flags.to_vec()?, [7, 0, 0, 9]);
    assert_eq!(wide.to_vec()?, [0, u64::MAX - 1]);
    assert_eq!(halves.to_vec()?, [-3; 5]);
    assert_eq!(floats.to_vec()?, [-2.0, -2.0, 1.5, 1.5, 1.5, 1.5, -2.0, -2.0]);
    Ok(())
}
