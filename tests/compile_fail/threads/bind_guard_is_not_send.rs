//! A context binding belongs to its thread: its guard is not `Send`.
//! expect: E0277

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn sync<T: Sync>(_: &T) {}
fn send<T: Send>(_: T) {}

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    send(ctx.bind()?);
    Ok(())
}
