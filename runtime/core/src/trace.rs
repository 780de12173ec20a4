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
//! * `CUDAGEN_TRACE_ARGS=1` also records the values of each launch's kernel arguments (copied
//!   on the calling thread at the call, sized by the kernel's parameter info), shown as hex words
//!   or as device pointers (`dev:0x...`) where a word is inside an allocation the trace saw.
//!
//! Handles are shown by name where the trace knows one: functions and kernels by the name they
//! were looked up with (C++ names demangled), with their module or library (`saxpy
//! [data@1a2b3c4d]`: file name, or a hash of an image loaded from memory); the names come from
//! the traced calls that made the handles and, for handles made otherwise (the CUDA runtime's
//! own loading), from the driver's name queries, made once per handle on the writer thread.
//! Streams, events, contexts and graphs get short ids in the order first seen
//! (`stream#3(0x55d0c1a0)`). The summary has a section per kernel and per launched graph.
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

mod args;
mod buffer;
mod clock;
mod config;
mod current;
mod driver;
mod format;
mod names;
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
    /// Launches record their kernel arguments (`CUDAGEN_TRACE_ARGS=1`).
    args: AtomicBool,
}

static FLAGS: Flags = Flags {
    state: AtomicU8::new(UNKNOWN),
    sync: AtomicBool::new(false),
    tsc: AtomicBool::new(false),
    untimed: AtomicBool::new(false),
    args: AtomicBool::new(false),
};

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
    FLAGS.args.store(sink::get().is_some_and(|s| s.args), Ordering::Relaxed);
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
    /// A driver object the trace names or numbers (see [`Class`]).
    Handle {
        class: Class,
        addr: u64,
    },
    /// A module image in memory, by a hash of its bytes (`data@1a2b3c4d`).
    Image(u64),
    /// A launch's kernel arguments as recorded (`CUDAGEN_TRACE_ARGS=1`; see `args`), and the
    /// pointer they were read through (shown instead when their sizes were not known).
    Args {
        ptr: u64,
        blob: &'a [u8],
    },
}

/// The kinds of driver objects the tracer names (functions, kernels, modules, libraries) or
/// numbers in first-seen order (streams, events, graphs, contexts); device pointers it learns
/// from allocations. Which C types are which is the generator's (`[trace.handles]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Class {
    Function,
    Kernel,
    Module,
    Library,
    Stream,
    Event,
    Graph,
    GraphExec,
    GraphNode,
    Context,
    DevicePtr,
}

impl Class {
    const ALL: [Class; 11] = [
        Class::Function,
        Class::Kernel,
        Class::Module,
        Class::Library,
        Class::Stream,
        Class::Event,
        Class::Graph,
        Class::GraphExec,
        Class::GraphNode,
        Class::Context,
        Class::DevicePtr,
    ];

    fn from_u8(x: u8) -> Option<Class> {
        Class::ALL.get(usize::from(x)).copied()
    }
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
    /// A handle of a [`Class`] (its address or integer value).
    Handle(Class),
    /// A module image in memory: the word is its pointer; a hash of its bytes is taken at the
    /// call (when it succeeded).
    Image,
    /// A launch's `kernelParams`: with `CUDAGEN_TRACE_ARGS=1` the argument values are copied at
    /// the call, sized by the parameter info of the function the `Desc` launches.
    KernelParams,
    /// A launch's `extra` array: with `CUDAGEN_TRACE_ARGS=1` its argument buffer is copied.
    LaunchExtra,
}

/// One argument of a [`Desc`] (4 bytes, no pointer: the tables need no relocations).
#[derive(Clone, Copy, Debug)]
pub struct Arg {
    kind: Kind,
    /// The argument points at one output value: when the call wrote it (the call's `written`
    /// bit), the word is that value shown as `kind`; else it is the pointer.
    out: bool,
    /// [`Arg::launched`], [`Arg::frees`] (0: neither).
    role: u8,
}

const LAUNCHED: u8 = 1;
const FREES: u8 = 2;

impl Arg {
    pub const fn new(kind: Kind) -> Arg {
        Arg { kind, out: false, role: 0 }
    }

    /// An output value (see [`Arg`]).
    pub const fn out(kind: Kind) -> Arg {
        Arg { kind, out: true, role: 0 }
    }

    /// The function or graph the call launches (the summary counts launches by it, Perfetto
    /// names the slice after it).
    pub const fn launched(self) -> Arg {
        Arg { role: LAUNCHED, ..self }
    }

    /// The call may free handles (unload a module, destroy a context): names the trace has not
    /// resolved yet are resolved before the call, while the handles are still valid.
    pub const fn frees(self) -> Arg {
        Arg { role: FREES, ..self }
    }
}

/// An enum's decoder: the C name of a value.
pub type EnumName = fn(i64) -> Option<&'static str>;

/// A traced function's static description: its name and its arguments' names (one string,
/// comma separated), how to show each argument's word and the result's, and the decoders of the
/// enums they name. A call records only the address of its `Desc`, two stamps and one word per
/// argument (plus copies of C strings, image hashes and kernel arguments); the writer thread
/// decodes them with it.
#[derive(Debug)]
pub struct Desc {
    /// `"cuDeviceGetAttribute,pi,attrib,dev"`.
    names: &'static str,
    /// Bytes of the function's name in `names`.
    name_len: u16,
    args: &'static [Arg],
    result: Kind,
    enums: &'static [EnumName],
    /// Arguments and result whose record carries more than their word: [`Kind::Str`] (a copy of
    /// the string), [`Kind::Image`] (a hash of the image).
    extras: u16,
    /// It has a [`Kind::KernelParams`] or [`Kind::LaunchExtra`] argument (recorded with
    /// `CUDAGEN_TRACE_ARGS=1` only).
    launch_args: bool,
    /// The writer learns names, parents or allocations from its calls (an output handle of a
    /// named or parented class, a device pointer, an image).
    learns: bool,
    /// An argument is [`Arg::frees`].
    frees: bool,
    /// The index of the [`Arg::launched`] argument, [`NONE`] if none.
    launched: u8,
    /// The index of its first [`Class::Function`] argument (whose parameter info sizes the
    /// kernel arguments), [`NONE`] if none.
    function: u8,
    /// The index of the first of six `U64` arguments in a row after the launched one (a launch's
    /// grid and block dimensions), [`NONE`] if none.
    shape: u8,
    /// Bytes a call can take in the buffer at most.
    max_len: u32,
    /// Bytes every call takes when the function has no extras (its record is reserved before the
    /// library call: see [`open`]); 0 when it has.
    fixed_len: u32,
    /// The filter's and the options' decision for this function (`WANT_*`).
    wanted: AtomicU8,
}

/// No such argument (see [`Desc`]).
const NONE: u8 = u8::MAX;

/// [`Desc::wanted`]: not decided yet; traced, its record reserved before the call when it can
/// be; filtered out; traced through [`capture`] (its kernel arguments are copied); traced through
/// [`capture`], pending names resolved before the call ([`Arg::frees`]).
const WANT_UNKNOWN: u8 = 0;
const WANT_FAST: u8 = 1;
const WANT_NOT: u8 = 2;
const WANT_ARGS: u8 = 3;
const WANT_FREES: u8 = 4;

impl Desc {
    /// `names`: the function's name, then the arguments' names, comma separated
    /// (`"cuDeviceGetAttribute,pi,attrib,dev"`).
    pub const fn new(names: &'static str, args: &'static [Arg], result: Kind, enums: &'static [EnumName]) -> Desc {
        let mut name_len = 0;
        while name_len < names.len() && names.as_bytes()[name_len] != b',' {
            name_len += 1;
        }
        let mut extras = matches!(result, Kind::Str | Kind::Image) as u16;
        let mut images = 0;
        let (mut launch_args, mut learns, mut frees) = (false, false, false);
        let (mut launched, mut function, mut shape) = (NONE, NONE, NONE);
        let mut i = 0;
        while i < args.len() {
            let a = args[i];
            extras += matches!(a.kind, Kind::Str | Kind::Image) as u16;
            images += matches!(a.kind, Kind::Image) as usize;
            launch_args |= matches!(a.kind, Kind::KernelParams | Kind::LaunchExtra);
            learns |= matches!(a.kind, Kind::Image)
                || a.out
                    && matches!(
                        a.kind,
                        Kind::Handle(
                            Class::Function
                                | Class::Kernel
                                | Class::Module
                                | Class::Library
                                | Class::DevicePtr
                                | Class::GraphExec
                                | Class::GraphNode
                        )
                    );
            frees |= a.role == FREES;
            if a.role == LAUNCHED && launched == NONE {
                launched = i as u8;
            }
            if function == NONE && !a.out && matches!(a.kind, Kind::Handle(Class::Function)) {
                function = i as u8;
            }
            if shape == NONE && launched != NONE && i + 6 <= args.len() {
                let mut k = 0;
                while k < 6 && matches!(args[i + k].kind, Kind::U64) {
                    k += 1;
                }
                if k == 6 {
                    shape = i as u8;
                }
            }
            i += 1;
        }
        let fixed_len = buffer::words_len(args.len() + 1);
        let strings = extras as usize - images;
        let max_len = fixed_len + strings * buffer::STR_BYTES + images * 8 + if launch_args { args::MAX_BYTES } else { 0 } + 7;
        let fixed_len = if extras == 0 { fixed_len as u32 } else { 0 };
        Desc {
            names,
            name_len: name_len as u16,
            args,
            result,
            enums,
            extras,
            launch_args,
            learns,
            frees,
            launched,
            function,
            shape,
            max_len: max_len as u32,
            fixed_len,
            wanted: AtomicU8::new(WANT_UNKNOWN),
        }
    }

    /// Whether a call's record carries extras after its words (see [`Desc::extras`]).
    fn has_extras(&self) -> bool {
        self.extras != 0 || self.launch_args && FLAGS.args.load(Ordering::Relaxed)
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
    let wanted = desc.wanted.load(Ordering::Relaxed);
    let fast = !FLAGS.sync.load(Ordering::Relaxed) && FLAGS.tsc.load(Ordering::Relaxed) && wanted == WANT_FAST;
    let timed = !FLAGS.untimed.load(Ordering::Relaxed);
    let open = if fast {
        // SAFETY: `local` is this thread's buffer (or null).
        unsafe { buffer::reserve(local, desc, start, timed) }
    } else {
        if wanted == WANT_UNKNOWN || wanted == WANT_FREES {
            return Entered { start: before_call(desc, start), local, open: None };
        }
        None
    };
    Entered { start, local, open }
}

/// The first call of `desc` decides what is traced of it; before a call that may free handles
/// ([`Arg::frees`]) what is pending is written, so that names not yet known are asked of the
/// driver while the handles are valid. Returns the call's start (stamped again after that).
#[cold]
#[inline(never)]
fn before_call(desc: &'static Desc, start: u64) -> u64 {
    let Some(s) = sink::get() else { return start };
    let _ = std::panic::catch_unwind(|| decide(desc, s));
    if desc.wanted.load(Ordering::Relaxed) != WANT_FREES || FLAGS.sync.load(Ordering::Relaxed) {
        return start;
    }
    let _ = std::panic::catch_unwind(sink::drain_now);
    clock::now()
}

/// Decides once what is traced of `desc` ([`Desc::wanted`]).
fn decide(desc: &'static Desc, s: &sink::Sink) {
    if desc.wanted.load(Ordering::Relaxed) != WANT_UNKNOWN {
        return;
    }
    let w = if !s.filter.wants(desc.name()) {
        WANT_NOT
    } else if desc.frees {
        WANT_FREES
    } else if desc.launch_args && s.args {
        WANT_ARGS
    } else {
        WANT_FAST
    };
    desc.wanted.store(w, Ordering::Relaxed);
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
        if FLAGS.sync.load(Ordering::Relaxed) || desc.wanted.load(Ordering::Relaxed) != WANT_FAST {
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
    decide(desc, s);
    if desc.wanted.load(Ordering::Relaxed) == WANT_NOT {
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
        desc: None,
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
