//! A stream's handle copied out through the `AsStream` trait, used after the drop.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let raw = AsStream::raw_stream(&s);
    drop(s);
    driver::stream_query(raw)?;
    Ok(())
}
