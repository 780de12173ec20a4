//! A stream write into a buffer while a shared view of it lives.
//! expect: E0502

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let view = buf.as_slice();
    buf.write_value(0, 1)?;
    let _ = view.to_vec()?;
    Ok(())
}
