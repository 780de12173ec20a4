//! Two exclusive views of one buffer at once.
//! expect: E0499

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let mut a = buf.slice_mut(..8);
    let mut b = buf.slice_mut(8..);
    a.zero()?;
    b.zero()?;
    Ok(())
}
