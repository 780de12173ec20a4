//! `RawKernelArg::new` is the caller's promise.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let _arg = RawKernelArg::new(driver::CUdeviceptr::from(0x1000));
    Ok(())
}
