//! The hand-written runtime of the generated `cudagen` crate, which depends on this crate as
//! `windows` depends on `windows-core`: the generated crate holds the entry tables, types and
//! typed functions rendered from the headers, this one the code that is the same for every
//! release: the lazy [`loader`], the [`trace`]r, small [`util`]ities and the [`raw_fn!`] macro
//! that the generated `sys` modules expand. It names no library: the generated crate hands each
//! table its [`loader::LibraryKind`] (a slot, a name and the library's [`loader::Profile`]).

pub mod loader;
mod raw;
pub mod trace;
pub mod util;
