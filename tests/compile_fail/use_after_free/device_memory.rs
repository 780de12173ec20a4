//! Owned `cuMemAlloc` memory asked for its address after `destroy`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let m = DeviceMemory::alloc(&ctx, 64)?;
    m.destroy()?;
    // SAFETY: (not reached: `m` was moved by `destroy`).
    let _ = unsafe { m.as_raw() };
    Ok(())
}
