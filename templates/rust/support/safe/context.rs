//! Handles as arguments ([`AsRaw`]) and the context rule ([`CurrentContext`], the check the
//! constructors of context-scoped kinds make).
//!
//! Included by the `safe` module root (`crate::safe`), which re-exports these items.
//!
//! The rule: a kind made in "the current context" (its constructors' docs list
//! `CUDA_ERROR_INVALID_CONTEXT`: streams, events, modules, device and pinned memory, arrays,
//! texture and surface objects...) borrows that context: its constructors take `&'c` of an owned
//! [`Context`](super::Context) or [`PrimaryContext`](super::PrimaryContext) and the object is
//! `Kind<'c>`, so the borrow checker refuses dropping the context first. The constructor does
//! not bind the context (owned types never rebind): it checks, with one `cuCtxGetCurrent`, that
//! the context given is the calling thread's current one, and refuses with
//! [`Error::NotCurrent`] otherwise. Objects made by another object's method borrow that object
//! (`Function<'m>` its module, `AsyncDeviceMemory<'s>` its stream, `Mapping<'r>` its range).

use super::error::Error;
use crate::driver::{self, CUcontext};

/// An owned type (or the raw handle itself) that lends its handle of type `H`: methods take
/// other objects as `&impl AsRaw<CUstream>` (`event.record(&stream)`), so an owned type or a
/// raw handle both fit.
pub trait AsRaw<H: Copy> {
    /// The raw handle, still owned by `self`.
    ///
    /// # Safety
    ///
    /// The copy is used only while `self` lives (it is `Copy`; the owner's drop ends it).
    unsafe fn raw_handle(&self) -> H;
}

/// `x`'s handle for one call made while `x` is borrowed.
#[inline(always)]
pub(crate) fn lend<H: Copy>(x: &(impl AsRaw<H> + ?Sized)) -> H {
    // SAFETY: the handle is used by the caller's call, during the borrow of `x`.
    unsafe { x.raw_handle() }
}

/// An owned context whose handle is live while `self` is: constructors of context-scoped
/// kinds take it, and their objects borrow it.
///
/// # Safety
///
/// `raw_context` returns a live context that `self` keeps alive for as long as it is borrowed.
pub unsafe trait CurrentContext {
    /// The context's raw handle.
    ///
    /// # Safety
    ///
    /// The copy is used only while `self` is borrowed.
    unsafe fn raw_context(&self) -> CUcontext;
}

/// Checks that `ctx` is the calling thread's current context (constructors of context-scoped
/// kinds call it before creating).
#[inline]
pub(crate) fn check_current(ctx: &(impl CurrentContext + ?Sized)) -> Result<(), Error> {
    let current = driver::ctx_get_current()?;
    // SAFETY: compared during the borrow of `ctx`.
    if current.0 == unsafe { ctx.raw_context() }.0 {
        Ok(())
    } else {
        Err(not_current(current))
    }
}

#[cold]
fn not_current(current: CUcontext) -> Error {
    Error::NotCurrent { current: !current.0.is_null() }
}
