//! An independent oracle for the IR's ABI facts: gcc (not libclang) compiles a probe against
//! NVIDIA's real headers and prints every record's size, alignment and field offsets, every enum
//! value and every integer macro; they must equal the IR. The Rust crate asserts its own layout
//! against the IR at compile time, so gcc == IR == Rust.

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::{Library, MacroValue, Record, RecordKind, Resolved};
use cudagen_generator::HeaderSet;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn headers_dir(root: &Path) -> PathBuf {
    std::env::var_os("CUDAGEN_HEADERS_DIR").map(Into::into).unwrap_or_else(|| root.join(".cache/headers/12.9"))
}

/// How C names the record, or `None` for anonymous nested records (reached through parents).
fn c_spelling(r: &Record) -> Option<String> {
    if r.anonymous || !r.complete {
        return None;
    }
    let kw = if r.kind == RecordKind::Union { "union" } else { "struct" };
    Some(match &r.tag {
        Some(t) if *t == r.name => format!("{kw} {t}"),
        _ => r.name.clone(),
    })
}

/// Field paths reachable with `offsetof` from `r`: named fields, and through anonymous members.
fn field_paths(lib: &Library, r: &Record, base_bits: u64, out: &mut Vec<(String, u64)>) {
    for f in &r.fields {
        if f.bit_width.is_some() {
            continue;
        }
        if f.anonymous {
            if let Resolved::Record(inner) = lib.resolve(&f.ty) {
                field_paths(lib, inner, base_bits + f.offset_bits, out);
            }
        } else {
            out.push((f.name.clone(), (base_bits + f.offset_bits) / 8));
        }
    }
}

#[test]
fn gcc_agrees_with_the_ir_on_every_layout_enum_and_macro() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let dir = headers_dir(&root);
    if !dir.join("cuda.h").exists() || Command::new("gcc").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "CI must have the 12.9 headers and gcc");
        println!("skipped: no 12.9 headers at {} or no gcc", dir.display());
        return;
    }
    let ann = Annotations::load(cudagen_generator::ir::LibraryKind::all()).unwrap();
    let api = cudagen_generator::build_api(&HeaderSet { cuda_version: "12.9".into(), include_dir: dir.clone() }, &ann).unwrap();

    let mut expected: BTreeMap<String, i128> = BTreeMap::new();
    let mut probe = String::from("#include <stdio.h>\n#include <stddef.h>\n");
    // Every header read (the interop headers' graphics includes are the parser's stand-ins).
    let headers: Vec<_> = api.libraries.iter().flat_map(|l| &l.headers).collect();
    for name in headers.iter().flat_map(|h| &h.includes).chain(headers.iter().map(|h| &h.file)) {
        let _ = writeln!(probe, "#include <{name}>");
    }
    probe.push_str("int main(void) {\n");
    for lib in &api.libraries {
        for r in &lib.records {
            let Some(c) = c_spelling(r) else { continue };
            // keyed by library too: the runtime declares driver records again (`CUuuid_st`)
            let key = format!("{}.{}", lib.kind.module(), r.name);
            let _ = writeln!(probe, "  printf(\"size {0} %zu\\nalign {0} %zu\\n\", sizeof({1}), _Alignof({1}));", key, c);
            expected.insert(format!("size {key}"), r.size as i128);
            expected.insert(format!("align {key}"), r.align as i128);
            let mut paths = Vec::new();
            field_paths(lib, r, 0, &mut paths);
            for (field, offset) in paths {
                let _ = writeln!(probe, "  printf(\"offset {0}.{1} %zu\\n\", offsetof({2}, {1}));", key, field, c);
                expected.insert(format!("offset {key}.{field}"), offset as i128);
            }
        }
        for e in &lib.enums {
            for v in &e.variants {
                let _ = writeln!(probe, "  printf(\"enum {0} %lld\\n\", (long long){0});", v.name);
                expected.insert(format!("enum {}", v.name), v.value as i128);
            }
        }
        for m in &lib.macros {
            if let MacroValue::Int { value, .. } = m.value {
                let _ = writeln!(probe, "  printf(\"macro {0} %lld\\n\", (long long)({0}));", m.name);
                expected.insert(format!("macro {}", m.name), value);
            }
        }
    }
    probe.push_str("  return 0;\n}\n");

    let work = std::env::temp_dir().join(format!("cudagen-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("probe.c"), &probe).unwrap();
    let exe = work.join("probe");
    let cc = Command::new("gcc")
        .args(["-std=c11", "-w", "-o"])
        .arg(&exe)
        .arg(work.join("probe.c"))
        .arg(format!("-I{}", dir.display()))
        .arg(format!("-I{}", root.join("generator/src/clang/interop").display()))
        .output()
        .unwrap();
    assert!(cc.status.success(), "gcc failed:\n{}", String::from_utf8_lossy(&cc.stderr));
    let out = Command::new(&exe).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();

    let mut mismatches = Vec::new();
    let mut seen = 0;
    for line in text.lines() {
        let (key, value) = line.rsplit_once(' ').unwrap();
        let got: i128 = value.parse().unwrap();
        seen += 1;
        if expected.get(key) != Some(&got) {
            mismatches.push(format!("{key}: gcc {got}, IR {:?}", expected.get(key)));
        }
    }
    println!("gcc oracle: {seen} facts compared ({} records, fields, enum values, macros)", expected.len());
    assert_eq!(seen, expected.len(), "probe printed a different number of facts");
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
    let _ = std::fs::remove_dir_all(&work);
}
