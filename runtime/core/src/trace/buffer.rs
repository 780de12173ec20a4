//! Capture on the calling thread: each traced call is encoded as raw words (no formatting, no
//! lock, no atomic read-modify-write) into its thread's current chunk; the chunk's `committed`
//! length is published with a release store. A call of a function without C strings has its
//! record reserved before the library call ([`reserve`]) and completed after it ([`close`]);
//! while it is open the thread's other calls are not buffered, so the chunk is not switched and
//! nothing past the open record is published. A call of a generated function is the address of
//! its static [`Desc`], two stamps, one word per argument, the result's word (and copies of C
//! strings); a call given as values ([`super::record`]) keeps the longer self-describing form.
//! Full chunks go to a queue for the writer thread ([`super::sink`]), which decodes, formats and
//! writes them and recycles them; the writer also reads the committed part of every thread's
//! current chunk (registered globally) now and then, at exit and on a fatal signal, so those
//! paths reach every pending call. Memory is bounded: at [`MAX_CHUNKS`] chunks a thread whose
//! chunk is full drops calls and counts them.
//!
//! The calling thread's state is one pointer, found by [`current`]; a thread local, touched once
//! per thread, hands the chunk over when the thread ends.
//!
//! The record format is this module's; [`writer`] encodes records into chunks and hands them
//! over, [`reader`] decodes them.

mod reader;
mod writer;

pub(super) use reader::{Event, Reader};
pub(super) use writer::{close, drain, encode, prefetch_read, push, push_values, reserve, Local, Open, Pushed, DROPPED};

/// Longest string kept (the formatter prints 256 bytes and `...`).
pub(super) const MAX_STR: usize = 257;
/// Bytes a copied C string takes at most (length, bytes, NUL).
pub(super) const STR_BYTES: usize = 2 + MAX_STR + 1;
/// The first word of a call given as values (a `Desc` address is never 0).
pub(super) const VALUES: u64 = 0;

pub(super) fn align8(n: usize) -> usize {
    (n + 7) & !7
}

/// Bytes of a call's record without its strings: `desc`, two stamps, `words` words, the
/// `written` mask.
pub(super) const fn words_len(words: usize) -> usize {
    (4 + words) * 8
}

#[cfg(test)]
mod tests {
    use super::super::{current, Arg, Desc, Kind, Value};
    use super::*;
    use std::sync::Mutex;

    /// What this thread captured since the last call. Tests run on several threads and a drain
    /// takes every thread's calls: the others' are kept for them.
    fn mine() -> Vec<u8> {
        static TAKEN: Mutex<Vec<(u64, Vec<u8>)>> = Mutex::new(Vec::new());
        let me = super::super::sink::tid();
        let mut taken = TAKEN.lock().unwrap();
        drain(false, true, |pending| taken.extend(pending.iter().map(|(tid, b)| (*tid, b.to_vec()))));
        let (mine, others): (Vec<_>, Vec<_>) = taken.drain(..).partition(|(tid, _)| *tid == me);
        *taken = others;
        mine.into_iter().flat_map(|(_, b)| b).collect()
    }

    static ONE: Desc = Desc::new("cuOne,x", &[Arg::new(Kind::U64)], Kind::Enum(0), &[]);

    #[test]
    fn open_record_is_published_by_close_only() {
        // SAFETY: this thread's buffer; no C strings.
        unsafe {
            // The thread's first call makes its buffer.
            let _ = push(current::get(), &ONE, 1, &[3, 0], 0);
            let _ = mine();
            let o = reserve(current::get(), &ONE, 5, true).expect("a record is reserved");
            // A call made meanwhile on this thread (from a callback) is not buffered, and the
            // open record is not published.
            assert!(matches!(push(current::get(), &ONE, 6, &[4, 0], 0), Pushed::Unbuffered));
            assert!(reserve(current::get(), &ONE, 6, true).is_none());
            assert!(mine().is_empty());
            close(o, 9, &[7, 0], 0);
            let b = mine();
            let ev: Vec<Event<'_>> = Reader::new(&b).collect();
            assert_eq!(ev.len(), 1);
            assert_eq!((ev[0].function, ev[0].start_ns, ev[0].dur_ns), ("cuOne", 5, 4));
            assert!(matches!(ev[0].args[0].1, Value::U64(7)));
            // Closed: calls are buffered again.
            assert!(matches!(push(current::get(), &ONE, 10, &[8, 0], 0), Pushed::Stored));
            let o = reserve(current::get(), &ONE, 11, true).expect("reserved again");
            close(o, 12, &[9, 0], 0);
            let b = mine();
            assert_eq!(Reader::new(&b).map(|e| e.start_ns).collect::<Vec<_>>(), [10, 11]);
        }
    }

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
        push_values("cuTest", &args, Value::Enum { name: None, value: 0 }, 10, 20);
        let mine = mine();
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

    fn color(v: i64) -> Option<&'static str> {
        (v == 2).then_some("RED")
    }

    static DESC: Desc = Desc::new(
        "cuWords,i,o,p,s,n,c,f,b",
        &[
            Arg::new(Kind::I64),
            Arg::out(Kind::Size),
            Arg::out(Kind::Hex),
            Arg::new(Kind::Str),
            Arg::new(Kind::Str),
            Arg::new(Kind::Enum(0)),
            Arg::new(Kind::F64),
            Arg::new(Kind::Bool),
        ],
        Kind::Str,
        &[color],
    );

    #[test]
    fn words_round_trip() {
        let long = std::ffi::CString::new("y".repeat(400)).unwrap();
        for k in 0..3u64 {
            let words =
                [(-5i64) as u64, 4096, 0x7000, c"abc".as_ptr() as u64, 0, 2 + k, 0.25f64.to_bits(), 1, long.as_ptr() as u64];
            // SAFETY: the string words point at live C strings.
            unsafe {
                let _ = push(current::get(), &DESC, 100 + k, &words, 0b10);
            }
        }
        push_values("cuAfter", &[], Value::Str(None), 1, 2);
        let mine = mine();
        let ev: Vec<Event<'_>> = Reader::new(&mine).filter(|e| e.function.starts_with("cu") && e.function != "cuTest").collect();
        assert_eq!(ev.len(), 4);
        for (k, e) in ev[..3].iter().enumerate() {
            assert_eq!((e.function, e.start_ns, e.args.len()), ("cuWords", 100 + k as u64, 8));
            assert_eq!(e.args.iter().map(|a| a.0).collect::<Vec<_>>(), ["i", "o", "p", "s", "n", "c", "f", "b"]);
            assert!(matches!(e.args[0].1, Value::I64(-5)));
            assert!(matches!(e.args[1].1, Value::Size(4096)));
            assert!(matches!(e.args[2].1, Value::Ptr(p) if p as usize == 0x7000));
            assert!(matches!(e.args[3].1, Value::Str(Some(x)) if x.to_bytes() == b"abc"));
            assert!(matches!(e.args[4].1, Value::Str(None)));
            match (k, e.args[5].1) {
                (0, Value::Enum { name: Some("RED"), value: 2 }) | (_, Value::Enum { name: None, .. }) => {}
                (_, v) => panic!("{v:?}"),
            }
            assert!(matches!(e.args[6].1, Value::F64(x) if x == 0.25));
            assert!(matches!(e.args[7].1, Value::Bool(true)));
            assert!(matches!(e.result, Value::Str(Some(x)) if x.to_bytes().len() == MAX_STR));
        }
        assert_eq!(ev[3].function, "cuAfter");
    }
}
