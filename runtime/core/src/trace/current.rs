//! The calling thread's [`Local`] (its side of the trace buffer), found without a call.
//!
//! In a shared library a thread local is reached through `__tls_get_addr`: a call and a chain of
//! dependent loads, which a launch evicts from cache between two traced calls. On x86-64 Linux
//! the thread is found instead by its thread pointer (`fs:[0]`, where the x86-64 TLS ABI has the
//! thread control block hold its own address: unique among live threads) in a table of
//! [`SLOTS`] entries: one load of the pointer, one of the entry. A thread whose entry is taken by
//! another live thread, and every thread elsewhere, uses the thread local.

use super::buffer::Local;
use core::cell::Cell;
use core::ptr::null_mut;
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

thread_local! {
    /// This thread's [`Local`] (leaked box), null before the first traced call and after the
    /// thread's destructors ran. No destructor, so an access is the address and one load.
    static LOCAL: Cell<*mut Local> = const { Cell::new(null_mut()) };
}

/// Entries of the table (16 KiB).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
const SLOTS: usize = 1024;

/// A live thread's pointer and its `Local` (0 and null when free). Only the thread itself
/// writes or uses an entry holding its pointer; others only see that it is not theirs.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[repr(C, align(16))]
struct Entry {
    tp: AtomicUsize,
    local: AtomicPtr<Local>,
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
static TABLE: [Entry; SLOTS] = [const { Entry { tp: AtomicUsize::new(0), local: AtomicPtr::new(null_mut()) } }; SLOTS];

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[inline(always)]
fn entry() -> (usize, &'static Entry) {
    let tp: usize;
    // SAFETY: reads the first word of the thread control block (its own address, set up by the
    // C library for every thread); no side effect.
    unsafe { core::arch::asm!("mov {}, qword ptr fs:[0]", out(reg) tp, options(nostack, preserves_flags, readonly, pure)) };
    let i = ((tp as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize;
    (tp, &TABLE[i % SLOTS])
}

/// This thread's [`Local`]; null before its first traced call or once its thread locals are gone.
#[inline(always)]
pub(super) fn get() -> *mut Local {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let (tp, e) = entry();
        if e.tp.load(Ordering::Relaxed) == tp {
            return e.local.load(Ordering::Relaxed);
        }
    }
    LOCAL.with(Cell::get)
}

/// Makes `l` this thread's [`Local`].
pub(super) fn set(l: *mut Local) {
    LOCAL.with(|c| c.set(l));
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let (tp, e) = entry();
        // A free entry, or one a thread with the same pointer left without its destructors.
        let mine = match e.tp.compare_exchange(0, tp, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => true,
            Err(other) => other == tp,
        };
        if mine {
            e.local.store(l, Ordering::Relaxed);
        }
    }
}

/// Forgets this thread's [`Local`] (its thread ends) and returns it.
pub(super) fn take() -> *mut Local {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let (tp, e) = entry();
        if e.tp.load(Ordering::Relaxed) == tp {
            e.local.store(null_mut(), Ordering::Relaxed);
            e.tp.store(0, Ordering::Relaxed);
        }
    }
    LOCAL.with(|c| c.replace(null_mut()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};

    #[test]
    fn each_thread_finds_its_own() {
        const THREADS: usize = 64;
        let all_set = Arc::new(Barrier::new(THREADS));
        let threads: Vec<_> = (1..=THREADS)
            .map(|i| {
                let all_set = all_set.clone();
                std::thread::spawn(move || {
                    // Never dereferenced: only compared.
                    let mine = (i * 64) as *mut Local;
                    assert!(get().is_null());
                    set(mine);
                    all_set.wait();
                    // Every thread is registered now (several may share an entry).
                    assert_eq!(get(), mine);
                    assert_eq!(take(), mine);
                    assert!(get().is_null());
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
