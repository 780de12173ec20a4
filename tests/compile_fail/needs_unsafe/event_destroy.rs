//! `driver::event_destroy` of an owned event's handle.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let e = Event::create(&ctx, 0)?;
    driver::event_destroy(e.as_raw())?;
    Ok(())
}
