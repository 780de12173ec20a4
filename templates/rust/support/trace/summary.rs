//! `CUDAGEN_TRACE_SUMMARY=1`: per-function calls, errors and time, printed to stderr at exit
//! (sorted by total time, like an API summary of `nsys`).

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;

#[derive(Default, Clone, Copy)]
struct Stat {
    calls: u64,
    errors: u64,
    total_ns: u128,
    max_ns: u64,
}

static STATS: Mutex<Option<HashMap<&'static str, Stat>>> = Mutex::new(None);

/// Counts one call.
pub(super) fn add(function: &'static str, failed: bool, dur_ns: u64) {
    let ns = u128::from(dur_ns);
    let mut g = STATS.lock().unwrap_or_else(|p| p.into_inner());
    let s = g.get_or_insert_with(HashMap::new).entry(function).or_default();
    s.calls += 1;
    s.errors += u64::from(failed);
    s.total_ns += ns;
    s.max_ns = s.max_ns.max(ns.min(u64::MAX as u128) as u64);
}

/// The summary table (empty when nothing was counted). Without durations (`timed` false) it has
/// calls and errors only, sorted by calls.
pub(super) fn render(timed: bool) -> String {
    let g = STATS.lock().unwrap_or_else(|p| p.into_inner());
    let Some(map) = g.as_ref() else { return String::new() };
    let mut rows: Vec<(&str, Stat)> = map.iter().map(|(k, v)| (*k, *v)).collect();
    if timed {
        rows.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then(a.0.cmp(b.0)));
    } else {
        rows.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
    }
    let calls: u64 = rows.iter().map(|r| r.1.calls).sum();
    let errors: u64 = rows.iter().map(|r| r.1.errors).sum();
    let mut o = Vec::new();
    let _ = writeln!(o, "[cudagen] API summary (pid {}): {} functions, {calls} calls, {errors} errors", std::process::id(), rows.len());
    if !timed {
        let _ = writeln!(o, "{:>10} {:>8}  Name", "Calls", "Errors");
        for (name, s) in rows {
            let _ = writeln!(o, "{:>10} {:>8}  {name}", s.calls, s.errors);
        }
        return String::from_utf8_lossy(&o).into_owned();
    }
    let _ = writeln!(o, "{:>12} {:>6} {:>10} {:>8} {:>12} {:>12}  Name", "Total (ms)", "Time%", "Calls", "Errors", "Mean (us)", "Max (us)");
    let all: u128 = rows.iter().map(|r| r.1.total_ns).sum::<u128>().max(1);
    for (name, s) in rows {
        let _ = writeln!(
            o,
            "{:>12.3} {:>6.1} {:>10} {:>8} {:>12.3} {:>12.3}  {name}",
            s.total_ns as f64 / 1e6,
            s.total_ns as f64 * 100.0 / all as f64,
            s.calls,
            s.errors,
            s.total_ns as f64 / s.calls.max(1) as f64 / 1e3,
            s.max_ns as f64 / 1e3,
        );
    }
    String::from_utf8_lossy(&o).into_owned()
}
