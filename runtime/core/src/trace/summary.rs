//! `CUDAGEN_TRACE_SUMMARY=1`: per-function calls, errors and time, printed to stderr at exit
//! (sorted by total time, like an API summary of `nsys`), then per kernel (launches, distinct
//! grid and block shapes, API time of its launches) and per launched graph (launches, its graph
//! and the nodes traced calls added to it).

use super::buffer::Event;
use super::names::{Label, Names};
use super::{Class, Value};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Mutex;

#[derive(Default, Clone, Copy)]
struct Stat {
    calls: u64,
    errors: u64,
    total_ns: u128,
    max_ns: u64,
}

/// Launches of one kernel or graph.
#[derive(Default)]
struct Launches {
    launches: u64,
    total_ns: u128,
    /// Distinct (grid, block) dimensions.
    shapes: HashSet<[u64; 6]>,
}

#[derive(Default)]
struct Stats {
    functions: HashMap<&'static str, Stat>,
    /// By the kernel's name (its value when unnamed).
    kernels: HashMap<String, Launches>,
    /// By the executable graph's handle.
    graphs: HashMap<u64, Launches>,
}

static STATS: Mutex<Option<Stats>> = Mutex::new(None);

/// Counts one call (and the launch it is, if it launches something).
pub(super) fn add(names: &Names, ev: &Event<'_>) {
    let (failed, ns) = (super::failed(&ev.result), u128::from(ev.dur_ns));
    let mut g = STATS.lock().unwrap_or_else(|p| p.into_inner());
    let stats = g.get_or_insert_with(Stats::default);
    let s = stats.functions.entry(ev.function).or_default();
    s.calls += 1;
    s.errors += u64::from(failed);
    s.total_ns += ns;
    s.max_ns = s.max_ns.max(ns.min(u64::MAX as u128) as u64);
    let Some(d) = ev.desc.filter(|d| usize::from(d.launched) < d.args.len()) else { return };
    let Value::Handle { class, addr } = ev.args[usize::from(d.launched)].1 else { return };
    let l = match class {
        Class::GraphExec => stats.graphs.entry(addr).or_default(),
        Class::Function | Class::Kernel => {
            let key = match names.label(class, addr) {
                Label::Name(n, _) => n.to_string(),
                _ => format!("{addr:#x}"),
            };
            stats.kernels.entry(key).or_default()
        }
        _ => return,
    };
    l.launches += 1;
    l.total_ns += ns;
    let at = usize::from(d.shape);
    if let Some(dims) = ev.args.get(at..at.saturating_add(6)) {
        let mut shape = [0u64; 6];
        for (x, (_, v)) in shape.iter_mut().zip(dims) {
            *x = if let Value::U64(n) = v { *n } else { 0 };
        }
        l.shapes.insert(shape);
    }
}

/// The summary tables (empty when nothing was counted). Without durations (`timed` false) they
/// have counts only, sorted by counts.
pub(super) fn render(timed: bool, names: &Names) -> String {
    let g = STATS.lock().unwrap_or_else(|p| p.into_inner());
    let Some(stats) = g.as_ref() else { return String::new() };
    let mut o = Vec::new();
    functions(&mut o, timed, &stats.functions);
    if !stats.kernels.is_empty() {
        let rows: Vec<(String, &Launches)> = stats.kernels.iter().map(|(k, v)| (k.clone(), v)).collect();
        // No shapes: launches whose dimensions are behind a pointer (`cuLaunchKernelEx`).
        let shapes = |l: &Launches| if l.shapes.is_empty() { "-".to_string() } else { l.shapes.len().to_string() };
        launches(&mut o, timed, "kernels", "Shapes", rows, shapes);
    }
    if !stats.graphs.is_empty() {
        let rows: Vec<(String, &Launches)> = stats
            .graphs
            .iter()
            .map(|(&exec, l)| {
                let exec_label = match names.label(Class::GraphExec, exec) {
                    Label::Id(p, id) => format!("{p}#{id}"),
                    _ => format!("{exec:#x}"),
                };
                let (graph, nodes) = names.graph_of(exec);
                let graph = graph.map_or_else(|| "graph ?".to_string(), |id| format!("graph#{id}"));
                let nodes = nodes.map_or_else(|| "nodes ?".to_string(), |n| format!("{n} nodes"));
                (format!("{exec_label} ({graph}, {nodes})"), l)
            })
            .collect();
        launches(&mut o, timed, "graphs", "", rows, |_| String::new());
    }
    String::from_utf8_lossy(&o).into_owned()
}

fn functions(o: &mut Vec<u8>, timed: bool, map: &HashMap<&'static str, Stat>) {
    let mut rows: Vec<(&str, Stat)> = map.iter().map(|(k, v)| (*k, *v)).collect();
    if timed {
        rows.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then(a.0.cmp(b.0)));
    } else {
        rows.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0)));
    }
    let calls: u64 = rows.iter().map(|r| r.1.calls).sum();
    let errors: u64 = rows.iter().map(|r| r.1.errors).sum();
    let _ = writeln!(
        o,
        "[cudagen] API summary (pid {}): {} functions, {calls} calls, {errors} errors",
        std::process::id(),
        rows.len()
    );
    if !timed {
        let _ = writeln!(o, "{:>10} {:>8}  Name", "Calls", "Errors");
        for (name, s) in rows {
            let _ = writeln!(o, "{:>10} {:>8}  {name}", s.calls, s.errors);
        }
        return;
    }
    let _ = writeln!(
        o,
        "{:>12} {:>6} {:>10} {:>8} {:>12} {:>12}  Name",
        "Total (ms)", "Time%", "Calls", "Errors", "Mean (us)", "Max (us)"
    );
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
}

/// One table of launches by what they ran (`what`: "kernels", "graphs"); `extra` names a column
/// that `cell` fills (none when empty). Sorted by API time of the launches, or by launches.
fn launches(
    o: &mut Vec<u8>,
    timed: bool,
    what: &str,
    extra: &str,
    mut rows: Vec<(String, &Launches)>,
    cell: impl Fn(&Launches) -> String,
) {
    if timed {
        rows.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then(a.0.cmp(&b.0)));
    } else {
        rows.sort_by(|a, b| b.1.launches.cmp(&a.1.launches).then(a.0.cmp(&b.0)));
    }
    let total: u64 = rows.iter().map(|r| r.1.launches).sum();
    let _ = writeln!(o, "[cudagen] launches by {}: {} {what}, {total} launches", &what[..what.len() - 1], rows.len());
    let extra_head = if extra.is_empty() { String::new() } else { format!(" {extra:>7}") };
    if timed {
        let _ = writeln!(o, "{:>12} {:>10}{extra_head} {:>12}  Name", "Total (ms)", "Launches", "Mean (us)");
    } else {
        let _ = writeln!(o, "{:>10}{extra_head}  Name", "Launches");
    }
    for (name, l) in rows {
        let extra_cell = if extra.is_empty() { String::new() } else { format!(" {:>7}", cell(l)) };
        if timed {
            let mean = l.total_ns as f64 / l.launches.max(1) as f64 / 1e3;
            let _ = writeln!(o, "{:>12.3} {:>10}{extra_cell} {mean:>12.3}  {name}", l.total_ns as f64 / 1e6, l.launches);
        } else {
            let _ = writeln!(o, "{:>10}{extra_cell}  {name}", l.launches);
        }
    }
}
