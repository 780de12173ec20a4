//! A buffer kept past the scope of the stream it is bound to.
//! expect: E0597

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let buf = {
        let s = Stream::create(&ctx, 0)?;
        DeviceBuffer::<f32>::zeroed(&s, 4)?
    };
    drop(buf);
    Ok(())
}
