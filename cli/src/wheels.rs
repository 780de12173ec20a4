//! Which of NVIDIA's wheels holds which headers and shared libraries, from the library folders'
//! `fetch` tables (and their companions' `wheel`): nothing here names a library.

use cudagen_generator::profile::{LibraryKind, LibraryProfile};

/// What one wheel (by its key in `versions.toml`'s `[cuda.wheels]`) is extracted for.
#[derive(Debug, Default, PartialEq)]
pub struct WheelPlan {
    pub key: String,
    /// Header file names, extracted flat into the release's header folder.
    pub headers: Vec<String>,
    /// Libraries whose shared library the wheel holds: `(id, file name starts)`.
    pub libs: Vec<(String, Vec<String>)>,
    /// It holds a header every release has (a `required` library's): the header folder is not
    /// complete without it.
    pub core: bool,
}

/// The wheels of `kinds`, in the order the libraries first name them.
pub fn plans(kinds: &[LibraryKind]) -> Vec<WheelPlan> {
    let mut plans: Vec<WheelPlan> = Vec::new();
    for p in kinds.iter().map(|k| k.profile()) {
        let Some(own) = &p.fetch.wheel else { continue };
        plan(&mut plans, own).core |= p.fetch.required;
        plan(&mut plans, own).headers.extend(own_headers(p));
        if !p.fetch.libs.is_empty() {
            plan(&mut plans, own).libs.push((p.id.clone(), p.fetch.libs.clone()));
        }
        for c in &p.companions {
            let plan = plan(&mut plans, c.wheel.as_ref().unwrap_or(own));
            plan.core |= p.fetch.required;
            plan.headers.push(c.header.clone());
            // A companion's typedefs header is in the library's own wheel.
            if let Some(t) = &c.typedefs {
                plans.iter_mut().find(|w| &w.key == own).expect("planned above").headers.push(t.clone());
            }
        }
    }
    plans
}

fn plan<'a>(plans: &'a mut Vec<WheelPlan>, key: &str) -> &'a mut WheelPlan {
    if let Some(i) = plans.iter().position(|w| w.key == key) {
        return &mut plans[i];
    }
    plans.push(WheelPlan { key: key.to_string(), ..WheelPlan::default() });
    plans.last_mut().expect("just pushed")
}

/// The main header, its typedefs header, its `declares` and its fetched `includes`.
fn own_headers(p: &LibraryProfile) -> Vec<String> {
    let mut out = vec![p.header.clone()];
    out.extend(p.typedefs.iter().cloned());
    out.extend(p.declares.iter().cloned());
    out.extend(p.fetch.includes.iter().cloned());
    out
}

/// Headers every release has: the main and typedefs headers of the `required` libraries.
pub fn required_headers(kinds: &[LibraryKind]) -> Vec<String> {
    let required = kinds.iter().map(|k| k.profile()).filter(|p| p.fetch.required);
    required.flat_map(|p| std::iter::once(p.header.clone()).chain(p.typedefs.clone())).collect()
}

/// Headers read (and hashed) when present: every other header of the plans.
pub fn optional_headers(kinds: &[LibraryKind]) -> Vec<String> {
    let required = required_headers(kinds);
    let all = plans(kinds).into_iter().flat_map(|w| w.headers);
    let mut out: Vec<String> = Vec::new();
    for h in all.filter(|h| !required.contains(h)) {
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_libraries_fetch_what_they_parse() {
        let kinds = crate::libraries().unwrap();
        assert_eq!(required_headers(&kinds), ["cuda.h", "cudaTypedefs.h", "nvrtc.h"]);
        let plans = plans(&kinds);
        let keys: Vec<&str> = plans.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(keys, ["runtime", "profiler", "nvrtc", "nvjitlink", "nvvm"]);
        let core: Vec<&str> = plans.iter().filter(|w| w.core).map(|w| w.key.as_str()).collect();
        assert_eq!(core, ["runtime", "profiler", "nvrtc"]);
        // The profiler wheel holds the companions' headers; their typedefs are in the runtime's.
        assert_eq!(plans[1].headers, ["cudaProfiler.h", "cuda_profiler_api.h"]);
        assert!(plans[0].headers.contains(&"cudaProfilerTypedefs.h".to_string()));
        assert!(plans[0].headers.contains(&"builtin_types.h".to_string()));
        for k in &kinds {
            let p = k.profile();
            let fetched = plans.iter().any(|w| w.headers.contains(&p.header));
            assert!(fetched && p.companions.iter().all(|c| optional_headers(&kinds).contains(&c.header)), "{}", p.id);
        }
    }
}
