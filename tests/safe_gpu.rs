//! The safe layer on a real GPU: SAXPY, two streams ordered by moving buffers between them,
//! pinned asynchronous copies, stream-ordered allocation from pools, NVRTC -> module -> checked
//! launches of 21 kernels of different shapes, and a corpus of mismatched launches that must all
//! be refused with a precise message while a device counter of launches stays 0.
//! Skips with one line where no driver exists. Everything goes through `cudagen::safe` (owned
//! context, stream, module, function, pool; typed memory; checked launches) with no `unsafe`; the
//! only `unsafe` is the typed-layer baseline of the launch-cost comparison (`mod baseline`).

use cudagen::driver::{
    self, CUdeviceptr, CUfunction_attribute, CUmemAllocationType, CUmemLocation, CUmemLocationType, CUmemPoolProps,
};
use cudagen::safe::{
    kernel_params, Alloc, Context, DeviceBuffer, Error, Function, LaunchConfig, Launchable, MemoryPool, Module, PinnedHostBuffer,
    RawKernelArg, Stream, StreamLaunch,
};
use cudagen_tests::{compile_ptx, gpu_or_skip, random_floats, EMPTY5, SAFE_KERNELS as KERNELS};
use std::ffi::CString;
use std::time::Instant;

/// The baseline of `checked_launch_cost`: the typed layer's raw launch (its `unsafe` is the
/// typed layer's; no other `unsafe` is in this file).
mod baseline {
    use cudagen::driver;
    use cudagen::safe::{Function, Stream};

    /// `empty5(float, float*, float*, float*, size_t)` through `driver::launch_kernel`, the raw
    /// parameter array built as a C caller would.
    pub fn typed_launch5(f: &Function<'_>, s: &Stream, a: f32, x: u64, y: u64, out: u64, n: usize) {
        let (mut a, mut x, mut y, mut out, mut n) = (a, x, y, out, n);
        let mut args: [*mut std::ffi::c_void; 5] =
            [(&raw mut a).cast(), (&raw mut x).cast(), (&raw mut y).cast(), (&raw mut out).cast(), (&raw mut n).cast()];
        // SAFETY: five parameters of these sizes, as empty5 declares.
        unsafe { driver::launch_kernel(f.as_raw(), 1, 1, 1, 1, 1, 1, 0, s.as_raw(), args.as_mut_ptr(), std::ptr::null_mut()) }
            .unwrap();
    }
}

/// `CU_STREAM_NON_BLOCKING`: no implicit ordering with the legacy default stream.
const CU_STREAM_NON_BLOCKING: u32 = 1;

cudagen::device_repr! {
    struct Params { scale: f32, offset: [f32; 2] }
}

cudagen::device_repr! {
    struct Wide { scale: f64, offset: [f32; 2] }
}

/// A struct holding a device address: no `DeviceRepr` (its bits do not keep the memory alive),
/// so a kernel takes it only as a `RawKernelArg`, made with `unsafe`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Ptrs {
    x: CUdeviceptr,
    n: u32,
}

/// `Ptrs` for a launch.
/// # Safety
/// `x` addresses `n` live floats until the kernel has finished.
unsafe fn ptrs(x: CUdeviceptr, n: u32) -> RawKernelArg<Ptrs> {
    unsafe { RawKernelArg::new(Ptrs { x, n }) }
}

/// Every kernel of `KERNELS`, as checked-launch handles.
struct Kernels<'m> {
    read_state: Function<'m>,
    none: Function<'m>,
    i32_: Function<'m>,
    u8_: Function<'m>,
    i16_: Function<'m>,
    i64_: Function<'m>,
    f32_: Function<'m>,
    f64_: Function<'m>,
    bool_: Function<'m>,
    mixed: Function<'m>,
    struct_: Function<'m>,
    wide: Function<'m>,
    sum: Function<'m>,
    saxpy: Function<'m>,
    copy: Function<'m>,
    fill2d: Function<'m>,
    fill3d: Function<'m>,
    reverse: Function<'m>,
    many: Function<'m>,
    mul: Function<'m>,
    ptrs: Function<'m>,
    add_u64: Function<'m>,
    bounded: Function<'m>,
    spin_fill: Function<'m>,
    accumulate: Function<'m>,
}

impl<'m> Kernels<'m> {
    fn new(m: &'m Module) -> Self {
        Kernels {
            read_state: m.get_function(c"read_state").unwrap(),
            none: m.get_function(c"s_none").unwrap(),
            i32_: m.get_function(c"s_i32").unwrap(),
            u8_: m.get_function(c"s_u8").unwrap(),
            i16_: m.get_function(c"s_i16").unwrap(),
            i64_: m.get_function(c"s_i64").unwrap(),
            f32_: m.get_function(c"s_f32").unwrap(),
            f64_: m.get_function(c"s_f64").unwrap(),
            bool_: m.get_function(c"s_bool").unwrap(),
            mixed: m.get_function(c"s_mixed").unwrap(),
            struct_: m.get_function(c"s_struct").unwrap(),
            wide: m.get_function(c"s_wide").unwrap(),
            sum: m.get_function(c"s_sum").unwrap(),
            saxpy: m.get_function(c"s_saxpy").unwrap(),
            copy: m.get_function(c"s_copy").unwrap(),
            fill2d: m.get_function(c"s_fill2d").unwrap(),
            fill3d: m.get_function(c"s_fill3d").unwrap(),
            reverse: m.get_function(c"s_reverse").unwrap(),
            many: m.get_function(c"s_many").unwrap(),
            mul: m.get_function(c"s_mul").unwrap(),
            ptrs: m.get_function(c"s_ptrs").unwrap(),
            add_u64: m.get_function(c"s_add_u64").unwrap(),
            bounded: m.get_function(c"s_bounded").unwrap(),
            spin_fill: m.get_function(c"spin_fill").unwrap(),
            accumulate: m.get_function(c"accumulate").unwrap(),
        }
    }
}

impl Kernels<'_> {
    /// Every kernel with its name.
    fn all(&self) -> [(&'static str, &Function<'_>); 25] {
        [
            ("read_state", &self.read_state),
            ("s_none", &self.none),
            ("s_i32", &self.i32_),
            ("s_u8", &self.u8_),
            ("s_i16", &self.i16_),
            ("s_i64", &self.i64_),
            ("s_f32", &self.f32_),
            ("s_f64", &self.f64_),
            ("s_bool", &self.bool_),
            ("s_mixed", &self.mixed),
            ("s_struct", &self.struct_),
            ("s_wide", &self.wide),
            ("s_sum", &self.sum),
            ("s_saxpy", &self.saxpy),
            ("s_copy", &self.copy),
            ("s_fill2d", &self.fill2d),
            ("s_fill3d", &self.fill3d),
            ("s_reverse", &self.reverse),
            ("s_many", &self.many),
            ("s_mul", &self.mul),
            ("s_ptrs", &self.ptrs),
            ("s_add_u64", &self.add_u64),
            ("s_bounded", &self.bounded),
            ("spin_fill", &self.spin_fill),
            ("accumulate", &self.accumulate),
        ]
    }
}

/// The layouts the module read from its PTX (seeded at `get_function`) against the driver's
/// `cuFuncGetParamInfo` for every parameter of every kernel (asked within the count only, so
/// no call fails); returns the parameters compared.
fn ptx_layouts_match_the_driver(k: &Kernels<'_>) -> usize {
    let mut compared = 0;
    for (name, f) in k.all() {
        assert!(f.launch_cache().from_ptx(), "{name}: seeded from the module's PTX");
        let params = kernel_params(f).unwrap();
        for (i, p) in params.iter().enumerate() {
            // SAFETY: `f` lives across the query.
            let driver = driver::func_get_param_info(unsafe { f.as_raw() }, i).unwrap();
            assert_eq!((p.offset, p.size), driver, "{name} parameter {i}: PTX layout vs the driver");
            compared += 1;
        }
    }
    compared
}

/// The device's launch counter and `sink[32]`, read by the (uncounted) `read_state` kernel.
fn read_state(k: &Kernels<'_>, s: &Stream) -> (u32, Vec<f64>) {
    let mut n = DeviceBuffer::<u32>::zeroed(s, 1).unwrap();
    let mut sink = DeviceBuffer::<f64>::zeroed(s, 32).unwrap();
    s.launch(&k.read_state, LaunchConfig::linear(1, 32), (&mut n, &mut sink)).unwrap();
    (n.to_vec().unwrap()[0], sink.to_vec().unwrap())
}

#[test]
fn safe_layer_on_the_gpu() {
    if !gpu_or_skip("safe_layer_on_the_gpu") {
        return;
    }
    let device = driver::device_get(0).unwrap();
    let ctx = Context::create(0, device).unwrap();
    let major = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, device).unwrap();
    let minor = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, device).unwrap();
    let src = CString::new(KERNELS).unwrap();
    let ptx = compile_ptx(&src, c"safe_gpu.cu", &format!("compute_{major}{minor}")).expect("nvrtc");
    let module = Module::from_ptx(&ctx, ptx).unwrap();
    let k = Kernels::new(&module);
    let s = Stream::create(&ctx, CU_STREAM_NON_BLOCKING).unwrap();
    let compared = ptx_layouts_match_the_driver(&k);
    println!("layouts: {compared} parameters of {} kernels read from the PTX equal cuFuncGetParamInfo", k.all().len());

    let refused = mismatched_launches_are_refused(&ctx, &k, &s);
    let (launches, _) = read_state(&k, &s);
    assert_eq!(launches, 0, "a refused launch ran");
    println!("corpus: {refused} mismatched launches refused, device launch counter {launches}");

    let shapes = kernels_of_twenty_shapes(&k, &s);
    let (launches, _) = read_state(&k, &s);
    assert_eq!(launches, shapes.1, "every checked launch ran once");
    println!("shapes: {} kernels launched and checked, {} launches counted on the device", shapes.0, launches);

    let n = saxpy(&k, &s);
    let pageable_rounds = pageable_copies(&ctx, &k);
    let iters = two_streams(&ctx, &k);
    let rounds = pools(&s, &k);
    let drop_errors = cudagen::safe::take_drop_errors();
    assert!(drop_errors.is_empty(), "{drop_errors:?}");
    println!(
        "summary: safe_gpu PASS: {compared} PTX parameter layouts equal the driver's, {refused} mismatched launches refused (counter 0), {} kernel shapes, saxpy {n} floats, \
         {pageable_rounds} pageable rounds, 2 streams x {iters} moves, {rounds} pool rounds, 0 drop errors",
        shapes.0
    );
}

/// Checks one refused launch: the exact message, and that it is a refusal (not a driver error).
fn expect(r: Result<(), Error>, want: &str, refused: &mut usize) {
    let e = r.expect_err(want);
    assert!(e.driver_error().is_none(), "a refusal, not a driver error: {e}");
    assert_eq!(e.to_string(), want);
    *refused += 1;
}

fn mismatched_launches_are_refused(ctx: &Context, k: &Kernels<'_>, s: &Stream) -> usize {
    let mut n = 0;
    let one = LaunchConfig::linear(1, 1);
    let x = DeviceBuffer::<f32>::zeroed(s, 256).unwrap();
    let mut y = DeviceBuffer::<f32>::zeroed(s, 256).unwrap();
    let ints = DeviceBuffer::<i32>::zeroed(s, 256).unwrap();
    let p = Params { scale: 1.0, offset: [2.0, 3.0] };
    let w = Wide { scale: 1.0, offset: [2.0, 3.0] };
    let nothing = "nothing launched";
    let size = |kernel: &str, i: usize, want: usize, given: usize| {
        format!("kernel `{kernel}` parameter {i} is {want} bytes, argument {i} is {given} bytes; {nothing}")
    };
    let count = |kernel: &str, want: &str, given: &str| format!("kernel `{kernel}` takes {want}, {given} given; {nothing}");

    // Wrong counts.
    expect(s.launch(&k.none, one, (1u32,)), &count("s_none", "0 parameters", "1 argument"), &mut n);
    expect(s.launch(&k.i32_, one, ()), &count("s_i32", "1 parameter", "0 arguments"), &mut n);
    expect(s.launch(&k.i32_, one, (1i32, 2i32)), &count("s_i32", "1 parameter", "2 arguments"), &mut n);
    expect(s.launch(&k.saxpy, one, (2.0f32, &x, &mut y)), &count("s_saxpy", "4 parameters", "3 arguments"), &mut n);
    expect(
        s.launch(&k.saxpy, one, (2.0f32, &x, &mut y, 256usize, 0u32)),
        &count("s_saxpy", "4 parameters", "5 arguments"),
        &mut n,
    );
    expect(s.launch(&k.mixed, one, (1i8, 2i16, 3i32, 4i64, 5.0f32)), &count("s_mixed", "6 parameters", "5 arguments"), &mut n);
    expect(s.launch(&k.struct_, one, (p, p)), &count("s_struct", "1 parameter", "2 arguments"), &mut n);
    let fifteen = (1i8, 2u8, 3i16, 4u16, 5i32, 6u32, 7i64, 8u64, 9.0f32, 10.0f64, true, 12i16, 13i32, 14i64, 15.0f64);
    expect(s.launch(&k.many, one, fifteen), &count("s_many", "16 parameters", "15 arguments"), &mut n);
    expect(s.launch(&k.read_state, one, (&x,)), &count("read_state", "2 parameters", "1 argument"), &mut n);
    // Wrong sizes.
    expect(s.launch(&k.i32_, one, (1i64,)), &size("s_i32", 0, 4, 8), &mut n);
    expect(s.launch(&k.i32_, one, (1i16,)), &size("s_i32", 0, 4, 2), &mut n);
    expect(s.launch(&k.i32_, one, (&x,)), &size("s_i32", 0, 4, 8), &mut n);
    expect(s.launch(&k.u8_, one, (1u32,)), &size("s_u8", 0, 1, 4), &mut n);
    expect(s.launch(&k.i16_, one, (true,)), &size("s_i16", 0, 2, 1), &mut n);
    expect(s.launch(&k.i64_, one, (1i32,)), &size("s_i64", 0, 8, 4), &mut n);
    expect(s.launch(&k.f32_, one, (1.0f64,)), &size("s_f32", 0, 4, 8), &mut n);
    expect(s.launch(&k.f64_, one, (1.0f32,)), &size("s_f64", 0, 8, 4), &mut n);
    expect(s.launch(&k.sum, one, (&x, 256usize)), &size("s_sum", 1, 4, 8), &mut n);
    expect(s.launch(&k.saxpy, one, (2.0f32, &x, &mut y, 256u32)), &size("s_saxpy", 3, 8, 4), &mut n);
    expect(s.launch(&k.saxpy, one, (2.0f64, &x, &mut y, 256usize)), &size("s_saxpy", 0, 4, 8), &mut n);
    expect(s.launch(&k.copy, one, (&ints, &ints, 256u64)), &size("s_copy", 2, 4, 8), &mut n);
    let wrong_middle = (1i8, 2u8, 3i16, 4u16, 5i32, 6u32, 7i64, 8u32, 9.0f32, 10.0f64, true, 12i16, 13i32, 14i64, 15.0f64, 16i8);
    expect(s.launch(&k.many, one, wrong_middle), &size("s_many", 7, 8, 4), &mut n);
    // Wrong order of sizes.
    expect(s.launch(&k.saxpy, one, (&x, 2.0f32, &mut y, 256usize)), &size("s_saxpy", 0, 4, 8), &mut n);
    expect(s.launch(&k.bool_, one, (5i32, true)), &size("s_bool", 0, 1, 4), &mut n);
    expect(s.launch(&k.mixed, one, (1i8, 3i32, 2i16, 4i64, 5.0f32, 6.0f64)), &size("s_mixed", 1, 2, 4), &mut n);
    expect(s.launch(&k.mixed, one, (1i8, 2i16, 3i32, 4i64, 6.0f64, 5.0f32)), &size("s_mixed", 4, 4, 8), &mut n);
    expect(s.launch(&k.fill2d, one, (16i32, &ints, 16i32)), &size("s_fill2d", 0, 8, 4), &mut n);
    // Structs of the wrong size.
    expect(s.launch(&k.struct_, one, (w,)), &size("s_struct", 0, 12, 16), &mut n);
    expect(s.launch(&k.wide, one, (p,)), &size("s_wide", 0, 16, 12), &mut n);
    expect(s.launch(&k.struct_, one, ([1.0f32, 2.0],)), &size("s_struct", 0, 12, 8), &mut n);
    expect(s.launch(&k.ptrs, one, (&x,)), &size("s_ptrs", 0, 16, 8), &mut n);
    // SAFETY: `x` lives past the launch (refused anyway: the argument count is wrong).
    expect(
        s.launch(&k.ptrs, one, (unsafe { ptrs(x.as_raw(), 4) }, 4u32)),
        &count("s_ptrs", "1 parameter", "2 arguments"),
        &mut n,
    );
    // Configurations: too large blocks, too much shared memory, zero dimensions.
    let max = |f: &Function<'_>, a| cudagen::safe::KernelAttributes::attribute(f, a).unwrap();
    let bounded_max = max(&k.bounded, CUfunction_attribute::MAX_THREADS_PER_BLOCK);
    assert_eq!(bounded_max, 128, "__launch_bounds__(128)");
    let cfg = LaunchConfig::linear(2, 256);
    expect(
        s.launch(&k.bounded, cfg, (&x, 256i32)),
        &format!("kernel `s_bounded`: block 256x1x1 = 256 threads, the kernel allows at most 128; {nothing}"),
        &mut n,
    );
    let saxpy_max = max(&k.saxpy, CUfunction_attribute::MAX_THREADS_PER_BLOCK);
    let cfg = LaunchConfig { grid: (1, 1, 1), block: (32, 32, 2), shared_mem_bytes: 0 };
    expect(
        s.launch(&k.saxpy, cfg, (2.0f32, &x, &mut y, 256usize)),
        &format!("kernel `s_saxpy`: block 32x32x2 = 2048 threads, the kernel allows at most {saxpy_max}; {nothing}"),
        &mut n,
    );
    let cfg = LaunchConfig { grid: (1, 1, 1), block: (2048, 1, 1), shared_mem_bytes: 0 };
    expect(
        s.launch(&k.sum, cfg, (&x, 256i32)),
        &format!(
            "kernel `s_sum`: block 2048x1x1 = 2048 threads, the kernel allows at most {}; {nothing}",
            max(&k.sum, CUfunction_attribute::MAX_THREADS_PER_BLOCK)
        ),
        &mut n,
    );
    let smem_max = max(&k.reverse, CUfunction_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES);
    let cfg = LaunchConfig::linear(1, 256).with_shared_mem(smem_max as u32 + 4);
    expect(
        s.launch(&k.reverse, cfg, (&mut y, 256i32)),
        &format!(
            "kernel `s_reverse`: {} bytes of dynamic shared memory requested, the kernel allows at most {smem_max}; {nothing}",
            smem_max + 4
        ),
        &mut n,
    );
    let cfg = LaunchConfig::linear(1, 32).with_shared_mem(1 << 20);
    expect(s.launch(&k.reverse, cfg, (&mut y, 32i32)), &format!("kernel `s_reverse`: 1048576 bytes of dynamic shared memory requested, the kernel allows at most {smem_max}; {nothing}"), &mut n);
    let cfg = LaunchConfig { grid: (0, 1, 1), block: (32, 1, 1), shared_mem_bytes: 0 };
    expect(s.launch(&k.sum, cfg, (&x, 256i32)), &format!("kernel `s_sum`: grid.x is 0; {nothing}"), &mut n);
    let cfg = LaunchConfig { grid: (1, 1, 1), block: (32, 0, 1), shared_mem_bytes: 0 };
    expect(s.launch(&k.sum, cfg, (&x, 256i32)), &format!("kernel `s_sum`: block.y is 0; {nothing}"), &mut n);
    // A buffer bound to another stream.
    let other = Stream::create(ctx, CU_STREAM_NON_BLOCKING).unwrap();
    let elsewhere = DeviceBuffer::<f32>::zeroed(&other, 256).unwrap();
    expect(s.launch(&k.sum, one, (&elsewhere, 256i32)), &format!("kernel `s_sum`: argument 0 is memory bound to another stream than the launch's (move it with `move_to` first); {nothing}"), &mut n);
    drop(elsewhere);
    n
}

/// 21 kernels of different parameter lists and launch shapes, each result checked.
fn kernels_of_twenty_shapes(k: &Kernels<'_>, s: &Stream) -> (usize, u32) {
    let one = LaunchConfig::linear(1, 1);
    let mut kernels = 0;
    let mut launches = 0u32;
    let mut run = |r: Result<(), Error>| {
        r.unwrap();
        launches += 1;
    };
    run(s.launch(&k.none, one, ()));
    run(s.launch(&k.i32_, one, (-7i32,)));
    run(s.launch(&k.u8_, one, (200u8,)));
    run(s.launch(&k.i16_, one, (-300i16,)));
    run(s.launch(&k.i64_, one, (1i64 << 40,)));
    run(s.launch(&k.f32_, one, (1.5f32,)));
    run(s.launch(&k.f64_, one, (2.25f64,)));
    run(s.launch(&k.bool_, one, (false, 9i32)));
    run(s.launch(&k.mixed, one, (1i8, 2i16, 3i32, 4i64, 5.5f32, 6.25f64)));
    run(s.launch(&k.struct_, one, (Params { scale: 1.0, offset: [2.0, 3.0] },)));
    run(s.launch(&k.wide, one, (Wide { scale: 4.0, offset: [5.0, 6.0] },)));
    let xs = DeviceBuffer::from_host(s, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    run(s.launch(&k.sum, one, (&xs, 4i32)));
    let args = (1i8, 2u8, 3i16, 4u16, 5i32, 6u32, 7i64, 8u64, 9.0f32, 10.0f64, true, 12i16, 13i32, 14i64, 15.0f64, 16i8);
    run(s.launch(&k.many, one, args));
    // SAFETY: `xs` holds 4 floats, on the launch's stream, alive until the stream is synchronized.
    run(s.launch(&k.ptrs, LaunchConfig::linear(1, 32), (unsafe { ptrs(xs.as_raw(), 3) },)));
    kernels += 14;
    let (_, sink) = read_state(k, s);
    let want = [1.0, -7.0, 200.0, -300.0, (1u64 << 40) as f64, 1.5, 2.25, -9.0, 21.75, 123.0, 456.0, 10.0, 126.0, 6.0];
    assert_eq!(&sink[..14], &want, "values the kernels received");

    // Pointers and sizes, 1-D.
    let n = 1000usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let x = DeviceBuffer::from_host(s, &a).unwrap();
    let mut y = DeviceBuffer::from_host(s, &vec![1.0f32; n]).unwrap();
    run(s.launch(&k.saxpy, LaunchConfig::for_elements(n as u32, 128), (3.0f32, &x, &mut y, n)));
    assert_eq!(y.to_vec().unwrap(), (0..n).map(|i| 3.0 * i as f32 + 1.0).collect::<Vec<_>>());
    let src = DeviceBuffer::from_host(s, &(0..n as i32).collect::<Vec<_>>()).unwrap();
    let mut dst = DeviceBuffer::<i32>::zeroed(s, n).unwrap();
    run(s.launch(&k.copy, LaunchConfig::for_elements(n as u32, 64), (&src, &mut dst, n as u32)));
    assert_eq!(dst.to_vec().unwrap(), (0..n as i32).collect::<Vec<_>>());
    let da = DeviceBuffer::from_host(s, &[1.5f64, 2.0, -3.0]).unwrap();
    let db = DeviceBuffer::from_host(s, &[2.0f64, 0.5, 4.0]).unwrap();
    let mut dc = DeviceBuffer::<f64>::zeroed(s, 3).unwrap();
    run(s.launch(&k.mul, LaunchConfig::linear(1, 32), (&da, &db, &mut dc, 3u64)));
    assert_eq!(dc.to_vec().unwrap(), [3.0, 1.0, -12.0]);
    // 2-D and 3-D grids and blocks.
    let (w, h) = (37usize, 21usize);
    let mut grid2 = DeviceBuffer::<i32>::zeroed(s, w * h).unwrap();
    let cfg = LaunchConfig { grid: (5, 3, 1), block: (8, 8, 1), shared_mem_bytes: 0 };
    run(s.launch(&k.fill2d, cfg, (&mut grid2, w as i32, h as i32)));
    let got = grid2.to_vec().unwrap();
    assert!((0..w * h).all(|i| got[i] == (i % w) as i32 + 1000 * (i / w) as i32));
    let mut grid3 = DeviceBuffer::<i32>::zeroed(s, 8 * 4 * 2).unwrap();
    let cfg = LaunchConfig { grid: (1, 1, 1), block: (8, 4, 2), shared_mem_bytes: 0 };
    run(s.launch(&k.fill3d, cfg, (&mut grid3, 8i32, 4i32, 2i32)));
    let got = grid3.to_vec().unwrap();
    assert!((0..64).all(|i| got[i] == (i % 8) as i32 + 10 * ((i / 8) % 4) as i32 + 100 * (i / 32) as i32));
    // Dynamic shared memory, and raising its limit (the refused size is read again).
    let mut v = DeviceBuffer::from_host(s, &(0..256).map(|i| i as f32).collect::<Vec<_>>()).unwrap();
    run(s.launch(&k.reverse, LaunchConfig::linear(1, 256).with_shared_mem(256 * 4), (&mut v, 256i32)));
    assert_eq!(v.to_vec().unwrap(), (0..256).rev().map(|i| i as f32).collect::<Vec<_>>());
    let big = 64 * 1024;
    let attr = CUfunction_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES;
    if k.reverse.set_attribute(attr, big).is_ok() {
        run(s.launch(&k.reverse, LaunchConfig::linear(1, 256).with_shared_mem(big as u32), (&mut v, 256i32)));
        assert_eq!(v.to_vec().unwrap(), (0..256).map(|i| i as f32).collect::<Vec<_>>());
    }
    // A view of part of a buffer.
    let mut words = DeviceBuffer::from_host(s, &[10u64; 8]).unwrap();
    run(s.launch(&k.add_u64, LaunchConfig::linear(1, 32), (words.slice_mut(2..6), 5u64, 4i32)));
    assert_eq!(words.to_vec().unwrap(), [10, 10, 15, 15, 15, 15, 10, 10]);
    // __launch_bounds__ kernel within its bound.
    let mut b = DeviceBuffer::from_host(s, &[1.0f32; 300]).unwrap();
    run(s.launch(&k.bounded, LaunchConfig::for_elements(300, 128), (&mut b, 300i32)));
    assert!(b.to_vec().unwrap().iter().all(|&v| v == 2.0));
    kernels += 7;
    assert_eq!(kernel_params(&k.saxpy).unwrap().iter().map(|p| p.size).collect::<Vec<_>>(), [4, 8, 8, 8]);
    (kernels, launches)
}

/// SAXPY on 16M floats through the safe layer, compared with the CPU.
fn saxpy(k: &Kernels<'_>, s: &Stream) -> usize {
    let n = 1usize << 24;
    let (hx, hy) = (random_floats(n, 1), random_floats(n, 2));
    let x = DeviceBuffer::from_host(s, &hx).unwrap();
    let mut y = DeviceBuffer::from_host(s, &hy).unwrap();
    s.launch(&k.saxpy, LaunchConfig::for_elements(n as u32, 512), (2.0f32, &x, &mut y, n)).unwrap();
    let out = y.to_vec().unwrap();
    let max_err = (0..n).map(|i| (out[i] - (2.0 * hx[i] + hy[i])).abs()).fold(0.0f32, f32::max);
    println!("saxpy: {n} floats, max |gpu - cpu| = {max_err:e}");
    assert!(max_err <= 1e-6, "max error {max_err}");
    n
}

/// Copies with pageable memory, which return without a stream synchronize (issue #24): a read
/// right after a slow fill sees all of it; a `Vec` overwritten and dropped as soon as
/// `copy_from_host` returned (while a slow fill still runs ahead of the copy) left its old
/// values on the device; a stream under capture, in each mode, refuses pageable copies both ways
/// before enqueueing anything, so no graph keeps a borrowed slice's address and the capture stays
/// valid.
fn pageable_copies(ctx: &Context, k: &Kernels<'_>) -> usize {
    let s = Stream::create(ctx, CU_STREAM_NON_BLOCKING).unwrap();
    let n = 1usize << 22;
    let cfg = LaunchConfig::for_elements(n as u32, 256);
    let mut a = DeviceBuffer::<f32>::zeroed(&s, n).unwrap();
    let rounds = 10;
    for round in 1..=rounds {
        let value = round as f32;
        s.launch(&k.spin_fill, cfg, (&mut a, value, n as u32)).unwrap();
        assert!(a.to_vec().unwrap().iter().all(|&v| v == value), "round {round}: read back before the fill ended");
        s.launch(&k.spin_fill, cfg, (&mut a, -1.0f32, n as u32)).unwrap();
        let mut host = vec![value * 10.0; n];
        a.copy_from_host(&host).unwrap();
        host.fill(-2.0);
        drop(host);
        let mut check = vec![0.0f32; n];
        a.copy_to_host(&mut check).unwrap();
        assert!(check.iter().all(|&v| v == value * 10.0), "round {round}: the copy read the Vec after returning");
    }
    let data = vec![1.0f32; 16];
    let mut small = DeviceBuffer::<f32>::zeroed(&s, 16).unwrap();
    for mode in
        [driver::CUstreamCaptureMode::GLOBAL, driver::CUstreamCaptureMode::THREAD_LOCAL, driver::CUstreamCaptureMode::RELAXED]
    {
        for dir in ["to the device", "to the host"] {
            s.begin_capture(mode).unwrap();
            let copied = if dir == "to the device" { small.copy_from_host(&data) } else { small.to_vec().map(drop) };
            // SAFETY: nothing was captured (the copy was refused), so the graph uses nothing.
            let graph = unsafe { s.end_capture() };
            // Refused before anything is enqueued: the capture itself stays valid.
            assert!(
                matches!(copied, Err(Error::Capturing)) && graph.is_ok(),
                "{mode:?}: a pageable copy {dir} was not refused ({copied:?}, end of capture {:?})",
                graph.as_ref().err()
            );
        }
    }
    assert_eq!(small.to_vec().unwrap(), [0.0; 16], "the stream works after the refused captures");
    println!("pageable: {rounds} rounds of fill + immediate read and of copy in + overwrite, exact; 6 captures refused");
    rounds
}

/// Two non-blocking streams: a slow fill on one, an accumulation on the other, the buffer moved
/// between them each round (an event each move). Without the ordering the sums would race.
fn two_streams(ctx: &Context, k: &Kernels<'_>) -> usize {
    let (s1, s2) = (Stream::create(ctx, CU_STREAM_NON_BLOCKING).unwrap(), Stream::create(ctx, CU_STREAM_NON_BLOCKING).unwrap());
    let n = 1usize << 22;
    let cfg = LaunchConfig::for_elements(n as u32, 256);
    let mut acc = DeviceBuffer::<f32>::zeroed(&s2, n).unwrap();
    let mut a = DeviceBuffer::<f32>::zeroed(&s1, n).unwrap();
    let rounds = 20;
    for round in 1..=rounds {
        s1.launch(&k.spin_fill, cfg, (&mut a, round as f32, n as u32)).unwrap();
        let on2 = a.move_to(&s2).unwrap();
        s2.launch(&k.accumulate, cfg, (&mut acc, &on2, n as u32)).unwrap();
        a = on2.move_to(&s1).unwrap();
    }
    // Pinned, asynchronous read-back on both streams at once.
    let mut pa = PinnedHostBuffer::<f32>::zeroed(&s1, n).unwrap();
    let mut pacc = PinnedHostBuffer::<f32>::zeroed(&s2, n).unwrap();
    a.copy_to_pinned(&mut pa).unwrap();
    acc.copy_to_pinned(&mut pacc).unwrap();
    let want = (rounds * (rounds + 1) / 2) as f32;
    assert!(pacc.as_slice().unwrap().iter().all(|&v| v == want), "sums raced");
    assert!(pa.as_slice().unwrap().iter().all(|&v| v == rounds as f32));
    // And back up from pinned memory, asynchronously.
    pacc.as_mut_slice().unwrap().fill(1.0);
    acc.copy_from_pinned(&mut pacc).unwrap();
    assert_eq!(acc.slice(..4).to_vec().unwrap(), [1.0; 4]);
    s1.synchronize().unwrap();
    println!("two streams: {rounds} rounds of fill (stream 1) and accumulate (stream 2), {} moves, sums exact", 2 * rounds);
    2 * rounds
}

/// Stream-ordered allocations from the device's current pool, its default pool and a pool of
/// our own, round after round; device memory stays flat.
fn pools(s: &Stream, k: &Kernels<'_>) -> usize {
    let device = driver::device_get(0).unwrap();
    let props = CUmemPoolProps {
        allocType: CUmemAllocationType::PINNED,
        location: CUmemLocation { r#type: CUmemLocationType::DEVICE, id: device.0 },
        ..Default::default()
    };
    // SAFETY: the props hold no address (the Windows security attributes stay null).
    let own = unsafe { MemoryPool::create(&props) }.unwrap();
    let default = driver::device_get_default_mem_pool(device).unwrap();
    let data: Vec<f32> = (0..1 << 18).map(|i| i as f32).collect();
    let before = driver::mem_get_info().unwrap().0;
    let rounds = 300;
    for round in 0..rounds {
        let alloc = [Alloc::Async, Alloc::Pool(&default), Alloc::Pool(&own)][round % 3];
        let mut b = DeviceBuffer::from_host_with(s, &data, alloc).unwrap();
        s.launch(&k.bounded, LaunchConfig::for_elements(data.len() as u32, 128), (&mut b, data.len() as i32)).unwrap();
        let back = b.slice(1000..1003).to_vec().unwrap();
        assert_eq!(back, [2000.0, 2002.0, 2004.0], "round {round}");
    }
    s.synchronize().unwrap();
    own.trim_to(0).unwrap();
    driver::mem_pool_trim_to(default, 0).unwrap();
    let after = driver::mem_get_info().unwrap().0;
    let grown = before.saturating_sub(after);
    println!("pools: {rounds} rounds over the current, default and own pools; free memory {before} -> {after}");
    assert!(grown < 64 << 20, "device memory grew by {grown} bytes");
    own.destroy().unwrap();
    rounds
}

/// A checked launch beside the typed layer's `launch_kernel` of the same empty kernel, in one
/// process: 31 samples, each timing a batch of 256 launches (+ one synchronize) per path, the
/// order alternating; prints each path's median ns per launch and the median paired difference.
#[test]
fn checked_launch_cost() {
    if !gpu_or_skip("checked_launch_cost") {
        return;
    }
    let device = driver::device_get(0).unwrap();
    let ctx = Context::create(0, device).unwrap();
    let major = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, device).unwrap();
    let minor = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, device).unwrap();
    let ptx = compile_ptx(EMPTY5, c"empty5.cu", &format!("compute_{major}{minor}")).expect("nvrtc");
    let module = Module::from_ptx(&ctx, ptx).unwrap();
    let f = module.get_function(c"empty5").unwrap();
    let s = Stream::create(&ctx, CU_STREAM_NON_BLOCKING).unwrap();
    let x = DeviceBuffer::<f32>::zeroed(&s, 1).unwrap();
    let y = DeviceBuffer::<f32>::zeroed(&s, 1).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(&s, 1).unwrap();
    let cfg = LaunchConfig::linear(1, 1);
    // SAFETY: the addresses go to typed launches while the buffers live.
    let (px, py, pout) = unsafe { (x.as_raw().0, y.as_raw().0, out.as_raw().0) };
    const BATCH: u32 = 256;
    let checked = |out: &mut DeviceBuffer<'_, f32>| {
        let t = Instant::now();
        for _ in 0..BATCH {
            s.launch(&f, cfg, (1.0f32, &x, &y, &mut *out, 1usize)).unwrap();
        }
        s.synchronize().unwrap();
        t.elapsed().as_nanos() as f64 / BATCH as f64
    };
    let typed = || {
        let t = Instant::now();
        for _ in 0..BATCH {
            baseline::typed_launch5(&f, &s, 1.0, px, py, pout, 1);
        }
        s.synchronize().unwrap();
        t.elapsed().as_nanos() as f64 / BATCH as f64
    };
    for _ in 0..20 {
        checked(&mut out);
        typed();
    }
    let (mut c, mut t, mut d) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..31 {
        let (a, b) = if i % 2 == 0 {
            let a = checked(&mut out);
            (a, typed())
        } else {
            let b = typed();
            (checked(&mut out), b)
        };
        c.push(a);
        t.push(b);
        d.push(a - b);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (mc, mt, md) = (median(&mut c), median(&mut t), median(&mut d));
    println!("summary: launch cost: typed launch_kernel {mt:.0} ns, checked launch {mc:.0} ns, paired difference {md:+.1} ns");
    assert!(mc.is_finite() && mt > 0.0);
}

/// Graphs that borrow what they use (issue 34 item 1), the device queries and disjoint slices
/// (item 3), on the GPU: a capture with a graph allocation replayed 10 times, an explicit graph
/// (memset, copy, kernel and child nodes), the refusals, `split_at_mut` in one launch each.
#[test]
fn graphs_devices_and_split_slices_on_the_gpu() {
    use cudagen::driver::CUstreamCaptureMode;
    use cudagen::safe::{mem_get_info, Device, GraphBuilder, KernelAttributes, StreamCapture};
    if !gpu_or_skip("graphs_devices_and_split_slices_on_the_gpu") {
        return;
    }
    let dev = Device::get(0).unwrap();
    let ctx = Context::create(0, dev.as_raw()).unwrap();
    let (major, minor) = dev.compute_capability().unwrap();
    let (free, total) = mem_get_info().unwrap();
    assert!(free <= total && total == dev.total_memory().unwrap(), "{free} {total}");
    println!(
        "device: {} of {}: {}, sm_{major}{minor}, {} MiB, {} MiB free",
        1,
        Device::count().unwrap(),
        dev.name().unwrap(),
        total >> 20,
        free >> 20
    );
    let ptx = compile_ptx(&CString::new(KERNELS).unwrap(), c"graphs.cu", &format!("compute_{major}{minor}")).expect("nvrtc");
    let module = Module::from_ptx(&ctx, ptx).unwrap();
    let (acc, saxpy) = (module.get_function(c"accumulate").unwrap(), module.get_function(c"s_saxpy").unwrap());
    println!("accumulate: {} threads max, {} registers", acc.max_threads_per_block().unwrap(), acc.num_regs().unwrap());
    let s = Stream::create(&ctx, CU_STREAM_NON_BLOCKING).unwrap();
    let n = 1usize << 16;
    let cfg = LaunchConfig::for_elements(n as u32, 256);
    let x = DeviceBuffer::from_host(&s, &vec![1.0f32; n]).unwrap();
    let y = DeviceBuffer::<f32>::zeroed(&s, n).unwrap();

    let other = Stream::create(&ctx, CU_STREAM_NON_BLOCKING).unwrap();
    let elsewhere = DeviceBuffer::<f32>::zeroed(&other, n).unwrap();
    // y += 2x, then y += x through a graph allocation: +3 a replay.
    let mut cap = s.capture(CUstreamCaptureMode::GLOBAL).unwrap();
    cap.launch(&saxpy, cfg, (2.0f32, &x, &y, n)).unwrap();
    let tmp = cap.alloc::<f32>(n).unwrap();
    cap.memset(tmp, 0).unwrap();
    cap.launch(&acc, cfg, (tmp, &x, n as u32)).unwrap();
    cap.launch(&acc, cfg, (&y, tmp, n as u32)).unwrap();
    assert!(matches!(cap.launch(&acc, cfg, (&elsewhere, &x, n as u32)), Err(Error::ArgStream { index: 0, .. })));
    assert!(matches!(s.launch(&acc, cfg, (tmp, &x, n as u32)), Err(Error::ArgGraph { index: 0, .. })));
    let graph = cap.end().unwrap();
    let exec = graph.instantiate().unwrap();
    for _ in 0..10 {
        exec.launch().unwrap();
    }
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 30.0), "10 replays of +3");

    // An explicit graph: z = 0, z = y, z += x, then a child graph y += x.
    let mut child = s.capture(CUstreamCaptureMode::GLOBAL).unwrap();
    child.launch(&acc, cfg, (&y, &x, n as u32)).unwrap();
    let child = child.end().unwrap();
    let z = DeviceBuffer::<f32>::from_host(&s, &vec![5.0f32; n]).unwrap();
    let mut b = GraphBuilder::new(&s).unwrap();
    let set = b.memset(&[], &z, 0).unwrap();
    let copied = b.copy(&[set], &z, &y).unwrap();
    let k = b.kernel(&[copied], &acc, cfg, (&z, &x, n as u32)).unwrap();
    b.child(&[k], &child).unwrap();
    let explicit = b.build().unwrap();
    assert_eq!(explicit.node_count().unwrap(), 4);
    explicit.instantiate().unwrap().launch().unwrap();
    assert!(z.to_vec().unwrap().iter().all(|&v| v == 31.0));
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 31.0));

    // Two disjoint halves of one buffer, each in its own launch while both views live.
    let mut w = DeviceBuffer::<f32>::zeroed(&s, n).unwrap();
    let half = LaunchConfig::for_elements((n / 2) as u32, 256);
    let (lo, hi) = w.split_at_mut(n / 2);
    s.launch(&acc, half, (lo, &x, (n / 2) as u32)).unwrap();
    s.launch(&saxpy, half, (4.0f32, &x, hi, n / 2)).unwrap();
    let w = w.to_vec().unwrap();
    assert!(w[..n / 2].iter().all(|&v| v == 1.0) && w[n / 2..].iter().all(|&v| v == 4.0));
    ctx.synchronize().unwrap();
    drop((exec, graph, explicit, child));
    dev.trim_pools().unwrap();
    assert!(cudagen::safe::take_drop_errors().is_empty());
    println!("summary: graphs PASS: capture with a graph allocation x10 replays, explicit graph of 4 nodes + child, 2 refusals, split halves exact");
}

/// Gathers `count` inputs through a pointer array and writes the sum and its negation through
/// another; `add1` adds 1 to each element.
const PTR_KERNELS: &str = r#"
extern "C" __global__ void gather(const float *const *in, float *const *out, unsigned n, unsigned count) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (unsigned j = 0; j < count; j++) s += in[j][i];
    out[0][i] = s;
    out[1][i] = -s;
}
extern "C" __global__ void add1(float *x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
"#;

/// Issue 34: a device pointer array of 4 shared and 2 exclusive views (launched, then captured
/// and replayed), and an explicit graph with its own allocation node (memset, two kernels, a
/// copy out), replayed 5 times; graph memory returned after `trim_pools`.
#[test]
fn pointer_arrays_and_graph_allocation_nodes_on_the_gpu() {
    use cudagen::driver::CUstreamCaptureMode;
    use cudagen::safe::{mem_get_info, Device, DevicePtrArray, GraphBuilder, StreamCapture};
    if !gpu_or_skip("pointer_arrays_and_graph_allocation_nodes_on_the_gpu") {
        return;
    }
    let dev = Device::get(0).unwrap();
    let ctx = Context::create(0, dev.as_raw()).unwrap();
    let (major, minor) = dev.compute_capability().unwrap();
    let ptx = compile_ptx(&CString::new(PTR_KERNELS).unwrap(), c"ptrs.cu", &format!("compute_{major}{minor}")).expect("nvrtc");
    let module = Module::from_ptx(&ctx, ptx).unwrap();
    let (gather, add1) = (module.get_function(c"gather").unwrap(), module.get_function(c"add1").unwrap());
    let s = Stream::create(&ctx, CU_STREAM_NON_BLOCKING).unwrap();
    let n = 1usize << 16;
    let cfg = LaunchConfig::for_elements(n as u32, 256);
    let inputs: Vec<DeviceBuffer<f32>> = (1..=4).map(|j| DeviceBuffer::from_host(&s, &vec![j as f32; n]).unwrap()).collect();
    let mut out = DeviceBuffer::<f32>::zeroed(&s, 2 * n).unwrap();
    let reads = DevicePtrArray::new(&s, inputs.iter()).unwrap();
    {
        let (lo, hi) = out.split_at_mut(n);
        let writes = DevicePtrArray::from_mut(&s, [lo, hi]).unwrap();
        s.launch(&gather, cfg, (&reads, &writes, n as u32, 4u32)).unwrap();
        let mut cap = s.capture(CUstreamCaptureMode::GLOBAL).unwrap();
        cap.launch(&gather, cfg, (&reads, &writes, n as u32, 4u32)).unwrap();
        let exec = cap.end().unwrap().instantiate().unwrap();
        for _ in 0..3 {
            exec.launch().unwrap();
        }
    }
    let v = out.to_vec().unwrap();
    assert!(v[..n].iter().all(|&x| x == 10.0) && v[n..].iter().all(|&x| x == -10.0), "sum of 1..=4 through the arrays");
    drop(reads);

    let before = mem_get_info().unwrap().0;
    let y = DeviceBuffer::<f32>::from_host(&s, &vec![7.0f32; n]).unwrap();
    let mut g = GraphBuilder::new(&s).unwrap();
    let (alloc, tmp) = g.alloc::<f32>(&[], n).unwrap();
    let set = g.memset(&[alloc], tmp, 0).unwrap();
    let k1 = g.kernel(&[set], &add1, cfg, (tmp, n as u32)).unwrap();
    let k2 = g.kernel(&[k1], &add1, cfg, (tmp, n as u32)).unwrap();
    g.copy(&[k2], &y, tmp).unwrap();
    assert!(matches!(s.launch(&add1, cfg, (tmp, n as u32)), Err(Error::ArgGraph { index: 0, .. })));
    let graph = g.build().unwrap();
    assert_eq!(graph.node_count().unwrap(), 6, "alloc, memset, 2 kernels, copy, free");
    let exec = graph.instantiate().unwrap();
    for _ in 0..5 {
        exec.launch().unwrap();
        assert!(y.to_vec().unwrap().iter().all(|&x| x == 2.0), "0 + 1 + 1 at every replay");
    }
    drop((exec, graph));
    drop(y);
    dev.trim_pools().unwrap();
    let after = mem_get_info().unwrap().0;
    println!("graph memory: free {before} -> {after} bytes after 5 replays and trim_pools");
    assert!(before.abs_diff(after) <= 4 << 20, "graph allocations returned: {before} -> {after}");
    assert!(cudagen::safe::take_drop_errors().is_empty());
    println!("summary: pointer arrays PASS: 4 inputs gathered into 2 outputs (launch + 3 replays); graph allocation node x5 replays exact");
}
