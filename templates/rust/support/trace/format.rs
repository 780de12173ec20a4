//! Rendering one trace line as text or as a JSON object (hand-written, no serde).

use super::buffer::Event;
use super::config::Format;
use super::Value;
use std::io::Write;
use std::time::Duration;

/// One event in the configured format, newline included.
pub(super) fn event(format: Format, tid: u64, ev: &Event<'_>) -> Vec<u8> {
    let d = Duration::from_nanos(ev.dur_ns);
    match format {
        Format::Perfetto => perfetto(tid, ev.function, &ev.args, ev.result, Duration::from_nanos(ev.start_ns), d),
        f => line(f == Format::Json, tid, ev.function, &ev.args, ev.result, d),
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
    format!("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":\"cudagen trace\"}}}}\n]\n", std::process::id())
}

/// Longest C string printed, in bytes; longer ones end in `...`.
const MAX_STR: usize = 256;

/// One complete line, newline included.
pub(super) fn line(
    json: bool,
    tid: u64,
    function: &str,
    args: &[(&str, Value<'_>)],
    result: Value<'_>,
    d: Duration,
) -> Vec<u8> {
    let mut o = Vec::with_capacity(128);
    let ns = d.as_nanos().min(u64::MAX as u128) as u64;
    // Writes to a Vec cannot fail.
    if json {
        let _ = write!(o, "{{\"tid\":{tid},\"fn\":");
        json_str(&mut o, function);
        o.extend_from_slice(b",\"args\":{");
        for (i, (name, v)) in args.iter().enumerate() {
            if i > 0 {
                o.push(b',');
            }
            json_str(&mut o, name);
            o.push(b':');
            json_value(&mut o, v);
        }
        o.extend_from_slice(b"},\"result\":");
        json_value(&mut o, &result);
        let _ = writeln!(o, ",\"ns\":{ns}}}");
    } else {
        let _ = write!(o, "[cudagen tid={tid}] {function}(");
        for (i, (name, v)) in args.iter().enumerate() {
            let _ = write!(o, "{}{name}=", if i > 0 { ", " } else { "" });
            text_value(&mut o, v);
        }
        o.extend_from_slice(b") -> ");
        text_value(&mut o, &result);
        let _ = writeln!(o, " {}.{:03}us", ns / 1000, ns % 1000);
    }
    o
}

/// One Chrome trace-event "complete" slice (`ph: X`; microsecond times), comma and newline
/// included: the array is opened when the file is created and closed at exit.
pub(super) fn perfetto(
    tid: u64,
    function: &str,
    args: &[(&str, Value<'_>)],
    result: Value<'_>,
    start: Duration,
    d: Duration,
) -> Vec<u8> {
    let mut o = Vec::with_capacity(160);
    let us = |d: Duration| d.as_nanos() as f64 / 1000.0;
    o.extend_from_slice(b"{\"name\":");
    json_str(&mut o, function);
    let _ = write!(o, ",\"cat\":\"cuda\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":{},\"tid\":{tid},\"args\":{{", us(start), us(d), std::process::id());
    for (name, v) in args {
        json_str(&mut o, name);
        o.push(b':');
        json_value(&mut o, v);
        o.push(b',');
    }
    o.extend_from_slice(b"\"result\":");
    json_value(&mut o, &result);
    o.extend_from_slice(b"}},\n");
    o
}

fn text_value(o: &mut Vec<u8>, v: &Value<'_>) {
    let _ = match *v {
        Value::I64(x) => write!(o, "{x}"),
        Value::U64(x) | Value::Size(x) => write!(o, "{x}"),
        Value::F64(x) => write!(o, "{x}"),
        Value::Hex(x) => write!(o, "{x:#x}"),
        Value::Ptr(p) if p.is_null() => write!(o, "NULL"),
        Value::Ptr(p) => write!(o, "{p:p}"),
        Value::Enum { name: Some(n), .. } => write!(o, "{n}"),
        Value::Enum { name: None, value } => write!(o, "{value}"),
        Value::Str(None) => write!(o, "NULL"),
        Value::Str(Some(s)) => {
            let (s, cut) = truncated(s.to_bytes());
            write!(
                o,
                "{:?}{}",
                String::from_utf8_lossy(s),
                if cut { "..." } else { "" }
            )
        }
        Value::Bool(b) => write!(o, "{b}"),
        Value::Name(n) => write!(o, "{n:?}"),
    };
}

fn json_value(o: &mut Vec<u8>, v: &Value<'_>) {
    let _ = match *v {
        Value::I64(x) => write!(o, "{x}"),
        Value::U64(x) | Value::Size(x) => write!(o, "{x}"),
        Value::F64(x) if x.is_finite() => write!(o, "{x}"),
        Value::F64(x) => write!(o, "\"{x}\""),
        Value::Hex(x) => write!(o, "\"{x:#x}\""),
        Value::Ptr(p) if p.is_null() => write!(o, "null"),
        Value::Ptr(p) => write!(o, "\"{p:p}\""),
        Value::Enum { name: Some(n), .. } => {
            json_str(o, n);
            Ok(())
        }
        Value::Enum { name: None, value } => write!(o, "{value}"),
        Value::Str(None) => write!(o, "null"),
        Value::Str(Some(s)) => {
            let (s, cut) = truncated(s.to_bytes());
            let mut t = String::from_utf8_lossy(s).into_owned();
            if cut {
                t.push_str("...");
            }
            json_str(o, &t);
            Ok(())
        }
        Value::Bool(b) => write!(o, "{b}"),
        Value::Name(n) => {
            json_str(o, n);
            Ok(())
        }
    };
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
