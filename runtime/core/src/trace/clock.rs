//! Timestamps for traced calls. On x86-64 with an invariant TSC (`constant_tsc` and
//! `nonstop_tsc` in /proc/cpuinfo) a call reads the TSC (a few ns; `clock_gettime` costs 20-60 ns
//! in VMs); ticks are turned into nanoseconds on the writer thread, scaled by the monotonic clock
//! over the time since the first stamp. Elsewhere stamps are monotonic-clock nanoseconds.
//! The choice is made once ([`init`], before tracing starts); after it a stamp is one relaxed
//! load of a flag that never changes again and the `rdtsc`.

use super::FLAGS;
use core::sync::atomic::Ordering;
use std::sync::OnceLock;
use std::time::Instant;

struct Epoch {
    instant: Instant,
    /// TSC at `instant`, or `None` when stamps are nanoseconds.
    tsc: Option<u64>,
}

fn epoch() -> &'static Epoch {
    static E: OnceLock<Epoch> = OnceLock::new();
    E.get_or_init(|| Epoch { instant: Instant::now(), tsc: invariant_tsc().then(rdtsc) })
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rdtsc() -> u64 {
    // SAFETY: RDTSC is available on every x86-64 CPU.
    unsafe { core::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
fn rdtsc() -> u64 {
    0
}

fn invariant_tsc() -> bool {
    cfg!(target_arch = "x86_64")
        && std::fs::read_to_string("/proc/cpuinfo").is_ok_and(|c| {
            c.lines().find(|l| l.starts_with("flags")).is_some_and(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.contains(&"constant_tsc") && f.contains(&"nonstop_tsc")
            })
        })
}

/// Chooses the stamp (TSC or monotonic clock) and sets the epoch.
pub(super) fn init() {
    FLAGS.tsc.store(epoch().tsc.is_some(), Ordering::Relaxed);
}

/// A stamp: TSC ticks or nanoseconds (see the module docs).
#[inline(always)]
pub(super) fn now() -> u64 {
    if FLAGS.tsc.load(Ordering::Relaxed) {
        return rdtsc();
    }
    now_slow()
}

/// The end stamp of a call that started at `start`: `start` itself when calls are not timed
/// (`CUDAGEN_TRACE_DURATIONS=0`).
#[inline(always)]
pub(super) fn end(start: u64) -> u64 {
    if FLAGS.untimed.load(Ordering::Relaxed) {
        return start;
    }
    now()
}

/// A TSC stamp, for a caller that found TSC stamps chosen (see [`super::open`]).
#[inline(always)]
pub(super) fn tsc() -> u64 {
    rdtsc()
}

#[inline(never)]
fn now_slow() -> u64 {
    let e = epoch();
    match e.tsc {
        Some(_) => rdtsc(),
        None => e.instant.elapsed().as_nanos() as u64,
    }
}

/// Nanoseconds per stamp unit, measured now (1 for nanosecond stamps).
pub(super) fn scale() -> f64 {
    let e = epoch();
    match e.tsc {
        Some(t0) => {
            let ticks = rdtsc().saturating_sub(t0);
            let ns = e.instant.elapsed().as_nanos() as f64;
            if ticks == 0 || ns == 0.0 {
                1.0
            } else {
                ns / ticks as f64
            }
        }
        None => 1.0,
    }
}

/// A stamp as nanoseconds since the first one, at `scale`.
pub(super) fn since_epoch_ns(stamp: u64, scale: f64) -> u64 {
    let base = epoch().tsc.unwrap_or(0);
    (stamp.saturating_sub(base) as f64 * scale) as u64
}

/// Marks a duration given in nanoseconds (`trace::record`), not as a difference of stamps.
pub(super) const EXACT: u64 = 1 << 63;

/// A difference of stamps (or an [`EXACT`] duration) as nanoseconds, at `scale`.
pub(super) fn duration_ns(ticks: u64, scale: f64) -> u64 {
    if ticks & EXACT != 0 {
        ticks & !EXACT
    } else {
        (ticks as f64 * scale) as u64
    }
}
