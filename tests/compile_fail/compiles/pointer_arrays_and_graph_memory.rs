//! A batch kernel over a device pointer array (shared and exclusive views), launched, captured
//! and replayed; an explicit graph with its own allocation node.
//! expect: compiles

use cudagen::driver::{self, CUstreamCaptureMode};
use cudagen::safe::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let module = Module::from_ptx(&ctx, ".entry k(.param .u64 a, .param .u64 b, .param .u32 n) { ret; }")?;
    let k = module.get_function(c"k")?;
    let cfg = LaunchConfig::linear(1, 32);
    let inputs: Vec<DeviceBuffer<f32>> = (0..4).map(|_| DeviceBuffer::zeroed(&s, 32)).collect::<Result<_, _>>()?;
    let mut out = DeviceBuffer::<f32>::zeroed(&s, 64)?;
    let reads = DevicePtrArray::new(&s, inputs.iter())?;
    {
        let (lo, hi) = out.split_at_mut(32);
        let writes = DevicePtrArray::from_mut(&s, [lo, hi])?;
        s.launch(&k, cfg, (&reads, &writes, 32u32))?;
        let mut cap = s.capture(CUstreamCaptureMode::GLOBAL)?;
        cap.launch(&k, cfg, (&reads, &writes, 32u32))?;
        let exec = cap.end()?.instantiate()?;
        exec.launch()?;
    }
    let mut g = GraphBuilder::new(&s)?;
    let (alloc, tmp) = g.alloc::<f32>(&[], 64)?;
    let copy = g.copy(&[alloc], tmp, &out)?;
    g.copy(&[copy], &out, tmp)?;
    g.build()?.instantiate()?.launch()?;
    let _ = out.to_vec()?;
    drop(reads);
    drop(inputs);
    Ok(())
}
