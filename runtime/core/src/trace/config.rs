//! What to trace, read once from the environment.

/// Output format of trace lines.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Format {
    Text,
    /// One JSON object per line.
    Json,
    /// Chrome trace-event JSON (an array of complete `"ph":"X"` events), for Perfetto / chrome://tracing.
    Perfetto,
}

/// `CUDAGEN_TRACE_ONLY=cuMem*,cuLaunch*`: names matching any pattern (`*` at the end = prefix).
#[derive(Default, Debug)]
pub(super) struct Filter {
    patterns: Vec<String>,
}

impl Filter {
    pub(super) fn parse(s: &str) -> Self {
        Filter { patterns: s.split(',').map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned).collect() }
    }

    pub(super) fn wants(&self, function: &str) -> bool {
        self.patterns.is_empty()
            || self.patterns.iter().any(|p| match p.strip_suffix('*') {
                Some(prefix) => function.starts_with(prefix),
                None => function == p,
            })
    }
}

pub(super) fn var(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().trim().to_owned()).filter(|v| !v.is_empty())
}

/// A value that turns a switch off: `0`, `false`, `off`, `no` (any case).
fn off(v: &str) -> bool {
    matches!(v.to_ascii_lowercase().as_str(), "0" | "false" | "off" | "no")
}

pub(super) fn flag(name: &str) -> bool {
    var(name).is_some_and(|v| !off(&v))
}

/// `CUDAGEN_TRACE_DURATIONS=0|false|off|no`: calls are stamped once, when they start (their
/// lines have no duration; Perfetto shows instants); anything else or unset: start and end.
pub(super) fn durations() -> bool {
    !var("CUDAGEN_TRACE_DURATIONS").is_some_and(|v| off(&v))
}

pub(super) fn format() -> Format {
    match var("CUDAGEN_TRACE_FORMAT").map(|f| f.to_ascii_lowercase()).as_deref() {
        Some("json") => Format::Json,
        Some("perfetto" | "chrome") => Format::Perfetto,
        _ => Format::Text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_matches_prefixes_and_names() {
        let f = Filter::parse("cuMem*, cuLaunchKernel");
        assert!(f.wants("cuMemAlloc_v2"));
        assert!(f.wants("cuLaunchKernel"));
        assert!(!f.wants("cuLaunchKernelEx"));
        assert!(!f.wants("cuCtxGetCurrent"));
        assert!(Filter::parse("").wants("anything"));
    }
}
