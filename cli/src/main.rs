//! `cudagen`: the bindings of one CUDA release, generated into a folder of your own.
//!
//! ```text
//! cudagen regen --cuda 12.4 --out my-bindings/            # rust/, python/, c/
//! cudagen regen --cuda 12.4 --out my-crate/ --only rust   # the Rust crate itself
//! cudagen regen --cuda 12.4 --out my-crate/ --only rust --check
//! ```

use anyhow::{bail, Result};
use clap::{Parser, Subcommand, ValueEnum};
use cudagen_cli::{embedded, fetch, libclang, output, versions::Table, HeaderSource};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "cudagen", version, about = "Typed CUDA bindings (Rust, Python, C) generated from NVIDIA's headers")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Surface {
    Rust,
    Python,
    C,
}

#[derive(Subcommand)]
enum Command {
    /// Generate the bindings of one release into --out (or compare them with it: --check).
    Regen {
        #[command(flatten)]
        source: HeaderSource,
        /// The folder to write (created; only a folder of cudagen output is ever cleaned).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Only this surface, written at the top of --out (`rust`: the crate itself).
        #[arg(long)]
        only: Option<Surface>,
        /// Compare with --out instead of writing; fail with a diff when it differs.
        #[arg(long)]
        check: bool,
    },
    /// Download the headers of a release and print where they are.
    Fetch {
        #[command(flatten)]
        source: HeaderSource,
    },
    /// The CUDA releases this cudagen can fetch.
    Versions,
    /// libclang, Python and cache state (provisions libclang when missing).
    Doctor,
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli.command) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(command: Command) -> Result<()> {
    cudagen_cli::set_paths(embedded::extract(&embedded::cache_dir()?)?)?;
    match command {
        Command::Regen { source, out, only, check } => regen(&source, out, only, check),
        Command::Fetch { source } => fetch::print(&source),
        Command::Versions => {
            for e in Table::load()?.cuda {
                println!("{:<5} {}", e.minor, e.wheels.values().cloned().collect::<Vec<_>>().join(" "));
            }
            Ok(())
        }
        Command::Doctor => libclang::doctor(),
    }
}

fn regen(source: &HeaderSource, out: PathBuf, only: Option<Surface>, check: bool) -> Result<()> {
    let output = cudagen_cli::generate(source)?;
    print!("{}", output.coverage.report());
    let files = select(output.files, only);
    if check {
        let stale = output::compare(&files, &out)?;
        if !stale.is_empty() {
            eprintln!("{stale}");
            bail!("{} differs from what CUDA {} generates", out.display(), source.cuda);
        }
        println!("{} is up to date ({} files)", out.display(), files.len());
    } else {
        let (written, removed) = output::write(&files, &out)?;
        println!("{}: {} files, {written} changed, {removed} removed", out.display(), files.len());
    }
    Ok(())
}

/// All files, or one surface's with its folder prefix dropped.
fn select(files: BTreeMap<String, String>, only: Option<Surface>) -> BTreeMap<String, String> {
    let Some(surface) = only else { return files };
    let prefix = match surface {
        Surface::Rust => "rust/",
        Surface::Python => "python/",
        Surface::C => "c/",
    };
    files.into_iter().filter_map(|(p, t)| p.strip_prefix(prefix).map(|rel| (rel.to_string(), t))).collect()
}
