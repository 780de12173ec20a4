//! A device buffer read after `free`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    buf.free()?;
    let _ = buf.to_vec()?;
    Ok(())
}
