//! `cargo run -p cudagen-generator --example render -- <include dir> <out dir> [cuda version]`:
//! parses the headers, runs the passes and writes every rendered file under `<out dir>`
//! (normally `generated/`). A stand-in until `cargo xtask regen` does this properly.

use std::path::{Path, PathBuf};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(include), Some(out)) = (args.next(), args.next()) else {
        fail("usage: render <include dir> <out dir> [cuda version]")
    };
    let version = args.next().unwrap_or_else(|| "12.9".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new(".")).to_path_buf();
    let headers = cudagen_generator::HeaderSet { cuda_version: version, include_dir: include.into() };
    // CUDAGEN_NO_ANNOTATIONS=1 renders fixture headers, which the real annotation files do not fit.
    let annotations = if std::env::var_os("CUDAGEN_NO_ANNOTATIONS").is_some() {
        cudagen_generator::annotations::Annotations::default()
    } else {
        cudagen_generator::annotations::Annotations::load_dir(&root.join("headers")).unwrap_or_else(|e| fail(&e.to_string()))
    };
    let api = cudagen_generator::build_api(&headers, &annotations).unwrap_or_else(|e| fail(&e.to_string()));
    let output = cudagen_generator::emit::generate(&api, &root.join("templates")).unwrap_or_else(|e| fail(&e.to_string()));
    let out = PathBuf::from(out);
    for (rel, text) in &output.files {
        let path = out.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    }
    eprintln!("wrote {} files under {}", output.files.len(), out.display());
    eprint!("{}", output.coverage.report());
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1)
}
