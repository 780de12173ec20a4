//! An event's raw handle kept past the owned event's drop, then queried.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let e = Event::create(&ctx, 0)?;
    let raw = e.as_raw();
    drop(e);
    driver::event_query(raw)?;
    Ok(())
}
