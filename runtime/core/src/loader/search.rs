//! Where each library is looked for: the order here, the places from its [`Profile`](super::Profile).

use super::LibraryKind;
use std::env;
use std::path::{Path, PathBuf};

/// Environment variable naming the library's exact path (it then is the only candidate).
pub(crate) fn override_var(kind: LibraryKind) -> &'static str {
    kind.profile().override_var
}

/// Candidates in search order: bare sonames (resolved by `dlopen`'s own search) and absolute
/// paths, without duplicates.
pub(crate) fn candidates(kind: LibraryKind, sonames: &[&str]) -> Vec<String> {
    if let Some(p) = env_nonempty(override_var(kind)) {
        return vec![p];
    }
    let profile = kind.profile();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for var in profile.path_vars {
        dirs.extend(env_paths(var));
    }
    for var in profile.home_vars {
        if let Some(h) = env_nonempty(var) {
            dirs.push(Path::new(&h).join(profile.home_lib));
        }
    }
    dirs.extend(profile.dirs.iter().map(PathBuf::from));
    if !profile.wheel_dirs.is_empty() {
        for site in python_site_dirs() {
            dirs.extend(profile.wheel_dirs.iter().map(|w| site.join(w)));
        }
    }
    let mut out: Vec<String> = sonames.iter().map(|s| s.to_string()).collect();
    for d in dirs {
        for s in sonames {
            let p = d.join(s).to_string_lossy().into_owned();
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// `site-packages`/`dist-packages` dirs from `CUDAGEN_PYTHON_SITE`, then `lib/python3*/` under
/// `VIRTUAL_ENV`, `CONDA_PREFIX` and each part of `PYTHONHOME`.
fn python_site_dirs() -> Vec<PathBuf> {
    let mut sites: Vec<PathBuf> = env_paths("CUDAGEN_PYTHON_SITE").collect();
    let prefixes =
        ["VIRTUAL_ENV", "CONDA_PREFIX"].into_iter().filter_map(env_nonempty).map(PathBuf::from).chain(env_paths("PYTHONHOME"));
    for prefix in prefixes {
        let lib = prefix.join("lib");
        let Ok(rd) = std::fs::read_dir(&lib) else {
            continue;
        };
        let mut pys: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
            .map(|e| e.path())
            .collect();
        pys.sort(); // deterministic order
        for py in pys {
            sites.push(py.join("site-packages"));
            sites.push(py.join("dist-packages"));
        }
    }
    sites
}

fn env_nonempty(var: &str) -> Option<String> {
    env::var_os(var).map(|v| v.to_string_lossy().into_owned()).filter(|v| !v.is_empty())
}

fn env_paths(var: &str) -> impl Iterator<Item = PathBuf> {
    let v = env::var_os(var).unwrap_or_default();
    env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect::<Vec<_>>().into_iter()
}

#[cfg(test)]
mod tests {
    use super::super::kind::tests::DRIVER;
    use super::*;

    #[test]
    fn the_bare_soname_comes_first_then_each_place_once() {
        let kind = DRIVER;
        let c = candidates(kind, &["libx.so.1"]);
        if let Some(p) = env_nonempty(override_var(kind)) {
            return assert_eq!(c, [p], "the override is the only candidate");
        }
        assert_eq!(c[0], "libx.so.1");
        for d in kind.profile().dirs {
            assert!(c.contains(&format!("{d}/libx.so.1")), "{d} in {c:?}");
        }
        let distinct: std::collections::BTreeSet<&String> = c.iter().collect();
        assert_eq!(distinct.len(), c.len(), "{c:?}");
    }
}
