//! What the probes refuse, written with `unsafe` and a reason: typed enders, raw addresses, raw kernel arguments,
//! a handle from its raw value, raw handles and addresses lent by owned objects.
//! expect: compiles

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
let module = Module::from_ptx(&ctx, c".version 8.0")?;
    let f = module.get_function(c"k")?;
    // SAFETY: `buf` is live and bound to `s`, the launch's stream, until after the kernel.
    let addr = unsafe { RawKernelArg::new(buf.as_raw()) };
    s.launch(&f, LaunchConfig::linear(1, 32), (addr, 4u32))?;
    // SAFETY: a live element of `buf`, on its stream.
    unsafe { s.write_value32(buf.as_raw(), 7, 0) }?;
    let stream = Stream::create(&ctx, 0)?;
    // SAFETY: the stream is ended below, while `ctx` lives.
    let raw = unsafe { stream.into_raw() };
    // SAFETY: given up by its owned type above, ended once here.
    unsafe { driver::stream_destroy(raw) }?;
    // SAFETY: the value of a live stream, taken back as a handle.
    let again = unsafe { driver::CUstream::from_raw(s.as_raw().as_raw()) };
    driver::stream_synchronize(again)?;
    Ok(())
}
