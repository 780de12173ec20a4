//! A buffer's device address kept past its drop, then given to a typed call.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let addr = buf.as_raw();
    drop(buf);
    driver::mem_get_address_range(addr)?;
    Ok(())
}
