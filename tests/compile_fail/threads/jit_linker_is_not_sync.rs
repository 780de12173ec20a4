//! An nvJitLink linker is not `Sync`.
//! expect: E0277

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn sync<T: Sync>(_: &T) {}
fn send<T: Send>(_: T) {}

fn main() -> R {
    let l = JitLinker::create(&[])?;
    sync(&l);
    Ok(())
}
