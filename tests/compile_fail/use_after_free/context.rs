//! A context used after `destroy`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    ctx.destroy()?;
    let _ = ctx.bind()?;
    Ok(())
}
