//! Call tracing shared by the Rust, Python and C surfaces (`CUDAGEN_TRACE`).
//!
//! Configured once from the environment, at the first [`active`] call:
//! * `CUDAGEN_TRACE=1|true|on` traces to stderr (or to `CUDAGEN_TRACE_FILE` if set);
//!   `0|false|off`, empty or unset is off unless `CUDAGEN_TRACE_FILE` is set; any other value
//!   is a file path.
//! * `CUDAGEN_TRACE_FILE=path` appends to that file (falls back to stderr if it cannot be opened).
//! * `CUDAGEN_TRACE_FORMAT=json` writes JSON lines instead of text; `perfetto` writes Chrome
//!   trace-event JSON (one slice per call: name, args, result, thread), which Perfetto and
//!   chrome://tracing open.
//! * `CUDAGEN_TRACE_SUMMARY=1` prints per-function calls, errors and times to stderr at exit
//!   (alone, it traces no lines).
//! * `CUDAGEN_TRACE_ONLY=cuMem*,cuLaunch*` traces only those names (`*` ends a prefix);
//!   `CUDAGEN_TRACE_ERRORS=1` only calls that returned an error status.
//!
//! Text: `[cudagen tid=12345] cuMemAlloc_v2(dptr=0x7ffd..., bytesize=67108864) -> CUDA_SUCCESS 1.234us`
//! JSON: `{"tid":12345,"fn":"cuMemAlloc_v2","args":{"dptr":"0x7ffd...","bytesize":67108864},"result":"CUDA_SUCCESS","ns":1234}`
//!
//! `tid` is the kernel thread id (`gettid`, as shown by `top -H`, `gdb`, `nsys`). The calling
//! thread only copies the raw values into its own buffer; a writer thread formats and writes
//! them, everything pending is written at exit and on abort or a fatal signal, and a full
//! buffer drops calls and says so in the trace. IO errors are ignored; tracing never panics.

mod buffer;
mod clock;
mod config;
mod format;
mod signals;
mod sink;
mod summary;

use core::ffi::{c_void, CStr};
use core::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;
static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether calls should be traced. After the first call: one relaxed load and a branch.
#[inline(always)]
pub fn active() -> bool {
    match STATE.load(Ordering::Relaxed) {
        ON => true,
        OFF => false,
        _ => init(),
    }
}

/// True once tracing is known to be off (false before the first [`active`] call decided it):
/// the raw layer's fast path uses it to jump straight to the driver.
#[inline(always)]
pub fn known_off() -> bool {
    STATE.load(Ordering::Relaxed) == OFF
}

#[cold]
#[inline(never)]
fn init() -> bool {
    let on = sink::configured().is_some();
    STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
    on
}

/// Turn tracing on or off at run time (e.g. from Python). Turning it on when the environment
/// did not configure a destination traces to stderr in text format.
pub fn set_active(on: bool) {
    if on {
        sink::get_or_stderr();
    }
    STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
}

/// One traced value: an argument or the result.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    I64(i64),
    U64(u64),
    F64(f64),
    /// Printed as `0x..` (flags, device pointers, handles as integers).
    Hex(u64),
    /// Printed as `0x..` or `NULL`.
    Ptr(*const c_void),
    /// Enum value with its C name when known (`CUDA_SUCCESS`), else the number.
    Enum {
        name: Option<&'static str>,
        value: i64,
    },
    /// C string (quoted, truncated to 256 bytes) or `NULL`.
    Str(Option<&'a CStr>),
    Bool(bool),
    /// Byte count, printed in decimal.
    Size(u64),
    /// A name known to Rust (quoted like a string).
    Name(&'static str),
}

/// A stamp for [`end`] (TSC ticks or nanoseconds; converted on the writer thread).
#[inline]
pub fn begin() -> u64 {
    clock::now()
}

/// Records a call that started at `start` (from [`begin`]) and just returned `result`.
#[inline]
pub fn end(function: &'static str, args: &[(&'static str, Value<'_>)], result: Value<'_>, start: u64) {
    let now = clock::now();
    span(function, args, result, start, now.saturating_sub(start));
}

/// Records a finished call that took `duration`. Does nothing when tracing is off.
pub fn record(function: &'static str, args: &[(&'static str, Value<'_>)], result: Value<'_>, duration: Duration) {
    let ns = duration.as_nanos().min(u128::from(clock::EXACT - 1)) as u64;
    span(function, args, result, clock::now(), ns | clock::EXACT);
}

fn span(function: &'static str, args: &[(&'static str, Value<'_>)], result: Value<'_>, start: u64, dur: u64) {
    if !active() {
        return;
    }
    let Some(s) = sink::get() else { return };
    if !s.filter.wants(function) {
        return;
    }
    if s.finished() || !sink::writer_running() {
        let k = clock::scale();
        let ev = buffer::Event {
            function,
            start_ns: clock::since_epoch_ns(start, k),
            dur_ns: clock::duration_ns(dur, k),
            args: args.to_vec(),
            result,
        };
        s.write_sync(sink::tid(), &ev);
        return;
    }
    if buffer::push(function, args, result, start, dur) {
        sink::wake();
    }
}

/// A status enum other than its success value (0: `CUDA_SUCCESS`, `NVRTC_SUCCESS`).
fn failed(result: &Value<'_>) -> bool {
    matches!(result, Value::Enum { value, .. } if *value != 0)
}
