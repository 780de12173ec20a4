//! Snapshot of `cargo xtask diff 12.9 13.0`: the Markdown report of what changed between the two
//! releases. Headers come from `CUDAGEN_HEADERS_CACHE/<minor>` (default `.cache/headers`, filled
//! by `cargo xtask fetch --cuda <minor>`).

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::Api;
use cudagen_generator::{build_api, HeaderSet};
use cudagen_tests::root;
use std::path::PathBuf;

fn api(minor: &str) -> Option<Api> {
    let cache: PathBuf =
        std::env::var_os("CUDAGEN_HEADERS_CACHE").map(Into::into).unwrap_or_else(|| root().join(".cache/headers"));
    let dir = cache.join(minor);
    if !dir.join("cuda.h").exists() {
        if std::env::var_os("CI").is_some() {
            panic!("no {minor} headers at {}: run `cargo xtask fetch --cuda {minor}` first", dir.display());
        }
        eprintln!("skipped: no {minor} headers at {} (run `cargo xtask fetch --cuda {minor}`)", dir.display());
        return None;
    }
    let ann = Annotations::load(cudagen_generator::ir::LibraryKind::all()).unwrap();
    Some(build_api(&HeaderSet { cuda_version: minor.into(), include_dir: dir }, &ann).unwrap())
}

#[test]
fn diff_12_9_to_13_0() {
    let (Some(old), Some(new)) = (api("12.9"), api("13.0")) else { return };
    let report = cudagen_generator::diff::report(&old, &new);
    assert!(report.contains("| `cuCtxCreate` | `cuCtxCreate_v2` (3.2) | `cuCtxCreate_v4` (12.5) |"), "{report}");
    assert!(report.contains("- `cuCtxCreate_v4`: its ABI `cuCtxCreate_v4` is now behind `cuCtxCreate`"), "{report}");
    insta::assert_snapshot!("diff_12_9_to_13_0", report);
}
