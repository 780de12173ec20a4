//! A primary context used after it was dropped.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    drop(ctx);
    let _ = ctx.bind()?;
    Ok(())
}
