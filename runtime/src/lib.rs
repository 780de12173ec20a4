//! The hand-written runtime of the generated `cudagen` crate, built and tested where it lives:
//! the loader, the tracer and the small utilities of `templates/rust/support/`, included by
//! path, so `cargo test -p cudagen-runtime` checks them without a regen. The generator still
//! copies the same files verbatim into every generated crate, which stays self-contained.
//!
//! `crate::libraries` is the loader's table of libraries; here it is the committed rendering of
//! the generator's profiles (`generated/rust/src/cuda12/libraries.rs`), the one piece of the runtime
//! the generator writes.

#[path = "../../templates/rust/support"]
mod support {
    pub mod loader;
    pub mod trace;
    pub mod util;
    /// The safe layer's PTX parameter reader (pure; the rest of `safe/` needs the generated crate).
    pub mod safe {
        pub mod ptx;
    }
}

// Generated: formatted as the generator writes it.
#[rustfmt::skip]
#[path = "../../generated/rust/src/cuda12/libraries.rs"]
mod libraries;

pub use support::safe::ptx;
pub use support::{loader, trace, util};
