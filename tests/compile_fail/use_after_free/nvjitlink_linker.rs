//! An nvJitLink linker completed after it was dropped.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let l = JitLinker::create(&[c"-arch=sm_90"])?;
    drop(l);
    l.complete()?;
    Ok(())
}
