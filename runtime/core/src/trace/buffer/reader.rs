//! The writer thread's side of the buffer: decoding the records [`super::writer`] encoded.

use super::super::{args, Desc, Kind, Value};
use super::{align8, words_len, VALUES};
use core::ffi::CStr;
use std::sync::atomic::Ordering;

/// One decoded event, borrowing the buffer.
pub(in super::super) struct Event<'a> {
    /// The description of a generated function's call (`None` for a call given as values).
    pub desc: Option<&'static Desc>,
    pub function: &'static str,
    pub start_ns: u64,
    pub dur_ns: u64,
    pub args: Vec<(&'static str, Value<'a>)>,
    pub result: Value<'a>,
}

/// Reads events back from a buffer [`super::push`] and [`super::push_values`] wrote.
pub(in super::super) struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(in super::super) fn new(b: &'a [u8]) -> Self {
        Reader { b }
    }

    fn u64(&mut self) -> u64 {
        let (x, rest) = self.b.split_at(8);
        self.b = rest;
        u64::from_ne_bytes(x.try_into().unwrap_or([0; 8]))
    }

    fn u16(&mut self) -> usize {
        let n = u16::from_ne_bytes([self.b[0], self.b[1]]) as usize;
        self.b = &self.b[2..];
        n
    }

    fn str(&mut self) -> &'static str {
        let p = self.u64() as usize as *const u8;
        let n = self.u16();
        if n == 0 {
            return "";
        }
        // SAFETY: written by `Cursor::str` from a `&'static str`.
        unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(p, n)) }
    }

    /// A copied C string: length, bytes, NUL.
    fn cstr(&mut self) -> Option<&'a CStr> {
        let n = self.u16();
        let s = &self.b[..n + 1];
        self.b = &self.b[n + 1..];
        CStr::from_bytes_until_nul(s).ok()
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
            7 => Value::Str(self.cstr()),
            8 => {
                let x = self.b[0] != 0;
                self.b = &self.b[1..];
                Value::Bool(x)
            }
            9 => Value::Size(self.u64()),
            10 => Value::Name(self.str()),
            11 => {
                let class = super::super::Class::from_u8(self.b[0]);
                self.b = &self.b[1..];
                let addr = self.u64();
                class.map_or(Value::Hex(addr), |class| Value::Handle { class, addr })
            }
            12 => Value::Image(self.u64()),
            _ => Value::Str(None),
        }
    }

    /// The rest of a call given as values (after its first word).
    fn values(&mut self) -> Event<'a> {
        let len = self.b.len();
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
        // Records end 8-byte aligned (the first word was aligned).
        let used = len - self.b.len();
        self.b = &self.b[(align8(used + 8) - 8 - used).min(self.b.len())..];
        Event { desc: None, function, start_ns, dur_ns, args, result }
    }

    /// The rest of a call of `desc` (after its first word).
    fn words(&mut self, desc: &'static Desc) -> Event<'a> {
        let start_ns = self.u64();
        let end = self.u64();
        let n = desc.args.len();
        // The n + 1 words, read in place.
        let (raw, rest) = self.b.split_at(((n + 1) * 8).min(self.b.len()));
        self.b = rest;
        let word = |i: usize| raw.get(i * 8..i * 8 + 8).map_or(0, |w| u64::from_ne_bytes(w.try_into().unwrap_or([0; 8])));
        let written = self.u64();
        let extras = desc.has_extras();
        let launch_args = extras && desc.launch_args && super::super::FLAGS.args.load(Ordering::Relaxed);
        let extras_at = self.b.len();
        let enums = desc.enums;
        let mut show = |kind: Kind, word: u64| -> Value<'a> {
            match kind {
                Kind::I64 => Value::I64(word as i64),
                Kind::U64 => Value::U64(word),
                Kind::F64 => Value::F64(f64::from_bits(word)),
                Kind::Hex => Value::Hex(word),
                Kind::Ptr => Value::Ptr(word as usize as *const core::ffi::c_void),
                Kind::Size => Value::Size(word),
                Kind::Bool => Value::Bool(word != 0),
                Kind::Enum(e) => {
                    Value::Enum { name: enums.get(e as usize).and_then(|name| name(word as i64)), value: word as i64 }
                }
                Kind::Str if word != 0 => Value::Str(self.cstr()),
                Kind::Str | Kind::Void => Value::Str(None),
                Kind::Handle(class) => Value::Handle { class, addr: word },
                Kind::Image => Value::Image(self.u64()),
                Kind::KernelParams | Kind::LaunchExtra if launch_args => {
                    let (blob, rest) = self.b.split_at(args::blob_len(self.b));
                    self.b = rest;
                    Value::Args { ptr: word, blob }
                }
                Kind::KernelParams | Kind::LaunchExtra => Value::Ptr(word as usize as *const core::ffi::c_void),
            }
        };
        let mut args = Vec::with_capacity(n);
        let mut names = desc.arg_names();
        for (i, a) in desc.args.iter().enumerate() {
            let v = if a.out && written & (1u64 << i.min(63)) == 0 {
                Value::Ptr(word(i) as usize as *const core::ffi::c_void)
            } else {
                show(a.kind, word(i))
            };
            args.push((names.next().unwrap_or("?"), v));
        }
        let result = show(desc.result, word(n));
        if extras {
            let used = extras_at - self.b.len();
            self.b = &self.b[(align8(used) - used).min(self.b.len())..];
        }
        Event { desc: Some(desc), function: desc.name(), start_ns, dur_ns: end.saturating_sub(start_ns), args, result }
    }

    /// The next call whose `Desc` teaches the writer names, parents or allocations
    /// (`Desc::learns`); the others are skipped without being decoded where their length is
    /// fixed.
    pub(in super::super) fn next_learning(&mut self) -> Option<Event<'a>> {
        while self.b.len() >= 8 {
            match self.u64() {
                VALUES => {
                    self.values();
                }
                d => {
                    // SAFETY: written by `encode` from a `&'static Desc`.
                    let desc = unsafe { &*(d as usize as *const Desc) };
                    if desc.learns {
                        return Some(self.words(desc));
                    }
                    if desc.has_extras() {
                        self.words(desc);
                    } else {
                        let skip = (words_len(desc.args.len() + 1) - 8).min(self.b.len());
                        self.b = &self.b[skip..];
                    }
                }
            }
        }
        None
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        if self.b.len() < 8 {
            return None;
        }
        match self.u64() {
            VALUES => Some(self.values()),
            // SAFETY: written by `encode` from a `&'static Desc`.
            d => Some(self.words(unsafe { &*(d as usize as *const Desc) })),
        }
    }
}
