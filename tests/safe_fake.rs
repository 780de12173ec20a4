//! The safe layer (`cudagen::safe`: typed memory, checked launches) against a fake libcuda
//! (`tests/loader/fake/fake_safe_driver.c`, built with gcc), so it runs without a GPU. The fake
//! counts every call; each scenario runs in its own process (the loader is process-wide).

use cudagen::driver::CUstreamCaptureMode;
use cudagen::driver::{self, CUfunction_attribute};
use cudagen::loader::{Entry, Table, DRIVER};
use cudagen::safe::{
    kernel_params, mem_get_info, take_drop_errors, Alloc, Context, Device, DeviceBuffer, DevicePtrArray, DeviceSlice, Error,
    FunctionHandle, GraphBuilder, KernelAttributes, LaunchConfig, Launchable, Library, Module, ParamInfo, PinnedHostBuffer,
    StreamCapture, StreamLaunch, StreamRef,
};
use std::ffi::{c_char, c_long, CString};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// Builds the fake once per test process.
fn fake_lib() -> PathBuf {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| cudagen_tests::fake_libcuda("fake_safe_driver", env!("CARGO_TARGET_TMPDIR").as_ref())).clone()
}

/// In the parent: re-runs this binary for test `name` alone with the fake driver and `envs`,
/// and checks it passed. In the child (`CUDAGEN_TEST_CHILD` set): returns false, so the test
/// body runs.
fn parent_runs(name: &str, envs: &[(&str, &str)]) -> bool {
    if std::env::var_os("CUDAGEN_TEST_CHILD").is_some() {
        return false;
    }
    let lib = fake_lib();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("CUDAGEN_TEST_CHILD", "1")
        .env("CUDAGEN_LIBCUDA", &lib)
        .env_remove("CUDAGEN_TRACE")
        .envs(envs.iter().copied());
    let out = cmd.output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "child {name} failed:\n{text}");
    for line in text.lines().filter(|l| l.starts_with("refused: ") || l.starts_with("summary: ")) {
        println!("{line}");
    }
    true
}

static FAKE_ENTRIES: [Entry; 2] =
    [Entry::new("cuFakeCount", "cuFakeCount", 0, false), Entry::new("cuFakeLastParams", "cuFakeLastParams", 0, false)];
static FAKE: Table<2> = Table::new(DRIVER, &FAKE_ENTRIES);

/// How often the fake saw `name` called.
fn calls(name: &str) -> i64 {
    let f: unsafe extern "C" fn(*const c_char) -> c_long = unsafe { std::mem::transmute(FAKE.get(0).unwrap()) };
    let name = CString::new(name).unwrap();
    unsafe { f(name.as_ptr()) as i64 }
}

/// The parameter bytes the last launch read.
fn last_params() -> Vec<u8> {
    let f: unsafe extern "C" fn(*mut u8, c_long) -> c_long = unsafe { std::mem::transmute(FAKE.get(1).unwrap()) };
    let mut buf = vec![0u8; 4096];
    let n = unsafe { f(buf.as_mut_ptr(), buf.len() as c_long) } as usize;
    buf.truncate(n);
    buf
}

/// A stream of the fake (never destroyed: the process ends after the scenario).
fn stream() -> StreamRef<'static> {
    unsafe { StreamRef::from_raw(driver::stream_create(0).unwrap()) }
}

/// A kernel of the fake: `spec` is `name:size,size,...[;threads=N][;smem=N]`.
fn kernel(spec: &str) -> FunctionHandle<'static> {
    let module = unsafe { driver::module_load_data(c"".as_ptr().cast()) }.unwrap();
    let f = driver::module_get_function(module, &CString::new(spec).unwrap()).unwrap();
    unsafe { FunctionHandle::from_raw(f) }
}

fn refused(e: Error) -> String {
    let text = e.to_string();
    println!("refused: {text}");
    text
}

#[test]
fn wrong_count_and_size_are_refused_before_launching() {
    if parent_runs("wrong_count_and_size_are_refused_before_launching", &[]) {
        return;
    }
    let s = stream();
    let saxpy = kernel("saxpy:4,8,8,8,8");
    let x = DeviceBuffer::from_host(&s, &[1.0f32, 2.0, 3.0]).unwrap();
    let y = DeviceBuffer::from_host(&s, &[4.0f32, 5.0, 6.0]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(&s, 3).unwrap();
    let cfg = LaunchConfig::for_elements(3, 128);

    let e = s.launch(&saxpy, cfg, (2.0f32, &x, &y, &mut out)).unwrap_err();
    assert!(matches!(e, Error::ParamCount { expected: 5, given: 4, .. }), "{e:?}");
    assert_eq!(refused(e), "kernel `saxpy` takes 5 parameters, 4 arguments given; nothing launched");
    assert_eq!(calls("cuFuncGetParamInfo"), 6, "5 parameters + the INVALID_VALUE that ends the list");

    let e = s.launch(&saxpy, cfg, (2.0f32, &x, &y, &mut out, 3u32)).unwrap_err();
    assert_eq!(refused(e), "kernel `saxpy` parameter 4 is 8 bytes, argument 4 is 4 bytes; nothing launched");
    let e = s.launch(&saxpy, cfg, (2.0f64, &x, &y, &mut out, 3usize)).unwrap_err();
    assert_eq!(refused(e), "kernel `saxpy` parameter 0 is 4 bytes, argument 0 is 8 bytes; nothing launched");
    let e = s.launch(&saxpy, cfg, (&x, 2.0f32, &y, &mut out, 3usize)).unwrap_err();
    assert_eq!(refused(e), "kernel `saxpy` parameter 0 is 4 bytes, argument 0 is 8 bytes; nothing launched");
    assert_eq!(calls("cuLaunchKernel"), 0, "nothing launched");

    s.launch(&saxpy, cfg, (2.0f32, &x, &y, &mut out, 3usize)).unwrap();
    s.launch(&saxpy, cfg, (2.0f32, &x, &y, &mut out, 3usize)).unwrap();
    assert_eq!(calls("cuLaunchKernel"), 2);
    assert_eq!(calls("cuFuncGetParamInfo"), 6, "parameter info read once for all launches");
    assert_eq!(calls("cuFuncGetAttribute"), 2, "max threads and max dynamic shared memory, once");
    let mut want = 2.0f32.to_ne_bytes().to_vec();
    // SAFETY: the addresses are only compared, while the buffers live.
    for p in unsafe { [x.as_raw().0, y.as_raw().0, out.as_raw().0, 3] } {
        want.extend(p.to_ne_bytes());
    }
    assert_eq!(last_params(), want, "the driver read each argument's bytes");
    assert_eq!(
        kernel_params(&saxpy).unwrap(),
        &[(0, 4), (8, 8), (16, 8), (24, 8), (32, 8)].map(|(offset, size)| ParamInfo { offset, size })
    );
    println!("summary: count and size mismatches refused, 2 launches, parameter info read once");
}

/// PTX of one kernel `k(float, float *, 16-byte struct)`, as a module or library image.
const PTX_K: &std::ffi::CStr = c".version 8.0
.target sm_90
.address_size 64

.visible .entry k(
\t.param .f32 k_param_0,
\t.param .u64 .ptr .global .align 4 k_param_1,
\t.param .align 8 .b8 k_param_2[16]
)
{
\tret;
}
";

fn layout(pairs: &[(usize, usize)]) -> Vec<ParamInfo> {
    pairs.iter().map(|&(offset, size)| ParamInfo { offset, size }).collect()
}

#[test]
fn kernels_of_a_ptx_module_ask_the_driver_nothing_about_parameters() {
    if parent_runs("kernels_of_a_ptx_module_ask_the_driver_nothing_about_parameters", &[]) {
        return;
    }
    let ctx = Context::create(0, driver::device_get(0).unwrap()).unwrap();
    let s = stream();
    let module = Module::from_ptx(&ctx, PTX_K).unwrap();
    let k = module.get_function(c"k").unwrap();
    assert!(k.launch_cache().from_ptx(), "seeded from the PTX at get_function");
    let mut buf = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let e = s.launch(&k, LaunchConfig::linear(1, 1), (1.5f32, &mut buf)).unwrap_err();
    assert_eq!(refused(e), "kernel `k` takes 3 parameters, 2 arguments given; nothing launched");
    let e = s.launch(&k, LaunchConfig::linear(1, 1), (1.5f32, &mut buf, [7u32; 2])).unwrap_err();
    assert_eq!(refused(e), "kernel `k` parameter 2 is 16 bytes, argument 2 is 8 bytes; nothing launched");
    s.launch(&k, LaunchConfig::linear(1, 1), (1.5f32, &mut buf, [7u32; 4])).unwrap();
    assert_eq!(kernel_params(&k).unwrap(), layout(&[(0, 4), (8, 8), (16, 16)]));
    assert_eq!((calls("cuFuncGetParamInfo"), calls("cuFuncGetParamCount")), (0, 0), "no parameter query");
    assert_eq!(calls("cuLaunchKernel"), 1);

    // A name the PTX does not declare (the fake knows it): read from the driver as before.
    let other = module.get_function(c"other:4").unwrap();
    assert!(!other.launch_cache().from_ptx());
    s.launch(&other, LaunchConfig::linear(1, 1), (1u32,)).unwrap();
    assert_eq!(calls("cuFuncGetParamInfo"), 2, "1 parameter + the INVALID_VALUE that ends the list");

    // A library loaded from the same PTX seeds its kernels too (`cuKernelGetParamInfo` unused).
    let library = unsafe { Library::load_data(PTX_K.as_ptr().cast(), &[], &[], &[], &[]) }.unwrap();
    let lk = library.get_kernel(c"k").unwrap();
    s.launch(&lk, LaunchConfig::linear(1, 1), (2.5f32, &mut buf, [1u64; 2])).unwrap();
    assert_eq!(calls("cuKernelGetParamInfo"), 0);

    // A binary image (an ELF header: a cubin) is not read as text: its kernels are probed.
    let cubin = *b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0";
    let bin = unsafe { Module::load_data(&ctx, cubin.as_ptr().cast()) }.unwrap();
    let bk = bin.get_function(c"k:4").unwrap();
    assert!(!bk.launch_cache().from_ptx());
    s.launch(&bk, LaunchConfig::linear(1, 1), (1u32,)).unwrap();
    assert_eq!(calls("cuFuncGetParamInfo"), 4);
    assert_eq!(calls("cuLaunchKernel"), 4);
    println!("summary: PTX-seeded function and library kernel: 0 parameter queries; others probed");
}

#[test]
fn ptx_kernels_launch_checked_on_a_driver_without_parameter_info() {
    if parent_runs("ptx_kernels_launch_checked_on_a_driver_without_parameter_info", &[("FAKE_DRIVER_VERSION", "12030")]) {
        return;
    }
    let ctx = Context::create(0, driver::device_get(0).unwrap()).unwrap();
    let s = stream();
    let module = Module::from_ptx(&ctx, PTX_K).unwrap();
    let k = module.get_function(c"k").unwrap();
    let mut buf = DeviceBuffer::<f32>::zeroed(&s, 4).unwrap();
    let e = s.launch(&k, LaunchConfig::linear(1, 1), (1.5f32, &mut buf, 3u64)).unwrap_err();
    assert_eq!(refused(e), "kernel `k` parameter 2 is 16 bytes, argument 2 is 8 bytes; nothing launched");
    s.launch(&k, LaunchConfig::linear(1, 1), (1.5f32, &mut buf, [7u32; 4])).unwrap();
    assert_eq!(calls("cuLaunchKernel"), 1, "checked, though the driver (12.3) cannot describe parameters");
}

#[test]
fn param_count_is_used_where_the_driver_has_it() {
    if parent_runs("param_count_is_used_where_the_driver_has_it", &[("FAKE_PARAM_COUNT", "1"), ("FAKE_DRIVER_VERSION", "13020")])
    {
        return;
    }
    let s = stream();
    let k = kernel("k:4,8,2");
    s.launch(&k, LaunchConfig::linear(1, 1), (1u32, 2u64, 3u16)).unwrap();
    assert_eq!(calls("cuFuncGetParamCount"), 1);
    assert_eq!(calls("cuFuncGetParamInfo"), 3, "exactly the counted parameters");
    assert_eq!(calls("cuLaunchKernel"), 1);
}

#[test]
fn library_kernels_are_described_by_cu_kernel_get_param_info() {
    if parent_runs("library_kernels_are_described_by_cu_kernel_get_param_info", &[]) {
        return;
    }
    let s = stream();
    let f = kernel("lib_k:8,4");
    let k = unsafe { FunctionHandle::from_raw_kernel(driver::CUkernel::from_raw(f.raw_function().as_raw())) };
    let e = s.launch(&k, LaunchConfig::linear(1, 1), (1u64, 2u64)).unwrap_err();
    assert_eq!(refused(e), "kernel `lib_k` parameter 1 is 4 bytes, argument 1 is 8 bytes; nothing launched");
    s.launch(&k, LaunchConfig::linear(1, 1), (1u64, 2u32)).unwrap();
    assert_eq!((calls("cuKernelGetParamInfo"), calls("cuFuncGetParamInfo")), (3, 0));
    assert_eq!((calls("cuKernelGetName"), calls("cuFuncGetName")), (1, 0));
    assert_eq!(calls("cuKernelGetFunction"), 2, "the limits are read from the kernel's function");
    assert_eq!(calls("cuLaunchKernel"), 1);
}

#[test]
fn old_driver_refuses_the_checked_launch_and_offers_the_unchecked_one() {
    if parent_runs("old_driver_refuses_the_checked_launch_and_offers_the_unchecked_one", &[("FAKE_DRIVER_VERSION", "12030")]) {
        return;
    }
    let s = stream();
    let k = kernel("inc:8");
    let mut counter = DeviceBuffer::<u32>::zeroed(&s, 1).unwrap();
    let e = s.launch(&k, LaunchConfig::linear(1, 1), (&mut counter,)).unwrap_err();
    assert!(matches!(e, Error::NoParamInfo { .. }), "{e:?}");
    let text = refused(e);
    assert!(
        text.starts_with("kernel `inc`: the driver cannot describe its parameters (cuFuncGetParamInfo (CUDA 12.4)"),
        "{text}"
    );
    assert!(text.contains("`launch_unchecked` (unsafe)"), "{text}");
    assert_eq!(calls("cuLaunchKernel"), 0);
    assert_eq!(counter.to_vec().unwrap(), [0]);
    unsafe { s.launch_unchecked(&k, LaunchConfig::linear(1, 1), (&mut counter,)) }.unwrap();
    assert_eq!(counter.to_vec().unwrap(), [1], "the unchecked launch ran");
}

#[test]
fn launch_configuration_is_checked() {
    if parent_runs("launch_configuration_is_checked", &[]) {
        return;
    }
    let s = stream();
    let k = kernel("k:8;threads=256;smem=1024");
    let e = s.launch(&k, LaunchConfig { grid: (1, 1, 1), block: (16, 16, 2), shared_mem_bytes: 0 }, (1u64,)).unwrap_err();
    assert_eq!(refused(e), "kernel `k`: block 16x16x2 = 512 threads, the kernel allows at most 256; nothing launched");
    let e = s.launch(&k, LaunchConfig { grid: (4, 0, 1), block: (1, 1, 1), shared_mem_bytes: 0 }, (1u64,)).unwrap_err();
    assert_eq!(refused(e), "kernel `k`: grid.y is 0; nothing launched");
    let e = s.launch(&k, LaunchConfig { grid: (1, 1, 1), block: (8, 1, 0), shared_mem_bytes: 0 }, (1u64,)).unwrap_err();
    assert_eq!(refused(e), "kernel `k`: block.z is 0; nothing launched");
    let cfg = LaunchConfig::linear(1, 256).with_shared_mem(2048);
    let e = s.launch(&k, cfg, (1u64,)).unwrap_err();
    assert_eq!(
        refused(e),
        "kernel `k`: 2048 bytes of dynamic shared memory requested, the kernel allows at most 1024; nothing launched"
    );
    assert_eq!(calls("cuLaunchKernel"), 0);
    // Raised behind the cache's back: the refused size is read again once, then launches.
    // SAFETY: `k` lives across the call.
    driver::func_set_attribute(unsafe { k.raw_function() }, CUfunction_attribute::MAX_DYNAMIC_SHARED_SIZE_BYTES, 4096).unwrap();
    s.launch(&k, cfg, (1u64,)).unwrap();
    s.launch(&k, LaunchConfig::linear(1, 256), (7u64,)).unwrap();
    assert_eq!(calls("cuLaunchKernel"), 2);
}

#[test]
fn buffers_bound_to_another_stream_are_refused_until_moved() {
    if parent_runs("buffers_bound_to_another_stream_are_refused_until_moved", &[]) {
        return;
    }
    let (a, b) = (stream(), stream());
    let k = kernel("inc:8");
    let counter = DeviceBuffer::<u32>::zeroed(&a, 1).unwrap();
    let e = b.launch(&k, LaunchConfig::linear(1, 1), (&counter,)).unwrap_err();
    assert_eq!(refused(e), "kernel `inc`: argument 0 is memory bound to another stream than the launch's (move it with `move_to` first); nothing launched");
    assert_eq!(calls("cuLaunchKernel"), 0);
    let counter = counter.move_to(&b).unwrap();
    assert_eq!((calls("cuEventRecord"), calls("cuStreamWaitEvent")), (1, 1), "one event for the move");
    b.launch(&k, LaunchConfig::linear(1, 1), (&counter,)).unwrap();
    assert_eq!(counter.to_vec().unwrap(), [1]);
    let other = DeviceBuffer::<u32>::zeroed(&a, 1).unwrap();
    let mut moved = counter;
    let e = moved.copy_from_device(&other.as_slice()).unwrap_err();
    assert_eq!(refused(e), "device-to-device copy: the buffers are bound to different streams (move one with `move_to` first)");
    drop(moved);
    assert_eq!(calls("lastFreeStream"), b.raw_stream_for_test(), "freed on the stream it was moved to");
}

/// `raw_stream` through the trait, as a number for comparisons with the fake's records.
trait RawForTest {
    fn raw_stream_for_test(&self) -> i64;
}
impl RawForTest for StreamRef<'_> {
    fn raw_stream_for_test(&self) -> i64 {
        // SAFETY: compared only, while the stream lives.
        unsafe { cudagen::safe::AsStream::raw_stream(self) }.as_raw() as i64
    }
}

#[test]
fn memory_round_trips_views_and_frees() {
    if parent_runs("memory_round_trips_views_and_frees", &[]) {
        return;
    }
    let s = stream();
    let mut buf = DeviceBuffer::from_host(&s, &[1u32, 2, 3, 4, 5]).unwrap();
    assert_eq!(buf.len(), 5);
    assert_eq!(buf.to_vec().unwrap(), [1, 2, 3, 4, 5]);
    assert_eq!(buf.slice(1..3).to_vec().unwrap(), [2, 3]);
    assert_eq!(buf.slice(3..).to_vec().unwrap(), [4, 5]);
    assert!(buf.get(4..6).is_none());
    buf.slice_mut(..2).copy_from_host(&[9, 8]).unwrap();
    buf.slice_mut(4..=4).memset(0xff).unwrap();
    assert_eq!(buf.to_vec().unwrap(), [9, 8, 3, 4, u32::MAX]);
    let e = buf.copy_from_host(&[1, 2]).unwrap_err();
    assert_eq!(refused(e), "length mismatch: the buffer holds 5 elements, the other side 2");

    let zeroed = DeviceBuffer::<f64>::zeroed(&s, 4).unwrap();
    assert_eq!(zeroed.to_vec().unwrap(), [0.0; 4], "the fake fills new memory with 0xAB");
    let mut other = DeviceBuffer::<u32>::zeroed(&s, 3).unwrap();
    other.copy_from_device(&buf.slice(2..)).unwrap();
    assert_eq!(other.to_vec().unwrap(), [3, 4, u32::MAX]);
    let mut host = [0u32; 3];
    other.copy_to_host(&mut host).unwrap();
    assert_eq!(host, [3, 4, u32::MAX]);
    let empty = DeviceBuffer::<u8>::from_host(&s, &[]).unwrap();
    assert!(empty.is_empty() && empty.to_vec().unwrap().is_empty());

    let frees = calls("cuMemFreeAsync");
    drop(other);
    assert_eq!(calls("cuMemFreeAsync"), frees + 1, "stream-ordered free");
    assert_eq!(calls("lastFreeStream"), s.raw_stream_for_test());
    let sync = DeviceBuffer::<u8>::zeroed_with(&s, 16, Alloc::Sync).unwrap();
    let syncs = calls("cuStreamSynchronize");
    sync.free().unwrap();
    assert_eq!((calls("cuMemFree"), calls("cuStreamSynchronize")), (1, syncs + 1), "synchronize, then cuMemFree");
    let e = DeviceBuffer::<u8>::zeroed_with(&s, 16, Alloc::Pool(&driver::CUmemoryPool::null())).unwrap_err();
    assert!(e.to_string().starts_with("CUDA_ERROR_INVALID_VALUE"), "{e}");
    assert_eq!(calls("cuMemAllocFromPoolAsync"), 1);
    drop(empty);
    assert_eq!(cudagen::safe::take_drop_errors().len(), 0);
}

/// Calls of `cuStreamSynchronize` and `cuPointerGetAttributes` that `body` makes.
fn syncs_and_queries(body: impl FnOnce()) -> (i64, i64) {
    let (syncs, queries) = (calls("cuStreamSynchronize"), calls("cuPointerGetAttributes"));
    body();
    (calls("cuStreamSynchronize") - syncs, calls("cuPointerGetAttributes") - queries)
}

#[test]
fn host_copies_synchronize_only_for_memory_cuda_knows() {
    if parent_runs("host_copies_synchronize_only_for_memory_cuda_knows", &[]) {
        return;
    }
    let s = stream();
    let data: Vec<u32> = (1..=6).collect();
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 6).unwrap();
    // From pageable memory (a Vec): first and last byte asked, no synchronize (staged at return).
    assert_eq!(syncs_and_queries(|| buf.copy_from_host(&data).unwrap()), (0, 2), "from a Vec");
    assert_eq!(calls("cuDeviceGetAttribute"), 1, "pageable memory access asked once per process");
    let mut one = DeviceBuffer::<u8>::zeroed(&s, 1).unwrap();
    assert_eq!(syncs_and_queries(|| one.copy_from_host(&[7]).unwrap()), (0, 1), "one byte: one query");
    // To host memory: always waited for, nothing asked.
    let mut back = Vec::new();
    assert_eq!(syncs_and_queries(|| back = buf.to_vec().unwrap()), (1, 0), "to a new Vec");
    assert_eq!(back, data);
    let mut host = [0u32; 6];
    assert_eq!(syncs_and_queries(|| buf.copy_to_host(&mut host).unwrap()), (1, 0), "to a stack array");
    assert_eq!(host[..], data[..]);

    // Pinned memory (cuMemHostAlloc) seen through a plain slice: the copy may run on, so wait.
    let mut pinned = PinnedHostBuffer::from_slice(&s, &[10u32, 20, 30, 40, 50, 60]).unwrap();
    assert_eq!(syncs_and_queries(|| buf.copy_from_host(pinned.as_slice().unwrap()).unwrap()), (1, 1), "from pinned");
    assert_eq!(buf.to_vec().unwrap(), [10, 20, 30, 40, 50, 60]);
    buf.copy_from_host(&data).unwrap();
    assert_eq!(syncs_and_queries(|| buf.copy_to_host(pinned.as_mut_slice().unwrap()).unwrap()), (1, 0), "to pinned");
    assert_eq!(pinned.as_slice().unwrap(), &data[..]);
    assert_eq!(syncs_and_queries(|| buf.slice_mut(2..4).copy_from_host(&pinned.as_slice().unwrap()[2..4]).unwrap()), (1, 1));

    // Empty copies make no call at all.
    let copies = calls("cuMemcpyHtoDAsync") + calls("cuMemcpyDtoHAsync");
    let mut empty = DeviceBuffer::<u32>::from_host(&s, &[]).unwrap();
    assert_eq!(syncs_and_queries(|| empty.copy_from_host(&[]).unwrap()), (0, 0));
    assert_eq!(syncs_and_queries(|| assert!(empty.to_vec().unwrap().is_empty())), (0, 0));
    assert_eq!(calls("cuMemcpyHtoDAsync") + calls("cuMemcpyDtoHAsync"), copies);

    // SAXPY's host side as the safe layer does it: the one synchronize is the read-back's, where
    // the typed program makes its one cuStreamSynchronize.
    let k = kernel("saxpy:4,8,8,8");
    let (hx, hy) = (vec![1.0f32; 1024], vec![2.0f32; 1024]);
    let (syncs, _) = syncs_and_queries(|| {
        let x = DeviceBuffer::from_host(&s, &hx).unwrap();
        let mut y = DeviceBuffer::from_host(&s, &hy).unwrap();
        s.launch(&k, LaunchConfig::for_elements(1024, 256), (2.0f32, &x, &mut y, 1024usize)).unwrap();
        assert_eq!(y.to_vec().unwrap().len(), 1024);
        drop((x, y));
    });
    assert_eq!(syncs, 1, "the typed program's one synchronize, no more");
    drop(pinned);
    assert_eq!(cudagen::safe::take_drop_errors().len(), 0);
}

#[test]
fn copies_from_pageable_memory_wait_where_a_device_reads_it() {
    if parent_runs("copies_from_pageable_memory_wait_where_a_device_reads_it", &[("FAKE_PAGEABLE_ACCESS", "1")]) {
        return;
    }
    let s = stream();
    let data: Vec<u32> = (1..=6).collect();
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 6).unwrap();
    // HMM / ATS: the driver need not stage, so the copy may read the Vec after the call.
    assert_eq!(syncs_and_queries(|| buf.copy_from_host(&data).unwrap()), (1, 0), "from a Vec");
    assert_eq!(buf.to_vec().unwrap(), data);
}

#[test]
fn copies_with_host_memory_are_refused_under_capture() {
    if parent_runs("copies_with_host_memory_are_refused_under_capture", &[("FAKE_CAPTURING", "1")]) {
        return;
    }
    let s = stream();
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 6).unwrap();
    let enqueued = || (calls("cuMemcpyHtoDAsync"), calls("cuMemcpyDtoHAsync"), calls("cuStreamSynchronize"));
    let before = enqueued();
    let e = buf.copy_from_host(&[1, 2, 3, 4, 5, 6]).unwrap_err();
    assert!(matches!(e, cudagen::safe::Error::Capturing), "{e}");
    assert_eq!(
        e.to_string(),
        "a copy with host memory on a stream being captured: the graph would touch the memory after its borrow ends; \
         nothing enqueued, the capture stays valid"
    );
    assert!(matches!(buf.to_vec(), Err(cudagen::safe::Error::Capturing)), "to_vec under capture");
    let mut out = [0u32; 6];
    assert!(matches!(buf.copy_to_host(&mut out), Err(cudagen::safe::Error::Capturing)), "copy_to_host under capture");
    assert_eq!((enqueued(), calls("cuStreamIsCapturing")), (before, 3), "asked once a copy, nothing enqueued or waited");
}

#[test]
fn pinned_copies_are_asynchronous_and_waited_for() {
    if parent_runs("pinned_copies_are_asynchronous_and_waited_for", &[]) {
        return;
    }
    let s = stream();
    let mut pinned = PinnedHostBuffer::from_slice(&s, &[1.5f32, 2.5, 3.5]).unwrap();
    let mut dev = DeviceBuffer::<f32>::zeroed(&s, 3).unwrap();
    let syncs = calls("cuStreamSynchronize");
    dev.copy_from_pinned(&mut pinned).unwrap();
    assert_eq!(calls("cuStreamSynchronize"), syncs, "no synchronize for a pinned copy");
    assert_eq!(calls("cuEventRecord"), 1, "an event after the copy");
    pinned.as_mut_slice().unwrap().fill(0.0);
    assert_eq!(calls("cuEventSynchronize"), 1, "host access waited for the copy");
    dev.copy_to_pinned(&mut pinned).unwrap();
    assert_eq!(pinned.as_slice().unwrap(), [1.5, 2.5, 3.5]);
    assert_eq!(calls("cuEventSynchronize"), 2);
    assert_eq!(pinned.as_slice().unwrap(), [1.5, 2.5, 3.5]);
    assert_eq!(calls("cuEventSynchronize"), 2, "nothing pending: no wait");
    let zeroed = PinnedHostBuffer::<u16>::zeroed(&s, 3).unwrap();
    assert_eq!(zeroed.to_vec().unwrap(), [0, 0, 0], "the fake fills pinned memory with 0xCD");
    drop((pinned, zeroed));
    assert_eq!((calls("cuMemHostAlloc"), calls("cuMemFreeHost")), (2, 2));
    assert_eq!(calls("cuEventDestroy"), 1);
}

cudagen::device_repr! {
    struct Params { scale: f32, offset: [f32; 2] }
}

cudagen::device_repr! {
    struct Wide { scale: f64, offset: [f32; 2] }
}

#[test]
fn structs_pass_by_value_and_a_counter_kernel_counts_only_real_launches() {
    if parent_runs("structs_pass_by_value_and_a_counter_kernel_counts_only_real_launches", &[]) {
        return;
    }
    let s = stream();
    let takes_params = kernel("scale:12,8");
    let v = DeviceBuffer::<f32>::zeroed(&s, 8).unwrap();
    let p = Params { scale: 2.0, offset: [0.5, 0.25] };
    let e = s.launch(&takes_params, LaunchConfig::linear(1, 8), (Wide { scale: 2.0, offset: [0.5, 0.25] }, &v)).unwrap_err();
    assert_eq!(refused(e), "kernel `scale` parameter 0 is 12 bytes, argument 0 is 16 bytes; nothing launched");
    s.launch(&takes_params, LaunchConfig::linear(1, 8), (p, &v)).unwrap();
    assert_eq!(&last_params()[..12], [2.0f32, 0.5, 0.25].map(f32::to_ne_bytes).concat());

    let inc = kernel("inc:8");
    let mut counter = DeviceBuffer::<u32>::zeroed(&s, 1).unwrap();
    for bad in [s.launch(&inc, LaunchConfig::linear(1, 1), (&counter, 1u32)), s.launch(&inc, LaunchConfig::linear(1, 1), (1u32,))]
    {
        refused(bad.unwrap_err());
    }
    assert_eq!(counter.to_vec().unwrap(), [0], "refused launches never ran");
    s.launch(&inc, LaunchConfig::linear(1, 1), (&mut counter,)).unwrap();
    s.launch(&inc, LaunchConfig::linear(1, 1), (counter.as_mut_slice(),)).unwrap();
    s.launch(&inc, LaunchConfig::linear(1, 1), (counter.slice(0..1),)).unwrap();
    assert_eq!(counter.to_vec().unwrap(), [3]);
}

#[test]
fn no_kernel_arguments_and_sixteen() {
    if parent_runs("no_kernel_arguments_and_sixteen", &[]) {
        return;
    }
    let s = stream();
    s.launch(&kernel("none:"), LaunchConfig::linear(1, 1), ()).unwrap();
    let k = kernel("many:1,1,2,2,4,4,8,8,4,8,1,2,4,8,8,1");
    let args = (1u8, 2i8, 3u16, 4i16, 5u32, 6i32, 7u64, 8i64, 9.0f32, 10.0f64, true, 12u16, 13u32, 14usize, 15isize, 16u8);
    s.launch(&k, LaunchConfig::linear(1, 1), args).unwrap();
    assert_eq!(last_params().len(), 66);
    assert_eq!(calls("cuLaunchKernel"), 2);
}

/// A context of the fake, current on this thread.
fn context() -> Context {
    Context::create(0, driver::device_get(0).unwrap()).unwrap()
}

#[test]
fn a_capture_borrows_what_it_records_and_replays_it() {
    if parent_runs("a_capture_borrows_what_it_records_and_replays_it", &[]) {
        return;
    }
    let _ctx = context();
    let s = stream();
    let inc = kernel("inc:8");
    let counter = DeviceBuffer::<u32>::zeroed(&s, 1).unwrap();
    let scratch = DeviceBuffer::<u32>::from_host(&s, &[7, 7]).unwrap();
    let mut cap = s.capture(CUstreamCaptureMode::GLOBAL).unwrap();
    cap.launch(&inc, LaunchConfig::linear(1, 1), (&counter,)).unwrap();
    cap.launch(&inc, LaunchConfig::linear(1, 1), (&counter,)).unwrap();
    cap.memset(&scratch, 0).unwrap();
    // The home stream is not capturing: work on it runs now and stays out of the graph.
    s.launch(&inc, LaunchConfig::linear(1, 1), (&counter,)).unwrap();
    assert_eq!(counter.to_vec().unwrap(), [1], "ran at once, not captured");
    assert_eq!(scratch.to_vec().unwrap(), [7, 7], "the captured memset has not run");
    let graph = cap.end().unwrap();
    let exec = graph.instantiate().unwrap();
    for _ in 0..3 {
        exec.launch().unwrap();
    }
    assert_eq!(counter.to_vec().unwrap(), [7], "1 direct launch + 3 replays of 2 launches");
    assert_eq!(scratch.to_vec().unwrap(), [0, 0]);
    assert_eq!((calls("cuGraphLaunch"), calls("graphOps")), (3, 3));
    assert_eq!(calls("cuStreamCreate"), 2, "the home stream and the private capture stream");
    assert_eq!(calls("cuStreamDestroy"), 1, "the capture stream, at end");
    drop((exec, graph));
    assert_eq!((calls("cuGraphExecDestroy"), calls("cuGraphDestroy")), (1, 1));
    assert!(take_drop_errors().is_empty());
    println!("summary: 3 replays of a 3-operation capture, home-stream work outside it");
}

#[test]
fn a_capture_refuses_memory_of_other_streams_and_graphs() {
    if parent_runs("a_capture_refuses_memory_of_other_streams_and_graphs", &[]) {
        return;
    }
    let _ctx = context();
    let (s, other) = (stream(), stream());
    let inc = kernel("inc:8");
    let elsewhere = DeviceBuffer::<u32>::zeroed(&other, 2).unwrap();
    let here = DeviceBuffer::<u32>::zeroed(&s, 2).unwrap();
    let mut cap = s.capture(CUstreamCaptureMode::RELAXED).unwrap();
    let e = cap.launch(&inc, LaunchConfig::linear(1, 1), (&elsewhere,)).unwrap_err();
    assert!(matches!(e, Error::ArgStream { index: 0, .. }), "{e:?}");
    let e = cap.copy(&here, &elsewhere).unwrap_err();
    assert_eq!(
        refused(e),
        "graph copy: the memory is bound to another stream than the graph's, or belongs to another graph; nothing added"
    );
    let tmp = cap.alloc::<u32>(2).unwrap();
    cap.memset(tmp, 0).unwrap();
    cap.launch(&inc, LaunchConfig::linear(1, 1), (tmp,)).unwrap();
    cap.copy(&here, tmp).unwrap();
    let e = s.launch(&inc, LaunchConfig::linear(1, 1), (tmp,)).unwrap_err();
    assert_eq!(
        refused(e),
        "kernel `inc`: argument 0 is memory a graph allocated, valid only inside that graph; nothing launched"
    );
    let mut cap2 = other.capture(CUstreamCaptureMode::RELAXED).unwrap();
    let e = cap2.launch(&inc, LaunchConfig::linear(1, 1), (tmp,)).unwrap_err();
    assert!(matches!(e, Error::ArgGraph { index: 0, .. }), "another capture's allocation: {e:?}");
    assert!(matches!(cap2.memset(tmp, 1).unwrap_err(), Error::GraphMemory { .. }));
    drop(cap2);
    assert_eq!(calls("cuLaunchKernel"), 1, "only the accepted launch reached the driver");
    let graph = cap.end().unwrap();
    assert_eq!(calls("cuMemFreeAsync"), 1, "the graph allocation is freed at the graph's end");
    graph.instantiate().unwrap().launch().unwrap();
    assert_eq!(here.to_vec().unwrap(), [1, 0], "memset 0, inc, copied out of the graph's memory");
    assert!(take_drop_errors().is_empty());
    println!("summary: other stream's buffer and graph memory outside its graph refused; graph memory works inside");
}

#[test]
fn explicit_nodes_take_typed_buffers_and_checked_arguments() {
    if parent_runs("explicit_nodes_take_typed_buffers_and_checked_arguments", &[]) {
        return;
    }
    let _ctx = context();
    let s = stream();
    let inc = kernel("inc:8");
    let a = DeviceBuffer::from_host(&s, &[5u32, 6]).unwrap();
    let b = DeviceBuffer::<u32>::zeroed(&s, 2).unwrap();
    let event = unsafe { cudagen::safe::Event::from_raw(driver::event_create(0).unwrap()) };

    let mut child = GraphBuilder::new(&s).unwrap();
    child.kernel(&[], &inc, LaunchConfig::linear(1, 1), (&b,)).unwrap();
    let child = child.build().unwrap();

    let mut g = GraphBuilder::new(&s).unwrap();
    let e = g.kernel(&[], &inc, LaunchConfig::linear(1, 1), (&b, 1u32)).unwrap_err();
    assert!(matches!(e, Error::ParamCount { expected: 1, given: 2, .. }), "checked as a launch: {e:?}");
    let set = g.memset(&[], &b, 0).unwrap();
    let copy = g.copy(&[set], b.slice(1..), a.slice(..1)).unwrap();
    let k = g.kernel(&[copy], &inc, LaunchConfig::linear(1, 1), (&b,)).unwrap();
    let c = g.child(&[k], &child).unwrap();
    let join = g.empty(&[c]).unwrap();
    g.record(&[join], &event).unwrap();
    let mut other = GraphBuilder::new(&s).unwrap();
    assert!(matches!(other.empty(&[join]).unwrap_err(), Error::ForeignNode));
    let a0 = a.slice(..1);
    assert!(matches!(g.copy(&[], &b, a0).unwrap_err(), Error::Length { expected: 2, given: 1 }));
    let graph = g.build().unwrap();
    assert_eq!(graph.node_count().unwrap(), 6);
    graph.instantiate().unwrap().launch().unwrap();
    assert_eq!(b.to_vec().unwrap(), [2, 5], "memset, copy a[0] to b[1], inc twice (node + child)");
    drop(graph);
    drop(child);
    assert!(take_drop_errors().is_empty());
    println!("summary: memset, copy, kernel, child, empty and event nodes, 1 replay exact");
}

#[test]
fn device_queries_context_synchronize_and_pool_trim() {
    if parent_runs("device_queries_context_synchronize_and_pool_trim", &[]) {
        return;
    }
    let ctx = context();
    assert_eq!(Device::count().unwrap(), 1);
    let dev = Device::get(0).unwrap();
    assert_eq!(dev.name().unwrap(), "Fake GPU");
    assert_eq!(dev.total_memory().unwrap(), 1 << 30);
    assert_eq!(Device::all().unwrap(), [dev]);
    assert!(Device::get(1).is_err());
    assert_eq!(mem_get_info().unwrap(), (768 << 20, 1 << 30));
    assert_eq!(ctx.device().unwrap(), dev);
    ctx.synchronize().unwrap();
    dev.trim_pools().unwrap();
    assert_eq!(calls("cuCtxSynchronize"), 2);
    assert_eq!((calls("cuMemPoolTrimTo"), calls("cuDeviceGraphMemTrim")), (1, 1), "one pool: default = current");
    let k = kernel("k:4;threads=256");
    assert_eq!(k.max_threads_per_block().unwrap(), 256);
    println!("summary: device count/name/total/mem_get_info, Context::synchronize, trim, kernel attributes");
}

#[test]
fn modules_load_from_str_string_and_checked_binary_images() {
    if parent_runs("modules_load_from_str_string_and_checked_binary_images", &[]) {
        return;
    }
    let ctx = context();
    let text = PTX_K.to_str().unwrap();
    let m = Module::from_ptx(&ctx, text).unwrap();
    assert!(m.get_function(c"k").unwrap().launch_cache().from_ptx());
    Module::from_ptx(&ctx, text.to_string()).unwrap();
    Module::from_ptx(&ctx, PTX_K.to_bytes_with_nul()).unwrap();
    let e = Module::from_ptx(&ctx, "a\0b").unwrap_err();
    assert_eq!(refused(e), "not a whole PTX image: a NUL inside the text; nothing loaded");
    let e = Module::from_cubin(&ctx, b"\x7fELF\x02\x01\x01\0").unwrap_err();
    assert!(matches!(e, Error::BadImage { why: "no ELF header", .. }), "{e:?}");
    let mut elf = vec![0u8; 64];
    elf[..6].copy_from_slice(b"\x7fELF\x02\x01");
    Module::from_cubin(&ctx, &elf).unwrap();
    assert!(Module::from_fatbin(&ctx, &[0u8; 16]).is_err());
    assert_eq!(calls("cuModuleLoadData"), 4, "3 PTX + 1 cubin; the refused images reached no driver call");
}

#[test]
fn an_accepted_argument_list_is_remembered_and_others_still_checked() {
    if parent_runs("an_accepted_argument_list_is_remembered_and_others_still_checked", &[]) {
        return;
    }
    let s = stream();
    let k = kernel("k:4,8");
    let cfg = LaunchConfig::linear(1, 1);
    for _ in 0..3 {
        s.launch(&k, cfg, (1u32, 2u64)).unwrap();
    }
    s.launch(&k, cfg, (1f32, 2i64)).unwrap();
    let e = s.launch(&k, cfg, (1u64, 2u32)).unwrap_err();
    assert!(matches!(e, Error::ParamSize { index: 0, expected: 4, given: 8, .. }), "{e:?}");
    let e = s.launch(&k, cfg, (1u32,)).unwrap_err();
    assert!(matches!(e, Error::ParamCount { .. }), "{e:?}");
    s.launch(&k, cfg, (1u32, 2u64)).unwrap();
    assert_eq!(calls("cuLaunchKernel"), 5);
}

#[test]
fn an_abandoned_capture_ends_and_destroys_its_graph() {
    if parent_runs("an_abandoned_capture_ends_and_destroys_its_graph", &[]) {
        return;
    }
    let _ctx = context();
    let s = stream();
    let inc = kernel("inc:8");
    let counter = DeviceBuffer::<u32>::zeroed(&s, 1).unwrap();
    let mut cap = s.capture(CUstreamCaptureMode::THREAD_LOCAL).unwrap();
    cap.launch(&inc, LaunchConfig::linear(1, 1), (&counter,)).unwrap();
    let _unused = cap.alloc::<u32>(4).unwrap();
    drop(cap);
    assert_eq!((calls("cuStreamEndCapture"), calls("cuGraphDestroy"), calls("cuStreamDestroy")), (1, 1, 1));
    assert_eq!(calls("cuGraphInstantiate"), 0);
    assert_eq!(counter.to_vec().unwrap(), [0], "nothing captured ran");
    let empty = DeviceBuffer::<u32>::zeroed(&s, 0).unwrap();
    let mut b = GraphBuilder::new(&s).unwrap();
    b.memset(&[], &empty, 1).unwrap();
    b.copy(&[], &empty, &empty).unwrap();
    assert_eq!(b.build().unwrap().node_count().unwrap(), 2, "0-byte memset and copy are empty nodes");
    assert!(take_drop_errors().is_empty());
}

#[test]
fn a_device_pointer_array_holds_the_addresses_of_borrowed_views() {
    if parent_runs("a_device_pointer_array_holds_the_addresses_of_borrowed_views", &[]) {
        return;
    }
    let _ctx = context();
    let (s, other) = (stream(), stream());
    let k = kernel("k:8,4");
    let cfg = LaunchConfig::linear(1, 1);
    let (a, mut b) = (DeviceBuffer::<u32>::zeroed(&s, 4).unwrap(), DeviceBuffer::<u32>::zeroed(&s, 6).unwrap());
    let elsewhere = DeviceBuffer::<u32>::zeroed(&other, 1).unwrap();
    let arr = DevicePtrArray::new(&s, [a.as_slice(), a.slice(2..), b.as_slice()]).unwrap();
    // SAFETY (here and below): addresses compared only, while their buffers live.
    let want = unsafe { [a.as_raw().0, a.as_raw().0 + 8, b.as_raw().0] };
    assert_eq!((arr.len(), arr.table().to_vec().unwrap()), (3, want.to_vec()));
    s.launch(&k, cfg, (&arr, 3u32)).unwrap();
    let mut expect = unsafe { arr.table().as_raw() }.0.to_le_bytes().to_vec();
    expect.extend(3u32.to_le_bytes());
    assert_eq!(last_params(), expect, "the kernel gets the table's address (a T **)");
    let e = other.launch(&k, cfg, (&arr, 3u32)).unwrap_err();
    assert!(matches!(e, Error::ArgStream { index: 0, .. }), "bound to its stream: {e:?}");
    let e = DevicePtrArray::new(&s, [&a, &elsewhere]).unwrap_err();
    assert_eq!(refused(e), "device pointer array: the buffers are bound to different streams (move one with `move_to` first)");
    drop(arr);
    let b0 = unsafe { b.as_raw() }.0;
    let (lo, hi) = b.split_at_mut(2);
    let halves = DevicePtrArray::from_mut(&s, [lo, hi]).unwrap();
    let addr = halves.table().to_vec().unwrap();
    let mut cap = s.capture(CUstreamCaptureMode::RELAXED).unwrap();
    cap.launch(&k, cfg, (&halves, 2u32)).unwrap();
    let exec = cap.end().unwrap().instantiate().unwrap();
    exec.launch().unwrap();
    assert_eq!(addr, [b0, b0 + 8]);
    assert_eq!(last_params()[..8], unsafe { halves.table().as_raw() }.0.to_le_bytes(), "replayed by the graph");
    drop(exec);
    drop(halves);
    let empty = DevicePtrArray::<u32>::new(&s, Vec::<DeviceSlice<u32>>::new()).unwrap();
    assert!(empty.is_empty() && empty.table().to_vec().unwrap().is_empty());
    assert!(take_drop_errors().is_empty());
    println!("summary: pointer arrays of 3 shared and 2 exclusive views, launched and captured; other stream refused");
}

#[test]
fn graph_allocation_nodes_precede_their_uses_and_are_freed_after_every_node() {
    if parent_runs("graph_allocation_nodes_precede_their_uses_and_are_freed_after_every_node", &[]) {
        return;
    }
    let _ctx = context();
    let s = stream();
    let inc = kernel("inc:8");
    let cfg = LaunchConfig::linear(1, 1);
    let here = DeviceBuffer::<u32>::from_host(&s, &[9, 9]).unwrap();
    let mut g = GraphBuilder::new(&s).unwrap();
    let (_alloc, mem) = g.alloc::<u32>(&[], 2).unwrap();
    assert_eq!((calls("cuGraphAddMemAllocNode"), mem.len()), (1, 2));
    let set = g.memset(&[], mem, 0).unwrap();
    assert_eq!(calls("lastDeps"), 1, "a node on graph memory depends on its allocation node");
    let k = g.kernel(&[set], &inc, cfg, (mem,)).unwrap();
    assert_eq!(calls("lastDeps"), 2, "the given dependency and the allocation node");
    g.copy(&[k], &here, mem).unwrap();
    assert_eq!(calls("lastDeps"), 2);
    g.empty(&[]).unwrap();
    assert_eq!(calls("lastDeps"), 0, "no graph memory, no added dependency");
    let e = s.launch(&inc, cfg, (mem,)).unwrap_err();
    assert!(matches!(e, Error::ArgGraph { index: 0, .. }), "graph memory outside its graph: {e:?}");
    let mut other = GraphBuilder::new(&s).unwrap();
    assert!(matches!(other.memset(&[], mem, 1).unwrap_err(), Error::GraphMemory { .. }));
    assert!(matches!(other.kernel(&[], &inc, cfg, (mem,)).unwrap_err(), Error::ArgGraph { index: 0, .. }));
    let graph = g.build().unwrap();
    assert_eq!(calls("cuGraphAddMemFreeNode"), 1);
    assert_eq!(calls("lastDeps"), 2, "the free node follows both leaves (the copy and the empty node)");
    assert_eq!(graph.node_count().unwrap(), 6);
    let exec = graph.instantiate().unwrap();
    exec.launch().unwrap();
    assert_eq!(here.to_vec().unwrap(), [1, 0], "memset 0, inc, copied out of the graph's memory");
    let (_, none) = other.alloc::<u32>(&[], 0).unwrap();
    assert!(none.is_empty() && calls("cuGraphAddMemAllocNode") == 1, "0 bytes: an empty node");
    drop((exec, graph, other));
    assert!(take_drop_errors().is_empty());
    println!("summary: an allocation node before 3 uses (dependencies added), a free node after every leaf, 1 replay exact");
}
