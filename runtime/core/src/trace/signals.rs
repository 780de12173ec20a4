//! On abort or a fatal signal (SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTERM) the pending
//! trace is written first (best effort: locks held at that moment are skipped), then the
//! previous disposition is restored and the signal delivered again. Linux with glibc only.

#[cfg(all(target_os = "linux", target_env = "gnu", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    use core::ffi::c_int;
    use std::sync::Once;

    /// glibc's `struct sigaction` on 64-bit Linux.
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct SigAction {
        handler: usize,
        mask: [u64; 16],
        flags: c_int,
        restorer: usize,
    }

    extern "C" {
        fn sigaction(sig: c_int, act: *const SigAction, old: *mut SigAction) -> c_int;
        fn raise(sig: c_int) -> c_int;
    }

    const SIGNALS: [c_int; 6] = [6, 11, 7, 4, 8, 15]; // ABRT SEGV BUS ILL FPE TERM
    const SA_RESTART: c_int = 0x1000_0000;
    static mut OLD: [SigAction; 6] = [SigAction { handler: 0, mask: [0; 16], flags: 0, restorer: 0 }; 6];

    extern "C" fn on_signal(sig: c_int) {
        super::super::sink::flush_from_signal();
        if let Some(i) = SIGNALS.iter().position(|s| *s == sig) {
            // SAFETY: restores the disposition saved at install; OLD is written once, before.
            unsafe {
                sigaction(sig, &raw const OLD[i], core::ptr::null_mut());
                // Faults re-execute the instruction and reach the old handler; others are raised.
                if sig == 6 || sig == 15 {
                    raise(sig);
                }
            }
        }
    }

    pub(in super::super) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let act = SigAction { handler: on_signal as *const () as usize, mask: [0; 16], flags: SA_RESTART, restorer: 0 };
            for (i, sig) in SIGNALS.iter().enumerate() {
                // SAFETY: plain sigaction calls; OLD is only read by the handler after this.
                unsafe {
                    let mut old = core::mem::zeroed::<SigAction>();
                    if sigaction(*sig, core::ptr::null(), &mut old) != 0 || old.handler == 1 {
                        continue; // SIG_IGN stays ignored
                    }
                    OLD[i] = old;
                    sigaction(*sig, &act, core::ptr::null_mut());
                }
            }
        });
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", any(target_arch = "x86_64", target_arch = "aarch64"))))]
mod imp {
    pub(in super::super) fn install() {}
}

pub(super) use imp::install;
