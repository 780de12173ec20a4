//! Snapshot of the full classification table of the real headers: one line per function with
//! its ABI symbol, version, variants and each parameter's direction and role.
//! Headers come from `CUDAGEN_HEADERS_DIR` or the xtask cache `.cache/headers/12.9`.

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::{Function, Role};
use cudagen_generator::HeaderSet;
use std::path::Path;

fn role(r: &Role) -> String {
    match r {
        Role::InArray { len } | Role::OutArray { len } => {
            format!("{}[{}]", if matches!(r, Role::InArray { .. }) { "in_array" } else { "out_array" }, len.as_deref().unwrap_or("?"))
        }
        Role::OutBuffer { len, size_from, .. } => format!(
            "out_buffer[{}]",
            len.as_deref().or(size_from.as_deref()).unwrap_or("?")
        ),
        Role::Length { of } => format!("len({of})"),
        other => serde_json::to_value(other).unwrap()["role"].as_str().unwrap().to_string(),
    }
}

fn line(f: &Function) -> String {
    let version = f.version.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
    let variants: Vec<String> = f.variants.iter().map(|v| format!("+{}@{}", v.symbol, v.version.unwrap_or(0))).collect();
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| format!("{}:{:?}/{}{}", p.name, p.direction, role(&p.role), if p.nullable { "?" } else { "" }))
        .collect();
    format!("{} -> {}@{}{} {}({})", f.name, f.symbol, version, variants.concat(), if f.needs_unsafe { "unsafe " } else { "" }, params.join(", "))
}

#[test]
fn classification_table_12_9() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = std::env::var_os("CUDAGEN_HEADERS_DIR")
        .map(Into::into)
        .unwrap_or_else(|| root.join(".cache/headers/12.9"));
    if !dir.join("cuda.h").exists() {
        if std::env::var_os("CI").is_some() {
            panic!("no 12.9 headers at {}: run `cargo xtask regen --cuda 12.9` first", dir.display());
        }
        eprintln!("skipped: no 12.9 headers at {} (run `cargo xtask regen --cuda 12.9`)", dir.display());
        return;
    }
    let ann = Annotations::load_dir(&root.join("headers")).unwrap();
    let api = cudagen_generator::build_api(&HeaderSet { cuda_version: "12.9".into(), include_dir: dir }, &ann).unwrap();
    let mut table = String::new();
    for lib in &api.libraries {
        for f in &lib.functions {
            table.push_str(&line(f));
            table.push('\n');
        }
    }
    let driver = api.libraries.iter().find(|l| l.kind.module() == "driver").unwrap();
    let nvrtc = api.libraries.iter().find(|l| l.kind.module() == "nvrtc").unwrap();
    assert_eq!(driver.functions.len(), 473);
    assert_eq!(nvrtc.functions.len(), 26);
    insta::assert_snapshot!("classification_12_9", table);
}
