//! A safe layer over the typed API: typed device memory and checked kernel launches.
//!
//! INTERIM module root (hand-written, shipped verbatim): the generated root of the owned handle
//! types (`templates/rust/safe*.tera`) replaces this file. That root keeps these declarations
//! and re-exports, and implements `AsStream` for its stream type and `Launchable` (with a
//! `LaunchCache` field) for its function and kernel types.

mod error;
mod launch;
mod memory;
mod repr;

pub use error::{take_drop_errors, Error, DROP_ERRORS_KEPT};
pub use launch::{kernel_params, FunctionHandle, KernelArg, KernelArgs, LaunchCache, LaunchConfig, Launchable, ParamInfo, StreamLaunch};
pub use memory::{Alloc, AsStream, DeviceBuffer, DeviceSlice, DeviceSliceMut, PinnedHostBuffer, StreamRef};
pub use repr::DeviceRepr;
