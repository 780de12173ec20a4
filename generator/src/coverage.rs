//! The coverage report: every header function on every surface, or listed with a reason.

use crate::ir::{Api, Function, Library, LibraryKind};
use crate::profile::PythonConvention;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write;

#[derive(Debug, Default, Clone)]
pub struct Coverage {
    pub libraries: BTreeMap<LibraryKind, LibraryCoverage>,
}

#[derive(Debug, Default, Clone)]
pub struct LibraryCoverage {
    /// API names of every function in the header.
    pub functions: BTreeSet<String>,
    /// Items the parser could not represent: (name, reason).
    pub parse_skipped: Vec<(String, String)>,
    /// Surface name -> what it covers.
    pub surfaces: BTreeMap<String, SurfaceCoverage>,
    /// Functions whose typed bindings are `unsafe` -> why (`Function::unsafe_because`).
    pub unsafe_fns: BTreeMap<String, String>,
}

#[derive(Debug, Default, Clone)]
pub struct SurfaceCoverage {
    pub emitted: BTreeSet<String>,
    /// Function name -> reason it is missing or only partly typed.
    pub skipped: BTreeMap<String, String>,
}

impl Coverage {
    pub fn add_library(&mut self, library: &Library) {
        let lc = self.libraries.entry(library.kind).or_default();
        lc.functions.extend(library.functions.iter().map(|f| f.name.clone()));
        lc.unsafe_fns.extend(library.functions.iter().filter(|f| f.needs_unsafe).map(|f| {
            let why: Vec<String> = f.unsafe_because.iter().map(|u| u.short()).collect();
            (f.name.clone(), why.join(", "))
        }));
        lc.parse_skipped
            .extend(library.skipped.iter().map(|s| (format!("{} {}", s.what, s.name), format!("{} ({})", s.reason, s.location))));
    }

    /// Records that `surface` emitted `function` of `kind`.
    pub fn emitted(&mut self, kind: LibraryKind, surface: &str, function: &str) {
        self.surface(kind, surface).emitted.insert(function.to_string());
    }

    /// Records that `surface` skipped `function` (or typed it only partly) and why.
    pub fn skipped(&mut self, kind: LibraryKind, surface: &str, function: &str, reason: impl Into<String>) {
        self.surface(kind, surface).skipped.insert(function.to_string(), reason.into());
    }

    fn surface(&mut self, kind: LibraryKind, surface: &str) -> &mut SurfaceCoverage {
        self.libraries.entry(kind).or_default().surfaces.entry(surface.to_string()).or_default()
    }

    /// Reads the rendered files back: a function a renderer reports as emitted counts only when
    /// its entry is in that surface's output (Rust: its `#[doc(alias)]` item; Python: its entry
    /// in the module table; C: an export of every ABI symbol). Anything else becomes skipped.
    pub fn check_output(&mut self, api: &Api, files: &BTreeMap<String, String>) {
        self.check_output_in(api, files, "rust/src/")
    }

    /// [`Self::check_output`] with the Rust modules under `rust_src` (`rust/src/cuda13/`).
    pub fn check_output_in(&mut self, api: &Api, files: &BTreeMap<String, String>, rust_src: &str) {
        for lib in &api.libraries {
            let m = &lib.profile().module;
            let Some(lc) = self.libraries.get_mut(&lib.kind) else { continue };
            for (surface, sc) in lc.surfaces.iter_mut() {
                let text = |path: String| files.get(&path).map(String::as_str).unwrap_or("");
                let found: Box<dyn Fn(&Function) -> bool> = match surface.as_str() {
                    "rust" => {
                        let names = names_between(text(format!("{rust_src}{m}/mod.rs")), "#[doc(alias = \"", "\")]");
                        Box::new(move |f| names.contains(f.name.as_str()))
                    }
                    "python" => {
                        let profile = lib.profile();
                        let entries =
                            names_between(text(format!("python/src/{}.rs", profile.python_tuple_module())), "(c\"", "\", ");
                        // A wrapped library's public module has a `def` per function as well.
                        let public = match profile.python {
                            PythonConvention::Tuple => None,
                            PythonConvention::Exceptions { .. } => {
                                Some(names_between(text(format!("python/python/cudagen/{m}.py")), "\ndef ", "("))
                            }
                        };
                        Box::new(move |f| {
                            entries.contains(f.name.as_str())
                                && public.as_ref().is_none_or(|p| p.contains(f.names.python.as_str()))
                        })
                    }
                    "c" => {
                        let exports = names_between(text(format!("c/src/{m}.rs")), "pub unsafe extern \"C\" fn ", "(");
                        Box::new(move |f| f.all_symbols().all(|s| exports.contains(s)))
                    }
                    _ => continue,
                };
                let absent: Vec<&Function> = lib.functions.iter().filter(|f| sc.emitted.contains(&f.name) && !found(f)).collect();
                for f in absent {
                    sc.emitted.remove(&f.name);
                    sc.skipped.insert(f.name.clone(), "reported emitted, but not found in the rendered output".into());
                }
            }
        }
    }

    /// Number of problems: per surface, the functions missing or skipped (each once), plus the
    /// items the parser skipped.
    pub fn problems(&self) -> usize {
        self.libraries
            .values()
            .map(|l| {
                l.parse_skipped.len()
                    + l.surfaces
                        .values()
                        .map(|s| {
                            let missing: BTreeSet<&String> = l.functions.difference(&s.emitted).collect();
                            missing.union(&s.skipped.keys().collect()).count()
                        })
                        .sum::<usize>()
            })
            .sum()
    }

    /// The human-readable report.
    pub fn report(&self) -> String {
        let mut s = String::new();
        for (kind, l) in &self.libraries {
            let _ = writeln!(s, "{}: {} functions in the headers", kind.module(), l.functions.len());
            for (name, sc) in &l.surfaces {
                let covered = l.functions.intersection(&sc.emitted).count();
                let _ = writeln!(s, "  {name:<7} {covered}/{} typed, {} skipped", l.functions.len(), sc.skipped.len());
                for missing in l.functions.difference(&sc.emitted) {
                    if !sc.skipped.contains_key(missing) {
                        let _ = writeln!(s, "    missing {missing}: not emitted");
                    }
                }
                for (f, why) in &sc.skipped {
                    let _ = writeln!(s, "    skipped {f}: {why}");
                }
            }
            for (what, why) in &l.parse_skipped {
                let _ = writeln!(s, "  parser skipped {what}: {why}");
            }
            let _ = writeln!(s, "  unsafe  {}/{} typed fns (the caller's promise)", l.unsafe_fns.len(), l.functions.len());
            for (f, why) in &l.unsafe_fns {
                let _ = writeln!(s, "    unsafe {f}: {why}");
            }
        }
        s
    }
}

/// Every `name` that `text` holds as `{open}name{close}` (a name holds no first character of
/// `close`): read once per file, so that each function is one set lookup, not a search.
fn names_between<'t>(text: &'t str, open: &str, close: &str) -> HashSet<&'t str> {
    let stop = close.chars().next().expect("a closing text");
    let mut names = HashSet::new();
    for (at, _) in text.match_indices(open) {
        let rest = &text[at + open.len()..];
        if let Some(end) = rest.find(stop).filter(|&end| rest[end..].starts_with(close)) {
            names.insert(&rest[..end]);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Role;
    use crate::passes::build;

    #[test]
    fn a_function_missing_from_the_output_is_not_counted_as_emitted() {
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.functions = vec![
            build::function("cuA", vec![]),
            build::function("cuB", vec![build::param("x", crate::ir::Type::named("int"), Role::Value)]),
        ];
        let api = Api { cuda_version: "12.9".into(), libraries: vec![lib] };
        let mut cov = Coverage::default();
        cov.add_library(&api.libraries[0]);
        for surface in ["rust", "python", "c"] {
            cov.emitted(crate::profile::kind("driver"), surface, "cuA");
            cov.emitted(crate::profile::kind("driver"), surface, "cuB");
        }
        let files: BTreeMap<String, String> = [
            ("rust/src/driver/mod.rs", "#[doc(alias = \"cuA\")]\n#[doc(alias = \"cuB\")]"),
            ("python/src/driver.rs", "(c\"cuA\", cuA, c\"\"),"),
            ("c/src/driver.rs", "pub unsafe extern \"C\" fn cuA() {}\npub unsafe extern \"C\" fn cuB(x: c_int) {}"),
        ]
        .into_iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
        cov.check_output(&api, &files);
        let l = &cov.libraries[&crate::profile::kind("driver")];
        assert!(l.surfaces["rust"].skipped.is_empty() && l.surfaces["c"].skipped.is_empty());
        assert_eq!(l.surfaces["python"].skipped.keys().collect::<Vec<_>>(), ["cuB"]);
        assert_eq!(cov.problems(), 1);
    }
}
