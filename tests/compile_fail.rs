//! The safe layer's rules as the compiler enforces them: every probe under `tests/compile_fail/`
//! (one program per file, a folder per kind of misuse) is checked in one scratch crate
//! (`cargo check --keep-going --message-format=json`, a binary per probe), and each must give
//! exactly the error codes its header names: `//! expect: E0505` (several codes, space-separated,
//! are alternatives: every error must have one of them). `//! expect: compiles` marks a real
//! program that must build. See `tests/compile_fail/README.md` to add one. No GPU needed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a probe must give.
#[derive(Debug, PartialEq)]
enum Expect {
    Compiles,
    Codes(BTreeSet<String>),
}

struct Probe {
    /// `kind/name`, and the binary's name in the scratch crate.
    label: String,
    bin: String,
    path: PathBuf,
    expect: Expect,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("compile_fail")
}

/// The header line `//! expect: ...` of a probe.
fn expect_of(text: &str, path: &Path) -> Expect {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("//! expect:"))
        .unwrap_or_else(|| panic!("{}: no `//! expect:` line", path.display()));
    let words: BTreeSet<String> = line.split_whitespace().map(String::from).collect();
    if words.len() == 1 && words.contains("compiles") {
        return Expect::Compiles;
    }
    for w in &words {
        assert!(
            w.len() == 5 && w.starts_with('E') && w[1..].bytes().all(|b| b.is_ascii_digit()),
            "{}: `{w}` is no error code",
            path.display()
        );
    }
    Expect::Codes(words)
}

/// Every probe, sorted by kind and name.
fn probes() -> Vec<Probe> {
    let mut out = Vec::new();
    let mut kinds: Vec<PathBuf> = std::fs::read_dir(root()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    kinds.sort();
    for kind in kinds {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&kind)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            let (k, n) = (kind.file_name().unwrap().to_str().unwrap(), path.file_stem().unwrap().to_str().unwrap());
            out.push(Probe { label: format!("{k}/{n}"), bin: format!("{k}__{n}"), expect: expect_of(&text, &path), path });
        }
    }
    out
}

/// The scratch crate: one `[[bin]]` per probe, depending on the generated crate; its own
/// workspace and target folder, so the outer build's lock is never waited for.
fn scratch(probes: &[Probe]) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = manifest.parent().unwrap().join("target");
    let dir = target.join("compile-fail");
    std::fs::create_dir_all(&dir).unwrap();
    let crate_path = manifest.parent().unwrap().join("generated/rust");
    let mut toml = format!(
        "[package]\nname = \"cudagen-compile-fail\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [workspace]\n\n[dependencies]\ncudagen = {{ path = {:?} }}\n",
        crate_path.to_str().unwrap()
    );
    for p in probes {
        toml.push_str(&format!("\n[[bin]]\nname = \"{}\"\npath = {:?}\n", p.bin, p.path.to_str().unwrap()));
    }
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    // The workspace's lock file: the same dependency versions, resolved without the network.
    std::fs::copy(manifest.parent().unwrap().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    dir
}

/// Error codes per binary (an error without a code as its message), from cargo's JSON messages.
fn errors(dir: &Path) -> BTreeMap<String, Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(dir)
        .args(["check", "--bins", "--keep-going", "--offline", "--message-format=json", "--target-dir"])
        .arg(dir.join("target"))
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        if msg["reason"] != "compiler-message" || msg["message"]["level"] != "error" {
            continue;
        }
        let text = msg["message"]["message"].as_str().unwrap_or("");
        if text.starts_with("aborting due to") {
            continue;
        }
        let bin = msg["target"]["name"].as_str().unwrap_or("?").to_string();
        let code = msg["message"]["code"]["code"].as_str().map_or_else(|| format!("(no code) {text}"), String::from);
        found.entry(bin).or_default().push(code);
    }
    assert!(
        !found.contains_key("cudagen"),
        "the generated crate itself failed to build:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    found
}

#[test]
fn misuse_fails_to_compile_with_its_error_code() {
    let probes = probes();
    let failing = probes.iter().filter(|p| p.expect != Expect::Compiles).count();
    assert!(failing >= 30 && probes.len() - failing >= 3, "{failing} misuse probes, {} programs", probes.len() - failing);
    let found = errors(&scratch(&probes));
    let mut bad = Vec::new();
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &probes {
        let got: &[String] = found.get(&p.bin).map_or(&[], Vec::as_slice);
        let ok = match &p.expect {
            Expect::Compiles => got.is_empty(),
            Expect::Codes(want) => !got.is_empty() && got.iter().all(|c| want.contains(c)),
        };
        if !ok {
            bad.push(format!("{}: expected {:?}, got {got:?}", p.label, p.expect));
        }
        *by_kind.entry(p.label.split('/').next().unwrap()).or_default() += 1;
    }
    println!("compile probes by kind: {by_kind:?} ({failing} must fail, {} must compile)", probes.len() - failing);
    assert!(bad.is_empty(), "compile probes that did not give their error codes:\n{}", bad.join("\n"));
}

#[test]
fn headers_parse() {
    let codes = |s: &str| Expect::Codes(s.split(' ').map(String::from).collect());
    assert_eq!(expect_of("//! expect: E0505 E0597\nfn main() {}", Path::new("x")), codes("E0505 E0597"));
    assert_eq!(expect_of("//! A program.\n//! expect: compiles\n", Path::new("x")), Expect::Compiles);
    assert!(std::panic::catch_unwind(|| expect_of("fn main() {}", Path::new("x"))).is_err());
    assert!(std::panic::catch_unwind(|| expect_of("//! expect: E05", Path::new("x"))).is_err());
}
