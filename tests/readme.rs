//! README.md is executable: every Rust, Python and C block carries a marker line
//! `<!-- example: eras=12,13 [gpu] [features=a,b] -->` right above it, and this file builds each
//! Rust block (the body of `fn main() -> Result<(), Box<dyn Error>>`) in one scratch crate per era
//! against the generated crate with that era's feature, then runs it: blocks without `gpu` here,
//! `gpu` blocks only where a driver exists (else one line says they were skipped). Python blocks
//! run in `tests/python/test_readme.py`, C blocks in `tests/c/install.sh`.

use cudagen_tests::gpu_or_skip;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One fenced block of the README with its marker.
#[derive(Debug)]
struct Block {
    lang: String,
    /// 1-based line of the opening fence.
    line: usize,
    eras: Vec<u32>,
    gpu: bool,
    features: Vec<String>,
    code: String,
}

/// The languages whose blocks must be examples.
const EXECUTABLE: [&str; 3] = ["rust", "python", "c"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The marker's fields, or an error naming what is wrong with it.
fn parse_marker(text: &str) -> Result<(Vec<u32>, bool, Vec<String>), String> {
    let body = text.trim().strip_prefix("<!-- example:").and_then(|t| t.strip_suffix("-->")).ok_or("no marker")?;
    let (mut eras, mut gpu, mut features) = (Vec::new(), false, Vec::new());
    for word in body.split_whitespace() {
        if let Some(list) = word.strip_prefix("eras=") {
            eras = list.split(',').map(|e| e.parse().map_err(|_| format!("era `{e}`"))).collect::<Result<_, _>>()?;
        } else if let Some(list) = word.strip_prefix("features=") {
            features = list.split(',').map(String::from).collect();
        } else if word == "gpu" {
            gpu = true;
        } else {
            return Err(format!("unknown word `{word}`"));
        }
    }
    if eras.is_empty() || eras.iter().any(|e| ![12, 13].contains(e)) {
        return Err(format!("eras must be a list of 12 and 13, got {eras:?}"));
    }
    Ok((eras, gpu, features))
}

/// Every fenced block of an executable language, each with its marker (an unmarked block is an
/// error naming its line).
fn blocks(readme: &str) -> Result<Vec<Block>, String> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(lang) = lines[i].strip_prefix("```").map(str::trim) else {
            i += 1;
            continue;
        };
        let end = i + skip_fence(&lines, i);
        if EXECUTABLE.contains(&lang) {
            let marker = lines[..i].iter().rev().find(|l| !l.trim().is_empty()).copied().unwrap_or("");
            let (eras, gpu, features) = parse_marker(marker).map_err(|e| format!("README.md:{}: ```{lang} block: {e}", i + 1))?;
            let code = lines[i + 1..end].join("\n");
            out.push(Block { lang: lang.to_string(), line: i + 1, eras, gpu, features, code });
        }
        i = end + 1;
    }
    Ok(out)
}

/// Lines from an opening fence at `start` to its closing fence.
fn skip_fence(lines: &[&str], start: usize) -> usize {
    lines[start + 1..].iter().position(|l| l.trim_end() == "```").map_or(lines.len() - start, |p| p + 1)
}

fn readme_blocks() -> Vec<Block> {
    blocks(&std::fs::read_to_string(repo().join("README.md")).unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_example_block_is_marked() {
    let all = readme_blocks();
    let count = |lang: &str| all.iter().filter(|b| b.lang == lang).count();
    println!("README examples: {} rust, {} python, {} c", count("rust"), count("python"), count("c"));
    assert!(count("rust") >= 4 && count("python") >= 2 && count("c") >= 1, "{all:?}");
    // The runners of the other languages read the same markers.
    for (runner, needle) in [("tests/python/test_readme.py", "<!-- example:"), ("tests/c/install.sh", "<!-- example:")] {
        let text = std::fs::read_to_string(repo().join(runner)).unwrap();
        assert!(text.contains(needle) && text.contains("README.md"), "{runner} does not run the README's blocks");
    }
}

#[test]
fn markers_parse() {
    assert_eq!(parse_marker("<!-- example: eras=12,13 gpu -->"), Ok((vec![12, 13], true, vec![])));
    assert_eq!(parse_marker("<!-- example: eras=12 features=cudarc -->"), Ok((vec![12], false, vec!["cudarc".into()])));
    assert!(parse_marker("<!-- example: gpu -->").is_err());
    assert!(parse_marker("<!-- example: eras=11 -->").is_err());
    assert!(parse_marker("<!-- example: eras=12 fast -->").is_err());
    assert!(blocks("text\n\n```rust\nlet x = 1;\n```\n").unwrap_err().contains("README.md:3"));
    let two = blocks("<!-- example: eras=13 -->\n```c\nint x;\n```\n```sh\nls\n```\n").unwrap();
    assert_eq!((two.len(), two[0].code.as_str(), two[0].eras.as_slice()), (1, "int x;", &[13][..]));
}

/// The binary of a block in an era's scratch crate (both crates share one target folder).
fn bin_name(era: u32, b: &Block) -> String {
    format!("cuda{era}_line{}", b.line)
}

/// The scratch crate of one era: a `[[bin]]` per Rust block claiming it.
fn scratch(era: u32, rust: &[&Block]) -> PathBuf {
    let dir = repo().join(format!("target/readme/cuda{era}"));
    let _ = std::fs::remove_dir_all(dir.join("src")); // blocks of an older README
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let mut features: Vec<&str> = rust.iter().flat_map(|b| b.features.iter().map(String::as_str)).collect();
    features.sort();
    features.dedup();
    let era_feature = format!("cuda-{era}");
    let all: Vec<String> =
        std::iter::once(era_feature.as_str()).chain(features.iter().copied()).map(|f| format!("{f:?}")).collect();
    let mut toml = format!(
        "[package]\nname = \"cudagen-readme-{era}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [workspace]\n\n[dependencies]\ncudagen = {{ path = {:?}, default-features = false, features = [{}] }}\n",
        repo().join("generated/rust").to_str().unwrap(),
        all.join(", ")
    );
    if features.contains(&"cudarc") {
        toml.push_str(
            "cudarc = { version = \"=0.19.10\", default-features = false, \
             features = [\"std\", \"driver\", \"nvrtc\", \"cuda-12090\", \"dynamic-loading\"] }\n",
        );
    }
    for b in rust {
        let path = dir.join(format!("src/{}.rs", bin_name(era, b)));
        let body = format!(
            "// README.md line {}\n#![allow(unused)]\nfn main() -> ::std::result::Result<(), ::std::boxed::Box<dyn ::std::error::Error>> {{\n{}\nOk(())\n}}\n",
            b.line, b.code
        );
        std::fs::write(&path, body).unwrap();
        let bin = bin_name(era, b);
        toml.push_str(&format!("\n[[bin]]\nname = \"{bin}\"\npath = \"src/{bin}.rs\"\n"));
    }
    std::fs::write(dir.join("Cargo.toml"), toml).unwrap();
    std::fs::copy(repo().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    dir
}

/// NVRTC of the era's major from the fetched cache (the 12.9 one is also what the test
/// environment's `CUDAGEN_NVRTC_PATH` names).
fn nvrtc_of(era: u32) -> PathBuf {
    // 13.0 first: its NVRTC has no `$ORIGIN` run path, so the loader must open its builtins
    let minors: &[&str] = if era == 12 { &["12.9"] } else { &["13.0", "13.5"] };
    let found = minors.iter().map(|m| repo().join(format!(".cache/nvrtc/{m}/libnvrtc.so.{era}"))).find(|p| p.exists());
    found.unwrap_or_else(|| panic!("no libnvrtc.so.{era} under .cache/nvrtc: run `cargo xtask fetch --cuda {}`", minors[0]))
}

fn build_and_run(era: u32, blocks: &[Block], gpu: bool) {
    let rust: Vec<&Block> = blocks.iter().filter(|b| b.lang == "rust" && b.eras.contains(&era)).collect();
    let dir = scratch(era, &rust);
    let target = repo().join("target/readme/target");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(&cargo)
        .current_dir(&dir)
        .args(["build", "--bins", "--offline", "--quiet", "--target-dir"])
        .arg(&target)
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .status()
        .unwrap();
    assert!(status.success(), "README.md's Rust blocks do not build with cuda-{era} (scratch crate {})", dir.display());
    for b in &rust {
        if b.gpu && !gpu {
            println!("skipped README.md line {} (cuda-{era}): no CUDA driver", b.line);
            continue;
        }
        let out =
            Command::new(target.join("debug").join(bin_name(era, b))).env("CUDAGEN_NVRTC_PATH", nvrtc_of(era)).output().unwrap();
        assert!(
            out.status.success(),
            "README.md line {} (cuda-{era}) failed: {}{}",
            b.line,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        println!("ran README.md line {} (cuda-{era})", b.line);
    }
}

#[test]
fn rust_examples_build_and_run_in_both_eras() {
    let blocks = readme_blocks();
    let gpu = gpu_or_skip("README.md's gpu blocks");
    for era in [12, 13] {
        build_and_run(era, &blocks, gpu);
    }
}
