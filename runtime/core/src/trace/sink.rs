//! Trace destination and options (from the environment, read once), the writer thread that
//! formats and writes what [`super::buffer`] captured, the exit hook and the kernel thread id.
//!
//! The writer wakes when a thread hands over a full chunk, else every 50 ms; it reads the
//! threads' current (not yet full) chunks at most every 50 ms, so a busy thread's chunk stays
//! in its own cache while it fills it.
//! At exit (a destructor of this library, which runs after the program's `atexit` handlers and
//! the destructors of libraries that use it) everything pending is written, the Perfetto array
//! is closed and the summary printed; calls traced after that are written at once.

use super::buffer::{self, Reader};
use super::config::{self, Filter, Format};
use super::names::{self, Names};
use super::{format, summary};
use std::cell::Cell;
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

/// Where trace lines go and what is traced.
pub(super) struct Sink {
    pub(super) format: Format,
    pub(super) filter: Filter,
    /// `CUDAGEN_TRACE_ERRORS=1`: only calls whose status is not success get a line.
    errors_only: bool,
    /// `CUDAGEN_TRACE_SUMMARY=1`: per-function statistics printed at exit.
    summary: bool,
    /// Lines are written (false for a summary-only configuration).
    lines: bool,
    /// Calls have durations (`CUDAGEN_TRACE_DURATIONS` is not off).
    pub(super) timed: bool,
    /// Launches record their kernel arguments (`CUDAGEN_TRACE_ARGS=1`).
    pub(super) args: bool,
    /// Set once the exit hook ran: later calls are written synchronously.
    finished: AtomicBool,
    out: Mutex<BufWriter<Box<dyn Write + Send>>>,
}

impl Sink {
    fn new(format: Format, lines: bool, w: Box<dyn Write + Send>) -> Self {
        let s = Sink {
            format,
            filter: config::var("CUDAGEN_TRACE_ONLY").map(|f| Filter::parse(&f)).unwrap_or_default(),
            errors_only: config::flag("CUDAGEN_TRACE_ERRORS"),
            summary: config::flag("CUDAGEN_TRACE_SUMMARY"),
            lines,
            timed: config::durations(),
            args: config::flag("CUDAGEN_TRACE_ARGS"),
            finished: AtomicBool::new(false),
            out: Mutex::new(BufWriter::with_capacity(1 << 16, w)),
        };
        if lines && format == Format::Perfetto {
            s.write_now(b"[\n");
        }
        super::signals::install();
        s
    }

    fn write_now(&self, line: &[u8]) {
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let _ = w.write_all(line);
        let _ = w.flush();
    }

    pub(super) fn finished(&self) -> bool {
        self.finished.load(Ordering::Relaxed)
    }

    /// One event formatted and written at once (after the exit hook, without a writer thread,
    /// from a callback inside another traced call). Perfetto's array is closed by the exit hook:
    /// after it, only text and JSON lines are written.
    pub(super) fn write_sync(&self, tid: u64, ev: &buffer::Event<'_>) {
        let mut line = Vec::with_capacity(256);
        {
            // Not waited for: a drain holding the names may be inside a driver query while this
            // call runs inside a driver callback (its handles then show unnamed).
            let mut held = names::NAMES.try_lock().ok();
            let mut spare = Names::default();
            let names = match held.as_deref_mut() {
                Some(n) => n.get_or_insert_with(Names::default),
                None => &mut spare,
            };
            // Not asked of the driver here: this may run inside a driver callback or after exit.
            names.observe(ev, false);
            if self.summary && !self.finished() {
                summary::add(names, ev);
            }
            if !self.lines || !self.wants_line(ev) {
                return;
            }
            format::event(self.format, self.timed, tid, ev, names, &mut line);
        }
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        if self.format != Format::Perfetto || !self.finished() {
            let _ = w.write_all(&line);
            let _ = w.flush();
        }
    }

    fn wants_line(&self, ev: &buffer::Event<'_>) -> bool {
        !self.errors_only || super::failed(&ev.result)
    }

    /// Formats and writes what the threads captured (with `current`, also the calls in their
    /// current chunks). `try_only` (signal handlers) skips locks that are held instead of waiting.
    fn drain(&self, try_only: bool, current: bool) {
        let mut w = if try_only {
            match self.out.try_lock() {
                Ok(w) => w,
                Err(_) => return,
            }
        } else {
            self.out.lock().unwrap_or_else(|p| p.into_inner())
        };
        let (summary, lines, format, timed) = (self.summary && !try_only, self.lines, self.format, self.timed);
        let k = super::clock::scale();
        // Lines are formatted into one buffer and written in large pieces.
        let mut text = Vec::with_capacity(1 << 16);
        // A signal handler does not wait for the names (nor asks the driver for any).
        let mut held =
            if try_only { names::NAMES.try_lock().ok() } else { Some(names::NAMES.lock().unwrap_or_else(|p| p.into_inner())) };
        let mut spare = Names::default();
        let names = match held.as_deref_mut() {
            Some(n) => n.get_or_insert_with(Names::default),
            None => &mut spare,
        };
        buffer::drain(try_only, current, |pending| {
            // Every pending call's names first, so that a handle made on one thread is named
            // where another thread uses it, whatever the order of their chunks.
            for (_, bytes) in pending {
                let mut r = Reader::new(bytes);
                while let Some(ev) = r.next_learning() {
                    names.learn(&ev);
                }
            }
            for &(tid, bytes) in pending {
                for mut ev in Reader::new(bytes) {
                    ev.start_ns = super::clock::since_epoch_ns(ev.start_ns, k);
                    ev.dur_ns = super::clock::duration_ns(ev.dur_ns, k);
                    names.observe(&ev, !try_only);
                    if summary {
                        summary::add(names, &ev);
                    }
                    if lines && self.wants_line(&ev) {
                        format::event(format, timed, tid, &ev, names, &mut text);
                        if text.len() >= 1 << 15 {
                            let _ = w.write_all(&text);
                            text.clear();
                        }
                    }
                }
            }
        });
        let _ = w.write_all(&text);
        let dropped = buffer::DROPPED.0.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            let _ = w.write_all(format::dropped(self.format, dropped).as_bytes());
        }
        let _ = w.flush();
    }

    /// At exit: writes everything pending, closes the Perfetto array, prints the summary.
    fn finish(&self) {
        if self.finished.swap(true, Ordering::AcqRel) {
            return;
        }
        // Calls from now on are written at once.
        super::FLAGS.sync.store(true, Ordering::Relaxed);
        self.drain(false, true);
        if self.lines && self.format == Format::Perfetto {
            self.write_now(format::perfetto_end().as_bytes());
        }
        if self.summary {
            let names = names::NAMES.lock().unwrap_or_else(|p| p.into_inner());
            let text = summary::render(self.timed, names.as_ref().unwrap_or(&Names::default()));
            drop(names);
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
}

static CONFIGURED: OnceLock<Option<Sink>> = OnceLock::new();
static FALLBACK: OnceLock<Sink> = OnceLock::new();

/// The sink configured by the environment, if tracing is enabled there.
pub(super) fn configured() -> Option<&'static Sink> {
    CONFIGURED.get_or_init(from_env).as_ref()
}

/// The active sink: the configured one, else the stderr one made by `get_or_stderr`.
pub(super) fn get() -> Option<&'static Sink> {
    configured().or_else(|| FALLBACK.get())
}

pub(super) fn get_or_stderr() -> &'static Sink {
    configured().unwrap_or_else(|| FALLBACK.get_or_init(|| Sink::new(config::format(), true, Box::new(std::io::stderr()))))
}

fn sinks() -> impl Iterator<Item = &'static Sink> {
    CONFIGURED.get().and_then(Option::as_ref).into_iter().chain(FALLBACK.get())
}

fn from_env() -> Option<Sink> {
    let trace = config::var("CUDAGEN_TRACE");
    let file = config::var("CUDAGEN_TRACE_FILE");
    let summary_only =
        || config::flag("CUDAGEN_TRACE_SUMMARY").then(|| Sink::new(Format::Text, false, Box::new(std::io::sink())));
    let path = match trace.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some("0" | "false" | "off") => return summary_only(),
        Some("1" | "true" | "on") => file,
        Some(_) => trace, // any other value is a path
        None if file.is_none() => return summary_only(),
        None => file,
    };
    let format = config::format();
    if let Some(p) = path {
        // A Perfetto file is one JSON document: truncate rather than append.
        let mut o = OpenOptions::new();
        if format == Format::Perfetto {
            o.create(true).write(true).truncate(true);
        } else {
            o.create(true).append(true);
        }
        match o.open(&p) {
            Ok(f) => return Some(Sink::new(format, true, Box::new(f))),
            Err(e) => {
                let msg = format!("[cudagen] cannot open trace file {p}: {e}; tracing to stderr\n");
                let _ = std::io::stderr().write_all(msg.as_bytes());
            }
        }
    }
    Some(Sink::new(format, true, Box::new(std::io::stderr())))
}

static WAKE: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// Starts the writer thread (once). False if it could not be started: the caller then writes
/// synchronously.
pub(super) fn writer_running() -> bool {
    static STARTED: OnceLock<bool> = OnceLock::new();
    *STARTED.get_or_init(|| std::thread::Builder::new().name("cudagen-trace".into()).spawn(writer).is_ok())
}

/// A value alone on its cache line.
#[repr(align(64))]
struct Line<T>(T);

/// A wake-up is on its way (one notification per drain, not one per call).
static WAKING: Line<AtomicBool> = Line(AtomicBool::new(false));

/// Asks the writer to drain its queue of full chunks now.
#[cold]
pub(super) fn wake() {
    if WAKING.0.swap(true, Ordering::Relaxed) {
        return;
    }
    let (m, c) = &WAKE;
    if let Ok(mut pending) = m.try_lock() {
        *pending = true;
        c.notify_one();
    }
}

fn writer() {
    const TICK: Duration = Duration::from_millis(50);
    let (m, c) = &WAKE;
    let mut last = std::time::Instant::now();
    loop {
        {
            let g = m.lock().unwrap_or_else(|p| p.into_inner());
            let (mut g, _) = c.wait_timeout_while(g, TICK, |p| !*p).unwrap_or_else(|p| p.into_inner());
            *g = false;
        }
        WAKING.0.store(false, Ordering::Relaxed);
        let current = last.elapsed() >= TICK;
        if current {
            last = std::time::Instant::now();
        }
        let _ = std::panic::catch_unwind(|| {
            for s in sinks() {
                if !s.finished() {
                    s.drain(false, current);
                }
            }
        });
    }
}

/// Formats and writes what is pending now, on the calling thread (before a call that may free
/// handles whose names are still to be asked of the driver).
pub(super) fn drain_now() {
    for s in sinks() {
        if !s.finished() {
            s.drain(false, true);
        }
    }
}

/// Writes what is pending without waiting for locks (from a signal handler).
pub(super) fn flush_from_signal() {
    for s in sinks() {
        s.drain(true, true);
    }
}

extern "C" fn finish_all() {
    let _ = std::panic::catch_unwind(|| sinks().for_each(Sink::finish));
}

/// The exit hook: a destructor of this library (ELF `.fini_array`).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".fini_array"]
static FINI: extern "C" fn() = finish_all;

/// Kernel thread id (`gettid`), read once per thread from `/proc/thread-self` (Linux 3.17+;
/// no `extern` block or per-arch syscall numbers); a per-process counter where unavailable.
pub(super) fn tid() -> u64 {
    thread_local!(static TID: Cell<u64> = const { Cell::new(0) });
    TID.try_with(|c| {
        if c.get() == 0 {
            c.set(gettid());
        }
        c.get()
    })
    .unwrap_or(0)
}

fn gettid() -> u64 {
    // The link reads "<pid>/task/<tid>".
    let from_proc = std::fs::read_link("/proc/thread-self").ok().and_then(|p| p.file_name()?.to_str()?.parse::<u64>().ok());
    from_proc.unwrap_or_else(|| {
        use std::sync::atomic::AtomicU64;
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    })
}
