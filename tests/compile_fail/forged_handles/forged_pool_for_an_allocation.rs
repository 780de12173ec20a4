//! A buffer cannot be allocated from a pool forged from an integer.
//! expect: E0423 E0603

use cudagen::driver::{self, CUmemoryPool};
use cudagen::safe::{Alloc, Context, DeviceBuffer, Stream};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let pool = CUmemoryPool(0x1000 as *mut std::ffi::c_void);
    let buf = DeviceBuffer::<u8>::zeroed_with(&s, 16, Alloc::Pool(&pool))?;
    drop(buf);
    Ok(())
}
