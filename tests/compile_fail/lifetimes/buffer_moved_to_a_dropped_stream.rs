//! A buffer handed to a stream that is dropped before it.
//! expect: E0505

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let t = Stream::create(&ctx, 0)?;
    let moved = buf.move_to(&t)?;
    drop(t);
    drop(moved);
    Ok(())
}
