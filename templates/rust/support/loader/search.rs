//! Where each library is looked for (see `LibraryKind` for the documented order).

use super::LibraryKind;
use std::env;
use std::path::{Path, PathBuf};

/// Environment variable naming the library's exact path (it then is the only candidate).
pub(crate) fn override_var(kind: LibraryKind) -> &'static str {
    match kind {
        LibraryKind::Driver => "CUDAGEN_LIBCUDA",
        LibraryKind::Nvrtc => "CUDAGEN_NVRTC_PATH",
    }
}

/// Candidates in search order: bare sonames (resolved by `dlopen`'s own search) and absolute
/// paths, without duplicates.
pub(crate) fn candidates(kind: LibraryKind, sonames: &[&str]) -> Vec<String> {
    if let Some(p) = env_nonempty(override_var(kind)) {
        return vec![p];
    }
    let mut dirs: Vec<PathBuf> = Vec::new();
    match kind {
        LibraryKind::Driver => {
            dirs.extend(env_paths("LD_LIBRARY_PATH"));
            for d in [
                "/usr/lib/x86_64-linux-gnu",
                "/usr/lib/aarch64-linux-gnu",
                "/usr/lib64",
                "/usr/local/nvidia/lib64",
                "/usr/lib/wsl/lib",
                "/usr/local/cuda/compat",
            ] {
                dirs.push(d.into());
            }
        }
        LibraryKind::Nvrtc => {
            for var in ["CUDA_HOME", "CUDA_PATH"] {
                if let Some(h) = env_nonempty(var) {
                    dirs.push(Path::new(&h).join("lib64"));
                }
            }
            dirs.push("/usr/local/cuda/lib64".into());
            for site in python_site_dirs() {
                dirs.push(site.join("nvidia/cuda_nvrtc/lib"));
                dirs.push(site.join("nvidia/cu13/lib"));
            }
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
    let prefixes = ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .into_iter()
        .filter_map(env_nonempty)
        .map(PathBuf::from)
        .chain(env_paths("PYTHONHOME"));
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
    env::var_os(var)
        .map(|v| v.to_string_lossy().into_owned())
        .filter(|v| !v.is_empty())
}

fn env_paths(var: &str) -> impl Iterator<Item = PathBuf> {
    let v = env::var_os(var).unwrap_or_default();
    env::split_paths(&v)
        .filter(|p| !p.as_os_str().is_empty())
        .collect::<Vec<_>>()
        .into_iter()
}
