//! Two scoped threads may not use one graph at once.
//! expect: E0277

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn sync<T: Sync>(_: &T) {}
fn send<T: Send>(_: T) {}

fn main() -> R {
    let g = Graph::create(0)?;
    std::thread::scope(|sc| {
        sc.spawn(|| g.instantiate(0).map(drop));
        sc.spawn(|| g.instantiate(0).map(drop));
    });
    Ok(())
}
