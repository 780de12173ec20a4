//! A slice of a buffer used after the buffer was freed.
//! expect: E0505

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let view = buf.slice(2..4);
    buf.free()?;
    let _ = view.to_vec()?;
    Ok(())
}
