//! Entries bound under another export than their own symbol: a library older than the header
//! (`__nvJitLinkCreate_12_4` for `__nvJitLinkCreate_12_9`). Remembered for [`rebound`] (what a
//! doctor shows) and written to the trace as a `cudagen.bind` line.

use super::error::LibraryInfo;
use super::LibraryKind;
use std::sync::Mutex;

/// An entry the loaded library lacked, bound under an earlier release's or the unversioned name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebound {
    pub library: LibraryKind,
    /// Where the library was opened from.
    pub path: String,
    /// The symbol the header names.
    pub symbol: &'static str,
    /// The export bound in its place.
    pub bound: &'static str,
}

static REBOUND: Mutex<Vec<Rebound>> = Mutex::new(Vec::new());

/// Every entry bound so far under another export, in the order they were bound.
pub fn rebound() -> Vec<Rebound> {
    REBOUND.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Remembers (once) and traces that `symbol` of `info`'s library was bound as `bound`.
pub(super) fn note(kind: LibraryKind, info: &LibraryInfo, symbol: &'static str, bound: &'static str) {
    let path = info.opened.clone().unwrap_or_else(|| info.name.clone());
    let entry = Rebound { library: kind, path, symbol, bound };
    {
        let mut all = REBOUND.lock().unwrap_or_else(|p| p.into_inner());
        if all.contains(&entry) {
            return; // two threads raced to fill the same slot
        }
        all.push(entry);
    }
    use crate::trace::{record, Value};
    record("cudagen.bind", &[("symbol", Value::Name(symbol))], Value::Name(bound), std::time::Duration::ZERO);
}
