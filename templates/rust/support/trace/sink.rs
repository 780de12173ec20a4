//! Trace destination (from the environment, read once) and the kernel thread id.

use std::cell::Cell;
use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::sync::{Mutex, OnceLock};

/// Where trace lines go; one mutex makes each line atomic.
pub(super) struct Sink {
    pub(super) json: bool,
    out: Mutex<BufWriter<Box<dyn Write + Send>>>,
}

impl Sink {
    fn new(json: bool, w: Box<dyn Write + Send>) -> Self {
        Sink {
            json,
            out: Mutex::new(BufWriter::new(w)),
        }
    }

    /// Write and flush one line; errors are ignored.
    pub(super) fn write_line(&self, line: &[u8]) {
        let mut w = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let _ = w.write_all(line);
        let _ = w.flush();
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
    configured().unwrap_or_else(|| {
        FALLBACK.get_or_init(|| Sink::new(json_env(), Box::new(std::io::stderr())))
    })
}

fn var(name: &str) -> Option<String> {
    std::env::var_os(name)
        .map(|v| v.to_string_lossy().trim().to_owned())
        .filter(|v| !v.is_empty())
}

fn json_env() -> bool {
    var("CUDAGEN_TRACE_FORMAT").is_some_and(|f| f.eq_ignore_ascii_case("json"))
}

fn from_env() -> Option<Sink> {
    let trace = var("CUDAGEN_TRACE");
    let file = var("CUDAGEN_TRACE_FILE");
    let path = match trace.as_deref().map(str::to_ascii_lowercase).as_deref() {
        Some("0" | "false" | "off") => return None,
        Some("1" | "true" | "on") => file,
        Some(_) => trace, // any other value is a path
        None => Some(file?),
    };
    let json = json_env();
    if let Some(p) = path {
        match OpenOptions::new().create(true).append(true).open(&p) {
            Ok(f) => return Some(Sink::new(json, Box::new(f))),
            Err(e) => {
                let msg = format!("[cudagen] cannot open trace file {p}: {e}; tracing to stderr\n");
                let _ = std::io::stderr().write_all(msg.as_bytes());
            }
        }
    }
    Some(Sink::new(json, Box::new(std::io::stderr())))
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
    let from_proc = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name()?.to_str()?.parse::<u64>().ok());
    from_proc.unwrap_or_else(|| {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        NEXT.fetch_add(1, Ordering::Relaxed)
    })
}
