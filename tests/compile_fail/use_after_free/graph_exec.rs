//! An executable graph launched after it was dropped.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let exec = Graph::create(0)?.instantiate(0)?;
    drop(exec);
    exec.launch(&s)?;
    Ok(())
}
