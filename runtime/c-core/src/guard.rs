//! Keeps panics from crossing the C ABI.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`; if it panics (nothing in the call path should), returns `on_panic` instead of
/// unwinding into C. On the normal path this costs no work: the landing pad is off the hot path.
#[inline(always)]
pub fn guard<R>(f: impl FnOnce() -> R, on_panic: R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => on_panic,
    }
}

#[cfg(test)]
mod tests {
    use super::guard;

    #[test]
    fn a_panic_becomes_the_fallback_value() {
        assert_eq!(guard(|| 7, 0), 7);
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = guard(|| -> i32 { panic!("boom") }, 999);
        std::panic::set_hook(hook);
        assert_eq!(r, 999);
    }
}
