//! A slice and its count cannot disagree: for every array the IR gives a by-value count
//! parameter, the typed Rust function takes no such count and computes it from the slices it
//! counts (`util::array_len`, which also refuses slices of different lengths).
//! Headers come from `CUDAGEN_HEADERS_DIR` or the xtask cache `.cache/headers/12.9`.

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::{Role, Type};
use cudagen_generator::HeaderSet;
use std::path::Path;

/// The text of `pub [unsafe] fn <name>(...` up to the closing brace of its body.
fn typed_fn<'a>(src: &'a str, name: &str) -> Option<&'a str> {
    let start = src.find(&format!("\npub fn {name}(")).or_else(|| src.find(&format!("\npub unsafe fn {name}(")))?;
    let rest = &src[start..];
    let end = rest.find("\n}\n")?;
    Some(&rest[..end])
}

#[test]
fn every_counted_array_derives_its_count() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = std::env::var_os("CUDAGEN_HEADERS_DIR").map(Into::into).unwrap_or_else(|| root.join(".cache/headers/12.9"));
    if !dir.join("cuda.h").exists() {
        if std::env::var_os("CI").is_some() {
            panic!("no 12.9 headers at {}", dir.display());
        }
        eprintln!("skipped: no 12.9 headers at {}", dir.display());
        return;
    }
    let ann = Annotations::load(cudagen_generator::ir::LibraryKind::all()).unwrap();
    let api = cudagen_generator::build_api(&HeaderSet { cuda_version: "12.9".into(), include_dir: dir }, &ann).unwrap();
    let mut checked = 0;
    let mut problems = Vec::new();
    for lib in &api.libraries {
        let src = std::fs::read_to_string(root.join(format!("generated/rust/src/cuda12/{}/mod.rs", lib.kind.module()))).unwrap();
        for f in &lib.functions {
            for p in &f.params {
                let (Role::InArray { len: Some(l) } | Role::OutArray { len: Some(l) }) = &p.role else { continue };
                let count = f.param(l).unwrap();
                if matches!(count.ty, Type::Pointer { .. }) {
                    continue; // an in/out capacity (`size_t *numNodes`): `&mut usize`, checked by the callee
                }
                checked += 1;
                let Some(body) = typed_fn(&src, &f.names.rust) else {
                    problems.push(format!("{}: no typed function `{}`", f.name, f.names.rust));
                    continue;
                };
                let sig = &body[..body.find('{').unwrap_or(body.len())];
                let takes_count =
                    sig.contains(&format!("{}:", count.names.rust)) || sig.contains(&format!("{}: ", count.names.rust));
                let derives = body.contains("array_len(") && body.contains(&format!("{}.len()", p.names.rust))
                    || body.contains(&format!("{}.map_or(", p.names.rust)) && body.contains("array_len(");
                if takes_count || !derives {
                    problems.push(format!(
                        "{}: array `{}` counted by `{}` (takes count: {takes_count}, derives it: {derives})",
                        f.name, p.name, l
                    ));
                }
            }
        }
    }
    assert!(checked > 60, "only {checked} counted arrays");
    assert!(problems.is_empty(), "{} of {checked} counted arrays:\n{}", problems.len(), problems.join("\n"));
}
