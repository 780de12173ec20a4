//! Fixture headers -> the C surface: snapshots of the rendered headers, exports and
//! cuGetProcAddress table, and (where gcc is installed) the rendered headers compile as C99 with
//! -Wall -Werror. Review changes with `cargo insta review`.

use cudagen_generator::emit;
use cudagen_generator::ir::LibraryKind;
use cudagen_tests::{fixture, root};
use std::process::Command;

/// Renders the C surface; checks the headers with gcc; returns the rendered (not verbatim) files.
fn c_surface(name: &str, kind: LibraryKind) -> String {
    let api = fixture(name, kind);
    let out = emit::generate(&api, &root().join("templates")).expect("render");
    let c_files: Vec<(&String, &String)> = out.files.iter().filter(|(p, _)| p.starts_with("c/")).collect();
    for l in out.coverage.libraries.values() {
        let emitted = l.surfaces.get("c").map(|s| s.emitted.clone()).unwrap_or_default();
        assert_eq!(emitted, l.functions, "{name}: every function is on the C surface");
    }

    if Command::new("gcc").arg("--version").output().is_ok() {
        let dir = std::env::temp_dir().join(format!("cudagen-cfix-{name}-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("include")).unwrap();
        let mut includes = String::new();
        for (p, text) in &c_files {
            if let Some(h) = p.strip_prefix("c/include/") {
                std::fs::write(dir.join("include").join(h), text).unwrap();
                includes.push_str(&format!("#include <{h}>\n"));
            }
        }
        std::fs::write(dir.join("t.c"), format!("{includes}int main(void) {{ return 0; }}\n")).unwrap();
        for (std, lang) in [("c99", "c"), ("c++11", "c++")] {
            let o = Command::new("gcc")
                .args([&format!("-std={std}"), "-x", lang, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I"])
                .arg(dir.join("include"))
                // graphics headers of the interop fixture: the parser's stand-ins
                .arg("-I")
                .arg(root().join("generator/src/clang/interop"))
                .arg(dir.join("t.c"))
                .output()
                .unwrap();
            assert!(o.status.success(), "{name} ({std}): {}", String::from_utf8_lossy(&o.stderr));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    let verbatim = ["c/src/guard.rs", "c/src/last_error.rs", "c/src/getproc.rs", "c/README.md"];
    c_files
        .iter()
        .filter(|(p, _)| !verbatim.contains(&p.as_str()))
        // the CMake package files print only the CUDA version (regen --check and tests/c/install.sh cover them)
        .filter(|(p, _)| !p.starts_with("c/cmake/"))
        .map(|(p, t)| format!("==> {p}\n{t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

macro_rules! c_fixture {
    ($name:ident, $kind:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(concat!(stringify!($name), "_c"), c_surface(stringify!($name), $kind));
        }
    };
}

c_fixture!(status_enum, LibraryKind::Driver);
c_fixture!(out_param, LibraryKind::Driver);
c_fixture!(two_call_string, LibraryKind::Nvrtc);
c_fixture!(versioned_symbol, LibraryKind::Driver);
c_fixture!(ptds_ptsz, LibraryKind::Driver);
c_fixture!(opaque_handle, LibraryKind::Driver);
c_fixture!(flags_enum, LibraryKind::Driver);
c_fixture!(callback, LibraryKind::Driver);
c_fixture!(anonymous_union, LibraryKind::Driver);
c_fixture!(deprecated, LibraryKind::Driver);
c_fixture!(interop, LibraryKind::Driver);
