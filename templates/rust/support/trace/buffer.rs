//! Capture on the calling thread: each traced call is encoded as raw values (no formatting)
//! into its thread's buffer; the writer thread ([`super::sink`]) takes whole buffers, decodes,
//! formats and writes them. Buffers are registered globally, so the writer and the exit and
//! signal paths reach every thread's pending events. Memory is bounded: a thread whose buffer
//! holds [`MAX_PENDING`] bytes drops further events and counts them.

use super::Value;
use core::ffi::CStr;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Pending bytes per thread before events are dropped.
const MAX_PENDING: usize = 8 << 20;
/// Pending bytes at which the writer is woken.
pub(super) const WAKE_AT: usize = 64 << 10;
/// Longest string kept (the formatter prints 256 bytes and `...`).
const MAX_STR: usize = 257;

/// One thread's pending events.
pub(super) struct ThreadBuf {
    pub(super) tid: u64,
    pub(super) bytes: Vec<u8>,
    /// The buffer the writer hands back after draining (no allocation or page faults per swap).
    spare: Vec<u8>,
}

/// Every thread's buffer (threads that ended keep theirs until drained).
pub(super) static REGISTRY: Mutex<Vec<Arc<Mutex<ThreadBuf>>>> = Mutex::new(Vec::new());
/// Events dropped because a buffer was full, since the last report.
pub(super) static DROPPED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static MINE: RefCell<Option<Arc<Mutex<ThreadBuf>>>> = const { RefCell::new(None) };
}

/// Appends one event to this thread's buffer; returns its pending size (0 if dropped).
pub(super) fn push(function: &'static str, args: &[(&'static str, Value<'_>)], result: Value<'_>, start_ns: u64, dur_ns: u64) -> usize {
    MINE.try_with(|m| {
        let mut m = m.borrow_mut();
        let buf = m.get_or_insert_with(register);
        let mut b = buf.lock().unwrap_or_else(|p| p.into_inner());
        if b.bytes.len() >= MAX_PENDING {
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return 0;
        }
        let o = &mut b.bytes;
        put_str(o, function);
        o.extend_from_slice(&start_ns.to_ne_bytes());
        o.extend_from_slice(&dur_ns.to_ne_bytes());
        o.push(args.len().min(255) as u8);
        for (name, v) in args.iter().take(255) {
            put_str(o, name);
            put_value(o, v);
        }
        put_value(o, &result);
        o.len()
    })
    .unwrap_or(0)
}

fn register() -> Arc<Mutex<ThreadBuf>> {
    let b = Arc::new(Mutex::new(ThreadBuf { tid: super::sink::tid(), bytes: Vec::with_capacity(WAKE_AT * 2), spare: Vec::new() }));
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner()).push(b.clone());
    b
}

/// Takes every thread's pending bytes, with the buffer each came from.
pub(super) fn take_all(try_only: bool) -> Vec<(Arc<Mutex<ThreadBuf>>, u64, Vec<u8>)> {
    let reg = if try_only {
        match REGISTRY.try_lock() {
            Ok(r) => r,
            Err(_) => return Vec::new(),
        }
    } else {
        REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
    };
    let mut out = Vec::new();
    for b in reg.iter() {
        let g = if try_only { b.try_lock().ok() } else { Some(b.lock().unwrap_or_else(|p| p.into_inner())) };
        if let Some(mut g) = g {
            if !g.bytes.is_empty() {
                let spare = std::mem::take(&mut g.spare);
                let full = std::mem::replace(&mut g.bytes, spare);
                out.push((b.clone(), g.tid, full));
            }
        }
    }
    out
}

/// Forgets the drained buffers of threads that ended (only the registry holds them).
pub(super) fn prune() {
    REGISTRY
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .retain(|b| Arc::strong_count(b) > 1 || b.lock().map_or(true, |g| !g.bytes.is_empty()));
}

/// Hands a drained buffer back to its thread for reuse (kept up to [`WAKE_AT`] * 4 bytes).
pub(super) fn give_back(owner: &Mutex<ThreadBuf>, mut bytes: Vec<u8>) {
    bytes.clear();
    if bytes.capacity() <= WAKE_AT * 4 {
        if let Ok(mut g) = owner.try_lock() {
            if g.spare.capacity() < bytes.capacity() {
                g.spare = bytes;
            }
        }
    }
}

fn put_str(o: &mut Vec<u8>, s: &'static str) {
    o.extend_from_slice(&(s.as_ptr() as usize).to_ne_bytes());
    o.extend_from_slice(&s.len().to_ne_bytes());
}

fn put_u64(o: &mut Vec<u8>, tag: u8, x: u64) {
    o.push(tag);
    o.extend_from_slice(&x.to_ne_bytes());
}

fn put_value(o: &mut Vec<u8>, v: &Value<'_>) {
    match *v {
        Value::I64(x) => put_u64(o, 0, x as u64),
        Value::U64(x) => put_u64(o, 1, x),
        Value::F64(x) => put_u64(o, 2, x.to_bits()),
        Value::Hex(x) => put_u64(o, 3, x),
        Value::Ptr(p) => put_u64(o, 4, p as usize as u64),
        Value::Enum { name, value } => {
            put_u64(o, 5, value as u64);
            put_str(o, name.unwrap_or(""));
        }
        Value::Str(None) => o.push(6),
        Value::Str(Some(s)) => {
            let b = s.to_bytes();
            let b = &b[..b.len().min(MAX_STR)];
            o.push(7);
            o.extend_from_slice(&(b.len() as u16).to_ne_bytes());
            o.extend_from_slice(b);
            o.push(0);
        }
        Value::Bool(b) => {
            o.push(8);
            o.push(b as u8);
        }
        Value::Size(x) => put_u64(o, 9, x),
        Value::Name(n) => {
            o.push(10);
            put_str(o, n);
        }
    }
}

/// One decoded event, borrowing the buffer.
pub(super) struct Event<'a> {
    pub function: &'static str,
    pub start_ns: u64,
    pub dur_ns: u64,
    pub args: Vec<(&'static str, Value<'a>)>,
    pub result: Value<'a>,
}

/// Reads events back from a buffer [`push`] wrote.
pub(super) struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn new(b: &'a [u8]) -> Self {
        Reader { b }
    }

    fn u64(&mut self) -> u64 {
        let (x, rest) = self.b.split_at(8);
        self.b = rest;
        u64::from_ne_bytes(x.try_into().unwrap_or([0; 8]))
    }

    fn str(&mut self) -> &'static str {
        let p = self.u64() as usize as *const u8;
        let n = self.u64() as usize;
        if n == 0 {
            return "";
        }
        // SAFETY: written by `put_str` from a `&'static str`.
        unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(p, n)) }
    }

    fn value(&mut self) -> Value<'a> {
        let tag = self.b[0];
        self.b = &self.b[1..];
        match tag {
            0 => Value::I64(self.u64() as i64),
            1 => Value::U64(self.u64()),
            2 => Value::F64(f64::from_bits(self.u64())),
            3 => Value::Hex(self.u64()),
            4 => Value::Ptr(self.u64() as usize as *const core::ffi::c_void),
            5 => {
                let value = self.u64() as i64;
                let name = self.str();
                Value::Enum { name: (!name.is_empty()).then_some(name), value }
            }
            7 => {
                let n = u16::from_ne_bytes([self.b[0], self.b[1]]) as usize;
                let s = &self.b[2..2 + n + 1];
                self.b = &self.b[2 + n + 1..];
                Value::Str(CStr::from_bytes_until_nul(s).ok())
            }
            8 => {
                let x = self.b[0] != 0;
                self.b = &self.b[1..];
                Value::Bool(x)
            }
            9 => Value::Size(self.u64()),
            10 => Value::Name(self.str()),
            _ => Value::Str(None),
        }
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        if self.b.is_empty() {
            return None;
        }
        let function = self.str();
        let start_ns = self.u64();
        let dur_ns = self.u64();
        let n = self.b[0] as usize;
        self.b = &self.b[1..];
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.str();
            args.push((name, self.value()));
        }
        let result = self.value();
        Some(Event { function, start_ns, dur_ns, args, result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip() {
        let s = std::ffi::CString::new("x".repeat(300)).unwrap();
        let args = [
            ("a", Value::I64(-3)),
            ("b", Value::Str(Some(c"hi"))),
            ("c", Value::Str(Some(&s))),
            ("d", Value::Enum { name: Some("CU_X"), value: 7 }),
            ("e", Value::Bool(true)),
            ("f", Value::F64(1.5)),
        ];
        assert!(push("cuTest", &args, Value::Enum { name: None, value: 0 }, 10, 20) > 0);
        let all = take_all(false);
        let mine: Vec<_> = all.iter().filter(|(_, t, _)| *t == super::super::sink::tid()).collect();
        let ev: Vec<Event<'_>> = Reader::new(&mine[0].2).collect();
        let e = ev.iter().find(|e| e.function == "cuTest").unwrap();
        assert_eq!((e.start_ns, e.dur_ns, e.args.len()), (10, 20, 6));
        assert!(matches!(e.args[0].1, Value::I64(-3)));
        assert!(matches!(e.args[1].1, Value::Str(Some(x)) if x.to_bytes() == b"hi"));
        assert!(matches!(e.args[2].1, Value::Str(Some(x)) if x.to_bytes().len() == MAX_STR));
        assert!(matches!(e.args[3].1, Value::Enum { name: Some("CU_X"), value: 7 }));
        assert!(matches!(e.args[5].1, Value::F64(x) if x == 1.5));
        assert!(matches!(e.result, Value::Enum { name: None, value: 0 }));
    }
}
