//! The safe layer's PTX parameter reader (`templates/rust/support/safe/ptx.rs`), included by
//! path so `cargo test -p cudagen-runtime` checks it in place; it is pure, while the rest of
//! `safe/` needs the generated crate. The loader, tracer and util are the crate `cudagen-core`
//! (`runtime/core`).

#[path = "../../templates/rust/support/safe/ptx.rs"]
pub mod ptx;
