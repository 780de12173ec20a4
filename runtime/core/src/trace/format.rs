//! Rendering one trace line as text or as a JSON object (hand-written, no serde). Lines are
//! appended to the writer's buffer with [`Put`], not `write!`: the writer formats every call, and
//! `core::fmt` through `io::Write` was most of its ~6,700 instructions a launch line.

use super::buffer::Event;
use super::config::Format;
use super::names::{Label, Names};
use super::{args, Class, Value};
use std::io::Write;

/// Appends one event in the configured format, newline included, to `o` (without its duration
/// when calls are not `timed`); handles are shown as `names` knows them.
pub(super) fn event(format: Format, timed: bool, tid: u64, ev: &Event<'_>, names: &Names, o: &mut Vec<u8>) {
    let dur = timed.then_some(ev.dur_ns);
    let c = Ctx { names };
    match format {
        Format::Perfetto => perfetto(o, c, tid, ev, dur),
        f => line(o, c, f == Format::Json, tid, ev.function, &ev.args, ev.result, dur),
    }
}

/// What formatting a value needs besides the value.
#[derive(Clone, Copy)]
struct Ctx<'n> {
    names: &'n Names,
}

/// What a launch runs, for its Perfetto slice's name (`cuLaunchKernel: saxpy`).
fn launched<'n>(c: Ctx<'n>, ev: &Event<'_>) -> Option<Label<'n>> {
    let d = ev.desc?;
    match ev.args.get(d.launched as usize)?.1 {
        Value::Handle { class, addr } => Some(c.names.label(class, addr)),
        _ => None,
    }
}

/// The line that says events were dropped (a full buffer).
pub(super) fn dropped(format: Format, n: u64) -> String {
    match format {
        Format::Text => format!("[cudagen] trace buffer full: {n} calls dropped\n"),
        Format::Json => format!("{{\"dropped\":{n}}}\n"),
        Format::Perfetto => format!(
            "{{\"name\":\"cudagen: {n} calls dropped\",\"ph\":\"i\",\"s\":\"g\",\"ts\":0,\"pid\":{},\"tid\":0}},\n",
            std::process::id()
        ),
    }
}

/// Closes the Perfetto array (a metadata event naming the process, then `]`).
pub(super) fn perfetto_end() -> String {
    format!(
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":\"cudagen trace\"}}}}\n]\n",
        std::process::id()
    )
}

/// Longest C string printed, in bytes; longer ones end in `...`.
const MAX_STR: usize = 256;

/// The pieces a line is made of, appended without `core::fmt`.
trait Put {
    fn s(&mut self, s: &str);
    fn u(&mut self, x: u64);
    fn i(&mut self, x: i64);
    /// `0x` and lower-case hex digits, as `{:#x}` writes them.
    fn hex(&mut self, x: u64);
    /// Nanoseconds as microseconds with three decimals (`1234` -> `1.234`).
    fn micros(&mut self, ns: u64);
}

impl Put for Vec<u8> {
    fn s(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
    fn u(&mut self, x: u64) {
        self.s(itoa::Buffer::new().format(x));
    }
    fn i(&mut self, x: i64) {
        self.s(itoa::Buffer::new().format(x));
    }
    fn hex(&mut self, x: u64) {
        let digits = (64 - x.leading_zeros() as usize).div_ceil(4).max(1);
        self.s("0x");
        for k in (0..digits).rev() {
            self.push(b"0123456789abcdef"[(x >> (4 * k)) as usize & 15]);
        }
    }
    fn micros(&mut self, ns: u64) {
        self.u(ns / 1000);
        let f = ns % 1000;
        self.extend_from_slice(&[b'.', b'0' + (f / 100) as u8, b'0' + (f / 10 % 10) as u8, b'0' + (f % 10) as u8]);
    }
}

/// One complete line, newline included.
#[allow(clippy::too_many_arguments)]
fn line(
    o: &mut Vec<u8>,
    c: Ctx<'_>,
    json: bool,
    tid: u64,
    function: &str,
    args: &[(&str, Value<'_>)],
    result: Value<'_>,
    ns: Option<u64>,
) {
    if json {
        o.s("{\"tid\":");
        o.u(tid);
        o.s(",\"fn\":");
        json_str(o, function);
        o.s(",\"args\":{");
        for (i, (name, v)) in args.iter().enumerate() {
            if i > 0 {
                o.push(b',');
            }
            json_arg(o, c, name, v);
        }
        o.s("},\"result\":");
        json_value(o, c, &result);
        if let Some(ns) = ns {
            o.s(",\"ns\":");
            o.u(ns);
        }
        o.s("}\n");
    } else {
        o.s("[cudagen tid=");
        o.u(tid);
        o.s("] ");
        o.s(function);
        o.push(b'(');
        for (i, (name, v)) in args.iter().enumerate() {
            if i > 0 {
                o.s(", ");
            }
            o.s(name);
            o.push(b'=');
            text_value(o, c, v);
        }
        o.s(") -> ");
        text_value(o, c, &result);
        if let Some(ns) = ns {
            o.push(b' ');
            o.micros(ns);
            o.s("us");
        }
        o.push(b'\n');
    }
}

/// One Chrome trace-event "complete" slice (`ph: X`; microsecond times), or an instant (`ph: i`)
/// without a duration, comma and newline included: the array is opened when the file is created
/// and closed at exit. A launch's slice is named after what it runs.
fn perfetto(o: &mut Vec<u8>, c: Ctx<'_>, tid: u64, ev: &Event<'_>, dur_ns: Option<u64>) {
    o.s("{\"name\":");
    match launched(c, ev) {
        Some(Label::Name(n, _)) => json_str(o, &format!("{}: {n}", ev.function)),
        Some(Label::Id(p, id)) => json_str(o, &format!("{}: {p}#{id}", ev.function)),
        _ => json_str(o, ev.function),
    }
    o.s(if dur_ns.is_some() {
        ",\"cat\":\"cuda\",\"ph\":\"X\",\"ts\":"
    } else {
        ",\"cat\":\"cuda\",\"ph\":\"i\",\"s\":\"t\",\"ts\":"
    });
    o.micros(ev.start_ns);
    if let Some(dur_ns) = dur_ns {
        o.s(",\"dur\":");
        o.micros(dur_ns);
    }
    o.s(",\"pid\":");
    o.u(u64::from(std::process::id()));
    o.s(",\"tid\":");
    o.u(tid);
    o.s(",\"args\":{");
    for (name, v) in &ev.args {
        json_arg(o, c, name, v);
        o.push(b',');
    }
    o.s("\"result\":");
    json_value(o, c, &ev.result);
    o.s("}},\n");
}

/// `"name":value` of one argument; a named function or kernel adds `"name.module":"..."`.
fn json_arg(o: &mut Vec<u8>, c: Ctx<'_>, name: &str, v: &Value<'_>) {
    json_str(o, name);
    o.push(b':');
    json_value(o, c, v);
    if let Value::Handle { class: Class::Function | Class::Kernel, addr } = *v {
        if let Label::Name(_, Some(m)) = c.names.label(Class::Function, addr) {
            o.s(",\"");
            o.s(name);
            o.s(".module\":");
            json_str(o, m);
        }
    }
}

/// A handle's text (also JSON's string): its name, `stream#3(0x...)`, or the value.
fn handle_text(o: &mut Vec<u8>, c: Ctx<'_>, class: Class, addr: u64, text: bool) {
    match c.names.label(class, addr) {
        Label::Name(n, m) => {
            if text && !plain_name(n) {
                let _ = write!(o, "{n:?}");
            } else {
                o.s(n);
            }
            if let (true, Some(m)) = (text && matches!(class, Class::Function | Class::Kernel), m) {
                o.s(" [");
                o.s(m);
                o.push(b']');
            }
        }
        Label::Id(p, id) => {
            o.s(p);
            o.push(b'#');
            o.u(u64::from(id));
            o.push(b'(');
            o.hex(addr);
            o.push(b')');
        }
        Label::Plain => o.hex(addr),
    }
}

/// A name that reads unquoted in a text line (no spaces, commas, quotes or brackets).
fn plain_name(n: &str) -> bool {
    !n.is_empty() && n.bytes().all(|b| b.is_ascii_graphic() && !b",()[]\"=".contains(&b))
}

/// A launch's recorded arguments: one entry per argument, each a hex word (little-endian, at
/// most 8 bytes), `dev:0x...` for a word inside an allocation the trace saw, `{0x.., 0x..}` for
/// a larger argument in 8-byte words (its device pointers marked too); `...` when some were left
/// out. `None`: sizes not known.
fn args_words(c: Ctx<'_>, blob: &[u8]) -> Option<Vec<String>> {
    let (entries, cut) = args::entries(blob)?;
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
        u64::from_le_bytes(w)
    };
    // A whole 8-byte word inside an allocation the trace saw is a device pointer.
    let show = |w: &[u8]| {
        let x = word(w);
        if w.len() == 8 && x != 0 && c.names.is_device(x) {
            format!("dev:{x:#x}")
        } else {
            format!("{x:#x}")
        }
    };
    let mut out: Vec<String> = entries
        .iter()
        .map(|e| {
            if e.len() <= 8 {
                show(e)
            } else {
                let words: Vec<String> = e.chunks(8).map(show).collect();
                format!("{{{}}}", words.join(", "))
            }
        })
        .collect();
    if cut {
        out.push("...".into());
    }
    Some(out)
}

fn text_value(o: &mut Vec<u8>, c: Ctx<'_>, v: &Value<'_>) {
    match *v {
        Value::Handle { class, addr } => handle_text(o, c, class, addr, true),
        Value::Image(h) => {
            let _ = write!(o, "data@{:08x}", (h ^ (h >> 32)) as u32);
        }
        Value::Args { ptr, blob } => match args_words(c, blob) {
            Some(words) => {
                o.push(b'[');
                o.s(&words.join(", "));
                o.push(b']');
            }
            None => text_value(o, c, &Value::Ptr(ptr as usize as *const core::ffi::c_void)),
        },
        Value::I64(x) => o.i(x),
        Value::U64(x) | Value::Size(x) => o.u(x),
        Value::F64(x) => {
            let _ = write!(o, "{x}");
        }
        Value::Hex(x) => o.hex(x),
        Value::Ptr(p) if p.is_null() => o.s("NULL"),
        Value::Ptr(p) => o.hex(p as usize as u64),
        Value::Enum { name: Some(n), .. } => o.s(n),
        Value::Enum { name: None, value } => o.i(value),
        Value::Str(None) => o.s("NULL"),
        Value::Str(Some(s)) => {
            let (s, cut) = truncated(s.to_bytes());
            let _ = write!(o, "{:?}{}", String::from_utf8_lossy(s), if cut { "..." } else { "" });
        }
        Value::Bool(b) => o.s(if b { "true" } else { "false" }),
        Value::Name(n) => {
            let _ = write!(o, "{n:?}");
        }
    }
}

fn json_value(o: &mut Vec<u8>, c: Ctx<'_>, v: &Value<'_>) {
    match *v {
        Value::Handle { class, addr } => {
            o.push(b'"');
            handle_text(o, c, class, addr, false);
            o.push(b'"');
        }
        Value::Image(h) => {
            let _ = write!(o, "\"data@{:08x}\"", (h ^ (h >> 32)) as u32);
        }
        Value::Args { ptr, blob } => match args_words(c, blob) {
            Some(words) => {
                o.push(b'[');
                for (i, w) in words.iter().enumerate() {
                    if i > 0 {
                        o.push(b',');
                    }
                    json_str(o, w);
                }
                o.push(b']');
            }
            None => json_value(o, c, &Value::Ptr(ptr as usize as *const core::ffi::c_void)),
        },
        Value::I64(x) => o.i(x),
        Value::U64(x) | Value::Size(x) => o.u(x),
        Value::F64(x) if x.is_finite() => {
            let _ = write!(o, "{x}");
        }
        Value::F64(x) => {
            let _ = write!(o, "\"{x}\"");
        }
        Value::Hex(x) => {
            o.push(b'"');
            o.hex(x);
            o.push(b'"');
        }
        Value::Ptr(p) if p.is_null() => o.s("null"),
        Value::Ptr(p) => {
            o.push(b'"');
            o.hex(p as usize as u64);
            o.push(b'"');
        }
        Value::Enum { name: Some(n), .. } => json_str(o, n),
        Value::Enum { name: None, value } => o.i(value),
        Value::Str(None) => o.s("null"),
        Value::Str(Some(s)) => {
            let (s, cut) = truncated(s.to_bytes());
            let mut t = String::from_utf8_lossy(s).into_owned();
            if cut {
                t.push_str("...");
            }
            json_str(o, &t);
        }
        Value::Bool(b) => o.s(if b { "true" } else { "false" }),
        Value::Name(n) => json_str(o, n),
    }
}

fn truncated(b: &[u8]) -> (&[u8], bool) {
    if b.len() > MAX_STR {
        (&b[..MAX_STR], true)
    } else {
        (b, false)
    }
}

/// A JSON string literal with `"`, `\` and control characters escaped.
fn json_str(o: &mut Vec<u8>, s: &str) {
    o.push(b'"');
    if s.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\') {
        // Names: nothing to escape.
        o.s(s);
        o.push(b'"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => o.extend_from_slice(b"\\\""),
            '\\' => o.extend_from_slice(b"\\\\"),
            '\n' => o.extend_from_slice(b"\\n"),
            '\r' => o.extend_from_slice(b"\\r"),
            '\t' => o.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => {
                let mut buf = [0u8; 4];
                o.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    o.push(b'"');
}
