//! The templates, the versions table, the library folders and the runtime crates compiled into
//! the binary, so that `cudagen` works outside this repository. They are written into the cache
//! folder and read from there like the repository's own (the generated crates depend on the
//! runtime crates there by path).

use crate::Paths;
use anyhow::{Context, Result};
use include_dir::{include_dir, Dir};
use std::path::{Path, PathBuf};

static TEMPLATES: Dir = include_dir!("$CARGO_MANIFEST_DIR/data/templates");
static HEADERS: Dir = include_dir!("$CARGO_MANIFEST_DIR/data/headers");
static LIBRARIES: Dir = include_dir!("$CARGO_MANIFEST_DIR/data/libraries");
static RUNTIME: Dir = include_dir!("$CARGO_MANIFEST_DIR/data/runtime");

/// The cache folder: `$CUDAGEN_CACHE`, else `$XDG_CACHE_HOME/cudagen`, else `~/.cache/cudagen`.
pub fn cache_dir() -> Result<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("CUDAGEN_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("cudagen")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/cudagen")))
        .context("no cache folder: set CUDAGEN_CACHE")
}

/// Writes the embedded trees under `cache/data/<version>/` (afresh) and returns paths using them.
pub fn extract(cache: &Path) -> Result<Paths> {
    let data = cache.join("data").join(env!("CARGO_PKG_VERSION"));
    if data.exists() {
        std::fs::remove_dir_all(&data).with_context(|| format!("clearing {}", data.display()))?;
    }
    let (templates, headers, libraries) = (data.join("templates"), data.join("headers"), data.join("libraries"));
    let runtime = data.join("runtime");
    for (dir, tree) in [(&templates, &TEMPLATES), (&headers, &HEADERS), (&libraries, &LIBRARIES), (&runtime, &RUNTIME)] {
        std::fs::create_dir_all(dir)?;
        tree.extract(dir).with_context(|| format!("writing {}", dir.display()))?;
    }
    Ok(Paths { cache: cache.to_path_buf(), headers, libraries, templates, runtime })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_binary_carries_the_tables_and_every_root_template() {
        assert!(super::HEADERS.get_file("versions.toml").is_some());
        assert!(super::LIBRARIES.get_file("driver/library.toml").is_some());
        assert!(super::LIBRARIES.get_file("driver/annotations.toml").is_some());
        assert!(super::RUNTIME.get_file("c-core/src/lib.rs").is_some());
        assert!(super::RUNTIME.get_file("core/src/loader.rs").is_some());
        for t in ["rust/lib.rs.tera", "python/lib.rs.tera", "c/lib.rs.tera", "rust/libraries.rs.tera"] {
            assert!(super::TEMPLATES.get_file(t).is_some(), "{t} not embedded");
        }
    }
}
