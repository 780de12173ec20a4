//! A live handle cannot be pointed elsewhere in safe code: the newtype's field is private.
//! expect: E0616

use cudagen::driver;
use cudagen::safe::{Context, Event, Stream};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let e = Event::create(&ctx, 0)?;
    // SAFETY: the copy is used while `s` lives.
    let mut raw = unsafe { s.as_raw() };
    raw.0 = 0x1000 as *mut std::ffi::c_void;
    e.record(&raw)?;
    Ok(())
}
