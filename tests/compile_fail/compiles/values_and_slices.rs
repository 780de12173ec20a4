//! Stream writes, waits and fills on buffers and disjoint slices, copies, a pool, threads sharing a stream.
//! expect: compiles

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
let mut flags = DeviceBuffer::<u32>::zeroed(&s, 4)?;
    flags.write_value(0, 1)?;
    flags.slice_mut(1..).write_value(0, 2)?;
    flags.wait_value(0, 1, driver::CUstreamWaitValue_flags::GEQ)?;
    flags.as_slice().wait_value(1, 2, driver::CUstreamWaitValue_flags::EQ)?;
    let mut wide = DeviceBuffer::<u64>::zeroed(&s, 2)?;
    wide.write_value(1, u64::MAX)?;
    let mut floats = DeviceBuffer::<f32>::zeroed(&s, 8)?;
    floats.fill(1.5)?;
    floats.slice_mut(4..).fill(0.0)?;
    let copy = DeviceBuffer::from_host(&s, &floats.to_vec()?)?;
    floats.slice_mut(..4).copy_from_device(&copy.slice(4..))?;
    let pool = MemoryPool::pinned(driver::CUmemLocation { r#type: driver::CUmemLocationType::DEVICE, id: 0 })?;
    let pooled = DeviceBuffer::<u8>::zeroed_with(&s, 64, Alloc::Pool(&pool))?;
    std::thread::scope(|sc| {
        sc.spawn(|| pooled.to_vec().map(drop));
        sc.spawn(|| copy.to_vec().map(drop));
    });
    Ok(())
}
