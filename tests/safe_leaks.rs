//! Every owned kind that a plain machine can make is created and dropped in a loop; the device's
//! free memory (`cuMemGetInfo`) must be flat after a warm-up (memory kinds allocate 8 MiB a round,
//! so a leak of one round shows). Prints one line per kind. Kinds that need another process,
//! graphics interop or external APIs (IPC, EGL, GL, VDPAU, external memory and semaphores) are
//! not made here. Skips with one line where no driver exists.
//! The `unsafe` here is the owned types' own (`HostRegistration::register` takes a raw host
//! pointer, `UserObject::create` and `LogsCallbackHandle::register_callback` take C callbacks).

use cudagen::driver::{
    self, CUaddress_mode, CUarray_format, CUdevResourceType, CUdeviceptr, CUfilter_mode, CUmemAccessDesc, CUmemAccess_flags,
    CUmemAllocationGranularity_flags, CUmemAllocationProp, CUmemAllocationType, CUmemLocation, CUmemLocationType, CUmemPoolProps,
    CUresourceViewFormat, CUresourcetype, CUDA_ARRAY3D_DESCRIPTOR, CUDA_ARRAY_DESCRIPTOR, CUDA_RESOURCE_DESC,
    CUDA_RESOURCE_VIEW_DESC, CUDA_TEXTURE_DESC,
};
use cudagen::safe::{
    AddressRange, Alloc, AllocationHandle, Array, Context, DeviceBuffer, DeviceMemory, Event, Graph, GreenCtx, HostMemory,
    HostRegistration, Library, LinkState, LogsCallbackHandle, MemoryPool, MipmappedArray, Module, PinnedHostBuffer,
    PrimaryContext, Program, Stream, SurfObject, TexObject, UserObject,
};
use cudagen_tests::{compile_ptx, gpu_or_skip, SAXPY};
use std::error::Error as StdError;
use std::ffi::{c_char, c_void, CString};

type Result<T = ()> = std::result::Result<T, Box<dyn StdError>>;
/// One round of a kind: create (and use), then drop.
type Round<'a> = Box<dyn Fn() -> Result + 'a>;

/// Drops what a constructor made (the round's end).
fn dropped<T, E: Into<Box<dyn StdError>>>(made: std::result::Result<T, E>) -> Result {
    made.map(drop).map_err(Into::into)
}

const MIB: usize = 1 << 20;
/// Bytes each memory kind allocates per round.
const BYTES: usize = 8 * MIB;
/// Free device memory may move this much between measurements without a leak (driver caches).
const SLACK: i64 = 4 * MIB as i64;

unsafe extern "C" fn no_op(_: *mut c_void) {}
unsafe extern "C" fn no_log(_: *mut c_void, _: driver::CUlogLevel, _: *mut c_char, _: usize) {}

/// Free device memory after the device is idle and the pools gave cached memory back.
fn free_memory(device: driver::CUdevice) -> Result<i64> {
    driver::ctx_synchronize()?;
    driver::mem_pool_trim_to(driver::device_get_default_mem_pool(device)?, 0)?;
    Ok(driver::mem_get_info()?.0 as i64)
}

/// Runs `round` 3 times (warm-up), then `rounds` times, and compares free memory around the
/// latter; prints the kind's line. `Ok(None)`: the first round says the kind is not supported.
fn check(device: driver::CUdevice, kind: &str, rounds: usize, round: &dyn Fn() -> Result) -> Result<Option<i64>> {
    if let Err(e) = round() {
        if kind.starts_with("green") {
            println!("leak: {kind:<28} skipped: the driver or device does not support it ({e})");
            return Ok(None);
        }
        return Err(format!("{kind}: {e}").into());
    }
    round()?;
    round()?;
    let before = free_memory(device)?;
    for _ in 0..rounds {
        round().map_err(|e| format!("{kind}: {e}"))?;
    }
    let after = free_memory(device)?;
    let lost = before - after;
    println!("leak: {kind:<28} {rounds:>4} rounds, free {before} -> {after} bytes, lost {lost}");
    Ok(Some(lost))
}

fn array3d(width: usize, height: usize, flags: u32) -> CUDA_ARRAY3D_DESCRIPTOR {
    CUDA_ARRAY3D_DESCRIPTOR {
        Width: width,
        Height: height,
        Depth: 0,
        Format: CUarray_format::FLOAT,
        NumChannels: 1,
        Flags: flags,
    }
}

fn array_resource(array: &Array<'_>) -> CUDA_RESOURCE_DESC {
    let mut res = CUDA_RESOURCE_DESC { resType: CUresourcetype::ARRAY, ..Default::default() };
    // SAFETY: the caller makes its object from `res` while `array` lives.
    res.res.array.hArray = unsafe { array.as_raw() };
    res
}

#[test]
fn every_owned_kind_is_dropped_without_a_leak() {
    if !gpu_or_skip("every_owned_kind_is_dropped_without_a_leak") {
        return;
    }
    let device = driver::device_get(0).unwrap();
    let ctx = PrimaryContext::retain(device).unwrap();
    let _bound = ctx.bind().unwrap();
    let major = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, device).unwrap();
    let minor = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, device).unwrap();
    let ptx = CString::new(compile_ptx(SAXPY, c"saxpy.cu", &format!("compute_{major}{minor}")).unwrap()).unwrap();
    let ptx_file = std::env::temp_dir().join(format!("cudagen_safe_leaks_{}.ptx", std::process::id()));
    std::fs::write(&ptx_file, ptx.as_bytes()).unwrap();
    let ptx_path = CString::new(ptx_file.to_str().unwrap()).unwrap();
    let s = Stream::create(&ctx, 1).unwrap();
    let location = CUmemLocation { r#type: CUmemLocationType::DEVICE, id: device.0 };
    let pool_props = CUmemPoolProps { allocType: CUmemAllocationType::PINNED, location, ..Default::default() };
    // SAFETY (here and below): the props hold no address (the Windows pointers stay null).
    let pool = unsafe { MemoryPool::create(&pool_props) }.unwrap();
    let vmm_prop = CUmemAllocationProp { r#type: CUmemAllocationType::PINNED, location, ..Default::default() };
    let granularity =
        unsafe { driver::mem_get_allocation_granularity(&vmm_prop, CUmemAllocationGranularity_flags::MINIMUM) }.unwrap();
    let vmm_bytes = BYTES.div_ceil(granularity) * granularity;

    let kinds: Vec<(&str, usize, Round<'_>)> = vec![
        ("Stream", 200, Box::new(|| dropped(Stream::create(&ctx, 1)))),
        (
            "Event (recorded)",
            200,
            Box::new(|| {
                let e = Event::create(&ctx, 0)?;
                e.record(&s)?;
                Ok(e.synchronize()?)
            }),
        ),
        (
            "Module + Function",
            50,
            Box::new(|| {
                let m = Module::from_ptx(&ctx, &ptx)?;
                dropped(m.get_function(c"saxpy"))
            }),
        ),
        (
            "Library + Kernel",
            50,
            Box::new(|| {
                // SAFETY: no JIT or library options, so no option values to point anywhere.
                let l = unsafe { Library::load_from_file(&ptx_path, &[], &[], &[], &[]) }?;
                dropped(l.get_kernel(c"saxpy"))
            }),
        ),
        // SAFETY: no JIT options, so no option values to point anywhere.
        ("LinkState", 50, Box::new(|| dropped(unsafe { LinkState::create(&ctx, &[], &[]) }))),
        ("DeviceMemory (cuMemAlloc)", 50, Box::new(|| dropped(DeviceMemory::alloc(&ctx, BYTES)))),
        ("DeviceMemory (pitch)", 50, Box::new(|| dropped(DeviceMemory::alloc_pitch(&ctx, 4096, BYTES / 4096, 4)))),
        ("DeviceMemory (managed)", 50, Box::new(|| dropped(DeviceMemory::alloc_managed(&ctx, BYTES, 1)))),
        ("AsyncDeviceMemory", 50, Box::new(|| dropped(s.mem_alloc_async(BYTES)))),
        ("AsyncDeviceMemory (pool)", 50, Box::new(|| dropped(s.mem_alloc_from_pool_async(BYTES, &pool)))),
        ("DeviceBuffer Alloc::Sync", 50, Box::new(|| dropped(DeviceBuffer::<f32>::zeroed_with(&s, BYTES / 4, Alloc::Sync)))),
        ("DeviceBuffer Alloc::Async", 50, Box::new(|| dropped(DeviceBuffer::<f32>::zeroed_with(&s, BYTES / 4, Alloc::Async)))),
        (
            "DeviceBuffer Alloc::Pool",
            50,
            Box::new(|| dropped(DeviceBuffer::<f32>::zeroed_with(&s, BYTES / 4, Alloc::Pool(&pool)))),
        ),
        ("PinnedHostBuffer", 50, Box::new(|| dropped(PinnedHostBuffer::<f32>::zeroed(&s, BYTES / 4)))),
        ("HostMemory (cuMemAllocHost)", 50, Box::new(|| dropped(HostMemory::alloc_host(&ctx, BYTES)))),
        ("HostMemory (cuMemHostAlloc)", 50, Box::new(|| dropped(HostMemory::alloc(&ctx, BYTES, 0)))),
        (
            "HostRegistration",
            50,
            Box::new(|| {
                let mut host = vec![0u8; BYTES];
                // SAFETY: `host` outlives the registration, dropped first.
                let r = unsafe { HostRegistration::register(&ctx, host.as_mut_ptr().cast(), host.len(), 0) }?;
                drop(r);
                drop(host);
                Ok(())
            }),
        ),
        (
            "MemoryPool (+ an allocation)",
            50,
            Box::new(|| {
                let p = unsafe { MemoryPool::create(&pool_props) }?;
                drop(s.mem_alloc_from_pool_async(BYTES, &p)?);
                s.synchronize()?;
                drop(p);
                Ok(())
            }),
        ),
        (
            "VMM handle + range + mapping",
            50,
            Box::new(|| {
                let handle = unsafe { AllocationHandle::create(vmm_bytes, &vmm_prop, 0) }?;
                let range = AddressRange::reserve(vmm_bytes, 0, CUdeviceptr::default(), 0)?;
                // SAFETY: the mapping fills the range just reserved, and its access is set on
                // that mapping only; the mapping and the range end in order below.
                let mapping = unsafe { range.map(vmm_bytes, 0, &handle, 0) }?;
                let access = CUmemAccessDesc { location, flags: CUmemAccess_flags::READWRITE };
                unsafe { driver::mem_set_access(mapping.as_raw(), vmm_bytes, &[access]) }?;
                drop(mapping);
                drop(range);
                drop(handle);
                Ok(())
            }),
        ),
        (
            "Array",
            50,
            Box::new(|| {
                let desc =
                    CUDA_ARRAY_DESCRIPTOR { Width: 1024, Height: BYTES / 4096, Format: CUarray_format::FLOAT, NumChannels: 1 };
                dropped(Array::create(&ctx, &desc))
            }),
        ),
        ("MipmappedArray", 50, Box::new(|| dropped(MipmappedArray::create(&ctx, &array3d(1024, 1024, 0), 4)))),
        (
            "TexObject (+ array)",
            50,
            Box::new(|| {
                let array = Array::array3d_create(&ctx, &array3d(1024, BYTES / 4096, 0))?;
                let tex = CUDA_TEXTURE_DESC {
                    addressMode: [CUaddress_mode::CLAMP; 3],
                    filterMode: CUfilter_mode::POINT,
                    ..Default::default()
                };
                let view = CUDA_RESOURCE_VIEW_DESC {
                    format: CUresourceViewFormat::FLOAT_1X32,
                    width: 1024,
                    height: BYTES / 4096,
                    ..Default::default()
                };
                // SAFETY: the resource is an array (no address), which outlives the texture.
                let t = unsafe { TexObject::create(&ctx, &array_resource(&array), &tex, &view) }?;
                drop(t);
                drop(array);
                Ok(())
            }),
        ),
        (
            "SurfObject (+ array)",
            50,
            Box::new(|| {
                // CUDA_ARRAY3D_SURFACE_LDST = 2.
                let array = Array::array3d_create(&ctx, &array3d(1024, BYTES / 4096, 2))?;
                // SAFETY: as for the texture: an array resource, dropped after the surface.
                let surf = unsafe { SurfObject::create(&ctx, &array_resource(&array)) }?;
                drop(surf);
                drop(array);
                Ok(())
            }),
        ),
        (
            "Graph + GraphExec (launched)",
            100,
            Box::new(|| {
                let g = Graph::create(0)?;
                let node = g.add_empty_node(&[])?;
                // SAFETY: `node` is a node of `g`, used while both live.
                g.add_empty_node(&[unsafe { node.as_raw() }])?;
                let exec = g.instantiate(0)?;
                exec.launch(&s)?;
                Ok(s.synchronize()?)
            }),
        ),
        (
            "UserObject + GraphUserObject",
            100,
            Box::new(|| {
                let g = Graph::create(0)?;
                // SAFETY: a callback that does nothing with a null pointer; 1 =
                // CU_USER_OBJECT_NO_DESTRUCTOR_SYNC.
                let object = unsafe { UserObject::create(std::ptr::null_mut(), Some(no_op), 1, 1) }?;
                // 1 = CU_GRAPH_USER_OBJECT_MOVE is not used: the graph takes a reference of its own.
                // SAFETY: `object` lives across the call (the graph takes its own reference).
                let held = g.retain_user_object(unsafe { object.as_raw() }, 1, 0)?;
                drop(held);
                drop(object);
                drop(g);
                Ok(())
            }),
        ),
        ("Program (NVRTC)", 100, Box::new(|| dropped(Program::create_program(SAXPY, Some(c"saxpy.cu"), &[], &[])))),
        (
            "LogsCallbackHandle",
            100,
            Box::new(|| {
                // SAFETY: a callback that reads nothing.
                dropped(unsafe { LogsCallbackHandle::register_callback(Some(no_log), std::ptr::null_mut()) })
            }),
        ),
        (
            "green context + its stream",
            20,
            Box::new(|| {
                let sms = driver::device_get_dev_resource(device, CUdevResourceType::SM)?;
                let desc = driver::dev_resource_generate_desc(&[sms])?;
                // 1 = CU_GREEN_CTX_DEFAULT_STREAM.
                let green = GreenCtx::create(desc, device, 1)?;
                drop(green.stream_create(1, 0)?);
                drop(green);
                Ok(())
            }),
        ),
        ("PrimaryContext (retain)", 100, Box::new(|| dropped(PrimaryContext::retain(device)))),
        (
            "Context",
            10,
            Box::new(|| {
                let c = Context::create(0, device)?;
                // Creating makes it current; destroying it pops it, so `ctx` is current again.
                Ok(c.destroy()?)
            }),
        ),
    ];
    let mut failed = Vec::new();
    let mut made = 0;
    // The driver keeps memory for each green context made (4 MiB a round on driver 580, the
    // same through NVIDIA's cuda.h alone: tests/gpu/probes/green_leak.c): that kind is held
    // against the same calls through the typed layer, the driver's own share.
    let typed_green = || -> Result {
        let sms = driver::device_get_dev_resource(device, CUdevResourceType::SM)?;
        let desc = driver::dev_resource_generate_desc(&[sms])?;
        let green = driver::green_ctx_create(desc, device, 1)?;
        // SAFETY: the stream and the green context were made here and are ended once, in order.
        unsafe { driver::stream_destroy(driver::green_ctx_stream_create(green, 1, 0)?) }?;
        Ok(unsafe { driver::green_ctx_destroy(green) }?)
    };
    for (kind, rounds, round) in &kinds {
        let mut allowed = SLACK;
        if kind.starts_with("green") {
            match check(device, "green context, typed calls", *rounds, &typed_green) {
                Ok(driver_own) => allowed += driver_own.unwrap_or(0).max(0),
                Err(e) => {
                    failed.push(e.to_string());
                    continue;
                }
            }
        }
        match check(device, kind, *rounds, round.as_ref()) {
            Ok(Some(lost)) if lost > allowed => failed.push(format!("{kind}: {lost} bytes of device memory lost")),
            Ok(Some(_)) => made += 1,
            Ok(None) => {}
            Err(e) => failed.push(e.to_string()),
        }
    }
    drop(kinds);
    let drop_errors = cudagen::safe::take_drop_errors();
    std::fs::remove_file(&ptx_file).ok();
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(drop_errors.is_empty(), "{drop_errors:?}");
    println!(
        "summary: safe_leaks PASS: {made} loops of owned kinds created and dropped, device memory flat (slack {SLACK} bytes)"
    );
}

/// Reserved and used bytes of the device's default pool.
fn pool_bytes(device: driver::CUdevice) -> Result<(u64, u64)> {
    let pool = driver::device_get_default_mem_pool(device)?;
    let reserved = driver::mem_pool_get_attribute::<u64>(pool, driver::CUmemPool_attribute::RESERVED_MEM_CURRENT)?;
    let used = driver::mem_pool_get_attribute::<u64>(pool, driver::CUmemPool_attribute::USED_MEM_CURRENT)?;
    Ok((reserved, used))
}

/// Issue 34 item 4: 1000 rounds of a stream, a recorded event and a 1 MiB stream-ordered
/// buffer on that stream, all dropped. After `Device::trim_pools` (synchronize, trim the pools
/// to 0, trim graph memory) free memory is back within `SLACK` of where it was; the line also
/// shows what a synchronize alone leaves (the default pool's reserve above its release
/// threshold is released at a synchronize; what was in flight then stays reserved).
#[test]
fn a_thousand_streams_events_and_buffers_give_memory_back() {
    if !gpu_or_skip("a_thousand_streams_events_and_buffers_give_memory_back") {
        return;
    }
    let dev = cudagen::safe::Device::get(0).unwrap();
    let ctx = PrimaryContext::retain(dev.as_raw()).unwrap();
    let _bound = ctx.bind().unwrap();
    let round = || -> Result {
        let s = Stream::create(&ctx, 1)?;
        let e = Event::create(&ctx, 0)?;
        let buf = DeviceBuffer::<u8>::zeroed(&s, MIB)?;
        e.record(&s)?;
        drop(buf);
        drop(e);
        drop(s);
        Ok(())
    };
    for _ in 0..10 {
        round().unwrap();
    }
    dev.trim_pools().unwrap();
    let before = cudagen::safe::mem_get_info().unwrap().0 as i64;
    for _ in 0..1000 {
        round().unwrap();
    }
    ctx.synchronize().unwrap();
    let synced = cudagen::safe::mem_get_info().unwrap().0 as i64;
    let (reserved, used) = pool_bytes(dev.as_raw()).unwrap();
    dev.trim_pools().unwrap();
    let trimmed = cudagen::safe::mem_get_info().unwrap().0 as i64;
    let (reserved_after, _) = pool_bytes(dev.as_raw()).unwrap();
    println!(
        "leak: 1000 x (stream, event, 1 MiB buffer): free {before} -> {synced} after a synchronize (lost {}; default pool \
         reserved {reserved}, used {used}) -> {trimmed} after trim_pools (lost {}; reserved {reserved_after})",
        before - synced,
        before - trimmed
    );
    assert!(before - trimmed <= SLACK, "{} bytes not given back after trim_pools", before - trimmed);
    assert!(cudagen::safe::take_drop_errors().is_empty());
}

/// What the driver keeps per green context made: 4 MiB (driver 580, H200 and H100), kept after
/// `cuGreenCtxDestroy` and the destroy of its stream, a synchronize, trimming the pools and the
/// graph memory; NVIDIA's `cuda.h` alone loses the same (`tests/gpu/probes/green_leak.c`).
const GREEN_KEPT_PER_CONTEXT: i64 = 4 * MIB as i64;
/// Green contexts made by `green_contexts_keep_what_the_driver_keeps`.
const GREEN_ROUNDS: i64 = 20;

/// Issue 34 item 5: 20 rounds of a green context over all SMs and a stream of it, each dropped;
/// after `Device::trim_pools` each round after the first keeps at most what the driver keeps
/// (`GREEN_KEPT_PER_CONTEXT` a context), the first at most twice that. Skips where green contexts are not
/// supported.
#[test]
fn green_contexts_keep_what_the_driver_keeps() {
    if !gpu_or_skip("green_contexts_keep_what_the_driver_keeps") {
        return;
    }
    let dev = cudagen::safe::Device::get(0).unwrap();
    let device = dev.as_raw();
    let ctx = PrimaryContext::retain(device).unwrap();
    let _bound = ctx.bind().unwrap();
    let round = || -> Result {
        let sms = driver::device_get_dev_resource(device, CUdevResourceType::SM)?;
        let desc = driver::dev_resource_generate_desc(&[sms])?;
        // 1 = CU_GREEN_CTX_DEFAULT_STREAM.
        let green = GreenCtx::create(desc, device, 1)?;
        let stream = green.stream_create(1, 0)?;
        stream.synchronize()?;
        drop(stream);
        drop(green);
        Ok(())
    };
    dev.trim_pools().unwrap();
    let before = free_memory(device).unwrap();
    if let Err(e) = round() {
        println!("skipped green_contexts_keep_what_the_driver_keeps: not supported here ({e})");
        return;
    }
    dev.trim_pools().unwrap();
    let first = before - free_memory(device).unwrap();
    for _ in 1..GREEN_ROUNDS {
        round().unwrap();
    }
    dev.trim_pools().unwrap();
    let lost = before - free_memory(device).unwrap();
    println!(
        "leak: green context + its stream, {GREEN_ROUNDS} rounds: lost {first} bytes after the first, {lost} after all \
         ({} a context)",
        lost / GREEN_ROUNDS
    );
    // the first round also maps the driver's green-context state once (2 MiB granules)
    assert!(first <= 2 * GREEN_KEPT_PER_CONTEXT, "{first} bytes kept by the first green context");
    let per_round = GREEN_KEPT_PER_CONTEXT * (GREEN_ROUNDS - 1);
    assert!(
        lost - first <= per_round,
        "{} bytes kept by {} more green contexts, more than the driver's {per_round}",
        lost - first,
        GREEN_ROUNDS - 1
    );
    assert!(cudagen::safe::take_drop_errors().is_empty());
}
