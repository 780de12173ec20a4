//! Stand-in call tracer (the real one lands from the `loader` branch): `CUDAGEN_TRACE=1` logs
//! every call to stderr, `CUDAGEN_TRACE=<path>` appends to a file.

use core::ffi::{c_void, CStr};
use core::sync::atomic::{AtomicU8, Ordering};
use std::io::Write;
use std::sync::Mutex;

static STATE: AtomicU8 = AtomicU8::new(0); // 0 unknown, 1 off, 2 on
static SINK: Mutex<Option<Box<dyn Write + Send>>> = Mutex::new(None);

/// True when calls are traced (reads `CUDAGEN_TRACE` once).
#[inline(always)]
pub fn active() -> bool {
    match STATE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => init(),
    }
}

#[cold]
fn init() -> bool {
    let on = match std::env::var("CUDAGEN_TRACE") {
        Ok(v) if v.is_empty() || v == "0" => false,
        Ok(v) => {
            let sink: Box<dyn Write + Send> = if v == "1" {
                Box::new(std::io::stderr())
            } else {
                match std::fs::OpenOptions::new().create(true).append(true).open(&v) {
                    Ok(f) => Box::new(f),
                    Err(_) => Box::new(std::io::stderr()),
                }
            };
            *SINK.lock().unwrap_or_else(|e| e.into_inner()) = Some(sink);
            true
        }
        Err(_) => false,
    };
    STATE.store(if on { 2 } else { 1 }, Ordering::Relaxed);
    on
}

/// A traced argument or result.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    I64(i64),
    U64(u64),
    F64(f64),
    Hex(u64),
    Ptr(*const c_void),
    Enum { name: Option<&'a str>, value: i64 },
    Str(Option<&'a CStr>),
    Bool(bool),
    Size(u64),
}

impl core::fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Value::I64(v) => write!(f, "{v}"),
            Value::U64(v) | Value::Size(v) => write!(f, "{v}"),
            Value::F64(v) => write!(f, "{v}"),
            Value::Hex(v) => write!(f, "{v:#x}"),
            Value::Ptr(p) => write!(f, "{:p}", *p),
            Value::Enum { name: Some(n), .. } => f.write_str(n),
            Value::Enum { name: None, value } => write!(f, "{value}"),
            Value::Str(Some(s)) => write!(f, "{:?}", s.to_string_lossy()),
            Value::Str(None) => f.write_str("NULL"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// Logs one call.
pub fn record(function: &str, args: &[(&str, Value<'_>)], result: Value<'_>, duration: std::time::Duration) {
    let mut line = format!("{function}(");
    for (i, (name, v)) in args.iter().enumerate() {
        if i > 0 {
            line.push_str(", ");
        }
        line.push_str(&format!("{name}={v}"));
    }
    line.push_str(&format!(") -> {result} [{:.3} us]\n", duration.as_secs_f64() * 1e6));
    if let Some(w) = SINK.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let _ = w.write_all(line.as_bytes());
    }
}
