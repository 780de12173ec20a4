//! An NVVM program compiled after `destroy`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let p = NvvmProgram::create_program()?;
    p.destroy()?;
    p.compile_program(&[])?;
    Ok(())
}
