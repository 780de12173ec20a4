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
//! * `CUDAGEN_TRACE_DURATIONS=0` stamps each call once, when it starts (one clock read a call
//!   instead of two): lines without durations, Perfetto instants, a summary of calls and errors.
//!
//! Text: `[cudagen tid=12345] cuMemAlloc_v2(dptr=0x7ffd..., bytesize=67108864) -> CUDA_SUCCESS 1.234us`
//! JSON: `{"tid":12345,"fn":"cuMemAlloc_v2","args":{"dptr":"0x7ffd...","bytesize":67108864},"result":"CUDA_SUCCESS","ns":1234}`
//!
//! `tid` is the kernel thread id (`gettid`, as shown by `top -H`, `gdb`, `nsys`). The calling
//! thread only copies raw words into its own buffer (each generated function has a static
//! [`Desc`] naming its arguments and saying how to show them): the call's record is reserved and
//! begun before the library call ([`open`]) and completed with stores after it ([`finish`]). A
//! writer thread decodes, formats and writes them, everything pending is written at exit and on
//! abort or a fatal signal, and a full buffer drops calls and says so in the trace. A traced call
//! made while another is open on the same thread (from a callback inside it) is written at once,
//! so its line may come before those of earlier calls still buffered; a call still running on
//! another thread when the exit hook runs gets no line. IO errors are ignored; tracing never
//! panics.

mod buffer;
mod clock;
mod config;
mod current;
mod format;
mod signals;
mod sink;
mod summary;

use core::ffi::{c_void, CStr};
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Duration;

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;

/// What every traced call reads, alone on its cache lines (the counters the writer and the
/// threads update live elsewhere), written only when tracing is configured, turned on or off,
/// and at exit.
#[repr(align(128))]
struct Flags {
    state: AtomicU8,
    /// Calls are formatted and written at once (after the exit hook, or without a writer thread).
    sync: AtomicBool,
    /// Stamps are TSC ticks (see `clock`).
    tsc: AtomicBool,
    /// Calls are stamped once, when they start (`CUDAGEN_TRACE_DURATIONS=0`).
    untimed: AtomicBool,
}

static FLAGS: Flags = Flags { state: AtomicU8::new(UNKNOWN), sync: AtomicBool::new(false), tsc: AtomicBool::new(false), untimed: AtomicBool::new(false) };

/// Whether calls should be traced. After the first call: one relaxed load and a branch.
#[inline(always)]
pub fn active() -> bool {
    match FLAGS.state.load(Ordering::Relaxed) {
        ON => true,
        OFF => false,
        _ => init(),
    }
}

/// Whether tracing is on, once decided (`None` before the first [`active`] call): the raw
/// layer's fast path, one load for both answers.
#[inline(always)]
pub fn known() -> Option<bool> {
    match FLAGS.state.load(Ordering::Relaxed) {
        ON => Some(true),
        OFF => Some(false),
        _ => None,
    }
}

#[cold]
#[inline(never)]
fn init() -> bool {
    let on = sink::configured().is_some();
    if on {
        start();
    }
    FLAGS.state.store(if on { ON } else { OFF }, Ordering::Relaxed);
    on
}

/// Before calls are traced: the clock, the writer thread (without one, calls are written at once).
fn start() {
    clock::init();
    FLAGS.untimed.store(sink::get().is_some_and(|s| !s.timed), Ordering::Relaxed);
    if !sink::writer_running() {
        FLAGS.sync.store(true, Ordering::Relaxed);
    }
}

/// Turn tracing on or off at run time (e.g. from Python). Turning it on when the environment
/// did not configure a destination traces to stderr in text format.
pub fn set_active(on: bool) {
    if on {
        sink::get_or_stderr();
        start();
    }
    FLAGS.state.store(if on { ON } else { OFF }, Ordering::Relaxed);
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

/// How the writer shows one recorded word (see [`Desc`]).
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A signed integer (the word is the value sign-extended).
    I64,
    U64,
    /// The word is the bits of an `f64`.
    F64,
    Hex,
    Ptr,
    Size,
    /// Zero is `false`.
    Bool,
    /// An enum value, named by the `Desc`'s decoder at this index (`CUresult::trace_name`).
    Enum(u8),
    /// A C string: the word is its pointer; the string itself is copied at the call.
    Str,
    /// No value (a `void` result).
    Void,
}

/// One argument of a [`Desc`] (3 bytes, no pointer: the tables need no relocations).
#[derive(Clone, Copy, Debug)]
pub struct Arg {
    kind: Kind,
    /// The argument points at one output value: when the call wrote it (the call's `written`
    /// bit), the word is that value shown as `kind`; else it is the pointer.
    out: bool,
}

impl Arg {
    pub const fn new(kind: Kind) -> Arg {
        Arg { kind, out: false }
    }

    /// An output value (see [`Arg`]).
    pub const fn out(kind: Kind) -> Arg {
        Arg { kind, out: true }
    }
}

/// An enum's decoder: the C name of a value.
pub type EnumName = fn(i64) -> Option<&'static str>;

/// A traced function's static description: its name and its arguments' names (one string,
/// comma separated), how to show each argument's word and the result's, and the decoders of the
/// enums they name. A call records only the address of its `Desc`, two stamps and one word per
/// argument (plus copies of C strings); the writer thread decodes them with it.
#[derive(Debug)]
pub struct Desc {
    /// `"cuDeviceGetAttribute,pi,attrib,dev"`.
    names: &'static str,
    /// Bytes of the function's name in `names`.
    name_len: u16,
    args: &'static [Arg],
    result: Kind,
    enums: &'static [EnumName],
    /// Arguments and result of kind [`Kind::Str`].
    strings: u16,
    /// Bytes a call can take in the buffer at most.
    max_len: u32,
    /// Bytes every call takes when the function has no C string (its record is reserved before
    /// the library call: see [`open`]); 0 when it has.
    fixed_len: u32,
    /// `CUDAGEN_TRACE_ONLY` decided for this function: 0 not yet, 1 traced, 2 filtered out.
    wanted: AtomicU8,
}

impl Desc {
    /// `names`: the function's name, then the arguments' names, comma separated
    /// (`"cuDeviceGetAttribute,pi,attrib,dev"`).
    pub const fn new(names: &'static str, args: &'static [Arg], result: Kind, enums: &'static [EnumName]) -> Desc {
        let mut name_len = 0;
        while name_len < names.len() && names.as_bytes()[name_len] != b',' {
            name_len += 1;
        }
        let mut strings = matches!(result, Kind::Str) as u16;
        let mut i = 0;
        while i < args.len() {
            strings += matches!(args[i].kind, Kind::Str) as u16;
            i += 1;
        }
        let fixed_len = buffer::words_len(args.len() + 1);
        let max_len = fixed_len + strings as usize * buffer::STR_BYTES + 7;
        let fixed_len = if strings == 0 { fixed_len as u32 } else { 0 };
        Desc { names, name_len: name_len as u16, args, result, enums, strings, max_len: max_len as u32, fixed_len, wanted: AtomicU8::new(0) }
    }

    /// The function's name.
    fn name(&self) -> &'static str {
        self.names.get(..self.name_len as usize).unwrap_or(self.names)
    }

    /// The arguments' names.
    fn arg_names(&self) -> impl Iterator<Item = &'static str> {
        self.names.get(self.name_len as usize + 1..).unwrap_or("").split(',')
    }
}

/// A stamp for [`end`] (TSC ticks or nanoseconds; converted on the writer thread).
#[inline(always)]
pub fn begin() -> u64 {
    clock::now()
}

/// What a traced call takes before it calls the library (from [`open`] or [`enter`]).
#[derive(Clone, Copy)]
pub struct Entered {
    start: u64,
    /// The thread's buffer, or null.
    local: *mut buffer::Local,
    /// The call's record, reserved and half written by [`open`]; `None` when the call is
    /// recorded after it returns instead (see [`finish`]).
    open: Option<buffer::Open>,
}

/// Starts a traced call whose record is written after it returns (the loader's failures).
#[inline(always)]
pub fn enter() -> Entered {
    Entered { start: clock::now(), local: current::get(), open: None }
}

/// Starts a traced call of `desc`. In the common case (tracing to the thread's buffer, TSC
/// stamps, the function wanted and without C strings, no other traced call open on the thread)
/// the call's record is reserved in the buffer and its name and start written now, so that once
/// the library returns only stores remain ([`finish`]): a call as long as a launch evicts the
/// lines the tracer reads, and reading them after it (flags, the function's description, the
/// thread's buffer) cost more than the stores. Anything else is left to [`capture`].
#[inline(always)]
pub fn open(desc: &'static Desc) -> Entered {
    let start = clock::now();
    let local = current::get();
    let fast = !FLAGS.sync.load(Ordering::Relaxed) && FLAGS.tsc.load(Ordering::Relaxed) && desc.wanted.load(Ordering::Relaxed) == 1;
    let timed = !FLAGS.untimed.load(Ordering::Relaxed);
    // SAFETY: `local` is this thread's buffer (or null).
    let open = if fast { unsafe { buffer::reserve(local, desc, start, timed) } } else { None };
    Entered { start, local, open }
}

/// Records a call of `desc` that started at `entered` and just returned. `words` gives one word
/// per argument, then the result's, and the `written` mask: bit `i` is set when argument `i` is
/// an output the call wrote (its word is then the value). A call reserved by [`open`] is
/// completed with stores only (end stamp, words, publication); any other goes to [`capture`].
/// `words` runs in each branch, so the first keeps the words in registers (no copy through the
/// stack, which [`capture`]'s reference needs). Never unwinds.
///
/// # Safety
/// As [`capture`]; `entered` comes from [`open`] or [`enter`] on this thread, and is finished
/// once.
#[inline(always)]
pub unsafe fn finish<const N: usize>(desc: &'static Desc, entered: Entered, words: impl Fn() -> ([u64; N], u64)) {
    match entered.open {
        Some(open) => {
            let end = if open.timed { clock::tsc() } else { entered.start };
            let (words, written) = words();
            buffer::close(open, end, &words, written)
        }
        None => {
            let (words, written) = words();
            capture(desc, entered, &words, written)
        }
    }
}

/// Records a call of `desc` that started at `entered` and just returned, when no record was
/// reserved for it (see [`finish`]). The end stamp is read once the call is known to have room
/// in the buffer (a dropped call reads none). Never unwinds (a panic would cross the C boundary
/// of the raw functions): one monomorphic copy per argument count, shared by every function with
/// that many words.
///
/// # Safety
/// A word of kind [`Kind::Str`] is NULL or points at a NUL-terminated string.
#[inline(never)]
unsafe fn capture<const N: usize>(desc: &'static Desc, entered: Entered, words: &[u64; N], written: u64) {
    // The lines this reads were likely evicted by the call: ask for all of them at once.
    buffer::prefetch_read(desc as *const Desc as *const u8);
    buffer::prefetch_read(&FLAGS as *const Flags as *const u8);
    buffer::prefetch_read(entered.local as *const u8);
    let start = entered.start;
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if FLAGS.sync.load(Ordering::Relaxed) || desc.wanted.load(Ordering::Relaxed) != 1 {
            return capture_cold(desc, start, words, written);
        }
        store(entered.local, desc, start, words, written);
    }));
}

/// Appends the call to the thread's buffer `l` (waking the writer when a chunk was handed over),
/// or writes it at once when the thread has no buffer.
#[inline(always)]
unsafe fn store<const N: usize>(l: *mut buffer::Local, desc: &'static Desc, start: u64, words: &[u64; N], written: u64) {
    match buffer::push(l, desc, start, words, written) {
        buffer::Pushed::Stored => {}
        buffer::Pushed::Handed => sink::wake(),
        buffer::Pushed::Unbuffered => write_now(desc, start, words, written),
    }
}

#[cold]
#[inline(never)]
unsafe fn capture_cold<const N: usize>(desc: &'static Desc, start: u64, words: &[u64; N], written: u64) {
    if !active() {
        return;
    }
    let Some(s) = sink::get() else { return };
    if desc.wanted.load(Ordering::Relaxed) == 0 {
        desc.wanted.store(if s.filter.wants(desc.name()) { 1 } else { 2 }, Ordering::Relaxed);
    }
    if desc.wanted.load(Ordering::Relaxed) != 1 {
        return;
    }
    if FLAGS.sync.load(Ordering::Relaxed) {
        return write_now(desc, start, words, written);
    }
    store(current::get(), desc, start, words, written)
}

/// Formats and writes one call at once (after the exit hook, without a writer thread, or on a
/// thread whose buffer is gone).
#[cold]
unsafe fn write_now<const N: usize>(desc: &'static Desc, start: u64, words: &[u64; N], written: u64) {
    let end = clock::end(start);
    let Some(s) = sink::get() else { return };
    let mut rec = vec![0u64; desc.max_len as usize / 8 + 1];
    let base = rec.as_mut_ptr() as *mut u8;
    let len = buffer::encode(desc, start, end, words, written, base) as usize - base as usize;
    let bytes = core::slice::from_raw_parts(base, len);
    let k = clock::scale();
    for mut ev in buffer::Reader::new(bytes) {
        ev.start_ns = clock::since_epoch_ns(ev.start_ns, k);
        ev.dur_ns = clock::duration_ns(ev.dur_ns, k);
        s.write_sync(sink::tid(), &ev);
    }
}

/// Records a call that started at `start` (from [`begin`]) and just returned `result`, with
/// arguments given as values (functions without a [`Desc`]).
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
    if !FLAGS.sync.load(Ordering::Relaxed) {
        match buffer::push_values(function, args, result, start, dur) {
            buffer::Pushed::Stored => return,
            buffer::Pushed::Handed => return sink::wake(),
            buffer::Pushed::Unbuffered => {}
        }
    }
    let k = clock::scale();
    let ev = buffer::Event {
        function,
        start_ns: clock::since_epoch_ns(start, k),
        dur_ns: clock::duration_ns(dur, k),
        args: args.to_vec(),
        result,
    };
    s.write_sync(sink::tid(), &ev);
}

/// A status enum other than its success value (0: `CUDA_SUCCESS`, `NVRTC_SUCCESS`).
fn failed(result: &Value<'_>) -> bool {
    matches!(result, Value::Enum { value, .. } if *value != 0)
}
