//! `Graph::add_kernel_node` with `kernelParams = 0x1000`.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, c".version 8.0")?;
    let f = module.get_function(c"k")?;
    let g = Graph::create(0)?;
    let params = driver::CUDA_KERNEL_NODE_PARAMS { func: f.as_raw(), gridDimX: 1, gridDimY: 1, gridDimZ: 1, blockDimX: 1, blockDimY: 1, blockDimZ: 1, kernelParams: 0x1000 as *mut *mut core::ffi::c_void, ..Default::default() };
    let _n = g.add_kernel_node(&[], &params)?;
    Ok(())
}
