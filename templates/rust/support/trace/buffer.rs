//! Capture on the calling thread: each traced call is encoded as raw values (no formatting,
//! no lock, no atomic read-modify-write) into its thread's current chunk; the chunk's
//! `committed` length is published with a release store. Full chunks go to a queue for the
//! writer thread ([`super::sink`]), which decodes, formats and writes them and recycles them;
//! the writer also reads the committed part of every thread's current chunk (registered
//! globally), so the exit and signal paths reach every pending call. Memory is bounded: at
//! [`MAX_CHUNKS`] chunks a thread whose chunk is full drops calls and counts them.

use super::Value;
use core::ffi::CStr;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes per chunk.
const CHUNK: usize = 256 << 10;
/// Chunks allocated at most (16 MiB).
const MAX_CHUNKS: usize = 64;
/// Longest string kept (the formatter prints 256 bytes and `...`).
const MAX_STR: usize = 257;

/// A fixed-size buffer one thread fills and the writer reads.
pub(super) struct Chunk {
    buf: Box<[u8]>,
    /// Bytes the owner has finished writing (release-stored by the owner only).
    committed: AtomicUsize,
    /// Bytes the writer has formatted (touched by the writer only, under the output lock).
    consumed: AtomicUsize,
    pub(super) tid: AtomicU64,
}

impl Chunk {
    fn new() -> Box<Chunk> {
        Box::new(Chunk { buf: vec![0u8; CHUNK].into_boxed_slice(), committed: AtomicUsize::new(0), consumed: AtomicUsize::new(0), tid: AtomicU64::new(0) })
    }

    /// The committed bytes the writer has not formatted yet; marks them formatted.
    ///
    /// # Safety
    /// Only the writer calls it (under the output lock), on a chunk that is not recycled meanwhile.
    pub(super) unsafe fn take_pending(&self) -> &[u8] {
        let end = self.committed.load(Ordering::Acquire);
        let start = self.consumed.swap(end, Ordering::Relaxed).min(end);
        &self.buf[start..end]
    }
}

struct Ptr(*mut Chunk);
// SAFETY: chunks are handed between threads through the queue and the registry only.
unsafe impl Send for Ptr {}

/// One thread's current chunk and dropped calls, as the writer sees them.
pub(super) struct Slot {
    current: AtomicPtr<Chunk>,
    /// Calls this thread dropped (written by the thread only, without read-modify-write).
    dropped: AtomicU64,
    /// The part of `dropped` already added to [`DROPPED`] (the writer's, under the output lock).
    reported: AtomicU64,
}

impl Slot {
    fn drop_calls(&self, n: u64) {
        self.dropped.store(self.dropped.load(Ordering::Relaxed) + n, Ordering::Relaxed);
    }
}

/// Every thread's slot (slots of ended threads are pruned once drained).
static REGISTRY: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());
/// Full chunks waiting for the writer, oldest first.
static FULL: Mutex<VecDeque<Ptr>> = Mutex::new(VecDeque::new());
/// Drained chunks, ready for reuse.
static FREE: Mutex<Vec<Ptr>> = Mutex::new(Vec::new());
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);
/// Chunks in `FREE` (read without the lock by threads whose chunk is full).
static FREE_LEN: AtomicUsize = AtomicUsize::new(0);
/// Calls dropped because no chunk was free, since the last report (threads' counts are added
/// by [`drain`]).
pub(super) static DROPPED: AtomicU64 = AtomicU64::new(0);

/// The calling thread's side: its slot, chunk and write position.
struct Local {
    slot: Arc<Slot>,
    chunk: *mut Chunk,
    len: usize,
    tid: u64,
    /// While starved, calls left to drop before asking for a chunk again (the shared counters
    /// sit on cache lines the writer writes: reading them on every call costs a miss).
    backoff: u32,
}

impl Drop for Local {
    fn drop(&mut self) {
        // The thread ends: its chunk goes to the writer.
        self.slot.current.store(core::ptr::null_mut(), Ordering::Release);
        if !self.chunk.is_null() {
            FULL.lock().unwrap_or_else(|p| p.into_inner()).push_back(Ptr(self.chunk));
        }
    }
}

thread_local! {
    static MINE: RefCell<Option<Local>> = const { RefCell::new(None) };
}

fn fresh_chunk(tid: u64) -> Option<*mut Chunk> {
    // Starved (no free chunk, none may be made): one relaxed load each, no lock.
    if FREE_LEN.load(Ordering::Relaxed) == 0 && ALLOCATED.load(Ordering::Relaxed) >= MAX_CHUNKS {
        return None;
    }
    let popped = {
        let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
        let c = free.pop();
        FREE_LEN.store(free.len(), Ordering::Relaxed);
        c
    };
    let c = match popped {
        Some(Ptr(c)) => c,
        None if ALLOCATED.fetch_add(1, Ordering::Relaxed) < MAX_CHUNKS => Box::into_raw(Chunk::new()),
        None => {
            ALLOCATED.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
    };
    // SAFETY: a chunk from the free list or just made: nobody else uses it.
    unsafe {
        (*c).committed.store(0, Ordering::Relaxed);
        (*c).consumed.store(0, Ordering::Relaxed);
        (*c).tid.store(tid, Ordering::Relaxed);
    }
    Some(c)
}

/// Bytes an event can take at most.
fn worst_case(args: usize) -> usize {
    10 + 16 + 1 + (args.min(255) + 1) * (10 + 1 + 2 + MAX_STR + 1 + 10)
}

/// Appends one event to this thread's chunk. Returns true when a chunk was handed to the
/// writer (the caller wakes it).
pub(super) fn push(function: &'static str, args: &[(&'static str, Value<'_>)], result: Value<'_>, start_ns: u64, dur_ns: u64) -> bool {
    MINE.try_with(|m| {
        let mut m = m.borrow_mut();
        let l = m.get_or_insert_with(register);
        let need = worst_case(args.len());
        let mut handed = false;
        if l.chunk.is_null() || l.len + need > CHUNK {
            if l.backoff > 0 {
                l.backoff -= 1;
                l.slot.drop_calls(1);
                return false;
            }
            match fresh_chunk(l.tid) {
                Some(c) => {
                    // The slot points at the new chunk before the old one is queued: the
                    // writer recycles only queued chunks, so it never reads a recycled one.
                    l.slot.current.store(c, Ordering::Release);
                    let old = core::mem::replace(&mut l.chunk, c);
                    l.len = 0;
                    if !old.is_null() {
                        FULL.lock().unwrap_or_else(|p| p.into_inner()).push_back(Ptr(old));
                        handed = true;
                    }
                }
                None => {
                    l.slot.drop_calls(1);
                    l.backoff = 255;
                    return true;
                }
            }
        }
        // SAFETY: this thread owns bytes [len, CHUNK) of its chunk; the writer reads only
        // below `committed`, which is published after the bytes are written.
        let chunk = unsafe { &*l.chunk };
        let base = chunk.buf.as_ptr() as *mut u8;
        let out = unsafe { core::slice::from_raw_parts_mut(base.add(l.len), CHUNK - l.len) };
        let mut w = Cursor { out, pos: 0 };
        w.str(function);
        w.bytes(&start_ns.to_ne_bytes());
        w.bytes(&dur_ns.to_ne_bytes());
        w.bytes(&[args.len().min(255) as u8]);
        for (name, v) in args.iter().take(255) {
            w.str(name);
            w.value(v);
        }
        w.value(&result);
        l.len += w.pos;
        chunk.committed.store(l.len, Ordering::Release);
        handed
    })
    .unwrap_or(false)
}

fn register() -> Local {
    let slot = Arc::new(Slot { current: AtomicPtr::new(core::ptr::null_mut()), dropped: AtomicU64::new(0), reported: AtomicU64::new(0) });
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner()).push(slot.clone());
    Local { slot, chunk: core::ptr::null_mut(), len: 0, tid: super::sink::tid(), backoff: 0 }
}

/// Calls `f(tid, bytes)` for everything pending: full chunks first (then recycled), then the
/// committed part of each thread's current chunk. Only the writer calls it, under the output
/// lock; `try_only` (signal handlers) skips locks that are held.
pub(super) fn drain(try_only: bool, mut f: impl FnMut(u64, &[u8])) {
    let full: Vec<Ptr> = match if try_only { FULL.try_lock().ok() } else { Some(FULL.lock().unwrap_or_else(|p| p.into_inner())) } {
        Some(mut q) => q.drain(..).collect(),
        None => Vec::new(),
    };
    for Ptr(c) in &full {
        // SAFETY: queued chunks belong to the writer until recycled below.
        let c = unsafe { &**c };
        f(c.tid.load(Ordering::Relaxed), unsafe { c.take_pending() });
    }
    if !try_only {
        let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
        free.extend(full);
        FREE_LEN.store(free.len(), Ordering::Relaxed);
    }
    let reg = match if try_only { REGISTRY.try_lock().ok() } else { Some(REGISTRY.lock().unwrap_or_else(|p| p.into_inner())) } {
        Some(r) => r,
        None => return,
    };
    for s in reg.iter() {
        let d = s.dropped.load(Ordering::Relaxed);
        let seen = s.reported.swap(d, Ordering::Relaxed);
        DROPPED.fetch_add(d.wrapping_sub(seen), Ordering::Relaxed);
        let c = s.current.load(Ordering::Acquire);
        if !c.is_null() {
            // SAFETY: a current chunk is recycled only after it was queued and drained here.
            let c = unsafe { &*c };
            f(c.tid.load(Ordering::Relaxed), unsafe { c.take_pending() });
        }
    }
    drop(reg);
    if !try_only {
        REGISTRY.lock().unwrap_or_else(|p| p.into_inner()).retain(|s| Arc::strong_count(s) > 1);
    }
}

/// Encodes into a chunk's free space (sized by [`worst_case`]).
struct Cursor<'a> {
    out: &'a mut [u8],
    pos: usize,
}

impl Cursor<'_> {
    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        self.out[self.pos..self.pos + b.len()].copy_from_slice(b);
        self.pos += b.len();
    }

    /// A static string as its address and a 16-bit length (names are short; longer ones are cut
    /// at a character boundary).
    #[inline]
    fn str(&mut self, s: &'static str) {
        let mut n = s.len().min(u16::MAX as usize);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.bytes(&(s.as_ptr() as usize).to_ne_bytes());
        self.bytes(&(n as u16).to_ne_bytes());
    }

    #[inline]
    fn tagged(&mut self, tag: u8, x: u64) {
        self.bytes(&[tag]);
        self.bytes(&x.to_ne_bytes());
    }

    fn value(&mut self, v: &Value<'_>) {
        match *v {
            Value::I64(x) => self.tagged(0, x as u64),
            Value::U64(x) => self.tagged(1, x),
            Value::F64(x) => self.tagged(2, x.to_bits()),
            Value::Hex(x) => self.tagged(3, x),
            Value::Ptr(p) => self.tagged(4, p as usize as u64),
            Value::Enum { name, value } => {
                self.tagged(5, value as u64);
                self.str(name.unwrap_or(""));
            }
            Value::Str(None) => self.bytes(&[6]),
            Value::Str(Some(s)) => {
                let b = s.to_bytes();
                let b = &b[..b.len().min(MAX_STR)];
                self.bytes(&[7]);
                self.bytes(&(b.len() as u16).to_ne_bytes());
                self.bytes(b);
                self.bytes(&[0]);
            }
            Value::Bool(b) => self.bytes(&[8, b as u8]),
            Value::Size(x) => self.tagged(9, x),
            Value::Name(n) => {
                self.bytes(&[10]);
                self.str(n);
            }
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
        let n = u16::from_ne_bytes([self.b[0], self.b[1]]) as usize;
        self.b = &self.b[2..];
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
        push("cuTest", &args, Value::Enum { name: None, value: 0 }, 10, 20);
        let me = super::super::sink::tid();
        let mut mine = Vec::new();
        drain(false, |tid, b| if tid == me { mine.extend_from_slice(b) });
        let ev: Vec<Event<'_>> = Reader::new(&mine).collect();
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
