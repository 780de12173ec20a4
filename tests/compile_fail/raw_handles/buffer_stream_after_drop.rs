//! The stream a buffer is bound to, kept past the buffer's and the stream's drops.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let raw = buf.stream();
    drop(buf);
    drop(s);
    driver::stream_query(raw)?;
    Ok(())
}
