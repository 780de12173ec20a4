//! A graph may move to another thread but not be shared by two.
//! expect: E0277

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn sync<T: Sync>(_: &T) {}
fn send<T: Send>(_: T) {}

fn main() -> R {
    let g = Graph::create(0)?;
    sync(&g);
    Ok(())
}
