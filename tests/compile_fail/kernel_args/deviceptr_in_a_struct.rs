//! A struct holding a `CUdeviceptr` is no `DeviceRepr` (so no safe kernel argument).
//! expect: E0277

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

cudagen::device_repr! {
    struct Args { x: driver::CUdeviceptr, n: u32 }
}

fn main() {
    let _ = Args { x: driver::CUdeviceptr::default(), n: 0 };
}
