//! Keeps panics from crossing the C ABI.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`; if it panics (nothing in the call path should), returns `on_panic` instead of
/// unwinding into C. On the normal path this costs no work: the landing pad is off the hot path.
#[inline(always)]
pub(crate) fn guard<R>(f: impl FnOnce() -> R, on_panic: R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => on_panic,
    }
}
