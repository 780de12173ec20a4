//! A stream's raw handle kept past the owned stream's drop, then synchronized.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let raw = s.as_raw();
    drop(s);
    driver::stream_synchronize(raw)?;
    Ok(())
}
