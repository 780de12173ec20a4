//! The hand-written support of the generated C shim (`generated/c`, crate `cudagen-shim`), which
//! depends on this crate as `windows` depends on `windows-core`: the generated crate holds the
//! exports and the tables rendered from the headers, this one the code that is the same for
//! every release. It names no generated item: what it needs from the generated `cudagen` crate
//! (the loader's driver entry, its tracer) is handed in as plain functions.

pub mod getproc;
mod guard;
mod last_error;

pub use guard::guard;
pub use last_error::intern;
