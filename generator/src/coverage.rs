//! The coverage report: every header function on every surface, or listed with a reason.

use crate::ir::{Library, LibraryKind};
use std::collections::{BTreeMap, BTreeSet};
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

    /// Number of problems: functions missing from a surface, skipped items.
    pub fn problems(&self) -> usize {
        self.libraries
            .values()
            .map(|l| {
                l.parse_skipped.len()
                    + l.surfaces.values().map(|s| s.skipped.len() + l.functions.difference(&s.emitted).count()).sum::<usize>()
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
                let _ = writeln!(
                    s,
                    "  {name:<7} {covered}/{} typed, {} skipped",
                    l.functions.len(),
                    sc.skipped.len()
                );
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
        }
        s
    }
}
