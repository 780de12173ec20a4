//! Trace destination and options (from the environment, read once), the exit hook and the
//! kernel thread id.

use super::config::{self, Filter, Format};
use std::cell::Cell;
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// Where trace lines go and what is traced; one mutex makes each line atomic.
pub(super) struct Sink {
    pub(super) format: Format,
    pub(super) filter: Filter,
    /// `CUDAGEN_TRACE_ERRORS=1`: only calls whose status is not success get a line.
    pub(super) errors_only: bool,
    /// `CUDAGEN_TRACE_SUMMARY=1`: per-function statistics printed at exit.
    pub(super) summary: bool,
    /// Lines are written (false for a summary-only configuration).
    pub(super) lines: bool,
    /// Time zero of Perfetto timestamps.
    pub(super) epoch: Instant,
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
            epoch: Instant::now(),
            out: Mutex::new(BufWriter::new(w)),
        };
        if lines && format == Format::Perfetto {
            s.write_line(b"[\n");
        }
        at_exit();
        s
    }

    /// Write and flush one line; errors are ignored.
    pub(super) fn write_line(&self, line: &[u8]) {
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let _ = w.write_all(line);
        let _ = w.flush();
    }

    /// At exit: closes the Perfetto array and prints the summary.
    fn finish(&self) {
        if self.lines && self.format == Format::Perfetto {
            let end = format!(
                "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":\"cudagen trace\"}}}}\n]\n",
                std::process::id()
            );
            self.write_line(end.as_bytes());
        }
        if self.summary {
            let _ = std::io::stderr().write_all(super::summary::render().as_bytes());
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

fn from_env() -> Option<Sink> {
    let trace = config::var("CUDAGEN_TRACE");
    let file = config::var("CUDAGEN_TRACE_FILE");
    let summary = config::flag("CUDAGEN_TRACE_SUMMARY");
    let path = match trace.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some("0" | "false" | "off") => return summary.then(|| Sink::new(Format::Text, false, Box::new(std::io::sink()))),
        Some("1" | "true" | "on") => file,
        Some(_) => trace, // any other value is a path
        None if file.is_none() => {
            return summary.then(|| Sink::new(Format::Text, false, Box::new(std::io::sink())));
        }
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

/// Registers (once) the C `atexit` hook that finishes the sinks: it runs at `exit()` and at
/// the end of `main`, before the C runtime tears the process down.
fn at_exit() {
    extern "C" {
        fn atexit(f: extern "C" fn()) -> core::ffi::c_int;
    }
    extern "C" fn finish() {
        let _ = std::panic::catch_unwind(|| {
            if let Some(Some(s)) = CONFIGURED.get() {
                s.finish();
            }
            if let Some(s) = FALLBACK.get() {
                s.finish();
            }
        });
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: `finish` is a plain C-ABI function of this library, which is never unloaded.
    ONCE.call_once(|| unsafe {
        atexit(finish);
    });
}

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
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    })
}
