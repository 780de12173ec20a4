//! A graph node cannot record an event forged with `from_raw` outside `unsafe`.
//! expect: E0133

use cudagen::driver::{self, CUevent};
use cudagen::safe::{Context, GraphBuilder, Stream};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let forged = CUevent::from_raw(0x1000 as *mut std::ffi::c_void);
    let mut g = GraphBuilder::new(&s)?;
    g.record(&[], &forged)?;
    drop(g.build()?);
    Ok(())
}
