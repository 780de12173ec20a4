//! Capture's side of the buffer: chunks, the registry of threads' chunks, the queue to the
//! writer thread, and the encoding of records (see [`super`] for the whole design).

use super::super::{args, current, Desc, Kind, Value};
use super::{align8, MAX_STR, VALUES};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Bytes per chunk.
const CHUNK: usize = 256 << 10;
/// Chunks allocated at most (16 MiB).
const MAX_CHUNKS: usize = 64;

/// How far ahead of the write position [`push`] asks for cache lines: a recycled chunk's lines
/// were last read by the writer thread, in another core's cache, and a store that misses waits
/// for the transfer as soon as the driver's own fences drain the store buffer. Measured on the
/// GPU machine before: a recorded launch (two lines) +180 ns, a small call +80 ns.
const AHEAD: usize = 1024;

/// Asks for the cache line holding `p` (a hint, as [`prefetch_write`]).
#[inline(always)]
pub(in super::super) fn prefetch_read(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads and writes nothing and cannot fault.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks for the cache line holding `p` in a writable state, ahead of the stores that fill it.
/// A hint: it never faults, whatever `p` is (x86-64 CPUs without PREFETCHW run it as a NOP).
#[inline(always)]
fn prefetch_write(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads and writes nothing and cannot fault.
    unsafe {
        core::arch::asm!("prefetchw [{}]", in(reg) p, options(nostack, preserves_flags, readonly))
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Asks for the two cache lines [`AHEAD`] bytes past the write position `pos`.
#[inline(always)]
fn prefetch_ahead(pos: *const u8) {
    prefetch_write(pos.wrapping_add(AHEAD));
    prefetch_write(pos.wrapping_add(AHEAD + 64));
}

/// A value alone on its cache line (the owner's and the writer's fields never share one).
#[repr(align(64))]
pub(in super::super) struct Line<T>(pub(in super::super) T);

/// A fixed-size buffer one thread fills and the writer reads.
pub(in super::super) struct Chunk {
    /// Bytes the owner has finished writing (release-stored by the owner only).
    committed: Line<AtomicUsize>,
    /// Bytes the writer has formatted (touched by the writer only, under the output lock).
    consumed: Line<AtomicUsize>,
    pub(in super::super) tid: AtomicU64,
    /// `u64`s, so every record starts 8-byte aligned.
    buf: Box<[u64]>,
}

impl Chunk {
    fn new() -> Box<Chunk> {
        Box::new(Chunk {
            committed: Line(AtomicUsize::new(0)),
            consumed: Line(AtomicUsize::new(0)),
            tid: AtomicU64::new(0),
            buf: vec![0u64; CHUNK / 8].into_boxed_slice(),
        })
    }

    fn base(&self) -> *mut u8 {
        self.buf.as_ptr() as *mut u8
    }

    /// The committed bytes the writer has not formatted yet; marks them formatted.
    ///
    /// # Safety
    /// Only the writer calls it (under the output lock), on a chunk that is not recycled meanwhile.
    pub(in super::super) unsafe fn take_pending(&self) -> &[u8] {
        let end = self.committed.0.load(Ordering::Acquire);
        let start = self.consumed.0.swap(end, Ordering::Relaxed).min(end);
        core::slice::from_raw_parts(self.base().add(start), end - start)
    }
}

struct Ptr(*mut Chunk);
// SAFETY: chunks are handed between threads through the queue and the registry only.
unsafe impl Send for Ptr {}

/// One thread's current chunk and dropped calls, as the writer sees them.
pub(in super::super) struct Slot {
    current: AtomicPtr<Chunk>,
    /// Calls this thread dropped (written by the thread only, without read-modify-write).
    dropped: AtomicU64,
    /// The part of `dropped` already added to [`DROPPED`] (the writer's, under the output lock).
    reported: Line<AtomicU64>,
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

/// Counters the threads and the writer update, on their own cache lines.
struct Shared {
    allocated: AtomicUsize,
    /// Chunks in `FREE` (read without the lock by threads whose chunk is full).
    free_len: AtomicUsize,
}
static SHARED: Line<Shared> = Line(Shared { allocated: AtomicUsize::new(0), free_len: AtomicUsize::new(0) });
/// Calls dropped because no chunk was free, since the last report (threads' counts are added
/// by [`drain`]).
pub(in super::super) static DROPPED: Line<AtomicU64> = Line(AtomicU64::new(0));

/// The calling thread's side: where it writes in its chunk (one cache line).
#[repr(align(64))]
pub(in super::super) struct Local {
    /// A record is reserved and not yet published ([`reserve`] .. [`close`]): a traced call
    /// made meanwhile on this thread (from a callback inside the library call) is written at
    /// once instead of being buffered, so the chunk is neither switched nor published past the
    /// unfinished record.
    open: bool,
    pos: *mut u8,
    end: *mut u8,
    base: *mut u8,
    chunk: *mut Chunk,
    /// While starved, calls left to drop before asking for a chunk again (the shared counters
    /// sit on cache lines the writer writes: reading them on every call costs a miss).
    backoff: u32,
    tid: u64,
    slot: Arc<Slot>,
}

thread_local! {
    /// Registered at the first traced call; its destructor hands the chunk to the writer.
    static GUARD: Guard = const { Guard };
}

struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        let l = current::take();
        if l.is_null() {
            return;
        }
        // SAFETY: made by `Box::into_raw` in `local`, owned by this thread; no longer reachable.
        let l = unsafe { Box::from_raw(l) };
        // The thread ends: its chunk goes to the writer.
        l.slot.current.store(core::ptr::null_mut(), Ordering::Release);
        if !l.chunk.is_null() {
            FULL.lock().unwrap_or_else(|p| p.into_inner()).push_back(Ptr(l.chunk));
        }
    }
}

/// What [`push`] did with a call.
pub(in super::super) enum Pushed {
    /// In the buffer (or dropped and counted).
    Stored,
    /// In the buffer, and a full chunk was handed over: the caller wakes the writer.
    Handed,
    /// This thread has no buffer (its thread locals are being destroyed): write it at once.
    Unbuffered,
}

/// Appends one call of `desc` to this thread's chunk (`l`, from [`current::get`] on this thread),
/// stamping its end (not for a dropped call).
///
/// # Safety
/// As [`super::super::capture`].
#[inline(always)]
pub(in super::super) unsafe fn push<const N: usize>(
    l: *mut Local,
    desc: &'static Desc,
    start: u64,
    words: &[u64; N],
    written: u64,
) -> Pushed {
    if !l.is_null() {
        // SAFETY: this thread's own `Local`; bytes [pos, end) of its chunk are the thread's; the
        // writer reads only below `committed`, which is published after the bytes are written.
        let lr = &mut *l;
        if lr.open {
            return Pushed::Unbuffered;
        }
        if lr.end as usize - lr.pos as usize >= desc.max_len as usize {
            lr.pos = encode(desc, start, super::super::clock::end(start), words, written, lr.pos);
            prefetch_ahead(lr.pos);
            (*lr.chunk).committed.0.store(lr.pos as usize - lr.base as usize, Ordering::Release);
            return Pushed::Stored;
        }
        if lr.backoff > 0 {
            lr.backoff -= 1;
            lr.slot.drop_calls(1);
            return Pushed::Stored;
        }
    }
    push_slow(l, desc.max_len as usize, |p| encode(desc, start, super::super::clock::end(start), words, written, p))
}

/// Appends one call given as values (the self-describing form).
pub(in super::super) fn push_values(
    function: &'static str,
    args: &[(&'static str, Value<'_>)],
    result: Value<'_>,
    start: u64,
    dur: u64,
) -> Pushed {
    let args = &args[..args.len().min(255)];
    let need = 8 + 10 + 16 + 1 + (args.len() + 1) * (10 + 1 + 2 + MAX_STR + 1 + 10) + 7;
    // SAFETY: `push_slow` hands a pointer with `need` writable bytes.
    unsafe {
        push_slow(current::get(), need, |p| {
            let out = core::slice::from_raw_parts_mut(p, need);
            let mut w = Cursor { out, pos: 0 };
            w.bytes(&VALUES.to_ne_bytes());
            w.str(function);
            w.bytes(&start.to_ne_bytes());
            w.bytes(&dur.to_ne_bytes());
            w.bytes(&[args.len() as u8]);
            for (name, v) in args {
                w.str(name);
                w.value(v);
            }
            w.value(&result);
            p.add(align8(w.pos))
        })
    }
}

/// The rest of [`push`]: the thread's first call, a full chunk, a starved thread. `l` is the
/// thread's `LOCAL`.
#[cold]
#[inline(never)]
unsafe fn push_slow(l: *mut Local, need: usize, write: impl FnOnce(*mut u8) -> *mut u8) -> Pushed {
    let l = match if l.is_null() { local() } else { Some(&mut *l) } {
        Some(l) if !l.open => l,
        _ => return Pushed::Unbuffered,
    };
    let mut handed = false;
    if l.chunk.is_null() || (l.end as usize - l.pos as usize) < need {
        if l.backoff > 0 {
            l.backoff -= 1;
            l.slot.drop_calls(1);
            return Pushed::Stored;
        }
        match fresh_chunk(l.tid) {
            Some(c) => {
                // The slot points at the new chunk before the old one is queued: the writer
                // recycles only queued chunks, so it never reads a recycled one.
                l.slot.current.store(c, Ordering::Release);
                let old = core::mem::replace(&mut l.chunk, c);
                l.base = (*c).base();
                l.pos = l.base;
                l.end = l.base.add(CHUNK);
                for k in (0..AHEAD + 128).step_by(64) {
                    prefetch_write(l.base.add(k));
                }
                if !old.is_null() {
                    FULL.lock().unwrap_or_else(|p| p.into_inner()).push_back(Ptr(old));
                    handed = true;
                }
            }
            None => {
                l.slot.drop_calls(1);
                l.backoff = 255;
                return Pushed::Handed;
            }
        }
    }
    l.pos = write(l.pos);
    (*l.chunk).committed.0.store(l.pos as usize - l.base as usize, Ordering::Release);
    if handed {
        Pushed::Handed
    } else {
        Pushed::Stored
    }
}

/// Makes this thread's `Local` (and registers the thread) at its first call; `None` while the
/// thread's locals are being destroyed.
unsafe fn local() -> Option<&'static mut Local> {
    // Registers the guard's destructor; fails once it ran (or is running).
    GUARD.try_with(|_| ()).ok()?;
    let slot = Arc::new(Slot {
        current: AtomicPtr::new(core::ptr::null_mut()),
        dropped: AtomicU64::new(0),
        reported: Line(AtomicU64::new(0)),
    });
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner()).push(slot.clone());
    let null = core::ptr::null_mut();
    let l = Box::into_raw(Box::new(Local {
        open: false,
        pos: null,
        end: null,
        base: null,
        chunk: null as *mut Chunk,
        backoff: 0,
        tid: super::super::sink::tid(),
        slot,
    }));
    current::set(l);
    Some(&mut *l)
}

fn fresh_chunk(tid: u64) -> Option<*mut Chunk> {
    let sh = &SHARED.0;
    // Starved (no free chunk, none may be made): one relaxed load each, no lock.
    if sh.free_len.load(Ordering::Relaxed) == 0 && sh.allocated.load(Ordering::Relaxed) >= MAX_CHUNKS {
        return None;
    }
    let popped = {
        let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
        let c = free.pop();
        sh.free_len.store(free.len(), Ordering::Relaxed);
        c
    };
    let c = match popped {
        Some(Ptr(c)) => c,
        None if sh.allocated.fetch_add(1, Ordering::Relaxed) < MAX_CHUNKS => Box::into_raw(Chunk::new()),
        None => {
            sh.allocated.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
    };
    // SAFETY: a chunk from the free list or just made: nobody else uses it.
    unsafe {
        (*c).committed.0.store(0, Ordering::Relaxed);
        (*c).consumed.0.store(0, Ordering::Relaxed);
        (*c).tid.store(tid, Ordering::Relaxed);
    }
    Some(c)
}

/// A record [`reserve`] made: published by [`close`].
#[derive(Clone, Copy)]
pub(in super::super) struct Open {
    local: *mut Local,
    rec: *mut u64,
    chunk: *const Chunk,
    /// The chunk's `committed` once the record is written.
    end: usize,
    /// The call's end is stamped (not `CUDAGEN_TRACE_DURATIONS=0`).
    pub(in super::super) timed: bool,
}

/// Reserves the record of a call of `desc` (a function without C strings) in the thread's
/// chunk `l` and writes its first two words (`desc`, `start`); `None` (nothing changed) when the
/// thread has no buffer yet, has a record open, or the chunk has no room: the call is then
/// recorded after it returns by [`push`], which handles those cases.
///
/// # Safety
/// `l` is this thread's [`current::get`].
#[inline(always)]
pub(in super::super) unsafe fn reserve(l: *mut Local, desc: &'static Desc, start: u64, timed: bool) -> Option<Open> {
    let len = desc.fixed_len as usize;
    if l.is_null() || len == 0 {
        return None;
    }
    // SAFETY: as in `push`.
    let lr = &mut *l;
    if lr.open || (lr.end as usize - lr.pos as usize) < len {
        return None;
    }
    let rec = lr.pos as *mut u64;
    write_head(rec, desc, start);
    lr.pos = lr.pos.add(len);
    lr.open = true;
    prefetch_ahead(lr.pos);
    Some(Open { local: l, rec, chunk: lr.chunk, end: lr.pos as usize - lr.base as usize, timed })
}

/// Completes and publishes a record [`reserve`] made, with stores only (nothing the library
/// call may have evicted is read): the end stamp, the words, the `written` mask.
///
/// # Safety
/// `o` comes from [`reserve`] on this thread, of a `desc` with `N - 1` arguments; closed once.
#[inline(always)]
pub(in super::super) unsafe fn close<const N: usize>(o: Open, end: u64, words: &[u64; N], written: u64) {
    write_tail(o.rec, end, words, written);
    (*o.chunk).committed.0.store(o.end, Ordering::Release);
    (*o.local).open = false;
}

/// Writes one call of `desc` at `p` (8-byte aligned, `desc.max_len` bytes free); returns the
/// end (8-byte aligned). Layout: `desc`, start, end, the words (arguments then result), the
/// `written` mask, then each non-NULL C string (u16 length, bytes, NUL).
///
/// # Safety
/// As [`super::super::capture`]; `p` as above.
#[inline(always)]
pub(in super::super) unsafe fn encode<const N: usize>(
    desc: &'static Desc,
    start: u64,
    end: u64,
    words: &[u64; N],
    written: u64,
    p: *mut u8,
) -> *mut u8 {
    debug_assert_eq!(N, desc.args.len() + 1);
    let w = p as *mut u64;
    write_head(w, desc, start);
    let q = write_tail(w, end, words, written) as *mut u8;
    if !desc.has_extras() {
        return q;
    }
    copy_extras(desc, words, q)
}

/// A record's first two words (see [`encode`]): `desc` and the start stamp.
#[inline(always)]
unsafe fn write_head(rec: *mut u64, desc: &'static Desc, start: u64) {
    rec.write(desc as *const Desc as u64);
    rec.add(1).write(start);
}

/// The rest of a record without its strings (see [`encode`]): the end stamp, the words, the
/// `written` mask; returns the word after them.
#[inline(always)]
unsafe fn write_tail<const N: usize>(rec: *mut u64, end: u64, words: &[u64; N], written: u64) -> *mut u64 {
    rec.add(2).write(end);
    // Word by word: the words were stored one by one (8 bytes each), and a wider copy (LLVM
    // copies an array with 16-byte moves) loads across two such stores, which the CPU cannot
    // forward (a stall of ~12 cycles per load; a launch's 11 arguments had two).
    for (i, &w) in words.iter().enumerate() {
        rec.add(3 + i).write_volatile(w);
    }
    rec.add(3 + N).write(written);
    rec.add(4 + N)
}

/// Writes what the record carries after its words, in the words' order: a copy of each C string
/// (at most [`MAX_STR`] bytes: `u16` length, bytes, NUL), a hash of each image (8 bytes, taken
/// when the call succeeded), a launch's arguments with `CUDAGEN_TRACE_ARGS=1` (see `args`; when
/// it succeeded).
#[inline(never)]
unsafe fn copy_extras(desc: &'static Desc, words: &[u64], mut b: *mut u8) -> *mut u8 {
    let start = b;
    let ok = words.last() == Some(&0);
    let launch_args = desc.launch_args && super::super::FLAGS.args.load(Ordering::Relaxed);
    for (i, &word) in words.iter().enumerate() {
        match desc.args.get(i).map_or(desc.result, |a| a.kind) {
            Kind::Str if word != 0 => {
                let s = word as usize as *const u8;
                let mut n = 0;
                while n < MAX_STR && *s.add(n) != 0 {
                    n += 1;
                }
                b.cast::<[u8; 2]>().write_unaligned((n as u16).to_ne_bytes());
                core::ptr::copy_nonoverlapping(s, b.add(2), n);
                *b.add(2 + n) = 0;
                b = b.add(2 + n + 1);
            }
            Kind::Image => {
                let h = if ok { args::image_hash(word as usize as *const u8) } else { 0 };
                b.cast::<[u8; 8]>().write_unaligned(h.to_ne_bytes());
                b = b.add(8);
            }
            // Read only after a launch that succeeded (the driver read them then); a failed
            // launch's blob says "not known" and its line shows the pointer.
            Kind::KernelParams if launch_args => {
                let f = words.get(desc.function as usize).copied().unwrap_or(0);
                b = args::copy_params(f, if ok { word } else { 0 }, b);
            }
            Kind::LaunchExtra if launch_args => b = args::copy_extra(if ok { word } else { 0 }, b),
            _ => {}
        }
    }
    start.add(align8(b as usize - start as usize))
}

/// Calls `f` once with what is pending, as `(tid, bytes)` per chunk: full chunks first (then
/// recycled), then, with `current`, the committed part of each thread's current chunk. Only the
/// writer calls it (or a thread standing in for it), under the output lock; `try_only` (signal
/// handlers) skips locks that are held.
pub(in super::super) fn drain(try_only: bool, current: bool, f: impl FnOnce(&[(u64, &[u8])])) {
    let full: Vec<Ptr> = match if try_only { FULL.try_lock().ok() } else { Some(FULL.lock().unwrap_or_else(|p| p.into_inner())) }
    {
        Some(mut q) => q.drain(..).collect(),
        None => Vec::new(),
    };
    let mut pending: Vec<(u64, &[u8])> = Vec::with_capacity(full.len() + 8);
    for Ptr(c) in &full {
        // SAFETY: queued chunks belong to the writer until recycled below.
        let c = unsafe { &**c };
        pending.push((c.tid.load(Ordering::Relaxed), unsafe { c.take_pending() }));
    }
    let reg = if try_only { REGISTRY.try_lock().ok() } else { Some(REGISTRY.lock().unwrap_or_else(|p| p.into_inner())) };
    // Slots of threads that had ended when their count was read: their count is final, so they
    // can go (a slot whose thread ends after its count was read keeps its last drops for the next
    // drain).
    let mut ended: Vec<*const Slot> = Vec::new();
    if let Some(reg) = &reg {
        for s in reg.iter() {
            if Arc::strong_count(s) == 1 {
                core::sync::atomic::fence(Ordering::Acquire);
                ended.push(Arc::as_ptr(s));
            }
            let d = s.dropped.load(Ordering::Relaxed);
            let seen = s.reported.0.swap(d, Ordering::Relaxed);
            DROPPED.0.fetch_add(d.wrapping_sub(seen), Ordering::Relaxed);
            if !current {
                continue;
            }
            let c = s.current.load(Ordering::Acquire);
            if !c.is_null() {
                // SAFETY: a current chunk is recycled only after it was queued and drained here.
                let c = unsafe { &*c };
                pending.push((c.tid.load(Ordering::Relaxed), unsafe { c.take_pending() }));
            }
        }
    }
    // Chunks are never freed, only recycled here: the slices stay valid without the registry.
    drop(reg);
    f(&pending);
    drop(pending);
    if !try_only {
        let mut free = FREE.lock().unwrap_or_else(|p| p.into_inner());
        free.extend(full);
        SHARED.0.free_len.store(free.len(), Ordering::Relaxed);
        if !ended.is_empty() {
            REGISTRY.lock().unwrap_or_else(|p| p.into_inner()).retain(|s| !ended.contains(&Arc::as_ptr(s)));
        }
    }
}

/// Encodes a call given as values into a chunk's free space.
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
            Value::Handle { class, addr } => {
                self.bytes(&[11, class as u8]);
                self.bytes(&addr.to_ne_bytes());
            }
            Value::Image(h) => self.tagged(12, h),
            // Made by the decoder only (a blob can exceed the room a value gets here).
            Value::Args { ptr, .. } => self.tagged(4, ptr),
        }
    }
}
