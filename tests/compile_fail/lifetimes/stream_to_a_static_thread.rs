//! A stream moved to a thread that may outlive its context.
//! expect: E0597

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    std::thread::spawn(move || drop(s));
    Ok(())
}
