//! `Stream::write_value32` to an address the caller vouches for (a freed buffer's).
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let addr = buf.as_raw();
    buf.free()?;
    s.write_value32(addr, 1, 0)?;
    Ok(())
}
