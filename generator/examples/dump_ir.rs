//! `cargo run -p cudagen-generator --example dump_ir -- <include dir> [library]`: the IR as JSON.

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: dump_ir <include dir> [driver|nvrtc]");
    let only = args.next();
    let headers = cudagen_generator::HeaderSet { cuda_version: "dev".into(), include_dir: dir.into() };
    let annotations = cudagen_generator::annotations::Annotations::load_dir(std::path::Path::new("headers"))
        .unwrap_or_else(|e| fail(e));
    let api = cudagen_generator::build_api(&headers, &annotations).unwrap_or_else(|e| fail(e));
    for lib in &api.libraries {
        if only.as_deref().is_none_or(|o| o == lib.kind.module()) {
            println!("{}", serde_json::to_string_pretty(lib).unwrap_or_default());
        }
    }
}

fn fail(e: cudagen_generator::Error) -> ! {
    eprintln!("error: {e}");
    std::process::exit(1)
}
